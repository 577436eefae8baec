//! IoTCheck's device-interaction experiment (Trimananda et al., FSE 2020, section 5) from the
//! SmartApps' source (issue 26): per pair of apps, whether our search with IoTCheck's conflicts
//! (`--conflicts`) finds a conflict, beside IoTCheck's automated verdict and, where the paper's
//! manual study labelled the pair, that label; then how far the verdicts agree.
//!
//! The TSV (`shared/reference/iotcheck-fse20-device-interaction.tsv`) is told from the VMCAI
//! tables by its header (`group app1 app2 iotcheck manual`). A manual label is a conflict when it
//! is one of [`CONFLICT_LABELS`] (the TSV's own comment says so); every other label is not.
//!
//! A conflict found is a conflict whether or not the search finished (IoTCheck's listener also
//! reports the first one it meets); "no conflict" needs a finished search; anything else is
//! unfinished, with what stopped it. Against the manual labels, a pair we did not decide counts
//! as "no conflict found" (a negative), as it would for a user reading the report.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Settings, Side};
use crate::check::{self, Check, CheckError};
use crate::explore::SearchOptions;
use crate::model::{ConflictScope, LoadOptions, Model};

/// The first cells of the TSV's header line.
pub const HEADER: [&str; 5] = ["group", "app1", "app2", "iotcheck", "manual"];

/// The manual study's labels that name a conflict.
pub const CONFLICT_LABELS: [&str; 3] = ["Feature Conflict", "Saved-state Conflict", "Invalid State"];

/// Whether `text` (a TSV) is IoTCheck's FSE 2020 table: its header line starts with [`HEADER`].
pub fn is_fse(text: &str) -> bool {
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .is_some_and(|h| h.split('\t').take(4).eq(HEADER[..4].iter().copied()))
}

/// IoTCheck's automated verdict on a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IotCheck {
    /// A conflict found.
    #[serde(rename = "detected")]
    Detected,
    /// JPF finished and found none.
    #[serde(rename = "no error")]
    NoError,
    /// JPF did not finish in its time limit.
    #[serde(rename = "non-terminated")]
    NonTerminated,
}

impl IotCheck {
    pub fn as_str(self) -> &'static str {
        match self {
            IotCheck::Detected => "detected",
            IotCheck::NoError => "no error",
            IotCheck::NonTerminated => "non-terminated",
        }
    }

    fn parse(s: &str) -> Option<IotCheck> {
        [IotCheck::Detected, IotCheck::NoError, IotCheck::NonTerminated].into_iter().find(|v| v.as_str() == s)
    }

    /// Some(conflict?) when IoTCheck decided the pair.
    pub fn decided(self) -> Option<bool> {
        match self {
            IotCheck::Detected => Some(true),
            IotCheck::NoError => Some(false),
            IotCheck::NonTerminated => None,
        }
    }
}

/// One line of the TSV.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FsePair {
    pub group: String,
    /// The pair's number in the file (data lines from 1): the order tables keep.
    pub no: u32,
    /// File names as the TSV gives them (`APP.groovy`).
    pub app1: String,
    pub app2: String,
    pub iotcheck: IotCheck,
    /// The manual study's label (Locks and Thermostats groups); None where not given.
    pub manual: Option<String>,
}

impl FsePair {
    /// The key `--shard` hashes and merging checks: the same on every machine.
    pub fn key(&self) -> String {
        format!("{} {} {}", self.group, self.app1, self.app2)
    }

    /// The two apps under `dir`. IoTCheck's data names one app with spaces (`Hue Party
    /// Mode.groovy`) that the SmartApps folder, like the VMCAI tables, spells with hyphens: a
    /// name that is not there is tried so.
    pub fn files(&self, dir: &Path) -> Vec<PathBuf> {
        [&self.app1, &self.app2]
            .map(|a| {
                let given = dir.join(a);
                let hyphens = dir.join(a.replace(' ', "-"));
                if !given.exists() && hyphens.exists() {
                    hyphens
                } else {
                    given
                }
            })
            .to_vec()
    }

    /// Some(conflict?) where the manual study labelled the pair.
    pub fn manual_conflict(&self) -> Option<bool> {
        self.manual.as_deref().map(|l| CONFLICT_LABELS.contains(&l))
    }
}

/// Reads the TSV's pairs (`#` comments, the header, one pair per line).
pub fn parse_pairs(text: &str) -> Result<Vec<FsePair>, String> {
    let mut out = Vec::new();
    for line in super::tsv_lines(text)? {
        let line_no = line.no;
        let verdict = line.at("iotcheck")?;
        let iotcheck = IotCheck::parse(verdict).ok_or_else(|| {
            format!("line {line_no}: `iotcheck` is `{verdict}`, not detected, no error or non-terminated")
        })?;
        let (app1, app2) = (line.at("app1")?, line.at("app2")?);
        if app1.is_empty() || app2.is_empty() {
            return Err(format!("line {line_no}: an app is missing"));
        }
        let manual = if line.has("manual") { Some(line.at("manual")?).filter(|m| !m.is_empty()) } else { None };
        out.push(FsePair {
            group: line.at("group")?.to_string(),
            no: out.len() as u32 + 1,
            app1: app1.to_string(),
            app2: app2.to_string(),
            iotcheck,
            manual: manual.map(str::to_string),
        });
    }
    Ok(out)
}

/// The pairs a run takes: those of `group` (all when None), the first `limit`, then share
/// `shard` of those, as for the VMCAI tables.
pub fn select(
    pairs: Vec<FsePair>,
    group: Option<&str>,
    limit: Option<usize>,
    shard: Option<check::Shard>,
) -> Vec<FsePair> {
    let mut out: Vec<FsePair> = pairs.into_iter().filter(|p| group.is_none_or(|g| p.group == g)).collect();
    if let Some(n) = limit {
        out.truncate(n);
    }
    if let Some(s) = shard {
        out.retain(|p| s.contains(Path::new(&p.key())));
    }
    out
}

/// Our verdict on a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ours {
    Conflict,
    NoConflict,
    /// No conflict found before a limit (or Ctrl-C) stopped the search.
    Unfinished,
}

impl Ours {
    pub fn decided(self) -> Option<bool> {
        match self {
            Ours::Conflict => Some(true),
            Ours::NoConflict => Some(false),
            Ours::Unfinished => None,
        }
    }
}

/// One pair: IoTCheck's verdict, the label, ours. A JSON line of `--jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FseRow {
    #[serde(flatten)]
    pub pair: FsePair,
    /// The label read as a verdict (None: no label).
    pub manual_conflict: Option<bool>,
    /// Events of our model of the pair.
    pub our_events: Option<u64>,
    /// Our search (null when the pair did not load).
    pub run: Option<Side>,
    /// Null when the pair did not load.
    pub verdict: Option<Ours>,
    /// Distinct conflicts found.
    pub conflicts: usize,
    /// The first conflict found: `app: message (line N)`.
    pub conflict: Option<String>,
    /// Why the pair did not run (first line of the load error).
    pub error: Option<String>,
}

impl FseRow {
    fn new(pair: FsePair) -> FseRow {
        FseRow {
            manual_conflict: pair.manual_conflict(),
            pair,
            our_events: None,
            run: None,
            verdict: None,
            conflicts: 0,
            conflict: None,
            error: None,
        }
    }

    /// Some(conflict?) when we decided the pair.
    pub fn decided(&self) -> Option<bool> {
        self.verdict.and_then(Ours::decided)
    }

    /// Whether we report a conflict (a positive against the labels).
    pub fn found(&self) -> bool {
        self.verdict == Some(Ours::Conflict)
    }
}

/// The attributes a conflict may be on in each group of the experiment (`--conflicts-on`):
/// IoTCheck's device-interaction runs track only the group's device, the `variables` of
/// `jpf-core/main-<group>.jpf` in uci-plrg/iotcheck (fields of its device classes, which
/// `ConflictTracker` matches by name on every device), here as the model's attributes. The
/// manual study judged the pairs on that device too. None: a group not listed (every attribute).
pub fn group_scope(group: &str) -> Option<&'static [&'static str]> {
    Some(match group {
        // main-locks.jpf: currentLock.
        "Locks" => &["lock"],
        // main-thermostats.jpf: currentHeatingSetpoint, thermostatSetpoint,
        // currentCoolingSetpoint, thermostatOperatingState, thermostatFanMode,
        // currentThermostatMode.
        "Thermostats" => &[
            "heatingSetpoint",
            "thermostatSetpoint",
            "coolingSetpoint",
            "thermostatOperatingState",
            "thermostatFanMode",
            "thermostatMode",
        ],
        // main-alarms.jpf: currentAlarm.
        "Alarms" => &["alarm"],
        // main-cameras.jpf: image, alarmState (the camera's arming, which no command of the
        // model sets).
        "Cameras" => &["image"],
        // main-dimmers.jpf: currentSwitch, currentLevel (the fields of every switch and light
        // class: a light's level, not a music player's volume).
        "Dimmers" => &["switch", "switchLevel.level", "colorControl.level", "colorTemperature.level"],
        // main-hueLights.jpf and main-nonHueLights.jpf: colorChanged, currentHue,
        // currentSaturation, currentLevel, currentSwitch, colorTemperature.
        "Lights" => &[
            "switch",
            "switchLevel.level",
            "colorControl.level",
            "colorTemperature.level",
            "hue",
            "saturation",
            "color",
            "colorTemperature",
        ],
        // main-musicPlayers.jpf: status, duration, level, trackDescription, trackData, mute
        // (duration and trackData are no attributes of the model's player).
        "Music Player" => &["status", "musicPlayer.level", "trackDescription", "mute"],
        // main-relaySwitches.jpf: currentSwitch.
        "Relay Switches" => &["switch"],
        // main-speeches.jpf: level, oneUser (IoTCheck's speech synthesizer toggles `oneUser` at
        // each `speak`, so any two apps speaking "conflict"; the model's synthesizer has no
        // attributes, so nothing can conflict in this group: docs/smartapps.md).
        "Speech Synthesizers" => &[],
        // main-valves.jpf: valve, valveLatestValue.
        "Valves" => &["valve"],
        _ => return None,
    })
}

/// Loads `pair` with IoTCheck's conflicts on and runs the default strategy for SmartApps (or
/// `strategy`) with the per-run limits.
pub fn run_pair(pair: FsePair, settings: &Settings, strategy: Option<&str>) -> FseRow {
    let mut row = FseRow::new(pair);
    let files = row.pair.files(&settings.smartapps);
    let load = LoadOptions {
        conflicts: true,
        conflicts_on: group_scope(&row.pair.group).map(ConflictScope::new),
        ..settings.load
    };
    let m = match super::load_pair(&files, load) {
        Ok(m) => m,
        Err(e) => {
            row.error = Some(e);
            return row;
        }
    };
    row.our_events = m.stats().get("events").copied();
    let name = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" + ");
    let mut run = Check::new(&m).file(name).limits(settings.limits.clone()).options(SearchOptions::default());
    if let Some(s) = strategy {
        run = match run.strategy(s) {
            Ok(r) => r,
            Err(CheckError(e)) => {
                row.error = Some(e);
                return row;
            }
        };
    }
    if let Some(flag) = &settings.cancel {
        run = run.cancel(flag.clone());
    }
    let report = run.run();
    let conflicts: Vec<_> = report.errors.iter().filter(|e| e.kind == "conflict").collect();
    row.conflicts = conflicts.len();
    row.conflict = conflicts.first().map(|e| {
        let app = e.app.as_deref().map(|a| format!("{a}: ")).unwrap_or_default();
        format!("{app}{} (line {})", e.message, e.line)
    });
    row.verdict = Some(if !conflicts.is_empty() {
        Ours::Conflict
    } else if report.finished {
        Ours::NoConflict
    } else {
        Ours::Unfinished
    });
    row.run = Some(Side::from(&report));
    row
}

/// Counts of a confusion matrix against a reference verdict (the manual labels), with recall
/// and precision.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Confusion {
    pub tp: usize,
    pub fp: usize,
    #[serde(rename = "fn")]
    pub fn_: usize,
    pub tn: usize,
}

impl Confusion {
    fn add(&mut self, predicted: bool, actual: bool) {
        match (predicted, actual) {
            (true, true) => self.tp += 1,
            (true, false) => self.fp += 1,
            (false, true) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }

    /// TP / (TP + FN): the share of the labelled conflicts reported.
    pub fn recall(&self) -> Option<f64> {
        let d = self.tp + self.fn_;
        (d > 0).then(|| self.tp as f64 / d as f64)
    }

    /// TP / (TP + FP): the share of reported conflicts the labels confirm.
    pub fn precision(&self) -> Option<f64> {
        let d = self.tp + self.fp;
        (d > 0).then(|| self.tp as f64 / d as f64)
    }
}

/// One group's (or all pairs') agreement figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub group: String,
    pub pairs: usize,
    pub loaded: usize,
    /// Our searches that ran to the end.
    pub finished: usize,
    pub conflict: usize,
    pub no_conflict: usize,
    /// Loaded, but no conflict found before a limit stopped the search.
    pub unfinished: usize,
    /// Pairs both IoTCheck and we decided, and on how many the verdicts agree.
    pub both_decided: usize,
    pub agree_with_iotcheck: usize,
    /// Of those decided both ways: a conflict only we report, or only IoTCheck.
    pub conflict_only_ours: usize,
    pub conflict_only_iotcheck: usize,
    /// IoTCheck finished on (detected or no error).
    pub iotcheck_decided: usize,
    /// Pairs with a manual label.
    pub labelled: usize,
    /// Ours against the labels (undecided counts as no conflict found).
    pub vs_manual: Confusion,
    /// IoTCheck against the labels (non-terminated counts as no conflict found).
    pub iotcheck_vs_manual: Confusion,
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    pub iotcheck_recall: Option<f64>,
    pub iotcheck_precision: Option<f64>,
}

impl Tally {
    fn add(&mut self, r: &FseRow) {
        self.pairs += 1;
        if r.error.is_none() {
            self.loaded += 1;
        }
        if r.run.as_ref().is_some_and(|s| s.finished) {
            self.finished += 1;
        }
        match r.verdict {
            Some(Ours::Conflict) => self.conflict += 1,
            Some(Ours::NoConflict) => self.no_conflict += 1,
            Some(Ours::Unfinished) => self.unfinished += 1,
            None => {}
        }
        let theirs = r.pair.iotcheck.decided();
        if theirs.is_some() {
            self.iotcheck_decided += 1;
        }
        if let (Some(a), Some(b)) = (r.decided(), theirs) {
            self.both_decided += 1;
            match (a, b) {
                _ if a == b => self.agree_with_iotcheck += 1,
                (true, false) => self.conflict_only_ours += 1,
                _ => self.conflict_only_iotcheck += 1,
            }
        }
        if let Some(actual) = r.manual_conflict {
            self.labelled += 1;
            self.vs_manual.add(r.found(), actual);
            self.iotcheck_vs_manual.add(theirs == Some(true), actual);
        }
        self.recall = self.vs_manual.recall();
        self.precision = self.vs_manual.precision();
        self.iotcheck_recall = self.iotcheck_vs_manual.recall();
        self.iotcheck_precision = self.iotcheck_vs_manual.precision();
    }
}

/// Per group, in the order the groups first appear, then over all pairs (group `all`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FseSummary {
    pub groups: Vec<Tally>,
    pub all: Tally,
}

pub fn summary(rows: &[FseRow]) -> FseSummary {
    let mut groups: Vec<Tally> = Vec::new();
    let mut all = Tally { group: "all".into(), ..Tally::default() };
    for r in rows {
        let k = match groups.iter().position(|g| g.group == r.pair.group) {
            Some(k) => k,
            None => {
                groups.push(Tally { group: r.pair.group.clone(), ..Tally::default() });
                groups.len() - 1
            }
        };
        groups[k].add(r);
        all.add(r);
    }
    FseSummary { groups, all }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TSV: &str = "# c\ngroup\tapp1\tapp2\tiotcheck\tmanual\n\
Locks\ta.groovy\tb.groovy\tdetected\tFeature Conflict\n\
Locks\ta.groovy\tc.groovy\tno error\tComposable Relation\n\
Alarms\tc.groovy\td.groovy\tnon-terminated\t\n";

    #[test]
    fn reads_the_fse_table_and_tells_it_by_its_header() {
        assert!(is_fse(TSV));
        assert!(!is_fse("table\tno\tpair\n"));
        let p = parse_pairs(TSV).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!((p[2].no, p[2].iotcheck, p[2].manual.as_deref()), (3, IotCheck::NonTerminated, None));
        assert_eq!(p.iter().map(FsePair::manual_conflict).collect::<Vec<_>>(), [Some(true), Some(false), None]);
        assert_eq!(select(p.clone(), Some("Locks"), None, None).len(), 2);
        assert!(parse_pairs("group\tapp1\tapp2\tiotcheck\nG\ta\tb\tmaybe\n").unwrap_err().contains("line 2"));
    }

    fn row(iot: IotCheck, manual: Option<bool>, ours: Option<Ours>) -> FseRow {
        let pair = FsePair {
            group: "G".into(),
            no: 1,
            app1: "a".into(),
            app2: "b".into(),
            iotcheck: iot,
            manual: manual.map(|c| if c { "Feature Conflict" } else { "Read-Read Interaction" }.to_string()),
        };
        FseRow { verdict: ours, error: ours.is_none().then(|| "x".into()), ..FseRow::new(pair) }
    }

    #[test]
    fn tally_of_verdicts() {
        use IotCheck::*;
        let rows = [
            row(Detected, Some(true), Some(Ours::Conflict)),
            row(Detected, Some(true), Some(Ours::Unfinished)),
            row(NoError, Some(false), Some(Ours::Conflict)),
            row(NonTerminated, Some(false), Some(Ours::NoConflict)),
            row(NoError, None, Some(Ours::NoConflict)),
            row(Detected, Some(true), None),
        ];
        let s = summary(&rows).all;
        assert_eq!((s.pairs, s.loaded, s.conflict, s.no_conflict, s.unfinished), (6, 5, 2, 2, 1));
        assert_eq!(
            (s.both_decided, s.agree_with_iotcheck, s.conflict_only_ours, s.conflict_only_iotcheck),
            (3, 2, 1, 0)
        );
        assert_eq!(s.vs_manual, Confusion { tp: 1, fp: 1, fn_: 2, tn: 1 });
        assert_eq!(s.iotcheck_vs_manual, Confusion { tp: 3, fp: 0, fn_: 0, tn: 2 });
        assert_eq!((s.recall, s.precision), (Some(1.0 / 3.0), Some(0.5)));
        assert_eq!(s.iotcheck_precision, Some(1.0));
    }
}
