//! Registries (docs/REGISTRY.md): blobs by seal and an index per package name, in a folder
//! (`file://`) or over HTTP (`https://`, or `http://` on loopback). `clir add NAME@VERSION` and
//! `clir fetch` read one; `clir registry publish` writes a folder; `clir registry serve` serves
//! one, read-only.
//!
//! Every byte read from a registry is bounded (an index at [`MAX_INDEX_BYTES`], a blob at
//! [`MAX_BLOB_BYTES`], a `Content-Length` above the bound refused before the body is read), every
//! request has a time limit (`CLIR_HTTP_TIMEOUT`, seconds, default 60), redirects are followed
//! by hand, at most [`MAX_REDIRECTS`], each target held to the same rules as the registry's URL,
//! and a blob whose bytes do not hash to its seal is refused before anything is written.

use super::{note, print_lines, CANNOT_RUN, FAILURE, OK};
use axum::extract::Path as UrlPath;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clap::{Args, Subcommand};
use clir::outfile::write_atomically;
use clir_codegen::canonical;
use clir_codegen::project::{self, check_hash as check_seal, check_name, check_version, read_regular_file};
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// The largest index read.
pub const MAX_INDEX_BYTES: u64 = 16 << 20;
/// The largest blob read (as `clir_codegen::project::read_regular_file` reads one).
pub const MAX_BLOB_BYTES: u64 = 256 << 20;
/// The most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 5;

/// One version of a package in a registry's index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// `package.version`.
    pub version: String,
    /// `sha256:` of the blob's bytes: where the blob is (`blobs/<seal>.lawir.json`).
    pub seal: String,
    /// The document's top-level `semanticHash`.
    #[serde(rename = "semanticHash")]
    pub semantic_hash: String,
    /// Withdrawn: never chosen by `clir add NAME`, still fetched when named or pinned.
    #[serde(default)]
    pub yanked: bool,
}

/// A registry's index of one package name: `index/<name>.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// The package name.
    pub name: String,
    /// Its versions, oldest first.
    pub versions: Vec<Release>,
}

impl Index {
    /// The release `version` names, or the newest not yanked when `None`.
    pub fn pick(&self, version: Option<&str>) -> Result<&Release, String> {
        let known = || self.versions.iter().map(|r| r.version.as_str()).collect::<Vec<_>>().join(", ");
        match version {
            Some(v) => self
                .versions
                .iter()
                .find(|r| r.version == v)
                .ok_or_else(|| format!("the registry has no version {v} of {} (it has: {})", self.name, known())),
            None => self
                .versions
                .iter()
                .filter(|r| !r.yanked)
                .max_by_key(|r| version_key(&r.version))
                .ok_or_else(|| format!("every version of {} is yanked (it has: {})", self.name, known())),
        }
    }
}

/// A version as numbers, for choosing the newest (`0.10.0` after `0.9.1`); a part that is no
/// number sorts before every number.
fn version_key(v: &str) -> Vec<(u64, String)> {
    v.split(['.', '-', '+']).map(|p| p.parse().map_or((0, p.to_string()), |n: u64| (n + 1, String::new()))).collect()
}

/// Where a registry is.
#[derive(Debug, Clone)]
pub enum Registry {
    /// A folder (`file://DIR`).
    Folder(PathBuf),
    /// An HTTP server: the URL its paths are joined to, without a trailing `/`, and the one
    /// agent (connection pool, timeout) every request to it goes through.
    Http(String, ureq::Agent),
}

impl Registry {
    /// The registry at `url`: `file://DIR`, `https://…`, or `http://` on a loopback address.
    pub fn parse(url: &str) -> Result<Registry, String> {
        if let Some(dir) = url.strip_prefix("file://") {
            return Ok(Registry::Folder(PathBuf::from(dir)));
        }
        check_url(url)?;
        Ok(Registry::Http(url.trim_end_matches('/').to_string(), http_agent(http_timeout())))
    }

    /// The project's registry: `CLIR_REGISTRY`, else law.toml's `[registry] url`.
    pub fn for_project(root: &Path) -> Result<Registry, String> {
        if let Some(url) = std::env::var("CLIR_REGISTRY").ok().filter(|u| !u.is_empty()) {
            return Registry::parse(&url);
        }
        let manifest = root.join(project::MANIFEST);
        let text = match std::fs::read_to_string(&manifest) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", manifest.display())),
        };
        match project::manifest_registry(&text) {
            Ok(Some(url)) => Registry::parse(&url),
            Ok(None) => Err("no registry: set CLIR_REGISTRY or law.toml's [registry] url (docs/REGISTRY.md)".into()),
            Err(d) => Err(d.to_string()),
        }
    }

    /// The index of package `name`.
    pub fn index(&self, name: &str) -> Result<Index, String> {
        check_name(name)?;
        let bytes = self.get(&format!("index/{name}.json"), MAX_INDEX_BYTES)?;
        let index: Index =
            serde_json::from_slice(&bytes).map_err(|e| format!("the registry's index of {name} is not valid: {e}"))?;
        if index.name != name {
            return Err(format!("the registry's index of {name} names another package, {}", index.name));
        }
        // The version rule of law.toml and `clir add`, for every version the index lists.
        if let Some(bad) = index.versions.iter().find_map(|r| check_version(&r.version).err()) {
            return Err(format!("the registry's index of {name} is not valid: {bad}"));
        }
        Ok(index)
    }

    /// The blob sealed `seal`, checked: its bytes hash to the seal.
    pub fn blob(&self, seal: &str) -> Result<Vec<u8>, String> {
        check_seal(seal)?;
        let bytes = self.get(&format!("blobs/{seal}.lawir.json"), MAX_BLOB_BYTES)?;
        let found = canonical::seal(&bytes);
        if found != seal {
            return Err(format!(
                "the registry's blob {seal} hashes to {found} ({} bytes): refused, nothing written",
                bytes.len()
            ));
        }
        Ok(bytes)
    }

    /// The bytes at `rel` (a path this module made), at most `limit` of them.
    fn get(&self, rel: &str, limit: u64) -> Result<Vec<u8>, String> {
        match self {
            Registry::Folder(dir) => {
                let path = dir.join(rel);
                let file = std::fs::File::open(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
                    return Err(format!("{} is not a regular file", path.display()));
                }
                read_bounded(file, limit, None, &path.display().to_string())
            }
            Registry::Http(base, agent) => http_get(agent, &format!("{base}/{rel}"), limit),
        }
    }
}

/// An HTTP URL clir may fetch from: `https://`, or `http://` to a loopback address.
fn check_url(url: &str) -> Result<(), String> {
    let (scheme, rest) = url.split_once("://").ok_or_else(|| format!("`{url}` is no URL"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    match scheme {
        "https" if !host.is_empty() => Ok(()),
        "http" if host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) => Ok(()),
        "http" => Err(format!("`{url}`: plain http only on loopback (127.0.0.1, ::1, localhost); use https")),
        _ => Err(format!("`{url}`: a registry is file://, https:// or http:// on loopback")),
    }
}

/// How long one request may take, in all (`CLIR_HTTP_TIMEOUT` seconds, default 60).
fn http_timeout() -> Duration {
    let secs = std::env::var("CLIR_HTTP_TIMEOUT").ok().and_then(|s| s.parse::<f64>().ok());
    secs.filter(|s| *s > 0.0 && *s <= 86_400.0).map_or(Duration::from_secs(60), Duration::from_secs_f64)
}

/// An agent whose requests each take at most `timeout` and follow no redirect themselves
/// ([`http_get`] checks each).
fn http_agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .max_redirects(0)
        .http_status_as_error(false)
        .user_agent(concat!("clir/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// GETs `url` through `agent`, following at most [`MAX_REDIRECTS`] redirects (each checked as
/// the registry's URL is), reading at most `limit` bytes.
fn http_get(agent: &ureq::Agent, url: &str, limit: u64) -> Result<Vec<u8>, String> {
    let mut at = url.to_string();
    for _ in 0..=MAX_REDIRECTS {
        check_url(&at)?;
        let mut response = agent.get(&at).call().map_err(|e| match e {
            ureq::Error::Timeout(_) => format!("{at}: no answer within {:?} (CLIR_HTTP_TIMEOUT)", http_timeout()),
            e => format!("{at}: {e}"),
        })?;
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers().get(header::LOCATION).and_then(|v| v.to_str().ok());
            let location = location.ok_or_else(|| format!("{at}: a redirect without a Location"))?;
            at = join_location(&at, location);
            continue;
        }
        if !status.is_success() {
            return Err(format!("{at}: the registry answered {status}"));
        }
        let length = response.body().content_length();
        let body = response.body_mut().as_reader();
        return read_bounded(body, limit, length, &at);
    }
    Err(format!("{url}: more than {MAX_REDIRECTS} redirects"))
}

/// `location` (a redirect's target) against the URL `base` it came from.
fn join_location(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    let authority = rest.split('/').next().unwrap_or("");
    if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else {
        let dir = base.rsplit_once('/').map_or(base, |(d, _)| d);
        format!("{dir}/{location}")
    }
}

/// Reads `from` to its end, refusing more than `limit` bytes (a declared `length` above it
/// before reading); a bar on stderr for a large body when stderr is a terminal.
fn read_bounded(from: impl Read, limit: u64, length: Option<u64>, what: &str) -> Result<Vec<u8>, String> {
    if let Some(n) = length.filter(|&n| n > limit) {
        return Err(format!("{what}: {n} bytes announced, more than the {limit} a registry may send"));
    }
    let bar = progress(length);
    let mut bytes = Vec::with_capacity(length.unwrap_or(0).min(limit) as usize);
    let mut reader = bar.wrap_read(from.take(limit + 1));
    if let Err(e) = reader.read_to_end(&mut bytes) {
        let of = length.map_or(String::new(), |n| format!(" of the {n} announced"));
        return Err(format!(
            "{what}: {} bytes received{of} before the transfer broke off ({e}): truncated",
            bytes.len()
        ));
    }
    bar.finish_and_clear();
    if bytes.len() as u64 > limit {
        return Err(format!("{what}: more than {limit} bytes, more than a registry may send"));
    }
    if let Some(n) = length.filter(|&n| n != bytes.len() as u64) {
        return Err(format!("{what}: {} bytes received of the {n} announced (truncated)", bytes.len()));
    }
    Ok(bytes)
}

/// A download bar for bodies of more than 4 MB, when stderr is a terminal.
fn progress(length: Option<u64>) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    match length {
        Some(n) if n > 4 << 20 && std::io::stderr().is_terminal() => indicatif::ProgressBar::new(n),
        _ => indicatif::ProgressBar::hidden(),
    }
}

/// `NAME@VERSION` or `NAME`, when `text` is one (and not a file).
pub fn package_request(text: &str) -> Option<(&str, Option<&str>)> {
    let (name, version) = match text.split_once('@') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    let looks =
        check_name(name).is_ok() && !name.ends_with(".json") && version.is_none_or(|v| check_version(v).is_ok());
    looks.then_some((name, version))
}

/// Options of `clir registry`.
#[derive(Args, Debug)]
pub struct RegistryArgs {
    #[command(subcommand)]
    command: RegistryCommand,
}

#[derive(Subcommand, Debug)]
enum RegistryCommand {
    /// Write a package into a registry folder: its blob by seal, its index updated atomically;
    /// a version already published with other bytes is refused.
    Publish {
        /// The registry folder (created when missing).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The package file; it must verify.
        #[arg(value_name = "PACKAGE")]
        package: PathBuf,
    },
    /// Serve a registry folder over HTTP, read-only (GET /index/NAME.json, /blobs/SEAL.lawir.json).
    Serve {
        /// The registry folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Where to listen; port 0 picks a free port (the bound address is said on stderr).
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8081")]
        addr: String,
        /// A host name that requests may name in their Host header, besides `localhost`, IP
        /// addresses and the host of `--addr` (repeat for several; `*` allows any).
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_host: Vec<String>,
    },
}

/// Runs `clir registry`.
pub fn run(args: &RegistryArgs) -> u8 {
    match &args.command {
        RegistryCommand::Publish { dir, package } => publish(dir, package),
        RegistryCommand::Serve { dir, addr, allow_host } => match serve(dir, addr, allow_host) {
            Ok(()) => OK,
            Err(msg) => {
                note("registry", msg);
                CANNOT_RUN
            }
        },
    }
}

/// `clir registry publish DIR PACKAGE`: 0 published (or already, with the same bytes), 1 refused,
/// 2 cannot read or write.
fn publish(dir: &Path, package: &Path) -> u8 {
    let fail = |code: u8, msg: String| {
        note("registry", msg);
        code
    };
    let bytes = match read_regular_file(package) {
        Ok(b) => b,
        Err(e) => return fail(CANNOT_RUN, super::package_arg::unreadable(&package.display().to_string(), &e)),
    };
    let root = package.parent().map(Path::to_path_buf);
    let report = verify_bytes(&bytes, &VerifyOptions { root, ..VerifyOptions::default() });
    let Some(doc) = report.document.as_ref().filter(|_| report.ok()) else {
        return fail(FAILURE, format!("{} does not verify: {}", package.display(), report.failures()));
    };
    let release = Release {
        version: doc.package.version.clone(),
        seal: canonical::seal(&bytes),
        semantic_hash: doc.semantic_hash.clone(),
        yanked: false,
    };
    let name = doc.package.name.clone();
    // The name and version rules of law.toml and `clir add`: a registry never lists a version
    // that `add` would refuse (`..`, `0.1.0/../../x`, thousands of digits).
    if let Err(e) = check_name(&name) {
        return fail(FAILURE, format!("{}: package.name: {e}; nothing published", package.display()));
    }
    if let Err(e) = check_version(&release.version) {
        return fail(FAILURE, format!("{}: package.version: {e}; nothing published", package.display()));
    }
    let index_path = dir.join("index").join(format!("{name}.json"));
    let mut index = match std::fs::read(&index_path) {
        Ok(b) => match serde_json::from_slice::<Index>(&b) {
            Ok(i) => i,
            Err(e) => return fail(CANNOT_RUN, format!("{} is not a valid index: {e}", index_path.display())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Index { name: name.clone(), versions: Vec::new() },
        Err(e) => return fail(CANNOT_RUN, format!("cannot read {}: {e}", index_path.display())),
    };
    if let Some(old) = index.versions.iter().find(|r| r.version == release.version) {
        if old.seal == release.seal {
            let _ = print_lines([format!("{name} {} is already published as {}", release.version, release.seal)]);
            return OK;
        }
        return fail(
            FAILURE,
            format!(
                "{name} {} is already published with other bytes ({}); a version is never overwritten",
                release.version, old.seal
            ),
        );
    }
    // The blob first: an index never names a blob that is not there.
    let blob = dir.join("blobs").join(format!("{}.lawir.json", release.seal));
    let written = std::fs::create_dir_all(blob.parent().expect("a folder"))
        .and_then(|()| std::fs::create_dir_all(index_path.parent().expect("a folder")))
        .and_then(|()| write_atomically(&blob, &bytes));
    if let Err(e) = written {
        return fail(CANNOT_RUN, format!("cannot write {}: {e}", blob.display()));
    }
    index.versions.push(release.clone());
    index.versions.sort_by_key(|r| version_key(&r.version));
    let text = serde_json::to_string_pretty(&index).expect("an index serializes") + "\n";
    if let Err(e) = write_atomically(&index_path, text.as_bytes()) {
        return fail(CANNOT_RUN, format!("cannot write {}: {e}", index_path.display()));
    }
    let _ = print_lines([format!("published {name} {} as {}", release.version, release.seal)]);
    OK
}

/// `clir registry serve DIR`: GET `/index/NAME.json` and `/blobs/SEAL.lawir.json`, read-only,
/// with `clir serve`'s limits on connections and request heads, its Host check and its security
/// headers ([`guard`]).
fn serve(dir: &Path, addr: &str, allow_host: &[String]) -> Result<(), String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a folder", dir.display()));
    }
    // The Host check of `clir serve` (docs/SECURITY.md): any IP address, `localhost`, the host of
    // `--addr` and each `--allow-host` (`*`: any).
    let hosts = std::sync::Arc::new(super::serve::Hosts::new(addr, allow_host)?);
    let (index_dir, blob_dir) = (dir.join("index"), dir.join("blobs"));
    let app = Router::new()
        .route(
            "/index/{file}",
            get(move |UrlPath(file): UrlPath<String>| {
                let dir = index_dir.clone();
                async move { serve_file(&dir, &file, ".json", check_name, MAX_INDEX_BYTES).await }
            }),
        )
        .route(
            "/blobs/{file}",
            get(move |UrlPath(file): UrlPath<String>| {
                let dir = blob_dir.clone();
                async move { serve_file(&dir, &file, ".lawir.json", check_seal, MAX_BLOB_BYTES).await }
            }),
        )
        .fallback(|| async { (StatusCode::NOT_FOUND, "no such resource\n") })
        .layer(axum::middleware::from_fn_with_state(hosts, guard));
    let listen = super::serve::Listen {
        addr,
        max_connections: 1024,
        header_timeout: Duration::from_secs(10),
        command: "registry",
    };
    super::serve::run_server(app, &listen)
}

/// Refuses a Host this server is not (403), and gives every answer `clir serve`'s security
/// headers (nothing here is a page: `default-src 'none'`) and a `Cache-Control`: a blob never
/// changes under its seal (`immutable`), an index does when a version is published (`no-cache`:
/// asked again each time), an error is not kept (`no-store`).
async fn guard(
    axum::extract::State(hosts): axum::extract::State<std::sync::Arc<super::serve::Hosts>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    use axum::http::HeaderValue;
    let host = req.headers().get(header::HOST).map(|h| h.to_str().unwrap_or("\u{fffd}"));
    let blob = req.uri().path().starts_with("/blobs/");
    let mut response = match host {
        Some(host) if !hosts.allows(host) => (
            StatusCode::FORBIDDEN,
            "the Host header does not name this registry (clir registry serve --allow-host NAME serves another name)\n",
        )
            .into_response(),
        _ => next.run(req).await,
    };
    let cache = match (response.status().is_success(), blob) {
        (true, true) => "public, max-age=31536000, immutable",
        (true, false) => "no-cache",
        (false, _) => "no-store",
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"),
    );
    response
}

/// The file `file` of `dir` when its stem passes `check` (so no path leaves `dir`), streamed a
/// chunk at a time; a symlink, a file that is not regular or one larger than `limit` is not
/// found.
async fn serve_file(
    dir: &Path,
    file: &str,
    suffix: &str,
    check: fn(&str) -> Result<(), String>,
    limit: u64,
) -> Response {
    let not_found = || (StatusCode::NOT_FOUND, "no such resource\n").into_response();
    let Some(stem) = file.strip_suffix(suffix).filter(|s| check(s).is_ok()) else {
        return not_found();
    };
    let path = dir.join(format!("{stem}{suffix}"));
    // Checked before opening, so that a FIFO in the folder never holds a thread and a symlink
    // never leads out of it; checked again on the open file, which is what is sent.
    let regular = |m: &std::fs::Metadata| m.is_file() && m.len() <= limit;
    if !tokio::fs::symlink_metadata(&path).await.is_ok_and(|m| regular(&m)) {
        return not_found();
    }
    let Ok(file) = tokio::fs::File::open(&path).await else {
        return not_found();
    };
    let Some(len) = file.metadata().await.ok().filter(regular).map(|m| m.len()) else {
        return not_found();
    };
    let body = axum::body::Body::from_stream(tokio_util::io::ReaderStream::new(file.take(len)));
    ([(header::CONTENT_TYPE, "application/json".to_string()), (header::CONTENT_LENGTH, len.to_string())], body)
        .into_response()
}

/// Options of `clir fetch`.
#[derive(Args, Debug)]
pub struct FetchArgs {
    /// The project folder, holding law.toml and law.lock [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// `clir fetch`: every blob law.lock pins that the project lacks, from its registry, checked by
/// seal; 0 when every blob is there, 1 when one could not be fetched, 2 when the project cannot
/// be read.
pub fn fetch(args: &FetchArgs) -> u8 {
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let project = match project::load(&root) {
        Ok(p) => p,
        Err(d) => {
            note("fetch", d);
            return CANNOT_RUN;
        }
    };
    // Each blob where law.toml says, held to the rule of package paths before anything is
    // fetched: a path out of the project (`..`, absolute, through a link) is never written.
    let mut missing = Vec::new();
    let mut refused = 0;
    for spec in &project.packages {
        match project.package_file(spec) {
            Ok(path) if std::fs::symlink_metadata(&path).is_ok() => {}
            Ok(path) => missing.push((spec, path)),
            Err(msg) => {
                note("fetch", format_args!("{msg}; nothing fetched for it"));
                refused += 1;
            }
        }
    }
    if refused > 0 && missing.is_empty() {
        return FAILURE;
    }
    if missing.is_empty() {
        let _ = print_lines(["every blob law.lock pins is there".to_string()]);
        return OK;
    }
    let registry = match Registry::for_project(&root) {
        Ok(r) => r,
        Err(msg) => {
            note("fetch", msg);
            return CANNOT_RUN;
        }
    };
    let mut failed = refused;
    for (spec, path) in missing {
        let Some(pin) = project.lock.packages.iter().find(|p| p.name == spec.name) else {
            note("fetch", format_args!("{} is not pinned in law.lock: run `clir lock` after adding it", spec.name));
            failed += 1;
            continue;
        };
        let got = registry.blob(&pin.seal).and_then(|bytes| {
            std::fs::create_dir_all(path.parent().expect("a blob has a folder"))
                .and_then(|()| write_atomically(&path, &bytes))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        });
        match got {
            Ok(()) => {
                let _ = print_lines([format!("fetched {} {} ({})", pin.name, pin.version, pin.seal)]);
            }
            Err(msg) => {
                note("fetch", format_args!("{}: {msg}", pin.name));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        FAILURE
    } else {
        OK
    }
}
