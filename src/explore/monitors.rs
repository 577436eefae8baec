//! `monitors`: SmartApp conflicts observed (`--conflicts`, `--conflict-mode observe`) found
//! without the product of every conflict ghost: the system's state graph is explored once with
//! no ghost stored, and each attribute's conflicts are then found on the product of that graph
//! with the attribute's own one-slot monitor. Exact: the same distinct conflicts (and
//! exceptions) as `full` on the model that stores every ghost.
//!
//! **The argument.** Under `--conflicts` a state is a pair (system state, ghosts), the ghosts
//! being, per attribute X two apps may write, X's last app writer and the value it wrote
//! (src/model/smartapp/delivery.rs). In observe mode the system never reads a ghost: a
//! transition's system successor (or its exception) is a function of the system state and the
//! event alone, the conflict check only records an observation and the write goes on. So the
//! model is the synchronous product of the system S with one deterministic monitor M_X per
//! attribute X (Vardi and Wolper's automata-theoretic view: a safety property checked as a
//! monitor run in lock-step with the system): on a transition, M_X reads the app writes of X the
//! transition makes, in order, and moves to the last one; it observes a conflict where a write
//! conflicts with the write before it (the incoming ghost for the first one, the transition's own
//! earlier write of X for the others), by `set_attr`'s rule (another app, another value, not on
//! the user's command). Because S never reads the monitors, a path of S determines every
//! monitor's run along it, and the monitors never block: the reachable states of S x M_X1 x ...
//! x M_Xn project onto (s, m_X) exactly as the reachable states of S x M_X alone, both being
//! {(last state of p, M_X's state after p) : p a path of S}. A conflict on X is made by a
//! transition and M_X's state before it (and the transition's own writes), so the conflicts
//! observed anywhere in the full product are the union over X of those observed on S x M_X.
//! Each is computed by a breadth-first search over the recorded graph of S ([`fixpoint`]), which
//! costs the states of S x M_X, not of the product of all monitors, where the ghosts multiply
//! jointly (the alarm home's 65,178 system states against more than 560,000 with its two ghosts).
//!
//! **Only in observe mode.** Under `--conflict-mode end` a conflict ends its path: the ghost then
//! decides which transitions exist, S is no longer independent of the monitors, and the
//! projection argument fails. There (and without `--conflicts`, where there is nothing to
//! monitor) this strategy runs `full` instead, which is exact on any model.
//!
//! **What is recorded.** States of S are stored packed (src/model/smartapp/packed.rs: one
//! interned number per part, about 24 words on the homes; equal words, equal encodings; the
//! ghosts, never set, are one constant part) in dfs.rs's `StateStore`, explored breadth-first
//! with the frontier held as state ids (a state is unpacked only to run a firing on it). Each
//! edge is kept as its target (u32), its choice (u16) and an interned summary (u16): the
//! sequence of its monitored writes (0 for none), 8 bytes an edge. A transition is looked up in
//! a memo keyed by the parts of its source that recorded runs of its firing read
//! (src/explore/firing_memo.rs, its header has the argument) before the interpreter runs it. A state keeps
//! its breadth-first parent, so an exception's schedule is a shortest one; a conflict's schedule
//! is a shortest path in S x M_X to the monitor state it needs, then the edge: it replays in the
//! model that keeps every ghost and observes the same conflict there (the report replays it).
//! With `--threads N` (a pool of N of the run's own) each breadth-first level is expanded in
//! parallel (the interpreter's work, reading the store, the parts, the memo and the interned
//! write sequences), and merged in order (storing, interning and recording), so ids, counts and
//! findings do not depend on N. The monitors' searches (one per slot, then the pair view's) read
//! the finished graph only: they run in parallel and their findings are reported in their order,
//! one after the other under `--stop-at-first-error` (where a finding stops the next ones).
//!
//! **Limits.** Time, memory and states stop the exploration cleanly; the monitors then run over
//! the graph explored so far (every conflict they report is real: its schedule replays), bounded
//! by the run's budget after the search (explore/budget.rs: the time limit and a twentieth,
//! memory, Ctrl-C).

use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::dfs::{fingerprint, StateStore};
use super::firing_memo::{self, Memo};
use super::{full, Search, Strategy};
use crate::model::smartapp::{GhostWrite, Packer, SmartAppModel, SmartState};
use crate::model::{Choice, Model, ModelError};

#[derive(Default)]
pub struct Monitors;

impl Strategy<SmartAppModel> for Monitors {
    fn name(&self) -> &'static str {
        "monitors"
    }

    fn run(&mut self, search: &mut Search<'_, SmartAppModel>) {
        if !search.model.observes_conflicts() {
            // The ghosts decide the paths (`end`), or there are none: see the module header.
            return full::Full.run(search);
        }
        if search.model.choices() > u32::from(u16::MAX) + 1 {
            // Edges keep their choice in 16 bits (no SmartApp system comes near).
            return full::Full.run(search);
        }
        let phases = std::env::var_os("TRACEPOR_PHASES").is_some();
        let t0 = Instant::now();
        let cpu0 = cpu_seconds(true);
        // `--threads N`: N workers of the run's own (the global pool has one per core).
        let threads = search.options.threads.max(1);
        let pool =
            (threads > 1).then(|| rayon::ThreadPoolBuilder::new().num_threads(threads).build()).and_then(Result::ok);
        let mut memo = new_memo(search.model);
        let (graph, packer, timing) = explore(search, &mut memo, pool.as_ref(), phases);
        if phases {
            let Timing { expand, span, merge } = timing;
            eprintln!(
                "monitors: {threads} thread(s): process CPU {:.2} s; expanding {expand:.2} s CPU (span on {threads} free cores {span:.2} s), merging {merge:.2} s CPU ({:.1}% serial); bound on free cores {:.2} s",
                cpu_seconds(true) - cpu0,
                100.0 * merge / (expand + merge).max(1e-9),
                span + merge
            );
            eprintln!(
                "monitors: system graph {} states ({} expanded), {} edges ({} writing), {} summaries, {} writes, {:.2} s",
                graph.states(),
                graph.first.len() - 1,
                graph.target.len(),
                graph.summary.iter().filter(|&&s| s != 0).count(),
                graph.summaries.len(),
                graph.writes.len(),
                t0.elapsed().as_secs_f64()
            );
            eprintln!(
                "monitors: {} words a state, {} parts interned; memo {} entries ({} nodes), {} hits of {} transitions; heap {} MiB",
                packer.width(),
                packer.parts(),
                memo.entries(),
                memo.nodes(),
                memo.hits,
                graph.target.len(),
                crate::alloc::current().unwrap_or(0) >> 20
            );
        }
        drop((memo, packer));
        // One fixpoint per slot, independent of each other: in parallel with `--threads N`,
        // their findings reported in the slots' order (as one after the other would).
        let slots = search.model.monitored_slots();
        let bounds = Bounds::of(search);
        let (t1, cpu1) = (Instant::now(), cpu_seconds(true));
        in_order(
            search,
            pool.as_ref(),
            slots.len(),
            |i, stopped| {
                let t1 = Instant::now();
                let (nodes, found) = fixpoint(&bounds, &graph, slots[i] as u32, stopped);
                (nodes, found, t1.elapsed())
            },
            |search, i, (nodes, found, took)| {
                report(search, found);
                if phases {
                    eprintln!("monitors: slot {}: {nodes} product states, {:.2} s", slots[i], took.as_secs_f64());
                }
            },
        );
        if phases {
            eprintln!(
                "monitors: {} slot searches, {:.2} s, process CPU {:.2} s",
                slots.len(),
                t1.elapsed().as_secs_f64(),
                cpu_seconds(true) - cpu1
            );
        }
        // The pair view (pair_monitors.rs): after the direct conflicts, which it leaves out.
        if !search.options.no_pair_conflicts {
            let t1 = Instant::now();
            let view = super::pair_monitors::run(search, &graph, pool.as_ref());
            search.stats.pair_view = Some(view);
            if phases {
                eprintln!("monitors: pair view: {view:?}, {:.2} s", t1.elapsed().as_secs_f64());
            }
        }
        // Searches the budget cut found less than they would have: the run did not finish.
        search.cut_short();
    }
}

/// A conflict found by a monitor, with its schedule.
pub(super) type Finding = (ModelError, Vec<Choice>);

/// Reports `found` in order.
pub(super) fn report(search: &mut Search<'_, SmartAppModel>, found: Vec<Finding>) {
    for (e, path) in found {
        search.observed(&mut vec![e], &path);
    }
}

/// What ends a monitor's search early, read before the monitors run (so that they can run on
/// other threads): the run's budget after the search (time, memory, Ctrl-C; explore/budget.rs),
/// `--stop-at-first-error`.
pub(super) struct Bounds<'m> {
    pub m: &'m SmartAppModel,
    budget: std::sync::Arc<super::Budget>,
    stop_first: bool,
}

impl<'m> Bounds<'m> {
    pub fn of(search: &mut Search<'m, SmartAppModel>) -> Self {
        Bounds {
            m: search.model,
            budget: search.wrap_up(),
            // An error halts the search only if nothing else halted it first (`Search::halt`).
            stop_first: search.limits.stop_at_first_error
                && matches!(search.stop_reason(), None | Some(super::StopReason::FirstError)),
        }
    }

    /// Whether a monitor's search ends here: the run's budget is spent, or the search stops at
    /// its first error and one was found (`found`: by this monitor, or before it began).
    pub fn over(&self, found: bool) -> bool {
        self.stop_first && found || self.budget.poll()
    }
}

/// Runs `job(i, stopped)` for `i` in `0..n` and hands each result to `report`, in the order of
/// `i`. `stopped` says the search stopped at a first error before the job began. On `pool`'s
/// threads all at once, unless the search stops at its first error: then one after the other,
/// each job knowing whether an earlier one found one, so the findings are those of a sequential
/// run whatever the threads.
pub(super) fn in_order<'m, T: Send>(
    search: &mut Search<'m, SmartAppModel>,
    pool: Option<&rayon::ThreadPool>,
    n: usize,
    job: impl Fn(usize, bool) -> T + Sync,
    mut report: impl FnMut(&mut Search<'m, SmartAppModel>, usize, T),
) {
    let stopped = |search: &Search<'_, SmartAppModel>| search.stop_reason() == Some(super::StopReason::FirstError);
    match pool {
        Some(pool) if !search.limits.stop_at_first_error => {
            let results: Vec<T> =
                pool.install(|| (0..n).into_par_iter().with_max_len(1).map(|i| job(i, false)).collect());
            for (i, r) in results.into_iter().enumerate() {
                report(search, i, r);
            }
        }
        _ => {
            for i in 0..n {
                let r = job(i, stopped(search));
                report(search, i, r);
            }
        }
    }
}

/// An edge's summary when it does not fit in 16 bits.
const WIDE: u16 = u16::MAX;

/// An edge's target when the transition ended in an exception.
const NONE: u32 = u32::MAX;

/// The system's state graph, with what each edge wrote of the monitored attributes.
struct Graph {
    /// Per expanded state, where its edges start; one more entry closes the last.
    first: Vec<u32>,
    target: Vec<u32>,
    choice: Vec<u16>,
    /// Per edge: its summary (index into `summaries`; 0 writes nothing monitored), [`WIDE`] for
    /// a summary past 16 bits, found in `wide` (none on the homes: hundreds of summaries).
    summary: Vec<u16>,
    wide: FxHashMap<u32, u32>,
    /// Breadth-first parent of each state (the initial state's is itself).
    parent: Vec<(u32, Choice)>,
    /// Each distinct write sequence, as write ids.
    summaries: Vec<Box<[u32]>>,
    /// Each distinct write, and the ghost it leaves (ids into `ghosts`, from 1).
    writes: Vec<GhostWrite>,
    ghost_of: Vec<u32>,
    /// Per ghost id: a write leaving it (index 0: no ghost).
    ghosts: Vec<u32>,
}

impl Graph {
    fn states(&self) -> usize {
        self.parent.len()
    }

    /// The edges of state `s` (none when it was not expanded).
    fn edges(&self, s: u32) -> std::ops::Range<usize> {
        match (self.first.get(s as usize), self.first.get(s as usize + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// The bytes recording `n` more edges may allocate (each vector doubles; a summarised edge
    /// counted as if every one were).
    fn edge_growth(&self, n: usize) -> u64 {
        let grows = |len: usize, cap: usize, size: u64| if len + n > cap { size * cap.max(n) as u64 } else { 0 };
        grows(self.target.len(), self.target.capacity(), 4)
            + grows(self.choice.len(), self.choice.capacity(), 2)
            + grows(self.summary.len(), self.summary.capacity(), 2)
    }

    /// The summary of edge `e`.
    fn summary(&self, e: usize) -> u32 {
        match self.summary[e] {
            WIDE => self.wide[&(e as u32)],
            s => u32::from(s),
        }
    }

    fn push_edge(&mut self, target: u32, c: Choice, summary: u32) {
        if summary >= u32::from(WIDE) {
            self.wide.insert(self.target.len() as u32, summary);
        }
        self.target.push(target);
        self.choice.push(c as u16);
        self.summary.push(summary.min(u32::from(WIDE)) as u16);
    }

    /// The choice of edge `e`.
    fn choice(&self, e: usize) -> Choice {
        Choice::from(self.choice[e])
    }

    /// The breadth-first schedule to state `s`.
    fn path_to(&self, mut s: u32) -> Vec<Choice> {
        let mut path = Vec::new();
        while s != 0 {
            let (p, c) = self.parent[s as usize];
            path.push(c);
            s = p;
        }
        path.reverse();
        path
    }
}

/// What the pair view reads of the graph (pair_monitors.rs).
impl super::pair_monitors::SystemGraph for Graph {
    fn edges(&self, s: u32) -> std::ops::Range<usize> {
        Graph::edges(self, s)
    }
    fn target(&self, e: usize) -> u32 {
        self.target[e]
    }
    fn choice(&self, e: usize) -> Choice {
        Graph::choice(self, e)
    }
    // Through `Graph::summary`, which resolves a summary past 16 bits from `wide`.
    fn summary(&self, e: usize) -> u32 {
        Graph::summary(self, e)
    }
    fn summary_count(&self) -> usize {
        self.summaries.len()
    }
    fn summary_writes(&self, summary: u32) -> &[u32] {
        &self.summaries[summary as usize]
    }
    fn writes(&self) -> &[GhostWrite] {
        &self.writes
    }
    fn ghost_of(&self, w: u32) -> u32 {
        self.ghost_of[w as usize]
    }
    fn ghost_write(&self, g: u32) -> &GhostWrite {
        &self.writes[self.ghosts[g as usize] as usize]
    }
}

/// Interning of writes, ghosts and write sequences.
#[derive(Default)]
struct Interner {
    write_ids: FxHashMap<Vec<u32>, u32>,
    ghost_ids: FxHashMap<Vec<u32>, u32>,
    summary_ids: FxHashMap<Box<[u32]>, u32>,
    key: Vec<u32>,
}

impl Interner {
    fn write(&mut self, g: &mut Graph, w: GhostWrite) -> u32 {
        self.key.clear();
        w.key(&mut self.key);
        if let Some(&id) = self.write_ids.get(&self.key) {
            return id;
        }
        let id = g.writes.len() as u32;
        self.write_ids.insert(self.key.clone(), id);
        self.key.clear();
        w.ghost_key(&mut self.key);
        let ghost = match self.ghost_ids.get(&self.key) {
            Some(&gh) => gh,
            None => {
                let gh = g.ghosts.len() as u32;
                g.ghosts.push(id);
                self.ghost_ids.insert(self.key.clone(), gh);
                gh
            }
        };
        g.writes.push(w);
        g.ghost_of.push(ghost);
        id
    }

    /// The summary of `writes` when it is interned already (read by the workers of a level, so
    /// that only a summary never seen before reaches the merge). `key` and `ids` are scratch.
    fn find(&self, writes: &[GhostWrite], key: &mut Vec<u32>, ids: &mut Vec<u32>) -> Option<u32> {
        if writes.is_empty() {
            return Some(0);
        }
        ids.clear();
        for w in writes {
            key.clear();
            w.key(key);
            ids.push(*self.write_ids.get(key.as_slice())?);
        }
        self.summary_ids.get(ids.as_slice()).copied()
    }

    /// The summary of `writes`, and whether it is new.
    fn summary(&mut self, g: &mut Graph, writes: Vec<GhostWrite>) -> (u32, bool) {
        if writes.is_empty() {
            return (0, false);
        }
        let ids: Box<[u32]> = writes.into_iter().map(|w| self.write(g, w)).collect();
        if let Some(&id) = self.summary_ids.get(&ids) {
            return (id, false);
        }
        let id = g.summaries.len() as u32;
        self.summary_ids.insert(ids.clone(), id);
        g.summaries.push(ids);
        (id, true)
    }
}

/// One transition taken from a frontier state.
struct Step {
    choice: Choice,
    result: Result<Reached, ModelError>,
    /// Its monitored writes: interned already (a memo hit, or a run whose sequence the worker
    /// found interned), or as the run handed them out (a sequence new when the level began).
    writes: Writes,
    /// Run by the interpreter (not found in the memo): the merge records it there.
    ran: bool,
    /// When run: the parts it read, in the order it first did (the memo's path).
    reads: Vec<u32>,
}

enum Writes {
    Interned(u32),
    Run(Vec<GhostWrite>),
}

/// Where a step went: a state stored before the chunk began, one not stored whose parts are all
/// interned (packed, with its hash), or one with a new part (kept whole until the merge packs it).
enum Reached {
    Stored(u32),
    Packed(Box<[u32]>, u64),
    New(SmartState),
}

/// What the workers of a level read: nothing is stored or interned while they run.
struct Shared<'a> {
    m: &'a SmartAppModel,
    store: &'a StateStore,
    packer: &'a Packer,
    memo: &'a Memo,
    interner: &'a Interner,
}

/// A worker's scratch: the source state unpacked (when a firing has to run), its successor, and
/// the words of a write sequence's lookup.
struct Scratch {
    state: Option<SmartState>,
    next: Option<SmartState>,
    /// Its last paths through the memo's trees.
    trail: firing_memo::Trail,
    key: Vec<u32>,
    ids: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch {
            state: None,
            next: None,
            trail: firing_memo::Trail::new(),
            key: Vec::new(),
            ids: Vec::new(),
        })
    };
}

impl Shared<'_> {
    /// The transitions of state `id`, each run with no ghost kept (None: nothing is enabled).
    /// A step found in the memo ([`firing_memo`]) is its source's words with the recorded
    /// changes; the others run the interpreter on the state unpacked (once per state). Most lead
    /// to a stored state (98% on the alarm home): those are looked up, nothing kept.
    fn expand(&self, id: u32) -> Option<Vec<Step>> {
        let m = self.m;
        let words = self.store.key(id);
        let mut enabled = Vec::new();
        m.enabled_packed(self.packer, words, &mut enabled);
        if enabled.is_empty() {
            return None;
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch { state, next, trail, key: write_key, ids } = &mut *scratch;
            let mut unpacked = false;
            let mut to = Vec::new();
            let steps = enabled
                .into_iter()
                .map(|c| {
                    if let Some(hit) = self.memo.get_along(c, words, trail) {
                        let result = hit.result.map_err(ModelError::clone).map(|changes| {
                            firing_memo::apply(words, changes, &mut to);
                            self.reached(&to)
                        });
                        let writes = Writes::Interned(hit.summary);
                        let step = Step { choice: c, result, writes, ran: false, reads: Vec::new() };
                        #[cfg(debug_assertions)]
                        self.check_hit(words, &step);
                        return step;
                    }
                    let state = state.get_or_insert_with(|| m.initial());
                    if !unpacked {
                        self.packer.unpack_into(words, state);
                        unpacked = true;
                    }
                    let next = next.get_or_insert_with(|| m.initial());
                    next.clone_from(state);
                    let (mut writes, mut reads) = (Vec::new(), Vec::new());
                    let result = m.step_unmonitored_reading(next, c, &mut writes, &mut reads).map(|()| {
                        if self.packer.find(next, state, words, &mut to) {
                            self.reached(&to)
                        } else {
                            Reached::New(next.clone())
                        }
                    });
                    let writes = match self.interner.find(&writes, write_key, ids) {
                        Some(id) => Writes::Interned(id),
                        None => Writes::Run(writes),
                    };
                    Step { choice: c, result, writes, ran: true, reads }
                })
                .collect();
            Some(steps)
        })
    }

    /// The state packed as `words`: stored, or not yet.
    fn reached(&self, words: &[u32]) -> Reached {
        let hash = fingerprint(words);
        match self.store.find(words, hash) {
            Some(id) => Reached::Stored(id),
            None => Reached::Packed(words.into(), hash),
        }
    }

    /// Debug builds: a memo hit yields what running the firing yields (the memo's exactness rests
    /// on the read log covering every read: see firing_memo.rs).
    #[cfg(debug_assertions)]
    fn check_hit(&self, words: &[u32], step: &Step) {
        let mut s = self.m.initial();
        self.packer.unpack_into(words, &mut s);
        let before = s.clone();
        let mut writes = Vec::new();
        let ran = self.m.step_unmonitored(&mut s, step.choice, &mut writes);
        match (&step.result, ran) {
            (Err(a), Err(b)) => assert_eq!((a.kind, &a.message, a.line), (b.kind, &b.message, b.line)),
            (Ok(reached), Ok(())) => {
                let mut to = Vec::new();
                assert!(self.packer.find(&s, &before, words, &mut to), "memo hit to a state with a new part");
                let at = match reached {
                    Reached::Stored(id) => self.store.key(*id),
                    Reached::Packed(w, _) => w,
                    Reached::New(_) => unreachable!("a hit is packed"),
                };
                assert_eq!(at, to.as_slice(), "memo hit to another state, choice {}", step.choice);
            }
            (a, b) => panic!("memo hit: {:?} against the run's {:?}", a.as_ref().err(), b.err()),
        }
    }
}

/// Frontier states expanded between two looks at the limits (per thread).
const CHUNK: usize = 64;

/// Explores the system's reachable state graph breadth-first, no ghost kept (see the header).
/// With `cpu`, also returns the CPU seconds the merging thread spent merging (TRACEPOR_PHASES).
fn explore(
    search: &mut Search<'_, SmartAppModel>,
    memo: &mut Memo,
    pool: Option<&rayon::ThreadPool>,
    cpu: bool,
) -> (Graph, Packer, Timing) {
    let m = search.model;
    let threads = pool.map_or(1, |p| p.current_num_threads());
    let mut timing = Timing::default();
    search.stats.unique_transitions = Some(0);
    search.stats.stored_state_bytes = Some(0);
    search.stats.revisits = Some(0);
    let mut g = Graph {
        first: vec![0],
        target: Vec::new(),
        choice: Vec::new(),
        summary: Vec::new(),
        wide: FxHashMap::default(),
        parent: vec![(0, 0)],
        summaries: vec![Box::new([])],
        writes: Vec::new(),
        ghost_of: Vec::new(),
        ghosts: vec![u32::MAX],
    };
    let mut interner = Interner::default();
    let mut store = StateStore::new();
    let mut packer = m.packer();
    let (mut words, mut source) = (Vec::new(), Vec::new());
    packer.pack(&m.initial(), &mut words);
    store.insert(&words, fingerprint(&words));
    let state_bytes = 4 * packer.width() as u64;
    *search.stats.stored_state_bytes.get_or_insert(0) += state_bytes;
    search.new_state();
    // The frontier: ids of stored states (their words are in the store).
    let mut level: Vec<u32> = vec![0];
    let mut depth = 0;
    'levels: while !level.is_empty() {
        depth += 1;
        let mut next: Vec<u32> = Vec::new();
        for chunk in level.chunks(CHUNK * threads) {
            if search.stopped() {
                break 'levels;
            }
            let shared = Shared { m, store: &store, packer: &packer, memo, interner: &interner };
            // With `cpu`, each expansion's CPU seconds too (for `span`).
            let expand = |&id: &u32| {
                let t = cpu.then(thread_cpu_seconds);
                let steps = shared.expand(id);
                (steps, t.map_or(0.0, |t| thread_cpu_seconds() - t))
            };
            let expanded: Vec<(Option<Vec<Step>>, f64)> = match pool {
                Some(pool) => pool.install(|| chunk.par_iter().with_max_len(1).map(expand).collect()),
                None => chunk.iter().map(expand).collect(),
            };
            if cpu {
                timing.expand_span(expanded.iter().map(|e| e.1), threads);
            }
            let merge_start = cpu.then(thread_cpu_seconds);
            for (&from, (steps, _)) in chunk.iter().zip(expanded) {
                // States are expanded in id order: their edges are contiguous.
                debug_assert_eq!(from as usize + 1, g.first.len());
                let Some(steps) = steps else {
                    let mut state = m.initial();
                    packer.unpack_into(store.key(from), &mut state);
                    search.terminal(&state, &g.path_to(from));
                    g.first.push(g.target.len() as u32);
                    continue;
                };
                let growth = g.edge_growth(steps.len());
                if growth > 0 && search.reserve(growth) {
                    break 'levels;
                }
                source.clear();
                source.extend_from_slice(store.key(from));
                for step in steps {
                    search.transition(depth);
                    memo.hits += u64::from(!step.ran);
                    let path_len = memo.path_len(step.reads.len());
                    *search.stats.unique_transitions.get_or_insert(0) += 1;
                    let (summary, new) = match step.writes {
                        Writes::Interned(id) => (id, false),
                        Writes::Run(writes) => interner.summary(&mut g, writes),
                    };
                    let target = match step.result {
                        Err(e) => {
                            if step.ran && room(search, memo.growth(path_len)) {
                                memo.record(step.choice, &source, &step.reads, None, Some(&e), summary);
                            }
                            let mut path = g.path_to(from);
                            path.push(step.choice);
                            search.error(e, &path);
                            NONE
                        }
                        Ok(Reached::Stored(id)) => {
                            search.state_match();
                            if step.ran && room(search, memo.growth(path_len)) {
                                memo.record(step.choice, &source, &step.reads, Some(store.key(id)), None, summary);
                            }
                            id
                        }
                        Ok(reached) => {
                            let hash = match reached {
                                Reached::Packed(w, hash) => {
                                    words.clear();
                                    words.extend_from_slice(&w);
                                    hash
                                }
                                Reached::New(state) => {
                                    packer.pack(&state, &mut words);
                                    fingerprint(&words)
                                }
                                Reached::Stored(_) => unreachable!(),
                            };
                            if step.ran && room(search, memo.growth(path_len)) {
                                memo.record(step.choice, &source, &step.reads, Some(&words), None, summary);
                            }
                            let growth = store.growth(words.len());
                            if growth > 0 && search.reserve(growth) {
                                break 'levels;
                            }
                            let (fresh, id) = store.insert(&words, hash);
                            if fresh {
                                *search.stats.stored_state_bytes.get_or_insert(0) += state_bytes;
                                search.new_state();
                                g.parent.push((from, step.choice));
                                next.push(id);
                            } else {
                                search.state_match();
                            }
                            id
                        }
                    };
                    if new {
                        intra_conflicts(search, &g, summary, from, step.choice);
                    }
                    g.push_edge(target, step.choice, summary);
                    // A limit holds at the step that reached it (`--max-states` exactly).
                    if search.stopped() {
                        g.first.push(g.target.len() as u32);
                        break 'levels;
                    }
                }
                g.first.push(g.target.len() as u32);
            }
            if let Some(t) = merge_start {
                timing.merge += thread_cpu_seconds() - t;
            }
        }
        level = next;
    }
    (g, packer, timing)
}

/// Load-independent figures of a parallel exploration (TRACEPOR_PHASES): CPU seconds of the
/// expansions and of the serial merge, and the span the expansions would take on `threads`
/// cores of their own (each chunk's expansions dealt in order to the first free core; a chunk
/// ends when its last one does), whatever else the machine was running.
#[derive(Default)]
struct Timing {
    expand: f64,
    span: f64,
    merge: f64,
}

impl Timing {
    fn expand_span(&mut self, costs: impl Iterator<Item = f64>, threads: usize) {
        let mut free = vec![0.0f64; threads];
        for c in costs {
            self.expand += c;
            let first = free.iter_mut().min_by(|a, b| a.total_cmp(b)).expect("a thread");
            *first += c;
        }
        self.span += free.iter().copied().fold(0.0, f64::max);
    }
}

/// CPU seconds of the calling thread (of the process with `process`): load-independent figures
/// of how much of a run is serial. 0 where the clock cannot be read.
fn cpu_seconds(process: bool) -> f64 {
    #[cfg(unix)]
    {
        let clock = if process { libc::CLOCK_PROCESS_CPUTIME_ID } else { libc::CLOCK_THREAD_CPUTIME_ID };
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a valid timespec to write; the clock ids are the platform's own.
        if unsafe { libc::clock_gettime(clock, &mut t) } == 0 {
            return t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9;
        }
    }
    let _ = process;
    0.0
}

fn thread_cpu_seconds() -> f64 {
    cpu_seconds(false)
}

/// Whether `bytes` more stay within `--max-memory`. The memo is a cache: where they would not, it
/// records nothing more and the search goes on (the states' own growth stops it cleanly).
fn room(search: &Search<'_, SmartAppModel>, bytes: u64) -> bool {
    bytes == 0
        || search
            .limits
            .max_memory_bytes
            .is_none_or(|max| crate::alloc::current().unwrap_or(0).saturating_add(bytes) < max)
}

/// The memo of `m`'s firings, keyed by the parts each run read (firing_memo.rs).
fn new_memo(m: &SmartAppModel) -> Memo {
    Memo::new(m.choices() as usize, m.packer().always())
}

/// The conflicts a summary's transition observes whatever the ghosts before it: each monitored
/// write against the transition's own write of the same attribute before it, and the physical
/// conflicts it observes (src/model/smartapp/physical.rs: a function of the system state and
/// the event, handed out among the writes).
fn intra_conflicts(search: &mut Search<'_, SmartAppModel>, g: &Graph, summary: u32, from: u32, c: Choice) {
    let ids = &g.summaries[summary as usize];
    let mut seen = Vec::new();
    for (i, &w) in ids.iter().enumerate() {
        let write = &g.writes[w as usize];
        if write.physical {
            seen.push(search.model.physical_finding(write, c));
            continue;
        }
        let before = ids[..i].iter().rev().map(|&p| &g.writes[p as usize]).find(|p| p.slot == write.slot);
        if let Some(e) = before.and_then(|b| search.model.monitor_conflict(Some(b), write, c)) {
            seen.push(e);
        }
    }
    if !seen.is_empty() {
        let mut path = g.path_to(from);
        path.push(c);
        search.observed(&mut seen, &path);
    }
}

/// Breadth-first search of the product of the system graph with the monitor of `slot`: finds
/// each conflict of a transition's first write of the slot with the ghost it meets, with a
/// shortest schedule of the product. Returns the product states reached and the findings, in
/// the order found. `stopped`: the search stopped at a first error before it began.
fn fixpoint(bounds: &Bounds<'_>, g: &Graph, slot: u32, stopped: bool) -> (usize, Vec<Finding>) {
    let m = bounds.m;
    let mut found = Vec::new();
    // Per summary: its first write of the slot and the ghost it leaves, if it writes the slot.
    let touch: Vec<Option<(u32, u32)>> = g
        .summaries
        .iter()
        .map(|ids| {
            let mut of_slot = ids.iter().filter(|&&w| g.writes[w as usize].slot == slot);
            let first = *of_slot.next()?;
            let last = of_slot.last().copied().unwrap_or(first);
            Some((first, g.ghost_of[last as usize]))
        })
        .collect();
    // Product states (system state, ghost id), and how each was first reached (its
    // predecessor's index and the edge), in breadth-first order.
    let mut nodes: Vec<(u32, u32)> = vec![(0, 0)];
    let mut pred: Vec<(u32, u32)> = vec![(0, u32::MAX)];
    let mut index: FxHashMap<u64, ()> = FxHashMap::default();
    index.insert(0, ());
    let mut checked: FxHashMap<(u32, u32), ()> = FxHashMap::default();
    let path_of = |pred: &[(u32, u32)], mut n: u32| {
        let mut path = Vec::new();
        while pred[n as usize].1 != u32::MAX {
            let (p, e) = pred[n as usize];
            path.push(g.choice(e as usize));
            n = p;
        }
        path.reverse();
        path
    };
    let mut i = 0;
    while i < nodes.len() {
        if i % 4096 == 0 && bounds.over(stopped || !found.is_empty()) {
            break;
        }
        let (s, ghost) = nodes[i];
        for e in g.edges(s) {
            let mut after = ghost;
            if let Some((first, left)) = touch[g.summary(e) as usize] {
                if checked.insert((ghost, first), ()).is_none() {
                    let last = (ghost != 0).then(|| &g.writes[g.ghosts[ghost as usize] as usize]);
                    if let Some(err) = m.monitor_conflict(last, &g.writes[first as usize], g.choice(e)) {
                        let mut path = path_of(&pred, i as u32);
                        path.push(g.choice(e));
                        found.push((err, path));
                    }
                }
                after = left;
            }
            let t = g.target[e];
            if t != NONE && index.insert(u64::from(t) << 32 | u64::from(after), ()).is_none() {
                nodes.push((t, after));
                pred.push((i as u32, e as u32));
            }
        }
        i += 1;
    }
    (nodes.len(), found)
}
