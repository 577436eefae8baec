//! Where in an event model a report points (event-model.md: errors are reported with their
//! event, app and source line): `file:line, handler on EVENT`, for an error and for the earlier
//! write of a conflict, so that the text and JSON reports name both sides of a conflict in the
//! spec's terms, as a SmartApp's report names them (docs/races.md, "What each report names").
//! Read-only: no search uses it.

use super::{EventModel, Live, Sink};
use crate::model::{Choice, Model};

/// The assignments a step makes that make their app a variable's last writer, in order.
struct Assigned(Vec<(usize, u32, usize)>);

impl Sink for Assigned {
    fn touch(&mut self, _: u32, _: bool) {}
    fn assigned(&mut self, var: usize, app: u32, line: usize) {
        self.0.push((var, app, line));
    }
}

impl EventModel {
    /// `file:line, handler on EVENT`: source line `line`, run by a handler of event `event`.
    pub(super) fn place(&self, event: usize, line: usize) -> String {
        format!("{}:{line}, handler on {}", self.ast.file.display(), self.ast.events[event].name)
    }

    /// [`Model::write_place`]: where `app` last assigned `variable` along `path`, before the
    /// step that ends it (a conflict ends its step before the assignment it refuses); None when
    /// `budget` is spent first.
    pub(super) fn assignment_place(
        &self,
        path: &[Choice],
        variable: &str,
        app: &str,
        budget: &dyn crate::model::Poll,
    ) -> Option<String> {
        let var = self.ast.vars.iter().position(|v| v.name == variable)?;
        let app = self.ast.apps.iter().position(|a| a == app)? as u32;
        let mut s = self.initial();
        let mut found = None;
        for &c in path {
            if budget.poll() {
                return None;
            }
            let mut seen = Assigned(Vec::new());
            let r = self.fire(&mut Live { fields: &self.fields, state: &mut s, log: &mut () }, c, &mut seen);
            if let Some(&(_, _, line)) = seen.0.iter().rev().find(|&&(v, a, _)| v == var && a == app) {
                found = Some(self.place(c as usize, line));
            }
            if r.is_err() {
                break;
            }
        }
        found
    }
}
