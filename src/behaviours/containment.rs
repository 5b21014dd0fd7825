//! Containment (Reynolds 1999, "Steering Behaviors For Autonomous Characters"): keep a
//! character inside a region. It looks ahead along its velocity; when the point it
//! would reach lies outside the region (shrunk by its radius), it steers toward the
//! nearest point inside.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::AgentState;
use crate::math::normalize_or_zero;

/// The region [`containment`] keeps agents in.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Region {
    /// An axis-aligned box from `min` to `max`.
    Box {
        /// Lower corner.
        min: Vec2,
        /// Upper corner.
        max: Vec2,
    },
    /// A disc.
    Circle {
        /// Centre.
        centre: Vec2,
        /// Radius (> 0).
        radius: f32,
    },
}

impl Region {
    /// The nearest point to `p` of the region shrunk by `margin` (a region narrower
    /// than twice the margin shrinks to its middle line or centre).
    #[must_use]
    pub fn nearest_inside(&self, p: Vec2, margin: f32) -> Vec2 {
        match *self {
            Region::Box { min, max } => {
                let (lo, hi) = (min + margin, max - margin);
                let mid = (min + max) * 0.5;
                p.clamp(lo.min(mid), hi.max(mid))
            }
            Region::Circle { centre, radius } => {
                let r = (radius - margin).max(0.0);
                let d = p - centre;
                if d.length_squared() <= r * r {
                    p
                } else {
                    centre + normalize_or_zero(d) * r
                }
            }
        }
    }

    /// Whether the region's numbers are finite and it has an inside.
    pub(crate) fn is_valid(&self) -> bool {
        match *self {
            Region::Box { min, max } => {
                min.is_finite() && max.is_finite() && max.x > min.x && max.y > min.y
            }
            Region::Circle { centre, radius } => {
                centre.is_finite() && radius.is_finite() && radius > 0.0
            }
        }
    }
}

/// Parameters of [`containment`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContainmentParams {
    /// The region.
    pub region: Region,
    /// How far ahead the agent looks, in seconds of its velocity. Default 1.
    #[serde(default = "one_second")]
    pub lookahead: f32,
}

fn one_second() -> f32 {
    1.0
}

/// Containment: with `ahead = pos + vel × lookahead` and `inside` the nearest point to
/// it of the region shrunk by the agent's radius, zero when `ahead` is inside, else
/// Reynolds' steering toward it: `normalize(inside - ahead) × max_speed - vel`.
#[must_use]
pub fn containment(me: &AgentState, p: &ContainmentParams) -> Vec2 {
    let ahead = me.pos + me.vel * p.lookahead;
    let inside = p.region.nearest_inside(ahead, me.radius);
    if inside == ahead {
        return Vec2::ZERO;
    }
    normalize_or_zero(inside - ahead) * me.max_speed - me.vel
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me(pos: Vec2, vel: Vec2) -> AgentState {
        AgentState {
            pos,
            vel,
            max_speed: 2.0,
            radius: 0.5,
            ..AgentState::default()
        }
    }

    #[test]
    fn steers_back_when_it_would_leave_by_hand() {
        let p = ContainmentParams {
            region: Region::Box {
                min: Vec2::ZERO,
                max: Vec2::splat(10.0),
            },
            lookahead: 1.0,
        };
        // At (8, 5) moving (2, 0): ahead (10, 5), beyond the shrunk box's edge x = 9.5;
        // inside (9.5, 5), so desired (-2, 0) and force (-4, 0).
        assert_eq!(
            containment(&me(Vec2::new(8.0, 5.0), Vec2::new(2.0, 0.0)), &p),
            Vec2::new(-4.0, 0.0)
        );
        // Ahead inside: nothing.
        assert_eq!(
            containment(&me(Vec2::new(5.0, 5.0), Vec2::new(2.0, 0.0)), &p),
            Vec2::ZERO
        );
        // A disc of radius 3.5 at the origin, shrunk to 3: at (2, 0) moving (2, 0),
        // ahead (4, 0), inside (3, 0): desired (-2, 0), force (-4, 0).
        let disc = ContainmentParams {
            region: Region::Circle {
                centre: Vec2::ZERO,
                radius: 3.5,
            },
            lookahead: 1.0,
        };
        assert_eq!(
            containment(&me(Vec2::new(2.0, 0.0), Vec2::new(2.0, 0.0)), &disc),
            Vec2::new(-4.0, 0.0)
        );
    }

    #[test]
    fn a_region_narrower_than_the_body_shrinks_to_its_middle() {
        let thin = Region::Box {
            min: Vec2::ZERO,
            max: Vec2::new(10.0, 0.6),
        };
        assert_eq!(
            thin.nearest_inside(Vec2::new(3.0, 2.0), 0.5),
            Vec2::new(3.0, 0.3)
        );
        let small = Region::Circle {
            centre: Vec2::ONE,
            radius: 0.2,
        };
        assert_eq!(small.nearest_inside(Vec2::new(5.0, 1.0), 0.5), Vec2::ONE);
    }
}
