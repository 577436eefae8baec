//! Unit tests of src/explore/reads_from/witness.rs: the witness search polls by the work done.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tracepor::explore::reads_from::statics::Statics;
use tracepor::explore::reads_from::witness::Witness;
use tracepor::explore::reads_from::Constraints;
use tracepor::explore::{Limits, Search, WORK_EVERY};
use tracepor::model::em::EmModel;

/// A run's steps each cost a pass over the threads per thread tried: with thousands of
/// threads, 256 steps between two looks at the clock were seconds. With Ctrl-C already
/// pressed, the search stops once [`WORK_EVERY`] units of that work have accrued, counted in
/// steps (no clock). Planted and caught: with the step's work not counted
/// (`poll_work(0)`), the search ran 256 steps, past the bound of 56.
#[test]
fn the_witness_search_reads_the_clock_by_the_work_done() {
    // THREADS threads forked by the main one, each writing one shared field.
    const THREADS: u64 = 600;
    let mut text = String::from("1 START\n2 THREADINIT tid:1\n");
    let mut idx = 3;
    for t in 2..THREADS + 2 {
        text.push_str(&format!("{idx} FORK par-tid:1 child-tid:{t}\n{} THREADINIT tid:{t}\n", idx + 1));
        text.push_str(&format!("{} WRITE tid:{t} obj:0x1 class:C; field:f\n", idx + 2));
        idx += 3;
    }
    let trace = tracepor::trace::em::parse_trace(Path::new("threads.txt"), text.as_bytes()).expect("parses");
    let model = EmModel::new(trace).expect("a model");
    let st = Statics::new(&mut Search::new(&model, Limits::default())).expect("not stopped");
    let mut all = vec![0u64; st.n.div_ceil(64).max(1)];
    (0..st.n).for_each(|op| all[op / 64] |= 1 << (op % 64));
    let c = Constraints::none(&st, &all, true);
    let mut w = Witness::new(&st);
    // Unstopped, the run takes every operation: far more steps than the bound below.
    let mut free = Search::new(&model, Limits::default());
    assert!(w.search(&mut free, &c, None).is_some());
    assert!(free.stats.transitions >= 3 * THREADS, "{}", free.stats.transitions);
    // Each step grows at least one set over THREADS threads, plus the start.
    let bound = WORK_EVERY.div_ceil(2 * THREADS) + 1;
    let pressed = Arc::new(AtomicBool::new(true));
    let mut cut = Search::new(&model, Limits::default()).with_cancel(pressed);
    assert!(w.search(&mut cut, &c, None).is_none());
    assert_eq!(cut.stop_reason(), Some(tracepor::explore::StopReason::Interrupted));
    assert!(cut.stats.transitions <= bound, "{} steps, bound {bound}", cut.stats.transitions);
    assert!(bound < 256 / 2, "the bound is below what counting steps alone gives");
}
