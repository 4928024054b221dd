//! Batch rulings over a stream of JSON Lines: chunks of cases ruled in parallel, written in
//! input order, memory bounded by the chunk in flight.

use crate::jsonl::{rule_chunk_into, Catalog, Line, Options};
use crate::Package;
use rayon::prelude::*;
use std::io::{self, BufRead, Read, Write};

/// How a stream is ruled.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Grants and explanations.
    pub options: Options,
    /// Worker threads (`None`: rayon's default, one per core).
    pub threads: Option<usize>,
    /// Cases per datafrog batch.
    pub batch: usize,
    /// Show a progress bar on stderr (when it is a terminal).
    pub progress: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { options: Options::default(), threads: None, batch: 512, progress: true }
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
/// A chunk of lines in flight holds at most about this many bytes of input (and at least one line).
pub const MAX_CHUNK_BYTES: usize = 64 << 20;

/// The next line of `input` without its line break, `None` at the end. A line that is not
/// UTF-8 or is longer than [`MAX_LINE_BYTES`] comes back as an unreadable line
/// ([`crate::jsonl::unreadable`]): it is still a case, and gets its error line.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Option<String>> {
    buf.clear();
    let n = Read::take(&mut *input, max as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > max && buf.last() != Some(&b'\n') {
        // Skip the rest of the line without holding it.
        loop {
            let avail = input.fill_buf()?;
            if avail.is_empty() {
                break;
            }
            match avail.iter().position(|&b| b == b'\n') {
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
        return Ok(Some(crate::jsonl::unreadable(&format!("the line is longer than {max} bytes"))));
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    // The line's bytes become its String without a copy (as `BufRead::lines` does).
    Ok(Some(match String::from_utf8(std::mem::take(buf)) {
        Ok(s) => s,
        Err(e) => crate::jsonl::unreadable(&format!(
            "the line is not UTF-8 (invalid byte at {})",
            e.utf8_error().valid_up_to()
        )),
    }))
}

/// Rules every non-blank line of `input`, writing exactly one line per case to `output`.
pub fn rule_stream(
    pkg: &dyn Package,
    input: impl BufRead,
    output: impl Write,
    opts: &RunOptions,
) -> io::Result<Summary> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = opts.threads {
        builder = builder.num_threads(n.max(1));
    }
    let pool = builder.build().map_err(io::Error::other)?;
    let cat = Catalog::new(pkg.schema());
    let batch = opts.batch.max(1);
    let chunk_lines = batch * pool.current_num_threads() * 4;
    let bar = Progress::new(opts.progress);
    let mut out = io::BufWriter::with_capacity(1 << 20, output);
    let mut summary = Summary::default();
    let mut chunk: Vec<Line> = Vec::with_capacity(chunk_lines);
    let mut input = input;
    let mut buf: Vec<u8> = Vec::new();
    let mut no = 0usize;
    loop {
        chunk.clear();
        let mut chunk_bytes = 0usize;
        while chunk.len() < chunk_lines && chunk_bytes < MAX_CHUNK_BYTES {
            let Some(line) = next_line(&mut input, &mut buf, MAX_LINE_BYTES)? else { break };
            no += 1;
            // Blank means JSON's white space only: a line of other white space (NBSP, U+2028)
            // is a case, and gets its error line.
            if line.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                continue;
            }
            chunk_bytes += line.len();
            chunk.push((no, line));
        }
        if chunk.is_empty() {
            break;
        }
        // Each part of the chunk is one batch, ruled into one string of lines.
        let results: Vec<(String, usize, usize)> = pool.install(|| {
            chunk
                .par_chunks(batch)
                .map(|part| {
                    let mut s = String::with_capacity(part.iter().map(|(_, l)| l.len()).sum::<usize>());
                    let errors = rule_chunk_into(pkg, &cat, part, &opts.options, &mut s);
                    (s, part.len(), errors)
                })
                .collect()
        });
        for (lines_out, n, errors) in results {
            out.write_all(lines_out.as_bytes())?;
            summary.lines += n as u64;
            summary.errors += errors as u64;
            bar.ruled(n as u64);
        }
    }
    out.flush()?;
    bar.finish();
    Ok(summary)
}

/// The progress line on stderr, when it is a terminal and the `command` feature brings
/// indicatif; nothing otherwise.
struct Progress {
    #[cfg(feature = "command")]
    bar: indicatif::ProgressBar,
}

impl Progress {
    #[cfg(feature = "command")]
    fn new(show: bool) -> Progress {
        use indicatif::{ProgressBar, ProgressStyle};
        use std::io::IsTerminal;
        let bar = if show && io::stderr().is_terminal() {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {human_pos} cases ruled ({per_sec}) {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b
        } else {
            ProgressBar::hidden()
        };
        Progress { bar }
    }

    #[cfg(not(feature = "command"))]
    fn new(_show: bool) -> Progress {
        Progress {}
    }

    fn ruled(&self, _cases: u64) {
        #[cfg(feature = "command")]
        self.bar.inc(_cases);
    }

    fn finish(&self) {
        #[cfg(feature = "command")]
        self.bar.finish_and_clear();
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
}
