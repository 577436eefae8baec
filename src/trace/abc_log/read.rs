//! Reading DroidRacer's raw log (`abc_log.txt`): one operation per line, `<id> <OP> key:value
//! ...` with fields separated by spaces or TABs, heap accesses as `rwId:<n> <READ|WRITE...>
//! tid:<t> ...` lines that the next `ACCESS` operation of the same thread closes, and, once the
//! recording ends, DroidRacer's own race report (from the ` HB Graph` line on), which is not read.
//!
//! The reader only splits and types the lines; what the conversion keeps, drops and rewrites is
//! [`super::convert`]'s business.

use std::path::Path;

use nom::bytes::complete::{take_till, take_while1};
use nom::character::complete::{char, digit1, space0};
use nom::IResult;

use crate::trace::InputError;

/// One `key:value` field of a log line, with the 1-based column of its value.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    pub key: &'a [u8],
    pub value: &'a [u8],
    pub col: u32,
}

/// A line of the log: an operation, or a heap access (`rwId:` line). Its fields are split again
/// when asked for ([`LogLine::fields`]) rather than kept: a log has millions of lines.
#[derive(Clone, Debug)]
pub struct LogLine<'a> {
    /// 1-based line in the file.
    pub line: u32,
    /// The operation id (`<id>`), or the access id of an `rwId:` line.
    pub id: u64,
    /// Whether this is an `rwId:` access line.
    pub access: bool,
    pub op: &'a [u8],
    pub op_col: u32,
    /// The text after the operation name, and the column where it starts.
    rest: &'a [u8],
    rest_col: u32,
}

impl<'a> LogLine<'a> {
    /// The line's `key:value` fields, in order (checked when the log was read).
    pub fn fields(&self) -> impl Iterator<Item = Field<'a>> + '_ {
        Fields { rest: self.rest, col: self.rest_col as usize, native: is_native(self.op) }.map_while(Result::ok)
    }

    pub fn get(&self, key: &str) -> Option<Field<'a>> {
        self.fields().find(|f| f.key == key.as_bytes())
    }

    /// The column just after the last field (where a missing field is reported).
    pub fn end_col(&self) -> u32 {
        self.rest_col + self.rest.trim_ascii_end().len() as u32
    }
}

fn is_native(op: &[u8]) -> bool {
    op == b"NATIVE-ENTRY" || op == b"NATIVE-EXIT"
}

/// Splits the fields after an operation name; an error is the column and what was expected.
struct Fields<'a> {
    rest: &'a [u8],
    /// Column of `rest`'s first byte.
    col: usize,
    native: bool,
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, Fail>;

    fn next(&mut self) -> Option<Self::Item> {
        let (r, gap) = space0::<_, nom::error::Error<&[u8]>>(self.rest).unwrap_or((self.rest, &[][..]));
        let at = self.col + (self.rest.len() - r.len());
        if r.is_empty() {
            return None;
        }
        if gap.is_empty() {
            self.rest = &[];
            return Some(Err((at, "expected a space between fields")));
        }
        // NATIVE-ENTRY / NATIVE-EXIT run the thread name into the tid (`tid:3thread-name:Binder
        // Thread #1`): the tid is the digits, the name (which has spaces) is not needed.
        if self.native {
            self.rest = &[];
            let digits = r.strip_prefix(b"tid:").map(|v| v.iter().take_while(|c| c.is_ascii_digit()).count());
            return Some(match digits {
                Some(n) if n > 0 => Ok(Field { key: b"tid", value: &r[4..4 + n], col: (at + 4) as u32 }),
                _ => Err((at, "expected `tid:<thread>`")),
            });
        }
        match key_value(r) {
            Ok((r2, (key, value))) => {
                self.col = at + (r.len() - r2.len());
                self.rest = r2;
                Some(Ok(Field { key, value, col: (at + key.len() + 1) as u32 }))
            }
            Err(_) => {
                self.rest = &[];
                Some(Err((at, "expected a key:value field")))
            }
        }
    }
}

/// The lines of a log, in file order, up to DroidRacer's report.
pub struct AbcLog<'a> {
    pub file: &'a Path,
    pub lines: Vec<LogLine<'a>>,
    /// Where the log stops when it has no report after its operations (no ` HB Graph` line):
    /// the recording was cut short (the app or the device stopped mid-recording), and what it
    /// holds is a prefix of a run. The number of its last line.
    pub cut_at: Option<usize>,
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

fn key_value(input: &[u8]) -> IResult<&[u8], (&[u8], &[u8])> {
    let (input, key) = take_while1(is_name)(input)?;
    let (input, _) = char(':')(input)?;
    let (input, value) = take_till(is_blank)(input)?;
    Ok((input, (key, value)))
}

type Fail = (usize, &'static str);

/// Splits one trimmed line (without its indentation) into id, operation and the rest, whose
/// fields are checked here.
fn split(line: &[u8]) -> Result<(u64, bool, &[u8], usize, &[u8], usize), Fail> {
    let col = |rest: &[u8]| line.len() - rest.len() + 1;
    let (rest, access) = match line.strip_prefix(b"rwId:") {
        Some(r) => (r, true),
        None => (line, false),
    };
    let (rest, id) =
        digit1::<_, nom::error::Error<&[u8]>>(rest).map_err(|_| (col(rest), "expected an operation id"))?;
    let id = std::str::from_utf8(id).ok().and_then(|s| s.parse().ok()).ok_or((col(rest) - id.len(), "id too large"))?;
    let (rest, gap) = space0::<_, nom::error::Error<&[u8]>>(rest).unwrap_or((rest, &[][..]));
    if gap.is_empty() {
        return Err((col(rest), "expected a space after the operation id"));
    }
    let op_col = col(rest);
    let (rest, op) = take_while1::<_, _, nom::error::Error<&[u8]>>(is_name)(rest)
        .map_err(|_| (op_col, "expected an operation name"))?;
    let rest_col = col(rest);
    for f in (Fields { rest, col: rest_col, native: is_native(op) }) {
        f?;
    }
    Ok((id, access, op, op_col, rest, rest_col))
}

/// Reads a log. Blank lines are skipped; the report DroidRacer appends (from the line ` HB Graph`
/// on) ends the operations, and a log without it was cut short ([`AbcLog::cut_at`]). Any other line that is neither an operation nor an access is an
/// error, reported at its line and column with its text.
pub fn read<'a>(file: &'a Path, bytes: &'a [u8]) -> Result<AbcLog<'a>, InputError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut lines = Vec::with_capacity(bytes.len() / 48);
    let (mut report, mut last) = (false, 0);
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let no = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = raw.trim_ascii();
        if line.is_empty() {
            continue;
        }
        if line == b"HB Graph" {
            report = true;
            break;
        }
        last = no;
        let indent = raw.len() - raw.trim_ascii_start().len();
        if no > u32::MAX as usize {
            return Err(InputError::file(file, "more lines than a log can have"));
        }
        match split(line) {
            Ok((id, access, op, op_col, rest, rest_col)) => lines.push(LogLine {
                line: no as u32,
                id,
                access,
                op,
                op_col: (op_col + indent) as u32,
                rest,
                rest_col: (rest_col + indent) as u32,
            }),
            Err((col, msg)) => {
                let at = (col - 1).min(line.len());
                let text = &line[at..];
                let word = text.split(|&b| is_blank(b)).next().unwrap_or(text);
                let shown = if word.is_empty() { line } else { word };
                return Err(InputError::at(file, no, col + indent, &String::from_utf8_lossy(shown), msg));
            }
        }
    }
    if lines.is_empty() {
        return Err(InputError::file(file, "no operations: not a DroidRacer log"));
    }
    Ok(AbcLog { file, lines, cut_at: (!report).then_some(last) })
}

/// Whether `bytes` look like a DroidRacer log: its first meaningful line is `1 START` and some
/// line carries a field only the raw log has (`dest:-1`, `rwId:`, `NATIVE-ENTRY`, `ACCESS`,
/// `delay:`), so a converted trace.txt (which also starts `1 START`) is not taken for one.
pub fn looks_like_log(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1 << 20)];
    let first = head.split(|&b| b == b'\n').map(|l| l.trim_ascii()).find(|l| !l.is_empty());
    let starts = first.is_some_and(|l| {
        let mut w = l.split(|&b| is_blank(b)).filter(|w| !w.is_empty());
        w.next().is_some_and(|x| x.iter().all(u8::is_ascii_digit)) && w.next() == Some(b"START")
    });
    let has = |pat: &[u8]| head.windows(pat.len()).any(|w| w == pat);
    starts && (has(b"\nrwId:") || has(b" delay:") || has(b" NATIVE-ENTRY ") || has(b" ACCESS tid:"))
}
