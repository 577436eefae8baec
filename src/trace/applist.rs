//! A home as a list of apps: IoTCheck's `appLists` format (`shared/smartthings/appLists/*`),
//! one app file name per line, `#` starting a comment line (IoTCheck marks removed apps so),
//! blank lines ignored. The apps of one list are checked together as one system, as several
//! `.groovy` paths are (docs/homes.md).
//!
//! Told from the content, as every input is (cli.md): a file whose first line that is neither
//! blank nor a comment is one word ending in `.groovy`. A Groovy app never starts so (its first
//! statement is `definition(`, an `import` or a comment).
//!
//! Where the apps are: the folder of `--smartapps DIR` when given ([`set_smartapps_dir`]);
//! otherwise the list's own folder, then `../smartapps` beside it (the layout of
//! `shared/smartthings`: `appLists/` beside `smartapps/`). A name may hold a relative path.
//! A line that names no app there, an app that cannot be read or is not a SmartApp, a line that
//! is not a `.groovy` name, and an app listed twice are input errors at the line's
//! file:line:col with its text (exit 2).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::input::{detect, InputKind};
use super::InputError;

static SMARTAPPS_DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// `--smartapps DIR`: the folder app lists name their apps in, for every list read from now on
/// (None: beside the list, see the module header).
pub fn set_smartapps_dir(dir: Option<PathBuf>) {
    *SMARTAPPS_DIR.lock().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// The folder `--smartapps` gave, if any.
pub fn smartapps_dir() -> Option<PathBuf> {
    SMARTAPPS_DIR.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The lines that count: (line number from 1, column of the text from 1, the text).
fn entries(bytes: &[u8]) -> impl Iterator<Item = (usize, usize, &[u8])> {
    bytes.split(|&b| b == b'\n').enumerate().filter_map(|(i, raw)| {
        let text = raw.trim_ascii();
        if text.is_empty() || text.starts_with(b"#") {
            return None;
        }
        let col = 1 + raw.iter().take_while(|b| b.is_ascii_whitespace()).count();
        Some((i + 1, col, text))
    })
}

/// Whether `bytes` is an app list: its first entry is one word ending in `.groovy`.
pub fn is_app_list(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    entries(bytes).next().is_some_and(|(_, _, t)| t.ends_with(b".groovy") && !t.iter().any(|b| b.is_ascii_whitespace()))
}

/// The folders a list's apps are looked up in, in order.
pub fn search_dirs(list: &Path) -> Vec<PathBuf> {
    if let Some(dir) = smartapps_dir() {
        return vec![dir];
    }
    let here = list.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let beside = here.join("..").join("smartapps");
    vec![here, beside]
}

/// The apps `list` names, in its order, each checked to be a SmartApp.
pub fn read_app_list(list: &Path) -> Result<Vec<PathBuf>, InputError> {
    let bytes = super::input::read(list)?;
    parse_app_list(list, &bytes, &search_dirs(list))
}

/// [`read_app_list`] on the bytes of `list`, its apps looked up in `dirs`.
pub fn parse_app_list(list: &Path, bytes: &[u8], dirs: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut apps: Vec<(PathBuf, usize)> = Vec::new();
    for (line, col, raw) in entries(bytes) {
        let text = String::from_utf8_lossy(raw);
        let at = |msg: String| InputError::at(list, line, col, &text, msg);
        if !text.ends_with(".groovy") {
            return Err(at("expected an app's file name (NAME.groovy) on each line of an app list".into()));
        }
        let Some(app) = dirs.iter().map(|d| d.join(&*text)).find(|p| p.exists()) else {
            let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            return Err(at(format!(
                "no such app in {} (give the apps' folder with --smartapps DIR)",
                dirs.join(" or ")
            )));
        };
        match detect(&app) {
            Ok(InputKind::Groovy(_)) => {}
            Ok(_) => return Err(at(format!("{} is not a SmartApp", app.display()))),
            Err(e) => return Err(at(format!("cannot read the app: {e}"))),
        }
        let same = std::fs::canonicalize(&app).unwrap_or_else(|_| app.clone());
        if let Some((_, first)) =
            apps.iter().find(|(a, _)| std::fs::canonicalize(a).unwrap_or_else(|_| a.clone()) == same)
        {
            return Err(at(format!("app listed twice (first at line {first})")));
        }
        apps.push((app, line));
    }
    if apps.is_empty() {
        return Err(InputError::file(list, "app list names no app"));
    }
    Ok(apps.into_iter().map(|(a, _)| a).collect())
}
