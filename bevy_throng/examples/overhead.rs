//! What the plugin costs over the engine's own step: 10,000 walkers stepped by
//! `World::step` alone, and as entities through the plugin's `FixedUpdate` (sync,
//! step, transforms and states written back), alternately, median of each.
//!
//!     cargo run --release --example overhead

use std::time::Instant;

use bevy_app::{App, FixedUpdate};
use bevy_math::Vec2;
use bevy_throng::{Agent, AimAt, Crowd, ThrongPlugin};
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use throng::prelude::*;

const AGENTS: usize = 10_000;
const ROUNDS: usize = 200;

fn walkers() -> GroupConfig {
    GroupConfig::new("walkers")
        .with(Behaviour::Arrive(ArriveParams::default()), 1.0)
        .with(Behaviour::Separation(SeparationParams::default()), 1.5)
}

fn start(i: usize) -> Vec2 {
    let side = (AGENTS as f32).sqrt() as usize;
    Vec2::new((i % side) as f32 * 1.2, (i / side) as f32 * 1.2)
}

fn goal(i: usize) -> Vec2 {
    start(i) + Vec2::new(200.0, 30.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut app = App::new();
    app.add_plugins(ThrongPlugin::default().with_group(walkers()))
        .insert_resource(Time::<Fixed>::from_hz(30.0));
    for i in 0..AGENTS {
        let (s, g) = (start(i), goal(i));
        app.world_mut().spawn((
            Agent::new("walkers").aiming_at(AimAt::Point(g)),
            Transform::from_xyz(s.x, s.y, 0.0),
        ));
    }
    let mut world = World::new(WorldConfig::default());
    let group = world.add_group(walkers()).unwrap();
    for i in 0..AGENTS {
        let (s, g) = (start(i), goal(i));
        world
            .spawn(
                AgentSpec::new(group, throng::glam::Vec2::new(s.x, s.y))
                    .with_target(Target::Point(throng::glam::Vec2::new(g.x, g.y))),
            )
            .unwrap();
    }
    let dt = (1.0f64 / 30.0) as f32;
    let (mut plain, mut plugin) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS + 5 {
        let t = Instant::now();
        world.step(dt).unwrap();
        let a = t.elapsed().as_secs_f64();
        let t = Instant::now();
        app.world_mut().run_schedule(FixedUpdate);
        let b = t.elapsed().as_secs_f64();
        if round >= 5 {
            plain.push(a);
            plugin.push(b);
        }
    }
    assert_eq!(app.world().resource::<Crowd>().len(), AGENTS);
    let (p, q) = (median(plain) * 1e3, median(plugin) * 1e3);
    println!(
        "{AGENTS} agents, {} threads: World::step {p:.3} ms, the plugin's FixedUpdate {q:.3} ms ({:+.1}%)",
        rayon::current_num_threads(),
        (q / p - 1.0) * 100.0
    );
}
