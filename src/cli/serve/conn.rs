//! Connections: the accept loop on hyper with its limits (request heads, idle connections, how
//! many at once) and a shutdown that lets answers in progress end and drops the rest.

use super::*;

/// The requests of one connection whose answer has not ended, so that shutdown can tell a
/// connection with an answer to finish from an idle or half-sent one.
#[derive(Clone, Default)]
pub(super) struct Busy(Arc<AtomicUsize>);

/// Counts one request of a connection as in progress until dropped.
pub(super) struct InProgress(Arc<AtomicUsize>);

impl InProgress {
    pub(super) fn new(busy: &Busy) -> InProgress {
        busy.0.fetch_add(1, Ordering::SeqCst);
        InProgress(busy.0.clone())
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
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

/// Accepts connections until SIGTERM or Ctrl-C, then lets the answers in progress end.
pub(super) async fn serve(app: Router, args: &Listen<'_>) -> Result<(), String> {
    let header_timeout = args.header_timeout;
    let listener =
        tokio::net::TcpListener::bind(args.addr).await.map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    note(args.command, format_args!("listening on http://{bound}"));
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
                    note(args.command, format_args!("cannot accept a connection: {e}"));
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
    note(args.command, "stopped: every answer in progress has ended");
    Ok(())
}

/// Serves one connection until it closes or, once shutdown starts, until its answers in
/// progress have ended.
pub(super) async fn connection(
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
