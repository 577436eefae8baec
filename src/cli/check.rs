//! `check` (one input, one strategy) and `regress` (every input with an expected outcome file).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::files::{is_stdout, writable, writable_dir, write, write_outcomes};
use super::{cancel_flag, joined, tool_json, Common, Fail};
use crate::check::Check;
use crate::explore::registry::{self, Entry, Registered};
use crate::explore::SearchOptions;
use crate::model::{self, Model};
use crate::regress;
use crate::report::{self, RunReport};
use crate::trace::input::Input;
use crate::with_model;

/// What `check` reads or writes besides its report.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// `--dot`: the state graph.
    pub dot: Option<PathBuf>,
    /// `--expect`: the outcome set to compare with.
    pub expect: Option<PathBuf>,
    /// `--html`: the report as a page.
    pub html: Option<PathBuf>,
}

/// What `check` adds to the search on EM traces (docs/races.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct Analysis {
    /// The race report: `--races` (Some(true)), `--no-races` (Some(false)), or by default on
    /// with the default strategy (`optimal`: one execution per outcome, so keeping a run per
    /// outcome costs no more than the search; other strategies may find many outcomes).
    pub races: Option<bool>,
    /// The outcomes explained in the text report (`--explain`).
    pub explain: bool,
    /// `--fail-on races`: a race that changes an outcome is a finding (exit 1); turns the race
    /// report on.
    pub fail_on_races: bool,
}

impl Analysis {
    /// The options given that only the race report reads, as the command line names them.
    fn given(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        match self.races {
            Some(true) => out.push("--races"),
            Some(false) => out.push("--no-races"),
            None => {}
        }
        if self.explain {
            out.push("--explain");
        }
        if self.fail_on_races {
            out.push("--fail-on races");
        }
        out
    }
}

/// `check`: explores `files` (one input, or SmartApps checked together) with one strategy.
pub fn check(
    files: &[PathBuf],
    strategy: Option<&str>,
    out: &Outputs,
    analysis: Analysis,
    common: &Common,
) -> Result<i32, Fail> {
    let (dot, expect) = (out.dot.as_deref(), out.expect.as_deref());
    // The time limit bounds the whole run from here (just after the arguments are parsed):
    // reading and setting up count against it.
    let since = std::time::Instant::now();
    let common = &Common { since: Some(since), ..common.clone() };
    // Ctrl-C from now on ends the run with its report (a search not begun yet stops at once).
    cancel_flag();
    super::time_limit_backstop(since, common.time_limit);
    super::known().json = common.json;
    super::bound_inputs(common.max_memory);
    let file = joined(files);
    crate::validate::distinct_outputs(&[
        ("--outcomes", common.outcomes.as_deref()),
        ("--dot", dot),
        ("--expect", expect),
        ("--html", out.html.as_deref()),
    ])?;
    // Read first: a missing expectation is a usage error, found before any search.
    let expected = expect.map(regress::read_expected).transpose()?;
    if let Some(p) = common.outcomes.as_deref().filter(|p| !is_stdout(p)) {
        writable(p)?;
    }
    if let Some(p) = &out.html {
        writable(p)?;
    }
    // The graph may turn out too large to write: only its folder is checked.
    if let Some(p) = dot {
        writable_dir(p)?;
    }
    let given = super::Given { race_options: analysis.given(), ..super::Given::of(common) };
    let [(_, input)] = super::load_checked(files, &common.load_options(), &given)?;
    let loaded = model::load_input(loadable_apps(files, input?)?, common.load_options())?;
    // A diagnostic of what varies in the states (model/smartapp/probe.rs), on stderr.
    if let (Some(n), model::Loaded::SmartApps(m)) = (std::env::var("TRACEPOR_PROBE").ok(), &loaded) {
        // Keys read under a guard (model/smartapp/guarded.rs): reset where it is off, or why not.
        for v in m.guard_verdicts() {
            match &v.verdict {
                Ok(g) => eprintln!("guarded key {}.{}: dead unless {g}", v.app, v.key),
                Err(why) => eprintln!("guarded key {}.{}: kept ({why})", v.app, v.key),
            }
        }
        eprint!("{}", m.probe(n.parse().unwrap_or(100_000)));
    }
    // Outcome texts are needed only to write or compare them; otherwise each outcome is
    // kept as a fingerprint, so a long stateless search does not fill memory with them.
    let texts = common.outcomes.is_some() || expected.is_some();
    let mut report = with_model!(&loaded, m => {
        let races = analysis.fail_on_races
            || analysis.explain
            || analysis.races.unwrap_or_else(|| strategy.is_none_or(|s| s == default_name(m)));
        check_model(m, &file, strategy, dot, common, texts, races)
    })?;
    let verdict = expected.as_ref().map(|e| regress::judge(&report, e));
    // Where the text report does not say them, the warnings go to stderr.
    if common.json || common.quiet {
        for w in &report.warnings {
            eprintln!("tracepor: warning: {w}");
        }
    }
    // An outcome file is written before the report, so that the report's peak resident memory
    // covers its writing too (the lines written to standard output follow the report).
    let outcome_file = common.outcomes.as_deref().filter(|p| !is_stdout(p));
    if let Some(path) = outcome_file {
        write_outcomes(path, None, &report)?;
        report.peak_rss_bytes = crate::explore::stats::peak_rss_bytes().or(report.peak_rss_bytes);
    }
    super::known().printing = true;
    if common.json {
        // Written to stdout as it is serialized: a report of schedules as found (a search
        // stopped by a limit before they were shortened) can be tens of MB, and a copy as a JSON
        // tree and another as a string would pass `--max-memory` after the search kept within it.
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            #[serde(flatten)]
            report: &'a crate::report::RunReport,
            tool: serde_json::Value,
            options: serde_json::Value,
            #[serde(skip_serializing_if = "Option::is_none")]
            expect: Option<serde_json::Value>,
        }
        let doc = Doc {
            report: &report,
            tool: tool_json(),
            options: common.options_json(Some(&report.strategy)),
            expect: verdict.as_ref().map(verdict_json),
        };
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        serde_json::to_writer_pretty(&mut out, &doc)?;
        std::io::Write::write_all(&mut out, b"\n")?;
        std::io::Write::flush(&mut out)?;
    } else if !common.quiet {
        let sut = with_model!(&loaded, m => m.summary());
        print!("{}", report::text::render(&report, &sut));
        if let Some(r) = &report.races {
            print!("{}", report::races::render(r, analysis.explain));
        }
    }
    if let Some(path) = common.outcomes.as_deref().filter(|p| is_stdout(p)) {
        write_outcomes(path, None, &report)?;
    }
    if let Some(path) = &out.html {
        use report::html::races::{outcomes_section, race_figures, races_section};
        let (sut, figures) = with_model!(&loaded, m => (m.summary(), report::html::figures(m, &report)));
        let sections = match &report.races {
            Some(r) => {
                let witnesses = with_model!(&loaded, m => race_figures(m, r));
                vec![races_section(r, &witnesses), outcomes_section(r)]
            }
            None => Vec::new(),
        };
        write(path, &report::html::check_page(&report, &sut, &figures, &sections))?;
    }
    let races = analysis.fail_on_races.then(|| fail_on_races(report.races.as_ref()));
    if let Some(v) = &verdict {
        if !common.json {
            print!("expect {}: {}", expect.unwrap_or(Path::new("")).display(), v.render(10));
        }
        return Ok(match (v.exit_code(), races) {
            (0, Some(1)) => 1,
            (code, _) => code,
        });
    }
    Ok(match (report.exit_code(), races) {
        (1, _) | (_, None) => report.exit_code(),
        (_, Some(1)) => 1,
        (0, Some(3)) => 3,
        (code, _) => code,
    })
}

/// A folder's apps that do not read or parse are reported on stderr and left out, and the
/// others are checked: one bad file in a collection (a corpus of SmartApps) does not stop the
/// check of the rest. An app named on the command line, or a folder none of whose apps load, is
/// still an input error (exit 2).
fn loadable_apps(files: &[PathBuf], input: Input) -> Result<Input, Fail> {
    let Input::SmartApps(apps) = input else { return Ok(input) };
    let from_folder = |a: &Path| files.iter().any(|f| f.is_dir() && a.parent() == Some(f.as_path()));
    let (mut kept, mut first) = (Vec::with_capacity(apps.len()), None);
    for app in apps {
        match model::smartapp::parse_app(&app) {
            Err(e) if from_folder(&app) => {
                eprintln!("tracepor: warning: {e}: not loaded; the folder's other apps are checked");
                first.get_or_insert(e);
            }
            _ => kept.push(app),
        }
    }
    match first {
        Some(e) if kept.is_empty() => Err(e.into()),
        _ => Ok(Input::SmartApps(kept)),
    }
}

/// `--fail-on races`' part of the exit code: 1 when a race changes an outcome, 3 when the race
/// report was cut short or not made (a limit; nothing found so far), 0 otherwise.
fn fail_on_races(r: Option<&crate::explore::races::RaceReport>) -> i32 {
    match r {
        Some(r) if r.changes_outcome.unwrap_or(0) > 0 => 1,
        Some(r) if r.not_analysed.is_none() && r.partial.is_none() && r.undecided == Some(0) => 0,
        _ => 3,
    }
}

/// The name of the strategy `check` runs on `m` by default.
fn default_name<M: Registered>(m: &M) -> &'static str {
    registry::default_for_model(m).name
}

/// `regress`: every input under `dirs` with an expected outcome file beside it, pass or fail.
pub fn regress(dirs: &[PathBuf], strategy: Option<&str>, junit: Option<&Path>, common: &Common) -> Result<i32, Fail> {
    super::refuse_without_conflicts(&common.load_options(), &super::Given::of(common))?;
    super::bound_inputs(common.max_memory);
    if let Some(p) = common.outcomes.as_deref().filter(|p| !is_stdout(p)) {
        writable_dir(p)?;
    }
    let mut inputs = Vec::new();
    for d in dirs {
        inputs.extend(regress::inputs_with_expectations(d)?);
    }
    let mut cases = Vec::new();
    for (input, expected) in &inputs {
        let started = std::time::Instant::now();
        // A bad input or expected file is this input's failure; the others still run.
        let result = (|| -> Result<regress::Verdict, Fail> {
            let want = regress::read_expected(expected)?;
            let loaded = model::load_all(std::slice::from_ref(input), common.load_options())?;
            let report = with_model!(&loaded, m => check_model(m, input, strategy, None, common, true, false))?;
            if let Some(path) = &common.outcomes {
                let suffix = format!(".{}", input.display().to_string().replace(['/', '\\'], "_"));
                write_outcomes(path, Some((&suffix, &input.display().to_string())), &report)?;
            }
            Ok(regress::judge(&report, &want))
        })()
        .map_err(|Fail(msg)| msg);
        let case = regress::Case { input: input.display().to_string(), result, time: started.elapsed() };
        if !common.quiet && !common.json {
            match &case.result {
                Ok(v) => print!("{}: {}", case.input, v.render(5)),
                Err(msg) => println!("{}: error: {msg}", case.input),
            }
        }
        cases.push(case);
    }
    if let Some(p) = junit {
        write(p, &regress::junit("regress", &cases))?;
    }
    let passed = cases.iter().filter(|c| matches!(c.result, Ok(regress::Verdict::Pass { .. }))).count();
    if common.json {
        // One object per input: `check --json`'s `expect`, or the error that kept it
        // from running.
        let inputs: Vec<serde_json::Value> = cases
            .iter()
            .map(|c| {
                let mut doc = match &c.result {
                    Ok(v) => verdict_json(v),
                    Err(msg) => serde_json::json!({ "result": "error", "error": msg }),
                };
                doc["input"] = serde_json::json!(c.input);
                doc["time_s"] = serde_json::json!(c.time.as_secs_f64());
                doc
            })
            .collect();
        let doc = serde_json::json!({
            "inputs": inputs,
            "passed": passed,
            "tool": tool_json(),
            "options": common.options_json(strategy),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if !common.quiet {
        println!("{passed} of {} inputs pass", cases.len());
    }
    Ok(regress::exit_code(&cases))
}

/// The most states `--dot` draws; larger graphs are not written.
const DOT_LIMIT: usize = 20_000;

/// What the progress display says of a search under way.
fn progress_line(s: &crate::explore::stats::Stats, elapsed: Duration) -> String {
    let rate = s.transitions as f64 / elapsed.as_secs_f64().max(1e-9);
    let estimate = s.estimated_done.map_or(String::new(), |d| format!("  ~{:.2}% of the tree", d * 100.0));
    format!(
        "executions {}  states {}  transitions {}  ({rate:.0}/s){estimate}",
        s.executions,
        s.states.map_or("-".into(), |n| n.to_string()),
        s.transitions
    )
}

/// Runs one strategy on one input with the command line's limits, options, progress bar and
/// Ctrl-C, writing the state graph when `dot` asks for it.
pub(super) fn run_one<M: Registered>(
    m: &M,
    file: &Path,
    entry: &Entry,
    common: &Common,
    options: SearchOptions,
    dot: Option<&Path>,
    races: bool,
) -> Result<RunReport, Fail> {
    let mut run = Check::new(m)
        .strategy(entry.name)?
        .file(file.display().to_string())
        .limits(common.limits())
        .options(options)
        .races(races)
        .cancel(cancel_flag());
    {
        let mut known = super::known();
        known.run = format!("{}, strategy {}", file.display(), entry.name);
        known.update(&Default::default(), Duration::ZERO);
        known.searched = false;
    }
    let show = common.show_progress();
    let bar = (show && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template("{spinner} {prefix} {elapsed_precise} {msg}").unwrap());
        bar.set_prefix(entry.name);
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    // The figures go to what a second Ctrl-C prints, and to the progress display when shown.
    let name = entry.name;
    let mut last: Option<Duration> = None;
    let bar2 = bar.clone();
    run = run.on_progress(move |s, elapsed| {
        super::known().update(s, elapsed);
        if let Some(bar) = &bar2 {
            bar.set_message(progress_line(s, elapsed));
        } else if show && last.is_none_or(|t| elapsed >= t + Duration::from_secs(1)) {
            // `--progress` with stderr a file or a pipe (indicatif draws nothing there): a plain
            // line, the first at the first report and then one a second at most, so that a log
            // (or a test waiting for the search to be under way) sees it.
            last = Some(elapsed);
            eprintln!("tracepor: {name}: {}", progress_line(s, elapsed));
        }
    });
    if dot.is_some() {
        run = run.record_graph(DOT_LIMIT);
    }
    let (report, graph) = run.run_with_graph();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    {
        let mut known = super::known();
        (known.executions, known.transitions, known.states) = (report.executions, report.transitions, report.states);
        (known.seconds, known.searched) = (report.time_s, true);
    }
    if let Some(path) = dot {
        match graph {
            None => eprintln!(
                "tracepor: not writing {}: strategy `{}` does not record its state graph",
                path.display(),
                entry.name
            ),
            Some(g) if g.overflowed => {
                eprintln!("tracepor: not writing {}: the state graph has more than {DOT_LIMIT} states", path.display())
            }
            Some(g) => write(path, &report::dot::render(&g, &file.display().to_string()))?,
        }
    }
    Ok(report)
}

/// `check` on one loaded model: the strategy asked for (or the default), its options checked.
pub(super) fn check_model<M: Registered>(
    m: &M,
    file: &Path,
    strategy: Option<&str>,
    dot: Option<&Path>,
    common: &Common,
    texts: bool,
    races: bool,
) -> Result<RunReport, Fail> {
    let entry = match strategy {
        Some(name) => crate::check::strategy_for(m, name)?,
        None => registry::default_for_model(m),
    };
    crate::check::check_search_options(m.kind(), &[entry], &common.search_options())?;
    // The pair view is `monitors`' own, and only where it runs its own search.
    if common.no_pair_conflicts && m.preferred_strategy() != Some(entry.name) {
        return Err(Fail(format!(
            "--no-pair-conflicts applies only to `monitors` with SmartApp conflicts observed; strategy `{}` does not look for pair conflicts here",
            entry.name
        )));
    }
    if dot.is_some() {
        crate::validate::check_dot(entry)?;
    }
    let options =
        SearchOptions { outcome_fingerprints: !texts, threads: common.threads_for(entry), ..common.search_options() };
    run_one(m, file, entry, common, options, dot, races)
}

/// The `expect` member of `check --json`.
fn verdict_json(v: &regress::Verdict) -> serde_json::Value {
    match v {
        regress::Verdict::Pass { outcomes } => serde_json::json!({ "result": "pass", "outcomes": outcomes }),
        regress::Verdict::Differs { missing, unexpected } => {
            serde_json::json!({ "result": "differs", "missing": missing, "unexpected": unexpected })
        }
        regress::Verdict::Unfinished { stopped_by } => {
            serde_json::json!({ "result": "unfinished", "stopped_by": stopped_by.map(|s| s.code()) })
        }
    }
}
