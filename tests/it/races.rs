//! The race report (docs/races.md) against independent computations:
//! - the race pairs against every pair of conflicting accesses that [`EmHb`] (the recorded
//!   path, DroidRacer's lock rule) leaves unordered;
//! - each verdict against a brute force: over the outcome set of the exhaustive search `full`
//!   (on the TACAS apps, too large for it, `optimal`'s own set), an outcome sees a race
//!   reversed when no order of the location's accesses that ran, respecting `hb0` (a dense
//!   closure of the static and FIFO edges here) and putting the pair in its recorded order,
//!   gives each read the write the outcome says and ends with its final write (a search over
//!   orders); a race changes an outcome iff some outcome sees it reversed;
//! - each witness: its schedule replays to the outcome named, with the race's second operation
//!   before its first.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use crate::common::gen_em::generate;
use crate::common::{em, em_explorer, root, trace_dirs, within, MUST_FINISH};
use tracepor::check::{replay, Check, ReplayEnd};
use tracepor::explore::races::RaceReport;
use tracepor::model::em::{EmModel, NEVER};
use tracepor::model::em_hb::EmHb;
use tracepor::model::Outcome;
use tracepor::trace::em::{parse_dependence, parse_trace, OpKind};

/// `before[b][a]`: `a` before `b` in `hb0`, by the definition (closure of the static edges,
/// then of the FIFO edges, until no FIFO edge is new).
fn naive_hb0(m: &EmModel) -> Vec<Vec<bool>> {
    let n = m.trace.ops.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (x, p) in preds.iter_mut().enumerate() {
        p.extend(m.waits_for[x].iter().filter(|&&w| w != NEVER).map(|&w| w as usize));
        if m.prev_in_task[x] != NEVER {
            p.push(m.prev_in_task[x] as usize);
        }
    }
    let hs: Vec<(u32, usize, usize, usize)> = m
        .handlers
        .iter()
        .flatten()
        .filter(|h| h.post != NEVER && !h.ops.is_empty())
        .map(|h| (h.thread, h.post as usize, h.ops[0] as usize, *h.ops.last().unwrap() as usize))
        .collect();
    for h in m.handlers.iter().flatten() {
        let Some(&first) = h.ops.first() else { continue };
        if h.post != NEVER {
            preds[first as usize].push(h.post as usize);
        }
        let th = &m.threads[h.thread as usize];
        if let Some(l) = th.loop_after.filter(|&l| l > 0) {
            preds[first as usize].push(th.own[l as usize - 1] as usize);
        }
    }
    loop {
        let mut before = vec![vec![false; n]; n];
        // Predecessors come earlier in the trace (it is a run): one pass in order closes.
        for b in 0..n {
            for &p in &preds[b] {
                before[b][p] = true;
                for a in 0..n {
                    if before[p][a] {
                        before[b][a] = true;
                    }
                }
            }
        }
        let mut new = false;
        for &(l1, p1, _, r1) in &hs {
            for &(l2, p2, c2, _) in &hs {
                if l1 == l2 && p1 != p2 && before[p2][p1] && !preds[c2].contains(&r1) {
                    preds[c2].push(r1);
                    new = true;
                }
            }
        }
        if !new {
            return before;
        }
    }
}

fn location(m: &EmModel, op: usize) -> Option<(u32, bool)> {
    match m.trace.ops[op].kind {
        OpKind::Read { loc } => Some((loc, false)),
        OpKind::Write { loc } => Some((loc, true)),
        _ => None,
    }
}

/// The race pairs by the definition: conflicting, unordered by EmHb on the recorded path.
fn naive_pairs(m: &EmModel) -> Vec<(usize, usize)> {
    let n = m.trace.ops.len();
    let mut hb = EmHb::new(m);
    hb.same_thread_unlock_edges = false;
    for p in 0..n as u32 {
        hb.push(p);
    }
    let mut out = Vec::new();
    for b in 0..n {
        let Some((lb, wb)) = location(m, b) else { continue };
        for a in 0..b {
            if let Some((la, wa)) = location(m, a) {
                if la == lb && (wa || wb) && !hb.happens_before(a, b) {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

/// One outcome, structured, by operation position: what each read read from (None: never
/// ran), the last write per location, what never ran.
struct View {
    rf: BTreeMap<usize, Option<usize>>,
    last: BTreeMap<u32, usize>,
    ran: Vec<bool>,
}

fn view(m: &EmModel, o: &Outcome) -> View {
    let Outcome::EmTrace { reads_from, final_writes, stuck } = o else { panic!("not an EM outcome") };
    let pos = |i: u32| m.trace.position(i).expect("an operation index");
    let mut ran = vec![true; m.trace.ops.len()];
    for &s in stuck {
        ran[pos(s)] = false;
    }
    let rf = reads_from.iter().map(|&(r, w)| (pos(r), (w != 0).then(|| pos(w)))).collect();
    let last = final_writes.iter().map(|&w| (location(m, pos(w)).unwrap().0, pos(w))).collect();
    View { rf, last, ran }
}

/// Whether the view of `loc` in `v` is produced by some order of its accesses that ran,
/// respecting `before` and with `a` before `b`: a search over orders, failures remembered.
fn producible(m: &EmModel, before: &[Vec<bool>], v: &View, loc: u32, a: usize, b: usize) -> bool {
    let ops: Vec<usize> =
        (0..m.trace.ops.len()).filter(|&p| v.ran[p] && location(m, p).is_some_and(|(l, _)| l == loc)).collect();
    // Orders are searched as down-sets (a bit per access): accesses of one task are ordered, so
    // few down-sets are reachable.
    assert!(ops.len() <= 128, "location with {} accesses: too many for the brute force", ops.len());
    let fin = v.last.get(&loc).copied();
    let mut failed: HashSet<(u128, Option<usize>)> = HashSet::new();
    fn go(
        m: &EmModel,
        ops: &[usize],
        before: &[Vec<bool>],
        v: &View,
        pair: (usize, usize),
        fin: Option<usize>,
        placed: u128,
        last: Option<usize>,
        failed: &mut HashSet<(u128, Option<usize>)>,
    ) -> bool {
        if placed == u128::MAX >> (128 - ops.len()) {
            return last == fin;
        }
        if failed.contains(&(placed, last)) {
            return false;
        }
        for (i, &x) in ops.iter().enumerate() {
            if placed & (1u128 << i) != 0 {
                continue;
            }
            let ready = ops.iter().enumerate().all(|(j, &y)| placed & (1u128 << j) != 0 || !before[x][y]);
            let pair_ok =
                x != pair.1 || ops.iter().position(|&y| y == pair.0).is_some_and(|j| placed & (1u128 << j) != 0);
            if !ready || !pair_ok {
                continue;
            }
            let next = match location(m, x).unwrap().1 {
                true => Some(x),
                false if v.rf[&x] == last => last,
                false => continue,
            };
            if go(m, ops, before, v, pair, fin, placed | 1u128 << i, next, failed) {
                return true;
            }
        }
        failed.insert((placed, last));
        false
    }
    go(m, &ops, before, v, (a, b), fin, 0, None, &mut failed)
}

/// Checks `report` on `m` against the brute force over `outcomes` (canonical text, schedule).
/// Returns the number of races (pairs) checked.
fn check_report(what: &str, m: &EmModel, report: &RaceReport, outcomes: &[(String, String)], small: bool) -> usize {
    assert!(report.not_analysed.is_none(), "{what}: {:?}", report.not_analysed);
    assert!(!report.per_class, "{what}: races listed per class");
    let pos = |i: u32| m.trace.position(i).unwrap();
    let listed: Vec<(usize, usize)> = report.races.iter().map(|r| (pos(r.first.index), pos(r.second.index))).collect();
    if small {
        let mut want = naive_pairs(m);
        let mut got = listed.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{what}: race pairs");
    }
    assert_eq!(report.pairs, Some(listed.len() as u64), "{what}: pair count");
    let before = naive_hb0(m);
    let views: Vec<View> = outcomes
        .iter()
        .map(|(text, sched)| {
            let r = replay(m, sched).unwrap();
            let ReplayEnd::Ended(o) = r.end else { panic!("{what}: schedule of {text} does not end") };
            assert_eq!(&o.to_string(), text, "{what}: schedule reaches another outcome");
            view(m, &o)
        })
        .collect();
    for (race, &(a, b)) in report.races.iter().zip(&listed) {
        let loc = location(m, a).unwrap().0;
        let seen: Vec<usize> = (0..views.len())
            .filter(|&k| views[k].ran[a] && views[k].ran[b] && !producible(m, &before, &views[k], loc, a, b))
            .collect();
        assert_eq!(
            race.changes_outcome,
            Some(!seen.is_empty()),
            "{what}: race {} / {} on {}: outcomes seeing it reversed: {:?}",
            race.first.describe(),
            race.second.describe(),
            race.location,
            seen.iter().map(|&k| &outcomes[k].0).collect::<Vec<_>>()
        );
        if let Some(w) = &race.witness {
            let text = &report.outcomes[w.outcome].outcome;
            let k = outcomes.iter().position(|(t, _)| t == text).expect("witness outcome in the set");
            assert!(seen.contains(&k), "{what}: the witness outcome does not see the race reversed");
            let r = replay(m, &w.schedule).unwrap();
            assert!(matches!(&r.end, ReplayEnd::Ended(o) if &o.to_string() == text), "{what}: witness schedule");
            assert!(w.second_step < w.first_step, "{what}: witness does not reverse the race");
            let at = |step: usize| r.steps[step - 1].what.split(' ').next().unwrap().parse::<u32>().unwrap();
            assert_eq!((at(w.second_step), at(w.first_step)), (race.second.index, race.first.index), "{what}: steps");
        }
    }
    listed.len()
}

/// `full`'s outcome set with a schedule each.
fn full_outcomes(m: &EmModel) -> Option<Vec<(String, String)>> {
    let mut search = tracepor::explore::Search::new(m, within(MUST_FINISH));
    search.options.outcome_schedules = true;
    let mut s = tracepor::explore::for_em_trace("full").unwrap();
    let (st, found, _) = tracepor::explore::run_search(search, s.as_mut());
    st.finished
        .then(|| found.witnesses().map(|(t, p)| (t.to_string(), tracepor::model::format_schedule(m, p))).collect())
}

/// Runs `optimal` with the race report and checks it against `full` (small inputs).
fn check_against_full(what: &str, m: &EmModel) -> usize {
    let report = Check::new(m).strategy("optimal").unwrap().limits(within(MUST_FINISH)).races(true).run();
    assert!(report.finished, "{what}: optimal did not finish");
    let races = report.races.as_ref().expect("race report");
    let full = full_outcomes(m).unwrap_or_else(|| panic!("{what}: full did not finish"));
    // The outcomes explained are exactly the outcome set.
    let mut mine: Vec<&str> = races.outcomes.iter().map(|o| o.outcome.as_str()).collect();
    let mut want: Vec<&str> = full.iter().map(|(t, _)| t.as_str()).collect();
    mine.sort();
    want.sort();
    assert_eq!(mine, want, "{what}: outcome set");
    check_report(what, m, races, &full, true)
}

#[test]
fn verdicts_on_benchmark_traces_and_fixtures_match_the_brute_force() {
    let mut dirs = trace_dirs(&em_explorer().join("benchmark-traces"));
    dirs.extend(trace_dirs(&root().join("fixtures/em")));
    let (mut traces, mut races, mut harmful) = (0, 0, 0);
    for d in &dirs {
        let m = em(d);
        if m.replay_recorded().is_err() {
            continue;
        }
        races += check_against_full(&d.display().to_string(), &m);
        let r = Check::new(&m).races(true).run().races.unwrap();
        harmful += r.changes_outcome.expect("analysed");
        traces += 1;
    }
    eprintln!("{traces} traces, {races} races, {harmful} change an outcome");
    assert!(traces >= 30 && races >= 20, "{traces} traces, {races} races");
    assert!(harmful > 0, "no race changes an outcome");
}

#[test]
fn verdicts_on_generated_traces_match_the_brute_force() {
    let (mut traces, mut races, mut benign, mut harmful) = (0, 0, 0, 0);
    for seed in 0..120u64 {
        let Some((text, dependence)) = generate(seed) else { continue };
        let mut t = parse_trace(Path::new("gen.txt"), text.as_bytes()).unwrap();
        parse_dependence(Path::new("dependence.txt"), dependence.as_bytes(), &mut t).unwrap();
        let m = EmModel::new(t).unwrap();
        // The exhaustive search must finish quickly: large generated state spaces are left out.
        let mut search = tracepor::explore::Search::new(
            &m,
            tracepor::explore::Limits { max_states: Some(200_000), ..Default::default() },
        );
        search.options.outcome_schedules = true;
        let mut s = tracepor::explore::for_em_trace("full").unwrap();
        let (st, _, _) = tracepor::explore::run_search(search, s.as_mut());
        if !st.finished {
            continue;
        }
        let what = format!("seed {seed}\n{text}");
        races += check_against_full(&what, &m);
        let r = Check::new(&m).races(true).run().races.unwrap();
        benign += r.benign.expect("analysed");
        harmful += r.changes_outcome.expect("analysed");
        traces += 1;
    }
    eprintln!("{traces} generated traces, {races} races: {harmful} change an outcome, {benign} benign");
    assert!(traces >= 60, "only {traces} generated traces checked");
    assert!(benign >= 5 && harmful >= 5, "both verdicts must occur often: {harmful} / {benign}");
}

/// The five TACAS apps: every race gets a verdict, checked by the brute force over the
/// outcome set `optimal` found (the exhaustive search does not finish on them).
#[test]
fn verdicts_on_the_tacas_apps_match_the_brute_force() {
    for app in ["music", "aarddict", "charachter-recognition", "mytracks", "remind-me"] {
        let dir: PathBuf = em_explorer().join("tacas-2016").join(app);
        let m = em(&dir);
        let report = Check::new(&m).limits(within(MUST_FINISH)).races(true).run();
        assert!(report.finished, "{app}");
        let races = report.races.as_ref().unwrap();
        assert!(races.pairs > Some(0), "{app}: no races");
        assert!(races.races.iter().all(|r| r.changes_outcome.is_some()), "{app}: a race without a verdict");
        let outcomes: Vec<(String, String)> =
            races.outcomes.iter().map(|o| (o.outcome.clone(), o.schedule.clone())).collect();
        // That set is the exhaustive one: tests/optimal.rs checks it against em-dpor's.
        let n = check_report(app, &m, races, &outcomes, m.trace.ops.len() <= 700);
        eprintln!(
            "{app}: {n} races, {} change an outcome, {} benign",
            races.changes_outcome.unwrap_or(0),
            races.benign.unwrap_or(0)
        );
    }
}

/// The analysis keeps to the run's limits: under a transition budget (the same on
/// any machine) that the search stays within but the replays of the outcomes' runs do not, it
/// ends early with what it has, says so, and leaves the races undecided; with room enough it
/// decides them all, and the same budget ends it at the same point each time.
#[test]
fn race_analysis_keeps_to_the_transition_budget() {
    let m = em(&em_explorer().join("tacas-2016/music"));
    let run = |max: Option<u64>| {
        let limits = tracepor::explore::Limits { max_transitions: max, ..within(MUST_FINISH) };
        Check::new(&m).strategy("optimal").unwrap().limits(limits).races(true).run()
    };
    let free = run(None);
    assert!(free.finished);
    let all = free.races.as_ref().unwrap();
    assert!(all.partial.is_none() && all.undecided == Some(0) && all.changes_outcome > Some(0));
    let t = free.transitions;
    // One transition left after the search: not enough to replay any outcome's run.
    let tight = run(Some(t + 1));
    assert!(tight.finished, "the search must finish within its {} transitions", t + 1);
    let r = tight.races.as_ref().unwrap();
    let why = r.partial.as_deref().expect("the analysis must say it stopped");
    assert!(why.contains("0 of") && why.contains("transition"), "{why}");
    assert!(r.outcomes.is_empty(), "no outcome can have been analysed");
    assert_eq!(r.pairs, all.pairs, "the race pairs are found before the replays");
    assert_eq!((r.changes_outcome, r.benign, r.undecided), (Some(0), Some(0), all.pairs));
    assert!(r.races.iter().all(|x| x.changes_outcome.is_none()));
    let text = tracepor::report::races::render(r, false);
    assert!(text.contains("partial") && text.contains("undecided (analysis stopped)"), "{text}");
    // Room for part of the replays: a prefix of the outcomes, at the same point each time.
    let (mut some, mut last) = (false, 0);
    for extra in [50u64, 200, 1_000, 5_000] {
        let a = run(Some(t + extra)).races.unwrap();
        let b = run(Some(t + extra)).races.unwrap();
        assert_eq!(a.partial, b.partial, "budget {extra}");
        assert_eq!(a.outcomes.len(), b.outcomes.len());
        assert!(a.outcomes.len() >= last, "more budget, fewer outcomes analysed");
        last = a.outcomes.len();
        some |= a.partial.is_some() && !a.outcomes.is_empty();
        if a.partial.is_none() {
            assert_eq!((a.changes_outcome, a.undecided), (all.changes_outcome, Some(0)));
        }
    }
    assert!(some, "no budget stopped the analysis part way");
    // A budget with room for every replay changes nothing.
    let roomy = run(Some(t + 10_000_000)).races.unwrap();
    assert!(roomy.partial.is_none());
    assert_eq!((roomy.changes_outcome, roomy.benign, roomy.undecided), (all.changes_outcome, all.benign, Some(0)));
}
