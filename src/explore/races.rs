//! Races of an EM trace, and which of them change an outcome (docs/races.md).
//!
//! # What a race is
//! DroidRacer's notion (Maiya, Kanade, Majumdar, "Race detection for Android applications",
//! PLDI 2014): two accesses to one location (READ/WRITE of an object's field, or a static),
//! at least one a write, that the happens-before of the *recorded* run leaves unordered. That
//! happens-before is em-trace.md's, with DroidRacer's rule for locks: an UNLOCK orders a later
//! LOCK of the same lock only on another thread (handlers of one looper never contend for a
//! lock, so a lock orders nothing between them). Two handlers of one looper race unless a post
//! chain or the FIFO rule orders them.
//!
//! # Which races change an outcome
//! Race (a, b), `a` first in the recorded run, on location `x`. An outcome (em-trace.md) *sees
//! the race reversed* when both ran and its view of `x` (what each read of `x` read from, the
//! final write of `x`) cannot be produced with `a` before `b`, given the order `hb0` that every
//! run respects. A race *changes an outcome* when some outcome sees it reversed; otherwise it is
//! *benign*: every outcome's view of `x` is produced with the pair in its recorded order. The
//! verdict is read off the outcome set the search found (one witness execution per outcome),
//! with no further exploration; docs/races.md gives the argument and how DroidRacer and ERVA
//! differ.
//!
//! # The types
//! They are what `check --json` writes (`races`, `outcomes_explained`) and what the HTML page
//! draws; kept stable. Operations are named as the trace names them ([`OpRef`]).

use serde::Serialize;

pub use crate::model::em::OpRef;

/// A race: two conflicting accesses the recorded run's happens-before leaves unordered.
#[derive(Clone, Debug, Serialize)]
pub struct Race {
    /// The location both access, as [`OpRef::location`] names it.
    pub location: String,
    /// The access that ran first in the recorded run.
    pub first: OpRef,
    /// The one that ran second.
    pub second: OpRef,
    /// Whether some outcome sees the pair reversed; `None` when the search stopped before it
    /// found every outcome and none found so far does (undecided).
    pub changes_outcome: Option<bool>,
    /// When it changes an outcome: an outcome that sees it reversed, and the run reaching it.
    pub witness: Option<RaceWitness>,
    /// How many pairs this entry stands for: 1, or more when races are listed per class (the
    /// same location and the same two tasks) because there are too many pairs to list
    /// ([`RaceReport::per_class`]); the verdict is then that of any pair of the class, and
    /// `first`/`second` are a pair with that verdict.
    pub pairs: u64,
}

/// An outcome that sees a race reversed, with the run that reaches it.
#[derive(Clone, Debug, Serialize)]
pub struct RaceWitness {
    /// The outcome, as a position in [`RaceReport::outcomes`] (from 0).
    pub outcome: usize,
    /// What that outcome sees at the race's location, against the recorded run (sentences).
    pub differs: Vec<String>,
    /// Whether that outcome is a deadlock (some operation never runs).
    pub deadlock: bool,
    /// The run, as `tracepor replay --schedule` takes it (one thread per step).
    pub schedule: String,
    /// Steps of `schedule` (from 1) at which the race's second and first operations run: the
    /// second runs first.
    pub second_step: usize,
    pub first_step: usize,
}

/// One thing an outcome sees differently from the recorded run.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// `read` (a read sees another write), `final` (another last write of a location),
    /// `stuck` (operations that never run: a deadlock).
    pub kind: &'static str,
    /// The read (`read`), the recorded last write (`final`, none when the location was not
    /// written in the recorded run), or the first operation never run (`stuck`).
    pub op: Option<OpRef>,
    /// The write the read sees, or the last write, in this outcome (none: the initial value).
    pub now: Option<OpRef>,
    /// The same in the recorded run (none: the initial value).
    pub recorded: Option<OpRef>,
    /// The whole difference as a sentence.
    pub text: String,
}

/// One outcome, explained against the recorded run.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeExplained {
    /// The canonical line (em-trace.md), as `--outcomes` writes it.
    pub outcome: String,
    /// Whether it is the recorded run's own outcome.
    pub recorded: bool,
    pub deadlock: bool,
    /// What it sees differently; for a deadlock, what each stuck thread waits for as well.
    pub differences: Vec<Difference>,
    /// Positions in [`RaceReport::races`] of the races it sees reversed.
    pub races: Vec<usize>,
    /// A run that reaches it.
    pub schedule: String,
}

/// The races of one trace and the outcomes explained: `check`'s `races` section.
///
/// In `check --json` its members sit among the run's (JSON names in brackets).
#[derive(Clone, Debug, Default, Serialize)]
pub struct RaceReport {
    /// Pairs of conflicting accesses the recorded run leaves unordered (`race_pairs`); None
    /// (null) when the analysis did not run ([`RaceReport::not_analysed`] says why), never a
    /// made-up zero.
    #[serde(rename = "race_pairs")]
    pub pairs: Option<u64>,
    /// Of them: changing an outcome, benign, undecided, counted in pairs
    /// (`races_changing_outcome`, `races_benign`, `races_undecided`); None as `pairs`.
    #[serde(rename = "races_changing_outcome")]
    pub changes_outcome: Option<u64>,
    #[serde(rename = "races_benign")]
    pub benign: Option<u64>,
    #[serde(rename = "races_undecided")]
    pub undecided: Option<u64>,
    /// Whether `races` lists classes (location, task, task) instead of pairs: more than
    /// [`LIST_PAIRS`] pairs (`races_per_class`).
    #[serde(rename = "races_per_class")]
    pub per_class: bool,
    /// (`races`)
    pub races: Vec<Race>,
    /// Every outcome found, in `--outcomes`' order, explained (`outcomes_explained`).
    #[serde(rename = "outcomes_explained")]
    pub outcomes: Vec<OutcomeExplained>,
    /// Why the analysis did not run, when it did not (a limit of the run was reached before
    /// it began); the counts above are then None and the lists empty (`races_not_analysed`).
    #[serde(rename = "races_not_analysed", skip_serializing_if = "Option::is_none")]
    pub not_analysed: Option<String>,
    /// When a limit of the run ended the analysis early (the run's [`Budget`] after its search):
    /// what it was and how far
    /// the analysis got (`races_partial`). The races found are listed; those no outcome
    /// analysed sees reversed are undecided.
    #[serde(rename = "races_partial", skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// Seconds the analysis took, after the search (`races_time_s`; benches/races.py).
    #[serde(rename = "races_time_s")]
    pub time_s: f64,
}

/// Most race pairs listed one by one; past it, races are listed per class.
pub const LIST_PAIRS: u64 = 10_000;

/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod hb;
mod verdict;

pub use verdict::{forced, Seen};

use rustc_hash::FxHashMap;

use crate::explore::reads_from::StaticHb;
use crate::explore::{Budget, Outcomes};
use crate::model::em::{EmModel, EmState, NEVER};
use crate::model::{format_schedule, Choice, Model};
use crate::trace::em::OpKind;
use hb::Order;

/// Most differences listed per outcome (the rest are counted in a last one).
const LIST_DIFFERENCES: usize = 50;

/// Above this many pairs the verdicts of a class are not computed pair by pair (undecided).
const DECIDE_PAIRS: u64 = 1_000_000;

/// Verdicts between two polls of the run's budget.
const VERDICTS_PER_POLL: usize = 64;

/// A write as a read or final value sees it, named (none: the initial value), at the end of
/// `out`: its line and place, or the initial value.
fn write_value(out: &mut String, write: Option<&OpRef>) {
    match write {
        Some(w) => {
            out.push_str("the write at ");
            w.write_short(out);
        }
        None => out.push_str("the initial value"),
    }
}

/// One replay of `path` for what the report needs of it: the steps (from 1) at which the
/// operations `ops` run (0 for one that never does) and, with `want_end`, the state the path
/// ends in (if every step has an operation to run). Without `want_end` it stops once all of
/// `ops` have run. One replay serves both, rather than one each (docs/races.md "Cost").
fn replay_for(model: &EmModel, path: &[Choice], ops: &[u32], want_end: bool) -> (Vec<u32>, Option<EmState>) {
    let mut state = model.initial();
    let mut steps = vec![0u32; ops.len()];
    let mut left = ops.len();
    for (i, &c) in path.iter().enumerate() {
        if left == 0 && !want_end {
            break;
        }
        // The search ran this schedule: only that each step has an operation is checked.
        let Some(op) = model.next_op(&state, c) else { return (steps, None) };
        if left > 0 {
            for (k, _) in ops.iter().enumerate().filter(|&(_, &o)| o == op) {
                steps[k] = i as u32 + 1;
                left -= 1;
            }
        }
        if model.step(&mut state, c).is_err() {
            return (steps, None);
        }
    }
    (steps, want_end.then_some(state))
}

/// The locations that can race: written, and accessed by two tasks or more (one task's
/// accesses are ordered by program order); and the number of operations up to the last access
/// of one of them, which is as far as the happens-before clocks are read.
#[doc(hidden)]
pub fn racing_locations(model: &EmModel) -> (Vec<bool>, usize) {
    let locs = model.trace.locations.len();
    // Per location: its first task, then NEVER once a second task accesses it.
    let mut task = vec![u32::MAX - 1; locs];
    let mut written = vec![false; locs];
    for (p, o) in model.trace.ops.iter().enumerate() {
        if let OpKind::Read { loc } | OpKind::Write { loc } = o.kind {
            let (t, l) = (model.op_task[p], loc as usize);
            if task[l] == u32::MAX - 1 {
                task[l] = t;
            } else if task[l] != t {
                task[l] = NEVER;
            }
            written[l] |= matches!(o.kind, OpKind::Write { .. });
        }
    }
    let can_race: Vec<bool> = (0..locs).map(|l| task[l] == NEVER && written[l]).collect();
    let upto = model
        .trace
        .ops
        .iter()
        .rposition(|o| matches!(o.kind, OpKind::Read { loc } | OpKind::Write { loc } if can_race[loc as usize]))
        .map_or(0, |p| p + 1);
    (can_race, upto)
}

/// The race pairs of the recorded run, `(a, b)` with `a` first, grouped by location; counted
/// past `LIST_PAIRS` without being listed. Output-sensitive: per access, per chain that holds an
/// earlier access of its location, a binary search (accesses of one chain are ordered, so
/// the ones the access is not after are a suffix). Among the first `upto` operations (the
/// clocks of `hb` are read only there). Polls `budget` every [`hb::POLL_EVERY`] operations;
/// None once it is spent.
#[doc(hidden)]
pub fn race_pairs(
    model: &EmModel,
    hb: &dyn Order,
    can_race: &[bool],
    keep: u64,
    upto: usize,
    budget: &Budget,
) -> Option<(u64, Vec<(u32, u32)>)> {
    let locs = model.trace.locations.len();
    let can_race = |l: usize| can_race[l];
    // Per location, per chain: (index, operation) of its accesses so far, all and writes only.
    let mut all: Vec<SmallVecOn> = vec![Vec::new(); locs];
    let mut writes: Vec<SmallVecOn> = vec![Vec::new(); locs];
    let mut count = 0u64;
    let mut pairs = Vec::new();
    for (p, o) in model.trace.ops.iter().enumerate().take(upto) {
        if (p as u32).is_multiple_of(hb::POLL_EVERY) && budget.poll() {
            return None;
        }
        let (loc, write) = match o.kind {
            OpKind::Read { loc } => (loc as usize, false),
            OpKind::Write { loc } => (loc as usize, true),
            _ => continue,
        };
        if !can_race(loc) {
            continue;
        }
        let clock = hb.clock(p);
        let lists = if write { &all[loc] } else { &writes[loc] };
        for (c, list) in lists {
            let bound = clock.get(*c as usize).copied().unwrap_or(0);
            let from = list.partition_point(|&(ix, _)| ix <= bound);
            let n = (list.len() - from) as u64;
            if count < keep {
                for &(_, a) in list[from..].iter().take((keep - count) as usize) {
                    pairs.push((a, p as u32));
                }
            }
            count += n;
        }
        let st = hb.stamp(p);
        let put = |on: &mut SmallVecOn| match on.iter_mut().find(|(c, _)| *c == st.chain) {
            Some((_, l)) => l.push((st.index, p as u32)),
            None => on.push((st.chain, vec![(st.index, p as u32)])),
        };
        put(&mut all[loc]);
        if write {
            put(&mut writes[loc]);
        }
    }
    Some((count, pairs))
}

type SmallVecOn = Vec<(u32, Vec<(u32, u32)>)>;

/// The race report of `model` from the outcomes a search found (`found`, with a schedule kept
/// per outcome) and whether it found them all (`complete`). Costs a forward pass or two over
/// the trace, a replay per outcome, and per race and outcome a reachability question among the
/// writes of one location (verdict.rs).
pub fn analyse(model: &EmModel, found: &Outcomes, complete: bool) -> RaceReport {
    analyse_within(model, found, complete, &Budget::unlimited(), None)
}

/// [`analyse`] within `budget`, the run's after its search ([`crate::explore::Search::wrap_up`]):
/// polled before each pass and each outcome, each outcome's replay spending its steps (against
/// what `--max-states` left, for a budget that ends it at the same point on any machine). At
/// a limit the analysis ends with what it has ([`RaceReport::partial`]); a limit reached before
/// it began leaves it not analysed ([`RaceReport::not_analysed`]). With `kept`, the `hb0`
/// `optimal`'s search built
/// ([`crate::explore::Search::static_hb`]) rather than one built again.
pub fn analyse_within(
    model: &EmModel,
    found: &Outcomes,
    complete: bool,
    budget: &Budget,
    kept: Option<&StaticHb>,
) -> RaceReport {
    let started = std::time::Instant::now();
    let phases = Phases::new();
    let mut report = RaceReport::default();
    if budget.poll() {
        let why = budget.reached().map_or("a limit reached", |r| r.describe());
        report.not_analysed = Some(format!("{why} before the analysis began"));
        return report;
    }
    // The recorded run is the trace's order (tests/replay_recorded.rs: the shipped traces
    // replay as recorded); what it observed, in one pass.
    let rec = Seen::recorded(model);
    phases.done("recorded run");
    let has_sync =
        model.trace.ops.iter().any(|o| matches!(o.kind, OpKind::Lock { .. } | OpKind::Wait | OpKind::Notify { .. }));
    // The races' relation first; `hb0` is the same without LOCK, WAIT and NOTIFY, and is needed
    // only when there are races.
    // Both in one pass when they differ.
    // `optimal` hands over its `hb0` (`kept`); otherwise it is built here, with the other in
    // the same pass.
    // Clocks are read only up to the last access that can race (`upto`): the pass stops there.
    let (can_race, upto) = racing_locations(model);
    // With `optimal`'s `hb0` at hand, the races' relation is not built when its lock and notify
    // edges cannot change the pairs: when every pair `hb0` leaves unordered (a superset: it has
    // fewer edges) has its second access before the first such edge `hb0` lacks
    // (`hb::first_edge_beyond`: up to there the two relations are one), the pairs are the same.
    // Their order is too when no access is the second of two pairs (the pass lists an access's
    // pairs by the chains of the relation it uses; one pair needs no order).
    // Otherwise `hb0`'s pairs still bound the pass: the other relation's pairs are among them,
    // so its clocks are read only up to their last second access, and only at the locations
    // they are on.
    let (mut can_race, mut upto) = (can_race, upto);
    let mut early = None;
    let stopped_in = |report: &mut RaceReport, phase: &str| {
        let why = budget.reached().map_or("a limit reached", |r| r.describe());
        report.not_analysed = Some(format!("{why} during {phase}"));
        report.time_s = started.elapsed().as_secs_f64();
    };
    if let (true, Some(k)) = (has_sync, kept) {
        let Some((count, pairs)) = race_pairs(model, k, &can_race, DECIDE_PAIRS, upto, budget) else {
            stopped_in(&mut report, "the race pairs");
            return report;
        };
        let listed = count == pairs.len() as u64;
        let same = listed
            && pairs.windows(2).all(|w| w[0].1 != w[1].1)
            && pairs.last().is_none_or(|&(_, b)| (b as usize) < hb::first_edge_beyond(model, k, upto, budget));
        if same {
            early = Some((count, pairs));
        } else if listed {
            upto = pairs.last().map_or(0, |&(_, b)| b as usize + 1);
            can_race.iter_mut().for_each(|c| *c = false);
            for &(a, _) in &pairs {
                if let OpKind::Read { loc } | OpKind::Write { loc } = model.trace.ops[a as usize].kind {
                    can_race[loc as usize] = true;
                }
            }
        }
    }
    let (built_races, built0) = match (has_sync && early.is_none(), kept.is_some()) {
        (false, true) => (None, None),
        (sync, kept) => match hb::both_within(model, sync, !kept, upto, budget) {
            Some(built) => built,
            None => {
                stopped_in(&mut report, "the happens-before passes");
                return report;
            }
        },
    };
    let hb0: &dyn Order = match (kept, &built0) {
        (Some(k), _) => k,
        (None, Some(b)) => b,
        (None, None) => unreachable!("built when not kept"),
    };
    let hb_races: &dyn Order = match &built_races {
        Some(r) => r,
        None => hb0,
    };
    let (count, mut pairs) = match early {
        Some(found) => found,
        None => match race_pairs(model, hb_races, &can_race, DECIDE_PAIRS, upto, budget) {
            Some(found) => found,
            None => {
                stopped_in(&mut report, "the race pairs");
                return report;
            }
        },
    };
    phases.done("happens-before passes, race pairs");
    let mut stopped = budget.poll().then(|| budget.reached()).flatten();
    let mut analysed = 0usize;
    report.pairs = Some(count);
    let decided = count <= DECIDE_PAIRS;
    if !decided {
        pairs.clear();
    }
    let loc_of = |op: u32| match model.trace.ops[op as usize].kind {
        OpKind::Read { loc } | OpKind::Write { loc } => loc,
        _ => unreachable!("races are between accesses"),
    };
    // The accesses of the locations with races, for the verdicts.
    let mut accesses: FxHashMap<u32, Vec<u32>> = pairs.iter().map(|&(a, _)| (loc_of(a), Vec::new())).collect();
    for (p, o) in model.trace.ops.iter().enumerate() {
        if let OpKind::Read { loc } | OpKind::Write { loc } = o.kind {
            if let Some(l) = accesses.get_mut(&loc) {
                l.push(p as u32);
            }
        }
    }
    // Per outcome, one replay of its schedule: the verdicts of every pair against it, what it
    // sees differently from the recorded run. Per pair: the first outcome that sees it
    // reversed, and the steps of its two operations there.
    let mut seen_by: Vec<Option<(usize, u32, u32)>> = vec![None; pairs.len()];
    let mut runs_ok = true;
    let witnesses: Vec<(&str, &[Choice])> = found.witnesses().collect();
    for (k, &(text, path)) in witnesses.iter().enumerate() {
        if stopped.is_none() && budget.spend(path.len() as u64) {
            stopped = budget.reached();
        }
        if stopped.is_some() {
            break;
        }
        analysed += 1;
        let seen = Seen::parse(model, text);
        let mut explained = OutcomeExplained {
            outcome: text.to_string(),
            // The same view as the recorded run's: the same canonical text.
            recorded: seen.as_ref() == Some(&rec),
            deadlock: !text.ends_with("| stuck"),
            differences: Vec::new(),
            races: Vec::new(),
            schedule: format_schedule(model, path),
        };
        let Some(seen) = seen else {
            runs_ok = false;
            report.outcomes.push(explained);
            continue;
        };
        let mut v = verdict::View::new(model, hb0, &seen, &accesses);
        for (i, &(a, b)) in pairs.iter().enumerate() {
            // A verdict can be a reachability search among the location's writes: a poll
            // every few pairs. Cut here, the outcome is left out whole (not analysed).
            if i % VERDICTS_PER_POLL == 0 && i > 0 && budget.poll() {
                stopped = budget.reached();
                break;
            }
            if forced(&mut v, loc_of(a), a, b) {
                explained.races.push(i);
                if seen_by[i].is_none() {
                    seen_by[i] = Some((k, 0, 0));
                }
            }
        }
        if stopped.is_some() {
            for w in seen_by.iter_mut().filter(|w| w.is_some_and(|w| w.0 == k)) {
                *w = None;
            }
            analysed -= 1;
            break;
        }
        // Where the first witness of each race runs its two operations: a replay up to them.
        // A deadlock's end state comes from the same replay.
        let firsts: Vec<usize> =
            explained.races.iter().copied().filter(|&i| seen_by[i].is_some_and(|w| w.0 == k)).collect();
        let mut end = None;
        if !firsts.is_empty() || explained.deadlock {
            let ops: Vec<u32> = firsts.iter().flat_map(|&i| [pairs[i].0, pairs[i].1]).collect();
            let (steps, last) = replay_for(model, path, &ops, explained.deadlock);
            for (j, &i) in firsts.iter().enumerate() {
                seen_by[i] = Some((k, steps[2 * j + 1], steps[2 * j]));
            }
            end = last;
        }
        explained.differences = differences(model, &rec, &seen, end.as_ref());
        report.outcomes.push(explained);
    }
    phases.done("outcomes replayed, verdicts");
    if let Some(why) = stopped {
        report.partial = Some(format!("{}: {analysed} of {} outcomes analysed", why.describe(), witnesses.len()));
    }
    let complete = complete && runs_ok && decided && stopped.is_none();
    let (mut changes, mut benign, mut undecided) = (0, 0, 0);
    for seen in &seen_by {
        match (seen.is_some(), complete) {
            (true, _) => changes += 1,
            (false, true) => benign += 1,
            (false, false) => undecided += 1,
        }
    }
    if !decided {
        undecided = count;
    }
    (report.changes_outcome, report.benign, report.undecided) = (Some(changes), Some(benign), Some(undecided));
    // Races, one per pair or, past LIST_PAIRS, one per class.
    report.per_class = count > LIST_PAIRS || !decided;
    let outcomes = &report.outcomes;
    let race_of = |i: usize, (a, b): (u32, u32)| -> Race {
        // Its location's full name is the one its accesses carry (`op_ref`).
        let (first, second) = (model.op_ref(a), model.op_ref(b));
        let location = first.location.clone().unwrap_or_else(|| model.trace.location_full_name(loc_of(a)));
        let witness = seen_by[i].map(|(k, second_step, first_step)| {
            let o = &outcomes[k];
            // What that outcome sees at the race's location.
            let here = |r: &Option<OpRef>| r.as_ref().and_then(|o| o.location.as_ref()) == Some(&location);
            let differs =
                o.differences.iter().filter(|d| here(&d.op) || here(&d.now)).map(|d| d.text.clone()).collect();
            RaceWitness {
                outcome: k,
                differs,
                deadlock: o.deadlock,
                schedule: o.schedule.clone(),
                second_step: second_step as usize,
                first_step: first_step as usize,
            }
        });
        let changes_outcome = match (&witness, complete) {
            (Some(_), _) => Some(true),
            (None, true) => Some(false),
            (None, false) => None,
        };
        Race { location, first, second, changes_outcome, witness, pairs: 1 }
    };
    let mut races: Vec<Race> = Vec::new();
    if report.per_class {
        // One entry per (location, task, task): a pair that changes an outcome if any does.
        let mut class_of: FxHashMap<(u32, u32, u32), usize> = FxHashMap::default();
        for (i, &(a, b)) in pairs.iter().enumerate() {
            let key = (loc_of(a), model.op_task[a as usize], model.op_task[b as usize]);
            match class_of.get(&key) {
                Some(&c) => {
                    races[c].pairs += 1;
                    if races[c].witness.is_none() && seen_by[i].is_some() {
                        let pairs = races[c].pairs;
                        races[c] = Race { pairs, ..race_of(i, (a, b)) };
                    }
                }
                None => {
                    class_of.insert(key, races.len());
                    races.push(race_of(i, (a, b)));
                }
            }
        }
    } else {
        races = pairs.iter().enumerate().map(|(i, &p)| race_of(i, p)).collect();
    }
    if report.per_class {
        // Positions in `races` are classes, not pairs.
        for o in &mut report.outcomes {
            o.races.clear();
        }
    }
    report.races = races;
    phases.done("report");
    report.time_s = started.elapsed().as_secs_f64();
    report
}

/// With `TRACEPOR_PHASES` set, the time of each phase on stderr (as `optimal` prints its own).
struct Phases(Option<std::time::Instant>);

impl Phases {
    fn new() -> Self {
        Phases(std::env::var_os("TRACEPOR_PHASES").map(|_| std::time::Instant::now()))
    }

    fn done(&self, what: &str) {
        if let Some(t) = self.0 {
            eprintln!("races phase: {what} at {:.6} s", t.elapsed().as_secs_f64());
        }
    }
}

/// What an outcome (`s`) sees differently from the recorded run (`rec`): reads that see
/// another write, locations with another last write, operations never run (with what each
/// stuck thread waits for in `end`, the state its schedule ends in).
fn differences(model: &EmModel, rec: &Seen, s: &Seen, end: Option<&EmState>) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut more = 0usize;
    let named = |index: u32| -> Option<OpRef> {
        (index != 0).then(|| model.trace.position(index)).flatten().map(|p| model.op_ref(p as u32))
    };
    // Each operation named once per difference (its text is written from the same names).
    for p in 0..model.trace.ops.len() {
        let (now, was) = (s.rf[p], rec.rf[p]);
        if now == was || now == verdict::NOT_RUN {
            continue;
        }
        if out.len() >= LIST_DIFFERENCES {
            more += 1;
            continue;
        }
        let op = model.op_ref(p as u32);
        let (now, was) = (named(now), named(was));
        let mut text = op.describe();
        text.push_str(" sees ");
        write_value(&mut text, now.as_ref());
        text.push_str(" instead of ");
        write_value(&mut text, was.as_ref());
        out.push(Difference { kind: "read", op: Some(op), now, recorded: was, text });
    }
    for loc in 0..model.trace.locations.len() {
        let (now, was) = (s.last[loc], rec.last[loc]);
        if now == was {
            continue;
        }
        if out.len() >= LIST_DIFFERENCES {
            more += 1;
            continue;
        }
        let (now, was) = (named(now), named(was));
        let mut text = String::from("last write of ");
        // A write's location is this one's full name (`op_ref`); one of the two is a write.
        match now.as_ref().or(was.as_ref()).and_then(|w| w.location.as_deref()) {
            Some(name) => text.push_str(name),
            None => text.push_str(&model.trace.location_full_name(loc as u32)),
        }
        text.push_str(" is ");
        write_value(&mut text, now.as_ref());
        text.push_str(" instead of ");
        write_value(&mut text, was.as_ref());
        out.push(Difference { kind: "final", op: was.clone(), now, recorded: was, text });
    }
    let stuck: Vec<u32> = (0..model.trace.ops.len() as u32).filter(|&p| !s.ran[p as usize]).collect();
    if let Some(&first) = stuck.first() {
        let waits = end.map(|e| model.explain_stuck(e)).unwrap_or_default();
        let first = model.op_ref(first);
        let text =
            format!("deadlock: {} operations never run, from {}; {}", stuck.len(), first.short(), waits.join("; "));
        out.push(Difference { kind: "stuck", op: Some(first), now: None, recorded: None, text });
    }
    if more > 0 {
        out.push(Difference {
            kind: "more",
            op: None,
            now: None,
            recorded: None,
            text: format!("and {more} more differences"),
        });
    }
    out
}
