//! Exploration: strategies that walk a [`Model`]'s interleavings, and the machinery they share.
//!
//! Concepts, in the order a run meets them:
//! - **Model** ([`crate::model::Model`]): states, enabled *choices* (a thread, an event), the
//!   *accesses* of a transition (what makes two dependent), outcomes of ended executions.
//! - **Registry** ([`registry`]): every strategy by name, with its paper, the inputs it applies
//!   to, what it needs (`--bound`) and supports (`--threads`, `--dot`, ablations), and how to
//!   build it per model type. The only place strategy names are written.
//! - **Strategy** ([`Strategy`]): decides *which* interleavings to walk; one file per strategy.
//!   Built once per run behind `Box<dyn>`; its loop is generic, so transitions are static calls.
//! - **Search** ([`Search`]): what every strategy reports to: counters ([`Stats`]), limits and
//!   Ctrl-C ([`Limits`], [`StopReason`]), options ([`SearchOptions`], [`Ablation`]), progress,
//!   the state graph ([`graph`]), and what was found ([`Outcomes`]): outcome set, deadlocks,
//!   errors, each with a schedule. Recorded the same way for all, so results compare directly.
//! - **Seed / Group**: parallel workers of one search share a state count and halt together;
//!   their findings come back through [`Search::absorb`].
//! - **DPOR** (below): backtrack and done sets per state on a stateless path, happens-before
//!   clocks, races reversed at the latest dependent transition; sleep sets; stateful variant
//!   with a state transition graph for cycles.
//!
//! | file | strategy | state matching |
//! |---|---|---|
//! | [`full`] | `full`: every enabled choice, visited states not expanded again; then `shortest.rs`, a breadth-first pass giving each error and deadlock a shortest schedule | yes |
//! | [`full_stateless`] | `full-stateless`: every interleaving | no |
//! | `dfs` | the depth-first (and parallel breadth-first) walk both exhaustive ones share | |
//! | [`dpor`] | `dpor`: Flanagan-Godefroid DPOR, posts to one queue dependent (EM traces); `dpor/engine.rs` the DPOR core `em-dpor`, `dpor-sleep` and `em-dpor-sleep` share (race rules, sleep sets and the parallel component plug in at its hook points), `dpor/estimate.rs` its progress estimate, `dpor/race.rs` Flanagan-Godefroid's race rule, `dpor/par.rs` `--threads N` (subtrees handed to idle workers; plugs the parallel component `Donor` into the engine), `dpor/handoff.rs` what the two share | no |
//! | [`dpor_sleep`] | `dpor-sleep`: `dpor` with Godefroid's sleep sets (EM traces; on event models in [`dpor_events`]); the sleep-set component `SleepSets` of the DPOR core | no |
//! | [`dpor_events`] | `dpor`: Flanagan-Godefroid DPOR over static footprints (event models and SmartApps, `--bound k`) | no |
//! | [`em_dpor`] | `em-dpor`: Maiya et al.'s dependence-covering sets (EM traces); the DPOR core's race rule `EmRace` | no |
//! | [`em_dpor_sleep`] | `em-dpor-sleep`: EM-DPOR with sleep sets, a sound step toward one execution per outcome (EM traces) | no |
//! | [`reads_from`] | `optimal`: reads-from maps enumerated, each decided by saturation and a persistent-set witness search; one execution per outcome (EM traces) | within a witness search |
//! | [`stateful_dpor`] | `stateful-dpor`: Trimananda et al., cyclic state spaces | yes |
//! | [`monitors`] | `monitors`: SmartApp conflicts observed, found per attribute on the product of the ghost-free system graph with that attribute's monitor | yes |
//! | [`registry`] | the strategies by name, and what each needs and supports | |
//! | [`stats`] | counters and limits | |
//! | [`outcomes`] | outcome sets, deadlocks and errors | |
//! | [`sets`] | the per-state choice sets of every DPOR search: `ChoiceSet` per path frame, `SetArena` per stored state (`stateful-dpor`) | |
//! | [`graph`] | the explored state graph, for `--dot` | |
//!
//! A new strategy: a file here implementing [`Strategy`], and one entry in [`registry`].

pub mod budget;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod dfs;
pub mod dpor;
pub mod dpor_events;
pub mod dpor_sleep;
pub mod em_dpor;
pub mod em_dpor_sleep;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod firing_memo;
pub mod full;
pub mod full_stateless;
pub mod graph;
pub mod monitors;
pub mod outcomes;
pub mod pair_monitors;
pub mod races;
pub mod reads_from;
pub mod registry;
pub mod sets;
pub mod shorten;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod shortest;
pub mod stateful_dpor;
pub mod stats;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::model::{Choice, Model, ModelError};
pub use budget::Budget;
pub use outcomes::{Deadlock, Found, Outcomes};
pub use stats::{Ablation, Limits, SearchOptions, Stats, StopReason};

/// One exploration strategy (see the table in this module's header).
pub trait Strategy<M: Model> {
    /// The name used on the command line (`--strategy`).
    fn name(&self) -> &'static str;
    /// Walks the interleavings it chooses, reporting to `search`; returns early when
    /// `search.stopped()` says so.
    fn run(&mut self, search: &mut Search<'_, M>);
}

/// What `--progress` is shown through: called with the figures so far and the time spent.
pub type Progress<'m> = Box<dyn FnMut(&Stats, Duration) + Send + 'm>;

/// The state of one search: counters, limits, and what was found so far.
pub struct Search<'m, M: Model> {
    pub model: &'m M,
    pub limits: Limits,
    pub options: SearchOptions,
    pub stats: Stats,
    pub found: Outcomes,
    start: Instant,
    /// What `--time-limit` counts from: `limits.since`, else `start`.
    clock: Instant,
    stop: Option<StopReason>,
    /// The budget of the work after the search proper, made at the first [`Search::wrap_up`].
    after: Option<Arc<Budget>>,
    /// Set from outside (Ctrl-C) to end the search cleanly.
    cancel: Arc<AtomicBool>,
    /// Shared by the workers of one parallel search: set when one of them reached a limit,
    /// and the number of states they stored together.
    group: Option<Arc<Group>>,
    tick: u32,
    /// Units of uneven work since the last check of the clock ([`Search::poll_work`]).
    work: u64,
    /// Called every 4,096 transitions with the figures so far (progress display).
    pub progress: Option<Progress<'m>>,
    /// The explored state graph, when asked for (`--dot`).
    pub graph: Option<graph::StateGraph>,
    /// With `keep_static_hb` set, `optimal` leaves its static happens-before `hb0` here once
    /// it is done with it (the race analysis reads it rather than building it again).
    pub keep_static_hb: bool,
    pub static_hb: Option<reads_from::StaticHb>,
}

impl<'m, M: Model> Search<'m, M> {
    pub fn new(model: &'m M, limits: Limits) -> Self {
        let start = Instant::now();
        Search {
            clock: limits.since.unwrap_or(start),
            model,
            limits,
            options: SearchOptions::default(),
            stats: Stats::default(),
            found: Outcomes::default(),
            start,
            stop: None,
            after: None,
            cancel: Arc::new(AtomicBool::new(false)),
            group: None,
            tick: 0,
            work: 0,
            progress: None,
            graph: None,
            keep_static_hb: false,
            static_hb: None,
        }
    }

    /// Shares a cancellation flag (e.g. one a Ctrl-C handler sets).
    pub fn with_cancel(mut self, cancel: Arc<AtomicBool>) -> Self {
        self.cancel = cancel;
        self
    }

    /// What parallel workers of this search are made from (see [`Seed::worker`]).
    pub fn seed(&mut self) -> Seed<'m, M> {
        self.start_group();
        Seed {
            model: self.model,
            limits: self.limits.clone(),
            options: self.options.clone(),
            cancel: self.cancel.clone(),
            group: self.group.clone().expect("group started"),
            start: self.start,
            clock: self.clock,
        }
    }

    /// Prepares this search to hand out workers that share one state count and halt together.
    pub fn start_group(&mut self) {
        if self.group.is_none() {
            self.group = Some(Arc::new(Group {
                halt: AtomicBool::new(false),
                states: AtomicU64::new(self.stats.states.unwrap_or(0)),
                transitions: AtomicU64::new(self.stats.transitions),
            }));
        }
    }

    /// Takes in a worker's counts and findings.
    pub fn absorb(&mut self, worker: Search<'m, M>) {
        self.stats.absorb(&worker.stats);
        self.found.merge(worker.found);
        if let Some(reason) = worker.stop {
            let weak = |r: Option<StopReason>| matches!(r, None | Some(StopReason::Halted));
            if weak(self.stop) && !(reason == StopReason::Halted && self.stop.is_some()) {
                self.stop = Some(reason);
            }
        }
        if let Some(max) = self.limits.max_states {
            if self.stats.states.is_some_and(|n| n >= max) && self.stop.is_none() {
                self.stop = Some(StopReason::MaxStates);
            }
        }
    }

    /// Whether the search must end now (a limit was reached, Ctrl-C, or the first error when
    /// `--stop-at-first-error`).
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.is_some()
    }

    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stop
    }

    /// Counts one transition taken at `depth` (the length of the path after it).
    #[inline]
    pub fn transition(&mut self, depth: usize) {
        self.stats.transitions += 1;
        if depth > self.stats.max_depth {
            self.stats.max_depth = depth;
        }
        if let Some(max) = self.limits.max_transitions {
            self.transition_budget(max);
        }
        self.memory_check();
        self.tick = self.tick.wrapping_add(1);
        if self.tick.is_multiple_of(CHECK_EVERY) {
            self.check_limits();
        }
    }

    /// For long work between transitions (a strategy's inner loops): counts one unit of work
    /// and, every [`CHECK_EVERY`], runs the same limit check as [`Search::transition`]. Returns
    /// whether the search must end now.
    #[inline]
    pub fn poll(&mut self) -> bool {
        self.memory_check();
        self.tick = self.tick.wrapping_add(1);
        if self.tick.is_multiple_of(CHECK_EVERY) {
            self.check_limits();
        }
        self.stop.is_some()
    }

    /// For work whose steps cost unequal, possibly large, amounts (`optimal`'s witness search:
    /// a persistent set costs a pass over the threads per thread tried): counts `units` (about
    /// a nanosecond each) and checks the clock, Ctrl-C and the other workers once
    /// [`WORK_EVERY`] have accrued, however few steps that took. Counted by steps alone
    /// ([`Search::poll`]), 256 steps of a trace with thousands of threads ran for seconds
    /// between two checks. Returns whether the search must end now.
    #[inline]
    pub fn poll_work(&mut self, units: u64) -> bool {
        self.work += units;
        if self.work >= WORK_EVERY {
            self.work = 0;
            self.check_now();
        }
        self.stop.is_some()
    }

    /// The budget of the work after the search proper (shorter schedules, the conflicts found on
    /// a recorded graph, the report's replays, the race analysis; explore/budget.rs), one for
    /// every phase after the search: made at the first call, from how the search ended. Its
    /// deadline is the time limit plus a twentieth (from the same start as the limit); when a
    /// limit or Ctrl-C stopped the search, also a twentieth of the search's time (at least a
    /// second) from now, and reaching that sooner deadline is reported as the limit that stopped
    /// the search, not as time. The memory limit and Ctrl-C hold as in the search.
    pub fn wrap_up(&mut self) -> Arc<Budget> {
        if let Some(b) = &self.after {
            return b.clone();
        }
        let mut deadline = self.report_deadline();
        // What reaching the deadline is reported as: the time limit, or, when the grace after
        // a limit that stopped the search is the sooner, that limit (explore/budget.rs).
        let mut stands_for = StopReason::TimeLimit;
        if let Some(stop) = self.stop.filter(|&r| r != StopReason::FirstError) {
            let grace = (self.start.elapsed() / 20).max(Duration::from_secs(1));
            if let Some(soon) = Instant::now().checked_add(grace) {
                if deadline.is_none_or(|d| soon < d) {
                    deadline = Some(soon);
                    // A worker's halt is another worker's limit: the run reports a limit.
                    stands_for = if stop == StopReason::Halted { StopReason::TimeLimit } else { stop };
                }
            }
        }
        let budget = Arc::new(
            Budget::unlimited()
                .until(deadline)
                .standing_for(stands_for)
                .memory(self.limits.max_memory_bytes)
                .cancel(Some(self.cancel.clone())),
        );
        self.after = Some(budget.clone());
        budget
    }

    /// A phase after the search proper that finds what the run reports (`monitors`' searches
    /// on its recorded graph) ended early because the run's budget ([`Search::wrap_up`]) was
    /// spent: the run then did not finish, and says why.
    pub fn cut_short(&mut self) {
        if let Some(reason) = self.after.as_ref().and_then(|b| b.reached()) {
            if self.stop.is_none() {
                self.stop = Some(reason);
            }
        }
    }

    /// Counts a newly stored state (stateful strategies).
    #[inline]
    pub fn new_state(&mut self) {
        let n = self.stats.states.get_or_insert(0);
        *n += 1;
        let total = match &self.group {
            Some(g) => g.states.fetch_add(1, Ordering::Relaxed) + 1,
            None => *n,
        };
        if let Some(max) = self.limits.max_states {
            if total >= max && self.stop.is_none() {
                self.halt(StopReason::MaxStates);
            }
        }
    }

    /// The transition budget, over all the workers of a parallel search (a shared count, kept
    /// only when there is a budget).
    fn transition_budget(&mut self, max: u64) {
        let total = match &self.group {
            Some(g) => g.transitions.fetch_add(1, Ordering::Relaxed) + 1,
            None => self.stats.transitions,
        };
        if total >= max && self.stop.is_none() {
            self.halt(StopReason::MaxTransitions);
        }
    }

    /// For a strategy that knows before allocating that a structure of `bytes` would pass
    /// `--max-memory`: stops the search as the limit would (nothing allocated, figures so far).
    /// Returns whether the search must end now.
    pub fn reserve(&mut self, bytes: u64) -> bool {
        let now = crate::alloc::current().unwrap_or(0);
        if self.limits.max_memory_bytes.is_some_and(|max| now.saturating_add(bytes) >= max) && self.stop.is_none() {
            self.halt(StopReason::MaxMemory);
        }
        self.stop.is_some()
    }

    /// Stops this search for `reason`, and the other workers of its group with it.
    fn halt(&mut self, reason: StopReason) {
        self.stop = Some(reason);
        if let Some(g) = &self.group {
            g.halt.store(true, Ordering::Relaxed);
        }
    }

    /// A run ended in `state`, where nothing is enabled: records its outcome.
    pub fn terminal(&mut self, state: &M::State, path: &[Choice]) {
        self.stats.executions += 1;
        let outcome = self.model.outcome(state);
        if self.options.outcome_schedules {
            self.found.keep_schedules();
        }
        if self.options.outcome_fingerprints {
            self.found.fingerprints_only();
        }
        // Only where a stuck end is an error (EM traces) does it stop the search: an event model
        // always ends in states with nothing enabled.
        let error = outcome.stuck() && self.model.deadlock_is_error();
        self.found.add_outcome(outcome, path);
        if self.limits.stop_at_first_error && error && self.stop.is_none() {
            self.halt(StopReason::FirstError);
        }
    }

    /// A run ended some other way (full cycle, bound).
    #[inline]
    pub fn end_execution(&mut self) {
        self.stats.executions += 1;
    }

    /// A run ended by reaching a state already stored.
    #[inline]
    pub fn state_match(&mut self) {
        self.stats.executions += 1;
        *self.stats.revisits.get_or_insert(0) += 1;
    }

    /// A transition ended in an error state; `path` includes that transition.
    pub fn error(&mut self, error: ModelError, path: &[Choice]) {
        self.stats.executions += 1;
        self.found.add_error(error, path);
        if self.limits.stop_at_first_error && self.stop.is_none() {
            self.halt(StopReason::FirstError);
        }
    }

    /// Observations of the transition that ends `path` (conflicts under `--conflict-mode
    /// observe`, [`Model::step_observing`]): findings like errors, but the path goes on. Drains
    /// `seen`.
    pub fn observed(&mut self, seen: &mut Vec<ModelError>, path: &[Choice]) {
        for o in seen.drain(..) {
            self.found.add_error(o, path);
            if self.limits.stop_at_first_error && self.stop.is_none() {
                self.halt(StopReason::FirstError);
            }
        }
    }

    /// The memory limit against counted heap bytes, at every transition and poll: one relaxed
    /// load, and a path step's allocations are all that can pass the limit unseen.
    #[inline]
    fn memory_check(&mut self) {
        if let Some(max) = self.limits.max_memory_bytes {
            if crate::alloc::current().is_some_and(|now| now >= max) && self.stop.is_none() {
                self.halt(StopReason::MaxMemory);
            }
        }
    }

    fn check_limits(&mut self) {
        if self.tick.is_multiple_of(PROGRESS_EVERY) {
            if let Some(report) = self.progress.as_mut() {
                report(&self.stats, self.start.elapsed());
            }
        }
        if self.stop.is_some() {
            return;
        }
        if self.check_now() {
            return;
        }
        if let Some(max) = self.limits.max_memory_bytes.filter(|_| self.tick.is_multiple_of(PROGRESS_EVERY)) {
            // Resident memory from /proc every 4,096 transitions (reading it costs
            // microseconds): the only measure without the counting allocator (a library user's
            // binary), and with it the bound on what the heap's live bytes do not count (freed
            // memory the allocator keeps, stacks), so that peak RSS, as `/usr/bin/time` reports
            // it, stays within the limit too.
            if stats::current_rss_bytes().is_some_and(|rss| rss >= max) {
                self.halt(StopReason::MaxMemory);
            }
        }
    }

    /// Ctrl-C, the other workers' halt and the time limit, read now; whether the search must
    /// end.
    fn check_now(&mut self) -> bool {
        if self.stop.is_none() {
            if self.cancel.load(Ordering::Relaxed) {
                self.stop = Some(StopReason::Interrupted);
            } else if self.group.as_ref().is_some_and(|g| g.halt.load(Ordering::Relaxed)) {
                self.stop = Some(StopReason::Halted);
            } else if self.limits.time.is_some_and(|t| self.clock.elapsed() >= t) {
                self.halt(StopReason::TimeLimit);
            }
        }
        self.stop.is_some()
    }

    /// When work after the search (shorter schedules for what it found) must stop so that
    /// `--time-limit` holds: the limit plus a twentieth of it; None without a time limit.
    pub fn report_deadline(&self) -> Option<Instant> {
        // A limit too far off for an Instant to hold (`--time-limit 1e19`) sets no deadline.
        self.limits.time.and_then(|t| t.checked_add(t / 20)).and_then(|t| self.clock.checked_add(t))
    }

    /// Closes the search: elapsed time, peak memory, whether it finished.
    pub fn finish(mut self) -> (Stats, Outcomes) {
        self.stats.time_s = self.start.elapsed().as_secs_f64();
        self.stats.peak_rss_bytes = stats::peak_rss_bytes();
        self.stats.peak_alloc_bytes = crate::alloc::peak();
        self.stats.memory_limit_bytes = self.limits.max_memory_bytes;
        // Stopped at the first error, the search did what was asked but did not see everything.
        self.stats.finished = self.stop.is_none();
        self.stats.stop = self.stop;
        if self.stats.finished {
            self.stats.estimated_done = None;
        }
        (self.stats, self.found)
    }
}

/// Transitions (or units of work, [`Search::poll`]) between two checks of the clock, Ctrl-C and
/// the other workers: a SmartApp transition runs Groovy code (35,000 a second under load), and
/// checking every 4,096 of them let a time limit pass by a tenth of a second and more; reading
/// the clock costs some 25 ns.
const CHECK_EVERY: u32 = 256;
/// Checks between two progress reports (every 4,096 transitions).
const PROGRESS_EVERY: u32 = 16 * CHECK_EVERY;
/// Units of uneven work ([`Search::poll_work`]) between two checks: some 65 microseconds.
pub const WORK_EVERY: u64 = 1 << 16;

/// What a parallel worker needs of its parent search; shareable across threads.
pub struct Seed<'m, M: Model> {
    model: &'m M,
    limits: Limits,
    options: SearchOptions,
    cancel: Arc<AtomicBool>,
    group: Arc<Group>,
    start: Instant,
    clock: Instant,
}

impl<'m, M: Model> Seed<'m, M> {
    /// A search of another part of the same state space, with the same limits, options and
    /// cancellation. Its findings come back through [`Search::absorb`].
    pub fn worker(&self) -> Search<'m, M> {
        let mut w = Search::new(self.model, self.limits.clone()).with_cancel(self.cancel.clone());
        w.options = self.options.clone();
        w.start = self.start;
        w.clock = self.clock;
        w.group = Some(self.group.clone());
        // A worker started after the group halted (or past the time limit) stops before its
        // first step: a parallel search hands out hundreds of subtrees, and each would otherwise
        // run thousands of transitions before its first poll.
        w.check_limits();
        w
    }
}

/// What the workers of one parallel search share.
pub struct Group {
    halt: AtomicBool,
    states: AtomicU64,
    transitions: AtomicU64,
}

/// Names of the strategies, as on the command line, in [`registry::REGISTRY`]'s order.
pub const STRATEGIES: &[&str] = &registry::NAMES;

/// Runs `strategy` on `model` with `limits`. The caller has checked the strategy applies.
pub fn run<M: Model>(
    model: &M,
    strategy: &mut dyn Strategy<M>,
    limits: Limits,
    cancel: Arc<AtomicBool>,
) -> (Stats, Outcomes) {
    let (stats, found, _) = run_search(Search::new(model, limits).with_cancel(cancel), strategy);
    (stats, found)
}

/// A model type together with the strategies that apply to it, by name (the registry's).
pub trait Strategies: registry::Registered {
    fn strategy(name: &str) -> Option<Box<dyn Strategy<Self>>> {
        registry::lookup(name)?.build::<Self>()
    }
}

impl<M: registry::Registered> Strategies for M {}

/// Names of the strategies that apply to model type `M`, in the order of [`STRATEGIES`].
pub fn applicable<M: Strategies>() -> Vec<&'static str> {
    registry::applicable::<M>().map(|e| e.name).collect()
}

/// The strategies that apply to EM traces, by name.
pub fn for_em_trace(name: &str) -> Option<Box<dyn Strategy<crate::model::em::EmModel>>> {
    crate::model::em::EmModel::strategy(name)
}

/// Runs a prepared search (with progress or graph recording set up) to its end.
pub fn run_search<M: Model>(
    mut search: Search<'_, M>,
    strategy: &mut dyn Strategy<M>,
) -> (Stats, Outcomes, Option<graph::StateGraph>) {
    strategy.run(&mut search);
    let graph = search.graph.take();
    let (stats, found) = search.finish();
    (stats, found, graph)
}
