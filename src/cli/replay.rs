//! `replay`: one schedule re-executed step by step, each step printed with what it touched.

use std::path::PathBuf;

use super::Fail;
use crate::check::{Replay, ReplayEnd};
use crate::model::{self, LoadOptions};
use crate::with_model;

/// `replay`: loads `files` as `check` does and follows `schedule` on it.
pub fn replay(files: &[PathBuf], schedule: &str, load: LoadOptions, given: &super::Given) -> Result<i32, Fail> {
    let [(_, input)] = super::load_checked(files, &load, given)?;
    let loaded = model::load_input(input?, load)?;
    let replay = with_model!(&loaded, m => crate::check::replay(m, schedule))?;
    print_replay(&replay)?;
    Ok(replay.exit_code())
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
        // Where the failing write stands: file, line and handler when the model knows them
        // (SmartApps), else the input's line.
        ReplayEnd::Error(e) => match &e.at {
            Some(at) => println!(
                "error: {}: {}
  at: {at}",
                e.kind, e.message
            ),
            None => println!("error: {}: {} (line {})", e.kind, e.message, e.line),
        },
        ReplayEnd::Ended(outcome) => {
            println!("end: nothing enabled; {}", if outcome.stuck() { "stuck (deadlock)" } else { "complete" });
            println!("outcome: {outcome}");
        }
        ReplayEnd::Open { enabled } => println!("end of schedule; still enabled: {}", enabled.join(" ")),
    }
    Ok(())
}
