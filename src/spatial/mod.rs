//! Neighbour search: the spatial index rebuilt every tick, batched per-chunk neighbour
//! gathering, a brute-force oracle and a spatially coherent row order.
//!
//! # Contract
//!
//! A row `j` is a neighbour of row `i` at radius `r` when `j != i` and
//! `d2 <= r * r`, where `d2 = dx * dx + dy * dy` with `dx = x[j] - x[i]`,
//! `dy = y[j] - y[i]`, evaluated in `f32` exactly in that order (see [`dist2`]).
//! Neighbour lists are ordered by `(d2, row)` — a total order, so results never depend
//! on the index kind, on the order candidates were produced in, or on the rayon thread
//! count — and capped to the `cap` first entries.
//!
//! A radius that is negative or not finite is treated as `0` (which still matches rows
//! at exactly the same coordinates). Rows with a non-finite coordinate never match a
//! finite radius whose square is finite. Only the first `u32::MAX` rows are addressed.
//!
//! # Batched search
//!
//! The steering pass walks rows in consecutive chunks of [`CHUNK_ROWS`] (rows kept in
//! [`spatial_order`], along a Hilbert curve, so a chunk is a compact patch).
//!
//! With the grid, [`BatchNeighbours::scan`] reads a row's 3 × 3 cells straight from
//! the grid: three contiguous runs of entries (x, y and row id in separate arrays,
//! ordered by cell), one per band of cells. With the tree, [`BatchNeighbours::gather`]
//! first runs one ball query for the whole chunk (radius plus the chunk's extent
//! around its centre) and bins the candidates by a counting sort into cells a little
//! over one radius wide, laid out the same way; the scan then reads the row's window
//! of those cells.
//!
//! The scan tests four entries at a time (one SSE / NEON vector: squared distances,
//! compare, sign-bit mask) and compacts the matching row ids without branches (the
//! number of matches per group of four is too irregular for a branch predictor). A
//! list within the cap is returned as it is, in scan order; an over-full list is cut
//! to the `cap` nearest by `(d2, row)` ([`BatchNeighbours::neighbours`] returns the
//! same rows sorted by distance).
//!
//! Every superset argument (ball, box, cells) uses a radius padded against rounding
//! and monotone cell functions, so the candidate sets always contain every row that the
//! exact test accepts; the tests compare every path with [`brute_neighbours`].

mod brute;
mod grid;
mod kdtree;
mod order;
mod sort;

use std::ops::Range;

use glam::Vec2;
use rayon::prelude::*;

pub use brute::brute_neighbours;
pub use order::{spatial_order, OrderScratch};

use grid::GridIndex;
use kdtree::KdTreeIndex;

/// Rows per chunk recommended for [`BatchNeighbours::gather`]: with rows in
/// [`spatial_order`] a chunk is a compact patch, and 128 rows measured fewer
/// instructions per agent than 32 or 64 in the flock, circle and city profiles
/// (256 only marginally fewer again, with half as many chunks to share out).
pub const CHUNK_ROWS: usize = 128;

/// Squared distance from `(px, py)` to `(qx, qy)`, in exactly the operation order every
/// neighbour search in this module uses (so all of them agree bit for bit).
#[inline(always)]
#[must_use]
pub fn dist2(px: f32, py: f32, qx: f32, qy: f32) -> f32 {
    let dx = qx - px;
    let dy = qy - py;
    dx * dx + dy * dy
}

/// A radius made safe: negative, NaN and infinite radii become `0`.
#[inline]
#[must_use]
pub fn clean_radius(r: f32) -> f32 {
    if r.is_finite() && r > 0.0 {
        r
    } else {
        0.0
    }
}

/// Widen a search radius so that rounding in any distance evaluation cannot lose a row
/// whose exactly evaluated [`dist2`] is within the unpadded radius.
#[inline]
fn pad(r: f32) -> f32 {
    r * (1.0 + 1e-5) + 1e-12
}

/// Sort key of a match: the squared distance's bits (monotone for non-negative,
/// non-NaN floats) above the row index, so integer order is `(d2, row)` order.
#[inline(always)]
fn key(d2: f32, row: u32) -> u64 {
    (u64::from(d2.to_bits()) << 32) | u64::from(row)
}

/// Sort `keys[..n]` and write the rows of its `cap` first keys into `out`. `keys` may
/// be longer than `n` (and is lengthened to [`sort::SMALL`] if shorter, so that short
/// lists sort in place).
fn finish(keys: &mut Vec<u64>, n: usize, cap: usize, out: &mut Vec<u32>) {
    let n = n.min(keys.len());
    // Truncation keeps the low 32 bits of a key: the row.
    if n <= sort::SMALL {
        if keys.len() < sort::SMALL {
            keys.resize(sort::SMALL, 0);
        }
        if let Ok(head) = <&mut [u64; sort::SMALL]>::try_from(&mut keys[..sort::SMALL]) {
            sort::sort_small(head, n);
        }
        out.extend(keys[..n.min(cap)].iter().map(|&k| k as u32));
    } else {
        let keys = &mut keys[..n];
        let keys = if n > cap {
            keys.select_nth_unstable(cap);
            &mut keys[..cap]
        } else {
            keys
        };
        keys.sort_unstable();
        out.extend(keys.iter().map(|&k| k as u32));
    }
}

/// Number of rows an index can address (`u32::MAX` itself is never a row id).
#[inline]
fn addressable(len: usize) -> usize {
    len.min(u32::MAX as usize)
}

/// Which structure answers neighbour queries. Serde: `"kdtree"` | `"grid"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexKind {
    /// A k-d tree (kiddo's immutable tree), rebuilt from scratch every tick.
    #[default]
    KdTree,
    /// A uniform grid of cells about the largest neighbour radius wide, filled by a
    /// counting sort.
    Grid,
}

/// The fold of [`fold_bounds`] over nothing.
fn empty_bounds() -> (Vec2, Vec2, usize) {
    (
        Vec2::splat(f32::INFINITY),
        Vec2::splat(f32::NEG_INFINITY),
        0,
    )
}

/// Lower and upper corner of the finite positions of `positions`, and how many there
/// are (a position with any non-finite coordinate is left out). Two positions at a
/// time in one 4-lane vector while both are finite; a pair with a non-finite
/// coordinate goes one by one. Minimum and maximum are exact, so the result is the
/// same in any grouping.
fn fold_bounds(positions: &[Vec2]) -> (Vec2, Vec2, usize) {
    use wide::f32x4;
    let one = |(min, max, n): (Vec2, Vec2, usize), p: &Vec2| {
        if p.is_finite() {
            (min.min(*p), max.max(*p), n + 1)
        } else {
            (min, max, n)
        }
    };
    let (pairs, rest) = positions.split_at(positions.len() / 2 * 2);
    let mut lo = f32x4::splat(f32::INFINITY);
    let mut hi = f32x4::splat(f32::NEG_INFINITY);
    let mut acc = empty_bounds();
    for pair in pairs.chunks_exact(2) {
        let v = f32x4::new([pair[0].x, pair[0].y, pair[1].x, pair[1].y]);
        if v.is_finite().all() {
            // Finite lanes: the plain (exact) minimum and maximum.
            lo = lo.fast_min(v);
            hi = hi.fast_max(v);
            acc.2 += 2;
        } else {
            acc = pair.iter().fold(acc, one);
        }
    }
    let (l, h) = (lo.to_array(), hi.to_array());
    let min = Vec2::new(l[0].min(l[2]), l[1].min(l[3])).min(acc.0);
    let max = Vec2::new(h[0].max(h[2]), h[1].max(h[3])).max(acc.1);
    rest.iter().fold((min, max, acc.2), one)
}

/// Axis-aligned box of the finite positions of a chunk of rows.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    min: Vec2,
    max: Vec2,
}

impl Bounds {
    /// Bounds of all the finite positions and how many there are, computed by all
    /// workers for long inputs (minimum and maximum are exact, so the result does not
    /// depend on how the work is split).
    fn of_all(positions: &[Vec2]) -> (Option<Self>, usize) {
        const PARALLEL_MIN: usize = 32_768;
        let (min, max, n) = if positions.len() >= PARALLEL_MIN {
            positions
                .par_chunks(8192)
                .map(fold_bounds)
                .reduce(empty_bounds, |a, b| (a.0.min(b.0), a.1.max(b.1), a.2 + b.2))
        } else {
            fold_bounds(positions)
        };
        ((n > 0).then_some(Self { min, max }), n)
    }

    /// Bounds of the finite positions among `rows`; `None` when there are none.
    fn of(positions: &[Vec2], rows: Range<usize>) -> Option<Self> {
        Self::of_all(&positions[rows]).0
    }
}

/// The neighbour index: owns its buffers and is rebuilt over all positions every tick.
///
/// The grid reuses its buffers from one rebuild to the next (no allocation once they
/// have grown to the row count). The tree is built by kiddo, which has no in-place
/// rebuild: each rebuild allocates the new tree (and frees the previous one).
pub struct SpatialIndex {
    inner: Inner,
}

enum Inner {
    KdTree(KdTreeIndex),
    Grid(GridIndex),
}

impl SpatialIndex {
    /// An empty index of the given kind.
    #[must_use]
    pub fn new(kind: IndexKind) -> Self {
        let inner = match kind {
            IndexKind::KdTree => Inner::KdTree(KdTreeIndex::default()),
            IndexKind::Grid => Inner::Grid(GridIndex::default()),
        };
        Self { inner }
    }

    /// Which structure this index is.
    #[must_use]
    pub fn kind(&self) -> IndexKind {
        match self.inner {
            Inner::KdTree(_) => IndexKind::KdTree,
            Inner::Grid(_) => IndexKind::Grid,
        }
    }

    /// Number of rows indexed by the last [`rebuild`](Self::rebuild).
    #[must_use]
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::KdTree(t) => t.len(),
            Inner::Grid(g) => g.len(),
        }
    }

    /// Whether the last rebuild indexed no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rebuild over all positions (row `i` is `positions[i]`). `cell_hint` is the largest
    /// neighbour radius in use: the grid sizes its cells from it, the tree ignores it.
    /// May use rayon internally; the result does not depend on the thread count.
    pub fn rebuild(&mut self, positions: &[Vec2], cell_hint: f32) {
        self.rebuild_with_dirs(positions, None, cell_hint);
    }

    /// Whether the last rebuild stored the rows' unit velocities (a grid given them),
    /// for [`BatchNeighbours::flock_scan`].
    #[cfg(test)]
    pub(crate) fn has_dirs(&self) -> bool {
        matches!(&self.inner, Inner::Grid(g) if g.entry_dirs().is_some())
    }

    /// [`rebuild`](Self::rebuild); with `dirs` (the rows' unit velocities), a grid also
    /// stores each entry's, for [`BatchNeighbours::flock_scan`].
    pub(crate) fn rebuild_with_dirs(
        &mut self,
        positions: &[Vec2],
        dirs: Option<&[Vec2]>,
        cell_hint: f32,
    ) {
        match &mut self.inner {
            Inner::KdTree(t) => {
                crate::zone!("k-d tree build");
                t.rebuild(positions);
            }
            Inner::Grid(g) => {
                crate::zone!("grid build");
                g.rebuild(positions, dirs, cell_hint);
            }
        }
    }

    /// Call `f(row)` for every row whose position is within `r` of `p` (inclusive),
    /// and possibly for other rows: callers filter exactly. Each row is reported at most
    /// once. The order of the calls is unspecified.
    pub fn for_each_candidate(&self, p: Vec2, r: f32, mut f: impl FnMut(u32)) {
        let r = clean_radius(r);
        let reach = pad(r);
        if !(reach * reach).is_finite() {
            // Everything not NaN is within an overflowing radius.
            for row in 0..self.len() {
                f(row as u32);
            }
            return;
        }
        if !p.is_finite() {
            // A non-finite point is at a non-finite or NaN distance from every row.
            return;
        }
        match &self.inner {
            Inner::KdTree(t) => t.for_each_within(p, reach, &mut f),
            Inner::Grid(g) => g.for_each_near(p, reach, &mut f),
        }
    }
}

/// Cell side per unit of neighbour radius, for the grid's cells and for the cells a
/// chunk's candidates are binned into: a little over one radius, so that the cells within
/// one cell of a row's own cell hold every row within the (padded) radius.
const CELL_PER_RADIUS: f64 = 1.01;

/// Marks a chunk row with no cell (a non-finite coordinate): it has no neighbour.
const NO_CELL: u32 = u32::MAX;

/// The candidates of one chunk, binned into cells so that each row scans only the
/// cells around its own. Entries are stored by cell, row-major, with an empty border
/// one cell wide around the `cols` × `rows` cells (so that the 3 × 3 cells around any
/// cell exist): `off[id]` is the first entry of the cell whose id is
/// `id = (b + 1) * (cols + 2) + c + 1` and the last `off` the total, so the cells
/// `c0..=c1` of one band `b` are the single run `off[id(c0, b)]..off[id(c1, b) + 1]`.
#[derive(Default)]
struct Binned {
    xs: Vec<f32>,
    ys: Vec<f32>,
    ids: Vec<u32>,
    /// Per candidate, when the gather stored them (see [`BatchNeighbours::dirs`]): the
    /// row's unit velocity.
    dxs: Vec<f32>,
    dys: Vec<f32>,
    off: Vec<u32>,
    cols: usize,
    rows: usize,
    /// Cell `[column, band]` of each row of the chunk, in the same cells as the
    /// candidates (`[NO_CELL; 2]` for a row without neighbours).
    row_cell: Vec<[u32; 2]>,
    /// A row's neighbours lie within this many cells of its own cell.
    reach_cells: u32,
}

impl Binned {
    /// Append [`GROUP`] never-matching entries (NaN coordinates) after the candidates.
    fn pad(&mut self) {
        self.xs.extend([f32::NAN; GROUP]);
        self.ys.extend([f32::NAN; GROUP]);
        self.ids.extend([u32::MAX; GROUP]);
    }

    /// The cells `(c0, c1, b0, b1)` (inclusive: columns, then bands) that hold every
    /// candidate within the gathered reach of the chunk's row `local` (its index in the
    /// chunk). `None` for a row with no cell (non-finite) or an empty gather.
    #[inline]
    fn window(&self, local: usize) -> Option<(usize, usize, usize, usize)> {
        let &[cx, cy] = self.row_cell.get(local)?;
        if cx == NO_CELL || self.cols == 0 {
            return None;
        }
        let k = self.reach_cells;
        Some((
            cx.saturating_sub(k) as usize,
            (cx.saturating_add(k) as usize).min(self.cols - 1),
            cy.saturating_sub(k) as usize,
            (cy.saturating_add(k) as usize).min(self.rows - 1),
        ))
    }

    /// The entries of cells `c0..=c1` of band `b`: one contiguous run.
    #[inline]
    fn run(&self, b: usize, c0: usize, c1: usize) -> (usize, usize) {
        (
            self.off[self.cell_id(c0, b)] as usize,
            self.off[self.cell_id(c1, b) + 1] as usize,
        )
    }

    /// The id of cell `(c, b)` in `off`.
    #[inline]
    fn cell_id(&self, c: usize, b: usize) -> usize {
        (b + 1) * (self.cols + 2) + c + 1
    }

    /// How many entries the bands `b0..=b1` hold.
    #[inline]
    fn band_entries(&self, b0: usize, b1: usize) -> usize {
        let stride = self.cols + 2;
        (self.off[(b1 + 2) * stride] - self.off[(b0 + 1) * stride]) as usize
    }

    /// The three runs (one per band) of the 3 × 3 cells around the cell of the chunk's
    /// row `local`, when a row's neighbours lie within one cell of its own: the runs
    /// [`window`](Self::window) and [`run`](Self::run) give, at fixed offsets from the
    /// cell id. `Some(None)` for a row with no cell; `None` for a wider reach.
    #[inline]
    fn runs3(&self, local: usize) -> Option<Option<[(usize, usize); 3]>> {
        if self.reach_cells != 1 || self.cols == 0 {
            return None;
        }
        let &[cx, cy] = self.row_cell.get(local)?;
        if cx == NO_CELL {
            return Some(None);
        }
        let stride = self.cols + 2;
        let c = self.cell_id(cx as usize, cy as usize);
        let (Some(above), Some(here), Some(below)) = (
            c.checked_sub(stride + 1)
                .and_then(|a| self.off.get(a..a + 4)),
            self.off.get(c - 1..c + 3),
            self.off.get(c + stride - 1..c + stride + 3),
        ) else {
            return Some(None);
        };
        let run = |s: &[u32]| (s[0] as usize, s[3] as usize);
        Some(Some([run(above), run(here), run(below)]))
    }

    /// Forget the previous chunk. The entry arrays keep their length (whoever fills
    /// them next sets it), so that refilling them needs no clearing writes.
    fn clear(&mut self) {
        self.off.clear();
        self.row_cell.clear();
        self.cols = 0;
        self.rows = 0;
        self.reach_cells = 0;
    }
}

/// How many cells around a row's own cell hold every entry within `reach_over_side`
/// cell widths of it: cells are at least one unit wide in cell coordinates, so two
/// coordinates `a` units apart have cells at most `floor(a) + 1` apart; `slack` covers
/// rounding in the cell arithmetic.
fn reach_cells(reach_over_side: f64, slack: f64) -> u32 {
    let a = reach_over_side + slack;
    if a < f64::from(u32::MAX - 1) {
        a as u32 + 1
    } else {
        u32::MAX - 1
    }
}

/// Per-worker scratch for batched neighbour search: the candidates of one chunk of rows
/// (x, y and row ids in separate arrays, binned into cells about one radius wide) and
/// per-row scan buffers.
///
/// Call [`gather`](Self::gather) once per chunk, then [`neighbours`](Self::neighbours)
/// for each row of the chunk, with the same positions and a radius no larger than the
/// gathered one.
#[derive(Default)]
pub struct BatchNeighbours {
    cands: Binned,
    /// Raw row ids from the tree, before binning.
    raw: Vec<u32>,
    /// Local cell of each raw id.
    raw_cell: Vec<u32>,
    /// Coordinates of each raw id.
    raw_x: Vec<f32>,
    raw_y: Vec<f32>,
    /// The current row's scan of its window.
    scan: Scan,
    /// Match keys of the current row (`(d2, row)` packed).
    keys: Vec<u64>,
    /// Scratch for selecting the nearest keys of an over-full list.
    select: Vec<u64>,
    /// Rows matched by the current row's scan (length kept between rows).
    hits: Vec<u32>,
    /// Rows the last gather covered.
    rows: Range<usize>,
    /// Radius (cleaned) the last gather covered.
    r: f32,
    /// Length of the positions the last gather saw.
    len: usize,
    /// Whether the last gather stored its candidates' unit velocities.
    dirs: bool,
}

impl BatchNeighbours {
    /// A scratch with empty buffers (they grow on first use and are then reused).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of candidates the last gather kept.
    #[must_use]
    pub fn candidates(&self) -> usize {
        self.cands.off.last().map_or(0, |&n| n as usize)
    }

    /// One index query for the whole chunk `rows` (clamped to `positions`): radius `r`
    /// around every row of the chunk, i.e. `r` plus the chunk's extent around its
    /// centre. `index` must have been rebuilt over `positions`.
    pub fn gather(&mut self, index: &SpatialIndex, positions: &[Vec2], rows: Range<usize>, r: f32) {
        self.gather_with_dirs(index, (positions, None), rows, r);
    }

    /// [`gather`](Self::gather); with `dirs` (the rows' unit velocities), a k-d tree's
    /// candidates also store theirs, for [`flock_scan`](Self::flock_scan).
    pub(crate) fn gather_with_dirs(
        &mut self,
        index: &SpatialIndex,
        (positions, dirs): (&[Vec2], Option<&[Vec2]>),
        rows: Range<usize>,
        r: f32,
    ) {
        self.dirs = false;
        self.cands.clear();
        let n = addressable(positions.len());
        let start = rows.start.min(n);
        let end = rows.end.clamp(start, n);
        let rows = start..end;
        let r = clean_radius(r);
        self.rows = rows.clone();
        self.r = r;
        self.len = positions.len();
        if rows.is_empty() {
            return;
        }
        let reach = pad(r);
        if !(reach * reach).is_finite() {
            self.gather_all(positions);
            return;
        }
        let Some(b) = Bounds::of(positions, rows.clone()) else {
            // No finite row in the chunk: none has a neighbour.
            return;
        };
        match &index.inner {
            Inner::KdTree(t) => {
                self.raw.clear();
                match t.gather(b, r, &mut self.raw) {
                    Some(ball) => {
                        self.bin(positions, rows, ball, reach);
                        if let Some(dirs) = dirs.filter(|d| d.len() >= positions.len()) {
                            self.store_dirs(dirs);
                        }
                    }
                    None => self.gather_all(positions),
                }
            }
            Inner::Grid(g) => {
                g.gather(b, positions, rows, reach, &mut self.cands);
                self.cands.pad();
            }
        }
    }

    /// Bin the tree's candidates (in `raw`) into square cells of about one radius over
    /// the queried ball's bounding square, by a counting sort. Cells are computed in
    /// `f32` relative to the square's corner (a few dozen cells, so rounding is tiny and
    /// covered by the slack in `reach_cells`).
    fn bin(&mut self, positions: &[Vec2], rows: Range<usize>, ball: (Vec2, f32), reach: f32) {
        let (centre, ball_r) = ball;
        let m = self.raw.len();
        let c = &mut self.cands;
        let span = 2.0 * ball_r;
        // At most about two cells per candidate.
        let max_side_cells = (2.0 * m as f32 + 16.0).sqrt();
        let mut side = (reach * CELL_PER_RADIUS as f32).max(span / max_side_cells);
        if !(side > 0.0 && side.is_finite()) {
            side = 1.0;
        }
        let n1 = ((span / side) as usize + 1).min(max_side_cells as usize + 1);
        let (ox, oy, inv) = (centre.x - ball_r, centre.y - ball_r, 1.0 / side);
        let top = (n1 - 1) as i32;
        // Truncation (saturating, NaN to 0), then clamping: monotone in `v`, and every
        // cell at least one unit wide.
        let cell = |v: f32, o: f32| (((v - o) * inv) as i32).max(0).min(top) as u32;
        c.cols = n1;
        c.rows = n1;
        c.reach_cells = reach_cells(f64::from(reach * inv), 1e-3 + 1e-6 * n1 as f64);
        // With the empty border (see `Binned`).
        let stride = n1 + 2;
        let cells = stride * stride;
        c.off.clear();
        c.off.resize(cells + 1, 0);
        // Counting sort: coordinates and cell of every candidate, counts, ends of cells,
        // then a backwards fill.
        self.raw_x.clear();
        self.raw_y.clear();
        self.raw_cell.clear();
        let at = |id: u32| positions.get(id as usize).copied().unwrap_or(Vec2::NAN);
        self.raw_x.extend(self.raw.iter().map(|&id| at(id).x));
        self.raw_y.extend(self.raw.iter().map(|&id| at(id).y));
        // A non-finite candidate never matches: any cell will do. Four at a time in
        // vector lanes (a saturating truncation, like `cell`'s: the same cells), the
        // rest one by one.
        {
            use wide::{f32x4, i32x4};
            let (o4, inv4) = ((f32x4::splat(ox), f32x4::splat(oy)), f32x4::splat(inv));
            let (zero, top4) = (i32x4::splat(0), i32x4::splat(top));
            let lane = |v: &[f32], o: f32x4| -> [i32; 4] {
                let v = f32x4::new([v[0], v[1], v[2], v[3]]);
                ((v - o) * inv4).trunc_int().max(zero).min(top4).to_array()
            };
            let whole = m / 4 * 4;
            for (gx, gy) in self.raw_x[..whole]
                .chunks_exact(4)
                .zip(self.raw_y[..whole].chunks_exact(4))
            {
                let (cx, cy) = (lane(gx, o4.0), lane(gy, o4.1));
                self.raw_cell
                    .extend((0..4).map(|l| (cy[l] as u32 + 1) * stride as u32 + cx[l] as u32 + 1));
            }
            self.raw_cell.extend(
                self.raw_x[whole..]
                    .iter()
                    .zip(&self.raw_y[whole..])
                    .map(|(&x, &y)| (cell(y, oy) + 1) * stride as u32 + cell(x, ox) + 1),
            );
        }
        for &k in &self.raw_cell {
            if let Some(o) = c.off.get_mut(k as usize) {
                *o += 1;
            }
        }
        let mut acc = 0u32;
        for o in &mut c.off[..cells] {
            acc += *o;
            *o = acc;
        }
        c.off[cells] = acc;
        // The outputs keep their length between chunks (no clearing writes); only the
        // first `m` entries and the padding after them are meaningful.
        let len = m + GROUP;
        for v in [&mut c.xs, &mut c.ys] {
            if v.len() < len {
                v.resize(len, 0.0);
            }
            v.truncate(len);
        }
        if c.ids.len() < len {
            c.ids.resize(len, 0);
        }
        c.ids.truncate(len);
        for (((&id, &k), &x), &y) in self
            .raw
            .iter()
            .zip(&self.raw_cell)
            .zip(&self.raw_x)
            .zip(&self.raw_y)
            .rev()
        {
            let Some(slot) = c.off.get_mut(k as usize) else {
                continue;
            };
            *slot -= 1;
            let j = *slot as usize;
            if let (Some(sx), Some(sy), Some(si)) =
                (c.xs.get_mut(j), c.ys.get_mut(j), c.ids.get_mut(j))
            {
                (*sx, *sy, *si) = (x, y, id);
            }
        }
        c.xs[m..].fill(f32::NAN);
        c.ys[m..].fill(f32::NAN);
        c.ids[m..].fill(u32::MAX);
        c.row_cell.extend(positions[rows].iter().map(|p| {
            if p.is_finite() {
                [cell(p.x, ox), cell(p.y, oy)]
            } else {
                [NO_CELL; 2]
            }
        }));
    }

    /// Each binned candidate's unit velocity, from its row (the padding after them
    /// zero).
    fn store_dirs(&mut self, dirs: &[Vec2]) {
        let c = &mut self.cands;
        let len = c.ids.len();
        c.dxs.resize(len, 0.0);
        c.dys.resize(len, 0.0);
        copy_dirs(&c.ids, dirs, &mut c.dxs, &mut c.dys);
        self.dirs = true;
    }

    /// Every row is a candidate (overflowing radius, or an index that could not bound
    /// the query), in one cell that every row of the chunk scans.
    fn gather_all(&mut self, positions: &[Vec2]) {
        let n = addressable(positions.len());
        let c = &mut self.cands;
        c.clear();
        c.xs.clear();
        c.ys.clear();
        c.ids.clear();
        c.xs.extend(positions[..n].iter().map(|p| p.x));
        c.ys.extend(positions[..n].iter().map(|p| p.y));
        c.ids.extend(0..n as u32);
        // The one cell, and its empty border (see `Binned`).
        c.off.extend([0, 0, 0, 0, 0]);
        c.off.extend([n as u32; 5]);
        c.cols = 1;
        c.rows = 1;
        c.reach_cells = 0;
        c.row_cell.resize(self.rows.len(), [0, 0]);
        c.pad();
    }

    /// Exactly the rows within distance `r` of `positions[row]` (inclusive:
    /// `d2 <= r * r`), excluding `row`, capped to the `cap` nearest, ordered by
    /// `(d2, row)`. Written into `out` (cleared first).
    ///
    /// `row` should belong to the last gathered chunk and `r` should not exceed the
    /// gathered radius; otherwise the answer is still exact but computed by a
    /// brute-force scan.
    pub fn neighbours(
        &mut self,
        positions: &[Vec2],
        row: usize,
        r: f32,
        cap: usize,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        let r = clean_radius(r);
        if row >= addressable(positions.len()) || cap == 0 {
            return;
        }
        if !self.rows.contains(&row) || r > self.r || positions.len() != self.len {
            brute::brute_into(positions, row, r, cap, &mut self.keys, out);
            return;
        }
        let c = &self.cands;
        let Some((c0, c1, b0, b1)) = c.window(row - self.rows.start) else {
            return;
        };
        let p = positions[row];
        // The window's runs (one per band of cells), scanned into one row buffer.
        // Whole bands bound the window's candidates.
        let most = (b1 - b0 + 1) * GROUP + c.band_entries(b0, b1);
        let scan = &mut self.scan;
        scan.reserve(most);
        let mut total = 0;
        for b in b0..=b1 {
            let (s, e) = c.run(b, c0, c1);
            if scan.run((&c.xs, &c.ys, &c.ids), s, e, total, p, r * r, row as u32) {
                total += e - s;
            }
        }
        let found = scan.matches(total, row as u32, &mut self.keys);
        finish(&mut self.keys, found, cap, out);
    }

    /// The same rows as [`neighbours`](Self::neighbours) (within `r`, excluding `row`,
    /// capped to the `cap` nearest by `(d2, row)`), in **scan order** instead of
    /// distance order: the order the index stores them in. Scan order is a fixed
    /// function of the positions, the index kind and (for the tree) the gathered chunk,
    /// never of the thread count; it saves sorting each list.
    ///
    /// With the grid no [`gather`](Self::gather) is needed: the row's cells are scanned
    /// straight from the grid. With the tree, `row` should belong to the last gathered
    /// chunk (otherwise the answer is still exact but computed by a brute-force scan,
    /// in row order). `index` must have been rebuilt over `positions`.
    pub fn scan_neighbours(
        &mut self,
        index: &SpatialIndex,
        positions: &[Vec2],
        row: usize,
        r: f32,
        cap: usize,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        out.extend_from_slice(self.scan(index, positions, row, r, cap));
    }

    /// [`scan_neighbours`](Self::scan_neighbours) without the copy: the rows are
    /// returned in this scratch's own buffer, valid until its next use.
    pub fn scan(
        &mut self,
        index: &SpatialIndex,
        positions: &[Vec2],
        row: usize,
        r: f32,
        cap: usize,
    ) -> &[u32] {
        let q = ScanQuery::new(index, r, cap);
        self.scan_prepared(index, positions, row, &q)
    }

    /// A row's neighbours (as [`scan`](Self::scan) finds them) summed for the flocking
    /// forces in one pass over the candidates, which store each row's unit velocity (a
    /// grid's entries, or the chunk candidates of a k-d tree gathered with them): no
    /// list of neighbours is made, and the sums are accumulated in four lanes (entry `i`
    /// of a run of cells in lane `(i - start) % 4`; the lanes added as `(0 + 1) + (2 +
    /// 3)` at the end). `sep` is the separation radius squared and the least distance
    /// squared of the inverse-distance push.
    ///
    /// `None` where this does not apply, and the caller scans instead: candidates
    /// without unit velocities (or a row outside the last gather), a reach beyond one
    /// cell, a cap of zero or more neighbours than the cap (the nearest would have to be
    /// chosen), or a neighbour within the separation radius closer than the least
    /// distance (whose push is floored).
    #[inline(always)]
    pub(crate) fn flock_scan(
        &self,
        index: &SpatialIndex,
        positions: &[Vec2],
        row: usize,
        q: &ScanQuery,
        sep: (f32, f32),
    ) -> Option<FlockSums> {
        if !q.finite || q.cap == 0 {
            return None;
        }
        let p = *positions.get(row)?;
        let (candidates, runs) = match &index.inner {
            Inner::Grid(g) => {
                if !q.one_grid_cell || g.len() != positions.len() {
                    return None;
                }
                (Candidates::new(g.entries(), g.entry_dirs()?), g.runs3(row)?)
            }
            Inner::KdTree(_) => {
                let c = &self.cands;
                let gathered =
                    self.rows.contains(&row) && q.r <= self.r && positions.len() == self.len;
                if !(self.dirs && gathered) {
                    return None;
                }
                let candidates = Candidates::new((&c.xs, &c.ys, &c.ids), (&c.dxs, &c.dys));
                (candidates, c.runs3(row - self.rows.start)??)
            }
        };
        sum_runs(candidates, runs, (p, row), q, sep)
    }

    /// [`scan_query`](Self::scan_query) out of line: called once per agent, it costs
    /// less as a call than inlined into a steering kernel (the world's lane kernel
    /// inlines `scan_query` instead, with one query per four rows).
    #[inline(never)]
    pub(crate) fn scan_prepared(
        &mut self,
        index: &SpatialIndex,
        positions: &[Vec2],
        row: usize,
        q: &ScanQuery,
    ) -> &[u32] {
        self.scan_query(index, positions, row, q)
    }

    /// [`scan`](Self::scan) with the radius and cap of a [`ScanQuery`] made for
    /// `index` as it is now (checked and derived once for many rows). Inlined into its
    /// caller, but for the over-full list's selection.
    #[inline(always)]
    pub(crate) fn scan_query(
        &mut self,
        index: &SpatialIndex,
        positions: &[Vec2],
        row: usize,
        q: &ScanQuery,
    ) -> &[u32] {
        let (r, reach, r2, cap) = (q.r, q.reach, q.r2, q.cap);
        if row >= addressable(positions.len()) || cap == 0 {
            return &[];
        }
        let p = positions[row];
        let me = row as u32;
        let hits = &mut self.hits;
        let found = match &index.inner {
            Inner::Grid(g) if g.len() == positions.len() && q.finite => {
                // The usual reach, within one cell: the 3 × 3 cells straight from the
                // row's cell id.
                if q.one_grid_cell {
                    let Some(runs) = g.runs3(row) else {
                        return &[];
                    };
                    scan_runs(g.entries(), runs.into_iter(), p, r2, me, hits)
                } else {
                    scan_grid_window(g, row, reach, p, r2, hits)
                }
            }
            Inner::KdTree(_)
                if self.rows.contains(&row) && r <= self.r && positions.len() == self.len =>
            {
                let c = &self.cands;
                let local = row - self.rows.start;
                match c.runs3(local) {
                    Some(Some(runs)) => {
                        scan_runs((&c.xs, &c.ys, &c.ids), runs.into_iter(), p, r2, me, hits)
                    }
                    Some(None) => return &[],
                    None => scan_binned_window(c, local, p, r2, me, hits),
                }
            }
            _ => {
                brute::brute_keys(positions, row, r, &mut self.keys);
                hits.clear();
                hits.extend(self.keys.iter().map(|&k| k as u32));
                hits.len()
            }
        };
        let found = found.min(self.hits.len());
        if found <= cap {
            return &self.hits[..found];
        }
        let kept = self.keep_nearest(positions, p, found, cap, r2);
        &self.hits[..kept]
    }

    /// Over-full: keep, of the first `found` hits, the `cap` nearest to `p` by `(d2,
    /// row)`, in scan order, at the front of the hits; returns how many (`cap`). Out of
    /// line: rare for most crowds, and kept out of the kernels that inline the scan.
    #[inline(never)]
    fn keep_nearest(
        &mut self,
        positions: &[Vec2],
        p: Vec2,
        found: usize,
        cap: usize,
        r2: f32,
    ) -> usize {
        // The keys are recomputed with the scan's own distance arithmetic ([`dist2`]).
        let hits = &mut self.hits[..found];
        let keys = &mut self.keys;
        keys.clear();
        keys.extend(hits.iter().map(|&h| {
            let q = positions[h as usize];
            key(dist2(p.x, p.y, q.x, q.y), h)
        }));
        // Keys are distinct (rows are), so exactly `cap` keys are <= the cap-th smallest.
        let last = kth_smallest(keys, cap, r2, &mut self.select);
        // Branch-free compaction, as in the scan. Truncation keeps the low 32 bits of
        // a key: the row.
        let mut kept = 0;
        for (i, &k) in keys.iter().enumerate() {
            hits[kept.min(i)] = k as u32;
            kept += usize::from(k <= last);
        }
        kept.min(cap)
    }
}

/// A row's sums over its neighbours for the flocking forces (see
/// [`BatchNeighbours::flock_scan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct FlockSums {
    /// Neighbours found (at most the query's cap).
    pub count: usize,
    /// Over the neighbours within the separation radius: `away / |away|²`, with `away`
    /// the row's position minus the neighbour's.
    pub push: Vec2,
    /// Over all neighbours: their unit velocities, and their positions.
    pub headings: Vec2,
    pub positions: Vec2,
}

/// `dxs[i]`, `dys[i]`: the unit velocity of row `ids[i]` among `dirs` (zero for an id
/// past them: the never-matching padding).
fn copy_dirs(ids: &[u32], dirs: &[Vec2], dxs: &mut [f32], dys: &mut [f32]) {
    for ((dx, dy), &id) in dxs.iter_mut().zip(dys.iter_mut()).zip(ids) {
        let d = dirs.get(id as usize).copied().unwrap_or(Vec2::ZERO);
        (*dx, *dy) = (d.x, d.y);
    }
}

/// The candidates [`sum_runs`] reads: coordinates, row ids and unit velocities, each
/// followed by [`GROUP`] never-matching entries.
struct Candidates<'a> {
    xs: &'a [f32],
    ys: &'a [f32],
    ids: &'a [u32],
    dxs: &'a [f32],
    dys: &'a [f32],
}

impl<'a> Candidates<'a> {
    fn new(
        (xs, ys, ids): (&'a [f32], &'a [f32], &'a [u32]),
        (dxs, dys): (&'a [f32], &'a [f32]),
    ) -> Self {
        Self {
            xs,
            ys,
            ids,
            dxs,
            dys,
        }
    }
}

/// [`BatchNeighbours::flock_scan`]'s pass over the runs of candidates around the row
/// `row` at `p`.
#[inline(always)]
fn sum_runs(
    Candidates {
        xs,
        ys,
        ids,
        dxs,
        dys,
    }: Candidates<'_>,
    runs: [(usize, usize); 3],
    (p, row): (Vec2, usize),
    q: &ScanQuery,
    (sep_r2, min_d2): (f32, f32),
) -> Option<FlockSums> {
    use bytemuck::cast;
    use wide::{f32x4, i32x4, u32x4};
    let quad = |v: &[f32], i: usize| -> Option<f32x4> {
        let a: &[f32; GROUP] = v.get(i..i + GROUP)?.try_into().ok()?;
        Some(f32x4::new(*a))
    };
    let (px, py) = (f32x4::splat(p.x), f32x4::splat(p.y));
    let (r2, sep_r2, min_d2) = (
        f32x4::splat(q.r2),
        f32x4::splat(sep_r2),
        f32x4::splat(min_d2),
    );
    let me = u32x4::splat(row as u32);
    let lane = i32x4::new([0, 1, 2, 3]);
    let zero = f32x4::ZERO;
    let mut count = i32x4::ZERO;
    let (mut push_x, mut push_y, mut head_x, mut head_y) = (zero, zero, zero, zero);
    let (mut pos_x, mut pos_y, mut close) = (zero, zero, zero);
    for (s, e) in runs {
        let mut i = s;
        while i < e {
            let (Some(gx), Some(gy), Some(gdx), Some(gdy), Some(gi)) = (
                quad(xs, i),
                quad(ys, i),
                quad(dxs, i),
                quad(dys, i),
                ids.get(i..i + GROUP)
                    .and_then(|a| <[u32; GROUP]>::try_from(a).ok()),
            ) else {
                return None;
            };
            // `dist2`, as the scan computes it.
            let (dx, dy) = (gx - px, gy - py);
            let d2 = dx * dx + dy * dy;
            // Within the radius, not the row itself, not past the run's end.
            let tail = lane.simd_lt(i32x4::splat((e - i).min(GROUP) as i32));
            let other = !u32x4::new(gi).simd_eq(me);
            let hit = d2.simd_le(r2) & cast::<u32x4, f32x4>(other) & cast::<i32x4, f32x4>(tail);
            count -= cast::<f32x4, i32x4>(hit);
            pos_x += gx & hit;
            pos_y += gy & hit;
            head_x += gdx & hit;
            head_y += gdy & hit;
            let sep = hit & d2.simd_le(sep_r2);
            close |= sep & d2.simd_lt(min_d2);
            // `away * (1 / |away|²)`, with `away = p - q`.
            let inv = f32x4::ONE / d2;
            push_x += ((px - gx) * inv) & sep;
            push_y += ((py - gy) * inv) & sep;
            i += GROUP;
        }
    }
    let count = count.to_array().iter().map(|&c| c as usize).sum::<usize>();
    if close.any() || count > q.cap {
        return None;
    }
    let sum = |v: f32x4| {
        let a = v.to_array();
        (a[0] + a[1]) + (a[2] + a[3])
    };
    Some(FlockSums {
        count,
        push: Vec2::new(sum(push_x), sum(push_y)),
        headings: Vec2::new(sum(head_x), sum(head_y)),
        positions: Vec2::new(sum(pos_x), sum(pos_y)),
    })
}

/// A neighbour query's radius and cap, checked and derived once for many rows of a
/// tick (for the index as it is when made: make a new one after a rebuild).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanQuery {
    /// The radius ([`clean_radius`]), its square and its padded reach.
    r: f32,
    r2: f32,
    reach: f32,
    cap: usize,
    /// Whether the reach's square is finite (otherwise the grid is not used).
    finite: bool,
    /// For a grid index: whether the reach is within one cell.
    one_grid_cell: bool,
}

impl ScanQuery {
    #[inline]
    pub(crate) fn new(index: &SpatialIndex, r: f32, cap: usize) -> Self {
        let r = clean_radius(r);
        let reach = pad(r);
        Self {
            r,
            r2: r * r,
            reach,
            cap,
            finite: (reach * reach).is_finite(),
            one_grid_cell: match &index.inner {
                Inner::Grid(g) => g.within_one_cell(reach),
                Inner::KdTree(_) => false,
            },
        }
    }
}

/// [`scan_runs`] over the window of cells of the chunk's row `local` (out of line: the
/// usual reach takes [`Binned::runs3`]).
#[inline(never)]
fn scan_binned_window(
    c: &Binned,
    local: usize,
    p: Vec2,
    r2: f32,
    row: u32,
    hits: &mut Vec<u32>,
) -> usize {
    let Some((c0, c1, b0, b1)) = c.window(local) else {
        return 0;
    };
    let runs = (b0..=b1).map(|b| c.run(b, c0, c1));
    scan_runs((&c.xs, &c.ys, &c.ids), runs, p, r2, row, hits)
}

/// [`scan_runs`] over the window of cells of a grid row whose reach spans more than one
/// cell (out of line: the usual reach takes [`grid::GridIndex::runs3`]).
#[inline(never)]
fn scan_grid_window(
    g: &grid::GridIndex,
    row: usize,
    reach: f32,
    p: Vec2,
    r2: f32,
    hits: &mut Vec<u32>,
) -> usize {
    let Some((cx0, cx1, cy0, cy1)) = g.window(row, reach) else {
        return 0;
    };
    let runs = (cy0..=cy1).map(|cy| g.run(cy, cx0, cx1));
    scan_runs(g.entries(), runs, p, r2, row as u32, hits)
}

/// Buckets of squared distance (as fractions of the squared radius) that
/// [`kth_smallest`] counts the keys into.
const BUCKETS: usize = 32;

/// The `k`-th smallest of `keys` (`1 <= k <= keys.len()`), keys whose squared
/// distances (their high bits) lie within `0..=r2`. `scratch` is reused.
///
/// A counting pass puts every key in one of [`BUCKETS`] equal slices of `0..=r2`
/// (monotone in the squared distance, so in key order); the `k`-th smallest is in the
/// first bucket where the running count reaches `k`, and only that bucket's few keys
/// are sorted. Branch-free except for that small sort: a general selection over a
/// crowded window mispredicts a branch for most keys.
#[inline(always)]
fn kth_smallest(keys: &[u64], k: usize, r2: f32, scratch: &mut Vec<u64>) -> u64 {
    let k = k.clamp(1, keys.len().max(1));
    if keys.len() > MAX_BUCKETED {
        scratch.clear();
        scratch.extend_from_slice(keys);
        let (_, &mut kth, _) = scratch.select_nth_unstable(k - 1);
        return kth;
    }
    let scale = BUCKETS as f32 / r2;
    let mut of = [0u8; MAX_BUCKETED];
    let mut hist = [0u32; BUCKETS];
    for (o, &key) in of.iter_mut().zip(keys) {
        // NaN (a zero radius: every d2 is 0) truncates to bucket 0.
        let b = ((f32::from_bits((key >> 32) as u32) * scale) as usize).min(BUCKETS - 1);
        *o = b as u8;
        hist[b] += 1;
    }
    let (mut at, mut below) = ((BUCKETS - 1) as u8, 0usize);
    for (b, &h) in hist.iter().enumerate() {
        if below + h as usize >= k {
            at = b as u8;
            break;
        }
        below += h as usize;
    }
    // The keys of that bucket, compacted without a branch into the scratch (its
    // length is kept between calls, so it is not cleared: only its first `n` entries
    // are read).
    if scratch.len() < keys.len() {
        scratch.resize(keys.len(), 0);
    }
    let best = &mut scratch[..keys.len()];
    let mut n = 0;
    for (i, (&key, &o)) in keys.iter().zip(&of).enumerate() {
        best[n.min(i)] = key;
        n += usize::from(o == at);
    }
    let need = (k - below).clamp(1, n.max(1));
    let (_, &mut kth, _) = best[..n.max(1)].select_nth_unstable(need - 1);
    kth
}

/// Longest list [`kth_smallest`] buckets (on the stack); longer ones use a general
/// selection.
const MAX_BUCKETED: usize = 256;

/// Fewest entries the per-row hit buffer holds once used: room for the windows of
/// dense crowds from the start, so that it rarely grows after warm-up.
const MIN_HITS: usize = 512;

/// Make room for `n` row ids in `hits` (its length is kept between rows: whoever
/// fills it writes before reading).
#[inline]
fn grow_hits(hits: &mut Vec<u32>, n: usize) {
    if hits.len() < n {
        grow_hits_cold(hits, n);
    }
}

#[cold]
#[inline(never)]
fn grow_hits_cold(hits: &mut Vec<u32>, n: usize) {
    hits.resize(n.next_power_of_two().max(MIN_HITS), 0);
}

/// The rows of the entries in `runs` (each `(start, end)`) within `r2` of `p`, except
/// `row` itself, written to the front of `hits` (grown as needed); returns how many.
#[inline]
fn scan_runs(
    entries: (&[f32], &[f32], &[u32]),
    runs: impl Iterator<Item = (usize, usize)>,
    p: Vec2,
    r2: f32,
    row: u32,
    hits: &mut Vec<u32>,
) -> usize {
    let mut found = 0;
    for (s, e) in runs {
        grow_hits(hits, found + (e - s) + GROUP);
        found = scan_run(entries, s, e, p, r2, row, hits, found);
    }
    found
}

/// Append to `hits` (from `hits[found]` on) the rows of the entries `s..e` within
/// `r2` of `p`, except `row` itself; returns the new count. The entries are read in
/// groups of [`GROUP`] (the arrays carry [`GROUP`] never-matching entries at their
/// end, so this stays in bounds); lanes past `e` are masked off. `hits` must have room
/// for `found + (e - s)` ids plus [`GROUP`] (every lane of a group is written).
#[inline]
#[allow(clippy::too_many_arguments)]
fn scan_run(
    (xs, ys, ids): (&[f32], &[f32], &[u32]),
    s: usize,
    e: usize,
    p: Vec2,
    r2: f32,
    row: u32,
    hits: &mut [u32],
    mut found: usize,
) -> usize {
    let mut i = s;
    while i < e {
        let (Some(gx), Some(gy), Some(gi)) = (
            xs.get(i..i + GROUP),
            ys.get(i..i + GROUP),
            ids.get(i..i + GROUP),
        ) else {
            break;
        };
        let (Ok(gx), Ok(gy), Ok(gi)) = (
            <&[f32; GROUP]>::try_from(gx),
            <&[f32; GROUP]>::try_from(gy),
            <&[u32; GROUP]>::try_from(gi),
        ) else {
            break;
        };
        let mut mask = group_mask(gx, gy, p, r2) & !lanes_equal(gi, row);
        // Lanes past the run's end are masked off (without a branch: whether this is
        // the run's last, partial group is as irregular as the run lengths).
        mask &= (1 << (e - i).min(GROUP)) - 1;
        // Branch-free compaction: every lane's id is written at the next free slot,
        // which advances only for a match (the number of matches per group is too
        // irregular for a branch to predict).
        let Some(out) = hits.get_mut(found..found + GROUP) else {
            break;
        };
        let mut n = 0;
        for (l, &id) in gi.iter().enumerate() {
            if let Some(slot) = out.get_mut(n) {
                *slot = id;
            }
            n += ((mask >> l) & 1) as usize;
        }
        found += n;
        i += GROUP;
    }
    found
}

/// The bit mask (bit `l` for lane `l`) of the lanes of `ids` equal to `row`.
#[inline(always)]
fn lanes_equal(ids: &[u32; GROUP], row: u32) -> u32 {
    use wide::u32x4;
    u32x4::new(*ids).simd_eq(u32x4::splat(row)).to_bitmask()
}

/// The bit mask (bit `l` for lane `l`) of the entries of one group within `r2` of `p`
/// by [`dist2`]: one 4-lane vector (SSE on x86-64, NEON on aarch64), whose compare and
/// sign-bit extraction build the mask.
#[inline(always)]
fn group_mask(gx: &[f32; GROUP], gy: &[f32; GROUP], p: Vec2, r2: f32) -> u32 {
    use wide::f32x4;
    // `dist2`: dx = q.x - p.x, dy = q.y - p.y, dx * dx + dy * dy, in that order.
    let dx = f32x4::new(*gx) - f32x4::splat(p.x);
    let dy = f32x4::new(*gy) - f32x4::splat(p.y);
    let d2 = dx * dx + dy * dy;
    d2.simd_le(f32x4::splat(r2)).to_bitmask()
}

/// Per-row scan buffers: for each candidate of the row's window, its squared distance,
/// id relative to the row and match flag.
#[derive(Default)]
struct Scan {
    d2: Vec<f32>,
    rel: Vec<u32>,
    /// One byte per candidate, 0 or 1.
    flags: Vec<u8>,
}

/// The filter works on groups of this many candidates (one vector of `f32`). A run of
/// candidates is scanned rounded up to whole groups, reading past its end: the extra
/// entries land where the next run's entries (or the cleared tail) then go. Candidate
/// arrays carry this many never-matching entries at their end to keep that in bounds.
const GROUP: usize = 4;

/// Match flags are packed into bit words this many at a time.
const FLAG_BLOCK: usize = 64;

impl Scan {
    /// Room for `n` candidates (and the slack that scanning in groups and flag blocks
    /// needs).
    fn reserve(&mut self, n: usize) {
        let len = n + GROUP + FLAG_BLOCK;
        if self.flags.len() < len {
            self.d2.resize(len, 0.0);
            self.rel.resize(len, 0);
            self.flags.resize(len, 0);
        }
    }

    /// Scan the candidates `s..e` of `c` (whole groups from `s`) into the buffers from
    /// `base` on. `false` if they do not fit (never, after [`Scan::reserve`]).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        (xs, ys, ids): (&[f32], &[f32], &[u32]),
        s: usize,
        e: usize,
        base: usize,
        p: Vec2,
        r2: f32,
        row: u32,
    ) -> bool {
        let n = (e.saturating_sub(s)).div_ceil(GROUP) * GROUP;
        if let (Some(xs), Some(ys), Some(ids), Some(d2), Some(flags), Some(rel)) = (
            xs.get(s..s + n),
            ys.get(s..s + n),
            ids.get(s..s + n),
            self.d2.get_mut(base..base + n),
            self.flags.get_mut(base..base + n),
            self.rel.get_mut(base..base + n),
        ) {
            filter(xs, ys, ids, p, r2, row, d2, flags, rel);
            true
        } else {
            false
        }
    }

    /// Write the keys of the first `total` scanned candidates that match, the row
    /// itself excluded, to the front of `keys`; returns how many.
    fn matches(&mut self, total: usize, row: u32, keys: &mut Vec<u64>) -> usize {
        let end = total.div_ceil(FLAG_BLOCK) * FLAG_BLOCK;
        // Clear the flags past the end (including any over-read), up to a whole block.
        if let Some(tail) = self.flags.get_mut(total..total + FLAG_BLOCK) {
            tail.copy_from_slice(&[0; FLAG_BLOCK]);
        }
        if keys.len() < end {
            keys.resize(end, 0);
        }
        let (Some(flags), Some(rel), Some(d2), Some(keys)) = (
            self.flags.get(..end),
            self.rel.get(..end),
            self.d2.get(..end),
            keys.get_mut(..end),
        ) else {
            return 0;
        };
        let mut found = 0;
        for (blk, block) in flags.chunks_exact(FLAG_BLOCK).enumerate() {
            // Pack the 0/1 flag bytes into bits: eight bytes times this constant leaves
            // their bits, in order, in the top byte.
            let mut word = 0u64;
            for (g, group) in block.chunks_exact(8).enumerate() {
                let bytes = u64::from_le_bytes([
                    group[0], group[1], group[2], group[3], group[4], group[5], group[6], group[7],
                ]);
                word |= (bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * g);
            }
            let base = blk * FLAG_BLOCK;
            while word != 0 {
                let i = base + word.trailing_zeros() as usize;
                word &= word - 1;
                // `found <= i`: every match before `i` has been counted at most once.
                let r = rel[i];
                keys[found] = key(d2[i], r ^ row);
                found += usize::from(r != 0);
            }
        }
        found
    }
}

/// The candidate filter's tight loop over the separate x / y arrays (vectorised; kept
/// out of line so that its slices are known not to overlap): squared distance, match
/// flag (`d2 <= r2`) and id relative to `row` (`id ^ row`, zero for `row` itself) of
/// every candidate. Works on a whole number of [`GROUP`]s: all slices are cut to the
/// length of `d2` rounded down to one.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn filter(
    xs: &[f32],
    ys: &[f32],
    ids: &[u32],
    p: Vec2,
    r2: f32,
    row: u32,
    d2: &mut [f32],
    flags: &mut [u8],
    rel: &mut [u32],
) {
    let n = d2.len() / GROUP * GROUP;
    let (xs, ys, ids, d2, flags, rel) = (
        &xs[..n],
        &ys[..n],
        &ids[..n],
        &mut d2[..n],
        &mut flags[..n],
        &mut rel[..n],
    );
    for i in 0..n {
        let v = dist2(p.x, p.y, xs[i], ys[i]);
        d2[i] = v;
        flags[i] = u8::from(v <= r2);
        rel[i] = ids[i] ^ row;
    }
}

#[cfg(test)]
mod tests;
