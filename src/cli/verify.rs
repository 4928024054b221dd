//! `clir verify PACKAGE [--seal H] [--semantic-hash H] [--root DIR] [--strict-sources]`.

use super::{note, print_json_lines, print_lines, report_lines, stdout_failed, MessageFormat, FAILURE, OK};
use clap::Args;
use clir_codegen::verify::{verify_bytes, Outcome, VerifyOptions};
use std::path::PathBuf;

/// Options of `clir verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub package: super::package_arg::PackageArg,
    /// The seal to expect (`sha256:` of the file's bytes), as the registry publishes it.
    #[arg(long, value_name = "H")]
    pub seal: Option<String>,
    /// The top-level semanticHash to expect.
    #[arg(long = "semantic-hash", value_name = "H")]
    pub semantic_hash: Option<String>,
    /// The folder metadata.localSources paths are resolved against [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Fail, rather than warn, when a source text named by metadata.localSources is not available.
    #[arg(long)]
    pub strict_sources: bool,
    /// `human`: one line per check (one per failure of a failed check); `json`: one object per
    /// check, `{"check","outcome","detail","diagnostics":[...]}`, each diagnostic as
    /// `clir compile --message-format json` writes it.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// Runs the checks and prints one line per check (one per failure of a failed check); the
/// summary goes to stderr. Exit 0 when nothing failed, 1 on any failure, 2 when the file
/// cannot be read.
pub fn run(args: &VerifyArgs) -> u8 {
    let bytes = match super::package_arg::bytes("verify", &args.package.resolve()) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let opts = VerifyOptions {
        seal: args.seal.clone(),
        semantic_hash: args.semantic_hash.clone(),
        version: None,
        name: None,
        root: Some(args.root.clone().unwrap_or_else(|| PathBuf::from("."))),
        strict_sources: args.strict_sources,
    };
    let report = verify_bytes(&bytes, &opts);
    let printed = match args.message_format {
        MessageFormat::Human => print_lines(report_lines(&report)),
        MessageFormat::Json => {
            let doc = report.document.as_ref();
            let src = clir_codegen::Source { package: doc.map(|d| d.package.name.as_str()), document: doc };
            print_json_lines(report.checks.iter().map(|c| {
                let level = if c.outcome == Outcome::Warn { "warning" } else { "error" };
                serde_json::json!({
                    "check": c.name,
                    "outcome": match c.outcome {
                        Outcome::Skipped => "skipped",
                        other => super::status(other).trim(),
                    },
                    "detail": c.detail,
                    "diagnostics": c.diagnostics.iter().map(|d| d.to_json(level, src)).collect::<Vec<_>>(),
                })
                .to_string()
            }))
        }
    };
    if let Err(e) = printed {
        return stdout_failed("verify", &e);
    }
    let count = |o: Outcome| report.checks.iter().filter(|c| c.outcome == o).count();
    let (failed, warned) = (count(Outcome::Fail), count(Outcome::Warn));
    let what = args.package.value();
    if failed > 0 {
        note("verify", format_args!("{what}: {failed} of {} checks failed", report.checks.len()));
        FAILURE
    } else {
        let warnings = if warned == 1 { "1 warning".to_string() } else { format!("{warned} warnings") };
        note("verify", format_args!("{what}: verified ({} checks, {warnings})", report.checks.len()));
        let skipped: Vec<&str> =
            report.checks.iter().filter(|c| c.outcome == Outcome::Skipped).map(|c| c.name).collect();
        if !skipped.is_empty() {
            note(
                "verify",
                format_args!(
                    "not compared, no pin given: {}; the file's own values prove nothing about who published it: \
                     compare its seal with the publisher's page, or pass --seal (and --semantic-hash)",
                    skipped.join(", ")
                ),
            );
        }
        OK
    }
}
