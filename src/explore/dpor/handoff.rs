//! What the sequential `dpor` engine ([`super::engine`]) and the parallel driver
//! ([`super::par`]) share: the events a subtree explored elsewhere does to the backtrack sets
//! above its root, the claims an engine keeps on the choices it handed out, and the interface
//! ([`Helpers`]) through which an engine hands choices out and collects their results. The
//! engine knows only this interface, the driver implements it: imports run one way (handoff
//! <- engine <- par), and the sequential search never names the parallel one. [`Donor`] is the
//! engine's parallel component: the subtree its search owns (the root), what that search does
//! above it (events), its claims and its pacing, so the engine carries no parallel state;
//! [`super::par`] plugs it into the engine's `Parallel` hook points. Why the
//! hand-off is exact (the same explored tree, hence the same counts, as the sequential search)
//! is argued in [`super::par`].

use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex};

use crate::explore::sets::ChoiceSet;
use crate::model::Choice;

/// What a subtree did to a backtrack set above its root.
#[derive(Clone, Debug)]
pub enum Event {
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
pub struct Events {
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

/// The parallel component of one engine's search (the engine's `Parallel` hook points, which
/// [`super::par`] implements with it): the subtree it owns (its
/// root), what it does to the states above (events), the choices it handed out (claims, by
/// state depth) and when to look for one to hand out next.
pub(crate) struct Donor<'p> {
    pool: &'p dyn Helpers,
    /// States below this depth belong to the search that handed this subtree out.
    pub(crate) root: usize,
    /// What the search did to the backtrack sets of the states above its root.
    pub(crate) above: Events,
    claims: Vec<Claim>,
    /// How many tasks the thread running this search has on its stack below this one.
    nesting: usize,
    /// Steps to wait before looking for a choice to give away again, after a look found none.
    wait: u32,
}

impl<'p> Donor<'p> {
    /// The component of a search owning the subtree below depth `root` (0: the whole tree).
    pub fn new(pool: &'p dyn Helpers, nesting: usize, root: usize) -> Self {
        Donor { pool, root, above: Events::default(), claims: Vec::new(), nesting, wait: 0 }
    }

    /// The events for the states above the root, once the search is over.
    pub fn take_above(&mut self) -> Events {
        std::mem::take(&mut self.above)
    }

    fn claimed(&self, depth: usize, t: Choice) -> bool {
        self.claims.iter().any(|k| k.depth == depth && k.thread == t)
    }

    /// The search is about to take `t` at `depth`. When another worker has its subtree, the
    /// claim is settled: `Some(events)` when that worker explored it (apply them, as the
    /// sequential search would have done them here), `None` when the owner takes it back.
    pub fn reach(&mut self, depth: usize, t: Choice) -> Option<Events> {
        let k = self.claims.iter().rposition(|k| k.depth == depth && k.thread == t)?;
        let claim = self.claims.remove(k);
        self.pool.collect(claim, self.nesting)
    }

    /// After a step: when a worker is idle, hands it the last pending choice (by `pending`, per
    /// state from the search's root down, excluding the current state) of the shallowest state
    /// that has one: the largest subtree, and the one the sequential search would reach last.
    /// `path` is the current path; the choice is given as path[..depth] + choice.
    pub fn offer(&mut self, pending: impl Iterator<Item = (usize, ChoiceSet)>, path: &[Choice]) {
        if !self.pool.hungry() {
            return;
        }
        if self.wait > 0 {
            self.wait -= 1;
            return;
        }
        for (depth, choices) in pending {
            if let Some(c) = choices.iter().filter(|&t| !self.claimed(depth, t)).last() {
                let mut p = path[..depth].to_vec();
                p.push(c);
                let claim = self.pool.give(depth, p);
                self.claims.push(claim);
                return;
            }
        }
        self.wait = 256;
    }
}
