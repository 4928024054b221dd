//! The options of `clir rule`, shared by the `clir` binary and the binaries `clir run` builds
//! for packages that are not compiled in.

use crate::coverage::{Coverage, Shared};
use crate::jsonl::{ExplainForm, Options};
use crate::outfile::{write_atomically, Output};
use crate::runner::{rule_stream_writing_apart, Progress, RunOptions};
use crate::{Package, Schema};
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};

/// Where cases come from and rulings go, and what is granted: the options of `clir rule` (a
/// `#[command(flatten)]` of clap, parsed as `Flags`, whose help is the command line's).
#[derive(Debug, Clone, Default)]
pub struct RuleArgs {
    /// Cases, one JSON object a line (`None` or `-`: stdin).
    pub input: Option<PathBuf>,
    /// Rulings, one JSON object a line, in input order (`None` or `-`: stdout).
    pub output: Option<PathBuf>,
    /// Capabilities granted to this run (`judgment:AUTHORITY`).
    pub grants: Vec<String>,
    /// Attach to every concluded literal its derivation (`--explain`, in any form).
    pub explain: bool,
    /// The form of the explanations with `explain` (`--explain=full`, `--explain=refs`).
    pub explain_form: ExplainForm,
    /// Attach to every ruling its certificate.
    pub certify: bool,
    /// Reject a case that names a value no declared constant of its type is.
    pub strict_constants: bool,
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// Where to write what the cases exercised.
    pub coverage: Option<PathBuf>,
    /// The language of labels and article texts.
    pub lang: Option<String>,
    /// Cases per evaluation batch.
    pub batch: usize,
    /// At most this many tuples derived by the joins of one case (`None`: no bound).
    // `RuleArgs::default()`, a caller of `rule` in code, sets no bound.
    pub max_case_tuples: Option<u64>,
}

impl RuleArgs {
    /// The `--explain` flag that asks for these args' explanations, if any: `--explain` for the
    /// full form, `--explain=refs` for the refs form (what a package binary is passed).
    pub fn explain_flag(&self) -> Option<&'static str> {
        match (self.explain, self.explain_form) {
            (false, _) => None,
            (true, ExplainForm::Full) => Some("--explain"),
            (true, ExplainForm::Refs) => Some("--explain=refs"),
        }
    }
}

/// [`RuleArgs`] as the command line gives them: `--explain` takes an optional form.
#[derive(clap::Args, Debug, Clone)]
#[group(id = "RuleArgs")]
struct Flags {
    /// Cases, one JSON object a line [default: stdin].
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Rulings, one JSON object a line, in input order [default: stdout].
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// A capability granted to this run (`judgment:AUTHORITY`); judgment facts need it.
    #[arg(long = "grant", value_name = "CAP")]
    grants: Vec<String>,
    /// Attach to every concluded literal its derivation: rule, articles, premises, attacks.
    /// `--explain=refs`: instead, one flat table of derivations a line (`derivations`), each
    /// literal once, premises by their literal, rules by id (labels and articles: `clir show`).
    #[arg(long, value_name = "FORM", num_args = 0..=1, default_missing_value = "full", require_equals = true)]
    explain: Option<ExplainForm>,
    /// Attach to every ruling its certificate, which `clir check` verifies without this engine
    /// (docs/CERTIFICATES.md).
    #[arg(long)]
    certify: bool,
    /// Reject a case that names, where a type declares constants, a value that is none of them
    /// (without it, the ruling line gets a `warnings` entry and the name is a new entity).
    #[arg(long)]
    strict_constants: bool,
    /// Worker threads, 1 to 512 [default: one per core].
    #[arg(long, value_name = "N", value_parser = in_range::<1, MAX_THREADS>)]
    threads: Option<usize>,
    /// Write to FILE what the cases exercised: per rule, article and priority, how often it
    /// applied, concluded, was attacked, beaten or beat, and the rules never applied (JSON;
    /// `clir coverage FILE` prints it as a table).
    #[arg(long, value_name = "FILE")]
    coverage: Option<PathBuf>,
    /// The language of labels and article texts in explanations and why-not (a language the
    /// package carries; texts it lacks there are in its default language).
    #[arg(long = "lang", value_name = "LANG")]
    lang: Option<String>,
    /// Cases per evaluation batch, 1 to 1048576.
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = in_range::<1, MAX_BATCH>)]
    batch: usize,
    /// At most N tuples derived by the joins of one case: past it, that case's line is an error
    /// line and the others are ruled as without it (bounded memory per case, docs/SECURITY.md).
    #[arg(long, value_name = "N", default_value = MAX_CASE_TUPLES_TEXT)]
    max_case_tuples: Option<u64>,
}

impl From<Flags> for RuleArgs {
    fn from(f: Flags) -> RuleArgs {
        RuleArgs {
            input: f.input,
            output: f.output,
            grants: f.grants,
            explain: f.explain.is_some(),
            explain_form: f.explain.unwrap_or_default(),
            certify: f.certify,
            strict_constants: f.strict_constants,
            threads: f.threads,
            coverage: f.coverage,
            lang: f.lang,
            batch: f.batch,
            max_case_tuples: f.max_case_tuples,
        }
    }
}

impl From<RuleArgs> for Flags {
    fn from(a: RuleArgs) -> Flags {
        Flags {
            input: a.input,
            output: a.output,
            grants: a.grants,
            explain: a.explain.then_some(a.explain_form),
            certify: a.certify,
            strict_constants: a.strict_constants,
            threads: a.threads,
            coverage: a.coverage,
            lang: a.lang,
            batch: a.batch,
            max_case_tuples: a.max_case_tuples,
        }
    }
}

impl clap::FromArgMatches for RuleArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Flags::from_arg_matches(matches).map(RuleArgs::from)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        let mut flags = Flags::from(std::mem::take(self));
        let result = flags.update_from_arg_matches(matches);
        *self = flags.into();
        result
    }
}

impl clap::Args for RuleArgs {
    fn group_id() -> Option<clap::Id> {
        Flags::group_id()
    }

    fn augment_args(cmd: clap::Command) -> clap::Command {
        Flags::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Flags::augment_args_for_update(cmd)
    }
}

pub use crate::runner::MAX_THREADS;
/// [`crate::jsonl::DEFAULT_MAX_CASE_TUPLES`] as `--max-case-tuples`'s default text.
const MAX_CASE_TUPLES_TEXT: &str = "4000000";
/// The largest batch `--batch` accepts.
pub const MAX_BATCH: usize = 1 << 20;

/// A whole number from `LO` to `HI` (clap reports anything else, exit 2).
fn in_range<const LO: usize, const HI: usize>(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (LO..=HI).contains(&n) => Ok(n),
        _ => Err(format!("expected a whole number from {LO} to {HI}")),
    }
}

/// Exit status: every case ruled.
pub const OK: u8 = 0;
/// Exit status: some case was rejected (its error line was written; the others were ruled).
pub const SOME_REJECTED: u8 = 1;
/// Exit status: the command could not run.
pub const CANNOT_RUN: u8 = 2;

/// Rules the cases of `args` with `pkg`; returns the exit status of README.md "The `clir` command".
pub fn rule(pkg: &dyn Package, args: &RuleArgs) -> u8 {
    if let Err(why) = pkg.schema().check_grants(&args.grants) {
        return cannot_run(why);
    }
    if let Some(lang) = &args.lang {
        return match pkg.schema().in_language(lang) {
            Ok(schema) => {
                let missing = schema.untranslated();
                if missing > 0 {
                    let default = schema.texts.languages.first().copied().unwrap_or("");
                    let _ = writeln!(
                        io::stderr(),
                        "clir rule: note: {missing} labels and article texts of {} are not in `{}`: they are given in `{}`",
                        schema.package,
                        lang.escape_debug(),
                        default.escape_debug()
                    );
                }
                let schema: &'static Schema = Box::leak(Box::new(schema));
                rule(&InLanguage { pkg, schema }, &RuleArgs { lang: None, ..args.clone() })
            }
            Err(why) => cannot_run(why),
        };
    }
    let coverage = args.coverage.as_ref().map(|_| Coverage::shared(pkg.schema()));
    let opts = RunOptions {
        options: Options {
            grants: args.grants.clone(),
            explain: args.explain,
            explain_form: args.explain_form,
            strict_constants: args.strict_constants,
            coverage: coverage.clone(),
            certify: args.certify,
            max_case_tuples: args.max_case_tuples,
            granted_by: crate::jsonl::GrantedBy::CommandLine,
        },
        threads: args.threads,
        batch: args.batch,
    };
    let (input_path, output_path) = (file_flag(&args.input), file_flag(&args.output));
    let input: Box<dyn io::BufRead> = match &input_path {
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(BufReader::with_capacity(1 << 20, f)),
            Err(e) => return cannot_run(format!("cannot read {}: {e}", p.display())),
        },
        None => Box::new(io::stdin().lock()),
    };
    // A file is written through `OutputFile`: a failed run leaves the target as it was, and the
    // output may be the input.
    let mut output = match Output::open(output_path.as_deref()) {
        Ok(o) => o,
        Err(e) => return cannot_run(format!("cannot write {}: {e}", output_path.unwrap_or_default().display())),
    };
    let outcome = rule_stream_writing_apart(pkg, input, &mut output, &opts, &Bar::on_stderr());
    if outcome.is_ok() {
        let name = output.name();
        if let Err(e) = output.finish() {
            return cannot_run(format!("cannot write {name}: {e}"));
        }
        if let Err(why) = write_coverage(args.coverage.as_deref(), coverage.as_ref()) {
            return cannot_run(why);
        }
    }
    match outcome {
        Ok(summary) => {
            if summary.errors > 0 {
                let _ = writeln!(
                    io::stderr(),
                    "clir rule: {}, {} rejected (see their error lines)",
                    crate::suggest::counted(summary.lines, "case"),
                    summary.errors
                );
                SOME_REJECTED
            } else {
                OK
            }
        }
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => OK,
        Err(e) => cannot_run(format!("{e}")),
    }
}

/// Writes the coverage of a run to `path` (atomically) when both are given.
fn write_coverage(path: Option<&Path>, coverage: Option<&Shared>) -> Result<(), String> {
    let (Some(path), Some(coverage)) = (path, coverage) else { return Ok(()) };
    let doc = coverage.lock().unwrap_or_else(std::sync::PoisonError::into_inner).to_json();
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    write_atomically(path, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A package whose explanations and why-not answers show its labels and texts in another
/// language ([`Schema::in_language`]).
struct InLanguage<'a> {
    pkg: &'a dyn Package,
    schema: &'static Schema,
}

impl Package for InLanguage<'_> {
    fn schema(&self) -> &'static Schema {
        self.schema
    }

    fn evaluate(&self, batch: &crate::Batch) -> crate::Output {
        self.pkg.evaluate(batch)
    }
}

/// The progress line on stderr while cases are ruled, when stderr is a terminal (indicatif);
/// hidden otherwise.
struct Bar(indicatif::ProgressBar);

impl Bar {
    fn on_stderr() -> Bar {
        use indicatif::{ProgressBar, ProgressStyle};
        use std::io::IsTerminal;
        if !io::stderr().is_terminal() {
            return Bar(ProgressBar::hidden());
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {human_pos} cases ruled ({per_sec}) {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        Bar(bar)
    }
}

impl Progress for Bar {
    fn ruled(&self, cases: u64) {
        self.0.inc(cases);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// The file of an `--input` or `--output` flag; `None` for stdin or stdout (no flag, or `-`).
pub fn file_flag(path: &Option<PathBuf>) -> Option<PathBuf> {
    path.as_ref().filter(|p| p.as_os_str() != "-").cloned()
}

fn cannot_run(msg: String) -> u8 {
    let _ = writeln!(io::stderr(), "clir rule: {msg}");
    CANNOT_RUN
}

/// Runs the law test file `tests` (`-`: stdin) against `pkg` (`clir::lawtest`), writing one
/// report line a test to `output` (`None`: stdout) and a summary to stderr; returns the exit
/// status: 0 every test passed, 1 one failed, 2 the tests could not be run. With `coverage`, what
/// the tests' cases exercised is written there.
pub fn test(pkg: &dyn Package, tests: &Path, output: Option<&Path>, coverage: Option<&Path>) -> u8 {
    let note = |msg: String| {
        let _ = writeln!(io::stderr(), "clir test: {msg}");
        CANNOT_RUN
    };
    let input: Box<dyn io::BufRead> = match file_flag(&Some(tests.to_path_buf())) {
        Some(p) => match std::fs::File::open(&p) {
            Ok(f) => Box::new(BufReader::new(f)),
            Err(e) => return note(format!("cannot read {}: {e}", p.display())),
        },
        None => Box::new(io::stdin().lock()),
    };
    let output = output.filter(|p| p.as_os_str() != "-");
    let mut out = match Output::open(output) {
        Ok(o) => o,
        Err(e) => return note(format!("cannot write {}: {e}", output.unwrap_or(Path::new("")).display())),
    };
    let shared = coverage.map(|_| Coverage::shared(pkg.schema()));
    let summary = match crate::lawtest::run_counting(pkg, input, &mut out, shared.as_ref()) {
        Ok(s) => s,
        Err(e) => return note(e.to_string()),
    };
    let name = out.name();
    if let Err(e) = out.finish() {
        return note(format!("cannot write {name}: {e}"));
    }
    if let Err(why) = write_coverage(coverage, shared.as_ref()) {
        return note(why);
    }
    let (tests, failed) = (summary.tests, summary.failed);
    let tests_run = crate::suggest::counted(tests as u64, "test");
    let _ = writeln!(io::stderr(), "clir test: {tests_run}, {} passed, {failed} failed", tests - failed);
    u8::from(failed > 0)
}

/// `main` of a binary that rules with one package (what `clir run` builds); `--test FILE` runs a
/// law test file instead (what `clir test PACKAGE.lawir.json` runs).
pub fn package_main(pkg: &dyn Package) -> std::process::ExitCode {
    #[derive(clap::Parser)]
    #[command(about = "Rule cases (JSON Lines) with one compiled law package")]
    struct Cli {
        /// Run this law test file (one case and its expected ruling a line) instead of ruling.
        #[arg(long, value_name = "TESTS", conflicts_with_all = ["input", "explain", "grants", "threads"])]
        test: Option<PathBuf>,
        /// Write the package's schema as JSON (`clir schema`) instead of ruling.
        #[arg(long, conflicts_with = "test")]
        schema: bool,
        #[command(flatten)]
        args: RuleArgs,
    }
    let cli = <Cli as clap::Parser>::parse();
    let code = match &cli.test {
        _ if cli.schema => {
            let schema = pkg.schema();
            match writeln!(std::io::stdout().lock(), "{}", schema.to_json(schema.package, None)) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: cannot write the schema: {e}");
                    2
                }
            }
        }
        Some(tests) => test(pkg, tests, cli.args.output.as_deref(), cli.args.coverage.as_deref()),
        None => rule(pkg, &cli.args),
    };
    std::process::ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_lines_tuple_budget_is_the_documented_default_and_code_sets_none() {
        assert_eq!(MAX_CASE_TUPLES_TEXT.parse::<u64>(), Ok(crate::jsonl::DEFAULT_MAX_CASE_TUPLES));
        assert_eq!(RuleArgs::default().max_case_tuples, None);
    }
}
