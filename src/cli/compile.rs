//! `clir compile PACKAGE [-o FILE] [--plan]`: the generated Rust of a package, formatted, or its
//! plan.

use super::package_arg::PackageArg;
use super::{note, read_package, write_diagnostics, write_output, MessageFormat, Unusable, CANNOT_RUN, FAILURE};
use clap::Args;
use clir::suggest::counted;
use clir_codegen::Source;
use std::path::PathBuf;

/// Options of `clir compile`.
#[derive(Args, Debug)]
pub struct CompileArgs {
    #[command(flatten)]
    pub package: PackageArg,
    /// Write the Rust here instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Leave out the code that computes explanations (smaller, faster to build; `--explain`
    /// then yields no derivations).
    #[arg(long)]
    pub no_explanations: bool,
    /// Print the plan instead of the Rust: per stratum its shape and which rules compute each
    /// layer (once or by a datafrog iteration), per rule its join order and leapjoins.
    #[arg(long, conflicts_with = "no_explanations")]
    pub plan: bool,
    /// How errors are written to stderr: `human` (rustc style) or `json` (one object a line).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// Verifies (without pins), compiles and prints or writes. Exit 1 when the package does not
/// verify or the compiler rejects it, 2 when a file cannot be read or written.
pub fn run(args: &CompileArgs) -> u8 {
    let fmt = args.message_format;
    let (doc, bytes) = match read_package("compile", &args.package.resolve(), fmt) {
        Ok(read) => read,
        Err(Unusable::Unreadable) => return CANNOT_RUN,
        Err(Unusable::Unverified) => return FAILURE,
    };
    let seal = clir_codegen::canonical::seal(&bytes);
    let compiled = if args.plan {
        clir_codegen::plan_document(&doc)
    } else {
        clir_codegen::compile_document_with(&doc, &seal, !args.no_explanations)
    };
    match compiled {
        Ok(source) => write_output("compile", args.output.as_deref(), &source),
        Err(errors) => {
            write_diagnostics(fmt, "error", &errors, Source::of(&doc));
            note(
                "compile",
                format_args!("{}: rejected ({})", args.package.value(), counted(errors.0.len() as u64, "error")),
            );
            FAILURE
        }
    }
}
