//! [`WallIndex`]: a uniform grid over the walls for ray casts, proximity queries
//! and move constraint.

use glam::Vec2;

use super::cell_lists::{max_cells_for, CellLayout, CellLists};
use super::{SceneError, Wall};
use crate::math::normalize_or_zero;
use crate::math::x4::{Vec2x4, LANES};

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

/// Finer cells are chosen over sparse walls when at most one cell in this many lists
/// a wall (see [`WallIndex::new`]).
const EMPTY_SHARE: usize = 4;

/// The least cap on the number of cells, whatever the number of walls.
const MIN_CELL_CAP: u32 = 1 << 16;

/// A static set of walls with a uniform grid of cells, each listing the walls that
/// pass through it (or within a small pad of it).
///
/// The cell size is a quarter of the mean wall length (so a wall touches a few cells
/// and the lists hold O(walls) entries), finer where the walls are sparse (a
/// sixteenth or an eighth, when that leaves three cells in four empty), grown until
/// there are at most `max(64 Ki, min(4 * walls, 4 Mi))` cells. Every answer agrees
/// with a brute-force scan using [`Wall::crossing`] / [`Wall::distance_to`]; ties
/// between walls at the same distance go to the lower wall index.
#[derive(Clone, Debug)]
pub struct WallIndex {
    walls: Vec<Wall>,
    grid: CellLists,
    pad: f32,
    /// Per cell, how many rings of cells around it list no wall (0 for a cell that
    /// lists one; at most 255): every wall is at least that many cells' widths from
    /// any point of the cell, which answers most of [`Self::clear_within`] at once.
    open: Vec<u8>,
}

impl Default for WallIndex {
    /// An index of no walls.
    fn default() -> Self {
        Self {
            walls: Vec::new(),
            grid: CellLists::empty(),
            pad: 0.0,
            open: Vec::new(),
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
        Self::build(walls, None)
    }

    /// The index over `walls` with cells of their mean length over `divisor`
    /// (the cap on the cell count permitting), whatever the walls' density.
    #[cfg(test)]
    pub(crate) fn with_cells(walls: &[Wall], divisor: f32) -> Result<Self, SceneError> {
        Self::build(walls, Some(divisor))
    }

    /// [`Self::new`], or with cells of the mean wall length over `divisor`.
    fn build(walls: &[Wall], divisor: Option<f32>) -> Result<Self, SceneError> {
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
        let margin = Vec2::splat(4.0 * max_tol);
        let cap = max_cells_for(walls.len()).max(MIN_CELL_CAP);
        // Covers the crossing test's end tolerance plus rounding at cell borders.
        let pad_of = |shape: &CellLayout| 2.0 * max_tol + 1e-3 * shape.cell();
        // Cells of a quarter of the mean wall length: most queries are a short feeler
        // or a tick's move, which then stays in one cell holding one or two walls, or
        // none in open space (cells a whole wall long held every wall of a building).
        // Where the walls are sparse (a town's long walls over a wide plain), finer
        // ones, a sixteenth or an eighth, when at most one in four then lists a wall:
        // a move that stays in a cell listing none is told in a few instructions
        // (`clear_moves_x4`). Dense walls keep the quarter: finer cells would only
        // list each wall more times.
        let fit = |divisor: f32| CellLayout::fit(lo - margin, hi + margin, mean_len / divisor, cap);
        let mostly_empty = |shape: &CellLayout| {
            let pad = pad_of(shape);
            let mut listed = 0usize;
            for w in walls {
                shape.segment_cells(w.a(), w.b(), pad, |_| listed += 1);
            }
            listed.saturating_mul(EMPTY_SHARE) <= shape.len()
        };
        let shape = match divisor {
            Some(d) => fit(d),
            None => [16.0, 8.0]
                .into_iter()
                .filter_map(fit)
                .find(mostly_empty)
                .or_else(|| fit(4.0)),
        }
        .ok_or(too_large)?;
        let pad = pad_of(&shape);
        let grid = CellLists::build(shape, walls.len(), |i, push| {
            shape.segment_cells(walls[i].a(), walls[i].b(), pad, push);
        })?;
        // A point exactly on a wall's line is on the side facing the middle of the
        // scene (the mean of every end point): inside for any convex enclosure,
        // whichever way its walls are wound.
        let (sx, sy) = walls.iter().fold((0.0f64, 0.0f64), |(x, y), w| {
            let (a, b) = (w.a().as_dvec2(), w.b().as_dvec2());
            (x + a.x + b.x, y + a.y + b.y)
        });
        let n = 2.0 * walls.len() as f64;
        let middle = Vec2::new((sx / n) as f32, (sy / n) as f32);
        let open = open_rings(&grid);
        Ok(Self {
            walls: walls.iter().map(|w| w.with_line_facing(middle)).collect(),
            grid,
            pad,
            open,
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
        let reach = self.reach(radius);
        // Open ground: the empty rings around the point's cell keep every wall
        // farther than the reach (with half a cell to spare for rounding at the
        // cells' borders, so that the cells' test below would say the same:
        // `tests::open_rings_answer_as_the_cells_do`). A point off the grid takes
        // its border cell: the walls all lie on the grid, so they are farther still.
        let shape = &self.grid.shape;
        let (cx, cy) = shape.cell_of(point);
        if let Some(&rings) = self.open.get(shape.index(cx, cy)) {
            if reach <= (f32::from(rings) - 0.5) * shape.cell() {
                return true;
            }
        }
        self.clear_by_cells(point, reach)
    }

    /// [`Self::clear_within`]'s first answer for four points at once: in each lane,
    /// whether the empty rings around the point's cell keep every wall farther than
    /// `radius` reaches (so `clear_within` is `true` there). `false` says nothing
    /// (a wall near, a point on the grid's border cells or off the grid, not finite;
    /// a NaN radius): `clear_within` tells.
    /// `tests::open_lanes_are_clear_within`.
    #[must_use]
    pub(crate) fn open_x4(&self, p: Vec2x4, radius: f32) -> [bool; LANES] {
        if radius.is_nan() {
            return [false; LANES];
        }
        let shape = &self.grid.shape;
        let reach = self.reach(radius);
        shape.inner_cells_x4(p).map(|cell| {
            let rings = cell.and_then(|i| self.open.get(i));
            rings.is_some_and(|&rings| reach <= (f32::from(rings) - 0.5) * shape.cell())
        })
    }

    /// How far [`Self::clear_within`] looks for `radius` (not NaN): a margin for the
    /// crossing test's end tolerance and rounding.
    fn reach(&self, radius: f32) -> f32 {
        radius.max(0.0) * (1.0 + 1e-4) + self.pad
    }

    /// [`Self::clear_within`] by the walls listed in the cells that `point ± reach`
    /// overlaps.
    fn clear_by_cells(&self, point: Vec2, reach: f32) -> bool {
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
    /// (segment distance `<= radius`), in a deterministic order that depends on the
    /// cells (a caller whose result depends on the order sorts the indices). Nothing
    /// for a non-finite point or a NaN or negative radius.
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

    /// For four moves `from[i] -> to[i]`: `true` in each lane whose move starts and
    /// ends in one cell that lists no wall, so [`Self::constrain_move`] would return
    /// `(to, false)` (the box of cells it tests is that one cell); `false` where that
    /// cannot be told so cheaply. The integration asks this first: most moves of a
    /// tick stay in one cell, and most cells hold no wall.
    #[inline]
    pub(crate) fn clear_moves_x4(&self, from: Vec2x4, to: Vec2x4) -> [bool; LANES] {
        let shape = &self.grid.shape;
        let (a, b) = (shape.inner_cells_x4(from), shape.inner_cells_x4(to));
        std::array::from_fn(|i| match (a[i], b[i]) {
            (Some(a), Some(b)) => a == b && self.grid.cell_items(a).is_empty(),
            _ => false,
        })
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
    /// (a point exactly on a wall's line counts as on the side facing the middle of
    /// the scene: see the module docs of [`crate::scene`], "Sides of a wall"). A non-finite `new` gives `(old, true)`; a non-finite
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

/// Per cell of `grid`, the rings of cells around it that list no item: the chessboard
/// distance to the nearest cell that lists one, less one (0 for such a cell; 255 at
/// most, or everywhere when no cell lists one). Two passes, each taking the four
/// neighbours already passed (the exact chessboard distance transform).
fn open_rings(grid: &CellLists) -> Vec<u8> {
    let (nx, ny) = grid.shape.dims();
    let (nx, ny) = (nx as usize, ny as usize);
    let mut d: Vec<u16> = (0..nx * ny)
        .map(|c| {
            if grid.cell_items(c).is_empty() {
                u16::MAX
            } else {
                0
            }
        })
        .collect();
    let mut relax = |c: usize, n: usize| d[c] = d[c].min(d[n].saturating_add(1));
    for y in 0..ny {
        for x in 0..nx {
            let c = y * nx + x;
            if x > 0 {
                relax(c, c - 1);
            }
            if y > 0 {
                relax(c, c - nx);
                if x > 0 {
                    relax(c, c - nx - 1);
                }
                if x + 1 < nx {
                    relax(c, c - nx + 1);
                }
            }
        }
    }
    for y in (0..ny).rev() {
        for x in (0..nx).rev() {
            let c = y * nx + x;
            if x + 1 < nx {
                relax(c, c + 1);
            }
            if y + 1 < ny {
                relax(c, c + nx);
                if x + 1 < nx {
                    relax(c, c + nx + 1);
                }
                if x > 0 {
                    relax(c, c + nx - 1);
                }
            }
        }
    }
    d.into_iter()
        .map(|d| u8::try_from(d.saturating_sub(1)).unwrap_or(u8::MAX))
        .collect()
}

#[cfg(test)]
mod tests;
