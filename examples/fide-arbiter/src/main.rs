//! `fide-arbiter FILE.pgn... [--output FILE.jsonl] [--threads N]`: one JSON line per game (the
//! FIDE ruling through the compiled fide.laws.chess package, and whether it agrees with the
//! recorded result), a summary table on stderr.
//!
//! Exit status: 0 every game read; 1 some game could not be read or replayed (its line has an
//! `error` field, the others are still ruled); 2 the command itself could not run.

use clap::Parser;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "fide-arbiter",
    version,
    about = "FIDE rulings for PGN game records, checked against their recorded results"
)]
struct Args {
    /// PGN files (`-` for standard input); games are numbered from 1 across all of them.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the JSON lines here instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut inputs: Vec<(String, Box<dyn BufRead + Send>)> = Vec::new();
    for f in &args.files {
        if f.as_os_str() == "-" {
            inputs.push(("<stdin>".into(), Box::new(BufReader::new(io::stdin()))));
            continue;
        }
        match File::open(f) {
            Ok(file) => inputs.push((f.display().to_string(), Box::new(BufReader::with_capacity(1 << 20, file)))),
            Err(e) => {
                eprintln!("fide-arbiter: cannot read {}: {e}", f.display());
                return ExitCode::from(2);
            }
        }
    }
    let opts = fide_arbiter::RunOptions { threads: args.threads, ..Default::default() };
    let result = match &args.output {
        Some(path) => match File::create(path) {
            Ok(file) => fide_arbiter::run(inputs, file, &opts, |_| {}),
            Err(e) => {
                eprintln!("fide-arbiter: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => fide_arbiter::run(inputs, io::stdout().lock(), &opts, |_| {}),
    };
    match result {
        Ok(summary) => {
            eprint!("{}", summary.render());
            if summary.errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("fide-arbiter: {e}");
            ExitCode::from(2)
        }
    }
}
