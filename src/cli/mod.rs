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
    match cli.command {
        Command::Check { files, strategy, dot, expect, html, races, no_races, explain, common } => {
            let out = check::Outputs { dot, expect, html };
            let races = if races {
                Some(true)
            } else if no_races {
                Some(false)
            } else {
                None
            };
            let analysis = check::Analysis { races, explain };
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
        Command::Replay { files, schedule, bound, conflicts, conflict_mode, conflicts_on, no_physical, .. } => {
            let load = LoadOptions {
                bound,
                conflicts: conflicts || conflicts_on.is_some(),
                conflict_mode: conflict_mode.unwrap_or_default(),
                conflicts_on,
                no_physical,
                ..Default::default()
            };
            replay::replay(&files, &schedule, load)
        }
        Command::Stats { files, json, .. } => stats::stats(&files, json),
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

/// Tells what `files` (one input) hold, once, and refuses the load options it would ignore.
fn load_checked(files: &[PathBuf], load: &LoadOptions) -> Result<[Detected; 1], Fail> {
    let inputs = crate::check::detected(vec![files.to_vec()]);
    crate::check::check_detected_load_options(&inputs, load)?;
    Ok(inputs.try_into().unwrap_or_else(|_| unreachable!("one input")))
}

/// Bounds every input read from now on by `--max-memory` (MiB), or the default.
fn bound_inputs(max_memory_mb: Option<u64>) {
    crate::trace::input::set_max_memory(max_memory_mb.map(|mb| mb.saturating_mul(1 << 20)));
}

/// Set by Ctrl-C: searches end cleanly and report what they gathered.
pub fn cancel_flag() -> Arc<AtomicBool> {
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
