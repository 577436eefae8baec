//! Why `stateful-dpor` saves less on the IoTCheck pairs than the paper's JPF runs,
//! measured: for each pair of Table A.2, the dependence between its events as the
//! search sees it (the union, over every transition of the reachable state space, of the
//! objects each event reads and writes), and which kind of object makes two events dependent.
//! A stateful DPOR can only save where events are independent somewhere; the share of
//! independent event pairs bounds what any DPOR over this dependence can reduce.
//!
//! Run on demand (minutes), printing one TSV line per pair and a summary:
//! `cargo test --release --test it corpus_dependence:: -- --ignored --nocapture`
//! The CI part checks the measurement itself on a small hand-made pair.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use tracepor::model::smartapp::{load, SmartAppModel, SmartAppOptions};
use tracepor::model::{Accesses, Model};

/// What an object is, by the name the model gives it.
fn kind(m: &SmartAppModel, object: u32) -> &'static str {
    let name = m.object_name(object);
    if name == "location.mode" {
        "mode"
    } else if name.starts_with("state of ") {
        "app-state"
    } else if name.starts_with('#') {
        "other"
    } else {
        "attribute"
    }
}

/// Per event: the objects it read and wrote on some transition, over the reachable states (at
/// most `cap`); None when the space is larger.
fn footprints(m: &SmartAppModel, cap: usize) -> Option<Vec<(HashSet<u32>, HashSet<u32>)>> {
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let mut queue = VecDeque::new();
    let mut key = Vec::new();
    let s0 = m.initial();
    m.encode(&s0, &mut key);
    seen.insert(key.clone());
    queue.push_back(s0);
    let mut out = vec![(HashSet::new(), HashSet::new()); m.choices() as usize];
    let mut enabled = Vec::new();
    while let Some(s) = queue.pop_front() {
        enabled.clear();
        m.enabled(&s, &mut enabled);
        for &c in &enabled {
            let mut next = s.clone();
            let mut acc = Accesses::new();
            let ok = m.step_recording(&mut next, c, &mut acc).is_ok();
            for a in &acc {
                let (r, w) = &mut out[c as usize];
                if a.write {
                    w.insert(a.object);
                } else {
                    r.insert(a.object);
                }
            }
            if !ok {
                continue;
            }
            key.clear();
            m.encode(&next, &mut key);
            if seen.insert(key.clone()) {
                if seen.len() > cap {
                    return None;
                }
                queue.push_back(next);
            }
        }
    }
    Some(out)
}

/// Event pairs, how many are independent everywhere, and for the dependent ones the kinds of
/// object that make them so (a pair counts under each kind it conflicts on).
struct Dependence {
    events: usize,
    pairs: usize,
    independent: usize,
    by_kind: BTreeMap<&'static str, usize>,
}

fn dependence(m: &SmartAppModel, fp: &[(HashSet<u32>, HashSet<u32>)]) -> Dependence {
    let n = fp.len();
    let mut d = Dependence { events: n, pairs: 0, independent: 0, by_kind: BTreeMap::new() };
    for a in 0..n {
        for b in a + 1..n {
            d.pairs += 1;
            let (ra, wa) = &fp[a];
            let (rb, wb) = &fp[b];
            let mut kinds: Vec<&'static str> = wa
                .iter()
                .filter(|o| wb.contains(o) || rb.contains(o))
                .chain(wb.iter().filter(|o| ra.contains(o)))
                .map(|&o| kind(m, o))
                .collect();
            kinds.sort();
            kinds.dedup();
            if kinds.is_empty() {
                d.independent += 1;
            }
            for k in kinds {
                *d.by_kind.entry(k).or_default() += 1;
            }
        }
    }
    d
}

fn pair_files(shared: &Path, pair: &str) -> Option<Vec<PathBuf>> {
    let (a, b) = pair.split_once('–')?;
    Some([a, b].iter().map(|n| shared.join("smartthings/smartapps").join(format!("{n}.groovy"))).collect())
}

#[test]
fn measures_dependence_on_a_hand_made_pair() {
    // Two apps: one turns the light on when the door opens, the other logs motion into its
    // state. Door and motion events are independent; the door's two events both write the
    // contact attribute and so are dependent.
    let dir = std::env::temp_dir().join(format!("tracepor-dependence-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = r#"
definition(name: "A", namespace: "t", author: "t")
preferences { section("x") { input "door", "capability.contactSensor"
    input "light", "capability.switch" } }
def installed() { subscribe(door, "contact.open", opened) }
def opened(evt) { light.on() }
"#;
    let b = r#"
definition(name: "B", namespace: "t", author: "t")
preferences { section("x") { input "m", "capability.motionSensor" } }
def installed() { subscribe(m, "motion", moved) }
def moved(evt) { state.last = evt.value }
"#;
    std::fs::write(dir.join("a.groovy"), a).unwrap();
    std::fs::write(dir.join("b.groovy"), b).unwrap();
    let m = load(&[dir.join("a.groovy"), dir.join("b.groovy")], SmartAppOptions::default()).unwrap();
    let fp = footprints(&m, 10_000).expect("small");
    let d = dependence(&m, &fp);
    let names = m.event_names();
    assert!(d.events >= 3, "{names:?}");
    assert!(d.independent > 0 && d.independent < d.pairs, "{names:?}: {} of {} independent", d.independent, d.pairs);
    assert!(d.by_kind.contains_key("attribute"), "{:?}", d.by_kind);
}

#[test]
#[ignore = "minutes: the measurement behind docs/corpus.md's section on the gap to the paper"]
fn dependence_on_table_a2() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let table = std::fs::read_to_string(shared.join("reference/vmcai22-tables-a1-a2.tsv")).unwrap();
    println!("no\tpair\tevents\tevent_pairs\tindependent\tattribute\tmode\tapp-state\tother");
    let mut rows = 0;
    for line in table.lines().filter(|l| l.starts_with("A.2\t")) {
        let f: Vec<&str> = line.split('\t').collect();
        let Some(files) = pair_files(&shared, f[2]) else { continue };
        let Ok(m) = load(&files, SmartAppOptions::default()) else {
            println!("{}\t{}\tload error", f[1], f[2]);
            continue;
        };
        let Some(fp) = footprints(&m, 200_000) else {
            println!("{}\t{}\ttoo large", f[1], f[2]);
            continue;
        };
        let d = dependence(&m, &fp);
        let k = |x: &str| d.by_kind.get(x).copied().unwrap_or(0);
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            f[1],
            f[2],
            d.events,
            d.pairs,
            d.independent,
            k("attribute"),
            k("mode"),
            k("app-state"),
            k("other")
        );
        rows += 1;
    }
    assert!(rows > 200, "only {rows} pairs measured");
}
