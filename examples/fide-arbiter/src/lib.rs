//! fide-arbiter: what the FIDE Laws of Chess, as compiled from the fide.laws.chess package,
//! rule for PGN game records, and whether that agrees with the recorded results.
//!
//! Each game is read ([`pgn`]), replayed with shakmaty until the board ends it ([`replay`]),
//! turned into the case facts of docs/FORMAT.md "Case lines" ([`facts`]) and ruled through the compiled package
//! on the JSONL path ([`arbiter`]); [`summary`] tallies agreement by termination kind.

pub mod arbiter;
pub mod facts;
pub mod pgn;
pub mod replay;
pub mod summary;

// fide.laws.chess, compiled by this crate's build.rs from its law.toml.
clir::include_clir!("fide.laws.chess");

use rayon::prelude::*;
use std::io::{self, BufRead, Write};
use std::time::Instant;

pub use arbiter::{arbitrate, Outcome};
pub use summary::Summary;

/// How a run goes.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// Games per datafrog batch.
    pub batch: usize,
    /// Games read ahead and ruled in parallel before writing.
    pub chunk: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { threads: None, batch: 64, chunk: 1024 }
    }
}

/// Rules every game of `inputs` (name, reader), in order, writing one JSON line per game to
/// `out`; `each` sees every outcome (in order). Game indices run on across inputs.
pub fn run<W: Write>(
    inputs: Vec<(String, Box<dyn BufRead + Send>)>,
    out: W,
    opts: &RunOptions,
    mut each: impl FnMut(&Outcome),
) -> io::Result<Summary> {
    let start = Instant::now();
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = opts.threads {
        builder = builder.num_threads(n.max(1));
    }
    let pool = builder.build().map_err(io::Error::other)?;
    let mut summary = Summary { threads: pool.current_num_threads(), ..Summary::default() };
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let chunk_len = opts.chunk.max(1);
    let batch = opts.batch.max(1);
    // A reader thread cuts the input into chunks of games while the pool rules the previous one.
    std::thread::scope(|scope| -> io::Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<pgn::RawGame>>>(1);
        scope.spawn(move || {
            let mut next_index = 1;
            let mut chunk = Vec::with_capacity(chunk_len);
            for (name, reader) in inputs {
                let mut split = pgn::Splitter::new(reader, name, next_index);
                loop {
                    match split.next_game() {
                        Ok(Some(g)) => {
                            chunk.push(g);
                            if chunk.len() >= chunk_len && tx.send(Ok(std::mem::take(&mut chunk))).is_err() {
                                return;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                }
                next_index = split.next_index();
            }
            if !chunk.is_empty() {
                let _ = tx.send(Ok(chunk));
            }
        });
        for chunk in rx {
            let chunk = chunk?;
            let results: Vec<Vec<Outcome>> = pool.install(|| chunk.par_chunks(batch).map(arbitrate).collect());
            for o in results.iter().flatten() {
                out.write_all(o.line.as_bytes())?;
                out.write_all(b"\n")?;
                summary.add(o);
                each(o);
            }
        }
        Ok(())
    })?;
    out.flush()?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}
