//! State the apps can never tell apart, left out of the configuration (homes):
//! static reductions of the state space, for every strategy, decided once when the system is
//! loaded from the scan of every app's source (`footprint.rs`).
//!
//! **Dead attributes** (live-variable reduction: Bozga, Fernandez and Ghirvu, "State space
//! reduction based on live variables analysis", SAS 1999, Section 3: a variable no later
//! transition reads is reset to a fixed value, which merges states that differ only there). A
//! device attribute that no app may read (no member or query of the source can name it, and no
//! app that has the device queries an attribute whose name it computes) and no app may write (no command of the source writes
//! it, see [`super::footprint::command_attrs`]) is set by the environment alone, and what it
//! holds is never looked at: the environment's event always reaches its subscribers (a device
//! coming to a value is a change, docs/smartapps.md), with its value carried in `evt`, not read
//! from the attribute; the `--conflicts` ghost of an attribute no app writes never moves. So the
//! attribute keeps its initial value, and the environment's event records no access to it.
//! *Why it is sound*: let s ~ t when they differ only in dead attributes. Every transition
//! reads only live parts (the scan bounds what the interpreter can reach, as for the static
//! footprints), so from s ~ t each event runs the same handlers, makes the same live writes,
//! the same accesses apart from dead objects, and ends in the same error or in states still
//! ~-related: ~ is a bisimulation that preserves errors (conflicts and exceptions) and the
//! accesses of the live objects. Exploring the quotient (one representative per class: the dead
//! attributes at their initial values) therefore reaches the same errors along the same
//! schedules. Two environment events of one dead attribute touch nothing of each other's and
//! commute (both orders reach the same representative), which is what the dropped access says.
//! The outcome line shows such an attribute at its initial value.
//!
//! **Attributes only one app writes, that no app reads or subscribes to** (a
//! thermostat's fan mode, which thermostat-mode-director may set through a computed command name
//! and no app kept under `--conflicts` looks at) are dead as well. Their value is never read,
//! no handler runs when it changes (no subscriber), and with one writer there is no conflict
//! on them (nor a ghost, below): so what the app writes there is not stored either, and the
//! write records no access. The bisimulation is the one above: states that differ only there
//! run every event alike, with the same live accesses and errors. The initial state and every
//! configuration give such an attribute the initial state's value (`reset_dead_slots`).
//!
//! **Conflict ghosts of single-writer attributes.** `--conflicts` keeps, per attribute, the last
//! app that wrote it and the value (IoTCheck's `ConflictTracker`). A conflict needs a write by an
//! app other than the last writer, so an attribute at most one app may write can never
//! conflict: its ghost is not kept (it stays empty), and an app's write there changes the state
//! only if it changes the value (so a same-value write is a read, as without `--conflicts`).
//! The same bisimulation argument, with ~ relating states that differ only in those ghosts,
//! gives soundness: no transition's behaviour or error depends on them.
//!
//! **Write-only `state` keys** (the thermostat home: `turnOffTime = now()` in
//! thermostat-window-check and thermostat-mode-director, never read). Under `--conflicts`, a key
//! of an app's `state` that no code of that app may read is not stored, and its write records
//! no access ([`SmartAppModel::read_state_keys`], `Ctx::state_set`). The scan
//! ([`super::footprint::Scan::state_reads`]) goes over every method the interpreter can enter
//! (`callable.rs`): `state.k` and `state['k']` read `k` wherever they stand except as the whole
//! target of a plain `=` (`state.k.x = v` and `state.k += v` read `k`); any other use of the
//! name `state` or `atomicState` (a computed key, the map handed to a local, a closure or a
//! call) counts as a read of every key, and so does a call by a computed name. A use within
//! an inert argument of a quiet call (`log.debug "$state"`, `sendPush("${state.k}")`:
//! `quiet.rs`) is no read: its value is dropped, and evaluating it runs nothing and cannot
//! fail, whatever the key holds. *Why it is sound*: the app's `state` is reached only through
//! those names (`Ctx::var`, `member`, `index`, `assign`; another app's `state` never), so no
//! execution reads such a key but to drop its value; states that differ only in such keys run
//! every event alike, with the same writes and errors and the same accesses apart from those
//! keys' object (and reads made through a dropped value, which the reduced model, explored as
//! a model of its own, does not make: `quiet.rs`); the relation is the bisimulation above, and the
//! representative has the key absent (the initial state and every configuration drop it,
//! `drop_unread_keys`). Without `--conflicts` the outcome line is the result and shows the
//! keys, so they are kept (as the single writer's values above).
//!
//! `--keep-dead-state` (an ablation, [`super::SmartAppOptions::keep_dead_state`]) stores all, for
//! measuring what they save and for the soundness suite, which checks that the errors found are
//! the same with and without (tests/soundness_homes.rs).

use super::footprint::Walk;
use super::*;

impl SmartAppModel {
    /// Gives each dead attribute, in the initial state and in every configuration, the value
    /// it has in the initial state, so that states differing only there are one (the quotient's
    /// representative; installing ran with everything stored).
    pub(super) fn reset_dead_slots(&mut self) {
        for slot in (0..self.dead_slots.len()).filter(|&s| self.dead_slots[s]) {
            let v = self.init.attrs[slot].clone();
            for (_, st) in &mut self.configs {
                st.attrs[slot] = v.clone();
            }
        }
    }

    /// Per app, the keys of its `state` stored: those its code may read (None: any, or
    /// everything is kept), see the module header (write-only state keys), less the
    /// self-contained ones (`self_keys.rs`).
    pub(super) fn read_state_keys(&self) -> Vec<Option<std::collections::BTreeSet<String>>> {
        self.apps
            .iter()
            .enumerate()
            .map(|(a, app)| {
                if self.opts.keep_dead_state || !self.opts.conflicts {
                    return None;
                }
                let sc = footprint::scan_app(app);
                // Less the keys whose values reach only themselves (`self_keys.rs`).
                self.without_self_keys(a, (!sc.state_reads_all && !sc.dynamic).then_some(sc.state_reads))
            })
            .collect()
    }

    /// Per app whose code writes a key by a literal name that is not stored (write-only, or
    /// self-contained, `self_keys.rs`): its name and those keys (a diagnostic: the corpus count
    /// of docs/reductions-homes.md, tests/corpus_state_keys.rs).
    pub fn unstored_state_keys(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (a, app) in self.apps.iter().enumerate() {
            let Some(stored) = &self.state_reads[a] else { continue };
            let mut w = Written::default();
            w.stmts(&app.script.top);
            for (m, _) in app.script.methods.iter().zip(&app.callable).filter(|(_, k)| **k) {
                w.stmts(&m.body);
            }
            let gone: Vec<String> = w.0.into_iter().filter(|k| !stored.contains(k)).collect();
            if !gone.is_empty() {
                out.push((app.name.clone(), gone.join(" ")));
            }
        }
        out
    }

    /// Removes the write-only keys from the initial state and every configuration (installing
    /// ran with everything stored).
    pub(super) fn drop_unread_keys(&mut self) {
        let reads = &self.state_reads;
        // The model's own keys (a timer pending, `timers.rs`) are no key Groovy names: kept.
        let keep = |a: usize, k: &Text| timers::is_reserved(k) || reads[a].as_ref().is_none_or(|r| r.contains(&**k));
        for st in std::iter::once(&mut self.init).chain(self.configs.iter_mut().map(|c| &mut c.1)) {
            for (a, keys) in st.states.iter_mut().enumerate() {
                keys.retain(|(k, _)| keep(a, k));
            }
        }
    }

    /// Per slot: (dead, no ghost kept), from the scan of every app (see the module header); the
    /// second has one more entry, the location mode's ghost (`mode_slot`), not kept when at most
    /// one app may set the mode.
    pub(super) fn unstored_slots(&self) -> (Vec<bool>, Vec<bool>) {
        let n = self.slots.len();
        if self.opts.keep_dead_state {
            return (vec![false; n], vec![false; n + 1]);
        }
        let reach = self.reach();
        let mut writers = vec![0u32; n];
        // What a property reads is read (properties.rs).
        let mut read: Vec<bool> = (0..n).map(|s| self.read_by_properties(s as u32)).collect();
        for (a, r) in reach.iter().enumerate() {
            // An app left out of the interleaving (`slice.rs`) runs no handler: it reads nothing.
            if self.left_out[a] {
                continue;
            }
            for &slot in &r.writes {
                writers[slot] += 1;
            }
            // Only what the methods the interpreter can enter read (`callable.rs`): a page's
            // helpers never run.
            let sc = footprint::scan_app(&self.apps[a]);
            // Its requests read their servers' answers (`http.rs`).
            self.server_slots(a).into_iter().for_each(|slot| read[slot] = true);
            // A computed call name may be any query, a query given a computed name any
            // attribute: of the app's own devices, the only ones its code can reach (the
            // footprints' argument, `footprint.rs`).
            if sc.dynamic || sc.reads_computed {
                r.slots.iter().for_each(|&slot| read[slot] = true);
                continue;
            }
            for (slot, (_, attr)) in self.slots.iter().enumerate() {
                if sc.read_names.contains(attr.as_str()) {
                    read[slot] = true;
                }
            }
        }
        // Subscribed to by a kept app: an app's write that changes it runs that handler.
        let mut subscribed = vec![false; n];
        for sub in self.subs.iter().filter(|s| !self.left_out[s.app]) {
            if let Some(slot) = sub.dev.and_then(|d| self.slot(d, &sub.attr)) {
                subscribed[slot] = true;
            }
        }
        // The single writer's values are left out only under `--conflicts`: without it the
        // outcome line is the result, and should show what the app did.
        let one_writer = |s: usize| self.opts.conflicts && writers[s] == 1 && !subscribed[s];
        let mut dead: Vec<bool> = (0..n).map(|s| !read[s] && (writers[s] == 0 || one_writer(s))).collect();
        let mode_writers = (0..self.apps.len()).filter(|&a| !self.left_out[a] && reach[a].sets_mode).count();
        let mut no_ghost: Vec<bool> = (0..n).map(|s| writers[s] <= 1).chain([mode_writers <= 1]).collect();
        // The room's slots, its sensors and what moves it are stored (`physical.rs`); the room's
        // own slots keep no conflict ghost (no app writes them).
        for s in self.room.live_slots() {
            dead[s] = false;
            no_ghost[s] |= self.room.owns(s);
        }
        (dead, no_ghost)
    }
}

/// The keys a piece of source writes by a literal name (`state.k = v`, `state['k'] = v`).
#[derive(Default)]
struct Written(std::collections::BTreeSet<String>);

impl footprint::Walk for Written {
    fn expr(&mut self, e: &Expr) {
        if let Expr::Assign { target, .. } = e {
            match target.as_ref() {
                Expr::Member { obj, name, .. } if footprint::is_state(obj) => {
                    self.0.insert(name.clone());
                }
                Expr::Index(o, i) if footprint::is_state(o) => {
                    if let Expr::Str(k) = i.as_ref() {
                        self.0.insert(k.to_string());
                    }
                }
                _ => {}
            }
        }
        self.children(e)
    }
}
