//! Event-model speed: transitions and states per second of `full` and `stateful-dpor`.
//! - First the SmartThings pairs of traces/smartthings with 75-78 events (the size of the largest
//!   pairs of Trimananda et al.): each search runs to its end, again and again until the time
//!   budget is spent, and the figures are totals over the complete runs.
//! - Then generated models of growing size (events, variables), up to 78 events, and at 78
//!   events with more variables (larger states): one run each, stopped by the time budget.
//!
//! The budget is TRACEPOR_BENCH_SECONDS (default 10); TRACEPOR_BENCH_STRATEGIES picks the
//! strategies (default `full,stateful-dpor`). Run: `cargo bench --bench events`.

use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tracepor::explore::{self, Limits, Strategies};
use tracepor::model::events::{self, EventModel, EventOptions};

/// `events` handlers over `vars` variables with values in 0..3, grouped in apps of eight:
/// event i reads variable i, updates variable i+1 from it, and every fourth one also toggles
/// the next event, so that the state space is cyclic and events interfere in chains.
fn generated(events: usize, vars: usize) -> String {
    let mut m = String::from("model events\n");
    for v in 0..vars {
        let _ = writeln!(m, "var v{v} = 0");
    }
    for e in 0..events {
        if e % 8 == 0 {
            let _ = writeln!(m, "app A{} {{", e / 8);
        }
        let (a, b) = (e % vars, (e + 1) % vars);
        let _ = writeln!(m, "  on e{e} {{");
        let _ = writeln!(m, "    if v{a} < 2 {{ v{b} = (v{b} + v{a} + 1) % 3 }} else {{ v{a} = 0 }}");
        if e % 4 == 3 {
            let _ = writeln!(
                m,
                "    if v{b} == 0 {{ disable e{} }} else {{ enable e{} }}",
                (e + 1) % events,
                (e + 1) % events
            );
        }
        let _ = writeln!(m, "  }}");
        if e % 8 == 7 || e + 1 == events {
            let _ = writeln!(m, "}}");
        }
    }
    m
}

/// The paper-sized SmartThings pairs, each searched to its end as many times as the budget
/// allows.
fn pairs(seconds: f64, strategies: &str) {
    println!(
        "{:<52} {:<15} {:>5} {:>10} {:>12} {:>9} {:>14}",
        "pair", "strategy", "runs", "states", "transitions", "time s", "transitions/s"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in
        ["initial-state-event-streamer--thermostat-auto-off", "initial-state-event-streamer--lock-it-when-i-leave"]
    {
        let path = root.join(format!("traces/smartthings/{name}.events"));
        let text = std::fs::read(&path).expect("pair model");
        let model: EventModel = events::load(&path, &text, EventOptions::default()).expect("pair model loads");
        for strategy in strategies.split(',') {
            let (mut runs, mut transitions, mut time, mut states) = (0u32, 0u64, 0.0f64, 0u64);
            while runs == 0 || time < seconds {
                let mut s = <EventModel as Strategies>::strategy(strategy).unwrap();
                let (stats, _) = explore::run(&model, s.as_mut(), Limits::default(), Arc::new(AtomicBool::new(false)));
                assert!(stats.finished, "{name}: {strategy} finishes");
                runs += 1;
                transitions += stats.transitions;
                time += stats.time_s;
                states = stats.states.unwrap_or(0);
            }
            println!(
                "{:<52} {:<15} {:>5} {:>10} {:>12} {:>9.3} {:>14.0}",
                name,
                strategy,
                runs,
                states,
                transitions / u64::from(runs),
                time / f64::from(runs),
                transitions as f64 / time.max(1e-9)
            );
        }
    }
    println!();
}

fn main() {
    let seconds: f64 = std::env::var("TRACEPOR_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let strategies = std::env::var("TRACEPOR_BENCH_STRATEGIES").unwrap_or_else(|_| "full,stateful-dpor".into());
    pairs(seconds, &strategies);
    println!(
        "{:<8} {:<6} {:<15} {:>10} {:>12} {:>9} {:>14} {:>12} {:>9}",
        "events", "vars", "strategy", "states", "transitions", "time s", "transitions/s", "states/s", "finished"
    );
    for (events, vars) in [(8, 4), (16, 6), (32, 8), (78, 8), (78, 10), (78, 16), (78, 32)] {
        let text = generated(events, vars);
        let model: EventModel = events::load(Path::new("generated.events"), text.as_bytes(), EventOptions::default())
            .expect("generated model");
        for name in strategies.split(',') {
            let mut s = <EventModel as Strategies>::strategy(name).unwrap();
            let limits = Limits { time: Some(Duration::from_secs_f64(seconds)), ..Limits::default() };
            let (stats, _) = explore::run(&model, s.as_mut(), limits, Arc::new(AtomicBool::new(false)));
            let t = stats.time_s.max(1e-9);
            println!(
                "{:<8} {:<6} {:<15} {:>10} {:>12} {:>9.3} {:>14.0} {:>12.0} {:>9}",
                events,
                vars,
                name,
                stats.states.unwrap_or(0),
                stats.transitions,
                stats.time_s,
                stats.transitions as f64 / t,
                stats.states.unwrap_or(0) as f64 / t,
                stats.finished
            );
        }
    }
}
