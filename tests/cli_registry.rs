//! Registries (docs/REGISTRY.md), on loopback and in folders only: `clir registry publish` and
//! `serve`, `clir add NAME@VERSION` and `NAME`, `clir fetch` in a project without its blobs, and
//! registries that lie, truncate, loop, announce 10 GB or never answer: each refused with a
//! message, nothing written.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "support/serve.rs"]
#[allow(dead_code)]
mod serve;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn fide_0_1() -> PathBuf {
    Path::new(ROOT).join("sources/fide.laws.chess-0.1.0.lawir.json")
}

/// The amended 0.2.0 the test kit made (tests/data).
fn fide_0_2() -> PathBuf {
    Path::new(ROOT).join("tests/data/fide.laws.chess-0.2.0.lawir.json")
}

fn seal(bytes: &[u8]) -> String {
    clir_codegen::canonical::seal(bytes)
}

/// `clir ARGS` in `dir` with `env`: exit status, stdout, stderr.
fn clir_in(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .env_remove("CLIR_REGISTRY")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("clir runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A registry folder with FIDE 0.1.0 and 0.2.0 published.
fn published() -> tempfile::TempDir {
    let reg = tempfile::tempdir().unwrap();
    for pkg in [fide_0_1(), fide_0_2()] {
        let (code, out, err) = clir_in(reg.path(), &[], &["registry", "publish", ".", pkg.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.starts_with("published fide.laws.chess"), "{out}");
    }
    reg
}

/// Files under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().is_dir() {
                walk(base, &e.path(), out);
            } else {
                out.push(e.path().strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn publish_serve_add_and_fetch() {
    let reg = published();
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reg.path().join("index/fide.laws.chess.json")).unwrap()).unwrap();
    let versions: Vec<&str> =
        index["versions"].as_array().unwrap().iter().map(|v| v["version"].as_str().unwrap()).collect();
    assert_eq!(versions, ["0.1.0", "0.2.0"]);
    let bytes = std::fs::read(fide_0_1()).unwrap();
    let blob = reg.path().join(format!("blobs/{}.lawir.json", seal(&bytes)));
    assert_eq!(std::fs::read(&blob).unwrap(), bytes, "the blob is stored by its seal, byte-exact");
    // Publishing again is a no-op; other bytes under a published version are refused.
    let (code, out, _) = clir_in(reg.path(), &[], &["registry", "publish", ".", fide_0_1().to_str().unwrap()]);
    assert_eq!((code, out.contains("already published")), (0, true), "{out}");
    let lied = index.to_string().replace(&seal(&bytes), &format!("sha256:{}", "0".repeat(64)));
    std::fs::write(reg.path().join("index/fide.laws.chess.json"), &lied).unwrap();
    let (code, _, err) = clir_in(reg.path(), &[], &["registry", "publish", ".", fide_0_1().to_str().unwrap()]);
    assert_eq!((code, err.contains("never overwritten")), (1, true), "{err}");
    std::fs::write(reg.path().join("index/fide.laws.chess.json"), index.to_string()).unwrap();

    // Served on loopback; a new project adds 0.1.0 by name and version, then the newest.
    let mut server = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["registry", "serve", reg.path().to_str().unwrap(), "--addr", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    let project = tempfile::tempdir().unwrap();
    let env = [("CLIR_REGISTRY", url.as_str())];
    let (code, out, err) = clir_in(project.path(), &env, &["add", "fide.laws.chess@0.1.0"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("fetched fide.laws.chess 0.1.0") && out.contains("the registry's index gives"), "{out}");
    assert_eq!(std::fs::read(project.path().join("sources/fide.laws.chess-0.1.0.lawir.json")).unwrap(), bytes);
    let lock = std::fs::read_to_string(project.path().join("law.lock")).unwrap();
    assert!(lock.contains(&seal(&bytes)), "{lock}");
    let (code, out, err) = clir_in(project.path(), &env, &["add", "fide.laws.chess", "--update"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("fetched fide.laws.chess 0.2.0"), "the newest: {out}");
    let (code, _, err) = clir_in(project.path(), &env, &["add", "fide.laws.chess@9.9.9"]);
    assert_eq!((code, err.contains("no version 9.9.9")), (2, true), "{err}");
    // Read-only, and nothing outside its folder: traversal and other methods get no file.
    let addr = url.trim_start_matches("http://");
    for (method, path) in [
        ("GET", "/index/..%2F..%2Fetc%2Fpasswd.json"),
        ("GET", "/blobs/..%2Findex%2Ffide.laws.chess.json"),
        ("GET", "/index/.hidden.json"),
        ("PUT", "/index/fide.laws.chess.json"),
    ] {
        let (status, head, _) = serve::request(addr, method, path, &[], b"");
        assert!(status == 404 || status == 405, "{method} {path}: {head}");
    }
    let (status, _, body) = serve::request(addr, "GET", "/index/fide.laws.chess.json", &[], b"");
    assert_eq!((status, body), (200, std::fs::read(reg.path().join("index/fide.laws.chess.json")).unwrap()));
    let (status, head, body) = serve::request(addr, "GET", &format!("/blobs/{}.lawir.json", seal(&bytes)), &[], b"");
    assert_eq!((status, body == bytes), (200, true), "the blob, streamed: {head}");
    // A FIFO under a blob's name is not waited on; a symlink out of the folder is not followed.
    let fifo = format!("sha256:{}", "f".repeat(64));
    let made = Command::new("mkfifo").arg(reg.path().join(format!("blobs/{fifo}.lawir.json"))).status().unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("/etc/passwd", reg.path().join("index/passwd.json")).unwrap();
    for path in [format!("/blobs/{fifo}.lawir.json"), "/index/passwd.json".to_string()] {
        let (status, head, _) = serve::request(addr, "GET", &path, &[], b"");
        assert_eq!(status, 404, "{path}: {head}");
    }
    let _ = server.kill();
    let _ = server.wait();

    // A clone without sources/: `clir fetch` brings the pinned blob from law.toml's registry.
    let clone = tempfile::tempdir().unwrap();
    let toml = std::fs::read_to_string(Path::new(ROOT).join("law.toml")).unwrap();
    let registry = format!("\n[registry]\nurl = \"file://{}\"\n", reg.path().display());
    std::fs::write(clone.path().join("law.toml"), toml + &registry).unwrap();
    std::fs::copy(Path::new(ROOT).join("law.lock"), clone.path().join("law.lock")).unwrap();
    let (code, out, err) = clir_in(clone.path(), &[], &["fetch"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("fetched fide.laws.chess 0.1.0"), "{out}");
    assert_eq!(std::fs::read(clone.path().join("sources/fide.laws.chess-0.1.0.lawir.json")).unwrap(), bytes);
    let (code, out, _) = clir_in(clone.path(), &[], &["fetch"]);
    assert_eq!((code, out.contains("is there")), (0, true), "{out}");
}

/// A server on loopback that answers each of `n` connections with `answer(path)` (raw bytes),
/// or holds it open without a word when `answer` gives `None`. Its URL.
fn fake(n: usize, answer: impl Fn(&str, &str) -> Option<Vec<u8>> + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let base = url.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(n) {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).map(|n| n == 1).unwrap_or(false) {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head);
            let path = head.split(' ').nth(1).unwrap_or("").to_string();
            match answer(&base, &path) {
                Some(bytes) => {
                    let _ = stream.write_all(&bytes);
                }
                None => held.push(stream),
            }
        }
    });
    url
}

fn ok(body: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).into_bytes();
    r.extend_from_slice(body);
    r
}

/// An index of fide.laws.chess 0.1.0 sealed `seal`.
fn index_of(seal: &str) -> Vec<u8> {
    let index = serde_json::json!({"name": "fide.laws.chess", "versions": [
        {"version": "0.1.0", "seal": seal, "semanticHash": "sha256:0", "yanked": false}]});
    index.to_string().into_bytes()
}

#[test]
fn lying_truncating_looping_huge_and_silent_registries_are_refused_and_nothing_is_written() {
    let bytes = std::fs::read(fide_0_1()).unwrap();
    let real = seal(&bytes);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "bytes that do not hash to the seal",
            fake(2, {
                let real = real.clone();
                move |_, path| {
                    Some(if path.starts_with("/index/") { ok(&index_of(&real)) } else { ok(b"{\"not\":\"it\"}") })
                }
            }),
            "hashes to",
        ),
        (
            "a truncated blob",
            fake(2, {
                let (real, bytes) = (real.clone(), bytes.clone());
                move |_, path| {
                    Some(if path.starts_with("/index/") {
                        ok(&index_of(&real))
                    } else {
                        let mut r = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", bytes.len()).into_bytes();
                        r.extend_from_slice(&bytes[..100]);
                        r
                    })
                }
            }),
            "truncated",
        ),
        (
            "a redirect loop",
            fake(20, |base, _| {
                Some(
                    format!("HTTP/1.1 302 Found\r\nLocation: {base}/index/x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes(),
                )
            }),
            "redirects",
        ),
        (
            "a redirect off loopback",
            fake(2, |_, _| {
                Some(b"HTTP/1.1 302 Found\r\nLocation: http://example.com/x\r\nContent-Length: 0\r\n\r\n".to_vec())
            }),
            "only on loopback",
        ),
        (
            "10 GB announced",
            fake(2, |_, _| Some(b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n{".to_vec())),
            "announced",
        ),
        ("a server that never answers", fake(2, |_, _| None), "no answer within"),
        ("a 404", fake(2, |_, _| Some(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec())), "404"),
    ];
    for (what, url, says) in cases {
        let project = tempfile::tempdir().unwrap();
        let env = [("CLIR_REGISTRY", url.as_str()), ("CLIR_HTTP_TIMEOUT", "2")];
        let (code, out, err) = clir_in(project.path(), &env, &["add", "fide.laws.chess@0.1.0"]);
        assert_eq!(code, 2, "{what}: {out}{err}");
        assert!(err.contains(says), "{what}: {err}");
        assert!(files(project.path()).is_empty(), "{what}: wrote {:?}", files(project.path()));
    }
    // An index that lies about the seal, in a folder.
    let reg = published();
    let index = reg.path().join("index/fide.laws.chess.json");
    let text = std::fs::read_to_string(&index).unwrap();
    let other = seal(&std::fs::read(fide_0_2()).unwrap());
    std::fs::write(&index, text.replacen(&real, &other, 1).replacen(&other, &real, 1)).unwrap();
    let blob_of_other = reg.path().join(format!("blobs/{other}.lawir.json"));
    std::fs::copy(fide_0_1(), &blob_of_other).unwrap();
    let project = tempfile::tempdir().unwrap();
    let url = format!("file://{}", reg.path().display());
    let (code, _, err) = clir_in(project.path(), &[("CLIR_REGISTRY", url.as_str())], &["add", "fide.laws.chess@0.2.0"]);
    assert_eq!((code, err.contains("hashes to")), (2, true), "{err}");
    assert!(files(project.path()).is_empty());
    // Plain http off loopback is refused before any connection.
    let (code, _, err) =
        clir_in(project.path(), &[("CLIR_REGISTRY", "http://example.com/registry")], &["add", "fide.laws.chess"]);
    assert_eq!((code, err.contains("only on loopback")), (2, true), "{err}");
}

#[test]
fn a_build_without_its_blob_says_which_command_fetches_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(Path::new(ROOT).join("law.toml"), dir.path().join("law.toml")).unwrap();
    std::fs::copy(Path::new(ROOT).join("law.lock"), dir.path().join("law.lock")).unwrap();
    let err = clir_codegen::project::load(dir.path())
        .and_then(|p| {
            let spec = p.packages[0].clone();
            clir_codegen::project::verify_package(&p, &spec).map(|_| ())
        })
        .unwrap_err();
    assert!(err.to_string().contains("clir fetch"), "{err}");
}
