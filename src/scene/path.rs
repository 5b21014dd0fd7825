//! [`Path`]: a polyline, open or looped, measured by distance along it.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::{SceneError, MIN_SEGMENT_LENGTH};

/// A polyline with precomputed cumulative lengths, open or looped (the last point
/// joins the first). Positions along it are distances from the first point.
///
/// Consecutive points closer than [`MIN_SEGMENT_LENGTH`] are merged (for a looped
/// path, also a last point repeating the first), so every segment has a length. A
/// path needs at least two distinct points: a single point is an error, since it
/// has no direction to follow (an agent meant to stay at a point should use
/// arrive).
///
/// Serialised as `{ points = [[x, y], ...], looped = false }`; deserialising
/// validates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PathDef", into = "PathDef")]
pub struct Path {
    points: Vec<Vec2>,
    looped: bool,
    /// `cumulative[i]` is the distance along the path to the start of segment
    /// `i`; one more entry than segments, the last being the total length.
    cumulative: Vec<f32>,
}

/// Serialised form of [`Path`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathDef {
    points: Vec<Vec2>,
    #[serde(default)]
    looped: bool,
}

impl TryFrom<PathDef> for Path {
    type Error = SceneError;
    fn try_from(d: PathDef) -> Result<Self, SceneError> {
        Path::build(d.points, d.looped)
    }
}

impl From<Path> for PathDef {
    fn from(p: Path) -> Self {
        PathDef {
            points: p.points,
            looped: p.looped,
        }
    }
}

#[cfg(test)]
impl Path {
    /// Test fixture: (0,0) -> (10,0) -> (10,10) -> (5,10) -> (5,-5), whose last
    /// segment (distance 25..40) crosses the first at (5,0) (distance 5 or 35).
    pub(crate) fn self_crossing_example() -> Self {
        Self::open(vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(10.0, 0.0),
            Vec2::new(10.0, 10.0),
            Vec2::new(5.0, 10.0),
            Vec2::new(5.0, -5.0),
        ])
        .expect("a valid path")
    }
}

impl Path {
    /// An open path through `points`: it ends at the last point.
    ///
    /// # Errors
    /// [`SceneError::NonFinitePathPoint`] or [`SceneError::PathTooShort`].
    pub fn open(points: Vec<Vec2>) -> Result<Self, SceneError> {
        Self::build(points, false)
    }

    /// A looped path through `points`, closed from the last point back to the
    /// first.
    ///
    /// # Errors
    /// [`SceneError::NonFinitePathPoint`] or [`SceneError::PathTooShort`].
    pub fn looped(points: Vec<Vec2>) -> Result<Self, SceneError> {
        Self::build(points, true)
    }

    fn build(raw: Vec<Vec2>, looped: bool) -> Result<Self, SceneError> {
        if let Some((index, &point)) = raw.iter().enumerate().find(|(_, p)| !p.is_finite()) {
            return Err(SceneError::NonFinitePathPoint { index, point });
        }
        let mut points: Vec<Vec2> = Vec::with_capacity(raw.len());
        for p in raw {
            if points
                .last()
                .is_none_or(|&q| (p - q).length() >= MIN_SEGMENT_LENGTH)
            {
                points.push(p);
            }
        }
        if looped && points.len() >= 2 {
            if let (Some(&first), Some(&last)) = (points.first(), points.last()) {
                if (last - first).length() < MIN_SEGMENT_LENGTH {
                    points.pop();
                }
            }
        }
        if points.len() < 2 {
            return Err(SceneError::PathTooShort {
                distinct: points.len(),
            });
        }
        let n_seg = if looped {
            points.len()
        } else {
            points.len() - 1
        };
        let mut cumulative = Vec::with_capacity(n_seg + 1);
        let mut total = 0.0f32;
        cumulative.push(0.0);
        for i in 0..n_seg {
            total += (points[(i + 1) % points.len()] - points[i]).length();
            cumulative.push(total);
        }
        if !total.is_finite() {
            // Finite points so far apart that the length overflows.
            return Err(SceneError::NonFinitePathPoint {
                index: 0,
                point: points[0],
            });
        }
        Ok(Self {
            points,
            looped,
            cumulative,
        })
    }

    /// The points (after merging duplicates).
    #[must_use]
    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// Whether the path loops back to its first point.
    #[must_use]
    pub fn is_looped(&self) -> bool {
        self.looped
    }

    /// Total length (> 0), including the closing segment of a looped path.
    #[must_use]
    pub fn length(&self) -> f32 {
        self.cumulative.last().copied().unwrap_or(0.0)
    }

    /// Number of segments.
    #[must_use]
    pub fn segment_count(&self) -> usize {
        self.cumulative.len() - 1
    }

    /// End points of segment `i` (wrapping to the first point for the closing
    /// segment of a looped path).
    #[must_use]
    pub fn segment(&self, i: usize) -> (Vec2, Vec2) {
        let n = self.points.len();
        (self.points[i % n], self.points[(i + 1) % n])
    }

    /// The last point (the end of an open path).
    #[must_use]
    pub fn last_point(&self) -> Vec2 {
        self.points[self.points.len() - 1]
    }

    /// A distance brought onto the path: clamped to `[0, length]` for an open
    /// path, wrapped into `[0, length)` for a looped one. NaN (and ±∞ on a looped
    /// path) gives 0.
    #[must_use]
    pub fn normalize_distance(&self, d: f32) -> f32 {
        let total = self.length();
        if self.looped {
            if !d.is_finite() {
                return 0.0;
            }
            let r = d.rem_euclid(total);
            if r < total {
                r
            } else {
                0.0
            }
        } else if d.is_nan() {
            0.0
        } else {
            d.clamp(0.0, total)
        }
    }

    /// The segment holding distance `d` (already normalised).
    fn segment_at(&self, d: f32) -> usize {
        let n_seg = self.segment_count();
        self.cumulative
            .partition_point(|&c| c <= d)
            .saturating_sub(1)
            .min(n_seg - 1)
    }

    /// The point at distance `distance` along the path (normalised as in
    /// [`Path::normalize_distance`]).
    #[must_use]
    pub fn point_at(&self, distance: f32) -> Vec2 {
        let d = self.normalize_distance(distance);
        let i = self.segment_at(d);
        let (a, b) = self.segment(i);
        let len = self.cumulative[i + 1] - self.cumulative[i];
        let t = if len > 0.0 {
            ((d - self.cumulative[i]) / len).clamp(0.0, 1.0)
        } else {
            0.0
        };
        a + (b - a) * t
    }

    /// Project `point` onto the part of the path near `from_distance`: the whole
    /// segment holding `from_distance` and every following segment that starts
    /// within `window` (units) beyond it (wrapping on a looped path, each segment
    /// at most once). Returns the distance along the path of the closest point
    /// found (normalised) and the point. Ties go to the earliest segment searched.
    /// A NaN or negative `window` searches only the current segment.
    ///
    /// Searching near the current progress keeps an agent on a self-crossing path
    /// from jumping to another part of it.
    #[must_use]
    pub fn project(&self, point: Vec2, from_distance: f32, window: f32) -> (f32, Vec2) {
        let from = self.normalize_distance(from_distance);
        let window = if window >= 0.0 { window } else { 0.0 };
        let n_seg = self.segment_count();
        let first = self.segment_at(from);
        let total = self.length();
        let mut best: Option<(f32, f32, Vec2)> = None; // (dist_sq, along, point)
        for k in 0..n_seg {
            let i = if self.looped {
                (first + k) % n_seg
            } else {
                first + k
            };
            if i >= n_seg {
                break;
            }
            let start = self.cumulative[i] + if i < first { total } else { 0.0 };
            if k > 0 && start - from > window {
                break;
            }
            let (a, b) = self.segment(i);
            let (q, t) = crate::math::closest_point_on_segment(point, a, b);
            let d_sq = (point - q).length_squared();
            if !matches!(best, Some((bd, _, _)) if bd <= d_sq) {
                let len = self.cumulative[i + 1] - self.cumulative[i];
                best = Some((d_sq, self.cumulative[i] + t * len, q));
            }
        }
        match best {
            Some((d_sq, along, q)) if d_sq.is_finite() => (self.normalize_distance(along), q),
            // A non-finite point: stay where we were.
            _ => (from, self.point_at(from)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn validation() {
        assert!(matches!(
            Path::open(vec![v(1.0, 1.0)]),
            Err(SceneError::PathTooShort { distinct: 1 })
        ));
        assert!(matches!(
            Path::open(vec![v(1.0, 1.0), v(1.0, 1.0)]),
            Err(SceneError::PathTooShort { distinct: 1 })
        ));
        assert!(matches!(
            Path::open(vec![]),
            Err(SceneError::PathTooShort { distinct: 0 })
        ));
        assert!(matches!(
            Path::open(vec![v(0.0, 0.0), v(f32::NAN, 1.0)]),
            Err(SceneError::NonFinitePathPoint { index: 1, .. })
        ));
        assert!(Path::open(vec![v(-3e38, 0.0), v(3e38, 0.0)]).is_err());
        // Duplicates merged; a looped path's repeated first point dropped.
        let p = Path::looped(vec![
            v(0.0, 0.0),
            v(4.0, 0.0),
            v(4.0, 0.0),
            v(4.0, 3.0),
            v(0.0, 0.0),
        ])
        .unwrap();
        assert_eq!(p.points().len(), 3);
        // 4 + 3 + 5 = 12.
        assert!((p.length() - 12.0).abs() < 1e-5);
        assert_eq!(p.segment_count(), 3);
        // Serde.
        let q: Path = serde_json::from_str(r#"{"points":[[0,0],[4,0]]}"#).unwrap();
        assert!(!q.is_looped());
        assert!(serde_json::from_str::<Path>(r#"{"points":[[0,0]]}"#).is_err());
    }

    #[test]
    fn point_at_hand_worked() {
        // (0,0) -> (10,0) -> (10,10): cumulative [0, 10, 20].
        let p = Path::open(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 10.0)]).unwrap();
        assert_eq!(p.point_at(15.0), v(10.0, 5.0));
        assert_eq!(p.point_at(2.5), v(2.5, 0.0));
        assert_eq!(p.point_at(10.0), v(10.0, 0.0));
        // Clamped at both ends; NaN -> start.
        assert_eq!(p.point_at(-4.0), v(0.0, 0.0));
        assert_eq!(p.point_at(99.0), v(10.0, 10.0));
        assert_eq!(p.point_at(f32::INFINITY), v(10.0, 10.0));
        assert_eq!(p.point_at(f32::NAN), v(0.0, 0.0));
        // Looped square of side 10 (total 40): 45 wraps to 5, -5 to 35 = (0,5).
        let sq =
            Path::looped(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 10.0), v(0.0, 10.0)]).unwrap();
        assert_eq!(sq.point_at(45.0), v(5.0, 0.0));
        assert_eq!(sq.point_at(-5.0), v(0.0, 5.0));
        assert_eq!(sq.point_at(40.0), v(0.0, 0.0));
        assert_eq!(sq.point_at(f32::INFINITY), v(0.0, 0.0));
    }

    #[test]
    fn project_hand_worked() {
        let p = Path::open(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 10.0)]).unwrap();
        // (5,1) onto segment 0: (5,0) at distance 5.
        assert_eq!(p.project(v(5.0, 1.0), 0.0, 5.0), (5.0, v(5.0, 0.0)));
        // (12,4) from progress 8, window 5: segments 0 and 1 (starts at 10 <= 13);
        // closest (10,4) at distance 10 + 4 = 14.
        assert_eq!(p.project(v(12.0, 4.0), 8.0, 5.0), (14.0, v(10.0, 4.0)));
        // Window 0 from progress 8: only segment 0, whose closest point is its end.
        assert_eq!(p.project(v(12.0, 4.0), 8.0, 0.0), (10.0, v(10.0, 0.0)));
        assert_eq!(p.project(v(12.0, 4.0), 8.0, f32::NAN), (10.0, v(10.0, 0.0)));
        // Non-finite point: stay at the progress.
        assert_eq!(p.project(Vec2::NAN, 8.0, 5.0), (8.0, v(8.0, 0.0)));
    }

    #[test]
    fn project_respects_progress_on_a_self_crossing_path() {
        // (0,0) -> (10,0) -> (10,10) -> (5,10) -> (5,-5): the last segment
        // (distance 25..40) crosses the first at (5,0), distance 5 or 35.
        let p = Path::self_crossing_example();
        let at = v(5.0, 0.0);
        assert_eq!(p.project(at, 2.0, 5.0).0, 5.0);
        assert_eq!(p.project(at, 33.0, 5.0).0, 35.0);
    }

    #[test]
    fn project_wraps_on_a_loop() {
        // Square of side 10, total 40. From progress 38 (on the closing segment
        // (0,10) -> (0,0)), window 5: segments 3 then 0. The point (3,-1) projects
        // to (3,0) on segment 0, distance 3.
        let sq =
            Path::looped(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 10.0), v(0.0, 10.0)]).unwrap();
        assert_eq!(sq.project(v(3.0, -1.0), 38.0, 5.0), (3.0, v(3.0, 0.0)));
        // With window 0 only the closing segment: its end (0,0), distance 40 -> 0.
        assert_eq!(sq.project(v(3.0, -1.0), 38.0, 0.0), (0.0, v(0.0, 0.0)));
        // An infinite window visits each segment once.
        assert_eq!(
            sq.project(v(10.5, 5.0), 38.0, f32::INFINITY),
            (15.0, v(10.0, 5.0))
        );
    }
}
