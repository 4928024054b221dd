//! What the `clir serve` tests and its load bench share: starting the server on a free loopback
//! port, and what `clir rule` writes for the same lines. Included with `#[path]`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::{Arc, Mutex};

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

/// A running `clir serve` and its stderr (the request log) as it comes; killed when dropped if
/// it is still running (a test that wants SIGTERM sends it).
pub struct Server {
    /// The server process.
    pub child: Child,
    /// The address it listens on.
    pub addr: String,
    /// Its stderr after the first line, as read so far.
    pub log: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `clir serve --package fide.laws.chess` on a free loopback port with `extra` flags.
    pub fn start(extra: &[&str]) -> Server {
        let (child, addr, err) = start("fide.laws.chess", extra);
        let log = Arc::new(Mutex::new(String::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                let mut l = sink.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        Server { child, addr, log }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
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

/// One HTTP/1.1 request (`Connection: close`) to `addr`; the status, the head, and the body
/// (de-chunked; a chunked body must have arrived whole).
pub fn request(addr: &str, method: &str, path: &str, headers: &[&str], body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(body);
    let (status, head, body) = read_response(&mut s);
    if is_chunked(&head) {
        let (body, whole) = dechunk(&body);
        assert!(whole, "a chunked answer cut off: {head}");
        return (status, head, body);
    }
    (status, head, body)
}

/// Reads a response to the end of the connection: status, head, raw body.
pub fn read_response(s: &mut impl std::io::Read) -> (u16, String, Vec<u8>) {
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, raw[split + 4..].to_vec())
}

/// Whether a response head says its body is chunked.
pub fn is_chunked(head: &str) -> bool {
    head.to_ascii_lowercase().contains("transfer-encoding: chunked")
}

/// The data of a chunked body, and whether its last (empty) chunk arrived.
pub fn dechunk(mut raw: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") else { return (out, false) };
        let Ok(n) = usize::from_str_radix(String::from_utf8_lossy(&raw[..eol]).trim(), 16) else { return (out, false) };
        if n == 0 {
            return (out, true);
        }
        let Some(data) = raw.get(eol + 2..eol + 2 + n) else { return (out, false) };
        out.extend_from_slice(data);
        raw = raw.get(eol + 4 + n..).unwrap_or_default();
    }
}
