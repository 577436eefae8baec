//! The `races` section of `check`'s text report, and the outcomes explained (`--explain`).

use std::fmt::Write;

use crate::explore::races::RaceReport;

/// Races listed in full in the text report; the JSON lists them all.
const SHOWN: usize = 20;

/// Longest schedule the text report prints; a longer one is left to `--json`.
const SCHEDULE_CHARS: usize = 4_000;

fn shown(schedule: &str) -> &str {
    if schedule.len() <= SCHEDULE_CHARS {
        schedule
    } else {
        "(too long to print here: --json has it)"
    }
}

pub fn render(r: &RaceReport, explain: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:=<60} races", "");
    if let Some(why) = &r.not_analysed {
        let _ = writeln!(out, "not analysed: {why}");
        return out;
    }
    if let Some(why) = &r.partial {
        let _ = writeln!(out, "partial: the analysis stopped at a limit ({why})");
    }
    let cause = if r.partial.is_some() { "analysis stopped" } else { "search incomplete" };
    let n = |c: Option<u64>| c.unwrap_or(0);
    let undecided =
        if n(r.undecided) > 0 { format!(", {} undecided ({cause})", n(r.undecided)) } else { String::new() };
    let _ = writeln!(
        out,
        "{} race pairs (conflicting accesses the recorded run leaves unordered): {} change an outcome, {} benign{undecided}",
        n(r.pairs),
        n(r.changes_outcome),
        n(r.benign)
    );
    if r.per_class {
        let _ = writeln!(out, "listed per class (location, task, task): {} classes", r.races.len());
    }
    // Races are numbered by their place in the JSON's `races` list.
    let harmful: Vec<_> = r.races.iter().enumerate().filter(|(_, x)| x.changes_outcome == Some(true)).collect();
    for &(i, race) in harmful.iter().take(SHOWN) {
        let pairs = if race.pairs > 1 { format!(" ({} pairs)", race.pairs) } else { String::new() };
        let _ = writeln!(out, "race {} on {}{pairs}", i + 1, race.location);
        let _ = writeln!(out, "  first:  {}", race.first.describe());
        let _ = writeln!(out, "  second: {}", race.second.describe());
        if let Some(w) = &race.witness {
            let dead = if w.deadlock { " (a deadlock)" } else { "" };
            let _ = writeln!(out, "  reversed in outcome {}{dead}:", w.outcome + 1);
            for d in &w.differs {
                let _ = writeln!(out, "    {d}");
            }
            let _ = writeln!(
                out,
                "  schedule: {}   (second at step {}, first at step {})",
                shown(&w.schedule),
                w.second_step,
                w.first_step
            );
        }
    }
    if harmful.len() > SHOWN {
        let _ = writeln!(out, "... and {} more that change an outcome (--json lists them all)", harmful.len() - SHOWN);
    }
    let benign: Vec<_> = r.races.iter().filter(|x| x.changes_outcome == Some(false)).collect();
    if !benign.is_empty() {
        let mut locs: Vec<&str> = benign.iter().map(|x| x.location.as_str()).collect();
        locs.sort_unstable();
        locs.dedup();
        let shown: Vec<&str> = locs.iter().take(8).copied().collect();
        let more = if locs.len() > 8 { format!(" and {} more", locs.len() - 8) } else { String::new() };
        let _ = writeln!(
            out,
            "benign: {} on {} locations (no outcome sees them reversed): {}{more}",
            benign.iter().map(|x| x.pairs).sum::<u64>(),
            locs.len(),
            shown.join(", ")
        );
    }
    if explain {
        let _ = writeln!(out, "{:=<60} outcomes explained", "");
        for (i, o) in r.outcomes.iter().enumerate() {
            let what = if o.recorded {
                " (the recorded run's)"
            } else if o.deadlock {
                " (deadlock)"
            } else {
                ""
            };
            let _ = writeln!(out, "outcome {}{what}:", i + 1);
            for d in &o.differences {
                let _ = writeln!(out, "  {}", d.text);
            }
            if !o.races.is_empty() {
                let races: Vec<String> = o.races.iter().map(|&k| (k + 1).to_string()).collect();
                let _ = writeln!(out, "  sees reversed: races {}", races.join(" "));
            }
            let _ = writeln!(out, "  schedule: {}", shown(&o.schedule));
        }
    }
    out
}
