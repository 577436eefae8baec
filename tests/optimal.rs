//! `optimal` (src/explore/reads_from.rs, docs/optimal.md): one execution per outcome. On
//! EM-Explorer's 28 benchmark traces and every fixture it reaches the exhaustive outcome set with
//! exactly as many executions as distinct outcomes, and on the five TACAS 2016 traces the
//! outcome set of `em-dpor-sleep`, also with one execution per outcome. The random differential check is tests/soundness.rs (the
//! strategy is registered, so it runs there on every generated trace).

use tracepor::explore::{Outcomes, Stats};
use tracepor::model::em::EmModel;

mod common;

/// Runs strategy `name` on `m`, which must finish.
fn run(m: &EmModel, name: &str) -> (Stats, Outcomes) {
    common::run_em(m, name, common::within(common::MUST_FINISH))
}

/// One execution per outcome, and the counters say so.
fn check_counters(what: &str, st: &Stats, found: &Outcomes) {
    assert_eq!(st.executions, found.len() as u64, "{what}: executions against distinct outcomes");
    assert_eq!(st.redundant, Some(0), "{what}: redundant runs");
    assert!(st.blocked.is_some() && st.consistency_s.is_some(), "{what}: counters missing");
}

#[test]
fn benchmark_traces_and_fixtures_reach_full_outcome_sets_once_each() {
    let mut dirs = common::benchmark_dirs();
    dirs.extend(common::trace_dirs(&common::root().join("fixtures/em")));
    let mut problems = Vec::new();
    for dir in &dirs {
        match common::against_full(dir, "optimal") {
            Ok((st, found)) => check_counters(&dir.display().to_string(), &st, &found),
            Err(problem) => problems.push(problem),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The TACAS 2016 traces (`full` finishes on none): the outcome set of `em-dpor-sleep`, which
/// finishes all five (docs/optimal.md), with one execution per outcome.
#[test]
fn tacas_traces_reach_the_sound_outcome_sets_once_each() {
    for (app, outcomes) in
        [("remind-me", 2), ("aarddict", 2), ("music", 6), ("charachter-recognition", 20), ("mytracks", 10)]
    {
        let m = common::em(&common::em_explorer().join("tacas-2016").join(app));
        let (sr, expected) = run(&m, "em-dpor-sleep");
        assert!(sr.finished, "{app}: em-dpor-sleep did not finish");
        let (st, found) = run(&m, "optimal");
        assert!(st.finished, "{app}: optimal did not finish");
        assert!(found.same_as(&expected), "{app}: optimal and em-dpor-sleep disagree");
        assert_eq!(found.len(), outcomes, "{app}: distinct outcomes");
        check_counters(app, &st, &found);
    }
}

/// A trace's operation numbers are its own and may be as large as a u32: nothing the search
/// keeps may be sized by them (a table indexed by them took 11 GB for this trace).
#[test]
fn huge_operation_numbers_cost_nothing() {
    let dir = std::env::temp_dir().join(format!("tracepor-optimal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.txt");
    std::fs::write(
        &path,
        "1 START\n2 THREADINIT tid:1\n3 WRITE tid:1 obj:0x1 class:C; field:x\n\
         3000000000 READ tid:1 obj:0x1 class:C; field:x\n",
    )
    .unwrap();
    let m = common::em(&path);
    let (st, found) = run(&m, "optimal");
    assert!(st.finished, "did not finish");
    assert_eq!(common::outcome_text(&found), "rf 3000000000<-3 | final 3 | stuck\n");
}
