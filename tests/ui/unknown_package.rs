// A package law.toml does not list is a compile error that names law.toml.
clir::include_clir!("chess.unknown");

fn main() {}
