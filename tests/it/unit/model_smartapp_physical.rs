//! Unit tests of src/model/smartapp/physical.rs: the table of physical effects agrees with the
//! device table and with docs/physical.md.

use tracepor::model::smartapp::devices::{capability_attrs, capability_known_empty};
use tracepor::model::smartapp::footprint;
use tracepor::model::smartapp::physical::{table_markdown, Change, EFFECTS, MEDIA};

#[test]
fn every_effect_names_a_medium_and_an_attribute_or_command_the_devices_have() {
    for e in EFFECTS {
        assert!(MEDIA.iter().any(|m| m.name == e.medium), "{} is no medium", e.medium);
        for cap in e.caps {
            match e.change {
                Change::To(attr, _) => {
                    assert!(capability_attrs(cap).iter().any(|(a, _)| *a == attr), "{cap} has no {attr}");
                    assert!(footprint::ANY_COMMAND_ATTR.contains(&attr), "no command writes {attr}");
                }
                Change::Command(_) => {
                    assert!(capability_attrs(cap).is_empty() || *cap == "musicPlayer" || capability_known_empty(cap))
                }
            }
        }
    }
    for m in MEDIA {
        for (cap, attr) in m.sensors {
            assert!(capability_attrs(cap).iter().any(|(a, _)| a == attr), "{cap} has no {attr}");
        }
    }
}

#[test]
fn the_documentation_shows_the_table_of_the_code() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/physical.md")).unwrap();
    assert!(doc.contains(&table_markdown()), "docs/physical.md: paste `table_markdown()` again");
}
