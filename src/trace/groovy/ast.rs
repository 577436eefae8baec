//! The Groovy subset's syntax tree: expressions, statements, methods and the script.

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

impl Arg {
    /// The argument's expression, named or not.
    pub fn value(&self) -> &Expr {
        match self {
            Arg::Pos(e) | Arg::Named(_, e) => e,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Expr(Expr, usize),
    Def(Name, Option<Expr>, usize),
    /// Condition, then, else, and the line of the `if` (where its condition is read).
    If(Expr, Vec<Stmt>, Vec<Stmt>, usize),
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
