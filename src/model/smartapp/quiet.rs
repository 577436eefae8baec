//! Quiet uses of an app's `state` (the thermostat home: thermostat-auto-off's
//! `log.debug "Desc: $evt.value , $state"`): a use of `state`, `atomicState` or a key of them
//! inside an *inert* argument of a *quiet* call reads nothing that a later step can observe,
//! so the state scans (`dead.rs`'s write-only keys through [`super::footprint::scan_app`],
//! `self_keys.rs`, `guarded.rs`) do not count it as a read.
//!
//! **Quiet calls** are those the interpreter carries out as nothing, evaluating their
//! arguments only to drop them (`Ctx::discard_args`): `log.x(...)` on the interpreter's `log`
//! (`Ctx::call`, not spread) and the notifications and HTTP calls of
//! [`super::self_keys::DISCARDED`] (`Ctx::call_free`), unless the app defines a method of that
//! name. The name must mean the interpreter's object or call: no local, parameter, closure
//! parameter, loop or catch variable, assigned script variable or input of the app is named
//! `log` or one of those calls (`Ctx::var` reads a local, then a setting, before `log`;
//! `Ctx::call_free` calls a local closure of that name first).
//!
//! **Inert arguments** are built from literals, interpolations, variables that are no
//! property read through a getter method of the app (`Ctx::var` runs `getX()` for `x`),
//! member reads (spread or not), indexes, operators, casts, ternaries, Elvis, ranges, lists,
//! maps and `new` (whose arguments the interpreter does not evaluate): no call, closure,
//! assignment or increment. Evaluating one (`Ctx::expr`) runs no statement and no method, so
//! it never meets the step budget, a `throw`, a conflict (made by attribute writes) or a
//! method the model refuses (`enter_method`): the interpreter's errors are raised only there.
//! Each form is total on every value (`binary`, `arith`, `index`, `member` give null where
//! Groovy would fail; a range is cut at 10,000 items), writes nothing (`Ctx::assign` is reached
//! only from assignments, increments and mutating calls) and moves no register a later
//! statement reads (the line is set by statements only). What it does is read: keys of the
//! app's `state` (`state` itself is an opaque object whose text is `state`: `"$state"` reads
//! no key), settings, locals and, through members, device attributes and the mode; and the
//! value read is dropped.
//!
//! *Why such a use is no read.* Take two states that differ only in keys of the app's
//! `state`, and an event run from both. Up to a quiet call, the runs agree; its inert
//! arguments are evaluated in both without an error, a write or a call, whatever the keys
//! hold, and the values are dropped, so after the call the runs agree again in everything but
//! the values dropped and the accesses recorded while reading (the app's state object, read
//! in both; an attribute read through a member of a key's value, in one run only). So the
//! reductions' bisimulations (`dead.rs`, `self_keys.rs`, `guarded.rs`) hold with such uses not
//! counted: the runs make the same writes, commands, deliveries, conflicts and errors. The
//! reduced model is explored as a model of its own, with the accesses its own runs record
//! (as `self_keys.rs` says of its quotient), so the reads it does not make are not needed
//! there. An argument that is not inert (`log.debug "${check(state.k)}"`, a call that may
//! throw, command a device or write a key) is walked as any other code: its uses are reads.
//!
//! Checked by tests/soundness_homes.rs (`gen_guarded_home`: copiers that log `$state` and a
//! key only ever logged, accepted; one whose log gives the copy to a method that throws on a
//! stale copy, refused). Planted: a call taken for inert (every call's arguments quiet): the
//! suite lost the stale-copy exception on 52 runs (docs/reductions-homes.md).

use rustc_hash::FxHashSet;

use super::footprint::Walk;
use super::*;

/// The quiet calls of one app and the names that would change them (module header).
#[derive(Clone, Default)]
pub(super) struct Quiet {
    /// Names bound by the app as a local, parameter, script variable or input.
    bound: FxHashSet<String>,
    /// The app's method names (getters, and methods named as a discarded call).
    methods: FxHashSet<String>,
}

impl Quiet {
    pub(super) fn of(app: &App) -> Quiet {
        let mut bound = bound_names(&app.script);
        bound.extend(app.settings.keys().cloned());
        Quiet { bound, methods: app.methods.keys().cloned().collect() }
    }

    /// Whether a call with this target and name is one the interpreter carries out as nothing.
    fn call(&self, target: Option<&Expr>, name: &str, spread: bool) -> bool {
        match target {
            Some(Expr::Var(v)) => v == "log" && !spread && !self.bound.contains("log"),
            Some(_) => false,
            None => self_keys::DISCARDED.contains(&name) && !self.methods.contains(name) && !self.bound.contains(name),
        }
    }

    /// For a quiet call, per argument whether it is inert; None for anything else.
    pub(super) fn inert_args(&self, e: &Expr) -> Option<Vec<bool>> {
        match e {
            Expr::Call { target, name, args, spread } if self.call(target.as_deref(), name, *spread) => {
                Some(args.iter().map(|a| self.inert(a.value())).collect())
            }
            _ => None,
        }
    }

    /// Whether evaluating `e` runs no code and cannot fail (module header).
    fn inert(&self, e: &Expr) -> bool {
        let all = |es: &mut dyn Iterator<Item = &Expr>| es.fold(true, |ok, x| ok && self.inert(x));
        match e {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Dec(_) | Expr::Str(_) => true,
            Expr::Var(n) => !self.methods.contains(&callable::getter_name(n)),
            Expr::GStr(parts) => all(&mut parts.iter().filter_map(|p| match p {
                GPart::Expr(x) => Some(x),
                GPart::Lit(_) => None,
            })),
            Expr::List(items) => all(&mut items.iter()),
            Expr::Map(pairs) => all(&mut pairs.iter().flat_map(|(k, v)| [k, v])),
            Expr::Member { obj, .. } | Expr::Unary(_, obj) | Expr::Cast(obj, _) => self.inert(obj),
            Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Elvis(a, b) | Expr::Range(a, b, _) => {
                self.inert(a) && self.inert(b)
            }
            Expr::Ternary(c, a, b) => self.inert(c) && self.inert(a) && self.inert(b),
            // The interpreter builds the object from its type alone.
            Expr::New(..) => true,
            Expr::Call { .. } | Expr::Closure(_) | Expr::Assign { .. } | Expr::IncDec(..) => false,
        }
    }
}

/// Walks a quiet call `e`'s target and arguments with `w`, its flag `in_quiet` set over the
/// inert ones (`inert`, from [`Quiet::inert_args`]).
pub(super) fn walk_call<W: Walk>(w: &mut W, e: &Expr, inert: &[bool], in_quiet: fn(&mut W) -> &mut bool) {
    let Expr::Call { target, args, .. } = e else { return };
    if let Some(t) = target {
        w.expr(t);
    }
    for (a, &inert) in args.iter().zip(inert) {
        let outer = *in_quiet(w);
        *in_quiet(w) |= inert;
        w.expr(a.value());
        *in_quiet(w) = outer;
    }
}

/// Every name the source binds: method, closure, loop and catch parameters, declarations, and
/// the script variables an assignment to a bare name makes.
pub(super) fn bound_names(script: &Script) -> FxHashSet<String> {
    let mut b = Binders::default();
    b.stmts(&script.top);
    for m in &script.methods {
        b.names.extend(m.params.iter().map(|p| p.to_string()));
        b.stmts(&m.body);
    }
    b.names
}

#[derive(Default)]
struct Binders {
    names: FxHashSet<String>,
}

impl Walk for Binders {
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Closure(c) => self.names.extend(c.0.iter().map(|p| p.to_string())),
            Expr::Assign { target, .. } | Expr::IncDec(_, target, _) => {
                if let Expr::Var(n) = target.as_ref() {
                    self.names.insert(n.clone());
                }
            }
            _ => {}
        }
        self.children(e)
    }

    fn stmt(&mut self, st: &Stmt) {
        match st {
            Stmt::Def(n, ..) | Stmt::ForIn(n, ..) => {
                self.names.insert(n.to_string());
            }
            Stmt::Try(_, catches, _) => self.names.extend(catches.iter().map(|c| c.0.to_string())),
            _ => {}
        }
        footprint::walk_stmt(self, st)
    }
}
