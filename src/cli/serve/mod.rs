//! `clir serve`: the HTTP service of README.md "The service: `clir serve`" for the compiled-in packages.
//!
//! Rulings are made by [`clir::runner::rule_stream`], the very path `clir rule` takes (same
//! batches, same line numbers, same bytes), on a blocking thread off the async runtime, and
//! stream into the response body as they are written, through a bounded channel: a client that
//! reads slowly slows its own ruling instead of growing the server's memory. A semaphore bounds
//! the requests being ruled at once; a request takes its place in it before its body is read,
//! so at most `--concurrency` bodies are held. Each request has a time limit from its arrival
//! to the end of its answer (`503`, or an answer cut off) and a body limit (`413`).
//!
//! The server accepts connections itself, on hyper: at most `--max-connections` are open (and
//! fewer than the open-file limit allows; at the cap, or out of descriptors, a new connection
//! sheds the oldest one that has not sent a whole head, else the oldest idle one), a request
//! head must arrive within `--header-timeout` (which also closes idle keep-alive connections),
//! a Host header must name this server (against DNS rebinding), and every answer carries
//! security headers. SIGTERM finishes the answers in progress and drops the rest. One JSON line
//! per request goes to stderr.
//!
//! Here: the options, the handlers and the routes; `conn` accepts connections and shuts down,
//! `access` decides who may ask what (tokens, hosts, security headers), `answer` reads a body
//! within its limits, streams its answer and logs the request.

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
use clir::Package;
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

mod access;
mod answer;
mod conn;

pub(crate) use access::Hosts;
use access::*;
use answer::*;
pub(crate) use conn::Listen;
use conn::*;

/// Options of `clir serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// A compiled-in package to serve (repeat the flag for several).
    #[arg(long, value_name = "PACKAGE", required_unless_present = "packages")]
    pub package: Vec<String>,
    /// Compiled-in packages to serve (the same as `--package`).
    #[arg(value_name = "PACKAGE")]
    pub packages: Vec<String>,
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
    /// At most N tuples derived by the joins of one case: past it, that case's line is an error
    /// line and the request's other cases are ruled as without it (docs/SECURITY.md).
    #[arg(long, value_name = "N", default_value_t = clir::jsonl::DEFAULT_MAX_CASE_TUPLES)]
    pub max_case_tuples: u64,
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
    /// Connections open at once (fewer when the open-file limit would not leave the server an
    /// eighth of its descriptors, at least 32). A connection beyond it closes the oldest one
    /// that has not sent a whole request head, else the oldest idle one; only when every
    /// connection has an answer in progress do more wait in the listen queue.
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

/// What every request handler sees.
struct Shared {
    packages: Vec<Served>,
    tokens: Vec<Token>,
    permits: Arc<tokio::sync::Semaphore>,
    timeout: Duration,
    threads: usize,
    max_body: u64,
    max_case_tuples: u64,
    hosts: Hosts,
    /// The `Content-Security-Policy` of the review page: its one script and one style sheet, by
    /// hash, and requests to this server only.
    page_policy: HeaderValue,
    /// The review page, [`page_text`] (shared, not copied, by each answer).
    page: axum::body::Bytes,
}

/// The review page (one file: HTML, CSS and JavaScript, no build step, nothing fetched), with
/// [`CHECK_JS`] put in its one script at the line `// check.js`.
const PAGE: &str = include_str!("page.html");

/// The certificate checker of the review page (plain JavaScript, docs/CERTIFICATES.md).
const CHECK_JS: &str = include_str!("check.js");

/// The review page as served: [`PAGE`] with [`CHECK_JS`] in its script.
fn page_text() -> String {
    PAGE.replacen("// check.js\n", CHECK_JS, 1)
}

/// The pins of the compiled-in packages, for `semanticHash`.
const LAW_LOCK: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/law.lock"));

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
    for name in args.package.iter().chain(&args.packages) {
        let pkg = super::package_arg::compiled_only("serve", name)?;
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
    let review_page = page_text();
    let shared = Arc::new(Shared {
        packages,
        tokens,
        permits: Arc::new(tokio::sync::Semaphore::new(concurrency)),
        timeout,
        threads: cores,
        max_body: args.max_body as u64,
        max_case_tuples: args.max_case_tuples,
        hosts,
        page_policy: page_policy(&review_page),
        page: review_page.into(),
    });
    let app = Router::new()
        .route("/", get(page))
        .route("/healthz", get(|| async { "ok" }))
        .route("/v1/packages", get(list))
        .route("/v1/packages/{name}/schema", get(schema))
        .route("/v1/packages/{name}/package", get(document))
        .route("/v1/packages/{name}/rulings", axum::routing::post(rulings))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such resource") })
        .method_not_allowed_fallback(|| async { error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed") })
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .layer(middleware::from_fn(log))
        .with_state(shared);
    let listen = Listen { addr: &args.addr, max_connections: args.max_connections, header_timeout, command: "serve" };
    run_server(app, &listen)
}

/// Serves `app` on a tokio runtime until SIGTERM or Ctrl-C, with `clir serve`'s connection
/// limits (`clir registry serve` serves its folder through it too).
pub(crate) fn run_server(app: Router, listen: &Listen<'_>) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores.min(4))
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let served = runtime.block_on(serve(app, listen));
    // A ruling that overran its time limit is not waited for: its answer is gone.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served
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
        axum::body::Body::from(s.page.clone()),
    )
        .into_response()
}

async fn list(State(s): State<Arc<Shared>>) -> Response {
    let list: Vec<Value> = s
        .packages
        .iter()
        .map(|p| {
            let schema = p.pkg.schema();
            json!({
                "name": p.name,
                "version": schema.version,
                "seal": schema.seal,
                "semanticHash": p.semantic_hash,
                "inForce": schema.in_force,
                "until": schema.until,
            })
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
        Some(p) => json_response(&p.pkg.schema().to_json(p.name, Some(&p.semantic_hash))),
        None => not_served(&name),
    }
}

/// The package file a served package was compiled from, byte for byte (its sha256 is the seal
/// its certificates name), for the review page's checker.
async fn document(State(s): State<Arc<Shared>>, name: Result<Path<String>, PathRejection>) -> Response {
    let name = match name {
        Ok(Path(name)) => name,
        Err(e) => return error(StatusCode::BAD_REQUEST, &e.body_text()),
    };
    let Some(p) = find(&s, &name) else { return not_served(&name) };
    match crate::package_blobs::BLOBS.iter().find(|(n, _)| *n == p.name) {
        Some((_, bytes)) => ([(header::CONTENT_TYPE, "application/json")], *bytes).into_response(),
        None => error(StatusCode::NOT_FOUND, &format!("the package file of `{name}` is not compiled in")),
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
    let flag = |key: &str| match query.get(key).map(String::as_str) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(format!("{key} must be true or false, not `{other}`")),
    };
    let (explain, certify, coverage) = match (flag("explain"), flag("certify"), flag("coverage")) {
        (Ok(e), Ok(c), Ok(v)) => (e, c, v),
        (Err(why), _, _) | (_, Err(why), _) | (_, _, Err(why)) => return error(StatusCode::BAD_REQUEST, &why),
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
    let counted = coverage.then(|| clir::coverage::Coverage::shared(pkg.schema()));
    let opts = RunOptions {
        options: clir::jsonl::Options {
            grants,
            explain,
            certify,
            coverage: counted.clone(),
            max_case_tuples: Some(s.max_case_tuples),
            granted_by: clir::jsonl::GrantedBy::Token,
            ..Default::default()
        },
        threads: Some(if one_batch { 0 } else { s.threads }),
        batch: BATCH,
    };
    let (tx, mut rx) = mpsc::channel(PIECES_AHEAD);
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let mut out = ToBody { tx, buf: Vec::with_capacity(PIECE) };
        let ruled = rule_stream(pkg, &body[..], &mut out, &opts).and_then(|summary| {
            if let Some(counted) = &counted {
                let doc = counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner).to_json();
                writeln!(out, "{}", json!({ "coverage": doc }))?;
            }
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
