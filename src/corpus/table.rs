//! The tables of `tracepor corpus`: one row per app pair, our `full` and `stateful-dpor`
//! beside the paper's JPF figures without and with DPOR, as aligned text (printed a row at a
//! time, as each pair finishes), CSV, Markdown and an SVG chart of the reductions.

use std::fmt::Write;

pub mod fse;
pub mod homes;

use crate::corpus::{summary, Row, Side, Summary};
use crate::report::compare::{csv_cell, plural, ratio, xml};
use crate::report::html::esc;
use crate::report::html::page::{table, Page};

/// Column names; `x` columns are reductions (full / stateful), `JPF` the paper's figures.
pub const HEADER: [&str; 22] = [
    "table",
    "no",
    "pair",
    "events",
    "full states",
    "full trans",
    "full s",
    "sdpor states",
    "sdpor trans",
    "sdpor s",
    "finished",
    "states x",
    "trans x",
    "agree",
    "JPF states",
    "JPF trans",
    "JPF s",
    "JPF+DPOR states",
    "JPF+DPOR trans",
    "JPF+DPOR s",
    "JPF states x",
    "JPF trans x",
];

/// Widths of the aligned text, fixed so that rows can be printed before the others exist.
const WIDTHS: [usize; 22] = [5, 3, 58, 7, 11, 11, 8, 12, 11, 8, 8, 8, 8, 5, 10, 10, 6, 15, 14, 10, 12, 11];

/// A count of one of our runs, in any of the corpus tables: `>n` when the search stopped before
/// the end (a lower bound), `-` when there was no run or no such count.
pub(crate) fn count(side: Option<&Side>, n: impl Fn(&Side) -> Option<u64>) -> String {
    match side {
        None => "-".into(),
        Some(s) => match n(s) {
            None => "-".into(),
            Some(v) if s.finished => v.to_string(),
            Some(v) => format!(">{v}"),
        },
    }
}

/// The seconds a run took, `-` when there was none.
pub(crate) fn secs(side: Option<&Side>) -> String {
    side.map_or("-".into(), |s| format!("{:.2}", s.time_s))
}

/// Whether a run finished: `yes`, else what stopped it; `-` when there was none.
pub(crate) fn finished(side: Option<&Side>) -> &str {
    match side {
        None => "-",
        Some(s) if s.finished => "yes",
        // What stopped it, as `stopped_by` says it (`time`, `states`, `memory`, `interrupt`).
        Some(s) => s.stopped_by.as_deref().unwrap_or("no"),
    }
}

fn paper(n: Option<u64>) -> String {
    n.map_or_else(|| "Unf".into(), |v| v.to_string())
}

/// The cells of one row, in [`HEADER`]'s order; then the note (why it did not load).
pub fn cells(r: &Row) -> (Vec<String>, Option<String>) {
    let (f, s) = (r.full.as_ref(), r.stateful.as_ref());
    let events = format!(
        "{}/{}",
        r.our_events.map_or("-".into(), |e| e.to_string()),
        r.pair.events.map_or("-".into(), |e| e.to_string())
    );
    let psecs = |t: Option<f64>| t.map_or("Unf".into(), |t| format!("{t}"));
    let row = vec![
        r.pair.table.clone(),
        r.pair.no.to_string(),
        r.pair.pair.clone(),
        events,
        count(f, |x| x.states),
        count(f, |x| Some(x.transitions)),
        secs(f),
        count(s, |x| x.states),
        count(s, |x| Some(x.transitions)),
        secs(s),
        if f.is_none() { "-".into() } else { format!("{}/{}", finished(f), finished(s)) },
        ratio(r.states_reduction),
        ratio(r.transitions_reduction),
        r.agree.map_or("-".into(), |a| if a { "yes".into() } else { "NO".into() }),
        paper(r.pair.nodpor.states),
        paper(r.pair.nodpor.transitions),
        psecs(r.pair.nodpor.time_s),
        paper(r.pair.dpor.states),
        paper(r.pair.dpor.transitions),
        psecs(r.pair.dpor.time_s),
        ratio(r.paper_states_reduction),
        ratio(r.paper_transitions_reduction),
    ];
    (row, r.error.clone())
}

fn aligned(cells: &[String], note: Option<&str>) -> String {
    aligned_cells(cells, &WIDTHS, |i| i == 2, note)
}

/// One line of fixed-width text: `cells` padded to `widths` (left-aligned where `left(i)`,
/// right-aligned elsewhere), then the note. Shared with the FSE 2020 table.
pub(crate) fn aligned_cells(
    cells: &[String],
    widths: &[usize],
    left: impl Fn(usize) -> bool,
    note: Option<&str>,
) -> String {
    let mut out = String::new();
    for (i, (c, &w)) in cells.iter().zip(widths).enumerate() {
        let _ = if left(i) { write!(out, "{c:<w$}  ") } else { write!(out, "{c:>w$}  ") };
    }
    if let Some(n) = note {
        out.push_str(n);
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// The header line of the aligned text.
pub fn text_header() -> String {
    let h: Vec<String> = HEADER.iter().map(|s| s.to_string()).collect();
    aligned(&h, Some("note"))
}

/// One row of the aligned text.
pub fn text_row(r: &Row) -> String {
    let (c, note) = cells(r);
    aligned(&c, note.as_deref())
}

/// The closing lines: how many pairs ran and finished, and the geometric means.
pub fn text_summary(s: &Summary) -> String {
    format!(
        "{} pairs: {} loaded, {} finished both ways here, {} in the paper.\n\
         Geometric mean over the {} pairs finished both ways, here and in the paper (full / stateful-dpor): \
         states {} (paper {}), transitions {} (paper {}).\n",
        s.pairs,
        s.loaded,
        s.ours_finished,
        s.paper_finished,
        s.both_finished,
        ratio(s.states_reduction),
        ratio(s.paper_states_reduction),
        ratio(s.transitions_reduction),
        ratio(s.paper_transitions_reduction),
    )
}

/// The whole aligned table.
pub fn render(rows: &[Row]) -> String {
    let mut out = text_header();
    for r in rows {
        out.push_str(&text_row(r));
    }
    out.push_str(&text_summary(&summary(rows)));
    out
}

/// CSV: one row per pair, the columns of [`HEADER`] and `note`.
pub fn csv(rows: &[Row]) -> String {
    csv_table(&HEADER, rows.iter().map(cells))
}

/// CSV of rows given as their cells and note, under `header` and `note`.
pub(crate) fn csv_table(header: &[&str], rows: impl Iterator<Item = (Vec<String>, Option<String>)>) -> String {
    let mut out = header.iter().map(|h| csv_cell(h)).collect::<Vec<_>>().join(",");
    out.push_str(",note\n");
    for (c, note) in rows {
        let mut line: Vec<String> = c.iter().map(|c| csv_cell(c)).collect();
        line.push(csv_cell(note.as_deref().unwrap_or("")));
        let _ = writeln!(out, "{}", line.join(","));
    }
    out
}

/// Markdown: the table, then the summary.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = format!("| {} | note |\n|{}\n", HEADER.join(" | "), "---|".repeat(HEADER.len() + 1));
    for r in rows {
        let (mut c, note) = cells(r);
        c.push(note.unwrap_or_default());
        let _ = writeln!(out, "| {} |", c.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
    }
    out.push('\n');
    out.push_str(&text_summary(&summary(rows)));
    out
}

/// A bar of the chart: label, colour, the reduction it draws.
type Bar = (&'static str, &'static str, fn(&Row) -> Option<f64>);

/// An SVG bar chart: per pair with any reduction measured, the state and transition
/// reductions, ours beside the paper's, on a log scale around 1x (left of it: more work).
pub fn svg(rows: &[Row]) -> String {
    let shown: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.states_reduction.is_some() || r.transitions_reduction.is_some() || r.paper_states_reduction.is_some()
        })
        .collect();
    let bars: [Bar; 4] = [
        ("states, ours", "#4e79a7", |r| r.states_reduction),
        ("states, paper", "#a0cbe8", |r| r.paper_states_reduction),
        ("transitions, ours", "#f28e2b", |r| r.transitions_reduction),
        ("transitions, paper", "#ffbe7d", |r| r.paper_transitions_reduction),
    ];
    let bar = 7.0;
    let group = bar * bars.len() as f64 + 8.0;
    let (left, top, width) = (330.0, 60.0, 520.0);
    let height = top + group * shown.len() as f64 + 30.0;
    let max =
        shown.iter().flat_map(|r| bars.iter().filter_map(|b| b.2(r))).map(|x| x.ln().abs()).fold(2f64.ln(), f64::max);
    // 1x in the middle: reductions grow right, blow-ups left.
    let mid = left + width / 2.0;
    let scale = |x: f64| x.ln() / max * (width / 2.0);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"10\">\n",
        left + width + 150.0
    );
    let s = summary(rows);
    let _ = writeln!(
        out,
        "<text x=\"10\" y=\"18\" font-size=\"13\">full / stateful-dpor, log scale around 1x: ours beside the paper's (JPF)</text>\n\
         <text x=\"10\" y=\"36\" font-size=\"11\">geometric mean over {} pairs finished both ways: states {} (paper {}), transitions {} (paper {})</text>",
        s.both_finished,
        ratio(s.states_reduction),
        ratio(s.paper_states_reduction),
        ratio(s.transitions_reduction),
        ratio(s.paper_transitions_reduction)
    );
    let _ = writeln!(
        out,
        "<line x1=\"{mid}\" y1=\"{}\" x2=\"{mid}\" y2=\"{}\" stroke=\"#888\"/><text x=\"{mid}\" y=\"{}\" text-anchor=\"middle\">1x</text>",
        top - 6.0,
        height - 20.0,
        height - 8.0
    );
    for (k, (label, colour, _)) in bars.iter().enumerate() {
        let y = top + 14.0 * k as f64;
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{y}\" width=\"10\" height=\"10\" fill=\"{colour}\"/><text x=\"{}\" y=\"{}\">{label}</text>",
            left + width + 20.0,
            left + width + 34.0,
            y + 9.0
        );
    }
    for (i, r) in shown.iter().enumerate() {
        let y0 = top + group * i as f64;
        let name = format!("{} {} {}", r.pair.table, r.pair.no, r.pair.pair);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y0 + group / 2.0,
            xml(&name)
        );
        for (k, (label, colour, f)) in bars.iter().enumerate() {
            let Some(x) = f(r) else { continue };
            let w = scale(x);
            let (x0, w) = if w >= 0.0 { (mid, w) } else { (mid + w, -w) };
            let _ = writeln!(
                out,
                "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{}\" fill=\"{colour}\"><title>{}: {label} {x:.2}x</title></rect>",
                y0 + bar * k as f64,
                bar - 1.0,
                xml(&name)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// `corpus --html` on the VMCAI tables: the table, its summary and the chart of reductions.
pub fn html_page(rows: &[Row]) -> String {
    let title = "tracepor corpus: VMCAI 2022 tables A.1/A.2".to_string();
    let mut page = Page::new(&title, &esc(&plural(rows.len(), "pair")));
    page.section("summary", "summary");
    page.para(&text_summary(&summary(rows)));
    page.html(&format!("<div class=\"scroll\">{}</div>", svg(rows)));
    page.end();
    let (header, cells) = with_notes(&HEADER, rows.iter().map(cells));
    let last = header.len() - 1;
    page.section("pairs", "pairs");
    page.html(&table(&header, &cells, |i| i == 2, |i| i == last, |i| rows[i].agree == Some(false)));
    page.end();
    page.finish(&title)
}

/// A corpus table's header and rows with the note as a last column.
pub(crate) fn with_notes<'h>(
    header: &[&'h str],
    rows: impl Iterator<Item = (Vec<String>, Option<String>)>,
) -> (Vec<&'h str>, Vec<Vec<String>>) {
    let header = header.iter().copied().chain(["note"]).collect();
    let rows = rows.map(|(cells, note)| cells.into_iter().chain([note.unwrap_or_default()]).collect()).collect();
    (header, rows)
}
