//! IoTCheck's study of SmartApp interactions (Trimananda et al., FSE 2020, section 5) from the
//! SmartApps' source: per pair of apps, whether our search with IoTCheck's conflicts
//! (`--conflicts`) finds the interaction the pair is listed for, beside IoTCheck's automated
//! verdict and, where the paper's manual study labelled the pair, that label; then how far the
//! verdicts agree, per category of the study ([`Category`]): device interaction (two apps
//! writing one device attribute), global variable (two apps writing the location mode), and
//! physical medium (one app's command changing what another app's sensor reads).
//!
//! Two TSVs hold the study, told apart by their headers ([`is_fse`]): the device-interaction
//! groups (`group app1 app2 iotcheck manual`, one line per pair) and the rest
//! (`study group sheet app1 app2 verdict`, one line per pair and source: `Automation` lines give
//! IoTCheck's verdict, `Manual Study` lines the label; [`parse_pairs`] joins the two on the pair,
//! and a pair only the manual study has, like every physical-medium pair, has no IoTCheck
//! verdict). A label is a conflict by its category's rule ([`Category::is_conflict_label`]).
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

/// The first cells of the device-interaction TSV's header line.
pub const HEADER: [&str; 5] = ["group", "app1", "app2", "iotcheck", "manual"];

/// The first cells of the header of the TSV that holds the rest of the study, one line per
/// pair and source (`study`: `Automation` or `Manual Study`).
pub const STUDY_HEADER: [&str; 6] = ["study", "group", "sheet", "app1", "app2", "verdict"];

/// The device-interaction labels that name a conflict.
pub const CONFLICT_LABELS: [&str; 3] = ["Feature Conflict", "Saved-state Conflict", "Invalid State"];

/// The global-variable labels that name a conflict: two apps writing the mode, at least one of
/// them on its own (an app's automatic change against another app's, or against a change a
/// person made through an app). Direct-direct write-write, the write-read and read-read labels
/// are not.
pub const MODE_CONFLICT_LABELS: [&str; 2] = ["App-app write-write", "App-direct write-write"];

/// The one physical-medium label that is no conflict (every other one is).
pub const PHYSICAL_NO_CONFLICT: &str = "Physical Interaction";

/// Whether `text` (a TSV) is one of IoTCheck's FSE 2020 tables: its header line starts with
/// [`HEADER`] or [`STUDY_HEADER`].
pub fn is_fse(text: &str) -> bool {
    text.lines().map(|l| l.trim_end_matches('\r')).find(|l| !l.starts_with('#') && !l.trim().is_empty()).is_some_and(
        |h| h.split('\t').take(4).eq(HEADER[..4].iter().copied()) || h.split('\t').take(6).eq(STUDY_HEADER),
    )
}

/// The study's three categories of interaction (its section 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Two apps writing one attribute of one device (Tables 3 and 4 of the paper).
    #[default]
    DeviceInteraction,
    /// Two apps writing a global variable of the home: the location mode.
    GlobalVariable,
    /// One app's command changing a physical quantity (light, water, motion) another app's
    /// sensor reads; IoTCheck only warns of these.
    PhysicalMedium,
}

impl Category {
    pub const ALL: [Category; 3] = [Category::DeviceInteraction, Category::GlobalVariable, Category::PhysicalMedium];

    /// As tables title it.
    pub fn title(self) -> &'static str {
        match self {
            Category::DeviceInteraction => "device interaction",
            Category::GlobalVariable => "global variable (location mode)",
            Category::PhysicalMedium => "physical medium",
        }
    }

    /// The category of a `group` cell of the study TSV.
    fn of_group(group: &str) -> Option<Category> {
        match group {
            "Switches" => Some(Category::DeviceInteraction),
            "Global Variable" => Some(Category::GlobalVariable),
            "Physical Medium" => Some(Category::PhysicalMedium),
            _ => None,
        }
    }

    /// Whether the manual study's `label` names a conflict in this category.
    pub fn is_conflict_label(self, label: &str) -> bool {
        match self {
            Category::DeviceInteraction => CONFLICT_LABELS.contains(&label),
            Category::GlobalVariable => MODE_CONFLICT_LABELS.contains(&label),
            Category::PhysicalMedium => label != PHYSICAL_NO_CONFLICT,
        }
    }

    /// Which labels are conflicts, as the summary's note says it.
    pub fn label_rule(self) -> String {
        match self {
            Category::DeviceInteraction => format!("{} are conflicts", CONFLICT_LABELS.join(", ")),
            Category::GlobalVariable => format!("{} are conflicts", MODE_CONFLICT_LABELS.join(", ")),
            Category::PhysicalMedium => format!("every label but {PHYSICAL_NO_CONFLICT} is a conflict"),
        }
    }

    /// Whether `e`, a finding of our search, is an interaction of this category: a conflict on
    /// a device attribute, a conflict on the location mode, or a physical conflict.
    pub fn counts(self, e: &crate::report::ErrorReport) -> bool {
        let on_mode = || e.conflict.as_ref().is_some_and(|c| is_mode_variable(&c.variable));
        match self {
            Category::DeviceInteraction => e.kind == "conflict" && !on_mode(),
            Category::GlobalVariable => e.kind == "conflict" && on_mode(),
            Category::PhysicalMedium => e.kind == PHYSICAL_KIND,
        }
    }
}

/// The kind of a finding that a command reached another app's sensor through the room.
pub const PHYSICAL_KIND: &str = "physical conflict";

/// Whether a conflict's variable is the home's location mode.
fn is_mode_variable(v: &str) -> bool {
    v == "mode" || v.starts_with("location")
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
    /// Two mode writes found, both made by a person through an app, which IoTCheck's run then
    /// did not count (global variable category).
    #[serde(rename = "no error - user-user")]
    NoErrorUserUser,
    /// JPF did not finish in its time limit.
    #[serde(rename = "non-terminated")]
    NonTerminated,
}

impl IotCheck {
    pub fn as_str(self) -> &'static str {
        match self {
            IotCheck::Detected => "detected",
            IotCheck::NoError => "no error",
            IotCheck::NoErrorUserUser => "no error - user-user",
            IotCheck::NonTerminated => "non-terminated",
        }
    }

    /// The verdict's cell; the study TSV spells `non-terminated` with a space.
    fn parse(s: &str) -> Option<IotCheck> {
        let s = if s == "non terminated" { "non-terminated" } else { s };
        [IotCheck::Detected, IotCheck::NoError, IotCheck::NoErrorUserUser, IotCheck::NonTerminated]
            .into_iter()
            .find(|v| v.as_str() == s)
    }

    /// Some(conflict?) when IoTCheck decided the pair.
    pub fn decided(self) -> Option<bool> {
        match self {
            IotCheck::Detected => Some(true),
            IotCheck::NoError | IotCheck::NoErrorUserUser => Some(false),
            IotCheck::NonTerminated => None,
        }
    }
}

/// One pair of the study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FsePair {
    /// Device interaction when absent (rows of the device-interaction TSV).
    #[serde(default)]
    pub category: Category,
    /// The device group (`Locks`), or the study TSV's sheet (`General Switches`, `location
    /// mode`, `Light and Illuminance Sensor`).
    pub group: String,
    /// The pair's number in its file (in the order pairs first appear, from 1): with `source`,
    /// the order tables keep.
    pub no: u32,
    /// The TSV's file name (empty in rows written before it was recorded).
    #[serde(default)]
    pub source: String,
    /// File names as the TSV gives them (`APP.groovy`).
    pub app1: String,
    pub app2: String,
    /// None where IoTCheck's automated run did not take the pair (the manual study's only).
    pub iotcheck: Option<IotCheck>,
    /// The manual study's label; None where not given.
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
        self.manual.as_deref().map(|l| self.category.is_conflict_label(l))
    }

    /// Some(conflict?) where IoTCheck ran the pair and decided it.
    pub fn iotcheck_decided(&self) -> Option<bool> {
        self.iotcheck.and_then(IotCheck::decided)
    }
}

/// Reads either TSV's pairs (`#` comments, the header, then one pair per line, or one line per
/// pair and source in the study TSV).
pub fn parse_pairs(text: &str) -> Result<Vec<FsePair>, String> {
    let lines = super::tsv_lines(text)?;
    if lines.first().is_some_and(|l| l.has("study")) {
        return parse_study(lines);
    }
    let mut out = Vec::new();
    for line in lines {
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
            category: Category::DeviceInteraction,
            group: line.at("group")?.to_string(),
            no: out.len() as u32 + 1,
            source: String::new(),
            app1: app1.to_string(),
            app2: app2.to_string(),
            iotcheck: Some(iotcheck),
            manual: manual.map(str::to_string),
        });
    }
    Ok(out)
}

/// The study TSV: an `Automation` line gives a pair's IoTCheck verdict, a `Manual Study` line
/// its label; both lines of one pair (same group, sheet and apps in the same order) make one
/// pair, numbered where it first appears. A second line of one source for a pair is an error.
fn parse_study(lines: Vec<super::TsvLine<'_>>) -> Result<Vec<FsePair>, String> {
    let mut out: Vec<FsePair> = Vec::new();
    let mut seen: std::collections::HashMap<(String, String, String, bool), usize> = Default::default();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    for line in lines {
        let no = line.no;
        let group = line.at("group")?;
        let category = Category::of_group(group).ok_or_else(|| {
            format!("line {no}: group `{group}` is none of Switches, Global Variable, Physical Medium")
        })?;
        let (sheet, app1, app2, verdict) = (line.at("sheet")?, line.at("app1")?, line.at("app2")?, line.at("verdict")?);
        if app1.is_empty() || app2.is_empty() || sheet.is_empty() {
            return Err(format!("line {no}: a sheet or an app is missing"));
        }
        let automation = match line.at("study")? {
            "Automation" => true,
            "Manual Study" => false,
            other => return Err(format!("line {no}: `study` is `{other}`, not Automation or Manual Study")),
        };
        let key = (sheet.to_string(), app1.to_string(), app2.to_string(), automation);
        if let Some(first) = seen.insert(key, no) {
            return Err(format!("line {no}: {sheet} {app1} {app2} is also at line {first}"));
        }
        let pair_key = format!("{sheet} {app1} {app2}");
        let k = *index.entry(pair_key).or_insert_with(|| {
            out.push(FsePair {
                category,
                group: sheet.to_string(),
                no: out.len() as u32 + 1,
                source: String::new(),
                app1: app1.to_string(),
                app2: app2.to_string(),
                iotcheck: None,
                manual: None,
            });
            out.len() - 1
        });
        if automation {
            out[k].iotcheck = Some(IotCheck::parse(verdict).ok_or_else(|| {
                format!("line {no}: `verdict` is `{verdict}`, not detected, no error or non-terminated")
            })?);
        } else if !verdict.is_empty() {
            out[k].manual = Some(verdict.to_string());
        }
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
    /// The row of `pair` before it runs: its label read, nothing of ours yet.
    pub fn new(pair: FsePair) -> FseRow {
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
        // The Switches group's sheets: main-switches.jpf, main-lightSwitches.jpf,
        // main-acfanheaterSwitches.jpf, main-ventfanSwitches.jpf: currentSwitch.
        "General Switches" | "Light Switches" | "Other Switches" => &["switch"],
        _ => return None,
    })
}

/// Loads `pair` with IoTCheck's conflicts on and runs the default strategy for SmartApps (or
/// `strategy`) with the per-run limits. A device-interaction pair is checked on its group's
/// attributes ([`group_scope`]), as the settings' conflict mode says. A pair of the other
/// categories is checked with every conflict observed (none ends its path, so a device
/// conflict on the way cannot hide the mode's or the room's), and only its category's
/// findings count ([`Category::counts`]).
pub fn run_pair(pair: FsePair, settings: &Settings, strategy: Option<&str>) -> FseRow {
    let mut row = FseRow::new(pair);
    let files = row.pair.files(&settings.smartapps);
    let category = row.pair.category;
    let load = match category {
        Category::DeviceInteraction => LoadOptions {
            conflicts: true,
            conflicts_on: group_scope(&row.pair.group).map(ConflictScope::new),
            ..settings.load
        },
        // IoTCheck's global-variable runs watch the location mode alone
        // (`jpf-core/main-globalStateVariables.jpf`: `variables=locationMode`): so does the
        // scope, which keeps no device's conflict ghost.
        Category::GlobalVariable => LoadOptions {
            conflicts: true,
            conflicts_on: Some(ConflictScope::new(&["location.mode"])),
            conflict_mode: crate::model::ConflictMode::Observe,
            ..settings.load
        },
        Category::PhysicalMedium => LoadOptions {
            conflicts: true,
            conflicts_on: None,
            conflict_mode: crate::model::ConflictMode::Observe,
            ..settings.load
        },
    };
    // The study's routines change no mode (IoTCheck's `Phrase.execute` prints the phrase; the
    // manual study labels the apps that run routines readers of the mode): docs/location-mode.md.
    let load = LoadOptions { routines_keep_mode: true, ..load };
    // The study's device-interaction and global-variable runs have no physical channels (its
    // physical-medium sheet is its own category): the room only there (docs/physical.md).
    let load = LoadOptions { physical: category == Category::PhysicalMedium, ..load };
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
    let conflicts: Vec<_> = report.errors.iter().filter(|e| category.counts(e)).collect();
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
    /// IoTCheck against the labels, over the labelled pairs its run took (non-terminated counts
    /// as no conflict found).
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
        let theirs = r.pair.iotcheck_decided();
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
            // IoTCheck against the labels over the pairs its run took (a pair only the manual
            // study has, like every physical-medium pair, says nothing of IoTCheck).
            if r.pair.iotcheck.is_some() {
                self.iotcheck_vs_manual.add(theirs == Some(true), actual);
            }
        }
        self.recall = self.vs_manual.recall();
        self.precision = self.vs_manual.precision();
        self.iotcheck_recall = self.iotcheck_vs_manual.recall();
        self.iotcheck_precision = self.iotcheck_vs_manual.precision();
    }
}

/// One category's figures: per group, in the order the groups first appear, then over all its
/// pairs (group `all`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FseSummary {
    pub category: Category,
    pub groups: Vec<Tally>,
    pub all: Tally,
}

/// One [`FseSummary`] per category the rows hold, in [`Category::ALL`]'s order.
pub fn summary(rows: &[FseRow]) -> Vec<FseSummary> {
    let mut out = Vec::new();
    for category in Category::ALL {
        let mut groups: Vec<Tally> = Vec::new();
        let mut all = Tally { group: "all".into(), ..Tally::default() };
        for r in rows.iter().filter(|r| r.pair.category == category) {
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
        if all.pairs > 0 {
            out.push(FseSummary { category, groups, all });
        }
    }
    out
}

/// The order tables and merged shards keep: category, then each file's own order.
pub fn sort(rows: &mut [FseRow]) {
    rows.sort_by(|a, b| {
        (a.pair.category, &a.pair.source, a.pair.no).cmp(&(b.pair.category, &b.pair.source, b.pair.no))
    });
}
