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
//! | happens-before | vector clocks per task ([`clock`]) | - |

pub mod clock;
pub mod em;
pub mod em_hb;
pub mod events;
pub mod smartapp;

use smallvec::SmallVec;

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
}

/// What a configuration with nothing enabled amounts to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Canonical one-line text (em-trace.md's `rf … | final … | stuck …` on EM traces).
    pub text: String,
    /// A deadlock: work was left that can never run.
    pub stuck: bool,
}

/// A transition system explored by the strategies.
pub trait Model: Sync {
    type State: Clone + Send;

    /// `"em-trace"` or `"events"`, as in the JSON reports.
    fn kind(&self) -> &'static str;
    /// Number of scheduling units (choices are `0..choices()`).
    fn choices(&self) -> u32;
    fn initial(&self) -> Self::State;
    /// Appends the enabled choices of `s`, ascending.
    fn enabled(&self, s: &Self::State, out: &mut Vec<Choice>);
    /// Appends what the transition of `c` from `s` would touch, without taking it.
    fn accesses(&self, s: &Self::State, c: Choice, out: &mut Accesses);
    /// Takes the transition of enabled choice `c`. An error means the step ends in an error
    /// state (no successor); `s` is then unspecified.
    fn step(&self, s: &mut Self::State, c: Choice) -> Result<(), ModelError>;
    /// Canonical encoding of `s`: equal encodings iff equal states.
    fn encode(&self, s: &Self::State, out: &mut Vec<u32>);
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
    /// What a step from `before` to `after` changed, as text (replay); empty when nothing to say.
    fn explain_step(&self, _before: &Self::State, _after: &Self::State, _c: Choice) -> String {
        String::new()
    }
    /// One line on what the input holds (the report's "system under test").
    fn summary(&self) -> String {
        format!("{} choices", self.choices())
    }
    /// What the input holds, by kind (`tracepor stats`).
    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        std::collections::BTreeMap::from([("choices".to_string(), self.choices() as u64)])
    }
}

/// Compact schedule text: choice names separated by `,`, runs written `name*n`.
pub fn format_schedule<M: Model + ?Sized>(model: &M, path: &[Choice]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < path.len() {
        let mut j = i + 1;
        while j < path.len() && path[j] == path[i] {
            j += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(&model.choice_name(path[i]));
        if j - i > 1 {
            out.push('*');
            out.push_str(&(j - i).to_string());
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

/// Options that shape the transition system built from an input.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// `--bound k`: each event fires at most k times (event models).
    pub bound: Option<u32>,
    /// `--conflicts`: IoTCheck's conflict property (event models).
    pub conflicts: bool,
}

/// An input turned into its transition system.
pub enum Loaded {
    Em(em::EmModel),
    Events(events::EventModel),
    SmartApps(smartapp::SmartAppModel),
}

/// Reads `path` (any input kind of cli.md) and builds its transition system.
pub fn load(path: &std::path::Path, options: LoadOptions) -> Result<Loaded, crate::trace::InputError> {
    use crate::trace::input::{detect, InputKind};
    match detect(path)? {
        InputKind::EmTrace { trace, dependence } => {
            let t = crate::trace::em::load(&trace, dependence.as_deref())?;
            Ok(Loaded::Em(em::EmModel::new(t)?))
        }
        InputKind::Groovy(p) => load_all(&[p], options),
        InputKind::Events(p) => {
            let bytes = crate::trace::input::read(&p)?;
            let opts = events::EventOptions { conflicts: options.conflicts, bound: options.bound };
            Ok(Loaded::Events(events::load(&p, &bytes, opts)?))
        }
    }
}

/// Reads several inputs as one system: SmartApps (Groovy files, or folders of them) are checked
/// together; any other kind must come alone.
pub fn load_all(paths: &[std::path::PathBuf], options: LoadOptions) -> Result<Loaded, crate::trace::InputError> {
    use crate::trace::input::{detect_groovy, InputKind};
    let mut apps = Vec::new();
    for p in paths {
        match detect_groovy(p)? {
            Some(found) => apps.extend(found),
            None if paths.len() == 1 => return load(p, options),
            None => {
                let kind = match crate::trace::input::detect(p)? {
                    InputKind::Groovy(_) => "a SmartApp",
                    _ => "not a SmartApp",
                };
                return Err(crate::trace::InputError::file(
                    p,
                    format!("{kind}: only SmartApps (Groovy) can be checked several at a time"),
                ));
            }
        }
    }
    let opts = smartapp::SmartAppOptions { conflicts: options.conflicts, bound: options.bound };
    Ok(Loaded::SmartApps(smartapp::load(&apps, opts)?))
}
