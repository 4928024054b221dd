//! Streams of updates (docs/STREAM.md; lines: docs/FORMAT.md "Update lines") on timely dataflow.
//!
//! Every update of a case is one record of a timely stream, exchanged to the worker that owns
//! the case (by the case's hash). That worker holds the case's facts with their counts and, once
//! its frontier passes a time, applies the updates of that time in line order, rules every case
//! they changed (together, by the compiled package) and tells the writer each ruling that differs
//! from the case's ruling before; a writer thread writes them in order of time and case once
//! every local worker has passed their time.
//!
//! In each process the calling thread reads the input and hands every update of a case the
//! process owns to the worker that owns it, so that each update enters the dataflow once.
//! Several processes each read the same input, and at its end exchange a digest of what they
//! read: processes given different inputs fail instead of writing partial rulings.

use crate::jsonl::{case_facts, error_line, rule_chunk_into, unreadable_reason, Catalog, Line, Options};
use crate::runner::{next_line, MAX_LINE_BYTES};
use crate::Package;
use differential_dataflow::hashable::Hashable;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use std::cell::Cell;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufReader, Read, Write};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::operators::Exchange;

pub mod cluster;

/// A logical time of the stream: a line's `time`, or its line number.
pub type Time = u64;

/// A fact of a case: its key in `facts` (`~name` for a negative) and its tuple as JSON text.
pub type FactKey = (String, String);

/// The facts a case of a stream may hold at once by default (facts with a count other than 0):
/// ruling a case costs time in proportion to its facts, and a case is ruled again at every
/// update, so this bounds the cost of one update.
pub const MAX_CASE_FACTS: usize = 10_000;

/// How a stream is ruled and spread over workers and processes.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// Grants (a stream writes no explanations).
    pub options: Options,
    /// Worker threads of this process.
    pub workers: usize,
    /// The processes of the run, when there are several.
    pub cluster: Option<Cluster>,
    /// The facts one case may hold at once; an update that would make it hold more is refused
    /// with an error line.
    pub max_case_facts: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions { options: Options::default(), workers: 1, cluster: None, max_case_facts: MAX_CASE_FACTS }
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
    /// The secret every process of the run holds (at least [`cluster::MIN_KEY_BYTES`] bytes): a
    /// connection whose other end does not prove it holds the key is refused.
    pub key: Vec<u8>,
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

/// Cases ruled in one batch of the generated code (as `clir rule --batch`).
const RULED_AT_ONCE: usize = 512;
/// Case lines ruled before their rulings go to the writer, in bytes, about.
const RULED_BYTES: usize = 4 << 20;
/// Facts handed to a worker at once, at most.
const HAND_OVER: usize = 1024;
/// How long an idle worker waits for the reader before it looks again (the reader wakes it).
const IDLE: Duration = Duration::from_millis(10);

/// What a process read: its lines, and a hash of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Digest {
    lines: u64,
    hash: [u8; 32],
}

/// A record of the dataflow.
#[derive(Clone, Serialize, Deserialize)]
enum Record {
    /// An update of a case (its JSON text as written) from line `no`: facts added (`+1`) and
    /// removed (`-1`).
    Update { case: String, no: u64, facts: Vec<(FactKey, isize)> },
    /// What `process` read, sent to worker `to` (every worker gets one from every process that
    /// read its whole input).
    Read { to: u64, process: u64, digest: Digest },
}

impl Record {
    /// The worker a record goes to (modulo the workers of the run).
    fn route(&self) -> u64 {
        match self {
            Record::Update { case, .. } => case.hashed(),
            Record::Read { to, .. } => *to,
        }
    }
}

/// What the reader hands a worker.
enum ToWorker {
    /// Every update still to come is at this time or later.
    Advance(Time),
    /// An update at a time.
    Update(Time, Record),
    /// The input ended after this process read all of it.
    Read(Digest),
}

/// What the writer is told.
enum ToWriter {
    /// A case's new ruling line at a time.
    Ruling { time: Time, case: String, ruling: String },
    /// An error line at a time, sorted under `case` (the case's JSON, or `null`).
    Error { time: Time, case: String, line: String },
    /// A local worker's frontier: its lines of every earlier time are sent (`None`: it is done).
    Frontier { worker: usize, time: Option<Time> },
    /// The run cannot be completed (the processes read different inputs).
    Failed(String),
}

/// Rules the updates of `input` with `pkg` (docs/FORMAT.md "Update lines") and writes the
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
    let max_facts = opts.max_case_facts.max(1);
    let worker_to_writer = to_writer.clone();
    let guards = timely::execute::execute_from(allocators, comms, timely::WorkerConfig::default(), move |worker| {
        let (local, process) = (worker.index() % workers, worker.index() / workers);
        let Some(from_reader) = receivers.lock().ok().and_then(|mut r| r[local].take()) else { return };
        let _ = threads_tx.send((local, std::thread::current()));
        let cases = Cases {
            local,
            max_facts,
            ruler: Ruler::new(pkg, options.clone(), Arc::clone(&empty)),
            facts: HashMap::new(),
            waiting: BTreeMap::new(),
            read: BTreeMap::new(),
            frontier: Some(0),
            to_writer: worker_to_writer.clone(),
        };
        work(worker, process as u64, from_reader, cases);
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

/// A worker: builds the dataflow and feeds it what the reader hands over until every time has
/// passed; the cases it owns are ruled in the dataflow's last operator ([`Cases::advance`]).
fn work(
    worker: &mut timely::worker::Worker,
    process: u64,
    from_reader: mpsc::Receiver<Vec<ToWorker>>,
    mut cases: Cases,
) {
    let peers = worker.peers() as u64;
    let done = Rc::new(Cell::new(false));
    let finished = Rc::clone(&done);
    let mut input = Some(worker.dataflow::<Time, _, _>(move |scope| {
        let (input, records) = scope.new_input::<Record>();
        records.exchange(Record::route).sink(Pipeline, "Cases", move |(input, frontier)| {
            // A stamp of a totally ordered time is that one time.
            input.for_each(|cap, data| {
                let Some(&time) = cap.least() else { return };
                for record in data.drain(..) {
                    cases.receive(time, record);
                }
            });
            if cases.advance(frontier.frontier().first().copied()) {
                finished.set(true);
            }
        });
        input
    }));
    loop {
        if let Some(session) = input.as_mut() {
            loop {
                match from_reader.try_recv() {
                    Ok(batch) => {
                        for message in batch {
                            match message {
                                ToWorker::Advance(time) => session.advance_to(time),
                                ToWorker::Update(time, record) => {
                                    session.advance_to(time);
                                    session.send(record);
                                }
                                ToWorker::Read(digest) => {
                                    for to in 0..peers {
                                        session.send(Record::Read { to, process, digest });
                                    }
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
        if done.get() {
            return;
        }
    }
}

/// An update waiting for its time to pass: its line, its case and its facts with their counts.
type Waiting = (u64, String, Vec<(FactKey, isize)>);

/// The cases a worker owns: their facts, the updates waiting for their time to complete, and
/// what every process read.
struct Cases {
    local: usize,
    max_facts: usize,
    ruler: Ruler,
    /// Per case (its JSON text): each fact whose count is not 0, with its count.
    facts: HashMap<String, BTreeMap<FactKey, isize>>,
    /// Updates by time, until the frontier passes it: `(line, case, facts)`.
    waiting: BTreeMap<Time, Vec<Waiting>>,
    /// The digest of each process that read its whole input (by the process's first worker).
    read: BTreeMap<u64, Digest>,
    frontier: Option<Time>,
    to_writer: mpsc::Sender<ToWriter>,
}

impl Cases {
    /// Keeps a record received at `time` until the frontier passes it.
    fn receive(&mut self, time: Time, record: Record) {
        match record {
            Record::Update { case, no, facts } => self.waiting.entry(time).or_default().push((no, case, facts)),
            Record::Read { process, digest, .. } => {
                self.read.insert(process, digest);
            }
        }
    }

    /// Moves to the frontier `now` (`None`: every time has passed): applies the updates of
    /// every time passed, in order of time and line, rules the cases they changed after each
    /// time, and tells the writer. Returns whether the stream is over.
    fn advance(&mut self, now: Option<Time>) -> bool {
        if now == self.frontier {
            return false;
        }
        self.frontier = now;
        let passed = match now {
            Some(open) => {
                let later = self.waiting.split_off(&open);
                std::mem::replace(&mut self.waiting, later)
            }
            None => std::mem::take(&mut self.waiting),
        };
        let mut lines: Vec<(Time, String, String)> = Vec::new();
        let mut bytes = 0usize;
        for (time, mut updates) in passed {
            updates.sort_by_key(|(no, _, _)| *no);
            let mut changed: Vec<String> = Vec::new();
            for (no, case, facts) in updates {
                match self.apply(&case, facts) {
                    Ok(()) => changed.push(case),
                    Err(held) => {
                        let msg = format!(
                            "the case would hold {held} facts; a case of a stream holds at most {}",
                            self.max_facts
                        );
                        let line = error_line(&case, usize::try_from(no).unwrap_or(usize::MAX), &msg);
                        let _ = self.to_writer.send(ToWriter::Error { time, case, line });
                    }
                }
            }
            changed.sort_unstable();
            changed.dedup();
            for case in changed {
                let line = case_line(self.facts.get(&case));
                bytes += line.len();
                lines.push((time, case, line));
                if lines.len() == RULED_AT_ONCE {
                    self.rule(&mut lines);
                }
            }
            // The rulings of the times passed go to the writer as they are made, not all at
            // once at the end of a long run of passed times (a growing case's rulings grow).
            if lines.len() >= RULED_AT_ONCE / 2 || bytes >= RULED_BYTES {
                self.rule(&mut lines);
                bytes = 0;
                if let Some(next) = time.checked_add(1) {
                    let _ = self.to_writer.send(ToWriter::Frontier { worker: self.local, time: Some(next) });
                }
            }
        }
        self.rule(&mut lines);
        if now.is_none() {
            self.check_inputs();
        }
        let _ = self.to_writer.send(ToWriter::Frontier { worker: self.local, time: now });
        now.is_none()
    }

    /// Adds the counts of an update to its case, unless the case would then hold more than
    /// the facts allowed (`Err` with how many).
    fn apply(&mut self, case: &str, update: Vec<(FactKey, isize)>) -> Result<(), usize> {
        // Counts summed per fact first: a fact added and removed by one update changes nothing.
        let mut sums: BTreeMap<FactKey, isize> = BTreeMap::new();
        for (fact, diff) in update {
            *sums.entry(fact).or_default() += diff;
        }
        sums.retain(|_, diff| *diff != 0);
        let facts = self.facts.entry(case.to_string()).or_default();
        let mut held = facts.len();
        for (fact, diff) in &sums {
            match facts.get(fact) {
                None => held += 1,
                Some(count) if count + diff == 0 => held -= 1,
                Some(_) => {}
            }
        }
        let accepted = held <= self.max_facts;
        if accepted {
            for (fact, diff) in sums {
                match facts.entry(fact) {
                    Entry::Vacant(e) => {
                        e.insert(diff);
                    }
                    Entry::Occupied(mut e) => {
                        *e.get_mut() += diff;
                        if *e.get() == 0 {
                            e.remove();
                        }
                    }
                }
            }
        }
        if facts.is_empty() {
            self.facts.remove(case);
        }
        if accepted {
            Ok(())
        } else {
            Err(held)
        }
    }

    /// Rules `lines` and tells the writer the rulings that changed.
    fn rule(&mut self, lines: &mut Vec<(Time, String, String)>) {
        for (time, case, ruling) in self.ruler.rule_changes(std::mem::take(lines)) {
            let _ = self.to_writer.send(ToWriter::Ruling { time, case, ruling });
        }
    }

    /// Tells the writer to fail when the processes that read their whole input read different
    /// lines.
    fn check_inputs(&self) {
        let mut digests = self.read.values().collect::<Vec<_>>();
        digests.dedup();
        if digests.len() <= 1 {
            return;
        }
        let each: Vec<String> = self
            .read
            .iter()
            .map(|(process, d)| format!("process {process} read {} lines (sha256 {})", d.lines, hex(&d.hash[..8])))
            .collect();
        let msg = format!(
            "the processes were given different inputs: {}; give every process the same lines (their rulings are incomplete)",
            each.join(", ")
        );
        let _ = self.to_writer.send(ToWriter::Failed(msg));
    }
}

/// The ruling line of a case without facts, after its `{"case":CASE`: what every case's ruling
/// is before its first update.
fn empty_ruling(pkg: &dyn Package, options: &Options) -> String {
    let cat = Catalog::new(pkg.schema());
    let mut out = String::new();
    rule_chunk_into(pkg, &cat, &[(0, PLACEHOLDER_CASE.to_string() + ",\"facts\":{}}")], options, &mut out);
    out.trim_end().strip_prefix(PLACEHOLDER_CASE).unwrap_or_default().to_string()
}

/// How every case line a worker rules begins: the case is echoed as written only when its
/// ruling is written, so that a ruling never depends on how the case's JSON reads as a number.
const PLACEHOLDER_CASE: &str = "{\"case\":0";

/// The case line (with [`PLACEHOLDER_CASE`]) of a case's facts whose count is positive.
fn case_line(facts: Option<&BTreeMap<FactKey, isize>>) -> String {
    let mut line = format!("{PLACEHOLDER_CASE},\"facts\":{{");
    let mut relation: Option<&str> = None;
    for ((key, tuple), _) in facts.into_iter().flatten().filter(|(_, count)| **count > 0) {
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
    /// Per case: its ruling after its `{"case":CASE`.
    rulings: HashMap<String, String>,
    out: String,
}

impl Ruler {
    fn new(pkg: &'static dyn Package, options: Options, empty: Arc<String>) -> Self {
        Ruler { pkg, cat: Catalog::new(pkg.schema()), options, empty, rulings: HashMap::new(), out: String::new() }
    }

    /// Rules the case lines of cases (by time, with [`PLACEHOLDER_CASE`]) in one batch and
    /// returns, in order, each ruling that differs from the case's ruling before.
    fn rule_changes(&mut self, lines: Vec<(Time, String, String)>) -> Vec<(Time, String, String)> {
        self.out.clear();
        if lines.is_empty() {
            return Vec::new();
        }
        let (states, lines): (Vec<(Time, String)>, Vec<Line>) =
            lines.into_iter().map(|(time, case, line)| ((time, case), (0, line))).unzip();
        rule_chunk_into(self.pkg, &self.cat, &lines, &self.options, &mut self.out);
        let mut changed = Vec::new();
        for ((time, case), now) in states.into_iter().zip(self.out.lines()) {
            let now = now.strip_prefix(PLACEHOLDER_CASE).unwrap_or(now);
            let of_no_facts = now == self.empty.as_str();
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
            let ruling = format!("{{\"case\":{case}{now}");
            changed.push((time, case, ruling));
        }
        changed
    }
}

/// An update line as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateLine<'a> {
    #[serde(borrow)]
    case: &'a RawValue,
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
        let mut hash = InputHash::default();
        let (mut buf, mut no, mut now) = (Vec::new(), 0usize, 0 as Time);
        let mut whole = true;
        while let Some(text) = next_line(&mut input, &mut buf, MAX_LINE_BYTES)? {
            if stop.load(Ordering::Relaxed) {
                whole = false;
                break;
            }
            no += 1;
            hash.line(&text);
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
            // The case as `clir rule` echoes it: as written, less the white space between tokens.
            let compact = crate::jsonl::compact_json(update.case.get());
            let case: &str = &compact;
            let owner = (case.hashed() % self.peers as u64) as usize;
            if owner / self.workers == self.process {
                match self.facts(case, &update, options) {
                    Ok(facts) => {
                        held += facts.len() + 1;
                        let record = Record::Update { case: case.to_string(), no: no as u64, facts };
                        pending[owner % self.workers].push(ToWorker::Update(now, record));
                        summary.updates += 1;
                    }
                    Err(msg) => {
                        let line = error_line(case, no, &msg);
                        let _ = to_writer.send(ToWriter::Error { time: now, case: case.to_string(), line });
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
        if whole {
            pending[0].push(ToWorker::Read(Digest { lines: no as u64, hash: hash.digest() }));
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

/// The SHA-256 of the lines read, each with its end: the same in every process given the same
/// input, and different (but for a collision of SHA-256) in processes given different ones.
#[derive(Default)]
struct InputHash(sha2::Sha256);

impl InputHash {
    fn line(&mut self, text: &str) {
        use sha2::Digest as _;
        self.0.update(text.as_bytes());
        self.0.update(b"\n");
    }

    fn digest(&self) -> [u8; 32] {
        use sha2::Digest as _;
        self.0.clone().finalize().into()
    }
}

/// The first bytes of a digest, in hexadecimal, for a message.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
            ToWriter::Failed(msg) => {
                out.flush()?;
                return Err(io::Error::other(msg));
            }
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
