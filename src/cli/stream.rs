//! `clir stream`: rulings kept current as the facts of cases change (docs/STREAM.md; its lines
//! in docs/FORMAT.md "Update lines" and "Stream output lines"), on timely and differential
//! dataflow ([`clir::stream`]).

use super::{note, CANNOT_RUN, FAILURE, OK};
use clap::builder::TypedValueParser as _;
use clir::command::file_flag;
use clir::jsonl::Options;
use clir::outfile::OutputFile;
use clir::stream::cluster::MIN_KEY_BYTES;
use clir::stream::{rule_updates, Cluster, StreamOptions, MAX_CASE_FACTS};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Options of `clir stream`.
#[derive(clap::Args, Debug)]
pub struct StreamArgs {
    /// The compiled-in package (a name of law.toml).
    #[command(flatten)]
    pub package: super::package_arg::PackageArg,
    /// Updates, one JSON object a line [default: stdin].
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Changed rulings, one JSON object a line, by time [default: stdout]. A regular file is
    /// written beside it and renamed over it when the stream ends.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A capability granted to this run (`judgment:AUTHORITY`); judgment facts need it.
    #[arg(long = "grant", value_name = "CAP")]
    pub grants: Vec<String>,
    /// Worker threads of this process.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=512))]
    pub workers: u16,
    /// Processes of the run (each runs `clir stream` with the same input and its own --process).
    #[arg(long, value_name = "N", requires = "process", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub processes: Option<u16>,
    /// This process, from 0 to N-1.
    #[arg(long, value_name = "I", requires = "processes")]
    pub process: Option<u16>,
    /// `host:port` of every process, one a line in process order [default: 127.0.0.1:2101, :2102, ...].
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hostfile: Option<PathBuf>,
    /// Seconds to wait for every other process to connect (at most a day).
    #[arg(long, value_name = "SECS", default_value_t = 60, requires = "processes",
          value_parser = clap::value_parser!(u64).range(1..=MAX_CONNECT_TIMEOUT))]
    pub connect_timeout: u64,
    /// The secret every process of the run is given, a file only its owner can read; needed
    /// with --processes above 1 (a process that cannot prove it holds the key is not a peer).
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub cluster_key: Option<PathBuf>,
    /// The facts one case may hold at once; an update that would make it hold more is refused
    /// with an error line.
    #[arg(long, value_name = "N", default_value_t = MAX_CASE_FACTS,
          value_parser = clap::value_parser!(u64).range(1..=MAX_CASE_FACTS_LIMIT).map(|n| n as usize))]
    pub max_case_facts: usize,
}

/// The longest --connect-timeout, in seconds: a day.
const MAX_CONNECT_TIMEOUT: u64 = 86_400;
/// The largest --max-case-facts: the facts `clir rule` accepts in one case.
const MAX_CASE_FACTS_LIMIT: u64 = clir::jsonl::MAX_FACTS_PER_CASE as u64;
/// The largest cluster key file read, in bytes.
const MAX_KEY_FILE_BYTES: u64 = 4096;

/// Runs `clir stream`; returns the exit status of README.md "The `clir` command".
pub fn run(args: &StreamArgs) -> u8 {
    match stream(args) {
        Ok(0) => OK,
        Ok(errors) => {
            note("stream", format_args!("{} rejected (see their error lines)", clir::suggest::counted(errors, "line")));
            FAILURE
        }
        Err(msg) => {
            note("stream", msg);
            CANNOT_RUN
        }
    }
}

fn stream(args: &StreamArgs) -> Result<u64, String> {
    let pkg = super::package_arg::compiled_only("stream", args.package.value())?;
    let cluster = match (args.processes, args.process) {
        (Some(n), Some(i)) => Some(cluster(n as usize, i as usize, args)?),
        _ => None,
    };
    let opts = StreamOptions {
        options: Options { grants: args.grants.clone(), explain: false, ..Default::default() },
        workers: args.workers as usize,
        cluster,
        max_case_facts: args.max_case_facts,
    };
    let input: Box<dyn Read> = match file_flag(&args.input) {
        Some(p) => Box::new(std::fs::File::open(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?),
        None => Box::new(io::stdin()),
    };
    fail_loudly();
    let Some(path) = file_flag(&args.output) else {
        return match rule_updates(pkg, input, io::stdout(), &opts) {
            Ok(summary) => Ok(summary.errors),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
            Err(e) => Err(e.to_string()),
        };
    };
    // A regular file is replaced when the stream ends, so that `--output` may name `--input`
    // and a failed run leaves it as it was.
    let cannot_write = |e: io::Error| format!("cannot write {}: {e}", path.display());
    let mut output = OutputFile::create(&path).map_err(cannot_write)?;
    let summary = rule_updates(pkg, input, &mut output, &opts).map_err(|e| e.to_string())?;
    output.commit().map_err(cannot_write)?;
    Ok(summary.errors)
}

/// The processes of `--processes N --process I [--hostfile F] [--cluster-key K]`.
fn cluster(processes: usize, process: usize, args: &StreamArgs) -> Result<Cluster, String> {
    if process >= processes {
        return Err(format!("--process {process} is not below --processes {processes}"));
    }
    let key = match (&args.cluster_key, processes) {
        (Some(path), _) => cluster_key(path)?,
        (None, 1) => Vec::new(),
        (None, _) => {
            return Err(format!(
                "--processes {processes} needs --cluster-key FILE, the same secret for every process (for instance `head -c 32 /dev/urandom | base64 > FILE; chmod 600 FILE`): without it any local program could join the run"
            ))
        }
    };
    let addresses: Vec<String> = match args.hostfile.as_deref() {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let hosts: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect();
            if hosts.len() < processes {
                return Err(format!("{} names {} hosts for {processes} processes", path.display(), hosts.len()));
            }
            hosts.into_iter().take(processes).collect()
        }
        None => (0..processes).map(|i| format!("127.0.0.1:{}", 2101 + i)).collect(),
    };
    Ok(Cluster { process, addresses, connect_timeout: std::time::Duration::from_secs(args.connect_timeout), key })
}

/// The key of `--cluster-key FILE`: the file's text without surrounding white space (a private
/// regular file of at most 4 KiB, read as every secret is: [`super::read_private_file`]).
fn cluster_key(path: &Path) -> Result<Vec<u8>, String> {
    let text = super::read_private_file(path, "the cluster key", MAX_KEY_FILE_BYTES)?;
    let key = text.trim_ascii().to_vec();
    if key.len() < MIN_KEY_BYTES {
        let shown = path.display();
        return Err(format!("the cluster key {shown} holds {} bytes; a key needs at least {MIN_KEY_BYTES}", key.len()));
    }
    Ok(key)
}

/// A panic anywhere ends the process with exit status 2: timely dataflow has no fault
/// tolerance, and a worker or a peer process gone would otherwise leave the others waiting for
/// it forever.
fn fail_loudly() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info.payload_as_str().unwrap_or("a thread panicked");
        if message.starts_with("timely communication error") {
            let _ = writeln!(
                io::stderr(),
                "clir stream: {message}: a peer process is gone or unreachable; timely dataflow has no fault tolerance, so every process stops (start them all again)"
            );
        } else {
            report(info);
            let _ = writeln!(io::stderr(), "clir stream: a worker failed; the run stops");
        }
        std::process::exit(CANNOT_RUN as i32);
    }));
}
