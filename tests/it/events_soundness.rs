//! Randomized soundness: on hundreds of generated small event models, `stateful-dpor` (with
//! summaries, and with the literal Algorithms 3 and 5) reports exactly the errors and
//! nothing-enabled states of an exhaustive stateful search (the test's own, cross-checked with
//! the project's `full`), with schedules that replay to what they claim; and its counts do not
//! depend on when the backwards search runs.

use crate::events_common::gen::gen_model;
use crate::events_common::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracepor::explore::stateful_dpor::StatefulDpor;
use tracepor::model::events::EventOptions;

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
            assert_eq!(tracepor::model::Model::outcome(&m, &s).to_string(), outcome.to_string());
        }
        assert!(stats.states.unwrap() <= full_stats.states.unwrap());
    }
    // The backwards search runs late, when a backtrack set it could change is read, rather than
    // after every transition as in the paper's Explore: that must change nothing but speed.
    let (lazy, lazy_found) = explore(&m, &mut StatefulDpor::new());
    let (eager, eager_found) = explore(&m, &mut StatefulDpor { eager_search: true, ..StatefulDpor::default() });
    let counts = |s: &tracepor::explore::Stats| {
        (s.executions, s.transitions, s.states, s.revisits, s.unique_transitions, s.max_depth)
    };
    assert_eq!(counts(&lazy), counts(&eager), "seed {seed} {opts:?}: late and eager search differ on\n{text}");
    assert_eq!(findings(&lazy_found), findings(&eager_found));
    (full_stats.states.unwrap(), 0)
}

#[test]
fn stateful_dpor_agrees_with_exhaustive_search_on_random_models() {
    let mut with_errors = 0;
    let mut with_deadlocks = 0;
    let n = crate::common::size("SEEDS", 150, 400);
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
