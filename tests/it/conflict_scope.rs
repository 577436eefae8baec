//! `--conflicts-on`: only writes of the attributes named can be a conflict; a
//! conflicting write outside the scope is no error and the path goes on past it.

use crate::common::apps;

use std::process::Command;

use crate::common::apps::{app, fire, system, ENDING};
use tracepor::model::smartapp::{conflict_scope, SmartAppOptions};
use tracepor::model::{ConflictScope, Model};

/// Turns the light on and unlocks the door when the contact opens.
fn opener() -> String {
    app(
        "Opener",
        &[("sw", "switch"), ("door", "lock"), ("contact1", "contactSensor")],
        ("contact1", "contact.open", "opened"),
        &["sw.on()", "door.unlock()"],
    )
}

/// Turns the light off, then locks the door, when motion stops: both undo Opener's writes.
fn sleeper() -> String {
    app(
        "Sleeper",
        &[("sw", "switch"), ("door", "lock"), ("motion1", "motionSensor")],
        ("motion1", "motion.inactive", "quiet"),
        &["sw.off()", "door.lock()"],
    )
}

fn opts(scope: Option<ConflictScope>) -> SmartAppOptions {
    // These tests step to the conflict as an error: `--conflict-mode end`.
    SmartAppOptions { conflicts_on: scope, ..ENDING }
}

/// The error of firing contact.open then motion.inactive, under `scope`.
fn second_firing(tag: &str, scope: Option<ConflictScope>) -> Option<String> {
    let (m, _) = system(tag, &[("Opener", opener()), ("Sleeper", sleeper())], opts(scope));
    let mut s = m.initial();
    fire(&m, &mut s, "contactSensor.contact.open").expect("Opener alone conflicts with nobody");
    fire(&m, &mut s, "motionSensor.motion.inactive").err().map(|e| {
        assert_eq!(e.kind, "conflict");
        e.conflict.map(|c| c.variable).unwrap_or_default()
    })
}

#[test]
fn only_the_scope_can_conflict_and_a_conflict_outside_it_does_not_end_the_path() {
    // Unscoped: the switch, written first, is the conflict.
    assert_eq!(second_firing("unscoped", None).as_deref(), Some("switch.switch"));
    // On the lock: the switch's conflict is no error, Sleeper runs on and locks.
    assert_eq!(second_firing("lock", Some(conflict_scope("lock").unwrap())).as_deref(), Some("lock.lock"));
    // Qualified by capability: the lock device's lock is in, another capability's is not.
    assert_eq!(second_firing("qual", Some(conflict_scope("lock.lock").unwrap())).as_deref(), Some("lock.lock"));
    assert_eq!(second_firing("other", Some(conflict_scope("switchLevel.switch").unwrap())), None);
    // Both in scope: the first write decides, as without a scope.
    assert_eq!(second_firing("both", Some(conflict_scope("switch,lock").unwrap())).as_deref(), Some("switch.switch"));
    // An empty scope (a group whose device the model has no attribute for) conflicts nowhere.
    assert_eq!(second_firing("none", Some(ConflictScope::of(&[]))), None);
}

#[test]
fn scope_names_are_checked_and_interned() {
    assert!(conflict_scope("lok").unwrap_err().contains("`lok`"));
    assert!(conflict_scope("speechSynthesis.level").is_err());
    assert!(conflict_scope(" , ").is_err());
    let a = conflict_scope("switch,lock").unwrap();
    assert_eq!(a, conflict_scope("lock, switch,lock").unwrap());
    assert_eq!(a.names(), ["lock", "switch"]);
}

fn tracepor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn the_command_line_takes_a_scope_checks_it_and_replays_with_it() {
    let files = apps::write("cli", &[("Opener", opener()), ("Sleeper", sleeper())]);
    let (a, b) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let (code, out, _) =
        tracepor(&["check", a, b, "--conflicts-on", "lock", "--strategy", "full", "--json", "--no-progress"]);
    assert_eq!(code, 1, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["options"]["conflicts_on"], serde_json::json!(["lock"]));
    let errors = doc["errors"].as_array().unwrap();
    assert!(!errors.is_empty());
    for e in errors {
        assert_eq!(e["kind"], "conflict");
        assert!(e["message"].as_str().unwrap().contains("`lock`"), "{e}");
    }
    // The text report's replay line carries the scope, and replaying it reproduces the error.
    let (_, text, _) = tracepor(&["check", a, b, "--conflicts-on", "lock", "--strategy", "full", "--no-progress"]);
    let line = text.lines().find(|l| l.contains("tracepor replay")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("--conflicts-on lock"), "{line}");
    let schedule = line.split("--schedule ").nth(1).unwrap().split_whitespace().next().unwrap().trim_matches('\'');
    let (code, replayed, _) = tracepor(&["replay", a, b, "--conflicts-on", "lock", "--schedule", schedule]);
    assert_eq!(code, 1, "{replayed}");
    assert!(replayed.contains("`lock`"), "{replayed}");
    // A misspelt name is bad usage, not a silently empty scope.
    let (code, _, err) = tracepor(&["check", a, b, "--conflicts-on", "lok"]);
    assert_eq!(code, 2);
    assert!(err.contains("`lok`"), "{err}");
}
