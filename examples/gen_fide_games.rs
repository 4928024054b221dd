//! Writes `examples/fide/games.jsonl`: a deterministic sample of game endings as fide.laws.chess
//! cases (docs/FORMAT.md "Case lines"), for the README's main job and the benchmarks. The generator
//! itself is `benches/gen.rs`, shared with the benchmarks and their agreement test.
//!
//! `cargo run --example gen_fide_games -- [COUNT] [SEED] > examples/fide/games.jsonl`

#[path = "../benches/gen.rs"]
mod gen;

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(300);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2023);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in gen::lines(count, seed) {
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
}
