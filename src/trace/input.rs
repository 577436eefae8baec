//! Reading inputs: files are memory-mapped (traces can be large) and their kind is told from
//! the content, not the name (cli.md): an EM trace, a folder holding `trace.txt`, an
//! EM-Explorer `config.cfg`, or an event model (`model events` on its first meaningful line).

use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::InputError;

/// The bytes of an input file: mapped when possible, read otherwise (pipes, empty files).
pub enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Reads a whole file, mapping it into memory when it is a regular non-empty file.
pub fn read(path: &Path) -> Result<Bytes, InputError> {
    let fail = |e: std::io::Error| InputError::file(path, format!("cannot read: {e}"));
    let file = File::open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if meta.is_dir() {
        return Err(InputError::file(path, "is a folder, expected a file"));
    }
    if meta.is_file() && meta.len() > 0 {
        // SAFETY: the map is read-only and lives no longer than the parse; a concurrent
        // truncation of an input file is outside what the tool guards against.
        if let Ok(map) = unsafe { Mmap::map(&file) } {
            return Ok(Bytes::Mapped(map));
        }
    }
    std::fs::read(path).map(Bytes::Owned).map_err(fail)
}

/// What an input path holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// An EM trace, with the dependence file beside it when there is one.
    EmTrace { trace: PathBuf, dependence: Option<PathBuf> },
    /// An event model.
    Events(PathBuf),
    /// A SmartThings SmartApp (Groovy source).
    Groovy(PathBuf),
}

/// First line that is not blank and not a comment (`#`, `//`).
fn first_meaningful_line(bytes: &[u8]) -> &[u8] {
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() || line.starts_with(b"#") || line.starts_with(b"//") {
            continue;
        }
        return line;
    }
    b""
}

/// Tells what `path` is from its content.
pub fn detect(path: &Path) -> Result<InputKind, InputError> {
    if path.is_dir() {
        let trace = path.join("trace.txt");
        if !trace.is_file() {
            return Err(InputError::file(path, "folder holds no trace.txt"));
        }
        return Ok(em_with_dependence(trace));
    }
    let bytes = read(path)?;
    let first = first_meaningful_line(&bytes);
    let mut words = first.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty());
    match (words.next(), words.next()) {
        (Some(b"model"), Some(b"events")) => Ok(InputKind::Events(path.to_path_buf())),
        (Some(w), _) if w.first().is_some_and(u8::is_ascii_digit) => Ok(em_with_dependence(path.to_path_buf())),
        _ if is_config(&bytes) => config_target(path, &bytes),
        _ if is_groovy(&bytes) => Ok(InputKind::Groovy(path.to_path_buf())),
        (None, _) => Err(InputError::file(path, "empty input: expected an EM trace, a config.cfg or an event model")),
        _ => {
            let text = String::from_utf8_lossy(first);
            Err(InputError::at(
                path,
                line_of(&bytes, first),
                1,
                &text,
                "unknown input kind: expected an EM trace (`1 START`), an EM-Explorer config.cfg (`trace:`) or an event model (`model events`)",
            ))
        }
    }
}

fn line_of(bytes: &[u8], sub: &[u8]) -> usize {
    let offset = sub.as_ptr() as usize - bytes.as_ptr() as usize;
    1 + bytes[..offset.min(bytes.len())].iter().filter(|&&b| b == b'\n').count()
}

fn em_with_dependence(trace: PathBuf) -> InputKind {
    let dep = trace.parent().map(|d| d.join("dependence.txt")).filter(|d| d.is_file());
    InputKind::EmTrace { trace, dependence: dep }
}

fn is_config(bytes: &[u8]) -> bool {
    bytes.split(|&b| b == b'\n').any(|l| l.trim_ascii().starts_with(b"trace:"))
}

/// An EM-Explorer config names its trace and dependence files by absolute paths, often on
/// another machine (`<path-to-test-traces>/…`): a path that does not exist is looked up by its
/// file name beside the config instead.
fn config_target(path: &Path, bytes: &[u8]) -> Result<InputKind, InputError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut trace = None;
    let mut dependence = None;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = raw.trim_ascii();
        if line.starts_with(b"#") {
            continue;
        }
        let text = String::from_utf8_lossy(line);
        let Some((key, value)) = text.split_once(':') else {
            continue;
        };
        let resolve = |value: &str| -> Option<PathBuf> {
            let p = PathBuf::from(value.trim());
            if p.is_file() {
                return Some(p);
            }
            let beside = dir.join(p.file_name()?);
            beside.is_file().then_some(beside)
        };
        match key.trim() {
            "trace" => {
                trace = Some(resolve(value).ok_or_else(|| {
                    InputError::at(
                        path,
                        i + 1,
                        7,
                        value.trim(),
                        "config names a trace file that exists neither there nor beside the config",
                    )
                })?)
            }
            "dependence" => dependence = resolve(value),
            _ => {}
        }
    }
    let trace = trace.ok_or_else(|| InputError::file(path, "config has no `trace:` line"))?;
    Ok(InputKind::EmTrace { trace, dependence })
}

/// A SmartApp declares itself with `definition(` (name, namespace, author ...).
/// A few apps of the corpus lost their `definition`; `preferences {` with a `def` still tells.
fn is_groovy(bytes: &[u8]) -> bool {
    let has = |pat: &[u8]| bytes.windows(pat.len()).any(|w| w == pat);
    has(b"definition(") || has(b"definition (") || (has(b"preferences") && has(b"def "))
}

/// The SmartApps `path` stands for: itself when it is one, the `.groovy` SmartApps of a folder
/// (sorted), or None when it is something else.
pub fn detect_groovy(path: &Path) -> Result<Option<Vec<PathBuf>>, InputError> {
    if path.is_dir() {
        if path.join("trace.txt").is_file() {
            return Ok(None);
        }
        let entries = std::fs::read_dir(path).map_err(|e| InputError::file(path, format!("cannot read: {e}")))?;
        let mut found: Vec<PathBuf> =
            entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "groovy")).collect();
        found.sort();
        if found.is_empty() {
            return Ok(None);
        }
        return Ok(Some(found));
    }
    match detect(path)? {
        InputKind::Groovy(p) => Ok(Some(vec![p])),
        _ => Ok(None),
    }
}
