//! One budget for the work of a run that comes after its search proper: shorter schedules
//! (`full`'s breadth-first pass, `stateful-dpor`'s graph paths, replay shortening), the
//! conflicts `monitors` finds on its recorded graph, the places of conflicting writes, the race
//! analysis. The search stops at `--time-limit`, `--max-memory` or Ctrl-C; each phase after it
//! polls this budget and, once it is spent, keeps what it has (a schedule as found, a race left
//! undecided) instead of going on, so that the limits bound the process and not only the search.
//!
//! **What it holds.** A deadline (and the limit it stands for: the time limit, or the one that
//! stopped the search when the deadline is the grace given the work after it), the memory limit (live heap bytes when the counting
//! allocator is installed, resident memory otherwise), the Ctrl-C flag, and a count of replayed
//! steps for the phases that spend `--max-states`' budget (the race analysis). Reached once, it
//! stays reached: every later poll answers at once, so a phase given an exhausted budget does no
//! work.
//!
//! **Why the limits hold.** A phase polls at least once per replayed step or per few thousand
//! product states, so none runs more than one step (microseconds on a SmartApp, nanoseconds on an
//! EM trace) past the deadline or the memory limit; the deadline itself
//! ([`crate::explore::Search::wrap_up`]) is the time limit plus a twentieth, counted from the
//! run's start, and no later than a twentieth of the search's time (at least a second) after a
//! limit stopped the search. What is left after it (printing the report) is linear in the
//! report.
//!
//! Polls are counted ([`Budget::polls`]): tests check that a phase polls, and stops at once on
//! an exhausted budget, by these counts rather than by a clock.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::stats::{current_rss_bytes, StopReason};

/// The budget of the work after a search (module header). Shared by reference, also across the
/// threads of a parallel phase.
#[derive(Debug)]
pub struct Budget {
    deadline: Option<Instant>,
    /// The limit the deadline stands for ([`Budget::standing_for`]): the time limit, or the limit
    /// that stopped the search when the deadline is the grace given the work after it.
    deadline_reason: StopReason,
    max_memory_bytes: Option<u64>,
    /// Replayed steps allowed to the phases that spend them ([`Budget::spend`]); `u64::MAX`:
    /// no allowance.
    steps: AtomicU64,
    /// The limit the step allowance comes from (1 + its index in [`REASONS`]).
    steps_reason: AtomicU8,
    cancel: Option<Arc<AtomicBool>>,
    spent: AtomicU64,
    polls: AtomicU64,
    /// 0 while not reached, else 1 + the index of the reason in [`REASONS`].
    reached: AtomicU8,
}

/// The reasons a budget is reached, by their number in `Budget::reached`.
const REASONS: [StopReason; 5] = [
    StopReason::TimeLimit,
    StopReason::MaxMemory,
    StopReason::Interrupted,
    StopReason::MaxTransitions,
    StopReason::MaxStates,
];

/// `reason`'s number in `Budget::reached` (1 + its index in [`REASONS`]; the time limit for a
/// reason that is no limit).
fn number(reason: StopReason) -> u8 {
    REASONS.iter().position(|&r| r == reason).map_or(1, |i| i as u8 + 1)
}

/// Resident memory is read from /proc only every this many polls: reading it costs
/// microseconds.
const RSS_EVERY: u64 = 4096;

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            deadline: None,
            deadline_reason: StopReason::TimeLimit,
            max_memory_bytes: None,
            steps: AtomicU64::new(u64::MAX),
            steps_reason: AtomicU8::new(number(StopReason::MaxTransitions)),
            cancel: None,
            spent: AtomicU64::new(0),
            polls: AtomicU64::new(0),
            reached: AtomicU8::new(0),
        }
    }
}

impl Budget {
    /// No limit: every poll answers "go on".
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    /// A budget already spent, for `reason`: every poll answers "stop".
    pub fn exhausted(reason: StopReason) -> Budget {
        let b = Budget::default();
        b.reach(reason);
        b
    }

    /// Ends at `deadline`, when there is one: the time limit's.
    pub fn until(mut self, deadline: Option<Instant>) -> Budget {
        self.deadline = deadline;
        self
    }

    /// The deadline stands for `reason`: reaching it is reported as that limit. After a search
    /// that a limit stopped, the deadline is the grace given the work after it
    /// ([`crate::explore::Search::wrap_up`]); running out of it is that limit's doing, and a
    /// report that said "time limit" there would name a limit the run may not even have had.
    pub fn standing_for(mut self, reason: StopReason) -> Budget {
        self.deadline_reason = reason;
        self
    }

    /// What reaching the deadline is reported as ([`Budget::standing_for`]).
    pub fn deadline_reason(&self) -> StopReason {
        self.deadline_reason
    }

    /// Ends once the heap (or, without the counting allocator, resident memory) reaches `max`.
    pub fn memory(mut self, max: Option<u64>) -> Budget {
        self.max_memory_bytes = max;
        self
    }

    /// Allows `steps` replayed steps to the phases that count them (what is left of
    /// `--max-states` counted as transitions: spending them all is reported as that).
    pub fn steps(self, steps: Option<u64>) -> Budget {
        self.set_steps(steps, StopReason::MaxTransitions);
        self
    }

    /// [`Budget::steps`] on a budget already shared (the race analysis is given what
    /// `--max-states` left once the search's own transitions are known), the allowance coming
    /// from `reason` (the states limit of a strategy that stores states, or the transitions one).
    pub fn set_steps(&self, steps: Option<u64>, reason: StopReason) {
        self.steps.store(steps.unwrap_or(u64::MAX), Ordering::Relaxed);
        self.steps_reason.store(number(reason), Ordering::Relaxed);
    }

    /// Ends once `flag` is set (Ctrl-C).
    pub fn cancel(mut self, flag: Option<Arc<AtomicBool>>) -> Budget {
        self.cancel = flag;
        self
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    pub fn max_memory_bytes(&self) -> Option<u64> {
        self.max_memory_bytes
    }

    /// Whether the work must stop now: a poll (counted). Checks the memory limit, Ctrl-C and
    /// the deadline, in that order.
    #[inline]
    pub fn poll(&self) -> bool {
        let n = self.polls.fetch_add(1, Ordering::Relaxed);
        if self.reached.load(Ordering::Relaxed) != 0 {
            return true;
        }
        // Live heap bytes at every poll; resident memory (what the heap does not count: freed
        // memory the allocator keeps) every RSS_EVERY polls.
        if self.memory_over(0, n % RSS_EVERY == 0) {
            return self.reach(StopReason::MaxMemory);
        }
        if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
            return self.reach(StopReason::Interrupted);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return self.reach(self.deadline_reason);
        }
        false
    }

    /// Whether `bytes` more of heap keep within `--max-memory`; if not, the budget is reached
    /// (memory). For a buffer about to double: a poll every few thousand steps sees the live
    /// bytes after the copy, when the old and the new buffer were both alive a moment before.
    /// Resident memory is read too (only when `bytes` > 0: a growth is rare): what an earlier
    /// phase freed may still be held by the allocator, beside what this one allocates.
    pub fn room_for(&self, bytes: u64) -> bool {
        !(bytes > 0 && self.memory_over(bytes, true) && self.reach(StopReason::MaxMemory))
    }

    /// Whether `bytes` more would reach `--max-memory`: the heap's live bytes, and resident
    /// memory when `rss` (a read of /proc, microseconds).
    fn memory_over(&self, bytes: u64, rss: bool) -> bool {
        let Some(max) = self.max_memory_bytes else { return false };
        let over = |now: Option<u64>| now.is_some_and(|now| now.saturating_add(bytes) >= max);
        over(crate::alloc::current()) || (rss && over(current_rss_bytes()))
    }

    /// Counts `steps` replayed steps against the step allowance, then polls.
    #[inline]
    pub fn spend(&self, steps: u64) -> bool {
        let spent = self.spent.fetch_add(steps, Ordering::Relaxed) + steps;
        if spent > self.steps.load(Ordering::Relaxed) {
            self.polls.fetch_add(1, Ordering::Relaxed);
            return self.reach_number(self.steps_reason.load(Ordering::Relaxed));
        }
        self.poll()
    }

    /// Why the budget was reached, if it was (the first reason seen).
    pub fn reached(&self) -> Option<StopReason> {
        match self.reached.load(Ordering::Relaxed) {
            0 => None,
            k => Some(REASONS[k as usize - 1]),
        }
    }

    /// Polls so far (each [`Budget::poll`] and [`Budget::spend`]).
    pub fn polls(&self) -> u64 {
        self.polls.load(Ordering::Relaxed)
    }

    /// Replayed steps counted so far ([`Budget::spend`]).
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// Records `reason` (the first one wins); returns true, for `return self.reach(..)`.
    fn reach(&self, reason: StopReason) -> bool {
        self.reach_number(number(reason))
    }

    fn reach_number(&self, k: u8) -> bool {
        let _ = self.reached.compare_exchange(0, k, Ordering::Relaxed, Ordering::Relaxed);
        true
    }
}

impl crate::model::Poll for Budget {
    fn poll(&self) -> bool {
        Budget::poll(self)
    }
}
