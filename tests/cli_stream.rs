//! `clir stream` as users run it: one process, worker threads, and 2 and 3 processes on loopback
//! ports. Every line it writes is checked against a model of CONTRACT.md "Streams of updates"
//! computed here from `clir rule`: each case's facts accumulated with counts, in order of time
//! (a late time taking effect at the latest time read), ruled at every time it was updated, and a
//! line wherever that ruling differs from the one before (at first, the ruling of no facts).

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/hosts.rs"]
mod hosts;
use hosts::hostfile;

const PACKAGE: &str = "fide.laws.chess";

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

/// A small deterministic generator (the tests must not depend on a seed crate's algorithm).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Update lines for the first `cases` games of examples/fide/games.jsonl: each game's facts
/// added a few relations at a time, with facts removed and added again, duplicate additions
/// (one of them then removed: still present), removals of facts never added, lines without a
/// time, and explicit times that go back.
fn updates(cases: usize, seed: u64) -> Vec<String> {
    let games = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    let mut rng = Lcg(seed);
    let mut queues: Vec<(Value, Vec<(String, Value)>)> = Vec::new();
    for line in games.lines().take(cases) {
        let case: Value = serde_json::from_str(line).unwrap();
        let mut facts = Vec::new();
        for (rel, tuples) in case["facts"].as_object().unwrap() {
            for t in tuples.as_array().unwrap() {
                facts.push((rel.clone(), t.clone()));
            }
        }
        queues.push((case["case"].clone(), facts));
    }
    let mut lines = Vec::new();
    let mut time = 0u64;
    while queues.iter().any(|(_, f)| !f.is_empty()) {
        let i = rng.below(queues.len());
        let (case, facts) = &mut queues[i];
        if facts.is_empty() {
            continue;
        }
        let n = 1 + rng.below(4.min(facts.len()));
        let chunk: Vec<(String, Value)> = facts.drain(..n).collect();
        let as_facts = |chunk: &[(String, Value)]| {
            let mut m: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for (r, t) in chunk {
                m.entry(r.clone()).or_default().push(t.clone());
            }
            json!(m)
        };
        let mut line = json!({"case": case, "add": as_facts(&chunk)});
        match rng.below(8) {
            // No time: the line number is the time.
            0 => {}
            // A time the input has passed.
            1 => line["time"] = json!(time.saturating_sub(1 + rng.below(3) as u64)),
            _ => {
                time += 1 + rng.below(2) as u64;
                line["time"] = json!(time);
            }
        }
        lines.push(line.to_string());
        match rng.below(6) {
            // Removed, then added again later.
            0 => {
                lines.push(json!({"case": case, "remove": as_facts(&chunk[..1]), "time": time}).to_string());
                facts.push(chunk[0].clone());
            }
            // Added twice, removed once: still present.
            1 => {
                lines.push(json!({"case": case, "add": as_facts(&chunk[..1]), "time": time}).to_string());
                lines.push(json!({"case": case, "remove": as_facts(&chunk[..1])}).to_string());
            }
            // A removal and an addition in one line.
            2 if chunk.len() > 1 => {
                let both = json!({"case": case, "remove": as_facts(&chunk[1..2]), "add": as_facts(&chunk[1..2])});
                lines.push(both.to_string());
            }
            _ => {}
        }
    }
    lines
}

/// What `clir stream` must write for `lines` (all of them valid updates), sorted by time and case.
fn model(lines: &[String]) -> Vec<String> {
    let mut now = 0u64;
    // Per case (its JSON text): per (relation, tuple JSON), additions less removals.
    let mut counts: BTreeMap<String, BTreeMap<(String, String), i64>> = BTreeMap::new();
    let mut states: Vec<(u64, String, String)> = Vec::new(); // (time, case JSON, case line)
    let mut touched: BTreeMap<(u64, String), ()> = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let u: Value = serde_json::from_str(line).unwrap();
        now = now.max(u["time"].as_u64().unwrap_or(i as u64 + 1));
        let case = u["case"].to_string();
        let c = counts.entry(case.clone()).or_default();
        for (key, diff) in [("add", 1), ("remove", -1)] {
            for (rel, tuples) in u[key].as_object().into_iter().flatten() {
                for t in tuples.as_array().unwrap() {
                    *c.entry((rel.clone(), t.to_string())).or_default() += diff;
                }
            }
        }
        touched.insert((now, case), ());
        // The state of every case touched at a time, taken once the time is over.
        let next = lines.get(i + 1).map(|l| serde_json::from_str::<Value>(l).unwrap());
        let next_time = next.map(|n| now.max(n["time"].as_u64().unwrap_or(i as u64 + 2)));
        if next_time != Some(now) {
            for ((t, case), ()) in std::mem::take(&mut touched) {
                let mut facts: BTreeMap<String, Vec<Value>> = BTreeMap::new();
                for ((rel, tuple), n) in &counts[&case] {
                    if *n > 0 {
                        facts.entry(rel.clone()).or_default().push(serde_json::from_str(tuple).unwrap());
                    }
                }
                let line = format!("{{\"case\":{case},\"facts\":{}}}", json!(facts));
                states.push((t, case, line));
            }
        }
    }
    // Rule every state, and each case without facts, in one `clir rule` run.
    let cases: BTreeSet<&String> = states.iter().map(|(_, c, _)| c).collect();
    let mut input = String::new();
    for (_, _, line) in &states {
        input.push_str(line);
        input.push('\n');
    }
    for case in &cases {
        input.push_str(&format!("{{\"case\":{case},\"facts\":{{}}}}\n"));
    }
    let (code, out, err) = clir(&["rule", "--package", PACKAGE], &input);
    assert_eq!(code, 0, "{err}");
    let rulings: Vec<&str> = out.lines().collect();
    let (states_ruled, empty) = rulings.split_at(states.len());
    let mut last: BTreeMap<&String, &str> = cases.iter().copied().zip(empty.iter().copied()).collect();
    let mut expected = Vec::new();
    for ((time, case, _), ruling) in states.iter().zip(states_ruled) {
        if last[case] != *ruling {
            expected.push(format!("{},\"time\":{time}}}", ruling.strip_suffix('}').unwrap()));
            last.insert(case, ruling);
        }
    }
    sort_by_case_and_time(expected)
}

fn sort_by_case_and_time(mut lines: Vec<String>) -> Vec<String> {
    let key = |l: &String| {
        let v: Value = serde_json::from_str(l).unwrap();
        (v["case"].to_string(), v["time"].as_u64().unwrap())
    };
    lines.sort_by_key(key);
    lines
}

/// Lines in order of time: each line's time is at least the one before's.
fn assert_in_time_order(out: &str) {
    let times: Vec<u64> =
        out.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["time"].as_u64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "lines out of time order: {times:?}");
}

fn spawn_process(
    input: &std::path::Path,
    hosts: &std::path::Path,
    processes: usize,
    process: usize,
    workers: usize,
) -> Child {
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["stream", "--package", PACKAGE, "--connect-timeout", "30"])
        .arg("--input")
        .arg(input)
        .arg("--hostfile")
        .arg(hosts)
        .args(["--processes", &processes.to_string(), "--process", &process.to_string()])
        .args(["--workers", &workers.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `processes` processes on `input`; returns each one's exit status, lines and stderr.
fn run_cluster(input: &str, processes: usize, workers: usize) -> Vec<(i32, String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("updates.jsonl");
    std::fs::write(&path, input).unwrap();
    let hosts = hostfile(dir.path(), processes);
    let children: Vec<Child> = (0..processes).map(|i| spawn_process(&path, &hosts, processes, i, workers)).collect();
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            (
                out.status.code().unwrap_or(-1),
                String::from_utf8(out.stdout).unwrap(),
                String::from_utf8(out.stderr).unwrap(),
            )
        })
        .collect()
}

#[test]
fn one_process_writes_exactly_the_changed_rulings_with_retractions_late_times_and_duplicates() {
    let lines = updates(60, 7);
    assert!(lines.len() > 300, "{}", lines.len());
    let input = lines.join("\n") + "\n";
    let expected = model(&lines);
    for workers in ["1", "2", "3"] {
        let (code, out, err) = clir(&["stream", "--package", PACKAGE, "--workers", workers], &input);
        assert_eq!(code, 0, "{err}");
        assert_in_time_order(&out);
        let got = sort_by_case_and_time(out.lines().map(str::to_string).collect());
        assert_eq!(got.len(), expected.len(), "workers {workers}");
        assert_eq!(got, expected, "workers {workers}");
    }
}

/// `loaded` games added at time 1, then every tenth of them alternately stripped of all its
/// facts and given them back, at `rounds` consecutive times.
fn toggles(loaded: usize, rounds: usize) -> Vec<String> {
    let games = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    let games: Vec<Value> = games.lines().take(loaded).map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut lines: Vec<String> =
        games.iter().map(|g| json!({"case": g["case"], "add": g["facts"], "time": 1}).to_string()).collect();
    for round in 0..rounds {
        let key = if round % 2 == 0 { "remove" } else { "add" };
        for g in games.iter().step_by(10) {
            lines.push(json!({"case": g["case"], key: g["facts"], "time": round + 2}).to_string());
        }
    }
    lines
}

#[test]
fn cases_toggled_at_many_times_read_at_once_get_a_line_at_each() {
    let lines = toggles(300, 12);
    let expected = model(&lines);
    assert_eq!(expected.iter().filter(|l| l.contains("\"time\":13}")).count(), 30);
    for workers in ["1", "2"] {
        let (code, out, err) =
            clir(&["stream", "--package", PACKAGE, "--workers", workers], &(lines.join("\n") + "\n"));
        assert_eq!(code, 0, "{err}");
        assert_eq!(sort_by_case_and_time(out.lines().map(str::to_string).collect()), expected, "workers {workers}");
    }
}

#[test]
fn the_last_line_of_every_case_is_what_clir_rule_gives_for_its_accumulated_facts() {
    let lines = updates(40, 11);
    let (code, out, err) = clir(&["stream", "--package", PACKAGE], &(lines.join("\n") + "\n"));
    assert_eq!(code, 0, "{err}");
    let mut last: BTreeMap<String, Value> = BTreeMap::new();
    for l in out.lines() {
        let mut v: Value = serde_json::from_str(l).unwrap();
        v.as_object_mut().unwrap().remove("time");
        last.insert(v["case"].to_string(), v);
    }
    // The games as case lines: every update of a game adds up to its facts.
    let games = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    let cases: String = games.lines().take(40).map(|l| format!("{l}\n")).collect();
    let (_, ruled, _) = clir(&["rule", "--package", PACKAGE], &cases);
    for ruling in ruled.lines() {
        let v: Value = serde_json::from_str(ruling).unwrap();
        assert_eq!(last.get(&v["case"].to_string()), Some(&v));
    }
}

#[test]
fn two_and_three_processes_write_together_what_one_process_writes() {
    let lines = updates(50, 3);
    let input = lines.join("\n") + "\n";
    let expected = model(&lines);
    for (processes, workers) in [(2, 1), (3, 2)] {
        let results = run_cluster(&input, processes, workers);
        let mut all = Vec::new();
        for (i, (code, out, err)) in results.iter().enumerate() {
            assert_eq!(*code, 0, "process {i} of {processes}: {err}");
            assert_in_time_order(out);
            all.extend(out.lines().map(str::to_string));
        }
        // Each process wrote some cases, and no case is written by two.
        let owners: Vec<BTreeSet<String>> = results
            .iter()
            .map(|(_, out, _)| {
                out.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["case"].to_string()).collect()
            })
            .collect();
        for (i, a) in owners.iter().enumerate() {
            assert!(!a.is_empty(), "process {i} of {processes} wrote nothing");
            for b in &owners[i + 1..] {
                assert!(a.is_disjoint(b));
            }
        }
        assert_eq!(sort_by_case_and_time(all), expected, "{processes} processes");
    }
}

#[test]
fn bad_lines_get_error_lines_once_and_exit_1() {
    let input = concat!(
        "{\"case\":\"a\",\"add\":{\"stalemate_arisen\":[[\"g\"]]}}\n",
        "not json\n",
        "\n",
        "{\"case\":\"b\",\"add\":{\"player_of\":[[\"g\",\"w\",\"x\"]]},\"time\":5}\n",
        "{\"case\":\"c\",\"add\":{\"game_drawn\":[[\"g\"]]}}\n",
        "{\"case\":\"d\",\"facts\":{}}\n",
        "{\"case\":\"e\",\"add\":{\"piece_touched_intentionally\":[[\"w\",\"n\"]]}}\n",
        "{\"case\":\"a\",\"remove\":{\"stalemate_arisen\":[[\"g\"]]},\"time\":9}\n",
    );
    let (code, out, err) = clir(&["stream", "--package", PACKAGE], input);
    assert_eq!(code, 1, "{err}");
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let errors: Vec<&Value> = lines.iter().filter(|l| l.get("error").is_some()).collect();
    assert_eq!(errors.len(), 5, "{out}");
    assert_eq!(errors[0]["case"], Value::Null);
    assert!(errors[0]["error"].as_str().unwrap().starts_with("line 2: not an update"), "{out}");
    assert_eq!(
        errors[1]["error"],
        "line 4: `add`: relation `player_of` takes 2 arguments (game: Game, who: Player), got 3"
    );
    assert_eq!(errors[1]["time"], 5);
    assert!(errors[2]["error"].as_str().unwrap().contains("institutional"), "{out}");
    assert!(errors[3]["error"].as_str().unwrap().contains("unknown field `facts`"), "{out}");
    assert!(errors[4]["error"].as_str().unwrap().contains("judgment:FIDEArbiter"), "{out}");
    // Case a: stalemate at time 1, gone at time 9 (back to the ruling of no facts).
    let a: Vec<&Value> = lines.iter().filter(|l| l["case"] == "a").collect();
    assert_eq!(a.len(), 2, "{out}");
    assert_eq!((a[0]["time"].as_u64(), a[1]["time"].as_u64()), (Some(1), Some(9)));
    assert_eq!(a[0]["concluded"]["game_drawn"], json!([["g"]]));
    assert_eq!(a[1]["concluded"].get("game_drawn"), None);
    // With the grant, the judgment fact is accepted.
    let judged = "{\"case\":\"e\",\"add\":{\"piece_touched_intentionally\":[[\"w\",\"n\"]]}}\n";
    let (code, _, err) = clir(&["stream", "--package", PACKAGE, "--grant", "judgment:FIDEArbiter"], judged);
    assert_eq!(code, 0, "{err}");
    // Two processes: the lines that are not updates are reported by process 0 alone, each once.
    let results = run_cluster(input, 2, 1);
    let unreadable: usize = results.iter().map(|(_, out, _)| out.matches("not an update").count()).sum();
    assert_eq!(unreadable, 2);
    assert_eq!(results[0].1.matches("not an update").count(), 2);
}

#[test]
fn a_process_that_dies_stops_the_others_loudly_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let live = |process: usize| {
        Command::new(env!("CARGO_BIN_EXE_clir"))
            .args(["stream", "--package", PACKAGE, "--processes", "2", "--process", &process.to_string()])
            .arg("--hostfile")
            .arg(&hosts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (mut first, mut second) = (live(0), live(1));
    // Both are connected once process 0 writes a ruling: a time passes only when every
    // process has passed it. Of 16 cases, process 0 owns some.
    let mut updates = String::new();
    for case in 0..16 {
        updates.push_str(&format!("{{\"case\":\"c{case}\",\"add\":{{\"stalemate_arisen\":[[\"g\"]]}},\"time\":1}}\n"));
    }
    updates.push_str("{\"case\":\"c0\",\"time\":2}\n");
    for child in [&mut first, &mut second] {
        child.stdin.as_mut().unwrap().write_all(updates.as_bytes()).unwrap();
        child.stdin.as_mut().unwrap().flush().unwrap();
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let mut lines = std::io::BufReader::new(first.stdout.take().unwrap());
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut lines, &mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(60)).expect("process 0 rules once both are connected");
    assert!(line.contains("\"time\":1"), "{line}");
    second.kill().unwrap();
    let _ = second.wait();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = first.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "process 0 hangs after process 1 died");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(2));
    let mut err = String::new();
    std::io::Read::read_to_string(first.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("peer process is gone"), "{err}");
}

#[test]
fn a_process_whose_peers_never_come_gives_up_after_its_connect_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let hosts = hosts.to_str().unwrap();
    let (code, _, err) = clir(
        &[
            "stream",
            "--package",
            PACKAGE,
            "--processes",
            "2",
            "--process",
            "0",
            "--hostfile",
            hosts,
            "--connect-timeout",
            "1",
        ],
        "",
    );
    assert_eq!(code, 2);
    assert!(err.contains("did not connect within"), "{err}");
    let (code, _, err) = clir(&["stream", "--package", PACKAGE, "--processes", "2", "--process", "2"], "");
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = clir(&["stream", "--package", "no.such.package"], "");
    assert_eq!(code, 2);
    assert!(err.contains("fide.laws.chess"), "{err}");
}

#[test]
fn a_write_error_is_an_error_and_a_closed_reader_is_not() {
    let input = "{\"case\":\"a\",\"add\":{\"stalemate_arisen\":[[\"g\"]]}}\n";
    let (code, out, err) = clir(&["stream", "--package", PACKAGE, "--output", "/dev/full"], input);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("No space left"), "{err}");
    // A reader that stops reading (`| head -1`) ends the stream quietly.
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["stream", "--package", PACKAGE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let many: String =
        (0..20_000).map(|i| format!("{{\"case\":\"c{i}\",\"add\":{{\"stalemate_arisen\":[[\"g\"]]}}}}\n")).collect();
    let _ = child.stdin.take().unwrap().write_all(many.as_bytes());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}
