//! The state reductions of homes over the SmartApp corpus (../shared/smartthings/smartapps):
//! each app loaded alone under `--conflicts`, the `state` keys it writes that are not stored
//! (write-only or self-contained: src/model/smartapp/dead.rs, self_keys.rs), and the copies
//! reset while their guard is off (guarded.rs). The listing (`--ignored`) is the corpus count of
//! docs/reductions-homes.md; the other test checks the two apps the quiet-use and guard-through-
//! call rules were made for (src/model/smartapp/quiet.rs, guarded.rs).

use std::path::PathBuf;

use tracepor::model::smartapp::{self, SmartAppOptions};

const APPS: &str = "../shared/smartthings/smartapps";

fn alone(file: &str) -> Option<smartapp::SmartAppModel> {
    let opts = SmartAppOptions { conflicts: true, ..Default::default() };
    smartapp::load(&[PathBuf::from(APPS).join(file)], opts).ok()
}

/// One line per app: name, unstored keys, accepted copies (`-` for none); then the totals.
#[test]
#[ignore = "a listing for the docs: cargo test --release --test it corpus_state_keys:: -- --ignored --nocapture"]
fn list_the_reduced_state_keys_of_the_corpus() {
    let mut files: Vec<String> = std::fs::read_dir(APPS)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".groovy"))
        .collect();
    files.sort();
    let (mut loaded, mut dropped, mut copies) = (0, 0, 0);
    for f in &files {
        let Some(m) = alone(f) else {
            println!("{f}\tnot loaded");
            continue;
        };
        loaded += 1;
        let keys: Vec<String> = m.unstored_state_keys().into_iter().map(|(_, k)| k).collect();
        let accepted: Vec<String> =
            m.guard_verdicts().iter().filter(|v| v.verdict.is_ok()).map(|v| v.key.clone()).collect();
        dropped += usize::from(!keys.is_empty());
        copies += usize::from(!accepted.is_empty());
        let show = |v: &[String]| if v.is_empty() { "-".to_string() } else { v.join(" ") };
        println!("{f}\t{}\t{}", show(&keys), show(&accepted));
    }
    println!("total\t{} files, {loaded} loaded, {dropped} with unstored keys, {copies} with reset copies", files.len());
}

/// thermostat-auto-off logs its whole `state` (`"$state"`, quiet) and reads its copy in
/// `restore`, entered only by a `runIn` under the guard `state.changed`: the copy is reset
/// while the guard is off. thermostat-window-check's `turnOffTime` is written and never read.
#[test]
fn thermostat_auto_off_s_copy_is_reset_while_its_guard_is_off() {
    let m = alone("thermostat-auto-off.groovy").expect("loads");
    let v = m.guard_verdicts().iter().find(|v| v.key == "thermostatMode").expect("a verdict");
    assert_eq!(v.verdict, Ok("state.changed".to_string()), "{v:?}");
    let m = alone("thermostat-window-check.groovy").expect("loads");
    assert!(m.unstored_state_keys().iter().any(|(_, k)| k.split(' ').any(|k| k == "turnOffTime")));
}
