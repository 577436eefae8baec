//! Memoised firings for `monitors` (src/explore/monitors.rs): a transition's outcome looked up
//! by the parts of its source state the firing actually read, instead of running the
//! interpreter. Per choice, a decision tree of the runs recorded so far: a node names the part
//! the firing reads next, its children are that part's values, and a leaf is what the firing did.
//!
//! **The idea.** A firing's result is a function of the parts it reads, which are far fewer than
//! the static footprint of its event (src/model/smartapp/footprint.rs) promises: a `mode` event
//! may reach almost every handler, yet a run from a given state takes one path through them and
//! reads a few attributes and `state`s. A memo keyed by the static footprint (this file's first
//! version) almost never hits on such events. So the key is the run's own read set: the lazy
//! decision tree of the function, grown from its recorded runs, in the spirit of memoising a
//! function by its dynamic dependences (Acar, Blelloch and Harper, "Selective memoization", POPL
//! 2003: a lookup follows the parts of the argument the body actually examined, in the order it
//! examined them, rather than the whole argument).
//!
//! **What a firing reads.** A state is kept packed (src/model/smartapp/packed.rs), one interned
//! number per part: each attribute slot, the location mode, each app's whole `state` map, then
//! the ghosts, the fire counts and the root flag. The first parts are the model's objects, and
//! the interpreter records an access of an object (`Ctx::touch`, and `state_set`) at every
//! place it looks at one (`set_attr` and `set_mode` compare with the value held, `attr`,
//! `location.mode`/`currentState`, `state_get`, `state_set`, which rebuilds the whole map, and
//! a configuration, which records every object). [`SmartAppModel::step_unmonitored_reading`]
//! hands out those objects, each once, in the order first touched. A write is always a read
//! here (each writer compares with or rebuilds the part first), so "the value held written
//! again is a read" (the model's rule for the partial-order strategies) changes nothing: every
//! access counts. The other three parts no access names: the ghosts (which an unmonitored run
//! reads only to tell the access's kind, and which monitors never set), the fire counts
//! (`--bound`: the event's count moves, from the whole vector's number) and the root flag; every
//! path begins with them, as if read first. Nothing else enters a firing: `now()`, `Random`,
//! the timers and the step budget are fixed, the settings and subscriptions are the model's.
//! What no access shows: the reset of guarded keys at the end (guarded.rs) reads each app's
//! `state`; it changes no part the run did not touch, every stored state being a representative
//! already (the reset is idempotent), and a part the run touched is in the path anyway.
//!
//! **Exact.** Let the run of choice c from s read the parts p1, ..., pk in that order (first
//! reads), and let t agree with s on p1..pk (as numbers, so as the very interned values). The
//! runs from s and t are equal step by step: up to the first read of p(i+1) both have read only
//! p1..pi, which held equal values at their first read and since then were changed by equal
//! writes; so both next read p(i+1), and both end with the same writes, ghost writes (the
//! monitors' input) and error. Unread parts are not written (a write is a read), so c(t) is t
//! with s's changes. Hence the tree: the root of c reads p1 on every run of c, and a node
//! reached by the values v1..vi reads the part every run through those values reads next; a
//! lookup walks t's words down to a leaf (a hit: apply its changes) or to a missing child (a
//! miss: run the interpreter, and the merge grows the tree by that run's path). Whatever agreed
//! with a recorded state on its path yields its outcome; the footprint containing every read, a
//! state agreeing with a recorded one on its static key agrees on its path, so this memo misses
//! at most where the static one would. Guards: a record whose successor differs from its source
//! outside its read set, or whose path contradicts the tree (another part read after equal
//! values), shows a read the log missed: the choice is then no longer memoised
//! ([`Memo::refuse`]); and debug builds (the tests') run the firing on every hit too and compare
//! (monitors.rs's `check_hit`). A planted bug (an app's `state` read and not written left out of
//! the log) is caught by `check_hit` and by tests/soundness_homes.rs' comparison with `full`: see
//! docs/reductions-homes.md. The memo is a cache: it records nothing that would pass
//! `--max-memory`.
//!
//! The tree is read by the workers of a level (`--threads N`) and grown between chunks, in the
//! chunks' order: whether a step hits depends on N, what it yields does not.

use rustc_hash::FxHashMap;

use crate::model::{Choice, ModelError};

/// What a firing did, for every state on its path: the interned summary of its monitored writes
/// (monitors.rs), and where its result is: `changes[start..start + len]`, the parts it changed
/// as (part, new number), or with `len` = [`ERROR`], `errors[start]`.
#[derive(Clone, Copy)]
struct Outcome {
    summary: u32,
    start: u32,
    len: u32,
}

const ERROR: u32 = u32::MAX;

/// A child that is a leaf: its outcome's index, marked.
const LEAF: u32 = 1 << 31;
/// No tree (yet, or refused), no child.
const NONE: u32 = u32::MAX;

/// A node of a tree: the part it reads, and its first child (the one recorded with it), held
/// in place: most nodes have one.
#[derive(Clone, Copy)]
struct Node {
    part: u32,
    value: u32,
    /// A node, or [`LEAF`] | an outcome's index.
    child: u32,
    /// Other children in [`Memo::edges`].
    more: bool,
}

impl Memo {
    /// The child of node `at` for the part's number `value`, or [`NONE`].
    fn child(&self, at: u32, value: u32) -> u32 {
        let n = &self.nodes[at as usize];
        if n.value == value {
            n.child
        } else if n.more {
            self.edges.get(&(at, value)).copied().unwrap_or(NONE)
        } else {
            NONE
        }
    }
}

/// A memo hit: the summary, and the error or the changes.
pub struct Hit<'a> {
    pub summary: u32,
    pub result: Result<&'a [(u32, u32)], &'a ModelError>,
}

pub struct Memo {
    /// This memo among the run's (a [`Trail`] remembers paths of one memo only).
    id: u64,
    /// Per choice: the root of its tree (a node), or [`NONE`].
    roots: Vec<u32>,
    /// Per choice: refused (a record showed a read the log missed).
    refused: Vec<bool>,
    /// The nodes; a path recorded at once is a run of consecutive nodes (read in a row).
    nodes: Vec<Node>,
    /// The children of a node past its first: (node, the part's number) -> the child.
    edges: FxHashMap<(u32, u32), u32>,
    /// The parts every path begins with (ghosts, fire counts, root flag).
    always: Box<[u32]>,
    outcomes: Vec<Outcome>,
    changes: Vec<(u32, u32)>,
    errors: Vec<ModelError>,
    pub hits: u64,
}

impl Memo {
    /// A memo for `choices` choices of states `always.end` words wide; `always`: the parts no
    /// access names, which every path reads first.
    pub fn new(choices: usize, always: std::ops::Range<usize>) -> Memo {
        static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Memo {
            id: IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            roots: vec![NONE; choices],
            refused: vec![false; choices],
            nodes: Vec::new(),
            edges: FxHashMap::default(),
            always: always.map(|p| p as u32).collect(),
            outcomes: Vec::new(),
            changes: Vec::new(),
            errors: Vec::new(),
            hits: 0,
        }
    }

    /// Firings recorded (leaves).
    pub fn entries(&self) -> usize {
        self.outcomes.len()
    }

    /// Nodes of the trees (parts read on some path).
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Parts on every path: the length [`Memo::growth`] wants for a run that read `reads` parts.
    pub fn path_len(&self, reads: usize) -> usize {
        self.always.len() + reads
    }

    /// What choice `c` does from the state packed as `words`, when a recorded run read parts on
    /// which `words` agrees with it.
    #[doc(hidden)]
    pub fn get(&self, c: Choice, words: &[u32]) -> Option<Hit<'_>> {
        self.get_along(c, words, &mut Trail::new())
    }

    /// [`Memo::get`] that first follows the path `trail` took last time for `c`, as far as
    /// `words` agrees with it, and probes the table only below (a state's siblings in the
    /// breadth-first order mostly agree on what the firing reads). The tree only grows (an edge
    /// once made is never changed), so a path walked stays a path of the tree.
    pub fn get_along(&self, c: Choice, words: &[u32], trail: &mut Trail) -> Option<Hit<'_>> {
        let root = *self.roots.get(c as usize)?;
        if root == NONE {
            return None;
        }
        if trail.memo != Some(self.id) {
            *trail = Trail { memo: Some(self.id), paths: Vec::new() };
        }
        if trail.paths.len() <= c as usize {
            trail.paths.resize_with(c as usize + 1, Default::default);
        }
        let (from, path) = &mut trail.paths[c as usize];
        if *from != root {
            (*from, *path) = (root, Vec::new());
        }
        let agreed = path.iter().take_while(|&&(part, value, _)| words[part as usize] == value).count();
        path.truncate(agreed);
        let mut at = path.last().map_or(root, |&(_, _, child)| child);
        while at & LEAF == 0 {
            let part = self.nodes[at as usize].part;
            let value = words[part as usize];
            let child = self.child(at, value);
            if child == NONE {
                return None;
            }
            path.push((part, value, child));
            at = child;
        }
        let o = self.outcomes[(at & !LEAF) as usize];
        let result = match o.len {
            ERROR => Err(&self.errors[o.start as usize]),
            len => Ok(&self.changes[o.start as usize..(o.start + len) as usize]),
        };
        Some(Hit { summary: o.summary, result })
    }

    /// At most the bytes recording a path of `len` parts may allocate (every table doubling).
    pub fn growth(&self, len: usize) -> u64 {
        let doubles = |len: usize, more: usize, cap: usize, size: usize| {
            if len + more > cap {
                (size * cap.max(more).max(4) * 2) as u64
            } else {
                0
            }
        };
        // A hash table's buckets: 12 bytes of entry and one of control, at most 7/8 full.
        let edges = doubles(self.edges.len(), 1, self.edges.capacity(), 15);
        edges
            + doubles(self.nodes.len(), len, self.nodes.capacity(), 16)
            + doubles(self.outcomes.len(), 1, self.outcomes.capacity(), 12)
            + doubles(self.changes.len(), len, self.changes.capacity(), 8)
            + doubles(self.errors.len(), 1, self.errors.capacity(), std::mem::size_of::<ModelError>())
    }

    /// Records what choice `c` did from `from` (packed), having read the parts `reads` in that
    /// order (first reads), ending in `to` (packed; None: in an error, given in `error`).
    pub fn record(
        &mut self,
        c: Choice,
        from: &[u32],
        reads: &[u32],
        to: Option<&[u32]>,
        error: Option<&ModelError>,
        summary: u32,
    ) {
        let c = c as usize;
        // Node and outcome numbers share 31 bits with the LEAF mark: past them, record nothing.
        let full =
            self.nodes.len() + self.always.len() + reads.len() >= LEAF as usize || self.outcomes.len() >= LEAF as usize;
        if self.refused[c] || full {
            return;
        }
        let path: Vec<u32> = self.always.iter().chain(reads).copied().collect();
        if reads.iter().any(|&p| p as usize >= from.len() || self.always.contains(&p)) {
            // Not a part the tree can read (no model object is one).
            return self.refuse(c as Choice);
        }
        // Walk the path as far as the tree has it.
        let (mut at, mut i, mut hook) = (self.roots[c], 0, None);
        while at != NONE {
            if at & LEAF != 0 {
                // Recorded already, by a run through the same values: the same run, unless the
                // log missed a read.
                if i != path.len() {
                    self.refuse(c as Choice);
                }
                return;
            }
            let part = self.nodes[at as usize].part;
            if path.get(i) != Some(&part) {
                // Another part read next after the same values: a read the log missed.
                return self.refuse(c as Choice);
            }
            let edge = (at, from[part as usize]);
            i += 1;
            hook = Some(edge);
            at = self.child(at, edge.1);
        }
        let outcome = match (to, error) {
            (_, Some(e)) => {
                self.errors.push(e.clone());
                Outcome { summary, start: self.errors.len() as u32 - 1, len: ERROR }
            }
            (Some(to), None) => {
                if (0..to.len()).any(|p| to[p] != from[p] && !path.contains(&(p as u32))) {
                    // A part written and never read: the log missed a read.
                    return self.refuse(c as Choice);
                }
                let start = self.changes.len() as u32;
                let changed = path.iter().filter(|&&p| to[p as usize] != from[p as usize]);
                self.changes.extend(changed.map(|&p| (p, to[p as usize])));
                Outcome { summary, start, len: self.changes.len() as u32 - start }
            }
            (None, None) => return,
        };
        // The rest of the path as a run of new nodes, each the first child of the one before.
        let leaf = LEAF | self.outcomes.len() as u32;
        self.outcomes.push(outcome);
        let first = self.nodes.len() as u32;
        let rest = &path[i..];
        for (k, &part) in rest.iter().enumerate() {
            let child = if k + 1 == rest.len() { leaf } else { first + k as u32 + 1 };
            self.nodes.push(Node { part, value: from[part as usize], child, more: false });
        }
        let top = if rest.is_empty() { leaf } else { first };
        match hook {
            Some(edge) => {
                self.nodes[edge.0 as usize].more = true;
                self.edges.insert(edge, top);
            }
            None => self.roots[c] = top,
        }
    }

    /// Stops memoising choice `c` (its read log missed a read): no lookup finds it again.
    pub fn refuse(&mut self, c: Choice) {
        self.refused[c as usize] = true;
        self.roots[c as usize] = NONE;
    }
}

/// A worker's last path through each choice's tree ([`Memo::get_along`]): per choice, the root
/// it began at and (part, its number, the child) at each node.
pub struct Trail {
    memo: Option<u64>,
    paths: Vec<(u32, Vec<(u32, u32, u32)>)>,
}

impl Trail {
    pub const fn new() -> Trail {
        Trail { memo: None, paths: Vec::new() }
    }
}

/// `from` with the changes of a memoised outcome applied.
pub fn apply(from: &[u32], changes: &[(u32, u32)], out: &mut Vec<u32>) {
    out.clear();
    out.extend_from_slice(from);
    for &(p, n) in changes {
        out[p as usize] = n;
    }
}
