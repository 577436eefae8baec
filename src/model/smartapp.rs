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
//! - **An unchanged write is a read** (a refinement of dependence): a write that leaves the
//!   state as it was (an attribute, the mode or a `state` key given the value it holds, and with
//!   `--conflicts` by its last writer) is recorded as a read of its object. Sound for every
//!   strategy: if t at s stores into x the value x holds, then for any t' whose accesses at s do
//!   not conflict with t's (so t' does not write x and writes nothing t read), t' leaves x and
//!   everything t read unchanged, so t at t'(s) again stores that value and changes nothing, and
//!   t' at t(s) = s does what it did at s: the two commute and keep the same accesses. A t' that
//!   writes x conflicts with the recorded read, as any write would. The paper's listener
//!   instead leaves `state`, `location` and other infrastructure fields out of dependence
//!   altogether (docs/corpus.md); this keeps every dependence that can change a result.
//!
//! This file holds the system's types and its [`Model`] impl; the ideas live beside it:
//! `load` (inputs bound, events listed, apps installed), `devices` (capabilities, commands),
//! `delivery` (one event to every subscribed handler, the conflict check), `interp` (the Groovy
//! interpreter), `builtins` (Groovy's library), `value` (values), `encode` (state matching),
//! `footprint` (static footprints for `dpor`), `slice` (apps left out of the interleaving under
//! `--conflicts`), `dead` (state no app can tell apart, not stored), `self_keys` (state keys
//! whose values reach only themselves, not stored), `packed` (states as interned parts, for
//! `monitors`), `probe` (what varies in the states: a diagnostic, `TRACEPOR_PROBE=N`).

use std::sync::Arc;

use rustc_hash::FxHashMap;
use smallvec::smallvec;

use crate::model::{Access, Accesses, Choice, Model, ModelError, Outcome};
use crate::trace::groovy::{self, Arg, Expr, GPart, Method, Name, Script, Stmt};

mod builtins;
mod callable;
/// Public for the unit tests in tests/it/unit/.
#[doc(hidden)]
pub mod choices;
mod components;
mod computed_names;
mod dead;
mod delivery;
/// Public for the unit tests in tests/it/unit/.
#[doc(hidden)]
pub mod devices;
mod encode;
/// Public for the unit tests in tests/it/unit/.
#[doc(hidden)]
pub mod footprint;
mod guarded;
mod home;
mod http;
mod initial;
mod interp;
mod load;
mod packed;
/// Public for the unit tests in tests/it/unit/.
#[doc(hidden)]
pub mod physical;
mod probe;
mod properties;
mod quiet;
mod self_keys;
mod slice;
mod timers;
/// Public for the unit tests in tests/it/unit/.
#[doc(hidden)]
pub mod value;

use builtins::*;
pub use delivery::GhostWrite;
use devices::*;
use encode::*;
pub use guarded::GuardVerdict;
pub use home::load_home;
pub use load::{conflict_scope, load, parse_app};
pub use packed::Packer;
pub use physical::{table_markdown as physical_table, PHYSICAL_CONFLICT};
pub use probe::{Probe, Varying};
pub use properties::{LIBRARY, LIBRARY_FILE};
use value::*;
pub use value::{Text, Value};

/// One app of the system.
struct App {
    name: String,
    /// The path it was loaded from, as given (reports name file and line).
    file: String,
    script: Script,
    methods: FxHashMap<String, usize>,
    /// Per method: whether the interpreter can enter it (`callable.rs`).
    callable: Vec<bool>,
    /// Input name -> value (devices, enums ...).
    settings: FxHashMap<String, Value>,
    /// The inputs a configured home binds (home.rs): fixed, never varied by the model.
    bound: Vec<String>,
    /// Its single-valued `mode` inputs, in source order (`choices.rs` varies them when the
    /// app sets the mode).
    mode_inputs: Vec<String>,
    /// Its inputs a person picks a value for, other than devices (`choices.rs` varies those a
    /// branch depends on).
    person: Vec<choices::Choosable>,
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

impl Handler {
    fn name(&self) -> &str {
        match self {
            Handler::Method(m) => m,
            Handler::Closure(_) => "closure",
        }
    }
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
    /// A timer's event (`timers.rs`): the app and the method it runs when pending.
    run: Option<(usize, String)>,
    /// A timer IoTCheck's Extractor lists too (an opening `schedule`): counted in the paper's Evt.
    extractor: bool,
    /// An app touch (`subscribe(app, h)`): the one app tapped, whose handlers alone run.
    touch: Option<usize>,
}

/// Options of the SmartApp model (`--conflicts`, `--bound k`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SmartAppOptions {
    pub conflicts: bool,
    pub bound: Option<u32>,
    /// Store the attributes no app reads or writes, the conflict ghosts of the attributes one
    /// app writes and the `state` keys no code reads (`dead.rs`; an ablation,
    /// `--keep-dead-state`).
    pub keep_dead_state: bool,
    /// Under `--conflicts`: whether a conflict ends its path or is an observation (`delivery.rs`).
    pub conflict_mode: crate::model::ConflictMode,
    /// `--conflicts-on`: the attributes a conflict may be on (None: all; `load.rs`).
    pub conflicts_on: Option<crate::model::ConflictScope>,
    /// `--properties FILE`, `--no-default-properties` (properties.rs).
    pub properties: crate::model::PropertyOptions,
    /// `--routines-keep-mode`: a routine an app runs (`location.helloHome.execute`) leaves the
    /// location mode as it is, as IoTCheck and the FSE 2020 study take it; by default it may set
    /// any mode (`choices.rs`).
    pub routines_keep_mode: bool,
    /// `--fixed-inputs`: the inputs a person picks keep one value (only the modes an app sets
    /// and routines vary, `choices.rs`) and the sensors apps only read keep their default
    /// (`initial.rs`): IoTCheck's configuration, in which the VMCAI tables were measured.
    pub fixed_inputs: bool,
    /// `--physical`: physical channels between apps under `--conflicts` (`physical.rs`).
    pub physical: bool,
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
    /// Before installation, when the environment is still to choose the devices' states
    /// (`initial.rs`); false in every other state.
    root: bool,
    /// The row of the modes a person picked (`choices.rs`) the configuration chose: fixed
    /// after the root, 0 when nothing varies.
    picks: u16,
}

impl Clone for SmartState {
    fn clone(&self) -> SmartState {
        SmartState {
            attrs: self.attrs.clone(),
            mode: self.mode.clone(),
            states: self.states.clone(),
            writers: self.writers.clone(),
            fired: self.fired.clone(),
            root: self.root,
            picks: self.picks,
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
        self.root = src.root;
        self.picks = src.picks;
    }
}

impl SmartState {
    /// The root flag and the row of picks in one word (the encoding's and the packing's last):
    /// the parts of a state nothing but the configuration choice sets.
    fn root_word(&self) -> u32 {
        self.root as u32 | (self.picks as u32) << 1
    }

    fn set_root_word(&mut self, w: u32) {
        self.root = w & 1 != 0;
        self.picks = (w >> 1) as u16;
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
    /// Name of each device: its capability when inputs are bound by capability (one device per
    /// capability), the home's name for it in a configured home (home.rs).
    devices: Vec<String>,
    /// Capabilities of each device.
    device_caps: Vec<Vec<String>>,
    /// (device, attribute) of each slot.
    slots: Vec<(u16, String)>,
    /// Per device, its attributes' slots (looked up by name without building a key).
    slot_of: Vec<Vec<(String, usize)>>,
    /// The attribute of each slot and the capability of each device as shared text, for the
    /// `evt` of each delivery.
    slot_text: Vec<Text>,
    device_text: Vec<Text>,
    /// Each device's id (`device3`), an event's `deviceId`.
    device_id_text: Vec<Text>,
    subs: Vec<Sub>,
    events: Vec<EnvEvent>,
    /// The initial state: with several configurations, the root before installation.
    init: SmartState,
    /// The configurations the environment chooses among at installation (`initial.rs`): each
    /// one's choice name and the state after installing every app from it. Empty when there is
    /// one, then `init` is the state after installation and there is no root.
    configs: Vec<(String, SmartState)>,
    /// The modes a person picks (mode inputs, routines) and the rows the configurations take
    /// them from (`choices.rs`).
    picks: choices::Picks,
    opts: SmartAppOptions,
    /// What the model cannot bind or run, `file:line: why` each (nothing is dropped silently).
    unsupported: Vec<String>,
    /// The `data` of a presence event, not present and present: the JSON a hub sends, naming
    /// the phone seen (a `mobilePresence` device when the system has one).
    presence_data: [Text; 2],
    /// Per app: left out of the interleaving (`--conflicts`: it writes nothing shared; `slice`).
    left_out: Vec<bool>,
    /// Per event: never scheduled, as it reaches no app kept and nothing they read (`slice`).
    dead: Vec<bool>,
    /// Per slot: an attribute no app reads or writes, kept at its initial value (`dead.rs`).
    dead_slots: Vec<bool>,
    /// Per slot: at most one app writes it, so its conflict ghost is not kept (`dead.rs`).
    no_ghost: Vec<bool>,
    /// Per app, under `--conflicts`: the keys of its `state` stored, when they are known (None:
    /// any); a key outside them is written only (`dead.rs`) or self-contained (`self_keys.rs`),
    /// and not stored.
    state_reads: Vec<Option<std::collections::BTreeSet<String>>>,
    /// Under `--conflicts`: keys of the apps' `state` reset to absent where their guard is off
    /// (`guarded.rs`), and the verdict on every key read under an `if`.
    guarded: Vec<guarded::GuardedKey>,
    guard_verdicts: Vec<GuardVerdict>,
    /// The safety properties checked (properties.rs); empty without any.
    props: properties::Props,
    /// What the explored firings met that the model does not carry out, `file:line: what` each
    /// (`Ctx::unmodelled`): listed with `unsupported`, once each.
    met: std::sync::Mutex<Vec<String>>,
    /// Under `--conflicts`: the physical channels between the apps (`physical.rs`).
    room: physical::Room,
    /// The servers answering the apps' requests (`http.rs`).
    servers: Vec<http::Server>,
}

/// Ways a handler run ends early.
enum Flow {
    Return(Value),
    Break,
    Continue,
    Error(String, usize),
}

type R<T> = Result<T, Flow>;

/// The arguments of a call: most calls pass a few, held without allocating.
type Args = smallvec::SmallVec<[Value; 4]>;

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
    /// Under `--conflict-mode observe`: the conflicts the firing observed and went on past, in
    /// order (their `event` is filled in by [`SmartAppModel::fire_traced`]).
    observed: Vec<ModelError>,
    /// The subscription whose handler is running (innermost), for reports.
    sub: Option<usize>,
    /// The method a `schedule` event runs (`runIn`, `schedule`, ...): the handler of what the
    /// firing does outside subscriptions, for reports.
    method: Option<&'m str>,
    /// Where the error that ends the firing arose: (app, line, subscription running).
    fault: Option<(usize, usize, Option<usize>)>,
    /// While installing: what could not run (line, why).
    problems: Vec<(usize, String)>,
    /// The app tapped, when the event fired is an app touch.
    touch_app: Option<usize>,
    /// For lane diagrams only (`Model::lane_marks`): what ran, in order.
    log: Option<Vec<Logged>>,
    /// When asked for (reports): each app write recorded as the last writer, as (slot, app,
    /// `file:line, handler h`), for the earlier side of a conflict ([`SmartAppModel::write_place`]).
    places: Option<Vec<(usize, usize, String)>>,
    /// The monitors' run (`explore/monitors.rs`): the app writes of attributes whose conflict
    /// ghost would be kept, in order, handed out instead of checked and kept.
    ghost_writes: Option<Vec<delivery::GhostWrite>>,
    /// The event fired is the user's own action (an app touch, a button, an NFC tag, a cube
    /// turned): the next delivery runs its handlers as the user's direct command.
    user_event: bool,
    /// The properties' check of this firing (properties.rs); None without properties.
    prop: Option<Box<properties::PropRun>>,
    /// The running handler acts on the user's direct command: its writes are the user's intent
    /// (never a conflict), though they become the last write (see `set_attr`).
    manual: bool,
    /// What the firing met that the model does not carry out, as (app, line, what): a call
    /// of no function or method the interpreter knows (`builtins.rs`, `Ctx::unmodelled`).
    unknown: Vec<(usize, usize, String)>,
    /// What the room needs of the firing: the acts of a handler a physical event runs
    /// (`physical.rs`).
    watch: physical::Watch,
}

/// One thing a firing did, as a lane diagram draws it: an access (or, `None`, a handler
/// starting) made by the subscription's handler running (`None`: the event's own work, or the
/// method of a `schedule` event), in app `app`, at source line `line`.
#[derive(Clone, Copy, Debug)]
struct Logged {
    sub: Option<usize>,
    app: usize,
    access: Option<Access>,
    line: usize,
}

/// The buffers of a firing's [`Ctx`] kept for the thread's next firing (one per transition:
/// allocating them anew each time was a good part of a step's allocations).
#[derive(Default)]
struct Spare {
    vars: Vec<(Name, Value)>,
    text: String,
    running: Vec<(usize, usize)>,
}

thread_local! {
    static SPARE: std::cell::Cell<Option<Spare>> = const { std::cell::Cell::new(None) };
}

impl Drop for Ctx<'_> {
    fn drop(&mut self) {
        let mut vars = std::mem::take(&mut self.vars);
        vars.clear();
        let mut running = std::mem::take(&mut self.running);
        running.clear();
        let text = std::mem::take(&mut self.text);
        SPARE.with(|s| s.set(Some(Spare { vars, text, running })));
    }
}

impl<'m> Ctx<'m> {
    fn new(m: &'m SmartAppModel, st: &'m mut SmartState, app: usize, acc: Vec<Access>) -> Ctx<'m> {
        let spare = SPARE.with(|s| s.take()).unwrap_or_default();
        Ctx {
            m,
            st,
            acc,
            app,
            vars: spare.vars,
            base: 0,
            text: spare.text,
            running: spare.running,
            budget: 200_000,
            depth: 0,
            line: 0,
            installing: None,
            conflict: None,
            observed: Vec::new(),
            sub: None,
            method: None,
            fault: None,
            problems: Vec::new(),
            touch_app: None,
            log: None,
            places: None,
            ghost_writes: None,
            user_event: false,
            manual: false,
            prop: None,
            unknown: Vec::new(),
            watch: physical::Watch::default(),
        }
    }

    /// `file:line, handler h` of the error that ended the firing.
    fn fault_place(&self) -> Option<String> {
        let (app, line, sub) = self.fault?;
        Some(self.place(app, line, sub))
    }

    /// `file:line, handler h` of `app`'s `line` run by subscription `sub`.
    fn place(&self, app: usize, line: usize, sub: Option<usize>) -> String {
        self.m.place(app, line, sub, self.method)
    }
}

/// A fixed instant for `now()`, `new Date()`, `timeToday` (IoTCheck's base time).
const NOW: i64 = 1_564_191_100_415;

/// When a device entered the value a state query (`currentState`, `xxxState`) reads: a day before
/// `now()`. The model keeps no per-value timestamps; a state older than any app's threshold lets
/// the "away (or open) long enough" checks hold, so the writes behind them stay reachable.
const STATE_SINCE: i64 = NOW - 86_400_000;

/// Marks a conflict among the runtime errors (a conflict is not caught by an app's `try`).
const CONFLICT: &str = "conflict: ";

impl SmartAppModel {
    /// `file:line, handler h` of `app`'s `line` run by subscription `sub`.
    /// `file:line, handler h` of `app`'s `line`, run by subscription `sub`, or else within the
    /// scheduled `method` an event runs.
    fn place(&self, app: usize, line: usize, sub: Option<usize>, method: Option<&str>) -> String {
        let mut at = format!("{}:{line}", self.apps[app].file);
        match (sub, method) {
            (Some(s), _) => at.push_str(&format!(", handler {}", self.subs[s].handler.name())),
            (None, Some(method)) => at.push_str(&format!(", handler {method}")),
            (None, None) => {}
        }
        at
    }

    /// The app writes along `path` that make their app the last writer of `variable`
    /// (`device.attribute`), as (step, app name), in order; empty without `--conflicts`. Tells
    /// why a pair's conflict is not a home's (a third app's write between the two).
    pub fn writers_along(&self, path: &[Choice], variable: &str) -> Vec<(usize, String)> {
        let Some(slot) = self.slot_of_variable(variable) else {
            return Vec::new();
        };
        let (mut s, mut acc, mut out) = (self.initial(), Vec::new(), Vec::new());
        for (i, &c) in path.iter().enumerate() {
            let mut places = Vec::new();
            acc.clear();
            let r = self.fire_traced(&mut s, c as usize, &mut acc, &mut None, Some(&mut places), None, None);
            out.extend(places.into_iter().filter(|p| p.0 == slot).map(|p| (i + 1, self.apps[p.1].name.clone())));
            if r.is_err() {
                break;
            }
        }
        out
    }

    /// Names of the apps, in load order.
    pub fn app_names(&self) -> Vec<&str> {
        self.apps.iter().map(|a| a.name.as_str()).collect()
    }
    /// Whether app `app` has an input named `name` bound (a device, a value, or left unset).
    pub fn has_input(&self, app: usize, name: &str) -> bool {
        self.apps.get(app).is_some_and(|a| a.settings.contains_key(name))
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

impl Model for SmartAppModel {
    type State = SmartState;

    fn kind(&self) -> crate::model::ModelKind {
        crate::model::ModelKind::SmartApps
    }
    fn paths_are_finite(&self) -> bool {
        self.opts.bound.is_some()
    }
    fn load_flags(&self) -> String {
        let mut flags = crate::model::load_flags(self.opts.bound, self.opts.conflicts);
        if self.opts.conflicts && self.opts.conflict_mode != crate::model::ConflictMode::Observe {
            flags.push_str(&format!(" --conflict-mode {}", self.opts.conflict_mode.as_str()));
        }
        if self.opts.routines_keep_mode {
            flags.push_str(" --routines-keep-mode");
        }
        if self.opts.fixed_inputs {
            flags.push_str(" --fixed-inputs");
        }
        if self.opts.conflicts && self.opts.physical {
            flags.push_str(" --physical");
        }
        flags + &self.scope_flag() + self.property_flags()
    }
    fn property_info(&self, e: &ModelError) -> Option<crate::model::PropertyInfo> {
        self.property_of(e)
    }
    fn choices(&self) -> u32 {
        (self.events.len() + self.configs.len()) as u32
    }
    fn initial(&self) -> SmartState {
        self.init.clone()
    }
    /// A configuration (out of the root, `initial.rs`) writes every object and nothing leads
    /// back to the root; otherwise only `--bound` changes what is enabled.
    fn enabling_only_at_root(&self) -> bool {
        self.opts.bound.is_none()
    }
    fn enabled(&self, s: &SmartState, out: &mut Vec<Choice>) {
        self.enabled_in(s.root, &s.fired, out);
    }
    fn accesses(&self, s: &SmartState, c: Choice, out: &mut Accesses) {
        let mut copy = s.clone();
        let _ = self.step_recording(&mut copy, c, out);
    }
    fn step(&self, s: &mut SmartState, c: Choice) -> Result<(), ModelError> {
        let mut acc = Vec::new();
        self.fire(s, c as usize, &mut acc)
    }
    fn step_observing(
        &self,
        s: &mut SmartState,
        c: Choice,
        out: Option<&mut Accesses>,
        seen: &mut Vec<ModelError>,
    ) -> Result<(), ModelError> {
        let mut acc = Vec::with_capacity(32);
        let r = self.fire_traced(s, c as usize, &mut acc, &mut None, None, Some(seen), None);
        if let Some(out) = out {
            one_access_per_object(acc, out);
        }
        r
    }
    /// The environment, then each app.
    fn lanes(&self) -> Vec<crate::model::lane::Lane> {
        use crate::model::lane::{Lane, LaneKind};
        let env = Lane { name: "environment".into(), kind: LaneKind::Environment };
        std::iter::once(env)
            .chain(self.apps.iter().map(|a| Lane { name: a.name.clone(), kind: LaneKind::App }))
            .collect()
    }
    /// The event on the environment's lane, then each access of the firing on the lane of the
    /// app whose handler made it, inside that handler's box (the firing is run on a copy).
    fn lane_marks(&self, s: &SmartState, c: Choice, out: &mut Vec<crate::model::lane::LaneMark>) {
        use crate::model::lane::LaneMark;
        let (mut copy, mut acc, mut log) = (s.clone(), Vec::new(), Some(Vec::new()));
        let result = self.fire_traced(&mut copy, c as usize, &mut acc, &mut log, None, None, None);
        // A configuration at installation (initial.rs) runs no handler: one mark.
        let Some(ev) = self.events.get(c as usize) else {
            let name = self.choice_name(c);
            let text = format!("the devices start in configuration {name}");
            out.push(LaneMark { lane: 0, handler: None, label: name, text, op: None, access: None });
            return;
        };
        let mut text = format!("event {}", ev.name);
        if let Err(e) = &result {
            text.push_str(&format!(" ends in {}: {}", e.kind, e.message));
        }
        out.push(LaneMark {
            lane: 0,
            handler: None,
            label: format!("event {}", ev.name),
            text,
            op: None,
            access: None,
        });
        let log = log.unwrap_or_default();
        for (i, l) in log.iter().enumerate() {
            let (app, handler) = match (l.sub, &ev.run) {
                (Some(si), _) => (Some(self.subs[si].app), Some(self.subs[si].handler.name().to_string())),
                (None, Some((app, method))) => (Some(*app), Some(method.clone())),
                (None, None) => (None, None),
            };
            // A handler's start is drawn only when it touches nothing: its box says it ran.
            let same_run = |n: &Logged| n.sub == l.sub && n.app == l.app;
            if l.access.is_none() && log.get(i + 1).is_some_and(same_run) {
                continue;
            }
            let who = match (app, &handler) {
                (Some(a), Some(h)) => format!("{}, handler {h} ({}:{})", self.apps[a].name, self.apps[a].file, l.line),
                _ => "the environment".to_string(),
            };
            let (label, text, access) = match l.access {
                Some(a) => {
                    let name = self.object_name(a.object);
                    let verb = if a.write { "writes" } else { "reads" };
                    let label = format!("{} {name}", if a.write { "W" } else { "R" });
                    (label, format!("{who} {verb} {name}"), Some((name, a.write)))
                }
                None => ("runs".to_string(), format!("{who} runs"), None),
            };
            out.push(LaneMark {
                lane: app.map_or(0, |a| a + 1),
                handler: handler.map(|h| (h, None)),
                label,
                text,
                op: None,
                access,
            });
        }
    }
    fn write_place(
        &self,
        path: &[Choice],
        variable: &str,
        app: &str,
        budget: &dyn crate::model::Poll,
    ) -> Option<String> {
        // A physical conflict's actuating side (`physical.rs`).
        if let Some(medium) = SmartAppModel::medium_named(variable) {
            return self.actuation_place(path, medium, app);
        }
        let slot = self.slot_of_variable(variable)?;
        let app = self.apps.iter().position(|a| a.name == app)?;
        let (mut s, mut acc, mut places) = (self.initial(), Vec::new(), Vec::new());
        for (i, &c) in path.iter().enumerate() {
            if budget.poll() {
                return None;
            }
            acc.clear();
            let from = places.len();
            if self.fire_traced(&mut s, c as usize, &mut acc, &mut None, Some(&mut places), None, None).is_err() {
                break;
            }
            // An observed conflict (`--conflict-mode observe`) left a mark where it was seen;
            // the firing went on past it. The earlier side's write is the last one before it.
            let mark = (usize::MAX - slot, app, String::new());
            if let Some(k) = places[from..].iter().position(|p| *p == mark).filter(|_| i + 1 == path.len()) {
                places.truncate(from + k);
            }
        }
        places.into_iter().rev().find(|(sl, ap, _)| *sl == slot && *ap == app).map(|p| p.2)
    }
    fn step_recording(&self, s: &mut SmartState, c: Choice, out: &mut Accesses) -> Result<(), ModelError> {
        let mut acc = Vec::with_capacity(32);
        let r = self.fire(s, c as usize, &mut acc);
        one_access_per_object(acc, out);
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
        if !self.configs.is_empty() {
            out.push(s.root_word());
        }
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
                    text.push_str(&format!(" {}={}", timers::key_text(k), v.text()));
                }
            }
        }
        if self.opts.bound.is_some() {
            text.push_str(&format!(" | fired {:?}", s.fired));
        }
        Outcome::SmartApps { state: text }
    }
    fn choice_name(&self, c: Choice) -> String {
        let (c, n) = (c as usize, self.events.len());
        match self.events.get(c) {
            Some(e) => e.name.clone(),
            None => self.configs.get(c - n).map_or_else(|| format!("#{c}"), |k| k.0.clone()),
        }
    }
    fn parse_choice(&self, name: &str) -> Option<Choice> {
        let n = self.events.len();
        let e = self.events.iter().position(|e| e.name == name);
        e.or_else(|| self.configs.iter().position(|k| k.0 == name).map(|k| n + k)).map(|i| i as Choice)
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
        // A configuration also picks the modes a person chose (`choices.rs`).
        if before.root && !after.root && !self.picks.rows.is_empty() {
            let picked = self.picks.describe(after.picks, |a| self.apps[a].name.clone());
            parts.push(format!("picked: {}", picked.join(", ")));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("   -> {}", parts.join(", "))
        }
    }
    fn summary(&self) -> String {
        let (channels, physical) = self.room_figures();
        format!(
            "{} apps ({}), {} devices, {} events, {} subscriptions{}",
            self.apps.len(),
            self.app_names().join(", "),
            self.devices.len(),
            self.events.len() - physical,
            self.subs.len(),
            if channels == 0 { String::new() } else { self.room_summary() }
        )
    }
    fn unsupported(&self) -> Vec<String> {
        let mut met = self.met.lock().map(|m| m.clone()).unwrap_or_default();
        // The order the search met them in depends on the strategy: sorted.
        met.sort();
        self.unsupported.iter().cloned().chain(met.into_iter().filter(|m| !self.unsupported.contains(m))).collect()
    }
    fn left_out(&self) -> Vec<String> {
        SmartAppModel::left_out(self)
    }
    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        let (channels, physical) = self.room_figures();
        let mut stats = std::collections::BTreeMap::from([
            ("unsupported".to_string(), self.unsupported.len() as u64),
            ("apps".to_string(), self.apps.len() as u64),
            ("devices".to_string(), self.devices.len() as u64),
            // The Extractor's events (the paper's Evt.); the room's are counted apart.
            ("events".to_string(), (self.events.len() - physical) as u64),
            ("configurations".to_string(), self.configs.len().max(1) as u64),
            ("subscriptions".to_string(), self.subs.len() as u64),
            ("attributes".to_string(), (self.slots.len() - 2 * channels) as u64),
            ("methods".to_string(), self.apps.iter().map(|a| a.script.methods.len() as u64).sum()),
        ]);
        if channels > 0 {
            stats.insert("physical_channels".to_string(), channels as u64);
            stats.insert("physical_events".to_string(), physical as u64);
        }
        stats
    }
}

/// The accesses of a firing as [`Model::step_recording`] gives them: one entry per object, a
/// write subsuming reads.
fn one_access_per_object(mut acc: Vec<Access>, out: &mut Accesses) {
    acc.sort_by_key(|a| (a.object, !a.write));
    let mut last: Option<u32> = None;
    for a in acc {
        if last != Some(a.object) {
            out.push(a);
            last = Some(a.object);
        }
    }
}
