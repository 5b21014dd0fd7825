//! Full ticks of the bundled profiles from 1k to 200k agents at constant
//! density. Throughput is in agents, so criterion reports agent-ticks per
//! second; the flock also runs with the grid index, side by side with the tree.
//! Each figure is of the ticks the sweep times (ticks 6 to 25: [`bench_window`]).
//! `scaling/million`: the flock on the grid at 10k and at 1,000,000 agents in one
//! world, side by side (target: at most 40 ms a tick on two threads, and the time
//! per agent-tick within 1.5x of the 10k figure).

use criterion::{BenchmarkId, Criterion, Throughput};
use throng::spatial::IndexKind;

use crate::common::{bench_window, scenario};

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
                bench_window(b, &mut s);
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("scaling/million");
    group.sample_size(10);
    for n in [10_000, 1_000_000] {
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("flock_grid", n), &n, |b, &n| {
            let mut s = scenario("flock", n, Some(IndexKind::Grid), 5);
            bench_window(b, &mut s);
        });
    }
    group.finish();
}
