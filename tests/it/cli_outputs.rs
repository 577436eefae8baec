//! What `check` and `compare` write, run as a user runs them: the JSON names the
//! tool and every option that shaped the run; `compare` over many inputs reports each input as
//! it finishes and a bad input as its own line; output paths are checked before any search;
//! `--outcomes` writes one file per input and strategy, or to standard output with `-`.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use crate::common::{bin as tracepor, code, text};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracepor-outputs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A folder with two good traces and one that does not parse.
fn inputs_with_a_bad_one(tag: &str) -> PathBuf {
    let root = scratch(tag);
    for name in ["two-posters", "notify-wait"] {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(common::root().join("fixtures/em").join(name).join("trace.txt"), d.join("trace.txt")).unwrap();
    }
    let bad = root.join("broken");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("trace.txt"), "1 START\n2 NOSUCHOP tid:1\n").unwrap();
    root
}

#[test]
fn json_names_the_tool_and_every_option() {
    let o = tracepor(&[
        "check",
        "fixtures/em/notify-wait",
        "--json",
        "--strategy",
        "dpor",
        "--max-states",
        "1000",
        "--time-limit",
        "30",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["tool"]["name"], "tracepor");
    assert_eq!(doc["tool"]["version"], env!("CARGO_PKG_VERSION"));
    let opts = &doc["options"];
    assert_eq!(opts["strategy"], "dpor");
    assert_eq!(opts["max_states"], 1000);
    assert_eq!(opts["time_limit_s"], 30.0);
    assert!(opts["threads"].is_null(), "--threads not given: {opts}");
    assert!(opts["bound"].is_null() && opts["conflicts"] == false && opts["ablations"].as_array().unwrap().is_empty());

    let o = tracepor(&["compare", "fixtures/events/example.events", "--bound", "2", "--conflicts", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["options"]["bound"], 2);
    assert_eq!(doc["options"]["conflicts"], true);
    assert_eq!(doc["tool"]["name"], "tracepor");
}

#[test]
fn compare_reports_a_bad_input_as_its_own_line_and_runs_the_others() {
    let root = inputs_with_a_bad_one("bad");
    let o = tracepor(&["compare", root.to_str().unwrap(), "--strategies", "full,dpor"]);
    let out = text(&o.stdout);
    assert_eq!(code(&o), 2, "{out}");
    assert!(out.contains("broken: not compared:") && out.contains("trace.txt:2:3"), "{out}");
    assert!(
        out.contains("two-posters: outcome sets agree") && out.contains("notify-wait: outcome sets agree"),
        "{out}"
    );
    assert!(out.contains("2 of 3 inputs compared"), "{out}");
    // Each input's table comes as it finishes: one header per input compared.
    assert_eq!(out.lines().filter(|l| l.starts_with("strategy ")).count(), 2, "{out}");

    let o = tracepor(&["compare", root.to_str().unwrap(), "--strategies", "full,dpor", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let inputs = doc["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 3);
    assert!(inputs.iter().any(|i| i["error"].as_str().is_some_and(|e| e.contains("NOSUCHOP"))), "{doc}");
}

#[test]
fn output_paths_are_checked_before_any_search() {
    for flag in ["--csv", "--markdown", "--svg", "--outcomes"] {
        let o = tracepor(&["compare", "fixtures/em/two-posters", flag, "/no/such/folder/out"]);
        assert_eq!(code(&o), 2, "{flag}");
        assert!(text(&o.stderr).contains("/no/such/folder/out"), "{flag}: {}", text(&o.stderr));
        assert!(o.stdout.is_empty(), "{flag}: a search ran before the path was checked");
    }
    let o = tracepor(&["check", "fixtures/em/two-posters", "--outcomes", "/no/such/folder/out"]);
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty());
}

#[test]
fn outcomes_go_to_one_file_per_input_and_strategy_or_to_stdout() {
    let root = inputs_with_a_bad_one("outcomes");
    std::fs::remove_dir_all(root.join("broken")).unwrap();
    let out = scratch("outcomes-files").join("o");
    let o = tracepor(&[
        "compare",
        root.to_str().unwrap(),
        "--strategies",
        "full,dpor",
        "--outcomes",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code(&o), 0);
    let written: Vec<String> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written.len(), 4, "{written:?}");
    for (input, fixture) in [("two-posters", "two-posters"), ("notify-wait", "notify-wait")] {
        let expected =
            std::fs::read_to_string(common::root().join("fixtures/em").join(fixture).join("expected.outcomes"))
                .unwrap();
        for s in ["full", "dpor"] {
            let f = written.iter().find(|w| w.contains(input) && w.ends_with(&format!(".{s}"))).expect("one file each");
            assert_eq!(std::fs::read_to_string(out.parent().unwrap().join(f)).unwrap(), expected, "{f}");
        }
    }

    let o = tracepor(&["check", "fixtures/em/notify-wait", "--outcomes", "-", "--quiet"]);
    let expected = std::fs::read_to_string(common::root().join("fixtures/em/notify-wait/expected.outcomes")).unwrap();
    assert_eq!(text(&o.stdout), expected);
}

#[test]
fn a_file_with_no_operations_is_not_an_empty_program() {
    let d = scratch("empty");
    for (name, body) in [("words", "garbage\n"), ("blank", "")] {
        let t = d.join(name);
        std::fs::create_dir_all(&t).unwrap();
        std::fs::write(t.join("trace.txt"), body).unwrap();
        let o = tracepor(&["check", t.to_str().unwrap()]);
        assert_eq!(code(&o), 2, "{name}: {}", text(&o.stdout));
        assert!(text(&o.stderr).contains("trace.txt:1:1: no operations"), "{name}: {}", text(&o.stderr));
    }
}

/// `compare`'s text table fits a terminal: the input is a heading, each row is under 100
/// columns, counts have thousands separators, and empty columns are left out.
#[test]
fn compare_table_fits_a_terminal() {
    let trace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/em-explorer/tacas-2016/charachter-recognition");
    let trace = trace.to_str().unwrap();
    let o = tracepor(&["compare", trace, "--strategies", "em-dpor,dpor-sleep,optimal"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], trace, "the input heads its rows");
    for l in lines.iter().skip(1).take(4) {
        assert!(l.chars().count() < 100, "{} columns: {l}", l.chars().count());
    }
    assert!(
        lines[1].starts_with("strategy") && !lines[1].contains("errors"),
        "no error found, no column: {}",
        lines[1]
    );
    // The same counts as the JSON, written with separators.
    let j: serde_json::Value =
        serde_json::from_slice(&tracepor(&["compare", trace, "--strategies", "em-dpor", "--json"]).stdout).unwrap();
    let transitions = j["runs"][0]["transitions"].as_u64().or_else(|| j[0]["runs"][0]["transitions"].as_u64()).unwrap();
    assert!(transitions >= 1000, "{j}");
    let digits = transitions.to_string();
    let (head, tail) = digits.split_at(digits.len() - 3);
    let row = lines.iter().find(|l| l.starts_with("em-dpor ")).unwrap();
    assert!(row.contains(&format!("{head},{tail}")), "{row}");
}

/// Over many inputs, an input a strategy does not apply to is a row saying why (on the terminal,
/// in CSV and Markdown, in JSON) and the others still run; a misspelt strategy is refused
/// before any search.
#[test]
fn compare_over_many_inputs_keeps_going_past_an_input_it_cannot_run() {
    let dir = scratch("not-applicable");
    let (csv, md) = (dir.join("t.csv"), dir.join("t.md"));
    let args = [
        "compare",
        "fixtures/em/two-posters",
        "fixtures/events/example.events",
        "fixtures/em/notify-wait",
        "--strategies",
        "full,em-dpor",
        "--csv",
        csv.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ];
    let o = tracepor(&args);
    let out = text(&o.stdout);
    assert_eq!(code(&o), 2, "{out}");
    assert!(out.contains("example.events: not compared: strategy `em-dpor` does not apply to events inputs"), "{out}");
    assert!(out.contains("notify-wait: outcome sets agree"), "the input after it still ran: {out}");
    assert!(out.contains("2 of 3 inputs compared"), "{out}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(",agree,error"), "{header}");
    let row = csv.lines().find(|l| l.starts_with("fixtures/events/example.events,")).expect("a row for it");
    assert_eq!(row.split(',').count(), header.split(',').count(), "{row}");
    assert!(row.ends_with("strategy `em-dpor` does not apply to events inputs"), "{row}");
    assert_eq!(csv.lines().filter(|l| l.contains(",full,")).count(), 2, "{csv}");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("| fixtures/events/example.events | not compared: strategy `em-dpor`"), "{md}");

    let o = tracepor(&[&args[..6], &["--json"]].concat());
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let inputs = doc["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 3, "{doc}");
    assert!(inputs.iter().any(|i| i["file"] == "fixtures/events/example.events" && i["error"].is_string()), "{doc}");

    let o = tracepor(&["compare", "fixtures/em/two-posters", "fixtures/em/notify-wait", "--strategies", "full,emdpor"]);
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty(), "a search ran before the strategy was checked: {}", text(&o.stdout));
    assert!(text(&o.stderr).contains("unknown strategy `emdpor`"), "{}", text(&o.stderr));
}

/// Each input's table is printed when that input finishes, not when all have: the first one's
/// verdict is on stdout while the second search still runs. The second is one no machine
/// finishes (every interleaving of mytracks' 453 operations, stateless: its memory stays flat),
/// so the run is under way however long the first input took on a busy machine; the time limit
/// only keeps the test from hanging should the first verdict never come.
#[test]
fn compare_prints_each_input_as_it_finishes() {
    use std::io::{BufRead, BufReader};
    let slow = common::em_explorer().join("tacas-2016/mytracks");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracepor"))
        .args(["compare", "fixtures/em/two-posters", slow.to_str().unwrap(), "--strategies", "full-stateless"])
        .args(["--time-limit", "600", "--max-memory", "1000", "--no-progress"])
        .current_dir(common::root())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let verdict = lines.by_ref().map(Result::unwrap).find(|l| l.contains("two-posters: outcome sets")).unwrap();
    let still_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(still_running, "the first input's verdict ({verdict}) came only after the whole run");
}

/// With `--json`, a run refused with exit 2 (a bad input, a bad option) is a JSON document on
/// stdout too: `{"error": "...", "tool": {...}}`.
#[test]
fn input_errors_are_json_under_json() {
    let dir = scratch("json-errors");
    let bad = dir.join("bad.events");
    std::fs::write(&bad, "model events\nvar x = \n").unwrap();
    let bad = bad.to_str().unwrap();
    for args in [
        vec!["check", bad, "--json"],
        vec!["compare", bad, "--json"],
        vec!["stats", bad, "--json"],
        vec!["check", "fixtures/em/two-posters", "--json", "--strategy", "nosuch"],
        vec!["check", "fixtures/em/two-posters", "--json", "--threads", "0"],
        vec!["check", "/no/such/input", "--json"],
    ] {
        let o = tracepor(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        let doc: serde_json::Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&o.stdout)));
        let error = doc["error"].as_str().unwrap_or_else(|| panic!("{args:?}: {doc}"));
        assert!(!error.is_empty() && !error.starts_with("error:"), "{args:?}: {error}");
        assert_eq!(doc["tool"]["name"], "tracepor");
        assert!(!text(&o.stderr).is_empty(), "the person at the terminal still reads why");
    }
    let o = tracepor(&["check", bad]);
    assert!(o.stdout.is_empty(), "no JSON unless asked: {}", text(&o.stdout));
}

/// Every key of `stats --json` is one word (`dependence_edges`, `ops_read`), values counts.
#[test]
fn stats_json_keys_have_no_spaces() {
    for input in ["traces/android/photo-sync", "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events"] {
        let o = tracepor(&["stats", input, "--json"]);
        assert_eq!(code(&o), 0);
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let map = doc.as_object().unwrap();
        assert!(map.len() > 3, "{doc}");
        for (k, v) in map {
            assert!(k.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{input}: `{k}`");
            assert!(v.is_u64(), "{input}: {k}: {v}");
        }
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&tracepor(&["stats", "traces/android/photo-sync", "--json"]).stdout).unwrap();
    assert_eq!(doc["messages_posted"], 2);
    assert_eq!(doc["ops_lock"], 4);

    // A folder of SmartApps: each app, loaded or why not.
    let apps = scratch("stats-apps");
    std::fs::write(
        apps.join("Opener.groovy"),
        "definition(name: \"Opener\", namespace: \"t\", author: \"t\")\n\
         preferences { section(\"x\") { input \"contact1\", \"capability.contactSensor\" } }\n\
         def installed() { subscribe(contact1, \"contact.open\", opened) }\n\
         def opened(evt) { state.count = 1 }\n",
    )
    .unwrap();
    std::fs::write(apps.join("Broken.groovy"), "definition(name: \"Broken\")\ndef x() { \"open\n").unwrap();
    let o = tracepor(&["stats", apps.to_str().unwrap(), "--json"]);
    let doc: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)));
    assert_eq!(doc["loaded"], 1, "{doc}");
    let list = doc["apps"].as_array().unwrap();
    let broken = list.iter().find(|a| a["app"] == "Broken.groovy").unwrap();
    assert!(broken["loaded"] == false && broken["error"].is_string(), "{doc}");
    assert_eq!(list.iter().find(|a| a["app"] == "Opener.groovy").unwrap()["loaded"], true, "{doc}");
}

/// `regress --json`: one object per input with `check --expect`'s verdict, and the count that
/// passed.
#[test]
fn regress_json_has_one_object_per_input() {
    let o = tracepor(&["regress", "fixtures/events", "--json"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let inputs = doc["inputs"].as_array().unwrap();
    assert!(inputs.len() >= 3, "{doc}");
    assert_eq!(doc["passed"].as_u64().unwrap() as usize, inputs.len());
    for i in inputs {
        assert_eq!(i["result"], "pass", "{i}");
        assert!(i["input"].as_str().unwrap().starts_with("fixtures/events/"), "{i}");
    }
    assert_eq!(doc["tool"]["name"], "tracepor");
    assert!(doc["options"].is_object());
}

/// Options of one command's `--help`: (line of the option, what it says), the description
/// taken from the same line or, in clap's long layout, the lines below it.
fn options_of(help: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = help.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        // An option starts in clap's option column (at most 6 spaces in); a description wrapped
        // onto a line that begins with `--name` is deeper.
        if !t.starts_with("--") || l.len() - t.len() > 6 {
            continue;
        }
        let head_end = t.find("  ").unwrap_or(t.len());
        let mut said = t[head_end..].trim().to_string();
        for next in &lines[i + 1..] {
            let n = next.trim();
            if n.is_empty() || (n.starts_with('-') && next.len() - next.trim_start().len() <= 6) {
                break;
            }
            said.push(' ');
            said.push_str(n);
        }
        out.push((t[..head_end].to_string(), said));
    }
    out
}

/// Help a user can work from: every option of every command says what it does, options that
/// take a number give its unit or default, the strategies have a line each, and the schedule
/// syntax, shard numbering and exit codes are where a user looks for them.
#[test]
fn every_command_documents_every_option() {
    let commands = ["check", "compare", "regress", "replay", "stats", "corpus", "corpus-merge"];
    for c in commands {
        let o = tracepor(&[c, "--help"]);
        assert_eq!(code(&o), 0, "{c}");
        let help = text(&o.stdout);
        let options = options_of(&help);
        assert!(!options.is_empty(), "{c}: {help}");
        for (option, said) in &options {
            assert!(said.split_whitespace().count() >= 3, "{c} {option}: undocumented ({said:?})");
            let numeric = ["<N>", "<K>", "<MB>", "<SECONDS>"].iter().any(|v| option.contains(v));
            if numeric {
                assert!(said.contains("Default") || said.contains("default"), "{c} {option}: no default: {said}");
            }
        }
        if ["check", "compare", "regress", "replay"].contains(&c) {
            assert!(help.contains("Exit codes") || help.contains("Exit 1"), "{c}: no exit codes");
        }
    }
    let check = text(&tracepor(&["check", "--help"]).stdout);
    let compare = text(&tracepor(&["compare", "--help"]).stdout);
    for name in ["full ", "full-stateless", "dpor ", "dpor-sleep", "em-dpor ", "stateful-dpor", "optimal"] {
        for (c, help) in [("check", &check), ("compare", &compare)] {
            assert_eq!(help.lines().filter(|l| l.trim_start().starts_with(name)).count(), 1, "{c}: {name}");
        }
    }
    assert!(compare.contains("numbered from 0 (0 <= i < n"), "shard numbering: {compare}");
    assert!(check.contains("--time-limit <SECONDS>") && check.contains("MiB"), "units");
    let replay = text(&tracepor(&["replay", "--help"]).stdout);
    assert!(replay.contains("`c*k`"), "schedule syntax: {replay}");
}

/// Attribute `name` of the first tag in `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// `compare --svg`: an axis with a scale (a labelled line per power of ten), every label inside
/// the picture whole, and a run a limit stopped drawn hatched, as the legend says.
#[test]
fn compare_svg_has_an_axis_whole_labels_and_hatched_unfinished_runs() {
    let dir = scratch("svg");
    // A long input name: the label must not be cut, neither by the chart nor at its edge.
    let long = dir.join("a-trace-folder-with-a-rather-long-name-that-used-to-be-cut");
    std::fs::create_dir_all(&long).unwrap();
    std::fs::copy(common::root().join("fixtures/em/two-posters/trace.txt"), long.join("trace.txt")).unwrap();
    let svg_path = dir.join("chart.svg");
    let o = tracepor(&[
        "compare",
        long.to_str().unwrap(),
        "fixtures/em/notify-wait",
        "--strategies",
        "full,dpor",
        // full stops at 20 of the 50 states of the long-named copy of two-posters; dpor, which
        // stores none, at 20 of its 32 transitions (the axis then reaches 100).
        "--max-states",
        "20",
        "--svg",
        svg_path.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code(&o), 3, "full stopped by --max-states: {}", text(&o.stderr));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let width: f64 = attr(&svg, "width").unwrap().parse().unwrap();

    // The axis: labels 1, 10, 100 under grid lines, and its title.
    let texts: Vec<(&str, &str)> = svg
        .split("<text")
        .skip(1)
        .map(|t| (&t[..t.find('>').unwrap()], &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()]))
        .collect();
    for tick in ["1", "10", "100"] {
        assert!(texts.iter().any(|(_, s)| *s == tick), "no tick {tick}: {svg}");
    }
    assert!(texts.iter().any(|(_, s)| s.contains("log scale")), "{svg}");
    assert!(svg.matches("<line").count() >= 4, "{svg}");

    // Every label whole and inside: its estimated extent (0.62 em a character) within 0..width.
    let full_name = long.to_str().unwrap();
    assert!(texts.iter().any(|(_, s)| *s == full_name), "the input's name is cut: {svg}");
    for (tag, s) in &texts {
        let x: f64 = attr(tag, "x").unwrap().parse().unwrap();
        let size: f64 = attr(tag, "font-size").map_or(11.0, |v| v.parse().unwrap());
        let w = s.chars().count() as f64 * size * 0.62;
        let (from, to) = match attr(tag, "text-anchor") {
            Some("end") => (x - w, x),
            Some("middle") => (x - w / 2.0, x + w / 2.0),
            _ => (x, x + w),
        };
        assert!(from >= 0.0 && to <= width, "`{s}` at {from:.0}..{to:.0} is cut (width {width})");
    }

    // Unfinished runs hatched, finished ones solid; the legend says which is which.
    let bars: Vec<&str> = svg.split("<rect").skip(1).filter(|r| r.contains("<title>")).collect();
    assert_eq!(bars.len(), 4, "{svg}");
    for b in &bars {
        let hatched = attr(b, "fill").unwrap().starts_with("url(#hatch");
        assert_eq!(hatched, b.contains("did not finish"), "{b}");
    }
    assert_eq!(bars.iter().filter(|b| b.contains("did not finish")).count(), 2, "full on both inputs");
    assert!(texts.iter().any(|(_, s)| s.starts_with("hatched: stopped by a limit")), "{svg}");
}

/// Output into a pipe closed early (`tracepor ... | head -1`) ends the process quietly, with no
/// panic.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracepor"))
        .args(["compare", "fixtures/em/two-posters", "fixtures/em/notify-wait", "--strategies", "full,dpor"])
        .current_dir(common::root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    assert_ne!(o.status.code(), Some(101), "{}", text(&o.stderr));
}

/// docs/cli.md documents every key the JSON documents have: a key added to a document without a
/// word there fails here.
#[test]
fn docs_cli_md_names_every_json_key() {
    let doc = std::fs::read_to_string(common::root().join("docs/cli.md")).unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let o = tracepor(args);
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&o.stdout)))
    };
    let mut missing = Vec::new();
    let mut check_keys = |what: &str, v: &serde_json::Value| {
        for k in v.as_object().unwrap_or_else(|| panic!("{what}: {v}")).keys() {
            // As a key is written there: `k`, "k", `parent.k`, {k, ...} or the `ops_<kind>` family.
            let named = [format!("`{k}`"), format!("\"{k}\""), format!(".{k}`"), format!("{{{k},")]
                .iter()
                .any(|form| doc.contains(form.as_str()))
                || (k.starts_with("ops_") && doc.contains("`ops_<kind>`"));
            if !named {
                missing.push(format!("{what}: {k}"));
            }
        }
    };
    let conflict =
        json(&["check", "traces/smartthings/fireco2alarm--lock-it-when-i-leave.events", "--conflicts", "--json"]);
    check_keys("check", &conflict);
    check_keys("check errors[]", &conflict["errors"][0]);
    check_keys("errors[].conflict", &conflict["errors"][0]["conflict"]);
    check_keys("options", &conflict["options"]);
    let deadlock = json(&["check", "fixtures/em/abba-deadlock", "--no-races", "--json"]);
    check_keys("check errors[] (deadlock)", &deadlock["errors"][0]);
    check_keys("errors[].stuck[]", &deadlock["errors"][0]["stuck"][0]);
    check_keys("errors[].stuck[].holder", &deadlock["errors"][0]["stuck"][0]["holder"]);
    check_keys("errors[].stuck[].op", &deadlock["errors"][0]["stuck"][0]["op"]);
    let expect =
        json(&["check", "fixtures/em/two-posters", "--expect", "fixtures/em/two-posters/expected.outcomes", "--json"]);
    check_keys("check --expect", &expect["expect"]);
    let compare =
        json(&["compare", "fixtures/em/two-posters", "--strategies", "full,dpor", "--max-states", "3", "--json"]);
    check_keys("compare", &compare);
    let checked = json(&["compare", "fixtures/em/two-posters", "--strategies", "full,dpor", "--json"]);
    assert!(checked["winner"].is_string(), "{checked}");
    check_keys("compare (checked)", &checked);
    check_keys("compare compared", &checked["compared"]);
    let rows = std::env::temp_dir().join(format!("tracepor-keys-{}.jsonl", std::process::id()));
    let o = tracepor(&[
        "corpus",
        "fixtures/corpus/fse-pairs.tsv",
        "--smartapps",
        "../shared/smartthings/smartapps",
        "--limit",
        "1",
        "--jsonl",
        rows.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let row: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&rows).unwrap().trim()).unwrap();
    std::fs::remove_file(&rows).unwrap();
    check_keys("corpus (FSE 2020) row", &row);
    check_keys("corpus (FSE 2020) run", &row["run"]);
    let regress = json(&["regress", "fixtures/events", "--json"]);
    check_keys("regress", &regress);
    check_keys("regress inputs[]", &regress["inputs"][0]);
    check_keys("stats", &json(&["stats", "traces/android/photo-sync", "--json"]));
    check_keys("error", &json(&["check", "/no/such/input", "--json"]));
    assert!(missing.is_empty(), "not in docs/cli.md: {missing:#?}");
}
