//! Unit tests of src/explore/budget.rs: each limit ends the budget at the poll after it is reached.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tracepor::explore::{Budget, StopReason};

/// A buffer about to grow past `--max-memory` ends the budget before it grows; nothing
/// about to grow, or no limit, never does.
#[test]
fn room_for_a_growth_past_the_limit_is_refused() {
    let b = Budget::unlimited().memory(Some(1 << 40));
    assert!(b.room_for(0) && b.room_for(1 << 20));
    assert_eq!(b.reached(), None);
    assert!(!b.room_for(1 << 41));
    assert_eq!(b.reached(), Some(StopReason::MaxMemory));
    let b = Budget::unlimited().memory(Some(1));
    assert!(b.room_for(0), "no growth, no check");
    assert!(Budget::unlimited().room_for(u64::MAX));
}

#[test]
fn an_exhausted_budget_answers_stop_at_every_poll() {
    let b = Budget::exhausted(StopReason::Interrupted);
    assert!(b.poll() && b.poll() && b.spend(1));
    assert_eq!((b.reached(), b.polls()), (Some(StopReason::Interrupted), 3));
}

#[test]
fn each_limit_is_seen_by_the_poll_after_it_is_reached() {
    let b = Budget::unlimited();
    assert!(!(0..1000).any(|_| b.poll()));
    assert_eq!((b.reached(), b.polls()), (None, 1000));

    let flag = Arc::new(AtomicBool::new(false));
    let b = Budget::unlimited().cancel(Some(flag.clone()));
    assert!(!b.poll());
    flag.store(true, Ordering::Relaxed);
    assert!(b.poll());
    assert_eq!((b.reached(), b.polls()), (Some(StopReason::Interrupted), 2));

    let b = Budget::unlimited().until(Some(Instant::now() - Duration::from_millis(1)));
    assert!(b.poll());
    assert_eq!(b.reached(), Some(StopReason::TimeLimit));

    let b = Budget::unlimited().steps(Some(10));
    assert!(!b.spend(10));
    assert!(b.spend(1));
    assert_eq!((b.reached(), b.spent()), (Some(StopReason::MaxTransitions), 11));
    // Sticky: the first reason stays.
    flag.store(true, Ordering::Relaxed);
    assert!(b.poll());
    assert_eq!(b.reached(), Some(StopReason::MaxTransitions));

    // A deadline standing for another limit (the grace after a search that limit stopped)
    // is reported as that limit; a step allowance as the limit it comes from.
    let g = Budget::unlimited().until(Some(Instant::now())).standing_for(StopReason::MaxMemory);
    assert!(g.poll());
    assert_eq!(g.reached(), Some(StopReason::MaxMemory));
    let s = Budget::unlimited();
    s.set_steps(Some(0), StopReason::MaxStates);
    assert!(s.spend(1));
    assert_eq!(s.reached(), Some(StopReason::MaxStates));
}
