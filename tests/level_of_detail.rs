//! Level of detail by think rate: agents that steer only every k-th tick, by their
//! group's rate or by their distance from a point (a camera), move on their last
//! output in between; bitwise the same on any thread count and through snapshots.

mod common;

use common::{flock, pool};
use glam::Vec2;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::targeting::ArriveParams;
use throng::group::Movement;
use throng::group::MAX_THINK_EVERY;
use throng::spatial::IndexKind;
use throng::{
    AgentId, AgentSpec, Behaviour, GroupConfig, LevelOfDetail, Target, ThrongError, World,
    WorldConfig,
};

const DT: f32 = 0.1;

/// The ticks (the world's count before each step) on which the seeker's desired
/// velocity changed, over `ticks` steps, its target moving every tick. Its group is
/// host-moved (the desired velocity is the steering output itself) and the host leaves
/// it at rest, so the output changes only when the agent steers.
fn steering_ticks(world: &mut World, seeker: AgentId, ticks: u64) -> Vec<u64> {
    let mut changed = Vec::new();
    let mut last = world.desired_velocity(seeker).unwrap();
    for t in 0..ticks {
        let angle = t as f32 * 0.7;
        let aim = Vec2::new(angle.cos(), angle.sin()) * 20.0;
        world.set_target(seeker, Target::Point(aim)).unwrap();
        world.step(DT).unwrap();
        let now = world.desired_velocity(seeker).unwrap();
        if now != last {
            changed.push(t);
        }
        last = now;
    }
    changed
}

fn seeker_world(think_every: u32, at: Vec2) -> (World, AgentId) {
    let mut world = World::new(WorldConfig::default());
    let mut config = GroupConfig::new("seekers")
        .with(Behaviour::Seek, 1.0)
        .thinking_every(think_every);
    config.host_moves = true;
    let g = world.add_group(config).unwrap();
    let id = world.spawn(AgentSpec::new(g, at)).unwrap();
    (world, id)
}

#[test]
fn an_agent_steers_on_its_turn_and_keeps_its_last_output_between() {
    // A group thinking every third tick: its one chunk steers on ticks 0, 3, 6, ...
    let (mut world, id) = seeker_world(3, Vec2::ZERO);
    assert_eq!(steering_ticks(&mut world, id, 12), [0, 3, 6, 9]);

    // Far from the level of detail's centre: every fourth tick; near it, every tick.
    let (mut world, id) = seeker_world(1, Vec2::new(100.0, 0.0));
    let lod = LevelOfDetail::new(Vec2::ZERO, 50.0, 4);
    world.set_level_of_detail(Some(lod)).unwrap();
    assert_eq!(steering_ticks(&mut world, id, 12), [0, 4, 8]);
    let near = LevelOfDetail::new(Vec2::new(90.0, 0.0), 50.0, 4);
    world.set_level_of_detail(Some(near)).unwrap();
    assert_eq!(steering_ticks(&mut world, id, 4), [0, 1, 2, 3]);

    // The slower of the group's rate and the level of detail's.
    let (mut world, id) = seeker_world(8, Vec2::new(100.0, 0.0));
    world.set_level_of_detail(Some(lod)).unwrap();
    assert_eq!(steering_ticks(&mut world, id, 17), [0, 8, 16]);
}

#[test]
fn steering_agents_move_on_their_last_force_between_turns() {
    // A seeker whose far target turns every tick: the force (full, toward the
    // target) turns with it when the seeker steers every tick; outside the level of
    // detail's reach, thinking every fourth tick, the velocity gains the same step
    // four ticks running.
    let steps = |lod: Option<LevelOfDetail>| {
        let mut world = World::new(WorldConfig::default());
        let g = world
            .add_group(GroupConfig::new("seekers").with(Behaviour::Seek, 1.0))
            .unwrap();
        let spec = AgentSpec::new(g, Vec2::ZERO).with_limits(1.0, 100.0, 2.0);
        let id = world.spawn(spec).unwrap();
        world.set_level_of_detail(lod).unwrap();
        let mut v = Vec2::ZERO;
        let mut gains = Vec::new();
        for t in 0..8 {
            let a = t as f32 * 0.7;
            let aim = Vec2::new(a.cos(), a.sin()) * 1000.0;
            world.set_target(id, Target::Point(aim)).unwrap();
            world.step(DT).unwrap();
            let now = world.velocity(id).unwrap();
            gains.push(now - v);
            v = now;
        }
        gains
    };
    let every = steps(None);
    assert!(
        every.windows(2).all(|w| w[0].distance(w[1]) > 0.1),
        "{every:?}"
    );
    let far = steps(Some(LevelOfDetail::new(Vec2::splat(-500.0), 10.0, 4)));
    assert_eq!(far[0], every[0]);
    for block in far.chunks(4) {
        // (Equal but for the rounding of velocity + step - velocity.)
        assert!(
            block.iter().all(|&g| g.distance(block[0]) < 1e-5),
            "{far:?}"
        );
        // Seek's force is the full 2 units/s² before the speeds near 100: 0.2 a tick.
        assert!((block[0].length() - 0.2).abs() < 1e-4, "{far:?}");
    }
    assert_ne!(far[0], far[4]);
}

/// A flock of 3,000 in two groups, one thinking every third tick, with a level of
/// detail whose centre moves every tick, stepped `ticks` times on `threads` threads
/// (restored from a snapshot after `snapshot_at` ticks when given).
fn lod_flock(threads: usize, ticks: u64, snapshot_at: Option<u64>) -> u64 {
    let (mut world, ids) = flock(3000, 11, IndexKind::KdTree);
    world.set_thread_pool(Some(pool(threads)));
    let slow = world
        .add_group(
            GroupConfig::new("slow")
                .with(Behaviour::Separation(SeparationParams::default()), 1.0)
                .with(Behaviour::Seek, 0.2)
                .neighbours(3.0, 12)
                .thinking_every(3),
        )
        .unwrap();
    for &id in ids.iter().step_by(5) {
        world.set_agent_group(id, slow).unwrap();
        world
            .set_target(id, Target::Point(Vec2::splat(50.0)))
            .unwrap();
    }
    for t in 0..ticks {
        let centre = Vec2::new(t as f32, 50.0);
        world
            .set_level_of_detail(Some(LevelOfDetail::new(centre, 30.0, 4)))
            .unwrap();
        if snapshot_at == Some(t) {
            let bytes = world.snapshot().to_bytes().unwrap();
            let snap = throng::world::Snapshot::from_bytes(&bytes).unwrap();
            world = World::from_snapshot(snap).unwrap();
            world.set_thread_pool(Some(pool(threads)));
            assert_eq!(world.level_of_detail().unwrap().centre, centre);
        }
        world.step(DT).unwrap();
    }
    world.state_hash()
}

#[test]
fn levels_of_detail_are_bitwise_on_any_thread_count_and_through_snapshots() {
    let one = lod_flock(1, 60, None);
    assert_eq!(one, lod_flock(2, 60, None), "1 vs 2 threads");
    assert_eq!(one, lod_flock(3, 60, None), "1 vs 3 threads");
    assert_eq!(one, lod_flock(2, 60, Some(31)), "through a snapshot");
}

#[test]
fn the_state_hash_and_snapshots_carry_the_level_of_detail() {
    let (mut world, _) = flock(100, 3, IndexKind::Grid);
    let before = world.state_hash();
    let lod = LevelOfDetail::new(Vec2::new(1.0, 2.0), 3.0, 4);
    world.set_level_of_detail(Some(lod)).unwrap();
    let with = world.state_hash();
    assert_ne!(before, with);
    let restored = World::from_snapshot(world.snapshot()).unwrap();
    assert_eq!(restored.level_of_detail(), Some(lod));
    assert_eq!(restored.state_hash(), with);
}

#[test]
fn bad_levels_of_detail_and_think_rates_are_refused_and_change_nothing() {
    let mut world = World::new(WorldConfig::default());
    let good = LevelOfDetail::new(Vec2::ZERO, 10.0, 2);
    world.set_level_of_detail(Some(good)).unwrap();
    for bad in [
        LevelOfDetail::new(Vec2::new(f32::NAN, 0.0), 10.0, 2),
        LevelOfDetail::new(Vec2::ZERO, -1.0, 2),
        LevelOfDetail::new(Vec2::ZERO, 10.0, 0),
        LevelOfDetail::new(Vec2::ZERO, 10.0, MAX_THINK_EVERY + 1),
    ] {
        let err = world.set_level_of_detail(Some(bad)).unwrap_err();
        assert!(matches!(err, ThrongError::InvalidParameter { .. }), "{err}");
        assert_eq!(world.level_of_detail(), Some(good));
    }
    for k in [0, MAX_THINK_EVERY + 1] {
        let err = world
            .add_group(GroupConfig::new("g").thinking_every(k))
            .unwrap_err();
        assert!(err.to_string().contains("think_every"), "{err}");
    }
    assert_eq!(world.groups().count(), 0);
}

/// `n` walkers on a ring of radius `r`, thinking every `k` ticks: with ORCA, each
/// bound for the opposite point (all through the centre); without, arrive and
/// separation, each bound for its place 60 units east (a crowd walking one way). The
/// fraction at their goal after 60 s, and the deepest overlap seen (as a fraction of
/// the radii sum).
fn ring_crossing(k: u32, orca: bool, n: usize, r: f32) -> (f32, f32) {
    let mut world = World::new(WorldConfig {
        index: IndexKind::Grid,
        ..WorldConfig::default()
    });
    let mut config = GroupConfig::new("walkers")
        .with(
            Behaviour::Arrive(ArriveParams {
                slowing_radius: 2.0,
                ..ArriveParams::default()
            }),
            1.0,
        )
        .neighbours(5.0, 10)
        .thinking_every(k);
    config = if orca {
        config.avoiding(AvoidanceParams::default())
    } else {
        // Apart within 1.5 units: bodies 0.8 across keep off each other, and goals
        // 3 units apart do not push their walkers off.
        let apart = SeparationParams {
            radius: 1.5,
            ..SeparationParams::default()
        };
        config.with(Behaviour::Separation(apart), 2.0)
    };
    let g = world.add_group(config).unwrap();
    let (mut ids, mut goals) = (Vec::new(), Vec::new());
    for i in 0..n {
        let a = i as f32 / n as f32 * std::f32::consts::TAU;
        let p = Vec2::new(a.cos(), a.sin()) * r;
        let goal = if orca { -p } else { p + Vec2::new(60.0, 0.0) };
        let spec = AgentSpec::new(g, p)
            .with_limits(0.1, 1.4, 30.0)
            .with_radius(0.4)
            .with_target(Target::Point(goal));
        ids.push(world.spawn(spec).unwrap());
        goals.push(goal);
    }
    let mut deepest = 0.0f32;
    for _ in 0..600 {
        world.step(DT).unwrap();
        let pos = world.positions();
        for (i, a) in pos.iter().enumerate() {
            for b in &pos[i + 1..] {
                deepest = deepest.max(1.0 - a.distance(*b) / 0.8);
            }
        }
    }
    // Within 1 unit of the goal, as the quality counter's "at the goal".
    let at_goal = ids
        .iter()
        .zip(&goals)
        .filter(|&(&id, &goal)| world.position(id).unwrap().distance(goal) <= 1.0)
        .count();
    (at_goal as f32 / n as f32, deepest)
}

#[test]
fn walkers_thinking_less_often_arrive_and_a_dense_crowd_pays_for_it() {
    for orca in [false, true] {
        // Spread out (40 on the ring, 3 units apart): every walker arrives, none
        // overlaps, even steering one tick in eight.
        for k in [1, 2, 4, 8] {
            let (at_goal, deepest) = ring_crossing(k, orca, 40, 20.0);
            assert_eq!(at_goal, 1.0, "sparse, k {k}, orca {orca}");
            assert!(
                deepest < 1e-3,
                "sparse, k {k}, orca {orca}: overlap {deepest}"
            );
        }
        // Dense (120, about a body apart): one tick in two keeps the crowd whole...
        for k in [1, 2] {
            let (at_goal, deepest) = ring_crossing(k, orca, 120, 20.0);
            assert!(
                at_goal >= 0.95,
                "dense, k {k}, orca {orca}: {at_goal} at the goal"
            );
            assert!(
                deepest < 0.15,
                "dense, k {k}, orca {orca}: overlap {deepest}"
            );
        }
        // ... one in eight walks bodies into each other (the guide's level-of-detail
        // table measures this on larger crowds).
        let (_, deepest) = ring_crossing(8, orca, 120, 20.0);
        assert!(deepest > 0.5, "dense, k 8, orca {orca}: overlap {deepest}");
    }
}

#[cfg(feature = "scenario")]
mod profiles {
    use throng::scenario::{parse_profile, Scenario};

    #[test]
    fn profiles_set_think_rates_and_levels_of_detail_with_errors_at_the_key() {
        let text = |group: &str, world: &str| {
            format!(
                "[world]\nticks = 5\n{world}\n\n[[groups]]\nname = \"a\"\ncount = 10\n{group}\nspawn = {{ shape = \"disc\", centre = [0, 0], radius = 5 }}\n[[groups.behaviours]]\nkind = \"wander\"\n"
            )
        };
        let p = parse_profile(
            &text(
                "think_every = 4",
                "level_of_detail = { centre = [1, 2], near = 30, think_every = 8 }",
            ),
            "t",
        )
        .unwrap();
        assert_eq!(p.groups[0].config.think_every, 4);
        let scenario = Scenario::build(&p).unwrap();
        let lod = scenario.world().level_of_detail().unwrap();
        assert_eq!((lod.near, lod.think_every), (30.0, 8));
        for (group, world, key) in [
            ("think_every = 0", "", "groups[0].think_every"),
            ("think_every = 65", "", "groups[0].think_every"),
            (
                "",
                "level_of_detail = { centre = [0, 0], near = -1, think_every = 2 }",
                "world.level_of_detail.near",
            ),
            (
                "",
                "level_of_detail = { centre = [0, 0], near = 5, think_every = 0 }",
                "world.level_of_detail.think_every",
            ),
        ] {
            let err = parse_profile(&text(group, world), "t").unwrap_err();
            assert!(err.to_string().contains(key), "{key}: {err}");
        }
    }
}

#[test]
fn an_agent_waiting_for_its_first_turn_keeps_its_spawn_velocity() {
    // 200 walkers far apart, spawned at their top speed toward their targets, in a
    // group steering every fourth tick: rows 128 and on (the second chunk) first
    // steer on tick 3. An avoiding or kinematic agent's output is its velocity, so
    // until then it moves at the velocity it was spawned with instead of stopping.
    for (orca, movement) in [(true, Movement::Steering), (false, Movement::Kinematic)] {
        let mut world = World::new(WorldConfig::default());
        let seek = if movement == Movement::Kinematic {
            Behaviour::KinematicSeek
        } else {
            Behaviour::Seek
        };
        let mut config = GroupConfig::new("walkers")
            .with(seek, 1.0)
            .moving(movement)
            .thinking_every(4);
        if orca {
            config = config.avoiding(AvoidanceParams::default());
        }
        let g = world.add_group(config).unwrap();
        let ids: Vec<AgentId> = (0..200)
            .map(|i| {
                let p = Vec2::new(0.0, i as f32 * 10.0);
                let spec = AgentSpec::new(g, p)
                    .with_limits(1.0, 1.0, 1.0)
                    .with_velocity(Vec2::X)
                    .with_target(Target::Point(p + Vec2::new(1000.0, 0.0)));
                world.spawn(spec).unwrap()
            })
            .collect();
        for _ in 0..3 {
            world.step(DT).unwrap();
        }
        for &id in &ids {
            let v = world.velocity(id).unwrap();
            assert!((v - Vec2::X).length() < 1e-4, "orca {orca}: {v}");
        }
    }
}

#[test]
fn tick_stats_count_the_agents_that_steered_and_their_neighbours_alone() {
    // 1,280 birds: ten chunks of 128 rows. Everyone far from the centre, thinking
    // every second tick: five chunks steer on each tick, and the mean neighbour count
    // of an agent that looked is the whole flock's on a tick where all look.
    let (mut world, _) = flock(1280, 5, IndexKind::Grid);
    world.step(DT).unwrap();
    let all = world.last_stats();
    assert_eq!(all.steered, 1280);
    let far = LevelOfDetail::new(Vec2::splat(-1e4), 1.0, 2);
    world.set_level_of_detail(Some(far)).unwrap();
    let mut per_agent = vec![];
    for _ in 0..4 {
        world.step(DT).unwrap();
        let s = world.last_stats();
        assert_eq!(s.steered, 640);
        per_agent.push(s.neighbours as f64 / s.steered as f64);
    }
    let whole = all.neighbours as f64 / 1280.0;
    for m in per_agent {
        assert!((m - whole).abs() < 0.25 * whole, "{m} against {whole}");
    }
}
