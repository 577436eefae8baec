//! Any bytes as a configured home and as a property file (`trace/home.rs`,
//! `trace/properties.rs`, docs/home-file.md): a home, a property list, or an input error at a
//! line and column, never a panic. Apps are looked up among the shared SmartApps, so that the
//! seeds' app names resolve and the bindings after them are parsed.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use tracepor::trace::{home, properties};

fuzz_target!(|data: &[u8]| {
    let apps = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/smartthings/smartapps");
    let _ = home::is_home(data);
    let text = String::from_utf8_lossy(data);
    if let Err(e) = home::parse_home(Path::new("h.home"), &text, &[apps]) {
        assert!(!e.to_string().is_empty());
    }
    if let Err(e) = properties::parse(Path::new("p.props"), &text) {
        assert!(!e.to_string().is_empty());
    }
});
