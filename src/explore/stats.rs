//! Counters every strategy reports, and the limits that end a search early.

use std::time::Duration;

/// Limits that end a search cleanly, keeping what was gathered so far.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub time: Option<Duration>,
    /// When `time` counts from: the run's start (on the command line, the process's: reading
    /// the input and setting up count against the limit too). None: the search's own start.
    pub since: Option<std::time::Instant>,
    /// Stored states (the strategies that store them; see [`Limits::for_strategy`]).
    pub max_states: Option<u64>,
    /// Transitions taken, re-walks included (all workers of a parallel search together): a
    /// budget that ends a search at the same point on any machine, whatever its load.
    pub max_transitions: Option<u64>,
    pub max_memory_bytes: Option<u64>,
    pub stop_at_first_error: bool,
}

impl Limits {
    /// The limits as a strategy that stores states, or not (`stores_states`), honours them:
    /// `--max-states` counts the states stored where there are any, and otherwise the states
    /// visited, one per transition (a stateless search stores none).
    pub fn for_strategy(mut self, stores_states: bool) -> Limits {
        if !stores_states {
            if let Some(n) = self.max_states.take() {
                self.max_transitions = Some(self.max_transitions.map_or(n, |t| t.min(n)));
            }
        }
        self
    }
}

/// Why a search ended before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    TimeLimit,
    MaxStates,
    MaxTransitions,
    MaxMemory,
    Interrupted,
    /// `--stop-at-first-error`: not a limit, the search did what was asked.
    FirstError,
    /// A parallel worker stopped because another one reached a limit.
    Halted,
}

impl StopReason {
    pub fn describe(self) -> &'static str {
        match self {
            StopReason::TimeLimit => "time limit reached",
            StopReason::MaxStates => "state limit reached",
            StopReason::MaxTransitions => "state limit reached (states visited: one per transition)",
            StopReason::MaxMemory => "memory limit reached",
            StopReason::Interrupted => "interrupted",
            StopReason::FirstError => "stopped at the first error",
            StopReason::Halted => "stopped with the other workers",
        }
    }

    /// The JSON `stopped_by` code: one of a fixed set, for scripts to match on.
    pub fn code(self) -> &'static str {
        match self {
            StopReason::TimeLimit => "time",
            StopReason::MaxStates => "states",
            StopReason::MaxTransitions => "transitions",
            StopReason::MaxMemory => "memory",
            StopReason::Interrupted => "interrupt",
            StopReason::FirstError => "first-error",
            // Never the reason of a whole search (a worker halts because another hit a limit).
            StopReason::Halted => "halted",
        }
    }
}

/// What a search counted. Counts a strategy does not keep stay `None` (JSON null).
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Maximal runs explored (ended by nothing enabled, an error, a state match, a full cycle).
    pub executions: u64,
    /// Transitions executed, re-walks included; replayed prefixes are not counted.
    pub transitions: u64,
    /// Distinct states stored (stateful strategies only).
    pub states: Option<u64>,
    /// Transitions that led to a state already stored (stateful strategies only).
    pub revisits: Option<u64>,
    /// Distinct (state, choice) pairs executed (stateful strategies only).
    pub unique_transitions: Option<u64>,
    pub max_depth: usize,
    /// The pair view's figures, when it ran (`monitors`, explore/pair_monitors.rs).
    pub pair_view: Option<super::pair_monitors::PairView>,
    pub time_s: f64,
    pub peak_rss_bytes: Option<u64>,
    /// Most heap bytes live during the run (counting allocator installed; else None).
    pub peak_alloc_bytes: Option<u64>,
    /// The memory limit the run had, if any.
    pub memory_limit_bytes: Option<u64>,
    /// Bytes the visited set spends on its states (stateful strategies).
    pub stored_state_bytes: Option<u64>,
    pub finished: bool,
    pub stop: Option<StopReason>,
    /// Runs cut off because every enabled thread was asleep (`dpor-sleep`).
    pub sleep_blocked: Option<u64>,
    /// When a limit stopped a depth-first search: a rough estimate of the share of its tree
    /// explored, 0 to 1 (`dpor`, `dpor-sleep`, `em-dpor`; see `dpor::estimate`).
    pub estimated_done: Option<f64>,
    /// Executions that ended in an outcome already seen (`optimal`, `em-dpor-sleep`).
    pub redundant: Option<u64>,
    /// Runs abandoned before their end: blocked by sleep sets or an inconsistent choice (`optimal`, `em-dpor-sleep`).
    pub blocked: Option<u64>,
    /// Seconds spent deciding whether a wanted ordering is consistent (`optimal`, `em-dpor-sleep`).
    pub consistency_s: Option<f64>,
}

impl Stats {
    /// Adds the counts of a search over another part of the same state space.
    pub fn absorb(&mut self, other: &Stats) {
        fn add(a: &mut Option<u64>, b: Option<u64>) {
            if let Some(b) = b {
                *a.get_or_insert(0) += b;
            }
        }
        self.executions += other.executions;
        self.transitions += other.transitions;
        add(&mut self.states, other.states);
        add(&mut self.unique_transitions, other.unique_transitions);
        add(&mut self.revisits, other.revisits);
        add(&mut self.stored_state_bytes, other.stored_state_bytes);
        add(&mut self.sleep_blocked, other.sleep_blocked);
        add(&mut self.redundant, other.redundant);
        add(&mut self.blocked, other.blocked);
        self.max_depth = self.max_depth.max(other.max_depth);
    }

    /// Average bytes per stored state, when states are stored.
    pub fn bytes_per_state(&self) -> Option<f64> {
        Some(self.stored_state_bytes? as f64 / self.states?.max(1) as f64)
    }
}

/// Settings of a search that are not limits: how to store states, how many workers.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Worker threads for strategies that explore in parallel.
    pub threads: usize,
    /// Store 64-bit fingerprints of states instead of the states themselves.
    pub hash_compact: bool,
    /// Parts of stateful-dpor switched off, to show what each one is for.
    pub ablation: Ablation,
    /// Keep the first schedule of every outcome (`compare`, to show a witness of an outcome a
    /// reduction missed).
    pub outcome_schedules: bool,
    /// Keep each outcome as a 128-bit fingerprint, not its text (`check` when no outcome file is
    /// written or compared): a stateless search then holds 16 bytes per outcome found.
    pub outcome_fingerprints: bool,
    /// No pair view (`--no-pair-conflicts`): `monitors` then reports the direct conflicts only
    /// (explore/pair_monitors.rs).
    pub no_pair_conflicts: bool,
}

/// stateful-dpor's ablation switches (command line `--no-…`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ablation {
    pub no_full_cycle: bool,
    pub no_graph_backtrack: bool,
    pub no_per_location: bool,
    pub no_match_update: bool,
    pub no_summaries: bool,
    /// Not an ablation but a choice the algorithm leaves free: a new state fires its
    /// lowest-numbered unexplored event instead of the next one after the event that led there.
    pub lowest_first: bool,
}

impl Ablation {
    /// The switches that are on, as on the command line (`--no-full-cycle`).
    pub fn switches(&self) -> Vec<&'static str> {
        [
            (self.no_full_cycle, "--no-full-cycle"),
            (self.no_graph_backtrack, "--no-graph-backtrack"),
            (self.no_per_location, "--no-per-location"),
            (self.no_match_update, "--no-match-update"),
            (self.no_summaries, "--no-summaries"),
            (self.lowest_first, "--lowest-first"),
        ]
        .into_iter()
        .filter_map(|(on, s)| on.then_some(s))
        .collect()
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            hash_compact: false,
            ablation: Ablation::default(),
            outcome_schedules: false,
            outcome_fingerprints: false,
            no_pair_conflicts: false,
        }
    }
}

fn status_field(name: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

/// Peak resident memory of this process (Linux), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    status_field("VmHWM:")
}

/// Current resident memory of this process (Linux), if known.
pub fn current_rss_bytes() -> Option<u64> {
    status_field("VmRSS:")
}
