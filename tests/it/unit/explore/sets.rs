//! Unit tests of src/explore/sets.rs: choice sets and the per-state set arena.

use tracepor::explore::sets::{first_bit, first_bit_from, for_each_bit, ChoiceSet, SetArena, Slot};

#[test]
fn choice_set_past_the_inline_words() {
    let mut s = ChoiceSet::default();
    assert!(s.is_empty());
    for c in [3, 64, 200] {
        s.insert(c);
    }
    assert!(s.contains(200) && s.contains(3) && !s.contains(4));
    assert_eq!(s.iter().collect::<Vec<_>>(), [3, 64, 200]);
    let mut a = ChoiceSet::default();
    a.insert(64);
    a.insert(200);
    assert!(a.is_subset(&s) && !s.is_subset(&a) && a.intersects(&s));
    assert_eq!(s.first_in_not_in(&s, &a, &ChoiceSet::default()), Some(3));
    s.remove(3);
    assert_eq!(s.first_in_not_in(&s, &a, &ChoiceSet::default()), None);
    s.clear();
    assert!(s.is_empty());
}

#[test]
fn arena_sets_are_apart_per_state_and_slot() {
    const A: Slot = Slot(0);
    const B: Slot = Slot(1);
    let mut a = SetArena::<2>::new(130);
    assert_eq!(a.width(), 3);
    a.push_state();
    a.push_state();
    assert!(a.insert(1, B, 129) && !a.insert(1, B, 129));
    assert!(a.insert(0, A, 5));
    assert!(a.contains(1, B, 129) && !a.contains(0, B, 129) && !a.contains(1, A, 129));
    let mut seen = Vec::new();
    for_each_bit(a.get(1, B), |c| seen.push(c));
    assert_eq!(seen, [129]);
    let [x, y] = a.block_mut(0);
    y[0] |= x[0];
    assert!(a.contains(0, B, 5));
    a.remove(0, B, 5);
    assert!(!a.contains(0, B, 5) && a.contains(0, A, 5));
    assert_eq!(first_bit(a.get(1, B).iter().copied()), Some(129));
    // From 6 round to 5; from 0 on: 5.
    assert_eq!(first_bit_from(1, 6, |_| 1 << 5), Some(5));
    assert_eq!(first_bit_from(1, 0, |_| 1 << 5 | 1 << 9), Some(5));
    assert_eq!(first_bit_from(2, 70, |i| [1 << 3, 1 << 10][i]), Some(74));
}
