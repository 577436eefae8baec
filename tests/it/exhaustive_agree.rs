//! The two exhaustive strategies agree: stateful `full` (which merges paths only when every
//! executed read saw the same write) reaches the outcome set of `full-stateless` on every
//! shipped benchmark trace small enough to enumerate every interleaving, and the deadlock
//! traces are reported as deadlocks with a schedule that replays to one.

use crate::common;

use tracepor::explore::Limits;
use tracepor::model::{format_schedule, parse_schedule, Model};

/// Benchmark traces whose interleavings full-stateless enumerates within a few seconds
/// (measured: the others run past 10 s, with millions of executions).
const SMALL: &[&str] = &[
    "multithreading-with-multiple-queues/trace6",
    "multithreading-with-single-queue/trace1",
    "multithreading-with-single-queue/trace2",
    "multithreading-with-single-queue/trace3",
    "multithreading-with-single-queue/trace4",
    "multithreading-with-single-queue/trace5",
    "multithreading-with-single-queue/trace8",
    "multithreading-with-single-queue/trace9",
    "multithreading-with-single-queue/trace10",
    "multithreading-with-single-queue/trace11",
    "only-multithreading/trace1",
    "only-multithreading/deadlocks/trace1",
    "only-multithreading/deadlocks/trace2",
    "only-multithreading/deadlocks/trace3",
];

#[test]
fn full_and_full_stateless_reach_the_same_outcomes() {
    let base = common::em_explorer().join("benchmark-traces");
    for name in SMALL {
        let m = common::em(&base.join(name));
        let (sf, full) = common::run_em(&m, "full", Limits::default());
        let (ss, stateless) = common::run_em(&m, "full-stateless", Limits::default());
        assert!(sf.finished && ss.finished);
        assert!(!full.is_empty());
        assert_eq!(common::outcome_text(&full), common::outcome_text(&stateless), "{name}");
        assert!(sf.executions <= ss.executions, "{name}: state matching cannot walk more runs");
    }
}

#[test]
fn full_finishes_on_every_benchmark_trace() {
    for d in common::trace_dirs(&common::em_explorer().join("benchmark-traces")) {
        let m = common::em(&d);
        let (stats, found) = common::run_em(&m, "full", Limits::default());
        assert!(stats.finished, "{}", d.display());
        assert!(!found.is_empty());
    }
}

#[test]
fn deadlock_traces_are_reported_with_replayable_schedules() {
    let base = common::em_explorer().join("benchmark-traces/only-multithreading/deadlocks");
    for d in common::trace_dirs(&base) {
        let m = common::em(&d);
        let (_, found) = common::run_em(&m, "full", Limits::default());
        assert!(found.deadlocks() > 0, "{}: no deadlock found", d.display());
        for (outcome, schedule) in found.deadlock_schedules() {
            // The schedule text round-trips and replays to a stuck state with that outcome.
            let text = format_schedule(&m, schedule);
            let path = parse_schedule(&m, &text).unwrap();
            assert_eq!(path, schedule);
            let mut s = m.initial();
            for &c in &path {
                let mut en = Vec::new();
                m.enabled(&s, &mut en);
                assert!(en.contains(&c));
                m.step(&mut s, c).unwrap();
            }
            let mut en = Vec::new();
            m.enabled(&s, &mut en);
            assert!(en.is_empty());
            let o = m.outcome(&s);
            assert!(o.stuck());
            assert_eq!(o.to_string(), outcome.to_string());
        }
    }
}
