//! Timers as a hub runs them: a method an app schedules runs later, as its own event.
//!
//! On a hub, `runIn(delay, h)`, `runOnce(when, h)`, `schedule(timeOrCron, h)`, `runEvery5Minutes(h)`
//! (and the other `runEvery*`) register a timer with the hub's scheduler and return at once; when
//! the timer is due, the hub runs `h` as an execution of its own, between (never inside) the
//! executions of the devices' events. A one-shot timer (`runIn`, `runOnce`) is then gone; a
//! recurring one (`schedule`, `runEvery*`) stays until `unschedule()` (all of the app's) or
//! `unschedule(h)` removes it. `runIn` on a timer already pending replaces it (`overwrite: true`,
//! the platform's default). The handler gets the `data` map of the options, when one is given.
//!
//! **The model.** When is a timer due? Whenever: the delay is minutes, the schedule a time of
//! day or a cron expression, and between them the devices may report anything, so the hub may fire
//! a pending timer before or after any other event. So each method of an app that its code hands
//! to a timer (a literal name or a method reference, in a method the interpreter can enter,
//! `callable.rs`) is one environment event, `schedule.<app>.<method>`, like IoTCheck's timers in
//! its event list. Whether it is pending is part of the app's `state` map, under a reserved key
//! ([`timer_key`]; no Groovy key is ever one: `Ctx::state_get`/`state_set` refuse them): setting
//! the timer stores `[once, data]` there, `unschedule` removes it. The event is always enabled
//! (what is enabled never depends on the state, as the strategies' footprints assume): fired
//! while nothing is pending, it reads the key and does nothing; fired while pending, it removes a
//! one-shot timer and runs the method. A timer set while installing is pending in the state the
//! search starts from (`schedule(startTime, "on")` in `installed()`): its method may run at any
//! point after, as often as the search fires it (a recurring timer fires every day).
//!
//! **Why this is sound, and what it abstracts.** Every order in which a hub can run the events
//! and the due timers is a schedule of the model: a due timer's execution is the event's firing
//! from the state at that moment (pending, so it runs the method with the data stored). The
//! model has more schedules than a hub: two timers of one app fire in either order whatever
//! their delays, and a recurring timer fires as often as the search likes; that only adds
//! behaviours. Two things a hub does are merged: `runIn(..., [overwrite: false])` may queue the
//! same method twice (here once: the second setting replaces the first), and a timer's time of
//! day is not tied to the clock (`now()` is one instant; the handler sees that instant).
//!
//! **What the reductions see.** Setting, removing or firing a timer reads and writes the app's
//! `state` object (the reserved key, through the same store as every key, with "the value held
//! written again is a read"), so a timer's firing is dependent with whatever set or removed it;
//! the static footprints count every timer call as a write of the app's state
//! (`footprint.rs`); `dead.rs`, `self_keys.rs` and `guarded.rs` never drop or reset a reserved
//! key (their key sets hold the keys Groovy names), and a method a timer runs is entered from
//! no guard (`guarded.rs`: it runs in a transition of its own).
//!
//! A handler that is not a method's name (a closure, a computed text) has no event: such a timer
//! runs its handler at once, inside the call, as before, and the load lists it as not modelled.

use super::*;

/// The calls that set a timer, with the position of their handler among the positional
/// arguments: `runIn(delay, h)`, `runOnce(when, h)`, `schedule(when, h)`, `runEvery*(h)`.
pub(super) fn timer_handler_position(name: &str) -> Option<usize> {
    match name {
        "runIn" | "runOnce" | "schedule" => Some(1),
        n if n.starts_with("runEvery") => Some(0),
        _ => None,
    }
}

/// Whether a timer call's method is an event of the hub: every timer call but `runIn`, whose
/// handler runs at once, inside the call (module header, "runIn").
pub(super) fn is_event_timer(name: &str) -> bool {
    name != "runIn" && timer_handler_position(name).is_some()
}

/// Whether a timer call sets a one-shot timer (`runIn`, `runOnce`) rather than a recurring one.
fn one_shot(name: &str) -> bool {
    matches!(name, "runIn" | "runOnce")
}

/// The first character of a reserved key of an app's `state` (timers, `timer_key`): no key a
/// Groovy app stores or reads starts with it.
pub(super) const RESERVED: char = '\u{1}';

/// The reserved key of `state` that holds whether `method`'s timer is pending.
pub(super) fn timer_key(method: &str) -> String {
    format!("{RESERVED}timer {method}")
}

/// Whether `key` is reserved (the model's, never the app's).
pub(super) fn is_reserved(key: &str) -> bool {
    key.starts_with(RESERVED)
}

/// A key as reports show it (a reserved key's mark as `@`).
pub(super) fn key_text(key: &str) -> std::borrow::Cow<'_, str> {
    match key.strip_prefix(RESERVED) {
        Some(rest) => format!("@{rest}").into(),
        None => key.into(),
    }
}

/// One method an app hands to a timer.
pub(super) struct TimerCall {
    pub method: String,
    /// IoTCheck's Extractor lists it as an event: a `schedule` opening `installed()` or
    /// `initialize()` (the paper's Evt. counts these only, docs/smartapps.md).
    pub extractor: bool,
}

/// The methods `app` hands to timers (in source order, each once), and the timer calls whose
/// handler is no method's name (line, why).
pub(super) fn timer_calls(app: &App) -> (Vec<TimerCall>, Vec<(usize, String)>) {
    let mut found: Vec<TimerCall> = Vec::new();
    let mut odd = Vec::new();
    footprint::each_expr_with_line(app, &mut |line, e| {
        let Expr::Call { target: None, name, args, .. } = e else { return };
        let event = is_event_timer(name);
        let (Some(p), true, false) = (timer_handler_position(name), event, app.methods.contains_key(name.as_str()))
        else {
            return;
        };
        let pos: Vec<&Expr> = args.iter().filter_map(|a| if let Arg::Pos(e) = a { Some(e) } else { None }).collect();
        let method = match pos.get(p) {
            Some(Expr::Str(x)) => Some(x.to_string()),
            Some(Expr::Var(v)) => Some(v.clone()),
            _ => None,
        };
        match method.filter(|m| app.methods.contains_key(m.as_str())) {
            Some(m) => {
                if !found.iter().any(|t| t.method == m) {
                    found.push(TimerCall { method: m, extractor: false });
                }
            }
            None => odd.push((
                line,
                format!("`{name}` with a handler that is no method's name: it runs at once, not as a timer"),
            )),
        }
    });
    for h in load::opening_schedule(&app.script) {
        if let Some(t) = found.iter_mut().find(|t| t.method == h) {
            t.extractor = true;
        }
    }
    (found, odd)
}

impl SmartAppModel {
    /// The event of `app`'s timer for `method`, when the app hands it to a timer.
    fn timer_event(&self, app: usize, method: &str) -> Option<usize> {
        self.events.iter().position(|e| e.run.as_ref().is_some_and(|(a, m)| *a == app && m == method))
    }

    /// How many of the events IoTCheck's Extractor would list (every event but the timers it
    /// does not count): what the paper's Evt. column is compared with.
    pub fn extractor_event_count(&self) -> usize {
        self.events.iter().filter(|e| (e.run.is_none() && !self.is_server_event(e)) || e.extractor).count()
    }
}

impl Ctx<'_> {
    /// A timer call (`runIn`, `runOnce`, `schedule`, `runEvery*`, by `name`) with its arguments:
    /// the timer is set pending in the running app's `state` (see the module header).
    pub(super) fn set_timer(&mut self, name: &str, a: &[Value]) -> R<()> {
        // Named options come first, as one map (`Ctx::args`); else they follow the handler.
        let named = matches!(a.first(), Some(Value::Map(_)));
        let p = timer_handler_position(name).unwrap_or(0) + named as usize;
        let h = a.get(p).cloned().unwrap_or(Value::Null);
        let opts = if named { a.first() } else { a.get(p + 1) };
        let data = match opts {
            Some(Value::Map(m)) => map_get_str(m, "data").cloned().unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let app = self.app;
        match &h {
            Value::Str(m) if is_event_timer(name) && self.m.timer_event(app, m).is_some() => {
                let v = list(vec![Value::Bool(one_shot(name)), data]);
                self.state_store(&timer_key(m), v);
                Ok(())
            }
            // No event for it (listed as not modelled at load): at once, inside the call.
            _ => self.run_handler(h),
        }
    }

    /// `unschedule()`: every timer of the running app removed; `unschedule(h)`: `h`'s.
    pub(super) fn unschedule(&mut self, a: &[Value]) {
        let app = self.app;
        let keys: Vec<String> = match a.first() {
            Some(Value::Str(m)) => vec![timer_key(m)],
            _ => self
                .m
                .events
                .iter()
                .filter_map(|e| e.run.as_ref().filter(|r| r.0 == app))
                .map(|r| timer_key(&r.1))
                .collect(),
        };
        for k in keys {
            self.state_store(&k, Value::Null);
        }
    }

    /// Fires `app`'s timer for `method`: nothing unless it is pending (or the app is left out);
    /// then a one-shot timer is removed and the method runs with the timer's data.
    pub(super) fn fire_timer(&mut self, app: usize, method: &str) -> R<()> {
        self.app = app;
        // An app left out of the interleaving (`slice.rs`) runs nothing, as its handlers do not.
        if self.m.left_out[app] {
            return Ok(());
        }
        let key = timer_key(method);
        let pending = self.state_fetch(&key);
        let Value::List(t) = pending else { return Ok(()) };
        if t.first() == Some(&Value::Bool(true)) {
            self.state_store(&key, Value::Null);
        }
        let data = t.get(1).cloned().unwrap_or(Value::Null);
        let args: Args = if data == Value::Null { Args::new() } else { smallvec![data] };
        self.call_method(app, method, args).map(|_| ())
    }
}
