//! A rulings request's body read within its limits, its answer streamed from the ruling thread
//! through a bounded channel, and the request log line written when the answer ends.

use super::*;

/// The number of cases an answer ruled, for the request log; known once the answer has ended.
#[derive(Clone, Default)]
pub(super) struct Cases(pub(super) Arc<OnceLock<u64>>);

/// Bytes of answer sent to the response body at a time.
pub(super) const PIECE: usize = 64 << 10;

/// Pieces of answer waiting for the client; a ruling thread that gets this far ahead waits.
pub(super) const PIECES_AHEAD: usize = 8;

/// Seconds a request body may take before it must arrive at [`BODY_MIN_RATE`].
pub(super) const BODY_GRACE: Duration = Duration::from_secs(5);

/// Bytes a second a request body must average once [`BODY_GRACE`] has passed: a client that
/// trickles its body holds a concurrency slot for seconds, not for the whole time limit.
pub(super) const BODY_MIN_RATE: f64 = 16.0 * 1024.0;

/// One log line per request once its answer has ended: method, path, status, duration, cases,
/// and whether the answer was sent whole (never a header).
pub(super) async fn log(mut req: Request, next: Next) -> Response {
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
pub(super) struct LogEntry {
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
pub(super) struct Logged {
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

/// Why a request body was not read.
pub(super) enum BodyFault {
    TooLarge,
    TooLate,
    TooSlow,
    Broken,
}

/// Reads a body of at most `max` bytes that arrives by `deadline` and, after [`BODY_GRACE`],
/// at [`BODY_MIN_RATE`] or faster.
pub(super) async fn read_body(mut body: Body, max: u64, deadline: tokio::time::Instant) -> Result<Bytes, BodyFault> {
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
pub(super) enum Piece {
    Data(Bytes),
    /// The ruling ended; the number of cases it ruled.
    Done(u64),
    Failed,
}

/// The `io::Write` a ruling thread writes its answer into: pieces of about [`PIECE`] bytes
/// over a channel of [`PIECES_AHEAD`]. When the answer's body is gone (the client left, the
/// time ran out) a write fails, which ends the ruling.
pub(super) struct ToBody {
    pub(super) tx: mpsc::Sender<Piece>,
    pub(super) buf: Vec<u8>,
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
pub(super) struct Answer {
    pub(super) first: Option<Bytes>,
    pub(super) rx: mpsc::Receiver<Piece>,
    pub(super) deadline: Pin<Box<tokio::time::Sleep>>,
    pub(super) cases: Cases,
    pub(super) done: bool,
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
