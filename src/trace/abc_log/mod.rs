//! DroidRacer's raw log (`abc_log.txt`) read as the EM trace DroidRacer's own conversion (branch
//! `androidPOR-trace`, then EM-Explorer's helper tools) would make of it: `tracepor check
//! abc_log.txt` explores that trace with its happens-before edges, `tracepor convert` writes
//! `trace.txt` and `dependence.txt`. docs/abc-log.md lists what is kept, dropped and
//! rewritten, and where tracepor differs from DroidRacer's code.
//!
//! - [`read`]: splitting the log's lines (nom), errors with line and column.
//! - [`convert`]: the conversion passes.
//! - [`components`]: the environment model of services and broadcast receivers.
//! - [`write`]: renumbering and the two files' text.

pub mod components;
pub mod convert;
pub mod read;
pub mod write;

use std::path::Path;

use super::em::{self, EmTrace};
use super::InputError;

pub use read::looks_like_log;
pub use write::EmFiles;

/// Converts a log's bytes to the text of trace.txt and dependence.txt.
pub fn to_em(file: &Path, bytes: &[u8]) -> Result<EmFiles, InputError> {
    let log = read::read(file, bytes)?;
    let converted = convert::convert(&log)?;
    write::write(&log, &converted)
}

/// Reads a log and parses its conversion as an EM trace with its dependence edges.
pub fn load(file: &Path) -> Result<EmTrace, InputError> {
    let bytes = super::input::read(file)?;
    let files = to_em(file, &bytes)?;
    let mut trace = em::parse_trace(file, files.trace.as_bytes())?;
    em::parse_dependence(file, files.dependence.as_bytes(), &mut trace)?;
    trace.origin = Some(files.origin);
    Ok(trace)
}

/// Writes `trace.txt` and `dependence.txt` for a log into `dir` (created if missing).
pub fn convert_to(file: &Path, dir: &Path) -> Result<EmFiles, InputError> {
    let bytes = super::input::read(file)?;
    let files = to_em(file, &bytes)?;
    let fail = |e: std::io::Error| InputError::file(dir, format!("cannot write: {e}"));
    std::fs::create_dir_all(dir).map_err(fail)?;
    std::fs::write(dir.join("trace.txt"), &files.trace).map_err(fail)?;
    std::fs::write(dir.join("dependence.txt"), &files.dependence).map_err(fail)?;
    Ok(files)
}
