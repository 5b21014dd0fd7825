//! Reciprocal collision avoidance (ORCA) in small scenes: pairs pass without touching,
//! on any number of threads alike; priorities and layers decide who gives way; speeds
//! stay within the limit; crowds and walls are not walked through.

use std::sync::Arc;

use glam::Vec2;
use throng::behaviours::avoidance::{AvoidanceParams, NearGoal};
use throng::behaviours::field::FollowFieldParams;
use throng::behaviours::targeting::ArriveParams;
use throng::scene::{FieldSpec, Goal, Wall};
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, GroupId, Target, World, WorldConfig};

const DT: f32 = 0.1;

fn walkers(world: &mut World, name: &str, avoidance: AvoidanceParams) -> GroupId {
    world
        .add_group(
            GroupConfig::new(name)
                .with(
                    Behaviour::Arrive(ArriveParams {
                        slowing_radius: 1.0,
                        ..ArriveParams::default()
                    }),
                    1.0,
                )
                .neighbours(10.0, 10)
                .avoiding(avoidance),
        )
        .unwrap()
}

fn walker(world: &mut World, g: GroupId, from: Vec2, to: Vec2) -> AgentId {
    let spec = AgentSpec::new(g, from)
        .with_limits(0.1, 1.5, 100.0)
        .with_radius(0.5)
        .with_target(Target::Point(to));
    world.spawn(spec).unwrap()
}

/// The least distance between two agents over `ticks` ticks.
fn closest_approach(world: &mut World, a: AgentId, b: AgentId, ticks: usize) -> f32 {
    let mut least = f32::INFINITY;
    for _ in 0..ticks {
        world.step(DT).unwrap();
        let d = world
            .position(a)
            .unwrap()
            .distance(world.position(b).unwrap());
        least = least.min(d);
    }
    least
}

#[test]
fn head_on_pair_passes_without_touching_on_any_thread_count() {
    let run = |threads: usize| {
        let mut w = World::new(WorldConfig::default());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        w.set_thread_pool(Some(Arc::new(pool)));
        let g = walkers(&mut w, "walkers", AvoidanceParams::default());
        // Exactly head-on: the side preference breaks the symmetry.
        let a = walker(&mut w, g, Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0));
        let b = walker(&mut w, g, Vec2::new(10.0, 0.0), Vec2::new(-10.0, 0.0));
        let least = closest_approach(&mut w, a, b, 300);
        (
            least,
            w.position(a).unwrap(),
            w.position(b).unwrap(),
            w.state_hash(),
        )
    };
    let (least, pa, pb, hash) = run(1);
    assert!(
        least >= 1.0 - 1e-3,
        "centres came within {least} (radii sum 1)"
    );
    assert!(pa.distance(Vec2::new(10.0, 0.0)) < 0.5, "{pa}");
    assert!(pb.distance(Vec2::new(-10.0, 0.0)) < 0.5, "{pb}");
    assert_eq!(run(2).3, hash);
    assert_eq!(run(3).3, hash);
}

/// Two agents crossing at right angles with these priorities: how far each strays
/// from its straight line (the first along y = 0, the second along x = 0), and how
/// close they came.
fn crossing(first: f32, second: f32) -> (f32, f32, f32) {
    let mut w = World::new(WorldConfig::default());
    let with = |priority| AvoidanceParams {
        priority,
        ..AvoidanceParams::default()
    };
    let ga = walkers(&mut w, "first", with(first));
    let gb = walkers(&mut w, "second", with(second));
    let a = walker(&mut w, ga, Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0));
    let b = walker(&mut w, gb, Vec2::new(0.0, -10.0), Vec2::new(0.0, 10.0));
    let (mut off_a, mut off_b, mut least) = (0.0f32, 0.0f32, f32::INFINITY);
    for _ in 0..300 {
        w.step(DT).unwrap();
        let (pa, pb) = (w.position(a).unwrap(), w.position(b).unwrap());
        off_a = off_a.max(pa.y.abs());
        off_b = off_b.max(pb.x.abs());
        least = least.min(pa.distance(pb));
    }
    (off_a, off_b, least)
}

#[test]
fn the_higher_priority_keeps_its_line() {
    // Priority 1 against 0: the first barely leaves its line, the second gives way.
    let (boss, minion, least) = crossing(1.0, 0.0);
    assert!(least >= 1.0 - 1e-3, "touched: {least}");
    assert!(boss < 0.1, "the priority-1 agent strayed {boss}");
    assert!(minion > 0.1 && minion > 5.0 * boss, "{boss} {minion}");
    // Equal priorities share it; swapped priorities swap the roles.
    let (a, b, _) = crossing(0.5, 0.5);
    assert!(a > 0.05 && b > 0.05, "{a} {b}");
    let (minion, boss, _) = crossing(0.0, 1.0);
    assert!(boss < 0.1 && minion > 5.0 * boss, "{boss} {minion}");
}

#[test]
fn layers_that_do_not_mask_each_other_pass_through() {
    // Two groups in different layers, each avoiding only its own: head-on, they walk
    // straight through each other. With the masks on, they pass apart.
    let run = |mask_other: bool| {
        let mut w = World::new(WorldConfig::default());
        let mask = |own: u32| if mask_other { u32::MAX } else { own };
        let red = walkers(
            &mut w,
            "red",
            AvoidanceParams {
                layers: 1,
                mask: mask(1),
                ..AvoidanceParams::default()
            },
        );
        let blue = walkers(
            &mut w,
            "blue",
            AvoidanceParams {
                layers: 2,
                mask: mask(2),
                ..AvoidanceParams::default()
            },
        );
        let a = walker(&mut w, red, Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0));
        let b = walker(&mut w, blue, Vec2::new(10.0, 0.0), Vec2::new(-10.0, 0.0));
        closest_approach(&mut w, a, b, 300)
    };
    assert!(run(false) < 0.1, "layers apart should ignore each other");
    assert!(run(true) >= 1.0 - 1e-3);
}

#[test]
fn a_dense_crossing_keeps_speeds_and_bodies_apart() {
    // Four squads of 25 cross a square at right angles inside four walls: no speed
    // above the maximum, no pair of centres closer than a radius (deep overlap), no
    // agent through a wall, and most arrive.
    let mut w = World::new(WorldConfig::default());
    let g = walkers(
        &mut w,
        "crowd",
        AvoidanceParams {
            time_horizon: 3.0,
            ..AvoidanceParams::default()
        },
    );
    let half = 14.0;
    let corners = [
        Vec2::new(-half, -half),
        Vec2::new(half, -half),
        Vec2::new(half, half),
        Vec2::new(-half, half),
    ];
    let walls: Vec<Wall> = (0..4)
        .map(|i| Wall::new(corners[i], corners[(i + 1) % 4]).unwrap())
        .collect();
    w.set_walls(&walls).unwrap();
    let mut ids = Vec::new();
    for side in 0..4 {
        let (along, across) = match side {
            0 => (Vec2::X, Vec2::Y),
            1 => (-Vec2::X, Vec2::Y),
            2 => (Vec2::Y, Vec2::X),
            _ => (-Vec2::Y, Vec2::X),
        };
        for k in 0..25 {
            let offset =
                across * ((k % 5) as f32 - 2.0) * 1.3 - along * (11.0 - (k / 5) as f32 * 1.3);
            ids.push(walker(&mut w, g, offset, offset + along * 16.0));
        }
    }
    for _ in 0..1200 {
        w.step(DT).unwrap();
        let p = w.positions();
        for (i, v) in w.velocities().iter().enumerate() {
            assert!(v.length() <= 1.5 + 1e-4, "speed {} above 1.5", v.length());
            assert!(
                p[i].x.abs() < half && p[i].y.abs() < half,
                "out of the walls: {}",
                p[i]
            );
            for q in &p[i + 1..] {
                assert!(p[i].distance(*q) >= 0.5, "deep overlap: {} and {q}", p[i]);
            }
        }
    }
    let arrived = ids
        .iter()
        .filter(|&&id| {
            let Target::Point(goal) = w.target(id).unwrap() else {
                return false;
            };
            w.position(id).unwrap().distance(goal) < 1.0
        })
        .count();
    assert!(arrived >= 95, "{arrived} of 100 arrived");
}

/// A walker with the default body (mass 1, force 4: half a second to its top speed
/// 2) and avoidance, walking 8 units past two agents standing either side of its way
/// (2 units off its line), with or without separation; when it first comes within
/// 0.5 of its goal, and the closest it comes to either of them.
fn past_two_standing(separation: bool) -> (Option<f32>, f32) {
    let mut world = World::default();
    let arrive = ArriveParams {
        slowing_radius: 2.0,
        ..ArriveParams::default()
    };
    let mut config = GroupConfig::new("walkers").with(Behaviour::Arrive(arrive), 1.0);
    if separation {
        let sep = throng::behaviours::flocking::SeparationParams::default();
        config = config.with(Behaviour::Separation(sep), 1.5);
    }
    let g = world
        .add_group(config.avoiding(AvoidanceParams::default()))
        .unwrap();
    let goal = Vec2::new(8.0, 0.0);
    let me = world
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(goal)))
        .unwrap();
    let others = [Vec2::new(3.0, 2.0), Vec2::new(3.0, -2.0)]
        .map(|p| world.spawn(AgentSpec::new(g, p)).unwrap());
    let (mut arrived, mut closest) = (None, f32::INFINITY);
    let dt = 0.05;
    for t in 1..=300 {
        world.step(dt).unwrap();
        let p = world.position(me).unwrap();
        for o in others {
            closest = closest.min(p.distance(world.position(o).unwrap()));
        }
        if arrived.is_none() && p.distance(goal) < 0.5 {
            arrived = Some(t as f32 * dt);
        }
    }
    (arrived, closest)
}

#[test]
fn a_soft_body_with_avoidance_walks_past_standing_agents_at_its_pace() {
    // Alone it would take about 4 s at its top speed and its acceleration; the two
    // bystanders leave it a 3-unit gap. (When the avoidance was offered only one
    // tick's worth of the behaviours' force, this walker crawled: 14.7 s without
    // separation, and not there after 15 s with it.)
    for separation in [false, true] {
        let (arrived, closest) = past_two_standing(separation);
        let t = arrived.unwrap_or(f32::INFINITY);
        assert!(t < 6.0, "separation {separation}: arrived at {arrived:?}");
        assert!(
            closest >= 1.0 - 1e-3,
            "separation {separation}: bodies overlapped, {closest}"
        );
    }
}

/// A group whose behaviours are all four-lane terms (here seek alone) and that avoids
/// is steered one agent at a time with its avoidance: 156 people (the pedestrian
/// preset) walking one way round a ring corridor (walls of 160 segments at radii 8.75
/// and 11.25), each aiming 6 m ahead on its tangent, so that the crowd presses onto
/// the outer wall. (The four-lane kernel once took such groups: their seek force was
/// integrated as the avoidance's velocity, bodies stopped and started every other
/// tick, and walkers ran into them: two bodies 0.30 apart by tick 523.)
#[test]
fn seekers_that_avoid_keep_apart_when_pressed_onto_a_curved_wall() {
    use std::f32::consts::TAU;
    let mut world = World::new(WorldConfig::default());
    let circle = |radius: f32, ccw: bool| -> Vec<Wall> {
        let p = |i: usize| {
            let a = i as f32 / 160.0 * TAU;
            Vec2::new(a.cos(), a.sin()) * radius
        };
        (0..160)
            .map(|i| {
                let (a, b) = if ccw {
                    (p(i), p(i + 1))
                } else {
                    (p(i + 1), p(i))
                };
                Wall::new(a, b).unwrap()
            })
            .collect()
    };
    let mut walls = circle(11.25, true);
    walls.extend(circle(8.75, false));
    world.set_walls(&walls).unwrap();
    let g = world
        .add_group(
            GroupConfig::new("people")
                .with(Behaviour::Seek, 1.0)
                .neighbours(3.0, 10)
                .avoiding(AvoidanceParams::pedestrian()),
        )
        .unwrap();
    let ids: Vec<AgentId> = (0..156)
        .map(|i| {
            let a = (i / 4) as f32 / 39.0 * TAU;
            let r = 9.2 + (i % 4) as f32 * 0.6;
            let p = Vec2::new(a.cos(), a.sin()) * r;
            world
                .spawn(AgentSpec::new(g, p).with_pedestrian_body())
                .unwrap()
        })
        .collect();
    let ahead = |p: Vec2| {
        let out = p / p.length().max(1e-3);
        p + Vec2::new(-out.y, out.x) * 6.0
    };
    for t in 0..1200 {
        if t % 20 == 0 {
            let targets: Vec<Target> = ids
                .iter()
                .map(|&id| Target::Point(ahead(world.position(id).unwrap())))
                .collect();
            world.set_each_target(&ids, &targets).unwrap();
        }
        world.step(0.05).unwrap();
        let pos = world.positions();
        for (i, a) in pos.iter().enumerate() {
            for b in &pos[i + 1..] {
                assert!(
                    a.distance(*b) > 0.3,
                    "tick {t}: bodies {} apart",
                    a.distance(*b)
                );
            }
        }
    }
}

/// The gap a walker (top speed 1.34) keeps behind a slower one (0.5) it follows
/// east, after 30 s, with time gap `time_gap`: (free distance, its speed).
fn following(time_gap: f32) -> (f32, f32) {
    let mut world = World::new(WorldConfig::default());
    let g = world
        .add_group(
            GroupConfig::new("people")
                .with(Behaviour::Seek, 1.0)
                .neighbours(5.0, 10)
                .avoiding(AvoidanceParams {
                    time_gap,
                    side_bias: 0.0,
                    ..AvoidanceParams::pedestrian()
                }),
        )
        .unwrap();
    let east = Target::Point(Vec2::new(1000.0, 0.0));
    let spec = |x: f32| {
        AgentSpec::new(g, Vec2::new(x, 0.0))
            .with_pedestrian_body()
            .with_target(east)
    };
    let slow = world.spawn(spec(3.0).with_limits(1.0, 0.5, 26.8)).unwrap();
    let me = world.spawn(spec(0.0)).unwrap();
    for _ in 0..600 {
        world.step(0.05).unwrap();
    }
    let d = world.position(slow).unwrap() - world.position(me).unwrap();
    (d.length() - 0.44, world.velocity(me).unwrap().length())
}

#[test]
fn a_walker_keeps_its_time_gap_behind_a_slower_one() {
    // 1 s behind a walker at 0.5 m/s: half a metre free, at its pace.
    let (free, speed) = following(1.0);
    assert!((free - 0.5).abs() < 0.05, "free {free}");
    assert!((speed - 0.5).abs() < 0.02, "speed {speed}");
    // Without a time gap it closes in to the avoidance's few centimetres.
    let (free, _) = following(0.0);
    assert!(free < 0.15, "free {free}");
}

/// Two walkers following a goal field east to an exit at x = 40 (the pedestrian
/// preset, no keep-right, near the exit a time gap of 0.35 s and no squeeze), the
/// one ahead at 0.5 m/s; the group follows a second field after that one where
/// `second` is given; with the space free between them.
fn walkers_to_an_exit(second: Option<Goal>) -> (World, impl Fn(&World) -> (f32, f32)) {
    let mut world = World::new(WorldConfig::default());
    let exit = world
        .add_goal_field(FieldSpec::new(
            vec![Goal::Box(Vec2::new(40.0, -5.0), Vec2::new(50.0, 5.0))],
            0.25,
        ))
        .unwrap();
    let avoidance = AvoidanceParams {
        side_bias: 0.0,
        near_goal: Some(NearGoal {
            within: 12.0,
            time_gap: 0.35,
            squeeze: 0.0,
            side_bias: 0.0,
        }),
        ..AvoidanceParams::pedestrian()
    };
    let follow = |field| Behaviour::FollowField {
        field,
        params: FollowFieldParams::default(),
    };
    let mut group = GroupConfig::new("people")
        .with(follow(exit), 1.0)
        .neighbours(5.0, 10)
        .avoiding(avoidance);
    if let Some(goal) = second {
        let other = world
            .add_goal_field(FieldSpec::new(vec![goal], 0.25))
            .unwrap();
        group = group.with(follow(other), 0.01);
    }
    let g = world.add_group(group).unwrap();
    let spec = |x: f32| AgentSpec::new(g, Vec2::new(x, 0.0)).with_pedestrian_body();
    let slow = world.spawn(spec(3.0).with_limits(1.0, 0.5, 26.8)).unwrap();
    let me = world.spawn(spec(0.0)).unwrap();
    let seen = move |w: &World| {
        let d = w.position(slow).unwrap() - w.position(me).unwrap();
        (w.position(me).unwrap().x, d.length() - 0.44)
    };
    (world, seen)
}

#[test]
fn near_its_exit_a_walker_closes_up_to_the_near_time_gap() {
    // 1 s behind the slow one while farther than 12 m from the exit (half a metre
    // free), 0.35 s once within (0.175 m).
    let (mut world, seen) = walkers_to_an_exit(None);
    // 20 s: the one behind about 26 m from the exit.
    for _ in 0..400 {
        world.step(0.05).unwrap();
    }
    let (x, free) = seen(&world);
    assert!(x < 27.0);
    assert!((free - 0.5).abs() < 0.05, "far: {free}");
    // 60 s: within 12 m of it.
    for _ in 0..800 {
        world.step(0.05).unwrap();
    }
    let (x, free) = seen(&world);
    assert!(x > 29.0);
    assert!((free - 0.175).abs() < 0.05, "near: {free}");
}

#[test]
fn near_is_measured_along_the_first_field_a_group_follows() {
    // The group follows a second field too, whose goal covers the walkers' whole way:
    // by that one they would always be near. Near is the first field's (its exit's).
    let everywhere = Goal::Box(Vec2::new(-10.0, -5.0), Vec2::new(60.0, 5.0));
    let (mut world, seen) = walkers_to_an_exit(Some(everywhere));
    for _ in 0..400 {
        world.step(0.05).unwrap();
    }
    let (x, free) = seen(&world);
    assert!(x < 27.0);
    assert!((free - 0.5).abs() < 0.05, "far: {free}");
}
