//! Parallel `dpor` (`--threads N`): subtrees of the search handed to idle workers, with the same
//! explored tree, hence the same counts, as the sequential search.
//!
//! Why this is exact: in `dpor` mode the exploration below (state n, thread c) depends on the
//! path to n and on c only. Nothing in it reads the backtrack or done sets of the states up to
//! n (the choice and the backtrack point are taken among the subtree's own states; the race
//! analysis reads the path, the clocks and `enabled`, which the path fixes). What the subtree
//! does to the states up to n is a sequence of *events*: `add_one(at, candidates)` and
//! `add_all_enabled(at)`. Their effect depends on the backtrack set they find, so they are
//! applied in the order the sequential search would apply them: when the owner of state n
//! reaches c (c is then the smallest pending choice there, as in the sequential search), it
//! waits for c's result and applies c's events, to its own states or, for states above its own
//! subtree, to its own event list.
//!
//! A worker at a state with a pending choice gives one away (marks it claimed) when a thread is
//! idle. The task replays the path with no race analysis and nothing counted, takes c (counted),
//! and runs the usual loop without ever backtracking above c's state. Its counts and outcomes
//! come back as a [`Search`] the root absorbs. An owner that reaches a claimed choice whose task
//! has not started takes it back and explores it itself; one whose task runs meanwhile runs
//! other queued tasks. A waiting thread only waits for tasks that started after the one it
//! runs started, so helping cannot deadlock.
//!
//! `em-dpor` stays sequential: its analysis reads done sets of earlier states (FindTarget),
//! writes reordered pairs and `dpor_run` flags there for later siblings to read, and
//! BacktrackEager walks the whole path again, so its subtrees are not functions of their paths.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::engine::{Engine, Frame, NoSleep, Parallel};
use super::handoff::{Claim, Donor, Events, Helpers, Task};
use super::race::DporRace;
use crate::explore::sets::ChoiceSet;
use crate::explore::{Search, Seed};
use crate::model::em::EmModel;
use crate::model::Choice;

const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const DONE: u8 = 2;
const TAKEN_BACK: u8 = 3;

/// Nested help (a waiting thread running another task on its stack) stops at this depth.
const MAX_NESTING: usize = 24;

/// The workers of one parallel `dpor` search.
pub(crate) struct Pool<'m> {
    seed: Seed<'m, EmModel>,
    /// Tasks not started yet, oldest (shallowest, usually largest) first.
    queue: Mutex<VecDeque<Arc<Task>>>,
    /// Signalled when a task is queued or finishes, and at the end.
    signal: Condvar,
    /// Threads with nothing to do: looking for a task, or waiting for a subtree with no task
    /// to help with.
    idle: AtomicUsize,
    queued: AtomicUsize,
    over: AtomicBool,
    /// The searches of finished tasks, absorbed by the root at the end.
    searches: Mutex<Vec<Search<'m, EmModel>>>,
    pub donated: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'m> Pool<'m> {
    /// A queued task, or None once `stop()` holds. Without `take`, only waits for `stop()`.
    fn next_task(&self, stop: &dyn Fn() -> bool, take: bool) -> Option<Arc<Task>> {
        let mut q = lock(&self.queue);
        let mut idle = false;
        let out = loop {
            if take {
                if let Some(t) = q.pop_front() {
                    self.queued.fetch_sub(1, Ordering::Relaxed);
                    t.status.store(RUNNING, Ordering::Relaxed);
                    break Some(t);
                }
            }
            if stop() {
                break None;
            }
            if take && !idle {
                idle = true;
                self.idle.fetch_add(1, Ordering::Relaxed);
            }
            // The timeout only guards against a missed signal.
            q = self.signal.wait_timeout(q, Duration::from_millis(20)).unwrap_or_else(|e| e.into_inner()).0;
        };
        if idle {
            self.idle.fetch_sub(1, Ordering::Relaxed);
        }
        out
    }

    /// A worker thread: runs tasks until the search is over.
    fn work(&self) {
        let over = || self.over.load(Ordering::Acquire);
        while let Some(t) = self.next_task(&over, true) {
            self.run_task(&t, 1);
        }
    }

    fn run_task(&self, task: &Task, nesting: usize) {
        // A panic in the task must not leave its owner waiting: the guard marks it done (with
        // no events), halts the search, and the panic surfaces when the threads are joined.
        let guard = Unwinding(self, task);
        let mut search = self.seed.worker();
        // A search stopped meanwhile: do not replay the path for nothing.
        search.check_limits();
        let mut events = Events::default();
        if !search.stopped() {
            // The subtree below the donated choice is this search's; the states above it are
            // the owner's.
            let donor = Donor::new(self, nesting, task.path.len());
            let mut engine = Engine::with_parallel(
                search.model,
                DporRace::new(search.model.threads.len() as u32),
                NoSleep::default(),
                donor,
            );
            engine.recorded = false;
            engine.start();
            let (&c, prefix) = task.path.split_last().expect("a donated choice");
            for &t in prefix {
                engine.push_step(t);
            }
            engine.frames.last_mut().expect("a state").sets.done.insert(c);
            engine.push_step(c);
            search.transition(engine.path.len());
            engine.explore(&mut search);
            events = engine.par.take_above();
        }
        *lock(&task.events) = Some(events);
        lock(&self.searches).push(search);
        std::mem::forget(guard);
        self.finished(task);
    }

    fn finished(&self, task: &Task) {
        task.status.store(DONE, Ordering::Release);
        drop(lock(&self.queue));
        self.signal.notify_all();
    }
}

impl Helpers for Pool<'_> {
    /// Whether a thread would take a task now.
    #[inline]
    fn hungry(&self) -> bool {
        self.idle.load(Ordering::Relaxed) > self.queued.load(Ordering::Relaxed)
    }

    /// Queues the subtree of `path` (its last choice is the donated one).
    fn give(&self, depth: usize, path: Vec<Choice>) -> Claim {
        let thread = *path.last().expect("a donated choice");
        let task = Arc::new(Task { path, status: AtomicU8::new(QUEUED), events: Mutex::new(None) });
        lock(&self.queue).push_back(task.clone());
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.donated.fetch_add(1, Ordering::Relaxed);
        self.signal.notify_all();
        Claim { depth, thread, task }
    }

    /// The owner reached a claimed choice: takes its task back when no one started it (true:
    /// the owner explores it itself), else waits for it, running other tasks meanwhile, and
    /// returns its events.
    fn collect(&self, claim: Claim, nesting: usize) -> Option<Events> {
        {
            let mut q = lock(&self.queue);
            if let Some(k) = q.iter().position(|t| Arc::ptr_eq(t, &claim.task)) {
                q.remove(k);
                self.queued.fetch_sub(1, Ordering::Relaxed);
                claim.task.status.store(TAKEN_BACK, Ordering::Relaxed);
                return None;
            }
        }
        let done = || claim.task.status.load(Ordering::Acquire) == DONE;
        while !done() {
            if let Some(t) = self.next_task(&done, nesting < MAX_NESTING) {
                self.run_task(&t, nesting + 1);
            }
        }
        Some(lock(&claim.task.events).take().unwrap_or_default())
    }
}

/// The engine's parallel hook points, on the engine's donor (handoff does not import the
/// engine: this impl lives with the driver, which imports both).
impl Parallel for Donor<'_> {
    #[inline]
    fn root(&self) -> usize {
        self.root
    }

    fn above_one(&mut self, at: usize, candidates: &ChoiceSet) {
        self.above.add_one(at, candidates);
    }

    fn above_all(&mut self, at: usize) {
        self.above.add_all_enabled(at);
    }

    #[inline]
    fn reach(&mut self, at: usize, t: Choice) -> Option<Events> {
        Donor::reach(self, at, t)
    }

    /// The pending choices of the path's states from the root down, the current one excluded:
    /// in the backtrack set, enabled, not done.
    fn stepped(&mut self, frames: &[Frame], path: &[Choice]) {
        let root = self.root;
        let pending = frames[root..frames.len() - 1].iter().enumerate().map(|(i, f)| {
            let mut open = ChoiceSet::default();
            for t in f.sets.backtrack.iter() {
                if f.enabled.contains(t) && !f.sets.done.contains(t) {
                    open.insert(t);
                }
            }
            (root + i, open)
        });
        self.offer(pending, path);
    }
}

struct Unwinding<'a, 'm>(&'a Pool<'m>, &'a Task);

impl Drop for Unwinding<'_, '_> {
    fn drop(&mut self) {
        self.0.seed.group.halt.store(true, Ordering::Relaxed);
        self.0.finished(self.1);
    }
}

/// Ends the worker threads when the root search returns, panics included.
struct Over<'a, 'm>(&'a Pool<'m>);

impl Drop for Over<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // No one will collect the running tasks: stop them.
            self.0.seed.group.halt.store(true, Ordering::Relaxed);
        }
        self.0.over.store(true, Ordering::Release);
        drop(lock(&self.0.queue));
        self.0.signal.notify_all();
    }
}

/// Runs `dpor` with `threads` workers; returns the number of subtrees handed to other workers.
pub(crate) fn run(search: &mut Search<'_, EmModel>, threads: usize) -> u64 {
    let pool = Pool {
        seed: search.seed(),
        queue: Mutex::new(VecDeque::new()),
        signal: Condvar::new(),
        idle: AtomicUsize::new(0),
        queued: AtomicUsize::new(0),
        over: AtomicBool::new(false),
        searches: Mutex::new(Vec::new()),
        donated: AtomicU64::new(0),
    };
    std::thread::scope(|s| {
        for i in 1..threads {
            let pool = &pool;
            std::thread::Builder::new()
                .name(format!("dpor-{i}"))
                .stack_size(16 << 20)
                .spawn_scoped(s, move || pool.work())
                .expect("spawning a dpor worker");
        }
        let _over = Over(&pool);
        let model = search.model;
        let mut engine = Engine::with_parallel(
            model,
            DporRace::new(model.threads.len() as u32),
            NoSleep::default(),
            Donor::new(&pool, 0, 0),
        );
        engine.start();
        engine.explore(search);
    });
    for w in std::mem::take(&mut *lock(&pool.searches)) {
        search.absorb(w);
    }
    pool.donated.load(Ordering::Relaxed)
}
