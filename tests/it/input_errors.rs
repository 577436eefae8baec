//! Inputs that are wrong end with exit 2 and one line naming file:line:col and the offending
//! text, and reading inputs is safe: stdin and `-` read once, a FIFO with no
//! writer does not hang, an endless device stops at the input bound.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn tracepor(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).current_dir(dir).output().unwrap()
}

/// A fresh folder of this test under the target directory.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("input_errors").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `check` on `input` (relative to `dir`) and asserts exit 2 with `where_:` and `words`.
fn rejected(dir: &Path, input: &str, where_: &str, words: &str) {
    let o = tracepor(dir, &["check", input, "--quiet"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{input}: {err}");
    assert!(err.contains(&format!("{where_}:")), "{input}: `{where_}` not in {err}");
    assert!(err.contains(words), "{input}: `{words}` not in {err}");
    assert!(err.contains(": `"), "offending text quoted: {err}");
}

fn trace_dir(name: &str, trace: &str, dependence: Option<&str>) -> PathBuf {
    let d = scratch(name);
    std::fs::write(d.join("trace.txt"), trace).unwrap();
    if let Some(dep) = dependence {
        std::fs::write(d.join("dependence.txt"), dep).unwrap();
    }
    d
}

const TWO_THREADS: &str = "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 NOP tid:1\n\
5 THREADINIT tid:2\n6 NOP tid:2\n7 NOP tid:2\n";

#[test]
fn dependence_edge_against_program_order() {
    let d = trace_dir("po", TWO_THREADS, Some("src:2 dest:4\nsrc:7 dest:6\n"));
    rejected(&d, ".", "dependence.txt:2:1", "cycle (6 -> 7 -> 6)");
}

#[test]
fn dependence_cycle_through_several_edges() {
    // FORK 3 -> 4 (program order) -> 6 (first edge) -> 7 (program order) -> 3 (second edge);
    // 3 -> THREADINIT 5 -> 6 -> 7 -> 3 through the static fork edge is another.
    let d = trace_dir("several", TWO_THREADS, Some("src:4 dest:6\nsrc:7 dest:3\n"));
    rejected(&d, ".", "dependence.txt:1:1", "happens-before cycle (3 -> 4 -> 6 -> 7 -> 3)");
    let d = trace_dir("fork", TWO_THREADS, Some("src:7 dest:3\n"));
    rejected(&d, ".", "dependence.txt:1:1", "cycle (3 -> 5 -> 6 -> 7 -> 3)");
    // Two dependence edges that only together make a cycle.
    let d = trace_dir("pair", TWO_THREADS, Some("src:4 dest:6\nsrc:6 dest:4\n"));
    rejected(&d, ".", "dependence.txt:1:1", "cycle (4 -> 6 -> 4)");
}

#[test]
fn dependence_cycle_through_post_and_call() {
    let trace = "1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1 queue:1\n4 POST src:1 msg:5 dest:1\n\
5 LOOP tid:1\n6 CALL tid:1 msg:5\n7 NOP tid:1\n8 RET tid:1 msg:5\n";
    // The handler's NOP before its own post: POST -> CALL -> NOP -> POST.
    let d = trace_dir("post", trace, Some("src:7 dest:4\n"));
    rejected(&d, ".", "dependence.txt:1:1", "cycle (4 -> 6 -> 7 -> 4)");
}

#[test]
fn acyclic_dependence_is_accepted() {
    let d = trace_dir("fine", TWO_THREADS, Some("src:6 dest:4\n"));
    let o = tracepor(&d, &["check", ".", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn operations_before_threadinit_and_threads_that_never_start() {
    let d = trace_dir("early", "1 START\n2 THREADINIT tid:1\n3 NOP tid:1\n4 NOP tid:7\n5 THREADINIT tid:7\n", None);
    rejected(&d, ".", "trace.txt:4:1", "before its THREADINIT");
    let d = trace_dir("never", "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 NOP tid:1\n", None);
    rejected(&d, ".", "trace.txt:3:1", "never starts");
}

#[test]
fn trace_ending_inside_a_handler() {
    let d = trace_dir(
        "open",
        "1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1 queue:1\n4 POST src:1 msg:5 dest:1\n5 LOOP tid:1\n\
6 CALL tid:1 msg:5\n7 NOP tid:1\n",
        None,
    );
    rejected(&d, ".", "trace.txt:6:1", "CALL without RET");
}

#[test]
fn configs_that_name_themselves_or_each_other() {
    let d = scratch("configs");
    std::fs::write(d.join("config.cfg"), "## self\ntrace:config.cfg\n").unwrap();
    rejected(&d, "config.cfg", "config.cfg:2:7", "names itself");
    for (a, b) in [("a", "b"), ("b", "a")] {
        std::fs::create_dir_all(d.join(a)).unwrap();
        std::fs::write(d.join(a).join("config.cfg"), format!("trace:{}\n", d.join(b).join("config.cfg").display()))
            .unwrap();
    }
    rejected(&d, "a/config.cfg", "config.cfg:1:7", "cycle");
}

#[test]
fn stdin_and_dash_are_read_once() {
    let d = scratch("stdin");
    let trace = "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 WRITE tid:1 obj:1 class:A; field:f\n\
5 THREADINIT tid:2\n6 READ tid:2 obj:1 class:A; field:f\n";
    for input in ["-", "/dev/stdin"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tracepor"))
            .args(["check", input, "--json", "--strategy", "full"])
            .current_dir(&d)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(trace.as_bytes()).unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{input}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        // Two outcomes (the read sees the write or not): the whole trace was read.
        assert_eq!(v["outcomes"], 2, "{input}: {v}");
    }
}

#[test]
fn fifo_without_writer_and_endless_device_end_with_exit_2() {
    let d = scratch("fifo");
    let fifo = d.join("f");
    let made = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    if made {
        let o = tracepor(&d, &["check", "f"]);
        assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = tracepor(&d, &["check", "/dev/zero", "--max-memory", "64"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("input larger than 33554432 bytes"), "{err}");
}

#[test]
fn byte_order_mark_is_accepted() {
    let d = scratch("bom");
    std::fs::write(d.join("m.events"), "\u{feff}model events\nvar x = 0\non e { x = 1 }\n").unwrap();
    std::fs::write(d.join("trace.txt"), "\u{feff}1 START\n2 THREADINIT tid:1\n3 NOP tid:1\n").unwrap();
    for input in ["m.events", "trace.txt"] {
        let o = tracepor(&d, &["check", input, "--quiet"]);
        assert_eq!(o.status.code(), Some(0), "{input}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn every_shipped_trace_still_loads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/em-explorer");
    let mut n = 0;
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|f| f == "trace.txt") {
                let dep = p.with_file_name("dependence.txt");
                let t = tracepor::trace::em::load(&p, dep.is_file().then_some(dep.as_path())).unwrap();
                tracepor::model::em::EmModel::new(t).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
    }
    assert!(n >= 33 || n == 0, "{n} traces");
}
