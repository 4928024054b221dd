//! `json_floor`: the least any JSON Lines ruler must do, as a command line to time beside
//! `clir rule` and `handwritten_rule` (benches/README.md, "Issue 27"): read the input in blocks,
//! parse every non-blank line into a JSON parser's DOM and drop it, and write each line back
//! (about the bytes a ruling line has: 161 MB of rulings for 159 MB of FIDE games). No
//! validation, no ruling, no escaping decisions.
//!
//! ```sh
//! cargo build --release --example json_floor
//! target/release/examples/json_floor --input games.jsonl --output /tmp/floor.jsonl [--parser serde_json|sonic_rs] [--threads N]
//! ```
//!
//! With `--threads N` the lines of a block are parsed in N parts in parallel, as the other
//! two commands rule them.

use std::io::{self, Read, Write};
use std::process::ExitCode;

/// Input is read in blocks of about this many bytes (whole lines).
const BLOCK: usize = 4 << 20;

fn main() -> ExitCode {
    let (mut input, mut output, mut parser, mut threads) = (None, None, "serde_json".to_string(), 1usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let Some(v) = args.next() else {
            eprintln!("json_floor: {a} needs a value");
            return ExitCode::from(2);
        };
        match a.as_str() {
            "--input" => input = Some(v),
            "--output" => output = Some(v),
            "--parser" => parser = v,
            "--threads" => match v.parse() {
                Ok(n) => threads = n,
                Err(e) => {
                    eprintln!("json_floor: --threads: {e}");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!("json_floor: unknown argument {other}");
                return ExitCode::from(2);
            }
        }
    }
    let parse: fn(&[u8]) -> bool = match parser.as_str() {
        "serde_json" => |l| serde_json::from_slice::<serde_json::Value>(l).is_ok(),
        "sonic_rs" => |l| sonic_rs::from_slice::<sonic_rs::Value>(l).is_ok(),
        other => {
            eprintln!("json_floor: unknown parser {other} (serde_json, sonic_rs)");
            return ExitCode::from(2);
        }
    };
    let run = || -> io::Result<u64> {
        let mut reader: Box<dyn Read> = match &input {
            Some(p) => Box::new(std::fs::File::open(p)?),
            None => Box::new(io::stdin()),
        };
        let mut writer: Box<dyn Write> = match &output {
            Some(p) => Box::new(io::BufWriter::with_capacity(1 << 20, std::fs::File::create(p)?)),
            None => Box::new(io::BufWriter::with_capacity(1 << 20, io::stdout())),
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().map_err(io::Error::other)?;
        let (mut buf, mut filled, mut eof, mut bad) = (vec![0u8; BLOCK], 0usize, false, 0u64);
        while !eof || filled > 0 {
            while filled < buf.len() && !eof {
                match reader.read(&mut buf[filled..])? {
                    0 => eof = true,
                    n => filled += n,
                }
            }
            let end = match memchr::memrchr(b'\n', &buf[..filled]) {
                Some(i) => i + 1,
                None if eof => filled,
                None => {
                    buf.resize(buf.len() * 2, 0);
                    continue;
                }
            };
            let lines: Vec<&[u8]> =
                buf[..end].split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).collect();
            use rayon::prelude::*;
            let part = lines.len().div_ceil(threads.max(1)).max(1);
            bad += pool
                .install(|| lines.par_chunks(part).map(|p| p.iter().filter(|l| !parse(l)).count() as u64).sum::<u64>());
            for l in &lines {
                writer.write_all(l)?;
                writer.write_all(b"\n")?;
            }
            buf.copy_within(end..filled, 0);
            filled -= end;
        }
        writer.flush()?;
        Ok(bad)
    };
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(bad) => {
            eprintln!("json_floor: {bad} lines are not JSON");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("json_floor: {e}");
            ExitCode::from(2)
        }
    }
}
