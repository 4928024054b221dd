//! Batch rulings of fide.laws.chess: the compiled package against the same rules written by
//! hand (`benches/handwritten`) and in ascent (`benches/ascent`), on generated games
//! (`benches/gen.rs`, the generator of `examples/gen_fide_games.rs`).
//!
//! `cargo bench --bench rulings` measures, for 10^4, 10^5 and 10^6 cases (`CLIR_BENCH_MAX`
//! caps N), with 1 and 2 threads:
//! - in memory: cases/s of evaluating prepared `clir::Batch`es of 512 cases (`CLIR_BENCH_BATCH`)
//!   into `clir::Output` (compiled `evaluate`, hand-written, ascent), batches in parallel;
//! - end to end: cases/s of JSON Lines in (a buffer in memory) to ruling lines out (a sink that
//!   counts), compiled through `clir::runner::rule_stream`, hand-written through its own
//!   serde_json reader and writer.
//!
//! and prints a markdown table: cases/s, the ratios compiled/hand-written and compiled/ascent
//! (of cases/s: above 1 the compiled path is faster) and the wall-clock cost per case in ns.
//! Each figure is the best of 10 runs (2 for 10^6 cases): the machine may be shared.
//!
//! For a profiler, `CLIR_BENCH_ONLY=WHAT` runs one measurement once, on the smallest N, with 1
//! thread: WHAT is `memory-compiled`, `memory-handwritten`, `memory-ascent`, `jsonl-compiled`
//! or `jsonl-handwritten` (e.g. `valgrind --tool=callgrind target/release/deps/rulings-*`).

#[path = "ascent/mod.rs"]
mod ascent_fide;
#[path = "gen.rs"]
mod gen;
#[path = "handwritten/mod.rs"]
mod handwritten;

clir::include_clir!("fide.laws.chess");

use clir::runner::{rule_stream, RunOptions};
use clir::{Batch, Output};
use fide_laws_chess::{self as fide, SCHEMA};
use rayon::prelude::*;
use std::hint::black_box;
use std::io::{self, Write};
use std::time::{Duration, Instant};

const SEED: u64 = 2023;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

/// Counts what is written.
struct Count(u64);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The best time of `reps` runs of `f`.
fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Evaluates every batch with `eval` on `pool`; the result is kept alive until counted.
fn in_memory(pool: &rayon::ThreadPool, batches: &[Batch], eval: fn(&Batch) -> Output) -> usize {
    pool.install(|| batches.par_iter().map(|b| black_box(eval(b)).concluded.iter().map(Vec::len).sum::<usize>()).sum())
}

struct Row {
    cases: usize,
    threads: usize,
    path: &'static str,
    compiled: f64,
    handwritten: f64,
    ascent: Option<f64>,
}

fn fmt_rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2} M", r / 1e6)
    } else {
        format!("{:.0} k", r / 1e3)
    }
}

fn print_row(r: &Row) {
    let ns = |rate: f64| format!("{:.0}", 1e9 / rate);
    println!(
        "| {} | {} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {} |",
        r.cases,
        r.threads,
        r.path,
        fmt_rate(r.compiled),
        fmt_rate(r.handwritten),
        r.ascent.map(fmt_rate).unwrap_or_else(|| "–".into()),
        r.compiled / r.handwritten,
        r.ascent.map(|a| format!("{:.2}", r.compiled / a)).unwrap_or_else(|| "–".into()),
        ns(r.compiled),
        ns(r.handwritten),
        r.ascent.map(ns).unwrap_or_else(|| "–".into()),
    );
}

/// `n` generated games as JSON Lines and as batches of `per_batch`.
fn cases(n: usize, per_batch: usize) -> (Vec<u8>, Vec<Batch>) {
    let mut input: Vec<u8> = Vec::new();
    let mut batches: Vec<Batch> = Vec::new();
    for (i, case) in gen::games(n as u64, SEED).enumerate() {
        serde_json::to_writer(&mut input, &case).unwrap();
        input.push(b'\n');
        if i % per_batch == 0 {
            batches.push(Batch::new(&SCHEMA));
        }
        gen::push_case(&SCHEMA, batches.last_mut().unwrap(), &case);
    }
    (input, batches)
}

/// One measurement, once, on one thread (for a profiler).
fn profile(what: &str, n: usize, per_batch: usize) {
    let (input, batches) = cases(n, per_batch);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let t = Instant::now();
    match what {
        "memory-compiled" => drop(in_memory(&pool, &batches, fide::evaluate)),
        "memory-handwritten" => drop(in_memory(&pool, &batches, handwritten::evaluate)),
        "memory-ascent" => drop(in_memory(&pool, &batches, ascent_fide::evaluate)),
        "jsonl-compiled" => {
            let opts = RunOptions { threads: Some(1), batch: per_batch, ..RunOptions::default() };
            rule_stream(&fide::Package, &input[..], Count(0), &opts).unwrap();
        }
        "jsonl-handwritten" => drop(handwritten::rule_stream(&input[..], Count(0), 1, false).unwrap()),
        other => panic!("CLIR_BENCH_ONLY: unknown measurement `{other}`"),
    }
    let d = t.elapsed();
    eprintln!("{what}: {n} cases in {d:?}: {:.0} cases/s", n as f64 / d.as_secs_f64());
}

fn main() {
    // `cargo bench` passes `--bench`; a name filter is not supported.
    let max = env_usize("CLIR_BENCH_MAX", 1_000_000);
    let per_batch = env_usize("CLIR_BENCH_BATCH", 512);
    let sizes: Vec<usize> = [10_000, 100_000, 1_000_000].into_iter().filter(|&n| n <= max).collect();
    if let Ok(only) = std::env::var("CLIR_BENCH_ONLY") {
        return profile(&only, sizes.first().copied().unwrap_or(max), per_batch);
    }
    let pools: Vec<(usize, rayon::ThreadPool)> =
        [1, 2].into_iter().map(|t| (t, rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap())).collect();
    eprintln!(
        "fide.laws.chess batch rulings: {} cores, batches of {per_batch} cases, games from seed {SEED}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    );
    println!(
        "| cases | threads | path | compiled cases/s | hand-written cases/s | ascent cases/s | compiled/hand-written | compiled/ascent | compiled ns/case | hand-written ns/case | ascent ns/case |"
    );
    println!("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &n in &sizes {
        let (input, batches) = cases(n, per_batch);
        let reps = (1_000_000 / n).clamp(2, 10);
        let rate = |d: Duration| n as f64 / d.as_secs_f64();
        let mut rows = Vec::new();
        for (threads, pool) in &pools {
            let (mut c, mut h, mut a) = (0, 0, 0);
            let compiled = best(reps, || c = in_memory(pool, &batches, fide::evaluate));
            let hand = best(reps, || h = in_memory(pool, &batches, handwritten::evaluate));
            let asc = best(reps, || a = in_memory(pool, &batches, ascent_fide::evaluate));
            assert!(c == h && c == a, "in memory: {c} / {h} / {a} output rows");
            rows.push(Row {
                cases: n,
                threads: *threads,
                path: "in memory",
                compiled: rate(compiled),
                handwritten: rate(hand),
                ascent: Some(rate(asc)),
            });
            print_row(rows.last().unwrap());
        }
        for (threads, _) in &pools {
            let opts = RunOptions { threads: Some(*threads), batch: per_batch, ..RunOptions::default() };
            let (mut c, mut h) = (0, 0);
            let compiled = best(reps, || {
                let mut out = Count(0);
                let s = rule_stream(&fide::Package, &input[..], &mut out, &opts).unwrap();
                assert_eq!((s.lines, s.errors), (n as u64, 0));
                c = out.0;
            });
            let hand = best(reps, || {
                let mut out = Count(0);
                let (lines, errors) = handwritten::rule_stream(&input[..], &mut out, *threads, false).unwrap();
                assert_eq!((lines, errors), (n as u64, 0));
                h = out.0;
            });
            assert_eq!(c, h, "end to end: bytes written");
            rows.push(Row {
                cases: n,
                threads: *threads,
                path: "JSONL end to end",
                compiled: rate(compiled),
                handwritten: rate(hand),
                ascent: None,
            });
            print_row(rows.last().unwrap());
        }
        io::stdout().flush().unwrap();
    }
}
