//! Homes: IoTCheck's app lists as an input, the conflicts grouped by device and
//! attribute, a home's findings against its apps' pairwise runs, and `corpus --homes`. Apps come
//! from ../shared/smartthings/smartapps; every search is bounded by states, never by time.

use crate::common;
use crate::common::apps;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracepor::corpus::homes::{self, Home};
use tracepor::corpus::Settings;
use tracepor::explore::Limits;
use tracepor::model::{ConflictMode, LoadOptions};
use tracepor::report::findings;
use tracepor::trace::applist::{is_app_list, parse_app_list};

/// States a small home's search may store: they all finish far below it.
const STATES: u64 = 200_000;

fn smartapps() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/smartthings/smartapps")
}

fn tracepor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap()
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracepor-homes-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes an app list `name` into `dir`, one app a line.
fn list(dir: &Path, name: &str, apps: &[&str]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, apps.iter().map(|a| format!("{a}\n")).collect::<String>()).unwrap();
    p
}

fn settings() -> Settings {
    Settings { limits: Limits { max_states: Some(STATES), ..Limits::default() }, ..Settings::default() }
}

fn run(list: &Path, pairwise: bool) -> homes::HomeRow {
    run_in(list, &smartapps(), pairwise, ConflictMode::Observe)
}

/// A home's run (and its pairs', with `pairwise`), the apps in `apps`, conflicts in `mode`.
fn run_in(list: &Path, apps: &Path, pairwise: bool, mode: ConflictMode) -> homes::HomeRow {
    let home = Home { home: list.file_name().unwrap().to_string_lossy().into(), list: list.to_path_buf() };
    let mut settings = settings();
    settings.load = LoadOptions { conflict_mode: mode, ..settings.load };
    homes::run_home(home, &settings, Some(apps), pairwise)
}

/// Asserts that `row`'s home finished, so did every pair, and the home has every pair finding
/// whose schedule replays in it, directly or as a pair conflict (a third app's write between
/// the two, explore/pair_monitors.rs); a finding it has only as a pair conflict is one a third
/// app's write explains (docs/homes.md). Returns how many pair findings the home reports.
fn assert_includes_its_pairs(what: &str, row: &homes::HomeRow) -> usize {
    assert!(row.finished(), "{what}: {row:?}");
    let p = row.pairwise.as_ref().unwrap();
    assert_eq!(p.unfinished, 0, "{what}: {p:?}");
    assert_eq!(p.why.len(), p.missing.len(), "{what}");
    for (k, why) in p.missing.iter().zip(&p.why) {
        // Not the pair's path in the home: the schedule does not run there, or the two apps'
        // own writes along it differ (a third app changed what they read).
        let elsewhere = why.starts_with(homes::OTHER_WRITES)
            || ["is not one of the home", "cannot be followed in the home", "ends in the home at step"]
                .iter()
                .any(|r| why.contains(r));
        assert!(elsewhere, "{what}: {k} missed though the pair's path replays in the home: {why}");
    }
    assert_eq!(p.through_third_why.len(), p.through_third.len(), "{what}");
    for (k, why) in p.through_third.iter().zip(&p.through_third_why) {
        assert!(why.starts_with(homes::THIRD_APP), "{what}: {k} found through a third app, but: {why}");
    }
    p.findings - p.missing.len()
}

#[test]
fn reads_iotcheck_lists_and_tells_them_by_content() {
    // Every IoTCheck group is an app list, and every app it names (but the `#` removed ones)
    // is found in ../smartapps beside the lists' folder, the shared layout.
    let lists = smartapps().join("../appLists");
    let mut n = 0;
    for e in std::fs::read_dir(&lists).unwrap().flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        assert!(is_app_list(&bytes), "{}", e.path().display());
        let apps = tracepor::trace::applist::read_app_list(&e.path()).unwrap();
        let named =
            String::from_utf8_lossy(&bytes).lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count();
        assert_eq!(apps.len(), named, "{}", e.path().display());
        n += 1;
    }
    assert_eq!(n, 32);
    // Comments, blank lines, indentation, a byte-order mark, no final newline.
    let dir = tempdir("parse");
    let text = b"\xef\xbb\xbf# a home\n\n  make-it-so.groovy\n###removed.groovy\ngood-night-house.groovy";
    let apps = parse_app_list(&dir.join("l"), text, &[smartapps()]).unwrap();
    assert_eq!(apps, [smartapps().join("make-it-so.groovy"), smartapps().join("good-night-house.groovy")]);
    // A Groovy app, a trace and an event model are not lists.
    assert!(!is_app_list(&std::fs::read(smartapps().join("make-it-so.groovy")).unwrap()));
    assert!(!is_app_list(b"model events\n"));
    assert!(!is_app_list(b"1 START\n"));
}

#[test]
fn bad_lines_are_refused_with_file_line_column_and_text() {
    let dir = tempdir("refusals");
    let apps = smartapps();
    let apps = apps.to_str().unwrap();
    std::fs::copy(smartapps().join("make-it-so.groovy"), dir.join("make-it-so.groovy")).unwrap();
    std::fs::create_dir_all(dir.join("folder.groovy")).unwrap();
    std::fs::write(dir.join("notes.groovy"), "not an app\n").unwrap();
    let cases: &[(&str, &str)] = &[
        ("make-it-so.groovy\n\n  no-such-app.groovy\n", ":3:3: no such app in"),
        ("make-it-so.groovy\nmake-it-so.txt\n", ":2:1: expected an app's file name"),
        ("make-it-so.groovy\n# x\nmake-it-so.groovy\n", ":3:1: app listed twice (first at line 1)"),
        ("make-it-so.groovy\nfolder.groovy\n", ":2:1: cannot read the app"),
        ("make-it-so.groovy\nnotes.groovy\n", ":2:1: "),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let l = dir.join(format!("list{i}"));
        std::fs::write(&l, text).unwrap();
        // The folder and the non-app live beside the list: looked up there (no --smartapps).
        for args in [vec!["check", l.to_str().unwrap(), "--conflicts"], vec!["stats", l.to_str().unwrap()]] {
            let o = tracepor(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(&format!("list{i}{want}")), "{args:?}: `{want}` not in {err}");
            assert!(err.contains('`'), "the offending text is quoted: {err}");
        }
    }
    // Found with --smartapps; not found without it (neither beside the list nor in ../smartapps).
    let good = list(&dir, "good", &["good-night-house.groovy", "make-it-so.groovy"]);
    let with = tracepor(&["stats", good.to_str().unwrap(), "--smartapps", apps]);
    assert_eq!(with.status.code(), Some(0), "{}", String::from_utf8_lossy(&with.stderr));
    let without = tracepor(&["stats", good.to_str().unwrap()]);
    assert_eq!(without.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&without.stderr).contains("good:1:1: no such app"));
}

#[test]
fn a_home_groups_its_conflicts_by_device_and_attribute() {
    let dir = tempdir("group");
    let l = list(&dir, "lights", &["brighten-my-path.groovy", "darken-behind-me.groovy", "let-there-be-light.groovy"]);
    let apps = smartapps();
    let o = tracepor(&[
        "check",
        l.to_str().unwrap(),
        "--smartapps",
        apps.to_str().unwrap(),
        "--conflicts",
        "--max-states",
        "200000",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["finished"], true);
    let groups: Vec<findings::AttributeConflicts> =
        serde_json::from_value(doc["conflicts_by_attribute"].clone()).expect("grouped conflicts");
    // Every conflict of the report is in exactly one group, under its pair; each group names
    // the apps of its pairs; each write says where it is. (A physical conflict, between an
    // actuator and a sensor through the room, is a kind of its own: docs/physical.md.)
    let mut from_errors = BTreeSet::new();
    for e in doc["errors"].as_array().unwrap().iter().filter(|e| e["kind"] == "conflict") {
        let c = &e["conflict"];
        let (d, a) = c["variable"].as_str().unwrap().split_once('.').unwrap();
        let mut apps = [c["last_app"].as_str().unwrap().to_string(), c["app"].as_str().unwrap().to_string()];
        apps.sort();
        from_errors.insert((d.to_string(), a.to_string(), apps[0].clone(), apps[1].clone()));
    }
    assert_eq!(findings::keys(&groups), from_errors);
    assert!(from_errors.len() >= 2, "{from_errors:?}");
    for g in &groups {
        let named: BTreeSet<&String> = g.pairs.iter().flat_map(|p| &p.apps).collect();
        assert_eq!(named, g.apps.iter().collect());
        for i in g.pairs.iter().flat_map(|p| &p.instances) {
            for w in [&i.first, &i.then] {
                let at = w.at.as_deref().unwrap_or_else(|| panic!("no place for {w:?}"));
                assert!(at.contains(&format!("{}.groovy:", w.app)), "{at}");
            }
            assert_ne!(i.first.app, i.then.app);
            assert_ne!(i.first.value, i.then.value);
        }
    }
    // The text report has the same section.
    let text = tracepor(&["check", l.to_str().unwrap(), "--smartapps", apps.to_str().unwrap(), "--conflicts"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("conflicts by device and attribute"), "{text}");
    assert!(text.contains("switch.switch: apps brighten-my-path, darken-behind-me, let-there-be-light"), "{text}");
    assert!(text.contains("--smartapps"), "replay lines find the apps again: {text}");
}

/// Homes where no third app writes what a pair conflicts on: the home reports every finding
/// of the pairwise runs of its apps, and no other.
#[test]
fn a_home_has_the_findings_of_its_pairs() {
    let dir = tempdir("pairwise");
    let homes: &[&[&str]] = &[
        &["make-it-so.groovy", "good-night-house.groovy", "NotifyIfLeftUnlocked.groovy"],
        &["big-turn-off.groovy", "big-turn-on.groovy", "energy-saver.groovy", "once-a-day.groovy"],
        &["brighten-my-path.groovy", "darken-behind-me.groovy", "let-there-be-light.groovy"],
    ];
    for (i, apps) in homes.iter().enumerate() {
        let row = run(&list(&dir, &format!("home{i}"), apps), true);
        assert!(row.finished(), "{row:?}");
        let p = row.pairwise.as_ref().unwrap();
        assert_eq!((p.pairs, p.unfinished), (apps.len() * (apps.len() - 1) / 2, 0));
        assert!(p.missing.is_empty() && p.only_home.is_empty(), "home{i}: {p:?}");
        assert_eq!(row.findings(), p.findings);
        assert!(p.findings > 0);
    }
}

/// Where a third app writes the same attribute in the same event, the home can miss a pair's
/// finding when a conflict ends its path (`--conflict-mode end`, docs/homes.md): here
/// auto-lock-door and smart-auto-lock-unlock conflict on a door closing when alone, but in the
/// home enhanced-auto-lock-door's handler writes the lock between them, so
/// smart-auto-lock-unlock's write conflicts with it instead, and the path ends there. With
/// conflicts observed (the default) the path goes on and the home reports the pair's finding.
#[test]
fn a_third_apps_write_between_hides_a_pairs_finding() {
    let dir = tempdir("masked");
    let l = list(
        &dir,
        "lock3",
        &["auto-lock-door.smartapp.groovy", "enhanced-auto-lock-door.groovy", "smart-auto-lock-unlock.groovy"],
    );
    let row = run_in(&l, &smartapps(), true, ConflictMode::End);
    assert!(row.finished());
    let p = row.pairwise.unwrap();
    assert_eq!(p.missing, ["lock.lock: auto-lock-door.smartapp/smart-auto-lock-unlock"]);
    assert!(p.why[0].starts_with(homes::THIRD_APP) && p.why[0].contains("enhanced-auto-lock-door"), "{:?}", p.why);
    assert!(p.only_home.is_empty());
    let row = run(&l, true);
    let p = row.pairwise.as_ref().unwrap();
    assert!(row.finished() && p.missing.is_empty(), "{p:?}");
    assert_eq!(row.findings(), p.findings);
}

/// The inclusion on the fixture homes that finish at once (locks, lights, switches,
/// loggers): with conflicts observed, each home reports every finding of the pairwise runs of
/// its apps whose path replays in it (all but one here, which a third app's write of the lock
/// changes: `OTHER_WRITES`), those a third app's write between
/// the two hides from the direct conflicts as pair conflicts (lights and locks have some); and
/// observing finds every conflict that ending the path at the first one finds, and more on the
/// lock home.
#[test]
fn the_fixture_homes_include_their_pairs_findings() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/homes");
    let (mut kept, mut through) = (0, 0);
    for h in ["locks", "lights", "switches", "loggers"] {
        let l = fixtures.join(format!("{h}.home"));
        let row = run(&l, true);
        kept += assert_includes_its_pairs(h, &row);
        through += row.pairwise.as_ref().unwrap().through_third.len();
        let ended = run_in(&l, &smartapps(), false, ConflictMode::End);
        assert!(ended.finished(), "{h}");
        let (ours, theirs) = (findings::keys(&row.by_attribute), findings::keys(&ended.by_attribute));
        assert!(theirs.is_subset(&ours), "{h}: {:?}", theirs.difference(&ours).collect::<Vec<_>>());
        if h == "locks" {
            // A conflict ended the path before later ones of the same event (docs/homes.md).
            assert!(ours.len() > theirs.len(), "{h}: {} vs {}", ours.len(), theirs.len());
        }
    }
    assert!(kept >= 30, "only {kept} pair findings reported by the homes");
    assert!(through > 0, "no pair finding was found through a third app's write");
}

/// The same inclusion on generated homes of three to eight apps (tests/common/gen_smartapp.rs
/// `gen_home`), every run bounded by states: each pair finding is the home's, or explained.
#[test]
fn generated_homes_include_their_pairs_findings() {
    let (mut checked, mut found, mut explained) = (0, 0, 0);
    for seed in 0..40u64 {
        let apps = common::gen_smartapp::gen_home(&mut SmallRng::seed_from_u64(seed));
        let files = apps::write(&format!("homes-gen{seed}"), &apps);
        let dir = files[0].parent().unwrap().to_path_buf();
        let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let l = list(&tempdir(&format!("gen{seed}")), &format!("gen{seed}"), &names);
        let row = run_in(&l, &dir, true, ConflictMode::Observe);
        if !row.finished() || row.pairwise.as_ref().is_some_and(|p| p.unfinished > 0) {
            continue;
        }
        checked += 1;
        found += assert_includes_its_pairs(&format!("seed {seed} ({} apps)", apps.len()), &row);
        explained += row.pairwise.as_ref().unwrap().missing.len();
    }
    eprintln!("generated homes: {checked} checked, {found} pair findings reported, {explained} explained");
    assert!(checked >= 30, "only {checked} generated homes finished");
    assert!(found >= 10, "only {found} pair findings to include");
}

#[test]
fn corpus_over_homes_shards_and_merges() {
    let dir = tempdir("corpus");
    let lists = dir.join("lists");
    std::fs::create_dir_all(&lists).unwrap();
    list(&lists, "a", &["make-it-so.groovy", "good-night-house.groovy"]);
    list(&lists, "b", &["brighten-my-path.groovy", "darken-behind-me.groovy", "let-there-be-light.groovy"]);
    list(&lists, "c", &["make-it-so.groovy", "no-such-app.groovy"]);
    std::fs::write(lists.join("README"), "not a list\n").unwrap();
    let apps = smartapps();
    let corpus = |extra: &[&str]| {
        let mut args = vec!["corpus", "--homes", lists.to_str().unwrap(), "--smartapps", apps.to_str().unwrap()];
        args.extend(["--max-states", "200000"]);
        args.extend(extra);
        tracepor(&args)
    };
    let all = corpus(&["--jsonl", dir.join("all.jsonl").to_str().unwrap()]);
    assert_eq!(all.status.code(), Some(0), "{}", String::from_utf8_lossy(&all.stderr));
    let text = String::from_utf8_lossy(&all.stdout);
    assert!(text.contains("3 homes: 2 loaded, 2 finished, 2 with conflicts"), "{text}");
    assert!(text.contains("c:2:1: no such app"), "a list that does not load is a row saying why: {text}");
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("all.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.iter().map(|r| r["home"].as_str().unwrap()).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(rows[0]["by_attribute"][0]["apps"], serde_json::json!(["good-night-house", "make-it-so"]));
    // Two shards hold every home once; merged, they give the table of the whole run.
    let mut shards = Vec::new();
    for s in ["0/2", "1/2"] {
        let f = dir.join(format!("s{}.jsonl", &s[..1]));
        let o = corpus(&["--shard", s, "--jsonl", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0));
        shards.push(f);
    }
    let merged = tracepor(&["corpus-merge", shards[0].to_str().unwrap(), shards[1].to_str().unwrap()]);
    assert_eq!(merged.status.code(), Some(0), "{}", String::from_utf8_lossy(&merged.stderr));
    let merged = String::from_utf8_lossy(&merged.stdout);
    let body = |t: &str| -> Vec<String> {
        // The rows without the time and memory columns, which vary from run to run.
        t.lines()
            .filter(|l| l.starts_with(['a', 'b', 'c']))
            .map(|l| l.split_whitespace().enumerate().filter(|(i, _)| *i != 5 && *i != 6).map(|(_, w)| w).collect())
            .collect()
    };
    assert_eq!(body(&merged), body(&text), "{merged}");
    // Options of the pairs' tables are refused for homes.
    let o = corpus(&["--table", "A.1"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The interaction graph (src/model/smartapp/components.rs): the kept apps of each fixture home
/// are partitioned into components; two groups that share no device fall apart; printed per home
/// for docs/reductions-homes.md (`--nocapture`).
#[test]
fn interaction_components_of_the_fixture_homes() {
    use tracepor::model::smartapp::{load, SmartAppOptions};
    let opts = || SmartAppOptions { conflicts: true, ..SmartAppOptions::default() };
    let dirs = [smartapps()];
    for h in ["locks", "thermostats", "lights", "loggers", "alarms", "switches"] {
        let list = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/homes/{h}.home"));
        let files = parse_app_list(&list, &std::fs::read(&list).unwrap(), &dirs).unwrap();
        let m = load(&files, opts()).unwrap();
        let names = m.app_names();
        let comps = m.interaction_components();
        let mut seen: Vec<usize> = comps.iter().flatten().copied().collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), comps.iter().map(Vec::len).sum::<usize>(), "{h}: components overlap");
        let show = |v: &[usize]| v.iter().map(|&a| names[a]).collect::<Vec<_>>().join(", ");
        println!("{h}: {} apps, {} kept, {} component(s)", names.len(), seen.len(), comps.len());
        for c in &comps {
            println!("  component: {}", show(c));
        }
        for ((d, a), cone) in m.conflict_cones() {
            println!("  cone of {d}.{a}: {} app(s): {}", cone.len(), show(&cone));
        }
    }
    // A lock app and a light app share no device: two components.
    let files = [smartapps().join("lock-it-when-i-leave.groovy"), smartapps().join("let-there-be-dark.groovy")];
    let m = load(&files, opts()).unwrap();
    println!("lock + light: {:?}", m.interaction_components());
    assert_eq!(m.interaction_components().len(), 2);
}

/// `monitors` (src/explore/monitors.rs), the default with conflicts observed, reports on the
/// fixture homes that finish at once exactly the errors and the (device, attribute, app pair)
/// findings `stateful-dpor` reports, and exceptions and conflicts alike replay (the report's
/// schedules are shortened by replay in the model that keeps every ghost). With
/// `--conflict-mode end` the default stays `stateful-dpor`.
#[test]
fn monitors_report_what_stateful_dpor_reports_on_the_fixture_homes() {
    use tracepor::check::Check;
    use tracepor::model::smartapp::{load, SmartAppOptions};
    let dirs = [smartapps()];
    let key = |r: &tracepor::report::RunReport| -> BTreeSet<(String, usize, String)> {
        // Pair conflicts are `monitors`' alone (tests/soundness_pairs.rs).
        r.errors
            .iter()
            .filter(|e| e.kind != "pair conflict")
            .map(|e| (e.kind.clone(), e.line, e.message.clone()))
            .collect()
    };
    for h in ["locks", "lights", "switches", "loggers"] {
        let list = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/homes/{h}.home"));
        let files = parse_app_list(&list, &std::fs::read(&list).unwrap(), &dirs).unwrap();
        let m = load(&files, SmartAppOptions { conflicts: true, ..SmartAppOptions::default() }).unwrap();
        let ours = Check::new(&m).run();
        assert_eq!(ours.strategy, "monitors");
        let theirs = Check::new(&m).strategy("stateful-dpor").unwrap().run();
        assert!(ours.finished && theirs.finished, "{h}");
        assert_eq!(key(&ours), key(&theirs), "{h}");
        assert_eq!(findings::keys(&ours.conflicts_by_attribute), findings::keys(&theirs.conflicts_by_attribute), "{h}");
        assert!(h == "loggers" || !ours.errors.is_empty(), "{h}: nothing to compare");
        let ended = SmartAppOptions { conflicts: true, conflict_mode: ConflictMode::End, ..SmartAppOptions::default() };
        assert_eq!(Check::new(&load(&files, ended).unwrap()).entry().name, "stateful-dpor");
    }
}

/// The apps of the corpus whose `state` keys (some read) reach only themselves
/// (src/model/smartapp/self_keys.rs), each loaded alone under `--conflicts`: thermostat's
/// `state[evt.deviceId]` among them (the thermostat home's), listed with `--nocapture`
/// (docs/reductions-homes.md counts them).
#[test]
fn self_contained_keys_of_the_corpus() {
    use tracepor::model::smartapp::{self, SmartAppOptions};
    let mut files: Vec<PathBuf> = std::fs::read_dir(smartapps())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "groovy"))
        .collect();
    files.sort();
    let opts = SmartAppOptions { conflicts: true, ..Default::default() };
    let (mut loaded, mut found) = (0, Vec::new());
    for f in &files {
        let Ok(m) = smartapp::load(std::slice::from_ref(f), opts) else { continue };
        loaded += 1;
        found.extend(m.self_contained_keys().into_iter().map(|(app, keys)| format!("{app}: {keys}")));
    }
    eprintln!("{} of {loaded} apps ({} files):\n{}", found.len(), files.len(), found.join("\n"));
    assert!(found.contains(&"thermostat: *".to_string()), "{found:?}");
}
