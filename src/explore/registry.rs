//! The strategies, in one table: each one's name, the paper it follows, the inputs it applies
//! to, what it needs and supports, and how to build it for each model type. The command line's
//! help, `compare`'s default set, the error for a strategy that does not apply, the README's
//! table and the soundness tests all read [`REGISTRY`]; a strategy's name is written here only.
//!
//! Adding a strategy: one [`Entry`] (with `..BASE`), plus its `Strategy` impl.
//! Adding a model type: one builder field on [`Entry`] (`None` in [`BASE`]), one
//! [`Registered`] impl returning it, and the builder in the entries that apply to the model.
//!
//! A builder is called once per run and hands back `Box<dyn Strategy<M>>`; the strategy's own
//! loop is generic over `M`, so the transitions themselves are statically dispatched.

use super::{
    dpor, dpor_events, dpor_sleep, em_dpor, em_dpor_sleep, full, full_stateless, monitors, reads_from, stateful_dpor,
    Strategy,
};
use crate::model::em::EmModel;
use crate::model::events::EventModel;
use crate::model::smartapp::SmartAppModel;
use crate::model::{Model, ModelKind};

/// Builds a fresh strategy for model type `M`.
pub type Build<M> = Option<fn() -> Box<dyn Strategy<M>>>;

/// One strategy and what it needs and supports.
pub struct Entry {
    /// The name on the command line (`--strategy`, `--strategies`) and in reports.
    pub name: &'static str,
    /// One line on what it does, for the README's table and the strategy list of `--help`.
    pub what: &'static str,
    /// A few plain words on what it is for, for the short list of `check --help`.
    pub summary: &'static str,
    /// The paper and section it follows.
    pub paper: &'static str,
    /// Walks every path without matching states: on a model whose paths need not end (an
    /// event model without `--bound k`) it would not terminate.
    pub stateless: bool,
    /// The inputs on which it explores in parallel with `--threads N` (`dpor`: EM traces only;
    /// its event-model search is another, sequential one).
    pub parallel: &'static [ModelKind],
    /// Runs on every core unless `--threads` says otherwise: its counts and findings are the
    /// same for any number of threads (`monitors`; tests/threads_homes.rs).
    pub all_cores: bool,
    /// Stores fingerprints instead of states with `--hash-compact` (only `full` keeps a store
    /// of visited states that the switch changes).
    pub hash_compact: bool,
    /// Explores every interleaving: a reference the reductions' outcome sets are checked against.
    pub exhaustive: bool,
    /// Records the state graph that `--dot` writes.
    pub records_graph: bool,
    /// The ablation switches (`--no-…`) it reads; others ignore them.
    pub ablations: &'static [&'static str],
    /// Among the strategies that apply to an input, the highest rank is the default (the best
    /// sound one); 0 is never the default.
    pub default_rank: u8,
    /// Input kinds on which it is never the default, whatever its rank (measured in
    /// docs/strategies.md, or unable to run there without an option).
    pub not_default_on: &'static [ModelKind],
    /// Left out of `compare`'s default set (run only when named in `--strategies`).
    pub compare_on_request: bool,
    pub em_trace: Build<EmModel>,
    pub events: Build<EventModel>,
    /// SmartApps from Groovy source. `dpor` and `dpor-sleep` run here as on event models, from
    /// static footprints (src/model/smartapp/footprint.rs: a scan of each app's source and the
    /// closure of the cascades), and like there only under `--bound k`.
    pub smartapps: Build<SmartAppModel>,
}

/// An entry that applies to nothing; entries override what they have.
pub const BASE: Entry = Entry {
    name: "",
    what: "",
    summary: "",
    paper: "",
    stateless: false,
    parallel: &[],
    all_cores: false,
    hash_compact: false,
    exhaustive: false,
    records_graph: false,
    ablations: &[],
    default_rank: 0,
    not_default_on: &[],
    compare_on_request: false,
    em_trace: None,
    events: None,
    smartapps: None,
};

/// Every strategy, in the order `compare` runs them and tables list them.
///
/// A `static`, not a `const`: a constant is copied into every crate that names it, and with it
/// every strategy's code for every model type (the builders' closures and their vtables), built
/// again in each test binary and in the command-line binary; a static's value is built once,
/// in this crate. `ENTRIES` is the same table as a constant, for [`NAMES`].
pub static REGISTRY: &[Entry] = ENTRIES;

const ENTRIES: &[Entry] = &[
    Entry {
        name: "full",
        summary: "every reachable state once; the reference",
        what: "visits every reachable state once: the reference the other strategies are checked against, at the cost of memory for every state",
        paper: "EM-Explorer's stateful exhaustive search (the baseline)",
        parallel: &ModelKind::ALL,
        hash_compact: true,
        exhaustive: true,
        records_graph: true,
        default_rank: 1,
        em_trace: Some(|| Box::new(full::Full)),
        events: Some(|| Box::new(full::Full)),
        smartapps: Some(|| Box::new(full::Full)),
        ..BASE
    },
    Entry {
        name: "full-stateless",
        summary: "every interleaving, nothing stored; small inputs",
        what: "runs every interleaving and remembers nothing: small inputs without cycles, to check the others",
        paper: "the textbook stateless search (the baseline)",
        stateless: true,
        // Every interleaving: on the TACAS traces it runs for ever; `full` is the reference.
        compare_on_request: true,
        parallel: &ModelKind::ALL,
        exhaustive: true,
        records_graph: true,
        em_trace: Some(|| Box::new(full_stateless::FullStateless)),
        events: Some(|| Box::new(full_stateless::FullStateless)),
        smartapps: Some(|| Box::new(full_stateless::FullStateless)),
        ..BASE
    },
    Entry {
        name: "dpor",
        summary: "one run per order of dependent steps",
        what: "runs one interleaving of each group that differ only in the order of independent steps: the same findings as running them all, in fewer runs",
        paper: "Flanagan and Godefroid, POPL 2005; EM-Explorer's baseline on EM traces",
        stateless: true,
        parallel: &[ModelKind::EmTrace],
        default_rank: 2,
        // Stateless: on event models and SmartApps it runs only under --bound k.
        not_default_on: &[ModelKind::Events, ModelKind::SmartApps],
        em_trace: Some(|| Box::new(dpor::Dpor)),
        events: Some(|| Box::new(dpor_events::DporEvents::default())),
        smartapps: Some(|| Box::new(dpor_events::DporEvents::default())),
        ..BASE
    },
    Entry {
        name: "dpor-sleep",
        summary: "dpor that skips orders already covered",
        what: "`dpor` that also skips orders it has already covered (sleep sets): fewer runs again",
        paper: "Godefroid's sleep sets over Flanagan and Godefroid, POPL 2005",
        stateless: true,
        em_trace: Some(|| Box::new(dpor_sleep::DporSleep)),
        events: Some(|| Box::new(dpor_events::DporEvents { sleep_sets: true, ..Default::default() })),
        smartapps: Some(|| Box::new(dpor_events::DporEvents { sleep_sets: true, ..Default::default() })),
        ..BASE
    },
    Entry {
        name: "em-dpor",
        summary: "dpor that knows event queues and handlers",
        what: "Android traces: `dpor` that understands event queues and handlers, so it skips more reorderings",
        paper: "Maiya et al., TACAS 2016 (docs/em-dpor.md, sections 4.2-4.3)",
        stateless: true,
        default_rank: 4,
        em_trace: Some(|| Box::new(em_dpor::EmDpor)),
        ..BASE
    },
    Entry {
        name: "stateful-dpor",
        summary: "dpor that stores states: ends on looping programs",
        what: "`dpor` that remembers states, so it also ends on programs that can run for ever (SmartApps, event models)",
        paper: "Trimananda et al., VMCAI 2022, Algorithms 1-5 and Appendix D",
        ablations: &[
            "no-full-cycle",
            "no-graph-backtrack",
            "no-per-location",
            "no-match-update",
            "no-summaries",
            "lowest-first",
        ],
        default_rank: 3,
        // On the shipped event models it reduces little and costs more time than `full`
        // (docs/strategies.md); on SmartApps it is what finishes Table A.1.
        not_default_on: &[ModelKind::Events],
        em_trace: Some(|| Box::new(stateful_dpor::StatefulDpor::new())),
        events: Some(|| Box::new(stateful_dpor::StatefulDpor::new())),
        smartapps: Some(|| Box::new(stateful_dpor::StatefulDpor::new())),
        ..BASE
    },
    Entry {
        name: "monitors",
        summary: "each state once, then conflicts per attribute",
        what: "SmartApps with conflicts observed: the system's states explored once with no conflict ghost stored, each attribute's conflicts then found on the product of that graph with its own monitor; the same findings as `full` (elsewhere it runs `full`)",
        paper: "the synchronous product of a system with monitors of a safety property (Vardi and Wolper, LICS 1986), one monitor per attribute (src/explore/monitors.rs)",
        parallel: &[ModelKind::SmartApps],
        all_cores: true,
        // The default only where it applies in full (`default_for_model`); elsewhere it is `full`.
        compare_on_request: true,
        smartapps: Some(|| Box::new(monitors::Monitors)),
        ..BASE
    },
    Entry {
        name: "em-dpor-sleep",
        summary: "em-dpor that skips orders already covered",
        what: "Android traces: `em-dpor` that also skips orders it has already covered (sleep sets)",
        paper: "Maiya et al., TACAS 2016, with Godefroid's sleep sets (docs/optimal.md)",
        stateless: true,
        em_trace: Some(|| Box::new(em_dpor_sleep::EmDporSleep)),
        ..BASE
    },
    Entry {
        name: "optimal",
        summary: "one run per distinct outcome",
        what: "Android traces: one run per distinct outcome, often far faster than `em-dpor`",
        paper:
            "reads-from enumeration as in RFSC (Abdulla et al., OOPSLA 2019), for fixed control flow (docs/optimal.md)",
        em_trace: Some(|| Box::new(reads_from::ReadsFrom)),
        // The default on EM traces: it finished every shipped EM input (docs/strategies.md)
        // and is orders of magnitude faster wherever em-dpor runs many executions.
        default_rank: 5,
        ..BASE
    },
];

/// A model type whose strategies the registry knows how to build.
pub trait Registered: Model + Sized {
    /// The kind of input this model type is built from.
    const KIND: ModelKind;
    /// This model type's builder in `entry`, if the strategy applies to it.
    fn builder(entry: &Entry) -> Build<Self>;
    /// The strategy that is best on this model as loaded, where that depends on its options
    /// more than the ranks say (None: [`default_for`]'s).
    fn preferred_strategy(&self) -> Option<&'static str> {
        None
    }
}

impl Registered for EmModel {
    const KIND: ModelKind = ModelKind::EmTrace;
    fn builder(entry: &Entry) -> Build<Self> {
        entry.em_trace
    }
}

impl Registered for EventModel {
    const KIND: ModelKind = ModelKind::Events;
    fn builder(entry: &Entry) -> Build<Self> {
        entry.events
    }
}

impl Registered for SmartAppModel {
    const KIND: ModelKind = ModelKind::SmartApps;
    fn builder(entry: &Entry) -> Build<Self> {
        entry.smartapps
    }
    /// With conflicts observed, `monitors`: it explores the system once and each attribute's
    /// ghost apart, where `stateful-dpor` stores every combination of the ghosts (the alarm home
    /// finishes with it and not with `stateful-dpor`: docs/reductions-homes.md).
    fn preferred_strategy(&self) -> Option<&'static str> {
        self.observes_conflicts().then_some("monitors")
    }
}

impl Entry {
    /// Builds this strategy for `M`, when it applies.
    pub fn build<M: Registered>(&self) -> Option<Box<dyn Strategy<M>>> {
        M::builder(self).map(|b| b())
    }

    pub fn applies_to<M: Registered>(&self) -> bool {
        M::builder(self).is_some()
    }

    /// Whether it can run on `model` as loaded (a stateless one needs paths that end).
    pub fn runs_on<M: Registered>(&self, model: &M) -> bool {
        self.applies_to::<M>() && (!self.stateless || model.paths_are_finite())
    }

    /// Whether `--threads N` makes it explore in parallel on inputs of `kind`.
    pub fn parallel_on(&self, kind: ModelKind) -> bool {
        self.parallel.contains(&kind)
    }

    /// Whether it reads ablation switch `switch` (`no-full-cycle` or `--no-full-cycle`).
    pub fn has_ablation(&self, switch: &str) -> bool {
        self.ablations.contains(&switch.trim_start_matches("--"))
    }

    /// The input kinds it applies to, for documentation (`--help`, README).
    pub fn kinds(&self) -> Vec<ModelKind> {
        let mut out = Vec::new();
        if self.em_trace.is_some() {
            out.push(ModelKind::EmTrace);
        }
        if self.events.is_some() {
            out.push(ModelKind::Events);
        }
        if self.smartapps.is_some() {
            out.push(ModelKind::SmartApps);
        }
        out
    }
}

/// The entry named `name`.
pub fn lookup(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.name == name)
}

/// The strategies that apply to model type `M`, in registry order.
pub fn applicable<M: Registered>() -> impl Iterator<Item = &'static Entry> {
    REGISTRY.iter().filter(|e| e.applies_to::<M>())
}

/// The best sound strategy for model type `M` (highest [`Entry::default_rank`]).
pub fn default_for<M: Registered>() -> &'static Entry {
    applicable::<M>()
        .filter(|e| !e.not_default_on.contains(&M::KIND))
        .max_by_key(|e| e.default_rank)
        .expect("every model type has a strategy")
}

/// The best sound strategy for `model` as loaded: its [`Registered::preferred_strategy`], else
/// [`default_for`]'s.
pub fn default_for_model<M: Registered>(model: &M) -> &'static Entry {
    model.preferred_strategy().and_then(lookup).filter(|e| e.applies_to::<M>()).unwrap_or_else(default_for::<M>)
}

/// The exhaustive strategies, in registry order (`full` first: it also handles cycles).
pub fn exhaustive() -> impl DoubleEndedIterator<Item = &'static Entry> {
    REGISTRY.iter().filter(|e| e.exhaustive)
}

/// `--strategy`'s help: the list of [`strategy_list`] under the default.
pub fn help() -> String {
    format!("Strategy (default: the best sound one for the input):\n{}", strategy_list(true))
}

/// The strategies as the commands' help lists them: one paragraph each, what it does for the
/// user and the paper it follows, under its name and, in brackets, the inputs it runs on and the
/// options it reads.
/// `dot`: whether the command has `--dot` (`compare` has not, so its list does not offer it).
pub fn strategy_list(dot: bool) -> String {
    let mut out = Vec::new();
    for e in REGISTRY {
        let mut notes: Vec<String> = e.kinds().into_iter().map(|k| k.as_str().to_string()).collect();
        if e.stateless && (e.events.is_some() || e.smartapps.is_some()) {
            notes.push("--bound on events and smartapps".into());
        }
        match e.parallel.len() {
            0 => {}
            n if n == ModelKind::ALL.len() => notes.push("--threads".into()),
            _ => notes
                .push(format!("--threads on {}", e.parallel.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", "))),
        }
        if e.all_cores {
            notes.push("every core by default on conflicts observed".into());
        }
        if e.hash_compact {
            notes.push("--hash-compact".into());
        }
        if e.records_graph && dot {
            notes.push("--dot".into());
        }
        if !e.ablations.is_empty() {
            notes.push(e.ablations.iter().map(|a| format!("--{a}")).collect::<Vec<_>>().join(" "));
        }
        let mut what = e.what.to_string();
        what[..1].make_ascii_uppercase();
        out.push(format!("  {:<15} [{}]\n      {what}. After {}.", e.name, notes.join("; "), e.paper));
    }
    out.join("\n")
}

const fn name_at(i: usize) -> &'static str {
    ENTRIES[i].name
}

/// The names, as an array computed from [`REGISTRY`] at compile time.
pub const NAMES: [&str; ENTRIES.len()] = {
    let mut out = [""; ENTRIES.len()];
    let mut i = 0;
    while i < ENTRIES.len() {
        out[i] = name_at(i);
        i += 1;
    }
    out
};
