//! Each phase of the tick on its own, at 10k and 100k agents, with either
//! index: the time criterion records is the phase's own share of real ticks
//! (from the world's per-phase timers), so the phases are measured in their
//! true context, over the ticks the sweep times ([`crate::common::WINDOW`]). The
//! neighbour queries on their own are in `spatial`.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use throng::spatial::IndexKind;
use throng::TickStats;

use crate::common::{bench_window_by, scenario};

type Phase = (&'static str, fn(&TickStats) -> u64);

const PHASES: [Phase; 4] = [
    ("index_rebuild", |s| s.times.index_ns),
    ("steering", |s| s.times.steer_ns),
    ("integration", |s| s.times.integrate_ns),
    ("tick", |s| s.times.total_ns),
];

/// Register the per-phase benches.
pub fn benches(c: &mut Criterion) {
    for (index_label, index) in [("kdtree", IndexKind::KdTree), ("grid", IndexKind::Grid)] {
        for n in [10_000usize, 100_000] {
            let mut group = c.benchmark_group(format!("phases/flock_{index_label}"));
            group.sample_size(10);
            group.throughput(Throughput::Elements(n as u64));
            for (name, pick) in PHASES {
                group.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                    let mut s = scenario("flock", n, Some(index), 5);
                    bench_window_by(b, &mut s, |s| {
                        Duration::from_nanos(pick(&s.step().expect("step")))
                    });
                });
            }
            group.finish();
        }
    }
}
