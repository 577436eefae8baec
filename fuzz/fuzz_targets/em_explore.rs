//! A trace that loads, explored by every strategy under small bounds.
#![no_main]

mod common;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tracepor::model::em::EmModel;
use tracepor::trace::em::parse_trace;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = parse_trace(Path::new("trace.txt"), data) {
        if let Ok(m) = EmModel::new(t) {
            common::explore_all(&m);
        }
    }
});
