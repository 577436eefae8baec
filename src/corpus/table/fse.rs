//! The tables of `tracepor corpus` on IoTCheck's FSE 2020 study: one row per pair (our verdict,
//! IoTCheck's, the manual label, whether they agree), then, per category of the study (device
//! interaction, global variable, physical medium: the paper's Tables 3, 4 and 6), the agreement
//! per group and over the category; aligned text (a row at a time, as each pair finishes), CSV
//! and Markdown.

use std::fmt::Write;

use super::{aligned_cells, count, csv_table, secs, with_notes};
use crate::corpus::fse::{summary, Confusion, FseRow, FseSummary, IotCheck, Ours, Tally};
use crate::report::compare::plural;
use crate::report::html::esc;
use crate::report::html::page::{table, Page};

/// Column names of the per-pair table.
pub const HEADER: [&str; 12] =
    ["group", "no", "app1", "app2", "ours", "iotcheck", "manual", "vs iotcheck", "vs manual", "states", "trans", "s"];

/// Widths of the aligned text, fixed so that rows can be printed before the others exist.
const WIDTHS: [usize; 12] = [29, 4, 47, 47, 19, 14, 52, 11, 9, 8, 9, 6];

/// A pair's app as tables show it: without `.groovy`.
fn app(name: &str) -> String {
    name.strip_suffix(".groovy").unwrap_or(name).to_string()
}

/// Our verdict in a cell: `conflict`, `no conflict`, `unfinished (time)`; `-` when not loaded.
pub fn ours(r: &FseRow) -> String {
    match r.verdict {
        None => "-".into(),
        Some(Ours::Conflict) => "conflict".into(),
        Some(Ours::NoConflict) => "no conflict".into(),
        Some(Ours::Unfinished) => {
            let why = r.run.as_ref().and_then(|s| s.stopped_by.clone()).unwrap_or_else(|| "no".into());
            format!("unfinished ({why})")
        }
    }
}

/// The cells of one row, in [`HEADER`]'s order; then the note (the first conflict, or why the
/// pair did not load).
pub fn cells(r: &FseRow) -> (Vec<String>, Option<String>) {
    let vs_iot = match (r.decided(), r.pair.iotcheck_decided()) {
        (Some(a), Some(b)) if a == b => "agree",
        (Some(_), Some(_)) => "differ",
        _ => "-",
    };
    let vs_manual = match r.manual_conflict {
        None => "-",
        Some(actual) => match (r.found(), actual) {
            (true, true) => "TP",
            (true, false) => "FP",
            (false, true) => "FN",
            (false, false) => "TN",
        },
    };
    let row = vec![
        r.pair.group.clone(),
        r.pair.no.to_string(),
        app(&r.pair.app1),
        app(&r.pair.app2),
        ours(r),
        r.pair.iotcheck.map_or("-", IotCheck::as_str).to_string(),
        r.pair.manual.clone().unwrap_or_else(|| "-".into()),
        vs_iot.into(),
        vs_manual.into(),
        count(r.run.as_ref(), |s| s.states),
        count(r.run.as_ref(), |s| Some(s.transitions)),
        secs(r.run.as_ref()),
    ];
    (row, r.error.clone().or_else(|| r.conflict.clone()))
}

fn aligned(cells: &[String], note: Option<&str>) -> String {
    aligned_cells(cells, &WIDTHS, |i| i != 1 && i < 9, note)
}

pub fn text_header() -> String {
    let h: Vec<String> = HEADER.iter().map(|s| s.to_string()).collect();
    aligned(&h, Some("note"))
}

pub fn text_row(r: &FseRow) -> String {
    let (c, note) = cells(r);
    aligned(&c, note.as_deref())
}

/// Columns of the summary: per group and overall.
pub const SUMMARY_HEADER: [&str; 17] = [
    "group",
    "pairs",
    "loaded",
    "finished",
    "conflict",
    "none",
    "unfinished",
    "iotcheck decided",
    "both decided",
    "agree",
    "only ours",
    "only iotcheck",
    "labelled",
    "TP/FP/FN/TN",
    "recall",
    "precision",
    "iotcheck TP/FP/FN/TN recall precision",
];

fn share(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

fn matrix(c: &Confusion) -> String {
    format!("{}/{}/{}/{}", c.tp, c.fp, c.fn_, c.tn)
}

fn summary_cells(t: &Tally) -> Vec<String> {
    vec![
        t.group.clone(),
        t.pairs.to_string(),
        t.loaded.to_string(),
        t.finished.to_string(),
        t.conflict.to_string(),
        t.no_conflict.to_string(),
        t.unfinished.to_string(),
        t.iotcheck_decided.to_string(),
        t.both_decided.to_string(),
        t.agree_with_iotcheck.to_string(),
        t.conflict_only_ours.to_string(),
        t.conflict_only_iotcheck.to_string(),
        t.labelled.to_string(),
        if t.labelled > 0 { matrix(&t.vs_manual) } else { "-".into() },
        share(t.recall),
        share(t.precision),
        if t.iotcheck_vs_manual != Confusion::default() {
            format!("{} {} {}", matrix(&t.iotcheck_vs_manual), share(t.iotcheck_recall), share(t.iotcheck_precision))
        } else {
            "-".into()
        },
    ]
}

/// What a category's summary columns mean, under it.
fn summary_note(s: &FseSummary) -> String {
    format!(
        "conflict/none/unfinished: our verdicts (a conflict found counts even if the search did not finish); \
agree, only ours, only iotcheck: over the pairs both decided; TP/FP/FN/TN, recall, precision: against the \
manual labels ({}), a pair not decided counting as no conflict found.",
        s.category.label_rule()
    )
}

/// Each category's summary as an aligned table under its title, then what its columns mean.
pub fn text_summary(summaries: &[FseSummary]) -> String {
    summaries.iter().map(text_category).collect()
}

fn text_category(s: &FseSummary) -> String {
    let rows: Vec<Vec<String>> = s.groups.iter().chain(std::iter::once(&s.all)).map(summary_cells).collect();
    let mut widths: Vec<usize> = SUMMARY_HEADER.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let mut out = format!("\n{}\n", s.category.title());
    let line = |cells: &[String], out: &mut String| {
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let _ = if i == 0 { write!(out, "{c:<w$}  ") } else { write!(out, "{c:>w$}  ") };
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    };
    line(&SUMMARY_HEADER.map(String::from), &mut out);
    for r in &rows {
        line(r, &mut out);
    }
    out.push_str(&summary_note(s));
    out.push('\n');
    out
}

pub fn render(rows: &[FseRow]) -> String {
    let mut out = text_header();
    for r in rows {
        out.push_str(&text_row(r));
    }
    out.push_str(&text_summary(&summary(rows)));
    out
}

/// CSV: one row per pair, the columns of [`HEADER`] and `note`.
pub fn csv(rows: &[FseRow]) -> String {
    csv_table(&HEADER, rows.iter().map(cells))
}

fn md_row(cells: &[String]) -> String {
    format!("| {} |\n", cells.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "))
}

/// Markdown: each category's summary table under its title, then the pairs.
pub fn markdown(rows: &[FseRow]) -> String {
    let mut out = String::new();
    for s in summary(rows) {
        let _ = writeln!(out, "**{}**\n", s.category.title());
        out.push_str(&md_row(&SUMMARY_HEADER.map(String::from)));
        out.push_str(&format!("|{}\n", "---|".repeat(SUMMARY_HEADER.len())));
        for t in s.groups.iter().chain(std::iter::once(&s.all)) {
            out.push_str(&md_row(&summary_cells(t)));
        }
        let _ = writeln!(out, "\n{}\n", summary_note(&s));
    }
    out.push_str(&md_row(&HEADER.iter().chain(&["note"]).map(|s| s.to_string()).collect::<Vec<_>>()));
    out.push_str(&format!("|{}\n", "---|".repeat(HEADER.len() + 1)));
    for r in rows {
        let (mut c, note) = cells(r);
        c.push(note.unwrap_or_default());
        out.push_str(&md_row(&c));
    }
    out
}

/// `corpus --html` on IoTCheck's FSE 2020 pairs: the table and the agreement per group.
pub fn html_page(rows: &[FseRow]) -> String {
    let title = "tracepor corpus: IoTCheck's FSE 2020 pairs".to_string();
    let mut page = Page::new(&title, &esc(&plural(rows.len(), "pair")));
    page.section("agreement", "agreement");
    page.html(&format!("<pre>{}</pre>", esc(&text_summary(&summary(rows)))));
    page.end();
    let (header, cells) = with_notes(&HEADER, rows.iter().map(cells));
    let last = header.len() - 1;
    page.section("pairs", "pairs");
    page.html(&table(&header, &cells, |i| i != 1 && i < 9, |i| i == last || i == 6, |i| cells[i][7] == "differ"));
    page.end();
    page.finish(&title)
}
