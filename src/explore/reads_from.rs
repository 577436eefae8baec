//! `optimal`: one execution per outcome on EM traces, by enumerating reads-from maps and
//! deciding each one's consistency with a witness search (docs/optimal.md).
//!
//! # Lineage
//! The outcome of an EM trace (em-trace.md) is a reads-from map plus the final write of every
//! location plus the operations a stuck run never ran. Reads-from equivalence has optimal
//! stateless algorithms for threads: RFSC (Abdulla, Atig, Jonsson, Lång, Ngo, Sagonas, "Optimal
//! stateless model checking for reads-from equivalence under sequential consistency", OOPSLA
//! 2019) and data-centric DPOR (Chalupa et al., POPL 2018). Both enumerate reads-from choices
//! and ask whether each is *consistent* (realised by some execution). A trace has fixed control
//! flow (what a read sees never changes which operations follow), which makes the enumeration
//! simple: the operations are known up front, so the search is over maps, not programs.
//!
//! # The search
//! 1. **Static happens-before** `hb0`: program order of each thread and handler, the static
//!    enabling edges (`waits_for`: FORK, ATTACH-Q -> post, enable -> trigger, dependence.txt),
//!    POST -> CALL, LOOP -> CALL and the FIFO rule, transitively closed, as clocks with one
//!    component per chain of ordered operations ([`statics`]). It holds in every run.
//! 2. **End sets.** A run ends (nothing enabled) with some set `E` of executed operations: all
//!    of them, or a stuck prefix. The complete set is enumerated first. Then a fixpoint keeps
//!    the operations that may be disabled for ever ([`stuck::disabled_for_ever`]: the
//!    operations of deadlock patterns); if there are any, a direct search over the frontiers
//!    they allow ([`stuck`]) gives every candidate stuck end set, and each gets the same
//!    enumeration with "ends with exactly `E` executed" as its target (a candidate no run
//!    reaches gives a blocked root): that is how stuck outcomes are reached.
//! 3. **Observations** of `E`: its reads, then the final write of each location (a "final
//!    reader"). Each has candidates: the writes in `E` it could see by `hb0` (not
//!    after it, not certainly overwritten before it), and the initial value (0). Observations
//!    with one candidate are fixed and skipped.
//! 4. **The tree.** A node fixes the values of the first `k` observations. Saturation
//!    ([`saturation`]) derives the order they force (a cycle: the node is *blocked*); the witness search then
//!    finds a run ending at `E` that respects them (or proves there is none: blocked too). The
//!    witness's outcome is reported, and for every later observation `j` and candidate `v`
//!    other than what the witness saw there, a child fixes observations `k..j` to
//!    the witness's values and `j` to `v`. The children and the witness's own map partition the
//!    maps that extend the node's prefix, so every consistent map is found exactly once:
//!    executions = outcomes, and the cost is the blocked nodes.
//!
//! # Files
//! [`statics`]: `hb0` as clocks per chain, candidates, conflict groups.
//! [`stuck`]: the stuck-end fixpoint and the direct search for stuck end sets.
//! [`saturation`]: the order a node forces, as an incremental closure on those chains.
//! [`witness`]: the witness search (persistent sets, fingerprints kept along the path). Each
//! file's header gives its part of the soundness argument; the whole of it is
//! in docs/optimal.md. Every step is linear in the trace's length times the number of chains
//! (docs/performance.md measures them up to a million operations).
//!
//! # Counters
//! `executions`: witnesses found (each a new outcome); `blocked`: nodes with no witness;
//! `redundant`: witnesses whose outcome was already seen (0 by the argument above; counted, not
//! assumed); `consistency_s`: time in witness searches; `states`: states the witness searches
//! stored, summed over searches (each search frees its own).

use std::time::Instant;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{Search, Strategy};
use crate::model::em::EmModel;

mod saturation;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod statics;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod stuck;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod witness;

use saturation::{Saturation, Verdict};
use statics::{bit, Statics};
use stuck::StuckSearch;
use witness::Witness;

pub use statics::StaticHb;

/// The `optimal` strategy (see the module header).
#[derive(Default)]
pub struct ReadsFrom;

impl Strategy<EmModel> for ReadsFrom {
    fn name(&self) -> &'static str {
        "optimal"
    }

    fn run(&mut self, search: &mut Search<'_, EmModel>) {
        let phases = Phases::new();
        let Some(statics) = Statics::new(search) else { return };
        phases.done("static happens-before", statics.width);
        let mut w = Witness::new(&statics);
        let mut sat = Saturation::new(&statics);
        let started = Instant::now();
        let mut all = vec![0u64; statics.n.div_ceil(64).max(1)];
        for op in 0..statics.n {
            all[op / 64] |= 1 << (op % 64);
        }
        let all: Box<[u64]> = all.into();
        let mut enumeration = Enumeration { blocked: 0, found: 0 };
        // Complete runs first: their outcomes are reported even if the search for stuck end
        // sets (step 2) does not finish.
        enumeration.tree(search, &mut w, &mut sat, &all, &phases);
        phases.done("complete runs (outcomes)", enumeration.found as usize);
        // Stuck end sets (step 2), from the deadlock patterns the fixpoint leaves.
        let b = if search.stopped() { None } else { stuck::disabled_for_ever(&statics, search) };
        let may = b.as_ref().map_or(0, |b| b.iter().filter(|&&x| x).count());
        phases.done("stuck fixpoint (operations that may be disabled for ever)", may);
        if let Some(b) = b.filter(|_| may > 0) {
            let direct = StuckSearch::new(&statics, &b);
            let ends = direct.end_sets(search).unwrap_or_default();
            phases.done("stuck end sets (direct search)", ends.len());
            for end in &ends {
                if search.stopped() {
                    break;
                }
                enumeration.tree(search, &mut w, &mut sat, end, &phases);
            }
        }
        phases.done("end", enumeration.found as usize);
        let outcomes = search.found.len() as u64;
        search.stats.redundant = Some(enumeration.found.saturating_sub(outcomes));
        search.stats.blocked = Some(enumeration.blocked);
        search.stats.consistency_s = Some(started.elapsed().as_secs_f64());
        drop((w, sat));
        if search.keep_static_hb {
            search.static_hb = Some(statics.into_hb());
        }
    }
}

/// With `TRACEPOR_PHASES` set, the time of each phase on stderr (docs/performance.md measures
/// them on large traces).
struct Phases(Option<Instant>);

impl Phases {
    fn new() -> Self {
        Phases(std::env::var_os("TRACEPOR_PHASES").map(|_| Instant::now()))
    }

    fn done(&self, what: &str, figure: usize) {
        if let Some(t) = self.0 {
            eprintln!("optimal phase: {what} ({figure}) at {:.6} s", t.elapsed().as_secs_f64());
        }
    }
}

/// What a node of the tree fixes, and the end set it aims at.
pub struct Constraints {
    /// Per operation: the write (trace index, 0 = initial value) a read must see, or [`FREE`].
    read: Vec<u32>,
    /// Per location: the write that must be last, or [`FREE`].
    fin: Vec<u32>,
    /// Per location: its constrained reads.
    constrained: Vec<SmallVec<[u32; 2]>>,
    /// The locations with a constrained read or a fixed final write.
    touched: Vec<u32>,
    /// The operations the run must end with exactly (bit per operation).
    end: Box<[u64]>,
    /// False when values are ignored (the end-set checks): reads and writes are always safe.
    values: bool,
    /// Per operation the saturated order puts new predecessors before: per chain where it
    /// does, the latest of them (the others come before it on the chain).
    after: FxHashMap<u32, SmallVec<[u32; 4]>>,
}

impl Constraints {
    /// Nothing fixed yet, for end set `end`; `values` false to ignore values.
    pub fn none(st: &Statics<'_>, end: &[u64], values: bool) -> Self {
        let locs = st.model.trace.locations.len();
        Constraints {
            read: if values { vec![FREE; st.n] } else { Vec::new() },
            fin: vec![FREE; locs],
            constrained: vec![SmallVec::new(); locs],
            touched: Vec::new(),
            end: end.into(),
            values,
            after: FxHashMap::default(),
        }
    }
}

/// No constraint.
const FREE: u32 = u32::MAX;

/// An observation of a run: what a read saw, or the last write of a location.
#[derive(Clone, Copy)]
enum Obs {
    Read(u32, u32),
    Final(u32),
}

struct Enumeration {
    blocked: u64,
    found: u64,
}

impl Enumeration {
    /// Enumerates the outcomes of the runs ending with `end` executed (module header, step 4).
    fn tree(
        &mut self,
        search: &mut Search<'_, EmModel>,
        w: &mut Witness<'_, '_>,
        sat: &mut Saturation<'_, '_>,
        end: &[u64],
        phases: &Phases,
    ) {
        let st = w.st;
        let locs = st.model.trace.locations.len();
        let mut obs: Vec<(Obs, SmallVec<[u32; 4]>)> = Vec::new();
        for (loc, reads) in st.reads.iter().enumerate() {
            for &r in reads.iter().filter(|&&r| bit(end, r as usize)) {
                if search.poll() {
                    return;
                }
                let cand = st.read_candidates(r, loc as u32, end);
                if cand.len() > 1 {
                    obs.push((Obs::Read(r, loc as u32), cand));
                }
            }
        }
        // Reads in recorded order, then final writes.
        obs.sort_by_key(|(o, _)| match *o {
            Obs::Read(r, _) => r,
            Obs::Final(_) => u32::MAX,
        });
        for loc in 0..locs as u32 {
            if search.poll() {
                return;
            }
            let cand = st.final_candidates(loc, end);
            if cand.len() > 1 {
                obs.push((Obs::Final(loc), cand));
            }
        }
        let mut c = Constraints::none(st, end, true);
        phases.done("observations", obs.len());
        let base = sat.set_end(end, search);
        phases.done("base saturation", 0);
        match base {
            Verdict::Stopped => return,
            // No run ends here: the root is blocked.
            Verdict::Blocked => {
                self.blocked += 1;
                return;
            }
            Verdict::Consistent => {}
        }
        let mut nodes: Vec<Vec<u32>> = vec![Vec::new()];
        while let Some(prefix) = nodes.pop() {
            if search.stopped() {
                return;
            }
            // Fix the prefix (undoing the previous node's).
            for &loc in &c.touched {
                for &r in &c.constrained[loc as usize] {
                    c.read[r as usize] = FREE;
                }
                c.constrained[loc as usize].clear();
                c.fin[loc as usize] = FREE;
            }
            c.touched.clear();
            for (&(o, _), &v) in obs.iter().zip(&prefix) {
                let loc = match o {
                    Obs::Read(r, loc) => {
                        c.read[r as usize] = v;
                        c.constrained[loc as usize].push(r);
                        loc
                    }
                    Obs::Final(loc) => {
                        c.fin[loc as usize] = v;
                        loc
                    }
                };
                if !c.touched.contains(&loc) {
                    c.touched.push(loc);
                }
            }
            let found = match sat.run(&mut c, search) {
                Verdict::Consistent => w.search(search, &c, None),
                _ => None,
            };
            let Some((state, path)) = found else {
                if !search.stopped() {
                    self.blocked += 1;
                }
                continue;
            };
            self.found += 1;
            search.terminal(&state, &path);
            let seen: Vec<u32> = obs
                .iter()
                .map(|&(o, _)| match o {
                    Obs::Read(r, _) => st.model.observed(&state, r).unwrap_or(0),
                    Obs::Final(loc) => state.last_write(loc),
                })
                .collect();
            for j in (prefix.len()..obs.len()).rev() {
                for &v in obs[j].1.iter().filter(|&&v| v != seen[j]) {
                    let mut child = seen[..j].to_vec();
                    child.push(v);
                    nodes.push(child);
                }
            }
        }
    }
}
