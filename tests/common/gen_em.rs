//! The random EM-trace generator of the soundness suites: a small random program (threads,
//! loopers, posts from threads and handlers, handlers, locks, notify/wait, reads and writes on a
//! few shared locations, environment posts held back by dependence.txt) is run once under a
//! random scheduler, and that run, written in the trace language, is the trace. So every trace
//! is a valid recording.
//!
//! Besides the common shapes it produces the ones that broke `stateful-dpor` (issue 12): a NOTIFY
//! aimed at a thread before that thread starts (and its later WAIT), re-entrant locks, posts
//! from threads after they waited, handlers that lock (re-entrantly too), and loopers that read
//! and write before their LOOP. Some traces can deadlock (two threads taking two locks in
//! opposite orders), so that stuck outcomes are compared too.

use std::collections::VecDeque;
use std::fmt::Write;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// One action of a generated program.
#[derive(Clone, Debug)]
enum Act {
    Read(u32),
    Write(u32),
    Lock(u32),
    Unlock(u32),
    /// Post a fresh message with this handler body to looper (raw tid).
    Post(u32, Vec<Act>),
    Notify(u32),
    Wait,
    /// An environment thread's NOP, ordered after the operation numbered `.0` by dependence.txt.
    Nop(u32),
}

struct Gen {
    rng: SmallRng,
    locations: u32,
    locks: u32,
}

impl Gen {
    fn access(&mut self) -> Act {
        let a = self.rng.gen_range(0..self.locations);
        if self.rng.gen_bool(0.5) {
            Act::Write(a)
        } else {
            Act::Read(a)
        }
    }

    /// A straight-line body: accesses, lock-protected sections (nested, re-entrant), posts
    /// (with nested posts while `depth` allows) to loopers in `loopers`.
    fn body(&mut self, len: usize, loopers: &[u32], depth: u32) -> Vec<Act> {
        let mut out = Vec::new();
        for _ in 0..len {
            match self.rng.gen_range(0..11) {
                0..=2 => out.push(Act::Read(self.rng.gen_range(0..self.locations))),
                3..=5 => out.push(Act::Write(self.rng.gen_range(0..self.locations))),
                6 | 9 if self.locks > 0 => {
                    let l = self.rng.gen_range(0..self.locks);
                    out.push(Act::Lock(l));
                    let a = self.access();
                    out.push(a);
                    // Re-entry: the holder takes the lock again (LOCK/LOCK/UNLOCK/UNLOCK).
                    let reenter = self.rng.gen_bool(0.3);
                    if reenter {
                        out.push(Act::Lock(l));
                        let a = self.access();
                        out.push(a);
                    }
                    // Occasionally a second lock inside the first: lock-order deadlocks.
                    if self.locks > 1 && self.rng.gen_bool(0.3) {
                        let l2 = (l + 1) % self.locks;
                        out.push(Act::Lock(l2));
                        out.push(Act::Write(self.rng.gen_range(0..self.locations)));
                        out.push(Act::Unlock(l2));
                    }
                    if reenter {
                        out.push(Act::Unlock(l));
                    }
                    if self.rng.gen_bool(0.5) {
                        let a = self.access();
                        out.push(a);
                    }
                    out.push(Act::Unlock(l));
                }
                7..=8 if !loopers.is_empty() && depth > 0 => {
                    let dest = loopers[self.rng.gen_range(0..loopers.len())];
                    let n = self.rng.gen_range(1..4);
                    let h = self.body(n, loopers, depth - 1);
                    out.push(Act::Post(dest, h));
                }
                _ => out.push(Act::Read(self.rng.gen_range(0..self.locations))),
            }
        }
        out
    }
}

/// A thread's remaining work in the simulation.
struct Sim {
    tid: u32,
    /// Own actions left, in order (for a looper: what it does before its LOOP).
    own: Vec<Act>,
    looper: bool,
    looping: bool,
    queue: VecDeque<(u32, Vec<Act>)>,
    /// The handler being run: (message, actions left).
    running: Option<(u32, Vec<Act>)>,
    started: bool,
    exited: bool,
    notifies: u32,
    /// An environment thread (NATIVE-POST instead of POST).
    env: bool,
}

impl Sim {
    fn new(tid: u32, own: Vec<Act>, looper: bool, env: bool) -> Self {
        Sim {
            tid,
            own,
            looper,
            looping: false,
            queue: VecDeque::new(),
            running: None,
            started: false,
            exited: false,
            notifies: 0,
            env,
        }
    }
}

/// Generates a valid trace (trace.txt and dependence.txt texts) from `seed`, or None when the
/// random run deadlocked.
pub fn generate(seed: u64) -> Option<(String, String)> {
    let mut g = Gen { rng: SmallRng::seed_from_u64(seed), locations: 0, locks: 0 };
    g.locations = g.rng.gen_range(1..4);
    g.locks = g.rng.gen_range(0..3);
    let n_loopers = g.rng.gen_range(1..3u32);
    // At most four threads besides the loopers, so that the exhaustive search stays quick.
    let n_env = g.rng.gen_range(0..2u32);
    let n_plain = g.rng.gen_range(1..4 - n_env);
    // Thread 1 is the main looper; further loopers 2..; plain threads after them.
    let loopers: Vec<u32> = (1..=n_loopers).collect();
    let mut sims: Vec<Sim> = Vec::new();
    for &t in &loopers {
        // A looper other than main sometimes reads and writes before its LOOP.
        let pre = if t > 1 && g.rng.gen_bool(0.4) {
            let n = g.rng.gen_range(1..3);
            g.body(n, &[], 0)
        } else {
            Vec::new()
        };
        sims.push(Sim::new(t, pre, true, false));
    }
    let plain: Vec<u32> = (n_loopers + 1..=n_loopers + n_plain).collect();
    for &t in &plain {
        let len = g.rng.gen_range(1..4);
        let mut own = g.body(len, &loopers, 2);
        // Sometimes a notify to another plain thread, which then waits once.
        if plain.len() > 1 && g.rng.gen_bool(0.25) {
            let other = plain[(plain.iter().position(|&p| p == t).unwrap_or(0) + 1) % plain.len()];
            own.insert(g.rng.gen_range(0..=own.len()), Act::Notify(other));
        }
        sims.push(Sim::new(t, own, false, false));
    }
    // Sometimes two plain threads take two locks in opposite orders: the recorded run is one
    // that did not deadlock, other interleavings do (stuck outcomes to reach).
    if plain.len() >= 2 && g.rng.gen_bool(0.6) {
        // Locks 0 and 1 (the holder table below is sized from `g.locks`).
        g.locks = g.locks.max(2);
        for (k, (a, b)) in [(0, 1), (1, 0)].into_iter().enumerate() {
            let block = [Act::Lock(a), Act::Lock(b), Act::Unlock(b), Act::Unlock(a)];
            if let Some(s) = sims.iter_mut().find(|s| s.tid == plain[k]) {
                let at = g.rng.gen_range(0..=s.own.len());
                s.own.splice(at..at, block);
            }
        }
    }
    // Environment threads: a NOP held back by a dependence.txt edge, then a native post, as
    // DroidRacer models binder and delayed posts.
    for k in 0..n_env {
        let t = n_loopers + n_plain + 1 + k;
        let after = g.rng.gen_range(2..12u32);
        let len = g.rng.gen_range(1..3);
        let h = g.body(len, &loopers, 1);
        let own = vec![Act::Nop(after), Act::Post(1, h)];
        sims.push(Sim::new(t, own, false, true));
    }
    // A NOTIFY from main to a plain thread before main forks it (the WAIT it releases comes
    // later): a notify that runs before its target exists.
    let early_notify = (!plain.is_empty() && g.rng.gen_bool(0.25)).then(|| plain[g.rng.gen_range(0..plain.len())]);
    // Waits: a plain thread that some thread notifies waits once, at a random point; what
    // follows it (posts included) runs only once it is released.
    let mut targets: Vec<u32> = sims
        .iter()
        .flat_map(|s| s.own.iter())
        .filter_map(|a| if let Act::Notify(t) = a { Some(*t) } else { None })
        .collect();
    targets.extend(early_notify);
    for t in targets {
        if let Some(s) = sims.iter_mut().find(|s| s.tid == t) {
            if !s.own.iter().any(|a| matches!(a, Act::Wait)) {
                let at = g.rng.gen_range(0..=s.own.len());
                s.own.insert(at, Act::Wait);
            }
        }
    }

    let mut text = String::from("1 START\n");
    let mut dependence = String::new();
    let mut idx = 2u32;
    // Main thread: init, attach, (the early notify), fork every other thread, loop.
    emit(&mut text, &mut idx, "THREADINIT tid:1".into());
    emit(&mut text, &mut idx, "ATTACH-Q tid:1 queue:1".into());
    if let Some(t) = early_notify {
        emit(&mut text, &mut idx, format!("NOTIFY tid:1 notifiedTid:{t}"));
        if let Some(s) = sims.iter_mut().find(|s| s.tid == t) {
            s.notifies += 1;
        }
    }
    for s in &sims[1..] {
        emit(&mut text, &mut idx, format!("FORK par-tid:1 child-tid:{}", s.tid));
    }
    emit(&mut text, &mut idx, "LOOP tid:1 queue:1".into());
    sims[0].started = true;
    sims[0].looping = true;
    let mut next_msg = 1u32;
    let mut holder: Vec<Option<(u32, u32)>> = vec![None; g.locks as usize];
    let mut attached: Vec<u32> = vec![1];
    loop {
        // Runnable threads.
        let mut runnable: Vec<usize> = Vec::new();
        for (i, s) in sims.iter().enumerate() {
            if s.exited {
                continue;
            }
            if !s.started {
                runnable.push(i);
                continue;
            }
            let next = if s.looper && s.looping {
                match &s.running {
                    Some((_, acts)) => acts.first(),
                    None => {
                        if !s.queue.is_empty() {
                            runnable.push(i);
                        }
                        continue;
                    }
                }
            } else {
                s.own.first()
            };
            let ok = match next {
                Some(Act::Lock(l)) => holder[*l as usize].is_none_or(|(h, _)| h == s.tid),
                Some(Act::Wait) => s.notifies > 0,
                Some(Act::Post(d, _)) => attached.contains(d),
                Some(Act::Nop(after)) => idx > *after,
                _ => true,
            };
            if ok {
                runnable.push(i);
            }
        }
        if runnable.is_empty() {
            break;
        }
        let i = runnable[g.rng.gen_range(0..runnable.len())];
        let tid = sims[i].tid;
        if !sims[i].started {
            sims[i].started = true;
            emit(&mut text, &mut idx, format!("THREADINIT tid:{tid}"));
            if sims[i].looper {
                emit(&mut text, &mut idx, format!("ATTACH-Q tid:{tid} queue:{tid}"));
                attached.push(tid);
            }
            continue;
        }
        if sims[i].looper && !sims[i].looping && sims[i].own.is_empty() {
            sims[i].looping = true;
            emit(&mut text, &mut idx, format!("LOOP tid:{tid} queue:{tid}"));
            continue;
        }
        if sims[i].looper && sims[i].looping && sims[i].running.is_none() {
            let (m, acts) = sims[i].queue.pop_front()?;
            emit(&mut text, &mut idx, format!("CALL tid:{tid} msg:{m}"));
            sims[i].running = Some((m, acts));
            continue;
        }
        let act = if sims[i].looper && sims[i].looping {
            let (m, acts) = sims[i].running.as_mut()?;
            if acts.is_empty() {
                let m = *m;
                emit(&mut text, &mut idx, format!("RET tid:{tid} msg:{m}"));
                sims[i].running = None;
                continue;
            }
            acts.remove(0)
        } else {
            if sims[i].own.is_empty() {
                emit(&mut text, &mut idx, format!("THREADEXIT tid:{tid}"));
                sims[i].exited = true;
                continue;
            }
            sims[i].own.remove(0)
        };
        match act {
            Act::Read(a) => emit(&mut text, &mut idx, format!("READ tid:{tid} obj:0x{a:x} class:C; field:{a}")),
            Act::Write(a) => emit(&mut text, &mut idx, format!("WRITE tid:{tid} obj:0x{a:x} class:C; field:{a}")),
            Act::Lock(l) => {
                let depth = holder[l as usize].map_or(0, |(_, d)| d);
                holder[l as usize] = Some((tid, depth + 1));
                emit(&mut text, &mut idx, format!("LOCK tid:{tid} lock-obj:0x{:x}", 100 + l));
            }
            Act::Unlock(l) => {
                holder[l as usize] = match holder[l as usize] {
                    Some((h, d)) if d > 1 => Some((h, d - 1)),
                    _ => None,
                };
                emit(&mut text, &mut idx, format!("UNLOCK tid:{tid} lock-obj:0x{:x}", 100 + l));
            }
            Act::Post(d, h) => {
                let m = next_msg;
                next_msg += 1;
                let kind = if sims[i].env { "NATIVE-POST" } else { "POST" };
                emit(&mut text, &mut idx, format!("{kind} src:{tid} msg:{m} dest:{d}"));
                if let Some(s) = sims.iter_mut().find(|s| s.tid == d) {
                    s.queue.push_back((m, h));
                }
            }
            Act::Notify(t) => {
                emit(&mut text, &mut idx, format!("NOTIFY tid:{tid} notifiedTid:{t}"));
                if let Some(s) = sims.iter_mut().find(|s| s.tid == t) {
                    s.notifies += 1;
                }
            }
            Act::Wait => {
                sims[i].notifies -= 1;
                emit(&mut text, &mut idx, format!("WAIT tid:{tid}"));
            }
            Act::Nop(after) => {
                let _ = writeln!(dependence, "src:{after} dest:{idx}");
                emit(&mut text, &mut idx, format!("NOP tid:{tid}"));
            }
        }
    }
    // Every thread must have finished its work: otherwise the random run deadlocked.
    let unfinished = sims
        .iter()
        .any(|s| (!s.looper && !s.exited) || !s.own.is_empty() || s.running.is_some() || !s.queue.is_empty());
    if unfinished {
        return None;
    }
    Some((text, dependence))
}

/// Appends operation number `idx` to the trace text.
fn emit(text: &mut String, idx: &mut u32, line: String) {
    let _ = writeln!(text, "{idx} {line}");
    *idx += 1;
}
