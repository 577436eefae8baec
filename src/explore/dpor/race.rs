//! `dpor`'s race rule: Flanagan and Godefroid's (POPL 2005, "Dynamic partial-order reduction
//! for model checking software", §4), in the form EM-Explorer uses as its baseline, plugged
//! into the DPOR core ([`super::engine`]) at its [`RaceRule`] hook points.
//!
//! Dependence: accesses to one location (one of them a write), LOCKs of one lock, posts to one
//! queue (an event queue is a shared object); the transitions of a thread, its handlers
//! included, are totally ordered (the happens-before edges the rule adds at each step).
//!
//! The rule (docs/em-dpor.md §4.1): for the next transition of thread p, the last conflicting
//! transition i of another thread that does not happen before p; at `pre(i)` add p if it can run
//! there, else a thread of a transition after i that happens before p, else every enabled
//! thread. Why no Mazurkiewicz trace is missed is Flanagan and Godefroid's theorem: each race
//! of an explored run has its reversal scheduled at `pre(i)`, by a thread that starts it. The
//! analysis reads the path, the clocks and `enabled` only, so it runs once per state (and
//! subtrees are functions of their paths, which parallel `dpor` relies on, see [`super::par`]).
//!
//! The race functions are generic over the engine's rule: EM-DPOR's BacktrackEager runs them
//! on a stretch of its path ([`crate::explore::em_dpor`]), and sleep sets commute transitions
//! by [`Engine::dependent`].

use smallvec::SmallVec;

use super::engine::{Engine, Parallel, RaceRule, Sleep, Target};
use crate::explore::sets::ChoiceSet;
use crate::model::em::NEVER;
use crate::model::Choice;
use crate::trace::em::OpKind;

/// Flanagan and Godefroid's race rule (`dpor`, `dpor-sleep`). Its own state is thread order,
/// the happens-before edge it adds at each step (EM-DPOR orders a thread's transitions by task
/// instead); the rest of what it reads (the path, the clocks, the indexes of accesses, locks
/// and posts) is the core's.
#[derive(Clone, Debug, Default)]
pub(crate) struct DporRace {
    /// Per thread: path position of its latest transition (NEVER when none).
    last_of_thread: Vec<u32>,
    /// Per step of the path: its thread, and that thread's latest transition before it (to
    /// undo `last_of_thread` when the step is popped).
    steps: Vec<(Choice, u32)>,
}

impl DporRace {
    /// The rule for a search of a trace with `threads` threads.
    pub fn new(threads: u32) -> Self {
        DporRace { last_of_thread: vec![NEVER; threads as usize], steps: Vec::new() }
    }

    /// Path position of thread `p`'s latest transition.
    #[inline]
    fn last_of_thread(&self, p: Choice) -> Option<usize> {
        let l = self.last_of_thread[p as usize];
        (l != NEVER).then_some(l as usize)
    }
}

impl RaceRule for DporRace {
    const ONCE_PER_STATE: bool = true;

    /// Thread order: the thread's latest transition.
    fn predecessor<S: Sleep, P: Parallel>(e: &Engine<'_, Self, S, P>, p: Choice, _op: u32) -> Option<usize> {
        e.rule.last_of_thread(p)
    }

    /// Posts to one queue are ordered (the queue is a shared object), and so are the
    /// transitions of a thread.
    #[inline(always)]
    fn step_edges<S: Sleep, P: Parallel>(
        e: &mut Engine<'_, Self, S, P>,
        c: Choice,
        op: u32,
        extra: &mut SmallVec<[usize; 8]>,
    ) {
        if let Some(d) = e.post_dest(op) {
            extra.extend(e.posts_to(d).last().map(|&p| p as usize));
        }
        extra.extend(e.rule.last_of_thread(c));
        // The step about to be pushed takes the next path position.
        let pos = e.hb.len() as u32;
        let rule = &mut e.rule;
        rule.steps.push((c, rule.last_of_thread[c as usize]));
        rule.last_of_thread[c as usize] = pos;
    }

    fn popped(&mut self) {
        if let Some((c, prev)) = self.steps.pop() {
            self.last_of_thread[c as usize] = prev;
        }
    }

    /// A thread other than the last one to run whose next transition did not change was
    /// analysed one state up, against the same path but its last transition; the last
    /// unordered conflicting transition is then either that last one or the one found there,
    /// whose backtrack rule already ran (same candidates: the last transition does not happen
    /// before the thread's earlier ones). Only the last transition is checked for them.
    fn analyse<S: Sleep, P: Parallel>(e: &mut Engine<'_, Self, S, P>) {
        let top = e.frames.len() - 1;
        let last = (top > 0).then(|| e.path[top - 1]);
        for p in 0..e.threads() {
            let Some(op) = e.frames[top].next_op(p) else {
                continue;
            };
            if last.is_some_and(|c| c != p && e.frames[top - 1].next[p as usize] == op) {
                e.dpor_race_with_last(p, op);
            } else {
                e.dpor_races(p, op);
            }
        }
    }
}

impl<R: RaceRule, S: Sleep, P: Parallel> Engine<'_, R, S, P> {
    /// DPOR's backtrack rule for the race between path position `i` and `target`.
    pub fn dpor_backtrack(&mut self, i: usize, target: &Target) {
        let f = &self.frames[i];
        let mut cands = ChoiceSet::default();
        if f.enabled.contains(target.thread) && self.task_executable(f, target.op) {
            cands.insert(target.thread);
        }
        let more = self.hb_candidates(i, target, true);
        for t in more.iter() {
            cands.insert(t);
        }
        // `dpor-sleep`: a sleeping thread is never taken at `pre(i)`, so the races its run from
        // there would reveal are never found; only awake candidates count (see dpor_sleep.rs).
        if cands.keep_awake(self.sleep.asleep(i)) {
            self.add_one(i, &cands);
        } else {
            self.add_all_enabled(i);
        }
    }

    /// Races of thread `p`'s next transition under DPOR's dependence: the last conflicting
    /// transition of another thread that does not happen before it.
    pub(crate) fn dpor_races(&mut self, p: Choice, op: u32) {
        let target = self.next_target(p, op);
        let other = |e: &Self, i: u32| e.model.op_thread[e.hb.op(i as usize) as usize] != p;
        let unordered = |e: &Self, i: u32| other(e, i) && !e.hb_target(i as usize, &target);
        let race = match (self.access(op), self.op_kind(op)) {
            (Some((loc, false)), _) => {
                self.accesses_of(loc).iter().rev().filter(|a| a.1).map(|a| a.0).find(|&i| unordered(self, i))
            }
            (Some((loc, true)), _) => self.accesses_of(loc).iter().rev().map(|a| a.0).find(|&i| unordered(self, i)),
            (None, OpKind::Lock { .. }) => self.locks_of(op).iter().rev().copied().find(|&i| unordered(self, i)),
            (None, OpKind::Post { .. }) => match self.post_dest(op) {
                Some(d) => self.posts_to(d).iter().rev().copied().find(|&i| unordered(self, i)),
                None => None,
            },
            _ => None,
        };
        if let Some(i) = race {
            self.dpor_backtrack(i as usize, &target);
        }
    }

    /// DPOR's race rule for thread `p`'s next transition `op` against the last transition of
    /// the path alone.
    fn dpor_race_with_last(&mut self, p: Choice, op: u32) {
        let j = self.hb.len() - 1;
        let conflict = self.dependent(op, self.hb.op(j));
        if conflict {
            let target = self.next_target(p, op);
            if !self.hb_target(j, &target) {
                self.dpor_backtrack(j, &target);
            }
        }
    }

    /// DPOR's dependence between transitions `a` and `b` of two different threads: accesses to
    /// one location (one of them a write; NOTIFYs aimed at one thread, WAITs of one thread:
    /// [`Engine::access`]), LOCKs of one lock, posts to one queue.
    pub(crate) fn dependent(&self, a: u32, b: u32) -> bool {
        if let (Some((l1, w1)), Some((l2, w2))) = (self.access(a), self.access(b)) {
            return l1 == l2 && (w1 || w2);
        }
        match (self.op_kind(a), self.op_kind(b)) {
            (OpKind::Lock { .. }, OpKind::Lock { .. }) => self.model.lock_of(a) == self.model.lock_of(b),
            (OpKind::Post { .. }, OpKind::Post { .. }) => {
                self.post_dest(a).is_some() && self.post_dest(a) == self.post_dest(b)
            }
            _ => false,
        }
    }
}
