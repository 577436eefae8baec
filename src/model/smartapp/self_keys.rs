//! `state` keys whose values reach only themselves, left out of the state under `--conflicts`
//! (the thermostat home: thermostat.groovy's `state[evt.deviceId] = now()`, read only
//! to decide whether to notify again, which does nothing but write the key).
//!
//! **The slice** (program slicing over the app's `state` keys: Weiser, "Program slicing", ICSE
//! 1981, data and control dependence; used as a state reduction as Bozga, Fernandez and Ghirvu,
//! "State space reduction based on live variables analysis", SAS 1999, use dead variables). For
//! one app, a set V of key classes is *self-contained* when every value read from V flows (data
//! and control dependence, through locals, method parameters and results, closures run in place)
//! only into writes of V, into the locals that carry it on, into the arguments of calls that do
//! nothing in the model (`log.*`, `sendPush`, `sendSms`, `sendNotification*`, HTTP: `Ctx::call_free`
//! discards them), and into conditions whose dependent code is *quiet*: it does nothing but
//! those things and pure computation. Pure, as the interpreter runs it (interp.rs, builtins.rs,
//! value.rs): literals, operators (`binary`/`arith` never fail: `now() - null` is null, not an
//! error), local maps and lists, `settings`, `location.contactBookEnabled` and the other
//! location constants, `now()` and the other constant builtins, string, number and collection
//! methods without closures. Not quiet, and not to receive a V value either: a device command
//! or query (`command_attrs`, `currentValue` ..., the no-op commands), a member that may read an
//! attribute (`currentX`, `xState`, a name of any attribute the system has) or the mode
//! (`mode`, `currentMode`), `setLocationMode`, `location.mode = `, `subscribe`, `runIn`,
//! `runOnce`, `runEvery*`, `schedule`, `sendEvent` and the other [`super::footprint`] shared
//! effects, a read or write of a key outside V, a method the interpreter cannot enter, `throw`,
//! and, under a V-dependent condition, any loop or closure-iterating call (so that the two sides
//! of a condition differ by a bounded number of steps: see the budget below). A V-dependent
//! `return`, `break` or `continue` makes the rest of its method (its enclosing statements)
//! V-dependent. The analysis is a fixpoint over the app's callable methods (`callable.rs`):
//! per method, the V-classes each local name may carry, the classes its result may carry and
//! the classes under which it may be entered; a violation removes the classes it involves
//! from V, and the walk repeats until nothing changes (V only shrinks, so it ends).
//!
//! *Which keys are classes.* When every access of the app's `state` names its key literally
//! (`state.k`, `state['k']`), each key is its own class. One computed key (`state[evt.deviceId]`,
//! `state."$x"`) may be any text, so it may alias any literal key: the app's keys are then one
//! class (V is all of them or none). Refused outright: `state`/`atomicState` used as a value (a
//! map handed on; not its text in an inert argument of a quiet call, `log.debug "$state"`,
//! which reads no key: `quiet.rs`), a call by a computed name or `x.call(...)` (may enter any method), and an app
//! that binds `state`, `atomicState`, `log`, `location` or `settings` as a local (the interpreter
//! would then read the local). A closure not given in place to a call (stored, put in a map,
//! passed to an app method) may run anywhere: its code counts as V-dependent on every class.
//!
//! **Why it is sound.** Let s ~ t when they differ only in the keys of V (of that app). Fix an
//! event and run it from s and from t. Consider one run as a function of the values its reads
//! of V return. By the conditions above, those values reach only (i) writes of V, (ii) quiet
//! code, (iii) locals and results that in turn reach only (i)-(ii): so whatever the reads of V
//! return, the run makes the same accesses of every other object (attributes, the mode, the
//! other keys), the same writes there with the same values, the same commands in the same order
//! (hence the same deliveries and the same conflicts, which are made of attribute writes), and
//! the same exceptions (nothing quiet can throw). The runs from s and t, and the run of the
//! reduced model, differ only in the values of V read, in writes of V and in quiet code. So the
//! successors are ~-related and the errors are equal: ~ is a bisimulation preserving the
//! errors (conflicts, exceptions) and the accesses of everything but V. The representative of a
//! class has V absent: the reduced model stores no key of V (its writes are dropped and record
//! no access, as for `dead.rs`'s write-only keys, through the same hook: `state_reads` no
//! longer holds V), so its reads of V give null, and the dependent code takes the branches the
//! null gives. Those branches differ from the full model's only in writes of V and quiet code,
//! so the reduced model's transition from the representative of [s] reaches the representative of
//! the full model's successor of s with the same errors: the quotient is exact, and every
//! strategy explores it as a model of its own (its recorded accesses are its own run's).
//! Installation runs with everything stored; the initial state and every configuration then
//! drop V (`drop_unread_keys`). As for write-only keys, only under `--conflicts`: without it the
//! outcome line is the result and shows the keys. `--keep-dead-state` stores them (ablation).
//!
//! *What the model keeps outside the state.* Two registers of a firing are not part of the
//! state and can see quiet code run: the step budget (200,000 statements a firing, a guard for
//! loops that do not end) and the line of the last statement run, which an error raised where
//! no statement sets a line (a condition, `throw`, `return`, the budget check) reports. Quiet
//! code holds no loop, so the two sides of a V-dependent condition differ by at most its
//! straight-line length; a difference shows only in a firing that exhausts the budget (runs a
//! loop within that many statements of 200,000) or in the reported line of such an error met
//! after quiet code and before the next statement with a line. Neither is seen on the corpus
//! or the generated homes; both are artefacts of the interpreter, not of a hub.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};

use super::footprint::{command_attrs, is_state, Walk};
use super::quiet::{self, Quiet};
use super::*;

/// The keys of one app's `state` whose values reach only themselves (module header).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum SelfKeys {
    /// None (the analysis refused, or every class was needed).
    None,
    /// Every key (the app computes a key, so its keys are one class).
    All,
    /// These literal keys.
    Keys(BTreeSet<String>),
}

/// A closure's parameters and body, as the syntax tree holds them.
type Closure = Arc<(Vec<Name>, Vec<Stmt>)>;

/// Every class: what a value or a condition of unknown origin depends on.
const ALL: u64 = u64::MAX;

/// Free calls the model carries out as nothing, their arguments evaluated only (`Ctx::call_free`).
pub(super) const DISCARDED: &[&str] = &[
    "sendPush",
    "sendPushMessage",
    "sendSms",
    "sendSmsMessage",
    "sendNotification",
    "sendNotificationEvent",
    "sendNotificationToContacts",
    "httpPost",
    "httpPostJson",
    "httpGet",
    "httpPut",
    "httpPutJson",
    "httpDelete",
];

/// Free calls with an effect: subscriptions, timers (which run their handler at once), the
/// mode, and what a hub would send elsewhere.
const EFFECT_CALLS: &[&str] = &[
    "subscribe",
    "runIn",
    "runOnce",
    "schedule",
    "setLocationMode",
    "sendEvent",
    "sendLocationEvent",
    "sendHubCommand",
    "execute",
];

/// Methods on a value that are device queries or commands that write nothing (`device_method`),
/// or the location's (`setMode`, its queries): accesses or commands, never quiet.
const DEVICE_CALLS: &[&str] = &[
    "currentValue",
    "latestValue",
    "currentState",
    "latestState",
    "setMode",
    "refresh",
    "poll",
    "speak",
    "take",
    "beep",
    "ping",
    "configure",
    "setTrack",
    "nextTrack",
    "previousTrack",
    "resumeTrack",
    "restoreTrack",
];

/// Collection methods that write their result back to where the collection came from
/// (`Ctx::method`).
const MUTATING: &[&str] = &["add", "push", "put", "remove", "clear", "addAll", "putAll", "leftShift"];

/// Names whose binding as a local changes what the interpreter does with them.
const RESERVED: &[&str] = &["state", "atomicState", "log", "location", "settings"];

impl SmartAppModel {
    /// [`SmartAppModel::read_state_keys`]'s keys stored for app `a` (None: all), less its
    /// self-contained keys (module header): the hook of this reduction.
    pub(super) fn without_self_keys(&self, a: usize, stored: Option<BTreeSet<String>>) -> Option<BTreeSet<String>> {
        if self.opts.keep_dead_state || !self.opts.conflicts {
            return stored;
        }
        match self.self_keys(a) {
            SelfKeys::None => stored,
            SelfKeys::All => Some(BTreeSet::new()),
            SelfKeys::Keys(v) => stored.map(|r| r.difference(&v).cloned().collect()),
        }
    }

    /// The self-contained keys of app `a` (module header), whatever the options.
    pub(super) fn self_keys(&self, a: usize) -> SelfKeys {
        let attrs: FxHashSet<&str> = self.slots.iter().map(|(_, x)| x.as_str()).collect();
        analyse(&self.apps[a], &attrs)
    }

    /// Per app whose `state` keys (some read) are self-contained: its name and the keys, `*` for
    /// every key (a diagnostic: tests and docs/reductions-homes.md count the apps).
    pub fn self_contained_keys(&self) -> Vec<(String, String)> {
        (0..self.apps.len())
            .filter_map(|a| {
                let sc = footprint::scan_app(&self.apps[a]);
                match self.self_keys(a) {
                    SelfKeys::All if sc.state_reads_all || !sc.state_reads.is_empty() => Some("*".to_string()),
                    SelfKeys::Keys(v) => {
                        let read: Vec<&str> =
                            v.iter().filter(|k| sc.state_reads.contains(*k)).map(|k| k.as_str()).collect();
                        (!read.is_empty()).then(|| read.join(" "))
                    }
                    _ => None,
                }
                .map(|k| (self.apps[a].name.clone(), k))
            })
            .collect()
    }
}

/// The analysis of one app (module header).
fn analyse(app: &App, attrs: &FxHashSet<&str>) -> SelfKeys {
    let script = &app.script;
    let quiet = Quiet::of(app);
    let mut pre = Keys {
        keys: BTreeSet::new(),
        computed: false,
        refused: false,
        bound: FxHashSet::default(),
        quiet: &quiet,
        in_quiet: false,
    };
    let run: Vec<usize> = (0..script.methods.len()).filter(|&m| app.callable[m]).collect();
    pre.stmts(&script.top);
    run.iter().for_each(|&m| pre.stmts(&script.methods[m].body));
    pre.bound = quiet::bound_names(script);
    if pre.refused || RESERVED.iter().any(|r| pre.bound.contains(*r)) || pre.keys.is_empty() && !pre.computed {
        return SelfKeys::None;
    }
    let mut an = Slice {
        app,
        quiet: &quiet,
        in_quiet: false,
        attrs,
        computed: pre.computed,
        keys: pre.keys.into_iter().collect(),
        bound: pre.bound,
        names: FxHashMap::default(),
        ret: vec![0; script.methods.len() + 1],
        ctl_in: vec![0; script.methods.len() + 1],
        bad: 0,
        changed: true,
        m: 0,
        acc: 0,
    };
    let mut rounds = 0;
    while an.changed {
        an.changed = false;
        rounds += 1;
        if rounds > 200 || an.bad == ALL {
            return SelfKeys::None;
        }
        an.method(script.methods.len(), &script.top);
        for &m in &run {
            an.method(m, &script.methods[m].body);
        }
    }
    if an.computed {
        return if an.bad & 1 == 0 { SelfKeys::All } else { SelfKeys::None };
    }
    let v: BTreeSet<String> =
        an.keys.iter().enumerate().filter(|(i, _)| an.bad & bit(*i) == 0).map(|(_, k)| k.clone()).collect();
    if v.is_empty() {
        SelfKeys::None
    } else {
        SelfKeys::Keys(v)
    }
}

/// The class bit of the `i`th literal key (keys past the 63rd share one class).
fn bit(i: usize) -> u64 {
    1 << i.min(63)
}

/// The pre-pass: the literal keys, whether a key is computed, the names bound as locals
/// ([`quiet::bound_names`]), and the forms refused outright.
struct Keys<'a> {
    keys: BTreeSet<String>,
    computed: bool,
    refused: bool,
    bound: FxHashSet<String>,
    quiet: &'a Quiet,
    /// Within an inert argument of a quiet call (`quiet.rs`): `state` itself reads nothing.
    in_quiet: bool,
}

impl Walk for Keys<'_> {
    fn expr(&mut self, e: &Expr) {
        if let Some(inert) = self.quiet.inert_args(e) {
            return quiet::walk_call(self, e, &inert, |k| &mut k.in_quiet);
        }
        match e {
            Expr::Member { obj, name, .. } if is_state(obj) => {
                self.keys.insert(name.clone());
                return;
            }
            Expr::Index(o, i) if is_state(o) => {
                match i.as_ref() {
                    Expr::Str(k) => {
                        self.keys.insert(k.to_string());
                    }
                    _ => self.computed = true,
                }
                self.expr(i);
                return;
            }
            // The map itself handed on, read or written as a whole (not its text in a quiet
            // call's inert argument, `quiet.rs`).
            Expr::Var(_) if is_state(e) => self.refused |= !self.in_quiet,
            Expr::Call { name, .. } if name == groovy::DYNAMIC || name == "call" => self.refused = true,
            _ => {}
        }
        self.children(e)
    }
}

/// The fixpoint's state (module header): masks of key classes.
struct Slice<'a> {
    app: &'a App,
    quiet: &'a Quiet,
    /// Within an inert argument of a quiet call (`quiet.rs`): `state` itself reads nothing.
    in_quiet: bool,
    attrs: &'a FxHashSet<&'a str>,
    computed: bool,
    keys: Vec<String>,
    /// Names bound as locals anywhere in the app (a free call of one may call a closure).
    bound: FxHashSet<String>,
    /// (method, local name): the classes its values may depend on.
    names: FxHashMap<(usize, String), u64>,
    /// Per method (the top level last): the classes its result may depend on.
    ret: Vec<u64>,
    /// Per method: the classes on which whether it runs may depend.
    ctl_in: Vec<u64>,
    /// The classes that cannot be left out.
    bad: u64,
    changed: bool,
    /// The method walked.
    m: usize,
    /// The classes the value of the method or closure walked may depend on.
    acc: u64,
}

impl Slice<'_> {
    fn grow(changed: &mut bool, slot: &mut u64, by: u64) {
        if *slot | by != *slot {
            *slot |= by;
            *changed = true;
        }
    }

    /// Something not quiet, or a sink outside V, depends on `mask`: those classes stay.
    fn effect(&mut self, mask: u64) {
        Self::grow(&mut self.changed, &mut self.bad, mask);
    }

    fn class(&self, key: &str) -> u64 {
        if self.computed {
            return 1;
        }
        self.keys.iter().position(|k| k == key).map_or(ALL, bit)
    }

    fn in_v(&self, class: u64) -> bool {
        self.bad & class == 0
    }

    fn write_name(&mut self, name: &str, t: u64) {
        let slot = self.names.entry((self.m, name.to_string())).or_insert(0);
        Self::grow(&mut self.changed, slot, t);
    }

    fn method(&mut self, m: usize, body: &[Stmt]) {
        self.m = m;
        self.acc = 0;
        let ctl = self.ctl_in[m];
        self.stmts(body, ctl);
        let acc = self.acc;
        Self::grow(&mut self.changed, &mut self.ret[m], acc);
    }

    /// Walks statements under `ctl`; returns the classes under which they may leave early
    /// (`return`, `break`, `continue`), which the statements after depend on.
    fn stmts(&mut self, body: &[Stmt], ctl: u64) -> u64 {
        let mut ctl = ctl;
        let mut esc = 0;
        for st in body {
            let e = self.stmt(st, ctl);
            esc |= e;
            ctl |= e;
        }
        esc
    }

    /// A loop (or closure-iterating call) run under `ctl`: V-dependent, it would make the two
    /// sides of a condition differ by an unbounded number of steps.
    fn looping(&mut self, ctl: u64) {
        if ctl != 0 {
            self.effect(ctl);
        }
    }

    fn stmt(&mut self, st: &Stmt, ctl: u64) -> u64 {
        match st {
            Stmt::Expr(e, _) => {
                let t = self.expr(e, ctl);
                self.acc |= t | ctl;
                0
            }
            Stmt::Def(n, init, _) => {
                let t = init.as_ref().map_or(0, |e| self.expr(e, ctl));
                self.write_name(n, t | ctl);
                0
            }
            Stmt::If(c, a, b, _) => {
                let k = ctl | self.expr(c, ctl);
                self.stmts(a, k) | self.stmts(b, k)
            }
            Stmt::While(c, body) => {
                let k = ctl | self.expr(c, ctl);
                self.looping(k);
                let e = self.stmts(body, k);
                self.looping(e);
                e
            }
            Stmt::For(init, c, update, body) => {
                let mut k = ctl | self.stmts(init, ctl);
                if let Some(c) = c {
                    k |= self.expr(c, k);
                }
                self.looping(k);
                let e = self.stmts(body, k);
                self.looping(e);
                update.iter().for_each(|u| {
                    self.expr(u, k | e);
                });
                e
            }
            Stmt::ForIn(n, it, body) => {
                let k = ctl | self.expr(it, ctl);
                self.write_name(n, k);
                self.looping(k);
                let e = self.stmts(body, k);
                self.looping(e);
                e
            }
            Stmt::Switch(v, cases) => {
                let mut k = ctl | self.expr(v, ctl);
                let mut esc = 0;
                for (vals, _, body) in cases {
                    for x in vals {
                        k |= self.expr(x, k);
                    }
                    let e = self.stmts(body, k);
                    esc |= e;
                    k |= e;
                }
                esc
            }
            Stmt::Return(e) => {
                let t = e.as_ref().map_or(0, |e| self.expr(e, ctl));
                self.acc |= t | ctl;
                ctl
            }
            Stmt::Break | Stmt::Continue => ctl,
            Stmt::Block(b) => self.stmts(b, ctl),
            Stmt::Try(body, catches, fin) => {
                let e = self.stmts(body, ctl);
                let mut esc = e;
                for (n, c) in catches {
                    self.write_name(n, ctl | e);
                    esc |= self.stmts(c, ctl | e);
                }
                esc | self.stmts(fin, ctl | e)
            }
            Stmt::Throw(e) => {
                self.expr(e, ctl);
                self.effect(ctl);
                ctl
            }
        }
    }

    /// A read of a state key of class `class` under `ctl`: outside V it is an access of a live
    /// object, which a V-dependent condition may not decide.
    fn state_read(&mut self, class: u64, ctl: u64) -> u64 {
        if !self.in_v(class) {
            self.effect(ctl);
        }
        class
    }

    /// A write of a key of class `class` of a value depending on `t` (control included).
    fn state_write(&mut self, class: u64, t: u64) {
        if !self.in_v(class) {
            self.effect(t);
        }
    }

    /// Whether `obj.name` may read an attribute of a device or the location mode (`Ctx::member`).
    fn live_member(&self, name: &str) -> bool {
        name.starts_with("current") || name.ends_with("State") || name == "mode" || self.attrs.contains(name)
    }

    fn expr(&mut self, e: &Expr, ctl: u64) -> u64 {
        match e {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Dec(_) | Expr::Str(_) | Expr::New(..) => 0,
            Expr::GStr(parts) => parts
                .iter()
                .map(|p| match p {
                    GPart::Expr(e) => self.expr(e, ctl),
                    GPart::Lit(_) => 0,
                })
                .fold(0, |a, b| a | b),
            Expr::Var(n) => self.var(n, ctl),
            Expr::List(items) => items.iter().map(|x| self.expr(x, ctl)).fold(0, |a, b| a | b),
            Expr::Map(pairs) => pairs.iter().map(|(k, v)| self.expr(k, ctl) | self.expr(v, ctl)).fold(0, |a, b| a | b),
            Expr::Member { obj, name, .. } if is_state(obj) => {
                let c = self.class(name);
                self.state_read(c, ctl)
            }
            Expr::Member { obj, name, .. } => {
                let t = self.expr(obj, ctl);
                if self.live_member(name) {
                    self.effect(ctl | t);
                }
                t
            }
            Expr::Index(o, i) if is_state(o) => {
                let ti = self.expr(i, ctl);
                let c = match i.as_ref() {
                    Expr::Str(k) => self.class(k),
                    _ => self.class(""),
                };
                self.state_read(c, ctl) | ti
            }
            Expr::Index(o, i) => self.expr(o, ctl) | self.expr(i, ctl),
            Expr::Call { target, name, args, .. } => {
                let inert = self.quiet.inert_args(e).unwrap_or_default();
                self.call(target.as_deref(), name, args, &inert, ctl)
            }
            // Not given in place to a call: it may run anywhere, under anything.
            Expr::Closure(c) => {
                self.closure(c, ALL, ALL);
                0
            }
            Expr::Unary(_, a) | Expr::Cast(a, _) => self.expr(a, ctl),
            Expr::IncDec(_, t, _) => {
                let v = self.expr(t, ctl);
                self.assign(t, v, ctl);
                v
            }
            Expr::Binary(op, a, b) if *op == "&&" || *op == "||" => {
                let ta = self.expr(a, ctl);
                ta | self.expr(b, ctl | ta)
            }
            Expr::Binary(_, a, b) | Expr::Range(a, b, _) => self.expr(a, ctl) | self.expr(b, ctl),
            Expr::Ternary(c, a, b) => {
                let tc = self.expr(c, ctl);
                tc | self.expr(a, ctl | tc) | self.expr(b, ctl | tc)
            }
            Expr::Elvis(a, b) => {
                let ta = self.expr(a, ctl);
                ta | self.expr(b, ctl | ta)
            }
            Expr::Assign { op, target, value } => {
                let mut t = self.expr(value, ctl);
                if *op != "=" {
                    t |= self.expr(target, ctl);
                }
                self.assign(target, t, ctl);
                t
            }
        }
    }

    /// A variable: a local (by name, per method), a setting (constant), or a property read
    /// through the app's getter (`Ctx::var`).
    fn var(&mut self, n: &str, ctl: u64) -> u64 {
        if is_state(&Expr::Var(n.to_string())) {
            if self.in_quiet {
                return 0;
            }
            self.effect(ALL);
            return ALL;
        }
        let mut t = self.names.get(&(self.m, n.to_string())).copied().unwrap_or(0);
        let getter = callable::getter_name(n);
        if !self.app.settings.contains_key(n) && self.app.methods.contains_key(getter.as_str()) {
            t |= self.enter(&getter, &[], ctl);
        }
        t
    }

    /// Writes a value depending on `t` where `target` names (`Ctx::assign`): a local, a key, the
    /// mode, or into a collection written back to where it came from.
    fn assign(&mut self, target: &Expr, t: u64, ctl: u64) {
        match target {
            Expr::Var(n) => self.write_name(n, t | ctl),
            Expr::Member { obj, name, .. } if is_state(obj) => {
                let c = self.class(name);
                self.state_write(c, t | ctl)
            }
            Expr::Index(o, i) if is_state(o) => {
                let ti = self.expr(i, ctl);
                let c = match i.as_ref() {
                    Expr::Str(k) => self.class(k),
                    _ => self.class(""),
                };
                self.state_write(c, t | ti | ctl)
            }
            Expr::Member { obj, name, .. }
                if name == "mode" && matches!(obj.as_ref(), Expr::Var(v) if v == "location") =>
            {
                self.effect(t | ctl)
            }
            Expr::Member { obj, .. } => {
                let to = self.expr(obj, ctl);
                self.assign(obj, t | to, ctl)
            }
            Expr::Index(obj, i) => {
                let to = self.expr(obj, ctl) | self.expr(i, ctl);
                self.assign(obj, t | to, ctl)
            }
            _ => {}
        }
    }

    /// Enters the app's method `name` with arguments depending on `args` under `ctl`: its
    /// result's classes.
    fn enter(&mut self, name: &str, args: &[u64], ctl: u64) -> u64 {
        let Some(&mi) = self.app.methods.get(name) else { return 0 };
        if !self.app.callable[mi] {
            self.effect(ctl);
        }
        let params = &self.app.script.methods[mi].params;
        let all = args.iter().fold(0, |a, b| a | b);
        for (i, p) in params.iter().enumerate() {
            // Named arguments come as one leading map: any argument may reach any parameter.
            let t = args.get(i).copied().unwrap_or(0) | all;
            let slot = self.names.entry((mi, p.to_string())).or_insert(0);
            Self::grow(&mut self.changed, slot, t);
        }
        Self::grow(&mut self.changed, &mut self.ctl_in[mi], ctl);
        self.ret[mi]
    }

    /// A closure run in place (or anywhere, `ctl` = ALL), its parameters given values
    /// depending on `given`: the classes of its result.
    fn closure(&mut self, c: &Closure, ctl: u64, given: u64) -> u64 {
        for p in &c.0 {
            self.write_name(p, given | ctl);
        }
        let saved = std::mem::replace(&mut self.acc, 0);
        let e = self.stmts(&c.1, ctl);
        let r = std::mem::replace(&mut self.acc, saved);
        r | e
    }

    /// The arguments' classes, closures apart (run by the call).
    fn args(&mut self, args: &[Arg], ctl: u64) -> (Vec<u64>, Vec<Closure>) {
        let mut ts = Vec::new();
        let mut closures = Vec::new();
        for a in args {
            match a.value() {
                Expr::Closure(c) => closures.push(c.clone()),
                e => ts.push(self.expr(e, ctl)),
            }
        }
        (ts, closures)
    }

    /// The arguments of a call the model carries out as nothing: walked for what they read, the
    /// inert ones (`inert`, `quiet.rs`) with `state` itself read as nothing.
    fn discarded(&mut self, args: &[Arg], inert: &[bool], ctl: u64) {
        for (i, a) in args.iter().enumerate() {
            let outer = std::mem::replace(&mut self.in_quiet, inert.get(i).copied().unwrap_or(false));
            self.expr(a.value(), ctl);
            self.in_quiet = outer;
        }
    }

    fn call(&mut self, target: Option<&Expr>, name: &str, args: &[Arg], inert: &[bool], ctl: u64) -> u64 {
        let methods = &self.app.methods;
        let Some(t) = target else {
            if self.bound.contains(name) {
                // A local closure, maybe: unknown code.
                args.iter().for_each(|a| {
                    self.expr(a.value(), ALL);
                });
                self.effect(ALL);
                return ALL;
            }
            if DISCARDED.contains(&name) && !methods.contains_key(name) {
                self.discarded(args, inert, ctl);
                return 0;
            }
            if methods.contains_key(name) {
                let ts: Vec<u64> = args.iter().map(|a| self.expr(a.value(), ctl)).collect();
                return self.enter(name, &ts, ctl);
            }
            let (ts, closures) = self.args(args, ctl);
            let ta = ts.iter().fold(0, |a, b| a | b);
            if EFFECT_CALLS.contains(&name) || name.starts_with("runEvery") {
                self.effect(ctl | ta);
            }
            let mut r = ta;
            for c in &closures {
                self.looping(ctl | ta);
                r |= self.closure(c, ctl | ta, ta);
            }
            return r;
        };
        if matches!(t, Expr::Var(v) if v == "log") {
            self.discarded(args, inert, ctl);
            return 0;
        }
        let to = self.expr(t, ctl);
        let (ts, closures) = self.args(args, ctl);
        let ta = ts.iter().fold(to, |a, b| a | b);
        if !command_attrs(name).is_empty() || DEVICE_CALLS.contains(&name) {
            self.effect(ctl | ta);
        } else if MUTATING.contains(&name) {
            self.assign(t, ta, ctl);
        }
        let mut r = ta;
        for c in &closures {
            self.looping(ctl | ta);
            r |= self.closure(c, ctl | ta, ta);
        }
        r
    }
}
