//! Inputs with computed names (src/model/smartapp/computed_names.rs): generated apps declare
//! their per-button inputs in a section method that page methods call with constant arguments
//! (`def p1() { dynamicPage(name: "p1", sections(1)) }`, `input "mode_${n}_pushed", "mode"`),
//! and their handlers read them by computed names (`settings["mode_" + k + "_pushed"]`,
//! `settings."sw_$k"`), with the button number taken from the event's `data`. Every strategy
//! registered for SmartApps is compared with the exhaustive search (tests/it/soundness.rs's
//! `check_generated_seeds`), findings equal, with and without conflicts, under a bound and with
//! the mode alone; the mode inputs so declared are factors of the configurations
//! (choices.rs), so the systems also vary what the inputs hold.
//!
//! Runs are budgeted by states and transitions, never by time. `TRACEPOR_COMPUTED_SEEDS=n` sets
//! the seeds (default 8; a soundness campaign sets more).
//!
//! Shown able to fail: with a planted bug in `Envs::names` (each name folded in the first
//! environment of its method only, so that the inputs of buttons 2 and 3 went unbound),
//! `computed_inputs_are_bound` failed at once; the planted bug was then removed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tracepor::model::smartapp::{self, SmartAppModel};
use tracepor::model::{ConflictMode, ConflictScope, Model};

use crate::common::apps;
use crate::soundness::{check_generated_seeds, smartapp_options};

fn seeds() -> u64 {
    crate::common::size("TRACEPOR_COMPUTED_SEEDS", 3, 8)
}

const MODES: [&str; 3] = ["home", "away", "night"];
const MODE: ConflictScope = ConflictScope::of(&["location.mode"]);

/// Two or three button controllers: each declares, through a section method its two or three page
/// methods call with constant numbers, a switch, a mode and (sometimes) a level per button; a
/// button's event (its `data` names button 1) or the app's touch runs a handler that picks the
/// button by a regex `case`, then reads the inputs by computed names and acts.
fn gen_computed_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    (0..rng.gen_range(2..=3)).map(|i| (format!("computed{i}"), gen_app(rng, i))).collect()
}

fn gen_app(rng: &mut SmallRng, index: usize) -> String {
    let buttons = rng.gen_range(2..=3);
    let mut src = format!("definition(name: \"Computed{index}\", namespace: \"gen\", author: \"tracepor tests\")\n");
    src.push_str("preferences {\n    page(name: \"first\")\n");
    for b in 1..=buttons {
        src.push_str(&format!("    page(name: \"p{b}\")\n"));
    }
    src.push_str("}\n");
    src.push_str(
        "def first() {\n    dynamicPage(name: \"first\") {\n        section {\n            input \"button1\", \"capability.button\"\n        }\n    }\n}\n",
    );
    for b in 1..=buttons {
        src.push_str(&format!(
            "def p{b}() {{\n    dynamicPage(name: \"p{b}\", title: \"Button {b}\", sections({b}))\n}}\n"
        ));
    }
    let default = MODES[rng.gen_range(0..3)];
    src.push_str(&format!(
        "def sections(n) {{\n    return {{\n        section(\"Button\") {{\n            input \"sw_${{n}}\", \"capability.switch\", multiple: true, required: false\n            input \"mode_${{n}}_pushed\", \"mode\", required: false, defaultValue: \"{default}\"\n            input \"on_\" + n, \"bool\", required: false, defaultValue: {}\n        }}\n    }}\n}}\n",
        rng.gen_bool(0.5)
    ));
    let touch = rng.gen_bool(0.5);
    src.push_str("def installed() {\n    subscribe(button1, \"button\", pressed)\n");
    if touch {
        src.push_str("    subscribe(app, touched)\n");
    }
    src.push_str("}\n");
    src.push_str("def pressed(evt) {\n    def recent = button1.eventsSince(new Date(now() - 3000))\n    if (recent.size() <= 1) {\n        switch (evt.data) {\n");
    for b in 1..=buttons {
        src.push_str(&format!(
            "            case ~/.*{b}.*/:\n                act({b}, evt.value)\n                break\n"
        ));
    }
    src.push_str("        }\n    }\n}\n");
    if touch {
        src.push_str(&format!("def touched(evt) {{\n    act({}, \"pushed\")\n}}\n", rng.gen_range(1..=buttons)));
    }
    src.push_str("def act(k, value) {\n    def mode = settings[\"mode_\" + k + \"_\" + value]\n");
    src.push_str("    if (mode != null && location.mode != mode) {\n        setLocationMode(mode)\n    }\n");
    src.push_str("    def lights = settings.\"sw_$k\"\n    if (lights != null) {\n");
    match rng.gen_range(0..3) {
        0 => src.push_str("        if (settings[\"on_$k\"]) { lights.on() } else { lights.off() }\n"),
        1 => src.push_str("        if (location.mode == \"away\") { lights.off() } else { lights.on() }\n"),
        _ => src.push_str("        lights.on()\n"),
    }
    src.push_str("    }\n}\n");
    src
}

/// The inputs a generated app declares through its section method are bound (none reported not
/// bound), and its handlers reach them: the per-button mode inputs are factors of the
/// configurations, and a button's event writes.
#[test]
fn computed_inputs_are_bound() {
    for seed in 0..seeds() {
        let apps = gen_computed_system(&mut SmallRng::seed_from_u64(seed));
        let files = apps::write(&format!("computed-bound{seed}"), &apps);
        let m: SmartAppModel =
            smartapp::load(&files, smartapp_options(true, None, ConflictMode::Observe, None)).expect("loads");
        let unbound: Vec<String> = m.unsupported().into_iter().filter(|u| u.contains("not bound")).collect();
        assert!(unbound.is_empty(), "seed {seed}: {unbound:?}");
        for (i, (_, src)) in apps.iter().enumerate() {
            let buttons = src.matches("page(name: \"p").count();
            for b in 1..=buttons {
                for name in [format!("sw_{b}"), format!("mode_{b}_pushed"), format!("on_{b}")] {
                    assert!(m.has_input(i, &name), "seed {seed}: app {i} has no input {name}");
                }
            }
        }
    }
}

/// A section method called with an argument computed at run time declares inputs whose names
/// cannot be folded: reported with the line, not bound.
#[test]
fn unfoldable_names_are_reported() {
    let src = "definition(name: \"U\", namespace: \"gen\", author: \"t\")\npreferences { page(name: \"p\") }\n\
def p() {\n    dynamicPage(name: \"p\", sections(now()))\n}\n\
def sections(n) {\n    return {\n        section { input \"sw_${n}\", \"capability.switch\" }\n    }\n}\n\
def installed() {}\n";
    let files = apps::write("computed-unfoldable", &[("u".to_string(), src.to_string())]);
    let m = smartapp::load(&files, smartapp_options(true, None, ConflictMode::Observe, None)).expect("loads");
    assert!(
        m.unsupported()
            .iter()
            .any(|u| u.contains(":8: an `input` whose name is computed from an argument not constant at line 4")),
        "{:?}",
        m.unsupported()
    );
}

/// Every strategy against the exhaustive search on the generated button controllers.
#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_computed_inputs() {
    let options = [
        ("", smartapp_options(false, None, ConflictMode::Observe, None)),
        ("--conflicts", smartapp_options(true, None, ConflictMode::Observe, None)),
        ("--conflicts --conflict-mode end", smartapp_options(true, None, ConflictMode::End, None)),
        ("--conflicts --bound 1", smartapp_options(true, Some(1), ConflictMode::Observe, None)),
        ("--conflicts-on location.mode", smartapp_options(true, None, ConflictMode::Observe, Some(MODE))),
    ];
    let (_, finished, rich) = check_generated_seeds("computed", gen_computed_system, &options, seeds());
    assert!(rich > 0, "no generated variant of {finished} has more than one finding");
}
