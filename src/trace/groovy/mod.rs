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

mod ast;
mod expr;
mod lexer;
mod parser;

use std::path::Path;

pub use ast::*;
use lexer::Lexer;
use parser::Parser;

use super::InputError;

type PResult<T> = Result<T, InputError>;

/// Parses a SmartApp's source.
pub fn parse(file: &Path, text: &str) -> PResult<Script> {
    let mut lx = Lexer { file, src: text.chars().collect(), i: 0, line: 1, col: 1, depth: 0 };
    let toks = lx.tokens()?;
    let mut p = Parser { file, toks, i: 0, depth: 0 };
    p.script()
}
