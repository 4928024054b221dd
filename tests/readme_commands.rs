//! The README as written: `.ci/run` runs exactly its test command, which ends with `.ci/done`
//! (the checkout unchanged), and its ruling example is what clir writes.

#[test]
fn ci_runs_the_readmes_test_command() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let after = readme.split("# All the tests").nth(1).expect("the README's two commands");
    let readme_command = after.lines().nth(1).expect("the test command under its comment").trim();
    let ci_command = ci.lines().rfind(|l| !l.trim().is_empty()).unwrap().trim();
    assert_eq!(readme_command, ci_command);
    assert!(ci_command.ends_with("&& bash .ci/done"), "{ci_command}");
}

/// The README's "What a ruling says": the case line it shows is ruled as it shows.
#[test]
fn the_readmes_ruling_is_what_clir_writes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme.split("## What a ruling says").nth(1).expect("the section");
    let case = section.split("For the case line `").nth(1).unwrap().split('`').next().unwrap();
    let shown = section.split("```json\n").nth(1).unwrap().split("\n```").next().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["rule", "--package", "fide.laws.chess"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), format!("{case}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim_end(), shown);
}
