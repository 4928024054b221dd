//! `clir show PACKAGE` (a file, a package of law.toml or a compiled-in one): the package as readable Datalog,
//! stratum by stratum ([`clir_codegen::show`]).

use super::package_arg::{PackageArg, PackageRef};
use super::{note, read_package, write_diagnostics, write_output, MessageFormat, CANNOT_RUN};
use clap::Args;
use clir_codegen::ir::NodeKind;
use clir_codegen::{project, Diagnostic, Source};
use std::path::{Path, PathBuf};

/// Options of `clir show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A package file, or a package's name: one of the law.toml here (verified against its pins
    /// in law.lock), else one compiled into this clir.
    #[command(flatten)]
    pub package: PackageArg,
    /// Write the Datalog here instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The language of labels (a language the package carries; labels it lacks there are in
    /// its default language).
    #[arg(long = "lang", value_name = "LANG")]
    pub lang: Option<String>,
    /// How errors are written to stderr: `human` (rustc style) or `json` (one object a line).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
    /// Print the package in the notation (docs/NOTATION.md) instead, which `clir pack` turns
    /// back into the same package file, byte for byte.
    #[arg(long, conflicts_with = "lang")]
    pub notation: bool,
}

/// Verifies the package (a file without pins, a law.toml package against its pins), stratifies
/// it and prints or writes it as Datalog. Exit 2 when it cannot be read, does not verify or is
/// rejected by the compiler (diagnostics on stderr), or when the output cannot be written.
pub fn run(args: &ShowArgs) -> u8 {
    let fmt = args.message_format;
    let value = args.package.value();
    let file = super::package_arg::names_a_file(value);
    let (what, doc, bytes) = if file {
        match read_package("show", &PackageRef::File(value.into()), fmt) {
            Ok((doc, bytes)) => (value.to_string(), doc, bytes),
            Err(_) => return CANNOT_RUN,
        }
    } else {
        let name = &value.to_string();
        // Not a package of the law.toml here, but one compiled into this clir: its blob.
        let listed = project::load(Path::new(".")).is_ok_and(|p| p.package(name).is_some());
        let compiled = crate::package_blobs::BLOBS.iter().find(|(n, _)| n == name);
        if let (false, Some((_, bytes))) = (listed, compiled) {
            let report = clir_codegen::verify::verify_bytes(bytes, &Default::default());
            match report.into_document() {
                Ok(doc) => return show(args, name, doc, bytes),
                Err(e) => {
                    write_diagnostics(fmt, "error", &e, Source::default());
                    note("show", format_args!("package {name} does not verify"));
                    return CANNOT_RUN;
                }
            }
        }
        if !listed && compiled.is_none() {
            let names: Vec<&str> = crate::package_blobs::BLOBS.iter().map(|(n, _)| *n).collect();
            let hint = clir::suggest::did_you_mean(name, names.iter().copied());
            note(
                "show",
                format_args!(
                    "`{name}` is no file, and no package of that name is listed in a law.toml here or compiled in{hint} (compiled in: {})",
                    names.join(", ")
                ),
            );
            return CANNOT_RUN;
        }
        let verified = project::load(Path::new(".")).and_then(|project| match project.package(name) {
            Some(spec) => project::verify_package(&project, spec),
            None => Err(Diagnostic::new("package", "", format!("package `{name}` is not listed in law.toml")).into()),
        });
        match verified {
            Ok(package) => (name.clone(), package.document, package.bytes),
            Err(e) => {
                write_diagnostics(fmt, "error", &e, Source::default());
                note("show", format_args!("package {name} does not verify"));
                return CANNOT_RUN;
            }
        }
    };
    show(args, &what, doc, &bytes)
}

/// Writes `doc` as Datalog where `args` says; `what` names it in messages.
fn show(args: &ShowArgs, what: &str, doc: clir_codegen::verify::Verified, bytes: &[u8]) -> u8 {
    let fmt = args.message_format;
    if args.notation {
        return match clir_notation::print(bytes) {
            Ok(text) => write_output("show", args.output.as_deref(), &text),
            Err(e) => {
                note("show", format_args!("{what} cannot be printed as notation: {e}"));
                CANNOT_RUN
            }
        };
    }
    let languages = doc.languages();
    let language = match &args.lang {
        None => 0,
        Some(lang) => match languages.iter().position(|l| l == lang) {
            Some(i) => {
                let labelled = doc.nodes.iter().filter(|n| {
                    matches!(n.kind, NodeKind::Rule(_) | NodeKind::Closure(_) | NodeKind::Priority(_))
                        && !n.labels.is_empty()
                });
                let missing = labelled.filter(|n| !n.labels.iter().any(|l| l.language == *lang)).count();
                if missing > 0 {
                    note(
                        "show",
                        format_args!(
                            "{missing} labels of {what} are not in `{lang}`: they are shown in `{}`",
                            languages[0]
                        ),
                    );
                }
                i
            }
            None => {
                let hint = clir::suggest::did_you_mean(lang, languages.iter().map(String::as_str));
                let carried = if languages.is_empty() { "no language".to_string() } else { languages.join(", ") };
                note(
                    "show",
                    format_args!("unknown language `{lang}`{hint}: {what} has its labels and texts in {carried}"),
                );
                return CANNOT_RUN;
            }
        },
    };
    match clir_codegen::show_document_in(&doc, language) {
        Ok(text) => write_output("show", args.output.as_deref(), &text),
        Err(errors) => {
            write_diagnostics(fmt, "error", &errors, Source::of(&doc));
            note("show", format_args!("{what}: rejected ({})", clir::suggest::counted(errors.0.len() as u64, "error")));
            CANNOT_RUN
        }
    }
}
