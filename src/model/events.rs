//! Emulator of SmartThings-style event models (shared/spec/event-model.md) behind [`Model`].
//!
//! A choice is an event; its transition runs all of the event's handlers, in file order, as one
//! atomic step. The state is one flat `Vec<i64>`: variable values, enable flags, and (when a
//! property needs them) the last-writer ghost of each variable and the per-event fire counters.
//! Statements are the checked AST of [`crate::trace::events`], whose names are already indices and
//! whose symbols are interned integers, so a step only reads and writes slots of that vector.
//!
//! Access objects: variable `v` is object `v`; the enable flag of event `e` is object
//! `vars + e`. The last-writer ghost of `v` changes only together with a write of `v`, and an
//! event's fire counter only when that event fires, so neither needs objects of its own.

use crate::model::{Access, Accesses, Choice, Model, ModelError, Outcome};
use crate::trace::events::{BinOp, EventModelAst, Expr, Stmt, Ty, UnOp};

/// Properties and instantiation of an event model (`--conflicts`, `--bound k`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventOptions {
    /// Report IoTCheck's conflicts (an app overwriting another app's different value).
    pub conflicts: bool,
    /// Fire each event at most this many times per execution.
    pub bound: Option<u32>,
}

/// A configuration: `[values | enable flags | last writers (conflicts) | fire counts (bound)]`.
/// Last writers hold `app + 1`, 0 for "nobody yet".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventState {
    slots: Vec<i64>,
}

impl EventState {
    /// Raw slots (values, flags, ghosts), for tests and tools.
    pub fn slots(&self) -> &[i64] {
        &self.slots
    }
}

/// An event model ready to explore.
pub struct EventModel {
    ast: EventModelAst,
    opts: EventOptions,
    /// Handler indices of each event, in file order.
    handlers_of: Vec<Vec<usize>>,
    nvars: usize,
    nevents: usize,
}

/// Where a step's accesses go: nowhere when only stepping, into a list for `accesses`.
trait Sink {
    fn touch(&mut self, object: u32, write: bool);
}

struct NoSink;

impl Sink for NoSink {
    #[inline]
    fn touch(&mut self, _: u32, _: bool) {}
}

/// Records accesses, one per object (a write subsumes a read of the same object for conflicts).
struct Record<'a>(&'a mut Accesses);

impl Sink for Record<'_> {
    fn touch(&mut self, object: u32, write: bool) {
        if let Some(a) = self.0.iter_mut().find(|a| a.object == object) {
            a.write |= write;
        } else {
            self.0.push(Access { object, write });
        }
    }
}

/// Why a statement failed, before the emulator attaches event, app and line.
enum Fail<'a> {
    DivZero(&'static str),
    Assert(&'a str),
    Conflict(usize),
}

/// Parses, checks and builds an event model in one call (what the CLI needs for `FILE`).
pub fn load(path: &std::path::Path, bytes: &[u8], opts: EventOptions) -> Result<EventModel, crate::trace::InputError> {
    Ok(EventModel::new(crate::trace::events::parse(path, bytes)?, opts))
}

impl EventModel {
    pub fn new(ast: EventModelAst, opts: EventOptions) -> Self {
        let nevents = ast.events.len();
        let mut handlers_of = vec![Vec::new(); nevents];
        for (i, h) in ast.handlers.iter().enumerate() {
            handlers_of[h.event as usize].push(i);
        }
        let nvars = ast.vars.len();
        EventModel { ast, opts, handlers_of, nvars, nevents }
    }

    pub fn ast(&self) -> &EventModelAst {
        &self.ast
    }

    pub fn options(&self) -> EventOptions {
        self.opts
    }

    fn flag_base(&self) -> usize {
        self.nvars
    }

    fn writer_base(&self) -> usize {
        self.nvars + self.nevents
    }

    fn fired_base(&self) -> usize {
        self.writer_base() + if self.opts.conflicts { self.nvars } else { 0 }
    }

    /// Access object of event `e`'s enable flag.
    pub fn flag_object(&self, e: u32) -> u32 {
        (self.nvars + e as usize) as u32
    }

    /// Text of a value of variable `v` (symbols by name).
    fn show(&self, v: usize, value: i64) -> String {
        match self.ast.vars[v].ty {
            Ty::Int => value.to_string(),
            Ty::Sym => self.ast.symbols.get(value as usize).cloned().unwrap_or_else(|| format!("#{value}")),
        }
    }

    fn is_enabled(&self, slots: &[i64], e: usize) -> bool {
        slots[self.flag_base() + e] != 0
            && match self.opts.bound {
                Some(k) => slots[self.fired_base() + e] < k as i64,
                None => true,
            }
    }

    fn eval<S: Sink>(&self, e: &Expr, slots: &[i64], sink: &mut S) -> Result<i64, Fail<'static>> {
        Ok(match e {
            Expr::Const(v) => *v,
            Expr::Var(i) => {
                sink.touch(*i, false);
                slots[*i as usize]
            }
            Expr::Unary(UnOp::Not, a) => (self.eval(a, slots, sink)? == 0) as i64,
            Expr::Unary(UnOp::Neg, a) => self.eval(a, slots, sink)?.wrapping_neg(),
            // Short-circuit: the right operand's reads happen only when it is evaluated.
            Expr::Binary(BinOp::And, a, b) => {
                (self.eval(a, slots, sink)? != 0 && self.eval(b, slots, sink)? != 0) as i64
            }
            Expr::Binary(BinOp::Or, a, b) => {
                (self.eval(a, slots, sink)? != 0 || self.eval(b, slots, sink)? != 0) as i64
            }
            Expr::Binary(op, a, b) => {
                let x = self.eval(a, slots, sink)?;
                let y = self.eval(b, slots, sink)?;
                match op {
                    BinOp::Eq => (x == y) as i64,
                    BinOp::Ne => (x != y) as i64,
                    BinOp::Lt => (x < y) as i64,
                    BinOp::Le => (x <= y) as i64,
                    BinOp::Gt => (x > y) as i64,
                    BinOp::Ge => (x >= y) as i64,
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::Div if y == 0 => return Err(Fail::DivZero("division by zero")),
                    BinOp::Rem if y == 0 => return Err(Fail::DivZero("remainder by zero")),
                    BinOp::Div => x.wrapping_div(y),
                    BinOp::Rem => x.wrapping_rem(y),
                    BinOp::And | BinOp::Or => unreachable!("handled above"),
                }
            }
        })
    }

    /// Runs a block; on failure returns the failing statement's line with the reason.
    fn exec<'a, S: Sink>(
        &self,
        body: &'a [Stmt],
        app: u32,
        slots: &mut [i64],
        sink: &mut S,
    ) -> Result<(), (usize, Fail<'a>)> {
        for st in body {
            match st {
                Stmt::Assign { var, value, line } => {
                    let v = self.eval(value, slots, sink).map_err(|f| (*line, f))?;
                    sink.touch(*var, true);
                    let x = *var as usize;
                    if self.opts.conflicts {
                        let w = self.writer_base() + x;
                        let last = slots[w];
                        if last != 0 && last != app as i64 + 1 && slots[x] != v {
                            return Err((*line, Fail::Conflict(x)));
                        }
                        slots[w] = app as i64 + 1;
                    }
                    slots[x] = v;
                }
                Stmt::If { cond, then, otherwise, line } => {
                    let c = self.eval(cond, slots, sink).map_err(|f| (*line, f))?;
                    self.exec(if c != 0 { then } else { otherwise }, app, slots, sink)?;
                }
                Stmt::Enable { event, .. } | Stmt::Disable { event, .. } => {
                    let on = matches!(st, Stmt::Enable { .. });
                    sink.touch(self.flag_object(*event), true);
                    slots[self.flag_base() + *event as usize] = on as i64;
                }
                Stmt::Assert { cond, line, message } => {
                    if self.eval(cond, slots, sink).map_err(|f| (*line, f))? == 0 {
                        return Err((*line, Fail::Assert(message)));
                    }
                }
            }
        }
        Ok(())
    }

    /// Fires event `c` on `slots`: all its handlers in file order.
    fn fire<S: Sink>(&self, slots: &mut [i64], c: Choice, sink: &mut S) -> Result<(), ModelError> {
        let ci = c as usize;
        sink.touch(self.flag_object(c), false);
        if self.opts.bound.is_some() {
            slots[self.fired_base() + ci] += 1;
        }
        for &h in &self.handlers_of[ci] {
            let handler = &self.ast.handlers[h];
            if let Err((line, fail)) = self.exec(&handler.body, handler.app, slots, sink) {
                let app = &self.ast.apps[handler.app as usize];
                let (kind, message) = match fail {
                    Fail::DivZero(m) => ("division-by-zero", m.to_string()),
                    Fail::Assert(m) => ("assert", m.to_string()),
                    Fail::Conflict(x) => (
                        "conflict",
                        format!(
                            "app {app} overwrites `{}`, last written by another app with a different value",
                            self.ast.vars[x].name
                        ),
                    ),
                };
                return Err(ModelError {
                    kind,
                    message,
                    line,
                    event: Some(self.ast.events[ci].name.clone()),
                    app: Some(app.clone()),
                });
            }
        }
        Ok(())
    }

    /// Events whose handlers run in this model, by name (for `stats`).
    pub fn event_names(&self) -> impl Iterator<Item = &str> {
        self.ast.events.iter().map(|e| e.name.as_str())
    }
}

impl Model for EventModel {
    type State = EventState;

    fn kind(&self) -> &'static str {
        "events"
    }

    fn choices(&self) -> u32 {
        self.nevents as u32
    }

    fn initial(&self) -> EventState {
        let mut slots =
            Vec::with_capacity(self.fired_base() + if self.opts.bound.is_some() { self.nevents } else { 0 });
        slots.extend(self.ast.vars.iter().map(|v| v.init));
        slots.extend(self.ast.events.iter().map(|e| (!e.disabled) as i64));
        if self.opts.conflicts {
            slots.extend(std::iter::repeat_n(0, self.nvars));
        }
        if self.opts.bound.is_some() {
            slots.extend(std::iter::repeat_n(0, self.nevents));
        }
        EventState { slots }
    }

    fn enabled(&self, s: &EventState, out: &mut Vec<Choice>) {
        out.extend((0..self.nevents).filter(|&e| self.is_enabled(&s.slots, e)).map(|e| e as Choice));
    }

    fn accesses(&self, s: &EventState, c: Choice, out: &mut Accesses) {
        // Accesses depend on the path taken, so run the event on a copy and record them; an
        // error ends the list where the transition ends. Small states stay on the stack.
        let mut scratch: smallvec::SmallVec<[i64; 64]> = smallvec::SmallVec::from_slice(&s.slots);
        let _ = self.fire(&mut scratch, c, &mut Record(out));
    }

    fn step(&self, s: &mut EventState, c: Choice) -> Result<(), ModelError> {
        self.fire(&mut s.slots, c, &mut NoSink)
    }

    fn encode(&self, s: &EventState, out: &mut Vec<u32>) {
        // Fixed layout, so equal encodings iff equal slots.
        for &v in &s.slots {
            out.push(v as u32);
            out.push((v >> 32) as u32);
        }
    }

    fn outcome(&self, s: &EventState) -> Outcome {
        let sl = &s.slots;
        let mut text = String::from("vars");
        for (i, v) in self.ast.vars.iter().enumerate() {
            text.push_str(&format!(" {}={}", v.name, self.show(i, sl[i])));
        }
        text.push_str(" | enabled");
        for (e, ev) in self.ast.events.iter().enumerate() {
            if sl[self.flag_base() + e] != 0 {
                text.push(' ');
                text.push_str(&ev.name);
            }
        }
        if self.opts.conflicts {
            text.push_str(" | writers");
            for (i, v) in self.ast.vars.iter().enumerate() {
                let w = sl[self.writer_base() + i];
                if w != 0 {
                    text.push_str(&format!(" {}={}", v.name, self.ast.apps[(w - 1) as usize]));
                }
            }
        }
        if self.opts.bound.is_some() {
            text.push_str(" | fired");
            for (e, ev) in self.ast.events.iter().enumerate() {
                text.push_str(&format!(" {}={}", ev.name, sl[self.fired_base() + e]));
            }
        }
        Outcome { text, stuck: true }
    }

    fn choice_name(&self, c: Choice) -> String {
        self.ast.events.get(c as usize).map_or_else(|| format!("#{c}"), |e| e.name.clone())
    }

    fn parse_choice(&self, name: &str) -> Option<Choice> {
        self.ast.events.iter().position(|e| e.name == name).map(|i| i as Choice)
    }

    fn object_name(&self, object: u32) -> String {
        let o = object as usize;
        if o < self.nvars {
            self.ast.vars[o].name.clone()
        } else if o < self.nvars + self.nevents {
            format!("enabled({})", self.ast.events[o - self.nvars].name)
        } else {
            format!("#{object}")
        }
    }

    fn explain_step(&self, before: &EventState, after: &EventState, _c: Choice) -> String {
        // The variables and enable flags the step changed, old -> new.
        let mut parts = Vec::new();
        for (i, v) in self.ast.vars.iter().enumerate() {
            if before.slots[i] != after.slots[i] {
                parts.push(format!(
                    "{}: {} -> {}",
                    v.name,
                    self.show(i, before.slots[i]),
                    self.show(i, after.slots[i])
                ));
            }
        }
        for (e, ev) in self.ast.events.iter().enumerate() {
            let (b, a) = (before.slots[self.flag_base() + e], after.slots[self.flag_base() + e]);
            if b != a {
                parts.push(format!("{} {}", if a != 0 { "enabled" } else { "disabled" }, ev.name));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("   -> {}", parts.join(", "))
        }
    }

    fn summary(&self) -> String {
        format!(
            "{} events, {} handlers, {} apps, {} variables",
            self.nevents,
            self.ast.handlers.len(),
            self.ast.apps.len(),
            self.nvars
        )
    }

    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        std::collections::BTreeMap::from([
            ("events".to_string(), self.nevents as u64),
            ("handlers".to_string(), self.ast.handlers.len() as u64),
            ("apps".to_string(), self.ast.apps.len() as u64),
            ("variables".to_string(), self.nvars as u64),
            ("events disabled at start".to_string(), self.ast.events.iter().filter(|e| e.disabled).count() as u64),
        ])
    }

    fn describe(&self, s: &EventState, c: Choice) -> String {
        let mut acc = Accesses::new();
        self.accesses(s, c, &mut acc);
        let mut text = format!("event {}", self.choice_name(c));
        let apps: Vec<&str> = self.handlers_of[c as usize]
            .iter()
            .map(|&h| self.ast.apps[self.ast.handlers[h].app as usize].as_str())
            .collect();
        if !apps.is_empty() {
            text.push_str(&format!(" (handlers of {})", apps.join(", ")));
        }
        let names: Vec<String> = acc
            .iter()
            .map(|a| format!("{}{}", if a.write { "W " } else { "R " }, self.object_name(a.object)))
            .collect();
        text.push_str(&format!(": {}", names.join(", ")));
        text
    }
}

/// Static footprints, for strategies that need dependence fixed before a transition runs
/// (`dpor` on event models, [`crate::explore::dpor_events`]). Kept apart from the emulator above.
impl EventModel {
    /// Every object event `e`'s transition can touch on any branch, one entry per object (a
    /// write subsumes a read): the dispatch read of its own enable flag, a read of every
    /// variable in any expression of its handlers (both operands of `&&`/`||`, both arms of
    /// every `if`), a write of every variable assigned and of the flag of every event it
    /// enables or disables. An over-approximation of [`Model::accesses`] from any state.
    ///
    /// Ghosts need no objects: `--conflicts` reads and writes x's last writer only with a write
    /// of x, and `--bound k` reads and writes e's fire counter only when e fires.
    pub fn footprint(&self, e: Choice) -> Accesses {
        fn expr(x: &Expr, out: &mut Record<'_>) {
            match x {
                Expr::Const(_) => {}
                Expr::Var(v) => out.touch(*v, false),
                Expr::Unary(_, a) => expr(a, out),
                Expr::Binary(_, a, b) => {
                    expr(a, out);
                    expr(b, out);
                }
            }
        }
        fn block(m: &EventModel, body: &[Stmt], out: &mut Record<'_>) {
            for st in body {
                match st {
                    Stmt::Assign { var, value, .. } => {
                        expr(value, out);
                        out.touch(*var, true);
                    }
                    Stmt::If { cond, then, otherwise, .. } => {
                        expr(cond, out);
                        block(m, then, out);
                        block(m, otherwise, out);
                    }
                    Stmt::Enable { event, .. } | Stmt::Disable { event, .. } => out.touch(m.flag_object(*event), true),
                    Stmt::Assert { cond, .. } => expr(cond, out),
                }
            }
        }
        let mut acc = Accesses::new();
        let mut out = Record(&mut acc);
        out.touch(self.flag_object(e), false);
        for &h in &self.handlers_of[e as usize] {
            block(self, &self.ast.handlers[h].body, &mut out);
        }
        acc
    }

    /// Whether event `e` can never fire again from `s`: under `--bound k` it has fired k times
    /// (only `e` itself moves its counter). Without a bound, never.
    pub fn exhausted(&self, s: &EventState, e: Choice) -> bool {
        match self.opts.bound {
            Some(k) => s.slots[self.fired_base() + e as usize] >= k as i64,
            None => false,
        }
    }
}
