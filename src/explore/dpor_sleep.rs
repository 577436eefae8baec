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
//! The counts differ from EM-Explorer's DPOR baseline, which has no sleep sets (so `dpor`
//! keeps its own); the outcome set must be the same (tests/dpor_benchmarks.rs,
//! tests/dpor_random.rs). It runs on one thread: which threads sleep at a state depends on the
//! choices finished before at its parent, so a subtree is not a function of its path alone,
//! which parallel `dpor` relies on.

use super::dpor::{Engine, Mode};
use super::sets::{sleep_after, ChoiceSet};
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
        let mut engine = Engine::new(search.model, Mode::Dpor);
        engine.sleep_sets = true;
        engine.run(search);
    }
}

impl Engine<'_> {
    /// Gives the state just entered by `c` its sleep set: the threads asleep or done at the
    /// parent (other than `c`) whose next transitions are independent of `c`'s, and which
    /// still have that transition, enabled (an independent one changes neither; checking keeps
    /// the set right whatever the model does).
    pub(crate) fn enter_sleep(&mut self, c: Choice) {
        let n = self.frames.len();
        let (parent, top) = (&self.frames[n - 2], &self.frames[n - 1]);
        let op = parent.next_op(c).expect("the thread just taken had a next operation");
        let mut sleep = ChoiceSet::default();
        let wakes_all = matches!(
            self.op_kind(op),
            OpKind::Post { .. }
                | OpKind::Call { .. }
                | OpKind::Ret { .. }
                | OpKind::Lock { .. }
                | OpKind::Unlock { .. }
        );
        if self.wake_on_queue_ops && wakes_all {
            self.frames[n - 1].sleep = sleep;
            return;
        }
        let stays = |t: Choice| {
            let same = top.next[t as usize] == parent.next[t as usize] && top.enabled.contains(t);
            same && parent.next_op(t).is_some_and(|o| !self.dependent(o, op))
        };
        sleep_after(&parent.sleep, &parent.sets.done, c, stays, &mut sleep);
        self.frames[n - 1].sleep = sleep;
    }
}
