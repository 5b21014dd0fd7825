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
    /// The grid's map from a coordinate to its column and band (with
    /// [`CellFrame::Grid`]).
    pub axes: [Axis; 2],
    /// The over-full cells' finer cells ([`refine`](Self::refine)), by cell id; empty
    /// for most fills.
    pub fine: Vec<Fine>,
    /// Entry starts of the finer cells: [`FINE`]² + 1 per over-full cell.
    pub fine_starts: Vec<u32>,
    /// Scratch of [`refine`](Self::refine) (boxed: most tables never use it).
    fine_tmp: Box<FineScratch>,
}

/// Finer cells across an over-full cell (its sample of [`MAX_PER_CELL`] entries, about
/// four to a finer cell when spread evenly).
///
/// [`MAX_PER_CELL`]: super::grid::MAX_PER_CELL
pub(super) const FINE: usize = 8;

/// An over-full cell's finer cells: [`FINE`] × [`FINE`] squares over its entries'
/// bounding box, its entries reordered by them (band-major), so that a narrow query
/// inside a pile reads the few finer cells it reaches instead of the whole cell.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fine {
    /// The cell's id.
    pub cell: u32,
    /// Lower corner of the entries' bounding box, and finer cells per unit.
    pub origin: Vec2,
    pub inv: f32,
    /// Index of the cell's first finer start in `fine_starts`.
    pub at: u32,
    /// Every entry of the cell on one point (`origin`), stored in ascending rows: a
    /// crowd spawned on one spot ([`super::scan::scan_cells`] answers a query standing
    /// on it without scanning).
    pub point: bool,
}

impl Fine {
    /// Finer cell coordinate of `v` along an axis from `o`: saturating truncation (NaN
    /// and below to 0), clamped to the last. Monotone in `v`: the same function places
    /// the entries and bounds a query.
    #[inline]
    fn coord(&self, v: f32, o: f32) -> usize {
        chunk_coord(v, o, self.inv, FINE)
    }

    /// Entries per unit of area times π in the 3 × 3 finer cells around `p` (their
    /// full area, clamped ones included: an estimate).
    pub fn density_around(&self, table: &CellTable, p: Vec2) -> f32 {
        if self.inv == 0.0 {
            return 0.0;
        }
        let (x, y) = (
            self.coord(p.x, self.origin.x),
            self.coord(p.y, self.origin.y),
        );
        let (x0, x1) = (x.saturating_sub(1), (x + 1).min(FINE - 1));
        let (y0, y1) = (y.saturating_sub(1), (y + 1).min(FINE - 1));
        let count: usize = (y0..=y1)
            .map(|y| {
                let (s, e) = table.fine_span(self, y, x0, x1);
                e - s
            })
            .sum();
        let cells = ((x1 - x0 + 1) * (y1 - y0 + 1)) as f32;
        count as f32 * std::f32::consts::PI * self.inv * self.inv / cells
    }

    /// The finer cells `(x0, x1, y0, y1)` (inclusive) holding every entry within
    /// `reach` of `p`.
    #[inline]
    pub fn window(&self, p: Vec2, reach: f32) -> (usize, usize, usize, usize) {
        (
            self.coord(p.x - reach, self.origin.x),
            self.coord(p.x + reach, self.origin.x),
            self.coord(p.y - reach, self.origin.y),
            self.coord(p.y + reach, self.origin.y),
        )
    }
}

/// Reused buffers of [`CellTable::refine`].
#[derive(Default)]
struct FineScratch {
    of: Vec<u8>,
    order: Vec<u32>,
    xs: Vec<f32>,
    ys: Vec<f32>,
    ids: Vec<u32>,
    unit_xs: Vec<f32>,
    unit_ys: Vec<f32>,
}

/// How a table maps a position to its cell: the function that placed its entries,
/// so that a window computed with it holds every entry in the queried box.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum CellFrame {
    /// The grid's: along each axis, `f64` offsets from the start of the run of cells
    /// the coordinate falls in ([`CellTable::axes`]).
    Grid,
    /// A chunk's: `f32` offsets from its square's corner, truncated (saturating) and
    /// clamped.
    Chunk { origin: Vec2, inv: f32 },
    /// Not filled yet.
    #[default]
    None,
}

impl CellTable {
    /// Make room in every buffer for as much as `other`'s holds
    /// ([`super::BatchNeighbours::reserve_like`]).
    pub(super) fn reserve_like(&mut self, other: &Self) {
        use super::reserve_like;
        reserve_like(&mut self.xs, &other.xs);
        reserve_like(&mut self.ys, &other.ys);
        reserve_like(&mut self.ids, &other.ids);
        reserve_like(&mut self.unit_xs, &other.unit_xs);
        reserve_like(&mut self.unit_ys, &other.unit_ys);
        reserve_like(&mut self.starts, &other.starts);
        reserve_like(&mut self.fine, &other.fine);
        reserve_like(&mut self.fine_starts, &other.fine_starts);
        let (t, o) = (&mut self.fine_tmp, &other.fine_tmp);
        reserve_like(&mut t.of, &o.of);
        reserve_like(&mut t.order, &o.order);
        reserve_like(&mut t.xs, &o.xs);
        reserve_like(&mut t.ys, &o.ys);
        reserve_like(&mut t.ids, &o.ids);
        reserve_like(&mut t.unit_xs, &o.unit_xs);
        reserve_like(&mut t.unit_ys, &o.unit_ys);
    }

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
            CellFrame::Grid => Some((
                self.axes[0].cell(f64::from(lo.x)),
                self.axes[0].cell(f64::from(hi.x)),
                self.axes[1].cell(f64::from(lo.y)),
                self.axes[1].cell(f64::from(hi.y)),
            )),
            CellFrame::Chunk { origin, inv } => {
                let at = |v: f32, o: f32, n: usize| chunk_coord(v, o, inv, n);
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
        self.fine.clear();
        self.fine_starts.clear();
    }

    /// Give each of `cells` (ids, ascending: the over-full cells, which store a sample
    /// of their rows) [`FINE`] × [`FINE`] finer cells over its entries' bounding box,
    /// reordering its entries by them (a counting sort, stable). The cell keeps the
    /// same entries, so every scan of whole cells finds the same rows; a narrow scan
    /// reads only the finer cells it reaches ([`Self::fine_of`]).
    pub fn refine(&mut self, cells: &[u32]) {
        self.fine.clear();
        self.fine_starts.clear();
        let t = &mut *self.fine_tmp;
        for &cell in cells {
            let Some(&[s, e]) = self.starts.get(cell as usize..cell as usize + 2) else {
                continue;
            };
            let (s, e) = (s as usize, e as usize);
            let (xs, ys) = (&self.xs[s..e], &self.ys[s..e]);
            // The finite entries' box (a k-d tree's chunk may bin a non-finite
            // candidate anywhere: it never matches, and lands in a corner here).
            let (lo, hi, finite) = xs.iter().zip(ys).map(|(&x, &y)| Vec2::new(x, y)).fold(
                (
                    Vec2::splat(f32::INFINITY),
                    Vec2::splat(f32::NEG_INFINITY),
                    0,
                ),
                |(lo, hi, n), p| {
                    if p.is_finite() {
                        (lo.min(p), hi.max(p), n + 1)
                    } else {
                        (lo, hi, n)
                    }
                },
            );
            let point = finite == e - s && lo == hi;
            let extent = (hi - lo).max_element();
            let inv = FINE as f32 / extent;
            let fine = Fine {
                cell,
                origin: if lo.is_finite() { lo } else { Vec2::ZERO },
                // All entries on one point (or none finite): one finer cell holds them.
                inv: if inv.is_finite() { inv } else { 0.0 },
                at: self.fine_starts.len() as u32,
                point,
            };
            t.of.clear();
            t.of.extend(xs.iter().zip(ys).map(|(&x, &y)| {
                (fine.coord(y, fine.origin.y) * FINE + fine.coord(x, fine.origin.x)) as u8
            }));
            let mut counts = [0u32; FINE * FINE + 1];
            for &k in &t.of {
                counts[k as usize + 1] += 1;
            }
            let mut acc = s as u32;
            for c in &mut counts {
                acc += *c;
                *c = acc;
            }
            // counts[k] is now the start of finer cell k (counts[0] = s).
            self.fine_starts.extend_from_slice(&counts);
            let n = e - s;
            let unit = self.has_unit_vels;
            for (buf, from) in [(&mut t.xs, &self.xs), (&mut t.ys, &self.ys)] {
                buf.clear();
                buf.extend_from_slice(&from[s..e]);
            }
            t.ids.clear();
            t.ids.extend_from_slice(&self.ids[s..e]);
            if unit {
                t.unit_xs.clear();
                t.unit_xs.extend_from_slice(&self.unit_xs[s..e]);
                t.unit_ys.clear();
                t.unit_ys.extend_from_slice(&self.unit_ys[s..e]);
            }
            // The order the entries are placed in: as stored, except a point cell not
            // in ascending rows (a k-d tree's chunk bins its candidates in the tree's
            // order; the grid's are ascending already), which goes by row: its entries
            // share one finer cell, so they land in that order, and the nearest to a
            // query on the point are the first.
            t.order.clear();
            t.order.extend(0..n as u32);
            if point && !t.ids.is_sorted() {
                t.order.sort_unstable_by_key(|&i| t.ids[i as usize]);
            }
            let mut next = counts;
            for &i in &t.order {
                let i = i as usize;
                let k = t.of[i] as usize;
                let at = next[k] as usize;
                next[k] += 1;
                self.xs[at] = t.xs[i];
                self.ys[at] = t.ys[i];
                self.ids[at] = t.ids[i];
                if unit {
                    self.unit_xs[at] = t.unit_xs[i];
                    self.unit_ys[at] = t.unit_ys[i];
                }
            }
            self.fine.push(fine);
        }
    }

    /// The finer cells of the cell `cell`, when it has them.
    #[inline]
    pub fn fine_of(&self, cell: usize) -> Option<&Fine> {
        let i = self
            .fine
            .binary_search_by_key(&(cell as u32), |f| f.cell)
            .ok()?;
        self.fine.get(i)
    }

    /// The entries of finer cells `x0..=x1` of finer band `y` of `fine`: one span.
    #[inline]
    pub fn fine_span(&self, fine: &Fine, y: usize, x0: usize, x1: usize) -> (usize, usize) {
        let at = fine.at as usize + y * FINE;
        (
            self.fine_starts[at + x0] as usize,
            self.fine_starts[at + x1 + 1] as usize,
        )
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

/// Most runs of cells along one axis of the grid ([`Axis`]).
pub(super) const MAX_RUNS: usize = 16;

/// Two runs of cells are made only across an empty stretch wider than this many
/// cell sides.
pub(super) const RUN_GAP: f64 = 4.0;

/// How the grid maps a coordinate along one axis to its cell. Most grids have one run
/// of cells, one side wide each, from the lower corner on ([`cell_coord`]). A crowd in
/// several places far apart (towns on a large map) gets a run over each stretch of the
/// axis it occupies and one cell for each empty stretch between two runs, whatever its
/// width: cells of about the neighbour radius over the crowds, instead of cells
/// stretched until a bounded number of them covers the empty land between.
///
/// Monotone, so a window of cells computed for a box holds every entry in it; and,
/// since every empty stretch is wider than [`RUN_GAP`] sides, two coordinates are never
/// more cells apart than along one uniform run: a row's neighbours lie in the cells
/// around its own, as many as the reach in sides.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Axis {
    /// Per run: its lower coordinate, its first cell, and the last cell a coordinate
    /// from its start on may take (the empty stretch's cell after it; for the last
    /// run, the last cell).
    start: [f64; MAX_RUNS],
    first: [f64; MAX_RUNS],
    last: [f64; MAX_RUNS],
    /// Runs in use (at least one once made).
    runs: usize,
    /// Cells per unit.
    inv: f64,
}

impl Axis {
    /// One run of `cells` cells of `1 / inv` from `origin`.
    pub fn uniform(origin: f64, inv: f64, cells: usize) -> Self {
        let mut a = Self {
            runs: 1,
            inv,
            ..Self::default()
        };
        a.start[0] = origin;
        a.last[0] = last_cell(cells);
        a
    }

    /// Runs of cells `1 / inv` wide over `stretches` (ascending, disjoint, each
    /// `(from, to)`, at most [`MAX_RUNS`]; the caller keeps them more than
    /// [`RUN_GAP`] cells apart), with one cell between two runs.
    pub fn runs(stretches: &[(f64, f64)], inv: f64) -> Self {
        let mut a = Self {
            inv,
            ..Self::default()
        };
        let mut next = 0.0;
        for (k, &(from, to)) in stretches.iter().take(MAX_RUNS).enumerate() {
            let cells = ((to - from) * inv).floor().max(0.0) + 1.0;
            a.start[k] = from;
            a.first[k] = next;
            // The last run's last cell, or the empty stretch's cell after a run.
            a.last[k] = next + cells;
            next += cells + 1.0;
            a.runs = k + 1;
        }
        if a.runs > 0 {
            a.last[a.runs - 1] -= 1.0;
        }
        a
    }

    /// Cells along the axis (as a float: the runs of an axis far wider than its
    /// cells may hold more than any integer count of cells).
    pub fn cells(&self) -> f64 {
        match self.runs {
            0 => 0.0,
            k => self.last[k - 1] + 1.0,
        }
    }

    /// The cell of `v`: in the last run starting at or below it (the first run for
    /// anything lower, or NaN), clamped as [`cell_coord`] clamps.
    #[inline]
    pub fn cell(&self, v: f64) -> usize {
        if self.runs <= 1 {
            cell_coord(v, self.start[0], self.inv, self.last[0])
        } else {
            self.cell_in_runs(v)
        }
    }

    /// [`Self::cell`] with more than one run (out of line: most grids have one): the
    /// run's first cell plus the cell within it, clamped as one run's.
    #[inline(never)]
    fn cell_in_runs(&self, v: f64) -> usize {
        // Runs starting at or below `v` (none for NaN).
        let k = self.start[1..self.runs].partition_point(|&s| s <= v);
        let within = cell_coord(v, self.start[k], self.inv, self.last[k] - self.first[k]);
        self.first[k] as usize + within
    }
}

/// Cell coordinate of `v` along an axis from `origin`, at `inv` cells per unit, of
/// `n >= 1` cells: truncation (saturating, NaN to 0), then clamping into `0..n`.
/// Monotone in `v`, so a row inside a queried interval is in the interval's cells.
/// A chunk's cells ([`CellFrame::Chunk`]) and the finer cells ([`Fine`]) use it; the
/// grid's cells use [`cell_coord`].
#[inline]
pub(super) fn chunk_coord(v: f32, origin: f32, inv: f32, n: usize) -> usize {
    (((v - origin) * inv) as i32).max(0).min(n as i32 - 1) as usize
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

    #[test]
    fn runs_of_cells_hand_worked() {
        // Cells 1 wide over 0..=10 (cells 0-10), the empty stretch to 100 (cell 11),
        // then 100..=105 (cells 12-17).
        let a = Axis::runs(&[(0.0, 10.0), (100.0, 105.0)], 1.0);
        assert_eq!(a.cells(), 18.0);
        let cells: Vec<usize> = [
            f64::NAN,
            -5.0,
            0.0,
            9.5,
            10.0,
            10.99,
            11.0,
            50.0,
            99.9,
            100.0,
            104.2,
            105.0,
            1e9,
        ]
        .iter()
        .map(|&v| a.cell(v))
        .collect();
        assert_eq!(cells, [0, 0, 0, 9, 10, 10, 11, 11, 11, 12, 16, 17, 17]);
        // One run is the plain clamped offset.
        let u = Axis::uniform(2.0, 0.5, 4);
        assert_eq!(u.cells(), 4.0);
        for v in [-1.0, 2.0, 3.9, 4.0, 8.0, 9.9, 10.0, 1e20, f64::NAN] {
            assert_eq!(u.cell(v), cell_coord(v, 2.0, 0.5, 3.0), "{v}");
        }
    }

    #[test]
    fn runs_are_monotone_and_never_more_cells_apart_than_one_run() {
        // Random runs more than RUN_GAP cells apart, random pairs of coordinates: the
        // cells never decrease, and are at most `floor(d / side) + 1` apart for
        // coordinates `d` apart (so a row's neighbours lie in its 3 x 3 cells).
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            let side = 0.5 + 4.0 * next();
            let runs = 1 + (next() * MAX_RUNS as f64) as usize;
            let mut stretches = Vec::new();
            let mut at = -1e4 * next();
            for _ in 0..runs.min(MAX_RUNS) {
                let to = at + 50.0 * side * next();
                stretches.push((at, to));
                at = to + (RUN_GAP + 0.01 + 1e3 * next()) * side;
            }
            let a = Axis::runs(&stretches, 1.0 / side);
            let (lo, hi) = (stretches[0].0 - 10.0 * side, at + 10.0 * side);
            for _ in 0..500 {
                let v1 = lo + (hi - lo) * next();
                let v2 = v1 + 3.0 * side * next();
                let (c1, c2) = (a.cell(v1), a.cell(v2));
                assert!(c1 <= c2, "{v1} -> {c1}, {v2} -> {c2}, {stretches:?}");
                let most = ((v2 - v1) / side).floor() as usize + 1;
                assert!(c2 - c1 <= most, "{v1} -> {c1}, {v2} -> {c2}, {stretches:?}");
                assert!((c2 as f64) < a.cells());
            }
        }
    }

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
    fn refining_a_cell_orders_its_entries_by_finer_cell() {
        // One cell (id 4 of a 1 × 1 table) with four entries on the corners of the
        // unit square: finer cells are 1/8 wide over that box, so (0, 0) is in finer
        // cell 0, (1, 0) in 7 (clamped to the last column), (0, 1) in 56 and (1, 1)
        // in 63. Stored as (1, 1), (0, 1), (1, 0), (0, 0), they come out in that
        // order of finer cells, unit velocities alongside.
        let mut t = CellTable {
            cols: 1,
            bands: 1,
            ..CellTable::default()
        };
        t.starts = vec![0, 0, 0, 0, 0, 4, 4, 4, 4, 4];
        t.size_entries(4);
        t.size_unit_vels(true);
        for (i, (x, y)) in [(1.0, 1.0), (0.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
            .into_iter()
            .enumerate()
        {
            (t.xs[i], t.ys[i], t.ids[i]) = (x, y, 10 + i as u32);
            t.unit_xs[i] = i as f32;
        }
        t.refine(&[4]);
        assert_eq!(t.ids[..4], [13, 12, 11, 10]);
        assert_eq!(t.unit_xs[..4], [3.0, 2.0, 1.0, 0.0]);
        let fine = *t.fine_of(4).unwrap();
        assert_eq!((fine.origin, fine.inv), (Vec2::ZERO, 8.0));
        assert_eq!(t.fine_span(&fine, 0, 0, 7), (0, 2));
        assert_eq!(t.fine_span(&fine, 0, 1, 7), (1, 2));
        assert_eq!(t.fine_span(&fine, 7, 0, 0), (2, 3));
        assert_eq!(t.fine_span(&fine, 7, 0, 7), (2, 4));
        // A query box around (1, 1) of reach 0.1 reaches only the last finer cell.
        assert_eq!(fine.window(Vec2::ONE, 0.1), (7, 7, 7, 7));
        assert!(t.fine_of(5).is_none());
        t.clear();
        assert!(t.fine.is_empty() && t.fine_starts.is_empty());
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
