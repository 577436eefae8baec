//! What the sequential `dpor` engine ([`super::engine`]) and the parallel driver
//! ([`super::par`]) share: the events a subtree explored elsewhere does to the backtrack sets
//! above its root, the claims an engine keeps on the choices it handed out, and the interface
//! ([`Helpers`]) through which an engine hands choices out and collects their results. The
//! engine knows only this interface, the driver implements it: imports run one way (handoff
//! <- engine <- par), and the sequential search never names the parallel one. Why the
//! hand-off is exact (the same explored tree, hence the same counts, as the sequential search)
//! is argued in [`super::par`].

use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex};

use crate::explore::sets::ChoiceSet;
use crate::model::Choice;

/// What a subtree did to a backtrack set above its root.
#[derive(Clone, Debug)]
pub(crate) enum Event {
    /// `add_one(at, candidates)`.
    One(u32, ChoiceSet),
    /// `add_all_enabled(at)`.
    All(u32),
}

/// The events of a subtree for states above its root, in the order the sequential search
/// would apply them, without those that cannot change anything: an `add_one` whose candidates
/// include those of an earlier `add_one` at the same state (that one left a candidate in the
/// backtrack set), and anything after an `add_all_enabled` at the same state.
#[derive(Debug, Default)]
pub(crate) struct Events {
    pub list: Vec<Event>,
    /// Per state above the root: whether every enabled thread was added, and the candidate
    /// sets of the `add_one`s kept.
    seen: Vec<(bool, Vec<ChoiceSet>)>,
}

impl Events {
    fn at(&mut self, at: usize) -> &mut (bool, Vec<ChoiceSet>) {
        if self.seen.len() <= at {
            self.seen.resize_with(at + 1, Default::default);
        }
        &mut self.seen[at]
    }

    pub fn add_one(&mut self, at: usize, candidates: &ChoiceSet) {
        let (all, sets) = self.at(at);
        if *all || sets.iter().any(|s| s.is_subset(candidates)) {
            return;
        }
        sets.push(candidates.clone());
        self.list.push(Event::One(at as u32, candidates.clone()));
    }

    pub fn add_all_enabled(&mut self, at: usize) {
        let (all, _) = self.at(at);
        if *all {
            return;
        }
        *all = true;
        self.list.push(Event::All(at as u32));
    }
}

/// A donated subtree: (path to a state, a thread to take there). Its status and events are
/// written by the driver's workers ([`super::par`]).
pub(crate) struct Task {
    /// Choices from the initial state; the donated one last.
    pub path: Vec<Choice>,
    pub status: AtomicU8,
    pub events: Mutex<Option<Events>>,
}

/// A claimed choice of one of an engine's states.
pub(crate) struct Claim {
    pub depth: usize,
    pub thread: Choice,
    pub task: Arc<Task>,
}

/// Where an engine hands pending choices to other workers (the parallel driver's pool).
pub(crate) trait Helpers {
    /// Whether a worker would take a choice now.
    fn hungry(&self) -> bool;
    /// Hands out the subtree of `path` (its last choice is the donated one, at `depth`).
    fn give(&self, depth: usize, path: Vec<Choice>) -> Claim;
    /// The owner reached a claimed choice: None when it takes the choice back (it explores it
    /// itself), else the events of the subtree explored elsewhere. `nesting`: how many tasks
    /// the calling thread has on its stack below this one.
    fn collect(&self, claim: Claim, nesting: usize) -> Option<Events>;
}
