//! Streams of updates (CONTRACT.md "Streams of updates") on differential dataflow.
//!
//! The facts of every case are one differential collection of `(case, fact)` with a count. A
//! `reduce` keyed by the case holds each case's facts on the worker that owns it (timely
//! exchanges by the case's hash) and, at every time they change, rules that case alone with the
//! compiled package: its output is the case's ruling line. The changes of that output are the
//! lines written, in order of time and case, once every worker's frontier has passed their time.
//!
//! In each process the calling thread reads the input and hands every update of a case the
//! process owns to the worker that owns it, so that each update enters the dataflow once; a
//! writer thread orders the lines. Several processes each read the same input.

use crate::jsonl::{check_case, error_line, rule_chunk_into, unreadable_reason, Catalog, Options};
use crate::runner::{next_line, MAX_LINE_BYTES};
use crate::Package;
use differential_dataflow::hashable::Hashable;
use differential_dataflow::input::Input;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, BufReader, Read, Write};
use std::sync::mpsc::{self, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub mod cluster;

/// A logical time of the stream: a line's `time`, or its line number.
pub type Time = u64;

/// A fact of a case: its key in `facts` (`~name` for a negative) and its tuple as JSON text.
pub type FactKey = (String, String);

/// How a stream is ruled and spread over workers and processes.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// Grants (a stream writes no explanations).
    pub options: Options,
    /// Worker threads of this process.
    pub workers: usize,
    /// The processes of the run, when there are several.
    pub cluster: Option<Cluster>,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions { options: Options::default(), workers: 1, cluster: None }
    }
}

/// The processes of a run over several processes or machines.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// This process, from 0.
    pub process: usize,
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// How long this process waits for the others to connect before it gives up.
    pub connect_timeout: Duration,
}

/// What a stream run did in this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamSummary {
    /// Non-blank input lines read.
    pub lines: u64,
    /// Update lines of the cases this process owns that entered the dataflow.
    pub updates: u64,
    /// Error lines written.
    pub errors: u64,
    /// Ruling lines written.
    pub rulings: u64,
}

/// Updates handed to a worker at once, at most.
const HAND_OVER: usize = 1024;
/// How long an idle worker waits for the reader before it looks again (the reader wakes it).
const IDLE: Duration = Duration::from_millis(10);

/// What the reader hands a worker.
enum ToWorker {
    /// Every update still to come is at this time or later.
    Advance(Time),
    /// A fact of a case added (`+1`) or removed (`-1`) at a time.
    Update(Time, String, FactKey, isize),
}

/// What the writer is told.
enum ToWriter {
    /// A case's ruling line entered (`+1`) or left (`-1`) the output at a time.
    Ruling { time: Time, case: String, ruling: String, diff: isize },
    /// An error line at a time, sorted under `case` (the case's JSON, or `null`).
    Error { time: Time, case: String, line: String },
    /// A local worker's frontier: everything before it is written (`None`: the worker is done).
    Frontier { worker: usize, time: Option<Time> },
}

/// Rules the updates of `input` with `pkg` (CONTRACT.md "Streams of updates") and writes the
/// lines of the cases this process owns to `output`: for every case whose ruling changed at a
/// time, its ruling line for the facts accumulated up to that time, with `"time"`.
pub fn rule_updates(
    pkg: &'static dyn Package,
    input: impl Read,
    output: impl Write + Send,
    opts: &StreamOptions,
) -> io::Result<StreamSummary> {
    let workers = opts.workers.max(1);
    let (process, processes) = match &opts.cluster {
        Some(c) => (c.process, c.addresses.len()),
        None => (0, 1),
    };
    if process >= processes {
        return Err(io::Error::other(format!("process {process} is not one of the {processes} processes")));
    }
    let (allocators, comms) = cluster::allocators(workers, opts.cluster.as_ref())?;
    let empty = Arc::new(empty_ruling(pkg, &opts.options));

    let (to_writer, writer_rx) = mpsc::channel::<ToWriter>();
    let mut to_workers = Vec::with_capacity(workers);
    let mut receivers = Vec::with_capacity(workers);
    for _ in 0..workers {
        let (tx, rx) = mpsc::sync_channel::<Vec<ToWorker>>(64);
        to_workers.push(tx);
        receivers.push(Some(rx));
    }
    let receivers = Arc::new(Mutex::new(receivers));
    let (threads_tx, threads_rx) = mpsc::channel::<(usize, std::thread::Thread)>();

    let worker_empty = Arc::clone(&empty);
    let options = opts.options.clone();
    let worker_to_writer = to_writer.clone();
    let guards = timely::execute::execute_from(allocators, comms, timely::WorkerConfig::default(), move |worker| {
        let local = worker.index() % workers;
        let from_reader = receivers.lock().ok().and_then(|mut r| r[local].take());
        let Some(from_reader) = from_reader else { return };
        let _ = threads_tx.send((local, std::thread::current()));
        let mut ruler = Ruler::new(pkg, options.clone(), Arc::clone(&worker_empty));
        let rulings = worker_to_writer.clone();
        let (input, probe) = worker.dataflow::<Time, _, _>(move |scope| {
            let (input, facts) = scope.new_collection::<(String, FactKey), isize>();
            let (probe, _) = facts
                .reduce(move |case: &String, facts: &[(&FactKey, isize)], out: &mut Vec<(String, isize)>| {
                    if let Some(ruling) = ruler.rule(case, facts) {
                        out.push((ruling, 1));
                    }
                })
                .inspect(move |((case, ruling), time, diff)| {
                    let (case, ruling) = (case.clone(), ruling.clone());
                    let _ = rulings.send(ToWriter::Ruling { time: *time, case, ruling, diff: *diff });
                })
                .probe();
            (input, probe)
        });
        let mut input = Some(input);
        let mut frontier = Some(0);
        loop {
            if let Some(session) = input.as_mut() {
                loop {
                    match from_reader.try_recv() {
                        Ok(batch) => {
                            for message in batch {
                                match message {
                                    ToWorker::Advance(time) => session.advance_to(time),
                                    ToWorker::Update(time, case, fact, diff) => {
                                        session.advance_to(time);
                                        session.update((case, fact), diff);
                                    }
                                }
                            }
                        }
                        Err(TryRecvError::Empty) => break,
                        Err(TryRecvError::Disconnected) => {
                            input = None;
                            break;
                        }
                    }
                }
                if let Some(session) = input.as_mut() {
                    session.flush();
                }
            }
            worker.step_or_park(input.as_ref().map(|_| IDLE));
            let now = probe.with_frontier(|f| f.first().copied());
            if now != frontier {
                frontier = now;
                let _ = worker_to_writer.send(ToWriter::Frontier { worker: local, time: now });
            }
            if frontier.is_none() {
                break;
            }
        }
    })
    .map_err(|e| io::Error::other(format!("cannot start the dataflow: {e}")))?;

    let mut threads: Vec<Option<std::thread::Thread>> = vec![None; workers];
    for (local, thread) in threads_rx.iter().take(workers) {
        threads[local] = Some(thread);
    }
    let threads: Vec<std::thread::Thread> = threads.into_iter().flatten().collect();

    let written = std::thread::scope(|s| {
        let writer = s.spawn(|| write_lines(writer_rx, workers, &empty, output));
        let reader = Reader { process, workers, peers: workers * processes, cat: Catalog::new(pkg.schema()) };
        let read = reader.read(input, &opts.options, &to_workers, &threads, &to_writer);
        // Closing the workers' channels ends their input; the writer ends with the last worker.
        drop(to_workers);
        for thread in &threads {
            thread.unpark();
        }
        drop(to_writer);
        let joined: Vec<Result<(), String>> = guards.join();
        let written = writer.join().unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
        if let Some(Err(e)) = joined.into_iter().find(Result::is_err) {
            return Err(io::Error::other(format!("a worker failed: {e}")));
        }
        let mut summary = read?;
        let (rulings, errors) = written?;
        summary.rulings = rulings;
        summary.errors = errors;
        Ok(summary)
    });
    written
}

/// The ruling line of a case without facts, after its `{"case":CASE`: what every case's ruling
/// is before its first update.
fn empty_ruling(pkg: &dyn Package, options: &Options) -> String {
    let cat = Catalog::new(pkg.schema());
    let mut out = String::new();
    rule_chunk_into(pkg, &cat, &[(0, "{\"case\":0,\"facts\":{}}".to_string())], options, &mut out);
    out.trim_end().strip_prefix("{\"case\":0").unwrap_or_default().to_string()
}

/// Rules one case from its accumulated facts, on a worker.
struct Ruler {
    pkg: &'static dyn Package,
    cat: Catalog,
    options: Options,
    empty: Arc<String>,
    out: String,
}

impl Ruler {
    fn new(pkg: &'static dyn Package, options: Options, empty: Arc<String>) -> Self {
        Ruler { pkg, cat: Catalog::new(pkg.schema()), options, empty, out: String::new() }
    }

    /// The ruling line of `case` (its JSON text) for the facts whose count is positive; `None`
    /// when it is the ruling of a case without facts.
    fn rule(&mut self, case: &str, facts: &[(&FactKey, isize)]) -> Option<String> {
        let mut line = format!("{{\"case\":{case},\"facts\":{{");
        let mut relation: Option<&str> = None;
        for ((key, tuple), _) in facts.iter().filter(|(_, count)| *count > 0) {
            if relation == Some(key.as_str()) {
                line.push(',');
            } else {
                if relation.is_some() {
                    line.push_str("],");
                }
                line.push_str(&Value::from(key.as_str()).to_string());
                line.push_str(":[");
                relation = Some(key);
            }
            line.push_str(tuple);
        }
        if relation.is_some() {
            line.push(']');
        }
        line.push_str("}}");
        self.out.clear();
        rule_chunk_into(self.pkg, &self.cat, &[(0, line)], &self.options, &mut self.out);
        let ruling = self.out.trim_end();
        let rest = ruling.strip_prefix("{\"case\":").and_then(|r| r.strip_prefix(case));
        (rest != Some(self.empty.as_str())).then(|| ruling.to_string())
    }
}

/// An update line as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateLine<'a> {
    case: Value,
    #[serde(default)]
    time: Option<Time>,
    #[serde(borrow, default)]
    add: Option<&'a RawValue>,
    #[serde(borrow, default)]
    remove: Option<&'a RawValue>,
}

/// Reads the input on the calling thread and hands each update to the worker that owns it.
struct Reader {
    process: usize,
    workers: usize,
    peers: usize,
    cat: Catalog,
}

impl Reader {
    fn read(
        &self,
        input: impl Read,
        options: &Options,
        to_workers: &[mpsc::SyncSender<Vec<ToWorker>>],
        threads: &[std::thread::Thread],
        to_writer: &mpsc::Sender<ToWriter>,
    ) -> io::Result<StreamSummary> {
        let mut input = BufReader::with_capacity(1 << 16, input);
        let mut summary = StreamSummary::default();
        let mut pending: Vec<Vec<ToWorker>> = (0..self.workers).map(|_| Vec::new()).collect();
        let mut held = 0usize;
        let (mut buf, mut no, mut now) = (Vec::new(), 0usize, 0 as Time);
        while let Some(text) = next_line(&mut input, &mut buf, MAX_LINE_BYTES)? {
            no += 1;
            if text.trim().is_empty() {
                continue;
            }
            summary.lines += 1;
            let parsed = match unreadable_reason(&text) {
                Some(why) => Err(why.to_string()),
                None => serde_json::from_str::<UpdateLine>(&text).map_err(|e| format!("not an update: {e}")),
            };
            let update = match parsed {
                Ok(u) => u,
                Err(msg) => {
                    if self.process == 0 {
                        let line = error_line(&Value::Null, no, &msg);
                        let _ = to_writer.send(ToWriter::Error { time: now, case: "null".into(), line });
                    }
                    continue;
                }
            };
            // A time the input has passed is late: its update takes effect at the earliest open time.
            let time = update.time.unwrap_or(no as Time).max(now);
            if time > now {
                now = time;
                for p in &mut pending {
                    p.push(ToWorker::Advance(now));
                }
            }
            let case = update.case.to_string();
            let owner = (case.hashed() % self.peers as u64) as usize;
            if owner / self.workers == self.process {
                match self.facts(&case, &update, options) {
                    Ok(facts) => {
                        let local = &mut pending[owner % self.workers];
                        held += facts.len();
                        local.extend(
                            facts.into_iter().map(|(fact, diff)| ToWorker::Update(now, case.clone(), fact, diff)),
                        );
                        summary.updates += 1;
                    }
                    Err(msg) => {
                        let line = error_line(&update.case, no, &msg);
                        let _ = to_writer.send(ToWriter::Error { time: now, case, line });
                    }
                }
            }
            // Hand over what is read when no whole line waits in the buffer (a live stream
            // pauses there), or when enough is held.
            if held >= HAND_OVER || !input.buffer().contains(&b'\n') {
                hand_over(&mut pending, to_workers, threads)?;
                held = 0;
            }
        }
        hand_over(&mut pending, to_workers, threads)?;
        Ok(summary)
    }

    /// The facts an update adds (`+1`) and removes (`-1`), each checked as a case line's facts.
    fn facts(&self, case: &str, update: &UpdateLine, options: &Options) -> Result<Vec<(FactKey, isize)>, String> {
        let mut facts = Vec::new();
        for (raw, diff, what) in [(update.add, 1, "add"), (update.remove, -1, "remove")] {
            let Some(raw) = raw else { continue };
            check_case(&self.cat, &format!("{{\"case\":{case},\"facts\":{}}}", raw.get()), options)
                .map_err(|msg| format!("`{what}`: {msg}"))?;
            let by_relation: BTreeMap<String, Vec<Value>> =
                serde_json::from_str(raw.get()).map_err(|e| format!("`{what}`: {e}"))?;
            for (relation, tuples) in by_relation {
                for tuple in tuples {
                    facts.push(((relation.clone(), tuple.to_string()), diff));
                }
            }
        }
        Ok(facts)
    }
}

/// Sends every worker what is pending for it and wakes it.
fn hand_over(
    pending: &mut [Vec<ToWorker>],
    to_workers: &[mpsc::SyncSender<Vec<ToWorker>>],
    threads: &[std::thread::Thread],
) -> io::Result<()> {
    for (local, batch) in pending.iter_mut().enumerate() {
        if batch.is_empty() {
            continue;
        }
        to_workers[local]
            .send(std::mem::take(batch))
            .map_err(|_| io::Error::other(format!("worker {local} stopped before the input ended")))?;
        if let Some(thread) = threads.get(local) {
            thread.unpark();
        }
    }
    Ok(())
}

/// The lines waiting for one case at one time.
#[derive(Default)]
struct Pending {
    errors: Vec<String>,
    /// The ruling the case has from this time on, if it is not the ruling of no facts.
    ruling: Option<String>,
    /// Whether the ruling it had before left the output.
    retracted: bool,
}

/// Writes the lines of each time, sorted by case, once every local worker has passed it;
/// returns how many ruling and error lines it wrote.
fn write_lines(
    from: mpsc::Receiver<ToWriter>,
    workers: usize,
    empty: &str,
    output: impl Write,
) -> io::Result<(u64, u64)> {
    let mut out = io::BufWriter::with_capacity(1 << 16, output);
    let mut waiting: BTreeMap<(Time, String), Pending> = BTreeMap::new();
    let mut frontiers: Vec<Option<Time>> = vec![Some(0); workers];
    let (mut rulings, mut errors) = (0u64, 0u64);
    for message in from {
        match message {
            ToWriter::Ruling { time, case, ruling, diff } => {
                let entry = waiting.entry((time, case)).or_default();
                if diff > 0 {
                    entry.ruling = Some(ruling);
                } else {
                    entry.retracted = true;
                }
            }
            ToWriter::Error { time, case, line } => waiting.entry((time, case)).or_default().errors.push(line),
            ToWriter::Frontier { worker, time } => {
                frontiers[worker] = time;
                let passed = frontiers.iter().flatten().min().copied();
                let ready = match passed {
                    Some(t) => {
                        let later = waiting.split_off(&(t, String::new()));
                        std::mem::replace(&mut waiting, later)
                    }
                    None => std::mem::take(&mut waiting),
                };
                for ((time, case), lines) in ready {
                    for line in &lines.errors {
                        write_timed(&mut out, line, time)?;
                        errors += 1;
                    }
                    if let Some(ruling) = &lines.ruling {
                        write_timed(&mut out, ruling, time)?;
                        rulings += 1;
                    } else if lines.retracted {
                        write_timed(&mut out, &format!("{{\"case\":{case}{empty}"), time)?;
                        rulings += 1;
                    }
                }
                out.flush()?;
            }
        }
    }
    out.flush()?;
    Ok((rulings, errors))
}

/// Writes a ruling or error line with `"time":T` added as its last key.
fn write_timed(out: &mut impl Write, line: &str, time: Time) -> io::Result<()> {
    let body = line.strip_suffix('}').unwrap_or(line);
    writeln!(out, "{body},\"time\":{time}}}")
}
