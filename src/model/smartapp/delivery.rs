//! Event delivery as a hub does it: a choice fires one environment event; a device attribute
//! that changes (by the environment or by an app's command) delivers its event to every
//! handler subscribed to it, synchronously, inside the running transition; `--conflicts`
//! checks each app write against the attribute's last writer.
//!
//! **Conflicts as observations** (`--conflict-mode observe`, the default of `check`). A conflict
//! is then not an error that ends its transition: it is recorded (both writes named, as an
//! error would name them), the write happens, the handlers go on, and so does the path. The
//! findings of a search are the distinct conflicts observed on any transition it takes, each
//! with the schedule whose last step observes it. Under `--conflict-mode end` a conflict ends
//! its path as a property violation ends IoTCheck's JPF run (enough for a pair's verdict).
//!
//! Why a state-caching search loses no conflict reachable only through a state it has already
//! visited: whether a firing of event e from state s observes a conflict, and which (the two
//! apps, the attribute, both values, the line), is a function of s and e alone. The check
//! compares an app's write with the attribute's conflict ghost, the last writer and the value it
//! wrote (`SmartState::writers`), and the ghost is part of the state: written by `encode` like
//! the attributes, and the stateful search stores, hashes and matches states by that encoding
//! (`explore/stateful_dpor/stored.rs`). So two states a
//! search identifies have the same ghosts, and the same conflicts are observed on every path
//! leaving either; the conflicts reachable from a matched state are those reachable from its
//! first visit, which the search explores (or has explored) from there. The ghost is dropped
//! only where no conflict can arise (an attribute at most one app writes, `dead.rs`), and
//! without `--conflicts`. The observation also changes nothing a later step reads beyond what
//! the write itself changes (the ghost moves to the new writer, as after any write), so the
//! path after it is the path a hub would run. For the partial-order reductions the check is an
//! access of the attribute's object: a write that conflicts changes the ghost and is recorded
//! as a write, so two events whose writes of one attribute can conflict are dependent and both
//! orders are explored. (A planted bug, the ghost left out of the state hash, is caught by
//! tests/soundness_homes.rs.)
//!
//! **The ghosts as monitors** (`explore/monitors.rs`). Since in observe mode nothing but the
//! check reads a ghost, and the check of an attribute reads that attribute's ghost only, the
//! ghosts need not be stored at all: [`SmartAppModel::step_unmonitored`] runs a transition
//! keeping none and hands out the writes the check would have read, in order
//! ([`GhostWrite`]), and [`SmartAppModel::monitor_conflict`] applies the check to one of them
//! and the ghost before it, with the rule and the report `set_attr` uses (one function,
//! `conflicts`, and one text, `conflict_text`, for both). Under `--conflict-mode end` a
//! conflict ends its path, the ghosts decide which transitions exist, and this does not apply.

use super::*;

/// An app's write of an attribute whose conflict ghost is kept, made by a run that keeps no
/// ghost (`explore/monitors.rs`): all the conflict check of `set_attr` reads of the write.
#[derive(Clone, Debug)]
pub struct GhostWrite {
    /// The attribute's slot.
    pub slot: u32,
    /// The writing app (its index).
    pub app: u8,
    /// Made on the user's direct command (never a conflict itself; still the last write).
    pub manual: bool,
    pub line: u32,
    /// The subscription whose handler made it.
    pub sub: Option<usize>,
    pub value: Value,
    /// Not a write: a physical conflict observed (`physical.rs`), carried with the writes so
    /// that the monitors' run reports it ([`SmartAppModel::physical_finding`] reads it back).
    pub physical: bool,
}

impl GhostWrite {
    /// The words that tell writes apart for every use a monitor makes of them (slot, app,
    /// manual, line, handler, the value's canonical encoding).
    pub fn key(&self, out: &mut Vec<u32>) {
        out.extend([
            self.slot,
            self.app as u32,
            self.manual as u32,
            self.line,
            self.sub.map_or(u32::MAX, |s| s as u32),
            self.physical as u32,
        ]);
        encode_value(&self.value, out);
    }

    /// The value written, as reports show it.
    pub fn value_text(&self) -> String {
        self.value.text()
    }

    /// The words of the ghost this write leaves (its app and value: what a later write of the
    /// slot is compared with), as the state's encoding has them.
    pub fn ghost_key(&self, out: &mut Vec<u32>) {
        out.push(self.app as u32 + 1);
        encode_value(&self.value, out);
    }
}

/// IoTCheck's conflict: an app's write of `value` where another app (`last_writer`, index + 1;
/// 0 for none) last wrote another value, unless the write is on the user's direct command.
fn conflicts(last_writer: u8, last: &Value, app: usize, value: &Value, manual: bool) -> bool {
    last_writer != 0 && last_writer as usize != app + 1 && !loose_eq(last, value) && !manual
}

impl SmartAppModel {
    /// The device and attribute of `slot`: the location's `mode` for [`SmartAppModel::mode_slot`].
    fn slot_names(&self, slot: usize) -> (&str, &str) {
        match self.slots.get(slot) {
            Some((dev, attr)) => (&self.devices[*dev as usize], attr),
            None => ("location", "mode"),
        }
    }

    /// Both sides of a conflict on `slot` and its message.
    fn conflict_text(
        &self,
        slot: usize,
        other: usize,
        last: &Value,
        app: usize,
        value: &Value,
    ) -> (Box<crate::model::Conflict>, String) {
        let (dev, attr) = self.slot_names(slot);
        let other = &self.apps[other].name;
        let conflict = Box::new(crate::model::Conflict {
            variable: self.slot_variable(slot),
            app: self.apps[app].name.to_string(),
            value: value.text(),
            last_app: other.to_string(),
            last_value: last.text(),
            between: Vec::new(),
        });
        let whose = if slot == self.mode_slot() { "the location".to_string() } else { format!("the {dev} device") };
        let message = format!(
            "apps {other} and {} both write `{attr}` of {whose}: {other} wrote {}, {} writes {}",
            self.apps[app].name,
            last.text(),
            self.apps[app].name,
            value.text()
        );
        (conflict, message)
    }

    /// The variable a conflict on `slot` names (`device.attribute`; `location.mode`), and an
    /// app's name: what a monitor compares with the conflicts already found
    /// (`explore/pair_monitors.rs`).
    pub fn slot_variable(&self, slot: usize) -> String {
        let (dev, attr) = self.slot_names(slot);
        format!("{dev}.{attr}")
    }

    /// The slot a conflict's variable names (the inverse of [`SmartAppModel::slot_variable`]).
    pub(super) fn slot_of_variable(&self, variable: &str) -> Option<usize> {
        (0..=self.slots.len()).find(|&s| self.slot_variable(s) == variable)
    }

    pub fn app_name(&self, app: usize) -> &str {
        &self.apps[app].name
    }

    /// Whether conflicts are observations that leave every path as it is (`--conflicts` in
    /// `--conflict-mode observe`): then the system never reads the ghosts (module header).
    pub fn observes_conflicts(&self) -> bool {
        self.opts.conflicts && self.opts.conflict_mode == crate::model::ConflictMode::Observe
    }

    /// The slots whose conflict ghost the state keeps: attributes two apps may write, stored,
    /// in `--conflicts-on`'s scope (empty without `--conflicts`); the location mode's
    /// ([`SmartAppModel::mode_slot`]) among them, last.
    pub fn monitored_slots(&self) -> Vec<usize> {
        (0..=self.slots.len()).filter(|&s| self.keeps_ghost(s)).collect()
    }

    /// Whether the state keeps the conflict ghost of `slot` (a device attribute, or the
    /// location mode): under `--conflicts`, in its scope, stored, two apps may write it, and not
    /// one of the room's own slots (`physical.rs`).
    pub(super) fn keeps_ghost(&self, slot: usize) -> bool {
        self.opts.conflicts
            && !self.room.owns(slot)
            && self.dead_slots.get(slot) != Some(&true)
            && self.no_ghost.get(slot) != Some(&true)
            && self.in_conflict_scope(slot)
    }

    /// Takes choice `c` from `s` keeping no ghost: the state's ghosts stay as they are (empty
    /// from the initial state), no conflict is checked, and each app write of a monitored slot
    /// is appended to `writes`, in order (also when the step ends in an error: the writes made
    /// before it). Everything else is [`Model::step`]'s.
    pub fn step_unmonitored(
        &self,
        s: &mut SmartState,
        c: Choice,
        writes: &mut Vec<GhostWrite>,
    ) -> Result<(), ModelError> {
        self.step_unmonitored_reading(s, c, writes, &mut Vec::new())
    }

    /// [`SmartAppModel::step_unmonitored`] that also gives the objects of `s` (attribute slots,
    /// the mode, each app's `state`: the packed parts, packed.rs) the firing looked at, each
    /// once, in the order it first did: every access it records, a write being also a read of
    /// the value held (`explore/firing_memo.rs` keys firings by them).
    pub fn step_unmonitored_reading(
        &self,
        s: &mut SmartState,
        c: Choice,
        writes: &mut Vec<GhostWrite>,
        reads: &mut Vec<u32>,
    ) -> Result<(), ModelError> {
        let mut acc = Vec::new();
        let r = self.fire_traced(s, c as usize, &mut acc, &mut None, None, None, Some(writes));
        reads.clear();
        for a in acc {
            if !reads.contains(&a.object) {
                reads.push(a.object);
            }
        }
        r
    }

    /// The conflict `write`, made by the transition of choice `c`, observes when `last` is the
    /// slot's last write (its ghost; None: no app has written it), exactly as `set_attr` checks
    /// and reports it; None when it is no conflict.
    pub fn monitor_conflict(&self, last: Option<&GhostWrite>, write: &GhostWrite, c: Choice) -> Option<ModelError> {
        let (w, v) = last.map_or((0, &Value::Null), |g| (g.app + 1, &g.value));
        let app = write.app as usize;
        if !conflicts(w, v, app, &write.value, write.manual) {
            return None;
        }
        let (conflict, message) = self.conflict_text(write.slot as usize, w as usize - 1, v, app, &write.value);
        Some(ModelError {
            kind: "conflict",
            message,
            line: write.line as usize,
            event: self.events.get(c as usize).map(|e| e.name.clone()),
            app: Some(conflict.app.clone()),
            conflict: Some(conflict),
            // A write outside subscriptions is the scheduled method's the event runs (as in
            // `Ctx::place`).
            at: Some(self.place(
                app,
                write.line as usize,
                write.sub,
                self.events.get(c as usize).and_then(|e| e.run.as_ref()).map(|(_, m)| m.as_str()),
            )),
        })
    }
    pub(super) fn slot(&self, dev: u16, attr: &str) -> Option<usize> {
        self.slot_of.get(dev as usize)?.iter().find(|(a, _)| a == attr).map(|p| p.1)
    }
    /// The location mode as an object of the accesses, and as the slot of its conflict ghost
    /// (`SmartState::writers`, `GhostWrite::slot`): after every attribute's.
    pub(super) fn mode_object(&self) -> u32 {
        self.slots.len() as u32
    }
    pub(super) fn mode_slot(&self) -> usize {
        self.slots.len()
    }
    pub(super) fn state_object(&self, app: usize) -> u32 {
        (self.slots.len() + 1 + app) as u32
    }

    /// The choices enabled in a state with this root flag and these fire counts (all that
    /// [`Model::enabled`] reads of a state).
    pub(super) fn enabled_in(&self, root: bool, fired: &[u32], out: &mut Vec<Choice>) {
        if root {
            out.extend((0..self.configs.len()).map(|k| (self.events.len() + k) as Choice));
        } else {
            let on = |e: &usize| !self.dead[*e] && self.opts.bound.is_none_or(|k| fired[*e] < k);
            out.extend((0..self.events.len()).filter(on).map(|e| e as Choice));
        }
    }

    /// Fires event `e` on `st`, recording accesses into `acc`.
    pub(super) fn fire(&self, st: &mut SmartState, e: usize, acc: &mut Vec<Access>) -> Result<(), ModelError> {
        self.fire_traced(st, e, acc, &mut None, None, None, None)
    }

    /// [`SmartAppModel::fire`] that, when `log` holds a list, appends what ran to it (lane
    /// diagrams), and when `places` is given, where each app write that makes its app the last
    /// writer is (reports; see [`SmartAppModel::write_place`]). Under `--conflict-mode observe`
    /// the conflicts observed are appended to `seen` (dropped when it is None). Given `writes`,
    /// the conflict ghosts are neither read nor kept: each app write of an attribute whose ghost
    /// would be kept is appended to `writes` instead, in order, and no conflict is checked (the
    /// monitors' run, `explore/monitors.rs`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fire_traced(
        &self,
        st: &mut SmartState,
        e: usize,
        acc: &mut Vec<Access>,
        log: &mut Option<Vec<Logged>>,
        places: Option<&mut Vec<(usize, usize, String)>>,
        seen: Option<&mut Vec<ModelError>>,
        writes: Option<&mut Vec<GhostWrite>>,
    ) -> Result<(), ModelError> {
        if e >= self.events.len() {
            self.configure(st, e - self.events.len(), acc);
            return Ok(());
        }
        if self.opts.bound.is_some() {
            st.fired[e] += 1;
        }
        let ev = &self.events[e];
        // The properties' state before the step (properties.rs); None without properties.
        let prop = self.property_start(st);
        let mut cx = Ctx::new(self, st, 0, std::mem::take(acc));
        cx.prop = prop;
        cx.log = log.take();
        if places.is_some() {
            cx.places = Some(Vec::new());
        }
        let mut writes = writes;
        cx.ghost_writes = writes.as_deref_mut().map(std::mem::take);
        cx.user_event = ev.touch.is_some() || user_action(&ev.attr);
        let r = if let Some((channel, high)) = self.room.event(e) {
            // A physical event: the room settles (`physical.rs`).
            cx.room_settle(channel, high)
        } else if let Some((app, method)) = &ev.run {
            cx.method = Some(method);
            cx.fire_timer(*app, method)
        } else if let Some(d) = ev.dev {
            cx.set_attr(d, &ev.attr, Value::Str(ev.value.clone()), None)
        } else if ev.attr == "mode" {
            cx.set_mode(ev.value.clone(), None)
        } else {
            cx.touch_app = ev.touch;
            cx.deliver(None, &ev.attr, &ev.value)
        };
        if let (Err(Flow::Error(_, line)), None) = (&r, cx.fault) {
            cx.fault = Some((cx.app, *line, None));
        }
        // The properties: a violation found while the handlers ran, or at rest (properties.rs).
        let mut violation = None;
        if let Some(run) = cx.prop.take() {
            violation = match &r {
                Err(Flow::Error(m, _)) if m.starts_with(properties::PROPERTY) => run.violation,
                Err(Flow::Error(..)) => None,
                _ => self.property_end(&run, cx.st, &mut cx.acc),
            };
        }
        *acc = std::mem::take(&mut cx.acc);
        *log = cx.log.take();
        if let (Some(out), Some(found)) = (places, cx.places.take()) {
            out.extend(found);
        }
        if let Some(out) = writes {
            *out = cx.ghost_writes.take().unwrap_or_default();
        }
        if let Some(seen) = seen {
            for mut o in cx.observed.drain(..) {
                o.event = Some(ev.name.clone());
                seen.push(o);
            }
        }
        if !cx.unknown.is_empty() {
            self.note_unmodelled(std::mem::take(&mut cx.unknown));
        }
        let app = cx.app;
        let at = cx.fault_place();
        let conflict = cx.conflict.take();
        let method = cx.method.map(str::to_string);
        drop(cx);
        if let Some(v) = violation {
            self.reset_guarded(st);
            return Err(self.property_error(v, &ev.name, method.as_deref()));
        }
        // The representative of the states no later transition tells apart (`guarded.rs`).
        self.reset_guarded(st);
        match r {
            Ok(()) => Ok(()),
            Err(Flow::Error(msg, line)) => Err(ModelError {
                kind: if msg.starts_with(CONFLICT) { "conflict" } else { "exception" },
                message: msg.trim_start_matches(CONFLICT).to_string(),
                line,
                event: Some(ev.name.clone()),
                // The app whose write conflicted (the firing may have begun in another one).
                app: Some(conflict.as_ref().map_or_else(|| self.apps[app].name.clone(), |c| c.app.clone())),
                conflict,
                at,
            }),
            Err(_) => Ok(()),
        }
    }
}

impl Ctx<'_> {
    pub(super) fn touch(&mut self, object: u32, write: bool) {
        if write {
            self.room_act();
        }
        self.acc.push(Access { object, write });
        self.logged(Some(Access { object, write }));
    }

    /// Notes an access (or a handler starting) for a lane diagram, when one is being drawn.
    pub(super) fn logged(&mut self, access: Option<Access>) {
        if let Some(log) = &mut self.log {
            log.push(Logged { sub: self.sub, app: self.app, access, line: self.line });
        }
    }

    pub(super) fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(Flow::Error(msg.into(), self.line))
    }

    /// Sets a device attribute; an app write (`by`) is checked for conflicts; a change delivers
    /// the event to the subscribers.
    pub(super) fn set_attr(&mut self, dev: u16, attr: &str, value: Value, by: Option<usize>) -> R<()> {
        let Some(slot) = self.m.slot(dev, attr) else { return Ok(()) };
        // A command given no value (an unset optional input) leaves the device as it is.
        if matches!(&value, Value::Null) || matches!(&value, Value::Str(x) if x == "null") {
            return Ok(());
        }
        if by.is_some() && self.prop.is_some() {
            self.property_command_write(slot as u32, &value)?;
        }
        // An attribute nobody reads (or subscribes to, when one app writes it) is not stored,
        // and its event touches nothing of the state (`dead.rs`); an app's write of it does
        // nothing. (Both are decided after installing, which runs with everything stored.)
        if self.m.dead_slots.get(slot) == Some(&true) {
            if by.is_some() {
                return Ok(());
            }
            let m = self.m;
            return self.deliver(Some(dev), &m.slot_text[slot], &value.text().into());
        }
        // The conflict ghost of an attribute one app writes is not kept (`dead.rs`), nor of one
        // outside `--conflicts-on` (never a conflict: `in_conflict_scope`).
        let ghost = by.is_some() && self.m.keeps_ghost(slot);
        // A write that leaves the state as it was (the same value, and with `--conflicts` the
        // same last writer) is recorded as a read: see `unchanged_write_is_a_read`.
        let changes = self.new_writer(slot, by, ghost, &value) || !loose_eq(&self.st.attrs[slot], &value);
        self.touch(slot as u32, changes);
        if let (Some(app), true) = (by, ghost) {
            self.app_write(slot, app, &value)?;
        }
        // What the room carries (`physical.rs`): an app's change moves a medium; the
        // environment's report of a sensor is the environment's value again.
        match by {
            Some(app) if !loose_eq(&self.st.attrs[slot], &value) => self.room_actuated(slot, app, &value),
            None => self.room_reported(slot),
            Some(_) => {}
        }
        // A device reports a change only; an app's command to the value held sends nothing. The
        // environment's event is a change by definition: the device came to this value (through
        // others no app listens to, if it held it already), so its subscribers always run.
        if loose_eq(&self.st.attrs[slot], &value) {
            if by.is_some() {
                return Ok(());
            }
        } else {
            self.st.attrs[slot] = value.clone();
            if let Some(app) = by.filter(|_| self.prop.is_some()) {
                self.property_write(slot as u32, app);
            }
        }
        let text = match value {
            Value::Str(x) => x,
            v => v.text().into(),
        };
        let m = self.m;
        // A switch an app flips on the user's direct command is flipped by the user, through
        // the app: its handlers act on the user's command too (switch-changes-mode following a
        // switch good-night-house turned on at a tap). Any other change the user's command
        // causes is reported by a device and handled as an automation (a lock unlocked at a tap
        // that another app locks again).
        if by.is_some() {
            self.user_event = self.manual && user_action(attr);
        }
        self.deliver(Some(dev), &m.slot_text[slot], &text)
    }

    /// Whether an app's write of `value` to `slot` makes it a new last writer (`ghost`: the
    /// slot's ghost is kept): another app wrote it last, or another value.
    fn new_writer(&self, slot: usize, by: Option<usize>, ghost: bool, value: &Value) -> bool {
        match (by, ghost) {
            (Some(app), true) => {
                let (w, last) = &self.st.writers[slot];
                *w as usize != app + 1 || last != value
            }
            _ => false,
        }
    }

    /// An app's write of `slot` (a device attribute or the location mode) whose conflict ghost
    /// is kept: in the monitors' run handed out, the ghost neither read nor kept; otherwise
    /// checked against the ghost (IoTCheck's conflict) and made the ghost.
    fn app_write(&mut self, slot: usize, app: usize, value: &Value) -> R<()> {
        if let Some(out) = self.ghost_writes.as_mut() {
            out.push(GhostWrite {
                slot: slot as u32,
                app: app as u8,
                manual: self.manual,
                line: self.line as u32,
                sub: self.sub,
                value: value.clone(),
                physical: false,
            });
            return Ok(());
        }
        let (w, last) = &self.st.writers[slot];
        // A write on the user's direct command is the user's intent, not a conflict (as
        // IoTCheck leaves its "manual" writes out); it is still the last write, so an
        // automation undoing it conflicts.
        if conflicts(*w, last, app, value, self.manual) {
            let (conflict, message) = self.m.conflict_text(slot, *w as usize - 1, last, app, value);
            if self.m.opts.conflict_mode == crate::model::ConflictMode::Observe {
                // Where the earlier side wrote is the place recorded last before this
                // point: marked, since later writes of this firing go on (`write_place`).
                if let Some(p) = self.places.as_mut() {
                    p.push((usize::MAX - slot, *w as usize - 1, String::new()));
                }
                // Recorded, and the write goes on (see the module header).
                self.observed.push(ModelError {
                    kind: "conflict",
                    message,
                    line: self.line,
                    event: None,
                    app: Some(conflict.app.clone()),
                    conflict: Some(conflict),
                    at: Some(self.place(app, self.line, self.sub)),
                });
            } else {
                self.conflict = Some(conflict);
                self.fault = Some((app, self.line, self.sub));
                return self.err(format!("{CONFLICT}{message}"));
            }
        }
        self.st.writers[slot] = ((app + 1) as u8, value.clone());
        if self.places.is_some() {
            let mut place = self.place(app, self.line, self.sub);
            // The study's distinction: a write on the user's command is a direct one.
            if self.manual {
                place.push_str("; direct: the user's own command");
            }
            if let Some(p) = self.places.as_mut() {
                p.push((slot, app, place));
            }
        }
        Ok(())
    }

    /// Sets the location mode: the environment's mode event (`by` None: a change to `mode`
    /// by definition), or an app's write (`setLocationMode`, `location.setMode`,
    /// `location.mode = x`, a routine), which is a write of a shared attribute of the home
    /// like a device's: under `--conflicts` checked against the mode's last app writer, and
    /// delivered to the mode's subscribers when it changes the mode.
    pub(super) fn set_mode(&mut self, mode: Text, by: Option<usize>) -> R<()> {
        // Given no mode (an unset optional input), an app changes nothing.
        if by.is_some() && (mode.is_empty() || *mode == *"null") {
            return Ok(());
        }
        let slot = self.m.mode_slot();
        let ghost = by.is_some() && self.m.keeps_ghost(slot);
        let value = Value::Str(mode.clone());
        let changes = self.new_writer(slot, by, ghost, &value) || *self.st.mode != *mode;
        self.touch(slot as u32, changes);
        if let (Some(app), true) = (by, ghost) {
            self.app_write(slot, app, &value)?;
        }
        // As for a device: an app setting the mode it has changes nothing more; the
        // environment's mode event is a change to that mode.
        if *self.st.mode == *mode {
            if by.is_some() {
                return Ok(());
            }
        } else {
            self.st.mode = mode.clone();
            if let Some(app) = by.filter(|_| self.prop.is_some()) {
                self.property_write(slot as u32, app);
            }
        }
        self.deliver(None, &Text::Static("mode"), &mode)
    }

    /// Runs the handlers subscribed to `attr` of `dev` (None: location/app) with `value`; with
    /// properties, watching for the delivery coming round again (properties.rs).
    pub(super) fn deliver(&mut self, dev: Option<u16>, attr: &Text, value: &Text) -> R<()> {
        if self.prop.is_none() {
            return self.deliver_handlers(dev, attr, value);
        }
        self.property_deliver(dev, attr, value)?;
        let r = self.deliver_handlers(dev, attr, value);
        self.property_delivered();
        r
    }

    fn deliver_handlers(&mut self, dev: Option<u16>, attr: &Text, value: &Text) -> R<()> {
        if self.depth > 24 {
            return Ok(());
        }
        // One `evt` for every handler: shared, and copied on write should one change it.
        // An app touch runs the tapped app's handlers only; every other event runs every
        // handler subscribed to it, in every app, in subscription order.
        let touched = self.touch_app.take();
        // Handlers of the user's own action act on the user's command; those of a change they
        // cause in turn (this delivery nested in a handler) are automations again.
        let manual = std::mem::take(&mut self.user_event);
        let mut evt = None;
        for (si, sub) in self.m.subs.iter().enumerate() {
            let hit = sub.dev == dev
                && (sub.attr == **attr || (dev.is_none() && sub.attr == "location" && **attr == *"mode"))
                && sub.value.as_deref().is_none_or(|v| v == &**value)
                && (sub.attr != "app" || touched.is_none_or(|a| a == sub.app));
            // An app left out of the interleaving (`slice`) runs no handler.
            if !hit || self.m.left_out[sub.app] {
                continue;
            }
            let evt = evt.get_or_insert_with(|| self.event_value(dev, attr, value)).clone();
            let saved = (self.app, self.base, self.sub, self.manual);
            self.base = self.vars.len();
            self.app = sub.app;
            self.sub = Some(si);
            self.logged(None);
            self.manual = manual;
            self.depth += 1;
            let acts = self.room_handler_starts();
            let r = match &sub.handler {
                Handler::Method(m) => self.call_method(sub.app, m, smallvec![evt]).map(|_| ()),
                Handler::Closure(c) => self.call_closure(c, smallvec![evt]).map(|_| ()),
            };
            self.room_handler_ends(si, acts);
            self.depth -= 1;
            self.vars.truncate(self.base);
            if let (Err(Flow::Error(_, line)), None) = (&r, self.fault) {
                self.fault = Some((sub.app, *line, Some(si)));
            }
            (self.app, self.base, self.sub, self.manual) = saved;
            if let Err(Flow::Error(m, l)) = r {
                return Err(Flow::Error(m, l));
            }
        }
        Ok(())
    }

    /// The `evt` handlers get: a map of the few fields every event has; the rest (numeric
    /// values, description, ...) are derived on reading (see [`Ctx::member`]).
    ///
    /// `data` is the JSON text the device sent with it: a presence sensor (or beacon) names the
    /// phone it saw and whether it is present (`{"presence":"1","dni":"..."}`, as hubs send and
    /// beacon-control reads); a button names the button (`{"buttonNumber":1}`: the device is a
    /// one-button device, the data a hub's button sends, which 13 apps of the corpus read to
    /// choose what to do; with `{}` their handlers did nothing); other devices send an empty
    /// object.
    pub(super) fn event_value(&self, dev: Option<u16>, attr: &Text, value: &Text) -> Value {
        let data = match (dev, &**attr) {
            (Some(_), "presence") => Value::Str(self.m.presence_data[(**value == *"present") as usize].clone()),
            (Some(_), "button") => lit("{\"buttonNumber\":1}"),
            _ => lit("{}"),
        };
        map(vec![
            (lit("name"), Value::Str(attr.clone())),
            (lit("value"), Value::Str(value.clone())),
            (lit("device"), dev.map_or(Value::Obj("location"), Value::Dev)),
            (lit("displayName"), dev.map_or(lit("location"), |d| Value::Str(self.m.device_text[d as usize].clone()))),
            (lit("deviceId"), dev.map_or(lit("location"), |d| Value::Str(self.m.device_id_text[d as usize].clone()))),
            (lit("data"), data),
        ])
    }

    /// Runs a timer's method (`runIn`, `runOnce`, `runEvery*`, `schedule`) at once. On a hub it
    /// runs later, as an execution of its own: an automation, even when the handler that set
    /// the timer acted on the user's command (a light turned off some minutes after the user
    /// turned it on is the app's doing, not the user's).
    pub(super) fn run_handler(&mut self, h: Value) -> R<()> {
        let manual = std::mem::replace(&mut self.manual, false);
        let r = self.run_timer(h);
        self.manual = manual;
        r
    }

    fn run_timer(&mut self, h: Value) -> R<()> {
        let app = self.app;
        match h {
            Value::Str(n) => {
                self.call_method(app, &n, Vec::new())?;
            }
            Value::Closure(c) => {
                let saved = self.base;
                self.base = self.vars.len();
                let r = self.call_closure(&c, Vec::new());
                self.vars.truncate(self.base);
                self.base = saved;
                r?;
            }
            _ => {}
        }
        Ok(())
    }

    pub(super) fn subscribe(&mut self, a: &[Value]) {
        if self.installing.is_none() {
            return;
        }
        let app = self.app;
        let (target, ev, h) = match a.len() {
            2 => (a[0].clone(), None, a[1].clone()),
            n if n >= 3 => (a[0].clone(), Some(a[1].text()), a[2].clone()),
            _ => return,
        };
        let handler = match h {
            Value::Str(n) if self.m.apps[app].methods.contains_key(&*n) => Handler::Method(n.to_string()),
            Value::Closure(c) => Handler::Closure(c),
            h => {
                let why = format!("subscription whose handler `{}` is no method of the app: not made", h.text());
                self.problems.push((self.line, why));
                return;
            }
        };
        let (attr, value) = match &ev {
            Some(e) => match e.split_once('.') {
                Some((a, v)) => (subscribed_attr(a.to_string()), Some(v.to_string())),
                None => (subscribed_attr(e.clone()), None),
            },
            None => (String::new(), None),
        };
        if !matches!(target, Value::Obj("location" | "app"))
            && !target.items().iter().any(|d| matches!(d, Value::Dev(_)))
        {
            let why =
                format!("subscription to `{}` on no device (the input is unset): not made", ev.unwrap_or_default());
            self.problems.push((self.line, why));
            return;
        }
        let Some(subs) = self.installing.as_mut() else { return };
        match target {
            Value::Obj("location") => {
                let attr = if attr.is_empty() || attr == "position" { "location".to_string() } else { attr };
                let value = if attr == "mode" { value } else { None };
                subs.push(Sub { app, dev: None, attr, value, handler });
            }
            Value::Obj("app") => subs.push(Sub { app, dev: None, attr: "app".into(), value: None, handler }),
            t => {
                for d in t.items() {
                    if let Value::Dev(d) = d {
                        subs.push(Sub {
                            app,
                            dev: Some(d),
                            attr: attr.clone(),
                            value: value.clone(),
                            handler: handler.clone(),
                        });
                    }
                }
            }
        }
    }
}
