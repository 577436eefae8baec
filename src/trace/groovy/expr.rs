//! Expressions: precedence climbing from assignment down to primaries, closures, list and map
//! literals.

use super::ast::*;
use super::lexer::{Tok, PUNCTS};
use super::parser::{text_of, Parser, KEYWORDS};
use super::PResult;

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        // Deep enough for any app; shallow enough for a 2 MB thread stack.
        if self.depth > 100 {
            return self.err("expression nested too deep");
        }
        let r = self.assignment();
        self.depth -= 1;
        r
    }

    pub(super) fn assignment(&mut self) -> PResult<Expr> {
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

    pub(super) fn ternary(&mut self) -> PResult<Expr> {
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

    pub(super) fn binary(&mut self, level: usize) -> PResult<Expr> {
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

    pub(super) fn unary(&mut self) -> PResult<Expr> {
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

    pub(super) fn postfix(&mut self) -> PResult<Expr> {
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
                    if self.trailing_closure() {
                        args.push(Arg::Pos(self.closure()?));
                    }
                    e = Expr::Call { target: Some(Box::new(e)), name, args, spread };
                } else if self.trailing_closure() {
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

    /// Whether a closure argument of the call just read starts here: on the call's line, or on
    /// the next line when it names its parameters (`parts.each` then `{ part -> ... }` on its
    /// own line, as SmartApps write it; Groovy reads it so). A block on the next line without
    /// `->` is left to be a statement of its own.
    fn trailing_closure(&self) -> bool {
        if !self.is("{") {
            return false;
        }
        if !self.nl() {
            return true;
        }
        // `{ ->`, `{ a ->`, `{ a, b ->`, `{ String a, b ->`: names and commas up to the arrow.
        (1..32)
            .map(|k| self.at(k))
            .find(|t| !matches!(t, Tok::Ident(_) | Tok::P(",")))
            .is_some_and(|t| matches!(t, Tok::P("->")))
    }

    pub(super) fn closure(&mut self) -> PResult<Expr> {
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

    pub(super) fn primary(&mut self) -> PResult<Expr> {
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
                    if self.trailing_closure() {
                        args.push(Arg::Pos(self.closure()?));
                    }
                    return Ok(Expr::Call { target: None, name: w, args, spread: false });
                }
                if self.trailing_closure() && w.chars().next().is_some_and(char::is_lowercase) {
                    let c = self.closure()?;
                    return Ok(Expr::Call { target: None, name: w, args: vec![Arg::Pos(c)], spread: false });
                }
                Ok(Expr::Var(w))
            }
            _ => self.err("expected an expression"),
        }
    }

    pub(super) fn list_or_map(&mut self) -> PResult<Expr> {
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
