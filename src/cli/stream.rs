//! `clir stream`: rulings kept current as the facts of cases change (CONTRACT.md "Streams of
//! updates"), on timely and differential dataflow ([`clir::stream`]).

use super::{note, CANNOT_RUN, FAILURE, OK};
use clir::command::file_flag;
use clir::jsonl::Options;
use clir::stream::{rule_updates, Cluster, StreamOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Options of `clir stream`.
#[derive(clap::Args, Debug)]
pub struct StreamArgs {
    /// The compiled-in package (a name of law.toml).
    #[arg(long, value_name = "NAME")]
    pub package: String,
    /// Updates, one JSON object a line [default: stdin].
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Changed rulings, one JSON object a line, by time [default: stdout].
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
    /// Seconds to wait for every other process to connect.
    #[arg(long, value_name = "SECS", default_value_t = 60, requires = "processes")]
    pub connect_timeout: u64,
}

/// Runs `clir stream`; returns the exit status of CONTRACT.md.
pub fn run(args: &StreamArgs) -> u8 {
    match stream(args) {
        Ok(0) => OK,
        Ok(errors) => {
            note("stream", format_args!("{errors} lines rejected (see their error lines)"));
            FAILURE
        }
        Err(msg) => {
            note("stream", msg);
            CANNOT_RUN
        }
    }
}

fn stream(args: &StreamArgs) -> Result<u64, String> {
    let pkg = super::run::compiled_package(&args.package)?;
    let cluster = match (args.processes, args.process) {
        (Some(n), Some(i)) => Some(cluster(n as usize, i as usize, args.hostfile.as_deref(), args.connect_timeout)?),
        _ => None,
    };
    let opts = StreamOptions {
        options: Options { grants: args.grants.clone(), explain: false },
        workers: args.workers as usize,
        cluster,
    };
    let input: Box<dyn Read> = match file_flag(&args.input) {
        Some(p) => Box::new(std::fs::File::open(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?),
        None => Box::new(io::stdin()),
    };
    let output: Box<dyn Write + Send> = match file_flag(&args.output) {
        Some(p) => Box::new(std::fs::File::create(&p).map_err(|e| format!("cannot write {}: {e}", p.display()))?),
        None => Box::new(io::stdout()),
    };
    fail_loudly();
    match rule_updates(pkg, input, output, &opts) {
        Ok(summary) => Ok(summary.errors),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(e.to_string()),
    }
}

/// The processes of `--processes N --process I [--hostfile F]`.
fn cluster(processes: usize, process: usize, hostfile: Option<&Path>, timeout: u64) -> Result<Cluster, String> {
    if process >= processes {
        return Err(format!("--process {process} is not below --processes {processes}"));
    }
    let addresses: Vec<String> = match hostfile {
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
    Ok(Cluster { process, addresses, connect_timeout: std::time::Duration::from_secs(timeout) })
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
