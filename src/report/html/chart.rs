//! `compare`'s table as charts: per input, one panel per measure (executions, states,
//! transitions, time), a bar per strategy, on a log scale (counts span orders of magnitude
//! between an exhaustive search and a reduction); a run a limit stopped is hatched, its count a
//! lower bound.

use std::fmt::Write;

use super::esc;
use crate::report::compare::{thousands, InputRuns};
use crate::report::RunReport;

/// Strategy colours (not the lanes' colours: a page's screenshot tells lanes by theirs).
const COLOURS: [&str; 8] = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7"];

/// A measure of a run: its name, its value (None: the strategy does not keep it), how to print it.
type Measure = (&'static str, fn(&RunReport) -> Option<f64>, fn(f64) -> String);

const MEASURES: [Measure; 4] = [
    ("executions", |r| Some(r.executions as f64), |v| thousands(v as u64)),
    ("states", |r| r.states.map(|s| s as f64), |v| thousands(v as u64)),
    ("transitions", |r| Some(r.transitions as f64), |v| thousands(v as u64)),
    ("time (s)", |r| Some(r.time_s), |v| format!("{v:.3}")),
];

/// The panels of one input, side by side (they wrap on a narrow page).
pub fn input_charts(input: &InputRuns, strategies: &[&str]) -> String {
    let mut out = String::from("<div class=\"charts\">\n");
    for m in MEASURES {
        out.push_str(&panel(input, strategies, m));
    }
    out.push_str("</div>\n");
    out
}

/// Every strategy of `inputs`, in the order first run: one colour each across the page.
pub fn strategies(inputs: &[InputRuns]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in inputs.iter().flat_map(|i| &i.runs) {
        if !out.contains(&r.strategy.as_str()) {
            out.push(&r.strategy);
        }
    }
    out
}

fn colour(strategies: &[&str], s: &str) -> (usize, &'static str) {
    let k = strategies.iter().position(|x| *x == s).unwrap_or(0);
    (k, COLOURS[k % COLOURS.len()])
}

/// One panel: a bar per run of `input` for measure `m`, log scale from the smallest decade
/// below the values to the first power of ten at or above the largest.
fn panel(input: &InputRuns, strategies: &[&str], (name, value, show): Measure) -> String {
    let (label_w, plot_w, bar, gap) = (118.0, 300.0, 16.0, 5.0);
    let runs: Vec<(&RunReport, Option<f64>)> = input.runs.iter().map(|r| (r, value(r))).collect();
    let values: Vec<f64> = runs.iter().filter_map(|(_, v)| *v).filter(|v| *v > 0.0).collect();
    let hi = values.iter().copied().fold(f64::MIN, f64::max);
    let lo = values.iter().copied().fold(f64::MAX, f64::min);
    let (d0, d1) = if values.is_empty() {
        (0, 1)
    } else {
        let d0 = lo.log10().floor() as i32;
        (d0, (hi.log10().ceil() as i32).max(d0 + 1))
    };
    let x_of = |v: f64| label_w + plot_w * ((v.log10() - d0 as f64) / (d1 - d0) as f64).clamp(0.0, 1.0);
    let top = 28.0;
    let height = top + (bar + gap) * runs.len() as f64 + 30.0;
    let width = label_w + plot_w + 90.0;
    let mut out = format!(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n\
<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{}</text>\
<text x=\"{:.0}\" y=\"16\" font-size=\"10\" fill=\"#777\" text-anchor=\"end\">log scale</text>\n",
        esc(name),
        label_w + plot_w
    );
    let _ = write!(out, "<defs>");
    for (k, _) in strategies.iter().enumerate() {
        let _ = write!(
            out,
            "<pattern id=\"h-{}-{k}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
<rect width=\"6\" height=\"6\" fill=\"#fff\"/><rect width=\"3\" height=\"6\" fill=\"{}\"/></pattern>",
            name.split(' ').next().unwrap_or(name),
            COLOURS[k % COLOURS.len()]
        );
    }
    out.push_str("</defs>\n");
    let bottom = top + (bar + gap) * runs.len() as f64;
    for d in d0..=d1 {
        let x = label_w + plot_w * (d - d0) as f64 / (d1 - d0) as f64;
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" stroke=\"#e3e6eb\"/>\
<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"9\" fill=\"#666\">{}</text>",
            bottom + 12.0,
            decade(d)
        );
    }
    for (i, (r, v)) in runs.iter().enumerate() {
        let y = top + (bar + gap) * i as f64;
        let (k, c) = colour(strategies, &r.strategy);
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            label_w - 6.0,
            y + bar - 4.0,
            esc(&r.strategy)
        );
        let Some(v) = v else {
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#999\">not kept</text>",
                label_w + 4.0,
                y + bar - 4.0
            );
            continue;
        };
        let w = if *v > 0.0 { (x_of(*v) - label_w).max(2.0) } else { 0.0 };
        let fill =
            if r.finished { c.to_string() } else { format!("url(#h-{}-{k})", name.split(' ').next().unwrap_or(name)) };
        let more = if r.finished { "" } else { "+" };
        let _ = writeln!(
            out,
            "<rect x=\"{label_w}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{bar}\" rx=\"2\" fill=\"{fill}\" stroke=\"{c}\"><title>{}: {} {}{}</title></rect>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\">{}{more}</text>",
            esc(&r.strategy),
            show(*v),
            esc(name),
            if r.finished { "" } else { " (stopped by a limit: a lower bound)" },
            label_w + w + 4.0,
            y + bar - 4.0,
            show(*v)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// A power of ten as an axis label: `1ms`-style for fractions, `10k`, `1M` for counts.
fn decade(d: i32) -> String {
    match d {
        d if d < 0 => format!("1e{d}"),
        d if d >= 9 => format!("{}G", 10u64.pow(d as u32 - 9)),
        d if d >= 6 => format!("{}M", 10u64.pow(d as u32 - 6)),
        d if d >= 3 => format!("{}k", 10u64.pow(d as u32 - 3)),
        d => 10u64.pow(d as u32).to_string(),
    }
}
