//! Wander (Reynolds' jittered circle, as in Buckland ch. 3).
//!
//! A target point lives on a circle of `radius` projected `distance` ahead of the
//! agent. Each tick it is displaced by a random jitter of at most `jitter * dt` on
//! each axis, pushed back onto the circle, and the agent steers toward it. The
//! target is kept in the agent's local frame (x = right, y = forward) so it turns
//! with the agent.

use glam::Vec2;
use rand_core::Rng;
use serde::{Deserialize, Serialize};

use wide::f32x4;

use super::AgentState;
use crate::math::x4::Vec2x4;
use crate::math::{normalize_or, perp_right};
use crate::rng::uniform;

/// Parameters of [`wander`]. Defaults are Buckland's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WanderParams {
    /// Radius of the wander circle (units). Default 1.2.
    pub radius: f32,
    /// Distance the circle is projected ahead of the agent (units). Default 2.0.
    pub distance: f32,
    /// Largest random displacement of the target per second (units/s). Default 80.
    pub jitter: f32,
}

impl Default for WanderParams {
    fn default() -> Self {
        Self {
            radius: 1.2,
            distance: 2.0,
            jitter: 80.0,
        }
    }
}

/// The initial local wander target: straight ahead on the circle.
#[must_use]
pub fn initial_wander_target(params: &WanderParams) -> Vec2 {
    Vec2::new(0.0, params.radius)
}

/// This tick's random displacement of the local target: `(u, v) * jitter * dt`, with
/// `u` then `v` drawn uniform in `[-1, 1)` from the agent's stream. The wander's only
/// draws, shared by the scalar path ([`jitter_target`]) and the four-lane one
/// (`wander_x4`), so both leave the stream in the same state.
#[inline]
pub fn draw_jitter<R: Rng + ?Sized>(params: &WanderParams, dt: f32, rng: &mut R) -> Vec2 {
    let step = params.jitter * dt;
    Vec2::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0)) * step
}

/// Move the local wander target by a jitter drawn from `rng` ([`draw_jitter`]) and put
/// it back on the circle. A target that collapses to the centre restarts straight
/// ahead.
pub fn jitter_target<R: Rng + ?Sized>(
    local_target: Vec2,
    params: &WanderParams,
    dt: f32,
    rng: &mut R,
) -> Vec2 {
    let jitter = draw_jitter(params, dt, rng);
    normalize_or(local_target + jitter, Vec2::Y) * params.radius
}

/// The wander force for a local target already jittered by [`jitter_target`]:
/// `world(target + (0, distance)) - position`.
#[must_use]
pub fn wander_force(me: &AgentState, local_target: Vec2, params: &WanderParams) -> Vec2 {
    let fwd = me.forward();
    let right = perp_right(fwd);
    right * local_target.x + fwd * (local_target.y + params.distance)
}

/// One wander step: returns the force and the new local target.
pub fn wander<R: Rng + ?Sized>(
    me: &AgentState,
    local_target: Vec2,
    params: &WanderParams,
    dt: f32,
    rng: &mut R,
) -> (Vec2, Vec2) {
    let t = jitter_target(local_target, params, dt, rng);
    (wander_force(me, t, params), t)
}

/// [`wander`] for four agents at once, given each one's forward vector
/// ([`super::forward_x4`]), previous local target and this tick's jitter
/// ([`draw_jitter`]): the force and the new local target, each lane bitwise
/// [`wander`]'s (`wander_x4_equals_wander_bitwise` below).
#[inline]
pub(crate) fn wander_x4(
    fwd: Vec2x4,
    prev: Vec2x4,
    jitter: Vec2x4,
    params: &WanderParams,
) -> (Vec2x4, Vec2x4) {
    let (dir, _) = prev.add(jitter).normalize_or(Vec2x4::splat(Vec2::Y));
    let t = dir.scale(f32x4::splat(params.radius));
    let force = fwd
        .perp_right()
        .scale(t.x)
        .add(fwd.scale(t.y + f32x4::splat(params.distance)));
    (force, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::agent_rng;

    #[test]
    fn wander_force_hand_worked() {
        // Facing +x (velocity (2,0)): right = (0,-1). Local target (0.6, 0) on a
        // circle of 1.2 at distance 2: world offset = right*0.6 + fwd*(0+2) = (2,-0.6).
        let me = AgentState {
            vel: Vec2::new(2.0, 0.0),
            ..AgentState::default()
        };
        let p = WanderParams::default();
        let f = wander_force(&me, Vec2::new(0.6, 0.0), &p);
        assert!((f - Vec2::new(2.0, -0.6)).length() < 1e-6);
    }

    #[test]
    fn jittered_target_stays_on_circle_and_is_reproducible() {
        let p = WanderParams::default();
        let mut a = agent_rng(3, 9);
        let mut b = agent_rng(3, 9);
        let mut ta = initial_wander_target(&p);
        let mut tb = ta;
        for _ in 0..1000 {
            let na = jitter_target(ta, &p, 0.016, &mut a);
            // Each axis moved by at most jitter*dt before re-projection.
            assert!((na.length() - p.radius).abs() < 1e-4);
            ta = na;
            tb = jitter_target(tb, &p, 0.016, &mut b);
        }
        assert_eq!(ta, tb);
    }

    #[test]
    fn wander_x4_equals_wander_bitwise() {
        use crate::math::x4::LANES;
        use crate::rng::uniform;
        let p = WanderParams::default();
        let mut rng = agent_rng(8, 8);
        let mut streams: [_; LANES] = std::array::from_fn(|k| agent_rng(9, k as u64));
        for case in 0..5_000 {
            let mut u = |lo: f32, hi: f32| uniform(&mut rng, lo, hi);
            // Some still agents (forward from the heading), some collapsed targets.
            let me: [AgentState; LANES] = std::array::from_fn(|k| AgentState {
                vel: if (case + k) % 4 == 0 {
                    Vec2::ZERO
                } else {
                    Vec2::new(u(-2.0, 2.0), u(-2.0, 2.0))
                },
                heading: u(-3.0, 3.0),
                ..AgentState::default()
            });
            let prev: [Vec2; LANES] = std::array::from_fn(|k| {
                if (case + k) % 7 == 0 {
                    Vec2::ZERO
                } else {
                    Vec2::new(u(-1.2, 1.2), u(-1.2, 1.2))
                }
            });
            let dt = if case % 3 == 0 { 0.0 } else { 1.0 / 30.0 };
            let mut copies = streams.clone();
            let jitter: [Vec2; LANES] =
                std::array::from_fn(|k| draw_jitter(&p, dt, &mut copies[k]));
            let fwd =
                super::super::forward_x4(Vec2x4::load(&me.map(|m| m.vel)), &me.map(|m| m.heading));
            let (force, target) = wander_x4(fwd, Vec2x4::load(&prev), Vec2x4::load(&jitter), &p);
            let (force, target) = (force.store(), target.store());
            for k in 0..LANES {
                let (f, t) = wander(&me[k], prev[k], &p, dt, &mut streams[k]);
                let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
                assert_eq!(bits(force[k]), bits(f), "case {case} lane {k}");
                assert_eq!(bits(target[k]), bits(t), "case {case} lane {k}");
            }
            // Both paths leave the streams in the same state.
            assert!(copies.iter().zip(&streams).all(|(a, b)| a == b));
        }
    }

    #[test]
    fn collapsed_target_restarts_ahead() {
        let p = WanderParams {
            jitter: 0.0,
            ..WanderParams::default()
        };
        let mut r = agent_rng(1, 1);
        assert_eq!(
            jitter_target(Vec2::ZERO, &p, 0.1, &mut r),
            Vec2::new(0.0, 1.2)
        );
    }
}
