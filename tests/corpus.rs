//! `tracepor corpus` and `corpus-merge` as scripts and job arrays call them: one row per pair,
//! a pair that does not load is a row saying why, and shards run at once merge into the
//! unsharded table. Reads the SmartApps at ../shared/smartthings/smartapps.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

const PAIRS: &str = "fixtures/corpus/pairs.tsv";
const APPS: &str = "../shared/smartthings/smartapps";

fn tracepor() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracepor"));
    c.current_dir(common::root());
    c
}

fn ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-corpus-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rows(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn key(v: &serde_json::Value) -> (String, u64) {
    (v["table"].as_str().unwrap().to_string(), v["no"].as_u64().unwrap())
}

#[test]
fn one_row_per_pair_and_a_missing_app_says_why() {
    let dir = scratch("rows");
    let jsonl = dir.join("all.jsonl");
    let csv = dir.join("all.csv");
    let o = tracepor()
        .args(["corpus", PAIRS, "--smartapps", APPS, "--max-memory", "1000", "--jsonl"])
        .arg(&jsonl)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    let text = ok(&o);
    // Header, five pairs, two summary lines.
    assert_eq!(text.lines().count(), 8, "{text}");
    assert!(text.lines().any(|l| l.contains("no-such-app") && l.contains("cannot read")), "{text}");
    let rows = rows(&jsonl);
    assert_eq!(rows.len(), 5);
    for r in &rows {
        for k in [
            "table",
            "no",
            "pair",
            "apps",
            "events",
            "nodpor",
            "dpor",
            "our_events",
            "full",
            "stateful",
            "agree",
            "states_reduction",
            "transitions_reduction",
            "paper_states_reduction",
            "paper_transitions_reduction",
            "error",
        ] {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
        if r["no"] == 999 {
            assert!(r["error"].as_str().unwrap().contains("no-such-app.groovy"), "{r}");
            assert!(r["full"].is_null());
            continue;
        }
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(r["full"]["strategy"], "full");
        assert_eq!(r["stateful"]["strategy"], "stateful-dpor");
        assert_eq!(r["full"]["finished"], true, "{r}");
        assert_eq!(r["stateful"]["finished"], true, "{r}");
        assert_eq!(r["agree"], true, "{r}");
        // The reductions are the ratios of the counts.
        let red = r["full"]["transitions"].as_f64().unwrap() / r["stateful"]["transitions"].as_f64().unwrap();
        assert!((r["transitions_reduction"].as_f64().unwrap() - red).abs() < 1e-9);
        let paper = r["nodpor"]["states"].as_f64().unwrap() / r["dpor"]["states"].as_f64().unwrap();
        assert!((r["paper_states_reduction"].as_f64().unwrap() - paper).abs() < 1e-9);
    }
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 6);
    assert!(csv.lines().next().unwrap().starts_with("table,no,pair,"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_run_at_once_merge_into_the_unsharded_table() {
    let dir = scratch("shards");
    let whole = dir.join("whole.jsonl");
    ok(&tracepor()
        .args(["corpus", PAIRS, "--smartapps", APPS, "--max-memory", "1000", "--jsonl"])
        .arg(&whole)
        .output()
        .unwrap());
    let shards: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("shard-{i}.jsonl"))).collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(i, out)| {
            tracepor()
                .args(["corpus", PAIRS, "--smartapps", APPS, "--max-memory", "1000", "--shard", &format!("{i}/3")])
                .arg("--jsonl")
                .arg(out)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        ok(&c.wait_with_output().unwrap());
    }
    let md = dir.join("merged.md");
    let svg = dir.join("merged.svg");
    let o = tracepor()
        .arg("corpus-merge")
        .args(&shards)
        .arg("--jsonl")
        .arg("--markdown")
        .arg(&md)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    let merged: Vec<serde_json::Value> = ok(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let expected = rows(&whole);
    let mut keys: Vec<_> = merged.iter().map(key).collect();
    keys.dedup();
    assert_eq!(keys, expected.iter().map(key).collect::<Vec<_>>(), "every pair exactly once, in the paper's order");
    // The same figures, timings aside.
    for (m, e) in merged.iter().zip(&expected) {
        for k in ["pair", "error", "agree", "states_reduction", "transitions_reduction", "our_events"] {
            assert_eq!(m[k], e[k], "{k}");
        }
        for side in ["full", "stateful"] {
            assert_eq!(m[side]["states"], e[side]["states"]);
            assert_eq!(m[side]["transitions"], e[side]["transitions"]);
        }
    }
    let md = std::fs::read_to_string(&md).unwrap();
    assert_eq!(md.lines().filter(|l| l.starts_with("| A.2 |")).count(), expected.len());
    assert!(md.contains("Geometric mean over the 4 pairs"), "{md}");
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // A pair in two files is refused, not counted twice (shard 0 holds two of the five pairs).
    assert!(!rows(&shards[0]).is_empty());
    let o = tracepor().arg("corpus-merge").arg(&whole).arg(&shards[0]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is also at"), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
