//! [`WallIndex`]: a uniform grid over the walls for ray casts, proximity queries
//! and move constraint.

use glam::Vec2;

use super::grid::{max_cells_for, Grid, GridShape};
use super::{SceneError, Wall};
use crate::math::normalize_or_zero;

/// How far (units) [`WallIndex::constrain_move`] keeps a blocked agent off the
/// wall it slid along.
pub const WALL_SKIN: f32 = 1e-3;

/// How many times [`WallIndex::constrain_move`] slides before giving up.
const MAX_SLIDES: usize = 4;

/// The nearest wall a ray or move meets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallHit {
    /// Index of the wall in the slice the index was built from.
    pub wall: u32,
    /// Distance from the ray origin (or move start) to the hit point.
    pub dist: f32,
    /// The hit point.
    pub point: Vec2,
    /// The wall's unit normal on the side of the ray origin (walls are solid from
    /// both sides).
    pub normal: Vec2,
}

/// Segments whose end cells bound a box of at most this many cells are tested against
/// the walls of the whole box rather than walked cell by cell.
const SMALL_BOX_CELLS: u64 = 4;

/// A static set of walls with a uniform grid of cells, each listing the walls that
/// pass through it (or within a small pad of it).
///
/// The cell size is the mean wall length (so a wall touches a few cells and the
/// lists hold O(walls) entries), grown until there are at most
/// `max(1024, min(4 * walls, 4 Mi))` cells. Every answer agrees with a brute-force
/// scan using [`Wall::crossing`] / [`Wall::distance_to`]; ties between walls at the
/// same distance go to the lower wall index.
#[derive(Clone, Debug)]
pub struct WallIndex {
    walls: Vec<Wall>,
    grid: Grid,
    pad: f32,
}

impl Default for WallIndex {
    /// An index of no walls.
    fn default() -> Self {
        Self {
            walls: Vec::new(),
            grid: Grid::empty(),
            pad: 0.0,
        }
    }
}

impl WallIndex {
    /// Build the index over `walls` (kept in order; [`WallHit::wall`] indexes it).
    ///
    /// # Errors
    /// [`SceneError::SceneTooLarge`] when there are more than `u32::MAX` walls or
    /// their bounding box is too large to measure in `f32`.
    pub fn new(walls: &[Wall]) -> Result<Self, SceneError> {
        if walls.is_empty() {
            return Ok(Self::default());
        }
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        let mut total_len = 0.0f64;
        let mut max_tol = 0.0f32;
        for w in walls {
            lo = lo.min(w.a()).min(w.b());
            hi = hi.max(w.a()).max(w.b());
            total_len += f64::from(w.length());
            max_tol = max_tol.max(w.end_tolerance());
        }
        let too_large = SceneError::SceneTooLarge {
            count: walls.len(),
            extent: hi - lo,
        };
        if u32::try_from(walls.len()).is_err() {
            return Err(too_large);
        }
        let mean_len = (total_len / walls.len() as f64) as f32;
        // Cells of a quarter of the mean wall length (the cap on the cell count
        // permitting): most queries are a short feeler or a tick's move, which then
        // stays in one cell holding one or two walls, or none in open space (cells
        // a whole wall long held every wall of a building: city, 20k agents, 5360 →
        // 4563 instructions per agent-tick).
        let margin = Vec2::splat(4.0 * max_tol);
        let shape = GridShape::fit(
            lo - margin,
            hi + margin,
            mean_len / 4.0,
            max_cells_for(walls.len()),
        )
        .ok_or(too_large)?;
        // Covers the crossing test's end tolerance plus rounding at cell borders.
        let pad = 2.0 * max_tol + 1e-3 * shape.cell();
        let grid = Grid::build(shape, walls.len(), |i, push| {
            shape.segment_cells(walls[i].a(), walls[i].b(), pad, push);
        })?;
        Ok(Self {
            walls: walls.to_vec(),
            grid,
            pad,
        })
    }

    /// The walls, in the order given.
    #[must_use]
    pub fn walls(&self) -> &[Wall] {
        &self.walls
    }

    /// Number of walls.
    #[must_use]
    pub fn len(&self) -> usize {
        self.walls.len()
    }

    /// Whether there are no walls.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.walls.is_empty()
    }

    /// Edge length of a grid cell.
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.grid.shape.cell()
    }

    /// Number of grid cells and of (cell, wall) entries: the memory the index uses
    /// beyond the walls themselves.
    #[must_use]
    pub fn grid_stats(&self) -> (usize, usize) {
        (self.grid.shape.len(), self.grid.entries())
    }

    /// The earliest crossing `(t, wall)` of the move `from -> to`, ties to the
    /// lower wall index.
    fn first_crossing_t(&self, from: Vec2, to: Vec2) -> Option<(f32, u32)> {
        let mut best: Option<(f32, u32)> = None;
        let test_cell = |cell: usize, best: &mut Option<(f32, u32)>| {
            for &id in self.grid.cell_items(cell) {
                let Some(wall) = self.walls.get(id as usize) else {
                    continue;
                };
                if let Some(t) = wall.crossing(from, to) {
                    let better = match *best {
                        None => true,
                        Some((bt, bid)) => t < bt || (t == bt && id < bid),
                    };
                    if better {
                        *best = Some((t, id));
                    }
                }
            }
        };
        let shape = &self.grid.shape;
        if from.is_finite() && to.is_finite() {
            let (a, b) = (shape.cell_of(from), shape.cell_of(to));
            let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
            let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
            if u64::from(x1 - x0 + 1) * u64::from(y1 - y0 + 1) <= SMALL_BOX_CELLS {
                // Cells are monotone in each coordinate (clamped at the grid's edges),
                // so every point of the segment, crossings included, lies in the box of
                // cells between its ends' cells. Testing every wall listed there gives
                // the same first crossing as the walk (the least `(t, wall)`, whatever
                // the order of the tests), without its setup: most moves and feelers
                // of a tick span one cell or two.
                for iy in y0..=y1 {
                    for ix in x0..=x1 {
                        test_cell(shape.index(ix, iy), &mut best);
                    }
                }
                return best;
            }
        }
        shape.walk_segment(from, to, |cell, t_exit| {
            test_cell(cell, &mut best);
            // Walls not listed in the cells walked so far meet the segment beyond
            // this cell, so a hit before its exit is final.
            matches!(best, Some((bt, _)) if bt <= t_exit)
        });
        best
    }

    fn hit(&self, from: Vec2, to: Vec2, (t, id): (f32, u32)) -> WallHit {
        let d = to - from;
        let normal = self
            .walls
            .get(id as usize)
            .map_or(Vec2::ZERO, |w| w.normal_facing(from));
        WallHit {
            wall: id,
            dist: t * d.length(),
            point: from + d * t,
            normal,
        }
    }

    /// The first wall the straight move `from -> to` crosses (in the sense of
    /// [`Wall::crossing`]), with `dist` measured from `from`. `None` when the move
    /// crosses nothing or either point is not finite.
    #[must_use]
    pub fn first_crossing(&self, from: Vec2, to: Vec2) -> Option<WallHit> {
        self.first_crossing_t(from, to)
            .map(|c| self.hit(from, to, c))
    }

    /// The nearest wall hit by the ray from `origin` along `dir_unit` (normalised
    /// here if it is not unit; zero gives `None`) within `max_len`. A ray starting
    /// exactly on a wall's line hits it at distance 0 only when it leaves toward
    /// the back (see [`Wall::crossing`]). Non-finite input, or `max_len <= 0`,
    /// gives `None`; `max_len` may be infinite.
    #[must_use]
    pub fn ray_cast(&self, origin: Vec2, dir_unit: Vec2, max_len: f32) -> Option<WallHit> {
        if self.walls.is_empty() || !origin.is_finite() {
            return None;
        }
        let dir = normalize_or_zero(dir_unit);
        if dir == Vec2::ZERO || max_len.is_nan() || max_len <= 0.0 {
            return None;
        }
        // Nothing lies beyond the grid's far corner.
        let (gmin, gmax) = (self.grid.shape.min(), self.grid.shape.max());
        let far = (origin - gmin).abs().max((origin - gmax).abs()).length() + 1.0;
        let len = max_len.min(far);
        if !len.is_finite() {
            return None;
        }
        let end = origin + dir * len;
        self.first_crossing_t(origin, end).map(|(t, id)| {
            let mut h = self.hit(origin, end, (t, id));
            h.dist = t * len;
            h
        })
    }

    /// Whether no wall comes within `radius` of `point`, checked conservatively: `true`
    /// guarantees that no segment from `point` of length up to `radius` crosses a wall
    /// (the margin covers the crossing test's end tolerance and rounding); `false` only
    /// says that some wall is near. `false` for a non-finite point or a NaN radius.
    #[must_use]
    pub fn clear_within(&self, point: Vec2, radius: f32) -> bool {
        if !point.is_finite() || radius.is_nan() {
            return false;
        }
        let reach = radius.max(0.0) * (1.0 + 1e-4) + self.pad;
        let shape = &self.grid.shape;
        let Some(r) = shape.range(point - Vec2::splat(reach), point + Vec2::splat(reach)) else {
            return false;
        };
        let reach_sq = reach * reach;
        for iy in r.y0..=r.y1 {
            // The band's cells are consecutive: their walls in one slice (a wall in two
            // of them is tested twice, which changes nothing).
            let band = self
                .grid
                .span_items(shape.index(r.x0, iy), shape.index(r.x1, iy));
            for &id in band {
                let near = self
                    .walls
                    .get(id as usize)
                    .is_none_or(|w| (w.closest_point(point) - point).length_squared() <= reach_sq);
                if near {
                    return false;
                }
            }
        }
        reach_sq.is_finite()
    }

    /// Call `f(index, wall)` once for each wall within `radius` of `point`
    /// (segment distance `<= radius`), in a deterministic order. Nothing for a
    /// non-finite point or a NaN or negative radius.
    pub fn for_each_near(&self, point: Vec2, radius: f32, mut f: impl FnMut(u32, &Wall)) {
        if !point.is_finite() || radius.is_nan() || radius < 0.0 {
            return;
        }
        let reach = Vec2::splat(radius + self.pad);
        let shape = &self.grid.shape;
        let Some(r) = shape.range(point - reach, point + reach) else {
            return;
        };
        let r_sq = radius * radius;
        for iy in r.y0..=r.y1 {
            for ix in r.x0..=r.x1 {
                for &id in self.grid.cell_items(shape.index(ix, iy)) {
                    let Some(wall) = self.walls.get(id as usize) else {
                        continue;
                    };
                    let q = wall.closest_point(point);
                    // Report each wall from the one cell holding its closest point.
                    if (q - point).length_squared() <= r_sq && shape.cell_of(q) == (ix, iy) {
                        f(id, wall);
                    }
                }
            }
        }
    }

    /// A point on the move `from -> to` before its crossing `(t, wall)`, at least
    /// [`WALL_SKIN`] from that wall's line when `from` is.
    fn back_off(&self, from: Vec2, to: Vec2, (t, id): (f32, u32)) -> Vec2 {
        let Some(wall) = self.walls.get(id as usize) else {
            return from;
        };
        let h = wall.normal_facing(from).dot(from - wall.a());
        let tau = if h > WALL_SKIN {
            t * (1.0 - WALL_SKIN / h)
        } else {
            0.0
        };
        from + (to - from) * tau
    }

    /// Constrain the straight move `old -> new` by the walls.
    ///
    /// When the move crosses no wall, returns `(new, false)`. Otherwise returns a
    /// position reachable from `old` without crossing any wall, and `true`: the
    /// move is cut just before the first wall, the rest of it slides along that
    /// wall (its normal component removed, [`WALL_SKIN`] off the wall), and the
    /// slid move is checked again, up to a few times. The result is accepted only
    /// if the straight move from `old` to it crosses no wall; otherwise the cut
    /// point, and failing that `old` itself.
    ///
    /// So the returned position is never on the other side of any wall from `old`
    /// (a point exactly on a wall's line counts as in front of it: see
    /// [`Wall::crossing`]). A non-finite `new` gives `(old, true)`; a non-finite
    /// `old` is returned unchanged with `false` (nothing can be checked).
    #[must_use]
    pub fn constrain_move(&self, old: Vec2, new: Vec2) -> (Vec2, bool) {
        if !old.is_finite() {
            return (old, false);
        }
        if !new.is_finite() {
            return (old, true);
        }
        let Some(first) = self.first_crossing_t(old, new) else {
            return (new, false);
        };
        let cut = self.back_off(old, new, first);
        let mut candidate = cut;
        let (mut seg_from, mut seg_to, mut hit, mut from) = (old, new, first, cut);
        for _ in 0..MAX_SLIDES {
            let Some(wall) = self.walls.get(hit.1 as usize) else {
                break;
            };
            let n = wall.normal_facing(seg_from);
            let contact = seg_from + (seg_to - seg_from) * hit.0;
            let rest = seg_to - contact;
            let slide = rest - n * rest.dot(n);
            let h = n.dot(from - wall.a());
            let start = if h < WALL_SKIN {
                from + n * (WALL_SKIN - h)
            } else {
                from
            };
            let target = start + slide;
            match self.first_crossing_t(start, target) {
                None => {
                    candidate = target;
                    break;
                }
                Some(next) => {
                    let base = self.back_off(start, target, next);
                    candidate = base;
                    (seg_from, seg_to, hit, from) = (start, target, next, base);
                }
            }
        }
        for c in [candidate, cut] {
            if self.first_crossing_t(old, c).is_none() {
                return (c, true);
            }
        }
        (old, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{agent_rng, uniform};

    fn wall(ax: f32, ay: f32, bx: f32, by: f32) -> Wall {
        Wall::new(Vec2::new(ax, ay), Vec2::new(bx, by)).unwrap()
    }

    /// The square [0, s]², walls counter-clockwise so the normals face inward.
    fn arena(s: f32) -> Vec<Wall> {
        vec![
            wall(0.0, 0.0, s, 0.0),
            wall(s, 0.0, s, s),
            wall(s, s, 0.0, s),
            wall(0.0, s, 0.0, 0.0),
        ]
    }

    /// Brute-force oracle: earliest crossing over all walls, ties to lower index.
    fn brute_first(walls: &[Wall], from: Vec2, to: Vec2) -> Option<(f32, u32)> {
        let mut best: Option<(f32, u32)> = None;
        for (i, w) in walls.iter().enumerate() {
            if let Some(t) = w.crossing(from, to) {
                if !matches!(best, Some((bt, _)) if bt <= t) {
                    best = Some((t, i as u32));
                }
            }
        }
        best
    }

    /// Independent f64 oracle: does the move `p -> q` pass clearly through the
    /// wall (both ends more than `delta` off its line on opposite sides, crossing
    /// more than `delta` inside its ends)? Rounding-level grazes don't count.
    fn deep_crossing(w: &Wall, p: Vec2, q: Vec2, delta: f64) -> bool {
        let (ax, ay, bx, by) = (
            w.a().x as f64,
            w.a().y as f64,
            w.b().x as f64,
            w.b().y as f64,
        );
        let (dx, dy) = (bx - ax, by - ay);
        let len = (dx * dx + dy * dy).sqrt();
        let side = |v: Vec2| ((v.y as f64 - ay) * dx - (v.x as f64 - ax) * dy) / len;
        let (sp, sq) = (side(p), side(q));
        if !((sp > delta && sq < -delta) || (sp < -delta && sq > delta)) {
            return false;
        }
        let t = sp / (sp - sq);
        let x = p.x as f64 + (q.x as f64 - p.x as f64) * t;
        let y = p.y as f64 + (q.y as f64 - p.y as f64) * t;
        let along = ((x - ax) * dx + (y - ay) * dy) / len;
        along > delta && along < len - delta
    }

    fn random_walls(seed: u64, n: usize, extent: f32) -> Vec<Wall> {
        let mut rng = agent_rng(seed, 0);
        let mut walls = Vec::new();
        while walls.len() < n {
            let a = Vec2::new(
                uniform(&mut rng, 0.0, extent),
                uniform(&mut rng, 0.0, extent),
            );
            let len = uniform(&mut rng, 0.5, extent * 0.2);
            let ang = uniform(&mut rng, 0.0, std::f32::consts::TAU);
            let b = a + crate::math::heading_to_vec(ang) * len;
            if let Ok(w) = Wall::new(a, b) {
                walls.push(w);
            }
        }
        walls
    }

    /// Random walls plus a polyline sharing end points, grid-aligned walls and
    /// the arena, to exercise corners and cell borders.
    fn mixed_walls(seed: u64) -> Vec<Wall> {
        let mut w = random_walls(seed, 150, 100.0);
        w.extend(arena(100.0));
        let pts = [
            (20.0, 20.0),
            (40.0, 20.0),
            (40.0, 40.0),
            (30.0, 50.0),
            (20.0, 20.0),
        ];
        for p in pts.windows(2) {
            w.push(wall(p[0].0, p[0].1, p[1].0, p[1].1));
        }
        w.push(wall(50.0, 0.0, 50.0, 100.0));
        w.push(wall(0.0, 60.0, 100.0, 60.0));
        w
    }

    #[test]
    fn empty_index_answers_nothing() {
        let idx = WallIndex::new(&[]).unwrap();
        assert!(idx.is_empty());
        assert!(idx.ray_cast(Vec2::ZERO, Vec2::X, 10.0).is_none());
        assert_eq!(
            idx.constrain_move(Vec2::ZERO, Vec2::ONE),
            (Vec2::ONE, false)
        );
        let mut n = 0;
        idx.for_each_near(Vec2::ZERO, 100.0, |_, _| n += 1);
        assert_eq!(n, 0);
    }

    #[test]
    fn ray_cast_hand_worked() {
        // Arena [0,10]²; from (5,5) along +x: the right wall x = 10 at distance 5,
        // normal facing the origin (-1, 0).
        let idx = WallIndex::new(&arena(10.0)).unwrap();
        let h = idx.ray_cast(Vec2::new(5.0, 5.0), Vec2::X, 20.0).unwrap();
        assert_eq!(h.wall, 1);
        assert!((h.dist - 5.0).abs() < 1e-5);
        assert!((h.point - Vec2::new(10.0, 5.0)).length() < 1e-5);
        assert_eq!(h.normal, Vec2::new(-1.0, 0.0));
        // Too short.
        assert!(idx.ray_cast(Vec2::new(5.0, 5.0), Vec2::X, 4.0).is_none());
        // From outside: the back face, normal facing the outside origin (+1, 0).
        let h = idx
            .ray_cast(Vec2::new(12.0, 5.0), Vec2::NEG_X, 20.0)
            .unwrap();
        assert_eq!(h.wall, 1);
        assert!((h.dist - 2.0).abs() < 1e-5);
        assert_eq!(h.normal, Vec2::X);
        // Not unit, infinite length, degenerate input.
        assert!(idx
            .ray_cast(Vec2::new(5.0, 5.0), Vec2::new(0.0, 3.0), f32::INFINITY)
            .is_some());
        assert!(idx
            .ray_cast(Vec2::new(5.0, 5.0), Vec2::ZERO, 20.0)
            .is_none());
        assert!(idx.ray_cast(Vec2::NAN, Vec2::X, 20.0).is_none());
        assert!(idx
            .ray_cast(Vec2::new(5.0, 5.0), Vec2::X, f32::NAN)
            .is_none());
        // Into the corner (10,10) exactly: both walls meet at t = 1; lower index wins.
        let h = idx.ray_cast(Vec2::new(5.0, 5.0), Vec2::ONE, 20.0).unwrap();
        assert_eq!(h.wall, 1);
    }

    #[test]
    fn clear_within_hand_worked() {
        // Arena [0,10]²: from (5,5) every wall is 5 away.
        let idx = WallIndex::new(&arena(10.0)).unwrap();
        let c = Vec2::new(5.0, 5.0);
        assert!(idx.clear_within(c, 4.0));
        assert!(!idx.clear_within(c, 5.0));
        // Near the right wall, and on it.
        assert!(!idx.clear_within(Vec2::new(9.0, 5.0), 1.5));
        assert!(!idx.clear_within(Vec2::new(10.0, 5.0), 0.0));
        // Outside, far from every wall; degenerate input is never clear.
        assert!(idx.clear_within(Vec2::new(30.0, 30.0), 2.0));
        assert!(!idx.clear_within(Vec2::NAN, 1.0));
        assert!(!idx.clear_within(c, f32::NAN));
        assert!(!idx.clear_within(c, f32::INFINITY));
    }

    #[test]
    fn clear_points_see_no_wall_within_the_radius() {
        // Wherever `clear_within` says clear, no ray of that length from the point
        // meets a wall (brute force, 64 directions and the exact diagonal ones); and
        // it is not so cautious that it never says clear.
        let walls = mixed_walls(3);
        let idx = WallIndex::new(&walls).unwrap();
        let mut rng = agent_rng(5, 2);
        let mut clear = 0;
        for _ in 0..5_000 {
            let p = Vec2::new(
                uniform(&mut rng, -5.0, 105.0),
                uniform(&mut rng, -5.0, 105.0),
            );
            let r = uniform(&mut rng, 0.0, 6.0);
            if !idx.clear_within(p, r) {
                continue;
            }
            clear += 1;
            for k in 0..68 {
                let dir = if k < 64 {
                    crate::math::heading_to_vec(k as f32 * std::f32::consts::TAU / 64.0)
                } else {
                    [
                        Vec2::ONE,
                        -Vec2::ONE,
                        Vec2::new(1.0, -1.0),
                        Vec2::new(-1.0, 1.0),
                    ][k - 64]
                        .normalize()
                };
                assert!(
                    brute_first(&walls, p, p + dir * r).is_none(),
                    "{p} {r} {dir}"
                );
                assert!(idx.ray_cast(p, dir, r).is_none(), "{p} {r} {dir}");
            }
        }
        assert!(clear > 500, "only {clear} clear points");
    }

    #[test]
    fn index_agrees_with_brute_force() {
        let walls = mixed_walls(7);
        let idx = WallIndex::new(&walls).unwrap();
        let mut rng = agent_rng(99, 1);
        for i in 0..20_000 {
            let from = Vec2::new(
                uniform(&mut rng, -10.0, 110.0),
                uniform(&mut rng, -10.0, 110.0),
            );
            let reach = if i % 10 == 0 { 150.0 } else { 8.0 };
            let to = from
                + Vec2::new(
                    uniform(&mut rng, -reach, reach),
                    uniform(&mut rng, -reach, reach),
                );
            assert_eq!(
                idx.first_crossing_t(from, to),
                brute_first(&walls, from, to),
                "{from} -> {to}"
            );
        }
    }

    #[test]
    fn for_each_near_matches_brute_force_once_each() {
        let walls = mixed_walls(3);
        let idx = WallIndex::new(&walls).unwrap();
        let mut rng = agent_rng(5, 2);
        for _ in 0..2_000 {
            let p = Vec2::new(
                uniform(&mut rng, -20.0, 120.0),
                uniform(&mut rng, -20.0, 120.0),
            );
            let r = uniform(&mut rng, 0.0, 15.0);
            let mut got = Vec::new();
            idx.for_each_near(p, r, |i, _| got.push(i));
            let mut sorted = got.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), got.len(), "duplicate report");
            let want: Vec<u32> = (0..walls.len() as u32)
                .filter(|&i| walls[i as usize].distance_to(p) <= r)
                .collect();
            assert_eq!(sorted, want);
        }
        // A point on a wall at a tiny radius finds it (the closest point is only
        // computed to within rounding, so radius 0 may not).
        let mut got = Vec::new();
        idx.for_each_near(Vec2::new(50.0, 30.0), 1e-4, |i, _| got.push(i));
        assert!(got.contains(&(walls.len() as u32 - 2)));
    }

    #[test]
    fn constrain_move_slides_along_a_wall() {
        // Arena [0,10]²: from (5,9) to (7,11) crosses the top wall y = 10 at
        // t = 0.5 (6,10). Cut: h = 1, tau = 0.5 * (1 - 0.001) -> y = 9.999.
        // Slide: rest (1,1), normal facing (0,-1) -> tangential (1,0): (7, 9.999).
        let idx = WallIndex::new(&arena(10.0)).unwrap();
        let (p, blocked) = idx.constrain_move(Vec2::new(5.0, 9.0), Vec2::new(7.0, 11.0));
        assert!(blocked);
        assert!((p - Vec2::new(6.999, 9.999)).length() < 1e-3, "{p}");
        assert!(p.y < 10.0);
        // A free move is untouched.
        let q = Vec2::new(6.0, 6.0);
        assert_eq!(idx.constrain_move(Vec2::new(5.0, 5.0), q), (q, false));
        // Into a corner: both walls; ends inside.
        let (p, blocked) = idx.constrain_move(Vec2::new(9.0, 9.0), Vec2::new(12.0, 11.0));
        assert!(blocked && p.x < 10.0 && p.y < 10.0, "{p}");
        // Non-finite target: stay.
        assert_eq!(
            idx.constrain_move(Vec2::new(5.0, 5.0), Vec2::NAN),
            (Vec2::new(5.0, 5.0), true)
        );
    }

    #[test]
    fn constrain_move_on_a_wall_and_at_end_points() {
        let idx = WallIndex::new(&arena(10.0)).unwrap();
        let inside = |p: Vec2| idx.walls().iter().all(|w| w.side(p) >= 0.0);
        // Exactly on the bottom wall (counts as in front = inside): outward blocked.
        let (p, blocked) = idx.constrain_move(Vec2::new(5.0, 0.0), Vec2::new(5.0, -1.0));
        assert!(blocked && inside(p), "{p}");
        let (p, blocked) = idx.constrain_move(Vec2::new(5.0, 0.0), Vec2::new(5.0, 1.0));
        assert!(!blocked && p == Vec2::new(5.0, 1.0));
        // Exactly on the corner, heading out diagonally.
        let (p, blocked) = idx.constrain_move(Vec2::ZERO, Vec2::new(-1.0, -1.0));
        assert!(blocked && inside(p), "{p}");
        // Free-standing wall: from its end point, around and across.
        let single = WallIndex::new(&[wall(0.0, 0.0, 10.0, 0.0)]).unwrap();
        let w = single.walls()[0];
        for from in [Vec2::new(10.0, 0.0), Vec2::ZERO, Vec2::new(10.0, 1e-7)] {
            for to in [
                Vec2::new(10.0, -1.0),
                Vec2::new(9.0, -1.0),
                Vec2::new(5.0, -3.0),
            ] {
                let (p, _) = single.constrain_move(from, to);
                assert!(w.crossing(from, p).is_none(), "{from} -> {to} gave {p}");
                assert!(w.in_front(p), "{from} -> {to} gave {p}");
            }
        }
    }

    #[test]
    fn random_walks_never_cross_a_wall() {
        for (seed, walls) in [
            (1u64, arena(10.0)),
            (2, mixed_walls(11)),
            (3, random_walls(4, 400, 50.0)),
        ] {
            let idx = WallIndex::new(&walls).unwrap();
            let extent = if seed == 1 { 10.0 } else { 100.0 };
            let mut rng = agent_rng(seed, 7);
            // Start points: random, exactly on walls, and at end points.
            let mut starts: Vec<Vec2> = (0..300)
                .map(|_| {
                    Vec2::new(
                        uniform(&mut rng, 0.0, extent),
                        uniform(&mut rng, 0.0, extent),
                    )
                })
                .collect();
            for w in walls.iter().take(100) {
                starts.push(w.a());
                starts.push(w.b());
                starts.push(w.a().lerp(w.b(), uniform(&mut rng, 0.0, 1.0)));
            }
            for mut pos in starts {
                for _ in 0..60 {
                    let step = uniform(&mut rng, 0.0, 3.0);
                    let dir = crate::math::heading_to_vec(uniform(&mut rng, 0.0, 7.0));
                    let (next, _) = idx.constrain_move(pos, pos + dir * step);
                    assert!(next.is_finite());
                    assert_eq!(brute_first(&walls, pos, next), None, "{pos} -> {next}");
                    assert!(!walls.iter().any(|w| deep_crossing(w, pos, next, 1e-4)));
                    pos = next;
                }
            }
        }
    }

    /// Unit walls on an integer lattice (a maze): cell borders sit within a pad of
    /// the walls, and many walls share end points.
    fn lattice_walls(seed: u64) -> Vec<Wall> {
        let mut rng = agent_rng(seed, 3);
        let mut walls = Vec::new();
        for i in 0..30 {
            for j in 0..30 {
                let (x, y) = (i as f32, j as f32);
                if uniform(&mut rng, 0.0, 1.0) < 0.4 {
                    walls.push(wall(x, y, x + 1.0, y));
                }
                if uniform(&mut rng, 0.0, 1.0) < 0.4 {
                    walls.push(wall(x, y, x, y + 1.0));
                }
            }
        }
        walls
    }

    #[test]
    fn lattice_maze_agrees_with_brute_force() {
        let walls = lattice_walls(5);
        let idx = WallIndex::new(&walls).unwrap();
        let mut rng = agent_rng(6, 6);
        let lattice = |rng: &mut crate::rng::AgentRng| {
            Vec2::new(
                (uniform(rng, 0.0, 30.0) * 2.0).round() * 0.5,
                (uniform(rng, 0.0, 30.0) * 2.0).round() * 0.5,
            )
        };
        let mut crossings_seen = 0;
        for i in 0..20_000 {
            // Half the moves start and end on lattice points or half-points, so they
            // run along walls and through their shared end points.
            let (from, to) = if i % 2 == 0 {
                (lattice(&mut rng), lattice(&mut rng))
            } else {
                let f = Vec2::new(uniform(&mut rng, -1.0, 31.0), uniform(&mut rng, -1.0, 31.0));
                (
                    f,
                    f + Vec2::new(uniform(&mut rng, -3.0, 3.0), uniform(&mut rng, -3.0, 3.0)),
                )
            };
            assert_eq!(
                idx.first_crossing_t(from, to),
                brute_first(&walls, from, to),
                "{from} -> {to}"
            );
            let (p, _) = idx.constrain_move(from, to);
            assert_eq!(
                brute_first(&walls, from, p),
                None,
                "{from} -> {to} gave {p}"
            );
            assert!(!walls.iter().any(|w| deep_crossing(w, from, p, 1e-4)));
            // The oracles do see the unconstrained crossings.
            if walls.iter().any(|w| deep_crossing(w, from, to, 1e-4)) {
                assert!(brute_first(&walls, from, to).is_some());
                crossings_seen += 1;
            }
        }
        assert!(crossings_seen > 1_000, "{crossings_seen}");
    }

    #[test]
    fn arena_agents_stay_inside() {
        let idx = WallIndex::new(&arena(10.0)).unwrap();
        let mut rng = agent_rng(8, 8);
        for _ in 0..200 {
            let mut pos = Vec2::new(uniform(&mut rng, 0.0, 10.0), uniform(&mut rng, 0.0, 10.0));
            for _ in 0..100 {
                let v = Vec2::new(uniform(&mut rng, -4.0, 4.0), uniform(&mut rng, -4.0, 4.0));
                pos = idx.constrain_move(pos, pos + v).0;
                assert!(
                    (0.0..=10.0).contains(&pos.x) && (0.0..=10.0).contains(&pos.y),
                    "{pos}"
                );
            }
        }
    }

    #[test]
    fn memory_stays_bounded_for_thousands_of_walls() {
        let walls = random_walls(12, 5_000, 1_000.0);
        let idx = WallIndex::new(&walls).unwrap();
        let (cells, entries) = idx.grid_stats();
        assert!(cells <= 20_000, "{cells}");
        assert!(entries <= 10 * walls.len(), "{entries}");
        // A few very long walls among short ones.
        let mut walls = random_walls(13, 2_000, 10.0);
        walls.push(wall(-5000.0, -5000.0, 5000.0, 5000.0));
        let idx = WallIndex::new(&walls).unwrap();
        let (cells, entries) = idx.grid_stats();
        assert!(
            cells <= 8_000 && entries <= 20 * walls.len(),
            "{cells} {entries}"
        );
    }
}
