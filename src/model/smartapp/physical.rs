//! Physical channels between apps: a command that changes what a room carries (light, motion,
//! water, heat, sound) reaches the sensors that measure it, whichever app they belong to.
//! IoTCheck's study (Trimananda et al., FSE 2020, Section 3.2 and its Physical-Medium sheet) lists
//! these interactions by hand and its tool only warns of them; here they are part of the
//! transition system under `--conflicts --physical` and reported as their own
//! kind, `physical conflict` (docs/physical.md).
//!
//! **The table** ([`MEDIA`], [`EFFECTS`]): which device attribute changes (or, for a speaker with
//! no attribute, which command) move which medium, and in which direction; each medium's sensors
//! and the two values they report (the Extractor's low and high values of the attribute).
//!
//! **The semantics.** A room does not answer inside the command: a sensor reports the change
//! later, as its own event to the hub, if at all (daylight may already light the room; the
//! water may not reach the spot). So an app's command that changes an actuating attribute leaves
//! the medium *pending* (a slot `medium:pending` on the sensor's device holding the app and the
//! direction), and the environment may at any later step fire the channel's *physical event*
//! (`physical.light.illuminanceMeasurement.500`): it settles the medium, sets the sensor to the
//! value the direction allows (both for a change of unknown direction), records which app caused
//! it (`medium:cause`), and delivers the sensor's event to its subscribers like any device event.
//! Fired while nothing is pending, or towards a value the change cannot give, it does nothing.
//! The environment's own report of the sensor makes the cause the environment's again.
//! *Sound*: every interleaving of the sensor's report with the other events is explored, the
//! report's absence included (the immediate answer is the schedule that fires it next); a
//! feedback loop through the room (a lamp an app lights dims the sensor that turns it off) is a
//! cycle of the state graph, explored as any other, never a recursion inside one transition.
//! *Finite*: the new state is two slots per channel, each holding one of (apps + 1) x 4 numbers,
//! and the sensors take their two table values: the state space stays finite where it was.
//!
//! **A physical conflict** of (medium M, actuating app A, sensing app B), A != B, is observed
//! where B's behaviour depends on M as A's command left it: B's code *reads* the sensor's
//! attribute while its value is the one A's command caused through M (a read decides a branch,
//! whichever way it goes: "turn the light on if it is dark" does nothing once A's lamp has lit
//! the room), or the sensor event A's command caused *runs* a handler of B that then acts
//! (commands a device, writes the mode or its state, or messages the user; a logger that only
//! posts the value elsewhere changes nothing in the home). Like a device conflict it is an
//! observation: the path goes on. It is a function of the state (the cause slot is stored) and
//! the event, so every strategy that keeps the states' encoding finds the same ones; `monitors`,
//! which stores no ghost, gets them handed out with the firing's writes
//! ([`GhostWrite::physical`]) and reports each from the first transition that makes it.
//!
//! **Static side.** A channel (medium, sensor attribute) exists only when some app may command
//! an actuator of its medium and another app may read or subscribe to the sensor (the
//! footprints' scan, `footprint.rs`); a system without one is exactly what it was. Sensing apps
//! are kept in the interleaving (`slice.rs`), the channel's slots are stored (`dead.rs`), and
//! the footprints name the pending and cause slots (`footprint.rs`). A sensor input of a
//! quantity the table connects to nothing ([`UNCONNECTED`]) is listed as not modelled.

use super::*;

/// The kind of a physical conflict's error.
pub const PHYSICAL_CONFLICT: &str = "physical conflict";

/// A quantity the room carries from an app's command to a sensor.
pub struct Medium {
    pub name: &'static str,
    /// The sensors that measure it: (capability, attribute).
    pub sensors: &'static [(&'static str, &'static str)],
    /// What a sensor reports when the medium is low, and when it is high.
    pub low: &'static str,
    pub high: &'static str,
}

/// Every medium the model carries.
pub const MEDIA: &[Medium] = &[
    Medium { name: "light", sensors: &[("illuminanceMeasurement", "illuminance")], low: "5", high: "500" },
    Medium { name: "motion", sensors: &[("motionSensor", "motion")], low: "inactive", high: "active" },
    Medium { name: "water", sensors: &[("waterSensor", "water")], low: "dry", high: "wet" },
    Medium {
        name: "temperature",
        sensors: &[
            ("temperatureMeasurement", "temperature"),
            ("thermostat", "temperature"),
            ("myEcobeeDevice", "temperature"),
        ],
        low: "50",
        high: "90",
    },
    Medium { name: "sound", sensors: &[("soundSensor", "sound")], low: "not detected", high: "detected" },
];

/// Which way a change moves its medium.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Up = 1,
    Down = 2,
    /// Either way (a colour, a level, a set point).
    Either = 3,
}

/// What moves a medium: an attribute taking one of some values (any value when none are
/// listed), or a command that has no attribute.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    To(&'static str, &'static [&'static str]),
    Command(&'static str),
}

/// One row of the table.
pub struct Effect {
    pub medium: &'static str,
    /// Devices of these capabilities...
    pub caps: &'static [&'static str],
    /// ... changing so ...
    pub change: Change,
    /// ... move the medium this way.
    pub dir: Dir,
    /// Why, and who says so.
    pub why: &'static str,
}

/// Lamps: a dimmer, a colour bulb, a white-spectrum bulb.
const LAMPS: &[&str] = &["switchLevel", "colorControl", "colorTemperature"];
/// Whatever a switch or an outlet may power: a lamp, a robot, a pump, a heater.
const SWITCHED: &[&str] = &["switch", "relaySwitch", "outlet"];
const SWITCHED_OR_LAMP: &[&str] =
    &["switch", "relaySwitch", "outlet", "switchLevel", "colorControl", "colorTemperature"];
const THERMOSTATS: &[&str] = &["thermostat", "myEcobeeDevice"];

/// The table (docs/physical.md shows it and its sources; a test keeps the two the same).
pub const EFFECTS: &[Effect] = &[
    Effect {
        medium: "light",
        caps: SWITCHED_OR_LAMP,
        change: Change::To("switch", &["on"]),
        dir: Dir::Up,
        why: "a lamp switched on lights the room (any switch may power a lamp); the study's light-state conflicts",
    },
    Effect {
        medium: "light",
        caps: SWITCHED_OR_LAMP,
        change: Change::To("switch", &["off"]),
        dir: Dir::Down,
        why: "a lamp switched off darkens it",
    },
    Effect {
        medium: "light",
        caps: LAMPS,
        change: Change::To("level", &[]),
        dir: Dir::Either,
        why: "a dimmer's level is the lamp's output; the study's light-brightness conflicts",
    },
    Effect {
        medium: "light",
        caps: &["colorControl"],
        change: Change::To("hue", &[]),
        dir: Dir::Either,
        why: "colours of one bulb give different illuminance; the study's light-colour conflicts",
    },
    Effect {
        medium: "light",
        caps: &["colorControl"],
        change: Change::To("saturation", &[]),
        dir: Dir::Either,
        why: "as the hue",
    },
    Effect {
        medium: "light",
        caps: &["colorControl"],
        change: Change::To("color", &[]),
        dir: Dir::Either,
        why: "as the hue",
    },
    Effect {
        medium: "light",
        caps: &["colorTemperature"],
        change: Change::To("colorTemperature", &[]),
        dir: Dir::Either,
        why: "a white bulb's colour temperature changes its output",
    },
    Effect {
        medium: "light",
        caps: &["windowShade"],
        change: Change::To("windowShade", &["open"]),
        dir: Dir::Up,
        why: "an open shade lets daylight in",
    },
    Effect {
        medium: "light",
        caps: &["windowShade"],
        change: Change::To("windowShade", &["closed"]),
        dir: Dir::Down,
        why: "a closed shade keeps it out",
    },
    Effect {
        medium: "light",
        caps: &["alarm"],
        change: Change::To("alarm", &["strobe", "both"]),
        dir: Dir::Either,
        why: "a siren's strobe flashes",
    },
    Effect {
        medium: "motion",
        caps: SWITCHED,
        change: Change::To("switch", &["on"]),
        dir: Dir::Up,
        why: "a robot vacuum, a fan or a warming appliance switched on moves the air a passive-infrared sensor watches; the study's robots and moving objects (coffee-after-shower, neato-connect)",
    },
    Effect {
        medium: "motion",
        caps: SWITCHED,
        change: Change::To("switch", &["off"]),
        dir: Dir::Down,
        why: "switched off, it stops",
    },
    Effect {
        medium: "motion",
        caps: &["doorControl", "garageDoorControl"],
        change: Change::To("door", &[]),
        dir: Dir::Up,
        why: "a door or garage door moving",
    },
    Effect {
        medium: "motion",
        caps: &["windowShade"],
        change: Change::To("windowShade", &[]),
        dir: Dir::Up,
        why: "a shade moving",
    },
    Effect {
        medium: "water",
        caps: SWITCHED,
        change: Change::To("switch", &["on"]),
        dir: Dir::Up,
        why: "a sprinkler or pump on a switch (sprayer-controller-2's valves are switches); the study's water-sensor conflicts",
    },
    Effect {
        medium: "water",
        caps: &["valve"],
        change: Change::To("valve", &["open"]),
        dir: Dir::Up,
        why: "an open valve lets water out; closing it leaves the water already out where it is (the study: close-the-valve interacts with water sensors without conflict)",
    },
    Effect {
        medium: "temperature",
        caps: THERMOSTATS,
        change: Change::To("thermostatMode", &["heat", "emergency heat"]),
        dir: Dir::Up,
        why: "heating warms the room",
    },
    Effect {
        medium: "temperature",
        caps: THERMOSTATS,
        change: Change::To("thermostatMode", &["cool"]),
        dir: Dir::Down,
        why: "cooling cools it",
    },
    Effect {
        medium: "temperature",
        caps: THERMOSTATS,
        change: Change::To("thermostatMode", &["auto", "off"]),
        dir: Dir::Either,
        why: "the thermostat stops or follows its set points",
    },
    Effect {
        medium: "temperature",
        caps: THERMOSTATS,
        change: Change::To("heatingSetpoint", &[]),
        dir: Dir::Either,
        why: "a set point moves the temperature the thermostat holds",
    },
    Effect {
        medium: "temperature",
        caps: THERMOSTATS,
        change: Change::To("coolingSetpoint", &[]),
        dir: Dir::Either,
        why: "as the heating set point",
    },
    Effect {
        medium: "temperature",
        caps: SWITCHED,
        change: Change::To("switch", &[]),
        dir: Dir::Either,
        why: "a heater, a fan or an air conditioner on a switch (virtual-thermostat's outlets)",
    },
    Effect {
        medium: "sound",
        caps: &["musicPlayer"],
        change: Change::To("status", &["playing"]),
        dir: Dir::Up,
        why: "a player playing; the study's sound sheet (speakers, alarms, synthesizers against a sound sensor)",
    },
    Effect {
        medium: "sound",
        caps: &["musicPlayer"],
        change: Change::To("status", &["stopped", "paused"]),
        dir: Dir::Down,
        why: "a player stopping",
    },
    Effect {
        medium: "sound",
        caps: &["musicPlayer"],
        change: Change::To("mute", &["muted"]),
        dir: Dir::Down,
        why: "muted",
    },
    Effect {
        medium: "sound",
        caps: &["musicPlayer"],
        change: Change::To("mute", &["unmuted"]),
        dir: Dir::Up,
        why: "unmuted",
    },
    Effect {
        medium: "sound",
        caps: &["musicPlayer"],
        change: Change::To("level", &[]),
        dir: Dir::Either,
        why: "the volume",
    },
    Effect {
        medium: "sound",
        caps: &["alarm"],
        change: Change::To("alarm", &["siren", "both"]),
        dir: Dir::Up,
        why: "a siren sounding",
    },
    Effect {
        medium: "sound",
        caps: &["alarm"],
        change: Change::To("alarm", &["off"]),
        dir: Dir::Down,
        why: "a siren silenced",
    },
    Effect {
        medium: "sound",
        caps: &["speechSynthesis", "musicPlayer"],
        change: Change::Command("speak"),
        dir: Dir::Up,
        why: "a synthesizer speaking (it has no attribute: the command itself)",
    },
    Effect {
        medium: "sound",
        caps: &["tone"],
        change: Change::Command("beep"),
        dir: Dir::Up,
        why: "a tone beeping",
    },
];

/// Sensors of quantities that commands plausibly move but the table connects to nothing: an
/// input of one, in a system where another app commands something the table knows, is listed
/// as not modelled (what a physical chain to it would need).
pub const UNCONNECTED: &[(&str, &str, &str)] = &[
    ("relativeHumidityMeasurement", "humidity", "a humidifier, a kettle or a shower on a switch"),
    ("contactSensor", "contact", "a door or window an app opens, when the sensor is on it"),
    ("accelerationSensor", "acceleration", "a door, a robot or an appliance an app starts"),
    ("powerMeter", "power", "the load an app switches"),
    ("energyMeter", "energy", "the load an app switches"),
    ("soundPressureLevel", "soundPressureLevel", "a speaker or a siren"),
    ("ultravioletIndex", "ultravioletIndex", "a shade an app opens"),
    ("carbonDioxideMeasurement", "carbonDioxide", "a fan or a window an app opens"),
];

impl Effect {
    /// Whether an attribute change to `value` (`None`: the command itself) is this row's.
    fn takes(&self, value: &Value) -> bool {
        match self.change {
            Change::To(_, values) => values.is_empty() || values.iter().any(|v| loose_eq(value, &s(v))),
            Change::Command(_) => true,
        }
    }
}

/// The table as docs/physical.md shows it: one Markdown row per effect.
pub fn table_markdown() -> String {
    let mut out = String::from("| medium | devices | change | moves it | why |\n|---|---|---|---|---|\n");
    for e in EFFECTS {
        let change = match e.change {
            Change::To(attr, []) => format!("`{attr}` changes"),
            Change::To(attr, values) => format!("`{attr}` to {}", values.join(" or ")),
            Change::Command(c) => format!("command `{c}`"),
        };
        let dir = match e.dir {
            Dir::Up => "up",
            Dir::Down => "down",
            Dir::Either => "either way",
        };
        out.push_str(&format!("| {} | {} | {change} | {dir} | {} |\n", e.medium, e.caps.join(", "), e.why));
    }
    out.push_str("\n| medium | sensors | low | high |\n|---|---|---|---|\n");
    for m in MEDIA {
        let sensors: Vec<String> = m.sensors.iter().map(|(c, a)| format!("{c}.{a}")).collect();
        out.push_str(&format!("| {} | {} | {} | {} |\n", m.name, sensors.join(", "), m.low, m.high));
    }
    out
}

/// One channel of a system: a medium and one sensor attribute measuring it, with the two slots
/// the room keeps on the sensor's device.
#[derive(Clone, Debug)]
pub(super) struct Channel {
    /// Index into [`MEDIA`].
    pub medium: usize,
    pub dev: u16,
    pub sensor: usize,
    /// The change not yet sensed: 0, or (app + 1) * 4 + direction.
    pub pending: usize,
    /// Who caused the sensor's value: 0 (the environment), or app + 1.
    pub cause: usize,
}

/// A system's channels, and where the interpreter meets them.
#[derive(Default)]
pub(super) struct Room {
    pub channels: Vec<Channel>,
    /// Per slot: the effects a change of it has, with the channel each reaches.
    actuates: Vec<Vec<(u16, u16)>>,
    /// Per device: the command effects it has (effect, channel).
    commands: Vec<Vec<(u16, u16)>>,
    /// Per slot: the channel whose sensor it is.
    sensor: Vec<Option<u16>>,
    /// Per slot: the channel whose pending or cause slot it is.
    own: Vec<Option<u16>>,
    /// The physical events are `events[first_event..]`, each (channel, high).
    first_event: usize,
    event: Vec<(u16, bool)>,
    /// Per app: whether it senses some channel (kept in the interleaving).
    pub senses: Vec<bool>,
    /// Per app: the pending slots its commands may write (footprints).
    pub pends: Vec<Vec<usize>>,
}

/// How a sensing app met the medium.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum How {
    /// Its code read the sensor's attribute.
    Reads = 0,
    /// The sensor's event ran its handler, which acted.
    Runs = 1,
}

/// The interpreter's side of the room during one firing.
#[derive(Default)]
pub(super) struct Watch {
    /// Acts so far (device commands, writes, messages), and the line of the first since the
    /// handler a physical event runs began.
    acts: u32,
    first_act: Option<usize>,
    /// While a physical event delivers: (channel, the app that caused it, the depth its
    /// handlers run at).
    run: Option<(u16, usize, u32)>,
}

/// Marks the places of actuations among a firing's recorded write places (`Ctx::places`):
/// `ROOM_MARK + medium`, never a slot.
const ROOM_MARK: usize = usize::MAX / 2;

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        _ => 0,
    }
}

impl Room {
    pub(super) fn event(&self, e: usize) -> Option<(usize, bool)> {
        e.checked_sub(self.first_event).and_then(|k| self.event.get(k)).map(|&(c, h)| (c as usize, h))
    }

    pub(super) fn event_count(&self) -> usize {
        self.event.len()
    }

    /// Whether `slot` is one of the room's own (pending or cause).
    pub(super) fn owns(&self, slot: usize) -> bool {
        self.own.get(slot).is_some_and(Option::is_some)
    }

    /// Slots the room needs stored: every channel's sensor, pending and cause, and every
    /// actuating attribute of the system.
    pub(super) fn live_slots(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.channels.iter().flat_map(|c| [c.sensor, c.pending, c.cause]).collect();
        out.extend((0..self.actuates.len()).filter(|&s| !self.actuates[s].is_empty()));
        out
    }

    /// What firing event `e` writes of the room's slots before any app runs: a physical event
    /// its pending and cause slots; the environment's report of a sensor its cause slot.
    pub(super) fn first_writes(&self, e: usize, written: Option<u32>) -> Vec<u32> {
        if let Some((c, _)) = self.event(e) {
            let c = &self.channels[c];
            return vec![c.pending as u32, c.cause as u32];
        }
        match written.and_then(|o| self.sensor.get(o as usize).copied().flatten()) {
            Some(c) => vec![self.channels[c as usize].cause as u32],
            None => Vec::new(),
        }
    }
}

impl SmartAppModel {
    /// Adds the system's physical channels (module header): their slots on the sensors'
    /// devices, their events, and the notes on sensors the table connects to nothing. Called
    /// once the apps are installed and the configurations chosen; does nothing without
    /// `--conflicts --physical`.
    pub(super) fn add_room(&mut self) {
        if !self.opts.conflicts || !self.opts.physical {
            return;
        }
        let reach = self.reach();
        let napps = self.apps.len();
        let scans: Vec<footprint::Scan> = self.apps.iter().map(|a| footprint::scan(&a.script)).collect();
        let devs_of: Vec<Vec<u16>> = (0..napps)
            .map(|a| {
                let mut d: Vec<u16> =
                    self.apps[a].settings.values().flat_map(|v| v.items()).filter_map(dev_of).collect();
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        // Per app and medium: whether its commands may move it.
        let moves = |a: usize, medium: &str| {
            EFFECTS.iter().filter(|e| e.medium == medium).any(|e| match e.change {
                Change::To(attr, _) => reach[a].writes.iter().any(|&s| {
                    let (d, at) = &self.slots[s];
                    at == attr && self.device_caps[*d as usize].iter().any(|c| e.caps.contains(&c.as_str()))
                }),
                Change::Command(c) => {
                    (scans[a].dynamic || scans[a].commands.iter().any(|x| x == c))
                        && devs_of[a]
                            .iter()
                            .any(|&d| self.device_caps[d as usize].iter().any(|c| e.caps.contains(&c.as_str())))
                }
            })
        };
        let moving: Vec<Vec<bool>> = (0..napps).map(|a| MEDIA.iter().map(|m| moves(a, m.name)).collect()).collect();
        // Per app and slot: whether it may read the slot or subscribes to it.
        let senses = |a: usize, slot: usize| {
            reach[a].reads.contains(&slot)
                || self.subs.iter().any(|s| s.app == a && s.dev.is_some_and(|d| self.slot(d, &s.attr) == Some(slot)))
        };
        let mut wanted: Vec<(usize, u16, usize, Vec<usize>)> = Vec::new();
        for (m, medium) in MEDIA.iter().enumerate() {
            let movers: Vec<usize> = (0..napps).filter(|&a| moving[a][m]).collect();
            if movers.is_empty() {
                continue;
            }
            for (d, caps) in self.device_caps.iter().enumerate() {
                for (scap, attr) in medium.sensors {
                    if !caps.iter().any(|c| c == scap) {
                        continue;
                    }
                    let Some(slot) = self.slot(d as u16, attr) else { continue };
                    let sensing: Vec<usize> = (0..napps).filter(|&a| senses(a, slot)).collect();
                    if sensing.iter().any(|b| movers.iter().any(|a| a != b)) {
                        wanted.push((m, d as u16, slot, sensing));
                    }
                }
            }
        }
        self.note_unconnected(&moving);
        if wanted.is_empty() {
            return;
        }
        let mut room = Room { senses: vec![false; napps], pends: vec![Vec::new(); napps], ..Room::default() };
        for (m, dev, sensor, sensing) in wanted {
            let pending = self.add_room_slot(dev, format!("{}:pending", MEDIA[m].name));
            let cause = self.add_room_slot(dev, format!("{}:cause", MEDIA[m].name));
            sensing.iter().for_each(|&a| room.senses[a] = true);
            room.channels.push(Channel { medium: m, dev, sensor, pending, cause });
        }
        let nslots = self.slots.len();
        room.actuates = vec![Vec::new(); nslots];
        room.commands = vec![Vec::new(); self.devices.len()];
        room.sensor = vec![None; nslots];
        room.own = vec![None; nslots];
        for (ci, c) in room.channels.iter().enumerate() {
            room.sensor[c.sensor] = Some(ci as u16);
            room.own[c.pending] = Some(ci as u16);
            room.own[c.cause] = Some(ci as u16);
            for (ei, e) in EFFECTS.iter().enumerate().filter(|(_, e)| e.medium == MEDIA[c.medium].name) {
                for (d, _) in self
                    .device_caps
                    .iter()
                    .enumerate()
                    .filter(|(_, caps)| caps.iter().any(|c| e.caps.contains(&c.as_str())))
                {
                    match e.change {
                        Change::To(attr, _) => {
                            if let Some(slot) = self.slot(d as u16, attr) {
                                room.actuates[slot].push((ei as u16, ci as u16));
                            }
                        }
                        Change::Command(_) => room.commands[d].push((ei as u16, ci as u16)),
                    }
                }
            }
            for a in 0..napps {
                if moving[a][c.medium] {
                    room.pends[a].push(c.pending);
                }
            }
        }
        // The physical events: the low and the high value of each channel.
        room.first_event = self.events.len();
        for (ci, c) in room.channels.iter().enumerate() {
            let medium = &MEDIA[c.medium];
            for (high, v) in [(false, medium.low), (true, medium.high)] {
                self.events.push(EnvEvent {
                    name: format!("physical.{}.{}.{}", medium.name, self.devices[c.dev as usize], v.replace(' ', "_")),
                    dev: Some(c.dev),
                    attr: self.slot_text[c.sensor].clone(),
                    value: Text::Static(v),
                    run: None,
                    touch: None,
                    extractor: false,
                });
                room.event.push((ci as u16, high));
            }
        }
        let (nev, conflicts) = (self.events.len(), self.opts.conflicts);
        // Every event is scheduled until the slice says otherwise (`slice.rs`).
        self.dead.resize(nev, false);
        for st in std::iter::once(&mut self.init).chain(self.configs.iter_mut().map(|c| &mut c.1)) {
            st.attrs.resize(nslots, Value::Int(0));
            if conflicts {
                // One ghost per slot and the location mode's after them (`mode_slot`); all are
                // empty after installing, so the mode's moving to the new end loses nothing.
                st.writers.resize(nslots + 1, (0, Value::Null));
            }
            st.fired.resize(nev, 0);
        }
        self.room = room;
    }

    /// A slot of the room on device `dev` (what the outcome line names `cap.attr`), 0 at first.
    fn add_room_slot(&mut self, dev: u16, attr: String) -> usize {
        let slot = self.slots.len();
        self.slots.push((dev, attr.clone()));
        self.slot_text.push(Text::from(attr.clone()));
        self.slot_of[dev as usize].push((attr, slot));
        slot
    }

    /// Lists, as not modelled, each sensor input of a quantity the table connects to nothing
    /// ([`UNCONNECTED`]) when another app's commands move some medium.
    fn note_unconnected(&mut self, moving: &[Vec<bool>]) {
        let movers: Vec<usize> = (0..self.apps.len()).filter(|&a| moving[a].iter().any(|&m| m)).collect();
        let mut notes = Vec::new();
        for (a, app) in self.apps.iter().enumerate() {
            if !movers.iter().any(|&b| b != a) {
                continue;
            }
            for input in load::inputs(&app.script).0 {
                let cap = input.ty.split('.').nth(1).unwrap_or("");
                if let Some((_, q, what)) =
                    UNCONNECTED.iter().find(|u| u.0 == cap && input.ty.starts_with("capability."))
                {
                    notes.push(format!(
                        "{}:{}: input `{}` (capability.{cap}): the physical table connects no command to `{q}` ({what} may move it): no other app's command reaches it",
                        app.file, input.line, input.name
                    ));
                }
            }
        }
        for n in notes {
            if !self.unsupported.contains(&n) {
                self.unsupported.push(n);
            }
        }
    }

    /// Whether `variable` names a medium (a physical conflict's), and which.
    pub(super) fn medium_named(variable: &str) -> Option<usize> {
        MEDIA.iter().position(|m| m.name == variable)
    }

    /// The physical conflict (module header) of channel `ch`: `app`'s code meets the value
    /// (`high` or low) that `actor`'s command caused, at `line` of subscription `sub` (or of the
    /// scheduled `method`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn physical_error(
        &self,
        ch: usize,
        actor: usize,
        app: usize,
        how: How,
        high: bool,
        line: usize,
        sub: Option<usize>,
        method: Option<&str>,
    ) -> ModelError {
        let c = &self.room.channels[ch];
        let medium = &MEDIA[c.medium];
        let (cap, attr) = (&self.devices[c.dev as usize], &self.slots[c.sensor].1);
        let value = if high { medium.high } else { medium.low };
        let (a, b) = (&self.apps[actor].name, &self.apps[app].name);
        let m = medium.name;
        let message = match how {
            How::Reads => format!(
                "apps {a} and {b} interact through the {m}: {b} reads `{attr}` of the {cap} device ({value}), which {a}'s command set through the {m}"
            ),
            How::Runs => format!(
                "apps {a} and {b} interact through the {m}: `{attr}` of the {cap} device became {value} through the {m} by {a}'s command, and {b}'s handler it runs acts"
            ),
        };
        ModelError {
            kind: PHYSICAL_CONFLICT,
            message,
            line,
            event: None,
            app: Some(b.clone()),
            conflict: Some(Box::new(crate::model::Conflict {
                variable: m.to_string(),
                app: b.clone(),
                value: format!("{attr} {value}"),
                last_app: a.clone(),
                last_value: format!("changed the {m}"),
                between: Vec::new(),
            })),
            at: Some(self.place(app, line, sub, method)),
        }
    }

    /// The physical conflict a monitors' run handed out as `w` ([`GhostWrite::physical`]),
    /// made by the transition of choice `c`.
    pub fn physical_finding(&self, w: &GhostWrite, c: Choice) -> ModelError {
        let ch = self.room.own.get(w.slot as usize).copied().flatten().unwrap_or(0) as usize;
        let code = int(&w.value);
        let (actor, how, high) =
            ((code / 4) as usize, if code & 2 != 0 { How::Runs } else { How::Reads }, code & 1 != 0);
        let ev = self.events.get(c as usize);
        let method = ev.and_then(|e| e.run.as_ref()).map(|(_, m)| m.as_str());
        let mut e = self.physical_error(ch, actor, w.app as usize, how, high, w.line as usize, w.sub, method);
        e.event = ev.map(|e| e.name.clone());
        e
    }

    /// Where `app` last changed `medium` before the last step of `path` (`file:line, handler
    /// h`): the actuating side of a physical conflict, found by replay (reports).
    pub(super) fn actuation_place(&self, path: &[Choice], medium: usize, app: &str) -> Option<String> {
        let app = self.apps.iter().position(|a| a.name == app)?;
        let (mut s, mut acc, mut places) = (self.initial(), Vec::new(), Vec::new());
        for &c in path.iter().take(path.len().saturating_sub(1)) {
            acc.clear();
            if self.fire_traced(&mut s, c as usize, &mut acc, &mut None, Some(&mut places), None, None).is_err() {
                break;
            }
        }
        places.into_iter().rev().find(|(k, a, _)| *k == ROOM_MARK + medium && *a == app).map(|p| p.2)
    }

    /// The room's figures for `stats` and the summary: (channels, physical events).
    pub(super) fn room_figures(&self) -> (usize, usize) {
        (self.room.channels.len(), self.room.event_count())
    }

    /// `, 1 physical channel (light: illuminanceMeasurement.illuminance), 2 physical events`,
    /// or nothing when the system has none.
    pub(super) fn room_summary(&self) -> String {
        if self.room.channels.is_empty() {
            return String::new();
        }
        let names: Vec<String> = self
            .room
            .channels
            .iter()
            .map(|c| format!("{}: {}", MEDIA[c.medium].name, self.slot_variable(c.sensor)))
            .collect();
        let n = self.room.channels.len();
        format!(
            ", {n} physical channel{} ({}), {} physical events",
            if n == 1 { "" } else { "s" },
            names.join(", "),
            self.room.event_count()
        )
    }
}

fn dev_of(v: Value) -> Option<u16> {
    match v {
        Value::Dev(d) => Some(d),
        _ => None,
    }
}

impl Ctx<'_> {
    /// An act of the running code (a device command, a write, a message to the user).
    pub(super) fn room_act(&mut self) {
        self.watch.acts += 1;
        if self.watch.first_act.is_none() {
            self.watch.first_act = Some(self.line);
        }
    }

    /// `app`'s command changed `slot` to `value`: the media it moves are pending.
    pub(super) fn room_actuated(&mut self, slot: usize, app: usize, value: &Value) {
        let m = self.m;
        let Some(list) = m.room.actuates.get(slot) else { return };
        for &(e, ch) in list {
            let effect = &EFFECTS[e as usize];
            if effect.takes(value) {
                self.room_pend(ch as usize, app, effect.dir);
            }
        }
    }

    /// A device command: an act, and what an attribute-less command moves.
    pub(super) fn room_command(&mut self, dev: u16, name: &str) {
        self.room_act();
        let m = self.m;
        let Some(list) = m.room.commands.get(dev as usize) else { return };
        for &(e, ch) in list {
            let effect = &EFFECTS[e as usize];
            if matches!(effect.change, Change::Command(c) if c == name) && !self.installing.is_some() {
                self.room_pend(ch as usize, self.app, effect.dir);
            }
        }
    }

    fn room_pend(&mut self, ch: usize, app: usize, dir: Dir) {
        let m = self.m;
        let c = &m.room.channels[ch];
        let code = Value::Int(((app + 1) * 4 + dir as usize) as i64);
        let changes = self.st.attrs[c.pending] != code;
        self.touch(c.pending as u32, changes);
        self.st.attrs[c.pending] = code;
        if self.places.is_some() {
            let place = self.place(app, self.line, self.sub);
            if let Some(p) = self.places.as_mut() {
                p.push((ROOM_MARK + c.medium, app, place));
            }
        }
    }

    /// The environment reported `slot`: a sensor's value is the environment's again.
    pub(super) fn room_reported(&mut self, slot: usize) {
        let m = self.m;
        let Some(Some(ch)) = m.room.sensor.get(slot) else { return };
        let cause = m.room.channels[*ch as usize].cause;
        let changes = int(&self.st.attrs[cause]) != 0;
        self.touch(cause as u32, changes);
        self.st.attrs[cause] = Value::Int(0);
    }

    /// The running code read `slot`: a physical conflict when it is a sensor whose value
    /// another app's command caused.
    pub(super) fn room_sensed(&mut self, slot: usize) {
        let m = self.m;
        let Some(Some(ch)) = m.room.sensor.get(slot) else { return };
        if self.installing.is_some() {
            return;
        }
        let c = &m.room.channels[*ch as usize];
        self.touch(c.cause as u32, false);
        let by = int(&self.st.attrs[c.cause]);
        if by == 0 || by as usize - 1 == self.app {
            return;
        }
        let high = loose_eq(&self.st.attrs[slot], &s(MEDIA[c.medium].high));
        self.room_observe(*ch as usize, by as usize - 1, self.app, How::Reads, high, self.line, self.sub);
    }

    /// Fires physical event of channel `ch` towards its `high` (or low) value (module header).
    pub(super) fn room_settle(&mut self, ch: usize, high: bool) -> R<()> {
        let m = self.m;
        let c = &m.room.channels[ch];
        let code = int(&self.st.attrs[c.pending]);
        let dir = code % 4;
        let towards = dir == Dir::Either as i64 || (dir == Dir::Up as i64) == high;
        if code == 0 || !towards {
            self.touch(c.pending as u32, false);
            return Ok(());
        }
        self.touch(c.pending as u32, true);
        self.st.attrs[c.pending] = Value::Int(0);
        let medium = &MEDIA[c.medium];
        let value = if high { medium.high } else { medium.low };
        // The sensor reads this already: it reports nothing. That comparison is a read of the
        // sensor, logged as one: `monitors`' firing memo keys a firing by its reads, and without
        // it a no-op recorded where the sensor held the value was replayed where it did not.
        self.touch(c.sensor as u32, false);
        if loose_eq(&self.st.attrs[c.sensor], &s(value)) {
            return Ok(());
        }
        let app = (code / 4 - 1) as usize;
        self.touch(c.sensor as u32, true);
        self.st.attrs[c.sensor] = s(value);
        let changes = int(&self.st.attrs[c.cause]) != app as i64 + 1;
        self.touch(c.cause as u32, changes);
        self.st.attrs[c.cause] = Value::Int(app as i64 + 1);
        let saved = self.watch.run.replace((ch as u16, app, self.depth + 1));
        let r = self.deliver(Some(c.dev), &m.slot_text[c.sensor], &Text::Static(value));
        self.watch.run = saved;
        r
    }

    /// A handler starts (in `deliver`, at its depth): the acts so far.
    pub(super) fn room_handler_starts(&mut self) -> u32 {
        if matches!(self.watch.run, Some((_, _, d)) if d == self.depth) {
            self.watch.first_act = None;
        }
        self.watch.acts
    }

    /// The handler of subscription `si` ended, `mark` the acts before it: a physical conflict
    /// when a physical event ran it, in another app than the one that caused it, and it acted.
    pub(super) fn room_handler_ends(&mut self, si: usize, mark: u32) {
        let Some((ch, actor, d)) = self.watch.run else { return };
        let app = self.m.subs[si].app;
        if d != self.depth || self.watch.acts == mark || app == actor {
            return;
        }
        let c = &self.m.room.channels[ch as usize];
        let high = loose_eq(&self.st.attrs[c.sensor], &s(MEDIA[c.medium].high));
        let line = self.watch.first_act.unwrap_or(self.line);
        self.room_observe(ch as usize, actor, app, How::Runs, high, line, Some(si));
    }

    #[allow(clippy::too_many_arguments)]
    fn room_observe(
        &mut self,
        ch: usize,
        actor: usize,
        app: usize,
        how: How,
        high: bool,
        line: usize,
        sub: Option<usize>,
    ) {
        if let Some(out) = self.ghost_writes.as_mut() {
            // The monitors' run: handed out with the firing's writes (monitors.rs reports it).
            let code = (actor as i64) * 4 + (how as i64) * 2 + high as i64;
            out.push(GhostWrite {
                slot: self.m.room.channels[ch].cause as u32,
                app: app as u8,
                manual: false,
                line: line as u32,
                sub,
                value: Value::Int(code),
                physical: true,
            });
            return;
        }
        let e = self.m.physical_error(ch, actor, app, how, high, line, sub, self.method);
        self.observed.push(e);
    }
}
