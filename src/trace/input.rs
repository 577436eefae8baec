//! Reading inputs: files are memory-mapped (traces can be large) and their kind is told from
//! the content, not the name (cli.md): an EM trace, a folder holding `trace.txt`, an
//! EM-Explorer `config.cfg`, DroidRacer's raw `abc_log.txt`, an event model (`model events` on its first meaningful line), or
//! SmartApps (Groovy files, folders of them, or IoTCheck's app lists). The one place inputs are told apart:
//! [`detect_input`] turns the paths given for one input into the [`Input`] `model/` builds
//! from, once; [`detect`] tells one file.

use std::collections::HashMap;
use std::io::{ErrorKind, Read};
use std::ops::Deref;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use memmap2::Mmap;

use super::InputError;

/// `O_NONBLOCK` (0o4000 on Linux, 4 on macOS and the BSDs), spelled out to keep `libc` out of
/// the dependencies.
#[cfg(any(target_os = "linux", target_os = "android"))]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const O_NONBLOCK: i32 = 4;

/// The bytes of an input file: mapped when possible, read otherwise (pipes, empty files).
pub enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
    /// Read once from a stream (stdin, a pipe, a FIFO, a device) and kept for the next reader.
    Shared(Arc<Vec<u8>>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
            Bytes::Shared(v) => v,
        }
    }
}

/// Largest input read when no `--max-memory` is given: far above the largest recorded trace
/// (tens of MB), small enough that `/dev/zero` ends in an error, not in memory exhaustion.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 512 << 20;

static MAX_INPUT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_BYTES);

/// Bounds every input by `--max-memory`: half of it (the model built from an input takes a
/// multiple of its bytes), or the default when no limit is given.
pub fn set_max_memory(max_memory_bytes: Option<u64>) {
    MAX_INPUT_BYTES.store(max_memory_bytes.map_or(DEFAULT_MAX_INPUT_BYTES, |m| (m / 2).max(1)), Ordering::Relaxed);
}

pub fn max_input_bytes() -> u64 {
    MAX_INPUT_BYTES.load(Ordering::Relaxed)
}

fn too_large(path: &Path) -> InputError {
    InputError::file(
        path,
        format!(
            "input larger than {} bytes, the bound on inputs (half of --max-memory, default {} MB)",
            max_input_bytes(),
            DEFAULT_MAX_INPUT_BYTES >> 20
        ),
    )
}

/// Streams already read, by path: detecting the kind and then parsing must not read a pipe
/// twice (the second reader would see nothing).
fn streams() -> &'static Mutex<HashMap<PathBuf, Arc<Vec<u8>>>> {
    static STREAMS: OnceLock<Mutex<HashMap<PathBuf, Arc<Vec<u8>>>>> = OnceLock::new();
    STREAMS.get_or_init(Default::default)
}

/// Whether `path` names standard input (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads a stream to its end, at most the input bound.
fn read_stream(path: &Path, mut from: impl Read) -> Result<Vec<u8>, InputError> {
    let limit = max_input_bytes();
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        match from.read(&mut chunk) {
            Ok(0) => return Ok(out),
            Ok(k) => {
                out.extend_from_slice(&chunk[..k]);
                if out.len() as u64 > limit {
                    return Err(too_large(path));
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // A FIFO opened without blocking: its writer has not written yet.
            Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => return Err(InputError::file(path, format!("cannot read: {e}"))),
        }
    }
}

/// Reads a whole file, mapping it into memory when it is a regular non-empty file. `-` is
/// standard input; streams are read once and kept (see [`streams`]).
pub fn read(path: &Path) -> Result<Bytes, InputError> {
    let fail = |e: std::io::Error| InputError::file(path, format!("cannot read: {e}"));
    if let Some(bytes) = streams().lock().unwrap_or_else(|e| e.into_inner()).get(path) {
        return Ok(Bytes::Shared(bytes.clone()));
    }
    let keep = |bytes: Vec<u8>| {
        let bytes = Arc::new(bytes);
        streams().lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), bytes.clone());
        Ok(Bytes::Shared(bytes))
    };
    if is_stdin(path) {
        return keep(read_stream(path, std::io::stdin().lock())?);
    }
    let fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    if fifo {
        // Opening a FIFO blocks until a writer comes; without blocking, a FIFO nobody writes
        // to reads as empty (an error) instead of hanging.
        options.custom_flags(O_NONBLOCK);
    }
    let file = options.open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if meta.is_dir() {
        return Err(InputError::file(path, "is a folder, expected a file"));
    }
    if meta.is_file() {
        if meta.len() > max_input_bytes() {
            return Err(too_large(path));
        }
        if meta.len() > 0 {
            // SAFETY: the map is read-only and lives no longer than the parse; a concurrent
            // truncation of an input file is outside what the tool guards against.
            if let Ok(map) = unsafe { Mmap::map(&file) } {
                return Ok(Bytes::Mapped(map));
            }
        }
        return read_stream(path, file).map(Bytes::Owned);
    }
    keep(read_stream(path, file)?)
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
    /// DroidRacer's raw log (`abc_log.txt`), explored as its conversion (docs/abc-log.md).
    AbcLog(PathBuf),
    /// A list of SmartApps, IoTCheck's `appLists` format: a home ([`super::applist`]).
    AppList(PathBuf),
    /// A configured home: devices, apps, bindings and properties ([`super::home`]).
    Home(PathBuf),
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
    // DroidRacer's raw log also starts `1 START`: told apart by its name or by what only the
    // raw log has (`dest:-1 delay:`, `rwId:` lines, NATIVE-ENTRY, ACCESS).
    if path.file_name().is_some_and(|n| n == "abc_log.txt") || super::abc_log::looks_like_log(&bytes) {
        return Ok(InputKind::AbcLog(path.to_path_buf()));
    }
    // A UTF-8 byte-order mark is not part of the first word.
    let first = first_meaningful_line(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes));
    let mut words = first.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty());
    match (words.next(), words.next()) {
        (Some(b"model"), Some(b"events")) => Ok(InputKind::Events(path.to_path_buf())),
        // Before the traces' leading digit: an app's name may start with one (`03-sms-to-hue`).
        _ if super::applist::is_app_list(&bytes) => Ok(InputKind::AppList(path.to_path_buf())),
        (Some(b"home"), _) if super::home::is_home(&bytes) => Ok(InputKind::Home(path.to_path_buf())),
        (Some(w), _) if w.first().is_some_and(u8::is_ascii_digit) => Ok(em_with_dependence(path.to_path_buf())),
        _ if is_config(&bytes) => config_target(path, &bytes, &mut Vec::new()),
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
    // Standard input has no folder to find a dependence.txt in.
    if is_stdin(&trace) {
        return InputKind::EmTrace { trace, dependence: None };
    }
    let dep = trace.parent().map(|d| d.join("dependence.txt")).filter(|d| d.is_file());
    InputKind::EmTrace { trace, dependence: dep }
}

fn is_config(bytes: &[u8]) -> bool {
    bytes.split(|&b| b == b'\n').any(|l| l.trim_ascii().starts_with(b"trace:"))
}

/// An EM-Explorer config names its trace and dependence files by absolute paths, often on
/// another machine (`<path-to-test-traces>/…`): a path that does not exist is looked up by its
/// file name beside the config instead.
///
/// A config whose `trace:` is a config is followed (`seen` holds the configs on the way); one
/// that names itself, or a cycle of configs, is an error rather than an endless loop or a
/// config read as an empty trace.
fn config_target(path: &Path, bytes: &[u8], seen: &mut Vec<PathBuf>) -> Result<InputKind, InputError> {
    seen.push(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()));
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
                trace = Some((
                    resolve(value).ok_or_else(|| {
                        InputError::at(
                            path,
                            i + 1,
                            7,
                            value.trim(),
                            "config names a trace file that exists neither there nor beside the config",
                        )
                    })?,
                    i + 1,
                ))
            }
            "dependence" => dependence = resolve(value),
            _ => {}
        }
    }
    let (trace, line) = trace.ok_or_else(|| InputError::file(path, "config has no `trace:` line"))?;
    let canonical = std::fs::canonicalize(&trace).unwrap_or_else(|_| trace.clone());
    if let Some(i) = seen.iter().position(|p| *p == canonical) {
        let chain: Vec<String> = seen[i..].iter().chain([&canonical]).map(|p| p.display().to_string()).collect();
        let msg = if seen.len() - i == 1 {
            "config names itself as its trace".to_string()
        } else {
            format!("configs name each other in a cycle: {}", chain.join(" -> "))
        };
        return Err(InputError::at(path, line, 7, &trace.display().to_string(), msg));
    }
    let target = read(&trace)?;
    let first = first_meaningful_line(&target);
    if !first.first().is_some_and(u8::is_ascii_digit) && is_config(&target) {
        return config_target(&trace, &target, seen);
    }
    Ok(InputKind::EmTrace { trace, dependence })
}

/// A SmartApp declares itself with `definition(` (name, namespace, author ...).
/// A few apps of the corpus lost their `definition`; `preferences {` with a `def` still tells.
fn is_groovy(bytes: &[u8]) -> bool {
    let has = |pat: &[u8]| bytes.windows(pat.len()).any(|w| w == pat);
    has(b"definition(") || has(b"definition (") || (has(b"preferences") && has(b"def "))
}

/// What the paths given for one input hold, told once: what [`crate::model`] builds a model
/// from. Several paths are one system of SmartApps; any other kind comes alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// An EM trace, with the dependence file beside it when there is one.
    EmTrace { trace: PathBuf, dependence: Option<PathBuf> },
    /// DroidRacer's raw log, explored as its conversion (docs/abc-log.md).
    AbcLog(PathBuf),
    /// An event model.
    Events(PathBuf),
    /// SmartApps (Groovy files, or the `.groovy` files of folders, sorted per folder) checked
    /// together.
    SmartApps(Vec<PathBuf>),
    /// A configured home (docs/home-file.md): checked alone.
    Home(PathBuf),
}

/// Tells what `paths` hold, reading each one once: a folder of `.groovy` SmartApps stands for
/// them; a file or a folder holding `trace.txt` is told by [`detect`]; an app list stands for
/// the apps it names; several paths must all be SmartApps.
pub fn detect_input(paths: &[PathBuf]) -> Result<Input, InputError> {
    let mut apps = Vec::new();
    for p in paths {
        let kind = match groovy_folder(p)? {
            Some(found) => {
                apps.extend(found);
                continue;
            }
            None => detect(p)?,
        };
        match kind {
            InputKind::Groovy(app) => apps.push(app),
            // A home: its apps join the system.
            InputKind::AppList(list) => apps.extend(super::applist::read_app_list(&list)?),
            _ if paths.len() > 1 => {
                return Err(InputError::file(
                    p,
                    "not a SmartApp: only SmartApps (Groovy) can be checked several at a time",
                ))
            }
            InputKind::Home(_) if paths.len() > 1 => {
                return Err(InputError::file(p, "a home file is checked alone: its apps are listed in it"))
            }
            InputKind::Home(h) => return Ok(Input::Home(h)),
            InputKind::EmTrace { trace, dependence } => return Ok(Input::EmTrace { trace, dependence }),
            InputKind::AbcLog(p) => return Ok(Input::AbcLog(p)),
            InputKind::Events(p) => return Ok(Input::Events(p)),
        }
    }
    Ok(Input::SmartApps(apps))
}

/// The `.groovy` files of folder `path`, sorted; None when `path` is not a folder, holds a
/// `trace.txt` (a trace folder), or holds no `.groovy` file.
pub fn groovy_folder(path: &Path) -> Result<Option<Vec<PathBuf>>, InputError> {
    if !path.is_dir() || path.join("trace.txt").is_file() {
        return Ok(None);
    }
    let entries = std::fs::read_dir(path).map_err(|e| InputError::file(path, format!("cannot read: {e}")))?;
    let mut found: Vec<PathBuf> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "groovy")).collect();
    found.sort();
    Ok((!found.is_empty()).then_some(found))
}
