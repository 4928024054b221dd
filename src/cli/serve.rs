//! `clir serve`: the HTTP service of CONTRACT.md "The service" for the compiled-in packages.
//!
//! Rulings are made by [`clir::runner::rule_stream`], the very path `clir rule` takes (same
//! batches, same line numbers, same bytes), on a blocking thread off the async runtime. A
//! semaphore bounds the requests being ruled at once (the others queue); each request has a
//! time limit (`503`) and a body limit (`413`). One JSON line per request goes to stderr.

use super::{note, CANNOT_RUN, OK};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clir::runner::{rule_stream, RunOptions};
use clir::{Package, RelationKind};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

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
    /// Seconds a rulings request may take, waiting included; a longer one gets 503.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Requests ruled at once; more wait their turn [default: one per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub concurrency: Option<u16>,
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
}

/// The number of cases a response ruled, for the request log.
#[derive(Clone, Copy)]
struct Cases(usize);

/// The review page (one file: HTML, CSS and JavaScript, no build step, nothing fetched).
const PAGE: &str = include_str!("serve_page.html");

/// The pins of the compiled-in packages, for `semanticHash`.
const LAW_LOCK: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/law.lock"));

/// Runs the service until SIGTERM or Ctrl-C; exit 0 once the requests in flight are answered,
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
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err("--timeout must be a positive number of seconds".into());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let concurrency = args.concurrency.map_or(cores, usize::from);
    let shared = Arc::new(Shared {
        packages,
        tokens,
        permits: Arc::new(tokio::sync::Semaphore::new(concurrency)),
        timeout: Duration::from_secs_f64(args.timeout),
        threads: cores,
    });
    let app = Router::new()
        .route("/", get(page))
        .route("/healthz", get(|| async { "ok" }))
        .route("/v1/packages", get(list))
        .route("/v1/packages/{name}/schema", get(schema))
        .route("/v1/packages/{name}/rulings", axum::routing::post(rulings))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such resource") })
        .method_not_allowed_fallback(|| async { error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed") })
        .layer(DefaultBodyLimit::max(args.max_body))
        .layer(middleware::from_fn(log))
        .with_state(shared);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores.min(4))
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        note("serve", format_args!("listening on http://{bound}"));
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown())
            .await
            .map_err(|e| format!("the server stopped: {e}"))?;
        note("serve", "stopped: every request in flight was answered");
        Ok(())
    })
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

/// Reads `--tokens`: refused unless only its owner may use it.
fn read_tokens(path: &std::path::Path) -> Result<Vec<Token>, String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "{} may be used by its group or others (mode {mode:o}): refusing its tokens; `chmod 600` it",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut tokens: Vec<Token> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let token = words.next().unwrap_or_default();
        let grants: Vec<String> = words.map(str::to_string).collect();
        if let Some(bad) = grants.iter().find(|g| !g.starts_with("judgment:") || g.len() == "judgment:".len()) {
            return Err(format!("{} line {}: `{bad}` is not a capability (judgment:AUTHORITY)", path.display(), i + 1));
        }
        let digest = digest(token.as_bytes());
        if tokens.iter().any(|t| t.digest == digest) {
            return Err(format!("{} line {}: the token is listed twice", path.display(), i + 1));
        }
        tokens.push(Token { digest, grants });
    }
    Ok(tokens)
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    let hex = clir_codegen::canonical::sha256_hex(bytes);
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0);
    }
    out
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
    note("serve", "shutting down: finishing the requests in flight");
}

/// One log line per request: method, path, status, duration, cases (never a header).
async fn log(req: Request, next: Next) -> Response {
    let (method, path) = (req.method().to_string(), req.uri().path().to_string());
    let started = Instant::now();
    let response = next.run(req).await;
    let cases = response.extensions().get::<Cases>().map(|c| c.0);
    let line = json!({
        "method": method,
        "path": path,
        "status": response.status().as_u16(),
        "ms": (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
        "cases": cases,
    });
    eprintln!("{line}");
    response
}

fn error(status: StatusCode, message: &str) -> Response {
    let body = json!({ "error": message }).to_string();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn json_response(value: &Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

async fn page() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE).into_response()
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

async fn schema(State(s): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
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
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
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
    let work = {
        let s = s.clone();
        async move {
            let permit = s.permits.clone().acquire_owned().await;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                let mut out = Vec::with_capacity(body.len() + body.len() / 2);
                rule_stream(pkg, &body[..], &mut out, &opts).map(|summary| (out, summary.lines))
            })
            .await
        }
    };
    match tokio::time::timeout(s.timeout, work).await {
        Err(_) => error(StatusCode::SERVICE_UNAVAILABLE, "the request took longer than the time limit"),
        Ok(Err(_)) | Ok(Ok(Err(_))) => error(StatusCode::INTERNAL_SERVER_ERROR, "ruling failed"),
        Ok(Ok(Ok((out, cases)))) => {
            let mut r = ([(header::CONTENT_TYPE, "application/x-ndjson")], out).into_response();
            r.extensions_mut().insert(Cases(cases as usize));
            r
        }
    }
}
