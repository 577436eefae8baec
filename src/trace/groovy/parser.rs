//! Recursive descent over the tokens: the script, methods, statements and command calls.
//! Expressions are in `expr.rs`.

use std::path::Path;

use super::ast::*;
use super::lexer::{Tok, Token};
use super::{InputError, PResult};

pub(super) struct Parser<'a> {
    pub(super) file: &'a Path,
    pub(super) toks: Vec<Token>,
    pub(super) i: usize,
    pub(super) depth: usize,
}

/// Words that start statements or are keywords; never a command-call argument.
pub(super) const KEYWORDS: &[&str] = &[
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

pub(super) fn text_of(t: &Tok) -> String {
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
    pub(super) fn tok(&self) -> &Tok {
        &self.toks[self.i].tok
    }
    pub(super) fn at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }
    pub(super) fn line(&self) -> usize {
        self.toks[self.i].line
    }
    pub(super) fn nl(&self) -> bool {
        self.toks[self.i].nl
    }
    pub(super) fn is(&self, p: &str) -> bool {
        matches!(self.tok(), Tok::P(q) if *q == p)
    }
    pub(super) fn is_word(&self, w: &str) -> bool {
        matches!(self.tok(), Tok::Ident(s) if s == w)
    }
    pub(super) fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn err<T>(&self, msg: &str) -> PResult<T> {
        let t = &self.toks[self.i];
        Err(InputError::at(self.file, t.line, t.col, &text_of(&t.tok), msg))
    }
    pub(super) fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.err(&format!("expected `{p}`"))
        }
    }
    pub(super) fn expect_eof(&self) -> PResult<()> {
        if matches!(self.tok(), Tok::Eof) {
            Ok(())
        } else {
            self.err("unexpected text after expression")
        }
    }
    pub(super) fn ident(&mut self) -> PResult<String> {
        match self.tok().clone() {
            Tok::Ident(s) => {
                self.i += 1;
                Ok(s)
            }
            _ => self.err("expected a name"),
        }
    }
    pub(super) fn skip_semis(&mut self) {
        while self.eat(";") {}
    }

    pub(super) fn script(&mut self) -> PResult<Script> {
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
    pub(super) fn skip_type(&mut self) -> bool {
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
    pub(super) fn try_method(&mut self) -> PResult<Option<Method>> {
        let save = self.i;
        let line = self.line();
        let mut any = false;
        while matches!(self.tok(), Tok::Ident(s) if MODIFIERS.contains(&s.as_str())) {
            self.i += 1;
            any = true;
        }
        // A return type, after `def` too (`def Boolean canInstallLabs()`, which Groovy takes).
        let return_type = |p: &mut Self| {
            let before = p.i;
            if p.skip_type() && matches!(p.tok(), Tok::Ident(_)) && matches!(p.at(1), Tok::P("(")) {
                true
            } else {
                p.i = before;
                false
            }
        };
        let typed = if self.eat_word("def") {
            return_type(self);
            true
        } else {
            return_type(self)
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
    pub(super) fn params(&mut self, close: &str) -> PResult<Vec<Name>> {
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

    pub(super) fn block(&mut self) -> PResult<Vec<Stmt>> {
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
    pub(super) fn body(&mut self) -> PResult<Vec<Stmt>> {
        if self.is("{") {
            self.block()
        } else {
            Ok(vec![self.stmt()?])
        }
    }

    pub(super) fn stmt(&mut self) -> PResult<Stmt> {
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
                Ok(Stmt::If(c, then, otherwise, line))
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
    pub(super) fn decl(&mut self, line: usize) -> PResult<Stmt> {
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

    pub(super) fn for_stmt(&mut self) -> PResult<Stmt> {
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

    pub(super) fn switch_stmt(&mut self) -> PResult<Stmt> {
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
    pub(super) fn expr_stmt(&mut self) -> PResult<Expr> {
        let save = self.i;
        if let Some(e) = self.try_command()? {
            return Ok(e);
        }
        self.i = save;
        self.expr()
    }

    /// `name arg, key: v, ...` or `a.b.name arg ...` on one line.
    pub(super) fn try_command(&mut self) -> PResult<Option<Expr>> {
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
    pub(super) fn arg_list(&mut self, close: Option<&str>) -> PResult<Vec<Arg>> {
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
    pub(super) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.depth += 1;
        if self.depth > 100 {
            return self.err("expression nested too deep");
        }
        let r = f(self);
        self.depth -= 1;
        r
    }
}
