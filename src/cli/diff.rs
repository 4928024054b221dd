//! `clir diff OLD NEW ...`: every case ruled by both versions of a law, one line per case whose
//! ruling differs (docs/FORMAT.md "Diff lines").
//!
//! Both packages are verified and compiled through the `clir run` cache ([`super::run::build`]);
//! their two binaries run as child processes fed the same input, a chunk at a time, by a feeder
//! thread, while a reader thread per child queues its ruling lines. The calling thread zips the
//! two queues in input order and compares each pair with [`clir::diff::diff_lines`]. A queue
//! holds more lines than a ruler can hold back while it waits for input, so neither pipe stays
//! full while the calling thread waits on the other ruler; and it holds no more, so memory is
//! bounded whatever the length of the input. Each diff line ends with its `causes`
//! ([`super::causes`]): the nodes that differ between the versions and that the differing
//! literals depend on.

use super::run::{build, child_args, child_status};
use super::{note, CANNOT_RUN};
use clap::Args;
use clir::command::RuleArgs;
use clir_codegen::ir::{Document, NodeKind};
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};

/// Options of `clir diff`.
#[derive(Args, Debug)]
#[command(mut_arg("output", |a| a.help(
    "One JSON object a line per case whose ruling differs, in input order [default: stdout]"
)))]
pub struct DiffCmd {
    /// The package file of the old version.
    #[arg(value_name = "OLD")]
    pub old: PathBuf,
    /// The package file of the new version.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Input, output, grants, explanations and threads as for `clir rule` (`--threads` and
    /// `--batch` apply to each version's ruler).
    #[command(flatten)]
    pub args: RuleArgs,
}

/// How much of a child's stderr is kept to show when it fails.
const STDERR_KEPT: usize = 64 << 10;

/// One version's ruler: the child, its name in messages, and its threads.
struct Ruler {
    name: &'static str,
    binary: PathBuf,
    child: Child,
    lines: Arc<Queue>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
}

impl Ruler {
    fn spawn(name: &'static str, binary: PathBuf, args: &RuleArgs, cap: usize) -> Result<(Ruler, ChildStdin), String> {
        let mut child = Command::new(&binary)
            .args(child_args(args, false))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
        let (stdin, stdout, mut stderr) =
            (child.stdin.take().unwrap(), child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let lines = Arc::new(Queue::new(cap));
        let tx = lines.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::with_capacity(1 << 20, stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) => break,
                    Ok(_) => {
                        if buf.last() == Some(&b'\n') {
                            buf.pop();
                        }
                        let line = String::from_utf8_lossy(&buf).into_owned();
                        if !tx.push(Ok(line)) {
                            break;
                        }
                    }
                    Err(e) => {
                        tx.push(Err(e));
                        break;
                    }
                }
            }
            tx.close();
        });
        // Drained to the end (so the child never blocks on it), the first part kept.
        let stderr = std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut chunk = [0u8; 8192];
            while let Ok(n) = stderr.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let room = STDERR_KEPT.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
            kept
        });
        Ok((Ruler { name, binary, child, lines, stderr }, stdin))
    }

    /// Waits for the child; its exit status (0 or 1 when it ruled every line it read), its
    /// stderr written when it failed.
    fn finish(mut self) -> u8 {
        let code = match self.child.wait() {
            Ok(s) => child_status("diff", &self.binary, s),
            Err(e) => {
                note("diff", format_args!("cannot wait for the {} ruler: {e}", self.name));
                CANNOT_RUN
            }
        };
        let err = self.stderr.join().unwrap_or_default();
        if code > 1 {
            for line in String::from_utf8_lossy(&err).lines() {
                note("diff", format_args!("{} ruler: {line}", self.name));
            }
        }
        code
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        self.lines.close();
    }
}

/// The lines one ruler wrote and the comparison has not taken yet: at most `cap` of them (the
/// reader waits for room), grown only as needed.
struct Queue {
    state: Mutex<(VecDeque<io::Result<String>>, bool)>,
    changed: Condvar,
    cap: usize,
}

impl Queue {
    fn new(cap: usize) -> Queue {
        Queue { state: Mutex::new((VecDeque::new(), false)), changed: Condvar::new(), cap: cap.max(1) }
    }

    /// Adds a line once there is room; `false` when the queue was closed.
    fn push(&self, line: io::Result<String>) -> bool {
        let Ok(mut s) = self.state.lock() else { return false };
        while s.0.len() >= self.cap && !s.1 {
            s = match self.changed.wait(s) {
                Ok(s) => s,
                Err(_) => return false,
            };
        }
        if s.1 {
            return false;
        }
        s.0.push_back(line);
        self.changed.notify_all();
        true
    }

    /// The next line, waiting for it; `None` once the queue is closed and empty.
    fn pop(&self) -> Option<io::Result<String>> {
        let mut s = self.state.lock().ok()?;
        loop {
            if let Some(line) = s.0.pop_front() {
                self.changed.notify_all();
                return Some(line);
            }
            if s.1 {
                return None;
            }
            s = self.changed.wait(s).ok()?;
        }
    }

    /// No more lines: the ruler's output ended, or the comparison stopped.
    fn close(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.1 = true;
        }
        self.changed.notify_all();
    }
}

/// Reads `input` a chunk at a time and writes every chunk to both rulers; closes their inputs
/// at the end. A ruler that stopped reading ends the feeding (the comparison reports it).
fn feed(mut input: Box<dyn Read + Send>, mut to: [ChildStdin; 2]) -> io::Result<()> {
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for child in &mut to {
            if child.write_all(&chunk[..n]).is_err() {
                return Ok(());
            }
        }
    }
}

/// The relation declarations of a document by name: kind and parameter types.
fn relations(doc: &Document) -> Vec<(&str, String)> {
    doc.nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Relation(r) => {
                let types: Vec<&str> =
                    r.parameters.iter().map(|p| p.ty.rsplit(['#', ':']).next().unwrap_or("")).collect();
                Some((r.name.as_str(), format!("{:?}({})", r.relation_kind, types.join(", "))))
            }
            _ => None,
        })
        .collect()
}

/// The summary lines on what the versions declare: names and versions, relations only in one,
/// relations whose kind or parameter types changed.
fn declarations(old: &Document, new: &Document) -> Vec<String> {
    let (o, n) = (relations(old), relations(new));
    let (old_names, new_names): (Vec<&str>, Vec<&str>) =
        (o.iter().map(|(name, _)| *name).collect(), n.iter().map(|(name, _)| *name).collect());
    let (only_old, only_new) = clir::diff::relations_only_in(&old_names, &new_names);
    let mut lines = vec![format!(
        "OLD is {} {}, NEW is {} {}",
        old.package.name, old.package.version, new.package.name, new.package.version
    )];
    let list = |v: &[&str]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    lines.push(format!("relations only in OLD: {}; only in NEW: {}", list(&only_old), list(&only_new)));
    let mut changed: Vec<&str> =
        o.iter().filter(|(name, sig)| n.iter().any(|(m, s)| m == name && s != sig)).map(|(name, _)| *name).collect();
    changed.sort_unstable();
    if !changed.is_empty() {
        lines.push(format!("relations whose kind or parameters changed: {}", changed.join(", ")));
    }
    lines
}

/// Rules every case with both versions and writes the diff lines.
pub fn run(cmd: &DiffCmd) -> u8 {
    if cmd.args.certify || cmd.args.coverage.is_some() {
        note("diff", "--certify and --coverage are of one package's rulings: use `clir run` on each version");
        return CANNOT_RUN;
    }
    let old = match build(&cmd.old, "diff") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let new = match build(&cmd.new, "diff") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let input: Box<dyn Read + Send> = match clir::command::file_flag(&cmd.args.input) {
        Some(p) => match std::fs::File::open(&p) {
            Ok(f) => Box::new(f),
            Err(e) => {
                note("diff", format_args!("cannot read {}: {e}", p.display()));
                return CANNOT_RUN;
            }
        },
        None => Box::new(io::stdin()),
    };
    // A file is written as `clir rule` writes it ([`clir::outfile`]).
    let output_path = clir::command::file_flag(&cmd.args.output);
    let mut output = match clir::outfile::Output::open(output_path.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            note("diff", format_args!("cannot write {}: {e}", output_path.unwrap_or_default().display()));
            return CANNOT_RUN;
        }
    };
    let mut causes = super::causes::Causes::new(&old.doc, &new.doc);
    let outcome =
        compare_all(old.binary.clone(), new.binary.clone(), input, Box::new(&mut output), &cmd.args, &mut causes);
    if outcome.is_ok() {
        let name = output.name();
        if let Err(e) = output.finish() {
            note("diff", format_args!("cannot write {name}: {e}"));
            return CANNOT_RUN;
        }
    }
    match outcome {
        Ok(t) => {
            for line in declarations(&old.doc, &new.doc) {
                note("diff", line);
            }
            note(
                "diff",
                format_args!(
                    "{} read, {} changed; rejected: {} by OLD, {} by NEW",
                    clir::suggest::counted(t.cases, "case"),
                    t.changed,
                    t.old_rejected,
                    t.new_rejected
                ),
            );
            if t.old_rejected + t.new_rejected > 0 {
                clir::command::SOME_REJECTED
            } else {
                clir::command::OK
            }
        }
        Err(Failure::Quiet) => clir::command::OK,
        Err(Failure::Said(code)) => code,
    }
}

/// The counts of a diff.
#[derive(Default)]
struct Tally {
    cases: u64,
    changed: u64,
    old_rejected: u64,
    new_rejected: u64,
}

/// Why a diff stopped early.
enum Failure {
    /// The reader of the output went away (a broken pipe, as `| head`): not an error.
    Quiet,
    /// An error, already written to stderr, with its exit status.
    Said(u8),
}

fn said(message: impl std::fmt::Display) -> Failure {
    note("diff", message);
    Failure::Said(CANNOT_RUN)
}

/// Runs both rulers over `input` and writes the diff lines to `output`.
fn compare_all(
    old_bin: PathBuf,
    new_bin: PathBuf,
    input: Box<dyn Read + Send>,
    output: Box<dyn Write + '_>,
    args: &RuleArgs,
    causes: &mut super::causes::Causes,
) -> Result<Tally, Failure> {
    // A ruler writes each batch once ruled, but may hold up to `2 × threads + 2` ruled batches
    // and a partial one while it waits for input: a queue of more lines than that never blocks
    // the reader of the ruler ahead while the other still waits for input the feeder cannot
    // give it (see docs/DECISIONS.md, 33).
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cap = (2 * threads + 4).saturating_mul(args.batch.max(1));
    let (mut old, old_in) = Ruler::spawn("OLD", old_bin, args, cap).map_err(said)?;
    let (mut new, new_in) = match Ruler::spawn("NEW", new_bin, args, cap) {
        Ok(r) => r,
        Err(e) => {
            drop(old_in);
            old.kill();
            let _ = old.finish();
            return Err(said(e));
        }
    };
    // Not joined when the comparison fails: it may be blocked reading a terminal.
    let feeder = std::thread::spawn(move || feed(input, [old_in, new_in]));
    let mut out = io::BufWriter::with_capacity(1 << 20, output);
    let mut tally = Tally::default();
    let result = (|| -> Result<(), Failure> {
        loop {
            let (a, b) = (old.lines.pop(), new.lines.pop());
            let stopped = |done: &str, more: &str, cases: u64| {
                said(format_args!("the {done} ruler stopped after {cases} cases while the {more} ruler went on"))
            };
            let (a, b) = match (a, b) {
                (None, None) => return Ok(()),
                (Some(Err(e)), _) | (_, Some(Err(e))) => return Err(said(format_args!("cannot read a ruler: {e}"))),
                (Some(Ok(a)), Some(Ok(b))) => (a, b),
                (None, Some(Ok(_))) => return Err(stopped("OLD", "NEW", tally.cases)),
                (Some(Ok(_)), None) => return Err(stopped("NEW", "OLD", tally.cases)),
            };
            tally.cases += 1;
            let compared =
                clir::diff::diff_lines(&a, &b).map_err(|e| said(format_args!("case {}: {e}", tally.cases)))?;
            tally.old_rejected += compared.old_rejected as u64;
            tally.new_rejected += compared.new_rejected as u64;
            if let Some(mut line) = compared.line {
                tally.changed += 1;
                // `causes` after the fields CONTRACT names (docs/DECISIONS.md 54).
                line.pop();
                line.push_str(",\"causes\":");
                line.push_str(causes.of(&compared.relations));
                line.push('}');
                out.write_all(line.as_bytes()).and_then(|()| out.write_all(b"\n")).map_err(write_failure)?;
            }
        }
    })();
    let result = result.and_then(|()| out.flush().map_err(write_failure));
    if result.is_err() {
        old.kill();
        new.kill();
    }
    let (old_code, new_code) = (old.finish(), new.finish());
    result?;
    match feeder.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(said(format_args!("cannot read the cases: {e}"))),
        Err(_) => return Err(said("the feeder thread failed")),
    }
    if old_code > 1 || new_code > 1 {
        return Err(Failure::Said(CANNOT_RUN));
    }
    Ok(tally)
}

fn write_failure(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::Quiet
    } else {
        said(format_args!("cannot write the diff: {e}"))
    }
}
