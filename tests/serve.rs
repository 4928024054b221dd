//! `clir serve` as a user meets it: the real binary on a free loopback port (`--addr
//! 127.0.0.1:0`, the bound address read from stderr), plain HTTP/1.1 over a `TcpStream`, and
//! every answer compared with what `clir rule` writes for the same lines and grants.

use std::process::Command;

#[path = "support/serve.rs"]
mod support;
use support::{Server, CLIR};
const PKG: &str = "fide.laws.chess";

impl Server {
    fn request(&self, method: &str, path: &str, headers: &[&str], body: &[u8]) -> (u16, String, Vec<u8>) {
        request(&self.addr, method, path, headers, body)
    }

    fn rulings(&self, query: &str, headers: &[&str], body: &str) -> (u16, String) {
        let path = format!("/v1/packages/{PKG}/rulings{query}");
        let (status, _, out) = self.request("POST", &path, headers, body.as_bytes());
        (status, String::from_utf8(out).unwrap())
    }

    /// SIGTERM; the exit status.
    fn stop(&mut self) -> i32 {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

fn request(addr: &str, method: &str, path: &str, headers: &[&str], body: &[u8]) -> (u16, String, Vec<u8>) {
    support::request(addr, method, path, headers, body)
}

/// What `clir rule` writes for `input` with `flags`.
/// What the service answers for `input`: `clir rule`'s lines, with a missing grant asked of the
/// client's bearer token instead of the command line's `--grant`.
fn clir_rule(flags: &[&str], input: &str) -> String {
    String::from_utf8(support::clir_rule(PKG, flags, input.as_bytes()))
        .unwrap()
        .replace("it is accepted only with --grant ", "it is accepted only from a bearer token that grants ")
}

fn games() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap()
}

const MIXED: &str = concat!(
    "{\"case\":\"a\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\n",
    "\n",
    "not json\n",
    "{\"case\":\"b\",\"facts\":{\"player_of\":[[\"g\",\"w\",\"x\"]]}}\r\n",
    "{\"case\":\"c\",\"facts\":{\"game_drawn\":[[\"g\"]]}}\n",
    "{\"case\":\"d\",\"facts\":{},\"extra\":1}\n",
    "{\"case\":\"e\",\"facts\":{\"piece_touched_intentionally\":[[\"w\",\"n\"]]}}\n",
    "{\"case\":\"r\",\"facts\":{\"player_of\":[[\"g\",\"b\"]],\"player_resigned\":[[\"b\"]]},\"why_not\":[\"resignation_has_ended_the_game(g)\",\"game_lost_by(g,b)\",\"game_drawn(g)\",\"~king_cannot_be_checkmated(b)\"]}\n",
    "{\"case\":\"q\",\"facts\":{},\"why_not\":[\"no_such(g)\"]}\n",
);

#[test]
fn every_endpoint_answers_and_rulings_are_the_bytes_clir_rule_writes() {
    let mut server = Server::start(&[]);
    let (status, head, body) = server.request("GET", "/healthz", &[], b"");
    assert_eq!((status, body.as_slice()), (200, &b"ok"[..]), "{head}");

    let (status, _, body) = server.request("GET", "/v1/packages", &[], b"");
    assert_eq!(status, 200);
    let list: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(list[0]["name"], PKG);
    for key in ["version", "seal", "semanticHash"] {
        assert!(list[0][key].as_str().is_some_and(|v| !v.is_empty()), "{key}: {list}");
    }

    let (status, _, body) = server.request("GET", &format!("/v1/packages/{PKG}/schema"), &[], b"");
    assert_eq!(status, 200);
    let schema: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let relations = schema["relations"].as_array().unwrap();
    let player_of = relations.iter().find(|r| r["name"] == "player_of").unwrap();
    assert_eq!(player_of["kind"], "empirical");
    assert_eq!(player_of["params"][1]["name"], "who");
    assert!(relations.iter().any(|r| r["kind"] == "judgment" && r["capability"] == "judgment:FIDEArbiter"));
    assert!(!schema["constants"].as_array().unwrap().is_empty());
    let rule = &schema["rules"][0];
    for key in ["id", "label", "strength", "head"] {
        assert!(rule[key].is_string(), "{rule}");
    }
    assert!(rule["articles"][0]["locator"].is_string(), "{rule}");

    let (status, head, body) = server.request("GET", "/", &[], b"");
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("content-type: text/html"), "{head}");
    assert!(String::from_utf8(body).unwrap().contains("/v1/packages"));

    // Rulings: a few hundred game endings, and malformed lines, with and without explanations.
    let games = games();
    for (query, flags) in [("", &[][..]), ("?explain=true", &["--explain"][..])] {
        for input in [games.as_str(), MIXED] {
            let (status, out) = server.rulings(query, &[], input);
            assert_eq!(status, 200);
            assert_eq!(out, clir_rule(flags, input), "{query}");
        }
    }
    let (status, head, _) = server.request("POST", &format!("/v1/packages/{PKG}/rulings"), &[], MIXED.as_bytes());
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("content-type: application/x-ndjson"), "{head}");
    let (_, out) = server.rulings("", &[], MIXED);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 8, "one line per non-blank input line");
    assert!(lines[1]["error"].as_str().unwrap().starts_with("line 3: "));
    let refused = lines[5]["error"].as_str().unwrap();
    assert!(refused.ends_with("it is accepted only from a bearer token that grants judgment:FIDEArbiter"), "{refused}");
    assert_eq!(lines[6]["why_not"]["resignation_has_ended_the_game(g)"]["concluded"], true);
    assert_eq!(lines[6]["why_not"]["game_drawn(g)"]["concluded"], false);
    assert!(lines[7]["error"].is_string());

    // Wrong package, wrong method, unknown path, a bad query.
    let (status, _, body) = server.request("POST", "/v1/packages/no.such/rulings", &[], b"{}");
    assert_eq!(status, 404);
    assert!(serde_json::from_slice::<serde_json::Value>(&body).unwrap()["error"].is_string());
    assert_eq!(server.request("GET", "/v1/packages/no.such/schema", &[], b"").0, 404);
    assert_eq!(server.request("GET", &format!("/v1/packages/{PKG}/rulings"), &[], b"").0, 405);
    assert_eq!(server.request("DELETE", "/v1/packages", &[], b"").0, 405);
    assert_eq!(server.request("GET", "/nothing", &[], b"").0, 404);
    assert_eq!(server.rulings("?explain=maybe", &[], MIXED).0, 400);
    // Without --tokens any bearer token is unknown.
    assert_eq!(server.rulings("", &["Authorization: Bearer anything"], MIXED).0, 401);

    assert_eq!(server.stop(), 0);
    let log = server.log.lock().unwrap().clone();
    let requests: Vec<serde_json::Value> =
        log.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(requests.iter().any(|r| r["status"] == 200 && r["cases"] == 300 && r["method"] == "POST"), "{log}");
    assert!(requests.iter().all(|r| r["path"].is_string() && r["ms"].is_number()), "{log}");
    assert!(!log.contains("anything"), "a token was logged: {log}");
}

#[test]
fn certified_rulings_with_their_coverage_and_the_package_file_the_page_checks_them_with() {
    let mut server = Server::start(&[]);
    // The package file, byte for byte: its sha256 is the seal the certificates name.
    let file = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json")).unwrap();
    let (status, head, body) = server.request("GET", &format!("/v1/packages/{PKG}/package"), &[], b"");
    assert_eq!(status, 200, "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    assert!(body == file, "the package file served is not the file");
    assert_eq!(server.request("GET", "/v1/packages/no.such/package", &[], b"").0, 404);
    // The page carries the checker in its one script.
    let (_, _, page) = server.request("GET", "/", &[], b"");
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("const ClirCheck") && !page.contains("// check.js\n"), "check.js is not in the page");

    let games = games();
    for (query, flags) in
        [("?certify=true", &["--certify"][..]), ("?certify=true&explain=true", &["--certify", "--explain"][..])]
    {
        let (status, out) = server.rulings(query, &[], &games);
        assert_eq!(status, 200);
        assert_eq!(out, clir_rule(flags, &games), "{query}");
    }
    let (_, certified) = server.rulings("?certify=true", &[], &games);
    let pkg = clir_check::Package::parse(&file).unwrap();
    for (case, ruling) in games.lines().zip(certified.lines()) {
        assert_eq!(clir_check::check_line(&pkg, case, ruling), clir_check::Verdict::Certified, "{case}");
    }

    // Coverage: the rulings as without it, then one line `{"coverage":…}`, the document
    // `clir rule --coverage` writes for the same cases.
    let (status, out) = server.rulings("?coverage=true", &[], &games);
    assert_eq!(status, 200);
    let (rulings, last) = out.trim_end().rsplit_once('\n').unwrap();
    assert_eq!(format!("{rulings}\n"), clir_rule(&[], &games));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("coverage.json");
    clir_rule(&["--coverage", file.to_str().unwrap()], &games);
    let want: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(last).unwrap(), serde_json::json!({ "coverage": want }));
    assert_eq!(want["cases"], 300);

    for query in ["?certify=maybe", "?coverage=1", "?certify=true&coverage=yes"] {
        let (status, body) = server.rulings(query, &[], MIXED);
        assert_eq!(status, 400, "{query}");
        assert!(body.contains("must be true or false"), "{body}");
    }
    assert_eq!(server.stop(), 0);
}

#[test]
fn judgment_facts_need_a_token_that_grants_them() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, "# arbiters\ns3cret-arbiter judgment:FIDEArbiter\nplain-token judgment:ClubSecretary\n")
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o640)).unwrap();
    let refused = Command::new(CLIR)
        .args(["serve", "--package", PKG, "--addr", "127.0.0.1:0", "--tokens"])
        .arg(&tokens)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("chmod 600"), "{refused:?}");

    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut server = Server::start(&["--tokens", tokens.to_str().unwrap()]);
    let case =
        "{\"case\":\"e\",\"facts\":{\"piece_touched_intentionally\":[[\"w\",\"n\"]],\"player_of\":[[\"g\",\"w\"]]}}\n";
    let input = format!("{case}{}", games());
    let (status, none) = server.rulings("", &[], &input);
    assert_eq!(status, 200);
    assert_eq!(none, clir_rule(&[], &input));
    assert!(none.lines().next().unwrap().contains("\"error\""));
    assert_eq!(server.rulings("", &["Authorization: Bearer wrong"], &input).0, 401);
    assert_eq!(server.rulings("", &["Authorization: Bearer s3cret-arbite"], &input).0, 401);
    assert_eq!(server.rulings("", &["Authorization: Basic s3cret-arbiter"], &input).0, 401);
    let (status, plain) = server.rulings("", &["Authorization: Bearer plain-token"], &input);
    assert_eq!((status, plain.as_str()), (200, none.as_str()), "a known token without this grant");
    let (status, granted) = server.rulings("?explain=true", &["Authorization: Bearer s3cret-arbiter"], &input);
    assert_eq!(status, 200);
    assert_eq!(granted, clir_rule(&["--grant", "judgment:FIDEArbiter", "--explain"], &input));
    assert!(!granted.lines().next().unwrap().contains("\"error\""));
    assert_eq!(server.stop(), 0);
    let log = server.log.lock().unwrap().clone();
    assert!(!log.contains("s3cret") && !log.contains("wrong") && !log.contains("plain-token"), "{log}");
}

#[test]
fn limits_oversize_slow_and_shutdown_with_a_request_in_flight() {
    let mut server = Server::start(&["--max-body", "1000"]);
    let big = "x".repeat(2000);
    let (status, _, _) = server.request("POST", &format!("/v1/packages/{PKG}/rulings"), &[], big.as_bytes());
    assert_eq!(status, 413);
    let (status, _, _) = server.request("POST", &format!("/v1/packages/{PKG}/rulings"), &[], &big.as_bytes()[..1000]);
    assert_eq!(status, 200, "a body of exactly --max-body is read");
    assert_eq!(server.stop(), 0);
    let mut server = Server::start(&["--timeout", "0.001"]);
    let (status, _) = server.rulings("?explain=true", &[], &games().repeat(5));
    assert_eq!(status, 503, "ruling 1,500 cases with explanations takes longer than a millisecond");
    assert_eq!(server.stop(), 0);

    // SIGTERM while a request is being ruled: it is answered in full, then the server exits 0.
    let mut server = Server::start(&["--concurrency", "1"]);
    let input: String = games().repeat(10);
    let addr = server.addr.clone();
    let body = input.clone();
    let in_flight = std::thread::spawn(move || {
        request(&addr, "POST", &format!("/v1/packages/{PKG}/rulings?explain=true"), &[], body.as_bytes())
    });
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert_eq!(server.stop(), 0);
    let (status, _, out) = in_flight.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(String::from_utf8(out).unwrap(), clir_rule(&["--explain"], &input));
}
