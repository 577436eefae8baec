//! No import circle between the top-level modules of src/ (docs/architecture.md): data flows
//! trace -> model -> explore -> report -> check -> corpus -> cli, and a module that used one to
//! its right would tie the layers into one. Read from the source: every `crate::NAME` path
//! outside comments (in `use` lines and in expressions) is an edge from the file's top-level
//! module to NAME. Shown able to fail: with `use crate::corpus` planted in report/findings.rs
//! the test fails with "import circle: check -> report (check.rs), report -> corpus
//! (report/findings.rs), corpus -> check (corpus/homes.rs)".

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common;

/// The top-level modules `lib.rs` declares.
fn top_modules(src: &Path) -> BTreeSet<String> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod ")))
        .map(|l| l.trim_end_matches(';').trim().to_string())
        .collect()
}

/// The text of `source` without its comments (line comments and block comments; string
/// literals are kept as they are, which can only add edges, never hide one).
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The top-level names `text` reaches by `crate::NAME` or `crate::{NAME, ...}`.
fn crate_paths(text: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let after = &text[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(inner.split(',').map(|item| ident(item.trim())).filter(|n| !n.is_empty()));
        } else {
            out.push(ident(after));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// module -> (module it uses -> a file that does).
fn import_graph(src: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let tops = top_modules(src);
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let first = rel.iter().next().unwrap().to_string_lossy();
        let from = first.trim_end_matches(".rs").to_string();
        if !tops.contains(&from) {
            continue; // lib.rs, main.rs
        }
        let text = without_comments(&std::fs::read_to_string(&file).unwrap());
        for to in crate_paths(&text) {
            if to != from && tops.contains(&to) {
                graph.entry(from.clone()).or_default().entry(to).or_insert_with(|| rel.display().to_string());
            }
        }
    }
    graph
}

/// A circle through `start`, if any: the modules along it.
fn circle_through(graph: &BTreeMap<String, BTreeMap<String, String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((node, path)) = stack.pop() {
        for next in graph.get(&node).into_iter().flat_map(|m| m.keys()) {
            if next == start {
                return Some(path.clone());
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_import_circle_between_the_folders_of_src() {
    let src = common::root().join("src");
    let graph = import_graph(&src);
    // The reading works: the layers this test protects are there, in order.
    for (from, to) in [("model", "trace"), ("explore", "model"), ("report", "explore"), ("cli", "check")] {
        assert!(graph.get(from).is_some_and(|m| m.contains_key(to)), "no edge {from} -> {to} read: {graph:?}");
    }
    for start in graph.keys() {
        if let Some(circle) = circle_through(&graph, start) {
            let edges: Vec<String> = circle
                .iter()
                .zip(circle.iter().cycle().skip(1))
                .map(|(a, b)| format!("{a} -> {b} ({})", graph[a][b]))
                .collect();
            panic!("import circle: {}", edges.join(", "));
        }
    }
}
