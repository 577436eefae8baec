//! Unit tests of src/explore/firing_memo.rs: the per-choice trees of memoised firings.

use tracepor::explore::firing_memo::{apply, Memo, Trail};
use tracepor::model::{Choice, ModelError};

/// States of six words: parts 0-2 are objects, 3-5 the ghosts, fire counts and root flag.
fn memo() -> Memo {
    Memo::new(2, 3..6)
}

fn changes(m: &Memo, c: Choice, words: &[u32]) -> Option<Vec<(u32, u32)>> {
    m.get(c, words).map(|h| h.result.expect("not an error").to_vec())
}

#[test]
fn a_hit_needs_agreement_on_the_parts_read_only() {
    let mut m = memo();
    // Choice 0 read part 0 then part 2, and set part 2 to 9.
    m.record(0, &[1, 5, 2, 0, 0, 0], &[0, 2], Some(&[1, 5, 9, 0, 0, 0]), None, 7);
    assert_eq!(m.entries(), 1);
    // Part 1 was not read: any value hits, with the same changes and summary.
    assert_eq!(changes(&m, 0, &[1, 6, 2, 0, 0, 0]), Some(vec![(2, 9)]));
    assert_eq!(m.get(0, &[1, 6, 2, 0, 0, 0]).map(|h| h.summary), Some(7));
    // A part read, or one every path reads, differing: a miss.
    assert!(m.get(0, &[2, 5, 2, 0, 0, 0]).is_none());
    assert!(m.get(0, &[1, 5, 3, 0, 0, 0]).is_none());
    assert!(m.get(0, &[1, 5, 2, 0, 1, 0]).is_none());
    // Another choice has its own tree.
    assert!(m.get(1, &[1, 5, 2, 0, 0, 0]).is_none());
}

#[test]
fn runs_that_read_different_parts_branch_where_they_differ() {
    let mut m = memo();
    // Part 0 = 1: the run goes on to read part 1; part 0 = 2: part 2.
    m.record(0, &[1, 4, 4, 0, 0, 0], &[0, 1], Some(&[1, 8, 4, 0, 0, 0]), None, 0);
    m.record(0, &[2, 4, 4, 0, 0, 0], &[0, 2], Some(&[2, 4, 3, 0, 0, 0]), None, 0);
    m.record(0, &[1, 5, 4, 0, 0, 0], &[0, 1], Some(&[1, 5, 4, 0, 0, 0]), None, 0);
    assert_eq!(m.entries(), 3);
    assert_eq!(changes(&m, 0, &[1, 4, 7, 0, 0, 0]), Some(vec![(1, 8)]));
    assert_eq!(changes(&m, 0, &[2, 9, 4, 0, 0, 0]), Some(vec![(2, 3)]));
    assert_eq!(changes(&m, 0, &[1, 5, 0, 0, 0, 0]), Some(vec![]));
    assert!(m.get(0, &[2, 4, 5, 0, 0, 0]).is_none());
    // The same run recorded again adds nothing.
    m.record(0, &[1, 4, 0, 0, 0, 0], &[0, 1], Some(&[1, 8, 0, 0, 0, 0]), None, 0);
    assert_eq!(m.entries(), 3);
}

#[test]
fn an_error_is_recorded_with_its_summary() {
    let mut m = memo();
    let e = ModelError {
        kind: "exception",
        message: "boom".into(),
        line: 3,
        event: None,
        app: None,
        conflict: None,
        at: None,
    };
    m.record(1, &[0, 0, 0, 0, 0, 0], &[1], None, Some(&e), 4);
    let hit = m.get(1, &[3, 0, 3, 0, 0, 0]).expect("a hit");
    assert_eq!(hit.summary, 4);
    assert_eq!(hit.result.err().map(|e| (e.kind, e.message.as_str(), e.line)), Some(("exception", "boom", 3)));
}

#[test]
fn a_read_the_log_missed_refuses_the_choice() {
    // A part changed that the run did not read.
    let mut m = memo();
    m.record(0, &[1, 1, 1, 0, 0, 0], &[0], Some(&[1, 2, 1, 0, 0, 0]), None, 0);
    assert_eq!(m.entries(), 0);
    m.record(0, &[1, 1, 1, 0, 0, 0], &[0, 1], Some(&[1, 2, 1, 0, 0, 0]), None, 0);
    assert!(m.get(0, &[1, 1, 1, 0, 0, 0]).is_none(), "refused for good");
    // Two runs agreeing on part 0 that read different parts next.
    let mut m = memo();
    m.record(0, &[1, 1, 1, 0, 0, 0], &[0, 1], Some(&[1, 1, 1, 0, 0, 0]), None, 0);
    assert!(m.get(0, &[1, 1, 1, 0, 0, 0]).is_some());
    m.record(0, &[1, 2, 1, 0, 0, 0], &[0, 2], Some(&[1, 2, 1, 0, 0, 0]), None, 0);
    assert!(m.get(0, &[1, 1, 1, 0, 0, 0]).is_none());
    // A run whose path ends where a recorded one goes on.
    let mut m = memo();
    m.record(1, &[1, 1, 1, 0, 0, 0], &[0, 1], Some(&[1, 1, 1, 0, 0, 0]), None, 0);
    m.record(1, &[1, 1, 1, 0, 0, 0], &[0], Some(&[1, 1, 1, 0, 0, 0]), None, 0);
    assert!(m.get(1, &[1, 1, 1, 0, 0, 0]).is_none());
}

#[test]
fn a_trail_finds_what_a_walk_from_the_root_finds() {
    let mut m = memo();
    let mut trail = Trail::new();
    let states: Vec<[u32; 6]> = (0..64).map(|i| [i % 3, i / 3 % 4, i / 12 % 5, 0, (i / 60) % 2, 0]).collect();
    // Recorded runs: read part 0; then part 1 if it is 0, else part 2; change the last read.
    let run = |w: &[u32; 6]| {
        let last = if w[0] == 0 { 1 } else { 2 };
        let mut to = *w;
        to[last] = w[last] + 10;
        (vec![0, last as u32], to)
    };
    for (k, w) in states.iter().enumerate() {
        for x in &states {
            let a = m.get(0, x).map(|h| h.result.map(<[_]>::to_vec).ok());
            let b = m.get_along(0, x, &mut trail).map(|h| h.result.map(<[_]>::to_vec).ok());
            assert_eq!(a, b);
            if let Some(Some(ch)) = a {
                let (_, to) = run(x);
                let mut got = Vec::new();
                apply(x, &ch, &mut got);
                assert_eq!(got, to);
            }
        }
        if k % 3 == 0 {
            let (reads, to) = run(w);
            m.record(0, w, &reads, Some(&to), None, 0);
        }
    }
    // A trail of another memo is not followed.
    let other = memo();
    assert!(other.get_along(0, &states[0], &mut trail).is_none());
}
