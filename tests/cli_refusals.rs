//! Options that would be ignored or make no sense are refused (issue 17, part 3): exit 2 and one
//! line on stderr naming the option, before anything is explored.

mod common;

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
