//! What the `clir serve` tests and its load bench share: starting the server on a free loopback
//! port, and what `clir rule` writes for the same lines. Included with `#[path]`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStderr, Command, Stdio};

/// The `clir` binary under test.
pub const CLIR: &str = env!("CARGO_BIN_EXE_clir");

/// Starts `clir serve --package PKG --addr 127.0.0.1:0` with `extra` flags; the child, the
/// address it listens on (its first stderr line says), and the rest of its stderr.
pub fn start(pkg: &str, extra: &[&str]) -> (Child, String, BufReader<ChildStderr>) {
    let mut child = Command::new(CLIR)
        .args(["serve", "--package", pkg, "--addr", "127.0.0.1:0"])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.contains("listening on"), "{first}");
    let addr = first.trim().rsplit("http://").next().unwrap().to_string();
    (child, addr, err)
}

/// What `clir rule --package PKG` writes for `input` with `flags`.
pub fn clir_rule(pkg: &str, flags: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(CLIR)
        .args(["rule", "--package", pkg])
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let text = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&text));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out.stdout
}
