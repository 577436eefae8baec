//! The lane diagram of an EM trace (`Model::lanes`, `Model::lane_marks`; `report/html`): a
//! lane per thread or looper, each operation a mark on its thread's lane, inside the box of the
//! handler it belongs to. A read-only view; no search uses it.

use super::{EmModel, EmState, Thread};
use crate::model::lane::{Lane, LaneKind, LaneMark};
use crate::model::Choice;
use crate::trace::em::OpKind;

impl EmModel {
    /// A lane per thread, a looper's marked as one.
    pub(super) fn thread_lanes(&self) -> Vec<Lane> {
        let lane = |t: &Thread| match t.loop_after {
            Some(_) => Lane { name: format!("thread {} (looper)", t.raw), kind: LaneKind::Looper },
            None => Lane { name: format!("thread {}", t.raw), kind: LaneKind::Thread },
        };
        self.threads.iter().map(lane).collect()
    }

    /// The operation step `c` runs, on its thread's lane, inside its handler's box.
    pub(super) fn op_marks(&self, s: &EmState, c: Choice, out: &mut Vec<LaneMark>) {
        let Some(op) = self.next_op(s, c) else { return };
        let o = &self.trace.ops[op as usize];
        let text = self.op_text(op);
        let body = text.split_once(": ").map_or(text.as_str(), |(_, b)| b);
        let short = match o.kind {
            OpKind::Read { loc } => format!("R {}", self.trace.location_name(loc)),
            OpKind::Write { loc } => format!("W {}", self.trace.location_name(loc)),
            _ => body.to_string(),
        };
        let access = match o.kind {
            OpKind::Read { loc } => Some((self.trace.location_name(loc), false)),
            OpKind::Write { loc } => Some((self.trace.location_name(loc), true)),
            _ => None,
        };
        let task = self.op_task[op as usize] as usize;
        let handler = task
            .checked_sub(self.threads.len())
            .map(|m| (format!("handler of msg {}", self.trace.messages[m]), Some(m as u64)));
        out.push(LaneMark {
            lane: self.op_thread[op as usize] as usize,
            handler,
            label: format!("{} {short}", o.index),
            text,
            op: Some(o.index),
            access,
        });
    }
}
