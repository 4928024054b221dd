//! `clir check PACKAGE --input CASES --rulings CERTIFIED`: every certified ruling checked by
//! `clir-check`, which trusts neither clir's compiler nor its runtime (docs/CERTIFICATES.md);
//! one report line a case, a summary on stderr, exit 1 when a ruling is not certified.

use super::{note, CANNOT_RUN, FAILURE, OK};
use clap::Args;
use clir::outfile::Output;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

/// Options of `clir check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The package the rulings were made with (a `.lawir.json` file or a compiled-in package's
    /// name, whose published blob is read): its sha256 must be their seal.
    #[command(flatten)]
    pub package: super::package_arg::PackageArg,
    /// The case lines [default: stdin].
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The ruling lines of `clir rule --certify`, one per case line, in order.
    #[arg(long, value_name = "FILE")]
    pub rulings: PathBuf,
    /// The report, one JSON object a case [default: stdout].
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A capability granted to the rulings checked (`judgment:AUTHORITY`), as `clir rule
    /// --grant` granted it: without it, a case stating a judgment fact is one clir refuses.
    #[arg(long = "grant", value_name = "CAP")]
    pub grants: Vec<String>,
}

fn open(path: Option<&PathBuf>) -> Result<Box<dyn BufRead>, String> {
    match clir::command::file_flag(&path.cloned()) {
        Some(p) => std::fs::File::open(&p)
            .map(|f| Box::new(BufReader::with_capacity(1 << 20, f)) as Box<dyn BufRead>)
            .map_err(|e| format!("cannot read {}: {e}", p.display())),
        None => Ok(Box::new(io::stdin().lock())),
    }
}

/// Checks the rulings; returns the exit status: 0 every ruling certified, 1 one was not (or a
/// case was not ruled), 2 the check could not run.
pub fn run(args: &CheckArgs) -> u8 {
    let cannot = |msg: String| {
        note("check", msg);
        CANNOT_RUN
    };
    if clir::command::file_flag(&args.input).is_none()
        && clir::command::file_flag(&Some(args.rulings.clone())).is_none()
    {
        return cannot("the cases and the rulings cannot both be read from stdin".into());
    }
    let bytes = match super::package_arg::bytes("check", &args.package.resolve()) {
        Ok(b) => b,
        Err(code) => return code,
    };
    // A package whose hashes do not recompute is refused before any line is checked.
    let pkg = match clir_check::Package::parse(&bytes) {
        Ok(p) => p,
        Err(e) => return cannot(format!("{}: {e}", args.package.value())),
    };
    if let Err(why) = clir_check::check_grants(&pkg, &args.grants) {
        return cannot(why);
    }
    let opts = clir_check::Options { grants: args.grants.clone() };
    let (cases, rulings) = match (open(args.input.as_ref()), open(Some(&args.rulings))) {
        (Ok(c), Ok(r)) => (c, r),
        (Err(e), _) | (_, Err(e)) => return cannot(e),
    };
    let output = clir::command::file_flag(&args.output);
    let mut out = match Output::open(output.as_deref()) {
        Ok(o) => o,
        Err(e) => return cannot(format!("cannot write {}: {e}", output.unwrap_or_default().display())),
    };
    let summary = match clir_check::check_stream(&pkg, &opts, cases, rulings, &mut out) {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return OK,
        Err(e) => return cannot(e.to_string()),
    };
    let name = out.name();
    if let Err(e) = out.finish() {
        return cannot(format!("cannot write {name}: {e}"));
    }
    note(
        "check",
        format_args!(
            "{} {} ({}): {}: {} certified, {} rejected, {} not ruled",
            pkg.name,
            pkg.version,
            pkg.seal,
            clir::suggest::counted(summary.cases as u64, "case"),
            summary.certified,
            summary.rejected,
            summary.not_ruled
        ),
    );
    if summary.certified == summary.cases {
        OK
    } else {
        FAILURE
    }
}
