//! Options that would be ignored or make no sense are refused: exit 2 and one
//! line on stderr naming the option, before anything is explored.

use crate::common;

use std::process::{Command, Output};

const EM: &str = "traces/android/photo-sync";
const EVENTS: &str = "traces/smartthings/auto-lock-door--lock-it-when-i-leave.events";

fn tracepor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).current_dir(common::root()).output().unwrap()
}

/// Asserts exit 2, nothing on stdout, and `words` (the option) on stderr.
fn refused(args: &[&str], words: &str) {
    let o = tracepor(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(words), "{args:?}: `{words}` not in {err}");
    assert!(
        o.stdout.is_empty(),
        "{args:?}: refused before running, yet printed {}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Asserts an exit code of a run that was not refused (0 or 1: explored).
fn accepted(args: &[&str]) {
    let o = tracepor(args);
    let code = o.status.code();
    assert!(matches!(code, Some(0 | 1)), "{args:?}: exit {code:?}: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn bound_and_conflicts_on_an_em_trace() {
    for option in [&["--bound", "2"][..], &["--conflicts"]] {
        let name = option[0];
        let with = |cmd: &[&'static str]| -> Vec<&'static str> { [cmd, option].concat() };
        let o = tracepor(&with(&["check", EM]));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        // One sentence: the option, what it applies to, and what the input is.
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(name) && err.contains(EM) && err.contains("EM trace"), "{err}");
        refused(&with(&["compare", EM]), name);
        refused(&with(&["replay", EM, "--schedule", "0"]), name);
        // A folder of EM traces only: no input takes it.
        refused(&with(&["compare", "fixtures/em"]), name);
    }
}

#[test]
fn ablations_with_a_strategy_that_has_none() {
    for switch in
        ["--no-full-cycle", "--no-graph-backtrack", "--no-per-location", "--no-match-update", "--no-summaries"]
    {
        refused(&["check", EM, "--strategy", "dpor", switch], switch);
        refused(&["check", EVENTS, "--strategy", "full", switch], switch);
        // compare: refused when none of the strategies listed reads it.
        refused(&["compare", EVENTS, "--strategies", "full,dpor", "--bound", "1", switch], switch);
    }
    // The message names the strategy that has it, from the registry.
    let o = tracepor(&["check", EM, "--strategy", "em-dpor", "--no-summaries"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("stateful-dpor"));
}

#[test]
fn zero_counts_and_limits_are_refused_by_the_parser() {
    for (option, value) in [
        ("--threads", "0"),
        ("--max-states", "0"),
        ("--max-memory", "0"),
        ("--time-limit", "0"),
        ("--time-limit", "-1"),
        ("--time-limit", "NaN"),
    ] {
        // `--option=value`, so that `-1` is read as the value and not as a flag.
        let arg = format!("{option}={value}");
        refused(&["check", EM, &arg], option);
        refused(&["compare", EM, &arg], option);
    }
    refused(&["check", EVENTS, "--bound", "0"], "--bound");
    refused(&["compare", EVENTS, "--bound", "0"], "--bound");
    refused(&["replay", EVENTS, "--bound", "0", "--schedule", "0"], "--bound");
}

#[test]
fn threads_and_hash_compact_with_a_strategy_that_ignores_them() {
    refused(&["check", EM, "--strategy", "em-dpor", "--threads", "2"], "--threads");
    refused(&["check", EM, "--strategy", "stateful-dpor", "--threads", "4"], "--threads");
    // dpor explores in parallel on EM traces only.
    refused(&["check", EVENTS, "--strategy", "dpor", "--bound", "1", "--threads", "2"], "--threads");
    refused(&["check", EM, "--strategy", "dpor", "--hash-compact"], "--hash-compact");
    refused(&["check", EVENTS, "--strategy", "stateful-dpor", "--hash-compact"], "--hash-compact");
    refused(&["check", EVENTS, "--strategy", "full-stateless", "--bound", "1", "--hash-compact"], "--hash-compact");
    refused(&["compare", EM, "--strategies", "em-dpor,optimal", "--threads", "2"], "--threads");
    refused(&["compare", EM, "--strategies", "em-dpor,optimal", "--hash-compact"], "--hash-compact");
}

#[test]
fn progress_and_no_progress_together() {
    refused(&["check", EVENTS, "--progress", "--no-progress"], "--progress");
    refused(&["compare", EVENTS, "--no-progress", "--progress"], "--progress");
}

#[test]
fn valid_combinations_still_run() {
    accepted(&["check", EM, "--strategy", "dpor", "--threads", "2", "--quiet"]);
    accepted(&[
        "check",
        EM,
        "--strategy",
        "full",
        "--hash-compact",
        "--threads",
        "2",
        "--max-states",
        "2000",
        "--quiet",
    ]);
    accepted(&["check", EVENTS, "--strategy", "stateful-dpor", "--no-full-cycle", "--quiet"]);
    accepted(&["check", EVENTS, "--bound", "1", "--conflicts", "--threads", "2", "--strategy", "full", "--quiet"]);
    accepted(&["check", EVENTS, "--threads", "1", "--no-progress", "--quiet"]);
    // compare: an option that some of the strategies read is fine.
    accepted(&[
        "compare",
        EVENTS,
        "--strategies",
        "full,stateful-dpor",
        "--no-per-location",
        "--hash-compact",
        "--quiet",
    ]);
    accepted(&["compare", EM, "--strategies", "em-dpor,dpor", "--threads", "2", "--quiet"]);
    // --bound over inputs some of which are event models applies to those.
    accepted(&[
        "compare",
        "fixtures/em/two-posters",
        "fixtures/events/program-order.events",
        "--bound",
        "1",
        "--quiet",
    ]);
}

/// Asserts exit 2 with `words` on stderr and no panic (exit 101 is a panic).
fn refused_anywhere(args: &[&str], words: &str) {
    let o = tracepor(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(words), "{args:?}: `{words}` not in {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// `--time-limit 1e20` exited 101 in `Duration::from_secs_f64`. Every value a
/// duration cannot hold is refused by every command that takes the option.
#[test]
fn time_limits_a_duration_cannot_hold_are_refused_by_every_command() {
    let values = ["1e20", "99999999999999999999", "1e300", "NaN", "inf", "-inf", "-1", "1e-300"];
    for value in values {
        let arg = format!("--time-limit={value}");
        refused_anywhere(&["check", EM, &arg], "--time-limit");
        refused_anywhere(&["compare", EM, &arg], "--time-limit");
        refused_anywhere(&["regress", "fixtures/em", &arg], "--time-limit");
        refused_anywhere(&["corpus", "../shared/reference/vmcai22-tables-a1-a2.tsv", &arg], "--time-limit");
    }
    // The longest limit a duration holds still runs.
    accepted(&["check", EM, "--time-limit", "1e18", "--quiet"]);
    // Past what an Instant can reach: the report's deadline (limit plus a twentieth) is none.
    accepted(&["check", EM, "--time-limit", "1.8e19", "--quiet"]);
    accepted(&["check", "fixtures/events/example.events", "--time-limit", "1e19", "--quiet"]);
}

/// `--max-states` was ignored by the strategies that store no states (`check
/// mytracks --max-states 1000` with em-dpor ran to the end, exit 0). Every strategy now stops
/// at it: the stateful ones at that many stored states, the others at that many states
/// visited (transitions), with exit 3 and the reason in the report.
#[test]
fn max_states_stops_every_strategy() {
    let mytracks = common::em_explorer_arg("tacas-2016/mytracks");
    let apps = "../shared/smartthings/smartapps";
    for strategy in tracepor::explore::STRATEGIES {
        let entry = tracepor::explore::registry::lookup(strategy).unwrap();
        // `monitors` runs on SmartApps only: a home with conflicts observed and none to find
        // (the logger-heavy mix, 25 states), so that the stop is the exit code.
        let (o, max) = if entry.em_trace.is_some() {
            (tracepor(&["check", &mytracks, "--strategy", strategy, "--max-states", "300", "--json"]), 300)
        } else {
            let home = ["fixtures/homes/loggers.home", "--smartapps", apps, "--conflicts"];
            (tracepor(&[&["check"], &home[..], &["--strategy", strategy, "--max-states", "10", "--json"]].concat()), 10)
        };
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(o.status.code(), Some(3), "{strategy}: {v}");
        let counted = match v["stopped_by"].as_str() {
            Some("states") => v["states"].as_u64(),
            Some("transitions") => v["transitions"].as_u64(),
            other => panic!("{strategy}: stopped by {other:?}"),
        };
        assert_eq!(counted, Some(max), "{strategy}: {v}");
    }
    // On an event model, stateless strategies under a bound too.
    for strategy in ["full-stateless", "dpor", "dpor-sleep"] {
        let o = tracepor(&["check", EVENTS, "--bound", "3", "--strategy", strategy, "--max-states", "20", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["stopped_by"], "transitions", "{strategy}: {v}");
        assert_eq!(v["transitions"], 20, "{strategy}: {v}");
    }
}

/// `--dot` with a strategy that records no state graph was refused only after the
/// search had run to its end.
#[test]
fn dot_with_a_strategy_that_records_no_graph_is_refused_before_the_search() {
    let dot = std::env::temp_dir().join(format!("tracepor-refusals-{}.dot", std::process::id()));
    refused(&["check", EM, "--strategy", "em-dpor", "--dot", dot.to_str().unwrap()], "--dot");
    refused(&["check", EVENTS, "--strategy", "stateful-dpor", "--dot", dot.to_str().unwrap()], "--dot");
    assert!(!dot.exists());
    accepted(&["check", EM, "--strategy", "full", "--dot", dot.to_str().unwrap(), "--quiet"]);
    assert!(std::fs::read_to_string(&dot).unwrap().contains("digraph"));
    let _ = std::fs::remove_file(&dot);
}

/// `--threads 100000` was accepted.
#[test]
fn threads_past_the_cap_are_refused() {
    for value in ["257", "100000", "99999999999999999999999"] {
        refused(&["check", EM, "--strategy", "dpor", "--threads", value], "--threads");
        refused(&["compare", EM, "--threads", value], "--threads");
    }
    accepted(&["check", "fixtures/em/two-posters", "--strategy", "dpor", "--threads", "256", "--quiet"]);
}

/// `--quiet` with `--json` (the JSON is printed anyway) and `--progress` with `--quiet` (no
/// progress is shown) would each be ignored.
#[test]
fn quiet_with_json_or_progress() {
    // Under --json the refusal is a JSON document on stdout too.
    refused_anywhere(&["check", EM, "--quiet", "--json"], "--quiet");
    refused(&["check", EM, "--quiet", "--progress"], "--quiet");
    refused(&["compare", EM, "--progress", "--quiet"], "--quiet");
}

/// `corpus --limit 0` would run no pair.
#[test]
fn corpus_limit_zero() {
    refused(&["corpus", "../shared/reference/vmcai22-tables-a1-a2.tsv", "--limit", "0"], "--limit");
}

/// `--html`: a page is a file, not `-`; two outputs naming one file are refused
/// before any search, in every command that writes a page.
#[test]
fn html_path_refusals() {
    refused(&["check", EM, "--html", "-"], "--html");
    refused(&["check", EM, "--html", "/tmp/tracepor-same-file", "--outcomes", "/tmp/tracepor-same-file"], "--html");
    refused(&["compare", EM, "--html", "/tmp/tracepor-same-file", "--csv", "/tmp/tracepor-same-file"], "--html");
    refused(&["check", EM, "--html", "/no/such/folder/r.html"], "/no/such/folder/r.html");
    let tsv = "fixtures/corpus/pairs.tsv";
    refused(&["corpus", tsv, "--html", "/tmp/tracepor-same-file", "--markdown", "/tmp/tracepor-same-file"], "--html");
}
