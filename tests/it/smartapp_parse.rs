//! The Groovy parser of SmartApps (src/trace/groovy.rs), construct by construct, its errors
//! (file:line:col naming the construct), and that no input makes it panic.

use std::path::Path;

use tracepor::trace::groovy::{parse, Arg, Expr, GPart, Script, Stmt};

fn ok(src: &str) -> Script {
    parse(Path::new("t.groovy"), src).unwrap_or_else(|e| panic!("should parse: {e}"))
}

fn method<'a>(s: &'a Script, name: &str) -> &'a [Stmt] {
    &s.methods.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no method {name}")).body
}

#[test]
fn definition_preferences_sections_pages_inputs() {
    let s = ok(r#"
definition(name: "A", namespace: "x", author: "y", description: "d")
preferences {
    page(name: "p1", title: "T", nextPage: "p2") {
        section("When...") {
            input "contact1", "capability.contactSensor", title: "Where?", multiple: true
            input(name: "mode1", type: "mode", required: false)
        }
    }
}
def installed() { subscribe(contact1, "contact.open", handler) }
private handler(evt) { log.debug "got $evt.value" }
"#);
    assert_eq!(s.top.len(), 2, "definition and preferences");
    assert_eq!(s.methods.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["installed", "handler"]);
    assert_eq!(s.methods[1].params, ["evt"]);
    // `input "contact1", ..., title: ...` is a command call with positional and named arguments.
    let Stmt::Expr(Expr::Call { name, args, .. }, _) = &s.top[1] else { panic!("preferences call") };
    assert_eq!(name, "preferences");
    let text = format!("{args:?}");
    assert!(text.contains("capability.contactSensor") && text.contains("Named(\"multiple\", Bool(true))"), "{text}");
}

#[test]
fn gstrings_interpolate_paths_and_expressions() {
    let s = ok(r#"def f(evt) { def m = "Door $evt.device.displayName is ${evt.value + 1}!" }"#);
    let Stmt::Def(_, Some(Expr::GStr(parts)), _) = &method(&s, "f")[0] else { panic!("a GString") };
    assert_eq!(parts.len(), 5);
    assert_eq!(parts[0], GPart::Lit("Door ".into()));
    assert!(matches!(&parts[1], GPart::Expr(Expr::Member { name, .. }) if name == "displayName"));
    assert!(matches!(&parts[3], GPart::Expr(Expr::Binary("+", _, _))));
    // Single quotes do not interpolate.
    let s = ok(r#"def g() { def m = '$x' }"#);
    assert_eq!(method(&s, "g")[0], Stmt::Def("m".into(), Some(Expr::Str("$x".into())), 1));
}

#[test]
fn closures_maps_lists_and_collection_calls() {
    let s = ok(r#"
def f() {
    def m = [:]
    def n = [a: 1, "b c": [1, 2], (x): y]
    switches.each { it.on() }
    def any = sensors.findAll { s -> s.currentContact == "open" }.collect { it.displayName }
    lock1.count{it.currentLock == "unlocked"} != lock1.size()
}
"#);
    let b = method(&s, "f");
    assert_eq!(b[0], Stmt::Def("m".into(), Some(Expr::Map(vec![])), 3));
    let Stmt::Def(_, Some(Expr::Map(pairs)), _) = &b[1] else { panic!("map") };
    assert_eq!(pairs.len(), 3);
    let Stmt::Expr(Expr::Call { name, args, .. }, _) = &b[2] else { panic!("each") };
    assert_eq!(name, "each");
    assert!(matches!(&args[0], Arg::Pos(Expr::Closure(c)) if c.0 == ["it"]));
    let Stmt::Def(_, Some(Expr::Call { name, target: Some(t), .. }), _) = &b[3] else { panic!("collect") };
    assert_eq!(name, "collect");
    assert!(matches!(t.as_ref(), Expr::Call { name, args, .. } if name == "findAll"
        && matches!(&args[0], Arg::Pos(Expr::Closure(c)) if c.0 == ["s"])));
    assert!(matches!(&b[4], Stmt::Expr(Expr::Binary("!=", _, _), _)));
}

#[test]
fn control_flow_if_switch_loops_try() {
    let s = ok(r#"
def f(x) {
    if (x == 1) { a() } else if (x == 2) b() else { c() }
    switch (x) {
        case "a":
        case "b": y = 1; break
        case ["c", "d"]: y = 2
        default: y = 3
    }
    for (d in devices) { d.off() }
    for (int i = 0; i < 3; i++) { n += i }
    while (n > 0) { n-- }
    try { risky() } catch (Exception e) { log.error "no" } finally { done() }
    String label
    return x ? "yes" : "no"
}
"#);
    let b = method(&s, "f");
    assert!(matches!(&b[0], Stmt::If(_, _, otherwise, _) if matches!(&otherwise[0], Stmt::If(..))));
    let Stmt::Switch(_, cases) = &b[1] else { panic!("switch") };
    assert_eq!(cases.len(), 3, "`case a: case b:` share a body");
    assert_eq!(cases[0].0.len(), 2);
    assert!(cases[2].1, "default");
    assert!(matches!(&b[2], Stmt::ForIn(v, _, _) if v == "d"));
    assert!(matches!(&b[3], Stmt::For(init, Some(_), update, _) if init.len() == 1 && update.len() == 1));
    assert!(matches!(&b[4], Stmt::While(..)));
    assert!(matches!(&b[5], Stmt::Try(_, c, f) if c.len() == 1 && f.len() == 1));
    assert_eq!(b[6], Stmt::Def("label".into(), None, 14), "a typed declaration without a value");
    assert!(matches!(&b[7], Stmt::Return(Some(Expr::Ternary(..)))));
}

#[test]
fn unsupported_constructs_are_errors_at_file_line_col() {
    let e = parse(Path::new("a.groovy"), "def f() {}\nclass Foo {\n}\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 1));
    assert!(e.to_string().starts_with("a.groovy:2:1:") && e.message.contains("class"), "{e}");
    let e = parse(Path::new("a.groovy"), "def f() {\n  def x = \"open\n}\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 11));
    assert!(e.message.contains("unterminated string"), "{e}");
    let e = parse(Path::new("a.groovy"), "def f() {\n  do { x() } while (y)\n}\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 3));
    assert!(e.message.contains("construct: do"), "{e}");
    let e = parse(Path::new("a.groovy"), "def f() {\n  x = 1 +\n").unwrap_err();
    assert!(e.line >= 2, "{e}");
}

#[test]
fn no_bytes_make_it_panic() {
    // Pseudo-random mutations of a real app: each must parse or fail with an error, never panic.
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/smartthings/smartapps/lock-it-when-i-leave.groovy"),
    )
    .unwrap_or_else(|_| "definition(name: \"x\")\ndef installed() { subscribe(a, \"b\", c) }\n".into());
    let bytes = base.as_bytes();
    let mut seed = 7u64;
    let mut errors = 0;
    for round in 0..400 {
        let mut v = bytes.to_vec();
        for _ in 0..1 + round % 5 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let at = (seed >> 33) as usize % v.len();
            v[at] = b"{}()[]\"'$/*:,.\n\\x0?-"[(seed >> 20) as usize % 20];
        }
        v.truncate(v.len() - (seed as usize % 40).min(v.len()));
        let text = String::from_utf8_lossy(&v);
        if parse(Path::new("m.groovy"), &text).is_err() {
            errors += 1;
        }
    }
    assert!(errors > 0, "some mutations must be rejected");
    // Deep nesting is an error, not a stack overflow.
    let deep = format!("def f() {{ x = {}1{} }}", "(".repeat(5000), ")".repeat(5000));
    assert!(parse(Path::new("d.groovy"), &deep).is_err());
}
