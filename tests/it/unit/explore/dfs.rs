//! Unit tests of src/explore/dfs.rs: the whole-state store and the fingerprint set.

use tracepor::explore::dfs::{fingerprint, FingerprintSet, StateStore};

#[test]
fn store_tells_colliding_keys_apart() {
    let mut s = StateStore::new();
    // Same hash, so same tag and slot: only the key comparison can tell them apart.
    let h = 0xdead_beef_0000_0007;
    assert_eq!(s.insert(&[1, 2, 3], h), (true, 0));
    assert_eq!(s.insert(&[1, 2, 4], h), (true, 1));
    assert_eq!(s.insert(&[1, 2, 3], h), (false, 0));
    assert_eq!(s.insert(&[1, 2, 4], h), (false, 1));
    // Same lower half, another tag.
    assert_eq!(s.insert(&[9, 9, 9], 0x1234_5678_0000_0007), (true, 2));
    assert_eq!(s.insert(&[9, 9, 9], 0x1234_5678_0000_0007), (false, 2));
    assert_eq!(s.len(), 3);
    assert_eq!(s.key(1), &[1, 2, 4]);
}

#[test]
fn store_keeps_ids_and_keys_across_growth() {
    let mut s = StateStore::new();
    let key = |i: u32| [i, i.wrapping_mul(2_654_435_761), 7];
    for i in 0..50_000u32 {
        let k = key(i);
        assert_eq!(s.insert(&k, fingerprint(&k)), (true, i));
    }
    assert!(s.table.len() >= 50_000 * 8 / 5, "grew past its first 1024 slots");
    for i in (0..50_000u32).rev() {
        let k = key(i);
        assert_eq!(s.insert(&k, fingerprint(&k)), (false, i));
        assert_eq!(s.key(i), &k);
    }
    assert_eq!(s.len(), 50_000);
}

#[test]
fn store_takes_keys_of_different_lengths() {
    let mut s = StateStore::new();
    // The empty key, then keys of 1 to 5 words; [8] and [8, 9] ... share prefixes.
    let mut keys: Vec<Vec<u32>> = vec![Vec::new()];
    keys.extend((1..3000u32).map(|i| (0..i % 5 + 1).map(|j| i / 2 * 8 + j).collect()));
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(s.insert(k, fingerprint(k)).1, i as u32, "key {k:?}");
    }
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(s.insert(k, fingerprint(k)), (false, i as u32));
        assert_eq!(s.key(i as u32), &k[..]);
    }
}

#[test]
fn fingerprint_set_grows_and_keeps_zero_apart() {
    let mut f = FingerprintSet::new();
    assert!(f.insert(0));
    assert!(!f.insert(0));
    // Fingerprints sharing their low bits probe the same run of slots.
    for i in 1..20_000u64 {
        assert!(f.insert(i << 40), "{i}");
    }
    for i in 1..20_000u64 {
        assert!(!f.insert(i << 40), "{i}");
    }
    assert!(f.insert(1));
    assert_eq!(f.len(), 20_001);
}
