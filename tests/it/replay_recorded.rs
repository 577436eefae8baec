//! Every shipped trace parses and its recorded order replays as a legal execution that ran
//! every operation.

use crate::common;

use tracepor::model::Model;

#[test]
fn every_shipped_trace_replays_its_recorded_order() {
    let dirs = common::trace_dirs(&common::em_explorer());
    assert_eq!(dirs.len(), 33, "5 TACAS traces and 28 benchmark traces expected");
    for d in dirs {
        let m = common::em(&d);
        let end = m.replay_recorded().unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        let mut enabled = Vec::new();
        m.enabled(&end, &mut enabled);
        assert!(enabled.is_empty(), "{}: something still enabled after the recorded order", d.display());
        let outcome = m.outcome(&end);
        assert!(!outcome.stuck(), "{}: recorded order leaves operations unrun: {}", d.display(), outcome);
        assert_eq!(end.executed_count(), m.trace.ops.len());
    }
}
