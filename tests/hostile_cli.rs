//! Issue 23: the commands against a hostile or careless user (docs/SECURITY.md). Output files
//! that are devices, FIFOs, symlinks or private; temporary names planted by another user; paths
//! out of the project; standard output that cannot be written; package names that are
//! terminal escape sequences; case ids that JSON numbers cannot hold; inputs that cost more than
//! their size; the cache folder.

use clir_testkit::Package;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const FIDE: &str = "fide.laws.chess";

const REACH: &str = "package demo.reach 1.0.0
type Node
empirical edge(from: Node, to: Node)
institutional reach(from: Node, to: Node)
rule Step strict: reach(x, y) :- edge(x, y)";

fn clir(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A few sample games, as case lines.
fn games(n: usize) -> String {
    let all = std::fs::read_to_string(Path::new(ROOT).join("examples/fide/games.jsonl")).unwrap();
    all.lines().take(n).map(|l| format!("{l}\n")).collect()
}

fn rule_args<'a>(input: &'a str, output: &'a str) -> Vec<&'a str> {
    vec!["rule", "--package", FIDE, "--input", input, "--output", output]
}

/// A null device of the test's own in `dir` where it may make one (root), so that a regression
/// cannot replace the machine's /dev/null; elsewhere /dev/null, which such a user cannot replace.
fn null_device(dir: &Path) -> String {
    let own = dir.join("null");
    let made = Command::new("mknod").args(["-m", "666"]).arg(&own).args(["c", "1", "3"]).status();
    if made.is_ok_and(|s| s.success()) {
        own.to_str().unwrap().to_string()
    } else {
        "/dev/null".to_string()
    }
}

#[test]
fn a_device_output_is_written_in_place_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, games(3)).unwrap();
    let null = null_device(dir.path());
    let null = null.as_str();
    let out = clir(dir.path(), &rule_args(input.to_str().unwrap(), null), b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device(), "{null} was replaced");
    // compile -o and show -o write through the same path.
    let pkg = Path::new(ROOT).join("sources/fide.laws.chess-0.1.0.lawir.json");
    for cmd in ["compile", "show"] {
        let out = clir(dir.path(), &[cmd, pkg.to_str().unwrap(), "-o", null], b"");
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", text(&out.stderr));
        assert!(std::fs::metadata(null).unwrap().file_type().is_char_device(), "{cmd} replaced {null}");
    }
    // A FIFO is written into, and stays a FIFO: its reader gets the rulings.
    let fifo = dir.path().join("rulings.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut got = String::new();
            std::fs::File::open(fifo).unwrap().read_to_string(&mut got).unwrap();
            got
        })
    };
    let out = clir(dir.path(), &rule_args(input.to_str().unwrap(), fifo.to_str().unwrap()), b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(reader.join().unwrap().lines().count(), 3);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
}

#[test]
fn a_wheel_out_that_is_not_a_folder_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "kept\n").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("file", &link).unwrap();
    let null = null_device(dir.path());
    let pkg = Path::new(ROOT).join("sources/fide.laws.chess-0.1.0.lawir.json");
    for out in [null.as_str(), file.to_str().unwrap(), link.to_str().unwrap()] {
        let run = clir(dir.path(), &["wheel", pkg.to_str().unwrap(), "--out", out], b"");
        assert_eq!(run.status.code(), Some(2), "{out}: {}", text(&run.stderr));
        assert!(text(&run.stderr).contains("is not a folder; nothing was built"), "{out}: {}", text(&run.stderr));
    }
    assert!(std::fs::metadata(&null).unwrap().file_type().is_char_device(), "{null} was replaced");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept\n");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
}

#[test]
fn a_symlinked_output_replaces_its_target_and_keeps_the_link_and_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, games(3)).unwrap();
    let target = dir.path().join("private.jsonl");
    std::fs::write(&target, "old\n").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink("private.jsonl", &link).unwrap();
    let out = clir(dir.path(), &rule_args(input.to_str().unwrap(), link.to_str().unwrap()), b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_to_string(&target).unwrap().lines().count(), 3, "the link's target holds the rulings");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "private rulings stay private");
    // Nothing is left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 3, "{left:?}");
}

#[test]
fn planted_temporary_names_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, games(2)).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me\n").unwrap();
    // Another user's links at the temporary names of the next process ids.
    let last: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(std::process::id());
    for pid in last..last + 400 {
        let _ = std::os::unix::fs::symlink(&victim, dir.path().join(format!(".out.jsonl.{pid}.tmp")));
    }
    let output = dir.path().join("out.jsonl");
    let out = clir(dir.path(), &rule_args(input.to_str().unwrap(), output.to_str().unwrap()), b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    assert_eq!(std::fs::read_to_string(&output).unwrap().lines().count(), 2);
}

#[test]
fn standard_output_that_cannot_be_written_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let pkg = Path::new(ROOT).join("sources/fide.laws.chess-0.1.0.lawir.json");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_clir"))
            .args(args)
            .current_dir(dir.path())
            .env("CLIR_CACHE_DIR", dir.path().join("cache"))
            .stdin(Stdio::null())
            .stdout(full())
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    let out = run(&["verify", pkg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "verify: {}", text(&out.stderr));
    let out = run(&["new", "fresh"]);
    assert_eq!(out.status.code(), Some(2), "new: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot write to standard output"), "{}", text(&out.stderr));
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let out = run(&["add", pkg.to_str().unwrap(), "--root", project.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "add: {}", text(&out.stderr));
}

#[test]
fn names_that_are_escape_sequences_reach_the_terminal_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let mut pkg = Package::parse(REACH).unwrap();
    pkg.name = "demo.\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}evil".into();
    pkg.version = "1.0.0\u{1b}[31m".into();
    let file = dir.path().join("evil.lawir.json");
    std::fs::write(&file, pkg.bytes()).unwrap();
    for args in [vec!["verify", file.to_str().unwrap()], vec!["add", file.to_str().unwrap()]] {
        let out = clir(dir.path(), &args, b"");
        let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(shown.contains("evil"), "{args:?}: the name is shown: {shown}");
        assert!(!shown.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{args:?}: raw control characters: {shown:?}");
        assert!(shown.contains("\\u{001b}"), "{args:?}: {shown}");
    }
}

#[test]
fn add_writes_nothing_out_of_the_project_and_keeps_modes() {
    let dir = tempfile::tempdir().unwrap();
    let (project, outside) = (dir.path().join("project"), dir.path().join("outside"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let pkg = Package::parse(REACH).unwrap();
    let file = dir.path().join(pkg.file_name());
    std::fs::write(&file, pkg.bytes()).unwrap();
    let root = project.to_str().unwrap();

    // A path out of the project in law.toml.
    std::fs::write(
        project.join("law.toml"),
        "[dependencies]\n\"demo.reach\" = { version = \"1.0.0\", path = \"../outside/x.json\" }\n",
    )
    .unwrap();
    let out = clir(dir.path(), &["add", file.to_str().unwrap(), "--root", root, "--update"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("leads out of the project"), "{}", text(&out.stderr));
    assert!(!outside.join("x.json").exists());

    // A sources folder that links out of the project.
    std::fs::remove_file(project.join("law.toml")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("sources")).unwrap();
    let out = clir(dir.path(), &["add", file.to_str().unwrap(), "--root", root], b"");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("leads out of the project"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    std::fs::remove_file(project.join("sources")).unwrap();

    // A read-only law.toml stays read-only.
    std::fs::write(project.join("law.toml"), "[dependencies]\n").unwrap();
    std::fs::set_permissions(project.join("law.toml"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = clir(dir.path(), &["add", file.to_str().unwrap(), "--root", root], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mode = std::fs::metadata(project.join("law.toml")).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o444);
    assert!(std::fs::read_to_string(project.join("law.toml")).unwrap().contains("demo.reach"));
}

#[test]
fn add_copies_the_source_texts_its_package_names() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = dir.path().join("upstream");
    std::fs::create_dir_all(upstream.join("sources/texts")).unwrap();
    std::fs::write(upstream.join("sources/texts/en.txt"), "Article 1. An edge is a path.\n").unwrap();
    let mut pkg = Package::parse(&format!(
        "{REACH}\nfragment ART_1 article/1 \"Article 1. An edge is a path.\"\npublication RULES_EN sources/texts/en.txt \"the rules\""
    ))
    .unwrap();
    pkg.hash_sources(&upstream).unwrap();
    let file = upstream.join("sources").join(pkg.file_name());
    std::fs::write(&file, pkg.bytes()).unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let out = clir(dir.path(), &["add", file.to_str().unwrap(), "--root", project.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("not available"), "{}", text(&out.stdout));
    assert_eq!(
        std::fs::read_to_string(project.join("sources/texts/en.txt")).unwrap(),
        "Article 1. An edge is a path.\n"
    );
    // The project verifies with no warning about its source text.
    let out = clir(&project, &["verify", &format!("sources/{}", pkg.file_name())], b"");
    assert!(text(&out.stdout).contains("1 source texts match"), "{}", text(&out.stdout));
}

#[test]
fn case_ids_come_back_as_written() {
    let lines = b"{\"case\":18446744073709551616,\"facts\":{}}\n{\"case\":18446744073709551617,\"facts\":{}}\n\
        {\"case\":1E2,\"facts\":{}}\n{\"case\":-0,\"facts\":{}}\n{\"case\": [1, \"a b\",\t{\"x\" : 1.50}],\"facts\":{}}\n\
        {\"case\":1E2,\"facts\":{\"no_such\":[]}}\n";
    let out = clir(Path::new(ROOT), &["rule", "--package", FIDE], lines);
    let got: Vec<String> = text(&out.stdout)
        .lines()
        .map(|l| l[..l.find(",\"concluded\"").or(l.find(",\"error\"")).unwrap()].to_string())
        .collect();
    assert_eq!(
        got,
        [
            "{\"case\":18446744073709551616",
            "{\"case\":18446744073709551617",
            "{\"case\":1E2",
            "{\"case\":-0",
            "{\"case\":[1,\"a b\",{\"x\":1.50}]",
            "{\"case\":1E2"
        ]
    );
}

/// Runs `clir rule` on `input`, killed if it takes longer than `limit` (a bound far above the
/// linear cost, so that only superlinear work reaches it): its stdout.
fn rule_within(input: Vec<u8>, limit: Duration) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.jsonl");
    std::fs::write(&file, input).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["rule", "--package", FIDE, "--input", file.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("clir rule took longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    reader.join().unwrap()
}

#[test]
fn a_line_of_many_distinct_facts_keys_costs_linear_time() {
    // 300,000 distinct keys of one length (about 4 MB), then the same with one repeated at the
    // end: before the fix, each key was compared with every key before it.
    let keys: Vec<String> = (0..300_000).map(|i| format!("\"r{i:07}\":[]")).collect();
    let line = format!("{{\"case\":1,\"facts\":{{{}}}}}\n", keys.join(","));
    let out = rule_within(line.into_bytes(), Duration::from_secs(30));
    assert!(out.contains("unknown relation `r0000000`"), "{out}");
    let mut keys: Vec<String> = (0..300_000).map(|i| format!("\"game_drawn{i:07}\":[]")).collect();
    keys.insert(0, "\"game_drawn\":[]".into());
    keys.push("\"game_drawn\":[]".into());
    let line = format!("{{\"case\":2,\"facts\":{{{}}}}}\n", keys.join(","));
    let out = rule_within(line.into_bytes(), Duration::from_secs(30));
    assert!(out.contains("duplicate key `game_drawn` in `facts`"), "{out}");
}

#[test]
fn why_not_asks_about_a_bounded_number_of_literals() {
    let asked = |n: usize| {
        let lits: Vec<String> = (0..n).map(|i| format!("\"game_drawn(g{i})\"")).collect();
        format!("{{\"case\":1,\"facts\":{{}},\"why_not\":[{}]}}\n", lits.join(","))
    };
    let out = rule_within(asked(clir::jsonl::MAX_WHY_NOT_PER_CASE).into_bytes(), Duration::from_secs(120));
    assert!(out.contains("\"why_not\""), "{}", &out[..out.len().min(300)]);
    let out = rule_within(asked(clir::jsonl::MAX_WHY_NOT_PER_CASE + 1).into_bytes(), Duration::from_secs(60));
    assert!(out.contains("at most 1024 are answered a case"), "{out}");
}

#[test]
fn the_cache_folder_is_never_relative_empty_or_under_a_folder_others_can_write() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = Path::new(ROOT).join("sources/fide.laws.chess-0.1.0.lawir.json");
    let run = |vars: &[(&str, &str)]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_clir"));
        cmd.args(["run", pkg.to_str().unwrap()]).current_dir(dir.path()).env("CARGO", "false");
        for v in ["CLIR_CACHE_DIR", "XDG_CACHE_HOME", "HOME"] {
            cmd.env_remove(v);
        }
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::null()).output().unwrap()
    };
    for vars in [
        vec![("CLIR_CACHE_DIR", ""), ("XDG_CACHE_HOME", ""), ("HOME", "")],
        vec![("CLIR_CACHE_DIR", "relative/cache")],
        vec![("XDG_CACHE_HOME", "relative")],
    ] {
        let out = run(&vars);
        assert_eq!(out.status.code(), Some(2), "{vars:?}: {}", text(&out.stderr));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{vars:?}: nothing in the current folder");
    }
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let cache = shared.join("cache");
    let out = run(&[("CLIR_CACHE_DIR", cache.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("which others can write"), "{}", text(&out.stderr));
}

#[test]
fn clir_test_writes_its_report_through_the_same_path_and_bounds_a_huge_line() {
    let dir = tempfile::tempdir().unwrap();
    let tests = Path::new(ROOT).join("tests/fide.laws.chess.tests.jsonl");
    let null = null_device(dir.path());
    let null = null.as_str();
    let out = clir(dir.path(), &["test", FIDE, tests.to_str().unwrap(), "--output", null], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device(), "{null} was replaced");
    // A symlinked report: its target gets the report, the link stays a link.
    let target = dir.path().join("report.jsonl");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink("report.jsonl", &link).unwrap();
    let out = clir(dir.path(), &["test", FIDE, tests.to_str().unwrap(), "--output", link.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_to_string(&target).unwrap().lines().count(), 14);
    // A 16 MB line that is no JSON: one failed report line, nothing held past the line.
    let mut huge = vec![b'x'; 16 << 20];
    huge.push(b'\n');
    let out = clir(dir.path(), &["test", FIDE, "-"], &huge);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert_eq!(report.lines().count(), 1, "one report line");
    assert!(report.contains("\"outcome\":\"failed\""), "{report}");
}

#[test]
fn coverage_is_written_through_the_same_path_and_read_only_from_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, games(3)).unwrap();
    let null = null_device(dir.path());
    let null = null.as_str();
    let out_path = dir.path().join("out.jsonl");
    let mut args = rule_args(input.to_str().unwrap(), out_path.to_str().unwrap());
    args.extend(["--coverage", null]);
    let out = clir(dir.path(), &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device(), "{null} was replaced");
    // A symlinked coverage file: its target gets the coverage, the link stays a link.
    let target = dir.path().join("coverage.json");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("coverage.json", &link).unwrap();
    let mut args = rule_args(input.to_str().unwrap(), out_path.to_str().unwrap());
    args.extend(["--coverage", link.to_str().unwrap()]);
    let out = clir(dir.path(), &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&target).unwrap()).unwrap();
    assert_eq!(doc["cases"], 3);
    // `clir coverage` reads the file back, and refuses a FIFO (never waits on it) and a device.
    let out = clir(dir.path(), &["coverage", link.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let fifo = dir.path().join("coverage.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        let out = clir(dir.path(), &["coverage", path], b"");
        assert_eq!(out.status.code(), Some(2), "{path}");
        assert!(text(&out.stderr).contains("not a regular file"), "{path}: {}", text(&out.stderr));
    }
}
