//! Unit tests of src/trace/properties.rs: the property language's parser and its errors.

use std::path::Path;

use tracepor::trace::properties::{parse, Body, Threat};

#[test]
fn every_kind_parses() {
    let ps = parse(
        Path::new("p.props"),
        "invariant door \"locked when away\" source \"IoTSan\": mode == away implies main-door.lock == locked\n\
         never unlock-away: unlock main-door when mode == away\n\
         respond leak:\n    when any leak.water == wet\n    then valve.valve == closed\n\
         threat t: self-retrigger\n\
         invariant hot: not (heater.switch == on and ac.switch == on) or thermo.temperature < 60\n",
    )
    .unwrap();
    assert_eq!(ps.len(), 5);
    assert_eq!(ps[0].source.as_deref(), Some("IoTSan"));
    assert!(matches!(&ps[1].body, Body::Never { command, target, .. } if command == "unlock" && target == "main-door"));
    assert!(matches!(&ps[2].body, Body::Respond { .. }));
    assert_eq!(ps[3].body, Body::Threat(Threat::SelfRetrigger));
}

#[test]
fn errors_are_placed() {
    let e = parse(Path::new("p"), "invariant x: mode = away\n").unwrap_err();
    assert_eq!((e.line, e.col, e.text.as_str()), (1, 19, "="));
    let e = parse(Path::new("p"), "invariant x: mode ==\n").unwrap_err();
    assert!(e.message.contains("statement ends"), "{e}");
    let deep = format!("invariant x: {}true{}\n", "(".repeat(200), ")".repeat(200));
    assert!(parse(Path::new("p"), &deep).unwrap_err().message.contains("deeper"));
    let nots = format!("invariant x: {}true\n", "not ".repeat(500));
    assert!(parse(Path::new("p"), &nots).is_err());
    let e = parse(Path::new("p"), "invariant x: true\ninvariant x: false\n").unwrap_err();
    assert!(e.message.contains("twice"), "{e}");
}
