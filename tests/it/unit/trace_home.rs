//! Unit tests of src/trace/home.rs: the home file's parser and its errors.

use std::path::Path;

use tracepor::trace::home::{parse_home, BindValue, HomeFile};
use tracepor::trace::InputError;

fn parse(text: &str) -> Result<HomeFile, InputError> {
    let dir = std::env::temp_dir().join(format!("tracepor-home-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.groovy"), "definition(name: \"a\")\n").unwrap();
    parse_home(Path::new("h.home"), text, &[dir])
}

#[test]
fn a_home_reads_devices_apps_and_bindings() {
    let h = parse(
        "# flat\nhome \"flat\"\ndevice frontDoor: lock role main-door room hall\ndevice lamp: switch, switchLevel role light\n\
         app a.groovy\n    lock1 = frontDoor\n    delay = 5\n    mode = \"Away\"\n    at = 07:30\n    on = true\n    lights = lamp, frontDoor\n",
    )
    .unwrap();
    assert_eq!(h.name.as_deref(), Some("flat"));
    assert_eq!(h.devices[1].caps, ["switch", "switchLevel"]);
    assert_eq!(h.devices[0].roles, ["main-door"]);
    assert_eq!(h.devices[0].room.as_deref(), Some("hall"));
    let b = &h.apps[0].bindings;
    assert_eq!(b[0].values[0].0, BindValue::Device("frontDoor".into()));
    assert_eq!(b[1].values[0].0, BindValue::Number(5.0));
    assert_eq!(b[2].values[0].0, BindValue::Text("Away".into()));
    assert_eq!(b[3].values[0].0, BindValue::Time("07:30".into()));
    assert_eq!(b[4].values[0].0, BindValue::Bool(true));
    assert_eq!(b[5].values.len(), 2);
}

#[test]
fn errors_name_line_column_and_text() {
    let e = parse("home\ndevice d lock\n").unwrap_err();
    assert_eq!((e.line, e.col, e.text.as_str()), (2, 10, "lock"));
    let e = parse("home\napp a.groovy\n  x == 3\n").unwrap_err();
    assert_eq!((e.line, e.col), (3, 5));
    let e = parse("home\napp b.groovy\n").unwrap_err();
    assert!(e.message.contains("no such app"), "{e}");
    let e = parse("home\ndevice d: lock\ndevice d: switch\n").unwrap_err();
    assert!(e.message.contains("twice"), "{e}");
    let e = parse("device d: lock\n").unwrap_err();
    assert_eq!(e.line, 1);
    let e = parse("home\n  device d: lock\n").unwrap_err();
    assert!(e.to_string().contains("h.home:2:3"), "{e}");
    let e = parse("home\ndevice d: lock role \"x\n").unwrap_err();
    assert!(e.message.contains("not closed"), "{e}");
}
