//! Backtracking from the state transition graph (Trimananda et al., VMCAI 2022, Algorithms 3 and
//! 5, with the summaries of Appendix D): the backwards search that sets backtrack points along
//! every path of R reaching a transition. Split from mod.rs, whose header has the soundness
//! argument; the literal search (no summaries) is in literal.rs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::summary::{gather, PairId, NONE};
use super::*;
use crate::explore::sets::SetArena;

impl<'a, M: Model> Run<'a, M> {
    /// Line 9-12 of Algorithm 5: `src` is where a transition conflicting with one of event `e`
    /// was taken; `e` is explored there too (everything enabled when `e` was not).
    pub(super) fn conflict_at(&mut self, src: u32, e: Choice) {
        self.hit_events[e as usize / 64] |= 1 << (e % 64);
        Self::backtrack_for(&mut self.sets, &mut self.dirty, src, &self.hit_events);
        self.hit_events.fill(0);
    }

    /// Lines 8-16 of Algorithm 5 for predecessor `tb` and carried pair `p`: sets the backtrack
    /// point if they conflict, and returns what goes on past `tb`.
    pub(super) fn meet(&mut self, tb: u32, p: PairId) -> Option<PairId> {
        let Edge { src, label, row, .. } = self.edges[tb as usize];
        let (conflict, next) = self.pairs.meet(label, row, p);
        if conflict {
            self.conflict_at(src, self.pairs.event(p));
        }
        next
    }

    /// Algorithm 5, UpdateBacktrackSet(t).
    pub(super) fn update_backtrack_set(&mut self, t: u32, search: &mut Search<'_, M>) {
        let (src, p) = (self.edges[t as usize].src, self.edges[t as usize].label);
        if self.opts.no_graph_backtrack {
            self.stack_walk(None, p);
        } else if self.opts.no_summaries {
            self.literal_dfs(t, p, search);
        } else {
            self.begin_search();
            if !self.fresh_writes.is_empty() {
                // Reads of these objects were left behind while nothing wrote them (see
                // `Pairs::trim`): carry them now, from every edge that has them.
                let fresh = std::mem::take(&mut self.fresh_writes);
                for r in 0..self.edges.len() {
                    let (r_src, label) = (self.edges[r].src, self.edges[r].label);
                    if self.pairs.reads_any(label, &fresh) {
                        if let Some(q) = self.pairs.trim(label) {
                            self.arrive(r_src, q);
                        }
                    }
                }
            }
            if let Some(q) = self.pairs.trim(p) {
                self.arrive(src, q);
            }
            if self.opts.eager_search {
                self.finish_search(search);
            }
            if self.opts.no_match_update {
                // Without the replay at a state match, what the search carries through an edge
                // into a known state depends on whether it reaches that state before or after
                // the edge exists: run it now, as the ablation always has.
                self.finish_search(search);
            }
        }
    }

    /// The backwards search from the transitions blocked in a new state `n` (see
    /// [`Model::blocked`]), as if each had been taken there: the pair (event, its accesses and
    /// a read of its flag) arrives at `n`. A LOCK blocked by another thread's acquire then sets
    /// the backtrack point before that acquire, which no executed transition would: the run in
    /// which it goes first may never execute it at all (it deadlocks). The summaries carry such
    /// pairs through later edges into `n` like any other; the literal modes, which have no
    /// summaries, keep them per state ([`Run::blocked_pairs`]) and walk back from them.
    pub(super) fn look_back_from_blocked(&mut self, n: u32, t: u32, search: &mut Search<'_, M>) {
        let literal = self.opts.no_summaries || self.opts.no_graph_backtrack;
        let mut acc = std::mem::take(&mut self.scratch_acc);
        for c in 0..self.model.choices() {
            acc.clear();
            if self.sets.contains(n, ENABLED, c) || !self.model.blocked(self.state_of(n), c, &mut acc) {
                continue;
            }
            acc.push(Access { object: flag_object(c), write: false });
            acc.sort();
            let Some(p) = self.pairs.intern(c, &acc) else { continue };
            if literal {
                // No summary stands for the pair: keep it for later state matches, and walk
                // back from `n` now as the mode walks back from an edge.
                self.blocked_pairs.entry(n).or_default().push(p);
                self.look_back_literal(n, Some(t), p, search);
            } else if let Some(q) = self.pairs.trim(p) {
                self.begin_search();
                self.arrive(n, q);
            }
        }
        self.scratch_acc = acc;
        if self.opts.eager_search {
            self.finish_search(search);
        }
    }

    /// The backwards search of the literal modes for pair `p` arriving at state `n`: along the
    /// stack through `via` (the edge that reached `n`, if not on the stack yet) for
    /// `no_graph_backtrack`, else along every path of R into `n`.
    pub(super) fn look_back_literal(&mut self, n: u32, via: Option<u32>, p: PairId, search: &mut Search<'_, M>) {
        if self.opts.no_graph_backtrack {
            self.stack_walk(via, p);
        } else {
            self.literal_dfs_from(n, None, p, search);
        }
    }

    /// Makes room in every summary for all pairs interned so far.
    pub(super) fn grow_summaries(&mut self) {
        self.summaries.grow(self.pairs.len().div_ceil(64));
    }

    /// Adds `bits` (word `w`) to the new pairs of `n` that still have to cross its in-edges.
    pub(super) fn add_delta(&mut self, n: u32, w: usize, bits: u64) {
        let mut slot = self.queued[n as usize];
        if slot == NONE {
            slot = match self.free_deltas.pop() {
                Some(s) => s,
                None => {
                    self.deltas.push(Vec::new());
                    self.deltas.len() as u32 - 1
                }
            };
            self.deltas[slot as usize].clear();
            self.queued[n as usize] = slot;
            self.queue.push(n);
        }
        let d = &mut self.deltas[slot as usize];
        if d.len() <= w {
            d.resize(w + 1, 0);
        }
        d[w] |= bits;
    }

    /// Summary search: pair `p` has reached state `n` going backwards.
    pub(super) fn arrive(&mut self, n: u32, p: PairId) {
        self.grow_summaries();
        self.arrive_word(n, p as usize / 64, 1 << (p % 64));
    }

    /// Carries the pairs of `set` back through an edge (`src`, `label`, row `r`) (lines 8-16 of Algorithm 5 for each), into
    /// the summary of its source; the ones new there are queued to go on.
    /// `nz` lists the words of `set` that are not zero.
    pub(super) fn cross(&mut self, set: &[u64], nz: &[u32], src: u32, label: PairId, r: u32) {
        let mut hits = false;
        for &w in nz {
            let w = w as usize;
            let (pass, hit) = self.meet_word(set, w, label, r);
            hits |= hit;
            // Pairs with no access conflicting with the edge go on unchanged, a word at a time.
            self.arrive_word(src, w, pass);
        }
        if hits {
            self.apply_hits(src);
        }
    }

    /// Lines 8-16 of Algorithm 5 for the pairs of word `w` of `set` (not zero) and an edge
    /// labelled `label` (row `r`): returns those that go on unchanged, and whether some conflict;
    /// the conflicting ones' events are added to `hit_events` and what is left of them (line 14)
    /// to `hit_pairs`.
    #[inline]
    pub(super) fn meet_word(&mut self, set: &[u64], w: usize, label: PairId, r: u32) -> (u64, bool) {
        let d = set[w];
        let [mut known, mut pass] = self.pairs.row_ref(r).word(w);
        if d & !known != 0 {
            self.pairs.classify_all(label, r, &set[..=w]);
            [known, pass] = self.pairs.row_ref(r).word(w);
        }
        debug_assert_eq!(d & !known, 0);
        let hit = d & !pass;
        if hit != 0 {
            self.pairs.cross_hits(r, w, hit, &mut self.hit_events, &mut self.hit_pairs, &mut self.hit_touched);
        }
        (d & pass, hit != 0)
    }

    /// [`Run::cross`] for the whole summary of `dst` through edge `t` at a state match. Summaries
    /// repeat (states share them) and an event's edges share a label, so what a (label,
    /// summary) gives is remembered and, when it comes back, applied at once.
    pub(super) fn cross_whole(&mut self, dst: u32, t: u32) {
        let (src, label, r) = {
            let e = &self.edges[t as usize];
            (e.src, e.label, e.row)
        };
        // Numbering a summary and looking it up costs about as much as crossing a short one;
        // and where summaries seldom repeat (acyclic, bounded models) numbering them and keeping
        // what they gave is wasted: the memo is for long summaries, and pauses itself then.
        let id = if self.pairs.len() > WHOLE_MEMO_PAIRS && self.whole_crossings.active() {
            let id = self.summaries.id(dst);
            let crossings = std::mem::take(&mut self.whole_crossings);
            let hit = match crossings.recall(r, id) {
                Some((pairs, events)) => {
                    Self::backtrack_for(&mut self.sets, &mut self.dirty, src, events);
                    self.grow_summaries();
                    for (w, &q) in pairs.iter().enumerate() {
                        self.arrive_word(src, w, q);
                    }
                    true
                }
                None => false,
            };
            self.whole_crossings = crossings;
            self.whole_crossings.note(hit);
            if hit {
                return;
            }
            Some(id)
        } else {
            None
        };
        let mut set = std::mem::take(&mut self.scratch_bits);
        set.clear();
        set.extend_from_slice(self.summaries.of(dst));
        while set.last() == Some(&0) {
            set.pop();
        }
        for w in 0..set.len() {
            if set[w] != 0 {
                let (pass, _) = self.meet_word(&set, w, label, r);
                if pass != 0 {
                    gather(&mut self.hit_pairs, &mut self.hit_touched, w, pass);
                }
            }
        }
        if let Some(id) = id {
            self.whole_crossings.remember(r, id, &self.hit_pairs, &self.hit_events);
        }
        self.scratch_bits = set;
        self.apply_hits(src);
    }

    /// Lines 9-12 of Algorithm 5 for every event gathered in `hit_events` at once (backtrack for
    /// each where it is enabled, everything enabled if one of them is not), then the pairs
    /// gathered in `hit_pairs` arrive at `src`; both scratch sets are left zero.
    pub(super) fn apply_hits(&mut self, src: u32) {
        Self::backtrack_for(&mut self.sets, &mut self.dirty, src, &self.hit_events);
        self.hit_events.fill(0);
        self.grow_summaries();
        let touched = std::mem::take(&mut self.hit_touched);
        for &w in &touched {
            let w = w as usize;
            let q = std::mem::take(&mut self.hit_pairs[w]);
            self.arrive_word(src, w, q);
        }
        self.hit_touched = touched;
        self.hit_touched.clear();
    }

    /// Lines 9-12 of Algorithm 5 for every event of `events` at once: backtrack for each where
    /// it is enabled at `src`, for everything enabled if one of them is not.
    pub(super) fn backtrack_for(
        sets: &mut SetArena<SETS>,
        dirty: &mut BinaryHeap<Reverse<u32>>,
        src: u32,
        events: &[u64],
    ) {
        let [en, bt, done, _] = sets.block_mut(src);
        let all = events.iter().zip(en.iter()).any(|(e, en)| e & !en != 0);
        let mut grew = false;
        for i in 0..en.len() {
            let add = if all { en[i] } else { events[i] };
            let new = add & !bt[i];
            bt[i] |= new;
            grew |= new & !done[i] != 0;
        }
        if grew {
            dirty.push(Reverse(src));
        }
    }

    /// The pairs `q` of word `w` arrive at `src`; the new ones are queued to go on.
    #[inline]
    pub(super) fn arrive_word(&mut self, src: u32, w: usize, q: u64) {
        if q == 0 {
            return;
        }
        let new = self.summaries.add(src, w, q);
        if new != 0 {
            self.add_delta(src, w, new);
        }
    }

    /// Notes that a backwards search is being queued.
    pub(super) fn begin_search(&mut self) {
        self.search_queued = true;
    }

    /// Runs the queued backwards search, if any, to its end.
    pub(super) fn finish_search(&mut self, search: &mut Search<'_, M>) {
        if std::mem::take(&mut self.search_queued) {
            self.drain(search);
        }
    }

    /// Whether the queued backwards search cannot change what Explore picks at `n`: the search
    /// adds to backtrack(n) only events enabled at `n` and only through an edge out of `n`; Explore
    /// picks the lowest event of backtrack(n) \ done(n), else the lowest of enabled(n) \ done(n),
    /// else re-fires a done one. So it cannot matter when `n` has no out-edge yet, when every
    /// enabled event is done, or when the lowest enabled event not done is already in backtrack(n).
    pub(super) fn choice_settled(&self, n: u32) -> bool {
        if self.nodes[n as usize].first_out == NONE {
            return true;
        }
        let (en, bt, done) = (self.sets.get(n, ENABLED), self.sets.get(n, BACKTRACK), self.sets.get(n, DONE));
        for i in 0..en.len() {
            let open = en[i] & !done[i];
            if open != 0 {
                return bt[i] & open & open.wrapping_neg() != 0;
            }
        }
        true
    }

    /// Runs the backwards search to its end (or until a limit stops the whole search).
    pub(super) fn drain(&mut self, search: &mut Search<'_, M>) {
        while let Some(n) = self.queue.pop() {
            let slot = self.queued[n as usize];
            self.queued[n as usize] = NONE;
            self.free_deltas.push(slot);
            if search.poll() {
                while let Some(m) = self.queue.pop() {
                    self.free_deltas.push(self.queued[m as usize]);
                    self.queued[m as usize] = NONE;
                }
                break;
            }
            let mut carry = std::mem::take(&mut self.carry);
            std::mem::swap(&mut carry, &mut self.deltas[slot as usize]);
            // The in-edges first, with a prefetch of where each crossing writes in its source's
            // summary: the sources are scattered, and a state can have many in-edges.
            let mut ins = std::mem::take(&mut self.scratch_in);
            ins.clear();
            let mut t = self.first_in[n as usize];
            while t != NONE {
                let e = &self.edges[t as usize];
                ins.push([e.src, e.label, e.row]);
                t = e.next_in;
            }
            let mut nz = std::mem::take(&mut self.carry_words);
            nz.clear();
            nz.extend((0..carry.len() as u32).filter(|&w| carry[w as usize] != 0));
            let first_word = nz.first().map_or(0, |&w| w as usize);
            for &[src, _, _] in &ins {
                self.summaries.prefetch(src, first_word);
            }
            for &[src, label, r] in &ins {
                self.cross(&carry, &nz, src, label, r);
            }
            self.scratch_in = ins;
            self.carry = carry;
            self.carry_words = nz;
        }
    }

    /// Algorithm 3: after edge `t` reached a known state, set the backtrack points that the
    /// transitions reachable from it would have set had they been explored again.
    pub(super) fn update_from_graph(&mut self, t: u32, search: &mut Search<'_, M>) {
        if self.opts.no_match_update {
            return;
        }
        let dst = self.edges[t as usize].dst;
        if dst == NONE {
            return;
        }
        if !self.opts.no_graph_backtrack && !self.opts.no_summaries {
            // Appendix D: the summary of dst stands for everything reachable from it.
            self.begin_search();
            self.cross_whole(dst, t);
            if self.opts.eager_search {
                self.finish_search(search);
            }
            return;
        }
        // Forward reachability over R from dst.
        let mut seen = FxHashSet::default();
        let mut todo = vec![dst];
        let mut reach = Vec::new();
        seen.insert(dst);
        while let Some(n) = todo.pop() {
            if search.poll() {
                return;
            }
            let mut r = self.nodes[n as usize].first_out;
            while r != NONE {
                reach.push(r);
                let d = self.edges[r as usize].dst;
                if d != NONE && seen.insert(d) {
                    todo.push(d);
                }
                r = self.edges[r as usize].next_out;
            }
        }
        // Transitions blocked in the reachable states, as their own look-back started them.
        let blocked: Vec<(u32, PairId)> = seen
            .iter()
            .filter_map(|m| self.blocked_pairs.get(m).map(|ps| (*m, ps)))
            .flat_map(|(m, ps)| ps.iter().map(move |&p| (m, p)))
            .collect();
        for (m, p) in blocked {
            if self.opts.no_graph_backtrack {
                self.stack_walk(Some(t), p);
            } else {
                self.literal_dfs_from(m, None, p, search);
            }
        }
        for r in reach {
            if search.poll() {
                return;
            }
            let p = self.edges[r as usize].label;
            if self.opts.no_graph_backtrack {
                // Yang et al.: the reachable transition against the current stack, through t.
                self.stack_walk(Some(t), p);
            } else {
                self.literal_dfs(r, p, search);
            }
        }
    }
}
