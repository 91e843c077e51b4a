//! The runtime on pipelines of the engine's test stages: counts, backpressure,
//! shutdown, a failing stage.

use std::time::Duration;

use tempora_engine::builtin::test_kinds;
use tempora_engine::{start, ErrorDomain, PipelineFile, Plan, Registry, RunOptions, RunStatus};

fn plan(out: &std::path::Path, stages: &str) -> Plan {
    let text = format!(
        "[pipeline]\nname = \"t\"\ncutoff = 2019-12-31\nout = \"{}\"\nchannel_capacity = 64\n{stages}",
        out.display()
    );
    let file = PipelineFile::parse("t.toml", &text, &[]).unwrap();
    Plan::new(file, &Registry::new(test_kinds())).unwrap()
}

fn run_json(out: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_flow_through_every_stage_and_run_json_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        dir.path(),
        r#"
[stages.gen]
kind = "test-generate"
count = 10000
[stages.a]
kind = "test-pass"
inputs = ["gen"]
[stages.b]
kind = "test-pass"
inputs = ["a"]
[stages.sink1]
kind = "test-count"
inputs = ["b"]
[stages.sink2]
kind = "test-count"
inputs = ["b", "a"]
"#,
    );
    let report = start(plan, RunOptions::default()).unwrap().wait().await;
    assert_eq!(report.status, RunStatus::Completed);
    let json = run_json(dir.path());
    assert_eq!(json["completed"], true);
    assert_eq!(json["status"], "completed");
    let stages = json["stages"].as_array().unwrap();
    let count = |name: &str, field: &str| {
        stages.iter().find(|s| s["name"] == name).unwrap()[field]
            .as_u64()
            .unwrap()
    };
    assert_eq!(count("gen", "records_out"), 10000);
    assert_eq!(count("b", "records_in"), 10000);
    // b's output is fanned out to both sinks but counted once.
    assert_eq!(count("b", "records_out"), 10000);
    assert_eq!(count("sink1", "records_in"), 10000);
    // sink2 reads two inputs and gets both.
    assert_eq!(count("sink2", "records_in"), 20000);
    assert_eq!(json["config"]["stages"]["gen"]["count"], 10000);
    assert!(dir.path().join("rejected.jsonl").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_sink_holds_back_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        dir.path(),
        r#"
[stages.gen]
kind = "test-generate"
count = 3000
[stages.a]
kind = "test-pass"
inputs = ["gen"]
[stages.slow]
kind = "test-count"
inputs = ["a"]
delay_ms = 2
"#,
    );
    let running = start(plan, RunOptions::default()).unwrap();
    let stats = running.stats();
    let (gen, slow) = (stats[0].1.clone(), stats[2].1.clone());
    let waiter = tokio::spawn(running.wait());
    // Per edge: the channel (64 records), the producer's unsent batch (32), and what
    // the consumer holds: one batch plus whatever it took from the channel (64).
    let bound = 2 * (64 + 32 + 32 + 64);
    let mut max_in_flight = 0;
    let mut saw_source_blocked = false;
    while !waiter.is_finished() {
        let produced = gen.records_out();
        let consumed = slow.records_in();
        max_in_flight = max_in_flight.max(produced.saturating_sub(consumed));
        saw_source_blocked |= produced > 0 && produced < 3000 && consumed < produced;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let report = waiter.await.unwrap();
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(slow.records_in(), 3000);
    assert!(
        saw_source_blocked,
        "the source was never seen waiting for the sink"
    );
    assert!(
        max_in_flight <= bound,
        "{max_in_flight} records in flight, bound {bound}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_sources_and_drains_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        dir.path(),
        r#"
[stages.gen]
kind = "test-generate"
count = 1000000
interval_us = 100
[stages.a]
kind = "test-pass"
inputs = ["gen"]
[stages.sink]
kind = "test-count"
inputs = ["a"]
"#,
    );
    let options = RunOptions::default();
    let shutdown = options.shutdown.clone();
    let running = start(plan, options).unwrap();
    let stats = running.stats();
    tokio::time::sleep(Duration::from_millis(100)).await;
    shutdown.cancel();
    let report = running.wait().await;
    assert_eq!(report.status, RunStatus::Interrupted);
    let produced = stats[0].1.records_out();
    assert!(produced > 0 && produced < 1_000_000, "{produced}");
    assert_eq!(
        stats[2].1.records_in(),
        produced,
        "everything produced was drained"
    );
    let json = run_json(dir.path());
    assert_eq!(json["status"], "interrupted");
    assert_eq!(json["completed"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_stage_stops_the_run_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        dir.path(),
        r#"
[stages.gen]
kind = "test-generate"
count = 1000000
[stages.bad]
kind = "test-fail"
inputs = ["gen"]
fail_after = 500
[stages.sink]
kind = "test-count"
inputs = ["bad"]
"#,
    );
    let report = tokio::time::timeout(
        Duration::from_secs(30),
        start(plan, RunOptions::default()).unwrap().wait(),
    )
    .await
    .expect("a failing stage must end the run");
    assert_eq!(report.status, RunStatus::Failed);
    let error = report.error.unwrap();
    assert_eq!(error.stage.as_deref(), Some("bad"));
    assert_eq!(error.domain, ErrorDomain::Input);
    assert!(error.message.contains("record 500"), "{}", error.message);
    let json = run_json(dir.path());
    assert_eq!(json["status"], "failed");
    assert_eq!(json["error"]["stage"], "bad");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_ends_the_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        dir.path(),
        r#"
[stages.gen]
kind = "test-generate"
count = 1000000
[stages.sink]
kind = "test-count"
inputs = ["gen"]
delay_ms = 1000
"#,
    );
    let options = RunOptions::default();
    let abort = options.abort.clone();
    let running = start(plan, options).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    abort.cancel();
    let report = tokio::time::timeout(Duration::from_secs(5), running.wait())
        .await
        .expect("abort must not wait for the slow sink");
    assert_eq!(report.status, RunStatus::Aborted);
}

#[test]
fn an_unwritable_output_directory_fails_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    let plan = plan(
        &blocker.join("out"),
        "[stages.gen]\nkind = \"test-generate\"\ncount = 1\n[stages.sink]\nkind = \"test-count\"\ninputs = [\"gen\"]\n",
    );
    // After planning (which would name it), as when it appears between the two.
    std::fs::write(&blocker, "not a directory").unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let err = rt
        .block_on(async { start(plan, RunOptions::default()).map(|_| ()) })
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("not writable") && message.contains("file/out"),
        "{message}"
    );
}
