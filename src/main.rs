//! The `clir` command (README.md "The `clir` command"; its formats in docs/FORMAT.md): verify
//! packages, pin them in law.lock, compile them and rule with them. This file only parses the
//! command line and dispatches; the commands live in `cli/`.

mod cli;

/// The packages of this repository's law.toml, compiled in by build.rs: `clir rule --package`.
mod packages {
    include!(concat!(env!("OUT_DIR"), "/clir/packages.rs"));
}

/// The blobs of those packages, for `clir show --package` outside the checkout.
mod package_blobs {
    include!(concat!(env!("OUT_DIR"), "/package_blobs.rs"));
}

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The allocator of the command (see Cargo.toml): memory freed by one batch of a run is kept
/// for the next, not handed back to the system and faulted in again.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CLIR law packages: verify, pin, compile and rule.
#[derive(Parser)]
#[command(name = "clir", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The format of a case line, shown by `clir rule --help` and `clir run --help`.
const CASE_LINE: &str = "A case is one JSON object a line:\n  \
    {\"case\":\"g1\",\"facts\":{\"player_of\":[[\"g1\",\"w\"]],\"~king_cannot_be_checkmated\":[[\"w\"]]},\"why_not\":[\"game_drawn(g1)\"]}\n\
    `facts` maps a relation to its tuples (`~name`: explicit negatives); entities are strings, Integers are \
    numbers, constants are written by name; `why_not` (optional) asks why literals are not concluded. Each \
    line gets one ruling line, in input order. `clir schema PACKAGE` lists a package's relations and types.";

/// The subcommands.
#[derive(Subcommand)]
enum Command {
    /// Run every check of a package file (SEMANTICS §1), one line per check; exit 1 on any failure.
    Verify(cli::verify::VerifyArgs),
    /// Recompute the hashes, semanticHash and canonical form of a package file edited as JSON, in
    /// place; refused (nothing written) when anything but the hashes fails `clir verify`.
    Seal(cli::seal::SealArgs),
    /// Build a package written in the notation (docs/NOTATION.md) into its canonical package file,
    /// every hash computed; refused (nothing written) when it does not verify; --check for CI.
    Pack(cli::pack::PackArgs),
    /// Verify every package of law.toml and write law.lock; a changed pin is only rewritten with
    /// --update NAME.
    Lock(cli::lock::LockArgs),
    /// Verify a package file, copy it byte-exact to sources/<name>-<version>.lawir.json, list it in
    /// law.toml and pin it in law.lock, printing the pin for review; a changed pin only with --update.
    Add(cli::add::AddArgs),
    /// Print or write the generated Rust of a package (formatted).
    Compile(cli::compile::CompileArgs),
    /// Print or write a package as readable Datalog, stratum by stratum: its relations, and each
    /// rule with its id, strength, label and articles, its priorities and closures.
    Show(cli::show::ShowArgs),
    /// Batch rulings (JSON Lines in and out) with a compiled-in package, or a package file
    /// compiled as `run` compiles it.
    #[command(after_help = CASE_LINE)]
    Rule(cli::run::RuleCmd),
    /// Compile any package file to native code (cached by seal), then rule with it (`rule` under
    /// another name).
    #[command(after_help = CASE_LINE)]
    Run(cli::run::RunCmd),
    /// What a package's cases may say: its relations (kind, arguments, types, the
    /// grant a judgment needs), its constants and a case line; --json for the service's JSON.
    Schema(cli::schema::SchemaArgs),
    /// Conflicts, dead rules and idle priorities of a package, each with a witness case its
    /// ruling confirms: one JSON line a finding (or --format table); --deny makes kinds fail.
    Analyze(cli::analyze::AnalyzeArgs),
    /// Run a law test file against a package: each line a case and the literals its
    /// ruling must (not) conclude; one report line a test, exit 1 when one fails.
    Test(cli::test::TestArgs),
    /// Print a coverage file (`rule --coverage`, `test --coverage`) as a table: per article and
    /// rule how often it applied, concluded, was attacked or beaten; the rules never applied.
    Coverage(cli::coverage::CoverageArgs),
    /// Bring every blob law.lock pins that the project lacks from its registry, checked by seal.
    Fetch(cli::registry::FetchArgs),
    /// A registry folder: publish a package into it, or serve it over HTTP, read-only.
    Registry(cli::registry::RegistryArgs),
    /// Rule every case with two versions of a law (both compiled as `run` does) and write one
    /// line per case whose ruling differs, in input order.
    Diff(cli::diff::DiffCmd),
    /// Check certified rulings (`clir rule --certify`) against a package file and their case
    /// lines, independently of the engine: one report line a case, exit 1 when one fails.
    Check(cli::check::CheckArgs),
    /// Scaffold a crate that compiles its own law packages (Cargo.toml, build.rs, law.toml,
    /// src/main.rs); `clir add` then adds a package to it.
    New(cli::new::NewArgs),
    /// An HTTP service for rulings, explanations and why-nots of compiled-in packages, with a
    /// review page at `/`; SIGTERM finishes the requests in flight.
    Serve(cli::serve::ServeArgs),
    /// Rulings kept current as the facts of cases change: updates in, one line per case whose
    /// ruling changed at a time, on timely/differential dataflow over threads and processes.
    Stream(cli::stream::StreamArgs),
    /// Build a Python wheel (abi3, with maturin) of a package: `rule`, `rule_arrow` and a typed
    /// case builder around its compiled code, in the `run` cache; prints the wheel's path.
    Wheel(cli::wheel::WheelArgs),
}

fn main() -> ExitCode {
    let code = match Cli::parse().command {
        Command::Verify(args) => cli::verify::run(&args),
        Command::Seal(args) => cli::seal::run(&args),
        Command::Pack(args) => cli::pack::run(&args),
        Command::Lock(args) => cli::lock::run(&args),
        Command::Add(args) => cli::add::run(&args),
        Command::Compile(args) => cli::compile::run(&args),
        Command::Show(args) => cli::show::run(&args),
        Command::Rule(args) => cli::run::rule(&args),
        Command::Run(args) => cli::run::run(&args),
        Command::Test(args) => cli::test::run(&args),
        Command::Analyze(args) => cli::analyze::run(&args),
        Command::Coverage(args) => cli::coverage::run(&args),
        Command::Fetch(args) => cli::registry::fetch(&args),
        Command::Registry(args) => cli::registry::run(&args),
        Command::Schema(args) => cli::schema::run(&args),
        Command::Diff(args) => cli::diff::run(&args),
        Command::Check(args) => cli::check::run(&args),
        Command::New(args) => cli::new::run(&args),
        Command::Serve(args) => cli::serve::run(&args),
        Command::Stream(args) => cli::stream::run(&args),
        Command::Wheel(args) => cli::wheel::run(&args),
    };
    ExitCode::from(code)
}
