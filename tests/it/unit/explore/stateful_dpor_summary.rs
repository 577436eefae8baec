//! Unit tests of src/explore/stateful_dpor/summary.rs: the queue, summaries and pairs of the backwards search.

use tracepor::explore::sets::for_each_bit;
use tracepor::explore::stateful_dpor::summary::{MaxQueue, Pairs, Summaries};
use tracepor::model::{Access, Accesses};

/// Sets bit `i` of `words` (grown as needed); true when it was clear.
fn set_bit(words: &mut Vec<u64>, i: u32) -> bool {
    let w = i as usize / 64;
    if w >= words.len() {
        words.resize(w + 1, 0);
    }
    let m = 1u64 << (i % 64);
    let was = words[w] & m;
    words[w] |= m;
    was == 0
}

fn has_bit(words: &[u64], i: u32) -> bool {
    words.get(i as usize / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

fn acc(list: &[(u32, bool)]) -> Accesses {
    list.iter().map(|&(object, write)| Access { object, write }).collect()
}

#[test]
fn max_queue_pops_highest_first() {
    let mut q = MaxQueue::default();
    let mut reference = std::collections::BinaryHeap::new();
    let mut x = 12345u64;
    let mut cap = 0usize;
    for round in 0..20_000u32 {
        // Grow now and then, as states are created, with states already queued, through
        // four levels (past 64^3 states) and no further: at 3x per step the twentieth growth
        // asked room for 1.2e11 states, 15 GB of bits, more than `u32` states can use.
        if round % 1000 == 0 {
            cap = (cap * 3 + 70).min(1 << 24);
            q.reserve(cap);
        }
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        if x >> 62 != 0 {
            let n = ((x >> 20) % cap as u64) as u32;
            if !reference.iter().any(|&m| m == n) {
                reference.push(n);
                q.push(n);
            }
        } else {
            assert_eq!(q.pop(), reference.pop());
        }
    }
    assert_eq!(q.levels.len(), 4, "the queue grew through four levels");
    while let Some(n) = reference.pop() {
        assert_eq!(q.pop(), Some(n));
    }
    assert_eq!(q.pop(), None);
}

/// Growing the words per state in place keeps every summary where it is read: moving the
/// states up from the first (planted) instead of down from the last fails it.
#[test]
fn growing_summaries_in_place_keeps_each_one() {
    let mut s = Summaries::default();
    s.grow(1);
    for _ in 0..50 {
        s.push_state();
    }
    let mut x = 99u64;
    let mut want = vec![Vec::new(); 50];
    for round in 0..40 {
        let stride = s.stride;
        for (n, words) in want.iter_mut().enumerate() {
            words.resize(stride, 0);
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let w = (x >> 33) as usize % stride;
            s.add(n as u32, w, x | 1);
            words[w] |= x | 1;
        }
        s.grow(stride + 1 + round % 3);
        for (n, words) in want.iter().enumerate() {
            let got = &s.words[n * s.stride..(n + 1) * s.stride];
            assert_eq!(&got[..words.len()], &words[..], "state {n} after growth {round}");
            assert!(got[words.len()..].iter().all(|&w| w == 0));
        }
    }
}

#[test]
fn bits() {
    let mut w = Vec::new();
    assert!(set_bit(&mut w, 3));
    assert!(!set_bit(&mut w, 3));
    assert!(set_bit(&mut w, 130));
    assert!(has_bit(&w, 130) && has_bit(&w, 3) && !has_bit(&w, 4) && !has_bit(&w, 1000));
    let mut seen = Vec::new();
    for_each_bit(&w, |b| seen.push(b));
    assert_eq!(seen, [3, 130]);
}

#[test]
fn meet_drops_the_conflicting_accesses_and_switches_event() {
    let mut p = Pairs::new(false);
    let edge = p.intern(7, &acc(&[(1, true)])).unwrap();
    let carried = p.intern(2, &acc(&[(1, false), (5, false)])).unwrap();
    let unrelated = p.intern(3, &acc(&[(5, true)])).unwrap();
    let r = p.row(edge);
    assert_eq!(p.meet(edge, r, unrelated), (false, Some(unrelated)));
    let (conflict, next) = p.meet(edge, r, carried);
    assert!(conflict);
    let next = next.unwrap();
    assert_eq!(p.event(next), 7);
    assert_eq!(p.accesses(next).as_slice(), acc(&[(5, false)]).as_slice());
    // Reads do not conflict with reads; the last access conflicting leaves nothing.
    let reader = p.intern(4, &acc(&[(1, false)])).unwrap();
    let r2 = p.row(reader);
    assert_eq!(p.meet(reader, r2, carried), (false, Some(carried)));
    assert_eq!(p.meet(edge, r, reader), (true, None));
    let mut whole = Pairs::new(true);
    let edge = whole.intern(7, &acc(&[(1, true)])).unwrap();
    let carried = whole.intern(2, &acc(&[(1, false), (5, false)])).unwrap();
    let r = whole.row(edge);
    assert_eq!(whole.meet(edge, r, carried), (true, None));
}

#[test]
fn reads_of_unwritten_objects_are_left_behind_until_written() {
    let mut p = Pairs::new(false);
    let reader = p.intern(1, &acc(&[(3, false), (4, false)])).unwrap();
    let mut fresh = Vec::new();
    p.note_writes(&acc(&[(4, true)]), &mut fresh);
    assert_eq!(fresh, [4]);
    let trimmed = p.trim(reader).unwrap();
    assert_eq!(p.accesses(trimmed).as_slice(), acc(&[(4, false)]).as_slice());
    assert!(p.reads_any(reader, &[3]) && !p.reads_any(reader, &[5]));
    fresh.clear();
    p.note_writes(&acc(&[(3, true), (4, true)]), &mut fresh);
    assert_eq!(fresh, [3]);
    assert_eq!(p.trim(reader), Some(reader));
    let only_unwritten = p.intern(2, &acc(&[(9, false)])).unwrap();
    assert_eq!(p.trim(only_unwritten), None);
}
