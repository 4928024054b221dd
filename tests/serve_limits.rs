//! `clir serve` against hostile and careless clients (issue 23): answers streamed, bodies read
//! only in their turn, time limits on request heads, bodies and idle connections, a shutdown
//! that does not wait on them, flags and token files refused, the Host check and security
//! headers, and the review page writing literals as the server does. Loopback only. Nothing
//! here asserts how long something takes: waits are bounded only so that a hang fails the test
//! instead of blocking the run.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/serve.rs"]
mod support;
use support::{request, Server, CLIR};
const PKG: &str = "fide.laws.chess";

/// How long a step may hang before the test gives up on it.
const HANG: Duration = Duration::from_secs(60);

impl Server {
    fn rulings_path(query: &str) -> String {
        format!("/v1/packages/{PKG}/rulings{query}")
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(HANG)).unwrap();
        s
    }

    /// The request log lines written so far.
    fn requests(&self) -> Vec<serde_json::Value> {
        let log = self.log.lock().unwrap().clone();
        log.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// Waits for a request log line that `pred` accepts.
    fn wait_for_log(&self, pred: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
        let until = Instant::now() + HANG;
        loop {
            if let Some(r) = self.requests().into_iter().find(&pred) {
                return r;
            }
            assert!(Instant::now() < until, "no such log line: {}", self.log.lock().unwrap());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM; the exit status.
    fn stop(&mut self) -> i32 {
        Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        exit_code(&mut self.child)
    }
}

/// The exit status of `child`, killing it (and failing) if it has not exited within [`HANG`].
fn exit_code(child: &mut Child) -> i32 {
    let until = Instant::now() + HANG;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the process did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn games() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap()
}

fn json_error(body: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    v["error"].as_str().unwrap_or_else(|| panic!("no error: {v}")).to_string()
}

/// Reads until the connection is closed by the server; what arrived.
fn read_until_closed(s: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return got,
            Err(e) => panic!("the server did not close the connection: {e}"),
        }
    }
}

#[test]
fn answers_stream_and_a_client_that_leaves_stops_its_ruling() {
    let mut server = Server::start(&["--concurrency", "1"]);
    // About 30 MB of answer: far more than the channel and the socket buffers hold.
    let input = games().repeat(10);
    let path = Server::rulings_path("?explain=true");
    let (status, head, body) = request(&server.addr, "POST", &path, &[], input.as_bytes());
    assert_eq!(status, 200);
    assert!(support::is_chunked(&head) && !head.to_ascii_lowercase().contains("content-length"), "{head}");
    assert_eq!(body, support::clir_rule(PKG, &["--explain"], input.as_bytes()));
    server.wait_for_log(|r| r["status"] == 200 && r["cases"] == 3000 && r["complete"] == true);

    // A client that reads the head and leaves: the ruling stops at its next write, the answer
    // is logged as incomplete, and the slot is free for the next request.
    let mut s = server.connect();
    let head = format!("POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n\r\n", server.addr, input.len());
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(input.as_bytes()).unwrap();
    let mut first = [0u8; 64];
    s.read_exact(&mut first).unwrap();
    assert!(first.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&first));
    drop(s);
    let left = server.wait_for_log(|r| r["status"] == 200 && r["complete"] == false);
    assert!(left["cases"].is_null(), "{left}");
    let (status, _, _) = request(&server.addr, "POST", &Server::rulings_path(""), &[], games().as_bytes());
    assert_eq!(status, 200);
    assert_eq!(server.stop(), 0);
}

#[test]
fn a_body_waits_unread_until_its_request_may_be_ruled() {
    let mut server = Server::start(&["--concurrency", "1", "--timeout", "600"]);
    let body = games();
    let path = Server::rulings_path("");
    let head = |expect: bool| {
        let expect = if expect { "Expect: 100-continue\r\n" } else { "" };
        format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{expect}Content-Length: {}\r\n\r\n",
            server.addr,
            body.len()
        )
    };
    // A holds the one slot: its body is being read, half of it sent.
    let mut a = server.connect();
    a.write_all(head(false).as_bytes()).unwrap();
    a.write_all(&body.as_bytes()[..body.len() / 2]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // B asks to send its body: no `100 Continue` while A holds the slot.
    let mut b = server.connect();
    b.write_all(head(true).as_bytes()).unwrap();
    b.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let mut buf = [0u8; 64];
    match b.read(&mut buf) {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        other => panic!("B's body was asked for while A held the slot: {other:?} {}", String::from_utf8_lossy(&buf)),
    }
    // A's body completes: A is answered, then B's body is asked for, sent and ruled.
    a.write_all(&body.as_bytes()[body.len() / 2..]).unwrap();
    let (status, _, _) = support::read_response(&mut a);
    assert_eq!(status, 200);
    b.set_read_timeout(Some(HANG)).unwrap();
    let mut line = Vec::new();
    while !line.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        b.read_exact(&mut byte).unwrap();
        line.push(byte[0]);
    }
    assert!(line.starts_with(b"HTTP/1.1 100 Continue"), "{}", String::from_utf8_lossy(&line));
    b.write_all(body.as_bytes()).unwrap();
    let (status, _, out) = support::read_response(&mut b);
    assert_eq!(status, 200);
    assert!(!out.is_empty());
    assert_eq!(server.stop(), 0);
}

#[test]
fn oversized_bodies_get_json_413_and_no_100_continue() {
    let mut server = Server::start(&["--max-body", "1000"]);
    let path = Server::rulings_path("");
    let mut s = server.connect();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nExpect: 100-continue\r\nContent-Length: 10000000000\r\n\r\n",
        server.addr
    );
    s.write_all(head.as_bytes()).unwrap();
    let got = read_until_closed(&mut s);
    assert!(got.starts_with(b"HTTP/1.1 413"), "{}", String::from_utf8_lossy(&got));
    let split = got.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    assert!(json_error(&got[split + 4..]).contains("--max-body"));

    // A chunked body says no length: it is refused once it passes the limit.
    let mut s = server.connect();
    let head = format!("POST {path} HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding: chunked\r\n\r\n", server.addr);
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(format!("7d0\r\n{}\r\n0\r\n\r\n", "x".repeat(2000)).as_bytes());
    let (status, head, body) = support::read_response(&mut s);
    assert_eq!(status, 413, "{head}");
    assert!(json_error(&body).contains("1000 bytes"));

    let (status, head, body) = request(&server.addr, "POST", &path, &[], "x".repeat(2000).as_bytes());
    assert_eq!(status, 413);
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    json_error(&body);
    assert_eq!(server.stop(), 0);
}

#[test]
fn slow_heads_and_idle_connections_are_closed() {
    let mut server = Server::start(&["--header-timeout", "0.5"]);
    // A head sent a byte at a time, stopping halfway.
    let mut slow = server.connect();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHo").unwrap();
    read_until_closed(&mut slow);
    // A keep-alive connection, idle after its answer.
    let mut idle = server.connect();
    idle.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes()).unwrap();
    let got = read_until_closed(&mut idle);
    assert!(got.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&got));
    // The server still answers.
    assert_eq!(request(&server.addr, "GET", "/healthz", &[], b"").0, 200);
    assert_eq!(server.stop(), 0);
}

#[test]
fn a_body_must_arrive_within_the_time_limit_and_not_trickle() {
    let path = Server::rulings_path("");
    let mut server = Server::start(&["--timeout", "1"]);
    let mut s = server.connect();
    let head = format!("POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: 100\r\n\r\n{{\"case\"", server.addr);
    s.write_all(head.as_bytes()).unwrap();
    let (status, _, body) = support::read_response(&mut s);
    assert_eq!(status, 503);
    assert!(json_error(&body).contains("time limit"));
    assert_eq!(server.stop(), 0);

    // Within a long time limit, a body that trickles is cut off once its grace has passed.
    let mut server = Server::start(&["--timeout", "600"]);
    let mut s = server.connect();
    s.write_all(head.as_bytes()).unwrap();
    let (status, _, body) = support::read_response(&mut s);
    assert_eq!(status, 408);
    assert!(json_error(&body).contains("slower than"));
    assert_eq!(request(&server.addr, "POST", &path, &[], games().as_bytes()).0, 200);
    assert_eq!(server.stop(), 0);
}

#[test]
fn sigterm_does_not_wait_for_idle_or_half_sent_requests() {
    let mut server = Server::start(&["--header-timeout", "3600", "--timeout", "3600"]);
    let _silent = server.connect();
    let mut half = server.connect();
    half.write_all(b"POST /v1/packages HTTP/1.1\r\nHost: x").unwrap();
    let mut kept = server.connect();
    kept.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes()).unwrap();
    let mut buf = [0u8; 12];
    kept.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"HTTP/1.1 200");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(server.stop(), 0, "SIGTERM ends the service although three connections stay open");
}

#[test]
fn time_limits_out_of_range_are_refused() {
    for flag in ["--timeout", "--header-timeout"] {
        for value in ["1e20", "0", "-1", "NaN", "inf", "86401", "soon"] {
            let mut child = Command::new(CLIR)
                .args(["serve", "--package", PKG, "--addr", "127.0.0.1:0", &format!("{flag}={value}")])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let code = exit_code(&mut child);
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            assert_eq!(code, 2, "{flag} {value}: {err}");
            assert!(err.contains(flag) && !err.contains("panicked"), "{flag} {value}: {err}");
        }
    }
}

#[test]
fn token_files_with_a_lone_token_or_capability_or_not_regular_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let refused = |path: &std::path::Path| {
        let mut child = Command::new(CLIR)
            .args(["serve", "--package", PKG, "--addr", "127.0.0.1:0", "--tokens"])
            .arg(path)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let code = exit_code(&mut child);
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        assert_eq!(code, 2, "{err}");
        err
    };
    for (text, why) in [
        ("ok-token judgment:FIDEArbiter\nlonely-token\n", "line 2: the token grants no capability"),
        ("# a comment\njudgment:FIDEArbiter\n", "line 2: `judgment:FIDEArbiter` is a capability where the token"),
    ] {
        let path = dir.path().join("tokens");
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let err = refused(&path);
        assert!(err.contains(why), "{err}");
        assert!(!err.contains("lonely-token"), "a token was printed: {err}");
    }
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").args(["-m", "600"]).arg(&fifo).status().unwrap().success());
    assert!(refused(&fifo).contains("not a regular file"));
}

#[test]
fn other_hosts_are_refused_and_answers_carry_security_headers() {
    let mut server = Server::start(&["--allow-host", "review.example"]);
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    let get = |host: &str, path: &str| {
        let mut s = server.connect();
        s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes()).unwrap();
        support::read_response(&mut s)
    };
    for host in ["evil.example", &format!("evil.example:{port}"), "localhost.evil.example", "review.example.evil"] {
        let (status, _, body) = get(host, "/v1/packages");
        assert_eq!(status, 403, "{host}");
        assert!(json_error(&body).contains("Host"), "{host}");
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "REVIEW.example".to_string(),
        format!("review.example.:{port}"),
    ] {
        assert_eq!(get(&host, "/healthz").0, 200, "{host}");
    }

    let header = |head: &str, name: &str| {
        head.lines()
            .find_map(|l| {
                l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| panic!("no {name}: {head}"))
    };
    for path in ["/v1/packages", "/nothing", "/"] {
        let (_, head, _) = get(&format!("127.0.0.1:{port}"), path);
        assert_eq!(header(&head, "x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header(&head, "x-frame-options"), "DENY", "{path}");
        assert!(header(&head, "content-security-policy").contains("frame-ancestors 'none'"), "{path}");
    }
    // The page's policy allows its own script and style sheet, by hash, and nothing inline else.
    let (_, head, page) = get(&format!("127.0.0.1:{port}"), "/");
    let page = String::from_utf8(page).unwrap();
    let policy = header(&head, "content-security-policy");
    let between = |open: &str, close: &str| {
        let start = page.find(open).unwrap() + open.len();
        &page[start..start + page[start..].find(close).unwrap()]
    };
    for (directive, text) in
        [("script-src", between("<script>", "</script>")), ("style-src", between("<style>", "</style>"))]
    {
        let want = format!("{directive} 'sha256-{}'", base64(&sha256(text.as_bytes())));
        assert!(policy.contains(&want), "{policy} lacks {want}");
    }
    assert!(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'"), "{policy}");
    assert!(!page.contains(" style=\"") && !page.contains(" onclick="), "inline styles and handlers are blocked");
    assert_eq!(server.stop(), 0);
}

fn sha256(bytes: &[u8]) -> Vec<u8> {
    let text = clir_codegen::canonical::sha256_hex(bytes);
    let hex = text.strip_prefix("sha256:").unwrap();
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

fn base64(bytes: &[u8]) -> String {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() { alphabet[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// The characters the review page writes an entity as a JSON string for: its `ENTITY_QUOTED`
/// class, read from the page (`\uXXXX` escapes and ranges of them).
fn page_quoted_class() -> Vec<(u32, u32)> {
    let page = include_str!("../src/cli/serve/page.html");
    let start = page.find("const ENTITY_QUOTED = /[").expect("the page defines ENTITY_QUOTED") + 24;
    let class = &page[start..start + page[start..].find("]/").unwrap()];
    let mut ranges = Vec::new();
    let mut rest = class;
    let escape = |s: &str| u32::from_str_radix(s.strip_prefix("\\u").unwrap().get(..4).unwrap(), 16).unwrap();
    while !rest.is_empty() {
        let lo = escape(rest);
        rest = &rest[6..];
        let hi = match rest.strip_prefix('-') {
            Some(r) => {
                rest = &r[6..];
                escape(r)
            }
            None => lo,
        };
        ranges.push((lo, hi));
    }
    ranges
}

#[test]
fn the_page_writes_literals_as_the_server_does() {
    // The page quotes exactly the characters the server quotes.
    let class = page_quoted_class();
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let server = clir::batch::entity_text(&c.to_string()).starts_with('"');
        let page = class.iter().any(|&(lo, hi)| (lo..=hi).contains(&(c as u32)));
        assert_eq!(page, server, "U+{:04X}", c as u32);
    }
    // What the page builds for the entity `a,b` names the server's explanation and is a
    // question the server answers.
    let mut server = Server::start(&[]);
    let case = r#"{"case":"q","facts":{"player_of":[["a,b","w"],["a,b","b"]],"player_resigned":[["b"]]},"why_not":["game_drawn(\"a,b\")"]}"#;
    let (status, _, out) =
        request(&server.addr, "POST", &Server::rulings_path("?explain=true"), &[], format!("{case}\n").as_bytes());
    assert_eq!(status, 200);
    let ruling: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(ruling["error"].is_null(), "{ruling}");
    assert!(ruling["explanations"]["resignation_has_ended_the_game(\"a,b\")"].is_object(), "{ruling}");
    assert_eq!(ruling["why_not"]["game_drawn(\"a,b\")"]["concluded"], false, "{ruling}");
    assert_eq!(server.stop(), 0);
}
