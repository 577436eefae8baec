//! What the command line does, as a library: [`Check`] runs one strategy on one model and
//! returns its [`RunReport`]; [`compare_set`] picks the strategies `compare` runs; [`replay`]
//! re-executes one schedule; [`expand_inputs`] and [`Shard`] turn command-line paths into the
//! inputs to check, and [`detected`] tells each one's kind once, for the option checks and the
//! loading both. `main.rs` parses arguments and prints; the policy lives here.
//!
//! ```no_run
//! # use tracepor::{check::Check, model::{self, Loaded}};
//! let Loaded::Em(m) = model::load("trace.txt".as_ref(), Default::default())? else { return Ok(()) };
//! let report = Check::new(&m).strategy("em-dpor")?.run();
//! assert!(report.finished);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::explore::graph::StateGraph;
use crate::explore::registry::{self, Entry, Registered};
use crate::explore::{Limits, Search, SearchOptions, Stats, StopReason};
use crate::model::{
    format_schedule, parse_schedule, Accesses, Choice, LoadOptions, Model, ModelError, ModelKind, Outcome,
};
use crate::report::compare::{Disagreement, Verdict, Witness};
use crate::report::RunReport;
use crate::trace::input::{detect_input, Input};
use crate::trace::InputError;

/// A usage or input problem, in one message (the command line exits 2 with it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError(pub String);

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckError {}

/// The strategy `name`, if it can run on `model`; otherwise why not.
pub fn strategy_for<M: Registered>(model: &M, name: &str) -> Result<&'static Entry, CheckError> {
    let Some(entry) = registry::lookup(name) else {
        return Err(CheckError(format!("unknown strategy `{name}` (known: {})", registry::NAMES.join(", "))));
    };
    if !entry.applies_to::<M>() {
        return Err(CheckError(format!("strategy `{name}` does not apply to {} inputs", model.kind())));
    }
    if !entry.runs_on(model) {
        return Err(CheckError(format!("strategy `{name}` is stateless: on an event model it needs --bound k")));
    }
    Ok(entry)
}

/// Each input of `inputs` (one path, or several SmartApps) with what it holds, told once by
/// [`detect_input`]: [`check_detected_load_options`] reads the kinds, [`crate::model::load_input`]
/// builds the models.
pub fn detected(inputs: Vec<Vec<PathBuf>>) -> Vec<(Vec<PathBuf>, Result<Input, InputError>)> {
    inputs
        .into_iter()
        .map(|files| {
            let input = detect_input(&files);
            (files, input)
        })
        .collect()
}

/// A kind of input as a sentence names it.
fn a_kind(kind: ModelKind) -> &'static str {
    match kind {
        ModelKind::EmTrace => "an EM trace",
        ModelKind::Events => "an event model",
        ModelKind::SmartApps => "SmartApps",
    }
}

/// Refuses `--bound` and `--conflicts` when no input of `inputs` (each one input, or several
/// SmartApps checked together, as [`detect_input`] told it) is an event model or SmartApps: an
/// EM trace has neither events to bound nor apps to conflict, so the option would be ignored
/// without a word.
pub fn check_load_options(inputs: &[Vec<PathBuf>], load: &LoadOptions) -> Result<(), CheckError> {
    check_detected_load_options(&detected(inputs.to_vec()), load)
}

/// [`check_load_options`] on inputs already told apart ([`detected`]).
pub fn check_detected_load_options(
    inputs: &[(Vec<PathBuf>, Result<Input, InputError>)],
    load: &LoadOptions,
) -> Result<(), CheckError> {
    // `--keep-dead-state` shapes SmartApps only (model/smartapp/dead.rs); `--conflicts-on`
    // names device attributes, which only SmartApps have; routines and the room are SmartApps'.
    let smartapps_only = [
        ("--keep-dead-state", load.keep_dead_state),
        ("--conflicts-on", load.conflicts_on.is_some()),
        ("--routines-keep-mode", load.routines_keep_mode),
        ("--fixed-inputs", load.fixed_inputs),
        ("--physical", load.physical),
    ];
    check_input_options(inputs, &smartapps_only, InputClass::SmartApps)?;
    // `--physical` adds to what `--conflicts` looks for in SmartApps (model/smartapp/physical.rs).
    if load.physical && !load.conflicts && load.conflicts_on.is_none() {
        return Err(CheckError(
            "--physical adds physical channels to --conflicts: without --conflicts there are none".into(),
        ));
    }
    let option = match (load.bound, load.conflicts) {
        (Some(_), _) => "--bound",
        (None, true) => "--conflicts",
        (None, false) => return Ok(()),
    };
    // Inputs whose kind cannot be told count as taking it: loading them reports the problem.
    if inputs.iter().any(|(_, input)| !matches!(input, Ok(Input::EmTrace { .. } | Input::AbcLog(_)))) {
        return Ok(());
    }
    let what = match inputs {
        [(files, _)] => {
            let name = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" + ");
            format!("{name} is {}", a_kind(ModelKind::EmTrace))
        }
        _ => format!("all {} inputs are EM traces", inputs.len()),
    };
    Err(CheckError(format!("{option} applies to event models and SmartApps; {what}")))
}

/// The inputs an option applies to ([`check_input_options`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputClass {
    /// EM traces and DroidRacer logs (the race report, `--races`, `--explain`).
    EmTraces,
    /// SmartApps (`--smartapps`, `--keep-dead-state`, `--conflicts-on`, `--conflict-mode`).
    SmartApps,
}

impl InputClass {
    fn takes(self, input: &Input) -> bool {
        match self {
            InputClass::EmTraces => matches!(input, Input::EmTrace { .. } | Input::AbcLog(_)),
            InputClass::SmartApps => matches!(input, Input::SmartApps(_) | Input::Home(_)),
        }
    }

    fn name(self) -> &'static str {
        match self {
            InputClass::EmTraces => "EM traces (and DroidRacer logs)",
            InputClass::SmartApps => "SmartApps",
        }
    }
}

/// Refuses each option of `given` (name, given or not) that applies to `class` of inputs only
/// when no input of `inputs` is of that class: it would be ignored without a word. Inputs whose
/// kind cannot be told count as taking it (loading them reports the problem).
pub fn check_input_options(
    inputs: &[(Vec<PathBuf>, Result<Input, InputError>)],
    given: &[(&str, bool)],
    class: InputClass,
) -> Result<(), CheckError> {
    let Some((option, _)) = given.iter().find(|(_, on)| *on) else { return Ok(()) };
    if inputs.iter().any(|(_, input)| input.as_ref().map_or(true, |i| class.takes(i))) {
        return Ok(());
    }
    let what = match inputs {
        [(files, Ok(input))] => {
            let name = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" + ");
            let kind = ModelKind::from(input);
            format!("; {name} is {}", a_kind(kind))
        }
        _ => String::new(),
    };
    Err(CheckError(format!("{option} applies to {} only{what}", class.name())))
}

/// Refuses search options that none of `entries` (the strategies about to run on an input of
/// `kind`) reads, from what the registry says each one supports: ablation switches, `--threads
/// N` above 1 and `--hash-compact`. With several strategies, an option that some of them read
/// is fine.
pub fn check_search_options(
    kind: ModelKind,
    entries: &[&'static Entry],
    options: &SearchOptions,
) -> Result<(), CheckError> {
    // `class` describes the strategies that read the option; the registry names them.
    let refuse = |option: String, class: &str, reads: &dyn Fn(&Entry) -> bool| -> Result<(), CheckError> {
        if entries.iter().any(|e| reads(e)) {
            return Ok(());
        }
        let those: Vec<&str> = registry::REGISTRY.iter().filter(|e| reads(e)).map(|e| e.name).collect();
        let those = if those.is_empty() { "none".to_string() } else { those.join(", ") };
        let these = match entries {
            [one] => format!("strategy `{}` ignores it", one.name),
            _ => format!(
                "none of the strategies run ({}) reads it",
                entries.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
            ),
        };
        Err(CheckError(format!("{option} applies only to {class} ({those}); {these}")))
    };
    for switch in options.ablation.switches() {
        refuse(switch.to_string(), "the strategy it ablates", &|e| e.has_ablation(switch))?;
    }
    if options.threads > 1 {
        let class = format!("strategies that explore in parallel on {}", a_kind(kind));
        refuse(format!("--threads {}", options.threads), &class, &|e| e.parallel_on(kind))?;
    }
    if options.hash_compact {
        refuse("--hash-compact".into(), "strategies that keep a store of visited states", &|e| e.hash_compact)?;
    }
    Ok(())
}

/// One run of one strategy on one model, set up step by step.
pub struct Check<'m, M: Registered> {
    model: &'m M,
    file: String,
    strategy: &'static Entry,
    limits: Limits,
    options: SearchOptions,
    progress: Option<crate::explore::Progress<'m>>,
    cancel: Option<Arc<AtomicBool>>,
    graph_limit: Option<usize>,
    races: bool,
}

impl<'m, M: Registered> Check<'m, M> {
    /// A run of the best sound strategy for `model`, without limits.
    pub fn new(model: &'m M) -> Self {
        Check {
            model,
            file: String::new(),
            strategy: registry::default_for_model(model),
            limits: Limits::default(),
            options: SearchOptions::default(),
            progress: None,
            cancel: None,
            graph_limit: None,
            races: false,
        }
    }

    /// Runs strategy `name` instead; an error says why it cannot run on this model.
    pub fn strategy(mut self, name: &str) -> Result<Self, CheckError> {
        self.strategy = strategy_for(self.model, name)?;
        Ok(self)
    }

    /// The registry entry of the strategy this run will use.
    pub fn entry(&self) -> &'static Entry {
        self.strategy
    }

    /// The input's name as reports show it (`file` in the JSON).
    pub fn file(mut self, name: impl Into<String>) -> Self {
        self.file = name.into();
        self
    }

    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Threads, state compaction, ablation switches.
    pub fn options(mut self, options: SearchOptions) -> Self {
        self.options = options;
        self
    }

    /// Called every few thousand transitions with the figures so far and the time spent.
    pub fn on_progress(mut self, f: impl FnMut(&Stats, Duration) + Send + 'm) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// A flag that, once set (e.g. by Ctrl-C), ends the search cleanly with what it found.
    pub fn cancel(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// On an EM trace, adds the race report and the outcomes explained to the run's report
    /// ([`crate::explore::races`]; keeps a schedule per outcome for it).
    pub fn races(mut self, on: bool) -> Self {
        self.races = on;
        self
    }

    /// Records the explored state graph, up to `max_states` states (see [`Check::run_with_graph`]).
    pub fn record_graph(mut self, max_states: usize) -> Self {
        self.graph_limit = Some(max_states);
        self
    }

    pub fn run(self) -> RunReport {
        self.run_with_graph().0
    }

    /// Runs, returning the state graph too when one was asked for and the strategy records one.
    pub fn run_with_graph(self) -> (RunReport, Option<StateGraph>) {
        let entry = self.strategy;
        // An ablated run is labelled with its switches, so that no table shows an unsound
        // variant under the sound algorithm's name.
        let mut label = entry.name.to_string();
        if !entry.ablations.is_empty() {
            for switch in self.options.ablation.switches() {
                label.push(' ');
                label.push_str(switch);
            }
        }
        let mut strategy = entry.build::<M>().expect("checked by strategy_for");
        // The run's own peak, not the process's so far (compare runs one after another).
        crate::alloc::reset_peak();
        // `--max-states` on a strategy that stores no states counts the states it visits.
        let mut search = Search::new(self.model, self.limits.clone().for_strategy(!entry.stateless));
        if let Some(flag) = self.cancel.clone() {
            search = search.with_cancel(flag);
        }
        let races = self.races && self.model.as_em().is_some();
        search.options = self.options;
        search.options.outcome_schedules |= races;
        search.progress = self.progress;
        if entry.records_graph {
            search.graph = self.graph_limit.map(StateGraph::new);
        }
        search.keep_static_hb = races;
        strategy.run(&mut search);
        // One budget for everything after the search (explore/budget.rs): the strategy's own
        // passes used it already; the report's replays and the race analysis share what is left.
        let budget = search.wrap_up();
        let graph = search.graph.take();
        let hb0 = search.static_hb.take();
        let (stats, found) = search.finish();
        let finished = stats.finished;
        let mut report = RunReport::new(&self.file, self.model, &label, stats, found, &budget);
        if let Some(m) = self.model.as_em().filter(|_| races) {
            // Replaying an outcome's run counts its steps against the transitions left.
            // What is left of the search's own budget: its transitions, else its states
            // (`--max-states`), each replayed step counted as one.
            let limits = self.limits.clone().for_strategy(!entry.stateless);
            let (left, from) = match (limits.max_transitions, limits.max_states) {
                (Some(t), _) => (Some(t.saturating_sub(report.transitions)), StopReason::MaxTransitions),
                (None, Some(s)) => {
                    (Some(s.saturating_sub(report.states.unwrap_or(report.transitions))), StopReason::MaxStates)
                }
                (None, None) => (None, StopReason::MaxTransitions),
            };
            budget.set_steps(left, from);
            report.races =
                Some(crate::explore::races::analyse_within(m, &report.found, finished, &budget, hb0.as_ref()));
        }
        // A limit reached after the search (shortening, the replays, the race analysis) is the
        // run's stop too: the report says which, beside what those phases left partial.
        report.stopped_by = report.stopped_by.or_else(|| budget.reached());
        (report, graph)
    }
}

/// The strategies `compare` runs on `model`: those named, each checked to run on it, or by
/// default every registered one that can, but those run only on request (`full-stateless`:
/// `full` is the exhaustive reference, and every interleaving runs for ever on real traces),
/// and always the one `check` runs on it by default (`monitors` with SmartApp conflicts
/// observed, though it runs only on request elsewhere).
pub fn compare_set<M: Registered>(model: &M, names: Option<&[String]>) -> Result<Vec<&'static Entry>, CheckError> {
    match names {
        Some(names) => names.iter().map(|n| strategy_for(model, n)).collect(),
        None => {
            let default = registry::default_for_model(model);
            Ok(registry::applicable::<M>()
                .filter(|e| e.runs_on(model) && (!e.compare_on_request || std::ptr::eq(*e, default)))
                .collect())
        }
    }
}

/// `compare`'s per-run time limit when neither `--time-limit` nor `--max-states` is given, so
/// that a `compare` with no options ends.
pub const COMPARE_DEFAULT_TIME_S: f64 = 60.0;

/// `compare`'s per-run memory limit, MiB, when `--max-memory` is not given (or half of the
/// machine's memory, when that is less): an exhaustive run on a large input stops there
/// instead of at half of the machine.
pub const COMPARE_DEFAULT_MAX_MEMORY_MIB: u64 = 2048;

/// One step of a replay: the choice taken, what it did, what it touched and what it changed.
#[derive(Clone, Debug)]
pub struct ReplayStep {
    pub choice: String,
    pub what: String,
    /// `(write, object name)` for each access.
    pub accesses: Vec<(bool, String)>,
    /// What the step changed, as the model explains it (empty when nothing to say).
    pub changed: String,
}

/// How a replay ended.
#[derive(Clone, Debug)]
pub enum ReplayEnd {
    /// Step `step` (from 1) names a choice that is not enabled there.
    NotEnabled { step: usize, choice: String, enabled: Vec<String> },
    /// The last step ended in an error state.
    Error(ModelError),
    /// Nothing is enabled after the schedule.
    Ended(Outcome),
    /// The schedule ran out with these choices still enabled.
    Open { enabled: Vec<String> },
}

/// A schedule re-executed step by step.
#[derive(Clone, Debug)]
pub struct Replay {
    pub steps: Vec<ReplayStep>,
    pub end: ReplayEnd,
    deadlock_is_error: bool,
}

impl Replay {
    /// cli.md's exit code: 1 when the schedule reproduces an error or (where that is an error)
    /// a deadlock, 2 when it cannot be followed, 0 otherwise.
    pub fn exit_code(&self) -> i32 {
        match &self.end {
            ReplayEnd::NotEnabled { .. } => 2,
            ReplayEnd::Error(_) => 1,
            ReplayEnd::Ended(o) if o.stuck() && self.deadlock_is_error => 1,
            _ => 0,
        }
    }
}

/// Re-executes `schedule` (in [`crate::model::format_schedule`]'s text) on `model`.
pub fn replay<M: Model>(model: &M, schedule: &str) -> Result<Replay, CheckError> {
    let path = parse_schedule(model, schedule).map_err(CheckError)?;
    let names = |cs: &[u32]| cs.iter().map(|&e| model.choice_name(e)).collect::<Vec<_>>();
    let mut s = model.initial();
    let mut enabled = Vec::new();
    let mut steps = Vec::new();
    let done = |steps, end| Ok(Replay { steps, end, deadlock_is_error: model.deadlock_is_error() });
    for (i, &c) in path.iter().enumerate() {
        enabled.clear();
        model.enabled(&s, &mut enabled);
        if !enabled.contains(&c) {
            let end = ReplayEnd::NotEnabled { step: i + 1, choice: model.choice_name(c), enabled: names(&enabled) };
            return done(steps, end);
        }
        let mut what = model.describe(&s, c);
        let mut raw = Accesses::new();
        model.accesses(&s, c, &mut raw);
        // Each object once, a write over a read of it, in the order first touched.
        let mut accesses: Vec<(bool, String)> = Vec::new();
        for a in raw.iter() {
            let name = model.object_name(a.object);
            match accesses.iter_mut().find(|(_, n)| *n == name) {
                Some(seen) => seen.0 |= a.write,
                None => accesses.push((a.write, name)),
            }
        }
        // Descriptions of event firings end with their accesses: shown once, in the list.
        let listed: Vec<String> = raw
            .iter()
            .map(|a| format!("{}{}", if a.write { "W " } else { "R " }, model.object_name(a.object)))
            .collect();
        if let Some(head) = what.strip_suffix(&format!(": {}", listed.join(", "))) {
            what = head.to_string();
        }
        let before = s.clone();
        let mut seen = Vec::new();
        let mut result = model.step_observing(&mut s, c, None, &mut seen);
        // A conflict observed by the last step (`--conflict-mode observe`) is where the
        // schedule was printed for: shown as the error it reaches (the first, when several).
        if result.is_ok() && i + 1 == path.len() && !seen.is_empty() {
            result = Err(seen.swap_remove(0));
        }
        let changed = if result.is_ok() { model.explain_step(&before, &s, c) } else { String::new() };
        steps.push(ReplayStep { choice: model.choice_name(c), what, accesses, changed });
        if let Err(mut e) = result {
            // As the report says it.
            e.message = e.shown_message(model.kind());
            return done(steps, ReplayEnd::Error(e));
        }
    }
    enabled.clear();
    model.enabled(&s, &mut enabled);
    let end = if enabled.is_empty() {
        ReplayEnd::Ended(model.outcome(&s))
    } else {
        ReplayEnd::Open { enabled: names(&enabled) }
    };
    done(steps, end)
}

/// The inputs named on the command line: files stand for themselves; a folder with a
/// `trace.txt` is one trace; a folder of SmartApps (`.groovy` files) is one system, as `check
/// DIR` reads it; any other folder is searched for trace folders and `.events` files, sorted
/// by path.
pub fn expand_inputs(files: &[PathBuf]) -> Result<Vec<PathBuf>, CheckError> {
    let mut out = Vec::new();
    for f in files {
        let smartapps = || crate::trace::input::groovy_folder(f).is_ok_and(|apps| apps.is_some());
        if !f.is_dir() || f.join("trace.txt").is_file() || smartapps() {
            out.push(f.clone());
            continue;
        }
        let mut found = Vec::new();
        let mut stack = vec![f.clone()];
        while let Some(d) = stack.pop() {
            if d.join("trace.txt").is_file() {
                found.push(d);
                continue;
            }
            let entries =
                std::fs::read_dir(&d).map_err(|e| CheckError(format!("{}: cannot read: {e}", d.display())))?;
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "events") {
                    found.push(p);
                }
            }
        }
        if found.is_empty() {
            return Err(CheckError(format!("{}: no traces or event models in this folder", f.display())));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// Share `index` of `count` of the inputs (`--shard i/n`), for job arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `i/n` with 0 <= i < n.
    pub fn parse(text: &str) -> Result<Shard, CheckError> {
        let bad = || CheckError(format!("--shard: expected i/n with 0 <= i < n, got `{text}`"));
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether `file` falls in this shard: a hash of its path as given, the same on every
    /// machine, so the shards of one job array split the inputs between them.
    pub fn contains(&self, file: &Path) -> bool {
        let bytes = file.to_string_lossy();
        (xxhash_rust::xxh3::xxh3_64(bytes.as_bytes()) % self.count as u64) as usize == self.index
    }
}

/// How the runs of one input stand against an exhaustive run among them that finished (cli.md
/// `agree`, `consistent`, `standings`): a finished run must reach exactly its outcome set, an
/// unfinished one may have reached only part of it but nothing outside it. A strategy that
/// missed (finished) or invented an outcome is named, with one outcome and a schedule that
/// reaches it. The winner is the run with the fewest transitions among those that finished
/// with the reference's outcome set.
pub fn verdict<M: Model>(model: &M, runs: &[RunReport]) -> Verdict {
    use crate::report::compare::{Checked, Standing};
    use std::collections::BTreeMap;
    let exhaustive: Vec<&RunReport> =
        registry::exhaustive().filter_map(|e| runs.iter().find(|r| r.strategy == e.name)).collect();
    if exhaustive.is_empty() {
        return Verdict::NotChecked("no exhaustive run (full or full-stateless) among the strategies compared".into());
    }
    let Some(reference) = exhaustive.iter().copied().find(|r| r.finished) else {
        let names: Vec<&str> = exhaustive.iter().map(|r| r.strategy.as_str()).collect();
        return Verdict::NotChecked(format!("the exhaustive search ({}) did not finish", names.join(", ")));
    };
    // What a run reached, each with the schedule it kept (outcomes, then distinct errors).
    let reached = |r: &RunReport| -> BTreeMap<String, Option<Vec<Choice>>> {
        let outcomes = r.found.lines().map(|l| (l.to_string(), r.found.schedule_of(l).map(<[Choice]>::to_vec)));
        let errors = r.found.errors().map(|f| {
            (format!("error {} at line {}: {}", f.error.kind, f.error.line, f.error.message), Some(f.schedule.clone()))
        });
        outcomes.chain(errors).collect()
    };
    let expected = reached(reference);
    let mut disagreements = Vec::new();
    let mut standings = Vec::new();
    for r in runs {
        if std::ptr::eq(r, reference) {
            standings.push((r.strategy.clone(), Standing::Reference));
            continue;
        }
        let got = reached(r);
        // A run a limit stopped may not have got to every outcome: only what it invented counts.
        let missed: Vec<String> =
            if r.finished { expected.keys().filter(|k| !got.contains_key(*k)).cloned().collect() } else { Vec::new() };
        let invented: Vec<String> = got.keys().filter(|k| !expected.contains_key(*k)).cloned().collect();
        if missed.is_empty() && invented.is_empty() {
            standings.push((r.strategy.clone(), if r.finished { Standing::Equal } else { Standing::Subset }));
            continue;
        }
        standings.push((r.strategy.clone(), Standing::Differs));
        let witness = match (missed.first(), invented.first()) {
            (Some(m), _) => expected[m].as_ref().map(|p| (m, reference, p)),
            (None, Some(i)) => got[i].as_ref().map(|p| (i, r, p)),
            (None, None) => None,
        }
        .map(|(outcome, by, path)| {
            let schedule = format_schedule(model, path);
            Witness {
                outcome: outcome.clone(),
                reached_by: by.strategy.clone(),
                replay: format!(
                    "tracepor replay {} --schedule {}{}",
                    crate::report::text::quote(&r.file),
                    crate::report::text::quote(&schedule),
                    r.load_flags
                ),
                schedule,
            }
        });
        disagreements.push(Disagreement { strategy: r.strategy.clone(), missed, invented, witness });
    }
    let winner = runs
        .iter()
        .zip(&standings)
        .filter(|(_, (_, s))| matches!(s, Standing::Reference | Standing::Equal))
        .min_by_key(|(r, _)| r.transitions)
        .map(|(r, _)| r.strategy.clone());
    Verdict::Checked(Checked {
        reference: reference.strategy.clone(),
        outcomes: reference.outcomes,
        errors: reference.errors.len(),
        standings,
        disagreements,
        winner,
    })
}
