//! Side-by-side tables of strategies over one or many inputs, in the manner of the TACAS 2016
//! and VMCAI 2022 result tables: counts per input and strategy, the reduction relative to the
//! exhaustive search and to `dpor`, and the soundness verdict (does every strategy reach the
//! outcome set of the exhaustive one?). Rendered as aligned text, CSV, Markdown and an SVG chart.

use std::fmt::Write;

use serde::Serialize;

use super::{opt, RunReport};
use crate::explore::registry;

/// Whether the runs of one input agree with the exhaustive one (computed by
/// `check::verdict`, which has the model to write schedules with).
#[derive(Clone, Debug)]
pub enum Verdict {
    Agree,
    /// Not checked, and why: no exhaustive run, or which runs did not finish.
    NotChecked(String),
    Disagree(Vec<Disagreement>),
}

/// A strategy whose outcome set differs from the exhaustive one.
#[derive(Clone, Debug, Serialize)]
pub struct Disagreement {
    pub strategy: String,
    /// Outcomes (and errors) the exhaustive run reached and this one did not.
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
}

impl Verdict {
    /// cli.md's `agree`: true or false only when it was checked.
    pub fn agree(&self) -> Option<bool> {
        match self {
            Verdict::Agree => Some(true),
            Verdict::NotChecked(_) => None,
            Verdict::Disagree(_) => Some(false),
        }
    }

    /// The JSON document of one input: runs, `agree`, and why not checked or what differs.
    pub fn json(&self, runs: &[RunReport]) -> serde_json::Value {
        let mut doc = serde_json::json!({ "runs": runs, "agree": self.agree() });
        match self {
            Verdict::Agree => {}
            Verdict::NotChecked(why) => doc["not_checked"] = serde_json::json!(why),
            Verdict::Disagree(d) => doc["disagreements"] = serde_json::json!(d),
        }
        doc
    }

    fn render(&self, file: &str, out: &mut String) {
        let _ = match self {
            Verdict::Agree => writeln!(out, "{file}: outcome sets agree with the exhaustive search"),
            Verdict::NotChecked(why) => writeln!(out, "{file}: outcome sets not checked: {why}"),
            Verdict::Disagree(ds) => {
                for d in ds {
                    let _ = writeln!(
                        out,
                        "{file}: {} DISAGREES with the exhaustive search: {} missed, {} invented (a bug in the strategy, not in the program)",
                        d.strategy,
                        plural(d.missed.len(), "outcome"),
                        d.invented.len()
                    );
                    if let Some(w) = &d.witness {
                        let what = if d.missed.contains(&w.outcome) { "missed" } else { "invented" };
                        let _ = writeln!(out, "  {what}: {}\n  reached by {}: {}", w.outcome, w.reached_by, w.replay);
                    }
                }
                Ok(())
            }
        };
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

    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    fn transitions_of(&self, names: &[&str]) -> Option<u64> {
        names.iter().find_map(|n| self.runs.iter().find(|r| r.strategy == *n && r.finished)).map(|r| r.transitions)
    }

    /// Transitions of the exhaustive search divided by this run's (how many times fewer).
    fn reduction(&self, r: &RunReport, reference: &[&str]) -> Option<f64> {
        let base = self.transitions_of(reference)?;
        (r.finished && r.transitions > 0).then(|| base as f64 / r.transitions as f64)
    }
}

const HEADER: [&str; 14] = [
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
    "finished",
];

/// `1 outcome`, `2 outcomes`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

pub(crate) fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |x| format!("{x:.2}x"))
}

fn rows(inputs: &[InputRuns]) -> Vec<[String; 14]> {
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
                ratio(input.reduction(r, &registry::exhaustive().rev().map(|e| e.name).collect::<Vec<_>>())),
                ratio(input.reduction(r, &["dpor"])),
                if r.finished { "yes".into() } else { r.stopped_by.map_or("no", |s| s.describe()).into() },
            ]);
        }
    }
    out
}

fn verdict(inputs: &[InputRuns]) -> String {
    let mut out = String::new();
    for input in inputs {
        let file = input.runs.first().map_or("", |r| r.file.as_str());
        input.verdict.render(file, &mut out);
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
const TEXT_HEADER: [&str; 11] =
    ["strategy", "execs", "states", "trans", "outcomes", "blocked", "errors", "time s", "vs exh", "vs dpor", "done"];

fn text_rows(input: &InputRuns) -> Vec<[String; 11]> {
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
                ratio(input.reduction(r, &exhaustive)),
                ratio(input.reduction(r, &["dpor"])),
                if r.finished { "yes".into() } else { r.stopped_by.map_or("no", |s| s.code()).into() },
            ]
        })
        .collect()
}

/// Aligned text table: per input a heading line, then one row per strategy; then the verdicts.
pub fn render(inputs: &[InputRuns]) -> String {
    let all: Vec<Vec<[String; 11]>> = inputs.iter().map(text_rows).collect();
    // A column with nothing in any row (all `-` or all 0: `blocked` outside the strategies that
    // block, `states` among stateless runs, `errors` where none was found) is left out.
    let shown: Vec<usize> = (0..TEXT_HEADER.len())
        .filter(|&c| [0, 1, 3, 7, 10].contains(&c) || all.iter().flatten().any(|row| row[c] != "-" && row[c] != "0"))
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

/// An SVG bar chart: per input, the transitions of each strategy on a log scale.
pub fn svg(inputs: &[InputRuns]) -> String {
    let mut strategies: Vec<&str> = Vec::new();
    for input in inputs {
        for r in &input.runs {
            if !strategies.contains(&r.strategy.as_str()) {
                strategies.push(&r.strategy);
            }
        }
    }
    let colours = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"];
    let bar = 14.0;
    let group = bar * strategies.len() as f64 + 16.0;
    let (left, top, width) = (260.0, 40.0, 560.0);
    let height = top + group * inputs.len() as f64 + 40.0;
    let max = inputs.iter().flat_map(|i| &i.runs).map(|r| r.transitions.max(1)).max().unwrap_or(1) as f64;
    let scale = |t: u64| width * ((t.max(1) as f64).ln_1p() / max.ln_1p());
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        left + width + 140.0
    );
    let _ = writeln!(
        out,
        "<text x=\"{left}\" y=\"20\" font-size=\"13\">transitions explored (log scale; hatched: unfinished)</text>"
    );
    for (k, s) in strategies.iter().enumerate() {
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{s}</text>",
            left + width + 20.0,
            top + 16.0 * k as f64,
            colours[k % colours.len()],
            left + width + 34.0,
            top + 9.0 + 16.0 * k as f64
        );
    }
    for (i, input) in inputs.iter().enumerate() {
        let y0 = top + group * i as f64;
        let name = input.runs.first().map_or("", |r| r.file.as_str());
        let short: String = name.chars().rev().take(38).collect::<Vec<_>>().into_iter().rev().collect();
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            y0 + group / 2.0,
            xml(&short)
        );
        for r in &input.runs {
            let k = strategies.iter().position(|s| *s == r.strategy).unwrap_or(0);
            let w = scale(r.transitions);
            let y = y0 + bar * k as f64;
            let opacity = if r.finished { "1" } else { "0.4" };
            let _ = writeln!(
                out,
                "<rect x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\" fill-opacity=\"{opacity}\"><title>{} {}: {} transitions</title></rect>",
                bar - 2.0,
                colours[k % colours.len()],
                xml(name),
                r.strategy,
                r.transitions
            );
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"9\">{}</text>",
                left + w + 4.0,
                y + bar - 4.0,
                r.transitions
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

pub(crate) fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
