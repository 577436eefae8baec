//! A home's conflicts grouped by device and attribute: for each (device, attribute)
//! the apps that conflict on it, each pair of them, and each conflicting write found: the
//! earlier writer and the later one, with their values and the `file:line, handler h` of each
//! write. The later write's place is where the error arose; the earlier one's the report found
//! by re-running the error's schedule ([`ErrorReport::last_at`]).
//!
//! A finding is a (device, attribute, pair of apps): [`keys`] gives the set that the homes'
//! suite compares with the union of the pairwise runs of the same apps.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::ErrorReport;

/// One side of a conflict: who wrote what, where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    pub app: String,
    pub value: String,
    /// `file:line, handler h`; None when the schedule does not show it.
    pub at: Option<String>,
}

/// One conflict found: `first` wrote last before `then` wrote another value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    pub first: Write,
    pub then: Write,
    /// The event whose handlers made the later write.
    pub event: Option<String>,
    /// The schedule that reaches it (as the error shows it).
    pub schedule: String,
    /// A pair conflict's third apps' writes between the two (`APP wrote VALUE`; empty for a
    /// direct conflict, whose two writes are consecutive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub between: Vec<String>,
}

/// The conflicts of one pair of apps on one attribute.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairConflicts {
    /// The two apps, in name order.
    pub apps: [String; 2],
    pub instances: Vec<Instance>,
}

/// Every conflict on one device's attribute.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributeConflicts {
    /// The device (its capability; one device per capability) or, for an event model's
    /// variable, empty.
    pub device: String,
    pub attribute: String,
    /// Every app in a conflict on it, in name order.
    pub apps: Vec<String>,
    pub pairs: Vec<PairConflicts>,
}

/// A finding as homes and pairs are compared on it: (device, attribute, app, app), the apps in
/// name order.
pub type FindingKey = (String, String, String, String);

/// `device.attribute` split at its first dot (an event model's variable has no device).
fn split(variable: &str) -> (String, String) {
    match variable.split_once('.') {
        Some((d, a)) => (d.to_string(), a.to_string()),
        None => (String::new(), variable.to_string()),
    }
}

pub use crate::explore::pair_monitors::PAIR_CONFLICT;

/// The conflicts among `errors` (a run's), grouped; attributes in name order.
pub fn group(errors: &[ErrorReport]) -> Vec<AttributeConflicts> {
    group_kind(errors, false)
}

/// The pair conflicts among `errors`, grouped as [`group`] groups the direct ones.
pub fn group_pairs(errors: &[ErrorReport]) -> Vec<AttributeConflicts> {
    group_kind(errors, true)
}

fn group_kind(errors: &[ErrorReport], pairs: bool) -> Vec<AttributeConflicts> {
    let mut out: Vec<AttributeConflicts> = Vec::new();
    // A physical conflict is on no device attribute: grouped apart (`physical.rs`).
    let physical = crate::model::smartapp::PHYSICAL_CONFLICT;
    for e in errors.iter().filter(|e| (e.kind == PAIR_CONFLICT) == pairs && e.kind != physical) {
        let Some(c) = &e.conflict else { continue };
        let (device, attribute) = split(&c.variable);
        let earlier = e.last_at.clone();
        let instance = Instance {
            first: Write { app: c.last_app.clone(), value: c.last_value.clone(), at: earlier },
            then: Write { app: c.app.clone(), value: c.value.clone(), at: e.at.clone() },
            event: e.event.clone(),
            schedule: e.schedule.clone(),
            between: c.between.clone(),
        };
        let mut apps = [c.last_app.clone(), c.app.clone()];
        apps.sort();
        let k = match out.iter().position(|g| g.device == device && g.attribute == attribute) {
            Some(k) => k,
            None => {
                out.push(AttributeConflicts { device, attribute, apps: Vec::new(), pairs: Vec::new() });
                out.len() - 1
            }
        };
        let g = &mut out[k];
        for a in &apps {
            if !g.apps.contains(a) {
                g.apps.push(a.clone());
            }
        }
        match g.pairs.iter_mut().find(|p| p.apps == apps) {
            // Two errors the search told apart by their values may show the same values once
            // their schedules are shortened: one line each.
            Some(p) if p.instances.contains(&instance) => {}
            Some(p) => p.instances.push(instance),
            None => g.pairs.push(PairConflicts { apps, instances: vec![instance] }),
        }
    }
    for g in &mut out {
        g.apps.sort();
        g.pairs.sort_by(|a, b| a.apps.cmp(&b.apps));
    }
    out.sort_by(|a, b| (&a.device, &a.attribute).cmp(&(&b.device, &b.attribute)));
    out
}

/// The findings of grouped conflicts: one key per (device, attribute, pair of apps).
pub fn keys(groups: &[AttributeConflicts]) -> BTreeSet<FindingKey> {
    groups
        .iter()
        .flat_map(|g| {
            g.pairs.iter().map(|p| (g.device.clone(), g.attribute.clone(), p.apps[0].clone(), p.apps[1].clone()))
        })
        .collect()
}

/// `device.attribute`, or the variable alone.
pub fn name(g: &AttributeConflicts) -> String {
    if g.device.is_empty() {
        g.attribute.clone()
    } else {
        format!("{}.{}", g.device, g.attribute)
    }
}

fn side(w: &Write) -> String {
    match &w.at {
        Some(at) => format!("{} wrote {} ({at})", w.app, w.value),
        None => format!("{} wrote {}", w.app, w.value),
    }
}

/// The text report's section: one block per attribute, a line per pair, a line per write.
pub fn render_text(groups: &[AttributeConflicts]) -> String {
    let mut out = String::new();
    let pairs: usize = groups.iter().map(|g| g.pairs.len()).sum();
    let _ = writeln!(
        out,
        "{} on {}",
        super::compare::plural(pairs, "conflicting pair"),
        super::compare::plural(groups.len(), "attribute")
    );
    for g in groups {
        let _ = writeln!(out, "{}: apps {}", name(g), g.apps.join(", "));
        for p in &g.pairs {
            let _ = writeln!(out, "  {} / {}:", p.apps[0], p.apps[1]);
            for i in &p.instances {
                let between: String = i.between.iter().map(|b| format!("; then {b}")).collect();
                let _ = writeln!(out, "    {}{between}; then {}", side(&i.first), side(&i.then));
            }
        }
    }
    out
}

/// One line per finding, `device.attribute: app / app`, for tables' notes.
pub fn summary_line(groups: &[AttributeConflicts]) -> String {
    groups
        .iter()
        .map(|g| {
            let pairs: Vec<String> = g.pairs.iter().map(|p| format!("{}/{}", p.apps[0], p.apps[1])).collect();
            format!("{}: {}", name(g), pairs.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
