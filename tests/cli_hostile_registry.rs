//! Issue 45, item 7: registries that lie and packages a registry must not list. An index that
//! gives the 1.0.0 blob as 2.0.0 (or under another name) is refused by `clir add`; `clir registry
//! publish` holds the version rule `clir add` holds; `clir registry serve` answers only to its
//! own host names and sends `clir serve`'s security headers and a `Cache-Control`.

use clir_testkit::Package;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

const REACH: &str = "package demo.reach 1.0.0
type Node
empirical edge(from: Node, to: Node)
institutional reach(from: Node, to: Node)
rule Step strict: reach(x, y) :- edge(x, y)";

fn clir(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(dir)
        .env_remove("CLIR_REGISTRY")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A registry folder with `pkg`'s blob, and an index of `name` listing it as `version`.
fn registry_listing(dir: &Path, pkg: &Package, name: &str, version: &str) {
    std::fs::create_dir_all(dir.join("blobs")).unwrap();
    std::fs::create_dir_all(dir.join("index")).unwrap();
    std::fs::write(dir.join(format!("blobs/{}.lawir.json", pkg.seal())), pkg.bytes()).unwrap();
    let index = serde_json::json!({"name": name, "versions": [
        {"version": version, "seal": pkg.seal(), "semanticHash": pkg.semantic_hash(), "yanked": false}]});
    std::fs::write(dir.join(format!("index/{name}.json")), index.to_string()).unwrap();
}

#[test]
fn an_index_must_name_the_version_and_name_its_blob_holds() {
    let dir = tempfile::tempdir().unwrap();
    let (reg, project) = (dir.path().join("registry"), dir.path().join("project"));
    std::fs::create_dir_all(&project).unwrap();
    let pkg = Package::parse(REACH).unwrap();
    let url = format!("file://{}", reg.display());
    let env = [("CLIR_REGISTRY", url.as_str())];

    // The 1.0.0 blob listed as 2.0.0: refused, nothing written.
    registry_listing(&reg, &pkg, "demo.reach", "2.0.0");
    for request in ["demo.reach@2.0.0", "demo.reach"] {
        let out = clir(&project, &env, &["add", request]);
        let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{request}: {shown}");
        assert!(shown.contains("expected 2.0.0, found 1.0.0"), "{request}: {shown}");
        assert!(shown.contains("index lists this blob as demo.reach 2.0.0"), "{request}: {shown}");
        assert_eq!(std::fs::read_dir(&project).unwrap().count(), 0, "{request}: something was written");
    }

    // The blob of demo.reach listed under another package's name.
    registry_listing(&reg, &pkg, "demo.other", "1.0.0");
    let out = clir(&project, &env, &["add", "demo.other@1.0.0"]);
    let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("expected demo.other, found demo.reach"), "{shown}");
    assert_eq!(std::fs::read_dir(&project).unwrap().count(), 0, "something was written");

    // An honest index is added.
    registry_listing(&reg, &pkg, "demo.reach", "1.0.0");
    let out = clir(&project, &env, &["add", "demo.reach@1.0.0"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(project.join("sources/demo.reach-1.0.0.lawir.json").is_file());
}

#[test]
fn an_index_listing_a_version_add_refuses_is_not_valid() {
    let dir = tempfile::tempdir().unwrap();
    let (reg, project) = (dir.path().join("registry"), dir.path().join("project"));
    std::fs::create_dir_all(&project).unwrap();
    let pkg = Package::parse(REACH).unwrap();
    registry_listing(&reg, &pkg, "demo.reach", "0.1.0/../../x");
    let url = format!("file://{}", reg.display());
    let out = clir(&project, &[("CLIR_REGISTRY", url.as_str())], &["add", "demo.reach"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is not a version"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&project).unwrap().count(), 0);
}

#[test]
fn publish_refuses_the_versions_add_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("registry");
    for version in ["..".to_string(), "0.1.0/../../x".to_string(), "1".repeat(5000), "1.0\n".to_string()] {
        let mut pkg = Package::parse(REACH).unwrap();
        pkg.version = version.clone();
        let file = dir.path().join("pkg.lawir.json");
        std::fs::write(&file, pkg.bytes()).unwrap();
        let out = clir(dir.path(), &[], &["registry", "publish", reg.to_str().unwrap(), file.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{version:.20}: {err}");
        assert!(err.contains("package.version") && err.contains("is not a version"), "{version:.20}: {err}");
        assert!(!reg.join("index").exists() && !reg.join("blobs").exists(), "{version:.20}: published");
        // `clir add` refuses it, with the same rule.
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let out = clir(dir.path(), &[], &["add", file.to_str().unwrap(), "--root", project.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{version:.20}: {}{}", text(&out.stdout), text(&out.stderr));
        assert!(text(&out.stdout).contains("is not a version"), "{version:.20}: {}", text(&out.stdout));
        assert_eq!(std::fs::read_dir(&project).unwrap().count(), 0, "{version:.20}: add wrote");
    }
}

/// One raw request with `host` as its Host header: status and head.
fn get(addr: &str, path: &str, host: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let raw = text(&raw);
    let head = raw.split("\r\n\r\n").next().unwrap_or_default().to_ascii_lowercase();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head)
}

#[test]
fn serve_checks_the_host_and_sends_security_headers() {
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("registry");
    let pkg = Package::parse(REACH).unwrap();
    registry_listing(&reg, &pkg, "demo.reach", "1.0.0");
    let blob = format!("/blobs/{}.lawir.json", pkg.seal());
    let (server, addr) = serve(&reg, &[]);
    let port = addr.rsplit(':').next().unwrap().to_string();

    // DNS rebinding: a page of another site naming this address is refused.
    for host in ["evil.example", &format!("evil.example:{port}"), "localhost.evil.example"] {
        for path in ["/index/demo.reach.json", blob.as_str()] {
            let (status, head) = get(&addr, path, host);
            assert_eq!(status, 403, "Host {host} {path}: {head}");
            assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        }
    }
    // Its own address and localhost are served.
    for host in [addr.clone(), format!("localhost:{port}"), "LOCALHOST".into(), "[::1]:80".into()] {
        let (status, head) = get(&addr, "/index/demo.reach.json", &host);
        assert_eq!(status, 200, "Host {host}: {head}");
        assert!(head.contains("cache-control: no-cache"), "an index changes when a version is published: {head}");
        let (status, head) = get(&addr, &blob, &host);
        assert_eq!(status, 200, "Host {host}: {head}");
        assert!(head.contains("cache-control: public, max-age=31536000, immutable"), "{head}");
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        assert!(head.contains("content-security-policy: default-src 'none'"), "{head}");
        assert!(head.contains("content-type: application/json"), "{head}");
    }
    let (status, head) = get(&addr, "/index/nothing.json", &addr);
    assert_eq!(status, 404, "{head}");
    assert!(head.contains("cache-control: no-store") && head.contains("nosniff"), "{head}");
    drop(server);

    // A name given with --allow-host is served; others still are not.
    let (_server, addr) = serve(&reg, &["--allow-host", "Laws.Example."]);
    for (host, status) in [("laws.example", 200), ("laws.example:8080", 200), ("evil.example", 403)] {
        let (got, head) = get(&addr, "/index/demo.reach.json", host);
        assert_eq!(got, status, "Host {host}: {head}");
    }
}

/// A running `clir registry serve`, killed when dropped (also when an assertion fails, so that
/// the test run does not wait on it).
struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `clir registry serve DIR` on a free loopback port with `extra` flags: the server and its address.
fn serve(reg: &Path, extra: &[&str]) -> (Served, String) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["registry", "serve", reg.to_str().unwrap(), "--addr", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let server = Served(server);
    assert!(line.contains("listening on http://"), "{line}");
    (server, line.trim().rsplit("http://").next().unwrap().to_string())
}
