//! Diagnostics at the point of failure, as the binary prints them: a conflict
//! names both apps, the variable and both values; replay names locks as the trace writes them
//! and lists each access once; a deadlock names the handler a stuck looper is in.

use crate::common::{bin as tracepor, code, text};

const FIRE_LOCK: &str = "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events";

#[test]
fn a_conflict_names_both_apps_the_variable_and_both_values() {
    let o = tracepor(&["check", FIRE_LOCK, "--conflicts", "--json"]);
    assert_eq!(code(&o), 1);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors = doc["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{doc}");
    for e in errors {
        let c = &e["conflict"];
        assert_eq!(c["variable"], "lock", "{e}");
        assert_eq!(c["app"], e["app"], "the app writing now is the one the error is in: {e}");
        assert_ne!(c["app"], c["last_app"], "{e}");
        assert_ne!(c["value"], c["last_value"], "{e}");
        let values = [c["value"].as_str().unwrap(), c["last_value"].as_str().unwrap()];
        assert!(values.contains(&"locked") && values.contains(&"unlocked"), "{e}");
        let message = e["message"].as_str().unwrap();
        for part in ["app", "last_app", "value", "last_value", "variable"] {
            assert!(message.contains(c[part].as_str().unwrap()), "{part} not in {message}");
        }
    }
    // The schedule shown reaches the conflict with the values reported: presence first means
    // LockItWhenILeave locked the door before FireCO2Alarm unlocks it.
    let first = errors.iter().find(|e| e["schedule"] == "presence.not_present,smoke.detected").expect("{doc}");
    assert_eq!(first["conflict"]["last_app"], "LockItWhenILeave");
    assert_eq!(first["conflict"]["last_value"], "locked");
    assert_eq!(first["conflict"]["value"], "unlocked");

    let out = text(&tracepor(&["check", FIRE_LOCK, "--conflicts"]).stdout);
    assert!(
        out.contains(
            "conflict: apps LockItWhenILeave and FireCO2Alarm both write `lock`: LockItWhenILeave wrote locked, \
             then FireCO2Alarm writes unlocked"
        ),
        "{out}"
    );
    let o = tracepor(&["replay", FIRE_LOCK, "--schedule", "presence.not_present,smoke.detected", "--conflicts"]);
    assert_eq!(code(&o), 1);
    assert!(text(&o.stdout).contains("LockItWhenILeave wrote locked, then FireCO2Alarm writes unlocked"));
}

#[test]
fn replay_names_locks_as_the_trace_does_and_each_access_once() {
    let o = tracepor(&["replay", "traces/android/photo-sync", "--schedule", "1*5,2*3,3*2,1*2"]);
    assert_eq!(code(&o), 1, "the schedule check printed reaches the deadlock");
    let out = text(&o.stdout);
    assert!(out.contains("LOCK 0xdb   {W lock 0xdb}"), "{out}");
    assert!(out.contains("LOCK 0xca   {W lock 0xca}"), "{out}");
    assert!(!out.contains('#'), "no lock by index: {out}");

    // An event firing's accesses are listed once per step, not in its description and again.
    let o = tracepor(&["replay", FIRE_LOCK, "--schedule", "presence.not_present,smoke.detected", "--conflicts"]);
    for line in text(&o.stdout).lines().filter(|l| l.contains("event ")) {
        assert_eq!(line.matches("W lock").count(), 1, "{line}");
        assert_eq!(line.matches("R enabled(").count(), 1, "{line}");
    }
}

#[test]
fn replay_help_documents_its_options() {
    let help = text(&tracepor(&["replay", "--help"]).stdout);
    for needle in ["--schedule", "`c*k`", "1*5,2*3,1", "--bound <K>", "Default: no bound", "--conflicts", "Exit 1"] {
        assert!(help.contains(needle), "{needle} missing from:\n{help}");
    }
    // Every option says something, on its line or the next (clap's long help).
    let lines: Vec<&str> = help.lines().collect();
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| l.trim_start().starts_with("--")) {
        let next = lines.get(i + 1).map_or("", |l| l.trim());
        let said = line.split_whitespace().count() > 2 || (!next.is_empty() && !next.starts_with('-'));
        assert!(said, "undocumented: {line}");
    }
}

#[test]
fn a_deadlock_names_the_handler_a_looper_is_stuck_in_and_the_messages_behind_it() {
    let o = tracepor(&["check", "fixtures/em-regress/stuck-handler-queued-behind", "--strategy", "full", "--json"]);
    assert_eq!(code(&o), 1);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let messages: Vec<&str> =
        doc["errors"].as_array().unwrap().iter().map(|e| e["message"].as_str().unwrap()).collect();
    assert!(
        messages.iter().any(|m| m.contains(
            "thread 1 in the handler of message 1 at operation 17 (line 17: LOCK 0xa) waits for lock 0xa, held by \
             thread 3 since operation 9 (line 9); \
             message 2 waits behind it in the queue"
        )),
        "{messages:#?}"
    );
    // The holder is named by the handler it holds the lock in.
    assert!(
        messages.iter().all(|m| m.contains("waits for lock 0xb, held by thread 1 in the handler of message 1")),
        "{messages:#?}"
    );
    // A plain thread is named as before, with no handler.
    let out = text(&tracepor(&["check", "traces/android/photo-sync"]).stdout);
    assert!(out.contains("thread 3 at operation 12 (line 12: LOCK 0xca) waits for lock 0xca"), "{out}");
}

/// Two SmartApps writing one switch: the conflict's JSON names both, with both values, and the
/// error is placed in the app whose write conflicted.
#[test]
fn a_smartapp_conflict_names_both_apps_and_values() {
    let dir = std::env::temp_dir().join(format!("tracepor-diagnostics-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let app = |name: &str, event: &str, command: &str| {
        format!(
            "definition(name: \"{name}\", namespace: \"t\", author: \"t\")\n\
             preferences {{ section(\"x\") {{\n\
             input \"contact1\", \"capability.contactSensor\"\n\
             input \"switches\", \"capability.switch\"\n\
             }} }}\n\
             def installed() {{ subscribe(contact1, \"contact.{event}\", handler) }}\n\
             def handler(evt) {{ switches.{command}() }}\n"
        )
    };
    let (a, b) = (dir.join("TurnOn.groovy"), dir.join("TurnOff.groovy"));
    std::fs::write(&a, app("TurnOn", "open", "on")).unwrap();
    std::fs::write(&b, app("TurnOff", "closed", "off")).unwrap();
    let o = tracepor(&["check", a.to_str().unwrap(), b.to_str().unwrap(), "--conflicts", "--json"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors = doc["errors"].as_array().unwrap();
    assert!(!errors.is_empty(), "{doc}");
    for e in errors {
        let c = &e["conflict"];
        assert_eq!(e["app"], c["app"], "placed in the writing app: {e}");
        assert_ne!(c["app"], c["last_app"], "{e}");
        let values = [c["value"].as_str().unwrap(), c["last_value"].as_str().unwrap()];
        assert!(values.contains(&"on") && values.contains(&"off"), "{e}");
        assert!(c["variable"].as_str().unwrap().ends_with(".switch"), "{e}");
    }
}
