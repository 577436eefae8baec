//! Writing the converted trace as EM-Explorer's `trace.txt` and `dependence.txt`, with threads
//! and messages renumbered densely (EM-Explorer's RenumberThreadsTool does this after
//! DroidRacer): threads that have a THREADINIT by their sorted raw id, messages that are
//! CALLed by their sorted raw id, both from 1.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use super::convert::{handlers, Converted, Emitted};
use super::read::{AbcLog, LogLine};
use crate::trace::em::LogOrigin;
use crate::trace::InputError;

fn num(l: &LogLine, key: &str) -> u64 {
    l.get(key).and_then(|f| std::str::from_utf8(f.value).ok()?.parse().ok()).unwrap_or(0)
}

/// The text of both files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmFiles {
    pub trace: String,
    pub dependence: String,
    /// Where the trace's lines, threads and messages come from in the log.
    pub origin: LogOrigin,
}

/// What a report says of a log cut short at `line` (docs/abc-log.md, "A log cut short").
fn cut_warning(file: &std::path::Path, line: usize, closed: super::convert::Closed) -> String {
    let mut what = Vec::new();
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if closed.calls > 0 {
        what.push(plural(
            closed.calls,
            "handler still running closed by a RET",
            "handlers still running closed by a RET",
        ));
    }
    if closed.locks > 0 {
        what.push(plural(closed.locks, "lock still held released", "locks still held released"));
    }
    if closed.forks > 0 {
        what.push(plural(
            closed.forks,
            "FORK of a thread not started yet dropped",
            "FORKs of threads not started yet dropped",
        ));
    }
    let closed = if what.is_empty() { String::new() } else { format!(" ({})", what.join(", ")) };
    format!(
        "{}: the log stops at line {line}, with no DroidRacer report after it: a recording cut short, explored as the prefix it holds{closed}",
        file.display()
    )
}

/// Renumbers and writes a converted log.
pub fn write(log: &AbcLog, c: &Converted) -> Result<EmFiles, InputError> {
    let line = |i: usize| &log.lines[i];
    let mut threads: Vec<u64> = Vec::new();
    let mut msgs: Vec<u64> = Vec::new();
    for e in &c.ops {
        match e {
            Emitted::Log(i) if line(*i).op == b"THREADINIT" => threads.push(num(line(*i), "tid")),
            Emitted::Log(i) if line(*i).op == b"CALL" => msgs.push(num(line(*i), "msg")),
            Emitted::ThreadInit(t) => threads.push(*t as u64),
            _ => {}
        }
    }
    threads.sort_unstable();
    threads.dedup();
    msgs.sort_unstable();
    msgs.dedup();
    let thread_no: FxHashMap<u64, usize> = threads.iter().enumerate().map(|(i, &t)| (t, i + 1)).collect();
    let msg_no: FxHashMap<u64, usize> = msgs.iter().enumerate().map(|(i, &m)| (m, i + 1)).collect();
    let dest = handlers(log);
    let t = |raw: u64, at: Option<&LogLine>| -> Result<usize, InputError> {
        thread_no.get(&raw).copied().ok_or_else(|| match at {
            Some(l) => InputError::at(
                log.file,
                l.line as usize,
                l.op_col as usize,
                &String::from_utf8_lossy(l.op),
                format!("thread {raw} has no THREADINIT in the converted trace"),
            ),
            None => InputError::file(log.file, format!("thread {raw} has no THREADINIT in the converted trace")),
        })
    };
    let m = |raw: u64, l: &LogLine| -> Result<usize, InputError> {
        msg_no.get(&raw).copied().ok_or_else(|| {
            InputError::at(
                log.file,
                l.line as usize,
                l.op_col as usize,
                &String::from_utf8_lossy(l.op),
                format!("message {raw} is never handled"),
            )
        })
    };
    let post = |out: &mut String, kind: &str, src: usize, l: &LogLine| -> Result<(), InputError> {
        let raw = num(l, "msg");
        let d = dest.get(&raw).copied().unwrap_or(0) as u64;
        write!(out, "{kind} src:{src} msg:{} dest:{}", m(raw, l)?, t(d, Some(l))?).ok();
        Ok(())
    };
    let mut out = String::with_capacity(c.ops.len() * 48);
    let mut origin = LogOrigin {
        lines: vec![0; c.ops.len() + 1],
        threads: std::iter::once(0).chain(threads.iter().copied()).collect(),
        messages: std::iter::once(0).chain(msgs.iter().copied()).collect(),
        cut: log.cut_at.map(|line| cut_warning(log.file, line, c.closed)),
    };
    for (k, e) in c.ops.iter().enumerate() {
        origin.lines[k + 1] = match e {
            Emitted::Log(i) | Emitted::Access(i) => log.lines[*i].line,
            // A rewritten post stands for the log's POST.
            Emitted::EnvPost { line: i, .. } | Emitted::DelayPost { line: i, .. } => log.lines[*i].line,
            _ => 0,
        };
        write!(out, "{} ", k + 1).ok();
        match e {
            Emitted::Log(i) | Emitted::Access(i) => {
                let l = line(*i);
                let op = String::from_utf8_lossy(l.op);
                match l.op {
                    b"START" => out.push_str("START"),
                    b"FORK" => {
                        write!(
                            out,
                            "FORK par-tid:{} child-tid:{}",
                            t(num(l, "par-tid"), Some(l))?,
                            t(num(l, "child-tid"), Some(l))?
                        )
                        .ok();
                    }
                    b"NOTIFY" => {
                        write!(
                            out,
                            "NOTIFY tid:{} notifiedTid:{}",
                            t(num(l, "tid"), Some(l))?,
                            t(num(l, "notifiedTid"), Some(l))?
                        )
                        .ok();
                    }
                    b"POST" => post(&mut out, "POST", t(num(l, "src"), Some(l))?, l)?,
                    b"CALL" | b"RET" => {
                        write!(out, "{op} tid:{} msg:{}", t(num(l, "tid"), Some(l))?, m(num(l, "msg"), l)?).ok();
                    }
                    b"LOOP" => {
                        write!(out, "LOOP tid:{}", t(num(l, "tid"), Some(l))?).ok();
                    }
                    _ => {
                        write!(out, "{op} tid:{}", t(num(l, "tid"), Some(l))?).ok();
                        let lifecycle = l.op.ends_with(b"-LIFECYCLE");
                        for f in l.fields().filter(|f| f.key != b"tid") {
                            let v = if lifecycle && f.key == b"component" { &b"dummy"[..] } else { f.value };
                            write!(out, " {}:{}", String::from_utf8_lossy(f.key), String::from_utf8_lossy(v)).ok();
                        }
                    }
                }
            }
            Emitted::Nop(tid) => {
                write!(out, "NOP tid:{}", t(*tid as u64, None)?).ok();
            }
            Emitted::EnvPost { src, native, line: i } => {
                post(&mut out, if *native { "NATIVE-POST" } else { "UI-POST" }, t(*src as u64, None)?, line(*i))?
            }
            Emitted::DelayPost { src, line: i } => post(&mut out, "DELAY-POST", t(*src as u64, None)?, line(*i))?,
            Emitted::Fork { parent, child } => {
                write!(out, "FORK par-tid:{} child-tid:{}", t(*parent as u64, None)?, t(*child as u64, None)?).ok();
            }
            Emitted::ThreadInit(tid) => {
                write!(out, "THREADINIT tid:{}", t(*tid as u64, None)?).ok();
            }
            Emitted::ThreadExit(tid) => {
                write!(out, "THREADEXIT tid:{}", t(*tid as u64, None)?).ok();
            }
            Emitted::Unlock(i) => {
                let l = line(*i);
                write!(
                    out,
                    "UNLOCK tid:{} lock-obj:{}",
                    t(num(l, "tid"), Some(l))?,
                    String::from_utf8_lossy(l.get("lock-obj").map_or(&[][..], |f| f.value))
                )
                .ok();
            }
            Emitted::Ret(i) => {
                let l = line(*i);
                write!(out, "RET tid:{} msg:{}", t(num(l, "tid"), Some(l))?, m(num(l, "msg"), l)?).ok();
            }
        }
        out.push('\n');
    }
    let mut dependence = String::new();
    for (s, d) in &c.edges {
        writeln!(dependence, "src:{} dest:{}", s + 1, d + 1).ok();
    }
    Ok(EmFiles { trace: out, dependence, origin })
}
