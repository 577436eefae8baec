//! `--html PATH`: one self-contained page per `check`, `compare` or `corpus` run:
//! inline CSS and SVG, no script, nothing loaded from elsewhere. It says what the text report
//! says, and draws each counterexample as a lane diagram ([`lanes`]), `compare`'s table as
//! charts ([`chart`]), `corpus`'s table and its chart of reductions. Every text that comes from
//! an input (names of files, apps, classes, fields) is escaped ([`esc`]).
//!
//! The diagrams need the model (they replay schedules on it): [`figures`] draws them where the
//! model is loaded; the pages take them ready-made.

pub mod chart;
pub mod lanes;
pub mod page;
pub mod races;

use std::fmt::Write;

use self::lanes::{diagram, Diagram, Marked};
use self::page::{badge, collapsed, kv, table, Page};
use super::compare::{InputRuns, NotCompared};
use super::{bytes, opt, ErrorReport, RunReport};
use crate::model::{parse_schedule, Choice, Model};

/// `s` with `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A diagram with its title and what it shows.
#[derive(Clone, Debug)]
pub struct Figure {
    pub title: String,
    pub caption: String,
    pub schedule: String,
    pub diagram: Diagram,
    /// The error of the report it draws (index into `errors`), drawn under it.
    pub of_error: Option<usize>,
}

/// The most diagrams a page draws for one run (the rest are listed in the report).
pub const MAX_FIGURES: usize = 12;

/// The lane diagram of one error or deadlock of a report: its schedule replayed, the pair it
/// is about marked (a conflict's two writes, a deadlock's stuck operations, an error's step).
pub fn error_diagram<M: Model>(model: &M, e: &ErrorReport) -> Option<Diagram> {
    let path = parse_schedule(model, &e.schedule).ok()?;
    let marked = match (&e.conflict, e.kind.as_str()) {
        // A physical conflict's sides are not writes of one object: the sensing app's last step.
        (Some(_), crate::model::smartapp::PHYSICAL_CONFLICT) => Marked::Last(e.app.as_deref()),
        (Some(c), _) => Marked::Conflict(c),
        (None, "deadlock") => Marked::Stuck,
        _ => Marked::Last(e.app.as_deref()),
    };
    Some(diagram(model, &path, marked))
}

/// The lane diagram of a race witness: `schedule` replayed, the racing pair (operation numbers,
/// as the trace numbers them) outlined.
pub fn race_witness<M: Model>(model: &M, schedule: &[Choice], pair: (u32, u32)) -> Diagram {
    diagram(model, schedule, Marked::Ops(pair.0, pair.1))
}

/// The figures of a run's errors and deadlocks, at most [`MAX_FIGURES`].
pub fn figures<M: Model>(model: &M, report: &RunReport) -> Vec<Figure> {
    report
        .errors
        .iter()
        .take(MAX_FIGURES)
        .enumerate()
        .filter_map(|(i, e)| {
            Some(Figure {
                title: format!("error {}: {}", i + 1, e.kind),
                caption: e.message.clone(),
                schedule: e.schedule.clone(),
                diagram: error_diagram(model, e)?,
                of_error: Some(i),
            })
        })
        .collect()
}

/// First, where strategies disagree (outcome sets differ), a witness of each disagreement: an
/// outcome one strategy reached and the other missed (or invented), drawn from the schedule
/// that reaches it; then the distinct errors of `compare`'s runs (by kind and message), each
/// drawn once, from the first run that found it.
pub fn compare_figures<M: Model>(model: &M, runs: &[RunReport], verdict: &super::compare::Verdict) -> Vec<Figure> {
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    if let super::compare::Verdict::Checked(c) = verdict {
        for d in &c.disagreements {
            let Some(w) = &d.witness else { continue };
            let Ok(path) = parse_schedule(model, &w.schedule) else { continue };
            let what = if d.missed.contains(&w.outcome) { "missed" } else { "invented" };
            let marked = if w.outcome.starts_with("error ") { Marked::Last(None) } else { Marked::Nothing };
            out.push(Figure {
                title: match what {
                    "missed" => {
                        format!("witness of a disagreement: {} missed what {} reached", d.strategy, w.reached_by)
                    }
                    _ => {
                        format!("witness of a disagreement: {} reached what the exhaustive search did not", d.strategy)
                    }
                },
                caption: format!("{what} by {}: {}", d.strategy, w.outcome),
                schedule: w.schedule.clone(),
                diagram: diagram(model, &path, marked),
                of_error: None,
            });
        }
    }
    for r in runs {
        for e in &r.errors {
            let key = (e.kind.clone(), e.message.clone());
            // An error drawn already as a disagreement's witness is not drawn again.
            if seen.contains(&key) || out.len() >= MAX_FIGURES || out.iter().any(|f| f.schedule == e.schedule) {
                continue;
            }
            seen.push(key);
            if let Some(d) = error_diagram(model, e) {
                out.push(Figure {
                    title: format!("{} (found by {})", e.kind, r.strategy),
                    caption: e.message.clone(),
                    schedule: e.schedule.clone(),
                    diagram: d,
                    of_error: None,
                });
            }
        }
    }
    out
}

/// A figure as HTML: title, what it shows, the schedule, the diagram; without the first three
/// when `bare` (drawn under the error that says them).
pub(crate) fn figure_html(f: &Figure, bare: bool) -> String {
    let d = &f.diagram;
    let mut out = String::from("<div class=\"figure\">");
    if !bare {
        let _ = writeln!(
            out,
            "<h3>{}</h3><p class=\"cap\">{}</p><p>schedule <code>{}</code> &middot; {} steps</p>",
            esc(&f.title),
            esc(&f.caption),
            esc(&f.schedule),
            d.steps
        );
    }
    let mut end = d.end.clone();
    if d.left_out > 0 {
        end.push_str(&format!(
            " · {} with nothing in this schedule not drawn",
            super::compare::plural(d.left_out, "lane")
        ));
    }
    let _ = write!(out, "<p class=\"cap\">{}</p>", esc(&end));
    if d.cut > 0 {
        let _ = write!(
            out,
            "<p>{}</p>",
            badge("warn", &format!("{} marks not drawn: at most {} rows, around the pair", d.cut, lanes::MAX_ROWS))
        );
    }
    match &d.folded {
        // A wide diagram: the pair's lanes in full, the others folded; every lane below.
        Some(f) => {
            let _ = write!(
                out,
                "<p class=\"cap\">{} of {} lanes drawn in full (those of the pair); the others folded into one</p>\
<div class=\"scroll\">{}</div><details><summary>all {} lanes</summary><div class=\"scroll\">{}</div></details></div>",
                f.lanes.len() - 1,
                d.lanes.len(),
                lanes::svg(f, 1180.0),
                d.lanes.len(),
                lanes::svg(d, 1180.0)
            );
            out.push('\n');
        }
        None => {
            let _ = writeln!(out, "<div class=\"scroll\">{}</div></div>", lanes::svg(d, 1180.0));
        }
    }
    out
}

fn figures_section(page: &mut Page, title: &str, figures: &[Figure], more: usize) {
    if figures.is_empty() {
        return;
    }
    page.section(title, "figures");
    page.html(&format!("<p>{}</p>\n", lanes::legend()));
    for f in figures {
        page.html(&figure_html(f, false));
    }
    if more > 0 {
        page.para(&format!("{more} more not drawn (see the report below)."));
    }
    page.end();
}

/// The verdict badge of a run.
fn run_badge(r: &RunReport) -> String {
    let errors = r.errors.iter().filter(|e| e.kind != "deadlock").count();
    let deadlocks = r.errors.len() - errors;
    let mut out = String::new();
    if errors > 0 {
        out.push_str(&badge("bad", &super::compare::plural(errors, "error")));
    }
    if deadlocks > 0 {
        out.push_str(&badge("bad", &super::compare::plural(deadlocks, "deadlock")));
    }
    if r.errors.is_empty() {
        out.push_str(&badge("good", "no errors detected"));
    }
    match r.stopped_by {
        Some(why) => out.push_str(&badge("warn", &format!("incomplete: {}", why.describe()))),
        None => out.push_str(&badge("info", "search finished")),
    }
    out
}

/// One error as the text report has it.
fn error_html(r: &RunReport, i: usize, e: &ErrorReport) -> String {
    let place = e.place(r.model);
    let files: Vec<String> = r.file.split(" + ").map(super::text::quote).collect();
    let replay =
        format!("tracepor replay {} --schedule {}{}", files.join(" "), super::text::quote(&e.schedule), r.load_flags);
    let mut rows = vec![("at", place)];
    if let Some(earlier) = e.earlier() {
        rows.push(("earlier", earlier));
    }
    rows.push(("schedule", format!("{} ({} steps)", e.schedule, e.steps)));
    if let Some(n) = e.shortened_from {
        rows.push(("first found", format!("{n} steps")));
    }
    rows.push(("replay", replay));
    format!("<h3>error {}: {}</h3><p>{}</p>{}", i + 1, esc(&e.kind), esc(&e.message), kv(&rows))
}

/// Statistics as the text report lists them.
fn statistics(r: &RunReport) -> String {
    let mut rows = vec![
        ("elapsed time", format!("{:.3} s", r.time_s)),
        ("states", format!("new={} visited={}", opt(r.states), opt(r.revisits))),
        ("executions", r.executions.to_string()),
        ("transitions", r.transitions.to_string()),
        ("unique transitions", opt(r.unique_transitions)),
        ("max depth", r.max_depth.to_string()),
        ("outcomes", r.outcomes.to_string()),
        ("deadlocks", r.deadlocks.to_string()),
    ];
    if let Some(n) = r.redundant {
        rows.push(("redundant runs", n.to_string()));
    }
    if let Some(n) = r.blocked {
        rows.push(("blocked runs", n.to_string()));
    }
    if let Some(n) = r.sleep_blocked {
        rows.push(("sleep-blocked runs", n.to_string()));
    }
    if let Some(d) = r.estimated_done {
        rows.push(("estimated explored", format!("{:.3}% of the search tree", d * 100.0)));
    }
    rows.push((
        "peak memory",
        format!("{} allocated, {} resident", bytes(r.peak_alloc_bytes), bytes(r.peak_rss_bytes)),
    ));
    if let Some(m) = r.memory_limit_mib {
        rows.push(("memory limit", format!("{m} MiB")));
    }
    kv(&rows)
}

/// `check --html`: the report, each counterexample drawn, the statistics, the text report.
/// `sections`: more sections (HTML) to add after the counterexamples (races, outcomes).
pub fn check_page(r: &RunReport, sut: &str, figures: &[Figure], sections: &[String]) -> String {
    let title = format!("tracepor check: {}", r.file);
    let sub =
        format!("{} &middot; {} &middot; strategy <b>{}</b>", esc(&r.file), esc(r.model.as_str()), esc(&r.strategy));
    let mut page = Page::new(&title, &sub);
    page.section("result", "result");
    page.html(&format!("<p>{}</p>\n", run_badge(r)));
    page.html(&kv(&[
        ("system under test", sut.to_string()),
        ("input", r.file.clone()),
        ("strategy", r.strategy.clone()),
    ]));
    if !r.unsupported.is_empty() {
        page.html(&format!("<p>{}</p><ul>", badge("warn", &format!("not modelled ({})", r.unsupported.len()))));
        for u in &r.unsupported {
            page.html(&format!("<li>{}</li>", esc(u)));
        }
        page.html("</ul>\n");
    }
    if figures.iter().any(|f| f.of_error.is_some()) {
        page.html(&format!("<p>each counterexample lane by lane, time going down: {}</p>\n", lanes::legend()));
    }
    for (i, e) in r.errors.iter().enumerate() {
        page.html(&error_html(r, i, e));
        if let Some(f) = figures.iter().find(|f| f.of_error == Some(i)) {
            page.html(&figure_html(f, true));
        } else if i >= MAX_FIGURES {
            page.para("(not drawn: a page draws the first errors only)");
        }
    }
    page.end();
    if !r.physical_conflicts.is_empty() {
        page.section("physical conflicts", "physical");
        page.para(
            "one app's command changes what the room carries; another app's sensor measures it (docs/physical.md)",
        );
        page.html(&super::physical::render_html(&r.physical_conflicts));
        page.end();
    }
    let others: Vec<Figure> = figures.iter().filter(|f| f.of_error.is_none()).cloned().collect();
    figures_section(&mut page, "lane diagrams", &others, 0);
    for s in sections {
        page.html(s);
    }
    page.section("statistics", "statistics");
    page.html(&statistics(r));
    page.html(&collapsed("the text report", &super::text::render(r, sut)));
    page.end();
    page.finish(&title)
}

/// `compare --html`: per input, the table, the charts, the verdict and the counterexamples;
/// then the inputs not compared.
/// `figures[k]` are input `k`'s.
pub fn compare_page(inputs: &[InputRuns], figures: &[Vec<Figure>], failed: &[NotCompared]) -> String {
    let title = "tracepor compare".to_string();
    let strategies = chart::strategies(inputs);
    let sub = format!("{} &middot; {}", super::compare::plural(inputs.len(), "input"), esc(&strategies.join(", ")));
    let mut page = Page::new(&title, &sub);
    for (k, input) in inputs.iter().enumerate() {
        let figures = figures.get(k).map_or(&[][..], Vec::as_slice);
        let file = input.runs.first().map_or("", |r| r.file.as_str());
        page.section(file, &format!("input-{k}"));
        let badge_html = match input.consistent() {
            Some(true) => badge("good", "outcome sets consistent with the exhaustive search"),
            Some(false) => badge("bad", "a strategy DISAGREES with the exhaustive search"),
            None => badge("warn", "outcome sets not checked"),
        };
        page.html(&format!("<p>{badge_html}</p>\n"));
        let rows: Vec<Vec<String>> =
            super::compare::rows(std::slice::from_ref(input)).into_iter().map(|r| r[1..].to_vec()).collect();
        let differs = |i: usize| rows[i].get(12).is_some_and(|s| s == "DIFFERS");
        page.html(&table(&super::compare::HEADER[1..], &rows, |i| i == 0, |_| false, differs));
        let verdict = super::compare::verdict(std::slice::from_ref(input));
        page.html("<ul>");
        for line in verdict.lines() {
            page.html(&format!("<li>{}</li>", esc(line.trim())));
        }
        page.html("</ul>\n<h3>side by side</h3>\n");
        page.html(&chart::input_charts(input, &strategies));
        if !figures.is_empty() {
            page.html(&format!("<h3>counterexamples</h3><p>{}</p>\n", lanes::legend()));
            for f in figures {
                page.html(&figure_html(f, false));
            }
        }
        page.end();
    }
    if !failed.is_empty() {
        page.section("not compared", "not-compared");
        let rows: Vec<Vec<String>> = failed.iter().map(|f| vec![f.file.clone(), f.error.clone()]).collect();
        page.html(&table(&["input", "why"], &rows, |_| true, |i| i == 1, |_| true));
        page.end();
    }
    page.html(&collapsed("the text table", &super::compare::render(inputs)));
    page.finish(&title)
}
