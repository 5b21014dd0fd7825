//! Seed 003 (kinematics, integrators, angular behaviours) and seed 000 (the
//! randomized approach walker) in the world pipeline.
mod common;

use glam::Vec2;
use throng::behaviours::angular::{AlignParams, VelocityMatchParams};
use throng::behaviours::approach::ApproachParams;
use throng::behaviours::kinematic::{KinematicArriveParams, KinematicWanderParams};
use throng::group::Movement;
use throng::integrate::{integrate_angular, integrate_linear, Integrator, Limits};
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, ThrongError, World, WorldConfig};

const FREE: Limits = Limits {
    mass: 1.0,
    max_force: f32::MAX,
    max_speed: f32::MAX,
};

/// Integrate a constant acceleration `a` from rest-ish for `t` seconds.
fn run_linear(integrator: Integrator, dt: f32, t: f32) -> Vec2 {
    let a = Vec2::new(2.0, -1.0);
    let (mut p, mut v) = (Vec2::ZERO, Vec2::new(0.5, 0.25));
    let steps = (t / dt).round() as usize;
    for _ in 0..steps {
        (p, v) = integrate_linear(integrator, p, v, a, FREE, dt);
    }
    p
}

fn analytic(t: f32) -> Vec2 {
    Vec2::new(0.5, 0.25) * t + Vec2::new(2.0, -1.0) * (t * t / 2.0)
}

#[test]
fn exact_integrator_matches_the_analytic_solution() {
    for dt in [0.1, 1.0 / 30.0, 0.01] {
        let p = run_linear(Integrator::Exact, dt, 2.0);
        let e = analytic(2.0);
        assert!((p - e).length() <= 1e-5 * e.length(), "dt {dt}: {p} vs {e}");
    }
    // Orientation too: heading += w dt + alpha dt^2/2.
    let (mut h, mut w) = (0.0f32, 0.1f32);
    for _ in 0..10 {
        (h, w) = integrate_angular(Integrator::Exact, h, w, 0.2, 100.0, 0.1);
    }
    let expect = 0.1 * 1.0 + 0.2 * 0.5;
    assert!((h - expect).abs() < 1e-6, "{h} vs {expect}");
}

#[test]
fn newton_euler_1_error_is_first_order_in_dt() {
    let e = analytic(2.0);
    let err = |dt: f32| (run_linear(Integrator::NewtonEuler1, dt, 2.0) - e).length();
    let (e1, e2, e3) = (err(0.04), err(0.02), err(0.01));
    // Halving dt halves the error (first order): ratio 2 within 2%.
    for (big, small) in [(e1, e2), (e2, e3)] {
        let ratio = big / small;
        assert!((ratio - 2.0).abs() < 0.04, "ratio {ratio}");
    }
    // The error is a t dt / 2 exactly: |a| * 2 * dt / 2.
    let a_len = Vec2::new(2.0, -1.0).length();
    assert!((e2 - a_len * 2.0 * 0.02 / 2.0).abs() < 1e-4, "{e2}");
    // Seed-like case: one second at 50 ticks per second from rest; the relative
    // difference between the two updates is dt / t = 2%, as the seed reports.
    let (mut p_ne, mut v_ne, mut p_ex, mut v_ex) = (Vec2::ZERO, Vec2::ZERO, Vec2::ZERO, Vec2::ZERO);
    let a = Vec2::new(0.0, 9.8);
    for _ in 0..50 {
        (p_ne, v_ne) = integrate_linear(Integrator::NewtonEuler1, p_ne, v_ne, a, FREE, 0.02);
        (p_ex, v_ex) = integrate_linear(Integrator::Exact, p_ex, v_ex, a, FREE, 0.02);
    }
    let rel = (p_ex - p_ne).length() / p_ex.length();
    println!(
        "Newton-Euler-1 vs exact, 1 s at dt = 0.02: relative difference {:.4}",
        rel
    );
    assert!((rel - 0.02).abs() < 1e-3, "{rel}");
}

fn kinematic_world(b: Behaviour, max_speed: f32, dt_target: Vec2) -> (World, AgentId) {
    let mut w = World::default();
    let g = w
        .add_group(
            GroupConfig::new("k")
                .moving(Movement::Kinematic)
                .with(b, 1.0),
        )
        .unwrap();
    let a = w
        .spawn(
            AgentSpec::new(g, Vec2::ZERO)
                .with_limits(1.0, max_speed, 1.0)
                .with_target(Target::Point(dt_target)),
        )
        .unwrap();
    (w, a)
}

#[test]
fn kinematic_seek_overshoots_and_jitters_while_arrive_stops_inside_the_radius() {
    let goal = Vec2::new(20.0, 0.0);
    let (mut w, a) = kinematic_world(Behaviour::KinematicSeek, 5.0, goal);
    let mut sides = Vec::new();
    for _ in 0..200 {
        w.step(0.1).unwrap();
        sides.push((w.position(a).unwrap().x - goal.x).signum());
    }
    // After reaching the goal it keeps crossing it: the sign of x - 20 flips
    // again and again, and it never stops.
    let flips = sides.windows(2).filter(|p| p[0] != p[1]).count();
    assert!(flips > 20, "only {flips} crossings");
    assert!((w.velocity(a).unwrap().length() - 5.0).abs() < 1e-4);

    let (mut w, a) = kinematic_world(
        Behaviour::KinematicArrive(KinematicArriveParams::default()),
        5.0,
        goal,
    );
    for _ in 0..200 {
        w.step(0.1).unwrap();
    }
    let d = w.position(a).unwrap().distance(goal);
    assert!(d <= 10.0, "stopped {d} away");
    assert_eq!(w.velocity(a).unwrap(), Vec2::ZERO);
    // It faces the way it moved (+x, heading pi/2).
    assert!((w.heading(a).unwrap() - std::f32::consts::FRAC_PI_2).abs() < 1e-4);
}

#[test]
fn kinematic_wander_moves_at_full_speed_and_turns() {
    let (mut w, a) = kinematic_world(
        Behaviour::KinematicWander(KinematicWanderParams::default()),
        2.0,
        Vec2::ZERO,
    );
    let mut hs = Vec::new();
    for _ in 0..300 {
        w.step(0.1).unwrap();
        hs.push(w.heading(a).unwrap());
        // Velocity is set from the heading of the start of the tick: full speed.
        assert!((w.velocity(a).unwrap().length() - 2.0).abs() < 1e-4);
    }
    let spread =
        hs.iter().cloned().fold(f32::MIN, f32::max) - hs.iter().cloned().fold(f32::MAX, f32::min);
    assert!(spread > 0.5, "{spread}");
}

#[test]
fn face_and_look_where_you_are_going_turn_the_heading() {
    let mut w = World::default();
    let facer = w
        .add_group(GroupConfig::new("face").with(Behaviour::Face(AlignParams::default()), 1.0))
        .unwrap();
    let looker = w
        .add_group(
            GroupConfig::new("look")
                .with(Behaviour::Seek, 1.0)
                .with(Behaviour::LookWhereYouAreGoing(AlignParams::default()), 1.0),
        )
        .unwrap();
    let a = w
        .spawn(AgentSpec::new(facer, Vec2::ZERO).with_target(Target::Point(Vec2::new(-5.0, 0.0))))
        .unwrap();
    let b = w
        .spawn(
            AgentSpec::new(looker, Vec2::new(0.0, 10.0))
                .with_heading(0.0)
                .with_target(Target::Point(Vec2::new(30.0, 10.0))),
        )
        .unwrap();
    for _ in 0..120 {
        w.step(1.0 / 30.0).unwrap();
    }
    // Facing -x is heading -pi/2.
    assert!((w.heading(a).unwrap() + std::f32::consts::FRAC_PI_2).abs() < 0.05);
    assert!((w.heading(b).unwrap() - std::f32::consts::FRAC_PI_2).abs() < 0.05);
}

#[test]
fn velocity_match_copies_the_target_velocity() {
    let mut w = World::default();
    let cruise = w.add_group(GroupConfig::new("cruise")).unwrap();
    let matcher = w
        .add_group(GroupConfig::new("match").with(
            Behaviour::VelocityMatch(VelocityMatchParams::default()),
            1.0,
        ))
        .unwrap();
    let lead = w
        .spawn(AgentSpec::new(cruise, Vec2::ZERO).with_velocity(Vec2::new(1.0, 1.0)))
        .unwrap();
    let m = w
        .spawn(AgentSpec::new(matcher, Vec2::new(5.0, 0.0)).with_target(Target::Agent(lead)))
        .unwrap();
    for _ in 0..60 {
        w.step(1.0 / 30.0).unwrap();
    }
    assert!((w.velocity(m).unwrap() - Vec2::new(1.0, 1.0)).length() < 1e-3);
}

fn walkers(n: usize, threads: usize, params: ApproachParams) -> (World, Vec<AgentId>) {
    let mut w = World::new(WorldConfig {
        seed: 77,
        ..WorldConfig::default()
    });
    w.set_thread_pool(Some(common::pool(threads)));
    let g = w
        .add_group(GroupConfig::new("walkers").with(Behaviour::Approach(params), 1.0))
        .unwrap();
    let side = (n as f32).sqrt().ceil() as usize;
    let ids = (0..n)
        .map(|i| {
            let start = Vec2::new((i % side) as f32, (i / side) as f32) * 6.0;
            // Each walker heads for a point 10-40 units away.
            let goal = start + Vec2::new(10.0 + (i % 31) as f32, -5.0);
            w.spawn(
                AgentSpec::new(g, start)
                    .with_limits(1.0, 3.0, 8.0)
                    .with_target(Target::Point(goal)),
            )
            .unwrap()
        })
        .collect();
    (w, ids)
}

#[test]
fn ten_thousand_walkers_reach_their_targets_identically_on_1_and_2_threads() {
    for spline in [false, true] {
        let params = ApproachParams {
            spline,
            ..ApproachParams::default()
        };
        let (mut one, ids) = walkers(10_000, 1, params);
        let (mut two, _) = walkers(10_000, 2, params);
        for _ in 0..900 {
            one.step(1.0 / 30.0).unwrap();
            two.step(1.0 / 30.0).unwrap();
        }
        assert_eq!(one.state_hash(), two.state_hash(), "spline {spline}");
        let mut far = 0;
        for &id in &ids {
            let Target::Point(goal) = one.target(id).unwrap() else {
                unreachable!()
            };
            if one.position(id).unwrap().distance(goal) > 0.5 {
                far += 1;
            }
        }
        assert_eq!(far, 0, "spline {spline}: {far} walkers did not arrive");
    }
}

#[test]
fn bad_kinematic_input_is_an_error_or_finite() {
    let mut w = World::default();
    let bad = GroupConfig::new("k").moving(Movement::Kinematic).with(
        Behaviour::KinematicArrive(KinematicArriveParams {
            time_to_target: -0.25,
            ..KinematicArriveParams::default()
        }),
        1.0,
    );
    match w.add_group(bad) {
        Err(ThrongError::InvalidParameter { field, .. }) => {
            assert_eq!(field, "behaviours[0].time_to_target")
        }
        other => panic!("{other:?}"),
    }
    // A kinematic behaviour in a steering group is refused, and vice versa.
    assert!(w
        .add_group(GroupConfig::new("x").with(Behaviour::KinematicSeek, 1.0))
        .is_err());
    assert!(w
        .add_group(
            GroupConfig::new("x")
                .moving(Movement::Kinematic)
                .with(Behaviour::Seek, 1.0)
        )
        .is_err());

    // Zero max speed and a target on the agent itself: finite, no motion.
    for b in [
        Behaviour::KinematicSeek,
        Behaviour::KinematicFlee,
        Behaviour::KinematicArrive(KinematicArriveParams::default()),
        Behaviour::KinematicWander(KinematicWanderParams::default()),
    ] {
        for (max_speed, target) in [(0.0, Vec2::new(3.0, 4.0)), (2.0, Vec2::ZERO)] {
            let (mut w, a) = kinematic_world(b.clone(), max_speed, target);
            for _ in 0..20 {
                w.step(0.1).unwrap();
            }
            let p = w.position(a).unwrap();
            assert!(p.is_finite() && w.heading(a).unwrap().is_finite(), "{b:?}");
            if max_speed == 0.0 {
                assert_eq!(p, Vec2::ZERO, "{b:?}");
            }
        }
    }
}

#[test]
fn align_turns_to_the_target_agents_heading() {
    let mut w = World::default();
    let still = w.add_group(GroupConfig::new("still")).unwrap();
    let aligners = w
        .add_group(GroupConfig::new("align").with(Behaviour::Align(AlignParams::default()), 1.0))
        .unwrap();
    let model = w
        .spawn(AgentSpec::new(still, Vec2::new(5.0, 0.0)).with_heading(-2.0))
        .unwrap();
    let a = w
        .spawn(
            AgentSpec::new(aligners, Vec2::ZERO)
                .with_heading(1.0)
                .with_target(Target::Agent(model)),
        )
        .unwrap();
    for _ in 0..120 {
        w.step(1.0 / 30.0).unwrap();
    }
    let err = throng::math::wrap_angle(w.heading(a).unwrap() + 2.0).abs();
    assert!(err < 0.05, "heading off by {err}");
    // It turned in place: align is angular only.
    assert!(w.position(a).unwrap().length() < 1e-6);
}

#[test]
fn kinematic_flee_runs_straight_away_at_full_speed() {
    let threat = Vec2::new(3.0, 4.0);
    let (mut w, a) = kinematic_world(Behaviour::KinematicFlee, 2.0, threat);
    let mut last = w.position(a).unwrap().distance(threat);
    for _ in 0..100 {
        w.step(0.1).unwrap();
        let d = w.position(a).unwrap().distance(threat);
        assert!(d > last, "{d} <= {last}");
        last = d;
    }
    // Directly away from (3,4): along (-0.6,-0.8), at max speed 2.
    let v = w.velocity(a).unwrap();
    assert!((v - Vec2::new(-1.2, -1.6)).length() < 1e-4, "{v}");
}

#[test]
fn walker_states_follow_their_agents_through_re_sorts() {
    // Walkers do not read their neighbours, so each one's path does not depend on the
    // row order: re-sorting every tick must give, agent by agent, bitwise the path of
    // a world that never re-sorts; also when the walker arrives by a group change
    // after the rows have been re-sorted a few times.
    let run = |reorder_interval: u32, late: bool| {
        let mut w = World::new(WorldConfig {
            seed: 5,
            reorder_interval,
            ..WorldConfig::default()
        });
        let walk = GroupConfig::new("walkers").with(
            Behaviour::Approach(ApproachParams {
                spline: true,
                ..ApproachParams::default()
            }),
            1.0,
        );
        let first = if late {
            GroupConfig::new("seekers").with(Behaviour::Seek, 1.0)
        } else {
            walk.clone()
        };
        let g = w.add_group(first).unwrap();
        let ids: Vec<AgentId> = (0..400)
            .map(|i| {
                // Rows spawned far from spatial order, so a re-sort moves them.
                let start = Vec2::new(((i * 37) % 400) as f32, ((i * 91) % 400) as f32) * 0.5;
                w.spawn(
                    AgentSpec::new(g, start)
                        .with_limits(1.0, 3.0, 8.0)
                        .with_target(Target::Point(start + Vec2::new(30.0, -12.0))),
                )
                .unwrap()
            })
            .collect();
        for t in 0..90 {
            if late && t == 10 {
                w.set_group(g, walk.clone()).unwrap();
            }
            w.step(1.0 / 30.0).unwrap();
        }
        let forces: Vec<Vec2> = w.forces().collect();
        ids.iter()
            .map(|&id| {
                let row = w.row(id).unwrap();
                (
                    w.position(id).unwrap(),
                    w.velocity(id).unwrap(),
                    forces[row],
                )
            })
            .collect::<Vec<_>>()
    };
    for late in [false, true] {
        let still = run(0, late);
        let sorted = run(1, late);
        let bits = |v: &[(Vec2, Vec2, Vec2)]| {
            v.iter()
                .flat_map(|(p, q, f)| [p.x, p.y, q.x, q.y, f.x, f.y].map(f32::to_bits))
                .collect::<Vec<u32>>()
        };
        assert_eq!(bits(&still), bits(&sorted), "late = {late}");
    }
}

#[test]
fn walkers_added_to_a_world_that_had_none_walk_the_same_as_from_the_start() {
    // The walker column exists only once some group walks: a world that gains its
    // walking group (and walkers) after other agents have spawned, stepped, moved
    // rows and despawned walks them exactly as a world that had the group from the
    // start.
    let goal = Vec2::new(30.0, -4.0);
    let build = |late: bool| {
        let mut w = World::new(WorldConfig {
            seed: 5,
            reorder_interval: 4,
            ..WorldConfig::default()
        });
        let seekers = w
            .add_group(GroupConfig::new("seekers").with(Behaviour::Seek, 1.0))
            .unwrap();
        let walk =
            GroupConfig::new("walkers").with(Behaviour::Approach(ApproachParams::default()), 1.0);
        let early = if late {
            None
        } else {
            Some(w.add_group(walk.clone()).unwrap())
        };
        let others: Vec<AgentId> = (0..40)
            .map(|i| {
                let spec = AgentSpec::new(seekers, Vec2::new(i as f32, 3.0))
                    .with_target(Target::Point(Vec2::ZERO));
                w.spawn(spec).unwrap()
            })
            .collect();
        for _ in 0..6 {
            w.step(1.0 / 30.0).unwrap();
        }
        w.despawn(others[3]).unwrap();
        let g = early.unwrap_or_else(|| w.add_group(walk).unwrap());
        let ids: Vec<AgentId> = (0..12)
            .map(|i| {
                let spec = AgentSpec::new(g, Vec2::new(-(i as f32), 0.0))
                    .with_limits(1.0, 2.0, 4.0)
                    .with_target(Target::Point(goal));
                w.spawn(spec).unwrap()
            })
            .collect();
        for _ in 0..1_200 {
            w.step(1.0 / 30.0).unwrap();
        }
        (w, ids)
    };
    let (late, ids) = build(true);
    let (early, early_ids) = build(false);
    for (&id, &in_early) in ids.iter().zip(&early_ids) {
        assert_eq!(
            late.position(id).unwrap(),
            early.position(in_early).unwrap()
        );
        assert!(
            late.position(id).unwrap().distance(goal) <= ApproachParams::default().arrive_radius
        );
    }
}
