//! A configured home (docs/home-file.md): the devices a person has (each with its capabilities,
//! roles and room), the SmartApps installed and each app's inputs bound to devices or values, as
//! a hub's companion app sets them; and, optionally, safety properties (the property language of
//! [`super::properties`], docs/properties.md) and property files to check.
//!
//! Told from the content, as every input is: the first line that is neither blank nor a comment
//! is `home`, optionally followed by the home's name.
//!
//! **Layout.** Line-oriented: a statement is a line that starts in the first column, with the
//! indented lines under it (an app's bindings, a long property). `#` starts a comment outside
//! quotes. Every problem is an [`InputError`] at the line and column of the offending token,
//! with its text (exit 2); nothing here panics on any bytes (no recursion outside the property
//! expressions, whose nesting is bounded).
//!
//! The two stages: a nom lexer ([`lex`]) turns each statement into positioned tokens; the
//! parser reads the statements. What needs the apps (does the input exist, does the device have
//! the capability the input asks for) is checked when the model is built
//! (src/model/smartapp/home.rs), with the positions kept here.

use std::path::{Path, PathBuf};

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::satisfy;
use nom::combinator::recognize;
use nom::sequence::pair;
use nom::IResult;

use super::properties::{self, PropertyDecl};
use super::InputError;

/// A token of the home and property languages.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name, a path or a bareword value: letters, digits and `_ - . / ~`, starting with a
    /// letter, a digit, `_`, `.`, `/` or `~`.
    Word(String),
    /// A number (`5`, `-3`, `72.5`).
    Num(f64),
    /// A time of day, `07:30`.
    Time(String),
    /// A quoted text (`"not present"`), escapes `\"` and `\\`.
    Str(String),
    /// Punctuation and operators: `: , = == != < <= > >= ( ) [ ]`.
    Punct(&'static str),
}

impl Tok {
    /// The token as the source shows it (error messages quote it).
    pub fn text(&self) -> String {
        match self {
            Tok::Word(w) | Tok::Time(w) => w.clone(),
            Tok::Num(n) => num_text(*n),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Punct(p) => p.to_string(),
        }
    }
}

/// A number as written back (integers without a point).
pub fn num_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// A token and where it starts (line and column from 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    pub col: usize,
}

/// A place in a file, for errors raised after parsing (when the model binds the home).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
    /// The text found there.
    pub text: String,
}

impl Pos {
    pub fn of(t: &Token) -> Pos {
        Pos { line: t.line, col: t.col, text: t.tok.text() }
    }
    /// An input error here.
    pub fn error(&self, file: &Path, message: impl Into<String>) -> InputError {
        InputError::at(file, self.line, self.col, &self.text, message)
    }
}

/// One statement: its first line's tokens, then each indented line's, in order.
#[derive(Clone, Debug)]
pub struct Statement {
    pub lines: Vec<Vec<Token>>,
}

impl Statement {
    /// All tokens of the statement, its lines joined.
    pub fn tokens(&self) -> Vec<Token> {
        self.lines.iter().flatten().cloned().collect()
    }
}

fn word_start(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '~')
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '~')
}

fn word(i: &str) -> IResult<&str, &str> {
    recognize(pair(satisfy(word_start), take_while(word_char)))(i)
}

fn time(i: &str) -> IResult<&str, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_digit()),
        pair(tag(":"), take_while1(|c: char| c.is_ascii_digit())),
    ))(i)
}

fn punct(i: &str) -> IResult<&str, &str> {
    alt((tag("=="), tag("!="), tag("<="), tag(">="), tag("=>"), tag(":"), tag(","), tag("="), tag("<"), tag(">")))(i)
        .or_else(|_: nom::Err<nom::error::Error<&str>>| alt((tag("("), tag(")"), tag("["), tag("]")))(i))
}

fn static_punct(p: &str) -> &'static str {
    match p {
        "==" => "==",
        "!=" => "!=",
        "<=" => "<=",
        ">=" => ">=",
        "=>" => "=>",
        ":" => ":",
        "," => ",",
        "=" => "=",
        "<" => "<",
        ">" => ">",
        "(" => "(",
        ")" => ")",
        "[" => "[",
        _ => "]",
    }
}

/// A number when the whole word is one (`-3`, `72.5`); `1st-floor` is a word.
fn as_number(w: &str) -> Option<f64> {
    let body = w.strip_prefix('-').unwrap_or(w);
    let ok = !body.is_empty()
        && body.chars().all(|c| c.is_ascii_digit() || c == '.')
        && body.chars().next().is_some_and(|c| c.is_ascii_digit())
        && body.matches('.').count() <= 1
        && !body.ends_with('.');
    ok.then(|| w.parse().ok()).flatten().filter(|n: &f64| n.is_finite())
}

/// The tokens of one line (without its comment), columns counted in characters from 1.
fn lex_line(file: &Path, line_no: usize, line: &str) -> Result<Vec<Token>, InputError> {
    let mut out = Vec::new();
    let mut rest = line;
    let col = |rest: &str| line[..line.len() - rest.len()].chars().count() + 1;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() || rest.starts_with('#') {
            return Ok(out);
        }
        let c = col(rest);
        if let Some(body) = rest.strip_prefix('"') {
            let mut text = String::new();
            let mut chars = body.char_indices();
            let end = loop {
                match chars.next() {
                    None => {
                        return Err(InputError::at(file, line_no, c, rest, "a quoted text is not closed on its line"))
                    }
                    Some((i, '"')) => break i,
                    Some((_, '\\')) => match chars.next() {
                        Some((_, e @ ('"' | '\\'))) => text.push(e),
                        Some((_, e)) => {
                            return Err(InputError::at(
                                file,
                                line_no,
                                c,
                                rest,
                                format!("unknown escape `\\{e}` in a quoted text (only \\\" and \\\\)"),
                            ))
                        }
                        None => {
                            return Err(InputError::at(
                                file,
                                line_no,
                                c,
                                rest,
                                "a quoted text is not closed on its line",
                            ))
                        }
                    },
                    Some((_, ch)) => text.push(ch),
                }
            };
            out.push(Token { tok: Tok::Str(text), line: line_no, col: c });
            rest = &body[end + 1..];
            continue;
        }
        if let Ok((r, t)) = time(rest) {
            if !r.starts_with(|ch: char| word_char(ch)) {
                out.push(Token { tok: Tok::Time(t.to_string()), line: line_no, col: c });
                rest = r;
                continue;
            }
        }
        // A negative number: `-` then a digit.
        let neg = rest.starts_with('-') && rest[1..].starts_with(|ch: char| ch.is_ascii_digit());
        let w = if neg { word(&rest[1..]).map(|(r, w)| (r, &rest[..w.len() + 1])) } else { word(rest) };
        if let Ok((r, w)) = w {
            let tok = match as_number(w) {
                Some(n) => Tok::Num(n),
                None if neg => {
                    return Err(InputError::at(file, line_no, c, w, "expected a number after `-`"));
                }
                None => Tok::Word(w.to_string()),
            };
            out.push(Token { tok, line: line_no, col: c });
            rest = r;
            continue;
        }
        if let Ok((r, p)) = punct(rest) {
            out.push(Token { tok: Tok::Punct(static_punct(p)), line: line_no, col: c });
            rest = r;
            continue;
        }
        let bad: String = rest.chars().take_while(|ch| !ch.is_whitespace()).collect();
        return Err(InputError::at(file, line_no, c, &bad, "unexpected character"));
    }
}

/// Splits `text` into statements: a line starting in the first column opens one, an indented
/// line continues the one before (an indented line before any statement is an error).
pub fn statements(file: &Path, text: &str) -> Result<Vec<Statement>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out: Vec<Statement> = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let toks = lex_line(file, i + 1, raw)?;
        if toks.is_empty() {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            match out.last_mut() {
                Some(st) => st.lines.push(toks),
                None => {
                    return Err(
                        Pos::of(&toks[0]).error(file, "an indented line continues the statement above it: none here")
                    )
                }
            }
        } else {
            out.push(Statement { lines: vec![toks] });
        }
    }
    Ok(out)
}

/// A device of the home.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceDecl {
    pub name: String,
    /// Capabilities (`lock`, `switch`, `contactSensor`), as SmartThings names them.
    pub caps: Vec<String>,
    /// Roles a property can name (`main-door`, `heater`, `bedroom-light`).
    pub roles: Vec<String>,
    pub room: Option<String>,
    pub pos: Pos,
}

/// A value an input is bound to.
#[derive(Clone, Debug, PartialEq)]
pub enum BindValue {
    /// A device of the home, by name.
    Device(String),
    Text(String),
    Number(f64),
    Bool(bool),
    /// A time of day, `07:30`.
    Time(String),
}

/// One input of an app bound: `input = value, value, ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub input: String,
    pub values: Vec<(BindValue, Pos)>,
    pub pos: Pos,
}

/// An installed app.
#[derive(Clone, Debug, PartialEq)]
pub struct AppDecl {
    /// The app's file, found as an app list finds its apps (`--smartapps`, beside the home,
    /// `../smartapps` beside it).
    pub path: PathBuf,
    pub bindings: Vec<Binding>,
    pub pos: Pos,
}

/// A parsed home file.
#[derive(Clone, Debug, PartialEq)]
pub struct HomeFile {
    pub file: PathBuf,
    pub name: Option<String>,
    pub devices: Vec<DeviceDecl>,
    pub apps: Vec<AppDecl>,
    /// Properties written in the home, then those of each `properties FILE` it names.
    pub properties: Vec<PropertyDecl>,
    /// Whether the property library applies to the home's devices (`library off` turns it off).
    pub library: bool,
}

/// Whether `bytes` is a home file: its first meaningful line starts with the word `home`.
pub fn is_home(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        return line == b"home" || line.starts_with(b"home ") || line.starts_with(b"home\t");
    }
    false
}

/// Reads and parses a home file, its apps looked up as an app list's are
/// ([`super::applist::search_dirs`]).
pub fn read_home(path: &Path) -> Result<HomeFile, InputError> {
    let bytes = super::input::read(path)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| InputError::file(path, "not UTF-8 text"))?;
    parse_home(path, text, &super::applist::search_dirs(path))
}

/// Parses a home file's text, its apps looked up in `dirs`.
pub fn parse_home(file: &Path, text: &str, dirs: &[PathBuf]) -> Result<HomeFile, InputError> {
    let sts = statements(file, text)?;
    let mut home = HomeFile {
        file: file.to_path_buf(),
        name: None,
        devices: Vec::new(),
        apps: Vec::new(),
        properties: Vec::new(),
        library: true,
    };
    let mut seen_home = false;
    let mut includes = Vec::new();
    for st in &sts {
        let first = &st.lines[0][0];
        let Tok::Word(kw) = &first.tok else {
            return Err(Pos::of(first)
                .error(file, "expected a statement: home, device, app, properties, library, or a property"));
        };
        if !seen_home {
            if kw != "home" {
                return Err(Pos::of(first).error(file, "a home file starts with `home` (and the home's name)"));
            }
            seen_home = true;
            let toks = st.tokens();
            home.name = match toks.get(1).map(|t| &t.tok) {
                None => None,
                Some(Tok::Str(s) | Tok::Word(s)) if toks.len() == 2 => Some(s.clone()),
                _ => return Err(Pos::of(&toks[1]).error(file, "expected the home's name after `home`, then nothing")),
            };
            continue;
        }
        match kw.as_str() {
            "home" => return Err(Pos::of(first).error(file, "`home` is said once, on the first line")),
            "device" => {
                let d = device(file, st)?;
                if let Some(other) = home.devices.iter().find(|x| x.name == d.name) {
                    return Err(d.pos.error(file, format!("device `{}` is declared twice (first on line {})", d.name, other.pos.line)));
                }
                home.devices.push(d);
            }
            "app" => {
                let a = app(file, st, dirs)?;
                if let Some(other) = home.apps.iter().find(|x| x.path == a.path) {
                    return Err(a.pos.error(file, format!("this app is installed twice (first on line {})", other.pos.line)));
                }
                home.apps.push(a);
            }
            "properties" => {
                let toks = st.tokens();
                match toks.get(1).map(|t| &t.tok) {
                    Some(Tok::Word(p) | Tok::Str(p)) if toks.len() == 2 => includes.push((p.clone(), Pos::of(&toks[1]))),
                    _ => return Err(Pos::of(first).error(file, "expected `properties FILE`: a property file to check")),
                }
            }
            "library" => {
                let toks = st.tokens();
                home.library = match toks.get(1).map(|t| &t.tok) {
                    Some(Tok::Word(w)) if w == "off" && toks.len() == 2 => false,
                    Some(Tok::Word(w)) if w == "on" && toks.len() == 2 => true,
                    _ => return Err(Pos::of(first).error(file, "expected `library on` or `library off`")),
                };
            }
            k if properties::is_property_keyword(k) => home.properties.push(properties::property(file, st)?),
            _ => {
                return Err(Pos::of(first).error(
                    file,
                    "expected a statement: device, app, properties, library, or a property (invariant, never, respond, threat)",
                ))
            }
        }
    }
    if !seen_home {
        return Err(InputError::file(file, "empty home: expected `home` on its first line"));
    }
    let here = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    for (p, pos) in includes {
        let path = here.join(&p);
        let bytes = super::input::read(&path)
            .map_err(|e| pos.error(file, format!("cannot read the property file: {}", e.message)))?;
        let text = std::str::from_utf8(&bytes).map_err(|_| InputError::file(&path, "not UTF-8 text"))?;
        home.properties.extend(properties::parse(&path, text)?);
    }
    properties::check_names(&home.properties)?;
    Ok(home)
}

/// `device NAME : CAP, CAP ... [role ROLE, ...] [room ROOM]`
fn device(file: &Path, st: &Statement) -> Result<DeviceDecl, InputError> {
    let toks = st.tokens();
    let mut it = toks.iter().skip(1).peekable();
    let name_tok = it.next().ok_or_else(|| Pos::of(&toks[0]).error(file, "expected a device name after `device`"))?;
    let name = match &name_tok.tok {
        Tok::Word(w) if is_name(w) => w.clone(),
        _ => return Err(Pos::of(name_tok).error(file, "expected a device name (letters, digits, `_`, `-`)")),
    };
    match it.next() {
        Some(t) if t.tok == Tok::Punct(":") => {}
        Some(t) => return Err(Pos::of(t).error(file, "expected `:` and the device's capabilities")),
        None => return Err(Pos::of(name_tok).error(file, "expected `:` and the device's capabilities after the name")),
    }
    let mut d = DeviceDecl { name, caps: Vec::new(), roles: Vec::new(), room: None, pos: Pos::of(name_tok) };
    let mut section = "caps";
    let mut want_item = true;
    for t in it {
        match (&t.tok, want_item) {
            (Tok::Word(w), false) if w == "role" || w == "room" => {
                section = if w == "role" { "roles" } else { "room" };
                if section == "room" && d.room.is_some() {
                    return Err(Pos::of(t).error(file, "a device is in one room"));
                }
                want_item = true;
            }
            (Tok::Punct(","), false) if section != "room" => want_item = true,
            (Tok::Word(w) | Tok::Str(w), true) => {
                match section {
                    "caps" => {
                        let cap = w.trim_start_matches("capability.").to_string();
                        if !is_name(&cap) {
                            return Err(Pos::of(t)
                                .error(file, "expected a capability name (`lock`, `switch`, `contactSensor`)"));
                        }
                        d.caps.push(cap)
                    }
                    "roles" => {
                        if !is_name(w) {
                            return Err(Pos::of(t).error(file, "expected a role name (letters, digits, `_`, `-`)"));
                        }
                        d.roles.push(w.clone())
                    }
                    _ => d.room = Some(w.clone()),
                }
                want_item = false;
            }
            _ if want_item => return Err(Pos::of(t).error(file, format!("expected a name in the device's {section}"))),
            _ => return Err(Pos::of(t).error(file, "expected `,`, `role` or `room`")),
        }
    }
    if want_item {
        let last = toks.last().unwrap_or(name_tok);
        return Err(Pos::of(last).error(file, "the device statement ends where a name is expected"));
    }
    Ok(d)
}

/// A name of the home: a device, a role, an input.
pub fn is_name(w: &str) -> bool {
    w.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `app FILE.groovy`, then one binding per indented line: `input = value, value ...`.
fn app(file: &Path, st: &Statement, dirs: &[PathBuf]) -> Result<AppDecl, InputError> {
    let head = &st.lines[0];
    let (name, pos) = match head.get(1) {
        Some(t @ Token { tok: Tok::Word(w) | Tok::Str(w), .. }) if head.len() == 2 => (w.clone(), Pos::of(t)),
        Some(t) => {
            return Err(
                Pos::of(t).error(file, "expected `app FILE.groovy` alone on its line, bindings on the lines below")
            )
        }
        None => return Err(Pos::of(&head[0]).error(file, "expected the app's file after `app`")),
    };
    if !name.ends_with(".groovy") {
        return Err(pos.error(file, "expected an app's file name (NAME.groovy)"));
    }
    let path = dirs.iter().map(|d| d.join(&name)).find(|p| p.is_file()).ok_or_else(|| {
        let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        pos.error(file, format!("no such app in {} (give the folder with --smartapps DIR)", looked.join(" or ")))
    })?;
    let mut bindings: Vec<Binding> = Vec::new();
    for line in &st.lines[1..] {
        let b = binding(file, line)?;
        if let Some(other) = bindings.iter().find(|x| x.input == b.input) {
            return Err(b
                .pos
                .error(file, format!("input `{}` is bound twice (first on line {})", b.input, other.pos.line)));
        }
        bindings.push(b);
    }
    Ok(AppDecl { path, bindings, pos })
}

fn binding(file: &Path, line: &[Token]) -> Result<Binding, InputError> {
    let input = match &line[0].tok {
        Tok::Word(w) if is_name(w) => w.clone(),
        _ => return Err(Pos::of(&line[0]).error(file, "expected an input's name, `=` and its value")),
    };
    match line.get(1) {
        Some(t) if t.tok == Tok::Punct("=") => {}
        Some(t) => return Err(Pos::of(t).error(file, "expected `=` after the input's name")),
        None => return Err(Pos::of(&line[0]).error(file, "expected `=` and the input's value")),
    }
    let mut values = Vec::new();
    let mut want = true;
    for t in &line[2..] {
        match (&t.tok, want) {
            (Tok::Punct(","), false) => want = true,
            (tok, true) => {
                let v = match tok {
                    Tok::Word(w) if w == "true" || w == "false" => BindValue::Bool(w == "true"),
                    Tok::Word(w) if is_name(w) => BindValue::Device(w.clone()),
                    Tok::Str(s) => BindValue::Text(s.clone()),
                    Tok::Num(n) => BindValue::Number(*n),
                    Tok::Time(x) => BindValue::Time(x.clone()),
                    _ => {
                        return Err(Pos::of(t).error(
                            file,
                            "expected a device name, a quoted text, a number, a time (07:30), true or false",
                        ))
                    }
                };
                values.push((v, Pos::of(t)));
                want = false;
            }
            _ => return Err(Pos::of(t).error(file, "expected `,` between values")),
        }
    }
    if want {
        let last = line.last().unwrap_or(&line[0]);
        return Err(Pos::of(last).error(file, "expected a value"));
    }
    Ok(Binding { input, values, pos: Pos::of(&line[0]) })
}
