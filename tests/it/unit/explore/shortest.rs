//! Unit tests of src/explore/shortest.rs: the breadth-first pass that shortens schedules.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tracepor::explore::shortest::shortest_schedules;
use tracepor::explore::{dfs, Limits, Search};
use tracepor::model::{load, LoadOptions, Loaded};

/// A limit reached during the pass keeps the schedules as found, and says nothing of them.
#[test]
fn a_limit_during_the_pass_keeps_the_schedules_found() {
    let path = "traces/smartthings/initial-state-event-streamer--thermostat-auto-off.events";
    let Ok(Loaded::Events(m)) = load(std::path::Path::new(path), LoadOptions::default()) else {
        panic!("{path} loads as an event model")
    };
    let searched = |cancel: Arc<AtomicBool>| {
        let mut search = Search::new(&m, Limits::default()).with_cancel(cancel);
        dfs::depth_first(&mut search, true);
        let first = search.found.errors().next().expect("an error").schedule.len();
        (first, search)
    };
    let (first, mut free) = searched(Arc::default());
    shortest_schedules(&mut free);
    let f = free.found.errors().next().unwrap();
    assert_eq!(f.graph_shortest_from, Some(first));
    assert!(f.schedule.len() < first);

    let ctrl_c = Arc::new(AtomicBool::new(false));
    let (first, mut cut) = searched(ctrl_c.clone());
    // Ctrl-C, seen at the pass's first poll.
    ctrl_c.store(true, Ordering::Relaxed);
    shortest_schedules(&mut cut);
    assert_eq!(cut.wrap_up().polls(), 1, "the pass stopped at its first poll");
    let f = cut.found.errors().next().unwrap();
    assert_eq!((f.graph_shortest_from, f.schedule.len()), (None, first));
    assert!(!cut.stopped(), "the search itself finished");
}
