//! Reynolds' containment and queuing in a world: wanderers stay in their region, and
//! a fast walker behind a slow one queues instead of walking into it.

use glam::Vec2;
use throng::behaviours::containment::{ContainmentParams, Region};
use throng::behaviours::queue::QueueParams;
use throng::behaviours::wander::WanderParams;
use throng::{AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

/// 30 wanderers in a disc of radius 8, with or without containment; the farthest any
/// of them gets from its centre over 40 s.
fn farthest(contained: bool) -> f32 {
    let mut w = World::new(WorldConfig {
        seed: 2,
        ..WorldConfig::default()
    });
    let mut group = GroupConfig::new("wanderers").with(
        Behaviour::Wander(WanderParams {
            jitter: 40.0,
            ..WanderParams::default()
        }),
        1.0,
    );
    if contained {
        group = group.with(
            Behaviour::Containment(ContainmentParams {
                region: Region::Circle {
                    centre: Vec2::ZERO,
                    radius: 8.0,
                },
                lookahead: 1.0,
            }),
            3.0,
        );
    }
    let g = w.add_group(group).unwrap();
    for i in 0..30 {
        let a = i as f32 * 0.7;
        let p = Vec2::new(a.cos(), a.sin()) * (1.0 + i as f32 * 0.2);
        w.spawn(AgentSpec::new(g, p).with_velocity(Vec2::new(a.sin(), -a.cos())))
            .unwrap();
    }
    let mut far: f32 = 0.0;
    for _ in 0..1200 {
        w.step(1.0 / 30.0).unwrap();
        far = w.positions().iter().map(|p| p.length()).fold(far, f32::max);
    }
    far
}

#[test]
fn containment_keeps_wanderers_in_their_region() {
    let (free, kept) = (farthest(false), farthest(true));
    assert!(free > 12.0, "free wanderers reached only {free}");
    // The region shrunk by the radius (0.5) is 7.5; steering back from a look ahead
    // keeps them within a little of it.
    assert!(kept < 8.0, "contained wanderers reached {kept}");
}

/// A walker at top speed 2 starts 3 units behind one at 0.6 on the same line, both
/// seeking a point far ahead, without avoidance or separation; the closest the two
/// centres come over 20 s.
fn closest(queues: bool) -> f32 {
    let mut w = World::new(WorldConfig::default());
    let mut group = GroupConfig::new("walkers")
        .with(Behaviour::Seek, 1.0)
        .neighbours(4.0, 8);
    if queues {
        group = group.with(Behaviour::Queue(QueueParams::default()), 4.0);
    }
    let g = w.add_group(group).unwrap();
    let far = Target::Point(Vec2::new(1000.0, 0.0));
    let slow = w
        .spawn(
            AgentSpec::new(g, Vec2::new(3.0, 0.0))
                .with_limits(1.0, 0.6, 4.0)
                .with_target(far),
        )
        .unwrap();
    let fast = w
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_target(far))
        .unwrap();
    let mut closest = f32::INFINITY;
    for _ in 0..600 {
        w.step(1.0 / 30.0).unwrap();
        let d = w
            .position(slow)
            .unwrap()
            .distance(w.position(fast).unwrap());
        closest = closest.min(d);
    }
    closest
}

#[test]
fn a_fast_walker_queues_behind_a_slow_one() {
    let (rams, queues) = (closest(false), closest(true));
    // Without queuing it walks into (and through) the slow one; with it, it keeps
    // more than the two radii (1.0) behind.
    assert!(rams < 0.5, "without queuing the closest was {rams}");
    assert!(queues > 1.0, "with queuing the closest was {queues}");
}
