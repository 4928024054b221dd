//! One way to name a package on every subcommand: `--package PACKAGE` or the positional
//! `PACKAGE`, each a package file or the name of a compiled-in package; a hint when a name is
//! given where only a file will do, and a file where only a compiled-in package will do.
use std::path::Path;
use std::process::{Command, Output};

const FILE: &str = "sources/fide.laws.chess-0.1.0.lawir.json";
const NAME: &str = "fide.laws.chess";

fn clir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run clir")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every subcommand that works on one package takes it both ways, and its help says so.
#[test]
fn every_package_command_takes_package_both_ways() {
    for cmd in ["verify", "compile", "show", "rule", "run", "schema", "test", "check", "serve", "stream", "wheel"] {
        let help = clir(&[cmd, "--help"]);
        let help = text(&help.stdout);
        assert!(help.contains("--package <PACKAGE>"), "clir {cmd} --help lacks --package <PACKAGE>:\n{help}");
        assert!(
            help.contains("[PACKAGE]") || help.contains("<PACKAGE>"),
            "clir {cmd} --help lacks the positional PACKAGE:\n{help}"
        );
    }
}

/// The two forms, and a name or a file, give the same output.
#[test]
fn a_name_and_a_file_and_both_forms_agree() {
    let runs: [&[&str]; 4] = [
        &["schema", NAME],
        &["schema", "--package", NAME],
        &["schema", "--json", NAME],
        &["schema", "--json", "--package", NAME],
    ];
    let outs: Vec<Output> = runs.iter().map(|a| clir(a)).collect();
    for (a, o) in runs.iter().zip(&outs) {
        assert!(o.status.success(), "clir {a:?}: {}", text(&o.stderr));
    }
    assert_eq!(outs[0].stdout, outs[1].stdout);
    assert_eq!(outs[2].stdout, outs[3].stdout);
    let table = text(&outs[0].stdout);
    // The package's label of each relation, under it.
    assert!(table.contains("the player has declared that he/she resigns"), "{table}");
    let json: serde_json::Value = serde_json::from_slice(&outs[2].stdout).unwrap();
    let resigned = json["relations"].as_array().unwrap().iter().find(|r| r["name"] == "player_resigned").unwrap();
    assert_eq!(resigned["label"], "the player has declared that he/she resigns");

    for (a, b) in [
        (vec!["show", FILE], vec!["show", "--package", NAME]),
        (vec!["show", NAME], vec!["show", "--package", FILE]),
        (vec!["compile", "--plan", FILE], vec!["compile", "--plan", "--package", NAME]),
        (vec!["verify", FILE], vec!["verify", "--package", NAME]),
    ] {
        let (x, y) = (clir(&a), clir(&b));
        assert!(x.status.success() && y.status.success(), "{a:?}: {}\n{b:?}: {}", text(&x.stderr), text(&y.stderr));
        assert_eq!(text(&x.stdout), text(&y.stdout), "{a:?} and {b:?} differ");
    }

    let case = r#"{"case":"c1","facts":{"checkmate_delivered":[["g1","w"]]}}"#;
    let rule = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_clir"));
        c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
        c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), case.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let (by_flag, by_position, by_run) =
        (rule(&["rule", "--package", NAME]), rule(&["rule", NAME]), rule(&["run", NAME]));
    assert!(by_flag.status.success());
    assert_eq!(by_flag.stdout, by_position.stdout);
    assert_eq!(by_flag.stdout, by_run.stdout);
}

/// `clir test PACKAGE TESTS` and `clir test --package PACKAGE TESTS` alike.
#[test]
fn test_takes_the_package_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("t.jsonl");
    std::fs::write(
        &tests,
        r#"{"case":"c1","facts":{"checkmate_delivered":[["g1","w"]]},"expect":{"concluded":["game_won_by(g1,w)"]}}"#
            .to_string()
            + "\n",
    )
    .unwrap();
    let tests = tests.to_str().unwrap();
    let (a, b) = (clir(&["test", NAME, tests]), clir(&["test", "--package", NAME, tests]));
    assert_eq!(text(&a.stdout), text(&b.stdout));
    assert_eq!(a.status.code(), b.status.code(), "{}", text(&a.stderr));
    let wrong = clir(&["test", "--package", NAME, NAME, tests]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(text(&wrong.stderr).contains("give only the TESTS file"), "{}", text(&wrong.stderr));
}

/// A name where a file is needed, a misspelt name, and a file where a compiled-in package is.
#[test]
fn hints_say_what_was_meant() {
    let diff = clir(&["diff", NAME, FILE]);
    assert_eq!(diff.status.code(), Some(2));
    let err = text(&diff.stderr);
    assert!(err.contains("`fide.laws.chess` is the name of a package compiled into this clir"), "{err}");

    let typo = clir(&["verify", "fide.laws.chss"]);
    assert_eq!(typo.status.code(), Some(2));
    let err = text(&typo.stderr);
    assert!(err.contains("no package compiled into this clir is named `fide.laws.chss`"), "{err}");
    assert!(err.contains("fide.laws.chess"), "{err}");

    for cmd in ["serve", "stream"] {
        let out = clir(&[cmd, "--package", FILE]);
        assert_eq!(out.status.code(), Some(2), "clir {cmd}");
        let err = text(&out.stderr);
        assert!(err.contains("is a package file") && err.contains("clir add"), "clir {cmd}: {err}");
    }
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(FILE).is_file());
}
