//! SmartApps written by a test: sources to files in a temporary folder, then one system.
//! Included with `#[path]` by the SmartApp model tests, which need nothing else of `common`.

use std::path::PathBuf;

use tracepor::model::smartapp::{load, SmartAppModel, SmartAppOptions};
use tracepor::model::Model;

/// Writes `apps` (name, Groovy source) as NAME.groovy under a folder of its own for `tag`,
/// and loads them as one system; the files are returned for tests that name them.
pub fn system(tag: &str, apps: &[(&str, &str)], opts: SmartAppOptions) -> (SmartAppModel, Vec<PathBuf>) {
    let files = write(tag, apps);
    (load(&files, opts).unwrap_or_else(|e| panic!("{e}")), files)
}

/// Writes `apps` (name, Groovy source) as NAME.groovy under a folder of its own for `tag`.
pub fn write<N: AsRef<str>, S: AsRef<str>>(tag: &str, apps: &[(N, S)]) -> Vec<PathBuf> {
    let dir = std::env::temp_dir().join(format!("tracepor-apps-{tag}-{}", std::process::id()));
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
