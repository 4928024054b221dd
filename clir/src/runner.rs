//! Batch rulings over a stream of JSON Lines: ruler threads rule batches of cases while the
//! calling thread reads ahead and writes in input order; memory is bounded by the batches in
//! flight.

use crate::jsonl::{rule_chunk_into, Catalog, Options};
use crate::Package;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::sync::{mpsc, Mutex};

/// How a stream is ruled.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Grants and explanations.
    pub options: Options,
    /// Ruler threads (`None`: one per core); the calling thread reads and writes beside them.
    /// `Some(0)`: no thread is started, the calling thread rules too (for small inputs, where
    /// starting threads costs more than it saves).
    pub threads: Option<usize>,
    /// Cases per datafrog batch.
    pub batch: usize,
}

/// The most ruler threads a run accepts (`--threads`, the Python layer's `threads`).
pub const MAX_THREADS: usize = 512;

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { options: Options::default(), threads: None, batch: 512 }
    }
}

/// What a run reports as it writes ([`rule_stream_reporting`]): `clir rule` draws a progress
/// bar from it (`clir::command`), a library user may log it. A closure `Fn(u64)` is one.
pub trait Progress {
    /// `cases` more cases were ruled and written, in input order.
    fn ruled(&self, cases: u64);
    /// The run has written its last batch.
    fn finish(&self) {}
}

impl<F: Fn(u64)> Progress for F {
    fn ruled(&self, cases: u64) {
        self(cases)
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Output lines written (one per non-blank input line).
    pub lines: u64,
    /// Error lines among them.
    pub errors: u64,
}

/// The longest input line read; a longer one is skipped and gets its error line.
pub const MAX_LINE_BYTES: usize = 256 << 20;
/// A batch of lines in flight holds at most about this many bytes of input (and at least one line).
pub const MAX_CHUNK_BYTES: usize = 4 << 20;

/// The next line of `input` without its line break, `None` at the end. A line that is not
/// UTF-8 or is longer than [`MAX_LINE_BYTES`] comes back as an unreadable line
/// ([`crate::jsonl::unreadable`]): it is still a case, and gets its error line.
pub(crate) fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Option<String>> {
    buf.clear();
    Ok(match append_line(input, buf, max)? {
        None => None,
        Some(false) => Some(too_long(max)),
        // The line's bytes become its String without a copy (as `BufRead::lines` does).
        Some(true) => Some(String::from_utf8(std::mem::take(buf)).unwrap_or_else(|e| not_utf8(e.utf8_error()))),
    })
}

/// The unreadable line of a line over `max` bytes.
fn too_long(max: usize) -> String {
    crate::jsonl::unreadable(&format!("the line is longer than {max} bytes"))
}

/// The unreadable line of a line that is not UTF-8.
fn not_utf8(e: std::str::Utf8Error) -> String {
    crate::jsonl::unreadable(&format!("the line is not UTF-8 (invalid byte at {})", e.valid_up_to()))
}

/// Appends the next line of `input` to `buf`, without its line break (`\n`, or `\r\n`):
/// `Some(true)`. A line over `max` bytes is skipped to its end without being held, and leaves
/// `buf` as it was: `Some(false)`. `None` at the end of `input`.
fn append_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Option<bool>> {
    let start = buf.len();
    // As `read_until` over at most `max + 1` bytes, with the line break found by `memchr`'s
    // vectorized search rather than std's word-at-a-time one.
    loop {
        let avail = match input.fill_buf() {
            Ok(avail) => avail,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let room = (max + 1 - (buf.len() - start)).min(avail.len());
        if room == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &avail[..room]) {
            buf.extend_from_slice(&avail[..=i]);
            input.consume(i + 1);
            break;
        }
        buf.extend_from_slice(&avail[..room]);
        input.consume(room);
    }
    if buf.len() == start {
        return Ok(None);
    }
    if buf.len() - start > max && buf.last() != Some(&b'\n') {
        buf.truncate(start);
        // Skip the rest of the line without holding it.
        loop {
            let avail = input.fill_buf()?;
            if avail.is_empty() {
                break;
            }
            match memchr::memchr(b'\n', avail) {
                Some(i) => {
                    input.consume(i + 1);
                    break;
                }
                None => {
                    let len = avail.len();
                    input.consume(len);
                }
            }
        }
        return Ok(Some(false));
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.len() > start && buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    Ok(Some(true))
}

/// Rules every non-blank line of `input`, writing exactly one line per case to `output`.
///
/// Reading, ruling and writing overlap: `opts.threads` ruler threads rule batches of
/// `opts.batch` lines as they come, while the calling thread reads the next batches and writes
/// the ruled ones in input order. At most `2 × threads + 2` batches are in flight, each of at
/// most [`MAX_CHUNK_BYTES`] of input (or one line), so memory stays bounded whatever the input's
/// length. The batches do not depend on the number of threads, and neither does the output.
pub fn rule_stream(
    pkg: &dyn Package,
    input: impl BufRead,
    output: impl Write,
    opts: &RunOptions,
) -> io::Result<Summary> {
    rule_stream_reporting(pkg, input, output, opts, &|_: u64| {})
}

/// [`rule_stream`], telling `progress` the cases written as each batch is written, and when
/// the run ends.
pub fn rule_stream_reporting(
    pkg: &dyn Package,
    mut input: impl BufRead,
    output: impl Write,
    opts: &RunOptions,
    progress: &dyn Progress,
) -> io::Result<Summary> {
    let cat = Catalog::of(pkg);
    let batch = opts.batch.max(1);
    let mut writer = InOrder::new(output, progress);
    if opts.threads == Some(0) {
        let spare = Spare::default();
        let mut reader = Batches::new(&spare);
        let mut seq = 0;
        while let Some(chunk) = reader.next(&mut input, batch)? {
            writer.add(seq, Ok(chunk.rule(pkg, &cat, &opts.options, &spare)))?;
            seq += 1;
        }
        return writer.finish();
    }
    let (events_to, events) = mpsc::channel::<Event>();
    let spare = Spare::default();
    std::thread::scope(|scope| {
        let work = rulers(scope, pkg, &cat, opts, &spare, events_to);
        read_and_dispatch(&mut input, opts, work, &spare, events, Some(&mut writer))?;
        writer.finish()
    })
}

/// [`rule_stream_reporting`] with the writing on a thread of its own: while one batch is
/// written (the system's copying of it into a file takes as long as reading one), the calling
/// thread reads the next ones and keeps the ruler threads busy. The output, the summary and
/// the bound on memory are the same; `output` and `progress` must go to that thread.
/// With `opts.threads` `Some(0)`, it is [`rule_stream_reporting`].
pub fn rule_stream_writing_apart(
    pkg: &dyn Package,
    mut input: impl BufRead,
    output: impl Write + Send,
    opts: &RunOptions,
    progress: &(dyn Progress + Sync),
) -> io::Result<Summary> {
    if opts.threads == Some(0) {
        return rule_stream_reporting(pkg, input, output, opts, progress);
    }
    let cat = Catalog::of(pkg);
    let (ruled_to, ruled) = mpsc::channel::<Event>();
    let (events_to, events) = mpsc::channel::<Event>();
    let spare = Spare::default();
    std::thread::scope(|scope| {
        let work = rulers(scope, pkg, &cat, opts, &spare, ruled_to);
        let written = scope.spawn(move || {
            let mut writer = InOrder::new(output, progress);
            for event in ruled {
                if let Event::Ruled(seq, batch) = event {
                    writer.add(seq, batch)?;
                    // The reader may have stopped already (an error): nothing is lost.
                    let _ = events_to.send(Event::Written(writer.next));
                }
            }
            writer.finish()
        });
        let read = read_and_dispatch::<io::Sink>(&mut input, opts, work, &spare, events, None);
        let summary = written.join().unwrap_or_else(|_| Err(io::Error::other("writing the rulings failed")));
        // The writer's error (a full disk) says more than the reader's "the ruler threads stopped".
        match (read, summary) {
            (_, Err(e)) | (Err(e), Ok(_)) => Err(e),
            (Ok(()), Ok(summary)) => Ok(summary),
        }
    })
}

/// What the calling thread hears of: a batch ruled (when it writes them itself), or how many
/// batches a writer thread has written.
enum Event {
    Ruled(u64, Result<Ruled, String>),
    Written(u64),
}

/// The ruler threads `opts` asks for.
fn ruler_count(opts: &RunOptions) -> usize {
    opts.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// A batch of lines to rule, numbered in input order.
type Work = (u64, Chunk);

/// Starts the ruler threads of `opts`: each takes the next batch sent to the returned sender,
/// rules it, sends it on to `done` and gives its buffer to `spare`. They stop when that sender
/// is dropped or `done` is gone.
fn rulers<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    pkg: &'scope dyn Package,
    cat: &'scope Catalog,
    opts: &'scope RunOptions,
    spare: &'scope Spare,
    done: mpsc::Sender<Event>,
) -> mpsc::Sender<Work> {
    let (work, todo) = mpsc::channel::<Work>();
    let todo = std::sync::Arc::new(Mutex::new(todo));
    for _ in 0..ruler_count(opts) {
        let (done, todo) = (done.clone(), todo.clone());
        scope.spawn(move || loop {
            let next = todo.lock().map(|rx| rx.recv());
            let Ok(Ok((seq, chunk))) = next else { break };
            let first = chunk.lines.first().map_or(0, |(no, _)| *no);
            // A panic (a bug) fails the run loudly, naming the batch, instead of losing it.
            let ruled =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| chunk.rule(pkg, cat, &opts.options, spare)))
                    .map_err(|panic| {
                        let why = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        format!("ruling the lines from line {first} failed: {why}")
                    });
            if done.send(Event::Ruled(seq, ruled)).is_err() {
                break;
            }
        });
    }
    work
}

/// The calling thread's part: reads batches of `input` and sends them to `work` while at most
/// `2 × threads + 2` are in flight (read and not yet written), until every batch read is
/// written. `events` tells it what was ruled (written by it, through `here`) or written (by a
/// writer thread).
fn read_and_dispatch<W: Write>(
    input: &mut impl BufRead,
    opts: &RunOptions,
    work: mpsc::Sender<Work>,
    spare: &Spare,
    events: mpsc::Receiver<Event>,
    mut here: Option<&mut InOrder<'_, W>>,
) -> io::Result<()> {
    let stopped = || io::Error::other("the ruler threads stopped");
    let mut on = |event: Event, written: &mut u64| -> io::Result<()> {
        match (event, here.as_deref_mut()) {
            (Event::Ruled(seq, ruled), Some(writer)) => {
                writer.add(seq, ruled)?;
                *written = writer.next;
            }
            (Event::Written(n), _) => *written = n,
            (Event::Ruled(..), None) => unreachable!("ruled batches go to the writer thread"),
        }
        Ok(())
    };
    let mut reader = Batches::new(spare);
    let in_flight = 2 * ruler_count(opts) as u64 + 2;
    let (mut sent, mut written, mut eof) = (0u64, 0u64, false);
    loop {
        // Take what is ruled or written; read the next batch while there is room; else wait.
        while let Ok(event) = events.try_recv() {
            on(event, &mut written)?;
        }
        if !eof && sent - written < in_flight {
            match reader.next(input, opts.batch.max(1))? {
                Some(chunk) => {
                    work.send((sent, chunk)).map_err(|_| stopped())?;
                    sent += 1;
                }
                None => eof = true,
            }
            continue;
        }
        if written == sent {
            return Ok(());
        }
        on(events.recv().map_err(|_| stopped())?, &mut written)?;
    }
}

/// The lines of one batch, ruled.
struct Ruled {
    text: String,
    lines: usize,
    errors: usize,
}

/// A batch of lines as read: their bytes one after another in one buffer (not a `String` a
/// line), and per line its number and its range of the buffer, or its unreadable line
/// ([`crate::jsonl::unreadable`]) when it is too long. The ruler thread checks the buffer is
/// UTF-8 in one pass, and rules the lines as slices of it.
struct Chunk {
    text: Vec<u8>,
    lines: Vec<(usize, Result<std::ops::Range<usize>, String>)>,
}

impl Chunk {
    /// The lines as text: slices of the buffer, each checked to be UTF-8 on its own only when
    /// the whole is not (a line that is not gets its unreadable line).
    fn lines(&self) -> Vec<(usize, Cow<'_, str>)> {
        let whole = simdutf8::basic::from_utf8(&self.text).ok();
        let text = |range: &std::ops::Range<usize>| match whole.and_then(|t| t.get(range.clone())) {
            Some(line) => Cow::Borrowed(line),
            None => match std::str::from_utf8(&self.text[range.clone()]) {
                Ok(line) => Cow::Borrowed(line),
                Err(e) => Cow::Owned(not_utf8(e)),
            },
        };
        self.lines
            .iter()
            .map(|(no, line)| match line {
                Ok(range) => (*no, text(range)),
                Err(unreadable) => (*no, Cow::Borrowed(unreadable.as_str())),
            })
            .collect()
    }

    /// The ruling lines of the batch, its buffer then given to `spare`. A ruling line is about
    /// as long as its case line, a little longer or shorter, so twice the input rarely needs to
    /// grow.
    fn rule(self, pkg: &dyn Package, cat: &Catalog, opts: &Options, spare: &Spare) -> Ruled {
        let lines = self.lines();
        let mut text = String::with_capacity(2 * self.text.len());
        let errors = rule_chunk_into(pkg, cat, &lines, opts, &mut text);
        let ruled = Ruled { text, lines: lines.len(), errors };
        drop(lines);
        spare.give(self.text);
        ruled
    }
}

/// Buffers of batches ruled, for the next batches read: the same few go round instead of a new
/// one a batch, freed on another thread, whose pages the allocator may keep (`clir rule` with
/// mimalloc over 200,000 FIDE games, 2 ruler threads: 50 MB at the peak, 70-75 MB without).
#[derive(Default)]
struct Spare(Mutex<Vec<Vec<u8>>>);

impl Spare {
    /// The most buffers kept, and the largest kept (a buffer that held a longer line goes).
    const KEPT: usize = 2 * MAX_THREADS + 2;
    const LARGEST: usize = 2 * MAX_CHUNK_BYTES;

    /// An empty buffer with room for `room` bytes.
    fn take(&self, room: usize) -> Vec<u8> {
        let mut buf = self.0.lock().ok().and_then(|mut kept| kept.pop()).unwrap_or_default();
        buf.reserve(room);
        buf
    }

    /// Keeps `buf` for a next batch.
    fn give(&self, mut buf: Vec<u8>) {
        if buf.capacity() <= Self::LARGEST {
            if let Ok(mut kept) = self.0.lock() {
                if kept.len() < Self::KEPT {
                    buf.clear();
                    kept.push(buf);
                }
            }
        }
    }
}

/// Reads batches of non-blank lines, numbered in input order.
struct Batches<'s> {
    no: usize,
    /// The bytes of the last batch's lines: room made for the next one's, so that its buffer
    /// grows once at most rather than by doubling (each time copying what it holds).
    last: usize,
    spare: &'s Spare,
}

impl<'s> Batches<'s> {
    /// A reader whose batches take their buffers from `spare`.
    fn new(spare: &'s Spare) -> Self {
        Batches { no: 0, last: 0, spare }
    }

    /// The next batch of up to `batch` non-blank lines (at most [`MAX_CHUNK_BYTES`], at least
    /// one line); `None` at the end.
    fn next(&mut self, input: &mut impl BufRead, batch: usize) -> io::Result<Option<Chunk>> {
        // No more than a batch holds but for its last line: a long line costs its own batch.
        let room = (self.last + self.last / 8).min(MAX_CHUNK_BYTES);
        let mut chunk = Chunk { text: self.spare.take(room), lines: Vec::with_capacity(batch.min(4096)) };
        let mut bytes = 0usize;
        while chunk.lines.len() < batch && bytes < MAX_CHUNK_BYTES {
            let start = chunk.text.len();
            let Some(read) = append_line(input, &mut chunk.text, MAX_LINE_BYTES)? else { break };
            self.no += 1;
            if !read {
                let line = too_long(MAX_LINE_BYTES);
                bytes += line.len();
                chunk.lines.push((self.no, Err(line)));
                continue;
            }
            // Blank means JSON's white space only: a line of other white space (NBSP, U+2028)
            // is a case, and gets its error line.
            if chunk.text[start..].iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
                chunk.text.truncate(start);
                continue;
            }
            bytes += chunk.text.len() - start;
            chunk.lines.push((self.no, Ok(start..chunk.text.len())));
        }
        self.last = chunk.text.len();
        Ok((!chunk.lines.is_empty()).then_some(chunk))
    }
}

/// The bytes of ruled lines gathered before they are written.
const WRITE_BUFFER: usize = 64 << 10;

/// Writes ruled batches in input order, holding those that come early.
struct InOrder<'p, W: Write> {
    out: io::BufWriter<W>,
    pending: BTreeMap<u64, Ruled>,
    /// The next batch to write.
    next: u64,
    summary: Summary,
    progress: &'p dyn Progress,
}

impl<'p, W: Write> InOrder<'p, W> {
    fn new(output: W, progress: &'p dyn Progress) -> Self {
        InOrder {
            // A batch's lines longer than the buffer go to `output` as they are, not copied
            // into it first; shorter ones (a batch of a few cases) are gathered.
            out: io::BufWriter::with_capacity(WRITE_BUFFER, output),
            pending: BTreeMap::new(),
            next: 0,
            summary: Summary::default(),
            progress,
        }
    }

    /// Takes a ruled batch and writes every batch that is next in order. What is written is
    /// flushed: a reader of the output (`clir diff` reading two rulers) gets each batch once it
    /// is ruled, not when a buffer happens to fill.
    fn add(&mut self, seq: u64, ruled: Result<Ruled, String>) -> io::Result<()> {
        self.pending.insert(seq, ruled.map_err(io::Error::other)?);
        let before = self.next;
        while let Some(ruled) = self.pending.remove(&self.next) {
            self.out.write_all(ruled.text.as_bytes())?;
            self.summary.lines += ruled.lines as u64;
            self.summary.errors += ruled.errors as u64;
            self.progress.ruled(ruled.lines as u64);
            self.next += 1;
        }
        if self.next > before {
            self.out.flush()?;
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<Summary> {
        let flushed = self.out.flush();
        self.progress.finish();
        flushed.map(|()| self.summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_too_long_or_not_utf8_are_cases_with_a_reason() {
        let mut input = io::Cursor::new(b"short\r\n0123456789abcdef\nok\n\xff\xfe\nlast".to_vec());
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        while let Some(l) = next_line(&mut input, &mut buf, 8).unwrap() {
            lines.push(l);
        }
        assert_eq!(lines[0], "short");
        assert_eq!(lines[1], crate::jsonl::unreadable("the line is longer than 8 bytes"));
        assert_eq!(lines[2], "ok", "the rest of a long line is skipped, the next line read");
        assert_eq!(lines[3], crate::jsonl::unreadable("the line is not UTF-8 (invalid byte at 0)"));
        assert_eq!(lines[4], "last");
        assert_eq!(lines.len(), 5);
    }

    /// A batch that held a line longer than a batch may hold is not kept for later batches, and
    /// the batches after it make room for what a batch holds at most, not for that line.
    #[test]
    fn a_long_line_leaves_no_large_buffer_behind() {
        let mut input = vec![b'x'; Spare::LARGEST + 1];
        input.extend_from_slice(b"\nshort\nshort\n");
        let spare = Spare::default();
        let mut reader = Batches::new(&spare);
        let mut input = io::Cursor::new(input);
        let long = reader.next(&mut input, 1).unwrap().unwrap();
        assert!(long.text.capacity() > Spare::LARGEST);
        spare.give(long.text);
        assert!(spare.0.lock().unwrap().is_empty(), "a buffer over the largest kept is dropped");
        let next = reader.next(&mut input, 1).unwrap().unwrap();
        assert_eq!(
            next.lines().into_iter().map(|(no, l)| (no, l.into_owned())).collect::<Vec<_>>(),
            [(2, "short".to_string())]
        );
        assert!(
            next.text.capacity() <= MAX_CHUNK_BYTES + MAX_CHUNK_BYTES / 8,
            "room for a batch, not for the long line"
        );
        spare.give(next.text);
        assert_eq!(spare.0.lock().unwrap().len(), 1, "a batch's buffer goes round");
    }

    proptest::proptest! {
        /// Lines come out the same whatever the reader's buffer holds at a time: split at
        /// `\n`, a `\r` before it dropped, a line over `max` bytes skipped whole, a line not
        /// UTF-8 said to be so.
        #[test]
        fn lines_do_not_depend_on_the_buffer(bytes in proptest::collection::vec(proptest::sample::select(b"ab\r\n\xff".to_vec()), 0..80), capacity in 1usize..12, max in 1usize..10) {
            let read = |mut input: &mut dyn BufRead| {
                let (mut buf, mut lines) = (Vec::new(), Vec::new());
                while let Some(l) = next_line(&mut input, &mut buf, max).unwrap() {
                    lines.push(l);
                }
                lines
            };
            let whole = read(&mut io::Cursor::new(&bytes[..]));
            let mut expected = Vec::new();
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let end = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |i| i + 1);
                let mut line = &rest[..end];
                rest = &rest[end..];
                let ended = line.last() == Some(&b'\n');
                if ended {
                    line = &line[..line.len() - 1];
                }
                expected.push(if line.len() + ended as usize > max + 1 || (!ended && line.len() > max) {
                    crate::jsonl::unreadable(&format!("the line is longer than {max} bytes"))
                } else {
                    let line = if ended { line.strip_suffix(b"\r").unwrap_or(line) } else { line };
                    match std::str::from_utf8(line) {
                        Ok(s) => s.to_string(),
                        Err(e) => crate::jsonl::unreadable(&format!("the line is not UTF-8 (invalid byte at {})", e.valid_up_to())),
                    }
                });
            }
            proptest::prop_assert_eq!(&whole, &expected);
            proptest::prop_assert_eq!(read(&mut io::BufReader::with_capacity(capacity, &bytes[..])), expected);
        }

        /// Batches hold the lines `next_line` reads, numbered from 1, but for the blank ones:
        /// the same text as slices of one buffer, and the same unreadable line for a line that
        /// is not UTF-8 (in a batch whose other lines are, or are not, UTF-8).
        #[test]
        fn batches_hold_the_lines_next_line_reads(bytes in proptest::collection::vec(proptest::sample::select(vec![b'a', b' ', b'\r', b'\n', b'\n', 0xff, 0xc3, 0xa9]), 0..120), capacity in 1usize..12, batch in 1usize..6) {
            let (mut buf, mut want, mut no) = (Vec::new(), Vec::new(), 0);
            let mut input = io::Cursor::new(&bytes[..]);
            while let Some(l) = next_line(&mut input, &mut buf, MAX_LINE_BYTES).unwrap() {
                no += 1;
                if !l.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                    want.push((no, l));
                }
            }
            let spare = Spare::default();
            let (mut reader, mut got) = (Batches::new(&spare), Vec::new());
            let mut input = io::BufReader::with_capacity(capacity, &bytes[..]);
            while let Some(chunk) = reader.next(&mut input, batch).unwrap() {
                proptest::prop_assert!(chunk.lines.len() <= batch);
                got.extend(chunk.lines().into_iter().map(|(no, l)| (no, l.into_owned())));
            }
            proptest::prop_assert_eq!(got, want);
        }
    }
}
