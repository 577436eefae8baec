//! `corpus` (the VMCAI 2022 tables A.1/A.2 reproduced pair by pair) and `corpus-merge` (the
//! rows of its shards, merged).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::args::{CorpusRun, TableFiles};
use super::files::write;
use super::{cancel_flag, Fail};
use crate::corpus::table;
use crate::explore::Limits;
use crate::model::LoadOptions;

/// What `corpus` takes for pairs and homes alike: which rows (`--table`, `--limit`, `--shard`),
/// where they go (`--jsonl`, the table files) and the limits of each run.
pub struct Rows<'a> {
    pub table: Option<String>,
    pub limit: Option<usize>,
    pub shard: Option<String>,
    pub jsonl: Option<&'a Path>,
    pub out: &'a TableFiles,
    pub run: &'a CorpusRun,
}

/// `corpus`: each pair's row printed (and written to `jsonl`) as soon as it finishes, so that a
/// long or killed run keeps what it did. Exit 3 when Ctrl-C ended it early.
pub fn corpus(pairs: &Path, smartapps: Option<PathBuf>, rows: Rows) -> Result<i32, Fail> {
    use crate::corpus::{self, fse, Table};
    let Rows { table, limit, shard, jsonl, out, run } = rows;
    let shard = shard.as_deref().map(crate::check::Shard::parse).transpose()?;
    let all = corpus::read_table(pairs)?;
    match (&all, &table) {
        (Table::Vmcai(_), Some(t)) if t != "A.1" && t != "A.2" => {
            return Err(Fail(format!("--table: expected A.1 or A.2, got `{t}`")))
        }
        (Table::Fse(ps), Some(g)) if !ps.iter().any(|p| &p.group == g) => {
            let mut groups: Vec<&str> = ps.iter().map(|p| p.group.as_str()).collect();
            groups.dedup();
            return Err(Fail(format!(
                "--table: no group `{g}` in {} (groups: {})",
                pairs.display(),
                groups.join(", ")
            )));
        }
        // IoTCheck's pairs always check its conflicts; the VMCAI tables only with --conflicts.
        (Table::Vmcai(_), _) if run.conflict_mode.is_some() && !run.conflicts => {
            return Err(Fail("--conflict-mode applies with --conflicts only".into()))
        }
        (Table::Fse(_), _) if out.svg.is_some() => {
            return Err(Fail("--svg draws the VMCAI tables' reductions; IoTCheck's pairs have none".into()))
        }
        _ => {}
    }
    out.check()?;
    // The shared layout: reference/X.tsv beside smartthings/smartapps/.
    let smartapps = smartapps
        .unwrap_or_else(|| pairs.parent().unwrap_or(Path::new(".")).join("..").join("smartthings").join("smartapps"));
    if !smartapps.is_dir() {
        return Err(Fail(format!("{}: no such folder of SmartApps (give --smartapps DIR)", smartapps.display())));
    }
    super::bound_inputs(run.max_memory);
    let settings = corpus::Settings { smartapps, ..settings(run) };
    match all {
        Table::Vmcai(all) => {
            let selected = corpus::select(all, table.as_deref(), limit, shard);
            let rows = stream_rows(
                selected,
                |p| corpus::run_pair(p, &settings),
                table::text_header(),
                table::text_row,
                jsonl,
            )?;
            print!("{}", table::text_summary(&corpus::summary(&rows)));
            out.write(&rows)?;
        }
        Table::Fse(all) => {
            let selected = fse::select(all, table.as_deref(), limit, shard);
            let (head, row) = (table::fse::text_header(), table::fse::text_row);
            let rows = stream_rows(selected, |p| fse::run_pair(p, &settings, None), head, row, jsonl)?;
            print!("{}", table::fse::text_summary(&fse::summary(&rows)));
            out.write_fse(&rows)?;
        }
    }
    Ok(if cancel_flag().load(Ordering::SeqCst) { 3 } else { 0 })
}

/// The limits of each run: `--time-limit`, `--max-memory` (default: half of the machine's), and
/// without a time limit a state budget, so that every run ends (docs/corpus.md).
fn run_limits(run: &CorpusRun) -> Limits {
    Limits {
        time: run.time_limit.map(Duration::from_secs_f64),
        max_states: run.max_states.or((run.time_limit.is_none()).then_some(crate::corpus::DEFAULT_MAX_STATES)),
        max_memory_bytes: run
            .max_memory
            .map(|mb| mb.saturating_mul(1 << 20))
            .or_else(crate::alloc::default_limit_bytes),
        ..Limits::default()
    }
}

/// The settings every pair or home runs with (no apps folder yet).
fn settings(run: &CorpusRun) -> crate::corpus::Settings {
    crate::corpus::Settings {
        smartapps: PathBuf::new(),
        limits: run_limits(run),
        load: LoadOptions {
            bound: run.bound,
            conflicts: run.conflicts,
            keep_dead_state: run.keep_dead_state,
            // Over pairs a conflict ends its path unless asked (a pair's verdict, the paper's
            // runs); `homes` below observes.
            conflict_mode: run.conflict_mode.unwrap_or(crate::model::ConflictMode::End),
            conflicts_on: None,
            properties: Default::default(),
            routines_keep_mode: false,
            // The VMCAI tables' pairs always keep one value per input (corpus.rs); the FSE
            // study's pairs and the homes vary them.
            fixed_inputs: false,
            physical: run.physical,
        },
        cancel: Some(cancel_flag()),
    }
}

/// What `corpus --homes` takes besides the pairs' options.
pub struct HomesArgs<'a> {
    pub homes: &'a [PathBuf],
    pub pairwise: bool,
    pub smartapps: Option<PathBuf>,
}

/// `corpus --homes`: each app list under `homes` checked whole, a row printed (and written to
/// `jsonl`) as each finishes. Exit 3 when Ctrl-C ended it early.
pub fn homes(args: HomesArgs, rows: Rows) -> Result<i32, Fail> {
    use crate::corpus::homes as h;
    let Rows { table, limit, shard, jsonl, out, run } = rows;
    let HomesArgs { homes, pairwise, smartapps } = args;
    if table.is_some() {
        return Err(Fail("--table selects pairs of a TSV; --homes takes every list given".into()));
    }
    if out.svg.is_some() {
        return Err(Fail("--svg draws the VMCAI tables' reductions; homes have none".into()));
    }
    if let Some(d) = smartapps.as_deref().filter(|d| !d.is_dir()) {
        return Err(Fail(format!("{}: no such folder of SmartApps", d.display())));
    }
    let shard = shard.as_deref().map(crate::check::Shard::parse).transpose()?;
    let selected = h::select(h::homes(homes)?, limit, shard);
    super::bound_inputs(run.max_memory);
    let mut settings = settings(run);
    // A home's findings (and its pairs' under --pairwise): every conflict, each path going on.
    settings.load.conflict_mode = run.conflict_mode.unwrap_or(crate::model::ConflictMode::Observe);
    let (head, row) = (table::homes::text_header(), table::homes::text_row);
    let rows =
        stream_rows(selected, |home| h::run_home(home, &settings, smartapps.as_deref(), pairwise), head, row, jsonl)?;
    print!("{}", table::homes::text_summary(&h::summary(&rows)));
    out.write_homes(&rows)?;
    Ok(if cancel_flag().load(Ordering::SeqCst) { 3 } else { 0 })
}

/// Runs each pair, printing its row (and writing it to `jsonl`) as soon as it is done; after
/// Ctrl-C the pair under way ends with partial figures and no other starts.
fn stream_rows<P, R: serde::Serialize>(
    pairs: Vec<P>,
    run: impl Fn(P) -> R,
    header: String,
    text_row: fn(&R) -> String,
    jsonl: Option<&Path>,
) -> Result<Vec<R>, Fail> {
    use std::io::Write;
    let mut sink = match jsonl {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| Fail(format!("{}: cannot write: {e}", p.display())))?),
        None => None,
    };
    let stdout = std::io::stdout();
    print!("{header}");
    stdout.lock().flush()?;
    let mut rows = Vec::new();
    for pair in pairs {
        if cancel_flag().load(Ordering::SeqCst) {
            break;
        }
        let row = run(pair);
        print!("{}", text_row(&row));
        stdout.lock().flush()?;
        if let Some(f) = &mut sink {
            writeln!(f, "{}", serde_json::to_string(&row)?)?;
            f.flush()?;
        }
        rows.push(row);
    }
    Ok(rows)
}

/// `corpus-merge`: the rows of the shards' `--jsonl` files as one table (or as JSON lines).
pub fn merge(shards: &[PathBuf], out: &TableFiles, jsonl: bool) -> Result<i32, Fail> {
    out.check()?;
    match crate::corpus::merge_any(shards)? {
        crate::corpus::Merged::Vmcai(rows) => {
            out.write(&rows)?;
            print_merged(&rows, jsonl, table::render)?;
        }
        crate::corpus::Merged::Fse(rows) => {
            if out.svg.is_some() {
                return Err(Fail("--svg draws the VMCAI tables' reductions; IoTCheck's pairs have none".into()));
            }
            out.write_fse(&rows)?;
            print_merged(&rows, jsonl, table::fse::render)?;
        }
        crate::corpus::Merged::Homes(rows) => {
            if out.svg.is_some() {
                return Err(Fail("--svg draws the VMCAI tables' reductions; homes have none".into()));
            }
            out.write_homes(&rows)?;
            print_merged(&rows, jsonl, table::homes::render)?;
        }
    }
    Ok(0)
}

/// `corpus-merge`'s output: the rows as JSON lines, or the text table.
fn print_merged<R: serde::Serialize>(rows: &[R], jsonl: bool, render: fn(&[R]) -> String) -> Result<(), Fail> {
    if jsonl {
        for r in rows {
            println!("{}", serde_json::to_string(r)?);
        }
    } else {
        print!("{}", render(rows));
    }
    Ok(())
}

impl TableFiles {
    /// Refuses, before any pair runs, two outputs to one file or one that cannot be written.
    fn check(&self) -> Result<(), Fail> {
        crate::validate::distinct_outputs(&[
            ("--csv", self.csv.as_deref()),
            ("--markdown", self.markdown.as_deref()),
            ("--svg", self.svg.as_deref()),
            ("--html", self.html.as_deref()),
        ])?;
        for p in [&self.csv, &self.markdown, &self.svg, &self.html].into_iter().flatten() {
            super::files::writable(p)?;
        }
        Ok(())
    }

    /// Writes the table in each format asked for.
    pub fn write(&self, rows: &[crate::corpus::Row]) -> Result<(), Fail> {
        use crate::corpus::table as r;
        for (path, render) in [
            (&self.csv, r::csv as fn(&[_]) -> String),
            (&self.markdown, r::markdown),
            (&self.svg, r::svg),
            (&self.html, r::html_page),
        ] {
            if let Some(p) = path {
                write(p, &render(rows))?;
            }
        }
        Ok(())
    }

    /// The homes' table as CSV and Markdown.
    fn write_homes(&self, rows: &[crate::corpus::homes::HomeRow]) -> Result<(), Fail> {
        use crate::corpus::table::homes as r;
        for (path, render) in [(&self.csv, r::csv as fn(&[_]) -> String), (&self.markdown, r::markdown)] {
            if let Some(p) = path {
                write(p, &render(rows))?;
            }
        }
        Ok(())
    }

    /// The FSE 2020 table's CSV and Markdown (it has no reductions to draw).
    fn write_fse(&self, rows: &[crate::corpus::fse::FseRow]) -> Result<(), Fail> {
        use crate::corpus::table::fse as r;
        for (path, render) in
            [(&self.csv, r::csv as fn(&[_]) -> String), (&self.markdown, r::markdown), (&self.html, r::html_page)]
        {
            if let Some(p) = path {
                write(p, &render(rows))?;
            }
        }
        Ok(())
    }
}
