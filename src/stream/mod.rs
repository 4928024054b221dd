//! Streams of updates (CONTRACT.md "Streams of updates") on differential dataflow.
//!
//! The facts of every case are one differential collection of `(case, fact)` with a count. A
//! `reduce` keyed by the case holds each case's facts on the worker that owns it (timely
//! exchanges by the case's hash) and, at every time they change, writes the case's line: its
//! facts as a case line of CONTRACT. Once the worker's frontier passes a time, the cases whose
//! line changed then are ruled together by the compiled package, and each ruling that differs
//! from the case's ruling before is a line to write; a writer thread writes them in order of time
//! and case once every local worker has passed their time.
//!
//! In each process the calling thread reads the input and hands every update of a case the
//! process owns to the worker that owns it, so that each update enters the dataflow once.
//! Several processes each read the same input.

use crate::jsonl::{case_facts, error_line, rule_chunk_into, unreadable_reason, Catalog, Line, Options};
use crate::runner::{next_line, MAX_LINE_BYTES};
use crate::Package;
use differential_dataflow::hashable::Hashable;
use differential_dataflow::input::Input;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufReader, Read, Write};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// A record every update of a case adds once and none removes: a case seen is never without
/// records, so its line in the `reduce` is replaced at every change, never only withdrawn.
const SEEN: FactKey = (String::new(), String::new());

/// Cases ruled in one batch of the generated code (as `clir rule --batch`).
const RULED_AT_ONCE: usize = 512;
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
    /// A case's new ruling line at a time.
    Ruling { time: Time, case: String, ruling: String },
    /// An error line at a time, sorted under `case` (the case's JSON, or `null`).
    Error { time: Time, case: String, line: String },
    /// A local worker's frontier: its lines of every earlier time are sent (`None`: it is done).
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

    let options = opts.options.clone();
    let worker_to_writer = to_writer.clone();
    let guards = timely::execute::execute_from(allocators, comms, timely::WorkerConfig::default(), move |worker| {
        let local = worker.index() % workers;
        let Some(from_reader) = receivers.lock().ok().and_then(|mut r| r[local].take()) else { return };
        let _ = threads_tx.send((local, std::thread::current()));
        let ruler = Ruler::new(pkg, options.clone(), Arc::clone(&empty));
        work(worker, local, from_reader, ruler, &worker_to_writer);
    })
    .map_err(|e| io::Error::other(format!("cannot start the dataflow: {e}")))?;

    let mut threads: Vec<Option<std::thread::Thread>> = vec![None; workers];
    for (local, thread) in threads_rx.iter().take(workers) {
        threads[local] = Some(thread);
    }
    let threads: Vec<std::thread::Thread> = threads.into_iter().flatten().collect();

    // A writer that fails (a closed pipe, a full disk) stops the reader at its next line.
    let failed = AtomicBool::new(false);
    let written = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let written = write_lines(writer_rx, workers, output);
            failed.store(written.is_err(), Ordering::Relaxed);
            written
        });
        let reader = Reader { process, workers, peers: workers * processes, cat: Catalog::new(pkg.schema()) };
        let read = reader.read(input, &opts.options, &to_workers, &threads, &to_writer, &failed);
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

/// A worker: builds the dataflow, feeds it what the reader hands over, and at every advance of
/// its frontier rules the cases of the times completed and tells the writer.
fn work(
    worker: &mut timely::worker::Worker,
    local: usize,
    from_reader: mpsc::Receiver<Vec<ToWorker>>,
    mut ruler: Ruler,
    to_writer: &mpsc::Sender<ToWriter>,
) {
    // The cases' new lines, by time and case, until the probe says their time is complete (an
    // inspected batch may hold a later time than the next one).
    let lines = Rc::new(RefCell::new(BTreeMap::<(Time, String), String>::new()));
    let inspected = Rc::clone(&lines);
    let (input, probe) = worker.dataflow::<Time, _, _>(move |scope| {
        let (input, facts) = scope.new_collection::<(String, FactKey), isize>();
        let (probe, _) = facts
            .reduce(|case: &String, facts: &[(&FactKey, isize)], out: &mut Vec<(String, isize)>| {
                out.push((case_line(case, facts), 1));
            })
            .inspect_batch(move |_, changes| {
                let mut lines = inspected.borrow_mut();
                for ((case, line), time, _) in changes.iter().filter(|(_, _, diff)| *diff > 0) {
                    lines.insert((*time, case.clone()), line.clone());
                }
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
            let complete = passed(&mut lines.borrow_mut(), now);
            for (time, case, ruling) in ruler.rule_changes(complete) {
                let _ = to_writer.send(ToWriter::Ruling { time, case, ruling });
            }
            let _ = to_writer.send(ToWriter::Frontier { worker: local, time: now });
        }
        if frontier.is_none() {
            return;
        }
    }
}

/// The ruling line of a case without facts, after its `{"case":CASE`: what every case's ruling
/// is before its first update.
fn empty_ruling(pkg: &dyn Package, options: &Options) -> String {
    let cat = Catalog::new(pkg.schema());
    let mut out = String::new();
    rule_chunk_into(pkg, &cat, &[(0, "{\"case\":0,\"facts\":{}}".to_string())], options, &mut out);
    out.trim_end().strip_prefix("{\"case\":0").unwrap_or_default().to_string()
}

/// The case line of `case` (its JSON text) with the facts whose count is positive.
fn case_line(case: &str, facts: &[(&FactKey, isize)]) -> String {
    let mut line = format!("{{\"case\":{case},\"facts\":{{");
    let mut relation: Option<&str> = None;
    for ((key, tuple), _) in facts.iter().filter(|((key, _), count)| *count > 0 && !key.is_empty()) {
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
    line
}

/// Rules, on a worker, the cases whose facts changed, and keeps the ruling each of its cases
/// has now (a case with the ruling of no facts is not kept).
struct Ruler {
    pkg: &'static dyn Package,
    cat: Catalog,
    options: Options,
    empty: Arc<String>,
    rulings: HashMap<String, String>,
    out: String,
}

impl Ruler {
    fn new(pkg: &'static dyn Package, options: Options, empty: Arc<String>) -> Self {
        Ruler { pkg, cat: Catalog::new(pkg.schema()), options, empty, rulings: HashMap::new(), out: String::new() }
    }

    /// Rules the new lines of cases (by time and case, of complete times) in one batch and
    /// returns, in order, each ruling that differs from the case's ruling before.
    fn rule_changes(&mut self, lines: BTreeMap<(Time, String), String>) -> Vec<(Time, String, String)> {
        let (states, lines): (Vec<(Time, String)>, Vec<Line>) =
            lines.into_iter().map(|(state, line)| (state, (0, line))).unzip();
        self.out.clear();
        if lines.is_empty() {
            return Vec::new();
        }
        for batch in lines.chunks(RULED_AT_ONCE) {
            rule_chunk_into(self.pkg, &self.cat, batch, &self.options, &mut self.out);
        }
        let ruled: Vec<&str> = self.out.lines().collect();
        let mut changed = Vec::new();
        for ((time, case), now) in states.into_iter().zip(ruled) {
            // The ruling of no facts is the case's echo and the rest every such ruling shares.
            let of_no_facts =
                now.strip_prefix("{\"case\":").and_then(|r| r.strip_prefix(case.as_str())) == Some(self.empty.as_str());
            let unchanged = match self.rulings.get(&case) {
                Some(before) => before == now,
                None => of_no_facts,
            };
            if unchanged {
                continue;
            }
            if of_no_facts {
                self.rulings.remove(&case);
            } else {
                self.rulings.insert(case.clone(), now.to_string());
            }
            changed.push((time, case, now.to_string()));
        }
        changed
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
        stop: &AtomicBool,
    ) -> io::Result<StreamSummary> {
        let mut input = BufReader::with_capacity(1 << 16, input);
        let mut summary = StreamSummary::default();
        let mut pending: Vec<Vec<ToWorker>> = (0..self.workers).map(|_| Vec::new()).collect();
        let mut held = 0usize;
        let (mut buf, mut no, mut now) = (Vec::new(), 0usize, 0 as Time);
        while let Some(text) = next_line(&mut input, &mut buf, MAX_LINE_BYTES)? {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            no += 1;
            if text.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
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
                        let line = error_line("null", no, &msg);
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
                        held += facts.len() + 1;
                        local.extend(
                            facts.into_iter().map(|(fact, diff)| ToWorker::Update(now, case.clone(), fact, diff)),
                        );
                        local.push(ToWorker::Update(now, case, SEEN, 1));
                        summary.updates += 1;
                    }
                    Err(msg) => {
                        let line = error_line(&update.case.to_string(), no, &msg);
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

    /// The facts an update adds (`+1`) and removes (`-1`), each read and checked as a case
    /// line's facts.
    fn facts(&self, case: &str, update: &UpdateLine, options: &Options) -> Result<Vec<(FactKey, isize)>, String> {
        let mut facts = Vec::new();
        for (raw, diff, what) in [(update.add, 1, "add"), (update.remove, -1, "remove")] {
            let Some(raw) = raw else { continue };
            let line = format!("{{\"case\":{case},\"facts\":{}}}", raw.get());
            let read = case_facts(&self.cat, &line, options).map_err(|msg| format!("`{what}`: {msg}"))?;
            facts.extend(read.into_iter().map(|fact| (fact, diff)));
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

/// Writes the lines of each time, sorted by case, once every local worker has passed it;
/// returns how many ruling and error lines it wrote.
fn write_lines(from: mpsc::Receiver<ToWriter>, workers: usize, output: impl Write) -> io::Result<(u64, u64)> {
    let mut out = io::BufWriter::with_capacity(1 << 16, output);
    // Per time and case: its error lines, then its new ruling.
    let mut waiting: BTreeMap<(Time, String), (Vec<String>, Option<String>)> = BTreeMap::new();
    let mut frontiers: Vec<Option<Time>> = vec![Some(0); workers];
    let (mut rulings, mut errors) = (0u64, 0u64);
    for message in from {
        match message {
            ToWriter::Ruling { time, case, ruling } => waiting.entry((time, case)).or_default().1 = Some(ruling),
            ToWriter::Error { time, case, line } => waiting.entry((time, case)).or_default().0.push(line),
            ToWriter::Frontier { worker, time } => {
                frontiers[worker] = time;
                for ((time, _), (error_lines, ruling)) in
                    passed(&mut waiting, frontiers.iter().flatten().min().copied())
                {
                    for line in &error_lines {
                        write_timed(&mut out, line, time)?;
                    }
                    errors += error_lines.len() as u64;
                    if let Some(ruling) = ruling {
                        write_timed(&mut out, &ruling, time)?;
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

/// Takes out of `waiting` what a frontier has passed: every time before it (`None`: all).
fn passed<V>(waiting: &mut BTreeMap<(Time, String), V>, frontier: Option<Time>) -> BTreeMap<(Time, String), V> {
    match frontier {
        Some(open) => {
            let later = waiting.split_off(&(open, String::new()));
            std::mem::replace(waiting, later)
        }
        None => std::mem::take(waiting),
    }
}

/// Writes a ruling or error line with `"time":T` added as its last key.
fn write_timed(out: &mut impl Write, line: &str, time: Time) -> io::Result<()> {
    let body = line.strip_suffix('}').unwrap_or(line);
    writeln!(out, "{body},\"time\":{time}}}")
}
