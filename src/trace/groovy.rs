//! Parser for the Groovy subset SmartThings SmartApps are written in (the IoTCheck corpus,
//! ../shared/smartthings): `definition(...)`, `preferences { section { input ... } }`, top-level
//! methods, closures, maps and lists, GStrings with `$x.y` and `${expr}` interpolation,
//! `if`/`switch`/`for`/`while`, `try`/`catch`, command calls without parentheses
//! (`input "x", "capability.switch", title: "..."`), and trailing closures.
//!
//! Hand-written recursive descent rather than a grammar crate: no tree-sitter-groovy crate is
//! vendored here (a C build on a shared two-core machine), and Groovy's newline-sensitive command
//! calls are easier to get right with one token of lookahead and a "newline before" flag than in
//! nom. Every construct it does not take is an [`InputError`] at file:line:col naming it.

use std::path::Path;

use super::InputError;

/// A name a program binds (method and closure parameters, locals, loop and catch variables):
/// shared, so that binding it at run time counts a reference instead of copying the text.
#[derive(Clone, PartialEq, Eq)]
pub struct Name(std::sync::Arc<str>);

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(x: &str) -> Name {
        Name(x.into())
    }
}

impl From<String> for Name {
    fn from(x: String) -> Name {
        Name(x.into())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, o: &str) -> bool {
        *self.0 == *o
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, o: &&str) -> bool {
        *self.0 == **o
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Null,
    Bool(bool),
    Int(i64),
    Dec(f64),
    /// Shared, so that the interpreter's string values take it without copying the text.
    Str(std::sync::Arc<str>),
    /// A double-quoted string with interpolations.
    GStr(Vec<GPart>),
    Var(String),
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    /// `obj.name`, `obj?.name`, `obj*.name` (spread).
    Member {
        obj: Box<Expr>,
        name: String,
        spread: bool,
    },
    Index(Box<Expr>, Box<Expr>),
    /// `name(args)` when `target` is None, else `target.name(args)`.
    Call {
        target: Option<Box<Expr>>,
        name: String,
        args: Vec<Arg>,
        spread: bool,
    },
    /// Calling a value: `(expr)(args)`, `closureVar(args)` is a Call by name.
    /// Parameters (the implicit `it` when none are written) and body; shared, so that
    /// evaluating a closure expression does not copy its body.
    Closure(std::sync::Arc<(Vec<Name>, Vec<Stmt>)>),
    Unary(&'static str, Box<Expr>),
    /// `++x`/`x++` as assignments: (op, target, postfix).
    IncDec(&'static str, Box<Expr>, bool),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Elvis(Box<Expr>, Box<Expr>),
    Assign {
        op: &'static str,
        target: Box<Expr>,
        value: Box<Expr>,
    },
    Range(Box<Expr>, Box<Expr>, bool),
    /// `x as T`, `(T) x`: the type is dropped, only the conversion name kept.
    Cast(Box<Expr>, String),
    New(String, Vec<Arg>),
}

/// Method name of a call whose name is computed (`obj."$name"(args)`): the first argument.
pub const DYNAMIC: &str = "<dynamic>";

#[derive(Clone, Debug, PartialEq)]
pub enum GPart {
    Lit(String),
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Pos(Expr),
    Named(String, Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Expr(Expr, usize),
    Def(Name, Option<Expr>, usize),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    While(Expr, Vec<Stmt>),
    /// C-style `for (init; cond; update)`.
    For(Vec<Stmt>, Option<Expr>, Vec<Expr>, Vec<Stmt>),
    ForIn(Name, Expr, Vec<Stmt>),
    /// Cases (values, body); `default` has no values. Bodies fall through as in Groovy.
    Switch(Expr, Vec<(Vec<Expr>, bool, Vec<Stmt>)>),
    Return(Option<Expr>),
    Break,
    Continue,
    Block(Vec<Stmt>),
    Try(Vec<Stmt>, Vec<(Name, Vec<Stmt>)>, Vec<Stmt>),
    Throw(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Method {
    pub name: String,
    pub params: Vec<Name>,
    pub body: Vec<Stmt>,
    pub line: usize,
}

/// A parsed SmartApp: top-level statements (definition, preferences, globals) and methods.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub top: Vec<Stmt>,
    pub methods: Vec<Method>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Dec(f64),
    Str(String),
    GStr(Vec<GPart>),
    P(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
    nl: bool,
}

const PUNCTS: &[&str] = &[
    ">>>=", "<=>", "===", "!==", "==~", "..<", "**=", "<<=", ">>=", "?.", "?:", "*.", "..", "->", "==", "!=", "<=",
    ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "=~", "<<", "**", "&=", "|=", "^=", "::", "+", "-",
    "*", "/", "%", "=", "<", ">", "!", "~", "?", ":", ".", ",", ";", "(", ")", "[", "]", "{", "}", "&", "|", "^", "@",
];

type PResult<T> = Result<T, InputError>;

struct Lexer<'a> {
    file: &'a Path,
    src: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
    depth: usize,
}

impl<'a> Lexer<'a> {
    fn err(&self, line: usize, col: usize, text: &str, msg: &str) -> InputError {
        InputError::at(self.file, line, col, text, msg)
    }

    fn peek(&self, k: usize) -> char {
        *self.src.get(self.i + k).unwrap_or(&'\0')
    }

    fn bump(&mut self) -> char {
        let c = self.peek(0);
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        c
    }

    fn tokens(&mut self) -> PResult<Vec<Token>> {
        let mut out = Vec::new();
        let mut nl = true;
        // Whether a `/` here would start a division (after a value) rather than a slashy string.
        loop {
            let c = self.peek(0);
            if c == '\0' && self.i >= self.src.len() {
                out.push(Token { tok: Tok::Eof, line: self.line, col: self.col, nl: true });
                return Ok(out);
            }
            if c == '\n' {
                nl = true;
                self.bump();
                continue;
            }
            if c.is_whitespace() {
                self.bump();
                continue;
            }
            if c == '\\' && self.peek(1) == '\n' {
                self.bump();
                self.bump();
                continue;
            }
            if c == '/' && self.peek(1) == '/' {
                while self.peek(0) != '\n' && self.i < self.src.len() {
                    self.bump();
                }
                continue;
            }
            if c == '/' && self.peek(1) == '*' {
                let (l, k) = (self.line, self.col);
                self.bump();
                self.bump();
                while !(self.peek(0) == '*' && self.peek(1) == '/') {
                    if self.i >= self.src.len() {
                        return Err(self.err(l, k, "/*", "unterminated comment"));
                    }
                    self.bump();
                }
                self.bump();
                self.bump();
                continue;
            }
            if c == '#' && self.peek(1) == '!' && self.i == 0 {
                while self.peek(0) != '\n' && self.i < self.src.len() {
                    self.bump();
                }
                continue;
            }
            let (line, col) = (self.line, self.col);
            let tok = if c.is_alphabetic() || c == '_' || c == '$' {
                let mut s = String::new();
                while self.peek(0).is_alphanumeric() || self.peek(0) == '_' || self.peek(0) == '$' {
                    s.push(self.bump());
                }
                Tok::Ident(s)
            } else if c.is_ascii_digit() {
                self.number(line, col)?
            } else if c == '"' || c == '\'' {
                self.string(c, line, col)?
            } else if c == '/' && starts_slashy(out.last()) {
                self.slashy(line, col)?
            } else {
                let rest: String = self.src[self.i..(self.i + 4).min(self.src.len())].iter().collect();
                let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
                    return Err(self.err(line, col, &c.to_string(), "unexpected character"));
                };
                for _ in 0..p.chars().count() {
                    self.bump();
                }
                Tok::P(p)
            };
            out.push(Token { tok, line, col, nl });
            nl = false;
        }
    }

    fn number(&mut self, line: usize, col: usize) -> PResult<Tok> {
        let mut s = String::new();
        if self.peek(0) == '0' && matches!(self.peek(1), 'b' | 'B') && matches!(self.peek(2), '0' | '1') {
            self.bump();
            self.bump();
            while matches!(self.peek(0), '0' | '1' | '_') {
                let c = self.bump();
                if c != '_' {
                    s.push(c);
                }
            }
            return i64::from_str_radix(&s, 2).map(Tok::Int).map_err(|_| self.err(line, col, &s, "bad binary number"));
        }
        if self.peek(0) == '0' && matches!(self.peek(1), 'x' | 'X') {
            self.bump();
            self.bump();
            while self.peek(0).is_ascii_hexdigit() {
                s.push(self.bump());
            }
            return i64::from_str_radix(&s, 16).map(Tok::Int).map_err(|_| self.err(line, col, &s, "bad hex number"));
        }
        while self.peek(0).is_ascii_digit() || self.peek(0) == '_' {
            let c = self.bump();
            if c != '_' {
                s.push(c);
            }
        }
        let mut dec = false;
        if self.peek(0) == '.' && self.peek(1).is_ascii_digit() {
            dec = true;
            s.push(self.bump());
            while self.peek(0).is_ascii_digit() {
                s.push(self.bump());
            }
        }
        if matches!(self.peek(0), 'e' | 'E') && (self.peek(1).is_ascii_digit() || self.peek(1) == '-') {
            dec = true;
            s.push(self.bump());
            s.push(self.bump());
            while self.peek(0).is_ascii_digit() {
                s.push(self.bump());
            }
        }
        // Type suffixes: 10L, 1.5f, 2G ...
        if matches!(self.peek(0), 'l' | 'L' | 'f' | 'F' | 'd' | 'D' | 'g' | 'G' | 'i' | 'I') {
            if matches!(self.peek(0), 'f' | 'F' | 'd' | 'D') {
                dec = true;
            }
            self.bump();
        }
        if dec {
            s.parse().map(Tok::Dec).map_err(|_| self.err(line, col, &s, "bad number"))
        } else {
            Ok(s.parse().map(Tok::Int).unwrap_or(Tok::Dec(s.parse().unwrap_or(f64::MAX))))
        }
    }

    fn escape(&mut self) -> char {
        match self.bump() {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'u' => {
                let hex: String = (0..4).map(|_| self.bump()).collect();
                u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('?')
            }
            c => c,
        }
    }

    fn string(&mut self, q: char, line: usize, col: usize) -> PResult<Tok> {
        let triple = self.peek(1) == q && self.peek(2) == q;
        for _ in 0..if triple { 3 } else { 1 } {
            self.bump();
        }
        let mut parts = Vec::new();
        let mut lit = String::new();
        loop {
            if self.i >= self.src.len() || (!triple && self.peek(0) == '\n') {
                return Err(self.err(line, col, &q.to_string(), "unterminated string"));
            }
            let c = self.peek(0);
            if c == q && (!triple || (self.peek(1) == q && self.peek(2) == q)) {
                for _ in 0..if triple { 3 } else { 1 } {
                    self.bump();
                }
                break;
            }
            if c == '\\' {
                self.bump();
                lit.push(self.escape());
                continue;
            }
            if q == '"' && c == '$' && (self.peek(1) == '{' || self.peek(1).is_alphabetic() || self.peek(1) == '_') {
                if !lit.is_empty() {
                    parts.push(GPart::Lit(std::mem::take(&mut lit)));
                }
                parts.push(GPart::Expr(self.interpolation()?));
                continue;
            }
            lit.push(self.bump());
        }
        if q == '\'' || parts.is_empty() {
            return Ok(Tok::Str(lit));
        }
        if !lit.is_empty() {
            parts.push(GPart::Lit(lit));
        }
        Ok(Tok::GStr(parts))
    }

    /// `$a.b.c` or `${expr}` inside a GString; the lexer is at the `$`.
    fn interpolation(&mut self) -> PResult<Expr> {
        let (line, col) = (self.line, self.col);
        self.bump();
        if self.peek(0) == '{' {
            self.bump();
            let start = self.i;
            let (l0, c0) = (self.line, self.col);
            let mut depth = 1;
            while depth > 0 {
                if self.i >= self.src.len() {
                    return Err(self.err(line, col, "${", "unterminated interpolation"));
                }
                match self.bump() {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            let inner: String = self.src[start..self.i - 1].iter().collect();
            if inner.trim().is_empty() {
                return Ok(Expr::Str("".into()));
            }
            if self.depth > 8 {
                return Err(self.err(line, col, "${", "interpolation nested too deep"));
            }
            let mut sub =
                Lexer { file: self.file, src: inner.chars().collect(), i: 0, line: l0, col: c0, depth: self.depth + 1 };
            let toks = sub.tokens()?;
            let mut p = Parser { file: self.file, toks, i: 0, depth: self.depth + 1 };
            let e = p.expr()?;
            p.expect_eof()?;
            return Ok(e);
        }
        let mut name = String::new();
        while self.peek(0).is_alphanumeric() || self.peek(0) == '_' {
            name.push(self.bump());
        }
        let mut e = Expr::Var(name);
        while self.peek(0) == '.' && (self.peek(1).is_alphabetic() || self.peek(1) == '_') {
            self.bump();
            let mut n = String::new();
            while self.peek(0).is_alphanumeric() || self.peek(0) == '_' {
                n.push(self.bump());
            }
            e = Expr::Member { obj: Box::new(e), name: n, spread: false };
        }
        Ok(e)
    }

    fn slashy(&mut self, line: usize, col: usize) -> PResult<Tok> {
        self.bump();
        let mut s = String::new();
        while self.peek(0) != '/' {
            if self.i >= self.src.len() || self.peek(0) == '\n' {
                return Err(self.err(line, col, "/", "unterminated slashy string"));
            }
            if self.peek(0) == '\\' && self.peek(1) == '/' {
                self.bump();
            }
            s.push(self.bump());
        }
        self.bump();
        Ok(Tok::Str(s))
    }
}

/// A `/` starts a slashy string (regex) where no value precedes it.
fn starts_slashy(prev: Option<&Token>) -> bool {
    match prev.map(|t| &t.tok) {
        None => true,
        Some(Tok::P(p)) => !matches!(*p, ")" | "]" | "}"),
        Some(Tok::Ident(w)) => matches!(w.as_str(), "return" | "case" | "in"),
        _ => false,
    }
}

/// Parses a SmartApp's source.
pub fn parse(file: &Path, text: &str) -> PResult<Script> {
    let mut lx = Lexer { file, src: text.chars().collect(), i: 0, line: 1, col: 1, depth: 0 };
    let toks = lx.tokens()?;
    let mut p = Parser { file, toks, i: 0, depth: 0 };
    p.script()
}

struct Parser<'a> {
    file: &'a Path,
    toks: Vec<Token>,
    i: usize,
    depth: usize,
}

/// Words that start statements or are keywords; never a command-call argument.
const KEYWORDS: &[&str] = &[
    "if",
    "else",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "return",
    "break",
    "continue",
    "try",
    "catch",
    "finally",
    "throw",
    "def",
    "in",
    "as",
    "instanceof",
    "new",
    "true",
    "false",
    "null",
    "class",
    "import",
    "package",
    "do",
];

const MODIFIERS: &[&str] = &["private", "public", "protected", "static", "final", "synchronized"];

fn text_of(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => s.clone(),
        Tok::Int(v) => v.to_string(),
        Tok::Dec(v) => v.to_string(),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::GStr(_) => "\"…\"".into(),
        Tok::P(p) => p.to_string(),
        Tok::Eof => "end of file".into(),
    }
}

impl Parser<'_> {
    fn tok(&self) -> &Tok {
        &self.toks[self.i].tok
    }
    fn at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }
    fn line(&self) -> usize {
        self.toks[self.i].line
    }
    fn nl(&self) -> bool {
        self.toks[self.i].nl
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.tok(), Tok::P(q) if *q == p)
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.tok(), Tok::Ident(s) if s == w)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn err<T>(&self, msg: &str) -> PResult<T> {
        let t = &self.toks[self.i];
        Err(InputError::at(self.file, t.line, t.col, &text_of(&t.tok), msg))
    }
    fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.err(&format!("expected `{p}`"))
        }
    }
    fn expect_eof(&self) -> PResult<()> {
        if matches!(self.tok(), Tok::Eof) {
            Ok(())
        } else {
            self.err("unexpected text after expression")
        }
    }
    fn ident(&mut self) -> PResult<String> {
        match self.tok().clone() {
            Tok::Ident(s) => {
                self.i += 1;
                Ok(s)
            }
            _ => self.err("expected a name"),
        }
    }
    fn skip_semis(&mut self) {
        while self.eat(";") {}
    }

    fn script(&mut self) -> PResult<Script> {
        let mut top = Vec::new();
        let mut methods = Vec::new();
        loop {
            self.skip_semis();
            if matches!(self.tok(), Tok::Eof) {
                return Ok(Script { top, methods });
            }
            if self.is_word("import") || self.is_word("package") {
                let l = self.line();
                while !matches!(self.tok(), Tok::Eof) && self.line() == l {
                    self.i += 1;
                }
                continue;
            }
            if self.is_word("class") || self.is_word("interface") || self.is_word("enum") {
                return self.err("class declarations are not supported (construct: class)");
            }
            // Annotations (`@Deprecated`, `@Field`) change nothing the model looks at.
            if self.is("@") && matches!(self.at(1), Tok::Ident(_)) {
                self.i += 2;
                if self.is("(") && !self.nl() {
                    self.i += 1;
                    self.arg_list(Some(")"))?;
                }
                continue;
            }
            if let Some(m) = self.try_method()? {
                methods.push(m);
                continue;
            }
            top.push(self.stmt()?);
        }
    }

    /// Skips a type: `Name`, `a.b.Name`, `Name<...>`, `Name[]`. Returns whether one was there.
    fn skip_type(&mut self) -> bool {
        let save = self.i;
        let Tok::Ident(first) = self.tok().clone() else { return false };
        if KEYWORDS.contains(&first.as_str()) && first != "def" {
            return false;
        }
        self.i += 1;
        while self.is(".") && matches!(self.at(1), Tok::Ident(_)) {
            self.i += 2;
        }
        if self.is("<") {
            let mut depth = 0;
            loop {
                if self.eat("<") {
                    depth += 1;
                } else if self.eat(">") {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                } else if self.eat(">>") {
                    depth -= 2;
                    if depth <= 0 {
                        break;
                    }
                } else if matches!(self.tok(), Tok::Ident(_)) || self.is(",") || self.is("?") {
                    self.i += 1;
                } else {
                    self.i = save;
                    return false;
                }
            }
        }
        while self.is("[") && matches!(self.at(1), Tok::P("]")) {
            self.i += 2;
        }
        true
    }

    /// `[modifiers] [def|Type] name(params) {` at top level.
    fn try_method(&mut self) -> PResult<Option<Method>> {
        let save = self.i;
        let line = self.line();
        let mut any = false;
        while matches!(self.tok(), Tok::Ident(s) if MODIFIERS.contains(&s.as_str())) {
            self.i += 1;
            any = true;
        }
        let typed = self.eat_word("def") || {
            let before = self.i;
            if self.skip_type() && matches!(self.tok(), Tok::Ident(_)) && matches!(self.at(1), Tok::P("(")) {
                true
            } else {
                self.i = before;
                false
            }
        };
        if !(typed || any) || !matches!(self.tok(), Tok::Ident(_)) || !matches!(self.at(1), Tok::P("(")) {
            self.i = save;
            return Ok(None);
        }
        let name = self.ident()?;
        self.expect("(")?;
        let params = self.params(")")?;
        if self.eat_word("throws") {
            while self.skip_type() && self.eat(",") {}
        }
        if !self.is("{") {
            self.i = save;
            return Ok(None);
        }
        let body = self.block()?;
        Ok(Some(Method { name, params, body, line }))
    }

    /// Parameters up to `close`: `[Type] name [= default]`, comma separated.
    fn params(&mut self, close: &str) -> PResult<Vec<Name>> {
        let mut out = Vec::new();
        while !self.eat(close) {
            let before = self.i;
            self.eat_word("final");
            self.eat_word("def");
            if self.skip_type() && !matches!(self.tok(), Tok::Ident(_)) {
                self.i = before;
                self.eat_word("def");
            }
            out.push(self.ident()?.into());
            if self.eat("=") {
                self.expr()?;
            }
            if !self.eat(",") && !self.is(close) {
                return self.err("expected `,` or end of parameters");
            }
        }
        Ok(out)
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.expect("{")?;
        self.depth += 1;
        if self.depth > 100 {
            return self.err("nesting too deep");
        }
        let mut out = Vec::new();
        loop {
            self.skip_semis();
            if self.eat("}") {
                self.depth -= 1;
                return Ok(out);
            }
            if matches!(self.tok(), Tok::Eof) {
                return self.err("expected `}`");
            }
            out.push(self.stmt()?);
        }
    }

    /// A block or a single statement (bodies of `if`, loops).
    fn body(&mut self) -> PResult<Vec<Stmt>> {
        if self.is("{") {
            self.block()
        } else {
            Ok(vec![self.stmt()?])
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let line = self.line();
        if self.is("{") {
            return Ok(Stmt::Block(self.block()?));
        }
        // A label (`action: [...]` in `mappings`): Groovy ignores it, so do we.
        if matches!(self.tok(), Tok::Ident(_)) && matches!(self.at(1), Tok::P(":")) {
            self.i += 2;
            return self.stmt();
        }
        let Tok::Ident(w) = self.tok().clone() else {
            let e = self.expr_stmt()?;
            return Ok(Stmt::Expr(e, line));
        };
        match w.as_str() {
            "if" => {
                self.i += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                let then = self.body()?;
                self.skip_semis();
                let otherwise = if self.eat_word("else") { self.body()? } else { Vec::new() };
                Ok(Stmt::If(c, then, otherwise))
            }
            "while" => {
                self.i += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                Ok(Stmt::While(c, self.body()?))
            }
            "for" => self.for_stmt(),
            "switch" => self.switch_stmt(),
            "return" => {
                self.i += 1;
                if self.is("}") || self.is(";") || self.nl() || matches!(self.tok(), Tok::Eof) {
                    return Ok(Stmt::Return(None));
                }
                Ok(Stmt::Return(Some(self.expr()?)))
            }
            "break" => {
                self.i += 1;
                Ok(Stmt::Break)
            }
            "continue" => {
                self.i += 1;
                Ok(Stmt::Continue)
            }
            "throw" => {
                self.i += 1;
                Ok(Stmt::Throw(self.expr()?))
            }
            "try" => {
                self.i += 1;
                let body = self.block()?;
                let mut catches = Vec::new();
                while self.eat_word("catch") {
                    self.expect("(")?;
                    let mut names = Vec::new();
                    while !self.eat(")") {
                        if let Tok::Ident(s) = self.tok().clone() {
                            names.push(s);
                        }
                        self.i += 1;
                        if matches!(self.tok(), Tok::Eof) {
                            return self.err("expected `)`");
                        }
                    }
                    catches.push((names.pop().unwrap_or_default().into(), self.block()?));
                }
                let fin = if self.eat_word("finally") { self.block()? } else { Vec::new() };
                Ok(Stmt::Try(body, catches, fin))
            }
            "do" => self.err("do-while loops are not supported (construct: do)"),
            "class" => self.err("class declarations are not supported (construct: class)"),
            "def" | "final" => {
                self.i += 1;
                self.eat_word("def");
                self.decl(line)
            }
            _ => {
                // `Type name [= ...]` declaration: a capitalised or primitive type, then a name.
                let save = self.i;
                let typeish = w.chars().next().is_some_and(char::is_uppercase)
                    || matches!(
                        w.as_str(),
                        "int" | "long" | "boolean" | "double" | "float" | "short" | "byte" | "char"
                    );
                if typeish
                    && self.skip_type()
                    && matches!(self.tok(), Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()))
                    && !self.nl()
                    && (matches!(self.at(1), Tok::P("=") | Tok::P(";") | Tok::P("}") | Tok::Eof | Tok::P(","))
                        || self.toks[self.i + 1].nl)
                {
                    return self.decl(line);
                }
                self.i = save;
                let e = self.expr_stmt()?;
                Ok(Stmt::Expr(e, line))
            }
        }
    }

    /// After `def` / a type: `name [= expr] [, name [= expr]]`, or `(a, b) = expr`.
    fn decl(&mut self, line: usize) -> PResult<Stmt> {
        if self.is("(") {
            return self.err("multiple assignment is not supported (construct: def (a, b) = ...)");
        }
        // `def Type name = ...`
        let save = self.i;
        if !(self.skip_type() && matches!(self.tok(), Tok::Ident(_)) && !self.nl()) {
            self.i = save;
        }
        let mut decls = Vec::new();
        loop {
            let name = self.ident()?;
            let init = if self.eat("=") { Some(self.expr()?) } else { None };
            decls.push(Stmt::Def(name.into(), init, line));
            if !self.eat(",") {
                break;
            }
        }
        Ok(if decls.len() == 1 { decls.pop().unwrap() } else { Stmt::Block(decls) })
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        self.i += 1;
        self.expect("(")?;
        // for (x in xs) / for (Type x in xs) / for (x : xs)
        let save = self.i;
        self.eat_word("def");
        let before = self.i;
        let direct = matches!(self.at(1), Tok::Ident(w) if w == "in") || matches!(self.at(1), Tok::P(":"));
        if !direct && self.skip_type() && !matches!(self.tok(), Tok::Ident(_)) {
            self.i = before;
        }
        if let Tok::Ident(name) = self.tok().clone() {
            if matches!(self.at(1), Tok::Ident(w) if w == "in") || matches!(self.at(1), Tok::P(":")) {
                self.i += 2;
                let it = self.expr()?;
                self.expect(")")?;
                return Ok(Stmt::ForIn(name.into(), it, self.body()?));
            }
        }
        self.i = save;
        let line = self.line();
        let mut init = Vec::new();
        if !self.is(";") {
            init.push(self.stmt()?);
            let _ = line;
        }
        self.expect(";")?;
        let cond = if self.is(";") { None } else { Some(self.expr()?) };
        self.expect(";")?;
        let mut update = Vec::new();
        while !self.eat(")") {
            update.push(self.expr()?);
            self.eat(",");
        }
        Ok(Stmt::For(init, cond, update, self.body()?))
    }

    fn switch_stmt(&mut self) -> PResult<Stmt> {
        self.i += 1;
        self.expect("(")?;
        let v = self.expr()?;
        self.expect(")")?;
        self.expect("{")?;
        let mut cases: Vec<(Vec<Expr>, bool, Vec<Stmt>)> = Vec::new();
        loop {
            self.skip_semis();
            if self.eat("}") {
                return Ok(Stmt::Switch(v, cases));
            }
            if self.eat_word("case") {
                let e = self.expr()?;
                self.expect(":")?;
                // `case a: case b:` share one body.
                match cases.last_mut() {
                    Some((vals, false, body)) if body.is_empty() => vals.push(e),
                    _ => cases.push((vec![e], false, Vec::new())),
                }
            } else if self.eat_word("default") {
                self.expect(":")?;
                cases.push((Vec::new(), true, Vec::new()));
            } else if let Some(last) = cases.last_mut() {
                let s = self.stmt()?;
                last.2.push(s);
            } else {
                return self.err("expected `case` or `default`");
            }
        }
    }

    /// An expression statement, which may be a command call without parentheses.
    fn expr_stmt(&mut self) -> PResult<Expr> {
        let save = self.i;
        if let Some(e) = self.try_command()? {
            return Ok(e);
        }
        self.i = save;
        self.expr()
    }

    /// `name arg, key: v, ...` or `a.b.name arg ...` on one line.
    fn try_command(&mut self) -> PResult<Option<Expr>> {
        let Tok::Ident(first) = self.tok().clone() else { return Ok(None) };
        if KEYWORDS.contains(&first.as_str()) {
            return Ok(None);
        }
        let mut target: Option<Expr> = None;
        let mut name = first;
        self.i += 1;
        while self.is(".") && matches!(self.at(1), Tok::Ident(_)) {
            self.i += 1;
            let n = self.ident()?;
            let prev = std::mem::replace(&mut name, n);
            target = Some(match target {
                None => Expr::Var(prev),
                Some(t) => Expr::Member { obj: Box::new(t), name: prev, spread: false },
            });
        }
        let starts_arg = !self.nl()
            && match self.tok() {
                Tok::Str(_) | Tok::GStr(_) | Tok::Int(_) | Tok::Dec(_) => true,
                Tok::Ident(w) => !matches!(w.as_str(), "in" | "as" | "instanceof"),
                // `name [..]` is an index, not a call with a list argument.
                Tok::P(_) => false,
                Tok::Eof => false,
            };
        if !starts_arg {
            return Ok(None);
        }
        let args = self.arg_list(None)?;
        let mut call = Expr::Call { target: target.map(Box::new), name, args, spread: false };
        if self.is("{") && !self.nl() {
            let c = self.closure()?;
            if let Expr::Call { args, .. } = &mut call {
                args.push(Arg::Pos(c));
            }
        }
        Ok(Some(call))
    }

    /// Arguments separated by commas up to `close` (None: up to the end of the command).
    fn arg_list(&mut self, close: Option<&str>) -> PResult<Vec<Arg>> {
        let mut args = Vec::new();
        loop {
            // An empty slot (`a, , b`) occurs in the corpus and is skipped.
            while close.is_some() && !args.is_empty() && self.eat(",") {}
            if let Some(c) = close {
                if self.eat(c) {
                    return Ok(args);
                }
            }
            let named = match (self.tok().clone(), self.at(1)) {
                (Tok::Ident(n), Tok::P(":")) => Some(n),
                (Tok::Str(n), Tok::P(":")) => Some(n),
                _ => None,
            };
            if let Some(n) = named {
                self.i += 2;
                args.push(Arg::Named(n, self.expr()?));
            } else if self.is("*") {
                // Spread arguments (`f(*list)`): passed as the list itself.
                self.i += 1;
                args.push(Arg::Pos(self.expr()?));
            } else {
                args.push(Arg::Pos(self.expr()?));
            }
            if !self.eat(",") {
                match close {
                    Some(c) => {
                        self.expect(c)?;
                        return Ok(args);
                    }
                    None => return Ok(args),
                }
            }
        }
    }

    /// Runs `f` one nesting level deeper, refusing input nested past the limit.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.depth += 1;
        if self.depth > 100 {
            return self.err("expression nested too deep");
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        // Deep enough for any app; shallow enough for a 2 MB thread stack.
        if self.depth > 100 {
            return self.err("expression nested too deep");
        }
        let r = self.assignment();
        self.depth -= 1;
        r
    }

    fn assignment(&mut self) -> PResult<Expr> {
        let lhs = self.ternary()?;
        for op in ["=", "+=", "-=", "*=", "/=", "%=", "<<=", "|=", "&=", "**="] {
            if self.is(op) {
                self.i += 1;
                let op: &'static str = PUNCTS.iter().find(|p| **p == op).unwrap();
                let value = self.expr()?;
                return Ok(Expr::Assign { op, target: Box::new(lhs), value: Box::new(value) });
            }
        }
        Ok(lhs)
    }

    fn ternary(&mut self) -> PResult<Expr> {
        let c = self.binary(0)?;
        if self.eat("?:") {
            let b = self.ternary()?;
            return Ok(Expr::Elvis(Box::new(c), Box::new(b)));
        }
        if self.is("?") {
            self.i += 1;
            let a = self.ternary()?;
            self.expect(":")?;
            let b = self.ternary()?;
            return Ok(Expr::Ternary(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn binary(&mut self, level: usize) -> PResult<Expr> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!=", "<=>", "===", "!==", "=~", "==~"],
            &["<", "<=", ">", ">=", "in", "instanceof", "as"],
            &["..", "..<"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
            &["**"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            // An operator on a new line starts a new statement, as in Groovy.
            if self.nl() {
                return Ok(lhs);
            }
            let op = match self.tok() {
                Tok::P(p) if LEVELS[level].contains(p) => *p,
                Tok::Ident(w) if LEVELS[level].contains(&w.as_str()) => {
                    LEVELS[level].iter().find(|x| **x == w.as_str()).copied().unwrap()
                }
                _ => return Ok(lhs),
            };
            self.i += 1;
            if op == "as" || op == "instanceof" {
                let save = self.i;
                if !self.skip_type() {
                    self.i = save;
                    return self.err("expected a type");
                }
                let ty = match &self.toks[save].tok {
                    Tok::Ident(s) => s.clone(),
                    _ => String::new(),
                };
                lhs = if op == "as" {
                    Expr::Cast(Box::new(lhs), ty)
                } else {
                    Expr::Binary("instanceof", Box::new(lhs), Box::new(Expr::Str(ty.into())))
                };
                continue;
            }
            let rhs = self.binary(level + 1)?;
            lhs = match op {
                ".." => Expr::Range(Box::new(lhs), Box::new(rhs), true),
                "..<" => Expr::Range(Box::new(lhs), Box::new(rhs), false),
                _ => Expr::Binary(op, Box::new(lhs), Box::new(rhs)),
            };
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        for op in ["!", "-", "+", "~"] {
            if self.is(op) {
                return self.nested(|p| {
                    p.i += 1;
                    let op: &'static str = PUNCTS.iter().find(|x| **x == op).unwrap();
                    let e = p.unary()?;
                    Ok(match (op, e) {
                        ("-", Expr::Int(v)) => Expr::Int(v.wrapping_neg()),
                        ("-", Expr::Dec(v)) => Expr::Dec(-v),
                        ("+", e) => e,
                        (op, e) => Expr::Unary(op, Box::new(e)),
                    })
                });
            }
            if self.eat(op) {
                let op: &'static str = PUNCTS.iter().find(|p| **p == op).unwrap();
                let e = self.unary()?;
                return Ok(match (op, e) {
                    ("-", Expr::Int(v)) => Expr::Int(v.wrapping_neg()),
                    ("-", Expr::Dec(v)) => Expr::Dec(-v),
                    ("+", e) => e,
                    (op, e) => Expr::Unary(op, Box::new(e)),
                });
            }
        }
        for op in ["++", "--"] {
            if self.eat(op) {
                let op: &'static str = if op == "++" { "+" } else { "-" };
                let e = self.unary()?;
                return Ok(Expr::IncDec(op, Box::new(e), false));
            }
        }
        // `(Type) expr` cast
        if self.is("(") {
            if let (Tok::Ident(t), Tok::P(")")) = (self.at(1).clone(), self.at(2).clone()) {
                let next = self.at(3).clone();
                let primitive =
                    matches!(t.as_str(), "int" | "long" | "double" | "float" | "boolean" | "short" | "byte");
                if (primitive || t.chars().next().is_some_and(char::is_uppercase))
                    && matches!(next, Tok::Ident(_) | Tok::Str(_) | Tok::GStr(_) | Tok::Int(_) | Tok::P("("))
                {
                    self.i += 3;
                    let e = self.unary()?;
                    return Ok(Expr::Cast(Box::new(e), t));
                }
            }
        }
        let mut e = self.postfix()?;
        if !self.nl() {
            if self.eat("++") {
                e = Expr::IncDec("+", Box::new(e), true);
            } else if self.eat("--") {
                e = Expr::IncDec("-", Box::new(e), true);
            }
        }
        Ok(e)
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.is(".") || self.is("?.") || self.is("*.") {
                let spread = self.is("*.");
                self.i += 1;
                let name = match self.tok().clone() {
                    Tok::Ident(s) => s,
                    Tok::Str(s) => s,
                    Tok::GStr(parts) => {
                        // `obj."$name"`: an index by the string; `obj."$name"(args)`: a call by it.
                        self.i += 1;
                        let key = Expr::GStr(parts);
                        if self.is("(") && !self.nl() {
                            self.i += 1;
                            let mut args = self.arg_list(Some(")"))?;
                            args.insert(0, Arg::Pos(key));
                            e = Expr::Call { target: Some(Box::new(e)), name: DYNAMIC.into(), args, spread };
                        } else {
                            e = Expr::Index(Box::new(e), Box::new(key));
                        }
                        continue;
                    }
                    _ => return self.err("expected a member name"),
                };
                self.i += 1;
                if self.is("(") && !self.nl() {
                    self.i += 1;
                    let mut args = self.arg_list(Some(")"))?;
                    if self.is("{") && !self.nl() {
                        args.push(Arg::Pos(self.closure()?));
                    }
                    e = Expr::Call { target: Some(Box::new(e)), name, args, spread };
                } else if self.is("{") && !self.nl() {
                    let c = self.closure()?;
                    e = Expr::Call { target: Some(Box::new(e)), name, args: vec![Arg::Pos(c)], spread };
                } else {
                    e = Expr::Member { obj: Box::new(e), name, spread };
                }
            } else if self.is("[") && !self.nl() {
                self.i += 1;
                let idx = self.expr()?;
                self.expect("]")?;
                e = Expr::Index(Box::new(e), Box::new(idx));
            } else if self.is("(") && !self.nl() {
                // Calling a closure-valued expression.
                self.i += 1;
                let args = self.arg_list(Some(")"))?;
                e = Expr::Call { target: Some(Box::new(e)), name: "call".into(), args, spread: false };
            } else {
                return Ok(e);
            }
        }
    }

    fn closure(&mut self) -> PResult<Expr> {
        self.expect("{")?;
        // Parameters: `a, b ->` (optionally typed); else the implicit `it`.
        let save = self.i;
        let mut params = Vec::new();
        let mut ok = false;
        if self.eat("->") {
            ok = true;
        } else {
            loop {
                let before = self.i;
                if self.skip_type() && !matches!(self.tok(), Tok::Ident(_)) {
                    self.i = before;
                }
                match self.tok().clone() {
                    Tok::Ident(n) => {
                        self.i += 1;
                        params.push(n.into());
                    }
                    _ => break,
                }
                if self.eat("->") {
                    ok = true;
                    break;
                }
                if !self.eat(",") {
                    break;
                }
            }
        }
        if !ok {
            self.i = save;
            params = vec!["it".into()];
        }
        let mut body = Vec::new();
        self.depth += 1;
        if self.depth > 100 {
            return self.err("closures nested too deep");
        }
        loop {
            self.skip_semis();
            if self.eat("}") {
                break;
            }
            if matches!(self.tok(), Tok::Eof) {
                return self.err("expected `}` closing a closure");
            }
            body.push(self.stmt()?);
        }
        self.depth -= 1;
        Ok(Expr::Closure(std::sync::Arc::new((params, body))))
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.tok().clone();
        match t {
            Tok::Int(v) => {
                self.i += 1;
                Ok(Expr::Int(v))
            }
            Tok::Dec(v) => {
                self.i += 1;
                Ok(Expr::Dec(v))
            }
            Tok::Str(s) => {
                self.i += 1;
                Ok(Expr::Str(s.into()))
            }
            Tok::GStr(p) => {
                self.i += 1;
                Ok(Expr::GStr(p))
            }
            Tok::P("(") => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::P("[") => self.list_or_map(),
            Tok::P("{") => self.closure(),
            Tok::Ident(w) => {
                self.i += 1;
                match w.as_str() {
                    "true" => return Ok(Expr::Bool(true)),
                    "false" => return Ok(Expr::Bool(false)),
                    "null" => return Ok(Expr::Null),
                    "new" => {
                        let save = self.i;
                        if !self.skip_type() {
                            return self.err("expected a type after `new`");
                        }
                        // A qualified type (`groovy.json.JsonSlurper`) goes by its last name.
                        // (Not a name inside its type arguments: `new ArrayList<String>()`.)
                        let mut last = save;
                        let mut k = save;
                        while k + 2 < self.i && matches!(self.toks[k + 1].tok, Tok::P(".")) {
                            k += 2;
                            if matches!(self.toks[k].tok, Tok::Ident(_)) {
                                last = k;
                            }
                        }
                        let ty = text_of(&self.toks[last].tok);
                        let args = if self.eat("(") { self.arg_list(Some(")"))? } else { Vec::new() };
                        return Ok(Expr::New(ty, args));
                    }
                    "this" | "super" if self.is(".") => {
                        // `this.method(...)` is a call of the app's own method.
                        self.i += 1;
                        let name = self.ident()?;
                        if self.eat("(") {
                            let args = self.arg_list(Some(")"))?;
                            return Ok(Expr::Call { target: None, name, args, spread: false });
                        }
                        return Ok(Expr::Var(name));
                    }
                    _ if KEYWORDS.contains(&w.as_str()) && !matches!(w.as_str(), "in") => {
                        self.i -= 1;
                        return self.err(&format!("unexpected keyword (construct: {w})"));
                    }
                    _ => {}
                }
                if self.is("(") && !self.nl() {
                    self.i += 1;
                    let mut args = self.arg_list(Some(")"))?;
                    if self.is("{") && !self.nl() {
                        args.push(Arg::Pos(self.closure()?));
                    }
                    return Ok(Expr::Call { target: None, name: w, args, spread: false });
                }
                if self.is("{") && !self.nl() && w.chars().next().is_some_and(char::is_lowercase) {
                    let c = self.closure()?;
                    return Ok(Expr::Call { target: None, name: w, args: vec![Arg::Pos(c)], spread: false });
                }
                Ok(Expr::Var(w))
            }
            _ => self.err("expected an expression"),
        }
    }

    fn list_or_map(&mut self) -> PResult<Expr> {
        self.expect("[")?;
        if self.eat(":") {
            self.expect("]")?;
            return Ok(Expr::Map(Vec::new()));
        }
        let mut items = Vec::new();
        let mut pairs = Vec::new();
        loop {
            if self.eat("]") {
                break;
            }
            let key = match (self.tok().clone(), self.at(1)) {
                (Tok::Ident(n), Tok::P(":")) => Some(Expr::Str(n.into())),
                (Tok::Str(n), Tok::P(":")) => Some(Expr::Str(n.into())),
                (Tok::Int(n), Tok::P(":")) => Some(Expr::Int(n)),
                _ => None,
            };
            if let Some(k) = key {
                self.i += 2;
                pairs.push((k, self.expr()?));
            } else if self.is("(") {
                let e = self.expr()?;
                if self.eat(":") {
                    pairs.push((e, self.expr()?));
                } else {
                    items.push(e);
                }
            } else {
                let e = self.expr()?;
                if self.eat(":") {
                    pairs.push((e, self.expr()?));
                } else {
                    items.push(e);
                }
            }
            if !self.eat(",") {
                self.expect("]")?;
                break;
            }
        }
        if !pairs.is_empty() && !items.is_empty() {
            return self.err("a literal mixes list items and map entries");
        }
        Ok(if pairs.is_empty() { Expr::List(items) } else { Expr::Map(pairs) })
    }
}
