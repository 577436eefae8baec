//! Unit tests of src/model/smartapp/self_keys.rs: which `state` keys an app keeps to itself.

use tracepor::model::smartapp::{load, SmartAppOptions};

fn keys(src: &str) -> Vec<(String, String)> {
    let dir = std::env::temp_dir().join(format!("self_keys_{}_{}", std::process::id(), src.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.groovy");
    std::fs::write(&path, src).unwrap();
    let opts = SmartAppOptions { conflicts: true, ..Default::default() };
    let m = load(&[path.clone()], opts).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    m.self_contained_keys()
}

const HEAD: &str = "definition(name: \"a\")\npreferences { section(\"s\") { input \"sw\", \"capability.switch\"\n input \"c\", \"capability.contactSensor\" } }\ndef installed() { subscribe(c, \"contact\", h)\n if (false) { subscribe(sw, \"switch\", g) } }\n";

#[test]
fn a_throttled_notification_is_self_contained_and_its_variants_are_not() {
    let throttle = "def h(evt) {\n sw.on()\n def last = state[evt.deviceId]\n if (last == null || now() - last >= 60000) { note(evt) }\n}\nprivate note(evt) {\n log.debug \"x ${evt.value}\"\n sendPush(\"open\")\n state[evt.deviceId] = now()\n}\n";
    assert_eq!(keys(&format!("{HEAD}{throttle}")), vec![("a".to_string(), "*".to_string())]);
    // The whole map in a log is a quiet use (quiet.rs); given to a method there, it is not.
    let logged = throttle.replace("log.debug \"x ", "log.debug \"x $state ");
    assert_eq!(keys(&format!("{HEAD}{logged}")), vec![("a".to_string(), "*".to_string())]);
    let handed = throttle.replace("log.debug \"x ", "log.debug \"x ${show(state)} ") + "def show(s) { s }\n";
    assert_eq!(keys(&format!("{HEAD}{handed}")), vec![]);
    // The same with a literal key, beside a key that is read for a command.
    let literal = throttle.replace("state[evt.deviceId]", "state.last")
        + "def g(evt) { if (state.mode == 'x') { sw.off() }\n state.mode = evt.value }\n";
    assert_eq!(keys(&format!("{HEAD}{literal}")), vec![("a".to_string(), "last".to_string())]);
    // A computed key may be `mode`, which decides a command: all the keys are one class.
    let aliased =
        throttle.to_string() + "def g(evt) { if (state.mode == 'x') { sw.off() }\n state.mode = evt.value }\n";
    assert_eq!(keys(&format!("{HEAD}{aliased}")), vec![]);
    // The key's value into a command's argument, a condition guarding a command, another key.
    for bad in [
        "sw.setLevel(state.t)",
        "if (state.t == null) { sw.off() }",
        "state.other = state.t\n if (state.other) { sw.off() }",
        "if (state.t) { return }\n sw.off()",
        "def x = state.t\n if (x) { runIn(60, h) }",
        "if (state.t) { def y = c.currentContact }",
        "if (state.t) { [1, 2].each { log.debug it } }",
    ] {
        let src = format!("{HEAD}def h(evt) {{\n {bad}\n state.t = now()\n}}\n");
        assert_eq!(keys(&src), vec![], "{bad}");
    }
}
