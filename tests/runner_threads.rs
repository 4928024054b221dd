//! `clir::runner::rule_stream` writes the same bytes whatever the number of ruler threads (none:
//! the calling thread rules) and the batch size, one line per case in input order, error lines
//! included; a write error is an error, and a run over more batches than can be in flight at
//! once loses nothing. A run's progress callback is told every case written, and the end.

clir::include_clir!("fide.laws.chess");

use clir::runner::{rule_stream, rule_stream_reporting, Progress, RunOptions};
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
    }
}
