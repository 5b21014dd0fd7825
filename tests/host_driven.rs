//! Host-driven agents: a preferred velocity from the host, which the crowd's
//! avoidance respects (`World::set_preferred_velocity`).

use throng::behaviours::flocking::SeparationParams;
use throng::prelude::*;
use throng::quality::{QualityCounter, QualitySettings};

/// A crowd standing in a block, with ORCA, and a "player" walked through it by the
/// host at 1.5 units/s; the world and the player.
fn crossing(threads: Option<usize>) -> (World, AgentId) {
    let mut world = World::new(WorldConfig {
        seed: 5,
        ..WorldConfig::default()
    });
    if let Some(n) = threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap();
        world.set_thread_pool(Some(std::sync::Arc::new(pool)));
    }
    let stand = ArriveParams {
        slowing_radius: 1.0,
        ..ArriveParams::default()
    };
    let crowd = world
        .add_group(GroupConfig {
            avoidance: Some(AvoidanceParams::default()),
            ..GroupConfig::new("crowd").with(Behaviour::Arrive(stand), 1.0)
        })
        .unwrap();
    for i in 0..36 {
        let at = Vec2::new(2.0 + 1.5 * (i % 6) as f32, -3.75 + 1.5 * (i / 6) as f32);
        world
            .spawn(
                AgentSpec::new(crowd, at)
                    .with_radius(0.4)
                    .with_target(Target::Point(at)),
            )
            .unwrap();
    }
    // The player keeps its line (priority 1): the crowd takes all the avoidance.
    let players = world
        .add_group(GroupConfig {
            avoidance: Some(AvoidanceParams {
                priority: 1.0,
                ..AvoidanceParams::default()
            }),
            ..GroupConfig::new("players")
        })
        .unwrap();
    let player = world
        .spawn(AgentSpec::new(players, Vec2::new(-3.0, 0.0)).with_radius(0.4))
        .unwrap();
    world
        .set_preferred_velocity(player, Some(Vec2::new(1.5, 0.0)))
        .unwrap();
    (world, player)
}

#[test]
fn a_host_driven_agent_walks_through_a_crowd_that_makes_way() {
    let (mut world, player) = crossing(None);
    let mut counter = QualityCounter::new(QualitySettings::default());
    let dt = 1.0 / 30.0;
    for t in 0..600 {
        world.step(dt).unwrap();
        counter.sample(t as f32 * dt, observe(&world));
    }
    let end = world.position(player).unwrap();
    assert!(end.x > 15.0, "the player got stuck at {end}");
    assert!(
        end.y.abs() < 0.5,
        "the player was pushed off its line: {end}"
    );
    let q = counter.summary();
    // Bodies 0.8 across: ORCA keeps them apart, to rounding and one tick's motion.
    assert!(q.max_penetration < 0.05, "{q:?}");
    assert_eq!(
        world.preferred_velocity(player).unwrap(),
        Some(Vec2::new(1.5, 0.0))
    );
}

fn observe(world: &World) -> Vec<throng::quality::Observed> {
    world
        .ids()
        .iter()
        .zip(world.positions())
        .zip(world.radii())
        .map(|((id, &pos), &radius)| throng::quality::Observed {
            id: id.index() as usize,
            pos,
            radius,
            max_speed: 2.0,
            goal: None,
        })
        .collect()
}

#[test]
fn host_driven_worlds_step_alike_on_any_thread_count_and_through_a_snapshot() {
    let (mut one, _) = crossing(Some(1));
    let (mut three, _) = crossing(Some(3));
    for _ in 0..60 {
        one.step(0.05).unwrap();
        three.step(0.05).unwrap();
    }
    assert_eq!(one.state_hash(), three.state_hash());
    let saved = World::from_snapshot(
        throng::world::Snapshot::from_bytes(&one.snapshot().to_bytes().unwrap()).unwrap(),
    )
    .unwrap();
    let mut restored = saved;
    for _ in 0..60 {
        one.step(0.05).unwrap();
        restored.step(0.05).unwrap();
    }
    assert_eq!(one.state_hash(), restored.state_hash());
}

#[test]
fn without_avoidance_the_force_is_capped_and_none_hands_the_agent_back() {
    let mut world = World::default();
    let g = world
        .add_group(
            GroupConfig::new("g").with(Behaviour::Separation(SeparationParams::default()), 1.0),
        )
        .unwrap();
    // Mass 2, max force 3: a change of velocity of at most 3 * 0.5 / 2 = 0.75 a tick.
    let id = world
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_limits(2.0, 2.0, 3.0))
        .unwrap();
    world
        .set_preferred_velocity(id, Some(Vec2::new(0.0, 10.0)))
        .unwrap();
    world.step(0.5).unwrap();
    assert!((world.velocity(id).unwrap() - Vec2::new(0.0, 0.75)).length() < 1e-6);
    world.step(0.5).unwrap();
    world.step(0.5).unwrap();
    assert_eq!(
        world.velocity(id).unwrap(),
        Vec2::new(0.0, 2.0),
        "top speed"
    );
    // Handed back: alone, separation asks nothing, so it keeps its velocity.
    world.set_preferred_velocity(id, None).unwrap();
    assert_eq!(world.preferred_velocity(id).unwrap(), None);
    world.step(0.5).unwrap();
    assert_eq!(world.velocity(id).unwrap(), Vec2::new(0.0, 2.0));
    // Bad input is refused and changes nothing.
    assert!(world
        .set_preferred_velocity(id, Some(Vec2::new(f32::NAN, 0.0)))
        .is_err());
    assert_eq!(world.preferred_velocity(id).unwrap(), None);
}

/// Walkers arriving at a point among each other, in a group the engine moves or the
/// host moves.
fn walkers(host_moves: bool) -> (World, Vec<AgentId>) {
    let mut world = World::new(WorldConfig {
        seed: 3,
        ..WorldConfig::default()
    });
    let arrive = ArriveParams {
        slowing_radius: 3.0,
        ..ArriveParams::default()
    };
    let g = world
        .add_group(GroupConfig {
            host_moves,
            ..GroupConfig::new("walkers")
                .with(Behaviour::Arrive(arrive), 1.0)
                .with(Behaviour::Separation(SeparationParams::default()), 1.5)
        })
        .unwrap();
    let specs: Vec<AgentSpec> = (0..40)
        .map(|i| {
            // The default body, whose top speed they reach: `set_velocity` truncates
            // what it is given again, which leaves a truncated velocity as it is.
            AgentSpec::new(g, Vec2::new((i % 8) as f32, (i / 8) as f32))
                .with_target(Target::Point(Vec2::new(20.0, 5.0)))
        })
        .collect();
    let ids = world.spawn_many(&specs).unwrap();
    (world, ids)
}

#[test]
fn a_host_that_moves_by_the_desired_velocities_retraces_the_engines_own_moves() {
    retrace(false);
}

#[test]
fn a_host_that_writes_back_in_bulk_retraces_the_engines_own_moves() {
    retrace(true);
}

fn retrace(bulk: bool) {
    let dt = 0.05;
    let (mut engine, ids) = walkers(false);
    let (mut host, host_ids) = walkers(true);
    let key = |ids: &[throng::AgentId]| ids.iter().map(|id| id.key()).collect::<Vec<_>>();
    assert_eq!(key(&ids), key(&host_ids));
    let mut at_top = false;
    for _ in 0..200 {
        engine.step(dt).unwrap();
        at_top |= engine.velocities().iter().any(|v| v.length() > 1.999);
        let before: Vec<Vec2> = host_ids
            .iter()
            .map(|&id| host.position(id).unwrap())
            .collect();
        host.step(dt).unwrap();
        let mut moved = Vec::new();
        for (&id, &p) in host_ids.iter().zip(&before) {
            assert_eq!(
                host.position(id).unwrap(),
                p,
                "the engine moved a host's agent"
            );
            // The host's physics: semi-implicit Euler, as the engine integrates.
            let v = host.desired_velocity(id).unwrap();
            if bulk {
                moved.push((v, p + v * dt));
            } else {
                host.set_velocity(id, v).unwrap();
                host.set_position(id, p + v * dt).unwrap();
            }
        }
        if bulk {
            let (v, p): (Vec<Vec2>, Vec<Vec2>) = moved.into_iter().unzip();
            host.set_velocities(&host_ids, &v).unwrap();
            host.set_positions(&host_ids, &p).unwrap();
        }
    }
    assert!(at_top, "some walkers moved at their top speed");
    for (&id, &in_host) in ids.iter().zip(&host_ids) {
        assert_eq!(
            host.position(in_host).unwrap(),
            engine.position(id).unwrap()
        );
        assert_eq!(
            host.velocity(in_host).unwrap(),
            engine.velocity(id).unwrap()
        );
    }
    for &id in &ids {
        assert_eq!(
            engine.desired_velocity(id).unwrap(),
            engine.velocity(id).unwrap()
        );
    }
    let centre = host_ids
        .iter()
        .map(|&id| host.position(id).unwrap())
        .sum::<Vec2>()
        / 40.0;
    // They started with their centre (3.5, 2), 16.8 from the goal.
    assert!(centre.distance(Vec2::new(20.0, 5.0)) < 12.0, "{centre}");
}
