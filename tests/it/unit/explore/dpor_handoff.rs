//! Unit tests of src/explore/dpor/handoff.rs: which events of a subtree explored elsewhere are kept.

use tracepor::explore::dpor::handoff::{Event, Events};
use tracepor::explore::sets::ChoiceSet;
use tracepor::model::Choice;

fn set(ts: &[Choice]) -> ChoiceSet {
    let mut s = ChoiceSet::default();
    for &t in ts {
        s.insert(t);
    }
    s
}

/// Only events that cannot change a backtrack set are dropped: an `add_one` whose
/// candidates include an earlier one's at the same state (that one left a candidate there),
/// and anything after `add_all_enabled`. One with other candidates must be kept, or a
/// subtree explored elsewhere loses a backtrack point of its owner's.
#[test]
fn only_events_that_change_nothing_are_dropped() {
    let mut e = Events::default();
    e.add_one(3, &set(&[1, 2]));
    e.add_one(3, &set(&[1, 2, 4])); // includes {1, 2}: dropped
    e.add_one(3, &set(&[4])); // disjoint: kept
    e.add_one(5, &set(&[1, 2])); // another state: kept
    e.add_all_enabled(5);
    e.add_one(5, &set(&[7])); // after all enabled: dropped
    e.add_all_enabled(5); // again: dropped
    let kept: Vec<String> = e
        .list
        .iter()
        .map(|ev| match ev {
            Event::One(at, c) => format!("one {at} {:?}", c.iter().collect::<Vec<_>>()),
            Event::All(at) => format!("all {at}"),
        })
        .collect();
    assert_eq!(kept, ["one 3 [1, 2]", "one 3 [4]", "one 5 [1, 2]", "all 5"]);
}
