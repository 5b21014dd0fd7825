//! The static scene: walls, circular obstacles and paths, and the grids that
//! answer "which walls / obstacles are near here" without scanning them all.
//!
//! Everything here is immutable once built. Constructors validate their input and
//! return [`SceneError`]; nothing panics, and finite input never yields NaN.
//!
//! # Sides of a wall
//! A wall is a segment `a..b` with a unit `normal` (by default the left
//! perpendicular of `b - a`, as Buckland's `Wall2D`). Walls are solid from both
//! sides. A point's side is the sign of [`Wall::side`], `normal · (p - a)`: points
//! with `side > 0` are in *front*, those with `side < 0` *behind*. A point exactly
//! on the wall's line is on a side that does not depend on how the wall is wound
//! (the order of its ends, the sign of its normal), so no answer about any point or
//! move does: in a [`WallIndex`] (and so in a world), the side facing the middle of
//! the scene (the mean of all the walls' end points), which is the inside of any
//! convex enclosure; for a wall on its own, or one whose line passes through that
//! middle, the side of its *canonical* normal, the left perpendicular of the wall
//! run from its lexicographically smaller end point to the larger. A move crosses a wall when its start and end are on
//! different sides and the crossing point lies on the wall (extended by a tiny
//! tolerance at each end, so that a move through the shared end point of two walls
//! always meets one of them). [`Wall::crossing`] is that predicate; [`WallIndex`]
//! uses nothing else, so its answers agree with a brute-force scan over the walls.

use glam::Vec2;
use serde::{Deserialize, Serialize};

mod cell_lists;
mod field;
mod obstacle_index;
mod path;
mod wall_index;

pub use field::{Congestion, FieldSample, FieldSpec, Goal, GoalField, MAX_FIELD_CELLS};
pub use obstacle_index::ObstacleIndex;
pub use path::Path;
pub use wall_index::{WallHit, WallIndex, WALL_SKIN};

/// Walls and path segments shorter than this (units) are rejected or merged: their
/// direction would be dominated by rounding.
pub const MIN_SEGMENT_LENGTH: f32 = 1e-4;

/// Absolute part of the tolerance by which a wall is extended at each end for the
/// crossing test (units).
const END_TOLERANCE_ABS: f32 = 1e-4;
/// Relative part of that tolerance, times the largest coordinate magnitude of the
/// wall (a few ulps of f32 at that magnitude).
const END_TOLERANCE_REL: f32 = 1e-6;

/// Why a scene item could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// A wall end point is NaN or infinite.
    #[error("wall end points must be finite, got {a:?} and {b:?}")]
    NonFiniteWall {
        /// First end point.
        a: Vec2,
        /// Second end point.
        b: Vec2,
    },
    /// The wall's end points coincide (closer than [`MIN_SEGMENT_LENGTH`]).
    #[error("wall from {a:?} to {b:?} has (nearly) zero length")]
    ZeroLengthWall {
        /// First end point.
        a: Vec2,
        /// Second end point.
        b: Vec2,
    },
    /// The normal given to [`Wall::with_normal`] is zero, non-finite or not
    /// perpendicular to the wall.
    #[error("wall normal {normal:?} must be finite, non-zero and perpendicular to the wall")]
    BadWallNormal {
        /// The normal given.
        normal: Vec2,
    },
    /// An obstacle centre is NaN or infinite.
    #[error("obstacle centre must be finite, got {centre:?}")]
    NonFiniteObstacle {
        /// The centre given.
        centre: Vec2,
    },
    /// An obstacle radius is not a finite number greater than zero.
    #[error("obstacle radius must be finite and greater than 0, got {radius}")]
    BadObstacleRadius {
        /// The radius given.
        radius: f32,
    },
    /// A path point is NaN or infinite.
    #[error("path point {index} is not finite: {point:?}")]
    NonFinitePathPoint {
        /// Index of the point in the input.
        index: usize,
        /// The point.
        point: Vec2,
    },
    /// A path has fewer than two distinct points (so zero length).
    #[error("a path needs at least two distinct points, got {distinct}")]
    PathTooShort {
        /// Number of distinct points after merging consecutive duplicates.
        distinct: usize,
    },
    /// An index was asked to hold more items than a `u32` can number, or items so
    /// far apart that the extent is not a finite number.
    #[error("scene too large for one index: {count} items spanning {extent:?}")]
    SceneTooLarge {
        /// Number of items.
        count: usize,
        /// Width and height of their bounding box.
        extent: Vec2,
    },
}

/// A wall: a segment `a..b` with a unit normal, solid from both sides.
///
/// Serialised as `{ a = [x, y], b = [x, y], normal = [x, y] }`; `normal` may be
/// left out (then it is the left perpendicular). Deserialising validates.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(try_from = "WallDef", into = "WallDef")]
pub struct Wall {
    a: Vec2,
    b: Vec2,
    normal: Vec2,
    /// Whether a point exactly on the line counts as in front (see the module's
    /// "Sides of a wall"). Derived from the other fields (and, in an index, the
    /// scene), so left out of equality.
    on_line_in_front: bool,
}

impl PartialEq for Wall {
    fn eq(&self, other: &Self) -> bool {
        (self.a, self.b, self.normal) == (other.a, other.b, other.normal)
    }
}

/// Serialised form of [`Wall`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WallDef {
    a: Vec2,
    b: Vec2,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    normal: Option<Vec2>,
}

impl TryFrom<WallDef> for Wall {
    type Error = SceneError;
    fn try_from(d: WallDef) -> Result<Self, SceneError> {
        match d.normal {
            Some(n) => Wall::with_normal(d.a, d.b, n),
            None => Wall::new(d.a, d.b),
        }
    }
}

impl From<Wall> for WallDef {
    fn from(w: Wall) -> Self {
        WallDef {
            a: w.a,
            b: w.b,
            normal: Some(w.normal),
        }
    }
}

/// The canonical normal direction of a wall between `a` and `b` (not normalised):
/// the left perpendicular of the run from the lexicographically smaller end point
/// (by x, then y) to the larger, whichever order they are given in.
fn canonical_normal(a: Vec2, b: Vec2) -> Vec2 {
    let (lo, hi) = if (a.x, a.y) <= (b.x, b.y) {
        (a, b)
    } else {
        (b, a)
    };
    perp_left(hi - lo)
}

/// The left perpendicular `(-d.y, d.x)`: counter-clockwise quarter turn.
#[inline]
fn perp_left(d: Vec2) -> Vec2 {
    Vec2::new(-d.y, d.x)
}

impl Wall {
    /// A wall from `a` to `b` whose normal is the left perpendicular of `b - a`,
    /// normalised: `(-d.y, d.x) / |d|` (Buckland's `Wall2D`).
    ///
    /// # Errors
    /// [`SceneError::NonFiniteWall`] or [`SceneError::ZeroLengthWall`].
    pub fn new(a: Vec2, b: Vec2) -> Result<Self, SceneError> {
        if !a.is_finite() || !b.is_finite() {
            return Err(SceneError::NonFiniteWall { a, b });
        }
        let d = b - a;
        let len = d.length();
        if !len.is_finite() {
            // Finite ends so far apart that their difference overflows.
            return Err(SceneError::NonFiniteWall { a, b });
        }
        if len < MIN_SEGMENT_LENGTH {
            return Err(SceneError::ZeroLengthWall { a, b });
        }
        let normal = perp_left(d / len);
        Ok(Self {
            a,
            b,
            normal,
            on_line_in_front: normal.dot(canonical_normal(a, b)) > 0.0,
        })
    }

    /// A wall from `a` to `b` facing `normal`: the stored normal is the unit
    /// perpendicular of the wall on `normal`'s side (so `normal` need only be
    /// perpendicular within about 0.06 degrees; its length does not matter).
    ///
    /// # Errors
    /// As [`Wall::new`], and [`SceneError::BadWallNormal`].
    pub fn with_normal(a: Vec2, b: Vec2, normal: Vec2) -> Result<Self, SceneError> {
        let mut wall = Self::new(a, b)?;
        let n = crate::math::normalize_or_zero(normal);
        if n == Vec2::ZERO {
            return Err(SceneError::BadWallNormal { normal });
        }
        let along = n.dot((b - a).normalize_or_zero());
        if along.abs() > 1e-3 {
            return Err(SceneError::BadWallNormal { normal });
        }
        if n.dot(wall.normal) < 0.0 {
            wall.normal = -wall.normal;
            wall.on_line_in_front = !wall.on_line_in_front;
        }
        Ok(wall)
    }

    /// First end point.
    #[inline]
    #[must_use]
    pub fn a(&self) -> Vec2 {
        self.a
    }

    /// Second end point.
    #[inline]
    #[must_use]
    pub fn b(&self) -> Vec2 {
        self.b
    }

    /// The unit normal (the front side).
    #[inline]
    #[must_use]
    pub fn normal(&self) -> Vec2 {
        self.normal
    }

    /// Length of the wall (at least [`MIN_SEGMENT_LENGTH`]).
    #[inline]
    #[must_use]
    pub fn length(&self) -> f32 {
        (self.b - self.a).length()
    }

    /// Signed distance of `p` from the wall's line, `normal · (p - a)`: positive in
    /// front, negative behind, zero on the line.
    #[inline]
    #[must_use]
    pub fn side(&self, p: Vec2) -> f32 {
        self.normal.dot(p - self.a)
    }

    /// Whether `p` counts as in front: `side(p) > 0`, or `p` is on the line and the
    /// wall's normal is its canonical one (module docs, "Sides of a wall"). NaN
    /// counts as behind.
    #[inline]
    #[must_use]
    pub fn in_front(&self, p: Vec2) -> bool {
        self.side_is_front(self.side(p))
    }

    /// This wall with points on its line counted on the side facing `middle` (the
    /// canonical side when `middle` is on the line too, or not finite).
    pub(crate) fn with_line_facing(mut self, middle: Vec2) -> Self {
        let s = self.side(middle);
        if s != 0.0 && s.is_finite() {
            self.on_line_in_front = s > 0.0;
        }
        self
    }

    /// Whether a signed distance from [`Wall::side`] counts as in front.
    #[inline]
    fn side_is_front(&self, side: f32) -> bool {
        side > 0.0 || (side == 0.0 && self.on_line_in_front)
    }

    /// The unit normal facing `p`: `normal` when `p` is in front, else `-normal`.
    #[inline]
    #[must_use]
    pub fn normal_facing(&self, p: Vec2) -> Vec2 {
        if self.in_front(p) {
            self.normal
        } else {
            -self.normal
        }
    }

    /// Closest point of the wall to `p`.
    #[inline]
    #[must_use]
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        crate::math::closest_point_on_segment(p, self.a, self.b).0
    }

    /// Distance from `p` to the wall segment.
    #[inline]
    #[must_use]
    pub fn distance_to(&self, p: Vec2) -> f32 {
        (p - self.closest_point(p)).length()
    }

    /// Tolerance (units) by which the wall is extended at each end for
    /// [`Wall::crossing`].
    #[inline]
    #[must_use]
    pub fn end_tolerance(&self) -> f32 {
        let scale = self.a.abs().max_element().max(self.b.abs().max_element());
        END_TOLERANCE_ABS + END_TOLERANCE_REL * scale
    }

    /// Where the straight move `from -> to` crosses this wall, as the move
    /// parameter `t` in `[0, 1]` (the crossing point is `from + (to - from) * t`),
    /// or `None`.
    ///
    /// The move crosses when `from` and `to` are on different sides (see
    /// [`Wall::in_front`]) and the point where it meets the wall's line lies on the
    /// wall extended by [`Wall::end_tolerance`] at both ends. Consequences: a move
    /// that starts on the line and leaves to the side the line counts as does not
    /// cross; one that leaves to the other side crosses at `t = 0`; a move from the
    /// other side that ends exactly on the line crosses at `t = 1`. Non-finite input
    /// never crosses.
    #[must_use]
    pub fn crossing(&self, from: Vec2, to: Vec2) -> Option<f32> {
        let sp = self.side(from);
        let sq = self.side(to);
        if !(sp.is_finite() && sq.is_finite()) || self.side_is_front(sp) == self.side_is_front(sq) {
            return None;
        }
        // Different signs, so sp - sq is non-zero and t lies in [0, 1].
        let t = (sp / (sp - sq)).clamp(0.0, 1.0);
        let x = from + (to - from) * t;
        let d = self.b - self.a;
        let len_sq = d.length_squared();
        let along = (x - self.a).dot(d);
        let tol = self.end_tolerance() * len_sq.sqrt();
        if along >= -tol && along <= len_sq + tol {
            Some(t)
        } else {
            None
        }
    }
}

/// A circular obstacle. Coincident centres are allowed.
///
/// Serialised as `{ centre = [x, y], radius = r }`; deserialising validates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ObstacleDef", into = "ObstacleDef")]
pub struct Obstacle {
    centre: Vec2,
    radius: f32,
}

/// Serialised form of [`Obstacle`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ObstacleDef {
    centre: Vec2,
    radius: f32,
}

impl TryFrom<ObstacleDef> for Obstacle {
    type Error = SceneError;
    fn try_from(d: ObstacleDef) -> Result<Self, SceneError> {
        Obstacle::new(d.centre, d.radius)
    }
}

impl From<Obstacle> for ObstacleDef {
    fn from(o: Obstacle) -> Self {
        ObstacleDef {
            centre: o.centre,
            radius: o.radius,
        }
    }
}

impl Obstacle {
    /// A circle of `radius` (units, finite and > 0) around `centre`.
    ///
    /// # Errors
    /// [`SceneError::NonFiniteObstacle`] or [`SceneError::BadObstacleRadius`].
    pub fn new(centre: Vec2, radius: f32) -> Result<Self, SceneError> {
        if !centre.is_finite() {
            return Err(SceneError::NonFiniteObstacle { centre });
        }
        if !(radius.is_finite() && radius > 0.0) {
            return Err(SceneError::BadObstacleRadius { radius });
        }
        Ok(Self { centre, radius })
    }

    /// Centre.
    #[inline]
    #[must_use]
    pub fn centre(&self) -> Vec2 {
        self.centre
    }

    /// Radius (> 0).
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_normal_is_left_perpendicular() {
        // d = (4, 0): left perpendicular (-0, 4) / 4 = (0, 1).
        let w = Wall::new(Vec2::ZERO, Vec2::new(4.0, 0.0)).unwrap();
        assert_eq!(w.normal(), Vec2::new(0.0, 1.0));
        // d = (0, 2): (-2, 0) / 2 = (-1, 0).
        let w = Wall::new(Vec2::ZERO, Vec2::new(0.0, 2.0)).unwrap();
        assert_eq!(w.normal(), Vec2::new(-1.0, 0.0));
        assert!((w.length() - 2.0).abs() < 1e-6);
    }

    #[test]
    fn wall_validation() {
        assert!(matches!(
            Wall::new(Vec2::ONE, Vec2::ONE),
            Err(SceneError::ZeroLengthWall { .. })
        ));
        assert!(matches!(
            Wall::new(Vec2::ONE, Vec2::new(f32::NAN, 0.0)),
            Err(SceneError::NonFiniteWall { .. })
        ));
        assert!(matches!(
            Wall::new(Vec2::ONE, Vec2::new(f32::INFINITY, 0.0)),
            Err(SceneError::NonFiniteWall { .. })
        ));
        // Far-apart finite ends whose difference overflows.
        assert!(Wall::new(Vec2::splat(-3e38), Vec2::splat(3e38)).is_err());
        let a = Vec2::ZERO;
        let b = Vec2::new(2.0, 0.0);
        // A normal given as (0, -5) is accepted and stored as (0, -1).
        let w = Wall::with_normal(a, b, Vec2::new(0.0, -5.0)).unwrap();
        assert_eq!(w.normal(), Vec2::new(0.0, -1.0));
        for bad in [Vec2::ZERO, Vec2::new(1.0, 1.0), Vec2::new(f32::NAN, 1.0)] {
            assert!(matches!(
                Wall::with_normal(a, b, bad),
                Err(SceneError::BadWallNormal { .. })
            ));
        }
    }

    #[test]
    fn wall_sides_and_crossing() {
        // Wall along x from (0,0) to (10,0), normal +y.
        let w = Wall::new(Vec2::ZERO, Vec2::new(10.0, 0.0)).unwrap();
        assert_eq!(w.side(Vec2::new(3.0, 2.0)), 2.0);
        assert_eq!(w.normal_facing(Vec2::new(3.0, -2.0)), Vec2::NEG_Y);
        // (5,2) -> (5,-2): sides +2 and -2, t = 2 / 4 = 0.5.
        assert_eq!(
            w.crossing(Vec2::new(5.0, 2.0), Vec2::new(5.0, -2.0)),
            Some(0.5)
        );
        // Passing beyond the end.
        assert_eq!(
            w.crossing(Vec2::new(11.0, 2.0), Vec2::new(11.0, -2.0)),
            None
        );
        // Same side.
        assert_eq!(w.crossing(Vec2::new(5.0, 2.0), Vec2::new(8.0, 0.5)), None);
        // From the line to the front: no crossing; to the back: crossing at 0.
        assert_eq!(w.crossing(Vec2::new(5.0, 0.0), Vec2::new(5.0, 1.0)), None);
        assert_eq!(
            w.crossing(Vec2::new(5.0, 0.0), Vec2::new(5.0, -1.0)),
            Some(0.0)
        );
        // From behind onto the line: crossing at 1.
        assert_eq!(
            w.crossing(Vec2::new(5.0, -1.0), Vec2::new(5.0, 0.0)),
            Some(1.0)
        );
        // Through the end point exactly.
        assert!(w
            .crossing(Vec2::new(9.0, 1.0), Vec2::new(11.0, -1.0))
            .is_some());
        // Non-finite input.
        assert_eq!(w.crossing(Vec2::NAN, Vec2::ZERO), None);
        // Distance helpers.
        assert_eq!(w.distance_to(Vec2::new(13.0, 4.0)), 5.0);
        assert_eq!(w.closest_point(Vec2::new(3.0, 4.0)), Vec2::new(3.0, 0.0));
    }

    #[test]
    fn obstacle_validation() {
        assert!(Obstacle::new(Vec2::ZERO, 1.0).is_ok());
        assert!(matches!(
            Obstacle::new(Vec2::ZERO, 0.0),
            Err(SceneError::BadObstacleRadius { .. })
        ));
        assert!(Obstacle::new(Vec2::ZERO, f32::NAN).is_err());
        assert!(Obstacle::new(Vec2::ZERO, f32::INFINITY).is_err());
        assert!(Obstacle::new(Vec2::ZERO, -1.0).is_err());
        assert!(matches!(
            Obstacle::new(Vec2::new(f32::NAN, 0.0), 1.0),
            Err(SceneError::NonFiniteObstacle { .. })
        ));
    }

    #[test]
    fn serde_round_trip_and_validation() {
        let w: Wall = serde_json::from_str(r#"{"a":[0,0],"b":[2,0]}"#).unwrap();
        assert_eq!(w.normal(), Vec2::Y);
        let back: Wall = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
        assert_eq!(back, w);
        assert!(serde_json::from_str::<Wall>(r#"{"a":[0,0],"b":[0,0]}"#).is_err());
        assert!(serde_json::from_str::<Wall>(r#"{"a":[0,0],"b":[1,0],"x":1}"#).is_err());
        let o: Obstacle = serde_json::from_str(r#"{"centre":[1,2],"radius":3}"#).unwrap();
        assert_eq!(o.centre(), Vec2::new(1.0, 2.0));
        assert!(serde_json::from_str::<Obstacle>(r#"{"centre":[1,2],"radius":0}"#).is_err());
    }
}
