//! `clir coverage FILE`: a coverage file (`clir rule --coverage`, `clir test --coverage`) as a
//! table: per article, per rule, the priorities and the rules never applied.

use super::{note, print_lines, stdout_failed, CANNOT_RUN, OK};
use clap::Args;
use clir_codegen::project::read_regular_file;
use std::path::PathBuf;

/// Options of `clir coverage`.
#[derive(Args, Debug)]
pub struct CoverageArgs {
    /// The coverage file (JSON).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Prints the table; exit 2 when the file cannot be read (not a regular file, or larger than
/// a package file may be: a package of 100,000 rules writes about 30 MB) or is no coverage.
pub fn run(args: &CoverageArgs) -> u8 {
    let text = match read_regular_file(&args.file) {
        Err(e) => return fail(format!("cannot read {}: {e}", args.file.display())),
        Ok(text) => text,
    };
    let doc: serde_json::Value = match serde_json::from_slice(&text) {
        Ok(doc) => doc,
        Err(e) => return fail(format!("{} is not JSON: {e}", args.file.display())),
    };
    if !doc.get("rules").is_some_and(serde_json::Value::is_array) {
        return fail(format!("{} is no coverage file (no \"rules\" list)", args.file.display()));
    }
    // Every count a non-negative integer within u64: -1, 1.5 or 1e30 is an error, not a 0.
    if let Err(e) = clir::coverage::check_counts(&text) {
        return fail(format!("{} {e}", args.file.display()));
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
