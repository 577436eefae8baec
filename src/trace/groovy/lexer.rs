//! Tokens of the Groovy subset: numbers, strings and GStrings (with their interpolations),
//! slashy strings, punctuation; each token knows whether a newline precedes it, which command
//! calls need.

use std::path::Path;

use super::ast::{Expr, GPart};
use super::parser::Parser;
use super::{InputError, PResult};

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Int(i64),
    Dec(f64),
    Str(String),
    GStr(Vec<GPart>),
    P(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: usize,
    pub(super) col: usize,
    pub(super) nl: bool,
}

pub(super) const PUNCTS: &[&str] = &[
    ">>>=", "<=>", "===", "!==", "==~", "..<", "**=", "<<=", ">>=", "?.", "?:", "*.", "..", "->", "==", "!=", "<=",
    ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "=~", "<<", "**", "&=", "|=", "^=", "::", "+", "-",
    "*", "/", "%", "=", "<", ">", "!", "~", "?", ":", ".", ",", ";", "(", ")", "[", "]", "{", "}", "&", "|", "^", "@",
];

pub(super) struct Lexer<'a> {
    pub(super) file: &'a Path,
    pub(super) src: Vec<char>,
    pub(super) i: usize,
    pub(super) line: usize,
    pub(super) col: usize,
    pub(super) depth: usize,
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

    pub(super) fn tokens(&mut self) -> PResult<Vec<Token>> {
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
