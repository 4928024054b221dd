//! One big recursive case: a road network of 10^3 to 10^6 facts (`Network::generate`), the
//! cities reachable from a capital, ruled by the compiled demo.roads (`evaluate` on a prepared
//! batch of one case), by ascent, by crepe and by a breadth-first search written by hand.
//!
//! `cargo bench -p clir-big-case` prints a markdown table: per size, the median of 5 runs of
//! each (interleaved: compiled, ascent, crepe, search, compiled, ...), in ms and ns per fact,
//! and the ratios of ascent's and crepe's time to the compiled package's (above 1: compiled is
//! faster). `CLIR_BIG_MAX=100000` stops at 10^5 facts; `CLIR_BIG_ONLY=compiled|ascent|crepe|search`
//! runs one engine once on the largest size (for a profiler).

use clir_big_case::{ascent_roads, crepe_roads, demo_roads, search, Network};
use std::hint::black_box;
use std::time::Instant;

/// An engine: its name and what it rules a network with (the number of reachable cities).
type Engine = (&'static str, fn(&Network) -> usize);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let max: usize = std::env::var("CLIR_BIG_MAX").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let sizes: Vec<usize> = [1_000, 10_000, 100_000, 1_000_000].into_iter().filter(|&n| n <= max).collect();
    let engines: [Engine; 4] = [
        ("compiled", |n| {
            let out = black_box(demo_roads::evaluate(&n.batch()));
            out.concluded[clir::slot(demo_roads::REL_REACHABLE, false)].len() / 2
        }),
        ("ascent", |n| ascent_roads::run(n).len()),
        ("crepe", |n| crepe_roads::run(n).len()),
        ("search", |n| search(n).len()),
    ];
    if let Ok(only) = std::env::var("CLIR_BIG_ONLY") {
        let net = Network::generate(*sizes.last().expect("a size"), 7);
        let (_, run) = engines.iter().find(|(name, _)| *name == only).expect("compiled, ascent, crepe or search");
        println!("{only}: {} reachable of {} cities", run(&net), net.cities);
        return;
    }
    println!("| facts | reachable | compiled ms | ascent ms | crepe ms | search ms | compiled ns/fact | ascent / compiled | crepe / compiled |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &size in &sizes {
        let net = Network::generate(size, 7);
        let batch = net.batch();
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); engines.len()];
        let mut reachable = 0;
        for _ in 0..5 {
            for (i, (name, run)) in engines.iter().enumerate() {
                let t = Instant::now();
                let n = if *name == "compiled" {
                    // The batch is prepared once: the compiled figure is `evaluate` alone.
                    black_box(demo_roads::evaluate(&batch)).concluded[clir::slot(demo_roads::REL_REACHABLE, false)]
                        .len()
                        / 2
                } else {
                    run(&net)
                };
                times[i].push(t.elapsed().as_secs_f64() * 1e3);
                if i > 0 {
                    assert_eq!(n, reachable, "{name} agrees");
                } else {
                    reachable = n;
                }
            }
        }
        let ms: Vec<f64> = times.into_iter().map(median).collect();
        let facts = net.facts();
        println!(
            "| {facts} | {reachable} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} | {:.2} | {:.2} |",
            ms[0],
            ms[1],
            ms[2],
            ms[3],
            ms[0] * 1e6 / facts as f64,
            ms[1] / ms[0],
            ms[2] / ms[0]
        );
    }
}
