//! Input languages. One parser per language, all reporting through [`InputError`], so that
//! every bad input ends the same way: exit code 2 and one line naming file, line, column and
//! the offending text.
//!
//! - [`abc_log`]: DroidRacer's raw log (`abc_log.txt`), converted to an EM trace.
//! - [`em`]: DroidRacer / EM-Explorer Android traces (`trace.txt`, `dependence.txt`, `config.cfg`).
//! - [`events`]: SmartThings-style event models (`model events`).
//! - [`applist`]: IoTCheck's app lists (a home: the SmartApps checked together).
//! - [`home`]: configured homes (devices, apps, input bindings; docs/home-file.md).
//! - [`properties`]: safety properties of a home (docs/properties.md).
//! - [`input`]: reading files (memory-mapped) and telling the kinds apart by content.

pub mod abc_log;
pub mod applist;
pub mod em;
pub mod events;
pub mod groovy;
pub mod home;
pub mod input;
pub mod properties;

use std::fmt;
use std::path::{Path, PathBuf};

/// A rejected input: where it is and what is wrong with it.
///
/// `line` and `col` are 1-based; both are 0 when the problem is the file as a whole
/// (unreadable, empty, of unknown kind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
    /// The offending text (a token or the rest of the line), possibly shortened.
    pub text: String,
    pub message: String,
}

impl InputError {
    pub fn at(file: &Path, line: usize, col: usize, text: &str, message: impl Into<String>) -> Self {
        InputError { file: file.to_path_buf(), line, col, text: shorten(text), message: message.into() }
    }

    /// A problem with the file as a whole.
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        InputError { file: file.to_path_buf(), line: 0, col: 0, text: String::new(), message: message.into() }
    }
}

/// Offending text is quoted on one line: cut long tokens and make control bytes visible.
fn shorten(text: &str) -> String {
    let mut out = String::new();
    for (i, ch) in text.chars().enumerate() {
        if i == 60 {
            out.push('…');
            break;
        }
        if ch.is_control() {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    out
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}:{}:{}: {}: `{}`", self.file.display(), self.line, self.col, self.message, self.text)
        }
    }
}

impl std::error::Error for InputError {}
