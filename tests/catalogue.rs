//! Outcomes of the rest of the catalogue in small scenes, leader sight against a
//! brute-force check, determinism with a full scene, and degenerate input.
mod common;

use std::collections::HashMap;

use glam::Vec2;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::leader::{ahead_point, in_leader_sight, LeaderParams, LeaderView};
use throng::behaviours::obstacles::ObstacleAvoidanceParams;
use throng::behaviours::path::PathFollowParams;
use throng::behaviours::tactics::{HideParams, InterposeParams, OffsetPursuitParams};
use throng::behaviours::targeting::{EvadeParams, Motion};
use throng::behaviours::walls::WallAvoidanceParams;
use throng::behaviours::wander::WanderParams;
use throng::combine::Combination;
use throng::rng::{agent_rng, uniform};
use throng::scene::{Obstacle, Path, SceneError, Wall};
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, ThrongError, World, WorldConfig};

const DT: f32 = 1.0 / 30.0;

#[test]
fn obstacle_avoidance_goes_around_and_arrives() {
    let mut w = World::default();
    w.set_obstacles(&[Obstacle::new(Vec2::new(0.0, 10.0), 3.0).unwrap()])
        .unwrap();
    let g = w
        .add_group(
            GroupConfig::new("g")
                .with(
                    Behaviour::ObstacleAvoidance(ObstacleAvoidanceParams::default()),
                    3.0,
                )
                .with(Behaviour::Seek, 1.0)
                .combined_by(Combination::Prioritized),
        )
        .unwrap();
    let goal = Vec2::new(0.3, 25.0);
    let a = w
        .spawn(
            AgentSpec::new(g, Vec2::ZERO)
                .with_velocity(Vec2::Y)
                .with_target(Target::Point(goal)),
        )
        .unwrap();
    let mut closest = f32::MAX;
    let mut reached = false;
    for _ in 0..900 {
        w.step(DT).unwrap();
        let p = w.position(a).unwrap();
        closest = closest.min(p.distance(Vec2::new(0.0, 10.0)));
        reached |= p.distance(goal) < 1.0;
    }
    // Buckland's detection box only sees obstacles ahead of the agent's centre,
    // so while passing alongside, seek may pull the body (radius 0.5) slightly
    // into the obstacle's expanded radius; it never gets half-way in.
    assert!(closest > 3.0 + 0.25, "came within {closest} of the centre");
    assert!(reached);
}

#[test]
fn path_following_stays_on_a_looped_path_and_progresses() {
    let mut w = World::default();
    let square = vec![
        Vec2::ZERO,
        Vec2::new(40.0, 0.0),
        Vec2::new(40.0, 40.0),
        Vec2::new(0.0, 40.0),
    ];
    let path = w.add_path(Path::looped(square).unwrap()).unwrap();
    let g = w
        .add_group(GroupConfig::new("g").with(
            Behaviour::FollowPath {
                path: Some(path),
                params: PathFollowParams::default(),
            },
            1.0,
        ))
        .unwrap();
    let a = w
        .spawn(AgentSpec::new(g, Vec2::new(5.0, 3.0)).with_limits(1.0, 3.0, 6.0))
        .unwrap();
    let mut worst = 0.0f32;
    let mut corners = [false; 4];
    for t in 0..3_000 {
        w.step(DT).unwrap();
        let p = w.position(a).unwrap();
        let d = [p.y.abs(), (p.x - 40.0).abs(), (p.y - 40.0).abs(), p.x.abs()]
            .into_iter()
            .fold(f32::MAX, f32::min);
        if t > 300 {
            worst = worst.max(d);
        }
        for (i, c) in [
            Vec2::new(40.0, 0.0),
            Vec2::new(40.0, 40.0),
            Vec2::new(0.0, 40.0),
            Vec2::ZERO,
        ]
        .iter()
        .enumerate()
        {
            corners[i] |= p.distance(*c) < 6.0;
        }
    }
    assert!(worst < 3.0, "strayed {worst} from the path");
    assert!(corners.iter().all(|&c| c), "did not go round: {corners:?}");
}

#[test]
fn interpose_gets_between_two_moving_agents() {
    let mut w = World::default();
    let cruise = w.add_group(GroupConfig::new("cruise")).unwrap();
    let bodyguard = w
        .add_group(
            GroupConfig::new("guard").with(Behaviour::Interpose(InterposeParams::default()), 1.0),
        )
        .unwrap();
    let a = w
        .spawn(AgentSpec::new(cruise, Vec2::new(-10.0, 0.0)).with_velocity(Vec2::new(0.0, 0.5)))
        .unwrap();
    let b = w
        .spawn(AgentSpec::new(cruise, Vec2::new(10.0, 0.0)).with_velocity(Vec2::new(0.0, 0.5)))
        .unwrap();
    let g = w
        .spawn(
            AgentSpec::new(bodyguard, Vec2::new(0.0, -15.0))
                .with_limits(1.0, 3.0, 6.0)
                .with_target(Target::Agent(a))
                .with_target2(Target::Agent(b)),
        )
        .unwrap();
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    let mid = (w.position(a).unwrap() + w.position(b).unwrap()) / 2.0;
    let d = w.position(g).unwrap().distance(mid);
    assert!(d < 1.0, "{d} from the midpoint");
}

#[test]
fn hide_puts_an_obstacle_between_the_agent_and_the_hunter() {
    let mut w = World::default();
    let centre = Vec2::new(0.0, 0.0);
    w.set_obstacles(&[Obstacle::new(centre, 2.0).unwrap()])
        .unwrap();
    let still = w.add_group(GroupConfig::new("hunter")).unwrap();
    let hiders = w
        .add_group(GroupConfig::new("hide").with(Behaviour::Hide(HideParams::default()), 1.0))
        .unwrap();
    let hunter = w
        .spawn(AgentSpec::new(still, Vec2::new(-12.0, 0.0)))
        .unwrap();
    let h = w
        .spawn(
            AgentSpec::new(hiders, Vec2::new(-4.0, 6.0))
                .with_limits(1.0, 3.0, 6.0)
                .with_target(Target::Agent(hunter)),
        )
        .unwrap();
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    let p = w.position(h).unwrap();
    // Buckland's spot: centre + normalize(centre - hunter) * (radius + 3).
    assert!(p.distance(Vec2::new(5.0, 0.0)) < 0.5, "hid at {p}");
    // The hunter's line of sight to the agent passes through the obstacle.
    let hp = w.position(hunter).unwrap();
    let (closest, _) = throng::math::closest_point_on_segment(centre, hp, p);
    assert!(closest.distance(centre) < 2.0);
}

#[test]
fn offset_pursuit_holds_a_formation_slot() {
    let mut w = World::default();
    let cruise = w.add_group(GroupConfig::new("cruise")).unwrap();
    let wing = w
        .add_group(GroupConfig::new("wing").with(
            Behaviour::OffsetPursuit(OffsetPursuitParams::default()),
            1.0,
        ))
        .unwrap();
    let lead = w
        .spawn(AgentSpec::new(cruise, Vec2::ZERO).with_velocity(Vec2::new(1.0, 0.0)))
        .unwrap();
    // Two units to the leader's right and two behind; the leader faces +x, so
    // its right is -y.
    let m = w
        .spawn(
            AgentSpec::new(wing, Vec2::new(-5.0, 5.0))
                .with_limits(1.0, 3.0, 6.0)
                .with_offset(Vec2::new(2.0, -2.0))
                .with_target(Target::Agent(lead)),
        )
        .unwrap();
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    let slot = w.position(lead).unwrap() + Vec2::new(-2.0, -2.0);
    let d = w.position(m).unwrap().distance(slot);
    assert!(d < 0.5, "{d} from the slot");
}

#[test]
fn wall_avoidance_turns_an_agent_before_the_wall() {
    let mut w = World::default();
    w.set_walls(&[Wall::new(Vec2::new(10.0, -20.0), Vec2::new(10.0, 20.0)).unwrap()])
        .unwrap();
    let g = w
        .add_group(
            GroupConfig::new("g")
                .with(
                    Behaviour::WallAvoidance(WallAvoidanceParams::default()),
                    4.0,
                )
                .with(Behaviour::Seek, 1.0)
                .combined_by(Combination::Prioritized),
        )
        .unwrap();
    // Seeking a point behind the wall, heading straight at it.
    let a = w
        .spawn(
            AgentSpec::new(g, Vec2::ZERO)
                .with_velocity(Vec2::X)
                .with_target(Target::Point(Vec2::new(30.0, 0.0))),
        )
        .unwrap();
    let mut prevented = 0;
    for _ in 0..600 {
        prevented += w.step(DT).unwrap().crossings_prevented;
        assert!(w.position(a).unwrap().x < 10.0);
    }
    assert_eq!(prevented, 0, "the feelers alone kept it off the wall");
}

#[test]
fn fast_agents_are_stopped_at_thin_walls_and_counted() {
    // Steering cannot save an agent moving 20 units a tick at a wall it has
    // no feelers for: the integration pass stops it and counts it.
    let mut w = World::default();
    w.set_walls(&[Wall::new(Vec2::new(5.0, -50.0), Vec2::new(5.0, 50.0)).unwrap()])
        .unwrap();
    let g = w
        .add_group(GroupConfig::new("g").with(Behaviour::Seek, 1.0))
        .unwrap();
    let mut ids = Vec::new();
    for i in 0..20 {
        let spec = AgentSpec::new(g, Vec2::new(0.0, i as f32 * 2.0 - 20.0))
            .with_limits(1.0, 600.0, 1e5)
            .with_velocity(Vec2::new(600.0, 0.0))
            .with_target(Target::Point(Vec2::new(100.0, 0.0)));
        ids.push(w.spawn(spec).unwrap());
    }
    let s = w.step(DT).unwrap();
    assert_eq!(s.crossings_prevented, 20);
    for id in ids {
        assert!(w.position(id).unwrap().x < 5.0);
    }
}

#[test]
fn dithered_combination_still_steers() {
    let mut w = World::default();
    let mut cfg = GroupConfig::new("g")
        .with(Behaviour::Separation(SeparationParams::default()), 1.0)
        .with(Behaviour::Seek, 1.0)
        .combined_by(Combination::Dithered);
    cfg.behaviours[0].probability = 0.2;
    cfg.behaviours[1].probability = 0.8;
    let g = w.add_group(cfg).unwrap();
    let goal = Vec2::new(20.0, 0.0);
    let a = w
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(goal)))
        .unwrap();
    let mut best = f32::MAX;
    for _ in 0..600 {
        w.step(DT).unwrap();
        best = best.min(w.position(a).unwrap().distance(goal));
    }
    assert!(best < 0.5, "{best}");
}

/// Several squads on a field with agents that give way and agents that don't.
fn squads_scene(seed: u64, threads: usize) -> (World, Vec<AgentId>) {
    let mut w = World::new(WorldConfig {
        seed,
        ..WorldConfig::default()
    });
    w.set_thread_pool(Some(common::pool(threads)));
    w.set_walls(&common::arena(120.0)).unwrap();
    w.set_obstacles(&[
        Obstacle::new(Vec2::new(40.0, 40.0), 5.0).unwrap(),
        Obstacle::new(Vec2::new(80.0, 70.0), 4.0).unwrap(),
        Obstacle::new(Vec2::new(80.0, 70.0), 4.0).unwrap(),
    ])
    .unwrap();
    let ring: Vec<Vec2> = (0..24)
        .map(|i| {
            let a = i as f32 / 24.0 * std::f32::consts::TAU;
            Vec2::splat(60.0) + Vec2::new(a.cos(), a.sin()) * 40.0
        })
        .collect();
    let path = w.add_path(Path::looped(ring).unwrap()).unwrap();
    let walls = Behaviour::WallAvoidance(WallAvoidanceParams::default());
    let leaders = w
        .add_group(
            GroupConfig::new("leaders")
                .with(walls.clone(), 3.0)
                .with(
                    Behaviour::FollowPath {
                        path: Some(path),
                        params: PathFollowParams::default(),
                    },
                    1.0,
                )
                .with(Behaviour::Wander(WanderParams::default()), 0.2),
        )
        .unwrap();
    let sep = SeparationParams::default();
    let small = LeaderParams {
        behind_distance: 6.0,
        sight_radius: 5.0,
        slowing_radius: 8.0,
        evade: EvadeParams::default(),
    };
    let followers_a = w
        .add_group(
            GroupConfig::new("followers a")
                .with(walls.clone(), 3.0)
                .with(Behaviour::ObstacleAvoidance(Default::default()), 2.0)
                .with(
                    Behaviour::LeaderFollow {
                        leader: small,
                        separation: sep,
                    },
                    1.0,
                ),
        )
        .unwrap();
    let followers_b = w
        .add_group(
            GroupConfig::new("followers b")
                .with(walls.clone(), 3.0)
                .with(
                    Behaviour::LeaderFollow {
                        leader: LeaderParams {
                            sight_radius: 8.0,
                            ..small
                        },
                        separation: sep,
                    },
                    1.0,
                ),
        )
        .unwrap();
    let polite = w
        .add_group(
            GroupConfig::new("polite")
                .with(walls.clone(), 3.0)
                .with(Behaviour::GiveWay(EvadeParams::default()), 1.0)
                .with(Behaviour::Wander(WanderParams::default()), 1.0),
        )
        .unwrap();
    let rude = w
        .add_group(
            GroupConfig::new("rude")
                .with(walls, 3.0)
                .with(Behaviour::Separation(sep), 1.0)
                .with(Behaviour::Wander(WanderParams::default()), 1.0),
        )
        .unwrap();
    let mut rng = agent_rng(seed, u64::MAX);
    let mut p = || Vec2::new(uniform(&mut rng, 2.0, 118.0), uniform(&mut rng, 2.0, 118.0));
    let mut ids = Vec::new();
    let mut heads = Vec::new();
    for _ in 0..4 {
        let l = w
            .spawn(AgentSpec::new(leaders, p()).with_velocity(Vec2::X))
            .unwrap();
        heads.push(l);
        ids.push(l);
    }
    for i in 0..300 {
        let g = if i % 2 == 0 { followers_a } else { followers_b };
        let spec = AgentSpec::new(g, p()).with_target(Target::Agent(heads[i % 4]));
        ids.push(w.spawn(spec).unwrap());
    }
    for _ in 0..150 {
        ids.push(w.spawn(AgentSpec::new(polite, p())).unwrap());
    }
    for _ in 0..150 {
        ids.push(w.spawn(AgentSpec::new(rude, p())).unwrap());
    }
    (w, ids)
}

#[test]
fn leader_sight_from_the_index_equals_a_brute_force_check() {
    let (mut w, ids) = squads_scene(5, 2);
    let groups: Vec<GroupConfig> = w.groups().map(|(_, g)| g.clone()).collect();
    let mut checked_in_sight = 0;
    for tick in 0..60 {
        // The state the sight phase will see.
        let before: HashMap<AgentId, (Vec2, Vec2, f32)> = ids
            .iter()
            .map(|&id| {
                (
                    id,
                    (
                        w.position(id).unwrap(),
                        w.velocity(id).unwrap(),
                        w.heading(id).unwrap(),
                    ),
                )
            })
            .collect();
        w.step(DT).unwrap();
        if tick % 10 != 9 {
            continue;
        }
        // Leaders and their sight parameters (the lowest follower group's).
        let mut leader_params: HashMap<AgentId, (usize, LeaderParams)> = HashMap::new();
        for &id in &ids {
            let g = w.agent_group(id).unwrap().index();
            if let (Some(p), Target::Agent(l)) = (groups[g].leader_params(), w.target(id).unwrap())
            {
                let e = leader_params.entry(l).or_insert((g, *p));
                if g < e.0 {
                    *e = (g, *p);
                }
            }
        }
        let mut leaders: Vec<AgentId> = leader_params.keys().copied().collect();
        leaders.sort_by_key(|&l| w.row(l).unwrap());
        for &id in &ids {
            let g = &groups[w.agent_group(id).unwrap().index()];
            let watches = g.watches_leaders();
            let (pos, ..) = before[&id];
            let seeing: Vec<AgentId> = leaders
                .iter()
                .copied()
                .filter(|&l| l != id && watches)
                .filter(|l| {
                    let (lp, lv, lh) = before[l];
                    let params = leader_params[l].1;
                    let view = LeaderView {
                        body: Motion { pos: lp, vel: lv },
                        heading: lh,
                    };
                    in_leader_sight(pos, lp, ahead_point(&view, &params), &params)
                })
                .collect();
            let own = match w.target(id).unwrap() {
                Target::Agent(l) if g.leader_params().is_some() && seeing.contains(&l) => Some(l),
                _ => None,
            };
            let expect = own.or_else(|| seeing.first().copied());
            assert_eq!(
                w.in_sight_of(id).unwrap(),
                expect,
                "agent {id} at tick {tick}"
            );
            checked_in_sight += usize::from(expect.is_some());
        }
    }
    assert!(
        checked_in_sight > 20,
        "the scene put too few agents in sight: {checked_in_sight}"
    );
}

#[test]
fn full_scene_is_bitwise_identical_on_1_and_2_threads() {
    let run = |threads| {
        let (mut w, _) = squads_scene(8, threads);
        for _ in 0..400 {
            w.step(DT).unwrap();
        }
        w.state_hash()
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn degenerate_scene_input_is_an_error_or_finite() {
    // Invalid input: errors.
    assert!(matches!(
        Wall::new(Vec2::ONE, Vec2::ONE),
        Err(SceneError::ZeroLengthWall { .. })
    ));
    assert!(matches!(
        Path::open(vec![Vec2::ONE]),
        Err(SceneError::PathTooShort { .. })
    ));
    assert!(Obstacle::new(Vec2::ZERO, 0.0).is_err());
    assert!(Obstacle::new(Vec2::new(f32::NAN, 0.0), 1.0).is_err());
    let mut w = World::default();
    let missing_path = GroupConfig::new("g").with(
        Behaviour::FollowPath {
            path: Some({
                let mut other = World::default();
                let _ = other.add_path(Path::open(vec![Vec2::ZERO, Vec2::X]).unwrap());
                other
                    .add_path(Path::open(vec![Vec2::ZERO, Vec2::Y]).unwrap())
                    .unwrap()
            }),
            params: PathFollowParams::default(),
        },
        1.0,
    );
    assert!(matches!(
        w.add_group(missing_path),
        Err(ThrongError::InvalidParameter { .. })
    ));

    // Valid but degenerate: agents exactly on a wall, coincident obstacle
    // centres, a leader with zero velocity.
    w.set_walls(&[Wall::new(Vec2::new(0.0, -5.0), Vec2::new(0.0, 5.0)).unwrap()])
        .unwrap();
    w.set_obstacles(&[
        Obstacle::new(Vec2::new(3.0, 0.0), 1.0).unwrap(),
        Obstacle::new(Vec2::new(3.0, 0.0), 1.0).unwrap(),
    ])
    .unwrap();
    let still = w.add_group(GroupConfig::new("still")).unwrap();
    let all = w
        .add_group(
            GroupConfig::new("all")
                .with(Behaviour::WallAvoidance(Default::default()), 1.0)
                .with(Behaviour::ObstacleAvoidance(Default::default()), 1.0)
                .with(Behaviour::Hide(Default::default()), 1.0)
                .with(Behaviour::OffsetPursuit(Default::default()), 1.0)
                .with(
                    Behaviour::LeaderFollow {
                        leader: LeaderParams::default(),
                        separation: SeparationParams::default(),
                    },
                    1.0,
                ),
        )
        .unwrap();
    let leader = w.spawn(AgentSpec::new(still, Vec2::new(3.0, 0.0))).unwrap();
    for i in 0..20 {
        let p = Vec2::new(0.0, i as f32 * 0.5 - 5.0);
        w.spawn(AgentSpec::new(all, p).with_target(Target::Agent(leader)))
            .unwrap();
        w.spawn(AgentSpec::new(all, Vec2::new(3.0, 0.0)).with_target(Target::Agent(leader)))
            .unwrap();
    }
    for _ in 0..200 {
        let s = w.step(DT).unwrap();
        assert_eq!(s.quarantined, 0);
        assert!(w.positions().iter().all(|p| p.is_finite()));
        assert!(w.velocities().iter().all(|v| v.is_finite()));
        assert!(w.forces().all(|f| f.is_finite()));
    }
}

#[test]
fn agents_that_give_way_clear_the_leaders_path() {
    // A leader walks along +x through a column of agents; those that give way
    // step out of its sight, those that don't stay in its way.
    let run = |give_way: bool| {
        let mut w = World::default();
        let leader_g = w.add_group(GroupConfig::new("leader")).unwrap();
        let followers = w
            .add_group(GroupConfig::new("followers").with(
                Behaviour::LeaderFollow {
                    leader: LeaderParams {
                        behind_distance: 3.0,
                        sight_radius: 2.0,
                        slowing_radius: 4.0,
                        evade: EvadeParams::default(),
                    },
                    separation: SeparationParams::default(),
                },
                1.0,
            ))
            .unwrap();
        let mut crowd = GroupConfig::new("crowd");
        if give_way {
            crowd = crowd.with(Behaviour::GiveWay(EvadeParams::default()), 1.0);
        }
        let crowd = w.add_group(crowd).unwrap();
        let leader = w
            .spawn(
                AgentSpec::new(leader_g, Vec2::new(-10.0, 0.0))
                    .with_limits(1.0, 1.0, 1.0)
                    .with_velocity(Vec2::X),
            )
            .unwrap();
        w.spawn(
            AgentSpec::new(followers, Vec2::new(-14.0, 0.0)).with_target(Target::Agent(leader)),
        )
        .unwrap();
        let column: Vec<AgentId> = (0..9)
            .map(|i| {
                let p = Vec2::new(0.0, i as f32 * 0.5 - 2.0);
                w.spawn(AgentSpec::new(crowd, p).with_limits(1.0, 3.0, 6.0))
                    .unwrap()
            })
            .collect();
        let (mut marked, mut in_way) = (0, 0);
        for _ in 0..600 {
            w.step(DT).unwrap();
            let lp = w.position(leader).unwrap();
            let ahead = lp + w.velocity(leader).unwrap().normalize_or_zero() * 3.0;
            for &id in &column {
                marked += usize::from(w.in_sight_of(id).unwrap() == Some(leader));
                let p = w.position(id).unwrap();
                in_way += usize::from(p.distance(lp) <= 2.0 || p.distance(ahead) <= 2.0);
            }
        }
        (marked, in_way)
    };
    let (marked_polite, in_way_polite) = run(true);
    let (marked_rude, in_way_rude) = run(false);
    // Agents that don't watch leaders are never marked, and the leader walks
    // straight through them; polite ones are marked while in the way and get out
    // of it, so they spend far fewer ticks in its sight.
    assert_eq!(marked_rude, 0);
    assert!(marked_polite > 0);
    assert!(
        in_way_polite * 3 < in_way_rude,
        "in the way {in_way_polite} agent-ticks giving way vs {in_way_rude} not"
    );
}
