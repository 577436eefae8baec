//! The devices' states at installation, chosen by the environment.
//!
//! A hub installs an app whatever state its devices are in: the lock may be unlocked, the
//! thermostat heating, the location in `away`. Apps that save what they find at installation and
//! restore it later (make-it-so, thermostat-auto-off, ...) conflict with another app only when
//! what they saved differs from what the other one writes, so one fixed configuration hides
//! those conflicts. IoTCheck's device classes start from one of two configurations per run (its
//! `init` flag; the thermostat is `off` in both). Here the system starts at a root state whose
//! only choices are configurations `init.0` .. `init.{K-1}`; each is the state after installing
//! every app from that configuration. `init.0` is the devices' defaults (what one fixed
//! configuration gave before).
//!
//! **Which configurations.** The attributes that vary are those some app may command (its
//! static writes, [`SmartAppModel::reach`]) and the location mode when an app subscribes to it or
//! sets it: an app's saved state is restored by commands, and the mode names the saved scene.
//! Sensors that some app subscribes to are left at their defaults: the environment's events
//! move them anyway (each event reaches its subscribers as a change). A sensor that apps only
//! read (an illuminance a handler compares with a threshold, no app subscribed to it) has no
//! event, so it varies here as well ([`SmartAppModel::unmoved_reads`]): the room may be dark
//! or bright when the apps are installed, and without it a branch on the reading would never
//! be taken either way. Those sensors take their other values in configurations after the
//! ones above (value j in configuration K - 1 + j per row of picks, the rest at defaults), so
//! every configuration there was without them is still there: only behaviours are added. Each attribute's values are its default then those its
//! events take (`event_values`); configuration k gives each varied attribute its value number
//! k modulo how many it has. So every value of every varied attribute is present at
//! installation in some configuration (a covering of strength one, K = the largest number of
//! values, at most 5), not every combination: the product would multiply the states by up to
//! 5^7 on a thermostat alone, and a conflict of saved state involves one attribute restored.
//!
//! **Dependence.** A configuration choice writes every object (each attribute, the mode, each
//! app's state) and is enabled only at the root, where nothing else is; so it is dependent with
//! everything, and a strategy that backtracks to the root explores every configuration.

use super::*;

impl SmartAppModel {
    /// Builds the configurations from `fresh` (the defaults, before installation), once the apps
    /// are installed from it (`self.init`, `self.subs`): with one configuration, nothing changes.
    pub(super) fn choose_configurations(&mut self, fresh: SmartState) {
        let reach = self.reach();
        let mut varied: Vec<(usize, Vec<Value>)> = Vec::new();
        let mut slots: Vec<usize> = reach.iter().flat_map(|r| r.writes.iter().copied()).collect();
        slots.sort_unstable();
        slots.dedup();
        let sensed_slots = if self.opts.fixed_inputs { Vec::new() } else { self.unmoved_reads(&reach) };
        let mut sensed: Vec<(usize, Vec<Value>)> = Vec::new();
        for (slot, into_sensed) in
            slots.into_iter().map(|x| (x, false)).chain(sensed_slots.into_iter().map(|x| (x, true)))
        {
            let default = fresh.attrs[slot].clone();
            if default == Value::Null {
                continue;
            }
            let attr = self.slots[slot].1.as_str();
            let ty = if attr == "door" { "doorState" } else { attr };
            let mut values = vec![default];
            for v in event_values(ty).iter().filter(|v| **v != "1") {
                if !values.iter().any(|x| loose_eq(x, &s(v))) {
                    values.push(s(v));
                }
            }
            if values.len() > 1 {
                if into_sensed {
                    sensed.push((slot, values))
                } else {
                    varied.push((slot, values))
                }
            }
        }
        // The sensors only read take their other values in configurations of their own, the
        // rest at the defaults: zipped with the commanded attributes they would move in step
        // with them and lose the combinations those configurations had (a lock unlocked at
        // installation with its door's contact closed).
        let sensed_max = sensed.iter().map(|v| v.1.len()).max().unwrap_or(1);
        let mode_used = reach.iter().any(|r| r.sets_mode)
            || self.subs.iter().any(|s| s.dev.is_none() && (s.attr == "location" || s.attr == "mode"));
        let modes: &[&'static str] = if mode_used { event_values("mode") } else { &[] };
        let k_max = varied.iter().map(|v| v.1.len()).chain([modes.len()]).max().unwrap_or(0).max(1);
        // Zipped with the rows of values a person picks (`choices.rs`): each device
        // configuration meets some row and each row some device configuration. The product
        // would meet every row with every configuration but multiplies the states by both.
        let (devs, rows) = (k_max, self.picks.len());
        let k_max = k_max.max(rows);
        if k_max <= 1 && sensed_max <= 1 {
            return;
        }
        // Installing delivers nothing (as at load, when no subscription is made yet).
        let subs = std::mem::take(&mut self.subs);
        let mut configs = vec![("init.0".to_string(), self.init.clone())];
        let mut notes = Vec::new();
        // Configuration i < k_max is as without the sensors; each later one is sensor value
        // number j (j >= 1) with the defaults elsewhere, for each row of the picks.
        for i in 1..k_max + (sensed_max - 1) * rows {
            let (k, row, j) =
                if i < k_max { (i % devs, i % rows, 0) } else { (0, (i - k_max) % rows, 1 + (i - k_max) / rows) };
            let mut st = fresh.clone();
            for (slot, values) in &varied {
                st.attrs[*slot] = values[k % values.len()].clone();
            }
            for (slot, values) in sensed.iter().filter(|_| j > 0) {
                st.attrs[*slot] = values[j % values.len()].clone();
            }
            if !modes.is_empty() {
                st.mode = Text::Static(modes[k % modes.len()]);
            }
            st.picks = row as u16;
            let (st, made) = load::install(self, st, &mut notes);
            if !same_subscriptions(&made, &subs) && !self.unsupported.iter().any(|u| u.contains("init.")) {
                let app = &self.apps[0].file;
                self.unsupported.push(format!(
                    "{app}:1: the apps subscribe differently when installed from configuration init.{i}: the subscriptions of init.0 are kept"
                ));
            }
            configs.push((format!("init.{i}"), st));
        }
        self.subs = subs;
        self.init.root = true;
        self.configs = configs;
    }

    /// Sensor slots some app reads that no app commands and no subscription moves: the
    /// environment's events never change them, so without a configuration they would keep their
    /// default for ever (an illuminance of 100 that neither `lux <= 5` nor `lux < 10` ever
    /// passes). Slots of the model's own (`medium:pending`, `medium:cause`) are not sensors.
    pub(super) fn unmoved_reads(&self, reach: &[super::footprint::AppReach]) -> Vec<usize> {
        let written: Vec<usize> = reach.iter().flat_map(|r| r.writes.iter().copied()).collect();
        let subscribed = |slot: usize| {
            self.subs.iter().any(|s| {
                s.dev.is_some_and(|d| self.slot_of[d as usize].iter().any(|(a, x)| *x == slot && *a == s.attr))
            })
        };
        let mut out: Vec<usize> = reach
            .iter()
            .flat_map(|r| r.reads.iter().copied())
            .filter(|&slot| !self.slots[slot].1.contains(':') && !written.contains(&slot) && !subscribed(slot))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Fires configuration `k` at the root: the state after installing from it. It writes every
    /// object (see the module header).
    pub(super) fn configure(&self, st: &mut SmartState, k: usize, acc: &mut Vec<Access>) {
        st.clone_from(&self.configs[k].1);
        acc.extend(self.every_object().into_iter().map(|object| Access { object, write: true }));
    }

    /// Every object of the state: each attribute slot, the mode, each app's state.
    pub(super) fn every_object(&self) -> Vec<u32> {
        (0..self.state_object(self.apps.len())).collect()
    }
}

fn same_subscriptions(a: &[Sub], b: &[Sub]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.app == y.app
                && x.dev == y.dev
                && x.attr == y.attr
                && x.value == y.value
                && x.handler.name() == y.handler.name()
        })
}
