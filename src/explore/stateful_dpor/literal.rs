//! The literal backwards search of Algorithm 5 (Trimananda et al., VMCAI 2022), every path of
//! predecessors that does not repeat a transition, for `no_summaries` (cross-checking on small
//! models) and the current-stack walk of the `no_graph_backtrack` ablation.

use super::summary::{PairId, NONE};
use super::*;

impl<'a, M: Model> Run<'a, M> {
    /// Literal UpdateBacktrackSetDFS from `t`: every path of predecessors that does not repeat a
    /// transition (the paper's T_exp), iteratively.
    pub(super) fn literal_dfs(&mut self, t: u32, p: PairId, search: &mut Search<'_, M>) {
        self.literal_dfs_from(self.edges[t as usize].src, Some(t), p, search);
    }

    /// [`Run::literal_dfs`] from the in-edges of state `n`, for pair `p` of transition `t` out
    /// of `n` (or of a transition blocked at `n`, `t` then `None`).
    pub(super) fn literal_dfs_from(&mut self, n: u32, t: Option<u32>, p: PairId, search: &mut Search<'_, M>) {
        struct Frame {
            carried: Option<PairId>,
            /// Next predecessor to try (an in-edge of the frame's transition's source).
            next: u32,
            curr: u32,
        }
        let mut on_path: FxHashSet<u32> = FxHashSet::default();
        on_path.extend(t);
        let first = self.first_in[n as usize];
        let mut stack = vec![Frame { carried: Some(p), next: first, curr: t.unwrap_or(NONE) }];
        while let Some(top) = stack.last_mut() {
            if search.poll() {
                return;
            }
            let (tb, Some(carried)) = (top.next, top.carried) else {
                let f = stack.pop().expect("non-empty");
                if stack.is_empty() {
                    break;
                }
                on_path.remove(&f.curr);
                continue;
            };
            if tb == NONE {
                let f = stack.pop().expect("non-empty");
                if stack.is_empty() {
                    break;
                }
                on_path.remove(&f.curr);
                continue;
            }
            top.next = self.edges[tb as usize].next_in;
            if on_path.contains(&tb) {
                continue;
            }
            let next = self.meet(tb, carried);
            on_path.insert(tb);
            let first = self.first_in[self.edges[tb as usize].src as usize];
            stack.push(Frame { carried: next, next: first, curr: tb });
        }
    }

    /// `no_graph_backtrack`: walk back along the current stack only (first `first`, when given,
    /// then the stack edges from the top down).
    pub(super) fn stack_walk(&mut self, first: Option<u32>, p: PairId) {
        let mut carried = Some(p);
        if let Some(t) = first {
            carried = self.meet(t, p);
        }
        for i in (0..self.stack_edges.len()).rev() {
            let Some(c) = carried else {
                return;
            };
            carried = self.meet(self.stack_edges[i], c);
        }
    }
}
