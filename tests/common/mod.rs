//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tracepor::explore::{self, Limits, Outcomes, Stats};
use tracepor::model::em::EmModel;
use tracepor::model::{self, LoadOptions, Loaded};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Loads an EM trace (file, folder or config).
pub fn em(path: &Path) -> EmModel {
    match model::load(path, LoadOptions::default()) {
        Ok(Loaded::Em(m)) => m,
        Ok(_) => panic!("{} is not an EM trace", path.display()),
        Err(e) => panic!("{e}"),
    }
}

/// Every EM strategy this build has, by name.
pub fn em_strategies() -> Vec<&'static str> {
    explore::STRATEGIES.iter().copied().filter(|s| explore::for_em_trace(s).is_some()).collect()
}

/// Runs strategy `name` on `m`.
pub fn run_em(m: &EmModel, name: &str, limits: Limits) -> (Stats, Outcomes) {
    let mut s = explore::for_em_trace(name).unwrap_or_else(|| panic!("no strategy {name}"));
    explore::run(m, s.as_mut(), limits, Arc::new(AtomicBool::new(false)))
}

/// The outcome lines of a search, as `--outcomes` writes them.
pub fn outcome_text(found: &Outcomes) -> String {
    found.lines().map(|l| format!("{l}\n")).collect()
}

/// Every folder holding a trace.txt below `dir`, sorted.
pub fn trace_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if d.join("trace.txt").is_file() {
            out.push(d.clone());
        }
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}
