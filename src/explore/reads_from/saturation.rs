//! Saturation of the happens-before a node's constraints force (as RFSC and data-centric DPOR
//! saturate before searching; docs/optimal.md): starting from `hb0`, edges that every run
//! respecting the constraints must have are added until none is new; a cycle proves the node
//! blocked without a search, and the edges prune the witness search (an operation waits for its
//! new predecessors). Each rule, for operations in the end set:
//! - a read `r` fixed to write `w`: `w < r`; to the initial value: `r` before every write;
//!   every other write `w'` of the location: `w' < r` gives `w' < w`, `w < w'` gives `r < w'`;
//! - the final write fixed to `w`: every other write before `w`;
//! - critical sections of one lock on two threads: the one whose LOCK comes first is left
//!   (its UNLOCK, or never when it has none) before the other's LOCK;
//! - two handlers of one looper: the one posted first is called first and returns before the
//!   other is called (FIFO, one handler at a time); called first means posted first.
//!
//! # Representation and cost
//! The saturated order keeps `hb0`'s chains (src/explore/reads_from/statics.rs): every chain of
//! `hb0` is still a chain of a larger order, so an operation's saturated clock has one component
//! per chain, and `a < b` is one load. Only the clocks an added edge changes are stored (an
//! arena, with a journal to undo to), so a node costs what its edges reach, not n².
//! An edge `a -> b` joins `a`'s clock into `b`'s and pushes the change along the generating
//! edges of `hb0` and the edges added so far (an incremental closure, each operation visited
//! when its clock grows).
//!
//! The lock and handler rules are applied to the pairs whose condition can have become true:
//! a target (the later handler or section) is looked at again only when its clocks grew. Of the
//! earlier handlers (or sections) a target's clock reaches on one chain, only the latest is
//! taken: at the fixpoint every earlier one on that chain is already ordered before the latest
//! (by the same rule applied with the latest as target, or, for a section of the target's own
//! thread, by program order or the handler rule), so the edges to the latest imply theirs by
//! transitivity. Taking fewer pairs than the full rule would only add fewer edges, which the
//! witness search makes up for: the decision stays exact either way.
//!
//! The closure of `hb0` under the rules with no constraint (the *base*) is computed once per end
//! set; each node undoes to it.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::super::Search;
use super::statics::{bit, latest, Statics};
use super::{Constraints, FREE};
use crate::model::em::{EmModel, NEVER};

/// What a changed operation is for the lock and handler rules.
#[derive(Clone, Copy)]
enum Target {
    /// Handler (id into `Statics::handlers`) whose post or last operation it is.
    Handler(u32),
    /// Section (lock, index into `Statics::sections[lock]`) whose LOCK or UNLOCK it is.
    Section(u32, u32),
}

pub struct Saturation<'s, 'm> {
    st: &'s Statics<'m>,
    /// Per operation: its clock's slot in `arena`, or NEVER when it is `hb0`'s.
    slot: Vec<u32>,
    arena: Vec<u32>,
    /// (operation, previous slot) of each operation's first change in a level.
    journal: Vec<(u32, u32)>,
    /// Slots below this belong to the level below (the base, while deciding a node).
    level_start: u32,
    /// Edges added, per source; the sources in order, to undo.
    extra: FxHashMap<u32, SmallVec<[u32; 2]>>,
    extra_log: Vec<u32>,
    /// The base's marks: journal, arena slots, added edges.
    base: (usize, u32, usize),
    targets: FxHashMap<u32, SmallVec<[Target; 2]>>,
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
    work: std::collections::VecDeque<u32>,
    scratch: Vec<u32>,
}

/// Whether saturation found the constraints consistent, contradictory, or was stopped.
#[derive(PartialEq, Eq, Debug)]
pub enum Verdict {
    Consistent,
    Blocked,
    Stopped,
}

impl<'s, 'm> Saturation<'s, 'm> {
    pub fn new(st: &'s Statics<'m>) -> Self {
        let mut targets: FxHashMap<u32, SmallVec<[Target; 2]>> = FxHashMap::default();
        for (h, &(_, p, _, l)) in st.handlers.iter().enumerate() {
            targets.entry(p).or_default().push(Target::Handler(h as u32));
            targets.entry(l).or_default().push(Target::Handler(h as u32));
        }
        for (lock, secs) in st.sections.iter().enumerate() {
            for (i, &(_, a, u)) in secs.iter().enumerate() {
                let t = Target::Section(lock as u32, i as u32);
                targets.entry(a).or_default().push(t);
                if u != NEVER {
                    targets.entry(u).or_default().push(t);
                }
            }
        }
        Saturation {
            st,
            slot: vec![NEVER; st.n],
            arena: Vec::new(),
            journal: Vec::new(),
            level_start: 0,
            extra: FxHashMap::default(),
            extra_log: Vec::new(),
            base: (0, 0, 0),
            targets,
            dirty: Vec::new(),
            is_dirty: vec![false; st.n],
            work: Default::default(),
            scratch: Vec::new(),
        }
    }

    /// The saturated clock of `x`.
    #[inline]
    fn clock(&self, x: u32) -> &[u32] {
        let w = self.st.width;
        match self.slot[x as usize] {
            NEVER => self.st.clock(x),
            s => &self.arena[s as usize * w..(s as usize + 1) * w],
        }
    }

    /// `a` before `b` (a != b) in the saturated order.
    #[inline]
    pub fn before(&self, a: u32, b: u32) -> bool {
        a != b && self.clock(b)[self.st.chain[a as usize] as usize] >= self.st.index_on[a as usize]
    }

    /// Undoes the level above `journal_mark`, `slots`, `extra_mark`.
    fn undo(&mut self, (journal_mark, slots, extra_mark): (usize, u32, usize)) {
        while self.journal.len() > journal_mark {
            let (x, old) = self.journal.pop().expect("longer than the mark");
            self.slot[x as usize] = old;
        }
        self.arena.truncate(slots as usize * self.st.width);
        while self.extra_log.len() > extra_mark {
            let a = self.extra_log.pop().expect("longer than the mark");
            if let Some(v) = self.extra.get_mut(&a) {
                v.pop();
            }
        }
        for x in self.dirty.drain(..) {
            self.is_dirty[x as usize] = false;
        }
        self.level_start = slots;
    }

    fn slots(&self) -> u32 {
        (self.arena.len() / self.st.width) as u32
    }

    /// Joins `from` into the clock of `x`; whether it grew.
    fn join(&mut self, x: u32, from: &[u32]) -> bool {
        let cur = self.clock(x);
        if cur.iter().zip(from).all(|(a, b)| a >= b) {
            return false;
        }
        let w = self.st.width;
        let s = self.slot[x as usize];
        if s == NEVER || s < self.level_start {
            let new = self.slots();
            let copy: SmallVec<[u32; 32]> = SmallVec::from_slice(self.clock(x));
            self.arena.extend_from_slice(&copy);
            self.journal.push((x, s));
            self.slot[x as usize] = new;
        }
        let s = self.slot[x as usize] as usize;
        for (a, &b) in self.arena[s * w..(s + 1) * w].iter_mut().zip(from) {
            *a = (*a).max(b);
        }
        if !self.is_dirty[x as usize] {
            self.is_dirty[x as usize] = true;
            self.dirty.push(x);
        }
        true
    }

    /// Adds `a < b` and pushes its consequences along the edges; false on a cycle.
    fn add(&mut self, a: u32, b: u32, changed: &mut bool, search: &mut Search<'_, EmModel>) -> bool {
        if a == b || self.before(b, a) {
            return false;
        }
        if self.before(a, b) {
            return true;
        }
        *changed = true;
        self.extra.entry(a).or_default().push(b);
        self.extra_log.push(a);
        let mut from = std::mem::take(&mut self.scratch);
        from.clear();
        from.extend_from_slice(self.clock(a));
        self.join(b, &from);
        self.work.push_back(b);
        let st = self.st;
        while let Some(x) = self.work.pop_front() {
            if search.poll() {
                self.work.clear();
                break;
            }
            from.clear();
            from.extend_from_slice(self.clock(x));
            let (s0, s1) = (st.succ_start[x as usize] as usize, st.succ_start[x as usize + 1] as usize);
            for i in s0..s1 {
                let y = st.succ[i];
                if self.join(y, &from) {
                    self.work.push_back(y);
                }
            }
            let n_extra = self.extra.get(&x).map_or(0, |v| v.len());
            for i in 0..n_extra {
                let y = self.extra[&x][i];
                if self.join(y, &from) {
                    self.work.push_back(y);
                }
            }
        }
        self.scratch = from;
        true
    }

    /// The lock and handler rules for every target whose clocks grew; false on a cycle.
    fn rules(&mut self, end: &[u64], changed: &mut bool, search: &mut Search<'_, EmModel>) -> bool {
        let st = self.st;
        let in_end = |x: u32| x != NEVER && bit(end, x as usize);
        while let Some(x) = self.dirty.pop() {
            self.is_dirty[x as usize] = false;
            if search.poll() {
                return true;
            }
            let Some(ts) = self.targets.get(&x).cloned() else { continue };
            for t in ts {
                match t {
                    Target::Handler(h2) => {
                        let (looper, p2, f2, l2) = st.handlers[h2 as usize];
                        if !in_end(f2) {
                            continue;
                        }
                        // Earlier handlers: called before h2 ends, or posted before h2's post.
                        let mut found: SmallVec<[u32; 8]> = SmallVec::new();
                        for (on, of) in [(&st.calls_on[looper as usize], l2), (&st.posts_on[looper as usize], p2)] {
                            let k = self.clock(of);
                            for (c, list) in on {
                                if let Some(i) = latest(list, k[*c as usize], h2) {
                                    found.push(list[i].1);
                                }
                            }
                        }
                        for h1 in found {
                            let (_, p1, f1, l1) = st.handlers[h1 as usize];
                            if !in_end(f1) {
                                continue;
                            }
                            if !self.add(p1, p2, changed, search) || !self.add(l1, f2, changed, search) {
                                return false;
                            }
                        }
                    }
                    Target::Section(lock, i2) => {
                        let (t2, a2, u2) = st.sections[lock as usize][i2 as usize];
                        if !in_end(a2) {
                            continue;
                        }
                        let of = if u2 != NEVER { u2 } else { a2 };
                        let mut found: SmallVec<[u32; 8]> = SmallVec::new();
                        let k = self.clock(of);
                        for (c, list) in &st.sections_on[lock as usize] {
                            let Some(mut i) = latest(list, k[*c as usize], i2) else { continue };
                            // A section of the target's thread: ordered before it by program
                            // order or the handler rule, and the earlier ones before it.
                            // Sections left open or outside the end set are passed over.
                            for _ in 0..8 {
                                let (t1, a1, u1) = st.sections[lock as usize][list[i].1 as usize];
                                if t1 == t2 {
                                    break;
                                }
                                if u1 != NEVER && in_end(a1) {
                                    found.push(list[i].1);
                                    break;
                                }
                                match i.checked_sub(1) {
                                    Some(j) if list[j].1 != i2 => i = j,
                                    _ => break,
                                }
                            }
                        }
                        for i1 in found {
                            let (_, _, u1) = st.sections[lock as usize][i1 as usize];
                            // Left open (its task stuck inside, so its thread too): never free.
                            if !in_end(u1) || !self.add(u1, a2, changed, search) {
                                return false;
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// The rules on reads and final writes, for the constraints of `c`; false on a cycle.
    fn values(&mut self, c: &Constraints, changed: &mut bool, search: &mut Search<'_, EmModel>) -> bool {
        let st = self.st;
        let in_end = |x: u32| bit(&c.end, x as usize);
        for &loc in &c.touched {
            let writes: SmallVec<[u32; 8]> = st.writes[loc as usize].iter().copied().filter(|&w| in_end(w)).collect();
            for &r in &c.constrained[loc as usize] {
                let v = c.read[r as usize];
                if v == 0 {
                    for &w2 in &writes {
                        if !self.add(r, w2, changed, search) {
                            return false;
                        }
                    }
                    continue;
                }
                let w = st.op_of_index[&v];
                if !self.add(w, r, changed, search) {
                    return false;
                }
                for &w2 in writes.iter().filter(|&&w2| w2 != w) {
                    if self.before(w2, r) && !self.add(w2, w, changed, search) {
                        return false;
                    }
                    if self.before(w, w2) && !self.add(r, w2, changed, search) {
                        return false;
                    }
                }
            }
            let f = c.fin[loc as usize];
            if f == 0 {
                if !writes.is_empty() {
                    return false;
                }
            } else if f != FREE {
                let f = st.op_of_index[&f];
                for &w2 in writes.iter().filter(|&&w2| w2 != f) {
                    if !self.add(w2, f, changed, search) {
                        return false;
                    }
                }
            }
        }
        true
    }

    fn fixpoint(&mut self, c: Option<&Constraints>, end: &[u64], search: &mut Search<'_, EmModel>) -> Verdict {
        loop {
            let mut changed = false;
            let ok = match c {
                Some(c) => self.values(c, &mut changed, search),
                None => true,
            };
            let ok = ok && self.rules(end, &mut changed, search);
            if search.stopped() {
                return Verdict::Stopped;
            }
            if !ok {
                return Verdict::Blocked;
            }
            if !changed {
                return Verdict::Consistent;
            }
        }
    }

    /// The base for end set `end`: `hb0` closed under the lock and handler rules.
    pub fn set_end(&mut self, end: &[u64], search: &mut Search<'_, EmModel>) -> Verdict {
        self.undo((0, 0, 0));
        self.level_start = 0;
        let mut all: Vec<u32> = self.targets.keys().copied().collect();
        all.sort_unstable();
        for x in all {
            self.is_dirty[x as usize] = true;
            self.dirty.push(x);
        }
        let v = self.fixpoint(None, end, search);
        self.base = (self.journal.len(), self.slots(), self.extra_log.len());
        self.level_start = self.slots();
        v
    }

    /// Saturates the order for `c` (from the base of its end set) and stores each operation's
    /// new predecessors in `c.after`.
    pub fn run(&mut self, c: &mut Constraints, search: &mut Search<'_, EmModel>) -> Verdict {
        self.undo(self.base);
        let v = self.fixpoint(Some(&*c), &c.end, search);
        if v != Verdict::Consistent {
            return v;
        }
        // Per changed operation: per chain where the saturated clock passes `hb0`'s, the
        // operation at that index (its predecessors there follow on the chain).
        c.after.clear();
        let st = self.st;
        for &(x, _) in &self.journal {
            if !bit(&c.end, x as usize) || c.after.contains_key(&x) {
                continue;
            }
            let (sat, hb) = (self.clock(x), st.clock(x));
            let mut frontier: SmallVec<[u32; 4]> = SmallVec::new();
            for (k, (&s, &h)) in sat.iter().zip(hb).enumerate() {
                if s > h {
                    frontier.push(st.chain_ops[k][s as usize - 1]);
                }
            }
            c.after.insert(x, frontier);
        }
        Verdict::Consistent
    }
}
