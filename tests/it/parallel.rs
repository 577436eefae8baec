//! Parallel exploration and compact state storage change how a search runs, not what it finds
//! or counts: for both exhaustive strategies, 1 and 2 threads, whole states and fingerprints,
//! give the same executions, states, transitions and outcome set; `dpor` gives the same
//! executions, transitions, depth, outcomes and deadlocks on 1, 2 and 3 threads.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tracepor::explore::{self, dpor, Limits, Search, SearchOptions, StopReason};
use tracepor::model::em::EmModel;

#[test]
fn counts_and_outcomes_do_not_depend_on_threads_or_storage() {
    let base = common::em_explorer().join("benchmark-traces");
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
    let m = common::em(&common::em_explorer().join("benchmark-traces/multithreading-with-multiple-queues/trace3"));
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
    let m = common::em(&common::em_explorer().join("benchmark-traces/multithreading-with-multiple-queues/trace1"));
    let mut s = explore::for_em_trace("full").unwrap();
    let mut search = Search::new(&m, Limits { max_states: Some(5000), ..Limits::default() });
    search.options.threads = 2;
    let (stats, _, _) = explore::run_search(search, s.as_mut());
    assert!(!stats.finished);
    assert_eq!(stats.stop, Some(explore::StopReason::MaxStates));
    // Workers notice the shared limit within their next check (every 4096 transitions).
    assert!(stats.states.unwrap() < 5000 + 2 * 300 * 4096, "{:?}", stats.states);
}

/// A limit holds with threads (a time limit of 5 s once held at 8.9 s): subtrees handed
/// out after the group halted stop before their first step instead of at their first poll, and
/// a transition budget is counted over all workers together, so a parallel search stops within
/// a transition per worker of it, whatever the machine's load.
#[test]
fn a_limit_holds_with_threads() {
    let m = common::em(&common::em_explorer().join("tacas-2016/music"));
    for strategy in ["full", "full-stateless", "dpor"] {
        let mut s = explore::for_em_trace(strategy).unwrap();
        let mut search = Search::new(&m, common::within(200_000));
        search.options.threads = 2;
        let (stats, _, _) = explore::run_search(search, s.as_mut());
        assert_eq!(stats.stop, Some(StopReason::MaxTransitions), "{strategy}");
        assert!((200_000..=200_002).contains(&stats.transitions), "{strategy}: {}", stats.transitions);
    }
}

/// Runs `dpor` on `threads` workers: (stats, outcomes, subtrees handed between workers).
fn dpor_on(
    m: &EmModel,
    threads: usize,
    limits: Limits,
    cancel: Arc<AtomicBool>,
) -> (explore::Stats, explore::Outcomes, u64) {
    let mut search = Search::new(m, limits).with_cancel(cancel);
    search.options.threads = threads;
    let donated = dpor::run_dpor(&mut search);
    let (stats, found) = search.finish();
    (stats, found, donated)
}

#[test]
fn dpor_counts_do_not_depend_on_threads() {
    let base = common::em_explorer();
    let mut donated_somewhere = false;
    for trace in [
        "benchmark-traces/multithreading-with-multiple-queues/trace1",
        "benchmark-traces/multithreading-with-multiple-queues/trace2",
        "benchmark-traces/multithreading-with-multiple-queues/trace7",
        "benchmark-traces/multithreading-with-single-queue/trace13",
        "benchmark-traces/only-multithreading/deadlocks/trace3",
        "tacas-2016/remind-me",
    ] {
        let m = common::em(&base.join(trace));
        let mut results = Vec::new();
        for threads in [1, 2, 3] {
            let (stats, found, donated) = dpor_on(&m, threads, Limits::default(), Arc::new(AtomicBool::new(false)));
            assert!(stats.finished, "{trace} on {threads} threads");
            if threads == 1 {
                assert_eq!(donated, 0);
            }
            donated_somewhere |= donated > 0;
            results.push((
                (stats.executions, stats.transitions, stats.max_depth),
                common::outcome_text(&found),
                found.deadlocks(),
                found.error_count(),
            ));
        }
        for (n, r) in results.iter().enumerate().skip(1) {
            assert_eq!(r, &results[0], "{trace}: {} threads against 1", n + 1);
        }
    }
    // trace7 alone has 128,413 executions: idle workers get subtrees.
    assert!(donated_somewhere, "no subtree was handed to another worker");
}

#[test]
fn limits_stop_a_parallel_dpor() {
    let m = common::em(&common::em_explorer().join("tacas-2016/charachter-recognition"));
    // A time limit, on a search no machine finishes in 300 ms: every worker stops, and the
    // figures so far are kept.
    let limits = Limits { time: Some(Duration::from_millis(300)), ..Limits::default() };
    let (stats, _, _) = dpor_on(&m, 2, limits, Arc::new(AtomicBool::new(false)));
    assert!(!stats.finished);
    assert_eq!(stats.stop, Some(StopReason::TimeLimit));
    assert!(stats.executions > 0 && stats.transitions > 0);
    // Ctrl-C (the shared cancellation flag) from another thread, once the search reports
    // progress (4,096 transitions in): not after a sleep, which on a busy machine could come
    // before the workers started. The time limit only keeps a lost flag from hanging the test.
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let (under_way, heard) = std::sync::mpsc::channel();
    let t = std::thread::spawn(move || {
        // No message: the search ended without a progress report (the assertions say so).
        if heard.recv().is_ok() {
            flag.store(true, Ordering::Relaxed);
        }
    });
    let limits = Limits { time: Some(Duration::from_secs(600)), ..Limits::default() };
    let mut search = Search::new(&m, limits).with_cancel(cancel);
    search.options.threads = 3;
    search.progress = Some(Box::new(move |_, _| {
        let _ = under_way.send(());
    }));
    dpor::run_dpor(&mut search);
    let (stats, _) = search.finish();
    t.join().unwrap();
    assert!(!stats.finished);
    assert_eq!(stats.stop, Some(StopReason::Interrupted));
}

#[test]
fn stop_at_first_error_ends_a_parallel_dpor() {
    let m = common::em(&common::em_explorer().join("benchmark-traces/multithreading-with-multiple-queues/trace2"));
    let limits = Limits { stop_at_first_error: true, ..Limits::default() };
    let (stats, found, _) = dpor_on(&m, 2, limits, Arc::new(AtomicBool::new(false)));
    // A search stopped at its first error did not see everything: not finished.
    assert!(!stats.finished);
    assert!(found.deadlocks() >= 1);
    assert_eq!(stats.stop, Some(StopReason::FirstError));
}
