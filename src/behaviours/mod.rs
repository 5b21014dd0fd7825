//! Pure behaviour kernels. Each takes the agent's own state, what it perceives
//! (targets, neighbours, walls, ...) and its parameters, and returns a force (or,
//! for kinematic movement, a velocity). None of them sees the world, rayon or Tracy.

use glam::Vec2;

use crate::math::x4::{Vec2x4, LANES};

/// The read-only state of the agent being steered, copied out of the columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentState {
    /// Position.
    pub pos: Vec2,
    /// Linear velocity (units per second).
    pub vel: Vec2,
    /// Heading, radians clockwise from +y (see [`crate::math`]).
    pub heading: f32,
    /// Angular velocity, radians per second (Millington's `rotation`).
    pub rotation: f32,
    /// Maximum speed (units per second).
    pub max_speed: f32,
    /// Maximum steering force.
    pub max_force: f32,
    /// Body radius.
    pub radius: f32,
    /// Mass (> 0).
    pub mass: f32,
}

impl Default for AgentState {
    fn default() -> Self {
        Self {
            pos: Vec2::ZERO,
            vel: Vec2::ZERO,
            heading: 0.0,
            rotation: 0.0,
            max_speed: 1.0,
            max_force: 1.0,
            radius: 0.5,
            mass: 1.0,
        }
    }
}

impl AgentState {
    /// The body's limits, for the integrator.
    #[must_use]
    pub fn limits(&self) -> crate::integrate::Limits {
        crate::integrate::Limits {
            mass: self.mass,
            max_force: self.max_force,
            max_speed: self.max_speed,
        }
    }

    /// Unit forward vector: the normalised velocity, or the heading when nearly still.
    #[must_use]
    pub fn forward(&self) -> Vec2 {
        let n = crate::math::normalize_or_zero(self.vel);
        if n == Vec2::ZERO {
            crate::math::heading_to_vec(self.heading)
        } else {
            n
        }
    }
}

/// [`AgentState::forward`] of four agents, from their velocities and headings: each
/// lane bitwise the scalar result (a sine and cosine, per lane, only for still agents).
#[inline]
pub(crate) fn forward_x4(vel: Vec2x4, heading: &[f32; LANES]) -> Vec2x4 {
    let (fwd, still) = vel.normalize_or(Vec2x4::ZERO);
    if !still.any() {
        return fwd;
    }
    let mut f = fwd.store();
    let still = still.to_bitmask();
    for (i, f) in f.iter_mut().enumerate() {
        if still & (1 << i) != 0 {
            *f = crate::math::heading_to_vec(heading[i]);
        }
    }
    Vec2x4::load(&f)
}

/// Millington's `SteeringOutput`: a linear part (force, or acceleration for unit mass)
/// and an angular part (angular acceleration).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Steering {
    /// Linear force.
    pub linear: Vec2,
    /// Angular acceleration, radians per second squared.
    pub angular: f32,
}

/// What the tests of the four-lane twins share.
#[cfg(test)]
pub(crate) mod testing {
    use glam::Vec2;
    use wide::f32x4;

    use super::AgentState;
    use crate::math::x4::{Vec2x4, LANES};
    use crate::rng::{uniform, AgentRng};

    /// Four agents at random positions within `±extent`, velocities within `±speed`
    /// on each axis and maximum speeds in `max_speed`; and what the twins read of them
    /// in lanes: position, velocity, maximum speed.
    pub(crate) fn four_agents(
        rng: &mut AgentRng,
        extent: f32,
        speed: f32,
        (lo, hi): (f32, f32),
    ) -> ([AgentState; LANES], (Vec2x4, Vec2x4, f32x4)) {
        let mut u = |a: f32, b: f32| uniform(rng, a, b);
        let me: [AgentState; LANES] = std::array::from_fn(|_| AgentState {
            pos: Vec2::new(u(-extent, extent), u(-extent, extent)),
            vel: Vec2::new(u(-speed, speed), u(-speed, speed)),
            max_speed: u(lo, hi),
            ..AgentState::default()
        });
        let lanes = (
            Vec2x4::load(&me.map(|m| m.pos)),
            Vec2x4::load(&me.map(|m| m.vel)),
            f32x4::new(me.map(|m| m.max_speed)),
        );
        (me, lanes)
    }
}

pub mod flocking;
pub mod targeting;
pub mod wander;

pub mod angular;
pub mod approach;
pub mod avoidance;
pub mod containment;
pub mod field;
pub mod host;
pub mod kinematic;
pub mod leader;
pub mod obstacles;
pub mod path;
pub mod queue;
pub mod tactics;
pub mod walls;
