//! `stateful-dpor` is generic over `Model`: on the EM benchmark traces whose `full` search ends
//! within a few seconds, it reaches the same outcome set and deadlocks as `full`, storing no
//! more states. (Its enable-flag accesses carry the dependence through posting and
//! dequeuing that the EM model's own accesses leave out.)

use crate::common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tracepor::explore;
use tracepor::explore::stateful_dpor::StatefulDpor;

#[test]
fn stateful_dpor_matches_full_on_em_traces() {
    let base = common::em_explorer().join("benchmark-traces");
    let mut checked = 0;
    for dir in common::trace_dirs(&base) {
        let m = common::em(&dir);
        // The traces whose `full` search ends within the budget (all 28 of them today).
        let limits = common::within(5_000_000);
        let (sf, full) = common::run_em(&m, "full", limits.clone());
        if !sf.finished {
            continue;
        }
        let (sd, dpor) = explore::run(&m, &mut StatefulDpor::new(), limits, Arc::new(AtomicBool::new(false)));
        assert!(sd.finished, "{}", dir.display());
        eprintln!(
            "{}: full {} states {} transitions; stateful-dpor {} states {} transitions",
            dir.strip_prefix(&base).unwrap().display(),
            sf.states.unwrap_or(0),
            sf.transitions,
            sd.states.unwrap_or(0),
            sd.transitions
        );
        assert_eq!(common::outcome_text(&dpor), common::outcome_text(&full), "{}", dir.display());
        assert_eq!(dpor.deadlocks(), full.deadlocks(), "{}", dir.display());
        assert!(sd.states <= sf.states, "{}", dir.display());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} traces small enough");
}
