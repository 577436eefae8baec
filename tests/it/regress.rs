//! `check --expect` and `tracepor regress`, run as a user runs them: the binary,
//! on the fixtures' expected outcome sets (hand-written ones under fixtures/em, snapshots kept
//! beside three event models) and on copies altered to fail.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn tracepor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).current_dir(common::root()).output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh copy of fixture trace folder `name`, to alter.
fn copy_fixture(name: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-regress-{tag}-{}", std::process::id())).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["trace.txt", "expected.outcomes"] {
        std::fs::copy(common::root().join("fixtures/em").join(name).join(f), dir.join(f)).unwrap();
    }
    dir
}

#[test]
fn regress_passes_on_the_fixtures() {
    let o = tracepor(&["regress", "fixtures/em", "fixtures/events"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{out}{}", String::from_utf8_lossy(&o.stderr));
    let expected = std::fs::read_dir(common::root().join("fixtures/em")).unwrap().count() + 3;
    assert!(out.contains(&format!("{expected} of {expected} inputs pass")), "{out}");
    // Every strategy that applies, not only the default one, passes on the traces.
    for s in ["dpor", "em-dpor", "stateful-dpor"] {
        let o = tracepor(&["regress", "fixtures/em", "--strategy", s, "--quiet"]);
        assert_eq!(code(&o), 0, "{s}");
    }
}

#[test]
fn an_altered_expectation_fails_with_the_difference_and_junit() {
    let dir = copy_fixture("two-posters", "altered");
    let path = dir.join("expected.outcomes");
    let text = std::fs::read_to_string(&path).unwrap();
    let first = text.lines().next().unwrap().to_string();
    // Drop the first expected outcome and expect one that cannot happen instead.
    let invented = "rf 999<-0 | final | stuck";
    std::fs::write(&path, text.replacen(&first, invented, 1)).unwrap();
    let junit = dir.parent().unwrap().join("junit.xml");
    let o = tracepor(&["regress", dir.parent().unwrap().to_str().unwrap(), "--junit", junit.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(code(&o), 5, "{out}");
    assert!(out.contains(&format!("- {invented}")) && out.contains(&format!("+ {first}")), "{out}");
    assert!(out.contains("0 of 1 inputs pass"), "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("tests=\"1\"") && xml.contains("failures=\"1\"") && xml.contains(&invented.replace('<', "&lt;")),
        "{xml}"
    );

    // The same through `check --expect`, in the JSON too.
    let o = tracepor(&["check", dir.to_str().unwrap(), "--expect", path.to_str().unwrap(), "--json"]);
    assert_eq!(code(&o), 5);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["expect"]["result"], "differs");
    assert_eq!(doc["expect"]["missing"][0], invented);
    assert_eq!(doc["expect"]["unexpected"][0], first.as_str());
}

#[test]
fn an_unfinished_search_cannot_pass() {
    let expected = "fixtures/em/early-notify-reentrant-lock/expected.outcomes";
    let o = tracepor(&[
        "check",
        "fixtures/em/early-notify-reentrant-lock",
        "--expect",
        expected,
        "--max-states",
        "2",
        "--strategy",
        "full",
    ]);
    assert_eq!(code(&o), 3, "{}", stdout(&o));
    assert!(stdout(&o).contains("not checked: the search stopped (state limit reached)"), "{}", stdout(&o));
    // JSON names the limit by its code, as `stopped_by` of the report does.
    let o = tracepor(&[
        "check",
        "fixtures/em/early-notify-reentrant-lock",
        "--expect",
        expected,
        "--max-states",
        "2",
        "--strategy",
        "full",
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["expect"]["result"], "unfinished", "{doc}");
    assert_eq!(doc["expect"]["stopped_by"], "states", "{doc}");
    let o = tracepor(&["check", "fixtures/em/early-notify-reentrant-lock", "--expect", expected]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

#[test]
fn a_bad_input_is_its_own_row_and_the_others_still_run() {
    let good = copy_fixture("notify-wait", "bad");
    let root = good.parent().unwrap();
    let bad = root.join("broken");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("trace.txt"), "1 START\n2 NOSUCHOP tid:1\n").unwrap();
    std::fs::write(bad.join("expected.outcomes"), "rf | final | stuck\n").unwrap();
    let o = tracepor(&["regress", root.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(code(&o), 2, "{out}");
    assert!(out.contains("broken: error:") && out.contains("trace.txt:2"), "{out}");
    assert!(out.contains("notify-wait: pass") && out.contains("1 of 2 inputs pass"), "{out}");
}

#[test]
fn usage_errors_come_before_any_search() {
    let o = tracepor(&["check", "fixtures/em/notify-wait", "--expect", "no/such/file"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no/such/file"));
    let empty = std::env::temp_dir().join(format!("tracepor-regress-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::copy(common::root().join("fixtures/events/example.events"), empty.join("a.events")).unwrap();
    let o = tracepor(&["regress", empty.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no input here has an expected outcome file"));
}

/// `regress --outcomes PATH` writes each input's outcome lines to PATH.<input>, the same lines
/// `check --outcomes` writes for it.
#[test]
fn regress_writes_each_inputs_outcomes() {
    let dir = std::env::temp_dir().join(format!("tracepor-regress-outcomes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = dir.join("run");
    let o = tracepor(&["regress", "fixtures/em/two-posters", "--outcomes", base.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read_to_string(format!("{}.fixtures_em_two-posters", base.display())).unwrap();
    let single = dir.join("check.outcomes");
    let o = tracepor(&["check", "fixtures/em/two-posters", "--outcomes", single.to_str().unwrap()]);
    assert_eq!(code(&o), 0);
    assert_eq!(written, std::fs::read_to_string(&single).unwrap());
    assert!(!written.trim().is_empty());
}
