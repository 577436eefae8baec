//! A run's physical conflicts (src/model/smartapp/physical.rs) grouped by medium and by pair of
//! apps, the actuating one first: for each, where its command changed the medium (found by
//! replaying the schedule shown, [`super::ErrorReport::last_at`]), where the sensing app met it,
//! what the sensor read, and the schedule. JSON `physical_conflicts`, the text report's section
//! and the page's table; docs/physical.md.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::ErrorReport;
use crate::model::smartapp::PHYSICAL_CONFLICT;

/// One physical conflict found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    /// Where the actuating app's command changed the medium (`file:line, handler h`); None when
    /// the schedule does not show it.
    pub actuated_at: Option<String>,
    /// What the sensor read (`illuminance 500`).
    pub sensed: String,
    /// Where the sensing app read it, or the handler it ran that acted.
    pub sensed_at: Option<String>,
    /// The event of the last step.
    pub event: Option<String>,
    pub schedule: String,
}

/// The physical conflicts of one (medium, actuating app, sensing app).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhysicalConflicts {
    pub medium: String,
    pub actuating_app: String,
    pub sensing_app: String,
    pub instances: Vec<Instance>,
}

/// The physical conflicts among `errors`, grouped; in (medium, actuating, sensing) order.
pub fn group(errors: &[ErrorReport]) -> Vec<PhysicalConflicts> {
    let mut out: Vec<PhysicalConflicts> = Vec::new();
    for e in errors.iter().filter(|e| e.kind == PHYSICAL_CONFLICT) {
        let Some(c) = &e.conflict else { continue };
        let instance = Instance {
            actuated_at: e.last_at.clone(),
            sensed: c.value.clone(),
            sensed_at: e.at.clone(),
            event: e.event.clone(),
            schedule: e.schedule.clone(),
        };
        let key = (&c.variable, &c.last_app, &c.app);
        match out.iter_mut().find(|g| (&g.medium, &g.actuating_app, &g.sensing_app) == key) {
            Some(g) if g.instances.contains(&instance) => {}
            Some(g) => g.instances.push(instance),
            None => out.push(PhysicalConflicts {
                medium: c.variable.clone(),
                actuating_app: c.last_app.clone(),
                sensing_app: c.app.clone(),
                instances: vec![instance],
            }),
        }
    }
    out.sort_by(|a, b| {
        (&a.medium, &a.actuating_app, &a.sensing_app).cmp(&(&b.medium, &b.actuating_app, &b.sensing_app))
    });
    out
}

/// The findings: (medium, actuating app, sensing app).
pub fn keys(groups: &[PhysicalConflicts]) -> std::collections::BTreeSet<(String, String, String)> {
    groups.iter().map(|g| (g.medium.clone(), g.actuating_app.clone(), g.sensing_app.clone())).collect()
}

/// The text report's section: a line per (medium, pair), a line per instance.
pub fn render_text(groups: &[PhysicalConflicts]) -> String {
    let mut out = String::new();
    let media: std::collections::BTreeSet<&str> = groups.iter().map(|g| g.medium.as_str()).collect();
    let _ = writeln!(
        out,
        "{} through {}",
        super::compare::plural(groups.len(), "pair of apps"),
        super::compare::plural(media.len(), "medium")
    );
    for g in groups {
        let _ = writeln!(out, "{}: {} changes it, {} senses it", g.medium, g.actuating_app, g.sensing_app);
        for i in &g.instances {
            let _ = writeln!(
                out,
                "    {} changed the {} ({}); then {} met {} ({})",
                g.actuating_app,
                g.medium,
                i.actuated_at.as_deref().unwrap_or("place not shown"),
                g.sensing_app,
                i.sensed,
                i.sensed_at.as_deref().unwrap_or("-")
            );
        }
    }
    out
}

/// The page's table: medium, actuating app and where, sensing app and where, the sensor value.
pub fn render_html(groups: &[PhysicalConflicts]) -> String {
    use super::html::esc;
    let mut rows = String::new();
    for g in groups {
        for i in &g.instances {
            let _ = write!(
                rows,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"wrap\">{}</td><td class=\"l\">{}</td><td class=\"wrap\">{}</td><td class=\"l\">{}</td><td class=\"wrap\"><code>{}</code></td></tr>\n",
                esc(&g.medium),
                esc(&g.actuating_app),
                esc(i.actuated_at.as_deref().unwrap_or("-")),
                esc(&g.sensing_app),
                esc(i.sensed_at.as_deref().unwrap_or("-")),
                esc(&i.sensed),
                esc(&i.schedule)
            );
        }
    }
    format!(
        "<div class=\"scroll\"><table><tr><th class=\"l\">medium</th><th class=\"l\">actuating app</th><th class=\"l\">changed it at</th><th class=\"l\">sensing app</th><th class=\"l\">met it at</th><th class=\"l\">sensor</th><th class=\"l\">schedule</th></tr>\n{rows}</table></div>\n"
    )
}
