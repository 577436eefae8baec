//! `em-dpor`: Maiya et al.'s EM-DPOR (TACAS 2016), which explores *dependence-covering sets*:
//! posts are independent, even to one queue, and the handlers of a looper are reordered only
//! when some race needs it. It runs on the DPOR core of [`super::dpor::engine`] (same path,
//! backtrack and done sets, happens-before clocks with one component per chain of ordered
//! events, [`crate::model::clock`]), plugged in as [`EmRace`], a race rule with its own race
//! analysis, backtrack-point choice and state (docs/em-dpor.md §4.2-4.3):
//!
//! - races: for a read, the last write that does not happen before it; for a write, that write
//!   and every unordered read after it (several reads can race with one write); for a lock,
//!   the unordered locks of one other thread. Accesses of two handlers of one looper race too;
//! - FindTarget: *diverging posts* (climb from two handlers of one looper to the posts that
//!   enqueued them, until they are on different threads), then *candidate tasks* at the
//!   backtrack state (the target's thread, and threads of transitions after the race that
//!   happen before the target); when all candidates were already explored, *reschedulePending*
//!   reorders the posts of handlers that are queued but not at the front;
//! - reordered posts: once two posts were scheduled to be swapped, a later run that swaps them
//!   orders them by happens-before, so the FIFO rule keeps their handlers in the new order;
//! - backtrack failure (no candidate at all): after the execution, *BacktrackEager* walks the
//!   path again, reversing races the DPOR way (posts to one queue dependent) up to the deepest
//!   failing backtrack state.
//!
//! The rule's state is its own: per state of the path ([`EmSets`]: the reordered posts, the
//! `dpor_run` flag), kept in step with the path at the core's `pushed`/`popped` hooks; per
//! execution (the failures, BacktrackEager's passes), acted on at `execution_ended`. The
//! happens-before edges it adds (task order; reordered posts; posts to one queue during
//! BacktrackEager's walk) come in at `step_edges`. Soundness: Maiya et al. §5 (every reordering
//! of dependent accesses, locks and handlers is covered), checked against the exhaustive search
//! by tests/soundness.rs and tests/dpor_benchmarks.rs.

use smallvec::SmallVec;

use super::dpor::{Engine, NoSleep, Parallel, RaceRule, Sets, Sleep, Target};
use super::sets::ChoiceSet;
use super::{Search, Strategy};
use crate::model::em::{EmModel, NEVER};
use crate::model::Choice;
use crate::trace::em::OpKind;

/// How a race reversal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reversal {
    /// A thread was added to a backtrack set.
    Added,
    /// Nothing to do: the order is forced, or the reordering was already scheduled or explored.
    Covered,
    /// No thread at the backtrack state (path position) can lead to the reversal.
    Failed(usize),
}

/// What EM-DPOR decided at a state of the path, beside its backtrack and done sets.
#[derive(Clone, Debug, Default)]
pub(crate) struct EmSets {
    /// Posts scheduled here to be reversed, as (later post, earlier post) operations.
    reordered: SmallVec<[(u32, u32); 1]>,
    /// The step from this state is ordered after earlier posts to the same queue (set by a
    /// backtrack failure's DPOR pass, BacktrackEager).
    dpor_run: bool,
}

/// EM-DPOR's race rule (`em-dpor`, `em-dpor-sleep`) and its state: per state of the path (in step
/// with the engine's path through the [`RaceRule`] hooks), and per execution.
#[derive(Default)]
pub(crate) struct EmRace {
    /// Per path state: what was decided there.
    per_state: Vec<EmSets>,
    /// Number of (later post, earlier post) pairs recorded in `per_state`.
    reorderings: usize,
    /// Backtrack failures of the current execution, as (deepest backtrack state, deepest state
    /// where one was found).
    failure: Option<(usize, usize)>,
    /// A failure pass is running (a further failure adds every enabled thread).
    in_eager: bool,
    /// BacktrackEager's walk: a post is also ordered after every earlier post to the same
    /// queue, as DPOR orders them.
    order_posts: bool,
    /// Sets of the states popped while the path is walked again.
    kept: Vec<(usize, Sets, EmSets)>,
}

impl RaceRule for EmRace {
    /// The analysis reads done sets (FindTarget), which grow: it runs at every visit.
    const ONCE_PER_STATE: bool = false;

    /// Task order: the previous operation of the transition's task (thread code or handler);
    /// handlers of one looper are ordered only by what orders them.
    fn predecessor<S: Sleep, P: Parallel>(e: &Engine<'_, Self, S, P>, _p: Choice, op: u32) -> Option<usize> {
        let prev = e.model.prev_in_task[op as usize];
        if prev == NEVER {
            None
        } else {
            e.hb.position(prev)
        }
    }

    fn step_edges<S: Sleep, P: Parallel>(
        e: &mut Engine<'_, Self, S, P>,
        _c: Choice,
        op: u32,
        extra: &mut SmallVec<[usize; 8]>,
    ) {
        if e.rule.order_posts {
            if let Some(d) = e.post_dest(op) {
                extra.extend(e.posts_to(d).iter().map(|&p| p as usize));
            }
        }
        if e.post_dest(op).is_some() && e.rule.reorderings > 0 {
            e.reordered_post_edge(op, extra);
        }
    }

    fn analyse<S: Sleep, P: Parallel>(e: &mut Engine<'_, Self, S, P>) {
        let top = e.frames.len() - 1;
        for p in 0..e.threads() {
            if let Some(op) = e.frames[top].next_op(p) {
                e.em_races(p, op);
            }
        }
        e.blocked_handler_races();
    }

    fn pushed(&mut self) {
        self.per_state.push(EmSets::default());
    }

    fn popped(&mut self) {
        if let Some(s) = self.per_state.pop() {
            self.reorderings -= s.reordered.len();
        }
    }

    /// BacktrackEager, when FindTarget failed during the execution.
    fn execution_ended<S: Sleep, P: Parallel>(e: &mut Engine<'_, Self, S, P>) {
        if let Some((a, n)) = e.rule.failure.take() {
            e.backtrack_eager(a, n);
        }
    }
}

impl<'m, S: Sleep, P: Parallel> Engine<'m, EmRace, S, P> {
    /// Races of thread `p`'s next transition `op` under EM-DPOR's dependence.
    pub(crate) fn em_races(&mut self, p: Choice, op: u32) {
        let mut target = self.next_target(p, op);
        let races: SmallVec<[usize; 4]> = match (self.access(op), self.op_kind(op)) {
            (Some((loc, false)), _) => self.last_unordered_write(loc, &target).into_iter().collect(),
            (Some((loc, true)), _) => {
                let w = self.last_unordered_write(loc, &target);
                let mut out: SmallVec<[usize; 4]> = SmallVec::new();
                for &(i, write) in self.accesses_of(loc).iter().rev() {
                    let i = i as usize;
                    if w.is_some_and(|w| i < w) {
                        break;
                    }
                    if !write && !self.hb_target(i, &target) {
                        out.push(i);
                    }
                }
                if let Some(w) = w {
                    out.push(w);
                }
                // Nearest first.
                out.sort_unstable_by(|a, b| b.cmp(a));
                out
            }
            (None, OpKind::Lock { .. }) => {
                let mut out = SmallVec::new();
                let mut other: Option<Choice> = None;
                for &i in self.locks_of(op).iter().rev() {
                    let i = i as usize;
                    let t = self.model.op_thread[self.hb.op(i) as usize];
                    // Handlers of one looper never contend for a lock (they run to completion),
                    // and the clocks do not order them by it: no race on the same thread.
                    if t == p || self.hb_target(i, &target) {
                        continue;
                    }
                    // The locks of the nearest other thread, up to a lock of a third one.
                    if *other.get_or_insert(t) != t {
                        break;
                    }
                    out.push(i);
                }
                out
            }
            _ => SmallVec::new(),
        };
        for (n, &i) in races.iter().enumerate() {
            if n > 0 && self.hb_target(i, &target) {
                continue;
            }
            self.reverse(i, &target);
            if n == 0 {
                // Once the nearest race is reversed, the target is treated as ordered after it,
                // so that the others are reversed relative to the new order and not twice.
                target.preds.push(i);
            }
        }
    }

    /// Schedules the reversal of path position `i` and `target` (FindTarget); a failure adds
    /// every enabled thread during BacktrackEager's pass, else is handed to it.
    fn reverse(&mut self, i: usize, target: &Target) {
        if let Reversal::Failed(at) = self.find_target(i, target, true) {
            if self.rule.in_eager {
                self.add_all_enabled(at);
            } else {
                // Handled once the execution ends (BacktrackEager).
                let depth = self.hb.len();
                let (a0, n0) = self.rule.failure.unwrap_or((at, depth));
                self.rule.failure = Some((a0.max(at), n0.max(depth)));
            }
        }
    }

    /// The races of a blocked handler (docs/em-dpor.md §4.5). While a looper's handler is
    /// blocked (its next operation disabled; at a stuck end every one is), no other handler of
    /// that looper can run, and which of them ran before it is decided by post order (FIFO). No
    /// access names this dependence: handlers queued behind never ran, and the earlier ones may
    /// touch nothing the blocked one touches. So the blocked handler races with every other
    /// handler of its looper, those called before it and those queued behind it, and
    /// FindTarget's diverging posts reverse the posts where nothing orders them. Without it,
    /// deadlocks that need another post order were lost (fixtures/em-regress/stuck-handler-*,
    /// blocked-handler-ran-after: there the handler is blocked only for a while in every run
    /// explored, so looking at stuck ends alone is not enough).
    fn blocked_handler_races(&mut self) {
        let top = self.frames.len() - 1;
        let len = self.hb.len();
        let call_of = |e: &Self, m: u32| e.model.handlers[m as usize].as_ref().and_then(|x| x.ops.first().copied());
        for p in 0..self.threads() {
            if self.frames[top].enabled.contains(p) {
                continue;
            }
            let Some(h) = self.frames[top].next_op(p).and_then(|op| self.handler_of(op)) else { continue };
            // Its CALL ran (a handler not yet called would be at the queue's front, enabled).
            let Some(at) = call_of(self, h).and_then(|c| self.hb.position(c)) else { continue };
            for k in 0..self.model.threads[p as usize].messages.len() {
                let m = self.model.threads[p as usize].messages[k];
                let Some(call_m) = call_of(self, m).filter(|_| m != h) else { continue };
                match self.hb.position(call_m) {
                    // Called before the blocked handler: try the blocked one first.
                    Some(i) => {
                        let target = self.executed_target(at);
                        self.reverse(i, &target);
                    }
                    // Queued behind it: try this one first.
                    None if self.queued_at(len, m) => {
                        let target = Target { thread: p, op: call_m, at: None, preds: SmallVec::new() };
                        self.reverse(at, &target);
                    }
                    None => {}
                }
            }
        }
    }

    /// Reordered posts: when post `op` runs after a post it was scheduled to be moved behind
    /// (recorded by FindTarget), that post happens before it, so the FIFO rule keeps their
    /// handlers in the new order and the search does not undo the reversal; `op`'s thread is
    /// also tried before that post, as EM-Explorer does.
    fn reordered_post_edge(&mut self, op: u32, extra: &mut SmallVec<[usize; 8]>) {
        let mut nearest: Option<usize> = None;
        for f in &self.rule.per_state {
            for &(src, dest) in &f.reordered {
                if dest == op {
                    if let Some(p) = self.hb.position(src) {
                        nearest = Some(nearest.map_or(p, |n: usize| n.max(p)));
                    }
                }
            }
        }
        if let Some(p) = nearest {
            extra.push(p);
            let t = self.model.op_thread[op as usize];
            self.frames[p].sets.backtrack.insert(t);
        }
    }

    /// The last write to `loc` on the path that does not happen before `target`.
    fn last_unordered_write(&self, loc: u32, target: &Target) -> Option<usize> {
        self.accesses_of(loc).iter().rev().filter(|a| a.1).map(|a| a.0 as usize).find(|&i| !self.hb_target(i, target))
    }

    /// FindTarget: schedules the reversal of path position `i` and `target`.
    fn find_target(&mut self, i: usize, target: &Target, first_call: bool) -> Reversal {
        let mut a = i;
        let mut b = target.clone();
        if !first_call && self.hb_target(a, &b) {
            return Reversal::Covered;
        }
        // Diverging posts: two handlers of one looper are reordered by reordering their posts.
        loop {
            let op_a = self.hb.op(a);
            if self.model.op_thread[op_a as usize] != b.thread || !self.in_handler(op_a) || !self.in_handler(b.op) {
                break;
            }
            let (Some(pa), Some(pb)) = (self.post_position(op_a), self.post_position(b.op)) else {
                break;
            };
            a = pa;
            b = self.executed_target(pb);
            if self.hb_target(a, &b) {
                // The posts are ordered: FIFO fixes the handlers' order.
                return Reversal::Covered;
            }
        }
        let f = &self.frames[a];
        let sleep = self.sleep.asleep(a);
        let mut cands = self.hb_candidates(a, &b, false);
        if f.enabled.contains(b.thread) {
            cands.insert(b.thread);
        }
        let mut fresh = ChoiceSet::default();
        let mut asleep = false;
        for t in cands.iter() {
            // `em-dpor-sleep`: a sleeping candidate is never run at `pre(a)` (sleep sets are empty
            // otherwise), so it cannot reveal the races its run would; as in `dpor-sleep`,
            // fall back to every enabled thread when only sleeping candidates are fresh.
            if sleep.contains(t) {
                asleep |= !f.sets.done.contains(t);
            } else if !f.sets.done.contains(t) {
                fresh.insert(t);
            }
        }
        if fresh.is_empty() && asleep {
            self.add_all_enabled(a);
        }
        if !fresh.is_empty() {
            self.add_one(a, &fresh);
            let op_a = self.hb.op(a);
            if self.post_dest(op_a).is_some() && self.post_dest(b.op).is_some() {
                let pair = (b.op, op_a);
                let reordered = &mut self.rule.per_state[a].reordered;
                if !reordered.contains(&pair) {
                    reordered.push(pair);
                    self.rule.reorderings += 1;
                }
            }
            return Reversal::Added;
        }
        // Candidates asleep at `pre(a)` are as good as done: their runs were explored from an
        // earlier state, and met the same queue, so a handler queued behind another is still
        // rescheduled (the fallback above alone lost an outcome: fixtures/em-regress/
        // sleeping-candidate-queued-behind).
        let pending = self.enqueued_blocked(a, &b);
        if !pending.is_empty() {
            return self.reschedule_pending(a, pending);
        }
        if asleep {
            return Reversal::Added;
        }
        if cands.is_empty() {
            Reversal::Failed(a)
        } else {
            Reversal::Covered
        }
    }

    /// Transitions after `a` that happen before `target` and whose handler is queued at
    /// `pre(a)` behind another one on an enabled looper: (looper, message) pairs.
    fn enqueued_blocked(&self, a: usize, target: &Target) -> SmallVec<[(Choice, u32); 4]> {
        let mut out: SmallVec<[(Choice, u32); 4]> = SmallVec::new();
        let end = target.at.unwrap_or(self.hb.len());
        let f = &self.frames[a];
        for k in a + 1..end {
            let op = self.hb.op(k);
            let t = self.model.op_thread[op as usize];
            if !f.enabled.contains(t) || !self.hb_target(k, target) {
                continue;
            }
            let (Some(m), Some(exec)) = (self.handler_of(op), self.executable_handler(f, t)) else {
                continue;
            };
            if m == exec || !self.queued_at(a, m) || out.contains(&(t, m)) {
                continue;
            }
            // If the handler now executable started before k and happens before it, k's
            // handler is behind it for a reason the queue order does not decide.
            let call = self.model.handlers[exec as usize].as_ref().and_then(|h| h.ops.first().copied());
            if call.and_then(|c| self.hb.position(c)).is_some_and(|c| c <= k && self.hb.happens_before(c, k)) {
                continue;
            }
            out.push((t, m));
        }
        out
    }

    /// reschedulePending: the candidate tasks are queued behind the handler executable at
    /// `pre(a)`; schedule reordering their posts with that handler's post (recursively, for
    /// loopers whose queued handlers happen before the end of such an executable handler).
    fn reschedule_pending(&mut self, a: usize, pending: SmallVec<[(Choice, u32); 4]>) -> Reversal {
        let exec_at = |e: &Self, t: Choice| e.executable_handler(&e.frames[a], t);
        let Some(&(first, _)) = pending.iter().min_by_key(|p| p.0) else {
            return Reversal::Covered;
        };
        let Some(exec0) = exec_at(self, first) else {
            return Reversal::Failed(a);
        };
        // Per looper: the queued handlers to move before its executable one.
        let mut swap: Vec<(Choice, SmallVec<[u32; 2]>)> = Vec::new();
        let m0 = pending.iter().filter(|p| p.0 == first).map(|p| p.1).min().unwrap_or(exec0);
        swap.push((first, SmallVec::from_slice(&[m0])));
        let mut work = vec![exec0];
        let mut seen = vec![exec0];
        while let Some(e) = work.pop() {
            let Some(h) = self.model.handlers[e as usize].as_ref() else {
                continue;
            };
            let Some(end) = h.ops.iter().rev().find_map(|&o| self.hb.position(o)) else {
                continue;
            };
            let end_target = self.executed_target(end);
            for (t, m) in self.enqueued_blocked(a, &end_target) {
                let Some(ex) = exec_at(self, t) else {
                    continue;
                };
                if !seen.contains(&ex) {
                    seen.push(ex);
                    work.push(ex);
                }
                match swap.iter_mut().find(|s| s.0 == t) {
                    Some(s) => {
                        if !s.1.contains(&m) {
                            s.1.push(m)
                        }
                    }
                    None => swap.push((t, SmallVec::from_slice(&[m]))),
                }
            }
        }
        let mut result = Reversal::Covered;
        for (t, msgs) in swap {
            let Some(ex) = exec_at(self, t) else {
                continue;
            };
            let post = |e: &Self, m: u32| e.model.handlers[m as usize].as_ref().and_then(|h| e.hb.position(h.post));
            // The latest-posted of the blocked handlers.
            let Some(pb) = msgs.iter().filter_map(|&m| post(self, m)).max() else {
                continue;
            };
            let Some(pa) = post(self, ex) else { continue };
            if pa >= pb {
                continue;
            }
            let tb = self.executed_target(pb);
            match self.find_target(pa, &tb, false) {
                Reversal::Failed(at) => result = Reversal::Failed(at),
                Reversal::Added if result == Reversal::Covered => result = Reversal::Added,
                _ => {}
            }
        }
        result
    }

    /// BacktrackEager, after an execution in which FindTarget failed: the path is walked again
    /// from the initial state with posts to one queue ordered as DPOR orders them; up to the
    /// deepest failing backtrack state `dpor_until` races are reversed with DPOR's rule (posts to
    /// one queue race), and those steps keep the post order in later walks; from there to the
    /// deepest state where a failure was found (`em_until`), EM-DPOR's rule runs again, a
    /// further failure adding every enabled thread. Then the path is rebuilt with the kept
    /// orders. Backtrack and done sets survive the walks; nothing here counts as explored.
    fn backtrack_eager(&mut self, dpor_until: usize, em_until: usize) {
        let choices = self.path.clone();
        self.unwind();
        for (depth, &c) in choices.iter().enumerate() {
            if depth > em_until {
                break;
            }
            for p in 0..self.threads() {
                let Some(op) = self.frames[depth].next_op(p) else {
                    continue;
                };
                if depth < dpor_until {
                    if depth > 0 {
                        self.dpor_races(p, op);
                    }
                } else {
                    self.rule.in_eager = true;
                    self.em_races(p, op);
                    self.rule.in_eager = false;
                }
            }
            if depth < dpor_until {
                self.rule.per_state[depth].dpor_run = true;
            }
            self.rewalk_step(depth, c, true);
        }
        self.unwind();
        for (depth, &c) in choices.iter().enumerate() {
            let keep = self.rule.per_state[depth].dpor_run;
            self.rewalk_step(depth, c, keep);
        }
        self.rule.kept.clear();
    }

    /// Pops the path to the initial state, keeping the sets of every state in `kept`.
    fn unwind(&mut self) {
        while self.frames.len() > 1 {
            let depth = self.frames.len() - 1;
            let sets = std::mem::take(&mut self.frames[depth].sets);
            let em = std::mem::take(&mut self.rule.per_state[depth]);
            // The pop no longer sees these pairs; rewalk_step counts them again.
            self.rule.reorderings -= em.reordered.len();
            self.rule.kept.push((depth, sets, em));
            self.pop_step();
        }
    }

    /// Re-takes `c` at `depth` and gives the new state back the sets it had.
    fn rewalk_step(&mut self, depth: usize, c: Choice, order_posts: bool) {
        self.rule.order_posts = order_posts;
        self.push_step(c);
        self.rule.order_posts = false;
        if let Some(k) = self.rule.kept.iter().rposition(|s| s.0 == depth + 1) {
            let (_, sets, em) = self.rule.kept.swap_remove(k);
            self.rule.reorderings += em.reordered.len();
            self.frames[depth + 1].sets = sets;
            self.rule.per_state[depth + 1] = em;
        }
    }
}

/// The `em-dpor` strategy.
#[derive(Default)]
pub struct EmDpor;

impl Strategy<EmModel> for EmDpor {
    fn name(&self) -> &'static str {
        "em-dpor"
    }

    fn run(&mut self, search: &mut Search<'_, EmModel>) {
        let mut engine = Engine::new(search.model, EmRace::default(), NoSleep::default());
        engine.run(search);
    }
}
