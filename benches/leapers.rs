//! clir's leapers against datafrog's own, in one run (issue 24): the join
//! `reach2(c, x, z) :- reach(c, x, y), edge(c, y, z)`, every tuple keyed by its case `c`, as
//! (1) datafrog's `ExtendWith` over `((c, y), z)` pairs built from `edge` (what a plain datafrog
//! program must build), (2) clir's `ExtendBy` over `edge`'s own `(c, y, z)` tuples, galloping
//! from the last key, and (3) the nested loop over `clir::rt::Probe` that generated code runs
//! today. Prints the median of 9 runs of each and the ratios. `cargo bench --bench leapers`.

use clir::rt::{ExtendBy, Probe, Relation};
use datafrog::ExtendWith;
use std::time::{Duration, Instant};

/// A relation of `(case, city, city)`.
type Cities = Relation<(u32, u32, u32)>;

/// `n` cases of a chain of 8 cities, `reach` from every city to the next one.
fn input(cases: u32) -> (Cities, Cities) {
    let mut reach = Vec::new();
    let mut edge = Vec::new();
    for c in 0..cases {
        for city in 0..8u32 {
            edge.push((c, city, (city + 1) % 8));
            edge.push((c, city, (city + 3) % 8));
            reach.push((c, city, (city + 1) % 8));
        }
    }
    (Relation::from_vec(reach), Relation::from_vec(edge))
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time<R>(mut f: impl FnMut() -> R) -> (Duration, R) {
    let mut runs = Vec::new();
    let mut out = None;
    for _ in 0..9 {
        let start = Instant::now();
        let r = f();
        runs.push(start.elapsed());
        out = Some(r);
    }
    (median(runs), out.expect("nine runs"))
}

fn main() {
    println!("| tuples of `reach` | datafrog ExtendWith (pairs built) | clir ExtendBy | nested loop over Probe | ExtendBy / ExtendWith | ExtendBy / loop |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for cases in [1_000u32, 10_000, 100_000] {
        let (reach, edge) = input(cases);
        let (with, a) = time(|| {
            let pairs = Relation::from_iter(edge.iter().map(|&(c, y, z)| ((c, y), z)));
            Relation::from_leapjoin(
                &reach,
                ExtendWith::from(&pairs, |&(c, _, y): &(u32, u32, u32)| (c, y)),
                |&(c, x, _), &z| (c, x, z),
            )
        });
        let (by, b) = time(|| {
            Relation::from_leapjoin(
                &reach,
                ExtendBy::new(
                    &edge[..],
                    |&(c, _, y): &(u32, u32, u32)| (c, y),
                    |t: &(u32, u32, u32)| (t.0, t.1),
                    |t: &(u32, u32, u32)| &t.2,
                ),
                |&(c, x, _), &z| (c, x, z),
            )
        });
        let (lp, l) = time(|| {
            let mut out = Vec::new();
            let mut probe = Probe::new(&edge[..]);
            for &(c, x, y) in reach.iter() {
                for &(_, _, z) in probe.seek((c, y), |t| (t.0, t.1)) {
                    out.push((c, x, z));
                }
            }
            Relation::from_vec(out)
        });
        assert!(a.elements == b.elements && b.elements == l.elements, "the three agree");
        let ms = |d: Duration| format!("{:.3} ms", d.as_secs_f64() * 1e3);
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} |",
            reach.len(),
            ms(with),
            ms(by),
            ms(lp),
            by.as_secs_f64() / with.as_secs_f64(),
            by.as_secs_f64() / lp.as_secs_f64()
        );
    }
}
