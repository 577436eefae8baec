//! What the commands write besides their report: outcome files, tables, graphs; and the checks,
//! before any search, that each can be written (a typo must not cost a long search).

use std::path::Path;

use super::Fail;
use crate::report::RunReport;

/// Writes `text` to `path`, or says why it cannot.
pub fn write(path: &Path, text: &str) -> Result<(), Fail> {
    std::fs::write(path, text).map_err(|e| Fail(format!("{}: cannot write: {e}", path.display())))
}

/// `--outcomes -`: the outcome lines go to standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Writes `report`'s outcome lines to `path` (plus `suffix`, for one of several runs), or to
/// standard output under a `# <label>` line when `path` is `-`; line by line, through a buffer.
pub fn write_outcomes(path: &Path, run: Option<(&str, &str)>, report: &RunReport) -> Result<(), Fail> {
    use std::io::Write;
    if is_stdout(path) {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let label = run.map_or(Ok(()), |(_, label)| writeln!(out, "# {label}"));
        label
            .and_then(|_| report.write_outcome_lines(&mut out))
            .and_then(|_| out.flush())
            .map_err(|e| Fail(format!("standard output: cannot write: {e}")))?;
        return Ok(());
    }
    let target = match run {
        Some((suffix, _)) => {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            std::path::PathBuf::from(p)
        }
        None => path.to_path_buf(),
    };
    let fail = |e: std::io::Error| Fail(format!("{}: cannot write: {e}", target.display()));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&target).map_err(fail)?);
    report.write_outcome_lines(&mut out).and_then(|_| out.flush()).map_err(fail)
}

/// Fails now, before any search, when `path` cannot be created or written.
pub fn writable(path: &Path) -> Result<(), Fail> {
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map(drop)
        .map_err(|e| Fail(format!("{}: cannot write: {e}", path.display())))
}

/// Fails now when the folder `path`'s files would be written in does not exist.
pub fn writable_dir(path: &Path) -> Result<(), Fail> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if dir.is_dir() {
        Ok(())
    } else {
        Err(Fail(format!("{}: cannot write: no folder {}", path.display(), dir.display())))
    }
}
