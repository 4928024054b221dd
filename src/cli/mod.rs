//! The subcommands of `clir`, each a `run(&Args) -> exit status`. Reports go to stdout, one line
//! per check or package; errors that stop a command go to stderr.

pub mod add;
pub mod analyze;
pub mod causes;
pub mod check;
pub mod compile;
pub mod coverage;
pub mod diff;
pub mod lock;
pub mod meaning;
pub mod new;
pub mod pack;
pub mod package_arg;
pub mod registry;
pub mod run;
pub mod runtime;
pub mod schema;
pub mod seal;
pub mod serve;
pub mod show;
pub mod stream;
pub mod test;
pub mod verify;
pub mod wheel;

use clir_codegen::verify::{Outcome, Report};
use clir_codegen::{Diagnostics, Source};
use std::io::Write;

/// Exit status: everything held.
pub const OK: u8 = 0;
/// Exit status: something checked failed (the report says what).
pub const FAILURE: u8 = 1;
/// Exit status: the command could not run (bad flags, unreadable files).
pub const CANNOT_RUN: u8 = 2;

/// The status word of an outcome, padded to one width.
pub fn status(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "ok  ",
        Outcome::Warn => "warn",
        Outcome::Fail => "FAIL",
        Outcome::Skipped => "skip",
    }
}

/// The lines of a report: one per check, or one per diagnostic of a check that found some.
pub fn report_lines(report: &Report) -> Vec<String> {
    let width = report.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut lines = Vec::new();
    for check in &report.checks {
        let head = format!("{} {:<width$}", status(check.outcome), check.name);
        if matches!(check.outcome, Outcome::Pass | Outcome::Skipped) || check.diagnostics.is_empty() {
            lines.push(format!("{head}  {}", check.detail));
        } else {
            lines.extend(check.diagnostics.iter().map(|d| format!("{head}  {}", d)));
        }
    }
    lines
}

/// Writes lines of text to stdout, each made safe for a terminal
/// ([`clir_codegen::text::terminal_text`]: package names and texts may hold escape sequences).
/// A reader that stopped (a broken pipe, as `| head`) ends the output quietly; any other failure
/// (a full disk, `/dev/full`) is the error.
pub fn print_lines<I: IntoIterator<Item = String>>(lines: I) -> std::io::Result<()> {
    print_each(lines, |line| clir_codegen::text::terminal_text(line).into_owned())
}

/// Writes lines of JSON to stdout as [`print_lines`] writes text, with the invisible characters
/// JSON allows as they are escaped ([`clir_codegen::text::terminal_json`]).
pub fn print_json_lines<I: IntoIterator<Item = String>>(lines: I) -> std::io::Result<()> {
    print_each(lines, |line| clir_codegen::text::terminal_json(line).into_owned())
}

fn print_each<I: IntoIterator<Item = String>>(lines: I, shown: impl Fn(&str) -> String) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let written = lines.into_iter().try_for_each(|line| writeln!(out, "{}", shown(&line))).and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Reports that standard output could not be written and returns exit status 2.
pub fn stdout_failed(command: &str, e: &std::io::Error) -> u8 {
    note(command, format_args!("cannot write to standard output: {e}"));
    CANNOT_RUN
}

/// Writes `clir COMMAND: message` to stderr (errors and summaries), a line for each line of
/// `message`, each made safe for a terminal as [`print_lines`] does.
pub fn note(command: &str, message: impl std::fmt::Display) {
    let message = message.to_string();
    let mut err = std::io::stderr().lock();
    for line in message.lines() {
        let _ = writeln!(err, "clir {command}: {}", clir_codegen::text::terminal_text(line));
    }
}

/// How diagnostics are written (`--message-format`), as cargo does.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MessageFormat {
    /// rustc style: `error[code]: headline`, the location, the rule with the offending term
    /// marked, notes and help.
    #[default]
    Human,
    /// One JSON object a line, for tools.
    Json,
}

/// Writes diagnostics to stderr in `format`: rendered, or one JSON object a line.
pub fn write_diagnostics(format: MessageFormat, level: &str, diagnostics: &Diagnostics, src: Source<'_>) {
    let mut err = std::io::stderr().lock();
    for d in &diagnostics.0 {
        let _ = match format {
            MessageFormat::Human => writeln!(err, "{}", d.render(level, src)),
            MessageFormat::Json => writeln!(err, "{}", d.to_json(level, src)),
        };
    }
}

/// Writes `text` to stdout and flushes it. A reader that stopped (a broken pipe, as `| head`)
/// ends the output quietly; any other failure (a full disk, a closed stdout) is an error.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Reads a file that holds secrets (`serve --tokens`, `stream --cluster-key`), `what` naming it
/// in messages: a regular file (a FIFO would block, a device never end) that only its owner may
/// use, of at most `max` bytes.
pub fn read_private_file(path: &std::path::Path, what: &str, max: u64) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{what} {shown} is not a regular file"));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!("{what} {shown} may be used by its group or others (mode {mode:03o}): `chmod 600` it"));
    }
    if meta.len() > max {
        return Err(format!("{what} {shown} is longer than {max} bytes"));
    }
    let bytes =
        clir_codegen::project::read_regular_file(path).map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!("{what} {shown} is longer than {max} bytes"));
    }
    Ok(bytes)
}

/// Why a package file cannot be used: it cannot be read, or it does not verify (both already
/// reported on stderr).
pub enum Unusable {
    /// The file cannot be read.
    Unreadable,
    /// The package does not verify.
    Unverified,
}

/// Reads and verifies (without pins) the package `package` names for `clir COMMAND`, writing
/// what is wrong to stderr in `format`.
pub fn read_package(
    command: &str,
    package: &package_arg::PackageRef,
    format: MessageFormat,
) -> Result<(clir_codegen::verify::Verified, Vec<u8>), Unusable> {
    let bytes = package_arg::bytes(command, package).map_err(|_| Unusable::Unreadable)?;
    let opts = clir_codegen::verify::VerifyOptions {
        root: Some(std::path::PathBuf::from(".")),
        ..clir_codegen::verify::VerifyOptions::default()
    };
    let report = clir_codegen::verify::verify_bytes(&bytes, &opts);
    if !report.ok() {
        let parsed = report.document.as_ref();
        let src = Source { package: parsed.map(|d| d.package.name.as_str()), document: parsed };
        write_diagnostics(format, "error", &report.failures(), src);
        note(command, format_args!("{package} does not verify"));
        return Err(Unusable::Unverified);
    }
    match report.into_document() {
        Ok(doc) => Ok((doc, bytes)),
        Err(e) => {
            write_diagnostics(format, "error", &e, Source::default());
            Err(Unusable::Unverified)
        }
    }
}

/// Writes `text` to `output`, or to stdout without one, for `clir COMMAND`: exit 0, or 2 (said
/// on stderr) when it cannot be written.
pub fn write_output(command: &str, output: Option<&std::path::Path>, text: &str) -> u8 {
    let written = match output {
        Some(path) => {
            clir::outfile::write_atomically(path, text.as_bytes()).map_err(|e| (path.display().to_string(), e))
        }
        None => write_stdout(text).map_err(|e| ("stdout".to_string(), e)),
    };
    match written {
        Ok(()) => OK,
        Err((to, e)) => {
            note(command, format_args!("cannot write {to}: {e}"));
            CANNOT_RUN
        }
    }
}
