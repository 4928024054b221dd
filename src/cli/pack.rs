//! `clir pack FILE.law [-o PKG.lawir.json] [--check] [--root DIR] [--strict-sources]`: a
//! package written in the notation (docs/NOTATION.md) built into its canonical package file,
//! every hash computed ([`clir_notation`]), verified as `clir verify` verifies it before anything
//! is written.

use super::{
    note, print_lines, report_lines, stdout_failed, write_diagnostics, MessageFormat, CANNOT_RUN, FAILURE, OK,
};
use clap::Args;
use clir_codegen::diag::{Diagnostic, Diagnostics};
use clir_codegen::verify::{verify_bytes, Outcome, VerifyOptions};
use clir_codegen::Source;
use std::path::{Path, PathBuf};

/// Options of `clir pack`.
#[derive(Args, Debug)]
pub struct PackArgs {
    /// The package in the notation (docs/NOTATION.md).
    #[arg(value_name = "FILE.law")]
    pub file: PathBuf,
    /// The package file to write [default: <name>-<version>.lawir.json in the current folder].
    #[arg(short = 'o', long = "output", value_name = "PKG.lawir.json")]
    pub output: Option<PathBuf>,
    /// Write nothing: exit 0 when the output file holds exactly the packed bytes, 1 when it
    /// differs or is missing (for CI).
    #[arg(long)]
    pub check: bool,
    /// The folder metadata.localSources paths are resolved against [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Refuse, rather than warn, when a source text named by a publication is not available.
    #[arg(long)]
    pub strict_sources: bool,
    /// How errors are written to stderr: `human` (rustc style) or `json` (one object a line).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// Packs the file: exit 0 when written (or, with `--check`, when the output is up to date), 1
/// when `--check` finds it differs, 2 when the notation does not parse, the package does not
/// verify or a file cannot be read or written (nothing written).
pub fn run(args: &PackArgs) -> u8 {
    let fmt = args.message_format;
    let shown = args.file.display().to_string();
    let text = match clir_codegen::files::read_regular_file(&args.file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                note("pack", format_args!("{shown} is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()));
                return CANNOT_RUN;
            }
        },
        Err(e) => {
            note("pack", format_args!("cannot read {shown}: {e}"));
            return CANNOT_RUN;
        }
    };
    let (mut pkg, at) = match clir_notation::parse_located(&text) {
        Ok(parsed) => parsed,
        Err(e) => {
            let source = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
            // The line, and a caret under the column (tabs kept, so that it lines up).
            let before: String =
                source.chars().take(e.column.saturating_sub(1)).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
            let gutter = " ".repeat(e.line.to_string().len());
            let d = Diagnostic::new("notation", format!("{shown}:{}:{}", e.line, e.column), e.message.clone())
                .with_note(format!("{} | {}", e.line, clir_codegen::text::terminal_text(source)))
                .with_note(format!("{gutter} | {before}^"))
                .with_help("docs/NOTATION.md has every statement and the grammar");
            write_diagnostics(fmt, "error", &Diagnostics(vec![d]), Source::default());
            note("pack", format_args!("{shown}: the notation does not parse; nothing written"));
            return CANNOT_RUN;
        }
    };
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    pkg.hash_present_sources(&root);
    let bytes = pkg.bytes();
    let opts = VerifyOptions { root: Some(root), strict_sources: args.strict_sources, ..VerifyOptions::default() };
    let report = verify_bytes(&bytes, &opts);
    if !report.ok() {
        // Each diagnostic located in the notation too: the statement of the node it is in.
        let located: Vec<(String, &clir_notation::Located)> =
            pkg.nodes.iter().zip(&at).filter_map(|(n, at)| Some((pkg.id(n.id()?), at))).collect();
        let failures = report.failures();
        let mapped = failures
            .0
            .iter()
            .map(|d| {
                let mut d = d.clone();
                let at = d.node.as_ref().and_then(|id| located.iter().find(|(n, _)| n == id)).map(|(_, at)| *at);
                // The part of the node the path is in: `nodes[4].body.items[0]` -> `body.items[0]`.
                let inside = d.path.split_once("].").map_or("", |(_, rest)| rest);
                if let Some((line, col)) = at.map(|at| at.find(inside)) {
                    d.path = format!("{shown}:{line}:{col} {}", d.path).trim_end().to_string();
                }
                d
            })
            .collect();
        let parsed = report.document.as_ref();
        let src = Source { package: parsed.map(|d| d.package.name.as_str()), document: parsed };
        write_diagnostics(fmt, "error", &Diagnostics(mapped), src);
        note(
            "pack",
            format_args!(
                "{shown}: the package does not verify ({}); nothing written",
                report.failed_checks().join(", ")
            ),
        );
        return CANNOT_RUN;
    }
    let warnings: Vec<String> =
        report_lines(&report).into_iter().filter(|l| l.starts_with(super::status(Outcome::Warn))).collect();
    let output = args.output.clone().unwrap_or_else(|| PathBuf::from(pkg.file_name()));
    let out_shown = output.display();
    let seal = clir_codegen::canonical::seal(&bytes);
    if args.check {
        let current = std::fs::read(&output).ok();
        if current.as_deref() == Some(bytes.as_slice()) {
            note("pack", format_args!("{out_shown} is {shown} packed: seal {seal}"));
            return OK;
        }
        let why = match &current {
            None => "is missing or unreadable".to_string(),
            Some(old) => format!("differs{}", changed_nodes(old, &bytes)),
        };
        note(
            "pack",
            format_args!("{out_shown} {why}: {shown} packs to seal {seal}; run `clir pack {shown} -o {out_shown}`"),
        );
        return FAILURE;
    }
    if let Err(e) = write_new(&output, &bytes) {
        note("pack", format_args!("cannot write {out_shown}: {e}; nothing written"));
        return CANNOT_RUN;
    }
    let semantic = pkg.document()["semanticHash"].as_str().unwrap_or_default().to_string();
    let lines = warnings.into_iter().chain([
        format!("package       {} {} ({} nodes)", pkg.name, pkg.version, pkg.nodes.len()),
        format!("semanticHash  {semantic}"),
        format!("seal          {seal}"),
    ]);
    if let Err(e) = print_lines(lines) {
        return stdout_failed("pack", &e);
    }
    note("pack", format_args!("wrote {out_shown}: verified, every hash computed; pin it with `clir add {out_shown}`"));
    OK
}

/// Writes `bytes` to `path` atomically (a temporary beside it, renamed over it): never through
/// a symlink, never over a device or anything but a regular file.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(std::io::Error::other("it is a symlink; write to the file it points to by its own name"))
        }
        Ok(meta) if !meta.is_file() => return Err(std::io::Error::other("it is not a regular file")),
        _ => {}
    }
    let mut out = clir::outfile::OutputFile::create(path)?;
    if out.target() != path {
        return Err(std::io::Error::other("it became a symlink"));
    }
    out.write_all(bytes)?;
    out.commit()
}

/// The nodes (by id) whose bytes differ between two package files, or that only one has, for
/// `--check`'s message: ` (nodes changed: A, B)`, at most ten named; empty when either file is no
/// package.
fn changed_nodes(old: &[u8], new: &[u8]) -> String {
    use serde_json::Value;
    let nodes = |b: &[u8]| -> Option<Vec<(String, Value)>> {
        let doc: Value = serde_json::from_slice(b).ok()?;
        let list = doc.get("nodes")?.as_array()?;
        Some(list.iter().map(|n| (n.get("id").and_then(Value::as_str).unwrap_or("").to_string(), n.clone())).collect())
    };
    let (Some(old), Some(new)) = (nodes(old), nodes(new)) else { return String::new() };
    let old_by_id: std::collections::HashMap<&str, &Value> = old.iter().map(|(i, n)| (i.as_str(), n)).collect();
    let new_by_id: std::collections::HashMap<&str, &Value> = new.iter().map(|(i, n)| (i.as_str(), n)).collect();
    let mut ids: Vec<&str> = Vec::new();
    for (id, n) in &new {
        if old_by_id.get(id.as_str()) != Some(&n) {
            ids.push(id);
        }
    }
    for (id, _) in &old {
        if !new_by_id.contains_key(id.as_str()) {
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return String::new();
    }
    let more = ids.len().saturating_sub(10);
    let shown: Vec<&str> = ids.iter().take(10).copied().collect();
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!(" (nodes changed: {}{tail})", shown.join(", "))
}
