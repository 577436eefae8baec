//! Saved copies dead while their guard is off (the thermostat home): a key K of an
//! app's `state` that the app reads only when another key G says a copy was taken
//! (thermostat-mode-director's `currentMode1`, read only under `state.lastStatus ==
//! "disabled"`) is reset to absent in every stored state where the guard is off.
//!
//! This is live-variable reduction (Bozga, Fernandez and Ghirvu, "State space reduction based
//! on live variables analysis", SAS 1999, Section 3: a variable that every path writes before it
//! reads is dead and is reset to a fixed value), with liveness decided per *state* by a guard
//! rather than per program point: the SmartApp model has no program counter between
//! transitions, only the apps' `state` maps, so "K is written before it is read" must be read
//! off G's value.
//!
//! **The analysis** (per app, over the top level and every method the interpreter can enter,
//! `callable.rs`; the scan of `footprint.rs` first). A guard is an atom of an `if` condition's
//! conjunction: `state.G` (truthy) or `state.G == lit` (either side; a string, number or boolean
//! literal), with its predicate P evaluated as the interpreter does (`truthy`, `==`). Then K is
//! dead where P(G) is false if:
//! 1. every read of K (every occurrence of `state.K`, `state['K']` other than the whole target of
//!    a plain `=`, so `state.K += 1`, `state.K.x = v` and `state.K.add(v)` read it, and other
//!    than a *quiet use*, within an inert argument of a quiet call: `quiet.rs`) is in the
//!    then-branch of an `if` whose condition has the atom (lexically, in the same method or
//!    closure body; not in the condition itself), or in a method *entered under* the atom
//!    (below), or is *fresh*: preceded, in the same body, by
//!    a statement `state.K = e` that is a preceding sibling of it or of a statement enclosing it
//!    (so that statement ran, in this invocation, before the read);
//! 2. every write of G whose value may satisfy P (anything but a literal for which P is false:
//!    `state.lastStatus = null`, `= "one"`, `state.changed = false`) is a statement `state.G = e`
//!    and either (a) K is fresh at it (a `state.K = e` statement ran before, as in
//!    thermostat-auto-off's `turnOff`), or (b) it is followed in its block by a `state.K = e`
//!    with only *quiet* statements between (declarations, local and `state` assignments,
//!    expressions of literals, locals without a getter method, members, indexes, operators,
//!    casts and the four attribute queries: nothing that runs app code, delivers an event,
//!    ends the block by `return`/`break`/`continue`, or reads K), the app has no `try` and no
//!    other app of the home has a `try` whose body may run this app's code (below). A compound or nested write of G (`state.G += x`, `state.G.add(x)`, `x =
//!    state.G = v`) satisfies neither;
//! 3. the app reaches its `state` only by literal keys: the write-only scan's conditions (no
//!    computed key, no `state` map handed on, no call by a computed name; quiet uses apart, which
//!    read nothing: `log.debug "$state"`), and no local,
//!    parameter, closure parameter or input named `state` or `atomicState` (`atomicState` is
//!    the same map in the interpreter, and read as such).
//!
//! A key whose guard is itself such a key is not reset (the relation below would need both).
//!
//! **Guards through calls** (thermostat-auto-off reads its copy in `restore`, which
//! only `runIn(delay, 'restore')` under `if (... && state.changed)` enters). A *site* of a
//! method m is a written call `m(...)` or a property read `x` of its getter `m = getX`. A timer's
//! handler is no site: the hub runs it later, in a transition of its own (`timers.rs`), so a
//! method handed to `runIn` is open like a subscription's handler (thermostat-auto-off's
//! `restore` is no longer entered under `state.changed`). m is *closed* when
//! its sites are the only ways in: it is no installation entry, no text or method reference
//! names it elsewhere (a subscription's or a timer's handler, a stored name, a setting's
//! option, an endpoint), no text built in the source may be its name (`callable::built_names`),
//! and the app computes no handler and calls nothing by a computed name or by `call`. The atoms
//! a closed method is *entered under* are the greatest fixpoint of G(m) = the meet, over m's
//! sites s, of s's lexical atoms plus G(the method whose own body holds s) (nothing for a site
//! at the top level or in a closure, which may run anywhere); an open method, and one never
//! entered from outside the closed ones, gets nothing. *Why*: take any run of m's body, and the
//! frames of the transition's stack below it (a firing runs a handler or a timer's method, which
//! calls on). The lowest frame is an open method (a handler), so going up there is
//! a lowest closed frame m0, entered at a site s of an open frame: s's lexical atoms, which hold
//! G(m0), were evaluated to true in that frame before s ran. Inductively, each atom of G(mk) was
//! evaluated to true earlier in this transition, in a frame below, before the call that leads
//! to the read. That is all the argument below asks of a guarded read: the point p where the
//! atom held precedes the read in the same transition. Checked by tests/soundness_homes.rs (a
//! copier's helper entered under the guard by a call, accepted; the same helper also
//! called from an unguarded handler, where it throws on a stale copy, refused). Planted: the
//! unguarded sites ignored: caught (117 unsound runs, docs/reductions-homes.md).
//!
//! **Exceptions.** A transition that ends in an error (an exception, or a conflict under
//! `--conflict-mode end`) ends its path: no strategy steps from the state it leaves
//! (`explore/`: the error is reported and the state dropped), so a handler that stops between
//! G's write and K's leaves no state behind, unless a `try` catches the error (or a `finally`
//! runs code after it) and the transition goes on. The error can come from anywhere (a loop's
//! step budget runs out at any statement) and travels up through every app whose code is on the
//! stack (a command delivers to other apps' handlers inside the transition), so 2(b) requires
//! that the app has no `try` and that no other app has one whose body may deliver to it: a
//! `try` body is inert ([`TryBody`]) when it calls nothing but `log.*` and the calls the model
//! carries out as nothing (notifications, HTTP), and reads no getter, as the loggers' HTTP posts
//! are; an error raised in this app's window can only be caught by a `try` whose body is on the
//! stack below it, which an inert body never is (it runs no handler). 2(a) needs nothing, K
//! having been written first.
//!
//! **Why it is sound.** Let s ≈ t when s and t are equal but for K, and K may differ only where
//! P(G) is false. Run one event from s and from t side by side. Both runs do the same things as
//! long as neither reads K while the two K's differ (a quiet use reads a value it drops, with
//! no error or write whatever K holds: `quiet.rs`). Call K *agreed* at a point of the run when
//! the two hold the same K; once agreed, K stays agreed (both runs make the same writes). Claim:
//! K is agreed wherever the run reads it. A fresh read follows a write of K in this run. A
//! guarded read (lexically, or in a method entered under the atom) follows the guard's
//! evaluation to true, at some earlier point p of this transition. At p, P holds
//! of the current G. If G was not written before p in this transition, G is s's, so P(G) held in
//! s and K was agreed from the start. Otherwise the last write of G before p gave it a value
//! satisfying P, so by 2 that write is covered: by (a) K was written before it; by (b) K is
//! written after it before anything else can run, and p (an `if` condition) is not among the
//! quiet statements between, so p comes after K's write, unless an error stopped the run in
//! between, which ends the transition with no try to catch it. Either way K is agreed at p and
//! at the read. So both runs make the same reads, writes, accesses of the attributes and the
//! mode, conflicts and errors; at the end, if P(G) holds, G was either never written (and K
//! was agreed from the start) or last written by a covered write (K agreed), so the two end
//! states are again ≈-related. ≈ is a bisimulation preserving errors and attribute accesses,
//! and resetting K to absent where P(G) is false picks one representative per class (the
//! initial state, every configuration and every transition's end state are reset,
//! `reset_guarded`). The reset changes an app's `state` only when the transition wrote it (G
//! turned off, or K written while off), and such a transition records a write of that app's
//! state object, so the reduced model's accesses still bound what it changes (the partial-order
//! strategies' premise).
//!
//! As for the write-only keys (`dead.rs`): only under `--conflicts` (without it the outcome line,
//! which shows the keys, is the result), never under `--keep-dead-state`, and for every
//! strategy (it is a quotient of the model).

use std::collections::BTreeSet;

use super::quiet::Quiet;
use super::*;

/// What a guard asks of its key's value (the key absent: null).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Pred {
    Truthy,
    Eq(Value),
}

impl Pred {
    fn holds(&self, v: &Value) -> bool {
        match self {
            Pred::Truthy => v.truthy(),
            Pred::Eq(lit) => binary("==", v, lit).truthy(),
        }
    }
}

/// A key of an app's `state` reset to absent where its guard is off.
#[derive(Clone, Debug)]
pub(super) struct GuardedKey {
    app: usize,
    key: Text,
    guard: Text,
    pred: Pred,
}

/// The verdict on one key that the app reads under some `if` (for the probe and the tests):
/// `Ok(guard)` when it is reset where the guard is off, else why not.
#[derive(Clone, Debug)]
pub struct GuardVerdict {
    pub app: String,
    pub key: String,
    pub verdict: Result<String, String>,
}

/// An atom of an `if` condition: `state.key` (lit None, truthy) or `state.key == lit`.
#[derive(Clone, Debug, PartialEq)]
struct Atom {
    key: String,
    lit: Option<Expr>,
}

impl Atom {
    fn pred(&self) -> Pred {
        self.lit.as_ref().and_then(literal).map_or(Pred::Truthy, Pred::Eq)
    }
    fn text(&self) -> String {
        match &self.lit {
            None => format!("state.{}", self.key),
            Some(l) => format!("state.{} == {}", self.key, literal(l).map_or_else(String::new, |v| v.text())),
        }
    }
}

/// A read of a key: fresh (written before in the same body), else the guard atoms over it.
struct Read {
    key: String,
    line: usize,
    fresh: bool,
    guards: Vec<Atom>,
    /// The method whose own body holds it (None: the top level or a closure).
    method: Option<usize>,
}

/// A place that enters a method of the app by its written name: a call `m(...)`, a getter's
/// property read (a timer's handler is none: it runs in a transition of its own, `timers.rs`).
struct Site {
    callee: usize,
    /// The method whose own body holds it (None: the top level or a closure).
    from: Option<usize>,
    guards: Vec<Atom>,
}

/// A write of a key, as condition 2 sees it.
struct Write {
    key: String,
    line: usize,
    /// The value, when it is a literal (a plain `=`).
    literal: Option<Value>,
    /// Keys written by a statement that ran before, in the same body (2a).
    before: BTreeSet<String>,
    /// For a statement `state.key = e`: keys written after it behind quiet statements only (2b).
    after: BTreeSet<String>,
}

/// The walk of one app's code.
struct Collect<'a> {
    app: &'a App,
    reads: Vec<Read>,
    writes: Vec<Write>,
    /// Why the app cannot be followed (condition 3), when it cannot.
    give_up: Option<String>,
    /// Keys some `if` condition tests as a guard (not candidates themselves, for the verdicts).
    tested: BTreeSet<String>,
    /// A `try` anywhere in the app's code.
    has_try: bool,
    /// A `try` whose body may run another app's code (`TryBody`).
    live_try: bool,
    line: usize,
    /// The app's quiet calls (`quiet.rs`): their inert arguments read nothing.
    quiet: Quiet,
    /// The method whose own body is walked (None: the top level or a closure).
    method: Option<usize>,
    /// Where methods are entered by their written names.
    sites: Vec<Site>,
    /// Methods named by a text or a method reference other than a timer's handler: they may
    /// be subscribed to, scheduled, stored or called by that text anywhere.
    named: BTreeSet<usize>,
    /// A handler given to `runIn`, `subscribe` ... that is no literal: any method.
    computed_handler: bool,
}

/// The value of a literal expression (no interpolation).
fn literal(e: &Expr) -> Option<Value> {
    Some(match e {
        Expr::Null => Value::Null,
        Expr::Bool(b) => Value::Bool(*b),
        Expr::Int(i) => Value::Int(*i),
        Expr::Dec(d) => Value::Dec(*d),
        Expr::Str(x) => Value::Str(Text::Shared(x.clone())),
        _ => return None,
    })
}

fn is_state(e: &Expr) -> bool {
    matches!(e, Expr::Var(n) if n == "state" || n == "atomicState")
}

/// The key `e` names when it is `state.k` or `state['k']` (None: not a key, or a computed one).
fn state_key(e: &Expr) -> Option<&str> {
    match e {
        Expr::Member { obj, name, spread: false } if is_state(obj) => Some(name),
        Expr::Index(o, i) if is_state(o) => match i.as_ref() {
            Expr::Str(k) => Some(k),
            _ => None,
        },
        _ => None,
    }
}

/// The key a write through `t` lands in: `Ctx::assign` writes back along members and indexes
/// down to `state.k` (`state.k.x = v`, `state.k[i] = v`, and a mutating call on `state.k...`).
fn root_key(t: &Expr) -> Option<&str> {
    state_key(t).or_else(|| match t {
        Expr::Member { obj, .. } | Expr::Index(obj, _) => root_key(obj),
        _ => None,
    })
}

/// `state.k = e` (plain): the key and the value.
fn plain_state_write(e: &Expr) -> Option<(&str, &Expr)> {
    match e {
        Expr::Assign { op: "=", target, value } => state_key(target).map(|k| (k, value.as_ref())),
        _ => None,
    }
}

/// The guard atoms of an `if` condition: those of its `&&` conjuncts.
fn atoms(c: &Expr, out: &mut Vec<Atom>) {
    match c {
        Expr::Binary("&&", a, b) => {
            atoms(a, out);
            atoms(b, out);
        }
        Expr::Binary("==", a, b) => {
            for (x, y) in [(a, b), (b, a)] {
                if let (Some(k), Some(v)) = (state_key(x), literal(y)) {
                    if v != Value::Null {
                        out.push(Atom { key: k.to_string(), lit: Some(y.as_ref().clone()) });
                        return;
                    }
                }
            }
        }
        _ => {
            if let Some(k) = state_key(c) {
                out.push(Atom { key: k.to_string(), lit: None });
            }
        }
    }
}

/// Whether reading the variable `n` in `app` may run a method (Groovy's getter `getN()`).
fn has_getter(app: &App, n: &str) -> bool {
    !n.is_empty() && app.methods.contains_key(&callable::getter_name(n))
}

/// A `try` body's walk: whether it may run another app's code, i.e. deliver an event (a device
/// command, the mode, an event or routine sent, a timer's handler) or enter a method of its own
/// app that might. Only `log.*`, the free calls the model carries out as nothing (notifications,
/// HTTP: `self_keys::DISCARDED`, unless the app defines one) and reads that run no method are
/// inert; a closure's body counts as run. The loggers' `try { httpPostJson(...) { resp -> ... } }`
/// is inert: no other app's handler can be on the stack inside it, so it cannot catch an error
/// raised in a copier's window (module header, Exceptions).
struct TryBody<'a> {
    app: &'a App,
    live: bool,
}

impl footprint::Walk for TryBody<'_> {
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Call { target: Some(t), .. } if matches!(t.as_ref(), Expr::Var(v) if v == "log") => {}
            Expr::Call { target: None, name, .. }
                if self_keys::DISCARDED.contains(&name.as_str()) && !self.app.methods.contains_key(name) => {}
            Expr::Call { .. } => self.live = true,
            Expr::Var(n) if has_getter(self.app, n) => self.live = true,
            _ => {}
        }
        self.children(e)
    }
}

/// The attribute queries: they read an attribute and run no code.
const QUERIES: &[&str] = &["currentValue", "latestValue", "currentState", "latestState"];

impl Collect<'_> {
    /// Whether reading the variable `n` may run a method (Groovy's getter `getN()`).
    fn getter(&self, n: &str) -> bool {
        has_getter(self.app, n)
    }

    /// Whether `e` runs no app code, delivers nothing and cannot end a block early; the keys of
    /// `state` it reads are added to `reads`.
    fn quiet(&self, e: &Expr, reads: &mut BTreeSet<String>) -> bool {
        if let Some(k) = state_key(e) {
            reads.insert(k.to_string());
            return true;
        }
        match e {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Dec(_) | Expr::Str(_) => true,
            Expr::Var(n) => !is_state(e) && !self.getter(n),
            Expr::GStr(parts) => self.all(
                parts.iter().filter_map(|p| match p {
                    GPart::Expr(x) => Some(x),
                    GPart::Lit(_) => None,
                }),
                reads,
            ),
            Expr::List(items) => self.all(items.iter(), reads),
            Expr::Map(pairs) => self.all(pairs.iter().flat_map(|(k, v)| [k, v]), reads),
            Expr::Member { obj, .. } | Expr::Unary(_, obj) | Expr::Cast(obj, _) => self.quiet(obj, reads),
            Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Elvis(a, b) | Expr::Range(a, b, _) => {
                self.all([a.as_ref(), b.as_ref()].into_iter(), reads)
            }
            Expr::Ternary(c, a, b) => self.all([c.as_ref(), a.as_ref(), b.as_ref()].into_iter(), reads),
            Expr::Call { target: Some(t), name, args, .. } if QUERIES.contains(&name.as_str()) => {
                self.quiet(t, reads) && self.all(args.iter().map(|a| a.value()), reads)
            }
            Expr::New(_, args) => self.all(args.iter().map(|a| a.value()), reads),
            Expr::Call { .. } | Expr::Closure(_) | Expr::Assign { .. } | Expr::IncDec(..) => false,
        }
    }

    fn all<'e>(&self, es: impl IntoIterator<Item = &'e Expr>, reads: &mut BTreeSet<String>) -> bool {
        es.into_iter().all(|x| self.quiet(x, reads))
    }

    /// Keys written by `state.k = e` statements after a write, behind quiet statements only,
    /// each before any read of it there (2b).
    fn window(&self, rest: &[Stmt]) -> BTreeSet<String> {
        let mut after = BTreeSet::new();
        let mut read = BTreeSet::new();
        for st in rest {
            let quiet = match st {
                Stmt::Expr(e, _) => match (plain_state_write(e), e) {
                    (Some((k, v)), _) => {
                        let q = self.quiet(v, &mut read);
                        if q && !read.contains(k) {
                            after.insert(k.to_string());
                        }
                        q
                    }
                    (None, Expr::Assign { op: "=", target, value }) if matches!(target.as_ref(), Expr::Var(_)) => {
                        self.quiet(value, &mut read)
                    }
                    (None, e) => self.quiet(e, &mut read),
                },
                Stmt::Def(_, init, _) => init.as_ref().is_none_or(|e| self.quiet(e, &mut read)),
                _ => false,
            };
            if !quiet {
                break;
            }
        }
        after
    }

    fn shadows(&mut self, name: &str) {
        if name == "state" || name == "atomicState" {
            self.give_up.get_or_insert_with(|| format!("a variable named `{name}`"));
        }
    }

    fn block(&mut self, body: &[Stmt], guards: &[Atom], fresh: &BTreeSet<String>) {
        let mut fresh = fresh.clone();
        for (i, st) in body.iter().enumerate() {
            self.stmt(st, guards, &fresh, &body[i + 1..]);
            if let Stmt::Expr(e, _) = st {
                if let Some((k, _)) = plain_state_write(e) {
                    fresh.insert(k.to_string());
                }
            }
        }
    }

    fn stmt(&mut self, st: &Stmt, guards: &[Atom], fresh: &BTreeSet<String>, rest: &[Stmt]) {
        match st {
            Stmt::Expr(e, line) => {
                self.line = *line;
                match plain_state_write(e) {
                    Some((k, v)) => {
                        self.expr(v, guards, fresh);
                        let after = self.window(rest);
                        self.write(k, Some(v), fresh, after);
                    }
                    None => self.expr(e, guards, fresh),
                }
            }
            Stmt::Def(n, init, line) => {
                self.line = *line;
                self.shadows(n);
                if let Some(e) = init {
                    self.expr(e, guards, fresh);
                }
            }
            Stmt::If(c, a, b, _) => {
                self.expr(c, guards, fresh);
                let mut inner = guards.to_vec();
                atoms(c, &mut inner);
                self.tested.extend(inner[guards.len()..].iter().map(|a| a.key.clone()));
                self.block(a, &inner, fresh);
                self.block(b, guards, fresh);
            }
            Stmt::While(c, b) => {
                self.expr(c, guards, fresh);
                self.block(b, guards, fresh);
            }
            Stmt::For(init, c, update, b) => {
                self.block(init, guards, fresh);
                if let Some(c) = c {
                    self.expr(c, guards, fresh);
                }
                update.iter().for_each(|u| self.expr(u, guards, fresh));
                self.block(b, guards, fresh);
            }
            Stmt::ForIn(n, it, b) => {
                self.shadows(n);
                self.expr(it, guards, fresh);
                self.block(b, guards, fresh);
            }
            Stmt::Switch(v, cases) => {
                self.expr(v, guards, fresh);
                for (vals, _, b) in cases {
                    vals.iter().for_each(|x| self.expr(x, guards, fresh));
                    self.block(b, guards, fresh);
                }
            }
            Stmt::Return(Some(e)) | Stmt::Throw(e) => self.expr(e, guards, fresh),
            Stmt::Return(None) | Stmt::Break | Stmt::Continue => {}
            Stmt::Block(b) => self.block(b, guards, fresh),
            Stmt::Try(a, catches, fin) => {
                self.has_try = true;
                let mut body = TryBody { app: self.app, live: false };
                footprint::Walk::stmts(&mut body, a);
                self.live_try |= body.live;
                self.block(a, guards, fresh);
                for (n, c) in catches {
                    self.shadows(n);
                    self.block(c, guards, fresh);
                }
                self.block(fin, guards, fresh);
            }
        }
    }

    /// A write of `key`; `value` given for a plain `=`.
    fn write(&mut self, key: &str, value: Option<&Expr>, fresh: &BTreeSet<String>, after: BTreeSet<String>) {
        self.writes.push(Write {
            key: key.to_string(),
            line: self.line,
            literal: value.and_then(literal),
            before: fresh.clone(),
            after,
        });
    }

    fn read(&mut self, key: &str, guards: &[Atom], fresh: &BTreeSet<String>) {
        self.reads.push(Read {
            key: key.to_string(),
            line: self.line,
            fresh: fresh.contains(key),
            guards: guards.to_vec(),
            method: self.method,
        });
    }

    /// Notes where `e` may enter a method of the app (`Site`, `named`, `computed_handler`);
    /// true when it has walked `e` itself (`runIn` given a method's name).
    fn entries(&mut self, e: &Expr, guards: &[Atom], fresh: &BTreeSet<String>) -> bool {
        let methods = &self.app.methods;
        let site = |callee: usize, c: &Self| Site { callee, from: c.method, guards: guards.to_vec() };
        match e {
            Expr::Str(x) => self.named.extend(methods.get(&**x)),
            Expr::Var(n) => {
                self.named.extend(methods.get(n.as_str()));
                if let Some(&g) = methods.get(&callable::getter_name(n)) {
                    self.sites.push(site(g, self));
                }
            }
            Expr::Call { target: None, name, args, .. } => {
                if let Some(&m) = methods.get(name.as_str()) {
                    self.sites.push(site(m, self));
                    return false;
                }
                // `runIn` runs its handler at once, inside the call (`timers.rs`): a call from
                // here, under these guards; the handler after the delay (or the options map).
                if name == "runIn" {
                    for (i, a) in args.iter().enumerate() {
                        let handler = match a.value() {
                            Expr::Str(x) if (1..3).contains(&i) => methods.get(&**x),
                            Expr::Var(n) if (1..3).contains(&i) => methods.get(n.as_str()),
                            _ => None,
                        };
                        match handler {
                            Some(&m) => self.sites.push(site(m, self)),
                            None => {
                                self.computed_handler |= (1..3).contains(&i) && !handler_literal(a.value(), self.app);
                                self.expr(a.value(), guards, fresh);
                            }
                        }
                    }
                    return true;
                }
                // A timer's method runs later, in a transition of its own (`timers.rs`), as a
                // subscription's handler does: entered from no guard, its name walked as a text.
                let handler_from = match name.as_str() {
                    "subscribe" => 1,
                    n => match timers::timer_handler_position(n) {
                        Some(p) => p,
                        None => return false,
                    },
                };
                let computed = args.iter().skip(handler_from).any(|a| !handler_literal(a.value(), self.app));
                self.computed_handler |= computed;
            }
            // A call by a computed name, or of a text (`h.call()`): any method.
            Expr::Call { name, .. } if name == groovy::DYNAMIC || name == "call" => self.computed_handler = true,
            _ => {}
        }
        false
    }

    fn expr(&mut self, e: &Expr, guards: &[Atom], fresh: &BTreeSet<String>) {
        if let Some(k) = state_key(e) {
            self.read(k, guards, fresh);
            return;
        }
        // A quiet call: its inert arguments read nothing, run nothing and write nothing
        // (`quiet.rs`), so only the others are walked.
        if let (Some(inert), Expr::Call { target, args, .. }) = (self.quiet.inert_args(e), e) {
            if let Some(t) = target {
                self.expr(t, guards, fresh);
            }
            for (a, inert) in args.iter().zip(inert) {
                if !inert {
                    self.expr(a.value(), guards, fresh);
                }
            }
            return;
        }
        if self.entries(e, guards, fresh) {
            return;
        }
        match e {
            Expr::Index(o, _) if is_state(o) => {
                self.give_up.get_or_insert_with(|| format!("a computed key at line {}", self.line));
            }
            Expr::Var(_) if is_state(e) => {
                self.give_up.get_or_insert_with(|| format!("`state` used as a value at line {}", self.line));
            }
            Expr::Assign { op, target, value } => {
                self.expr(value, guards, fresh);
                match (*op, state_key(target)) {
                    // Not a statement of its own (`x = state.k = v`): no window after it.
                    ("=", Some(k)) => return self.write(k, Some(value), fresh, BTreeSet::new()),
                    _ => {
                        if let Some(k) = root_key(target) {
                            self.write(k, None, fresh, BTreeSet::new());
                        }
                    }
                }
                self.expr(target, guards, fresh);
                return;
            }
            Expr::IncDec(_, t, _) | Expr::Call { target: Some(t), .. } => {
                // A mutating call writes back along its target (`Ctx::method`): counted as a
                // write of the key whatever the method.
                if let Some(k) = root_key(t) {
                    self.write(k, None, fresh, BTreeSet::new());
                }
            }
            Expr::Closure(c) => {
                // A closure may run later (a handler, a stored value): nothing around it holds,
                // not even the guards its method was entered under.
                c.0.iter().for_each(|p| self.shadows(p));
                let outer = self.method.take();
                self.block(&c.1, &[], &BTreeSet::new());
                self.method = outer;
                return;
            }
            _ => {}
        }
        self.children(e, guards, fresh);
    }

    fn children(&mut self, e: &Expr, guards: &[Atom], fresh: &BTreeSet<String>) {
        let mut go = |x: &Expr| self.expr(x, guards, fresh);
        match e {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Dec(_) | Expr::Str(_) | Expr::Var(_) => {}
            Expr::GStr(parts) => parts.iter().for_each(|p| {
                if let GPart::Expr(x) = p {
                    go(x)
                }
            }),
            Expr::List(items) => items.iter().for_each(go),
            Expr::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                go(k);
                go(v);
            }),
            Expr::Member { obj, .. } | Expr::Unary(_, obj) | Expr::Cast(obj, _) | Expr::IncDec(_, obj, _) => go(obj),
            Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Elvis(a, b) | Expr::Range(a, b, _) => {
                go(a);
                go(b);
            }
            Expr::Assign { target, value, .. } => {
                go(value);
                go(target);
            }
            Expr::Call { target, args, .. } => {
                if let Some(t) = target {
                    go(t);
                }
                args.iter().for_each(|a| go(a.value()));
            }
            Expr::New(_, args) => args.iter().for_each(|a| go(a.value())),
            Expr::Closure(_) => {}
            Expr::Ternary(c, a, b) => {
                go(c);
                go(a);
                go(b);
            }
        }
    }
}

/// The walk of `app`'s code the interpreter can run.
fn collect(app: &App) -> Collect<'_> {
    let mut c = Collect {
        app,
        reads: Vec::new(),
        writes: Vec::new(),
        give_up: None,
        tested: BTreeSet::new(),
        has_try: false,
        live_try: false,
        line: 0,
        quiet: Quiet::of(app),
        method: None,
        sites: Vec::new(),
        named: BTreeSet::new(),
        computed_handler: false,
    };
    let sc = footprint::scan_app(app);
    if sc.state_reads_all || sc.dynamic {
        c.give_up =
            Some("`state` used in a way the scan cannot follow (computed key or call name, map handed on)".into());
    }
    // An input named `state` is what a read of `state.k` reads (`Ctx::var`), not the map.
    for n in ["state", "atomicState"] {
        if app.settings.contains_key(n) {
            c.shadows(n);
        }
    }
    c.block(&app.script.top, &[], &BTreeSet::new());
    for (i, (m, _)) in app.script.methods.iter().zip(&app.callable).enumerate().filter(|(_, (_, k))| **k) {
        m.params.iter().for_each(|p| c.shadows(p));
        c.line = m.line;
        c.method = Some(i);
        c.block(&m.body, &[], &BTreeSet::new());
        c.method = None;
    }
    let inherited = entered_under(&c);
    for r in &mut c.reads {
        for a in r.method.map_or(&[][..], |m| &inherited[m][..]) {
            if !r.guards.contains(a) {
                r.guards.push(a.clone());
            }
        }
    }
    c
}

/// Per method of the app `c` walked: the guard atoms that held, earlier in the transition,
/// whenever it runs (module header, guards through calls). Empty for a method that may be
/// entered otherwise than by a written name: an installation entry, a method named by a text
/// or a method reference other than a timer's handler (subscribed to, scheduled, stored), one
/// a built text may name, and every method when a handler or a call name is computed.
fn entered_under(c: &Collect) -> Vec<Vec<Atom>> {
    let script = &c.app.script;
    let built = callable::built_names(script);
    let n = script.methods.len();
    let open = |m: usize| {
        c.computed_handler
            || built[m]
            || c.named.contains(&m)
            || matches!(script.methods[m].name.as_str(), "installed" | "initialize" | "updated" | "uninstalled")
            || !c.sites.iter().any(|s| s.callee == m)
    };
    // The greatest fixpoint of G(m) = the meet over m's sites s of (s's guards + G(s's method)),
    // from "every atom" (None) down; a method left at None is entered from nowhere outside
    // methods left so (a cycle never entered), and is given nothing.
    let mut g: Vec<Option<Vec<Atom>>> = (0..n).map(|m| if open(m) { Some(Vec::new()) } else { None }).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for m in (0..n).filter(|&m| !open(m)) {
            let mut meet: Option<Vec<Atom>> = None;
            for s in c.sites.iter().filter(|s| s.callee == m) {
                let held = match s.from {
                    None => Some(s.guards.clone()),
                    Some(f) => g[f].as_ref().map(|inner| {
                        let mut all = s.guards.clone();
                        all.extend(inner.iter().filter(|a| !s.guards.contains(a)).cloned());
                        all
                    }),
                };
                meet = match (meet, held) {
                    (None, h) => h,
                    (m, None) => m,
                    (Some(mut m), Some(h)) => {
                        m.retain(|a| h.contains(a));
                        Some(m)
                    }
                };
            }
            if meet != g[m] {
                g[m] = meet;
                changed = true;
            }
        }
    }
    g.into_iter().map(Option::unwrap_or_default).collect()
}

/// Whether a handler argument is no computed text: a literal, a closure, a collection literal,
/// or a method reference.
fn handler_literal(e: &Expr, app: &App) -> bool {
    match e {
        Expr::Var(n) => app.methods.contains_key(n.as_str()),
        Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Dec(_) | Expr::Str(_) => true,
        Expr::Closure(_) | Expr::Map(_) | Expr::List(_) => true,
        _ => false,
    }
}

/// The guard under which `key` is live in the app `c` walked, or why there is none.
fn guard_of(c: &Collect, key: &str, windows: bool) -> Result<Atom, String> {
    let reads: Vec<&Read> = c.reads.iter().filter(|r| r.key == key && !r.fresh).collect();
    let mut candidates: Vec<Atom> = reads[0].guards.iter().filter(|a| a.key != key).cloned().collect();
    for r in &reads {
        candidates.retain(|a| r.guards.contains(a));
    }
    if let Some(r) = reads.iter().find(|r| r.guards.is_empty()) {
        return Err(format!("read at line {} under no guard", r.line));
    }
    if candidates.is_empty() {
        return Err(format!(
            "reads at lines {:?} under no common guard",
            reads.iter().map(|r| r.line).collect::<Vec<_>>()
        ));
    }
    let mut why = String::new();
    for a in candidates {
        let pred = a.pred();
        let uncovered = c.writes.iter().filter(|w| w.key == a.key).find(|w| {
            let off = w.literal.as_ref().is_some_and(|v| !pred.holds(v));
            !(off || w.before.contains(key) || (windows && w.after.contains(key)))
        });
        match uncovered {
            None => return Ok(a),
            Some(w) => {
                why = format!(
                    "the write of state.{} at line {} may turn `{}` on with {key} not written",
                    a.key,
                    w.line,
                    a.text()
                )
            }
        }
    }
    Err(why)
}

impl SmartAppModel {
    /// The guarded keys of every app and the verdicts on every key read under an `if` (module
    /// header); none under `--keep-dead-state` or without `--conflicts`.
    pub(super) fn guarded_analysis(&self) -> (Vec<GuardedKey>, Vec<GuardVerdict>) {
        if self.opts.keep_dead_state || !self.opts.conflicts {
            return (Vec::new(), Vec::new());
        }
        let walks: Vec<Collect> = self.apps.iter().map(collect).collect();
        let mut keys = Vec::new();
        let mut verdicts = Vec::new();
        for (a, c) in walks.iter().enumerate() {
            // 2(b) needs every error raised in a window to end its transition: no `try` in the
            // app's own code, and none in another app's whose body may run this app's code.
            let windows = !c.has_try && !walks.iter().enumerate().any(|(b, w)| b != a && w.live_try);
            // Every key read before it is written under another key's guard, and those read
            // before written that no `if` tests (a guard is read unguarded by nature).
            let mut considered: Vec<&str> = c
                .reads
                .iter()
                .filter(|r| !r.fresh && (!c.tested.contains(&r.key) || r.guards.iter().any(|a| a.key != r.key)))
                .map(|r| r.key.as_str())
                .collect();
            considered.sort_unstable();
            considered.dedup();
            let mut found: Vec<(String, Result<Atom, String>)> = considered
                .into_iter()
                .map(|k| {
                    let v = match (&c.give_up, guard_of(c, k, windows)) {
                        (None, v) => v,
                        (Some(why), Ok(_)) => Err(why.clone()),
                        (Some(why), Err(also)) => Err(format!("{why}; and {also}")),
                    };
                    (k.to_string(), v)
                })
                .collect();
            // A guard that is itself reset would make the relation two-level: not done.
            loop {
                let reset: BTreeSet<String> = found.iter().filter(|(_, v)| v.is_ok()).map(|(k, _)| k.clone()).collect();
                let mut changed = false;
                for (_, v) in &mut found {
                    if let Ok(g) = v {
                        if reset.contains(&g.key) {
                            *v = Err(format!("its guard state.{} is itself reset", g.key));
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            for (k, v) in found {
                if let Ok(g) = &v {
                    keys.push(GuardedKey {
                        app: a,
                        key: k.clone().into(),
                        guard: g.key.clone().into(),
                        pred: g.pred(),
                    });
                }
                verdicts.push(GuardVerdict { app: self.apps[a].name.clone(), key: k, verdict: v.map(|g| g.text()) });
            }
        }
        (keys, verdicts)
    }

    /// Resets each guarded key to absent where its guard is off: the representative of the
    /// states the module header relates (after every transition and in the initial states).
    pub(super) fn reset_guarded(&self, st: &mut SmartState) {
        let absent = Value::Null;
        for g in &self.guarded {
            let keys = &mut st.states[g.app];
            // Every transition's end: the guard's value read in place, not cloned.
            let on = keys.iter().find(|(k, _)| **k == *g.guard).map_or(&absent, |(_, v)| v);
            if !g.pred.holds(on) {
                if let Some(i) = keys.iter().position(|(k, _)| **k == *g.key) {
                    keys.remove(i);
                }
            }
        }
    }

    /// [`SmartAppModel::reset_guarded`] on the initial state and every configuration.
    pub(super) fn reset_guarded_initial(&mut self) {
        let mut init = self.init.clone();
        self.reset_guarded(&mut init);
        let mut configs = self.configs.clone();
        for (_, c) in &mut configs {
            self.reset_guarded(c);
        }
        (self.init, self.configs) = (init, configs);
    }

    /// The verdict on every key an app reads under an `if` (module header).
    pub fn guard_verdicts(&self) -> &[GuardVerdict] {
        &self.guard_verdicts
    }
}
