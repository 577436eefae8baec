//! Any bytes as an app list (a home, `trace/applist.rs`): telling it from other inputs and
//! reading it end in a list of apps or an input error at a line and column, never a panic. Its
//! apps are looked up among the shared SmartApps, so that names the seeds hold resolve and the
//! checks after the lookup (not a SmartApp, listed twice) are reached too.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use tracepor::trace::applist::{is_app_list, parse_app_list};

fuzz_target!(|data: &[u8]| {
    let apps = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/smartthings/smartapps");
    let _ = is_app_list(data);
    if let Err(e) = parse_app_list(Path::new("home.txt"), data, &[apps]) {
        assert!(!e.to_string().is_empty());
    }
});
