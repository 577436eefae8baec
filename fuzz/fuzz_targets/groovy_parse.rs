//! Any text as a SmartApp's Groovy source (`trace/groovy.rs`): a script or an input error,
//! never a panic (nor a stack overflow on deep nesting).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tracepor::trace::groovy::parse;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse(Path::new("app.groovy"), &text);
});
