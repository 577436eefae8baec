//! Deadlock and conflict reports name what they point at as the race report does
//! (docs/races.md, "What each report names"), for each input kind, in the text
//! report and in `check --json`:
//! - EM traces: each stuck thread's operation (line, thread, handler, LOCK and lock), what it
//!   waits for (the lock's holder and the LOCK that took it, the next NOTIFY to it, the source
//!   of a static edge, the POST of the message its looper waits for);
//! - DroidRacer's abc_log.txt: the same, and each operation's line, `tid` and `msg` in the log;
//! - event models: the error's `file:line, handler on EVENT`, and a conflict's earlier write;
//! - SmartApps: a conflict's app, device, attribute, both values and both writes' file:line
//!   and handler (a scheduled method's included).

use std::path::PathBuf;

use crate::common::{bin, root, text};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let o = bin(args);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&o.stdout)))
}

/// A fresh directory holding `trace.txt` (and `dependence.txt` when given).
fn trace_dir(name: &str, trace: &str, dependence: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-names-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("trace.txt"), trace).unwrap();
    if let Some(d) = dependence {
        std::fs::write(dir.join("dependence.txt"), d).unwrap();
    }
    dir
}

/// The stuck entry of raw thread `t`.
fn stuck_of(error: &Value, t: u64) -> &Value {
    let all = error["stuck"].as_array().unwrap_or_else(|| panic!("no `stuck`: {error}"));
    all.iter().find(|s| s["thread"] == t).unwrap_or_else(|| panic!("thread {t} not stuck: {error}"))
}

#[test]
fn an_em_deadlock_names_each_lock_its_holder_and_where_it_was_taken() {
    let r = json(&["check", "fixtures/em/abba-deadlock", "--no-races", "--json"]);
    let e = &r["errors"][0];
    assert_eq!(e["kind"], "deadlock", "{e}");
    assert_eq!(e["stuck"].as_array().unwrap().len(), 2, "{e}");
    for (t, line, lock, holder, since) in [(1, 5, "0xb", 2, 9), (2, 10, "0xa", 1, 4)] {
        let s = stuck_of(e, t);
        assert_eq!(s["op"]["line"], line, "{s}");
        assert_eq!(s["op"]["kind"], "LOCK", "{s}");
        assert_eq!(s["op"]["lock"], lock, "{s}");
        assert_eq!(s["waits_for"], "lock", "{s}");
        assert_eq!(s["lock"], lock, "{s}");
        assert_eq!(s["holder"]["thread"], holder, "{s}");
        assert_eq!(s["holder"]["since"]["line"], since, "{s}");
        assert_eq!(s["holder"]["since"]["lock"], lock, "{s}");
    }
    assert_eq!(e["at"], "LOCK 0xb at line 5 (thread 1); LOCK 0xa at line 10 (thread 2)", "{e}");
    let out = text(&bin(&["check", "fixtures/em/abba-deadlock", "--no-races"]).stdout);
    assert!(out.contains("  at:       LOCK 0xb at line 5 (thread 1); LOCK 0xa at line 10 (thread 2)\n"), "{out}");
}

#[test]
fn an_em_deadlock_in_a_handler_names_the_handler_the_queue_and_the_notify() {
    let r = json(&["check", "fixtures/em-regress/blocked-handler-ran-after", "--no-races", "--json"]);
    let e = &r["errors"][0];
    // Thread 1 (a looper) is stuck in the handler of message 2 on a lock thread 3 holds;
    // message 1 waits behind it; thread 3 waits for a NOTIFY that the handler of message 1
    // would have sent (line 19).
    let looper = stuck_of(e, 1);
    assert_eq!(looper["handler"], 2, "{looper}");
    assert_eq!(looper["op"]["handler"], 2, "{looper}");
    assert_eq!(looper["op"]["line"], 26, "{looper}");
    assert_eq!(looper["holder"]["thread"], 3, "{looper}");
    assert_eq!(looper["holder"]["since"]["line"], 16, "{looper}");
    assert_eq!(looper["queued_behind"], serde_json::json!([1]), "{looper}");
    let waiter = stuck_of(e, 3);
    assert_eq!(waiter["waits_for"], "notify", "{waiter}");
    assert_eq!(waiter["op"]["kind"], "WAIT", "{waiter}");
    assert_eq!(waiter["operation"]["kind"], "NOTIFY", "{waiter}");
    assert_eq!(waiter["operation"]["line"], 19, "{waiter}");
    assert_eq!(waiter["operation"]["handler"], 1, "{waiter}");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("waits for a NOTIFY to thread 3 (none pending; the next in the trace, operation 19 at line 19 (thread 1, handler 1), has not run)"), "{msg}");
}

/// Thread 1 takes the lock thread 2 took in the recorded run, then waits for the NOP of
/// thread 2 that a dependence edge puts before its own; thread 2 waits for the lock.
const EDGE: &str = "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 THREADINIT tid:2\n\
5 LOCK tid:2 lock-obj:0xa\n6 NOP tid:2\n7 UNLOCK tid:2 lock-obj:0xa\n8 LOCK tid:1 lock-obj:0xa\n\
9 NOP tid:1\n10 UNLOCK tid:1 lock-obj:0xa\n";

#[test]
fn an_em_deadlock_names_the_static_edge_a_thread_waits_for() {
    let dir = trace_dir("edge", EDGE, Some("src:6 dest:9\n"));
    let r = json(&["check", dir.to_str().unwrap(), "--no-races", "--json"]);
    std::fs::remove_dir_all(&dir).unwrap();
    let e = r["errors"].as_array().unwrap().iter().find(|e| e["kind"] == "deadlock").expect("a deadlock");
    let s = stuck_of(e, 1);
    assert_eq!(s["waits_for"], "operation", "{s}");
    assert_eq!(s["op"]["line"], 9, "{s}");
    assert_eq!(s["operation"]["line"], 6, "{s}");
    assert_eq!(s["operation"]["thread"], 2, "{s}");
    assert!(
        e["message"].as_str().unwrap().contains("waits for operation 6 (line 6 (thread 2): NOP) to run first"),
        "{e}"
    );
    assert_eq!(stuck_of(e, 2)["holder"]["thread"], 1, "{e}");
}

/// Threads 2 and 3 take two locks in opposite orders; thread 2 posts message 1 to looper 1
/// while it holds both: when they deadlock, the looper waits for a post that never ran.
const POST: &str = "1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1 queue:100\n4 FORK par-tid:1 child-tid:2\n\
5 FORK par-tid:1 child-tid:3\n6 LOOP tid:1\n7 THREADINIT tid:2\n8 LOCK tid:2 lock-obj:0xa\n\
9 LOCK tid:2 lock-obj:0xb\n10 POST src:2 msg:1 dest:1\n11 UNLOCK tid:2 lock-obj:0xb\n\
12 UNLOCK tid:2 lock-obj:0xa\n13 THREADINIT tid:3\n14 LOCK tid:3 lock-obj:0xb\n15 LOCK tid:3 lock-obj:0xa\n\
16 UNLOCK tid:3 lock-obj:0xa\n17 UNLOCK tid:3 lock-obj:0xb\n18 CALL tid:1 msg:1\n19 NOP tid:1\n20 RET tid:1 msg:1\n";

#[test]
fn an_em_deadlock_names_the_post_an_idle_looper_waits_for() {
    let dir = trace_dir("post", POST, None);
    let r = json(&["check", dir.to_str().unwrap(), "--no-races", "--json"]);
    std::fs::remove_dir_all(&dir).unwrap();
    let e = r["errors"].as_array().unwrap().iter().find(|e| e["kind"] == "deadlock").expect("a deadlock");
    let s = stuck_of(e, 1);
    assert_eq!(s["waits_for"], "post", "{s}");
    assert_eq!(s["handler"], 1, "{s}");
    assert!(s["op"].is_null(), "{s}");
    assert_eq!(s["operation"]["kind"], "POST", "{s}");
    assert_eq!(s["operation"]["line"], 10, "{s}");
    assert_eq!(s["operation"]["thread"], 2, "{s}");
}

#[test]
fn an_abc_log_deadlock_names_each_operation_in_the_log_too() {
    let log = "fixtures/abc-log/abba-deadlock/abc_log.txt";
    let r = json(&["check", log, "--no-races", "--json"]);
    let e = &r["errors"][0];
    // Renumbered: log threads 1, 30, 40 are 1, 2, 3; message 900 is 1.
    let looper = stuck_of(e, 1);
    assert_eq!(looper["op"]["line"], 12, "{looper}");
    assert_eq!(looper["op"]["handler"], 1, "{looper}");
    assert_eq!(looper["op"]["log"], serde_json::json!({"line": 12, "thread": 1, "handler": 900}), "{looper}");
    assert_eq!(looper["holder"]["thread"], 3, "{looper}");
    assert_eq!(looper["holder"]["since"]["log"], serde_json::json!({"line": 18, "thread": 40, "handler": null}));
    let other = stuck_of(e, 3);
    assert_eq!(other["op"]["log"]["thread"], 40, "{other}");
    assert_eq!(other["op"]["log"]["line"], 19, "{other}");
    let out = text(&bin(&["check", log, "--no-races"]).stdout);
    assert!(out.contains("(line 18: LOCK 0xa; log line 19, tid 40) waits for lock 0xa"), "{out}");
    // The races and the outcomes explained name the log's operations as well: the write of
    // the handler of message 900 is on the log's access line 13.
    let r = json(&["check", log, "--json"]);
    let texts: Vec<&str> = r["outcomes_explained"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|o| o["differences"].as_array().unwrap())
        .filter_map(|d| d["text"].as_str())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("the write at line 13 (thread 1, handler 1; log line 13, tid 1, msg 900)")),
        "{texts:?}"
    );
}

#[test]
fn abc_log_races_name_the_logs_threads_and_messages() {
    // renumber: the looper is the log's thread 5 (2 once renumbered), its messages 40 and 7
    // (2 and 1); both handlers write one field.
    let r = json(&["check", "fixtures/abc-log/renumber/abc_log.txt", "--json"]);
    let races = r["races"].as_array().unwrap();
    assert!(!races.is_empty(), "{r}");
    for race in races {
        for side in [&race["first"], &race["second"]] {
            let log = &side["log"];
            let raw_thread = [(1, 1), (2, 5), (3, 7)].iter().find(|p| side["thread"] == p.0).map(|p| p.1);
            assert_eq!(log["thread"], raw_thread.expect("a known thread"), "{side}");
            if let Some(h) = side["handler"].as_u64() {
                assert_eq!(log["handler"], [7, 40][h as usize - 1], "{side}");
            }
            assert!(log["line"].as_u64().is_some(), "{side}");
        }
    }
    let out = text(&bin(&["check", "fixtures/abc-log/renumber/abc_log.txt"]).stdout);
    assert!(out.contains("(thread 2, handler 2; log line 14, tid 5, msg 40)"), "{out}");
}

#[test]
fn an_event_model_names_the_handler_and_both_writes_of_a_conflict() {
    let f = "fixtures/events/example.events";
    let r = json(&["check", f, "--conflicts", "--json"]);
    let e = r["errors"].as_array().unwrap().iter().find(|e| e["event"] == "smoke").expect("the smoke conflict");
    assert_eq!(e["at"], format!("{f}:13, handler on smoke"), "{e}");
    assert_eq!(e["last_at"], format!("{f}:20, handler on presence.away"), "{e}");
    assert_eq!(e["conflict"]["variable"], "door", "{e}");
    assert_eq!(e["conflict"]["last_app"], "LockItWhenILeave", "{e}");
    let group = &r["conflicts_by_attribute"][0];
    let first = &group["pairs"][0]["instances"][0]["first"];
    assert!(first["at"].as_str().is_some_and(|a| a.starts_with(&format!("{f}:"))), "{group}");
    let out = text(&bin(&["check", f, "--conflicts"]).stdout);
    assert!(out.contains(&format!("  at:       {f}:13, handler on smoke (event smoke, app FireCO2Alarm)\n")), "{out}");
    assert!(
        out.contains(&format!("  earlier:  LockItWhenILeave wrote locked ({f}:20, handler on presence.away)\n")),
        "{out}"
    );
    // A handler that writes twice: the earlier side is its last write (line 6), not its first.
    let model = "model events\nvar door = \"locked\"\napp A {\n  on leave {\n    door = \"unlocked\"\n    door = \"locked\"\n  }\n}\napp B {\n  on alarm { door = \"unlocked\" }\n}\n";
    let path = std::env::temp_dir().join(format!("tracepor-names-twice-{}.events", std::process::id()));
    std::fs::write(&path, model).unwrap();
    let p = path.to_str().unwrap();
    let r = json(&["check", p, "--conflicts", "--json"]);
    std::fs::remove_file(&path).unwrap();
    let e = r["errors"].as_array().unwrap().iter().find(|e| e["app"] == "B").expect("B's conflict");
    assert_eq!(e["last_at"], format!("{p}:6, handler on leave"), "{e}");
    assert_eq!(e["at"], format!("{p}:10, handler on alarm"), "{e}");
    // An assertion: its handler too.
    let r = json(&["check", f, "--json"]);
    assert_eq!(r["errors"][0]["kind"], "assert", "{r}");
    assert_eq!(r["errors"][0]["at"], format!("{f}:21, handler on presence.away"), "{r}");
}

#[test]
fn a_homes_conflicts_name_app_device_attribute_values_and_both_writes() {
    let apps = root().join("../shared/smartthings/smartapps");
    let args = ["check", "fixtures/homes/locks.home", "--smartapps", apps.to_str().unwrap(), "--conflicts", "--json"];
    let r = json(&args);
    let conflicts: Vec<&Value> = r["errors"].as_array().unwrap().iter().filter(|e| e["kind"] == "conflict").collect();
    assert!(!conflicts.is_empty(), "{r}");
    let place = |s: &Value| {
        let s = s.as_str().unwrap_or("");
        let (file, handler) = s.split_once(", handler ").unwrap_or(("", ""));
        file.rsplit_once(".groovy:").is_some_and(|(_, l)| l.parse::<u32>().is_ok()) && !handler.is_empty()
    };
    for e in &conflicts {
        let c = &e["conflict"];
        for k in ["variable", "app", "value", "last_app", "last_value"] {
            assert!(c[k].as_str().is_some_and(|v| !v.is_empty()), "{k}: {e}");
        }
        assert!(c["variable"].as_str().unwrap().contains('.'), "device.attribute: {e}");
        assert!(place(&e["at"]), "at: {e}");
        assert!(place(&e["last_at"]), "last_at: {e}");
        // Each side's file is its app's.
        let file_of = |k: &str| e[k].as_str().unwrap().split(".groovy:").next().unwrap().rsplit('/').next().unwrap();
        assert_eq!(file_of("at"), e["app"].as_str().unwrap(), "{e}");
        assert_eq!(file_of("last_at"), c["last_app"].as_str().unwrap(), "{e}");
    }
    // A method run by `schedule` is named as its handler, on either side.
    assert!(
        conflicts.iter().any(|e| e["last_at"]
            .as_str()
            .unwrap()
            .ends_with("lock-it-at-a-specific-time.groovy:73, handler setTimeCallback")),
        "{r}"
    );
    let out = text(&bin(&args[..args.len() - 1]).stdout);
    assert!(
        out.contains("  earlier:  lock-it-at-a-specific-time wrote locked (")
            && out.contains("lock-it-at-a-specific-time.groovy:73, handler setTimeCallback)\n"),
        "{out}"
    );
}
