//! State left out of SmartApp configurations (src/model/smartapp/dead.rs: attributes no app
//! reads or writes, conflict records of attributes one app writes) on generated homes of three
//! to eight apps (tests/common/gen_smartapp.rs `gen_home`): every strategy registered for
//! SmartApps, on the reduced model, must find exactly the errors (conflicts and exceptions)
//! that the exhaustive search finds on the model that stores everything (`keep_dead_state`),
//! unbounded and under `--bound 1`, with and without `--conflicts`; `stateful-dpor` in both
//! choice orders; the stateless ones (under the bound) on homes of at most five events, which
//! they finish within their budget. A nothing-enabled state (under a bound) is found by both or by neither: the
//! reduction merges end states that differ only in what it leaves out, so their number may
//! shrink.
//!
//! Runs are budgeted by states and transitions, never by time. `TRACEPOR_SOUNDNESS_SEEDS=n`
//! sets the seeds (default 500; a tenth of them are homes). The baseline stops at
//! 10,000 states (`CAP`; 4,000 on the guarded homes, `GUARDED_CAP`): a variant past it is passed
//! over, and at most half may be.
//!
//! Saved copies reset while their guard is off (src/model/smartapp/guarded.rs) are checked the
//! same way on homes with copier apps (`gen_guarded_home`), which the analysis both accepts and
//! refuses: among them quiet uses of `state` (quiet.rs: `log.debug "$state"`, a key only
//! logged) and a helper entered only under the guard (guards through calls), accepted, and the
//! helper also called unguarded or the copy handed to a method inside a log, refused.
//!
//! Shown able to fail (docs/reductions-homes.md): a planted bug in the read scan (the
//! `currentX` form not counted as a read of `x`) is caught here, and so are two in `monitors`
//! (the conflicts within one transition dropped; a transition's outgoing ghost taken from its
//! first write instead of its last), one in self_keys.rs (control dependence ignored: a key
//! that guards a command taken for self-contained), and one in guarded.rs (reads outside any
//! guard ignored); every call taken as inert (quiet.rs) and the unguarded call sites
//! of a helper ignored (guarded.rs), each caught by the comparison with the refusal assertion
//! of the guarded test switched off.

use crate::common::apps;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracepor::explore::{self, registry, Ablation, Limits, Outcomes, Search, Stats};
use tracepor::model::smartapp::{self, SmartAppModel, SmartAppOptions};
use tracepor::model::{format_schedule, parse_schedule, ConflictMode, ConflictScope, Model};

use crate::common::gen_smartapp::{gen_guarded_home, gen_home};

fn seeds() -> u64 {
    crate::common::size("TRACEPOR_SOUNDNESS_SEEDS", 100, 500)
}

fn write_home(tag: &str, apps: &[(String, String)]) -> Vec<PathBuf> {
    apps::write(&format!("home-{tag}"), apps)
}

fn run(m: &SmartAppModel, name: &str, ablation: Ablation, limits: Limits) -> (Stats, Outcomes) {
    let mut s = registry::lookup(name).and_then(|e| e.build::<SmartAppModel>()).expect("registered");
    let mut search = Search::new(m, limits).with_cancel(Arc::new(AtomicBool::new(false)));
    search.options.ablation = ablation;
    let (stats, found, _) = explore::run_search(search, s.as_mut());
    (stats, found)
}

/// The distinct errors found: kind, line and message (for a conflict: both apps, the attribute,
/// both values). Not `monitors`' pair conflicts, which no other strategy looks for: their own
/// suite is tests/soundness_pairs.rs.
fn errors(found: &Outcomes) -> BTreeSet<String> {
    found
        .errors()
        .filter(|f| f.error.kind != "pair conflict")
        .map(|f| format!("{} line {}: {}", f.error.kind, f.error.line, f.error.message))
        .collect()
}

/// `--conflicts` observes each conflict and goes on; `--conflict-mode end` ends the
/// path at one.
/// `--conflicts-on lock --conflict-mode end` as `corpus` runs the FSE pairs (a group's scope).
const OPTIONS: [(&str, bool, Option<u32>, ConflictMode, Option<ConflictScope>); 6] = [
    ("", false, None, ConflictMode::Observe, None),
    ("--conflicts", true, None, ConflictMode::Observe, None),
    ("--conflicts --conflict-mode end", true, None, ConflictMode::End, None),
    ("--bound 1", false, Some(1), ConflictMode::Observe, None),
    ("--conflicts --bound 1", true, Some(1), ConflictMode::Observe, None),
    ("--conflicts-on lock --conflict-mode end", true, None, ConflictMode::End, Some(ConflictScope::of(&["lock"]))),
];

/// States of the exhaustive baseline: past this, the variant is skipped.
const CAP: u64 = 10_000;
/// The guarded homes' baselines stop sooner: those past 4,000 states took 43% of their test's
/// CPU (34.1 s against 19.4 s, one thread) to check 17 more of 257 variants.
const GUARDED_CAP: u64 = 4_000;

/// What one run of the suite over generated homes checked.
#[derive(Default)]
struct Tally {
    variants: usize,
    checked: usize,
    smaller: usize,
    with_errors: usize,
    checked_conflicts: usize,
    runs: usize,
    /// Apps with a time-stamp key (self_keys.rs): [kept, left out].
    stamps: [usize; 2],
    failures: Vec<String>,
    unfinished: Vec<String>,
}

/// Every registered SmartApp strategy on the reduced model against `full` on the model that
/// stores everything, on the homes `gen` makes from `seeds`, under every option set.
fn check_homes(
    tag: &str,
    gen: fn(&mut SmallRng) -> Vec<(String, String)>,
    seeds: std::ops::Range<u64>,
    cap: u64,
) -> Tally {
    let names: Vec<&str> = registry::applicable::<SmartAppModel>().map(|e| e.name).collect();
    let mut t = Tally::default();
    for seed in seeds {
        let apps = gen(&mut SmallRng::seed_from_u64(seed));
        let files = write_home(&format!("{tag}{seed}"), &apps);
        let input = apps.iter().map(|(n, s)| format!("// {n}\n{s}")).collect::<Vec<_>>().join("\n");
        for (label, conflicts, bound, conflict_mode, conflicts_on) in OPTIONS {
            t.variants += 1;
            let opts = SmartAppOptions {
                conflicts,
                bound,
                keep_dead_state: true,
                conflict_mode,
                conflicts_on,
                ..Default::default()
            };
            let kept = smartapp::load(&files, opts).unwrap_or_else(|e| panic!("seed {seed} does not load: {e}"));
            let limits = Limits { max_states: Some(cap), ..Limits::default() };
            let (base, expected) = run(&kept, "full", Ablation::default(), limits);
            if !base.finished {
                continue;
            }
            t.checked += 1;
            t.checked_conflicts += usize::from(conflicts);
            let want = errors(&expected);
            // Helpers entered by a built name are followed (callable.rs), never refused.
            assert!(!want.iter().any(|e| e.contains("does not follow")), "seed {seed}: {want:?}\n{input}");
            t.with_errors += usize::from(!want.is_empty());
            let reduced = smartapp::load(&files, SmartAppOptions { keep_dead_state: false, ..opts }).unwrap();
            if label == "--conflicts" {
                // Time stamps (`stamp_statement`): left out where their values reach only
                // themselves (self_keys.rs), kept where they reach more.
                let left: Vec<String> = reduced.self_contained_keys().into_iter().map(|(a, _)| a).collect();
                for (app, _) in apps.iter().filter(|(_, src)| src.contains("stamp") || src.contains("evt.deviceId]")) {
                    t.stamps[usize::from(left.contains(app))] += 1;
                }
            }
            for &name in &names {
                let entry = registry::lookup(name).unwrap();
                // A stateless search takes every order of a bound-1 run: only small homes.
                if !entry.runs_on(&reduced) || (entry.stateless && reduced.choices() > 5) {
                    continue;
                }
                let orders: &[(&str, Ablation)] = if name == "stateful-dpor" {
                    &[
                        ("", Ablation::default()),
                        (" --lowest-first", Ablation { lowest_first: true, ..Ablation::default() }),
                    ]
                } else {
                    &[("", Ablation::default())]
                };
                for &(rule, ablation) in orders {
                    t.runs += 1;
                    let budget = if entry.stateless { 100_000 } else { 5_000_000 };
                    let limits = Limits { max_transitions: Some(budget), ..Limits::default() };
                    let (stats, found) = run(&reduced, name, ablation, limits);
                    let what = format!("seed {seed}: {name} {label}{rule}");
                    let got = errors(&found);
                    if name == "full" && stats.finished {
                        assert!(stats.states <= base.states, "{what}: more states with the reduction");
                        t.smaller += usize::from(stats.states < base.states);
                    }
                    if !got.is_subset(&want) {
                        t.failures
                            .push(format!("{what}: invented {:?}\n{input}", got.difference(&want).collect::<Vec<_>>()));
                    } else if !stats.finished {
                        t.unfinished.push(what);
                    } else if got != want || (found.deadlocks() > 0) != (expected.deadlocks() > 0) {
                        let lost: Vec<_> = want.difference(&got).collect();
                        t.failures.push(format!(
                            "{what}: lost {lost:?} (deadlocks {} vs {})\n{input}",
                            found.deadlocks(),
                            expected.deadlocks()
                        ));
                    }
                }
            }
        }
    }
    t
}

impl Tally {
    /// The suite proves something only if the baseline finishes on most homes, the reduction
    /// leaves state out on many of them, and there are errors to lose.
    fn assert_sound(&self, what: &str) {
        let t = self;
        assert!(t.failures.is_empty(), "{} unsound runs on {what}:\n{}", t.failures.len(), t.failures.join("\n"));
        assert!(t.unfinished.len() * 20 <= t.runs, "too many runs did not finish: {:?} of {}", t.unfinished, t.runs);
        assert!(t.checked * 2 >= t.variants, "the baseline finished only {} of {} variants", t.checked, t.variants);
        assert!(t.smaller * 3 >= t.checked, "the reduction shrank only {} of {} variants", t.smaller, t.checked);
        // (The generated apps throw nothing: errors are conflicts, under `--conflicts`.)
        assert!(
            t.with_errors * 3 >= t.checked_conflicts,
            "only {} of {} variants have errors",
            t.with_errors,
            t.checked_conflicts
        );
        eprintln!(
            "{what}: {} of {} variants checked, {} smaller, {} with errors, {} runs",
            t.checked, t.variants, t.smaller, t.with_errors, t.runs
        );
    }
}

#[test]
fn every_strategy_finds_the_same_errors_with_dead_state_left_out_on_generated_homes() {
    let t = check_homes("home", gen_home, 0..seeds() / 10, CAP);
    t.assert_sound("homes");
    // Self-contained keys (self_keys.rs): both applied and refused on the generated apps.
    assert!(t.stamps[0] > 0 && t.stamps[1] > 0, "time-stamp keys kept / left out: {:?}", t.stamps);
    eprintln!("apps with a time stamp: {} kept, {} left out", t.stamps[0], t.stamps[1]);
}

/// Saved copies dead while their guard is off (src/model/smartapp/guarded.rs) on homes with
/// copiers (`gen_guarded_home`): the same check, and the analysis both resets copies and
/// refuses them (a read outside the guard, a guard set without a copy or with a command before
/// it) on the generated apps.
#[test]
fn every_strategy_finds_the_same_errors_with_guarded_copies_reset() {
    let seeds = 0..seeds() / 10;
    let (mut applied, mut refused) = (0, 0);
    // Copiers with quiet uses of `state` / a helper entered under the guard only: reset in how
    // many (quiet.rs, guarded.rs guards through calls).
    let (mut quiet_reset, mut helper_reset) = (0, 0);
    for seed in seeds.clone() {
        let apps = gen_guarded_home(&mut SmallRng::seed_from_u64(seed));
        let files = write_home(&format!("guardv{seed}"), &apps);
        let m = smartapp::load(&files, SmartAppOptions { conflicts: true, ..Default::default() }).unwrap();
        for v in m.guard_verdicts().iter().filter(|v| v.app.starts_with("copier") && v.key == "copy") {
            let src = &apps.iter().find(|(n, _)| *n == v.app).unwrap().1;
            // The helper also entered from an unguarded handler, the copy given to a method in
            // a log's argument: each reads the copy outside the guard, and must be refused.
            let unguarded = src.contains("door.lock()\n    restoreCopy()");
            let logged_call = src.contains("checkCopy(state.copy)");
            assert!(!(unguarded || logged_call) || v.verdict.is_err(), "seed {seed}: {v:?}\n{src}");
            match v.verdict {
                Ok(_) => {
                    applied += 1;
                    quiet_reset += usize::from(src.contains("saving over $state"));
                    helper_reset += usize::from(src.contains("def restoreCopy"));
                }
                Err(_) => refused += 1,
            }
        }
    }
    assert!(applied >= 5 && refused >= 5, "copies reset in {applied} apps, refused in {refused}");
    assert!(quiet_reset >= 2 && helper_reset >= 2, "reset with quiet uses {quiet_reset}, with a helper {helper_reset}");
    check_homes("guarded", gen_guarded_home, seeds, GUARDED_CAP).assert_sound("guarded homes");
    eprintln!(
        "guarded copies: reset in {applied} copier apps ({quiet_reset} with quiet uses, {helper_reset} by a helper), refused in {refused}"
    );
}

/// A home's model loads the same apps with and without the reduction and has the same events.
#[test]
fn the_reduction_keeps_the_events() {
    for seed in 0..5 {
        let apps = gen_home(&mut SmallRng::seed_from_u64(seed));
        let files = write_home(&format!("events{seed}"), &apps);
        let opts = SmartAppOptions { conflicts: true, bound: None, keep_dead_state: true, ..Default::default() };
        let kept = smartapp::load(&files, opts).unwrap();
        let reduced = smartapp::load(&files, SmartAppOptions { keep_dead_state: false, ..opts }).unwrap();
        assert_eq!(kept.choices(), reduced.choices());
        assert_eq!(kept.event_names(), reduced.event_names());
    }
}

/// Each form in which a handler can read an attribute keeps that attribute stored: a sensor read
/// only through that form decides whether an app writes the switch another app writes, so the
/// conflict between them is found with the reduction exactly when it is without (deterministic;
/// the generated homes meet each form only now and then).
#[test]
fn every_read_form_keeps_its_attribute() {
    // The read, and the methods it goes through (callable.rs: a method entered by a built
    // name, a getter, a written call).
    let forms = [
        ("contact1.currentValue(\"contact\")", ""),
        ("contact1.latestValue(\"contact\")", ""),
        ("contact1.currentContact", ""),
        ("contact1.contactState.value", ""),
        ("contact1.contact", ""),
        ("contact1.currentValue(\"con\" + \"tact\")", ""),
        ("contact1.currentState(\"contact\").value", ""),
        ("\"probe${1}\"()", "def probe1() { contact1.currentValue(\"contact\") }\n"),
        ("\"${'pro' + 'be' + 2}\"()", "def probe2() { contact1.currentContact }\n"),
        ("zoneOpen", "def getZoneOpen() { contact1.currentValue(\"contact\") }\n"),
        ("zone(contact1)", "def zone(d) { d.currentValue(\"contact\") }\n"),
    ];
    for (i, (read, helper)) in forms.iter().enumerate() {
        let apps = reader_and_other(read, helper, "");
        let ((_, want), (_, got)) = with_and_without(&format!("form{i}"), &apps);
        assert!(!errors(&want).is_empty(), "{read}: no conflict to lose");
        assert_eq!(errors(&got), errors(&want), "{read}: the reduction changed the conflicts");
    }
}

/// Two apps whose conflict on the switch depends on `read`: the reader switches it on when
/// motion is active and `read` is `open` (`helper`: methods it goes through); the other
/// switches it off on every contact event, when the reader also runs `on_contact`.
fn reader_and_other(read: &str, helper: &str, on_contact: &str) -> [(String, String); 2] {
    let reader = format!(
        "definition(name: \"Reader\", namespace: \"gen\", author: \"tracepor tests\")\n\
         preferences {{ section(\"d\") {{\n input \"contact1\", \"capability.contactSensor\"\n input \"motion1\", \"capability.motionSensor\"\n input \"sw\", \"capability.switch\"\n }} }}\n\
         def installed() {{\n subscribe(motion1, \"motion.active\", h)\n subscribe(contact1, \"contact\", w)\n }}\n\
         def w(evt) {{ {on_contact} }}\n\
         def h(evt) {{\n    if ({read} == \"open\") {{\n        sw.on()\n    }}\n}}\n{helper}"
    );
    let other = "definition(name: \"Other\", namespace: \"gen\", author: \"tracepor tests\")\n\
         preferences { section(\"d\") {\n input \"contact1\", \"capability.contactSensor\"\n input \"sw\", \"capability.switch\"\n } }\n\
         def installed() { subscribe(contact1, \"contact\", h) }\n\
         def h(evt) { sw.off() }\n";
    [("a-reader".to_string(), reader), ("b-other".to_string(), other.to_string())]
}

/// `full` on `apps` under `--conflicts` with everything stored and with the reduction, each
/// required to finish: (stats, outcomes) of both, in that order.
fn with_and_without(tag: &str, apps: &[(String, String)]) -> ((Stats, Outcomes), (Stats, Outcomes)) {
    let files = write_home(tag, apps);
    let opts = SmartAppOptions { conflicts: true, bound: None, keep_dead_state: true, ..Default::default() };
    let kept = smartapp::load(&files, opts).unwrap();
    let reduced = smartapp::load(&files, SmartAppOptions { keep_dead_state: false, ..opts }).unwrap();
    let limits = || Limits { max_states: Some(CAP), ..Limits::default() };
    let (a, b) =
        (run(&kept, "full", Ablation::default(), limits()), run(&reduced, "full", Ablation::default(), limits()));
    assert!(a.0.finished && b.0.finished, "{tag}: a run did not finish");
    (a, b)
}

/// Write-only `state` keys (dead.rs): a key read in each form the interpreter knows decides
/// whether an app writes the switch another app writes, so the conflict is found with the
/// reduction exactly when it is without; a key only written is left out (fewer states).
#[test]
fn every_state_read_form_keeps_its_key() {
    let forms = [
        ("state.k", ""),
        ("state[\"k\"]", ""),
        ("atomicState.k", ""),
        ("state.\"${'k'}\"", ""),
        ("state[\"${evt.name == 'x' ? 'j' : 'k'}\"]", ""),
        ("(state.k ?: \"closed\")", ""),
        ("\"${state.k}\"", ""),
        ("readK()", "def readK() { def s = state\n s.k }\n"),
        ("readK()", "def readK() { state.k += \"\"\n state.k }\n"),
    ];
    for (i, (read, helper)) in forms.iter().enumerate() {
        let apps = reader_and_other(read, helper, "state.k = evt.value");
        let ((_, want), (_, got)) = with_and_without(&format!("key{i}"), &apps);
        assert!(!errors(&want).is_empty(), "{read}: no conflict to lose");
        assert_eq!(errors(&got), errors(&want), "{read}: the reduction changed the conflicts");
    }
    // The same app reading no key: `state.k` is written only, and not stored.
    let writer = "definition(name: \"Writer\", namespace: \"gen\", author: \"tracepor tests\")\n\
         preferences { section(\"d\") {\n input \"contact1\", \"capability.contactSensor\"\n input \"sw\", \"capability.switch\"\n } }\n\
         def installed() { subscribe(contact1, \"contact\", w) }\n\
         def w(evt) {\n state.k = evt.value\n sw.on()\n}\n";
    let other = writer.replace("Writer", "Other").replace("sw.on()", "sw.off()");
    let apps = [("a-writer".into(), writer.to_string()), ("b-other".into(), other)];
    let ((s1, want), (s2, got)) = with_and_without("key-unread", &apps);
    assert_eq!(errors(&got), errors(&want));
    assert!(s2.states < s1.states, "a write-only key still stored: {:?} states, {:?} kept", s2.states, s1.states);
    // The probe (probe.rs) sees the key vary when it is stored, and not when it is left out.
    let files = write_home("key-unread", &apps);
    let opts = SmartAppOptions { conflicts: true, keep_dead_state: true, ..Default::default() };
    let key = |keep_dead_state| {
        let p = smartapp::load(&files, SmartAppOptions { keep_dead_state, ..opts }).unwrap().probe(10_000);
        assert!(p.finished, "{p}");
        p.components
            .into_iter()
            .find(|c| c.component.starts_with("state ") && c.component.ends_with(".k"))
            .map(|c| c.values)
    };
    assert_eq!(key(true), Some(3), "absent, open, closed");
    assert_eq!(key(false), None);
}

/// Self-contained keys (self_keys.rs): a time stamp that only throttles a notification is left
/// out (fewer states, the same conflicts); read to guard the command that conflicts, or through
/// a local that does, or copied into a key that does, it is kept: the conflicts are those of
/// the model that stores everything (a reduction that took it for self-contained would never
/// switch on, and lose them).
#[test]
fn a_self_contained_key_is_left_out_and_one_that_guards_a_command_is_kept() {
    let app = |body: &str| {
        format!(
            "definition(name: \"Stamp\", namespace: \"gen\", author: \"tracepor tests\")\n\
             preferences {{ section(\"d\") {{\n input \"motion1\", \"capability.motionSensor\"\n input \"sw\", \"capability.switch\"\n }} }}\n\
             def installed() {{ subscribe(motion1, \"motion\", h) }}\n\
             def h(evt) {{\n{body}\n}}\n\
             private note(evt) {{\n    sendPush(\"motion\")\n    state[evt.deviceId] = now()\n}}\n"
        )
    };
    let other = "definition(name: \"Other\", namespace: \"gen\", author: \"tracepor tests\")\n\
         preferences { section(\"d\") {\n input \"contact1\", \"capability.contactSensor\"\n input \"sw\", \"capability.switch\"\n } }\n\
         def installed() { subscribe(contact1, \"contact\", h) }\n\
         def h(evt) { sw.off() }\n";
    let bodies = [
        (true, "    sw.on()\n    def last = state[evt.deviceId]\n    if (last == null || now() - last >= 60000) { note(evt) }"),
        (false, "    if (state[evt.deviceId] != null) { sw.on() }\n    note(evt)"),
        (false, "    def seen = state.t\n    state.t = now()\n    if (seen) { sw.on() }"),
        (false, "    state.copy = state.t\n    state.t = now()\n    if (state.copy) { sw.on() }"),
        (false, "    if (state.t == null) { state.t = now() } else { sw.on() }"),
    ];
    for (i, (left_out, body)) in bodies.into_iter().enumerate() {
        let apps = [("a-stamp".to_string(), app(body)), ("b-other".to_string(), other.to_string())];
        let ((_, want), (_, got)) = with_and_without(&format!("stamp{i}"), &apps);
        assert!(!errors(&want).is_empty(), "{body}: no conflict to lose");
        assert_eq!(errors(&got), errors(&want), "{body}: the reduction changed the conflicts");
        let files = write_home(&format!("stamp{i}"), &apps);
        let reduced = smartapp::load(&files, SmartAppOptions { conflicts: true, ..Default::default() }).unwrap();
        let listed = reduced.self_contained_keys();
        assert_eq!(!listed.is_empty(), left_out, "{body}: {listed:?}");
        // The probe (probe.rs) sees the key vary exactly when it is stored.
        let p = reduced.probe(10_000);
        assert!(p.finished, "{p}");
        let stored = p.components.iter().any(|c| c.component.starts_with("state a-stamp.") && c.values > 1);
        assert_eq!(stored, !left_out, "{body}: {p}");
    }
}

/// The interaction graph's components (src/model/smartapp/components.rs): on generated homes,
/// the conflicts `full` finds on the whole home are exactly the union of those it finds on each
/// component's apps loaded alone (with the apps the home leaves out), with conflicts observed
/// and ending the path, and each component's schedule replays in the home. Homes of one
/// component check nothing and are counted apart.
#[test]
fn a_homes_conflicts_are_the_union_of_its_components() {
    let (mut split, mut checked, mut with_errors, mut replayed) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    // Two homes a seed (1,000 at the CI size, about 2 s; 500 at the quick size): the edge of an
    // event that runs one app and writes what another reads is caught only past a few hundred.
    for seed in 0..crate::common::size("TRACEPOR_SOUNDNESS_SEEDS", 250, 500) * 2 {
        let apps = gen_home(&mut SmallRng::seed_from_u64(1000 + seed));
        let files = write_home(&format!("comp{seed}"), &apps);
        for mode in [ConflictMode::Observe, ConflictMode::End] {
            let opts = SmartAppOptions { conflicts: true, conflict_mode: mode, ..Default::default() };
            let home = smartapp::load(&files, opts).unwrap();
            let comps = home.interaction_components();
            if comps.len() < 2 {
                continue;
            }
            split += 1;
            let kept: Vec<usize> = comps.iter().flatten().copied().collect();
            let limits = Limits { max_states: Some(CAP), ..Limits::default() };
            let (stats, found) = run(&home, "full", Ablation::default(), limits.clone());
            if !stats.finished {
                continue;
            }
            let want = errors(&found);
            let mut got = BTreeSet::new();
            let mut finished = true;
            for c in &comps {
                // With the apps the home leaves out (`slice.rs`; they are left out again, as
                // leaving out is a property of the app alone): their subscriptions make the
                // environment events the home schedules for what the component's apps read.
                let part: Vec<PathBuf> =
                    (0..files.len()).filter(|a| c.contains(a) || !kept.contains(a)).map(|a| files[a].clone()).collect();
                let m = smartapp::load(&part, opts).unwrap();
                let (s, f) = run(&m, "full", Ablation::default(), limits.clone());
                finished &= s.finished;
                got.extend(errors(&f));
                // Each schedule of the component replays in the whole home and observes its
                // conflict there (the choice names are the home's: parsed by name).
                for found in f.errors() {
                    let text = format_schedule(&m, &found.schedule);
                    let key = format!("{} line {}: {}", found.error.kind, found.error.line, found.error.message);
                    match observed_along(&home, &text) {
                        Some(seen) if seen.contains(&key) => replayed += 1,
                        other => {
                            failures.push(format!("seed {seed} {mode:?}: `{text}` in the home: {other:?}, not {key}"))
                        }
                    }
                }
            }
            if !finished {
                continue;
            }
            checked += 1;
            with_errors += usize::from(!want.is_empty());
            if got != want {
                let input = apps.iter().map(|(n, s)| format!("// {n}\n{s}")).collect::<Vec<_>>().join("\n");
                failures.push(format!(
                    "seed {seed} {mode:?} components {comps:?}: home only {:?}, components only {:?}\n{input}",
                    want.difference(&got).collect::<Vec<_>>(),
                    got.difference(&want).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} homes differ from their components:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 5 && with_errors >= 3, "too few split homes checked: {checked} ({with_errors} with conflicts)");
    eprintln!("components: {split} split variants, {checked} checked, {with_errors} with conflicts, {replayed} schedules replayed");
}

/// The errors (as [`errors`] names them) observed along `schedule` on `m`, or None when a step
/// is not enabled there.
fn observed_along(m: &SmartAppModel, schedule: &str) -> Option<BTreeSet<String>> {
    let path = parse_schedule(m, schedule).ok()?;
    let mut s = m.initial();
    let mut out = BTreeSet::new();
    let mut enabled = Vec::new();
    for c in path {
        enabled.clear();
        m.enabled(&s, &mut enabled);
        if !enabled.contains(&c) {
            return None;
        }
        let mut seen = Vec::new();
        let r = m.step_observing(&mut s, c, None, &mut seen);
        out.extend(seen.iter().chain(r.as_ref().err()).map(|e| format!("{} line {}: {}", e.kind, e.line, e.message)));
        if r.is_err() {
            break;
        }
    }
    Some(out)
}

/// An attribute one app writes and no app reads, but another app subscribes to (dead.rs: not
/// dead, as the write's change runs that handler). The writer sets a dimmer's level to 37, a
/// value no environment event has (its event is 70), so only the write can run the
/// subscriber, whose switch then conflicts with a third app's. With the level taken for dead,
/// the write would store and deliver nothing and the conflict would be lost (the generated homes
/// hide this: the environment's own event on the attribute runs the same handlers).
#[test]
fn a_single_writer_attribute_with_a_subscriber_is_kept() {
    let head = |name: &str, inputs: &str| {
        format!(
            "definition(name: \"{name}\", namespace: \"gen\", author: \"tracepor tests\")\n\
             preferences {{ section(\"d\") {{\n{inputs} }} }}\n"
        )
    };
    let writer =
        head("Writer", " input \"motion1\", \"capability.motionSensor\"\n input \"dim\", \"capability.switchLevel\"\n")
            + "def installed() { subscribe(motion1, \"motion.active\", h) }\ndef h(evt) { dim.setLevel(37) }\n";
    let listener = head("Listener", " input \"dim\", \"capability.switchLevel\"\n input \"sw\", \"capability.switch\"\n")
        + "def installed() { subscribe(dim, \"level\", h) }\ndef h(evt) {\n    if (evt.value == \"37\") {\n        sw.on()\n    }\n}\n";
    let other =
        head("Other", " input \"contact1\", \"capability.contactSensor\"\n input \"sw\", \"capability.switch\"\n")
            + "def installed() { subscribe(contact1, \"contact.open\", h) }\ndef h(evt) { sw.off() }\n";
    let apps = [("a-writer".to_string(), writer), ("b-listener".to_string(), listener), ("c-other".to_string(), other)];
    let files = write_home("single-writer", &apps);
    for conflict_mode in [ConflictMode::Observe, ConflictMode::End] {
        let opts = SmartAppOptions { conflicts: true, keep_dead_state: true, conflict_mode, ..Default::default() };
        let kept = smartapp::load(&files, opts).unwrap();
        let reduced = smartapp::load(&files, SmartAppOptions { keep_dead_state: false, ..opts }).unwrap();
        let limits = || Limits { max_states: Some(CAP), ..Limits::default() };
        let (s1, want) = run(&kept, "full", Ablation::default(), limits());
        let want = errors(&want);
        assert!(s1.finished);
        assert!(want.iter().any(|e| e.contains("switch")), "{conflict_mode:?}: no conflict on the switch: {want:?}");
        for name in ["full", "stateful-dpor"] {
            let (s2, got) = run(&reduced, name, Ablation::default(), limits());
            assert!(s2.finished);
            assert_eq!(errors(&got), want, "{name} {conflict_mode:?}: the reduction changed the conflicts");
        }
    }
}

/// guarded.rs's rule 2(b) (the copy written right after the guard) asks that no error raised
/// between the two be caught: no `try` in the copier, and none in another app whose body may
/// run the copier's code (a command there delivers to it). A logger's `try` around an HTTP post
/// runs nothing of another app's and leaves the copy reset; a `try` around a command, or one
/// in the copier itself, refuses it.
#[test]
fn only_a_try_that_can_run_the_copier_refuses_a_copy_written_after_its_guard() {
    let copier = |own_try: &str| {
        let body = [
            own_try,
            "if (evt.value == \"open\") {",
            "    state.on = \"disabled\"",
            "    state.copy = sw.currentValue(\"switch\")",
            "    sw.off()",
            "} else if (state.on == \"disabled\") {",
            "    if (state.copy == \"on\") { sw.on() } else { sw.off() }",
            "    state.on = null",
            "}",
        ];
        apps::app("Copier", &[("sw", "switch"), ("contact1", "contactSensor")], ("contact1", "contact", "h"), &body)
    };
    let other = |try_body: &str| {
        let body = ["log.debug \"motion\"", try_body];
        apps::app("Other", &[("sw", "switch"), ("motion1", "motionSensor")], ("motion1", "motion", "m"), &body)
    };
    let http = "try { httpPostJson([uri: \"http://example.org\"]) { resp -> log.debug \"sent\" } } catch (e) { log.error \"not sent\" }";
    let command = "try { sw.on() } catch (e) { log.error \"failed\" }";
    let cases = [
        ("none", "", "", true),
        ("http", "", http, true),
        ("command", "", command, false),
        ("own", "try { log.debug \"h\" } catch (e) { log.error \"h\" }", "", false),
    ];
    for (tag, own, body, reset) in cases {
        let apps = [("copier".to_string(), copier(own)), ("other".to_string(), other(body))];
        let files = write_home(&format!("trywin-{tag}"), &apps);
        let m = smartapp::load(&files, SmartAppOptions { conflicts: true, ..Default::default() }).unwrap();
        let v = m.guard_verdicts().into_iter().find(|v| v.app == "copier" && v.key == "copy");
        let v = v.unwrap_or_else(|| panic!("{tag}: no verdict on copier.copy"));
        assert_eq!(v.verdict.is_ok(), reset, "{tag}: {:?}", v.verdict);
    }
}
