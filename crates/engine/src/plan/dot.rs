//! Drawing a plan's stage graph in Graphviz dot.

use std::fmt::Write as _;

use crate::registry::Role;

use super::Plan;

impl Plan {
    /// The stage graph in Graphviz dot.
    pub fn to_dot(&self) -> String {
        let mut dot = format!(
            "digraph \"{}\" {{\n  rankdir=LR;\n",
            escape(&self.context.name)
        );
        for s in &self.stages {
            let shape = match s.role {
                Role::Source => "invhouse",
                Role::Transform => "box",
                Role::Sink => "house",
            };
            let _ = writeln!(
                dot,
                "  \"{}\" [shape={shape}, label=\"{}\\n({})\"];",
                escape(&s.name),
                escape(&s.name),
                escape(&s.kind)
            );
        }
        for s in &self.stages {
            for input in &s.inputs {
                let _ = writeln!(
                    dot,
                    "  \"{}\" -> \"{}\" [label=\"{}\"];",
                    escape(&input.stage),
                    escape(&s.name),
                    escape(&input.port)
                );
            }
            for (side, from) in &s.side_inputs {
                let _ = writeln!(
                    dot,
                    "  \"{}\" -> \"{}\" [style=dashed, label=\"{} (side)\"];",
                    escape(&from.stage),
                    escape(&s.name),
                    escape(&side.key)
                );
            }
        }
        dot.push_str("}\n");
        dot
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
