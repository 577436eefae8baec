//! Generated systems of apps that make HTTP requests with a response closure
//! (src/model/smartapp/http.rs), for tests/it/soundness_http.rs.

use rand::rngs::SmallRng;
use rand::Rng;

use super::gen_smartapp::{handler_bodies, head};

/// Two or three apps sharing a switch and a lock, each subscribing to a contact sensor, the
/// switch or its own touch, some with a `schedule`d method. Handlers and the timer's method send
/// requests (`httpGet`, `httpPost`, `httpPostJson`) whose closures branch on the response
/// (`resp.data.result` against literals, `resp.status` against 200 or a threshold (not varied), a `switch`
/// on a field, two fields at once, or nothing) and command the shared devices or keep a field
/// in `state` that another handler reads; or command the devices directly. Everything stored has
/// finitely many values.
pub fn gen_http_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    (0..if rng.gen_bool(0.25) { 3 } else { 2 }).map(|i| (format!("http{i}"), gen_http_app(rng, i))).collect()
}

const TRIGGERS: [&str; 3] =
    ["subscribe(contact1, \"contact.open\", h{h})", "subscribe(sw, \"switch\", h{h})", "subscribe(app, h{h})"];

fn gen_http_app(rng: &mut SmallRng, index: usize) -> String {
    let devices = [("sw", "switch"), ("door", "lock"), ("contact1", "contactSensor")];
    let mut src = head(rng, &format!("Http{index}"), devices.into_iter());
    src.push_str("def installed() {\n");
    let timer = rng.gen_bool(0.5);
    if timer {
        src.push_str("    schedule(\"0 0 7 * * ?\", poll)\n");
    }
    let handlers = if rng.gen_bool(0.3) { 2 } else { 1 };
    for h in 0..handlers {
        let t = TRIGGERS[rng.gen_range(0..TRIGGERS.len())];
        src.push_str(&format!("    {}\n", t.replace("{h}", &h.to_string())));
    }
    src.push_str("}\ndef updated() { unsubscribe(); installed() }\n");
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        for _ in 0..if rng.gen_bool(0.3) { 2 } else { 1 } {
            http_statement(rng, src);
        }
    });
    if timer {
        src.push_str("def poll() {\n");
        http_statement(rng, &mut src);
        src.push_str("}\n");
    }
    src
}

fn command(rng: &mut SmallRng) -> &'static str {
    ["sw.on()", "sw.off()", "door.lock()", "door.unlock()"][rng.gen_range(0..4)]
}

/// One statement: a request whose closure branches on the response, or a plain command, or a
/// command behind a field an earlier response left in `state`.
fn http_statement(rng: &mut SmallRng, src: &mut String) {
    let call = ["httpGet", "httpPost", "httpPostJson"][rng.gen_range(0..3)];
    let params = ["[uri: \"http://example.com/job\"]", "\"http://example.com/api\""][rng.gen_range(0..2)];
    let (a, b) = (command(rng), command(rng));
    let body = match rng.gen_range(0..7) {
        0 => format!(
            "        if (resp.data.result == \"FAILURE\") {{ {a} }} else if (resp.data.result == \"SUCCESS\") {{ {b} }}\n"
        ),
        1 => format!("        if (resp.status != 200) {{ {a} }}\n"),
        2 => format!("        if (resp.status >= 400) {{ {a} }} else {{ {b} }}\n"),
        3 => format!(
            "        switch (resp.data.state) {{\n        case \"open\": {a}; break\n        case \"closed\": {b}; break\n        }}\n"
        ),
        4 => format!("        if (resp.status == 200 && resp.data.on == true) {{ {a} }}\n"),
        5 => "        state.last = resp.data.result == \"FAILURE\" ? \"FAILURE\" : \"ok\"\n".to_string(),
        _ => format!("        log.debug \"got ${{resp.status}}\"\n        {a}\n"),
    };
    match rng.gen_range(0..5) {
        0 => src.push_str(&format!("    {}\n", command(rng))),
        1 => src.push_str(&format!("    if (state.last == \"FAILURE\") {{ {} }}\n", command(rng))),
        _ => src.push_str(&format!("    {call}({params}) {{ resp ->\n{body}    }}\n")),
    }
}
