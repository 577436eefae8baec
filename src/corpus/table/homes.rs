//! The table of `tracepor corpus --homes`: one row per home (an IoTCheck app list checked
//! whole), then how many finished; aligned text (a row at a time, as each home finishes), CSV
//! and Markdown. The note of a row lists its conflicts by device and attribute.

use std::fmt::Write;

use super::{aligned_cells, count, csv_table, finished, secs};
use crate::corpus::homes::{summary, HomeRow, HomesSummary};
use crate::report::findings;

/// Column names.
pub const HEADER: [&str; 15] = [
    "home",
    "apps",
    "events",
    "states",
    "trans",
    "s",
    "MiB",
    "finished",
    "conflicts",
    "attributes",
    "pairs",
    "via 3rd",
    "pairwise",
    "missed",
    "thru 3rd",
];

/// Widths of the aligned text, fixed so that rows can be printed before the others exist.
const WIDTHS: [usize; 15] = [28, 4, 6, 9, 10, 7, 7, 8, 9, 10, 5, 7, 8, 6, 8];

/// The cells of one row, in [`HEADER`]'s order; then the note (the conflicts, or why the home
/// did not load).
pub fn cells(r: &HomeRow) -> (Vec<String>, Option<String>) {
    let loaded = r.run.is_some();
    let row = vec![
        r.home.home.clone(),
        if loaded { r.apps.to_string() } else { "-".into() },
        r.events.map_or("-".into(), |e| e.to_string()),
        count(r.run.as_ref(), |s| s.states),
        count(r.run.as_ref(), |s| Some(s.transitions)),
        secs(r.run.as_ref()),
        r.peak_mib.map_or("-".into(), |m| format!("{m:.0}")),
        finished(r.run.as_ref()).to_string(),
        if loaded { r.conflicts.to_string() } else { "-".into() },
        if loaded { r.by_attribute.len().to_string() } else { "-".into() },
        if loaded { r.findings().to_string() } else { "-".into() },
        // Pair conflicts: pairs no direct conflict names, found through a third app's write.
        if loaded { r.pair_findings().to_string() } else { "-".into() },
        // The pairs' findings (`+u` when u pairs did not finish), and how many the home missed.
        r.pairwise.as_ref().map_or("-".into(), |p| {
            let open = if p.unfinished > 0 { format!("+{}", p.unfinished) } else { String::new() };
            format!("{}{open}", p.findings)
        }),
        r.pairwise.as_ref().map_or("-".into(), |p| p.missing.len().to_string()),
        // Pairwise findings the home has as pair conflicts only.
        r.pairwise.as_ref().map_or("-".into(), |p| p.through_third.len().to_string()),
    ];
    let mut note =
        r.error.clone().or_else(|| (!r.by_attribute.is_empty()).then(|| findings::summary_line(&r.by_attribute)));
    if let Some(p) = r.pairwise.as_ref().filter(|p| !p.missing.is_empty()) {
        let each: Vec<String> = p
            .missing
            .iter()
            .enumerate()
            .map(|(i, k)| match p.why.get(i) {
                Some(why) => format!("{k} ({why})"),
                None => k.clone(),
            })
            .collect();
        let missed = format!("MISSED (pairwise only, {} unexplained): {}", p.unexplained(), each.join("; "));
        note = Some(note.map_or(missed.clone(), |n| format!("{n} | {missed}")));
    }
    if !r.pair_by_attribute.is_empty() {
        let pairs = format!("pair conflicts: {}", findings::summary_line(&r.pair_by_attribute));
        note = Some(note.map_or(pairs.clone(), |n| format!("{n} | {pairs}")));
    }
    if let Some(p) = r.pairwise.as_ref().filter(|p| !p.through_third.is_empty()) {
        let third = format!("pairwise, found through a third app: {}", p.through_third.join("; "));
        note = Some(note.map_or(third.clone(), |n| format!("{n} | {third}")));
    }
    (row, note)
}

fn aligned(cells: &[String], note: Option<&str>) -> String {
    aligned_cells(cells, &WIDTHS, |i| i == 0 || i == 7, note)
}

pub fn text_header() -> String {
    let h: Vec<String> = HEADER.iter().map(|s| s.to_string()).collect();
    aligned(&h, Some("conflicts by device.attribute: app/app pairs"))
}

pub fn text_row(r: &HomeRow) -> String {
    let (c, note) = cells(r);
    aligned(&c, note.as_deref())
}

pub fn text_summary(s: &HomesSummary) -> String {
    format!(
        "{} homes: {} loaded, {} finished, {} with conflicts; {} (device, attribute, app pair) findings, {} more as pair conflicts.\n",
        s.homes, s.loaded, s.finished, s.with_conflicts, s.findings, s.pair_findings
    )
}

/// The whole table as text (`corpus-merge`).
pub fn render(rows: &[HomeRow]) -> String {
    let mut out = text_header();
    for r in rows {
        out.push_str(&text_row(r));
    }
    out.push_str(&text_summary(&summary(rows)));
    out
}

pub fn csv(rows: &[HomeRow]) -> String {
    csv_table(&HEADER, rows.iter().map(cells))
}

pub fn markdown(rows: &[HomeRow]) -> String {
    let mut out = format!("| {} | conflicts |\n|{}\n", HEADER.join(" | "), "---|".repeat(HEADER.len() + 1));
    for r in rows {
        let (mut c, note) = cells(r);
        c.push(note.unwrap_or_default());
        let _ = writeln!(out, "| {} |", c.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
    }
    let _ = write!(out, "\n{}", text_summary(&summary(rows)));
    out
}
