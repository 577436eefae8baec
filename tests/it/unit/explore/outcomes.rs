//! Unit tests of src/explore/outcomes.rs: outcome sets kept as texts or as fingerprints.

use tracepor::explore::Outcomes;
use tracepor::model::Outcome;

fn em(reads: &[(u32, u32)], stuck: &[u32]) -> Outcome {
    Outcome::EmTrace { reads_from: reads.to_vec(), final_writes: vec![], stuck: stuck.to_vec() }
}

#[test]
fn fingerprints_count_what_texts_count() {
    let (mut texts, mut prints) = (Outcomes::default(), Outcomes::default());
    prints.add_outcome(em(&[(3, 0)], &[]), &[0]);
    prints.fingerprints_only();
    for o in [em(&[(3, 0)], &[]), em(&[(3, 2)], &[]), em(&[(3, 0)], &[]), em(&[(3, 2)], &[7])] {
        texts.add_outcome(o.clone(), &[1]);
        prints.add_outcome(o, &[1]);
    }
    assert_eq!((texts.len(), prints.len()), (3, 3));
    assert!(texts.has_lines() && !prints.has_lines());
    assert_eq!(prints.lines().count(), 0);
    // Stuck outcomes stay whole: they are reported with a schedule.
    assert_eq!(prints.deadlocks(), 1);
    assert!(texts.same_as(&prints) && prints.same_as(&texts));
    let mut other = Outcomes::default();
    other.add_outcome(em(&[(3, 2)], &[]), &[]);
    assert!(!other.same_as(&prints));
    // Merging a text set into a fingerprint set (parallel workers) counts each once.
    other.add_outcome(em(&[(4, 1)], &[]), &[]);
    prints.merge(other);
    assert_eq!(prints.len(), 4);
}
