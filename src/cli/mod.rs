//! The command line as a library: what each `tracepor` command does once its arguments are
//! parsed ([`args`]), so that `main.rs` only parses and prints the outcome, and every command is
//! a library call too ([`run`]). One module per command; [`files`] writes what they write.
//!
//! ```no_run
//! use clap::Parser;
//! let cli = tracepor::cli::Cli::parse_from(["tracepor", "check", "trace.txt", "--quiet"]);
//! let exit_code = tracepor::cli::run(cli).unwrap_or(2);
//! # let _ = exit_code;
//! ```

pub mod args;
mod check;
mod compare;
mod corpus;
pub mod files;
mod replay;
mod stats;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

pub use args::{Cli, Command, Common};

use crate::model::LoadOptions;
use crate::trace::input::Input;
use crate::trace::InputError;

/// An input's paths and what they hold.
type Detected = (Vec<PathBuf>, Result<Input, InputError>);

/// Usage or input problems: exit 2 with one message.
#[derive(Debug)]
pub struct Fail(pub String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string())
    }
}

/// Runs one parsed command line; the exit code of cli.md, or the message of a refusal (exit 2).
pub fn run(cli: Cli) -> Result<i32, Fail> {
    let smartapps = match &cli.command {
        Command::Check { common, .. } | Command::Regress { common, .. } | Command::Compare { common, .. } => {
            common.smartapps.clone()
        }
        Command::Replay { smartapps, .. } | Command::Stats { smartapps, .. } => smartapps.clone(),
        _ => None,
    };
    crate::trace::applist::set_smartapps_dir(smartapps);
    if let Command::Check { common, .. } | Command::Regress { common, .. } | Command::Compare { common, .. } =
        &cli.command
    {
        refuse_two_on_stdout(common)?;
    }
    match cli.command {
        Command::Check { files, strategy, dot, expect, html, races, no_races, explain, fail_on, common } => {
            let out = check::Outputs { dot, expect, html };
            let fail_on_races = fail_on.contains(&args::FailOn::Races);
            let given = if races {
                Some(true)
            } else if no_races {
                Some(false)
            } else {
                None
            };
            let analysis = check::Analysis { races: given, explain, fail_on_races };
            check::check(&files, strategy.as_deref(), &out, analysis, &common)
        }
        Command::Regress { dirs, strategy, junit, common } => {
            check::regress(&dirs, strategy.as_deref(), junit.as_deref(), &common)
        }
        Command::Compare { files, strategies, csv, markdown, svg, html, shard, common } => {
            let out = compare::Outputs { csv, markdown, svg, html };
            compare::compare(&files, strategies.as_deref(), &out, shard.as_deref(), &common)
        }
        Command::Corpus { pairs, homes, pairwise, smartapps, table, limit, shard, jsonl, out, run } => {
            let rows = corpus::Rows { table, limit, shard, jsonl: jsonl.as_deref(), out: &out, run: &run };
            match pairs {
                Some(pairs) => corpus::corpus(&pairs, smartapps, rows),
                None => corpus::homes(corpus::HomesArgs { homes: &homes, pairwise, smartapps }, rows),
            }
        }
        Command::CorpusMerge { shards, out, jsonl } => corpus::merge(&shards, &out, jsonl),
        Command::Replay {
            files,
            schedule,
            bound,
            conflicts,
            conflict_mode,
            conflicts_on,
            properties,
            no_default_properties,
            routines_keep_mode,
            fixed_inputs,
            physical,
            smartapps,
        } => {
            let given =
                Given { smartapps: smartapps.is_some(), conflict_mode: conflict_mode.is_some(), ..Given::default() };
            let load = LoadOptions {
                bound,
                conflicts: conflicts || conflicts_on.is_some(),
                conflict_mode: conflict_mode.unwrap_or_default(),
                conflicts_on,
                properties: crate::model::PropertyOptions::new(properties.as_deref(), no_default_properties),
                routines_keep_mode,
                fixed_inputs,
                physical,
                ..Default::default()
            };
            replay::replay(&files, &schedule, load, &given)
        }
        Command::Stats { files, json, smartapps } => {
            let given = Given { smartapps: smartapps.is_some(), ..Given::default() };
            stats::stats(&files, json, &given)
        }
        Command::Convert { file, out } => {
            let files = crate::trace::abc_log::convert_to(&file, &out)?;
            eprintln!(
                "wrote {} operations to {} and {} edges to {}",
                files.trace.lines().count(),
                out.join("trace.txt").display(),
                files.dependence.lines().count(),
                out.join("dependence.txt").display()
            );
            Ok(0)
        }
    }
}

/// Tells what `files` (one input) hold, once, and refuses the options it would ignore.
fn load_checked(files: &[PathBuf], load: &LoadOptions, given: &Given) -> Result<[Detected; 1], Fail> {
    let inputs = crate::check::detected(vec![files.to_vec()]);
    refuse_ignored(&inputs, load, given)?;
    Ok(inputs.try_into().unwrap_or_else(|_| unreachable!("one input")))
}

/// Options that apply to some inputs only, or only beside another option, as given: each is
/// refused where it would be ignored ([`refuse_ignored`]).
#[derive(Clone, Debug, Default)]
pub struct Given {
    /// `--smartapps DIR` (the folder app lists name their apps from).
    pub smartapps: bool,
    /// `--conflict-mode`.
    pub conflict_mode: bool,
    /// `--no-pair-conflicts`.
    pub no_pair_conflicts: bool,
    /// The options given that only the race report reads (`--races`, `--explain`, ...).
    pub race_options: Vec<&'static str>,
}

impl Given {
    /// What of `common` is given.
    pub fn of(common: &Common) -> Given {
        Given {
            smartapps: common.smartapps.is_some(),
            conflict_mode: common.conflict_mode.is_some(),
            no_pair_conflicts: common.no_pair_conflicts,
            race_options: Vec::new(),
        }
    }
}

/// Refuses the load options `inputs` would ignore ([`crate::check::check_detected_load_options`])
/// and the options of `given` they would: `--conflict-mode` and `--no-pair-conflicts` without
/// conflicts, or where no input is SmartApps; `--smartapps` where none is; the race report's
/// options where no input is an EM trace.
pub fn refuse_ignored(inputs: &[Detected], load: &LoadOptions, given: &Given) -> Result<(), Fail> {
    use crate::check::{check_input_options, InputClass};
    refuse_without_conflicts(load, given)?;
    crate::check::check_detected_load_options(inputs, load)?;
    let smartapps = [
        ("--smartapps", given.smartapps),
        ("--conflict-mode", given.conflict_mode),
        ("--no-pair-conflicts", given.no_pair_conflicts),
    ];
    check_input_options(inputs, &smartapps, InputClass::SmartApps)?;
    let races: Vec<(&str, bool)> = given.race_options.iter().map(|&o| (o, true)).collect();
    check_input_options(inputs, &races, InputClass::EmTraces)?;
    Ok(())
}

/// Refuses `--outcomes -` with `--json`: both would write to standard output, and the JSON
/// document would no longer parse.
fn refuse_two_on_stdout(common: &Common) -> Result<(), Fail> {
    if common.json && common.outcomes.as_deref().is_some_and(files::is_stdout) {
        return Err(Fail(
            "--outcomes - writes to standard output, where --json writes its document: give --outcomes a file".into(),
        ));
    }
    Ok(())
}

/// Refuses `--conflict-mode` and `--no-pair-conflicts` without conflicts to look for.
fn refuse_without_conflicts(load: &LoadOptions, given: &Given) -> Result<(), Fail> {
    let needs = [("--conflict-mode", given.conflict_mode), ("--no-pair-conflicts", given.no_pair_conflicts)];
    match needs.iter().find(|(_, on)| *on && !load.conflicts) {
        Some((option, _)) => Err(Fail(format!("{option} applies with --conflicts (or --conflicts-on) only"))),
        None => Ok(()),
    }
}

/// Bounds every input read from now on by `--max-memory` (MiB), or the default.
fn bound_inputs(max_memory_mb: Option<u64>) {
    crate::trace::input::set_max_memory(max_memory_mb.map(|mb| mb.saturating_mul(1 << 20)));
}

/// Set by Ctrl-C: searches end cleanly and report what they gathered. A second Ctrl-C, when
/// the first has not ended the run yet, prints what is known ([`Known`]) and exits with 130.
pub fn cancel_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let _ = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::SeqCst) {
                known().print_and_exit(Ended::InterruptedTwice);
            }
        });
        flag
    })
    .clone()
}

/// The time limit's backstop. Every phase of a run polls `--time-limit`, but one that cannot (a
/// read blocked on a pipe, a process starved of the CPU while it converts its input) must not
/// hold the run past it: at 1.1 T + 0.9 s from `since` (the bound `benches/limits.py` holds
/// runs to is 1.1 T + 1 s), a run that has not begun printing its report prints what is known,
/// as a second Ctrl-C does, and exits 3 (a limit stopped it). A report already printing is left
/// to finish. A run whose phases poll has ended before: the backstop is for the one that cannot.
pub fn time_limit_backstop(since: std::time::Instant, limit: Option<f64>) {
    // A limit no `Instant` can hold (the refusals accept up to u64 seconds) needs no backstop.
    let Some(at) = limit
        .and_then(|t| std::time::Duration::try_from_secs_f64(t * 1.1 + 0.9).ok())
        .and_then(|d| since.checked_add(d))
    else {
        return;
    };
    std::thread::spawn(move || {
        std::thread::sleep(at.saturating_duration_since(std::time::Instant::now()));
        let known = known();
        if !known.printing {
            known.print_and_exit(Ended::TimeLimit);
        }
    });
}

/// How a run ended without its own report: [`Known::print_and_exit`].
#[derive(Clone, Copy, Debug)]
pub enum Ended {
    /// A second Ctrl-C: exit 130.
    InterruptedTwice,
    /// The time limit's backstop ([`time_limit_backstop`]): exit 3.
    TimeLimit,
}

/// What a second Ctrl-C or the time limit's backstop prints: the run under way and the figures
/// its search last reported (every 4,096 transitions, and at its end).
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// `FILE, strategy S`; empty before a search began.
    pub run: String,
    pub executions: u64,
    pub transitions: u64,
    pub states: Option<u64>,
    pub seconds: f64,
    /// Whether the search had ended (the run was then reporting).
    pub searched: bool,
    /// `--json`: the figures go to stdout as a document too, unless the report began printing.
    pub json: bool,
    pub printing: bool,
}

/// The run's [`Known`], shared with the Ctrl-C handler.
pub fn known() -> std::sync::MutexGuard<'static, Known> {
    static KNOWN: OnceLock<std::sync::Mutex<Known>> = OnceLock::new();
    let m = KNOWN.get_or_init(Default::default);
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Known {
    /// Records the figures of a search under way.
    pub fn update(&mut self, s: &crate::explore::Stats, elapsed: std::time::Duration) {
        (self.executions, self.transitions, self.states) = (s.executions, s.transitions, s.states);
        self.seconds = elapsed.as_secs_f64();
    }

    /// The answer of a second Ctrl-C or of the time limit's backstop: what is known, on stderr
    /// (and stdout under `--json`), then exit 130 or 3.
    fn print_and_exit(&self, ended: Ended) -> ! {
        let stage = if self.searched { "after its search, while reporting" } else { "during its search" };
        let states = self.states.map_or(String::new(), |n| format!(", {n} states"));
        let what = if self.run.is_empty() {
            "before any search began".to_string()
        } else {
            format!(
                "{} {stage}: {} executions, {} transitions{states} in {:.2} s (the figures last reported)",
                self.run, self.executions, self.transitions, self.seconds
            )
        };
        let (said, stopped_by, code) = match ended {
            Ended::InterruptedTwice => ("interrupted twice", "interrupt", 130),
            Ended::TimeLimit => ("time limit reached", "time", 3),
        };
        eprintln!("tracepor: {said}: {what}");
        if self.json && !self.printing {
            let doc = serde_json::json!({
                "run": self.run, "finished": false, "stopped_by": stopped_by,
                "interrupted_twice": matches!(ended, Ended::InterruptedTwice),
                "searched": self.searched, "executions": self.executions, "transitions": self.transitions,
                "states": self.states, "time_s": self.seconds, "tool": tool_json(),
            });
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        std::process::exit(code)
    }
}

/// The `tool` member of every JSON document: what produced it.
pub fn tool_json() -> serde_json::Value {
    serde_json::json!({ "name": "tracepor", "version": env!("CARGO_PKG_VERSION") })
}

/// The document of a run refused with exit 2 (bad input or usage), under `--json`.
pub fn error_json(message: &str) -> String {
    let doc = serde_json::json!({ "error": message, "tool": tool_json() });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// The name of a run over several inputs: their paths joined by ` + `.
fn joined(files: &[PathBuf]) -> PathBuf {
    PathBuf::from(files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" + "))
}
