//! SmartApps written by a test: sources to files in a temporary folder, then one system.
#![allow(dead_code)]

use std::path::PathBuf;

use tracepor::model::smartapp::{load, SmartAppModel, SmartAppOptions};
use tracepor::model::{ConflictMode, Model};

/// Writes `apps` (name, Groovy source) as NAME.groovy under a folder of its own for `tag`,
/// and loads them as one system; the files are returned for tests that name them.
#[track_caller]
pub fn system<N: AsRef<str>, S: AsRef<str>>(
    tag: &str,
    apps: &[(N, S)],
    opts: SmartAppOptions,
) -> (SmartAppModel, Vec<PathBuf>) {
    let files = write(tag, apps);
    (load(&files, opts).unwrap_or_else(|e| panic!("{e}")), files)
}

/// Writes `apps` (name, Groovy source) as NAME.groovy under a folder of its own for `tag` and
/// the calling test file: the test modules share one process, and two of them may use one tag.
#[track_caller]
pub fn write<N: AsRef<str>, S: AsRef<str>>(tag: &str, apps: &[(N, S)]) -> Vec<PathBuf> {
    let caller = std::path::Path::new(std::panic::Location::caller().file());
    let module = caller.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let dir = std::env::temp_dir().join(format!("tracepor-apps-{module}-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    apps.iter()
        .map(|(n, src)| {
            let p = dir.join(format!("{}.groovy", n.as_ref()));
            std::fs::write(&p, src.as_ref()).unwrap();
            p
        })
        .collect()
}

/// Fires the event named `event` (as `replay` names it) from `s`.
pub fn fire(
    m: &SmartAppModel,
    s: &mut <SmartAppModel as Model>::State,
    event: &str,
) -> Result<(), tracepor::model::ModelError> {
    let c = m.parse_choice(event).unwrap_or_else(|| panic!("no event {event}: {:?}", m.event_names()));
    m.step(s, c)
}

/// IoTCheck's conflicts, a conflict an error that ends its path (`--conflict-mode end`): for
/// the tests that step to a conflict and expect it as the step's error.
pub const ENDING: SmartAppOptions = SmartAppOptions {
    conflicts: true,
    conflict_mode: ConflictMode::End,
    bound: None,
    keep_dead_state: false,
    conflicts_on: None,
    properties: tracepor::model::PropertyOptions { file: None, no_library: false },
    routines_keep_mode: false,
    fixed_inputs: false,
    physical: false,
};

/// The source of the app shape most of these tests write: app `name` with `inputs` (input
/// name, capability), that subscribes handler `on.2` to event `on.1` of input `on.0` when
/// installed; the handler runs `body`, one statement a line. Line 1 is empty, so with two
/// inputs the handler's first statement is on line 9.
pub fn app(name: &str, inputs: &[(&str, &str)], on: (&str, &str, &str), body: &[&str]) -> String {
    let (device, event, handler) = on;
    let mut out =
        format!("\ndefinition(name: \"{name}\", namespace: \"t\", author: \"t\")\npreferences {{ section(\"s\") {{\n");
    for (input, capability) in inputs {
        out.push_str(&format!("    input \"{input}\", \"capability.{capability}\"\n"));
    }
    out.push_str(&format!(
        "}} }}\ndef installed() {{ subscribe({device}, \"{event}\", {handler}) }}\ndef {handler}(evt) {{\n"
    ));
    for line in body {
        out.push_str(&format!("    {line}\n"));
    }
    out.push_str("}\n");
    out
}
