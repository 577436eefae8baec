//! `monitors --threads N` (src/explore/monitors.rs) finds what one thread finds: the same
//! counts (states, transitions, revisits, the pair view's figures) and the same findings with
//! the same schedules, for N = 1, 2 and 3, on generated homes under `--conflicts` (with and
//! without `--stop-at-first-error`, and with a state limit that stops the exploration midway)
//! and on fixture homes. The CLI runs `monitors` on every core by default (`Entry::all_cores`),
//! which is sound only because of this.
//!
//! Shown able to fail (docs/reductions-homes.md): the slot searches run in parallel under
//! `--stop-at-first-error` too (later slots' findings kept) is caught here.

use crate::common::apps;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracepor::explore::{self, registry, Limits, Search};
use tracepor::model::format_schedule;
use tracepor::model::smartapp::{self, SmartAppModel, SmartAppOptions};
use tracepor::trace::applist::parse_app_list;

use crate::common::gen_smartapp::gen_home;

/// What a run of `monitors` reports, as text: the counts, then each finding and its schedule.
fn monitors(m: &SmartAppModel, threads: usize, limits: Limits) -> Vec<String> {
    let mut s = registry::lookup("monitors").and_then(|e| e.build::<SmartAppModel>()).expect("registered");
    let mut search = Search::new(m, limits).with_cancel(Arc::new(AtomicBool::new(false)));
    search.options.threads = threads;
    let (stats, found, _) = explore::run_search(search, s.as_mut());
    let mut out = vec![format!(
        "finished {} states {:?} transitions {} executions {} revisits {:?} unique {:?} depth {} pairs {:?}",
        stats.finished,
        stats.states,
        stats.transitions,
        stats.executions,
        stats.revisits,
        stats.unique_transitions,
        stats.max_depth,
        stats.pair_view
    )];
    out.extend(found.errors().map(|f| format!("{:?} at {}", f.error, format_schedule(m, &f.schedule))));
    out.push(format!("deadlocks {}", found.deadlocks()));
    out
}

/// Runs `m` on 1, 2 and 3 threads under `limits`; returns whether it found anything.
fn same_for_any_threads(what: &str, m: &SmartAppModel, limits: Limits) -> bool {
    let one = monitors(m, 1, limits.clone());
    for n in [2, 3] {
        assert_eq!(monitors(m, n, limits.clone()), one, "{what}: --threads {n} differs from one thread");
    }
    one.len() > 2
}

#[test]
fn monitors_finds_the_same_for_any_threads_on_generated_homes() {
    let seeds = crate::common::size("TRACEPOR_SOUNDNESS_SEEDS", 80, 400) / 10;
    let (mut with_findings, mut cut) = (0, 0);
    for seed in 0..seeds {
        let apps = gen_home(&mut SmallRng::seed_from_u64(seed));
        let files = apps::write(&format!("threads-{seed}"), &apps);
        let m = smartapp::load(&files, SmartAppOptions { conflicts: true, ..SmartAppOptions::default() })
            .unwrap_or_else(|e| panic!("seed {seed} does not load: {e}"));
        let limits = Limits { max_states: Some(200_000), ..Limits::default() };
        with_findings += usize::from(same_for_any_threads(&format!("seed {seed}"), &m, limits.clone()));
        let first = Limits { stop_at_first_error: true, ..limits.clone() };
        same_for_any_threads(&format!("seed {seed} --stop-at-first-error"), &m, first);
        // A limit met midway: the merge stops at the same step whatever the threads.
        let states = monitors(&m, 1, limits.clone())[0].clone();
        if !states.contains("states Some(1)") {
            cut += 1;
            same_for_any_threads(
                &format!("seed {seed} --max-states 50"),
                &m,
                Limits { max_states: Some(50), ..limits },
            );
        }
    }
    assert!(with_findings * 3 >= seeds as usize, "only {with_findings} of {seeds} homes have findings");
    assert!(cut > 0);
}

#[test]
fn monitors_finds_the_same_for_any_threads_on_fixture_homes() {
    let dirs = [Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/smartthings/smartapps")];
    let mut with_findings = 0;
    // thermostats: 58,243 states, cut at 5,000 (a limit met midway).
    for (h, max_states) in [("locks", 200_000), ("lights", 200_000), ("switches", 200_000), ("thermostats", 5_000)] {
        let list: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/homes/{h}.home"));
        let files = parse_app_list(&list, &std::fs::read(&list).unwrap(), &dirs).unwrap();
        let m = smartapp::load(&files, SmartAppOptions { conflicts: true, ..SmartAppOptions::default() }).unwrap();
        let limits = Limits { max_states: Some(max_states), ..Limits::default() };
        with_findings += usize::from(same_for_any_threads(h, &m, limits));
    }
    assert!(with_findings >= 2, "only {with_findings} fixture homes have findings");
}
