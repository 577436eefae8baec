//! From DroidRacer's log to the EM trace its model checker reads: the passes, in the order
//! DroidRacer's `androidPOR-trace` branch and EM-Explorer's helper tools apply them (see
//! docs/abc-log.md for each rule and where tracepor differs).
//!
//! 1. Typing ([`typed`]): operations in id order, each `ACCESS` with the `rwId:` lines of its
//!    thread logged since the thread's previous `ACCESS`; a POST's destination is the thread
//!    that CALLs its message.
//! 2. Survey: which ENABLE-EVENTs a TRIGGER-EVENT needs, which messages run the handler of a UI
//!    event (the main thread's task that holds a TRIGGER-EVENT), how many posts come from binder
//!    threads (each gets a fresh thread), which LOCKs and CALLs are left open at the end.
//! 3. Main pass ([`Converter::main_pass`]): what each operation becomes, and the environment
//!    model's happens-before edges (lifecycle, window focus, UI events; activities, services
//!    and broadcast receivers through [`super::components`]).
//! 4. Closing: UNLOCKs and RETs for open sections; tasks left without operations are removed
//!    with their POST (one backward sweep); each delayed post gets a fresh thread that forks
//!    and posts; threads still running get a THREADEXIT, loopers excepted.
//! 5. Renumbering: threads and messages by their sorted raw ids, lines from 1.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::{FxHashMap, FxHashSet};

use super::components::{Callback, Components, Edge};
use super::read::{AbcLog, LogLine};
use crate::trace::InputError;

/// What one log operation is, with what the conversion needs of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Start,
    ThreadInit,
    ThreadExit,
    Fork {
        child: u32,
    },
    Wait,
    Notify {
        target: u32,
    },
    AttachQ,
    Loop,
    Post {
        msg: u64,
        delay: i64,
    },
    Call {
        msg: u64,
    },
    Ret {
        msg: u64,
    },
    NativeEntry,
    NativeExit,
    /// Closes the thread's pending heap accesses: `rw[from..to]` of [`Typed::access_order`].
    Access {
        from: u32,
        to: u32,
    },
    Lock,
    Unlock,
    EnableEvent,
    TriggerEvent,
    EnableFocus,
    TriggerFocus,
    EnableLifecycle,
    TriggerLifecycle,
    TriggerService,
    TriggerBroadcast,
    /// The activity instance an intent launched.
    InstanceIntent,
    /// Idle handlers, JOIN, REMOVE: read, not carried into the trace.
    Dropped,
}

#[derive(Clone, Debug)]
struct Op {
    /// Index of the line in [`AbcLog::lines`].
    line: usize,
    tid: u32,
    kind: Kind,
}

/// The log typed: operations in id order and the accesses each ACCESS closes.
struct Typed {
    ops: Vec<Op>,
    /// Indices of `rwId:` lines, grouped by the ACCESS that closes them.
    access_order: Vec<usize>,
    /// First thread id no recorded thread uses (fresh threads are numbered from it).
    next_tid: u32,
}

/// An operation of the converted trace, before renumbering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Emitted {
    /// A log operation carried over (its line index in the log).
    Log(usize),
    /// A heap access (the `rwId:` line index).
    Access(usize),
    Nop(u32),
    /// A post rewritten to come from environment thread `src` (binder or UI).
    EnvPost {
        src: u32,
        native: bool,
        line: usize,
    },
    /// A delayed post, made by the fresh thread `src`.
    DelayPost {
        src: u32,
        line: usize,
    },
    Fork {
        parent: u32,
        child: u32,
    },
    ThreadInit(u32),
    ThreadExit(u32),
    /// An UNLOCK added for a LOCK never released (the LOCK's line).
    Unlock(usize),
    /// A RET added for a CALL never returned (the CALL's line).
    Ret(usize),
}

/// The converted trace: operations (START first) and dependence edges between their positions.
pub struct Converted {
    pub ops: Vec<Emitted>,
    pub edges: Vec<(usize, usize)>,
    /// What the recording left open and the conversion closed or dropped (counted for the
    /// warning on a log cut short).
    pub closed: Closed,
}

/// What a recording left open at its end, as the conversion closed it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Closed {
    /// Handlers still running: a RET added.
    pub calls: usize,
    /// Locks still held: an UNLOCK added.
    pub locks: usize,
    /// FORKs of threads that had not started (no THREADINIT): dropped.
    pub forks: usize,
}

fn err(log: &AbcLog, l: &LogLine, col: u32, text: &[u8], msg: impl Into<String>) -> InputError {
    InputError::at(log.file, l.line as usize, col as usize, &String::from_utf8_lossy(text), msg)
}

fn missing(log: &AbcLog, l: &LogLine, key: &str) -> InputError {
    err(log, l, l.end_col(), l.op, format!("missing field `{key}` for {}", String::from_utf8_lossy(l.op)))
}

fn number<T: std::str::FromStr>(log: &AbcLog, l: &LogLine, key: &str) -> Result<T, InputError> {
    let f = l.get(key).ok_or_else(|| missing(log, l, key))?;
    std::str::from_utf8(f.value)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| err(log, l, f.col, f.value, format!("bad number in field `{key}`")))
}

fn require(log: &AbcLog, l: &LogLine, key: &str) -> Result<(), InputError> {
    l.get(key).map(|_| ()).ok_or_else(|| missing(log, l, key))
}

fn typed(log: &AbcLog) -> Result<Typed, InputError> {
    let mut ops = Vec::with_capacity(log.lines.len());
    let mut pending: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    let mut access_order = Vec::new();
    let mut max_tid = 0u32;
    for (i, l) in log.lines.iter().enumerate() {
        if l.access {
            // Database accesses (`database:<path>`) are not memory locations of the app.
            if l.get("database").is_some() {
                continue;
            }
            match l.op {
                b"READ" | b"WRITE" => ["obj", "class", "field"].iter().try_for_each(|k| require(log, l, k))?,
                b"READ-STATIC" | b"WRITE-STATIC" => ["class", "field"].iter().try_for_each(|k| require(log, l, k))?,
                _ => {
                    return Err(err(
                        log,
                        l,
                        l.op_col,
                        l.op,
                        "unknown access (expected READ, WRITE, READ-STATIC, WRITE-STATIC)",
                    ))
                }
            }
            let tid: u32 = number(log, l, "tid")?;
            max_tid = max_tid.max(tid);
            pending.entry(tid).or_default().push(i);
            continue;
        }
        let (tid_key, kind) = match l.op {
            b"START" => (None, Kind::Start),
            b"THREADINIT" => (Some("tid"), Kind::ThreadInit),
            b"THREADEXIT" => (Some("tid"), Kind::ThreadExit),
            b"FORK" => {
                let child = number(log, l, "child-tid")?;
                max_tid = max_tid.max(child);
                (Some("par-tid"), Kind::Fork { child })
            }
            b"WAIT" => (Some("tid"), Kind::Wait),
            b"NOTIFY" => (Some("tid"), Kind::Notify { target: number(log, l, "notifiedTid")? }),
            b"ATTACH-Q" => {
                require(log, l, "queue")?;
                (Some("tid"), Kind::AttachQ)
            }
            b"LOOP" => (Some("tid"), Kind::Loop),
            b"POST" => {
                require(log, l, "dest")?;
                (Some("src"), Kind::Post { msg: number(log, l, "msg")?, delay: number(log, l, "delay")? })
            }
            b"CALL" => (Some("tid"), Kind::Call { msg: number(log, l, "msg")? }),
            b"RET" => (Some("tid"), Kind::Ret { msg: number(log, l, "msg")? }),
            b"NATIVE-ENTRY" => (Some("tid"), Kind::NativeEntry),
            b"NATIVE-EXIT" => (Some("tid"), Kind::NativeExit),
            b"ACCESS" => (Some("tid"), Kind::Access { from: 0, to: 0 }),
            b"LOCK" | b"UNLOCK" => {
                let f = l.get("lock-obj").ok_or_else(|| missing(log, l, "lock-obj"))?;
                if lock_key(f.value).is_none() {
                    return Err(err(log, l, f.col, f.value, "bad lock object (expected a hex address)"));
                }
                (Some("tid"), if l.op == b"LOCK" { Kind::Lock } else { Kind::Unlock })
            }
            b"ENABLE-EVENT" | b"TRIGGER-EVENT" => {
                require(log, l, "view")?;
                require(log, l, "event")?;
                (Some("tid"), if l.op[0] == b'E' { Kind::EnableEvent } else { Kind::TriggerEvent })
            }
            b"ENABLE-WINDOW-FOCUS" | b"TRIGGER-WINDOW-FOCUS" => {
                require(log, l, "windowHash")?;
                (Some("tid"), if l.op[0] == b'E' { Kind::EnableFocus } else { Kind::TriggerFocus })
            }
            b"ENABLE-LIFECYCLE" | b"TRIGGER-LIFECYCLE" => {
                ["component", "id", "state"].iter().try_for_each(|k| require(log, l, k))?;
                (Some("tid"), if l.op[0] == b'E' { Kind::EnableLifecycle } else { Kind::TriggerLifecycle })
            }
            b"TRIGGER-SERVICE" => (Some("tid"), Kind::TriggerService),
            b"TRIGGER-BROADCAST" => (Some("tid"), Kind::TriggerBroadcast),
            b"INSTANCE-INTENT" => {
                ["instance", "intentId"].iter().try_for_each(|k| require(log, l, k))?;
                (None, Kind::InstanceIntent)
            }
            b"ADD_IDLE_HANDLER" | b"REMOVE_IDLE_HANDLER" | b"QUEUE_IDLE" | b"JOIN" | b"REMOVE" => (None, Kind::Dropped),
            _ => return Err(err(log, l, l.op_col, l.op, "unknown operation")),
        };
        let tid: u32 = match tid_key {
            Some(k) => number(log, l, k)?,
            None => 0,
        };
        max_tid = max_tid.max(tid);
        let kind = match kind {
            Kind::Access { .. } => {
                let from = access_order.len() as u32;
                access_order.extend(pending.remove(&tid).unwrap_or_default());
                Kind::Access { from, to: access_order.len() as u32 }
            }
            k => k,
        };
        ops.push(Op { line: i, tid, kind });
    }
    // DroidRacer keeps operations in a map by id: the file order can differ when threads log
    // concurrently. A repeated id would overwrite an operation there; here it is an error.
    ops.sort_by_key(|o| log.lines[o.line].id);
    for w in ops.windows(2) {
        let (a, b) = (&log.lines[w[0].line], &log.lines[w[1].line]);
        if a.id == b.id {
            let later = if a.line > b.line { a } else { b };
            return Err(err(log, later, 1, later.op, format!("operation id {} used twice", a.id)));
        }
    }
    Ok(Typed { ops, access_order, next_tid: max_tid.saturating_add(1) })
}

/// A lock object's address (`0x410bcd78`): open locks are closed in address order.
fn lock_key(v: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(v).ok()?;
    u64::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16).ok()
}

fn value<'a>(l: &LogLine<'a>, key: &str) -> &'a [u8] {
    l.get(key).map_or(&[][..], |f| f.value)
}

/// Per-thread state of the main pass.
#[derive(Default, Clone, Copy)]
struct ThreadState {
    /// The message whose handler the thread runs.
    task: Option<u64>,
    looping: bool,
    /// Known only from NATIVE-ENTRY: a binder thread, which has no THREADINIT in the trace.
    binder: bool,
}

/// What the main pass knows of a message.
#[derive(Default, Clone, Copy)]
struct Task {
    post: Option<usize>,
    ret: Option<usize>,
}

struct Converter<'l, 'a> {
    log: &'l AbcLog<'a>,
    t: Typed,
    /// Message -> thread that CALLs it.
    handler: FxHashMap<u64, u32>,
    out: Vec<Emitted>,
    /// Op index -> its position in `out` (DroidRacer's traceToTraceOpIdMap).
    pos_of: FxHashMap<usize, usize>,
    /// Position of an environment post -> position of the NOP before it.
    nop_of: FxHashMap<usize, usize>,
    edges: Vec<(usize, usize)>,
    ignored: FxHashSet<u64>,
    tasks: FxHashMap<u64, Task>,
    /// Op index -> the task it ran in.
    op_task: FxHashMap<usize, u64>,
    ui_tid: u32,
    /// Threads with a THREADINIT in the log.
    started: FxHashSet<u32>,
    closed: Closed,
}

impl<'l, 'a> Converter<'l, 'a> {
    fn line(&self, op: usize) -> &'l LogLine<'a> {
        &self.log.lines[self.t.ops[op].line]
    }

    fn fail(&self, op: usize, msg: impl Into<String>) -> InputError {
        let l = self.line(op);
        err(self.log, l, l.op_col, l.op, msg)
    }

    fn emit(&mut self, e: Emitted, op: Option<usize>) -> usize {
        self.out.push(e);
        let p = self.out.len() - 1;
        if let Some(op) = op {
            self.pos_of.insert(op, p);
        }
        p
    }

    /// An explicit happens-before edge; an edge into an environment post lands on its NOP.
    fn edge(&mut self, src: Option<usize>, dest: Option<usize>) {
        if let (Some(s), Some(d)) = (src, dest) {
            let d = self.nop_of.get(&d).copied().unwrap_or(d);
            self.edges.push((s, d));
        }
    }

    fn pos_of_op(&self, op: Option<usize>) -> Option<usize> {
        op.and_then(|o| self.pos_of.get(&o).copied())
    }

    fn post_pos_of_task(&self, task: Option<u64>) -> Option<usize> {
        self.pos_of_op(task.and_then(|m| self.tasks.get(&m)).and_then(|t| t.post))
    }

    fn run(mut self) -> Result<Converted, InputError> {
        let ops_len = self.t.ops.len();
        // START, then the main thread's THREADINIT, as DroidRacer requires.
        if self.t.ops.is_empty() {
            // Only access lines (`rwId:`), or nothing the conversion keeps: no operation to
            // point at, so the file is named.
            return Err(InputError::file(self.log.file, "no operation line: a log starts with START"));
        }
        if self.t.ops.first().map(|o| o.kind) != Some(Kind::Start) {
            return Err(self.fail(0, "a log starts with START"));
        }
        if ops_len < 2 {
            return Err(self.fail(0, "the log stops after START: no thread was recorded"));
        }
        if self.t.ops[1].kind != Kind::ThreadInit {
            return Err(self.fail(1, "the main thread's THREADINIT must follow START"));
        }
        self.started = self.t.ops.iter().filter(|o| o.kind == Kind::ThreadInit).map(|o| o.tid).collect();
        for (i, op) in self.t.ops.iter().enumerate() {
            if let Kind::Call { msg } = op.kind {
                self.handler.entry(msg).or_insert(op.tid);
                let _ = i;
            }
        }
        // The UI-input thread DroidRacer forks at start: the child of the main thread's first FORK.
        self.ui_tid = self.t.ops.iter().find_map(|o| matches!(o.kind, Kind::Fork { .. }).then_some(o)).map_or(2, |o| {
            match o.kind {
                Kind::Fork { child } => child,
                _ => 2,
            }
        });

        // Survey.
        let mut enabled_event: FxHashMap<(&[u8], &[u8]), usize> = FxHashMap::default();
        let mut needed_enables: FxHashSet<usize> = FxHashSet::default();
        let mut ui_tasks: FxHashSet<u64> = FxHashSet::default();
        let mut last_ui_call: Option<u64> = None;
        let mut open_calls: BTreeMap<u64, usize> = BTreeMap::new();
        let mut open_locks: BTreeMap<u64, usize> = BTreeMap::new();
        let mut binder: FxHashSet<u32> = FxHashSet::default();
        let mut native_ids: std::collections::VecDeque<u32> = Default::default();
        let mut next_tid = self.t.next_tid;
        for i in 0..ops_len {
            let op = self.t.ops[i].clone();
            let l = self.line(i);
            match op.kind {
                Kind::EnableEvent => {
                    enabled_event.insert((value(l, "view"), value(l, "event")), i);
                }
                Kind::TriggerEvent => {
                    let Some(&e) = enabled_event.get(&(value(l, "view"), value(l, "event"))) else {
                        return Err(self.fail(i, "TRIGGER-EVENT without an earlier ENABLE-EVENT of its view and event"));
                    };
                    needed_enables.insert(e);
                    if op.tid == 1 {
                        ui_tasks.extend(last_ui_call);
                    }
                }
                Kind::Call { msg } => {
                    if op.tid == 1 {
                        last_ui_call = Some(msg);
                    }
                    open_calls.entry(msg).or_insert(i);
                }
                Kind::Ret { msg } => {
                    open_calls.remove(&msg);
                }
                Kind::Post { .. } if binder.contains(&op.tid) => {
                    native_ids.push_back(next_tid);
                    next_tid = next_tid.saturating_add(1);
                }
                Kind::Lock => {
                    open_locks.entry(lock_key(value(l, "lock-obj")).unwrap_or(0)).or_insert(i);
                }
                Kind::Unlock => {
                    open_locks.remove(&lock_key(value(l, "lock-obj")).unwrap_or(0));
                }
                Kind::NativeEntry => {
                    binder.insert(op.tid);
                }
                Kind::NativeExit => {
                    binder.remove(&op.tid);
                }
                _ => {}
            }
        }

        // Dropped before the main pass: ENABLE-EVENTs no trigger needs, posts never dequeued.
        let kept: Vec<bool> = (0..ops_len)
            .map(|i| match self.t.ops[i].kind {
                Kind::EnableEvent => needed_enables.contains(&i),
                Kind::Post { msg, .. } => self.handler.contains_key(&msg),
                _ => true,
            })
            .collect();

        // START and the main thread's THREADINIT, then a FORK and THREADINIT per binder post.
        self.emit(Emitted::Log(self.t.ops[0].line), None);
        self.emit(Emitted::Log(self.t.ops[1].line), None);
        let main = self.t.ops[1].tid;
        let mut threads: FxHashMap<u32, ThreadState> = FxHashMap::default();
        threads.insert(main, ThreadState::default());
        for &n in &native_ids {
            self.emit(Emitted::Fork { parent: main, child: n }, None);
            self.emit(Emitted::ThreadInit(n), None);
        }
        self.main_pass(2, &kept, &mut threads, &mut native_ids, &ui_tasks)?;

        // Close what the recording left open (a handler whose message was left out stays out).
        for (_, &i) in &open_locks {
            self.emit(Emitted::Unlock(self.t.ops[i].line), None);
            self.closed.locks += 1;
        }
        for (msg, &i) in &open_calls {
            if !self.ignored.contains(msg) {
                self.emit(Emitted::Ret(self.t.ops[i].line), None);
                self.closed.calls += 1;
            }
        }
        let loopers: FxHashSet<u32> = threads.iter().filter(|(_, s)| s.looping).map(|(&t, _)| t).collect();
        let looped: FxHashSet<u32> =
            self.t.ops.iter().filter(|o| o.kind == Kind::Loop).map(|o| o.tid).chain(loopers).collect();
        Ok(self.close(next_tid, &looped))
    }

    fn main_pass(
        &mut self,
        from: usize,
        kept: &[bool],
        threads: &mut FxHashMap<u32, ThreadState>,
        native_ids: &mut std::collections::VecDeque<u32>,
        ui_tasks: &FxHashSet<u64>,
    ) -> Result<(), InputError> {
        let mut binder: FxHashSet<u32> = FxHashSet::default();
        let mut lifecycle: FxHashMap<(&[u8], &[u8]), Vec<(usize, bool)>> = FxHashMap::default();
        let mut focus: FxHashMap<&[u8], Vec<usize>> = FxHashMap::default();
        let mut events: FxHashMap<(&[u8], &[u8]), usize> = FxHashMap::default();
        let mut components = Components::default();
        let mut blank_resume: Option<usize> = None;
        for i in from..self.t.ops.len() {
            if !kept[i] {
                continue;
            }
            let op = self.t.ops[i].clone();
            let l = self.line(i);
            if op.kind == Kind::NativeEntry {
                threads.entry(op.tid).or_insert(ThreadState { binder: true, ..Default::default() });
                binder.insert(op.tid);
                continue;
            }
            if op.kind == Kind::InstanceIntent {
                // From now on the activity is known by its instance: its state machine, and
                // the LAUNCH-ACT and RESUME-ACT enables made for the intent (unless the
                // instance has its own).
                let (instance, intent) = (value(l, "instance"), value(l, "intentId"));
                components.instance(instance, intent);
                for state in [&b"LAUNCH-ACT"[..], b"RESUME-ACT"] {
                    if let Some(list) = lifecycle.remove(&(intent, state)) {
                        lifecycle.entry((instance, state)).or_insert(list);
                    }
                }
                continue;
            }
            if op.kind == Kind::Dropped {
                continue;
            }
            let Some(&state) = threads.get(&op.tid) else {
                return Err(self.fail(i, format!("operation of thread {} before the thread was created", op.tid)));
            };
            let task = state.task;
            if let Some(m) = task {
                self.op_task.insert(i, m);
            }
            // A binder thread's own operations (other than its posts) have no thread to run on
            // in the trace: the trace gives binder threads no THREADINIT.
            let shown = task.is_none_or(|m| !self.ignored.contains(&m))
                && (!state.binder || matches!(op.kind, Kind::Post { .. }));
            if state.looping
                && task.is_none()
                && matches!(op.kind, Kind::Access { .. } | Kind::Lock | Kind::Unlock | Kind::Fork { .. })
            {
                return Err(self.fail(i, "operation of a looper thread outside any handler"));
            }
            let me = Some(i);
            match op.kind {
                Kind::ThreadInit => {
                    self.emit(Emitted::Log(op.line), None);
                }
                Kind::ThreadExit => {
                    threads.remove(&op.tid);
                    self.emit(Emitted::Log(op.line), None);
                    continue;
                }
                Kind::Fork { child } => {
                    if threads.insert(child, ThreadState::default()).is_some() {
                        return Err(self.fail(i, format!("thread {child} forked twice")));
                    }
                    // A child that never started before the recording ended runs nothing:
                    // its FORK orders nothing and is dropped.
                    if !self.started.contains(&child) {
                        self.closed.forks += 1;
                    } else if shown {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::Wait | Kind::Notify { .. } | Kind::Lock | Kind::Unlock => {
                    if shown {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::TriggerService | Kind::TriggerBroadcast => {
                    if shown {
                        self.emit(Emitted::Log(op.line), me);
                    }
                    // The model sees every one, shown or not: a binder thread's
                    // ABC_TRIGGER_ONRECIEVE_LATER says which send and registration an onReceive
                    // answers.
                    let cur = Callback { op: i, id: l.id, task, tid: op.tid };
                    let state = value(l, "state");
                    if op.kind == Kind::TriggerService {
                        components.service(cur, value(l, "component"), number(self.log, l, "id")?, state);
                    } else {
                        let (receiver, action) = (value(l, "component"), value(l, "action"));
                        let intent = number(self.log, l, "intent")?;
                        let later = number(self.log, l, "onRecLater")?;
                        components.broadcast(cur, receiver, action, intent, later, state);
                    }
                    self.component_edges(&mut components.edges);
                }
                Kind::AttachQ => {
                    self.emit(Emitted::Log(op.line), me);
                }
                Kind::Loop => {
                    threads.get_mut(&op.tid).map(|s| s.looping = true);
                    self.emit(Emitted::Log(op.line), me);
                }
                Kind::Post { msg, delay } => {
                    if delay < 0 {
                        return Err(self.fail(i, "a post to the front of the queue (delay -1) is not supported"));
                    }
                    self.tasks.entry(msg).or_default().post = Some(i);
                    let ui = ui_tasks.contains(&msg);
                    let mut show = true;
                    if state.looping && task.is_none() && !ui {
                        show = false;
                    }
                    if !ui && task.is_some_and(|m| self.ignored.contains(&m)) {
                        show = false;
                    }
                    if !show {
                        self.ignored.insert(msg);
                    } else if binder.contains(&op.tid) {
                        match native_ids.pop_front() {
                            Some(n) => {
                                let nop = self.emit(Emitted::Nop(n), None);
                                let p = self.emit(Emitted::EnvPost { src: n, native: true, line: op.line }, me);
                                self.nop_of.insert(p, nop);
                                self.emit(Emitted::ThreadExit(n), None);
                            }
                            None => {
                                self.ignored.insert(msg);
                            }
                        }
                    } else if ui {
                        let nop = self.emit(Emitted::Nop(self.ui_tid), None);
                        let p = self.emit(Emitted::EnvPost { src: self.ui_tid, native: false, line: op.line }, me);
                        self.nop_of.insert(p, nop);
                    } else {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::Call { msg } => {
                    if !state.looping {
                        return Err(self.fail(i, "CALL on a thread before its LOOP"));
                    }
                    threads.get_mut(&op.tid).map(|s| s.task = Some(msg));
                    self.op_task.insert(i, msg);
                    if !self.ignored.contains(&msg) {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::Ret { msg } => {
                    let m = task.unwrap_or(msg);
                    self.tasks.entry(m).or_default().ret = Some(i);
                    threads.get_mut(&op.tid).map(|s| s.task = None);
                    if !self.ignored.contains(&m) {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::Access { from, to } if !state.binder => {
                    for k in from..to {
                        let line = self.t.access_order[k as usize];
                        self.out.push(Emitted::Access(line));
                    }
                }
                Kind::EnableEvent => {
                    events.insert((value(l, "view"), value(l, "event")), i);
                    if shown {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::TriggerEvent => {
                    let Some(m) = task else {
                        return Err(self.fail(i, "TRIGGER-EVENT outside any handler"));
                    };
                    if let Some(&e) = events.get(&(value(l, "view"), value(l, "event"))) {
                        let post = self.post_pos_of_task(Some(m));
                        let enable = self.pos_of_op(Some(e));
                        if enable.is_some() && post.is_some() {
                            self.edge(enable, post);
                            // An event enabled by a handler of the main thread fires after it.
                            if self.t.ops[e].tid == 1 {
                                let ret = self.op_task.get(&e).and_then(|t| self.tasks.get(t)).and_then(|t| t.ret);
                                let ret = self.pos_of_op(ret);
                                self.edge(ret, post);
                            }
                        }
                        if shown {
                            self.emit(Emitted::Log(op.line), me);
                        }
                    }
                }
                Kind::EnableFocus => {
                    focus.entry(value(l, "windowHash")).or_default().push(i);
                    if shown {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::TriggerFocus => {
                    // The latest enable of the window since its previous trigger that came before
                    // the trigger's post orders that post, and so does the post of the handler
                    // that enabled it. A focus change nobody enabled is left out, as in
                    // DroidRacer.
                    let list = focus.remove(value(l, "windowHash")).unwrap_or_default();
                    if !list.is_empty() {
                        let post = self.post_pos_of_task(task);
                        let at = post.map(|p| self.nop_of.get(&p).copied().unwrap_or(p));
                        let before = |e: &usize| match (self.pos_of_op(Some(*e)), at) {
                            (Some(pe), Some(a)) => pe < a,
                            _ => false,
                        };
                        let earlier = list.iter().rev().copied().find(before);
                        if let Some(e) = earlier {
                            self.edge(self.pos_of_op(Some(e)), post);
                            let enabler_post = self.post_pos_of_task(self.op_task.get(&e).copied());
                            self.edge(enabler_post, post);
                        }
                        // The latest enable, when it came after the post, still had its own
                        // handler posted before it: that post orders the trigger's post.
                        let latest = list.last().copied();
                        if latest.is_some() && latest != earlier {
                            let enabler_post =
                                self.post_pos_of_task(latest.and_then(|e| self.op_task.get(&e).copied()));
                            self.edge(enabler_post, post);
                        }
                        if shown {
                            self.emit(Emitted::Log(op.line), me);
                        }
                    }
                }
                Kind::EnableLifecycle => {
                    match (value(l, "id"), value(l, "state")) {
                        (_, b"BINDAPP-DONE") => components.app_bind_task = task,
                        (b"0", b"RESUME-ACT") => blank_resume = Some(i),
                        _ => {}
                    }
                    lifecycle.entry((value(l, "id"), value(l, "state"))).or_default().push((i, false));
                    if shown {
                        self.emit(Emitted::Log(op.line), me);
                    }
                }
                Kind::TriggerLifecycle => {
                    if shown {
                        self.emit(Emitted::Log(op.line), me);
                    }
                    let trigger = self.pos_of_op(me);
                    let trigger_post = self.post_pos_of_task(task);
                    let key = (value(l, "id"), value(l, "state"));
                    let enables: Vec<usize> = match lifecycle.get_mut(&key) {
                        Some(list) => {
                            // Every enable since the last one triggered, newest first.
                            let mut found = Vec::new();
                            for (e, done) in list.iter_mut().rev() {
                                if *done {
                                    break;
                                }
                                *done = true;
                                found.push(*e);
                            }
                            found
                        }
                        None => Vec::new(),
                    };
                    // A resume nothing enabled answers the latest enable of a resume that named
                    // no activity (`id:0`), once.
                    let blank = if enables.is_empty() && key.1 == b"RESUME-ACT" { blank_resume.take() } else { None };
                    if let Some(b) = blank {
                        let enable = self.pos_of_op(Some(b));
                        self.edge(enable, trigger);
                        if task.is_some() {
                            self.edge(enable, trigger_post);
                        }
                        if let Some(list) = lifecycle.get_mut(&key) {
                            list.push((b, true));
                        }
                    }
                    for e in enables {
                        let enable = self.pos_of_op(Some(e));
                        self.edge(enable, trigger);
                        if task.is_some() {
                            let src = match self.op_task.get(&e) {
                                Some(&m) => self.post_pos_of_task(Some(m)),
                                None => enable,
                            };
                            self.edge(src, trigger_post);
                        }
                    }
                    components.activity(Callback { op: i, id: l.id, task, tid: op.tid }, key.0, key.1);
                    self.component_edges(&mut components.edges);
                }
                Kind::Start | Kind::NativeEntry | Kind::Dropped | Kind::InstanceIntent | Kind::Access { .. } => {}
                Kind::NativeExit => {
                    binder.remove(&op.tid);
                }
            }
        }
        components.finish();
        self.component_edges(&mut components.edges);
        Ok(())
    }

    /// The environment model's edges, at the positions of their operations and posts.
    fn component_edges(&mut self, edges: &mut Vec<Edge>) {
        for e in edges.drain(..) {
            let (src, dest) = match e {
                Edge::OpToPost(o, m) => (self.pos_of_op(Some(o)), self.post_pos_of_task(Some(m))),
                Edge::PostToPost(a, b) => (self.post_pos_of_task(Some(a)), self.post_pos_of_task(Some(b))),
            };
            self.edge(src, dest);
        }
    }

    /// Closing passes: empty tasks out, delayed posts on fresh threads, THREADEXITs, edges kept
    /// only between operations still there.
    fn close(self, mut next_tid: u32, loopers: &FxHashSet<u32>) -> Converted {
        let Converter { log, t, out, edges, closed, .. } = self;
        let line_op = |line: usize| -> (&LogLine, Kind, u32) {
            let l = &log.lines[line];
            let op = t.ops.binary_search_by_key(&l.id, |o| log.lines[o.line].id).ok().map(|k| &t.ops[k]);
            let op = op.expect("emitted log operation is typed");
            (l, op.kind, op.tid)
        };
        // Backward sweep: a task is kept when it holds an operation other than a NOP, or posts a
        // kept message; a POST of a message whose task is not kept goes with it.
        let mut keep_msg: FxHashSet<u64> = FxHashSet::default();
        let mut open_ret: FxHashMap<u32, (u64, usize)> = FxHashMap::default();
        let mut gone: FxHashSet<usize> = FxHashSet::default();
        for p in (1..out.len()).rev() {
            let (tid, what): (u32, Option<(Kind, bool)>) = match &out[p] {
                Emitted::Log(line) => {
                    let (_, k, tid) = line_op(*line);
                    (tid, Some((k, false)))
                }
                Emitted::EnvPost { src, native, line } => {
                    let (_, k, _) = line_op(*line);
                    // Only NATIVE-POST goes with its task; DroidRacer's sweep keeps UI-POSTs.
                    (*src, Some((k, !*native)))
                }
                Emitted::Ret(line) => {
                    let (_, k, tid) = line_op(*line);
                    let msg = match k {
                        Kind::Call { msg } => msg,
                        _ => 0,
                    };
                    (tid, Some((Kind::Ret { msg }, false)))
                }
                Emitted::Access(line) => {
                    let tid = log.lines[*line].get("tid").and_then(|f| std::str::from_utf8(f.value).ok()?.parse().ok());
                    (tid.unwrap_or(u32::MAX), None)
                }
                Emitted::Nop(tid) => {
                    if let Some(&(m, _)) = open_ret.get(tid) {
                        if !keep_msg.contains(&m) {
                            gone.insert(p);
                        }
                    }
                    continue;
                }
                Emitted::Fork { parent, .. } => (*parent, None),
                Emitted::ThreadInit(t) | Emitted::ThreadExit(t) => (*t, None),
                Emitted::DelayPost { src, .. } => (*src, None),
                Emitted::Unlock(line) => (line_op(*line).2, None),
            };
            match what {
                Some((Kind::Ret { msg }, _)) => {
                    open_ret.entry(tid).or_insert((msg, p));
                }
                Some((Kind::Call { msg }, _)) => {
                    if keep_msg.contains(&msg) {
                        open_ret.remove(&tid);
                    } else {
                        gone.insert(p);
                        if let Some((_, r)) = open_ret.remove(&tid) {
                            gone.insert(r);
                        }
                    }
                }
                Some((Kind::Post { msg, .. }, false)) => {
                    if !keep_msg.contains(&msg) {
                        gone.insert(p);
                    } else if let Some(&(m, _)) = open_ret.get(&tid) {
                        keep_msg.insert(m);
                    }
                }
                _ => {
                    if let Some(&(m, _)) = open_ret.get(&tid) {
                        keep_msg.insert(m);
                    }
                }
            }
        }

        // Emission: delayed posts get a fresh thread each; threads left running get THREADEXIT.
        let mut ops = Vec::with_capacity(out.len());
        let mut new_pos: FxHashMap<usize, usize> = FxHashMap::default();
        let mut running: BTreeSet<u32> = BTreeSet::new();
        for (p, e) in out.into_iter().enumerate() {
            if gone.contains(&p) {
                continue;
            }
            match &e {
                Emitted::Log(line) => {
                    let (_, k, tid) = line_op(*line);
                    match k {
                        Kind::ThreadInit => {
                            running.insert(tid);
                        }
                        Kind::ThreadExit => {
                            running.remove(&tid);
                        }
                        Kind::Post { delay, .. } if delay > 0 => {
                            let child = next_tid;
                            next_tid = next_tid.saturating_add(1);
                            ops.push(Emitted::Fork { parent: tid, child });
                            ops.push(Emitted::ThreadInit(child));
                            running.insert(child);
                            new_pos.insert(p, ops.len());
                            ops.push(Emitted::DelayPost { src: child, line: *line });
                            continue;
                        }
                        _ => {}
                    }
                }
                Emitted::ThreadInit(t) => {
                    running.insert(*t);
                }
                Emitted::ThreadExit(t) => {
                    running.remove(t);
                }
                _ => {}
            }
            new_pos.insert(p, ops.len());
            ops.push(e);
        }
        for tid in running {
            if !loopers.contains(&tid) {
                ops.push(Emitted::ThreadExit(tid));
            }
        }
        // An edge whose source comes after its destination in the trace is left out, and an
        // edge given twice is written once (docs/abc-log.md, dependence.txt).
        let mut seen = FxHashSet::default();
        let edges = edges
            .into_iter()
            .filter_map(|(s, d)| Some((*new_pos.get(&s)?, *new_pos.get(&d)?)))
            .filter(|&(s, d)| s < d && seen.insert((s, d)))
            .collect();
        Converted { ops, edges, closed }
    }
}

/// Runs passes 1-4 on a read log.
pub fn convert(log: &AbcLog) -> Result<Converted, InputError> {
    let t = typed(log)?;
    let c = Converter {
        log,
        t,
        handler: FxHashMap::default(),
        out: Vec::new(),
        pos_of: FxHashMap::default(),
        nop_of: FxHashMap::default(),
        edges: Vec::new(),
        ignored: FxHashSet::default(),
        tasks: FxHashMap::default(),
        op_task: FxHashMap::default(),
        ui_tid: 2,
        started: FxHashSet::default(),
        closed: Closed::default(),
    };
    c.run()
}

/// The destination of each message: the thread that CALLs it (the log writes `dest:-1`).
pub fn handlers(log: &AbcLog) -> FxHashMap<u64, u32> {
    let mut h = FxHashMap::default();
    for l in log.lines.iter().filter(|l| !l.access && l.op == b"CALL") {
        let tid = l.get("tid").and_then(|f| std::str::from_utf8(f.value).ok()?.parse().ok());
        let msg = l.get("msg").and_then(|f| std::str::from_utf8(f.value).ok()?.parse().ok());
        if let (Some(t), Some(m)) = (tid, msg) {
            h.entry(m).or_insert(t);
        }
    }
    h
}
