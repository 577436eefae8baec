//! The EM trace language of DroidRacer / EM-Explorer (`trace.txt`, `dependence.txt`), see
//! shared/spec/em-trace.md. Lines are `<index> <OP> key:value ...`; names (objects, classes,
//! fields, locks) are interned once so that later stages compare integers.

use std::path::{Path, PathBuf};

use nom::bytes::complete::{tag, take_till, take_while1};
use nom::character::complete::{digit1, space0, space1};
use nom::IResult;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::InputError;

/// An interned name.
pub type Sym = u32;

/// Which environment a post comes from (all behave alike; kept for reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostKind {
    Post,
    Native,
    Ui,
    Delay,
}

/// What an ENABLE-* / TRIGGER-* operation refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvKind {
    Lifecycle,
    Event,
    WindowFocus,
    Service,
    Broadcast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    ThreadInit,
    ThreadExit,
    /// Creates thread `child` (a raw thread id).
    Fork {
        child: u32,
    },
    Nop,
    Wait,
    /// Releases one WAIT of thread `target` (raw id).
    Notify {
        target: u32,
    },
    Lock {
        lock: Sym,
    },
    Unlock {
        lock: Sym,
    },
    AttachQ {
        queue: Sym,
    },
    Loop,
    /// Enqueues message `msg` (dense id) on thread `dest`'s queue.
    Post {
        kind: PostKind,
        msg: u32,
        dest: u32,
    },
    /// The looper dequeues `msg` and starts its handler.
    Call {
        msg: u32,
    },
    Ret {
        msg: u32,
    },
    Read {
        loc: u32,
    },
    Write {
        loc: u32,
    },
    /// `key` interns what is matched: (id, state) for lifecycles, (view, event), window hash ...
    Enable {
        env: EnvKind,
        key: Sym,
    },
    Trigger {
        env: EnvKind,
        key: Sym,
    },
}

/// One operation of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    /// The trace's own operation number (what outcomes print).
    pub index: u32,
    /// Line in trace.txt.
    pub line: u32,
    /// Raw thread id performing it (`tid`, or `src` for posts, `par-tid` for forks).
    pub tid: u32,
    pub kind: OpKind,
}

/// A memory location: (object, field) for heap accesses, (class, field) for static ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub base: Sym,
    pub field: Sym,
    pub is_static: bool,
}

/// A parsed trace with its dependence edges.
#[derive(Clone, Debug, Default)]
pub struct EmTrace {
    pub file: PathBuf,
    /// Operations in recorded order (START excluded).
    pub ops: Vec<Op>,
    /// Extra happens-before edges from dependence.txt, as positions in `ops` (src, dest).
    pub dependence: Vec<(u32, u32)>,
    /// The dependence file and the line of each edge in `dependence`, to report a bad edge at.
    pub dependence_file: PathBuf,
    pub dependence_lines: Vec<u32>,
    pub symbols: Vec<String>,
    pub locations: Vec<Location>,
    /// Per location: the class its first access names (`class:`; for a static, its base), so
    /// that reports name a location as the trace does.
    pub location_class: Vec<Sym>,
    /// Raw message id of each dense message id.
    pub messages: Vec<u64>,
    /// When the trace is the conversion of DroidRacer's `abc_log.txt`: where each of its lines
    /// came from, so that reports name operations in the log's terms too.
    pub origin: Option<LogOrigin>,
}

/// Where a converted trace's lines, threads and messages come from in `abc_log.txt`
/// (docs/abc-log.md: threads and messages are renumbered, lines numbered from 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogOrigin {
    /// Per line of the converted trace (from 1; entry 0 unused): the log's line, 0 for an
    /// operation the conversion added (a NOP, FORK, THREADINIT or THREADEXIT of a fresh thread,
    /// an UNLOCK or RET closing the log).
    pub lines: Vec<u32>,
    /// Per thread id of the converted trace (from 1; entry 0 unused): the log's `tid` (a fresh
    /// thread's id lies above every recorded one).
    pub threads: Vec<u64>,
    /// Per message id of the converted trace (from 1; entry 0 unused): the log's `msg`.
    pub messages: Vec<u64>,
    /// When the log was cut short (no DroidRacer report after its operations): where it stops
    /// and what the conversion closed, as a warning reports say.
    pub cut: Option<String>,
}

impl EmTrace {
    pub fn symbol(&self, s: Sym) -> &str {
        &self.symbols[s as usize]
    }

    /// Position in `ops` of the operation numbered `index`.
    pub fn position(&self, index: u32) -> Option<usize> {
        self.ops.binary_search_by_key(&index, |o| o.index).ok()
    }

    pub fn location_name(&self, loc: u32) -> String {
        let l = self.locations[loc as usize];
        format!("{}.{}", self.symbol(l.base), self.symbol(l.field))
    }

    /// The location as the trace names it: `CLASS.FIELD` for a static, `CLASS.FIELD of OBJECT`
    /// for an object's field (the class its first access names).
    pub fn location_full_name(&self, loc: u32) -> String {
        let l = self.locations[loc as usize];
        let class = self.location_class.get(loc as usize).map_or("?", |&c| self.symbol(c));
        // Pieces pushed, not formatted: the race report names thousands of locations.
        let field = self.symbol(l.field);
        let base = if l.is_static { "" } else { self.symbol(l.base) };
        let mut name = String::with_capacity(class.len() + field.len() + base.len() + 5);
        name.push_str(class);
        name.push('.');
        name.push_str(field);
        if !l.is_static {
            name.push_str(" of ");
            name.push_str(base);
        }
        name
    }
}

#[derive(Default)]
struct Interner {
    map: FxHashMap<String, Sym>,
    names: Vec<String>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> Sym {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = self.names.len() as Sym;
        self.map.insert(s.to_owned(), id);
        self.names.push(s.to_owned());
        id
    }
}

/// One `key:value` field with the column where its value starts.
struct Field<'a> {
    key: &'a [u8],
    value: &'a [u8],
    col: usize,
}

struct Line<'a> {
    index: &'a [u8],
    op: &'a [u8],
    op_col: usize,
    fields: SmallVec<[Field<'a>; 6]>,
}

fn key_value(input: &[u8]) -> IResult<&[u8], (&[u8], &[u8])> {
    let (input, key) = take_while1(|c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')(input)?;
    let (input, _) = tag(":")(input)?;
    let (input, value) = take_till(|c: u8| c == b' ' || c == b'\t')(input)?;
    Ok((input, (key, value)))
}

fn op_name(input: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while1(|c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')(input)
}

/// Splits a line into index, operation name and fields; on failure, the column and text at fault.
fn split_line(line: &[u8]) -> Result<Line<'_>, (usize, &'static str)> {
    let col = |rest: &[u8]| line.len() - rest.len() + 1;
    let (rest, index) = digit1::<_, nom::error::Error<&[u8]>>(line).map_err(|_| (1, "expected an operation index"))?;
    let (rest, _) = space1::<_, nom::error::Error<&[u8]>>(rest)
        .map_err(|_| (col(rest), "expected a space after the operation index"))?;
    let op_col = col(rest);
    let (mut rest, op) = op_name(rest).map_err(|_| (op_col, "expected an operation name"))?;
    let mut fields = SmallVec::new();
    loop {
        let (r, _) = space0::<_, nom::error::Error<&[u8]>>(rest).unwrap_or((rest, &[][..]));
        if r.is_empty() {
            break;
        }
        if r.len() == rest.len() {
            return Err((col(rest), "expected a space between fields"));
        }
        let at = col(r);
        let (r2, (key, value)) = key_value(r).map_err(|_| (at, "expected a `key:value` field"))?;
        fields.push(Field { key, value, col: at + key.len() + 1 });
        rest = r2;
    }
    Ok(Line { index, op, op_col, fields })
}

/// Everything the parser needs while reading one trace.
struct Parser<'p> {
    file: &'p Path,
    line_no: usize,
    text: &'p [u8],
    symbols: Interner,
    locations: FxHashMap<Location, u32>,
    location_list: Vec<Location>,
    location_class: Vec<Sym>,
    messages: FxHashMap<u64, u32>,
    message_raw: Vec<u64>,
    /// Per dense message: (posted, called, returned) and the handling thread.
    message_state: Vec<(bool, bool, bool, u32)>,
    /// Raw thread id -> message whose handler it is running.
    running: FxHashMap<u32, u32>,
}

impl<'p> Parser<'p> {
    fn err(&self, col: usize, text: &[u8], msg: impl Into<String>) -> InputError {
        InputError::at(self.file, self.line_no, col, &String::from_utf8_lossy(text), msg)
    }

    fn field<'a, 'l>(&self, line: &'l Line<'a>, key: &str) -> Result<&'l Field<'a>, InputError> {
        line.fields.iter().find(|f| f.key == key.as_bytes()).ok_or_else(|| {
            self.err(
                self.text.len() + 1,
                line.op,
                format!("missing field `{key}` for {}", String::from_utf8_lossy(line.op)),
            )
        })
    }

    fn number(&self, line: &Line, key: &str) -> Result<u64, InputError> {
        let f = self.field(line, key)?;
        parse_number(f.value).ok_or_else(|| self.err(f.col, f.value, format!("bad number in field `{key}`")))
    }

    fn thread(&self, line: &Line, key: &str) -> Result<u32, InputError> {
        let f = self.field(line, key)?;
        parse_number(f.value)
            .filter(|&n| n <= u32::MAX as u64)
            .map(|n| n as u32)
            .ok_or_else(|| self.err(f.col, f.value, format!("bad thread id in field `{key}`")))
    }

    fn name(&mut self, line: &Line, key: &str) -> Result<Sym, InputError> {
        let f = self.field(line, key)?;
        let s = std::str::from_utf8(f.value)
            .map_err(|_| self.err(f.col, f.value, format!("field `{key}` is not UTF-8")))?;
        Ok(self.symbols.intern(s))
    }

    fn location(&mut self, base: Sym, field: Sym, is_static: bool, class: Sym) -> u32 {
        let loc = Location { base, field, is_static };
        if let Some(&id) = self.locations.get(&loc) {
            return id;
        }
        let id = self.location_list.len() as u32;
        self.locations.insert(loc, id);
        self.location_list.push(loc);
        self.location_class.push(class);
        id
    }

    fn message(&mut self, raw: u64) -> u32 {
        *self.messages.entry(raw).or_insert_with(|| {
            self.message_raw.push(raw);
            self.message_state.push((false, false, false, 0));
            (self.message_raw.len() - 1) as u32
        })
    }

    /// Checks the handler structure: posts before calls, one call per message, RET closes CALL.
    fn handler_structure(&mut self, line: &Line, tid: u32, kind: OpKind) -> Result<(), InputError> {
        let msg_field = |p: &Self| p.field(line, "msg").map(|f| (f.col, f.value));
        match kind {
            OpKind::Post { msg, dest, .. } => {
                let (col, text) = msg_field(self)?;
                let st = &mut self.message_state[msg as usize];
                if st.0 {
                    return Err(self.err(col, text, "message posted twice"));
                }
                st.0 = true;
                st.3 = dest;
            }
            OpKind::Call { msg } => {
                let (col, text) = msg_field(self)?;
                let (posted, called, _, dest) = self.message_state[msg as usize];
                if !posted {
                    return Err(self.err(col, text, "CALL of a message that was never posted"));
                }
                if called {
                    return Err(self.err(col, text, "message handled twice"));
                }
                if dest != tid {
                    return Err(self.err(
                        col,
                        text,
                        format!("message was posted to thread {dest}, handled by thread {tid}"),
                    ));
                }
                if let Some(&other) = self.running.get(&tid) {
                    return Err(self.err(
                        col,
                        text,
                        format!("CALL inside the handler of message {}", self.message_raw[other as usize]),
                    ));
                }
                self.message_state[msg as usize].1 = true;
                self.running.insert(tid, msg);
            }
            OpKind::Ret { msg } => {
                let (col, text) = msg_field(self)?;
                if self.running.get(&tid) != Some(&msg) {
                    return Err(self.err(col, text, "RET without a matching CALL on this thread"));
                }
                self.running.remove(&tid);
                self.message_state[msg as usize].2 = true;
            }
            _ => {}
        }
        Ok(())
    }

    fn operation(&mut self, line: &Line, index: u32) -> Result<Option<Op>, InputError> {
        let op_text = line.op;
        let (tid_key, kind) = match op_text {
            b"START" => return Ok(None),
            b"THREADINIT" => ("tid", OpKind::ThreadInit),
            b"THREADEXIT" => ("tid", OpKind::ThreadExit),
            b"FORK" => ("par-tid", OpKind::Fork { child: self.thread(line, "child-tid")? }),
            b"NOP" => ("tid", OpKind::Nop),
            b"WAIT" => ("tid", OpKind::Wait),
            b"NOTIFY" => ("tid", OpKind::Notify { target: self.thread(line, "notifiedTid")? }),
            b"LOCK" => ("tid", OpKind::Lock { lock: self.name(line, "lock-obj")? }),
            b"UNLOCK" => ("tid", OpKind::Unlock { lock: self.name(line, "lock-obj")? }),
            b"ATTACH-Q" => ("tid", OpKind::AttachQ { queue: self.name(line, "queue")? }),
            b"LOOP" => ("tid", OpKind::Loop),
            b"POST" | b"NATIVE-POST" | b"UI-POST" | b"DELAY-POST" => {
                let kind = match op_text {
                    b"POST" => PostKind::Post,
                    b"NATIVE-POST" => PostKind::Native,
                    b"UI-POST" => PostKind::Ui,
                    _ => PostKind::Delay,
                };
                let msg = self.number(line, "msg")?;
                let msg = self.message(msg);
                ("src", OpKind::Post { kind, msg, dest: self.thread(line, "dest")? })
            }
            b"CALL" | b"RET" => {
                let raw = self.number(line, "msg")?;
                let msg = self.message(raw);
                ("tid", if op_text == b"CALL" { OpKind::Call { msg } } else { OpKind::Ret { msg } })
            }
            b"READ" | b"WRITE" => {
                let base = self.name(line, "obj")?;
                let class = self.name(line, "class")?;
                let field = self.name(line, "field")?;
                let loc = self.location(base, field, false, class);
                ("tid", if op_text == b"READ" { OpKind::Read { loc } } else { OpKind::Write { loc } })
            }
            b"READ-STATIC" | b"WRITE-STATIC" => {
                let base = self.name(line, "class")?;
                let field = self.name(line, "field")?;
                let loc = self.location(base, field, true, base);
                ("tid", if op_text == b"READ-STATIC" { OpKind::Read { loc } } else { OpKind::Write { loc } })
            }
            b"ENABLE-LIFECYCLE" | b"TRIGGER-LIFECYCLE" => {
                self.field(line, "component")?;
                let key = self.joined_key(line, &["id", "state"])?;
                let env = EnvKind::Lifecycle;
                ("tid", if op_text[0] == b'E' { OpKind::Enable { env, key } } else { OpKind::Trigger { env, key } })
            }
            b"ENABLE-EVENT" | b"TRIGGER-EVENT" => {
                let key = self.joined_key(line, &["view", "event"])?;
                let env = EnvKind::Event;
                ("tid", if op_text[0] == b'E' { OpKind::Enable { env, key } } else { OpKind::Trigger { env, key } })
            }
            b"ENABLE-WINDOW-FOCUS" | b"TRIGGER-WINDOW-FOCUS" => {
                let key = self.joined_key(line, &["windowHash"])?;
                let env = EnvKind::WindowFocus;
                ("tid", if op_text[0] == b'E' { OpKind::Enable { env, key } } else { OpKind::Trigger { env, key } })
            }
            b"TRIGGER-SERVICE" => {
                ("tid", OpKind::Trigger { env: EnvKind::Service, key: self.joined_key(line, &["component"])? })
            }
            b"TRIGGER-BROADCAST" => {
                ("tid", OpKind::Trigger { env: EnvKind::Broadcast, key: self.joined_key(line, &["action"])? })
            }
            _ => return Err(self.err(line.op_col, op_text, "unknown operation")),
        };
        let tid = self.thread(line, tid_key)?;
        self.handler_structure(line, tid, kind)?;
        Ok(Some(Op { index, line: self.line_no as u32, tid, kind }))
    }

    /// Interns the values of `keys`, joined, as one matching key.
    fn joined_key(&mut self, line: &Line, keys: &[&str]) -> Result<Sym, InputError> {
        let mut joined = String::new();
        for k in keys {
            let f = self.field(line, k)?;
            let s = std::str::from_utf8(f.value)
                .map_err(|_| self.err(f.col, f.value, format!("field `{k}` is not UTF-8")))?;
            if !joined.is_empty() {
                joined.push('/');
            }
            joined.push_str(s);
        }
        Ok(self.symbols.intern(&joined))
    }
}

fn parse_number(text: &[u8]) -> Option<u64> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Lines of a file with their 1-based numbers, `\r` and surrounding blanks trimmed.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    bytes.split(|&b| b == b'\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l).trim_ascii_end()))
}

/// Parses a trace.txt. Lines that do not start with a digit are ignored (em-trace.md).
pub fn parse_trace(file: &Path, bytes: &[u8]) -> Result<EmTrace, InputError> {
    let mut p = Parser {
        file,
        line_no: 0,
        text: &[],
        symbols: Interner::default(),
        locations: FxHashMap::default(),
        location_list: Vec::new(),
        location_class: Vec::new(),
        messages: FxHashMap::default(),
        message_raw: Vec::new(),
        message_state: Vec::new(),
        running: FxHashMap::default(),
    };
    let mut ops = Vec::with_capacity(bytes.len() / 40);
    let mut last_index = 0u64;
    for (no, raw) in lines(bytes) {
        let line = raw.trim_ascii_start();
        if !line.first().is_some_and(u8::is_ascii_digit) {
            continue;
        }
        p.line_no = no;
        p.text = raw;
        let indent = raw.len() - line.len();
        let parsed = split_line(line).map_err(|(col, msg)| {
            let at = col - 1;
            let text = &line[at.min(line.len())..];
            let text = text.split(|&b| b == b' ').next().unwrap_or(text);
            p.err(col + indent, if text.is_empty() { line } else { text }, msg)
        })?;
        let index = parse_number(parsed.index)
            .filter(|&n| n <= u32::MAX as u64)
            .ok_or_else(|| p.err(1 + indent, parsed.index, "bad operation index"))?;
        if index <= last_index {
            return Err(p.err(
                1 + indent,
                parsed.index,
                format!("operation index not increasing (previous was {last_index})"),
            ));
        }
        last_index = index;
        if let Some(op) = p.operation(&parsed, index as u32)? {
            ops.push(op);
        }
    }
    if ops.is_empty() {
        // Lines that do not start with an operation number are skipped (headers, notes), so a
        // file of only those, or some other file, would otherwise be an empty program, explored
        // and reported clean: a silently wrong result.
        let (no, raw) = lines(bytes).find(|(_, l)| !l.trim_ascii().is_empty()).unwrap_or((1, &[]));
        p.line_no = no;
        let text = raw.trim_ascii();
        let shown = text.split(|&b| b == b' ').next().unwrap_or(text);
        return Err(p.err(
            1 + raw.len() - raw.trim_ascii_start().len(),
            shown,
            "no operations: not a trace (expected lines `N OPERATION field:value ...`)",
        ));
    }
    Ok(EmTrace {
        file: file.to_path_buf(),
        ops,
        dependence: Vec::new(),
        dependence_file: PathBuf::new(),
        dependence_lines: Vec::new(),
        symbols: p.symbols.names,
        locations: p.location_list,
        location_class: p.location_class,
        messages: p.message_raw,
        origin: None,
    })
}

/// Parses a dependence.txt (`src:<index> dest:<index>` per line) against `trace`.
pub fn parse_dependence(file: &Path, bytes: &[u8], trace: &mut EmTrace) -> Result<(), InputError> {
    trace.dependence_file = file.to_path_buf();
    for (no, raw) in lines(bytes) {
        let line = raw.trim_ascii_start();
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        let indent = raw.len() - line.len();
        let err = |col: usize, text: &[u8], msg: &str| {
            InputError::at(file, no, col + indent, &String::from_utf8_lossy(text), msg)
        };
        let mut ends = [0u32; 2];
        let mut rest = line;
        for (i, key) in ["src", "dest"].iter().enumerate() {
            let col = line.len() - rest.len() + 1;
            let (r, _) = space0::<_, nom::error::Error<&[u8]>>(rest).unwrap_or((rest, &[][..]));
            let col = col + (rest.len() - r.len());
            let (r, (k, v)) = key_value(r).map_err(|_| err(col, r, "expected `src:<index> dest:<index>`"))?;
            if k != key.as_bytes() {
                return Err(err(col, k, &format!("expected field `{key}`")));
            }
            let vcol = col + k.len() + 1;
            let n =
                parse_number(v).filter(|&n| n <= u32::MAX as u64).ok_or_else(|| err(vcol, v, "bad operation index"))?;
            ends[i] = trace
                .position(n as u32)
                .ok_or_else(|| err(vcol, v, "no operation with this index in the trace"))? as u32;
            rest = r;
        }
        if !rest.trim_ascii().is_empty() {
            let col = line.len() - rest.trim_ascii_start().len() + 1;
            return Err(err(col, rest.trim_ascii(), "unexpected text after the edge"));
        }
        trace.dependence.push((ends[0], ends[1]));
        trace.dependence_lines.push(no as u32);
    }
    Ok(())
}

/// Reads and parses a trace and, when given, its dependence file.
pub fn load(trace: &Path, dependence: Option<&Path>) -> Result<EmTrace, InputError> {
    let bytes = super::input::read(trace)?;
    let mut t = parse_trace(trace, &bytes)?;
    if let Some(dep) = dependence {
        let bytes = super::input::read(dep)?;
        parse_dependence(dep, &bytes, &mut t)?;
    }
    Ok(t)
}
