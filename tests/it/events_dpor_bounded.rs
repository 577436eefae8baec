//! `dpor` and `dpor-sleep` on bounded event models: on generated models (the generator of
//! tests/events_soundness.rs), with and without `--conflicts`, under `--bound 1` and `--bound 2`,
//! its outcome set (errors and nothing-enabled states) equals `full-stateless`'s and `full`'s,
//! and its schedules replay to what they claim. `SEEDS=n` sets how many seeds (300 at the CI
//! size, 50 at the quick size; the ignored test runs 3,000 from another range).

use crate::events_common::gen::gen_model;
use crate::events_common::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracepor::explore::dpor_events::DporEvents;
use tracepor::explore::full::Full;
use tracepor::explore::full_stateless::FullStateless;
use tracepor::explore::Strategy;
use tracepor::model::events::{EventModel, EventOptions};
use tracepor::model::Model;

/// Runs the three strategies on one model; panics with the model when they disagree.
/// Returns (full-stateless transitions, dpor transitions, had errors, had nothing-enabled states).
fn check(text: &str, opts: EventOptions, label: &str) -> (u64, u64, bool, bool) {
    let m = model(text, opts);
    let (ss, stateless) = explore(&m, &mut FullStateless);
    let (_, full) = explore(&m, &mut Full);
    let expected = findings(&stateless);
    assert_eq!(findings(&full), expected, "{label} {opts:?}: full and full-stateless differ on\n{text}");
    let mut result = (ss.transitions, 0);
    for (continue_after_errors, sleep_sets) in [(false, false), (true, false), (false, true), (true, true)] {
        let (ds, dpor) = explore(&m, &mut DporEvents { continue_after_errors, sleep_sets });
        assert!(ds.finished);
        let what = format!("{label} {opts:?} continue_after_errors={continue_after_errors} sleep_sets={sleep_sets}");
        assert_eq!(findings(&dpor), expected, "{what}: dpor's findings differ on\n{text}");
        assert!(stateless.same_as(&dpor), "{what}: outcome sets differ");
        schedules_replay(&m, &dpor);
        for (outcome, schedule) in dpor.deadlock_schedules() {
            let mut s = m.initial();
            for &c in schedule {
                m.step(&mut s, c).expect("a nothing-enabled state's schedule replays without error");
            }
            assert_eq!(m.outcome(&s).to_string(), outcome.to_string(), "{what}: schedule leads to the state it names");
        }
        if !continue_after_errors && !sleep_sets {
            result.1 = ds.transitions;
        }
    }
    (result.0, result.1, !expected.0.is_empty(), !expected.1.is_empty())
}

fn run_seeds(seeds: impl Iterator<Item = u64>) {
    let (mut stateless, mut dpor, mut models, mut with_errors, mut with_dead) = (0u64, 0u64, 0u32, 0u32, 0u32);
    for seed in seeds {
        let text = gen_model(&mut SmallRng::seed_from_u64(seed));
        for conflicts in [false, true] {
            for bound in [1, 2] {
                let (s, d, e, x) =
                    check(&text, EventOptions { conflicts, bound: Some(bound) }, &format!("seed {seed}"));
                stateless += s;
                dpor += d;
                models += 1;
                with_errors += e as u32;
                with_dead += x as u32;
            }
        }
    }
    eprintln!(
        "{models} runs ({with_errors} with errors, {with_dead} with nothing-enabled states): \
         full-stateless {stateless} transitions, dpor {dpor}"
    );
    // The generator must exercise both kinds of findings, or the comparison proves little.
    assert!(with_errors * 5 > models && with_dead * 5 > models, "{with_errors} / {with_dead} of {models}");
}

#[test]
fn dpor_agrees_with_full_stateless_and_full_on_random_bounded_models() {
    run_seeds(0..crate::common::size("SEEDS", 50, 300));
}

/// Thousands of seeds, outside CI: `cargo test --release --test it events_dpor_bounded:: -- --ignored`.
#[test]
#[ignore]
fn dpor_agrees_on_thousands_of_random_bounded_models() {
    let n: u64 = std::env::var("SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
    run_seeds(1_000_000..1_000_000 + n);
}

/// The model that broke DPOR over each transition's dynamic accesses: a write by one event
/// switches another's branch between disabling a third and not, and nothing-enabled states
/// were lost. Static footprints make the writer and the branching event dependent.
#[test]
fn seed_1000771_with_conflicts_and_bound_2() {
    let text = gen_model(&mut SmallRng::seed_from_u64(1_000_000 + 771));
    check(&text, EventOptions { conflicts: true, bound: Some(2) }, "seed 1000771");
}

/// `n` independent one-shot events, each writing its own variable and disabling itself.
fn independent(n: usize) -> EventModel {
    let mut text = String::from("model events\n");
    for i in 0..n {
        text.push_str(&format!("var v{i} = 0\n"));
    }
    for i in 0..n {
        text.push_str(&format!("app A{i} {{ on e{i} {{ v{i} = 1; disable e{i} }} }}\n"));
    }
    model(&text, EventOptions { conflicts: false, bound: Some(2) })
}

#[test]
fn independent_one_shot_events_walk_one_execution() {
    let m = independent(8);
    let (ss, stateless) = explore(&m, &mut FullStateless);
    let (ds, dpor) = explore(&m, &mut DporEvents::default());
    assert_eq!(findings(&dpor), findings(&stateless));
    assert_eq!(ss.executions, 40_320, "8! orders");
    assert_eq!((ds.executions, ds.transitions), (1, 8));
}

#[test]
fn errors_do_not_hide_what_comes_after_them() {
    // `a` fails while x is 0, `b` sets x; an independent `c` fails always. Every nothing-enabled
    // state and both errors must be found although the first transitions taken fail.
    let text = "model events\nvar x = 0\nvar y = 0\n\
                app A { on a { assert x == 1 \"a\" } on c { assert y == 1 \"c\" } }\n\
                app B { on b { x = 1 } }\n";
    for bound in [1, 2] {
        check(text, EventOptions { conflicts: false, bound: Some(bound) }, "errors");
    }
}

#[test]
fn fixtures_and_smartthings_pairs_agree() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<(String, u32)> = std::fs::read_dir(root.join("fixtures/events"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // Beside the models lie their `.expected` outcome files (regress).
        .filter(|f| f.ends_with(".events"))
        .map(|f| (format!("fixtures/events/{f}"), 2))
        .collect();
    files.sort();
    // Up to which bound full-stateless finishes in a second or so (the other two pairs run
    // past a million transitions under --bound 2).
    for (name, max_bound) in [
        ("fireco2alarm--lock-it-when-i-leave", 1),
        ("let-there-be-light--let-there-be-dark", 2),
        ("brighten-my-path--darken-behind-me", 2),
        ("big-turn-on--big-turn-off", 2),
        ("auto-lock-door--lock-it-when-i-leave", 1),
        ("thermostat-auto-off--thermostat-window-check", 2),
    ] {
        files.push((format!("traces/smartthings/{name}.events"), max_bound));
    }
    for (f, max_bound) in &files {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        for conflicts in [false, true] {
            for bound in 1..=*max_bound {
                let (s, d, _, _) = check(&text, EventOptions { conflicts, bound: Some(bound) }, f);
                eprintln!("{f} conflicts={conflicts} bound={bound}: full-stateless {s} transitions, dpor {d}");
            }
        }
    }
}

#[test]
fn named_dpor_on_event_models() {
    assert_eq!(Strategy::<EventModel>::name(&DporEvents::default()), "dpor");
    assert_eq!(Strategy::<EventModel>::name(&DporEvents { sleep_sets: true, ..Default::default() }), "dpor-sleep");
}

/// The static footprint covers the accesses of every transition from every reachable state:
/// what the dependence of `dpor` rests on.
#[test]
fn footprints_cover_the_accesses_of_every_reachable_transition() {
    for seed in 0..200u64 {
        let text = gen_model(&mut SmallRng::seed_from_u64(seed));
        let m = model(&text, EventOptions { conflicts: seed % 2 == 1, bound: Some(2) });
        let footprints: Vec<_> = (0..m.choices()).map(|e| m.footprint(e)).collect();
        let mut stack = vec![m.initial()];
        let mut seen = std::collections::HashSet::new();
        while let Some(s) = stack.pop() {
            if !seen.insert(s.clone()) {
                continue;
            }
            let mut enabled = Vec::new();
            m.enabled(&s, &mut enabled);
            for c in 0..m.choices() {
                let mut acc = Default::default();
                m.accesses(&s, c, &mut acc);
                for a in &acc {
                    let covered = footprints[c as usize].iter().any(|f| f.object == a.object && (f.write || !a.write));
                    assert!(covered, "seed {seed}: {:?} of event {c} not in its footprint", a);
                }
            }
            for c in enabled {
                let mut t = s.clone();
                if m.step(&mut t, c).is_ok() {
                    stack.push(t);
                }
            }
        }
    }
}
