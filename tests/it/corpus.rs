//! `tracepor corpus` and `corpus-merge` as scripts and job arrays call them: one row per pair,
//! a pair that does not load is a row saying why, and shards run at once merge into the
//! unsharded table. Reads the SmartApps at ../shared/smartthings/smartapps.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};

const PAIRS: &str = "fixtures/corpus/pairs.tsv";
const APPS: &str = "../shared/smartthings/smartapps";

pub(crate) fn tracepor() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracepor"));
    c.current_dir(common::root());
    c
}

pub(crate) fn ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-corpus-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn rows(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn key(v: &serde_json::Value) -> (String, u64) {
    (v["table"].as_str().unwrap().to_string(), v["no"].as_u64().unwrap())
}

/// What one unsharded `corpus` run printed and wrote: its text, its JSON lines (as written and
/// parsed), its CSV.
pub(crate) struct Whole {
    pub(crate) text: String,
    pub(crate) jsonl: String,
    pub(crate) rows: Vec<serde_json::Value>,
    pub(crate) csv: String,
}

/// The unsharded run of `pairs` with `extra` options, made once for the tests that read it
/// (each of these runs takes seconds: the tests share it rather than repeat it).
pub(crate) fn whole(
    cell: &'static std::sync::OnceLock<Whole>,
    name: &str,
    pairs: &str,
    extra: &[&str],
) -> &'static Whole {
    cell.get_or_init(|| {
        let dir = scratch(name);
        let (jsonl, csv) = (dir.join("whole.jsonl"), dir.join("whole.csv"));
        let o = tracepor()
            .args(["corpus", pairs, "--smartapps", APPS])
            .args(extra)
            .arg("--jsonl")
            .arg(&jsonl)
            .arg("--csv")
            .arg(&csv)
            .output()
            .unwrap();
        let (text, lines) = (ok(&o), std::fs::read_to_string(&jsonl).unwrap());
        let whole = Whole { text, rows: rows(&jsonl), jsonl: lines, csv: std::fs::read_to_string(&csv).unwrap() };
        std::fs::remove_dir_all(&dir).unwrap();
        whole
    })
}

/// The five pairs of fixtures/corpus/pairs.tsv, unsharded.
fn a2_whole() -> &'static Whole {
    static CELL: std::sync::OnceLock<Whole> = std::sync::OnceLock::new();
    whole(&CELL, "a2-whole", PAIRS, &["--max-memory", "1000"])
}

/// The eight pairs of fixtures/corpus/fse-pairs.tsv, unsharded.
pub(crate) fn fse_whole() -> &'static Whole {
    static CELL: std::sync::OnceLock<Whole> = std::sync::OnceLock::new();
    whole(&CELL, "fse-whole", FSE_PAIRS, &[])
}

#[test]
fn one_row_per_pair_and_a_missing_app_says_why() {
    let Whole { text, rows, csv, .. } = a2_whole();
    // Header, five pairs, two summary lines.
    assert_eq!(text.lines().count(), 8, "{text}");
    assert!(text.lines().any(|l| l.contains("no-such-app") && l.contains("cannot read")), "{text}");
    assert_eq!(rows.len(), 5);
    for r in rows {
        for k in [
            "table",
            "no",
            "pair",
            "apps",
            "events",
            "nodpor",
            "dpor",
            "our_events",
            "full",
            "stateful",
            "agree",
            "states_reduction",
            "transitions_reduction",
            "paper_states_reduction",
            "paper_transitions_reduction",
            "error",
        ] {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
        if r["no"] == 999 {
            assert!(r["error"].as_str().unwrap().contains("no-such-app.groovy"), "{r}");
            assert!(r["full"].is_null());
            continue;
        }
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(r["full"]["strategy"], "full");
        assert_eq!(r["stateful"]["strategy"], "stateful-dpor");
        assert_eq!(r["full"]["finished"], true, "{r}");
        assert_eq!(r["stateful"]["finished"], true, "{r}");
        assert_eq!(r["agree"], true, "{r}");
        // The reductions are the ratios of the counts.
        let red = r["full"]["transitions"].as_f64().unwrap() / r["stateful"]["transitions"].as_f64().unwrap();
        assert!((r["transitions_reduction"].as_f64().unwrap() - red).abs() < 1e-9);
        let paper = r["nodpor"]["states"].as_f64().unwrap() / r["dpor"]["states"].as_f64().unwrap();
        assert!((r["paper_states_reduction"].as_f64().unwrap() - paper).abs() < 1e-9);
    }
    assert_eq!(csv.lines().count(), 6);
    assert!(csv.lines().next().unwrap().starts_with("table,no,pair,"));
}

#[test]
fn shards_run_at_once_merge_into_the_unsharded_table() {
    let dir = scratch("shards");
    let shards: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("shard-{i}.jsonl"))).collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(i, out)| {
            tracepor()
                .args(["corpus", PAIRS, "--smartapps", APPS, "--max-memory", "1000", "--shard", &format!("{i}/3")])
                .arg("--jsonl")
                .arg(out)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        ok(&c.wait_with_output().unwrap());
    }
    let md = dir.join("merged.md");
    let svg = dir.join("merged.svg");
    let o = tracepor()
        .arg("corpus-merge")
        .args(&shards)
        .arg("--jsonl")
        .arg("--markdown")
        .arg(&md)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    let merged: Vec<serde_json::Value> = ok(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let expected = &a2_whole().rows;
    let mut keys: Vec<_> = merged.iter().map(key).collect();
    keys.dedup();
    assert_eq!(keys, expected.iter().map(key).collect::<Vec<_>>(), "every pair exactly once, in the paper's order");
    // The same figures, timings aside.
    for (m, e) in merged.iter().zip(expected) {
        for k in ["pair", "error", "agree", "states_reduction", "transitions_reduction", "our_events"] {
            assert_eq!(m[k], e[k], "{k}");
        }
        for side in ["full", "stateful"] {
            assert_eq!(m[side]["states"], e[side]["states"]);
            assert_eq!(m[side]["transitions"], e[side]["transitions"]);
        }
    }
    let md = std::fs::read_to_string(&md).unwrap();
    assert_eq!(md.lines().filter(|l| l.starts_with("| A.2 |")).count(), expected.len());
    assert!(md.contains("Geometric mean over the 4 pairs"), "{md}");
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // A pair in two files is refused, not counted twice (shard 0 holds two of the five pairs).
    assert!(!rows(&shards[0]).is_empty());
    let whole = dir.join("whole.jsonl");
    std::fs::write(&whole, &a2_whole().jsonl).unwrap();
    let o = tracepor().arg("corpus-merge").arg(&whole).arg(&shards[0]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is also at"), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

const FSE_PAIRS: &str = "fixtures/corpus/fse-pairs.tsv";

/// The cells of one CSV line (quoted cells may hold commas).
fn csv_cells(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// The cells of the summary line of `group` in the text output (whitespace-split).
fn summary_line<'a>(text: &'a str, group: &str) -> Vec<&'a str> {
    let summary = &text[text.find("\ngroup  ").unwrap_or_else(|| panic!("no summary: {text}"))..];
    let line = summary.lines().find(|l| l.split_whitespace().next() == Some(group)).unwrap_or_else(|| panic!("{text}"));
    line.split_whitespace().collect()
}

#[test]
fn fse_table_gives_each_pairs_verdicts_and_a_summary_that_adds_up() {
    let Whole { text, rows, csv, .. } = fse_whole();
    assert_eq!(rows.len(), 8);
    let tsv: Vec<Vec<String>> = std::fs::read_to_string(common::root().join(FSE_PAIRS))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "group,no,app1,app2,ours,iotcheck,manual,vs iotcheck,vs manual,states,trans,s,note"
    );
    let labels = ["Feature Conflict", "Saved-state Conflict", "Invalid State"];
    let (mut tp, mut fp, mut fn_, mut tn, mut finished) = (0, 0, 0, 0, 0);
    for ((r, t), line) in rows.iter().zip(&tsv).zip(lines) {
        // Each row is the TSV's pair with IoTCheck's verdict and the label as given.
        assert_eq!(r["app1"], t[1].as_str());
        assert_eq!(r["iotcheck"], t[3].as_str());
        let label = t.get(4).filter(|l| !l.is_empty());
        assert_eq!(r["manual"].as_str(), label.map(String::as_str));
        let cells = csv_cells(line);
        assert_eq!(cells[0], t[0]);
        assert_eq!(cells[2], t[1].trim_end_matches(".groovy"));
        assert_eq!(cells[5], t[3]);
        let found = r["verdict"] == "conflict";
        assert_eq!(cells[4], r["verdict"].as_str().map_or("-".to_string(), |v| v.replace('-', " ")));
        if t[1].starts_with("no-such-app") {
            assert!(r["error"].as_str().unwrap().contains("no-such-app.groovy"), "{r}");
            assert!(r["run"].is_null() && r["verdict"].is_null());
        } else {
            assert_eq!(r["run"]["finished"], true, "every pair of the fixture finishes: {r}");
            assert_eq!(found, r["conflicts"].as_u64().unwrap() > 0);
            finished += 1;
        }
        if let Some(l) = label {
            let actual = labels.contains(&l.as_str());
            assert_eq!(r["manual_conflict"], actual);
            let cell = match (found, actual) {
                (true, true) => {
                    tp += 1;
                    "TP"
                }
                (true, false) => {
                    fp += 1;
                    "FP"
                }
                (false, true) => {
                    fn_ += 1;
                    "FN"
                }
                (false, false) => {
                    tn += 1;
                    "TN"
                }
            };
            assert_eq!(cells[8], cell);
        } else {
            assert_eq!(cells[8], "-");
        }
    }
    // The overall line: pairs, loaded, finished, ..., labelled, TP/FP/FN/TN, recall, precision.
    let all = summary_line(text, "all");
    assert_eq!(&all[1..4], ["8", "7", &finished.to_string()]);
    assert_eq!(all[12], (tp + fp + fn_ + tn).to_string());
    assert_eq!(all[13], format!("{tp}/{fp}/{fn_}/{tn}"));
    assert_eq!(all[14], format!("{:.2}", tp as f64 / (tp + fn_) as f64));
    assert_eq!(all[15], format!("{:.2}", tp as f64 / (tp + fp) as f64));
    // IoTCheck against the same labels: every labelled pair it detected is labelled a conflict.
    assert_eq!(all[16], "4/0/0/3");
    // The groups' lines add up to the overall one.
    let groups: usize =
        ["Alarms", "Locks", "Thermostats"].iter().map(|g| summary_line(text, g)[1].parse::<usize>().unwrap()).sum();
    assert_eq!(groups, 8);
}

#[test]
fn fse_shards_merge_into_the_unsharded_table() {
    let dir = scratch("fse-shards");
    let Whole { text, rows: whole, .. } = fse_whole();
    let shards: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("shard-{i}.jsonl"))).collect();
    for (i, out) in shards.iter().enumerate() {
        ok(&tracepor()
            .args(["corpus", FSE_PAIRS, "--smartapps", APPS, "--shard", &format!("{i}/2"), "--jsonl"])
            .arg(out)
            .output()
            .unwrap());
    }
    assert!(shards.iter().all(|s| !rows(s).is_empty()), "both shards hold pairs");
    let md = dir.join("merged.md");
    let merged = ok(&tracepor().arg("corpus-merge").args(&shards).arg("--markdown").arg(&md).output().unwrap());
    // The same summary as the unsharded run.
    assert_eq!(summary_line(&merged, "all"), summary_line(text, "all"));
    let o = tracepor().arg("corpus-merge").args(&shards).arg("--jsonl").output().unwrap();
    let merged: Vec<serde_json::Value> = ok(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(merged.len(), whole.len());
    for (m, w) in merged.iter().zip(whole) {
        for k in ["no", "app1", "app2", "verdict", "conflicts", "error"] {
            assert_eq!(m[k], w[k], "{k}");
        }
    }
    assert!(std::fs::read_to_string(&md).unwrap().contains("| all | 8 | 7 |"));
    // --svg has nothing to draw here: refused before any search.
    let o = tracepor().args(["corpus", FSE_PAIRS, "--smartapps", APPS, "--svg", "x.svg"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One pair of Table A.1 whose `full` search no machine finishes.
const A1_PAIR: &str = "table\tno\tpair\tevents\tstates_nodpor\ttransitions_nodpor\ttime_nodpor\tstates_dpor\ttransitions_dpor\ttime_dpor\n\
A.1\t1\tinitial-state-event-streamer\u{2013}thermostat-auto-off\t78\tUnf\tUnf\tUnf\t7146\t25850\t3285\n";

#[test]
fn without_options_a_pair_full_cannot_finish_ends_at_the_state_budget() {
    let dir = scratch("budget");
    let tsv = dir.join("a1.tsv");
    std::fs::write(&tsv, A1_PAIR).unwrap();
    let jsonl = dir.join("a1.jsonl");
    // Everything stored: with the attributes no app reads left out (dead.rs), `full` finishes
    // this pair in 495 states.
    let args = ["--smartapps", APPS, "--keep-dead-state", "--jsonl"];
    ok(&tracepor().arg("corpus").arg(&tsv).args(args).arg(&jsonl).output().unwrap());
    let r = &rows(&jsonl)[0];
    assert_eq!(r["full"]["stopped_by"], "states", "{r}");
    assert_eq!(r["full"]["states"], 50_000, "{r}");
    assert_eq!(r["stateful"]["finished"], true, "{r}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_the_pair_under_way_as_interrupted_and_exits_3() {
    use std::io::BufRead;
    let dir = scratch("interrupt");
    let tsv = dir.join("a1.tsv");
    std::fs::write(&tsv, A1_PAIR).unwrap();
    let jsonl = dir.join("a1.jsonl");
    // No budget that `full` could reach before the signal (everything stored: the pair
    // finishes in under a second with the attributes no app reads left out, dead.rs).
    let mut child = tracepor()
        .arg("corpus")
        .arg(&tsv)
        .args([
            "--smartapps",
            APPS,
            "--keep-dead-state",
            "--max-states",
            "100000000",
            "--max-memory",
            "1500",
            "--jsonl",
        ])
        .arg(&jsonl)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut header = String::new();
    out.read_line(&mut header).unwrap();
    assert!(header.starts_with("table"), "{header}");
    // The signal goes once `full` is under way: the pair loads in some 25 MB, and `full` stores
    // states at tens of MB a second. A fixed sleep instead could end before the pair started
    // on a busy machine (a Ctrl-C between two pairs starts no other: no row at all).
    let guard = std::time::Instant::now();
    while common::rss_mib(child.id()).is_none_or(|mb| mb < 64) {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before the search grew");
        assert!(guard.elapsed().as_secs() < 600, "no search under way after 10 minutes");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    common::interrupt(&child);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3), "{rest}");
    let r = &rows(&jsonl)[0];
    assert_eq!(r["full"]["stopped_by"], "interrupt", "{r}");
    let row = rest.lines().next().unwrap();
    assert!(row.contains("interrupt/") && !row.contains("no/no"), "{row}");
    std::fs::remove_dir_all(&dir).unwrap();
}
