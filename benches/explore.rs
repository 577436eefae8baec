//! Exploration speed: transitions per second of every EM strategy this build has, on the
//! shipped traces, each run under a time budget (TRACEPOR_BENCH_SECONDS, default 10).
//! A small harness rather than criterion: a run is one search of seconds to minutes, and what
//! matters is its rate and whether it finished.
//!
//! Run: `cargo bench --features bench --bench explore` (optionally `-- FILTER` to pick traces
//! by substring).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tracepor::explore::{self, Limits};
use tracepor::model::{self, LoadOptions, Loaded};

fn main() {
    let seconds: f64 = std::env::var("TRACEPOR_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let root = em_explorer();
    let traces = [
        "tacas-2016/remind-me",
        "tacas-2016/mytracks",
        "tacas-2016/music",
        "tacas-2016/charachter-recognition",
        "tacas-2016/aarddict",
        "benchmark-traces/multithreading-with-multiple-queues/trace7",
        "benchmark-traces/multithreading-with-single-queue/trace9",
    ];
    println!(
        "{:<60} {:<15} {:>12} {:>10} {:>14} {:>9}",
        "trace", "strategy", "transitions", "time s", "transitions/s", "finished"
    );
    for t in traces {
        if !filter.is_empty() && !filter.iter().any(|f| t.contains(f.as_str())) {
            continue;
        }
        let Ok(Loaded::Em(m)) = model::load(&root.join(t), LoadOptions::default()) else { panic!("cannot load {t}") };
        for &name in explore::STRATEGIES {
            let Some(mut s) = explore::for_em_trace(name) else { continue };
            let limits = Limits { time: Some(Duration::from_secs_f64(seconds)), ..Limits::default() };
            let (stats, _) = explore::run(&m, s.as_mut(), limits, Arc::new(AtomicBool::new(false)));
            println!(
                "{:<60} {:<15} {:>12} {:>10.3} {:>14.0} {:>9}",
                t,
                name,
                stats.transitions,
                stats.time_s,
                stats.transitions as f64 / stats.time_s.max(1e-9),
                stats.finished
            );
        }
    }
}

/// EM-Explorer's traces, where the project reads them (../shared/traces/em-explorer; it ships
/// no copy).
fn em_explorer() -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/em-explorer");
    assert!(dir.is_dir(), "EM-Explorer's traces are not at {}: put shared/ beside this project", dir.display());
    dir
}
