//! Neighbour-index benchmarks: rebuild and a full batched neighbour pass at constant
//! density (about ten neighbours within the radius).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use glam::Vec2;
use rayon::prelude::*;
use throng::spatial::{
    spatial_order, BatchNeighbours, IndexKind, NeighbourQuery, OrderScratch, SpatialIndex,
    CHUNK_ROWS,
};

/// Neighbour radius of the benchmarks.
pub const RADIUS: f32 = 1.0;
/// Neighbours kept per row.
pub const CAP: usize = 10;
/// Agents per unit area: about ten within [`RADIUS`].
pub const DENSITY: f32 = 10.0 / (std::f32::consts::PI * RADIUS * RADIUS);
/// Agent counts benchmarked.
pub const SIZES: [usize; 2] = [10_000, 100_000];

/// `n` positions uniform in a square at [`DENSITY`] (seeded, deterministic), in
/// [`spatial_order`].
pub fn crowd(n: usize) -> Vec<Vec2> {
    let side = (n as f32 / DENSITY).sqrt();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15 ^ n as u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let raw: Vec<Vec2> = (0..n)
        .map(|_| Vec2::new(next() * side, next() * side))
        .collect();
    let mut perm = Vec::new();
    spatial_order(&raw, &mut perm, &mut OrderScratch::default());
    perm.iter().map(|&i| raw[i as usize]).collect()
}

/// One full neighbour pass as the world's steering pass runs it: rows in chunks of
/// `chunk`, one gather per chunk, one scan per row. Returns the total neighbour
/// count.
pub fn neighbour_pass(
    index: &SpatialIndex,
    positions: &[Vec2],
    counts: &mut [u32],
    chunk: usize,
) -> u64 {
    let query = NeighbourQuery::within(index, RADIUS).at_most(CAP);
    counts.par_chunks_mut(chunk).enumerate().for_each_init(
        BatchNeighbours::default,
        |bn, (ci, counts)| {
            let start = ci * chunk;
            let rows = start..start + counts.len();
            bn.gather(index, positions, rows.clone(), RADIUS, None);
            for (row, c) in rows.zip(counts.iter_mut()) {
                *c = bn.scan(index, positions, row, &query).len() as u32;
            }
        },
    );
    counts.iter().map(|&c| u64::from(c)).sum()
}

/// Register the spatial benchmarks.
pub fn benches(c: &mut Criterion) {
    let kinds = [(IndexKind::KdTree, "kdtree"), (IndexKind::Grid, "grid")];
    let mut g = c.benchmark_group("spatial");
    g.sample_size(20);
    for n in SIZES {
        let positions = crowd(n);
        g.throughput(Throughput::Elements(n as u64));
        let mut perm = Vec::new();
        let mut scratch = OrderScratch::default();
        g.bench_with_input(BenchmarkId::new("order", n), &positions, |b, p| {
            b.iter(|| spatial_order(black_box(p), &mut perm, &mut scratch));
        });
        for (kind, name) in kinds {
            let mut index = SpatialIndex::new(kind);
            g.bench_with_input(
                BenchmarkId::new(format!("rebuild/{name}"), n),
                &positions,
                |b, p| {
                    b.iter(|| index.rebuild(black_box(p), None, RADIUS));
                },
            );
            index.rebuild(&positions, None, RADIUS);
            let mut counts = vec![0u32; n];
            for chunk in [32, 64, CHUNK_ROWS, 256] {
                g.bench_with_input(
                    BenchmarkId::new(format!("neighbours/{name}/chunk{chunk}"), n),
                    &positions,
                    |b, p| {
                        b.iter(|| neighbour_pass(&index, black_box(p), &mut counts, chunk));
                    },
                );
            }
        }
    }
    g.finish();
}
