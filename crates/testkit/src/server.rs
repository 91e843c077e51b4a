//! The loopback HTTP server: hyper on 127.0.0.1, port 0, one task per
//! connection, a log of every request with its arrival time, and faults
//! injected at the connection level (resets, truncated bodies, IP blocks) or
//! as answers (429, 503, error pages).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
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

use crate::cdx::{self, Answer, RowOrder};
use crate::corpus::{Corpus, MockCapture};
use crate::faults::{self, FaultGate, FaultPages, FaultRule, RequestKind};
use crate::limits::{ArchiveLimits, Enforcer, Verdict};
use crate::log::{Outcome, RequestLog, RequestRecord};
use crate::order::{self, Reorder};
use crate::replay;

pub(crate) type Body = BoxBody<Bytes, io::Error>;

#[derive(Default)]
struct State {
    corpus: Corpus,
    blocked: Vec<String>,
    limits: Option<Enforcer>,
    /// `Reorder::ReplayDelays`: its seed and longest delay.
    replay_delays: Option<(u64, Duration)>,
    /// The order of CDX rows: `Reorder::PageRows` or `Reorder::ListingRows`.
    cdx_rows: RowOrder,
}

struct Shared {
    state: Mutex<State>,
    faults: FaultGate,
    log: RequestLog,
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
            faults: FaultGate::default(),
            log: RequestLog::new(),
            base: format!("http://{addr}"),
        });
        let cancel = CancellationToken::new();
        let gate = shared.clone();
        let service = shared.clone();
        tokio::spawn(accept_loop(
            listener,
            cancel.clone(),
            "mock wayback",
            move || gate.faults.blocked(Instant::now()),
            move |kill, req| handle(service.clone(), kill, req),
        ));
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
        self.shared.faults.add(rule);
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
            Reorder::PageRows { seed } => state.cdx_rows = RowOrder::Page(seed),
            Reorder::ListingRows { seed } => state.cdx_rows = RowOrder::Listing(seed),
        }
    }

    /// Excludes a site: every URL whose urlkey starts with that of `url_prefix`.
    pub fn block_site(&self, url_prefix: &str) {
        let mut key = urlkey_of(url_prefix);
        if key.ends_with(")/") {
            key.pop();
        }
        self.shared.lock().blocked.push(key);
    }

    /// Every request so far, with its arrival time and what the mock did.
    pub fn log(&self) -> &RequestLog {
        &self.shared.log
    }
}

impl Drop for MockWayback {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// Accepts connections on `listener` until `cancel`, each served by `handle`
/// on a task of its own; while `blocked`, a connection is reset at once (an
/// IP block). `name` names the mock in warnings.
pub(crate) async fn accept_loop<H, F>(
    listener: TcpListener,
    cancel: CancellationToken,
    name: &'static str,
    blocked: impl Fn() -> bool,
    handle: H,
) where
    H: Fn(Arc<AtomicBool>, Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<Response<Body>, io::Error>> + Send + 'static,
{
    loop {
        let stream = tokio::select! {
            () = cancel.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, mock = name, "accept failed");
                    continue;
                }
            },
        };
        if blocked() {
            let _ = stream.set_zero_linger();
            drop(stream);
            continue;
        }
        let kill = Arc::new(AtomicBool::new(false));
        let io = TokioIo::new(FaultyStream {
            inner: stream,
            kill: kill.clone(),
        });
        let handle = handle.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(kill.clone(), req));
            let conn = http1::Builder::new().serve_connection(io, service);
            tokio::select! {
                _ = conn => {}
                () = cancel.cancelled() => {}
            }
        });
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

/// The Wayback's answers to the faults that answer in place of it.
const PAGES: FaultPages = FaultPages {
    server: "nginx",
    too_many: |_| replay::wayback_page(429, "Too Many Requests"),
    unavailable: || replay::wayback_page(503, "Service Unavailable"),
    error_page_200: || replay::wayback_page(200, "The Wayback Machine is temporarily offline."),
};

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
    let arrival = shared.log.arrive(now);

    let (admission, verdict, latency, reorder_delay) = {
        // The limits see the requests in the order the gate admits them, and a
        // firewall blocks the next one admitted: both under the state's lock.
        let mut state = shared.lock();
        let admission = shared.faults.admit(kind, &target, now, true);
        let (verdict, latency) = match state.limits.as_mut() {
            Some(limits) if !admission.blocked => (limits.admit(kind, now), limits.latency()),
            _ => (Verdict::Pass, Duration::ZERO),
        };
        if let Verdict::Firewall(length) = verdict {
            shared.faults.block_until(now + length);
        }
        let reorder_delay = match state.replay_delays {
            Some((seed, max)) if kind == RequestKind::Replay => {
                order::replay_delay(seed, max, &target)
            }
            _ => Duration::ZERO,
        };
        (admission, verdict, latency, reorder_delay)
    };
    let log = |outcome: Outcome| {
        shared.log.push(RequestRecord {
            at: arrival.at,
            method: req.method().as_str().to_string(),
            target: target.clone(),
            kind,
            query: None,
            params: form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
            user_agent: user_agent.clone(),
            outcome,
            during_pause: admission.during_pause,
            in_flight: arrival.in_flight,
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
    let delivery =
        match faults::meet(admission.fault, now, &shared.faults, &PAGES, &kill, &log).await {
            faults::Met::Go(delivery) => delivery,
            faults::Met::Answered(answered) => return answered,
        };

    let (answer, gzip) = {
        let state = shared.lock();
        let is_blocked = |key: &str| Shared::is_blocked_key(&state, key);
        match kind {
            RequestKind::Cdx => {
                let query = req.uri().query().unwrap_or("");
                let answer = cdx::answer_in(&state.corpus, query, is_blocked, state.cdx_rows);
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
    log(if delivery.truncate {
        Outcome::Truncated(status)
    } else {
        Outcome::Status(status)
    });
    Ok(respond(
        answer,
        gzip && accepts_gzip,
        delivery.wrong_encoding,
        delivery.truncate,
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
