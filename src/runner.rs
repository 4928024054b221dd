//! Batch rulings over a stream of JSON Lines: chunks of cases ruled in parallel, written in
//! input order, memory bounded by the chunk in flight.

use crate::jsonl::{rule_chunk_into, Catalog, Line, Options};
use crate::Package;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::{self, BufRead, IsTerminal, Write};

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
    let bar = if opts.progress && io::stderr().is_terminal() {
        let b = ProgressBar::new_spinner();
        b.set_style(
            ProgressStyle::with_template("{spinner} {human_pos} cases ruled ({per_sec}) {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let mut out = io::BufWriter::with_capacity(1 << 20, output);
    let mut summary = Summary::default();
    let mut chunk: Vec<Line> = Vec::with_capacity(chunk_lines);
    let mut lines = input.lines();
    let mut no = 0usize;
    loop {
        chunk.clear();
        for line in lines.by_ref() {
            no += 1;
            let line = match line {
                Ok(l) => l,
                // A line that is not UTF-8 is still a case: it gets its error line.
                Err(e) if e.kind() == io::ErrorKind::InvalidData => "\u{0}not UTF-8".to_string(),
                Err(e) => return Err(e),
            };
            // Blank means JSON's white space only: a line of other white space (NBSP, U+2028)
            // is a case, and gets its error line.
            if line.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                continue;
            }
            chunk.push((no, line));
            if chunk.len() == chunk_lines {
                break;
            }
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
            bar.inc(n as u64);
        }
    }
    out.flush()?;
    bar.finish_and_clear();
    Ok(summary)
}
