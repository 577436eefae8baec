//! Unit tests of src/model/smartapp/choices.rs: the covering array of strength two that picks
//! combinations of preference values.

use tracepor::model::smartapp::choices::covering;

/// Every two factors of different apps take every pair of their values in some row, every
/// factor each of its values, row 0 is all zeros, and the rows stay few: a greedy covering
/// array of strength two grows with v^2 times the logarithm of the number k of factors
/// (v values each), where the product grows as v^k.
#[test]
fn covering_has_every_pair_across_apps() {
    let cases: [(Vec<usize>, Vec<usize>); 6] = [
        (vec![3, 3], vec![0, 1]),
        (vec![3, 4], vec![0, 1]),
        (vec![3, 3, 3, 3], vec![0, 1, 2, 3]),
        (vec![4, 3, 3, 4, 3, 3, 3, 3, 3], vec![0, 0, 0, 1, 1, 1, 2, 2, 2]),
        (vec![3; 12], (0..12).collect()),
        (vec![3, 3, 4, 3, 3], vec![0, 0, 0, 0, 0]),
    ];
    for (counts, apps) in cases {
        let rows = covering(&counts, &apps);
        assert!(rows[0].iter().all(|&v| v == 0), "{counts:?}: row 0 {:?}", rows[0]);
        for i in 0..counts.len() {
            for x in 0..counts[i] {
                assert!(rows.iter().any(|r| r[i] as usize == x), "{counts:?}: factor {i} never takes {x}");
            }
            for j in (i + 1..counts.len()).filter(|&j| apps[j] != apps[i]) {
                for x in 0..counts[i] {
                    for y in 0..counts[j] {
                        assert!(
                            rows.iter().any(|r| r[i] as usize == x && r[j] as usize == y),
                            "{counts:?}: factors {i}, {j} never take {x}, {y}"
                        );
                    }
                }
            }
        }
        let max = counts.iter().max().unwrap();
        let log_k = (usize::BITS - (counts.len() - 1).leading_zeros()).max(1) as usize;
        assert!(rows.len() <= max * max * log_k, "{counts:?}: {} rows", rows.len());
    }
    // One app's factors alone: each value once is enough.
    assert_eq!(covering(&[3, 3, 4], &[0, 0, 0]).len(), 4);
    assert_eq!(covering(&[3], &[0]), vec![vec![0], vec![1], vec![2]]);
    assert!(covering(&[], &[]).is_empty());
}
