//! Building the EM transition system from a trace (em-trace.md, "Replay semantics"): dense
//! threads, handlers, locks and read slots, the static edges every execution must respect
//! (FORK -> child, ATTACH-Q -> posts, lifecycle ENABLE -> TRIGGER, dependence.txt), and the
//! rejection of a trace whose static edges form a cycle (no execution could replay it).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{EmModel, Handler, Thread, NEVER};
use crate::trace::em::{EmTrace, EnvKind, OpKind};
use crate::trace::InputError;

/// Rejects a trace whose happens-before edges that hold whatever the interleaving (program
/// order of each thread and handler, FORK -> child, ATTACH-Q -> post, POST and LOOP -> CALL,
/// enable -> trigger, dependence.txt) form a cycle: no execution could run the operations on it,
/// so exploring would report them as a deadlock of the program when the input is at fault.
/// Reported at a dependence.txt edge on the cycle when there is one, else at a trace line.
fn check_acyclic(
    trace: &EmTrace,
    waits_for: &[SmallVec<[u32; 2]>],
    prev_in_task: &[u32],
    handlers: &[Option<Handler>],
    loop_op: &[u32],
    op_thread: &[u32],
) -> Result<(), InputError> {
    let n = trace.ops.len();
    let preds = |p: usize, out: &mut SmallVec<[u32; 6]>| {
        out.clear();
        out.extend(waits_for[p].iter().copied().filter(|&w| w != NEVER));
        if prev_in_task[p] != NEVER {
            out.push(prev_in_task[p]);
        }
        if let OpKind::Call { msg } = trace.ops[p].kind {
            if let Some(h) = handlers[msg as usize].as_ref().filter(|h| h.post != NEVER) {
                out.push(h.post);
            }
            let l = loop_op[op_thread[p] as usize];
            if l != NEVER {
                out.push(l);
            }
        }
    };
    // Kahn's algorithm over successor lists in one flat array (traces reach millions of ops).
    let mut indeg = vec![0u32; n];
    let mut start = vec![0u32; n + 1];
    let mut buf = SmallVec::new();
    for p in 0..n {
        preds(p, &mut buf);
        indeg[p] = buf.len() as u32;
        for &q in &buf {
            start[q as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut succ = vec![0u32; start[n] as usize];
    for p in 0..n {
        preds(p, &mut buf);
        for &q in &buf {
            succ[fill[q as usize] as usize] = p as u32;
            fill[q as usize] += 1;
        }
    }
    let mut ready: Vec<u32> = (0..n as u32).filter(|&p| indeg[p as usize] == 0).collect();
    let mut done = 0;
    while let Some(q) = ready.pop() {
        done += 1;
        for &p in &succ[start[q as usize] as usize..start[q as usize + 1] as usize] {
            indeg[p as usize] -= 1;
            if indeg[p as usize] == 0 {
                ready.push(p);
            }
        }
    }
    if done == n {
        return Ok(());
    }
    // Every operation left has a predecessor left: walking back from one must come round.
    let mut seen = vec![u32::MAX; n];
    let mut path = Vec::new();
    let mut p = (0..n).find(|&p| indeg[p] > 0).unwrap_or(0);
    while seen[p] == u32::MAX {
        seen[p] = path.len() as u32;
        path.push(p as u32);
        preds(p, &mut buf);
        match buf.iter().find(|&&q| indeg[q as usize] > 0) {
            Some(&q) => p = q as usize,
            None => break,
        }
    }
    // `path` runs backwards along edges; the cycle is its tail from the repeated operation.
    let mut cycle: Vec<u32> = path[seen[p].min(path.len() as u32) as usize..].to_vec();
    cycle.reverse();
    // Shown from its earliest operation, whichever one the walk started at.
    let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
    cycle.rotate_left(first);
    let shown: Vec<String> = cycle.iter().map(|&q| trace.ops[q as usize].index.to_string()).collect();
    let text = format!("{} -> {}", shown.join(" -> "), shown.first().map_or("", String::as_str));
    let on_cycle =
        |src: u32, dest: u32| cycle.iter().zip(cycle.iter().cycle().skip(1)).any(|(&a, &b)| a == src && b == dest);
    if let Some(i) = trace.dependence.iter().position(|&(src, dest)| on_cycle(src, dest)) {
        let (src, dest) = trace.dependence[i];
        return Err(InputError::at(
            &trace.dependence_file,
            trace.dependence_lines.get(i).copied().unwrap_or(0) as usize,
            1,
            &format!("src:{} dest:{}", trace.ops[src as usize].index, trace.ops[dest as usize].index),
            format!("dependence edge closes a happens-before cycle ({text}), contradicting the trace's order"),
        ));
    }
    let o = &trace.ops[cycle[0] as usize];
    Err(InputError::at(
        &trace.file,
        o.line as usize,
        1,
        &o.index.to_string(),
        format!("operations wait for each other in a cycle ({text}): not replayable"),
    ))
}

impl EmModel {
    /// Builds the transition system, rejecting traces whose structure it cannot replay.
    pub fn new(trace: EmTrace) -> Result<Self, InputError> {
        let n = trace.ops.len();
        let mut raws: Vec<u32> = trace.ops.iter().map(|o| o.tid).collect();
        for o in &trace.ops {
            match o.kind {
                OpKind::Fork { child } => raws.push(child),
                OpKind::Post { dest, .. } => raws.push(dest),
                OpKind::Notify { target } => raws.push(target),
                _ => {}
            }
        }
        raws.sort_unstable();
        raws.dedup();
        let raw_thread: FxHashMap<u32, u32> = raws.iter().enumerate().map(|(i, &r)| (r, i as u32)).collect();
        let mut threads: Vec<Thread> = raws.iter().map(|&raw| Thread { raw, ..Default::default() }).collect();
        let mut handlers: Vec<Option<Handler>> = vec![None; trace.messages.len()];
        let mut post_of: Vec<u32> = vec![NEVER; trace.messages.len()];
        let nthreads = threads.len() as u32;
        let mut op_thread = vec![0u32; n];
        let mut op_task = vec![0u32; n];
        let mut prev_in_task = vec![NEVER; n];
        let mut last_of_task: Vec<u32> = vec![NEVER; threads.len() + trace.messages.len()];
        let mut running: Vec<Option<u32>> = vec![None; threads.len()];
        let mut slot = vec![0u32; n];
        let mut lock_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut reads = 0u32;
        let mut fork_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut attach_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut lifecycle_enables: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut waits_for: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];

        // Whether each thread's THREADINIT has been seen: a thread's operations follow it.
        let mut started = vec![false; threads.len()];
        let mut loop_op: Vec<u32> = vec![NEVER; threads.len()];
        for (p, o) in trace.ops.iter().enumerate() {
            let t = raw_thread[&o.tid];
            op_thread[p] = t;
            let reject = |msg: String| InputError::at(&trace.file, o.line as usize, 1, &o.index.to_string(), msg);
            if o.kind == OpKind::ThreadInit {
                started[t as usize] = true;
            } else if !started[t as usize] {
                return Err(reject(format!("operation of thread {} before its THREADINIT", o.tid)));
            }
            if o.kind == OpKind::Loop {
                loop_op[t as usize] = p as u32;
            }
            let task = match (o.kind, running[t as usize]) {
                (OpKind::Call { msg }, _) => {
                    running[t as usize] = Some(msg);
                    handlers[msg as usize] = Some(Handler { thread: t, post: post_of[msg as usize], ops: Vec::new() });
                    threads[t as usize].messages.push(msg);
                    nthreads + msg
                }
                (OpKind::Ret { msg }, _) => {
                    running[t as usize] = None;
                    nthreads + msg
                }
                (_, Some(msg)) => nthreads + msg,
                (_, None) => {
                    let th = &mut threads[t as usize];
                    if th.loop_after.is_some() {
                        return Err(reject(format!(
                            "operation of thread {} outside a handler after its LOOP: not replayable",
                            th.raw
                        )));
                    }
                    th.own.push(p as u32);
                    if o.kind == OpKind::Loop {
                        th.loop_after = Some(th.own.len() as u32);
                    }
                    t
                }
            };
            if task >= nthreads {
                if let Some(h) = handlers[(task - nthreads) as usize].as_mut() {
                    h.ops.push(p as u32);
                }
            }
            op_task[p] = task;
            prev_in_task[p] = last_of_task[task as usize];
            last_of_task[task as usize] = p as u32;
            match o.kind {
                OpKind::Lock { lock } | OpKind::Unlock { lock } => {
                    let next = lock_ids.len() as u32;
                    slot[p] = *lock_ids.entry(lock).or_insert(next);
                }
                OpKind::Read { .. } => {
                    slot[p] = reads;
                    reads += 1;
                }
                OpKind::Fork { child } => {
                    fork_of.insert(child, p as u32);
                }
                OpKind::AttachQ { .. } => {
                    attach_of.entry(o.tid).or_insert(p as u32);
                }
                OpKind::Post { msg, .. } => post_of[msg as usize] = p as u32,
                OpKind::Enable { env: EnvKind::Lifecycle, key } => {
                    lifecycle_enables.entry(key).or_default().push(p as u32)
                }
                OpKind::Trigger { env: EnvKind::Lifecycle, key } => {
                    // Matched with the latest enable of the same (id, state) not yet triggered.
                    if let Some(e) = lifecycle_enables.get_mut(&key).and_then(Vec::pop) {
                        waits_for[p].push(e);
                    }
                }
                _ => {}
            }
        }
        // A trace that ends inside a handler, or a forked thread that never starts, cannot be
        // replayed as recorded: no shipped trace has either (docs/em-semantics.md).
        if let Some(msg) = running.iter().flatten().next() {
            let call = &trace.ops[handlers[*msg as usize].as_ref().map_or(0, |h| h.ops[0]) as usize];
            return Err(InputError::at(
                &trace.file,
                call.line as usize,
                1,
                &call.index.to_string(),
                format!(
                    "trace ends inside the handler of message {} (CALL without RET)",
                    trace.messages[*msg as usize]
                ),
            ));
        }
        // The earliest such FORK, so that the report does not depend on hash order.
        if let Some((&child, &fork)) =
            fork_of.iter().filter(|(c, _)| !started[raw_thread[c] as usize]).min_by_key(|(_, &f)| f)
        {
            {
                let o = &trace.ops[fork as usize];
                return Err(InputError::at(
                    &trace.file,
                    o.line as usize,
                    1,
                    &o.index.to_string(),
                    format!("thread {child} is forked but never starts (no THREADINIT)"),
                ));
            }
        }
        // Static edges known only once every operation is seen.
        for th in &threads {
            if let (Some(&first), Some(&fork)) = (th.own.first(), fork_of.get(&th.raw)) {
                if fork < first {
                    waits_for[first as usize].push(fork);
                }
            }
        }
        for (p, o) in trace.ops.iter().enumerate() {
            if let OpKind::Post { dest, .. } = o.kind {
                waits_for[p].push(attach_of.get(&dest).copied().unwrap_or(NEVER));
            }
        }
        for &(src, dest) in &trace.dependence {
            waits_for[dest as usize].push(src);
        }
        check_acyclic(&trace, &waits_for, &prev_in_task, &handlers, &loop_op, &op_thread)?;
        Ok(EmModel {
            trace,
            threads,
            handlers,
            raw_thread,
            op_thread,
            op_task,
            prev_in_task,
            waits_for,
            slot,
            locks: lock_ids.len() as u32,
            reads,
            lock_symbols: {
                let mut by_id = vec![0; lock_ids.len()];
                for (&sym, &id) in &lock_ids {
                    by_id[id as usize] = sym;
                }
                by_id
            },
        })
    }
}
