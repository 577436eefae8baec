//! What the backwards search carries, numbered densely so that a state's Appendix D summary is a
//! bitset.
//!
//! The search carries pairs (event to backtrack for, accesses still looking for a conflict).
//! Few distinct pairs occur (a few hundred on the generated 78-event models, where states hold
//! a hundred or more each), so each pair gets a dense [`PairId`] and a summary is one bit per
//! pair. An edge's label is a pair too: its event and its accesses. Meeting a carried pair with
//! an edge (lines 8-16 of Algorithm 5) depends only on the two pairs, so it is computed once per
//! (label, pair) and kept per label as two bitsets (pairs met so far, and those of them that
//! pass unchanged because nothing conflicts) plus the results of the conflicting ones. A whole
//! summary then crosses an edge a word at a time; a word of conflicting pairs is looked at one
//! by one the first time, and what it gave is kept in a few ways per label word (the same words
//! come back: states share their summaries).

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::model::{Accesses, Choice};

/// Dense id of an (event, access list) pair.
pub type PairId = u32;

/// Absent (no node, no edge, no pair).
pub(super) const NONE: u32 = u32::MAX;

/// Adds bit `i` to a sparse bitset kept as (word, bits): the few words a word of hits reaches.
fn add_bit<const N: usize>(sparse: &mut SmallVec<[(u32, u64); N]>, i: u32)
where
    [(u32, u64); N]: smallvec::Array<Item = (u32, u64)>,
{
    let (w, m) = (i / 64, 1u64 << (i % 64));
    match sparse.iter_mut().find(|(x, _)| *x == w) {
        Some((_, bits)) => *bits |= m,
        None => sparse.push((w, m)),
    }
}

/// ORs sparse (word, bits) into a bitset, growing it as needed.
#[inline]
fn add_words(words: &mut Vec<u64>, sparse: &[(u32, u64)]) {
    for &(w, bits) in sparse {
        if bits == 0 {
            continue;
        }
        let w = w as usize;
        if w >= words.len() {
            words.resize(w + 1, 0);
        }
        words[w] |= bits;
    }
}

/// Remembered crossings of a whole summary through an edge label: (row, summary number, see
/// [`Summaries::id`]) -> (pairs that go on, events to backtrack for). Forgotten wholesale when it
/// grows past a bound.
#[derive(Default)]
pub(super) struct WholeCrossings {
    index: FxHashMap<(u32, u32), u32>,
    /// Per entry: pairs, events, as (start, len) in `words`.
    entries: Vec<[(u32, u32); 2]>,
    words: Vec<u64>,
    /// Lookups and hits in the current window of [`WholeCrossings::WINDOW`] lookups.
    lookups: u32,
    hits: u32,
    /// Crossings left before the memo is tried again, after a window with too few hits.
    paused: u32,
}

impl WholeCrossings {
    const WINDOW: u32 = 4096;
    const PAUSE: u32 = 1 << 16;

    /// Whether to use the memo for this crossing: not for a while after a window in which
    /// fewer than half the lookups hit (summaries that seldom repeat, as in acyclic models,
    /// would only be numbered and kept for nothing).
    #[inline]
    pub(super) fn active(&mut self) -> bool {
        if self.paused > 0 {
            self.paused -= 1;
            return false;
        }
        true
    }

    /// Counts a lookup (`hit`: it was remembered).
    #[inline]
    pub(super) fn note(&mut self, hit: bool) {
        self.lookups += 1;
        self.hits += u32::from(hit);
        if self.lookups == Self::WINDOW {
            if self.hits < Self::WINDOW / 2 {
                self.paused = Self::PAUSE;
            }
            self.lookups = 0;
            self.hits = 0;
        }
    }

    /// 16 MiB of remembered words at most.
    const MAX_WORDS: usize = 1 << 21;

    /// What crossing summary `id` through row `r` gave, if remembered: (pairs, events).
    #[inline]
    pub(super) fn recall(&self, r: u32, id: u32) -> Option<(&[u64], &[u64])> {
        let &i = self.index.get(&(r, id))?;
        let [p, e] = self.entries[i as usize];
        let slice = |(start, len): (u32, u32)| &self.words[start as usize..(start + len) as usize];
        Some((slice(p), slice(e)))
    }

    /// Keeps what crossing summary `id` through row `r` gave.
    pub(super) fn remember(&mut self, r: u32, id: u32, pairs: &[u64], events: &[u64]) {
        let pairs = &pairs[..pairs.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1)];
        if self.words.len() + pairs.len() + events.len() > Self::MAX_WORDS {
            self.index.clear();
            self.entries.clear();
            self.words.clear();
        }
        let mut put = |x: &[u64]| {
            let start = self.words.len() as u32;
            self.words.extend_from_slice(x);
            (start, x.len() as u32)
        };
        let entry = [put(pairs), put(events)];
        self.index.insert((r, id), self.entries.len() as u32);
        self.entries.push(entry);
    }
}

/// Every state's Appendix D summary, one bit per pair, a state's words side by side (`stride`
/// words per state, doubled when the pairs outgrow it): crossing an edge with a whole summary
/// (at a state match) then reads two runs of adjacent words rather than a cache line per word.
#[derive(Default)]
pub struct Summaries {
    #[doc(hidden)]
    pub words: Vec<u64>,
    #[doc(hidden)]
    pub stride: usize,
    states: usize,
    /// Per state, the number of its summary's content in `ids` ([`NONE`]: not known, as it
    /// changed since): states share few distinct summaries.
    sid: Vec<u32>,
    /// Distinct summaries seen (trailing zero words cut), numbered in order; forgotten
    /// wholesale (numbers are not reused) when they grow past a bound.
    ids: FxHashMap<Box<[u64]>, u32>,
    id_words: usize,
    next_id: u32,
}

/// Summaries grow by a this-th part at a time (states, and words per state).
const HEADROOM: usize = 16;

impl Summaries {
    /// 16 MiB of distinct summaries at most.
    const MAX_ID_WORDS: usize = 1 << 21;

    /// Adds an empty summary for a new state.
    pub fn push_state(&mut self) {
        self.states += 1;
        self.sid.push(NONE);
        // Grown by a sixteenth at a time, not doubled: summaries are most of the memory, and
        // one growth is what can pass `--max-memory` before the search sees it.
        let need = self.states * self.stride;
        if need > self.words.capacity() {
            self.words.reserve_exact((need - self.words.len()).max(need / HEADROOM));
        }
        self.words.resize(need, 0);
    }

    /// Makes room for `n` words per state.
    pub fn grow(&mut self, n: usize) {
        if n <= self.stride {
            return;
        }
        // A sixteenth more at a time, in place: each growth moves every summary, as pairs appear
        // one by one, and a second array beside the first would double the peak memory.
        let (old, stride) = (self.stride, n.max(self.stride + self.stride.div_ceil(HEADROOM)).max(1));
        let need = self.states * stride;
        self.words.reserve_exact(need + need / HEADROOM - self.words.len());
        self.words.resize(need, 0);
        // From the last state down: a state's new place starts at or after its old one, past
        // the old places of the states below it.
        for s in (0..self.states).rev() {
            self.words.copy_within(s * old..(s + 1) * old, s * stride);
            self.words[s * stride + old..(s + 1) * stride].fill(0);
        }
        self.stride = stride;
    }

    /// Adds the pairs `q` of word `w` to state `n`'s summary (room made by
    /// [`Summaries::grow`]); returns those that are new there.
    #[inline]
    pub fn add(&mut self, n: u32, w: usize, q: u64) -> u64 {
        debug_assert!(w < self.stride);
        let word = &mut self.words[n as usize * self.stride + w];
        let new = q & !*word;
        if new != 0 {
            *word |= new;
            self.sid[n as usize] = NONE;
        }
        new
    }

    /// The number of state `n`'s summary content: equal numbers, equal summaries (and,
    /// between two [`Summaries::id`] calls that return the same number, the reverse too).
    pub(super) fn id(&mut self, n: u32) -> u32 {
        let known = self.sid[n as usize];
        if known != NONE {
            return known;
        }
        let set = &self.words[n as usize * self.stride..(n as usize + 1) * self.stride];
        let set = &set[..set.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1)];
        let id = match self.ids.get(set) {
            Some(&id) => id,
            None => {
                if self.id_words + set.len() > Self::MAX_ID_WORDS {
                    self.ids.clear();
                    self.id_words = 0;
                    self.sid.fill(NONE);
                }
                let id = self.next_id;
                self.next_id += 1;
                self.id_words += set.len();
                self.ids.insert(set.into(), id);
                id
            }
        };
        self.sid[n as usize] = id;
        id
    }

    /// Words per state, and the number of distinct summaries among the states.
    pub(super) fn sizes(&self) -> (usize, usize, u64, u64) {
        let mut seen: FxHashSet<&[u64]> = FxHashSet::default();
        let (mut bits, mut nonzero) = (0u64, 0u64);
        for n in 0..self.states {
            let set = self.of(n as u32);
            bits += set.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
            nonzero += set.iter().filter(|&&w| w != 0).count() as u64;
            seen.insert(&set[..set.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1)]);
        }
        (self.stride, seen.len(), bits, nonzero)
    }

    /// Asks the processor to fetch word `w` of state `n`'s summary ahead of its use.
    #[inline]
    pub(super) fn prefetch(&self, n: u32, w: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(x) = self.words.get(n as usize * self.stride + w) {
            // SAFETY: a prefetch is a hint; the address is that of a live element.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const u64).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (n, w);
    }

    /// State `n`'s summary.
    #[inline]
    pub(super) fn of(&self, n: u32) -> &[u64] {
        &self.words[n as usize * self.stride..(n as usize + 1) * self.stride]
    }
}

/// A set of states popped highest first: bitsets in levels, each bit of a level telling whether
/// a word of the level below is non-zero. Push and pop touch one word per level (a binary heap
/// of the same states moves entries along a path of cache lines) and a state is in at most
/// once, so the order is the heap's.
#[derive(Default)]
pub struct MaxQueue {
    /// Level 0 has a bit per state; the last level is one word.
    #[doc(hidden)]
    pub levels: Vec<Vec<u64>>,
}

impl MaxQueue {
    /// Makes room for states below `n` (at most 2^32: states are numbered by `u32`).
    pub fn reserve(&mut self, n: usize) {
        debug_assert!(n as u64 <= 1 << 32, "room for {n} states asked: states are numbered by u32");
        if self.levels.is_empty() {
            self.levels.push(vec![0]);
        }
        let mut need = n.div_ceil(64).max(1);
        let mut k = 0;
        loop {
            if self.levels[k].len() < need {
                self.levels[k].resize(need, 0);
            }
            let len = self.levels[k].len();
            if len == 1 && k + 1 == self.levels.len() {
                return;
            }
            need = len.div_ceil(64);
            k += 1;
            if k == self.levels.len() {
                // Level k-1 outgrew one word: a new level above it, from what it holds.
                let mut up = vec![0u64; need];
                for (w, &x) in self.levels[k - 1].iter().enumerate() {
                    up[w / 64] |= u64::from(x != 0) << (w % 64);
                }
                self.levels.push(up);
            }
        }
    }

    /// Adds state `n` (room made by [`MaxQueue::reserve`]).
    #[inline]
    pub fn push(&mut self, n: u32) {
        let mut i = n as usize;
        for level in &mut self.levels {
            let (w, m) = (i / 64, 1u64 << (i % 64));
            let was = level[w];
            level[w] = was | m;
            if was != 0 {
                return;
            }
            i = w;
        }
    }

    /// Removes and returns the highest state.
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        let top = self.levels.len().checked_sub(1)?;
        if self.levels[top][0] == 0 {
            return None;
        }
        let mut i = 0usize;
        for k in (0..=top).rev() {
            let word = self.levels[k][i];
            i = i * 64 + (63 - word.leading_zeros() as usize);
        }
        let n = i;
        for level in &mut self.levels {
            let (w, m) = (i / 64, 1u64 << (i % 64));
            level[w] &= !m;
            if level[w] != 0 {
                break;
            }
            i = w;
        }
        Some(n as u32)
    }
}

/// Per edge label: what meeting each pair met so far gives.
#[derive(Default)]
pub(super) struct Row {
    /// Per word of pair ids: the pairs already met with this label, those of them that do not
    /// conflict with it and go on unchanged, and the words of hits its memo ways hold; one
    /// cache line, as crossing an edge reads all of it.
    head: Vec<Head>,
    /// Per word, what goes on past the edge for each conflicting pair of the word, in the order
    /// of their bits (pair id + 1; 0 when no access is left): a conflicting pair's entry is at
    /// its rank among the word's conflicting bits, so a crossing finds it with a popcount
    /// rather than a hash lookup (a summary of a few thousand pairs can conflict with an edge
    /// almost entirely).
    next: Vec<Vec<u32>>,
    /// Per word, what the last sets of conflicting pairs crossed gave (their words of hits are
    /// in [`Head::hits`]): summaries that cross one label are much alike, so the same word of
    /// hits comes back again and again. A way is one cache line.
    ways: Vec<[Way; MEMO_WAYS]>,
    /// What ways too large for a cache line gave, and the free entries.
    spill: Vec<HitMemo>,
    spill_free: Vec<u32>,
}

/// A row's word: see [`Row::head`].
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Head {
    met: u64,
    pass: u64,
    /// Words of hits held by the memo ways (0: none; a crossing never asks for 0).
    hits: [u64; MEMO_WAYS],
    /// Which way is replaced next.
    victim: u64,
}

/// What a word of conflicting pairs gives, packed: `packed` holds the number of words of events
/// (3 bits), then of pairs that go on (3 bits), then each word's index (8 bits each, events
/// first), `bits` the words' bits. [`SPILLED`]: too large, `bits[0]` indexes [`Row::spill`].
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Way {
    packed: u64,
    bits: [u64; WAY_WORDS],
}

const WAY_WORDS: usize = 7;
const SPILLED: u64 = u64::MAX;

/// Remembered words of hits per label word: the whole summaries crossed at state matches and the
/// smaller sets the backwards search carries alternate.
const MEMO_WAYS: usize = 4;

/// What a word of conflicting pairs gives when crossing a label: their events, and the pairs
/// that go on as (word, bits).
#[derive(Default)]
pub(super) struct HitMemo {
    pub(super) events: SmallVec<[(u32, u64); 2]>,
    pub(super) next: SmallVec<[(u32, u64); 3]>,
}

/// ORs `bits` (not zero) into word `w` of `words`, growing it as needed; `touched` gets the
/// words that were zero.
#[inline]
pub(super) fn gather(words: &mut Vec<u64>, touched: &mut Vec<u32>, w: usize, bits: u64) {
    if w >= words.len() {
        words.resize(w + 1, 0);
    }
    if words[w] == 0 {
        touched.push(w as u32);
    }
    words[w] |= bits;
}

/// ORs `bits` into word `w` of `words`, growing it as needed.
#[inline]
fn or_word(words: &mut Vec<u64>, w: usize, bits: u64) {
    if w >= words.len() {
        words.resize(w + 1, 0);
    }
    words[w] |= bits;
}

impl Row {
    /// Word `w` of (pairs met, pairs that pass).
    #[inline]
    pub(super) fn word(&self, w: usize) -> [u64; 2] {
        self.head.get(w).map_or([0, 0], |h| [h.met, h.pass])
    }

    /// What goes on past the edge for conflicting pair bit `b` of word `w` (already met):
    /// pair id + 1, 0 when nothing.
    #[inline]
    pub(super) fn next_of(&self, w: usize, b: u32) -> u32 {
        let [met, pass] = self.word(w);
        self.next_at(w, ((met & !pass) & ((1u64 << b) - 1)).count_ones())
    }

    /// [`Row::next_of`] for the conflicting pair of rank `rank` among word `w`'s.
    #[inline]
    pub(super) fn next_at(&self, w: usize, rank: u32) -> u32 {
        self.next[w][rank as usize]
    }

    fn note(&mut self, p: PairId, next: Option<u32>) {
        let w = p as usize / 64;
        if w >= self.head.len() {
            self.head.resize(w + 1, Head::default());
            self.next.resize_with(w + 1, Vec::new);
            self.ways.resize(w + 1, [Way::default(); MEMO_WAYS]);
        }
        let b = p % 64;
        let m = 1u64 << b;
        self.head[w].met |= m;
        match next {
            None => self.head[w].pass |= m,
            Some(q) => {
                let [met, pass] = self.word(w);
                let rank = ((met & !pass) & (m - 1)).count_ones() as usize;
                self.next[w].insert(rank, q);
            }
        }
    }

    /// Keeps `memo` in way `i` of word `w`.
    fn store(&mut self, w: usize, i: usize, memo: &HitMemo) {
        let way = &mut self.ways[w][i];
        if way.packed == SPILLED {
            self.spill_free.push(way.bits[0] as u32);
        }
        let (ne, nn) = (memo.events.len(), memo.next.len());
        let fits = ne + nn <= WAY_WORDS && memo.events.iter().chain(&memo.next).all(|&(x, _)| x < 256);
        if fits {
            let mut packed = ne as u64 | (nn as u64) << 3;
            for (k, &(x, bits)) in memo.events.iter().chain(&memo.next).enumerate() {
                packed |= u64::from(x) << (8 + 8 * k);
                way.bits[k] = bits;
            }
            way.packed = packed;
            return;
        }
        let copy = HitMemo { events: memo.events.clone(), next: memo.next.clone() };
        let at = match self.spill_free.pop() {
            Some(at) => {
                self.spill[at as usize] = copy;
                at
            }
            None => {
                self.spill.push(copy);
                self.spill.len() as u32 - 1
            }
        };
        way.packed = SPILLED;
        way.bits[0] = u64::from(at);
    }

    /// ORs what way `i` of word `w` gave into `events` and `next`.
    #[inline]
    fn recall(&self, w: usize, i: usize, events: &mut Vec<u64>, next: &mut Vec<u64>, touched: &mut Vec<u32>) {
        let way = &self.ways[w][i];
        if way.packed == SPILLED {
            let memo = &self.spill[way.bits[0] as usize];
            add_words(events, &memo.events);
            for &(x, bits) in &memo.next {
                gather(next, touched, x as usize, bits);
            }
            return;
        }
        let ne = (way.packed & 7) as usize;
        let nn = (way.packed >> 3 & 7) as usize;
        let mut idx = way.packed >> 8;
        for &bits in &way.bits[..ne] {
            or_word(events, (idx & 0xff) as usize, bits);
            idx >>= 8;
        }
        for &bits in &way.bits[ne..ne + nn] {
            gather(next, touched, (idx & 0xff) as usize, bits);
            idx >>= 8;
        }
    }
}

/// Interned access lists and pairs, and the memoized meets.
pub struct Pairs {
    lists: Vec<Accesses>,
    list_ids: FxHashMap<Accesses, u32>,
    pairs: Vec<(Choice, u32)>,
    pair_ids: FxHashMap<(Choice, u32), PairId>,
    /// Per pair, its row when it labels an edge (else [`NONE`]).
    row_of: Vec<u32>,
    rows: Vec<Row>,
    /// `no_per_location`: a conflict ends the search along that path (nothing goes on past it).
    whole_transition: bool,
    /// Objects some edge of the graph writes. A read of any other object conflicts with no
    /// edge, so the search leaves it behind (see [`Pairs::trim`]).
    written: FxHashSet<u32>,
    /// Per pair, [`Pairs::trim`]'s answer (pair id + 1, 0 for nothing left; [`NONE`]: not yet),
    /// forgotten whenever an object is first written.
    trimmed: Vec<u32>,
    scratch_memo: HitMemo,
}

impl Pairs {
    pub fn new(whole_transition: bool) -> Self {
        Pairs {
            lists: Vec::new(),
            list_ids: FxHashMap::default(),
            pairs: Vec::new(),
            pair_ids: FxHashMap::default(),
            row_of: Vec::new(),
            rows: Vec::new(),
            whole_transition,
            written: FxHashSet::default(),
            trimmed: Vec::new(),
            scratch_memo: HitMemo::default(),
        }
    }

    /// Pairs, access lists and rows interned so far.
    pub(super) fn sizes(&self) -> (usize, usize, usize) {
        (self.pairs.len(), self.lists.len(), self.rows.len())
    }

    /// Number of pairs so far (ids are below it).
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.pairs.len()
    }

    #[inline]
    pub fn event(&self, p: PairId) -> Choice {
        self.pairs[p as usize].0
    }

    #[doc(hidden)]
    pub fn accesses(&self, p: PairId) -> &Accesses {
        &self.lists[self.pairs[p as usize].1 as usize]
    }

    /// The pair (e, acc) with `acc` sorted; None when `acc` is empty (it can conflict with
    /// nothing, so nothing carries it).
    pub fn intern(&mut self, e: Choice, acc: &Accesses) -> Option<PairId> {
        if acc.is_empty() {
            return None;
        }
        let list = match self.list_ids.get(acc) {
            Some(&l) => l,
            None => {
                let l = self.lists.len() as u32;
                self.lists.push(acc.clone());
                self.list_ids.insert(acc.clone(), l);
                l
            }
        };
        Some(self.pair_of(e, list))
    }

    fn pair_of(&mut self, e: Choice, list: u32) -> PairId {
        if let Some(&p) = self.pair_ids.get(&(e, list)) {
            return p;
        }
        let p = self.pairs.len() as PairId;
        self.pairs.push((e, list));
        self.pair_ids.insert((e, list), p);
        self.row_of.push(NONE);
        self.trimmed.push(NONE);
        p
    }

    /// Notes the writes of a new edge's accesses; appends to `fresh` the objects no edge wrote
    /// before.
    pub fn note_writes(&mut self, acc: &Accesses, fresh: &mut Vec<u32>) {
        for a in acc {
            if a.write && self.written.insert(a.object) {
                fresh.push(a.object);
                self.trimmed.fill(NONE);
            }
        }
    }

    /// Whether pair `p` reads one of `objects`.
    pub fn reads_any(&self, p: PairId, objects: &[u32]) -> bool {
        self.lists[self.pairs[p as usize].1 as usize].iter().any(|a| !a.write && objects.contains(&a.object))
    }

    /// Pair `p` without its reads of objects that no edge writes (yet): those conflict with
    /// nothing, so carrying them would set no backtrack point, only keep the pair travelling to
    /// s0 and fill every summary on the way. None when nothing is left. When an object is
    /// first written, the caller starts the search again from every edge that reads it.
    pub fn trim(&mut self, p: PairId) -> Option<PairId> {
        let known = self.trimmed[p as usize];
        if known != NONE {
            return known.checked_sub(1);
        }
        let (e, list) = self.pairs[p as usize];
        let acc = &self.lists[list as usize];
        let q = if acc.iter().all(|a| a.write || self.written.contains(&a.object)) {
            Some(p)
        } else {
            let live: Accesses = acc.iter().copied().filter(|a| a.write || self.written.contains(&a.object)).collect();
            self.intern(e, &live)
        };
        self.trimmed[p as usize] = q.map_or(0, |q| q + 1);
        q
    }

    /// The row of label `l` (an edge's pair), created on first use.
    pub fn row(&mut self, l: PairId) -> u32 {
        let r = self.row_of[l as usize];
        if r != NONE {
            return r;
        }
        let r = self.rows.len() as u32;
        self.rows.push(Row::default());
        self.row_of[l as usize] = r;
        r
    }

    #[inline]
    pub(super) fn row_ref(&self, r: u32) -> &Row {
        &self.rows[r as usize]
    }

    /// Lines 8-16 of Algorithm 5 for carried pair `p` and an edge labelled `l` (row `r`):
    /// whether they conflict, and what goes on past the edge.
    pub fn meet(&mut self, l: PairId, r: u32, p: PairId) -> (bool, Option<PairId>) {
        if self.rows[r as usize].word(p as usize / 64)[0] >> (p % 64) & 1 == 0 {
            self.classify(l, r, p);
        }
        self.known_meet(r, p)
    }

    /// [`Pairs::meet`] for a pair already classified against row `r`.
    #[inline]
    pub(super) fn known_meet(&self, r: u32, p: PairId) -> (bool, Option<PairId>) {
        let row = &self.rows[r as usize];
        if row.word(p as usize / 64)[1] >> (p % 64) & 1 == 1 {
            return (false, Some(p));
        }
        (true, row.next_of(p as usize / 64, p % 64).checked_sub(1))
    }

    /// ORs into `events` and `next` what the conflicting pairs `hit` of word `w` give when
    /// crossing row `r` (all met already): their events and the pairs that go on, computed once
    /// per distinct `hit` in a row (see [`Row::ways`]). `touched` gets the words of `next` that
    /// were zero.
    #[inline]
    pub(super) fn cross_hits(
        &mut self,
        r: u32,
        w: usize,
        hit: u64,
        events: &mut Vec<u64>,
        next: &mut Vec<u64>,
        touched: &mut Vec<u32>,
    ) {
        let row = &self.rows[r as usize];
        let i = match row.head[w].hits.iter().position(|&h| h == hit) {
            Some(i) => i,
            None => self.fill(r, w, hit),
        };
        self.rows[r as usize].recall(w, i, events, next, touched);
    }

    /// Computes what `hit` gives (see [`Pairs::cross_hits`]) into the way after the last one
    /// filled; returns the way.
    #[cold]
    fn fill(&mut self, r: u32, w: usize, hit: u64) -> usize {
        let row = &mut self.rows[r as usize];
        let head = &mut row.head[w];
        let i = head.victim as usize % MEMO_WAYS;
        head.victim = head.victim.wrapping_add(1);
        head.hits[i] = hit;
        let conflicting = head.met & !head.pass;
        let mut memo = std::mem::take(&mut self.scratch_memo);
        memo.events.clear();
        memo.next.clear();
        let mut x = hit;
        while x != 0 {
            let b = x.trailing_zeros();
            x &= x - 1;
            add_bit(&mut memo.events, self.pairs[w * 64 + b as usize].0);
            let q = row.next[w][(conflicting & ((1u64 << b) - 1)).count_ones() as usize];
            if q != 0 {
                add_bit(&mut memo.next, q - 1);
            }
        }
        row.store(w, i, &memo);
        self.scratch_memo = memo;
        i
    }

    /// Makes sure every pair of `set` has been met with label `l` (row `r`).
    pub(super) fn classify_all(&mut self, l: PairId, r: u32, set: &[u64]) {
        for (w, &bits) in set.iter().enumerate() {
            let known = self.rows[r as usize].word(w)[0];
            let mut todo = bits & !known;
            while todo != 0 {
                let b = todo.trailing_zeros();
                todo &= todo - 1;
                self.classify(l, r, w as u32 * 64 + b);
            }
        }
    }

    fn classify(&mut self, l: PairId, r: u32, p: PairId) {
        let (l_event, l_list) = self.pairs[l as usize];
        let (p_event, p_list) = self.pairs[p as usize];
        let (mine, theirs) = (&self.lists[l_list as usize], &self.lists[p_list as usize]);
        if l_event == p_event {
            // An earlier transition of the same event is program order, not a race: firing the
            // event at its source is that very transition. Only what it covers (it writes the
            // object) stops here; a read of ours meeting a write of ours goes on.
            let covered = |x: &crate::model::Access| mine.iter().any(|y| y.object == x.object && y.write);
            if !theirs.iter().any(covered) {
                self.rows[r as usize].note(p, None);
                return;
            }
            let rest: Accesses = theirs.iter().copied().filter(|x| !covered(x)).collect();
            let next = self.intern(l_event, &rest).map_or(0, |q| q + 1);
            self.rows[r as usize].note(p, Some(next));
            return;
        }
        let clash = |x: &crate::model::Access| mine.iter().any(|y| y.object == x.object && (x.write || y.write));
        let conflict = theirs.iter().any(clash);
        if !conflict {
            self.rows[r as usize].note(p, None);
            return;
        }
        // Line 14: past a conflict the search goes on for the edge's own event, with the
        // accesses the edge does not cover. Only a write covers: whatever conflicts with an
        // access to an object the edge writes conflicts with the edge too, so its own search
        // finds that race. A read does not cover a write: an earlier read conflicts with the
        // write and not with this read, and that race would be lost (docs/soundness.md, 4).
        let rest: Accesses = if self.whole_transition {
            Accesses::new()
        } else {
            theirs.iter().copied().filter(|x| !mine.iter().any(|y| y.object == x.object && y.write)).collect()
        };
        let next = match self.intern(l_event, &rest) {
            Some(q) => q + 1,
            None => 0,
        };
        self.rows[r as usize].note(p, Some(next));
    }
}
