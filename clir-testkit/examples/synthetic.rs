//! A synthetic package of N rules shaped like a compliance law (see `synthetic/generator.rs`),
//! deterministic in (N, SEED), written as its canonical bytes:
//!
//! ```sh
//! cargo run -q -p clir-testkit --example synthetic -- 200 [SEED] > pkg.lawir.json
//! cargo run -q -p clir-testkit --example synthetic -- 200 [SEED] --notation   # the kit's notation
//! cargo run -q -p clir-testkit --example synthetic -- 200 [SEED] --bump   # one threshold raised, version 0.1.1
//! cargo run -q -p clir-testkit --example synthetic -- 200 [SEED] --add-rule   # one rule added, version 0.1.1
//! cargo run -q -p clir-testkit --example synthetic -- 200 [SEED] --drop-priority   # one priority dropped, 0.1.1
//! ```

#[path = "synthetic/generator.rs"]
mod generator;

use std::io::Write;
use std::process::ExitCode;

/// An amendment of the generated package: its notation, or `None` when it has nothing to amend.
type Amendment = fn(usize, u64) -> Option<String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let notation = args.iter().any(|a| a == "--notation");
    let flag = |name: &str| args.iter().any(|a| a == name);
    let amend: Option<(&str, Amendment)> = if flag("--bump") {
        Some(("no rule from the middle on compares with a threshold", generator::notation_bumped))
    } else if flag("--add-rule") {
        Some(("the package has no middle rule", generator::notation_added))
    } else if flag("--drop-priority") {
        Some(("the package has no priority", generator::notation_priority_dropped))
    } else {
        None
    };
    let numbers: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let parsed = match numbers.as_slice() {
        [n] => n.parse::<usize>().ok().map(|n| (n, 1)),
        [n, seed] => n.parse::<usize>().ok().zip(seed.parse::<u64>().ok()),
        _ => None,
    };
    let Some((n, seed)) = parsed.filter(|(n, _)| *n > 0) else {
        eprintln!(
            "usage: synthetic N [SEED] [--notation] [--bump | --add-rule | --drop-priority]   (N rules, N >= 1; SEED defaults to 1)"
        );
        return ExitCode::from(2);
    };
    let out = match (amend, notation) {
        (None, true) => generator::notation(n, seed).into_bytes(),
        (None, false) => generator::package(n, seed).bytes(),
        (Some((missing, amended)), _) => {
            let Some(text) = amended(n, seed) else {
                eprintln!("synthetic: {missing}");
                return ExitCode::from(2);
            };
            match clir_testkit::Package::parse(&text) {
                Ok(p) if !notation => p.bytes(),
                Ok(_) => text.into_bytes(),
                Err(e) => {
                    eprintln!("synthetic: the changed notation does not parse: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    match std::io::stdout().lock().write_all(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synthetic: {e}");
            ExitCode::from(2)
        }
    }
}
