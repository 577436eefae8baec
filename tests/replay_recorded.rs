//! Every shipped trace parses and its recorded order replays as a legal execution that ran
//! every operation.

use std::path::{Path, PathBuf};

use tracepor::model::{self, LoadOptions, Loaded, Model};

/// Every folder holding a trace.txt below `dir`.
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

#[test]
fn every_shipped_trace_replays_its_recorded_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/em-explorer");
    let dirs = trace_dirs(&root);
    assert_eq!(
        dirs.len(),
        33,
        "5 TACAS traces and 28 benchmark traces expected"
    );
    for d in dirs {
        let Loaded::Em(m) =
            model::load(&d, LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
        else {
            panic!("{} is not an EM trace", d.display())
        };
        let end = m
            .replay_recorded()
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        let mut enabled = Vec::new();
        m.enabled(&end, &mut enabled);
        assert!(
            enabled.is_empty(),
            "{}: something still enabled after the recorded order",
            d.display()
        );
        let outcome = m.outcome(&end);
        assert!(
            !outcome.stuck,
            "{}: recorded order leaves operations unrun: {}",
            d.display(),
            outcome.text
        );
        assert_eq!(end.executed_count(), m.trace.ops.len());
    }
}
