//! Whether one outcome sees a race reversed (docs/races.md, "The verdict").
//!
//! An outcome's view of location `x` is what each read of `x` read from and which write of `x`
//! is last. Group the accesses of `x` that ran into *blocks*: a write with the reads that read
//! from it, and one block of the reads that read the initial value. In any run with this view
//! each block is a contiguous stretch of the run's accesses to `x` (between a write and a read
//! of it no other write runs, and a read in between would read from that write), the initial
//! block first and the final write's block last. So the view can be produced with an extra
//! order `a` before `b` (on top of `hb0`, which every run respects) iff the blocks can be put in
//! an order that respects every `hb0` edge between them and puts `a`'s block before `b`'s:
//! iff `b`'s block does not reach `a`'s in the graph whose edges are the `hb0` edges between
//! blocks, the initial block to every block, and every block to the final one (when both are
//! in one block, iff `a` is its write). The search is over blocks, with the `hb0` test per
//! chain: a block is reached when one of its accesses is after the earliest access, per chain,
//! of the blocks reached so far.

use rustc_hash::FxHashMap;

use super::hb::Order;
use crate::model::em::EmModel;
use crate::trace::em::OpKind;

/// What one run observed, by operation position: what the verdicts and the differences read.
/// Built from an outcome's canonical text ([`Seen::parse`]) or the recorded order; two are
/// equal iff their canonical texts are.
#[derive(PartialEq, Eq)]
pub struct Seen {
    /// Per operation: for a read that ran, the trace index of the write it read (0: the
    /// initial value); [`NOT_RUN`] otherwise.
    pub rf: Vec<u32>,
    /// Per location: the trace index of its last write, 0 when none.
    pub last: Vec<u32>,
    /// Per operation: whether it ran.
    pub ran: Vec<bool>,
}

/// Not a read that ran.
pub const NOT_RUN: u32 = u32::MAX;

impl Seen {
    /// The recorded run: every operation, in the trace's order.
    pub fn recorded(model: &EmModel) -> Seen {
        let n = model.trace.ops.len();
        let mut seen = Seen { rf: vec![NOT_RUN; n], last: vec![0; model.trace.locations.len()], ran: vec![true; n] };
        for (p, o) in model.trace.ops.iter().enumerate() {
            match o.kind {
                OpKind::Read { loc } => seen.rf[p] = seen.last[loc as usize],
                OpKind::Write { loc } => seen.last[loc as usize] = o.index,
                _ => {}
            }
        }
        seen
    }

    /// The canonical text of the outcome (em-trace.md).
    pub fn outcome_text(&self, model: &EmModel) -> String {
        let mut reads_from = Vec::new();
        let mut stuck = Vec::new();
        for (p, o) in model.trace.ops.iter().enumerate() {
            if !self.ran[p] {
                stuck.push(o.index);
            } else if self.rf[p] != NOT_RUN {
                reads_from.push((o.index, self.rf[p]));
            }
        }
        let mut final_writes: Vec<u32> = self.last.iter().copied().filter(|&w| w != 0).collect();
        final_writes.sort_unstable();
        crate::model::Outcome::EmTrace { reads_from, final_writes, stuck }.to_string()
    }

    /// An outcome from its canonical text (em-trace.md: `rf R<-W ... | final W ... | stuck O
    /// ...`, single spaces, as [`crate::model::Outcome`] writes it); None if it does not fit
    /// the trace. Read byte by byte: it runs once per outcome, on texts of a few kilobytes.
    pub fn parse(model: &EmModel, text: &str) -> Option<Seen> {
        let n = model.trace.ops.len();
        let mut seen = Seen { rf: vec![NOT_RUN; n], last: vec![0; model.trace.locations.len()], ran: vec![true; n] };
        let ops = &model.trace.ops;
        let base = ops.first().map_or(0, |o| o.index);
        // Traces number their operations consecutively, as a rule: then a subtraction finds
        // the position, else a binary search.
        let pos = |i: u32| {
            let guess = i.wrapping_sub(base) as usize;
            match ops.get(guess) {
                Some(o) if o.index == i => Some(guess),
                _ => model.trace.position(i),
            }
        };
        let mut t = Text { b: text.as_bytes(), at: 0 };
        t.expect(b"rf")?;
        while !t.word(b" | final") {
            t.expect(b" ")?;
            let r = t.number()?;
            t.expect(b"<-")?;
            seen.rf[pos(r)?] = t.number()?;
        }
        while !t.word(b" | stuck") {
            t.expect(b" ")?;
            let p = pos(t.number()?)?;
            let OpKind::Write { loc } = ops[p].kind else { return None };
            seen.last[loc as usize] = ops[p].index;
        }
        while t.at < t.b.len() {
            t.expect(b" ")?;
            seen.ran[pos(t.number()?)?] = false;
        }
        Some(seen)
    }
}

/// An outcome's text being read ([`Seen::parse`]).
struct Text<'t> {
    b: &'t [u8],
    at: usize,
}

impl Text<'_> {
    /// Whether `w` comes next (then read past it).
    fn word(&mut self, w: &[u8]) -> bool {
        let here = self.b[self.at..].starts_with(w);
        if here {
            self.at += w.len();
        }
        here
    }

    /// `w` next, read past; None if not.
    fn expect(&mut self, w: &[u8]) -> Option<()> {
        self.word(w).then_some(())
    }

    /// A decimal number (u32) next, read past.
    /// Digit by digit: no UTF-8 check or `str::parse` per number (they were a quarter of the
    /// analysis on remind-me); None when there is none or it overflows, as `parse` says.
    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        let mut value: u32 = 0;
        while let Some(&c) = self.b.get(self.at).filter(|c| c.is_ascii_digit()) {
            value = value.checked_mul(10)?.checked_add(u32::from(c - b'0'))?;
            self.at += 1;
        }
        (self.at > start).then_some(value)
    }
}

/// The block of the reads of the initial value.
const INIT: u32 = u32::MAX;

/// One outcome's views of the locations asked about, built on demand.
pub struct View<'a> {
    model: &'a EmModel,
    hb0: &'a dyn Order,
    s: &'a Seen,
    /// Per location: its accesses that ran, by block.
    blocks: FxHashMap<u32, FxHashMap<u32, Vec<u32>>>,
    /// Per (location, block): the blocks it reaches.
    reach: FxHashMap<(u32, u32), Vec<u32>>,
    /// Per location: its accesses (all of the trace), filled by the caller once.
    pub accesses: &'a FxHashMap<u32, Vec<u32>>,
}

impl<'a> View<'a> {
    pub fn new(model: &'a EmModel, hb0: &'a dyn Order, s: &'a Seen, accesses: &'a FxHashMap<u32, Vec<u32>>) -> Self {
        View { model, hb0, s, blocks: FxHashMap::default(), reach: FxHashMap::default(), accesses }
    }

    /// The block of access `op` (which ran): a write's own position, a read's write, or INIT.
    fn block_of(&self, op: u32) -> u32 {
        match self.model.trace.ops[op as usize].kind {
            OpKind::Write { .. } => op,
            _ => match self.s.rf[op as usize] {
                0 | NOT_RUN => INIT,
                w => self.model.trace.position(w).map_or(INIT, |p| p as u32),
            },
        }
    }

    fn blocks(&mut self, loc: u32) -> &FxHashMap<u32, Vec<u32>> {
        if !self.blocks.contains_key(&loc) {
            let mut by: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
            for &op in self.accesses.get(&loc).map_or(&[][..], Vec::as_slice) {
                if self.s.ran[op as usize] {
                    by.entry(self.block_of(op)).or_default().push(op);
                }
            }
            self.blocks.insert(loc, by);
        }
        &self.blocks[&loc]
    }

    /// The blocks of `loc` reachable from block `from` (itself included).
    fn reached(&mut self, loc: u32, from: u32) -> &[u32] {
        if !self.reach.contains_key(&(loc, from)) {
            let fin = self.final_block(loc);
            let hb0 = self.hb0;
            let blocks = self.blocks(loc);
            let mut reached = vec![from];
            let mut first: Vec<u32> = Vec::new();
            let note = |first: &mut Vec<u32>, ops: &[u32]| {
                for &u in ops {
                    let st = hb0.stamp(u as usize);
                    if first.len() <= st.chain as usize {
                        first.resize(st.chain as usize + 1, u32::MAX);
                    }
                    first[st.chain as usize] = first[st.chain as usize].min(st.index);
                }
            };
            if from == INIT {
                // The initial block comes before every other.
                reached.extend(blocks.keys().copied().filter(|&b| b != INIT));
            } else {
                note(&mut first, &blocks[&from]);
                loop {
                    let mut grew = false;
                    for (&b, ops) in blocks {
                        if reached.contains(&b) {
                            continue;
                        }
                        let after = b == fin
                            || ops.iter().any(|&v| {
                                hb0.clock(v as usize).iter().zip(&first).any(|(&k, &f)| f != u32::MAX && k >= f)
                            });
                        if after {
                            reached.push(b);
                            note(&mut first, ops);
                            grew = true;
                        }
                    }
                    if !grew {
                        break;
                    }
                }
            }
            self.reach.insert((loc, from), reached);
        }
        &self.reach[&(loc, from)]
    }

    /// The block of the last write of `loc` (INIT when none ran).
    fn final_block(&self, loc: u32) -> u32 {
        let w = self.s.last[loc as usize];
        if w == 0 {
            return INIT;
        }
        self.model.trace.position(w).map_or(INIT, |p| p as u32)
    }
}

/// Whether the outcome of `v` sees race (`a`, `b`) on `loc` reversed: both ran, and its view
/// of `loc` cannot be produced with `a` before `b` (module header).
pub fn forced(v: &mut View<'_>, loc: u32, a: u32, b: u32) -> bool {
    if !v.s.ran[a as usize] || !v.s.ran[b as usize] {
        return false;
    }
    let (ba, bb) = (v.block_of(a), v.block_of(b));
    if ba == bb {
        // One block: its write comes first.
        return matches!(v.model.trace.ops[a as usize].kind, OpKind::Read { .. });
    }
    v.reached(loc, bb).contains(&ba)
}
