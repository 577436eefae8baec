//! Unit tests of `tracepor::explore`: one module per file of src/explore/ that has them.

use std::path::PathBuf;

use tracepor::model::em::EmModel;
use tracepor::model::{load, LoadOptions, Loaded};

use crate::common;

mod budget;
mod dfs;
mod dpor_handoff;
mod firing_memo;
mod outcomes;
mod races_hb;
mod races_verdict;
mod reads_from_statics;
mod reads_from_stuck;
mod reads_from_witness;
mod sets;
mod shortest;
mod stateful_dpor_stored;
mod stateful_dpor_summary;

/// Every folder with a trace.txt under `roots` (relative to the project root), sorted: the
/// shipped EM traces the unit tests of `optimal` and of the race analysis run on.
fn trace_dirs(roots: &[&str]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = roots.iter().flat_map(|r| common::trace_dirs(&common::root().join(r))).collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

/// The shipped EM traces and fixtures (`../shared/traces/em-explorer`, `fixtures/em`) that load
/// as EM models, each with its folder.
fn shipped_em_models() -> Vec<(PathBuf, EmModel)> {
    let dirs = trace_dirs(&["../shared/traces/em-explorer", "fixtures/em"]);
    dirs.into_iter()
        .filter_map(|d| match load(&d, LoadOptions::default()) {
            Ok(Loaded::Em(model)) => Some((d, model)),
            _ => None,
        })
        .collect()
}
