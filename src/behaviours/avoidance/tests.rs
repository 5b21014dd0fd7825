//! Tests of [`super`]: the linear programs on hand-built cases, each line's formula on
//! a hand-worked case, and the obstacle lines against a brute-force velocity obstacle.

use super::*;
use crate::rng::{agent_rng, uniform};

fn close(a: Vec2, b: Vec2) -> bool {
    (a - b).length() < 1e-4
}

/// A half-plane `v · normal >= offset`.
fn half(normal: Vec2, offset: f32) -> Line {
    let n = normal.normalize();
    Line::from_normal(n * offset, n)
}

#[test]
fn one_constraint_projects_the_preferred_velocity() {
    // x <= 1 (normal -x through (1, 0)); preferred (3, 1), speed 5: (1, 1).
    let lines = [Line::from_normal(Vec2::new(1.0, 0.0), -Vec2::X)];
    let v = solve(&lines, 0, Vec2::new(3.0, 1.0), 5.0, &mut Vec::new());
    assert!(close(v, Vec2::new(1.0, 1.0)), "{v}");
    // A preferred velocity already inside is kept; one beyond the speed is cut.
    assert_eq!(
        solve(&lines, 0, Vec2::new(-1.0, 2.0), 5.0, &mut Vec::new()),
        Vec2::new(-1.0, 2.0)
    );
    let v = solve(&[], 0, Vec2::new(6.0, 8.0), 5.0, &mut Vec::new());
    assert!(close(v, Vec2::new(3.0, 4.0)), "{v}");
}

#[test]
fn two_crossing_constraints_meet_at_their_corner() {
    // x <= 1 and y <= 1; preferred (3, 3): the corner (1, 1).
    let lines = [half(-Vec2::X, -1.0), half(-Vec2::Y, -1.0)];
    let v = solve(&lines, 0, Vec2::new(3.0, 3.0), 10.0, &mut Vec::new());
    assert!(close(v, Vec2::new(1.0, 1.0)), "{v}");
    // Within the speed disc of radius 1: the corner is out of reach, the nearest
    // point of x <= 1, y <= 1 on the disc toward (3, 3) is (√½, √½).
    let v = solve(&lines, 0, Vec2::new(3.0, 3.0), 1.0, &mut Vec::new());
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!(close(v, Vec2::new(h, h)), "{v}");
}

#[test]
fn infeasible_constraints_fall_back_to_least_violation() {
    // x >= 1 and x <= -1 leave nothing: the 3D fallback takes the velocity that
    // violates both least, x = 0 (each by 1); along y it keeps 0.
    let lines = [half(Vec2::X, 1.0), half(-Vec2::X, 1.0)];
    let v = solve(&lines, 0, Vec2::new(0.5, 0.0), 5.0, &mut Vec::new());
    assert!(v.x.abs() < 1e-4, "{v}");
    assert!(lines.iter().all(|l| (l.violation(v) - 1.0).abs() < 1e-4));
    // An obstacle's line is held: with x >= 1 an obstacle line, the agents' x <= -1
    // yields entirely.
    let v = solve(&lines, 1, Vec2::new(0.5, 0.0), 5.0, &mut Vec::new());
    assert!(v.x >= 1.0 - 1e-4, "{v}");
}

#[test]
fn head_on_agent_line_hand_worked() {
    // The other 4 ahead (+x), combined radius 1, horizon 2 s, closing at 1 unit/s:
    // the cut-off disc is centred at (2, 0) with radius 0.5, the relative velocity
    // (1, 0) is 0.5 short of it: u = (0.5, 0), outward normal -x. The agent's half:
    // the line through (1, 0) + 0.25 (1, 0) with valid side x <= 1.25.
    let e = Encounter {
        rel_pos: Vec2::new(4.0, 0.0),
        rel_vel: Vec2::new(1.0, 0.0),
        radius: 1.0,
        share: 0.5,
    };
    let line = agent_line(Vec2::new(1.0, 0.0), &e, 0.5, 0.1);
    assert!(close(line.point, Vec2::new(1.25, 0.0)), "{line:?}");
    assert!(close(line.dir, Vec2::new(0.0, 1.0)), "{line:?}");
    assert!(line.violation(Vec2::new(1.2, 0.0)) < 0.0);
    assert!(line.violation(Vec2::new(1.3, 0.0)) > 0.0);
}

#[test]
fn overlapping_agents_separate_within_a_step() {
    // Already overlapping (centres 1 apart, radii sum 2), still: the line asks for a
    // relative speed of (2 - 1) / dt away, half of it each.
    let e = Encounter {
        rel_pos: Vec2::new(1.0, 0.0),
        rel_vel: Vec2::ZERO,
        radius: 2.0,
        share: 0.5,
    };
    let dt = 0.25;
    let line = agent_line(Vec2::ZERO, &e, 0.5, dt);
    // w = -p / dt = (-4, 0), u = -x * (2 / dt - 4) = (-4, 0); point 0.5 u.
    assert!(close(line.point, Vec2::new(-2.0, 0.0)), "{line:?}");
    assert!(line.violation(Vec2::new(-2.1, 0.0)) < 0.0);
    assert!(line.violation(Vec2::new(-1.9, 0.0)) > 0.0);
}

#[test]
fn shares_follow_priority_arrival_and_masks() {
    assert_eq!(share((0.5, false), (0.5, false), true), 0.5);
    assert_eq!(share((1.0, false), (0.0, false), true), 0.0);
    assert_eq!(share((0.0, false), (1.0, false), true), 1.0);
    assert_eq!(share((1.0, false), (1.0, false), true), 0.5);
    // An arrived agent yields as if its priority were 0.
    assert!((share((0.5, true), (0.5, false), true) - 2.0 / 3.0).abs() < 1e-6);
    // A neighbour that does not avoid back leaves it all to the agent.
    assert_eq!(share((1.0, false), (0.0, false), false), 1.0);
}

#[test]
fn making_way_hand_worked() {
    let reach = 0.8;
    // A mover 2 behind the holder (at the origin), bound 2 past it along +x: the
    // holder stands on its line and steps to the mover's right (-y), all the way.
    let (from, to) = (Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0));
    assert!(close(make_way(from, to, reach), Vec2::new(0.0, -1.0)));
    // The mover's line 0.3 below the holder: up, (0.8 - 0.3) / 0.8 = 0.625 deep.
    let below = Vec2::new(0.0, -0.3);
    assert!(close(
        make_way(from + below, to + below, reach),
        Vec2::new(0.0, 0.625)
    ));
    // One line 0.8 or more away: not in the way.
    let apart = Vec2::new(0.0, -0.8);
    assert_eq!(make_way(from + apart, to + apart, reach), Vec2::ZERO);
    // Behind the mover (it walks away from the holder): not in the way.
    let ahead = Vec2::new(1.0, 0.0);
    assert_eq!(make_way(ahead, ahead + to, reach), Vec2::ZERO);
    // The mover's goal short of the holder: the nearest point is the goal, 0.5 to
    // the left (-x) of the holder: (0.8 - 0.5) / 0.8 = 0.375, toward +x.
    let short = Vec2::new(-0.5, 0.0);
    assert!(close(
        make_way(Vec2::new(-4.0, 0.0), short, reach),
        Vec2::new(0.375, 0.0)
    ));
    assert_eq!(
        make_way(Vec2::new(-4.0, 0.0), Vec2::new(-1.0, 0.0), reach),
        Vec2::ZERO
    );
    // A mover on its goal, and lengths that overflow: nothing.
    assert_eq!(make_way(from, from, reach), Vec2::ZERO);
    let huge = Vec2::new(3e38, 0.0);
    assert_eq!(make_way(-huge, huge, reach), Vec2::ZERO);
}

#[test]
fn goes_my_way_hand_worked() {
    let east = Vec2::X;
    let at = |deg: f32| Vec2::new(deg.to_radians().cos(), deg.to_radians().sin());
    // The same way, 45° off, and 59° off: followed.
    assert!(goes_my_way(east, east));
    assert!(goes_my_way(east, at(45.0)));
    assert!(goes_my_way(east, at(-59.0)));
    // 61° off, crossing at a right angle, coming toward it: passed.
    assert!(!goes_my_way(east, at(61.0)));
    assert!(!goes_my_way(east, Vec2::Y));
    assert!(!goes_my_way(east, -east));
    // No direction (NaN compares false): passed.
    assert!(!goes_my_way(east, Vec2::NAN));
}

#[test]
fn headway_speed_hand_worked() {
    let east = Vec2::X;
    // Straight ahead 2.0 away, radii sum 0.5: free 1.5, over a time gap of 1 s.
    assert_eq!(headway_speed(east, Vec2::new(2.0, 0.0), 0.5, 1.0), 1.5);
    // 0.2 aside (within the lane, half the radii sum: 0.25): the bodies touch
    // sqrt(0.5² - 0.2²) = 0.4583 short of centre to centre: free 1.5417, over 0.5 s.
    let speed = headway_speed(east, Vec2::new(2.0, 0.2), 0.5, 0.5);
    assert!((speed - 3.0834).abs() < 1e-3, "{speed}");
    // Out of the lane (0.25 aside or more: they walk shoulder past shoulder), behind,
    // or abreast (the bodies overlap along the path already): none.
    assert_eq!(
        headway_speed(east, Vec2::new(2.0, 0.25), 0.5, 1.0),
        f32::INFINITY
    );
    assert_eq!(
        headway_speed(east, Vec2::new(2.0, -0.3), 0.5, 1.0),
        f32::INFINITY
    );
    assert_eq!(
        headway_speed(east, Vec2::new(-2.0, 0.0), 0.5, 1.0),
        f32::INFINITY
    );
    assert_eq!(
        headway_speed(east, Vec2::new(0.3, 0.1), 0.5, 1.0),
        f32::INFINITY
    );
    assert_eq!(headway_speed(east, Vec2::NAN, 0.5, 1.0), f32::INFINITY);
    // Any heading: the same pair turned a quarter.
    let north = Vec2::Y;
    let speed = headway_speed(north, Vec2::new(-0.2, 2.0), 0.5, 0.5);
    assert!((speed - 3.0834).abs() < 1e-3, "{speed}");
}

#[test]
fn pressed_hand_worked() {
    // Top speed 2, held up below 0.3 of it (0.6 m/s), squeeze 0.2: at rest 0.8 of
    // the bodies' width; at 0.3 m/s, half way to 0.6, 0.9; at 0.6 and above, all.
    assert_eq!(pressed(0.0, 2.0, 0.3, 0.2), 0.8);
    assert!((pressed(0.3, 2.0, 0.3, 0.2) - 0.9).abs() < 1e-6);
    assert_eq!(pressed(0.6, 2.0, 0.3, 0.2), 1.0);
    assert_eq!(pressed(5.0, 2.0, 0.3, 0.2), 1.0);
    // No squeeze, a body that cannot move, speeds that are not numbers: rigid.
    assert_eq!(pressed(0.0, 2.0, 0.3, 0.0), 1.0);
    assert_eq!(pressed(0.0, 0.0, 0.3, 0.2), 1.0);
    assert_eq!(pressed(f32::NAN, 2.0, 0.3, 0.2), 1.0);
    assert_eq!(pressed(f32::INFINITY, 2.0, 0.3, 0.2), 1.0);
    assert_eq!(pressed(0.0, f32::INFINITY, 0.3, 0.2), 0.8);
}

#[test]
fn wall_and_disc_lines_hand_worked() {
    // A wall 3 ahead from x = -5 to 5, the agent's radius 1, horizon 1 s: the near
    // side of the velocity obstacle is y = 2; moving at (0, 3), the nearest boundary
    // point is (0, 2), and the line keeps y <= 2.
    let line = wall_line(
        Vec2::new(-5.0, 3.0),
        Vec2::new(5.0, 3.0),
        1.0,
        Vec2::new(0.0, 3.0),
        1.0,
        -Vec2::Y,
    );
    assert!(close(line.point, Vec2::new(0.0, 2.0)), "{line:?}");
    assert!(line.violation(Vec2::new(3.0, 1.9)) < 0.0);
    assert!(line.violation(Vec2::new(0.0, 2.1)) > 0.0);
    // A disc of radius 2 (the agent's included) centred 4 ahead, horizon 1 s: the cut-
    // off disc spans y 2..6; at (0, 3), inside it, the nearest boundary point is (0, 2).
    let line = disc_line(Vec2::new(0.0, 4.0), 2.0, Vec2::new(0.0, 3.0), 1.0);
    assert!(close(line.point, Vec2::new(0.0, 2.0)), "{line:?}");
    assert!(line.violation(Vec2::new(0.0, 1.9)) < 0.0);
    // Touching the wall: no velocity toward it.
    let line = wall_line(
        Vec2::new(-5.0, 0.5),
        Vec2::new(5.0, 0.5),
        1.0,
        Vec2::Y,
        1.0,
        -Vec2::Y,
    );
    assert!(line.violation(Vec2::new(0.0, 0.1)) > 0.0);
    assert!(line.violation(Vec2::new(3.0, -0.1)) < 0.0);
}

/// Whether the relative velocity `v` reaches the capsule `a..b` ⊕ `r` within `tau`:
/// the distance from the segment of `s v` is convex in `s`, so a ternary search over
/// `s` in `[0, tau]` finds its least.
fn in_obstacle(v: Vec2, (a, b, r): (Vec2, Vec2, f32), tau: f32) -> bool {
    let dist = |s: f32| {
        let p = v * s;
        (crate::math::closest_point_on_segment(p, a, b).0 - p).length()
    };
    let (mut lo, mut hi) = (0.0f32, tau);
    for _ in 0..100 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if dist(m1) < dist(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    // (A hair of slack: the search ends within rounding of a crossing.)
    dist((lo + hi) / 2.0) <= r + 1e-5
}

#[test]
fn obstacle_lines_bound_the_velocity_obstacle() {
    // Random segments and discs clear of the agent, random velocities: the line's
    // point lies on the obstacle's boundary (just inside is in it, just outside not),
    // no velocity sampled in the obstacle is on the valid side, and no sampled
    // boundary point is nearer the velocity than the line's point.
    let mut rng = agent_rng(31, 7);
    let mut checked = 0;
    for case in 0..1500 {
        let mut u = |lo: f32, hi: f32| uniform(&mut rng, lo, hi);
        // A disc, or a segment (of zero thickness for some: a bare wall).
        let disc = case % 3 == 0;
        let r = if case % 5 == 0 && !disc {
            0.0
        } else {
            u(0.2, 2.0)
        };
        let a = Vec2::new(u(-10.0, 10.0), u(-10.0, 10.0));
        let b = if disc {
            a
        } else {
            a + Vec2::new(u(-8.0, 8.0), u(-8.0, 8.0))
        };
        if crate::math::closest_point_on_segment(Vec2::ZERO, a, b)
            .0
            .length()
            <= r + 0.1
        {
            continue;
        }
        let tau = u(0.5, 4.0);
        let v = Vec2::new(u(-6.0, 6.0), u(-6.0, 6.0));
        let line = if a == b {
            disc_line(a, r, v, 1.0 / tau)
        } else {
            wall_line(a, b, r, v, 1.0 / tau, Vec2::Y)
        };
        let n = Vec2::new(-line.dir.y, line.dir.x);
        let obstacle = (a, b, r);
        // On the boundary: in the obstacle's closure, and just out along the normal.
        let grown = (a, b, r + 1e-3);
        assert!(
            in_obstacle(line.point, grown, tau),
            "case {case}: {line:?} {a} {b} {r} {tau} {v}"
        );
        assert!(
            !in_obstacle(line.point + n * 1e-3, obstacle, tau),
            "case {case}: {line:?} {a} {b} {r} {tau} {v}"
        );
        let nearest = (line.point - v).length();
        for _ in 0..60 {
            let w = Vec2::new(u(-12.0, 12.0), u(-12.0, 12.0));
            if in_obstacle(w, obstacle, tau) {
                assert!(line.violation(w) > -1e-3, "case {case}: {w} is valid");
                // A boundary point near w: step out along the ray from v.
                let out = w + (w - v).normalize_or_zero() * 1e-2;
                if !in_obstacle(out, obstacle, tau) {
                    assert!(
                        (w - v).length() >= nearest - 2e-2,
                        "case {case}: {w} nearer"
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked > 1000);
}

#[test]
fn params_are_validated() {
    assert!(AvoidanceParams::default().validate().is_ok());
    for bad in [
        AvoidanceParams {
            time_horizon: 0.0,
            ..AvoidanceParams::default()
        },
        AvoidanceParams {
            obstacle_time_horizon: f32::NAN,
            ..AvoidanceParams::default()
        },
        AvoidanceParams {
            priority: 1.5,
            ..AvoidanceParams::default()
        },
        AvoidanceParams {
            arrived_within: -1.0,
            ..AvoidanceParams::default()
        },
        AvoidanceParams {
            side_bias: 2.0,
            ..AvoidanceParams::default()
        },
        AvoidanceParams {
            squeeze: 0.5,
            ..AvoidanceParams::default()
        },
        AvoidanceParams {
            squeeze: f32::NAN,
            ..AvoidanceParams::default()
        },
    ] {
        assert!(bad.validate().is_err(), "{bad:?}");
    }
    // Near the goal: every key checked as the group's own, and the distance > 0.
    let near = NearGoal {
        within: 4.0,
        time_gap: 0.5,
        squeeze: 0.2,
        side_bias: 1.0,
    };
    let with = |near| AvoidanceParams {
        near_goal: Some(near),
        ..AvoidanceParams::default()
    };
    assert!(with(near).validate().is_ok());
    assert!(AvoidanceParams::pedestrian().validate().is_ok());
    for (bad, key) in [
        (
            NearGoal {
                within: 0.0,
                ..near
            },
            "near_goal.within",
        ),
        (
            NearGoal {
                within: f32::INFINITY,
                ..near
            },
            "near_goal.within",
        ),
        (
            NearGoal {
                time_gap: -1.0,
                ..near
            },
            "near_goal.time_gap",
        ),
        (
            NearGoal {
                squeeze: 0.5,
                ..near
            },
            "near_goal.squeeze",
        ),
        (
            NearGoal {
                side_bias: f32::NAN,
                ..near
            },
            "near_goal.side_bias",
        ),
    ] {
        let e = with(bad).validate().unwrap_err();
        assert!(e.starts_with(key), "{e}");
    }
}

#[test]
fn pressing_takes_the_near_goal_keys_and_nothing_else() {
    let p = AvoidanceParams::pedestrian();
    let near = p.near_goal.unwrap();
    let there = p.pressing(&near);
    assert_eq!(
        (
            there.time_gap,
            there.squeeze,
            there.side_bias,
            there.near_goal
        ),
        (near.time_gap, near.squeeze, near.side_bias, None)
    );
    let back = AvoidanceParams {
        time_gap: p.time_gap,
        squeeze: p.squeeze,
        side_bias: p.side_bias,
        near_goal: p.near_goal,
        ..there
    };
    assert_eq!(back, p);
}

#[test]
fn lines_that_are_not_finite_leave_a_finite_velocity() {
    // A line through a NaN point, one at infinity and one whose direction is NaN:
    // the programs never panic (no `clamp` with NaN bounds), and what they cannot
    // solve comes back as zero rather than NaN.
    let bad = [
        Line {
            point: Vec2::new(f32::NAN, 0.0),
            dir: Vec2::X,
        },
        Line {
            point: Vec2::new(f32::INFINITY, 1.0),
            dir: Vec2::Y,
        },
        Line {
            point: Vec2::ZERO,
            dir: Vec2::new(f32::NAN, f32::NAN),
        },
        half(Vec2::X, 0.5),
    ];
    let mut scratch = Vec::new();
    for n in 1..=bad.len() {
        for first in 0..n {
            let v = solve(&bad[first..n], 0, Vec2::new(1.0, 1.0), 2.0, &mut scratch);
            assert!(v.is_finite(), "{n} {first}: {v}");
        }
    }
}

#[test]
fn feasible_programs_keep_every_half_plane_and_find_the_nearest_velocity() {
    // 20,000 random programs of 1-16 half-planes built around a point known to lie
    // in all of them and within the speed disc: the result lies in every half-plane
    // (to rounding), within the speed, and no velocity of a fine grid that does is
    // nearer the preferred one.
    let mut rng = agent_rng(11, 12);
    let mut scratch = Vec::new();
    let mut worst: f32 = 0.0;
    for case in 0..20_000 {
        let max_speed = uniform(&mut rng, 0.5, 3.0);
        let inside = Vec2::new(uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0))
            * (0.7 * max_speed);
        let n = 1 + case % 16;
        let lines: Vec<Line> = (0..n)
            .map(|_| {
                let a = uniform(&mut rng, 0.0, std::f32::consts::TAU);
                let normal = Vec2::new(a.cos(), a.sin());
                // Through a point `slack` behind `inside`, so `inside` is valid.
                let slack = uniform(&mut rng, 0.0, 0.5 * max_speed);
                Line::from_normal(inside - normal * slack, normal)
            })
            .collect();
        let preferred = Vec2::new(uniform(&mut rng, -4.0, 4.0), uniform(&mut rng, -4.0, 4.0));
        let v = solve(&lines, 0, preferred, max_speed, &mut scratch);
        let violation = lines
            .iter()
            .map(|l| l.violation(v))
            .fold(f32::MIN, f32::max);
        worst = worst.max(violation);
        assert!(violation <= 1e-4, "case {case}: violated by {violation}");
        assert!(v.length() <= max_speed * (1.0 + 1e-5), "case {case}: {v}");
        if case % 100 == 0 {
            // The brute force: the nearest feasible point of a 0.01 grid.
            let step = 0.01;
            let k = (max_speed / step) as i32;
            let mut best = f32::INFINITY;
            for i in -k..=k {
                for j in -k..=k {
                    let u = Vec2::new(i as f32, j as f32) * step;
                    if u.length() <= max_speed && lines.iter().all(|l| l.violation(u) <= 0.0) {
                        best = best.min(u.distance(preferred));
                    }
                }
            }
            assert!(
                v.distance(preferred) <= best + 2.0 * step,
                "case {case}: {} against the grid's {best}",
                v.distance(preferred)
            );
        }
    }
    assert!(worst <= 1e-4, "{worst}");
}

#[test]
fn front_turn_hand_worked() {
    // The default side turn, 0.6 × (1 - 0.5) = 0.3 rad: unchanged with no front,
    // 0.3 × (1 + 8 × 0.25) = 0.9 with a quarter of the neighbours ahead in it,
    // 0.3 × 5 = 1.5 with 0.5, and a quarter turn (not 2.7) with all of them.
    assert_eq!(front_turn(0.3, 0.0), 0.3);
    assert!((front_turn(0.3, 0.25) - 0.9).abs() < 1e-6);
    assert!((front_turn(0.3, 0.5) - 1.5).abs() < 1e-6);
    assert_eq!(front_turn(0.3, 1.0), std::f32::consts::FRAC_PI_2);
    // No side turn, no front turn.
    assert_eq!(front_turn(0.0, 1.0), 0.0);
}
