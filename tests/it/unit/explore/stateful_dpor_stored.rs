//! Unit tests of src/explore/stateful_dpor/stored.rs: interned chunks of stored encodings.

use tracepor::explore::stateful_dpor::stored::Chunks;

#[test]
fn equal_numbers_iff_equal_encodings() {
    let mut chunks = Chunks::default();
    let a: Vec<u32> = (0..20).collect();
    let mut b = a.clone();
    b[17] = 99;
    let (sa, sb) = (chunks.store(&a), chunks.store(&b));
    assert_ne!(sa, sb);
    assert_eq!(sa[..2], sb[..2], "the first chunks are shared");
    let mut out = Vec::new();
    assert!(chunks.lookup(&a, &mut out) && *out == *sa);
    // A shorter encoding padded with zeros is told apart by its length.
    let mut c = a[..19].to_vec();
    assert!(!chunks.lookup(&c, &mut out) || *out != *sa);
    c.push(0);
    assert!(!chunks.lookup(&c, &mut out) || *out != *sa);
    assert!(!chunks.lookup(&[7; 3], &mut out));
}
