//! Depth-first search over every enabled choice: the walk both exhaustive strategies share.
//! With a visited set it is `full` (a state seen before is not expanded again), without one it
//! is `full-stateless` (every interleaving).

use rustc_hash::FxHashSet;

use super::Search;
use crate::model::{Choice, Model};

struct Frame<S> {
    state: S,
    enabled: Vec<Choice>,
    next: usize,
}

/// Walks `search.model` depth-first; `stateful` turns state matching on.
pub fn depth_first<M: Model>(search: &mut Search<'_, M>, stateful: bool) {
    let model = search.model;
    let mut visited: FxHashSet<Box<[u32]>> = FxHashSet::default();
    let mut key = Vec::new();
    let initial = model.initial();
    if stateful {
        model.encode(&initial, &mut key);
        visited.insert(key.as_slice().into());
        search.new_state();
        search.stats.unique_transitions = Some(0);
    }
    let mut path: Vec<Choice> = Vec::new();
    let mut enabled = Vec::new();
    model.enabled(&initial, &mut enabled);
    if enabled.is_empty() {
        search.terminal(&initial, &path);
        return;
    }
    let mut stack = vec![Frame { state: initial, enabled, next: 0 }];
    while let Some(top) = stack.last_mut() {
        if search.stopped() {
            break;
        }
        if top.next == top.enabled.len() {
            stack.pop();
            path.pop();
            continue;
        }
        let c = top.enabled[top.next];
        top.next += 1;
        let mut state = top.state.clone();
        path.push(c);
        search.transition(path.len());
        if let Some(u) = search.stats.unique_transitions.as_mut() {
            // Each stored state is expanded once, so every edge walked is a new one.
            *u += 1;
        }
        if let Err(e) = model.step(&mut state, c) {
            search.error(e, &path);
            path.pop();
            continue;
        }
        if stateful {
            key.clear();
            model.encode(&state, &mut key);
            if !visited.insert(key.as_slice().into()) {
                search.end_execution();
                path.pop();
                continue;
            }
            search.new_state();
        }
        let mut enabled = Vec::new();
        model.enabled(&state, &mut enabled);
        if enabled.is_empty() {
            search.terminal(&state, &path);
            path.pop();
            continue;
        }
        stack.push(Frame { state, enabled, next: 0 });
    }
}
