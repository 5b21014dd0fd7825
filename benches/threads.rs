//! The 100k-agent flock tick on explicit rayon pools of 1 and 2 threads.

use criterion::{BenchmarkId, Criterion, Throughput};
use throng::spatial::IndexKind;

use crate::common::{bench_window, pool, scenario};

/// Register the thread-count benches.
pub fn benches(c: &mut Criterion) {
    let n = 100_000;
    for (label, index) in [("kdtree", IndexKind::KdTree), ("grid", IndexKind::Grid)] {
        let mut group = c.benchmark_group(format!("threads/flock_100k_{label}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(n as u64));
        for threads in [1usize, 2] {
            group.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, &t| {
                let mut s = scenario("flock", n, Some(index), 0);
                s.world_mut().set_thread_pool(Some(pool(t)));
                for _ in 0..5 {
                    s.step().expect("step");
                }
                bench_window(b, &mut s);
            });
        }
        group.finish();
    }
}
