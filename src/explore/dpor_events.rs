//! `dpor` on event models and SmartApps under `--bound k`: Flanagan and Godefroid's dynamic partial-order
//! reduction (POPL 2005, "Dynamic partial-order reduction for model checking software"), with
//! happens-before tracked by vector clocks as in their paper; stateless, so the state space
//! must be acyclic, which the bound makes it. What it preserves is what the event-model soundness checks compare: the
//! distinct errors and nothing-enabled states, the same as `full-stateless` and `full` under
//! the same `--bound` and `--conflicts` (tests/events_dpor_bounded.rs).
//!
//! The search is generic over [`StaticFootprints`] (statically dispatched): event models
//! ([`crate::model::events::EventModel::footprint`]) and SmartApps
//! (src/model/smartapp/footprint.rs, where a choice is an environment event and its cascade);
//! "event" below is either's choice. On SmartApps nothing enables or disables a choice but its
//! own bound counter, and the `--conflicts` ghost of an attribute moves only with an app's write
//! of it, a write in the footprint, so the argument below applies unchanged.
//!
//! **Processes and transitions.** Each event is a process whose next transition is always the
//! same one, "fire e"; it is enabled when e's flag is set and its counter is below k, and is gone
//! for good (a terminated process) once the counter reaches k.
//!
//! **Static footprints, not the dynamic accesses.** Two transitions are dependent iff their
//! [`EventModel::footprint`]s conflict: every variable e's handlers read or write on *any*
//! branch, the flags of the events it enables or disables, and the dispatch read of its own
//! flag (so whoever can enable or disable e depends on e, and so do two events that both set a
//! flag). FG's argument needs a process's next transition, and its dependence with others, to
//! stay the same until the process runs; with the accesses of the executed path it does not:
//! a write by one event can switch another's branch so that it starts disabling a third,
//! which lost nothing-enabled states in an earlier attempt (tests/events_dpor_bounded.rs keeps
//! that model). With footprints fixed per event, dependence is a static relation between
//! events, happens-before is a vector clock per path position, and the race check of a process
//! needs only the latest transition of each event it depends on. `--conflicts` needs nothing
//! more: the conflict check of `x = v` reads x and its last writer, both written only by
//! assignments to x, so two events writing one attribute are dependent (write/write) and both
//! orders are explored.
//!
//! **Errors.** A failing transition ends its execution, which FG's model does not have: the
//! error "disables" every other event, and the races of what would have come after it are never
//! seen. By default the search does what that dependence asks for: at the state before a failed
//! transition every enabled event is explored (the races of the failing event with the path
//! before it were already checked at that state, as for every process). The argument of FG's
//! theorem then goes through: the executions it follows never need to pass a failed
//! transition, since where one fails every alternative is explored.
//!
//! `continue_after_errors` is the variant whose soundness follows from the theorem directly:
//! a failed transition leaves the state as it was, its event stops (a terminated process), and
//! the execution goes on. An error then affects nothing another event reads, FG applies with the
//! same static dependence, and every nothing-enabled state of that system is reached. Those
//! reached with no error on the way are the model's; an error reached after others is also
//! reached without them (the failed transitions changed nothing), which is the schedule
//! reported. It walks more on models with many errors (big-turn-on with `--conflicts --bound 2`:
//! 1,309 transitions against 23), so it is not the default; the randomized test checks both.
//! Runs that end after an error are not counted again as executions (the error counted them).
//!
//! **Sleep sets** (`dpor-sleep`, `sleep_sets`): as on EM traces (src/explore/dpor_sleep.rs),
//! an event done or asleep at a state stays asleep after an independent one fires, and is not
//! taken while asleep; a race whose candidates are all asleep at `pre(i)` gives `pre(i)` every
//! enabled event. Footprint independence means the fired event neither changes what a
//! sleeping one does nor enables or disables it (flags are in the footprint).

use super::sets::{sleep_after, ChoiceSet};
use super::{Search, Strategy};
use crate::model::clock::join_into;
use crate::model::{conflicting, Choice, StaticFootprints};

/// The transition taken from a state of the current path (its clock is the frame's).
struct Taken {
    event: Choice,
    /// It failed: the state after it is the state before it, and `event` stopped.
    errored: bool,
    /// `last[event]` before this transition, restored when it is undone.
    prev_last: u32,
}

/// One state of the current path (FG's `pre(S, i)` for the transition taken from it).
struct Frame<S> {
    state: S,
    /// Enabled events, ascending (those stopped by an error left out).
    enabled: Vec<Choice>,
    backtrack: ChoiceSet,
    done: ChoiceSet,
    taken: Option<Taken>,
    /// Clock of the transition taken from here (valid while `taken` is set). Entry q: 1 + the
    /// path position of q's latest transition that happens before it.
    clock: Vec<u32>,
    /// Sleep set (`dpor-sleep`): events not to take here.
    sleep: ChoiceSet,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct DporEvents {
    /// Walk on after a failed transition (with the event stopped) instead of ending the
    /// execution there and expanding the state before it fully.
    pub continue_after_errors: bool,
    /// Godefroid's sleep sets (`dpor-sleep`).
    pub sleep_sets: bool,
}

impl<M: StaticFootprints> Strategy<M> for DporEvents {
    fn name(&self) -> &'static str {
        if self.sleep_sets {
            "dpor-sleep"
        } else {
            "dpor"
        }
    }

    fn run(&mut self, search: &mut Search<'_, M>) {
        let model = search.model;
        assert!(model.bound().is_some(), "dpor on an event model or SmartApps needs --bound k (a stateless search)");
        let n = model.choices() as usize;
        let dependent = dependence(model);
        let mut dependent_pair = vec![false; n * n];
        for (p, qs) in dependent.iter().enumerate() {
            for &q in qs {
                dependent_pair[p * n + q as usize] = true;
            }
        }
        let mut walk = Walk {
            n,
            dependent,
            dependent_pair,
            sleep_sets: self.sleep_sets,
            last: vec![0; n],
            stopped: vec![false; n],
            errors_on_path: 0,
            continue_after_errors: self.continue_after_errors,
            frames: Vec::new(),
            spare: Vec::new(),
            path: Vec::new(),
            zero: vec![0; n],
            observed: Vec::new(),
        };
        walk.run(search);
    }
}

/// For each event, the other events it is dependent with (footprints conflict).
fn dependence<M: StaticFootprints>(model: &M) -> Vec<Vec<Choice>> {
    let n = model.choices();
    let footprints = model.footprints();
    (0..n)
        .map(|p| (0..n).filter(|&q| q != p && conflicting(&footprints[p as usize], &footprints[q as usize])).collect())
        .collect()
}

struct Walk<S> {
    n: usize,
    dependent: Vec<Vec<Choice>>,
    /// `dependent` as an n x n matrix (sleep sets ask about one pair at a time).
    dependent_pair: Vec<bool>,
    sleep_sets: bool,
    /// Per event: 1 + the path position of its latest transition, 0 if none.
    last: Vec<u32>,
    /// Events whose transition failed on the current path.
    stopped: Vec<bool>,
    errors_on_path: usize,
    continue_after_errors: bool,
    frames: Vec<Frame<S>>,
    /// Frames popped from the path, kept for their buffers (no allocation per transition).
    spare: Vec<Frame<S>>,
    /// The transitions taken, failed ones included.
    path: Vec<Choice>,
    zero: Vec<u32>,
    /// Observations of the last transition (conflicts under `--conflict-mode observe`): the
    /// path goes on past them, as past any transition; FG's argument is unchanged, since an
    /// observation is a function of the accesses of the transition that makes it.
    observed: Vec<crate::model::ModelError>,
}

impl<S: Clone> Walk<S> {
    /// A spare frame (or a new one) holding a copy of `state`, its sets not yet filled in.
    fn frame_from(spare: &mut Vec<Frame<S>>, state: &S) -> Frame<S> {
        match spare.pop() {
            Some(mut f) => {
                f.state.clone_from(state);
                f
            }
            None => Frame {
                state: state.clone(),
                enabled: Vec::new(),
                backtrack: ChoiceSet::default(),
                done: ChoiceSet::default(),
                taken: None,
                clock: Vec::new(),
                sleep: ChoiceSet::default(),
            },
        }
    }

    /// Fills in the enabled events of `f`'s state, the first of them as its backtrack set.
    fn observe<M: StaticFootprints<State = S>>(&self, model: &M, f: &mut Frame<S>) {
        f.enabled.clear();
        model.enabled(&f.state, &mut f.enabled);
        f.enabled.retain(|&e| !self.stopped[e as usize]);
        f.backtrack.clear();
        f.done.clear();
        f.taken = None;
        f.sleep.clear();
    }

    /// Gives `next` its sleep set and its first awake enabled event as its backtrack set. When
    /// it is the state after `c` fired at frame `k` (`from`), the sleep set is the events asleep
    /// or done at `k`, independent of `c`, and still enabled.
    fn enter(&self, from: Option<(usize, Choice)>, next: &mut Frame<S>) {
        if let (true, Some((k, c))) = (self.sleep_sets, from) {
            let f = &self.frames[k];
            let enabled = &next.enabled;
            let stays =
                |q: Choice| enabled.binary_search(&q).is_ok() && !self.dependent_pair[c as usize * self.n + q as usize];
            sleep_after(&f.sleep, &f.done, c, stays, &mut next.sleep);
        }
        if let Some(&first) = next.enabled.iter().find(|&&q| !next.sleep.contains(q)) {
            next.backtrack.insert(first);
        }
    }

    /// Clock of the latest transition of `p` on the path: what happens before p's next one.
    fn clock_of(&self, p: Choice) -> &[u32] {
        match self.last[p as usize] {
            0 => &self.zero,
            l => &self.frames[l as usize - 1].clock,
        }
    }

    fn run<M: StaticFootprints<State = S>>(&mut self, search: &mut Search<'_, M>) {
        let model = search.model;
        let mut first = Self::frame_from(&mut self.spare, &model.initial());
        self.observe(model, &mut first);
        self.enter(None, &mut first);
        if first.enabled.is_empty() {
            search.terminal(&first.state, &self.path);
            return;
        }
        self.frames.push(first);
        while let Some(k) = self.frames.len().checked_sub(1) {
            if search.stopped() {
                break;
            }
            if let Some(t) = self.frames[k].taken.take() {
                self.last[t.event as usize] = t.prev_last;
                if t.errored {
                    self.stopped[t.event as usize] = false;
                    self.errors_on_path -= 1;
                }
                self.path.pop();
            }
            let f = &mut self.frames[k];
            let pick = |q: Choice| f.backtrack.contains(q) && !f.done.contains(q) && !f.sleep.contains(q);
            let Some(c) = f.enabled.iter().copied().find(|&q| pick(q)) else {
                if f.done.is_empty() {
                    // Every enabled event is asleep: an equivalent run was explored already.
                    *search.stats.sleep_blocked.get_or_insert(0) += 1;
                }
                let popped = self.frames.pop().expect("a frame");
                self.spare.push(popped);
                continue;
            };
            f.done.insert(c);
            let mut clock = std::mem::take(&mut self.frames[k].clock);
            self.new_clock(c, k, &mut clock);
            self.frames[k].clock = clock;
            let mut next = Self::frame_from(&mut self.spare, &self.frames[k].state);
            self.path.push(c);
            search.transition(self.path.len());
            let result = model.step_observing(&mut next.state, c, None, &mut self.observed);
            if !self.observed.is_empty() {
                let path = self.schedule();
                search.observed(&mut self.observed, &path);
            }
            let errored = match result {
                Ok(()) => false,
                Err(e) => {
                    search.error(e, &self.schedule());
                    if !self.continue_after_errors {
                        // The execution ends here: every other enabled event is explored from
                        // the state before the error (see the module header).
                        let f = &mut self.frames[k];
                        for &q in &f.enabled {
                            f.backtrack.insert(q);
                        }
                        self.path.pop();
                        self.spare.push(next);
                        continue;
                    }
                    // The failed transition changes nothing; its event stops.
                    next.state.clone_from(&self.frames[k].state);
                    true
                }
            };
            let prev_last = self.last[c as usize];
            self.last[c as usize] = k as u32 + 1;
            if errored {
                self.stopped[c as usize] = true;
                self.errors_on_path += 1;
            }
            self.frames[k].taken = Some(Taken { event: c, errored, prev_last });
            self.observe(model, &mut next);
            self.enter(Some((k, c)), &mut next);
            self.add_races(model, &next.state);
            if next.enabled.is_empty() {
                if self.errors_on_path == 0 {
                    search.terminal(&next.state, &self.path);
                }
                self.spare.push(next);
                continue;
            }
            self.frames.push(next);
        }
    }

    /// The path as the model runs it: failed transitions before the last one left out.
    fn schedule(&self) -> Vec<Choice> {
        let mut s: Vec<Choice> =
            self.frames.iter().filter_map(|f| f.taken.as_ref()).filter(|t| !t.errored).map(|t| t.event).collect();
        s.push(*self.path.last().expect("a transition was just taken"));
        s
    }

    /// Vector clock of `c` taken at path position `k`: the join of the clocks of the latest
    /// transition of `c` and of every event dependent with `c` (earlier transitions of one event
    /// happen before its latest, so their clocks are below it).
    fn new_clock(&self, c: Choice, k: usize, clock: &mut Vec<u32>) {
        clock.clear();
        clock.extend_from_slice(self.clock_of(c));
        for &q in &self.dependent[c as usize] {
            if self.last[q as usize] != 0 {
                join_into(clock, self.clock_of(q));
            }
        }
        clock[c as usize] = k as u32 + 1;
    }

    /// FG's race step at the newest state `s` (after the path): for the next transition of
    /// every process that can still fire, the latest dependent transition on the path that
    /// does not happen before it is in a race with it; the state before that one gets a
    /// backtrack point: an event there that leads to the racing one (itself, or one of its
    /// happens-before predecessors after the race), else every enabled event.
    fn add_races<M: StaticFootprints<State = S>>(&mut self, model: &M, s: &S) {
        for p in 0..self.n as Choice {
            if self.stopped[p as usize] || model.exhausted(s, p) {
                continue;
            }
            let before_p = self.clock_of(p);
            // Transitions of one event are ordered, so only each event's latest can race.
            let race = self.dependent[p as usize]
                .iter()
                .map(|&q| (self.last[q as usize], before_p[q as usize]))
                .filter(|&(l, hb)| l > hb)
                .map(|(l, _)| l)
                .max();
            let Some(l) = race else { continue };
            let i = l as usize - 1;
            let pre = &self.frames[i];
            let mut leads_to_p = ChoiceSet::default();
            for &q in &pre.enabled {
                if q == p || before_p[q as usize] > i as u32 + 1 {
                    leads_to_p.insert(q);
                }
            }
            let pre = &mut self.frames[i];
            // A candidate asleep at `pre(i)` is never taken there (see the module header).
            if !leads_to_p.keep_awake(&pre.sleep) {
                for &q in &pre.enabled {
                    pre.backtrack.insert(q);
                }
            } else if !leads_to_p.intersects(&pre.backtrack) {
                // The smallest candidate, unless one is in the backtrack set already.
                pre.backtrack.insert(leads_to_p.iter().next().expect("an awake candidate"));
            }
        }
    }
}
