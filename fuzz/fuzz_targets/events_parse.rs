//! Any bytes as an event model: an error or a model whose initial state builds, never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tracepor::model::events::{EventModel, EventOptions};
use tracepor::model::Model;
use tracepor::trace::events::parse;

fuzz_target!(|data: &[u8]| {
    if let Ok(ast) = parse(Path::new("x.events"), data) {
        for opts in [EventOptions::default(), EventOptions { conflicts: true, bound: Some(2) }] {
            let m = EventModel::new(ast.clone(), opts);
            let s = m.initial();
            let mut out = Vec::new();
            m.encode(&s, &mut out);
        }
    }
});
