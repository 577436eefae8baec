//! The explored state graph as Graphviz DOT: states as nodes (the initial one doubled, stuck
//! ones red), transitions as edges labelled by what they did, errors as red diamonds.

use std::fmt::Write;

use crate::explore::graph::{StateGraph, Target};

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn render(g: &StateGraph, title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(title));
    out.push_str("  node [shape=circle, fontsize=10]; edge [fontsize=9];\n  s0 [shape=doublecircle];\n");
    for &s in &g.stuck {
        let _ = writeln!(out, "  s{s} [color=red, style=filled, fillcolor=\"#ffdddd\", label=\"{s}\\nstuck\"];");
    }
    for (i, e) in g.edges.iter().enumerate() {
        match e.to {
            Target::State(to) => {
                let _ = writeln!(out, "  s{} -> s{} [label=\"{}\"];", e.from, to, escape(&e.label));
            }
            Target::Error => {
                let _ = writeln!(
                    out,
                    "  err{i} [shape=diamond, color=red, style=filled, fillcolor=\"#ff8888\", label=\"error\"];"
                );
                let _ = writeln!(out, "  s{} -> err{i} [label=\"{}\", color=red];", e.from, escape(&e.label));
            }
        }
    }
    out.push_str("}\n");
    out
}
