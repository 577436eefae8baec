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
//!
//! The state also keeps its slots bit-packed, updated on every write: most variables have tiny
//! domains (a static interval analysis over every assignment bounds each one; unbounded ones
//! keep 64 bits), flags are single bits, so a key is a few words, which is what `encode` copies
//! and `full` stores. Steps can log the slots they change so that a search can undo them in
//! place instead of cloning the state per successor.

use smallvec::SmallVec;

mod places;

use crate::model::{Access, Accesses, Choice, Model, ModelError, ModelKind, Outcome};
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
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct EventState {
    slots: Vec<i64>,
    /// The same slots bit-packed by the model's [`Field`]s (unused bits zero, so equal states
    /// have equal words); kept in step with `slots` by every write.
    packed: SmallVec<[u64; 4]>,
}

impl Clone for EventState {
    fn clone(&self) -> Self {
        EventState { slots: self.slots.clone(), packed: self.packed.clone() }
    }
    /// Into the buffers already there: strategies that copy a state per step reuse one.
    fn clone_from(&mut self, source: &Self) {
        self.slots.clone_from(&source.slots);
        self.packed.clone_from(&source.packed);
    }
}

/// Where a slot lives in the packed words: `value - lo` in the bits `mask << shift` of `word`
/// (public for the unit tests in tests/it/unit/).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub word: u32,
    pub shift: u32,
    pub mask: u64,
    pub lo: i64,
}

impl Field {
    #[inline]
    pub fn put(&self, packed: &mut [u64], value: i64) {
        let bits = value.wrapping_sub(self.lo) as u64;
        // The interval analysis bounds every value a step can store; a value outside would make
        // two states share a key, so refuse it loudly rather than miscount.
        assert!(bits & !self.mask == 0, "event model: value {value} outside its analysed range");
        let w = &mut packed[self.word as usize];
        *w = (*w & !(self.mask << self.shift)) | (bits << self.shift);
    }
}

/// Values a variable may hold, as found by [`var_ranges`]; `i128` so that bounds of sums and
/// products of `i64` ranges are exact (public for the unit tests in tests/it/unit/).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: i128,
    pub hi: i128,
}

impl Range {
    pub const FULL: Range = Range { lo: i64::MIN as i128, hi: i64::MAX as i128 };
    const BOOL: Range = Range { lo: 0, hi: 1 };

    fn point(v: i64) -> Range {
        Range { lo: v as i128, hi: v as i128 }
    }

    /// A result that may leave `i64` may be anything in it (a leaving one is an overflow error,
    /// never stored).
    fn fit(lo: i128, hi: i128) -> Range {
        if lo < i64::MIN as i128 || hi > i64::MAX as i128 {
            Range::FULL
        } else {
            Range { lo, hi }
        }
    }

    fn join(self, o: Range) -> Range {
        Range { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi) }
    }

    /// Largest absolute value in the range.
    fn magnitude(self) -> i128 {
        self.lo.abs().max(self.hi.abs())
    }
}

/// Range of `e` when every variable `v` lies in `vars[v]`.
fn expr_range(e: &Expr, vars: &[Range]) -> Range {
    match e {
        Expr::Const(c) => Range::point(*c),
        Expr::Var(v) => vars[*v as usize],
        Expr::Unary(UnOp::Not, _) => Range::BOOL,
        Expr::Unary(UnOp::Neg, a) => {
            let a = expr_range(a, vars);
            Range::fit(-a.hi, -a.lo)
        }
        Expr::Binary(op, a, b) => binary_range(*op, expr_range(a, vars), expr_range(b, vars)),
        Expr::Chain(first, rest) => {
            rest.iter().fold(expr_range(first, vars), |x, (op, b)| binary_range(*op, x, expr_range(b, vars)))
        }
    }
}

/// Range of `x op y` for operands in the ranges `x` and `y`.
fn binary_range(op: BinOp, x: Range, y: Range) -> Range {
    match op {
        BinOp::Add => Range::fit(x.lo + y.lo, x.hi + y.hi),
        BinOp::Sub => Range::fit(x.lo - y.hi, x.hi - y.lo),
        BinOp::Mul => {
            let p = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi];
            Range::fit(*p.iter().min().unwrap(), *p.iter().max().unwrap())
        }
        // |x / y| <= |x| for y != 0 (y == 0 is an error, no value).
        BinOp::Div => {
            let m = x.magnitude();
            Range::fit(-m, m)
        }
        // The remainder takes the dividend's sign and is smaller than the divisor and no
        // larger than the dividend in absolute value.
        BinOp::Rem => {
            let m = (y.magnitude() - 1).max(0);
            Range { lo: if x.lo >= 0 { 0 } else { x.lo.max(-m) }, hi: if x.hi <= 0 { 0 } else { x.hi.min(m) } }
        }
        _ => Range::BOOL,
    }
}

/// For every variable, a range holding every value any execution can give it: the least
/// fixpoint of "initial value, joined with every assignment's range", ignoring conditions. A
/// variable that keeps growing (`x = x + 1`) is widened to all of `i64` after a few rounds.
#[doc(hidden)]
pub fn var_ranges(ast: &EventModelAst) -> Vec<Range> {
    fn assigns<'a>(body: &'a [Stmt], out: &mut Vec<(usize, &'a Expr)>) {
        // A stack of blocks in progress rather than recursion (`else if` chains may be
        // thousands long), visiting statements in the same order.
        let mut stack = vec![body.iter()];
        while let Some(top) = stack.last_mut() {
            let Some(st) = top.next() else {
                stack.pop();
                continue;
            };
            match st {
                Stmt::Assign { var, value, .. } => out.push((*var as usize, value)),
                Stmt::If { then, otherwise, .. } => stack.extend([otherwise.iter(), then.iter()]),
                _ => {}
            }
        }
    }
    let mut all = Vec::new();
    for h in &ast.handlers {
        assigns(&h.body, &mut all);
    }
    let mut ranges: Vec<Range> = ast.vars.iter().map(|v| Range::point(v.init)).collect();
    let mut grown = vec![0u32; ranges.len()];
    loop {
        let mut changed = false;
        for &(v, e) in &all {
            let joined = ranges[v].join(expr_range(e, &ranges));
            if joined != ranges[v] {
                grown[v] += 1;
                ranges[v] = if grown[v] > 16 { Range::FULL } else { joined };
                changed = true;
            }
        }
        if !changed {
            return ranges;
        }
    }
}

/// Packs slots of the given ranges into 64-bit words, first fit in slot order (a field never
/// straddles two words). Returns the fields and the number of 32-bit halves of words in use.
#[doc(hidden)]
pub fn layout(ranges: &[Range]) -> (Vec<Field>, usize) {
    let mut fields = Vec::with_capacity(ranges.len());
    let (mut word, mut used) = (0u32, 0u32);
    for r in ranges {
        let span = (r.hi - r.lo) as u128;
        let bits = (128 - span.leading_zeros()).min(64);
        if used + bits > 64 {
            word += 1;
            used = 0;
        }
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        // A 64-bit field stores the value itself (wrapping), so any i64 fits.
        let lo = if bits == 64 { 0 } else { r.lo as i64 };
        fields.push(Field { word, shift: used, mask, lo });
        used += bits;
    }
    (fields, 2 * word as usize + usize::from(used > 0) + usize::from(used > 32))
}

impl EventState {
    /// Raw slots (values, flags, ghosts), for tests and tools.
    pub fn slots(&self) -> &[i64] {
        &self.slots
    }

    /// The packed words that every write keeps in step with the slots (public for the unit tests in tests/it/unit/).
    #[doc(hidden)]
    pub fn packed(&self) -> &[u64] {
        &self.packed
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
    /// Where each slot lives in [`EventState::packed`].
    fields: Vec<Field>,
    /// Length of a key in `u32`s (the packed words, without an unused upper half of the last).
    key_len: usize,
}

/// The slots a step reads and writes: a plain copy (`accesses` runs on one) or a live state.
trait Slots {
    fn get(&self, i: usize) -> i64;
    fn set(&mut self, i: usize, value: i64);
}

impl Slots for [i64] {
    #[inline]
    fn get(&self, i: usize) -> i64 {
        self[i]
    }
    #[inline]
    fn set(&mut self, i: usize, value: i64) {
        self[i] = value;
    }
}

/// Where a live step notes the old value of each slot it changes (for undo), or nowhere.
trait UndoLog {
    fn note(&mut self, slot: usize, old: i64);
}

impl UndoLog for () {
    #[inline]
    fn note(&mut self, _: usize, _: i64) {}
}

/// Pairs `(slot, old value)`, oldest first.
impl UndoLog for Vec<u64> {
    #[inline]
    fn note(&mut self, slot: usize, old: i64) {
        self.push(slot as u64);
        self.push(old as u64);
    }
}

/// A state being stepped: every write also updates the packed words, and logs what it replaced.
struct Live<'a, L: UndoLog> {
    fields: &'a [Field],
    state: &'a mut EventState,
    log: &'a mut L,
}

impl<L: UndoLog> Slots for Live<'_, L> {
    #[inline]
    fn get(&self, i: usize) -> i64 {
        self.state.slots[i]
    }
    #[inline]
    fn set(&mut self, i: usize, value: i64) {
        let old = self.state.slots[i];
        if old != value {
            self.log.note(i, old);
            self.state.slots[i] = value;
            self.fields[i].put(&mut self.state.packed, value);
        }
    }
}

/// Where a step's accesses go: nowhere when only stepping, into a list for `accesses`.
trait Sink {
    fn touch(&mut self, object: u32, write: bool);
    /// `app` assigned variable `var` at source line `line`, becoming its last writer (reports:
    /// [`Model::write_place`]).
    #[inline]
    fn assigned(&mut self, _var: usize, _app: u32, _line: usize) {}
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
    /// A result outside `i64`: an error like division by zero rather than a silent wrap.
    Overflow(&'static str),
    Assert(&'a str),
    /// Variable, the app that wrote it last, the value it wrote, the value written now.
    Conflict {
        var: usize,
        last_app: usize,
        old: i64,
        new: i64,
    },
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
        // Ranges of every slot, in slot order: values, flags, last writers (0 or app + 1), fire
        // counts (an event fires only while its count is below the bound).
        let mut ranges = var_ranges(&ast);
        ranges.extend(std::iter::repeat_n(Range::BOOL, nevents));
        if opts.conflicts {
            ranges.extend(std::iter::repeat_n(Range { lo: 0, hi: ast.apps.len() as i128 }, nvars));
        }
        if let Some(k) = opts.bound {
            ranges.extend(std::iter::repeat_n(Range { lo: 0, hi: k as i128 }, nevents));
        }
        let (fields, key_len) = layout(&ranges);
        EventModel { ast, opts, handlers_of, nvars, nevents, fields, key_len }
    }

    /// The apps the file declares: handlers outside any app (`main`, the environment in the
    /// shipped models) are not an app.
    pub fn declared_apps(&self) -> usize {
        self.ast.apps.len() - usize::from(self.ast.main_is_environment)
    }

    pub fn ast(&self) -> &EventModelAst {
        &self.ast
    }

    pub fn options(&self) -> EventOptions {
        self.opts
    }

    /// Where each slot lives in the packed words (public for the unit tests in
    /// tests/it/unit/).
    #[doc(hidden)]
    pub fn fields(&self) -> &[Field] {
        &self.fields
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

    fn eval<T: Slots + ?Sized, S: Sink>(&self, e: &Expr, slots: &T, sink: &mut S) -> Result<i64, Fail<'static>> {
        Ok(match e {
            Expr::Const(v) => *v,
            Expr::Var(i) => {
                sink.touch(*i, false);
                slots.get(*i as usize)
            }
            Expr::Unary(UnOp::Not, a) => (self.eval(a, slots, sink)? == 0) as i64,
            Expr::Unary(UnOp::Neg, a) => {
                self.eval(a, slots, sink)?.checked_neg().ok_or(Fail::Overflow("integer overflow in negation"))?
            }
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
                binary(*op, x, y)?
            }
            // Left to right, `&&` and `||` short-circuiting as in the nested form.
            Expr::Chain(first, rest) => {
                let mut acc = self.eval(first, slots, sink)?;
                for (op, b) in rest {
                    acc = match op {
                        BinOp::And => (acc != 0 && self.eval(b, slots, sink)? != 0) as i64,
                        BinOp::Or => (acc != 0 || self.eval(b, slots, sink)? != 0) as i64,
                        _ => binary(*op, acc, self.eval(b, slots, sink)?)?,
                    };
                }
                acc
            }
        })
    }
}

/// `x op y` once both operands are known (callers short-circuit `&&` and `||` themselves).
fn binary(op: BinOp, x: i64, y: i64) -> Result<i64, Fail<'static>> {
    Ok(match op {
        BinOp::Eq => (x == y) as i64,
        BinOp::Ne => (x != y) as i64,
        BinOp::Lt => (x < y) as i64,
        BinOp::Le => (x <= y) as i64,
        BinOp::Gt => (x > y) as i64,
        BinOp::Ge => (x >= y) as i64,
        BinOp::Add => x.checked_add(y).ok_or(Fail::Overflow("integer overflow in `+`"))?,
        BinOp::Sub => x.checked_sub(y).ok_or(Fail::Overflow("integer overflow in `-`"))?,
        BinOp::Mul => x.checked_mul(y).ok_or(Fail::Overflow("integer overflow in `*`"))?,
        BinOp::Div if y == 0 => return Err(Fail::DivZero("division by zero")),
        BinOp::Rem if y == 0 => return Err(Fail::DivZero("remainder by zero")),
        // Only i64::MIN / -1 overflows (and its remainder, which Rust refuses too).
        BinOp::Div => x.checked_div(y).ok_or(Fail::Overflow("integer overflow in `/`"))?,
        BinOp::Rem => x.checked_rem(y).ok_or(Fail::Overflow("integer overflow in `%`"))?,
        BinOp::And => (x != 0 && y != 0) as i64,
        BinOp::Or => (x != 0 || y != 0) as i64,
    })
}

impl EventModel {
    /// Runs a block; on failure returns the failing statement's line with the reason.
    fn exec<'a, T: Slots + ?Sized, S: Sink>(
        &self,
        body: &'a [Stmt],
        app: u32,
        slots: &mut T,
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
                        let last = slots.get(w);
                        if last != 0 && last != app as i64 + 1 && slots.get(x) != v {
                            let last_app = (last - 1) as usize;
                            return Err((*line, Fail::Conflict { var: x, last_app, old: slots.get(x), new: v }));
                        }
                        slots.set(w, app as i64 + 1);
                    }
                    slots.set(x, v);
                    sink.assigned(x, app, *line);
                }
                Stmt::If { .. } => {
                    // Down an `else if` chain in a loop: chains may be thousands long.
                    let mut at = st;
                    while let Stmt::If { cond, then, otherwise, line } = at {
                        if self.eval(cond, slots, sink).map_err(|f| (*line, f))? != 0 {
                            self.exec(then, app, slots, sink)?;
                            break;
                        }
                        match otherwise.as_slice() {
                            [next @ Stmt::If { .. }] => at = next,
                            _ => {
                                self.exec(otherwise, app, slots, sink)?;
                                break;
                            }
                        }
                    }
                }
                Stmt::Enable { event, .. } | Stmt::Disable { event, .. } => {
                    let on = matches!(st, Stmt::Enable { .. });
                    sink.touch(self.flag_object(*event), true);
                    slots.set(self.flag_base() + *event as usize, on as i64);
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
    fn fire<T: Slots + ?Sized, S: Sink>(&self, slots: &mut T, c: Choice, sink: &mut S) -> Result<(), ModelError> {
        let ci = c as usize;
        sink.touch(self.flag_object(c), false);
        if self.opts.bound.is_some() {
            let f = self.fired_base() + ci;
            slots.set(f, slots.get(f) + 1);
        }
        for &h in &self.handlers_of[ci] {
            let handler = &self.ast.handlers[h];
            if let Err((line, fail)) = self.exec(&handler.body, handler.app, slots, sink) {
                let app = &self.ast.apps[handler.app as usize];
                let mut conflict = None;
                let (kind, message) = match fail {
                    Fail::DivZero(m) => ("division-by-zero", m.to_string()),
                    Fail::Overflow(m) => ("overflow", m.to_string()),
                    Fail::Assert(m) => ("assert", m.to_string()),
                    Fail::Conflict { var, last_app, old, new } => {
                        let variable = self.ast.vars[var].name.clone();
                        // The message tells errors apart, so it names only what the statement
                        // fixes; who wrote what before depends on the path, and goes aside.
                        let message = format!(
                            "app {app} overwrites `{variable}`, last written by another app with a different value"
                        );
                        conflict = Some(Box::new(crate::model::Conflict {
                            variable,
                            app: app.to_string(),
                            value: self.show(var, new),
                            last_app: self.ast.apps[last_app].to_string(),
                            last_value: self.show(var, old),
                            between: Vec::new(),
                        }));
                        ("conflict", message)
                    }
                };
                return Err(ModelError {
                    kind,
                    message,
                    line,
                    event: Some(self.ast.events[ci].name.clone()),
                    app: Some(app.clone()),
                    conflict,
                    at: Some(self.place(ci, line)),
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

    fn kind(&self) -> ModelKind {
        ModelKind::Events
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
        // At least one word: fields of zero width (a variable that never changes, with no event
        // beside it) still point at word 0.
        let mut packed: SmallVec<[u64; 4]> = smallvec::smallvec![0; self.key_len.div_ceil(2).max(1)];
        for (f, &v) in self.fields.iter().zip(&slots) {
            f.put(&mut packed, v);
        }
        EventState { slots, packed }
    }

    fn enabled(&self, s: &EventState, out: &mut Vec<Choice>) {
        out.extend((0..self.nevents).filter(|&e| self.is_enabled(&s.slots, e)).map(|e| e as Choice));
    }

    fn accesses(&self, s: &EventState, c: Choice, out: &mut Accesses) {
        // Accesses depend on the path taken, so run the event on a copy and record them; an
        // error ends the list where the transition ends. The copy's buffer is kept per thread:
        // states with ghost slots (`--conflicts`, `--bound`) outgrow any inline one.
        thread_local! {
            static SCRATCH: std::cell::RefCell<Vec<i64>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            scratch.clear();
            scratch.extend_from_slice(&s.slots);
            let _ = self.fire(&mut scratch[..], c, &mut Record(out));
        });
    }

    fn step(&self, s: &mut EventState, c: Choice) -> Result<(), ModelError> {
        self.fire(&mut Live { fields: &self.fields, state: s, log: &mut () }, c, &mut NoSink)
    }

    fn step_recording(&self, s: &mut EventState, c: Choice, out: &mut Accesses) -> Result<(), ModelError> {
        self.fire(&mut Live { fields: &self.fields, state: s, log: &mut () }, c, &mut Record(out))
    }

    fn undoable(&self) -> bool {
        true
    }

    fn step_logged(&self, s: &mut EventState, c: Choice, log: &mut Vec<u64>) -> Result<(), ModelError> {
        self.fire(&mut Live { fields: &self.fields, state: s, log }, c, &mut NoSink)
    }

    fn undo(&self, s: &mut EventState, log: &[u64]) {
        for pair in log.chunks_exact(2).rev() {
            let (slot, old) = (pair[0] as usize, pair[1] as i64);
            s.slots[slot] = old;
            self.fields[slot].put(&mut s.packed, old);
        }
    }

    fn next_enabled(&self, s: &EventState, from: Choice) -> Option<Choice> {
        (from as usize..self.nevents).find(|&e| self.is_enabled(&s.slots, e)).map(|e| e as Choice)
    }

    fn encode(&self, s: &EventState, out: &mut Vec<u32>) {
        // The packed words: a fixed layout with unused bits zero, so equal keys iff equal slots.
        for (i, &w) in s.packed.iter().enumerate() {
            if 2 * i < self.key_len {
                out.push(w as u32);
            }
            if 2 * i + 1 < self.key_len {
                out.push((w >> 32) as u32);
            }
        }
    }

    fn outcome(&self, s: &EventState) -> Outcome {
        let sl = &s.slots;
        let vars = self.ast.vars.iter().enumerate().map(|(i, v)| (v.name.clone(), self.show(i, sl[i]))).collect();
        let enabled = (self.ast.events.iter().enumerate())
            .filter(|&(e, _)| sl[self.flag_base() + e] != 0)
            .map(|(_, ev)| ev.name.clone())
            .collect();
        let writers = self.opts.conflicts.then(|| {
            (self.ast.vars.iter().enumerate())
                .filter(|&(i, _)| sl[self.writer_base() + i] != 0)
                .map(|(i, v)| (v.name.clone(), self.ast.apps[(sl[self.writer_base() + i] - 1) as usize].to_string()))
                .collect()
        });
        let fired = self.opts.bound.map(|_| {
            (self.ast.events.iter().enumerate())
                .map(|(e, ev)| (ev.name.clone(), sl[self.fired_base() + e] as u32))
                .collect()
        });
        Outcome::Events { vars, enabled, writers, fired }
    }

    fn paths_are_finite(&self) -> bool {
        self.opts.bound.is_some()
    }

    fn load_flags(&self) -> String {
        crate::model::load_flags(self.opts.bound, self.opts.conflicts)
    }

    fn write_place(
        &self,
        path: &[Choice],
        variable: &str,
        app: &str,
        budget: &dyn crate::model::Poll,
    ) -> Option<String> {
        self.assignment_place(path, variable, app, budget)
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
        let environment = if self.ast.main_is_environment { " (and handlers outside any app)" } else { "" };
        format!(
            "{} events, {} handlers, {} apps{environment}, {} variables",
            self.nevents,
            self.ast.handlers.len(),
            self.declared_apps(),
            self.nvars
        )
    }

    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        std::collections::BTreeMap::from([
            ("events".to_string(), self.nevents as u64),
            ("handlers".to_string(), self.ast.handlers.len() as u64),
            ("apps".to_string(), self.declared_apps() as u64),
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

    /// The environment, then each app (`main` is the environment when it stands for handlers
    /// outside any app block).
    fn lanes(&self) -> Vec<super::lane::Lane> {
        use super::lane::{Lane, LaneKind};
        let env = Lane { name: "environment".into(), kind: LaneKind::Environment };
        let apps = self.ast.apps.iter().map(|a| Lane { name: a.clone(), kind: LaneKind::App });
        std::iter::once(env).chain(apps).collect()
    }

    /// The event fired (on the environment's lane, with its accesses), then each of its
    /// handlers on its app's lane, in file order.
    fn lane_marks(&self, s: &EventState, c: Choice, out: &mut Vec<super::lane::LaneMark>) {
        use super::lane::LaneMark;
        let name = self.choice_name(c);
        out.push(LaneMark {
            lane: 0,
            handler: None,
            label: format!("event {name}"),
            text: self.describe(s, c),
            op: None,
            access: None,
        });
        for &h in &self.handlers_of[c as usize] {
            let h = &self.ast.handlers[h];
            let app = h.app as usize;
            let env = self.ast.main_is_environment && self.ast.apps[app] == "main";
            out.push(LaneMark {
                lane: if env { 0 } else { app + 1 },
                handler: Some((format!("on {name}"), None)),
                label: format!("line {}", h.line),
                text: format!("handler of event {name} in app {} (line {})", self.ast.apps[app], h.line),
                op: None,
                access: None,
            });
        }
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
                Expr::Chain(first, rest) => {
                    expr(first, out);
                    rest.iter().for_each(|(_, b)| expr(b, out));
                }
            }
        }
        fn block(m: &EventModel, body: &[Stmt], out: &mut Record<'_>) {
            // A stack of blocks in progress rather than recursion (`else if` chains may be
            // thousands long), visiting statements in the same order.
            let mut stack = vec![body.iter()];
            while let Some(top) = stack.last_mut() {
                let Some(st) = top.next() else {
                    stack.pop();
                    continue;
                };
                match st {
                    Stmt::Assign { var, value, .. } => {
                        expr(value, out);
                        out.touch(*var, true);
                    }
                    Stmt::If { cond, then, otherwise, .. } => {
                        expr(cond, out);
                        stack.extend([otherwise.iter(), then.iter()]);
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

impl crate::model::StaticFootprints for EventModel {
    fn footprints(&self) -> Vec<Accesses> {
        (0..self.choices()).map(|e| EventModel::footprint(self, e)).collect()
    }
    fn exhausted(&self, s: &EventState, c: Choice) -> bool {
        EventModel::exhausted(self, s, c)
    }
    fn bound(&self) -> Option<u32> {
        self.opts.bound
    }
}
