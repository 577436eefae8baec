//! What one step of a schedule does, lane by lane, for the lane diagrams of `report/html`:
//! the lanes of a model (a thread or looper of an EM trace, an app of an event
//! model or of SmartApps, the environment that fires events) and, per step, the marks it puts
//! on them (an operation, an access, a handler started), each inside the handler that runs it.
//! Read-only views of the model; no search uses them.

/// What a lane stands for, which decides how it is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LaneKind {
    /// A thread without a message queue (EM traces).
    Thread,
    /// A thread that loops over its queue, running handlers (EM traces).
    Looper,
    /// An app (event models, SmartApps).
    App,
    /// The environment: the hub that fires the events a schedule names.
    Environment,
    /// Several lanes folded into one in a wide diagram (report/html/lanes.rs): those that take
    /// no part in the pair it is about.
    Folded,
}

/// One lane of a diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    pub name: String,
    pub kind: LaneKind,
}

/// One mark a step puts on a lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneMark {
    /// Index into [`crate::model::Model::lanes`].
    pub lane: usize,
    /// The handler running it (a box on the lane), if any: its name, and an id that is the
    /// same for every mark of one run of it across steps (an EM message), or `None` when a run
    /// ends with its step (an event's handlers).
    pub handler: Option<(String, Option<u64>)>,
    /// A few words for the mark itself (`W Foo.bar`, `POST m3`).
    pub label: String,
    /// The whole description (shown as a tooltip).
    pub text: String,
    /// The operation's number in the trace (EM traces), which race reports name.
    pub op: Option<u32>,
    /// The object accessed and whether it was written, when the mark is an access.
    pub access: Option<(String, bool)>,
}
