//! The location mode as a shared attribute of the home (docs/location-mode.md): two apps'
//! writes of the mode conflict as two writes of a device attribute do, unless the later one is
//! made on the user's direct command; every way an app sets the mode is a write; the modes a
//! person picks (mode inputs, routines) are varied by the configurations; the conflicts are
//! reported in text, JSON and HTML, under every strategy, and replay.
//!
//! Shown able to fail: with `switch` taken out of the user's own actions (`devices.rs`,
//! `user_action`), `switch_flips_and_what_an_app_flips_on_the_users_command_are_direct` and
//! `the_studys_pairs_keep_their_verdicts` fail (the study's Direct-direct pairs of
//! switch-changes-mode conflict); with the row of picks left out of the state's last word (its
//! encoding and its packing), every test of this file fails: `monitors`, the default, unpacks
//! each state with the first row, where every input has its default.

use crate::common::apps;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use tracepor::model::smartapp::{self, SmartAppOptions};
use tracepor::model::Model;

fn tracepor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// An app with a switch, a contact sensor, a button and a mode input `newMode` (and a routine
/// input `phrase`), whose handler `h` runs `body` on `trigger` (`subscribe(...)` text).
fn writer(name: &str, trigger: &str, body: &[&str]) -> String {
    let mut src = format!(
        "definition(name: \"{name}\", namespace: \"t\", author: \"t\")\npreferences {{ page(name: \"p\") }}\n\
         def p() {{\n    def phrases = location.helloHome?.getPhrases()*.label\n    dynamicPage(name: \"p\") {{\n        section(\"s\") {{\n\
         input \"sw\", \"capability.switch\"\n input \"contact1\", \"capability.contactSensor\"\n input \"button1\", \"capability.button\"\n\
         input \"newMode\", \"mode\", title: \"Mode?\"\n input \"phrase\", \"enum\", required: false, options: phrases\n        }}\n    }}\n}}\n\
         def installed() {{ {trigger} }}\ndef h(evt) {{\n"
    );
    for line in body {
        src.push_str(&format!("    {line}\n"));
    }
    src.push_str("}\ndef later() { setLocationMode(newMode) }\n");
    src
}

const ON_CONTACT: &str = "subscribe(contact1, \"contact.open\", h)";
const ON_TOUCH: &str = "subscribe(app, h)";
const ON_BUTTON: &str = "subscribe(button1, \"button.pushed\", h)";
const ON_SWITCH: &str = "subscribe(sw, \"switch\", h)";

/// The mode conflicts `check --json` reports for `apps` with `args` (strategy, options), as
/// (earlier app, later app) pairs, and the JSON document.
fn mode_conflicts(
    tag: &str,
    apps: &[(&str, String)],
    args: &[&str],
) -> (BTreeSet<(String, String)>, serde_json::Value) {
    let files = apps::write(tag, apps);
    let mut all: Vec<&str> = vec!["check"];
    all.extend(files.iter().map(|f| f.to_str().unwrap()));
    all.extend(["--json", "--no-progress"]);
    all.extend(args);
    let (code, out, err) = tracepor(&all);
    assert!(code == 0 || code == 1, "exit {code}: {err}\n{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let pairs = doc["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "conflict" && e["conflict"]["variable"] == "location.mode")
        .map(|e| (e["conflict"]["last_app"].as_str().unwrap().into(), e["conflict"]["app"].as_str().unwrap().into()))
        .collect();
    (pairs, doc)
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

/// The strategies registered for SmartApps under `--conflicts` that this file compares.
const STRATEGIES: [&str; 3] = ["full", "stateful-dpor", "monitors"];

#[test]
fn a_picked_mode_input_makes_two_writers_disagree() {
    // Each sets the mode to its own input: with one value for both no write could conflict.
    let apps = [
        ("Leaver", writer("Leaver", ON_CONTACT, &["setLocationMode(newMode)"])),
        ("Sleeper", writer("Sleeper", "subscribe(contact1, \"contact.closed\", h)", &["location.setMode(newMode)"])),
    ];
    for s in STRATEGIES {
        let (found, doc) = mode_conflicts(&format!("picked-{s}"), &apps, &["--conflicts", "--strategy", s]);
        assert_eq!(found, BTreeSet::from([pair("Leaver", "Sleeper"), pair("Sleeper", "Leaver")]), "{s}: {doc}");
        for e in doc["errors"].as_array().unwrap() {
            let c = &e["conflict"];
            assert_ne!(c["value"], c["last_value"], "{e}");
            // Reported like a device's: both apps, the location, both writes' places.
            let message = e["message"].as_str().unwrap();
            assert!(message.contains("both write `mode` of the location"), "{message}");
            assert!(e["at"].as_str().unwrap().contains(".groovy:"), "{e}");
            assert!(e["last_at"].as_str().unwrap().contains(".groovy:"), "{e}");
            assert!(e["schedule"].as_str().unwrap().starts_with("init."), "{e}");
        }
    }
    // The configurations pick every pair of the two inputs' modes (at least 3 x 3).
    let files = apps::write("picked-lib", &apps);
    let m = smartapp::load(&files, SmartAppOptions { conflicts: true, ..Default::default() }).unwrap();
    assert!(m.stats()["configurations"] >= 9, "{:?}", m.stats());
}

#[test]
fn direct_writes_never_conflict_and_an_automatic_write_over_one_does() {
    let touch = ("Touch", writer("Touch", ON_TOUCH, &["setLocationMode(newMode)"]));
    let button = ("Button", writer("Button", ON_BUTTON, &["location.mode = newMode"]));
    let auto = ("Auto", writer("Auto", ON_CONTACT, &["setLocationMode(newMode)"]));
    for s in STRATEGIES {
        let args = ["--conflicts", "--strategy", s];
        // Direct-direct: each is the person's own command.
        let (found, doc) = mode_conflicts(&format!("dd-{s}"), &[touch.clone(), button.clone()], &args);
        assert!(found.is_empty(), "{s}: {doc}");
        // App-direct: only the automatic write over the person's conflicts; the earlier write
        // is marked direct in the report.
        let (found, doc) = mode_conflicts(&format!("ad-{s}"), &[touch.clone(), auto.clone()], &args);
        assert_eq!(found, BTreeSet::from([pair("Touch", "Auto")]), "{s}: {doc}");
        let e = &doc["errors"][0];
        assert!(e["last_at"].as_str().unwrap().contains("direct: the user's own command"), "{e}");
    }
}

#[test]
fn switch_flips_and_what_an_app_flips_on_the_users_command_are_direct() {
    let by_switch = ("BySwitch", writer("BySwitch", ON_SWITCH, &["setLocationMode(newMode)"]));
    // A tap that turns the switch on and sets the mode: the switch app follows the person.
    let tap = ("Tap", writer("Tap", ON_TOUCH, &["sw.on()", "setLocationMode(newMode)"]));
    let (found, doc) = mode_conflicts("flip-direct", &[tap, by_switch.clone()], &["--conflicts-on", "location.mode"]);
    assert!(found.is_empty(), "{doc}");
    // The same switch turned on by an automation: the switch app's write is automatic.
    let sensor = ("Sensor", writer("Sensor", ON_CONTACT, &["setLocationMode(newMode)", "sw.on()"]));
    let (found, doc) = mode_conflicts("flip-auto", &[sensor, by_switch], &["--conflicts-on", "location.mode"]);
    assert!(found.contains(&pair("Sensor", "BySwitch")), "{doc}");
}

#[test]
fn a_timer_set_on_the_users_command_runs_as_an_automation() {
    let touch = ("Touch", writer("Touch", ON_TOUCH, &["setLocationMode(newMode)"]));
    // The button's handler sets the mode at once: the person's command, no conflict ...
    let now = ("Now", writer("Now", ON_BUTTON, &["setLocationMode(newMode)"]));
    let (found, doc) = mode_conflicts("timer-now", &[touch.clone(), now], &["--conflicts"]);
    assert!(found.is_empty(), "{doc}");
    // ... but a minute later, by a timer it set, it is the app's own doing.
    let later = ("Later", writer("Later", ON_BUTTON, &["runIn(60, later)"]));
    let (found, doc) = mode_conflicts("timer-later", &[touch, later], &["--conflicts"]);
    assert!(found.contains(&pair("Touch", "Later")), "{doc}");
}

#[test]
fn every_way_an_app_sets_the_mode_is_a_write() {
    let other =
        ("Other", writer("Other", "subscribe(contact1, \"contact.closed\", h)", &["setLocationMode(\"night\")"]));
    let forms: [(&str, &[&str]); 5] = [
        ("set", &["setLocationMode(newMode)"]),
        ("method", &["location.setMode(newMode)"]),
        ("assign", &["location.mode = newMode"]),
        ("routine", &["location.helloHome?.execute(phrase)"]),
        ("guarded", &["if (location.mode != newMode) { setLocationMode(newMode) }"]),
    ];
    for (tag, body) in forms {
        let app = ("Form", writer("Form", ON_CONTACT, body));
        let (found, doc) = mode_conflicts(&format!("form-{tag}"), &[app.clone(), other.clone()], &["--conflicts"]);
        assert!(found.contains(&pair("Form", "Other")) && found.contains(&pair("Other", "Form")), "{tag}: {doc}");
        // Under the study's definition a routine changes no mode.
        let (found, doc) = mode_conflicts(
            &format!("form-{tag}-keep"),
            &[app, other.clone()],
            &["--conflicts", "--routines-keep-mode"],
        );
        assert_eq!(found.is_empty(), tag == "routine", "{tag}: {doc}");
    }
}

#[test]
fn the_scope_names_the_mode_and_the_reports_show_it() {
    let apps = [
        ("Leaver", writer("Leaver", ON_CONTACT, &["setLocationMode(newMode)", "sw.on()"])),
        (
            "Sleeper",
            writer("Sleeper", "subscribe(contact1, \"contact.closed\", h)", &["setLocationMode(newMode)", "sw.off()"]),
        ),
    ];
    let variables = |doc: &serde_json::Value| -> BTreeSet<String> {
        doc["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["conflict"]["variable"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, all) = mode_conflicts("scope-all", &apps, &["--conflicts"]);
    assert_eq!(variables(&all), BTreeSet::from(["location.mode".to_string(), "switch.switch".to_string()]));
    for name in ["location.mode", "mode"] {
        let (_, doc) = mode_conflicts(&format!("scope-{name}"), &apps, &["--conflicts-on", name]);
        assert_eq!(variables(&doc), BTreeSet::from(["location.mode".to_string()]), "{name}");
    }
    let (_, doc) = mode_conflicts("scope-switch", &apps, &["--conflicts-on", "switch"]);
    assert_eq!(variables(&doc), BTreeSet::from(["switch.switch".to_string()]));
    // Text and HTML; the replay line repeats the options and replays the conflict.
    let files = apps::write("scope-text", &apps);
    let (a, b) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let html = std::env::temp_dir().join(format!("tracepor-mode-{}.html", std::process::id()));
    let args = ["check", a, b, "--conflicts-on", "location.mode", "--routines-keep-mode", "--no-progress"];
    let (code, text, _) = tracepor(&[&args[..], &["--html", html.to_str().unwrap()]].concat());
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("both write `mode` of the location"), "{text}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("location") && page.contains("mode") && page.contains("Leaver"),
        "no mode conflict in the page"
    );
    let line = text.lines().find(|l| l.contains("tracepor replay")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("--routines-keep-mode") && line.contains("--conflicts-on location.mode"), "{line}");
    let schedule = line.split("--schedule ").nth(1).unwrap().split_whitespace().next().unwrap().trim_matches('\'');
    let (code, replayed, _) =
        tracepor(&["replay", a, b, "--conflicts-on", "location.mode", "--routines-keep-mode", "--schedule", schedule]);
    assert_eq!(code, 1, "{replayed}");
    assert!(replayed.contains("`mode` of the location") && replayed.contains("picked:"), "{replayed}");
    let (code, _, err) = tracepor(&["check", a, b, "--conflicts-on", "modes"]);
    assert_eq!(code, 2);
    assert!(err.contains("`modes`"), "{err}");
}

fn corpus_app(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/smartthings/smartapps").join(format!("{name}.groovy"))
}

/// Pairs of the FSE 2020 study's global-variable category whose apps the model runs as the
/// study describes them, with the label's verdict (App-app and App-direct write-write are
/// conflicts; Direct-direct is not), under the study's definition of routines.
#[test]
fn the_studys_pairs_keep_their_verdicts() {
    let pairs = [
        ("good-night", "scheduled-mode-change", true),       // App-app write-write
        ("good-night-house", "scheduled-mode-change", true), // App-direct write-write
        ("switch-changes-mode", "rise-and-shine", true),     // App-direct write-write
        ("good-night-house", "switch-changes-mode", false),  // Direct-direct write-write
        ("single-button-controller", "Switches", false),     // Direct-direct write-write
        ("switch-activates-home-phrase-or-mode", "Switches", false), // Direct-direct write-write
        ("good-night", "hello-home-phrase-director", false), // App write-read
    ];
    for (a, b, conflict) in pairs {
        let (x, y) = (corpus_app(a), corpus_app(b));
        let args = ["check", x.to_str().unwrap(), y.to_str().unwrap(), "--json", "--no-progress"];
        let (_, out, err) =
            tracepor(&[&args[..], &["--conflicts-on", "location.mode", "--routines-keep-mode"]].concat());
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{a} {b}: {e} {err}"));
        assert!(doc["finished"].as_bool().unwrap(), "{a} {b}");
        let found = !doc["errors"].as_array().unwrap().is_empty();
        assert_eq!(found, conflict, "{a} + {b}: {}", doc["errors"]);
    }
}
