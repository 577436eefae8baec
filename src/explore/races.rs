//! Races of an EM trace, and which of them change an outcome (issue 30; docs/races.md).
//!
//! # What a race is
//! DroidRacer's notion (Maiya, Kanade, Majumdar, "Race detection for Android applications",
//! PLDI 2014): two accesses to one location (READ/WRITE of an object's field, or a static),
//! at least one a write, that the happens-before of the *recorded* run leaves unordered. That
//! happens-before is em-trace.md's, with DroidRacer's rule for locks: an UNLOCK orders a later
//! LOCK of the same lock only on another thread (handlers of one looper never contend for a
//! lock, so a lock orders nothing between them). Two handlers of one looper race unless a post
//! chain or the FIFO rule orders them.
//!
//! # Which races change an outcome
//! Race (a, b), `a` first in the recorded run, on location `x`. An outcome (em-trace.md) *sees
//! the race reversed* when both ran and its view of `x` (what each read of `x` read from, the
//! final write of `x`) cannot be produced with `a` before `b`, given the order `hb0` that every
//! run respects. A race *changes an outcome* when some outcome sees it reversed; otherwise it is
//! *benign*: every outcome's view of `x` is produced with the pair in its recorded order. The
//! verdict is read off the outcome set the search found (one witness execution per outcome),
//! with no further exploration; docs/races.md gives the argument and how DroidRacer and ERVA
//! differ.
//!
//! # The types
//! They are what `check --json` writes (`races`, `outcomes_explained`) and what the HTML page
//! draws; kept stable. Operations are named as the trace names them ([`OpRef`]).

use serde::Serialize;

/// One operation, named as the trace names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpRef {
    /// The operation's number in the trace (its first field; what outcomes print).
    pub index: u32,
    /// Its line in trace.txt.
    pub line: u32,
    /// The raw thread id that runs it (the looper, for a handler's operation).
    pub thread: u32,
    /// The message whose handler runs it (`msg:` of its CALL), none outside handlers.
    pub handler: Option<u64>,
    /// The operation as written: `READ`, `WRITE`, `READ-STATIC`, `WRITE-STATIC`, `LOCK`, ...
    pub kind: String,
    /// For an access: the location as the trace names it: `CLASS.FIELD` for a static,
    /// `CLASS.FIELD of OBJECT` for an object's field (the class of the location's first access).
    pub location: Option<String>,
}

/// A race: two conflicting accesses the recorded run's happens-before leaves unordered.
#[derive(Clone, Debug, Serialize)]
pub struct Race {
    /// The location both access, as [`OpRef::location`] names it.
    pub location: String,
    /// The access that ran first in the recorded run.
    pub first: OpRef,
    /// The one that ran second.
    pub second: OpRef,
    /// Whether some outcome sees the pair reversed; `None` when the search stopped before it
    /// found every outcome and none found so far does (undecided).
    pub changes_outcome: Option<bool>,
    /// When it changes an outcome: an outcome that sees it reversed, and the run reaching it.
    pub witness: Option<RaceWitness>,
    /// How many pairs this entry stands for: 1, or more when races are listed per class (the
    /// same location and the same two tasks) because there are too many pairs to list
    /// ([`RaceReport::per_class`]); the verdict is then that of any pair of the class, and
    /// `first`/`second` are a pair with that verdict.
    pub pairs: u64,
}

/// An outcome that sees a race reversed, with the run that reaches it.
#[derive(Clone, Debug, Serialize)]
pub struct RaceWitness {
    /// The outcome, as a position in [`RaceReport::outcomes`] (from 0).
    pub outcome: usize,
    /// What that outcome sees at the race's location, against the recorded run (sentences).
    pub differs: Vec<String>,
    /// Whether that outcome is a deadlock (some operation never runs).
    pub deadlock: bool,
    /// The run, as `tracepor replay --schedule` takes it (one thread per step).
    pub schedule: String,
    /// Steps of `schedule` (from 1) at which the race's second and first operations run: the
    /// second runs first.
    pub second_step: usize,
    pub first_step: usize,
}

/// One thing an outcome sees differently from the recorded run.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// `read` (a read sees another write), `final` (another last write of a location),
    /// `stuck` (operations that never run: a deadlock).
    pub kind: &'static str,
    /// The read (`read`), the recorded last write (`final`, none when the location was not
    /// written in the recorded run), or the first operation never run (`stuck`).
    pub op: Option<OpRef>,
    /// The write the read sees, or the last write, in this outcome (none: the initial value).
    pub now: Option<OpRef>,
    /// The same in the recorded run (none: the initial value).
    pub recorded: Option<OpRef>,
    /// The whole difference as a sentence.
    pub text: String,
}

/// One outcome, explained against the recorded run.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeExplained {
    /// The canonical line (em-trace.md), as `--outcomes` writes it.
    pub outcome: String,
    /// Whether it is the recorded run's own outcome.
    pub recorded: bool,
    pub deadlock: bool,
    /// What it sees differently; for a deadlock, what each stuck thread waits for as well.
    pub differences: Vec<Difference>,
    /// Positions in [`RaceReport::races`] of the races it sees reversed.
    pub races: Vec<usize>,
    /// A run that reaches it.
    pub schedule: String,
}

/// The races of one trace and the outcomes explained: `check`'s `races` section.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RaceReport {
    /// Pairs of conflicting accesses the recorded run leaves unordered.
    pub pairs: u64,
    /// Of them: changing an outcome, benign, undecided (counted in pairs).
    pub changes_outcome: u64,
    pub benign: u64,
    pub undecided: u64,
    /// Whether `races` lists classes (location, task, task) instead of pairs: more than
    /// [`LIST_PAIRS`] pairs.
    pub per_class: bool,
    pub races: Vec<Race>,
    /// Every outcome found, in `--outcomes`' order, explained.
    pub outcomes: Vec<OutcomeExplained>,
    /// Why the analysis could not run, when it could not (the recorded order does not replay,
    /// a limit stopped it); the fields above are then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_analysed: Option<String>,
}

/// Most race pairs listed one by one; past it, races are listed per class.
pub const LIST_PAIRS: u64 = 10_000;
