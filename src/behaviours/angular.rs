//! Dynamic angular and matching behaviours after Millington, *AI for Games* §3.3:
//! align, face, look where you are going, and velocity matching.
//!
//! They return a [`Steering`]: align and its delegates fill only `angular` (an
//! angular acceleration, radians per second squared, clockwise positive); velocity
//! matching fills only `linear`.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::kinematic::rate_over_time;
use super::{AgentState, Steering};
use crate::math::{vec_to_heading, wrap_angle, EPS_LEN_SQ};

/// Parameters of [`align`], [`face`] and [`look_where_you_are_going`].
///
/// The defaults suit agents of radius about 0.5 walking a few units per second:
/// they turn at most half a turn per second, reach that rate from rest in a sixth
/// of a second, and start slowing their turn 45 degrees before the goal. The
/// deceleration the slow-down ramp asks for at full rate,
/// `max_rotation^2 / slow_radius = 4π rad/s²`, is within the default
/// `max_angular_acceleration` of 6π, so the turn can follow the ramp.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlignParams {
    /// Largest angular acceleration (radians per second squared). Default 6π
    /// (about 1080 degrees per second squared). A non-finite or non-positive value
    /// gives no angular acceleration.
    pub max_angular_acceleration: f32,
    /// Largest turn rate the behaviour asks for (radians per second). Default π
    /// (180 degrees per second). A non-finite or negative value asks for none.
    pub max_rotation: f32,
    /// Within this angle of the goal (radians) the agent counts as aligned and
    /// only brakes its rotation. Default 0.02 (about 1.1 degrees).
    pub target_radius: f32,
    /// Within this angle of the goal (radians) the requested turn rate ramps down
    /// linearly to zero. Default π/4 (45 degrees); a non-positive value disables
    /// the ramp.
    pub slow_radius: f32,
    /// Time (seconds) over which the turn rate is brought to the requested one.
    /// Default 0.1. A non-positive value is treated as the limit towards zero: the
    /// full angular acceleration towards the requested rate.
    pub time_to_target: f32,
}

impl Default for AlignParams {
    fn default() -> Self {
        use std::f32::consts::{FRAC_PI_4, PI};
        Self {
            max_angular_acceleration: 6.0 * PI,
            max_rotation: PI,
            target_radius: 0.02,
            slow_radius: FRAC_PI_4,
            time_to_target: 0.1,
        }
    }
}

fn check(name: &str, value: f32, positive: bool) -> Result<(), String> {
    let ok = value.is_finite() && if positive { value > 0.0 } else { value >= 0.0 };
    if ok {
        Ok(())
    } else {
        let bound = if positive { "> 0" } else { ">= 0" };
        Err(format!("{name} must be finite and {bound} (got {value})"))
    }
}

impl AlignParams {
    /// Check the values a user supplied; the error names the bad field.
    pub fn validate(&self) -> Result<(), String> {
        check(
            "max_angular_acceleration",
            self.max_angular_acceleration,
            true,
        )?;
        check("max_rotation", self.max_rotation, true)?;
        check("target_radius", self.target_radius, false)?;
        check("slow_radius", self.slow_radius, false)?;
        check("time_to_target", self.time_to_target, true)?;
        if self.slow_radius < self.target_radius {
            return Err(format!(
                "slow_radius ({}) must not be smaller than target_radius ({})",
                self.slow_radius, self.target_radius
            ));
        }
        Ok(())
    }
}

/// `delta / time` clamped to `[-max, max]` (a non-finite or non-positive `max`
/// gives zero). A non-positive or vanishing `time` gives the limit as it goes to
/// zero: `max` with the sign of `delta` (zero for a zero `delta`).
fn angular_rate(delta: f32, time: f32, max: f32) -> f32 {
    if !(max.is_finite() && max > 0.0) || delta.is_nan() {
        return 0.0;
    }
    let rate = if time > 0.0 {
        delta / time
    } else if delta > 0.0 {
        f32::INFINITY
    } else if delta < 0.0 {
        f32::NEG_INFINITY
    } else {
        0.0
    };
    if rate.is_nan() {
        0.0
    } else {
        rate.clamp(-max, max)
    }
}

/// Align (Millington): turn to face `target_heading` (radians clockwise from +y),
/// arriving at it with no rotation left.
///
/// With `rotation = wrap(target_heading - heading)` (the short way round):
/// - within `target_radius` the agent is aligned and the result only brakes its
///   current rotation: `angular = -rotation_now / time_to_target`;
/// - otherwise the goal turn rate is `max_rotation`, scaled by
///   `|rotation| / slow_radius` inside `slow_radius`, in the direction of
///   `rotation`, and `angular = (goal - rotation_now) / time_to_target`;
///
/// and `angular` is clamped to `max_angular_acceleration`. Always finite: a
/// non-finite target or heading counts as aligned.
#[must_use]
pub fn align(me: &AgentState, target_heading: f32, params: &AlignParams) -> Steering {
    let current = if me.rotation.is_finite() {
        me.rotation
    } else {
        0.0
    };
    let rotation = wrap_angle(target_heading - me.heading);
    let size = rotation.abs();
    let goal = if size <= params.target_radius.max(0.0) || size == 0.0 {
        0.0
    } else {
        let max_rot = if params.max_rotation.is_finite() {
            params.max_rotation.max(0.0)
        } else {
            0.0
        };
        let speed = if params.slow_radius > 0.0 && size < params.slow_radius {
            max_rot * size / params.slow_radius
        } else {
            max_rot
        };
        speed.copysign(rotation)
    };
    Steering {
        linear: Vec2::ZERO,
        angular: angular_rate(
            goal - current,
            params.time_to_target,
            params.max_angular_acceleration,
        ),
    }
}

/// Face (Millington): [`align`] to the heading of `target_point - pos`. No steering
/// (zero) when the target point is on the agent (closer than
/// [`crate::math::EPS_LEN`]): there is no direction to face, and the current
/// rotation is left alone.
#[must_use]
pub fn face(me: &AgentState, target_point: Vec2, params: &AlignParams) -> Steering {
    let dir = target_point - me.pos;
    let len_sq = dir.length_squared();
    if !(len_sq > EPS_LEN_SQ && len_sq.is_finite()) {
        return Steering::default();
    }
    align(me, vec_to_heading(dir), params)
}

/// Look where you are going (Millington): [`align`] to the heading of the
/// velocity. No steering (zero) when the agent is (nearly) still.
#[must_use]
pub fn look_where_you_are_going(me: &AgentState, params: &AlignParams) -> Steering {
    let len_sq = me.vel.length_squared();
    if !(len_sq > EPS_LEN_SQ && len_sq.is_finite()) {
        return Steering::default();
    }
    align(me, vec_to_heading(me.vel), params)
}

/// Parameters of [`velocity_match`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VelocityMatchParams {
    /// Time (seconds) in which the velocity difference would be closed. Default
    /// 0.1 (Millington's). A non-positive value is treated as the limit towards
    /// zero: the full force along the difference.
    pub time_to_target: f32,
}

impl Default for VelocityMatchParams {
    fn default() -> Self {
        Self {
            time_to_target: 0.1,
        }
    }
}

impl VelocityMatchParams {
    /// Check the values a user supplied; the error names the bad field.
    pub fn validate(&self) -> Result<(), String> {
        check("time_to_target", self.time_to_target, true)
    }
}

/// Velocity matching (Millington):
/// `linear = (target_vel - vel) / time_to_target`, its length clamped to
/// `max_force` (a non-finite or non-positive `max_force` gives zero). Always finite;
/// a non-finite target velocity gives zero.
#[must_use]
pub fn velocity_match(me: &AgentState, target_vel: Vec2, params: &VelocityMatchParams) -> Steering {
    let delta = target_vel - me.vel;
    let linear = if delta.is_finite() {
        rate_over_time(delta, params.time_to_target, me.max_force)
    } else {
        Vec2::ZERO
    };
    Steering {
        linear,
        angular: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::{FRAC_PI_4, PI};

    fn agent(heading: f32, rotation: f32) -> AgentState {
        AgentState {
            heading,
            rotation,
            ..AgentState::default()
        }
    }

    fn ang(me: &AgentState, target: f32) -> f32 {
        let s = align(me, target, &AlignParams::default());
        assert_eq!(s.linear, Vec2::ZERO);
        s.angular
    }

    #[test]
    fn align_hand_worked() {
        let max_acc = 6.0 * PI;
        // 0.5 rad to go, inside the slow radius π/4: goal = π * 0.5 / (π/4) = 2;
        // turning at 1 already: (2 - 1) / 0.1 = 10.
        assert!((ang(&agent(0.0, 1.0), 0.5) - 10.0).abs() < 1e-4);
        // From rest the same goal asks 2 / 0.1 = 20 > 6π: clamped to 6π.
        assert!((ang(&agent(0.0, 0.0), 0.5) - max_acc).abs() < 1e-4);
        // 2 rad to go (outside the slow radius): goal π; at rotation 3:
        // (π - 3) / 0.1 = 1.41593.
        assert!((ang(&agent(0.0, 3.0), 2.0) - (PI - 3.0) * 10.0).abs() < 1e-3);
        // Counter-clockwise: -0.5 rad, at rest rotation -1: (-2 + 1) / 0.1 = -10.
        assert!((ang(&agent(0.0, -1.0), -0.5) + 10.0).abs() < 1e-4);
        // The short way round: heading 3, target -3: wrap(-6) = 2π - 6 = 0.28319,
        // goal 4 * 0.28319 = 1.13274 clockwise; at rotation 1: 1.3274.
        let expect = (4.0 * (2.0 * PI - 6.0) - 1.0) / 0.1;
        assert!((ang(&agent(3.0, 1.0), -3.0) - expect).abs() < 1e-3);
        // Inside the target radius: brake the rotation, -0.5 / 0.1 = -5.
        assert!((ang(&agent(0.0, 0.5), 0.01) + 5.0).abs() < 1e-4);
        // Aligned and still: nothing.
        assert_eq!(ang(&agent(1.0, 0.0), 1.0), 0.0);
    }

    #[test]
    fn align_degenerate_inputs_are_finite() {
        let me = agent(0.0, 0.5);
        let weird = [0.0, -1.0, f32::NAN, f32::INFINITY, 1e-30];
        for &x in &weird {
            for p in [
                AlignParams {
                    time_to_target: x,
                    ..AlignParams::default()
                },
                AlignParams {
                    slow_radius: x,
                    ..AlignParams::default()
                },
                AlignParams {
                    target_radius: x,
                    ..AlignParams::default()
                },
                AlignParams {
                    max_rotation: x,
                    ..AlignParams::default()
                },
                AlignParams {
                    max_angular_acceleration: x,
                    ..AlignParams::default()
                },
            ] {
                for target in [0.0, 0.3, 2.0, -2.0, f32::NAN] {
                    let s = align(&me, target, &p);
                    assert!(s.angular.is_finite(), "{p:?} {target}: {s:?}");
                    assert!(s.angular.abs() <= 6.0 * PI + 1e-3);
                }
            }
        }
        // Zero time to target: the full acceleration toward the goal. 2 rad to go,
        // goal π, rotation 0.5: +6π.
        let p = AlignParams {
            time_to_target: 0.0,
            ..AlignParams::default()
        };
        assert!((align(&agent(0.0, 0.5), 2.0, &p).angular - 6.0 * PI).abs() < 1e-4);
        // Zero acceleration limit: nothing.
        let p = AlignParams {
            max_angular_acceleration: 0.0,
            ..AlignParams::default()
        };
        assert_eq!(align(&agent(0.0, 0.5), 2.0, &p).angular, 0.0);
        // A non-finite target counts as aligned: brake.
        assert!((ang(&agent(0.0, 0.5), f32::NAN) + 5.0).abs() < 1e-4);
    }

    #[test]
    fn align_loop_settles_on_the_goal() {
        // Integrate rotation and heading at 60 Hz from rest toward 2.5 rad.
        let p = AlignParams::default();
        let target = 2.5;
        let dt = 1.0 / 60.0;
        let mut me = agent(0.0, 0.0);
        let mut max_overshoot = 0.0f32;
        for _ in 0..180 {
            let s = align(&me, target, &p);
            me.rotation += s.angular * dt;
            me.heading = wrap_angle(me.heading + me.rotation * dt);
            max_overshoot = max_overshoot.max(me.heading - target);
            assert!(me.rotation.abs() <= p.max_rotation + p.max_angular_acceleration * dt);
        }
        assert!(wrap_angle(target - me.heading).abs() < 0.03, "{me:?}");
        assert!(me.rotation.abs() < 0.05, "{me:?}");
        assert!(max_overshoot < 0.05, "overshoot {max_overshoot}");
    }

    #[test]
    fn face_and_look_hand_worked() {
        // Target at (1,1) from the origin: heading π/4, 0.785 rad to go, exactly the
        // slow radius, so goal = π; rotation 3: (π - 3) / 0.1.
        let me = agent(0.0, 3.0);
        let p = AlignParams::default();
        let s = face(&me, Vec2::ONE, &p);
        assert!((s.angular - align(&me, FRAC_PI_4, &p).angular).abs() < 1e-6);
        assert!((s.angular - (PI - 3.0) * 10.0).abs() < 1e-3);
        // Target on the agent: no steering.
        assert_eq!(face(&me, Vec2::ZERO, &p), Steering::default());
        assert_eq!(face(&me, Vec2::NAN, &p), Steering::default());
        // Moving along +x (heading π/2).
        let moving = AgentState {
            vel: Vec2::new(2.0, 0.0),
            ..me
        };
        let s = look_where_you_are_going(&moving, &p);
        assert_eq!(s, align(&moving, PI / 2.0, &p));
        // Still: no steering.
        assert_eq!(look_where_you_are_going(&me, &p), Steering::default());
    }

    #[test]
    fn velocity_match_hand_worked() {
        // vel (1,0), target (0,1): (-1,1) / 0.1 = (-10,10); max force 100 keeps it.
        let mut me = AgentState {
            vel: Vec2::X,
            max_force: 100.0,
            ..AgentState::default()
        };
        let p = VelocityMatchParams::default();
        let s = velocity_match(&me, Vec2::Y, &p);
        assert!((s.linear - Vec2::new(-10.0, 10.0)).length() < 1e-4);
        assert_eq!(s.angular, 0.0);
        // Max force 5: length clamped, (-1,1)/√2 * 5.
        me.max_force = 5.0;
        let s = velocity_match(&me, Vec2::Y, &p);
        assert!((s.linear - Vec2::new(-1.0, 1.0).normalize() * 5.0).length() < 1e-4);
        // Already matched: zero.
        assert_eq!(velocity_match(&me, Vec2::X, &p), Steering::default());
        // Degenerate: zero/negative time gives the full force; zero force limit and
        // non-finite targets give zero.
        for t in [0.0, -1.0, f32::NAN] {
            let q = VelocityMatchParams { time_to_target: t };
            let s = velocity_match(&me, Vec2::Y, &q);
            assert!((s.linear.length() - 5.0).abs() < 1e-4);
            assert!(q.validate().unwrap_err().contains("time_to_target"));
        }
        assert_eq!(velocity_match(&me, Vec2::NAN, &p), Steering::default());
        me.max_force = 0.0;
        assert_eq!(velocity_match(&me, Vec2::Y, &p), Steering::default());
        assert!(p.validate().is_ok());
    }

    #[test]
    fn align_params_validation_names_the_field() {
        assert!(AlignParams::default().validate().is_ok());
        let cases = [
            (
                AlignParams {
                    max_angular_acceleration: 0.0,
                    ..AlignParams::default()
                },
                "max_angular_acceleration",
            ),
            (
                AlignParams {
                    max_rotation: f32::NAN,
                    ..AlignParams::default()
                },
                "max_rotation",
            ),
            (
                AlignParams {
                    target_radius: -0.1,
                    ..AlignParams::default()
                },
                "target_radius",
            ),
            (
                AlignParams {
                    slow_radius: 0.01,
                    ..AlignParams::default()
                },
                "slow_radius",
            ),
            (
                AlignParams {
                    time_to_target: -0.1,
                    ..AlignParams::default()
                },
                "time_to_target",
            ),
        ];
        for (p, field) in cases {
            let e = p.validate().unwrap_err();
            assert!(e.contains(field), "{e}");
        }
    }
}
