//! The progress estimate of the DPOR core ([`super::engine`]): a rough share of the search
//! done, 0 to 1, after Knuth ("Estimating the efficiency of backtrack programs", Math. Comp.
//! 1975): along the current path, the choices finished at each state count as that share of
//! its subtree, as if every choice there led to a subtree as large as the others. Backtrack
//! sets still grow as the search goes on, so the estimate tends to run ahead of the truth: on
//! the TACAS 2016 traces it is within 2x at half of the transitions (0.36 to 0.83; docs/testing.md)
//! but early on it can be far off (mytracks: 76% at a tenth of em-dpor's search).
//! Shown by `--progress` and in the reports of stopped runs (`Stats::estimated_done`).
//!
//! A component of the engine, kept out of the core search, with static dispatch. The engine
//! calls it at two hook points: [`Estimate::stepped`] after each step taken (the estimate is
//! refreshed every [`EVERY`] transitions: it walks the whole path) and [`Estimate::stopped`]
//! when the search stops before the end. It keeps no state of its own: its input is what the
//! engine hands it, the choice sets of the path's states ([`Choices`]), so it does not import
//! the engine. It only reads: nothing it does changes what is explored.

use crate::explore::sets::ChoiceSet;
use crate::explore::stats::Stats;
use crate::model::Choice;

/// Transitions between two updates of the estimate.
const EVERY: u64 = 1 << 16;

/// What the estimate reads of one state of the path.
pub(crate) struct Choices<'a> {
    pub backtrack: &'a ChoiceSet,
    pub done: &'a ChoiceSet,
    pub enabled: &'a ChoiceSet,
    pub asleep: &'a ChoiceSet,
}

/// The progress estimate of one engine's search.
#[derive(Default)]
pub(crate) struct Estimate;

impl Estimate {
    /// Hook point: the search took a step (its transition already counted in `stats`). `path`
    /// gives the choice sets of the states the search owns, from its root down; `threads`
    /// bounds the threads.
    #[inline]
    pub fn stepped<'a, I>(&self, stats: &mut Stats, threads: u32, path: impl FnOnce() -> I)
    where
        I: Iterator<Item = Choices<'a>>,
    {
        if stats.transitions.is_multiple_of(EVERY) {
            stats.estimated_done = done(threads, path());
        }
    }

    /// Hook point: the search stops before the end (a limit, a cancel, an error).
    pub fn stopped<'a>(&self, stats: &mut Stats, threads: u32, path: impl Iterator<Item = Choices<'a>>) {
        stats.estimated_done = done(threads, path);
    }
}

/// The share of the search done: per state, the choices of the state are those taken and
/// those still to take (in the backtrack set, enabled, not asleep). None while no state of the
/// path has a choice finished: the estimate would be 0 whatever the share done (on remind-me,
/// `em-dpor` stopped half-way said 0%).
fn done<'a>(threads: u32, path: impl Iterator<Item = Choices<'a>>) -> Option<f64> {
    let (mut done, mut weight) = (0.0, 1.0);
    for f in path {
        let open = |t: Choice| f.backtrack.contains(t) && f.enabled.contains(t) && !f.asleep.contains(t);
        let total = (0..threads).filter(|&t| f.done.contains(t) || open(t)).count();
        if total > 1 {
            // The choice being explored is not finished.
            let finished = f.done.iter().count().saturating_sub(1);
            done += weight * finished as f64 / total as f64;
            weight /= total as f64;
        }
    }
    (done > 0.0).then_some(done)
}
