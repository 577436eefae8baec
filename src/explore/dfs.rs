//! Depth-first search over every enabled choice: the walk both exhaustive strategies share.
//! With a visited set it is `full` (a state seen before is not expanded again), without one it
//! is `full-stateless` (every interleaving).

use rustc_hash::FxHashMap;

use super::graph::Target;

use super::Search;
use crate::model::{Choice, Model};

struct Frame<S> {
    state: S,
    /// Stored state id (stateful) or node number (stateless), for the state graph.
    id: u32,
    enabled: Vec<Choice>,
    next: usize,
}

/// Walks `search.model` depth-first; `stateful` turns state matching on.
pub fn depth_first<M: Model>(search: &mut Search<'_, M>, stateful: bool) {
    let model = search.model;
    let mut visited: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
    let mut nodes = 1u32;
    let mut key = Vec::new();
    let initial = model.initial();
    if stateful {
        model.encode(&initial, &mut key);
        visited.insert(key.as_slice().into(), 0);
        search.new_state();
        search.stats.unique_transitions = Some(0);
    }
    let mut path: Vec<Choice> = Vec::new();
    let mut enabled = Vec::new();
    model.enabled(&initial, &mut enabled);
    if enabled.is_empty() {
        search.terminal(&initial, &path);
        return;
    }
    let mut stack = vec![Frame { state: initial, id: 0, enabled, next: 0 }];
    while let Some(top) = stack.last_mut() {
        if search.stopped() {
            break;
        }
        if top.next == top.enabled.len() {
            stack.pop();
            path.pop();
            continue;
        }
        let c = top.enabled[top.next];
        top.next += 1;
        let from = top.id;
        let label = search.graph.as_ref().filter(|g| !g.overflowed).map(|_| model.describe(&top.state, c));
        let mut state = top.state.clone();
        path.push(c);
        search.transition(path.len());
        if let Some(u) = search.stats.unique_transitions.as_mut() {
            // Each stored state is expanded once, so every edge walked is a new one.
            *u += 1;
        }
        if let Err(e) = model.step(&mut state, c) {
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(from, Target::Error, label);
            }
            search.error(e, &path);
            path.pop();
            continue;
        }
        let id = if stateful {
            key.clear();
            model.encode(&state, &mut key);
            let next = visited.len() as u32;
            let id = *visited.entry(key.as_slice().into()).or_insert(next);
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(from, Target::State(id), label);
            }
            if id != next {
                search.end_execution();
                path.pop();
                continue;
            }
            search.new_state();
            id
        } else {
            nodes += 1;
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(from, Target::State(nodes - 1), label);
            }
            nodes - 1
        };
        let mut enabled = Vec::new();
        model.enabled(&state, &mut enabled);
        if enabled.is_empty() {
            if let Some(g) = search.graph.as_mut() {
                if model.outcome(&state).stuck {
                    g.stuck.push(id);
                }
            }
            search.terminal(&state, &path);
            path.pop();
            continue;
        }
        stack.push(Frame { state, id, enabled, next: 0 });
    }
}
