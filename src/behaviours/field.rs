//! Flow-field following (Reynolds 1999, "Steering Behaviors For Autonomous
//! Characters"): the desired velocity is the field's direction at the agent, here a
//! goal field's descent direction ([`crate::scene::GoalField`]), so an agent finds its
//! way around walls to the nearest goal without a path of its own.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::AgentState;
use crate::math::normalize_or_zero;
use crate::scene::FieldSample;

/// Parameters of [`follow_field`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FollowFieldParams {
    /// Distance (units) inside which the agent slows in proportion, as arrive does, to
    /// where it ends: its own target if it has one (the field's goal is then a place
    /// it passes through at full speed, a door), else the field's goal, in which it
    /// stops. Default 0: full speed all the way,
    /// and in the goal, without a target, the agent walks on the way it was going (an
    /// exit: it walks out through it rather than stopping in the doorway).
    pub slowing_radius: f32,
}

impl Default for FollowFieldParams {
    fn default() -> Self {
        Self {
            slowing_radius: 0.0,
        }
    }
}

/// The velocity an agent following a field wants, from what the field says at its
/// position and the agent's own target, if it has one. On the way: the field's
/// direction at top speed (without a target, times `distance / slowing_radius`
/// inside the slowing radius). In the goal (the field got it there, through the
/// door, say): toward its target at top speed, slowed the same way by the distance
/// to it; without a target, zero with a slowing radius, else on at top speed the way
/// it faces. Where no goal can be reached: zero (it stands).
#[must_use]
pub fn field_velocity(
    me: &AgentState,
    sample: FieldSample,
    target: Option<Vec2>,
    p: &FollowFieldParams,
) -> Vec2 {
    let slowed = |distance: f32| {
        if p.slowing_radius > 0.0 && distance < p.slowing_radius {
            me.max_speed * distance / p.slowing_radius
        } else {
            me.max_speed
        }
    };
    match (sample, target) {
        (
            FieldSample::Toward {
                direction,
                distance,
            },
            None,
        ) => direction * slowed(distance),
        (FieldSample::Toward { direction, .. }, Some(_)) => direction * me.max_speed,
        (FieldSample::AtGoal, Some(t)) => {
            let to = t - me.pos;
            normalize_or_zero(to) * slowed(to.length())
        }
        (FieldSample::AtGoal, None) if p.slowing_radius <= 0.0 => me.forward() * me.max_speed,
        (FieldSample::AtGoal | FieldSample::Unreachable, _) => Vec2::ZERO,
    }
}

/// Follow a field: Reynolds' steering, the desired velocity ([`field_velocity`])
/// minus the velocity.
#[must_use]
pub fn follow_field(
    me: &AgentState,
    sample: FieldSample,
    target: Option<Vec2>,
    p: &FollowFieldParams,
) -> Vec2 {
    field_velocity(me, sample, target, p) - me.vel
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me(vel: Vec2) -> AgentState {
        AgentState {
            vel,
            max_speed: 2.0,
            ..AgentState::default()
        }
    }

    #[test]
    fn steers_along_the_field_at_top_speed() {
        // Desired (0, 2), velocity (1, 0): force (-1, 2).
        let s = FieldSample::Toward {
            direction: Vec2::Y,
            distance: 10.0,
        };
        let p = FollowFieldParams::default();
        assert_eq!(
            follow_field(&me(Vec2::X), s, None, &p),
            Vec2::new(-1.0, 2.0)
        );
        // A target of its own does not matter on the way.
        assert_eq!(
            follow_field(&me(Vec2::X), s, Some(Vec2::new(-50.0, 3.0)), &p),
            Vec2::new(-1.0, 2.0)
        );
        // Nor does a slowing radius then: the goal is passed through.
        let slowing = FollowFieldParams {
            slowing_radius: 20.0,
        };
        assert_eq!(
            follow_field(&me(Vec2::X), s, Some(Vec2::new(-50.0, 3.0)), &slowing),
            Vec2::new(-1.0, 2.0)
        );
    }

    #[test]
    fn slows_inside_the_slowing_radius_and_stops_in_the_goal() {
        let p = FollowFieldParams {
            slowing_radius: 4.0,
        };
        // 1 unit from the goal with a radius of 4: a quarter of top speed, 0.5.
        let s = FieldSample::Toward {
            direction: Vec2::X,
            distance: 1.0,
        };
        assert_eq!(
            field_velocity(&me(Vec2::ZERO), s, None, &p),
            Vec2::new(0.5, 0.0)
        );
        assert_eq!(
            follow_field(&me(Vec2::new(0.5, 0.5)), FieldSample::AtGoal, None, &p),
            Vec2::new(-0.5, -0.5)
        );
        // In the goal, on to its own target 2 units away: half of top speed, 1.
        assert_eq!(
            field_velocity(
                &me(Vec2::ZERO),
                FieldSample::AtGoal,
                Some(Vec2::new(0.0, 2.0)),
                &p
            ),
            Vec2::new(0.0, 1.0)
        );
    }

    #[test]
    fn walks_on_through_an_exit_and_stands_where_nothing_is_reachable() {
        let p = FollowFieldParams::default();
        // In the goal without a slowing radius: on at top speed the way it goes.
        assert_eq!(
            field_velocity(&me(Vec2::new(0.0, -0.5)), FieldSample::AtGoal, None, &p),
            Vec2::new(0.0, -2.0)
        );
        // With a target: at top speed toward it.
        assert_eq!(
            field_velocity(
                &me(Vec2::ZERO),
                FieldSample::AtGoal,
                Some(Vec2::new(-3.0, 4.0)),
                &p
            ),
            Vec2::new(-1.2, 1.6)
        );
        assert_eq!(
            follow_field(
                &me(Vec2::new(0.3, 0.0)),
                FieldSample::Unreachable,
                Some(Vec2::X),
                &p
            ),
            Vec2::new(-0.3, 0.0)
        );
    }
}
