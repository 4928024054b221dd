//! Running the `clir` binary under test as a user does. Included with `#[path]`.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `clir ARGS` with `stdin` as its input: its exit status, stdout and stderr.
pub fn clir(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clir runs");
    // A command that refuses its flags exits before it reads its input.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}
