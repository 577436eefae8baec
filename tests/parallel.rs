//! Parallel exploration and compact state storage change how a search runs, not what it finds
//! or counts: for both exhaustive strategies, 1 and 2 threads, whole states and fingerprints,
//! give the same executions, states, transitions and outcome set.

mod common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tracepor::explore::{self, Limits, Search, SearchOptions};

#[test]
fn counts_and_outcomes_do_not_depend_on_threads_or_storage() {
    let base = common::root().join("traces/em-explorer/benchmark-traces");
    // (trace, strategies): full-stateless only where it enumerates in well under a second.
    for (trace, names) in [
        ("multithreading-with-multiple-queues/trace3", &["full"][..]),
        ("multithreading-with-single-queue/trace5", &["full", "full-stateless"][..]),
        ("only-multithreading/deadlocks/trace3", &["full", "full-stateless"][..]),
    ] {
        let m = common::em(&base.join(trace));
        for &name in names {
            let mut results = Vec::new();
            for (threads, hash_compact) in [(1, false), (2, false), (1, true), (3, true)] {
                let mut s = explore::for_em_trace(name).unwrap();
                let mut search = Search::new(&m, Limits::default()).with_cancel(Arc::new(AtomicBool::new(false)));
                search.options = SearchOptions { threads, hash_compact, ..SearchOptions::default() };
                let (stats, found, _) = explore::run_search(search, s.as_mut());
                assert!(stats.finished);
                results.push((
                    (stats.executions, stats.states, stats.transitions, stats.max_depth),
                    common::outcome_text(&found),
                    found.deadlocks(),
                ));
            }
            for r in &results[1..] {
                assert_eq!(r, &results[0], "{trace} {name}");
            }
        }
    }
}

#[test]
fn fingerprints_take_fewer_bytes_per_state() {
    let m = common::em(
        &common::root().join("traces/em-explorer/benchmark-traces/multithreading-with-multiple-queues/trace3"),
    );
    let bytes = |hash_compact| {
        let mut s = explore::for_em_trace("full").unwrap();
        let mut search = Search::new(&m, Limits::default());
        search.options.hash_compact = hash_compact;
        explore::run_search(search, s.as_mut()).0.bytes_per_state().unwrap()
    };
    let (whole, compact) = (bytes(false), bytes(true));
    assert!(compact < 32.0, "{compact}");
    assert!(whole > 2.0 * compact, "{whole} vs {compact}");
}

#[test]
fn a_state_limit_stops_parallel_workers_too() {
    let m = common::em(
        &common::root().join("traces/em-explorer/benchmark-traces/multithreading-with-multiple-queues/trace1"),
    );
    let mut s = explore::for_em_trace("full").unwrap();
    let mut search = Search::new(&m, Limits { max_states: Some(5000), ..Limits::default() });
    search.options.threads = 2;
    let (stats, _, _) = explore::run_search(search, s.as_mut());
    assert!(!stats.finished);
    assert_eq!(stats.stop, Some(explore::StopReason::MaxStates));
    // Workers notice the shared limit within their next check (every 4096 transitions).
    assert!(stats.states.unwrap() < 5000 + 2 * 300 * 4096, "{:?}", stats.states);
}
