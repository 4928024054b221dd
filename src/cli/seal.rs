//! `clir seal PKG.lawir.json [--version X.Y.Z] [--root DIR] [--strict-sources]`: recomputes the
//! hashes of a package file edited as JSON, in place ([`clir_codegen::seal::reseal`]).

use super::{note, print_lines, report_lines, stdout_failed, CANNOT_RUN, OK};
use clap::Args;
use clir_codegen::seal::{reseal, SealOptions};
use clir_codegen::verify::Outcome;
use std::path::PathBuf;

/// Options of `clir seal`: `--version` is the package's new version, so clir's own is not shown
/// here.
#[derive(Args, Debug)]
#[command(disable_version_flag = true)]
pub struct SealArgs {
    /// The package file to seal, rewritten in place (a regular file, not a symlink).
    #[arg(value_name = "PKG.lawir.json")]
    pub file: PathBuf,
    /// The new version: `package.version` and `semanticVersion` become it.
    #[arg(long, value_name = "X.Y.Z")]
    pub version: Option<String>,
    /// The folder metadata.localSources paths are resolved against [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Refuse, rather than warn, when a source text named by metadata.localSources is not available.
    #[arg(long)]
    pub strict_sources: bool,
}

/// Seals the file: exit 0 when it is sealed (or already was), 2 when it cannot be read or
/// written, or is refused (the checks that refused it on stdout, as `clir verify` prints them;
/// nothing written).
pub fn run(args: &SealArgs) -> u8 {
    let path = &args.file;
    let shown = path.display();
    // The file itself is replaced: never a link's target through the link, never a device.
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let to = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
            note(
                "seal",
                format_args!(
                    "{shown} is a symlink (to {to}): seal the file it points to by its own name; nothing written"
                ),
            );
            return CANNOT_RUN;
        }
        Ok(meta) if !meta.is_file() => {
            note("seal", format_args!("{shown} is not a regular file; nothing written"));
            return CANNOT_RUN;
        }
        Ok(_) => {}
        Err(e) => {
            note("seal", format_args!("cannot read {shown}: {e}"));
            return CANNOT_RUN;
        }
    }
    let bytes = match clir_codegen::files::read_regular_file(path) {
        Ok(b) => b,
        Err(e) => {
            note("seal", format_args!("cannot read {shown}: {e}"));
            return CANNOT_RUN;
        }
    };
    let opts = SealOptions {
        version: args.version.clone(),
        root: Some(args.root.clone().unwrap_or_else(|| PathBuf::from("."))),
        strict_sources: args.strict_sources,
    };
    let sealed = match reseal(&bytes, &opts) {
        Ok(s) => s,
        Err(report) => {
            if let Err(e) = print_lines(report_lines(&report)) {
                return stdout_failed("seal", &e);
            }
            let failed = report.failed_checks();
            note(
                "seal",
                format_args!(
                    "{shown}: refused, nothing written: {} of {} checks failed after the hashes were recomputed ({}); \
                     fix the file and seal it again",
                    failed.len(),
                    report.checks.len(),
                    failed.join(", ")
                ),
            );
            return CANNOT_RUN;
        }
    };
    let warnings: Vec<String> =
        report_lines(&sealed.report).into_iter().filter(|l| l.starts_with(super::status(Outcome::Warn))).collect();
    let package = format!("{} {}", sealed.name, sealed.version.1);
    if !sealed.changed {
        let lines = warnings
            .into_iter()
            .chain([format!("unchanged     every hash recomputes, the file is canonical: seal {}", sealed.seal.1)]);
        if let Err(e) = print_lines(lines) {
            return stdout_failed("seal", &e);
        }
        note(
            "seal",
            format_args!(
                "{package} ({shown}) is already sealed: nothing written, its seal and semanticHash are unchanged, \
                 and pins of them still apply"
            ),
        );
        return OK;
    }
    if let Err(e) = write_in_place(path, &sealed.bytes) {
        note("seal", format_args!("cannot write {shown}: {e}; the file is unchanged"));
        return CANNOT_RUN;
    }
    let rehashed = &sealed.nodes_rehashed;
    let mut lines = warnings;
    lines.push(format!(
        "contentHash   {} of {} nodes recomputed{}{}",
        rehashed.len(),
        sealed.nodes,
        if rehashed.is_empty() { "" } else { ": " },
        rehashed.join(", ")
    ));
    lines.push(format!(
        "textHash      {} of {} fragment texts recomputed",
        sealed.texts_rehashed.0, sealed.texts_rehashed.1
    ));
    if sealed.recanonicalized {
        lines.push("canonical     rewritten in canonical form".to_string());
    }
    if sealed.version.0 != sealed.version.1 {
        lines.push(format!("version       {} -> {}", sealed.version.0, sealed.version.1));
    }
    let old_semantic = sealed.semantic_hash.0.as_deref().unwrap_or("none");
    let kept = old_semantic == sealed.semantic_hash.1;
    if kept {
        lines.push(format!("semanticHash  {old_semantic} kept: no node's hash changed"));
    } else {
        lines.push(format!("semanticHash  {old_semantic} -> {}", sealed.semantic_hash.1));
    }
    lines.push(format!("seal          {} -> {}", sealed.seal.0, sealed.seal.1));
    if let Err(e) = print_lines(lines) {
        return stdout_failed("seal", &e);
    }
    let pins = if kept {
        "the seal is that of the new bytes, and a seal pin of the old ones (law.lock, a registry's index) no longer \
         applies to this file; the semanticHash is kept, as no node changed"
    } else {
        "this is a new seal and semanticHash, not its publisher's: the publisher's pins (law.lock, a registry's \
         index) no longer apply to this file"
    };
    note(
        "seal",
        format_args!(
            "sealed {package} ({shown}): new seal {}, semanticHash {}; {pins}: `clir add --update` it to pin the \
             new one",
            sealed.seal.1, sealed.semantic_hash.1
        ),
    );
    OK
}

/// Replaces `path` (a regular file, checked above) with `bytes` atomically, keeping its mode, as
/// [`clir::outfile`] does; refused if `path` became a symlink since it was read.
fn write_in_place(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = clir::outfile::OutputFile::create(path)?;
    if out.target() != path {
        return Err(std::io::Error::other("it became a symlink since it was read"));
    }
    out.write_all(bytes)?;
    out.commit()
}
