//! Seek, flee, arrive, pursuit and evade (Reynolds 1999; Buckland ch. 3).
//!
//! Every function returns a steering force `desired_velocity - current_velocity`
//! (the combiner truncates the total to the agent's maximum force).

use glam::Vec2;
use serde::{Deserialize, Serialize};
use wide::f32x4;

use super::AgentState;
use crate::math::x4::Vec2x4;
use crate::math::{normalize_or_zero, EPS_LEN};

/// Where something is and how it moves, as a behaviour sees a target, a leader or a
/// hunter: position and velocity. (A body's mass and limits are
/// [`crate::integrate::Limits`].)
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Position.
    pub pos: Vec2,
    /// Velocity.
    pub vel: Vec2,
}

/// The former name of [`Motion`].
#[deprecated(note = "renamed `Motion` (a body's mass and limits are `integrate::Limits`)")]
pub type Body = Motion;

/// Seek: full speed toward `target`. Zero when already there.
#[must_use]
pub fn seek(me: &AgentState, target: Vec2) -> Vec2 {
    let desired = normalize_or_zero(target - me.pos) * me.max_speed;
    if desired == Vec2::ZERO {
        return Vec2::ZERO;
    }
    desired - me.vel
}

/// [`seek`] for four agents at once: each lane bitwise [`seek`]'s result where
/// `has_target` is set, zero elsewhere (`seek_x4_equals_seek_bitwise` below).
#[inline]
pub(crate) fn seek_x4(
    (pos, vel, max_speed): (Vec2x4, Vec2x4, f32x4),
    target: Vec2x4,
    has_target: f32x4,
) -> Vec2x4 {
    let (dir, _) = target.sub(pos).normalize_or(Vec2x4::ZERO);
    let desired = dir.scale(max_speed);
    Vec2x4::select(
        has_target & !desired.is_zero(),
        desired.sub(vel),
        Vec2x4::ZERO,
    )
}

/// Parameters of [`flee`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FleeParams {
    /// Flee only when the threat is closer than this (units); `f32::INFINITY`
    /// (the default, written as `inf` or left out in profiles) always flees.
    pub panic_distance: f32,
}

impl Default for FleeParams {
    fn default() -> Self {
        Self {
            panic_distance: f32::INFINITY,
        }
    }
}

/// Flee: full speed directly away from `threat`, when it is within
/// `panic_distance`. An agent exactly on the threat flees along its heading.
#[must_use]
pub fn flee(me: &AgentState, threat: Vec2, params: &FleeParams) -> Vec2 {
    let away = me.pos - threat;
    let d_sq = away.length_squared();
    if d_sq > params.panic_distance * params.panic_distance {
        return Vec2::ZERO;
    }
    let dir = if d_sq > EPS_LEN * EPS_LEN {
        away / d_sq.sqrt()
    } else {
        me.forward()
    };
    dir * me.max_speed - me.vel
}

/// Parameters of [`arrive`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ArriveParams {
    /// Inside this distance (units) the desired speed ramps down linearly to zero
    /// at the target. Default 6, for the default body (top speed 2, mass 1): full
    /// speed until 6 units from the target, then an approach that settles without
    /// overshooting by more than a few hundredths (the steering force, `desired -
    /// vel`, brakes like a spring whose damping this ratio of top speed to radius
    /// sets). The leader-following article's 50 (pixels) is [`ArriveParams::tutorial`].
    pub slowing_radius: f32,
    /// The speed to arrive at (units/s), capped by the agent's maximum speed: an
    /// agent that avoids others (ORCA) keeps its maximum for giving way. Default
    /// infinite: the maximum speed.
    pub speed: f32,
}

impl Default for ArriveParams {
    fn default() -> Self {
        Self {
            slowing_radius: 6.0,
            speed: f32::INFINITY,
        }
    }
}

impl ArriveParams {
    /// The leader-following article's `arrive(target, 50)`, in its pixels.
    #[must_use]
    pub fn tutorial() -> Self {
        Self {
            slowing_radius: 50.0,
            ..Self::default()
        }
    }
}

/// Arrive (Reynolds): like seek, but the desired speed is
/// `max_speed * min(1, distance / slowing_radius)`, so the agent slows down inside
/// the slowing radius and stops at the target. At the target it brakes (`-vel`).
#[must_use]
pub fn arrive(me: &AgentState, target: Vec2, params: &ArriveParams) -> Vec2 {
    let offset = target - me.pos;
    let d = offset.length();
    if d <= EPS_LEN {
        return -me.vel;
    }
    let cruise = params.speed.min(me.max_speed);
    let ramped = if params.slowing_radius > 0.0 {
        cruise * (d / params.slowing_radius)
    } else {
        cruise
    };
    let speed = ramped.min(cruise);
    offset * (speed / d) - me.vel
}

/// Prediction time of pursuit and evade: distance over the sum of the two speeds
/// (Buckland's `ToEvader.Length() / (MaxSpeed + Evader.Speed())`). Zero when
/// neither can move.
#[must_use]
pub fn look_ahead_time(me: &AgentState, other: &Motion) -> f32 {
    let d = (other.pos - me.pos).length();
    let speed = me.max_speed + other.vel.length();
    if speed > EPS_LEN {
        d / speed
    } else {
        0.0
    }
}

/// Pursuit: seek the point where `evader` will be after [`look_ahead_time`].
/// When the evader is ahead and coming straight at us (headings opposed by more
/// than about 18 degrees), seek its current position instead (Buckland).
#[must_use]
pub fn pursuit(me: &AgentState, evader: &Motion) -> Vec2 {
    let to_evader = evader.pos - me.pos;
    let my_fwd = me.forward();
    let ev_fwd = normalize_or_zero(evader.vel);
    if to_evader.dot(my_fwd) > 0.0 && my_fwd.dot(ev_fwd) < -0.95 {
        return seek(me, evader.pos);
    }
    seek(me, evader.pos + evader.vel * look_ahead_time(me, evader))
}

/// Parameters of [`evade`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvadeParams {
    /// Evade only when the pursuer is closer than this (units); infinite by default.
    pub threat_range: f32,
}

impl Default for EvadeParams {
    fn default() -> Self {
        Self {
            threat_range: f32::INFINITY,
        }
    }
}

/// Evade: flee the point where `pursuer` will be after [`look_ahead_time`], when it
/// is within `threat_range`.
#[must_use]
pub fn evade(me: &AgentState, pursuer: &Motion, params: &EvadeParams) -> Vec2 {
    let d_sq = (pursuer.pos - me.pos).length_squared();
    if d_sq > params.threat_range * params.threat_range {
        return Vec2::ZERO;
    }
    let predicted = pursuer.pos + pursuer.vel * look_ahead_time(me, pursuer);
    flee(me, predicted, &FleeParams::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_x4_equals_seek_bitwise() {
        use crate::behaviours::testing::four_agents;
        use crate::math::x4::LANES;
        use crate::rng::{agent_rng, uniform};
        let mut rng = agent_rng(5, 6);
        for case in 0..10_000 {
            let (me, lanes) = four_agents(&mut rng, 50.0, 3.0, (0.0, 4.0));
            // Some targets on the agent itself, one lane without a target.
            let target: [Vec2; LANES] = std::array::from_fn(|k| match (case + k) % 6 {
                0 => me[k].pos,
                _ => Vec2::new(
                    uniform(&mut rng, -50.0, 50.0),
                    uniform(&mut rng, -50.0, 50.0),
                ),
            });
            let has: [f32; LANES] =
                std::array::from_fn(|k| if (case + k) % 5 == 0 { 0.0 } else { 1.0 });
            let got = seek_x4(
                lanes,
                Vec2x4::load(&target),
                f32x4::new(has).simd_eq(f32x4::splat(1.0)),
            )
            .store();
            for k in 0..LANES {
                let want = if has[k] == 1.0 {
                    seek(&me[k], target[k])
                } else {
                    Vec2::ZERO
                };
                assert_eq!(
                    (got[k].x.to_bits(), got[k].y.to_bits()),
                    (want.x.to_bits(), want.y.to_bits())
                );
            }
        }
    }

    fn agent(pos: Vec2, vel: Vec2, max_speed: f32) -> AgentState {
        AgentState {
            pos,
            vel,
            max_speed,
            max_force: 100.0,
            ..AgentState::default()
        }
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn seek_hand_worked() {
        // From (0,0) moving (1,0) with max speed 2 toward (0,10):
        // desired = (0,2), force = (0,2) - (1,0) = (-1,2).
        let me = agent(Vec2::ZERO, Vec2::X, 2.0);
        assert!(close(seek(&me, Vec2::new(0.0, 10.0)), Vec2::new(-1.0, 2.0)));
        assert_eq!(seek(&me, Vec2::ZERO), Vec2::ZERO);
    }

    #[test]
    fn flee_hand_worked() {
        // Threat at (3,4) from the origin: away = (-0.6,-0.8)*5 = (-3,-4), minus vel 0.
        let me = agent(Vec2::ZERO, Vec2::ZERO, 5.0);
        let f = flee(&me, Vec2::new(3.0, 4.0), &FleeParams::default());
        assert!(close(f, Vec2::new(-3.0, -4.0)));
        let near = FleeParams {
            panic_distance: 4.0,
        };
        assert_eq!(flee(&me, Vec2::new(3.0, 4.0), &near), Vec2::ZERO);
        // On top of the threat: flee along the heading (+y), finite.
        let f = flee(&me, Vec2::ZERO, &FleeParams::default());
        assert!(close(f, Vec2::new(0.0, 5.0)));
    }

    #[test]
    fn arrive_hand_worked() {
        // Target 25 away, slowing radius 50 (the tutorial's), max speed 4: desired
        // speed 2.
        let me = agent(Vec2::ZERO, Vec2::new(0.0, 1.0), 4.0);
        let tutorial = ArriveParams::tutorial();
        let f = arrive(&me, Vec2::new(0.0, 25.0), &tutorial);
        assert!(close(f, Vec2::new(0.0, 1.0)));
        // Beyond the slowing radius: full speed.
        let f = arrive(&me, Vec2::new(0.0, 100.0), &tutorial);
        assert!(close(f, Vec2::new(0.0, 3.0)));
        // At the target: brake.
        assert!(close(
            arrive(&me, Vec2::ZERO, &ArriveParams::default()),
            -me.vel
        ));
    }

    #[test]
    fn pursuit_and_evade_hand_worked() {
        // Evader at (10,0) moving (0,1); me at origin, max speed 1, still.
        // look-ahead = 10 / (1 + 1) = 5, predicted (10,5), seek gives (10,5)/|..| * 1.
        let me = agent(Vec2::ZERO, Vec2::ZERO, 1.0);
        let ev = Motion {
            pos: Vec2::new(10.0, 0.0),
            vel: Vec2::Y,
        };
        assert!((look_ahead_time(&me, &ev) - 5.0).abs() < 1e-6);
        let expect = Vec2::new(10.0, 5.0).normalize();
        assert!(close(pursuit(&me, &ev), expect));
        assert!(close(evade(&me, &ev, &EvadeParams::default()), -expect));
        let far = EvadeParams { threat_range: 5.0 };
        assert_eq!(evade(&me, &ev, &far), Vec2::ZERO);
    }

    #[test]
    fn pursuit_head_on_seeks_current_position() {
        let me = agent(Vec2::ZERO, Vec2::Y, 1.0);
        let ev = Motion {
            pos: Vec2::new(0.0, 10.0),
            vel: Vec2::NEG_Y,
        };
        assert!(close(pursuit(&me, &ev), seek(&me, ev.pos)));
    }
}
