//! DroidRacer's raw log (`abc_log.txt`, docs/abc-log.md): the conversion against the fixtures
//! written for each rule, against the TACAS 2016 folders that ship a log beside the trace made
//! from it (only the differences docs/abc-log.md names are allowed), the outcome sets, and the
//! errors.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use tracepor::explore::Limits;
use tracepor::trace::abc_log;
use tracepor::trace::input::{detect, InputKind};

fn convert(path: &Path) -> abc_log::EmFiles {
    let bytes = std::fs::read(path).unwrap();
    abc_log::to_em(path, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(common::root().join("fixtures/abc-log"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("abc_log.txt").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Each rule's fixture converts to the trace.txt and dependence.txt written beside it.
#[test]
fn fixtures_convert_to_their_expected_files() {
    let dirs = fixture_dirs();
    assert!(dirs.len() >= 12, "fixtures missing");
    for d in dirs {
        let got = convert(&d.join("abc_log.txt"));
        let trace = std::fs::read_to_string(d.join("trace.txt")).unwrap();
        let dep = std::fs::read_to_string(d.join("dependence.txt")).unwrap();
        assert_eq!(got.trace, trace, "{}: trace.txt", d.display());
        assert_eq!(got.dependence, dep, "{}: dependence.txt", d.display());
    }
}

/// `check` on a fixture's log explores what `check` on its converted folder explores.
#[test]
fn fixture_logs_and_their_conversions_have_the_same_outcomes() {
    for d in fixture_dirs() {
        let from_log = common::em(&d.join("abc_log.txt"));
        let from_trace = common::em(&d);
        let (a, oa) = common::run_em(&from_log, "full", Limits::default());
        let (b, ob) = common::run_em(&from_trace, "full", Limits::default());
        assert!(a.finished && b.finished);
        assert_eq!(common::outcome_text(&oa), common::outcome_text(&ob), "{}", d.display());
    }
}

fn numbered(text: &str) -> Vec<String> {
    text.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit())).map(str::to_string).collect()
}

fn shipped(app: &str) -> (PathBuf, Vec<String>, Vec<String>) {
    let dir = common::em_explorer().join("tacas-2016").join(app);
    let trace = numbered(&std::fs::read_to_string(dir.join("trace.txt")).unwrap());
    let dep = numbered(&std::fs::read_to_string(dir.join("dependence.txt")).unwrap().replace("src:", "0src:"));
    (dir, trace, dep)
}

/// The operation text of each line, without its number.
fn ops(lines: &[String]) -> Vec<String> {
    lines.iter().map(|l| l.split_once(' ').map_or(l.clone(), |(_, r)| r.to_string())).collect()
}

/// docs/abc-log.md, "Against the shipped traces": the final THREADEXITs of threads left running
/// come in thread order here; aarddict's file has them in another order.
fn sort_final_exits(mut lines: Vec<String>) -> Vec<String> {
    let start = lines.iter().rposition(|l| !l.starts_with("THREADEXIT")).map_or(0, |i| i + 1);
    lines[start..].sort();
    lines
}

#[test]
fn remind_me_and_charachter_recognition_convert_line_for_line() {
    for app in ["remind-me", "charachter-recognition"] {
        let (dir, trace, _) = shipped(app);
        let got = convert(&dir.join("abc_log.txt"));
        assert_eq!(numbered(&got.trace), trace, "{app}");
    }
}

#[test]
fn aarddict_converts_line_for_line_but_the_order_of_the_final_exits() {
    let (dir, trace, _) = shipped("aarddict");
    let got = numbered(&convert(&dir.join("abc_log.txt")).trace);
    assert_ne!(got, trace, "the documented difference is gone: update docs/abc-log.md");
    assert_eq!(sort_final_exits(ops(&got)), sort_final_exits(ops(&trace)));
}

/// mytracks: one handler (message 9, the main thread's task that the second looper's task posts)
/// is at the end of the shipped trace, where the log's operation ids do not put it; the thread
/// that posted it exits just after it there, at the end here.
#[test]
fn mytracks_converts_line_for_line_but_one_handler_placed_by_operation_id() {
    let (dir, trace, _) = shipped("mytracks");
    let got = ops(&numbered(&convert(&dir.join("abc_log.txt")).trace));
    let without = |lines: Vec<String>| -> Vec<String> {
        let from = lines.iter().position(|l| l == "CALL tid:1 msg:9").expect("CALL of message 9");
        let to = lines.iter().position(|l| l == "RET tid:1 msg:9").expect("RET of message 9");
        let mut rest: Vec<String> = lines[..from].iter().chain(&lines[to + 1..]).cloned().collect();
        rest.retain(|l| l != "THREADEXIT tid:10");
        rest
    };
    let shipped_ops = ops(&trace);
    assert_ne!(got, shipped_ops);
    assert_eq!(got.len(), shipped_ops.len());
    assert_eq!(without(got), without(shipped_ops));
}

/// dependence.txt: equal for remind-me and charachter-recognition, the same edges in another
/// order for mytracks and aarddict (aarddict's come from the activity, service and broadcast
/// receiver rules, docs/abc-log.md).
#[test]
fn dependence_edges_match_the_shipped_files() {
    for app in ["remind-me", "charachter-recognition", "mytracks", "aarddict"] {
        let (dir, _, mut dep) = shipped(app);
        let mut got = numbered(&convert(&dir.join("abc_log.txt")).dependence.replace("src:", "0src:"));
        if app == "mytracks" || app == "aarddict" {
            got.sort();
            dep.sort();
        }
        assert_eq!(got, dep, "{app}");
    }
}

fn outcomes(path: &Path) -> String {
    let m = common::em(path);
    let (st, found) = common::run_em(&m, "optimal", Limits::default());
    assert!(st.finished, "{}", path.display());
    common::outcome_text(&found)
}

/// `check abc_log.txt` reaches exactly the outcome set of the shipped folder.
#[test]
fn logs_have_the_outcomes_of_the_shipped_traces() {
    for app in ["remind-me", "charachter-recognition", "aarddict"] {
        let dir = common::em_explorer().join("tacas-2016").join(app);
        assert_eq!(outcomes(&dir.join("abc_log.txt")), outcomes(&dir), "{app}");
    }
    // mytracks: the same number (the moved handler renumbers the operations); music: its log
    // is from another run than its trace, so only the number is compared.
    for app in ["mytracks", "music"] {
        let dir = common::em_explorer().join("tacas-2016").join(app);
        assert_eq!(outcomes(&dir.join("abc_log.txt")).lines().count(), outcomes(&dir).lines().count(), "{app}");
    }
}

#[test]
fn logs_are_told_by_name_and_by_content() {
    let dir = common::em_explorer().join("tacas-2016/remind-me");
    assert_eq!(detect(&dir.join("abc_log.txt")).unwrap(), InputKind::AbcLog(dir.join("abc_log.txt")));
    assert!(matches!(detect(&dir.join("trace.txt")).unwrap(), InputKind::EmTrace { .. }));
    let tmp = tempdir("by-content");
    let renamed = tmp.join("recording.log");
    std::fs::copy(dir.join("abc_log.txt"), &renamed).unwrap();
    assert_eq!(detect(&renamed).unwrap(), InputKind::AbcLog(renamed.clone()));
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracepor-abc-log-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Bad logs: exit 2 with file:line:col and the offending text, never a panic.
#[test]
fn errors_name_line_column_and_text() {
    let good = "1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1\t queue:1\n";
    let cases: &[(&str, &str)] = &[
        ("1 START\n2 THREADINIT tid:1\n3 FROB tid:1\n", ":3:3: unknown operation: `FROB`"),
        ("1 START\n2 THREADINIT tid:1\n3 LOCK tid:1 lock-obj\n", ":3:14: expected a key:value field: `lock-obj`"),
        ("1 START\n2 THREADINIT tid:1\n3 POST src:1 msg:x dest:-1 delay:0\n", ":3:18: bad number in field `msg`: `x`"),
        ("1 START\n2 THREADINIT tid:1\nrwId:1 READ tid:1 obj:0x1\n", ":3:26: missing field `class` for READ: `READ`"),
        (
            "1 START\n2 THREADINIT tid:1\n3 WAIT tid:9\n",
            ":3:3: operation of thread 9 before the thread was created: `WAIT`",
        ),
        ("1 START\n2 THREADINIT tid:1\n2 WAIT tid:1\n", ":3:1: operation id 2 used twice"),
        ("2 THREADINIT tid:1\n", ":1:3: a log starts with START"),
        ("1 START\n2 THREADINIT tid:1\nrace report\n", ":3:1: expected an operation id: `race`"),
        ("1 START\n2 THREADINIT tid:1\n3 NATIVE-ENTRY tid:\n", ":3:16: expected `tid:<thread>`"),
        (
            "1 START\n2 THREADINIT tid:1\n3 TRIGGER-EVENT tid:1 view:1 event:0\n",
            ":3:3: TRIGGER-EVENT without an earlier ENABLE-EVENT of its view and event",
        ),
    ];
    let dir = tempdir("errors");
    let path = dir.join("abc_log.txt");
    assert!(abc_log::to_em(&path, good.as_bytes()).is_ok());
    for (text, expected) in cases {
        let e = abc_log::to_em(&path, text.as_bytes()).expect_err(text).to_string();
        assert!(e.contains(expected), "{text:?}: got `{e}`, expected `{expected}`");
    }
    // Through the binary: exit 2, one line on stderr.
    std::fs::write(&path, cases[0].0).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tracepor")).arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("abc_log.txt:3:3: unknown operation: `FROB`"), "{err}");
}

/// What the fuzzer found (2026-11-26): a log of access lines only has no operation to point
/// at; it is refused with the file named, not a panic on the missing first operation.
#[test]
fn a_log_of_access_lines_only_is_refused() {
    let bytes: &[u8] = b"\nrwId:1 READ-STATIC tid:2 class:Lcomils; field:\x01\x00\x00\x7fNATIVE-EXITIT tiead-name:Bin";
    let dir = tempdir("access-only");
    let path = dir.join("abc_log.txt");
    let e = abc_log::to_em(&path, bytes).expect_err("no operation").to_string();
    assert!(e.contains("no operation line"), "{e}");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tracepor")).arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `tracepor convert LOG --out DIR` writes both files, and DIR is then a trace `check` reads.
#[test]
fn convert_writes_trace_and_dependence() {
    let src = common::root().join("fixtures/abc-log/lifecycle");
    let out = tempdir("convert").join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_tracepor"))
        .arg("convert")
        .arg(src.join("abc_log.txt"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for f in ["trace.txt", "dependence.txt"] {
        assert_eq!(std::fs::read_to_string(out.join(f)).unwrap(), std::fs::read_to_string(src.join(f)).unwrap(), "{f}");
    }
}

/// Arbitrary bytes never panic the reader and converter (the fuzz target's property, on a
/// few mutations of a real log).
#[test]
fn mutated_logs_do_not_panic() {
    let log = std::fs::read(common::em_explorer().join("tacas-2016/aarddict/abc_log.txt")).unwrap();
    let path = Path::new("abc_log.txt");
    let mut state = 0x2545f4914f6cdd1du64;
    for _ in 0..300 {
        let mut bytes = log.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % bytes.len() as u64) as usize;
            match state % 3 {
                0 => bytes[at] = (state >> 32) as u8,
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, b"\n \t:-1"[(state >> 40) as usize % 6]),
            }
        }
        let _ = abc_log::to_em(path, &bytes);
    }
}
