//! `stats`: what an input holds, without exploring; over a folder of SmartApps, which load.

use std::path::PathBuf;

use super::{joined, tool_json, Fail};
use crate::model::{self, LoadOptions, Model};
use crate::trace::input::{detect_input, Input};
use crate::with_model;

/// `stats`: the input's figures as a table, or one JSON object with `json`.
pub fn stats(files: &[PathBuf], json: bool, given: &super::Given) -> Result<i32, Fail> {
    let input = detect_input(files)?;
    let detected = [(files.to_vec(), Ok(input))];
    super::refuse_ignored(&detected, &LoadOptions::default(), given)?;
    let [(_, Ok(input))] = detected else { unreachable!("told above") };
    if let Some(apps) = smartapp_coverage(files, &input) {
        let loaded = apps.iter().filter(|(_, r)| r.is_ok()).count();
        let with_unsupported = apps.iter().filter(|(_, r)| r.as_ref().is_ok_and(|r| !r.1.is_empty())).count();
        if json {
            let apps: Vec<serde_json::Value> = apps
                .iter()
                .map(|(name, r)| match r {
                    Ok((events, unsupported)) => serde_json::json!({
                        "app": name, "loaded": true, "events": events, "unsupported": unsupported
                    }),
                    Err(why) => serde_json::json!({ "app": name, "loaded": false, "error": why }),
                })
                .collect();
            let doc = serde_json::json!({
                "apps": apps, "loaded": loaded, "with_unsupported": with_unsupported, "tool": tool_json()
            });
            println!("{}", serde_json::to_string_pretty(&doc)?);
        } else {
            for (name, r) in &apps {
                match r {
                    Ok((events, unsupported)) => {
                        println!("{name:<60} loaded ({events} events)");
                        for u in unsupported {
                            println!("    not modelled: {u}");
                        }
                    }
                    Err(why) => println!("{name:<60} {why}"),
                }
            }
            println!("{loaded} of {} apps load", apps.len());
            println!(
                "{with_unsupported} of them with something not modelled ({} items, listed above)",
                apps.iter().filter_map(|(_, r)| r.as_ref().ok()).map(|r| r.1.len()).sum::<usize>()
            );
        }
        return Ok(0);
    }
    let file = joined(files);
    let smartapps = matches!(input, Input::SmartApps(_));
    let loaded = model::load_input(input.clone(), LoadOptions::default())?;
    let (kind, stats, unsupported) = with_model!(&loaded, m => (m.kind(), m.stats(), m.unsupported()));
    // What `--conflicts` would leave out of the interleaving (the default load has nothing left out).
    let left_out = if smartapps {
        let with = model::load_input(input, LoadOptions { conflicts: true, ..LoadOptions::default() })?;
        with_model!(&with, m => m.left_out())
    } else {
        Vec::new()
    };
    if json {
        let stats: std::collections::BTreeMap<String, u64> =
            stats.into_iter().map(|(k, v)| (json_key(&k), v)).collect();
        let mut doc = serde_json::to_value(&stats)?;
        if kind == model::ModelKind::SmartApps {
            doc["unsupported_list"] = serde_json::json!(unsupported);
            doc["left_out_with_conflicts"] = serde_json::json!(left_out);
        }
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("{} ({kind})", file.display());
        for (k, v) in &stats {
            println!("  {k:<24} {v}");
        }
        for u in &unsupported {
            println!("  not modelled: {u}");
        }
        for u in &left_out {
            println!("  left out with --conflicts: {u}");
        }
    }
    Ok(0)
}

/// `stats` keys as JSON has them: `messages posted` -> `messages_posted`, `ops READ-STATIC` ->
/// `ops_read_static` (the text report keeps the readable form).
fn json_key(key: &str) -> String {
    key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// What `stats` says of one app of a folder of SmartApps: its events, or why it did not load.
type AppCoverage = (String, Result<(u64, Vec<String>), String>);

/// `stats` on one folder of SmartApps: each app alone, loaded or the first construct that
/// stops it (None when the input is not such a folder).
fn smartapp_coverage(files: &[PathBuf], input: &Input) -> Option<Vec<AppCoverage>> {
    let ([dir], Input::SmartApps(apps)) = (files, input) else { return None };
    if !dir.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    for app in apps {
        let name = app.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let result = match model::load_all(std::slice::from_ref(app), LoadOptions::default()) {
            Ok(l) => Ok(with_model!(&l, m => (m.stats().get("events").copied().unwrap_or(0), m.unsupported()))),
            Err(e) => Err(e.to_string().replace(&app.display().to_string(), "")),
        };
        out.push((name, result));
    }
    Some(out)
}
