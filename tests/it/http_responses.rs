//! HTTP requests with a response closure (src/model/smartapp/http.rs): the server's variants
//! come from the closure's comparisons, the request runs the closure with the server's answer,
//! and what is not modelled (asynchronous requests, web endpoints) is listed with its line.

use std::path::PathBuf;
use tracepor::model::smartapp::{load, SmartAppOptions};
use tracepor::model::Model;

use crate::common::apps;

fn corpus(app: &str) -> PathBuf {
    std::path::Path::new("/work/shared/smartthings/smartapps").join(format!("{app}.groovy"))
}

const HEAD: &str = "definition(name: \"a\")\npreferences { section(\"s\") { input \"sw\", \"capability.switch\"\n input \"c\", \"capability.contactSensor\" } }\ndef installed() { subscribe(c, \"contact.open\", h) }\n";

fn servers(src: &str) -> Vec<String> {
    let files = apps::write(&format!("srv{}", src.len()), &[("a", format!("{HEAD}{src}"))]);
    let m = load(&files, SmartAppOptions::default()).unwrap();
    m.event_names().into_iter().filter(|e| e.starts_with("server.")).map(str::to_string).collect()
}

#[test]
fn a_servers_variants_are_the_literals_compared_and_one_other() {
    let src = "def h(evt) {\n httpGet(\"http://x\") { resp ->\n  if (resp.data.result == \"FAILURE\") { sw.on() }\n  else if (\"SUCCESS\" == resp.data.result) { sw.off() }\n }\n}\n";
    assert_eq!(servers(src), ["server.a.L6.other", "server.a.L6.FAILURE", "server.a.L6.SUCCESS"]);
    // A `switch` on a field; two fields give their combinations.
    let sw = "def h(evt) {\n httpPost(\"http://x\") { r ->\n  switch (r.data.state) { case \"open\": sw.on(); break }\n  if (r.status != 200) { sw.off() }\n }\n}\n";
    assert_eq!(servers(sw).len(), 4, "{:?}", servers(sw));
    // Nothing compared, or only ordered: no server (the closure runs with status 200).
    for none in ["resp.status >= 400", "resp.data"] {
        let src = format!("def h(evt) {{\n httpGet(\"http://x\") {{ resp ->\n  if ({none}) {{ sw.on() }}\n }}\n}}\n");
        assert!(servers(&src).is_empty(), "{none}");
    }
}

/// The closure runs, with the answer the server gives: jenkins-notifier's switch is turned on
/// only after the server answers FAILURE.
#[test]
fn jenkins_notifier_commands_its_switch_by_the_servers_answer() {
    let m = load(&[corpus("jenkins-notifier")], SmartAppOptions::default()).unwrap();
    let names = m.event_names();
    let fail = names.iter().position(|e| *e == "server.jenkins-notifier.L118.FAILURE").expect("a server event");
    let poll = names.iter().position(|e| *e == "schedule.jenkins-notifier.checkServer").expect("the timer");
    let mut s = m.initial();
    let mut en = Vec::new();
    m.enabled(&s, &mut en);
    // Configurations at the root, when there are several: the first.
    if en.iter().all(|&c| c as usize >= names.len()) {
        m.step(&mut s, en[0]).unwrap();
    }
    let after = |s: &_, steps: &[usize]| {
        let mut s = Clone::clone(s);
        for &c in steps {
            m.step(&mut s, c as u32).unwrap();
        }
        format!("{:?}", m.outcome(&s))
    };
    let polled = after(&s, &[poll]);
    let failed = after(&s, &[fail, poll]);
    assert!(!polled.contains("switch.switch=on"), "{polled}");
    assert!(failed.contains("switch.switch=on"), "{failed}");
}

#[test]
fn asynchronous_requests_and_web_endpoints_are_listed_as_not_modelled() {
    let src = "mappings {\n path(\"/hue\") {\n  action: [PUT: \"put\"]\n }\n}\ndef put() { sw.on() }\ndef h(evt) {\n asynchttp_v1.get(\"cb\", [uri: \"http://x\"])\n}\ndef cb(r, d) { sw.off() }\n";
    let files = apps::write("notmodelled", &[("a", format!("{HEAD}{src}"))]);
    let m = load(&files, SmartAppOptions::default()).unwrap();
    let notes = m.unsupported().join("\n");
    assert!(notes.contains("a.groovy:6: web endpoint `/hue`"), "{notes}");
    assert!(notes.contains("a.groovy:12: asynchronous request `get`"), "{notes}");
}
