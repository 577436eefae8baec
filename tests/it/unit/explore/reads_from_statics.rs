//! Unit tests of src/explore/reads_from/statics.rs: hb0's chain clocks and read candidates against their definitions.

use tracepor::explore::reads_from::statics::{static_preds, Statics};
use tracepor::explore::{Limits, Search};
use tracepor::model::em::{EmModel, NEVER};
use tracepor::model::{load, LoadOptions, Loaded};

use super::trace_dirs;

/// `hb0` by the definition, on a dense matrix: the closure of the static edges, then of the
/// FIFO edges (RET of m1 -> CALL of m2 when post(m1) is before post(m2), one looper),
/// repeated until no FIFO edge is new.
fn naive(model: &EmModel) -> Vec<Vec<bool>> {
    let n = model.trace.ops.len();
    let mut preds = static_preds(model);
    let hs: Vec<(u32, u32, u32, u32)> = model
        .handlers
        .iter()
        .flatten()
        .filter(|h| h.post != NEVER && !h.ops.is_empty())
        .map(|h| (h.thread, h.post, h.ops[0], *h.ops.last().unwrap()))
        .collect();
    loop {
        // before[b][a]: a before b. Fixpoint of "a pred of b, or before a pred of b".
        let mut before = vec![vec![false; n]; n];
        loop {
            let mut changed = false;
            for b in 0..n {
                for &p in &preds[b] {
                    let p = p as usize;
                    if !before[b][p] {
                        before[b][p] = true;
                        changed = true;
                    }
                    for a in 0..n {
                        if before[p][a] && !before[b][a] {
                            before[b][a] = true;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut new = false;
        for &(l1, p1, _, r1) in &hs {
            for &(l2, p2, c2, _) in &hs {
                if l1 == l2 && p1 != p2 && before[p2 as usize][p1 as usize] && !preds[c2 as usize].contains(&r1) {
                    preds[c2 as usize].push(r1);
                    new = true;
                }
            }
        }
        if !new {
            return before;
        }
    }
}

/// The per-chain read candidates are the scan's, for every read of every EM-Explorer
/// trace and fixture (the complete end set).
#[test]
fn read_candidates_by_chain_equal_the_scan() {
    let mut reads = 0;
    for d in trace_dirs(&["../shared/traces/em-explorer", "fixtures/em"]) {
        let Ok(Loaded::Em(model)) = load(&d, LoadOptions::default()) else { panic!("cannot load {}", d.display()) };
        let mut search = Search::new(&model, Limits::default());
        let st = Statics::new(&mut search).expect("not stopped");
        let all = vec![u64::MAX; st.n.div_ceil(64).max(1)];
        for (loc, rs) in st.reads.iter().enumerate() {
            for &r in rs {
                let want = st.read_candidates_by_scan(r, loc as u32, &all);
                assert_eq!(st.read_candidates(r, loc as u32, &all), want, "{}: read {r}", d.display());
                reads += 1;
            }
        }
    }
    assert!(reads > 1000, "only {reads} reads compared");
}

/// The chain clocks decide the relation the definition gives, on every EM-Explorer trace
/// and fixture small enough for a dense matrix.
#[test]
fn chain_clocks_decide_hb0_with_fifo_edges() {
    let dirs = trace_dirs(&["../shared/traces/em-explorer", "fixtures/em"]);
    assert!(dirs.len() >= 30, "traces not found: {dirs:?}");
    let mut checked = 0;
    for d in &dirs {
        let Ok(Loaded::Em(model)) = load(d, LoadOptions::default()) else { panic!("cannot load {}", d.display()) };
        // The naive closure is cubic: the TACAS traces (450-600 operations) are left out.
        if model.trace.ops.len() > 300 {
            continue;
        }
        checked += 1;
        let mut search = Search::new(&model, Limits::default());
        let st = Statics::new(&mut search).expect("not stopped");
        let want = naive(&model);
        let n = model.trace.ops.len();
        for b in 0..n as u32 {
            for a in 0..n as u32 {
                let w = a != b && want[b as usize][a as usize];
                assert_eq!(st.before(a, b), w, "{}: {a} before {b}", d.display());
            }
        }
    }
    assert!(checked >= 30, "only {checked} traces checked");
}
