//! Emulators: the transition system each input defines.
//!
//! A strategy in `explore/` sees an input only through [`Model`]: the initial configuration,
//! which scheduling units are enabled, what a step would touch (its accesses, for dependence),
//! taking the step, a canonical encoding of a configuration (for state matching), and the
//! outcome of a configuration in which nothing is enabled.
//!
//! | concept | EM trace ([`em`]) | event model ([`events`]) |
//! |---|---|---|
//! | choice (scheduling unit) | a thread | an event |
//! | transition | the thread's next operation (own code, handler, or the CALL of its queue's front) | all handlers of the event, atomically |
//! | state | positions, queues, locks, notifies, last writes, reads-from | variables, enabled events, ghosts |
//! | error | none; stuck executions are deadlocks | failed assert, division by zero, conflict |
//! | happens-before | vector clocks per chain of ordered events ([`clock`]) | - |

pub mod clock;
pub mod em;
pub mod em_hb;
pub mod events;
pub mod lane;
pub mod smartapp;

use smallvec::SmallVec;

use crate::trace::input::Input;

/// The unit a scheduler picks: a thread of an EM trace, an event of an event model.
/// Dense, `0..model.choices()`.
pub type Choice = u32;

/// One access of a transition to a shared object. Object ids are the model's own
/// (memory locations, locks, queues, enable flags ...); two accesses conflict when they name the
/// same object and at least one writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Access {
    pub object: u32,
    pub write: bool,
}

/// The accesses of one transition; short in practice, so kept inline.
pub type Accesses = SmallVec<[Access; 6]>;

/// Models whose dependence can be fixed per choice before anything runs, for the stateless
/// `dpor` and `dpor-sleep` of [`crate::explore::dpor_events`] (event models and SmartApps under
/// `--bound k`). Flanagan and Godefroid's argument needs a process's next transition, and its
/// dependence with others, to stay the same until the process runs; a footprint fixed per
/// choice gives that, where the accesses of the executed path do not.
pub trait StaticFootprints: Model {
    /// Every object choice `c`'s transition can touch, from any state and on any branch, one
    /// entry per object: an over-approximation of [`Model::accesses`]. Two choices whose
    /// footprints conflict are dependent; the search asks once per run, not per transition.
    fn footprints(&self) -> Vec<Accesses>;
    /// Whether `c` can never be enabled again from `s` (its `--bound` counter is spent; only
    /// `c` moves it).
    fn exhausted(&self, s: &Self::State, c: Choice) -> bool;
    /// The `--bound k` that makes the search's paths finite, if any.
    fn bound(&self) -> Option<u32>;
}

/// Whether two access lists conflict (same object, at least one write).
pub fn conflicting(a: &[Access], b: &[Access]) -> bool {
    a.iter().any(|x| b.iter().any(|y| x.object == y.object && (x.write || y.write)))
}

/// A property violation found by a transition. The transition leads to no state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// `assert`, `division-by-zero`, `conflict`, `deadlock`.
    pub kind: &'static str,
    pub message: String,
    /// Source line of the statement (event models) or operation index (EM traces).
    pub line: usize,
    pub event: Option<String>,
    pub app: Option<String>,
    /// For a conflict: who wrote what. Not part of what tells errors apart (the message is),
    /// since the values depend on the path taken to the same statement.
    pub conflict: Option<Box<Conflict>>,
    /// Where in the source, when the line alone does not say it (several SmartApps): the
    /// file and line, and the handler that was running (`a.groovy:72, handler lockHandler`).
    pub at: Option<String>,
}

impl ModelError {
    /// The message as reports and replay print it. An event model's conflict message names
    /// only what the statement fixes (it tells errors apart); the values, which depend on the
    /// path, are in `conflict` and are said here. A SmartApp's message names them already.
    pub fn shown_message(&self, kind: ModelKind) -> String {
        shown_message(kind, &self.message, self.conflict.as_deref())
    }
}

/// [`ModelError::shown_message`] for an error's message and a conflict taken from elsewhere
/// (the report takes it from the schedule it prints).
pub fn shown_message(kind: ModelKind, message: &str, conflict: Option<&Conflict>) -> String {
    match conflict {
        Some(c) if kind == ModelKind::Events => c.describe(),
        _ => message.to_string(),
    }
}

/// Both sides of a conflict (IoTCheck's property): the app writing `variable` now with `value`,
/// over `last_value` that `last_app` wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Conflict {
    pub variable: String,
    pub app: String,
    pub value: String,
    pub last_app: String,
    pub last_value: String,
    /// For a pair conflict (`explore/pair_monitors.rs`): the third apps' writes of the variable
    /// between the two on the schedule found (`APP wrote VALUE`); empty for a direct conflict.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub between: Vec<String>,
}

impl Conflict {
    /// One sentence naming both apps, the variable and both values.
    pub fn describe(&self) -> String {
        format!(
            "apps {} and {} both write `{}`: {} wrote {}, then {} writes {}",
            self.last_app, self.app, self.variable, self.last_app, self.last_value, self.app, self.value
        )
    }
}

/// The kind of input a model was built from, as cli.md's JSON `model` field names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// An Android trace of EM-Explorer (em-trace.md).
    EmTrace,
    /// A SmartThings-style event model (event-model.md).
    Events,
    /// SmartThings SmartApps, Groovy source checked together as one system.
    #[serde(rename = "smartapps")]
    SmartApps,
}

impl ModelKind {
    pub const ALL: [ModelKind; 3] = [ModelKind::EmTrace, ModelKind::Events, ModelKind::SmartApps];

    /// The name of cli.md (`"em-trace"`, `"events"`, `"smartapps"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ModelKind::EmTrace => "em-trace",
            ModelKind::Events => "events",
            ModelKind::SmartApps => "smartapps",
        }
    }

    /// Whether an execution that ends with work left over is itself an error. A trace was
    /// recorded running to completion, so a stuck replay of it is a deadlock of the app; an
    /// event model ends whenever no event is enabled, which is just where it stops.
    pub fn deadlock_is_error(self) -> bool {
        self == ModelKind::EmTrace
    }
}

impl std::fmt::Display for ModelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ModelKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What a configuration with nothing enabled amounts to. Strategies are compared on the set of
/// these; [`Outcome`]'s `Display` is the canonical line of em-trace.md (`rf 12<-7 15<-0 | final
/// 9 22 | stuck`), the one text form, written to `--outcomes` files and used as the set's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// An EM trace's end: who each executed read read from, the last write of each location,
    /// and the operations never run (a deadlock when there are any). All by operation index.
    EmTrace { reads_from: Vec<(u32, u32)>, final_writes: Vec<u32>, stuck: Vec<u32> },
    /// An event model's end (no event enabled): variable values, events still enabled, and,
    /// when asked for, the app that last wrote each variable (`--conflicts`) and how often each
    /// event fired (`--bound`). Values are shown as the model prints them.
    Events {
        vars: Vec<(String, String)>,
        enabled: Vec<String>,
        writers: Option<Vec<(String, String)>>,
        fired: Option<Vec<(String, u32)>>,
    },
    /// SmartApps with no event enabled: device attributes, mode and each app's state, as the
    /// SmartApp model writes them (one text for now; see docs/smartapps.md).
    SmartApps { state: String },
}

impl Outcome {
    /// A deadlock: work was left that can never run. Every end of an event model counts, as
    /// cli.md's `deadlocks` counts its distinct nothing-enabled states.
    pub fn stuck(&self) -> bool {
        match self {
            Outcome::EmTrace { stuck, .. } => !stuck.is_empty(),
            Outcome::Events { .. } | Outcome::SmartApps { .. } => true,
        }
    }

    /// The operations never run (EM traces), ascending by index; empty otherwise.
    pub fn stuck_operations(&self) -> &[u32] {
        match self {
            Outcome::EmTrace { stuck, .. } => stuck,
            Outcome::Events { .. } | Outcome::SmartApps { .. } => &[],
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::EmTrace { reads_from, final_writes, stuck } => {
                f.write_str("rf")?;
                for (r, w) in reads_from {
                    write!(f, " {r}<-{w}")?;
                }
                f.write_str(" | final")?;
                for w in final_writes {
                    write!(f, " {w}")?;
                }
                f.write_str(" | stuck")?;
                for o in stuck {
                    write!(f, " {o}")?;
                }
            }
            Outcome::SmartApps { state } => f.write_str(state)?,
            Outcome::Events { vars, enabled, writers, fired } => {
                f.write_str("vars")?;
                for (v, x) in vars {
                    write!(f, " {v}={x}")?;
                }
                f.write_str(" | enabled")?;
                for e in enabled {
                    write!(f, " {e}")?;
                }
                if let Some(writers) = writers {
                    f.write_str(" | writers")?;
                    for (v, app) in writers {
                        write!(f, " {v}={app}")?;
                    }
                }
                if let Some(fired) = fired {
                    f.write_str(" | fired")?;
                    for (e, n) in fired {
                        write!(f, " {e}={n}")?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Hash of an encoding (the stateful search's index of stored states).
pub fn hash_words(enc: &[u32]) -> u64 {
    // SAFETY: u32 has no padding and u8 no alignment requirement; same bytes, same length.
    let bytes = unsafe { std::slice::from_raw_parts(enc.as_ptr().cast::<u8>(), std::mem::size_of_val(enc)) };
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A transition system explored by the strategies.
pub trait Model: Sync {
    type State: Clone + Send;

    /// What kind of input this model was built from.
    fn kind(&self) -> ModelKind;
    /// The EM trace model, when this is one: what the race analysis reads (explore/races.rs).
    fn as_em(&self) -> Option<&em::EmModel> {
        None
    }
    /// Whether a stuck execution is an error to report (see [`ModelKind::deadlock_is_error`]).
    fn deadlock_is_error(&self) -> bool {
        self.kind().deadlock_is_error()
    }
    /// Whether every path ends: stateless strategies walk every path and need this. True of EM
    /// traces; event models have it only under `--bound k`.
    fn paths_are_finite(&self) -> bool {
        true
    }
    /// Whether every schedule to a given stuck outcome has the same length, so that any one
    /// found is a shortest one. True of EM traces: each step runs one operation and the outcome
    /// names the operations never run.
    fn stuck_length_fixed(&self) -> bool {
        false
    }
    /// The command-line options that shaped this transition system (` --bound 1 --conflicts`),
    /// so that a printed `tracepor replay` line rebuilds the same one.
    fn load_flags(&self) -> String {
        String::new()
    }
    /// Number of scheduling units (choices are `0..choices()`).
    fn choices(&self) -> u32;
    /// Whether a choice's enabledness changes only on transitions out of the initial state,
    /// which no transition leads back to and each of which writes every object of the model
    /// (a configuration chosen before anything runs). `stateful-dpor` then leaves a
    /// transition's read of its own enable flag out whenever it has another access (see
    /// `explore/stateful_dpor/mod.rs`). False (the default) promises nothing.
    fn enabling_only_at_root(&self) -> bool {
        false
    }
    fn initial(&self) -> Self::State;
    /// Appends the enabled choices of `s`, ascending.
    fn enabled(&self, s: &Self::State, out: &mut Vec<Choice>);
    /// Appends what the transition of `c` from `s` would touch, without taking it.
    fn accesses(&self, s: &Self::State, c: Choice, out: &mut Accesses);
    /// When `c` is blocked in `s` (it has a next transition that cannot run yet: a LOCK held by
    /// another thread, a WAIT with no NOTIFY), appends what that transition would touch and
    /// returns true. DPOR looks back from blocked transitions as from executed ones (Flanagan
    /// and Godefroid examine next(s, p) of every process, enabled or not): otherwise a
    /// transition that can run only if it is reordered before the one that blocks it is never
    /// seen. Models whose choices are atomic events have none (the default).
    fn blocked(&self, _s: &Self::State, _c: Choice, _out: &mut Accesses) -> bool {
        false
    }
    /// Takes the transition of enabled choice `c`. An error means the step ends in an error
    /// state (no successor); `s` is then unspecified.
    fn step(&self, s: &mut Self::State, c: Choice) -> Result<(), ModelError>;
    /// Canonical encoding of `s`: equal encodings iff equal states.
    fn encode(&self, s: &Self::State, out: &mut Vec<u32>);
    /// Where `app` last wrote `variable` along `path` (`file:line, handler h`): the earlier side
    /// of a conflict the last step of `path` ends in, for reports. None when the model keeps no
    /// places (the default) or the write is not on the path, or when `budget` (polled at each
    /// step of the replay; explore/budget.rs) is spent first.
    fn write_place(
        &self,
        _path: &[Choice],
        _variable: &str,
        _app: &str,
        _budget: &dyn crate::model::Poll,
    ) -> Option<String> {
        None
    }
    /// The property an error of kind `property` violates (SmartApps, docs/properties.md).
    fn property_info(&self, _error: &ModelError) -> Option<PropertyInfo> {
        None
    }
    /// The outcome of a state in which nothing is enabled.
    fn outcome(&self, s: &Self::State) -> Outcome;
    /// Short name of a choice, as written in schedules (no `,` or `*`).
    fn choice_name(&self, c: Choice) -> String;
    fn parse_choice(&self, name: &str) -> Option<Choice>;
    /// One-line description of the transition `c` would take from `s` (for replay and graphs).
    fn describe(&self, s: &Self::State, c: Choice) -> String;

    /// [`Model::step`] that also appends what [`Model::accesses`] would have given before it,
    /// for a model that finds its accesses by running the transition (once instead of twice).
    fn step_recording(&self, s: &mut Self::State, c: Choice, out: &mut Accesses) -> Result<(), ModelError> {
        self.accesses(s, c, out);
        self.step(s, c)
    }
    /// [`Model::step`] (or, given `acc`, [`Model::step_recording`]) that appends to `seen` the
    /// observations the transition made: property violations that do not end it (SmartApp
    /// conflicts under `--conflict-mode observe`, src/model/smartapp/delivery.rs). The
    /// transition and the path go on past them; a search records each as a finding, as it does
    /// an error. By default a model observes nothing.
    fn step_observing(
        &self,
        s: &mut Self::State,
        c: Choice,
        acc: Option<&mut Accesses>,
        seen: &mut Vec<ModelError>,
    ) -> Result<(), ModelError> {
        let _ = seen;
        match acc {
            Some(out) => self.step_recording(s, c, out),
            None => self.step(s, c),
        }
    }
    /// Whether [`Model::step_logged`] and [`Model::undo`] are implemented. The exhaustive search
    /// then keeps one state, stepping and undoing in place, instead of a copy per depth.
    fn undoable(&self) -> bool {
        false
    }
    /// [`Model::step`] that also appends to `log` what [`Model::undo`] needs to restore `s`,
    /// failed steps included (their partial changes are logged too).
    fn step_logged(&self, s: &mut Self::State, c: Choice, log: &mut Vec<u64>) -> Result<(), ModelError> {
        let _ = log;
        self.step(s, c)
    }
    /// Restores `s` to what it was before the steps that appended `log` (the whole of it).
    fn undo(&self, _s: &mut Self::State, _log: &[u64]) {}
    /// The smallest enabled choice of `s` not below `from`: [`Model::enabled`] one at a time.
    fn next_enabled(&self, s: &Self::State, from: Choice) -> Option<Choice> {
        let mut all = Vec::new();
        self.enabled(s, &mut all);
        all.into_iter().find(|&c| c >= from)
    }

    /// Name of an access object, for replay output.
    fn object_name(&self, object: u32) -> String {
        format!("#{object}")
    }
    /// In a state where work is left and nothing can run, what each stuck thread or handler waits
    /// for, one line each (deadlock reports); empty when the model has nothing to say.
    fn explain_stuck(&self, s: &Self::State) -> Vec<String> {
        self.stuck_threads(s).into_iter().map(|w| w.text).collect()
    }
    /// [`Model::explain_stuck`] with each operation, lock and holder named apart, for JSON (a
    /// deadlock's `stuck`). Only EM traces report a stuck state as an error (the other models'
    /// nothing-enabled states are outcomes), so the entries name things as a trace does.
    fn stuck_threads(&self, _s: &Self::State) -> Vec<em::StuckThread> {
        Vec::new()
    }
    /// What a step from `before` to `after` changed, as text (replay); empty when nothing to say.
    fn explain_step(&self, _before: &Self::State, _after: &Self::State, _c: Choice) -> String {
        String::new()
    }
    /// One line on what the input holds (the report's "system under test").
    fn summary(&self) -> String {
        format!("{} choices", self.choices())
    }
    /// The lanes a diagram of this model's schedules draws ([`lane`]): by default one, for
    /// the choices themselves.
    fn lanes(&self) -> Vec<lane::Lane> {
        vec![lane::Lane { name: "choices".into(), kind: lane::LaneKind::Environment }]
    }
    /// Appends the marks the transition of `c` from `s` puts on [`Model::lanes`], in the order
    /// they happen, without taking it (diagrams only: may be slow). When `c` is not enabled,
    /// what it would run next (a stuck thread's operation). By default one mark on the one lane.
    fn lane_marks(&self, s: &Self::State, c: Choice, out: &mut Vec<lane::LaneMark>) {
        out.push(lane::LaneMark {
            lane: 0,
            handler: None,
            label: self.choice_name(c),
            text: self.describe(s, c),
            op: None,
            access: None,
        });
    }
    /// What of the input the model cannot bind or run, one `file:line: why` each: reported
    /// (text, JSON, `stats`) so that nothing is dropped silently. Empty when all is modelled.
    fn unsupported(&self) -> Vec<String> {
        Vec::new()
    }
    /// What the reading of the input warns of, one sentence each (a DroidRacer log cut short,
    /// explored as the prefix it holds): reported (text, JSON `warnings`) beside the findings.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// Parts of the input left out of the search because the property checked cannot see them
    /// (SmartApps that write nothing shared, under `--conflicts`), one line each with why:
    /// reported (text, JSON, `stats`) as their own errors are then not looked for.
    fn left_out(&self) -> Vec<String> {
        Vec::new()
    }
    /// What the input holds, by kind (`tracepor stats`).
    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        std::collections::BTreeMap::from([("choices".to_string(), self.choices() as u64)])
    }
}

/// Compact schedule text: choice names separated by `,`, runs written `name*n`.
pub fn format_schedule<M: Model + ?Sized>(model: &M, path: &[Choice]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    // Each choice's name made once: a schedule names a few threads or events many times.
    let mut names: Vec<Option<String>> = Vec::new();
    let mut i = 0;
    while i < path.len() {
        let mut j = i + 1;
        while j < path.len() && path[j] == path[i] {
            j += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        let c = path[i] as usize;
        if names.len() <= c {
            names.resize(c + 1, None);
        }
        out.push_str(names[c].get_or_insert_with(|| model.choice_name(path[i])));
        if j - i > 1 {
            let _ = write!(out, "*{}", j - i);
        }
        i = j;
    }
    out
}

/// Parses [`format_schedule`]'s text back into choices.
pub fn parse_schedule<M: Model + ?Sized>(model: &M, text: &str) -> Result<Vec<Choice>, String> {
    let mut path = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, count) = match item.rsplit_once('*') {
            Some((n, k)) => (n, k.parse::<usize>().map_err(|_| format!("bad repeat count in `{item}`"))?),
            None => (item, 1),
        };
        let c = model.parse_choice(name).ok_or_else(|| format!("unknown choice `{name}` in schedule"))?;
        path.extend(std::iter::repeat_n(c, count));
    }
    Ok(path)
}

/// The command-line text of `--bound k` and `--conflicts` as given (for replay lines).
pub fn load_flags(bound: Option<u32>, conflicts: bool) -> String {
    let bound = bound.map_or(String::new(), |k| format!(" --bound {k}"));
    format!("{bound}{}", if conflicts { " --conflicts" } else { "" })
}

/// What a SmartApp conflict does to its path (`--conflict-mode`; event models always end it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ConflictMode {
    /// A conflict is recorded and the path goes on past it: every conflict reachable is found
    /// (a hub does not stop at one). The default of `check` and of `corpus --homes`.
    #[default]
    Observe,
    /// A conflict is an error that ends its path, as a property violation ends IoTCheck's JPF
    /// run: enough for a pair's verdict, and cheaper. The default of `corpus` over pairs.
    End,
}

impl ConflictMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictMode::Observe => "observe",
            ConflictMode::End => "end",
        }
    }
}

/// `--conflicts-on`: the device attributes a conflict may be on (SmartApps). Each name is an
/// attribute (`lock`: on every device that has it) or a capability's attribute
/// (`musicPlayer.level`: that device's only). IoTCheck's device-interaction runs track only the
/// group's device this way (the `variables` of its `main-<group>.jpf`). Writes outside the
/// scope are never a conflict and keep no last writer. Interned, so that the options stay
/// `Copy`: each distinct scope is stored once per process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConflictScope(&'static [&'static str]);

impl ConflictScope {
    /// The scope of these names (sorted, without repeats).
    pub fn new<S: AsRef<str>>(names: &[S]) -> ConflictScope {
        static INTERNED: std::sync::Mutex<Vec<&'static [&'static str]>> = std::sync::Mutex::new(Vec::new());
        let mut want: Vec<&str> = names.iter().map(|n| n.as_ref().trim()).filter(|n| !n.is_empty()).collect();
        want.sort_unstable();
        want.dedup();
        let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = interned.iter().find(|s| **s == want.as_slice()) {
            return ConflictScope(found);
        }
        let leaked: Vec<&'static str> = want.iter().map(|n| &*Box::leak(n.to_string().into_boxed_str())).collect();
        let scope: &'static [&'static str] = Box::leak(leaked.into_boxed_slice());
        interned.push(scope);
        ConflictScope(scope)
    }

    /// The scope of names known at compile time (tables, tests); not checked against the
    /// device model until a system is loaded with it.
    pub const fn of(names: &'static [&'static str]) -> ConflictScope {
        ConflictScope(names)
    }

    /// The names (sorted when made by [`ConflictScope::new`]).
    pub fn names(&self) -> &'static [&'static str] {
        self.0
    }

    /// Whether a write of `attr` on a device of capability `device` is in the scope.
    pub fn contains(&self, device: &str, attr: &str) -> bool {
        self.0.iter().any(|n| match n.split_once('.') {
            Some((d, a)) => d == device && a == attr,
            None => *n == attr,
        })
    }

    /// The command-line text (`--conflicts-on a,b`).
    pub fn flag(&self) -> String {
        format!(" --conflicts-on {}", self.0.join(","))
    }
}

/// `--properties FILE` and `--no-default-properties` (SmartApps, docs/properties.md): the file
/// is kept for the process, so that the options stay `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PropertyOptions {
    pub file: Option<&'static std::path::Path>,
    /// The library's properties are not attached to a home's devices.
    pub no_library: bool,
}

impl PropertyOptions {
    /// The options of this file (None: none) and library switch.
    pub fn new(file: Option<&std::path::Path>, no_library: bool) -> PropertyOptions {
        let file = file.map(|f| &*Box::leak(f.to_path_buf().into_boxed_path()));
        PropertyOptions { file, no_library }
    }
}

/// A violated property as reports name it (JSON `errors[].property`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PropertyInfo {
    pub name: String,
    pub text: Option<String>,
    pub source: Option<String>,
    /// Where it is written (a property file, a home, or the library).
    pub file: String,
    pub line: usize,
}

/// Options that shape the transition system built from an input.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// `--bound k`: each event fires at most k times (event models).
    pub bound: Option<u32>,
    /// `--conflicts`: IoTCheck's conflict property (event models).
    pub conflicts: bool,
    /// `--keep-dead-state`: SmartApps store what no app can tell apart (an ablation).
    pub keep_dead_state: bool,
    /// `--conflict-mode`: whether a SmartApp conflict ends its path (`End`) or is observed and
    /// the path goes on (`Observe`). Library default: `Observe`.
    pub conflict_mode: ConflictMode,
    /// `--conflicts-on`: only these attributes can be a conflict (SmartApps; implies
    /// `conflicts`). None: every attribute.
    pub conflicts_on: Option<ConflictScope>,
    /// `--properties FILE`, `--no-default-properties` (SmartApps).
    pub properties: PropertyOptions,
    /// `--routines-keep-mode`: a routine a SmartApp runs leaves the location mode as it is (the
    /// FSE 2020 study's definition; docs/location-mode.md). Default: it may set any mode.
    pub routines_keep_mode: bool,
    /// `--fixed-inputs`: a SmartApp's inputs keep one value and the sensors apps only read
    /// their default, as IoTCheck's model has them (the VMCAI tables' runs).
    pub fixed_inputs: bool,
    /// `--physical`: physical channels between SmartApps under `--conflicts`
    /// (model/smartapp/physical.rs).
    pub physical: bool,
}

/// An input turned into its transition system.
pub enum Loaded {
    Em(em::EmModel),
    Events(events::EventModel),
    SmartApps(smartapp::SmartAppModel),
}

/// Runs `$body` with `$m` bound to the model inside a [`Loaded`], whatever its type (each arm
/// is compiled for its own model type, so the body stays statically dispatched).
#[macro_export]
macro_rules! with_model {
    ($loaded:expr, $m:ident => $body:expr) => {
        match $loaded {
            $crate::model::Loaded::Em($m) => $body,
            $crate::model::Loaded::Events($m) => $body,
            $crate::model::Loaded::SmartApps($m) => $body,
        }
    };
}

/// Reads `path` (any input kind of cli.md) and builds its transition system.
pub fn load(path: &std::path::Path, options: LoadOptions) -> Result<Loaded, crate::trace::InputError> {
    load_all(&[path.to_path_buf()], options)
}

/// Reads several inputs as one system: SmartApps (Groovy files, or folders of them) are checked
/// together; any other kind must come alone.
pub fn load_all(paths: &[std::path::PathBuf], options: LoadOptions) -> Result<Loaded, crate::trace::InputError> {
    load_input(crate::trace::input::detect_input(paths)?, options)
}

/// Builds the transition system of an input already told apart
/// ([`crate::trace::input::detect_input`]).
pub fn load_input(input: Input, options: LoadOptions) -> Result<Loaded, crate::trace::InputError> {
    match input {
        Input::EmTrace { trace, dependence } => {
            let t = crate::trace::em::load(&trace, dependence.as_deref())?;
            Ok(Loaded::Em(em::EmModel::new(t)?))
        }
        Input::AbcLog(p) => Ok(Loaded::Em(em::EmModel::new(crate::trace::abc_log::load(&p)?)?)),
        Input::Events(p) => {
            let bytes = crate::trace::input::read(&p)?;
            let opts = events::EventOptions { conflicts: options.conflicts, bound: options.bound };
            Ok(Loaded::Events(events::load(&p, &bytes, opts)?))
        }
        Input::SmartApps(apps) => Ok(Loaded::SmartApps(smartapp::load(&apps, smartapp_options(options))?)),
        Input::Home(home) => Ok(Loaded::SmartApps(smartapp::load_home(&home, smartapp_options(options))?)),
    }
}

/// What a model's work after a search polls between its steps: true once the run's budget
/// (time, memory, Ctrl-C, steps; `explore::Budget`) is spent. A trait here so that the models
/// need not know the searches' machinery.
pub trait Poll {
    fn poll(&self) -> bool;
}

/// The SmartApp model's options from the load options.
fn smartapp_options(options: LoadOptions) -> smartapp::SmartAppOptions {
    smartapp::SmartAppOptions {
        conflicts: options.conflicts || options.conflicts_on.is_some(),
        bound: options.bound,
        keep_dead_state: options.keep_dead_state,
        conflict_mode: options.conflict_mode,
        conflicts_on: options.conflicts_on,
        properties: options.properties,
        routines_keep_mode: options.routines_keep_mode,
        fixed_inputs: options.fixed_inputs,
        physical: options.physical,
    }
}

impl From<&Input> for ModelKind {
    fn from(input: &Input) -> Self {
        match input {
            Input::EmTrace { .. } | Input::AbcLog(_) => ModelKind::EmTrace,
            Input::Events(_) => ModelKind::Events,
            Input::SmartApps(_) | Input::Home(_) => ModelKind::SmartApps,
        }
    }
}
