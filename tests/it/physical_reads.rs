//! A sensor that apps only read (no app subscribes to it, no app commands it) varies across
//! the configurations at installation (src/model/smartapp/initial.rs, `unmoved_reads`), and a
//! physical conflict found by a read names the line of the read, also when the read is the
//! condition of an `if` (the statement that opens the handler, before any other has run).

use crate::common::apps::{fire, system, ENDING};
use tracepor::model::smartapp::SmartAppOptions;
use tracepor::model::{ConflictMode, Model};

const LAMP: &str = r#"
definition(name: "Lamp", namespace: "t", author: "t")
preferences { section("s") { input "bulb", "capability.switch" } }
def installed() { subscribe(app, touched) }
def touched(evt) { bulb.on() }
"#;

/// Line 7 is the `if` whose condition reads the illuminance, the handler's first statement.
const DARK: &str = r#"
definition(name: "Dark", namespace: "t", author: "t")
preferences { section("s") { input "door", "capability.contactSensor"
    input "lux", "capability.illuminanceMeasurement"
    input "siren", "capability.alarm" } }
def installed() { subscribe(door, "contact.open", opened) }
def opened(evt) { if (lux.currentIlluminance < 10) {
        siren.siren()
    }
}
"#;

fn configurations(m: &tracepor::model::smartapp::SmartAppModel) -> Vec<String> {
    let s = m.initial();
    let mut en = Vec::new();
    m.enabled(&s, &mut en);
    en.into_iter().map(|c| m.choice_name(c)).filter(|n| n.starts_with("init.")).collect()
}

#[test]
fn a_sensor_only_read_takes_each_of_its_values_in_some_configuration() {
    let (m, _) = system("dark-alone", &[("Dark", DARK)], SmartAppOptions::default());
    let mut sirens = 0;
    let mut values = Vec::new();
    for k in configurations(&m) {
        let mut s = m.initial();
        fire(&m, &mut s, &k).unwrap();
        let line = m.outcome(&s).to_string();
        let lux = line.split_whitespace().find_map(|w| w.strip_prefix("illuminanceMeasurement.illuminance="));
        values.push(lux.unwrap_or_else(|| panic!("no illuminance in {line}")).to_string());
        fire(&m, &mut s, "contactSensor.contact.open").unwrap();
        if m.outcome(&s).to_string().contains("alarm.alarm=siren") {
            sirens += 1;
        }
    }
    for v in ["5", "500"] {
        assert!(values.iter().any(|x| x == v), "illuminance {v} in no configuration: {values:?}");
    }
    // Dark in one configuration, so the branch that sounds the siren is taken there.
    assert!(sirens >= 1, "the siren never sounds: {values:?}");
}

#[test]
fn a_physical_conflict_through_a_read_in_a_condition_names_the_line_of_the_read() {
    // Observed, as every physical conflict is (the path goes on past it).
    let opts = SmartAppOptions { physical: true, conflict_mode: ConflictMode::Observe, ..ENDING };
    let (m, _) = system("lamp-dark", &[("Lamp", LAMP), ("Dark", DARK)], opts);
    let mut s = m.initial();
    fire(&m, &mut s, "init.0").unwrap();
    fire(&m, &mut s, "app.touch.Lamp").unwrap();
    fire(&m, &mut s, "physical.light.illuminanceMeasurement.500").unwrap();
    let c = m.parse_choice("contactSensor.contact.open").unwrap();
    let mut seen = Vec::new();
    m.step_observing(&mut s, c, None, &mut seen).unwrap();
    let e = seen.into_iter().find(|e| e.kind == "physical conflict").expect("a physical conflict observed");
    assert_eq!(e.line, 7, "{e:?}");
    assert!(e.at.as_deref().is_some_and(|a| a.contains("Dark.groovy:7")), "{e:?}");
}
