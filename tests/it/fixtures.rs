//! Regression: every fixture under fixtures/em has its expected outcome set, written by hand
//! (expected.outcomes, the canonical lines of em-trace.md), and every EM strategy of this
//! build must reach exactly that set.

use crate::common;

use tracepor::explore::Limits;

#[test]
fn every_strategy_reaches_each_fixtures_expected_outcomes() {
    let dirs = common::trace_dirs(&common::root().join("fixtures/em"));
    assert!(dirs.len() >= 6, "fixtures missing");
    for d in dirs {
        let expected = std::fs::read_to_string(d.join("expected.outcomes")).unwrap();
        let m = common::em(&d);
        for name in common::em_strategies() {
            let (stats, found) = common::run_em(&m, name, Limits::default());
            assert!(stats.finished);
            assert_eq!(common::outcome_text(&found), expected, "{} with {name}", d.display());
        }
    }
}
