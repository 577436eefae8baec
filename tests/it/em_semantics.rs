//! The replay semantics and happens-before rules of em-trace.md, one small trace per rule.

use crate::common;

use std::path::Path;

use tracepor::model::em::EmModel;
use tracepor::model::em_hb::EmHb;
use tracepor::model::Model;
use tracepor::trace::em::{parse_dependence, parse_trace};

fn model(trace: &str) -> EmModel {
    model_with(trace, "")
}

fn model_with(trace: &str, dependence: &str) -> EmModel {
    let mut t = parse_trace(Path::new("t.txt"), trace.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    parse_dependence(Path::new("dependence.txt"), dependence.as_bytes(), &mut t).unwrap_or_else(|e| panic!("{e}"));
    EmModel::new(t).unwrap_or_else(|e| panic!("{e}"))
}

/// Threads (raw ids) enabled after running the operations numbered `prefix`, each by its thread.
fn enabled_after(m: &EmModel, prefix: &[u32]) -> Vec<u32> {
    let mut s = m.initial();
    for &i in prefix {
        let p = m.trace.position(i).unwrap() as u32;
        let t = m.op_thread[p as usize];
        assert_eq!(m.enabled_op(&s, t), Some(p), "operation {i} is not enabled after the prefix");
        m.step(&mut s, t).unwrap();
    }
    let mut en = Vec::new();
    m.enabled(&s, &mut en);
    en.into_iter().map(|c| m.threads[c as usize].raw).collect()
}

/// Happens-before along the recorded order, by operation index.
fn hb(m: &EmModel) -> impl Fn(u32, u32) -> bool + '_ {
    let mut h = EmHb::new(m);
    for p in 0..m.trace.ops.len() as u32 {
        h.push(p);
    }
    move |a, b| {
        let pa = h.position(m.trace.position(a).unwrap() as u32).unwrap();
        let pb = h.position(m.trace.position(b).unwrap() as u32).unwrap();
        h.happens_before(pa, pb)
    }
}

const TWO_THREADS: &str = "1 START
2 THREADINIT tid:1
3 FORK par-tid:1 child-tid:2
4 LOCK tid:1 lock-obj:0x1
5 WRITE tid:1 obj:0xa class:C; field:1
6 UNLOCK tid:1 lock-obj:0x1
7 THREADINIT tid:2
8 LOCK tid:2 lock-obj:0x1
9 READ tid:2 obj:0xa class:C; field:1
10 UNLOCK tid:2 lock-obj:0x1
";

#[test]
fn fork_enables_the_child_and_orders_it() {
    let m = model(TWO_THREADS);
    assert_eq!(enabled_after(&m, &[]), vec![1]);
    assert_eq!(enabled_after(&m, &[2]), vec![1]);
    assert_eq!(enabled_after(&m, &[2, 3]), vec![1, 2]);
    let hb = hb(&m);
    assert!(hb(3, 7) && hb(2, 9));
}

#[test]
fn lock_blocks_other_threads_and_unlock_orders_the_next_lock() {
    let m = model(TWO_THREADS);
    assert_eq!(enabled_after(&m, &[2, 3, 4, 7]), vec![1], "thread 2 must wait for lock 0x1");
    assert_eq!(enabled_after(&m, &[2, 3, 4, 7, 5, 6]), vec![2], "thread 1 is done, thread 2 may lock");
    let hb = hb(&m);
    assert!(hb(6, 8) && hb(5, 9), "UNLOCK -> later LOCK of the same lock");
    assert!(!hb(7, 4), "no edge backwards");
}

#[test]
fn locks_are_reentrant() {
    let m = model(
        "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 LOCK tid:1 lock-obj:0x1\n5 LOCK tid:1 lock-obj:0x1\n\
         6 UNLOCK tid:1 lock-obj:0x1\n7 UNLOCK tid:1 lock-obj:0x1\n8 THREADINIT tid:2\n9 LOCK tid:2 lock-obj:0x1\n",
    );
    assert_eq!(enabled_after(&m, &[2, 3, 4]), vec![1, 2]);
    assert_eq!(enabled_after(&m, &[2, 3, 4, 8, 5, 6]), vec![1], "still held once after one UNLOCK");
    assert_eq!(enabled_after(&m, &[2, 3, 4, 8, 5, 6, 7]), vec![2]);
}

#[test]
fn wait_needs_a_notify_even_one_sent_before_the_thread_started() {
    let m = model(
        "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 NOTIFY tid:1 notifiedTid:2\n\
         5 THREADINIT tid:2\n6 WAIT tid:2\n7 THREADEXIT tid:2\n",
    );
    // Notify first, before thread 2 started: its WAIT is released later.
    assert_eq!(enabled_after(&m, &[2, 3, 4, 5]), vec![2]);
    // Reordered: thread 2 waits before the notify, blocked until it comes.
    let m2 = model(
        "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 THREADINIT tid:2\n5 WAIT tid:2\n\
         6 NOTIFY tid:1 notifiedTid:2\n7 THREADEXIT tid:2\n",
    );
    assert_eq!(enabled_after(&m2, &[2, 3, 4]), vec![1], "WAIT blocks without a pending NOTIFY");
    assert!(hb(&m)(4, 6), "NOTIFY -> the WAIT it releases");
    assert!(!hb(&m)(5, 4));
}

const LOOPER: &str = "1 START
2 THREADINIT tid:1
3 FORK par-tid:1 child-tid:2
4 FORK par-tid:1 child-tid:3
5 ATTACH-Q tid:1 queue:7
6 LOOP tid:1
7 THREADINIT tid:2
8 POST src:2 msg:1 dest:1
9 POST src:2 msg:2 dest:1
10 THREADINIT tid:3
11 POST src:3 msg:3 dest:1
12 CALL tid:1 msg:1
13 WRITE tid:1 obj:0xa class:C; field:1
14 RET tid:1 msg:1
15 CALL tid:1 msg:2
16 READ tid:1 obj:0xa class:C; field:1
17 RET tid:1 msg:2
18 CALL tid:1 msg:3
19 READ tid:1 obj:0xa class:C; field:1
20 RET tid:1 msg:3
";

#[test]
fn posts_wait_for_attach_and_queues_are_fifo() {
    let m = model(LOOPER);
    assert_eq!(enabled_after(&m, &[2, 3, 4, 7]), vec![1, 3], "POST before ATTACH-Q is blocked");
    assert_eq!(enabled_after(&m, &[2, 3, 4, 7, 5]), vec![1, 2, 3]);
    // Thread 3's message posted first runs first.
    let prefix = [2, 3, 4, 5, 6, 10, 11, 7, 8];
    assert_eq!(enabled_after(&m, &prefix), vec![1, 2]);
    let mut s = m.initial();
    for &i in &prefix {
        let p = m.trace.position(i).unwrap();
        m.step(&mut s, m.op_thread[p]).unwrap();
    }
    let t1 = m.thread_of_raw(1).unwrap();
    assert_eq!(m.describe(&s, t1), m.op_text(m.trace.position(18).unwrap() as u32), "front of the queue is msg 3");
}

#[test]
fn a_looper_runs_one_handler_at_a_time() {
    let m = model(LOOPER);
    let s_prefix = [2, 3, 4, 5, 6, 7, 8, 9, 12];
    // Inside handler 1 the looper's next operation is the handler's, not another CALL.
    let mut s = m.initial();
    for &i in &s_prefix {
        let p = m.trace.position(i).unwrap();
        m.step(&mut s, m.op_thread[p]).unwrap();
    }
    assert_eq!(m.next_op(&s, m.thread_of_raw(1).unwrap()), Some(m.trace.position(13).unwrap() as u32));
}

#[test]
fn post_loop_and_fifo_rule_in_happens_before() {
    let m = model(LOOPER);
    let hb = hb(&m);
    assert!(hb(8, 12) && hb(6, 12) && hb(5, 8), "POST -> CALL, LOOP -> CALL, ATTACH-Q -> POST");
    assert!(hb(14, 15), "FIFO: post(1) -> post(2) by program order, so RET 1 -> CALL 2");
    assert!(hb(13, 16), "so the write in handler 1 is ordered before the read in handler 2");
    assert!(!hb(14, 18), "posts 8 and 11 are unordered: handlers 1 and 3 may be reordered");
    assert!(!hb(13, 19), "and so are their accesses");
    assert!(hb(12, 14), "program order inside a handler");
}

#[test]
fn dependence_edges_block_and_order() {
    let t = "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 NOP tid:1\n5 THREADINIT tid:2\n6 NOP tid:2\n";
    let m = model_with(t, "src:4 dest:6\n");
    assert_eq!(enabled_after(&m, &[2, 3, 5]), vec![1], "NOP 6 waits for 4");
    assert!(hb(&m)(4, 6));
    let free = model(t);
    assert_eq!(enabled_after(&free, &[2, 3, 5]), vec![1, 2]);
    assert!(!hb(&free)(4, 6));
}

#[test]
fn lifecycle_enable_orders_its_trigger() {
    let m = model(
        "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 ENABLE-LIFECYCLE tid:1 component:c id:5 state:RESUME\n\
         5 THREADINIT tid:2\n6 TRIGGER-LIFECYCLE tid:2 component:c id:5 state:RESUME\n",
    );
    assert_eq!(enabled_after(&m, &[2, 3, 5]), vec![1], "trigger waits for its enable");
    assert!(hb(&m)(4, 6));
}

#[test]
fn outcome_text_is_canonical() {
    let m = model(LOOPER);
    let end = m.replay_recorded().unwrap();
    assert_eq!(m.outcome(&end).to_string(), "rf 16<-13 19<-13 | final 13 | stuck");
    let dl = model(
        "1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 LOCK tid:1 lock-obj:0x1\n\
         5 LOCK tid:1 lock-obj:0x2\n6 UNLOCK tid:1 lock-obj:0x2\n7 UNLOCK tid:1 lock-obj:0x1\n8 THREADINIT tid:2\n\
         9 LOCK tid:2 lock-obj:0x2\n10 LOCK tid:2 lock-obj:0x1\n11 UNLOCK tid:2 lock-obj:0x1\n12 UNLOCK tid:2 lock-obj:0x2\n",
    );
    let mut s = dl.initial();
    for i in [2, 3, 4, 8, 9] {
        let p = dl.trace.position(i).unwrap();
        dl.step(&mut s, dl.op_thread[p]).unwrap();
    }
    let mut en = Vec::new();
    dl.enabled(&s, &mut en);
    assert!(en.is_empty());
    let o = dl.outcome(&s);
    assert!(o.stuck());
    assert_eq!(o.to_string(), "rf | final | stuck 5 6 7 10 11 12");
}

#[test]
fn reads_record_the_write_they_observed() {
    let m = model(LOOPER);
    // Handler 3 before handler 1: its read sees no write.
    let order = [2, 3, 4, 5, 6, 10, 11, 18, 19, 20, 7, 8, 9, 12, 13, 14, 15, 16, 17];
    let mut s = m.initial();
    for i in order {
        let p = m.trace.position(i).unwrap();
        let t = m.op_thread[p];
        assert_eq!(m.enabled_op(&s, t), Some(p as u32), "op {i}");
        m.step(&mut s, t).unwrap();
    }
    assert_eq!(m.outcome(&s).to_string(), "rf 16<-13 19<-0 | final 13 | stuck");
}

/// The clocks' width does not grow with the number of handlers: three threads
/// posting 2,000 messages in turn to one looper, whose handlers read and write shared fields
/// (as benches/gen_handlers.py writes them), need a handful of chains, not one per handler; and
/// the FIFO rule still orders each handler after the previous one of the same poster.
#[test]
fn clocks_stay_narrow_with_many_handlers() {
    let text = common::many_handlers_trace(2000, true);
    let m = model(&text);
    let mut h = EmHb::new(&m);
    for p in 0..m.trace.ops.len() as u32 {
        h.push(p);
    }
    assert!(m.tasks() > 2000);
    assert!(h.chains() <= 8, "{} chains for {} tasks", h.chains(), m.tasks());
    let hb = hb(&m);
    // RET of message 1 (op 15) -> CALL of message 4 (op 27): both posted by thread 3.
    assert!(hb(15, 27) && !hb(15, 17) && !hb(20, 22));
}
