//! `handwritten_rule`: the hand-written fide.laws.chess (`benches/handwritten`) as a command
//! line like `clir rule --package fide.laws.chess`: JSON Lines of cases in, one ruling line per
//! case out, the same bytes. It is the baseline `clir rule` is timed against end to end
//! (benches/README.md):
//!
//! ```sh
//! cargo build --release --example handwritten_rule
//! target/release/examples/handwritten_rule --input games.jsonl --output rulings.jsonl --threads 1
//! ```
//!
//! Flags: `--input FILE` and `--output FILE` (default stdin and stdout), `--threads N`
//! (default: one per core), `--grant judgment:FIDEArbiter`.

#[path = "handwritten/mod.rs"]
mod handwritten;

clir::include_clir!("fide.laws.chess");

use std::io::{self, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let (mut input, mut output, mut threads, mut grant) = (None, None, None, false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        let parsed = match a.as_str() {
            "--input" => value().map(|v| input = Some(v)),
            "--output" => value().map(|v| output = Some(v)),
            "--threads" => {
                value().and_then(|v| v.parse().map(|n| threads = Some(n)).map_err(|e| format!("--threads: {e}")))
            }
            "--grant" => value().and_then(|v| {
                if v == "judgment:FIDEArbiter" {
                    grant = true;
                    Ok(())
                } else {
                    Err(format!("unknown capability {v}"))
                }
            }),
            other => Err(format!("unknown argument {other}")),
        };
        if let Err(e) = parsed {
            eprintln!("handwritten_rule: {e}");
            return ExitCode::from(2);
        }
    }
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let reader: Box<dyn io::Read + Send> = match &input {
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(f),
            Err(e) => return fail(format!("cannot read {p}: {e}")),
        },
        None => Box::new(io::stdin()),
    };
    let writer: Box<dyn Write + Send> = match &output {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Box::new(io::BufWriter::with_capacity(1 << 20, f)),
            Err(e) => return fail(format!("cannot write {p}: {e}")),
        },
        None => Box::new(io::BufWriter::with_capacity(1 << 20, io::stdout())),
    };
    match handwritten::rule_stream(reader, writer, threads, grant) {
        Ok((_, 0)) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => fail(e.to_string()),
    }
}

fn fail(msg: String) -> ExitCode {
    eprintln!("handwritten_rule: {msg}");
    ExitCode::from(2)
}
