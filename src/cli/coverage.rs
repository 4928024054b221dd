//! `clir coverage FILE`: a coverage file (`clir rule --coverage`, `clir test --coverage`) as a
//! table: per article, per rule, the priorities and the rules never applied.

use super::{note, print_lines, stdout_failed, CANNOT_RUN, OK};
use clap::Args;
use std::io::Read;
use std::path::PathBuf;

/// Options of `clir coverage`.
#[derive(Args, Debug)]
pub struct CoverageArgs {
    /// The coverage file (JSON).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// The largest coverage file read: a package of 100,000 rules writes about 30 MB.
const MAX_BYTES: u64 = 256 << 20;

/// Prints the table; exit 2 when the file cannot be read or is no coverage.
pub fn run(args: &CoverageArgs) -> u8 {
    let mut text = Vec::new();
    let read = std::fs::File::open(&args.file).and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut text));
    let doc: serde_json::Value = match read {
        Err(e) => return fail(format!("cannot read {}: {e}", args.file.display())),
        Ok(n) if n as u64 > MAX_BYTES => {
            return fail(format!("{} is larger than {MAX_BYTES} bytes", args.file.display()))
        }
        Ok(_) => match serde_json::from_slice(&text) {
            Ok(doc) => doc,
            Err(e) => return fail(format!("{} is not JSON: {e}", args.file.display())),
        },
    };
    if !doc.get("rules").is_some_and(serde_json::Value::is_array) {
        return fail(format!("{} is no coverage file (no \"rules\" list)", args.file.display()));
    }
    match print_lines(clir::coverage::table(&doc).lines().map(str::to_string)) {
        Ok(()) => OK,
        Err(e) => stdout_failed("coverage", &e),
    }
}

fn fail(msg: String) -> u8 {
    note("coverage", msg);
    CANNOT_RUN
}
