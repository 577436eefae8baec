//! Memory limits (issue 17 §2): `--max-memory` holds on counted heap bytes, the default limit
//! is reported, and `compare` reports each run's own peak.

use std::path::PathBuf;
use std::process::{Command, Output};

fn tracepor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).output().unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

/// An EM trace of `n` operations: two threads alternating reads and writes of one field, as
/// benches/gen_alternating.py writes it (every pair of accesses races: a deep, wide tree).
fn alternating(n: usize) -> PathBuf {
    two_threads(n, true)
}

/// Two threads alternating accesses to one location: reads and writes, or reads only (then
/// every interleaving has one outcome).
fn two_threads(n: usize, writes: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("alt{n}-{writes}.txt"));
    let mut text = String::from("1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 THREADINIT tid:2\n");
    for i in 0..n.saturating_sub(3) {
        let op = if !writes || (i / 2) % 2 == 0 { "READ" } else { "WRITE" };
        text.push_str(&format!("{} {op} tid:{} obj:0x1 class:C; field:x\n", i + 5, 1 + i % 2));
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn max_memory_stops_cleanly_within_ten_percent() {
    let trace = alternating(20_000);
    let o = tracepor(&[
        "check",
        trace.to_str().unwrap(),
        "--strategy",
        "dpor",
        "--max-memory",
        "200",
        "--time-limit",
        "300",
        "--json",
        "--no-progress",
    ]);
    let v = json(&o);
    assert_eq!(o.status.code(), Some(3), "a limit stopped it: {v}");
    assert_eq!(v["finished"], false);
    assert_eq!(v["stopped_by"], "memory", "{v}");
    assert_eq!(v["memory_limit_mib"], 200);
    let peak = v["peak_alloc_bytes"].as_u64().unwrap();
    assert!(peak as f64 <= 1.1 * (200u64 << 20) as f64, "peak {peak} over the limit by more than 10%");
}

#[test]
fn default_limit_is_reported() {
    let trace = alternating(100);
    let o = tracepor(&["check", trace.to_str().unwrap(), "--strategy", "dpor", "--json", "--time-limit", "5"]);
    let v = json(&o);
    // Half of physical memory: some MiB, whatever the machine.
    assert!(v["memory_limit_mib"].as_u64().is_some_and(|m| m > 0), "{v}");
    let o = tracepor(&["check", trace.to_str().unwrap(), "--strategy", "dpor", "--time-limit", "5"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("memory limit:"));
}

#[test]
fn compare_reports_each_runs_own_peak() {
    // Reads only: `full` stores thousands of trace-sized states first; dpor after it has one
    // execution to run and keeps only its path, however fast the machine.
    let trace = two_threads(10_000, false);
    let o = tracepor(&[
        "compare",
        trace.to_str().unwrap(),
        "--strategies",
        "full,dpor",
        "--max-states",
        "3000",
        "--time-limit",
        "2",
        "--json",
        "--no-progress",
    ]);
    let v = json(&o);
    let runs = v["runs"].as_array().unwrap();
    let peak = |name: &str| runs.iter().find(|r| r["strategy"] == name).unwrap()["peak_alloc_bytes"].as_u64().unwrap();
    let (full, dpor) = (peak("full"), peak("dpor"));
    // The process's high-water mark after `full` is at least full's peak.
    assert!(dpor * 2 < full, "dpor's peak {dpor} is not its own (full's: {full})");
}
