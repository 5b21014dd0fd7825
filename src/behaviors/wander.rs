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

use super::AgentState;
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

/// Move the local wander target by a jitter drawn from `rng` and put it back on the
/// circle. A target that collapses to the centre restarts straight ahead.
pub fn jitter_target<R: Rng + ?Sized>(
    local_target: Vec2,
    params: &WanderParams,
    dt: f32,
    rng: &mut R,
) -> Vec2 {
    let step = params.jitter * dt;
    let jitter = Vec2::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0)) * step;
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
