//! Connections: the accept loop on hyper with its limits (request heads, idle connections, how
//! many at once) and a shutdown that lets answers in progress end and drops the rest.

use super::*;

/// The requests of one connection whose answer has not ended, so that shutdown can tell a
/// connection with an answer to finish from an idle or half-sent one, and how many requests it
/// has begun, so that a server short of connections sheds one that never sent a whole head
/// first.
#[derive(Clone, Default)]
pub(super) struct Busy(Arc<(AtomicUsize, AtomicUsize)>);

impl Busy {
    /// Requests of the connection whose answer has not ended.
    fn in_progress(&self) -> usize {
        self.0 .0.load(Ordering::SeqCst)
    }

    /// Requests the connection has begun (whose head arrived whole).
    fn begun(&self) -> usize {
        self.0 .1.load(Ordering::SeqCst)
    }
}

/// Counts one request of a connection as in progress until dropped.
pub(super) struct InProgress(Busy);

impl InProgress {
    pub(super) fn new(busy: &Busy) -> InProgress {
        busy.0 .0.fetch_add(1, Ordering::SeqCst);
        busy.0 .1.fetch_add(1, Ordering::SeqCst);
        InProgress(busy.clone())
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0 .0 .0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How long shutdown waits for a connection with no answer in progress (a request head not
/// yet complete, an answer being flushed) before dropping it.
pub(super) const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// Where and how many connections a server accepts, for `clir serve` and `clir registry serve`.
pub(crate) struct Listen<'a> {
    /// `HOST:PORT`.
    pub addr: &'a str,
    /// Connections open at once.
    pub max_connections: u32,
    /// How long a request head may take, and a connection stay idle.
    pub header_timeout: Duration,
    /// The command its notes on stderr name (`serve`, `registry`).
    pub command: &'static str,
}

/// The open connections in the order they were accepted, each with what it is doing and how to
/// close it, so that a server at its cap (or out of file descriptors) can shed one that no
/// answer is in progress on.
#[derive(Clone, Default)]
struct Open(Arc<std::sync::Mutex<Table>>);

/// Per connection by the order it was accepted in: what it is doing, and what sheds it.
type Table = std::collections::BTreeMap<u64, (Busy, Arc<tokio::sync::Notify>)>;

impl Open {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Closes the oldest connection with no request in progress: first one that has not yet sent
    /// a whole request head (a slow or stalled client), else an idle keep-alive connection.
    /// False when every connection has an answer in progress.
    fn shed_one(&self) -> bool {
        let mut open = self.lock();
        let idle = |(_, (busy, _)): &(&u64, &(Busy, Arc<tokio::sync::Notify>))| busy.in_progress() == 0;
        let pick = (open.iter().filter(idle).find(|(_, (busy, _))| busy.begun() == 0))
            .or_else(|| open.iter().find(idle))
            .map(|(&id, _)| id);
        match pick.and_then(|id| open.remove(&id)) {
            Some((_, close)) => {
                close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Leaves the table of open connections when its connection's task ends, however it ends.
struct Registered(Open, u64);

impl Drop for Registered {
    fn drop(&mut self) {
        self.0.lock().remove(&self.1);
    }
}

/// The soft limit on this process's open file descriptors (`RLIMIT_NOFILE`), from
/// `/proc/self/limits`; `None` where that cannot be read (then only a failed accept tells).
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..].split_whitespace().next()?.parse().ok()
}

/// The connections a server may hold open: `--max-connections`, and below the open-file limit
/// `limit` by a reserve (an eighth of it, at least 32) for the listener, the runtime, standard
/// streams and the files answers read, so that a flood of connections cannot take the
/// descriptor the next accept needs.
fn connection_cap(max_connections: u32, limit: Option<u64>) -> usize {
    let by_limit = limit.map_or(u64::MAX, |l| l.saturating_sub((l / 8).max(32)).max(1));
    (max_connections as u64).min(by_limit) as usize
}

/// Whether an accept failed for want of file descriptors (the process's, or the system's).
fn out_of_descriptors(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(24 | 23)) // EMFILE, ENFILE
}

/// Accepts connections until SIGTERM or Ctrl-C, then lets the answers in progress end.
///
/// At most [`connection_cap`] connections are open. A connection accepted at the cap, or an
/// accept that fails for want of file descriptors, sheds the oldest connection on which no
/// request is in progress (one that has not sent a whole head first): a flood of slow or
/// stalled clients cannot keep a real request waiting in the listen queue for their head
/// timeouts. Only when every open connection has an answer in progress does a new one wait.
pub(super) async fn serve(app: Router, args: &Listen<'_>) -> Result<(), String> {
    let header_timeout = args.header_timeout;
    let listener =
        tokio::net::TcpListener::bind(args.addr).await.map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    note(args.command, format_args!("listening on http://{bound}"));
    let limit = open_file_limit();
    let cap = connection_cap(args.max_connections, limit);
    if let (Some(limit), true) = (limit, cap < args.max_connections as usize) {
        note(args.command, format_args!("at most {cap} connections at once (the open-file limit is {limit})"));
    }
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_timeout);
    let slots = Arc::new(tokio::sync::Semaphore::new(cap));
    let open = Open::default();
    let mut next_id = 0u64;
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let signal = shutdown();
    tokio::pin!(signal);
    loop {
        let stream = tokio::select! {
            _ = &mut signal => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) if out_of_descriptors(&e) => {
                    // The connection stays in the listen queue: make room, then accept it.
                    let pause = if open.shed_one() {
                        5
                    } else {
                        note(args.command, format_args!("cannot accept a connection: {e}"));
                        50
                    };
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    continue;
                }
                Err(e) => {
                    // A connection reset before it was accepted.
                    note(args.command, format_args!("cannot accept a connection: {e}"));
                    continue;
                }
            },
        };
        while connections.try_join_next().is_some() {}
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                // At the cap: close an idle or half-sent connection; with none, wait for an
                // answer to end (further connections wait in the kernel's listen queue).
                open.shed_one();
                tokio::select! {
                    _ = &mut signal => break,
                    slot = slots.clone().acquire_owned() => match slot {
                        Ok(slot) => slot,
                        Err(_) => break,
                    },
                }
            }
        };
        let _ = stream.set_nodelay(true);
        let (busy, close) = (Busy::default(), Arc::new(tokio::sync::Notify::new()));
        next_id += 1;
        open.lock().insert(next_id, (busy.clone(), close.clone()));
        let registered = Registered(open.clone(), next_id);
        let accepted = Accepted { busy, close, _registered: registered, _slot: slot };
        connections.spawn(connection(stream, app.clone(), http.clone(), stopping.clone(), accepted));
    }
    drop(listener);
    let _ = stop.send(true);
    while connections.join_next().await.is_some() {}
    note(args.command, "stopped: every answer in progress has ended");
    Ok(())
}

/// What a connection holds while it is open: its place among the open connections and its slot
/// under the cap (both given back when its task ends), what it is doing, and the signal that
/// sheds it.
pub(super) struct Accepted {
    busy: Busy,
    close: Arc<tokio::sync::Notify>,
    _registered: Registered,
    _slot: tokio::sync::OwnedSemaphorePermit,
}

/// Serves one connection until it closes, until it is shed, or, once shutdown starts, until its
/// answers in progress have ended.
pub(super) async fn connection(
    stream: tokio::net::TcpStream,
    app: Router,
    http: hyper::server::conn::http1::Builder,
    mut stopping: tokio::sync::watch::Receiver<bool>,
    accepted: Accepted,
) {
    let busy = accepted.busy.clone();
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
        // Shed: no request was in progress when it was picked, and none has begun since; the
        // socket closes now (one that began meanwhile ends its answer first, as at shutdown).
        _ = accepted.close.notified() => if busy.in_progress() == 0 {
            return;
        },
        _ = stopping.wait_for(|&stop| stop) => {}
    }
    // Closes an idle connection now, and any other once its answer has been written.
    conn.as_mut().graceful_shutdown();
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = tokio::time::sleep(SHUTDOWN_GRACE) => {
                if busy.in_progress() == 0 {
                    return;
                }
            }
        }
    }
}

/// Resolves when SIGTERM or Ctrl-C arrives.
pub(super) async fn shutdown() {
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

#[cfg(test)]
mod tests {
    use super::connection_cap;

    #[test]
    fn the_cap_leaves_descriptors_for_the_server_itself() {
        assert_eq!(connection_cap(1024, Some(128)), 96);
        assert_eq!(connection_cap(1024, Some(1024)), 896);
        assert_eq!(connection_cap(1024, Some(20_000)), 1024);
        assert_eq!(connection_cap(1024, None), 1024);
        assert_eq!(connection_cap(10, Some(16)), 1);
        assert_eq!(connection_cap(10, Some(0)), 1);
    }
}
