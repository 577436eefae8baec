//! `em-dpor-sleep`: EM-DPOR with sleep sets, a sound step towards one execution per outcome
//! (it was called `optimal` until the reads-from search, src/explore/reads_from.rs,
//! took that name). It is *not* reads-from optimal; docs/optimal.md measures how far from the floor
//! (the number of distinct outcomes) it stays.
//!
//! # Algorithm and lineage
//! - Backtracking is EM-DPOR's (Maiya, Gupta, Kanade, Majumdar, "Partial Order Reduction for
//!   Event-Driven Multi-threaded Programs", TACAS 2016 / arXiv 1511.03213 §4: FindTarget,
//!   diverging posts, reschedulePending, BacktrackEager), as [`super::em_dpor`] has it: posts to
//!   one queue are independent, and two handlers of one looper are reordered by reordering
//!   their posts.
//! - On top, Godefroid's sleep sets (PhD thesis, LNCS 1032, ch. 5; combined with DPOR as in
//!   Flanagan and Godefroid, POPL 2005 §4), kept under the *commutation* relation of the
//!   emulator ([`super::dpor::Engine::dependent`]: accesses to one location with a write, LOCKs
//!   of one lock, posts to one queue), by [`super::dpor_sleep`]'s component, as `dpor-sleep`.
//! - The fallback sleep sets need (Abdulla et al., "Source Sets", JACM 2017 §4 shows why plain
//!   sleep sets can starve a backtrack point): where every fresh candidate of a race reversal is
//!   asleep at the backtrack state, every enabled thread is added there instead
//!   (`find_target` in em_dpor.rs, `dpor_backtrack` in dpor/race.rs). For EM-DPOR's FindTarget a
//!   sleeping candidate also counts as done: reschedulePending still runs after the fallback
//!   (a handler queued behind another is reordered by its post, which no enabled thread at the
//!   backtrack state can do; returning after the fallback lost an outcome,
//!   fixtures/em-regress/sleeping-candidate-queued-behind).
//! - A POST (any kind), CALL, RET, LOCK or UNLOCK wakes every sleeping thread
//!   (`SleepSets::wake_on_queue_ops`): EM-DPOR's races treat posts as commuting while the queue
//!   order does not, and its lock races differ from DPOR's, so its coverage of a done subtree
//!   does not carry across such an operation. Without this rule outcomes are lost (aarddict;
//!   random seeds, docs/optimal.md §1).
//!
//! # Why no outcome is lost
//! Sleep sets only prune: a thread `t` asleep at `s` was taken (done) at an ancestor `s0`, and
//! every transition between `s0` and `s` commutes with `t`'s next one, so every run from `s`
//! that takes `t` first reaches the state a run from `s0·t` reaches; the emulator's state holds
//! the reads-from, last writes and executed operations, so the two runs have one outcome.
//! Commutation is checked against the emulator's rules, each of which is a function of the
//! state, not of the path:
//! - program order (a thread's own operations, a handler's operations): a thread's next
//!   operation is fixed by its positions; a sleeping thread keeps its next operation (checked
//!   in `enter_sleep`), and operations of one thread are never swapped;
//! - fork, ATTACH-Q -> post, LOOP -> CALL, lifecycle enable -> trigger, dependence.txt edges
//!   (the static `waits_for` edges): they only *enable*; an enabled operation stays enabled, so
//!   they never make two enabled operations fail to commute;
//! - post -> call and FIFO per queue, for POST, NATIVE-POST, UI-POST and DELAY-POST alike (they
//!   are one operation kind in the emulator): two posts to one queue are dependent (the queue
//!   order is part of the state), and a POST, CALL or RET wakes every sleeper anyway;
//! - one handler at a time per looper: CALL and RET are operations of the looper thread, so a
//!   handler's operations are program-ordered between them;
//! - re-entrant locks: LOCKs of one lock are dependent; an UNLOCK only enables (a LOCK of
//!   another thread is disabled while the lock is held, so it is never asleep beside it); and
//!   a LOCK or UNLOCK wakes every sleeper;
//! - wait/notify counts: a NOTIFY adds one to its target's count, a WAIT takes one from its own
//!   thread's count; as states go they commute with each other and with everything else (a
//!   NOTIFY only enables), but the NOTIFYs aimed at one thread, and its WAITs, are dependent
//!   ([`super::dpor::Engine::access`]: their order decides which NOTIFY happens before which
//!   WAIT), so one of them wakes the others;
//! - reads and writes: conflicting accesses (one location, a write) are dependent, so a read's
//!   reads-from and the final writes are the same in commuted runs.
//!
//! Backtracking is EM-DPOR's, whose argument (arXiv 1511.03213 §5) covers every reordering of
//! dependent accesses, locks and handlers; a race whose candidates are all asleep falls back to
//! every enabled thread, so no backtrack choice is one that is never run. Sleep sets only span
//! stretches of reads, writes and other non-queue, non-lock operations, where EM-DPOR's
//! dependence and the commutation relation agree. That is an argument, not a proof (no paper
//! combines EM-DPOR with sleep sets); the combination is checked against the exhaustive search
//! on random traces (tests/soundness.rs) and on the benchmark and TACAS traces
//! (tests/em_dpor_sleep.rs).
//!
//! # Stuck outcomes
//! A run ends when nothing is enabled, complete or stuck; both are terminal states and count
//! the same. Blocked threads' next LOCKs are analysed for races at every state (as in em-dpor),
//! so the orders of lock acquisitions that lead to a deadlock are backtracked to like any
//! other reversal; a stuck outcome is an end state, which sleep sets preserve as above.
//!
//! # Counters
//! `redundant`: executions whose outcome was already seen; `blocked`: runs cut off because
//! every enabled thread was asleep; `consistency_s` stays null: no consistency check is made
//! (a reads-from search would decide consistency; this one does not).

use super::dpor::Engine;
use super::dpor_sleep::SleepSets;
use super::em_dpor::EmRace;
use super::{Search, Strategy};
use crate::model::em::EmModel;

/// The `em-dpor-sleep` strategy (see the module header).
#[derive(Default)]
pub struct EmDporSleep;

impl Strategy<EmModel> for EmDporSleep {
    fn name(&self) -> &'static str {
        "em-dpor-sleep"
    }

    fn run(&mut self, search: &mut Search<'_, EmModel>) {
        let mut engine = Engine::new(search.model, EmRace::default(), SleepSets::new(true));
        engine.run(search);
        // Every execution of this engine ends at a terminal state (a cut-off run is counted
        // in `sleep_blocked`, not as an execution), so the excess over the distinct outcomes is
        // exactly the runs that repeated an outcome.
        let outcomes = search.found.len() as u64;
        search.stats.redundant = Some(search.stats.executions.saturating_sub(outcomes));
        search.stats.blocked = Some(search.stats.sleep_blocked.unwrap_or(0));
    }
}
