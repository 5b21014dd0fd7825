//! The static scene of a scenario — walls, obstacles, paths — as plain,
//! validated geometry, for drawing and for handing to the world.

use glam::Vec2;

use crate::quality::Gate;

/// An axis-aligned rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Lower-left corner.
    pub min: Vec2,
    /// Upper-right corner.
    pub max: Vec2,
}

impl Rect {
    /// The rectangle with these opposite corners (in any order).
    #[must_use]
    pub fn from_corners(a: Vec2, b: Vec2) -> Self {
        Self {
            min: a.min(b),
            max: a.max(b),
        }
    }

    /// The smallest rectangle holding every point; `None` for no points.
    #[must_use]
    pub fn around(points: impl IntoIterator<Item = Vec2>) -> Option<Self> {
        let mut it = points.into_iter().filter(|p| p.is_finite());
        let first = it.next()?;
        Some(it.fold(Self::from_corners(first, first), |r, p| r.including(p)))
    }

    /// This rectangle grown to include `p`.
    #[must_use]
    pub fn including(self, p: Vec2) -> Self {
        Self {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }

    /// The union of two rectangles.
    #[must_use]
    pub fn union(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Width and height.
    #[must_use]
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }

    /// Grown by `margin` on every side.
    #[must_use]
    pub fn padded(self, margin: f32) -> Self {
        Self {
            min: self.min - Vec2::splat(margin),
            max: self.max + Vec2::splat(margin),
        }
    }
}

/// A wall segment, solid from both sides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallSegment {
    /// One end.
    pub a: Vec2,
    /// The other end.
    pub b: Vec2,
}

/// A circular obstacle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    /// Centre.
    pub centre: Vec2,
    /// Radius (> 0).
    pub radius: f32,
}

/// A named polyline with at least two distinct points and a non-zero length.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutPath {
    /// Name, referred to by targets.
    pub name: String,
    /// Points, consecutive duplicates removed.
    pub points: Vec<Vec2>,
    /// Whether the last point joins the first.
    pub looped: bool,
}

impl LayoutPath {
    /// Segments in order, including the closing one of a looped path.
    pub fn segments(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        let n = self.points.len();
        let count = if self.looped { n } else { n.saturating_sub(1) };
        (0..count).map(move |i| (self.points[i], self.points[(i + 1) % n]))
    }

    /// Total length.
    #[must_use]
    pub fn length(&self) -> f32 {
        self.segments().map(|(a, b)| a.distance(b)).sum()
    }

    /// The point at `distance` along the path from its first point: wrapped
    /// around a looped path, clamped to the ends of an open one.
    #[must_use]
    pub fn point_at(&self, distance: f32) -> Vec2 {
        let total = self.length();
        let first = self.points.first().copied().unwrap_or(Vec2::ZERO);
        if total.is_nan() || total <= 0.0 || !distance.is_finite() {
            return first;
        }
        let mut d = if self.looped {
            distance.rem_euclid(total)
        } else {
            distance.clamp(0.0, total)
        };
        let mut last = first;
        for (a, b) in self.segments() {
            let len = a.distance(b);
            if d <= len && len > 0.0 {
                return a.lerp(b, d / len);
            }
            d -= len;
            last = b;
        }
        last
    }

    /// The distance along the path of the path point nearest `p`.
    #[must_use]
    pub fn project(&self, p: Vec2) -> f32 {
        let mut best = (f32::INFINITY, 0.0);
        let mut along = 0.0;
        for (a, b) in self.segments() {
            let (q, t) = crate::math::closest_point_on_segment(p, a, b);
            let d = q.distance_squared(p);
            let len = a.distance(b);
            if d < best.0 {
                best = (d, along + t * len);
            }
            along += len;
        }
        best.1
    }

    /// This path with every point multiplied by `s`.
    #[must_use]
    pub fn scaled(&self, s: f32) -> Self {
        Self {
            name: self.name.clone(),
            points: self.points.iter().map(|&p| p * s).collect(),
            looped: self.looped,
        }
    }
}

/// Everything static in a scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Walls, including the four sides of each `rects` entry.
    pub walls: Vec<WallSegment>,
    /// Circular obstacles.
    pub obstacles: Vec<Circle>,
    /// Named paths.
    pub paths: Vec<LayoutPath>,
    /// The area to draw, if the profile gives one.
    pub bounds: Option<Rect>,
    /// Measuring lines, for the run report.
    pub gates: Vec<Gate>,
    /// Goal fields, in the profile's order (= the world's `FieldId`).
    pub fields: Vec<LayoutField>,
}

/// A named goal field of a profile.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutField {
    /// Name, referred to by `follow_field` behaviours.
    pub name: String,
    /// Goal boxes, lower and upper corner (equal for a point).
    pub goals: Vec<(Vec2, Vec2)>,
    /// Radius of the bodies the field serves.
    pub clearance: f32,
    /// Cell side; `None`: half the clearance.
    pub cell: Option<f32>,
    /// Congestion-awareness, if any.
    pub congestion: Option<crate::scene::Congestion>,
}

impl LayoutField {
    /// The engine's spec of this field.
    #[must_use]
    pub fn spec(&self) -> crate::scene::FieldSpec {
        let goals = self
            .goals
            .iter()
            .map(|&(a, b)| crate::scene::Goal::from_corners(a, b))
            .collect();
        let mut spec = crate::scene::FieldSpec::new(goals, self.clearance);
        spec.cell = self.cell;
        spec.congestion = self.congestion;
        spec
    }
}

impl Layout {
    /// The scene with every coordinate and length multiplied by `s` (about the
    /// origin).
    #[must_use]
    pub fn scaled(&self, s: f32) -> Self {
        Self {
            walls: self
                .walls
                .iter()
                .map(|w| WallSegment {
                    a: w.a * s,
                    b: w.b * s,
                })
                .collect(),
            obstacles: self
                .obstacles
                .iter()
                .map(|o| Circle {
                    centre: o.centre * s,
                    radius: o.radius * s,
                })
                .collect(),
            paths: self.paths.iter().map(|p| p.scaled(s)).collect(),
            bounds: self.bounds.map(|b| Rect {
                min: b.min * s,
                max: b.max * s,
            }),
            gates: self
                .gates
                .iter()
                .map(|g| Gate {
                    name: g.name.clone(),
                    a: g.a * s,
                    b: g.b * s,
                })
                .collect(),
            // Goals move with the scene; bodies, and so clearance and cells, keep
            // their size.
            fields: self
                .fields
                .iter()
                .map(|f| LayoutField {
                    goals: f.goals.iter().map(|&(a, b)| (a * s, b * s)).collect(),
                    ..f.clone()
                })
                .collect(),
        }
    }

    /// The bounding box of the walls, obstacles and paths; `None` when empty.
    #[must_use]
    pub fn extent(&self) -> Option<Rect> {
        let walls = self.walls.iter().flat_map(|w| [w.a, w.b]);
        let obstacles = self.obstacles.iter().flat_map(|o| {
            [
                o.centre - Vec2::splat(o.radius),
                o.centre + Vec2::splat(o.radius),
            ]
        });
        let paths = self.paths.iter().flat_map(|p| p.points.iter().copied());
        Rect::around(walls.chain(obstacles).chain(paths))
    }

    /// Index of the path called `name`.
    #[must_use]
    pub fn path_index(&self, name: &str) -> Option<usize> {
        self.paths.iter().position(|p| p.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(looped: bool) -> LayoutPath {
        LayoutPath {
            name: "sq".into(),
            points: vec![
                Vec2::ZERO,
                Vec2::new(10.0, 0.0),
                Vec2::new(10.0, 10.0),
                Vec2::new(0.0, 10.0),
            ],
            looped,
        }
    }

    #[test]
    fn point_at_walks_the_path() {
        let p = square(true);
        assert_eq!(p.length(), 40.0);
        assert_eq!(p.point_at(15.0), Vec2::new(10.0, 5.0));
        assert_eq!(p.point_at(45.0), Vec2::new(5.0, 0.0)); // wraps
        assert_eq!(p.point_at(-5.0), Vec2::new(0.0, 5.0)); // wraps backwards
        let open = square(false);
        assert_eq!(open.length(), 30.0);
        assert_eq!(open.point_at(99.0), Vec2::new(0.0, 10.0)); // clamps
        assert_eq!(open.point_at(f32::NAN), Vec2::ZERO);
    }

    #[test]
    fn project_finds_the_nearest_distance() {
        let p = square(true);
        assert!((p.project(Vec2::new(12.0, 4.0)) - 14.0).abs() < 1e-5);
        assert!((p.project(Vec2::new(-1.0, 3.0)) - 37.0).abs() < 1e-5);
    }

    #[test]
    fn scaling_scales_everything() {
        let s = Layout {
            walls: vec![WallSegment {
                a: Vec2::ONE,
                b: Vec2::new(2.0, 1.0),
            }],
            obstacles: vec![Circle {
                centre: Vec2::ONE,
                radius: 1.0,
            }],
            paths: vec![square(false)],
            fields: vec![LayoutField {
                name: "exit".into(),
                goals: vec![(Vec2::ONE, Vec2::new(2.0, 3.0))],
                clearance: 0.5,
                cell: Some(0.25),
                congestion: None,
            }],
            bounds: None,
            gates: vec![Gate {
                name: "g".into(),
                a: Vec2::ZERO,
                b: Vec2::ONE,
            }],
        }
        .scaled(2.0);
        assert_eq!(s.gates[0].b, Vec2::splat(2.0));
        assert_eq!(s.walls[0].b, Vec2::new(4.0, 2.0));
        assert_eq!(s.obstacles[0].radius, 2.0);
        assert_eq!(s.paths[0].length(), 60.0);
        // Goals move with the scene; the bodies' clearance and the cells do not.
        assert_eq!(
            s.fields[0].goals[0],
            (Vec2::splat(2.0), Vec2::new(4.0, 6.0))
        );
        assert_eq!((s.fields[0].clearance, s.fields[0].cell), (0.5, Some(0.25)));
        let e = s.extent().unwrap();
        assert_eq!((e.min, e.max), (Vec2::ZERO, Vec2::new(20.0, 20.0)));
    }
}
