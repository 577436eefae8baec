//! `dpor-sleep`: the `dpor` search with Godefroid's sleep sets (EM traces; on bounded event
//! models the same idea lives in [`super::dpor_events`]).
//!
//! A sleep set holds the threads not to be taken at a state, because every run that takes one
//! of them there is equivalent to a run already explored from an earlier state. At a state
//! where thread `c` is taken, the child's sleep set is the threads asleep or already explored
//! (`done`) here whose next transitions are independent of `c`'s under DPOR's dependence
//! ([`Engine::dependent`]): swapping them with `c` gives an equivalent run. A thread wakes up
//! when a transition dependent with its next one runs (the rule is [`super::sets::sleep_after`],
//! shared with the event-model search). A run whose every enabled thread is
//! asleep is cut off (`sleep_blocked` in the statistics), and no two complete runs explored
//! are equivalent.
//!
//! Backtracking is `dpor`'s, with one change that sleep sets need: when a race's candidates
//! at `pre(i)` are all asleep there, the state falls back to every enabled thread. Without
//! it, Flanagan and Godefroid's "a candidate is already in the backtrack set" can name a
//! thread that is asleep at `pre(i)`; it is never run from there, so the races that run would
//! have revealed (and backtrack points earlier on the path) are never found, and outcomes are
//! lost (three benchmark traces lose one each; docs/em-dpor.md has the example).
//!
//! The sleep sets are a component of the engine, [`SleepSets`], with its own state (one set per
//! state of the path), plugged in at the engine's [`Sleep`] hook points: `pushed` and `popped`
//! as the path grows and shrinks, `entered` after each step the search takes (not on replays),
//! `asleep` where the engine chooses or backtracks and where a race rule falls back, `blocked`
//! when a state is left with nothing taken. `em-dpor-sleep` uses it too, with `wake_on_queue_ops`.
//!
//! The counts differ from EM-Explorer's DPOR baseline, which has no sleep sets (so `dpor`
//! keeps its own); the outcome set must be the same (tests/dpor_benchmarks.rs,
//! tests/soundness.rs). It runs on one thread: which threads sleep at a state depends on the
//! choices finished before at its parent, so a subtree is not a function of its path alone,
//! which parallel `dpor` relies on.

use super::dpor::{DporRace, Engine, Parallel, RaceRule, Sleep};
use super::sets::{sleep_after, ChoiceSet};
use super::stats::Stats;
use super::{Search, Strategy};
use crate::model::em::EmModel;
use crate::model::Choice;
use crate::trace::em::OpKind;

/// The `dpor-sleep` strategy.
#[derive(Default)]
pub struct DporSleep;

impl Strategy<EmModel> for DporSleep {
    fn name(&self) -> &'static str {
        "dpor-sleep"
    }

    fn run(&mut self, search: &mut Search<'_, EmModel>) {
        let mut engine =
            Engine::new(search.model, DporRace::new(search.model.threads.len() as u32), SleepSets::new(false));
        engine.run(search);
    }
}

/// The sleep-set component of the engine (`dpor-sleep`, and `em-dpor-sleep` with
/// `wake_on_queue_ops`): one sleep set per state of the path, kept in step with it through
/// the engine's [`Sleep`] hook points.
pub(crate) struct SleepSets {
    /// Per path state: the threads asleep there.
    per_state: Vec<ChoiceSet>,
    /// `em-dpor-sleep`: a POST, CALL, RET, LOCK or UNLOCK wakes every sleeping thread (why: see
    /// [`crate::explore::em_dpor_sleep`]).
    wake_on_queue_ops: bool,
}

impl SleepSets {
    pub fn new(wake_on_queue_ops: bool) -> Self {
        SleepSets { per_state: Vec::new(), wake_on_queue_ops }
    }
}

impl Sleep for SleepSets {
    #[inline]
    fn asleep(&self, at: usize) -> &ChoiceSet {
        &self.per_state[at]
    }

    fn pushed(&mut self) {
        self.per_state.push(ChoiceSet::default());
    }

    fn popped(&mut self) {
        self.per_state.pop();
    }

    /// Gives the state just entered by `c` its sleep set: the threads asleep or done at the
    /// parent (other than `c`) whose next transitions are independent of `c`'s, and which
    /// still have that transition, enabled (an independent one changes neither; checking keeps
    /// the set right whatever the model does).
    fn entered<R: RaceRule, P: Parallel>(e: &mut Engine<'_, R, Self, P>, c: Choice) {
        let n = e.frames.len();
        let (parent, top) = (&e.frames[n - 2], &e.frames[n - 1]);
        let op = parent.next_op(c).expect("the thread just taken had a next operation");
        let mut sleep = ChoiceSet::default();
        let wakes_all = matches!(
            e.op_kind(op),
            OpKind::Post { .. }
                | OpKind::Call { .. }
                | OpKind::Ret { .. }
                | OpKind::Lock { .. }
                | OpKind::Unlock { .. }
        );
        if e.sleep.wake_on_queue_ops && wakes_all {
            e.sleep.per_state[n - 1] = sleep;
            return;
        }
        let stays = |t: Choice| {
            let same = top.next[t as usize] == parent.next[t as usize] && top.enabled.contains(t);
            same && parent.next_op(t).is_some_and(|o| !e.dependent(o, op))
        };
        sleep_after(&e.sleep.per_state[n - 2], &parent.sets.done, c, stays, &mut sleep);
        e.sleep.per_state[n - 1] = sleep;
    }

    fn blocked(&mut self, stats: &mut Stats) {
        *stats.sleep_blocked.get_or_insert(0) += 1;
    }
}
