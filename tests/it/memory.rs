//! Memory limits: `--max-memory` holds on counted heap bytes, the default limit
//! is reported, and `compare` reports each run's own peak.

use crate::common;

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
    // With `--outcomes` every outcome's text is kept (about 119 KB each here), so memory grows
    // until the limit stops the search (at about 28,000 transitions; the state budget is a
    // safety net); without it dpor holds its path and fingerprints only. The report's peak
    // resident memory (the process's own, /proc/self/status) covers the outcome file's writing
    // too: the lines are written one by one, not copied into one text first (which took the
    // process to twice the limit).
    let trace = alternating(20_000);
    let out = trace.with_extension("outcomes");
    let args = ["check", trace.to_str().unwrap(), "--strategy", "dpor", "--max-memory", "80"];
    let more = ["--max-states", "2000000", "--json", "--no-progress", "--outcomes", out.to_str().unwrap()];
    let o = tracepor(&[&args[..], &more[..]].concat());
    let v = json(&o);
    assert_eq!(o.status.code(), Some(3), "a limit stopped it: {v}");
    assert_eq!(v["finished"], false);
    assert_eq!(v["stopped_by"], "memory", "{v}");
    assert_eq!(v["memory_limit_mib"], 80);
    let limit = 1.1 * (80u64 << 20) as f64;
    let peak = v["peak_alloc_bytes"].as_u64().unwrap();
    assert!(peak as f64 <= limit, "peak {peak} over the limit by more than 10%");
    // Read where the system says it (Linux: VmHWM); null elsewhere.
    if cfg!(target_os = "linux") {
        let rss = v["peak_rss_bytes"].as_u64().unwrap();
        assert!(rss as f64 <= limit, "the process's peak resident memory {rss} over the limit by more than 10%");
    }
    let lines = std::fs::read_to_string(&out).unwrap().lines().count() as u64;
    assert_eq!(v["outcomes"].as_u64(), Some(lines), "the outcome file lists what the report counts");
}

#[test]
fn default_limit_is_reported() {
    let trace = alternating(100);
    let o = tracepor(&["check", trace.to_str().unwrap(), "--strategy", "dpor", "--json", "--max-states", "10000"]);
    let v = json(&o);
    // Half of physical memory: some MiB, whatever the machine.
    assert!(v["memory_limit_mib"].as_u64().is_some_and(|m| m > 0), "{v}");
    let o = tracepor(&["check", trace.to_str().unwrap(), "--strategy", "dpor", "--max-states", "10000"]);
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

/// `check` without `--outcomes` keeps each outcome as a fingerprint (16 bytes, not a line per
/// READ of the trace); it must count exactly the outcomes the written file lists.
#[test]
fn fingerprinted_outcomes_count_what_the_outcome_file_lists() {
    let dir = std::env::temp_dir().join(format!("tracepor-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fingerprinted.outcomes");
    // Two recordings each strategy finishes within a second, with 20 and 10 outcomes.
    for (strategy, name) in [("em-dpor", "tacas-2016/charachter-recognition"), ("dpor-sleep", "tacas-2016/mytracks")] {
        let trace = common_trace(name);
        let counted = json(&tracepor(&["check", &trace, "--strategy", strategy, "--json"]));
        let written =
            json(&tracepor(&["check", &trace, "--strategy", strategy, "--json", "--outcomes", file.to_str().unwrap()]));
        let lines = std::fs::read_to_string(&file).unwrap().lines().count() as u64;
        assert_eq!(counted["finished"], true, "{strategy}");
        assert_eq!(counted["outcomes"].as_u64(), Some(lines), "{strategy}");
        assert_eq!(written["outcomes"].as_u64(), Some(lines), "{strategy}");
        assert!(lines >= 10, "{strategy}: {lines} outcomes");
    }
}

fn common_trace(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/em-explorer").join(name);
    assert!(p.exists(), "{} missing", p.display());
    p.display().to_string()
}

/// Without `--outcomes` a stateless search holds its path and a fingerprint per outcome: on the
/// trace above, where the outcome texts fill 80 MiB within 28,000 transitions, the peak stays
/// far lower.
#[test]
fn a_stateless_search_without_an_outcome_file_stays_small() {
    let trace = alternating(20_000);
    let args = ["check", trace.to_str().unwrap(), "--strategy", "dpor", "--max-memory", "200"];
    let o = tracepor(&[&args[..], &["--max-states", "30000", "--json", "--no-progress"]].concat());
    let v = json(&o);
    assert_eq!(v["stopped_by"], "transitions", "{v}");
    let (peak, outcomes) = (v["peak_alloc_bytes"].as_u64().unwrap(), v["outcomes"].as_u64().unwrap());
    // An outcome's text is about 119 KB here (a reads-from pair per READ); a fingerprint is 16
    // bytes. Kept as texts, 400 outcomes alone would pass the bound below.
    assert!(outcomes >= 400, "{outcomes} outcomes: too few to show anything");
    assert!(peak < (32 << 20) + outcomes * 8192, "peak {peak} bytes with {outcomes} outcomes");
}

/// An EM trace of about `n` operations with one handler per 5 of them, as
/// benches/gen_handlers.py writes it, but whose handlers only read: thread 1 loops, threads 2-4
/// post to it in turn. Nothing conflicts, so `em-dpor` runs one execution, and its peak is the
/// model and one path as deep as the trace.
fn handlers_reading(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("handlers{n}.txt"));
    // Operations 11 on, five per message: as many messages as fit in `n` operations.
    let text = common::many_handlers_trace(n.saturating_sub(10) / 5, false);
    std::fs::write(&path, text).unwrap();
    path
}

/// A path step of the stateless strategies costs the same whatever the number of tasks of the
/// trace: the clocks have a component per chain of ordered events, not per
/// handler. With one per task, a step here cost 4 bytes per handler (32 KB at 40,000
/// operations), and the 40,000-operation run hit the limit below.
#[test]
fn a_path_step_costs_the_same_whatever_the_number_of_handlers() {
    let peak = |n: usize| {
        let trace = handlers_reading(n);
        let o = tracepor(&[
            "check",
            trace.to_str().unwrap(),
            "--strategy",
            "em-dpor",
            "--max-memory",
            "500",
            "--json",
            "--no-progress",
        ]);
        let v = json(&o);
        assert_eq!(v["finished"], true, "{n} operations: {v}");
        assert_eq!(v["executions"], 1, "{n} operations: {v}");
        assert_eq!(v["transitions"].as_u64(), Some(n as u64 - 1), "{n} operations: {v}");
        v["peak_alloc_bytes"].as_u64().unwrap()
    };
    let (small, large) = (peak(10_000), peak(40_000));
    // The model and the path, per operation of the trace (about 500 bytes today).
    let per_op = large.saturating_sub(small) / 30_000;
    assert!(per_op < 2_000, "{per_op} bytes per operation (peaks {small}, {large})");
}

/// `full`'s visited set grows by doubling its arena and table: the limit is checked before a
/// doubling, not after one passed it (once 58.6 MiB at `--max-memory 50` on this pair).
/// Counted heap bytes, one thread: the same peak on any machine.
#[test]
fn full_stops_before_its_visited_set_doubles_past_the_limit() {
    let apps = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/smartthings/smartapps");
    let (a, b) = (apps.join("enhanced-auto-lock-door.groovy"), apps.join("initialstate-smart-app-v1.2.0.groovy"));
    for extra in [&[][..], &["--hash-compact"]] {
        let mut args = vec!["check", a.to_str().unwrap(), b.to_str().unwrap(), "--strategy", "full"];
        // Every attribute stored: with the unread ones left out (dead.rs) this pair finishes.
        args.extend(["--max-memory", "50", "--json", "--no-progress", "--keep-dead-state"]);
        args.extend(extra);
        let v = json(&tracepor(&args));
        assert_eq!(v["stopped_by"], "memory", "{extra:?}: {v}");
        let peak = v["peak_alloc_bytes"].as_u64().unwrap();
        assert!(peak as f64 <= 1.01 * (50u64 << 20) as f64, "{extra:?}: peak {peak} over the limit");
    }
}
