//! Apps left out of the interleaving under `--conflicts` (src/model/smartapp/slice.rs): on
//! generated systems with apps that only read (tests/common/gen_smartapp.rs
//! `gen_system_with_readers`), `full` finds the same conflicts with the readers left out as with
//! every app interleaved (`keep_all_apps`), unbounded and under `--bound 1`. Where a reader
//! throws, the interleaved run stops at its exception and may miss conflicts behind it (a hub
//! would not: each app's handler runs apart), so there the conflicts interleaved must be among
//! those found with the readers left out.
//!
//! Shown able to fail (docs/smartapps.md): a planted bug that takes an app commanding devices
//! for a reader is caught here.

use crate::common;
use crate::common::apps;

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracepor::explore::{self, registry, Limits, Outcomes, Search, Stats};
use tracepor::model::smartapp::{self, SmartAppModel, SmartAppOptions};

use crate::common::gen_smartapp::gen_system_with_readers;

fn seeds() -> u64 {
    crate::common::size("TRACEPOR_SOUNDNESS_SEEDS", 60, 250)
}

/// `full` on `m`, within `max_states` states (a bound on work, not on time).
fn full(m: &SmartAppModel, max_states: u64) -> (Stats, Outcomes) {
    let mut s = registry::lookup("full").and_then(|e| e.build::<SmartAppModel>()).expect("full is registered");
    let limits = Limits { max_states: Some(max_states), ..Limits::default() };
    let search = Search::new(m, limits).with_cancel(Arc::new(AtomicBool::new(false)));
    let (stats, found, _) = explore::run_search(search, s.as_mut());
    (stats, found)
}

/// The distinct conflicts found: line and message (both apps, the attribute, both values).
fn conflicts(found: &Outcomes) -> BTreeSet<String> {
    found
        .errors()
        .filter(|f| f.error.kind == "conflict")
        .map(|f| format!("{}: {}", f.error.line, f.error.message))
        .collect()
}

fn exceptions(found: &Outcomes) -> usize {
    found.errors().filter(|f| f.error.kind == "exception").count()
}

#[test]
fn readers_left_out_change_no_conflict_under_full() {
    let (mut compared, mut sliced, mut with_conflicts, mut dead, mut thrown) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for seed in 0..seeds() / 2 {
        let apps = gen_system_with_readers(&mut SmallRng::seed_from_u64(seed));
        let files = apps::write::<String, String>(&format!("r{seed}"), &apps);
        for bound in [None, Some(1)] {
            let opts = SmartAppOptions { conflicts: true, bound, ..SmartAppOptions::default() };
            let left = smartapp::load(&files, opts).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let mut whole = smartapp::load(&files, opts).unwrap();
            whole.keep_all_apps();
            let (a, found_whole) = full(&whole, 20_000);
            let (b, found_left) = full(&left, 20_000);
            if !a.finished || !b.finished {
                continue;
            }
            compared += 1;
            let out = left.left_out();
            sliced += out.iter().any(|l| l.contains(": app ")) as usize;
            dead += out.iter().any(|l| l.starts_with("events reaching no app kept")) as usize;
            let (cw, cl) = (conflicts(&found_whole), conflicts(&found_left));
            with_conflicts += !cw.is_empty() as usize;
            let what = format!("seed {seed} bound {bound:?}: interleaved {cw:?}, readers left out {cl:?}\n{out:?}");
            if exceptions(&found_whole) > 0 {
                thrown += 1;
                if !cw.is_subset(&cl) {
                    failures.push(what);
                }
            } else if cw != cl {
                failures.push(what);
            }
        }
    }
    eprintln!(
        "{compared} runs compared: {sliced} with apps left out, {dead} with events not scheduled, \
         {with_conflicts} with conflicts, {thrown} where a reader threw"
    );
    assert!(failures.is_empty(), "{} runs differ:\n{}", failures.len(), failures.join("\n"));
    // The suite must exercise what it checks.
    let n = (seeds() / 2 * 2) as usize;
    assert!(compared * 2 >= n, "only {compared} of {n} runs finished");
    assert!(sliced * 2 >= compared, "apps were left out in only {sliced} of {compared} runs");
    assert!(with_conflicts * 4 >= compared, "only {with_conflicts} of {compared} runs with conflicts");
    assert!(dead > 0 && thrown > 0, "no run with events not scheduled ({dead}) or a reader throwing ({thrown})");
}

/// The corpus's loggers and groveStreams are left out; the apps that command devices are not;
/// an app that sends events (`sendEvent`, `sendLocationEvent`) is kept.
#[test]
fn loggers_are_left_out_and_writers_kept() {
    let dir = common::root().join("../shared/smartthings/smartapps");
    let app = |n: &str| dir.join(format!("{n}.groovy"));
    let opts = SmartAppOptions { conflicts: true, bound: None, ..SmartAppOptions::default() };
    for reader in ["groveStreams", "initial-state-event-streamer", "unbuffered-event-sender"] {
        let m = smartapp::load(&[app("FireCO2Alarm"), app(reader)], opts).unwrap();
        let out = m.left_out();
        assert!(out.iter().any(|l| l.contains(&format!("app {reader} "))), "{reader} kept: {out:?}");
        assert!(!out.iter().any(|l| l.contains("app FireCO2Alarm ")), "FireCO2Alarm left out: {out:?}");
        let mut whole = smartapp::load(&[app("FireCO2Alarm"), app(reader)], opts).unwrap();
        whole.keep_all_apps();
        assert!(whole.left_out().is_empty());
    }
    // Without --conflicts nothing is left out.
    let m = smartapp::load(&[app("groveStreams")], SmartAppOptions::default()).unwrap();
    assert!(m.left_out().is_empty());
    let tmp = apps::write::<String, String>(
        "senders",
        &[
            (
                "sender".into(),
                "input \"t\", \"capability.temperatureMeasurement\"\n\
                 def installed() { subscribe(t, \"temperature\", h) }\n\
                 def h(evt) { sendLocationEvent(name: \"alert\", value: evt.value) }\n"
                    .into(),
            ),
            (
                "logger".into(),
                "input \"t\", \"capability.temperatureMeasurement\"\n\
                 def installed() { subscribe(t, \"temperature\", h) }\n\
                 def h(evt) { state.last = evt.value }\n"
                    .into(),
            ),
        ],
    );
    let m = smartapp::load(&tmp, opts).unwrap();
    let out = m.left_out();
    assert!(out.iter().any(|l| l.contains("app logger ")), "{out:?}");
    assert!(!out.iter().any(|l| l.contains("app sender ")), "{out:?}");

    // The events a logger alone subscribes to stay scheduled when a kept app reads their
    // attribute, by any of the names the interpreter reads it by; else they are not scheduled.
    for (read, live) in [
        ("c.currentContact == \"open\"", true),
        ("c.contactState.value == \"open\"", true),
        ("c.currentValue(\"contact\") == \"open\"", true),
        ("c.currentValue(\"con\" + \"tact\") == \"open\"", true),
        ("c.latestValue(\"contact\") == \"open\"", true),
        ("c.currentValue(\"battery\") == \"5\"", false),
        ("true", false),
    ] {
        let tmp = apps::write::<String, String>(
            "names",
            &[
                (
                    "kept".into(),
                    format!(
                        "input \"c\", \"capability.contactSensor\"\ninput \"s\", \"capability.switch\"\n\
                         def installed() {{ subscribe(s, \"switch\", h) }}\n\
                         def h(evt) {{ if ({read}) {{ s.off() }} }}\n"
                    ),
                ),
                (
                    "logger".into(),
                    "input \"c\", \"capability.contactSensor\"\n\
                     def installed() { subscribe(c, \"contact\", h) }\n\
                     def h(evt) { state.last = evt.value }\n"
                        .into(),
                ),
            ],
        );
        let m = smartapp::load(&tmp, opts).unwrap();
        let out = m.left_out().join("\n");
        assert!(out.contains("app logger "), "{out}");
        assert_eq!(!out.contains("contactSensor.contact.open"), live, "{read}: {out}");
    }
}
