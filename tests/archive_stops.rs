//! When the Archive stops us (it keeps refusing connections, or keeps answering
//! 429), `tempora cdx` says so and exits 75 (`EX_TEMPFAIL`: run again later),
//! as `tempora run` does, so cron wrappers and systemd can tell it from a
//! failure of ours.

use std::process::{Command, Output};
use std::time::Duration;

use tempora_testkit::{Corpus, Fault, FaultRule, MockWayback, Target};

async fn cdx(server: &MockWayback) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.env("RUST_LOG", "warn").args([
        "cdx",
        "bbc.co.uk/news/*",
        "--endpoint",
        &server.endpoint(),
        "--rate",
        "0",
        "--min-pause",
        "20ms",
        "--block-pause",
        "20ms",
    ]);
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_ip_exits_75_with_what_to_do() {
    let server = MockWayback::start(Corpus::default()).await.unwrap();
    server.add_fault(FaultRule::new(
        Target::Any,
        Fault::Block(Duration::from_secs(3600)),
        1,
    ));
    let o = cdx(&server).await;
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(75), "{err}");
    assert!(err.contains("blocked this IP"), "{err}");
    assert!(o.stdout.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_of_429_after_every_pause_exit_75() {
    let server = MockWayback::start(Corpus::default()).await.unwrap();
    server.add_fault(FaultRule::new(
        Target::Cdx,
        Fault::RateLimit { retry_after: 0 },
        100,
    ));
    let o = cdx(&server).await;
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(75), "{err}");
    assert!(err.contains("429"), "{err}");
    // It paused after each: ten pauses, then it stopped.
    assert_eq!(server.log().requests().len(), 10);
}
