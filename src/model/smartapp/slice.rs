//! Apps left out of the interleaving under `--conflicts`, in pairs and in
//! whole homes: an app that can write nothing another app sees cannot take part in a conflict, so
//! when the property is IoTCheck's conflicts its handlers are not run and the events that then
//! reach nothing are not scheduled. For N apps, not only pairs.
//!
//! **Which apps.** Those whose static reach ([`super::footprint`]) writes no device attribute
//! (no command of its devices that [`super::footprint::command_attrs`] maps to one of their
//! attributes), never the mode, makes no call with a computed name, and calls none of
//! `sendEvent`, `sendLocationEvent`, `sendHubCommand`, `execute` (effects a hub has that the model
//! may not carry out). The scan is the footprints' exhaustive one, checked by
//! tests/smartapp_dpor.rs; whatever it cannot see through keeps the app.
//!
//! **Which events.** An event is not scheduled when, with those apps left out, it runs no
//! handler of a kept app and what the environment writes is read by no kept app: the mode only
//! when no app is kept; an attribute when no kept app has its device, or none names it (the
//! interpreter reads an attribute only by a member or method name, `x`, `currentX`, `xState`, or
//! by the name given to `currentValue`/`latestValue`/`currentState`/`latestState`; a computed
//! one, or a call with a computed name, reads them all) nor may write it (a command's write of
//! the value held is a read). Such a firing touches nothing a kept app reads, and the conflict
//! ghost moves only with an app's write.
//!
//! **Why the conflicts are the same.** Let R be the apps left out and S' the system without
//! them. An app of R writes only its own `state`, which no other app reads, and reads the rest;
//! conflicts are made of app writes of attributes (a conflict's both sides write). So on any
//! schedule, the kept apps' handlers read and write the same values in S and in S': project a
//! state of S on the attributes kept apps can read, the mode, the kept apps' states, the ghost
//! and the kept events' counts; every firing maps projected states as it does in S', and a
//! dead event leaves the projection unchanged (it writes an attribute no kept app reads). Hence
//! every conflict of S is one of S' (on the schedule without its dead events), and every
//! conflict of S' happens in S on the same schedule unless a handler of an R app, running
//! earlier in the same cascade or in an earlier firing, stops it first: an exception (`throw`,
//! a loop over the step budget) of an app of R, which in the model ends the firing and the
//! path. A hub runs each app's handler apart, so that exception would not stop the other
//! apps' writes there: S' is the hub's answer for the kept apps.
//!
//! (The conflict ghost of an attribute only one app writes is not kept either: `dead.rs`.)
//!
//! **What is lost.** The exceptions of R's own handlers are not looked for; the report says
//! which apps were left out and why (text, JSON `left_out`, `stats` count). tests/soundness.rs
//! compares the conflicts found with and without this under `full` on generated systems.

use super::SmartAppModel;

impl SmartAppModel {
    /// Leaves out the apps that can write nothing shared, and the events that then reach no
    /// kept app (see the module header).
    pub(super) fn slice_readers(&mut self) {
        let reach = self.reach();
        // An app that senses a physical channel is kept: what it does on another app's change of
        // the room is a physical conflict (`physical.rs`).
        let senses = |a: usize| self.room.senses.get(a) == Some(&true);
        self.left_out = reach.iter().enumerate().map(|(a, r)| !r.shared && !senses(a)).collect();
        if !self.left_out.iter().any(|&l| l) {
            return;
        }
        // What a property reads counts as read (properties.rs).
        let mut read: Vec<bool> = (0..self.slots.len()).map(|s| self.read_by_properties(s as u32)).collect();
        for (r, _) in reach.iter().zip(&self.left_out).filter(|(_, &l)| !l) {
            r.reads.iter().for_each(|&s| read[s] = true);
        }
        let any_kept = self.left_out.iter().any(|&l| !l);
        self.dead = (0..self.events.len())
            .map(|e| {
                let (written, runs) = self.first_effect(e);
                runs.is_empty()
                    && written.is_none_or(|o| {
                        if o == self.mode_object() {
                            !any_kept && !self.properties_read_mode()
                        } else {
                            !read[o as usize]
                        }
                    })
            })
            .collect();
    }

    /// Undoes [`SmartAppModel::slice_readers`]: every app runs, every event is scheduled (what
    /// the model is without `--conflicts`; tests compare the two).
    pub fn keep_all_apps(&mut self) {
        self.left_out = vec![false; self.apps.len()];
        self.dead = vec![false; self.events.len()];
    }

    /// The apps left out of the interleaving and the events not scheduled, one line each.
    pub fn left_out(&self) -> Vec<String> {
        let mut out: Vec<String> = (0..self.apps.len())
            .filter(|&a| self.left_out[a])
            .map(|a| {
                format!(
                    "{}: app {} writes no device, mode or event any other app sees: not interleaved under --conflicts \
                     (its own exceptions are not looked for)",
                    self.apps[a].file, self.apps[a].name
                )
            })
            .collect();
        let dead: Vec<&str> =
            (0..self.events.len()).filter(|&e| self.dead[e]).map(|e| self.events[e].name.as_str()).collect();
        if !dead.is_empty() {
            out.push(format!("events reaching no app kept, not scheduled ({}): {}", dead.len(), dead.join(" ")));
        }
        out
    }
}
