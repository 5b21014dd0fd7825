//! The integration pass: the only code that writes positions, velocities and
//! headings. Three integrators, selectable per world.
//!
//! For a force `f` (truncated to the agent's maximum force), acceleration
//! `a = f / mass`, and velocities truncated to the maximum speed:
//!
//! | integrator | velocity | position |
//! |---|---|---|
//! | [`Integrator::SemiImplicitEuler`] (the Reynolds/Buckland and leader-following tutorials) | `v' = v + a dt` | `p' = p + v' dt` |
//! | [`Integrator::NewtonEuler1`] (Millington's kinematics, first order) | `v' = v + a dt` | `p' = p + v dt` |
//! | [`Integrator::Exact`] (Millington's kinematics, constant acceleration) | `v' = v + a dt` | `p' = p + (v + v')/2 dt` |
//!
//! While the speed limit is not hit, the exact form equals Millington's
//! `p + v dt + a dt²/2`; when it is hit, it integrates the clamped velocity
//! instead of overshooting the limit. Orientation follows the same rule with the
//! rotation and angular acceleration. Kinematic groups advance with the
//! average of the old and new velocity instead
//! ([`crate::behaviours::kinematic::kinematic_update`]).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::math::x4::LANES;
use crate::math::{truncate, wrap_angle};

/// How positions and orientations advance over a tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Velocity first, then position with the new velocity (the update of the
    /// Reynolds/Buckland steering and leader-following tutorials). Stable and the
    /// usual choice for steering.
    #[default]
    SemiImplicitEuler,
    /// Millington's Newton-Euler-1: position with the old velocity, dropping the
    /// `dt²/2` term.
    NewtonEuler1,
    /// Exact under constant acceleration (Millington's kinematics with the `dt²/2` terms).
    Exact,
}

impl Integrator {
    /// The share of a tick's move made at the velocity from before the tick's change:
    /// 0 for semi-implicit Euler, 1 for Newton-Euler-1, one half for the exact update.
    #[must_use]
    pub fn old_velocity_share(self) -> f32 {
        match self {
            Integrator::SemiImplicitEuler => 0.0,
            Integrator::NewtonEuler1 => 1.0,
            Integrator::Exact => 0.5,
        }
    }
}

/// The physical limits of one body, by name, in the order [`crate::AgentSpec::with_limits`]
/// takes them ([`crate::AgentSpec::with_body`],
/// [`crate::World::set_body`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Mass (> 0).
    pub mass: f32,
    /// Maximum speed.
    pub max_speed: f32,
    /// Maximum steering force.
    pub max_force: f32,
}

/// The velocity after one tick of `force` (truncated to the maximum force) on a body
/// moving at `vel`, truncated to the maximum speed: every integrator's new velocity.
#[inline]
#[must_use]
pub fn next_velocity(vel: Vec2, force: Vec2, limits: Limits, dt: f32) -> Vec2 {
    let acc = truncate(force, limits.max_force) / limits.mass;
    truncate(vel + acc * dt, limits.max_speed)
}

/// Advance one body's linear state. Returns `(position, velocity)`.
#[inline]
#[must_use]
pub fn integrate_linear(
    integrator: Integrator,
    pos: Vec2,
    vel: Vec2,
    force: Vec2,
    limits: Limits,
    dt: f32,
) -> (Vec2, Vec2) {
    let new_vel = next_velocity(vel, force, limits, dt);
    let new_pos = match integrator {
        Integrator::SemiImplicitEuler => pos + new_vel * dt,
        Integrator::NewtonEuler1 => pos + vel * dt,
        Integrator::Exact => pos + (vel + new_vel) * (0.5 * dt),
    };
    (new_pos, new_vel)
}

/// Advance one body's angular state. Returns `(heading, rotation)`; the heading
/// is wrapped into (-π, π] and the rotation clamped to `±max_rotation`.
#[inline]
#[must_use]
pub fn integrate_angular(
    integrator: Integrator,
    heading: f32,
    rotation: f32,
    angular: f32,
    max_rotation: f32,
    dt: f32,
) -> (f32, f32) {
    let new_rot = (rotation + angular * dt).clamp(-max_rotation, max_rotation);
    let new_heading = match integrator {
        Integrator::SemiImplicitEuler => heading + new_rot * dt,
        Integrator::NewtonEuler1 => heading + rotation * dt,
        Integrator::Exact => heading + (rotation + new_rot) * (0.5 * dt),
    };
    (wrap_angle(new_heading), new_rot)
}

/// Ease a heading toward the direction of `vel` (the Reynolds/Buckland steering tutorial's
/// `forward = slerp(forward, velocity, dt)`, at `turn_rate`): covers
/// `min(1, turn_rate * dt)` of the shortest angle. Unchanged below `min_speed`.
#[inline]
#[must_use]
pub fn ease_heading(heading: f32, vel: Vec2, turn_rate: f32, min_speed: f32, dt: f32) -> f32 {
    if vel.length_squared() <= min_speed * min_speed || vel.length_squared() == 0.0 {
        return heading;
    }
    // Heading convention: atan2(x, y) (clockwise from +y).
    let goal = crate::math::fast_atan2(vel.x, vel.y);
    let t = (turn_rate * dt).min(1.0);
    wrap_angle(heading + wrap_angle(goal - heading) * t)
}

/// Four bodies of steering groups without angular steering, one per lane: the inputs
/// of [`integrate_linear`] and [`ease_heading`] (`turn` is `min(1, turn_rate * dt)`,
/// `min_speed_sq` the squared minimum speed of each body's group).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Bodies4 {
    pub pos: [Vec2; LANES],
    pub vel: [Vec2; LANES],
    pub force: [Vec2; LANES],
    pub heading: [f32; LANES],
    pub mass: [f32; LANES],
    pub max_force: [f32; LANES],
    pub max_speed: [f32; LANES],
    pub turn: [f32; LANES],
    pub min_speed_sq: [f32; LANES],
}

/// The results of [`integrate_x4`]: new position, velocity, unit velocity
/// (`normalize_or_zero` of it) and heading of each body.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Moved4 {
    pub pos: [Vec2; LANES],
    pub vel: [Vec2; LANES],
    pub unit_vel: [Vec2; LANES],
    pub heading: [f32; LANES],
}

/// [`integrate_linear`], then [`ease_heading`] and `normalize_or_zero` of the new
/// velocity, for four bodies at once: the four-lane twin of the scalar functions, each
/// lane bitwise their result (`fours_equal_the_scalar_path_bitwise` below). `None`
/// when some lane leaves the common case (a non-finite result, an angle beyond one
/// turn of wrapping, or a degenerate `atan2`): the caller then takes the scalar path
/// for all four (what it saves: `docs/optimisations.md`, fourth round).
///
/// Always inlined: called once per four rows, and its 112-byte result then stays in
/// registers (as a call the integration was 40% slower: `docs/optimisations.md`).
#[inline(always)]
#[must_use]
pub(crate) fn integrate_x4(integrator: Integrator, b: &Bodies4, dt: f32) -> Option<Moved4> {
    use crate::math::x4::{fast_atan2_x4, wrap_angle_x4, Vec2x4};
    use wide::f32x4;
    let zero = f32x4::ZERO;
    let (pos, vel) = (Vec2x4::load(&b.pos), Vec2x4::load(&b.vel));
    let dt4 = f32x4::splat(dt);
    let acc = Vec2x4::load(&b.force)
        .truncate(f32x4::new(b.max_force))
        .div(f32x4::new(b.mass));
    let nv = vel.add(acc.scale(dt4)).truncate(f32x4::new(b.max_speed));
    let np = match integrator {
        Integrator::SemiImplicitEuler => pos.add(nv.scale(dt4)),
        Integrator::NewtonEuler1 => pos.add(vel.scale(dt4)),
        Integrator::Exact => pos.add(vel.add(nv).scale(f32x4::splat(0.5 * dt))),
    };
    // `ease_heading`: unchanged at or below the minimum speed.
    let h = f32x4::new(b.heading);
    let speed_sq = nv.len_sq();
    let still = speed_sq.simd_le(f32x4::new(b.min_speed_sq)) | speed_sq.simd_eq(zero);
    // Heading convention: `fast_atan2(v.x, v.y)`.
    let (goal, atan_ok) = fast_atan2_x4(nv.x, nv.y);
    let (turn, turn_ok) = wrap_angle_x4(goal - h);
    let (eased, eased_ok) = wrap_angle_x4(h + turn * f32x4::new(b.turn));
    let nh = still.bitselect(h, eased);
    // `normalize_or_zero` of the new velocity.
    let (unit_vel, _) = nv.normalize_or(Vec2x4::ZERO);
    let common = np.finite() & nv.finite() & nh.is_finite();
    let eased_common = atan_ok & turn_ok & eased_ok;
    if !(common & (still | eased_common)).all() {
        return None;
    }
    Some(Moved4 {
        pos: np.store(),
        vel: nv.store(),
        unit_vel: unit_vel.store(),
        heading: nh.to_array(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_hand_worked() {
        // p = 0, v = (1,0), f = (0,2), m = 2 -> a = (0,1); dt = 0.5.
        // v' = (1, 0.5). Semi-implicit p' = (0.5, 0.25); NE1 p' = (0.5, 0);
        // exact p' = v dt + a dt²/2 = (0.5, 0.125).
        let lim = Limits {
            mass: 2.0,
            max_force: 10.0,
            max_speed: 10.0,
        };
        let run = |i| integrate_linear(i, Vec2::ZERO, Vec2::X, Vec2::new(0.0, 2.0), lim, 0.5);
        let (p, v) = run(Integrator::SemiImplicitEuler);
        assert_eq!(v, Vec2::new(1.0, 0.5));
        assert_eq!(p, Vec2::new(0.5, 0.25));
        assert_eq!(run(Integrator::NewtonEuler1).0, Vec2::new(0.5, 0.0));
        assert_eq!(run(Integrator::Exact).0, Vec2::new(0.5, 0.125));
    }

    #[test]
    fn force_and_speed_are_truncated() {
        // Force (10,0) truncated to 1, mass 1, dt 1: v' = (1,0) + (1,0) = (2,0),
        // truncated to max speed 1.5.
        let (_, v) = integrate_linear(
            Integrator::SemiImplicitEuler,
            Vec2::ZERO,
            Vec2::X,
            Vec2::new(10.0, 0.0),
            Limits {
                mass: 1.0,
                max_force: 1.0,
                max_speed: 1.5,
            },
            1.0,
        );
        assert!((v - Vec2::new(1.5, 0.0)).length() < 1e-6);
    }

    #[test]
    fn angular_hand_worked() {
        // h = 0, w = 1, alpha = 2, dt = 0.5: w' = 2; exact h' = 0.5 + 0.25 = 0.75.
        let (h, w) = integrate_angular(Integrator::Exact, 0.0, 1.0, 2.0, 10.0, 0.5);
        assert_eq!(w, 2.0);
        assert!((h - 0.75).abs() < 1e-6);
        let (h, _) = integrate_angular(Integrator::NewtonEuler1, 0.0, 1.0, 2.0, 10.0, 0.5);
        assert!((h - 0.5).abs() < 1e-6);
        let (_, w) = integrate_angular(Integrator::Exact, 0.0, 1.0, 100.0, 3.0, 0.5);
        assert_eq!(w, 3.0);
    }

    #[test]
    fn heading_eases_toward_velocity() {
        // Heading 0 (+y), velocity +x (pi/2), rate 1, dt 0.5: half way, pi/4.
        let h = ease_heading(0.0, Vec2::X, 1.0, 0.1, 0.5);
        assert!((h - std::f32::consts::FRAC_PI_4).abs() < 1e-6);
        assert_eq!(ease_heading(0.3, Vec2::splat(0.01), 1.0, 0.1, 0.5), 0.3);
    }

    /// The scalar path of one body (as the world integrates a steering group without
    /// angular steering): position, velocity, unit velocity, heading.
    fn scalar_body(
        i: Integrator,
        b: &Bodies4,
        k: usize,
        (turn_rate, min_speed): (f32, f32),
        dt: f32,
    ) -> (Vec2, Vec2, Vec2, f32) {
        let limits = Limits {
            mass: b.mass[k],
            max_force: b.max_force[k],
            max_speed: b.max_speed[k],
        };
        let (p, v) = integrate_linear(i, b.pos[k], b.vel[k], b.force[k], limits, dt);
        let h = ease_heading(b.heading[k], v, turn_rate, min_speed, dt);
        (p, v, crate::math::normalize_or_zero(v), h)
    }

    #[test]
    fn fours_equal_the_scalar_path_bitwise() {
        use crate::rng::{agent_rng, uniform};
        use std::f32::consts::PI;
        let mut rng = agent_rng(7, 11);
        let dt = 1.0 / 30.0;
        let mut some = 0;
        let mut facing = [(0.0, 0.0); LANES];
        for case in 0..20_000 {
            let mut b = Bodies4::default();
            for (k, facing) in facing.iter_mut().enumerate() {
                let mut u = |lo: f32, hi: f32| uniform(&mut rng, lo, hi);
                b.pos[k] = Vec2::new(u(-500.0, 500.0), u(-500.0, 500.0));
                // Some still bodies, some at the minimum speed, most moving.
                b.vel[k] = match case % 7 {
                    0 => Vec2::ZERO,
                    1 => Vec2::new(0.0, u(-0.2, 0.2)),
                    _ => Vec2::new(u(-4.0, 4.0), u(-4.0, 4.0)),
                };
                b.force[k] = Vec2::new(u(-30.0, 30.0), u(-30.0, 30.0));
                b.heading[k] = u(-PI, PI);
                b.mass[k] = u(0.2, 3.0);
                b.max_force[k] = if case % 11 == 0 { 0.0 } else { u(0.5, 20.0) };
                b.max_speed[k] = u(0.5, 5.0);
                // Turn rates up to twice 1/dt (easing all the way), as the world
                // derives the lanes' parameters.
                let (turn_rate, min_speed) = (u(0.0, 60.0), u(0.0, 0.5));
                *facing = (turn_rate, min_speed);
                b.turn[k] = (turn_rate * dt).min(1.0);
                b.min_speed_sq[k] = min_speed * min_speed;
            }
            for integrator in [
                Integrator::SemiImplicitEuler,
                Integrator::NewtonEuler1,
                Integrator::Exact,
            ] {
                let Some(o) = integrate_x4(integrator, &b, dt) else {
                    continue;
                };
                some += 1;
                for (k, &facing) in facing.iter().enumerate() {
                    let (p, v, d, h) = scalar_body(integrator, &b, k, facing, dt);
                    let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
                    assert_eq!(bits(o.pos[k]), bits(p), "case {case} lane {k}");
                    assert_eq!(bits(o.vel[k]), bits(v), "case {case} lane {k}");
                    assert_eq!(bits(o.unit_vel[k]), bits(d), "case {case} lane {k}");
                    assert_eq!(o.heading[k].to_bits(), h.to_bits(), "case {case} lane {k}");
                }
            }
        }
        // Ordinary bodies take the lanes.
        assert_eq!(some, 60_000);
    }

    #[test]
    fn fours_leave_uncommon_bodies_to_the_scalar_path() {
        let base = Bodies4 {
            vel: [Vec2::X; LANES],
            mass: [1.0; LANES],
            max_force: [1.0; LANES],
            max_speed: [2.0; LANES],
            turn: [0.5; LANES],
            ..Bodies4::default()
        };
        assert!(integrate_x4(Integrator::Exact, &base, 0.1).is_some());
        // A heading beyond one turn of wrapping.
        let mut b = base;
        b.heading[2] = 40.0;
        assert!(integrate_x4(Integrator::Exact, &b, 0.1).is_none());
        // A position that overflows.
        let mut b = base;
        b.pos[1] = Vec2::new(f32::MAX, 0.0);
        b.vel[1] = Vec2::new(2.0, 0.0);
        assert!(integrate_x4(Integrator::SemiImplicitEuler, &b, 1e32).is_none());
    }
}
