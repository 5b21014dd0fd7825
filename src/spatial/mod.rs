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
//! [`spatial_order`], so a chunk is spatially compact). [`BatchNeighbours::gather`] runs
//! one index query for the whole chunk and keeps the candidates' `x`, `y` and row ids in
//! separate arrays; [`BatchNeighbours::neighbours`] then filters them per row with a
//! tight loop over those arrays.

mod brute;
mod grid;
mod kdtree;
mod order;

use std::ops::Range;

use glam::Vec2;

pub use brute::brute_neighbours;
pub use order::{spatial_order, OrderScratch};

use grid::GridIndex;
use kdtree::KdTreeIndex;

/// Rows per chunk recommended for [`BatchNeighbours::gather`] (measured fastest for
/// about ten neighbours per row with rows in [`spatial_order`]).
pub const CHUNK_ROWS: usize = 32;

/// Width of the blocks the candidate filter works on. Candidate arrays are padded to a
/// multiple of this with entries that never match.
const LANES: usize = 16;

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

/// Keep the `cap` smallest keys, sorted, and write their rows into `out`.
fn finish(keys: &mut Vec<u64>, cap: usize, out: &mut Vec<u32>) {
    if keys.len() > cap {
        if cap == 0 {
            keys.clear();
        } else {
            keys.select_nth_unstable(cap);
            keys.truncate(cap);
        }
    }
    keys.sort_unstable();
    // Truncation keeps the low 32 bits: the row.
    out.extend(keys.iter().map(|&k| k as u32));
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

/// Axis-aligned box of the finite positions of a chunk of rows.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    min: Vec2,
    max: Vec2,
}

impl Bounds {
    /// Bounds of the finite positions among `rows`; `None` when there are none.
    fn of(positions: &[Vec2], rows: Range<usize>) -> Option<Self> {
        let mut min = Vec2::splat(f32::INFINITY);
        let mut max = Vec2::splat(f32::NEG_INFINITY);
        let mut any = false;
        for p in &positions[rows] {
            if p.is_finite() {
                min = min.min(*p);
                max = max.max(*p);
                any = true;
            }
        }
        any.then_some(Self { min, max })
    }
}

/// The neighbour index: owns its buffers and is rebuilt over all positions every tick.
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
        match &mut self.inner {
            Inner::KdTree(t) => t.rebuild(positions),
            Inner::Grid(g) => g.rebuild(positions, cell_hint),
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

/// Per-worker scratch for batched neighbour search: the candidates of one chunk of rows
/// (x, y and row ids in separate arrays) and a sort buffer.
///
/// Call [`gather`](Self::gather) once per chunk, then [`neighbours`](Self::neighbours)
/// for each row of the chunk, with the same positions and a radius no larger than the
/// gathered one.
#[derive(Default)]
pub struct BatchNeighbours {
    xs: Vec<f32>,
    ys: Vec<f32>,
    ids: Vec<u32>,
    keys: Vec<u64>,
    /// Rows the last gather covered.
    rows: Range<usize>,
    /// Radius (cleaned) the last gather covered.
    r: f32,
    /// Length of the positions the last gather saw.
    len: usize,
    /// Candidates kept by the last gather (before padding).
    count: usize,
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
        self.count
    }

    /// One index query for the whole chunk `rows` (clamped to `positions`): radius `r`
    /// around every row of the chunk, i.e. `r` plus the chunk's extent around its
    /// centre. `index` must have been rebuilt over `positions`.
    pub fn gather(&mut self, index: &SpatialIndex, positions: &[Vec2], rows: Range<usize>, r: f32) {
        self.xs.clear();
        self.ys.clear();
        self.ids.clear();
        self.count = 0;
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
        let Some(b) = Bounds::of(positions, rows) else {
            return;
        };
        let ok = match &index.inner {
            Inner::KdTree(t) => t.gather(b, r, &mut self.ids),
            Inner::Grid(g) => g.gather(b, reach, &mut self.xs, &mut self.ys, &mut self.ids),
        };
        if !ok {
            self.gather_all(positions);
            return;
        }
        if let Inner::KdTree(_) = index.inner {
            // The tree yields rows: fetch their coordinates (spatially sorted rows make
            // these reads local).
            self.xs.reserve(self.ids.len() + LANES);
            self.ys.reserve(self.ids.len() + LANES);
            for &id in &self.ids {
                let q = positions.get(id as usize).copied().unwrap_or(Vec2::NAN);
                self.xs.push(q.x);
                self.ys.push(q.y);
            }
        }
        self.pad_lanes();
    }

    /// Every row is a candidate (overflowing radius, or an index that could not bound
    /// the query).
    fn gather_all(&mut self, positions: &[Vec2]) {
        self.xs.clear();
        self.ys.clear();
        self.ids.clear();
        let n = addressable(positions.len());
        self.xs.extend(positions[..n].iter().map(|p| p.x));
        self.ys.extend(positions[..n].iter().map(|p| p.y));
        self.ids.extend(0..n as u32);
        self.pad_lanes();
    }

    /// Pad the candidate arrays to a multiple of [`LANES`] with entries that never
    /// match (NaN coordinates).
    fn pad_lanes(&mut self) {
        self.count = self.ids.len();
        let padded = self.ids.len().div_ceil(LANES) * LANES;
        self.xs.resize(padded, f32::NAN);
        self.ys.resize(padded, f32::NAN);
        self.ids.resize(padded, u32::MAX);
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
        let p = positions[row];
        let r2 = r * r;
        self.keys.clear();
        filter(
            &self.xs,
            &self.ys,
            &self.ids,
            p.x,
            p.y,
            r2,
            row as u32,
            &mut self.keys,
        );
        finish(&mut self.keys, cap, out);
    }
}

/// The per-row candidate filter: blocks of [`LANES`] distances computed over the
/// separate x / y arrays (vectorised), reduced to a bit mask, then the few matches
/// pushed as sort keys. `xs`, `ys` and `ids` have equal lengths, a multiple of
/// [`LANES`].
#[inline]
#[allow(clippy::too_many_arguments)]
fn filter(
    xs: &[f32],
    ys: &[f32],
    ids: &[u32],
    px: f32,
    py: f32,
    r2: f32,
    row: u32,
    keys: &mut Vec<u64>,
) {
    for ((cx, cy), ci) in xs
        .chunks_exact(LANES)
        .zip(ys.chunks_exact(LANES))
        .zip(ids.chunks_exact(LANES))
    {
        let mut d2 = [0f32; LANES];
        for j in 0..LANES {
            d2[j] = dist2(px, py, cx[j], cy[j]);
        }
        let mut mask = 0u32;
        for j in 0..LANES {
            mask |= u32::from(d2[j] <= r2) << j;
        }
        while mask != 0 {
            let j = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let id = ci[j];
            if id != row {
                keys.push(key(d2[j], id));
            }
        }
    }
}

#[cfg(test)]
mod tests;
