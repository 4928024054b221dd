//! `clir compile PACKAGE [-o FILE]`: the generated Rust of a package, formatted.

use super::{note, print_lines, report_lines, CANNOT_RUN, FAILURE, OK};
use clap::Args;
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use std::path::PathBuf;

/// Options of `clir compile`.
#[derive(Args, Debug)]
pub struct CompileArgs {
    /// The package file.
    #[arg(value_name = "PACKAGE")]
    pub package: PathBuf,
    /// Write the Rust here instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Leave out the code that computes explanations (smaller, faster to build; `--explain`
    /// then yields no derivations).
    #[arg(long)]
    pub no_explanations: bool,
}

/// Verifies (without pins), compiles and prints or writes. Exit 1 when the package does not
/// verify or the compiler rejects it, 2 when a file cannot be read or written.
pub fn run(args: &CompileArgs) -> u8 {
    let bytes = match std::fs::read(&args.package) {
        Ok(b) => b,
        Err(e) => {
            note("compile", format_args!("cannot read {}: {e}", args.package.display()));
            return CANNOT_RUN;
        }
    };
    let opts = VerifyOptions { root: Some(PathBuf::from(".")), ..VerifyOptions::default() };
    let report = verify_bytes(&bytes, &opts);
    if !report.ok() {
        print_lines(report_lines(&report).into_iter().filter(|l| l.starts_with("FAIL")));
        note("compile", format_args!("{} does not verify", args.package.display()));
        return FAILURE;
    }
    let seal = clir_codegen::canonical::seal(&bytes);
    let doc = match report.into_document() {
        Ok(d) => d,
        Err(e) => {
            note("compile", e);
            return FAILURE;
        }
    };
    let source = match clir_codegen::compile_document_with(&doc, &seal, !args.no_explanations) {
        Ok(s) => s,
        Err(errors) => {
            for e in &errors.0 {
                // `error[code]:` when the diagnostic has a machine-readable category.
                let code = e.code.map(|c| format!("[{c}]")).unwrap_or_default();
                note("compile", format_args!("error{code}: {e}"));
            }
            note("compile", format_args!("{}: rejected ({} errors)", args.package.display(), errors.0.len()));
            return FAILURE;
        }
    };
    match &args.output {
        Some(path) => match std::fs::write(path, &source) {
            Ok(()) => OK,
            Err(e) => {
                note("compile", format_args!("cannot write {}: {e}", path.display()));
                CANNOT_RUN
            }
        },
        None => {
            print_lines(source.lines().map(str::to_string));
            OK
        }
    }
}
