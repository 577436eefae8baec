//! The two side files of an EM trace. The input is split at its first NUL byte: before it, a
//! dependence.txt read against a small fixed trace (and, when that loads, the model built with
//! its edges); after it, a config.cfg read by content detection from a file in a private folder.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tracepor::model::em::EmModel;
use tracepor::trace::em::{parse_dependence, parse_trace};
use tracepor::trace::input::detect;

const TRACE: &[u8] = b"1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 ATTACH-Q tid:1 queue:7\n\
5 POST src:1 msg:9 dest:1\n6 THREADINIT tid:2\n7 WRITE tid:2 obj:0x1 class:LA; field:3\n8 LOOP tid:1\n\
9 CALL tid:1 msg:9\n10 READ tid:1 obj:0x1 class:LA; field:3\n11 RET tid:1 msg:9\n";

/// A folder of this process holding the fixed trace beside the config under test.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("tracepor-fuzz-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("trace.txt"), TRACE).unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let cut = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (dep, cfg) = (&data[..cut], data.get(cut + 1..).unwrap_or(&[]));
    let mut t = parse_trace(Path::new("trace.txt"), TRACE).unwrap();
    if parse_dependence(Path::new("dependence.txt"), dep, &mut t).is_ok() {
        let _ = EmModel::new(t);
    }
    let path = dir().join("config.cfg");
    std::fs::write(&path, cfg).unwrap();
    let _ = detect(&path);
});
