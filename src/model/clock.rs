//! Happens-before clocks along a path, with one component per *chain* instead of one per task.
//!
//! # What is stored
//! The events of the path (one per position) are split, as they are pushed, into chains: each
//! chain is a sequence of events in which every event happens before the next. An event is
//! stamped with its chain `c` and its index `i` in it (1, 2, ...), and its clock holds, per
//! chain, the index of the latest event of that chain that happens before it or is it (0 for
//! none). Event `a` happens before event `b` iff `clock(b)[chain(a)] >= index(a)`: one load.
//!
//! # Why it answers what one component per task answers
//! Happens-before is the reflexive-transitive closure of the edges a push names (its
//! predecessors, all earlier on the path). In a chain, the events are totally ordered by it, so
//! the events of chain `c` that happen before `b` are a prefix of the chain: those up to
//! `clock(b)[c]`. The clock is built as the join (pointwise max) of the predecessors' clocks,
//! then the event's own component: the closure of the edges is what the join computes, as with
//! per-task clocks (a task is one particular chain: program order orders it). An event may be
//! appended to chain `c` only when `c`'s latest event (its *tip*) happens before it, i.e. when
//! the joined clock already has `c`'s full length; so chains stay totally ordered. Both
//! representations thus decide the same relation, the closure of the same edges, and every
//! query gives the same answer. A unit test (tests/it/unit/model_clock.rs) checks it against a
//! dense clock per task on random pushes and pops; benches/compare_counts.py checks that every
//! DPOR strategy explores exactly what it did with dense clocks on the EM-Explorer traces.
//!
//! # Why it is small
//! The chain chosen for a new event is, in order: its task's previous event's chain, if that
//! event is still the tip; else a chain whose tip ended its task (a handler's RET, a thread's
//! last operation: nothing will continue that chain) and happens before the new event, a
//! predecessor first; else a new chain. A chain is never taken from a task that goes on, so all
//! the events of a task stay on the chain its first event took, and every chain's tip is
//! either the latest event of a task still running (one chain per such task) or the last event
//! of a task that ended (one per ended task): there are never more chains than tasks, so a
//! clock is never wider than with one component per task. A handler whose start is ordered
//! after an earlier handler's end (the FIFO rule) reuses its chain, so the number of chains
//! stays near the number of threads plus the handlers that run concurrently, not the number
//! of handlers of the trace (3 threads posting 2,000 messages to one looper: 6 chains for
//! 2,004 tasks, tests/em_semantics.rs; as many whatever the number of messages).
//! A step costs 4 bytes per chain, plus 24.
//!
//! # Undo
//! Chains, like the path, only grow at the end: the event popped is the tip of its chain, and
//! a chain it opened is the last chain. So popping restores the previous tip (kept per event)
//! and drops a chain left empty. All clocks are stored back to back in one buffer (a clock
//! has the width of the chains at its push, trailing zeros dropped), popped by truncation.

/// An event's place: its chain, and its index in it (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub chain: u32,
    pub index: u32,
}

const NONE: u32 = u32::MAX;

/// One event of the path: where its clock is, and its place.
#[derive(Clone, Copy, Debug)]
struct Event {
    /// Its clock is `data[start..start + width]`.
    start: u32,
    width: u32,
    stamp: Stamp,
}

/// Clocks of the events of a path, indexed by path position.
#[derive(Default)]
pub struct ChainClocks {
    /// Every position's clock, one after the other.
    data: Vec<u32>,
    /// Per position: its clock and its place.
    events: Vec<Event>,
    /// Per position: the tip of its chain before it was pushed (NONE when it opened the chain).
    prev_tip: Vec<u32>,
    /// Per chain: position of its latest event.
    tips: Vec<u32>,
    /// The clock being built.
    scratch: Vec<u32>,
}

impl ChainClocks {
    /// Room for `events` events whose clocks are about `width` wide, reserved at once (a pass
    /// that knows its length grows no buffer step by step).
    pub fn with_capacity(events: usize, width: usize) -> Self {
        ChainClocks {
            data: Vec::with_capacity(events * width),
            events: Vec::with_capacity(events),
            prev_tip: Vec::with_capacity(events),
            ..Self::default()
        }
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// The bytes the clocks' buffer would take at once if the next push made it grow (Vec
    /// doubles: the new buffer beside the old while they are copied), else 0. A clock has at
    /// most an entry per chain, and a push opens at most one chain.
    pub fn growth_bytes(&self) -> u64 {
        let width = self.tips.len() + 1;
        if self.data.len() + width <= self.data.capacity() {
            return 0;
        }
        let new_cap = (self.data.capacity() * 2).max(self.data.len() + width);
        (new_cap * std::mem::size_of::<u32>()) as u64
    }

    /// The entries the clocks' buffer holds before it grows: what [`Self::growth_bytes`]
    /// predicts from (public for the unit tests in tests/it/unit/).
    #[doc(hidden)]
    pub fn buffer_capacity(&self) -> usize {
        self.data.capacity()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Number of chains in use.
    pub fn chains(&self) -> usize {
        self.tips.len()
    }

    /// The clock of position `i`, one component per chain (missing components are 0).
    #[inline]
    pub fn clock(&self, i: usize) -> &[u32] {
        let e = self.events[i];
        &self.data[e.start as usize..(e.start + e.width) as usize]
    }

    #[inline]
    pub fn stamp(&self, i: usize) -> Stamp {
        self.events[i].stamp
    }

    /// Whether the event at position `a` happens before (or is) the one at `b`.
    #[inline]
    pub fn happens_before(&self, a: usize, b: usize) -> bool {
        let Stamp { chain, index } = self.events[a].stamp;
        let e = self.events[b];
        chain < e.width && self.data[(e.start + chain) as usize] >= index
    }

    #[inline]
    fn is_tip(&self, p: u32) -> bool {
        self.tips[self.stamp(p as usize).chain as usize] == p
    }

    /// Pushes the next event, after the events at positions `preds` (earlier positions).
    /// `prev` is its task's previous event, if on the path (also among `preds`); `ends(p)`
    /// says whether the event at position `p` is the last of its task (only a preference for
    /// chain reuse: any answer is sound).
    pub fn push(&mut self, preds: &[u32], prev: Option<u32>, ends: impl Fn(u32) -> bool) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        for &p in preds {
            let c = self.clock(p as usize);
            if c.len() > scratch.len() {
                scratch.resize(c.len(), 0);
            }
            join_into(&mut scratch, c);
        }
        let chain = match prev.filter(|&p| self.is_tip(p)) {
            Some(p) => self.stamp(p as usize).chain,
            None => self.choose(preds, &scratch, &ends),
        };
        let (index, prev_tip) = match self.tips.get(chain as usize) {
            Some(&t) => (self.stamp(t as usize).index + 1, t),
            None => {
                self.tips.push(NONE);
                (1, NONE)
            }
        };
        if scratch.len() <= chain as usize {
            scratch.resize(chain as usize + 1, 0);
        }
        scratch[chain as usize] = index;
        while scratch.last() == Some(&0) {
            scratch.pop();
        }
        let pos = self.events.len() as u32;
        self.tips[chain as usize] = pos;
        let (start, width) = (self.data.len() as u32, scratch.len() as u32);
        self.data.extend_from_slice(&scratch);
        self.events.push(Event { start, width, stamp: Stamp { chain, index } });
        self.prev_tip.push(prev_tip);
        self.scratch = scratch;
    }

    /// The chain the first event of a task, with joined clock `joined`, goes on (`tips.len()`
    /// for a new one); the other events of a task go on its previous one's. Only a chain whose
    /// tip is the last event of a task that ended is taken: never one of a task that goes on.
    #[inline(never)]
    fn choose(&self, preds: &[u32], joined: &[u32], ends: &impl Fn(u32) -> bool) -> u32 {
        if let Some(&p) = preds.iter().find(|&&p| self.is_tip(p) && ends(p)) {
            return self.stamp(p as usize).chain;
        }
        // The tip happens before the new event iff the join has the chain's full length.
        let free = |(c, &t): (usize, &u32)| joined.get(c) == Some(&self.stamp(t as usize).index) && ends(t);
        self.tips.iter().enumerate().position(free).unwrap_or(self.tips.len()) as u32
    }

    /// Removes the last event.
    pub fn pop(&mut self) {
        let Some(Event { start, stamp: Stamp { chain, .. }, .. }) = self.events.pop() else { return };
        let prev_tip = self.prev_tip.pop().unwrap_or(NONE);
        self.data.truncate(start as usize);
        if prev_tip == NONE {
            debug_assert_eq!(chain as usize + 1, self.tips.len(), "a chain opened last is popped last");
            self.tips.pop();
        } else {
            self.tips[chain as usize] = prev_tip;
        }
    }
}

/// Pointwise maximum of two clocks as slices, into `a`; components of `b` beyond `a`'s length
/// are ignored (callers size `a` first). The one join loop of the crate: [`ChainClocks`] and the
/// event-model `dpor` (src/explore/dpor_events.rs) both use it.
#[inline]
pub fn join_into(a: &mut [u32], b: &[u32]) {
    // Branch-free, so the loop vectorizes: the join is the hottest loop of dpor/em-dpor.
    for (a, &b) in a.iter_mut().zip(b) {
        *a = (*a).max(b);
    }
}
