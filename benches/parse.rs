//! Parsing speed: a generated trace of a million operations (threads, a looper, posts,
//! handlers, locks, heap and static accesses), the largest shipped trace, and the conversion of
//! the largest shipped DroidRacer log.
//! Run: `cargo bench --features bench --bench parse`.

use std::fmt::Write;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tracepor::trace::em::parse_trace;

/// A well-formed trace of about `n` operations.
pub fn generated_trace(n: usize) -> String {
    let mut t = String::from("1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1 queue:77\n4 FORK par-tid:1 child-tid:2\n5 LOOP tid:1\n6 THREADINIT tid:2\n");
    let mut i = 7;
    let mut msg = 1;
    while i < n {
        let _ = writeln!(t, "{i} POST src:2 msg:{msg} dest:1");
        let _ = writeln!(t, "{} CALL tid:1 msg:{msg}", i + 1);
        let _ = writeln!(t, "{} LOCK tid:1 lock-obj:0x{:x}", i + 2, msg % 13);
        let _ = writeln!(t, "{} READ tid:1 obj:0x{:x} class:Lpkg/Cls; field:{}", i + 3, msg % 1000, msg % 7);
        let _ = writeln!(t, "{} WRITE-STATIC tid:1 class:Lpkg/S{}; field:{}", i + 4, msg % 50, msg % 3);
        let _ = writeln!(t, "{} UNLOCK tid:1 lock-obj:0x{:x}", i + 5, msg % 13);
        let _ = writeln!(t, "{} RET tid:1 msg:{msg}", i + 6);
        i += 7;
        msg += 1;
    }
    t
}

fn parse(c: &mut Criterion) {
    let big = generated_trace(1_000_000);
    let mut g = c.benchmark_group("parse");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("generated 1M operations", |b| {
        b.iter(|| parse_trace(Path::new("gen.txt"), big.as_bytes()).unwrap().ops.len())
    });
    let real = std::fs::read(em_explorer().join("tacas-2016/aarddict/trace.txt")).unwrap();
    g.throughput(Throughput::Bytes(real.len() as u64));
    g.bench_function("aarddict trace.txt", |b| b.iter(|| parse_trace(Path::new("t.txt"), &real).unwrap().ops.len()));
    // DroidRacer's raw log: read, converted and written (docs/abc-log.md). A 100 MB log from
    // benches/gen_abc_log.py is measured through `tracepor convert` (docs/performance.md).
    let log = std::fs::read(em_explorer().join("tacas-2016/aarddict/abc_log.txt")).unwrap();
    g.throughput(Throughput::Bytes(log.len() as u64));
    g.bench_function("aarddict abc_log.txt to trace.txt", |b| {
        b.iter(|| tracepor::trace::abc_log::to_em(Path::new("abc_log.txt"), &log).unwrap().trace.len())
    });
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);

/// EM-Explorer's traces, where the project reads them (../shared/traces/em-explorer; it ships
/// no copy).
fn em_explorer() -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/em-explorer");
    assert!(dir.is_dir(), "EM-Explorer's traces are not at {}: put shared/ beside this project", dir.display());
    dir
}
