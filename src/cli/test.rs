//! `clir test PACKAGE TESTS.jsonl`: a law test file (`clir::lawtest`) against a compiled-in
//! package; one report line a test, a summary on stderr, exit 1 when a test fails.

use super::{note, CANNOT_RUN};
use clap::Args;
use clir::outfile::Output;
use std::io::BufReader;
use std::path::PathBuf;

/// Options of `clir test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// The compiled-in package (a name of law.toml).
    #[arg(value_name = "PACKAGE")]
    pub package: String,
    /// The tests, one JSON object a line (`-`: stdin).
    #[arg(value_name = "TESTS")]
    pub tests: PathBuf,
    /// The report, one JSON object a test [default: stdout].
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs the tests; returns the exit status: 0 every test passed, 1 one failed, 2 cannot run.
pub fn run(args: &TestArgs) -> u8 {
    let pkg = match super::run::compiled_package(&args.package) {
        Ok(pkg) => pkg,
        Err(msg) => {
            note("test", msg);
            return CANNOT_RUN;
        }
    };
    let input: Box<dyn std::io::BufRead> = match clir::command::file_flag(&Some(args.tests.clone())) {
        Some(p) => match std::fs::File::open(&p) {
            Ok(f) => Box::new(BufReader::new(f)),
            Err(e) => {
                note("test", format_args!("cannot read {}: {e}", p.display()));
                return CANNOT_RUN;
            }
        },
        None => Box::new(std::io::stdin().lock()),
    };
    let output_path = clir::command::file_flag(&args.output);
    let mut output = match Output::open(output_path.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            note("test", format_args!("cannot write {}: {e}", output_path.unwrap_or_default().display()));
            return CANNOT_RUN;
        }
    };
    let summary = match clir::lawtest::run(pkg, input, &mut output) {
        Ok(s) => s,
        Err(e) => {
            note("test", e);
            return CANNOT_RUN;
        }
    };
    let name = output.name();
    if let Err(e) = output.finish() {
        note("test", format_args!("cannot write {name}: {e}"));
        return CANNOT_RUN;
    }
    note(
        "test",
        format_args!("{} tests, {} passed, {} failed", summary.tests, summary.tests - summary.failed, summary.failed),
    );
    u8::from(summary.failed > 0)
}
