//! The event-model emulator, rule by rule of event-model.md: initial state, atomic transitions
//! running all handlers in file order, enable/disable, accesses (dispatch read, short-circuit
//! reads, writes, flag writes), errors with event/app/line, conflicts with the last-writer
//! ghost, bounded instantiation, canonical encoding and the nothing-enabled outcome.

use crate::events_common::*;
use tracepor::model::events::{EventModel, EventOptions};
use tracepor::model::{Access, Accesses, Choice, Model};

const PLAIN: EventOptions = EventOptions { conflicts: false, bound: None };
const CONFLICTS: EventOptions = EventOptions { conflicts: true, bound: None };

fn ev(m: &EventModel, name: &str) -> Choice {
    m.parse_choice(name).unwrap_or_else(|| panic!("no event {name}"))
}

fn enabled(m: &EventModel, s: &<EventModel as Model>::State) -> Vec<String> {
    let mut v = Vec::new();
    m.enabled(s, &mut v);
    v.into_iter().map(|c| m.choice_name(c)).collect()
}

fn accesses(m: &EventModel, s: &<EventModel as Model>::State, c: Choice) -> Vec<Access> {
    let mut a = Accesses::new();
    m.accesses(s, c, &mut a);
    let mut v = a.to_vec();
    v.sort();
    v
}

fn r(object: u32) -> Access {
    Access { object, write: false }
}
fn w(object: u32) -> Access {
    Access { object, write: true }
}

#[test]
fn initial_state_enables_all_but_disabled_events() {
    let m = model("model events\nvar x = 0\nevent a disabled\nevent b\non c { x = 1 }\n", PLAIN);
    let s = m.initial();
    assert_eq!(enabled(&m, &s), ["b", "c"]);
    assert_eq!(m.kind(), "events");
    assert_eq!(m.choices(), 3);
}

#[test]
fn all_handlers_run_atomically_in_file_order() {
    // The second handler sees the first one's write; the third (in another app) sees both.
    let m = model(
        "model events\nvar x = 1\nvar y = 0\napp A { on e { x = x * 10 } }\non e { x = x + 2 }\napp B { on e { y = x } }\n",
        PLAIN,
    );
    let mut s = m.initial();
    m.step(&mut s, ev(&m, "e")).unwrap();
    assert_eq!(&s.slots()[..2], &[12, 12]);
    // Events stay enabled after firing.
    assert_eq!(enabled(&m, &s), ["e"]);
}

#[test]
fn enable_and_disable_flags() {
    let m = model("model events\nevent b disabled\non a { enable b; disable a }\non b { disable b }\n", PLAIN);
    let mut s = m.initial();
    assert_eq!(enabled(&m, &s), ["a"]);
    m.step(&mut s, ev(&m, "a")).unwrap();
    assert_eq!(enabled(&m, &s), ["b"]);
    m.step(&mut s, ev(&m, "b")).unwrap();
    assert!(enabled(&m, &s).is_empty());
    let o = m.outcome(&s);
    assert!(o.stuck());
    assert_eq!(o.to_string(), "vars | enabled");
}

#[test]
fn accesses_follow_the_executed_path() {
    let m = model(
        "model events\nvar x = 0\nvar y = 0\nvar z = 0\non e { if x == 1 && y == 1 { z = 1 } else { enable f } }\non f { x = 1; y = 1 }\n",
        PLAIN,
    );
    let (e, f) = (ev(&m, "e"), ev(&m, "f"));
    let (fe, ff) = (m.flag_object(e), m.flag_object(f));
    let s = m.initial();
    // x == 1 is false: `&&` does not read y; the else branch writes f's flag.
    assert_eq!(accesses(&m, &s, e), [r(0), r(fe), w(ff)]);
    let mut s2 = s.clone();
    m.step(&mut s2, f).unwrap();
    assert_eq!(accesses(&m, &s, f), [w(0), w(1), r(ff)]);
    // Now both are read and z is written; no flag write.
    assert_eq!(accesses(&m, &s2, e), [r(0), r(1), w(2), r(fe)]);
    // `||` short-circuits too.
    let m = model("model events\nvar x = 1\nvar y = 0\nvar z = 0\non e { z = x || y }\n", PLAIN);
    assert_eq!(accesses(&m, &m.initial(), 0), [r(0), w(2), r(m.flag_object(0))]);
}

#[test]
fn enable_writes_the_flag_even_without_change() {
    let m = model("model events\non a { enable b }\non b { }\n", PLAIN);
    let fb = m.flag_object(ev(&m, "b"));
    assert!(accesses(&m, &m.initial(), ev(&m, "a")).contains(&w(fb)));
}

#[test]
fn failed_assert_reports_event_app_line_and_message() {
    let m = model(
        "model events\nvar x = 0\napp Guard {\n on e {\n  x = x + 1\n  assert x < 2 \"too many\"\n }\n}\n",
        PLAIN,
    );
    let mut s = m.initial();
    m.step(&mut s, 0).unwrap();
    let err = m.step(&mut s, 0).unwrap_err();
    assert_eq!(err.kind, "assert");
    assert_eq!(err.line, 6);
    assert_eq!(err.message, "too many");
    assert_eq!(err.event.as_deref(), Some("e"));
    assert_eq!(err.app.as_deref(), Some("Guard"));
}

#[test]
fn division_and_remainder_by_zero_are_errors() {
    let m = model(
        "model events\nvar x = 0\nvar y = 5\non d { y = y / x }\non r {\n y = y % x\n}\non ok { x = 2; y = y / x }\n",
        PLAIN,
    );
    let s = m.initial();
    let e = m.step(&mut s.clone(), ev(&m, "d")).unwrap_err();
    assert_eq!((e.kind, e.line, e.app.as_deref()), ("division-by-zero", 4, Some("main")));
    let e = m.step(&mut s.clone(), ev(&m, "r")).unwrap_err();
    assert_eq!((e.kind, e.line), ("division-by-zero", 6));
    let mut s2 = s.clone();
    m.step(&mut s2, ev(&m, "ok")).unwrap();
    assert_eq!(s2.slots()[1], 2);
}

#[test]
fn conflicts_need_another_app_and_a_different_value() {
    let text = "model events\nvar door = \"locked\"\napp A { on a { door = \"unlocked\" } }\napp B {\n on b { door = \"locked\" }\n on same { door = \"unlocked\" }\n}\n";
    let m = model(text, CONFLICTS);
    let (a, b, same) = (ev(&m, "a"), ev(&m, "b"), ev(&m, "same"));
    // First write ever: no last writer, no conflict.
    let mut s = m.initial();
    m.step(&mut s, a).unwrap();
    // Same value as A stored: no conflict, but B becomes the last writer.
    let mut s1 = s.clone();
    m.step(&mut s1, same).unwrap();
    // A now writes over B's write, but the value B stored is the one A writes: no conflict.
    m.step(&mut s1.clone(), a).unwrap();
    // B overwrites A's "unlocked" with "locked": conflict, reported at B's line.
    let err = m.step(&mut s.clone(), b).unwrap_err();
    assert_eq!((err.kind, err.line, err.app.as_deref(), err.event.as_deref()), ("conflict", 5, Some("B"), Some("b")));
    // The same app overwriting itself is never a conflict.
    let mut s2 = m.initial();
    m.step(&mut s2, b).unwrap();
    m.step(&mut s2, same).unwrap();
    m.step(&mut s2, b).unwrap();
    // Without --conflicts nothing is reported.
    let plain = model(text, PLAIN);
    let mut s3 = plain.initial();
    plain.step(&mut s3, a).unwrap();
    plain.step(&mut s3, b).unwrap();
}

#[test]
fn last_writer_is_part_of_the_state() {
    let text = "model events\nvar x = 0\napp A { on a { x = 1 } }\napp B { on b { x = 1 } }\n";
    let m = model(text, CONFLICTS);
    let (mut sa, mut sb) = (m.initial(), m.initial());
    m.step(&mut sa, 0).unwrap();
    m.step(&mut sb, 1).unwrap();
    let (mut ea, mut eb) = (Vec::new(), Vec::new());
    m.encode(&sa, &mut ea);
    m.encode(&sb, &mut eb);
    assert_ne!(ea, eb, "same values, different last writer: different states");
    let p = model(text, PLAIN);
    let (mut pa, mut pb) = (p.initial(), p.initial());
    p.step(&mut pa, 0).unwrap();
    p.step(&mut pb, 1).unwrap();
    let (mut ea, mut eb) = (Vec::new(), Vec::new());
    p.encode(&pa, &mut ea);
    p.encode(&pb, &mut eb);
    assert_eq!(ea, eb, "without --conflicts the ghost is not kept");
}

#[test]
fn bound_limits_fires_and_enters_the_state() {
    let m = model("model events\nvar x = 0\non e { x = 1 - x }\n", EventOptions { conflicts: false, bound: Some(2) });
    let mut s = m.initial();
    let mut e0 = Vec::new();
    m.encode(&s, &mut e0);
    m.step(&mut s, 0).unwrap();
    m.step(&mut s, 0).unwrap();
    let mut e2 = Vec::new();
    m.encode(&s, &mut e2);
    assert_eq!(s.slots()[0], 0, "back to the initial value");
    assert_ne!(e0, e2, "but the counter differs");
    assert!(enabled(&m, &s).is_empty());
    assert_eq!(m.outcome(&s).to_string(), "vars x=0 | enabled e | fired e=2");
}

#[test]
fn encoding_is_canonical() {
    let m = model("model events\nvar x = 0\nvar s = \"a\"\non inc { x = (x + 1) % 2 }\non sw { if s == \"a\" { s = \"b\" } else { s = \"a\" } }\n", PLAIN);
    let mut a = m.initial();
    let mut b = m.initial();
    for c in [0, 1, 0, 0] {
        m.step(&mut a, c).unwrap();
    }
    for c in [0, 0, 1, 0] {
        m.step(&mut b, c).unwrap();
    }
    let (mut ea, mut eb, mut e0) = (Vec::new(), Vec::new(), Vec::new());
    m.encode(&a, &mut ea);
    m.encode(&b, &mut eb);
    m.encode(&m.initial(), &mut e0);
    assert_eq!(ea, eb);
    assert_ne!(ea, e0);
    // Negative and large values round-trip distinctly.
    let n = model("model events\nvar x = 0\non a { x = -1 }\non b { x = 4294967295 }\n", PLAIN);
    let (mut sa, mut sb) = (n.initial(), n.initial());
    n.step(&mut sa, 0).unwrap();
    n.step(&mut sb, 1).unwrap();
    let (mut ea, mut eb) = (Vec::new(), Vec::new());
    n.encode(&sa, &mut ea);
    n.encode(&sb, &mut eb);
    assert_ne!(ea, eb);
}

#[test]
fn outcome_text_names_values_and_enabled_set() {
    let m = model(
        "model events\nvar x = 3\nvar mode = \"home\"\nevent idle disabled\non go { mode = \"away\"; disable go }\n",
        CONFLICTS,
    );
    let mut s = m.initial();
    m.step(&mut s, ev(&m, "go")).unwrap();
    assert_eq!(m.outcome(&s).to_string(), "vars x=3 mode=away | enabled | writers mode=main");
}

#[test]
fn schedules_round_trip_through_choice_names() {
    let m = model("model events\non presence.away { }\non mode.change { }\n", PLAIN);
    let path = vec![0, 0, 1, 0];
    let text = tracepor::model::format_schedule(&m, &path);
    assert_eq!(text, "presence.away*2,mode.change,presence.away");
    assert_eq!(tracepor::model::parse_schedule(&m, &text).unwrap(), path);
    assert!(m.describe(&m.initial(), 1).contains("mode.change"));
}

/// Overflow is an error like division by zero (reported with its line), never a silent wrap
/// (this test used to assert that the same expressions wrapped without panicking).
#[test]
fn arithmetic_overflow_is_an_error() {
    let m = model(
        "model events\nvar x = 9223372036854775807\nvar y = -1\non add { x = x + 1 }\non div {\n y = (0 - 9223372036854775807 - 1) / y\n}\non neg { y = 0 - x - 1; y = -y }\non rem { y = (0 - x - 1) % y }\non mul { x = x * 2 }\non fine { x = x - 1 }\n",
        PLAIN,
    );
    let s = m.initial();
    for (event, line) in [("add", 4), ("div", 6), ("neg", 8), ("rem", 9), ("mul", 10)] {
        let e = m.step(&mut s.clone(), ev(&m, event)).unwrap_err();
        assert_eq!((e.kind, e.line), ("overflow", line), "{event}: {}", e.message);
        assert!(e.message.contains("overflow"), "{}", e.message);
    }
    let mut t = s.clone();
    m.step(&mut t, ev(&m, "fine")).unwrap();
    assert_eq!(t.slots()[0], i64::MAX - 1);
}

#[test]
fn load_parses_and_builds() {
    let m = tracepor::model::events::load(std::path::Path::new("x.events"), b"model events\non e { }\n", CONFLICTS)
        .unwrap();
    assert_eq!(m.options(), CONFLICTS);
    assert!(tracepor::model::events::load(std::path::Path::new("x.events"), b"model events\non e { f = 1 }\n", PLAIN)
        .is_err());
}

#[test]
fn replay_texts_name_objects_and_changes() {
    let m = model("model events\nvar door = \"locked\"\nevent b disabled\napp A { on a { door = \"open\"; enable b } }\non b { }\n", PLAIN);
    assert_eq!(m.object_name(0), "door");
    let (a, b) = (ev(&m, "a"), ev(&m, "b"));
    assert_eq!(m.object_name(m.flag_object(b)), "enabled(b)");
    let s = m.initial();
    let mut t = s.clone();
    m.step(&mut t, a).unwrap();
    assert_eq!(m.explain_step(&s, &t, a), "   -> door: locked -> open, enabled b");
    assert_eq!(m.describe(&s, a), "event a (handlers of A): R enabled(a), W door, W enabled(b)");
    assert_eq!(m.summary(), "2 events, 2 handlers, 1 apps (and handlers outside any app), 1 variables");
    assert_eq!(m.stats()["events disabled at start"], 1);
}

/// Long flat chains are lists, not deep trees: they load (no nesting limit) and evaluate left
/// to right, short-circuiting like the nested form; so do long `else if` chains.
#[test]
fn long_flat_chains_and_else_if_chains_load_and_run() {
    let sum = format!(
        "model events\nvar x = 0\nvar y = 0\non e {{ x = 0{} }}\non f {{ y = 100 - 1 - 2 - 3 }}\n",
        " + 1".repeat(5_000)
    );
    let m = model(&sum, PLAIN);
    let mut s = m.initial();
    m.step(&mut s, ev(&m, "e")).unwrap();
    m.step(&mut s, ev(&m, "f")).unwrap();
    assert_eq!(&s.slots()[..2], &[5_000, 94]);
    // `&&` chains stop at the first false operand: `y` is not read when `x == 0` fails.
    let and = "model events\nvar x = 1\nvar y = 0\nvar z = 0\non e { z = x == 0 && y == 0 && y == 1 }\n";
    let m = model(and, PLAIN);
    assert_eq!(accesses(&m, &m.initial(), ev(&m, "e")), vec![r(0), w(2), r(3)]);
    let mut chain = String::from("model events\nvar x = 3999\nvar y = 0\non e {\n");
    for i in 0..4_000 {
        chain.push_str(&format!("{}if x == {i} {{ y = {i} }}", if i == 0 { "" } else { " else " }));
    }
    chain.push_str(" else { y = 0 - 1 }\n}\n");
    let m = model(&chain, PLAIN);
    let mut s = m.initial();
    m.step(&mut s, ev(&m, "e")).unwrap();
    assert_eq!(s.slots()[1], 3_999);
    assert!(m.footprint(ev(&m, "e")).len() >= 3);
    // Overflow inside a chain is reported like any other.
    let m = model("model events\nvar x = 9223372036854775807\non e {\n x = 1 + 2 + x\n}\n", PLAIN);
    assert_eq!(m.step(&mut m.initial(), ev(&m, "e")).unwrap_err().kind, "overflow");
}
