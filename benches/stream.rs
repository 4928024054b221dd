//! `clir stream` (issue 16), loopback only, bounded in count:
//! 1. update throughput: a file of updates (generated games, each added in five parts, the
//!    games interleaved) ruled by 1 worker, 2 workers, and 2 processes of 1 worker;
//! 2. latency to a changed ruling in a live stream: an update written, then a line of the next
//!    time (a time is written once the input has passed it), until the case's line is read;
//! 3. 1% of 10,000 loaded cases changed: the live stream's time to write their new rulings,
//!    against `clir rule` ruling all 10,000 accumulated cases again (process start excluded).
//!
//! `cargo bench -p clir-cli --bench stream`; the processes and this harness share the machine's cores.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "gen.rs"]
mod gen;

#[path = "../tests/support/hosts.rs"]
mod hosts;
use hosts::{cluster_key, hostfile};

const CLIR: &str = env!("CARGO_BIN_EXE_clir");
const PKG: &str = "fide.laws.chess";

/// A generated game: its case name and its facts by relation.
fn games(count: u64, seed: u64) -> Vec<(String, serde_json::Map<String, Value>)> {
    gen::games(count, seed)
        .map(|g| (g["case"].as_str().unwrap().to_string(), g["facts"].as_object().unwrap().clone()))
        .collect()
}

/// Each game's facts in `parts` updates, the games interleaved (no `time`: the line number).
fn interleaved_updates(games: &[(String, serde_json::Map<String, Value>)], parts: usize) -> String {
    let mut out = String::new();
    for part in 0..parts {
        for (case, facts) in games {
            let add: serde_json::Map<String, Value> = facts
                .iter()
                .enumerate()
                .filter(|(i, _)| i % parts == part)
                .map(|(_, (k, v))| (k.clone(), v.clone()))
                .collect();
            out.push_str(&json!({"case": case, "add": add}).to_string());
            out.push('\n');
        }
    }
    out
}

/// How a run is spread: worker threads per process and processes.
#[derive(Clone, Copy)]
struct Shape {
    workers: usize,
    processes: usize,
}

impl Shape {
    fn name(self) -> String {
        match self.processes {
            1 => format!("{} worker{}", self.workers, if self.workers > 1 { "s" } else { "" }),
            n => format!("{n} processes x {} worker", self.workers),
        }
    }

    fn commands(self, dir: &std::path::Path) -> Vec<Command> {
        let hosts = (self.processes > 1).then(|| (hostfile(dir, self.processes), cluster_key(dir)));
        (0..self.processes)
            .map(|i| {
                let mut c = Command::new(CLIR);
                c.args(["stream", "--package", PKG, "--workers", &self.workers.to_string()]);
                if let Some((h, key)) = &hosts {
                    c.args(["--processes", &self.processes.to_string(), "--process", &i.to_string()])
                        .arg("--hostfile")
                        .arg(h)
                        .arg("--cluster-key")
                        .arg(key);
                }
                c
            })
            .collect()
    }
}

/// Rules the update file with `shape`; the wall time of the slowest process and the lines written.
fn throughput(shape: Shape, input: &std::path::Path, dir: &std::path::Path) -> (Duration, usize) {
    let started = Instant::now();
    let children: Vec<Child> = shape
        .commands(dir)
        .into_iter()
        .map(|mut c| c.arg("--input").arg(input).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().unwrap())
        .collect();
    let mut lines = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success());
        lines += out.stdout.iter().filter(|&&b| b == b'\n').count();
    }
    (started.elapsed(), lines)
}

/// A live stream: every process's stdin, and the lines of all of them as `(case, time)` with
/// the instant each was read.
struct Live {
    children: Vec<Child>,
    inputs: Vec<ChildStdin>,
    lines: mpsc::Receiver<(String, u64, Instant)>,
    time: u64,
}

impl Live {
    fn start(shape: Shape, dir: &std::path::Path) -> Live {
        let (tx, lines) = mpsc::channel();
        let mut children = Vec::new();
        let mut inputs = Vec::new();
        for mut c in shape.commands(dir) {
            let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
            inputs.push(child.stdin.take().unwrap());
            let out = BufReader::new(child.stdout.take().unwrap());
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in out.lines() {
                    let line = line.unwrap();
                    let v: Value = serde_json::from_str(&line).unwrap();
                    let case = v["case"].as_str().unwrap_or("").to_string();
                    let _ = tx.send((case, v["time"].as_u64().unwrap(), Instant::now()));
                }
            });
            children.push(child);
        }
        Live { children, inputs, lines, time: 0 }
    }

    /// Writes `lines` (updates without a time) at the next time, then a line of the time after,
    /// so that the first is written; returns that first time.
    fn send(&mut self, lines: &[String]) -> u64 {
        self.time += 1;
        let at = self.time;
        let mut text = String::new();
        for l in lines {
            text.push_str(&l[..l.len() - 1]);
            text.push_str(&format!(",\"time\":{at}}}\n"));
        }
        self.time += 1;
        text.push_str(&format!("{{\"case\":\"tick\",\"time\":{}}}\n", self.time));
        for input in &mut self.inputs {
            input.write_all(text.as_bytes()).unwrap();
            input.flush().unwrap();
        }
        at
    }

    /// Waits for `n` lines of time `at`; the instant the last was read.
    fn wait(&self, at: u64, n: usize) -> Instant {
        let mut seen = 0;
        loop {
            let (_, time, when) = self.lines.recv_timeout(Duration::from_secs(120)).expect("a ruling line");
            if time == at {
                seen += 1;
                if seen == n {
                    return when;
                }
            }
        }
    }

    fn stop(mut self) {
        self.inputs.clear();
        for c in &mut self.children {
            assert!(c.wait().unwrap().success());
        }
    }
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The update that gives `case` all of `facts` (`add`) or none of them (`remove`).
fn toggle(case: &str, facts: &serde_json::Map<String, Value>, add: bool) -> String {
    json!({"case": case, if add { "add" } else { "remove" }: facts}).to_string()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let shapes =
        [Shape { workers: 1, processes: 1 }, Shape { workers: 2, processes: 1 }, Shape { workers: 1, processes: 2 }];

    // 1. Throughput.
    let games2k = games(2000, 2023);
    let updates = interleaved_updates(&games2k, 5);
    let count = updates.lines().count();
    let input = dir.path().join("updates.jsonl");
    std::fs::write(&input, &updates).unwrap();
    println!("Throughput: {count} updates of 2,000 games (five each, interleaved), median of 3 runs");
    println!();
    println!("| shape | wall s | updates/s | lines written |");
    println!("| --- | ---: | ---: | ---: |");
    for shape in shapes {
        let runs: Vec<(Duration, usize)> = (0..3).map(|_| throughput(shape, &input, dir.path())).collect();
        let lines = runs[0].1;
        let wall = median(runs.into_iter().map(|r| r.0).collect());
        println!(
            "| {} | {:.2} | {:.0} | {lines} |",
            shape.name(),
            wall.as_secs_f64(),
            count as f64 / wall.as_secs_f64()
        );
    }

    // 2. Latency to a changed ruling, and 3. 1% of 10,000 cases changed.
    // Games whose ruling is not that of no facts (the others never get a line).
    let concludes = |games: Vec<(String, serde_json::Map<String, Value>)>| {
        let text: String = games.iter().map(|(c, f)| json!({"case": c, "facts": f}).to_string() + "\n").collect();
        let mut child = Command::new(CLIR)
            .args(["rule", "--package", PKG])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        let rulings = String::from_utf8(out.stdout).unwrap();
        let keep: Vec<bool> =
            rulings.lines().map(|l| !l.contains("\"concluded\":{},\"definite\":{},\"contradictions\":[]")).collect();
        games.into_iter().zip(keep).filter(|(_, k)| *k).map(|(g, _)| g).take(10_000).collect::<Vec<_>>()
    };
    let games10k = concludes(games(11_000, 7));
    assert_eq!(games10k.len(), 10_000);
    let load: Vec<String> = games10k.iter().map(|(c, f)| toggle(c, f, true)).collect();
    let hundred: Vec<&(String, serde_json::Map<String, Value>)> = games10k.iter().step_by(100).collect();
    println!();
    println!("Live stream, 10,000 games loaded; latency: one update then a line of the next time, 200 times;");
    println!("1%: 100 games' facts all removed (or added back) at one time, 5 times each way");
    println!();
    println!("| shape | latency p50 ms | p99 ms | 1% changed: ms to all 100 lines (median) |");
    println!("| --- | ---: | ---: | ---: |");
    for shape in shapes {
        let mut live = Live::start(shape, dir.path());
        let at = live.send(&load);
        live.wait(at, load.len());
        let mut latencies = Vec::new();
        for i in 0..200 {
            let (case, facts) = &games10k[(i * 37) % games10k.len()];
            let sent = Instant::now();
            let at = live.send(&[toggle(case, facts, false)]);
            latencies.push(live.wait(at, 1) - sent);
            let at = live.send(&[toggle(case, facts, true)]);
            live.wait(at, 1);
        }
        latencies.sort();
        let mut percent = Vec::new();
        for round in 0..10 {
            let lines: Vec<String> = hundred.iter().map(|(c, f)| toggle(c, f, round % 2 == 1)).collect();
            let sent = Instant::now();
            let at = live.send(&lines);
            percent.push(live.wait(at, lines.len()) - sent);
        }
        live.stop();
        println!(
            "| {} | {:.2} | {:.2} | {:.1} |",
            shape.name(),
            pct(&latencies, 0.5),
            pct(&latencies, 0.99),
            median(percent).as_secs_f64() * 1e3
        );
    }

    // The full re-rule: `clir rule` on all 10,000 accumulated cases, less its start.
    let cases: String = games10k.iter().map(|(c, f)| json!({"case": c, "facts": f}).to_string() + "\n").collect();
    let rule = |text: &str, threads: &str| {
        let started = Instant::now();
        let mut child = Command::new(CLIR)
            .args(["rule", "--package", PKG, "--threads", threads])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
        started.elapsed()
    };
    println!();
    println!("| full re-rule of 10,000 cases by `clir rule` | threads | ms (median of 5, start excluded) |");
    println!("| --- | ---: | ---: |");
    for threads in ["1", "2"] {
        let start = median((0..5).map(|_| rule("", threads)).collect());
        let full = median((0..5).map(|_| rule(&cases, threads)).collect());
        println!("| | {threads} | {:.1} |", (full.saturating_sub(start)).as_secs_f64() * 1e3);
    }
}
