//! Presenting results: one [`RunReport`] per (input, strategy), rendered as the JSON of cli.md
//! or as a text report in the manner of Java PathFinder ([`text`]), and [`compare`] tables.

pub mod compare;
pub mod dot;
pub mod findings;
pub mod html;
pub mod physical;
pub mod races;
pub mod text;

use serde::Serialize;

use crate::explore::shorten::{shorten, Finding};
use crate::explore::{Budget, Outcomes, Stats, StopReason};
use crate::model::{format_schedule, Choice, Conflict, Model, ModelError, ModelKind};

/// One error or deadlock, as cli.md's JSON has it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ErrorReport {
    pub kind: String,
    pub message: String,
    pub line: usize,
    pub event: Option<String>,
    pub app: Option<String>,
    pub schedule: String,
    /// Steps of the schedule the search found, when the one shown was shortened by replay
    /// (explore/shorten.rs); absent when it is the search's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shortened_from: Option<usize>,
    /// Steps of a shortest path to the error in the state graph the (stateful) search explored,
    /// when the search put it in place of the schedule first found (`shortened_from` gives that
    /// one's length when it was longer); the schedule shown is this path, or shorter when replay
    /// could still cut it (stateful-dpor's graph lacks states the reduction never stored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_shortest: Option<usize>,
    /// For a conflict: both apps and both values, as the schedule shown reaches it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict: Option<Conflict>,
    /// Where the error arose, named in the input's terms: `file:line, handler h` (SmartApps,
    /// event models); for an EM trace's deadlock, each stuck thread's next operation
    /// (`LOCK 0xb at line 5 (thread 1)`, joined by `; `).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// For a conflict: where the earlier side's write was made (`file:line, handler h`), found
    /// by re-running the schedule shown ([`Model::write_place`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_at: Option<String>,
    /// For an EM trace's deadlock: each stuck thread and what it waits for, named
    /// ([`crate::model::em::StuckThread`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stuck: Vec<crate::model::em::StuckThread>,
    /// For a property violation (kind `property`): the property's name, text, source and where
    /// it is written (docs/properties.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub property: Option<crate::model::PropertyInfo>,
    /// Steps of `schedule`.
    #[serde(skip)]
    pub steps: usize,
}

/// What one strategy found on one input (cli.md's JSON fields, in order).
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub file: String,
    pub model: ModelKind,
    pub strategy: String,
    pub finished: bool,
    pub executions: u64,
    pub transitions: u64,
    pub states: Option<u64>,
    pub unique_transitions: Option<u64>,
    pub outcomes: usize,
    pub deadlocks: usize,
    pub errors: Vec<ErrorReport>,
    pub time_s: f64,
    pub peak_rss_bytes: Option<u64>,
    /// Most heap bytes live during this run (what `--max-memory` limits); null when the
    /// counting allocator is not installed.
    pub peak_alloc_bytes: Option<u64>,
    /// The memory limit the run had: `--max-memory`, or the default (half of physical memory).
    pub memory_limit_mib: Option<u64>,
    /// Why the search stopped early, when it did; JSON gives [`StopReason::code`] (`time`,
    /// `states`, `memory`, `interrupt`, `first-error`).
    #[serde(serialize_with = "stop_code")]
    pub stopped_by: Option<StopReason>,
    pub max_depth: usize,
    /// Transitions that reached a state already stored (stateful strategies).
    pub revisits: Option<u64>,
    /// Average bytes the visited set spends per stored state (stateful strategies).
    pub bytes_per_state: Option<f64>,
    /// Runs cut off by sleep sets (`dpor-sleep`).
    pub sleep_blocked: Option<u64>,
    /// When a limit stopped a depth-first search: rough estimate of the share explored (0-1).
    pub estimated_done: Option<f64>,
    /// Executions that ended in an outcome already seen (`optimal`, `em-dpor-sleep`).
    pub redundant: Option<u64>,
    /// Runs abandoned before their end (`optimal`, `em-dpor-sleep`).
    pub blocked: Option<u64>,
    /// Seconds spent in consistency checks (`optimal`, `em-dpor-sleep`).
    pub consistency_s: Option<f64>,
    /// What of the input the model could not bind or run (`file:line: why`), so that a
    /// silent part of an app is never mistaken for a checked one.
    pub unsupported: Vec<String>,
    /// What the reading of the input warns of ([`Model::warnings`]): a DroidRacer log cut short,
    /// explored as the prefix it holds (where it stops, what was closed).
    pub warnings: Vec<String>,
    /// What the search left out because the property cannot see it ([`Model::left_out`]):
    /// SmartApps not interleaved under `--conflicts`, whose own exceptions are not looked for.
    pub left_out: Vec<String>,
    /// The conflicts among `errors` grouped by device and attribute, naming the apps
    /// ([`findings`]); empty when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts_by_attribute: Vec<findings::AttributeConflicts>,
    /// The pair conflicts among `errors` (a third app's write between the two; kind `pair
    /// conflict`, explore/pair_monitors.rs), grouped the same way, for the pairs the direct
    /// conflicts do not name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pair_conflicts_by_attribute: Vec<findings::AttributeConflicts>,
    /// The physical conflicts among `errors` (kind `physical conflict`, SmartApps under
    /// `--conflicts`) grouped by medium and pair of apps ([`physical`]); empty when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub physical_conflicts: Vec<physical::PhysicalConflicts>,
    /// The pair view's figures when it ran (`monitors` with conflicts observed); null when it
    /// did not (`--no-pair-conflicts`, another strategy, no conflicts observed).
    pub pair_view: Option<crate::explore::pair_monitors::PairView>,
    /// EM traces, when asked for ([`crate::check::Check::races`]): the races and the outcomes
    /// explained, as members `race_pairs` ... `races`, `outcomes_explained` (docs/races.md).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub races: Option<crate::explore::races::RaceReport>,
    #[serde(skip)]
    pub found: Outcomes,
    /// The load options the model was built with (` --bound 1 --conflicts`), for replay lines.
    #[serde(skip)]
    pub load_flags: String,
}

impl ErrorReport {
    /// Where it arose, as the text report's `at:` line and the page say it.
    pub fn place(&self, model: ModelKind) -> String {
        match (&self.event, &self.app, &self.at) {
            (Some(ev), Some(app), Some(at)) => format!("{at} (event {ev}, app {app})"),
            (Some(ev), Some(app), None) => format!("line {} (event {ev}, app {app})", self.line),
            (_, _, Some(at)) => at.clone(),
            _ if model == ModelKind::EmTrace => format!("operation {}", self.line),
            _ => format!("line {}", self.line),
        }
    }

    /// For a conflict, the earlier write as a sentence: `APP wrote VALUE (file:line, handler h)`;
    /// for a physical conflict, the actuation: `APP changed the MEDIUM (file:line, handler h)`.
    pub fn earlier(&self) -> Option<String> {
        let c = self.conflict.as_ref()?;
        if self.kind == crate::model::smartapp::PHYSICAL_CONFLICT {
            let at = self.last_at.as_ref().map(|at| format!(" ({at})")).unwrap_or_default();
            return Some(format!("{} {}{at}", c.last_app, c.last_value));
        }
        Some(match &self.last_at {
            Some(at) => format!("{} wrote {} ({at})", c.last_app, c.last_value),
            None => format!("{} wrote {}", c.last_app, c.last_value),
        })
    }
}

impl RunReport {
    /// `budget`: the run's budget after its search ([`crate::explore::Search::wrap_up`]), which
    /// every replay here polls at each step: once it is spent, schedules stay as found and the
    /// places of earlier writes are left out, so that the run's limits hold.
    pub fn new<M: Model>(
        file: &str,
        model: &M,
        strategy: &str,
        stats: Stats,
        found: Outcomes,
        budget: &Budget,
    ) -> Self {
        // A search's first schedule to an error is rarely short (a depth-first search reaches it
        // deep): shorten it by replay before showing it.
        let mut errors: Vec<ErrorReport> = found
            .errors()
            .map(|f| {
                let short = shorten(model, &f.schedule, &Finding::Error(&f.error), budget);
                // Who wrote what before a conflict depends on the path: take it from the
                // schedule shown, not the one first found (a replay only when they differ).
                let shown_is_found = f.graph_shortest_from.is_none() && short.len() == f.schedule.len();
                let conflict = (!shown_is_found)
                    .then(|| error_at_end(model, &short, &f.error, budget))
                    .flatten()
                    .filter(|e| e.kind == f.error.kind && e.line == f.error.line)
                    .and_then(|e| e.conflict)
                    .or_else(|| f.error.conflict.clone())
                    .map(|c| *c);
                // Replay may still cut a graph-shortest schedule (through states the reduction
                // never stored); either way the report gives the length first found.
                let first = f.graph_shortest_from.unwrap_or(f.schedule.len());
                let last_at =
                    conflict.as_ref().and_then(|c| model.write_place(&short, &c.variable, &c.last_app, budget));
                ErrorReport {
                    kind: f.error.kind.to_string(),
                    message: crate::model::shown_message(model.kind(), &f.error.message, conflict.as_ref()),
                    line: f.error.line,
                    event: f.error.event.clone(),
                    app: f.error.app.clone(),
                    schedule: format_schedule(model, &short),
                    shortened_from: (short.len() < first).then_some(first),
                    graph_shortest: f.graph_shortest_from.map(|_| f.schedule.len()),
                    conflict,
                    at: f.error.at.clone(),
                    last_at,
                    stuck: Vec::new(),
                    property: model.property_info(&f.error),
                    steps: short.len(),
                }
            })
            .collect();
        // On EM traces a stuck execution is the error: report each distinct one.
        if model.deadlock_is_error() {
            for d in found.deadlocks_found() {
                let (outcome, schedule) = (&d.outcome, &d.schedule);
                let stuck = outcome.stuck_operations();
                let list: Vec<String> = stuck.iter().map(u32::to_string).collect();
                // What each stuck thread waits for, in the state the schedule reaches.
                let mut s = model.initial();
                let waits = if schedule.iter().all(|&c| !budget.poll() && model.step(&mut s, c).is_ok()) {
                    model.stuck_threads(&s)
                } else {
                    Vec::new()
                };
                let mut message = format!("stuck: operations {} never run", list.join(" "));
                for w in &waits {
                    message.push_str("; ");
                    message.push_str(&w.text);
                }
                let at: Vec<String> = waits.iter().filter_map(|w| w.op.as_ref()).map(|o| o.describe()).collect();
                errors.push(ErrorReport {
                    kind: "deadlock".into(),
                    message,
                    line: stuck.first().map_or(0, |&o| o as usize),
                    event: None,
                    app: None,
                    schedule: format_schedule(model, schedule),
                    shortened_from: d.graph_shortest_from.filter(|&n| n > schedule.len()),
                    graph_shortest: d.graph_shortest_from.map(|_| schedule.len()),
                    conflict: None,
                    at: (!at.is_empty()).then(|| at.join("; ")),
                    last_at: None,
                    stuck: waits,
                    property: None,
                    steps: schedule.len(),
                });
            }
        }
        let conflicts_by_attribute = findings::group(&errors);
        let pair_conflicts_by_attribute = findings::group_pairs(&errors);
        let physical_conflicts = physical::group(&errors);
        RunReport {
            physical_conflicts,
            conflicts_by_attribute,
            pair_conflicts_by_attribute,
            pair_view: stats.pair_view,
            file: file.to_string(),
            model: model.kind(),
            strategy: strategy.to_string(),
            load_flags: model.load_flags() + &smartapps_flag(model.kind()),
            finished: stats.finished,
            executions: stats.executions,
            transitions: stats.transitions,
            states: stats.states,
            unique_transitions: stats.unique_transitions,
            outcomes: found.len(),
            deadlocks: found.deadlocks(),
            errors,
            time_s: stats.time_s,
            peak_rss_bytes: stats.peak_rss_bytes,
            peak_alloc_bytes: stats.peak_alloc_bytes,
            memory_limit_mib: stats.memory_limit_bytes.map(|b| b >> 20),
            stopped_by: stats.stop.filter(|_| !stats.finished),
            max_depth: stats.max_depth,
            bytes_per_state: stats.bytes_per_state(),
            revisits: stats.revisits,
            sleep_blocked: stats.sleep_blocked,
            estimated_done: stats.estimated_done,
            redundant: stats.redundant,
            blocked: stats.blocked,
            consistency_s: stats.consistency_s,
            unsupported: model.unsupported(),
            warnings: model.warnings(),
            left_out: model.left_out(),
            races: None,
            found,
        }
    }

    /// The run's peak memory: counted heap bytes when known, else resident memory.
    pub fn peak_bytes(&self) -> Option<u64> {
        self.peak_alloc_bytes.or(self.peak_rss_bytes)
    }

    /// Exit code of cli.md: 1 found something, 3 a limit stopped the search or the work after
    /// it (a finished search whose race analysis a limit cut short answers only in part), 0
    /// otherwise.
    pub fn exit_code(&self) -> i32 {
        let errors =
            self.errors.iter().any(|e| e.kind != "deadlock") || (self.model.deadlock_is_error() && self.deadlocks > 0);
        if errors {
            1
        } else if !self.finished || self.stopped_by.is_some() {
            3
        } else {
            0
        }
    }

    /// The outcome set as `--outcomes` writes it, one line each, sorted in byte order: the
    /// canonical outcomes (em-trace.md; on event models, the nothing-enabled states) and, where
    /// a model has errors, each distinct one as `error KIND line N` (event-model.md: an outcome
    /// set is the distinct errors, by kind and source line, plus the nothing-enabled states).
    pub fn outcome_text(&self) -> String {
        let mut text = Vec::new();
        self.write_outcome_lines(&mut text).expect("writing to memory");
        String::from_utf8(text).expect("outcome lines are text")
    }

    /// Writes the lines of `outcome_text` to `out` one by one: sorted as borrowed lines, so that
    /// writing the outcome set costs a pointer per outcome, not a second copy of the set (which
    /// would take the process past `--max-memory` after a search the limit stopped).
    pub fn write_outcome_lines(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let errors: Vec<String> =
            self.found.errors().map(|f| format!("error {} line {}", f.error.kind, f.error.line)).collect();
        let mut lines: Vec<&str> = self.found.lines().chain(errors.iter().map(String::as_str)).collect();
        lines.sort_unstable();
        lines.dedup();
        for l in lines {
            out.write_all(l.as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// ` --smartapps DIR` when app lists were read with it: a replay line must find the same apps.
fn smartapps_flag(kind: ModelKind) -> String {
    match crate::trace::applist::smartapps_dir() {
        Some(dir) if kind == ModelKind::SmartApps => {
            format!(" --smartapps {}", text::quote(&dir.display().to_string()))
        }
        _ => String::new(),
    }
}

/// The error the last step of `path` ends in, if it does; or, under `--conflict-mode observe`,
/// the conflict it observes at `like`'s line between `like`'s two apps (the first such). None
/// when `budget` is spent first.
fn error_at_end<M: Model>(model: &M, path: &[Choice], like: &ModelError, budget: &Budget) -> Option<ModelError> {
    let mut s = model.initial();
    let mut seen = Vec::new();
    for (i, &c) in path.iter().enumerate() {
        if budget.poll() {
            return None;
        }
        seen.clear();
        let result = model.step_observing(&mut s, c, None, &mut seen);
        if i + 1 == path.len() {
            let sides =
                |e: &ModelError| e.conflict.as_ref().map(|c| (c.variable.clone(), c.last_app.clone(), c.app.clone()));
            if let Some(k) =
                seen.iter().position(|e| e.line == like.line && e.app == like.app && sides(e) == sides(like))
            {
                return Some(seen.swap_remove(k));
            }
        }
        if let Err(e) = result {
            return Some(e);
        }
    }
    None
}

/// Human-readable byte count.
pub fn bytes(n: Option<u64>) -> String {
    match n {
        None => "-".into(),
        Some(n) if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        Some(n) if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        Some(n) => format!("{:.1} KiB", n as f64 / 1024.0),
    }
}

/// A count that a strategy may not keep.
pub fn opt(n: Option<u64>) -> String {
    n.map_or_else(|| "-".into(), |n| n.to_string())
}

fn stop_code<S: serde::Serializer>(stop: &Option<StopReason>, s: S) -> Result<S::Ok, S::Error> {
    match stop {
        Some(r) => s.serialize_str(r.code()),
        None => s.serialize_none(),
    }
}
