//! Unit tests of src/corpus.rs: the papers' table of SmartApp pairs and the geometric mean of
//! reductions.

use tracepor::corpus::{geomean, parse_pairs, select, PaperRun};

const TSV: &str = "# comment\n# more\ntable\tno\tpair\tevents\tstates_nodpor\ttransitions_nodpor\ttime_nodpor\tstates_dpor\ttransitions_dpor\ttime_dpor\n\
A.1\t1\ta-b\u{2013}c.smartapp\t78\tUnf\tUnf\tUnf\t7146\t25850\t3285\n\
A.2\t3\tx\u{2013}y\t2\t4\t6\t6\t4\t5\t7\n";

#[test]
fn parses_the_papers_rows() {
    let p = parse_pairs(TSV).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].apps, ["a-b".to_string(), "c.smartapp".to_string()]);
    assert_eq!(p[0].nodpor, PaperRun::default());
    assert_eq!(p[0].states_reduction(), None);
    assert_eq!(p[1].transitions_reduction(), Some(6.0 / 5.0));
    assert_eq!(select(p.clone(), Some("A.2"), None, None).len(), 1);
    assert_eq!(select(p, None, Some(1), None)[0].no, 1);
}

#[test]
fn geomean_of_reductions() {
    assert!((geomean([2.0, 8.0].into_iter()).unwrap() - 4.0).abs() < 1e-12);
    assert_eq!(geomean(std::iter::empty()), None);
}
