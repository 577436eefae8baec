//! Colour lights as the FSE 2020 Lights group drives them: a CoopBoss `doorState`
//! subscription runs on the door's events, `setColor([hex: ...])` sets the bulb's colour, and
//! `new Random().nextInt(n)` gives a value (Hue Party Mode's colours), so that these apps write
//! what they write on a hub.

use crate::common::apps::{fire, system};
use tracepor::model::smartapp::SmartAppOptions;
use tracepor::model::Model;

const DOOR_TO_COLOUR: &str = r##"
definition(name: "DoorColour", namespace: "t", author: "t")
preferences { section("s") {
    input "doorSensor", "capability.doorControl"
    input "bulbs", "capability.colorControl", multiple: true
} }
def installed() { subscribe(doorSensor, "doorState", changed) }
def changed(evt) {
    def hex = evt.value == "open" ? "#0000FF" : "#00FF00"
    bulbs*.setHue(evt.value == "open" ? 70 : 39)
    bulbs*.setColor([hex: hex])
}
"##;

const PARTY: &str = r#"
definition(name: "Party", namespace: "t", author: "t")
preferences { section("s") { input "lights", "capability.colorControl", multiple: true } }
def installed() { subscribe(app, touched) }
def touched(evt) {
    lights*.setColor(hue: new Random().nextInt(101), saturation: new Random().nextInt(51) + 50)
}
"#;

fn attr(
    m: &tracepor::model::smartapp::SmartAppModel,
    s: &<tracepor::model::smartapp::SmartAppModel as Model>::State,
    name: &str,
) -> String {
    let line = m.outcome(s).to_string();
    let key = format!("colorControl.{name}=");
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&key).map(str::to_string))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
}

#[test]
fn a_door_state_subscription_colours_the_bulb_and_random_colours_are_values() {
    let (m, _) = system("door-colour", &[("DoorColour", DOOR_TO_COLOUR)], SmartAppOptions::default());
    let mut s = m.initial();
    let mut en = Vec::new();
    m.enabled(&s, &mut en);
    if m.choice_name(en[0]).starts_with("init.") {
        m.step(&mut s, en[0]).unwrap();
    }
    fire(&m, &mut s, "doorControl.door.open").unwrap();
    assert_eq!((attr(&m, &s, "hue"), attr(&m, &s, "color")), ("70".to_string(), "#0000FF".to_string()));
    fire(&m, &mut s, "doorControl.door.closed").unwrap();
    assert_eq!((attr(&m, &s, "hue"), attr(&m, &s, "color")), ("39".to_string(), "#00FF00".to_string()));

    let (m, _) = system("party", &[("Party", PARTY)], SmartAppOptions::default());
    let mut s = m.initial();
    fire(&m, &mut s, "app.touch.Party").unwrap();
    // The middle of each range: hue 0..100 gives 50, saturation 50 + (0..50) gives 75.
    assert_eq!((attr(&m, &s, "hue"), attr(&m, &s, "saturation")), ("50".to_string(), "75".to_string()));
}
