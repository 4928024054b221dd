//! `clir test PACKAGE TESTS.jsonl`: a law test file (`clir::lawtest`) against a compiled-in
//! package, or against a package file compiled as `clir run` compiles it; one report line a
//! test, a summary on stderr, exit 1 when a test fails.

use super::{note, CANNOT_RUN};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options of `clir test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// A compiled-in package (a name of law.toml), or a package file (`.lawir.json`).
    #[arg(value_name = "PACKAGE")]
    pub package: String,
    /// The tests, one JSON object a line (`-`: stdin).
    #[arg(value_name = "TESTS")]
    pub tests: PathBuf,
    /// The report, one JSON object a test [default: stdout].
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write what the tests' cases exercised, by rule, article and priority, to FILE (JSON, as
    /// `clir rule --coverage`).
    #[arg(long, value_name = "FILE")]
    pub coverage: Option<PathBuf>,
}

/// Runs the tests; returns the exit status: 0 every test passed, 1 one failed, 2 cannot run.
pub fn run(args: &TestArgs) -> u8 {
    if let Ok(pkg) = super::run::compiled_package(&args.package) {
        return clir::command::test(pkg, &args.tests, args.output.as_deref(), args.coverage.as_deref());
    }
    let file = Path::new(&args.package);
    if !args.package.ends_with(".json") && !file.is_file() {
        let msg = super::run::compiled_package(&args.package).err().unwrap_or_default();
        note("test", format_args!("{msg}, and no package file of that name"));
        return CANNOT_RUN;
    }
    let built = match super::run::build(file, "test") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let mut child = Command::new(&built.binary);
    child.arg("--test").arg(&args.tests);
    if let Some(out) = &args.output {
        child.arg("--output").arg(out);
    }
    if let Some(file) = &args.coverage {
        child.arg("--coverage").arg(file);
    }
    match child.status() {
        Ok(s) => super::run::child_status("test", &built.binary, s),
        Err(e) => {
            note("test", format_args!("cannot run {}: {e}", built.binary.display()));
            CANNOT_RUN
        }
    }
}
