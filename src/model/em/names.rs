//! Operations of an EM trace named as the trace names them ([`OpRef`]): its line, thread (the
//! looper, for a handler's operation), handler, operation and location. Every report that
//! points at an operation (races, outcomes explained, deadlocks) names it this way
//! (docs/races.md, "What each report names").

use serde::Serialize;

use super::EmModel;
use crate::trace::em::OpKind;

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
    /// For a LOCK or UNLOCK: the lock, as the trace names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
}

impl EmModel {
    /// `op` named as the trace names it.
    pub fn op_ref(&self, op: u32) -> OpRef {
        let o = &self.trace.ops[op as usize];
        let nt = self.threads.len() as u32;
        let task = self.op_task[op as usize];
        let handler = task.checked_sub(nt).map(|m| self.trace.messages[m as usize]);
        let (kind, location) = match o.kind {
            OpKind::Read { loc } | OpKind::Write { loc } => {
                let st = if self.trace.locations[loc as usize].is_static { "-STATIC" } else { "" };
                let rw = if matches!(o.kind, OpKind::Read { .. }) { "READ" } else { "WRITE" };
                (format!("{rw}{st}"), Some(self.trace.location_full_name(loc)))
            }
            _ => {
                let text = self.op_text(op);
                let body = text.split_once(": ").map_or(text.as_str(), |x| x.1).to_string();
                (body.split(' ').next().unwrap_or("").to_string(), None)
            }
        };
        let lock = match o.kind {
            OpKind::Lock { lock } | OpKind::Unlock { lock } => Some(self.trace.symbol(lock).to_string()),
            _ => None,
        };
        OpRef { index: o.index, line: o.line, thread: o.tid, handler, kind, location, lock }
    }
}

impl OpRef {
    /// `READ of C.f of 0x1 at line 97 (thread 3, handler 12)`.
    pub fn describe(&self) -> String {
        format!("{} at line {} ({})", self.what(), self.line, self.place())
    }

    /// The operation and what it touches: `READ of C.f of 0x1`, `LOCK 0xa`, `POST`.
    pub fn what(&self) -> String {
        match (&self.location, &self.lock) {
            (Some(l), _) => format!("{} of {l}", self.kind),
            (None, Some(l)) => format!("{} {l}", self.kind),
            (None, None) => self.kind.clone(),
        }
    }

    /// `thread 3, handler 12` or `thread 3`.
    pub fn place(&self) -> String {
        match self.handler {
            Some(h) => format!("thread {}, handler {h}", self.thread),
            None => format!("thread {}", self.thread),
        }
    }

    /// `line 64 (thread 2)`.
    pub fn short(&self) -> String {
        format!("line {} ({})", self.line, self.place())
    }
}
