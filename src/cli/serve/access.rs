//! Who may ask what: bearer tokens and their grants, the Host check against DNS rebinding, and
//! the security headers and Content-Security-Policy of every answer.

use super::*;

/// A bearer token of `--tokens`: the sha256 of its text (compared in constant time) and the
/// capabilities it grants.
pub(super) struct Token {
    digest: [u8; 32],
    grants: Vec<String>,
}

/// Reads `--tokens`: a regular file (a FIFO would block startup) that only its owner may use,
/// a token and at least one capability a line.
pub(super) fn read_tokens(path: &std::path::Path) -> Result<Vec<Token>, String> {
    let max = clir_codegen::project::MAX_FILE_BYTES;
    let bytes = crate::cli::read_private_file(path, "the tokens file", max)?;
    let text = String::from_utf8(bytes).map_err(|_| format!("the tokens file {} is not UTF-8", path.display()))?;
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
pub(crate) struct Hosts {
    any: bool,
    names: Vec<String>,
}

impl Hosts {
    pub(crate) fn new(addr: &str, allowed: &[String]) -> Result<Hosts, String> {
        let mut names = vec!["localhost".to_string()];
        let own = host_name(addr);
        if own.parse::<std::net::IpAddr>().is_err() && !own.is_empty() {
            names.push(own.trim_end_matches('.').to_ascii_lowercase());
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
    pub(crate) fn allows(&self, host: &str) -> bool {
        let name = host_name(host).trim_end_matches('.').to_ascii_lowercase();
        self.any || name.parse::<std::net::IpAddr>().is_ok() || self.names.contains(&name)
    }
}

/// The host of `HOST:PORT`, `[V6]:PORT` or a bare host.
pub(super) fn host_name(text: &str) -> &str {
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
pub(super) fn page_policy(page: &str) -> HeaderValue {
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
pub(super) const DEFAULT_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// The sha256 of `bytes`.
pub(super) fn digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).into()
}

/// Refuses a Host this server is not (403), and adds the security headers to every answer.
pub(super) async fn guard(State(s): State<Arc<Shared>>, req: Request, next: Next) -> Response {
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

/// The capabilities of the request's bearer token: none without one, `Err` (401) for a token
/// `--tokens` does not list. Every listed token is compared, in constant time.
#[allow(clippy::result_large_err)] // the 401 response, built once per refused request
pub(super) fn grants_of(s: &Shared, headers: &HeaderMap) -> Result<Vec<String>, Response> {
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
