//! Bad EM inputs are rejected with file, line, column and the offending text, never a panic.

use crate::common;

use std::path::Path;

use tracepor::model::em::EmModel;
use tracepor::trace::em::{parse_dependence, parse_trace};
use tracepor::trace::InputError;

const HEAD: &str = "1 START\n2 THREADINIT tid:1\n";

fn err(trace: &str) -> InputError {
    parse_trace(Path::new("t.txt"), trace.as_bytes()).expect_err("should be rejected")
}

fn check(e: &InputError, line: usize, col: usize, text: &str, words: &str) {
    assert_eq!((e.line, e.col, e.text.as_str()), (line, col, text), "{e}");
    assert!(e.message.contains(words), "message `{}` lacks `{words}`", e.message);
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("t.txt:{line}:{col}:"))
            || shown.starts_with(&format!("dependence.txt:{line}:{col}:")),
        "{shown}"
    );
}

#[test]
fn unknown_operation() {
    check(&err(&format!("{HEAD}3 JUMP tid:1\n")), 3, 3, "JUMP", "unknown operation");
}

#[test]
fn missing_field() {
    check(&err(&format!("{HEAD}3 LOCK tid:1\n")), 3, 13, "LOCK", "missing field `lock-obj`");
}

#[test]
fn bad_number() {
    check(&err(&format!("{HEAD}3 NOP tid:x1\n")), 3, 11, "x1", "bad thread id");
    check(&err(&format!("{HEAD}3 POST src:1 msg:-4 dest:1\n")), 3, 18, "-4", "bad number");
    check(&err(&format!("{HEAD}3 NOP tid:99999999999999999999\n")), 3, 11, "99999999999999999999", "bad thread id");
}

#[test]
fn malformed_fields_and_indices() {
    check(&err(&format!("{HEAD}3 NOP tid1\n")), 3, 7, "tid1", "key:value");
    check(&err(&format!("{HEAD}3NOP tid:1\n")), 3, 2, "NOP", "space");
    check(&err(&format!("{HEAD}2 NOP tid:1\n")), 3, 1, "2", "not increasing");
}

#[test]
fn call_of_an_unposted_message() {
    check(&err(&format!("{HEAD}3 CALL tid:1 msg:9\n")), 3, 18, "9", "never posted");
}

#[test]
fn ret_without_call() {
    check(&err(&format!("{HEAD}3 RET tid:1 msg:9\n")), 3, 17, "9", "RET without");
}

#[test]
fn handler_structure() {
    let posted = format!("{HEAD}3 ATTACH-Q tid:1 queue:1\n4 POST src:1 msg:5 dest:1\n");
    check(&err(&format!("{posted}5 POST src:1 msg:5 dest:1\n")), 5, 18, "5", "posted twice");
    check(&err(&format!("{posted}5 CALL tid:2 msg:5\n")), 5, 18, "5", "handled by thread 2");
    check(
        &err(&format!("{posted}5 LOOP tid:1\n6 CALL tid:1 msg:5\n7 RET tid:1 msg:5\n8 CALL tid:1 msg:5\n")),
        8,
        18,
        "5",
        "handled twice",
    );
}

#[test]
fn not_utf8_and_control_bytes() {
    let e = parse_trace(Path::new("t.txt"), b"1 START\n2 LOCK tid:1 lock-obj:\xff\xfe\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 23));
    assert!(e.message.contains("not UTF-8"));
    let e = parse_trace(Path::new("t.txt"), b"1 START\n2 NOP\x07 tid:1\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.to_string().contains("\\u{7}"), "control bytes are shown escaped: {e}");
}

#[test]
fn dependence_edges() {
    let mut t = parse_trace(Path::new("t.txt"), format!("{HEAD}3 NOP tid:1\n").as_bytes()).unwrap();
    let e = parse_dependence(Path::new("dependence.txt"), b"src:2 dest:3\nsrc:2 dest:44\n", &mut t).unwrap_err();
    check(&e, 2, 12, "44", "no operation with this index");
    let e = parse_dependence(Path::new("dependence.txt"), b"from:2 dest:3\n", &mut t).unwrap_err();
    check(&e, 1, 1, "from", "expected field `src`");
    let e = parse_dependence(Path::new("dependence.txt"), b"src:2 dest:3 extra\n", &mut t).unwrap_err();
    check(&e, 1, 14, "extra", "unexpected text");
}

#[test]
fn looper_code_outside_handlers_after_loop_is_rejected() {
    let t = parse_trace(
        Path::new("t.txt"),
        format!("{HEAD}3 ATTACH-Q tid:1 queue:1\n4 LOOP tid:1\n5 NOP tid:1\n").as_bytes(),
    )
    .unwrap();
    let e = EmModel::new(t).err().expect("rejected");
    assert_eq!(e.line, 5);
    assert!(e.message.contains("after its LOOP"));
}

#[test]
fn ignored_lines_and_odd_spacing_are_accepted() {
    let t = parse_trace(
        Path::new("t.txt"),
        b"1 START\r\n\n2 THREADINIT tid:1 \nEnd of trace!!\n3 WRITE tid:1 obj:0x4 class:Lpkg/Cls; field:2\n",
    )
    .unwrap();
    assert_eq!(t.ops.len(), 2);
}

/// A small deterministic generator, so the test needs nothing beyond std.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn no_input_makes_the_parser_panic() {
    let real = std::fs::read(common::em_explorer().join("tacas-2016/remind-me/trace.txt")).unwrap();
    let mut seed = 0x9e3779b97f4a7c15u64;
    for round in 0..3000 {
        let mut bytes = if round % 3 == 0 {
            (0..(xorshift(&mut seed) % 200)).map(|_| xorshift(&mut seed) as u8).collect::<Vec<u8>>()
        } else {
            real[..(xorshift(&mut seed) as usize % real.len())].to_vec()
        };
        for _ in 0..(xorshift(&mut seed) % 8) {
            if bytes.is_empty() {
                break;
            }
            let i = xorshift(&mut seed) as usize % bytes.len();
            let alphabet = b" :\n0123456789abcLOCKRET\xff-";
            bytes[i] = alphabet[xorshift(&mut seed) as usize % alphabet.len()];
        }
        // Either a trace whose model builds, or an error: never a panic.
        if let Ok(t) = parse_trace(Path::new("t.txt"), &bytes) {
            let _ = EmModel::new(t);
        }
    }
}
