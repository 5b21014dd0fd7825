//! A uniform grid of square cells, each listing item ids (compressed rows: one
//! `starts` array and one flat `items` array, built in two passes).
//!
//! Points outside the grid belong to the nearest border cell, so every lookup is
//! total. Items are listed in ascending id order within a cell.

use glam::Vec2;
use wide::f32x4;

use super::SceneError;
use crate::math::x4::{Vec2x4, LANES};

/// An inclusive rectangle of cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CellRange {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

/// Placement and size of the cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CellLayout {
    origin: Vec2,
    cell: f32,
    inv_cell: f32,
    nx: u32,
    ny: u32,
}

impl CellLayout {
    /// One cell of size 1 at the origin (for an empty index).
    pub fn unit() -> Self {
        Self {
            origin: Vec2::ZERO,
            cell: 1.0,
            inv_cell: 1.0,
            nx: 1,
            ny: 1,
        }
    }

    /// Cells of about `preferred_cell` covering `lo..hi`, grown (×1.25 at a time)
    /// until there are at most `max_cells`. `None` when the box is not finite.
    pub fn fit(lo: Vec2, hi: Vec2, preferred_cell: f32, max_cells: u32) -> Option<Self> {
        let extent = hi - lo;
        if !lo.is_finite() || !extent.is_finite() || extent.min_element() < 0.0 {
            return None;
        }
        let floor = (extent.max_element() * 1e-6).max(1e-6);
        let mut cell = if preferred_cell.is_finite() {
            preferred_cell.max(floor)
        } else {
            extent.max_element().max(floor)
        };
        let count = |cell: f32| {
            let nx = f64::from((extent.x / cell).ceil().max(1.0));
            let ny = f64::from((extent.y / cell).ceil().max(1.0));
            (nx, ny)
        };
        for _ in 0..256 {
            let (nx, ny) = count(cell);
            if nx * ny <= f64::from(max_cells.max(1)) {
                break;
            }
            cell *= 1.25;
        }
        let (nx, ny) = count(cell);
        // Saturating casts; the loop above keeps them small.
        let max_cells = max_cells.clamp(1, i32::MAX as u32);
        let nx = (nx as u32).clamp(1, max_cells);
        let ny = (ny as u32).clamp(1, max_cells);
        Some(Self {
            origin: lo,
            cell,
            inv_cell: 1.0 / cell,
            nx,
            ny,
        })
    }

    /// Edge length of a cell.
    pub fn cell(&self) -> f32 {
        self.cell
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.nx as usize * self.ny as usize
    }

    /// Columns and rows of cells.
    pub fn dims(&self) -> (u32, u32) {
        (self.nx, self.ny)
    }

    /// Lower corner.
    pub fn min(&self) -> Vec2 {
        self.origin
    }

    /// Upper corner.
    pub fn max(&self) -> Vec2 {
        self.origin + Vec2::new(self.nx as f32, self.ny as f32) * self.cell
    }

    /// The cell along one axis of `n` cells: the floor of `(v - origin) * inv`,
    /// clamped into `0..n` (NaN to 0). Truncation toward zero is the floor wherever
    /// the clamp does not decide (at 0 and above), and `as i32` saturates (NaN to 0),
    /// so one conversion and two integer compares do it; a layout's `n` is in
    /// `1..=i32::MAX` ([`Self::fit`]). `tests::coord_is_the_clamped_floor` ties it to
    /// the floor.
    #[inline]
    fn coord(v: f32, origin: f32, inv: f32, n: u32) -> u32 {
        (((v - origin) * inv) as i32).max(0).min(n as i32 - 1) as u32
    }

    /// The cell of `p`, clamped into the grid.
    #[inline]
    pub fn cell_of(&self, p: Vec2) -> (u32, u32) {
        (
            Self::coord(p.x, self.origin.x, self.inv_cell, self.nx),
            Self::coord(p.y, self.origin.y, self.inv_cell, self.ny),
        )
    }

    /// [`Self::cell_of`]'s lane twin for four points, as row-major indices: in each
    /// lane whose point lies strictly inside the grid's span of truncation (`0 < f <
    /// n - 1` on both axes, where `coord` truncates), the index of `cell_of`'s cell;
    /// `None` where `cell_of` would clamp, or the point is not finite.
    #[inline]
    pub fn inner_cells_x4(&self, p: Vec2x4) -> [Option<usize>; LANES] {
        let fx = (p.x - f32x4::splat(self.origin.x)) * f32x4::splat(self.inv_cell);
        let fy = (p.y - f32x4::splat(self.origin.y)) * f32x4::splat(self.inv_cell);
        let inside = fx.simd_gt(f32x4::ZERO)
            & fx.simd_lt(f32x4::splat((self.nx - 1) as f32))
            & fy.simd_gt(f32x4::ZERO)
            & fy.simd_lt(f32x4::splat((self.ny - 1) as f32));
        let mask = inside.to_bitmask();
        let (ix, iy) = (
            fx.fast_trunc_int().to_array(),
            fy.fast_trunc_int().to_array(),
        );
        std::array::from_fn(|i| {
            (mask & (1 << i) != 0).then(|| self.index(ix[i] as u32, iy[i] as u32))
        })
    }

    /// Row-major index of a cell.
    #[inline]
    pub fn index(&self, ix: u32, iy: u32) -> usize {
        iy as usize * self.nx as usize + ix as usize
    }

    /// The cells overlapping the box `lo..hi` (clamped into the grid; a box
    /// beyond a border maps to the border cells). `None` for an inverted or NaN box.
    pub fn range(&self, lo: Vec2, hi: Vec2) -> Option<CellRange> {
        if !(lo.x <= hi.x && lo.y <= hi.y) {
            return None;
        }
        let (x0, y0) = self.cell_of(lo);
        let (x1, y1) = self.cell_of(hi);
        Some(CellRange { x0, y0, x1, y1 })
    }

    /// Lower x of column `ix`, or -∞ for the first column (which also holds
    /// everything left of the grid).
    fn col_lo(&self, ix: u32) -> f32 {
        if ix == 0 {
            f32::NEG_INFINITY
        } else {
            self.origin.x + ix as f32 * self.cell
        }
    }

    /// Upper x of column `ix`, or +∞ for the last column.
    fn col_hi(&self, ix: u32) -> f32 {
        if ix + 1 >= self.nx {
            f32::INFINITY
        } else {
            self.origin.x + (ix + 1) as f32 * self.cell
        }
    }

    /// Every cell the segment `a..b` passes within `pad` of (a superset: each
    /// column's slab is widened by `pad` and so is the segment's y-extent in it).
    pub fn segment_cells(&self, a: Vec2, b: Vec2, pad: f32, mut push: impl FnMut(usize)) {
        let Some(r) = self.range(a.min(b) - Vec2::splat(pad), a.max(b) + Vec2::splat(pad)) else {
            return;
        };
        let d = b - a;
        for ix in r.x0..=r.x1 {
            let xl = self.col_lo(ix) - pad;
            let xr = self.col_hi(ix) + pad;
            let (t_lo, t_hi) = if d.x == 0.0 {
                if a.x < xl || a.x > xr {
                    continue;
                }
                (0.0, 1.0)
            } else {
                let ta = (xl - a.x) / d.x;
                let tb = (xr - a.x) / d.x;
                let (lo, hi) = if ta <= tb { (ta, tb) } else { (tb, ta) };
                (lo.max(0.0), hi.min(1.0))
            };
            if t_lo > t_hi {
                continue;
            }
            let ya = a.y + d.y * t_lo;
            let yb = a.y + d.y * t_hi;
            let (_, y0) = self.cell_of(Vec2::new(0.0, ya.min(yb) - pad));
            let (_, y1) = self.cell_of(Vec2::new(0.0, ya.max(yb) + pad));
            for iy in y0.max(r.y0)..=y1.min(r.y1) {
                push(self.index(ix, iy));
            }
        }
    }

    /// Visit the cells along the segment `p0..p1` in order (a 2D DDA,
    /// Amanatides–Woo), clipped to the grid. `visit(cell, t_exit)` gets each cell
    /// and the segment parameter where the segment leaves it; returning `true`
    /// stops the walk.
    pub fn walk_segment(&self, p0: Vec2, p1: Vec2, mut visit: impl FnMut(usize, f32) -> bool) {
        if !p0.is_finite() || !p1.is_finite() {
            return;
        }
        let d = p1 - p0;
        let (gmin, gmax) = (self.min(), self.max());
        // Liang–Barsky clip against the grid box.
        let mut t0 = 0.0f32;
        let mut t1 = 1.0f32;
        for (p, dd, lo, hi) in [(p0.x, d.x, gmin.x, gmax.x), (p0.y, d.y, gmin.y, gmax.y)] {
            if dd == 0.0 {
                if p < lo || p > hi {
                    return;
                }
            } else {
                let ta = (lo - p) / dd;
                let tb = (hi - p) / dd;
                let (a, b) = if ta <= tb { (ta, tb) } else { (tb, ta) };
                t0 = t0.max(a);
                t1 = t1.min(b);
            }
        }
        if t0.is_nan() || t1.is_nan() || t0 > t1 {
            return;
        }
        let (mut ix, mut iy) = self.cell_of(p0 + d * t0);
        let axis = |i: u32, p: f32, dd: f32, origin: f32| -> (i32, f32, f32) {
            if dd > 0.0 {
                let boundary = origin + (i + 1) as f32 * self.cell;
                (1, (boundary - p) / dd, self.cell / dd)
            } else if dd < 0.0 {
                let boundary = origin + i as f32 * self.cell;
                (-1, (boundary - p) / dd, -self.cell / dd)
            } else {
                (0, f32::INFINITY, f32::INFINITY)
            }
        };
        let (sx, mut tmx, dtx) = axis(ix, p0.x, d.x, self.origin.x);
        let (sy, mut tmy, dty) = axis(iy, p0.y, d.y, self.origin.y);
        let max_steps = self.nx as usize + self.ny as usize + 2;
        for _ in 0..max_steps {
            let t_exit = tmx.min(tmy).min(t1);
            if visit(self.index(ix, iy), t_exit) || t_exit >= t1 {
                return;
            }
            if tmx < tmy {
                let next = ix as i64 + i64::from(sx);
                if next < 0 || next >= i64::from(self.nx) {
                    return;
                }
                ix = next as u32;
                tmx += dtx;
            } else {
                let next = iy as i64 + i64::from(sy);
                if next < 0 || next >= i64::from(self.ny) {
                    return;
                }
                iy = next as u32;
                tmy += dty;
            }
        }
    }
}

/// A grid of cells listing item ids.
#[derive(Clone, Debug)]
pub(crate) struct CellLists {
    pub shape: CellLayout,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl CellLists {
    /// List each of `count` items in the cells `cells_of(item, push)` pushes.
    /// `cells_of` is called twice per item and must push the same cells both times.
    pub fn build(
        shape: CellLayout,
        count: usize,
        cells_of: impl Fn(usize, &mut dyn FnMut(usize)),
    ) -> Result<Self, SceneError> {
        let too_large = || SceneError::SceneTooLarge {
            count,
            extent: shape.max() - shape.min(),
        };
        let mut counts = vec![0u32; shape.len() + 1];
        let mut total: u64 = 0;
        for i in 0..count {
            cells_of(i, &mut |c| {
                counts[c + 1] += 1;
                total += 1;
            });
        }
        if total > u64::from(u32::MAX) {
            return Err(too_large());
        }
        for c in 1..counts.len() {
            counts[c] += counts[c - 1];
        }
        let starts = counts.clone();
        let mut fill = counts;
        let mut items = vec![0u32; total as usize];
        for i in 0..count {
            let id = u32::try_from(i).map_err(|_| too_large())?;
            cells_of(i, &mut |c| {
                items[fill[c] as usize] = id;
                fill[c] += 1;
            });
        }
        Ok(Self {
            shape,
            starts,
            items,
        })
    }

    /// An empty grid of one cell.
    pub fn empty() -> Self {
        Self {
            shape: CellLayout::unit(),
            starts: vec![0, 0],
            items: Vec::new(),
        }
    }

    /// The ids listed in cell `c`.
    #[inline]
    pub fn cell_items(&self, c: usize) -> &[u32] {
        match (self.starts.get(c), self.starts.get(c + 1)) {
            (Some(&s), Some(&e)) => self.items.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Items of the consecutive cells `c0..=c1` (one band of a row-major range), cell
    /// after cell: an item listed in several of them appears once per cell.
    pub fn span_items(&self, c0: usize, c1: usize) -> &[u32] {
        match (
            self.starts.get(c0),
            c1.checked_add(1).and_then(|e| self.starts.get(e)),
        ) {
            (Some(&s), Some(&e)) => self.items.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Total number of (cell, item) entries.
    pub fn entries(&self) -> usize {
        self.items.len()
    }
}

/// A cap on the number of cells for `count` items: four per item, at least 1024,
/// at most 4 Mi.
pub(crate) fn max_cells_for(count: usize) -> u32 {
    (count.saturating_mul(4)).clamp(1024, 1 << 22) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{agent_rng, uniform};

    #[test]
    fn fit_respects_cell_cap() {
        let s = CellLayout::fit(Vec2::ZERO, Vec2::new(1000.0, 10.0), 0.1, 1024).unwrap();
        assert!(s.len() <= 1024);
        assert!(s.max().x >= 1000.0 && s.max().y >= 10.0);
        assert!(CellLayout::fit(Vec2::ZERO, Vec2::new(f32::INFINITY, 1.0), 1.0, 10).is_none());
        // A degenerate (zero-height) box still gets one row.
        let s = CellLayout::fit(Vec2::ZERO, Vec2::new(10.0, 0.0), 1.0, 1024).unwrap();
        assert_eq!(s.len(), 10);
    }

    #[test]
    fn inner_cells_x4_agree_with_cell_of() {
        // A grid whose origin and cell are not round, points over it and beyond,
        // on cell borders, on its first and last truncation bounds, and not finite.
        let s = CellLayout::fit(Vec2::new(-3.3, 1.7), Vec2::new(41.0, 20.9), 0.7, 4096).unwrap();
        let (lo, hi, c) = (s.min(), s.max(), s.cell());
        let mut points = vec![
            lo,
            hi,
            lo + Vec2::splat(c),
            hi - Vec2::splat(c),
            lo + Vec2::new(c, 2.5 * c),
            Vec2::new(f32::NAN, 3.0),
            Vec2::new(5.0, f32::INFINITY),
            Vec2::new(-1e30, 1e30),
        ];
        let mut rng = agent_rng(17, 0);
        for _ in 0..4000 {
            let (u, v) = (uniform(&mut rng, -0.1, 1.1), uniform(&mut rng, -0.1, 1.1));
            points.push(lo + (hi - lo) * Vec2::new(u, v));
        }
        let mut inner = 0;
        for four in points.chunks_exact(LANES) {
            let four: [Vec2; LANES] = four.try_into().unwrap();
            for (p, cell) in four.iter().zip(s.inner_cells_x4(Vec2x4::load(&four))) {
                let f = (*p - lo) / c;
                let strictly_inside =
                    f.x > 0.0 && f.y > 0.0 && f.x < (s.nx - 1) as f32 && f.y < (s.ny - 1) as f32;
                if let Some(cell) = cell {
                    let (ix, iy) = s.cell_of(*p);
                    assert_eq!(cell, s.index(ix, iy), "{p}");
                    inner += 1;
                } else {
                    assert!(!strictly_inside || !p.is_finite(), "{p} left out");
                }
            }
        }
        // Most of the random points are inside: the twin does not just say `None`.
        assert!(inner > 2500, "{inner}");
    }

    #[test]
    fn cell_of_clamps() {
        let s = CellLayout::fit(Vec2::ZERO, Vec2::splat(10.0), 1.0, 1024).unwrap();
        assert_eq!(s.cell_of(Vec2::new(-5.0, 3.5)), (0, 3));
        assert_eq!(s.cell_of(Vec2::new(50.0, f32::NAN)), (9, 0));
    }

    /// `coord` against the floor clamped into the grid, worked in `f64`: on and
    /// beside every cell border (the values whose truncation and floor could part),
    /// below 0 and -1, past the last cell, huge, infinite and NaN, for grids of one
    /// cell to the most an axis may have.
    #[test]
    fn coord_is_the_clamped_floor() {
        let floor = |v: f32, origin: f32, inv: f32, n: u32| {
            let f = f64::from((v - origin) * inv).floor();
            if f.is_nan() {
                0
            } else {
                f.clamp(0.0, f64::from(n - 1)) as u32
            }
        };
        let mut checked = 0;
        for (origin, inv, n) in [
            (0.0, 1.0, 1),
            (0.0, 1.0, 10),
            (-3.25, 0.4, 37),
            (1e4, 2.0, 4096),
            (-1e6, 1e-3, i32::MAX as u32),
        ] {
            let cell = 1.0 / inv;
            let ks = (-3..40).chain([n as i64 - 2, n as i64 - 1, n as i64, n as i64 + 1]);
            for k in ks {
                let v = origin + k as f32 * cell;
                for v in [v, v.next_down(), v.next_up(), v + 0.5 * cell] {
                    assert_eq!(
                        CellLayout::coord(v, origin, inv, n),
                        floor(v, origin, inv, n),
                        "v {v} origin {origin} inv {inv} n {n}"
                    );
                    checked += 1;
                }
            }
            for v in [
                f32::MAX,
                f32::MIN,
                f32::INFINITY,
                -f32::INFINITY,
                f32::NAN,
                3e9,
                -3e9,
            ] {
                assert_eq!(
                    CellLayout::coord(v, origin, inv, n),
                    floor(v, origin, inv, n)
                );
            }
        }
        assert!(checked > 800);
    }

    #[test]
    fn walk_matches_segment_cells_on_a_diagonal() {
        let s = CellLayout::fit(Vec2::ZERO, Vec2::splat(10.0), 1.0, 1024).unwrap();
        let (a, b) = (Vec2::new(0.5, 0.5), Vec2::new(9.5, 3.2));
        let mut walked = Vec::new();
        let mut last_t = -1.0;
        s.walk_segment(a, b, |c, t| {
            assert!(t >= last_t);
            last_t = t;
            walked.push(c);
            false
        });
        let mut raster = Vec::new();
        s.segment_cells(a, b, 0.0, |c| raster.push(c));
        for c in &walked {
            assert!(raster.contains(c), "walked cell {c} not rasterised");
        }
        assert_eq!(walked.first(), Some(&s.index(0, 0)));
        assert_eq!(walked.last(), Some(&s.index(9, 3)));
    }
}
