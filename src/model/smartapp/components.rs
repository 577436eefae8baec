//! The interaction graph of a system of SmartApps (whole homes): which kept apps can
//! influence one another, and which can influence the writes of one attribute. Computed from the
//! static reach of every app ([`super::footprint`]), for deciding whether a home falls apart into
//! parts that could be checked alone. It is an analysis only: nothing here changes what a search
//! explores (see "What it is for" below).
//!
//! **The graph.** Two apps kept under `--conflicts` (`slice.rs`) are joined when one may write an
//! object the other may read (a device attribute slot its source names, see `AppReach::reads`,
//! or one it subscribes to), when both may write one object, when either may set the mode (the
//! interpreter may read `location.mode` anywhere, so a mode writer is joined to every app), when
//! either has an effect the model does not bound (a computed call, `sendEvent` and the other
//! [`super::footprint`] shared effects: joined to every app), when one environment event can
//! run handlers of both (both subscribe to one device attribute, or to one location event), and
//! when an environment event that runs a handler of one writes what the other reads (the
//! environment's events are made from the subscriptions: without the subscriber, the reader
//! would never see that attribute change; a mode event, which any app may read, joins its
//! subscriber to every app). The last kind was missing at first and the suite found it (home
//! 142 of `a_homes_conflicts_are_the_union_of_its_components`'s first 1,000).
//!
//! **Why a home's conflicts would be the union of its components' conflicts** (compositional
//! reasoning over an asynchronous product; the independence is Mazurkiewicz's, as used by
//! Godefroid's partial-order methods, thesis 1996, Chapter 3). Let P and Q be two components.
//! Every firing is an environment event, a `schedule` method of one app, an app touch, or a
//! configuration. An event of the first three kinds runs handlers of at most one component (the
//! fourth edge kind) and touches only that component's objects, the slot the environment writes
//! included (the last kind); whatever P's handlers write, no handler of Q reads or writes (the
//! first two kinds),
//! and conflict ghosts move only with app writes. So a P-firing and a Q-firing are independent
//! in every state (they commute and neither enables or disables the other; every event is
//! always enabled without `--bound`), and the reachable states, projected on P's objects, are
//! those P reaches alone from the same configuration. A conflict involves two writes of one
//! attribute, by two apps, hence by apps of one component: each conflict of the home is one of
//! a component checked alone (drop the other components' firings from its schedule, which
//! changes nothing P's handlers see), and each conflict of a component is one of the home (its
//! schedule replays in the home, where the other components' handlers run in no firing of it).
//! This holds in both `--conflict-mode`s: under `end` a conflict ends a path, but a component's
//! schedule holds no other component's firing, so nothing else can end it first. Configurations
//! write every object but are one choice at the root, taken alike in home and component.
//!
//! **Per attribute, the cone of influence** (Clarke, Grumberg and Peled, *Model Checking*, 1999,
//! the cone of influence reduction): the apps that write the attribute, closed under "writes an
//! object an app of the cone reads or subscribes to". Apps outside it cannot change what the
//! writers of the attribute do, so under `--conflict-mode observe` its conflicts are those of
//! the cone alone, up to the exceptions of apps outside it that stop a firing early (the same
//! caveat as `slice.rs`); under `end` a conflict on another attribute may end a path first, so
//! the cone can find more than the home does. Checking a cone alone would also have to keep the
//! environment events that exist for an app outside it and write what the cone reads (the
//! components' last edge kind). Not used, not tested by the suite, for those reasons and because
//! it did not shrink the fixture homes (docs/reductions-homes.md).
//!
//! **What it is for.** Measured on the six fixture homes (docs/reductions-homes.md), every home
//! whose search does not finish is one component whose cones are the whole component: devices
//! are one per capability, shared by every app of that capability (IoTCheck's model), and a
//! group's apps all command the same device. So the decomposition is not wired into the search;
//! the analysis is kept to tell, per home, whether it could apply (`tests/homes.rs` prints it).
//! tests/soundness_homes.rs checks the union claim on generated homes under `full`, in both
//! conflict modes, and that each component's conflict schedule replays in the whole home.

use super::SmartAppModel;

impl SmartAppModel {
    /// Per app: the slots it may read, those it subscribes to included (a subscription reads
    /// the attribute's changes), and whether it has an effect the scan does not bound (a
    /// computed call, a shared effect): joined to every app.
    fn reads_and_wild(&self, reach: &[footprint::AppReach]) -> (Vec<Vec<usize>>, Vec<bool>) {
        let mut reads: Vec<Vec<usize>> = reach.iter().map(|r| r.reads.clone()).collect();
        for sub in &self.subs {
            if let Some(slot) = sub.dev.and_then(|d| self.slot(d, &sub.attr)) {
                reads[sub.app].push(slot);
            }
        }
        let wild = self
            .apps
            .iter()
            .map(|app| {
                let sc = footprint::scan(&app.script);
                sc.dynamic || sc.effects || sc.computed_command
            })
            .collect();
        (reads, wild)
    }

    /// The kept apps' adjacency in the interaction graph (see the module header); an app left
    /// out (`slice.rs`) has no edge.
    fn interaction_edges(&self) -> Vec<Vec<bool>> {
        let reach = self.reach();
        let n = self.apps.len();
        let mut adj = vec![vec![false; n]; n];
        let kept: Vec<usize> = (0..n).filter(|&a| !self.left_out[a]).collect();
        let (reads, wild) = self.reads_and_wild(&reach);
        for &a in &kept {
            for &b in &kept {
                if a == b {
                    continue;
                }
                let (ra, rb) = (&reach[a], &reach[b]);
                let writes_read = ra.writes.iter().any(|s| reads[b].contains(s) || rb.writes.contains(s));
                // One environment event runs a handler of `a` and runs one of `b` or writes
                // what `b` reads (the event exists because `a` subscribes; `b` alone would
                // never see the attribute change), or changes the mode, which any app may read.
                let subs_a = self.subs.iter().filter(|s| s.app == a);
                let same_event = subs_a
                    .clone()
                    .any(|sa| self.subs.iter().filter(|s| s.app == b).any(|sb| sa.dev == sb.dev && sa.attr == sb.attr));
                let event_read = subs_a.clone().any(|sa| match sa.dev {
                    Some(d) => self.slot(d, &sa.attr).is_some_and(|slot| reads[b].contains(&slot)),
                    None => sa.attr == "mode" || sa.attr == "location",
                });
                // Through the room (`physical.rs`): an app whose commands move a medium and an
                // app that senses one interact, as a write and a read of one attribute do.
                let room = &self.room;
                let through_room = |x: usize, y: usize| {
                    room.pends.get(x).is_some_and(|p| !p.is_empty()) && room.senses.get(y) == Some(&true)
                };
                let physical = through_room(a, b) || through_room(b, a);
                if writes_read || same_event || event_read || ra.sets_mode || wild[a] || physical {
                    adj[a][b] = true;
                    adj[b][a] = true;
                }
            }
        }
        adj
    }

    /// The connected components of the kept apps' interaction graph, each a sorted list of app
    /// indices, in order of their first app.
    pub fn interaction_components(&self) -> Vec<Vec<usize>> {
        let adj = self.interaction_edges();
        let n = self.apps.len();
        let mut comp = vec![usize::MAX; n];
        let mut out: Vec<Vec<usize>> = Vec::new();
        for start in (0..n).filter(|&a| !self.left_out[a]) {
            if comp[start] != usize::MAX {
                continue;
            }
            let id = out.len();
            let mut part = vec![start];
            comp[start] = id;
            let mut i = 0;
            while i < part.len() {
                let a = part[i];
                i += 1;
                for b in 0..n {
                    if adj[a][b] && comp[b] == usize::MAX {
                        comp[b] = id;
                        part.push(b);
                    }
                }
            }
            part.sort_unstable();
            out.push(part);
        }
        out
    }

    /// Per attribute (device, attribute) that two or more kept apps may write: its cone of
    /// influence, the writers closed under "may write an object an app of the cone reads or
    /// subscribes to, or sets the mode" (see the module header).
    pub fn conflict_cones(&self) -> Vec<((String, String), Vec<usize>)> {
        let reach = self.reach();
        let n = self.apps.len();
        let (reads, wild) = self.reads_and_wild(&reach);
        let mut out = Vec::new();
        for slot in 0..self.slots.len() {
            let writers: Vec<usize> =
                (0..n).filter(|&a| !self.left_out[a] && reach[a].writes.contains(&slot)).collect();
            if writers.len() < 2 {
                continue;
            }
            let mut cone = vec![false; n];
            writers.iter().for_each(|&a| cone[a] = true);
            loop {
                let mut grew = false;
                for b in 0..n {
                    if self.left_out[b] || cone[b] {
                        continue;
                    }
                    let feeds = reach[b].sets_mode
                        || wild[b]
                        || (0..n).any(|a| cone[a] && reach[b].writes.iter().any(|s| reads[a].contains(s)));
                    if feeds {
                        cone[b] = true;
                        grew = true;
                    }
                }
                if !grew {
                    break;
                }
            }
            let (d, attr) = &self.slots[slot];
            out.push(((self.devices[*d as usize].clone(), attr.clone()), (0..n).filter(|&a| cone[a]).collect()));
        }
        out
    }
}

use super::footprint;
