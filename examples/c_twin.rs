//! The crowd of the C example (`examples/c/crowd.c`), built with the Rust API: a
//! squad following its leader around a square patrol and a flock beside it, 300
//! ticks. It prints the same lines as the C program up to the state hash, so that
//! the two can be compared: the same world gives the same bits on either side of
//! the C boundary (CI checks it).
//!
//! `cargo run --release --example c_twin`

use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::leader::LeaderParams;
use throng::behaviours::path::PathFollowParams;
use throng::group::PathId;
use throng::prelude::*;
use throng::scene::Path;

const FOLLOWERS: usize = 12;
const BIRDS: usize = 60;
const TICKS: usize = 300;

fn main() -> Result<(), ThrongError> {
    let mut world = World::new(WorldConfig {
        seed: 42,
        ..WorldConfig::default()
    });
    let square = vec![
        Vec2::new(-10.0, -10.0),
        Vec2::new(10.0, -10.0),
        Vec2::new(10.0, 10.0),
        Vec2::new(-10.0, 10.0),
    ];
    let patrol: PathId = world.add_path(Path::looped(square)?)?;

    let leaders = world.add_group(GroupConfig::new("leader").with(
        Behaviour::FollowPath {
            path: Some(patrol),
            params: PathFollowParams::default(),
        },
        1.0,
    ))?;
    // The C ABI's leader-follow defaults.
    let follow = Behaviour::LeaderFollow {
        leader: LeaderParams::default(),
        separation: SeparationParams {
            strength: 2.0,
            ..SeparationParams::default()
        },
    };
    let squad = world.add_group(GroupConfig::new("squad").with(follow, 1.0))?;
    let flock = world.add_group(
        GroupConfig::new("flock")
            .with(Behaviour::Separation(SeparationParams::default()), 1.5)
            .with(Behaviour::Alignment, 0.6)
            .with(Behaviour::Cohesion, 0.5)
            .with(Behaviour::Wander(WanderParams::default()), 0.4)
            .neighbours(4.0, 12),
    )?;

    let leader = world.spawn(
        AgentSpec::new(leaders, Vec2::new(-10.0, -10.0))
            .with_limits(1.0, 1.6, 4.0)
            .with_radius(0.6),
    )?;
    let followers: Vec<AgentSpec> = (0..FOLLOWERS)
        .map(|i| {
            let at = Vec2::new(-16.0 + (i % 6) as f32, -12.0 - (i / 6) as f32);
            AgentSpec::new(squad, at)
                .with_radius(0.4)
                .with_target(Target::Agent(leader))
        })
        .collect();
    let follower_ids = world.spawn_many(&followers)?;
    let birds: Vec<AgentSpec> = (0..BIRDS)
        .map(|i| {
            let at = Vec2::new(20.0 + 1.5 * (i % 10) as f32, 1.5 * (i / 10) as f32);
            let v = Vec2::new(0.5 * ((i % 3) as f32 - 1.0), 0.25 * ((i % 5) as f32 - 2.0));
            AgentSpec::new(flock, at).with_velocity(v)
        })
        .collect();
    let bird_ids = world.spawn_many(&birds)?;

    for _ in 0..TICKS {
        world.step(1.0 / 30.0)?;
    }

    println!("{} agents after {TICKS} ticks", world.len());
    let shown = [
        ("leader", leader),
        ("follower 0", follower_ids[0]),
        ("follower 11", follower_ids[FOLLOWERS - 1]),
        ("bird 0", bird_ids[0]),
    ];
    for (name, id) in shown {
        let p = world.position(id)?;
        println!("{name:<12} ({:9.4}, {:9.4})", p.x, p.y);
    }
    let sum = world
        .positions()
        .iter()
        .fold((0.0f64, 0.0f64), |(x, y), p| {
            (x + f64::from(p.x), y + f64::from(p.y))
        });
    let n = world.len() as f64;
    println!("centre of the crowd ({:.4}, {:.4})", sum.0 / n, sum.1 / n);
    println!("state hash {:016x}", world.state_hash());
    Ok(())
}
