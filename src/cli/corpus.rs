//! `corpus` (the VMCAI 2022 tables A.1/A.2 reproduced pair by pair) and `corpus-merge` (the
//! rows of its shards, merged).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::args::{CorpusRun, TableFiles};
use super::files::write;
use super::{cancel_flag, Fail};
use crate::explore::Limits;
use crate::model::LoadOptions;
use crate::report;

/// `corpus`: each pair's row printed (and written to `jsonl`) as soon as it finishes, so that a
/// long or killed run keeps what it did.
#[allow(clippy::too_many_arguments)]
pub fn corpus(
    pairs: &Path,
    smartapps: Option<PathBuf>,
    table: Option<String>,
    limit: Option<usize>,
    shard: Option<String>,
    jsonl: Option<&Path>,
    out: &TableFiles,
    run: &CorpusRun,
) -> Result<i32, Fail> {
    use crate::corpus;
    use std::io::Write;
    let shard = shard.as_deref().map(crate::check::Shard::parse).transpose()?;
    if let Some(t) = &table {
        if t != "A.1" && t != "A.2" {
            return Err(Fail(format!("--table: expected A.1 or A.2, got `{t}`")));
        }
    }
    let all = corpus::read_pairs(pairs)?;
    let selected = corpus::select(all, table.as_deref(), limit, shard);
    // The shared layout: reference/X.tsv beside smartthings/smartapps/.
    let smartapps = smartapps
        .unwrap_or_else(|| pairs.parent().unwrap_or(Path::new(".")).join("..").join("smartthings").join("smartapps"));
    if !smartapps.is_dir() {
        return Err(Fail(format!("{}: no such folder of SmartApps (give --smartapps DIR)", smartapps.display())));
    }
    super::bound_inputs(run.max_memory);
    let settings = corpus::Settings {
        smartapps,
        limits: Limits {
            time: run.time_limit.map(Duration::from_secs_f64),
            // As `check`: without --max-memory, half of the machine's memory.
            max_memory_bytes: run
                .max_memory
                .map(|mb| mb.saturating_mul(1 << 20))
                .or_else(crate::alloc::default_limit_bytes),
            ..Limits::default()
        },
        load: LoadOptions { bound: run.bound, conflicts: run.conflicts },
        cancel: Some(cancel_flag()),
    };
    let mut sink = match jsonl {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| Fail(format!("{}: cannot write: {e}", p.display())))?),
        None => None,
    };
    let stdout = std::io::stdout();
    print!("{}", report::corpus::text_header());
    stdout.lock().flush()?;
    let mut rows = Vec::new();
    for pair in selected {
        // Ctrl-C: the pair under way ends with partial figures; no new one starts.
        if cancel_flag().load(Ordering::SeqCst) {
            break;
        }
        let row = corpus::run_pair(pair, &settings);
        print!("{}", report::corpus::text_row(&row));
        stdout.lock().flush()?;
        if let Some(f) = &mut sink {
            writeln!(f, "{}", serde_json::to_string(&row)?)?;
            f.flush()?;
        }
        rows.push(row);
    }
    print!("{}", report::corpus::text_summary(&corpus::summary(&rows)));
    out.write(&rows)?;
    Ok(0)
}

/// `corpus-merge`: the rows of the shards' `--jsonl` files as one table (or as JSON lines).
pub fn merge(shards: &[PathBuf], out: &TableFiles, jsonl: bool) -> Result<i32, Fail> {
    let rows = crate::corpus::merge(shards)?;
    out.write(&rows)?;
    if jsonl {
        for r in &rows {
            println!("{}", serde_json::to_string(r)?);
        }
    } else {
        print!("{}", report::corpus::render(&rows));
    }
    Ok(0)
}

impl TableFiles {
    /// Writes the table in each format asked for.
    pub fn write(&self, rows: &[crate::corpus::Row]) -> Result<(), Fail> {
        use crate::report::corpus as r;
        for (path, render) in
            [(&self.csv, r::csv as fn(&[_]) -> String), (&self.markdown, r::markdown), (&self.svg, r::svg)]
        {
            if let Some(p) = path {
                write(p, &render(rows))?;
            }
        }
        Ok(())
    }
}
