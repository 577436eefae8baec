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

use tracepor::explore::{self, graph::StateGraph, Limits, Search, Strategies};
use tracepor::model::{self, parse_schedule, LoadOptions, Loaded, Model};
use tracepor::report::{self, compare::InputRuns, RunReport};

#[derive(Parser)]
#[command(
    name = "tracepor",
    version,
    about = "Model checker for event-driven programs (Android traces, SmartThings-style event models)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore an input with one strategy and report what was found.
    Check {
        /// The input; several SmartApps (or folders of them) are checked together.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Strategy (default: the best sound one for the input).
        #[arg(long)]
        strategy: Option<String>,
        /// Write the explored state graph here, for Graphviz (small searches only).
        #[arg(long, value_name = "PATH")]
        dot: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// Run several strategies on one or many inputs and compare them side by side.
    Compare {
        /// Inputs: files, or folders searched for traces and event models.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Comma-separated strategies (default: every one that applies).
        #[arg(long, value_delimiter = ',')]
        strategies: Option<Vec<String>>,
        /// Also write the table as CSV.
        #[arg(long, value_name = "PATH")]
        csv: Option<PathBuf>,
        /// Also write the table as Markdown.
        #[arg(long, value_name = "PATH")]
        markdown: Option<PathBuf>,
        /// Also write an SVG chart of transitions per input and strategy.
        #[arg(long, value_name = "PATH")]
        svg: Option<PathBuf>,
        /// Take only share i of n of the inputs (stable by file name), for job arrays.
        #[arg(long, value_name = "i/n")]
        shard: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Re-execute one schedule step by step.
    Replay {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        schedule: String,
        #[arg(long)]
        bound: Option<u32>,
        #[arg(long)]
        conflicts: bool,
    },
    /// Show what the input holds, without exploring.
    Stats {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Clone)]
struct Common {
    /// One JSON document on stdout instead of the report.
    #[arg(long)]
    json: bool,
    /// Write the canonical outcome lines here (compare: PATH.<strategy>).
    #[arg(long)]
    outcomes: Option<PathBuf>,
    /// Fire each event at most k times (event models; makes the state space acyclic).
    #[arg(long)]
    bound: Option<u32>,
    /// Report IoTCheck's conflicts (event models).
    #[arg(long)]
    conflicts: bool,
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    #[arg(long, value_name = "MB")]
    max_memory: Option<u64>,
    /// Worker threads for strategies that explore in parallel (full, full-stateless, dpor on EM traces).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Store 64-bit state fingerprints instead of whole states (stateful strategies).
    #[arg(long)]
    hash_compact: bool,
    /// stateful-dpor ablation: end an execution at any state already on it.
    #[arg(long)]
    no_full_cycle: bool,
    /// stateful-dpor ablation: search backwards along the current stack only.
    #[arg(long)]
    no_graph_backtrack: bool,
    /// stateful-dpor ablation: treat a transition as a single access.
    #[arg(long)]
    no_per_location: bool,
    /// stateful-dpor ablation: no backtracking from the graph at a state match.
    #[arg(long)]
    no_match_update: bool,
    /// stateful-dpor: literal Algorithms 3 and 5 instead of the Appendix D summaries.
    #[arg(long)]
    no_summaries: bool,
    #[arg(long)]
    stop_at_first_error: bool,
    #[arg(long)]
    quiet: bool,
    /// Show progress on stderr (default: when stderr is a terminal).
    #[arg(long, overrides_with = "no_progress")]
    progress: bool,
    #[arg(long)]
    no_progress: bool,
}

impl Common {
    fn limits(&self) -> Result<Limits, Fail> {
        let time = match self.time_limit {
            Some(t) if !(t.is_finite() && t >= 0.0) => {
                return Err(Fail(format!("--time-limit: `{t}` is not a number of seconds")))
            }
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => None,
        };
        Ok(Limits {
            time,
            max_states: self.max_states,
            max_memory_bytes: self.max_memory.map(|mb| mb.saturating_mul(1 << 20)),
            stop_at_first_error: self.stop_at_first_error,
        })
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions { bound: self.bound, conflicts: self.conflicts }
    }

    fn show_progress(&self) -> bool {
        !self.quiet && !self.no_progress && (self.progress || std::io::stderr().is_terminal())
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

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(Fail(msg)) => {
            eprintln!("tracepor: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Runs `$body` with `$m` bound to the loaded model, whatever its type.
macro_rules! with_model {
    ($loaded:expr, $m:ident => $body:expr) => {
        match $loaded {
            Loaded::Em($m) => $body,
            Loaded::Events($m) => $body,
            Loaded::SmartApps($m) => $body,
        }
    };
}

fn run(cli: Cli) -> Result<i32, Fail> {
    match cli.command {
        Command::Check { files, strategy, dot, common } => {
            let file = joined(&files);
            let loaded = model::load_all(&files, common.load_options())?;
            let report = with_model!(&loaded, m => check(m, &file, strategy.as_deref(), dot.as_deref(), &common))?;
            if let Some(path) = &common.outcomes {
                write(path, &report.outcome_text())?;
            }
            if common.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else if !common.quiet {
                let sut = with_model!(&loaded, m => m.summary());
                print!("{}", report::text::render(&report, &sut));
            }
            Ok(report.exit_code())
        }
        Command::Compare { files, strategies, csv, markdown, svg, shard, common } => {
            let mut inputs = expand_inputs(&files)?;
            if let Some(shard) = &shard {
                let (i, n) = parse_shard(shard)?;
                inputs.retain(|f| shard_of(f, n) == i);
            }
            let mut all = Vec::new();
            // SmartApps given as files are one system, compared as one input.
            let groups: Vec<Vec<PathBuf>> = if files.iter().all(|f| f.extension().is_some_and(|x| x == "groovy")) {
                vec![files.clone()]
            } else {
                inputs.iter().map(|f| vec![f.clone()]).collect()
            };
            for group in &groups {
                let file = &joined(group);
                let loaded = model::load_all(group, common.load_options())?;
                let runs = with_model!(&loaded, m => compare(m, file, strategies.as_deref(), &common))?;
                all.push(InputRuns { runs });
            }
            if let Some(p) = &csv {
                write(p, &report::compare::csv(&all))?;
            }
            if let Some(p) = &markdown {
                write(p, &report::compare::markdown(&all))?;
            }
            if let Some(p) = &svg {
                write(p, &report::compare::svg(&all))?;
            }
            if common.json {
                let docs: Vec<_> =
                    all.iter().map(|i| serde_json::json!({ "runs": i.runs, "agree": i.agreement() })).collect();
                let doc = if docs.len() == 1 {
                    docs.into_iter().next().unwrap()
                } else {
                    serde_json::json!({ "inputs": docs })
                };
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else if !common.quiet {
                print!("{}", report::compare::render(&all));
            }
            let disagree = all.iter().any(|i| i.agreement() == Some(false));
            let worst = all.iter().flat_map(|i| &i.runs).map(RunReport::exit_code).max().unwrap_or(0);
            Ok(if disagree { 1 } else { worst })
        }
        Command::Replay { files, schedule, bound, conflicts } => {
            let loaded = model::load_all(&files, LoadOptions { bound, conflicts })?;
            with_model!(&loaded, m => replay(m, &schedule))
        }
        Command::Stats { files, json } => {
            if let Some(table) = smartapp_coverage(&files)? {
                print!("{table}");
                return Ok(0);
            }
            let file = joined(&files);
            let loaded = model::load_all(&files, LoadOptions::default())?;
            let (kind, stats) = with_model!(&loaded, m => (m.kind(), m.stats()));
            if json {
                println!("{}", serde_json::to_string_pretty(&stats)?);
            } else {
                println!("{} ({kind})", file.display());
                for (k, v) in &stats {
                    println!("  {k:<24} {v}");
                }
            }
            Ok(0)
        }
    }
}

/// The name of a run over several inputs: their paths joined by ` + `.
fn joined(files: &[PathBuf]) -> PathBuf {
    PathBuf::from(files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" + "))
}

/// `stats` on one folder of SmartApps: each app alone, loaded or the first construct that
/// stops it (None when the input is not such a folder).
fn smartapp_coverage(files: &[PathBuf]) -> Result<Option<String>, Fail> {
    let [dir] = files else { return Ok(None) };
    if !dir.is_dir() {
        return Ok(None);
    }
    let Some(apps) = tracepor::trace::input::detect_groovy(dir)? else { return Ok(None) };
    let mut out = String::new();
    let mut loaded = 0;
    for app in &apps {
        let name = app.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match model::load_all(std::slice::from_ref(app), LoadOptions::default()) {
            Ok(l) => {
                loaded += 1;
                let ev = with_model!(&l, m => m.stats().get("events").copied().unwrap_or(0));
                out.push_str(&format!("{name:<60} loaded ({ev} events)\n"));
            }
            Err(e) => out.push_str(&format!("{name:<60} {}\n", e.to_string().replace(&app.display().to_string(), ""))),
        }
    }
    out.push_str(&format!("{loaded} of {} apps load\n", apps.len()));
    Ok(Some(out))
}

/// `i/n` with 0 <= i < n.
fn parse_shard(text: &str) -> Result<(usize, usize), Fail> {
    let bad = || Fail(format!("--shard: expected i/n with 0 <= i < n, got `{text}`"));
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The shard of an input: a hash of its path as given, the same on every machine.
fn shard_of(file: &Path, n: usize) -> usize {
    let bytes = file.to_string_lossy();
    (xxhash_rust::xxh3::xxh3_64(bytes.as_bytes()) % n as u64) as usize
}

fn write(path: &Path, text: &str) -> Result<(), Fail> {
    std::fs::write(path, text).map_err(|e| Fail(format!("{}: cannot write: {e}", path.display())))
}

/// Files stand for themselves; a folder with a trace.txt is one trace; any other folder is
/// searched for trace folders and `.events` files.
fn expand_inputs(files: &[PathBuf]) -> Result<Vec<PathBuf>, Fail> {
    let mut out = Vec::new();
    for f in files {
        if !f.is_dir() || f.join("trace.txt").is_file() {
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
            let entries = std::fs::read_dir(&d).map_err(|e| Fail(format!("{}: cannot read: {e}", d.display())))?;
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
            return Err(Fail(format!("{}: no traces or event models in this folder", f.display())));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn strategy_or_fail<M: Strategies>(m: &M, name: &str) -> Result<Box<dyn explore::Strategy<M>>, Fail> {
    M::strategy(name).ok_or_else(|| {
        if explore::STRATEGIES.contains(&name) {
            Fail(format!("strategy `{name}` does not apply to {} inputs", m.kind()))
        } else {
            Fail(format!("unknown strategy `{name}` (known: {})", explore::STRATEGIES.join(", ")))
        }
    })
}

/// Stateless strategies walk every path; a cyclic event model has infinitely many.
fn needs_bound<M: Model>(m: &M, name: &str) -> bool {
    matches!(m.kind(), "events" | "smartapps") && matches!(name, "full-stateless" | "dpor" | "dpor-sleep")
}

/// The best sound strategy this build has for `M`.
fn default_strategy<M: Strategies>() -> &'static str {
    let have = explore::applicable::<M>();
    ["em-dpor", "stateful-dpor", "dpor", "full"].into_iter().find(|s| have.contains(s)).unwrap_or("full")
}

/// Runs one strategy on one input, with progress, limits, Ctrl-C and graph recording.
fn run_one<M: Strategies>(
    m: &M,
    file: &Path,
    name: &str,
    common: &Common,
    dot: Option<&Path>,
) -> Result<RunReport, Fail> {
    let mut strategy = strategy_or_fail(m, name)?;
    if needs_bound(m, name) && common.bound.is_none() {
        return Err(Fail(format!("strategy `{name}` is stateless: on an event model it needs --bound k")));
    }
    let mut search = Search::new(m, common.limits()?).with_cancel(cancel_flag());
    search.options.threads = common.threads.unwrap_or(1).max(1);
    search.options.hash_compact = common.hash_compact;
    search.options.ablation = explore::Ablation {
        no_full_cycle: common.no_full_cycle,
        no_graph_backtrack: common.no_graph_backtrack,
        no_per_location: common.no_per_location,
        no_match_update: common.no_match_update,
        no_summaries: common.no_summaries,
    };
    let bar = common.show_progress().then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template("{spinner} {prefix} {elapsed_precise} {msg}").unwrap());
        bar.set_prefix(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    if let Some(bar) = bar.clone() {
        search.progress = Some(Box::new(move |s, elapsed| {
            let rate = s.transitions as f64 / elapsed.as_secs_f64().max(1e-9);
            let estimate = s.estimated_done.map_or(String::new(), |d| format!("  ~{:.2}% of the tree", d * 100.0));
            bar.set_message(format!(
                "executions {}  states {}  transitions {}  ({rate:.0}/s){estimate}",
                s.executions,
                s.states.map_or("-".into(), |n| n.to_string()),
                s.transitions
            ));
        }));
    }
    const DOT_LIMIT: usize = 20_000;
    if dot.is_some() {
        search.graph = Some(StateGraph::new(DOT_LIMIT));
    }
    let (stats, found, graph) = explore::run_search(search, strategy.as_mut());
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let (Some(path), Some(g)) = (dot, graph) {
        if g.overflowed {
            eprintln!("tracepor: not writing {}: the state graph has more than {DOT_LIMIT} states", path.display());
        } else if g.edges.is_empty() && stats.transitions > 0 {
            eprintln!("tracepor: not writing {}: strategy `{name}` does not record its state graph", path.display());
        } else {
            write(path, &report::dot::render(&g, &file.display().to_string()))?;
        }
    }
    Ok(RunReport::new(&file.display().to_string(), m, name, stats, found))
}

fn check<M: Strategies>(
    m: &M,
    file: &Path,
    strategy: Option<&str>,
    dot: Option<&Path>,
    common: &Common,
) -> Result<RunReport, Fail> {
    let name = strategy.unwrap_or_else(|| default_strategy::<M>());
    run_one(m, file, name, common, dot)
}

fn compare<M: Strategies>(
    m: &M,
    file: &Path,
    names: Option<&[String]>,
    common: &Common,
) -> Result<Vec<RunReport>, Fail> {
    let names: Vec<String> = match names {
        Some(n) => n.to_vec(),
        None => explore::applicable::<M>()
            .into_iter()
            .filter(|n| common.bound.is_some() || !needs_bound(m, n))
            .map(String::from)
            .collect(),
    };
    let mut runs = Vec::new();
    for name in &names {
        let report = run_one(m, file, name, common, None)?;
        if let Some(path) = &common.outcomes {
            let mut p = path.clone().into_os_string();
            p.push(format!(".{name}"));
            write(Path::new(&p), &report.outcome_text())?;
        }
        runs.push(report);
    }
    Ok(runs)
}

/// Re-executes `schedule`, printing each step with its accesses and what changed.
fn replay<M: Model>(m: &M, schedule: &str) -> Result<i32, Fail> {
    let path = parse_schedule(m, schedule)?;
    let mut s = m.initial();
    let mut enabled = Vec::new();
    for (i, &c) in path.iter().enumerate() {
        enabled.clear();
        m.enabled(&s, &mut enabled);
        if !enabled.contains(&c) {
            let names: Vec<String> = enabled.iter().map(|&e| m.choice_name(e)).collect();
            return Err(Fail(format!(
                "schedule step {}: `{}` is not enabled (enabled: {})",
                i + 1,
                m.choice_name(c),
                names.join(" ")
            )));
        }
        let what = m.describe(&s, c);
        let mut accesses = tracepor::model::Accesses::new();
        m.accesses(&s, c, &mut accesses);
        let before = s.clone();
        if let Err(e) = m.step(&mut s, c) {
            println!("{:>5}  [{}] {what}", i + 1, m.choice_name(c));
            println!("error: {}: {} (line {})", e.kind, e.message, e.line);
            return Ok(1);
        }
        let changed = m.explain_step(&before, &s, c);
        println!("{:>5}  [{}] {what}{}{}", i + 1, m.choice_name(c), access_text(m, &accesses), changed);
    }
    enabled.clear();
    m.enabled(&s, &mut enabled);
    if enabled.is_empty() {
        let outcome = m.outcome(&s);
        println!("end: nothing enabled; {}", if outcome.stuck { "stuck (deadlock)" } else { "complete" });
        println!("outcome: {}", outcome.text);
        Ok(if outcome.stuck && m.kind() == "em-trace" { 1 } else { 0 })
    } else {
        let names: Vec<String> = enabled.iter().map(|&e| m.choice_name(e)).collect();
        println!("end of schedule; still enabled: {}", names.join(" "));
        Ok(0)
    }
}

fn access_text<M: Model>(m: &M, accesses: &[tracepor::model::Access]) -> String {
    if accesses.is_empty() {
        return String::new();
    }
    let parts: Vec<String> =
        accesses.iter().map(|a| format!("{} {}", if a.write { "W" } else { "R" }, m.object_name(a.object))).collect();
    format!("   {{{}}}", parts.join(", "))
}
