//! A synthetic package of N rules shaped like a compliance law (see `synthetic/generator.rs`),
//! deterministic in (N, SEED), written as its canonical bytes:
//!
//! ```sh
//! cargo run -q -p clir-testkit --example synthetic -- 200 [SEED] > pkg.lawir.json
//! cargo run -q -p clir-testkit --example synthetic -- 200 [SEED] --notation   # the kit's notation
//! ```

#[path = "synthetic/generator.rs"]
mod generator;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let notation = args.iter().any(|a| a == "--notation");
    let numbers: Vec<&String> = args.iter().filter(|a| *a != "--notation").collect();
    let parsed = match numbers.as_slice() {
        [n] => n.parse::<usize>().ok().map(|n| (n, 1)),
        [n, seed] => n.parse::<usize>().ok().zip(seed.parse::<u64>().ok()),
        _ => None,
    };
    let Some((n, seed)) = parsed.filter(|(n, _)| *n > 0) else {
        eprintln!("usage: synthetic N [SEED] [--notation]   (N rules, N >= 1; SEED defaults to 1)");
        return ExitCode::from(2);
    };
    let out = if notation { generator::notation(n, seed).into_bytes() } else { generator::package(n, seed).bytes() };
    match std::io::stdout().lock().write_all(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synthetic: {e}");
            ExitCode::from(2)
        }
    }
}
