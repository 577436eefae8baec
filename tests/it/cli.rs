//! The binary, as scripts call it (cli.md): exit codes, JSON fields, outcome files, schedules
//! that replay, limits that stop a search with partial figures, bad input on one line.

use crate::common;

use std::process::{Command, Output};

fn tracepor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).current_dir(common::root()).output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn check_json_has_the_contract_fields() {
    let o = tracepor(&["check", "fixtures/em/two-posters", "--strategy", "full", "--json"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    for key in [
        "file",
        "model",
        "strategy",
        "finished",
        "executions",
        "transitions",
        "states",
        "unique_transitions",
        "outcomes",
        "deadlocks",
        "errors",
        "time_s",
        "peak_rss_bytes",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["model"], "em-trace");
    assert_eq!(v["outcomes"], 2);
    assert_eq!(v["finished"], true);
    assert!(v["states"].as_u64().unwrap() > 0);
    // A stateless search keeps no state count: null, not zero.
    let v = json(&tracepor(&["check", "fixtures/em/two-posters", "--strategy", "full-stateless", "--json"]));
    assert!(v["states"].is_null() && v["unique_transitions"].is_null());
}

#[test]
fn outcomes_file_is_byte_for_byte_canonical() {
    let dir = std::env::temp_dir().join(format!("tracepor-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("o.txt");
    let o =
        tracepor(&["check", "fixtures/em/abba-deadlock", "--strategy", "full", "--outcomes", out.to_str().unwrap()]);
    assert_eq!(code(&o), 1, "a deadlock is found");
    let expected = std::fs::read_to_string(common::root().join("fixtures/em/abba-deadlock/expected.outcomes")).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
    // compare writes one file per strategy.
    let o = tracepor(&[
        "compare",
        "fixtures/em/abba-deadlock",
        "--strategies",
        "full,full-stateless",
        "--outcomes",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    for s in ["full", "full-stateless"] {
        assert_eq!(std::fs::read_to_string(dir.join(format!("o.txt.{s}"))).unwrap(), expected);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_reported_deadlock_replays_with_the_printed_command() {
    let o = tracepor(&["check", "fixtures/em/abba-deadlock", "--strategy", "full"]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("deadlock"), "{text}");
    let line = text.lines().find(|l| l.contains("tracepor replay")).expect("a replay command");
    let schedule = line.split("--schedule ").nth(1).unwrap().trim().trim_matches('\'');
    let r = tracepor(&["replay", "fixtures/em/abba-deadlock", "--schedule", schedule]);
    assert_eq!(code(&r), 1);
    let shown = String::from_utf8_lossy(&r.stdout);
    assert!(shown.contains("stuck (deadlock)"), "{shown}");
    assert!(shown.contains("stuck 5 6 7 10 11 12"), "{shown}");
}

/// A conflict between two SmartApps, replayed: the failing step names the file, the line and
/// the handler of the write, as `check` does (not a bare line number of no file).
#[test]
fn a_replayed_conflict_names_the_file_line_and_handler() {
    let apps = "../shared/smartthings/smartapps";
    let (fire, lock) = (format!("{apps}/FireCO2Alarm.groovy"), format!("{apps}/lock-it-when-i-leave.groovy"));
    // The configuration at installation first (the defaults: docs/smartapps.md).
    let schedule = "init.0,smokeDetector.smoke.tested,presenceSensor.presence.not_present";
    let r = tracepor(&["replay", &fire, &lock, "--schedule", schedule, "--conflicts"]);
    assert_eq!(code(&r), 1, "{}", String::from_utf8_lossy(&r.stderr));
    let shown = String::from_utf8_lossy(&r.stdout);
    assert!(shown.contains("error: conflict"), "{shown}");
    assert!(
        shown.contains("at: ../shared/smartthings/smartapps/lock-it-when-i-leave.groovy:72, handler presence"),
        "{shown}"
    );
}

#[test]
fn a_limit_stops_the_search_with_partial_figures_and_exit_3() {
    let trace = &common::em_explorer_arg("benchmark-traces/multithreading-with-multiple-queues/trace1");
    let o = tracepor(&["check", trace, "--strategy", "full", "--max-states", "50", "--json"]);
    assert_eq!(code(&o), 3);
    let v = json(&o);
    assert_eq!(v["finished"], false);
    assert!(v["states"].as_u64().unwrap() >= 50 && v["transitions"].as_u64().unwrap() > 0);
    let o = tracepor(&["check", trace, "--strategy", "full-stateless", "--max-states", "5000", "--json"]);
    assert_eq!(code(&o), 3);
    assert_eq!(json(&o)["finished"], false);
    assert_eq!(json(&o)["stopped_by"], "transitions");
    // A time limit, on a search no machine finishes (every interleaving of 453 operations).
    let mytracks = &common::em_explorer_arg("tacas-2016/mytracks");
    let o = tracepor(&["check", mytracks, "--strategy", "full-stateless", "--time-limit", "0.2", "--json"]);
    assert_eq!(code(&o), 3);
    assert_eq!(json(&o)["stopped_by"], "time");
    let text = String::from_utf8_lossy(&tracepor(&["check", trace, "--strategy", "full", "--max-states", "50"]).stdout)
        .to_string();
    assert!(text.contains("INCOMPLETE"), "{text}");
}

/// The estimate is right within 2x half-way through the search, or there is none. The
/// whole search is run first to know its transitions; a run stopped at half of them (--max-states
/// counts transitions for these strategies: the same point on any machine) says 25% to 100%, or
/// nothing (em-dpor on remind-me said 0%).
#[test]
fn the_estimate_half_way_is_within_twice_the_truth() {
    for (app, strategy) in [
        ("remind-me", "em-dpor"),
        ("remind-me", "dpor"),
        ("remind-me", "dpor-sleep"),
        ("aarddict", "em-dpor"),
        ("music", "em-dpor"),
        ("charachter-recognition", "em-dpor"),
        ("mytracks", "dpor-sleep"),
    ] {
        let trace = &common::em_explorer_arg(&format!("tacas-2016/{app}"));
        let whole = json(&tracepor(&["check", trace, "--strategy", strategy, "--json"]));
        assert_eq!(whole["finished"], true, "{app} {strategy}");
        let half = (whole["transitions"].as_u64().unwrap() / 2).to_string();
        let v = json(&tracepor(&["check", trace, "--strategy", strategy, "--max-states", &half, "--json"]));
        assert_eq!(v["stopped_by"], "transitions", "{app} {strategy}");
        if let Some(d) = v["estimated_done"].as_f64() {
            assert!((0.25..=1.0).contains(&d), "{app} {strategy}: {d} at half-way");
        }
    }
}

/// A depth-first search stopped by a limit says roughly how much of its tree it walked; a
/// finished one does not.
#[test]
fn a_stopped_dpor_search_estimates_its_share_explored() {
    let trace = &common::em_explorer_arg("tacas-2016/music");
    for strategy in ["dpor", "dpor-sleep"] {
        let o = tracepor(&["check", trace, "--strategy", strategy, "--max-states", "100000", "--json"]);
        assert_eq!(code(&o), 3);
        let d = json(&o)["estimated_done"].as_f64().expect("an estimate");
        assert!(d > 0.0 && d < 1.0, "{strategy}: {d}");
        let text = String::from_utf8_lossy(
            &tracepor(&["check", trace, "--strategy", strategy, "--max-states", "100000"]).stdout,
        )
        .to_string();
        assert!(text.contains("estimated explored:"), "{text}");
    }
    let o =
        tracepor(&["check", &common::em_explorer_arg("tacas-2016/remind-me"), "--strategy", "dpor-sleep", "--json"]);
    assert_eq!(code(&o), 0);
    let v = json(&o);
    assert!(v["estimated_done"].is_null() && v["sleep_blocked"].as_u64().unwrap() > 0);
}

#[test]
fn bad_input_exits_2_with_one_located_message() {
    let dir = std::env::temp_dir().join(format!("tracepor-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("trace.txt");
    std::fs::write(&bad, "1 START\n2 THREADINIT tid:1\n3 FROB tid:1\n").unwrap();
    let o = tracepor(&["check", bad.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("trace.txt:3:3:") && err.contains("FROB"), "{err}");
    // A dependence edge naming a missing operation, found beside the trace.
    std::fs::write(&bad, "1 START\n2 THREADINIT tid:1\n").unwrap();
    std::fs::write(dir.join("dependence.txt"), "src:2 dest:7\n").unwrap();
    let o = tracepor(&["check", bad.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("dependence.txt:1:12:"));
    let o = tracepor(&["check", dir.join("missing.txt").to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.txt: cannot read"));
    let o = tracepor(&["check", "fixtures/em/two-posters", "--strategy", "nonsense"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown strategy"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_cfg_and_folders_are_accepted() {
    let cfg = &common::em_explorer_arg("benchmark-traces/multithreading-with-single-queue/trace2/config.cfg");
    let a = json(&tracepor(&["check", cfg, "--strategy", "full", "--json"]));
    let b = json(&tracepor(&[
        "check",
        &common::em_explorer_arg("benchmark-traces/multithreading-with-single-queue/trace2/trace.txt"),
        "--strategy",
        "full",
        "--json",
    ]));
    assert_eq!(a["outcomes"], b["outcomes"]);
    assert_eq!(a["transitions"], b["transitions"]);
}

#[test]
fn stats_and_compare_print_tables() {
    let o = tracepor(&["stats", &common::em_explorer_arg("tacas-2016/remind-me"), "--json"]);
    assert_eq!(code(&o), 0);
    let v = json(&o);
    assert_eq!(v["operations"], 444);
    assert_eq!(v["dependence_edges"], 12);
    let o = tracepor(&["compare", "fixtures/em/two-posters", "--strategies", "full,full-stateless"]);
    assert_eq!(code(&o), 0);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("outcome sets agree with the exhaustive search"), "{text}");
}

#[test]
fn dot_writes_the_state_graph_and_refuses_large_ones() {
    let dir = std::env::temp_dir().join(format!("tracepor-dot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dot = dir.join("g.dot");
    let o = tracepor(&["check", "fixtures/em/abba-deadlock", "--strategy", "full", "--dot", dot.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    let g = std::fs::read_to_string(&dot).unwrap();
    assert!(g.starts_with("digraph"));
    assert!(g.contains("stuck"), "the deadlock state is highlighted");
    assert!(g.contains("LOCK 0xa"), "edges are labelled by operation");
    let big = dir.join("big.dot");
    let o = tracepor(&[
        "check",
        &common::em_explorer_arg("benchmark-traces/multithreading-with-multiple-queues/trace1"),
        "--strategy",
        "full",
        "--dot",
        big.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0);
    assert!(!big.exists());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not writing"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_split_a_corpus_without_overlap() {
    let mut seen = Vec::new();
    for i in 0..3 {
        let shard = format!("{i}/3");
        let o = tracepor(&["compare", "fixtures/em", "--strategies", "full", "--shard", &shard, "--json"]);
        if o.stdout.is_empty() {
            continue;
        }
        let v = json(&o);
        let runs: Vec<serde_json::Value> = match v.get("inputs") {
            Some(inputs) => {
                inputs.as_array().unwrap().iter().flat_map(|i| i["runs"].as_array().unwrap().clone()).collect()
            }
            None => v["runs"].as_array().cloned().unwrap_or_default(),
        };
        seen.extend(runs.iter().map(|r| r["file"].as_str().unwrap().to_string()));
    }
    seen.sort();
    let before = seen.len();
    seen.dedup();
    assert_eq!(before, seen.len(), "an input ran in two shards");
    assert_eq!(seen.len(), common::trace_dirs(&common::root().join("fixtures/em")).len());
    assert_eq!(code(&tracepor(&["compare", "fixtures/em", "--shard", "3/3"])), 2);
}

#[test]
fn memory_limit_and_progress_flags() {
    let trace = &common::em_explorer_arg("benchmark-traces/multithreading-with-multiple-queues/trace1");
    let o = tracepor(&["check", trace, "--strategy", "full", "--max-memory", "1", "--json"]);
    assert_eq!(code(&o), 3);
    assert_eq!(json(&o)["stopped_by"], "memory");
    // Not a terminal: no progress output unless asked for.
    let o = tracepor(&["check", "fixtures/em/two-posters", "--strategy", "full", "--quiet"]);
    assert!(o.stderr.is_empty() && o.stdout.is_empty());
}

/// Ctrl-C ends a search under way with the figures so far. The signal is sent once the search
/// says it is under way (its first `--progress` line on stderr, after 4,096 transitions, which
/// comes after the Ctrl-C handler is set): sent after a fixed sleep, it could land on a busy
/// machine before the handler existed and kill the process instead.
#[cfg(unix)]
#[test]
fn ctrl_c_ends_the_search_cleanly_with_partial_figures() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracepor"))
        .args([
            "check",
            // A search no machine finishes (every interleaving of 453 operations); the time
            // limit only keeps a lost signal from hanging the test.
            &common::em_explorer_arg("tacas-2016/mytracks"),
            "--strategy",
            "full-stateless",
            "--json",
            "--progress",
            "--time-limit",
            "600",
        ])
        .current_dir(common::root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.starts_with("tracepor: full-stateless: executions"), "{first}");
    common::interrupt(&child);
    // Read stderr to its end so that the child never blocks on a full pipe.
    let drain = std::thread::spawn(move || std::io::Read::read_to_end(&mut err, &mut Vec::new()));
    let o = child.wait_with_output().unwrap();
    drain.join().unwrap().unwrap();
    assert_eq!(code(&o), 3);
    let v = json(&o);
    assert_eq!(v["finished"], false);
    assert_eq!(v["stopped_by"], "interrupt");
    assert!(v["transitions"].as_u64().unwrap() >= 4096, "{v}");
}

#[test]
fn event_models_from_the_command_line() {
    let f = "fixtures/events/premature-termination.events";
    let o = tracepor(&["check", f, "--json"]);
    assert_eq!(code(&o), 1, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["model"], "events");
    // The default on event models (docs/strategies.md).
    assert_eq!(v["strategy"], "full");
    assert_eq!(v["errors"][0]["kind"], "assert");
    // The ablation the fixture is about misses the assertion.
    let o = tracepor(&["check", f, "--strategy", "stateful-dpor", "--no-full-cycle", "--json"]);
    assert_eq!(code(&o), 0);
    assert_eq!(json(&o)["errors"].as_array().unwrap().len(), 0);
    // The printed schedule replays to the error.
    let schedule = v["errors"][0]["schedule"].as_str().unwrap().to_string();
    let r = tracepor(&["replay", f, "--schedule", &schedule]);
    assert_eq!(code(&r), 1);
    assert!(String::from_utf8_lossy(&r.stdout).contains("checked while armed"));
    // Stateless strategies need a bound on event models.
    let o = tracepor(&["check", f, "--strategy", "full-stateless"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--bound"));
    let o = tracepor(&["check", f, "--strategy", "dpor"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--bound"));
    let o = tracepor(&["check", f, "--strategy", "dpor-sleep"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--bound"));
    let o = tracepor(&["check", f, "--strategy", "dpor", "--bound", "2", "--conflicts", "--json"]);
    assert_eq!(code(&o), 1);
    assert_eq!(json(&o)["strategy"], "dpor");
    let o = tracepor(&["compare", f, "--bound", "2", "--json"]);
    assert_eq!(json(&o)["agree"], true);
    let runs: Vec<String> =
        json(&o)["runs"].as_array().unwrap().iter().map(|r| r["strategy"].as_str().unwrap().to_string()).collect();
    // full-stateless only on request: full is the reference.
    assert_eq!(runs, ["full", "dpor", "dpor-sleep", "stateful-dpor"]);
    // Conflicts are reported on a real app pair.
    let o =
        tracepor(&["check", "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events", "--conflicts", "--json"]);
    assert_eq!(code(&o), 1);
    assert!(json(&o)["errors"].as_array().unwrap().iter().any(|e| e["kind"] == "conflict"));
}

/// `compare`'s verdict is true only when everything it compares finished and agrees.
#[test]
fn compare_agrees_only_when_every_run_finished_and_agrees() {
    let o = tracepor(&["compare", "fixtures/em/two-posters", "--strategies", "full,dpor,em-dpor", "--json"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["agree"], serde_json::json!(true));
    assert!(v.get("not_checked").is_none() && v.get("disagreements").is_none());
}

/// Without a finished exhaustive run there is nothing to check against: the verdict says so
/// (every run here stops at its first conflict, so none finishes, on any machine).
#[test]
fn compare_does_not_claim_agreement_when_the_exhaustive_run_did_not_finish() {
    let model = "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events";
    let args = ["compare", model, "--bound", "1", "--conflicts", "--strategies", "full,dpor", "--stop-at-first-error"];
    let o = tracepor(&[&args[..], &["--json"]].concat());
    let v = json(&o);
    assert_eq!(v["agree"], serde_json::Value::Null);
    assert_eq!(v["consistent"], serde_json::Value::Null);
    let why = v["not_checked"].as_str().expect("not_checked says why");
    assert!(why.contains("full") && why.contains("did not finish"), "{why}");
    let text = tracepor(&args);
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("not checked") && !out.contains("agree with") && !out.contains("winner"), "{out}");
}

/// A strategy that loses an outcome (here an ablation the paper shows unsound) is named, with
/// what it missed and a replay line that reaches it, and compare exits 4.
#[test]
fn compare_names_a_disagreeing_strategy_with_a_replayable_witness() {
    let model = "fixtures/events/premature-termination.events";
    let o = tracepor(&["compare", model, "--strategies", "full,stateful-dpor", "--no-full-cycle", "--json"]);
    assert_eq!(code(&o), 4, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["agree"], serde_json::json!(false));
    let d = &v["disagreements"][0];
    assert_eq!(d["strategy"], "stateful-dpor --no-full-cycle");
    assert_eq!(v["runs"][1]["strategy"], "stateful-dpor --no-full-cycle", "ablated runs carry their switches");
    let replay = d["witness"]["replay"].as_str().expect("a replay line");
    let schedule = replay.split("--schedule ").nth(1).expect("a schedule");
    let r = tracepor(&["replay", model, "--schedule", schedule]);
    assert_eq!(code(&r), 1, "the witness replays to the error: {}", String::from_utf8_lossy(&r.stdout));
    assert!(d["missed"][0].as_str().unwrap().contains("error assert"), "{d}");
}

/// Counterexamples are shortened by replay, say so, and the printed replay line (with the
/// options that built the model) reproduces them.
#[test]
fn error_schedules_are_short_and_their_replay_lines_reproduce_them() {
    let model = "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events";
    let o = tracepor(&["check", model, "--conflicts", "--json"]);
    assert_eq!(code(&o), 1);
    let v = json(&o);
    let errors = v["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 2);
    for e in errors {
        let schedule = e["schedule"].as_str().unwrap();
        assert_eq!(schedule.split(',').count(), 2, "two steps suffice for {e}");
        assert!(e["shortened_from"].as_u64().unwrap() > 2, "{e}");
        let r = tracepor(&["replay", model, "--schedule", schedule, "--conflicts"]);
        assert_eq!(code(&r), 1, "{}", String::from_utf8_lossy(&r.stdout));
    }
    let text = tracepor(&["check", model, "--conflicts"]);
    let out = String::from_utf8_lossy(&text.stdout);
    let line = out.lines().find(|l| l.contains("replay:")).expect("a replay line");
    assert!(line.trim_end().ends_with("--conflicts"), "{line}");
    assert!(out.contains("first found: "), "{out}");
}

/// Table A.1's pair with a 12,000-state graph, as an event model.
const THERMOSTAT_PAIR: &str = "traces/smartthings/initial-state-event-streamer--thermostat-auto-off.events";

/// `check THERMOSTAT_PAIR --strategy stateful-dpor --json`, run once for the tests that read it.
fn thermostat_pair_stateful_dpor() -> &'static serde_json::Value {
    static RUN: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let o = tracepor(&["check", THERMOSTAT_PAIR, "--strategy", "stateful-dpor", "--json"]);
        assert_eq!(code(&o), 1, "an error found");
        json(&o)
    })
}

/// A stateful search replaces the schedule it first found by a shortest path of its state
/// graph (once 6,153 steps where five suffice), and says so.
#[test]
fn stateful_searches_report_the_shortest_path_of_their_state_graph() {
    let model = THERMOSTAT_PAIR;
    let e = &thermostat_pair_stateful_dpor()["errors"][0];
    let first = e["shortened_from"].as_u64().expect("first found");
    let graph = e["graph_shortest"].as_u64().expect("a graph path");
    assert!(graph < first, "{e}");
    let schedule = e["schedule"].as_str().unwrap();
    assert!(schedule.split(',').count() as u64 <= graph, "{e}");
    assert!(schedule.split(',').count() <= 5, "five steps suffice: {e}");
    let r = tracepor(&["replay", model, "--schedule", schedule]);
    assert_eq!(code(&r), 1, "{}", String::from_utf8_lossy(&r.stdout));
}

/// `full` too: a breadth-first pass after its search gives each error a shortest schedule of
/// the state graph (163 steps first found, five after), with `--threads` and `--hash-compact`
/// as well, never longer than stateful-dpor's, and it replays to the same error.
#[test]
fn full_reports_the_shortest_path_of_its_state_graph() {
    let model = THERMOSTAT_PAIR;
    let dpor_steps = thermostat_pair_stateful_dpor()["errors"][0]["schedule"].as_str().unwrap().split(',').count();
    for extra in [&[][..], &["--threads", "2"], &["--hash-compact"]] {
        let mut args = vec!["check", model, "--strategy", "full", "--json"];
        args.extend_from_slice(extra);
        let o = tracepor(&args);
        assert_eq!(code(&o), 1, "{extra:?}");
        let v = json(&o);
        let e = &v["errors"][0];
        let schedule = e["schedule"].as_str().unwrap();
        let steps = schedule.split(',').count();
        assert_eq!(e["graph_shortest"].as_u64(), Some(steps as u64), "{extra:?}: {e}");
        assert!(steps <= dpor_steps, "{extra:?}: {steps} > stateful-dpor's {dpor_steps}");
        if extra.is_empty() {
            assert!(e["shortened_from"].as_u64().unwrap() > steps as u64, "the depth-first path was longer: {e}");
        }
        let r = tracepor(&["replay", model, "--schedule", schedule]);
        assert_eq!(code(&r), 1, "{}", String::from_utf8_lossy(&r.stdout));
        let want = format!("error: {}: {}", e["kind"].as_str().unwrap(), e["message"].as_str().unwrap());
        assert!(String::from_utf8_lossy(&r.stdout).contains(&want), "{want}");
    }
    let text = tracepor(&["check", model, "--strategy", "full"]);
    let out = String::from_utf8_lossy(&text.stdout);
    let line = out.lines().find(|l| l.contains("schedule:")).expect("a schedule line");
    assert!(line.contains("(shortest in the explored state graph; first found: "), "{line}");
}

/// `full --conflicts`: both conflicts of the README's pair by their shortest (two-step) schedule.
#[test]
fn full_gives_both_conflicts_two_step_schedules() {
    let model = "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events";
    let v = json(&tracepor(&["check", model, "--conflicts", "--strategy", "full", "--json"]));
    let errors = v["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 2);
    for e in errors {
        assert_eq!(e["kind"], "conflict");
        let schedule = e["schedule"].as_str().unwrap();
        assert_eq!(schedule.split(',').count(), 2, "{e}");
        assert_eq!(e["graph_shortest"].as_u64(), Some(2), "{e}");
        let r = tracepor(&["replay", model, "--schedule", schedule, "--conflicts"]);
        assert_eq!(code(&r), 1, "{}", String::from_utf8_lossy(&r.stdout));
    }
}

/// The README's first command: the project's own Android trace has a deadlock, reported with a
/// schedule whose replay ends stuck.
#[test]
fn readme_photo_sync_reports_a_replayable_deadlock() {
    let o = tracepor(&["check", "traces/android/photo-sync", "--json"]);
    assert_eq!(code(&o), 1, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    let dead = v["errors"].as_array().unwrap().iter().find(|e| e["kind"] == "deadlock").expect("a deadlock");
    let schedule = dead["schedule"].as_str().unwrap();
    let r = tracepor(&["replay", "traces/android/photo-sync", "--schedule", schedule]);
    assert_eq!(code(&r), 1);
    assert!(String::from_utf8_lossy(&r.stdout).contains("stuck"), "{}", String::from_utf8_lossy(&r.stdout));
    // Handler order decides what onResume reads: both outcomes are there.
    assert!(v["outcomes"].as_u64().unwrap() >= 2);
}

/// `--stop-at-first-error` ends with `finished: false` and its reason; on an event model a
/// state with nothing enabled is not an error and does not stop the search.
#[test]
fn stop_at_first_error_is_not_a_finished_search() {
    let model = "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events";
    let o = tracepor(&["check", model, "--conflicts", "--stop-at-first-error", "--json"]);
    assert_eq!(code(&o), 1);
    let v = json(&o);
    assert_eq!(v["finished"], serde_json::json!(false));
    assert_eq!(v["stopped_by"], "first-error", "{v}");
    assert_eq!(v["errors"].as_array().unwrap().len(), 1);
    // A model without errors ends in several nothing-enabled states and runs to its end.
    let dir = std::env::temp_dir().join(format!("tracepor-first-error-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("two.events");
    std::fs::write(&path, "model events\nvar x = 0\non a { x = 1\n disable a }\non b { x = 2\n disable b }\n").unwrap();
    let b = tracepor(&["check", path.to_str().unwrap(), "--stop-at-first-error", "--json"]);
    let bv = json(&b);
    assert_eq!(bv["finished"], serde_json::json!(true), "{bv}");
    assert_eq!(bv["deadlocks"], serde_json::json!(2), "{bv}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--outcomes` on an event model writes its outcome set: the distinct errors (kind and line)
/// and the nothing-enabled states.
#[test]
fn outcomes_of_an_event_model_list_its_errors() {
    let dir = std::env::temp_dir().join(format!("tracepor-outcomes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.txt");
    let model = "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events";
    let o = tracepor(&["check", model, "--conflicts", "--outcomes", path.to_str().unwrap(), "--quiet"]);
    assert_eq!(code(&o), 1);
    let text = std::fs::read_to_string(&path).unwrap();
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("error conflict line ")).collect();
    assert_eq!(errors.len(), 2, "{text}");
    let mut sorted: Vec<&str> = text.lines().collect();
    sorted.sort();
    assert_eq!(sorted, text.lines().collect::<Vec<_>>(), "sorted in byte order");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `compare DIR` takes a folder of SmartApps as one system, as `check DIR` does.
#[test]
fn compare_accepts_a_folder_of_smartapps_as_check_does() {
    let dir = std::env::temp_dir().join(format!("tracepor-compare-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for app in ["good-night-house.groovy", "enhanced-auto-lock-door.groovy"] {
        std::fs::copy(common::root().join("../shared/smartthings/smartapps").join(app), dir.join(app)).unwrap();
    }
    let d = dir.to_str().unwrap();
    let checked = json(&tracepor(&["check", d, "--strategy", "full", "--json"]));
    let o = tracepor(&["compare", d, "--strategies", "full,stateful-dpor", "--json"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["runs"][0]["model"], "smartapps");
    assert_eq!(v["runs"][0]["states"], checked["states"], "the same system as check DIR");
    assert_eq!(v["agree"], true);
    std::fs::remove_dir_all(&dir).unwrap();
}
