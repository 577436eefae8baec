//! `stateful-dpor` on event models: the Section 4 fixtures (found by the algorithm, missed by the
//! matching ablation), the SmartThings pairs (same findings as an exhaustive search, conflicts
//! reported), and the reduction on independent handlers.

use crate::events_common::*;
use tracepor::explore::stateful_dpor::StatefulDpor;
use tracepor::explore::Strategy;
use tracepor::model::events::{EventModel, EventOptions};

fn assert_lines(m: &EventModel, strategy: &mut StatefulDpor) -> Vec<usize> {
    let (stats, o) = explore(m, strategy);
    assert!(stats.finished);
    schedules_replay(m, &o);
    o.errors().filter(|f| f.error.kind == "assert").map(|f| f.error.line).collect()
}

/// Each fixture: the assert line that exists, and the ablation that misses it.
fn fixture(name: &str, ablation: StatefulDpor) {
    let m = load_file(&format!("fixtures/events/{name}.events"), EventOptions::default());
    let (_, full) = explore(&m, &mut Exhaustive);
    let reachable: Vec<usize> = full.errors().filter(|f| f.error.kind == "assert").map(|f| f.error.line).collect();
    assert_eq!(reachable.len(), 1, "{name}: the fixture has one reachable assertion failure");
    assert_eq!(assert_lines(&m, &mut StatefulDpor::new()), reachable, "{name}: stateful-dpor finds it");
    assert_eq!(
        assert_lines(&m, &mut StatefulDpor { no_summaries: true, ..StatefulDpor::default() }),
        reachable,
        "{name}: so do the literal Algorithms 3 and 5"
    );
    assert_eq!(
        assert_lines(&m, &mut StatefulDpor { lowest_first: true, ..StatefulDpor::default() }),
        reachable,
        "{name}: so does the lowest-first choice of events"
    );
    // The fixtures' comments follow the lowest-first order, in which each ablation goes wrong
    // (the order is the algorithm's free choice; an ablation that is wrong in one is unsound).
    let ablation = StatefulDpor { lowest_first: true, ..ablation };
    assert!(assert_lines(&m, &mut ablation.clone()).is_empty(), "{name}: the ablation {ablation:?} misses it");
}

#[test]
fn premature_termination_needs_the_full_cycle_condition() {
    fixture("premature-termination", StatefulDpor { no_full_cycle: true, ..StatefulDpor::default() });
}

#[test]
fn previous_state_match_needs_backtracking_from_the_graph() {
    fixture("previous-state-match", StatefulDpor { no_match_update: true, ..StatefulDpor::default() });
}

#[test]
fn incomplete_state_match_needs_the_backwards_dfs_over_every_path() {
    fixture("incomplete-state-match", StatefulDpor { no_graph_backtrack: true, ..StatefulDpor::default() });
}

#[test]
fn multi_access_events_need_per_location_conflicts() {
    fixture("multi-access", StatefulDpor { no_per_location: true, ..StatefulDpor::default() });
}

const SMARTTHINGS: &[&str] = &[
    "fireco2alarm--lock-it-when-i-leave",
    "let-there-be-light--let-there-be-dark",
    "brighten-my-path--darken-behind-me",
    "big-turn-on--big-turn-off",
    "auto-lock-door--lock-it-when-i-leave",
    "thermostat-auto-off--thermostat-window-check",
];

#[test]
fn smartthings_pairs_match_exhaustive_search() {
    let mut with_conflicts = 0;
    for name in SMARTTHINGS {
        for opts in [
            EventOptions { conflicts: false, bound: None },
            EventOptions { conflicts: true, bound: None },
            EventOptions { conflicts: true, bound: Some(1) },
        ] {
            let m = load_file(&format!("traces/smartthings/{name}.events"), opts);
            let (fs, full) = explore(&m, &mut Exhaustive);
            let (ds, dpor) = explore(&m, &mut StatefulDpor::new());
            assert!(ds.finished);
            assert_eq!(findings(&dpor), findings(&full), "{name} {opts:?}");
            schedules_replay(&m, &dpor);
            assert!(ds.states <= fs.states, "{name}: never more states than exhaustive search");
            eprintln!(
                "{name} {opts:?}: exhaustive {} states {} transitions; stateful-dpor {} states {} transitions {} executions",
                fs.states.unwrap(),
                fs.transitions,
                ds.states.unwrap(),
                ds.transitions,
                ds.executions
            );
            if opts == (EventOptions { conflicts: true, bound: None })
                && dpor.errors().any(|f| f.error.kind == "conflict")
            {
                with_conflicts += 1;
            }
        }
    }
    assert!(with_conflicts >= 2, "at least two pairs have a conflict --conflicts reports");
}

/// The largest pair (17 events): unbounded it is too connected by conflicts for any state to be
/// skipped (docs/stateful-dpor.md), and stateful-dpor must still find exactly what `full` finds;
/// under `--bound 1` the larger runs are left to `compare` (millions of states).
#[test]
fn largest_pair_matches_exhaustive_search() {
    let m = load_file(
        "traces/smartthings/lighting-director--step-notifier.events",
        EventOptions { conflicts: false, bound: None },
    );
    let (fs, full) = explore(&m, &mut tracepor::explore::full::Full);
    let (ds, dpor) = explore(&m, &mut StatefulDpor::new());
    assert!(fs.finished && ds.finished);
    assert_eq!(findings(&dpor), findings(&full));
    schedules_replay(&m, &dpor);
    assert_eq!(fs.states, Some(18_720));
    assert_eq!(ds.states, fs.states, "every enabled event is explored at every state");
    assert!(ds.executions < fs.executions);
}

/// The paper's largest pairs have 78 events. With the Initial State Event Streamer every device
/// event appends to one buffer, so any two of them conflict and no state can be skipped; what is
/// checked is that stateful-dpor finds what `full` finds, on both pairs modelled (the larger one
/// at the CI size only, `common::by_size`), and that running its backwards search late (the default) or
/// after every transition gives the same counts.
#[test]
fn paper_sized_pairs_match_exhaustive_search() {
    let pairs = [
        ("initial-state-event-streamer--lock-it-when-i-leave", 240),
        ("initial-state-event-streamer--thermostat-auto-off", 12_000),
    ];
    for &(name, states) in &pairs[..crate::common::by_size(1, 2)] {
        for conflicts in [false, true] {
            let opts = EventOptions { conflicts, bound: None };
            let m = load_file(&format!("traces/smartthings/{name}.events"), opts);
            let (fs, full) = explore(&m, &mut tracepor::explore::full::Full);
            let (ds, dpor) = explore(&m, &mut StatefulDpor::new());
            assert!(fs.finished && ds.finished);
            assert_eq!(findings(&dpor), findings(&full), "{name} {opts:?}");
            schedules_replay(&m, &dpor);
            assert!(ds.states <= fs.states);
            if !conflicts {
                assert_eq!(fs.states, Some(states), "{name}");
                let (es, eager) = explore(&m, &mut StatefulDpor { eager_search: true, ..StatefulDpor::default() });
                assert_eq!(
                    (es.executions, es.transitions, es.states, es.unique_transitions),
                    (ds.executions, ds.transitions, ds.states, ds.unique_transitions),
                    "{name}: late and eager backwards search"
                );
                assert_eq!(findings(&eager), findings(&dpor));
            }
        }
    }
}

/// `n` independent one-shot handlers, each writing its own variable.
fn independent(n: usize, one_shot: bool) -> EventModel {
    let mut text = String::from("model events\n");
    for i in 0..n {
        text.push_str(&format!("var v{i} = 0\n"));
    }
    for i in 0..n {
        let body = if one_shot { format!("v{i} = 1; disable e{i}") } else { format!("v{i} = 1 - v{i}") };
        text.push_str(&format!("app A{i} {{ on e{i} {{ {body} }} }}\n"));
    }
    model(&text, EventOptions::default())
}

#[test]
fn independent_one_shot_handlers_walk_one_order() {
    let m = independent(8, true);
    let (fs, full) = explore(&m, &mut Exhaustive);
    // Every subset of the 8 events is a distinct state.
    assert_eq!(fs.states, Some(256));
    let (ds, dpor) = explore(&m, &mut StatefulDpor::new());
    assert_eq!(findings(&dpor), findings(&full));
    // No two events conflict and each only disables itself, so no backtrack point is ever added
    // beyond the first choice at each state: one order, 8 transitions through 9 states.
    assert_eq!(ds.states, Some(9));
    assert_eq!(ds.transitions, 8);
    assert_eq!(ds.executions, 1);
    assert_eq!(dpor.deadlocks(), 1);
}

#[test]
fn independent_toggles_keep_the_same_findings() {
    // Cyclic version: each event flips its own bit forever. Every state is the end of some
    // trace, so a stateful search must still meet all 256; what it saves is transitions.
    let m = independent(8, false);
    let (fs, full) = explore(&m, &mut Exhaustive);
    assert_eq!(fs.states, Some(256));
    let (ds, dpor) = explore(&m, &mut StatefulDpor::new());
    assert_eq!(findings(&dpor), findings(&full));
    eprintln!(
        "toggles: exhaustive {} transitions; stateful-dpor {:?} states {} transitions",
        fs.transitions, ds.states, ds.transitions
    );
    // Measured: 510 of the exhaustive search's 2048 transitions; assert the reduction is real.
    assert!(ds.transitions * 2 < fs.transitions, "{} vs {}", ds.transitions, fs.transitions);
}

#[test]
fn strategy_name() {
    let m = independent(1, true);
    assert_eq!(Strategy::<EventModel>::name(&StatefulDpor::new()), "stateful-dpor");
    let _ = m;
}

#[test]
fn event_models_offer_full_and_stateful_dpor_by_name() {
    use tracepor::explore::{applicable, Strategies};
    assert_eq!(applicable::<EventModel>(), ["full", "full-stateless", "dpor", "dpor-sleep", "stateful-dpor"]);
    // `full` (the project's exhaustive search) agrees with stateful-dpor on a SmartThings pair.
    let m = load_file(
        "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events",
        EventOptions { conflicts: true, bound: None },
    );
    let mut full = EventModel::strategy("full").expect("full applies");
    let (fs, fo) = explore(&m, full.as_mut());
    let (ds, d) = explore(&m, EventModel::strategy("stateful-dpor").expect("applies").as_mut());
    assert!(fs.finished && ds.finished);
    assert_eq!(findings(&d), findings(&fo));
}
