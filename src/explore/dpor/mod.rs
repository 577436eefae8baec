//! `dpor`: Flanagan-Godefroid dynamic partial-order reduction (POPL 2005, "Dynamic
//! partial-order reduction for model checking software") on EM traces, sequential or on
//! `--threads N` workers. The module is split so that imports run one way:
//!
//! - [`handoff`]: what the engine and the parallel driver share (the events a subtree explored
//!   elsewhere does above its root, claims, the [`handoff::Helpers`] interface), and the
//!   engine's parallel component [`handoff::Donor`] (its root, the events above it, its claims
//!   and pacing), so the core search holds no state of the parallel one;
//! - [`engine`]: the sequential search, the DPOR core shared with `em-dpor`, `dpor-sleep` and
//!   `em-dpor-sleep`; its header gives the walk and the hook points where a race rule and a sleep-set
//!   component plug in. It knows only `handoff`;
//! - [`estimate`]: the engine's progress estimate (Knuth's), a component called at two hook
//!   points (after a step, when the search stops) that reads the path's choice sets; it
//!   imports nothing of the engine;
//! - [`index`]: the core's indexes of the path by object (accesses under DPOR's dependence,
//!   LOCKs, posts), for the conflict edges and the race rules; [`terminals`]: the end states
//!   already reported (an outcome is built once per end state). Neither imports the engine;
//! - [`race`]: `dpor`'s race rule, Flanagan and Godefroid's ([`DporRace`]), plugged into the
//!   engine; `dpor-sleep` uses it too, and `em-dpor`'s BacktrackEager runs its race functions;
//! - [`par`]: the parallel driver, whose header argues why the parallel search explores the
//!   same tree (hence the same counts) as the sequential one, and plugs `Donor` into the
//!   engine's `Parallel` hook points (the sequential engine has `Solo`). It uses `engine`,
//!   `race` and `handoff`.
//!
//! Per-state sets are [`crate::explore::sets::ChoiceSet`]s.

pub(crate) mod engine;
pub(crate) mod estimate;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod handoff;
mod index;
mod par;
pub(crate) mod race;
mod terminals;

pub(crate) use engine::{Engine, NoSleep, Parallel, RaceRule, Sets, Sleep, Target};
pub(crate) use race::DporRace;

use super::{Search, Strategy};
use crate::model::em::EmModel;

/// The `dpor` strategy.
#[derive(Default)]
pub struct Dpor;

impl Strategy<EmModel> for Dpor {
    fn name(&self) -> &'static str {
        "dpor"
    }

    fn run(&mut self, search: &mut Search<'_, EmModel>) {
        run_dpor(search);
    }
}

/// Runs `dpor`, on `search.options.threads` workers (the same counts for any number); returns
/// how many subtrees were handed from one worker to another.
pub fn run_dpor(search: &mut Search<'_, EmModel>) -> u64 {
    let threads = search.options.threads.max(1);
    if threads > 1 {
        return par::run(search, threads);
    }
    let mut engine = Engine::new(search.model, DporRace::new(search.model.threads.len() as u32), NoSleep::default());
    engine.run(search);
    0
}
