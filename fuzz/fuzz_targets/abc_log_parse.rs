//! Any bytes as DroidRacer's abc_log.txt: reading, converting and writing end in an error or in
//! two files, never a panic; a conversion that succeeds is an EM trace the loader accepts or
//! refuses with an error.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tracepor::model::em::EmModel;
use tracepor::trace::{abc_log, em};

fuzz_target!(|data: &[u8]| {
    let file = Path::new("abc_log.txt");
    if let Ok(files) = abc_log::to_em(file, data) {
        if let Ok(mut t) = em::parse_trace(file, files.trace.as_bytes()) {
            if em::parse_dependence(file, files.dependence.as_bytes(), &mut t).is_ok() {
                let _ = EmModel::new(t);
            }
        }
    }
});
