//! The random EM-trace generator of the soundness suites: a small random program (threads,
//! loopers, posts from threads and handlers, handlers, locks, notify/wait, reads and writes on a
//! few shared locations, environment threads held back by dependence.txt) is run once under a
//! random scheduler, and that run, written in the trace language, is the trace. So every trace
//! is a valid recording: every dependence edge and every static edge points forward in it.
//!
//! Shapes it produces, and why each is there:
//! - The ones that broke `stateful-dpor`: a NOTIFY aimed at a thread before that
//!   thread starts (and its later WAIT), re-entrant locks, posts from threads after they waited,
//!   handlers that lock (re-entrantly too), loopers that read and write before their LOOP, and
//!   two threads taking two locks in opposite orders (stuck outcomes to compare).
//! - FORK from anywhere, as the recordings have it: a plain thread forking another, a handler
//!   forking a thread that posts back (AsyncTask), a handler forking a thread and WAITing for its
//!   NOTIFY (music's handler at operations 57-62), and a looper forked late whose ATTACH-Q comes
//!   after other work, with posts to it from threads that must wait for that ATTACH-Q. The
//!   FORK -> child and ATTACH-Q -> post edges then leave main's prelude.
//! - All four post kinds from the threads DroidRacer invents: binder threads (a NOP held by a
//!   dependence edge, then NATIVE-POST, sometimes chained: one binder's post -> the next one's
//!   NOP), the UI-input thread 2 (NOP after an ENABLE-EVENT or a handler's RET, then UI-POST to
//!   main, several times), and DELAY-POST from a fresh thread that the poster forks. Environment
//!   posts go to loopers other than main too.
//! - Environment markers: ENABLE-LIFECYCLE / TRIGGER-LIFECYCLE (the model orders a trigger after
//!   the latest earlier untriggered enable of its (id, state): a static edge the reductions must
//!   respect), with a key sometimes enabled twice before its one trigger, and triggers ordered
//!   only by that matching (no dependence edge) or by an explicit edge too; ENABLE-EVENT /
//!   TRIGGER-EVENT, ENABLE-WINDOW-FOCUS / TRIGGER-WINDOW-FOCUS, TRIGGER-SERVICE and
//!   TRIGGER-BROADCAST, which the model treats as no-ops but which are sources of dependence
//!   edges in the recordings. Field shapes are the recordings' (component:dummy, intent:0 ...).
//! - dependence.txt edges from any kind of operation (inside handlers too, a handler's RET, a
//!   post) to an environment thread's NOP, and to operations that are not NOPs (a trigger, an
//!   access in another task): tracepor enforces an edge on whatever it names.
//! - READ-STATIC / WRITE-STATIC locations beside heap ones (a separate location kind).
//! - NOTIFY from handlers, WAIT inside a handler (a looper blocked mid-handler), WAIT while
//!   holding a lock (it keeps the lock), threads that wait twice, and more notifies than waits
//!   (a pending count left at the end).
//! - Threads that never THREADEXIT (music's tid 4, mytracks' 8 and 9).
//! - Now and then a larger program (more threads, longer bodies), which mostly lands in the
//!   suite's "larger" tally or past its baseline cap.

use std::collections::VecDeque;
use std::fmt::Write;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// How often a non-classic trace has a plain thread and a handler on main take two locks in
/// opposite orders (the thread posts the handler first): a looper blocked mid-handler, so that
/// which handlers ran before it, or stay queued behind it, is part of the stuck outcome. It
/// found `em-dpor` and `em-dpor-sleep` losing such outcomes (seeds 64, 90 and 101 of the
/// default 250; fixtures/em-regress/stuck-handler-*; em_dpor.rs `blocked_handler_races`).
const HANDLER_LOCK_ORDER: f64 = 0.25;

/// How often a trace has a WAIT made while holding a lock whose NOTIFY comes from a thread that
/// takes that lock first (in a plain thread, or in a handler on main: a looper hanging in a
/// handler): the recorded run is one where the notifier's section came first; in others the
/// WAIT gets fewer NOTIFYs than it needs (`optimal`'s direct search for stuck end
/// sets must find these, not only lock-order inversions). Drawn from a generator of its own, so
/// that the traces of seeds where it does not fire stay as they were.
const WAIT_UNDER_LOCK: f64 = 0.3;

/// An environment marker and the key it is matched by.
#[derive(Clone, Copy, Debug)]
enum Marker {
    Lifecycle { id: u32, state: &'static str },
    Event { view: u32 },
    Focus { window: u32 },
    Service { id: u32 },
    Broadcast { action: u32 },
}

const STATES: [&str; 5] = ["LAUNCH-ACT", "RESUME-ACT", "PAUSE-ACT", "DESTROY-ACT", "BIND-APP"];

/// One action of a generated program.
#[derive(Clone, Debug)]
enum Act {
    Read(u32),
    Write(u32),
    Lock(u32),
    Unlock(u32),
    /// Post a fresh message with this handler body to looper `.0` (raw tid); `.2` labels the
    /// handler's RET.
    Post(u32, Vec<Step>, Option<u32>),
    Notify(u32),
    Wait,
    Nop,
    Fork(u32),
    AttachQ,
    Enable(Marker),
    Trigger(Marker),
}

/// What a step waits for in the generating run.
#[derive(Clone, Copy, Debug)]
enum Dep {
    /// The step labelled so.
    Label(u32),
    /// The operation numbered so.
    Index(u32),
}

/// An action with what it waits for: each `(dep, true)` becomes a dependence.txt edge, a
/// `(dep, false)` only orders the generating run (the model must order it by itself).
#[derive(Clone, Debug)]
struct Step {
    act: Act,
    label: Option<u32>,
    after: Vec<(Dep, bool)>,
}

impl From<Act> for Step {
    fn from(act: Act) -> Self {
        Step { act, label: None, after: Vec::new() }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Looper,
    Plain,
    /// Binder thread: NATIVE-POST.
    Binder,
    /// The UI-input thread 2: UI-POST.
    Ui,
    /// One thread per delayed post: DELAY-POST.
    Delay,
}

/// Where a body runs.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    loopers: &'a [u32],
    depth: u32,
    /// The thread running it, when known (a handler's looper, a thread's own code).
    me: Option<u32>,
    handler: bool,
}

/// A thread's remaining work in the simulation.
#[derive(Clone)]
struct Sim {
    tid: u32,
    role: Role,
    /// Own actions left, in order (for a looper: what it does before its LOOP).
    own: Vec<Step>,
    looping: bool,
    attached: bool,
    queue: VecDeque<Msg>,
    /// The handler being run.
    running: Option<Msg>,
    forked: bool,
    started: bool,
    exited: bool,
    /// Whether it writes THREADEXIT when done.
    exits: bool,
    notifies: u32,
}

#[derive(Clone)]
struct Msg {
    id: u32,
    acts: Vec<Step>,
    ret_label: Option<u32>,
}

impl Sim {
    fn new(tid: u32, role: Role, own: Vec<Step>) -> Self {
        Sim {
            tid,
            role,
            own,
            looping: false,
            attached: false,
            queue: VecDeque::new(),
            running: None,
            forked: false,
            started: false,
            exited: false,
            exits: true,
            notifies: 0,
        }
    }
}

/// Environment work to attach once the program's bodies exist.
enum Pending {
    /// A binder thread: NOP after `after`, then NATIVE-POST of a handler starting with
    /// `trigger`.
    Binder { after: Vec<(Dep, bool)>, trigger: Option<Step> },
    /// A NOP and UI-POST pair of the UI thread 2.
    Ui { after: Vec<(Dep, bool)>, trigger: Option<Step> },
    /// A trigger placed in some thread's own code, ordered only by the model's matching.
    Loose(Step),
}

struct Gen {
    rng: SmallRng,
    locations: u32,
    statics: Vec<bool>,
    locks: u32,
    next_tid: u32,
    next_label: u32,
    next_key: u32,
    /// Threads that bodies may still create (forks, delayed posts, environment threads).
    threads_left: u32,
    /// Threads created while generating bodies (not forked by main).
    created: Vec<Sim>,
    /// Whether bodies may start environment chains (not inside the chains' own handlers).
    chains: bool,
    pending: Vec<Pending>,
    /// Threads a NOTIFY may aim at, and the NOTIFYs generated so far per target.
    targets: Vec<u32>,
    notified: Vec<u32>,
    has_ui: bool,
}

impl Gen {
    fn p(&mut self, p: f64) -> bool {
        self.rng.gen_bool(p)
    }

    fn label(&mut self) -> u32 {
        self.next_label += 1;
        self.next_label - 1
    }

    fn tid(&mut self) -> u32 {
        self.next_tid += 1;
        self.next_tid - 1
    }

    fn loc(&mut self) -> u32 {
        self.rng.gen_range(0..self.locations)
    }

    fn access(&mut self) -> Step {
        let a = self.loc();
        if self.p(0.5) { Act::Write(a) } else { Act::Read(a) }.into()
    }

    fn notify_to(&mut self, me: Option<u32>) -> Option<u32> {
        let ts: Vec<u32> = self.targets.iter().copied().filter(|&t| Some(t) != me).collect();
        let t = *ts.get(self.rng.gen_range(0..ts.len().max(1)))?;
        self.notified.push(t);
        Some(t)
    }

    /// A fresh environment marker.
    fn marker(&mut self, kind: u32) -> Marker {
        self.next_key += 1;
        let k = self.next_key;
        match kind {
            0 => Marker::Lifecycle { id: k, state: STATES[self.rng.gen_range(0..STATES.len())] },
            1 => Marker::Event { view: 1_090_000_000 + k },
            _ => Marker::Focus { window: 1_091_000_000 + k },
        }
    }

    /// An ENABLE (lifecycle, event or window focus) with the environment work that triggers it
    /// later: the enable, sometimes twice, then a trigger reached through a binder or the UI
    /// thread (a NOP after the enable, a post whose handler triggers), or through a post of
    /// this very body, or placed loose in a thread.
    fn enable(&mut self, out: &mut Vec<Step>, ctx: Ctx) {
        let kind = self.rng.gen_range(0..3);
        let m = self.marker(kind);
        let l1 = self.label();
        out.push(Step { act: Act::Enable(m), label: Some(l1), after: Vec::new() });
        let mut last = l1;
        let mut edges = vec![];
        // A key enabled twice before its one trigger (music's PAUSE-ACT at 67 and 73).
        if matches!(m, Marker::Lifecycle { .. }) && self.p(0.35) {
            if self.p(0.5) {
                out.push(self.access());
            }
            last = self.label();
            out.push(Step { act: Act::Enable(m), label: Some(last), after: Vec::new() });
            if self.p(0.5) {
                edges.push((Dep::Label(l1), true));
            }
        }
        let mut trigger = Step { act: Act::Trigger(m), label: None, after: Vec::new() };
        // The explicit enable -> trigger edge the recordings list, or only the model's matching.
        if self.p(0.5) {
            trigger.after.push((Dep::Label(last), true));
            trigger.after.extend(edges);
        }
        let via = self.rng.gen_range(0..10);
        if via < 2 && !ctx.loopers.is_empty() {
            // Triggered by a handler this body posts.
            let dest = ctx.loopers[0];
            let mut h = vec![trigger];
            if self.p(0.5) {
                h.push(self.access());
            }
            out.push(Act::Post(dest, h, None).into());
        } else if via < 3 {
            trigger.after.push((Dep::Label(last), false));
            self.pending.push(Pending::Loose(trigger));
        } else if (kind == 1 || self.p(0.3)) && self.has_ui {
            self.pending.push(Pending::Ui { after: vec![(Dep::Label(last), true)], trigger: Some(trigger) });
        } else if self.threads_left > 0 {
            self.threads_left -= 1;
            self.pending.push(Pending::Binder { after: vec![(Dep::Label(last), true)], trigger: Some(trigger) });
        }
    }

    /// A straight-line body: accesses, lock-protected sections (nested, re-entrant), posts
    /// (with nested posts while `depth` allows), forks, notifies and environment markers.
    fn body(&mut self, len: usize, ctx: Ctx) -> Vec<Step> {
        let mut out: Vec<Step> = Vec::new();
        for _ in 0..len {
            match self.rng.gen_range(0..16) {
                0..=2 => out.push(Act::Read(self.loc()).into()),
                3..=5 => out.push(Act::Write(self.loc()).into()),
                6 | 7 if self.locks > 0 => self.lock_section(&mut out),
                8 | 9 if !ctx.loopers.is_empty() && ctx.depth > 0 => {
                    let dest = ctx.loopers[self.rng.gen_range(0..ctx.loopers.len())];
                    let n = self.rng.gen_range(1..4);
                    let inner = Ctx { depth: ctx.depth - 1, me: Some(dest), handler: true, ..ctx };
                    let h = self.body(n, inner);
                    // The handler's RET held as the source of the UI thread's next NOP.
                    let ret = (self.chains && self.has_ui && self.p(0.15)).then(|| self.label());
                    if let Some(l) = ret {
                        self.pending.push(Pending::Ui { after: vec![(Dep::Label(l), true)], trigger: None });
                    }
                    if self.threads_left > 0 && self.p(0.15) {
                        // A delayed post: the poster forks a thread that posts.
                        self.threads_left -= 1;
                        let t = self.tid();
                        self.created.push(Sim::new(t, Role::Delay, vec![Act::Post(dest, h, ret).into()]));
                        out.push(Act::Fork(t).into());
                    } else {
                        out.push(Act::Post(dest, h, ret).into());
                    }
                }
                10 | 15 if self.threads_left > 0 && ctx.depth > 0 && self.p(if ctx.handler { 0.5 } else { 0.3 }) => {
                    self.fork(&mut out, ctx)
                }
                11 if !self.targets.is_empty() && self.p(0.5) => {
                    if let Some(t) = self.notify_to(ctx.me) {
                        out.push(Act::Notify(t).into());
                    }
                }
                // Handlers enable more often: that is where the recordings enable.
                12 | 15 if self.chains && self.p(if ctx.handler { 0.6 } else { 0.25 }) => self.enable(&mut out, ctx),
                13 if self.chains && self.threads_left > 0 && self.p(0.3) => {
                    // A service or broadcast callback whose end a binder thread's NOP follows.
                    self.next_key += 1;
                    let m = if self.p(0.5) {
                        Marker::Service { id: self.next_key }
                    } else {
                        Marker::Broadcast { action: self.next_key }
                    };
                    let l = self.label();
                    out.push(Step { act: Act::Trigger(m), label: Some(l), after: Vec::new() });
                    self.threads_left -= 1;
                    self.pending.push(Pending::Binder { after: vec![(Dep::Label(l), true)], trigger: None });
                }
                14 if self.p(0.3) => {
                    // An edge from an early operation to this one (not a NOP), in whatever task.
                    let mut s = self.access();
                    let i = self.rng.gen_range(2..10);
                    s.after.push((Dep::Index(i), true));
                    out.push(s);
                }
                _ => out.push(Act::Read(self.loc()).into()),
            }
        }
        out
    }

    fn lock_section(&mut self, out: &mut Vec<Step>) {
        let l = self.rng.gen_range(0..self.locks);
        out.push(Act::Lock(l).into());
        out.push(self.access());
        // Re-entry: the holder takes the lock again (LOCK/LOCK/UNLOCK/UNLOCK).
        let reenter = self.p(0.3);
        if reenter {
            out.push(Act::Lock(l).into());
            out.push(self.access());
        }
        // Occasionally a second lock inside the first: lock-order deadlocks.
        if self.locks > 1 && self.p(0.3) {
            let l2 = (l + 1) % self.locks;
            out.push(Act::Lock(l2).into());
            out.push(Act::Write(self.loc()).into());
            out.push(Act::Unlock(l2).into());
        }
        if reenter {
            out.push(Act::Unlock(l).into());
        }
        if self.p(0.5) {
            out.push(self.access());
        }
        out.push(Act::Unlock(l).into());
    }

    /// A FORK from this body: in a handler, an AsyncTask-like thread that posts back to the
    /// handler's looper, or a thread the handler WAITs for (it NOTIFYs); in a thread, a plain
    /// child.
    fn fork(&mut self, out: &mut Vec<Step>, ctx: Ctx) {
        self.threads_left -= 1;
        let t = self.tid();
        let n = self.rng.gen_range(1..3);
        let inner = Ctx { depth: ctx.depth - 1, me: Some(t), handler: false, ..ctx };
        let mut own = self.body(n, inner);
        out.push(Act::Fork(t).into());
        match ctx.me.filter(|_| ctx.handler) {
            Some(me) if self.p(0.4) => {
                own.insert(self.rng.gen_range(0..=own.len()), Act::Notify(me).into());
                if self.p(0.5) {
                    out.push(self.access());
                }
                // Waiting inside the handler, sometimes holding a lock (WAIT keeps it).
                if self.locks > 0 && self.p(0.4) {
                    let l = self.rng.gen_range(0..self.locks);
                    out.extend([Act::Lock(l).into(), Act::Wait.into(), Act::Unlock(l).into()]);
                } else {
                    out.push(Act::Wait.into());
                }
            }
            Some(me) => {
                let k = self.rng.gen_range(1..3);
                let inner = Ctx { depth: 0, me: Some(me), handler: true, ..ctx };
                let h = self.body(k, inner);
                own.push(Act::Post(me, h, None).into());
            }
            None => {}
        }
        let mut s = Sim::new(t, Role::Plain, own);
        s.exits = self.p(0.85);
        self.created.push(s);
    }
}

/// Every step list reachable from `steps` (nested handler bodies included).
fn visit(steps: &mut Vec<Step>, f: &mut dyn FnMut(&mut Vec<Step>)) {
    f(steps);
    for s in steps.iter_mut() {
        if let Act::Post(_, h, _) = &mut s.act {
            visit(h, f);
        }
    }
}

/// Generates a valid trace (trace.txt and dependence.txt texts) from `seed`, or None when the
/// random run deadlocked.
pub fn generate(seed: u64) -> Option<(String, String)> {
    generate_padded(seed, 0)
}

/// [`generate`]'s trace with `pad` more operations on main before it forks anyone (the
/// large-trace mode: hundreds of operations while the exhaustive search stays feasible): writes
/// to fresh locations and reads of the shared ones, and, when main attaches its queue first,
/// every tenth a post to main of a handler reading and writing a location of its own. The
/// accesses are ordered before everything else (states grow by `pad`); the handlers run after
/// LOOP, beside the other threads, so `hb0`, saturation and the witness search see many
/// handlers and chains. `pad = 0` gives exactly [`generate`]'s trace.
pub fn generate_padded(seed: u64, pad: u32) -> Option<(String, String)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let large = rng.gen_bool(0.08);
    let mut g = Gen {
        rng,
        locations: 0,
        statics: Vec::new(),
        locks: 0,
        next_tid: 3,
        next_label: 0,
        next_key: 0,
        threads_left: 0,
        created: Vec::new(),
        chains: false,
        pending: Vec::new(),
        targets: Vec::new(),
        notified: Vec::new(),
        has_ui: false,
    };
    g.locations = g.rng.gen_range(1..4);
    g.statics = (0..g.locations).map(|_| g.rng.gen_bool(0.3)).collect();
    g.locks = g.rng.gen_range(0..3);
    // Thread 1 is the main looper, 2 the UI thread when there is one; further loopers, plain
    // threads and environment threads from 3. Few threads besides the loopers, so that the
    // exhaustive search stays quick: a third of the traces have the classic shapes only (up
    // to three plain and binder threads); the others fewer plain threads and, within a budget
    // of three threads, the environment's and forked ones.
    let classic = g.rng.gen_bool(0.35);
    let n_loopers = g.rng.gen_range(1..3u32) + u32::from(large && g.rng.gen_bool(0.5));
    let n_env = g.rng.gen_range(0..2u32);
    let n_plain =
        if classic { g.rng.gen_range(1..4 - n_env) } else { 1 + u32::from(g.rng.gen_bool(0.35)) } + u32::from(large);
    let mut budget = if classic {
        0
    } else {
        (if large { 6u32 } else { 2 + u32::from(g.rng.gen_bool(0.25)) }).saturating_sub(n_plain + n_env)
    };
    g.has_ui = budget > 0 && g.rng.gen_bool(0.35);
    budget -= u32::from(g.has_ui);
    g.threads_left = budget;
    g.chains = !classic;
    let mut loopers = vec![1u32];
    for _ in 1..n_loopers {
        loopers.push(g.tid());
    }
    let plain: Vec<u32> = (0..n_plain).map(|_| g.tid()).collect();
    // A looper forked late by a plain thread: work, then ATTACH-Q; posts to it wait for that.
    let late = (!classic && g.rng.gen_bool(0.2)).then(|| g.tid());
    let all_loopers: Vec<u32> = loopers.iter().copied().chain(late).collect();
    g.targets = plain.clone();
    if g.rng.gen_bool(0.3) {
        // Loopers may be notified too: they then WAIT inside a handler.
        g.targets.extend(all_loopers.iter().copied());
    }
    let len_max = if large { 5 } else { 4 };

    let mut sims: Vec<Sim> = Vec::new();
    // Main: ATTACH-Q (first, or after its forks as in the recordings), forks, LOOP.
    sims.push(Sim::new(1, Role::Looper, Vec::new()));
    for &t in &loopers[1..] {
        // A looper other than main sometimes reads and writes before its LOOP.
        let mut own = vec![Act::AttachQ.into()];
        if g.rng.gen_bool(0.4) {
            let n = g.rng.gen_range(1..3);
            let ctx = Ctx { loopers: &[], depth: 0, me: Some(t), handler: false };
            own.extend(g.body(n, ctx));
        }
        sims.push(Sim::new(t, Role::Looper, own));
    }
    if let Some(t) = late {
        let ctx = Ctx { loopers: &[], depth: 0, me: Some(t), handler: false };
        let n = g.rng.gen_range(1..3);
        let mut own = g.body(n, ctx);
        own.push(Act::AttachQ.into());
        if g.rng.gen_bool(0.5) {
            own.push(g.access());
        }
        sims.push(Sim::new(t, Role::Looper, own));
    }
    for &t in &plain {
        // Shorter when other threads share the budget.
        let len = g.rng.gen_range(1..len_max);
        let ctx = Ctx { loopers: &all_loopers, depth: 2, me: Some(t), handler: false };
        let own = g.body(len, ctx);
        let mut s = Sim::new(t, Role::Plain, own);
        s.exits = g.rng.gen_bool(0.9);
        sims.push(s);
    }
    // Sometimes two plain threads take two locks in opposite orders: the recorded run is one
    // that did not deadlock, other interleavings do (stuck outcomes to reach).
    if plain.len() >= 2 && g.rng.gen_bool(0.6) {
        // Locks 0 and 1 (the holder table below is sized from `g.locks`).
        g.locks = g.locks.max(2);
        for (k, (a, b)) in [(0, 1), (1, 0)].into_iter().enumerate() {
            let block = [Act::Lock(a), Act::Lock(b), Act::Unlock(b), Act::Unlock(a)].map(Step::from);
            if let Some(s) = sims.iter_mut().find(|s| s.tid == plain[k]) {
                let at = g.rng.gen_range(0..=s.own.len());
                s.own.splice(at..at, block);
            }
        }
    }
    // Or a plain thread and a handler on main do (the looper blocked mid-handler): the thread
    // posts the handler, then takes the locks.
    else if !classic && g.rng.gen_bool(HANDLER_LOCK_ORDER) {
        g.locks = g.locks.max(2);
        let h = [Act::Lock(1), Act::Lock(0), Act::Unlock(0), Act::Unlock(1)].map(Step::from).to_vec();
        let block = [Act::Post(1, h, None), Act::Lock(0), Act::Lock(1), Act::Unlock(1), Act::Unlock(0)].map(Step::from);
        if let Some(s) = sims.iter_mut().find(|s| s.tid == plain[0]) {
            let at = g.rng.gen_range(0..=s.own.len());
            s.own.splice(at..at, block);
        }
    }
    let mut own_rng = SmallRng::seed_from_u64(seed ^ 0x5741_4954_4c4f_434b);
    if !plain.is_empty() && own_rng.gen_bool(WAIT_UNDER_LOCK) {
        g.locks = g.locks.max(1);
        let l = own_rng.gen_range(0..g.locks);
        let loc = own_rng.gen_range(0..g.locations);
        let notifier = plain[plain.len() - 1];
        let held = [Act::Lock(l), Act::Wait, Act::Unlock(l)];
        let mut block: Vec<Step> = Vec::new();
        let waiter = if plain.len() >= 2 && own_rng.gen_bool(0.5) {
            let at = own_rng.gen_range(0..=sims.iter().find(|s| s.tid == plain[0]).map_or(0, |s| s.own.len()));
            if let Some(s) = sims.iter_mut().find(|s| s.tid == plain[0]) {
                s.own.splice(at..at, held.map(Step::from));
            }
            plain[0]
        } else {
            block.push(Act::Post(1, held.map(Step::from).to_vec(), None).into());
            1
        };
        block.extend([Act::Lock(l), Act::Write(loc), Act::Unlock(l), Act::Notify(waiter)].map(Step::from));
        if let Some(s) = sims.iter_mut().find(|s| s.tid == notifier) {
            let at = own_rng.gen_range(0..=s.own.len());
            s.own.splice(at..at, block);
        }
    }
    // Binder threads: a NOP held back by a dependence.txt edge (from an early operation, or from
    // the previous binder's post), then a native post, to main mostly.
    let mut prev_post: Option<u32> = None;
    for _ in 0..n_env {
        let t = g.tid();
        let dep = match prev_post {
            Some(l) if g.rng.gen_bool(0.5) => Dep::Label(l),
            _ => Dep::Index(g.rng.gen_range(2..12u32)),
        };
        let dest = if g.rng.gen_bool(0.7) { 1 } else { all_loopers[g.rng.gen_range(0..all_loopers.len())] };
        let len = g.rng.gen_range(1..3);
        let ctx = Ctx { loopers: &all_loopers, depth: 1, me: Some(dest), handler: true };
        let h = g.body(len, ctx);
        let l = g.label();
        prev_post = Some(l);
        let own = vec![
            Step { act: Act::Nop, label: None, after: vec![(dep, true)] },
            Step { act: Act::Post(dest, h, None), label: Some(l), after: Vec::new() },
        ];
        sims.push(Sim::new(t, Role::Binder, own));
    }
    // Main's own code: sometimes an ENABLE-LIFECYCLE before its LOOP (music's BIND-APP).
    let mut main_own: Vec<Step> = Vec::new();
    if g.chains && g.rng.gen_bool(0.2) {
        let ctx = Ctx { loopers: &[1], depth: 1, me: Some(1), handler: false };
        g.enable(&mut main_own, ctx);
    }
    // The environment chains' handlers start no chains of their own.
    g.chains = false;
    let mut ui_own: Vec<Step> = Vec::new();
    let mut loose: Vec<Step> = Vec::new();
    for p in std::mem::take(&mut g.pending) {
        let handler = |g: &mut Gen, trigger: Option<Step>, dest: u32| -> Vec<Step> {
            let n = g.rng.gen_range(0..2);
            let ctx = Ctx { loopers: &all_loopers, depth: 0, me: Some(dest), handler: true };
            let mut h: Vec<Step> = trigger.into_iter().collect();
            h.extend(g.body(n, ctx));
            if h.is_empty() {
                h.push(g.access());
            }
            h
        };
        match p {
            Pending::Binder { after, trigger } => {
                let t = g.tid();
                let dest = if trigger.is_some() || g.rng.gen_bool(0.6) {
                    1
                } else {
                    all_loopers[g.rng.gen_range(0..all_loopers.len())]
                };
                let h = handler(&mut g, trigger, dest);
                let own = vec![Step { act: Act::Nop, label: None, after }, Act::Post(dest, h, None).into()];
                sims.push(Sim::new(t, Role::Binder, own));
            }
            Pending::Ui { after, trigger } => {
                let h = handler(&mut g, trigger, 1);
                ui_own.push(Step { act: Act::Nop, label: None, after });
                ui_own.push(Act::Post(1, h, None).into());
            }
            Pending::Loose(s) => loose.push(s),
        }
    }
    sims.append(&mut g.created);
    // A trigger ordered only by the model's enable -> trigger matching, in a thread's own code.
    for s in loose {
        let hosts: Vec<usize> = (0..sims.len()).filter(|&i| sims[i].role == Role::Plain).collect();
        if hosts.is_empty() {
            main_own.push(s);
        } else {
            let i = hosts[g.rng.gen_range(0..hosts.len())];
            let at = g.rng.gen_range(0..=sims[i].own.len());
            sims[i].own.insert(at, s);
        }
    }
    if g.has_ui {
        let mut s = Sim::new(2, Role::Ui, ui_own);
        s.exits = g.rng.gen_bool(0.8);
        sims.push(s);
    }
    // The late looper is forked by a plain thread, before any post of that thread to it.
    if let Some(t) = late {
        let i = sims.iter().position(|s| s.tid == plain[0])?;
        let first_post =
            sims[i].own.iter().position(|s| matches!(s.act, Act::Post(d, ..) if d == t)).unwrap_or(sims[i].own.len());
        let at = g.rng.gen_range(0..=first_post);
        sims[i].own.insert(at, Act::Fork(t).into());
    }
    // A NOTIFY from main to a plain thread before main forks it (the WAIT it releases comes
    // later): a notify that runs before its target exists.
    if !plain.is_empty() && g.rng.gen_bool(0.25) {
        let t = plain[g.rng.gen_range(0..plain.len())];
        main_own.insert(0, Act::Notify(t).into());
        g.notified.push(t);
    }
    // Waits: every notified thread waits about as often as it is notified (twice for two
    // notifies; sometimes once less, so a notify stays pending), at a random point of its own
    // code, or for a looper inside one of its handlers; sometimes while holding a lock.
    let mut targets = g.notified.clone();
    targets.sort_unstable();
    targets.dedup();
    for t in targets {
        let n = g.notified.iter().filter(|&&x| x == t).count();
        let waits = if g.rng.gen_bool(0.7) { n } else { n - 1 };
        for _ in 0..waits {
            let with_lock = g.locks > 0 && g.rng.gen_bool(0.25);
            let l = if g.locks > 0 { g.rng.gen_range(0..g.locks) } else { 0 };
            let block: Vec<Step> = if with_lock {
                vec![Act::Lock(l).into(), Act::Wait.into(), Act::Unlock(l).into()]
            } else {
                vec![Act::Wait.into()]
            };
            // Handler bodies posted to t, anywhere.
            let mut count = 0;
            for s in sims.iter_mut() {
                visit(&mut s.own, &mut |steps| {
                    count += steps.iter().filter(|st| matches!(st.act, Act::Post(d, ..) if d == t)).count()
                });
            }
            let Some(i) = sims.iter().position(|s| s.tid == t) else { continue };
            if all_loopers.contains(&t) && count > 0 && (t == 1 || g.rng.gen_bool(0.7)) {
                let mut k = g.rng.gen_range(0..count);
                let r = g.rng.gen_range(0..100usize);
                for s in sims.iter_mut() {
                    visit(&mut s.own, &mut |steps| {
                        for st in steps.iter_mut() {
                            if let Act::Post(d, h, _) = &mut st.act {
                                if *d == t {
                                    if k == 0 {
                                        let at = r % (h.len() + 1);
                                        h.splice(at..at, block.iter().cloned());
                                    }
                                    k = k.wrapping_sub(1);
                                }
                            }
                        }
                    });
                }
            } else if t == 1 {
                main_own.splice(main_own.len()..main_own.len(), block);
            } else {
                // A looper's own code: after its ATTACH-Q is as good as anywhere.
                let from = usize::from(
                    sims[i].role == Role::Looper && sims[i].own.first().is_some_and(|s| matches!(s.act, Act::AttachQ)),
                );
                let at = g.rng.gen_range(from..=sims[i].own.len());
                sims[i].own.splice(at..at, block);
            }
        }
    }
    // Main: THREADINIT, ATTACH-Q (first, or after the forks), its own code, forks of every thread
    // nobody else forks, LOOP.
    let forked_late: Vec<u32> = {
        let mut v = Vec::new();
        for s in sims.iter_mut() {
            visit(&mut s.own, &mut |steps| {
                v.extend(steps.iter().filter_map(|st| if let Act::Fork(c) = st.act { Some(c) } else { None }))
            });
        }
        v
    };
    let mut prelude: Vec<Step> = Vec::new();
    let attach_first = g.rng.gen_bool(0.7);
    if attach_first {
        prelude.push(Act::AttachQ.into());
    }
    // The early notify stays before the forks.
    let early = main_own.first().is_some_and(|s| matches!(s.act, Act::Notify(_)));
    if early {
        prelude.push(main_own.remove(0));
    }
    for s in &sims[1..] {
        if !forked_late.contains(&s.tid) {
            prelude.push(Act::Fork(s.tid).into());
        }
    }
    if pad > 0 {
        let shared = g.locations;
        let mut fresh = || {
            g.locations += 1;
            g.statics.push(false);
            g.locations - 1
        };
        let mut padding: Vec<Step> = Vec::new();
        for i in 0..pad {
            let act = match i % 10 {
                9 if attach_first => {
                    let l = fresh();
                    Act::Post(1, vec![Act::Read(l).into(), Act::Write(l).into()], None)
                }
                k if k % 2 == 0 => Act::Write(fresh()),
                k => Act::Read(k % shared),
            };
            padding.push(act.into());
        }
        let at = usize::from(attach_first);
        prelude.splice(at..at, padding);
    }
    if !attach_first {
        prelude.push(Act::AttachQ.into());
    }
    prelude.extend(main_own);
    sims[0].own = prelude;
    sims[0].forked = true;
    // A random run can deadlock (locks taken in opposite orders, a WAIT holding a lock its
    // NOTIFY needs): the program is kept and run again under other random choices.
    for _ in 0..3 {
        if let Some(r) = run(&mut g, sims.clone()) {
            return Some(r);
        }
    }
    None
}

/// Runs the program under a random scheduler and writes the run.
fn run(g: &mut Gen, mut sims: Vec<Sim>) -> Option<(String, String)> {
    let mut text = String::from("1 START\n");
    let mut dependence = String::new();
    let mut idx = 2u32;
    let mut next_msg = 1u32;
    let mut holder: Vec<Option<(u32, u32)>> = vec![None; g.locks as usize];
    let mut labels: Vec<Option<u32>> = vec![None; g.next_label as usize];
    let find = |sims: &[Sim], t: u32| sims.iter().position(|s| s.tid == t);
    loop {
        let mut runnable: Vec<usize> = Vec::new();
        for (i, s) in sims.iter().enumerate() {
            if s.exited {
                continue;
            }
            if !s.started {
                if s.forked {
                    runnable.push(i);
                }
                continue;
            }
            let next = if s.looping {
                match &s.running {
                    Some(m) => m.acts.first(),
                    None => {
                        if !s.queue.is_empty() {
                            runnable.push(i);
                        }
                        continue;
                    }
                }
            } else {
                s.own.first()
            };
            let ok = next.is_none_or(|st| {
                st.after.iter().all(|(d, _)| match *d {
                    Dep::Label(l) => labels[l as usize].is_some(),
                    Dep::Index(n) => idx > n,
                }) && match &st.act {
                    Act::Lock(l) => holder[*l as usize].is_none_or(|(h, _)| h == s.tid),
                    Act::Wait => s.notifies > 0,
                    Act::Post(d, ..) => find(&sims, *d).is_some_and(|j| sims[j].attached),
                    _ => true,
                }
            });
            if ok {
                runnable.push(i);
            }
        }
        if runnable.is_empty() {
            break;
        }
        let i = runnable[g.rng.gen_range(0..runnable.len())];
        let tid = sims[i].tid;
        if !sims[i].started {
            sims[i].started = true;
            emit(&mut text, &mut idx, format!("THREADINIT tid:{tid}"));
            continue;
        }
        if sims[i].role == Role::Looper && !sims[i].looping && sims[i].own.is_empty() {
            sims[i].looping = true;
            let q = if g.rng.gen_bool(0.5) { format!(" queue:{tid}") } else { String::new() };
            emit(&mut text, &mut idx, format!("LOOP tid:{tid}{q}"));
            continue;
        }
        if sims[i].looping && sims[i].running.is_none() {
            let m = sims[i].queue.pop_front()?;
            emit(&mut text, &mut idx, format!("CALL tid:{tid} msg:{}", m.id));
            sims[i].running = Some(m);
            continue;
        }
        let step = if sims[i].looping {
            let m = sims[i].running.as_mut()?;
            if m.acts.is_empty() {
                let (id, ret) = (m.id, m.ret_label);
                if let Some(l) = ret {
                    labels[l as usize] = Some(idx);
                }
                emit(&mut text, &mut idx, format!("RET tid:{tid} msg:{id}"));
                sims[i].running = None;
                continue;
            }
            m.acts.remove(0)
        } else {
            if sims[i].own.is_empty() {
                if sims[i].exits {
                    emit(&mut text, &mut idx, format!("THREADEXIT tid:{tid}"));
                }
                sims[i].exited = true;
                continue;
            }
            sims[i].own.remove(0)
        };
        for (d, edge) in &step.after {
            let src = match *d {
                Dep::Label(l) => labels[l as usize]?,
                Dep::Index(n) => n,
            };
            if *edge {
                let _ = writeln!(dependence, "src:{src} dest:{idx}");
            }
        }
        if let Some(l) = step.label {
            labels[l as usize] = Some(idx);
        }
        let line = match step.act {
            Act::Read(a) | Act::Write(a) => {
                let rw = if matches!(step.act, Act::Read(_)) { "READ" } else { "WRITE" };
                if g.statics[a as usize] {
                    format!("{rw}-STATIC tid:{tid} class:Lgen/Static; field:{a}")
                } else {
                    format!("{rw} tid:{tid} obj:0x{a:x} class:C; field:{a}")
                }
            }
            Act::Lock(l) => {
                let depth = holder[l as usize].map_or(0, |(_, d)| d);
                holder[l as usize] = Some((tid, depth + 1));
                format!("LOCK tid:{tid} lock-obj:0x{:x}", 100 + l)
            }
            Act::Unlock(l) => {
                holder[l as usize] = match holder[l as usize] {
                    Some((h, d)) if d > 1 => Some((h, d - 1)),
                    _ => None,
                };
                format!("UNLOCK tid:{tid} lock-obj:0x{:x}", 100 + l)
            }
            Act::Post(d, h, ret_label) => {
                let m = next_msg;
                next_msg += 1;
                let kind = match sims[i].role {
                    _ if sims[i].looping => "POST",
                    Role::Binder => "NATIVE-POST",
                    Role::Ui => "UI-POST",
                    Role::Delay => "DELAY-POST",
                    Role::Looper | Role::Plain => "POST",
                };
                let j = find(&sims, d)?;
                sims[j].queue.push_back(Msg { id: m, acts: h, ret_label });
                format!("{kind} src:{tid} msg:{m} dest:{d}")
            }
            Act::Notify(t) => {
                if let Some(j) = find(&sims, t) {
                    sims[j].notifies += 1;
                }
                format!("NOTIFY tid:{tid} notifiedTid:{t}")
            }
            Act::Wait => {
                sims[i].notifies -= 1;
                format!("WAIT tid:{tid}")
            }
            Act::Nop => format!("NOP tid:{tid}"),
            Act::Fork(c) => {
                let j = find(&sims, c)?;
                sims[j].forked = true;
                format!("FORK par-tid:{tid} child-tid:{c}")
            }
            Act::AttachQ => {
                sims[i].attached = true;
                let q = if tid == 1 { 1_090_970_528 } else { tid };
                format!("ATTACH-Q tid:{tid} queue:{q}")
            }
            Act::Enable(m) | Act::Trigger(m) => {
                let what = if matches!(step.act, Act::Enable(_)) { "ENABLE" } else { "TRIGGER" };
                match m {
                    Marker::Lifecycle { id, state } => {
                        format!("{what}-LIFECYCLE tid:{tid} component:dummy id:{id} state:{state}")
                    }
                    Marker::Event { view } => format!("{what}-EVENT tid:{tid} view:{view} event:0"),
                    Marker::Focus { window } => format!("{what}-WINDOW-FOCUS tid:{tid} windowHash:{window}"),
                    Marker::Service { id } => format!(
                        "{what}-SERVICE tid:{tid} component:com.example.Svc id:{id} state:REQUEST_START_SERVICE"
                    ),
                    Marker::Broadcast { action } => format!(
                        "{what}-BROADCAST tid:{tid} action:gen.action.A{action} component:1091379336 intent:0 onRecLater:-1 state:ABC_REGISTER_RECEIVER"
                    ),
                }
            }
        };
        emit(&mut text, &mut idx, line);
    }
    // Every thread must have finished its work: otherwise the random run deadlocked.
    let unfinished = sims.iter().any(|s| {
        !s.started
            || (s.role != Role::Looper && !s.exited)
            || !s.own.is_empty()
            || s.running.is_some()
            || !s.queue.is_empty()
    });
    if unfinished {
        return None;
    }
    Some((text, dependence))
}

/// Appends operation number `idx` to the trace text.
fn emit(text: &mut String, idx: &mut u32, line: String) {
    let _ = writeln!(text, "{idx} {line}");
    *idx += 1;
}
