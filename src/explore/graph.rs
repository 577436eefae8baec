//! The explored state graph, recorded on request (`--dot`) for small searches: states,
//! transitions labelled by the operation or event they took, and the transitions that ended in
//! an error. Past its size limit it stops recording and says so, rather than grow without end.

/// Where a recorded transition led.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    State(u32),
    /// The transition ended in an error state (no successor).
    Error,
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub from: u32,
    pub to: Target,
    pub label: String,
}

#[derive(Clone, Debug)]
pub struct StateGraph {
    pub limit: usize,
    pub states: u32,
    pub edges: Vec<Edge>,
    /// States with nothing enabled that are deadlocks (stuck).
    pub stuck: Vec<u32>,
    /// Set when the limit was passed: the graph is partial and should not be written.
    pub overflowed: bool,
}

impl StateGraph {
    pub fn new(limit: usize) -> Self {
        StateGraph { limit, states: 1, edges: Vec::new(), stuck: Vec::new(), overflowed: false }
    }

    pub fn note_state(&mut self, id: u32) {
        self.states = self.states.max(id + 1);
        if self.states as usize > self.limit || self.edges.len() > 4 * self.limit {
            self.overflowed = true;
        }
    }

    pub fn add_edge(&mut self, from: u32, to: Target, label: String) {
        if self.overflowed {
            return;
        }
        if let Target::State(id) = to {
            self.note_state(id);
        }
        self.edges.push(Edge { from, to, label });
    }
}
