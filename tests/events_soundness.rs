//! Randomized soundness: on hundreds of generated small event models, `stateful-dpor` (with
//! summaries, and with the literal Algorithms 3 and 5) reports exactly the errors and
//! nothing-enabled states of an exhaustive stateful search (the test's own, cross-checked with
//! the project's `full`), with schedules that replay to what they claim.

mod events_common;

use events_common::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tracepor::explore::stateful_dpor::StatefulDpor;
use tracepor::model::events::EventOptions;

const INT_VARS: [&str; 3] = ["x", "y", "z"];
const SYMS: [&str; 3] = ["on", "off", "idle"];

fn int_atom(r: &mut SmallRng) -> String {
    match r.gen_range(0..3) {
        0 => r.gen_range(0..3).to_string(),
        _ => INT_VARS[r.gen_range(0..INT_VARS.len())].to_string(),
    }
}

fn cond(r: &mut SmallRng) -> String {
    match r.gen_range(0..5) {
        0 => format!("{} == {}", int_atom(r), int_atom(r)),
        1 => format!("{} < {}", int_atom(r), int_atom(r)),
        2 => format!("mode == \"{}\"", SYMS[r.gen_range(0..3)]),
        3 => format!("{} != 0 && {} == 1", int_atom(r), int_atom(r)),
        _ => format!("{} == 0 || mode != \"{}\"", int_atom(r), SYMS[r.gen_range(0..3)]),
    }
}

/// A statement; values stay within 0..3 so that the state space is finite (and often cyclic).
fn stmt(r: &mut SmallRng, events: usize, depth: u32) -> String {
    let v = INT_VARS[r.gen_range(0..INT_VARS.len())];
    match r.gen_range(0..12) {
        0 | 1 => format!("{v} = {}", r.gen_range(0..3)),
        2 | 3 => format!("{v} = ({v} + 1) % 3"),
        4 => format!("{v} = {} % 3", int_atom(r)),
        5 => format!("mode = \"{}\"", SYMS[r.gen_range(0..3)]),
        6 if depth < 2 => {
            let els =
                if r.gen_bool(0.5) { format!(" else {{ {} }}", stmt(r, events, depth + 1)) } else { String::new() };
            format!("if {} {{ {} }}{els}", cond(r), stmt(r, events, depth + 1))
        }
        7 => format!("enable e{}", r.gen_range(0..events)),
        8 => format!("disable e{}", r.gen_range(0..events)),
        9 if r.gen_bool(0.3) => format!("assert !({}) \"bad{}\"", cond(r), r.gen_range(0..100)),
        10 if r.gen_bool(0.2) => format!("{v} = 2 / {} % 3", int_atom(r)),
        _ => format!("{v} = {}", int_atom(r)),
    }
}

/// A model of `events` events spread over two apps (so conflicts can arise).
pub fn gen_model(r: &mut SmallRng) -> String {
    let events = r.gen_range(2..=5);
    let mut text = String::from("model events\n");
    for v in INT_VARS {
        text.push_str(&format!("var {v} = {}\n", r.gen_range(0..3)));
    }
    text.push_str("var mode = \"idle\"\n");
    for e in 0..events {
        if r.gen_bool(0.2) {
            text.push_str(&format!("event e{e} disabled\n"));
        } else {
            text.push_str(&format!("event e{e}\n"));
        }
    }
    for app in ["A", "B"] {
        text.push_str(&format!("app {app} {{\n"));
        for e in 0..events {
            if r.gen_bool(0.6) {
                text.push_str(&format!("  on e{e} {{\n"));
                for _ in 0..r.gen_range(1..=3) {
                    text.push_str(&format!("    {}\n", stmt(r, events, 0)));
                }
                text.push_str("  }\n");
            }
        }
        text.push_str("}\n");
    }
    text
}

fn check_one(text: &str, opts: EventOptions, seed: u64) -> (u64, u64) {
    let m = model(text, opts);
    let (full_stats, full) = explore(&m, &mut Exhaustive);
    let expected = findings(&full);
    // The project's own `full` is a second oracle: both exhaustive searches must agree.
    let (_, project_full) = explore(&m, &mut tracepor::explore::full::Full);
    assert_eq!(findings(&project_full), expected, "seed {seed}: the two exhaustive searches differ");
    let mut strategies = vec![("summaries", StatefulDpor::new())];
    // The literal path-set DFS of Algorithm 5 is exponential in the graph's size: only on small ones.
    if full_stats.unique_transitions.unwrap() <= 24 {
        strategies.push(("literal", StatefulDpor { no_summaries: true, ..StatefulDpor::default() }));
    }
    for (label, mut strategy) in strategies {
        let (stats, found) = explore(&m, &mut strategy);
        assert!(stats.finished, "seed {seed} {label}: did not finish");
        assert_eq!(findings(&found), expected, "seed {seed} {label} {opts:?}: findings differ on\n{text}");
        schedules_replay(&m, &found);
        // Deadlock schedules must lead to the state they name.
        for (outcome, schedule) in found.deadlock_schedules() {
            let mut s = tracepor::model::Model::initial(&m);
            for &c in schedule {
                tracepor::model::Model::step(&m, &mut s, c).expect("deadlock schedule replays");
            }
            assert_eq!(tracepor::model::Model::outcome(&m, &s).text, outcome);
        }
        assert!(stats.states.unwrap() <= full_stats.states.unwrap());
    }
    (full_stats.states.unwrap(), 0)
}

#[test]
fn stateful_dpor_agrees_with_exhaustive_search_on_random_models() {
    let mut with_errors = 0;
    let mut with_deadlocks = 0;
    let n: u64 = std::env::var("SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(400);
    for seed in 0..n {
        if std::env::var("VERBOSE").is_ok() {
            eprintln!("seed {seed}");
        }
        let mut r = SmallRng::seed_from_u64(seed);
        let text = gen_model(&mut r);
        if std::env::var("DUMP").is_ok() {
            std::fs::write(format!("/tmp/seed{seed}.events"), &text).ok();
        }
        let opts = match seed % 4 {
            0 => EventOptions { conflicts: false, bound: None },
            1 => EventOptions { conflicts: true, bound: None },
            2 => EventOptions { conflicts: false, bound: Some(2) },
            _ => EventOptions { conflicts: true, bound: Some(1) },
        };
        let m = model(&text, opts);
        let (_, o) = explore(&m, &mut Exhaustive);
        with_errors += (o.error_count() > 0) as u32;
        with_deadlocks += (o.deadlocks() > 0) as u32;
        check_one(&text, opts, seed);
    }
    // The generator must actually exercise both kinds of findings, or the suite proves little.
    assert!(with_errors > 40, "only {with_errors} models with errors");
    assert!(with_deadlocks > 40, "only {with_deadlocks} models with nothing-enabled states");
}
