//! The event-model parser and checker: what loads, and each kind of rejection with its line,
//! column and offending text. No input may panic.

use crate::events_common::ast;
use tracepor::trace::events::{parse, Stmt, Ty};

/// Parses `text` expecting an error at `line:col` quoting `text_part`, whose message contains `msg`.
fn rejects(text: &str, line: usize, col: usize, quoted: &str, msg: &str) {
    match ast(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => {
            assert_eq!((e.line, e.col), (line, col), "position of `{}` ({}) in\n{text}", e.text, e.message);
            assert_eq!(e.text, quoted, "quoted text ({})", e.message);
            assert!(e.message.contains(msg), "message `{}` lacks `{msg}`", e.message);
            assert_eq!(e.file.to_str(), Some("test.events"));
        }
    }
}

#[test]
fn spec_example_loads_with_its_declarations() {
    let a = ast(include_str!("../../fixtures/events/example.events")).expect("spec example loads");
    let names: Vec<&str> = a.vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["door", "alarm", "mode"]);
    assert_eq!(a.vars[0].ty, Ty::Sym);
    assert_eq!(a.vars[1].ty, Ty::Int);
    let events: Vec<(&str, bool)> = a.events.iter().map(|e| (e.name.as_str(), e.disabled)).collect();
    // Declared first, then implicitly by handlers in file order.
    assert_eq!(events, [("presence.away", false), ("smoke", true), ("mode.change", false)]);
    assert_eq!(a.apps, ["FireCO2Alarm", "LockItWhenILeave", "main"]);
    // mode.change has two handlers, FireCO2Alarm's first (file order).
    let mc: Vec<u32> = a.handlers_of(2).map(|h| h.app).collect();
    assert_eq!(mc, [0, 2]);
}

#[test]
fn statements_and_separators() {
    let a = ast("# comment\n\n// another\nmodel events\nvar x = 1; var s = \"a\"\non e { x = 2; if x == 2 { s = \"b\" } else if x > 3 { x = -1 } else { disable e }\n assert x != 0 \"msg\"; enable e }\n")
        .expect("loads");
    let body = &a.handlers[0].body;
    assert_eq!(body.len(), 4);
    assert!(matches!(body[0], Stmt::Assign { var: 0, line: 6, .. }));
    match &body[1] {
        Stmt::If { otherwise, .. } => assert!(matches!(otherwise[0], Stmt::If { .. }), "else if nests an if"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(&body[2], Stmt::Assert { message, line: 7, .. } if message == "msg"));
    assert!(matches!(body[3], Stmt::Enable { event: 0, .. }));
    // `else` on the line after `}` still belongs to the if.
    let b = ast("model events\nvar x = 0\non e {\n if x == 0 { x = 1 }\n else { x = 2 }\n}\n").expect("loads");
    assert!(matches!(&b.handlers[0].body[0], Stmt::If { otherwise, .. } if otherwise.len() == 1));
    // An assert without a message names its condition.
    let c = ast("model events\nvar x = 0\non e { assert x == 1 }").expect("loads");
    assert!(matches!(&c.handlers[0].body[0], Stmt::Assert { message, .. } if message.contains("x == 1")));
}

#[test]
fn true_false_are_integers_and_symbols_are_interned() {
    let a = ast("model events\nvar b = true\nvar c = false\nvar s = \"on\"\non e { b = c || 1; s = \"on\" }")
        .expect("loads");
    assert_eq!((a.vars[0].ty, a.vars[0].init), (Ty::Int, 1));
    assert_eq!((a.vars[1].ty, a.vars[1].init), (Ty::Int, 0));
    assert_eq!(a.symbols, ["on"]);
}

#[test]
fn header_errors() {
    match ast("") {
        Err(e) => assert_eq!((e.line, e.col), (0, 0)),
        Ok(_) => panic!("empty accepted"),
    }
    rejects("# only a comment\nvar x = 1\n", 2, 1, "var", "not an event model");
    rejects("model trace\n", 1, 7, "trace", "expected `events`");
    rejects("model events var x = 1\n", 1, 14, "var", "expected end of line");
}

#[test]
fn lexical_errors() {
    rejects("model events\nvar x = 1\non e { x = 1 @ 2 }", 3, 14, "@", "unexpected character");
    rejects("model events\nvar s = \"abc\n", 2, 9, "\"abc", "unterminated string");
    rejects("model events\nvar x = 99999999999999999999\n", 2, 9, "99999999999999999999", "out of range");
    rejects("model events\nvar x = 12ab\n", 2, 9, "12ab", "malformed number");
}

#[test]
fn syntax_errors() {
    rejects("model events\nvar = 1\n", 2, 5, "=", "expected a variable name");
    rejects("model events\nvar x 1\n", 2, 7, "1", "expected `=`");
    rejects("model events\nvar x = y\n", 2, 9, "y", "expected a literal");
    rejects("model events\non e { x = }\n", 2, 12, "}", "expected an expression");
    rejects("model events\nvar x = 0\non e { x = 1 x = 2 }\n", 3, 14, "x", "expected newline, `;` or `}`");
    rejects("model events\nvar x = 0\non e { x = (1 + 2 }\n", 3, 19, "}", "expected `)`");
    rejects("model events\nvar x = 0\non e { x = 1\n", 4, 1, "end of file", "expected a statement");
    rejects("model events\nvar if = 0\n", 2, 5, "if", "keyword");
    rejects("model events\nwhile\n", 2, 1, "while", "expected `var`, `event`, `app` or `on`");
    rejects("model events\napp A { var x = 1 }\n", 2, 9, "var", "expected `on` or `}`");
}

#[test]
fn declaration_errors() {
    rejects("model events\nvar x = 0\nvar x = 1\n", 3, 5, "x", "declared twice");
    rejects("model events\nevent a\nevent a\n", 3, 7, "a", "declared twice");
}

#[test]
fn undeclared_variables_are_rejected_where_used() {
    rejects("model events\non e { y = 1 }\n", 2, 8, "y", "undeclared variable `y`");
    rejects("model events\nvar x = 0\non e { x = x + zz }\n", 3, 16, "zz", "undeclared variable `zz`");
    rejects("model events\nvar x = 0\non e { if q { x = 1 } }\n", 3, 11, "q", "undeclared variable `q`");
}

#[test]
fn unknown_events_are_rejected() {
    rejects("model events\nvar x = 0\non e { enable f }\n", 3, 15, "f", "unknown event `f`");
    rejects("model events\nvar x = 0\non e { disable nope }\n", 3, 16, "nope", "unknown event");
    // Declared without a handler is fine; so is a handler defined later in the file.
    ast("model events\nevent f disabled\non e { enable f; enable g }\non g { disable g }\n").expect("loads");
}

#[test]
fn cross_type_operations_are_rejected() {
    let head = "model events\nvar x = 0\nvar s = \"a\"\n";
    rejects(&format!("{head}on e {{ x = \"b\" }}\n"), 4, 12, "\"b\"", "cannot assign a symbol to `x`");
    rejects(&format!("{head}on e {{ s = 1 }}\n"), 4, 12, "1", "cannot assign a integer to `s`");
    rejects(&format!("{head}on e {{ x = x + s }}\n"), 4, 14, "+", "mixes types");
    rejects(&format!("{head}on e {{ if s == 1 {{ x = 1 }} }}\n"), 4, 13, "==", "mixes types");
    rejects(&format!("{head}on e {{ if s < \"b\" {{ x = 1 }} }}\n"), 4, 13, "<", "needs integers");
    rejects(&format!("{head}on e {{ if s {{ x = 1 }} }}\n"), 4, 11, "s", "condition is a symbol");
    rejects(&format!("{head}on e {{ x = -s }}\n"), 4, 12, "-", "needs an integer");
    rejects(&format!("{head}on e {{ assert s \"m\" }}\n"), 4, 15, "s", "condition is a symbol");
}

#[test]
fn non_utf8_is_an_input_error_with_position() {
    let e = parse(std::path::Path::new("b.events"), b"model events\nvar x = \xff\n").expect_err("rejected");
    assert_eq!((e.line, e.col), (2, 9));
    assert!(e.message.contains("UTF-8"));
    assert_eq!(e.text, "\\xff");
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let deep = format!("model events\nvar x = 0\non e {{ x = {}1{} }}\n", "(".repeat(100_000), ")".repeat(100_000));
    assert!(ast(&deep).unwrap_err().message.contains("nested too deeply"));
    let chain = format!("model events\nvar x = 0\non e {{ x = 1{} }}\n", " + 1".repeat(100_000));
    assert!(ast(&chain).unwrap_err().message.contains("nested too deeply"));
    let unary = format!("model events\nvar x = 0\non e {{ x = {}1 }}\n", "-".repeat(100_000));
    assert!(ast(&unary).unwrap_err().message.contains("nested too deeply"));
    let blocks = format!("model events\nvar x = 0\non e {{ {} }}\n", "if x == 0 { ".repeat(10_000));
    assert!(ast(&blocks).unwrap_err().message.contains("nested too deeply"));
}

#[test]
fn arbitrary_bytes_never_panic() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let alphabet: &[u8] = b"model events var x = 1 \"s\" on e { } if else enable disable assert ( ) + - * / % == != < <= ! && || ; \n # // app A true false 0 9 \xff \xc3";
    let valid = include_bytes!("../../fixtures/events/example.events");
    let mut r = SmallRng::seed_from_u64(7);
    for i in 0..20_000 {
        let bytes: Vec<u8> = if i % 2 == 0 {
            (0..r.gen_range(0..120)).map(|_| alphabet[r.gen_range(0..alphabet.len())]).collect()
        } else {
            // Mutations of a valid model reach deeper into the parser.
            let mut v = valid.to_vec();
            for _ in 0..r.gen_range(1..4) {
                let at = r.gen_range(0..v.len());
                match r.gen_range(0..3) {
                    0 => v[at] = r.gen(),
                    1 => {
                        v.remove(at);
                    }
                    _ => v.insert(at, alphabet[r.gen_range(0..alphabet.len())]),
                }
            }
            v
        };
        if let Err(e) = parse(std::path::Path::new("f.events"), &bytes) {
            assert!(!e.message.is_empty());
        }
    }
}

/// Lexing is linear in the line length: 200,000 statements on one 1.4 MB line used to take 24 s
/// (the column was recounted from the line start per token, quadratic), so about 6 s for the
/// 100,000 here, while the same statements on separate lines take a fraction of a second. Measured side by side in the CPU
/// time of this thread, which other processes on a busy machine do not add to (wall time
/// would), the one long line costs at most a few times the separate lines; quadratic lexing
/// cost some hundred times more.
#[cfg(unix)]
#[test]
fn one_long_line_lexes_in_linear_time() {
    let body = "x = x + 1; ".repeat(100_000);
    let text = format!("model events\nvar x = 0\non e {{ {body}}}\n");
    let lines = format!("model events\nvar x = 0\non e {{\n{}}}\n", body.replace("; ", ";\n"));
    assert!(text.len() > 1_000_000);
    // The cheaper of three runs each, so that a page fault or a cache flushed by another
    // process on the shared core counts once at most.
    let cost = |t: &str| {
        (0..3)
            .map(|_| {
                let start = thread_cpu_time();
                let m = ast(t).unwrap();
                assert_eq!(m.handlers[0].body.len(), 100_000);
                thread_cpu_time() - start
            })
            .fold(f64::INFINITY, f64::min)
    };
    let (one_line, separate) = (cost(&text), cost(&lines));
    assert!(one_line < 4.0 * separate + 0.05, "one line {one_line:.3} s of CPU, separate lines {separate:.3} s");
    // Columns are still right far along the line.
    let bad = format!("model events\nvar x = 0\non e {{ {}@ }}\n", "x = 1; ".repeat(1000));
    let e = ast(&bad).unwrap_err();
    assert_eq!((e.line, e.col), (3, 8 + 7 * 1000));
}

/// The CPU time this thread has used, in seconds (not wall time: other processes do not add to
/// it).
#[cfg(unix)]
fn thread_cpu_time() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes one timespec that this frame owns.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}
