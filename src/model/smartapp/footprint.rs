//! Static footprints of SmartApp choices, for `dpor` and `dpor-sleep` under `--bound k`
//! (Flanagan and Godefroid, POPL 2005, as in [`crate::explore::dpor_events`]): dependence must
//! be fixed per choice before it runs, so a footprint over-approximates every object a firing
//! can touch, on any branch, through any cascade, from any state.
//!
//! **Why it is sound.** The interpreter bounds what code running for app A can reach, whatever
//! the Groovy says: the only devices it can name are those in A's settings (every `Value::Dev`
//! is made from an input when the system is built; an `evt.device` is a device A subscribed to,
//! which came from its settings while installing; attribute values are strings, and `state`,
//! `settings` are A's own). It writes an attribute only through a device command, whose name
//! fixes the attributes it may write ([`command_attrs`]; a computed name, `obj."$x"(args)`, may be
//! any command or query, so it reads and writes every attribute of A's devices; given no
//! argument, `obj."$x"()`, it reaches no query, each of which takes the attribute's name, so it
//! writes at most [`ANY_COMMAND_ATTR`], the union of every command's, and reads nothing more). It writes the location mode only
//! by `setLocationMode`, `setMode` or assigning `location.mode`, and its state only through a
//! target rooted at the name `state`/`atomicState`. So per app: reads of every attribute of its
//! devices, the mode and its state; writes as found by an exhaustive scan of its whole source
//! (every method and closure, no wildcard arm, so a new AST construct fails to compile here
//! rather than being skipped). A firing runs the environment's write (or a `schedule` method),
//! then the handlers subscribed to what was written, whose writes deliver in turn: the
//! footprint joins the apps of that closure, matching subscriptions by device and attribute
//! (and by value only for the environment's own event, whose value is fixed).
//!
//! Nothing else changes which choices are enabled (a timer's event is always enabled and does
//! nothing while its timer is not pending, `timers.rs`; setting, removing and firing a timer
//! touch the app's `state`, which a timer call counts as writing): only a choice's own
//! `--bound` counter does, and only that choice moves it. The
//! `--conflicts` ghost of an attribute is read and written only by an app's write of that
//! attribute, which is a write in the footprint, so two firings touching one ghost are
//! dependent (write/write).

use std::collections::BTreeMap;

use super::{App, SmartAppModel, SmartState, Value};
use crate::model::Model;
use crate::model::{Access, Accesses, Choice};
use crate::trace::groovy::{self, Arg, Expr, GPart, Script, Stmt};

/// Attributes a device command may write: the union of what
/// [`super::Ctx::device_method`] writes for it on any device (which asserts it stays so).
pub(super) fn command_attrs(name: &str) -> &'static [&'static str] {
    match name {
        "on" => &["switch"],
        "off" => &["switch", "thermostatMode", "alarm"],
        "lock" | "unlock" => &["lock"],
        "open" | "close" => &["valve", "door", "contact", "windowShade"],
        "setLevel" => &["level"],
        "heat" | "cool" | "auto" | "emergencyHeat" | "setThermostatMode" => &["thermostatMode"],
        "fanOn" | "fanAuto" | "fanCirculate" | "setThermostatFanMode" => &["thermostatFanMode"],
        "setHeatingSetpoint" => &["heatingSetpoint"],
        "setCoolingSetpoint" => &["coolingSetpoint"],
        "siren" | "strobe" | "both" => &["alarm"],
        "play"
        | "playTrack"
        | "playText"
        | "playTrackAndResume"
        | "playTrackAndRestore"
        | "playSoundAndTrack"
        | "pause"
        | "stop" => &["status"],
        "mute" | "unmute" => &["mute"],
        "setHue" => &["hue"],
        "setSaturation" => &["saturation"],
        "setColorTemperature" => &["colorTemperature"],
        "setColor" => &["hue", "saturation", "level", "color"],
        "arrived" | "departed" => &["presence"],
        _ => &[],
    }
}

/// Every attribute some command may write: the union of [`command_attrs`] over its arms
/// (`Ctx::device_method` asserts that each write it makes is in both).
pub const ANY_COMMAND_ATTR: &[&str] = &[
    "switch",
    "thermostatMode",
    "alarm",
    "lock",
    "valve",
    "door",
    "contact",
    "windowShade",
    "level",
    "thermostatFanMode",
    "heatingSetpoint",
    "coolingSetpoint",
    "status",
    "mute",
    "hue",
    "saturation",
    "colorTemperature",
    "color",
    "presence",
];

/// What a scan of one app's source finds it may write.
#[derive(Default)]
pub(super) struct Scan {
    /// Names of calls with a target (device commands among them).
    pub(super) commands: Vec<String>,
    /// A call whose name is computed and that passes arguments: any command or query.
    pub(super) dynamic: bool,
    /// A call whose name is computed and that passes none (`dev."$cmd"()`): any command, but no
    /// query, as every query the interpreter knows (`currentValue`, `latestValue`,
    /// `currentState`, `latestState`) reads the attribute its argument names, and a method
    /// called on a value by name otherwise reads no attribute (`Ctx::method`). So it may write
    /// (and, writing the value held, read) any of [`ANY_COMMAND_ATTR`], and reads nothing else.
    pub(super) computed_command: bool,
    pub(super) sets_mode: bool,
    /// Runs a routine (`execute` called on a value: `location.helloHome.execute(phrase)`), which
    /// may set the mode (`choices.rs`).
    pub(super) runs_routine: bool,
    pub(super) writes_state: bool,
    /// Keys of the app's `state` a read may name (`dead.rs`, write-only keys): `state.k` and
    /// `state['k']` anywhere but as the whole target of a plain assignment, or within an inert
    /// argument of a quiet call (`quiet.rs`, when the scan is [`scan_app`]'s).
    pub(super) state_reads: std::collections::BTreeSet<String>,
    /// `state` used otherwise (a computed key read, the map itself handed on): any key.
    pub(super) state_reads_all: bool,
    /// Attribute names a read may name (see `dead.rs`): every member name as written, without
    /// `current` (first letter lowered) or `State`, and the literal names given to
    /// `currentValue`, `latestValue`, `currentState`, `latestState`.
    pub(super) read_names: std::collections::BTreeSet<String>,
    /// One of those queries given a computed name: it may read any attribute.
    pub(super) reads_computed: bool,
    /// A call with an effect outside the app the model does not carry out (yet) or that a hub
    /// would ([`SHARED_EFFECTS`]): kept out of `slice`'s read-only apps.
    pub(super) effects: bool,
    /// The app's quiet calls ([`scan_app`]; None: every use of `state` is a read).
    quiet: Option<super::quiet::Quiet>,
    /// Within an inert argument of a quiet call: uses of `state` read nothing.
    in_quiet: bool,
}

/// Calls that on a hub reach other apps or devices although the model does nothing for them:
/// events an app sends (`sendEvent`, `sendLocationEvent`), hub commands, routines (`execute`,
/// which may change the mode and devices).
const SHARED_EFFECTS: &[&str] = &["sendEvent", "sendLocationEvent", "sendHubCommand", "execute"];

/// A walk over statements: each expression met is given to `expr` (the scans of this module
/// and of `callable.rs` differ only there).
pub(super) trait Walk {
    fn expr(&mut self, e: &Expr);

    /// Walks every sub-expression of `e` (and a closure's body) with [`Walk::expr`]: what a
    /// scan does for the forms it has nothing of its own to note in.
    fn children(&mut self, e: &Expr) {
        match e {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Dec(_) | Expr::Str(_) | Expr::Var(_) => {}
            Expr::GStr(parts) => {
                for p in parts {
                    if let GPart::Expr(e) = p {
                        self.expr(e)
                    }
                }
            }
            Expr::List(items) => items.iter().for_each(|x| self.expr(x)),
            Expr::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                self.expr(k);
                self.expr(v);
            }),
            Expr::Member { obj, .. } => self.expr(obj),
            Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Elvis(a, b) | Expr::Range(a, b, _) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Assign { target, value, .. } => {
                self.expr(target);
                self.expr(value);
            }
            Expr::Call { target, args, .. } => {
                if let Some(t) = target {
                    self.expr(t);
                }
                args.iter().for_each(|a| self.expr(a.value()));
            }
            Expr::New(_, args) => args.iter().for_each(|a| self.expr(a.value())),
            Expr::Closure(c) => self.stmts(&c.1),
            Expr::Unary(_, a) | Expr::Cast(a, _) | Expr::IncDec(_, a, _) => self.expr(a),
            Expr::Ternary(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
        }
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for st in body {
            self.stmt(st);
        }
    }

    fn stmt(&mut self, st: &Stmt) {
        walk_stmt(self, st)
    }
}

/// Calls `f` with every expression of `app`'s top level and of the methods the interpreter can
/// enter (`callable.rs`), each with the line of the statement it stands in (a method's own line
/// before its first statement), before the expression's parts: the load's scans of calls
/// (`timers.rs`, `http.rs`).
pub(super) fn each_expr_with_line(app: &App, f: &mut dyn FnMut(usize, &Expr)) {
    struct Lines<'a, 'f> {
        line: usize,
        f: &'a mut (dyn FnMut(usize, &Expr) + 'f),
    }
    impl Walk for Lines<'_, '_> {
        fn stmt(&mut self, st: &Stmt) {
            if let Stmt::Expr(_, l) | Stmt::Def(_, _, l) = st {
                self.line = *l;
            }
            walk_stmt(self, st)
        }
        fn expr(&mut self, e: &Expr) {
            (self.f)(self.line, e);
            self.children(e)
        }
    }
    let mut w = Lines { line: 0, f };
    w.stmts(&app.script.top);
    for (m, _) in app.script.methods.iter().zip(&app.callable).filter(|(_, k)| **k) {
        w.line = m.line;
        w.stmts(&m.body);
    }
}

/// [`Walk::stmt`]'s descent into a statement's parts, for a walk that notes something of its
/// own at statements and then descends.
pub(super) fn walk_stmt<W: Walk + ?Sized>(w: &mut W, st: &Stmt) {
    match st {
        Stmt::Expr(e, _) | Stmt::Def(_, Some(e), _) | Stmt::Return(Some(e)) | Stmt::Throw(e) => w.expr(e),
        Stmt::Def(_, None, _) | Stmt::Return(None) | Stmt::Break | Stmt::Continue => {}
        Stmt::If(c, a, b, _) => {
            w.expr(c);
            w.stmts(a);
            w.stmts(b);
        }
        Stmt::While(c, b) => {
            w.expr(c);
            w.stmts(b);
        }
        Stmt::For(init, c, update, b) => {
            w.stmts(init);
            if let Some(c) = c {
                w.expr(c);
            }
            update.iter().for_each(|u| w.expr(u));
            w.stmts(b);
        }
        Stmt::ForIn(_, it, b) => {
            w.expr(it);
            w.stmts(b);
        }
        Stmt::Switch(v, cases) => {
            w.expr(v);
            for (vals, _, b) in cases {
                vals.iter().for_each(|x| w.expr(x));
                w.stmts(b);
            }
        }
        Stmt::Block(b) => w.stmts(b),
        Stmt::Try(a, catches, fin) => {
            w.stmts(a);
            catches.iter().for_each(|c| w.stmts(&c.1));
            w.stmts(fin);
        }
    }
}

impl Walk for Scan {
    fn expr(&mut self, e: &Expr) {
        Scan::expr(self, e)
    }
}

impl Scan {
    /// A member name, as the attributes a device property of that name reads
    /// ([`super::Ctx::member`]): the name itself, `currentX` -> `x`, `xState` -> `x`.
    fn read_name(&mut self, name: &str) {
        if let Some(a) = name.strip_prefix("current") {
            self.read_names.insert(super::lower_first(a));
        }
        if let Some(a) = name.strip_suffix("State") {
            self.read_names.insert(a.to_string());
        }
        self.read_names.insert(name.to_string());
    }

    /// A target written to (assigned, incremented, or mutated by a collection method): the mode
    /// when it is `location.mode` or within it.
    fn target(&mut self, t: &Expr) {
        if names_location_mode(t) {
            self.sets_mode = true;
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            // Any mention of the state names, read or written, counts as a write (coarse: a
            // state write needs a target rooted at one of them). Met here, the map itself is
            // used (a key read by `state.k` or `state[k]` is taken apart below).
            Expr::Var(_) => {
                if is_state(e) {
                    self.writes_state = true;
                    self.state_reads_all |= !self.in_quiet;
                }
            }
            // `state.k`: a read of the key `k` (the map itself is not walked: that would read
            // every key).
            Expr::Member { obj, name, .. } if is_state(obj) => {
                self.read_name(name);
                self.writes_state = true;
                if !self.in_quiet {
                    self.state_reads.insert(name.to_string());
                }
                return;
            }
            Expr::Member { name, .. } => self.read_name(name),
            Expr::Index(o, i) if is_state(o) => {
                self.writes_state = true;
                match i.as_ref() {
                    _ if self.in_quiet => {}
                    Expr::Str(k) => {
                        self.state_reads.insert(k.to_string());
                    }
                    _ => self.state_reads_all = true,
                }
                self.expr(i);
                return;
            }
            Expr::Call { target, name, args, .. } => {
                match name.as_str() {
                    // The computed name is the first argument (the parser puts it there).
                    groovy::DYNAMIC if args.len() == 1 => self.computed_command = true,
                    groovy::DYNAMIC => self.dynamic = true,
                    "setLocationMode" | "setMode" => self.sets_mode = true,
                    // A timer set or removed is a key of the app's `state` (`timers.rs`).
                    n if target.is_none()
                        && (n == "unschedule" || super::timers::timer_handler_position(n).is_some()) =>
                    {
                        self.writes_state = true
                    }
                    "currentValue" | "latestValue" | "currentState" | "latestState" => match args.first() {
                        Some(Arg::Pos(Expr::Str(n))) => {
                            self.read_names.insert(n.to_string());
                        }
                        _ => self.reads_computed = true,
                    },
                    n if SHARED_EFFECTS.contains(&n) => {
                        self.effects = true;
                        self.runs_routine |= n == "execute" && target.is_some();
                    }
                    _ => {}
                }
                // `dev.currentSwitch()` is no query the interpreter knows; named all the same.
                self.read_name(name);
                if let Some(t) = target {
                    self.commands.push(name.clone());
                    // Mutating methods write back to where the collection came from.
                    self.target(t);
                }
                // A quiet call's inert arguments: their uses of `state` read nothing (`quiet.rs`).
                if let Some(inert) = self.quiet.as_ref().and_then(|q| q.inert_args(e)) {
                    return super::quiet::walk_call(self, e, &inert, |s| &mut s.in_quiet);
                }
            }
            // `state.k = v`, `state[k] = v`: a write of the key, no read of it.
            Expr::Assign { op: "=", target, value } if state_key_target(target) => {
                self.writes_state = true;
                match target.as_ref() {
                    Expr::Member { name, .. } => self.read_name(name),
                    Expr::Index(_, i) => self.expr(i),
                    _ => {}
                }
                self.expr(value);
                return;
            }
            Expr::IncDec(_, t, _) | Expr::Assign { target: t, .. } => self.target(t),
            _ => {}
        }
        self.children(e)
    }
}

/// Whether `e` names the app's `state` (`atomicState` is the same map).
pub(super) fn is_state(e: &Expr) -> bool {
    matches!(e, Expr::Var(n) if n == "state" || n == "atomicState")
}

/// Whether `t` is a key of the app's `state`, `state.k` or `state[k]` (not within it).
fn state_key_target(t: &Expr) -> bool {
    match t {
        Expr::Member { obj, spread: false, .. } => is_state(obj),
        Expr::Index(o, _) => is_state(o),
        _ => false,
    }
}

/// Whether `t` is `location.mode`, or a member or index of it, or a call on it.
pub(super) fn names_location_mode(t: &Expr) -> bool {
    match t {
        Expr::Member { obj, name, .. } => {
            (name == "mode" && matches!(obj.as_ref(), Expr::Var(v) if v == "location")) || names_location_mode(obj)
        }
        Expr::Index(o, _) => names_location_mode(o),
        Expr::Call { target: Some(t), .. } => names_location_mode(t),
        _ => false,
    }
}

pub(super) fn scan(script: &Script) -> Scan {
    scan_with(Scan::default(), script, &vec![true; script.methods.len()])
}

/// The scan of the top level and of the methods the interpreter can enter (`callable.rs`: a
/// page's helpers never run), with the uses of `state` in inert arguments of quiet calls not counted as reads
/// (`quiet.rs`): the scan of the state reductions (`dead.rs`, `self_keys.rs`, `guarded.rs`).
pub(super) fn scan_app(app: &super::App) -> Scan {
    let s = Scan { quiet: Some(super::quiet::Quiet::of(app)), ..Scan::default() };
    scan_with(s, &app.script, &app.callable)
}

fn scan_with(mut s: Scan, script: &Script, keep: &[bool]) -> Scan {
    s.stmts(&script.top);
    for (m, _) in script.methods.iter().zip(keep).filter(|(_, k)| **k) {
        s.stmts(&m.body);
    }
    s
}

fn devices_in(v: &Value, out: &mut Vec<u16>) {
    match v {
        Value::Dev(d) => out.push(*d),
        Value::List(l) => l.iter().for_each(|x| devices_in(x, out)),
        Value::Map(m) => m.iter().for_each(|(k, x)| {
            devices_in(k, out);
            devices_in(x, out);
        }),
        _ => {}
    }
}

/// What one app's code may touch, in the model's object space.
pub(super) struct AppReach {
    /// Attribute slots of its devices (all read).
    pub(super) slots: Vec<usize>,
    /// Slots it may write.
    pub(super) writes: Vec<usize>,
    /// Slots whose value it may read or act on (those it may write among them): a subset of
    /// `slots` by the attribute names its source uses (for `slice`).
    pub(super) reads: Vec<usize>,
    pub(super) sets_mode: bool,
    pub(super) writes_state: bool,
    /// Whether it may write anything another app can see or a conflict is made of: a device
    /// attribute, the mode, a computed call (anything), or a [`SHARED_EFFECTS`] call.
    pub(super) shared: bool,
}

impl SmartAppModel {
    /// The static reach of every app (computed once, when the footprints are asked for).
    pub(super) fn reach(&self) -> Vec<AppReach> {
        (0..self.apps.len())
            .map(|a| {
                let app = &self.apps[a];
                let mut devs = Vec::new();
                for v in app.settings.values() {
                    devices_in(v, &mut devs);
                }
                devs.extend(self.subs.iter().filter(|s| s.app == a).filter_map(|s| s.dev));
                devs.sort_unstable();
                devs.dedup();
                let sc = scan(&app.script);
                let mut slots = Vec::new();
                let mut writes = Vec::new();
                let mut reads = Vec::new();
                for &d in &devs {
                    for (attr, slot) in &self.slot_of[d as usize] {
                        slots.push(*slot);
                        let writes_it = sc.dynamic
                            || (sc.computed_command && ANY_COMMAND_ATTR.contains(&attr.as_str()))
                            || sc.commands.iter().any(|c| command_attrs(c).contains(&attr.as_str()));
                        if writes_it {
                            writes.push(*slot);
                        }
                        if writes_it || sc.dynamic || sc.reads_computed || sc.read_names.contains(attr.as_str()) {
                            reads.push(*slot);
                        }
                    }
                }
                // The answers of its requests' servers (`http.rs`), read by the requests.
                for slot in self.server_slots(a) {
                    slots.push(slot);
                    reads.push(slot);
                }
                // A computed call name is not bounded by the scan: everything the app can reach.
                AppReach {
                    // A bare computed call reaches no query, but may be `setMode` (with no
                    // argument) or a collection method writing back into `state`: kept.
                    shared: !writes.is_empty() || sc.sets_mode || sc.dynamic || sc.computed_command || sc.effects,
                    slots,
                    writes,
                    reads,
                    // A routine may set the mode unless routines keep it (`choices.rs`).
                    sets_mode: sc.sets_mode
                        || (sc.runs_routine && !self.opts.routines_keep_mode)
                        || sc.dynamic
                        || sc.computed_command,
                    writes_state: sc.writes_state || sc.dynamic || sc.computed_command,
                }
            })
            .collect()
    }

    /// Every object choice `c`'s firing can touch from any state, one entry per object (a write
    /// subsumes a read); see the module header for why it covers [`crate::model::Model::accesses`].
    pub fn footprint(&self, c: Choice) -> Accesses {
        self.footprint_with(&self.reach(), c as usize)
    }

    /// [`SmartAppModel::footprint`] of every choice, sharing the scan of the apps.
    pub fn footprints(&self) -> Vec<Accesses> {
        let reach = self.reach();
        (0..self.choices() as usize).map(|e| self.footprint_with(&reach, e)).collect()
    }

    /// Subscribers (apps kept in the interleaving) to `attr` of `dev` (None: location, app),
    /// filtered by value when it is known: a superset of those [`super::Ctx::deliver`] runs.
    fn subscribers(&self, dev: Option<u16>, attr: &str, value: Option<&str>) -> Vec<usize> {
        self.subs
            .iter()
            .filter(|sub| {
                !self.left_out[sub.app]
                    && sub.dev == dev
                    && (sub.attr == attr || (dev.is_none() && sub.attr == "location" && attr == "mode"))
                    && match (sub.value.as_deref(), value) {
                        (Some(v), Some(x)) => v == x,
                        _ => true,
                    }
            })
            .map(|sub| sub.app)
            .collect()
    }

    /// What firing event `e` does before any app runs: the object the environment writes (an
    /// attribute slot or the mode), and the apps whose handlers it runs directly.
    pub(super) fn first_effect(&self, e: usize) -> (Option<u32>, Vec<usize>) {
        let ev = &self.events[e];
        if let Some((app, _)) = &ev.run {
            (None, if self.left_out[*app] { Vec::new() } else { vec![*app] })
        } else if let Some(d) = ev.dev {
            match self.slot(d, &ev.attr) {
                Some(slot) => (Some(slot as u32), self.subscribers(Some(d), &self.slot_text[slot], Some(&ev.value))),
                None => (None, Vec::new()),
            }
        } else if ev.attr == "mode" {
            (Some(self.mode_object()), self.subscribers(None, "mode", Some(&ev.value)))
        } else {
            let mut runs = self.subscribers(None, &ev.attr, Some(&ev.value));
            // An app touch runs the tapped app's handlers only.
            if let Some(t) = ev.touch {
                runs.retain(|&a| a == t);
            }
            (None, runs)
        }
    }

    fn footprint_with(&self, reach: &[AppReach], e: usize) -> Accesses {
        // A configuration choice (initial.rs) writes everything.
        if e >= self.events.len() {
            return self.every_object().into_iter().map(|object| Access { object, write: true }).collect();
        }
        let mut objects: BTreeMap<u32, bool> = BTreeMap::new();
        let mut touch = |o: u32, w: bool| *objects.entry(o).or_insert(false) |= w;
        let mut runs = vec![false; self.apps.len()];
        let mut queue = Vec::new();
        let start = |a: usize, runs: &mut Vec<bool>, queue: &mut Vec<usize>| {
            if !runs[a] {
                runs[a] = true;
                queue.push(a);
            }
        };
        let hits = |dev: Option<u16>, attr: &str, value: Option<&str>| self.subscribers(dev, attr, value);
        let (written, first) = self.first_effect(e);
        if let Some(o) = written {
            touch(o, true);
        }
        // A physical event settles its channel; a sensor's report clears its cause (`physical.rs`).
        for o in self.room.first_writes(e, written) {
            touch(o, true);
        }
        for a in first {
            start(a, &mut runs, &mut queue);
        }
        // The cascade: whatever a running app may write is delivered to its subscribers.
        while let Some(a) = queue.pop() {
            let r = &reach[a];
            touch(self.mode_object(), r.sets_mode);
            touch(self.state_object(a), r.writes_state);
            // The media its commands may move (`physical.rs`).
            for &p in self.room.pends.get(a).map_or(&[][..], |p| &p[..]) {
                touch(p as u32, true);
            }
            for &slot in &r.slots {
                touch(slot as u32, false);
            }
            for &slot in &r.writes {
                touch(slot as u32, true);
                let (d, attr) = &self.slots[slot];
                for b in hits(Some(*d), attr, None) {
                    start(b, &mut runs, &mut queue);
                }
            }
            if r.sets_mode {
                for b in hits(None, "mode", None) {
                    start(b, &mut runs, &mut queue);
                }
            }
        }
        // A property's check reads its objects when the firing writes one (properties.rs).
        self.property_footprint(&mut objects);
        objects.into_iter().map(|(object, write)| Access { object, write }).collect()
    }

    /// Whether choice `c` can never fire again from `s`: under `--bound k` it has fired k times
    /// (only `c` itself moves its counter), or it is never scheduled (`slice`). Else never.
    pub fn exhausted(&self, s: &SmartState, c: Choice) -> bool {
        // A configuration is chosen at the root only.
        if c as usize >= self.events.len() {
            return !s.root;
        }
        self.dead[c as usize] || self.opts.bound.is_some_and(|k| s.fired[c as usize] >= k)
    }
}

impl crate::model::StaticFootprints for SmartAppModel {
    fn footprints(&self) -> Vec<Accesses> {
        SmartAppModel::footprints(self)
    }
    fn exhausted(&self, s: &SmartState, c: Choice) -> bool {
        SmartAppModel::exhausted(self, s, c)
    }
    fn bound(&self) -> Option<u32> {
        self.opts.bound
    }
}
