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

use crate::model::clock::ChainClocks;
use crate::model::em::{EmModel, EmState};
use crate::trace::em::OpKind;

/// The block of the reads of the initial value.
const INIT: u32 = u32::MAX;

/// One outcome's views of the locations asked about, built on demand.
pub struct View<'a> {
    model: &'a EmModel,
    hb0: &'a ChainClocks,
    s: &'a EmState,
    /// Per location: its accesses that ran, by block.
    blocks: FxHashMap<u32, FxHashMap<u32, Vec<u32>>>,
    /// Per (location, block): the blocks it reaches.
    reach: FxHashMap<(u32, u32), Vec<u32>>,
    /// Per location: its accesses (all of the trace), filled by the caller once.
    pub accesses: &'a FxHashMap<u32, Vec<u32>>,
}

impl<'a> View<'a> {
    pub fn new(
        model: &'a EmModel,
        hb0: &'a ChainClocks,
        s: &'a EmState,
        accesses: &'a FxHashMap<u32, Vec<u32>>,
    ) -> Self {
        View { model, hb0, s, blocks: FxHashMap::default(), reach: FxHashMap::default(), accesses }
    }

    /// The block of access `op` (which ran): a write's own position, a read's write, or INIT.
    fn block_of(&self, op: u32) -> u32 {
        match self.model.trace.ops[op as usize].kind {
            OpKind::Write { .. } => op,
            _ => match self.model.observed(self.s, op) {
                Some(w) if w != 0 => self.model.trace.position(w).map_or(INIT, |p| p as u32),
                _ => INIT,
            },
        }
    }

    fn blocks(&mut self, loc: u32) -> &FxHashMap<u32, Vec<u32>> {
        if !self.blocks.contains_key(&loc) {
            let mut by: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
            for &op in self.accesses.get(&loc).map_or(&[][..], Vec::as_slice) {
                if self.s.executed(op) {
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
        let w = self.s.last_write(loc);
        if w == 0 {
            return INIT;
        }
        self.model.trace.position(w).map_or(INIT, |p| p as u32)
    }
}

/// Whether the outcome of `v` sees race (`a`, `b`) on `loc` reversed: both ran, and its view
/// of `loc` cannot be produced with `a` before `b` (module header).
pub fn forced(v: &mut View<'_>, loc: u32, a: u32, b: u32) -> bool {
    if !v.s.executed(a) || !v.s.executed(b) {
        return false;
    }
    let (ba, bb) = (v.block_of(a), v.block_of(b));
    if ba == bb {
        // One block: its write comes first.
        return matches!(v.model.trace.ops[a as usize].kind, OpKind::Read { .. });
    }
    v.reached(loc, bb).contains(&ba)
}
