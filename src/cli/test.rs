//! `clir test PACKAGE TESTS.jsonl`: a law test file (`clir::lawtest`) against a compiled-in
//! package, or against a package file compiled as `clir run` compiles it; one report line a
//! test, a summary on stderr, exit 1 when a test fails.

use super::package_arg::{resolve, PackageRef};
use super::{note, CANNOT_RUN};
use clap::Args;
use std::path::PathBuf;
use std::process::Command;

/// Options of `clir test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// `PACKAGE TESTS`, or `TESTS` after `--package PACKAGE`: the package (a file, or the name of
    /// a compiled-in package) and the tests, one JSON object a line (`-`: stdin).
    #[arg(value_names = ["PACKAGE", "TESTS"], num_args = 1..=2, required = true)]
    pub operands: Vec<String>,
    /// The package: a file (`.lawir.json`) or the name of a compiled-in package.
    #[arg(long = "package", value_name = "PACKAGE")]
    pub package: Option<String>,
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
    let (package, tests) = match (&args.package, args.operands.as_slice()) {
        (Some(p), [t]) | (None, [p, t]) => (p.as_str(), PathBuf::from(t)),
        (Some(_), _) => {
            note("test", "with --package PACKAGE, give only the TESTS file");
            return CANNOT_RUN;
        }
        (None, _) => {
            note("test", "give the package and the tests: `clir test PACKAGE TESTS` (or `--package PACKAGE TESTS`)");
            return CANNOT_RUN;
        }
    };
    let file = match resolve(package) {
        PackageRef::Compiled(name) => match super::run::compiled_package(name) {
            Ok(pkg) => return clir::command::test(pkg, &tests, args.output.as_deref(), args.coverage.as_deref()),
            Err(msg) => {
                note("test", msg);
                return CANNOT_RUN;
            }
        },
        PackageRef::File(file) => file,
    };
    let built = match super::run::build_as(&file, "test", super::run::Profile::Author) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let mut child = Command::new(&built.binary);
    child.arg("--test").arg(&tests);
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
