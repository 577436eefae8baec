//! The DPOR core on EM traces (Flanagan and Godefroid, POPL 2005, "Dynamic partial-order
//! reduction for model checking software", §3-4), shared by `dpor`, `em-dpor`, `dpor-sleep`
//! and `em-dpor-sleep`: a stateless depth-first search that keeps only the current path, with a
//! *backtrack* and a *done* set of threads per state, the *enabled* threads, happens-before
//! clocks ([`EmHb`]) extended with the conflict edges, and indexes of the path's accesses,
//! locks and posts ([`super::index::PathIndex`]). It owns nothing of one strategy or option:
//! which transitions race, and the state a strategy needs (thread order is `dpor`'s rule's,
//! sleep sets their component's, the subtrees handed out the parallel one's), plug in at named
//! hook points, with static dispatch (the engine is generic over them; no call per transition
//! is dynamic). End states already reported are [`super::terminals::Terminals`].
//!
//! The walk (docs/em-dpor.md §3): the first execution is the recorded order; at every state,
//! before choosing, the race rule analyses the next transition of every thread (enabled or
//! blocked) against the path, each race adding a thread to the backtrack set of an earlier
//! state; the thread taken is a pending backtrack choice, else the smallest enabled thread.
//! When nothing is enabled the execution ends and the search resumes at the deepest state with
//! a pending backtrack choice. No state is stored beyond the path. Soundness is the race
//! rule's (each rule's file argues it): the core explores every choice a rule adds, and only
//! what the rule's analysis or the recorded order asks for.
//!
//! Hook points:
//! - [`RaceRule`], the race rule (`R`): `predecessor` (what bounds a next transition's view,
//!   for its [`Target`]), `step_edges` (happens-before edges of a step), `analyse` (at a state,
//!   before choosing; once per state when `ONCE_PER_STATE`), `pushed`/`popped` (the path grew
//!   or shrank, for a rule's per-state data), `execution_ended` (after a terminal state, before
//!   backtracking). Rules: [`super::race::DporRace`] (Flanagan-Godefroid, `dpor` and
//!   `dpor-sleep`), [`crate::explore::em_dpor::EmRace`] (EM-DPOR, `em-dpor` and `em-dpor-sleep`).
//! - [`Sleep`], the sleep-set component (`S`): `pushed`/`popped`, `entered` (after each step
//!   the search takes, not on replays), `asleep` (read where the core chooses and backtracks
//!   and where a rule falls back to every enabled thread), `blocked` (a state left with nothing
//!   taken). [`NoSleep`] for `dpor` and `em-dpor`; [`crate::explore::dpor_sleep::SleepSets`]
//!   for `dpor-sleep` and `em-dpor-sleep`.
//! - [`Parallel`], the parallel component (`P`): `root` (the search owns the subtree below
//!   it), `above_one`/`above_all` (what the search adds to backtrack sets above its root),
//!   `reach` (before a choice is taken: was its subtree explored elsewhere), `stepped` (after a
//!   step, outside the recorded execution). [`Solo`], the sequential search, for every strategy;
//!   [`super::handoff::Donor`] for parallel `dpor`. The engine carries no parallel state.
//! - The progress estimate, [`super::estimate::Estimate`]: `stepped` after a step, `stopped`
//!   when the search stops; it reads the path's choice sets (`progress_path`) and nothing else.

use smallvec::SmallVec;

use super::estimate::{Choices, Estimate};
use super::handoff::{Event, Events};
use super::index::PathIndex;
use super::terminals::Terminals;
use crate::explore::sets::ChoiceSet;
use crate::explore::stats::Stats;
use crate::explore::Search;
use crate::model::em::{EmModel, EmState, NEVER};
use crate::model::em_hb::EmHb;
use crate::model::{Choice, Model};
use crate::trace::em::OpKind;

/// One state of the current path, and what was decided there. The state itself is not kept:
/// only the engine's current one, with a journal to step back (a state is trace-sized).
pub(crate) struct Frame {
    /// The engine state's journal length when this state was current.
    mark: usize,
    /// Per thread: the operation it would execute next (NEVER when none), enabled or not.
    pub next: Vec<u32>,
    pub enabled: ChoiceSet,
    pub sets: Sets,
    /// The race analysis already ran here, and the rule says it depends on the path alone
    /// ([`RaceRule::ONCE_PER_STATE`]): running it again when the search comes back to this
    /// state would change nothing.
    analysed: bool,
}

/// What the search decided at a state: what follows from the state itself is in [`Frame`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Sets {
    pub backtrack: ChoiceSet,
    pub done: ChoiceSet,
}

impl Frame {
    pub(crate) fn new(state: &EmState, model: &EmModel) -> Self {
        let mut f = Frame {
            mark: state.journal_len(),
            next: Vec::new(),
            enabled: ChoiceSet::default(),
            sets: Sets::default(),
            analysed: false,
        };
        f.observe(model, state);
        f
    }

    /// The operation thread `t` would execute next in this state.
    pub fn next_op(&self, t: Choice) -> Option<u32> {
        self.next.get(t as usize).copied().filter(|&op| op != NEVER)
    }

    /// Fills `next` and `enabled` from the state.
    fn observe(&mut self, model: &EmModel, state: &EmState) {
        self.next.clear();
        self.enabled = ChoiceSet::default();
        for t in 0..model.threads.len() as u32 {
            let op = model.next_op(state, t);
            self.next.push(op.unwrap_or(NEVER));
            if op.is_some_and(|op| model.op_enabled(state, op)) {
                self.enabled.insert(t);
            }
        }
    }

    /// Refreshes `next` and `enabled` for thread `t` alone.
    fn observe_thread(&mut self, model: &EmModel, state: &EmState, t: Choice) {
        let op = model.next_op(state, t);
        self.next[t as usize] = op.unwrap_or(NEVER);
        if op.is_some_and(|op| model.op_enabled(state, op)) {
            self.enabled.insert(t);
        } else {
            self.enabled.remove(t);
        }
    }
}

/// What the next transition of a thread is compared with: its task's happens-before
/// predecessors on the path (positions whose clocks it would include).
#[derive(Clone, Debug, Default)]
pub(crate) struct Target {
    /// The thread running it.
    pub thread: Choice,
    /// The operation (trace position).
    pub op: u32,
    /// Path position of the transition itself when it already ran (recursive calls on posts).
    pub at: Option<usize>,
    /// Path positions that happen before it (their clocks bound what it has seen).
    pub preds: SmallVec<[usize; 2]>,
}

/// The race rule's hook points: which transitions race, and where their reversals are
/// scheduled. [`super::race::DporRace`] is Flanagan and Godefroid's (`dpor`, `dpor-sleep`),
/// [`crate::explore::em_dpor::EmRace`] EM-DPOR's (`em-dpor`, `em-dpor-sleep`). A rule keeps its own
/// state (per execution, and per state of the path in step with [`RaceRule::pushed`] and
/// [`RaceRule::popped`]); the engine is generic over it, so no call is dynamic.
pub(crate) trait RaceRule: Sized {
    /// Whether the analysis at a state depends on the path alone (then it runs once per state;
    /// otherwise at every visit, e.g. when it reads done sets, which grow).
    const ONCE_PER_STATE: bool;
    /// The path position whose clock bounds what thread `p`'s next transition `op` has seen
    /// (the transitions that happen before it happen before that one).
    fn predecessor<S: Sleep, P: Parallel>(engine: &Engine<'_, Self, S, P>, p: Choice, op: u32) -> Option<usize>;
    /// Called as `c` takes `op` (before its clock is made): happens-before edges of the step
    /// beyond the conflict edges, as path positions.
    fn step_edges<S: Sleep, P: Parallel>(
        engine: &mut Engine<'_, Self, S, P>,
        c: Choice,
        op: u32,
        extra: &mut SmallVec<[usize; 8]>,
    );
    /// Race analysis at the current state (blocked threads included): adds the reversals of
    /// the races of every thread's next transition to backtrack sets.
    fn analyse<S: Sleep, P: Parallel>(engine: &mut Engine<'_, Self, S, P>);
    /// A state was put on the path (the initial one, or a step taken or replayed).
    fn pushed(&mut self) {}
    /// The last state of the path was popped.
    fn popped(&mut self) {}
    /// An execution ended (its terminal state counted), before the search backtracks.
    fn execution_ended<S: Sleep, P: Parallel>(_engine: &mut Engine<'_, Self, S, P>) {}
}

/// The sleep-set hook points of the engine (Godefroid's sleep sets): which threads sleep at a
/// state of the path, kept by the component in step with the path. [`NoSleep`] (`dpor`,
/// `em-dpor`) has none asleep anywhere; [`crate::explore::dpor_sleep::SleepSets`] is the
/// component of `dpor-sleep` and `em-dpor-sleep`. Static dispatch: the engine is generic over it.
pub(crate) trait Sleep: Sized {
    /// The threads asleep at path state `at`: never taken there.
    fn asleep(&self, at: usize) -> &ChoiceSet;
    /// A state was put on the path (the initial one, or a step taken or replayed); it sleeps on
    /// nothing until [`Sleep::entered`] says otherwise.
    fn pushed(&mut self) {}
    /// The last state of the path was popped.
    fn popped(&mut self) {}
    /// The search took `c` at the state before the current one (not a replay): the current
    /// state's sleep set follows from its parent's.
    fn entered<R: RaceRule, P: Parallel>(_engine: &mut Engine<'_, R, Self, P>, _c: Choice) {}
    /// The search leaves a state where nothing was taken and nothing is left to take: every
    /// enabled thread was asleep.
    fn blocked(&mut self, _stats: &mut Stats) {}
}

/// No sleep sets: every state's sleep set is empty.
#[derive(Default)]
pub(crate) struct NoSleep(ChoiceSet);

impl Sleep for NoSleep {
    #[inline]
    fn asleep(&self, _at: usize) -> &ChoiceSet {
        &self.0
    }
}

/// The parallel hook points of the engine: a search that owns only a subtree of the whole one
/// (states below [`Parallel::root`] belong to the search that handed it out), and hands its own
/// pending choices to other workers. [`Solo`] is the sequential search (every hook a no-op, the
/// root the initial state); [`super::handoff::Donor`] is parallel `dpor`'s component. Static
/// dispatch: the engine is generic over it.
pub(crate) trait Parallel: Sized {
    /// Path states below this depth belong to another search: this one never backtracks above
    /// it, and what it would add to their backtrack sets goes to [`Parallel::above_one`] and
    /// [`Parallel::above_all`].
    fn root(&self) -> usize;
    /// `add_one(at, candidates)` for a state `at` below the root.
    fn above_one(&mut self, _at: usize, _candidates: &ChoiceSet) {}
    /// `add_all_enabled(at)` for a state `at` below the root.
    fn above_all(&mut self, _at: usize) {}
    /// The search is about to take `t` at path state `at`: `Some(events)` when its subtree was
    /// explored elsewhere (the engine marks it done and applies the events instead).
    fn reach(&mut self, _at: usize, _t: Choice) -> Option<Events> {
        None
    }
    /// After a step the search took (not during the recorded first execution): the path's
    /// states, for the pending choices to hand out.
    fn stepped(&mut self, _frames: &[Frame], _path: &[Choice]) {}
}

/// The sequential search: the whole tree is its own.
#[derive(Default)]
pub(crate) struct Solo;

impl Parallel for Solo {
    #[inline]
    fn root(&self) -> usize {
        0
    }
}

/// The DPOR core `dpor`, `em-dpor`, `dpor-sleep` and `em-dpor-sleep` share, with race rule `R`,
/// sleep-set component `S` and parallel component `P`.
pub(crate) struct Engine<'m, R: RaceRule, S: Sleep = NoSleep, P: Parallel = Solo> {
    pub model: &'m EmModel,
    pub hb: EmHb<'m>,
    pub frames: Vec<Frame>,
    /// The state of the last frame; earlier ones are reached by undoing its journal.
    pub state: EmState,
    /// The path's accesses, LOCKs and posts, by object (for conflict edges and race rules).
    index: PathIndex,
    /// Until the first backtrack the path follows the recorded order.
    pub recorded: bool,
    pub path: Vec<Choice>,
    /// Frames popped from the path, kept for their allocations.
    pool: Vec<Frame>,
    /// Per operation: the operations whose static edges (`waits_for`) it satisfies, i.e. whose
    /// thread may become enabled when it runs.
    enabled_by: Vec<SmallVec<[u32; 2]>>,
    /// End states already reported, so that a repeated one is only counted.
    terminals: Terminals,
    /// The race rule and its state (hook points: [`RaceRule`]).
    pub rule: R,
    /// The sleep-set component (hook points: [`Sleep`]).
    pub sleep: S,
    /// The parallel component (hook points: [`Parallel`]).
    pub par: P,
    /// The progress estimate (hook points: [`Estimate::stepped`], [`Estimate::stopped`]).
    estimate: Estimate,
}

impl<'m, R: RaceRule, S: Sleep> Engine<'m, R, S> {
    /// The sequential engine.
    pub fn new(model: &'m EmModel, rule: R, sleep: S) -> Self {
        Engine::with_parallel(model, rule, sleep, Solo)
    }
}

impl<'m, R: RaceRule, S: Sleep, P: Parallel> Engine<'m, R, S, P> {
    pub fn with_parallel(model: &'m EmModel, rule: R, sleep: S, par: P) -> Self {
        let mut hb = EmHb::new(model);
        // As in EM-Explorer, a LOCK is ordered only after other threads' UNLOCKs.
        hb.same_thread_unlock_edges = false;
        let mut enabled_by = vec![SmallVec::new(); model.trace.ops.len()];
        for (op, waits) in model.waits_for.iter().enumerate() {
            for &w in waits {
                if w != NEVER {
                    enabled_by[w as usize].push(op as u32);
                }
            }
        }
        Engine {
            model,
            hb,
            frames: Vec::new(),
            state: {
                let mut s = model.initial();
                s.keep_journal();
                s
            },
            index: PathIndex::new(model),
            recorded: true,
            path: Vec::new(),
            pool: Vec::new(),
            enabled_by,
            terminals: Terminals::default(),
            rule,
            sleep,
            par,
            estimate: Estimate,
        }
    }

    /// Counts the run ending at the current state; its outcome is built only for an end
    /// state not seen before (same key, same outcome: `add_outcome` would change nothing).
    fn terminal(&mut self, search: &mut Search<'_, EmModel>) {
        if self.terminals.seen(self.model, &self.state) {
            search.end_execution();
            return;
        }
        search.terminal(&self.state, &self.path);
    }

    pub fn threads(&self) -> u32 {
        self.model.threads.len() as u32
    }

    pub(crate) fn op_kind(&self, op: u32) -> OpKind {
        self.model.trace.ops[op as usize].kind
    }

    /// The lock a LOCK takes (None for other operations).
    #[inline]
    fn lock_taken(&self, op: u32) -> Option<u32> {
        match self.op_kind(op) {
            OpKind::Lock { .. } => Some(self.model.lock_of(op)),
            _ => None,
        }
    }

    /// Dense destination thread of a post (None for other operations).
    pub fn post_dest(&self, op: u32) -> Option<u32> {
        match self.op_kind(op) {
            OpKind::Post { dest, .. } => self.model.thread_of_raw(dest),
            _ => None,
        }
    }

    /// The access `op` makes under DPOR's dependence, as (location, writes): see
    /// [`PathIndex::access`].
    #[inline]
    pub fn access(&self, op: u32) -> Option<(u32, bool)> {
        self.index.access(self.model, op)
    }

    /// Path positions of the accesses to location `loc` (see [`Engine::access`]), with whether
    /// each wrote.
    pub fn accesses_of(&self, loc: u32) -> &[(u32, bool)] {
        self.index.accesses_of(loc)
    }

    /// Path positions of the posts to thread `d`'s queue.
    pub fn posts_to(&self, d: u32) -> &[u32] {
        self.index.posts_to(d)
    }

    /// Path positions of the LOCKs of the lock `op` takes.
    pub fn locks_of(&self, op: u32) -> &[u32] {
        self.index.locks_of(self.model.lock_of(op))
    }

    /// Whether `op` runs inside a handler (its task is a message).
    pub fn in_handler(&self, op: u32) -> bool {
        self.model.op_task[op as usize] >= self.threads()
    }

    /// The message whose handler `op` belongs to.
    pub fn handler_of(&self, op: u32) -> Option<u32> {
        let task = self.model.op_task[op as usize];
        task.checked_sub(self.threads())
    }

    /// Path position of the post of the handler `op` runs in.
    pub fn post_position(&self, op: u32) -> Option<usize> {
        let m = self.handler_of(op)?;
        let h = self.model.handlers[m as usize].as_ref()?;
        if h.post == NEVER {
            return None;
        }
        self.hb.position(h.post)
    }

    /// Whether path position `i` happens before `target`.
    pub fn hb_target(&self, i: usize, target: &Target) -> bool {
        target.preds.iter().any(|&p| p >= i && self.hb.happens_before(i, p))
    }

    /// The target of thread `p`'s next operation `op`: what it would have seen so far.
    pub fn next_target(&self, p: Choice, op: u32) -> Target {
        let mut preds = SmallVec::new();
        preds.extend(R::predecessor(self, p, op));
        Target { thread: p, op, at: None, preds }
    }

    /// The target of the executed transition at path position `j`.
    pub fn executed_target(&self, j: usize) -> Target {
        let op = self.hb.op(j);
        let mut preds = SmallVec::new();
        preds.push(j);
        Target { thread: self.model.op_thread[op as usize], op, at: Some(j), preds }
    }

    /// The task thread `t` can run at `s`: the handler it runs or the one at its queue's front
    /// (a message), or its own code (None for a looper with nothing to do).
    pub fn executable_handler(&self, f: &Frame, t: Choice) -> Option<u32> {
        f.next_op(t).and_then(|op| self.handler_of(op))
    }

    /// Whether the task of `op` can start or go on at `s` on its thread.
    pub fn task_executable(&self, f: &Frame, op: u32) -> bool {
        let t = self.model.op_thread[op as usize];
        match self.handler_of(op) {
            None => true,
            Some(m) => self.executable_handler(f, t) == Some(m),
        }
    }

    /// Takes thread `c` from the current state, updating clocks and indexes.
    pub(crate) fn push_step(&mut self, c: Choice) {
        let model = self.model;
        let frame = self.frames.last().expect("a current state");
        let op = frame.next_op(c).expect("an enabled thread has a next operation");
        // Popped frames are reused: cloning into them keeps their allocations.
        let mut next = self.pool.pop().unwrap_or_else(|| Frame::new(&self.state, model));
        next.next.clone_from(&frame.next);
        next.enabled.clone_from(&frame.enabled);
        next.mark = self.state.journal_len();
        let _ = model.step(&mut self.state, c);
        let pos = self.hb.len() as u32;
        // Conflict edges: the last write dominates every earlier access of the location, so it
        // and the reads after it are all a new access must be ordered after.
        let mut extra: SmallVec<[usize; 8]> = SmallVec::new();
        let access = self.access(op);
        match access {
            Some((loc, false)) => {
                if let Some(&(w, _)) = self.index.accesses_of(loc).iter().rev().find(|a| a.1) {
                    extra.push(w as usize);
                }
            }
            Some((loc, true)) => {
                for &(a, w) in self.index.accesses_of(loc).iter().rev() {
                    extra.push(a as usize);
                    if w {
                        break;
                    }
                }
            }
            None => {}
        }
        R::step_edges(self, c, op, &mut extra);
        self.hb.push_with(op, extra);
        self.index.push(pos, access, self.lock_taken(op), self.post_dest(op));
        self.path.push(c);
        self.observe_step(&mut next, c, op);
        next.sets = Sets::default();
        next.analysed = false;
        self.frames.push(next);
        self.rule.pushed();
        self.sleep.pushed();
    }

    /// Brings `next` and `enabled` of `f` (copied from the state before) up to date after `c`
    /// ran `op`: only the threads whose next operation or its enabledness that step can
    /// change are looked at again.
    fn observe_step(&self, f: &mut Frame, c: Choice, op: u32) {
        let model = self.model;
        let kind = self.op_kind(op);
        if matches!(kind, OpKind::Lock { .. } | OpKind::Unlock { .. }) {
            // Any thread waiting for the lock (rare operations: look at every thread).
            f.observe(model, &self.state);
            return;
        }
        f.observe_thread(model, &self.state, c);
        match kind {
            OpKind::Post { msg, .. } => {
                // The destination's queue may have been empty.
                if let Some(h) = &model.handlers[msg as usize] {
                    f.observe_thread(model, &self.state, h.thread);
                }
            }
            OpKind::Notify { target } => {
                if let Some(d) = model.thread_of_raw(target) {
                    f.observe_thread(model, &self.state, d);
                }
            }
            _ => {}
        }
        for &o in &self.enabled_by[op as usize] {
            let t = model.op_thread[o as usize];
            if f.next[t as usize] == o {
                f.observe_thread(model, &self.state, t);
            }
        }
    }

    /// Undoes the last step.
    pub(crate) fn pop_step(&mut self) {
        let pos = self.hb.len() - 1;
        let op = self.hb.op(pos);
        self.index.pop(self.access(op), self.lock_taken(op), self.post_dest(op));
        self.hb.pop();
        self.path.pop();
        if let Some(f) = self.frames.pop() {
            self.state.undo_to(f.mark);
            self.pool.push(f);
            self.rule.popped();
            self.sleep.popped();
        }
    }

    /// Adds one of `candidates` to backtrack(`at`), preferring one already there (then nothing
    /// new is scheduled), as Flanagan and Godefroid suggest.
    pub fn add_one(&mut self, at: usize, candidates: &ChoiceSet) {
        if at < self.par.root() {
            self.par.above_one(at, candidates);
            return;
        }
        let f = &mut self.frames[at];
        if candidates.intersects(&f.sets.backtrack) {
            return;
        }
        if let Some(t) = candidates.iter().next() {
            f.sets.backtrack.insert(t);
        }
    }

    /// Adds every thread enabled at `pre(at)` (the fallback when no better choice is known).
    pub fn add_all_enabled(&mut self, at: usize) {
        if at < self.par.root() {
            self.par.above_all(at);
            return;
        }
        let f = &mut self.frames[at];
        for t in f.enabled.iter().collect::<SmallVec<[Choice; 16]>>() {
            f.sets.backtrack.insert(t);
        }
    }

    /// Threads of the transitions after `i` (up to the target) that happen before `target`,
    /// other than `i`'s own thread, and enabled at `pre(i)`; with `executable`, a looper counts
    /// only when that transition's handler can run at `pre(i)`.
    pub fn hb_candidates(&self, i: usize, target: &Target, executable: bool) -> ChoiceSet {
        let mut out = ChoiceSet::default();
        let ti = self.model.op_thread[self.hb.op(i) as usize];
        let end = target.at.unwrap_or(self.hb.len());
        let f = &self.frames[i];
        for k in i + 1..end {
            let op = self.hb.op(k);
            let t = self.model.op_thread[op as usize];
            if t == ti || out.contains(t) || !f.enabled.contains(t) {
                continue;
            }
            if !self.hb_target(k, target) {
                continue;
            }
            if executable && !self.task_executable(f, op) {
                continue;
            }
            out.insert(t);
        }
        out
    }

    /// The thread to take at the current state, or None when nothing is left to do here.
    fn choose(&mut self) -> Option<Choice> {
        let top = self.frames.len() - 1;
        let f = &mut self.frames[top];
        let sleep = self.sleep.asleep(top);
        if self.recorded {
            // The recorded order: the enabled thread whose next operation comes first.
            let c = f.enabled.iter().min_by_key(|&t| f.next_op(t).unwrap_or(u32::MAX))?;
            f.sets.backtrack.insert(c);
            return Some(c);
        }
        // Sleeping threads are as good as done (sleep sets are empty without the component).
        if let Some(c) = f.sets.backtrack.first_in_not_in(&f.enabled, &f.sets.done, sleep) {
            return Some(c);
        }
        if f.sets.done.is_empty() {
            let c = f.enabled.iter().find(|&t| !sleep.contains(t))?;
            f.sets.backtrack.insert(c);
            return Some(c);
        }
        None
    }

    /// Puts the initial state on the path.
    pub(crate) fn start(&mut self) {
        self.frames.push(Frame::new(&self.state, self.model));
        self.rule.pushed();
        self.sleep.pushed();
    }

    /// Whether message `m` is queued at path state `a`: posted before it, not yet called.
    pub fn queued_at(&self, a: usize, m: u32) -> bool {
        let Some(h) = self.model.handlers[m as usize].as_ref() else { return false };
        let before = |op: Option<&u32>| op.and_then(|&o| self.hb.position(o)).is_some_and(|p| p < a);
        h.post != NEVER && before(Some(&h.post)) && !before(h.ops.first())
    }

    /// The exploration loop.
    pub fn run(&mut self, search: &mut Search<'_, EmModel>) {
        self.start();
        self.explore(search);
    }

    /// The exploration loop from the current path, never backtracking above the parallel
    /// component's root; in parallel `dpor`, pending choices are handed to idle workers and
    /// collected in the sequential order.
    pub(crate) fn explore(&mut self, search: &mut Search<'_, EmModel>) {
        loop {
            if search.stopped() {
                self.estimate.stopped(&mut search.stats, self.threads(), self.progress_path());
                return;
            }
            // Blocked threads count too: at a deadlock their next LOCKs still reveal races.
            let top = self.frames.len() - 1;
            if !self.frames[top].analysed {
                R::analyse(self);
                self.frames[top].analysed = R::ONCE_PER_STATE;
            }
            if self.frames[top].enabled.is_empty() {
                self.terminal(search);
                self.recorded = false;
                R::execution_ended(self);
                if !self.backtrack_to_pending() {
                    return;
                }
                continue;
            }
            match self.choose() {
                Some(c) => {
                    if let Some(events) = self.par.reach(top, c) {
                        // c's subtree was explored elsewhere: what it did to the states up to
                        // here happens now, where the sequential search does it.
                        self.frames[top].sets.done.insert(c);
                        for e in events.list {
                            match e {
                                Event::One(at, cands) => self.add_one(at as usize, &cands),
                                Event::All(at) => self.add_all_enabled(at as usize),
                            }
                        }
                        continue;
                    }
                    let f = self.frames.last_mut().expect("a state");
                    f.sets.done.insert(c);
                    self.push_step(c);
                    S::entered(self, c);
                    search.transition(self.path.len());
                    self.estimate.stepped(&mut search.stats, self.threads(), || self.progress_path());
                    if !self.recorded {
                        self.par.stepped(&self.frames, &self.path);
                    }
                }
                None => {
                    if self.frames[top].sets.done.is_empty() {
                        // Every enabled thread is asleep: an equivalent run was explored already.
                        self.sleep.blocked(&mut search.stats);
                    }
                    if !self.backtrack_to_pending() {
                        return;
                    }
                }
            }
        }
    }

    /// What the progress estimate reads: the choice sets of the states this search owns.
    fn progress_path(&self) -> impl Iterator<Item = Choices<'_>> {
        self.frames.iter().enumerate().skip(self.par.root()).map(|(i, f)| Choices {
            backtrack: &f.sets.backtrack,
            done: &f.sets.done,
            enabled: &f.enabled,
            asleep: self.sleep.asleep(i),
        })
    }

    /// Pops the path back to the deepest state with a backtrack choice not yet done and
    /// enabled. False when there is none: the search is over.
    fn backtrack_to_pending(&mut self) -> bool {
        loop {
            let f = self.frames.last().expect("a state");
            let sleep = self.sleep.asleep(self.frames.len() - 1);
            if f.sets.backtrack.first_in_not_in(&f.enabled, &f.sets.done, sleep).is_some() {
                return true;
            }
            if self.frames.len() == self.par.root() + 1 {
                return false;
            }
            self.pop_step();
        }
    }
}
