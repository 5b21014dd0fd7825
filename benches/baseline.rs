//! The textbook loop: separation (the leader-following tutorial's formula) plus seek,
//! every agent against every other, array of structs, one thread. The gain of
//! the index and the parallel pass is the ratio to `scaling`'s flock.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use glam::Vec2;

#[derive(Clone, Copy)]
struct Boid {
    pos: Vec2,
    vel: Vec2,
}

const SEPARATION_RADIUS: f32 = 3.0;
const MAX_SEPARATION: f32 = 2.0;
const MAX_SPEED: f32 = 2.0;
const MAX_FORCE: f32 = 4.0;

fn truncate(v: Vec2, max: f32) -> Vec2 {
    if v.length_squared() > max * max {
        v.normalize() * max
    } else {
        v
    }
}

/// One tick of the O(n²) loop: forces from the state at the start of the tick,
/// then the textbook update.
fn tick(boids: &mut [Boid], forces: &mut Vec<Vec2>, goal: Vec2, dt: f32) {
    forces.clear();
    for (i, me) in boids.iter().enumerate() {
        let mut sum = Vec2::ZERO;
        let mut count = 0u32;
        for (j, other) in boids.iter().enumerate() {
            if i != j && other.pos.distance_squared(me.pos) <= SEPARATION_RADIUS * SEPARATION_RADIUS
            {
                sum += other.pos - me.pos;
                count += 1;
            }
        }
        let separation = if count > 0 {
            (-(sum / count as f32)).normalize_or_zero() * MAX_SEPARATION
        } else {
            Vec2::ZERO
        };
        let seek = (goal - me.pos).normalize_or_zero() * MAX_SPEED - me.vel;
        forces.push(truncate(separation * 1.5 + seek, MAX_FORCE));
    }
    for (b, f) in boids.iter_mut().zip(forces.iter()) {
        b.vel = truncate(b.vel + *f * dt, MAX_SPEED);
        b.pos += b.vel * dt;
    }
}

/// Boids on a square at the flock profile's density (4 square units each).
fn boids(n: usize) -> Vec<Boid> {
    let side = (n as f32 * 4.0).sqrt();
    let mut s = 0x2545_f491_u32;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s as f32 / u32::MAX as f32
    };
    (0..n)
        .map(|_| Boid {
            pos: Vec2::new(next() * side, next() * side),
            vel: Vec2::ZERO,
        })
        .collect()
}

/// Register the baseline benches.
pub fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("baseline");
    group.sample_size(10);
    for n in [1_000usize, 5_000, 10_000] {
        group.throughput(Throughput::Elements(n as u64));
        let mut flock = boids(n);
        let mut forces = Vec::with_capacity(n);
        let goal = Vec2::splat((n as f32 * 4.0).sqrt() / 2.0);
        group.bench_with_input(BenchmarkId::new("textbook_n2", n), &n, |b, _| {
            b.iter(|| tick(black_box(&mut flock), &mut forces, goal, 1.0 / 30.0));
        });
    }
    group.finish();
}
