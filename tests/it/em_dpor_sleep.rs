//! `em-dpor-sleep` (EM-DPOR with sleep sets, src/explore/em_dpor_sleep.rs): the outcome set of the
//! exhaustive search on EM-Explorer's 28 benchmark traces and on every fixture, the outcome set
//! of the sound reductions on the five TACAS 2016 traces, and, on the benchmark traces, never
//! more executions than `em-dpor`, whose backtracking it keeps (on music it runs more,
//! docs/optimal.md §4). The random differential check is tests/soundness.rs.

use tracepor::explore::{Outcomes, Stats};
use tracepor::model::em::EmModel;

use crate::common;

/// Runs strategy `name` on `m`, which must finish.
fn run(m: &EmModel, name: &str) -> (Stats, Outcomes) {
    common::run_em(m, name, common::within(common::MUST_FINISH))
}

/// The counters `em-dpor-sleep` keeps add up: every execution beyond the first of each outcome is
/// counted redundant.
fn check_counters(what: &str, st: &Stats, found: &Outcomes) {
    assert_eq!(st.redundant, Some(st.executions - found.len() as u64), "{what}: redundant runs");
    assert!(st.blocked.is_some(), "{what}: abandoned runs not counted");
}

#[test]
fn benchmark_traces_keep_full_outcome_sets() {
    let mut problems = Vec::new();
    for dir in &common::benchmark_dirs() {
        let (st, found) = match common::against_full(dir, "em-dpor-sleep") {
            Ok(r) => r,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let (se, _) = run(&common::em(dir), "em-dpor");
        if se.finished && st.executions > se.executions {
            problems.push(format!("{}: {} executions, em-dpor {}", dir.display(), st.executions, se.executions));
        }
        check_counters(&dir.display().to_string(), &st, &found);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every fixture under fixtures/em: the outcome lines it expects.
#[test]
fn fixtures_keep_expected_outcomes() {
    let root = common::root().join("fixtures/em");
    for dir in common::trace_dirs(&root) {
        let Ok(expected) = std::fs::read_to_string(dir.join("expected.outcomes")) else {
            continue;
        };
        let m = common::em(&dir);
        let (st, found) = run(&m, "em-dpor-sleep");
        assert!(st.finished, "{}: did not finish", dir.display());
        assert_eq!(common::outcome_text(&found), expected, "{}: outcome lines", dir.display());
    }
}

/// The TACAS 2016 traces (`full` finishes on none): the outcome set of `em-dpor`, or of
/// `dpor-sleep` on mytracks, where em-dpor needs 405,013 runs; the distinct outcomes are the
/// issue's floor (2, 2, 6, 20, 10).
#[test]
fn tacas_traces_keep_sound_outcome_sets() {
    for (app, reference, outcomes) in [
        ("remind-me", "em-dpor", 2),
        ("aarddict", "em-dpor", 2),
        ("music", "em-dpor", 6),
        ("charachter-recognition", "em-dpor", 20),
        ("mytracks", "dpor-sleep", 10),
    ] {
        let m = common::em(&common::em_explorer().join("tacas-2016").join(app));
        let (st, found) = run(&m, "em-dpor-sleep");
        let (sr, expected) = run(&m, reference);
        assert!(st.finished && sr.finished, "{app}: did not finish");
        assert!(found.same_as(&expected), "{app}: em-dpor-sleep and {reference} disagree");
        assert_eq!(found.len(), outcomes, "{app}: distinct outcomes");
        check_counters(app, &st, &found);
    }
}
