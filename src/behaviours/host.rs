//! Host-driven agents: the host (a player's input, a physics engine, its own
//! pathfinding) gives an agent a preferred velocity each frame, and the crowd steers
//! around it like any other agent (RVO2's `setAgentPrefVelocity`, DetourCrowd's
//! `requestMoveVelocity`). Its group's behaviours are not run for it.
//!
//! Without avoidance the agent reaches the preferred velocity, truncated to its top
//! speed, as fast as its force allows ([`host_force`]); with its group's avoidance
//! (ORCA) the preferred velocity is the one ORCA keeps as close to as it can while
//! staying collision-free.

use glam::Vec2;

use super::AgentState;
use crate::math::truncate;

/// The force that brings the agent's velocity to `preferred` (truncated to its top
/// speed) in one tick of `dt`, or as near as its maximum force allows: the velocity
/// change is `truncate(desired - vel, max_force * dt / mass)`, and the force is that
/// change times `mass / dt` (so the integrators' `v + F/m dt` lands on it).
#[must_use]
pub fn host_force(me: &AgentState, preferred: Vec2, dt: f32) -> Vec2 {
    let desired = truncate(preferred, me.max_speed);
    let change = truncate(desired - me.vel, me.max_force * dt / me.mass);
    let per_time = me.mass / dt;
    if per_time.is_finite() {
        change * per_time
    } else {
        // A heavy body or a tiny step: `change × mass` is at most `max_force × dt`.
        (change * me.mass) / dt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(vel: Vec2) -> AgentState {
        AgentState {
            pos: Vec2::ZERO,
            vel,
            heading: 0.0,
            rotation: 0.0,
            max_speed: 2.0,
            max_force: 10.0,
            radius: 0.5,
            mass: 2.0,
        }
    }

    #[test]
    fn the_force_reaches_the_preferred_velocity_in_one_tick_when_it_can() {
        // Mass 2, dt 0.5: a change of (0, 1) needs (0, 1) * 2 / 0.5 = (0, 4) <= 10.
        let f = host_force(&body(Vec2::new(1.0, 0.0)), Vec2::new(1.0, 1.0), 0.5);
        assert_eq!(f, Vec2::new(0.0, 4.0));
        // (10, 0) is truncated to the top speed 2: change (1, 0), force (4, 0).
        let f = host_force(&body(Vec2::new(1.0, 0.0)), Vec2::new(10.0, 0.0), 0.5);
        assert_eq!(f, Vec2::new(4.0, 0.0));
    }

    #[test]
    fn the_force_is_capped_by_the_maximum_force() {
        // From rest to (0, 2) takes (0, 2) * 2 / 0.5 = (0, 8); with max_force 3 the
        // change is capped at 3 * 0.5 / 2 = 0.75, the force at (0, 3).
        let me = AgentState {
            max_force: 3.0,
            ..body(Vec2::ZERO)
        };
        let f = host_force(&me, Vec2::new(0.0, 2.0), 0.5);
        assert!((f - Vec2::new(0.0, 3.0)).length() < 1e-6, "{f}");
    }

    #[test]
    fn a_tiny_step_or_a_heavy_body_gives_a_finite_force() {
        // dt 1e-45: mass / dt overflows; the change (capped at 10 * 1e-45 / 2, which
        // rounds to the smallest subnormal or zero) times the mass over dt stays
        // within the maximum force.
        let f = host_force(&body(Vec2::ZERO), Vec2::new(1.0, 0.0), 1e-45);
        assert!(f.is_finite() && f.length() <= 10.0, "{f}");
        let heavy = AgentState {
            mass: 3e38,
            max_force: 3e38,
            ..body(Vec2::ZERO)
        };
        let f = host_force(&heavy, Vec2::new(0.0, 1.0), 1e-3);
        assert!(f.is_finite() && f.x == 0.0 && f.y > 0.0, "{f}");
    }
}
