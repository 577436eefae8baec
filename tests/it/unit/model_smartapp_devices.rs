//! Unit tests of src/model/smartapp/devices.rs: the capability table and the names a conflict
//! scope may give.

use tracepor::model::smartapp::devices::{capability_attrs, known_scope_name, CAPABILITIES};

#[test]
fn every_listed_capability_has_attributes_and_scope_names_are_checked() {
    assert!(CAPABILITIES.iter().all(|c| !capability_attrs(c).is_empty()), "a listed capability has none");
    assert!(known_scope_name("lock") && known_scope_name("musicPlayer.level") && known_scope_name("hue"));
    assert!(!known_scope_name("lok") && !known_scope_name("lock.level") && !known_scope_name("speechSynthesis.level"));
}
