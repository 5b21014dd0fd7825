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

/// How a box's agents are placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arrangement {
    /// Uniformly at random.
    #[default]
    Random,
    /// On a lattice of about square cells filling the box.
    Grid,
    /// At random, then pushed apart until no two of the group's bodies overlap
    /// ([`push_apart`]), every centre still in the box.
    Apart,
}

/// A validated spawn shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// An axis-aligned box, its agents placed as `arrangement` says.
    Box {
        /// Centre.
        centre: Vec2,
        /// Width and height (>= 0).
        size: Vec2,
        /// At random, on a lattice, or at random and pushed apart.
        arrangement: Arrangement,
    },
    /// A uniformly random filled disc.
    Disc {
        /// Centre.
        centre: Vec2,
        /// Radius (>= 0).
        radius: f32,
        /// Whether the random places are pushed apart ([`push_apart`]) until no two
        /// of the group's bodies overlap, every centre still in the disc.
        apart: bool,
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
            Shape::Box {
                centre,
                size,
                arrangement,
            } => Shape::Box {
                centre: centre * s,
                size: size * s,
                arrangement,
            },
            Shape::Disc {
                centre,
                radius,
                apart,
            } => Shape::Disc {
                centre: centre * s,
                radius: radius * s,
                apart,
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
            Shape::Disc { centre, radius, .. } => {
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

    /// Where the shape's agents are pushed apart after they are drawn, if they are
    /// (a box of [`Arrangement::Apart`], a disc `apart`).
    #[must_use]
    pub fn apart(&self) -> Option<Region> {
        match *self {
            Shape::Box {
                arrangement: Arrangement::Apart,
                ..
            } => Some(Region::Box(self.extent(0))),
            Shape::Disc {
                centre,
                radius,
                apart: true,
            } => Some(Region::Disc { centre, radius }),
            _ => None,
        }
    }

    /// Positions of `n` agents. Random shapes draw from `rng`; the result
    /// depends only on the shape, `n` and the generator's state. A box of
    /// [`Arrangement::Apart`] gives its random draws here; [`push_apart`] then
    /// separates them, knowing the bodies' size.
    #[must_use]
    pub fn place(&self, n: usize, rng: &mut AgentRng) -> Vec<Vec2> {
        match *self {
            Shape::Box {
                centre,
                size,
                arrangement: Arrangement::Random | Arrangement::Apart,
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
                arrangement: Arrangement::Grid,
            } => lattice(centre, size, n),
            Shape::Disc { centre, radius, .. } => (0..n)
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

/// Rounds of [`push_apart`] before it gives up.
pub const APART_ROUNDS: usize = 1000;

/// Where [`push_apart`] keeps its points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// An axis-aligned box.
    Box(Rect),
    /// A filled disc.
    Disc {
        /// Centre.
        centre: Vec2,
        /// Radius (>= 0).
        radius: f32,
    },
}

impl Region {
    /// `p` if it is in the region, else the region's nearest point to it (a disc's
    /// along the line from its centre).
    #[must_use]
    pub fn keep(&self, p: Vec2) -> Vec2 {
        match *self {
            Region::Box(r) => p.clamp(r.min, r.max),
            Region::Disc { centre, radius } => {
                let d = p - centre;
                let len = d.length();
                if len > radius {
                    centre + d * (radius / len)
                } else {
                    p
                }
            }
        }
    }

    /// The region's bounding box.
    #[must_use]
    pub fn bounds(&self) -> Rect {
        match *self {
            Region::Box(r) => r,
            Region::Disc { centre, radius } => {
                Rect::from_corners(centre - Vec2::splat(radius), centre + Vec2::splat(radius))
            }
        }
    }

    /// The most bodies [`push_apart`] is asked to separate here: as many as a square
    /// lattice of `spacing` holds with every centre in the region (a disc's lattice
    /// centred on it); `throng check` refuses more, naming the count.
    #[must_use]
    pub fn capacity(&self, spacing: f32) -> usize {
        if spacing <= 0.0 {
            return usize::MAX;
        }
        let fit = |len: f32| ((len / spacing).floor() + 1.0).min(1e9) as usize;
        match *self {
            Region::Box(r) => {
                let size = r.max - r.min;
                fit(size.x).saturating_mul(fit(size.y))
            }
            Region::Disc { radius, .. } => {
                // Row k of the lattice at height k × spacing holds the points within
                // its half-width either side of the centre.
                let rows = (radius / spacing).floor().min(1e6) as i64;
                (-rows..=rows)
                    .map(|k| {
                        let y = k as f32 * spacing;
                        let half = (radius * radius - y * y).max(0.0).sqrt();
                        2 * (fit(half) - 1) + 1
                    })
                    .fold(0usize, usize::saturating_add)
            }
        }
    }
}

/// Moves `points` apart, pair by pair, until no two centres are closer than
/// `spacing` (two bodies' radii), every centre kept within `region`; the same points
/// and spacing always give the same places. Each round finds the pairs closer than
/// `spacing` on a grid of cells of at least `spacing` and moves each of the two half
/// of what they lack (a hair more, so that they end apart in floating point), along
/// the line between them (coincident ones along a direction of their rows); a round
/// that finds none ends it. A round looks only at the pairs with a point that the
/// round before moved: the others stand as that round left them, apart. Whether it
/// succeeded within [`APART_ROUNDS`] rounds (a crowd as dense as a square lattice, or
/// denser, may not; nor is a crowd of `u32::MAX` points or more tried).
pub fn push_apart(points: &mut [Vec2], spacing: f32, region: Region) -> bool {
    let n = points.len();
    if n < 2 || spacing <= 0.0 {
        return true;
    }
    if n >= Cells::NONE as usize {
        return false;
    }
    let mut cells = Cells::new(points, spacing, region.bounds());
    let reach = spacing * (1.0 + 1e-4);
    let (mut active, mut now) = (vec![true; n], vec![false; n]);
    let mut near = Vec::new();
    for _ in 0..APART_ROUNDS {
        // Only pairs with a point that moved in the last round can be too close now
        // (in the first round, every point counts as moved).
        let mut moved = false;
        for i in 0..n {
            if !active[i] {
                continue;
            }
            cells.around(points[i], &mut near);
            for &j in &near {
                let j = j as usize;
                // Each pair once: from its first moved point.
                if j == i || (active[j] && j < i) {
                    continue;
                }
                let d = points[j] - points[i];
                let len = d.length();
                if len >= spacing {
                    continue;
                }
                let dir = if len > 0.0 {
                    d / len
                } else {
                    // Coincident: a direction of their rows.
                    let a = (i * 7 + j * 13) as f32;
                    Vec2::new(a.cos(), a.sin())
                };
                // A hair more than they lack: far from the origin, more than the
                // points' rounding there.
                let far = points[i].abs().max(points[j].abs()).max_element();
                let step = dir * ((reach + far * (4.0 * f32::EPSILON) - len) * 0.5);
                for (k, step) in [(i, -step), (j, step)] {
                    points[k] = region.keep(points[k] + step);
                    cells.moved(k, points[k]);
                }
                (now[i], now[j], moved) = (true, true, true);
            }
        }
        if !moved {
            return true;
        }
        std::mem::swap(&mut active, &mut now);
        now.fill(false);
    }
    false
}

/// The points of [`push_apart`] by cell, as lists that follow them when they move.
struct Cells {
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    /// Each cell's first point; each point's next and previous in its cell, and its
    /// cell (`NONE`: none).
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    of: Vec<u32>,
}

impl Cells {
    const NONE: u32 = u32::MAX;

    /// `points` (fewer than `u32::MAX`) in cells of at least `spacing` over `area`
    /// (a pair that is too close is in one cell or two neighbouring ones), and no
    /// more of them than about three per point however long and thin the area.
    fn new(points: &[Vec2], spacing: f32, area: Rect) -> Self {
        let n = points.len();
        let size = (area.max - area.min).max(Vec2::ZERO);
        let cell = spacing
            .max((size.x * size.y / n as f32).sqrt())
            .max(size.max_element() / n as f32);
        let cols = ((size.x / cell) as usize + 1).max(1);
        let rows = ((size.y / cell) as usize + 1).max(1);
        let mut cells = Self {
            origin: area.min,
            cell,
            cols,
            rows,
            head: vec![Self::NONE; cols * rows],
            next: vec![Self::NONE; n],
            prev: vec![Self::NONE; n],
            of: vec![0; n],
        };
        for (i, &p) in points.iter().enumerate() {
            cells.insert(i, cells.index(p));
        }
        cells
    }

    /// The column and row of the cell of `p` (clamped to the grid).
    fn coords(&self, p: Vec2) -> (usize, usize) {
        let c = ((p - self.origin) / self.cell).max(Vec2::ZERO);
        (
            (c.x as usize).min(self.cols - 1),
            (c.y as usize).min(self.rows - 1),
        )
    }

    fn index(&self, p: Vec2) -> usize {
        let (x, y) = self.coords(p);
        y * self.cols + x
    }

    fn insert(&mut self, i: usize, c: usize) {
        let first = self.head[c];
        (self.next[i], self.prev[i], self.of[i]) = (first, Self::NONE, c as u32);
        if first != Self::NONE {
            self.prev[first as usize] = i as u32;
        }
        self.head[c] = i as u32;
    }

    /// Point `i` now stands at `p`: into the list of its new cell, if it changed.
    fn moved(&mut self, i: usize, p: Vec2) {
        let c = self.index(p);
        let old = self.of[i] as usize;
        if c == old {
            return;
        }
        let (prev, next) = (self.prev[i], self.next[i]);
        match prev {
            Self::NONE => self.head[old] = next,
            q => self.next[q as usize] = next,
        }
        if next != Self::NONE {
            self.prev[next as usize] = prev;
        }
        self.insert(i, c);
    }

    /// The points in the cell of `p` and the eight around it, into `out`.
    fn around(&self, p: Vec2, out: &mut Vec<u32>) {
        out.clear();
        let (x, y) = self.coords(p);
        for cy in y.saturating_sub(1)..(y + 2).min(self.rows) {
            for cx in x.saturating_sub(1)..(x + 2).min(self.cols) {
                let mut k = self.head[cy * self.cols + cx];
                while k != Self::NONE {
                    out.push(k);
                    k = self.next[k as usize];
                }
            }
        }
    }
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
                arrangement: Arrangement::Random,
            },
            Shape::Box {
                centre: Vec2::ZERO,
                size: Vec2::new(10.0, 4.0),
                arrangement: Arrangement::Grid,
            },
            Shape::Disc {
                centre: Vec2::ONE,
                radius: 3.0,
                apart: false,
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
            arrangement: Arrangement::Grid,
        };
        let big = s.scaled(2.0);
        assert_eq!(big.centre(), Vec2::new(2.0, 4.0));
        // Four times the agents in four times the area: same spacing.
        let a = s.place(100, &mut agent_rng(0, 0));
        let b = big.place(400, &mut agent_rng(0, 0));
        assert!((a[0].distance(a[1]) - b[0].distance(b[1])).abs() < 1e-4);
    }

    /// The least distance between two of `points` (all pairs).
    fn closest_pair(points: &[Vec2]) -> f32 {
        let mut least = f32::INFINITY;
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                least = least.min(a.distance(*b));
            }
        }
        least
    }

    #[test]
    fn push_apart_moves_a_pair_half_of_what_it_lacks_each() {
        // 0.2 apart, spacing 1: each moves 0.40005 (half of 1.0001 - 0.2) away from
        // the other, along the line between them.
        let big = Rect::from_corners(Vec2::splat(-10.0), Vec2::splat(10.0));
        let mut p = [Vec2::ZERO, Vec2::new(0.2, 0.0)];
        assert!(push_apart(&mut p, 1.0, Region::Box(big)));
        assert!((p[0] - Vec2::new(-0.40005, 0.0)).length() < 1e-6, "{p:?}");
        assert!((p[1] - Vec2::new(0.60005, 0.0)).length() < 1e-6, "{p:?}");
        // Coincident points part along some direction; far ones do not move.
        let mut p = [Vec2::ONE, Vec2::ONE, Vec2::new(5.0, 5.0)];
        assert!(push_apart(&mut p, 1.0, Region::Box(big)));
        assert!(p[0].distance(p[1]) >= 1.0, "{p:?}");
        assert_eq!(p[2], Vec2::new(5.0, 5.0));
        // Far from the origin, where a hair of 1e-4 is below the rounding of the
        // points, a pair parts too.
        let far = Rect::from_corners(Vec2::splat(2000.0), Vec2::splat(3000.0));
        let mut p = [Vec2::new(2500.0, 2500.0), Vec2::new(2500.3, 2500.0)];
        assert!(push_apart(&mut p, 0.6, Region::Box(far)));
        assert!(p[0].distance(p[1]) >= 0.6, "{p:?}");
        // Pressed against the box's side, the pair parts along it, both inside.
        let side = Rect::from_corners(Vec2::ZERO, Vec2::new(10.0, 10.0));
        let mut p = [Vec2::new(0.0, 5.0), Vec2::new(0.0, 5.3)];
        assert!(push_apart(&mut p, 1.0, Region::Box(side)));
        assert!(
            p[0].distance(p[1]) >= 1.0 && p.iter().all(|q| q.x == 0.0),
            "{p:?}"
        );
    }

    #[test]
    fn apart_capacity_is_a_square_lattice() {
        // Centres 0.5 apart in a 1 x 2 box: 3 across, 5 along.
        let capacity = |size: Vec2, spacing: f32| {
            Region::Box(Rect::from_corners(Vec2::ONE, Vec2::ONE + size)).capacity(spacing)
        };
        assert_eq!(capacity(Vec2::new(1.0, 2.0), 0.5), 15);
        assert_eq!(capacity(Vec2::ZERO, 0.5), 1);
        assert_eq!(capacity(Vec2::ONE, 0.0), usize::MAX);
    }

    #[test]
    fn a_disc_holds_a_lattice_centred_on_it() {
        // Radius 1, centres 0.5 apart: rows at 0, ±0.5 and ±1 hold 5, 3 and 1
        // (half-widths 1, 0.866 and 0).
        let disc = Region::Disc {
            centre: Vec2::new(4.0, -2.0),
            radius: 1.0,
        };
        assert_eq!(disc.capacity(0.5), 5 + 2 * 3 + 2);
        assert_eq!(disc.capacity(0.0), usize::MAX);
        // A point kept in it: moved back along the line from the centre.
        assert_eq!(disc.keep(Vec2::new(7.0, -2.0)), Vec2::new(5.0, -2.0));
        assert_eq!(disc.keep(Vec2::new(4.5, -2.0)), Vec2::new(4.5, -2.0));
        assert_eq!(
            disc.bounds(),
            Rect::from_corners(Vec2::new(3.0, -3.0), Vec2::new(5.0, -1.0))
        );
    }

    #[test]
    fn a_dense_random_disc_is_pushed_apart_inside_it() {
        // 200 people (radius 0.22) in a disc of radius 4.5 m: about 3.1 persons/m^2.
        let s = Shape::Disc {
            centre: Vec2::new(10.0, 5.0),
            radius: 4.5,
            apart: true,
        };
        let region = s.apart().expect("a disc apart");
        let drawn = s.place(200, &mut agent_rng(2, 0));
        assert!(closest_pair(&drawn) < 0.1);
        let mut a = drawn.clone();
        assert!(push_apart(&mut a, 0.44, region));
        assert!(closest_pair(&a) >= 0.44, "{}", closest_pair(&a));
        let centre = Vec2::new(10.0, 5.0);
        assert!(a.iter().all(|p| p.distance(centre) <= 4.5 + 1e-4));
        // Still spread over the disc: as many within its inner half of area as
        // outside it.
        let inner = a
            .iter()
            .filter(|p| p.distance(centre) < 4.5 / 2f32.sqrt())
            .count();
        assert!((80..=120).contains(&inner), "{inner}");
        let mut b = drawn;
        assert!(push_apart(&mut b, 0.44, region));
        assert_eq!(a, b);
        let random = Shape::Disc {
            centre,
            radius: 4.5,
            apart: false,
        };
        assert_eq!(random.apart(), None);
    }

    #[test]
    fn a_dense_random_box_is_pushed_apart_the_same_way_every_time() {
        // The experiments' holding area: 150 people (radius 0.22) in 5.6 x 7.6 m, about
        // 3.5 persons/m^2; drawn at random they overlap.
        let s = Shape::Box {
            centre: Vec2::new(-6.9, 0.0),
            size: Vec2::new(5.6, 7.6),
            arrangement: Arrangement::Apart,
        };
        let area = s.extent(150);
        let drawn = s.place(150, &mut agent_rng(1, 0));
        assert!(closest_pair(&drawn) < 0.1);
        let mut a = drawn.clone();
        assert!(push_apart(&mut a, 0.44, Region::Box(area)));
        assert!(closest_pair(&a) >= 0.44, "{}", closest_pair(&a));
        assert!(a
            .iter()
            .all(|p| p.cmpge(area.min).all() && p.cmple(area.max).all()));
        // Still spread over the box, not swept to its sides: as many in each half.
        let left = a.iter().filter(|p| p.x < -6.9).count();
        assert!((60..=90).contains(&left), "{left}");
        let mut b = drawn;
        assert!(push_apart(&mut b, 0.44, Region::Box(area)));
        assert_eq!(a, b);
    }

    #[test]
    fn a_box_too_small_to_hold_its_bodies_apart_says_so() {
        // 100 bodies 0.5 apart in a 1 x 1 box (a square lattice holds 9).
        let area = Rect::from_corners(Vec2::ZERO, Vec2::ONE);
        let mut next = 0.0f32;
        let mut p: Vec<Vec2> = (0..100)
            .map(|_| {
                next = (next + 0.618_034) % 1.0;
                Vec2::new(next, (next * 7.0) % 1.0)
            })
            .collect();
        assert!(!push_apart(&mut p, 0.5, Region::Box(area)));
        assert!(p
            .iter()
            .all(|q| q.is_finite() && q.cmpge(area.min).all() && q.cmple(area.max).all()));
    }
}
