//! Spawn shapes: where a group's agents start.
//!
//! Every shape places any number of agents. Sizes are in world units and scale
//! with the scene ([`Shape::scaled`]); the sunflower's size follows from its
//! agent count and density instead, so it needs no scaling.

use std::f32::consts::TAU;

use glam::Vec2;

use super::layout::Rect;
use crate::rng::{uniform, uniform01, AgentRng};

/// The golden angle in radians, the sunflower's angular step (the value used
/// by the circle benchmark). Angles are computed in `f64`: at 100,000 agents
/// `i * GOLDEN_ANGLE` is about 240,000 radians, where `f32` would be off by
/// a hundredth of a radian.
pub const GOLDEN_ANGLE: f64 = 2.399_963_23;

/// A validated spawn shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// An axis-aligned box; `grid` places agents on a lattice, else uniformly
    /// at random.
    Box {
        /// Centre.
        centre: Vec2,
        /// Width and height (>= 0).
        size: Vec2,
        /// Lattice instead of random.
        grid: bool,
    },
    /// A uniformly random filled disc.
    Disc {
        /// Centre.
        centre: Vec2,
        /// Radius (>= 0).
        radius: f32,
    },
    /// Agent i at angle `start_angle + 2πi/n` on a circle, offset at random
    /// across a band of `width`.
    Ring {
        /// Centre.
        centre: Vec2,
        /// Radius (>= 0).
        radius: f32,
        /// Band width (>= 0).
        width: f32,
        /// Angle of agent 0, radians counter-clockwise from +x.
        start_angle: f32,
    },
    /// Rows along a segment, filling a band of `width`.
    Line {
        /// Start.
        from: Vec2,
        /// End.
        to: Vec2,
        /// Band width (>= 0); 0 gives a single row.
        width: f32,
    },
    /// A sunflower spiral of `area_per_agent` square units per agent.
    Sunflower {
        /// Centre.
        centre: Vec2,
        /// Density (> 0).
        area_per_agent: f32,
    },
}

impl Shape {
    /// The shape's centre (the midpoint of a line).
    #[must_use]
    pub fn centre(&self) -> Vec2 {
        match *self {
            Shape::Box { centre, .. }
            | Shape::Disc { centre, .. }
            | Shape::Ring { centre, .. }
            | Shape::Sunflower { centre, .. } => centre,
            Shape::Line { from, to, .. } => (from + to) * 0.5,
        }
    }

    /// The shape scaled by `s` about the origin. A sunflower only moves its
    /// centre: its size already grows with its agent count.
    #[must_use]
    pub fn scaled(&self, s: f32) -> Self {
        match *self {
            Shape::Box { centre, size, grid } => Shape::Box {
                centre: centre * s,
                size: size * s,
                grid,
            },
            Shape::Disc { centre, radius } => Shape::Disc {
                centre: centre * s,
                radius: radius * s,
            },
            Shape::Ring {
                centre,
                radius,
                width,
                start_angle,
            } => Shape::Ring {
                centre: centre * s,
                radius: radius * s,
                width: width * s,
                start_angle,
            },
            Shape::Line { from, to, width } => Shape::Line {
                from: from * s,
                to: to * s,
                width: width * s,
            },
            Shape::Sunflower {
                centre,
                area_per_agent,
            } => Shape::Sunflower {
                centre: centre * s,
                area_per_agent,
            },
        }
    }

    /// The bounding box of `n` agents placed in this shape.
    #[must_use]
    pub fn extent(&self, n: usize) -> Rect {
        match *self {
            Shape::Box { centre, size, .. } => {
                Rect::from_corners(centre - size * 0.5, centre + size * 0.5)
            }
            Shape::Disc { centre, radius } => {
                Rect::from_corners(centre - Vec2::splat(radius), centre + Vec2::splat(radius))
            }
            Shape::Ring {
                centre,
                radius,
                width,
                ..
            } => {
                let r = radius + width * 0.5;
                Rect::from_corners(centre - Vec2::splat(r), centre + Vec2::splat(r))
            }
            Shape::Line { from, to, width } => {
                let half = Vec2::splat(width * 0.5);
                Rect::from_corners(from.min(to) - half, from.max(to) + half)
            }
            Shape::Sunflower {
                centre,
                area_per_agent,
            } => {
                let r = sunflower_radius(area_per_agent, n as f32);
                Rect::from_corners(centre - Vec2::splat(r), centre + Vec2::splat(r))
            }
        }
    }

    /// Positions of `n` agents. Random shapes draw from `rng`; the result
    /// depends only on the shape, `n` and the generator's state.
    #[must_use]
    pub fn place(&self, n: usize, rng: &mut AgentRng) -> Vec<Vec2> {
        match *self {
            Shape::Box {
                centre,
                size,
                grid: false,
            } => (0..n)
                .map(|_| {
                    centre
                        + Vec2::new(
                            uniform(rng, -0.5, 0.5) * size.x,
                            uniform(rng, -0.5, 0.5) * size.y,
                        )
                })
                .collect(),
            Shape::Box {
                centre,
                size,
                grid: true,
            } => lattice(centre, size, n),
            Shape::Disc { centre, radius } => (0..n)
                .map(|_| {
                    let r = radius * uniform01(rng).sqrt();
                    let a = uniform01(rng) * TAU;
                    centre + Vec2::new(a.cos(), a.sin()) * r
                })
                .collect(),
            Shape::Ring {
                centre,
                radius,
                width,
                start_angle,
            } => (0..n)
                .map(|i| {
                    let a = start_angle + TAU * i as f32 / n as f32;
                    let r = if width > 0.0 {
                        radius + uniform(rng, -0.5, 0.5) * width
                    } else {
                        radius
                    };
                    centre + Vec2::new(a.cos(), a.sin()) * r
                })
                .collect(),
            Shape::Line { from, to, width } => line(from, to, width, n),
            Shape::Sunflower {
                centre,
                area_per_agent,
            } => {
                let step = (area_per_agent / std::f32::consts::PI).sqrt();
                (0..n)
                    .map(|i| {
                        let r = step * (i as f32 + 0.5).sqrt();
                        let a = i as f64 * GOLDEN_ANGLE;
                        centre + Vec2::new(a.cos() as f32, a.sin() as f32) * r
                    })
                    .collect()
            }
        }
    }
}

/// Radius of a sunflower of `n` agents.
fn sunflower_radius(area_per_agent: f32, n: f32) -> f32 {
    (area_per_agent / std::f32::consts::PI).sqrt() * (n.max(1.0) - 0.5).sqrt()
}

/// `n` points on a lattice of about square cells filling the box.
fn lattice(centre: Vec2, size: Vec2, n: usize) -> Vec<Vec2> {
    if n == 0 {
        return Vec::new();
    }
    let aspect = if size.y > 0.0 { size.x / size.y } else { 1.0 };
    let cols = ((n as f32 * aspect).sqrt().ceil() as usize).clamp(1, n);
    let rows = n.div_ceil(cols);
    let cell = Vec2::new(size.x / cols as f32, size.y / rows as f32);
    let origin = centre - size * 0.5 + cell * 0.5;
    (0..n)
        .map(|i| origin + Vec2::new((i % cols) as f32, (i / cols) as f32) * cell)
        .collect()
}

/// `n` points in rows along `from..to` filling a band of `width`.
fn line(from: Vec2, to: Vec2, width: f32, n: usize) -> Vec<Vec2> {
    if n == 0 {
        return Vec::new();
    }
    let along = to - from;
    let len = along.length();
    let dir = crate::math::normalize_or(along, Vec2::X);
    let across = Vec2::new(-dir.y, dir.x);
    let rows = if width > 0.0 && len > 0.0 {
        ((n as f32 * width / len).sqrt().round() as usize).clamp(1, n)
    } else {
        1
    };
    let per_row = n.div_ceil(rows);
    (0..n)
        .map(|i| {
            let (row, k) = (i / per_row, i % per_row);
            let t = (k as f32 + 0.5) / per_row as f32;
            let u = (row as f32 + 0.5) / rows as f32 - 0.5;
            from + along * t + across * (u * width)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::agent_rng;

    #[test]
    fn sunflower_is_the_benchmark_spiral() {
        // Agent i at radius sqrt(16/π)·sqrt(i + 0.5), angle i·2.39996323.
        let s = Shape::Sunflower {
            centre: Vec2::ZERO,
            area_per_agent: 16.0,
        };
        let p = s.place(10, &mut agent_rng(0, 0));
        for (i, q) in p.iter().enumerate() {
            let r = (16.0 / std::f64::consts::PI).sqrt() * (i as f64 + 0.5).sqrt();
            let a = i as f64 * 2.399_963_23;
            let want = Vec2::new((a.cos() * r) as f32, (a.sin() * r) as f32);
            assert!((*q - want).length() < 1e-4);
        }
    }

    #[test]
    fn ring_is_even() {
        let s = Shape::Ring {
            centre: Vec2::new(1.0, 1.0),
            radius: 200.0,
            width: 0.0,
            start_angle: 0.0,
        };
        let p = s.place(4, &mut agent_rng(0, 0));
        assert!((p[1] - Vec2::new(1.0, 201.0)).length() < 1e-3);
        assert!((p[2] - Vec2::new(-199.0, 1.0)).length() < 1e-3);
    }

    #[test]
    fn shapes_stay_inside_their_extent() {
        let shapes = [
            Shape::Box {
                centre: Vec2::new(5.0, -3.0),
                size: Vec2::new(10.0, 4.0),
                grid: false,
            },
            Shape::Box {
                centre: Vec2::ZERO,
                size: Vec2::new(10.0, 4.0),
                grid: true,
            },
            Shape::Disc {
                centre: Vec2::ONE,
                radius: 3.0,
            },
            Shape::Ring {
                centre: Vec2::ZERO,
                radius: 10.0,
                width: 2.0,
                start_angle: 1.0,
            },
            Shape::Line {
                from: Vec2::ZERO,
                to: Vec2::new(30.0, 10.0),
                width: 4.0,
            },
            Shape::Sunflower {
                centre: Vec2::ZERO,
                area_per_agent: 4.0,
            },
        ];
        for s in shapes {
            for n in [0, 1, 7, 100] {
                let p = s.place(n, &mut agent_rng(3, 4));
                assert_eq!(p.len(), n);
                let e = s.extent(n).padded(1e-3);
                for q in p {
                    assert!(
                        q.cmpge(e.min).all() && q.cmple(e.max).all(),
                        "{s:?} {q:?} {e:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn scaling_keeps_density() {
        let s = Shape::Box {
            centre: Vec2::new(1.0, 2.0),
            size: Vec2::new(10.0, 10.0),
            grid: true,
        };
        let big = s.scaled(2.0);
        assert_eq!(big.centre(), Vec2::new(2.0, 4.0));
        // Four times the agents in four times the area: same spacing.
        let a = s.place(100, &mut agent_rng(0, 0));
        let b = big.place(400, &mut agent_rng(0, 0));
        assert!((a[0].distance(a[1]) - b[0].distance(b[1])).abs() < 1e-4);
    }
}
