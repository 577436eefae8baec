//! `dpor`, `dpor-sleep` and `em-dpor` on EM-Explorer's traces (../shared/traces/em-explorer):
//! soundness (the outcome set equals the exhaustive `full` one on every hand-written benchmark
//! trace, and on every fixture under fixtures/em) and the counts EM-Explorer reports
//! (traces/reference/em-explorer-counts.tsv, a copy of shared/reference), asserted where tracepor matches them; the
//! differences are listed, and explained in docs/em-dpor.md.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tracepor::explore::{self, Outcomes, Stats};
use tracepor::model::em::EmModel;
use tracepor::model::{load, LoadOptions, Loaded};

use crate::common;

/// The project root: the reference counts live under traces/reference.
fn shared() -> PathBuf {
    common::root()
}

fn model(dir: &Path) -> EmModel {
    match load(dir, LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")) {
        Loaded::Em(m) => m,
        #[allow(unreachable_patterns)]
        _ => panic!("{} is not an EM trace", dir.display()),
    }
}

/// Runs strategy `name` on `m`, which must finish.
fn run(m: &EmModel, name: &str) -> (Stats, Outcomes) {
    let mut s = explore::for_em_trace(name).expect("strategy registered");
    let limits = common::within(common::MUST_FINISH);
    explore::run(m, s.as_mut(), limits, Arc::new(AtomicBool::new(false)))
}

/// Every benchmark trace folder, as "benchmark-traces/<group>/.../traceN".
fn benchmark_traces() -> Vec<String> {
    let root = common::em_explorer();
    let mut out = Vec::new();
    let mut stack = vec![root.join("benchmark-traces")];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.join("trace.txt").is_file() {
                    out.push(p.strip_prefix(&root).unwrap_or(&p).to_string_lossy().into_owned());
                } else {
                    stack.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// (traces, transitions) EM-Explorer reports for `trace` under `strategy`, when it finished.
fn reference(trace: &str, strategy: &str) -> Option<(u64, u64)> {
    let tsv =
        std::fs::read_to_string(shared().join("traces/reference/em-explorer-counts.tsv")).expect("reference counts");
    tsv.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        (f.len() >= 5 && f[0] == trace && f[1] == strategy && f[2] == "done")
            .then(|| Some((f[3].parse().ok()?, f[4].parse().ok()?)))
            .flatten()
    })
}

/// Where tracepor's counts differ from EM-Explorer's on purpose (docs/em-dpor.md §5):
/// (trace, strategy, tracepor's executions, transitions).
const KNOWN_DIFFERENCES: &[(&str, &str, u64, u64)] = &[];

#[test]
fn benchmark_traces_keep_full_outcome_sets_and_reference_counts() {
    let traces = benchmark_traces();
    assert_eq!(traces.len(), 28, "the 28 hand-written traces are expected under ../shared/traces/em-explorer");
    let mut problems = Vec::new();
    for t in &traces {
        let m = model(&common::em_explorer().join(t));
        let (fs, full) = run(&m, "full");
        assert!(fs.finished, "{t}: full did not finish");
        for name in ["dpor", "dpor-sleep", "em-dpor"] {
            let (st, found) = run(&m, name);
            if !st.finished {
                problems.push(format!("{t} {name}: did not finish"));
                continue;
            }
            if !found.same_as(&full) {
                problems.push(format!("{t} {name}: outcome set differs from full's"));
            }
            let ours = (st.executions, st.transitions);
            let known = KNOWN_DIFFERENCES.iter().find(|k| k.0 == t && k.1 == name).map(|k| (k.2, k.3));
            match (reference(t, name), known) {
                (_, Some(k)) if ours != k => problems.push(format!("{t} {name}: {ours:?}, documented {k:?}")),
                (Some(r), None) if ours != r => problems.push(format!("{t} {name}: {ours:?}, EM-Explorer {r:?}")),
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The TACAS 2016 app traces where EM-Explorer's EM-DPOR finished: same counts, in well under
/// a second each. (`full` does not finish on them, so soundness is checked against `dpor` where
/// that one is fast.)
#[test]
fn tacas_traces_em_dpor_counts() {
    for app in ["remind-me", "aarddict", "music", "charachter-recognition"] {
        let t = format!("tacas-2016/{app}");
        let m = model(&common::em_explorer().join(&t));
        let (st, _) = run(&m, "em-dpor");
        assert!(st.finished, "{t}: em-dpor did not finish");
        assert_eq!(Some((st.executions, st.transitions)), reference(&t, "em-dpor"), "{t}");
    }
}

#[test]
fn remind_me_dpor_matches_reference_and_em_dpor_outcomes() {
    let t = "tacas-2016/remind-me";
    let m = model(&common::em_explorer().join(t));
    let (sd, dpor) = run(&m, "dpor");
    let (se, em) = run(&m, "em-dpor");
    assert!(sd.finished && se.finished);
    assert_eq!(Some((sd.executions, sd.transitions)), reference(t, "dpor"));
    assert!(dpor.same_as(&em), "dpor and em-dpor disagree on {t}");
}

/// `dpor-sleep` on the TACAS 2016 traces where it finishes: the outcome set of `em-dpor` (itself
/// checked against EM-Explorer's counts and `dpor`), with far fewer runs than `dpor`'s
/// (EM-Explorer's counts: charachter-recognition 1,284,788 runs; mytracks 6,051,416 in our `dpor`).
/// On mytracks `em-dpor` walks 405,013 runs, nine tenths of this test's time, so that trace runs
/// on demand (`mytracks_dpor_sleep_keeps_em_dpor_outcomes`); tests/it/em_dpor_sleep.rs compares
/// `dpor-sleep` there with `em-dpor-sleep` in every run.
#[test]
fn tacas_traces_dpor_sleep_keeps_em_dpor_outcomes() {
    for (app, dpor_runs) in [("remind-me", 24), ("charachter-recognition", 1_284_788)] {
        dpor_sleep_keeps_em_dpor_outcomes(app, dpor_runs);
    }
}

#[test]
#[ignore = "em-dpor walks 405,013 runs: cargo test --release --test it dpor_benchmarks:: -- --ignored"]
fn mytracks_dpor_sleep_keeps_em_dpor_outcomes() {
    dpor_sleep_keeps_em_dpor_outcomes("mytracks", 6_051_416);
}

fn dpor_sleep_keeps_em_dpor_outcomes(app: &str, dpor_runs: u64) {
    let t = format!("tacas-2016/{app}");
    let m = model(&common::em_explorer().join(&t));
    let (ss, sleep) = run(&m, "dpor-sleep");
    let (se, em) = run(&m, "em-dpor");
    assert!(ss.finished && se.finished, "{t}: did not finish");
    assert!(sleep.same_as(&em), "{t}: dpor-sleep and em-dpor disagree");
    assert!(ss.executions < dpor_runs, "{t}: {} runs, dpor {dpor_runs}", ss.executions);
    assert!(ss.sleep_blocked.is_some_and(|n| n > 0), "{t}: sleep sets cut nothing off");
}

/// Every fixture under fixtures/em (traces kept for a behaviour, or a seed of the randomized
/// suite that once failed): the reductions reach the outcome set of `full`.
#[test]
fn fixtures_keep_full_outcome_sets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/em");
    let Ok(entries) = std::fs::read_dir(&root) else {
        return;
    };
    for e in entries.flatten() {
        let dir = e.path();
        if !dir.join("trace.txt").is_file() {
            continue;
        }
        let m = model(&dir);
        let (fs, full) = run(&m, "full");
        assert!(fs.finished, "{}: full did not finish", dir.display());
        for name in ["dpor", "dpor-sleep", "em-dpor"] {
            let (st, found) = run(&m, name);
            assert!(st.finished, "{} {name}: did not finish", dir.display());
            assert!(found.same_as(&full), "{} {name}: outcome set differs from full's", dir.display());
        }
    }
}
