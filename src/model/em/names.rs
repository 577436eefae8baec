//! Operations of an EM trace named as the trace names them ([`OpRef`]): its line, thread (the
//! looper, for a handler's operation), handler, operation and location. Every report that
//! points at an operation (races, outcomes explained, deadlocks) names it this way
//! (docs/races.md, "What each report names").

use std::fmt::Write;

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
    /// When the trace was converted from DroidRacer's `abc_log.txt`: the operation there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<LogRef>,
}

/// An operation as DroidRacer's `abc_log.txt` has it (before the conversion renumbers threads,
/// messages and lines: docs/abc-log.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogRef {
    /// Its line in the log; none for an operation the conversion added.
    pub line: Option<u32>,
    /// The log's `tid` of the thread running it.
    pub thread: u64,
    /// The log's `msg` of the handler running it.
    pub handler: Option<u64>,
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
                let kind = match (matches!(o.kind, OpKind::Read { .. }), self.trace.locations[loc as usize].is_static) {
                    (true, false) => "READ",
                    (true, true) => "READ-STATIC",
                    (false, false) => "WRITE",
                    (false, true) => "WRITE-STATIC",
                };
                (kind.to_string(), Some(self.trace.location_full_name(loc)))
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
        let log = self.trace.origin.as_ref().map(|g| LogRef {
            line: g.lines.get(o.line as usize).copied().filter(|&l| l != 0),
            thread: g.threads.get(o.tid as usize).copied().unwrap_or(o.tid as u64),
            handler: handler.map(|m| g.messages.get(m as usize).copied().unwrap_or(m)),
        });
        OpRef { index: o.index, line: o.line, thread: o.tid, handler, kind, location, lock, log }
    }
}

impl OpRef {
    /// `READ of C.f of 0x1 at line 97 (thread 3, handler 12)`.
    pub fn describe(&self) -> String {
        let mut out = String::with_capacity(96);
        self.write_what(&mut out);
        let _ = write!(out, " at line {} (", self.line);
        self.write_place(&mut out);
        out.push(')');
        out
    }

    /// The operation and what it touches: `READ of C.f of 0x1`, `LOCK 0xa`, `POST`.
    pub fn what(&self) -> String {
        let mut out = String::new();
        self.write_what(&mut out);
        out
    }

    /// `thread 3, handler 12` or `thread 3`, and where a log has it (`; log line 1234, tid 1,
    /// msg 77`).
    pub fn place(&self) -> String {
        let mut out = String::new();
        self.write_place(&mut out);
        out
    }

    /// `; log line 1234, tid 1, msg 77` when the trace was converted from a log; empty otherwise.
    pub fn in_log(&self) -> String {
        let mut out = String::new();
        self.write_in_log(&mut out);
        out
    }

    /// `line 64 (thread 2)`.
    pub fn short(&self) -> String {
        let mut out = String::with_capacity(32);
        self.write_short(&mut out);
        out
    }

    // The texts above are written into one buffer each, not formatted from each other's: the
    // race report builds thousands of them (docs/races.md, "Scale").

    fn write_what(&self, out: &mut String) {
        out.push_str(&self.kind);
        match (&self.location, &self.lock) {
            (Some(l), _) => {
                out.push_str(" of ");
                out.push_str(l);
            }
            (None, Some(l)) => {
                out.push(' ');
                out.push_str(l);
            }
            (None, None) => {}
        }
    }

    fn write_place(&self, out: &mut String) {
        let _ = write!(out, "thread {}", self.thread);
        if let Some(h) = self.handler {
            let _ = write!(out, ", handler {h}");
        }
        self.write_in_log(out);
    }

    fn write_in_log(&self, out: &mut String) {
        let Some(g) = &self.log else { return };
        match g.line {
            Some(l) => {
                let _ = write!(out, "; log line {l}");
            }
            None => out.push_str("; added by the conversion"),
        }
        let _ = write!(out, ", tid {}", g.thread);
        if let Some(m) = g.handler {
            let _ = write!(out, ", msg {m}");
        }
    }

    /// [`OpRef::short`] at the end of `out`.
    pub fn write_short(&self, out: &mut String) {
        let _ = write!(out, "line {} (", self.line);
        self.write_place(out);
        out.push(')');
    }
}
