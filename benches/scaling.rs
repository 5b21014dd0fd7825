//! Full ticks of the bundled profiles from 1k to 200k agents at constant
//! density. Throughput is in agents, so criterion reports agent-ticks per
//! second; the flock also runs with the grid index, side by side with the tree.

use criterion::{BenchmarkId, Criterion, Throughput};
use throng::spatial::IndexKind;

use crate::common::scenario;

/// Agent counts of the sweep.
pub const SIZES: [usize; 7] = [1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 200_000];

/// Register the scaling benches.
pub fn benches(c: &mut Criterion) {
    let series: [(&str, &str, Option<IndexKind>); 6] = [
        ("flock", "flock", None),
        ("flock_grid", "flock", Some(IndexKind::Grid)),
        ("leader_squads", "leader_squads", None),
        ("arena", "arena", None),
        ("circle", "circle", None),
        ("city", "city", None),
    ];
    for (label, profile, index) in series {
        let mut group = c.benchmark_group(format!("scaling/{label}"));
        group.sample_size(10);
        for n in SIZES {
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
                // Built here so a filtered-out bench costs nothing.
                let mut s = scenario(profile, n, index, 5);
                b.iter(|| s.step().expect("step"));
            });
        }
        group.finish();
    }
}
