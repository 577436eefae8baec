//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod apps;
pub mod gen_em;
pub mod gen_http;
pub mod gen_smartapp;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tracepor::explore::{self, Limits, Outcomes, Stats};

/// The transitions a run that must finish may take: far more than any test's run takes, so
/// that only a search that does not end (a bug) reaches it. Tests budget runs in transitions
/// or states, never in time: a verdict must not depend on the machine's load.
pub const MUST_FINISH: u64 = 200_000_000;

/// How many inputs a seeded suite checks. Plain `cargo test` runs the `quick` size: every
/// strategy, input kind and option still runs, on fewer generated inputs, so that a first run
/// on a loaded two-core machine stays short. `TRACEPOR_TESTS=ci` (what `.ci/run` sets) runs the
/// `ci` size, the one at which each suite's planted bugs were shown caught (docs/soundness.md,
/// each suite's header). The suite's own variable (`var`), when set, overrides both: campaigns
/// of thousands of seeds run that way.
pub fn size(var: &str, quick: u64, ci: u64) -> u64 {
    std::env::var(var).ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| by_size(quick, ci))
}

/// `ci` when the suites run at the size CI runs them (`TRACEPOR_TESTS=ci`), else `quick`: for
/// the samples of real inputs no variable sizes (see [`size`]).
pub fn by_size<T>(quick: T, ci: T) -> T {
    if std::env::var("TRACEPOR_TESTS").as_deref() == Ok("ci") {
        ci
    } else {
        quick
    }
}

/// Limits of at most `transitions` transitions.
pub fn within(transitions: u64) -> Limits {
    Limits { max_transitions: Some(transitions), ..Limits::default() }
}
use tracepor::model::em::EmModel;
use tracepor::model::{self, LoadOptions, Loaded};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Ctrl-C to a child process the test started (SIGINT).
#[cfg(unix)]
pub fn interrupt(child: &std::process::Child) {
    // SAFETY: kill(2) on the id of a child this process started and has not yet waited for.
    let rc = unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(rc, 0, "SIGINT to {}", child.id());
}

/// The resident memory of process `pid` in MiB (None once it is gone): how a test tells that
/// a child's search is under way when the child prints nothing while it searches. Linux reads
/// /proc; other Unixes ask `ps` (POSIX `-o rss`, in KiB) for the same figure.
#[cfg(unix)]
pub fn rss_mib(pid: u32) -> Option<u64> {
    #[cfg(target_os = "linux")]
    let kib = {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()?
    };
    #[cfg(not(target_os = "linux"))]
    let kib = {
        let out = std::process::Command::new("ps").args(["-o", "rss=", "-p", &pid.to_string()]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse::<u64>().ok()?
    };
    Some(kib / 1024)
}

/// EM-Explorer's traces (the five TACAS 2016 apps and the 28 hand-written benchmarks), read
/// where they are published for this project: `../shared/traces/em-explorer`. The project
/// ships no copy; a test that needs them fails here, saying where to put them.
pub fn em_explorer() -> PathBuf {
    let dir = root().join("../shared/traces/em-explorer");
    assert!(
        dir.join("tacas-2016").is_dir() && dir.join("benchmark-traces").is_dir(),
        "EM-Explorer's traces are not at {}: put a checkout of shared/ beside this project \
         (or copy EM-Explorer's test-traces/ there as traces/em-explorer/{{tacas-2016,benchmark-traces}})",
        dir.display()
    );
    dir
}

/// `em_explorer()` joined with `rel`, as a path relative to the project root (what the
/// binary, run from the root, is given).
pub fn em_explorer_arg(rel: &str) -> String {
    em_explorer();
    format!("../shared/traces/em-explorer/{rel}")
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

/// EM-Explorer's 28 hand-written benchmark traces.
pub fn benchmark_dirs() -> Vec<PathBuf> {
    let dirs = trace_dirs(&em_explorer().join("benchmark-traces"));
    assert_eq!(dirs.len(), 28, "the 28 hand-written traces are expected under ../shared/traces/em-explorer");
    dirs
}

/// Runs strategy `name` on the trace at `dir` and checks it against `full` (which must finish):
/// its figures, or what is wrong (did not finish, another outcome set).
pub fn against_full(dir: &Path, name: &str) -> Result<(Stats, Outcomes), String> {
    let t = dir.display();
    let m = em(dir);
    let limits = || within(MUST_FINISH);
    let (fs, full) = run_em(&m, "full", limits());
    assert!(fs.finished, "{t}: full did not finish");
    let (st, found) = run_em(&m, name, limits());
    if !st.finished {
        return Err(format!("{t}: {name} did not finish"));
    }
    if !found.same_as(&full) {
        return Err(format!("{t}: outcome set differs from full's"));
    }
    Ok((st, found))
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

/// An EM trace of many handlers, as benches/gen_handlers.py writes them: thread 1 loops, threads
/// 2-4 post `messages` messages to it in turn (operations 11 on, five per message); each handler
/// READs one shared field, then WRITEs one of two others (`writes`) or READs it again.
pub fn many_handlers_trace(messages: usize, writes: bool) -> String {
    let mut text = String::from("1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1 queue:1\n");
    let mut idx = 4;
    for p in 2..5 {
        text.push_str(&format!("{idx} FORK par-tid:1 child-tid:{p}\n{} THREADINIT tid:{p}\n", idx + 1));
        idx += 2;
    }
    text.push_str(&format!("{idx} LOOP tid:1 queue:1\n"));
    idx += 1;
    for msg in 1..=messages {
        let src = 2 + msg % 3;
        text.push_str(&format!("{idx} POST src:{src} msg:{msg} dest:1\n{} CALL tid:1 msg:{msg}\n", idx + 1));
        text.push_str(&format!("{} READ tid:1 obj:0x1 class:C; field:s\n", idx + 2));
        if writes {
            text.push_str(&format!("{} WRITE tid:1 obj:0x1 class:C; field:f{}\n", idx + 3, msg % 2));
        } else {
            text.push_str(&format!("{} READ tid:1 obj:0x1 class:C; field:s\n", idx + 3));
        }
        text.push_str(&format!("{} RET tid:1 msg:{msg}\n", idx + 4));
        idx += 5;
    }
    text
}

/// Runs the tracepor binary from the project root.
pub fn bin(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).current_dir(root()).output().unwrap()
}

/// A finished process's exit code.
pub fn code(o: &std::process::Output) -> i32 {
    o.status.code().expect("exited")
}

/// Bytes printed, as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
