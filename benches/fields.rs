//! Goal fields: building one (a 1,000 × 1,000-cell field over a 250 m map of rooms,
//! at 0.25 m cells), and what following one costs a crowd against seeking a point.
//!
//! `cargo bench -- fields/`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion};
use glam::Vec2;
use throng::behaviours::field::FollowFieldParams;
use throng::scene::{FieldSpec, Goal, GoalField, Wall};
use throng::{AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

use crate::common;

/// A 250 m square cut into a 10 × 10 block of rooms, each wall with a door 2 m wide.
fn rooms() -> Vec<Wall> {
    let (side, n) = (250.0_f32, 10);
    let step = side / n as f32;
    let mut walls = Vec::new();
    let mut wall = |a: Vec2, b: Vec2| walls.push(Wall::new(a, b).unwrap());
    for i in 0..=n {
        let c = i as f32 * step;
        for j in 0..n {
            let (lo, hi) = (j as f32 * step, (j + 1) as f32 * step);
            let mid = (lo + hi) / 2.0;
            // A door in every inner wall; the outer walls are closed.
            if i == 0 || i == n {
                wall(Vec2::new(c, lo), Vec2::new(c, hi));
                wall(Vec2::new(lo, c), Vec2::new(hi, c));
            } else {
                wall(Vec2::new(c, lo), Vec2::new(c, mid - 1.0));
                wall(Vec2::new(c, mid + 1.0), Vec2::new(c, hi));
                wall(Vec2::new(lo, c), Vec2::new(mid - 1.0, c));
                wall(Vec2::new(mid + 1.0, c), Vec2::new(hi, c));
            }
        }
    }
    walls
}

fn spec() -> FieldSpec {
    FieldSpec::new(vec![Goal::Point(Vec2::new(12.5, 12.5))], 0.25)
        .with_cell(0.25)
        .with_bounds(Vec2::ZERO, Vec2::splat(250.0))
}

/// A crowd of `n` over the rooms either following the field or seeking its goal.
fn crowd(n: usize, follow: bool) -> World {
    let mut w = World::new(WorldConfig {
        seed: 3,
        ..WorldConfig::default()
    });
    w.set_walls(&rooms()).unwrap();
    let field = w.add_goal_field(spec()).unwrap();
    let behaviour = if follow {
        Behaviour::FollowField {
            field,
            params: FollowFieldParams::default(),
        }
    } else {
        Behaviour::Seek
    };
    let g = w
        .add_group(GroupConfig::new("walkers").with(behaviour, 1.0))
        .unwrap();
    let mut rng = throng::rng::agent_rng(3, u64::MAX);
    for _ in 0..n {
        let p = Vec2::new(
            throng::rng::uniform(&mut rng, 1.0, 249.0),
            throng::rng::uniform(&mut rng, 1.0, 249.0),
        );
        let spec = AgentSpec::new(g, p).with_target(Target::Point(Vec2::new(12.5, 12.5)));
        w.spawn(spec).unwrap();
    }
    w
}

pub fn benches(c: &mut Criterion) {
    let walls = rooms();
    let built = GoalField::build(&spec(), &walls, &[]).unwrap();
    assert_eq!(built.dims(), (1000, 1000));
    let mut group = c.benchmark_group("fields");
    group.sample_size(10);
    for threads in [1, 2] {
        let pool = common::pool(threads);
        group.bench_function(BenchmarkId::new("build_1000x1000", threads), |b| {
            b.iter(|| pool.install(|| black_box(GoalField::build(&spec(), &walls, &[]).unwrap())));
        });
    }
    for (name, follow) in [("seek", false), ("follow", true)] {
        let mut w = crowd(100_000, follow);
        w.set_thread_pool(Some(common::pool(2)));
        group.bench_function(BenchmarkId::new("tick_100k", name), |b| {
            b.iter(|| w.step(1.0 / 30.0).unwrap());
        });
    }
    group.finish();
}
