//! `compare`: several strategies on one or many inputs, side by side, with the verdict of
//! whether their outcome sets agree with an exhaustive run's.

use std::path::{Path, PathBuf};

use super::check::run_one;
use super::files::{is_stdout, writable, writable_dir, write, write_outcomes};
use super::{joined, tool_json, Common, Fail};
use crate::explore::registry::{self, Registered};
use crate::explore::SearchOptions;
use crate::model;
use crate::report::{self, compare::InputRuns, compare::NotCompared, RunReport};
use crate::with_model;

/// Where `compare` also writes its table.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    pub csv: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub svg: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// `compare`: the strategies (default: compare's set) on each input of `files`, one table each.
pub fn compare(
    files: &[PathBuf],
    strategies: Option<&[String]>,
    out: &Outputs,
    shard: Option<&str>,
    common: &Common,
) -> Result<i32, Fail> {
    // Limits that make a compare with no options end (compare --help).
    let mut common = common.clone();
    if common.time_limit.is_none() && common.max_states.is_none() {
        common.time_limit = Some(crate::check::COMPARE_DEFAULT_TIME_S);
    }
    let half = crate::alloc::default_limit_bytes().map_or(u64::MAX, |b| b >> 20);
    common.max_memory = common.max_memory.or(Some(crate::check::COMPARE_DEFAULT_MAX_MEMORY_MIB.min(half)));
    let common = &common;
    super::bound_inputs(common.max_memory);
    let mut inputs = crate::check::expand_inputs(files)?;
    if let Some(shard) = shard {
        let shard = crate::check::Shard::parse(shard)?;
        inputs.retain(|f| shard.contains(f));
    }
    // Output paths first: a typo must not cost a long search.
    crate::validate::distinct_outputs(&[
        ("--csv", out.csv.as_deref()),
        ("--markdown", out.markdown.as_deref()),
        ("--svg", out.svg.as_deref()),
        ("--html", out.html.as_deref()),
        ("--outcomes", common.outcomes.as_deref()),
    ])?;
    for p in [&out.csv, &out.markdown, &out.svg, &out.html].into_iter().flatten() {
        writable(p)?;
    }
    if let Some(p) = common.outcomes.as_deref().filter(|p| !is_stdout(p)) {
        writable_dir(p)?;
    }
    // SmartApps given as files are one system, compared as one input.
    let groups: Vec<Vec<PathBuf>> = if files.iter().all(|f| f.extension().is_some_and(|x| x == "groovy")) {
        vec![files.to_vec()]
    } else {
        inputs.iter().map(|f| vec![f.clone()]).collect()
    };
    // Each input's kind told once, for the option checks and the loading both.
    let groups = crate::check::detected(groups);
    super::refuse_ignored(&groups, &common.load_options(), &super::Given::of(common))?;
    // A misspelt strategy is a usage error for every input: refused before any search.
    for name in strategies.into_iter().flatten() {
        if registry::lookup(name).is_none() {
            return Err(Fail(format!("unknown strategy `{name}` (known: {})", registry::NAMES.join(", "))));
        }
    }
    let many = groups.len() > 1;
    // Over many inputs each one's table is printed as it finishes, and an input that
    // does not load is a line saying why; the others still run.
    let stream = many && !common.json && !common.quiet;
    let (mut all, mut failed, mut figures) = (Vec::new(), Vec::new(), Vec::new());
    let inputs = groups.len();
    for (group, input) in groups {
        let file = &joined(&group);
        // An input that does not load, or that a strategy asked for does not apply to,
        // is a row of its own; over one input it is the whole answer (exit 2).
        let mut not_compared = |e: String| -> Result<(), Fail> {
            if !many {
                return Err(Fail(e));
            }
            if stream {
                println!("{}: not compared: {e}\n", file.display());
            }
            failed.push(NotCompared { file: file.display().to_string(), error: e });
            Ok(())
        };
        let loaded = match input.and_then(|i| model::load_input(i, common.load_options())) {
            Ok(l) => l,
            Err(e) => {
                not_compared(e.to_string())?;
                continue;
            }
        };
        let runs = match with_model!(&loaded, m => compare_model(m, file, strategies, many, common)) {
            Ok(runs) => runs,
            Err(Fail(e)) => {
                not_compared(e)?;
                continue;
            }
        };
        let verdict = with_model!(&loaded, m => crate::check::verdict(m, &runs));
        // Drawn while the model is at hand (a diagram replays its schedule).
        if out.html.is_some() {
            figures.push(with_model!(&loaded, m => report::html::compare_figures(m, &runs, &verdict)));
        }
        let input = InputRuns { runs, verdict };
        if stream {
            println!("{}", report::compare::render(std::slice::from_ref(&input)));
        }
        all.push(input);
    }
    if let Some(p) = &out.csv {
        write(p, &report::compare::csv(&all, &failed))?;
    }
    if let Some(p) = &out.markdown {
        write(p, &report::compare::markdown(&all, &failed))?;
    }
    if let Some(p) = &out.svg {
        write(p, &report::compare::svg(&all))?;
    }
    if let Some(p) = &out.html {
        write(p, &report::html::compare_page(&all, &figures, &failed))?;
    }
    if common.json {
        let mut docs: Vec<_> = all.iter().map(|i| i.verdict().json(&i.runs)).collect();
        docs.extend(failed.iter().map(|f| serde_json::json!(f)));
        let mut doc = if docs.len() == 1 && !many {
            docs.into_iter().next().unwrap()
        } else {
            serde_json::json!({ "inputs": docs })
        };
        doc["tool"] = tool_json();
        doc["options"] = common.options_json(None);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if stream {
        println!("{} of {inputs} inputs compared", all.len());
    } else if !common.quiet {
        print!("{}", report::compare::render(&all));
    }
    // A disagreement is a bug in a strategy, not in the program checked: its own code.
    let disagree = all.iter().any(|i| i.consistent() == Some(false));
    let worst = all.iter().flat_map(|i| &i.runs).map(RunReport::exit_code).max().unwrap_or(0);
    Ok(if disagree {
        4
    } else if !failed.is_empty() {
        2
    } else {
        worst
    })
}

/// Runs the strategies `names` (or compare's default set) on one loaded model, writing each
/// one's outcomes when `--outcomes` asks.
fn compare_model<M: Registered>(
    m: &M,
    file: &Path,
    names: Option<&[String]>,
    many: bool,
    common: &Common,
) -> Result<Vec<RunReport>, Fail> {
    let mut runs = Vec::new();
    let entries = crate::check::compare_set(m, names)?;
    crate::check::check_search_options(m.kind(), &entries, &common.search_options())?;
    for entry in entries {
        // Every outcome keeps a schedule, so that one a reduction missed can be shown.
        // Strategies are compared on what they all look for: not `monitors`' pair conflicts.
        let options = SearchOptions {
            outcome_schedules: true,
            no_pair_conflicts: true,
            threads: common.threads_for(entry),
            ..common.search_options()
        };
        let report = run_one(m, file, entry, common, options, None, false)?;
        if let Some(path) = &common.outcomes {
            // PATH.<strategy>; over many inputs PATH.<input>.<strategy>, the input's path with
            // its separators made `_`, so that no two inputs share a file.
            let suffix = if many {
                format!(".{}.{}", file.display().to_string().replace(['/', '\\'], "_"), entry.name)
            } else {
                format!(".{}", entry.name)
            };
            write_outcomes(path, Some((&suffix, &format!("{} {}", file.display(), entry.name))), &report)?;
        }
        runs.push(report);
    }
    Ok(runs)
}
