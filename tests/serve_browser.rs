//! The review page in a real browser: Debian's headless `chromium`, driven through
//! `chromedriver` (W3C WebDriver over plain HTTP on loopback). It sees the form say each
//! relation's label and offer the case's entities of a field's type, fills the form, rules a
//! case, opens a derivation and a why-not, sees the why-nots offered bound from the case's own
//! tuples (the player who resigned, not the first player named), asks why not of the second
//! case, sees the page's checker (check.js) accept the certified rulings and name a changed one,
//! sees the coverage of the cases, and saves a screenshot to `target/serve-screenshot.png`.
//!
//! Without `chromedriver` the test is skipped loudly, except under `CI=true`, where it fails:
//! `.ci/browser` installs `chromium` and `chromium-driver` and runs it.

use serde_json::{json, Value};
use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

// Not every helper of the shared module is used here.
#[allow(dead_code)]
#[path = "support/serve.rs"]
mod support;

fn http(addr: &str, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).and_then(|()| s.write_all(body.as_bytes())).map_err(|e| e.to_string())?;
    // Read the head, then Content-Length bytes (chromedriver may keep the connection open).
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let split = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("no response head".into());
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let lower = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    if let Some(len) =
        lower.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse::<usize>().ok())
    {
        while raw.len() < split + 4 + len {
            let n = s.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&buf[..n]);
        }
    } else {
        s.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    }
    let text = &raw[split + 4..];
    // chromedriver may answer chunked.
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let text = if head.contains("transfer-encoding: chunked") { dechunk(text) } else { text.to_vec() };
    serde_json::from_slice(&text).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&text)))
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else { return out };
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 4 + n..];
    }
}

fn base64(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|&c| val(c) as u32).collect();
        let n = v.iter().enumerate().fold(0u32, |acc, (i, x)| acc | (x << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.0.id().to_string()]).status();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

struct Session {
    driver: String,
    id: String,
}

impl Session {
    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let v = http(&self.driver, method, &format!("/session/{}{path}", self.id), body.as_ref()).unwrap();
        assert!(v["value"].get("error").is_none(), "{method} {path}: {v}");
        v["value"].clone()
    }
    /// The element of `css`, waiting up to 20 s for it.
    fn find(&self, css: &str) -> String {
        self.find_by("css selector", css)
    }
    /// The element `using` (a WebDriver locator strategy) finds for `value`, waiting up to 20 s.
    fn find_by(&self, using: &str, value: &str) -> String {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let v = http(
                &self.driver,
                "POST",
                &format!("/session/{}/element", self.id),
                Some(&json!({"using": using, "value": value})),
            )
            .unwrap();
            if let Some(e) = v["value"].get("element-6066-11e4-a52e-4f735466cecf").and_then(Value::as_str) {
                return e.to_string();
            }
            assert!(Instant::now() < until, "no element `{value}`: {v}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    fn click(&self, css: &str) {
        let e = self.find(css);
        self.cmd("POST", &format!("/element/{e}/click"), Some(json!({})));
    }
    fn text(&self, css: &str) -> String {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/text"), None).as_str().unwrap_or_default().to_string()
    }
    fn property(&self, css: &str, name: &str) -> String {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/property/{name}"), None).as_str().unwrap_or_default().to_string()
    }
    /// The text of every element `css` finds, now.
    fn texts(&self, css: &str) -> Vec<String> {
        let found = self.cmd("POST", "/elements", Some(json!({"using": "css selector", "value": css})));
        let ids: Vec<String> = found
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["element-6066-11e4-a52e-4f735466cecf"].as_str().map(str::to_string))
            .collect();
        ids.iter().map(|e| self.cmd("GET", &format!("/element/{e}/text"), None).as_str().unwrap().to_string()).collect()
    }
    fn wait_text(&self, css: &str, want: &str) -> String {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let t = self.text(css);
            if t.contains(want) {
                return t;
            }
            assert!(Instant::now() < until, "`{css}` never said `{want}`: {t}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[test]
fn the_review_page_rules_a_case_checks_it_and_shows_a_derivation_a_why_not_and_coverage() {
    let which = |name: &str| {
        ["/usr/bin", "/usr/local/bin", "/usr/lib/chromium"]
            .iter()
            .map(|d| std::path::Path::new(d).join(name))
            .find(|p| p.exists())
    };
    let on_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let (Some(driver_bin), Some(_)) = (which("chromedriver"), which("chromium")) else {
        assert!(!on_ci, "CI=true but chromium/chromedriver are missing: run .ci/browser");
        eprintln!("\n\n*** SKIPPED: the browser test needs Debian's chromium and chromium-driver (`bash .ci/browser` installs them and runs it) ***\n");
        return;
    };

    let (server, addr, err) = support::start("fide.laws.chess", &[]);
    std::thread::spawn(move || for _ in err.lines() {});
    let _server = Killed(server);

    let port = free_port();
    let driver = Killed(
        Command::new(driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let driver_addr = format!("127.0.0.1:{port}");
    let until = Instant::now() + Duration::from_secs(20);
    while http(&driver_addr, "GET", "/status", None).map_or(true, |v| v["value"]["ready"] != true) {
        assert!(Instant::now() < until, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
        "binary": which("chromium").unwrap(),
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1100"]
    }}}});
    let started = http(&driver_addr, "POST", "/session", Some(&caps)).unwrap();
    let id = started["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {started}")).to_string();
    let s = Session { driver: driver_addr, id };

    s.cmd("POST", "/url", Some(json!({"url": format!("http://{addr}/")})));
    // Each fact form says its relation's label (from the package file); an entity field's
    // placeholder is an entity of its type in the case, else its parameter's name.
    let row = s.wait_text("#rel-player_resigned-desc", "resigns");
    assert_eq!(row, "the player has declared that he/she resigns");
    assert_eq!(s.property("#rel-player_resigned-0", "placeholder"), "w");
    assert_eq!(s.property("#rel-arbiter_of-0", "placeholder"), "g1");
    assert_eq!(s.property("#rel-arbiter_of-1", "placeholder"), "arb1");
    // The form is built from the schema: fill a relation's parameter, add it to the case.
    let input = s.find("#rel-both_players_have_moved-0");
    s.cmd("POST", &format!("/element/{input}/value"), Some(json!({"text": "g1"})));
    s.click("#add");
    let lines = s.find("#lines");
    let value = s.cmd("GET", &format!("/element/{lines}/property/value"), None);
    assert!(value.as_str().unwrap().contains("both_players_have_moved"), "{value}");
    s.click("#rule");
    s.wait_text("#status", "ruling");
    s.wait_text("#rulings", "resignation_has_ended_the_game(g1)");
    // check.js checked the certified ruling in the page; the coverage of the case is shown.
    let checked = s.wait_text("#checked", "checked: ");
    let conclusions: u64 = checked.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(conclusions > 0 && checked.ends_with("conclusions, 0 failures"), "{checked}");
    let coverage = s.wait_text("#coverage", "per article");
    assert!(
        coverage.contains("article/") && coverage.contains("per rule") && coverage.contains("1 case(s)"),
        "{coverage}"
    );
    // Why-not questions are bound from the case's own tuples: b resigned, so the question is
    // why b did not lose (`~king_cannot_be_checkmated(b)` is not concluded), not why w did.
    let asked = s.texts("#rulings .lit.no");
    assert!(asked.iter().any(|q| q == "game_lost_by(g1,b)"), "{asked:?}");
    assert!(!asked.iter().any(|q| q == "game_lost_by(g1,w)"), "{asked:?}");
    // A concluded literal: its derivation with the article.
    s.click("#rulings .lit:not(.no)");
    let detail = s.wait_text("#detail", "Why ");
    assert!(detail.contains("Article") && detail.contains("premises"), "{detail}");
    // A literal not concluded: why not.
    s.click("#rulings .lit.no");
    let detail = s.wait_text("#detail", "Why not");
    let detail = if detail.contains("…") { s.wait_text("#detail", "because") } else { detail };
    assert!(detail.contains("because") || detail.contains("concluded"), "{detail}");

    let png = base64(s.cmd("GET", "/screenshot", None).as_str().unwrap());
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("serve-screenshot.png"), &png).unwrap();
    if std::env::var_os("CLIR_UPDATE_SCREENSHOT").is_some() {
        std::fs::write(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/serve.png"), &png).unwrap();
    }

    // An entity holding a comma: the page writes it as the server does, `"a,b"`, so its
    // derivation is found and its why-not question is one the server accepts.
    let lines = s.find("#lines");
    s.cmd("POST", &format!("/element/{lines}/clear"), Some(json!({})));
    let case = r#"{"case":"q","facts":{"player_of":[["a,b","anand"],["a,b","carlsen"]],"player_resigned":[["carlsen"]]}}
{"case":"r","facts":{"player_of":[["g7","w"],["g7","b"]],"player_resigned":[["b"]]}}"#;
    s.cmd("POST", &format!("/element/{lines}/value"), Some(json!({"text": case})));
    // The placeholder of a Player field is a player of the (first) case.
    let placeholder = s.property("#rel-player_resigned-0", "placeholder");
    assert!(placeholder == "anand" || placeholder == "carlsen", "{placeholder}");
    s.click("#rule");
    s.wait_text("#rulings", "\"a,b\"");
    s.wait_text("#rulings", "game_lost_by(g7,b)");
    let asked = s.texts("#rulings .lit.no");
    assert!(asked.iter().any(|q| q == "game_lost_by(\"a,b\",carlsen)"), "{asked:?}");
    assert!(!asked.iter().any(|q| q == "game_lost_by(\"a,b\",anand)" || q == "game_lost_by(g7,w)"), "{asked:?}");
    // "Ask why not" asks about the case chosen: the second one here.
    s.click("#askcase option[value='1']");
    let ask = s.find("#ask");
    s.cmd("POST", &format!("/element/{ask}/value"), Some(json!({"text": "game_lost_by(g7,b)"})));
    s.click("#askbtn");
    let detail = s.wait_text("#detail", "Why not game_lost_by(g7,b) (case \"r\")");
    let detail = if detail.contains("because") { detail } else { s.wait_text("#detail", "because") };
    assert!(detail.contains("~king_cannot_be_checkmated(b)"), "{detail}");
    let button = |kind: &str| {
        let xpath = format!("//table[@id='rulings']//button[@class='{kind}' and contains(., '\"a,b\"')]");
        let e = s.find_by("xpath", &xpath);
        s.cmd("POST", &format!("/element/{e}/click"), Some(json!({})));
    };
    button("lit");
    let detail = s.wait_text("#detail", "Why ");
    assert!(detail.contains("premises") && !detail.contains("No explanation"), "{detail}");
    button("lit no");
    let detail = s.wait_text("#detail", "Why not");
    let detail = if detail.contains("…") { s.wait_text("#detail", "because") } else { detail };
    assert!(detail.contains("because") || detail.contains("concluded"), "{detail}");
    assert!(!detail.contains("argument"), "the server refused the question: {detail}");

    // A ruling changed after it came: the page's checker names the case, literal and step.
    let tamper = "const r = JSON.parse(rulingLines[0]); delete r.concluded['~game_drawn']; \
                  r.concluded.game_drawn = [['a,b']]; rulingLines[0] = JSON.stringify(r); checkAll();";
    s.cmd("POST", "/execute/sync", Some(json!({"script": tamper, "args": []})));
    let checked = s.wait_text("#checked", "1 failures");
    assert!(checked.starts_with("checked: "), "{checked}");
    let failure = s.wait_text("#failures", "step");
    assert!(
        failure.contains("case \"q\"") && failure.contains("game_drawn(\"a,b\")") && failure.contains("step ruling"),
        "{failure}"
    );

    let _ = http(&s.driver, "DELETE", &format!("/session/{}", s.id), None);
    drop(driver);
}
