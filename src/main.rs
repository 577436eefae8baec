//! The `tracepor` command line (shared/spec/cli.md). Parses arguments, loads the input, runs
//! strategies, prints reports; everything else lives in the library.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use tracepor::explore::{self, Limits, Strategy};
use tracepor::model::{self, em::EmModel, format_schedule, parse_schedule, LoadOptions, Loaded, Model};
use tracepor::report::{self, RunReport};
use tracepor::trace::em::OpKind;

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
        file: PathBuf,
        /// Strategy (default: the best sound one for the input).
        #[arg(long)]
        strategy: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Run several strategies on one input and compare them side by side.
    Compare {
        file: PathBuf,
        /// Comma-separated strategies (default: every one that applies).
        #[arg(long, value_delimiter = ',')]
        strategies: Option<Vec<String>>,
        #[command(flatten)]
        common: Common,
    },
    /// Re-execute one schedule step by step.
    Replay {
        file: PathBuf,
        #[arg(long)]
        schedule: String,
        #[arg(long)]
        bound: Option<u32>,
        #[arg(long)]
        conflicts: bool,
    },
    /// Show what the input holds, without exploring.
    Stats {
        file: PathBuf,
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
    #[arg(long)]
    bound: Option<u32>,
    #[arg(long)]
    conflicts: bool,
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    #[arg(long, value_name = "MB")]
    max_memory: Option<u64>,
    /// Parallel exploration where the strategy supports it (none does yet: runs on one thread).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    #[arg(long)]
    stop_at_first_error: bool,
    #[arg(long)]
    quiet: bool,
    #[arg(long, overrides_with = "no_progress")]
    progress: bool,
    #[arg(long)]
    no_progress: bool,
}

impl Common {
    fn limits(&self) -> Result<Limits, String> {
        let time = match self.time_limit {
            Some(t) if !(t.is_finite() && t >= 0.0) => {
                return Err(format!("--time-limit: `{t}` is not a number of seconds"))
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
}

/// Usage or input problems: exit 2 with one message.
struct Fail(String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string())
    }
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

fn run(cli: Cli) -> Result<i32, Fail> {
    match cli.command {
        Command::Check { file, strategy, common } => {
            let loaded = model::load(&file, common.load_options())?;
            let name = strategy.unwrap_or_else(|| default_strategy(&loaded).to_string());
            let report = run_one(&loaded, &file, &name, &common)?;
            if let Some(path) = &common.outcomes {
                std::fs::write(path, report.outcome_text())
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            }
            if common.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else if !common.quiet {
                print!("{}", report::text::render(&report, &describe_input(&loaded)));
            }
            Ok(report.exit_code())
        }
        Command::Compare { file, strategies, common } => {
            let loaded = model::load(&file, common.load_options())?;
            let names = strategies.unwrap_or_else(|| applicable(&loaded).iter().map(|s| s.to_string()).collect());
            let mut runs = Vec::new();
            for name in &names {
                let report = run_one(&loaded, &file, name, &common)?;
                if let Some(path) = &common.outcomes {
                    let mut p = path.clone().into_os_string();
                    p.push(format!(".{name}"));
                    std::fs::write(&p, report.outcome_text())
                        .map_err(|e| format!("{}: cannot write: {e}", Path::new(&p).display()))?;
                }
                runs.push(report);
            }
            let agree = report::compare::agreement(&runs);
            if common.json {
                let doc = serde_json::json!({ "runs": runs, "agree": agree });
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else if !common.quiet {
                print!("{}", report::compare::render(&runs));
            }
            let worst = runs.iter().map(RunReport::exit_code).max().unwrap_or(0);
            Ok(if agree == Some(false) { 1 } else { worst })
        }
        Command::Replay { file, schedule, bound, conflicts } => {
            let loaded = model::load(&file, LoadOptions { bound, conflicts })?;
            match &loaded {
                Loaded::Em(m) => replay(m, &schedule),
            }
        }
        Command::Stats { file, json } => {
            let loaded = model::load(&file, LoadOptions::default())?;
            let stats = match &loaded {
                Loaded::Em(m) => em_stats(m),
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&stats)?);
            } else {
                println!("{} ({})", file.display(), model_kind(&loaded));
                for (k, v) in &stats {
                    println!("  {k:<24} {v}");
                }
            }
            Ok(0)
        }
    }
}

fn model_kind(loaded: &Loaded) -> &'static str {
    match loaded {
        Loaded::Em(m) => m.kind(),
    }
}

fn applicable(loaded: &Loaded) -> Vec<&'static str> {
    match loaded {
        Loaded::Em(_) => explore::STRATEGIES.iter().copied().filter(|s| explore::for_em_trace(s).is_some()).collect(),
    }
}

fn default_strategy(loaded: &Loaded) -> &'static str {
    let have = applicable(loaded);
    ["em-dpor", "stateful-dpor", "dpor", "full"].into_iter().find(|s| have.contains(s)).unwrap_or("full")
}

fn run_one(loaded: &Loaded, file: &Path, name: &str, common: &Common) -> Result<RunReport, Fail> {
    let limits = common.limits()?;
    let cancel = Arc::new(AtomicBool::new(false));
    let file = file.display().to_string();
    match loaded {
        Loaded::Em(m) => {
            let mut s = strategy_or_fail(explore::for_em_trace(name), name, m)?;
            let (stats, found) = explore::run(m, s.as_mut(), limits, cancel);
            Ok(RunReport::new(&file, m, name, stats, found))
        }
    }
}

fn strategy_or_fail<M: Model>(
    s: Option<Box<dyn Strategy<M>>>,
    name: &str,
    m: &M,
) -> Result<Box<dyn Strategy<M>>, Fail> {
    s.ok_or_else(|| {
        if explore::STRATEGIES.contains(&name) {
            Fail(format!("strategy `{name}` does not apply to {} inputs", m.kind()))
        } else {
            Fail(format!("unknown strategy `{name}` (known: {})", explore::STRATEGIES.join(", ")))
        }
    })
}

fn describe_input(loaded: &Loaded) -> String {
    match loaded {
        Loaded::Em(m) => format!(
            "{} operations, {} threads, {} handlers, {} locations, {} dependence edges",
            m.trace.ops.len(),
            m.threads.len(),
            m.handlers.iter().filter(|h| h.is_some()).count(),
            m.trace.locations.len(),
            m.trace.dependence.len()
        ),
    }
}

fn em_stats(m: &EmModel) -> BTreeMap<String, u64> {
    let mut s = BTreeMap::new();
    for o in &m.trace.ops {
        let name = match o.kind {
            OpKind::Read { loc } | OpKind::Write { loc } => {
                let st = if m.trace.locations[loc as usize].is_static { "-STATIC" } else { "" };
                let rw = if matches!(o.kind, OpKind::Read { .. }) { "READ" } else { "WRITE" };
                format!("ops {rw}{st}")
            }
            k => format!("ops {}", format!("{k:?}").split([' ', '{']).next().unwrap_or("?").to_uppercase()),
        };
        *s.entry(name).or_insert(0) += 1;
    }
    s.insert("operations".into(), m.trace.ops.len() as u64);
    s.insert("threads".into(), m.threads.len() as u64);
    s.insert("queues".into(), m.threads.iter().filter(|t| t.loop_after.is_some()).count() as u64);
    s.insert("handlers".into(), m.handlers.iter().filter(|h| h.is_some()).count() as u64);
    s.insert("messages posted".into(), m.handlers.len() as u64);
    s.insert("locations".into(), m.trace.locations.len() as u64);
    s.insert("locks".into(), m.locks as u64);
    s.insert("dependence edges".into(), m.trace.dependence.len() as u64);
    s
}

/// Re-executes `schedule` on an EM trace, printing each step.
fn replay(m: &EmModel, schedule: &str) -> Result<i32, Fail> {
    let path = parse_schedule(m, schedule)?;
    let mut s = m.initial();
    let mut enabled = Vec::new();
    for (i, &c) in path.iter().enumerate() {
        enabled.clear();
        m.enabled(&s, &mut enabled);
        if !enabled.contains(&c) {
            return Err(Fail(format!(
                "schedule step {}: thread {} is not enabled (enabled: {})",
                i + 1,
                m.choice_name(c),
                enabled.iter().map(|&e| m.choice_name(e)).collect::<Vec<_>>().join(" ")
            )));
        }
        let mut accesses = tracepor::model::Accesses::new();
        m.accesses(&s, c, &mut accesses);
        let what = m.describe(&s, c);
        m.step(&mut s, c).map_err(|e| Fail(e.message))?;
        let effect = step_effect(m, &s, &what);
        println!("{:>5}  {what}{effect}", i + 1);
    }
    enabled.clear();
    m.enabled(&s, &mut enabled);
    let outcome = m.outcome(&s);
    if enabled.is_empty() {
        println!("end: {} execution", if outcome.stuck { "stuck (deadlock)" } else { "complete" });
        println!("outcome: {}", outcome.text);
        Ok(if outcome.stuck { 1 } else { 0 })
    } else {
        let names: Vec<String> = enabled.iter().map(|&e| m.choice_name(e)).collect();
        println!("end of schedule; still enabled: threads {}", names.join(" "));
        println!("schedule so far: {}", format_schedule(m, &path));
        Ok(0)
    }
}

/// What a replayed step changed, for reads and writes.
fn step_effect(m: &EmModel, s: &<EmModel as Model>::State, what: &str) -> String {
    let index: u32 = what.split(' ').next().and_then(|i| i.parse().ok()).unwrap_or(0);
    let Some(p) = m.trace.position(index) else {
        return String::new();
    };
    match m.trace.ops[p].kind {
        OpKind::Read { .. } => match m.observed(s, p as u32) {
            Some(0) => "   (reads the initial value)".to_string(),
            Some(w) => format!("   (reads the value of write {w})"),
            None => String::new(),
        },
        OpKind::Write { .. } => "   (now the last write)".to_string(),
        _ => String::new(),
    }
}
