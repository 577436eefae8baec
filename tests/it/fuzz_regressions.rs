//! Every input under fuzz/regressions/ (what the fuzz targets found, kept as bytes) runs
//! through the binary with every strategy and ends cleanly: an exit code of cli.md (0 to 3),
//! never a panic (101) or a signal.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn fuzz_findings_end_cleanly_under_every_strategy() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in &files {
        for strategy in tracepor::explore::STRATEGIES {
            for extra in [&[][..], &["--bound", "2", "--conflicts"][..]] {
                let o = Command::new(env!("CARGO_BIN_EXE_tracepor"))
                    .arg("check")
                    .arg(f)
                    .args(["--strategy", strategy, "--quiet", "--max-states", "10000"])
                    .args(extra)
                    .output()
                    .unwrap();
                let code = o.status.code();
                assert!(
                    matches!(code, Some(0..=3)),
                    "{} --strategy {strategy} {extra:?}: {code:?}\n{}",
                    f.display(),
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
}
