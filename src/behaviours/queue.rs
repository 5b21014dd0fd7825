//! Queuing (Reynolds 1999, "Steering Behaviors For Autonomous Characters": queuing at
//! a doorway): an agent that finds another ahead of it in its lane, going its way,
//! brakes, so that a crowd in a narrowing forms a line instead of pushing.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::flocking::Neighbour;
use super::AgentState;

/// Parameters of [`queue`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueueParams {
    /// How far ahead (units, between centres, beyond the two radii) another agent
    /// makes it brake. Default 1.
    pub distance: f32,
    /// The fraction of its velocity the braking force takes away (per unit mass and
    /// second). Default 0.8.
    pub brake: f32,
}

impl Default for QueueParams {
    fn default() -> Self {
        Self {
            distance: 1.0,
            brake: 0.8,
        }
    }
}

/// Queuing: with `f` the agent's forward direction, a neighbour `n` (not itself:
/// `my_slot`) is ahead in its lane when `a = (n.pos - pos) · f` is in
/// `(0, 2 × radius + distance]` and the rest of `n.pos - pos`, across `f`, is shorter
/// than `2 × radius`; it goes the agent's way when `n.vel · f > 0`. For the first such
/// neighbour: `-vel × brake`; else zero. A still agent has nothing to brake.
#[must_use]
pub fn queue(me: &AgentState, my_slot: u32, neighbours: &[Neighbour], p: &QueueParams) -> Vec2 {
    if me.vel == Vec2::ZERO {
        return Vec2::ZERO;
    }
    let f = me.forward();
    let reach = 2.0 * me.radius + p.distance;
    let lane = 2.0 * me.radius;
    let blocked = neighbours.iter().any(|n| {
        let to = n.pos - me.pos;
        let along = to.dot(f);
        n.slot != my_slot
            && along > 0.0
            && along <= reach
            && (to - f * along).length_squared() < lane * lane
            && n.vel.dot(f) > 0.0
    });
    if blocked {
        -me.vel * p.brake
    } else {
        Vec2::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me(vel: Vec2) -> AgentState {
        AgentState {
            vel,
            radius: 0.5,
            max_speed: 2.0,
            ..AgentState::default()
        }
    }

    #[test]
    fn brakes_behind_an_agent_going_its_way_by_hand() {
        let p = QueueParams::default();
        // Moving (2, 0); reach 2 × 0.5 + 1 = 2, lane 1.
        let walker = me(Vec2::new(2.0, 0.0));
        let ahead = |pos: Vec2, vel: Vec2| [Neighbour::new(pos, vel, 7)];
        // 1.5 ahead, 0.5 across, going the same way: brake, -(2, 0) × 0.8.
        let n = ahead(Vec2::new(1.5, 0.5), Vec2::new(1.0, 0.0));
        assert_eq!(queue(&walker, 0, &n, &p), Vec2::new(-1.6, 0.0));
        // Coming the other way, behind, beside (1.0 across) or too far (2.5): nothing.
        for (pos, vel) in [
            (Vec2::new(1.5, 0.0), Vec2::new(-1.0, 0.0)),
            (Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)),
            (Vec2::new(1.5, 1.0), Vec2::new(1.0, 0.0)),
            (Vec2::new(2.5, 0.0), Vec2::new(1.0, 0.0)),
        ] {
            assert_eq!(queue(&walker, 0, &ahead(pos, vel), &p), Vec2::ZERO, "{pos}");
        }
        // Itself is never ahead of itself; a still agent has nothing to brake.
        let me_too = [Neighbour::new(Vec2::new(1.0, 0.0), Vec2::X, 0)];
        assert_eq!(queue(&walker, 0, &me_too, &p), Vec2::ZERO);
        assert_eq!(queue(&me(Vec2::ZERO), 0, &n, &p), Vec2::ZERO);
    }
}
