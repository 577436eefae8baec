//! The random event-model generator of the soundness suites (tests/events_soundness.rs,
//! tests/events_dpor_bounded.rs): small models over three integer variables and one symbol,
//! two apps, with branches, enable/disable, asserts and divisions.

use rand::rngs::SmallRng;
use rand::Rng;

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
