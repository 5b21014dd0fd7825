//! Shared scene builders for the integration tests.
#![allow(dead_code)]

use glam::Vec2;
use rand_core::Rng;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::wander::WanderParams;
use throng::rng::{agent_rng, uniform};
use throng::scene::Wall;
use throng::spatial::IndexKind;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, World, WorldConfig};

/// A boids flock of `n` agents in a square at about one agent per 4 square units,
/// with random initial velocities, wandering so it never settles.
pub fn flock(n: usize, seed: u64, index: IndexKind) -> (World, Vec<AgentId>) {
    let mut world = World::new(WorldConfig {
        seed,
        index,
        ..WorldConfig::default()
    });
    let g = world
        .add_group(
            GroupConfig::new("boids")
                .with(Behaviour::Separation(SeparationParams::default()), 1.5)
                .with(Behaviour::Alignment, 0.5)
                .with(Behaviour::Cohesion, 0.5)
                .with(Behaviour::Wander(WanderParams::default()), 0.3)
                .neighbours(3.0, 12),
        )
        .unwrap();
    let side = (n as f32 * 4.0).sqrt();
    let mut rng = agent_rng(seed, u64::MAX);
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let p = Vec2::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
        let v = Vec2::new(uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0));
        let _ = rng.next_u32();
        ids.push(world.spawn(AgentSpec::new(g, p).with_velocity(v)).unwrap());
    }
    (world, ids)
}

/// A rayon pool of `threads` threads.
pub fn pool(threads: usize) -> std::sync::Arc<rayon::ThreadPool> {
    std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap(),
    )
}

/// The four walls of the square [0, side]², listed counter-clockwise so their
/// normals face inward.
pub fn arena(side: f32) -> Vec<Wall> {
    let c = [
        Vec2::ZERO,
        Vec2::new(side, 0.0),
        Vec2::new(side, side),
        Vec2::new(0.0, side),
    ];
    (0..4)
        .map(|i| Wall::new(c[i], c[(i + 1) % 4]).unwrap())
        .collect()
}
