//! An event model that loads, explored by every strategy, plain and with `--conflicts --bound 2`
//! (the stateless strategies need a bound).
#![no_main]

mod common;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tracepor::model::events::{EventModel, EventOptions};
use tracepor::trace::events::parse;

fuzz_target!(|data: &[u8]| {
    if let Ok(ast) = parse(Path::new("x.events"), data) {
        for opts in
            [EventOptions { conflicts: false, bound: Some(2) }, EventOptions { conflicts: true, bound: Some(2) }]
        {
            common::explore_all(&EventModel::new(ast.clone(), opts));
        }
        let plain = EventModel::new(ast, EventOptions::default());
        for name in ["full", "stateful-dpor"] {
            if let Some(mut s) = <EventModel as tracepor::explore::Strategies>::strategy(name) {
                let _ = tracepor::explore::run(
                    &plain,
                    s.as_mut(),
                    common::limits(),
                    std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
                );
            }
        }
    }
});
