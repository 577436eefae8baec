//! The library entry point (`tracepor::check`) and the strategy registry: a run from Rust does
//! what the command line does, and every list of strategies (help, README, `compare`) is the
//! registry's.

use std::path::{Path, PathBuf};

use tracepor::check::{self, Check, ReplayEnd, Shard};
use tracepor::explore::registry::{self, REGISTRY};
use tracepor::explore::{Limits, STRATEGIES};
use tracepor::model::em::EmModel;
use tracepor::model::events::EventModel;
use tracepor::model::{self, LoadOptions, Loaded, Model, ModelKind};

fn em(path: &str) -> EmModel {
    match model::load(Path::new(path), LoadOptions::default()).unwrap() {
        Loaded::Em(m) => m,
        _ => panic!("{path} is not an EM trace"),
    }
}

fn events(path: &str, bound: Option<u32>) -> EventModel {
    match model::load(Path::new(path), LoadOptions { bound, conflicts: false, ..Default::default() }).unwrap() {
        Loaded::Events(m) => m,
        _ => panic!("{path} is not an event model"),
    }
}

#[test]
fn readme_strategy_table_names_exactly_the_registered_strategies() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let table = readme.split("| name | what | inputs | state matching |").nth(1).expect("the strategy table");
    let names: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap().trim().trim_matches('`'))
        .collect();
    assert_eq!(names, STRATEGIES);
    assert_eq!(STRATEGIES, REGISTRY.iter().map(|e| e.name).collect::<Vec<_>>());
}

#[test]
fn every_strategy_is_in_the_help_and_applies_to_some_input() {
    let help = registry::help();
    for e in REGISTRY {
        assert!(help.contains(e.name), "{} missing from --help", e.name);
        assert!(!e.kinds().is_empty(), "{} applies to nothing", e.name);
        assert!(!e.paper.is_empty() && !e.what.is_empty(), "{} undocumented", e.name);
    }
    assert_eq!(registry::lookup("em-dpor").unwrap().kinds(), [ModelKind::EmTrace]);
}

#[test]
fn defaults_are_the_best_sound_strategy_for_each_input() {
    // Measured (docs/strategies.md): on EM traces `optimal`; on event models `full`; on
    // SmartApps `stateful-dpor`.
    assert_eq!(registry::default_for::<EmModel>().name, "optimal");
    assert_eq!(registry::default_for::<EventModel>().name, "full");
    assert_eq!(registry::default_for::<tracepor::model::smartapp::SmartAppModel>().name, "stateful-dpor");
    // SmartApps with conflicts observed: `monitors` (src/explore/monitors.rs; measured in
    // docs/reductions-homes.md); tests/homes.rs checks `Check::new` picks it there only.
    assert_eq!(Check::new(&events("fixtures/events/example.events", None)).entry().name, "full");
    assert_eq!(Check::new(&em("fixtures/em/two-posters")).entry().name, "optimal");
}

#[test]
fn a_check_from_rust_reports_what_the_command_line_does() {
    let m = em("fixtures/em/abba-deadlock");
    let report = Check::new(&m).strategy("full").unwrap().file("abba").limits(Limits::default()).run();
    assert_eq!(report.model, ModelKind::EmTrace);
    assert_eq!(report.strategy, "full");
    assert_eq!(report.file, "abba");
    assert!(report.finished);
    assert_eq!(report.exit_code(), 1);
    let deadlock = report.errors.iter().find(|e| e.kind == "deadlock").expect("the deadlock");
    // Each stuck thread with what it waits for (diagnostics at the point of failure).
    assert_eq!(
        deadlock.message,
        "stuck: operations 5 6 7 10 11 12 never run; \
         thread 1 at operation 5 (line 5: LOCK 0xb) waits for lock 0xb, held by thread 2 since operation 9 (line 9); \
         thread 2 at operation 10 (line 10: LOCK 0xa) waits for lock 0xa, held by thread 1 since operation 4 (line 4)"
    );
    assert_eq!(deadlock.line, 5);
    // The library's replay of the reported schedule ends stuck, which on a trace is an error.
    let replay = check::replay(&m, &deadlock.schedule).unwrap();
    match &replay.end {
        ReplayEnd::Ended(o) => {
            assert!(o.stuck());
            assert_eq!(o.stuck_operations(), [5, 6, 7, 10, 11, 12]);
            assert!(o.to_string().ends_with("| stuck 5 6 7 10 11 12"), "{o}");
        }
        other => panic!("replay ended {other:?}"),
    }
    assert_eq!(replay.exit_code(), 1);
    assert_eq!(serde_json::to_value(report.model).unwrap(), "em-trace");
}

/// `full`'s deadlock schedule is a shortest one (as long as the fewest steps a breadth-first
/// search of the trace needs to reach that stuck outcome), and the report says so.
#[test]
fn full_gives_a_deadlock_a_shortest_schedule() {
    let m = em("fixtures/em/abba-deadlock");
    let report = Check::new(&m).strategy("full").unwrap().limits(Limits::default()).run();
    let deadlock = report.errors.iter().find(|e| e.kind == "deadlock").expect("the deadlock");
    assert_eq!(deadlock.graph_shortest, Some(deadlock.steps));
    let ReplayEnd::Ended(stuck) = check::replay(&m, &deadlock.schedule).unwrap().end else { panic!("not ended") };
    assert!(stuck.stuck());
    // Fewest steps to that outcome, breadth-first with a visited set of its own.
    let mut seen = std::collections::HashSet::new();
    let mut level = vec![m.initial()];
    let mut fewest = None;
    let (mut depth, mut en, mut key) = (0, Vec::new(), Vec::new());
    while fewest.is_none() && !level.is_empty() {
        let mut next = Vec::new();
        for s in level {
            en.clear();
            m.enabled(&s, &mut en);
            if en.is_empty() && m.outcome(&s) == stuck {
                fewest = Some(depth);
            }
            for &c in &en {
                let mut t = s.clone();
                m.step(&mut t, c).unwrap();
                key.clear();
                m.encode(&t, &mut key);
                if seen.insert(key.clone()) {
                    next.push(t);
                }
            }
        }
        level = next;
        depth += 1;
    }
    assert_eq!(Some(deadlock.steps), fewest);
    let text = tracepor::report::text::render(&report, "");
    assert!(text.contains("(shortest in the explored state graph)"), "{text}");
}

#[test]
fn a_progress_callback_may_borrow_from_the_caller() {
    let m = em("fixtures/em/two-posters");
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let report = Check::new(&m)
        .strategy("full-stateless")
        .unwrap()
        .on_progress(|_, _| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .run();
    assert!(report.finished);
    assert!(report.executions > 0);
}

#[test]
fn strategies_that_cannot_run_say_why() {
    let m = events("fixtures/events/premature-termination.events", None);
    let err = |name: &str| Check::new(&m).strategy(name).err().expect("refused").to_string();
    assert!(err("no-such").contains("unknown strategy `no-such` (known: full, "));
    assert_eq!(err("em-dpor"), "strategy `em-dpor` does not apply to events inputs");
    assert!(err("dpor").contains("--bound"));
    assert!(!m.deadlock_is_error());
    // compare's default set leaves out what cannot run without a bound, and what runs only on
    // request (full-stateless), and only those.
    let names = |m: &EventModel| check::compare_set(m, None).unwrap().iter().map(|e| e.name).collect::<Vec<_>>();
    assert_eq!(names(&m), ["full", "stateful-dpor"]);
    let bounded = events("fixtures/events/premature-termination.events", Some(2));
    let on_request: Vec<&str> =
        registry::applicable::<EventModel>().filter(|e| e.compare_on_request).map(|e| e.name).collect();
    assert_eq!(on_request, ["full-stateless"]);
    assert_eq!(
        names(&bounded),
        registry::applicable::<EventModel>().filter(|e| !e.compare_on_request).map(|e| e.name).collect::<Vec<_>>()
    );
    assert!(check::compare_set(&bounded, Some(&["full-stateless".to_string()])).is_ok());
    assert!(check::compare_set(&m, Some(&["em-dpor".to_string()])).is_err());
}

#[test]
fn replay_stops_where_the_schedule_cannot_be_followed() {
    let m = em("fixtures/em/abba-deadlock");
    assert!(check::replay(&m, "no-such-thread").is_err());
    let first = m.choice_name(0);
    let replay = check::replay(&m, &format!("{first}*1000")).unwrap();
    assert!(matches!(replay.end, ReplayEnd::NotEnabled { .. }), "{:?}", replay.end);
    assert_eq!(replay.exit_code(), 2);
}

#[test]
fn folders_expand_and_shards_partition_them() {
    let inputs = check::expand_inputs(&[PathBuf::from("fixtures")]).unwrap();
    assert!(inputs.contains(&PathBuf::from("fixtures/em/abba-deadlock")));
    assert!(inputs.contains(&PathBuf::from("fixtures/events/example.events")));
    assert!(inputs.windows(2).all(|w| w[0] <= w[1]));
    let shards: Vec<Shard> = (0..3).map(|i| Shard::parse(&format!("{i}/3")).unwrap()).collect();
    for f in &inputs {
        assert_eq!(shards.iter().filter(|s| s.contains(f)).count(), 1);
    }
    for bad in ["3/3", "1", "a/2", "0/0"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
    assert!(check::expand_inputs(&[PathBuf::from("src")]).is_err());
}

#[test]
fn options_a_strategy_ignores_are_refused_from_what_the_registry_says() {
    use tracepor::explore::{Ablation, SearchOptions};
    let ablated =
        SearchOptions { ablation: Ablation { no_summaries: true, ..Ablation::default() }, ..Default::default() };
    let threads = SearchOptions { threads: 2, ..Default::default() };
    let compact = SearchOptions { hash_compact: true, ..Default::default() };
    for kind in ModelKind::ALL {
        for e in REGISTRY {
            let ok = |o: &SearchOptions| check::check_search_options(kind, &[e], o).is_ok();
            assert!(ok(&SearchOptions::default()), "{}", e.name);
            assert_eq!(ok(&ablated), e.ablations.contains(&"no-summaries"), "{}", e.name);
            assert_eq!(ok(&threads), e.parallel_on(kind), "{} on {kind}", e.name);
            assert_eq!(ok(&compact), e.hash_compact, "{}", e.name);
        }
        // Several strategies: fine when one of them reads it.
        assert!(check::check_search_options(kind, REGISTRY.iter().collect::<Vec<_>>().as_slice(), &ablated).is_ok());
    }
    let err = check::check_search_options(ModelKind::EmTrace, &[registry::lookup("em-dpor").unwrap()], &threads);
    assert!(err.unwrap_err().0.contains("--threads 2"));
    let trace = vec![PathBuf::from("fixtures/em/two-posters")];
    let bound = LoadOptions { bound: Some(1), conflicts: false, ..Default::default() };
    assert!(check::check_load_options(std::slice::from_ref(&trace), &bound).unwrap_err().0.contains("--bound"));
    assert!(check::check_load_options(&[trace], &LoadOptions::default()).is_ok());
    let model = vec![PathBuf::from("fixtures/events/example.events")];
    assert!(check::check_load_options(&[model], &bound).is_ok());
}

/// `compare`'s verdict once the exhaustive run finished: a finished run equal to it, a run that
/// stopped early (here at its first error, the same on every machine) a subset of it, a run
/// that reached something outside it named; the winner among the finished runs that agree.
#[test]
fn compare_verdict_checks_unfinished_runs_as_subsets_and_names_the_winner() {
    use tracepor::report::compare::{Standing, Verdict};
    let load = |path: &str| match model::load(
        Path::new(path),
        LoadOptions { bound: Some(1), conflicts: true, ..Default::default() },
    )
    .unwrap()
    {
        Loaded::Events(m) => m,
        _ => panic!("{path} is not an event model"),
    };
    let m = load("traces/smartthings/fireco2alarm--lock-it-when-i-leave.events");
    let first_error = Limits { stop_at_first_error: true, ..Limits::default() };
    let full = Check::new(&m).strategy("full").unwrap().run();
    let sleep = Check::new(&m).strategy("dpor-sleep").unwrap().run();
    let stopped = Check::new(&m).strategy("dpor").unwrap().limits(first_error.clone()).run();
    assert!(full.finished && sleep.finished && !stopped.finished);
    assert!(!full.errors.is_empty(), "the pair has conflicts");
    let v = check::verdict(&m, &[stopped.clone(), full.clone(), sleep.clone()]);
    let Verdict::Checked(c) = &v else { panic!("{v:?}") };
    assert_eq!(c.reference, "full");
    assert_eq!((c.outcomes, c.errors), (full.outcomes, full.errors.len()));
    let standings: Vec<Standing> = c.standings.iter().map(|(_, s)| *s).collect();
    assert_eq!(standings, [Standing::Subset, Standing::Reference, Standing::Equal]);
    assert_eq!((v.consistent(), v.agree()), (Some(true), None), "agree is null while a run is unfinished");
    let winner = if sleep.transitions < full.transitions { "dpor-sleep" } else { "full" };
    assert_eq!(c.winner.as_deref(), Some(winner));
    // A run that stopped early yet reached an error the exhaustive run never did: named.
    let other = load("fixtures/events/example.events");
    let foreign = Check::new(&other).strategy("dpor").unwrap().limits(first_error).run();
    assert!(!foreign.finished && !foreign.errors.is_empty());
    let v = check::verdict(&m, &[full.clone(), foreign]);
    assert_eq!(v.consistent(), Some(false));
    assert_eq!(v.standing("dpor"), Some(Standing::Differs));
    // All finished and equal: agree is true, as the contract has it.
    let v = check::verdict(&m, &[full, sleep]);
    assert_eq!((v.agree(), v.consistent()), (Some(true), Some(true)));
}

/// An event model's apps are the `app` blocks it declares: handlers outside any app (the
/// environment, in the shipped models) are not one more app, unless the file names `main`.
#[test]
fn event_model_apps_leave_out_the_environment() {
    let m = events("traces/smartthings/lighting-director--step-notifier.events", None);
    assert!(m.ast().apps.contains(&"main".to_string()), "the model has handlers outside any app");
    assert_eq!(m.stats()["apps"], 2);
    assert!(m.summary().contains("2 apps (and handlers outside any app)"), "{}", m.summary());
    let dir = std::env::temp_dir().join(format!("tracepor-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("main.events");
    std::fs::write(&f, "model events\nvar v = 0\napp main {\n  on x { v = 1 }\n}\non y { v = 2 }\n").unwrap();
    let m = events(f.to_str().unwrap(), None);
    assert_eq!(m.stats()["apps"], 1, "an app named main is an app");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Shortening a schedule by replay stops at its deadline (the run's time limit plus a
/// twentieth), keeping what it has: a deadline already past leaves the schedule as found, none
/// lets it cut the depth-first one. Decided by the deadline's instant, not by how fast it runs.
#[test]
fn shortening_stops_at_its_deadline() {
    use tracepor::explore::shorten::{shorten, Finding};
    use tracepor::explore::Search;
    let path = "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events";
    let m = match model::load(Path::new(path), LoadOptions { bound: Some(2), conflicts: true, ..Default::default() })
        .unwrap()
    {
        Loaded::Events(m) => m,
        _ => panic!("{path} is not an event model"),
    };
    let mut strategy = registry::lookup("dpor-sleep").unwrap().build::<EventModel>().unwrap();
    let mut search = Search::new(&m, Limits { max_transitions: Some(200_000), ..Limits::default() });
    strategy.run(&mut search);
    let (_, found) = search.finish();
    let f = found.errors().max_by_key(|f| f.schedule.len()).expect("a conflict");
    let target = Finding::Error(&f.error);
    let cut = shorten(&m, &f.schedule, &target, &tracepor::explore::Budget::unlimited());
    assert!(cut.len() < f.schedule.len(), "{} steps not cut", f.schedule.len());
    let past = std::time::Instant::now();
    let spent = tracepor::explore::Budget::unlimited().until(Some(past));
    assert_eq!(shorten(&m, &f.schedule, &target, &spent), f.schedule);
}
