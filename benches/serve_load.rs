//! Load on `clir serve` (issue 15), loopback only, bounded in count: requests/s and p50/p99
//! latency for single-case and 1,000-case requests at 1, 16 and 64 concurrent clients, every
//! response checked against `clir rule`'s output; and one 1,000-case request against
//! `clir rule` ruling the same lines (its own report of the ruling time, process start
//! excluded, is not available, so `clir rule` on 1 line is subtracted as the start cost).
//!
//! `cargo bench -p clir-cli --bench serve_load` (the load generator shares the machine's cores).

use std::process::Command;
use std::time::{Duration, Instant};

#[path = "gen.rs"]
mod gen;

#[path = "../tests/support/serve.rs"]
mod support;
const PKG: &str = "fide.laws.chess";

fn post(addr: &str, body: &[u8]) -> Vec<u8> {
    let (status, head, out) = support::request(addr, "POST", &format!("/v1/packages/{PKG}/rulings"), &[], body);
    assert_eq!(status, 200, "{head}");
    out
}

fn clir_rule(input: &[u8]) -> (Vec<u8>, Duration) {
    let started = Instant::now();
    let out = support::clir_rule(PKG, &[], input);
    (out, started.elapsed())
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn main() {
    let all: String = gen::lines(1000, 2023).map(|l| l + "\n").collect();
    let thousand = all.as_bytes().to_vec();
    let single = all.lines().next().unwrap().to_string() + "\n";
    assert_eq!(all.lines().count(), 1000);

    let mut server = support::Server::start(&[]);
    let addr = server.addr.clone();

    let expect_single = clir_rule(single.as_bytes()).0;
    let expect_thousand = clir_rule(&thousand).0;
    println!("| request | clients | requests | req/s | p50 ms | p99 ms | errors |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (what, body, expect, total) in [
        ("1 case", single.as_bytes(), &expect_single, 4000usize),
        ("1,000 cases", &thousand[..], &expect_thousand, 192),
    ] {
        for clients in [1usize, 16, 64] {
            let per = total.div_ceil(clients);
            let started = Instant::now();
            let mut lat: Vec<Duration> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..clients)
                    .map(|_| {
                        s.spawn(|| {
                            (0..per)
                                .map(|_| {
                                    let t = Instant::now();
                                    let out = post(&addr, body);
                                    let d = t.elapsed();
                                    assert!(out == *expect, "a response differs from clir rule's");
                                    d
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
            });
            let wall = started.elapsed().as_secs_f64();
            lat.sort();
            println!(
                "| {what} | {clients} | {} | {:.0} | {:.2} | {:.2} | 0 |",
                lat.len(),
                lat.len() as f64 / wall,
                pct(&lat, 0.5),
                pct(&lat, 0.99)
            );
        }
    }
    // 1,000 cases: the service against `clir rule` (its process start subtracted).
    let runs = 15;
    let mut served: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            post(&addr, &thousand);
            t.elapsed()
        })
        .collect();
    let mut ruled: Vec<Duration> = (0..runs).map(|_| clir_rule(&thousand).1).collect();
    let mut start: Vec<Duration> = (0..runs).map(|_| clir_rule(b"").1).collect();
    served.sort();
    ruled.sort();
    start.sort();
    let (s, r, st) = (pct(&served, 0.5), pct(&ruled, 0.5), pct(&start, 0.5));
    println!(
        "\n1,000 cases, median of {runs}: served {s:.2} ms; clir rule {r:.2} ms of which process start {st:.2} ms, ruling {:.2} ms; ratio {:.2}",
        r - st,
        s / (r - st)
    );
    adversarial_names(&addr);
    assert!(server.log.lock().unwrap().lines().any(|l| l.contains("\"status\":200")), "requests are logged");
    let pid = server.child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(server.child.wait().unwrap().success());
}

/// Issue 25: one case of 100,000 entity names, against the per-request cost of 100,000 ordinary
/// names of the same lengths. The adversarial sets: names that collided in eights under the
/// hand-made hasher clir used before foldhash whatever its seed (a 9-byte name and the same name
/// with 1 to 7 NULs after it), and names that differ only after a 114-byte shared prefix.
fn adversarial_names(addr: &str) {
    const N: usize = 100_000;
    let case = |names: &[String]| -> Vec<u8> {
        let rows: Vec<serde_json::Value> = names.iter().map(|n| serde_json::json!([n])).collect();
        let line = serde_json::json!({"case": "names", "facts": {"checked_piece": rows}});
        (line.to_string() + "\n").into_bytes()
    };
    let padded: Vec<String> =
        (0..N / 8).flat_map(|i| (0..8).map(move |k| format!("e{i:08}{}", "\0".repeat(k)))).collect();
    let prefix = "urn:law:example.org/packages/a-rather-long-shared-prefix#".repeat(2);
    let shared: Vec<String> = (0..N).map(|i| format!("{prefix}{i:08}")).collect();
    // Ordinary names: the same lengths, every byte varying.
    let ordinary = |like: &[String]| -> Vec<String> {
        like.iter()
            .enumerate()
            .map(|(i, n)| {
                let mut x = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                (0..n.len())
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        char::from(b'a' + (x % 26) as u8)
                    })
                    .collect()
            })
            .collect()
    };
    println!("\n| 100,000 names in one case | adversarial ms | ordinary ms | ratio |");
    println!("| --- | ---: | ---: | ---: |");
    for (what, names) in [("padded (old hasher: eights)", padded), ("114-byte shared prefix", shared)] {
        let (bad, good) = (case(&names), case(&ordinary(&names)));
        let runs = 7;
        let (mut tb, mut tg) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            for (body, times) in [(&bad, &mut tb), (&good, &mut tg)] {
                let t = Instant::now();
                let out = post(addr, body);
                times.push(t.elapsed());
                assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1, "one ruling line");
            }
        }
        tb.sort();
        tg.sort();
        let (b, g) = (pct(&tb, 0.5), pct(&tg, 0.5));
        println!("| {what} | {b:.1} | {g:.1} | {:.2} |", b / g);
    }
}
