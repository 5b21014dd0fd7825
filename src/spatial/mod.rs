//! Neighbour search: the spatial index rebuilt every tick, the neighbour scan, a
//! brute-force oracle and a spatially coherent row order.
//!
//! # Contract
//!
//! A row `j` is a neighbour of row `i` at radius `r` when `j != i` and
//! `d2 <= r * r`, where `d2 = dx * dx + dy * dy` with `dx = x[j] - x[i]`,
//! `dy = y[j] - y[i]`, evaluated in `f32` exactly in that order (see [`dist2`]). A
//! query keeps at most `cap` neighbours: the `cap` nearest by `(d2, row)` — a total
//! order, so the kept set never depends on the index kind, on the order candidates
//! were produced in, or on the rayon thread count.
//!
//! A radius that is negative or not finite is treated as `0` (which still matches rows
//! at exactly the same coordinates). Rows with a non-finite coordinate never match a
//! finite radius whose square is finite. Only the first `u32::MAX` rows are addressed.
//!
//! # The scan
//!
//! Both indexes hand the scan the same layout (`cells::CellTable`): entries (x, y and
//! row id in separate arrays) binned by a counting sort into square cells a little over
//! one radius wide, stored by cell with an empty border, so that a row's 3 × 3 cells
//! are three contiguous spans of entries read at fixed offsets from its cell id. The
//! grid keeps every row in one table; with the tree, [`BatchNeighbours::gather`] runs
//! one ball query per chunk of [`CHUNK_ROWS`] rows (kept in [`spatial_order`], along a
//! Hilbert curve, so a chunk is a compact patch) and bins its candidates into a table
//! of their own.
//!
//! [`BatchNeighbours::scan`] — the one entry point, taking a [`NeighbourQuery`] — tests
//! four entries at a time (one SSE / NEON vector: squared distances, compare, sign-bit
//! mask) and compacts the matching row ids without branches (the number of matches per
//! group of four is too irregular for a branch predictor). A list within the cap is
//! returned as it is, in scan order; an over-full list is cut to the `cap` nearest,
//! still in scan order; [`NeighbourQuery::sorted`] sorts it by `(d2, row)`.
//!
//! Every superset argument (ball, box, cells) uses a radius padded against rounding
//! and monotone cell functions, so the candidate sets always contain every row that the
//! exact test accepts; the tests compare the scan with [`brute_neighbours`].
//!
//! A capped query first scans a narrower radius sized from the density of the cells
//! around the row, widening it (or, when it found far more than foretold, narrowing it
//! once) until it holds the cap: the cap nearest within the full radius are then all
//! among what it found, so the answer is the same as the full scan's.
//!
//! # Crowds denser than bodies can stand
//!
//! The contract above holds while no cell holds more than 256 rows (`grid::MAX_PER_CELL`;
//! cells are a little over one radius wide, and bodies one radius apart fill a few dozen).
//! A fuller cell — a crowd spawned on one point, spreading out — stores an even sample of
//! 256 of its rows (`grid::cap_cells`), which every query then sees in place of the whole
//! cell: the answer is the cap nearest of the stored rows, still a function of the
//! positions alone (never of the thread count), but not of every row. Such a cell also
//! gets 8 × 8 finer cells over its sample (`cells::CellTable::refine`), so that a narrow
//! query inside the pile reads a few of them instead of the whole cell. With the tree,
//! each chunk's candidates are sampled the same way, so the two indexes may keep
//! different rows there; and the chunks of a block of 1024 rows all within one radius of
//! its centre share one gather (`batch::block`), since each would gather the whole pile.

mod batch;
mod brute;
mod cells;
mod grid;
mod kdtree;
mod order;
mod query;
mod scan;

use std::ops::Range;

use glam::Vec2;
use rayon::prelude::*;

pub use batch::BatchNeighbours;
pub(crate) use batch::Candidates;
pub use brute::brute_neighbours;
pub(crate) use order::{grid_keys_by_index, spatial_keys};
pub use order::{spatial_order, OrderScratch};
pub use query::NeighbourQuery;

use grid::GridIndex;
use kdtree::KdTreeIndex;

/// Rows per chunk recommended for [`BatchNeighbours::gather`]: with rows in
/// [`spatial_order`] a chunk is a compact patch, and 128 rows measured fewer
/// instructions per agent than 32 or 64 in the flock, circle and city profiles
/// (256 only marginally fewer again, with half as many chunks to share out).
pub const CHUNK_ROWS: usize = 128;

/// The scan works on groups of this many entries (one vector of `f32`); entry arrays
/// carry this many never-matching entries at their end to keep it in bounds.
const GROUP: usize = 4;

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

/// Give `v` room for as many elements as `like` has room for, exactly (no allocation
/// when it already has): how scratch buffers of several workers are brought to the
/// largest. Exactly, not with `reserve`'s doubling, or two buffers brought to each
/// other would outgrow each other in turn.
pub(crate) fn reserve_like<T>(v: &mut Vec<T>, like: &Vec<T>) {
    if v.capacity() < like.capacity() {
        v.reserve_exact(like.capacity() - v.len());
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

    /// The coordinates of a fixed sample of the finite `positions` (every k-th row, at
    /// most [`CORE_SAMPLE`]) into `xs` and `ys`; returns how many.
    fn sample(
        positions: &[Vec2],
        xs: &mut [f32; CORE_SAMPLE],
        ys: &mut [f32; CORE_SAMPLE],
    ) -> usize {
        let step = positions.len().div_ceil(CORE_SAMPLE).max(1);
        let mut m = 0;
        for p in positions.iter().step_by(step).filter(|p| p.is_finite()) {
            (xs[m], ys[m]) = (p.x, p.y);
            m += 1;
        }
        m
    }

    /// Where the bulk of `positions` lies, inside `all` (their bounds): per axis, the
    /// values between the [`CORE_TRIM`] and `1 - CORE_TRIM` quantiles of a fixed sample
    /// of at most [`CORE_SAMPLE`] rows (every k-th), widened by half their spread on
    /// each side. So a few agents parked far away (pooled entities, a stray at 1e6) do
    /// not stretch the structures laid over the crowd: they are clamped to its edge
    /// instead. A crowd without such outliers gets `all` back. Deterministic: the
    /// sample depends on the row count only.
    fn core(positions: &[Vec2], all: Self) -> Self {
        let n = positions.len();
        if n < CORE_MIN_ROWS {
            return all;
        }
        let mut xs = [0f32; CORE_SAMPLE];
        let mut ys = [0f32; CORE_SAMPLE];
        let m = Self::sample(positions, &mut xs, &mut ys);
        if m < CORE_MIN_ROWS {
            return all;
        }
        let lo = ((m as f32 * CORE_TRIM) as usize).min(m - 1);
        let hi = (m - 1).saturating_sub(lo);
        let range = |v: &mut [f32]| -> (f32, f32) {
            let (_, &mut a, rest) = v.select_nth_unstable_by(lo, f32::total_cmp);
            let b = *rest.select_nth_unstable_by(hi - lo - 1, f32::total_cmp).1;
            let spread = b - a;
            (a - 0.5 * spread, b + 0.5 * spread)
        };
        let (x0, x1) = range(&mut xs[..m]);
        let (y0, y1) = range(&mut ys[..m]);
        let min = Vec2::new(x0, y0).max(all.min);
        let max = Vec2::new(x1, y1).min(all.max);
        if min.cmple(max).all() {
            Self { min, max }
        } else {
            all
        }
    }
}

/// Rows sampled by [`Bounds::core`].
pub(super) const CORE_SAMPLE: usize = 2048;
/// Fraction of the sample left out at each end of each axis by [`Bounds::core`].
const CORE_TRIM: f32 = 0.02;
/// Below this many rows (or finite samples), [`Bounds::core`] keeps every row.
const CORE_MIN_ROWS: usize = 64;

/// The neighbour index: owns its buffers and is rebuilt over all positions every tick.
///
/// The grid reuses its buffers from one rebuild to the next (no allocation once they
/// have grown to the row count). The tree is built by kiddo, which has no in-place
/// rebuild: each rebuild allocates the new tree (and frees the previous one).
pub struct SpatialIndex {
    inner: Inner,
    /// Which build this is: unique among all the builds of all indexes in the process
    /// (a [`BatchNeighbours`] keeps a gather only while the index it was made over is
    /// the same build).
    build: u64,
}

/// A number no other build of any index has had ([`SpatialIndex::build`]).
fn next_build() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static BUILDS: AtomicU64 = AtomicU64::new(1);
    BUILDS.fetch_add(1, Ordering::Relaxed)
}

// One per world, built once and matched in place, never moved about: the size of the
// larger variant costs nothing, and boxing it would add a load to every query.
#[allow(clippy::large_enum_variant)]
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
        Self {
            inner,
            build: next_build(),
        }
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
    /// With `unit_vels` (the rows' unit velocities), a grid also stores each entry's,
    /// for one-pass sums over the candidates (the tree's chunk candidates take theirs
    /// at [`BatchNeighbours::gather`]). May use rayon internally; the result does not
    /// depend on the thread count.
    pub fn rebuild(&mut self, positions: &[Vec2], unit_vels: Option<&[Vec2]>, cell_hint: f32) {
        self.build = next_build();
        match &mut self.inner {
            Inner::KdTree(t) => {
                crate::zone!("k-d tree build");
                t.rebuild(positions);
            }
            Inner::Grid(g) => {
                crate::zone!("grid build");
                g.rebuild(positions, unit_vels, cell_hint);
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

#[cfg(test)]
mod tests;
