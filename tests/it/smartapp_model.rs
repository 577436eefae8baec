//! The SmartApp model (src/model/smartapp.rs): device commands and event delivery between apps,
//! subscriptions with and without values, state, location mode, timers, IoTCheck's conflicts and
//! event counts, `--bound`, and real pairs of the IoTCheck corpus (../shared/smartthings).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tracepor::explore::stateful_dpor::StatefulDpor;
use tracepor::explore::{self, full::Full, full_stateless::FullStateless, Limits};
use tracepor::model::smartapp::{load, SmartAppModel, SmartAppOptions};
use tracepor::model::{Accesses, Model};

use crate::common::apps::app;

use crate::common::apps;

/// Writes apps to a fresh folder and loads them as one system.
fn system<S: AsRef<str>>(tag: &str, apps: &[(&str, S)], opts: SmartAppOptions) -> SmartAppModel {
    apps::system(tag, apps, opts).0
}

fn corpus(app: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/smartthings/smartapps").join(format!("{app}.groovy"))
}

fn fire(m: &SmartAppModel, s: &mut <SmartAppModel as Model>::State, event: &str) -> Result<(), String> {
    apps::fire(m, s, event).map_err(|e| format!("{}: {}", e.kind, e.message))
}

const OPENER: &str = r#"
definition(name: "Opener", namespace: "t", author: "t")
preferences { section("x") {
    input "contact1", "capability.contactSensor"
    input "switches", "capability.switch", multiple: true
} }
def installed() { subscribe(contact1, "contact.open", opened) }
def opened(evt) { switches.on(); state.count = (state.count ?: 0) + 1 }
"#;

fn watcher() -> String {
    app(
        "Watcher",
        &[("lights", "switch"), ("lock1", "lock")],
        ("lights", "switch", "changed"),
        &[r#"if (evt.value == "on") { lock1.lock() } else { lock1.unlock() }"#],
    )
}

#[test]
fn a_command_delivers_its_event_to_another_apps_subscriber() {
    // Everything stored: the contact sensor no app reads would otherwise be left out (dead.rs).
    let all = SmartAppOptions { keep_dead_state: true, ..SmartAppOptions::default() };
    let m = system("deliver", &[("Opener", OPENER), ("Watcher", &*watcher())], all);
    assert_eq!(m.device_names(), ["contactSensor", "switch", "lock"], "one device per capability, shared");
    let mut s = m.initial();
    let before = m.outcome(&s).to_string();
    assert!(before.contains("switch.switch=off") && before.contains("lock.lock=locked"), "{before}");
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    let after = m.outcome(&s).to_string();
    // switches.on() set the switch and delivered `switch on` to Watcher, which locked (no change).
    assert!(after.contains("switch.switch=on") && after.contains("state Opener: count=1"), "{after}");
    // The environment turns the switch off: Watcher unlocks.
    fire(&m, &mut s, "switch.switch.off").unwrap();
    assert!(m.outcome(&s).to_string().contains("lock.lock=unlocked"), "{}", m.outcome(&s).to_string());
    // Accesses were recorded as the handlers ran: the contact, the switch, Opener's state, and
    // the lock, which Watcher locked while it was locked: a write that changes nothing is a read.
    // (From the start: the contact is open, and the environment's `contact.open` still reaches its
    // subscriber, as a device that closed and opened again unobserved would.)
    let mut acc = Accesses::new();
    m.accesses(&m.initial(), m.parse_choice("contactSensor.contact.open").unwrap(), &mut acc);
    let names: Vec<String> =
        acc.iter().map(|a| format!("{}{}", if a.write { "W " } else { "R " }, m.object_name(a.object))).collect();
    for want in ["W contactSensor.contact", "W switch.switch", "R lock.lock", "W state of Opener"] {
        assert!(names.contains(&want.to_string()), "{want} in {names:?}");
    }
    acc.clear();
    m.accesses(&s, m.parse_choice("contactSensor.contact.open").unwrap(), &mut acc);
    assert!(acc.len() > 1, "an environment event reaches its handlers even when the value is held: {acc:?}");
}

/// A store that leaves the state as it was is recorded as a read (docs/smartapps.md): an
/// attribute given its value, the current mode, a `state` key given its value or a never-set
/// key given null. With `--conflicts` a same-value store by another app changes the last
/// writer, so it stays a write.
#[test]
fn an_unchanged_write_is_a_read() {
    let keeper = app(
        "Keeper",
        &[("lock1", "lock"), ("sw", "switch")],
        ("sw", "switch", "changed"),
        &["lock1.lock()", r#"setLocationMode("home")"#, "state.name = state.key", "state.n = 1"],
    );
    let other =
        app("Other", &[("lock2", "lock"), ("c", "contactSensor")], ("c", "contact", "moved"), &["lock2.lock()"]);
    let accesses = |m: &SmartAppModel, s: &<SmartAppModel as Model>::State, event: &str| -> Vec<String> {
        let mut acc = Accesses::new();
        m.accesses(s, m.parse_choice(event).unwrap(), &mut acc);
        acc.iter().map(|a| format!("{}{}", if a.write { "W " } else { "R " }, m.object_name(a.object))).collect()
    };
    // Everything stored: the switch no app reads would otherwise be left out (dead.rs).
    let all = SmartAppOptions { keep_dead_state: true, ..SmartAppOptions::default() };
    let m = system("unchanged", &[("Keeper", &keeper), ("Other", &other)], all);
    let mut s = m.initial();
    // First firing: `n` is new, everything else (locked lock, home mode, null name) unchanged.
    let first = accesses(&m, &s, "switch.switch.on");
    for want in ["W switch.switch", "R lock.lock", "R location.mode", "W state of Keeper"] {
        assert!(first.contains(&want.to_string()), "{want} in {first:?}");
    }
    fire(&m, &mut s, "switch.switch.on").unwrap();
    fire(&m, &mut s, "switch.switch.off").unwrap();
    // Again from `off`: `state.n = 1` now stores what `n` holds, so the state is only read.
    let again = accesses(&m, &s, "switch.switch.on");
    assert!(again.contains(&"R state of Keeper".to_string()), "{again:?}");
    assert!(!again.contains(&"W state of Keeper".to_string()), "{again:?}");
    // With --conflicts, Other locking the locked lock that Keeper wrote last is a write.
    let opts = SmartAppOptions { conflicts: true, ..SmartAppOptions::default() };
    let m = system("unchanged-conflicts", &[("Keeper", &keeper), ("Other", &other)], opts);
    let mut s = m.initial();
    fire(&m, &mut s, "switch.switch.on").unwrap();
    let other = accesses(&m, &s, "contactSensor.contact.open");
    assert!(other.contains(&"W lock.lock".to_string()), "{other:?}");
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    // Other wrote it last with this value: locking it again changes nothing.
    let other = accesses(&m, &s, "contactSensor.contact.closed");
    assert!(other.contains(&"R lock.lock".to_string()), "{other:?}");
}

#[test]
fn events_follow_iotcheck_subscriptions() {
    let m = system("events", &[("Opener", OPENER), ("Watcher", &*watcher())], SmartAppOptions::default());
    // `contact.open` is one event, `switch` (no value) both of its values.
    assert_eq!(m.event_names(), ["contactSensor.contact.open", "switch.switch.on", "switch.switch.off"]);
    let touch = r#"
definition(name: "T")
preferences { section("x") { input "newMode", "mode" } }
def installed() { subscribe(app, touched); subscribe(location, "mode", moded) }
def touched(evt) { setLocationMode(newMode) ; location.setMode("away") }
def moded(evt) { state.seen = location.mode }
"#;
    let m = system("touch", &[("T", touch)], SmartAppOptions::default());
    assert_eq!(m.event_names(), ["app.touch.T", "location.mode.home", "location.mode.away", "location.mode.night"]);
    let mut s = m.initial();
    fire(&m, &mut s, "app.touch.T").unwrap();
    let text = m.outcome(&s).to_string();
    assert!(text.contains("mode=away") && text.contains("seen=away"), "{text}");
}

#[test]
fn timers_run_at_once_and_do_not_reenter() {
    let app = r#"
definition(name: "Timer")
preferences { section("x") { input "sw", "capability.switch"; input "m1", "capability.motionSensor" } }
def installed() { subscribe(m1, "motion.active", moved) }
def moved(evt) { runIn(60, later); runEvery5Minutes(again) }
def later() { sw.on(); state.n = (state.n ?: 0) + 1; runIn(10, later) }
def again() { state.k = [1, 2, 3].findAll { it > 1 }.collect { it * 10 }.sum() }
"#;
    let m = system("timer", &[("Timer", app)], SmartAppOptions::default());
    let mut s = m.initial();
    fire(&m, &mut s, "motionSensor.motion.active").unwrap();
    let text = m.outcome(&s).to_string();
    assert!(text.contains("switch.switch=on") && text.contains("n=1") && text.contains("k=50"), "{text}");
}

fn offer() -> String {
    app(
        "Offer",
        &[("contact1", "contactSensor"), ("sw", "switch")],
        ("contact1", "contact", "h"),
        &[r#"if (evt.value == "closed") sw.off()"#],
    )
}

fn oner() -> String {
    app("Oner", &[("c", "contactSensor"), ("sw", "switch")], ("c", "contact.open", "h"), &["sw.on()"])
}

#[test]
fn conflicts_name_both_apps_the_attribute_and_both_values() {
    let opts = apps::ENDING;
    let m = system("conflict", &[("Offer", offer()), ("Oner", oner())], opts);
    let mut s = m.initial();
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    let err = fire(&m, &mut s, "contactSensor.contact.closed").unwrap_err();
    assert!(err.starts_with("conflict: ") && err.contains("Oner") && err.contains("Offer"), "{err}");
    assert!(err.contains("`switch`") && err.contains("wrote on") && err.contains("writes off"), "{err}");
    // Without --conflicts the same schedule runs.
    let m = system("noconflict", &[("Offer", offer()), ("Oner", oner())], SmartAppOptions::default());
    let mut s = m.initial();
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    fire(&m, &mut s, "contactSensor.contact.closed").unwrap();
    // Every strategy finds it from the start state.
    let m = system("conflict2", &[("Offer", offer()), ("Oner", oner())], opts);
    for (name, found) in [
        ("full", explore::run(&m, &mut Full, Limits::default(), Arc::new(AtomicBool::new(false))).1),
        (
            "stateful-dpor",
            explore::run(&m, &mut StatefulDpor::new(), Limits::default(), Arc::new(AtomicBool::new(false))).1,
        ),
    ] {
        assert!(found.errors().any(|f| f.error.kind == "conflict"), "{name}");
    }
}

#[test]
fn bound_makes_runs_finite_for_stateless_strategies() {
    let opts = SmartAppOptions { conflicts: false, bound: Some(2), ..SmartAppOptions::default() };
    let m = system("bound", &[("Opener", OPENER), ("Watcher", &*watcher())], opts);
    let (stats, found) = explore::run(&m, &mut FullStateless, Limits::default(), Arc::new(AtomicBool::new(false)));
    assert!(stats.finished);
    // 3 events, twice each: 6!/(2!2!2!) = 90 interleavings, each ending with nothing enabled,
    // from each of the two configurations at installation (Opener commands the switch).
    assert_eq!(m.stats()["configurations"], 2);
    assert_eq!(stats.executions, 2 * 90);
    assert!(found.deadlocks() > 0);
    let (_, full) = explore::run(&m, &mut Full, Limits::default(), Arc::new(AtomicBool::new(false)));
    let (_, sd) = explore::run(&m, &mut StatefulDpor::new(), Limits::default(), Arc::new(AtomicBool::new(false)));
    assert!(full.same_as(&found) && sd.same_as(&found), "same nothing-enabled states");
}

#[test]
fn fireco2alarm_and_lock_it_when_i_leave_conflict_on_the_lock() {
    let files = [corpus("FireCO2Alarm"), corpus("lock-it-when-i-leave")];
    if !files[0].is_file() {
        panic!("the IoTCheck corpus is expected at {}", files[0].display());
    }
    let m = load(&files, apps::ENDING).unwrap();
    let limits = Limits { max_transitions: Some(200_000_000), ..Limits::default() };
    let (stats, found) = explore::run(&m, &mut StatefulDpor::new(), limits, Arc::new(AtomicBool::new(false)));
    assert!(stats.finished);
    let conflict = found.errors().find(|f| f.error.kind == "conflict").expect("a conflict on the lock");
    let msg = &conflict.error.message;
    assert!(msg.contains("FireCO2Alarm") && msg.contains("lock-it-when-i-leave") && msg.contains("`lock`"), "{msg}");
    assert!(msg.contains("locked") && msg.contains("unlocked"), "{msg}");
    // The schedule replays to the same error.
    let mut s = m.initial();
    let (last, prefix) = conflict.schedule.split_last().unwrap();
    for &c in prefix {
        m.step(&mut s, c).expect("the prefix runs");
    }
    assert_eq!(m.step(&mut s, *last).unwrap_err().kind, "conflict");
}

#[test]
fn loops_switch_and_collections_run_as_groovy_does() {
    let app = r#"
definition(name: "Loops")
preferences { section("x") { input "sw", "capability.switch"; input "m1", "capability.motionSensor" } }
def installed() { subscribe(m1, "motion", moved) }
def moved(evt) {
    def n = 0
    for (int i = 0; i < 10; i++) { if (i == 4) break; n += i }
    def k = 0
    while (k < 6) { k++; if (k % 2 == 0) continue; n += 100 }
    switch (evt.value) {
        case "active": n += 1000
        case "x": n += 10000; break
        default: n = -1
    }
    def m = [a: 1, b: 2]
    m.c = 3
    state.n = n
    state.keys = m.collect { key, value -> "$key$value" }.join(",")
    state.any = [1, 2, 3].any { it > 2 } && ![1, 2].every { it > 1 }
    for (x in [3, 1, 2].sort()) { state.last = x }
    try { throw new Exception("boom") } catch (e) { state.caught = true }
}
"#;
    let m = system("loops", &[("Loops", app)], SmartAppOptions::default());
    let mut s = m.initial();
    fire(&m, &mut s, "motionSensor.motion.active").unwrap();
    let text = m.outcome(&s).to_string();
    // 0+1+2+3, three odd k's, `active` falls through into `x`.
    assert!(text.contains("n=11306"), "{text}");
    assert!(text.contains("keys=a1,b2,c3") && text.contains("any=true") && text.contains("last=3"), "{text}");
    assert!(text.contains("caught=true"), "{text}");
}
