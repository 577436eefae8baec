//! The values a person picks for inputs (src/model/smartapp/choices.rs) on generated systems
//! whose handlers branch on them: bool inputs (a boolean or text default), enums with literal
//! options (required or not), number thresholds compared with a humidity sensor's events, an
//! optional text tested for presence, and a mode input written as the mode. Every strategy
//! registered for SmartApps must find exactly the errors (conflicts, exceptions) the
//! exhaustive search finds, under `--conflicts` (observed and ending the path), under a
//! bound, and without conflicts: each configuration row installs the apps with its picks, and
//! a strategy that loses a row, or reads a pick differently, finds fewer or other conflicts.
//!
//! Shown able to fail: the row of picks planted out of the state's encoding (`SmartState`'s
//! root word without `picks`, so that a stateful strategy takes states of two rows for one
//! another) gave 336 unsound runs ("choices seed 0: monitors --conflicts --bound 1: lost [...]").
//! A configuration choice planted without its accesses (`initial.rs` `configure`) passed: the
//! configurations disable one another at the root, which every strategy already reads as
//! dependence.
//!
//! Runs are budgeted by states, never by time. The seeds are a third of the soundness suite's
//! (`TRACEPOR_SOUNDNESS_SEEDS`, `common::size`), at least 10.

use rand::rngs::SmallRng;
use rand::Rng;
use tracepor::model::smartapp::SmartAppOptions;
use tracepor::model::ConflictMode;

use crate::soundness::{check_generated_seeds, smartapp_options};

/// Load options under which every strategy is checked on these systems.
const CHOICE_OPTIONS: [(&str, SmartAppOptions); 5] = [
    ("", smartapp_options(false, None, ConflictMode::Observe, None)),
    ("--conflicts", smartapp_options(true, None, ConflictMode::Observe, None)),
    ("--conflicts --conflict-mode end", smartapp_options(true, None, ConflictMode::End, None)),
    ("--conflicts --bound 1", smartapp_options(true, Some(1), ConflictMode::Observe, None)),
    // IoTCheck's configuration: only the modes an app sets vary.
    (
        "--conflicts --fixed-inputs",
        SmartAppOptions { fixed_inputs: true, ..smartapp_options(true, None, ConflictMode::Observe, None) },
    ),
];

/// Two or three apps on one switch and one humidity sensor, each branching on its inputs.
pub fn gen_choice_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    (0..rng.gen_range(2..=3)).map(|i| (format!("choice{i}"), gen_choice_app(rng, i))).collect()
}

fn gen_choice_app(rng: &mut SmallRng, index: usize) -> String {
    let flag_default = ["", ", defaultValue: false", ", defaultValue: \"true\"", ", defaultValue: \"false\""];
    let kind_required = if rng.gen_bool(0.5) { "required: true" } else { "required: false" };
    let mut src = format!(
        "definition(name: \"Choice{index}\", namespace: \"gen\", author: \"tracepor tests\")\n\
         preferences {{\n    section(\"s\") {{\n\
         \x20       input \"sw\", \"capability.switch\"\n\
         \x20       input \"hum\", \"capability.relativeHumidityMeasurement\"\n\
         \x20       input \"flag\", \"bool\", title: \"On?\"{}\n\
         \x20       input \"kind\", \"enum\", {kind_required}, options: [\"low\", \"high\", \"off\"]\n\
         \x20       input \"limit\", \"number\", title: \"Limit\"\n\
         \x20       input \"label\", \"text\", required: false\n\
         \x20       input \"newMode\", \"mode\", title: \"Mode\"\n\
         \x20   }}\n}}\n",
        flag_default[rng.gen_range(0..flag_default.len())]
    );
    src.push_str("def installed() {\n    subscribe(hum, \"humidity\", h0)\n");
    if rng.gen_bool(0.5) {
        src.push_str("    subscribe(app, h1)\n");
    }
    src.push_str("}\n");
    let guards = [
        "flag",
        "!flag",
        "kind == \"high\"",
        "kind == \"low\" || kind == \"off\"",
        "flag && kind == \"high\"",
        "label",
        "!label && flag",
        "humidity >= limit",
        "humidity <= limit",
        "humidity >= limit && flag",
    ];
    let actions = ["sw.on()", "sw.off()", "setLocationMode(newMode)", "state.seen = kind"];
    for h in 0..2 {
        src.push_str(&format!("def h{h}(evt) {{\n    def humidity = hum.currentHumidity\n"));
        if h == 0 {
            src.push_str("    humidity = evt.value.toInteger()\n");
        }
        for _ in 0..rng.gen_range(1..=2) {
            let g = guards[rng.gen_range(0..guards.len())];
            let a = actions[rng.gen_range(0..actions.len())];
            let b = actions[rng.gen_range(0..actions.len())];
            if rng.gen_bool(0.5) {
                src.push_str(&format!("    if ({g}) {{\n        {a}\n    }} else {{\n        {b}\n    }}\n"));
            } else {
                src.push_str(&format!("    if ({g}) {{\n        {a}\n    }}\n"));
            }
        }
        src.push_str("}\n");
    }
    src
}

#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_apps_that_branch_on_inputs() {
    let n = (crate::soundness::seeds() / 3).max(10);
    let (_, finished, rich) = check_generated_seeds("choices", gen_choice_system, &CHOICE_OPTIONS, n);
    assert!(rich * 3 >= finished, "only {rich} of {finished} choice variants have more than one finding");
}
