//! [`CellTable`]: entries binned into square cells, stored by cell with an empty border
//! one cell wide. The grid index keeps every row in one; a k-d tree's chunk candidates
//! are binned into one per chunk ([`super::BatchNeighbours::gather`]). Both are scanned
//! by the same code ([`super::scan`]).

use glam::Vec2;

use super::GROUP;

/// Marks a row that is in no cell (a non-finite coordinate): it has no neighbour.
pub(super) const NO_CELL: u32 = u32::MAX;

/// Entries (x, y, row id and, when stored, the row's unit velocity, in separate arrays)
/// ordered by cell, row-major, with an empty border one cell wide around the `cols` ×
/// `bands` cells, so that the 3 × 3 cells around any cell exist without clamping.
///
/// The cell in column `c` of band `b` has the id `(b + 1) * (cols + 2) + c + 1`; its
/// entries are `starts[id]..starts[id + 1]`, and the last start is the entry count. The
/// cells `c0..=c1` of one band are therefore one contiguous *span* of entries,
/// `starts[id(c0, b)]..starts[id(c1, b) + 1]`. Every entry array is followed by
/// [`GROUP`] never-matching entries (NaN coordinates, id `u32::MAX`, zero unit
/// velocity), so that scans in whole groups of four stay in bounds.
#[derive(Default)]
pub(super) struct CellTable {
    pub xs: Vec<f32>,
    pub ys: Vec<f32>,
    pub ids: Vec<u32>,
    /// Per entry, when [`has_unit_vels`](Self::has_unit_vels): the row's unit velocity.
    pub unit_xs: Vec<f32>,
    pub unit_ys: Vec<f32>,
    /// Whoever fills the table says whether `unit_xs` / `unit_ys` hold this fill's.
    pub has_unit_vels: bool,
    /// Start of each cell's entries, by cell id, then the entry count.
    pub starts: Vec<u32>,
    /// Cells across and bands of cells (0 when the table is empty), border excluded.
    pub cols: usize,
    pub bands: usize,
    /// The cells' side (units).
    pub side: f32,
    /// How positions map to cells.
    pub frame: CellFrame,
}

/// How a table maps a position to its cell: the function that placed its entries,
/// so that a window computed with it holds every entry in the queried box.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum CellFrame {
    /// The grid's: `f64` offsets from its lower corner ([`cell_coord`]).
    Grid { origin: [f64; 2], inv: f64 },
    /// A chunk's: `f32` offsets from its square's corner, truncated (saturating) and
    /// clamped.
    Chunk { origin: Vec2, inv: f32 },
    /// Not filled yet.
    #[default]
    None,
}

impl CellTable {
    /// Row stride of the cell ids (the border included).
    #[inline]
    pub fn stride(&self) -> usize {
        self.cols + 2
    }

    /// The id of the cell in column `c` of band `b`.
    #[inline]
    pub fn cell_id(&self, c: usize, b: usize) -> usize {
        (b + 1) * self.stride() + c + 1
    }

    /// Cells stored, the border included (0 for an empty table).
    #[inline]
    pub fn cells(&self) -> usize {
        if self.cols == 0 {
            0
        } else {
            self.stride() * (self.bands + 2)
        }
    }

    /// Number of entries.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.starts.last().map_or(0, |&n| n as usize)
    }

    /// The entries of cells `c0..=c1` of band `b`: one contiguous span.
    #[inline]
    pub fn span(&self, b: usize, c0: usize, c1: usize) -> (usize, usize) {
        (
            self.starts[self.cell_id(c0, b)] as usize,
            self.starts[self.cell_id(c1, b) + 1] as usize,
        )
    }

    /// The three spans (one per band) of the 3 × 3 cells around the cell `cell`, read
    /// at fixed offsets from its id (the border makes the cells around any inner cell
    /// exist): the spans [`window`](Self::window) and [`span`](Self::span) give for a
    /// reach of one cell, without decoding the id. `None` for [`NO_CELL`] (or any id
    /// that is not an inner cell's).
    #[inline(always)]
    pub fn spans3(&self, cell: u32) -> Option<[(usize, usize); 3]> {
        let c = cell as usize;
        let stride = self.stride();
        let (Some(above), Some(here), Some(below)) = (
            c.checked_sub(stride + 1)
                .and_then(|a| self.starts.get(a..a + 4)),
            c.checked_sub(1).and_then(|a| self.starts.get(a..a + 4)),
            self.starts.get(c + stride - 1..c + stride + 3),
        ) else {
            return None;
        };
        let span = |s: &[u32]| (s[0] as usize, s[3] as usize);
        Some([span(above), span(here), span(below)])
    }

    /// The cells `(c0, c1, b0, b1)` (inclusive: columns, then bands) within `k` cells of
    /// the cell `cell`, clamped to the table. `None` for [`NO_CELL`] or an empty table.
    #[inline]
    pub fn window(&self, cell: u32, k: u32) -> Option<(usize, usize, usize, usize)> {
        if cell == NO_CELL || self.cols == 0 {
            return None;
        }
        // 32-bit division: cell ids fit `u32` (the cell count is bounded below it).
        let stride = self.stride() as u32;
        let (c, b) = (
            (cell % stride).checked_sub(1)?,
            (cell / stride).checked_sub(1)?,
        );
        let (c, b, k) = (c as usize, b as usize, k as usize);
        if c >= self.cols || b >= self.bands {
            return None;
        }
        Some((
            c.saturating_sub(k),
            c.saturating_add(k).min(self.cols - 1),
            b.saturating_sub(k),
            b.saturating_add(k).min(self.bands - 1),
        ))
    }

    /// The cells `(c0, c1, b0, b1)` (inclusive: columns, then bands) that hold every
    /// entry within `reach` of `p` (by the function that placed them). `None` for an
    /// empty table or a non-finite box.
    #[inline]
    pub fn window_around(&self, p: Vec2, reach: f32) -> Option<(usize, usize, usize, usize)> {
        if self.cols == 0 {
            return None;
        }
        let (lo, hi) = (p - Vec2::splat(reach), p + Vec2::splat(reach));
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        match self.frame {
            CellFrame::Grid { origin, inv } => {
                let (tx, ty) = (last_cell(self.cols), last_cell(self.bands));
                let at = |v: f32, o: f64, top: f64| cell_coord(f64::from(v), o, inv, top);
                Some((
                    at(lo.x, origin[0], tx),
                    at(hi.x, origin[0], tx),
                    at(lo.y, origin[1], ty),
                    at(hi.y, origin[1], ty),
                ))
            }
            CellFrame::Chunk { origin, inv } => {
                let at = |v: f32, o: f32, n: usize| {
                    (((v - o) * inv) as i32).max(0).min(n as i32 - 1) as usize
                };
                Some((
                    at(lo.x, origin.x, self.cols),
                    at(hi.x, origin.x, self.cols),
                    at(lo.y, origin.y, self.bands),
                    at(hi.y, origin.y, self.bands),
                ))
            }
            CellFrame::None => None,
        }
    }

    /// The entry arrays: x, y and row id.
    #[inline]
    pub fn entries(&self) -> (&[f32], &[f32], &[u32]) {
        (&self.xs, &self.ys, &self.ids)
    }

    /// The entries' unit velocities, when this fill stored them.
    #[inline]
    pub fn unit_vels(&self) -> Option<(&[f32], &[f32])> {
        self.has_unit_vels
            .then_some((&self.unit_xs[..], &self.unit_ys[..]))
    }

    /// Size the entry arrays for `m` entries and their padding, without clearing what
    /// the fill will overwrite, and write the padding.
    pub fn size_entries(&mut self, m: usize) {
        let len = m + GROUP;
        for v in [&mut self.xs, &mut self.ys] {
            if v.len() < len {
                v.resize(len, 0.0);
            }
            v.truncate(len);
            v[m..].fill(f32::NAN);
        }
        if self.ids.len() < len {
            self.ids.resize(len, 0);
        }
        self.ids.truncate(len);
        self.ids[m..].fill(u32::MAX);
    }

    /// Size the unit-velocity arrays like the entries (zero padding), or empty them.
    pub fn size_unit_vels(&mut self, stored: bool) {
        let len = self.ids.len();
        self.has_unit_vels = stored;
        for v in [&mut self.unit_xs, &mut self.unit_ys] {
            if stored {
                v.resize(len, 0.0);
                if let Some(pad) = v.get_mut(len.saturating_sub(GROUP)..) {
                    pad.fill(0.0);
                }
            } else {
                v.clear();
            }
        }
    }

    /// Forget the previous fill. The entry arrays keep their length (whoever fills them
    /// next sets it), so that refilling them needs no clearing writes.
    pub fn clear(&mut self) {
        self.starts.clear();
        self.cols = 0;
        self.bands = 0;
        self.has_unit_vels = false;
    }
}

/// The last cell coordinate along an axis of `n >= 1` cells, as the cap of
/// [`cell_coord`].
#[inline]
pub(super) fn last_cell(n: usize) -> f64 {
    (n - 1) as f64
}

/// Cell coordinate of `v` along an axis starting at `origin`, clamped into
/// `0..=top` (`top` from [`last_cell`]). Monotone in `v`, so a row inside a queried
/// interval is in the interval's cells.
#[inline]
pub(super) fn cell_coord(v: f64, origin: f64, inv: f64, top: f64) -> usize {
    // Negative and NaN to 0, the last cell as the cap, then truncation: each step
    // monotone in `v`. The same cells as clamping to `0..=n - 1` first, in fewer
    // instructions; capping before truncating (the cap is a whole number) keeps the
    // conversion a 32-bit one (cell counts fit `u32`).
    let t = (v - origin) * inv;
    let t = if t > 0.0 { t } else { 0.0 };
    // `t` is not NaN here: a plain compare caps it (`min` would also handle NaN).
    let t = if t < top { t } else { top };
    t as u32 as usize
}

/// `unit_xs[i]`, `unit_ys[i]`: the unit velocity of row `ids[i]` among `unit_vels` (zero
/// for an id past them: the never-matching padding).
pub(super) fn copy_unit_vels(
    ids: &[u32],
    unit_vels: &[Vec2],
    unit_xs: &mut [f32],
    unit_ys: &mut [f32],
) {
    for ((ux, uy), &id) in unit_xs.iter_mut().zip(unit_ys.iter_mut()).zip(ids) {
        let d = unit_vels.get(id as usize).copied().unwrap_or_default();
        (*ux, *uy) = (d.x, d.y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 × 2 table with one entry per cell, ids 10, 11, ...
    fn table() -> CellTable {
        let mut t = CellTable {
            cols: 3,
            bands: 2,
            ..CellTable::default()
        };
        let mut n = 0u32;
        for id in 0..t.cells() {
            t.starts.push(n);
            let stride = t.stride();
            let (c, b) = (id % stride, id / stride);
            if (1..=3).contains(&c) && (1..=2).contains(&b) {
                n += 1;
            }
        }
        t.starts.push(n);
        t.size_entries(n as usize);
        for i in 0..n as usize {
            t.ids[i] = 10 + i as u32;
        }
        t
    }

    #[test]
    fn spans_of_the_three_by_three_cells_equal_the_window() {
        let t = table();
        assert_eq!(t.len(), 6);
        for b in 0..t.bands {
            for c in 0..t.cols {
                let cell = t.cell_id(c, b) as u32;
                let (c0, c1, b0, b1) = t.window(cell, 1).unwrap();
                let from_window: Vec<u32> = (b0..=b1)
                    .flat_map(|band| {
                        let (s, e) = t.span(band, c0, c1);
                        t.ids[s..e].to_vec()
                    })
                    .collect();
                let from_spans: Vec<u32> = t
                    .spans3(cell)
                    .unwrap()
                    .iter()
                    .flat_map(|&(s, e)| t.ids[s..e].to_vec())
                    .collect();
                assert_eq!(from_window, from_spans, "cell ({c}, {b})");
            }
        }
        // The middle of the top band sees all six; a corner four.
        assert_eq!(t.window(t.cell_id(1, 0) as u32, 1), Some((0, 2, 0, 1)));
        assert_eq!(t.window(t.cell_id(0, 0) as u32, 1), Some((0, 1, 0, 1)));
        assert_eq!(t.window(t.cell_id(0, 0) as u32, 0), Some((0, 0, 0, 0)));
        assert_eq!(t.spans3(NO_CELL), None);
        assert_eq!(t.window(NO_CELL, 1), None);
        // A border cell is no row's cell.
        assert_eq!(t.window(0, 1), None);
    }

    #[test]
    fn entries_are_padded_and_unit_velocities_follow_the_fill() {
        let mut t = table();
        assert_eq!(t.xs.len(), 6 + GROUP);
        assert!(t.xs[6..].iter().all(|x| x.is_nan()));
        assert!(t.ids[6..].iter().all(|&i| i == u32::MAX));
        assert!(t.unit_vels().is_none());
        t.size_unit_vels(true);
        let (ux, _) = t.unit_vels().unwrap();
        assert_eq!(ux.len(), t.ids.len());
        t.clear();
        assert!(t.unit_vels().is_none());
        assert_eq!(t.cells(), 0);
    }
}
