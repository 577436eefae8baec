//! Side-by-side tables of strategies over one or many inputs, in the manner of the TACAS 2016
//! and VMCAI 2022 result tables: counts per input and strategy, the reduction relative to the
//! exhaustive search and to `dpor`, and the soundness verdict (does every strategy reach the
//! outcome set of the exhaustive one?). Rendered as aligned text, CSV, Markdown and an SVG chart.

use std::fmt::Write;

use serde::Serialize;

use super::{opt, RunReport};
use crate::explore::registry;
use crate::model::ModelKind;

/// How the runs of one input compare with a finished exhaustive run (computed by
/// `check::verdict`, which has the model to write schedules with).
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Checked against a finished exhaustive run.
    Checked(Checked),
    /// Not checked, and why: no exhaustive run, or none finished.
    NotChecked(String),
}

/// Where a run stands against the reference: the exhaustive run that finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// The finished exhaustive run the others are checked against.
    Reference,
    /// Finished, with the reference's outcome set.
    Equal,
    /// Stopped by a limit; what it found is within the reference's outcome set.
    Subset,
    /// Missed or invented outcomes (finished), or invented some (unfinished): a bug.
    Differs,
}

impl Standing {
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Reference => "reference",
            Standing::Equal => "equal",
            Standing::Subset => "subset (unfinished)",
            Standing::Differs => "DIFFERS",
        }
    }
}

/// The verdict of one input whose exhaustive run finished.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The exhaustive run compared with (`full` when it finished, else `full-stateless`).
    pub reference: String,
    /// What was compared: the reference's outcomes and distinct errors.
    pub outcomes: usize,
    pub errors: usize,
    /// Each run's standing, in the order they ran.
    pub standings: Vec<(String, Standing)>,
    pub disagreements: Vec<Disagreement>,
    /// Fewest transitions among the runs that finished with the reference's outcome set.
    pub winner: Option<String>,
}

/// A strategy whose outcome set differs from the exhaustive one.
#[derive(Clone, Debug, Serialize)]
pub struct Disagreement {
    pub strategy: String,
    /// Outcomes (and errors) the exhaustive run reached and this one did not (empty for a run
    /// that did not finish: it may not have got there).
    pub missed: Vec<String>,
    /// Outcomes (and errors) this run reached and the exhaustive one did not.
    pub invented: Vec<String>,
    pub witness: Option<Witness>,
}

/// One outcome in dispute, the run that reached it and a command that replays it.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    pub outcome: String,
    pub reached_by: String,
    pub replay: String,
    /// The schedule that reaches it (as `replay --schedule` takes it), which `--html` draws.
    pub schedule: String,
}

/// What an outcome is called on inputs of `kind`, for the verdict's sentence.
fn outcome_noun(kind: ModelKind) -> &'static str {
    match kind {
        ModelKind::EmTrace => "outcome",
        // An outcome here is a state with nothing enabled (cli.md `outcomes`).
        ModelKind::Events | ModelKind::SmartApps => "end state",
    }
}

impl Verdict {
    /// cli.md's `agree`: true or false only when an exhaustive run and every other run
    /// finished (the contract of shared/spec/cli.md).
    pub fn agree(&self) -> Option<bool> {
        match self {
            Verdict::Checked(c) if c.standings.iter().all(|(_, s)| *s != Standing::Subset) => {
                Some(c.disagreements.is_empty())
            }
            _ => None,
        }
    }

    /// Whether every run is consistent with the finished exhaustive one (finished runs equal
    /// to it, unfinished ones within it); None when no exhaustive run finished.
    pub fn consistent(&self) -> Option<bool> {
        match self {
            Verdict::Checked(c) => Some(c.disagreements.is_empty()),
            Verdict::NotChecked(_) => None,
        }
    }

    /// The standing of run `strategy`, when checked.
    pub fn standing(&self, strategy: &str) -> Option<Standing> {
        match self {
            Verdict::Checked(c) => c.standings.iter().find(|(s, _)| s == strategy).map(|(_, s)| *s),
            Verdict::NotChecked(_) => None,
        }
    }

    /// The JSON document of one input: runs, `agree`, and the verdict's details (docs/cli.md).
    pub fn json(&self, runs: &[RunReport]) -> serde_json::Value {
        let mut doc = serde_json::json!({ "runs": runs, "agree": self.agree(), "consistent": self.consistent() });
        match self {
            Verdict::NotChecked(why) => doc["not_checked"] = serde_json::json!(why),
            Verdict::Checked(c) => {
                doc["reference"] = serde_json::json!(c.reference);
                doc["compared"] = serde_json::json!({ "outcomes": c.outcomes, "errors": c.errors });
                doc["standings"] = c.standings.iter().map(|(n, s)| (n.clone(), serde_json::json!(s))).collect();
                doc["winner"] = serde_json::json!(c.winner);
                let unfinished: Vec<&str> =
                    c.standings.iter().filter(|(_, s)| *s == Standing::Subset).map(|(n, _)| n.as_str()).collect();
                if !unfinished.is_empty() {
                    doc["not_checked"] = serde_json::json!(format!(
                        "{} did not finish (checked as a subset of {})",
                        unfinished.join(", "),
                        c.reference
                    ));
                }
                if !c.disagreements.is_empty() {
                    doc["disagreements"] = serde_json::json!(c.disagreements);
                }
            }
        }
        doc
    }

    fn render(&self, file: &str, kind: Option<ModelKind>, out: &mut String) {
        let c = match self {
            Verdict::NotChecked(why) => {
                let _ = writeln!(out, "{file}: outcome sets not checked: {why}");
                return;
            }
            Verdict::Checked(c) => c,
        };
        let noun = kind.map_or("outcome", outcome_noun);
        let compared = format!(
            "{} finished with {} and {}",
            c.reference,
            plural(c.outcomes, noun),
            plural(c.errors, "distinct error")
        );
        let named = |want: Standing| -> Vec<&str> {
            c.standings.iter().filter(|(_, s)| *s == want).map(|(n, _)| n.as_str()).collect()
        };
        let (equal, subset) = (named(Standing::Equal), named(Standing::Subset));
        if c.disagreements.is_empty() && subset.is_empty() {
            let _ = writeln!(out, "{file}: outcome sets agree with the exhaustive search ({compared})");
        } else if c.disagreements.is_empty() {
            let _ = writeln!(
                out,
                "{file}: outcome sets consistent with the exhaustive search ({compared}): equal: {}; subset (unfinished): {}",
                if equal.is_empty() { "-".to_string() } else { equal.join(", ") },
                subset.join(", ")
            );
        }
        for d in &c.disagreements {
            let _ = writeln!(
                out,
                "{file}: {} DISAGREES with the exhaustive search ({compared}): {} missed, {} invented (a bug in the strategy, not in the program)",
                d.strategy,
                plural(d.missed.len(), noun),
                d.invented.len()
            );
            if let Some(w) = &d.witness {
                let what = if d.missed.contains(&w.outcome) { "missed" } else { "invented" };
                let _ = writeln!(out, "  {what}: {}\n  reached by {}: {}", w.outcome, w.reached_by, w.replay);
            }
        }
        if let Some(w) = &c.winner {
            let _ = writeln!(out, "{file}: winner: {w} (fewest transitions among the finished runs that agree)");
        }
    }
}

/// The runs of one input and their verdict.
pub struct InputRuns {
    pub runs: Vec<RunReport>,
    pub verdict: Verdict,
}

impl InputRuns {
    pub fn agreement(&self) -> Option<bool> {
        self.verdict.agree()
    }

    /// [`Verdict::consistent`]: false is a bug in a strategy (exit 4).
    pub fn consistent(&self) -> Option<bool> {
        self.verdict.consistent()
    }

    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// The baseline among `names`: the first that finished, else the first that ran (its
    /// count then a lower bound).
    fn baseline(&self, names: &[&str]) -> Option<&RunReport> {
        let ran = |finished: bool| {
            names.iter().find_map(|n| self.runs.iter().find(|r| r.strategy == *n && (r.finished || !finished)))
        };
        ran(true).or_else(|| ran(false))
    }

    /// The baseline's transitions divided by this run's (how many times fewer): `2.00x`, or
    /// `>2.00x` when the baseline stopped early (it would have taken more); `-` when this run
    /// did not finish or no baseline ran.
    fn reduction(&self, r: &RunReport, baseline: &[&str]) -> String {
        match self.baseline(baseline) {
            Some(b) if r.finished && r.transitions > 0 => {
                let x = ratio(Some(b.transitions as f64 / r.transitions as f64));
                if b.finished {
                    x
                } else {
                    format!(">{x}")
                }
            }
            _ => "-".into(),
        }
    }

    /// This run's standing against the exhaustive one, as the tables show it.
    fn standing(&self, r: &RunReport) -> String {
        self.verdict.standing(&r.strategy).map_or("-", Standing::as_str).to_string()
    }
}

pub(crate) const HEADER: [&str; 15] = [
    "input",
    "strategy",
    "executions",
    "states",
    "transitions",
    "unique",
    "outcomes",
    "blocked",
    "errors",
    "time s",
    "peak MiB",
    "vs exhaustive",
    "vs dpor",
    "outcome set",
    "finished",
];

/// `1 outcome`, `2 outcomes`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

pub(crate) fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |x| format!("{x:.2}x"))
}

pub(crate) fn rows(inputs: &[InputRuns]) -> Vec<[String; 15]> {
    let mut out = Vec::new();
    for input in inputs {
        for r in &input.runs {
            out.push([
                r.file.clone(),
                r.strategy.clone(),
                r.executions.to_string(),
                opt(r.states),
                r.transitions.to_string(),
                opt(r.unique_transitions),
                r.outcomes.to_string(),
                // Runs or nodes abandoned (sleep-set blocked, inconsistent reads-from choices).
                opt(r.blocked),
                r.errors.len().to_string(),
                format!("{:.3}", r.time_s),
                r.peak_bytes().map_or("-".into(), |b| format!("{:.1}", b as f64 / (1u64 << 20) as f64)),
                // The stateless count, when there is one, is the whole tree: the fairer baseline.
                input.reduction(r, &registry::exhaustive().rev().map(|e| e.name).collect::<Vec<_>>()),
                input.reduction(r, &["dpor"]),
                input.standing(r),
                if r.finished { "yes".into() } else { r.stopped_by.map_or("no", |s| s.describe()).into() },
            ]);
        }
    }
    out
}

pub(crate) fn verdict(inputs: &[InputRuns]) -> String {
    let mut out = String::new();
    for input in inputs {
        let file = input.runs.first().map_or("", |r| r.file.as_str());
        input.verdict.render(file, input.runs.first().map(|r| r.model), &mut out);
    }
    out
}

/// A count with thousands separators (`1,284,788`), as the text table shows it.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The columns of the text table: what a terminal holds (under 100 columns for the usual
/// runs). The input is a heading above its rows, `unique` transitions and the peak of memory
/// are left to CSV, Markdown and JSON, empty columns are left out, and a run that did not
/// finish says which limit stopped it in one word (the JSON `stopped_by` code).
const TEXT_HEADER: [&str; 12] = [
    "strategy",
    "execs",
    "states",
    "trans",
    "outcomes",
    "blocked",
    "errors",
    "time s",
    "vs exh",
    "vs dpor",
    "outcome set",
    "done",
];

fn text_rows(input: &InputRuns) -> Vec<[String; 12]> {
    let count = |n: Option<u64>| n.map_or_else(|| "-".into(), thousands);
    let exhaustive: Vec<&str> = registry::exhaustive().rev().map(|e| e.name).collect();
    input
        .runs
        .iter()
        .map(|r| {
            [
                r.strategy.clone(),
                thousands(r.executions),
                count(r.states),
                thousands(r.transitions),
                thousands(r.outcomes as u64),
                count(r.blocked),
                thousands(r.errors.len() as u64),
                format!("{:.3}", r.time_s),
                input.reduction(r, &exhaustive),
                input.reduction(r, &["dpor"]),
                input.standing(r),
                if r.finished { "yes".into() } else { r.stopped_by.map_or("no", |s| s.code()).into() },
            ]
        })
        .collect()
}

/// Aligned text table: per input a heading line, then one row per strategy; then the verdicts.
pub fn render(inputs: &[InputRuns]) -> String {
    let all: Vec<Vec<[String; 12]>> = inputs.iter().map(text_rows).collect();
    // A column with nothing in any row (all `-` or all 0: `blocked` outside the strategies that
    // block, `states` among stateless runs, `errors` where none was found) is left out.
    let shown: Vec<usize> = (0..TEXT_HEADER.len())
        .filter(|&c| [0, 1, 3, 7, 11].contains(&c) || all.iter().flatten().any(|row| row[c] != "-" && row[c] != "0"))
        .collect();
    let mut widths: Vec<usize> = TEXT_HEADER.iter().map(|h| h.len()).collect();
    for row in all.iter().flatten() {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &[&str], out: &mut String| {
        for &c in &shown {
            let w = widths[c];
            let _ = if c == 0 { write!(out, "{:<w$}  ", cells[c]) } else { write!(out, "{:>w$}  ", cells[c]) };
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    };
    for (input, rows) in inputs.iter().zip(&all) {
        let file = input.runs.first().map_or("", |r| r.file.as_str());
        let _ = writeln!(out, "{file}");
        line(&TEXT_HEADER, &mut out);
        for row in rows {
            let cells: Vec<&str> = row.iter().map(String::as_str).collect();
            line(&cells, &mut out);
        }
    }
    out.push_str(&verdict(inputs));
    out
}

pub(crate) fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// An input `compare` could not run (it did not load, or a strategy asked for does not apply
/// to it), and why: a row of its own in every table.
#[derive(Clone, Debug, Serialize)]
pub struct NotCompared {
    pub file: String,
    pub error: String,
}

/// CSV, one row per input and strategy, with the agreement verdict per row; an input not
/// compared is a row with only its name and, in the last column, why.
pub fn csv(inputs: &[InputRuns], failed: &[NotCompared]) -> String {
    let mut out = HEADER.join(",");
    out.push_str(",agree,error\n");
    let mut i = 0;
    let rows = rows(inputs);
    for input in inputs {
        let agree = input.agreement().map_or("".into(), |a| a.to_string());
        for _ in &input.runs {
            let cells: Vec<String> = rows[i].iter().map(|c| csv_cell(c)).collect();
            let _ = writeln!(out, "{},{agree},", cells.join(","));
            i += 1;
        }
    }
    for f in failed {
        let _ = writeln!(out, "{}{},{}", csv_cell(&f.file), ",".repeat(HEADER.len()), csv_cell(&f.error));
    }
    out
}

/// A Markdown table (as in the papers' Table 1), then the verdicts; an input not compared is
/// a row saying why.
pub fn markdown(inputs: &[InputRuns], failed: &[NotCompared]) -> String {
    let mut out = format!("| {} |\n|{}\n", HEADER.join(" | "), "---|".repeat(HEADER.len()));
    for row in rows(inputs) {
        let _ = writeln!(out, "| {} |", row.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
    }
    for f in failed {
        let why = format!("not compared: {}", f.error).replace('|', "\\|").replace('\n', " ");
        let _ = writeln!(out, "| {} | {why} |{}", f.file.replace('|', "\\|"), " |".repeat(HEADER.len() - 2));
    }
    out.push('\n');
    for line in verdict(inputs).lines() {
        let _ = writeln!(out, "- {line}");
    }
    out
}

/// An SVG bar chart: per input, the transitions of each strategy on a log scale, with an axis
/// of powers of ten; a run a limit stopped is hatched (its count is a lower bound).
pub fn svg(inputs: &[InputRuns]) -> String {
    let mut strategies: Vec<&str> = Vec::new();
    for input in inputs {
        for r in &input.runs {
            if !strategies.contains(&r.strategy.as_str()) {
                strategies.push(&r.strategy);
            }
        }
    }
    let colours = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948", "#9c755f"];
    let colour = |k: usize| colours[k % colours.len()];
    // Text is not measured by SVG: widths are estimated generously (11 px sans-serif averages
    // under 6.5 px a character), so that no label is cut at the edge.
    let text_width = |s: &str, size: f64| s.chars().count() as f64 * size * 0.62;
    let names: Vec<&str> = inputs.iter().map(|i| i.runs.first().map_or("", |r| r.file.as_str())).collect();
    let left = 16.0 + names.iter().map(|n| text_width(n, 11.0)).fold(60.0, f64::max);
    let (top, width, bar) = (44.0, 560.0, 14.0);
    let group = bar * strategies.len().max(1) as f64 + 16.0;
    let plot_bottom = top + group * inputs.len() as f64;
    let max = inputs.iter().flat_map(|i| &i.runs).map(|r| r.transitions).max().unwrap_or(1).max(10);
    // Decades from 1 to the first power of ten at or above the largest count.
    let decades = (max as f64).log10().ceil().max(1.0) as u32;
    let x_of = |t: u64| left + width * (t.max(1) as f64).log10() / decades as f64;
    let counts_room = text_width(&thousands(max), 9.0) + 12.0;
    let legend_x = left + width + counts_room;
    let legend_text =
        strategies.iter().map(|s| text_width(s, 11.0)).chain([text_width(UNFINISHED, 11.0)]).fold(0.0, f64::max);
    let total_width = legend_x + 16.0 + legend_text + 16.0;
    let legend_bottom = top + 16.0 * (strategies.len() + 1) as f64;
    let height = plot_bottom.max(legend_bottom) + 48.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{total_width:.0}\" height=\"{height:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n"
    );
    // One hatch per colour: an unfinished run keeps its strategy's colour.
    out.push_str("<defs>\n");
    // At least one: the legend's sample uses the first.
    for k in 0..strategies.len().max(1) {
        let _ = writeln!(
            out,
            "<pattern id=\"hatch{k}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
<rect width=\"6\" height=\"6\" fill=\"white\"/><rect width=\"3\" height=\"6\" fill=\"{}\"/></pattern>",
            colour(k)
        );
    }
    out.push_str("</defs>\n");
    let _ = writeln!(
        out,
        "<text x=\"{left:.1}\" y=\"20\" font-size=\"13\">transitions explored per input and strategy</text>"
    );
    // The axis: a grid line and a label per power of ten, under the bars.
    for d in 0..=decades {
        let x = left + width * d as f64 / decades as f64;
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\
<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text>",
            plot_bottom + 4.0,
            plot_bottom + 16.0,
            power_of_ten(d)
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{left:.1}\" y1=\"{plot_bottom:.1}\" x2=\"{:.1}\" y2=\"{plot_bottom:.1}\" stroke=\"#333\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">transitions (log scale)</text>",
        left + width,
        left + width / 2.0,
        plot_bottom + 34.0
    );
    for (k, s) in strategies.iter().enumerate() {
        let y = top + 16.0 * k as f64;
        let _ = writeln!(
            out,
            "<rect x=\"{legend_x:.1}\" y=\"{y}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{}\">{}</text>",
            colour(k),
            legend_x + 14.0,
            y + 9.0,
            xml(s)
        );
    }
    let y = top + 16.0 * strategies.len() as f64;
    let _ = writeln!(
        out,
        "<rect x=\"{legend_x:.1}\" y=\"{y}\" width=\"10\" height=\"10\" fill=\"url(#hatch0)\" stroke=\"#999\"/><text x=\"{:.1}\" y=\"{}\">{UNFINISHED}</text>",
        legend_x + 14.0,
        y + 9.0
    );
    for (i, input) in inputs.iter().enumerate() {
        let y0 = top + group * i as f64;
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            y0 + group / 2.0,
            xml(names[i])
        );
        for r in &input.runs {
            let k = strategies.iter().position(|s| *s == r.strategy).unwrap_or(0);
            let w = x_of(r.transitions) - left;
            let y = y0 + bar * k as f64;
            let fill = if r.finished { colour(k).to_string() } else { format!("url(#hatch{k})") };
            let status = if r.finished { String::new() } else { " (did not finish)".to_string() };
            let _ = writeln!(
                out,
                "<rect x=\"{left:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{fill}\" stroke=\"{}\" stroke-width=\"0.5\"><title>{} {}: {} transitions{status}</title></rect>",
                bar - 2.0,
                colour(k),
                xml(names[i]),
                xml(&r.strategy),
                r.transitions
            );
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"9\">{}{}</text>",
                left + w + 4.0,
                y + bar - 4.0,
                thousands(r.transitions),
                if r.finished { "" } else { "+" }
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// The legend's entry for runs a limit stopped.
const UNFINISHED: &str = "hatched: stopped by a limit (count so far, +)";

/// `1`, `10`, `100`, `1k`, ... `1M`, ... as the axis labels them.
fn power_of_ten(d: u32) -> String {
    let units = [(9, "G"), (6, "M"), (3, "k")];
    for (e, unit) in units {
        if d >= e {
            return format!("{}{unit}", 10u64.pow(d - e));
        }
    }
    10u64.pow(d).to_string()
}

pub(crate) fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
