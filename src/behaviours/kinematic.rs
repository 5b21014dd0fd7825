//! Kinematic (velocity-output) movement: seek, flee, arrive and wander after
//! Millington, *AI for Games* §3.2.
//!
//! A kinematic behaviour does not return a force: it returns the velocity and
//! rotation the agent should have *now* ([`KinematicOutput`]), optionally with an
//! orientation to snap to. [`kinematic_update`] applies such an output with
//! Millington's averaged update:
//!
//! ```text
//! position    += (old_velocity + new_velocity) / 2 * dt
//! orientation += (old_rotation + new_rotation) / 2 * dt   (or := the output's heading)
//! ```
//!
//! Speeds come from [`AgentState::max_speed`]; a non-finite or non-positive maximum
//! speed gives zero velocity (the same rule as [`crate::math::truncate`]).

use glam::Vec2;
use rand_core::Rng;
use serde::{Deserialize, Serialize};

use super::AgentState;
use crate::math::{heading_to_vec, normalize_or_zero, vec_to_heading, wrap_angle, EPS_LEN_SQ};
use crate::rng::binomial;

/// Millington's kinematic steering output: the velocity and rotation the agent
/// should move with, and optionally an orientation to take at once.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KinematicOutput {
    /// New velocity (units per second).
    pub velocity: Vec2,
    /// New angular velocity (radians per second, clockwise positive).
    pub rotation: f32,
    /// When set, the orientation to take directly (e.g. face the direction of
    /// motion), overriding the rotation's effect on the heading for this update.
    pub heading: Option<f32>,
}

/// The agent's usable speed: `max_speed`, or zero when it is not finite or not
/// positive.
fn speed_limit(me: &AgentState) -> f32 {
    if me.max_speed.is_finite() && me.max_speed > 0.0 {
        me.max_speed
    } else {
        0.0
    }
}

/// An output moving with `velocity`, facing along it (heading kept when it is zero).
fn moving(velocity: Vec2) -> KinematicOutput {
    let heading = if velocity.length_squared() > EPS_LEN_SQ {
        Some(vec_to_heading(velocity))
    } else {
        None
    };
    KinematicOutput {
        velocity,
        rotation: 0.0,
        heading,
    }
}

/// Kinematic seek: `velocity = normalize(target - pos) * max_speed`, facing the
/// direction of motion, no rotation.
///
/// At the target (closer than [`crate::math::EPS_LEN`]) the velocity is zero and the
/// heading is kept. Away from it the agent moves at full speed until it passes the
/// target, so it overshoots and jitters there (Millington's remark); use
/// [`kinematic_arrive`] to stop.
#[must_use]
pub fn kinematic_seek(me: &AgentState, target: Vec2) -> KinematicOutput {
    moving(normalize_or_zero(target - me.pos) * speed_limit(me))
}

/// Kinematic flee: `velocity = normalize(pos - threat) * max_speed`, facing the
/// direction of motion, no rotation.
///
/// An agent exactly on the threat (closer than [`crate::math::EPS_LEN`]) has no
/// direction away from it; it flees along its current heading at full speed and
/// keeps that heading.
#[must_use]
pub fn kinematic_flee(me: &AgentState, threat: Vec2) -> KinematicOutput {
    let away = normalize_or_zero(me.pos - threat);
    if away == Vec2::ZERO {
        return KinematicOutput {
            velocity: heading_to_vec(me.heading) * speed_limit(me),
            rotation: 0.0,
            heading: None,
        };
    }
    moving(away * speed_limit(me))
}

/// Parameters of [`kinematic_arrive`]. Defaults suit the default body (radius 0.5,
/// top speed 2); Millington's own values are [`KinematicArriveParams::millington`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KinematicArriveParams {
    /// Within this distance of the target (units) the agent stops. Default 0.5, the
    /// default body's radius (Millington's is 10: he compares squared lengths with
    /// 100, for agents that move at tens of units per second).
    pub satisfaction_radius: f32,
    /// The time (seconds) in which the agent would cover the remaining distance:
    /// `velocity = (target - pos) / time_to_target`, clamped to the maximum speed.
    /// Default 0.25. A non-positive value is treated as the limit towards zero:
    /// full speed straight at the target.
    pub time_to_target: f32,
}

impl Default for KinematicArriveParams {
    fn default() -> Self {
        Self {
            satisfaction_radius: 0.5,
            time_to_target: 0.25,
        }
    }
}

impl KinematicArriveParams {
    /// Millington's values: satisfaction radius 10, time to target 0.25.
    #[must_use]
    pub fn millington() -> Self {
        Self {
            satisfaction_radius: 10.0,
            ..Self::default()
        }
    }

    /// Check the values a user supplied; the error names the bad field.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.satisfaction_radius.is_finite() && self.satisfaction_radius >= 0.0) {
            return Err(format!(
                "satisfaction_radius must be finite and >= 0 (got {})",
                self.satisfaction_radius
            ));
        }
        if !(self.time_to_target.is_finite() && self.time_to_target > 0.0) {
            return Err(format!(
                "time_to_target must be finite and > 0 (got {})",
                self.time_to_target
            ));
        }
        Ok(())
    }
}

/// `delta / time`, with its length clamped to `max` (a non-finite or non-positive
/// `max` gives zero). A non-positive, non-finite or vanishingly small `time` gives
/// the limit as the time goes to zero: `max` along `delta`.
pub(crate) fn rate_over_time(delta: Vec2, time: f32, max: f32) -> Vec2 {
    if !(max.is_finite() && max > 0.0) {
        return Vec2::ZERO;
    }
    if time > 0.0 {
        let rate = delta / time;
        if rate.is_finite() {
            return crate::math::truncate(rate, max);
        }
    }
    normalize_or_zero(delta) * max
}

/// Kinematic arrive (Millington's kinematics): inside `satisfaction_radius` the agent stops
/// (zero velocity, heading kept); outside it
/// `velocity = (target - pos) / time_to_target`, clamped to `max_speed`, facing the
/// direction of motion. Always finite (see [`KinematicArriveParams`] for
/// non-positive times).
#[must_use]
pub fn kinematic_arrive(
    me: &AgentState,
    target: Vec2,
    params: &KinematicArriveParams,
) -> KinematicOutput {
    let offset = target - me.pos;
    let r = params.satisfaction_radius.max(0.0);
    if !offset.is_finite() || offset.length_squared() <= r * r {
        return KinematicOutput::default();
    }
    moving(rate_over_time(
        offset,
        params.time_to_target,
        speed_limit(me),
    ))
}

/// Parameters of [`kinematic_wander`]. Defaults are Millington's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KinematicWanderParams {
    /// Largest rotation (radians per second); the rotation is
    /// `binomial() * max_rotation`, in `(-2, 2) * max_rotation`. Default π
    /// (180 degrees per second, Millington's value). A non-finite value gives no
    /// rotation.
    pub max_rotation: f32,
}

impl Default for KinematicWanderParams {
    fn default() -> Self {
        Self {
            max_rotation: std::f32::consts::PI,
        }
    }
}

impl KinematicWanderParams {
    /// Check the values a user supplied; the error names the bad field.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.max_rotation.is_finite() && self.max_rotation >= 0.0) {
            return Err(format!(
                "max_rotation must be finite and >= 0 (got {})",
                self.max_rotation
            ));
        }
        Ok(())
    }
}

/// Kinematic wander (Millington's kinematics): move at full speed along the current heading,
/// `velocity = max_speed * heading_to_vec(heading)`, and turn by
/// `rotation = binomial() * max_rotation` (a triangular draw on (-2, 2), so small
/// turns are the most likely). Draws two numbers from `rng`.
pub fn kinematic_wander<R: Rng + ?Sized>(
    me: &AgentState,
    params: &KinematicWanderParams,
    rng: &mut R,
) -> KinematicOutput {
    let b = binomial(rng);
    let rotation = if params.max_rotation.is_finite() {
        b * params.max_rotation
    } else {
        0.0
    };
    let heading = if me.heading.is_finite() {
        me.heading
    } else {
        0.0
    };
    KinematicOutput {
        velocity: heading_to_vec(heading) * speed_limit(me),
        rotation,
        heading: None,
    }
}

/// Apply a kinematic output over `dt` seconds with Millington's averaged update and
/// return `(position, heading, velocity, rotation)`:
///
/// - `position + (old_vel + out.velocity) / 2 * dt`;
/// - the heading is `out.heading` when set, else
///   `heading + (old_rot + out.rotation) / 2 * dt`; either way wrapped into
///   `(-π, π]`;
/// - the new velocity and rotation are the output's.
///
/// A `dt` that is negative or not finite moves nothing (position and heading are
/// kept, wrapped) but still adopts the new velocity and rotation.
#[must_use]
pub fn kinematic_update(
    pos: Vec2,
    heading: f32,
    old_vel: Vec2,
    old_rot: f32,
    out: &KinematicOutput,
    dt: f32,
) -> (Vec2, f32, Vec2, f32) {
    let dt = if dt.is_finite() && dt > 0.0 { dt } else { 0.0 };
    let new_pos = pos + (old_vel + out.velocity) * (0.5 * dt);
    let new_heading = match out.heading {
        Some(h) => wrap_angle(h),
        None => wrap_angle(heading + (old_rot + out.rotation) * (0.5 * dt)),
    };
    (new_pos, new_heading, out.velocity, out.rotation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::agent_rng;
    use std::f32::consts::{FRAC_PI_2, PI};

    fn agent(pos: Vec2, heading: f32, max_speed: f32) -> AgentState {
        AgentState {
            pos,
            heading,
            max_speed,
            ..AgentState::default()
        }
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    fn finite(o: &KinematicOutput) -> bool {
        o.velocity.is_finite()
            && o.rotation.is_finite()
            && match o.heading {
                Some(h) => h.is_finite(),
                None => true,
            }
    }

    #[test]
    fn seek_hand_worked() {
        // From (1,1) to (4,5): offset (3,4), length 5; max speed 10 gives (6,8).
        // Heading atan2(6, 8) = 0.6435 rad (clockwise from +y).
        let me = agent(Vec2::ONE, 0.0, 10.0);
        let out = kinematic_seek(&me, Vec2::new(4.0, 5.0));
        assert!(close(out.velocity, Vec2::new(6.0, 8.0)));
        assert_eq!(out.rotation, 0.0);
        assert!((out.heading.unwrap() - 0.6435011).abs() < 1e-5);
    }

    #[test]
    fn seek_at_target_stops_and_keeps_heading() {
        let me = agent(Vec2::new(2.0, 3.0), 1.0, 10.0);
        let out = kinematic_seek(&me, Vec2::new(2.0, 3.0));
        assert_eq!(out, KinematicOutput::default());
    }

    #[test]
    fn flee_hand_worked_and_on_threat() {
        // Threat at (3,4) from the origin: away (-0.6,-0.8) * 5 = (-3,-4);
        // heading atan2(-3,-4) = -(π - 0.6435).
        let me = agent(Vec2::ZERO, 0.0, 5.0);
        let out = kinematic_flee(&me, Vec2::new(3.0, 4.0));
        assert!(close(out.velocity, Vec2::new(-3.0, -4.0)));
        assert!((out.heading.unwrap() + (PI - 0.6435011)).abs() < 1e-5);
        // On the threat: along the heading (π/2 = +x), heading kept.
        let me = agent(Vec2::ONE, FRAC_PI_2, 5.0);
        let out = kinematic_flee(&me, Vec2::ONE);
        assert!(close(out.velocity, Vec2::new(5.0, 0.0)));
        assert_eq!(out.heading, None);
    }

    #[test]
    fn arrive_hand_worked() {
        let p = KinematicArriveParams::millington();
        // Target 20 ahead (+y), time 0.25: (0,20)/0.25 = (0,80); max speed 100 keeps it.
        let fast = agent(Vec2::ZERO, 1.0, 100.0);
        let out = kinematic_arrive(&fast, Vec2::new(0.0, 20.0), &p);
        assert!(close(out.velocity, Vec2::new(0.0, 80.0)));
        assert_eq!(out.heading, Some(0.0));
        // Max speed 50 (Millington's) clamps it to (0,50).
        let seed = agent(Vec2::ZERO, 1.0, 50.0);
        let out = kinematic_arrive(&seed, Vec2::new(0.0, 20.0), &p);
        assert!(close(out.velocity, Vec2::new(0.0, 50.0)));
        // (3,4) is 5 away: inside the radius of 10, stop and keep the heading.
        let out = kinematic_arrive(&seed, Vec2::new(3.0, 4.0), &p);
        assert_eq!(out, KinematicOutput::default());
        // Exactly on the radius counts as inside (|(6,8)| = 10).
        let out = kinematic_arrive(&seed, Vec2::new(6.0, 8.0), &p);
        assert_eq!(out.velocity, Vec2::ZERO);
    }

    #[test]
    fn arrive_degenerate_inputs_are_finite() {
        let me = agent(Vec2::ZERO, 0.0, 4.0);
        let target = Vec2::new(30.0, 40.0);
        // Zero or negative time to target: full speed at the target, (0.6,0.8)*4.
        for t in [0.0, -1.0, f32::NAN, 1e-40] {
            let p = KinematicArriveParams {
                time_to_target: t,
                ..KinematicArriveParams::default()
            };
            let out = kinematic_arrive(&me, target, &p);
            assert!(close(out.velocity, Vec2::new(2.4, 3.2)), "t = {t}: {out:?}");
        }
        // Zero, negative and non-finite max speed: no motion.
        for s in [0.0, -3.0, f32::NAN, f32::INFINITY] {
            let m = agent(Vec2::ZERO, 0.5, s);
            for out in [
                kinematic_arrive(&m, target, &KinematicArriveParams::default()),
                kinematic_seek(&m, target),
                kinematic_flee(&m, target),
                kinematic_flee(&m, Vec2::ZERO),
            ] {
                assert!(finite(&out));
                assert_eq!(out.velocity, Vec2::ZERO);
                assert_eq!(out.heading, None);
            }
        }
        // Negative radius: behaves as zero; at the target, stop.
        let p = KinematicArriveParams {
            satisfaction_radius: -5.0,
            ..KinematicArriveParams::default()
        };
        assert_eq!(
            kinematic_arrive(&me, Vec2::ZERO, &p),
            KinematicOutput::default()
        );
        // Non-finite target: stop rather than spread it.
        let out = kinematic_arrive(&me, Vec2::NAN, &KinematicArriveParams::default());
        assert_eq!(out, KinematicOutput::default());
        assert!(KinematicArriveParams::default().validate().is_ok());
        let bad = KinematicArriveParams {
            time_to_target: -1.0,
            ..KinematicArriveParams::default()
        };
        assert!(bad.validate().unwrap_err().contains("time_to_target"));
        let bad = KinematicArriveParams {
            satisfaction_radius: f32::NAN,
            ..KinematicArriveParams::default()
        };
        assert!(bad.validate().unwrap_err().contains("satisfaction_radius"));
    }

    #[test]
    fn arrive_loop_stops_inside_the_radius() {
        // Millington's setup: max speed 50, target 200 ahead, 60 Hz.
        let p = KinematicArriveParams::default();
        let target = Vec2::new(120.0, 160.0);
        let mut me = agent(Vec2::ZERO, 0.0, 50.0);
        for _ in 0..600 {
            let out = kinematic_arrive(&me, target, &p);
            let (pos, h, v, r) =
                kinematic_update(me.pos, me.heading, me.vel, me.rotation, &out, 1.0 / 60.0);
            me.pos = pos;
            me.heading = h;
            me.vel = v;
            me.rotation = r;
            // Never past the target along the line of approach.
            assert!(me.pos.dot(target.normalize()) <= target.length() + 1e-3);
        }
        assert!((target - me.pos).length() <= p.satisfaction_radius);
        assert_eq!(me.vel, Vec2::ZERO);
    }

    #[test]
    fn wander_hand_worked_and_reproducible() {
        // Heading π/2 faces +x: velocity 2 * (1, 0).
        let me = agent(Vec2::ZERO, FRAC_PI_2, 2.0);
        let p = KinematicWanderParams::default();
        let mut a = agent_rng(5, 1);
        let mut b = agent_rng(5, 1);
        for _ in 0..1000 {
            let out = kinematic_wander(&me, &p, &mut a);
            assert!(close(out.velocity, Vec2::new(2.0, 0.0)));
            assert!(out.rotation.abs() < 2.0 * PI);
            assert_eq!(out.heading, None);
            assert_eq!(out, kinematic_wander(&me, &p, &mut b));
        }
        // The rotation is the binomial draw scaled: same stream, max_rotation 1.
        let mut c = agent_rng(5, 2);
        let mut d = agent_rng(5, 2);
        let unit = KinematicWanderParams { max_rotation: 1.0 };
        assert_eq!(
            kinematic_wander(&me, &unit, &mut c).rotation,
            binomial(&mut d)
        );
        // Degenerate: non-finite max rotation and heading stay finite.
        let odd = agent(Vec2::ZERO, f32::NAN, 2.0);
        let nan = KinematicWanderParams {
            max_rotation: f32::NAN,
        };
        let out = kinematic_wander(&odd, &nan, &mut c);
        assert!(finite(&out));
        assert!(nan.validate().unwrap_err().contains("max_rotation"));
        assert!(p.validate().is_ok());
    }

    #[test]
    fn update_hand_worked() {
        // old v (2,0), new v (4,0), dt 0.5: pos += (3,0) * 0.5 = (1.5,0).
        // old rot 1, new rot 3: heading += 2 * 0.5 = 1.
        let out = KinematicOutput {
            velocity: Vec2::new(4.0, 0.0),
            rotation: 3.0,
            heading: None,
        };
        let (p, h, v, r) = kinematic_update(Vec2::ZERO, 0.0, Vec2::new(2.0, 0.0), 1.0, &out, 0.5);
        assert!(close(p, Vec2::new(1.5, 0.0)));
        assert!((h - 1.0).abs() < 1e-6);
        assert_eq!((v, r), (out.velocity, 3.0));
        // An explicit heading overrides the rotation's effect (and is wrapped).
        let snap = KinematicOutput {
            heading: Some(3.0 * PI / 2.0),
            ..out
        };
        let (_, h, _, r) = kinematic_update(Vec2::ZERO, 0.0, Vec2::ZERO, 1.0, &snap, 0.5);
        assert!((h + FRAC_PI_2).abs() < 1e-5);
        assert_eq!(r, 3.0);
        // The heading wraps: 3.0 + (1 + 3)/2 * 0.5 = 4.0 -> 4.0 - 2π.
        let (_, h, _, _) = kinematic_update(Vec2::ZERO, 3.0, Vec2::ZERO, 1.0, &out, 0.5);
        assert!((h - (4.0 - 2.0 * PI)).abs() < 1e-5);
    }

    #[test]
    fn update_degenerate_dt_moves_nothing() {
        let out = KinematicOutput {
            velocity: Vec2::new(4.0, 0.0),
            rotation: 3.0,
            heading: None,
        };
        for dt in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let (p, h, v, r) = kinematic_update(Vec2::ONE, 0.5, Vec2::X, 1.0, &out, dt);
            assert_eq!((p, h), (Vec2::ONE, 0.5));
            assert_eq!((v, r), (out.velocity, out.rotation));
        }
    }
}
