//! `clir compile PACKAGE [-o FILE] [--plan]`: the generated Rust of a package, formatted, or its
//! plan.

use super::{note, write_diagnostics, write_file_atomically, write_stdout, MessageFormat, CANNOT_RUN, FAILURE, OK};
use clap::Args;
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use clir_codegen::Source;
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
    /// Print the plan instead of the Rust: per stratum its shape and which rules compute each
    /// layer (once or by a semi-naive fixpoint), per rule its loops.
    #[arg(long, conflicts_with = "no_explanations")]
    pub plan: bool,
    /// How errors are written to stderr: `human` (rustc style) or `json` (one object a line).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// Verifies (without pins), compiles and prints or writes. Exit 1 when the package does not
/// verify or the compiler rejects it, 2 when a file cannot be read or written.
pub fn run(args: &CompileArgs) -> u8 {
    let bytes = match clir_codegen::project::read_regular_file(&args.package) {
        Ok(b) => b,
        Err(e) => {
            note("compile", format_args!("cannot read {}: {e}", args.package.display()));
            return CANNOT_RUN;
        }
    };
    let opts = VerifyOptions { root: Some(PathBuf::from(".")), ..VerifyOptions::default() };
    let report = verify_bytes(&bytes, &opts);
    let seal = clir_codegen::canonical::seal(&bytes);
    let fmt = args.message_format;
    if !report.ok() {
        let parsed = report.document.as_ref();
        let src = Source { package: parsed.map(|d| d.package.name.as_str()), document: parsed };
        write_diagnostics(fmt, "error", &report.failures(), src);
        note("compile", format_args!("{} does not verify", args.package.display()));
        return FAILURE;
    }
    let doc = match report.into_document() {
        Ok(doc) => doc,
        Err(e) => {
            write_diagnostics(fmt, "error", &e, Source::default());
            return FAILURE;
        }
    };
    let compiled = if args.plan {
        clir_codegen::plan_document(&doc)
    } else {
        clir_codegen::compile_document_with(&doc, &seal, !args.no_explanations)
    };
    let source = match compiled {
        Ok(s) => s,
        Err(errors) => {
            write_diagnostics(fmt, "error", &errors, Source::of(&doc));
            note("compile", format_args!("{}: rejected ({} errors)", args.package.display(), errors.0.len()));
            return FAILURE;
        }
    };
    let written = match &args.output {
        Some(path) => write_file_atomically(path, source.as_bytes()).map_err(|e| (path.display().to_string(), e)),
        None => write_stdout(&source).map_err(|e| ("stdout".to_string(), e)),
    };
    match written {
        Ok(()) => OK,
        Err((to, e)) => {
            note("compile", format_args!("cannot write {to}: {e}"));
            CANNOT_RUN
        }
    }
}
