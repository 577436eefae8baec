//! A report names the limit that stopped the run, in every phase that words a stop: the search,
//! the work after it (whose budget, explore/budget.rs, ends at a grace deadline once a limit
//! stopped the search) and the race analysis, in the text report and in the JSON. Budgets here
//! are states and memory, never the clock: a deadline already past is one at or before the
//! instant it is set.
//!
//! Planted and caught: with the grace deadline reported as the time limit again (`wrap_up`'s
//! budget not standing for the search's stop),
//! `the_grace_after_a_stopped_search_stands_for_its_limit` failed on `TimeLimit`; with the race
//! analysis' step allowance always reported as transitions,
//! `a_states_limit_reached_by_the_race_analysis_is_named_states` failed on `stopped_by`
//! `transitions`.

use std::time::{Duration, Instant};

use crate::common::{self, bin, code, text};
use serde_json::Value;
use tracepor::explore::races::analyse_within;
use tracepor::explore::{for_em_trace, Budget, Limits, Search, StopReason};

/// A small trace with races that `full` explores to its end (106 states, 3 race pairs).
const SMALL: &str = "benchmark-traces/multithreading-with-single-queue/trace4";

fn json(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

/// `said` names `limit` and not the time limit.
fn names(said: &str, limit: &str) {
    assert!(said.contains(limit), "`{limit}` not in: {said}");
    assert!(!said.contains("time"), "time named in: {said}");
}

/// After a search a limit stopped, the work after it gets a grace deadline; reaching that is
/// reported as the limit that stopped the search, in the race report's text and JSON.
#[test]
fn the_grace_after_a_stopped_search_stands_for_its_limit() {
    let m = common::em(&common::em_explorer().join(SMALL));
    let run = |limits: Limits| {
        let mut strategy = for_em_trace("full").unwrap();
        let mut search = Search::new(&m, limits);
        search.options.outcome_schedules = true;
        strategy.run(&mut search);
        let budget = search.wrap_up();
        (search.stop_reason(), budget)
    };
    // Stopped by states, without a time limit and with a far one: the grace is the deadline.
    let states = Limits { max_states: Some(20), ..Limits::default() };
    let far = Limits { time: Some(Duration::from_secs(3600)), ..states.clone() };
    for limits in [states, far] {
        let (stop, budget) = run(limits.clone());
        assert_eq!(stop, Some(StopReason::MaxStates), "{limits:?}");
        assert!(budget.deadline().is_some(), "{limits:?}: no grace deadline");
        assert_eq!(budget.deadline_reason(), StopReason::MaxStates, "{limits:?}");
    }
    // Finished within a time limit: the deadline is the time limit's.
    let (stop, budget) = run(Limits { time: Some(Duration::from_secs(3600)), ..Limits::default() });
    assert_eq!(stop, None);
    assert_eq!(budget.deadline_reason(), StopReason::TimeLimit);

    // The race analysis given such a budget once its deadline has passed.
    let (_, found) = common::run_em(&m, "full", Limits { max_states: Some(20), ..Limits::default() });
    let passed = Budget::unlimited().until(Some(Instant::now())).standing_for(StopReason::MaxStates);
    let report = analyse_within(&m, &found, false, &passed, None);
    names(report.not_analysed.as_deref().expect("not analysed"), "state limit");
    let shown = tracepor::report::races::render(&report, false);
    names(shown.lines().find(|l| l.starts_with("not analysed")).expect("said"), "state limit");
    let j = serde_json::to_value(&report).unwrap();
    names(j["races_not_analysed"].as_str().expect("in the JSON"), "state limit");
    // The same budget with its deadline ahead analyses the races (the assertion above could fail).
    let ahead = Budget::unlimited().until(Instant::now().checked_add(Duration::from_secs(3600)));
    let report = analyse_within(&m, &found, false, &ahead, None);
    assert!(report.not_analysed.is_none() && report.pairs > Some(0), "{:?}", report.not_analysed);
}

/// `--max-memory` below what the run needs: every phase says memory, in text and JSON.
#[test]
fn a_memory_limit_is_named_memory_in_every_phase() {
    let t = common::em_explorer_arg(SMALL);
    let args = ["check", &t, "--strategy", "full", "--races", "--max-memory", "1"];
    let o = bin(&[&args[..], &["--json"]].concat());
    // The search may finish before its first look at resident memory; what comes after it
    // stops at once.
    assert!(matches!(code(&o), 0 | 3), "{}", text(&o.stderr));
    let d = json(&o);
    assert_eq!(d["stopped_by"], "memory", "{d}");
    let races = d["races_not_analysed"].as_str().or(d["races_partial"].as_str()).expect("a race stop in the JSON");
    names(races, "memory limit");
    let out = text(&bin(&args).stdout);
    for line in out.lines().filter(|l| l.contains("INCOMPLETE") || l.contains("not analysed") || l.contains("partial:"))
    {
        names(line, "memory limit");
    }
    assert!(out.contains("search INCOMPLETE: memory limit"), "{out}");
}

/// The race analysis' replays spend what `--max-states` left of a strategy that stores states:
/// reaching it is the states limit, named so (not transitions, not time).
#[test]
fn a_states_limit_reached_by_the_race_analysis_is_named_states() {
    let t = common::em_explorer_arg(SMALL);
    let free_run = bin(&["check", &t, "--strategy", "full", "--races", "--json"]);
    assert_ne!(free_run.status.code(), Some(3));
    let free = json(&free_run);
    assert_eq!(free["finished"], Value::Bool(true), "{free}");
    assert!(free["races_partial"].is_null(), "{free}");
    let states = free["states"].as_u64().unwrap();
    // One state more than the search stores: it finishes, the replays after it do not.
    let tight = (states + 1).to_string();
    let args = ["check", &t, "--strategy", "full", "--races", "--max-states", &tight];
    let tight_run = bin(&[&args[..], &["--json"]].concat());
    let d = json(&tight_run);
    assert_eq!(d["finished"], Value::Bool(true), "{d}");
    assert_eq!(d["stopped_by"], "states", "{d}");
    // The search finished, the race report did not: a limit stopped the run (exit 3).
    assert_eq!(tight_run.status.code(), Some(3), "{d}");
    let partial = d["races_partial"].as_str().expect("a partial race report");
    names(partial, "state limit reached:");
    assert!(!partial.contains("per transition"), "{partial}");
    let out = text(&bin(&args).stdout);
    let line = out.lines().find(|l| l.starts_with("partial:")).unwrap_or_else(|| panic!("{out}"));
    names(line, "state limit reached:");
}
