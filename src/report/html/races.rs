//! The race report and the outcomes explained ([`crate::explore::races`]) on `check`'s
//! page: the races with their verdicts, each race that changes an outcome drawn from its witness
//! run (the racing pair outlined: the second access runs before the first), and what each
//! outcome sees differently from the recorded run.

use std::fmt::Write;

use super::lanes::legend;
use super::page::{badge, table};
use super::{esc, figure_html, race_witness, Figure, MAX_FIGURES};
use crate::explore::races::RaceReport;
use crate::model::{parse_schedule, Model};

/// Race witnesses drawn open on a page; the others are folded.
const OPEN_FIGURES: usize = 3;

/// Outcomes explained in full on a page; the JSON has them all.
const MAX_OUTCOMES: usize = 60;

/// The witness of each race that changes an outcome, drawn (at most [`MAX_FIGURES`]).
pub fn race_figures<M: Model>(model: &M, r: &RaceReport) -> Vec<Figure> {
    let mut out = Vec::new();
    for (i, race) in r.races.iter().enumerate() {
        if out.len() >= MAX_FIGURES {
            break;
        }
        let Some(w) = race.witness.as_ref().filter(|_| race.changes_outcome == Some(true)) else { continue };
        let Ok(path) = parse_schedule(model, &w.schedule) else { continue };
        let dead = if w.deadlock { ", a deadlock" } else { "" };
        out.push(Figure {
            title: format!("race {} on {}", i + 1, race.location),
            caption: format!(
                "{} and {}, reversed (second at step {}, first at step {}) in outcome {}{dead}: {}",
                race.first.describe(),
                race.second.describe(),
                w.second_step,
                w.first_step,
                w.outcome + 1,
                w.differs.join("; ")
            ),
            schedule: w.schedule.clone(),
            diagram: race_witness(model, &path, (race.first.index, race.second.index)),
            of_error: None,
        });
    }
    out
}

/// The races section: counts, the table of races, the witnesses drawn.
pub fn races_section(r: &RaceReport, figures: &[Figure]) -> String {
    let mut out = String::from("<section id=\"races\"><h2>races</h2>\n");
    if let Some(why) = &r.not_analysed {
        let _ = writeln!(out, "<p>{}</p></section>", esc(&format!("not analysed: {why}")));
        return out;
    }
    let n = |c: Option<u64>| c.unwrap_or(0);
    let _ = writeln!(
        out,
        "<p>{} of conflicting accesses the recorded run leaves unordered: {}{}{}</p>",
        crate::report::compare::plural(n(r.pairs) as usize, "pair"),
        badge(
            if n(r.changes_outcome) > 0 { "bad" } else { "good" },
            &format!("{} change an outcome", n(r.changes_outcome))
        ),
        badge("info", &format!("{} benign", n(r.benign))),
        if n(r.undecided) > 0 {
            badge("warn", &format!("{} undecided (search incomplete)", n(r.undecided)))
        } else {
            String::new()
        },
    );
    if r.per_class {
        let _ = write!(
            out,
            "<p>{}</p>",
            esc(&format!("listed per class (location, task, task): {} classes", r.races.len()))
        );
    }
    // Those that change an outcome first, then the undecided, then the benign.
    let mut order: Vec<usize> = (0..r.races.len()).collect();
    order.sort_by_key(|&i| match r.races[i].changes_outcome {
        Some(true) => 0,
        None => 1,
        Some(false) => 2,
    });
    let rows: Vec<Vec<String>> = order
        .iter()
        .take(500)
        .map(|&i| {
            let x = &r.races[i];
            let verdict = match x.changes_outcome {
                Some(true) => format!("changes outcome {}", x.witness.as_ref().map_or(0, |w| w.outcome + 1)),
                Some(false) => "benign".into(),
                None => "undecided".into(),
            };
            vec![
                (i + 1).to_string(),
                x.location.clone(),
                x.first.describe(),
                x.second.describe(),
                verdict,
                x.pairs.to_string(),
            ]
        })
        .collect();
    let harmful = |k: usize| r.races[order[k]].changes_outcome == Some(true);
    out.push_str(&table(
        &["race", "location", "first (recorded)", "second", "verdict", "pairs"],
        &rows,
        |i| (1..=4).contains(&i),
        |i| (1..=3).contains(&i),
        harmful,
    ));
    if r.races.len() > rows.len() {
        let _ = write!(out, "<p>{} more (the JSON lists them all)</p>", r.races.len() - rows.len());
    }
    if !figures.is_empty() {
        let _ = writeln!(out, "<h3>races that change an outcome, from their witness runs</h3><p>{}</p>", legend());
        // The first few open; the others (each a whole run) folded.
        for (k, f) in figures.iter().enumerate() {
            if k < OPEN_FIGURES {
                out.push_str(&figure_html(f, false));
            } else {
                let _ = writeln!(
                    out,
                    "<details class=\"figure\"><summary>{}</summary>{}</details>",
                    esc(&f.title),
                    figure_html(f, false)
                );
            }
        }
    }
    out.push_str("</section>\n");
    out
}

/// The outcomes section: each outcome against the recorded run.
pub fn outcomes_section(r: &RaceReport) -> String {
    let mut out = String::from("<section id=\"outcomes\"><h2>outcomes, against the recorded run</h2>\n");
    if r.outcomes.is_empty() {
        out.push_str("<p>no outcomes explained</p></section>\n");
        return out;
    }
    for (i, o) in r.outcomes.iter().take(MAX_OUTCOMES).enumerate() {
        let what = if o.recorded {
            badge("good", "the recorded run's")
        } else if o.deadlock {
            badge("bad", "deadlock")
        } else {
            badge("info", &format!("{} differences", o.differences.len()))
        };
        let _ = write!(out, "<h3>outcome {} {what}</h3>", i + 1);
        if !o.differences.is_empty() {
            out.push_str("<ul>");
            for d in &o.differences {
                let _ = write!(out, "<li>{}</li>", esc(&d.text));
            }
            out.push_str("</ul>");
        }
        if !o.races.is_empty() {
            let races: Vec<String> = o.races.iter().map(|k| (k + 1).to_string()).collect();
            let _ = write!(out, "<p>sees reversed: races {}</p>", esc(&races.join(", ")));
        }
        let _ = writeln!(out, "<details><summary>a run reaching it</summary><pre>{}</pre></details>", esc(&o.schedule));
    }
    if r.outcomes.len() > MAX_OUTCOMES {
        let _ = write!(out, "<p>{} more outcomes (the JSON explains them all)</p>", r.outcomes.len() - MAX_OUTCOMES);
    }
    out.push_str("</section>\n");
    out
}
