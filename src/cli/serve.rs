//! `clir serve`: the HTTP service of CONTRACT.md "The service" for the compiled-in packages.
//!
//! Rulings are made by [`clir::runner::rule_stream`], the very path `clir rule` takes (same
//! batches, same line numbers, same bytes), on a blocking thread off the async runtime, and
//! stream into the response body as they are written, through a bounded channel: a client that
//! reads slowly slows its own ruling instead of growing the server's memory. A semaphore bounds
//! the requests being ruled at once; a request takes its place in it before its body is read,
//! so at most `--concurrency` bodies are held. Each request has a time limit from its arrival
//! to the end of its answer (`503`, or an answer cut off) and a body limit (`413`).
//!
//! The server accepts connections itself, on hyper: at most `--max-connections` are open, a
//! request head must arrive within `--header-timeout` (which also closes idle keep-alive
//! connections), a Host header must name this server (against DNS rebinding), and every answer
//! carries security headers. SIGTERM finishes the answers in progress and drops the rest. One
//! JSON line per request goes to stderr.

use super::{note, CANNOT_RUN, OK};
use axum::body::{Body, Bytes};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clir::runner::{rule_stream, RunOptions};
use clir::{Package, RelationKind};
use http_body::{Body as HttpBody, Frame, SizeHint};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::io::{self, Write};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;
use tokio::sync::mpsc;

/// Options of `clir serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// A compiled-in package to serve (repeat the flag for several).
    #[arg(long, value_name = "NAME", required = true)]
    pub package: Vec<String>,
    /// Where to listen; port 0 picks a free port (the bound address is said on stderr).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Bearer tokens and what they grant: lines `TOKEN judgment:AUTHORITY…` (`#` comments);
    /// refused when its group or others have any permission on it.
    #[arg(long, value_name = "FILE")]
    pub tokens: Option<PathBuf>,
    /// The largest request body accepted, in bytes; a larger one gets 413.
    #[arg(long, value_name = "N", default_value_t = 64 << 20)]
    pub max_body: usize,
    /// Seconds a rulings request may take from its arrival to the end of its answer (the wait
    /// for its turn and the upload included); a longer one gets 503, or its answer is cut off
    /// (at most 86400).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = seconds)]
    pub timeout: f64,
    /// Requests ruled at once; more wait their turn, their bodies unread [default: one per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub concurrency: Option<u16>,
    /// Seconds a connection may take to send a request head, and may stay idle between
    /// requests, before it is closed (at most 86400).
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = seconds)]
    pub header_timeout: f64,
    /// Connections open at once; more wait in the listen queue.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections: u32,
    /// A host name that requests may name in their Host header, besides `localhost`, IP
    /// addresses and the host of `--addr` (repeat for several; `*` allows any).
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
}

/// The longest time limit accepted, in seconds (a day): a `Duration` of it cannot overflow.
const MAX_SECS: f64 = 86_400.0;

/// Parses a time limit: a number of seconds above 0 and at most [`MAX_SECS`].
fn seconds(text: &str) -> Result<f64, String> {
    let secs: f64 = text.trim().parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if secs > 0.0 && secs <= MAX_SECS {
        Ok(secs)
    } else {
        Err(format!("must be more than 0 and at most {MAX_SECS} seconds"))
    }
}

/// A package served: the compiled package and its pins from law.lock.
struct Served {
    name: &'static str,
    pkg: &'static dyn Package,
    semantic_hash: String,
}

/// A bearer token of `--tokens`: the sha256 of its text (compared in constant time) and the
/// capabilities it grants.
struct Token {
    digest: [u8; 32],
    grants: Vec<String>,
}

/// What every request handler sees.
struct Shared {
    packages: Vec<Served>,
    tokens: Vec<Token>,
    permits: Arc<tokio::sync::Semaphore>,
    timeout: Duration,
    threads: usize,
    max_body: u64,
    hosts: Hosts,
    /// The `Content-Security-Policy` of the review page: its one script and one style sheet, by
    /// hash, and requests to this server only.
    page_policy: HeaderValue,
}

/// The number of cases an answer ruled, for the request log; known once the answer has ended.
#[derive(Clone, Default)]
struct Cases(Arc<OnceLock<u64>>);

/// The requests of one connection whose answer has not ended, so that shutdown can tell a
/// connection with an answer to finish from an idle or half-sent one.
#[derive(Clone, Default)]
struct Busy(Arc<AtomicUsize>);

/// Counts one request of a connection as in progress until dropped.
struct InProgress(Arc<AtomicUsize>);

impl InProgress {
    fn new(busy: &Busy) -> InProgress {
        busy.0.fetch_add(1, Ordering::SeqCst);
        InProgress(busy.0.clone())
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The review page (one file: HTML, CSS and JavaScript, no build step, nothing fetched).
const PAGE: &str = include_str!("serve_page.html");

/// The pins of the compiled-in packages, for `semanticHash`.
const LAW_LOCK: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/law.lock"));

/// Bytes of answer sent to the response body at a time.
const PIECE: usize = 64 << 10;

/// Pieces of answer waiting for the client; a ruling thread that gets this far ahead waits.
const PIECES_AHEAD: usize = 8;

/// Seconds a request body may take before it must arrive at [`BODY_MIN_RATE`].
const BODY_GRACE: Duration = Duration::from_secs(5);

/// Bytes a second a request body must average once [`BODY_GRACE`] has passed: a client that
/// trickles its body holds a concurrency slot for seconds, not for the whole time limit.
const BODY_MIN_RATE: f64 = 16.0 * 1024.0;

/// How long shutdown waits for a connection with no answer in progress (a request head not
/// yet complete, an answer being flushed) before dropping it.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// Runs the service until SIGTERM or Ctrl-C; exit 0 once the answers in progress have ended,
/// 2 when it cannot start.
pub fn run(args: &ServeArgs) -> u8 {
    match start(args) {
        Ok(()) => OK,
        Err(msg) => {
            note("serve", msg);
            CANNOT_RUN
        }
    }
}

fn start(args: &ServeArgs) -> Result<(), String> {
    let mut packages = Vec::new();
    for name in &args.package {
        let pkg = super::run::compiled_package(name)?;
        let name = pkg.schema().package;
        if packages.iter().any(|s: &Served| s.name == name) {
            continue;
        }
        let semantic_hash = pinned(name, "semanticHash").unwrap_or_default();
        packages.push(Served { name, pkg, semantic_hash });
    }
    let tokens = match &args.tokens {
        Some(path) => read_tokens(path)?,
        None => Vec::new(),
    };
    let limit = |flag: &str, secs: f64| {
        Duration::try_from_secs_f64(secs).map_err(|_| format!("{flag} must be a positive number of seconds"))
    };
    let timeout = limit("--timeout", args.timeout)?;
    let header_timeout = limit("--header-timeout", args.header_timeout)?;
    let hosts = Hosts::new(&args.addr, &args.allow_host)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let concurrency = args.concurrency.map_or(cores, usize::from);
    let shared = Arc::new(Shared {
        packages,
        tokens,
        permits: Arc::new(tokio::sync::Semaphore::new(concurrency)),
        timeout,
        threads: cores,
        max_body: args.max_body as u64,
        hosts,
        page_policy: page_policy(PAGE),
    });
    let app = Router::new()
        .route("/", get(page))
        .route("/healthz", get(|| async { "ok" }))
        .route("/v1/packages", get(list))
        .route("/v1/packages/{name}/schema", get(schema))
        .route("/v1/packages/{name}/rulings", axum::routing::post(rulings))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such resource") })
        .method_not_allowed_fallback(|| async { error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed") })
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .layer(middleware::from_fn(log))
        .with_state(shared);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores.min(4))
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let served = runtime.block_on(serve(app, args, header_timeout));
    // A ruling that overran its time limit is not waited for: its answer is gone.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served
}

/// Accepts connections until SIGTERM or Ctrl-C, then lets the answers in progress end.
async fn serve(app: Router, args: &ServeArgs, header_timeout: Duration) -> Result<(), String> {
    let listener =
        tokio::net::TcpListener::bind(&args.addr).await.map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    note("serve", format_args!("listening on http://{bound}"));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_timeout);
    let open = Arc::new(tokio::sync::Semaphore::new(args.max_connections as usize));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let signal = shutdown();
    tokio::pin!(signal);
    loop {
        // At the cap, new connections wait in the kernel's listen queue.
        let slot = tokio::select! {
            _ = &mut signal => break,
            slot = open.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
        };
        let stream = tokio::select! {
            _ = &mut signal => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was accepted.
                    note("serve", format_args!("cannot accept a connection: {e}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        while connections.try_join_next().is_some() {}
        let _ = stream.set_nodelay(true);
        connections.spawn(connection(stream, app.clone(), http.clone(), stopping.clone(), slot));
    }
    drop(listener);
    let _ = stop.send(true);
    while connections.join_next().await.is_some() {}
    note("serve", "stopped: every answer in progress has ended");
    Ok(())
}

/// Serves one connection until it closes or, once shutdown starts, until its answers in
/// progress have ended.
async fn connection(
    stream: tokio::net::TcpStream,
    app: Router,
    http: hyper::server::conn::http1::Builder,
    mut stopping: tokio::sync::watch::Receiver<bool>,
    _slot: tokio::sync::OwnedSemaphorePermit,
) {
    let busy = Busy::default();
    let tower = hyper_util::service::TowerToHyperService::new(app);
    let service = {
        let busy = busy.clone();
        hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(busy.clone());
            hyper::service::Service::call(&tower, req)
        })
    };
    let conn = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stopping.wait_for(|&stop| stop) => {}
    }
    // Closes an idle connection now, and any other once its answer has been written.
    conn.as_mut().graceful_shutdown();
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = tokio::time::sleep(SHUTDOWN_GRACE) => {
                if busy.0.load(Ordering::SeqCst) == 0 {
                    return;
                }
            }
        }
    }
}

/// The value of `key` in the `[[package]]` of law.lock named `name` (the file `clir lock`
/// writes: one `key = "value"` a line).
fn pinned(name: &str, key: &str) -> Option<String> {
    let value = |line: &str, k: &str| {
        let (lhs, rhs) = line.split_once('=')?;
        (lhs.trim() == k).then(|| rhs.trim().trim_matches('"').to_string())
    };
    let mut current: Option<String> = None;
    for line in LAW_LOCK.lines() {
        if line.trim() == "[[package]]" {
            current = None;
        } else if let Some(n) = value(line, "name") {
            current = Some(n);
        } else if current.as_deref() == Some(name) {
            if let Some(v) = value(line, key) {
                return Some(v);
            }
        }
    }
    None
}

/// Reads `--tokens`: a regular file (a FIFO would block startup) that only its owner may use,
/// a token and at least one capability a line.
fn read_tokens(path: &std::path::Path) -> Result<Vec<Token>, String> {
    use std::os::unix::fs::PermissionsExt;
    let cannot = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| cannot(&e))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file: refusing to read tokens from it", path.display()));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "{} may be used by its group or others (mode {mode:o}): refusing its tokens; `chmod 600` it",
            path.display()
        ));
    }
    let bytes = clir_codegen::project::read_regular_file(path).map_err(|e| cannot(&e))?;
    let text = String::from_utf8(bytes).map_err(|_| cannot(&"it is not UTF-8"))?;
    let mut tokens: Vec<Token> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{} line {}", path.display(), i + 1);
        let mut words = line.split_whitespace();
        let token = words.next().unwrap_or_default();
        let grants: Vec<String> = words.map(str::to_string).collect();
        if token.starts_with("judgment:") {
            return Err(format!(
                "{}: `{token}` is a capability where the token should be (TOKEN judgment:AUTHORITY…)",
                at()
            ));
        }
        if grants.is_empty() {
            return Err(format!("{}: the token grants no capability (TOKEN judgment:AUTHORITY…)", at()));
        }
        if let Some(bad) = grants.iter().find(|g| !g.starts_with("judgment:") || g.len() == "judgment:".len()) {
            return Err(format!("{}: `{bad}` is not a capability (judgment:AUTHORITY)", at()));
        }
        let digest = digest(token.as_bytes());
        if tokens.iter().any(|t| t.digest == digest) {
            return Err(format!("{}: the token is listed twice", at()));
        }
        tokens.push(Token { digest, grants });
    }
    Ok(tokens)
}

/// The host names requests may name in their Host header. A web page of another site that
/// resolves its own name to this address (DNS rebinding) names that site, and is refused.
struct Hosts {
    any: bool,
    names: Vec<String>,
}

impl Hosts {
    fn new(addr: &str, allowed: &[String]) -> Result<Hosts, String> {
        let mut names = vec!["localhost".to_string()];
        let own = host_name(addr);
        if own.parse::<std::net::IpAddr>().is_err() && !own.is_empty() {
            names.push(own.to_ascii_lowercase());
        }
        let mut any = false;
        for name in allowed {
            let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
            if name == "*" {
                any = true;
            } else if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == '/' || c == '@') {
                return Err(format!("--allow-host `{name}` is not a host name"));
            } else {
                names.push(name);
            }
        }
        Ok(Hosts { any, names })
    }

    /// Whether a request naming `host` (a Host header: a name or address, and maybe a port)
    /// is served.
    fn allows(&self, host: &str) -> bool {
        let name = host_name(host).trim_end_matches('.').to_ascii_lowercase();
        self.any || name.parse::<std::net::IpAddr>().is_ok() || self.names.contains(&name)
    }
}

/// The host of `HOST:PORT`, `[V6]:PORT` or a bare host.
fn host_name(text: &str) -> &str {
    if let Some(rest) = text.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    match text.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !host.contains(':') => host,
        _ => text,
    }
}

/// The review page's `Content-Security-Policy`: its inline script and style sheet allowed by
/// their sha256 (nothing else runs or styles it), requests only to this server, no frames.
fn page_policy(page: &str) -> HeaderValue {
    let hash = |open: &str, close: &str| {
        let start = page.find(open)? + open.len();
        let end = start + page[start..].find(close)?;
        use base64::Engine as _;
        let hash = base64::engine::general_purpose::STANDARD.encode(digest(&page.as_bytes()[start..end]));
        Some(format!("'sha256-{hash}'"))
    };
    let script = hash("<script>", "</script>").unwrap_or_else(|| "'none'".into());
    let style = hash("<style>", "</style>").unwrap_or_else(|| "'none'".into());
    let policy = format!(
        "default-src 'none'; script-src {script}; style-src {style}; connect-src 'self'; img-src 'self'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    );
    HeaderValue::from_str(&policy).unwrap_or_else(|_| HeaderValue::from_static(DEFAULT_POLICY))
}

/// The `Content-Security-Policy` of every answer but the page: nothing may load or frame it.
const DEFAULT_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// The sha256 of `bytes`.
fn digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).into()
}

/// Resolves when SIGTERM or Ctrl-C arrives.
async fn shutdown() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term => {},
    }
    note("serve", "shutting down: finishing the answers in progress");
}

/// One log line per request once its answer has ended: method, path, status, duration, cases,
/// and whether the answer was sent whole (never a header).
async fn log(mut req: Request, next: Next) -> Response {
    let busy = req.extensions_mut().remove::<Busy>().unwrap_or_default();
    let mut entry = LogEntry {
        method: req.method().to_string(),
        path: req.uri().path().to_string(),
        started: Instant::now(),
        status: 0,
        cases: None,
        complete: false,
        _in_progress: InProgress::new(&busy),
    };
    let response = next.run(req).await;
    let (mut parts, body) = response.into_parts();
    entry.status = parts.status.as_u16();
    entry.cases = parts.extensions.remove::<Cases>();
    Response::from_parts(parts, Body::new(Logged { body, entry }))
}

/// What the log line of a request says; written when dropped, with the answer's body.
struct LogEntry {
    method: String,
    path: String,
    started: Instant,
    status: u16,
    cases: Option<Cases>,
    complete: bool,
    _in_progress: InProgress,
}

impl Drop for LogEntry {
    fn drop(&mut self) {
        let line = json!({
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "ms": (self.started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
            "cases": self.cases.as_ref().and_then(|c| c.0.get()),
            "complete": self.complete,
        });
        let _ = writeln!(io::stderr(), "{line}");
    }
}

/// An answer's body, logged when it ends or is dropped.
struct Logged {
    body: Body,
    entry: LogEntry,
}

impl HttpBody for Logged {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.entry.complete = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        // A body of known length is not polled past its last bytes.
        if self.body.is_end_stream() {
            self.entry.complete = true;
        }
    }
}

/// Refuses a Host this server is not (403), and adds the security headers to every answer.
async fn guard(State(s): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let host = req.headers().get(header::HOST).map(|h| h.to_str().unwrap_or("\u{fffd}"));
    let mut response = match host {
        Some(host) if !s.hosts.allows(host) => error(
            StatusCode::FORBIDDEN,
            "the Host header does not name this server (clir serve --allow-host NAME serves another name)",
        ),
        _ => next.run(req).await,
    };
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.entry(header::CONTENT_SECURITY_POLICY).or_insert(HeaderValue::from_static(DEFAULT_POLICY));
    response
}

fn error(status: StatusCode, message: &str) -> Response {
    let body = json!({ "error": message }).to_string();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn json_response(value: &Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

async fn page(State(s): State<Arc<Shared>>) -> Response {
    let policy = s.page_policy.clone();
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
            (header::CONTENT_SECURITY_POLICY, policy),
        ],
        PAGE,
    )
        .into_response()
}

async fn list(State(s): State<Arc<Shared>>) -> Response {
    let list: Vec<Value> = s
        .packages
        .iter()
        .map(|p| {
            let schema = p.pkg.schema();
            json!({"name": p.name, "version": schema.version, "seal": schema.seal, "semanticHash": p.semantic_hash})
        })
        .collect();
    json_response(&Value::Array(list))
}

fn find<'a>(s: &'a Shared, name: &str) -> Option<&'a Served> {
    s.packages.iter().find(|p| p.name == name)
}

fn not_served(name: &str) -> Response {
    error(StatusCode::NOT_FOUND, &format!("package `{name}` is not served here"))
}

async fn schema(State(s): State<Arc<Shared>>, name: Result<Path<String>, PathRejection>) -> Response {
    let name = match name {
        Ok(Path(name)) => name,
        Err(e) => return error(StatusCode::BAD_REQUEST, &e.body_text()),
    };
    match find(&s, &name) {
        Some(p) => json_response(&schema_json(p)),
        None => not_served(&name),
    }
}

/// The package's relations, constants and rules, as the review page reads them.
fn schema_json(p: &Served) -> Value {
    let schema = p.pkg.schema();
    let relations: Vec<Value> = schema
        .relations
        .iter()
        .map(|r| {
            let kind = match r.kind {
                RelationKind::Empirical => "empirical",
                RelationKind::Judgment => "judgment",
                RelationKind::Institutional => "institutional",
            };
            let params: Vec<Value> =
                r.params.iter().map(|q| json!({"name": q.name, "type": q.ty, "integer": q.integer})).collect();
            json!({"name": r.name, "kind": kind, "params": params, "capability": r.capability})
        })
        .collect();
    let constants: Vec<Value> = schema.constants.iter().map(|c| json!({"name": c.name, "type": c.ty})).collect();
    let rules: Vec<Value> = schema
        .rules
        .iter()
        .map(|r| {
            let articles: Vec<Value> = r
                .anchors
                .iter()
                .map(|&f| {
                    let f = &schema.fragments[f as usize];
                    json!({"locator": f.locator, "citation": clir::citation(r.label, f.text)})
                })
                .collect();
            let head = schema.relations.get(r.head as usize).map_or("", |h| h.name);
            let head = if r.negative { format!("~{head}") } else { head.to_string() };
            json!({"id": r.id, "label": r.label, "strength": r.strength, "articles": articles, "head": head})
        })
        .collect();
    json!({
        "name": p.name,
        "version": schema.version,
        "seal": schema.seal,
        "semanticHash": p.semantic_hash,
        "relations": relations,
        "constants": constants,
        "rules": rules,
    })
}

/// The capabilities of the request's bearer token: none without one, `Err` (401) for a token
/// `--tokens` does not list. Every listed token is compared, in constant time.
#[allow(clippy::result_large_err)] // the 401 response, built once per refused request
fn grants_of(s: &Shared, headers: &HeaderMap) -> Result<Vec<String>, Response> {
    let Some(value) = headers.get(header::AUTHORIZATION) else { return Ok(Vec::new()) };
    let unauthorized = || {
        let mut r = error(StatusCode::UNAUTHORIZED, "unknown bearer token");
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        r
    };
    let bytes = value.as_bytes();
    let token = match bytes.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case(b"Bearer ") => &bytes[7..],
        _ => return Err(unauthorized()),
    };
    let presented = digest(token);
    let mut found: Option<usize> = None;
    for (i, t) in s.tokens.iter().enumerate() {
        if bool::from(t.digest.ct_eq(&presented)) {
            found = Some(i);
        }
    }
    match found {
        Some(i) => Ok(s.tokens[i].grants.clone()),
        None => Err(unauthorized()),
    }
}

/// Cases per batch, as `clir rule` (so that line numbers and bytes are the same).
const BATCH: usize = 512;

async fn rulings(
    State(s): State<Arc<Shared>>,
    name: Result<Path<String>, PathRejection>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let deadline = tokio::time::Instant::now() + s.timeout;
    let (Path(name), Query(query)) = match (name, query) {
        (Ok(name), Ok(query)) => (name, query),
        (Err(e), _) => return error(StatusCode::BAD_REQUEST, &e.body_text()),
        (_, Err(e)) => return error(StatusCode::BAD_REQUEST, &e.body_text()),
    };
    let grants = match grants_of(&s, &headers) {
        Ok(g) => g,
        Err(r) => return r,
    };
    let Some(served) = find(&s, &name) else { return not_served(&name) };
    let explain = match query.get("explain").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return error(StatusCode::BAD_REQUEST, &format!("explain must be true or false, not `{other}`"));
        }
    };
    // A declared length over the limit is refused unread (no `100 Continue` is sent for it).
    if body.size_hint().lower() > s.max_body {
        return too_large(s.max_body);
    }
    // The body stays unread (in the client, or the kernel's buffers) until the request's turn.
    let permit = match tokio::time::timeout_at(deadline, s.permits.clone().acquire_owned()).await {
        Ok(Ok(permit)) => permit,
        Ok(Err(_)) => return error(StatusCode::SERVICE_UNAVAILABLE, "the server is shutting down"),
        Err(_) => return too_late(),
    };
    let body = match read_body(body, s.max_body, deadline).await {
        Ok(body) => body,
        Err(BodyFault::TooLarge) => return too_large(s.max_body),
        Err(BodyFault::TooLate) => return too_late(),
        Err(BodyFault::TooSlow) => {
            let message = format!(
                "the request body arrived slower than {} KiB/s after its first {} seconds",
                BODY_MIN_RATE / 1024.0,
                BODY_GRACE.as_secs()
            );
            return error(StatusCode::REQUEST_TIMEOUT, &message);
        }
        Err(BodyFault::Broken) => return error(StatusCode::BAD_REQUEST, "the request body could not be read"),
    };
    let pkg = served.pkg;
    // A body of one batch is ruled on the blocking thread itself: starting ruler threads would
    // cost more than they save.
    let one_batch = body.len() <= 1 << 20 && body.iter().filter(|&&b| b == b'\n').count() < BATCH;
    let opts = RunOptions {
        options: clir::jsonl::Options { grants, explain },
        threads: Some(if one_batch { 0 } else { s.threads }),
        batch: BATCH,
        progress: false,
    };
    let (tx, mut rx) = mpsc::channel(PIECES_AHEAD);
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let mut out = ToBody { tx, buf: Vec::with_capacity(PIECE) };
        let ruled = rule_stream(pkg, &body[..], &mut out, &opts).and_then(|summary| {
            out.flush()?;
            Ok(summary.lines)
        });
        let last = match ruled {
            Ok(cases) => Piece::Done(cases),
            Err(_) => Piece::Failed,
        };
        let _ = out.tx.blocking_send(last);
    });
    // The status is decided by the first piece: a ruling that has written nothing by the time
    // limit gets 503; one that fails before writing gets 500.
    let cases = Cases::default();
    let answer = match tokio::time::timeout_at(deadline, rx.recv()).await {
        Err(_) => return too_late(),
        Ok(None | Some(Piece::Failed)) => return error(StatusCode::INTERNAL_SERVER_ERROR, "ruling failed"),
        Ok(Some(Piece::Done(n))) => {
            let _ = cases.0.set(n);
            Body::empty()
        }
        Ok(Some(Piece::Data(first))) => Body::new(Answer {
            first: Some(first),
            rx,
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            cases: cases.clone(),
            done: false,
        }),
    };
    let mut r = ([(header::CONTENT_TYPE, "application/x-ndjson")], answer).into_response();
    r.extensions_mut().insert(cases);
    r
}

fn too_large(max: u64) -> Response {
    error(StatusCode::PAYLOAD_TOO_LARGE, &format!("the request body is larger than {max} bytes (--max-body)"))
}

fn too_late() -> Response {
    error(StatusCode::SERVICE_UNAVAILABLE, "the request took longer than the time limit")
}

/// Why a request body was not read.
enum BodyFault {
    TooLarge,
    TooLate,
    TooSlow,
    Broken,
}

/// Reads a body of at most `max` bytes that arrives by `deadline` and, after [`BODY_GRACE`],
/// at [`BODY_MIN_RATE`] or faster.
async fn read_body(mut body: Body, max: u64, deadline: tokio::time::Instant) -> Result<Bytes, BodyFault> {
    let started = tokio::time::Instant::now();
    let declared = body.size_hint().lower().min(max);
    let mut buf = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    loop {
        let pace = started + BODY_GRACE + Duration::from_secs_f64(buf.len() as f64 / BODY_MIN_RATE);
        let until = pace.min(deadline);
        let next = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx));
        let frame = match tokio::time::timeout_at(until, next).await {
            Err(_) if until == deadline => return Err(BodyFault::TooLate),
            Err(_) => return Err(BodyFault::TooSlow),
            Ok(None) => return Ok(Bytes::from(buf)),
            Ok(Some(Err(_))) => return Err(BodyFault::Broken),
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(data) = frame.into_data() {
            if (buf.len() + data.len()) as u64 > max {
                return Err(BodyFault::TooLarge);
            }
            buf.extend_from_slice(&data);
        }
    }
}

/// What a ruling thread sends its answer's body.
enum Piece {
    Data(Bytes),
    /// The ruling ended; the number of cases it ruled.
    Done(u64),
    Failed,
}

/// The `io::Write` a ruling thread writes its answer into: pieces of about [`PIECE`] bytes
/// over a channel of [`PIECES_AHEAD`]. When the answer's body is gone (the client left, the
/// time ran out) a write fails, which ends the ruling.
struct ToBody {
    tx: mpsc::Sender<Piece>,
    buf: Vec<u8>,
}

impl ToBody {
    fn send(&mut self) -> io::Result<()> {
        let piece = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(PIECE)));
        self.tx
            .blocking_send(Piece::Data(piece))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the answer is no longer wanted"))
    }
}

impl Write for ToBody {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        for part in data.chunks(PIECE) {
            self.buf.extend_from_slice(part);
            if self.buf.len() >= PIECE {
                self.send()?;
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            self.send()
        }
    }
}

/// A rulings answer as it is ruled. It fails (so the client sees the answer cut off, without
/// its last chunk) when the ruling fails or the request's time limit passes before the end.
struct Answer {
    first: Option<Bytes>,
    rx: mpsc::Receiver<Piece>,
    deadline: Pin<Box<tokio::time::Sleep>>,
    cases: Cases,
    done: bool,
}

impl HttpBody for Answer {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        if self.done {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(Piece::Data(data))) => Poll::Ready(Some(Ok(Frame::data(data)))),
            Poll::Ready(Some(Piece::Done(n))) => {
                let _ = self.cases.0.set(n);
                self.done = true;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Piece::Failed) | None) => Poll::Ready(Some(Err(axum::Error::new("ruling failed")))),
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    Poll::Ready(Some(Err(axum::Error::new("the answer took longer than the time limit"))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done && self.first.is_none()
    }
}
