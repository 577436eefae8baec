//! The methods of an app the interpreter can enter (FireCO2Alarm with smart-alarm),
//! so that what the app's other methods read does not keep an attribute live (`dead.rs`).
//!
//! smart-alarm reads `device.currentValue(sensorType)` in `getZoneStatus`, which only its
//! status *page* calls: a hub runs pages when the user opens the app's settings, never as a
//! handler, and the model never runs them. Counted as a read of every attribute of the app's
//! devices, it kept every sensor value of the pair in the state (button, water, motion,
//! acceleration, smoke, carbon monoxide, battery: the product of their values).
//!
//! **What can be entered.** The interpreter enters a method of an app (`Ctx::call_method`) by
//! its name only: the installation entry (`installed` or `initialize`), a subscription's or a
//! schedule's handler, a call written with that name (`foo(x)`), a property read through its
//! getter (`allOk` -> `getAllOk()`), or a text used as a handler or called (`runIn(60, h)`,
//! `h(evt)`, `"${item.action}"()`). A text comes from the source: a method named as a value
//! (`onMotion`), a literal (`"clearAlert"`), a setting's option (a literal of the page), or a
//! text joined from written parts and values, by interpolation (`"sensorTriggered${i}"`) or
//! `+` (`"handleButton" + n + evt.value.capitalize()`, hue-minimote), whose written parts a
//! name must hold in order (a glob; one with no written part is the text of one value, itself
//! one of these, unless it joins several: then anything). So the methods that can be entered
//! are the closure, under written calls and getters, of those entries and of every method the
//! source names so anywhere (`callable`). The settings builders (`dynamicPage`, `section`,
//! ...) are no functions of the interpreter: a page's name given to them is no value the app
//! holds, and the closure a page is built from is never called. The rest (pages' helpers,
//! dead code) is never run.
//!
//! **What is not followed, and is guarded.** A name built otherwise (a text cut from another,
//! changed in case, or joined from values alone) is not followed. So that the reduction never
//! rests on that silently, the interpreter refuses to enter a method outside the set and ends
//! the firing with an error that names it (`call_method`), with and without the reduction
//! alike: the model then never runs what the scan left out.
//!
//! *Soundness* (of `dead.rs` with this scan): every method the interpreter enters is in the
//! set, and the read scan covers the set's bodies (and the top level), so the reads it finds
//! bound those of every transition, as the whole source's did. Checked by
//! tests/soundness_homes.rs (`every_read_form_keeps_its_attribute`: a read through a method
//! entered by a built name, a getter, a written call; generated homes with such helpers and a
//! status page). Planted: the guard off and the joined names not followed: caught.

use super::footprint::Walk;
use super::*;

/// Per method of `script`: whether the interpreter can enter it (see the module header).
pub(super) fn callable(script: &Script) -> Vec<bool> {
    let index: FxHashMap<&str, usize> = script.methods.iter().enumerate().map(|(i, m)| (m.name.as_str(), i)).collect();
    if script.methods.iter().any(|m| SETTINGS_BUILDERS.contains(&m.name.as_str())) {
        // A builder of the app's own: its arguments are values like any other.
        return vec![true; script.methods.len()];
    }
    let mut names = Names::default();
    names.stmts(&script.top);
    script.methods.iter().for_each(|m| names.stmts(&m.body));
    let mut on = vec![false; script.methods.len()];
    let mut todo: Vec<usize> = Vec::new();
    let enter = |i: usize, on: &mut Vec<bool>, todo: &mut Vec<usize>| {
        if !on[i] {
            on[i] = true;
            todo.push(i);
        }
    };
    for (i, m) in script.methods.iter().enumerate() {
        let n = m.name.as_str();
        let entry = matches!(n, "installed" | "initialize" | "updated" | "uninstalled");
        if entry || names.values.contains(n) || names.patterns.iter().any(|p| p.fits(n)) {
            enter(i, &mut on, &mut todo);
        }
    }
    while let Some(i) = todo.pop() {
        let mut inner = Names::default();
        inner.stmts(&script.methods[i].body);
        for c in inner.calls.iter().chain(inner.getters.iter()) {
            if let Some(&j) = index.get(c.as_str()) {
                enter(j, &mut on, &mut todo);
            }
        }
    }
    on
}

/// Per method of `script`: whether a text the source builds (an interpolation or a `+` join
/// with written parts, as `callable` follows them) may be its name (`guarded.rs`: a method
/// entered by a built name may be entered from anywhere).
pub(super) fn built_names(script: &Script) -> Vec<bool> {
    let mut names = Names::default();
    names.stmts(&script.top);
    script.methods.iter().for_each(|m| names.stmts(&m.body));
    script.methods.iter().map(|m| names.patterns.iter().any(|p| p.fits(&m.name))).collect()
}

/// The settings builders that take a page by name (`page name: "pageStatus"`, `href
/// "pageStatus"`): the interpreter knows none of them (unless the app defines a method so
/// named, see `callable`) and drops what it is given.
const PAGE_BUILDERS: &[&str] = &["page", "dynamicPage", "href"];

/// The settings builders, which the interpreter knows none of (a call gives null, its
/// arguments evaluated and dropped): the closure a page or a section is built from is never
/// called, so what it calls is not entered through it (a status page's helpers).
const SETTINGS_BUILDERS: &[&str] =
    &["preferences", "page", "dynamicPage", "section", "href", "paragraph", "input", "label", "mode", "icon"];

/// An interpolated string's written parts, as a name it can produce must hold them.
struct Pattern {
    parts: Vec<Option<String>>,
}

impl Pattern {
    /// Whether a text made by this interpolation can be `name`: the written parts in order,
    /// each interpolated part any text (a glob). With no written part it is the text of one
    /// value (itself named elsewhere), or a join of several (anything).
    fn fits(&self, name: &str) -> bool {
        let parts = &self.parts;
        if parts.iter().all(Option::is_none) {
            return parts.len() > 1;
        }
        let mut rest = name;
        for (i, p) in parts.iter().enumerate() {
            let Some(lit) = p else { continue };
            if i == 0 || parts[i - 1].is_some() {
                match rest.strip_prefix(lit.as_str()) {
                    Some(r) => rest = r,
                    None => return false,
                }
            } else if i == parts.len() - 1 {
                return rest.ends_with(lit.as_str());
            } else {
                match rest.find(lit.as_str()) {
                    Some(k) => rest = &rest[k + lit.len()..],
                    None => return false,
                }
            }
        }
        parts.last().is_some_and(Option::is_none) || rest.is_empty()
    }
}

/// The parts of a `+` chain: written texts, and any other operand as any text.
fn joined(e: &Expr, out: &mut Vec<Option<String>>) {
    match e {
        Expr::Binary("+", a, b) => {
            joined(a, out);
            joined(b, out);
        }
        Expr::Str(s) => out.push(Some(s.to_string())),
        Expr::GStr(parts) => {
            for p in parts {
                out.push(match p {
                    GPart::Lit(l) => Some(l.clone()),
                    GPart::Expr(_) => None,
                });
            }
        }
        _ => out.push(None),
    }
}

/// The names a piece of source may enter a method by.
#[derive(Default)]
struct Names {
    /// Written calls with no target (`foo(x)`).
    calls: Vec<String>,
    /// Getters of the names read as properties or variables (`allOk` -> `getAllOk`).
    getters: Vec<String>,
    /// Variables and literal texts (method references, handler names, options).
    values: std::collections::BTreeSet<String>,
    patterns: Vec<Pattern>,
}

impl footprint::Walk for Names {
    fn expr(&mut self, e: &Expr) {
        Names::expr(self, e)
    }
}

/// The getter Groovy reads a property `n` through: `allOk` -> `getAllOk` (the interpreter's
/// `Ctx::var` and every scan that follows it; empty for an empty name).
pub(super) fn getter_name(n: &str) -> String {
    let mut c = n.chars();
    match c.next() {
        Some(f) => format!("get{}{}", f.to_uppercase(), c.as_str()),
        None => String::new(),
    }
}

impl Names {
    fn getter(&mut self, name: &str) {
        if !name.is_empty() {
            self.getters.push(getter_name(name));
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Str(s) => {
                self.values.insert(s.to_string());
            }
            Expr::GStr(parts) => {
                let parts = parts.iter().map(|p| match p {
                    GPart::Lit(l) => Some(l.clone()),
                    GPart::Expr(_) => None,
                });
                self.patterns.push(Pattern { parts: parts.collect() });
            }
            Expr::Var(n) => {
                self.values.insert(n.clone());
                self.getter(n);
            }
            Expr::Member { name, .. } => self.getter(name),
            Expr::Call { target, name, args, .. } => {
                match target {
                    Some(t) => self.expr(t),
                    None => self.calls.push(name.clone()),
                }
                // A page's name given to the settings builders: consumed there (the model
                // builds no page), never a value the app holds.
                let page_name = target.is_none() && PAGE_BUILDERS.contains(&name.as_str());
                let builder = target.is_none() && SETTINGS_BUILDERS.contains(&name.as_str());
                for a in args {
                    match a.value() {
                        Expr::Str(_) if page_name => {}
                        // The page's body: a closure the builder is given and never calls.
                        Expr::Closure(_) if builder => {}
                        e => self.expr(e),
                    }
                }
                return;
            }
            Expr::Binary("+", ..) => {
                // `"handleButton" + n + evt.value.capitalize()` (hue-minimote): a text joined
                // from written parts and values, a pattern as an interpolation is.
                let mut parts = Vec::new();
                joined(e, &mut parts);
                if parts.iter().any(Option::is_some) {
                    self.patterns.push(Pattern { parts });
                }
            }
            Expr::Assign { op: "+=", value, .. } => {
                // `meth += "Pushed"`: what the target held, then the parts added.
                let mut parts = vec![None];
                joined(value, &mut parts);
                if parts.iter().any(Option::is_some) {
                    self.patterns.push(Pattern { parts });
                }
            }
            _ => {}
        }
        self.children(e)
    }
}
