//! Short counterexamples: a schedule that reaches an error or a deadlock is shortened by
//! replaying smaller schedules (delta debugging, Zeller and Hildebrandt, "Simplifying and
//! Isolating Failure-Inducing Input", TSE 2002: ddmin over the schedule's steps).
//!
//! A candidate counts when it replays (each step enabled where it is taken) and reproduces the
//! same finding: an error of the same kind, source line and app (for a conflict, the same
//! variable and apps; a candidate that hits it earlier is
//! cut there), or a state with nothing enabled and the same outcome. The result is 1-minimal
//! with respect to removing any single step when the replay budget allows, not necessarily the
//! shortest schedule; reports say "shortened from N steps". Replays are bounded
//! ([`REPLAY_BUDGET`] steps per schedule), and every replayed step polls the run's budget after
//! the search (explore/budget.rs): once it is spent, the shortest schedule found so far is kept.

use super::Budget;
use crate::model::{Choice, Model, ModelError, Outcome};

/// What a schedule must reproduce.
pub enum Finding<'a> {
    Error(&'a ModelError),
    /// A state with nothing enabled with this outcome.
    Stuck(&'a Outcome),
}

/// Steps replayed at most while shortening one schedule.
pub const REPLAY_BUDGET: u64 = 2_000_000;

/// Replays `path`; returns how many of its steps reproduce `target` (None when it does not).
fn reproduces<M: Model>(
    m: &M,
    path: &[Choice],
    target: &Finding<'_>,
    en: &mut Vec<Choice>,
    spent: &mut u64,
    budget: &Budget,
) -> Option<usize> {
    let mut s = m.initial();
    let mut seen = Vec::new();
    for (i, &c) in path.iter().enumerate() {
        *spent += 1;
        if budget.poll() {
            return None;
        }
        en.clear();
        m.enabled(&s, en);
        if !en.contains(&c) {
            return None;
        }
        seen.clear();
        let result = m.step_observing(&mut s, c, None, &mut seen);
        // A conflict observed on the way (`--conflict-mode observe`) is reached where it is.
        if let Finding::Error(want) = target {
            if seen.iter().any(|e| same_error(e, want)) {
                return Some(i + 1);
            }
        }
        if let Err(e) = result {
            return match target {
                Finding::Error(want) if same_error(&e, want) => Some(i + 1),
                _ => None,
            };
        }
    }
    match target {
        Finding::Stuck(want) => {
            en.clear();
            m.enabled(&s, en);
            (en.is_empty() && m.outcome(&s) == **want).then_some(path.len())
        }
        Finding::Error(_) => None,
    }
}

/// Whether `e` is the error `want`: the same kind and source line and, for a conflict, the
/// same variable and the same two apps in the same order (with several SmartApps a line alone
/// names no file, and a schedule reaching another pair's conflict there is another finding).
/// The values may differ: they depend on the path.
fn same_error(e: &ModelError, want: &ModelError) -> bool {
    let sides = |c: &crate::model::Conflict| (c.variable.clone(), c.last_app.clone(), c.app.clone());
    e.kind == want.kind
        && e.line == want.line
        && e.app == want.app
        && e.conflict.as_deref().map(sides) == want.conflict.as_deref().map(sides)
}

/// A schedule no longer than `path` that still reaches `target` (`path` itself when it does not
/// replay to it, or nothing shorter was found within [`REPLAY_BUDGET`] or `budget`).
pub fn shorten<M: Model>(m: &M, path: &[Choice], target: &Finding<'_>, budget: &Budget) -> Vec<Choice> {
    if budget.poll() {
        return path.to_vec();
    }
    let mut en = Vec::new();
    let mut spent = 0u64;
    let Some(n) = reproduces(m, path, target, &mut en, &mut spent, budget) else {
        return path.to_vec();
    };
    let mut cur = path[..n].to_vec();
    let mut parts = 2usize;
    let mut candidate = Vec::with_capacity(cur.len());
    while cur.len() >= 2 && spent < REPLAY_BUDGET {
        let chunk = cur.len().div_ceil(parts);
        let mut reduced = false;
        let mut start = 0;
        while start < cur.len() && spent < REPLAY_BUDGET {
            candidate.clear();
            candidate.extend_from_slice(&cur[..start]);
            candidate.extend_from_slice(&cur[(start + chunk).min(cur.len())..]);
            if budget.poll() {
                return cur;
            }
            if let Some(k) = reproduces(m, &candidate, target, &mut en, &mut spent, budget) {
                candidate.truncate(k);
                std::mem::swap(&mut cur, &mut candidate);
                reduced = true;
                // Go on at the same place with the same granularity: what follows the removed
                // chunk may go too.
                continue;
            }
            start += chunk;
        }
        if reduced {
            parts = parts.saturating_sub(1).max(2);
        } else if chunk == 1 {
            break;
        } else {
            parts = (parts * 2).min(cur.len());
        }
    }
    cur
}
