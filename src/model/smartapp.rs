//! SmartThings SmartApps run from their Groovy source behind [`Model`] (kind `"smartapps"`),
//! with the device and environment semantics of IoTCheck's smartthings-infrastructure
//! (uci-plrg/iotcheck; read for its behaviour, nothing copied):
//!
//! - one device per capability, shared by every `input` of that capability in every app (IoTCheck
//!   binds each input to the first device of its capability's collection); a command that
//!   changes an attribute (`switch.on()`) delivers that attribute's event to every subscriber,
//!   synchronously, inside the running transition; a command that changes nothing sends nothing;
//! - the environment's events are IoTCheck's Extractor's: every distinct subscribed event type
//!   (in source order, app by app), expanded into its values (`switch` gives `on` and `off`;
//!   `location`/`mode` gives home, away, night; ...), plus one `schedule` event for a
//!   `schedule(...)` that opens `installed()`/`initialize()`; their number is the paper's Evt.;
//! - `runIn`, `runOnce`, `runEvery*` call their method at once (IoTCheck's timers run with zero
//!   delay); a method already running is not re-entered (IoTCheck would recurse forever);
//!   `unschedule`, notifications, HTTP and logging do nothing; `now()` is a fixed instant;
//! - a choice is one environment event; its transition is the event and every handler it causes,
//!   atomically; the accesses (device attributes, location mode, each app's state) are recorded
//!   as they run; `--conflicts` is IoTCheck's property: an app writing an attribute with a value
//!   different from the one another app last wrote there.
//! - **An unchanged write is a read** (issue 16's dependence refinement): a write that leaves the
//!   state as it was (an attribute, the mode or a `state` key given the value it holds, and with
//!   `--conflicts` by its last writer) is recorded as a read of its object. Sound for every
//!   strategy: if t at s stores into x the value x holds, then for any t' whose accesses at s do
//!   not conflict with t's (so t' does not write x and writes nothing t read), t' leaves x and
//!   everything t read unchanged, so t at t'(s) again stores that value and changes nothing, and
//!   t' at t(s) = s does what it did at s: the two commute and keep the same accesses. A t' that
//!   writes x conflicts with the recorded read, as any write would. The paper's listener
//!   instead leaves `state`, `location` and other infrastructure fields out of dependence
//!   altogether (docs/corpus.md); this keeps every dependence that can change a result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHasher};

use crate::model::{Access, Accesses, Choice, Model, ModelError, Outcome};
use crate::trace::groovy::{self, Arg, Expr, GPart, Method, Name, Script, Stmt};
use crate::trace::InputError;

mod footprint;

/// A string value. Handlers copy strings (attribute values, state keys, event fields) far more
/// often than they build them, so a copy shares the text instead of allocating: literals of the
/// interpreter itself are static, the rest shared.
#[derive(Clone)]
pub enum Text {
    Static(&'static str),
    Shared(Arc<str>),
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Static(x) => x,
            Text::Shared(x) => x,
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, o: &Text) -> bool {
        **self == **o
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, o: &str) -> bool {
        **self == *o
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, o: &&str) -> bool {
        **self == **o
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl From<String> for Text {
    fn from(x: String) -> Text {
        Text::Shared(x.into())
    }
}

/// A Groovy value as the apps see it. Lists and maps are shared too and copied on write
/// (`Arc::make_mut`): a state's clone per step and every read of a list only count references.
#[derive(Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Dec(f64),
    Str(Text),
    List(Arc<Vec<Value>>),
    Map(Arc<Vec<(Value, Value)>>),
    /// A device (index into the model's devices).
    Dev(u16),
    Closure(Arc<(Vec<Name>, Vec<Stmt>)>),
    /// `state` / `atomicState` of the running app; `location`; `log`; `app`; `settings`.
    Obj(&'static str),
}

impl Clone for Value {
    fn clone(&self) -> Value {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Dec(d) => Value::Dec(*d),
            Value::Str(x) => Value::Str(x.clone()),
            Value::List(l) => Value::List(l.clone()),
            Value::Map(m) => Value::Map(m.clone()),
            Value::Dev(d) => Value::Dev(*d),
            Value::Closure(c) => Value::Closure(c.clone()),
            Value::Obj(o) => Value::Obj(o),
        }
    }
    /// Leaves a value that already shares `src`'s text, list or map as it is: a state copied
    /// over the previous step's successor (mostly the same values) counts no references.
    fn clone_from(&mut self, src: &Value) {
        match (&mut *self, src) {
            (Value::Str(Text::Shared(a)), Value::Str(Text::Shared(b))) if Arc::ptr_eq(a, b) => {}
            (Value::List(a), Value::List(b)) if Arc::ptr_eq(a, b) => {}
            (Value::Map(a), Value::Map(b)) if Arc::ptr_eq(a, b) => {}
            (Value::Null, Value::Null) => {}
            // Nothing to drop in these.
            (Value::Str(Text::Static(a)), Value::Str(Text::Static(b))) => *a = *b,
            (Value::Int(a), Value::Int(b)) => *a = *b,
            (Value::Bool(a), Value::Bool(b)) => *a = *b,
            (Value::Dec(a), Value::Dec(b)) => *a = *b,
            _ => *self = src.clone(),
        }
    }
}

fn list(l: Vec<Value>) -> Value {
    Value::List(Arc::new(l))
}

fn map(m: Vec<(Value, Value)>) -> Value {
    Value::Map(Arc::new(m))
}

impl Value {
    fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Dec(d) => *d != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            _ => true,
        }
    }
    fn num(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Dec(d) => Some(*d),
            Value::Str(s) => s.trim().parse().ok(),
            Value::Bool(b) => Some(*b as i64 as f64),
            _ => None,
        }
    }
    fn text(&self) -> String {
        match self {
            Value::Str(s) => s.to_string(),
            v => {
                let mut out = String::new();
                v.text_into(&mut out);
                out
            }
        }
    }
    /// Appends the text of the value to `out` (interpolation builds no string per part).
    fn text_into(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Dec(d) => {
                let _ = write!(out, "{d}");
            }
            Value::Str(s) => out.push_str(s),
            Value::List(l) => {
                out.push('[');
                for (i, x) in l.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    x.text_into(out);
                }
                out.push(']');
            }
            Value::Map(m) => {
                out.push('[');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.text_into(out);
                    out.push(':');
                    v.text_into(out);
                }
                out.push(']');
            }
            Value::Dev(d) => {
                let _ = write!(out, "device{d}");
            }
            Value::Closure(_) => out.push_str("closure"),
            Value::Obj(o) => out.push_str(o),
        }
    }
    fn items(&self) -> Vec<Value> {
        match self {
            Value::List(l) => l.to_vec(),
            Value::Null => Vec::new(),
            Value::Map(m) => {
                m.iter().map(|(k, v)| map(vec![(lit("key"), k.clone()), (lit("value"), v.clone())])).collect()
            }
            Value::Str(x) => x.chars().map(|c| Value::Str(c.to_string().into())).collect(),
            other => vec![other.clone()],
        }
    }
}

fn s(x: &str) -> Value {
    Value::Str(Text::Shared(x.into()))
}

/// A string value of the interpreter's own text, without allocating.
fn lit(x: &'static str) -> Value {
    Value::Str(Text::Static(x))
}

fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(_) | Value::Dec(_), Value::Int(_) | Value::Dec(_)) => a.num() == b.num(),
        (Value::Str(x), Value::Bool(_) | Value::Null) | (Value::Bool(_) | Value::Null, Value::Str(x)) => {
            let _ = x;
            false
        }
        _ => a == b,
    }
}

fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        _ => a.num()?.partial_cmp(&b.num()?),
    }
}

/// Attributes of each capability with their initial values (IoTCheck's device constructors).
fn capability_attrs(cap: &str) -> &'static [(&'static str, &'static str)] {
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
        _ => &[],
    }
}

/// IoTCheck's Extractor: how many events a subscribed event type stands for, and which.
fn event_values(ty: &str) -> &'static [&'static str] {
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
        _ => &["1"],
    }
}

/// The Extractor's reductions of event names (`switch.on` is the `switch` type, ...).
fn event_type(name: &str) -> String {
    match name {
        "tamper.tampered" => "contact".into(),
        "position" | "mode" | "mode.away" | "mode.home" | "mode.night" => "location".into(),
        "presence.not" => "presence".into(),
        n if n.starts_with("fanMode") => "thermostatFanMode".into(),
        n if n.contains('.') && !n.starts_with("water.") => n.split('.').next().unwrap_or(n).to_string(),
        n => n.to_string(),
    }
}

/// One app of the system.
struct App {
    name: String,
    script: Script,
    methods: FxHashMap<String, usize>,
    /// Input name -> value (devices, enums ...).
    settings: FxHashMap<String, Value>,
}

/// What a subscription listens to.
#[derive(Clone, Debug)]
struct Sub {
    app: usize,
    /// Device, or None for location / app.
    dev: Option<u16>,
    /// `switch`, `mode`, `app`, `sunset`, ...
    attr: String,
    value: Option<String>,
    handler: Handler,
}

#[derive(Clone, Debug)]
enum Handler {
    Method(String),
    Closure(Arc<(Vec<Name>, Vec<Stmt>)>),
}

/// An event the environment fires.
#[derive(Clone, Debug)]
struct EnvEvent {
    name: String,
    /// Device attribute slot it sets, if any; None for location events (mode) and app touches.
    dev: Option<u16>,
    attr: Text,
    value: Text,
    /// `schedule` events: the app method they run.
    run: Option<(usize, String)>,
}

/// Options of the SmartApp model (`--conflicts`, `--bound k`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SmartAppOptions {
    pub conflicts: bool,
    pub bound: Option<u32>,
}

/// A configuration: attribute values, location mode, each app's state, the conflict ghost
/// (last app writer and the value it wrote, per attribute; empty without `--conflicts`) and the
/// fire counts under a bound.
#[derive(Debug, PartialEq)]
pub struct SmartState {
    attrs: Vec<Value>,
    mode: Text,
    states: Vec<Vec<(Text, Value)>>,
    writers: Vec<(u8, Value)>,
    fired: Vec<u32>,
}

impl Clone for SmartState {
    fn clone(&self) -> SmartState {
        SmartState {
            attrs: self.attrs.clone(),
            mode: self.mode.clone(),
            states: self.states.clone(),
            writers: self.writers.clone(),
            fired: self.fired.clone(),
        }
    }
    /// In place, value by value (stateful-dpor copies each state into the last step's
    /// successor): no allocation, and values already shared are left alone.
    fn clone_from(&mut self, src: &SmartState) {
        self.attrs.clone_from(&src.attrs);
        if !text_shared(&self.mode, &src.mode) {
            self.mode = src.mode.clone();
        }
        self.states.resize_with(src.states.len(), Vec::new);
        for (st, src) in self.states.iter_mut().zip(&src.states) {
            st.truncate(src.len());
            let n = st.len();
            for ((k, v), (sk, sv)) in st.iter_mut().zip(src) {
                if !text_shared(k, sk) {
                    *k = sk.clone();
                }
                v.clone_from(sv);
            }
            st.extend_from_slice(&src[n..]);
        }
        self.writers.truncate(src.writers.len());
        let n = self.writers.len();
        for ((w, v), (sw, sv)) in self.writers.iter_mut().zip(&src.writers) {
            *w = *sw;
            v.clone_from(sv);
        }
        self.writers.extend_from_slice(&src.writers[n..]);
        self.fired.clone_from(&src.fired);
    }
}

/// Whether two texts are the same shared (or static) string, so that copying one over the
/// other changes nothing.
fn text_shared(a: &Text, b: &Text) -> bool {
    match (a, b) {
        (Text::Shared(a), Text::Shared(b)) => Arc::ptr_eq(a, b),
        (Text::Static(a), Text::Static(b)) => std::ptr::eq(*a, *b),
        _ => false,
    }
}

pub struct SmartAppModel {
    apps: Vec<App>,
    /// Capability of each device.
    devices: Vec<String>,
    /// (device, attribute) of each slot.
    slots: Vec<(u16, String)>,
    /// Per device, its attributes' slots (looked up by name without building a key).
    slot_of: Vec<Vec<(String, usize)>>,
    /// The attribute of each slot and the capability of each device as shared text, for the
    /// `evt` of each delivery.
    slot_text: Vec<Text>,
    device_text: Vec<Text>,
    subs: Vec<Sub>,
    events: Vec<EnvEvent>,
    init: SmartState,
    opts: SmartAppOptions,
}

/// Ways a handler run ends early.
enum Flow {
    Return(Value),
    Break,
    Continue,
    Error(String, usize),
}

type R<T> = Result<T, Flow>;

/// Per-transition interpreter context.
struct Ctx<'m> {
    m: &'m SmartAppModel,
    st: &'m mut SmartState,
    acc: Vec<Access>,
    app: usize,
    /// Variables in scope, innermost last, in one stack: a scope ends by truncating it to
    /// where the scope began (no vector per scope or call).
    vars: Vec<(Name, Value)>,
    /// Where the running method's variables begin: lookups do not see its callers'.
    base: usize,
    /// Where interpolated strings are built, kept for its buffer.
    text: String,
    /// (app, method index) of the methods running.
    running: Vec<(usize, usize)>,
    budget: u32,
    depth: u32,
    line: usize,
    /// While installing: subscriptions found.
    installing: Option<Vec<Sub>>,
    /// Both sides of the conflict that ended the firing, for the report.
    conflict: Option<Box<crate::model::Conflict>>,
}

/// A fixed instant for `now()`, `new Date()`, `timeToday` (IoTCheck's base time).
const NOW: i64 = 1_564_191_100_415;

/// Marks a conflict among the runtime errors (a conflict is not caught by an app's `try`).
const CONFLICT: &str = "conflict: ";

impl SmartAppModel {
    fn slot(&self, dev: u16, attr: &str) -> Option<usize> {
        self.slot_of.get(dev as usize)?.iter().find(|(a, _)| a == attr).map(|p| p.1)
    }
    fn mode_object(&self) -> u32 {
        self.slots.len() as u32
    }
    fn state_object(&self, app: usize) -> u32 {
        (self.slots.len() + 1 + app) as u32
    }

    fn is_enabled(&self, s: &SmartState, e: usize) -> bool {
        self.opts.bound.is_none_or(|k| s.fired[e] < k)
    }

    /// Fires event `e` on `st`, recording accesses into `acc`.
    fn fire(&self, st: &mut SmartState, e: usize, acc: &mut Vec<Access>) -> Result<(), ModelError> {
        if self.opts.bound.is_some() {
            st.fired[e] += 1;
        }
        let ev = &self.events[e];
        let mut cx = Ctx {
            m: self,
            st,
            acc: std::mem::take(acc),
            app: 0,
            vars: Vec::with_capacity(16),
            base: 0,
            text: String::new(),
            running: Vec::new(),
            budget: 200_000,
            depth: 0,
            line: 0,
            installing: None,
            conflict: None,
        };
        let r = if let Some((app, method)) = &ev.run {
            cx.app = *app;
            cx.call_method(*app, method, Vec::new()).map(|_| ())
        } else if let Some(d) = ev.dev {
            cx.set_attr(d, &ev.attr, Value::Str(ev.value.clone()), None)
        } else if ev.attr == "mode" {
            cx.set_mode(ev.value.clone(), None)
        } else {
            cx.deliver(None, &ev.attr, &ev.value)
        };
        *acc = std::mem::take(&mut cx.acc);
        let app = cx.app;
        let conflict = cx.conflict.take();
        match r {
            Ok(()) => Ok(()),
            Err(Flow::Error(msg, line)) => Err(ModelError {
                kind: if msg.starts_with(CONFLICT) { "conflict" } else { "exception" },
                message: msg.trim_start_matches(CONFLICT).to_string(),
                line,
                event: Some(ev.name.clone()),
                // The app whose write conflicted (the firing may have begun in another one).
                app: Some(conflict.as_ref().map_or_else(|| self.apps[app].name.clone(), |c| c.app.clone())),
                conflict,
            }),
            Err(_) => Ok(()),
        }
    }
}

impl Ctx<'_> {
    fn touch(&mut self, object: u32, write: bool) {
        self.acc.push(Access { object, write });
    }

    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(Flow::Error(msg.into(), self.line))
    }

    /// Sets a device attribute; an app write (`by`) is checked for conflicts; a change delivers
    /// the event to the subscribers.
    fn set_attr(&mut self, dev: u16, attr: &str, value: Value, by: Option<usize>) -> R<()> {
        let Some(slot) = self.m.slot(dev, attr) else { return Ok(()) };
        // A command given no value (an unset optional input) leaves the device as it is.
        if matches!(&value, Value::Null) || matches!(&value, Value::Str(x) if x == "null") {
            return Ok(());
        }
        // A write that leaves the state as it was (the same value, and with `--conflicts` the
        // same last writer) is recorded as a read: see `unchanged_write_is_a_read`.
        let new_writer = match (by, self.m.opts.conflicts) {
            (Some(app), true) => {
                let (w, last) = &self.st.writers[slot];
                *w as usize != app + 1 || last != &value
            }
            _ => false,
        };
        let changes = new_writer || !loose_eq(&self.st.attrs[slot], &value);
        self.touch(slot as u32, changes);
        if let (Some(app), true) = (by, self.m.opts.conflicts) {
            let (w, last) = &self.st.writers[slot];
            if *w != 0 && *w as usize != app + 1 && !loose_eq(last, &value) {
                let other = &self.m.apps[*w as usize - 1].name;
                self.conflict = Some(Box::new(crate::model::Conflict {
                    variable: format!("{}.{attr}", self.m.devices[dev as usize]),
                    app: self.m.apps[app].name.to_string(),
                    value: value.text(),
                    last_app: other.to_string(),
                    last_value: last.text(),
                }));
                return self.err(format!(
                    "{CONFLICT}apps {other} and {} both write `{attr}` of the {} device: {other} wrote {}, {} writes {}",
                    self.m.apps[app].name,
                    self.m.devices[dev as usize],
                    last.text(),
                    self.m.apps[app].name,
                    value.text()
                ));
            }
            self.st.writers[slot] = ((app + 1) as u8, value.clone());
        }
        if loose_eq(&self.st.attrs[slot], &value) {
            return Ok(());
        }
        self.st.attrs[slot] = value.clone();
        let text = match value {
            Value::Str(x) => x,
            v => v.text().into(),
        };
        let m = self.m;
        self.deliver(Some(dev), &m.slot_text[slot], &text)
    }

    fn set_mode(&mut self, mode: Text, _by: Option<usize>) -> R<()> {
        let o = self.m.mode_object();
        self.touch(o, *self.st.mode != *mode);
        if *self.st.mode == *mode {
            return Ok(());
        }
        self.st.mode = mode.clone();
        self.deliver(None, &Text::Static("mode"), &mode)
    }

    /// Runs the handlers subscribed to `attr` of `dev` (None: location/app) with `value`.
    fn deliver(&mut self, dev: Option<u16>, attr: &Text, value: &Text) -> R<()> {
        if self.depth > 24 {
            return Ok(());
        }
        // One `evt` for every handler: shared, and copied on write should one change it.
        let mut evt = None;
        for sub in &self.m.subs {
            let hit = sub.dev == dev
                && (sub.attr == **attr || (dev.is_none() && sub.attr == "location" && **attr == *"mode"))
                && sub.value.as_deref().is_none_or(|v| v == &**value);
            if !hit {
                continue;
            }
            let evt = evt.get_or_insert_with(|| self.event_value(dev, attr, value)).clone();
            let saved = (self.app, self.base);
            self.base = self.vars.len();
            self.app = sub.app;
            self.depth += 1;
            let r = match &sub.handler {
                Handler::Method(m) => self.call_method(sub.app, m, vec![evt]).map(|_| ()),
                Handler::Closure(c) => self.call_closure(c, vec![evt]).map(|_| ()),
            };
            self.depth -= 1;
            self.vars.truncate(self.base);
            self.app = saved.0;
            self.base = saved.1;
            match r {
                Err(Flow::Error(m, l)) => return Err(Flow::Error(m, l)),
                _ => {}
            }
        }
        Ok(())
    }

    /// The `evt` handlers get: a map of the few fields every event has; the rest (numeric
    /// values, description, ...) are derived on reading (see [`Ctx::member`]).
    fn event_value(&self, dev: Option<u16>, attr: &Text, value: &Text) -> Value {
        map(vec![
            (lit("name"), Value::Str(attr.clone())),
            (lit("value"), Value::Str(value.clone())),
            (lit("device"), dev.map_or(Value::Obj("location"), Value::Dev)),
            (lit("displayName"), dev.map_or(lit("location"), |d| Value::Str(self.m.device_text[d as usize].clone()))),
        ])
    }

    fn lookup(&mut self, name: &str) -> Option<Value> {
        self.vars[self.base..].iter().rev().find(|(n, _)| **n == *name).map(|p| p.1.clone())
    }

    fn set_local(&mut self, name: &str, v: Value) -> bool {
        match self.vars[self.base..].iter_mut().rev().find(|(n, _)| **n == *name) {
            Some(slot) => {
                slot.1 = v;
                true
            }
            None => false,
        }
    }

    /// A variable of the innermost scope.
    fn declare(&mut self, name: Name, v: Value) {
        self.vars.push((name, v));
    }

    /// Binds parameters to arguments (missing ones null, extra ones dropped).
    fn bind(&mut self, params: &[Name], args: Vec<Value>) {
        let mut args = args.into_iter();
        for p in params {
            self.vars.push((p.clone(), args.next().unwrap_or(Value::Null)));
        }
    }

    fn call_method(&mut self, app: usize, name: &str, args: Vec<Value>) -> R<Value> {
        let m = self.m;
        let Some(&mi) = m.apps[app].methods.get(name) else { return Ok(Value::Null) };
        // A method already running is not entered again (timers calling themselves).
        if self.running.contains(&(app, mi)) || self.running.len() > 40 {
            return Ok(Value::Null);
        }
        let method: &Method = &m.apps[app].script.methods[mi];
        let saved = (self.app, self.base);
        self.app = app;
        self.base = self.vars.len();
        self.bind(&method.params, args);
        self.running.push((app, mi));
        let r = self.block(&method.body);
        self.running.pop();
        self.vars.truncate(self.base);
        self.app = saved.0;
        self.base = saved.1;
        match r {
            Ok(v) => Ok(v),
            Err(Flow::Return(v)) => Ok(v),
            Err(Flow::Error(a, b)) => Err(Flow::Error(a, b)),
            Err(_) => Ok(Value::Null),
        }
    }

    fn call_closure(&mut self, c: &Arc<(Vec<Name>, Vec<Stmt>)>, args: Vec<Value>) -> R<Value> {
        let mark = self.vars.len();
        self.bind(&c.0, args);
        let r = self.block(&c.1);
        self.vars.truncate(mark);
        match r {
            Ok(v) | Err(Flow::Return(v)) => Ok(v),
            Err(Flow::Error(a, b)) => Err(Flow::Error(a, b)),
            Err(_) => Ok(Value::Null),
        }
    }

    /// Runs statements; the value is the last expression statement's (Groovy's implicit return).
    fn block(&mut self, body: &[Stmt]) -> R<Value> {
        let mut last = Value::Null;
        for st in body {
            last = self.stmt(st)?;
        }
        Ok(last)
    }

    fn scoped(&mut self, body: &[Stmt]) -> R<Value> {
        let mark = self.vars.len();
        let r = self.block(body);
        self.vars.truncate(mark);
        r
    }

    /// One pass of a loop body: whether the loop goes on (not after `break`).
    fn iteration(&mut self, body: &[Stmt]) -> R<bool> {
        if self.budget == 0 {
            return self.err("loop ran too long");
        }
        match self.scoped(body) {
            Err(Flow::Break) => Ok(false),
            Err(Flow::Continue) | Ok(_) => Ok(true),
            Err(f) => Err(f),
        }
    }

    fn stmt(&mut self, st: &Stmt) -> R<Value> {
        if self.budget == 0 {
            return self.err("handler ran too long (step budget exhausted: a loop that does not end?)");
        }
        self.budget -= 1;
        match st {
            Stmt::Expr(e, line) => {
                self.line = *line;
                self.expr(e)
            }
            Stmt::Def(n, init, line) => {
                self.line = *line;
                let v = match init {
                    Some(e) => self.expr(e)?,
                    None => Value::Null,
                };
                self.declare(n.clone(), v);
                Ok(Value::Null)
            }
            Stmt::If(c, a, b) => {
                if self.expr(c)?.truthy() {
                    self.scoped(a)
                } else {
                    self.scoped(b)
                }
            }
            Stmt::While(c, body) => {
                while self.expr(c)?.truthy() {
                    if !self.iteration(body)? {
                        break;
                    }
                }
                Ok(Value::Null)
            }
            Stmt::For(init, cond, update, body) => {
                let mark = self.vars.len();
                let r = (|| -> R<Value> {
                    for s in init {
                        self.stmt(s)?;
                    }
                    loop {
                        if let Some(c) = cond {
                            if !self.expr(c)?.truthy() {
                                break;
                            }
                        }
                        if !self.iteration(body)? {
                            break;
                        }
                        for u in update {
                            self.expr(u)?;
                        }
                    }
                    Ok(Value::Null)
                })();
                self.vars.truncate(mark);
                r
            }
            Stmt::ForIn(n, it, body) => {
                let items = self.expr(it)?.items();
                for x in items {
                    let mark = self.vars.len();
                    self.declare(n.clone(), x);
                    let r = self.block(body);
                    self.vars.truncate(mark);
                    match r {
                        Err(Flow::Break) => break,
                        Err(Flow::Continue) | Ok(_) => {}
                        Err(f) => return Err(f),
                    }
                }
                Ok(Value::Null)
            }
            Stmt::Switch(v, cases) => {
                let v = self.expr(v)?;
                let mut matched = false;
                for (vals, default, body) in cases {
                    if !matched {
                        for c in vals {
                            let cv = self.expr(c)?;
                            let hit = match &cv {
                                Value::List(l) => l.iter().any(|x| loose_eq(x, &v)),
                                _ => loose_eq(&cv, &v),
                            };
                            if hit {
                                matched = true;
                            }
                        }
                        matched |= *default;
                    }
                    if matched {
                        match self.scoped(body) {
                            Err(Flow::Break) => return Ok(Value::Null),
                            Err(f) => return Err(f),
                            Ok(_) => {}
                        }
                    }
                }
                Ok(Value::Null)
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.expr(e)?,
                    None => Value::Null,
                };
                Err(Flow::Return(v))
            }
            Stmt::Break => Err(Flow::Break),
            Stmt::Continue => Err(Flow::Continue),
            Stmt::Block(b) => self.scoped(b),
            Stmt::Try(body, catches, fin) => {
                let r = self.scoped(body);
                let r = match r {
                    Err(Flow::Error(m, l)) if m.starts_with(CONFLICT) => Err(Flow::Error(m, l)),
                    Err(Flow::Error(_, _)) if !catches.is_empty() => {
                        let mark = self.vars.len();
                        self.declare(catches[0].0.clone(), lit("exception"));
                        let r = self.block(&catches[0].1);
                        self.vars.truncate(mark);
                        r
                    }
                    r => r,
                };
                self.scoped(fin)?;
                r
            }
            Stmt::Throw(_) => self.err("exception thrown by the app"),
        }
    }

    fn args(&mut self, args: &[Arg]) -> R<(Vec<Value>, Vec<(String, Value)>)> {
        let mut pos = Vec::with_capacity(args.len());
        let mut named = Vec::new();
        for a in args {
            match a {
                Arg::Pos(e) => pos.push(self.expr(e)?),
                Arg::Named(n, e) => named.push((n.clone(), self.expr(e)?)),
            }
        }
        if !named.is_empty() {
            // Groovy passes named arguments as a leading map.
            pos.insert(0, map(named.iter().map(|(k, v)| (s(k), v.clone())).collect()));
        }
        Ok((pos, named))
    }

    /// Evaluates arguments whose values nothing reads, in order, for their effects (accesses,
    /// calls, errors) only.
    fn discard_args(&mut self, args: &[Arg]) -> R<()> {
        for a in args {
            match a {
                Arg::Pos(e) | Arg::Named(_, e) => self.discard(e)?,
            }
        }
        Ok(())
    }

    /// `expr` for a value nobody reads: interpolations and operators (pure once their operands
    /// are evaluated) are not built, their operands still run.
    fn discard(&mut self, e: &Expr) -> R<()> {
        match e {
            Expr::GStr(parts) => {
                for p in parts {
                    if let GPart::Expr(e) = p {
                        self.discard(e)?;
                    }
                }
                Ok(())
            }
            Expr::Binary(op, a, b) if *op != "&&" && *op != "||" => {
                self.discard(a)?;
                self.discard(b)
            }
            _ => self.expr(e).map(drop),
        }
    }

    fn expr(&mut self, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Null => Value::Null,
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Int(i) => Value::Int(*i),
            Expr::Dec(d) => Value::Dec(*d),
            Expr::Str(x) => Value::Str(Text::Shared(x.clone())),
            Expr::GStr(parts) => {
                // An interpolation inside takes an empty buffer (this one is out meanwhile).
                let mut out = std::mem::take(&mut self.text);
                out.clear();
                out.reserve(64);
                for p in parts {
                    match p {
                        GPart::Lit(l) => out.push_str(l),
                        GPart::Expr(e) => self.expr(e)?.text_into(&mut out),
                    }
                }
                let v = Value::Str(Text::Shared(out.as_str().into()));
                self.text = out;
                v
            }
            Expr::Var(n) => self.var(n),
            Expr::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.expr(i)?);
                }
                list(out)
            }
            Expr::Map(pairs) => {
                let mut out = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    let k = self.expr(k)?;
                    let v = self.expr(v)?;
                    map_put(&mut out, k, v);
                }
                map(out)
            }
            Expr::Member { obj, name, spread } => {
                // A field of a local map (`evt.value`), read in place: what `member` gives a map
                // holding the key, without copying the map's reference in and out.
                if let (Expr::Var(n), false) = (obj.as_ref(), *spread) {
                    let local = self.vars[self.base..].iter().rev().find(|(x, _)| **x == **n);
                    if let Some((_, Value::Map(m))) = local {
                        if let Some(v) = map_get_str(m, name) {
                            return Ok(v.clone());
                        }
                    }
                }
                let o = self.expr(obj)?;
                if *spread {
                    let mut out = Vec::new();
                    for x in o.items() {
                        out.push(self.member(&x, name)?);
                    }
                    list(out)
                } else {
                    self.member(&o, name)?
                }
            }
            Expr::Index(o, i) => {
                let o = self.expr(o)?;
                let i = self.expr(i)?;
                index(&o, &i, self)
            }
            Expr::Call { target, name, args, spread } => self.call(target.as_deref(), name, args, *spread)?,
            Expr::Closure(c) => Value::Closure(c.clone()),
            Expr::Unary(op, a) => {
                let v = self.expr(a)?;
                match *op {
                    "!" => Value::Bool(!v.truthy()),
                    "-" => match v {
                        Value::Int(i) => Value::Int(i.wrapping_neg()),
                        v => v.num().map_or(Value::Null, |f| Value::Dec(-f)),
                    },
                    _ => v,
                }
            }
            Expr::IncDec(op, t, post) => {
                let old = self.expr(t)?;
                let new = arith(op, &old, &Value::Int(1));
                self.assign(t, new.clone())?;
                if *post {
                    old
                } else {
                    new
                }
            }
            Expr::Binary(op, a, b) => {
                if *op == "&&" {
                    return Ok(Value::Bool(self.expr(a)?.truthy() && self.expr(b)?.truthy()));
                }
                if *op == "||" {
                    return Ok(Value::Bool(self.expr(a)?.truthy() || self.expr(b)?.truthy()));
                }
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                binary(op, &x, &y)
            }
            Expr::Ternary(c, a, b) => {
                if self.expr(c)?.truthy() {
                    self.expr(a)?
                } else {
                    self.expr(b)?
                }
            }
            Expr::Elvis(a, b) => {
                let v = self.expr(a)?;
                if v.truthy() {
                    v
                } else {
                    self.expr(b)?
                }
            }
            Expr::Assign { op, target, value } => {
                let v = self.expr(value)?;
                let v = if *op == "=" {
                    v
                } else {
                    let old = self.expr(target)?;
                    binary(&op[..op.len() - 1], &old, &v)
                };
                self.assign(target, v.clone())?;
                v
            }
            Expr::Range(a, b, incl) => {
                let (x, y) = (self.expr(a)?.num().unwrap_or(0.0) as i64, self.expr(b)?.num().unwrap_or(0.0) as i64);
                let hi = if *incl { y } else { y - 1 };
                list((x..=hi.min(x + 10_000)).map(Value::Int).collect())
            }
            Expr::Cast(a, ty) => {
                let v = self.expr(a)?;
                match ty.as_str() {
                    "Integer" | "int" | "Long" | "long" => v.num().map_or(Value::Null, |f| Value::Int(f as i64)),
                    "Double" | "double" | "Float" | "float" | "BigDecimal" => v.num().map_or(Value::Null, Value::Dec),
                    "String" => Value::Str(v.text().into()),
                    _ => v,
                }
            }
            Expr::New(ty, _) => match ty.as_str() {
                "Date" => Value::Int(NOW),
                "ArrayList" | "LinkedList" | "HashSet" => list(Vec::new()),
                "HashMap" | "LinkedHashMap" => map(Vec::new()),
                _ => Value::Null,
            },
        })
    }

    fn var(&mut self, n: &str) -> Value {
        if let Some(v) = self.lookup(n) {
            return v;
        }
        if let Some(v) = self.m.apps[self.app].settings.get(n) {
            return v.clone();
        }
        match n {
            "state" | "atomicState" => Value::Obj("state"),
            "location" => Value::Obj("location"),
            "log" => Value::Obj("log"),
            "app" => Value::Obj("app"),
            "settings" => Value::Obj("settings"),
            "Math" => Value::Obj("Math"),
            _ => {
                if self.m.apps[self.app].methods.contains_key(n) {
                    // A method named as a value (a handler reference).
                    return Value::Str(n.to_string().into());
                }
                Value::Null
            }
        }
    }

    fn state_get(&mut self, key: &str) -> Value {
        let o = self.m.state_object(self.app);
        self.touch(o, false);
        self.st.states[self.app].iter().find(|(k, _)| k == key).map_or(Value::Null, |(_, v)| v.clone())
    }

    fn state_set(&mut self, key: &str, v: Value) {
        let o = self.m.state_object(self.app);
        let st = &mut self.st.states[self.app];
        let at = st.iter().position(|(k, _)| k == key);
        // Storing the value a key already has (null for a key never set: reads cannot tell
        // the two apart) leaves the state as it was, and is recorded as a read.
        let same = at.map_or(v == Value::Null, |i| st[i].1 == v);
        self.acc.push(Access { object: o, write: !same });
        if same {
            return;
        }
        // A key holding null is not stored, so that equal states have one encoding.
        match (at, v) {
            (Some(i), Value::Null) => {
                st.remove(i);
            }
            (Some(i), v) => st[i].1 = v,
            (None, v) => {
                st.push((key.to_string().into(), v));
                st.sort_by(|a, b| a.0.cmp(&b.0));
            }
        }
    }

    fn attr(&mut self, dev: u16, name: &str) -> Value {
        match self.m.slot(dev, name) {
            Some(slot) => {
                self.touch(slot as u32, false);
                self.st.attrs[slot].clone()
            }
            None => Value::Null,
        }
    }

    fn member(&mut self, o: &Value, name: &str) -> R<Value> {
        Ok(match o {
            Value::Obj("state") => self.state_get(name),
            Value::Obj("settings") => self.m.apps[self.app].settings.get(name).cloned().unwrap_or(Value::Null),
            Value::Obj("location") => match name {
                "mode" | "currentMode" => {
                    let o = self.m.mode_object();
                    self.touch(o, false);
                    Value::Str(self.st.mode.clone())
                }
                "modes" => list(["home", "away", "night"].iter().map(|m| map(vec![(lit("name"), s(m))])).collect()),
                "contactBookEnabled" => Value::Bool(false),
                "name" => lit("home"),
                "helloHome" => Value::Obj("location"),
                "timeZone" | "zipCode" => Value::Null,
                "latitude" | "longitude" => Value::Dec(33.6),
                _ => Value::Null,
            },
            Value::Obj("app") => match name {
                "label" | "name" => s(&self.m.apps[self.app].name),
                "id" => lit("appID"),
                _ => Value::Null,
            },
            Value::Dev(d) => {
                let d = *d;
                if let Some(a) = name.strip_prefix("current") {
                    let a = lower_first(a);
                    return Ok(self.attr(d, &a));
                }
                if let Some(a) = name.strip_suffix("State") {
                    let v = self.attr(d, a);
                    return Ok(map(vec![(lit("value"), v), (lit("name"), s(a)), (lit("date"), Value::Int(NOW))]));
                }
                match name {
                    "displayName" | "label" | "name" => s(&format!("{} device", self.m.devices[d as usize])),
                    "id" | "deviceNetworkId" => s(&format!("device{d}")),
                    "size" => Value::Int(1),
                    _ => {
                        if self.m.slot(d, name).is_some() {
                            self.attr(d, name)
                        } else {
                            Value::Null
                        }
                    }
                }
            }
            Value::Map(m) => match map_get_str(m, name) {
                Some(v) => v.clone(),
                None => {
                    // Fields of an event derived from its value (an `evt` map has `value`).
                    let value = map_get_str(m, "value").cloned().unwrap_or(Value::Null);
                    let num = value.num();
                    match name {
                        "size" => Value::Int(m.len() as i64),
                        "doubleValue" | "floatValue" | "numericValue" | "numberValue" => {
                            num.map_or(Value::Null, Value::Dec)
                        }
                        "integerValue" | "longValue" => num.map_or(Value::Null, |f| Value::Int(f as i64)),
                        "stringValue" => s(&value.text()),
                        "isStateChange" | "physical" | "isPhysical" => Value::Bool(true),
                        "digital" | "isDigital" => Value::Bool(false),
                        "descriptionText" | "linkText" => map_get_str(m, "displayName").cloned().unwrap_or(Value::Null),
                        "date" | "dateValue" => Value::Int(NOW),
                        "source" => lit("DEVICE"),
                        "deviceId" | "id" => lit("deviceID0"),
                        "data" | "jsonData" => map(Vec::new()),
                        _ => Value::Null,
                    }
                }
            },
            Value::List(l) => match name {
                "size" => Value::Int(l.len() as i64),
                "first" => l.first().cloned().unwrap_or(Value::Null),
                "last" => l.last().cloned().unwrap_or(Value::Null),
                _ => {
                    // GPath: a property of every element.
                    let mut out = Vec::new();
                    for x in l.clone().iter() {
                        out.push(self.member(&x, name)?);
                    }
                    list(out)
                }
            },
            Value::Int(t) if name == "time" => Value::Int(*t),
            _ => Value::Null,
        })
    }

    /// Writes `v` where `target` names (a local, a state field, a map entry, a list item).
    fn assign(&mut self, target: &Expr, v: Value) -> R<()> {
        match target {
            Expr::Var(n) => {
                if !self.set_local(n, v.clone()) {
                    // Groovy script binding: an undeclared name becomes a variable.
                    self.declare(n.as_str().into(), v);
                }
                Ok(())
            }
            Expr::Member { obj, name, .. } => {
                if let Expr::Var(o) = obj.as_ref() {
                    if (o == "state" || o == "atomicState") && self.lookup(o).is_none() {
                        self.state_set(name, v);
                        return Ok(());
                    }
                    if o == "location" && name == "mode" && self.lookup(o).is_none() {
                        let app = self.app;
                        return self.set_mode(v.text().into(), Some(app));
                    }
                }
                let mut o = self.expr(obj)?;
                if let Value::Map(m) = &mut o {
                    map_put(Arc::make_mut(m), s(name), v);
                    return self.assign(obj, o);
                }
                Ok(())
            }
            Expr::Index(obj, i) => {
                if let Expr::Var(o) = obj.as_ref() {
                    if (o == "state" || o == "atomicState") && self.lookup(o).is_none() {
                        let k = self.expr(i)?.text();
                        self.state_set(&k, v);
                        return Ok(());
                    }
                }
                let mut o = self.expr(obj)?;
                let i = self.expr(i)?;
                match &mut o {
                    Value::Map(m) => map_put(Arc::make_mut(m), i, v),
                    Value::List(l) => {
                        let l = Arc::make_mut(l);
                        let k = i.num().unwrap_or(0.0) as usize;
                        if k < 10_000 {
                            if l.len() <= k {
                                l.resize(k + 1, Value::Null);
                            }
                            l[k] = v;
                        }
                    }
                    _ => return Ok(()),
                }
                self.assign(obj, o)
            }
            _ => Ok(()),
        }
    }

    fn call(&mut self, target: Option<&Expr>, name: &str, args: &[Arg], spread: bool) -> R<Value> {
        let Some(t) = target else { return self.call_free(name, args) };
        let o = self.expr(t)?;
        if o == Value::Obj("log") && !spread {
            // Logging returns null whatever it is given: its arguments run for their effects only.
            self.discard_args(args)?;
            return Ok(Value::Null);
        }
        if spread {
            let (a, _) = self.args(args)?;
            let mut out = Vec::new();
            for x in o.items() {
                out.push(self.method(&x, name, a.clone(), Some(t))?);
            }
            return Ok(list(out));
        }
        let (mut a, _) = self.args(args)?;
        if name == groovy::DYNAMIC && !a.is_empty() {
            let n = a.remove(0).text();
            return self.method(&o, &n, a, Some(t));
        }
        self.method(&o, name, a, Some(t))
    }

    fn call_free(&mut self, name: &str, args: &[Arg]) -> R<Value> {
        if let Some(Value::Closure(c)) = self.lookup(name) {
            let (a, _) = self.args(args)?;
            return self.call_closure(&c, a);
        }
        // Notifications, HTTP and events sent to the cloud do nothing (the match below gives
        // them null), so their messages and bodies are not built.
        if matches!(
            name,
            "sendPush"
                | "sendPushMessage"
                | "sendSms"
                | "sendSmsMessage"
                | "sendNotification"
                | "sendNotificationEvent"
                | "sendNotificationToContacts"
                | "httpPost"
                | "httpPostJson"
                | "httpGet"
                | "httpPut"
                | "httpDelete"
        ) && !self.m.apps[self.app].methods.contains_key(name)
        {
            self.discard_args(args)?;
            return Ok(Value::Null);
        }
        let (a, _) = self.args(args)?;
        let app = self.app;
        if self.m.apps[app].methods.contains_key(name) {
            return self.call_method(app, name, a);
        }
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        Ok(match name {
            "subscribe" => {
                self.subscribe(&a);
                Value::Null
            }
            "runIn" | "runOnce" => {
                let h = if matches!(arg(0), Value::Map(_)) { arg(2) } else { arg(1) };
                self.run_handler(h)?;
                Value::Null
            }
            n if n.starts_with("runEvery") => {
                let h = if matches!(arg(0), Value::Map(_)) { arg(1) } else { arg(0) };
                self.run_handler(h)?;
                Value::Null
            }
            "schedule" => {
                // In installed()/initialize() the Extractor makes it an event; elsewhere it runs.
                if self.installing.is_none() {
                    let h = if matches!(arg(0), Value::Map(_)) { arg(2) } else { arg(1) };
                    self.run_handler(h)?;
                }
                Value::Null
            }
            "setLocationMode" => {
                self.set_mode(arg(0).text().into(), Some(app))?;
                Value::Null
            }
            "now" => Value::Int(NOW),
            "timeToday" | "timeTodayAfter" => Value::Int(NOW),
            "timeOfDayIsBetween" => Value::Bool(true),
            "getSunriseAndSunset" => map(vec![(lit("sunrise"), Value::Int(NOW)), (lit("sunset"), Value::Int(NOW))]),
            "canSchedule" => Value::Bool(true),
            "getTemperatureScale" => lit("F"),
            "parseJson" => map(Vec::new()),
            "toDateTime" => Value::Int(NOW),
            "location" => Value::Obj("location"),
            _ => Value::Null,
        })
    }

    fn run_handler(&mut self, h: Value) -> R<()> {
        let app = self.app;
        match h {
            Value::Str(n) => {
                self.call_method(app, &n, Vec::new())?;
            }
            Value::Closure(c) => {
                let saved = self.base;
                self.base = self.vars.len();
                let r = self.call_closure(&c, Vec::new());
                self.vars.truncate(self.base);
                self.base = saved;
                r?;
            }
            _ => {}
        }
        Ok(())
    }

    fn subscribe(&mut self, a: &[Value]) {
        let Some(subs) = self.installing.as_mut() else { return };
        let app = self.app;
        let (target, ev, h) = match a.len() {
            2 => (a[0].clone(), None, a[1].clone()),
            n if n >= 3 => (a[0].clone(), Some(a[1].text()), a[2].clone()),
            _ => return,
        };
        let handler = match h {
            Value::Str(n) => Handler::Method(n.to_string()),
            Value::Closure(c) => Handler::Closure(c),
            _ => return,
        };
        let (attr, value) = match &ev {
            Some(e) => match e.split_once('.') {
                Some((a, v)) => (a.to_string(), Some(v.to_string())),
                None => (e.clone(), None),
            },
            None => (String::new(), None),
        };
        match target {
            Value::Obj("location") => {
                let attr = if attr.is_empty() || attr == "position" { "location".to_string() } else { attr };
                let value = if attr == "mode" { value } else { None };
                subs.push(Sub { app, dev: None, attr, value, handler });
            }
            Value::Obj("app") => subs.push(Sub { app, dev: None, attr: "app".into(), value: None, handler }),
            t => {
                for d in t.items() {
                    if let Value::Dev(d) = d {
                        subs.push(Sub {
                            app,
                            dev: Some(d),
                            attr: attr.clone(),
                            value: value.clone(),
                            handler: handler.clone(),
                        });
                    }
                }
            }
        }
    }

    /// Methods on values (devices, collections, strings, numbers, objects).
    fn method(&mut self, o: &Value, name: &str, a: Vec<Value>, path: Option<&Expr>) -> R<Value> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        let app = self.app;
        match o {
            Value::Obj("log") => return Ok(Value::Null),
            Value::Obj("location") => {
                return Ok(match name {
                    "setMode" => {
                        self.set_mode(arg(0).text().into(), Some(app))?;
                        Value::Null
                    }
                    "currentState" | "currentValue" => {
                        let o = self.m.mode_object();
                        self.touch(o, false);
                        Value::Str(self.st.mode.clone())
                    }
                    _ => Value::Null,
                })
            }
            Value::Obj("state") => return Ok(Value::Null),
            Value::Obj("Math") => {
                let x = arg(0).num().unwrap_or(0.0);
                let y = arg(1).num().unwrap_or(0.0);
                return Ok(match name {
                    "abs" => Value::Dec(x.abs()),
                    "max" => Value::Dec(x.max(y)),
                    "min" => Value::Dec(x.min(y)),
                    "round" => Value::Int(x.round() as i64),
                    "floor" => Value::Dec(x.floor()),
                    "ceil" => Value::Dec(x.ceil()),
                    _ => Value::Null,
                });
            }
            Value::Closure(c) if name == "call" => return self.call_closure(c, a),
            Value::Str(n) if name == "call" => {
                let n = n.clone();
                return self.call_method(app, &n, a);
            }
            Value::Dev(d) => {
                if let Some(v) = self.device_method(*d, name, &a)? {
                    return Ok(v);
                }
            }
            _ => {}
        }
        // Mutating collection methods write the result back to where the collection came from.
        if let (Value::List(_) | Value::Map(_) | Value::Null, Some(p)) = (o, path) {
            if matches!(name, "add" | "push" | "put" | "remove" | "clear" | "addAll" | "putAll" | "leftShift") {
                let mut c = if *o == Value::Null && name == "put" { map(Vec::new()) } else { o.clone() };
                if *o == Value::Null && name != "put" {
                    c = list(Vec::new());
                }
                let r = mutate(&mut c, name, &a);
                self.assign(p, c)?;
                return Ok(r);
            }
        }
        self.collection(o, name, a)
    }

    /// Device commands and queries; None when `name` is not a device method.
    fn device_method(&mut self, d: u16, name: &str, a: &[Value]) -> R<Option<Value>> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        let app = Some(self.app);
        let has = |x: &str| self.m.slot(d, x).is_some();
        let set = |cx: &mut Self, attr: &str, v: Value| {
            // The static footprints (`footprint.rs`) take a command's writes from this table.
            debug_assert!(
                footprint::command_attrs(name).contains(&attr),
                "{name} writes {attr}: add it to command_attrs"
            );
            cx.set_attr(d, attr, v, app)
        };
        match name {
            "currentValue" | "latestValue" => return Ok(Some(self.attr(d, &arg(0).text()))),
            "currentState" | "latestState" => {
                let v = self.attr(d, &arg(0).text());
                return Ok(Some(map(vec![(lit("value"), v), (lit("date"), Value::Int(NOW))])));
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
                for attr in ["valve", "door", "contact"] {
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
                    for (k, attr) in [("hue", "hue"), ("saturation", "saturation"), ("level", "level")] {
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
        Ok(Some(Value::Null))
    }

    /// Groovy's collection, string and number methods.
    fn collection(&mut self, o: &Value, name: &str, a: Vec<Value>) -> R<Value> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        let closure = a.iter().rev().find_map(|v| match v {
            Value::Closure(c) => Some(c.clone()),
            _ => None,
        });
        // Closure-taking iteration methods.
        if let Some(c) = &closure {
            let items = o.items();
            let pair_args = |x: &Value| -> Vec<Value> {
                match (o, x, c.0.len()) {
                    (Value::Map(_), Value::Map(kv), 2) => {
                        vec![
                            map_get(kv, &lit("key")).cloned().unwrap_or(Value::Null),
                            map_get(kv, &lit("value")).cloned().unwrap_or(Value::Null),
                        ]
                    }
                    _ => vec![x.clone()],
                }
            };
            match name {
                "each" | "eachWithIndex" => {
                    for (i, x) in items.iter().enumerate() {
                        let mut args = pair_args(x);
                        if name == "eachWithIndex" {
                            args.push(Value::Int(i as i64));
                        }
                        self.call_closure(c, args)?;
                    }
                    return Ok(o.clone());
                }
                "find" => {
                    for x in &items {
                        if self.call_closure(c, pair_args(x))?.truthy() {
                            return Ok(x.clone());
                        }
                    }
                    return Ok(Value::Null);
                }
                "findAll" | "grep" => {
                    let mut out = Vec::new();
                    for x in &items {
                        if self.call_closure(c, pair_args(x))?.truthy() {
                            out.push(x.clone());
                        }
                    }
                    return Ok(list(out));
                }
                "any" | "every" | "count" => {
                    let mut n = 0;
                    for x in &items {
                        if self.call_closure(c, pair_args(x))?.truthy() {
                            n += 1;
                        }
                    }
                    return Ok(match name {
                        "any" => Value::Bool(n > 0),
                        "every" => Value::Bool(n == items.len()),
                        _ => Value::Int(n as i64),
                    });
                }
                "collect" | "collectMany" => {
                    let mut out = Vec::new();
                    for x in &items {
                        let v = self.call_closure(c, pair_args(x))?;
                        if name == "collectMany" {
                            out.extend(v.items());
                        } else {
                            out.push(v);
                        }
                    }
                    return Ok(list(out));
                }
                "sum" => {
                    let mut acc = Value::Int(0);
                    for x in &items {
                        let v = self.call_closure(c, pair_args(x))?;
                        acc = arith("+", &acc, &v);
                    }
                    return Ok(acc);
                }
                "inject" => {
                    let mut acc = arg(0);
                    for x in &items {
                        acc = self.call_closure(c, vec![acc, x.clone()])?;
                    }
                    return Ok(acc);
                }
                "times" => {
                    let n = o.num().unwrap_or(0.0) as i64;
                    for i in 0..n.min(10_000) {
                        self.call_closure(c, vec![Value::Int(i)])?;
                    }
                    return Ok(Value::Null);
                }
                "sort" | "max" | "min" | "groupBy" | "unique" => {
                    let mut keyed = Vec::new();
                    for x in &items {
                        keyed.push((self.call_closure(c, vec![x.clone()])?, x.clone()));
                    }
                    if c.0.len() < 2 {
                        keyed.sort_by(|p, q| compare(&p.0, &q.0).unwrap_or(std::cmp::Ordering::Equal));
                    }
                    return Ok(match name {
                        "max" => keyed.last().map_or(Value::Null, |p| p.1.clone()),
                        "min" => keyed.first().map_or(Value::Null, |p| p.1.clone()),
                        _ => list(keyed.into_iter().map(|p| p.1).collect()),
                    });
                }
                _ => {}
            }
        }
        Ok(match (o, name) {
            (_, "toString") => s(&o.text()),
            (_, "is" | "equals") => Value::Bool(loose_eq(o, &arg(0))),
            (Value::Str(x), _) => string_method(x, name, &a),
            (Value::Int(_) | Value::Dec(_), _) => match name {
                "toInteger" | "intValue" | "toLong" | "longValue" => Value::Int(o.num().unwrap_or(0.0) as i64),
                "toDouble" | "doubleValue" | "toFloat" | "floatValue" | "toBigDecimal" => {
                    Value::Dec(o.num().unwrap_or(0.0))
                }
                "round" => Value::Int(o.num().unwrap_or(0.0).round() as i64),
                "abs" => Value::Dec(o.num().unwrap_or(0.0).abs()),
                "plus" => arith("+", o, &arg(0)),
                "minus" => arith("-", o, &arg(0)),
                _ => Value::Null,
            },
            (Value::Map(m), _) => match name {
                "get" | "getAt" => map_get(m, &arg(0)).cloned().unwrap_or_else(|| arg(1)),
                "containsKey" => Value::Bool(map_get(m, &arg(0)).is_some()),
                "containsValue" => Value::Bool(m.iter().any(|(_, v)| loose_eq(v, &arg(0)))),
                "keySet" | "keys" => list(m.iter().map(|p| p.0.clone()).collect()),
                "values" => list(m.iter().map(|p| p.1.clone()).collect()),
                "size" => Value::Int(m.len() as i64),
                "isEmpty" => Value::Bool(m.is_empty()),
                _ => Value::Null,
            },
            (Value::Dev(_) | Value::List(_) | Value::Null, _) => {
                let l = o.items();
                match name {
                    "size" | "count" => Value::Int(if name == "count" {
                        l.iter().filter(|x| loose_eq(x, &arg(0))).count()
                    } else {
                        l.len()
                    } as i64),
                    "isEmpty" => Value::Bool(l.is_empty()),
                    "contains" => Value::Bool(l.iter().any(|x| loose_eq(x, &arg(0)))),
                    "first" | "head" => l.first().cloned().unwrap_or(Value::Null),
                    "last" => l.last().cloned().unwrap_or(Value::Null),
                    "get" | "getAt" => l.get(arg(0).num().unwrap_or(0.0) as usize).cloned().unwrap_or(Value::Null),
                    "indexOf" => Value::Int(l.iter().position(|x| loose_eq(x, &arg(0))).map_or(-1, |p| p as i64)),
                    "join" => s(&l.iter().map(Value::text).collect::<Vec<_>>().join(&match arg(0) {
                        Value::Null => String::new(),
                        v => v.text(),
                    })),
                    "sum" => l.iter().fold(Value::Int(0), |acc, x| arith("+", &acc, x)),
                    "max" => l
                        .iter()
                        .cloned()
                        .reduce(|p, q| if compare(&q, &p) == Some(std::cmp::Ordering::Greater) { q } else { p })
                        .unwrap_or(Value::Null),
                    "min" => l
                        .iter()
                        .cloned()
                        .reduce(|p, q| if compare(&q, &p) == Some(std::cmp::Ordering::Less) { q } else { p })
                        .unwrap_or(Value::Null),
                    "sort" => {
                        let mut l = l;
                        l.sort_by(|p, q| compare(p, q).unwrap_or(std::cmp::Ordering::Equal));
                        list(l)
                    }
                    "unique" | "toSet" => {
                        let mut out: Vec<Value> = Vec::new();
                        for x in l {
                            if !out.iter().any(|y| loose_eq(y, &x)) {
                                out.push(x);
                            }
                        }
                        list(out)
                    }
                    "reverse" => list(l.into_iter().rev().collect()),
                    "flatten" => list(l.iter().flat_map(Value::items).collect()),
                    "toList" | "asList" | "collect" => list(l),
                    "plus" => list(l.into_iter().chain(arg(0).items()).collect()),
                    "minus" => {
                        let r = arg(0).items();
                        list(l.into_iter().filter(|x| !r.iter().any(|y| loose_eq(x, y))).collect())
                    }
                    "intersect" => {
                        let r = arg(0).items();
                        list(l.into_iter().filter(|x| r.iter().any(|y| loose_eq(x, y))).collect())
                    }
                    _ => Value::Null,
                }
            }
            _ => Value::Null,
        })
    }
}

fn lower_first(x: &str) -> String {
    let mut c = x.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

fn num_text(v: &Value) -> String {
    match v.num() {
        Some(f) if f.fract() == 0.0 => (f as i64).to_string(),
        Some(f) => f.to_string(),
        None => v.text(),
    }
}

fn map_get<'a>(m: &'a [(Value, Value)], k: &Value) -> Option<&'a Value> {
    if let Value::Str(k) = k {
        return map_get_str(m, k);
    }
    m.iter().find(|(x, _)| loose_eq(x, k) || x.text() == k.text()).map(|p| &p.1)
}

/// Lookup by a string key without building one (maps are read on every `evt.value`).
fn map_get_str<'a>(m: &'a [(Value, Value)], k: &str) -> Option<&'a Value> {
    m.iter()
        .find(|(x, _)| match x {
            Value::Str(x) => x == k,
            other => other.text() == k,
        })
        .map(|p| &p.1)
}

fn map_put(m: &mut Vec<(Value, Value)>, k: Value, v: Value) {
    let slot = match &k {
        Value::Str(ks) => m.iter_mut().find(|(x, _)| {
            matches!(x, Value::Str(xs) if xs == ks) || (!matches!(x, Value::Str(_)) && x.text() == **ks)
        }),
        _ => m.iter_mut().find(|(x, _)| x.text() == k.text()),
    };
    match slot {
        Some(slot) => slot.1 = v,
        None => m.push((k, v)),
    }
}

fn mutate(c: &mut Value, name: &str, a: &[Value]) -> Value {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    match c {
        Value::List(l) => match (name, Arc::make_mut(l)) {
            ("add" | "push" | "leftShift", l) => {
                if l.len() < 10_000 {
                    l.push(arg(0));
                }
                Value::Bool(true)
            }
            ("addAll", l) => {
                l.extend(arg(0).items());
                Value::Bool(true)
            }
            ("remove", l) => match arg(0) {
                Value::Int(i) if (i as usize) < l.len() => l.remove(i as usize),
                v => {
                    let p = l.iter().position(|x| loose_eq(x, &v));
                    Value::Bool(p.map(|p| l.remove(p)).is_some())
                }
            },
            ("clear", l) => {
                l.clear();
                Value::Null
            }
            _ => Value::Null,
        },
        Value::Map(m) => match (name, Arc::make_mut(m)) {
            ("put", m) => {
                map_put(m, arg(0), arg(1));
                Value::Null
            }
            ("putAll", m) => {
                if let Value::Map(o) = arg(0) {
                    for (k, v) in o.iter().cloned() {
                        map_put(m, k, v);
                    }
                }
                Value::Null
            }
            ("remove", m) => {
                let k = arg(0).text();
                let p = m.iter().position(|(x, _)| x.text() == k);
                p.map(|p| m.remove(p).1).unwrap_or(Value::Null)
            }
            ("clear", m) => {
                m.clear();
                Value::Null
            }
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

fn string_method(x: &str, name: &str, a: &[Value]) -> Value {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    match name {
        "toInteger" | "toLong" | "intValue" => x.trim().parse::<f64>().map_or(Value::Null, |f| Value::Int(f as i64)),
        "toDouble" | "toFloat" | "toBigDecimal" => x.trim().parse::<f64>().map_or(Value::Null, Value::Dec),
        "isNumber" | "isInteger" | "isDouble" => Value::Bool(x.trim().parse::<f64>().is_ok()),
        "toLowerCase" => s(&x.to_lowercase()),
        "toUpperCase" => s(&x.to_uppercase()),
        "trim" => s(x.trim()),
        "size" | "length" => Value::Int(x.chars().count() as i64),
        "contains" => Value::Bool(x.contains(&arg(0).text())),
        "startsWith" => Value::Bool(x.starts_with(&arg(0).text())),
        "endsWith" => Value::Bool(x.ends_with(&arg(0).text())),
        "equalsIgnoreCase" => Value::Bool(x.eq_ignore_ascii_case(&arg(0).text())),
        "indexOf" => Value::Int(x.find(&arg(0).text()).map_or(-1, |p| p as i64)),
        "replace" | "replaceAll" => s(&x.replace(&arg(0).text(), &arg(1).text())),
        "capitalize" => {
            let mut c = x.chars();
            s(&c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default())
        }
        "split" | "tokenize" => {
            let sep = match arg(0) {
                Value::Null => " ".to_string(),
                v => v.text(),
            };
            list(x.split(sep.as_str()).filter(|p| !p.is_empty() || name == "split").map(s).collect())
        }
        "substring" => {
            let chars: Vec<char> = x.chars().collect();
            let i = (arg(0).num().unwrap_or(0.0) as usize).min(chars.len());
            let j = arg(1).num().map_or(chars.len(), |f| f as usize).clamp(i, chars.len());
            s(&chars[i..j].iter().collect::<String>())
        }
        "plus" => s(&format!("{x}{}", arg(0).text())),
        "isEmpty" => Value::Bool(x.is_empty()),
        _ => Value::Null,
    }
}

fn index(o: &Value, i: &Value, cx: &mut Ctx<'_>) -> Value {
    match o {
        Value::Obj("state") => cx.state_get(&i.text()),
        Value::Obj("settings") => cx.m.apps[cx.app].settings.get(&i.text()).cloned().unwrap_or(Value::Null),
        Value::Map(m) => map_get(m, i).cloned().unwrap_or(Value::Null),
        Value::List(l) => {
            let k = i.num().unwrap_or(0.0) as i64;
            let k = if k < 0 { l.len() as i64 + k } else { k };
            l.get(k as usize).cloned().unwrap_or(Value::Null)
        }
        Value::Dev(_) if i.num() == Some(0.0) => o.clone(),
        Value::Str(x) => x.chars().nth(i.num().unwrap_or(0.0) as usize).map_or(Value::Null, |c| s(&c.to_string())),
        _ => Value::Null,
    }
}

fn arith(op: &str, x: &Value, y: &Value) -> Value {
    match (x, y, op) {
        (Value::Str(a), _, "+") => s(&format!("{a}{}", y.text())),
        (Value::List(a), _, "+") => list(a.iter().cloned().chain(y.items()).collect()),
        (Value::List(a), _, "-") => {
            let r = y.items();
            list(a.iter().filter(|v| !r.iter().any(|w| loose_eq(v, w))).cloned().collect())
        }
        (Value::Int(a), Value::Int(b), _) => match op {
            "+" => Value::Int(a.wrapping_add(*b)),
            "-" => Value::Int(a.wrapping_sub(*b)),
            "*" => Value::Int(a.wrapping_mul(*b)),
            "/" if *b != 0 => {
                if a % b == 0 {
                    Value::Int(a / b)
                } else {
                    Value::Dec(*a as f64 / *b as f64)
                }
            }
            "%" if *b != 0 => Value::Int(a.wrapping_rem(*b)),
            "**" => Value::Int(a.wrapping_pow((*b).clamp(0, 62) as u32)),
            _ => Value::Null,
        },
        _ => match (x.num(), y.num()) {
            (Some(a), Some(b)) => match op {
                "+" => Value::Dec(a + b),
                "-" => Value::Dec(a - b),
                "*" => Value::Dec(a * b),
                "/" if b != 0.0 => Value::Dec(a / b),
                "%" if b != 0.0 => Value::Dec(a % b),
                "**" => Value::Dec(a.powf(b)),
                _ => Value::Null,
            },
            _ => Value::Null,
        },
    }
}

fn binary(op: &str, x: &Value, y: &Value) -> Value {
    use std::cmp::Ordering::*;
    match op {
        "==" => Value::Bool(loose_eq(x, y)),
        "!=" => Value::Bool(!loose_eq(x, y)),
        "<" => Value::Bool(compare(x, y) == Some(Less)),
        "<=" => Value::Bool(matches!(compare(x, y), Some(Less | Equal))),
        ">" => Value::Bool(compare(x, y) == Some(Greater)),
        ">=" => Value::Bool(matches!(compare(x, y), Some(Greater | Equal))),
        "<=>" => Value::Int(match compare(x, y) {
            Some(Less) => -1,
            Some(Greater) => 1,
            _ => 0,
        }),
        "in" => Value::Bool(match y {
            Value::Map(m) => map_get(m, x).is_some(),
            _ => y.items().iter().any(|v| loose_eq(v, x)),
        }),
        "instanceof" => Value::Bool(true),
        "=~" | "==~" => Value::Bool(x.text().contains(&y.text())),
        "<<" => match x {
            Value::List(l) => list(l.iter().cloned().chain([y.clone()]).collect()),
            _ => Value::Null,
        },
        "&" | "|" | "^" => match (x, y) {
            (Value::Bool(a), Value::Bool(b)) => Value::Bool(match op {
                "&" => a & b,
                "|" => a | b,
                _ => a ^ b,
            }),
            _ => Value::Null,
        },
        _ => arith(op, x, y),
    }
}

/// Calls `f` on every call expression of a script (top level and methods, inside closures,
/// arguments and maps too), in source order.
fn each_call(script: &Script, f: &mut dyn FnMut(&Expr)) {
    fn stmts(body: &[Stmt], f: &mut dyn FnMut(&Expr)) {
        for st in body {
            match st {
                Stmt::Expr(e, _) | Stmt::Def(_, Some(e), _) | Stmt::Return(Some(e)) => expr(e, f),
                Stmt::If(c, a, b) => {
                    expr(c, f);
                    stmts(a, f);
                    stmts(b, f);
                }
                Stmt::Block(b) | Stmt::While(_, b) | Stmt::ForIn(_, _, b) | Stmt::For(_, _, _, b) => stmts(b, f),
                Stmt::Switch(_, cases) => cases.iter().for_each(|c| stmts(&c.2, f)),
                Stmt::Try(a, c, fin) => {
                    stmts(a, f);
                    c.iter().for_each(|c| stmts(&c.1, f));
                    stmts(fin, f);
                }
                _ => {}
            }
        }
    }
    fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
        match e {
            Expr::Call { target, args, .. } => {
                f(e);
                if let Some(t) = target {
                    expr(t, f);
                }
                for a in args {
                    match a {
                        Arg::Pos(e) | Arg::Named(_, e) => expr(e, f),
                    }
                }
            }
            Expr::Closure(c) => stmts(&c.1, f),
            Expr::Map(m) => m.iter().for_each(|(_, v)| expr(v, f)),
            _ => {}
        }
    }
    stmts(&script.top, f);
    for m in &script.methods {
        stmts(&m.body, f);
    }
}

/// Every `input` of a script: (name, type, options/default).
fn inputs(script: &Script) -> Vec<(String, String, Value)> {
    fn literal(e: Option<&Expr>) -> Option<Value> {
        match e? {
            Expr::Str(x) => Some(s(x)),
            Expr::Int(i) => Some(Value::Int(*i)),
            Expr::Dec(d) => Some(Value::Dec(*d)),
            Expr::Bool(b) => Some(Value::Bool(*b)),
            _ => None,
        }
    }
    let mut out = Vec::new();
    each_call(script, &mut |e| {
        let Expr::Call { target: None, name, args, .. } = e else { return };
        if name != "input" {
            return;
        }
        let mut pos = Vec::new();
        let mut named = HashMap::new();
        for a in args {
            match a {
                Arg::Pos(Expr::Str(x)) => pos.push(x.to_string()),
                Arg::Named(n, v) => {
                    named.insert(n.as_str(), v);
                }
                _ => {}
            }
        }
        let by_name = |key: &str| match named.get(key) {
            Some(Expr::Str(x)) => Some(x.to_string()),
            _ => None,
        };
        let (Some(n), Some(t)) =
            (pos.first().cloned().or_else(|| by_name("name")), pos.get(1).cloned().or_else(|| by_name("type")))
        else {
            return;
        };
        let default = literal(named.get("defaultValue").copied())
            .or_else(|| match named.get("options").copied() {
                Some(Expr::List(l)) => literal(l.first()),
                Some(Expr::Map(m)) => literal(m.first().map(|p| &p.0)),
                _ => None,
            })
            .unwrap_or(Value::Null);
        out.push((n, t, default));
    });
    out
}

/// The value IoTCheck's Extractor gives an input of a non-device type.
fn setting_value(ty: &str, default: Value) -> Value {
    if default != Value::Null {
        return default;
    }
    match ty {
        "number" | "decimal" => Value::Int(5),
        "bool" | "boolean" => Value::Bool(true),
        "time" => lit("15:00"),
        "mode" => lit("home"),
        "phone" | "contact" => lit("1234567890"),
        "enum" | "text" | "string" | "password" | "email" => lit("text"),
        _ => Value::Null,
    }
}

/// Subscribe calls in source order (statically): (variable or `location`/`app`, event name).
fn subscribe_calls(script: &Script) -> Vec<(String, String)> {
    let mut out = Vec::new();
    each_call(script, &mut |e| {
        let Expr::Call { target: None, name, args, .. } = e else { return };
        if name != "subscribe" {
            return;
        }
        let var = match args.first() {
            Some(Arg::Pos(Expr::Var(v))) => v.clone(),
            Some(Arg::Pos(Expr::Member { name, .. })) => name.clone(),
            _ => String::new(),
        };
        let ev = match args.get(1) {
            Some(Arg::Pos(Expr::Str(x))) if args.len() >= 3 => x.to_string(),
            _ if var == "location" => "location".into(),
            _ if var == "app" => "app".into(),
            _ => String::new(),
        };
        out.push((var, ev));
    });
    out
}

/// `schedule(..., handler)` opening installed()/initialize(): IoTCheck's Extractor makes it an
/// event (a `schedule` elsewhere is not one; counting those too matches the paper less often).
fn opening_schedule(script: &Script) -> Vec<String> {
    let mut out = Vec::new();
    for m in &script.methods {
        if m.name != "installed" && m.name != "initialize" {
            continue;
        }
        if let Some(Stmt::Expr(Expr::Call { target: None, name, args, .. }, _)) = m.body.first() {
            if name == "schedule" {
                match args.get(1) {
                    Some(Arg::Pos(Expr::Str(h))) => out.push(h.to_string()),
                    Some(Arg::Pos(Expr::Var(h))) => out.push(h.clone()),
                    _ => {}
                }
            }
        }
    }
    out
}

/// Parses the apps and builds the system they form.
pub fn load(files: &[PathBuf], opts: SmartAppOptions) -> Result<SmartAppModel, InputError> {
    let mut parsed = Vec::new();
    for f in files {
        let bytes = crate::trace::input::read(f)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| InputError::file(f, "not UTF-8 text"))?;
        let script = groovy::parse(f, text)?;
        parsed.push((f.clone(), script));
    }
    build(parsed, opts)
}

/// The name an app goes by in reports: its file stem.
fn app_name(p: &Path) -> String {
    p.file_stem().map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into_owned())
}

fn build(parsed: Vec<(PathBuf, Script)>, opts: SmartAppOptions) -> Result<SmartAppModel, InputError> {
    if parsed.len() > 250 {
        return Err(InputError::file(&parsed[0].0, "too many apps in one system (at most 250)"));
    }
    let mut devices: Vec<String> = Vec::new();
    let mut apps = Vec::new();
    for (path, script) in parsed {
        let mut settings = FxHashMap::default();
        for (name, ty, default) in inputs(&script) {
            let v = if ty.starts_with("capability.") || ty.starts_with("device.") {
                let cap = ty.split('.').nth(1).unwrap_or("").to_string();
                let d = devices.iter().position(|c| *c == cap).unwrap_or_else(|| {
                    devices.push(cap.clone());
                    devices.len() - 1
                });
                Value::Dev(d as u16)
            } else {
                setting_value(&ty, default)
            };
            settings.entry(name).or_insert(v);
        }
        let methods = script.methods.iter().enumerate().map(|(i, m)| (m.name.clone(), i)).collect();
        apps.push(App { name: app_name(&path), script, methods, settings });
    }
    // Attribute slots: each device's capability attributes, plus any subscribed attribute.
    let mut slots: Vec<(u16, String)> = Vec::new();
    let mut init_attrs = Vec::new();
    for (d, cap) in devices.iter().enumerate() {
        for (a, v) in capability_attrs(cap) {
            slots.push((d as u16, a.to_string()));
            init_attrs.push(match v.parse::<i64>() {
                Ok(_) => s(v),
                Err(_) => s(v),
            });
        }
    }
    // The environment's events, as IoTCheck's Extractor lists them.
    let mut events = Vec::new();
    // Grouped by event type and device (None: location, app, sun): a subscription to a value
    // (`contact.open`) adds that value, one without adds every value of the type. Counted so,
    // the pairs' event numbers match the paper's Evt. (see docs/smartapps.md).
    let mut groups: Vec<(String, Option<u16>, Vec<String>, usize)> = Vec::new();
    for (ai, app) in apps.iter().enumerate() {
        for h in opening_schedule(&app.script) {
            events.push(EnvEvent {
                name: format!("schedule.{}.{h}", app.name),
                dev: None,
                attr: Text::Static("schedule"),
                value: Text::Static(""),
                run: Some((ai, h)),
            });
        }
        for (var, ev) in subscribe_calls(&app.script) {
            if ev == "unlock" || ev.is_empty() {
                continue;
            }
            let ty = event_type(&ev);
            let value = ev.split_once('.').map(|(_, v)| v.to_string()).filter(|_| !ev.starts_with("water."));
            let dev = match app.settings.get(&var) {
                Some(Value::Dev(d)) if var != "location" => Some(*d),
                _ => None,
            };
            // A subscription to one value counts for its app alone; a whole event type once for
            // all apps (what reproduces the paper's Evt., docs/smartapps.md).
            let owner_app = if value.is_some() { ai } else { usize::MAX };
            let values: Vec<String> = match value {
                Some(v) => vec![v],
                None => event_values(&ty).iter().map(|v| v.to_string()).collect(),
            };
            match groups.iter_mut().find(|g| g.0 == ty && g.1 == dev && g.3 == owner_app) {
                Some(g) => {
                    for v in values {
                        if !g.2.contains(&v) {
                            g.2.push(v);
                        }
                    }
                }
                None => groups.push((ty, dev, values, owner_app)),
            }
        }
    }
    for (ty, dev, values, ai) in groups {
        let attr = match ty.as_str() {
            "water.dry" | "water.wet" => "water".to_string(),
            "doorState" => "door".to_string(),
            "location" => "mode".to_string(),
            t => t.to_string(),
        };
        if let Some(d) = dev {
            if !slots.iter().any(|(x, a)| *x == d && *a == attr) {
                slots.push((d, attr.clone()));
                init_attrs.push(Value::Null);
            }
        }
        let owner = dev.map_or_else(|| "location".to_string(), |d| devices[d as usize].clone());
        for v in values {
            // Two apps may subscribe to the same event: IoTCheck fires it once per app.
            let mut name = format!("{owner}.{attr}.{}", v.replace([' ', ',', '*'], "_"));
            if events.iter().any(|e| e.name == name) {
                name = format!("{name}.{}", apps[ai.min(apps.len() - 1)].name);
            }
            events.push(EnvEvent { name, dev, attr: attr.clone().into(), value: v.into(), run: None });
        }
    }
    let mut slot_of = vec![Vec::new(); devices.len()];
    for (i, (d, a)) in slots.iter().enumerate() {
        slot_of[*d as usize].push((a.clone(), i));
    }
    let nslots = slots.len();
    let slot_text = slots.iter().map(|(_, a)| Text::from(a.clone())).collect();
    let device_text = devices.iter().map(|d| Text::from(d.clone())).collect();
    let mut model = SmartAppModel {
        apps,
        devices,
        slots,
        slot_of,
        slot_text,
        device_text,
        subs: Vec::new(),
        events,
        init: SmartState {
            attrs: init_attrs,
            mode: Text::Static("home"),
            states: Vec::new(),
            // Kept (and copied with each state) only where conflicts are checked.
            writers: vec![(0, Value::Null); if opts.conflicts { nslots } else { 0 }],
            fired: Vec::new(),
        },
        opts,
    };
    model.init.states = vec![Vec::new(); model.apps.len()];
    model.init.fired = vec![0; model.events.len()];
    // Install every app (IoTCheck runs installed() first): subscriptions, initial state.
    let mut st = model.init.clone();
    let mut subs = Vec::new();
    for ai in 0..model.apps.len() {
        let mut cx = Ctx {
            m: &model,
            st: &mut st,
            acc: Vec::new(),
            app: ai,
            vars: Vec::with_capacity(16),
            base: 0,
            text: String::new(),
            running: Vec::new(),
            budget: 200_000,
            depth: 0,
            line: 0,
            installing: Some(Vec::new()),
            conflict: None,
        };
        let entry = if model.apps[ai].methods.contains_key("installed") { "installed" } else { "initialize" };
        let _ = cx.call_method(ai, entry, Vec::new());
        subs.extend(cx.installing.take().unwrap_or_default());
    }
    // Installing is not part of the checked executions: no conflicts from it.
    st.writers.iter_mut().for_each(|w| *w = (0, Value::Null));
    model.init = st;
    model.subs = subs;
    Ok(model)
}

impl SmartAppModel {
    /// Names of the apps, in load order.
    pub fn app_names(&self) -> Vec<&str> {
        self.apps.iter().map(|a| a.name.as_str()).collect()
    }
    /// The environment's event names, in choice order.
    pub fn event_names(&self) -> Vec<&str> {
        self.events.iter().map(|e| e.name.as_str()).collect()
    }
    /// Capabilities of the devices, in order.
    pub fn device_names(&self) -> &[String] {
        &self.devices
    }
}

fn encode_value(v: &Value, out: &mut Vec<u32>) {
    match v {
        Value::Null => out.push(0),
        Value::Bool(b) => out.extend([1, *b as u32]),
        Value::Int(i) => out.extend([2, *i as u32, (*i >> 32) as u32]),
        Value::Dec(d) => {
            let b = d.to_bits();
            out.extend([3, b as u32, (b >> 32) as u32]);
        }
        Value::Str(x) => encode_str(x, 4, out),
        Value::List(l) => {
            out.extend([5, l.len() as u32]);
            l.iter().for_each(|x| encode_value(x, out));
        }
        Value::Map(m) => {
            out.extend([6, m.len() as u32]);
            for (k, v) in m.iter() {
                encode_value(k, out);
                encode_value(v, out);
            }
        }
        Value::Dev(d) => out.extend([7, *d as u32]),
        Value::Closure(c) => {
            // The closure's AST node: shared by every evaluation of the same expression.
            let p = Arc::as_ptr(c) as usize as u64;
            out.extend([8, p as u32, (p >> 32) as u32]);
        }
        Value::Obj(o) => encode_str(o, 9, out),
    }
}

fn encode_str(x: &str, tag: u32, out: &mut Vec<u32>) {
    let b = x.as_bytes();
    out.reserve(2 + b.len().div_ceil(4));
    out.extend([tag, b.len() as u32]);
    let words = b.chunks_exact(4);
    let rest = words.remainder();
    out.extend(words.map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    if !rest.is_empty() {
        // Little-endian, zero-padded (as u32::from_le_bytes of the last bytes and zeros).
        out.push(rest.iter().rev().fold(0u32, |w, &c| (w << 8) | c as u32));
    }
}

/// Feeds a value to a hasher as [`encode_value`] would write it (the same parts, so equal
/// encodings hash alike), without building the encoding; the words it would take.
fn hash_value(v: &Value, h: &mut FxHasher) -> usize {
    match v {
        Value::Null => {
            h.write_u8(0);
            1
        }
        Value::Bool(b) => {
            h.write_u8(1);
            h.write_u8(*b as u8);
            2
        }
        Value::Int(i) => {
            h.write_u8(2);
            h.write_i64(*i);
            3
        }
        Value::Dec(d) => {
            h.write_u8(3);
            h.write_u64(d.to_bits());
            3
        }
        Value::Str(x) => hash_str(x, 4, h),
        Value::List(l) => {
            h.write_u8(5);
            h.write_usize(l.len());
            2 + l.iter().map(|x| hash_value(x, h)).sum::<usize>()
        }
        Value::Map(m) => {
            h.write_u8(6);
            h.write_usize(m.len());
            2 + m.iter().map(|(k, v)| hash_value(k, h) + hash_value(v, h)).sum::<usize>()
        }
        Value::Dev(d) => {
            h.write_u8(7);
            h.write_u16(*d);
            2
        }
        Value::Closure(c) => {
            h.write_u8(8);
            h.write_usize(Arc::as_ptr(c) as usize);
            3
        }
        Value::Obj(o) => hash_str(o, 9, h),
    }
}

fn hash_str(x: &str, tag: u8, h: &mut FxHasher) -> usize {
    let b = x.as_bytes();
    h.write_u64(((tag as u64) << 32) | b.len() as u64);
    let n = b.len();
    if n <= 8 {
        // Most texts (attribute values, keys) are short: one word of their bytes (with the
        // length written above, the first and last four, or the first, middle and last).
        let w = if n >= 4 {
            let first = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
            let last = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
            (last << 32) | first
        } else if n > 0 {
            ((b[0] as u64) << 16) | ((b[n / 2] as u64) << 8) | b[n - 1] as u64
        } else {
            0
        };
        h.write_u64(w);
    } else {
        h.write(b);
    }
    2 + b.len().div_ceil(4)
}

/// Whether two values have the same encoding ([`encode_value`]), without encoding them: the
/// same variant and contents, decimals by their bits, closures by identity; shared lists and
/// maps are equal at once.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Dec(x), Value::Dec(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => text_shared(x, y) || **x == **y,
        (Value::List(x), Value::List(y)) => {
            Arc::ptr_eq(x, y) || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_value(p, q)))
        }
        (Value::Map(x), Value::Map(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter().zip(y.iter()).all(|(p, q)| same_value(&p.0, &q.0) && same_value(&p.1, &q.1)))
        }
        (Value::Dev(x), Value::Dev(y)) => x == y,
        (Value::Closure(x), Value::Closure(y)) => Arc::ptr_eq(x, y),
        (Value::Obj(x), Value::Obj(y)) => x == y,
        _ => false,
    }
}

impl Model for SmartAppModel {
    type State = SmartState;

    fn kind(&self) -> crate::model::ModelKind {
        crate::model::ModelKind::SmartApps
    }
    fn paths_are_finite(&self) -> bool {
        self.opts.bound.is_some()
    }
    fn load_flags(&self) -> String {
        crate::model::load_flags(self.opts.bound, self.opts.conflicts)
    }
    fn choices(&self) -> u32 {
        self.events.len() as u32
    }
    fn initial(&self) -> SmartState {
        self.init.clone()
    }
    fn enabled(&self, s: &SmartState, out: &mut Vec<Choice>) {
        out.extend((0..self.events.len()).filter(|&e| self.is_enabled(s, e)).map(|e| e as Choice));
    }
    fn accesses(&self, s: &SmartState, c: Choice, out: &mut Accesses) {
        let mut copy = s.clone();
        let _ = self.step_recording(&mut copy, c, out);
    }
    fn step(&self, s: &mut SmartState, c: Choice) -> Result<(), ModelError> {
        let mut acc = Vec::new();
        self.fire(s, c as usize, &mut acc)
    }
    fn step_recording(&self, s: &mut SmartState, c: Choice, out: &mut Accesses) -> Result<(), ModelError> {
        let mut acc = Vec::with_capacity(32);
        let r = self.fire(s, c as usize, &mut acc);
        // One entry per object, a write subsuming reads.
        acc.sort_by_key(|a| (a.object, !a.write));
        let mut last: Option<u32> = None;
        for a in acc {
            if last != Some(a.object) {
                out.push(a);
                last = Some(a.object);
            }
        }
        r
    }
    fn encode(&self, s: &SmartState, out: &mut Vec<u32>) {
        s.attrs.iter().for_each(|v| encode_value(v, out));
        encode_str(&s.mode, 4, out);
        for st in &s.states {
            out.push(st.len() as u32);
            for (k, v) in st {
                encode_str(k, 4, out);
                encode_value(v, out);
            }
        }
        if self.opts.conflicts {
            for (w, v) in &s.writers {
                out.push(*w as u32);
                encode_value(v, out);
            }
        }
        if self.opts.bound.is_some() {
            out.extend(&s.fired);
        }
    }
    /// Hashes the parts [`Model::encode`] writes (under the same options) without encoding:
    /// `same_encoding` below needs no encoding either.
    fn state_hash(&self, s: &SmartState, enc: &mut Vec<u32>) -> (u64, usize) {
        enc.clear();
        let mut h = FxHasher::default();
        let mut words = 0;
        for v in &s.attrs {
            words += hash_value(v, &mut h);
        }
        words += hash_str(&s.mode, 4, &mut h);
        for st in &s.states {
            h.write_usize(st.len());
            words += 1;
            for (k, v) in st {
                words += hash_str(k, 4, &mut h) + hash_value(v, &mut h);
            }
        }
        if self.opts.conflicts {
            for (w, v) in &s.writers {
                h.write_u8(*w);
                words += 1 + hash_value(v, &mut h);
            }
        }
        if self.opts.bound.is_some() {
            s.fired.iter().for_each(|&f| h.write_u32(f));
            words += s.fired.len();
        }
        (h.finish(), words)
    }
    /// Compares the two states part by part as [`Model::encode`] writes them (the same parts
    /// under the same options), so a stored state need not be encoded again on a hash hit.
    fn same_encoding(&self, s: &SmartState, t: &SmartState, _enc: &[u32], _scratch: &mut Vec<u32>) -> bool {
        s.attrs.len() == t.attrs.len()
            && s.attrs.iter().zip(&t.attrs).all(|(a, b)| same_value(a, b))
            && *s.mode == *t.mode
            && s.states.len() == t.states.len()
            && s.states.iter().zip(&t.states).all(|(a, b)| {
                a.len() == b.len() && a.iter().zip(b).all(|(p, q)| *p.0 == *q.0 && same_value(&p.1, &q.1))
            })
            && (!self.opts.conflicts
                || (s.writers.len() == t.writers.len()
                    && s.writers.iter().zip(&t.writers).all(|(a, b)| a.0 == b.0 && same_value(&a.1, &b.1))))
            && (self.opts.bound.is_none() || s.fired == t.fired)
    }
    fn outcome(&self, s: &SmartState) -> Outcome {
        let mut text = String::from("attrs");
        for (i, (d, a)) in self.slots.iter().enumerate() {
            text.push_str(&format!(" {}.{}={}", self.devices[*d as usize], a, s.attrs[i].text()));
        }
        text.push_str(&format!(" | mode={}", s.mode));
        for (ai, st) in s.states.iter().enumerate() {
            if !st.is_empty() {
                text.push_str(&format!(" | state {}:", self.apps[ai].name));
                for (k, v) in st {
                    text.push_str(&format!(" {k}={}", v.text()));
                }
            }
        }
        if self.opts.bound.is_some() {
            text.push_str(&format!(" | fired {:?}", s.fired));
        }
        Outcome::SmartApps { state: text }
    }
    fn choice_name(&self, c: Choice) -> String {
        self.events.get(c as usize).map_or_else(|| format!("#{c}"), |e| e.name.clone())
    }
    fn parse_choice(&self, name: &str) -> Option<Choice> {
        self.events.iter().position(|e| e.name == name).map(|i| i as Choice)
    }
    fn describe(&self, s: &SmartState, c: Choice) -> String {
        let mut acc = Accesses::new();
        self.accesses(s, c, &mut acc);
        let names: Vec<String> = acc
            .iter()
            .map(|a| format!("{}{}", if a.write { "W " } else { "R " }, self.object_name(a.object)))
            .collect();
        format!("event {}: {}", self.choice_name(c), names.join(", "))
    }
    fn object_name(&self, object: u32) -> String {
        let o = object as usize;
        if o < self.slots.len() {
            let (d, a) = &self.slots[o];
            format!("{}.{}", self.devices[*d as usize], a)
        } else if o == self.slots.len() {
            "location.mode".into()
        } else if o - self.slots.len() - 1 < self.apps.len() {
            format!("state of {}", self.apps[o - self.slots.len() - 1].name)
        } else {
            format!("#{object}")
        }
    }
    fn explain_step(&self, before: &SmartState, after: &SmartState, _c: Choice) -> String {
        let mut parts = Vec::new();
        for i in 0..self.slots.len() {
            if before.attrs[i] != after.attrs[i] {
                parts.push(format!(
                    "{}: {} -> {}",
                    self.object_name(i as u32),
                    before.attrs[i].text(),
                    after.attrs[i].text()
                ));
            }
        }
        if before.mode != after.mode {
            parts.push(format!("mode: {} -> {}", before.mode, after.mode));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("   -> {}", parts.join(", "))
        }
    }
    fn summary(&self) -> String {
        format!(
            "{} apps ({}), {} devices, {} events, {} subscriptions",
            self.apps.len(),
            self.app_names().join(", "),
            self.devices.len(),
            self.events.len(),
            self.subs.len()
        )
    }
    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        std::collections::BTreeMap::from([
            ("apps".to_string(), self.apps.len() as u64),
            ("devices".to_string(), self.devices.len() as u64),
            ("events".to_string(), self.events.len() as u64),
            ("subscriptions".to_string(), self.subs.len() as u64),
            ("attributes".to_string(), self.slots.len() as u64),
            ("methods".to_string(), self.apps.iter().map(|a| a.script.methods.len() as u64).sum()),
        ])
    }
}
