//! Randomized soundness of `dpor`, `dpor-sleep` and `em-dpor`: small EM traces are generated (threads,
//! loopers, posts from threads and from handlers, handlers, locks, notify/wait, reads and
//! writes on a few shared locations), written as trace text, parsed with the project's parser,
//! and for every seed the outcome sets of the reductions must equal `full-stateless`'s.
//!
//! A trace is produced by running a random program once (a random scheduler), so it is always
//! a valid recording. A seed that fails is kept as a fixture under `fixtures/em/` (see
//! `dpor_fixtures` in tests/dpor_benchmarks.rs).

use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tracepor::explore::{self, Limits, Outcomes};
use tracepor::model::em::EmModel;
use tracepor::trace::em::{parse_dependence, parse_trace};

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
    /// A straight-line body: accesses, a lock-protected section, posts (with nested posts
    /// while `depth` allows), to loopers in `loopers`.
    fn body(&mut self, len: usize, loopers: &[u32], depth: u32) -> Vec<Act> {
        let mut out = Vec::new();
        for _ in 0..len {
            match self.rng.gen_range(0..10) {
                0..=2 => out.push(Act::Read(self.rng.gen_range(0..self.locations))),
                3..=5 => out.push(Act::Write(self.rng.gen_range(0..self.locations))),
                6 if self.locks > 0 => {
                    let l = self.rng.gen_range(0..self.locks);
                    out.push(Act::Lock(l));
                    let a = self.rng.gen_range(0..self.locations);
                    out.push(if self.rng.gen_bool(0.5) { Act::Write(a) } else { Act::Read(a) });
                    // Occasionally a second lock inside the first: lock-order deadlocks.
                    if self.locks > 1 && self.rng.gen_bool(0.3) {
                        let l2 = (l + 1) % self.locks;
                        out.push(Act::Lock(l2));
                        out.push(Act::Write(self.rng.gen_range(0..self.locations)));
                        out.push(Act::Unlock(l2));
                    }
                    out.push(Act::Unlock(l));
                }
                7..=8 if !loopers.is_empty() && depth > 0 => {
                    let dest = loopers[self.rng.gen_range(0..loopers.len())];
                    let n = self.rng.gen_range(1..3);
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
    /// Own actions left (plain threads), in order.
    own: Vec<Act>,
    looper: bool,
    queue: std::collections::VecDeque<(u32, Vec<Act>)>,
    /// The handler being run: (message, actions left).
    running: Option<(u32, Vec<Act>)>,
    started: bool,
    exited: bool,
    notifies: u32,
    /// An environment thread (NATIVE-POST instead of POST).
    env: bool,
}

impl Sim {
    /// A thread about to start (the main looper, thread 1, has started).
    fn new(tid: u32, own: Vec<Act>, looper: bool, env: bool) -> Self {
        Sim {
            tid,
            own,
            looper,
            queue: Default::default(),
            running: None,
            started: tid == 1,
            exited: false,
            notifies: 0,
            env,
        }
    }
}

/// Generates a valid trace (trace.txt and dependence.txt texts) from `seed`, or None when the
/// random run deadlocked.
fn generate(seed: u64) -> Option<(String, String)> {
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
        sims.push(Sim::new(t, Vec::new(), true, false));
    }
    let plain: Vec<u32> = (n_loopers + 1..=n_loopers + n_plain).collect();
    for &t in &plain {
        let len = g.rng.gen_range(1..4);
        let mut own = g.body(len, &loopers, 2);
        // Sometimes a notify to another plain thread, which then waits once.
        if plain.len() > 1 && g.rng.gen_bool(0.2) {
            let other = plain[(plain.iter().position(|&p| p == t).unwrap_or(0) + 1) % plain.len()];
            own.insert(g.rng.gen_range(0..=own.len()), Act::Notify(other));
        }
        sims.push(Sim::new(t, own, false, false));
    }
    // Environment threads: a NOP held back by a dependence.txt edge, then a native post, as
    // DroidRacer models binder and delayed posts.
    for k in 0..n_env {
        let t = n_loopers + n_plain + 1 + k;
        let after = g.rng.gen_range(2..12u32);
        let len = g.rng.gen_range(1..2);
        let h = g.body(len, &loopers, 1);
        let own = vec![Act::Nop(after), Act::Post(1, h)];
        sims.push(Sim::new(t, own, false, true));
    }
    let mut dependence = String::new();
    // Waits: a plain thread that some thread notifies waits once, at a random point.
    let targets: Vec<u32> = sims
        .iter()
        .flat_map(|s| s.own.iter())
        .filter_map(|a| if let Act::Notify(t) = a { Some(*t) } else { None })
        .collect();
    for t in targets {
        if let Some(s) = sims.iter_mut().find(|s| s.tid == t) {
            if !s.own.iter().any(|a| matches!(a, Act::Wait)) {
                let at = g.rng.gen_range(0..=s.own.len());
                s.own.insert(at, Act::Wait);
            }
        }
    }

    let mut text = String::from("1 START\n");
    let mut idx = 2u32;
    // Main thread: init, attach, fork every other thread, loop. Other loopers attach and loop
    // as soon as they start.
    emit(&mut text, &mut idx, "THREADINIT tid:1".into());
    emit(&mut text, &mut idx, "ATTACH-Q tid:1 queue:1".into());
    for s in &sims[1..] {
        emit(&mut text, &mut idx, format!("FORK par-tid:1 child-tid:{}", s.tid));
    }
    emit(&mut text, &mut idx, "LOOP tid:1 queue:1".into());
    let mut next_msg = 1u32;
    let mut holder: Vec<Option<u32>> = vec![None; g.locks as usize];
    let mut attached: Vec<u32> = vec![1];
    loop {
        // Runnable threads and what each would do.
        let mut runnable: Vec<usize> = Vec::new();
        for (i, s) in sims.iter().enumerate() {
            if s.exited {
                continue;
            }
            if !s.started {
                runnable.push(i);
                continue;
            }
            let next = if s.looper {
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
                Some(Act::Lock(l)) => holder[*l as usize].is_none_or(|h| h == s.tid),
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
                emit(&mut text, &mut idx, format!("LOOP tid:{tid} queue:{tid}"));
            }
            continue;
        }
        if sims[i].looper && sims[i].running.is_none() {
            let (m, acts) = sims[i].queue.pop_front()?;
            emit(&mut text, &mut idx, format!("CALL tid:{tid} msg:{m}"));
            sims[i].running = Some((m, acts));
            continue;
        }
        let act = if sims[i].looper {
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
                holder[l as usize] = Some(tid);
                emit(&mut text, &mut idx, format!("LOCK tid:{tid} lock-obj:0x{:x}", 100 + l));
            }
            Act::Unlock(l) => {
                holder[l as usize] = None;
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
    let unfinished = sims.iter().any(|s| (!s.looper && !s.exited) || s.running.is_some() || !s.queue.is_empty());
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

/// Parses a generated trace with the project's parser.
fn parse(seed: u64, text: &str, dependence: &str) -> EmModel {
    let fail = |e: tracepor::trace::InputError| -> ! { panic!("seed {seed}: {e}\n{text}\n{dependence}") };
    let mut t = parse_trace(Path::new("gen.txt"), text.as_bytes()).unwrap_or_else(|e| fail(e));
    parse_dependence(Path::new("dependence.txt"), dependence.as_bytes(), &mut t).unwrap_or_else(|e| fail(e));
    EmModel::new(t).unwrap_or_else(|e| fail(e))
}

fn run(model: &EmModel, name: &str, limit: Option<Duration>) -> (bool, Outcomes, u64) {
    let mut s = explore::for_em_trace(name).expect("strategy registered");
    let limits = Limits { time: limit, ..Limits::default() };
    let (stats, found) = explore::run(model, s.as_mut(), limits, Arc::new(AtomicBool::new(false)));
    (stats.finished, found, stats.executions)
}

fn outcome_lines(o: &Outcomes) -> Vec<String> {
    o.lines().map(str::to_owned).collect()
}

#[test]
fn generated_traces_are_valid_recordings() {
    let mut ok = 0;
    for seed in 0..200u64 {
        let Some((text, dependence)) = generate(seed) else {
            continue;
        };
        let m = parse(seed, &text, &dependence);
        m.replay_recorded().unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        ok += 1;
    }
    assert!(ok > 150, "too few generated traces replay ({ok} of 200)");
}

#[test]
fn dpor_and_em_dpor_reach_every_outcome_of_full_stateless() {
    let seeds: u64 = std::env::var("TRACEPOR_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let mut checked: usize = 0;
    let mut failures = Vec::new();
    let mut unfinished = Vec::new();
    for seed in 0..seeds {
        let Some((text, dependence)) = generate(seed) else {
            continue;
        };
        let m = parse(seed, &text, &dependence);
        let text = format!("{text}-- dependence.txt\n{dependence}");
        // The exhaustive reference: every interleaving when that is quick, else the stateful
        // exhaustive search (same outcome set, em-trace.md), else the seed is skipped.
        let (mut done, mut full, _) = run(&m, "full-stateless", Some(Duration::from_millis(500)));
        if !done {
            (done, full, _) = run(&m, "full", Some(Duration::from_secs(5)));
        }
        if !done {
            continue;
        }
        checked += 1;
        for name in ["dpor", "dpor-sleep", "em-dpor", "optimal"] {
            let (finished, found, _) = run(&m, name, Some(Duration::from_secs(3)));
            let spurious: Vec<&str> = found.lines().filter(|l| !full.lines().any(|x| x == *l)).collect();
            assert!(spurious.is_empty(), "seed {seed}: {name} reached outcomes full did not: {spurious:?}\n{text}");
            if !finished {
                // EM-DPOR (like EM-Explorer itself) can explore more than the exhaustive search
                // has interleavings to spare on some small traces; what it found so far is checked
                // above, and such seeds must stay rare.
                unfinished.push(format!("{seed} {name}"));
                continue;
            }
            if !found.same_as(&full) {
                let lost: Vec<String> =
                    outcome_lines(&full).into_iter().filter(|l| !found.lines().any(|x| x == l)).collect();
                failures.push(format!("seed {seed} {name}: lost {lost:?}\n{text}"));
            }
        }
    }
    assert!(checked as u64 >= seeds / 2, "only {checked} seeds could be checked");
    assert!(failures.is_empty(), "{} unsound runs:\n{}", failures.len(), failures.join("\n"));
    assert!(unfinished.len() * 20 <= checked, "too many runs did not finish: {unfinished:?} of {checked} seeds");
    eprintln!("{checked} seeds checked; unfinished within 3 s: {unfinished:?}");
}

/// Seeds a loaded machine left unfinished within 3 s in the test above (only checked there for
/// spurious outcomes): `TRACEPOR_SEED_LIST=196,234 cargo test --release --test dpor_random --
/// --ignored` checks `optimal`'s outcome set against the exhaustive one with room to finish.
#[test]
#[ignore]
fn optimal_on_listed_seeds() {
    let list = std::env::var("TRACEPOR_SEED_LIST").unwrap_or_default();
    for seed in list.split(',').filter_map(|s| s.trim().parse::<u64>().ok()) {
        let Some((text, dependence)) = generate(seed) else {
            continue;
        };
        let m = parse(seed, &text, &dependence);
        let (mut done, mut full, _) = run(&m, "full-stateless", Some(Duration::from_secs(5)));
        if !done {
            (done, full, _) = run(&m, "full", Some(Duration::from_secs(60)));
        }
        assert!(done, "seed {seed}: the exhaustive search did not finish");
        let (finished, found, runs) = run(&m, "optimal", Some(Duration::from_secs(120)));
        assert!(finished, "seed {seed}: optimal did not finish");
        assert!(found.same_as(&full), "seed {seed}: optimal's outcome set differs from the exhaustive one");
        eprintln!("seed {seed}: {} outcomes, optimal {runs} executions", full.len());
    }
}
