//! `clir::runner::rule_stream` writes the same bytes whatever the number of ruler threads (none:
//! the calling thread rules) and the batch size, one line per case in input order, error lines
//! included; a write error is an error, and a run over more batches than can be in flight at
//! once loses nothing. A run's progress callback is told every case written, and the end. All
//! of it holds as well with the writing on a thread of its own (`rule_stream_writing_apart`).

clir::include_clir!("fide.laws.chess");

use clir::runner::{rule_stream, rule_stream_reporting, rule_stream_writing_apart, Progress, RunOptions};
use std::io::{self, Write};

fn input() -> String {
    let games = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    let mut lines: Vec<String> = games.lines().map(str::to_string).collect();
    // Error lines and blank lines among the cases, and a case the fast path leaves to the full reader.
    lines.insert(3, "{\"case\":\"bad\",\"facts\":{\"nope\":[]}}".into());
    lines.insert(10, "   ".into());
    lines.insert(20, "not json".into());
    lines.insert(30, "{\"case\":\"esc\\u0061ped\",\"facts\":{\"play_started\":[[\"g\"]]}}".into());
    lines.join("\n")
}

fn rule(input: &str, threads: usize, batch: usize) -> (Vec<u8>, clir::runner::Summary) {
    let mut out = Vec::new();
    let opts = RunOptions { threads: Some(threads), batch, ..RunOptions::default() };
    let summary = rule_stream(&fide_laws_chess::Package, input.as_bytes(), &mut out, &opts).unwrap();
    let mut apart = Vec::new();
    let s = rule_stream_writing_apart(&fide_laws_chess::Package, input.as_bytes(), &mut apart, &opts, &|_| {}).unwrap();
    assert_eq!(s, summary, "{threads} threads, batch {batch}, written apart");
    assert!(apart == out, "{threads} threads, batch {batch}: written apart, the output differs");
    (out, summary)
}

#[test]
fn any_thread_count_and_batch_size_write_the_same_lines() {
    let input = input();
    let (want, summary) = rule(&input, 1, 512);
    let cases = input.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(String::from_utf8(want.clone()).unwrap().lines().count(), cases);
    assert_eq!((summary.lines, summary.errors), (cases as u64, 2));
    for (threads, batch) in [(2, 512), (3, 1), (2, 7), (7, 3), (1, 1), (4, 100_000), (0, 512), (0, 1)] {
        let (got, s) = rule(&input, threads, batch);
        assert_eq!(s, summary, "{threads} threads, batch {batch}");
        assert!(got == want, "{threads} threads, batch {batch}: the output differs");
    }
}

/// A writer that fails after `left` bytes.
struct Fails {
    left: usize,
}

impl Write for Fails {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() > self.left {
            return Err(io::Error::other("disk full"));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_write_error_stops_the_run_as_an_error() {
    let input = input();
    let opts = RunOptions { threads: Some(2), batch: 1, ..RunOptions::default() };
    let err = rule_stream(&fide_laws_chess::Package, input.as_bytes(), Fails { left: 10_000 }, &opts).unwrap_err();
    assert_eq!(err.to_string(), "disk full");
    for (threads, left) in [(2, 10_000), (1, 0), (3, 100_000)] {
        let opts = RunOptions { threads: Some(threads), batch: 1, ..RunOptions::default() };
        let pkg = &fide_laws_chess::Package;
        let err = rule_stream_writing_apart(pkg, input.as_bytes(), Fails { left }, &opts, &|_| {}).unwrap_err();
        assert_eq!(err.to_string(), "disk full", "written apart, {threads} threads, failing after {left} bytes");
    }
}

/// An input that fails after its first `left` bytes.
struct ReadFails<'a> {
    text: &'a [u8],
    left: usize,
}

impl io::Read for ReadFails<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("input gone"));
        }
        let n = buf.len().min(self.left).min(self.text.len());
        buf[..n].copy_from_slice(&self.text[..n]);
        (self.text, self.left) = (&self.text[n..], self.left - n);
        Ok(n)
    }
}

#[test]
fn a_read_error_stops_the_run_as_an_error_with_the_writer_apart_too() {
    let input = input();
    let opts = RunOptions { threads: Some(2), batch: 1, ..RunOptions::default() };
    let pkg = &fide_laws_chess::Package;
    let failing = || io::BufReader::with_capacity(64, ReadFails { text: input.as_bytes(), left: 5_000 });
    let err = rule_stream(pkg, failing(), io::sink(), &opts).unwrap_err();
    assert_eq!(err.to_string(), "input gone");
    let err = rule_stream_writing_apart(pkg, failing(), io::sink(), &opts, &|_| {}).unwrap_err();
    assert_eq!(err.to_string(), "input gone");
}

#[test]
fn progress_is_told_every_case_written_and_the_end() {
    struct Count(std::cell::Cell<u64>, std::cell::Cell<bool>);
    impl Progress for Count {
        fn ruled(&self, cases: u64) {
            assert!(!self.1.get(), "told of cases after the end");
            self.0.set(self.0.get() + cases);
        }
        fn finish(&self) {
            self.1.set(true);
        }
    }
    let input = input();
    for threads in [0, 2] {
        let count = Count(Default::default(), Default::default());
        let opts = RunOptions { threads: Some(threads), batch: 7, ..RunOptions::default() };
        let summary =
            rule_stream_reporting(&fide_laws_chess::Package, input.as_bytes(), io::sink(), &opts, &count).unwrap();
        assert_eq!((count.0.get(), count.1.get()), (summary.lines, true), "{threads} threads");
        // A closure is a callback too.
        let seen = std::cell::Cell::new(0);
        rule_stream_reporting(&fide_laws_chess::Package, input.as_bytes(), io::sink(), &opts, &|n| {
            seen.set(seen.get() + n)
        })
        .unwrap();
        assert_eq!(seen.get(), summary.lines);
        // Told from the writer's thread: a counter that is `Sync`.
        let (told, ended) = (std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicBool::new(false));
        struct Shared<'a>(&'a std::sync::atomic::AtomicU64, &'a std::sync::atomic::AtomicBool);
        impl Progress for Shared<'_> {
            fn ruled(&self, cases: u64) {
                assert!(!self.1.load(std::sync::atomic::Ordering::SeqCst), "told of cases after the end");
                self.0.fetch_add(cases, std::sync::atomic::Ordering::SeqCst);
            }
            fn finish(&self) {
                self.1.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let pkg = &fide_laws_chess::Package;
        rule_stream_writing_apart(pkg, input.as_bytes(), io::sink(), &opts, &Shared(&told, &ended)).unwrap();
        assert_eq!((told.into_inner(), ended.into_inner()), (summary.lines, true), "{threads} threads, apart");
    }
}
