//! Unit tests of src/model/events.rs: the interval analysis of variables, the packing of slots
//! into words, and packed words kept in step by steps and undos.

use tracepor::model::events::{layout, load, var_ranges, EventModel, EventOptions, EventState, Field, Range};
use tracepor::model::Model;

fn model(text: &str, opts: EventOptions) -> EventModel {
    load(std::path::Path::new("t.events"), text.as_bytes(), opts).expect("valid model")
}

#[test]
fn ranges_bound_assignments_and_widen_counters() {
    let m = model(
        "model events\nvar a = 0\nvar b = 5\nvar c = 0\nvar d = \"x\"\nvar e = 0\n\
         on s { a = (a + b + 1) % 3; c = c + 1; d = \"y\"; e = -a * 4 }\n",
        EventOptions::default(),
    );
    let r = var_ranges(m.ast());
    assert_eq!(r[0], Range { lo: 0, hi: 2 });
    assert_eq!(r[1], Range { lo: 5, hi: 5 });
    assert_eq!(r[2], Range::FULL, "c = c + 1 grows without bound");
    assert_eq!(r[3], Range { lo: 0, hi: 1 });
    assert_eq!(r[4], Range { lo: -8, hi: 0 });
}

#[test]
fn layout_packs_without_straddling_words() {
    let r = |lo, hi| Range { lo, hi };
    let (f, halves) = layout(&[r(0, 2), r(5, 5), Range::FULL, r(0, 1), r(-8, 0)]);
    assert_eq!(f[0], Field { word: 0, shift: 0, mask: 3, lo: 0 });
    assert_eq!(f[1], Field { word: 0, shift: 2, mask: 0, lo: 5 });
    assert_eq!(f[2], Field { word: 1, shift: 0, mask: u64::MAX, lo: 0 });
    assert_eq!(f[3], Field { word: 2, shift: 0, mask: 1, lo: 0 });
    assert_eq!(f[4], Field { word: 2, shift: 1, mask: 15, lo: -8 });
    assert_eq!(halves, 5, "the last word uses 5 bits: one half");
}

#[test]
fn steps_keep_packed_words_in_step_and_undo_restores_them() {
    let text =
        "model events\nvar x = 0\nvar y = -3\nvar big = 0\napp A {\n on a { x = (x + 1) % 4; big = big * 2 + 1 }\n \
                on b { y = y + x; if y > 3 { y = -3 }; disable a }\n}\napp B { on c { x = 0; enable a } }\n";
    let m = model(text, EventOptions { conflicts: true, bound: Some(3) });
    let fresh = |s: &EventState| {
        let mut again = vec![0; s.packed().len()];
        for (f, &v) in m.fields().iter().zip(s.slots()) {
            f.put(&mut again, v);
        }
        again
    };
    let mut s = m.initial();
    let mut log = Vec::new();
    let mut trail = vec![(s.clone(), 0)];
    // A fixed pseudo-random walk; every state's words must equal a fresh packing of its slots.
    let mut seed = 12345u64;
    for _ in 0..200 {
        let mut en = Vec::new();
        m.enabled(&s, &mut en);
        if en.is_empty() {
            let (back, from) = trail.pop().unwrap();
            m.undo(&mut s, &log[from..]);
            log.truncate(from);
            assert_eq!(s, back);
            continue;
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let c = en[(seed >> 33) as usize % en.len()];
        trail.push((s.clone(), log.len()));
        let _ = m.step_logged(&mut s, c, &mut log);
        assert_eq!(s.packed(), fresh(&s));
    }
    while let Some((back, from)) = trail.pop() {
        m.undo(&mut s, &log[from..]);
        log.truncate(from);
        assert_eq!(s, back);
    }
}
