//! Configured homes (docs/home-file.md) and their properties (docs/properties.md) through the
//! command line: each home of fixtures/configured/ is checked with the default strategy and
//! `full`, and the properties it violates must be those of its `.expected` file (one property
//! name a line; an empty file: every default property holds); each violation's JSON names the
//! property and its source and replays with `tracepor replay` to the same violation (exit 1);
//! a bad home or property file is exit 2 with file:line:col and the text; mutated homes never
//! panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn smartapps() -> String {
    root().join("../shared/smartthings/smartapps").display().to_string()
}

fn tracepor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).current_dir(root()).output().unwrap()
}

fn homes() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/configured"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "home"))
        .collect();
    v.sort();
    v
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn each_home_violates_what_its_fixture_says() {
    let all = homes();
    assert!(all.len() >= 10, "ten configured homes are expected, found {}", all.len());
    let mut clean = 0;
    let smartapps = smartapps();
    for home in &all {
        let h = home.to_str().unwrap();
        let expected = std::fs::read_to_string(home.with_extension("expected")).unwrap();
        let want: Vec<&str> = expected.lines().collect();
        clean += usize::from(want.is_empty());
        for strategy in [None, Some("full")] {
            let mut args = vec!["check", h, "--smartapps", &smartapps, "--json", "--max-states", "2000000"];
            if let Some(s) = strategy {
                args.extend(["--strategy", s]);
            }
            let out = tracepor(&args);
            let d = json(&out);
            assert_eq!(d["finished"], true, "{h} {strategy:?} did not finish");
            let mut got: Vec<String> = d["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    assert_eq!(e["kind"], "property", "{h}: {e}");
                    assert!(e["property"]["source"].is_string(), "{h}: no source: {e}");
                    e["property"]["name"].as_str().unwrap().to_string()
                })
                .collect();
            got.sort();
            assert_eq!(got, want, "{h} ({strategy:?})");
            assert_eq!(out.status.code(), Some(if want.is_empty() { 0 } else { 1 }), "{h}");
            // Every violation replays to itself.
            if strategy.is_none() {
                for e in d["errors"].as_array().unwrap() {
                    let schedule = e["schedule"].as_str().unwrap();
                    let r = tracepor(&["replay", h, "--smartapps", &smartapps, "--schedule", schedule]);
                    let text = String::from_utf8_lossy(&r.stdout);
                    assert_eq!(r.status.code(), Some(1), "{h} {schedule}: {text}");
                    let name = e["property"]["name"].as_str().unwrap();
                    assert!(text.contains(&format!("property: {name} (")), "{h} {schedule}: {text}");
                }
            }
        }
    }
    assert!(clean >= 2, "homes where every default property holds: {clean}");
}

#[test]
fn a_violation_is_drawn_on_the_html_page() {
    let page = std::env::temp_dir().join(format!("tracepor-configured-{}.html", std::process::id()));
    let out = tracepor(&[
        "check",
        "fixtures/configured/heater-and-ac.home",
        "--smartapps",
        &smartapps(),
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("ac-and-heater"), "the page names the property");
}

#[test]
fn properties_from_a_file_on_an_app_list() {
    let dir = std::env::temp_dir().join(format!("tracepor-props-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let props = dir.join("p.props");
    std::fs::write(&props, "never no-unlock \"the lock is never unlocked by an app\": unlock lock\n").unwrap();
    let list = dir.join("list");
    std::fs::write(&list, "unlock-it-when-i-arrive.groovy\n").unwrap();
    let out = tracepor(&[
        "check",
        list.to_str().unwrap(),
        "--smartapps",
        &smartapps(),
        "--properties",
        props.to_str().unwrap(),
        "--json",
    ]);
    let d = json(&out);
    let names: Vec<&str> =
        d["errors"].as_array().unwrap().iter().filter_map(|e| e["property"]["name"].as_str()).collect();
    assert_eq!(names, ["no-unlock"]);
    assert_eq!(out.status.code(), Some(1));
    // The replay line carries the property file.
    let text = String::from_utf8_lossy(
        &tracepor(&[
            "check",
            list.to_str().unwrap(),
            "--smartapps",
            &smartapps(),
            "--properties",
            props.to_str().unwrap(),
        ])
        .stdout,
    )
    .to_string();
    assert!(text.contains("--properties"), "{text}");
}

#[test]
fn bad_homes_and_properties_are_refused_at_their_place() {
    let dir = std::env::temp_dir().join(format!("tracepor-bad-home-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &str, &str); 6] = [
        ("home\ndevice d lock\n", ":2:10:", "`lock`"),
        (
            "home\ndevice d: lock\napp unlock-it-when-i-arrive.groovy\n    lock1 = nowhere\n",
            ":4:13:",
            "no device `nowhere`",
        ),
        (
            "home\ndevice d: switch\napp unlock-it-when-i-arrive.groovy\n    lock1 = d\n",
            ":4:13:",
            "asks for capability.lock",
        ),
        ("home\ndevice d: lock\napp unlock-it-when-i-arrive.groovy\n    lokc1 = d\n", ":4:5:", "has no input `lokc1`"),
        (
            "home\ndevice d: lock\napp unlock-it-when-i-arrive.groovy\ninvariant x: d.lok == locked\n",
            ":4:14:",
            "no attribute `lok`",
        ),
        (
            "home\ndevice d: lock\napp unlock-it-when-i-arrive.groovy\nnever x: unlock dd\n",
            ":4:17:",
            "no device or role named `dd`",
        ),
    ];
    for (i, (text, at, what)) in cases.iter().enumerate() {
        let f = dir.join(format!("bad{i}.home"));
        std::fs::write(&f, text).unwrap();
        let out = tracepor(&["check", f.to_str().unwrap(), "--smartapps", &smartapps()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains(at) && err.contains(what), "{text}: expected {at} {what}, got {err}");
    }
}

/// Mutations of a real home (bytes dropped, doubled, replaced) parse or are refused; none
/// panics. The fuzz target `home_parse` (fuzz/) does the same with libFuzzer.
#[test]
fn mutated_homes_never_panic() {
    let base = std::fs::read("fixtures/configured/good-night-unlock.home").unwrap();
    let dir = root().join("fixtures/configured");
    let mut seed = 7u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let bytes = b" \n\t:,=\"#.-()<>!07azAZ\xff";
    for _ in 0..400 {
        let mut m = base.clone();
        for _ in 0..1 + next() % 4 {
            let at = (next() as usize) % m.len().max(1);
            match next() % 3 {
                0 if !m.is_empty() => {
                    m.remove(at);
                }
                1 => m.insert(at, bytes[(next() as usize) % bytes.len()]),
                _ => {
                    let b = m.get(at).copied().unwrap_or(b'x');
                    m.insert(at, b);
                }
            }
        }
        let text = String::from_utf8_lossy(&m);
        let _ = tracepor::trace::home::parse_home(
            Path::new("m.home"),
            &text,
            std::slice::from_ref(&PathBuf::from(smartapps())),
        );
        let _ = tracepor::trace::properties::parse(Path::new("m.props"), &text);
        let _ = &dir;
    }
}
