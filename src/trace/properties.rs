//! The property language (docs/properties.md, with its grammar): safety properties of a home,
//! given in a file of their own (`--properties FILE`), inside a home file, or from the library
//! the tool ships (src/model/smartapp/library.props).
//!
//! ```text
//! invariant NAME ["text"] [source "..."] : EXPR
//! never     NAME ["text"] [source "..."] : COMMAND DEVICE [when EXPR]
//! respond   NAME ["text"] [source "..."] : when EXPR then EXPR
//! threat    NAME ["text"] [source "..."] : repeated-command | self-retrigger | conflicting-commands
//! ```
//!
//! Statements are laid out as in a home file (src/trace/home.rs: indented lines continue a
//! statement; `#` comments). Names of devices, roles and attributes are resolved when the model
//! is built (src/model/smartapp/properties.rs), at the positions kept here. Expression nesting
//! is bounded (64), so no input overflows the stack.

use std::path::{Path, PathBuf};

use super::home::{statements, Pos, Statement, Tok, Token};
use super::InputError;

/// A property as written.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyDecl {
    pub name: String,
    /// What it says, in words (shown with a violation).
    pub text: Option<String>,
    /// Where it comes from (a paper's table and row), shown and given in JSON.
    pub source: Option<String>,
    pub file: PathBuf,
    pub pos: Pos,
    pub body: Body,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Holds in every state where the home rests, as far as the apps' writes go.
    Invariant(Expr),
    /// No app sends `command` to `target` while `when` holds.
    Never {
        command: String,
        target: String,
        target_pos: Pos,
        when: Option<Expr>,
    },
    /// A step that makes `when` true ends with `then` true.
    Respond {
        when: Expr,
        then: Expr,
    },
    Threat(Threat),
}

/// IoTCOM's interaction threats (and IoTSan's command properties) the search can observe in one
/// event's handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threat {
    /// One event makes apps send the same command to the same device twice.
    RepeatedCommand,
    /// One event's handling delivers the same event again while it is still being handled.
    SelfRetrigger,
    /// One event makes apps command one attribute to two different values.
    ConflictingCommands,
}

impl Threat {
    pub fn name(self) -> &'static str {
        match self {
            Threat::RepeatedCommand => "repeated-command",
            Threat::SelfRetrigger => "self-retrigger",
            Threat::ConflictingCommands => "conflicting-commands",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quant {
    /// A device, or each device of a role (the property is checked for each).
    One,
    /// Every device of the role.
    All,
    /// Some device of the role.
    Any,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// `device.attribute` (or `role.attribute`), with `all` / `any` before a role.
    Ref {
        quant: Quant,
        device: String,
        attr: String,
        pos: Pos,
    },
    /// The location's mode.
    Mode,
    /// A bareword or quoted value (`locked`, `"not present"`), or a time.
    Value(String),
    Num(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(bool),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Implies(Box<Expr>, Box<Expr>),
    Cmp(Operand, CmpOp, Operand),
}

/// Statement keywords of properties.
pub fn is_property_keyword(w: &str) -> bool {
    matches!(w, "invariant" | "never" | "respond" | "threat")
}

/// Parses a property file.
pub fn parse(file: &Path, text: &str) -> Result<Vec<PropertyDecl>, InputError> {
    let mut out = Vec::new();
    for st in statements(file, text)? {
        let first = &st.lines[0][0];
        match &first.tok {
            Tok::Word(w) if is_property_keyword(w) => out.push(property(file, &st)?),
            _ => return Err(Pos::of(first).error(file, "expected a property: invariant, never, respond or threat")),
        }
    }
    check_names(&out)?;
    Ok(out)
}

/// Reads a property file (`--properties FILE`).
pub fn read(path: &Path) -> Result<Vec<PropertyDecl>, InputError> {
    let bytes = super::input::read(path)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| InputError::file(path, "not UTF-8 text"))?;
    let props = parse(path, text)?;
    if props.is_empty() {
        return Err(InputError::file(path, "no property in the file"));
    }
    Ok(props)
}

/// Two properties of one name would be one finding: refused.
pub fn check_names(props: &[PropertyDecl]) -> Result<(), InputError> {
    for (i, p) in props.iter().enumerate() {
        if let Some(q) = props[..i].iter().find(|q| q.name == p.name) {
            return Err(p.pos.error(
                &p.file,
                format!("property `{}` is defined twice (first at {}:{})", p.name, q.file.display(), q.pos.line),
            ));
        }
    }
    Ok(())
}

struct Cursor<'a> {
    file: &'a Path,
    toks: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.at)
    }
    fn next(&mut self) -> Option<Token> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Word(x), .. }) if x == w)
    }
    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(x), .. }) if *x == p)
    }
    /// An error at the next token, or at the last one when the statement ended.
    fn error(&self, message: impl Into<String>) -> InputError {
        let message = message.into();
        match self.peek() {
            Some(t) => Pos::of(t).error(self.file, message),
            None => {
                let last = self.toks.last().expect("a statement has a token");
                Pos::of(last).error(self.file, format!("{message} (the statement ends here)"))
            }
        }
    }
    fn expect_punct(&mut self, p: &str, what: &str) -> Result<(), InputError> {
        if self.is_punct(p) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(format!("expected `{p}` {what}")))
        }
    }
    fn name(&mut self, what: &str) -> Result<(String, Pos), InputError> {
        match self.peek() {
            Some(t @ Token { tok: Tok::Word(w), .. }) if super::home::is_name(w) => {
                let r = (w.clone(), Pos::of(t));
                self.at += 1;
                Ok(r)
            }
            _ => Err(self.error(format!("expected {what}"))),
        }
    }
}

/// One property statement (its first token is the kind).
pub fn property(file: &Path, st: &Statement) -> Result<PropertyDecl, InputError> {
    let mut c = Cursor { file, toks: st.tokens(), at: 0, depth: 0 };
    let Some(Token { tok: Tok::Word(kind), .. }) = c.next() else { unreachable!("a keyword opens a property") };
    let (name, pos) = c.name("the property's name (letters, digits, `_`, `-`)")?;
    let mut text = None;
    let mut source = None;
    loop {
        match c.peek().map(|t| &t.tok) {
            Some(Tok::Str(s)) if text.is_none() && source.is_none() => {
                text = Some(s.clone());
                c.at += 1;
            }
            Some(Tok::Word(w)) if w == "source" && source.is_none() => {
                c.at += 1;
                match c.next() {
                    Some(Token { tok: Tok::Str(s), .. }) => source = Some(s),
                    _ => {
                        c.at -= 1;
                        return Err(c.error("expected the source in quotes after `source`"));
                    }
                }
            }
            _ => break,
        }
    }
    c.expect_punct(":", "before what the property says")?;
    let body = match kind.as_str() {
        "invariant" => Body::Invariant(expr(&mut c)?),
        "never" => {
            let (command, _) = c.name("the command (unlock, on, open, ...)")?;
            let (target, target_pos) = c.name("the device or role the command is sent to")?;
            let when = if c.is_word("when") {
                c.at += 1;
                Some(expr(&mut c)?)
            } else {
                None
            };
            Body::Never { command, target, target_pos, when }
        }
        "respond" => {
            if !c.is_word("when") {
                return Err(c.error("expected `when` (respond NAME: when EXPR then EXPR)"));
            }
            c.at += 1;
            let when = expr(&mut c)?;
            if !c.is_word("then") {
                return Err(c.error("expected `then` and what holds once the home rests"));
            }
            c.at += 1;
            Body::Respond { when, then: expr(&mut c)? }
        }
        _ => {
            let (t, p) = c.name("a threat: repeated-command, self-retrigger or conflicting-commands")?;
            let threat = match t.as_str() {
                "repeated-command" => Threat::RepeatedCommand,
                "self-retrigger" => Threat::SelfRetrigger,
                "conflicting-commands" => Threat::ConflictingCommands,
                _ => {
                    return Err(
                        p.error(file, "unknown threat: repeated-command, self-retrigger or conflicting-commands")
                    )
                }
            };
            Body::Threat(threat)
        }
    };
    if c.peek().is_some() {
        return Err(c.error("expected the end of the property"));
    }
    Ok(PropertyDecl { name, text, source, file: file.to_path_buf(), pos, body })
}

const MAX_DEPTH: usize = 64;

fn expr(c: &mut Cursor<'_>) -> Result<Expr, InputError> {
    c.depth += 1;
    if c.depth > MAX_DEPTH {
        return Err(c.error(format!("expression nested deeper than {MAX_DEPTH}")));
    }
    let left = or(c)?;
    let r = if c.is_word("implies") || c.is_punct("=>") {
        c.at += 1;
        Expr::Implies(Box::new(left), Box::new(expr(c)?))
    } else {
        left
    };
    c.depth -= 1;
    Ok(r)
}

fn or(c: &mut Cursor<'_>) -> Result<Expr, InputError> {
    let mut items = vec![and(c)?];
    while c.is_word("or") {
        c.at += 1;
        items.push(and(c)?);
    }
    Ok(if items.len() == 1 { items.pop().expect("one") } else { Expr::Or(items) })
}

fn and(c: &mut Cursor<'_>) -> Result<Expr, InputError> {
    let mut items = vec![unary(c)?];
    while c.is_word("and") {
        c.at += 1;
        items.push(unary(c)?);
    }
    Ok(if items.len() == 1 { items.pop().expect("one") } else { Expr::And(items) })
}

fn unary(c: &mut Cursor<'_>) -> Result<Expr, InputError> {
    if c.is_word("not") {
        c.at += 1;
        c.depth += 1;
        if c.depth > MAX_DEPTH {
            return Err(c.error(format!("expression nested deeper than {MAX_DEPTH}")));
        }
        let e = unary(c)?;
        c.depth -= 1;
        return Ok(Expr::Not(Box::new(e)));
    }
    if c.is_punct("(") {
        c.at += 1;
        let e = expr(c)?;
        c.expect_punct(")", "to close `(`")?;
        return Ok(e);
    }
    if c.is_word("true") || c.is_word("false") {
        let t = c.is_word("true");
        c.at += 1;
        return Ok(Expr::Const(t));
    }
    let left = operand(c)?;
    let op = match c.peek().map(|t| &t.tok) {
        Some(Tok::Punct("==")) => CmpOp::Eq,
        Some(Tok::Punct("!=")) => CmpOp::Ne,
        Some(Tok::Punct("<")) => CmpOp::Lt,
        Some(Tok::Punct("<=")) => CmpOp::Le,
        Some(Tok::Punct(">")) => CmpOp::Gt,
        Some(Tok::Punct(">=")) => CmpOp::Ge,
        _ => return Err(c.error("expected a comparison (==, !=, <, <=, >, >=)")),
    };
    c.at += 1;
    let right = operand(c)?;
    let quantified = |o: &Operand| matches!(o, Operand::Ref { quant: Quant::All | Quant::Any, .. });
    if quantified(&left) && quantified(&right) {
        return Err(c.error("at most one side of a comparison has `all` or `any`"));
    }
    Ok(Expr::Cmp(left, op, right))
}

fn operand(c: &mut Cursor<'_>) -> Result<Operand, InputError> {
    let quant = if c.is_word("all") {
        c.at += 1;
        Quant::All
    } else if c.is_word("any") {
        c.at += 1;
        Quant::Any
    } else {
        Quant::One
    };
    let Some(t) = c.next() else {
        c.at -= 1;
        return Err(c.error("expected a value, `mode` or DEVICE.ATTRIBUTE"));
    };
    let r = match &t.tok {
        Tok::Word(w) if w == "mode" && quant == Quant::One => Operand::Mode,
        Tok::Word(w) if w.contains('.') => {
            let (d, a) = w.split_once('.').expect("a dot");
            if !super::home::is_name(d) || !super::home::is_name(a) {
                return Err(Pos::of(&t).error(c.file, "expected DEVICE.ATTRIBUTE (or ROLE.ATTRIBUTE)"));
            }
            Operand::Ref { quant, device: d.to_string(), attr: a.to_string(), pos: Pos::of(&t) }
        }
        _ if quant != Quant::One => {
            return Err(Pos::of(&t).error(c.file, "expected ROLE.ATTRIBUTE after `all` or `any`"));
        }
        Tok::Word(w) if matches!(w.as_str(), "and" | "or" | "not" | "implies" | "when" | "then") => {
            return Err(Pos::of(&t).error(c.file, "expected a value, `mode` or DEVICE.ATTRIBUTE"));
        }
        Tok::Word(w) | Tok::Str(w) | Tok::Time(w) => Operand::Value(w.clone()),
        Tok::Num(n) => Operand::Num(*n),
        Tok::Punct(_) => return Err(Pos::of(&t).error(c.file, "expected a value, `mode` or DEVICE.ATTRIBUTE")),
    };
    Ok(r)
}
