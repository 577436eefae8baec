//! The pair view of a home: for an attribute X and two apps A and B that both write
//! it, the conflicts the pair run of A and B alone would observe along the paths of the home,
//! found on the same recorded system graph as `monitors`' own ([`super::monitors`]), with one
//! more monitor per (X, {A, B}).
//!
//! **Why.** IoTCheck's conflict compares an app's write with the attribute's *last* writer
//! (src/model/smartapp/delivery.rs, `set_attr`). In a home a third app C may write X between A's
//! write and B's (the handlers of one event run in subscription order within one transition),
//! so the home observes (A, C) and (C, B), never (A, B), where the pair run of A and B does
//! (docs/homes.md, "Does a home find what the pairs find?"). A *pair conflict* of (X, A, B) is a
//! path of the home on which A writes X := v, later B writes X := w, `set_attr`'s rule holds for
//! the pair's own last write (A's v; a write on the user's command is still never a conflict,
//! and still the last write), and neither A nor B writes X in between; the writes of other apps
//! in between are ignored. With only A and B writing X this is exactly the direct conflict; in a
//! home it is what the pair run sees along the projection of the home's path onto A's and B's
//! writes, so the home includes the pair's finding wherever the pair's path exists in the home.
//!
//! **The monitor.** M_{X,A,B}'s state is the last write of X among A and B (its app and value,
//! `monitors`' ghost ids; none at first). It reads a transition's writes of X by A or B, in order,
//! checks each against its state (`SmartAppModel::monitor_conflict`, the check and the text
//! `set_attr` uses) and moves to it. It reads nothing the system writes but those writes, and the
//! system never reads it, so `monitors`' projection argument holds unchanged: the product
//! S x M_{X,A,B}'s reachable states are {(last state of p, M's state after p) : p a path of S},
//! and a breadth-first search of it over the recorded graph finds every pair conflict of
//! (X, A, B) with a shortest schedule. A pair conflict that the direct conflicts already name
//! (same device, attribute and pair) adds no finding: those pairs are not monitored, and each
//! monitored pair stops at its first finding.
//!
//! **Reported** as errors of kind `pair conflict` (their own group, `pair_conflicts_by_attribute`),
//! with both apps, both values, the later write's place (the earlier's is found by replay, as
//! for a conflict), and the third apps' writes between the two on the schedule shown
//! (`Conflict::between`). The schedule is a path of the model that keeps every ghost; replaying
//! it, the two writes are there with the third apps' between (tests/soundness_homes.rs checks
//! the set of pair findings against an exhaustive product with every pair ghost kept).
//!
//! **Cost and limits.** One breadth-first search per monitored pair, each over at most (system
//! states) x (distinct values A and B write, plus one) product states, stopped at its first
//! finding; all are bounded by the report's deadline and the memory limit, as `monitors`' own
//! (pairs left when it passes are counted as not checked). `--no-pair-conflicts` turns the view
//! off. Only `monitors` (the default with conflicts observed) computes it; other strategies say
//! so in their report.

use std::collections::BTreeSet;
use std::ops::Range;

use rustc_hash::FxHashSet;

use super::monitors::{in_order, report, Bounds, Finding};
use super::Search;
use crate::model::smartapp::{GhostWrite, SmartAppModel};
use crate::model::Choice;

/// The kind of a pair conflict's error: two apps' writes with only a third app's between them;
/// reports group them apart from the direct conflicts (report/findings.rs).
pub const PAIR_CONFLICT: &str = "pair conflict";

/// What the pair view reads of `monitors`' recorded system graph (kept narrow so that the
/// graph's storage can change behind it).
pub(super) trait SystemGraph {
    /// The edges of state `s` (none when it was not expanded).
    fn edges(&self, s: u32) -> Range<usize>;
    /// An edge's target; `u32::MAX` when the transition ended in an exception.
    fn target(&self, e: usize) -> u32;
    fn choice(&self, e: usize) -> Choice;
    /// An edge's summary: an index into the distinct write sequences (0: no monitored write).
    fn summary(&self, e: usize) -> u32;
    fn summary_count(&self) -> usize;
    /// The write ids of a summary, in order.
    fn summary_writes(&self, summary: u32) -> &[u32];
    /// Every distinct write.
    fn writes(&self) -> &[GhostWrite];
    /// The ghost (app and value) write `w` leaves, from 1.
    fn ghost_of(&self, w: u32) -> u32;
    /// A write leaving ghost `g` (g >= 1).
    fn ghost_write(&self, g: u32) -> &GhostWrite;
}

/// The pair view's figures (`TRACEPOR_PHASES`, and the report's `pair_view`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PairView {
    /// Pairs (attribute, two apps writing it) monitored: not named by a direct conflict.
    pub pairs: u64,
    /// Of them, with a pair conflict found.
    pub found: u64,
    /// Of them, left unchecked or partly checked (a limit: the run's `stopped_by` says which).
    pub unfinished: u64,
    /// Product states over all pairs.
    pub product_states: u64,
}

/// Runs the pair view over `g` after the direct conflicts are found (module header).
pub(super) fn run<G: SystemGraph + Sync>(
    search: &mut Search<'_, SmartAppModel>,
    g: &G,
    pool: Option<&rayon::ThreadPool>,
) -> PairView {
    let m = search.model;
    let mut view = PairView::default();
    // The pairs the direct conflicts name, by variable and app names in order.
    let direct: BTreeSet<(String, String, String)> = search
        .found
        .errors()
        .filter(|f| f.error.kind == "conflict")
        .filter_map(|f| f.error.conflict.as_deref())
        .map(|c| {
            let (a, b) = if c.last_app <= c.app { (&c.last_app, &c.app) } else { (&c.app, &c.last_app) };
            (c.variable.clone(), a.clone(), b.clone())
        })
        .collect();
    // The pairs, in the order they are reported.
    let mut pairs: Vec<(u32, [u8; 2])> = Vec::new();
    for slot in m.monitored_slots() {
        let slot = slot as u32;
        let apps: BTreeSet<u8> = g.writes().iter().filter(|w| w.slot == slot).map(|w| w.app).collect();
        let apps: Vec<u8> = apps.into_iter().collect();
        let variable = m.slot_variable(slot as usize);
        for (i, &a) in apps.iter().enumerate() {
            for &b in &apps[i + 1..] {
                let (na, nb) = (m.app_name(a as usize), m.app_name(b as usize));
                let names = if na <= nb { (na, nb) } else { (nb, na) };
                if !direct.contains(&(variable.clone(), names.0.to_string(), names.1.to_string())) {
                    pairs.push((slot, [a, b]));
                }
            }
        }
    }
    view.pairs = pairs.len() as u64;
    // Each pair's search is its own: in parallel with `--threads N`, reported in order.
    let bounds = Bounds::of(search);
    in_order(
        search,
        pool,
        pairs.len(),
        |i, stopped| pair(&bounds, g, pairs[i].0, pairs[i].1, stopped),
        |search, _, result| match result {
            Some((states, found)) => {
                view.product_states += states as u64;
                view.found += u64::from(found.is_some());
                report(search, found.into_iter().collect());
            }
            None => view.unfinished += 1,
        },
    );
    view
}

/// The breadth-first search of S x M_{X,A,B} for `slot` = X and `apps` = {A, B}, stopped at its
/// first pair conflict. Returns the product states reached and the conflict found, if any;
/// None when stopped by the deadline or the memory limit, or by a first error found before it
/// began (`stopped`).
fn pair<G: SystemGraph>(
    bounds: &Bounds<'_>,
    g: &G,
    slot: u32,
    apps: [u8; 2],
    stopped: bool,
) -> Option<(usize, Option<Finding>)> {
    let m = bounds.m;
    if bounds.over(stopped) {
        return None;
    }
    let ours = |w: &GhostWrite| w.slot == slot && apps.contains(&w.app);
    // Per summary: its writes of X by A or B, in order (most summaries have none).
    let relevant: Vec<Vec<u32>> = (0..g.summary_count() as u32)
        .map(|s| g.summary_writes(s).iter().copied().filter(|&w| ours(&g.writes()[w as usize])).collect())
        .collect();
    // Product states (system state, pair ghost id), each with its predecessor and edge.
    let mut nodes: Vec<(u32, u32)> = vec![(0, 0)];
    let mut pred: Vec<(u32, u32)> = vec![(0, u32::MAX)];
    let mut index: FxHashSet<u64> = FxHashSet::default();
    index.insert(0);
    let mut i = 0;
    while i < nodes.len() {
        if i % 4096 == 4095 && bounds.over(stopped) {
            return None;
        }
        let (s, ghost) = nodes[i];
        for e in g.edges(s) {
            let mut last = ghost;
            for (k, &w) in relevant[g.summary(e) as usize].iter().enumerate() {
                let before = (last != 0).then(|| g.ghost_write(last));
                if let Some(mut err) = m.monitor_conflict(before, &g.writes()[w as usize], g.choice(e)) {
                    let mut edges = edges_to(&pred, i as u32);
                    edges.push(e as u32);
                    let path: Vec<Choice> = edges.iter().map(|&e| g.choice(e as usize)).collect();
                    let between = between(m, g, slot, apps, &edges, k);
                    err.kind = PAIR_CONFLICT;
                    if let Some(c) = err.conflict.as_deref_mut() {
                        err.message = format!(
                            "{}; not consecutive: {} between them (a pair conflict: the two apps' writes alone conflict)",
                            err.message,
                            between.join(", ")
                        );
                        c.between = between;
                    }
                    return Some((nodes.len(), Some((err, path))));
                }
                last = g.ghost_of(w);
            }
            let t = g.target(e);
            if t != u32::MAX && index.insert(u64::from(t) << 32 | u64::from(last)) {
                nodes.push((t, last));
                pred.push((i as u32, e as u32));
            }
        }
        i += 1;
    }
    Some((nodes.len(), None))
}

/// The edges of the product path to node `n`, in order.
fn edges_to(pred: &[(u32, u32)], mut n: u32) -> Vec<u32> {
    let mut edges = Vec::new();
    while pred[n as usize].1 != u32::MAX {
        let (p, e) = pred[n as usize];
        edges.push(e);
        n = p;
    }
    edges.reverse();
    edges
}

/// The other apps' writes of X between the pair's two along `edges`, whose last edge makes the
/// later write as its `k`-th write of X by the pair (`APP wrote VALUE`, in order).
fn between<G: SystemGraph>(m: &SmartAppModel, g: &G, slot: u32, apps: [u8; 2], edges: &[u32], k: usize) -> Vec<String> {
    let m_writes = g.writes();
    let mut seq: Vec<&GhostWrite> = Vec::new();
    for (j, &e) in edges.iter().enumerate() {
        let mut ours_seen = 0;
        for &w in g.summary_writes(g.summary(e as usize)) {
            let w = &m_writes[w as usize];
            if w.slot != slot {
                continue;
            }
            if j + 1 == edges.len() && apps.contains(&w.app) {
                if ours_seen == k {
                    break;
                }
                ours_seen += 1;
            }
            seq.push(w);
        }
    }
    let from = seq.iter().rposition(|w| apps.contains(&w.app)).map_or(0, |p| p + 1);
    seq[from..].iter().map(|w| format!("{} wrote {}", m.app_name(w.app as usize), w.value_text())).collect()
}
