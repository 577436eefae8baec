//! Side-by-side tables of several strategies on one input, with the soundness verdict: does
//! every strategy reach the outcome set of the exhaustive one?

use std::fmt::Write;

use super::{bytes, opt, RunReport};

/// Whether every finished run has the same outcome set, errors and deadlocks as the
/// exhaustive reference (`full`, else `full-stateless`). `None` when no finished reference ran.
pub fn agreement(runs: &[RunReport]) -> Option<bool> {
    let reference =
        ["full", "full-stateless"].iter().find_map(|name| runs.iter().find(|r| r.strategy == *name && r.finished))?;
    Some(runs.iter().filter(|r| r.finished).all(|r| r.found.same_as(&reference.found)))
}

pub fn render(runs: &[RunReport]) -> String {
    let header = [
        "strategy",
        "executions",
        "states",
        "transitions",
        "unique",
        "outcomes",
        "errors",
        "time s",
        "peak mem",
        "finished",
    ];
    let rows: Vec<[String; 10]> = runs
        .iter()
        .map(|r| {
            [
                r.strategy.clone(),
                r.executions.to_string(),
                opt(r.states),
                r.transitions.to_string(),
                opt(r.unique_transitions),
                r.outcomes.to_string(),
                r.errors.len().to_string(),
                format!("{:.3}", r.time_s),
                bytes(r.peak_rss_bytes),
                if r.finished { "yes".into() } else { r.stopped_by.unwrap_or("no").into() },
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    if let Some(first) = runs.first() {
        let _ = writeln!(out, "{} ({})", first.file, first.model);
    }
    let line = |cells: &[&str], out: &mut String| {
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if i == 0 {
                let _ = write!(out, "{c:<w$}");
            } else {
                let _ = write!(out, "  {c:>w$}");
            }
        }
        out.push('\n');
    };
    line(&header, &mut out);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&cells, &mut out);
    }
    match agreement(runs) {
        Some(true) => out.push_str("outcome sets: all strategies agree with the exhaustive search\n"),
        Some(false) => out
            .push_str("outcome sets: DISAGREE with the exhaustive search (a reduction lost or invented an outcome)\n"),
        None => out.push_str("outcome sets: not checked (no finished exhaustive run)\n"),
    }
    out
}
