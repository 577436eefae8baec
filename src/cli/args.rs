//! The command line's arguments (shared/spec/cli.md), as clap parses them: the commands, the
//! options every searching command shares ([`Common`]) and what they turn into for the library
//! ([`Limits`], [`SearchOptions`], [`LoadOptions`]).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::explore::registry;
use crate::explore::{Ablation, Limits, SearchOptions};
use crate::model::LoadOptions;

/// The exit codes, at the end of the help of every command that searches (docs/cli.md says more).
pub const EXIT_CODES: &str = "Exit codes: 0 nothing found; 1 an error or deadlock found; 2 bad input or usage; \
3 a limit stopped the search first; 4 `compare`: a strategy missed or invented an outcome (a bug in the \
strategy); 5 the outcomes differ from the expected ones.";

#[derive(Parser)]
#[command(
    name = "tracepor",
    version,
    about = "Finds the bugs of event-driven programs that show only in some orders of their events: \
Android apps (traces DroidRacer recorded) and SmartThings apps (Groovy SmartApps, event models)",
    after_help = TOP_EXAMPLES.to_string() + "\n\n" + EXIT_CODES,
    max_term_width = 0
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Explore an input with one strategy and report what was found.
    #[command(after_help = after_help(CHECK_EXAMPLES))]
    Check {
        /// An Android trace (trace.txt or its folder), an event model (.events), SmartApps
        /// (.groovy files or folders: one home) or an app list; `-` reads standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, help = STRATEGY_HELP)]
        strategy: Option<String>,
        /// Write the state graph here, for Graphviz.
        #[arg(long, value_name = "PATH")]
        dot: Option<PathBuf>,
        /// Compare outcomes with this file (exit 0 or 5).
        #[arg(long, value_name = "PATH")]
        expect: Option<PathBuf>,
        /// Also write a web page drawing each error.
        #[arg(long, value_name = "PATH")]
        html: Option<PathBuf>,
        /// Android traces: report races (any strategy).
        #[arg(long, conflicts_with = "no_races")]
        races: bool,
        /// Android traces: leave out the race report.
        #[arg(long)]
        no_races: bool,
        /// Android traces: explain how outcomes differ (turns the race report on).
        #[arg(long, conflicts_with = "no_races")]
        explain: bool,
        // `races`: a race that changes an outcome (EM traces; turns the race report on); a race
        // report a limit cut short exits 3 when nothing was found (docs/cli.md).
        /// Android traces: also exit 1 on `races` that change an outcome.
        #[arg(
            long,
            value_enum,
            value_name = "FINDINGS",
            value_delimiter = ',',
            conflicts_with = "no_races",
            hide_possible_values = true
        )]
        fail_on: Vec<FailOn>,
        #[command(flatten)]
        common: Common,
    },
    /// Run every input under the folders that has an expected outcome file beside it
    /// (FILE.expected, or expected.outcomes in a trace folder) and report pass/fail per input.
    #[command(
        after_help = after_help(REGRESS_EXAMPLES),
        mut_arg("outcomes", |a| a.help(REGRESS_OUTCOMES))
    )]
    Regress {
        /// Folders searched (with their subfolders) for inputs with an expected file.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        #[arg(long, help = STRATEGY_HELP)]
        strategy: Option<String>,
        /// Also write the results as JUnit XML, for a CI system (one test case per input).
        #[arg(long, value_name = "PATH")]
        junit: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// Run several strategies on one or many inputs and compare them side by side.
    #[command(
        after_help = after_help(COMPARE_EXAMPLES),
        mut_arg("outcomes", |a| a.help(COMPARE_OUTCOMES))
    )]
    Compare {
        /// Inputs: files, or folders searched for traces and event models.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(
            long,
            value_delimiter = ',',
            value_name = "S,S,...",
            help = compare_strategies_help()
        )]
        strategies: Option<Vec<String>>,
        /// Also write the table as CSV.
        #[arg(long, value_name = "PATH")]
        csv: Option<PathBuf>,
        /// Also write the table as Markdown.
        #[arg(long, value_name = "PATH")]
        markdown: Option<PathBuf>,
        /// Also write an SVG chart of transitions per input and strategy (log scale).
        #[arg(long, value_name = "PATH")]
        svg: Option<PathBuf>,
        /// Also write one self-contained HTML page: the table, charts per strategy, the verdicts
        /// and each counterexample drawn lane by lane.
        #[arg(long, value_name = "PATH")]
        html: Option<PathBuf>,
        /// Take only share i of n of the inputs, for job arrays: shards are numbered from 0
        /// (0 <= i < n, e.g. 0/4 .. 3/4), an input's shard is a hash of its path as given, the
        /// same on every machine. Default: every input.
        #[arg(long, value_name = "i/n")]
        shard: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Reproduce the VMCAI tables A.1/A.2 (full and stateful-dpor on each app pair), or decide
    /// IoTCheck's FSE 2020 pairs (device, location-mode and physical interactions, with
    /// --conflicts), from the TSV given; or,
    /// with --homes, check each IoTCheck group's apps together.
    #[command(after_help = CORPUS_EXAMPLES.to_string() + "\n\n" + "Exit codes: 0 every selected pair ran (a pair that does not load is a row saying why); \
2 bad usage or an unreadable TSV or folder; 3 Ctrl-C ended the run before the last pair.")]
    Corpus {
        /// The per-pair figures: shared/reference/vmcai22-tables-a1-a2.tsv, or IoTCheck's study,
        /// iotcheck-fse20-device-interaction.tsv or iotcheck-fse20-switches-global-physical.tsv
        /// (told by its header).
        #[arg(required_unless_present = "homes", conflicts_with = "homes")]
        pairs: Option<PathBuf>,
        /// Check homes instead of pairs: each app list (IoTCheck's appLists format) whole, one
        /// row each, with IoTCheck's conflicts; a folder stands for the app lists in it
        /// (docs/homes.md). May be given several times.
        #[arg(long, value_name = "DIR|LIST")]
        homes: Vec<PathBuf>,
        /// With --homes: also run every pair of each home's apps (same limits) and report the
        /// pairs' findings the home misses, and the home's no pair has.
        #[arg(long, requires = "homes")]
        pairwise: bool,
        /// Folder of APP.groovy files (default: ../smartthings/smartapps beside the TSV's folder;
        /// for the app lists of --homes, the list's folder, then ../smartapps beside it).
        #[arg(long, value_name = "DIR")]
        smartapps: Option<PathBuf>,
        /// Only the pairs of this table (A.1 or A.2), or of this group of IoTCheck's pairs
        /// (e.g. Locks). Default: all.
        #[arg(long, value_name = "A.1|A.2|GROUP")]
        table: Option<String>,
        /// Only the first N pairs (after --table, before --shard). Default: all.
        #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        limit: Option<usize>,
        /// Take only share i of n of the pairs, for job arrays: numbered from 0 (0 <= i < n, e.g.
        /// 0/4 .. 3/4), stable by pair. Default: every pair.
        #[arg(long, value_name = "i/n")]
        shard: Option<String>,
        /// Write one JSON object per pair per line here, for `corpus-merge`.
        #[arg(long, value_name = "PATH")]
        jsonl: Option<PathBuf>,
        #[command(flatten)]
        out: TableFiles,
        #[command(flatten)]
        run: CorpusRun,
    },
    /// Merge the --jsonl files of `corpus` shards into one table.
    #[command(after_help = MERGE_EXAMPLES)]
    CorpusMerge {
        /// The --jsonl files the shards wrote.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        #[command(flatten)]
        out: TableFiles,
        /// Print the merged rows as JSON lines instead of the text table.
        #[arg(long)]
        jsonl: bool,
    },
    /// Re-execute one schedule step by step.
    ///
    /// Each step's operation or event, the objects it reads (R) and writes (W), what it
    /// changed; then the error it ends in, or what is still enabled. Exit 1 when the schedule reproduces an error or deadlock, 2 when a step is not
    /// enabled, 0 otherwise.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay {
        /// The input, as given to `check` (several SmartApps are one system).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The choices to take, comma-separated, `c*k` for k times in a row: thread numbers on
        /// EM traces (`1*5,2*3,1`), event names on event models and SmartApps
        /// (`presence.not_present,smoke.detected`). `check` prints one for each finding.
        #[arg(long, value_name = "SCHEDULE")]
        schedule: String,
        /// Fire each event at most k times, as the run that printed the schedule did (event
        /// models and SmartApps). Default: no bound.
        #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
        bound: Option<u32>,
        /// Check IoTCheck's conflicts, as the run that printed the schedule did (event models
        /// and SmartApps): without it a conflicting write is not an error.
        #[arg(long)]
        conflicts: bool,
        /// What a SmartApp conflict does to its path, as the run that printed the schedule had
        /// it (`observe`, the default, or `end`).
        #[arg(long, value_enum, value_name = "MODE", hide_possible_values = true)]
        conflict_mode: Option<crate::model::ConflictMode>,
        /// Conflicts on these attributes only, as the run that printed the schedule did.
        #[arg(long, value_name = "ATTR,...", value_parser = crate::model::smartapp::conflict_scope)]
        conflicts_on: Option<crate::model::ConflictScope>,
        /// The property file the run that printed the schedule checked.
        #[arg(long, value_name = "FILE")]
        properties: Option<PathBuf>,
        /// As the run that printed the schedule: no property library on a home.
        #[arg(long)]
        no_default_properties: bool,
        /// Routines leave the location mode as it is, as the run that printed the schedule had it.
        #[arg(long)]
        routines_keep_mode: bool,
        /// Inputs kept at one value, as the run that printed the schedule had them.
        #[arg(long)]
        fixed_inputs: bool,
        /// Physical channels between SmartApps, as the run that printed the schedule had.
        #[arg(long)]
        physical: bool,
        /// Folder of the apps an app list names (default: the list's folder, then ../smartapps
        /// beside it).
        #[arg(long, value_name = "DIR")]
        smartapps: Option<PathBuf>,
    },
    /// Show what the input holds, without exploring.
    #[command(after_help = STATS_EXAMPLES)]
    Stats {
        /// The input, as for `check`; a folder of SmartApps lists each app, loaded or why not.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// One JSON object on stdout instead of the table (docs/cli.md).
        #[arg(long)]
        json: bool,
        /// Folder of the apps an app list names (default: the list's folder, then ../smartapps
        /// beside it).
        #[arg(long, value_name = "DIR")]
        smartapps: Option<PathBuf>,
    },
    /// Convert DroidRacer's raw log (abc_log.txt) to EM-Explorer's trace.txt and dependence.txt,
    /// as `check` reads it (docs/abc-log.md).
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert {
        /// The log.
        file: PathBuf,
        /// Folder to write trace.txt and dependence.txt into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

/// What `check --fail-on` also fails on.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// A race that changes an outcome.
    Races,
}

#[derive(Args, Clone)]
pub struct Common {
    // The help says each option in a line or two of plain words; docs/cli.md has the details,
    // and the options hidden here (ablations, storage, the pair view): `check --help` stays
    // under 80 lines (tests/it/unit/cli_args.rs).
    /// Print the report as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Write the outcome lines here (`-`: stdout).
    #[arg(long, value_name = "PATH")]
    pub outcomes: Option<PathBuf>,
    /// Each event at most K times. Default: no bound.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub bound: Option<u32>,
    /// Report apps overwriting each other's devices.
    #[arg(long)]
    pub conflicts: bool,
    /// On a conflict: `observe` (default) or `end`.
    #[arg(long, value_enum, value_name = "MODE", hide_possible_values = true)]
    pub conflict_mode: Option<crate::model::ConflictMode>,
    /// Conflicts on these attributes only, e.g. lock.
    #[arg(long, value_name = "ATTRS", value_parser = crate::model::smartapp::conflict_scope)]
    pub conflicts_on: Option<crate::model::ConflictScope>,
    // A violation is an error of kind `property` with the shortest event sequence reaching it.
    /// Check the safety properties in this file (docs/properties.md).
    #[arg(long, value_name = "FILE")]
    pub properties: Option<PathBuf>,
    /// Homes: no property library on the home's devices.
    #[arg(long)]
    pub no_default_properties: bool,
    // `location.helloHome.execute` leaves the mode as it is, as IoTCheck and the FSE 2020
    // study take it; by default a routine may set any mode, which the configurations pick.
    /// SmartApps: routines leave the location mode as it is.
    #[arg(long)]
    pub routines_keep_mode: bool,
    /// SmartApps: each input keeps one value and sensors only read their default (IoTCheck's).
    #[arg(long)]
    pub fixed_inputs: bool,
    /// Ablation (SmartApps): store the attributes no app reads or writes, the conflict record
    /// of attributes one app writes, and `state` keys no code reads (left out by default;
    /// docs/reductions-homes.md).
    #[arg(long, hide = true)]
    pub keep_dead_state: bool,
    /// With --conflicts: physical channels between apps too.
    #[arg(long)]
    pub physical: bool,
    /// Folder of a list's apps. Default: beside it.
    #[arg(long, value_name = "DIR")]
    pub smartapps: Option<PathBuf>,
    // Zero limits would stop every search before it starts: refused here, like zero threads.
    /// Stop after this many seconds. Default: none.
    #[arg(long, value_name = "SECONDS", value_parser = crate::validate::seconds)]
    pub time_limit: Option<f64>,
    /// Stop after this many states. Default: none.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
    /// Heap limit in MiB. Default: half the memory.
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: Option<u64>,
    /// Threads; default: all for `monitors`, else 1.
    #[arg(long, value_name = "N", value_parser = crate::validate::threads)]
    pub threads: Option<usize>,
    /// Store 64-bit state fingerprints instead of whole states (stateful strategies).
    #[arg(long, hide = true)]
    pub hash_compact: bool,
    /// Ablation (stateful DPOR): end an execution at any state already on it.
    #[arg(long, hide = true)]
    pub no_full_cycle: bool,
    /// Ablation (stateful DPOR): search backwards along the current stack only.
    #[arg(long, hide = true)]
    pub no_graph_backtrack: bool,
    /// Ablation (stateful DPOR): treat a transition as a single access.
    #[arg(long, hide = true)]
    pub no_per_location: bool,
    /// Ablation (stateful DPOR): no backtracking from the graph at a state match.
    #[arg(long, hide = true)]
    pub no_match_update: bool,
    /// Stateful DPOR: literal Algorithms 3 and 5 instead of the Appendix D summaries.
    #[arg(long, hide = true)]
    pub no_summaries: bool,
    /// Stateful DPOR: a new state fires its lowest-numbered unexplored event (default: the next
    /// one after the event that led there, round-robin, as IoTCheck's DPOR listener does).
    #[arg(long, hide = true)]
    pub lowest_first: bool,
    /// `monitors` (the default with conflicts observed): do not look for pair conflicts, the
    /// conflicts of two apps with a third app's write of the attribute between them
    /// (docs/homes.md). Default: looked for, for the pairs no direct conflict names.
    #[arg(long, hide = true)]
    pub no_pair_conflicts: bool,
    /// Stop at the first error or deadlock found.
    #[arg(long)]
    pub stop_at_first_error: bool,
    /// No report; the exit code tells the result.
    #[arg(long, conflicts_with = "json")]
    pub quiet: bool,
    /// Show progress (default: on a terminal).
    #[arg(long, conflicts_with_all = ["no_progress", "quiet"])]
    pub progress: bool,
    /// Never show progress.
    #[arg(long)]
    pub no_progress: bool,
    /// What `--time-limit` counts from (not an option): `check` sets its own start, so that
    /// reading and setting up count; None, each run's search start (`compare`, `regress`).
    #[arg(skip)]
    pub since: Option<std::time::Instant>,
}

/// Where `corpus` and `corpus-merge` also write their table.
#[derive(Args, Clone)]
pub struct TableFiles {
    /// Also write the table as CSV.
    #[arg(long, value_name = "PATH")]
    pub csv: Option<PathBuf>,
    /// Also write the table as Markdown.
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
    /// An SVG chart of the reductions, ours beside the paper's.
    #[arg(long, value_name = "PATH")]
    pub svg: Option<PathBuf>,
    /// One self-contained HTML page: the table, its summary and (VMCAI tables) the chart.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
}

/// How `corpus` runs each pair.
#[derive(Args, Clone)]
pub struct CorpusRun {
    /// Stop each run (each strategy of each pair) after this many seconds; its row then says
    /// it did not finish. Default: none.
    #[arg(long, value_name = "SECONDS", value_parser = crate::validate::seconds)]
    pub time_limit: Option<f64>,
    /// Stop each run before the heap passes this many MiB (counted allocations). Default: half
    /// of the machine's memory (or of its cgroup limit).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: Option<u64>,
    /// Stop each run after storing this many states. Default: none when a time limit is
    /// given, otherwise 50,000, so that every pair ends.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
    /// Fire each event at most K times. Default: no bound, as the paper's runs.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub bound: Option<u32>,
    /// Check IoTCheck's conflicts, as the paper's runs did.
    #[arg(long)]
    pub conflicts: bool,
    /// What a conflict does to its path (as for `check`). Default: `end` over pairs (a pair's
    /// verdict, as the paper's runs stop at the first violation), `observe` with `--homes` (a
    /// home's findings, and the pairs' it is compared with under `--pairwise`).
    #[arg(long, value_enum, value_name = "MODE", hide_possible_values = true)]
    pub conflict_mode: Option<crate::model::ConflictMode>,
    /// Ablation: store the attributes no app reads or writes, as the same option of check does.
    #[arg(long)]
    pub keep_dead_state: bool,
    /// Physical channels between the apps, as the same option of check.
    #[arg(long)]
    pub physical: bool,
}

impl Common {
    pub fn limits(&self) -> Limits {
        Limits {
            time: self.time_limit.map(Duration::from_secs_f64),
            since: self.since,
            max_states: self.max_states,
            max_transitions: None,
            // Without --max-memory, half of physical memory: a search ends cleanly before the
            // machine swaps or the kernel kills it.
            max_memory_bytes: self
                .max_memory
                .map(|mb| mb.saturating_mul(1 << 20))
                .or_else(crate::alloc::default_limit_bytes),
            stop_at_first_error: self.stop_at_first_error,
        }
    }

    /// The threads `entry` runs on: `--threads N`, else every core for a strategy whose results
    /// do not depend on the number (`Entry::all_cores`), else 1. `monitors` runs its own search
    /// only on conflicts observed; elsewhere it runs `full`, whose parallel walk keeps the
    /// counts but not necessarily the schedules found first: one thread unless asked.
    pub fn threads_for(&self, entry: &crate::explore::registry::Entry) -> usize {
        let lo = self.load_options();
        let observed = lo.conflicts && lo.conflict_mode == crate::model::ConflictMode::Observe;
        self.threads.unwrap_or_else(|| {
            if entry.all_cores && observed {
                std::thread::available_parallelism().map_or(1, |n| n.get()).min(crate::validate::MAX_THREADS)
            } else {
                1
            }
        })
    }

    /// The search options given; `threads` is `--threads N` or 1 (each run's own default is
    /// [`Self::threads_for`]).
    pub fn search_options(&self) -> SearchOptions {
        SearchOptions {
            threads: self.threads.unwrap_or(1),
            hash_compact: self.hash_compact,
            ablation: Ablation {
                no_full_cycle: self.no_full_cycle,
                no_graph_backtrack: self.no_graph_backtrack,
                no_per_location: self.no_per_location,
                no_match_update: self.no_match_update,
                no_summaries: self.no_summaries,
                lowest_first: self.lowest_first,
            },
            outcome_schedules: false,
            outcome_fingerprints: false,
            no_pair_conflicts: self.no_pair_conflicts,
        }
    }

    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            bound: self.bound,
            conflicts: self.conflicts || self.conflicts_on.is_some(),
            keep_dead_state: self.keep_dead_state,
            conflict_mode: self.conflict_mode.unwrap_or_default(),
            conflicts_on: self.conflicts_on,
            properties: crate::model::PropertyOptions::new(self.properties.as_deref(), self.no_default_properties),
            routines_keep_mode: self.routines_keep_mode,
            fixed_inputs: self.fixed_inputs,
            physical: self.physical,
        }
    }

    /// The `options` member of the JSON documents: every option that shaped the run, as given
    /// (limits null when not given; `max_memory_mb` is then the default the report names).
    pub fn options_json(&self, strategy: Option<&str>) -> serde_json::Value {
        let a = self.search_options().ablation;
        let ablations: Vec<&str> = [
            ("no-full-cycle", a.no_full_cycle),
            ("no-graph-backtrack", a.no_graph_backtrack),
            ("no-per-location", a.no_per_location),
            ("no-match-update", a.no_match_update),
            ("no-summaries", a.no_summaries),
            ("lowest-first", a.lowest_first),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect();
        serde_json::json!({
            "strategy": strategy,
            "bound": self.bound,
            "conflicts": self.conflicts || self.conflicts_on.is_some(),
            "conflict_mode": (self.conflicts || self.conflicts_on.is_some())
                .then(|| self.conflict_mode.unwrap_or_default().as_str()),
            "conflicts_on": self.conflicts_on.map(|s| s.names()),
            "keep_dead_state": self.keep_dead_state,
            "routines_keep_mode": self.routines_keep_mode,
            "fixed_inputs": self.fixed_inputs,
            "physical": self.physical,
            "time_limit_s": self.time_limit,
            "max_states": self.max_states,
            "max_memory_mb": self.max_memory,
            "threads": self.threads,
            "hash_compact": self.hash_compact,
            "stop_at_first_error": self.stop_at_first_error,
            "no_pair_conflicts": self.no_pair_conflicts,
            "ablations": ablations,
        })
    }

    pub fn show_progress(&self) -> bool {
        !self.quiet && !self.no_progress && (self.progress || std::io::stderr().is_terminal())
    }
}

/// `--strategy`'s help; the strategies are listed after the options.
const STRATEGY_HELP: &str = "How to explore (default: best for the input)";

/// `compare --outcomes`.
const COMPARE_OUTCOMES: &str = "Write each strategy's outcome lines to PATH.<strategy>, over several inputs \
PATH.<input>.<strategy> (the input's `/` made `_`); `-` for standard output, each run under a `# input strategy` \
line. Default: not written";

/// `regress --outcomes`.
const REGRESS_OUTCOMES: &str = "Write each input's outcome lines to PATH.<input> (the input's `/` made `_`), \
e.g. to see what changed or to refresh an expected file; `-` for standard output, each input under a `# input` \
line. Default: not written";

/// Examples at the end of `tracepor --help`.
const TOP_EXAMPLES: &str = "Examples:
  tracepor check ../shared/traces/em-explorer/tacas-2016/mytracks
  tracepor check fixtures/events/example.events --bound 2 --conflicts
  tracepor compare fixtures/em --time-limit 30
Run `tracepor help COMMAND` for each command's options and examples.";

const CHECK_EXAMPLES: &str = "Examples:
  tracepor check ../shared/traces/em-explorer/tacas-2016/mytracks
      an Android trace: its deadlocks, races and outcomes
  tracepor check APP1.groovy APP2.groovy --conflicts --time-limit 60
      two SmartApps as one home, at most a minute
  tracepor check fixtures/em/two-posters --outcomes -
      print every outcome the trace can end in";

const REGRESS_EXAMPLES: &str = "Examples:
  tracepor regress fixtures
      every input under fixtures/ with an expected outcome file, pass or fail
  tracepor regress fixtures/em --strategy optimal --junit results.xml
      with one strategy, also as JUnit XML for a CI system";

const COMPARE_EXAMPLES: &str = "Examples:
  tracepor compare fixtures/em/two-posters
      every strategy that runs on the trace, side by side
  tracepor compare fixtures/em --strategies full,em-dpor,optimal --time-limit 30 --markdown table.md
      three strategies on every trace of a folder, also as a Markdown table";

const CORPUS_EXAMPLES: &str = "Examples:
  tracepor corpus ../shared/reference/vmcai22-tables-a1-a2.tsv --table A.1 --time-limit 60
      table A.1, each run stopped after a minute
  tracepor corpus ../shared/reference/vmcai22-tables-a1-a2.tsv --shard 0/4 --jsonl s0.jsonl
      a quarter of the pairs (one job of four), rows for `corpus-merge`
  tracepor corpus --homes ../shared/smartthings/appLists --time-limit 600 --max-memory 2000
      every IoTCheck group's apps checked together, one row per home";

const MERGE_EXAMPLES: &str = "Example:
  tracepor corpus-merge s0.jsonl s1.jsonl s2.jsonl s3.jsonl --markdown tables.md";

const REPLAY_EXAMPLES: &str = "Examples:
  tracepor replay fixtures/em/two-posters --schedule 1*5,2*2,3
      thread 1 five steps, then thread 2 two, then thread 3 one
  tracepor replay fixtures/events/example.events --schedule mode.change,smoke
      event mode.change, then smoke, of an event model";

const STATS_EXAMPLES: &str = "Examples:
  tracepor stats ../shared/traces/em-explorer/tacas-2016/mytracks
  tracepor stats ../shared/smartthings/smartapps --json
      each app of a folder of SmartApps: loaded, or why not";

const CONVERT_EXAMPLES: &str = "Examples:
  tracepor convert ../shared/traces/em-explorer/tacas-2016/remind-me/abc_log.txt --out remind-me
      writes remind-me/trace.txt and remind-me/dependence.txt
  tracepor check ../shared/traces/em-explorer/tacas-2016/remind-me/abc_log.txt
      explores the same trace without writing it";

/// `compare --strategies`: its default set and the limits that make it end.
fn compare_strategies_help() -> String {
    format!(
        "Comma-separated strategies (default: every one that runs on the input but full-stateless, each run \
stopped after {} s unless --time-limit or --max-states is given, and at {} MiB unless --max-memory is; the list \
is below)",
        crate::check::COMPARE_DEFAULT_TIME_S,
        crate::check::COMPARE_DEFAULT_MAX_MEMORY_MIB
    )
}

/// The end of the help of a command that runs strategies: its examples, the strategies (a line
/// each), where the rest is, the exit codes.
fn after_help(examples: &str) -> String {
    examples.to_string()
        + "\n\nStrategies (docs/strategies.md says which for what):\n"
        + &strategy_lines()
        + "\n\nMore options (ablations, --hash-compact, --keep-dead-state, --no-pair-conflicts), the options \
each strategy reads (others are refused) and every default: docs/cli.md.\n\n"
        + EXIT_CODES
}

/// The strategies, a line each: the name, a few plain words, the inputs it runs on.
fn strategy_lines() -> String {
    let inputs = |e: &registry::Entry| -> String {
        let kinds = e.kinds();
        if kinds.len() == crate::model::ModelKind::ALL.len() {
            return "all inputs".into();
        }
        let names: Vec<&str> = kinds
            .iter()
            .map(|k| match k {
                crate::model::ModelKind::EmTrace => "Android",
                crate::model::ModelKind::Events => "event models",
                crate::model::ModelKind::SmartApps => "SmartApps",
            })
            .collect();
        names.join(", ")
    };
    registry::REGISTRY
        .iter()
        .map(|e| format!("  {:<15} {} ({})", e.name, e.summary, inputs(e)))
        .collect::<Vec<_>>()
        .join("\n")
}
