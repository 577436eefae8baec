//! The `tracepor` command line (shared/spec/cli.md). Parses arguments, loads inputs, runs
//! strategies, prints reports; everything else lives in the library.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use tracepor::check::{self, Check, Replay, ReplayEnd};
use tracepor::explore::registry::{self, Entry, Registered};
use tracepor::explore::{Ablation, Limits, SearchOptions};
use tracepor::model::{self, LoadOptions, Model};
use tracepor::regress;
use tracepor::report::{self, compare::InputRuns, compare::NotCompared, RunReport};
use tracepor::with_model;

// Counts live heap bytes: what --max-memory limits and reports show.
#[global_allocator]
static ALLOC: tracepor::alloc::Counting = tracepor::alloc::Counting;

/// The exit codes, at the end of the help of every command that searches.
const EXIT_CODES: &str =
    "Exit codes: 0 explored, nothing found; 1 an error or deadlock was found; 2 bad input or usage; \
3 a limit stopped the search first (nothing found so far); 4 `compare` found that a strategy's outcome set \
differs from the exhaustive one (a bug in the strategy, not in the program checked); 5 `check --expect` or \
`regress`: an outcome set differs from the expected one.";

#[derive(Parser)]
#[command(
    name = "tracepor",
    version,
    about = "Model checker for event-driven programs (Android traces, SmartThings-style event models)",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore an input with one strategy and report what was found.
    #[command(after_help = STRATEGY_NOTE.to_string() + "\n\n" + EXIT_CODES)]
    Check {
        /// The input: an EM trace (trace.txt, its folder, or EM-Explorer's config.cfg), an event
        /// model (.events), or SmartApps (.groovy; several, or folders of them, are one system).
        /// `-` reads standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, help = registry::help())]
        strategy: Option<String>,
        /// Write the explored state graph here, for Graphviz (small searches only).
        #[arg(long, value_name = "PATH")]
        dot: Option<PathBuf>,
        /// Compare the outcome set with this file (as --outcomes wrote it): exit 0 when equal,
        /// 5 when not (the difference is printed), 3 when a limit stopped the search.
        #[arg(long, value_name = "PATH")]
        expect: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// Run every input under the folders that has an expected outcome file beside it
    /// (FILE.expected, or expected.outcomes in a trace folder) and report pass/fail per input.
    #[command(after_help = EXIT_CODES)]
    Regress {
        /// Folders searched (with their subfolders) for inputs with an expected file.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        #[arg(long, help = registry::help())]
        strategy: Option<String>,
        /// Also write the results as JUnit XML, for a CI system (one test case per input).
        #[arg(long, value_name = "PATH")]
        junit: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// Run several strategies on one or many inputs and compare them side by side.
    #[command(after_help = STRATEGY_NOTE.to_string() + "\n\n" + EXIT_CODES)]
    Compare {
        /// Inputs: files, or folders searched for traces and event models.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_delimiter = ',', value_name = "S,S,...", help = strategies_help())]
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
        /// Take only share i of n of the inputs, for job arrays: shards are numbered from 0
        /// (0 <= i < n, e.g. 0/4 .. 3/4), an input's shard is a hash of its path as given, the
        /// same on every machine. Default: every input.
        #[arg(long, value_name = "i/n")]
        shard: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Reproduce the paper's tables A.1/A.2: run full and stateful-dpor on each app pair of its TSV.
    #[command(after_help = "Exit codes: 0 every selected pair ran (a pair that does not load is a row saying why); \
2 bad usage or an unreadable TSV or folder.")]
    Corpus {
        /// The paper's per-pair figures (shared/reference/vmcai22-tables-a1-a2.tsv).
        pairs: PathBuf,
        /// Folder of APP.groovy files (default: ../smartthings/smartapps beside the TSV's folder).
        #[arg(long, value_name = "DIR")]
        smartapps: Option<PathBuf>,
        /// Only the pairs of this table (A.1 or A.2). Default: both.
        #[arg(long, value_name = "A.1|A.2")]
        table: Option<String>,
        /// Only the first N pairs (after --table, before --shard). Default: all.
        #[arg(long, value_name = "N")]
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
    },
    /// Show what the input holds, without exploring.
    Stats {
        /// The input, as for `check`; a folder of SmartApps lists each app, loaded or why not.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// One JSON object on stdout instead of the table (docs/cli.md).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Clone)]
struct Common {
    /// One JSON document on stdout instead of the report (docs/cli.md); a refusal (exit 2) is
    /// then `{"error": ...}`.
    #[arg(long)]
    json: bool,
    /// Write the canonical outcome lines here, sorted, one per line; `-` for standard output.
    /// compare: PATH.<strategy>, over several inputs PATH.<input>.<strategy> (the input's `/`
    /// made `_`). Default: not written.
    #[arg(long, value_name = "PATH")]
    outcomes: Option<PathBuf>,
    /// Fire each event at most K times (event models and SmartApps; makes the state space
    /// acyclic, which the stateless strategies need). Default: no bound.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    bound: Option<u32>,
    /// Report IoTCheck's conflicts: an app writing a variable another app wrote last, with a
    /// different value (event models and SmartApps). Default: off.
    #[arg(long)]
    conflicts: bool,
    // Zero limits would stop every search before it starts: refused here, like zero threads.
    /// Stop the search after this many seconds (fractions allowed), with the figures so far
    /// (exit 3). Default: none.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    time_limit: Option<f64>,
    /// Stop after storing this many states (stateful strategies). Default: none.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_states: Option<u64>,
    /// Stop before the heap passes this many MiB (counted allocations). Default: half of the
    /// machine's memory (or of its cgroup limit), printed in the report.
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    max_memory: Option<u64>,
    /// Worker threads, for the strategies that explore in parallel (marked --threads in
    /// --strategy's help). Default: 1.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    threads: Option<usize>,
    /// Store 64-bit state fingerprints instead of whole states (stateful strategies).
    #[arg(long)]
    hash_compact: bool,
    /// Ablation (stateful DPOR): end an execution at any state already on it.
    #[arg(long)]
    no_full_cycle: bool,
    /// Ablation (stateful DPOR): search backwards along the current stack only.
    #[arg(long)]
    no_graph_backtrack: bool,
    /// Ablation (stateful DPOR): treat a transition as a single access.
    #[arg(long)]
    no_per_location: bool,
    /// Ablation (stateful DPOR): no backtracking from the graph at a state match.
    #[arg(long)]
    no_match_update: bool,
    /// Stateful DPOR: literal Algorithms 3 and 5 instead of the Appendix D summaries.
    #[arg(long)]
    no_summaries: bool,
    /// Stateful DPOR: a new state fires its lowest-numbered unexplored event (default: the next
    /// one after the event that led there, round-robin, as IoTCheck's DPOR listener does).
    #[arg(long)]
    lowest_first: bool,
    /// Stop at the first error or deadlock found (exit 1; the run is then not finished).
    /// Default: search on, to report every distinct one.
    #[arg(long)]
    stop_at_first_error: bool,
    /// Print no report (input errors still go to stderr); the exit code tells the result.
    #[arg(long)]
    quiet: bool,
    /// Show progress on stderr (default: when stderr is a terminal).
    #[arg(long, conflicts_with = "no_progress")]
    progress: bool,
    /// Never show progress.
    #[arg(long)]
    no_progress: bool,
}

/// Where `corpus` and `corpus-merge` also write their table.
#[derive(Args, Clone)]
struct TableFiles {
    /// Also write the table as CSV.
    #[arg(long, value_name = "PATH")]
    csv: Option<PathBuf>,
    /// Also write the table as Markdown.
    #[arg(long, value_name = "PATH")]
    markdown: Option<PathBuf>,
    /// An SVG chart of the reductions, ours beside the paper's.
    #[arg(long, value_name = "PATH")]
    svg: Option<PathBuf>,
}

impl TableFiles {
    fn write(&self, rows: &[tracepor::corpus::Row]) -> Result<(), Fail> {
        use tracepor::report::corpus as r;
        for (path, render) in
            [(&self.csv, r::csv as fn(&[_]) -> String), (&self.markdown, r::markdown), (&self.svg, r::svg)]
        {
            if let Some(p) = path {
                write(p, &render(rows))?;
            }
        }
        Ok(())
    }
}

/// How `corpus` runs each pair.
#[derive(Args, Clone)]
struct CorpusRun {
    /// Stop each run (each strategy of each pair) after this many seconds; its row then says
    /// it did not finish. Default: none.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    time_limit: Option<f64>,
    /// Stop each run before the heap passes this many MiB (counted allocations). Default: half
    /// of the machine's memory (or of its cgroup limit).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    max_memory: Option<u64>,
    /// Fire each event at most K times. Default: no bound, as the paper's runs.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    bound: Option<u32>,
    /// Check IoTCheck's conflicts, as the paper's runs did.
    #[arg(long)]
    conflicts: bool,
}

impl Common {
    fn limits(&self) -> Limits {
        Limits {
            time: self.time_limit.map(Duration::from_secs_f64),
            max_states: self.max_states,
            // Without --max-memory, half of physical memory: a search ends cleanly before the
            // machine swaps or the kernel kills it.
            max_memory_bytes: self
                .max_memory
                .map(|mb| mb.saturating_mul(1 << 20))
                .or_else(tracepor::alloc::default_limit_bytes),
            stop_at_first_error: self.stop_at_first_error,
        }
    }

    fn search_options(&self) -> SearchOptions {
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
        }
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions { bound: self.bound, conflicts: self.conflicts }
    }

    /// The `options` member of the JSON documents: every option that shaped the run, as given
    /// (limits null when not given; `max_memory_mb` is then the default the report names).
    fn options_json(&self, strategy: Option<&str>) -> serde_json::Value {
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
            "conflicts": self.conflicts,
            "time_limit_s": self.time_limit,
            "max_states": self.max_states,
            "max_memory_mb": self.max_memory,
            "threads": self.threads.unwrap_or(1),
            "hash_compact": self.hash_compact,
            "stop_at_first_error": self.stop_at_first_error,
            "ablations": ablations,
        })
    }

    fn show_progress(&self) -> bool {
        !self.quiet && !self.no_progress && (self.progress || std::io::stderr().is_terminal())
    }
}

/// What the brackets of the strategy list say.
const STRATEGY_NOTE: &str = "Strategies: in brackets, the inputs each one runs on (em-trace, events, smartapps) \
and the options it reads; any other option is refused with exit 2.";

/// `compare --strategies`: the registry's one line per strategy, under compare's default.
fn strategies_help() -> String {
    let list = registry::help();
    let lines = list.split_once('\n').map_or("", |x| x.1);
    format!("Comma-separated strategies (default: every one that runs on the input):\n{lines}")
}

/// `--time-limit`: a finite number of seconds above zero.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(t),
        _ => Err(format!("`{text}` is not a number of seconds above 0")),
    }
}

/// Usage or input problems: exit 2 with one message.
struct Fail(String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string())
    }
}

/// Set by Ctrl-C: searches end cleanly and report what they gathered.
fn cancel_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        // A second Ctrl-C ends the process at once.
        let _ = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
        flag
    })
    .clone()
}

/// Output piped into a reader that stops early (`| head`) ends the process quietly, as other
/// command-line tools do, instead of a panic on the failed write.
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: restores the default disposition of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

fn main() -> ExitCode {
    default_sigpipe();
    // A script that asked for JSON reads stdout: its refusals come there too, as JSON (and on
    // stderr as text, for a person watching).
    let json = std::env::args_os().skip(1).any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            if json && e.use_stderr() {
                let first = e.to_string().lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
                print_error_json(&first);
            }
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(Fail(msg)) => {
            eprintln!("tracepor: {msg}");
            if json {
                print_error_json(&msg);
            }
            ExitCode::from(2)
        }
    }
}

/// The document of a run refused with exit 2 (bad input or usage), under `--json`.
fn print_error_json(message: &str) {
    let doc = serde_json::json!({ "error": message, "tool": tool_json() });
    println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
}

/// `stats` keys as JSON has them: `messages posted` -> `messages_posted`, `ops READ-STATIC` ->
/// `ops_read_static` (the text report keeps the readable form).
fn json_key(key: &str) -> String {
    key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

fn run(cli: Cli) -> Result<i32, Fail> {
    match cli.command {
        Command::Check { files, strategy, dot, expect, common } => {
            tracepor::trace::input::set_max_memory(common.max_memory.map(|mb| mb.saturating_mul(1 << 20)));
            let file = joined(&files);
            // Read first: a missing expectation is a usage error, found before any search.
            let expected = expect.as_deref().map(regress::read_expected).transpose()?;
            if let Some(p) = common.outcomes.as_deref().filter(|p| !is_stdout(p)) {
                writable(p)?;
            }
            // The graph may turn out too large to write: only its folder is checked.
            if let Some(p) = &dot {
                writable_dir(p)?;
            }
            check::check_load_options(std::slice::from_ref(&files), &common.load_options())?;
            let loaded = model::load_all(&files, common.load_options())?;
            // Outcome texts are needed only to write or compare them; otherwise each outcome is
            // kept as a fingerprint, so a long stateless search does not fill memory with them.
            let texts = common.outcomes.is_some() || expected.is_some();
            let report =
                with_model!(&loaded, m => check(m, &file, strategy.as_deref(), dot.as_deref(), &common, texts))?;
            let verdict = expected.as_ref().map(|e| regress::judge(&report, e));
            if common.json {
                let mut doc = serde_json::to_value(&report)?;
                doc["tool"] = tool_json();
                doc["options"] = common.options_json(Some(&report.strategy));
                if let Some(v) = &verdict {
                    doc["expect"] = verdict_json(v);
                }
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else if !common.quiet {
                let sut = with_model!(&loaded, m => m.summary());
                print!("{}", report::text::render(&report, &sut));
            }
            if let Some(path) = &common.outcomes {
                write_outcomes(path, None, &report.outcome_text())?;
            }
            if let Some(v) = &verdict {
                if !common.json {
                    print!("expect {}: {}", expect.as_deref().unwrap_or(Path::new("")).display(), v.render(10));
                }
                return Ok(v.exit_code());
            }
            Ok(report.exit_code())
        }
        Command::Regress { dirs, strategy, junit, common } => {
            tracepor::trace::input::set_max_memory(common.max_memory.map(|mb| mb.saturating_mul(1 << 20)));
            let mut inputs = Vec::new();
            for d in &dirs {
                inputs.extend(regress::inputs_with_expectations(d)?);
            }
            let mut cases = Vec::new();
            for (input, expected) in &inputs {
                let started = std::time::Instant::now();
                // A bad input or expected file is this input's failure; the others still run.
                let result = (|| -> Result<regress::Verdict, Fail> {
                    let want = regress::read_expected(expected)?;
                    let loaded = model::load_all(std::slice::from_ref(input), common.load_options())?;
                    let report = with_model!(&loaded, m => check(m, input, strategy.as_deref(), None, &common, true))?;
                    Ok(regress::judge(&report, &want))
                })()
                .map_err(|Fail(msg)| msg);
                let case = regress::Case { input: input.display().to_string(), result, time: started.elapsed() };
                if !common.quiet && !common.json {
                    match &case.result {
                        Ok(v) => print!("{}: {}", case.input, v.render(5)),
                        Err(msg) => println!("{}: error: {msg}", case.input),
                    }
                }
                cases.push(case);
            }
            if let Some(p) = &junit {
                write(p, &regress::junit("regress", &cases))?;
            }
            let passed = cases.iter().filter(|c| matches!(c.result, Ok(regress::Verdict::Pass { .. }))).count();
            if common.json {
                // One object per input: `check --json`'s `expect`, or the error that kept it
                // from running.
                let inputs: Vec<serde_json::Value> = cases
                    .iter()
                    .map(|c| {
                        let mut doc = match &c.result {
                            Ok(v) => verdict_json(v),
                            Err(msg) => serde_json::json!({ "result": "error", "error": msg }),
                        };
                        doc["input"] = serde_json::json!(c.input);
                        doc["time_s"] = serde_json::json!(c.time.as_secs_f64());
                        doc
                    })
                    .collect();
                let doc = serde_json::json!({
                    "inputs": inputs,
                    "passed": passed,
                    "tool": tool_json(),
                    "options": common.options_json(strategy.as_deref()),
                });
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else if !common.quiet {
                println!("{passed} of {} inputs pass", cases.len());
            }
            Ok(regress::exit_code(&cases))
        }
        Command::Compare { files, strategies, csv, markdown, svg, shard, common } => {
            tracepor::trace::input::set_max_memory(common.max_memory.map(|mb| mb.saturating_mul(1 << 20)));
            let mut inputs = check::expand_inputs(&files)?;
            if let Some(shard) = &shard {
                let shard = check::Shard::parse(shard)?;
                inputs.retain(|f| shard.contains(f));
            }
            // Output paths first: a typo must not cost a long search.
            for p in [&csv, &markdown, &svg].into_iter().flatten() {
                writable(p)?;
            }
            if let Some(p) = common.outcomes.as_deref().filter(|p| !is_stdout(p)) {
                writable_dir(p)?;
            }
            // SmartApps given as files are one system, compared as one input.
            let groups: Vec<Vec<PathBuf>> = if files.iter().all(|f| f.extension().is_some_and(|x| x == "groovy")) {
                vec![files.clone()]
            } else {
                inputs.iter().map(|f| vec![f.clone()]).collect()
            };
            check::check_load_options(&groups, &common.load_options())?;
            // A misspelt strategy is a usage error for every input: refused before any search.
            for name in strategies.iter().flatten() {
                if registry::lookup(name).is_none() {
                    return Err(Fail(format!("unknown strategy `{name}` (known: {})", registry::NAMES.join(", "))));
                }
            }
            let many = groups.len() > 1;
            // Over many inputs each one's table is printed as it finishes, and an input that
            // does not load is a line saying why; the others still run.
            let stream = many && !common.json && !common.quiet;
            let (mut all, mut failed) = (Vec::new(), Vec::new());
            for group in &groups {
                let file = &joined(group);
                // An input that does not load, or that a strategy asked for does not apply to,
                // is a row of its own; over one input it is the whole answer (exit 2).
                let mut not_compared = |e: String| -> Result<(), Fail> {
                    if !many {
                        return Err(Fail(e));
                    }
                    if stream {
                        println!("{}: not compared: {e}\n", file.display());
                    }
                    failed.push(NotCompared { file: file.display().to_string(), error: e });
                    Ok(())
                };
                let loaded = match model::load_all(group, common.load_options()) {
                    Ok(l) => l,
                    Err(e) => {
                        not_compared(e.to_string())?;
                        continue;
                    }
                };
                let runs = match with_model!(&loaded, m => compare(m, file, strategies.as_deref(), many, &common)) {
                    Ok(runs) => runs,
                    Err(Fail(e)) => {
                        not_compared(e)?;
                        continue;
                    }
                };
                let verdict = with_model!(&loaded, m => check::verdict(m, &runs));
                let input = InputRuns { runs, verdict };
                if stream {
                    println!("{}", report::compare::render(std::slice::from_ref(&input)));
                }
                all.push(input);
            }
            if let Some(p) = &csv {
                write(p, &report::compare::csv(&all, &failed))?;
            }
            if let Some(p) = &markdown {
                write(p, &report::compare::markdown(&all, &failed))?;
            }
            if let Some(p) = &svg {
                write(p, &report::compare::svg(&all))?;
            }
            if common.json {
                let mut docs: Vec<_> = all.iter().map(|i| i.verdict().json(&i.runs)).collect();
                docs.extend(failed.iter().map(|f| serde_json::json!(f)));
                let mut doc = if docs.len() == 1 && !many {
                    docs.into_iter().next().unwrap()
                } else {
                    serde_json::json!({ "inputs": docs })
                };
                doc["tool"] = tool_json();
                doc["options"] = common.options_json(None);
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else if stream {
                println!("{} of {} inputs compared", all.len(), groups.len());
            } else if !common.quiet {
                print!("{}", report::compare::render(&all));
            }
            // A disagreement is a bug in a strategy, not in the program checked: its own code.
            let disagree = all.iter().any(|i| i.agreement() == Some(false));
            let worst = all.iter().flat_map(|i| &i.runs).map(RunReport::exit_code).max().unwrap_or(0);
            Ok(if disagree {
                4
            } else if !failed.is_empty() {
                2
            } else {
                worst
            })
        }
        Command::Corpus { pairs, smartapps, table, limit, shard, jsonl, out, run } => {
            corpus(&pairs, smartapps, table, limit, shard, jsonl.as_deref(), &out, &run)
        }
        Command::CorpusMerge { shards, out, jsonl } => {
            let rows = tracepor::corpus::merge(&shards)?;
            out.write(&rows)?;
            if jsonl {
                for r in &rows {
                    println!("{}", serde_json::to_string(r)?);
                }
            } else {
                print!("{}", report::corpus::render(&rows));
            }
            Ok(0)
        }
        Command::Replay { files, schedule, bound, conflicts } => {
            check::check_load_options(std::slice::from_ref(&files), &LoadOptions { bound, conflicts })?;
            let loaded = model::load_all(&files, LoadOptions { bound, conflicts })?;
            let replay = with_model!(&loaded, m => check::replay(m, &schedule))?;
            print_replay(&replay)?;
            Ok(replay.exit_code())
        }
        Command::Stats { files, json } => {
            if let Some(apps) = smartapp_coverage(&files)? {
                let loaded = apps.iter().filter(|(_, r)| r.is_ok()).count();
                let with_unsupported = apps.iter().filter(|(_, r)| r.as_ref().is_ok_and(|r| !r.1.is_empty())).count();
                if json {
                    let apps: Vec<serde_json::Value> = apps
                        .iter()
                        .map(|(name, r)| match r {
                            Ok((events, unsupported)) => serde_json::json!({
                                "app": name, "loaded": true, "events": events, "unsupported": unsupported
                            }),
                            Err(why) => serde_json::json!({ "app": name, "loaded": false, "error": why }),
                        })
                        .collect();
                    let doc = serde_json::json!({
                        "apps": apps, "loaded": loaded, "with_unsupported": with_unsupported, "tool": tool_json()
                    });
                    println!("{}", serde_json::to_string_pretty(&doc)?);
                } else {
                    for (name, r) in &apps {
                        match r {
                            Ok((events, unsupported)) => {
                                println!("{name:<60} loaded ({events} events)");
                                for u in unsupported {
                                    println!("    not modelled: {u}");
                                }
                            }
                            Err(why) => println!("{name:<60} {why}"),
                        }
                    }
                    println!("{loaded} of {} apps load", apps.len());
                    println!(
                        "{with_unsupported} of them with something not modelled ({} items, listed above)",
                        apps.iter().filter_map(|(_, r)| r.as_ref().ok()).map(|r| r.1.len()).sum::<usize>()
                    );
                }
                return Ok(0);
            }
            let file = joined(&files);
            let loaded = model::load_all(&files, LoadOptions::default())?;
            let (kind, stats, unsupported) = with_model!(&loaded, m => (m.kind(), m.stats(), m.unsupported()));
            if json {
                let stats: std::collections::BTreeMap<String, u64> =
                    stats.into_iter().map(|(k, v)| (json_key(&k), v)).collect();
                let mut doc = serde_json::to_value(&stats)?;
                if kind == model::ModelKind::SmartApps {
                    doc["unsupported_list"] = serde_json::json!(unsupported);
                }
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else {
                println!("{} ({kind})", file.display());
                for (k, v) in &stats {
                    println!("  {k:<24} {v}");
                }
                for u in &unsupported {
                    println!("  not modelled: {u}");
                }
            }
            Ok(0)
        }
    }
}

/// `corpus`: each pair's row printed (and written to `jsonl`) as soon as it finishes, so that a
/// long or killed run keeps what it did.
#[allow(clippy::too_many_arguments)]
fn corpus(
    pairs: &Path,
    smartapps: Option<PathBuf>,
    table: Option<String>,
    limit: Option<usize>,
    shard: Option<String>,
    jsonl: Option<&Path>,
    out: &TableFiles,
    run: &CorpusRun,
) -> Result<i32, Fail> {
    use std::io::Write;
    use tracepor::corpus;
    let shard = shard.as_deref().map(check::Shard::parse).transpose()?;
    if let Some(t) = &table {
        if t != "A.1" && t != "A.2" {
            return Err(Fail(format!("--table: expected A.1 or A.2, got `{t}`")));
        }
    }
    let all = corpus::read_pairs(pairs)?;
    let selected = corpus::select(all, table.as_deref(), limit, shard);
    // The shared layout: reference/X.tsv beside smartthings/smartapps/.
    let smartapps = smartapps
        .unwrap_or_else(|| pairs.parent().unwrap_or(Path::new(".")).join("..").join("smartthings").join("smartapps"));
    if !smartapps.is_dir() {
        return Err(Fail(format!("{}: no such folder of SmartApps (give --smartapps DIR)", smartapps.display())));
    }
    tracepor::trace::input::set_max_memory(run.max_memory.map(|mb| mb.saturating_mul(1 << 20)));
    let settings = corpus::Settings {
        smartapps,
        limits: Limits {
            time: run.time_limit.map(Duration::from_secs_f64),
            // As `check`: without --max-memory, half of the machine's memory.
            max_memory_bytes: run
                .max_memory
                .map(|mb| mb.saturating_mul(1 << 20))
                .or_else(tracepor::alloc::default_limit_bytes),
            ..Limits::default()
        },
        load: LoadOptions { bound: run.bound, conflicts: run.conflicts },
        cancel: Some(cancel_flag()),
    };
    let mut sink = match jsonl {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| Fail(format!("{}: cannot write: {e}", p.display())))?),
        None => None,
    };
    let stdout = std::io::stdout();
    print!("{}", report::corpus::text_header());
    stdout.lock().flush()?;
    let mut rows = Vec::new();
    for pair in selected {
        // Ctrl-C: the pair under way ends with partial figures; no new one starts.
        if cancel_flag().load(Ordering::SeqCst) {
            break;
        }
        let row = corpus::run_pair(pair, &settings);
        print!("{}", report::corpus::text_row(&row));
        stdout.lock().flush()?;
        if let Some(f) = &mut sink {
            writeln!(f, "{}", serde_json::to_string(&row)?)?;
            f.flush()?;
        }
        rows.push(row);
    }
    print!("{}", report::corpus::text_summary(&corpus::summary(&rows)));
    out.write(&rows)?;
    Ok(0)
}

/// The name of a run over several inputs: their paths joined by ` + `.
fn joined(files: &[PathBuf]) -> PathBuf {
    PathBuf::from(files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" + "))
}

/// What `stats` says of one app of a folder of SmartApps: its events, or why it did not load.
type AppCoverage = (String, Result<(u64, Vec<String>), String>);

/// `stats` on one folder of SmartApps: each app alone, loaded or the first construct that
/// stops it (None when the input is not such a folder).
fn smartapp_coverage(files: &[PathBuf]) -> Result<Option<Vec<AppCoverage>>, Fail> {
    let [dir] = files else { return Ok(None) };
    if !dir.is_dir() {
        return Ok(None);
    }
    let Some(apps) = tracepor::trace::input::detect_groovy(dir)? else { return Ok(None) };
    let mut out = Vec::new();
    for app in &apps {
        let name = app.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let result = match model::load_all(std::slice::from_ref(app), LoadOptions::default()) {
            Ok(l) => Ok(with_model!(&l, m => (m.stats().get("events").copied().unwrap_or(0), m.unsupported()))),
            Err(e) => Err(e.to_string().replace(&app.display().to_string(), "")),
        };
        out.push((name, result));
    }
    Ok(Some(out))
}

fn write(path: &Path, text: &str) -> Result<(), Fail> {
    std::fs::write(path, text).map_err(|e| Fail(format!("{}: cannot write: {e}", path.display())))
}

/// `--outcomes -`: the outcome lines go to standard output.
fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Writes outcome lines to `path` (plus `suffix`, for one of several runs), or to standard
/// output under a `# <label>` line when `path` is `-`.
fn write_outcomes(path: &Path, run: Option<(&str, &str)>, text: &str) -> Result<(), Fail> {
    if is_stdout(path) {
        if let Some((_, label)) = run {
            println!("# {label}");
        }
        print!("{text}");
        return Ok(());
    }
    match run {
        Some((suffix, _)) => {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            write(Path::new(&p), text)
        }
        None => write(path, text),
    }
}

/// Fails now, before any search, when `path` cannot be created or written.
fn writable(path: &Path) -> Result<(), Fail> {
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map(drop)
        .map_err(|e| Fail(format!("{}: cannot write: {e}", path.display())))
}

/// Fails now when the folder `path`'s files would be written in does not exist.
fn writable_dir(path: &Path) -> Result<(), Fail> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if dir.is_dir() {
        Ok(())
    } else {
        Err(Fail(format!("{}: cannot write: no folder {}", path.display(), dir.display())))
    }
}

/// The `tool` member of every JSON document: what produced it.
fn tool_json() -> serde_json::Value {
    serde_json::json!({ "name": "tracepor", "version": env!("CARGO_PKG_VERSION") })
}

/// The most states `--dot` draws; larger graphs are not written.
const DOT_LIMIT: usize = 20_000;

/// Runs one strategy on one input with the command line's limits, options, progress bar and
/// Ctrl-C, writing the state graph when `dot` asks for it.
fn run_one<M: Registered>(
    m: &M,
    file: &Path,
    entry: &Entry,
    common: &Common,
    options: SearchOptions,
    dot: Option<&Path>,
) -> Result<RunReport, Fail> {
    let mut run = Check::new(m)
        .strategy(entry.name)?
        .file(file.display().to_string())
        .limits(common.limits())
        .options(options)
        .cancel(cancel_flag());
    let bar = common.show_progress().then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template("{spinner} {prefix} {elapsed_precise} {msg}").unwrap());
        bar.set_prefix(entry.name);
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    if let Some(bar) = bar.clone() {
        run = run.on_progress(move |s, elapsed| {
            let rate = s.transitions as f64 / elapsed.as_secs_f64().max(1e-9);
            let estimate = s.estimated_done.map_or(String::new(), |d| format!("  ~{:.2}% of the tree", d * 100.0));
            bar.set_message(format!(
                "executions {}  states {}  transitions {}  ({rate:.0}/s){estimate}",
                s.executions,
                s.states.map_or("-".into(), |n| n.to_string()),
                s.transitions
            ));
        });
    }
    if dot.is_some() {
        run = run.record_graph(DOT_LIMIT);
    }
    let (report, graph) = run.run_with_graph();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(path) = dot {
        match graph {
            None => eprintln!(
                "tracepor: not writing {}: strategy `{}` does not record its state graph",
                path.display(),
                entry.name
            ),
            Some(g) if g.overflowed => {
                eprintln!("tracepor: not writing {}: the state graph has more than {DOT_LIMIT} states", path.display())
            }
            Some(g) => write(path, &report::dot::render(&g, &file.display().to_string()))?,
        }
    }
    Ok(report)
}

fn check<M: Registered>(
    m: &M,
    file: &Path,
    strategy: Option<&str>,
    dot: Option<&Path>,
    common: &Common,
    texts: bool,
) -> Result<RunReport, Fail> {
    let entry = match strategy {
        Some(name) => check::strategy_for(m, name)?,
        None => registry::default_for::<M>(),
    };
    check::check_search_options(m.kind(), &[entry], &common.search_options())?;
    let options = SearchOptions { outcome_fingerprints: !texts, ..common.search_options() };
    run_one(m, file, entry, common, options, dot)
}

fn compare<M: Registered>(
    m: &M,
    file: &Path,
    names: Option<&[String]>,
    many: bool,
    common: &Common,
) -> Result<Vec<RunReport>, Fail> {
    let mut runs = Vec::new();
    let entries = check::compare_set(m, names)?;
    check::check_search_options(m.kind(), &entries, &common.search_options())?;
    for entry in entries {
        // Every outcome keeps a schedule, so that one a reduction missed can be shown.
        let options = SearchOptions { outcome_schedules: true, ..common.search_options() };
        let report = run_one(m, file, entry, common, options, None)?;
        if let Some(path) = &common.outcomes {
            // PATH.<strategy>; over many inputs PATH.<input>.<strategy>, the input's path with
            // its separators made `_`, so that no two inputs share a file.
            let suffix = if many {
                format!(".{}.{}", file.display().to_string().replace(['/', '\\'], "_"), entry.name)
            } else {
                format!(".{}", entry.name)
            };
            write_outcomes(
                path,
                Some((&suffix, &format!("{} {}", file.display(), entry.name))),
                &report.outcome_text(),
            )?;
        }
        runs.push(report);
    }
    Ok(runs)
}

/// The `expect` member of `check --json`.
fn verdict_json(v: &regress::Verdict) -> serde_json::Value {
    match v {
        regress::Verdict::Pass { outcomes } => serde_json::json!({ "result": "pass", "outcomes": outcomes }),
        regress::Verdict::Differs { missing, unexpected } => {
            serde_json::json!({ "result": "differs", "missing": missing, "unexpected": unexpected })
        }
        regress::Verdict::Unfinished { stopped_by } => {
            serde_json::json!({ "result": "unfinished", "stopped_by": stopped_by.map(|s| s.code()) })
        }
    }
}

/// Prints each step with its accesses and what changed, then how the schedule ended.
fn print_replay(replay: &Replay) -> Result<(), Fail> {
    // A failed step leads to no state: its accesses are those up to the failure, and it
    // changed nothing (`changed` is empty).
    for (i, step) in replay.steps.iter().enumerate() {
        let accesses = if step.accesses.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> =
                step.accesses.iter().map(|(w, o)| format!("{} {o}", if *w { "W" } else { "R" })).collect();
            format!("   {{{}}}", parts.join(", "))
        };
        println!("{:>5}  [{}] {}{accesses}{}", i + 1, step.choice, step.what, step.changed);
    }
    match &replay.end {
        ReplayEnd::NotEnabled { step, choice, enabled } => {
            return Err(Fail(format!(
                "schedule step {step}: `{choice}` is not enabled (enabled: {})",
                enabled.join(" ")
            )))
        }
        ReplayEnd::Error(e) => println!("error: {}: {} (line {})", e.kind, e.message, e.line),
        ReplayEnd::Ended(outcome) => {
            println!("end: nothing enabled; {}", if outcome.stuck() { "stuck (deadlock)" } else { "complete" });
            println!("outcome: {outcome}");
        }
        ReplayEnd::Open { enabled } => println!("end of schedule; still enabled: {}", enabled.join(" ")),
    }
    Ok(())
}
