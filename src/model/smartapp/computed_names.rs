//! Inputs with computed names: pages that declare their inputs through a section method called with
//! constant arguments (`def configureButton1() { dynamicPage(..., getButtonSections(1)) }`, then
//! `input "mode_${buttonNumber}_pushed", "mode"` in `getButtonSections(buttonNumber)`).
//!
//! A constant-folding pass over the script's calls: each method gets the constant environments
//! it can be called with. A method without parameters has one, the empty one (a page method,
//! which the hub runs by name); a method with parameters has one for each call `m(a, b)` whose
//! arguments fold to constants in an environment of its caller (a literal, a GString or `+` of
//! such, a parameter of the caller). An input's name written as a GString is then folded in each
//! environment of the method it is in: it declares one input per name, bound as a literal one.
//!
//! Sound for what it binds: an input so named is one the page declares when the hub runs it,
//! since each environment is the argument list of a call the page makes. What it cannot fold
//! (a call with an argument computed at run time, a name read from a device or a loop variable)
//! is left unbound and reported with its line, as before.

use std::collections::HashMap;

use super::*;

/// A constant environment: a method's parameters and their values.
type Env = Vec<(String, String)>;

/// The constant environments of each method (by index), and the calls whose arguments could not
/// be folded: (line, callee).
pub(super) struct Envs {
    pub by_method: Vec<Vec<Env>>,
    pub unfolded: Vec<(usize, String)>,
}

/// Cap on environments per method: a section method is called a handful of times.
const MAX_ENVS: usize = 64;

impl Envs {
    pub(super) fn of(script: &Script) -> Envs {
        let index: HashMap<&str, usize> =
            script.methods.iter().enumerate().map(|(i, m)| (m.name.as_str(), i)).collect();
        let mut by_method: Vec<Vec<Env>> =
            script.methods.iter().map(|m| if m.params.is_empty() { vec![Vec::new()] } else { Vec::new() }).collect();
        let mut unfolded = Vec::new();
        // Environments flow from callers to callees; a chain of calls is as long as the
        // methods are many, so that many passes reach the fixed point.
        for _ in 0..script.methods.len().min(8) {
            let mut changed = false;
            for (ci, caller) in script.methods.iter().enumerate() {
                let envs = by_method[ci].clone();
                let mut calls: Vec<(usize, &Expr)> = Vec::new();
                super::load::walk_body(&caller.body, caller.line, &mut |n, line| {
                    if let super::load::Node::Call(e) = n {
                        calls.push((line, e));
                    }
                });
                for (line, e) in calls {
                    let Expr::Call { target: None, name, args, .. } = e else { continue };
                    let Some(&mi) = index.get(name.as_str()) else { continue };
                    let params = &script.methods[mi].params;
                    if params.is_empty() || params.len() != args.len() {
                        continue;
                    }
                    for env in &envs {
                        let vals: Option<Vec<String>> = args
                            .iter()
                            .map(|a| match a {
                                Arg::Pos(x) => fold(x, env),
                                Arg::Named(..) => None,
                            })
                            .collect();
                        match vals {
                            Some(vals) => {
                                let new: Env = params.iter().map(|p| p.to_string()).zip(vals).collect();
                                if !by_method[mi].contains(&new) && by_method[mi].len() < MAX_ENVS {
                                    by_method[mi].push(new);
                                    changed = true;
                                }
                            }
                            None => {
                                if !unfolded.contains(&(line, name.clone())) {
                                    unfolded.push((line, name.clone()));
                                }
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Envs { by_method, unfolded }
    }

    /// The names `e` folds to in the environments of method `m` (`None`: top level, where only
    /// a literal folds); empty when some environment leaves it unfolded.
    pub(super) fn names(&self, m: Option<usize>, e: &Expr) -> Vec<String> {
        let empty = [Vec::new()];
        let envs: &[Env] = m.map_or(&empty[..], |m| &self.by_method[m]);
        let mut out = Vec::new();
        for env in envs {
            match fold(e, env) {
                Some(n) if !out.contains(&n) => out.push(n),
                Some(_) => {}
                None => return Vec::new(),
            }
        }
        out
    }
}

/// The text `e` has in `env`, when it is a constant there.
fn fold(e: &Expr, env: &Env) -> Option<String> {
    match e {
        Expr::Str(x) => Some(x.to_string()),
        Expr::Int(i) => Some(i.to_string()),
        Expr::Bool(b) => Some(b.to_string()),
        Expr::Var(v) => env.iter().find(|(p, _)| p == v).map(|(_, x)| x.clone()),
        Expr::GStr(parts) => parts
            .iter()
            .map(|p| match p {
                GPart::Lit(x) => Some(x.clone()),
                GPart::Expr(x) => fold(x, env),
            })
            .collect(),
        // `+` of two texts (an integer sum is left unfolded: the names are texts).
        Expr::Binary("+", a, b) => {
            let (a, b) = (fold(a, env)?, fold(b, env)?);
            if a.parse::<i64>().is_ok() && b.parse::<i64>().is_ok() {
                return None;
            }
            Some(a + &b)
        }
        _ => None,
    }
}
