//! Engine overhead: small records through a 5-stage pass-through pipeline
//! (source, three transforms, sink). `cargo bench -p tempora-engine`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tempora_engine::builtin::test_kinds;
use tempora_engine::{PipelineFile, Plan, Registry, RunOptions, RunStatus};

const RECORDS: u64 = 2_000_000;

fn pipeline(out: &std::path::Path, capacity: usize) -> Plan {
    let text = format!(
        r#"
[pipeline]
cutoff = 2019-12-31
out = "{}"
channel_capacity = {capacity}
[stages.gen]
kind = "test-generate"
count = {RECORDS}
[stages.a]
kind = "test-pass"
inputs = ["gen"]
[stages.b]
kind = "test-pass"
inputs = ["a"]
[stages.c]
kind = "test-pass"
inputs = ["b"]
[stages.sink]
kind = "test-count"
inputs = ["c"]
"#,
        out.display()
    );
    let file = PipelineFile::parse("bench.toml", &text, &[]).unwrap();
    Plan::new(file, &Registry::new(test_kinds())).unwrap()
}

fn five_stages(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("engine");
    group.throughput(Throughput::Elements(RECORDS));
    group.sample_size(10);
    for capacity in [256, 4096] {
        group.bench_function(format!("5-stage pass-through, capacity {capacity}"), |b| {
            b.iter(|| {
                let report = runtime
                    .block_on(tempora_engine::run(
                        pipeline(dir.path(), capacity),
                        RunOptions::default(),
                    ))
                    .unwrap();
                assert_eq!(report.status, RunStatus::Completed);
            });
        });
    }
    group.finish();
}

criterion_group!(benches, five_stages);
criterion_main!(benches);
