//! The `check` report, laid out the way Java PathFinder prints its own: system under test,
//! each error with its schedule and the command that replays it, results, statistics.

use std::fmt::Write;

use super::{bytes, opt, RunReport};

fn rule(out: &mut String, title: &str) {
    let _ = writeln!(out, "{:=<60} {title}", "");
}

/// Shell-quotes `s` when needed.
pub fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./,*:=+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

pub fn render(r: &RunReport, sut: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "tracepor {} - model checker for event-driven programs", env!("CARGO_PKG_VERSION"));
    rule(&mut out, "system under test");
    let _ = writeln!(out, "{} ({})", r.file, r.model);
    let _ = writeln!(out, "{sut}");
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if !r.unsupported.is_empty() {
        let _ = writeln!(out, "not modelled ({}):", r.unsupported.len());
        for u in &r.unsupported {
            let _ = writeln!(out, "  {u}");
        }
    }
    if !r.left_out.is_empty() {
        let _ = writeln!(out, "left out of the interleaving ({}):", r.left_out.len());
        for u in &r.left_out {
            let _ = writeln!(out, "  {u}");
        }
    }
    rule(&mut out, &format!("search started: {}", r.strategy));
    for (i, e) in r.errors.iter().enumerate() {
        rule(&mut out, &format!("error {}", i + 1));
        let _ = writeln!(out, "{}: {}", e.kind, e.message);
        let place = e.place(r.model);
        let _ = writeln!(out, "  at:       {place}");
        if let Some(earlier) = e.earlier() {
            let _ = writeln!(out, "  earlier:  {earlier}");
        }
        let shortened = match (e.shortened_from, e.graph_shortest) {
            (Some(n), Some(g)) if g == e.steps => {
                format!("   (shortest in the explored state graph; first found: {n} steps)")
            }
            (Some(n), Some(g)) => {
                format!("   (shortest in the explored state graph: {g} steps, then cut by replay; first found: {n})")
            }
            (Some(n), None) => format!("   (shortened from {n} steps by replay)"),
            // The search's own schedule was already a shortest one.
            (None, Some(_)) => "   (shortest in the explored state graph)".to_string(),
            (None, None) => String::new(),
        };
        let _ = writeln!(out, "  schedule: {}{shortened}", e.schedule);
        // Several inputs (SmartApps checked together) are named `A + B`: one argument each.
        let files: Vec<String> = r.file.split(" + ").map(quote).collect();
        let _ = writeln!(
            out,
            "  replay:   tracepor replay {} --schedule {}{}",
            files.join(" "),
            quote(&e.schedule),
            r.load_flags
        );
    }
    if !r.conflicts_by_attribute.is_empty() {
        rule(&mut out, "conflicts by device and attribute");
        out.push_str(&super::findings::render_text(&r.conflicts_by_attribute));
    }
    if !r.pair_conflicts_by_attribute.is_empty() {
        rule(&mut out, "pair conflicts (a third app's write between the two) by device and attribute");
        out.push_str(&super::findings::render_text(&r.pair_conflicts_by_attribute));
    }
    if !r.physical_conflicts.is_empty() {
        rule(&mut out, "physical conflicts (one app changes what another app's sensor measures)");
        out.push_str(&super::physical::render_text(&r.physical_conflicts));
    }
    rule(&mut out, "results");
    if r.errors.is_empty() {
        let _ = writeln!(out, "no errors detected");
    } else {
        let _ = writeln!(out, "{} found", super::compare::plural(r.errors.len(), "error"));
    }
    if let Some(line) = pair_view_line(r) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(why) = r.stopped_by {
        let _ = writeln!(out, "search INCOMPLETE: {}; figures below are partial", why.describe());
    }
    rule(&mut out, "statistics");
    let _ = writeln!(out, "elapsed time:       {:.3} s", r.time_s);
    let _ = writeln!(out, "states:             new={} visited={}", opt(r.states), opt(r.revisits));
    let _ = writeln!(out, "executions:         {}", r.executions);
    let _ = writeln!(out, "transitions:        {}", r.transitions);
    let _ = writeln!(out, "unique transitions: {}", opt(r.unique_transitions));
    let _ = writeln!(out, "max depth:          {}", r.max_depth);
    let _ = writeln!(out, "outcomes:           {}", r.outcomes);
    let _ = writeln!(out, "deadlocks:          {}", r.deadlocks);
    if r.time_s > 0.0 {
        let _ = writeln!(out, "rate:               {:.0} transitions/s", r.transitions as f64 / r.time_s);
    }
    if let Some(n) = r.sleep_blocked {
        let _ = writeln!(out, "sleep-blocked runs: {n}");
    }
    if let Some(n) = r.redundant {
        let _ = writeln!(out, "redundant runs:     {n} (ended in an outcome already seen)");
    }
    if let Some(n) = r.blocked {
        let _ = writeln!(out, "blocked runs:       {n} (abandoned: sleep-set blocked or an inconsistent choice)");
    }
    if let Some(t) = r.consistency_s {
        let _ = writeln!(out, "consistency checks: {t:.3} s");
    }
    if let Some(d) = r.estimated_done {
        let _ = writeln!(out, "estimated explored: {:.3}% of the search tree (rough, tends high)", d * 100.0);
    }
    if let Some(b) = r.bytes_per_state {
        let _ = writeln!(out, "bytes per state:    {b:.0}");
    }
    let _ = writeln!(
        out,
        "peak memory:        {} allocated, {} resident",
        bytes(r.peak_alloc_bytes),
        bytes(r.peak_rss_bytes)
    );
    if let Some(mib) = r.memory_limit_mib {
        let _ = writeln!(out, "memory limit:       {mib} MiB");
    }
    rule(&mut out, if r.finished { "search finished" } else { "search stopped" });
    out
}

/// Whether pair conflicts were looked for, where conflicts are observed (docs/homes.md).
fn pair_view_line(r: &RunReport) -> Option<String> {
    let observed = r.model == crate::model::ModelKind::SmartApps
        && r.load_flags.contains("--conflicts")
        && !r.load_flags.contains("--conflict-mode end");
    match r.pair_view {
        Some(v) => Some(format!(
            "pair conflicts: {} pairs no direct conflict names checked, {} found{}",
            v.pairs,
            v.found,
            if v.unfinished > 0 {
                // The run's stop: the budget that cut them is the run's (`Search::cut_short`),
                // its deadline standing for the limit that stopped the search if one did.
                let why = r.stopped_by.map_or("a limit reached", |s| s.describe());
                format!(", {} not finished ({why})", v.unfinished)
            } else {
                String::new()
            }
        )),
        None if !observed => None,
        None if r.strategy == "monitors" => Some("pair conflicts: not looked for (--no-pair-conflicts)".into()),
        None => Some(format!(
            "pair conflicts: not looked for (`{}` does not look for them; `monitors`, the default here, does)",
            r.strategy
        )),
    }
}
