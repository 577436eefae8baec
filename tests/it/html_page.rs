//! `--html` pages rendered in a real headless browser: each page is written by the
//! command line, checked statically (self-contained: no script, nothing fetched; names from
//! the input escaped), then screenshotted by Chromium, and the PNG decoded: the page is not
//! blank, every lane of the model is drawn (each lane's header has its own solid colour,
//! `LANE_COLOURS`, used nowhere else) and the pair a diagram is about is outlined in red.
//!
//! Needs Chromium: `$CHROMIUM`, else /usr/bin/chromium (.ci/run installs it). Without it the
//! test fails, unless TRACEPOR_SKIP_BROWSER=1 says to skip the screenshots (the static checks
//! still run).

use std::path::{Path, PathBuf};
use std::process::Command;

use tracepor::model::Model;
use tracepor::report::html::lanes::LANE_COLOURS;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shared() -> PathBuf {
    root().join("..").join("shared")
}

/// Chromium, or None when TRACEPOR_SKIP_BROWSER=1 and there is none; panics otherwise.
fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("CHROMIUM").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("TRACEPOR_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("html_page: no browser at {}; screenshots skipped (TRACEPOR_SKIP_BROWSER=1)", path.display());
        return None;
    }
    panic!(
        "html_page needs Chromium to render the pages: none at {} (install the `chromium` package, set \
         $CHROMIUM to its binary, or set TRACEPOR_SKIP_BROWSER=1 to skip the screenshots)",
        path.display()
    );
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracepor-html-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `tracepor ARGS --html OUT` and returns the page.
fn page(args: &[&str], out: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_tracepor"))
        .args(args)
        .arg("--html")
        .arg(out)
        .args(["--max-memory", "1000"])
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0..=1)),
        "tracepor {args:?}: {:?}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read_to_string(out).unwrap_or_else(|e| panic!("{}: {e}", out.display()))
}

/// Self-contained and well-formed enough: no script, no reference to anything outside the page,
/// elements that open and close in equal numbers.
fn check_static(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..80.min(html.len())]);
    let lower = html.to_lowercase();
    for bad in ["<script", "<link", "<img", "<iframe", "@import", "src=", "href=", "https:", "//cdn"] {
        assert!(!lower.contains(bad), "the page holds `{bad}`");
    }
    // The one URL allowed is SVG's namespace name, which is never fetched.
    let http = lower.matches("http:").count();
    let namespace = lower.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
    assert_eq!(http, namespace, "an http: reference other than SVG's namespace");
    for u in lower.match_indices("url(").map(|(i, _)| &lower[i..i + 5]) {
        assert_eq!(u, "url(#", "a CSS url() to outside the page");
    }
    for tag in ["svg", "section", "table", "div", "details", "g", "html", "body", "ul"] {
        let open = html.matches(&format!("<{tag}>")).count() + html.matches(&format!("<{tag} ")).count();
        let close = html.matches(&format!("</{tag}>")).count();
        assert_eq!(open, close, "<{tag}> opened {open} times, closed {close}");
    }
}

/// A screenshot of `html` (1200 px wide, `height` tall): its pixels as RGB.
fn screenshot(chrome: &Path, html: &Path, height: u32) -> (u32, u32, Vec<u8>) {
    let dir = temp_dir(&format!("profile-{}", html.file_stem().unwrap().to_string_lossy()));
    let png = dir.join("shot.png");
    let o = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size=1200,{height}"))
        .arg(format!("file://{}", html.canonicalize().unwrap().display()))
        .output()
        .unwrap();
    assert!(png.is_file(), "chromium wrote no screenshot: {:?}\n{}", o.status, String::from_utf8_lossy(&o.stderr));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()].chunks(channels).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let _ = std::fs::remove_dir_all(&dir);
    (info.width, info.height, rgb)
}

/// How many pixels have exactly colour `c`.
fn pixels(rgb: &[u8], c: (u8, u8, u8)) -> usize {
    rgb.chunks(3).filter(|p| (p[0], p[1], p[2]) == c).count()
}

/// The screenshot shows a page (not blank), the header of each of `lanes` lanes (and no more),
/// and, when `marked`, a pair outlined in red.
fn check_rendered(name: &str, chrome: &Path, html: &Path, height: u32, lanes: usize, marked: bool) {
    let (w, _, rgb) = screenshot(chrome, html, height);
    // Below the page's dark title bar, some ink: text, tables, charts, lanes (a page that
    // renders blank, or only its title, has next to none).
    let body = &rgb[(120 * w * 3) as usize..];
    let total = body.len() / 3;
    let ink = body.chunks(3).filter(|p| p.iter().any(|&v| v <= 240)).count();
    assert!(
        ink > total * 3 / 100,
        "{name}: the page renders (nearly) blank: {ink} of {total} pixels below its title not white"
    );
    // A lane header is at least 100 x 40 pixels of its colour, less its name.
    let seen: Vec<usize> = (0..LANE_COLOURS.len()).filter(|&k| pixels(&rgb, LANE_COLOURS[k]) >= 1500).collect();
    let want: Vec<usize> = (0..lanes.min(LANE_COLOURS.len())).collect();
    assert_eq!(seen, want, "{name}: lane headers drawn (by colour) {seen:?}, the model has {lanes} lanes");
    if marked {
        let red = pixels(&rgb, (0xd6, 0x27, 0x28));
        assert!(red >= 100, "{name}: no pair outlined in red ({red} pixels)");
    }
}

/// The lanes of the model of `files`.
fn lanes_of(files: &[PathBuf], conflicts: bool) -> usize {
    let loaded = tracepor::model::load_all(
        files,
        tracepor::model::LoadOptions { bound: None, conflicts, keep_dead_state: false, ..Default::default() },
    )
    .expect("loads");
    tracepor::with_model!(&loaded, m => m.lanes().len())
}

#[test]
fn pages_render_with_every_lane() {
    let chrome = browser();
    let dir = temp_dir("pages");
    let apps = shared().join("smartthings").join("smartapps");
    // Inputs whose names need escaping: the SmartApps copied under names with <, &, quotes.
    let door = dir.join("door<b>&\"x'.groovy");
    let beacon = dir.join("beacon<i>.groovy");
    std::fs::copy(apps.join("enhanced-auto-lock-door.groovy"), &door).unwrap();
    std::fs::copy(apps.join("beacon-control.groovy"), &beacon).unwrap();
    let deadlock = root().join("fixtures/em/abba-deadlock");
    let race = root().join("fixtures/em/two-posters");
    let queues = shared().join("traces/em-explorer/benchmark-traces/multithreading-with-multiple-queues/trace2");
    let s = |p: &Path| p.display().to_string();
    // (name, arguments, lanes of the model, window height)
    let cases: Vec<(&str, Vec<String>, usize, u32)> = vec![
        (
            "deadlock",
            vec!["check".into(), s(&deadlock), "--quiet".into()],
            lanes_of(std::slice::from_ref(&deadlock), false),
            1400,
        ),
        (
            "loopers",
            vec!["check".into(), s(&queues), "--quiet".into()],
            lanes_of(std::slice::from_ref(&queues), false),
            2000,
        ),
        // No error: the lanes are the witness of the race that changes an outcome.
        ("race", vec!["check".into(), s(&race), "--quiet".into()], lanes_of(std::slice::from_ref(&race), false), 1800),
        (
            "conflict",
            // Runs to its end (21 states): a time limit could cut it short on a busy machine.
            ["check", &s(&door), &s(&beacon), "--conflicts", "--quiet"].map(String::from).to_vec(),
            lanes_of(&[door.clone(), beacon.clone()], true),
            2000,
        ),
        (
            "compare",
            vec!["compare".into(), s(&queues), "--strategies".into(), "full,dpor,optimal".into(), "--quiet".into()],
            lanes_of(std::slice::from_ref(&queues), false),
            3000,
        ),
    ];
    // The models themselves: a lane per thread of a trace; the environment and each app. In
    // each of these inputs every lane takes part in the first diagram (a diagram leaves out the
    // lanes with nothing in its schedule).
    assert_eq!(cases.iter().map(|c| c.2).collect::<Vec<_>>(), [2, 3, 3, 3, 3]);
    for (name, args, lanes, height) in &cases {
        let out = dir.join(format!("{name}.html"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let html = page(&args, &out);
        check_static(&html);
        assert!(html.contains("class=\"lanes\""), "{name}: no lane diagram");
        if *name == "conflict" {
            assert!(html.contains("door&lt;b&gt;&amp;&quot;x&#39;"), "{name}: the app's name is not escaped");
            assert!(!html.contains("<b>&") && !html.contains("<i>"), "{name}: a name from the input as markup");
        }
        if *name == "race" {
            assert!(html.contains("id=\"races\"") && html.contains("id=\"outcomes\""), "{name}: races and outcomes");
            assert!(html.contains("changes outcome 1"), "{name}: the race's verdict");
        }
        if *name == "compare" {
            assert_eq!(html.matches("class=\"chart\"").count(), 4, "{name}: a chart per measure");
        }
        if let Some(chrome) = &chrome {
            check_rendered(name, chrome, &out, *height, *lanes, true);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A wide witness stays readable: music's race witnesses run on all 25 lanes; each is drawn
/// with the racing pair's lane (every pair is two handlers of looper 1) in full and the 24
/// others folded into one lane, and the full diagram kept under it, collapsed, with every lane.
/// The screenshot (details collapsed) shows exactly two lane headers: the looper's and the
/// folded one.
#[test]
fn a_wide_witness_folds_the_lanes_outside_its_pair() {
    let chrome = browser();
    let dir = temp_dir("wide");
    let music = shared().join("traces/em-explorer/tacas-2016/music");
    let out = dir.join("music.html");
    let html = page(&["check", music.to_str().unwrap(), "--quiet"], &out);
    check_static(&html);
    let lanes = tracepor::model::load_all(std::slice::from_ref(&music), Default::default()).expect("loads");
    let names: Vec<String> = tracepor::with_model!(&lanes, m => m.lanes().into_iter().map(|l| l.name).collect());
    assert_eq!(names.len(), 25);
    assert!(
        html.contains("1 of 25 lanes drawn in full (those of the pair); the others folded into one"),
        "no folded view"
    );
    assert!(html.contains("<details><summary>all 25 lanes</summary>"), "the full diagram is not kept");
    assert!(html.contains("24 other lanes: thread 2, "), "the folded lane does not say what it holds");
    // Every lane is still there, in the full diagram.
    let full = &html[html.find("<summary>all 25 lanes</summary>").unwrap()..];
    for name in &names {
        assert!(full.contains(&format!("<title>{name}</title>")), "lane {name} missing from the full diagram");
    }
    if let Some(chrome) = &chrome {
        // Tall enough to reach the pair of the first witness (its steps 284 and 451 of 465).
        check_rendered("wide", chrome, &out, 9000, 2, true);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where strategies disagree, `compare --html` draws a witness: here an ablation the paper
/// shows unsound (`--no-full-cycle`) misses the assertion `full` reaches (tests/cli.rs); the
/// page draws the schedule that reaches it, the failing step outlined.
#[test]
fn compare_draws_the_witness_of_a_disagreement() {
    let chrome = browser();
    let dir = temp_dir("disagree");
    let model = root().join("fixtures/events/premature-termination.events");
    let out = dir.join("compare.html");
    let args = ["compare", model.to_str().unwrap(), "--strategies", "full,stateful-dpor", "--no-full-cycle", "--quiet"];
    let o = Command::new(env!("CARGO_BIN_EXE_tracepor")).args(args).arg("--html").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(4), "a disagreement: {}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&out).unwrap();
    check_static(&html);
    let at = html
        .find("witness of a disagreement: stateful-dpor --no-full-cycle missed what full reached")
        .expect("no witness of the disagreement");
    let figure = &html[at..];
    assert!(figure.contains("missed by stateful-dpor --no-full-cycle: error assert at line 29"), "what was missed");
    assert!(figure.contains("schedule <code>arm,check</code>"), "the witness's schedule");
    assert!(figure[..figure.find("</svg>").unwrap()].contains("class=\"lanes\""), "drawn as lanes");
    // Drawn once: the same error found by `full` is not drawn again.
    assert_eq!(html.matches("class=\"lanes\"").count(), 1);
    if let Some(chrome) = &chrome {
        // The schedule runs on one lane (the environment: the apps' lane has nothing in it).
        check_rendered("disagree", chrome, &out, 1600, 1, true);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corpus_page_renders_its_table_and_chart() {
    let chrome = browser();
    let dir = temp_dir("corpus");
    let out = dir.join("corpus.html");
    let tsv = root().join("fixtures/corpus/pairs.tsv");
    let apps = shared().join("smartthings").join("smartapps");
    let args = ["corpus", tsv.to_str().unwrap(), "--smartapps", apps.to_str().unwrap(), "--limit", "2"];
    let html = page(&args, &out);
    check_static(&html);
    assert_eq!(html.matches("<tr").count(), 3, "a header and two pairs");
    assert!(html.contains("full / stateful-dpor"), "the chart of reductions");
    if let Some(chrome) = &chrome {
        // No lanes on this page: none of their colours either.
        check_rendered("corpus", chrome, &out, 1200, 0, false);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
