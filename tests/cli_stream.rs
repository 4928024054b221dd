//! `clir stream` as users run it: one process, worker threads, and 2 and 3 processes on loopback
//! ports. Every line it writes is checked against a model of docs/FORMAT.md "Stream output lines"
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
use hosts::{cluster_key, hostfile};

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
    let key = hosts.with_file_name("cluster.key");
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["stream", "--package", PACKAGE, "--connect-timeout", "30"])
        .arg("--input")
        .arg(input)
        .arg("--hostfile")
        .arg(hosts)
        .arg("--cluster-key")
        .arg(key)
        .args(["--processes", &processes.to_string(), "--process", &process.to_string()])
        .args(["--workers", &workers.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `processes` processes on `input`; returns each one's exit status, lines and stderr.
fn run_cluster(input: &str, processes: usize, workers: usize) -> Vec<(i32, String, String)> {
    run_cluster_on(&vec![input; processes], workers)
}

/// Runs one process on each of `inputs` (a hostfile and a cluster key in a new folder);
/// returns each one's exit status, lines and stderr.
fn run_cluster_on(inputs: &[&str], workers: usize) -> Vec<(i32, String, String)> {
    let processes = inputs.len();
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), processes);
    cluster_key(dir.path());
    let children: Vec<Child> = (0..processes)
        .map(|i| {
            let path = dir.path().join(format!("updates.{i}.jsonl"));
            std::fs::write(&path, inputs[i]).unwrap();
            spawn_process(&path, &hosts, processes, i, workers)
        })
        .collect();
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
    let key = cluster_key(dir.path());
    let live = |process: usize| {
        Command::new(env!("CARGO_BIN_EXE_clir"))
            .args(["stream", "--package", PACKAGE, "--processes", "2", "--process", &process.to_string()])
            .arg("--hostfile")
            .arg(&hosts)
            .arg("--cluster-key")
            .arg(&key)
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
    let key = cluster_key(dir.path());
    let key = key.to_str().unwrap();
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
            "--cluster-key",
            key,
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

#[test]
fn output_may_name_the_input_file_and_appears_when_the_stream_ends() {
    let lines = updates(20, 5);
    let input = lines.join("\n") + "\n";
    let (code, expected, err) = clir(&["stream", "--package", PACKAGE], &input);
    assert_eq!(code, 0, "{err}");
    assert!(!expected.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("updates.jsonl");
    std::fs::write(&path, &input).unwrap();
    let file = path.to_str().unwrap();
    let (code, out, err) = clir(&["stream", "--package", PACKAGE, "--input", file, "--output", file], "");
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    // A run that fails leaves the file as it was, and no temporary beside it.
    let (code, _, err) = clir(&["stream", "--package", PACKAGE, "--input", "/no/such/file", "--output", file], "");
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

/// `n` updates of case `case`, the i-th adding `stalemate_arisen` of game `gI`, at time i.
fn growing(case: &str, n: usize) -> String {
    (1..=n)
        .map(|i| format!("{{\"case\":{case},\"add\":{{\"stalemate_arisen\":[[\"g{i}\"]]}},\"time\":{i}}}\n"))
        .collect()
}

#[test]
fn a_case_holds_at_most_max_case_facts_and_an_update_beyond_gets_an_error_line() {
    let mut input = growing("\"big\"", 30);
    // Removing two facts makes room for one more.
    input.push_str("{\"case\":\"big\",\"remove\":{\"stalemate_arisen\":[[\"g1\"],[\"g2\"]]},\"time\":40}\n");
    input.push_str("{\"case\":\"big\",\"add\":{\"stalemate_arisen\":[[\"g31\"]]},\"time\":41}\n");
    // An update that adds and removes the same fact changes nothing and is accepted.
    input.push_str(
        "{\"case\":\"big\",\"add\":{\"stalemate_arisen\":[[\"x\"]]},\"remove\":{\"stalemate_arisen\":[[\"x\"]]},\"time\":42}\n",
    );
    input.push_str("{\"case\":\"big\",\"add\":{\"stalemate_arisen\":[[\"g32\"]]},\"time\":43}\n");
    input.push_str("{\"case\":\"big\",\"add\":{\"stalemate_arisen\":[[\"g33\"]]},\"time\":44}\n");
    let (code, out, err) = clir(&["stream", "--package", PACKAGE, "--max-case-facts", "25"], &input);
    assert_eq!(code, 1, "{err}");
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let errors: Vec<&Value> = lines.iter().filter(|l| l.get("error").is_some()).collect();
    assert_eq!(errors.len(), 6, "{out}");
    assert_eq!(errors[0]["error"], "line 26: the case would hold 26 facts; a case of a stream holds at most 25");
    assert_eq!((errors[0]["case"].as_str(), errors[0]["time"].as_u64()), (Some("big"), Some(26)));
    assert_eq!(errors[5]["error"], "line 35: the case would hold 26 facts; a case of a stream holds at most 25");
    // The ruling after the last accepted update: g3..g25, g31 and g32.
    let last = lines.iter().rev().find(|l| l.get("error").is_none()).unwrap();
    assert_eq!(last["time"], 43, "{out}");
    assert_eq!(last["concluded"]["game_drawn"].as_array().unwrap().len(), 25, "{out}");
    // The default bound refuses one update of 10,001 facts and accepts one of 10,000.
    let many = |n: usize| {
        let tuples: Vec<String> = (0..n).map(|i| format!("[\"g{i}\"]")).collect();
        format!("{{\"case\":\"c{n}\",\"add\":{{\"stalemate_arisen\":[{}]}}}}\n", tuples.join(","))
    };
    let (code, out, err) = clir(&["stream", "--package", PACKAGE], &(many(10_000) + &many(10_001)));
    assert_eq!(code, 1, "{err}");
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["case"], "c10000");
    assert_eq!(lines[0]["concluded"]["game_drawn"].as_array().unwrap().len(), 10_000);
    assert_eq!(lines[1]["error"], "line 2: the case would hold 10001 facts; a case of a stream holds at most 10000");
    let (code, _, err) = clir(&["stream", "--package", PACKAGE, "--max-case-facts", "0"], "");
    assert_eq!(code, 2, "{err}");
}

#[test]
fn case_ids_come_back_as_written_and_never_merge() {
    let input = concat!(
        "{\"case\":18446744073709551616,\"add\":{\"stalemate_arisen\":[[\"a\"]]},\"time\":1}\n",
        "{\"case\":18446744073709551617,\"add\":{\"stalemate_arisen\":[[\"b\"]]},\"time\":1}\n",
        "{\"case\":1,\"add\":{\"stalemate_arisen\":[[\"c\"]]},\"time\":2}\n",
        "{\"case\":1.0,\"add\":{\"stalemate_arisen\":[[\"d\"]]},\"time\":2}\n",
        "{\"case\": 1E2 ,\"add\":{\"stalemate_arisen\":[[\"e\"]]},\"time\":3}\n",
        "{\"case\":-0,\"add\":{\"player_of\":[[\"g\"]]},\"time\":3}\n",
    );
    for workers in ["1", "3"] {
        let (code, out, err) = clir(&["stream", "--package", PACKAGE, "--workers", workers], input);
        assert_eq!(code, 1, "{err}");
        let mut lines: Vec<&str> = out.lines().collect();
        lines.sort();
        let starts: Vec<(&str, String)> = lines
            .iter()
            .map(|l| {
                let (case, rest) = l.strip_prefix("{\"case\":").unwrap().split_once(',').unwrap();
                let v: Value = serde_json::from_str(&format!("{{{rest}")).unwrap();
                (case, v.get("concluded").map_or_else(|| "error".into(), |c| c["game_drawn"].to_string()))
            })
            .collect();
        assert_eq!(
            starts,
            [
                ("-0", "error".to_string()),
                ("1", "[[\"c\"]]".into()),
                ("1.0", "[[\"d\"]]".into()),
                ("18446744073709551616", "[[\"a\"]]".into()),
                ("18446744073709551617", "[[\"b\"]]".into()),
                ("1E2", "[[\"e\"]]".into()),
            ],
            "workers {workers}: {out}"
        );
    }
}

#[test]
fn a_case_written_with_white_space_is_the_case_clir_rule_echoes() {
    // `[7, "x"]` and `[7,"x"]` are one case, echoed as `clir rule` echoes it.
    let input = concat!(
        "{\"case\":[7, \"x\"],\"add\":{\"stalemate_arisen\":[[\"a\"]]},\"time\":1}\n",
        "{\"case\":[7,\"x\"],\"add\":{\"stalemate_arisen\":[[\"b\"]]},\"time\":2}\n",
    );
    let (code, out, err) = clir(&["stream", "--package", PACKAGE], input);
    assert_eq!(code, 0, "{err}");
    let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert!(out.lines().all(|l| l.starts_with("{\"case\":[7,\"x\"],")), "{out}");
    assert_eq!(last["concluded"]["game_drawn"], serde_json::json!([["a"], ["b"]]), "{out}");
}

#[test]
fn a_connect_timeout_beyond_a_day_is_refused_without_a_panic() {
    for timeout in ["18446744073709551615", "86401", "0"] {
        let (code, _, err) = clir(
            &["stream", "--package", PACKAGE, "--processes", "2", "--process", "0", "--connect-timeout", timeout],
            "",
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--connect-timeout") && !err.contains("panicked"), "{err}");
    }
}

#[test]
fn several_processes_need_a_cluster_key_only_its_owner_can_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let key = cluster_key(dir.path());
    let run = |extra: &[&str]| {
        let mut args = vec!["stream", "--package", PACKAGE, "--processes", "2", "--process", "1"];
        args.extend(["--hostfile", hosts.to_str().unwrap(), "--connect-timeout", "1"]);
        args.extend(extra);
        clir(&args, "")
    };
    let (code, _, err) = run(&[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs --cluster-key"), "{err}");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, _, err) = run(&["--cluster-key", key.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("chmod 600"), "{err}");
    let short = dir.path().join("short.key");
    std::fs::write(&short, "tooshort\n").unwrap();
    std::fs::set_permissions(&short, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (code, _, err) = run(&["--cluster-key", short.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at least 16"), "{err}");
    let (code, _, err) = run(&["--cluster-key", "/dev/null"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
}

/// Waits for `child` at most `secs` seconds; kills it if it is still running.
fn wait_at_most(mut child: Child, secs: u64) -> (Option<i32>, String, String) {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(secs) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let code = if started.elapsed() < Duration::from_secs(secs) { out.status.code() } else { None };
    (code, String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn strangers_that_connect_first_are_refused_and_the_run_goes_on() {
    use std::net::{Shutdown, TcpStream};
    let lines = updates(30, 13);
    let input = lines.join("\n") + "\n";
    let expected = model(&lines);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("updates.jsonl");
    std::fs::write(&path, &input).unwrap();
    let hosts = hostfile(dir.path(), 2);
    cluster_key(dir.path());
    let first = spawn_process(&path, &hosts, 2, 0, 1);
    let address = std::fs::read_to_string(&hosts).unwrap().lines().next().unwrap().to_string();
    let connect = || {
        let started = Instant::now();
        loop {
            match TcpStream::connect(&address) {
                Ok(s) => break s,
                Err(e) => assert!(started.elapsed() < Duration::from_secs(30), "{e}"),
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // A port scan; a stranger that says it is process 1 as timely's connector would; junk.
    drop(connect());
    let mut stranger = connect();
    stranger.write_all(&1u64.to_be_bytes()).unwrap();
    stranger.shutdown(Shutdown::Write).unwrap();
    let mut junk = connect();
    junk.write_all(&[7u8; 56]).unwrap();
    // A process of another run, with another key, is refused too and says why.
    let other_dir = tempfile::tempdir().unwrap();
    let other_key = other_dir.path().join("other.key");
    std::fs::write(&other_key, "another key, of another run....").unwrap();
    std::fs::set_permissions(&other_key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let mut intruder = Command::new(env!("CARGO_BIN_EXE_clir"));
    intruder
        .args(["stream", "--package", PACKAGE, "--processes", "2", "--process", "1", "--input"])
        .arg(&path)
        .arg("--hostfile")
        .arg(dir.path().join("other-hosts"))
        .arg("--cluster-key")
        .arg(&other_key)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let other_hosts = format!("{address}\n127.0.0.1:0\n");
    std::fs::write(dir.path().join("other-hosts"), other_hosts).unwrap();
    let (code, out, err) = wait_at_most(intruder.spawn().unwrap(), 30);
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert!(err.contains("did not prove that it holds the cluster key"), "{err}");
    drop((stranger, junk));
    let second = spawn_process(&path, &hosts, 2, 1, 1);
    let (code0, out0, err0) = wait_at_most(first, 60);
    let (code1, out1, err1) = wait_at_most(second, 60);
    assert_eq!((code0, code1), (Some(0), Some(0)), "{err0}\n{err1}");
    let all: Vec<String> = out0.lines().chain(out1.lines()).map(str::to_string).collect();
    assert_eq!(sort_by_case_and_time(all), expected);
}

#[test]
fn processes_given_different_inputs_fail_instead_of_writing_partial_rulings() {
    let lines = updates(30, 17);
    let whole = lines.join("\n") + "\n";
    let part = lines[..lines.len() / 2].join("\n") + "\n";
    for inputs in [[whole.as_str(), part.as_str()], [part.as_str(), whole.as_str()]] {
        let results = run_cluster_on(&inputs, 1);
        for (i, (code, _, err)) in results.iter().enumerate() {
            assert_eq!(*code, 2, "process {i}: {err}");
            assert!(err.contains("the processes were given different inputs"), "process {i}: {err}");
        }
    }
}
