//! The run as a whole, through the binary: options refused where they would be ignored,
//! `compare`'s default strategies, `--fail-on races` and a race report that did not run, logs
//! cut short, SmartApps a folder holds that do not load, and limits reached after the search.
//!
//! Each test also runs the same command where it must pass (the option on an input that takes
//! it, the flag left out, the whole log), so that an assertion that always held would show.
//! Planted and caught: with `check`'s SmartApps taken whole again (the folder's bad app an
//! error), `a_folder_reports_the_app_it_cannot_load_and_checks_the_rest` failed on exit 2; with
//! the race budget read from the transitions limit only (None under `--max-states` on a
//! stateless strategy), `a_limit_reached_after_the_search_is_the_runs_stop` failed: the analysis
//! ran to its end and `stopped_by` stayed null.

use crate::common::{self, bin, code, text};

use serde_json::Value;
use std::path::PathBuf;

const EM: &str = "traces/android/photo-sync";
const EVENTS: &str = "traces/smartthings/auto-lock-door--lock-it-when-i-leave.events";
const APPS: &str = "../shared/smartthings/smartapps";

fn app(name: &str) -> String {
    format!("{APPS}/{name}.groovy")
}

/// Exit 2, nothing on stdout, one line on stderr naming `option`.
fn refused(args: &[&str], option: &str) {
    let o = bin(args);
    let err = text(&o.stderr);
    assert_eq!(code(&o), 2, "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}: printed {}", text(&o.stdout));
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(option), "{args:?}: `{option}` not in {err}");
}

/// Explored: exit 0 or 1 (or 3 under a limit), never 2.
fn explored(args: &[&str]) -> std::process::Output {
    let o = bin(args);
    assert!(matches!(code(&o), 0 | 1 | 3), "{args:?}: exit {}: {}", code(&o), text(&o.stderr));
    o
}

fn json(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracepor-limits-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn options_that_would_be_ignored_are_refused() {
    let control = app("simple-control");
    let music = common::em_explorer_arg("tacas-2016/music");
    for option in ["--races", "--explain", "--no-races"] {
        for input in [EVENTS, control.as_str()] {
            refused(&["check", input, "--max-states", "300", option], option);
        }
        // Taken on an EM trace.
        explored(&["check", &music, "--max-states", "300", option]);
    }
    refused(&["check", EM, "--smartapps", &control], "--smartapps");
    for option in [&["--no-pair-conflicts"][..], &["--conflict-mode", "end"]] {
        refused(&[&["check", control.as_str()][..], option].concat(), option[0]);
        explored(&[&["check", control.as_str(), "--conflicts", "--max-states", "300"][..], option].concat());
    }
    for option in ["--routines-keep-mode", "--physical"] {
        refused(&["check", EM, option], option);
        refused(&["check", EVENTS, option], option);
        // --physical adds to what --conflicts looks for.
        explored(&["check", &control, "--conflicts", "--max-states", "300", option]);
    }
    // Under --json the refusal is the JSON document's `error`, on stdout.
    let o = bin(&["check", EM, "--outcomes", "-", "--json"]);
    assert_eq!(code(&o), 2, "{}", text(&o.stderr));
    assert!(json(&o)["error"].as_str().is_some_and(|e| e.contains("--outcomes")), "{}", text(&o.stdout));
    explored(&["check", EM, "--outcomes", "-"]);
}

#[test]
fn compare_under_conflicts_runs_monitors_by_default() {
    let (a, b) = (app("simple-control"), app("simple-sync-trigger"));
    let o = explored(&["compare", &a, &b, "--conflicts", "--max-states", "5000"]);
    let out = text(&o.stdout);
    assert!(out.lines().any(|l| l.starts_with("monitors ")), "{out}");
    // Without conflicts observed, monitors runs only on request.
    let o = explored(&["compare", &a, &b, "--max-states", "5000"]);
    let out = text(&o.stdout);
    assert!(!out.lines().any(|l| l.starts_with("monitors ")), "{out}");
}

#[test]
fn fail_on_races_fails_on_a_race_that_changes_an_outcome() {
    let music = common::em_explorer_arg("tacas-2016/music");
    // music's races change outcomes (tests/it/races.rs).
    let o = bin(&["check", &music, "--json"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert!(json(&o)["races_changing_outcome"].as_u64() > Some(0));
    let o = bin(&["check", &music, "--fail-on", "races"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
}

#[test]
fn a_race_report_that_did_not_run_says_so() {
    let music = common::em_explorer_arg("tacas-2016/music");
    // A deadline long past before the analysis can begin (any machine takes more than a
    // nanosecond to read the trace): the analysis never starts.
    let late = "--time-limit=0.000000001";
    let o = bin(&["check", &music, late, "--json"]);
    let d = json(&o);
    assert!(d["race_pairs"].is_null(), "{d}");
    assert!(d["races_changing_outcome"].is_null(), "{d}");
    assert!(d["races_not_analysed"].as_str().is_some_and(|s| s.contains("before the analysis began")), "{d}");
    let o = bin(&["check", &music, late]);
    assert!(text(&o.stdout).contains("not analysed:"), "{}", text(&o.stdout));
    // Not a pass: nothing was found, but nothing was decided.
    let o = bin(&["check", &music, late, "--fail-on", "races"]);
    assert_eq!(code(&o), 3, "{}", text(&o.stderr));
}

#[test]
fn a_limit_reached_after_the_search_is_the_runs_stop() {
    let music = common::em_explorer_arg("tacas-2016/music");
    let free = json(&bin(&["check", &music, "--json"]));
    assert_eq!(free["finished"], Value::Bool(true));
    assert!(free["stopped_by"].is_null() && free["races_partial"].is_null(), "{free}");
    let t = free["transitions"].as_u64().unwrap();
    // One transition more than the search takes: it finishes, the replays of the race
    // analysis (the post-search phase) do not.
    let tight = (t + 1).to_string();
    let o = bin(&["check", &music, "--json", "--max-states", &tight]);
    let d = json(&o);
    assert_eq!(d["finished"], Value::Bool(true), "{d}");
    assert_eq!(d["transitions"].as_u64(), Some(t));
    assert!(d["stopped_by"].as_str().is_some(), "stopped_by not set: {d}");
    assert!(d["races_partial"].as_str().is_some(), "no partial race report: {d}");
    assert_eq!(d["race_pairs"], free["race_pairs"], "the pairs come before the replays");
    assert!(d["races_undecided"].as_u64() > Some(0), "{d}");
    // The same budget stops it at the same point each time.
    let again = json(&bin(&["check", &music, "--json", "--max-states", &tight]));
    assert_eq!(again["races_partial"], d["races_partial"]);
    assert_eq!(again["races_undecided"], d["races_undecided"]);
    // A budget with room for everything changes nothing.
    let roomy = json(&bin(&["check", &music, "--json", "--max-states", "100000000"]));
    assert!(roomy["stopped_by"].is_null() && roomy["races_partial"].is_null(), "{roomy}");
    assert_eq!(roomy["races_changing_outcome"], free["races_changing_outcome"]);
}

#[test]
fn truncated_logs_are_explored_as_their_prefix() {
    let log = common::em_explorer().join("tacas-2016/remind-me/abc_log.txt");
    let whole = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = whole.split_inclusive('\n').collect();
    let report = lines.iter().position(|l| l.trim() == "HB Graph").expect("the log has its report");
    let dir = scratch("cuts");
    let mut cuts: Vec<usize> = (2..report).step_by(23).collect();
    cuts.extend([report - 1, report]);
    for &k in &cuts {
        let cut = dir.join(format!("cut{k}"));
        std::fs::create_dir_all(&cut).unwrap();
        let file = cut.join("abc_log.txt");
        std::fs::write(&file, lines[..k].concat()).unwrap();
        let path = file.to_str().unwrap();
        let o = explored(&["check", path, "--max-states", "2000"]);
        let out = text(&o.stdout) + &text(&o.stderr);
        // Where it stops: the last non-blank line before the cut.
        let last = (0..k).rev().find(|&i| !lines[i].trim().is_empty()).unwrap() + 1;
        let said = format!("the log stops at line {last},");
        assert!(out.contains(&said) && out.contains(path), "cut after line {k}: `{said}` not in {out}");
        let o = bin(&["convert", path, "--out", cut.join("em").to_str().unwrap()]);
        assert_eq!(code(&o), 0, "convert, cut after line {k}: {}", text(&o.stderr));
    }
    // The whole log warns of nothing.
    let o = explored(&["check", log.to_str().unwrap(), "--max-states", "2000"]);
    assert!(!(text(&o.stdout) + &text(&o.stderr)).contains("the log stops"));
    // A log cut after START holds no operation: nothing to explore, an input error.
    let only = dir.join("start/abc_log.txt");
    std::fs::create_dir_all(only.parent().unwrap()).unwrap();
    std::fs::write(&only, lines[0]).unwrap();
    let o = bin(&["check", only.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(text(&o.stderr).contains(":1:"), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The closure arrow on the line after the brace (`{` then `response ->`) parses.
#[test]
fn a_closure_arrow_on_the_next_line_parses() {
    for name in ["quirky-connect", "simple-control", "simple-sync-connect"] {
        let path = app(name);
        let src = std::fs::read_to_string(common::root().join(&path)).unwrap();
        assert!(
            src.lines().zip(src.lines().skip(1)).any(|(a, b)| a.trim() == "{" && b.contains("->")),
            "{name}: no closure whose `->` follows its brace's line"
        );
        explored(&["check", &path, "--max-states", "2000"]);
    }
}

#[test]
fn a_folder_reports_the_app_it_cannot_load_and_checks_the_rest() {
    let dir = scratch("folder");
    for name in ["simple-control", "simple-sync-trigger"] {
        std::fs::copy(common::root().join(app(name)), dir.join(format!("{name}.groovy"))).unwrap();
    }
    let path = dir.to_str().unwrap();
    let good = json(&explored(&["check", path, "--max-states", "2000", "--json"]));
    std::fs::write(dir.join("broken.groovy"), "definition(name: \"broken\"\npreferences {\n").unwrap();
    let o = explored(&["check", path, "--max-states", "2000", "--json"]);
    let err = text(&o.stderr);
    assert!(err.contains("broken.groovy:2:1") && err.contains("not loaded"), "{err}");
    let d = json(&o);
    assert_eq!(d["transitions"], good["transitions"], "the other apps are checked as before");
    // Named on the command line (not through a folder), the app is an input error.
    let bad = scratch("bad-folder");
    let broken = bad.join("broken.groovy");
    std::fs::copy(dir.join("broken.groovy"), &broken).unwrap();
    let o = bin(&["check", broken.to_str().unwrap(), path]);
    assert_eq!(code(&o), 2, "{}", text(&o.stderr));
    // A folder none of whose apps loads is an input error too.
    let o = bin(&["check", bad.to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("broken.groovy:2:1"), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&bad);
}

/// A phase that cannot poll the time limit still ends at it: here the read of a named pipe that
/// the test holds open and never writes to, which blocks until the process ends. The backstop
/// (src/cli/mod.rs `time_limit_backstop`) prints what is known and exits 3, with the JSON
/// document. Without the backstop the same command blocked until killed (`timeout 5` on a
/// release build, `--time-limit 1`); here a one-minute guard turns such a hang into a failure
/// (a guard, not a measure of speed). The same model in a plain file runs to its own report.
#[cfg(unix)]
#[test]
fn a_read_that_blocks_ends_at_the_time_limit() {
    use std::process::{Command, Stdio};
    let d = scratch("fifo");
    let fifo = d.join("blocked.events");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    // Open for reading and writing: on Linux that does not wait for a reader, and the child's
    // read then blocks, as no end of file comes while this end is open.
    let _held = std::fs::OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    let path = fifo.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracepor"))
        .args(["check", path, "--time-limit", "0.5", "--json"])
        .current_dir(common::root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("check on a blocked read did not end at its time limit");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(code(&o), 3, "{err}");
    assert!(err.contains("time limit reached: before any search began"), "{err}");
    let doc = json(&o);
    assert_eq!(doc["stopped_by"], "time");
    assert_eq!(doc["finished"], false);
    // The same model from a plain file: its own report, not the backstop's.
    let plain = d.join("plain.events");
    std::fs::copy(common::root().join(EVENTS), &plain).unwrap();
    let o = explored(&["check", plain.to_str().unwrap(), "--time-limit", "60", "--json"]);
    assert!(!text(&o.stderr).contains("before any search began"));
    assert!(json(&o)["executions"].as_u64().unwrap() > 0);
}
