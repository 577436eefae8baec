//! Safety properties of a home (docs/properties.md), checked by every strategy as part of the
//! transition: a violation is an error of kind `property` that ends its path (as an assertion
//! ends a SPIN run in IoTSan, or IoTCheck's JPF run), named by the property, with the event, the
//! app and the handler line that broke it.
//!
//! **What is checked, where.** A transition is one event and every handler it causes, so every
//! state a transition reaches is one where the home rests (all handlers have run).
//! - an *invariant* is broken by a step that starts where it holds, ends where it does not, and
//!   in which an app wrote (changed) something it reads: the apps drove the home out of it (the
//!   states the environment chooses at installation, and its own events alone, are not the
//!   apps' doing; a response says what the apps must do about those);
//! - a *command rule* (`never unlock main-door when mode == away`) is broken when an app sends
//!   that command to that device while the condition holds, in the state at that moment;
//! - a *response* (`when leak.water == wet then valve.valve == closed`) is broken by a step that
//!   makes its trigger true and ends (the home at rest) with its response false;
//! - the *threats* are observed within one event's handling: the same command sent twice to a
//!   device (`repeated-command`), two different values commanded to one attribute
//!   (`conflicting-commands`), an event delivered again while its own delivery is still running
//!   (`self-retrigger`, a loop of IoTCOM's chain triggering).
//!
//! **Why every strategy finds the same violations.** Whether a step from state s by event e
//! breaks a property is a function of s and e: invariants and responses read the values of
//! their objects (attributes, the mode) before and after, which the step's run determines; the
//! command rules and threats read the commands and deliveries of the run and the state at that
//! point. The check records what it reads as accesses of the step: a read of every object of a
//! property it evaluates (an invariant or response is evaluated when the step writes one of its
//! objects, since otherwise neither side changes; a command rule's condition is read through the
//! interpreter's own accessors). So a step whose verdict could change when another step runs
//! first is dependent with it, and the partial-order reductions explore both orders; the
//! state-caching searches see the verdict as any error of a step (a function of the stored state
//! and the event); the firing memo (src/explore/firing_memo.rs) keys a firing by everything it
//! read, the check's reads included. The static reductions count the properties' objects as
//! read (`read_by_properties`): an attribute a property reads is never dead (`dead.rs`), an
//! event writing one is always scheduled (`slice.rs`), and the static footprints
//! (`footprint.rs`) add a property's objects as reads to every choice that may write one of
//! them. tests/properties_soundness.rs compares every strategy with `full` on generated homes
//! under properties, with planted bugs it catches.

use std::path::Path;

use super::*;
use crate::trace::home::HomeFile;
use crate::trace::properties::{Body, CmpOp, Expr as PExpr, Operand, PropertyDecl, Quant, Threat};
use crate::trace::InputError;

/// Marks a property violation among the runtime errors (never caught by an app's `try`).
pub(super) const PROPERTY: &str = "property: ";

/// The library of properties shipped with the tool: IoTSan's Table 4 and IoTCOM's P1-P29,
/// attached to device roles (docs/properties.md).
pub const LIBRARY: &str = include_str!("library.props");

/// The library's name in reports.
pub const LIBRARY_FILE: &str = "library.props";

/// Device commands that change no attribute but that a command rule may name (a tone's beep, a
/// speaker's speech).
const STATELESS_COMMANDS: [&str; 4] = ["beep", "speak", "take", "push"];

/// A value a property compares with.
#[derive(Clone, Debug)]
enum Val {
    Slot(u32),
    /// Every (`all`) or some (`any`) of these slots.
    Slots(bool, Vec<u32>),
    Mode,
    Const(String),
}

#[derive(Clone, Debug)]
enum Cond {
    Const(bool),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Implies(Box<Cond>, Box<Cond>),
    Cmp(Val, CmpOp, Val),
}

#[derive(Clone, Debug)]
enum Kind {
    Invariant(Cond),
    Never { dev: u16, command: String, when: Option<Cond> },
    Respond { when: Cond, then: Cond },
    Threat(Threat),
}

/// One property as checked: a declaration instantiated on the home's devices.
#[derive(Clone, Debug)]
pub(super) struct Prop {
    /// `name` or `name[device,...]` for an instance over roles.
    name: String,
    text: Option<String>,
    source: Option<String>,
    file: String,
    line: usize,
    kind: Kind,
    /// The objects it reads (slots, the mode), sorted.
    objects: Vec<u32>,
    /// The message of its violations (what tells them apart).
    message: String,
}

/// The properties of a model.
#[derive(Clone, Debug, Default)]
pub(super) struct Props {
    list: Vec<Prop>,
    /// Per object (slots, then the mode): whether some property reads it.
    read: Vec<bool>,
    /// The option text replay lines carry (` --properties FILE`, ` --no-default-properties`).
    flags: String,
}

/// What a firing's check keeps (one per transition, when there are properties).
#[derive(Default)]
pub(super) struct PropRun {
    /// Per invariant and response: whether it (its trigger) held before the step.
    before: Vec<bool>,
    /// App writes that changed an object: (object, app, line, subscription).
    app_writes: Vec<(u32, usize, usize, Option<usize>)>,
    /// App commands of the step: (slot, value).
    commands: Vec<(u32, Value)>,
    /// Deliveries running: (device, attribute, value).
    delivering: Vec<(Option<u16>, Text, Text)>,
    /// The violation found, as (property, app, line, subscription).
    pub(super) violation: Option<(usize, usize, usize, Option<usize>)>,
}

impl Props {
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    fn has_threat(&self, t: Threat) -> Option<usize> {
        self.list.iter().position(|p| matches!(p.kind, Kind::Threat(x) if x == t))
    }
}

/// Where a name resolves: a device of that name, else the devices of that role.
fn resolve(m: &SmartAppModel, roles: &[Vec<String>], name: &str) -> (bool, Vec<u16>) {
    if let Some(d) = m.devices.iter().position(|d| d == name) {
        return (true, vec![d as u16]);
    }
    (false, (0..m.devices.len()).filter(|&d| roles[d].iter().any(|r| r == name)).map(|d| d as u16).collect())
}

/// Why a declaration does not apply, at a position (an error for the user's own properties;
/// for the library, the property is left out).
struct NotApplicable(crate::trace::home::Pos, String);

impl SmartAppModel {
    /// Compiles the properties the options and the home give (the home's own, the file of
    /// `--properties`, and the library's that apply to a home's devices), before the reductions
    /// that must count what they read.
    pub(super) fn attach_properties(&mut self, home: Option<&HomeFile>) -> Result<(), InputError> {
        let mut decls: Vec<(PropertyDecl, bool)> = Vec::new();
        if let Some(h) = home {
            decls.extend(h.properties.iter().cloned().map(|p| (p, false)));
        }
        let mut flags = String::new();
        if let Some(f) = self.opts.properties.file {
            decls.extend(crate::trace::properties::read(f)?.into_iter().map(|p| (p, false)));
            flags.push_str(&format!(" --properties {}", f.display()));
        }
        let library = home.is_some_and(|h| h.library) && !self.opts.properties.no_library;
        if self.opts.properties.no_library {
            flags.push_str(" --no-default-properties");
        }
        if library {
            let lib = crate::trace::properties::parse(Path::new(LIBRARY_FILE), LIBRARY)
                .map_err(|e| InputError::file(Path::new(LIBRARY_FILE), format!("the library does not parse: {e}")))?;
            // A property of the user's of the same name replaces the library's.
            for p in lib {
                if !decls.iter().any(|(q, _)| q.name == p.name) {
                    decls.push((p, true));
                }
            }
        }
        crate::trace::properties::check_names(&decls.iter().map(|d| d.0.clone()).collect::<Vec<_>>())?;
        let roles = self.device_roles(home);
        let mut list = Vec::new();
        for (decl, from_library) in &decls {
            match self.instances(decl, &roles) {
                Ok(mut found) => list.append(&mut found),
                Err(NotApplicable(pos, why)) => {
                    if !from_library {
                        return Err(pos.error(&decl.file, why));
                    }
                }
            }
        }
        let mut read = vec![false; self.slots.len() + 1];
        for p in &list {
            p.objects.iter().for_each(|&o| read[o as usize] = true);
        }
        self.props = Props { list, read, flags };
        Ok(())
    }

    /// The instances of a declaration: one per combination of the devices its role names stand
    /// for (a device name stands for itself).
    fn instances(&self, decl: &PropertyDecl, roles: &[Vec<String>]) -> Result<Vec<Prop>, NotApplicable> {
        // The free names (neither `all` nor `any`) that name roles, in order.
        let mut free: Vec<(String, Vec<u16>)> = Vec::new();
        let mut note = |name: &str, pos: &crate::trace::home::Pos, quant: Quant| -> Result<(), NotApplicable> {
            let (device, devs) = resolve(self, roles, name);
            // `any` over no device is false: the property still applies (`all` over none would
            // hold vacuously, and a bare role needs a device).
            if devs.is_empty() && quant == Quant::Any {
                return Ok(());
            }
            if devs.is_empty() {
                return Err(NotApplicable(pos.clone(), format!("no device or role named `{name}` in the home")));
            }
            if quant == Quant::One && !device && !free.iter().any(|f| f.0 == name) {
                free.push((name.to_string(), devs));
            }
            Ok(())
        };
        let mut refs = Vec::new();
        match &decl.body {
            Body::Invariant(e) => operands(e, &mut refs),
            Body::Never { target, target_pos, when, .. } => {
                note(target, target_pos, Quant::One)?;
                if let Some(w) = when {
                    operands(w, &mut refs);
                }
            }
            Body::Respond { when, then } => {
                operands(when, &mut refs);
                operands(then, &mut refs);
            }
            Body::Threat(_) => {}
        }
        for r in &refs {
            if let Operand::Ref { quant, device, pos, .. } = r {
                note(device, pos, *quant)?;
            }
        }
        let mut combos: Vec<Vec<u16>> = vec![Vec::new()];
        for (_, devs) in &free {
            combos = combos.iter().flat_map(|c| devs.iter().map(move |&d| [c.clone(), vec![d]].concat())).collect();
            if combos.len() > 256 {
                return Err(NotApplicable(decl.pos.clone(), "more than 256 instances over its roles".into()));
            }
        }
        let mut out = Vec::new();
        for combo in combos {
            let bind = |name: &str| -> Vec<u16> {
                match free.iter().position(|f| f.0 == name) {
                    Some(i) => vec![combo[i]],
                    None => resolve(self, roles, name).1,
                }
            };
            let kind = match &decl.body {
                Body::Invariant(e) => Kind::Invariant(self.cond(e, &bind)?),
                Body::Never { command, target, target_pos, when } => {
                    let dev = bind(target)[0];
                    let attrs = footprint::command_attrs(command);
                    if attrs.is_empty() && !STATELESS_COMMANDS.contains(&command.as_str()) {
                        return Err(NotApplicable(
                            target_pos.clone(),
                            format!("`{command}` is no device command the model knows"),
                        ));
                    }
                    if !attrs.is_empty() && !attrs.iter().any(|a| self.slot(dev, a).is_some()) {
                        return Err(NotApplicable(
                            target_pos.clone(),
                            format!("device `{}` takes no `{command}` command", self.devices[dev as usize]),
                        ));
                    }
                    let when = when.as_ref().map(|w| self.cond(w, &bind)).transpose()?;
                    Kind::Never { dev, command: command.clone(), when }
                }
                Body::Respond { when, then } => {
                    Kind::Respond { when: self.cond(when, &bind)?, then: self.cond(then, &bind)? }
                }
                Body::Threat(t) => Kind::Threat(*t),
            };
            let mut objects = Vec::new();
            kind_objects(&kind, self.mode_object(), &mut objects);
            objects.sort_unstable();
            objects.dedup();
            let name = if free.is_empty() {
                decl.name.clone()
            } else {
                let devs: Vec<&str> = combo.iter().map(|&d| self.devices[d as usize].as_str()).collect();
                format!("{}[{}]", decl.name, devs.join(","))
            };
            let file = decl.file.display().to_string();
            let mut message = format!("{name} ({file}:{})", decl.pos.line);
            if let Some(t) = &decl.text {
                message.push_str(&format!(": {t}"));
            }
            message.push_str(" is violated");
            out.push(Prop {
                name,
                text: decl.text.clone(),
                source: decl.source.clone(),
                file,
                line: decl.pos.line,
                kind,
                objects,
                message,
            });
        }
        Ok(out)
    }

    fn cond(&self, e: &PExpr, bind: &dyn Fn(&str) -> Vec<u16>) -> Result<Cond, NotApplicable> {
        Ok(match e {
            PExpr::Const(b) => Cond::Const(*b),
            PExpr::Not(x) => Cond::Not(Box::new(self.cond(x, bind)?)),
            PExpr::And(xs) => Cond::And(xs.iter().map(|x| self.cond(x, bind)).collect::<Result<_, _>>()?),
            PExpr::Or(xs) => Cond::Or(xs.iter().map(|x| self.cond(x, bind)).collect::<Result<_, _>>()?),
            PExpr::Implies(a, b) => Cond::Implies(Box::new(self.cond(a, bind)?), Box::new(self.cond(b, bind)?)),
            PExpr::Cmp(a, op, b) => Cond::Cmp(self.val(a, bind)?, *op, self.val(b, bind)?),
        })
    }

    fn val(&self, o: &Operand, bind: &dyn Fn(&str) -> Vec<u16>) -> Result<Val, NotApplicable> {
        Ok(match o {
            Operand::Mode => Val::Mode,
            Operand::Value(v) => Val::Const(v.clone()),
            Operand::Num(n) => Val::Const(crate::trace::home::num_text(*n)),
            Operand::Ref { quant, device, attr, pos } => {
                let devs = bind(device);
                let mut slots = Vec::new();
                for &d in &devs {
                    match self.slot(d, attr) {
                        Some(s) => slots.push(s as u32),
                        None => {
                            let has: Vec<&str> = self.slot_of[d as usize].iter().map(|x| x.0.as_str()).collect();
                            return Err(NotApplicable(
                                pos.clone(),
                                format!(
                                    "device `{}` has no attribute `{attr}` (it has {})",
                                    self.devices[d as usize],
                                    has.join(", ")
                                ),
                            ));
                        }
                    }
                }
                match quant {
                    Quant::One if slots.is_empty() => Val::Slots(false, slots),
                    Quant::One => Val::Slot(slots[0]),
                    q => Val::Slots(*q == Quant::All, slots),
                }
            }
        })
    }

    /// The option text of the properties, for replay lines.
    pub(super) fn property_flags(&self) -> &str {
        &self.props.flags
    }

    /// Per object (slots, then the mode): whether a property reads it.
    pub(super) fn read_by_properties(&self, object: u32) -> bool {
        self.props.read.get(object as usize) == Some(&true)
    }

    /// Whether the mode is read by a property.
    pub(super) fn properties_read_mode(&self) -> bool {
        self.read_by_properties(self.mode_object())
    }

    /// Adds to a static footprint the reads of every property whose objects it may write.
    pub(super) fn property_footprint(&self, objects: &mut std::collections::BTreeMap<u32, bool>) {
        let written: Vec<u32> = objects.iter().filter(|(_, w)| **w).map(|(o, _)| *o).collect();
        for p in &self.props.list {
            // A command rule reads its condition when the command is sent: where the firing may
            // write what the command writes (a stateless command, anywhere).
            let sends = match &p.kind {
                Kind::Never { dev, command, .. } => {
                    let attrs = footprint::command_attrs(command);
                    attrs.is_empty()
                        || attrs.iter().filter_map(|a| self.slot(*dev, a)).any(|s| written.contains(&(s as u32)))
                }
                _ => false,
            };
            if sends || p.objects.iter().any(|o| written.contains(o)) {
                for &o in &p.objects {
                    objects.entry(o).or_insert(false);
                }
            }
        }
    }

    /// The JSON and report description of a property violation's property.
    pub(super) fn property_of(&self, e: &ModelError) -> Option<crate::model::PropertyInfo> {
        if e.kind != "property" {
            return None;
        }
        let p = self.props.list.iter().find(|p| p.message == e.message)?;
        Some(crate::model::PropertyInfo {
            name: p.name.clone(),
            text: p.text.clone(),
            source: p.source.clone(),
            file: p.file.clone(),
            line: p.line,
        })
    }

    /// The names of the properties checked, in order.
    pub fn property_names(&self) -> Vec<String> {
        self.props.list.iter().map(|p| p.name.clone()).collect()
    }

    /// The check's state before a firing: each invariant's and response trigger's value.
    pub(super) fn property_start(&self, st: &SmartState) -> Option<Box<PropRun>> {
        if self.props.is_empty() {
            return None;
        }
        let before = self
            .props
            .list
            .iter()
            .map(|p| match &p.kind {
                Kind::Invariant(c) | Kind::Respond { when: c, .. } => self.holds(c, st),
                _ => false,
            })
            .collect();
        Some(Box::new(PropRun { before, ..PropRun::default() }))
    }

    /// After a firing that ended well: the invariants and responses whose objects it wrote,
    /// read (as accesses) and checked. The first violation, as (property, app, line,
    /// subscription of the write that broke it).
    pub(super) fn property_end(
        &self,
        run: &PropRun,
        st: &SmartState,
        acc: &mut Vec<Access>,
    ) -> Option<(usize, usize, usize, Option<usize>)> {
        // The objects the step wrote, once (a property's objects are few and sorted).
        let mut wrote: Vec<u32> = acc.iter().filter(|a| a.write).map(|a| a.object).collect();
        wrote.sort_unstable();
        wrote.dedup();
        let written = |o: &u32| wrote.binary_search(o).is_ok();
        let mut found = None;
        let mut reads = Vec::new();
        for (i, p) in self.props.list.iter().enumerate() {
            let (cond, respond) = match &p.kind {
                Kind::Invariant(c) => (c, None),
                Kind::Respond { when, then } => (when, Some(then)),
                _ => continue,
            };
            if !p.objects.iter().any(written) {
                continue;
            }
            reads.extend(p.objects.iter().copied());
            if found.is_some() {
                continue;
            }
            let by = run.app_writes.iter().rev().find(|w| p.objects.contains(&w.0));
            match respond {
                None => {
                    if run.before[i] && !self.holds(cond, st) {
                        if let Some(&(_, app, line, sub)) = by {
                            found = Some((i, app, line, sub));
                        }
                    }
                }
                Some(then) => {
                    if !run.before[i] && self.holds(cond, st) && !self.holds(then, st) {
                        let (app, line, sub) = by.map_or((usize::MAX, 0, None), |w| (w.1, w.2, w.3));
                        found = Some((i, app, line, sub));
                    }
                }
            }
        }
        reads.sort_unstable();
        reads.dedup();
        acc.extend(reads.into_iter().map(|object| Access { object, write: false }));
        found
    }

    /// The error a violation is reported as.
    pub(super) fn property_error(
        &self,
        (i, app, line, sub): (usize, usize, usize, Option<usize>),
        event: &str,
        method: Option<&str>,
    ) -> ModelError {
        let p = &self.props.list[i];
        let (app, at) = if app == usize::MAX {
            (None, None)
        } else {
            (Some(self.apps[app].name.clone()), Some(self.place(app, line, sub, method)))
        };
        ModelError {
            kind: "property",
            message: p.message.clone(),
            line: p.line,
            event: Some(event.to_string()),
            app,
            conflict: None,
            at,
        }
    }

    fn holds(&self, c: &Cond, st: &SmartState) -> bool {
        match c {
            Cond::Const(b) => *b,
            Cond::Not(x) => !self.holds(x, st),
            Cond::And(xs) => xs.iter().all(|x| self.holds(x, st)),
            Cond::Or(xs) => xs.iter().any(|x| self.holds(x, st)),
            Cond::Implies(a, b) => !self.holds(a, st) || self.holds(b, st),
            Cond::Cmp(a, op, b) => {
                let many = |v: &Val| match v {
                    Val::Slots(all, slots) => Some((*all, slots.clone())),
                    _ => None,
                };
                if let Some((all, slots)) = many(a) {
                    let mut each =
                        slots.iter().map(|&s| compare(&self.text(&Val::Slot(s), st), *op, &self.text(b, st), false));
                    return if all { each.all(|x| x) } else { each.any(|x| x) };
                }
                if let Some((all, slots)) = many(b) {
                    let mut each =
                        slots.iter().map(|&s| compare(&self.text(a, st), *op, &self.text(&Val::Slot(s), st), false));
                    return if all { each.all(|x| x) } else { each.any(|x| x) };
                }
                let mode = matches!(a, Val::Mode) || matches!(b, Val::Mode);
                compare(&self.text(a, st), *op, &self.text(b, st), mode)
            }
        }
    }

    /// A value's text, borrowed where the state holds it (the check runs on every step).
    fn text<'a>(&self, v: &'a Val, st: &'a SmartState) -> std::borrow::Cow<'a, str> {
        match v {
            Val::Slot(s) => st.attrs[*s as usize].text_ref(),
            Val::Mode => std::borrow::Cow::Borrowed(&st.mode),
            Val::Const(c) => std::borrow::Cow::Borrowed(c),
            Val::Slots(..) => std::borrow::Cow::Borrowed(""),
        }
    }
}

/// Compares two values as the property language does: numerically when both are numbers, else
/// as texts (the mode without case); an order between texts is false.
fn compare(a: &str, op: CmpOp, b: &str, fold: bool) -> bool {
    if let (Ok(x), Ok(y)) = (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        return match op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        };
    }
    let eq = if fold { a.eq_ignore_ascii_case(b) } else { a == b };
    match op {
        CmpOp::Eq => eq,
        CmpOp::Ne => !eq,
        _ => false,
    }
}

fn operands(e: &PExpr, out: &mut Vec<Operand>) {
    match e {
        PExpr::Const(_) => {}
        PExpr::Not(x) => operands(x, out),
        PExpr::And(xs) | PExpr::Or(xs) => xs.iter().for_each(|x| operands(x, out)),
        PExpr::Implies(a, b) => {
            operands(a, out);
            operands(b, out);
        }
        PExpr::Cmp(a, _, b) => {
            out.push(a.clone());
            out.push(b.clone());
        }
    }
}

fn cond_objects(c: &Cond, mode: u32, out: &mut Vec<u32>) {
    match c {
        Cond::Const(_) => {}
        Cond::Not(x) => cond_objects(x, mode, out),
        Cond::And(xs) | Cond::Or(xs) => xs.iter().for_each(|x| cond_objects(x, mode, out)),
        Cond::Implies(a, b) => {
            cond_objects(a, mode, out);
            cond_objects(b, mode, out);
        }
        Cond::Cmp(a, _, b) => {
            for v in [a, b] {
                match v {
                    Val::Slot(s) => out.push(*s),
                    Val::Slots(_, ss) => out.extend(ss),
                    Val::Mode => out.push(mode),
                    Val::Const(_) => {}
                }
            }
        }
    }
}

fn kind_objects(k: &Kind, mode: u32, out: &mut Vec<u32>) {
    match k {
        Kind::Invariant(c) => cond_objects(c, mode, out),
        Kind::Never { when, .. } => {
            if let Some(w) = when {
                cond_objects(w, mode, out)
            }
        }
        Kind::Respond { when, then } => {
            cond_objects(when, mode, out);
            cond_objects(then, mode, out);
        }
        Kind::Threat(_) => {}
    }
}

impl Ctx<'_> {
    /// An app's write that changed `object` (checked properties only).
    pub(super) fn property_write(&mut self, object: u32, app: usize) {
        let (line, sub) = (self.line, self.sub);
        if let Some(run) = self.prop.as_mut() {
            run.app_writes.push((object, app, line, sub));
        }
    }

    /// An app's command writing `value` to `slot` (its effect or not): the repeated and
    /// conflicting commands of one event.
    pub(super) fn property_command_write(&mut self, slot: u32, value: &Value) -> R<()> {
        let Some(run) = self.prop.as_mut() else { return Ok(()) };
        let props = &self.m.props;
        let mut hit = None;
        for (s, v) in &run.commands {
            if *s == slot {
                let same = loose_eq(v, value);
                if let Some(i) =
                    props.has_threat(if same { Threat::RepeatedCommand } else { Threat::ConflictingCommands })
                {
                    hit = Some(i);
                    break;
                }
            }
        }
        run.commands.push((slot, value.clone()));
        match hit {
            Some(i) => self.violated(i),
            None => Ok(()),
        }
    }

    /// An app sends `command` to device `d`: the command rules on it, their conditions read in
    /// the state at this moment.
    pub(super) fn property_command(&mut self, d: u16, command: &str) -> R<()> {
        if self.prop.is_none() {
            return Ok(());
        }
        let m = self.m;
        for (i, p) in m.props.list.iter().enumerate() {
            let Kind::Never { dev, command: c, when } = &p.kind else { continue };
            if *dev != d || c != command {
                continue;
            }
            for &o in &p.objects {
                self.touch(o, false);
            }
            if when.as_ref().is_none_or(|w| m.holds(w, self.st)) {
                return self.violated(i);
            }
        }
        Ok(())
    }

    /// A delivery of `(dev, attr, value)` begins: a self-retrigger when the same one is still
    /// running. Returns whether it was pushed (to pop after).
    pub(super) fn property_deliver(&mut self, dev: Option<u16>, attr: &Text, value: &Text) -> R<bool> {
        let Some(run) = self.prop.as_mut() else { return Ok(false) };
        let again = run.delivering.iter().any(|(d, a, v)| *d == dev && a == attr && v == value);
        run.delivering.push((dev, attr.clone(), value.clone()));
        if again {
            if let Some(i) = self.m.props.has_threat(Threat::SelfRetrigger) {
                return self.violated(i).map(|_| true);
            }
        }
        Ok(true)
    }

    pub(super) fn property_delivered(&mut self) {
        if let Some(run) = self.prop.as_mut() {
            run.delivering.pop();
        }
    }

    /// Ends the firing with property `i` violated here.
    fn violated(&mut self, i: usize) -> R<()> {
        let (app, line, sub) = (self.app, self.line, self.sub);
        if let Some(run) = self.prop.as_mut() {
            run.violation = Some((i, app, line, sub));
        }
        self.err(format!("{PROPERTY}{}", self.m.props.list[i].message))
    }
}
