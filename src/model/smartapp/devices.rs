//! The device model: each capability's attributes with their initial values and the commands
//! that set them (IoTCheck's device classes), and the event types and values the environment
//! can send (IoTCheck's Extractor). A command that changes nothing sends nothing.

use super::*;

/// Attributes of each capability with their initial values (IoTCheck's device constructors).
pub fn capability_attrs(cap: &str) -> &'static [(&'static str, &'static str)] {
    match cap.trim_start_matches("capability.").trim_start_matches("device.") {
        "switch" | "relaySwitch" => &[("switch", "off")],
        "switchLevel" => &[("switch", "off"), ("level", "50")],
        "colorControl" => {
            &[("switch", "off"), ("level", "50"), ("hue", "50"), ("saturation", "50"), ("color", "white")]
        }
        "colorTemperature" => &[("switch", "off"), ("level", "50"), ("colorTemperature", "2700")],
        "lock" => &[("lock", "locked")],
        "presenceSensor" | "beacon" | "mobilePresence" => &[("presence", "present")],
        "motionSensor" => &[("motion", "inactive")],
        "contactSensor" => &[("contact", "closed")],
        "accelerationSensor" => &[("acceleration", "inactive")],
        "smokeDetector" => &[("smoke", "clear"), ("carbonMonoxide", "clear")],
        "carbonMonoxideDetector" => &[("carbonMonoxide", "clear")],
        "thermostat" => &[
            ("thermostatMode", "off"),
            ("thermostatFanMode", "auto"),
            ("thermostatOperatingState", "off"),
            ("heatingSetpoint", "68"),
            ("coolingSetpoint", "75"),
            ("thermostatSetpoint", "70"),
            ("temperature", "70"),
        ],
        "temperatureMeasurement" => &[("temperature", "70")],
        "relativeHumidityMeasurement" => &[("humidity", "50")],
        "illuminanceMeasurement" => &[("illuminance", "100")],
        "alarm" => &[("alarm", "off")],
        "valve" => &[("valve", "closed")],
        "waterSensor" => &[("water", "dry")],
        "doorControl" | "garageDoorControl" => &[("door", "closed")],
        "musicPlayer" => &[("status", "stopped"), ("mute", "unmuted"), ("level", "50"), ("trackDescription", "")],
        "button" | "aeonKeyFob" => &[("button", "pushed")],
        "powerMeter" => &[("power", "0")],
        "energyMeter" => &[("energy", "0")],
        "battery" => &[("battery", "100")],
        "sleepSensor" => &[("sleeping", "not sleeping")],
        "stepSensor" => &[("steps", "0"), ("goal", "1000")],
        "imageCapture" => &[("image", "")],
        "threeAxis" => &[("threeAxis", "0,0,0")],
        "outlet" => &[("switch", "off")],
        "touchSensor" => &[("touch", "touched")],
        "tamperAlert" => &[("tamper", "clear")],
        "windowShade" => &[("windowShade", "closed")],
        "voltageMeasurement" => &[("voltage", "0")],
        "soundSensor" => &[("sound", "not detected")],
        "soundPressureLevel" => &[("soundPressureLevel", "0")],
        "ultravioletIndex" => &[("ultravioletIndex", "0")],
        "carbonDioxideMeasurement" => &[("carbonDioxide", "400")],
        "pHMeasurement" => &[("pH", "7")],
        "shockSensor" => &[("shock", "clear")],
        "signalStrength" => &[("lqi", "100"), ("rssi", "0")],
        "consumable" => &[("consumableStatus", "good")],
        "videoCapture" => &[("clip", "")],
        "mediaController" => &[("currentActivity", "")],
        // Device handlers named by type: what they are.
        "myEcobeeDevice" => capability_attrs("thermostat"),
        "jawboneUser" => &[("sleeping", "not sleeping"), ("steps", "0"), ("goal", "1000")],
        _ => &[],
    }
}

/// Every capability (or device type) [`capability_attrs`] gives attributes: what
/// `--conflicts-on` names are checked against.
pub const CAPABILITIES: [&str; 50] = [
    "switch",
    "relaySwitch",
    "switchLevel",
    "colorControl",
    "colorTemperature",
    "lock",
    "presenceSensor",
    "beacon",
    "mobilePresence",
    "motionSensor",
    "contactSensor",
    "accelerationSensor",
    "smokeDetector",
    "carbonMonoxideDetector",
    "thermostat",
    "temperatureMeasurement",
    "relativeHumidityMeasurement",
    "illuminanceMeasurement",
    "alarm",
    "valve",
    "waterSensor",
    "doorControl",
    "garageDoorControl",
    "musicPlayer",
    "button",
    "aeonKeyFob",
    "powerMeter",
    "energyMeter",
    "battery",
    "sleepSensor",
    "stepSensor",
    "imageCapture",
    "threeAxis",
    "outlet",
    "touchSensor",
    "tamperAlert",
    "windowShade",
    "voltageMeasurement",
    "soundSensor",
    "soundPressureLevel",
    "ultravioletIndex",
    "carbonDioxideMeasurement",
    "pHMeasurement",
    "shockSensor",
    "signalStrength",
    "consumable",
    "videoCapture",
    "mediaController",
    "myEcobeeDevice",
    "jawboneUser",
];

/// Whether a `--conflicts-on` name (`attr` or `capability.attr`) names a modelled attribute:
/// also `location.mode` (or `mode`), the location mode, a shared attribute of the home.
pub fn known_scope_name(name: &str) -> bool {
    if matches!(name, "location.mode" | "mode") {
        return true;
    }
    let has = |cap: &str, attr: &str| capability_attrs(cap).iter().any(|(a, _)| *a == attr);
    match name.split_once('.') {
        Some((cap, attr)) => has(cap, attr),
        None => CAPABILITIES.iter().any(|c| has(c, name)),
    }
}

/// Capabilities that have commands but no attributes (nothing to model beyond the calls).
pub fn capability_known_empty(cap: &str) -> bool {
    matches!(
        cap,
        "momentary"
            | "speechSynthesis"
            | "sensor"
            | "actuator"
            | "notification"
            | "tone"
            | "refresh"
            | "polling"
            | "configuration"
    )
}

/// IoTCheck's Extractor: how many events a subscribed event type stands for, and which.
pub(super) fn event_values(ty: &str) -> &'static [&'static str] {
    match ty {
        "lock" => &["locked", "unlocked"],
        "app" => &["touch"],
        "button" => &["held", "pushed"],
        "water" => &["dry", "wet"],
        "water.dry" => &["dry"],
        "water.wet" => &["wet"],
        "presence" => &["present", "not present"],
        "doorState" => &["open", "closed"],
        "motion" => &["active", "inactive"],
        "smoke" | "carbonMonoxide" => &["detected", "clear", "tested"],
        "thermostatMode" => &["auto", "cool", "emergency heat", "heat", "off"],
        "thermostatFanMode" => &["auto", "fanCirculate", "circulate", "fanOn", "on"],
        "thermostatOperatingState" => &["cooling", "heating", "idle", "fan only", "pending heat"],
        "switch" => &["on", "off"],
        "location" | "mode" => &["home", "away", "night"],
        "acceleration" => &["active", "inactive"],
        "sleeping" => &["sleeping", "not sleeping"],
        "goal" | "steps" => &["50", "2000"],
        "power" => &["0", "100"],
        "illuminance" => &["5", "500"],
        "humidity" => &["20", "80"],
        "temperature" => &["50", "90"],
        "alarm" => &["both", "siren", "strobe", "off"],
        "contact" => &["open", "closed"],
        "status" => &["playing", "stopped", "paused"],
        "mute" => &["muted", "unmuted"],
        "battery" => &["5"],
        "level" => &["70"],
        "energy" => &["10"],
        // Location events of the sun, and attributes IoTCheck's Extractor gives one value.
        "sunset" => &["sunset"],
        "sunrise" => &["sunrise"],
        "sunsetTime" | "sunriseTime" => &["2019-07-27T03:00:00.000Z"],
        "heatingSetpoint" | "coolingSetpoint" | "thermostatSetpoint" => &["72"],
        "hue" | "saturation" => &["50"],
        "color" => &["red"],
        "colorTemperature" => &["3000"],
        "trackDescription" | "trackData" => &["track"],
        "threeAxis" => &["0,0,1000"],
        "windowShade" => &["open", "closed"],
        "tamper" => &["detected", "clear"],
        "touch" | "touched" => &["touched"],
        "voltage" | "ultravioletIndex" | "soundPressureLevel" | "pressure" | "rssi" => &["10"],
        "sound" => &["detected", "not detected"],
        "shock" => &["detected", "clear"],
        _ => &["1"],
    }
}

/// Events that are the user's own action, not a device's report or an automation: a button
/// pressed, an NFC tag or touch sensor tapped, a cube turned (IoTCheck's "manual" events; an app
/// touch is one too, told by [`EnvEvent::touch`]). What an app writes in direct response is the
/// user's command, so it is never a conflict (see `Ctx::set_attr`).
pub(super) fn user_action(attr: &str) -> bool {
    matches!(attr, "button" | "nfcTouch" | "touch" | "threeAxis" | "switch")
}

/// The device attribute a subscription's event name stands for: CoopBoss's `doorState` is the
/// door's state, the `door` attribute of the model's door (load.rs fires it there).
pub(super) fn subscribed_attr(name: String) -> String {
    if name == "doorState" {
        "door".into()
    } else {
        name
    }
}

/// The Extractor's reductions of event names (`switch.on` is the `switch` type, ...).
pub(super) fn event_type(name: &str) -> String {
    match name {
        "tamper.tampered" => "contact".into(),
        "position" | "mode" | "mode.away" | "mode.home" | "mode.night" => "location".into(),
        "presence.not" => "presence".into(),
        n if n.starts_with("fanMode") => "thermostatFanMode".into(),
        n if n.contains('.') && !n.starts_with("water.") => n.split('.').next().unwrap_or(n).to_string(),
        n => n.to_string(),
    }
}

impl Ctx<'_> {
    pub(super) fn attr(&mut self, dev: u16, name: &str) -> Value {
        match self.m.slot(dev, name) {
            Some(slot) => {
                self.touch(slot as u32, false);
                self.room_sensed(slot);
                self.st.attrs[slot].clone()
            }
            None => Value::Null,
        }
    }

    /// Device commands and queries; None when `name` is not a device method.
    pub(super) fn device_method(&mut self, d: u16, name: &str, a: &[Value]) -> R<Option<Value>> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        let app = Some(self.app);
        let has = |x: &str| self.m.slot(d, x).is_some();
        let set = |cx: &mut Self, attr: &str, v: Value| {
            // The static footprints (`footprint.rs`) take a command's writes from this table.
            debug_assert!(
                footprint::command_attrs(name).contains(&attr) && footprint::ANY_COMMAND_ATTR.contains(&attr),
                "{name} writes {attr}: add it to command_attrs"
            );
            cx.set_attr(d, attr, v, app)
        };
        if self.prop.is_some() {
            self.property_command(d, name)?;
        }
        match name {
            "currentValue" | "latestValue" => return Ok(Some(self.attr(d, &text_arg(a, 0)))),
            "currentState" | "latestState" => {
                let v = self.attr(d, &text_arg(a, 0));
                return Ok(Some(map(vec![(lit("value"), v), (lit("date"), Value::Int(STATE_SINCE))])));
            }
            "hasCapability" | "hasCommand" | "hasAttribute" => return Ok(Some(Value::Bool(true))),
            "events" | "eventsSince" | "eventsBetween" | "statesSince" => return Ok(Some(list(Vec::new()))),
            "on" => set(self, "switch", lit("on"))?,
            "off" => {
                if has("switch") {
                    set(self, "switch", lit("off"))?
                } else if has("thermostatMode") {
                    set(self, "thermostatMode", lit("off"))?
                } else if has("alarm") {
                    set(self, "alarm", lit("off"))?
                }
            }
            "lock" => set(self, "lock", lit("locked"))?,
            "unlock" => set(self, "lock", lit("unlocked"))?,
            "open" | "close" => {
                let v = if name == "open" { "open" } else { "closed" };
                for attr in ["valve", "door", "contact", "windowShade"] {
                    if has(attr) {
                        set(self, attr, s(v))?;
                        break;
                    }
                }
            }
            "setLevel" => {
                set(self, "level", arg(0).num().map_or(Value::Null, |f| s(&(f as i64).to_string())))?;
            }
            "heat" | "cool" | "auto" | "emergencyHeat" => {
                let v = if name == "emergencyHeat" { "emergency heat" } else { name };
                set(self, "thermostatMode", s(v))?
            }
            "setThermostatMode" => set(self, "thermostatMode", s(&arg(0).text()))?,
            "fanOn" | "fanAuto" | "fanCirculate" => {
                let v = lower_first(name.trim_start_matches("fan"));
                set(self, "thermostatFanMode", s(&v))?
            }
            "setThermostatFanMode" => set(self, "thermostatFanMode", s(&arg(0).text()))?,
            "setHeatingSetpoint" => set(self, "heatingSetpoint", s(&num_text(&arg(0))))?,
            "setCoolingSetpoint" => set(self, "coolingSetpoint", s(&num_text(&arg(0))))?,
            "siren" | "strobe" | "both" => set(self, "alarm", s(name))?,
            "play" | "playTrack" | "playText" | "playTrackAndResume" | "playTrackAndRestore" | "playSoundAndTrack" => {
                set(self, "status", lit("playing"))?
            }
            "pause" => set(self, "status", lit("paused"))?,
            "stop" => set(self, "status", lit("stopped"))?,
            "mute" => set(self, "mute", lit("muted"))?,
            "unmute" => set(self, "mute", lit("unmuted"))?,
            "setHue" => set(self, "hue", s(&num_text(&arg(0))))?,
            "setSaturation" => set(self, "saturation", s(&num_text(&arg(0))))?,
            "setColorTemperature" => set(self, "colorTemperature", s(&num_text(&arg(0))))?,
            "setColor" => {
                if let Value::Map(m) = arg(0) {
                    // A hub's colour bulb takes `hex` (`[hex: "#0000FF"]`) as its `color`.
                    for (k, attr) in
                        [("hue", "hue"), ("saturation", "saturation"), ("level", "level"), ("hex", "color")]
                    {
                        if let Some(v) = map_get(&m, &s(k)) {
                            set(self, attr, s(&num_text(v)))?;
                        }
                    }
                }
            }
            "arrived" => set(self, "presence", lit("present"))?,
            "departed" => set(self, "presence", lit("not present"))?,
            "refresh" | "poll" | "speak" | "take" | "push" | "beep" | "ping" | "configure" | "setTrack"
            | "nextTrack" | "previousTrack" | "resumeTrack" | "restoreTrack" => {}
            _ => return Ok(None),
        }
        // A command: an act, and what the room carries of it (`physical.rs`).
        self.room_command(d, name);
        Ok(Some(Value::Null))
    }
}
