//! The differential soundness suite: every strategy, on every input kind it accepts,
//! under every option that changes what it explores, must reach exactly the outcome set of an
//! exhaustive search (em-trace.md "Outcomes"; event-model.md "What counts": distinct errors and
//! nothing-enabled states), on generated inputs.
//!
//! - Strategies come from the registry (`explore::registry`): a strategy joins this suite by
//!   being registered for a model type, not by being listed here. `--threads 2` runs for the
//!   entries that explore in parallel; stateless ones run on event models only under a bound.
//! - The baseline is `Exhaustive` (tests/events_common), a breadth-first search over every
//!   enabled choice written apart from every strategy under test.
//! - EM traces (tests/common/gen_em.rs) run plain, with `--threads 2` and with
//!   `--hash-compact`; event models (tests/events_common/gen.rs) run plain, with
//!   `--conflicts`, with `--bound k`, and with both. Stateless strategies on event models run
//!   only under a bound (cli.md).
//! - Large EM traces: `optimal` against the exhaustive search on generated traces
//!   padded to hundreds of operations (`generate_padded`), a small deterministic sample by
//!   default; `TRACEPOR_SOUNDNESS_LARGE_SEEDS=n` for a campaign.
//! - `TRACEPOR_SOUNDNESS_SEEDS=n` sets how many seeds of each kind (250 at the CI size, 60 at
//!   the quick size: `common::size`; thousands on demand, e.g.
//!   `TRACEPOR_SOUNDNESS_SEEDS=3000 cargo test --release --test it soundness::`);
//!   `TRACEPOR_SOUNDNESS_STRATEGIES=a,b` checks only those strategies (on demand).
//!
//! That the suite can fail is shown by `suite_catches_unsound_ablations`: the stateful-DPOR
//! ablations that the paper shows unsound must each be caught on some generated input, and
//! docs/soundness.md lists the bugs planted by hand and caught.

use crate::common;
use crate::common::apps;
use crate::events_common;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracepor::explore::registry::{self, Entry, Registered};
use tracepor::explore::{self, Ablation, Limits, Outcomes, Search, Stats, Strategy};
use tracepor::model::em::EmModel;
use tracepor::model::events::{EventModel, EventOptions};
use tracepor::model::smartapp::{self, SmartAppModel, SmartAppOptions};
use tracepor::model::{ConflictMode, ConflictScope, Model, ModelKind};
use tracepor::trace::em::{parse_dependence, parse_trace};

use crate::common::gen_em::{generate, generate_padded};
use crate::common::gen_smartapp::{gen_loose_system, gen_mode_system, gen_saved_state_system, gen_system};
use crate::events_common::gen::gen_model;
use crate::events_common::Exhaustive;

/// Seeds of each kind in a CI run (`common::size`); a plain `cargo test` runs `QUICK_SEEDS`.
const CI_SEEDS: u64 = 250;
const QUICK_SEEDS: u64 = 60;

pub(crate) fn seeds() -> u64 {
    common::size("TRACEPOR_SOUNDNESS_SEEDS", QUICK_SEEDS, CI_SEEDS)
}

/// The most events a SmartApp system may have for the stateless strategies to run on it under
/// `--bound 1`: 6 by default, `TRACEPOR_SOUNDNESS_STATELESS_EVENTS=7` for a campaign. A run
/// on seven events walks up to 7! orders: the tenth of the generated systems that have seven
/// took five sixths of the stateless runs' time, and the reductions still run on them.
fn stateless_events() -> usize {
    std::env::var("TRACEPOR_SOUNDNESS_STATELESS_EVENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(6)
}

/// An option that changes what a search explores, and its label as on the command line.
#[derive(Clone, Copy, Debug)]
struct Variant {
    label: &'static str,
    threads: usize,
    hash_compact: bool,
}

const EM_VARIANTS: [Variant; 3] = [
    Variant { label: "", threads: 1, hash_compact: false },
    Variant { label: "--threads 2", threads: 2, hash_compact: false },
    Variant { label: "--hash-compact", threads: 1, hash_compact: true },
];

/// Event-model load options under which every strategy is checked.
const EVENT_OPTIONS: [(&str, EventOptions); 4] = [
    ("", EventOptions { conflicts: false, bound: None }),
    ("--conflicts", EventOptions { conflicts: true, bound: None }),
    ("--bound 2", EventOptions { conflicts: false, bound: Some(2) }),
    ("--conflicts --bound 1", EventOptions { conflicts: true, bound: Some(1) }),
];

/// SmartApp load options under which every strategy is checked (as for event models; bound 1,
/// because a SmartApp system fires more events than a generated event model and `--bound 2`
/// leaves the stateless searches too many paths for a CI run). `--conflicts` observes each
/// conflict and goes on (the findings compared are every distinct conflict reached);
/// `--conflict-mode end` ends the path at one, as IoTCheck does. `--conflicts-on lock` keeps the
/// lock's conflicts alone: the switch's writes, which the generated apps make as often, keep no
/// last writer and are never a conflict; with `--conflict-mode end` too (how `corpus` runs the
/// FSE pairs: each group's scope, each conflict ending its path).
const SMARTAPP_OPTIONS: [(&str, SmartAppOptions); 8] = [
    ("", smartapp_options(false, None, ConflictMode::Observe, None)),
    ("--conflicts", smartapp_options(true, None, ConflictMode::Observe, None)),
    ("--conflicts --conflict-mode end", smartapp_options(true, None, ConflictMode::End, None)),
    ("--bound 1", smartapp_options(false, Some(1), ConflictMode::Observe, None)),
    ("--conflicts --bound 1", smartapp_options(true, Some(1), ConflictMode::Observe, None)),
    ("--conflicts --conflict-mode end --bound 1", smartapp_options(true, Some(1), ConflictMode::End, None)),
    ("--conflicts-on lock", smartapp_options(true, None, ConflictMode::Observe, Some(LOCK))),
    ("--conflicts-on lock --conflict-mode end", smartapp_options(true, None, ConflictMode::End, Some(LOCK))),
];

const LOCK: ConflictScope = ConflictScope::of(&["lock"]);

pub(crate) const fn smartapp_options(
    conflicts: bool,
    bound: Option<u32>,
    conflict_mode: ConflictMode,
    conflicts_on: Option<ConflictScope>,
) -> SmartAppOptions {
    SmartAppOptions {
        conflicts,
        bound,
        keep_dead_state: false,
        conflict_mode,
        conflicts_on,
        properties: tracepor::model::PropertyOptions { file: None, no_library: false },
        routines_keep_mode: false,
        fixed_inputs: false,
        physical: false,
    }
}

/// Options for the systems of location-mode writers (`gen_mode_system`): the mode's conflicts
/// with every attribute's, observed and ending their paths, under a bound; the mode alone
/// (`--conflicts-on location.mode`, as `corpus` runs the study's global-variable pairs); and
/// routines that keep the mode (`--routines-keep-mode`, the study's definition), which removes
/// the routines' picks from the configurations.
const MODE_OPTIONS: [(&str, SmartAppOptions); 6] = [
    ("", smartapp_options(false, None, ConflictMode::Observe, None)),
    ("--conflicts", smartapp_options(true, None, ConflictMode::Observe, None)),
    ("--conflicts --conflict-mode end", smartapp_options(true, None, ConflictMode::End, None)),
    ("--conflicts --bound 1", smartapp_options(true, Some(1), ConflictMode::Observe, None)),
    ("--conflicts-on location.mode", smartapp_options(true, None, ConflictMode::Observe, Some(MODE))),
    (
        "--conflicts-on location.mode --routines-keep-mode",
        SmartAppOptions { routines_keep_mode: true, ..smartapp_options(true, None, ConflictMode::Observe, Some(MODE)) },
    ),
];

const MODE: ConflictScope = ConflictScope::of(&["location.mode"]);

/// The switches under which strategy `name` is checked: none, and for `stateful-dpor` also
/// `--lowest-first` (the order in which a new state fires its events changes what is explored).
fn choice_rules(name: &str) -> &'static [(&'static str, Ablation)] {
    const DEFAULT: (&str, Ablation) = (
        "",
        Ablation {
            no_full_cycle: false,
            no_graph_backtrack: false,
            no_per_location: false,
            no_match_update: false,
            no_summaries: false,
            lowest_first: false,
        },
    );
    const BOTH: [(&str, Ablation); 2] = [DEFAULT, (" --lowest-first", Ablation { lowest_first: true, ..DEFAULT.1 })];
    if name == "stateful-dpor" {
        &BOTH
    } else {
        &BOTH[..1]
    }
}

/// Runs `strategy` on `m` with `variant`'s options and `ablation`, within `budget` transitions:
/// a run stops at the same point on any machine, so no verdict depends on its load.
fn run<M: Model>(
    m: &M,
    strategy: &mut dyn Strategy<M>,
    variant: Variant,
    ablation: Ablation,
    budget: u64,
) -> (Stats, Outcomes) {
    let limits = Limits { max_transitions: Some(budget), ..Limits::default() };
    let name = strategy.name();
    let mut search = Search::new(m, limits).with_cancel(Arc::new(AtomicBool::new(false)));
    search.options.threads = variant.threads;
    search.options.hash_compact = variant.hash_compact;
    search.options.ablation = ablation;
    // The direct findings are compared here; `monitors`' pair conflicts, which no other
    // strategy looks for, have their own suite (tests/soundness_pairs.rs).
    search.options.no_pair_conflicts = true;
    let (stats, found, _) = explore::run_search(search, strategy);
    if std::env::var_os("TRACEPOR_SOUNDNESS_CALIBRATE").is_some() {
        eprintln!(
            "CAL {name} {} {} {} {:.3}",
            variant.label.replace(' ', ""),
            stats.finished,
            stats.transitions,
            stats.time_s
        );
    }
    (stats, found)
}

/// The exhaustive search's statistics and findings, or None past `max_states` states (a
/// generated trace can have hundreds of millions: on-demand campaigns must not run out of
/// memory on one).
pub(crate) fn baseline_within<M: Model>(m: &M, max_states: u64) -> Option<(Stats, Outcomes)> {
    let limits = Limits { max_states: Some(max_states), ..Limits::default() };
    let search = Search::new(m, limits).with_cancel(Arc::new(AtomicBool::new(false)));
    let (stats, found, _) = explore::run_search(search, &mut Exhaustive);
    stats.finished.then_some((stats, found))
}

/// The exhaustive search's statistics and findings.
fn baseline<M: Model>(m: &M) -> (Stats, Outcomes) {
    let (stats, found) = run(m, &mut Exhaustive, EM_VARIANTS[0], Ablation::default(), MUST_FINISH);
    assert!(stats.finished);
    (stats, found)
}

/// What differs between two outcome sets, for the failure message: (lost, invented).
fn difference(expected: &Outcomes, found: &Outcomes) -> (Vec<String>, Vec<String>) {
    let keys = |o: &Outcomes| -> Vec<String> {
        o.lines()
            .map(str::to_owned)
            .chain(o.errors().map(|f| format!("error {} line {}: {}", f.error.kind, f.error.line, f.error.message)))
            .collect()
    };
    let (e, f) = (keys(expected), keys(found));
    (e.iter().filter(|x| !f.contains(x)).cloned().collect(), f.iter().filter(|x| !e.contains(x)).cloned().collect())
}

/// One disagreement, or a run that did not finish.
#[derive(Default)]
struct Tally {
    checked: usize,
    runs: usize,
    unfinished: Vec<String>,
    failures: Vec<String>,
    /// Runs of an exhaustive stateless search stopped by their budget, checked only for what
    /// they found, and all its runs.
    stopped_exhaustive: usize,
    exhaustive_runs: usize,
}

impl Tally {
    /// Compares one run against the baseline. A run a limit stopped may have reached less, but
    /// never anything the baseline did not.
    fn compare(&mut self, what: String, input: &str, expected: &Outcomes, stats: &Stats, found: &Outcomes) {
        self.runs += 1;
        let (lost, invented) = difference(expected, found);
        if !invented.is_empty() {
            self.failures.push(format!("{what}: invented {invented:?}\n{input}"));
        } else if !stats.finished {
            self.unfinished.push(what);
        } else if !lost.is_empty() || found.deadlocks() != expected.deadlocks() {
            self.failures.push(format!("{what}: lost {lost:?}\n{input}"));
        }
    }

    fn assert_sound(&self, kind: &str) {
        assert!(
            self.failures.is_empty(),
            "{} unsound runs on {kind}:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
        // A strategy may explore more than the exhaustive search has states on a tiny input
        // (EM-DPOR, like EM-Explorer, can): such runs must stay rare or the suite proves little.
        assert!(
            self.unfinished.len() * 50 <= self.runs,
            "too many runs did not finish on {kind}: {:?} of {}",
            self.unfinished,
            self.runs
        );
        eprintln!("{kind}: {} inputs, {} runs, unfinished: {:?}", self.checked, self.runs, self.unfinished);
    }
}

fn em_model(seed: u64, text: &str, dependence: &str) -> EmModel {
    let fail = |e: tracepor::trace::InputError| -> ! { panic!("seed {seed}: {e}\n{text}\n{dependence}") };
    let mut t = parse_trace(Path::new("gen.txt"), text.as_bytes()).unwrap_or_else(|e| fail(e));
    parse_dependence(Path::new("dependence.txt"), dependence.as_bytes(), &mut t).unwrap_or_else(|e| fail(e));
    EmModel::new(t).unwrap_or_else(|e| fail(e))
}

fn event_model(text: &str, opts: EventOptions) -> EventModel {
    events_common::model(text, opts)
}

/// Strategies registered for model type `M` (all of them, unless `TRACEPOR_SOUNDNESS_STRATEGIES`
/// names some, comma-separated: an on-demand campaign on one strategy or a mutant of it).
fn registered<M: Registered>() -> Vec<&'static Entry> {
    let only = std::env::var("TRACEPOR_SOUNDNESS_STRATEGIES").ok();
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o.split(',').any(|w| w.trim() == name));
    registry::applicable::<M>().filter(|e| wanted(e.name)).collect()
}

/// Whether `variant` changes what `entry` explores (`--threads` only parallel ones).
fn applies(entry: &Entry, variant: Variant) -> bool {
    variant.threads == 1 || entry.parallel_on(ModelKind::EmTrace)
}

#[test]
fn generated_traces_are_valid_recordings() {
    let mut ok = 0;
    for seed in 0..200u64 {
        let Some((text, dependence)) = generate(seed) else { continue };
        let m = em_model(seed, &text, &dependence);
        m.replay_recorded().unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        ok += 1;
    }
    assert!(ok > 150, "too few generated traces replay ({ok} of 200)");
}

/// Inputs whose exhaustive state space is at most this large are checked under every variant;
/// larger ones (up to [`LARGE`]) plainly, with a shorter limit: every interleaving of a trace
/// with a few thousand states is already millions of runs for `full-stateless`.
const SMALL: u64 = 400;
/// Exhaustive states up to which `stateful-dpor --no-summaries` is checked too.
const LITERAL: u64 = 150;
const LARGE: u64 = 4_000;

/// The transitions a run that must finish may take (the exhaustive baseline, every strategy on
/// a small input, the reductions on a larger one): far more than any of them takes, so that
/// only a strategy that explores without end (a bug) reaches it.
const MUST_FINISH: u64 = 200_000_000;
/// The transitions of an exhaustive stateless run on a larger input, checked for what it
/// finds within them (every interleaving of a few thousand states is millions of runs).
const STOPPED: u64 = 200_000;

/// The transitions `entry` may take on a small input of `kind`: an exhaustive stateless search
/// runs every interleaving, up to 61 million on a 400-state trace (84 s): it gets a budget, and
/// the few runs that reach it count as unfinished (the same ones on every machine), about 1.4 s
/// at a load of 14 on an EM trace or event model. A SmartApp transition runs Groovy, about 20
/// times slower, and where static footprints make every firing dependent `dpor` walks every
/// interleaving too (9.9 million transitions, 177 s, on one generated system under `--bound
/// 1`): every stateless search there gets a budget. On EM traces the exhaustive stateless
/// search gets a quarter of a million: the runs that reach the budget are checked only for
/// outcomes they invent, and with a million they took two thirds of the EM suite's time.
fn budget(entry: &Entry, kind: ModelKind) -> u64 {
    match kind {
        ModelKind::SmartApps if entry.stateless => 100_000,
        _ if !(entry.exhaustive && entry.stateless) => MUST_FINISH,
        ModelKind::EmTrace => 250_000,
        _ => 1_000_000,
    }
}

#[test]
fn every_strategy_reaches_the_exhaustive_outcome_set_on_em_traces() {
    let names = registered::<EmModel>();
    let filtered = std::env::var("TRACEPOR_SOUNDNESS_STRATEGIES").is_ok();
    assert!(filtered || names.len() >= 6, "only {} EM strategies registered", names.len());
    let mut tally = Tally::default();
    let mut large = Tally::default();
    let mut literal = Tally::default();
    let mut with_stuck = 0;
    for seed in 0..seeds() {
        let Some((text, dependence)) = generate(seed) else { continue };
        let m = em_model(seed, &text, &dependence);
        let input = format!("{text}-- dependence.txt\n{dependence}");
        let Some((base, expected)) = baseline_within(&m, LARGE + 1) else { continue };
        let states = base.states.unwrap_or(u64::MAX);
        let small = states <= SMALL;
        let (t, variants) = if small { (&mut tally, &EM_VARIANTS[..]) } else { (&mut large, &EM_VARIANTS[..1]) };
        t.checked += 1;
        // A stuck outcome's line lists the operations never run after `stuck`.
        if expected.lines().any(|l| !l.trim_end().ends_with("| stuck")) {
            with_stuck += 1;
        }
        for entry in &names {
            let name = entry.name;
            for &variant in variants.iter().filter(|v| applies(entry, **v)) {
                for &(rule, ablation) in choice_rules(name) {
                    // The exhaustive stateless search runs every interleaving, millions of them
                    // on some traces: it gets a budget of transitions (shorter on a larger trace)
                    // and a run that reaches it is checked for what it found. A reduction must
                    // finish. Budgets, not time limits: whether a bug is caught does not depend
                    // on the machine's load.
                    let limit = match small {
                        true => budget(entry, ModelKind::EmTrace),
                        false if entry.exhaustive && entry.stateless => STOPPED,
                        false => MUST_FINISH,
                    };
                    let mut s = entry.build::<EmModel>().expect("registered");
                    let (stats, found) = run(&m, s.as_mut(), variant, ablation, limit);
                    t.exhaustive_runs += usize::from(entry.exhaustive && entry.stateless);
                    if entry.exhaustive && entry.stateless && !stats.finished {
                        t.stopped_exhaustive += 1;
                        t.runs += 1;
                        let (_, invented) = difference(&expected, &found);
                        if !invented.is_empty() {
                            t.failures.push(format!("seed {seed}: {name}: invented {invented:?}\n{input}"));
                        }
                        continue;
                    }
                    t.compare(
                        format!("seed {seed}: {name} {}{rule}", variant.label),
                        &input,
                        &expected,
                        &stats,
                        &found,
                    );
                }
            }
        }
        if states <= LITERAL {
            // `--no-summaries`, the literal Algorithms 3 and 5 that cross-check the summaries
            // (exponential, hence only on the smallest traces).
            let no_summaries = Ablation { no_summaries: true, ..Ablation::default() };
            let mut s = registry::lookup("stateful-dpor").and_then(|e| e.build::<EmModel>()).expect("registered");
            let (stats, found) = run(&m, s.as_mut(), EM_VARIANTS[0], no_summaries, MUST_FINISH);
            literal.checked += 1;
            literal.compare(format!("seed {seed}: stateful-dpor --no-summaries"), &input, &expected, &stats, &found);
        }
    }
    assert!(tally.checked as u64 >= seeds() / 3, "only {} seeds gave a small trace", tally.checked);
    // Most exhaustive stateless runs on small traces finish within their budget, or checking
    // them proves little.
    eprintln!("EM traces: {} of {} exhaustive stateless runs stopped", tally.stopped_exhaustive, tally.exhaustive_runs);
    assert!(tally.stopped_exhaustive * 2 <= tally.exhaustive_runs, "most exhaustive stateless runs stopped");
    tally.assert_sound("EM traces");
    eprintln!("larger EM traces: {} exhaustive stateless runs stopped at their budget", large.stopped_exhaustive);
    large.assert_sound("larger EM traces");
    // So is a literal run the limit stopped; most must finish, or the cross-check proves little.
    assert!(literal.unfinished.len() * 2 <= literal.runs, "literal runs unfinished: {:?}", literal.unfinished);
    literal.unfinished.clear();
    literal.assert_sound("EM traces, stateful-dpor --no-summaries");
    // Stuck outcomes are reached by their own path in some strategies (`optimal`'s end sets):
    // enough generated traces must have them for the comparison to test it.
    let checked = tally.checked + large.checked;
    eprintln!("EM traces: {checked} checked, {with_stuck} with a stuck outcome");
    assert!(with_stuck * 10 >= checked, "only {with_stuck} of {checked} traces can get stuck");
}

/// `optimal` on traces of hundreds of operations (the large-trace mode): the exhaustive
/// outcome set, one execution per outcome. The padding (tests/common/gen_em.rs) keeps the
/// exhaustive search feasible; traces past its state cap are passed over and counted.
#[test]
fn optimal_is_exact_on_large_em_traces() {
    let seeds = common::size("TRACEPOR_SOUNDNESS_LARGE_SEEDS", 8, 24);
    let entry = registry::lookup("optimal").expect("registered");
    let mut tally = Tally::default();
    let (mut over_cap, mut ops, mut with_stuck) = (0, Vec::new(), 0);
    for seed in 0..seeds {
        let pad = 200 + (seed % 3) as u32 * 100;
        let Some((text, dependence)) = generate_padded(seed, pad) else { continue };
        let m = em_model(seed, &text, &dependence);
        let Some((_, expected)) = baseline_within(&m, 100_000) else {
            over_cap += 1;
            continue;
        };
        tally.checked += 1;
        ops.push(m.trace.ops.len());
        with_stuck += usize::from(expected.lines().any(|l| !l.trim_end().ends_with("| stuck")));
        let mut s = entry.build::<EmModel>().expect("registered");
        let (stats, found) = run(&m, s.as_mut(), EM_VARIANTS[0], Ablation::default(), MUST_FINISH);
        let input = format!("{text}-- dependence.txt\n{dependence}");
        tally.compare(format!("seed {seed} (pad {pad}): optimal"), &input, &expected, &stats, &found);
        if stats.finished && stats.executions != found.len() as u64 {
            tally.failures.push(format!("seed {seed}: {} executions for {} outcomes", stats.executions, found.len()));
        }
    }
    eprintln!(
        "large EM traces: operations {:?}, {over_cap} past the exhaustive cap, {with_stuck} with a stuck outcome",
        ops
    );
    assert!(tally.checked as u64 * 2 >= seeds, "only {} of {seeds} large traces checked", tally.checked);
    assert!(ops.iter().all(|&n| n >= 200), "a large trace has fewer than 200 operations: {ops:?}");
    tally.assert_sound("large EM traces");
}

#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_event_models() {
    let names = registered::<EventModel>();
    assert!(names.len() >= 5, "only {} event-model strategies registered", names.len());
    let mut tally = Tally::default();
    for seed in 0..seeds() {
        let text = gen_model(&mut SmallRng::seed_from_u64(seed));
        for (label, opts) in EVENT_OPTIONS {
            let m = event_model(&text, opts);
            let (_, expected) = baseline(&m);
            tally.checked += 1;
            for entry in names.iter().filter(|e| e.runs_on(&m)) {
                let name = entry.name;
                for &(rule, ablation) in choice_rules(name) {
                    let mut s = entry.build::<EventModel>().expect("registered");
                    let variant = Variant { label, ..EM_VARIANTS[0] };
                    let (stats, found) = run(&m, s.as_mut(), variant, ablation, budget(entry, ModelKind::Events));
                    tally.compare(format!("seed {seed}: {name} {label}{rule}"), &text, &expected, &stats, &found);
                }
            }
        }
    }
    tally.assert_sound("event models");
}

/// Every strategy registered for SmartApps, under every option, against the exhaustive search on
/// `files`; returns how many variants the baseline finished within `cap` states, and how many of
/// those had more than one finding (an error or a nothing-enabled state) to lose.
fn check_smartapps(
    tally: &mut Tally,
    what: &str,
    files: &[PathBuf],
    cap: u64,
    options: &[(&'static str, SmartAppOptions)],
) -> (usize, usize) {
    let names = registered::<SmartAppModel>();
    let (mut finished, mut rich) = (0, 0);
    for &(label, opts) in options {
        let m = smartapp::load(files, opts).unwrap_or_else(|e| panic!("{what} does not load: {e}"));
        let Some((_, expected)) = baseline_within(&m, cap) else { continue };
        finished += 1;
        tally.checked += 1;
        if expected.errors().count() + expected.deadlocks() > 1 {
            rich += 1;
        }
        let input = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect::<Vec<_>>().join("\n");
        // A stateless search under `--bound 1` walks every order of the events: past seven
        // (8! orders and more) it cannot end within its budget, with conflicts observed as
        // without conflicts (a path no longer ends at one), so it is run on smaller systems only,
        // as in tests/it/soundness_homes.rs; see [`stateless_events`].
        let feasible = |e: &&&Entry| !e.stateless || m.event_names().len() <= stateless_events();
        for entry in names.iter().filter(|e| e.runs_on(&m)).filter(feasible) {
            for &(rule, ablation) in choice_rules(entry.name) {
                let mut s = entry.build::<SmartAppModel>().expect("registered");
                let variant = Variant { label, ..EM_VARIANTS[0] };
                let (stats, found) = run(&m, s.as_mut(), variant, ablation, budget(entry, ModelKind::SmartApps));
                tally.compare(format!("{what}: {} {label}{rule}", entry.name), &input, &expected, &stats, &found);
            }
        }
    }
    (finished, rich)
}

/// Every strategy against the exhaustive search on the systems `gen` makes from seeds
/// `0..seeds() / 3` (83 at the CI size), each under the five options; `tag` names the variants.
/// Returns (variants, finished, rich) after asserting soundness and that most baselines
/// finished (a generated system is small, but two apps toggling each other can still make a
/// large space: the cap keeps a CI run short, and the assertion keeps the suite from passing
/// on nothing).
fn check_generated(tag: &str, gen: fn(&mut SmallRng) -> Vec<(String, String)>) -> (usize, usize, usize) {
    check_generated_with(tag, gen, &SMARTAPP_OPTIONS)
}

/// [`check_generated`] under `options`.
fn check_generated_with(
    tag: &str,
    gen: fn(&mut SmallRng) -> Vec<(String, String)>,
    options: &[(&'static str, SmartAppOptions)],
) -> (usize, usize, usize) {
    check_generated_seeds(tag, gen, options, seeds() / 3)
}

/// [`check_generated_with`] on seeds `0..n`.
pub(crate) fn check_generated_seeds(
    tag: &str,
    gen: fn(&mut SmallRng) -> Vec<(String, String)>,
    options: &[(&'static str, SmartAppOptions)],
    n: u64,
) -> (usize, usize, usize) {
    let mut tally = Tally::default();
    let (mut variants, mut finished, mut rich) = (0, 0, 0);
    for seed in 0..n {
        let apps = gen(&mut SmallRng::seed_from_u64(seed));
        let files = apps::write(&format!("{tag}{seed}"), &apps);
        let (f, r) = check_smartapps(&mut tally, &format!("{tag} seed {seed}"), &files, 20_000, options);
        variants += options.len();
        finished += f;
        rich += r;
    }
    assert!(finished * 4 >= variants * 3, "the baseline finished only {finished} of {variants} {tag} variants");
    eprintln!("{tag}: {finished} of {variants} variants checked, {rich} with several findings");
    tally.assert_sound(tag);
    (variants, finished, rich)
}

#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_smartapps() {
    // All five of event models' (the stateless ones under a bound), unless a campaign picks some.
    let all = registry::applicable::<SmartAppModel>().count();
    assert!(all >= 5, "only {all} SmartApp strategies registered");
    let (_, finished, rich) = check_generated("gen", gen_system);
    assert!(rich * 3 >= finished, "only {rich} of {finished} generated variants have more than one finding");
}

/// The same on loosely coupled systems (tests/common/gen_smartapp.rs `gen_loose_system`): apps
/// that share few devices, so that `dpor`'s static footprints leave firings independent, and
/// meet through cascades; what a footprint that misses an access loses shows here (in
/// `gen_system`'s systems every app commands the same two devices, so nearly all firings are
/// dependent whatever the footprints say).
#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_loosely_coupled_smartapps() {
    check_generated("loose", gen_loose_system);
}

/// The same on systems whose outcome depends on the devices' states at installation (the
/// environment's choice of configuration at the root) and on the user's direct
/// commands (an app touch, a button): `gen_saved_state_system`.
#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_smartapps_with_saved_states() {
    let (_, finished, rich) = check_generated("saved", gen_saved_state_system);
    assert!(rich * 3 >= finished, "only {rich} of {finished} saved-state variants have more than one finding");
}

/// The same on systems of location-mode writers (`gen_mode_system`: every form of mode write,
/// to literal modes, mode inputs and routines the configurations pick, on the apps' own events
/// and on the user's commands), under [`MODE_OPTIONS`].
///
/// Shown able to fail (docs/location-mode.md): with a planted bug in the monitors' run, the
/// mode's write not handed to its monitor (`app_write` returning before the monitors' branch
/// for the mode's slot), `monitors` loses conflicts on the mode: caught; with a direct write
/// counted as automatic (the `manual` flag dropped in `GhostWrite` for the mode), `monitors`
/// invents conflicts `full` does not have: caught.
#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_mode_writers() {
    let (_, finished, rich) = check_generated_with("modes", gen_mode_system, &MODE_OPTIONS);
    assert!(rich * 3 >= finished, "only {rich} of {finished} mode variants have more than one finding");
}

/// The same on small real pairs of the IoTCheck corpus (the paper's Table A.2, at most six
/// events), where the exhaustive search finishes within a cap. Of the bounded options only
/// `--conflicts --bound 1` runs by default: the three bounded ones took three quarters of the
/// test's time (every order of the events, for the stateless searches), and the generated
/// systems run all three; `TRACEPOR_SOUNDNESS_SEEDS` above the CI size runs them here too.
#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_small_corpus_pairs() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let table = std::fs::read_to_string(shared.join("reference/vmcai22-tables-a1-a2.tsv")).expect("the paper's table");
    let mut tally = Tally::default();
    let mut finished = 0;
    let pairs: Vec<(String, Vec<PathBuf>)> = table
        .lines()
        .filter(|l| l.starts_with("A.2\t"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let events: u32 = f.get(3)?.parse().ok()?;
            let (a, b) = f[2].split_once('–')?;
            let app = |n: &str| shared.join("smartthings/smartapps").join(format!("{n}.groovy"));
            (events <= 6).then(|| (f[2].to_string(), vec![app(a), app(b)]))
        })
        .step_by(3)
        // The quick size leaves out the first, the largest (7,967 states in the table).
        .skip(common::by_size(1, 0))
        .take(common::by_size(3, 12))
        .collect();
    assert!(pairs.len() >= common::by_size(3, 8), "only {} small pairs in the table", pairs.len());
    let campaign = seeds() > CI_SEEDS;
    let options: Vec<_> = SMARTAPP_OPTIONS
        .into_iter()
        .filter(|(label, _)| campaign || !label.contains("--bound") || *label == "--conflicts --bound 1")
        .collect();
    for (name, files) in &pairs {
        finished += check_smartapps(&mut tally, name, files, 50_000, &options).0;
    }
    assert!(finished * 2 >= pairs.len() * options.len(), "the baseline finished only {finished} runs");
    tally.assert_sound("SmartApp corpus pairs");
}

/// The suite can fail: each ablation of `stateful-dpor` that the paper's Section 4 shows
/// unsound is caught on some generated input (with the seeds of a CI run).
#[test]
fn suite_catches_unsound_ablations() {
    let ablations = [
        ("--no-full-cycle", Ablation { no_full_cycle: true, ..Ablation::default() }),
        ("--no-graph-backtrack", Ablation { no_graph_backtrack: true, ..Ablation::default() }),
        ("--no-match-update", Ablation { no_match_update: true, ..Ablation::default() }),
    ];
    for (label, ablation) in ablations {
        let mut caught = None;
        'seeds: for seed in 0..seeds().max(250) {
            let text = gen_model(&mut SmallRng::seed_from_u64(seed));
            for (opt, opts) in EVENT_OPTIONS {
                let m = event_model(&text, opts);
                let (_, expected) = baseline(&m);
                // Under each order of events the suite checks `stateful-dpor` in.
                for &(rule, order) in choice_rules("stateful-dpor") {
                    let ablation = Ablation { lowest_first: order.lowest_first, ..ablation };
                    let mut s =
                        registry::lookup("stateful-dpor").and_then(|e| e.build::<EventModel>()).expect("registered");
                    let (stats, found) = run(&m, s.as_mut(), EM_VARIANTS[0], ablation, MUST_FINISH);
                    let mut tally = Tally::default();
                    tally.compare(String::new(), "", &expected, &stats, &found);
                    if !tally.failures.is_empty() {
                        caught = Some(format!("seed {seed} {opt}{rule}"));
                        break 'seeds;
                    }
                }
            }
        }
        assert!(caught.is_some(), "stateful-dpor {label} was not caught by the suite");
        eprintln!("stateful-dpor {label}: caught on {}", caught.unwrap_or_default());
    }
}

/// The traces on which a strategy once lost outcomes (fixtures/em-regress, each with a README
/// saying what was lost and why): every EM strategy must reach the exhaustive outcome set.
#[test]
fn every_strategy_on_the_em_regressions() {
    em_fixtures("fixtures/em-regress", |_| true);
}

/// Every trace folder under `dir`: each `wanted` EM strategy must reach the exhaustive outcome
/// set (stateless exhaustive search, which runs every interleaving, is checked only for what it
/// finds within its limit, as in the suite).
fn em_fixtures(dir: &str, wanted: impl Fn(&str) -> bool) {
    let dirs = common::trace_dirs(&common::root().join(dir));
    assert!(!dirs.is_empty(), "fixtures missing in {dir}");
    for d in dirs {
        let m = common::em(&d);
        let (_, expected) = baseline(&m);
        for entry in registry::applicable::<EmModel>().filter(|e| wanted(e.name)) {
            let mut s = entry.build::<EmModel>().expect("applies");
            let limit = if entry.exhaustive && entry.stateless { STOPPED } else { MUST_FINISH };
            let (stats, found) = run(&m, s.as_mut(), EM_VARIANTS[0], Ablation::default(), limit);
            let (lost, invented) = difference(&expected, &found);
            assert!(invented.is_empty(), "{} with {}: invented {invented:?}", d.display(), entry.name);
            if entry.exhaustive && entry.stateless && !stats.finished {
                continue;
            }
            assert!(stats.finished, "{} with {} did not finish", d.display(), entry.name);
            assert!(lost.is_empty(), "{} with {}: lost {lost:?}", d.display(), entry.name);
        }
    }
}

/// The first mechanism on an event model (fixtures/events/program-order.events): an
/// event whose firings differ (a read, then a write) must not absorb its own race.
#[test]
fn stateful_dpor_treats_an_events_earlier_firing_as_program_order() {
    let m = events_common::load_file("fixtures/events/program-order.events", EventOptions::default());
    let (_, expected) = baseline(&m);
    assert_eq!(expected.error_count(), 1, "the fixture has one reachable assert");
    let entry = registry::lookup("stateful-dpor").expect("registered");
    let mut s = entry.build::<EventModel>().expect("applies");
    let (stats, found) = run(&m, s.as_mut(), EM_VARIANTS[0], Ablation::default(), MUST_FINISH);
    assert!(stats.finished);
    assert_eq!(difference(&expected, &found), (vec![], vec![]));
}

/// The literal cross-check (`--no-summaries`) looks back from blocked transitions too: on
/// trace2 of only-multithreading/deadlocks it lost one of five outcomes without that
/// (docs/soundness.md, point 3).
#[test]
fn literal_stateful_dpor_looks_back_from_blocked_transitions() {
    let dir = common::root().join("../shared/traces/em-explorer/benchmark-traces/only-multithreading/deadlocks/trace2");
    let m = common::em(&dir);
    let (_, expected) = baseline(&m);
    let no_summaries = Ablation { no_summaries: true, ..Ablation::default() };
    let mut s = registry::lookup("stateful-dpor").and_then(|e| e.build::<EmModel>()).expect("registered");
    let (stats, found) = run(&m, s.as_mut(), EM_VARIANTS[0], no_summaries, MUST_FINISH);
    assert!(stats.finished);
    assert_eq!(difference(&expected, &found), (vec![], vec![]));
}
