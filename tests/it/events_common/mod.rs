//! Helpers shared by the event-model tests: loading a model from text, an exhaustive stateful
//! search to compare strategies against, and running a strategy to its findings.
#![allow(dead_code)]

pub mod gen;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use tracepor::explore::{Limits, Outcomes, Search, Stats, Strategy};
use tracepor::model::events::{EventModel, EventOptions};
use tracepor::model::{Choice, Model};
use tracepor::trace::events::{parse, EventModelAst};
use tracepor::trace::InputError;

pub fn ast(text: &str) -> Result<EventModelAst, InputError> {
    parse(Path::new("test.events"), text.as_bytes())
}

pub fn model(text: &str, opts: EventOptions) -> EventModel {
    match ast(text) {
        Ok(a) => EventModel::new(a, opts),
        Err(e) => panic!("model does not load: {e}"),
    }
}

pub fn load_file(path: &str, opts: EventOptions) -> EventModel {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    match parse(&full, &bytes) {
        Ok(a) => EventModel::new(a, opts),
        Err(e) => panic!("{e}"),
    }
}

/// Exhaustive stateful search written independently of the strategies under test: every
/// enabled event from every reachable state, each state expanded once.
pub struct Exhaustive;

impl<M: Model> Strategy<M> for Exhaustive {
    fn name(&self) -> &'static str {
        "exhaustive-test"
    }

    fn run(&mut self, search: &mut Search<'_, M>) {
        let model = search.model;
        let mut seen: HashMap<Vec<u32>, usize> = HashMap::new();
        let mut states: Vec<(M::State, Vec<Choice>)> = Vec::new();
        let mut enc = Vec::new();
        let s0 = model.initial();
        model.encode(&s0, &mut enc);
        seen.insert(enc.clone(), 0);
        search.new_state();
        states.push((s0, Vec::new()));
        let mut next = 0;
        let mut en = Vec::new();
        let mut unique = 0u64;
        while next < states.len() {
            // Limits (states, time) end it like any search: callers skip what it cannot finish.
            if search.poll() {
                return;
            }
            let (s, path) = states[next].clone();
            next += 1;
            en.clear();
            model.enabled(&s, &mut en);
            if en.is_empty() {
                search.terminal(&s, &path);
                continue;
            }
            for &c in &en {
                let mut t = s.clone();
                let mut p = path.clone();
                p.push(c);
                search.transition(p.len());
                unique += 1;
                // Conflicts observed on the way (SmartApps, `--conflict-mode observe`) are
                // findings of this transition; the path goes on.
                let mut observed = Vec::new();
                let result = model.step_observing(&mut t, c, None, &mut observed);
                search.observed(&mut observed, &p);
                match result {
                    Err(e) => search.error(e, &p),
                    Ok(()) => {
                        enc.clear();
                        model.encode(&t, &mut enc);
                        if !seen.contains_key(&enc) {
                            seen.insert(enc.clone(), states.len());
                            search.new_state();
                            states.push((t, p));
                        } else {
                            search.end_execution();
                        }
                    }
                }
            }
        }
        search.stats.unique_transitions = Some(unique);
    }
}

pub fn explore<M: Model>(model: &M, strategy: &mut dyn Strategy<M>) -> (Stats, Outcomes) {
    let mut search = Search::new(model, Limits::default());
    strategy.run(&mut search);
    search.finish()
}

/// What soundness compares: distinct errors (kind, line, message) and nothing-enabled states.
pub fn findings(o: &Outcomes) -> (BTreeSet<(String, usize, String)>, BTreeSet<String>) {
    let errors = o.errors().map(|f| (f.error.kind.to_string(), f.error.line, f.error.message.clone())).collect();
    let dead = o.deadlock_schedules().map(|(k, _)| k.to_string()).collect();
    (errors, dead)
}

/// Replays every error schedule of `o` on `model` and checks it ends in that error.
pub fn schedules_replay<M: Model>(model: &M, o: &Outcomes) {
    for f in o.errors() {
        let mut s = model.initial();
        let (last, prefix) = f.schedule.split_last().expect("an error schedule has a last step");
        for &c in prefix {
            let mut en = Vec::new();
            model.enabled(&s, &mut en);
            assert!(en.contains(&c), "schedule step {} not enabled", model.choice_name(c));
            model.step(&mut s, c).expect("prefix of an error schedule must not fail");
        }
        let err = model.step(&mut s, *last).expect_err("error schedule must end in an error");
        assert_eq!((err.kind, err.line), (f.error.kind, f.error.line));
    }
}
