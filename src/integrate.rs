//! The integration pass: the only code that writes positions, velocities and
//! headings. Three integrators, selectable per world.
//!
//! For a force `f` (truncated to the agent's maximum force), acceleration
//! `a = f / mass`, and velocities truncated to the maximum speed:
//!
//! | integrator | velocity | position |
//! |---|---|---|
//! | [`Integrator::SemiImplicitEuler`] (seeds 001, 002) | `v' = v + a dt` | `p' = p + v' dt` |
//! | [`Integrator::NewtonEuler1`] (seed 003, first order) | `v' = v + a dt` | `p' = p + v dt` |
//! | [`Integrator::Exact`] (seed 003, constant acceleration) | `v' = v + a dt` | `p' = p + (v + v')/2 dt` |
//!
//! While the speed limit is not hit, the exact form equals seed 003's
//! `p + v dt + a dt²/2`; when it is hit, it integrates the clamped velocity
//! instead of overshooting the limit. Orientation follows the same rule with the
//! rotation and angular acceleration. Kinematic groups advance with the
//! average of the old and new velocity instead
//! ([`crate::behaviors::kinematic::kinematic_update`]).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::math::{truncate, wrap_angle};

/// How positions and orientations advance over a tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Velocity first, then position with the new velocity (the update of seeds
    /// 001 and 002). Stable and the usual choice for steering.
    #[default]
    SemiImplicitEuler,
    /// Millington's Newton-Euler-1: position with the old velocity, dropping the
    /// `dt²/2` term.
    NewtonEuler1,
    /// Exact under constant acceleration (seed 003 with the `dt²/2` terms).
    Exact,
}

/// The physical limits of one body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Mass (> 0).
    pub mass: f32,
    /// Maximum steering force.
    pub max_force: f32,
    /// Maximum speed.
    pub max_speed: f32,
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
    let acc = truncate(force, limits.max_force) / limits.mass;
    let new_vel = truncate(vel + acc * dt, limits.max_speed);
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

/// Ease a heading toward the direction of `vel` (seed 001's
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
}
