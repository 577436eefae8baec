//! Parser and static checker for SmartThings-style event models (`model events`, the language of
//! shared/spec/event-model.md).
//!
//! Two stages: a nom lexer turns the bytes into positioned tokens, then a recursive-descent
//! parser builds the items and the checker resolves every name to an index and every symbol
//! literal to an interned integer, rejecting type mixes, undeclared variables and unknown events.
//! What comes out ([`EventModelAst`]) is already "compiled": the emulator evaluates it without
//! looking anything up by name. Every problem is an [`InputError`] with line and column; no input
//! makes this module panic (nesting depth is bounded so that recursion cannot overflow the stack).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while, take_while1};
use nom::character::complete::{char, digit1, satisfy};
use nom::combinator::recognize;
use nom::sequence::pair;
use nom::IResult;

use super::InputError;

/// The type of a variable or expression: integers (with `true`/`false` as 1/0) or symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Sym,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "integer",
            Ty::Sym => "symbol",
        }
    }
}

/// A shared variable; `init` is the integer value or the interned symbol id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    pub name: String,
    pub ty: Ty,
    pub init: i64,
    pub line: usize,
}

/// An event, declared explicitly or implicitly by its handlers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDecl {
    pub name: String,
    pub disabled: bool,
    pub line: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// A resolved expression: variables by index, symbols by interned id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Const(i64),
    Var(u32),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a op1 b op2 c ...` of one precedence level, left to right (`((a op1 b) op2 c) ...`): a
    /// long flat chain is a list, so walking it needs no recursion however long it is.
    Chain(Box<Expr>, Vec<(BinOp, Expr)>),
}

/// A resolved statement; `line` is its source line (reported with errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Assign { var: u32, value: Expr, line: usize },
    If { cond: Expr, then: Vec<Stmt>, otherwise: Vec<Stmt>, line: usize },
    Enable { event: u32, line: usize },
    Disable { event: u32, line: usize },
    Assert { cond: Expr, message: String, line: usize },
}

/// One `on EVENT { ... }` handler, owned by an app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handler {
    pub event: u32,
    pub app: u32,
    pub line: usize,
    pub body: Vec<Stmt>,
}

/// A checked event model. Handlers are in file order; indices into `vars`, `events`, `apps`
/// and `symbols` are what the statements hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventModelAst {
    pub file: PathBuf,
    pub vars: Vec<VarDecl>,
    pub events: Vec<EventDecl>,
    pub apps: Vec<String>,
    /// Whether `main` in `apps` stands only for handlers written outside any `app` block (the
    /// environment, in the shipped models), not for an app the file declares.
    pub main_is_environment: bool,
    pub handlers: Vec<Handler>,
    pub symbols: Vec<String>,
}

impl EventModelAst {
    /// Handlers of event `e`, in file order.
    pub fn handlers_of(&self, e: u32) -> impl Iterator<Item = &Handler> {
        self.handlers.iter().filter(move |h| h.event == e)
    }
}

/// Deepest expression or block nesting accepted: the checker, the emulator and `Drop` recurse
/// over the tree, and a bounded depth keeps any input from overflowing the stack.
const MAX_DEPTH: usize = 200;

/// Longest flat chain of one precedence level (`a + b + ...`) and longest `else if` chain. A
/// flat chain is walked without recursion, so its bound only caps the work on absurd inputs;
/// an `else if` chain nests, and the emulator and checker walk it iteratively, leaving only
/// dropping the tree recursive (a few dozen bytes of stack per link).
const MAX_CHAIN: usize = 10_000;
const MAX_ELSE_IF: usize = 5_000;

const KEYWORDS: &[&str] =
    &["var", "event", "disabled", "app", "on", "if", "else", "enable", "disable", "assert", "true", "false", "model"];

/// Parses and checks an event model. `text` may be any bytes; anything but a well-formed,
/// well-typed model is an [`InputError`].
pub fn parse(path: &Path, text: &[u8]) -> Result<EventModelAst, InputError> {
    let src = match std::str::from_utf8(text) {
        Ok(s) => s,
        Err(e) => {
            let good = &text[..e.valid_up_to()];
            // The prefix is valid UTF-8 by construction.
            let prefix = std::str::from_utf8(good).unwrap_or("");
            let line = prefix.matches('\n').count() + 1;
            let col = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let bad = text.get(e.valid_up_to()).copied().unwrap_or(0);
            return Err(InputError::at(path, line, col, &format!("\\x{bad:02x}"), "invalid UTF-8"));
        }
    };
    // A UTF-8 byte-order mark is accepted, as in trace.txt (editors on Windows write one).
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let tokens = lex(path, src)?;
    let items = Parser { path, toks: &tokens, pos: 0, nest: 0 }.file()?;
    check(path, items)
}

// ---------------------------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Name,
    Int(i64),
    Str(String),
    Punct(&'static str),
    Newline,
    Eof,
}

#[derive(Clone, Debug)]
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
    line: usize,
    col: usize,
}

const PUNCTS: &[&str] =
    &["==", "!=", "<=", ">=", "&&", "||", "<", ">", "=", "+", "-", "*", "/", "%", "!", "(", ")", "{", "}", ";"];

fn blank(i: &str) -> IResult<&str, &str> {
    take_while(|c| c == ' ' || c == '\t' || c == '\r')(i)
}

fn comment(i: &str) -> IResult<&str, &str> {
    recognize(pair(alt((tag("#"), tag("//"))), take_till(|c| c == '\n')))(i)
}

fn name(i: &str) -> IResult<&str, &str> {
    recognize(pair(
        satisfy(|c| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.'),
    ))(i)
}

fn string_body(i: &str) -> IResult<&str, &str> {
    take_while(|c| c != '"' && c != '\n')(i)
}

fn punct(i: &str) -> IResult<&str, &str> {
    for p in PUNCTS {
        if let Ok(r) = tag::<_, _, nom::error::Error<&str>>(*p)(i) {
            return Ok(r);
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Tag)))
}

fn lex<'a>(path: &Path, src: &'a str) -> Result<Vec<Tok<'a>>, InputError> {
    let mut toks = Vec::new();
    let mut rest = src;
    let mut line = 1;
    // The column is carried forward from the last token, counting only the characters since
    // it: recounting from the line start made one long line quadratic.
    let (mut col, mut counted) = (1usize, 0usize);
    loop {
        if let Ok((r, _)) = blank(rest) {
            rest = r;
        }
        if let Ok((r, _)) = comment(rest) {
            rest = r;
        }
        let off = src.len() - rest.len();
        col += src[counted..off].chars().count();
        counted = off;
        if rest.is_empty() {
            toks.push(Tok { kind: Kind::Eof, text: "", line, col });
            return Ok(toks);
        }
        if let Ok((r, nl)) = tag::<_, _, nom::error::Error<&str>>("\n")(rest) {
            toks.push(Tok { kind: Kind::Newline, text: nl, line, col });
            rest = r;
            line += 1;
            (col, counted) = (1, off + 1);
            continue;
        }
        if let Ok((r, word)) = name(rest) {
            toks.push(Tok { kind: Kind::Name, text: word, line, col });
            rest = r;
            continue;
        }
        if let Ok((r, digits)) = digit1::<_, nom::error::Error<&str>>(rest) {
            // A number glued to letters (`12ab`) is one bad token, not two.
            let (r2, tail) = take_while::<_, _, nom::error::Error<&str>>(|c: char| {
                c.is_ascii_alphanumeric() || c == '_' || c == '.'
            })(r)
            .unwrap_or((r, ""));
            let whole = &rest[..digits.len() + tail.len()];
            if !tail.is_empty() {
                return Err(InputError::at(path, line, col, whole, "malformed number"));
            }
            let v: i64 =
                digits.parse().map_err(|_| InputError::at(path, line, col, digits, "integer literal out of range"))?;
            toks.push(Tok { kind: Kind::Int(v), text: digits, line, col });
            rest = r2;
            continue;
        }
        if let Ok((r, _)) = char::<_, nom::error::Error<&str>>('"')(rest) {
            let (r, body) = string_body(r).unwrap_or((r, ""));
            match char::<_, nom::error::Error<&str>>('"')(r) {
                Ok((r, _)) => {
                    let text = &rest[..body.len() + 2];
                    toks.push(Tok { kind: Kind::Str(body.to_string()), text, line, col });
                    rest = r;
                }
                Err(_) => {
                    let text = &rest[..body.len() + 1];
                    return Err(InputError::at(path, line, col, text, "unterminated string"));
                }
            }
            continue;
        }
        if let Ok((r, p)) = punct(rest) {
            let p: &'static str = PUNCTS.iter().copied().find(|q| *q == p).unwrap_or("?");
            toks.push(Tok { kind: Kind::Punct(p), text: &rest[..p.len()], line, col });
            rest = r;
            continue;
        }
        // Not a token: report the run of non-blank characters.
        let bad = take_while1::<_, _, nom::error::Error<&str>>(|c: char| !c.is_whitespace())(rest)
            .map(|(_, b)| b)
            .unwrap_or(rest);
        let ch = bad.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
        return Err(InputError::at(path, line, col, &bad[..ch.max(1).min(bad.len())], "unexpected character"));
    }
}

// ---------------------------------------------------------------------------------------------
// Parser: tokens to raw items (names unresolved, positions kept)

#[derive(Clone, Debug)]
struct Pos {
    line: usize,
    col: usize,
    text: String,
}

#[derive(Debug)]
enum RawKind {
    Int(i64),
    Str(String),
    Name(String),
    Unary(UnOp, Box<Raw>),
    Binary(BinOp, Box<Raw>, Box<Raw>),
    /// Two or more operators of one level in a row, each with its position.
    Chain(Box<Raw>, Vec<(BinOp, Pos, Raw)>),
}

#[derive(Debug)]
struct Raw {
    kind: RawKind,
    /// The token (or operator) the expression is reported at.
    pos: Pos,
    depth: usize,
}

#[derive(Debug)]
enum RawStmt {
    Assign { var: String, var_pos: Pos, value: Raw },
    If { cond: Raw, then: Vec<RawStmt>, otherwise: Vec<RawStmt>, pos: Pos },
    Enable { event: String, pos: Pos, on: bool },
    Assert { cond: Raw, message: Option<String>, source: String, pos: Pos },
}

#[derive(Debug)]
enum Item {
    Var { name: String, pos: Pos, init: Raw },
    Event { name: String, pos: Pos, disabled: bool },
    Handler { app: Option<String>, event: String, pos: Pos, body: Vec<RawStmt> },
    App { name: String },
}

/// The constant a token stands for: an integer, a symbol, `true` or `false`.
fn constant(t: &Tok<'_>) -> Option<RawKind> {
    match &t.kind {
        Kind::Int(v) => Some(RawKind::Int(*v)),
        Kind::Str(s) => Some(RawKind::Str(s.clone())),
        Kind::Name if t.text == "true" => Some(RawKind::Int(1)),
        Kind::Name if t.text == "false" => Some(RawKind::Int(0)),
        _ => None,
    }
}

struct Parser<'t, 'a> {
    path: &'t Path,
    toks: &'t [Tok<'a>],
    pos: usize,
    /// Current expression nesting (parentheses and unary operators).
    nest: usize,
}

impl<'t, 'a> Parser<'t, 'a> {
    fn peek(&self) -> &Tok<'a> {
        // The token list always ends with Eof and the parser never moves past it.
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Tok<'a> {
        let t = self.peek().clone();
        if t.kind != Kind::Eof {
            self.pos += 1;
        }
        t
    }

    fn err(&self, tok: &Tok<'_>, msg: impl Into<String>) -> InputError {
        let text = if tok.kind == Kind::Eof {
            "end of file"
        } else if tok.kind == Kind::Newline {
            "end of line"
        } else {
            tok.text
        };
        InputError::at(self.path, tok.line, tok.col, text, msg)
    }

    fn pos_of(tok: &Tok<'_>) -> Pos {
        Pos { line: tok.line, col: tok.col, text: tok.text.to_string() }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek().kind, Kind::Punct(q) if q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        self.peek().kind == Kind::Name && self.peek().text == w
    }

    fn expect_punct(&mut self, p: &str) -> Result<Tok<'a>, InputError> {
        if self.is_punct(p) {
            Ok(self.bump())
        } else {
            Err(self.err(self.peek(), format!("expected `{p}`")))
        }
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek().kind, Kind::Newline) || self.is_punct(";") {
            self.bump();
        }
    }

    /// A NAME that is not a keyword.
    fn name(&mut self, what: &str) -> Result<(String, Pos), InputError> {
        let t = self.peek().clone();
        if t.kind != Kind::Name {
            return Err(self.err(&t, format!("expected {what}")));
        }
        if KEYWORDS.contains(&t.text) {
            return Err(self.err(&t, format!("keyword `{}` cannot be used as {what}", t.text)));
        }
        self.bump();
        Ok((t.text.to_string(), Self::pos_of(&t)))
    }

    /// Items end at a newline, `;` or end of file.
    fn end_of_item(&mut self) -> Result<(), InputError> {
        match self.peek().kind {
            Kind::Newline | Kind::Eof => Ok(()),
            Kind::Punct(";") => Ok(()),
            _ => Err(self.err(self.peek(), "expected end of line")),
        }
    }

    fn file(mut self) -> Result<Vec<Item>, InputError> {
        self.skip_newlines();
        let t = self.peek().clone();
        if t.kind == Kind::Eof {
            return Err(InputError::file(self.path, "empty input: expected `model events`"));
        }
        if !(t.kind == Kind::Name && t.text == "model") {
            return Err(self.err(&t, "not an event model: expected `model events`"));
        }
        self.bump();
        let t = self.peek().clone();
        if !(t.kind == Kind::Name && t.text == "events") {
            return Err(self.err(&t, "expected `events` after `model`"));
        }
        self.bump();
        self.end_of_item()?;
        let mut items = Vec::new();
        loop {
            self.skip_newlines();
            let t = self.peek().clone();
            match (&t.kind, t.text) {
                (Kind::Eof, _) => return Ok(items),
                (Kind::Name, "var") => {
                    self.bump();
                    let (name, pos) = self.name("a variable name")?;
                    self.expect_punct("=")?;
                    let init = self.literal()?;
                    self.end_of_item()?;
                    items.push(Item::Var { name, pos, init });
                }
                (Kind::Name, "event") => {
                    self.bump();
                    let (name, pos) = self.name("an event name")?;
                    let disabled = self.is_word("disabled");
                    if disabled {
                        self.bump();
                    }
                    self.end_of_item()?;
                    items.push(Item::Event { name, pos, disabled });
                }
                (Kind::Name, "app") => {
                    self.bump();
                    let (name, _) = self.name("an app name")?;
                    self.skip_newlines();
                    self.expect_punct("{")?;
                    items.push(Item::App { name: name.clone() });
                    loop {
                        self.skip_newlines();
                        if self.is_punct("}") {
                            self.bump();
                            break;
                        }
                        if !self.is_word("on") {
                            return Err(self.err(self.peek(), "expected `on` or `}` in app"));
                        }
                        items.push(self.handler(Some(name.clone()))?);
                    }
                    self.end_of_item()?;
                }
                (Kind::Name, "on") => {
                    let h = self.handler(None)?;
                    items.push(h);
                }
                _ => return Err(self.err(&t, "expected `var`, `event`, `app` or `on`")),
            }
        }
    }

    /// `-`? INT | STRING | true | false
    fn literal(&mut self) -> Result<Raw, InputError> {
        let t = self.peek().clone();
        let pos = Self::pos_of(&t);
        let kind = match (constant(&t), &t.kind) {
            (Some(k), _) => k,
            (None, Kind::Punct("-")) => {
                self.bump();
                let n = self.peek().clone();
                match n.kind {
                    Kind::Int(v) => RawKind::Int(v.wrapping_neg()),
                    _ => return Err(self.err(&n, "expected an integer after `-`")),
                }
            }
            (None, _) => return Err(self.err(&t, "expected a literal (integer, \"symbol\", true or false)")),
        };
        self.bump();
        Ok(Raw { kind, pos, depth: 1 })
    }

    fn handler(&mut self, app: Option<String>) -> Result<Item, InputError> {
        let on = self.bump(); // `on`
        let (event, _) = self.name("an event name")?;
        let body = self.block(0)?;
        Ok(Item::Handler { app, event, pos: Self::pos_of(&on), body })
    }

    fn block(&mut self, depth: usize) -> Result<Vec<RawStmt>, InputError> {
        if depth > MAX_DEPTH {
            return Err(self.err(self.peek(), "blocks nested too deeply"));
        }
        self.expect_punct("{")?;
        let mut out = Vec::new();
        loop {
            self.skip_newlines();
            if self.is_punct("}") {
                self.bump();
                return Ok(out);
            }
            out.push(self.stmt(depth)?);
            // Statements are separated by newlines or `;`; a `}` may close the block directly.
            if !(self.is_punct("}") || self.is_punct(";") || self.peek().kind == Kind::Newline) {
                return Err(self.err(self.peek(), "expected newline, `;` or `}` after statement"));
            }
        }
    }

    fn stmt(&mut self, depth: usize) -> Result<RawStmt, InputError> {
        let t = self.peek().clone();
        if t.kind != Kind::Name {
            return Err(self.err(&t, "expected a statement"));
        }
        match t.text {
            "if" => self.if_stmt(depth),
            "enable" | "disable" => {
                self.bump();
                let (event, pos) = self.name("an event name")?;
                Ok(RawStmt::Enable { event, pos, on: t.text == "enable" })
            }
            "assert" => {
                self.bump();
                let start = self.pos;
                let cond = self.expr()?;
                let source: Vec<&str> = self.toks[start..self.pos].iter().map(|t| t.text).collect();
                let message = match &self.peek().kind {
                    Kind::Str(s) => {
                        let s = s.clone();
                        self.bump();
                        Some(s)
                    }
                    _ => None,
                };
                Ok(RawStmt::Assert { cond, message, source: source.join(" "), pos: Self::pos_of(&t) })
            }
            _ => {
                let (var, var_pos) = self.name("a variable name")?;
                self.expect_punct("=")?;
                let value = self.expr()?;
                Ok(RawStmt::Assign { var, var_pos, value })
            }
        }
    }

    /// `if c1 {..} else if c2 {..} ... [else {..}]`, read in a loop: an `else if` chain is as
    /// deep as its deepest block, not as long as it is (up to [`MAX_ELSE_IF`] links).
    fn if_stmt(&mut self, depth: usize) -> Result<RawStmt, InputError> {
        let mut arms = Vec::new();
        let otherwise = loop {
            let t = self.bump(); // `if`
            let cond = self.expr()?;
            let then = self.block(depth + 1)?;
            arms.push((cond, then, Self::pos_of(&t)));
            // `else` may follow the closing brace on the next line: no statement starts with it.
            let save = self.pos;
            while self.peek().kind == Kind::Newline {
                self.bump();
            }
            if !self.is_word("else") {
                self.pos = save;
                break Vec::new();
            }
            self.bump();
            if !self.is_word("if") {
                break self.block(depth + 1)?;
            }
            if arms.len() == MAX_ELSE_IF {
                return Err(self.err(self.peek(), format!("blocks nested too deeply: over {MAX_ELSE_IF} `else if`")));
            }
        };
        // The AST keeps `else if` as an `if` inside `else`, built from the last link back.
        let mut stmt = None;
        let mut otherwise = otherwise;
        while let Some((cond, then, pos)) = arms.pop() {
            let s = RawStmt::If { cond, then, otherwise, pos };
            if arms.is_empty() {
                stmt = Some(s);
                break;
            }
            otherwise = vec![s];
        }
        Ok(stmt.expect("at least one arm"))
    }

    // Expressions, lowest precedence first.
    fn expr(&mut self) -> Result<Raw, InputError> {
        self.binary_level(0)
    }

    fn binary_level(&mut self, level: usize) -> Result<Raw, InputError> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("||", BinOp::Or)],
            &[("&&", BinOp::And)],
            &[
                ("==", BinOp::Eq),
                ("!=", BinOp::Ne),
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul), ("/", BinOp::Div), ("%", BinOp::Rem)],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let lhs = self.binary_level(level + 1)?;
        let mut rest: Vec<(BinOp, Pos, Raw)> = Vec::new();
        loop {
            let t = self.peek().clone();
            let op = match t.kind {
                Kind::Punct(p) => LEVELS[level].iter().find(|(s, _)| *s == p).map(|(_, op)| *op),
                _ => None,
            };
            let Some(op) = op else { break };
            if rest.len() == MAX_CHAIN {
                return Err(self.err(&t, format!("expression nested too deeply: over {MAX_CHAIN} operators in a row")));
            }
            self.bump();
            let rhs = self.binary_level(level + 1)?;
            rest.push((op, Self::pos_of(&t), rhs));
        }
        // A chain is as deep as its deepest operand, not as long as it is.
        let depth = 1 + rest.iter().map(|(_, _, r)| r.depth).fold(lhs.depth, usize::max);
        if let Some((_, pos, _)) = rest.first().filter(|_| depth > MAX_DEPTH) {
            return Err(InputError::at(self.path, pos.line, pos.col, &pos.text, "expression nested too deeply"));
        }
        Ok(match rest.len() {
            0 => lhs,
            1 => {
                let (op, pos, rhs) = rest.pop().expect("one operator");
                Raw { kind: RawKind::Binary(op, Box::new(lhs), Box::new(rhs)), pos, depth }
            }
            _ => {
                let pos = rest[0].1.clone();
                Raw { kind: RawKind::Chain(Box::new(lhs), rest), pos, depth }
            }
        })
    }

    fn unary(&mut self) -> Result<Raw, InputError> {
        let t = self.peek().clone();
        let op = match t.kind {
            Kind::Punct("!") => Some(UnOp::Not),
            Kind::Punct("-") => Some(UnOp::Neg),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            self.enter()?;
            let inner = self.unary();
            self.nest -= 1;
            let inner = inner?;
            let depth = inner.depth + 1;
            return Ok(Raw { kind: RawKind::Unary(op, Box::new(inner)), pos: Self::pos_of(&t), depth });
        }
        self.primary()
    }

    /// Bounds the parser's own recursion (unary operators and parentheses).
    fn enter(&mut self) -> Result<(), InputError> {
        if self.nest >= MAX_DEPTH {
            return Err(self.err(self.peek(), "expression nested too deeply"));
        }
        self.nest += 1;
        Ok(())
    }

    fn primary(&mut self) -> Result<Raw, InputError> {
        let t = self.peek().clone();
        let pos = Self::pos_of(&t);
        let kind = match (constant(&t), &t.kind) {
            (Some(k), _) => k,
            (None, Kind::Name) if KEYWORDS.contains(&t.text) => {
                return Err(self.err(&t, format!("keyword `{}` cannot be used in an expression", t.text)))
            }
            (None, Kind::Name) => RawKind::Name(t.text.to_string()),
            (None, Kind::Punct("(")) => {
                self.bump();
                self.enter()?;
                let inner = self.expr();
                self.nest -= 1;
                let inner = inner?;
                self.expect_punct(")")?;
                return Ok(inner);
            }
            (None, _) => return Err(self.err(&t, "expected an expression")),
        };
        self.bump();
        Ok(Raw { kind, pos, depth: 1 })
    }
}

// ---------------------------------------------------------------------------------------------
// Checker: names to indices, symbols to ids, types checked

struct Checker<'p> {
    path: &'p Path,
    vars: Vec<VarDecl>,
    var_ix: HashMap<String, u32>,
    event_ix: HashMap<String, u32>,
    symbols: Vec<String>,
    sym_ix: HashMap<String, u32>,
}

impl Checker<'_> {
    fn err(&self, pos: &Pos, msg: impl Into<String>) -> InputError {
        InputError::at(self.path, pos.line, pos.col, &pos.text, msg)
    }

    fn intern(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.sym_ix.get(s) {
            return i as i64;
        }
        let i = self.symbols.len() as u32;
        self.symbols.push(s.to_string());
        self.sym_ix.insert(s.to_string(), i);
        i as i64
    }

    fn expr(&mut self, raw: &Raw) -> Result<(Expr, Ty), InputError> {
        Ok(match &raw.kind {
            RawKind::Int(v) => (Expr::Const(*v), Ty::Int),
            RawKind::Str(s) => (Expr::Const(self.intern(s)), Ty::Sym),
            RawKind::Name(n) => match self.var_ix.get(n) {
                Some(&i) => (Expr::Var(i), self.vars[i as usize].ty),
                None => return Err(self.err(&raw.pos, format!("undeclared variable `{n}`"))),
            },
            RawKind::Unary(op, inner) => {
                let (e, ty) = self.expr(inner)?;
                if ty != Ty::Int {
                    return Err(
                        self.err(&raw.pos, format!("operator `{}` needs an integer, found a symbol", raw.pos.text))
                    );
                }
                (Expr::Unary(*op, Box::new(e)), Ty::Int)
            }
            RawKind::Binary(op, a, b) => {
                let (ea, ta) = self.expr(a)?;
                let (eb, tb) = self.expr(b)?;
                self.operands(*op, &raw.pos, ta, tb)?;
                (Expr::Binary(*op, Box::new(ea), Box::new(eb)), Ty::Int)
            }
            RawKind::Chain(first, rest) => {
                let (e0, mut ty) = self.expr(first)?;
                let mut out = Vec::with_capacity(rest.len());
                for (op, pos, r) in rest {
                    let (e, t) = self.expr(r)?;
                    self.operands(*op, pos, ty, t)?;
                    ty = Ty::Int;
                    out.push((*op, e));
                }
                (Expr::Chain(Box::new(e0), out), Ty::Int)
            }
        })
    }

    /// Types of a binary operator's operands: alike, and integers unless it is `==` or `!=`.
    fn operands(&self, op: BinOp, pos: &Pos, ta: Ty, tb: Ty) -> Result<(), InputError> {
        if ta != tb {
            return Err(self.err(pos, format!("operator `{}` mixes types: {} and {}", pos.text, ta.name(), tb.name())));
        }
        if !matches!(op, BinOp::Eq | BinOp::Ne) && ta != Ty::Int {
            return Err(self.err(pos, format!("operator `{}` needs integers, found symbols", pos.text)));
        }
        Ok(())
    }

    fn cond(&mut self, raw: &Raw) -> Result<Expr, InputError> {
        let (e, ty) = self.expr(raw)?;
        if ty != Ty::Int {
            return Err(self.err(&raw.pos, "condition is a symbol; compare it with `==` or `!=`"));
        }
        Ok(e)
    }

    fn event(&self, name: &str, pos: &Pos) -> Result<u32, InputError> {
        self.event_ix
            .get(name)
            .copied()
            .ok_or_else(|| self.err(pos, format!("unknown event `{name}`: it has no handler and no declaration")))
    }

    /// An `if` and its `else if` links, walked in a loop (a long chain must not recurse).
    fn if_chain(&mut self, mut raw: &RawStmt) -> Result<Stmt, InputError> {
        let mut arms = Vec::new();
        let mut otherwise = loop {
            let RawStmt::If { cond, then, otherwise, pos } = raw else { unreachable!("called on an if") };
            arms.push((self.cond(cond)?, self.stmts(then)?, pos.line));
            match otherwise.as_slice() {
                [next @ RawStmt::If { .. }] => raw = next,
                _ => break self.stmts(otherwise)?,
            }
        };
        loop {
            let (cond, then, line) = arms.pop().expect("at least one arm");
            let stmt = Stmt::If { cond, then, otherwise, line };
            if arms.is_empty() {
                return Ok(stmt);
            }
            otherwise = vec![stmt];
        }
    }

    fn stmts(&mut self, raw: &[RawStmt]) -> Result<Vec<Stmt>, InputError> {
        let mut out = Vec::with_capacity(raw.len());
        for s in raw {
            out.push(match s {
                RawStmt::Assign { var, var_pos, value } => {
                    let Some(&v) = self.var_ix.get(var) else {
                        return Err(self.err(var_pos, format!("undeclared variable `{var}`")));
                    };
                    let (e, ty) = self.expr(value)?;
                    let vty = self.vars[v as usize].ty;
                    if ty != vty {
                        return Err(self.err(
                            &value.pos,
                            format!("cannot assign a {} to `{var}`, a {} variable", ty.name(), vty.name()),
                        ));
                    }
                    Stmt::Assign { var: v, value: e, line: var_pos.line }
                }
                RawStmt::If { .. } => self.if_chain(s)?,
                RawStmt::Enable { event, pos, on } => {
                    let e = self.event(event, pos)?;
                    if *on {
                        Stmt::Enable { event: e, line: pos.line }
                    } else {
                        Stmt::Disable { event: e, line: pos.line }
                    }
                }
                RawStmt::Assert { cond, message, source, pos } => Stmt::Assert {
                    cond: self.cond(cond)?,
                    message: message.clone().unwrap_or_else(|| format!("assertion `{source}` failed")),
                    line: pos.line,
                },
            });
        }
        Ok(out)
    }
}

fn check(path: &Path, items: Vec<Item>) -> Result<EventModelAst, InputError> {
    let mut ck = Checker {
        path,
        vars: Vec::new(),
        var_ix: HashMap::new(),
        event_ix: HashMap::new(),
        symbols: Vec::new(),
        sym_ix: HashMap::new(),
    };
    let mut events: Vec<EventDecl> = Vec::new();
    let mut declared: HashMap<String, usize> = HashMap::new();
    let mut apps: Vec<String> = Vec::new();
    // Declarations first (variables and events may be used before they are declared).
    for item in &items {
        match item {
            Item::Var { name, pos, init } => {
                if ck.var_ix.contains_key(name) {
                    return Err(ck.err(pos, format!("variable `{name}` declared twice")));
                }
                let (ty, value) = match &init.kind {
                    RawKind::Int(v) => (Ty::Int, *v),
                    RawKind::Str(s) => (Ty::Sym, ck.intern(s)),
                    _ => return Err(ck.err(&init.pos, "expected a literal")),
                };
                ck.var_ix.insert(name.clone(), ck.vars.len() as u32);
                ck.vars.push(VarDecl { name: name.clone(), ty, init: value, line: pos.line });
            }
            Item::Event { name, pos, disabled } => {
                if declared.insert(name.clone(), pos.line).is_some() {
                    return Err(ck.err(pos, format!("event `{name}` declared twice")));
                }
                ck.event_ix.insert(name.clone(), events.len() as u32);
                events.push(EventDecl { name: name.clone(), disabled: *disabled, line: pos.line });
            }
            Item::App { name } => {
                if !apps.contains(name) {
                    apps.push(name.clone());
                }
            }
            Item::Handler { app, event, pos, .. } => {
                if !ck.event_ix.contains_key(event) {
                    ck.event_ix.insert(event.clone(), events.len() as u32);
                    events.push(EventDecl { name: event.clone(), disabled: false, line: pos.line });
                }
                let app = app.as_deref().unwrap_or("main");
                if !apps.iter().any(|a| a == app) {
                    apps.push(app.to_string());
                }
            }
        }
    }
    let mut handlers = Vec::new();
    for item in &items {
        if let Item::Handler { app, event, pos, body } = item {
            let app_name = app.as_deref().unwrap_or("main");
            let app = apps.iter().position(|a| a == app_name).unwrap_or(0) as u32;
            let event = ck.event_ix[event];
            let body = ck.stmts(body)?;
            handlers.push(Handler { event, app, line: pos.line, body });
        }
    }
    let main_is_environment =
        apps.iter().any(|a| a == "main") && !items.iter().any(|i| matches!(i, Item::App { name } if name == "main"));
    Ok(EventModelAst {
        file: path.to_path_buf(),
        vars: ck.vars,
        events,
        apps,
        main_is_environment,
        handlers,
        symbols: ck.symbols,
    })
}
