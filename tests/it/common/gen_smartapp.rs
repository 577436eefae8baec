//! Random small SmartApp systems in Groovy, for the differential soundness suite:
//! two or three apps that share devices of a few capabilities, as the IoTCheck pairs do, and
//! whose handlers read what others write (device attributes, location mode) and branch on it.
//!
//! The inputs take every form the corpus uses: written out, declared through a map
//! held by a local (`def m = [name: ..., type: ...]; input m`), lists of devices used by index
//! (`sw[0].on()`); handlers read `evt.data` as JSON (`parseJson`), apps may subscribe to their
//! own touch, and two apps often subscribe to one event (every handler runs on it).
//!
//! Everything a handler stores has finitely many values (toggled strings, never a growing
//! counter), so an exhaustive search of an unbounded system ends.

use rand::rngs::SmallRng;
use rand::Rng;

/// A device input every app may declare: (input name, capability, attribute, its values).
const DEVICES: [(&str, &str, &str, [&str; 2]); 4] = [
    ("sw", "switch", "switch", ["on", "off"]),
    ("door", "lock", "lock", ["locked", "unlocked"]),
    ("contact1", "contactSensor", "contact", ["open", "closed"]),
    ("motion1", "motionSensor", "motion", ["active", "inactive"]),
];

const MODES: [&str; 3] = ["home", "away", "night"];

/// One system: (app name, Groovy source) per app.
pub fn gen_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    // Mostly pairs, as IoTCheck's groups; a third app now and then. Each subscription adds one or
    // two environment events, and the stateless searches take every order of them.
    let apps = if rng.gen_bool(0.25) { 3 } else { 2 };
    (0..apps).map(|i| (format!("gen{i}"), gen_app(rng, i))).collect()
}

fn gen_app(rng: &mut SmallRng, index: usize) -> String {
    // Every app has the switch and the lock (actuators others observe), and one or two sensors.
    let mut devices: Vec<usize> = vec![0, 1];
    for d in 2..DEVICES.len() {
        if rng.gen_bool(0.4) {
            devices.push(d);
        }
    }
    let mut src = head(rng, &format!("Gen{index}"), devices.iter().map(|&d| (DEVICES[d].0, DEVICES[d].1)));

    // Subscriptions: one or two, to an attribute with or without a value, or to the mode.
    let handlers = rng.gen_range(1..=2);
    src.push_str("def installed() {\n");
    for h in 0..handlers {
        match rng.gen_range(0..6) {
            0 => src.push_str(&format!("    subscribe(location, \"mode\", h{h})\n")),
            5 => src.push_str(&format!("    subscribe(app, h{h})\n")),
            1 | 2 => {
                let (name, _, attr, values) = DEVICES[devices[rng.gen_range(0..devices.len())]];
                let value = values[rng.gen_range(0..2)];
                src.push_str(&format!("    subscribe({name}, \"{attr}.{value}\", h{h})\n"));
            }
            _ => {
                let (name, _, attr, _) = DEVICES[devices[rng.gen_range(0..devices.len())]];
                src.push_str(&format!("    subscribe({name}, \"{attr}\", h{h})\n"));
            }
        }
    }
    src.push_str("}\ndef updated() { unsubscribe(); installed() }\n");

    handler_bodies(rng, handlers, &mut src, |rng, src| {
        for _ in 0..rng.gen_range(1..=3) {
            statement(rng, &devices, src, 1);
        }
    });
    // A method only timers call, so that `runIn` schedules something that acts.
    src.push_str("def later() {\n");
    statement(rng, &devices, &mut src, 1);
    src.push_str("}\n");
    src
}

/// One statement of a handler body, at `depth` levels of nesting.
fn statement(rng: &mut SmallRng, devices: &[usize], src: &mut String, depth: usize) {
    let pad = "    ".repeat(depth);
    let actuator = |rng: &mut SmallRng| -> String {
        match rng.gen_range(0..2) {
            0 => format!("sw.{}()", ["on", "off"][rng.gen_range(0..2)]),
            _ => format!("door.{}()", ["lock", "unlock"][rng.gen_range(0..2)]),
        }
    };
    let choice = if depth >= 3 { rng.gen_range(0..5) } else { rng.gen_range(0..8) };
    match choice {
        0 | 1 => src.push_str(&format!("{pad}{}\n", actuator(rng))),
        // A device of the list by index (the one device bound).
        2 if rng.gen_bool(0.3) => src.push_str(&format!("{pad}sw[0].{}()\n", ["on", "off"][rng.gen_range(0..2)])),
        2 => src.push_str(&format!("{pad}state.flag = \"{}\"\n", ["a", "b"][rng.gen_range(0..2)])),
        3 => src.push_str(&format!("{pad}setLocationMode(\"{}\")\n", MODES[rng.gen_range(0..3)])),
        4 => src.push_str(&format!("{pad}runIn(60, later)\n")),
        _ => {
            // A branch on something another handler (or another app) writes.
            let cond = match rng.gen_range(0..4) {
                0 => format!("state.flag == \"{}\"", ["a", "b"][rng.gen_range(0..2)]),
                1 => format!("location.mode == \"{}\"", MODES[rng.gen_range(0..3)]),
                2 => {
                    let (name, _, attr, values) = DEVICES[devices[rng.gen_range(0..devices.len())]];
                    format!("{name}.currentValue(\"{attr}\") == \"{}\"", values[rng.gen_range(0..2)])
                }
                3 if rng.gen_bool(0.3) => "parseJson(evt.data) == [:]".to_string(),
                _ => format!("evt.value == \"{}\"", ["on", "off", "open", "locked"][rng.gen_range(0..4)]),
            };
            src.push_str(&format!("{pad}if ({cond}) {{\n"));
            statement(rng, devices, src, depth + 1);
            if rng.gen_bool(0.5) {
                src.push_str(&format!("{pad}}} else {{\n"));
                statement(rng, devices, src, depth + 1);
            }
            src.push_str(&format!("{pad}}}\n"));
        }
    }
}

/// Devices of the loosely coupled systems: the first five of [`HOME`] (three actuators, two
/// sensors).
const LOOSE: &[Actuated] = HOME.split_at(5).0;

/// A loosely coupled system (for `dpor` on SmartApps, whose footprints are per app): three apps,
/// each with two or three of five devices, so that some firings are independent and others
/// meet only through a cascade (an app commanding a device another app subscribes to).
pub fn gen_loose_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    (0..3).map(|i| (format!("loose{i}"), gen_loose_app(rng, i))).collect()
}

fn gen_loose_app(rng: &mut SmallRng, index: usize) -> String {
    let devices = two_or_three(rng, LOOSE.len());
    let mut src = head(rng, &format!("Loose{index}"), devices.iter().map(|&d| (LOOSE[d].0, LOOSE[d].1)));
    src.push_str("def installed() {\n");
    let handlers = rng.gen_range(1..=2);
    for h in 0..handlers {
        // One value per subscription: one environment event each, so that the stateless
        // searches' orders of a bound-1 run stay few.
        if rng.gen_bool(0.15) {
            src.push_str(&format!("    subscribe(location, \"mode.{}\", h{h})\n", MODES[rng.gen_range(1..3)]));
            continue;
        }
        let (name, _, attr, _, values) = LOOSE[devices[rng.gen_range(0..devices.len())]];
        src.push_str(&format!("    subscribe({name}, \"{attr}.{}\", h{h})\n", values[rng.gen_range(0..2)]));
    }
    src.push_str("}\n");
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        for _ in 0..rng.gen_range(1..=2) {
            loose_statement(rng, &devices, src, 1);
        }
    });
    src
}

fn loose_statement(rng: &mut SmallRng, devices: &[usize], src: &mut String, depth: usize) {
    let pad = "    ".repeat(depth);
    let actuators: Vec<usize> = devices.iter().copied().filter(|&d| !LOOSE[d].3.is_empty()).collect();
    let choice = if depth >= 2 { rng.gen_range(0..4) } else { rng.gen_range(0..7) };
    match choice {
        0 | 1 if !actuators.is_empty() => {
            let (name, _, _, cmds, _) = LOOSE[actuators[rng.gen_range(0..actuators.len())]];
            src.push_str(&format!("{pad}{name}.{}()\n", cmds[rng.gen_range(0..cmds.len())].0));
        }
        0..=2 => src.push_str(&format!("{pad}state.flag = \"{}\"\n", ["a", "b"][rng.gen_range(0..2)])),
        3 => {
            if rng.gen_bool(0.3) {
                src.push_str(&format!("{pad}setLocationMode(\"{}\")\n", MODES[rng.gen_range(0..3)]));
            } else {
                src.push_str(&format!("{pad}state.seen = evt.value\n"));
            }
        }
        _ => {
            let cond = match rng.gen_range(0..3) {
                0 => format!("state.flag == \"{}\"", ["a", "b"][rng.gen_range(0..2)]),
                1 => format!("location.mode == \"{}\"", MODES[rng.gen_range(0..3)]),
                _ => {
                    let (name, _, attr, _, values) = LOOSE[devices[rng.gen_range(0..devices.len())]];
                    let value = values[rng.gen_range(0..2)];
                    format!("{name}.currentValue(\"{attr}\") == \"{value}\"")
                }
            };
            src.push_str(&format!("{pad}if ({cond}) {{\n"));
            loose_statement(rng, devices, src, depth + 1);
            if rng.gen_bool(0.4) {
                src.push_str(&format!("{pad}}} else {{\n"));
                loose_statement(rng, devices, src, depth + 1);
            }
            src.push_str(&format!("{pad}}}\n"));
        }
    }
}

/// A device an app may command: (input name, capability, attribute, values an app may command
/// as (method, value), or none for a sensor; values to subscribe to).
type Actuated = (&'static str, &'static str, &'static str, &'static [(&'static str, &'static str)], [&'static str; 2]);

/// Two or three distinct devices of `n`, at random.
fn two_or_three(rng: &mut SmallRng, n: usize) -> Vec<usize> {
    let mut devices: Vec<usize> = Vec::new();
    while devices.len() < 2 || (devices.len() < 3 && rng.gen_bool(0.3)) {
        let d = rng.gen_range(0..n);
        if !devices.contains(&d) {
            devices.push(d);
        }
    }
    devices
}

/// An app's `definition` and its `preferences` ([`inputs`]).
pub(crate) fn head<'a>(rng: &mut SmallRng, name: &str, devices: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut src = format!("definition(name: \"{name}\", namespace: \"gen\", author: \"tracepor tests\")\n");
    src.push_str(&inputs(rng, devices));
    src
}

/// Handlers `h0` .. `h{n-1}`, each body written by `body`.
pub(crate) fn handler_bodies(
    rng: &mut SmallRng,
    n: usize,
    src: &mut String,
    mut body: impl FnMut(&mut SmallRng, &mut String),
) {
    for h in 0..n {
        src.push_str(&format!("def h{h}(evt) {{\n"));
        body(rng, src);
        src.push_str("}\n");
    }
}

/// The `preferences` of an app: each input written out, declared through a map held by a local
/// of a page method (`input m`), or as a list of devices (`multiple: true`).
fn inputs<'a>(rng: &mut SmallRng, devices: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut maps = String::new();
    let mut section = String::new();
    for (i, (name, cap)) in devices.enumerate() {
        match rng.gen_range(0..4) {
            0 => {
                maps.push_str(&format!(
                    "    def in{i} = [name: \"{name}\", type: \"capability.{cap}\", multiple: true]\n"
                ));
                section.push_str(&format!("            input in{i}\n"));
            }
            1 => section.push_str(&format!("            input \"{name}\", \"capability.{cap}\", multiple: true\n")),
            _ => section.push_str(&format!("            input \"{name}\", \"capability.{cap}\"\n")),
        }
    }
    format!(
        "preferences {{ page(name: \"devicesPage\") }}\ndef devicesPage() {{\n{maps}    dynamicPage(name: \"devicesPage\") {{\n        section(\"devices\") {{\n{section}        }}\n    }}\n}}\n"
    )
}

/// A system as [`gen_system`] makes, with one or two apps that only read (as the event loggers
/// of the corpus do: they subscribe, read devices, the mode and the event, and keep what they
/// saw in their own state) placed among the others, so that their handlers run before or after
/// the others' on one event. A reader throws now and then (`throw` on a state it reached), the
/// one way its run can stop another app's in the model. For `slice` (apps left out under
/// `--conflicts`).
pub fn gen_system_with_readers(rng: &mut SmallRng) -> Vec<(String, String)> {
    let mut apps = gen_system(rng);
    // The other ways to read an attribute (`currentSwitch`, `switchState.value`), which decide
    // which events reach a kept app.
    for (_, src) in apps.iter_mut() {
        for (_, _, attr, _) in DEVICES {
            let call = format!(".currentValue(\"{attr}\")");
            let upper = format!("{}{}", attr[..1].to_uppercase(), &attr[1..]);
            *src = match rng.gen_range(0..3) {
                0 => src.replace(&call, &format!(".current{upper}")),
                1 => src.replace(&call, &format!(".{attr}State.value")),
                _ => src.clone(),
            };
        }
    }
    for i in 0..rng.gen_range(1..=2) {
        let at = rng.gen_range(0..=apps.len());
        apps.insert(at, (format!("reader{i}"), gen_reader_app(rng, i)));
    }
    // Names sort as the apps are listed, so that the load order is the list's.
    apps.iter_mut().enumerate().for_each(|(i, (name, _))| *name = format!("a{i}-{name}"));
    apps
}

fn gen_reader_app(rng: &mut SmallRng, index: usize) -> String {
    let mut devices: Vec<usize> = Vec::new();
    for d in 0..DEVICES.len() {
        if rng.gen_bool(0.6) || (d == DEVICES.len() - 1 && devices.is_empty()) {
            devices.push(d);
        }
    }
    let mut src = head(rng, &format!("Reader{index}"), devices.iter().map(|&d| (DEVICES[d].0, DEVICES[d].1)));
    let handlers = rng.gen_range(1..=2);
    src.push_str("def installed() {\n");
    for h in 0..handlers {
        match rng.gen_range(0..6) {
            0 => src.push_str(&format!("    subscribe(location, \"mode\", h{h})\n")),
            1 => src.push_str(&format!("    subscribe(app, h{h})\n")),
            2 => {
                let (name, _, attr, values) = DEVICES[devices[rng.gen_range(0..devices.len())]];
                src.push_str(&format!("    subscribe({name}, \"{attr}.{}\", h{h})\n", values[rng.gen_range(0..2)]));
            }
            _ => {
                let (name, _, attr, _) = DEVICES[devices[rng.gen_range(0..devices.len())]];
                src.push_str(&format!("    subscribe({name}, \"{attr}\", h{h})\n"));
            }
        }
    }
    src.push_str("}\n");
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        for _ in 0..rng.gen_range(1..=3) {
            reader_statement(rng, &devices, src, 1);
        }
    });
    src
}

fn reader_statement(rng: &mut SmallRng, devices: &[usize], src: &mut String, depth: usize) {
    let pad = "    ".repeat(depth);
    let choice = if depth >= 2 { rng.gen_range(0..4) } else { rng.gen_range(0..7) };
    match choice {
        0 => src.push_str(&format!("{pad}state.last = evt.value\n")),
        1 => src.push_str(&format!("{pad}state.flag = \"{}\"\n", ["a", "b"][rng.gen_range(0..2)])),
        2 => src.push_str(&format!("{pad}log.debug \"${{evt.name}}: ${{evt.value}}\"\n")),
        3 => src.push_str(&format!("{pad}sendPush(\"seen ${{location.mode}}\")\n")),
        _ => {
            let cond = match rng.gen_range(0..3) {
                0 => format!("state.flag == \"{}\"", ["a", "b"][rng.gen_range(0..2)]),
                1 => format!("location.mode == \"{}\"", MODES[rng.gen_range(0..3)]),
                _ => {
                    let (name, _, attr, values) = DEVICES[devices[rng.gen_range(0..devices.len())]];
                    format!("{name}.currentValue(\"{attr}\") == \"{}\"", values[rng.gen_range(0..2)])
                }
            };
            src.push_str(&format!("{pad}if ({cond}) {{\n"));
            if rng.gen_bool(0.1) {
                src.push_str(&format!("{pad}    throw new Exception(\"reader{depth}\")\n"));
            } else {
                reader_statement(rng, devices, src, depth + 1);
            }
            src.push_str(&format!("{pad}}}\n"));
        }
    }
}

/// Devices of the generated homes: three actuators, four sensors.
const HOME: [Actuated; 7] = [
    ("sw", "switch", "switch", &[("on", "on"), ("off", "off")], ["on", "off"]),
    ("door", "lock", "lock", &[("lock", "locked"), ("unlock", "unlocked")], ["locked", "unlocked"]),
    ("siren", "alarm", "alarm", &[("siren", "siren"), ("off", "off")], ["siren", "off"]),
    ("contact1", "contactSensor", "contact", &[], ["open", "closed"]),
    ("motion1", "motionSensor", "motion", &[], ["active", "inactive"]),
    ("smoke1", "smokeDetector", "smoke", &[], ["detected", "clear"]),
    ("water1", "waterSensor", "water", &[], ["wet", "dry"]),
];

/// A home: three to eight apps, each with two or three of seven devices (three
/// actuators, four sensors), some of them loggers that only subscribe and log, so that some
/// attributes are read by no app and others written by one app only (what
/// src/model/smartapp/dead.rs leaves out of the state). Handlers read attributes in every form
/// the interpreter takes (`currentValue`, `latestValue`, `currentX`, `xState.value`, `dev.x`,
/// and a name computed at run time). For tests/soundness_homes.rs.
pub fn gen_home(rng: &mut SmallRng) -> Vec<(String, String)> {
    let n = rng.gen_range(3..=8);
    (0..n).map(|i| (format!("home{i}"), gen_home_app(rng, i))).collect()
}

fn gen_home_app(rng: &mut SmallRng, index: usize) -> String {
    let logger = rng.gen_bool(0.3);
    let devices = two_or_three(rng, HOME.len());
    let mut src = head(rng, &format!("Home{index}"), devices.iter().map(|&d| (HOME[d].0, HOME[d].1)));
    src.push_str("def installed() {\n");
    let handlers = rng.gen_range(1..=2);
    for h in 0..handlers {
        let (name, _, attr, _, values) = HOME[devices[rng.gen_range(0..devices.len())]];
        if logger || rng.gen_bool(0.2) {
            src.push_str(&format!("    subscribe({name}, \"{attr}\", h{h})\n"));
        } else {
            src.push_str(&format!("    subscribe({name}, \"{attr}.{}\", h{h})\n", values[rng.gen_range(0..2)]));
        }
    }
    src.push_str("}\n");
    let mut helpers = Vec::new();
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        if logger {
            src.push_str("    log.debug \"${evt.name}: ${evt.value}\"\n");
        } else {
            for _ in 0..rng.gen_range(1..=2) {
                home_statement(rng, &devices, src, 1, &mut helpers);
            }
            // Drawn from a copy of the generator, so that the rest of the home is the one the
            // seed gave before time stamps were added.
            let mut side = rng.clone();
            side.gen::<u64>();
            if side.gen_bool(0.4) {
                stamp_statement(&mut side, &devices, src);
            }
        }
    });
    src.extend(helpers);
    if rng.gen_bool(0.3) {
        // A status page and the helper only it calls (callable.rs: never run, so what it reads
        // keeps nothing live).
        let (name, _, attr, _, _) = HOME[devices[rng.gen_range(0..devices.len())]];
        src.push_str(&format!(
            "def pageStatus() {{\n    dynamicPage(name: \"pageStatus\") {{\n        section(\"s\") {{ paragraph zoneStatus({name}, \"{attr}\") }}\n    }}\n}}\n\
             def zoneStatus(dev, kind) {{ dev.currentValue(kind) }}\n"
        ));
    }
    src
}

/// One statement of a home app's handler; `helpers` collects the methods it calls by a
/// computed name.
fn home_statement(rng: &mut SmallRng, devices: &[usize], src: &mut String, depth: usize, helpers: &mut Vec<String>) {
    let pad = "    ".repeat(depth);
    let actuators: Vec<usize> = devices.iter().copied().filter(|&d| !HOME[d].3.is_empty()).collect();
    let choice = if depth >= 2 { rng.gen_range(0..3) } else { rng.gen_range(0..6) };
    match choice {
        0 | 1 if !actuators.is_empty() => {
            let (name, _, _, cmds, _) = HOME[actuators[rng.gen_range(0..actuators.len())]];
            if rng.gen_bool(0.25) {
                // A command whose name is computed at run time (footprint.rs: any command, no
                // query).
                let (a, b) = (cmds[0].0, cmds[cmds.len() - 1].0);
                src.push_str(&format!("{pad}{name}.\"${{state.flag == 'a' ? '{a}' : '{b}'}}\"()\n"));
            } else {
                src.push_str(&format!("{pad}{name}.{}()\n", cmds[rng.gen_range(0..cmds.len())].0));
            }
        }
        0..=2 => {
            let v = ["a", "b"][rng.gen_range(0..2)];
            // A key written by name, by index, or only written (`state.last`: dead.rs leaves a
            // key no code reads out of the state, under `--conflicts`).
            match rng.gen_range(0..4) {
                0 => src.push_str(&format!("{pad}state[\"flag\"] = \"{v}\"\n")),
                1 => src.push_str(&format!("{pad}state.last = evt.value\n")),
                _ => src.push_str(&format!("{pad}state.flag = \"{v}\"\n")),
            }
        }
        _ => {
            let (name, _, attr, _, values) = HOME[devices[rng.gen_range(0..devices.len())]];
            let value = values[rng.gen_range(0..2)];
            let mut upper = attr.to_string();
            upper[..1].make_ascii_uppercase();
            let read = match rng.gen_range(0..7) {
                6 => {
                    // A helper entered by a name built at run time (hue-minimote's
                    // `"handleButton" + n + ...`, `"probe${k}"()`): callable.rs follows it.
                    let k = helpers.len();
                    helpers.push(format!("def probe{k}() {{ {name}.currentValue(\"{attr}\") }}\n"));
                    if rng.gen_bool(0.5) {
                        format!("\"probe${{{k}}}\"()")
                    } else {
                        format!("\"${{'pro' + 'be' + {k}}}\"()")
                    }
                }
                0 => format!("{name}.currentValue(\"{attr}\")"),
                1 => format!("{name}.latestValue(\"{attr}\")"),
                2 => format!("{name}.current{upper}"),
                3 => format!("{name}.{attr}State.value"),
                4 => format!("{name}.{attr}"),
                _ => {
                    // A name computed at run time: the app may read any attribute of its devices.
                    let (a, b) = attr.split_at(attr.len() / 2);
                    format!("{name}.currentValue(\"{a}\" + \"{b}\")")
                }
            };
            let cond = if rng.gen_bool(0.2) {
                // Every form a key is read by (dead.rs keeps what each of them names).
                let key = match rng.gen_range(0..5) {
                    0 => "state[\"flag\"]",
                    1 => "atomicState.flag",
                    2 => "state.\"${'fl' + 'ag'}\"",
                    3 => "(state.last == \"x\" ? \"a\" : state.flag)",
                    _ => "state.flag",
                };
                format!("{key} == \"{}\"", ["a", "b"][rng.gen_range(0..2)])
            } else {
                format!("{read} == \"{value}\"")
            };
            src.push_str(&format!("{pad}if ({cond}) {{\n"));
            home_statement(rng, devices, src, depth + 1, helpers);
            if rng.gen_bool(0.4) {
                src.push_str(&format!("{pad}}} else {{\n"));
                home_statement(rng, devices, src, depth + 1, helpers);
            }
            src.push_str(&format!("{pad}}}\n"));
        }
    }
}

/// A key holding a time stamp (src/model/smartapp/self_keys.rs): `stamp` by name or by index,
/// or a key computed from the event (`state[evt.deviceId]`, which may alias any key of the
/// app), kept to throttle a notification as thermostat.groovy does (its value reaches only
/// itself: left out), or read for something the rest of the home sees: a condition guarding a
/// command, another key (`flag`, which other statements read), a local that later guards a
/// command (each kept).
fn stamp_statement(rng: &mut SmallRng, devices: &[usize], src: &mut String) {
    let key = ["state.stamp", "state[\"stamp\"]", "state[evt.deviceId]"][rng.gen_range(0..3)];
    let actuators: Vec<usize> = devices.iter().copied().filter(|&d| !HOME[d].3.is_empty()).collect();
    let command = |rng: &mut SmallRng| match actuators.is_empty() {
        true => "state.flag = \"b\"".to_string(),
        false => {
            let (name, _, _, cmds, _) = HOME[actuators[rng.gen_range(0..actuators.len())]];
            format!("{name}.{}()", cmds[rng.gen_range(0..cmds.len())].0)
        }
    };
    let test = ["== null", "!= null"][rng.gen_range(0..2)];
    let arm = rng.gen_range(0..6);
    match arm {
        0..=2 => {
            src.push_str(&format!("    def last = {key}\n"));
            src.push_str("    if (last == null || now() - last >= 60000) {\n");
            // The whole map in a log (src/model/smartapp/quiet.rs): reads no key.
            let map = if arm == 2 { " of $state" } else { "" };
            src.push_str(&format!("        log.debug \"notify ${{evt.value}}{map}\"\n"));
            src.push_str(&format!("        sendPush(\"${{evt.name}} at ${{{key}}}\")\n"));
            src.push_str(&format!("        {key} = now()\n    }}\n"));
        }
        3 => src.push_str(&format!("    if ({key} {test}) {{\n        {}\n    }}\n    {key} = now()\n", command(rng))),
        4 => src.push_str(&format!("    state.flag = {key} {test} ? \"a\" : \"b\"\n    {key} = now()\n")),
        _ => src.push_str(&format!(
            "    def seen = {key}\n    {key} = now()\n    if (seen {test}) {{\n        {}\n    }}\n",
            command(rng)
        )),
    }
}

/// A system whose outcome depends on the devices' states at installation and on the user's
/// direct commands: a keeper app saves what a switch and a lock are at installation
/// (`state.x = dev.currentValue(...)`) and restores it on some event, as make-it-so and
/// thermostat-auto-off do; the other apps command the same devices from sensor events, from
/// their own touch or from a button (the user's commands), and may set the mode. Which
/// configuration the environment chose at the root then decides what the keeper restores.
pub fn gen_saved_state_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    let mut out = vec![("keeper".to_string(), gen_keeper(rng))];
    for i in 0..rng.gen_range(1..=2) {
        out.push((format!("user{i}"), gen_user(rng, i)));
    }
    out
}

/// Actuators of the saved-state systems: (input, capability, attribute, [(command, value)]).
const SAVED: [(&str, &str, &str, [(&str, &str); 2]); 2] = [
    ("sw", "switch", "switch", [("on", "on"), ("off", "off")]),
    ("door", "lock", "lock", [("lock", "locked"), ("unlock", "unlocked")]),
];

fn restore(rng: &mut SmallRng, src: &mut String, pad: &str) {
    let (name, _, _, cmds) = SAVED[rng.gen_range(0..2)];
    let [(c0, v0), (c1, _)] = cmds;
    src.push_str(&format!("{pad}if (state.{name} == \"{v0}\") {{ {name}.{c0}() }} else {{ {name}.{c1}() }}\n"));
}

fn gen_keeper(rng: &mut SmallRng) -> String {
    let mut src = "definition(name: \"Keeper\", namespace: \"gen\", author: \"tracepor tests\")\n".to_string();
    src.push_str(&inputs(rng, [("sw", "switch"), ("door", "lock"), ("contact1", "contactSensor")].into_iter()));
    src.push_str("def installed() {\n");
    let trigger = rng.gen_range(0..3);
    match trigger {
        0 => src.push_str("    subscribe(contact1, \"contact\", h0)\n"),
        1 => src.push_str("    subscribe(location, \"mode\", h0)\n"),
        _ => src.push_str("    subscribe(contact1, \"contact.closed\", h0)\n"),
    }
    for (name, _, attr, _) in SAVED {
        if rng.gen_bool(0.7) {
            src.push_str(&format!("    state.{name} = {name}.currentValue(\"{attr}\")\n"));
        }
    }
    src.push_str("}\ndef h0(evt) {\n");
    if trigger == 0 {
        // Off while open, back to the saved state when closed (thermostat-auto-off's shape).
        src.push_str("    if (evt.value == \"open\") {\n");
        let (name, _, _, cmds) = SAVED[rng.gen_range(0..2)];
        src.push_str(&format!("        {name}.{}()\n    }} else {{\n", cmds[rng.gen_range(0..2)].0));
        restore(rng, &mut src, "        ");
        src.push_str("    }\n");
    } else {
        restore(rng, &mut src, "    ");
        if rng.gen_bool(0.5) {
            restore(rng, &mut src, "    ");
        }
    }
    src.push_str("}\n");
    src
}

fn gen_user(rng: &mut SmallRng, index: usize) -> String {
    let mut src = format!("definition(name: \"User{index}\", namespace: \"gen\", author: \"tracepor tests\")\n");
    let devices = [("sw", "switch"), ("door", "lock"), ("contact1", "contactSensor"), ("button1", "button")];
    src.push_str(&inputs(rng, devices.into_iter()));
    src.push_str("def installed() {\n");
    let handlers = rng.gen_range(1..=2);
    for h in 0..handlers {
        match rng.gen_range(0..4) {
            0 => src.push_str(&format!("    subscribe(app, h{h})\n")),
            1 => src.push_str(&format!("    subscribe(button1, \"button.pushed\", h{h})\n")),
            2 => src.push_str(&format!(
                "    subscribe(contact1, \"contact.{}\", h{h})\n",
                ["open", "closed"][rng.gen_range(0..2)]
            )),
            _ => {
                let (name, _, attr, cmds) = SAVED[rng.gen_range(0..2)];
                src.push_str(&format!("    subscribe({name}, \"{attr}.{}\", h{h})\n", cmds[rng.gen_range(0..2)].1));
            }
        }
    }
    src.push_str("}\n");
    for h in 0..handlers {
        src.push_str(&format!("def h{h}(evt) {{\n"));
        for _ in 0..rng.gen_range(1..=2) {
            if rng.gen_bool(0.2) {
                src.push_str(&format!("    setLocationMode(\"{}\")\n", MODES[rng.gen_range(0..3)]));
            } else {
                let (name, _, _, cmds) = SAVED[rng.gen_range(0..2)];
                src.push_str(&format!("    {name}.{}()\n", cmds[rng.gen_range(0..2)].0));
            }
        }
        src.push_str("}\n");
    }
    src
}

/// A crowded home (the pair view, tests/soundness_pairs.rs): three to five apps whose handlers
/// (one to three each) run on the same contact sensor's events and write the same switch, some
/// behind a guard on the motion sensor or the app's own state, so that a third app's write often
/// stands between two others' (the handlers of one event run in subscription order).
pub fn gen_crowded_home(rng: &mut SmallRng) -> Vec<(String, String)> {
    let n = rng.gen_range(3..=5);
    (0..n)
        .map(|i| {
            let mut src = head(
                rng,
                &format!("Crowded{i}"),
                [("sw", "switch"), ("contact1", "contactSensor"), ("motion1", "motionSensor")].into_iter(),
            );
            src.push_str("def installed() {\n");
            let handlers = rng.gen_range(1..=3);
            for h in 0..handlers {
                let ev =
                    ["contact.open", "contact.open", "contact", "contact.closed", "motion.active"][rng.gen_range(0..5)];
                let dev = if ev.starts_with("motion") { "motion1" } else { "contact1" };
                src.push_str(&format!("    subscribe({dev}, \"{ev}\", h{h})\n"));
            }
            src.push_str("}\n");
            handler_bodies(rng, handlers, &mut src, |rng, src| {
                let cmd = ["on", "off"][rng.gen_range(0..2)];
                match rng.gen_range(0..5) {
                    0 => src.push_str(&format!(
                        "    if (motion1.currentValue(\"motion\") == \"active\") {{ sw.{cmd}() }}\n"
                    )),
                    1 => src.push_str(&format!(
                        "    if (state.flag == 'a') {{ sw.{cmd}() }}\n    state.flag = state.flag == 'a' ? 'b' : 'a'\n"
                    )),
                    _ => src.push_str(&format!("    sw.{cmd}()\n")),
                }
            });
            (format!("crowded{i}"), src)
        })
        .collect()
}

/// A home with saved copies dead while their guard is off (src/model/smartapp/guarded.rs,
/// thermostat-mode-director's shape): two to four apps of [`gen_home`] and one or two copiers.
/// A copier saves the switch (or the mode) in `state.copy` when a contact opens, setting a guard
/// (`state.on = true` or `state.on = "disabled"`), and restores it under the guard when the
/// contact closes, turning the guard off and leaving the copy stale. The variants: the copy
/// written before the guard, or after it with only quiet statements between, a fresh read of the
/// copy (a log of what was written), logs of the whole `state` and of a key only logged (quiet
/// uses, src/model/smartapp/quiet.rs), the copy restored by a helper method entered only under
/// the guard (a call, or `runIn` by name or reference); and ones the analysis must refuse: a
/// command between the guard and the copy, the guard set without a copy, a read of the copy
/// outside the guard, the helper also called outside the guard, the copy given to a method in
/// a log's argument (not inert: the method throws on a stale copy).
pub fn gen_guarded_home(rng: &mut SmallRng) -> Vec<(String, String)> {
    let mut apps = gen_home(rng);
    apps.truncate(rng.gen_range(2..=4));
    for i in 0..rng.gen_range(1..=2) {
        apps.push((format!("copier{i}"), gen_copier(rng, i)));
    }
    apps
}

fn gen_copier(rng: &mut SmallRng, index: usize) -> String {
    let mut src = head(
        rng,
        &format!("Copier{index}"),
        [("sw", "switch"), ("contact1", "contactSensor"), ("motion1", "motionSensor"), ("door", "lock")].into_iter(),
    );
    let (set, test, clear, off) = match rng.gen_range(0..3) {
        0 => ("state.on = true", "state.on", ["state.on = false", "state.on = null"][rng.gen_range(0..2)], "!state.on"),
        1 => (
            "state.on = \"disabled\"",
            "state.on == \"disabled\"",
            ["state.on = null", "state.on = \"enabled\""][rng.gen_range(0..2)],
            "state.on != \"disabled\"",
        ),
        _ => (
            "state[\"on\"] = \"disabled\"",
            "\"disabled\" == state.on && evt.value == \"closed\"",
            "state.on = \"idle\"",
            "state.on == \"idle\"",
        ),
    };
    let (copy, restore, seen) = if rng.gen_bool(0.7) {
        ("sw.currentValue(\"switch\")", "if (state.copy == \"on\") { sw.on() } else { sw.off() }", "on")
    } else {
        ("location.mode", "if (state.copy == \"away\") { sw.off() } else { sw.on() }", "away")
    };
    src.push_str(&format!(
        "def installed() {{\n    {clear}\n    subscribe(contact1, \"contact.open\", saveIt)\n    subscribe(contact1, \"contact.closed\", restoreIt)\n"
    ));
    let extra = rng.gen_range(0..6);
    // The restore inline, or in a helper entered under the guard: called, or a timer's handler
    // (run at once) by name or by reference; `unguarded`: the helper also called from `other`.
    let helper = rng.gen_range(0..5);
    let unguarded = helper > 0 && rng.gen_bool(0.35);
    // `other` logs what a method makes of the copy (the method throws on a stale one).
    let logged_call = !unguarded && rng.gen_bool(0.2);
    let quiet_map = rng.gen_bool(0.5);
    let extra = if (unguarded || logged_call) && extra < 4 { 4 } else { extra };
    if extra >= 4 {
        src.push_str("    subscribe(motion1, \"motion.active\", other)\n");
    }
    src.push_str("}\ndef saveIt(evt) {\n");
    if quiet_map {
        // The whole map logged, and a key only ever logged (quiet uses: no reads).
        src.push_str("    log.debug \"saving over $state\"\n    state.note = evt.value\n");
    }
    match rng.gen_range(0..8) {
        // Copy first, then the guard (a command between: nothing reads the copy before).
        0..=2 => src.push_str(&format!("    state.copy = {copy}\n    sw.off()\n    {set}\n")),
        // Guard first, the copy behind quiet statements.
        3..=5 => src.push_str(&format!(
            "    {set}\n    def c = {copy}\n    def d = c as String\n    state.copy = d\n    sw.off()\n"
        )),
        // Guard first, a command between (it may run handlers): refused.
        6 => src.push_str(&format!("    {set}\n    sw.off()\n    state.copy = {copy}\n")),
        // The guard set without a copy: refused.
        _ => src.push_str(&format!("    {set}\n    sw.off()\n")),
    }
    if rng.gen_bool(0.3) {
        // A read of what this handler has just written (fresh).
        src.push_str("    log.debug \"saved ${state.copy}\"\n    if (state.copy == \"on\") { door.lock() }\n");
    }
    let restoring = match helper {
        0 => restore.to_string(),
        1 | 2 => "restoreCopy()".to_string(),
        3 => "runIn(0, \"restoreCopy\")".to_string(),
        _ => "runIn(0, restoreCopy)".to_string(),
    };
    let map = if quiet_map { "\n    log.info(\"restoring: ${state} note ${state.note}\")" } else { "" };
    src.push_str(&format!(
        "}}\ndef restoreIt(evt) {{{map}\n    if ({test}) {{\n        {restoring}\n        {clear}\n    }}\n"
    ));
    if extra == 3 {
        // A read outside the guard: refused.
        src.push_str("    if (state.copy == \"off\") { door.unlock() }\n");
    }
    src.push_str("}\n");
    if helper > 0 {
        // Stale copies seen here throw: only when entered from `other` (off the guard).
        src.push_str(&format!(
            "def restoreCopy() {{\n    log.debug \"restoring ${{state.copy}} of $state\"\n    if ({off} && state.copy == \"{seen}\") {{ throw new Exception(\"stale copy\") }}\n    {restore}\n}}\n"
        ));
    }
    if logged_call {
        src.push_str(&format!(
            "def checkCopy(c) {{\n    if ({off} && c == \"{seen}\") {{ throw new Exception(\"stale copy\") }}\n    c\n}}\n"
        ));
    }
    if extra >= 4 {
        src.push_str("def other(evt) {\n    door.lock()\n");
        if unguarded {
            src.push_str("    restoreCopy()\n");
        }
        if logged_call {
            src.push_str("    log.debug \"copy ${checkCopy(state.copy)}\"\n");
        }
        if extra == 5 {
            // Outside the guard, in another handler, and only while it is off: what is seen there
            // is a stale copy, which the reset would hide (refused).
            src.push_str(&format!(
                "    if ({off} && state.copy == \"{seen}\") {{ throw new Exception(\"stale copy\") }}\n"
            ));
        }
        src.push_str("}\n");
    }
    src
}

/// A system of location-mode writers (docs/location-mode.md): two or three apps that set the
/// mode in every way an app can (`setLocationMode`, `location.setMode`, `location.mode = x`,
/// a routine run by `location.helloHome.execute`), to a literal mode or to a mode input the
/// person picks (varied by the configurations, src/model/smartapp/choices.rs), on their
/// own (a sensor event, a mode change, a schedule, a timer) or on the user's command (their
/// touch, a button, a switch flipped, and a switch an app flips on the user's command). Some
/// write behind a guard on the mode (`if (location.mode != newMode)`), as the corpus's do, and
/// one app may only read the mode. For the soundness suites (tests/soundness.rs).
pub fn gen_mode_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    let mut apps: Vec<(String, String)> =
        (0..rng.gen_range(2..=3)).map(|i| (format!("mode{i}"), gen_mode_app(rng, i, false))).collect();
    if apps.len() == 2 && rng.gen_bool(0.3) {
        apps.push(("mode2".into(), gen_mode_reader(rng)));
    }
    apps
}

/// A crowded home of mode writers (the pair view on the mode, tests/soundness_pairs.rs): three
/// to five apps whose handlers run on one contact sensor's events or their own touch and set
/// the mode, so that a third app's write often stands between two others'.
pub fn gen_mode_home(rng: &mut SmallRng) -> Vec<(String, String)> {
    (0..rng.gen_range(3..=5)).map(|i| (format!("modehome{i}"), gen_mode_app(rng, i, true))).collect()
}

/// The triggers of a mode writer's handlers: (subscription, whether the user's own command).
const MODE_TRIGGERS: [(&str, bool); 6] = [
    ("subscribe(contact1, \"contact.open\", h{h})", false),
    ("subscribe(location, \"mode\", h{h})", false),
    ("subscribe(contact1, \"contact\", h{h})", false),
    ("subscribe(app, h{h})", true),
    ("subscribe(button1, \"button.pushed\", h{h})", true),
    ("subscribe(sw, \"switch\", h{h})", true),
];

fn gen_mode_app(rng: &mut SmallRng, index: usize, crowded: bool) -> String {
    let mut src = format!("definition(name: \"Mode{index}\", namespace: \"gen\", author: \"tracepor tests\")\n");
    let with_input = rng.gen_bool(0.5);
    let with_routine = rng.gen_bool(0.3);
    // The page declares the mode input and the routine input (its options the location's
    // routines, through a local, as the corpus's apps write it).
    let mut section = String::from(
        "            input \"sw\", \"capability.switch\"\n            input \"contact1\", \"capability.contactSensor\"\n            input \"button1\", \"capability.button\"\n",
    );
    if with_input {
        section.push_str("            input \"newMode\", \"mode\", title: \"Mode?\"\n");
    }
    let mut routines = String::new();
    if with_routine {
        routines.push_str("    def phrases = location.helloHome?.getPhrases()*.label\n");
        section.push_str(
            "            input \"phrase\", \"enum\", title: \"Routine\", required: false, options: phrases\n",
        );
    }
    src.push_str(&format!(
        "preferences {{ page(name: \"p\") }}\ndef p() {{\n{routines}    dynamicPage(name: \"p\") {{\n        section(\"s\") {{\n{section}        }}\n    }}\n}}\n"
    ));
    let handlers = rng.gen_range(1..=2);
    src.push_str("def installed() {\n");
    // A schedule opening installed() is an event of its own (a hub's timer), running `h0`.
    let scheduled = !crowded && rng.gen_bool(0.2);
    if scheduled {
        src.push_str("    schedule(\"0 0 7 * * ?\", h0)\n");
    }
    for h in usize::from(scheduled)..handlers {
        let t = if crowded { [0, 0, 2, 3][rng.gen_range(0..4)] } else { rng.gen_range(0..MODE_TRIGGERS.len()) };
        src.push_str(&format!("    {}\n", MODE_TRIGGERS[t].0.replace("{h}", &h.to_string())));
    }
    src.push_str("}\n");
    let mut later = false;
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        for _ in 0..rng.gen_range(1..=2) {
            mode_statement(rng, src, "    ", with_input, with_routine, &mut later);
        }
    });
    if later {
        // A timer's method: on a hub it runs later, as an automation of its own.
        src.push_str("def later() {\n");
        let mut again = true;
        mode_statement(rng, &mut src, "    ", with_input, with_routine, &mut again);
        src.push_str("}\n");
    }
    src
}

/// One statement of a mode writer: a mode write in one of its forms, a switch flipped (which
/// runs the switch's subscribers), a timer, or a write behind a guard on the mode.
fn mode_statement(rng: &mut SmallRng, src: &mut String, pad: &str, input: bool, routine: bool, later: &mut bool) {
    let mode = |rng: &mut SmallRng| {
        if input && rng.gen_bool(0.6) {
            "newMode".to_string()
        } else {
            format!("\"{}\"", MODES[rng.gen_range(0..3)])
        }
    };
    match rng.gen_range(0..9) {
        0 | 1 => src.push_str(&format!("{pad}setLocationMode({})\n", mode(rng))),
        2 => src.push_str(&format!("{pad}location.setMode({})\n", mode(rng))),
        3 => src.push_str(&format!("{pad}location.mode = {}\n", mode(rng))),
        4 if routine => src.push_str(&format!("{pad}location.helloHome?.execute(phrase)\n")),
        4 | 5 => src.push_str(&format!("{pad}sw.{}()\n", ["on", "off"][rng.gen_range(0..2)])),
        6 if !*later => {
            *later = true;
            src.push_str(&format!("{pad}runIn(60, later)\n"));
        }
        _ => {
            let m = mode(rng);
            src.push_str(&format!("{pad}if (location.mode != {m}) {{\n{pad}    setLocationMode({m})\n{pad}}}\n"));
        }
    }
}

/// An app that reads the mode only (as most of the study's apps do): its handler, on a mode
/// change or a contact event, branches on the mode and turns the switch on or off.
fn gen_mode_reader(rng: &mut SmallRng) -> String {
    let mut src = "definition(name: \"ModeReader\", namespace: \"gen\", author: \"tracepor tests\")\n".to_string();
    src.push_str(&inputs(rng, [("sw", "switch"), ("contact1", "contactSensor")].into_iter()));
    let ev = ["subscribe(location, \"mode\", h0)", "subscribe(contact1, \"contact.open\", h0)"][rng.gen_range(0..2)];
    src.push_str(&format!("def installed() {{\n    {ev}\n}}\n"));
    let m = MODES[rng.gen_range(0..3)];
    src.push_str(&format!("def h0(evt) {{\n    if (location.mode == \"{m}\") {{ sw.off() }} else {{ sw.on() }}\n}}\n"));
    src
}

/// A system of apps whose handlers set and cancel hub timers (src/model/smartapp/timers.rs):
/// two or three apps sharing a switch and a lock, each subscribing to a contact sensor, the
/// switch or its own touch; a handler may `runIn` a method by its literal name or by reference,
/// `unschedule()` all of the app's timers or `unschedule(m)` one, and `installed()` may
/// `schedule` or `runEvery5Minutes` a recurring method. The timers' methods command the shared
/// devices, branch on them and set other timers, so that a timer's firing, its setting and its
/// removal meet other apps' writes. Everything stored has finitely many values. For
/// tests/soundness_hub.rs.
pub fn gen_timer_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    (0..rng.gen_range(2..=3)).map(|i| (format!("timer{i}"), gen_timer_app(rng, i))).collect()
}

const TIMER_TRIGGERS: [&str; 4] = [
    "subscribe(contact1, \"contact.open\", h{h})",
    "subscribe(sw, \"switch\", h{h})",
    "subscribe(app, h{h})",
    "subscribe(door, \"lock.unlocked\", h{h})",
];

fn gen_timer_app(rng: &mut SmallRng, index: usize) -> String {
    let devices = [("sw", "switch"), ("door", "lock"), ("contact1", "contactSensor")];
    let mut src = head(rng, &format!("Timer{index}"), devices.into_iter());
    src.push_str("def installed() {\n");
    match rng.gen_range(0..4) {
        0 => src.push_str("    schedule(\"0 0 7 * * ?\", tick)\n"),
        1 => src.push_str("    runEvery5Minutes(tick)\n"),
        2 => src.push_str("    schedule(\"0 30 22 * * ?\", \"tick\")\n"),
        _ => {}
    }
    let handlers = rng.gen_range(1..=2);
    for h in 0..handlers {
        let t = TIMER_TRIGGERS[rng.gen_range(0..TIMER_TRIGGERS.len())];
        src.push_str(&format!("    {}\n", t.replace("{h}", &h.to_string())));
    }
    src.push_str("}\ndef updated() { unsubscribe(); unschedule(); installed() }\n");
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        for _ in 0..rng.gen_range(1..=3) {
            timer_statement(rng, src, "    ", true);
        }
    });
    for method in ["later", "tick"] {
        src.push_str(&format!("def {method}() {{\n"));
        for _ in 0..rng.gen_range(1..=2) {
            timer_statement(rng, &mut src, "    ", false);
        }
        src.push_str("}\n");
    }
    src
}

/// One statement of a timer app: a timer set or removed, a command to a shared device, or a
/// command behind a branch on one (a timer's method that checks before it acts).
fn timer_statement(rng: &mut SmallRng, src: &mut String, pad: &str, handler: bool) {
    let command = |rng: &mut SmallRng| match rng.gen_range(0..4) {
        0 => "sw.on()",
        1 => "sw.off()",
        2 => "door.lock()",
        _ => "door.unlock()",
    };
    match rng.gen_range(0..if handler { 9 } else { 8 }) {
        0 => src.push_str(&format!("{pad}runIn(60, \"later\")\n")),
        1 => src.push_str(&format!("{pad}runIn(300, later)\n")),
        2 => src.push_str(&format!("{pad}unschedule()\n")),
        3 => src.push_str(&format!("{pad}unschedule({})\n", ["later", "tick", "\"later\""][rng.gen_range(0..3)])),
        4 | 5 => src.push_str(&format!("{pad}{}\n", command(rng))),
        6 => {
            let (d, attr, v) = [("sw", "switch", "on"), ("door", "lock", "locked")][rng.gen_range(0..2)];
            src.push_str(&format!(
                "{pad}if ({d}.currentValue(\"{attr}\") == \"{v}\") {{\n{pad}    {}\n{pad}}}\n",
                command(rng)
            ));
        }
        7 => src.push_str(&format!("{pad}runEvery5Minutes(tick)\n")),
        _ => src.push_str(&format!("{pad}runIn(30, \"tick\", [overwrite: true])\n")),
    }
}

/// The actuators of [`gen_physical_system`]: (input name, capability, commands), each command
/// moving a medium of src/model/smartapp/physical.rs's table (a lamp lights the room, a valve
/// wets the floor, a thermostat heats it, a player fills it with sound).
const ACTUATORS: [(&str, &str, &[&str]); 6] = [
    ("lamp", "switchLevel", &["lamp.on()", "lamp.off()", "lamp.setLevel(80)"]),
    ("sw", "switch", &["sw.on()", "sw.off()"]),
    ("valve1", "valve", &["valve1.open()", "valve1.close()"]),
    ("thermo", "thermostat", &["thermo.heat()", "thermo.cool()", "thermo.setThermostatMode(\"off\")"]),
    ("player", "musicPlayer", &["player.play()", "player.stop()"]),
    ("bulb", "colorControl", &["bulb.on()", "bulb.setHue(30)"]),
];

/// The sensors of [`gen_physical_system`]: (input name, capability, attribute, its high value).
const SENSORS: [(&str, &str, &str, &str); 5] = [
    ("lux", "illuminanceMeasurement", "illuminance", "500"),
    ("motion1", "motionSensor", "motion", "active"),
    ("leak", "waterSensor", "water", "wet"),
    ("temp", "temperatureMeasurement", "temperature", "90"),
    ("noise", "soundSensor", "sound", "detected"),
];

/// A system of physical channels (src/model/smartapp/physical.rs): one or two apps that switch
/// lights, dimmers, colour bulbs, valves, thermostats and music players, on a contact sensor's
/// event, their own touch or a sensor's, and one or two apps that read or subscribe to the
/// illuminance, motion, water, temperature and sound sensors those media reach and act on what
/// they see (a command, a mode change, a message), or only log it. An app may be both. For
/// tests/soundness_hub.rs, with and without `--conflicts` and `--physical`.
pub fn gen_physical_system(rng: &mut SmallRng) -> Vec<(String, String)> {
    let actors = rng.gen_range(1..=2);
    let sensing = if actors == 2 { 1 } else { rng.gen_range(1..=2) };
    let mut apps: Vec<(String, String)> =
        (0..actors).map(|i| (format!("actor{i}"), gen_actuating_app(rng, i))).collect();
    apps.extend((0..sensing).map(|i| (format!("sensing{i}"), gen_sensing_app(rng, i))));
    apps
}

fn gen_actuating_app(rng: &mut SmallRng, index: usize) -> String {
    let picked = two_or_three(rng, ACTUATORS.len());
    // Now and then the actor also senses (a lamp that goes off when the room is lit).
    let sensor = rng.gen_bool(0.3).then(|| SENSORS[rng.gen_range(0..SENSORS.len())]);
    let mut devices: Vec<(&str, &str)> = picked.iter().map(|&a| (ACTUATORS[a].0, ACTUATORS[a].1)).collect();
    devices.push(("contact1", "contactSensor"));
    devices.extend(sensor.map(|(n, c, _, _)| (n, c)));
    let mut src = head(rng, &format!("Actor{index}"), devices.into_iter());
    let handlers = rng.gen_range(1..=2);
    src.push_str("def installed() {\n");
    for h in 0..handlers {
        match (h, sensor) {
            (1, Some((n, _, attr, _))) => src.push_str(&format!("    subscribe({n}, \"{attr}\", h{h})\n")),
            _ => match rng.gen_range(0..3) {
                0 => src.push_str(&format!("    subscribe(app, h{h})\n")),
                1 => src.push_str(&format!("    subscribe(contact1, \"contact\", h{h})\n")),
                _ => src.push_str(&format!("    subscribe(contact1, \"contact.open\", h{h})\n")),
            },
        }
    }
    src.push_str("}\n");
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        for _ in 0..rng.gen_range(1..=2) {
            let (_, _, commands) = ACTUATORS[picked[rng.gen_range(0..picked.len())]];
            src.push_str(&format!("    {}\n", commands[rng.gen_range(0..commands.len())]));
        }
    });
    src
}

fn gen_sensing_app(rng: &mut SmallRng, index: usize) -> String {
    let picked = two_or_three(rng, SENSORS.len());
    let acts_on = ACTUATORS[rng.gen_range(0..ACTUATORS.len())];
    let mut devices: Vec<(&str, &str)> = picked.iter().map(|&s| (SENSORS[s].0, SENSORS[s].1)).collect();
    devices.push((acts_on.0, acts_on.1));
    devices.push(("contact1", "contactSensor"));
    let mut src = head(rng, &format!("Sensing{index}"), devices.into_iter());
    let handlers = rng.gen_range(1..=2);
    src.push_str("def installed() {\n");
    let mut subscribed = Vec::new();
    for h in 0..handlers {
        let (n, _, attr, high) = SENSORS[picked[rng.gen_range(0..picked.len())]];
        match rng.gen_range(0..4) {
            // A sensor's reading read on another event (a read, not a subscription).
            0 => src.push_str(&format!("    subscribe(contact1, \"contact.open\", h{h})\n")),
            1 => src.push_str(&format!("    subscribe({n}, \"{attr}.{high}\", h{h})\n")),
            _ => src.push_str(&format!("    subscribe({n}, \"{attr}\", h{h})\n")),
        }
        subscribed.push((n, attr, high));
    }
    src.push_str("}\n");
    let mut h = 0;
    handler_bodies(rng, handlers, &mut src, |rng, src| {
        let (n, attr, high) = subscribed[h];
        h += 1;
        let (_, _, commands) = acts_on;
        let act = |rng: &mut SmallRng| -> String {
            match rng.gen_range(0..5) {
                0 => format!("setLocationMode(\"{}\")", MODES[rng.gen_range(0..3)]),
                1 => "sendPush(\"seen\")".to_string(),
                _ => commands[rng.gen_range(0..commands.len())].to_string(),
            }
        };
        match rng.gen_range(0..4) {
            // Acts on the event alone.
            0 => src.push_str(&format!("    {}\n", act(rng))),
            // Only logs (no physical conflict: nothing in the home changes).
            1 => src.push_str(&format!("    log.debug \"{attr}: ${{evt.value}}\"\n")),
            // Reads the sensor and branches on it.
            _ => {
                let (a, b) = (act(rng), act(rng));
                src.push_str(&format!(
                    "    if ({n}.currentValue(\"{attr}\") == \"{high}\") {{\n        {a}\n    }} else {{\n        {b}\n    }}\n"
                ));
            }
        }
    });
    src
}
