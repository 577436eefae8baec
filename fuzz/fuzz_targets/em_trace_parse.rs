//! Any bytes as a trace.txt: an error or a model, never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tracepor::model::em::EmModel;
use tracepor::trace::em::parse_trace;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = parse_trace(Path::new("trace.txt"), data) {
        let _ = EmModel::new(t);
    }
});
