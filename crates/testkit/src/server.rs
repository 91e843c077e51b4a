//! The loopback HTTP server: hyper on 127.0.0.1, port 0, one task per
//! connection, a log of every request with its arrival time, and faults
//! injected at the connection level (resets, truncated bodies, IP blocks) or
//! as answers (429, 503, error pages).

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tempora_wayback_format::urlkey::urlkey_of;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::cdx::{self, Answer};
use crate::corpus::{Corpus, MockCapture};
use crate::faults::{self, Fault, FaultRule, RequestKind};
use crate::limits::{ArchiveLimits, Enforcer, Verdict};
use crate::order::{self, Reorder};
use crate::replay;

pub(crate) type Body = BoxBody<Bytes, io::Error>;

/// How the server dealt with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Answered with this status (the body may still have been cut, see `Truncated`).
    Status(u16),
    /// Answered with this status, then the body was cut short.
    Truncated(u16),
    /// The connection was reset without an answer.
    Reset,
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    /// Arrival, since the server started.
    pub at: Duration,
    /// Path and query.
    pub target: String,
    /// CDX, replay or other.
    pub kind: RequestKind,
    /// The `User-Agent` header.
    pub user_agent: Option<String>,
    /// What the server did.
    pub outcome: Outcome,
    /// It arrived while a `Retry-After` the server had sent was still running.
    pub during_pause: bool,
    /// Requests being answered when it arrived, itself included.
    pub in_flight: usize,
}

#[derive(Default)]
struct State {
    corpus: Corpus,
    faults: Vec<FaultRule>,
    blocked: Vec<String>,
    block_until: Option<Instant>,
    pause_until: Option<Instant>,
    limits: Option<Enforcer>,
    /// `Reorder::ReplayDelays`: its seed and longest delay.
    replay_delays: Option<(u64, Duration)>,
    /// `Reorder::PageRows`: its seed.
    page_rows: Option<u64>,
    log: Vec<RequestRecord>,
}

struct Shared {
    state: Mutex<State>,
    in_flight: AtomicUsize,
    started: Instant,
    base: String,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock only happens in a failing test; keep serving.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn is_blocked_key(state: &State, key: &str) -> bool {
        state.blocked.iter().any(|b| key.starts_with(b.as_str()))
    }
}

/// A mock Wayback Machine on 127.0.0.1. Stops when dropped.
pub struct MockWayback {
    addr: SocketAddr,
    shared: Arc<Shared>,
    cancel: CancellationToken,
}

impl MockWayback {
    /// Starts a server for `corpus` on a free loopback port.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub async fn start(corpus: Corpus) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                corpus,
                ..State::default()
            }),
            in_flight: AtomicUsize::new(0),
            started: Instant::now(),
            base: format!("http://{addr}"),
        });
        let cancel = CancellationToken::new();
        tokio::spawn(accept_loop(listener, shared.clone(), cancel.clone()));
        Ok(Self {
            addr,
            shared,
            cancel,
        })
    }

    /// `http://127.0.0.1:<port>`: what a client uses as its endpoint.
    pub fn endpoint(&self) -> String {
        self.shared.base.clone()
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Archives one more capture (e.g. between two runs of an incremental crawl).
    pub fn add_capture(&self, capture: MockCapture) {
        self.shared.lock().corpus.add(capture);
    }

    /// Adds a fault rule; rules fire in the order they were added.
    pub fn add_fault(&self, rule: FaultRule) {
        self.shared.lock().faults.push(rule);
    }

    /// Enforces the Archive's per-IP limits from now on (see [`ArchiveLimits`]):
    /// 429s without `Retry-After` above them, a firewall for clients that keep
    /// sending into 429s, and every answer after `latency`.
    pub fn enforce(&self, limits: ArchiveLimits) {
        self.shared.lock().limits = Some(Enforcer::new(limits));
    }

    /// Serves the same archive in another order from now on (see [`Reorder`]).
    pub fn reorder(&self, reorder: Reorder) {
        let mut state = self.shared.lock();
        match reorder {
            Reorder::Captures { seed } => state.corpus = state.corpus.reinserted(seed),
            Reorder::ReplayDelays { seed, max } => state.replay_delays = Some((seed, max)),
            Reorder::PageRows { seed } => state.page_rows = Some(seed),
        }
    }

    /// The most requests of `kind` that arrived within any `window` (a sliding
    /// one, as the Archive counts).
    pub fn busiest(&self, kind: RequestKind, window: Duration) -> usize {
        let at: Vec<Duration> = self
            .requests()
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.at)
            .collect();
        let mut first = 0;
        let mut most = 0;
        for (last, t) in at.iter().enumerate() {
            while *t - at[first] >= window {
                first += 1;
            }
            most = most.max(last - first + 1);
        }
        most
    }

    /// The most requests that were being answered at once.
    pub fn most_in_flight(&self) -> usize {
        self.requests()
            .iter()
            .map(|r| r.in_flight)
            .max()
            .unwrap_or(0)
    }

    /// Excludes a site: every URL whose urlkey starts with that of `url_prefix`.
    pub fn block_site(&self, url_prefix: &str) {
        let mut key = urlkey_of(url_prefix);
        if key.ends_with(")/") {
            key.pop();
        }
        self.shared.lock().blocked.push(key);
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared.lock().log.clone()
    }

    /// Requests that arrived during a `Retry-After` pause the server had asked for.
    pub fn pause_violations(&self) -> Vec<RequestRecord> {
        self.requests()
            .into_iter()
            .filter(|r| r.during_pause)
            .collect()
    }

    /// Forgets the request log.
    pub fn clear_log(&self) {
        self.shared.lock().log.clear();
    }
}

impl Drop for MockWayback {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, cancel: CancellationToken) {
    loop {
        let stream = tokio::select! {
            () = cancel.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "mock wayback: accept failed");
                    continue;
                }
            },
        };
        let blocked = shared
            .lock()
            .block_until
            .is_some_and(|t| Instant::now() < t);
        if blocked {
            let _ = stream.set_zero_linger();
            drop(stream);
            continue;
        }
        let kill = Arc::new(AtomicBool::new(false));
        let io = TokioIo::new(FaultyStream {
            inner: stream,
            kill: kill.clone(),
        });
        let shared = shared.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(shared.clone(), kill.clone(), req));
            let conn = http1::Builder::new().serve_connection(io, service);
            tokio::select! {
                _ = conn => {}
                () = cancel.cancelled() => {}
            }
        });
    }
}

/// Counts a request as being answered until it is dropped.
struct InFlight<'a> {
    shared: &'a Shared,
    at_arrival: usize,
}

impl<'a> InFlight<'a> {
    fn enter(shared: &'a Shared) -> Self {
        let at_arrival = shared.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        Self { shared, at_arrival }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.shared.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A TCP stream that is reset (RST, not FIN) when dropped after a `Reset` fault.
pub(crate) struct FaultyStream {
    pub(crate) inner: TcpStream,
    pub(crate) kill: Arc<AtomicBool>,
}

impl Drop for FaultyStream {
    fn drop(&mut self) {
        if self.kill.load(Ordering::Relaxed) {
            let _ = self.inner.set_zero_linger();
        }
    }
}

impl AsyncRead for FaultyStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for FaultyStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

// Long on purpose: one request's whole path through the mock (limits, the
// fault rules in the order a real server would meet them, then the route),
// read top to bottom as the Archive's behaviour it models; split, the order of
// the checks (which tests depend on) would be spread over several functions.
async fn handle(
    shared: Arc<Shared>,
    kill: Arc<AtomicBool>,
    req: Request<Incoming>,
) -> Result<Response<Body>, io::Error> {
    let target = req.uri().path_and_query().map_or_else(
        || req.uri().path().to_string(),
        |pq| pq.as_str().to_string(),
    );
    let kind = if req.uri().path() == "/cdx/search/cdx" {
        RequestKind::Cdx
    } else if req.uri().path().starts_with("/web/") {
        RequestKind::Replay
    } else {
        RequestKind::Other
    };
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let user_agent = header("user-agent");
    let accepts_gzip = header("accept-encoding").is_some_and(|v| v.contains("gzip"));
    let now = Instant::now();
    let in_flight = InFlight::enter(&shared);

    let (fault, during_pause, verdict, latency, reorder_delay) = {
        let mut state = shared.lock();
        let during_pause = state.pause_until.is_some_and(|t| now < t);
        let blocked = state.block_until.is_some_and(|t| now < t);
        let fault = if blocked {
            Some(Fault::Reset)
        } else {
            faults::pick(&mut state.faults, kind, &target)
        };
        let (verdict, latency) = match state.limits.as_mut() {
            Some(limits) if !blocked => (limits.admit(kind, now), limits.latency()),
            _ => (Verdict::Pass, Duration::ZERO),
        };
        if let Verdict::Firewall(length) = verdict {
            state.block_until = Some(now + length);
        }
        let reorder_delay = match state.replay_delays {
            Some((seed, max)) if kind == RequestKind::Replay => {
                order::replay_delay(seed, max, &target)
            }
            _ => Duration::ZERO,
        };
        (fault, during_pause, verdict, latency, reorder_delay)
    };
    let log = |outcome: Outcome| {
        shared.lock().log.push(RequestRecord {
            at: now - shared.started,
            target: target.clone(),
            kind,
            user_agent: user_agent.clone(),
            outcome,
            during_pause,
            in_flight: in_flight.at_arrival,
        });
    };
    if !latency.is_zero() || !reorder_delay.is_zero() {
        tokio::time::sleep(latency + reorder_delay).await;
    }
    match verdict {
        Verdict::Pass => {}
        Verdict::TooMany => {
            // The Archive's own limit: no `Retry-After`.
            log(Outcome::Status(429));
            let answer = replay::wayback_page(429, "Too Many Requests");
            return Ok(respond(answer, false, false, false));
        }
        Verdict::Firewall(_) => {
            log(Outcome::Reset);
            kill.store(true, Ordering::Relaxed);
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "firewalled for sending into 429s",
            ));
        }
    }

    let mut wrong_encoding = false;
    let mut truncate = false;
    match fault {
        Some(Fault::Reset) => {
            log(Outcome::Reset);
            kill.store(true, Ordering::Relaxed);
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "injected reset",
            ));
        }
        Some(Fault::Block(duration)) => {
            shared.lock().block_until = Some(now + duration);
            log(Outcome::Reset);
            kill.store(true, Ordering::Relaxed);
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "injected block",
            ));
        }
        Some(Fault::RateLimit { retry_after }) => {
            shared.lock().pause_until = Some(Instant::now() + Duration::from_secs(retry_after));
            log(Outcome::Status(429));
            let mut answer = replay::wayback_page(429, "Too Many Requests");
            answer
                .headers
                .push(("Retry-After".into(), retry_after.to_string()));
            return Ok(respond(answer, false, false, false));
        }
        Some(Fault::Unavailable) => {
            log(Outcome::Status(503));
            return Ok(respond(
                replay::wayback_page(503, "Service Unavailable"),
                false,
                false,
                false,
            ));
        }
        Some(Fault::ErrorPage200) => {
            log(Outcome::Status(200));
            let page = replay::wayback_page(200, "The Wayback Machine is temporarily offline.");
            return Ok(respond(page, false, false, false));
        }
        Some(Fault::Slow(delay)) => tokio::time::sleep(delay).await,
        Some(Fault::WrongEncoding) => wrong_encoding = true,
        Some(Fault::Truncate) => truncate = true,
        None => {}
    }

    let (answer, gzip) = {
        let state = shared.lock();
        let is_blocked = |key: &str| Shared::is_blocked_key(&state, key);
        match kind {
            RequestKind::Cdx => {
                let query = req.uri().query().unwrap_or("");
                let answer = match state.page_rows {
                    Some(seed) => cdx::answer_unsorted(&state.corpus, query, is_blocked, seed),
                    None => cdx::answer(&state.corpus, query, is_blocked),
                };
                (answer, true)
            }
            RequestKind::Replay => {
                let r = replay::answer(&state.corpus, &shared.base, &target, is_blocked);
                (r.answer, r.gzip)
            }
            RequestKind::Sparql | RequestKind::Api | RequestKind::Other => {
                (replay::wayback_page(404, "Not found"), false)
            }
        }
    };
    let status = answer.status;
    log(if truncate {
        Outcome::Truncated(status)
    } else {
        Outcome::Status(status)
    });
    Ok(respond(
        answer,
        gzip && accepts_gzip,
        wrong_encoding,
        truncate,
    ))
}

fn respond(answer: Answer, gzip: bool, wrong_encoding: bool, truncate: bool) -> Response<Body> {
    respond_as("nginx", answer, gzip, wrong_encoding, truncate)
}

/// `answer` as a response from a server that calls itself `server`, its body
/// gzipped, falsely labelled gzip, or cut in half after headers announcing it whole.
pub(crate) fn respond_as(
    server: &str,
    answer: Answer,
    gzip: bool,
    wrong_encoding: bool,
    truncate: bool,
) -> Response<Body> {
    let mut body = answer.body;
    let mut builder = Response::builder()
        .status(answer.status)
        .header("Server", server);
    for (name, value) in &answer.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    if gzip && !body.is_empty() {
        body = gzip_bytes(&body);
        builder = builder.header("Content-Encoding", "gzip");
    } else if wrong_encoding {
        builder = builder.header("Content-Encoding", "gzip");
    }
    let full = body.len();
    let body: Body = if truncate && full > 1 {
        builder = builder.header("Content-Length", full.to_string());
        let half = Bytes::from(body[..full / 2].to_vec());
        let frames: Vec<Result<Frame<Bytes>, io::Error>> = vec![
            Ok(Frame::data(half)),
            Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "injected truncation",
            )),
        ];
        BodyExt::boxed(StreamBody::new(futures_util::stream::iter(frames)))
    } else {
        Full::new(Bytes::from(body))
            .map_err(|never| match never {})
            .boxed()
    };
    builder.body(body).unwrap_or_else(|_| {
        // Only reachable with a header the corpus author mistyped; answer plainly.
        let mut response = Response::new(
            Full::new(Bytes::new())
                .map_err(|never| match never {})
                .boxed(),
        );
        *response.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        response
    })
}

fn gzip_bytes(data: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}
