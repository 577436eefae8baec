//! `corpus --homes`: each IoTCheck device group (an app list of
//! `shared/smartthings/appLists`) checked whole, all its apps as one home, with IoTCheck's
//! conflicts (`--conflicts` implied) and the default strategy for SmartApps, under the per-run
//! limits; one row per home: apps, events, states, transitions, time, memory, finished or what
//! stopped it, and the conflicts grouped by device and attribute ([`crate::report::findings`]).
//!
//! A conflict found is a finding whether or not the search finished; "no conflict" needs a
//! finished search. The homes are taken in path order; `--shard` splits them by a hash of the
//! list's file name (the same on every machine), `--jsonl` rows merge as the pairs' do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Settings, Side};
use crate::check::{self, Check, CheckError};
use crate::explore::SearchOptions;
use crate::model::{LoadOptions, Model};
use crate::report::findings::{self, AttributeConflicts};
use crate::trace::applist;

/// One home: an app list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Home {
    /// The list's file name (`locksAppList`): the key of `--shard` and merging.
    pub home: String,
    pub list: PathBuf,
}

/// The homes under `paths`: an app list stands for itself; a folder for the app lists in it
/// (told by content, [`applist::is_app_list`]), in name order.
pub fn homes(paths: &[PathBuf]) -> Result<Vec<Home>, CheckError> {
    let mut out = Vec::new();
    for p in paths {
        let home = |list: PathBuf| Home {
            home: list.file_name().map_or_else(String::new, |n| n.to_string_lossy().into()),
            list,
        };
        if !p.is_dir() {
            if !p.is_file() {
                return Err(CheckError(format!("{}: no such app list", p.display())));
            }
            out.push(home(p.clone()));
            continue;
        }
        let entries = std::fs::read_dir(p).map_err(|e| CheckError(format!("{}: cannot read: {e}", p.display())))?;
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|f| f.is_file() && std::fs::read(f).is_ok_and(|b| applist::is_app_list(&b)))
            .collect();
        if found.is_empty() {
            return Err(CheckError(format!("{}: no app lists in this folder", p.display())));
        }
        found.sort();
        out.extend(found.into_iter().map(home));
    }
    Ok(out)
}

/// The homes a run takes: the first `limit`, then share `shard` of those.
pub fn select(homes: Vec<Home>, limit: Option<usize>, shard: Option<check::Shard>) -> Vec<Home> {
    let mut out = homes;
    if let Some(n) = limit {
        out.truncate(n);
    }
    if let Some(s) = shard {
        out.retain(|h| s.contains(Path::new(&h.home)));
    }
    out
}

/// One home's run. A JSON line of `--jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HomeRow {
    #[serde(flatten)]
    pub home: Home,
    /// Apps of the list (0 when it did not load).
    pub apps: usize,
    /// Events of our model of the home.
    pub events: Option<u64>,
    /// The search (null when the home did not load).
    pub run: Option<Side>,
    /// Peak heap of the run, MiB.
    pub peak_mib: Option<f64>,
    /// Distinct conflicts found (errors of kind `conflict`).
    pub conflicts: usize,
    /// The conflicts by device and attribute.
    pub by_attribute: Vec<AttributeConflicts>,
    /// The pair conflicts (a third app's write between the two; explore/pair_monitors.rs), for
    /// the pairs `by_attribute` does not name: findings of the home too.
    #[serde(default)]
    pub pair_by_attribute: Vec<AttributeConflicts>,
    /// With `--pairwise`: the findings of the home's apps run two at a time, beside the home's.
    pub pairwise: Option<Pairwise>,
    /// Why the home did not run (first line of the load error).
    pub error: Option<String>,
}

/// The findings of every pair of a home's apps, each pair run as the home was (same limits),
/// and how they stand against the home's own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pairwise {
    /// Pairs run, and how many a limit stopped.
    pub pairs: usize,
    pub unfinished: usize,
    /// Distinct (device, attribute, app pair) over all pairs.
    pub findings: usize,
    /// Pairwise findings the home did not report, directly or as a pair conflict,
    /// `device.attribute: app/app`.
    pub missing: Vec<String>,
    /// Pairwise findings the home reported only as pair conflicts (found through a third app's
    /// write between the two), and for each why the direct conflict is not there
    /// ([`explain_missing`], kept for the record).
    #[serde(default)]
    pub through_third: Vec<String>,
    #[serde(default)]
    pub through_third_why: Vec<String>,
    /// For each of `missing`, in order: why, as the pair's schedule run in the home shows it
    /// ([`explain_missing`]); a reason starting `third app` is a difference of the home's
    /// semantics, any other is unexplained.
    #[serde(default)]
    pub why: Vec<String>,
    /// Home findings (direct) no pair reported (a third app's handler between the two writes).
    pub only_home: Vec<String>,
}

/// A finding as tables write it.
pub fn key_text(k: &findings::FindingKey) -> String {
    let var = if k.0.is_empty() { k.1.clone() } else { format!("{}.{}", k.0, k.1) };
    format!("{var}: {}/{}", k.2, k.3)
}

impl Pairwise {
    /// Missed findings whose reason is neither a third app's write between the two nor a third
    /// app changing the pair's own writes (see `why`).
    pub fn unexplained(&self) -> usize {
        let explained = |w: &String| w.starts_with(THIRD_APP) || w.starts_with(OTHER_WRITES);
        (0..self.missing.len()).filter(|&i| self.why.get(i).is_none_or(|w| !explained(w))).count()
    }
}

/// How a reason for a missed pair finding starts when a third app of the home wrote between.
pub const THIRD_APP: &str = "third app";

/// Runs every pair of `files` (SmartApps) with IoTCheck's conflicts under `settings`' limits:
/// the union of their findings, each with a schedule of the pair that reaches it, with how many
/// pairs ran and how many a limit stopped.
pub fn pairwise_findings(
    files: &[PathBuf],
    settings: &Settings,
) -> (usize, usize, BTreeMap<findings::FindingKey, String>) {
    // IoTCheck's homes in IoTCheck's configuration (one value per input, as `run_home`).
    let load = LoadOptions { conflicts: true, fixed_inputs: true, ..settings.load };
    let (mut pairs, mut unfinished, mut found) = (0, 0, BTreeMap::new());
    for i in 0..files.len() {
        for j in i + 1..files.len() {
            if settings.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst)) {
                return (pairs, unfinished + 1, found);
            }
            pairs += 1;
            let Ok(m) = super::load_pair(&[files[i].clone(), files[j].clone()], load) else {
                unfinished += 1;
                continue;
            };
            let mut run = Check::new(&m).limits(settings.limits.clone()).options(SearchOptions::default());
            if let Some(flag) = &settings.cancel {
                run = run.cancel(flag.clone());
            }
            let report = run.run();
            if !report.finished {
                unfinished += 1;
            }
            for g in &report.conflicts_by_attribute {
                for p in &g.pairs {
                    let key = (g.device.clone(), g.attribute.clone(), p.apps[0].clone(), p.apps[1].clone());
                    let schedule = p.instances.first().map_or_else(String::new, |i| i.schedule.clone());
                    found.entry(key).or_insert(schedule);
                }
            }
        }
    }
    (pairs, unfinished, found)
}

/// Why the home did not report pair finding `key`, which the pair reached by `schedule`: that
/// schedule run in the home (`home`) step by step, and what the home observes at its last step
/// on the finding's attribute. When a third app's write stands between the pair's two (the
/// home observes a conflict of a third app there instead), the reason starts with
/// [`THIRD_APP`]: IoTCheck's conflict compares a write with the attribute's last writer, and
/// the handlers of one event run in subscription order, so in the home the pair's two writes
/// are not consecutive on that path; under `--conflict-mode end` also when a third app's
/// conflict ends the path first. Anything else (the schedule does not replay, or the home
/// reaches the pair's conflict but its search did not report it) is unexplained.
pub fn explain_missing(
    home: &crate::model::smartapp::SmartAppModel,
    key: &findings::FindingKey,
    schedule: &str,
) -> String {
    let path = match crate::model::parse_schedule(home, schedule) {
        Ok(p) => p,
        Err(e) => return format!("its schedule `{schedule}` is not one of the home: {e}"),
    };
    let variable = if key.0.is_empty() { key.1.clone() } else { format!("{}.{}", key.0, key.1) };
    let ours = |app: &str| app == key.2 || app == key.3;
    let (mut s, mut enabled, mut seen) = (home.initial(), Vec::new(), Vec::new());
    // Conflicts on the variable between one of the pair's apps and a third app, by step.
    let mut third = Vec::new();
    for (i, &c) in path.iter().enumerate() {
        enabled.clear();
        home.enabled(&s, &mut enabled);
        if !enabled.contains(&c) {
            return format!("its schedule `{schedule}` cannot be followed in the home (step {})", i + 1);
        }
        seen.clear();
        let result = home.step_observing(&mut s, c, None, &mut seen);
        // Under `--conflict-mode end` a conflict ends the path: it is the last one seen.
        let ended = match result {
            Err(e) if e.conflict.is_some() => {
                seen.push(e);
                true
            }
            Err(e) => {
                return format!(
                    "its schedule `{schedule}` ends in the home at step {} in {}: {}",
                    i + 1,
                    e.kind,
                    e.message
                )
            }
            Ok(()) => false,
        };
        for c in seen.iter().filter_map(|e| e.conflict.as_deref()).filter(|c| c.variable == variable) {
            if ours(&c.last_app) && ours(&c.app) && i + 1 == path.len() {
                return format!(
                    "its schedule `{schedule}` reaches it in the home: the home's search did not report it"
                );
            }
            if ours(&c.last_app) != ours(&c.app) {
                third.push(format!("{} then {} (step {})", c.last_app, c.app, i + 1));
            }
        }
        if ended {
            let why = if third.is_empty() { "another conflict" } else { THIRD_APP };
            return format!(
                "{why} ends the path in the home at step {} of the pair's schedule `{schedule}`: {}",
                i + 1,
                seen.last().map_or("", |e| e.message.as_str())
            );
        }
    }
    if third.is_empty() {
        // No conflict of a third app with either, but one may write the value of the later of
        // the two before it (then that one's write is no conflict): the writers in order.
        let writers = home.writers_along(&path, &variable);
        let between = writers.iter().enumerate().any(|(i, (_, a))| {
            ours(a)
                && writers[i + 1..]
                    .iter()
                    .enumerate()
                    .any(|(j, (_, b))| !ours(b) && writers[i + 1 + j + 1..].iter().any(|(_, c)| ours(c) && c != a))
        });
        let list: Vec<String> = writers.iter().map(|(k, a)| format!("{a} (step {k})")).collect();
        if between {
            return format!(
                "{THIRD_APP} writes {variable} between the two in the home: its schedule `{schedule}` has the writers {}",
                list.join(", ")
            );
        }
        format!(
            "its schedule `{schedule}` run in the home observes no conflict of a third app with either on {variable} (writers: {})",
            list.join(", ")
        )
    } else {
        third.dedup();
        format!(
            "{THIRD_APP} writes {variable} between the two in the home: its schedule `{schedule}` observes {} instead",
            third.join(", ")
        )
    }
}

/// How a reason for a missed pair finding starts when the pair's schedule runs in the home but
/// the two apps' own writes of the attribute at its last step make no pair conflict there: a
/// third app changed what their handlers read, so the pair's path is not the home's and the
/// pair view (explore/pair_monitors.rs) has no path to find it on.
pub const OTHER_WRITES: &str = "the pair's own writes differ in the home";

/// With conflicts observed (where `monitors`' pair view runs): why the home lacks pair finding
/// `key` although the pair's schedule runs in it. Along the schedule in the home, the two apps'
/// writes of the attribute alone are checked as the pair view checks them (each against the
/// pair's last write, `monitor_conflict`): a pair conflict at the last step is the pair's path in
/// the home, which the home's search should have reported (unexplained); none is
/// [`OTHER_WRITES`], with both sequences. None when the schedule does not run in the home.
fn pair_path_in_home(
    home: &crate::model::smartapp::SmartAppModel,
    files: &[PathBuf],
    load: LoadOptions,
    key: &findings::FindingKey,
    schedule: &str,
) -> Option<String> {
    let variable = if key.0.is_empty() { key.1.clone() } else { format!("{}.{}", key.0, key.1) };
    // The two apps' writes of the variable along the schedule (`app value`), and whether one
    // at the last step conflicts with the pair's last write.
    let writes = |m: &crate::model::smartapp::SmartAppModel| -> Option<(Vec<String>, bool)> {
        let path = crate::model::parse_schedule(m, schedule).ok()?;
        let slot = m.monitored_slots().into_iter().find(|&s| m.slot_variable(s) == variable)? as u32;
        let (mut s, mut enabled, mut out, mut w) = (m.initial(), Vec::new(), Vec::new(), Vec::new());
        let (mut last, mut found) = (None, false);
        for (i, &c) in path.iter().enumerate() {
            enabled.clear();
            m.enabled(&s, &mut enabled);
            if !enabled.contains(&c) {
                return None;
            }
            w.clear();
            let r = m.step_unmonitored(&mut s, c, &mut w);
            for g in w.iter().filter(|g| g.slot == slot) {
                let app = m.app_name(g.app as usize);
                if app == key.2 || app == key.3 {
                    found |= i + 1 == path.len() && m.monitor_conflict(last.as_ref(), g, c).is_some();
                    out.push(format!("{app} {}", g.value_text()));
                    last = Some(g.clone());
                }
            }
            r.ok()?;
        }
        Some((out, found))
    };
    let (ours, reached) = writes(home)?;
    if reached {
        return Some(format!(
            "its schedule `{schedule}` reaches it in the home as a pair conflict: the home's search did not report it"
        ));
    }
    let names = home.app_names();
    let (i, j) = (names.iter().position(|n| *n == key.2)?, names.iter().position(|n| *n == key.3)?);
    let theirs = super::load_pair(&[files[i.min(j)].clone(), files[i.max(j)].clone()], load)
        .ok()
        .and_then(|pair| writes(&pair))
        .map_or_else(|| "?".to_string(), |(t, _)| t.join(", "));
    Some(format!(
        "{OTHER_WRITES}: its schedule `{schedule}` runs in the home, where the two write {variable} as [{}], not as in the pair run [{theirs}] (a third app changed what they read)",
        ours.join(", ")
    ))
}

impl HomeRow {
    /// Distinct (device, attribute, pair of apps) found by direct conflicts.
    pub fn findings(&self) -> usize {
        findings::keys(&self.by_attribute).len()
    }

    /// Distinct (device, attribute, pair of apps) found as pair conflicts only.
    pub fn pair_findings(&self) -> usize {
        findings::keys(&self.pair_by_attribute).len()
    }

    pub fn finished(&self) -> bool {
        self.run.as_ref().is_some_and(|s| s.finished)
    }
}

/// The apps of `list`, looked up in `smartapps` when given (else beside the list).
pub fn apps_of(list: &Path, smartapps: Option<&Path>) -> Result<Vec<PathBuf>, String> {
    let dirs = match smartapps {
        Some(d) => vec![d.to_path_buf()],
        None => applist::search_dirs(list),
    };
    let bytes = crate::trace::input::read(list).map_err(|e| e.to_string())?;
    applist::parse_app_list(list, &bytes, &dirs).map_err(|e| e.to_string())
}

/// Loads `home` with IoTCheck's conflicts on and runs the default strategy for SmartApps with
/// the per-run limits. `smartapps`: the folder of the apps (None: beside the list). With
/// `pairwise`, every pair of its apps is run too ([`pairwise_findings`]).
pub fn run_home(home: Home, settings: &Settings, smartapps: Option<&Path>, pairwise: bool) -> HomeRow {
    let mut row = HomeRow {
        home,
        apps: 0,
        events: None,
        run: None,
        peak_mib: None,
        conflicts: 0,
        by_attribute: Vec::new(),
        pair_by_attribute: Vec::new(),
        pairwise: None,
        error: None,
    };
    let files = match apps_of(&row.home.list, smartapps) {
        Ok(f) => f,
        Err(e) => {
            row.error = Some(e.lines().next().unwrap_or("").to_string());
            return row;
        }
    };
    // IoTCheck's homes in IoTCheck's configuration: one value per input, so that a pair's
    // configurations are the home's (the inputs a person picks are covered per system,
    // choices.rs, and a pair's rows need not be a home's).
    let load = LoadOptions { conflicts: true, fixed_inputs: true, ..settings.load };
    let m = match super::load_pair(&files, load) {
        Ok(m) => m,
        Err(e) => {
            row.error = Some(e);
            return row;
        }
    };
    row.apps = files.len();
    row.events = m.stats().get("events").copied();
    let mut run = Check::new(&m)
        .file(row.home.list.display().to_string())
        .limits(settings.limits.clone())
        .options(SearchOptions::default());
    if let Some(flag) = &settings.cancel {
        run = run.cancel(flag.clone());
    }
    let report = run.run();
    row.conflicts = report.errors.iter().filter(|e| e.kind == "conflict").count();
    row.peak_mib = report.peak_bytes().map(|b| b as f64 / (1u64 << 20) as f64);
    row.run = Some(Side::from(&report));
    row.by_attribute = report.conflicts_by_attribute;
    row.pair_by_attribute = report.pair_conflicts_by_attribute;
    if pairwise {
        let (pairs, unfinished, theirs) = pairwise_findings(&files, settings);
        let ours = findings::keys(&row.by_attribute);
        let through = findings::keys(&row.pair_by_attribute);
        let why = |k: &findings::FindingKey, sched: &String| {
            let why = explain_missing(&m, k, sched);
            // An unfinished search may simply not have come to it yet.
            if report.finished {
                why
            } else {
                format!("{why} (it stopped at a limit)")
            }
        };
        let missed: Vec<_> = theirs.iter().filter(|(k, _)| !ours.contains(*k) && !through.contains(*k)).collect();
        let third: Vec<_> = theirs.iter().filter(|(k, _)| !ours.contains(*k) && through.contains(*k)).collect();
        row.pairwise = Some(Pairwise {
            pairs,
            unfinished,
            findings: theirs.len(),
            missing: missed.iter().map(|(k, _)| key_text(k)).collect(),
            // With the pair view on, a miss is told apart further: is the pair's path the home's?
            why: missed
                .iter()
                .map(|(k, sched)| {
                    let pair_view = m.observes_conflicts() && report.pair_view.is_some();
                    match pair_view.then(|| pair_path_in_home(&m, &files, load, k, sched)).flatten() {
                        Some(w) if report.finished => w,
                        Some(w) => format!("{w} (it stopped at a limit)"),
                        None => why(k, sched),
                    }
                })
                .collect(),
            through_third: third.iter().map(|(k, _)| key_text(k)).collect(),
            through_third_why: third.iter().map(|(k, sched)| why(k, sched)).collect(),
            only_home: ours.iter().filter(|k| !theirs.contains_key(*k)).map(key_text).collect(),
        });
    }
    row
}

/// The homes' figures over all rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HomesSummary {
    pub homes: usize,
    pub loaded: usize,
    pub finished: usize,
    /// Homes with at least one conflict found.
    pub with_conflicts: usize,
    /// Distinct (device, attribute, pair of apps) of each home, summed.
    pub findings: usize,
    /// Of pair conflicts (a third app's write between), summed.
    pub pair_findings: usize,
}

pub fn summary(rows: &[HomeRow]) -> HomesSummary {
    HomesSummary {
        homes: rows.len(),
        loaded: rows.iter().filter(|r| r.error.is_none()).count(),
        finished: rows.iter().filter(|r| r.finished()).count(),
        with_conflicts: rows.iter().filter(|r| r.conflicts > 0).count(),
        findings: rows.iter().map(HomeRow::findings).sum(),
        pair_findings: rows.iter().map(HomeRow::pair_findings).sum(),
    }
}

/// Whether a JSON row (of `--jsonl`) is a home's.
pub fn is_home_row(v: &serde_json::Value) -> bool {
    v.get("home").is_some() && v.get("by_attribute").is_some()
}
