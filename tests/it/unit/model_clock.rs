//! Unit tests of src/model/clock.rs: chain clocks against dense vector clocks, and the growth
//! their buffer announces.

use tracepor::model::clock::{join_into, ChainClocks};

/// `growth_bytes` is 0 while the next push fits, and the doubled buffer's size when it
/// may not.
#[test]
fn growth_bytes_names_the_doubling_before_it_happens() {
    let mut c = ChainClocks::with_capacity(1, 2);
    assert_eq!(c.growth_bytes(), 0);
    let mut grew = false;
    for p in 0..64u32 {
        let g = c.growth_bytes();
        let cap = c.buffer_capacity();
        c.push(&[], (p > 0).then(|| p - 1), |_| false);
        if c.buffer_capacity() > cap {
            assert!(g >= (c.buffer_capacity() * 4) as u64 / 2 && g > 0, "grew to {} with {g}", c.buffer_capacity());
            grew = true;
        }
    }
    assert!(grew);
}

#[test]
fn join_into_is_pointwise_max_over_the_shorter() {
    let mut a = [1, 5, 0];
    join_into(&mut a, &[3, 2, 7, 9]);
    assert_eq!(a, [3, 5, 7]);
}

/// Random DAGs pushed and popped: the chain clocks answer every query as a dense clock per
/// task does, and never use more chains than there are tasks.
#[test]
fn chain_clocks_decide_the_closure_of_the_edges() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for _round in 0..200 {
        let tasks = 1 + rnd(12) as usize;
        let mut c = ChainClocks::default();
        // Per position: its task and its dense clock; per task: its positions.
        let mut task_of: Vec<usize> = Vec::new();
        let mut dense: Vec<Vec<u32>> = Vec::new();
        let mut last_of_task: Vec<Vec<u32>> = vec![Vec::new(); tasks];
        for _step in 0..60 {
            let t = rnd(tasks as u64) as usize;
            // A task ends at its 6th event: it is not picked again (while that one is on).
            if !task_of.is_empty() && (rnd(4) == 0 || last_of_task[t].len() >= 6) {
                let t = task_of.pop().unwrap();
                last_of_task[t].pop();
                dense.pop();
                c.pop();
            } else {
                let n = task_of.len() as u64;
                let prev = last_of_task[t].last().copied();
                let mut preds: Vec<u32> = prev.into_iter().collect();
                for _ in 0..rnd(3) {
                    if n > 0 {
                        preds.push(rnd(n) as u32);
                    }
                }
                let mut d = vec![0u32; tasks];
                for &p in &preds {
                    join_into(&mut d, &dense[p as usize]);
                }
                d[t] += 1;
                let ends = |p: u32| last_of_task.iter().any(|l| l.len() >= 6 && *l.last().unwrap() == p);
                c.push(&preds, prev, ends);
                task_of.push(t);
                last_of_task[t].push(task_of.len() as u32 - 1);
                dense.push(d);
            }
            let started = last_of_task.iter().filter(|l| !l.is_empty()).count();
            assert!(c.chains() <= started, "{} chains, {started} tasks", c.chains());
            for b in 0..task_of.len() {
                for a in 0..task_of.len() {
                    let want = dense[b][task_of[a]] >= dense[a][task_of[a]];
                    assert_eq!(c.happens_before(a, b), want, "{a} -> {b}");
                }
            }
        }
    }
}
