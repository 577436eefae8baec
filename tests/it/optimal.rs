//! `optimal` (src/explore/reads_from.rs, docs/optimal.md): one execution per outcome. On
//! EM-Explorer's 28 benchmark traces and every fixture it reaches the exhaustive outcome set with
//! exactly as many executions as distinct outcomes, and on the five TACAS 2016 traces the
//! outcome set of `em-dpor-sleep`, also with one execution per outcome. The random differential check is tests/soundness.rs (the
//! strategy is registered, so it runs there on every generated trace).

use tracepor::explore::{Outcomes, Stats};
use tracepor::model::em::EmModel;

use crate::common;

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

/// The issue-27 trace (benches/gen_race3.py): thread 1 loops; threads 2-4 post messages 1..m in
/// turn, each handled right after its post; each handler reads and writes a field of its own,
/// except three, posted by three threads, that write one shared field.
fn race3(m: u32) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-optimal-race3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("race3-{m}.txt"));
    let mut t = String::from("1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1 queue:1\n");
    let mut idx = 4;
    for p in 2..5 {
        t.push_str(&format!("{idx} FORK par-tid:1 child-tid:{p}\n{} THREADINIT tid:{p}\n", idx + 1));
        idx += 2;
    }
    t.push_str(&format!("{idx} LOOP tid:1 queue:1\n"));
    idx += 1;
    let racing = [3 * (m / 12), 6 * (m / 12) + 1, 9 * (m / 12) + 2];
    for msg in 1..=m {
        let field = if racing.contains(&msg) { "shared".to_string() } else { format!("f{msg}") };
        t.push_str(&format!(
            "{idx} POST src:{} msg:{msg} dest:1\n{} CALL tid:1 msg:{msg}\n{} READ tid:1 obj:0x1 class:C; field:f{msg}\n\
             {} WRITE tid:1 obj:0x1 class:C; field:{field}\n{} RET tid:1 msg:{msg}\n",
            2 + msg % 3,
            idx + 1,
            idx + 2,
            idx + 3,
            idx + 4
        ));
        idx += 5;
    }
    std::fs::write(&path, t).unwrap();
    path
}

fn tracepor_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).output().unwrap();
    (o.status.code(), serde_json::from_slice(&o.stdout).unwrap())
}

/// three outcomes once each at any size (here 50,000 operations, which the n x n
/// matrices of the first version refused for memory under 200 MiB), and `--max-memory` holds
/// within 10% when the limit falls inside `optimal`'s set-up or search.
#[test]
fn large_trace_three_outcomes_and_memory_limit_holds() {
    let trace = race3(10_000);
    let t = trace.to_str().unwrap();
    let (code, v) =
        tracepor_json(&["check", t, "--strategy", "optimal", "--json", "--no-progress", "--max-memory", "200"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!((v["executions"].as_u64(), v["outcomes"].as_u64()), (Some(3), Some(3)), "{v}");
    let full = v["peak_alloc_bytes"].as_u64().unwrap();
    // Limits at a third and at two thirds of what the run needs: each stops it, within 10%.
    for mib in [full / 3 >> 20, 2 * full / 3 >> 20] {
        let limit = mib.max(1).to_string();
        let (code, v) =
            tracepor_json(&["check", t, "--strategy", "optimal", "--json", "--no-progress", "--max-memory", &limit]);
        assert_eq!(code, Some(3), "{v}");
        assert_eq!(v["stopped_by"], "memory", "{v}");
        let peak = v["peak_alloc_bytes"].as_u64().unwrap();
        assert!(peak as f64 <= 1.1 * (mib.max(1) << 20) as f64, "limit {mib} MiB: peak {peak}");
    }
}
