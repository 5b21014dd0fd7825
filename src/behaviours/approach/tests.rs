//! Tests of [`super`]: each formula on a hand-worked case, outcomes in small scenes.

use super::*;
use crate::integrate::Integrator;
use crate::math::truncate;
use crate::rng::{agent_rng, AgentRng};

fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
    (a - b).length() <= tol
}

/// Unsigned angle between two non-zero vectors.
fn angle_between(a: Vec2, b: Vec2) -> f32 {
    let c = a.normalize().dot(b.normalize()).clamp(-1.0, 1.0);
    c.acos()
}

/// Check one pick against the seed's rules: the target when the step would
/// overshoot, else a step of `step_length` within the cone.
fn assert_pick_obeys_rules(walker: Vec2, target: Vec2, wp: Vec2, p: &ApproachParams) {
    let d = (target - walker).length();
    let step = step_length(d, p);
    if step > d {
        assert_eq!(wp, target);
        return;
    }
    let off = wp - walker;
    assert!(
        (off.length() - step).abs() < 1e-4 * step.max(1.0),
        "{off} vs {step}"
    );
    let a = angle_between(off, target - walker);
    assert!(
        a <= max_half_fov(d, p) + 1e-4,
        "angle {a} > {}",
        max_half_fov(d, p)
    );
}

#[test]
fn pick_hand_worked() {
    let mut rng = agent_rng(1, 1);
    // Infinite aggro radius: the cone has zero width, so the pick is straight.
    let straight = ApproachParams {
        aggro_radius: f32::INFINITY,
        ..ApproachParams::default()
    };
    // 8 away: step clamp(4, 1, 10) = 4, so (0,4).
    let wp = pick_next_waypoint(Vec2::ZERO, Vec2::new(0.0, 8.0), &straight, &mut rng);
    assert!(close(wp, Vec2::new(0.0, 4.0), 1e-6));
    // 30 away: step clamp(15, 1, 10) = 10, so (0,10).
    let wp = pick_next_waypoint(Vec2::ZERO, Vec2::new(0.0, 30.0), &straight, &mut rng);
    assert!(close(wp, Vec2::new(0.0, 10.0), 1e-6));
    // 1.5 away: step clamp(0.75, 1, 10) = 1 <= 1.5, a step of 1.
    let wp = pick_next_waypoint(Vec2::ZERO, Vec2::new(0.0, 1.5), &straight, &mut rng);
    assert!(close(wp, Vec2::new(0.0, 1.0), 1e-6));
    // 0.9 away: step 1 > 0.9, straight to the target.
    let p = ApproachParams::default();
    let t = Vec2::new(0.9, 0.0);
    assert_eq!(pick_next_waypoint(Vec2::ZERO, t, &p, &mut rng), t);
    // On the target: the target.
    assert_eq!(pick_next_waypoint(t, t, &p, &mut rng), t);
    // The cone: 0 at the target, 45°·15/30 = 22.5° at 15, 45° at and beyond 30.
    assert_eq!(max_half_fov(0.0, &p), 0.0);
    assert!((max_half_fov(15.0, &p) - FRAC_PI_4 / 2.0).abs() < 1e-6);
    assert!((max_half_fov(30.0, &p) - FRAC_PI_4).abs() < 1e-6);
    assert!((max_half_fov(300.0, &p) - FRAC_PI_4).abs() < 1e-6);
}

#[test]
fn seed_example_obeys_the_rules() {
    // The seed's walk from (10, 10) (its (10, 0, 10)) to the origin, to two
    // decimals; hence the slack on step lengths.
    let p = ApproachParams::default();
    let walk = [
        Vec2::new(10.0, 10.0),
        Vec2::new(3.73, 6.71),
        Vec2::new(2.11, 3.23),
        Vec2::new(0.96, 1.68),
        Vec2::new(0.50, 0.79),
    ];
    for w in walk.windows(2) {
        let d = w[0].length();
        let off = w[1] - w[0];
        assert!((off.length() - step_length(d, &p)).abs() < 0.01, "{w:?}");
        assert!(
            angle_between(off, -w[0]) <= max_half_fov(d, &p) + 0.01,
            "{w:?}"
        );
    }
    // The last is within the minimum step: the next pick is the target.
    let mut rng = agent_rng(0, 0);
    assert_eq!(
        pick_next_waypoint(walk[4], Vec2::ZERO, &p, &mut rng),
        Vec2::ZERO
    );
}

/// The waypoints picked from `start` until the target, each from the last.
fn walk(start: Vec2, target: Vec2, p: &ApproachParams, rng: &mut AgentRng) -> Vec<Vec2> {
    let mut pts = vec![start];
    let mut w = start;
    for _ in 0..100 {
        w = pick_next_waypoint(w, target, p, rng);
        pts.push(w);
        if w == target {
            break;
        }
    }
    pts
}

/// How far a pick may lie past the target along the walk's original line:
/// `sin(π/60)`, the sideways part of a unit step at the widest angle of the last
/// steps (see `walk_from_the_seed_example_converges_within_eight_picks`).
const PAST_ORIGINAL_LINE: f32 = 0.0524;

/// The tick of the unit tests that call `approach_step` directly.
const DT: f32 = 0.02;

#[test]
fn walk_from_the_seed_example_converges_within_eight_picks() {
    // Bound on the picks from (10,10) to the origin (d0 = 14.142), with the
    // defaults and each pick made from the previous waypoint:
    // - 2 <= d < 20: step = d/2 and angle a <= (π/4)(d/30) < π/6, so by the
    //   law of cosines d'^2 = d^2 + d^2/4 - d^2 cos a <= d^2 (1.25 - 0.8660),
    //   d' <= 0.6197 d. From 14.142: <= 8.765, 5.432, 3.366, 2.086, 1.293, so
    //   at most 5 such picks bring d below 2 (it never rises back above 20).
    // - 1 <= d < 2: step = 1, a <= (π/4)(d/30) < π/60. By the triangle
    //   inequality d' <= (d - 1) + 2 sin(a/2) < d - 1 + 0.0524 < 1.053 (and
    //   d' < d). If still >= 1, one more pick gives d' < 0.053 + 0.0524 < 1:
    //   at most 2 such picks.
    // - d < 1: the step (1) exceeds d, the pick is the target.
    // Total: at most 5 + 2 + 1 = 8 picks, and the distance strictly shrinks.
    let p = ApproachParams::default();
    let start = Vec2::new(10.0, 10.0);
    let mut longest = 0;
    for seed in 0..2000 {
        let mut rng = agent_rng(seed, 0);
        let pts = walk(start, Vec2::ZERO, &p, &mut rng);
        assert_eq!(*pts.last().unwrap(), Vec2::ZERO, "seed {seed}");
        let picks = pts.len() - 1;
        assert!(picks <= 8, "seed {seed}: {picks} picks");
        longest = longest.max(picks);
        for w in pts.windows(2) {
            assert_pick_obeys_rules(w[0], Vec2::ZERO, w[1], &p);
            assert!(w[1].length() < w[0].length(), "seed {seed}: {w:?}");
        }
        // Past the target along the original line by at most sin(π/60). With u
        // the unit direction from a walker to the target (and u·e0 >= 0), a pick
        // relative to the target is -(d - s cos a) u + s sin a u_perp, and
        // s <= d, so its part along e0 is at most s sin a |u_perp·e0|. Only the
        // short last steps come near the target: there s = 1, a < π/60.
        let e0 = -start.normalize();
        for w in &pts {
            assert!(w.dot(e0) <= PAST_ORIGINAL_LINE, "seed {seed}: {pts:?}");
        }
    }
    assert!(
        longest >= 5,
        "the bound should be nearly tight, got {longest}"
    );
    // The same seed gives the same waypoints.
    let a = walk(start, Vec2::ZERO, &p, &mut agent_rng(42, 7));
    let b = walk(start, Vec2::ZERO, &p, &mut agent_rng(42, 7));
    assert_eq!(a, b);
    let c = walk(start, Vec2::ZERO, &p, &mut agent_rng(43, 7));
    assert_ne!(a, c);
}

#[test]
fn far_walks_take_max_steps_in_a_45_degree_cone() {
    let p = ApproachParams::default();
    let mut rng = agent_rng(9, 9);
    let (w, t) = (Vec2::ZERO, Vec2::new(100.0, 0.0));
    for _ in 0..1000 {
        let wp = pick_next_waypoint(w, t, &p, &mut rng);
        assert!((wp.length() - 10.0).abs() < 1e-4);
        assert!(angle_between(wp, t) <= FRAC_PI_4 + 1e-5);
    }
}

#[test]
fn degenerate_parameters_and_inputs_are_finite() {
    let base = ApproachParams::default();
    let bad = [
        ApproachParams {
            aggro_radius: 0.0,
            ..base
        },
        ApproachParams {
            aggro_radius: f32::NAN,
            ..base
        },
        ApproachParams {
            min_step: 0.0,
            step_fraction: 0.0,
            ..base
        },
        ApproachParams {
            min_step: f32::NAN,
            max_step: f32::NAN,
            step_fraction: f32::NAN,
            ..base
        },
        ApproachParams {
            min_step: 5.0,
            max_step: 1.0,
            ..base
        },
        ApproachParams {
            step_fraction: 3.0,
            ..base
        },
        ApproachParams {
            arrive_radius: -1.0,
            slowing_radius: f32::NAN,
            ..base
        },
        ApproachParams {
            spline: true,
            spline_points: 0,
            min_step: 0.0,
            step_fraction: 0.0,
            ..base
        },
        ApproachParams {
            spline: true,
            spline_points: 99,
            ..base
        },
    ];
    let mut rng = agent_rng(3, 3);
    for p in &bad {
        assert!(p.validate().is_err(), "{p:?}");
        for (w, t) in [
            (Vec2::new(10.0, 10.0), Vec2::ZERO),
            (Vec2::ZERO, Vec2::ZERO),
            (Vec2::ZERO, Vec2::NAN),
            (Vec2::NAN, Vec2::ONE),
        ] {
            let wp = pick_next_waypoint(w, t, p, &mut rng);
            assert!(wp.is_finite() || !w.is_finite() && !t.is_finite(), "{p:?}");
            let me = AgentState {
                pos: w,
                vel: Vec2::X,
                max_speed: 2.0,
                ..AgentState::default()
            };
            if !w.is_finite() {
                continue;
            }
            let mut s = WalkerState::default();
            for _ in 0..5 {
                let (f, ns) =
                    approach_step(&me, t, &s, p, (DT, Integrator::SemiImplicitEuler), &mut rng);
                assert!(f.is_finite(), "{p:?} {w} {t}: {f}");
                assert!(!ns.has_waypoint || ns.waypoint.is_finite());
                s = ns;
            }
        }
    }
    // The messages name the field.
    let named = [
        (bad[0], "aggro_radius"),
        (bad[2], "min_step"),
        (bad[4], "max_step"),
        (bad[5], "step_fraction"),
        (bad[6], "arrive_radius"),
        (bad[8], "spline_points"),
    ];
    for (p, field) in named {
        let e = p.validate().unwrap_err();
        assert!(e.contains(field), "{e}");
    }
    assert!(base.validate().is_ok());
}

/// Drive an agent with `approach_step` and a plain Euler loop; returns the
/// largest overshoot past the target along the original line, the final
/// distance and the waypoints steered at.
fn drive(p: &ApproachParams, seed: u64) -> (f32, f32, Vec<Vec2>) {
    // A light, responsive body: with mass 0.05 and dt 0.02 the velocity moves
    // 40% of the way to the desired one each tick.
    let (dt, mass) = (0.02, 0.05);
    let target = Vec2::ZERO;
    let start = Vec2::new(10.0, 10.0);
    let e0 = (target - start).normalize();
    let mut me = AgentState {
        pos: start,
        max_speed: 2.0,
        max_force: 1000.0,
        mass,
        ..AgentState::default()
    };
    let mut s = WalkerState::default();
    let mut rng = agent_rng(seed, 1);
    let mut overshoot = f32::NEG_INFINITY;
    let mut waypoints = Vec::new();
    for _ in 0..2000 {
        let (force, ns) = approach_step(
            &me,
            target,
            &s,
            p,
            (DT, Integrator::SemiImplicitEuler),
            &mut rng,
        );
        assert!(force.is_finite());
        if waypoints.last() != Some(&ns.waypoint) {
            waypoints.push(ns.waypoint);
        }
        s = ns;
        let acc = truncate(force, me.max_force) / me.mass;
        me.vel = truncate(me.vel + acc * dt, me.max_speed);
        me.pos += me.vel * dt;
        overshoot = overshoot.max((me.pos - target).dot(e0));
    }
    (overshoot, (me.pos - target).length(), waypoints)
}

// The walker itself does not even come near the bound on the picks. A pick can
// only lie past the target when a short last step swings it round the target,
// which takes landing very close to it (from (10,10), over 100k seeds, all such
// picks were within 0.031 of the target), inside `arrive_radius` (0.25): by
// then the walker is on its final leg, and arrive (overdamped with this body)
// does not pass the target.
#[test]
fn euler_walker_reaches_the_target_without_passing_it() {
    let p = ApproachParams::default();
    for seed in 0..40 {
        let (overshoot, dist, wps) = drive(&p, seed);
        assert!(dist < 0.01, "seed {seed}: ended {dist} away");
        assert!(
            overshoot <= PAST_ORIGINAL_LINE,
            "seed {seed}: {overshoot} past"
        );
        // Waypoint mode: a handful of waypoints, then the target.
        assert!(wps.len() <= 12, "seed {seed}: {wps:?}");
        assert_eq!(*wps.last().unwrap(), Vec2::ZERO);
    }
    // Deterministic: the same seed replays the same walk.
    assert_eq!(drive(&p, 5), drive(&p, 5));
}

#[test]
fn euler_spline_walker_reaches_the_target_without_passing_it() {
    let p = ApproachParams {
        spline: true,
        ..ApproachParams::default()
    };
    for seed in 0..40 {
        let (overshoot, dist, _) = drive(&p, seed);
        assert!(dist < 0.01, "seed {seed}: ended {dist} away");
        assert!(
            overshoot <= PAST_ORIGINAL_LINE,
            "seed {seed}: {overshoot} past"
        );
    }
    assert_eq!(drive(&p, 5), drive(&p, 5));
}

#[test]
fn spline_plan_follows_the_seed_rules() {
    let p = ApproachParams {
        spline: true,
        ..ApproachParams::default()
    };
    let me = AgentState {
        pos: Vec2::new(10.0, 10.0),
        max_speed: 2.0,
        ..AgentState::default()
    };
    let mut rng = agent_rng(11, 2);
    let (f, s) = approach_step(
        &me,
        Vec2::ZERO,
        &WalkerState::default(),
        &p,
        (DT, Integrator::SemiImplicitEuler),
        &mut rng,
    );
    let plan = s.plan();
    // None of 4 picks from 14.1 away is the target: a pick from d >= 2 is at
    // least d/2 away, so the 4th is made from at least 14.1/8 = 1.77 > min_step.
    assert_eq!(plan.len(), 5);
    assert_eq!(plan[0], me.pos);
    for w in plan.windows(2) {
        assert_pick_obeys_rules(w[0], Vec2::ZERO, w[1], &p);
    }
    // The first point steered at lies on the first segment, just ahead, and the
    // force heads for it at top speed (from rest: mass * 2 / dt along it).
    let first = catmull_rom_centripetal(
        2.0 * plan[0] - plan[1],
        plan[0],
        plan[1],
        plan[2],
        1.0 / 8.0,
    );
    assert!(close(s.waypoint, first, 1e-5));
    assert!(
        close(f, (first - me.pos).normalize() * 2.0 / DT, 1e-3),
        "{f}"
    );
    // The same seed plans the same.
    let mut again = agent_rng(11, 2);
    let (_, s2) = approach_step(
        &me,
        Vec2::ZERO,
        &WalkerState::default(),
        &p,
        (DT, Integrator::SemiImplicitEuler),
        &mut again,
    );
    assert_eq!(s, s2);
    assert!(std::mem::size_of::<WalkerState>() <= 64);
}

#[test]
fn final_leg_tracks_and_re_picks_for_a_moving_target() {
    let p = ApproachParams::default();
    let mut rng = agent_rng(4, 4);
    let me = AgentState {
        pos: Vec2::ZERO,
        max_speed: 2.0,
        ..AgentState::default()
    };
    // 0.5 away: the final leg, arriving at the target.
    let t = Vec2::new(0.5, 0.0);
    let (f, s) = approach_step(
        &me,
        t,
        &WalkerState::default(),
        &p,
        (DT, Integrator::SemiImplicitEuler),
        &mut rng,
    );
    assert!(s.final_leg && s.waypoint == t);
    // From rest, the eased speed 2 * 0.5 / 2 = 0.5 is under the braking limit (half
    // the body's change, dv = 0.5 * 1 / 1 * 0.02 = 0.01: n = (sqrt(1 + 8 * 0.5 /
    // 0.0002) - 1) / 2 = 70.2, 0.70), reached in one tick: 1 * 0.5 / 0.02 = 25.
    assert!(close(f, Vec2::new(25.0, 0.0), 1e-4), "{f}");
    // The target drifts to 1.1: still a straight shot with the slack of 0.25.
    let t2 = Vec2::new(1.1, 0.0);
    let (_, s) = approach_step(
        &me,
        t2,
        &s,
        &p,
        (DT, Integrator::SemiImplicitEuler),
        &mut rng,
    );
    assert!(s.final_leg && s.waypoint == t2);
    // It jumps to 20 away: the walk wobbles again.
    let t3 = Vec2::new(20.0, 0.0);
    let (_, s) = approach_step(
        &me,
        t3,
        &s,
        &p,
        (DT, Integrator::SemiImplicitEuler),
        &mut rng,
    );
    assert!(!s.final_leg && s.has_waypoint);
    assert!((s.waypoint.length() - 10.0).abs() < 1e-4);
    // On the target: the walker stops in one tick (-vel * mass / dt), finite.
    let moving = AgentState { vel: Vec2::X, ..me };
    let (f, s) = approach_step(
        &moving,
        Vec2::ZERO,
        &s,
        &p,
        (DT, Integrator::SemiImplicitEuler),
        &mut rng,
    );
    assert!(s.final_leg);
    assert!(close(f, -Vec2::X / DT, 1e-4), "{f}");
    // A non-finite target: no force, fresh state.
    let (f, s) = approach_step(
        &me,
        Vec2::NAN,
        &s,
        &p,
        (DT, Integrator::SemiImplicitEuler),
        &mut rng,
    );
    assert_eq!((f, s), (Vec2::ZERO, WalkerState::default()));
}

#[test]
fn catmull_rom_hand_worked() {
    let (p0, p1, p2, p3) = (
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(0.0, 1.0),
    );
    // Through p1 at t = 0 and p2 at t = 1.
    assert_eq!(catmull_rom(p0, p1, p2, p3, 0.0), p1);
    assert!(close(catmull_rom(p0, p1, p2, p3, 1.0), p2, 1e-6));
    // t = 0.5: 0.5 * ((2,0) + (1,1)*0.5 + (-1,3)*0.25 + (0,-2)*0.125)
    //        = 0.5 * (2.25, 1.0) = (1.125, 0.5).
    assert!(close(
        catmull_rom(p0, p1, p2, p3, 0.5),
        Vec2::new(1.125, 0.5),
        1e-6
    ));
    // Equal spacing (all knot intervals 1): centripetal equals uniform.
    for t in [0.0, 0.25, 0.5, 0.9, 1.0] {
        let u = catmull_rom(p0, p1, p2, p3, t);
        let c = catmull_rom_centripetal(p0, p1, p2, p3, t);
        assert!(close(u, c, 1e-6), "{t}: {u} vs {c}");
    }
    assert_eq!(catmull_rom_centripetal(p0, p1, p2, p3, 0.0), p1);
    assert_eq!(catmull_rom_centripetal(p0, p1, p2, p3, 1.0), p2);
}

#[test]
fn centripetal_hand_worked_and_against_barry_goldman() {
    // Collinear x = 0, 1, 5, 9: knot intervals 1, 2, 2. Tangents
    // m1 = 2 * (1/1 - 5/3 + 4/2) = 8/3, m2 = 2 * (4/2 - 8/4 + 4/2) = 4; at
    // t = 0.5 (Hermite weights 1/2, 1/8, 1/2, -1/8):
    // 0.5 + (8/3)/8 + 2.5 - 4/8 = 17/6.
    let x = |v: f32| Vec2::new(v, 0.0);
    let c = catmull_rom_centripetal(x(0.0), x(1.0), x(5.0), x(9.0), 0.5);
    assert!(close(c, x(17.0 / 6.0), 1e-5), "{c}");
    // The uniform spline gives 0.5 + 2.5/8 + 2.5 - 0.5 = 2.8125 here.
    assert!(close(
        catmull_rom(x(0.0), x(1.0), x(5.0), x(9.0), 0.5),
        x(2.8125),
        1e-6
    ));

    // Oracle: the Barry-Goldman pyramid on random points.
    fn barry_goldman(p: [Vec2; 4], s: f32) -> Vec2 {
        let mut t = [0.0f32; 4];
        for i in 1..4 {
            t[i] = t[i - 1] + (p[i] - p[i - 1]).length().sqrt();
        }
        let u = t[1] + (t[2] - t[1]) * s;
        let l = |a: Vec2, b: Vec2, ta: f32, tb: f32| {
            a * ((tb - u) / (tb - ta)) + b * ((u - ta) / (tb - ta))
        };
        let a1 = l(p[0], p[1], t[0], t[1]);
        let a2 = l(p[1], p[2], t[1], t[2]);
        let a3 = l(p[2], p[3], t[2], t[3]);
        let b1 = l(a1, a2, t[0], t[2]);
        let b2 = l(a2, a3, t[1], t[3]);
        l(b1, b2, t[1], t[2])
    }
    let mut rng = agent_rng(77, 0);
    for _ in 0..200 {
        let p: [Vec2; 4] = std::array::from_fn(|_| {
            Vec2::new(
                uniform(&mut rng, -10.0, 10.0),
                uniform(&mut rng, -10.0, 10.0),
            )
        });
        for s in [0.0, 0.3, 0.5, 0.8, 1.0] {
            let ours = catmull_rom_centripetal(p[0], p[1], p[2], p[3], s);
            let oracle = barry_goldman(p, s);
            assert!(close(ours, oracle, 1e-3), "{p:?} {s}: {ours} vs {oracle}");
        }
    }
    // Coincident points: finite.
    let z = Vec2::ZERO;
    assert_eq!(catmull_rom_centripetal(z, z, z, z, 0.5), z);
    assert!(catmull_rom_centripetal(z, z, Vec2::ONE, Vec2::ONE, 0.5).is_finite());
}

#[test]
fn braking_speed_hand_worked() {
    // One unit of speed lost per one-second tick. From 2.5, moving by the speed before
    // each change covers 2.5 + 1.5 + 0.5 = 4.5 (n = (sqrt(36) - 1) / 2 = 2.5); from
    // 1.5 it covers 2 (sqrt(16)); a distance of 1/8 or less allows no speed at all.
    assert_eq!(braking_speed(4.5, 1.0, 1.0), 2.5);
    assert_eq!(braking_speed(2.0, 1.0, 1.0), 1.5);
    // Under one tick's change of speed, stopping takes one tick: up to distance / dt.
    assert_eq!(braking_speed(0.125, 1.0, 1.0), 0.125);
    assert_eq!(braking_speed(0.1, 1.0, 0.5), 0.2);
    // dv 0.5 per tick of 0.1: 0.05 per tick of braking; 8 * 0.05625 / 0.05 = 9 → n = 1.
    assert!((braking_speed(0.05625, 0.5, 0.1) - 0.5).abs() < 1e-6);
    // Nothing to brake in, or no brakes.
    assert_eq!(braking_speed(0.0, 1.0, 1.0), 0.0);
    assert_eq!(braking_speed(1.0, 0.0, 1.0), 0.0);
    assert_eq!(braking_speed(-1.0, 1.0, 1.0), 0.0);
    // Extremes: never NaN.
    for (d, dv, dt) in [
        (3e38, 1e-30, 1e-30),
        (1e-40, 3e38, 3e38),
        (3e38, 3e38, 1e-45),
    ] {
        let v = braking_speed(d, dv, dt);
        assert!(v >= 0.0, "{d} {dv} {dt}: {v}");
    }
}

#[test]
fn braking_from_braking_speed_stops_within_the_distance() {
    // Braking by dv per tick from `braking_speed`, each integrator's way of moving.
    let mut rng = agent_rng(3, 3);
    for _ in 0..2_000 {
        let d = 10f32.powf(uniform(&mut rng, -3.0, 3.0));
        let dv = 10f32.powf(uniform(&mut rng, -3.0, 1.0));
        let dt = 10f32.powf(uniform(&mut rng, -3.0, -0.5));
        let v0 = braking_speed(d, dv, dt);
        for integrator in [
            Integrator::SemiImplicitEuler,
            Integrator::NewtonEuler1,
            Integrator::Exact,
        ] {
            let (mut v, mut covered) = (f64::from(v0), 0.0f64);
            while v > 0.0 {
                let next = (v - f64::from(dv)).max(0.0);
                covered += f64::from(dt)
                    * match integrator {
                        Integrator::SemiImplicitEuler => next,
                        Integrator::NewtonEuler1 => v,
                        Integrator::Exact => 0.5 * (v + next),
                    };
                v = next;
            }
            assert!(
                covered <= f64::from(d) * (1.0 + 1e-5),
                "{integrator:?} {d} {dv} {dt}: {covered}"
            );
        }
    }
}

/// Walk a body from rest `start` to the origin with `approach_step` alone, through
/// the engine's integrator; returns the farthest it went from the target after first
/// coming within `arrive_radius`, the final distance, and the farthest past the
/// target along the line it set out on.
fn walk_body(
    p: &ApproachParams,
    me: AgentState,
    dt: f32,
    integrator: Integrator,
    seed: u64,
) -> (f32, f32, f32) {
    let mut me = me;
    let e0 = -me.pos.normalize();
    let (mut s, mut rng) = (WalkerState::default(), agent_rng(seed, 1));
    let (mut came, mut strayed, mut past) = (false, 0f32, f32::NEG_INFINITY);
    let mut quiet = 0;
    for _ in 0..40_000 {
        let (force, ns) = approach_step(&me, Vec2::ZERO, &s, p, (dt, integrator), &mut rng);
        s = ns;
        (me.pos, me.vel) =
            crate::integrate::integrate_linear(integrator, me.pos, me.vel, force, me.limits(), dt);
        let dist = me.pos.length();
        came |= dist <= p.arrive_radius;
        if came {
            strayed = strayed.max(dist);
        }
        past = past.max(me.pos.dot(e0));
        quiet = if came && me.vel.length() < 1e-3 {
            quiet + 1
        } else {
            0
        };
        if quiet > 10 {
            break;
        }
    }
    (strayed, me.pos.length(), past)
}

#[test]
fn walker_never_passes_its_target_by_more_than_the_arrival_tolerance_for_any_body() {
    // Bodies from sluggish (accelerating at 0.01 of their top speed per second) to
    // stiff, ticks from 1/120 to 1/4 s, every integrator, both modes, from rest.
    let mut rng = agent_rng(9, 9);
    let dts = [1.0 / 120.0, 1.0 / 60.0, 1.0 / 30.0, 0.1, 0.25];
    let integrators = [
        Integrator::SemiImplicitEuler,
        Integrator::NewtonEuler1,
        Integrator::Exact,
    ];
    let mut worst = (0f32, 0f32);
    for case in 0..600u64 {
        let max_speed = 10f32.powf(uniform(&mut rng, -0.5, 1.3));
        let mass = 10f32.powf(uniform(&mut rng, -1.5, 1.5));
        // Reaching top speed takes from 0.05 to 20 seconds.
        let to_top = 10f32.powf(uniform(&mut rng, -1.3, 1.3));
        let max_force = mass * max_speed / to_top;
        let dist = 10f32.powf(uniform(&mut rng, 0.3, 1.7));
        let angle = uniform(&mut rng, 0.0, std::f32::consts::TAU);
        let me = AgentState {
            pos: Vec2::from_angle(angle) * dist,
            max_speed,
            max_force,
            mass,
            ..AgentState::default()
        };
        let p = ApproachParams {
            spline: case % 2 == 1,
            ..ApproachParams::default()
        };
        let dt = dts[case as usize % dts.len()];
        let integrator = integrators[case as usize / 2 % 3];
        let (strayed, end, past) = walk_body(&p, me, dt, integrator, case);
        let body = format!("case {case}: {me:?} dt {dt} {integrator:?}");
        assert!(end <= p.arrive_radius, "{body}: ended {end} away");
        assert!(
            strayed <= p.arrive_radius,
            "{body}: {strayed} away after arriving"
        );
        assert!(past <= p.arrive_radius, "{body}: {past} past the target");
        worst = (worst.0.max(strayed), worst.1.max(past));
    }
    println!(
        "worst distance after arriving {:.4}, past the target {:.4}",
        worst.0, worst.1
    );
}
