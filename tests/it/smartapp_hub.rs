//! SmartApps as a hub runs them: every input form the corpus uses is bound (map-declared
//! inputs, device lists and indexing, `ifSet`), event data (`evt.data` as JSON, `evt.deviceId`),
//! one device event runs every handler subscribed to it, an app touch runs the tapped app only,
//! `tamper.tampered`, whole-type and one-value subscriptions, comments never read as code, and
//! what the model cannot bind or run is reported with file and line, never dropped silently.

use tracepor::model::smartapp::{SmartAppModel, SmartAppOptions};
use tracepor::model::Model;

use crate::common::apps::{app, fire, system, ENDING};

fn outcome(m: &SmartAppModel, s: &<SmartAppModel as Model>::State) -> String {
    m.outcome(s).to_string()
}

const MAP_INPUTS: &str = r#"
definition(name: "MapInputs", namespace: "t", author: "t")
preferences { page(name: "p") }
def p() {
    // input "ignored", "capability.valve"
    def inputMotion = [
        name:     "motions",
        type:     "capability.motionSensor",
        multiple: true
    ]
    def inputLights = [name: "lights", type: "capability.switch", multiple: true]
    def inputMode = [name: "when", type: "enum", metadata: [values: ["night", "day"]]]
    return dynamicPage([name: "p"]) {
        section("s") {
            input inputMotion
            input inputLights
            input inputMode
        }
    }
}
def installed() { subscribe(motions, "motion.active", moved) }
def moved(evt) { if (when == "night") { lights.on() } }
"#;

#[test]
fn inputs_declared_through_a_map_are_bound_and_comments_are_not_code() {
    let (m, _) = system("map", &[("MapInputs", MAP_INPUTS)], SmartAppOptions::default());
    assert_eq!(m.device_names(), ["motionSensor", "switch"], "the two map inputs bound, the commented valve not");
    assert_eq!(m.stats()["subscriptions"], 1);
    assert!(m.unsupported().is_empty(), "{:?}", m.unsupported());
    let mut s = m.initial();
    fire(&m, &mut s, "motionSensor.motion.active").unwrap();
    // The enum's first metadata value, night, was chosen: the handler turned the lights on.
    assert!(outcome(&m, &s).contains("switch.switch=on"), "{}", outcome(&m, &s));
}

const INDEXED: &str = r#"
definition(name: "Indexed", namespace: "t", author: "t")
preferences { section("s") {
    input "theSensor", "capability.contactSensor", multiple: true
    ifSet "alarm1", "capability.alarm", required: false
} }
def installed() {
    for (int i = 0; i < theSensor.size(); i++) {
        subscribe(theSensor[i], "contact.open", "sensorTriggered${i}")
    }
}
def sensorTriggered0(evt) { alarm1.siren() }
"#;

#[test]
fn a_device_of_a_list_is_subscribed_by_index_with_a_computed_handler_name() {
    let (m, _) = system("indexed", &[("Indexed", INDEXED)], SmartAppOptions::default());
    assert_eq!(m.device_names(), ["contactSensor", "alarm"], "ifSet declares an input too");
    assert_eq!(m.stats()["subscriptions"], 1);
    let mut s = m.initial();
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    assert!(outcome(&m, &s).contains("alarm.alarm=siren"), "{}", outcome(&m, &s));
}

const BEACON: &str = r#"
definition(name: "Beacon", namespace: "t", author: "t")
preferences { section("s") {
    input name: "beacons", type: "capability.beacon"
    input name: "phones", type: "device.mobilePresence"
    input "locks", "capability.lock"
} }
def installed() { subscribe(beacons, "presence", seen) }
def seen(evt) {
    if (allOk) {
        def data = new groovy.json.JsonSlurper().parseText(evt.data)
        def same = parseJson(evt.data)
        def phone = phones.find { p -> p.deviceNetworkId.split('\\|')[0] == data.dni.split('\\|')[0] }
        if (phone != null && same.presence == data.presence) {
            if (data.presence == "1") { locks.unlock() } else { locks.lock() }
        }
    }
}
private getAllOk() { true }
"#;

#[test]
fn event_data_is_the_json_the_device_sends() {
    let (m, _) = system("beacon", &[("Beacon", BEACON)], SmartAppOptions::default());
    let mut s = m.initial();
    fire(&m, &mut s, "beacon.presence.present").unwrap();
    assert!(outcome(&m, &s).contains("lock.lock=unlocked"), "the phone is named in evt.data: {}", outcome(&m, &s));
    fire(&m, &mut s, "beacon.presence.not_present").unwrap();
    assert!(outcome(&m, &s).contains("lock.lock=locked"), "{}", outcome(&m, &s));
}

const COUNTER_A: &str = r#"
definition(name: "A", namespace: "t", author: "t")
preferences { section("s") { input "door", "capability.contactSensor" } }
def installed() { subscribe(door, "contact.open", h); subscribe(app, touched) }
def h(evt) { state.n = (state.n ?: 0) + 1 }
def touched(evt) { state.t = (state.t ?: 0) + 1 }
"#;

const COUNTER_B: &str = r#"
definition(name: "B", namespace: "t", author: "t")
preferences { section("s") {
    input "door", "capability.contactSensor"
    input "tampered", "capability.contactSensor"
} }
def installed() {
    subscribe(door, "contact.open", h)
    subscribe(door, "contact", any)
    subscribe(tampered, "tamper.tampered", tamper)
    subscribe(app, touched)
}
def h(evt) { state.n = (state.n ?: 0) + 1 }
def any(evt) { state.any = (state.any ?: 0) + 1 }
def tamper(evt) { state.tamper = evt.value }
def touched(evt) { state.t = (state.t ?: 0) + 1 }
"#;

#[test]
fn one_event_runs_every_subscribed_handler_and_a_touch_only_its_app() {
    let (m, _) = system("shared", &[("A", COUNTER_A), ("B", COUNTER_B)], SmartAppOptions::default());
    let mut s = m.initial();
    // contact.open: A's and B's one-value handlers and B's whole-type one, all on one event.
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    let o = outcome(&m, &s);
    assert!(o.contains("state A: n=1") && o.contains("any=1") && o.contains("n=1"), "{o}");
    assert_eq!(o.matches("n=1").count(), 2, "{o}");
    // The environment's event reaches its subscribers even when the sensor reads open already.
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    assert_eq!(outcome(&m, &s).matches("n=2").count(), 2, "{}", outcome(&m, &s));
    // contact.closed: the whole-type subscription alone.
    fire(&m, &mut s, "contactSensor.contact.closed").unwrap();
    let o = outcome(&m, &s);
    assert!(o.contains("any=3") && o.matches("n=2").count() == 2, "{o}");
    // Tapping A runs A's touch handler, not B's.
    fire(&m, &mut s, "app.touch.A").unwrap();
    let o = outcome(&m, &s);
    assert!(o.contains("state A: n=2 t=1") && o.ends_with("state B: any=3 n=2"), "{o}");
    // tamper.tampered is its own attribute's event.
    let tamper = m.event_names().into_iter().find(|e| e.contains("tamper")).expect("a tamper event").to_string();
    fire(&m, &mut s, &tamper).unwrap();
    assert!(outcome(&m, &s).contains("tamper=tampered"), "{}", outcome(&m, &s));
}

fn locker() -> String {
    app(
        "Locker",
        &[("p", "presenceSensor"), ("l", "lock")],
        ("p", "presence", "h"),
        &[r#"if (evt.value == "present") { l.unlock() } else { l.lock() }"#],
    )
}

fn night() -> String {
    app("Night", &[("m", "motionSensor"), ("l", "lock")], ("m", "motion.inactive", "quiet"), &["l.lock()"])
}

#[test]
fn a_conflict_names_the_file_line_app_and_handler() {
    let (m, files) = system("conflict", &[("Locker", locker()), ("Night", night())], ENDING);
    let mut s = m.initial();
    fire(&m, &mut s, "presenceSensor.presence.present").unwrap();
    let e = fire(&m, &mut s, "motionSensor.motion.inactive").expect_err("Night locks what Locker unlocked");
    assert_eq!(e.kind, "conflict");
    assert_eq!(e.app.as_deref(), Some("Night"));
    let at = e.at.expect("a place");
    assert_eq!(at, format!("{}:9, handler quiet", files[1].display()), "{at}");
}

const UNBOUND: &str = r#"
definition(name: "Unbound", namespace: "t", author: "t")
preferences { section("s") {
    input "sw", "capability.switch"
    input "n${now()}", "capability.lock"
} }
def installed() {
    subscribe(nothing, "switch.on", h)
    subscribe(sw, "weird", h)
    if (false) { subscribe(sw, "switch.off", h) }
}
def h(evt) { }
"#;

#[test]
fn what_cannot_be_bound_is_reported_with_file_and_line() {
    let (m, files) = system("unbound", &[("Unbound", UNBOUND)], SmartAppOptions::default());
    let f = files[0].display().to_string();
    let u = m.unsupported();
    let has = |line: usize, what: &str| u.iter().any(|x| x.starts_with(&format!("{f}:{line}: ")) && x.contains(what));
    assert!(has(5, "input"), "{u:#?}");
    assert!(has(8, "not a device input"), "{u:#?}");
    assert!(has(9, "no values known"), "{u:#?}");
    assert!(has(10, "not made when the app is installed"), "{u:#?}");
    assert_eq!(u.len(), 4, "{u:#?}");
    assert_eq!(m.stats()["unsupported"], 4);
}

/// Saves the lock's state when installed and restores it when the mode changes (make-it-so's
/// shape); `Locker` locks on a contact closing.
const KEEPER: &str = r#"
definition(name: "Keeper", namespace: "t", author: "t")
preferences { section("s") { input "door", "capability.lock" } }
def installed() {
    subscribe(location, "mode", changed)
    state.saved = door.currentValue("lock")
}
def changed(evt) { if (state.saved == "unlocked") { door.unlock() } else { door.lock() } }
"#;

fn closer() -> String {
    app(
        "Closer",
        &[("door", "lock"), ("contact1", "contactSensor")],
        ("contact1", "contact.closed", "closed"),
        &["door.lock()"],
    )
}

#[test]
fn the_devices_states_at_installation_are_the_environments_choice() {
    let opts = ENDING;
    let (m, _) = system("configs", &[("Keeper", KEEPER), ("Closer", &*closer())], opts);
    // The lock is commanded and the mode subscribed: locked/unlocked and home/away/night, every
    // value of each in some configuration.
    assert_eq!(m.stats()["configurations"], 3);
    let root = m.initial();
    let mut en = Vec::new();
    m.enabled(&root, &mut en);
    let names: Vec<String> = en.iter().map(|&c| m.choice_name(c)).collect();
    assert_eq!(names, ["init.0", "init.1", "init.2"], "only the configurations are enabled at the root");
    // From the defaults (locked), Keeper saved `locked`: restoring agrees with Closer.
    let mut s = root.clone();
    fire(&m, &mut s, "init.0").unwrap();
    fire(&m, &mut s, "contactSensor.contact.closed").unwrap();
    fire(&m, &mut s, "location.mode.away").unwrap();
    // Installed while unlocked, Keeper restores `unlocked` over Closer's lock: a conflict of
    // saved state, which one fixed configuration could not show.
    let mut s = root.clone();
    fire(&m, &mut s, "init.1").unwrap();
    assert!(outcome(&m, &s).contains("lock.lock=unlocked"), "{}", outcome(&m, &s));
    en.clear();
    m.enabled(&s, &mut en);
    assert!(!en.is_empty() && en.iter().all(|&c| !m.choice_name(c).starts_with("init.")), "chosen once");
    fire(&m, &mut s, "contactSensor.contact.closed").unwrap();
    let e = fire(&m, &mut s, "location.mode.away").expect_err("Keeper restores unlocked over Closer's lock");
    assert_eq!(e.kind, "conflict");
    assert!(e.message.contains("Closer wrote locked, Keeper writes unlocked"), "{}", e.message);
    // The configuration choice writes everything: dependent with every event.
    let mut acc = tracepor::model::Accesses::new();
    m.accesses(&root, m.parse_choice("init.1").unwrap(), &mut acc);
    assert!(acc.len() as u64 >= m.stats()["attributes"] + 1 + 2 && acc.iter().all(|a| a.write));
    // Without a commanded attribute or a mode in use, one configuration and no root.
    let (one, _) = system("oneconfig", &[("Watcher", watcher_only())], SmartAppOptions::default());
    assert_eq!(one.stats()["configurations"], 1);
    en.clear();
    one.enabled(&one.initial(), &mut en);
    assert!(!en.is_empty() && en.iter().all(|&c| !one.choice_name(c).starts_with("init.")));
}

fn watcher_only() -> String {
    app("Watcher", &[("contact1", "contactSensor")], ("contact1", "contact", "seen"), &["state.last = evt.value"])
}

/// Toggles the lock when its button is pushed (the user's command), as single-button-controller.
fn toggle() -> String {
    app(
        "Toggle",
        &[("door", "lock"), ("button1", "button")],
        ("button1", "button.pushed", "pushed"),
        &[r#"if (door.currentValue("lock") == "locked") { door.unlock() } else { door.lock() }"#],
    )
}

/// Locks the door again as soon as it is unlocked (an automation).
fn relock() -> String {
    app("Relock", &[("door", "lock")], ("door", "lock.unlocked", "relock"), &["door.lock()"])
}

/// Unlocks the door when a contact opens (an automation).
fn opener() -> String {
    app(
        "Opener",
        &[("door", "lock"), ("contact1", "contactSensor")],
        ("contact1", "contact.open", "opened"),
        &["door.unlock()"],
    )
}

#[test]
fn a_write_on_the_users_own_command_is_no_conflict_but_an_automation_undoing_it_is() {
    let opts = ENDING;
    // The user's command over an automation's write: Opener unlocked, the user pushes the
    // button and Toggle locks. The user's intent, no conflict (IoTCheck leaves such "manual"
    // writes out too). Opener unlocking again undoes the user's lock: a conflict.
    let (m, _) = system("manual", &[("Toggle", toggle()), ("Opener", opener())], opts);
    let mut s = m.initial();
    fire(&m, &mut s, "init.0").unwrap();
    fire(&m, &mut s, "contactSensor.contact.open").unwrap();
    fire(&m, &mut s, "button.button.pushed").expect("the user's command is no conflict");
    assert!(outcome(&m, &s).contains("lock.lock=locked"), "{}", outcome(&m, &s));
    let e = fire(&m, &mut s, "contactSensor.contact.open").expect_err("Opener undoes the user's lock");
    assert!(e.message.contains("Toggle wrote locked, Opener writes unlocked"), "{}", e.message);
    // A handler run by the change the user's command caused is an automation again: Relock
    // locks right after the user unlocked (nfc-tag-toggle with auto-lock-door).
    let (m, _) = system("manual2", &[("Toggle", toggle()), ("Relock", relock())], opts);
    let mut s = m.initial();
    fire(&m, &mut s, "init.0").unwrap();
    let e = fire(&m, &mut s, "button.button.pushed").expect_err("Relock undoes the user's unlock");
    assert!(e.message.contains("Toggle wrote unlocked, Relock writes locked"), "{}", e.message);
}

/// nfc-tag-toggle's shape: an optional master among options computed from the devices.
const MASTER: &str = r#"
definition(name: "Master", namespace: "t", author: "t")
preferences { section("s") {
    input "door", "capability.lock", multiple: true
    input "masterLock", "enum", title: "Master lock", options: door.collect{[(it.id)]}, required: false
    input "button1", "capability.button"
} }
def installed() { subscribe(button1, "button.pushed", pushed) }
def pushed(evt) {
    def status = masterLock ? door.find{"[" + it.id + "]" == masterLock}?.currentValue("lock") : door[0].currentValue("lock")
    if (status == "locked") { door.unlock() } else { door.lock() }
    def c = door[0].currentState("lock")
    if (c == "unlocked") { state.seen = "State compared with its value" }
}
"#;

#[test]
fn an_optional_enum_of_computed_options_is_unset_and_a_state_compares_by_its_value() {
    let (m, _) = system("master", &[("Master", MASTER)], SmartAppOptions::default());
    let mut s = m.initial();
    fire(&m, &mut s, "init.0").unwrap();
    fire(&m, &mut s, "button.button.pushed").unwrap();
    // Unset, the master is not looked for: the lock (locked) is toggled.
    let o = outcome(&m, &s);
    assert!(o.contains("lock.lock=unlocked"), "{o}");
    assert!(o.contains("seen=State compared with its value"), "{o}");
}

/// A handler that chooses by the button pressed, as hue-minimote, button-controller and 11
/// other apps of the corpus do: `evt.data` carries `buttonNumber` (button 1 of a one-button
/// device). With `{}` the number was null and the handler did nothing, silently.
const MINIMOTE: &str = r#"
definition(name: "Minimote", namespace: "t", author: "t")
preferences { section("s") {
    input "buttonDevice", "capability.button"
    input "lamp", "capability.switch"
} }
def installed() { subscribe(buttonDevice, "button", buttonEvent) }
def buttonEvent(evt) {
    def n = parseJson(evt.data)?.buttonNumber
    if ((1..4).contains(n)) {
        def meth = "handleButton" + n + evt.value.capitalize()
        "$meth"()
    }
}
def handleButton1Pushed() { lamp.on() }
def handleButton1Held() { lamp.off() }
"#;

#[test]
fn a_button_event_names_its_button_in_its_data() {
    let (m, _) = system("minimote", &[("Minimote", MINIMOTE)], SmartAppOptions::default());
    let mut s = m.initial();
    let pushed = m.event_names().into_iter().find(|e| e.ends_with("button.pushed")).expect("a pushed event");
    let held = m.event_names().into_iter().find(|e| e.ends_with("button.held")).expect("a held event");
    fire(&m, &mut s, &pushed).unwrap();
    assert!(outcome(&m, &s).contains("switch.switch=on"), "button 1 pushed turns the lamp on: {}", outcome(&m, &s));
    fire(&m, &mut s, &held).unwrap();
    assert!(outcome(&m, &s).contains("switch.switch=off"), "{}", outcome(&m, &s));
}
