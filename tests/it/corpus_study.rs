//! `tracepor corpus` on the TSV of IoTCheck's study that holds the Switches group, the location
//! mode and the physical media (`study group sheet app1 app2 verdict`): each pair one row with
//! IoTCheck's verdict and the manual label joined from their own lines, one summary table per
//! category, each label read by its category's rule, and rows of both TSVs merged into one
//! table per category. Our verdicts are not asserted (they follow the model); how they are
//! counted is. Reads the SmartApps at ../shared/smartthings/smartapps.

use crate::common;

use std::collections::HashMap;
use std::path::PathBuf;

use super::corpus::{fse_whole, ok, tracepor, whole, Whole};

const STUDY: &str = "fixtures/corpus/fse-study.tsv";

/// The study's pairs, unsharded: run once for the tests that read it.
fn study_whole() -> &'static Whole {
    static CELL: std::sync::OnceLock<Whole> = std::sync::OnceLock::new();
    whole(&CELL, "study-whole", STUDY, &[])
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracepor-study-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture's lines: (sheet, app1, app2) -> (IoTCheck's verdict, the label), as written.
fn fixture() -> HashMap<(String, String, String), (Option<String>, Option<String>)> {
    let text = std::fs::read_to_string(common::root().join(STUDY)).unwrap();
    let mut out: HashMap<_, (Option<String>, Option<String>)> = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let e = out.entry((c[2].to_string(), c[3].to_string(), c[4].to_string())).or_default();
        if c[0] == "Automation" {
            e.0 = Some(c[5].replace("non terminated", "non-terminated"));
        } else {
            e.1 = Some(c[5].to_string());
        }
    }
    out
}

/// The label's verdict by the rule of the category its sheet belongs to, written out here
/// apart from the code's.
fn label_is_conflict(sheet: &str, label: &str) -> bool {
    match sheet {
        "location mode" => label == "App-app write-write" || label == "App-direct write-write",
        "Light and Illuminance Sensor" | "Water Valves and Water Sensor" => label != "Physical Interaction",
        _ => ["Feature Conflict", "Saved-state Conflict", "Invalid State"].contains(&label),
    }
}

/// The summary line of `group` under the category titled `title`.
fn summary_line<'a>(text: &'a str, title: &str, group: &str) -> Vec<&'a str> {
    let at = text.find(&format!("\n{title}\n")).unwrap_or_else(|| panic!("no {title} table: {text}"));
    let table = &text[at + title.len() + 2..];
    let table = &table[..table.find("\n\n").unwrap_or(table.len())];
    let line = table.lines().find(|l| l.starts_with(&format!("{group}  "))).unwrap_or_else(|| panic!("{text}"));
    line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect()
}

#[test]
fn each_pair_joins_its_verdict_and_label_and_each_category_has_its_table() {
    let Whole { text, rows, .. } = study_whole();
    let lines = fixture();
    assert_eq!(rows.len(), lines.len(), "one row per pair, whichever lines give it");
    let mut per_category: HashMap<String, (usize, usize, usize)> = HashMap::new();
    for r in rows {
        let key = (
            r["group"].as_str().unwrap().to_string(),
            r["app1"].as_str().unwrap().to_string(),
            r["app2"].as_str().unwrap().to_string(),
        );
        let (iotcheck, label) = &lines[&key];
        assert_eq!(r["iotcheck"].as_str(), iotcheck.as_deref(), "{r}");
        assert_eq!(r["manual"].as_str(), label.as_deref(), "{r}");
        assert_eq!(r["manual_conflict"].as_bool(), label.as_deref().map(|l| label_is_conflict(&key.0, l)), "{r}");
        let category = r["category"].as_str().unwrap().to_string();
        let expected = match key.0.as_str() {
            "location mode" => "global-variable",
            "Light and Illuminance Sensor" | "Water Valves and Water Sensor" => "physical-medium",
            _ => "device-interaction",
        };
        assert_eq!(category, expected, "{r}");
        if key.1.starts_with("no-such-app") {
            assert!(r["error"].as_str().unwrap().contains("no-such-app.groovy"), "{r}");
            assert!(r["verdict"].is_null(), "{r}");
        } else {
            assert!(r["error"].is_null(), "{r}");
            assert_eq!(r["verdict"] == "conflict", r["conflicts"].as_u64().unwrap() > 0, "{r}");
        }
        let c = per_category.entry(category).or_default();
        c.0 += 1;
        c.1 += label.is_some() as usize;
        c.2 += (r["manual_conflict"] == true && r["verdict"] == "conflict") as usize;
    }
    // Each category's table adds up: pairs, labelled pairs and true positives of its rows.
    for (title, category) in [
        ("device interaction", "device-interaction"),
        ("global variable (location mode)", "global-variable"),
        ("physical medium", "physical-medium"),
    ] {
        let (pairs, labelled, tp) = per_category[category];
        let all = summary_line(text, title, "all");
        assert_eq!(all[1], pairs.to_string(), "{title}: {all:?}");
        assert_eq!(all[12], labelled.to_string(), "{title}: {all:?}");
        assert!(all[13].starts_with(&format!("{tp}/")), "{title}: {all:?}");
    }
    // IoTCheck's figures count only the pairs its run took: none of the physical media's.
    assert_eq!(summary_line(text, "physical medium", "all").last(), Some(&"-"));
}

#[test]
fn rows_of_both_tsvs_merge_into_one_table_per_category() {
    let dir = scratch("merge");
    let (device, study) = (dir.join("device.jsonl"), dir.join("study.jsonl"));
    std::fs::write(&device, &fse_whole().jsonl).unwrap();
    std::fs::write(&study, &study_whole().jsonl).unwrap();
    let o = tracepor().arg("corpus-merge").arg(&study).arg(&device).arg("--jsonl").output().unwrap();
    let merged: Vec<serde_json::Value> = ok(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(merged.len(), fse_whole().rows.len() + study_whole().rows.len());
    // Device interaction first, the device TSV's pairs before the study's, each in file order.
    let order: Vec<(String, String, u64)> = merged
        .iter()
        .map(|r| {
            let category = r["category"].as_str().unwrap_or("device-interaction").to_string();
            (category, r["source"].as_str().unwrap().to_string(), r["no"].as_u64().unwrap())
        })
        .collect();
    let rank = |c: &str| ["device-interaction", "global-variable", "physical-medium"].iter().position(|x| *x == c);
    let keys: Vec<_> = order.iter().map(|(c, s, n)| (rank(c), s.clone(), *n)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(order[0].1, "fse-pairs.tsv");
    let text = ok(&tracepor().arg("corpus-merge").arg(&device).arg(&study).output().unwrap());
    let all = summary_line(&text, "device interaction", "all");
    let devices = merged.iter().filter(|r| r["category"] == "device-interaction").count();
    assert_eq!(all[1], devices.to_string(), "{all:?}");
    for group in ["Locks", "General Switches", "location mode", "Light and Illuminance Sensor"] {
        assert!(text.lines().any(|l| l.starts_with(&format!("{group}  "))), "{group}: {text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
