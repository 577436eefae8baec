//! `stats`: what an input holds, without exploring; over a folder of SmartApps, which load.

use std::path::PathBuf;

use super::{joined, tool_json, Fail};
use crate::model::{self, LoadOptions, Model};
use crate::trace::input::{detect_input, Input};
use crate::with_model;

/// `stats`: the input's figures as a table, or one JSON object with `json`.
pub fn stats(files: &[PathBuf], json: bool) -> Result<i32, Fail> {
    let input = detect_input(files)?;
    if let Some(apps) = smartapp_coverage(files, &input) {
        let loaded = apps.iter().filter(|(_, r)| r.is_ok()).count();
        if json {
            let apps: Vec<serde_json::Value> = apps
                .iter()
                .map(|(name, r)| match r {
                    Ok(events) => serde_json::json!({ "app": name, "loaded": true, "events": events }),
                    Err(why) => serde_json::json!({ "app": name, "loaded": false, "error": why }),
                })
                .collect();
            let doc = serde_json::json!({ "apps": apps, "loaded": loaded, "tool": tool_json() });
            println!("{}", serde_json::to_string_pretty(&doc)?);
        } else {
            for (name, r) in &apps {
                match r {
                    Ok(events) => println!("{name:<60} loaded ({events} events)"),
                    Err(why) => println!("{name:<60} {why}"),
                }
            }
            println!("{loaded} of {} apps load", apps.len());
        }
        return Ok(0);
    }
    let file = joined(files);
    let loaded = model::load_input(input, LoadOptions::default())?;
    let (kind, stats) = with_model!(&loaded, m => (m.kind(), m.stats()));
    if json {
        let stats: std::collections::BTreeMap<String, u64> =
            stats.into_iter().map(|(k, v)| (json_key(&k), v)).collect();
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        println!("{} ({kind})", file.display());
        for (k, v) in &stats {
            println!("  {k:<24} {v}");
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
type AppCoverage = (String, Result<u64, String>);

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
            Ok(l) => Ok(with_model!(&l, m => m.stats().get("events").copied().unwrap_or(0))),
            Err(e) => Err(e.to_string().replace(&app.display().to_string(), "")),
        };
        out.push((name, result));
    }
    Some(out)
}
