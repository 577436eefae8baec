//! The VMCAI 2022 tables A.1 and A.2 reproduced from the SmartApps' source: read
//! the paper's per-pair figures ([`read_pairs`]), load each pair of apps as one system and run
//! `full` and `stateful-dpor` on it with the `compare` machinery ([`run_pair`]), giving one
//! [`Row`] per pair that [`table`] renders and shards write as JSON lines.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::check::{self, Check, CheckError};
use crate::explore::{Limits, SearchOptions};
use crate::model::{self, LoadOptions, Loaded, Model};
use crate::report::RunReport;

pub mod fse;
pub mod homes;
pub mod table;

/// The strategies of the tables: the paper's "without DPOR" and "with DPOR".
pub const STRATEGIES: [&str; 2] = ["full", "stateful-dpor"];

/// One search of the paper: `None` where the table says `Unf` (did not finish in 2 h).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PaperRun {
    pub states: Option<u64>,
    pub transitions: Option<u64>,
    pub time_s: Option<f64>,
}

/// One row of the paper's TSV.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// `A.1` or `A.2`.
    pub table: String,
    /// The row's number in its table.
    pub no: u32,
    /// `APP1–APP2`, as the paper names it.
    pub pair: String,
    pub apps: [String; 2],
    pub events: Option<u64>,
    pub nodpor: PaperRun,
    pub dpor: PaperRun,
}

impl Pair {
    /// The key `--shard` hashes: the same on every machine, whatever the file's location.
    pub fn key(&self) -> String {
        format!("{} {} {}", self.table, self.no, self.pair)
    }

    /// The two `.groovy` files under `dir`.
    pub fn files(&self, dir: &Path) -> Vec<PathBuf> {
        self.apps.iter().map(|a| dir.join(format!("{a}.groovy"))).collect()
    }

    pub fn states_reduction(&self) -> Option<f64> {
        ratio(self.nodpor.states, self.dpor.states)
    }

    pub fn transitions_reduction(&self) -> Option<f64> {
        ratio(self.nodpor.transitions, self.dpor.transitions)
    }
}

fn ratio(full: Option<u64>, reduced: Option<u64>) -> Option<f64> {
    match (full, reduced) {
        (Some(a), Some(b)) if b > 0 => Some(a as f64 / b as f64),
        _ => None,
    }
}

/// The pairs of either TSV `corpus` reads.
pub enum Table {
    /// The VMCAI 2022 tables A.1 and A.2.
    Vmcai(Vec<Pair>),
    /// IoTCheck's FSE 2020 pairs (either of its TSVs).
    Fse(Vec<fse::FsePair>),
}

/// Reads a TSV, told by its header: the VMCAI tables or IoTCheck's FSE 2020 pairs.
pub fn read_table(path: &Path) -> Result<Table, CheckError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| CheckError(format!("{}: cannot read: {e}", path.display())))?;
    let table = if fse::is_fse(&text) {
        let source = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        fse::parse_pairs(&text).map(|mut ps| {
            ps.iter_mut().for_each(|p| p.source = source.clone());
            Table::Fse(ps)
        })
    } else {
        parse_pairs(&text).map(Table::Vmcai)
    };
    table.map_err(|e| CheckError(format!("{}: {e}", path.display())))
}

/// The per-run state budget of `corpus` when no limit is given: enough for every search of
/// Table A.2 and every `stateful-dpor` search of A.1 to finish (at most 3,807 states), while
/// `full` on A.1, which no machine finishes, stops after a few seconds instead of filling memory.
pub const DEFAULT_MAX_STATES: u64 = 50_000;

/// Reads the paper's TSV: `#` comments, a header naming the columns, one pair per line.
pub fn read_pairs(path: &Path) -> Result<Vec<Pair>, CheckError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| CheckError(format!("{}: cannot read: {e}", path.display())))?;
    parse_pairs(&text).map_err(|e| CheckError(format!("{}: {e}", path.display())))
}

/// One data line of a TSV: its line number (from 1) and cells, read by the header's names.
pub(crate) struct TsvLine<'t> {
    pub no: usize,
    header: std::rc::Rc<Vec<&'t str>>,
    cells: Vec<&'t str>,
}

impl<'t> TsvLine<'t> {
    /// The cell of column `name`, trimmed (empty when the line is short).
    pub fn at(&self, name: &str) -> Result<&'t str, String> {
        let k =
            self.header.iter().position(|c| *c == name).ok_or_else(|| format!("no column `{name}` in the header"))?;
        Ok(self.cells.get(k).copied().unwrap_or("").trim())
    }

    pub fn has(&self, name: &str) -> bool {
        self.header.contains(&name)
    }
}

/// The data lines of a TSV: `#` comments and blank lines skipped, the first other line the
/// header.
pub(crate) fn tsv_lines(text: &str) -> Result<Vec<TsvLine<'_>>, String> {
    let mut header = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split('\t').collect();
        match &header {
            None => header = Some(std::rc::Rc::new(cells)),
            Some(h) => out.push(TsvLine { no: i + 1, header: h.clone(), cells }),
        }
    }
    if header.is_none() {
        return Err("no header line".into());
    }
    Ok(out)
}

/// [`read_pairs`] on text already read.
pub fn parse_pairs(text: &str) -> Result<Vec<Pair>, String> {
    let mut pairs = Vec::new();
    for line in tsv_lines(text)? {
        let at = |name: &str| line.at(name);
        let line_no = line.no;
        let count = |name: &str| -> Result<Option<u64>, String> {
            let c = at(name)?;
            if c == "Unf" || c.is_empty() {
                return Ok(None);
            }
            c.replace(',', "").parse().map(Some).map_err(|_| format!("line {line_no}: `{name}` is `{c}`, not a number"))
        };
        let secs = |name: &str| -> Result<Option<f64>, String> {
            let c = at(name)?;
            if c == "Unf" || c.is_empty() {
                return Ok(None);
            }
            c.parse().map(Some).map_err(|_| format!("line {line_no}: `{name}` is `{c}`, not seconds"))
        };
        let pair = at("pair")?.to_string();
        // The paper joins the two apps with an en dash; app names hold hyphens.
        let Some((a, b)) = pair.split_once('\u{2013}') else {
            return Err(format!("line {line_no}: pair `{pair}` is not APP1\u{2013}APP2"));
        };
        pairs.push(Pair {
            table: at("table")?.to_string(),
            no: at("no")?.parse().map_err(|_| format!("line {line_no}: `no` is not a number"))?,
            apps: [a.trim().to_string(), b.trim().to_string()],
            pair,
            events: count("events")?,
            nodpor: PaperRun {
                states: count("states_nodpor")?,
                transitions: count("transitions_nodpor")?,
                time_s: secs("time_nodpor")?,
            },
            dpor: PaperRun {
                states: count("states_dpor")?,
                transitions: count("transitions_dpor")?,
                time_s: secs("time_dpor")?,
            },
        });
    }
    Ok(pairs)
}

/// The pairs a run takes: those of `table` (all when None), the first `limit` of them, then
/// share `shard` of those (so the shards of one limited run split the same set).
pub fn select(pairs: Vec<Pair>, table: Option<&str>, limit: Option<usize>, shard: Option<check::Shard>) -> Vec<Pair> {
    let mut out: Vec<Pair> = pairs.into_iter().filter(|p| table.is_none_or(|t| p.table == t)).collect();
    if let Some(n) = limit {
        out.truncate(n);
    }
    if let Some(s) = shard {
        out.retain(|p| s.contains(Path::new(&p.key())));
    }
    out
}

/// One of our searches of a pair, reduced to what the tables show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub strategy: String,
    pub finished: bool,
    pub states: Option<u64>,
    pub transitions: u64,
    pub executions: u64,
    pub time_s: f64,
    pub outcomes: usize,
    pub errors: usize,
    pub stopped_by: Option<String>,
}

impl From<&RunReport> for Side {
    fn from(r: &RunReport) -> Self {
        Side {
            strategy: r.strategy.clone(),
            finished: r.finished,
            states: r.states,
            transitions: r.transitions,
            executions: r.executions,
            time_s: r.time_s,
            outcomes: r.outcomes,
            errors: r.errors.len(),
            stopped_by: r.stopped_by.map(|s| s.code().to_string()),
        }
    }
}

/// One pair: the paper's figures and ours, or why ours are missing. A JSON line of `--jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    #[serde(flatten)]
    pub pair: Pair,
    /// Events of our model of the pair (the paper's are in `pair.events`).
    pub our_events: Option<u64>,
    pub full: Option<Side>,
    pub stateful: Option<Side>,
    /// Did both searches reach the same outcomes and errors (None: not both finished).
    pub agree: Option<bool>,
    /// full / stateful-dpor, when both finished.
    pub states_reduction: Option<f64>,
    pub transitions_reduction: Option<f64>,
    pub paper_states_reduction: Option<f64>,
    pub paper_transitions_reduction: Option<f64>,
    /// Why the pair did not run (first line of the load error).
    pub error: Option<String>,
}

impl Row {
    fn new(pair: Pair) -> Row {
        Row {
            paper_states_reduction: pair.states_reduction(),
            paper_transitions_reduction: pair.transitions_reduction(),
            pair,
            our_events: None,
            full: None,
            stateful: None,
            agree: None,
            states_reduction: None,
            transitions_reduction: None,
            error: None,
        }
    }

    /// Both of our searches finished.
    pub fn ours_finished(&self) -> bool {
        self.full.as_ref().is_some_and(|s| s.finished) && self.stateful.as_ref().is_some_and(|s| s.finished)
    }

    /// Both of the paper's searches finished.
    pub fn paper_finished(&self) -> bool {
        self.paper_states_reduction.is_some() && self.paper_transitions_reduction.is_some()
    }
}

/// How each pair is run.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub smartapps: PathBuf,
    pub limits: Limits,
    pub load: LoadOptions,
    pub cancel: Option<Arc<AtomicBool>>,
}

/// Loads `pair` from `settings.smartapps` and runs both strategies with the per-run limits.
/// A pair that does not load is a row with `error` set.
pub fn run_pair(pair: Pair, settings: &Settings) -> Row {
    let mut row = Row::new(pair);
    let files = row.pair.files(&settings.smartapps);
    // The paper's runs: one value per input (IoTCheck's configuration).
    let m = match load_pair(&files, LoadOptions { fixed_inputs: true, ..settings.load }) {
        Ok(m) => m,
        Err(e) => {
            row.error = Some(e);
            return row;
        }
    };
    row.our_events = m.stats().get("events").copied();
    let name = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" + ");
    let runs = match compare(&m, &name, settings) {
        Ok(r) => r,
        Err(e) => {
            row.error = Some(e.0);
            return row;
        }
    };
    row.agree = check::verdict(&m, &runs).agree();
    let [full, stateful] = [&runs[0], &runs[1]].map(Side::from);
    if full.finished && stateful.finished {
        row.states_reduction = ratio(full.states, stateful.states);
        row.transitions_reduction = ratio(Some(full.transitions), Some(stateful.transitions));
    }
    row.full = Some(full);
    row.stateful = Some(stateful);
    row
}

/// The two apps of a pair as one system, or the first line of why they do not load.
pub(crate) fn load_pair(files: &[PathBuf], load: LoadOptions) -> Result<crate::model::smartapp::SmartAppModel, String> {
    match model::load_all(files, load) {
        Ok(Loaded::SmartApps(m)) => Ok(m),
        Ok(other) => Err(format!("not SmartApps but {}", crate::with_model!(&other, m => m.kind()))),
        Err(e) => Err(e.to_string().lines().next().unwrap_or("").to_string()),
    }
}

/// The runs `compare --strategies full,stateful-dpor` makes, without progress bars.
fn compare<M: crate::explore::registry::Registered>(
    m: &M,
    name: &str,
    settings: &Settings,
) -> Result<Vec<RunReport>, CheckError> {
    let names: Vec<String> = STRATEGIES.iter().map(|s| s.to_string()).collect();
    let mut runs = Vec::new();
    for entry in check::compare_set(m, Some(&names))? {
        let mut run = Check::new(m)
            .strategy(entry.name)?
            .file(name)
            .limits(settings.limits.clone())
            .options(SearchOptions { outcome_schedules: false, ..SearchOptions::default() });
        if let Some(flag) = &settings.cancel {
            run = run.cancel(flag.clone());
        }
        runs.push(run.run());
    }
    Ok(runs)
}

/// Reads the JSON lines of shard files into one table in the paper's order; a pair found in
/// two files is an error (two shards of different splits, or a file given twice).
pub fn merge(files: &[PathBuf]) -> Result<Vec<Row>, CheckError> {
    let mut rows: Vec<Row> = merge_rows(files, |r: &Row| r.pair.key())?;
    rows.sort_by(|a, b| (&a.pair.table, a.pair.no).cmp(&(&b.pair.table, b.pair.no)));
    Ok(rows)
}

/// The merged rows of shard files: the VMCAI tables' or IoTCheck's, told by their keys.
pub enum Merged {
    Vmcai(Vec<Row>),
    Fse(Vec<fse::FseRow>),
    Homes(Vec<homes::HomeRow>),
}

/// [`merge`] for either table: the first row read says which one the files hold.
pub fn merge_any(files: &[PathBuf]) -> Result<Merged, CheckError> {
    let mut first = None;
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| CheckError(format!("{}: cannot read: {e}", f.display())))?;
        if let Some(line) = text.lines().find(|l| !l.trim().is_empty()) {
            first = serde_json::from_str::<serde_json::Value>(line).ok();
            break;
        }
    }
    if first.as_ref().is_some_and(homes::is_home_row) {
        let mut rows: Vec<homes::HomeRow> = merge_rows(files, |r: &homes::HomeRow| r.home.home.clone())?;
        rows.sort_by(|a, b| a.home.home.cmp(&b.home.home));
        return Ok(Merged::Homes(rows));
    }
    if first.is_some_and(|v| v.get("iotcheck").is_some()) {
        let mut rows: Vec<fse::FseRow> = merge_rows(files, |r: &fse::FseRow| r.pair.key())?;
        fse::sort(&mut rows);
        Ok(Merged::Fse(rows))
    } else {
        merge(files).map(Merged::Vmcai)
    }
}

/// Every row of the JSON-lines `files`; a row whose `key` was already read is an error.
fn merge_rows<R: serde::de::DeserializeOwned>(
    files: &[PathBuf],
    key: impl Fn(&R) -> String,
) -> Result<Vec<R>, CheckError> {
    let mut rows = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| CheckError(format!("{}: cannot read: {e}", f.display())))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: R = serde_json::from_str(line)
                .map_err(|e| CheckError(format!("{}:{}: not a corpus row: {e}", f.display(), i + 1)))?;
            if let Some(first) = seen.insert(key(&row), format!("{}:{}", f.display(), i + 1)) {
                return Err(CheckError(format!("{}:{}: pair {} is also at {first}", f.display(), i + 1, key(&row))));
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Geometric means of the reductions over the pairs that finished both ways, ours and the
/// paper's: the only pairs where both ratios are measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub pairs: usize,
    pub loaded: usize,
    pub ours_finished: usize,
    pub paper_finished: usize,
    /// Pairs where ours and the paper's both finished: the geometric means are over these.
    pub both_finished: usize,
    pub states_reduction: Option<f64>,
    pub transitions_reduction: Option<f64>,
    pub paper_states_reduction: Option<f64>,
    pub paper_transitions_reduction: Option<f64>,
}

/// The geometric mean of `xs`; `None` when there are none.
pub fn geomean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = xs.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x.ln()));
    (n > 0).then(|| (sum / n as f64).exp())
}

pub fn summary(rows: &[Row]) -> Summary {
    let both: Vec<&Row> = rows.iter().filter(|r| r.ours_finished() && r.paper_finished()).collect();
    let mean = |f: fn(&Row) -> Option<f64>| geomean(both.iter().filter_map(|r| f(r)));
    Summary {
        pairs: rows.len(),
        loaded: rows.iter().filter(|r| r.error.is_none()).count(),
        ours_finished: rows.iter().filter(|r| r.ours_finished()).count(),
        paper_finished: rows.iter().filter(|r| r.paper_finished()).count(),
        both_finished: both.len(),
        states_reduction: mean(|r| r.states_reduction),
        transitions_reduction: mean(|r| r.transitions_reduction),
        paper_states_reduction: mean(|r| r.paper_states_reduction),
        paper_transitions_reduction: mean(|r| r.paper_transitions_reduction),
    }
}
