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
mod geometry;
mod grid;
mod kdtree;
mod order;
mod query;
mod scan;

use glam::Vec2;

pub use batch::BatchNeighbours;
pub(crate) use batch::Candidates;
pub use brute::brute_neighbours;
pub(crate) use order::{grid_keys_by_index, spatial_keys};
pub use order::{spatial_order, OrderScratch};
pub use query::NeighbourQuery;

pub(crate) use geometry::reserve_like;
use geometry::{addressable, pad, reach_cells, Bounds, CELL_PER_RADIUS, CORE_SAMPLE};
pub use geometry::{clean_radius, dist2};

use grid::GridIndex;
use kdtree::KdTreeIndex;

/// Rows per chunk recommended for [`BatchNeighbours::gather`]: with rows in
/// [`spatial_order`] a chunk is a compact patch; 128 rows cost fewer instructions
/// than smaller chunks, and larger ones leave fewer chunks to share out
/// (`docs/optimisations.md`).
pub const CHUNK_ROWS: usize = 128;

/// The scan works on groups of this many entries (one vector of `f32`); entry arrays
/// carry this many never-matching entries at their end to keep it in bounds.
const GROUP: usize = 4;
// The scan's compaction masks a slot with `GROUP - 1`.
const _: () = assert!(GROUP.is_power_of_two());

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

    /// The grid, when this index is one: the one place besides the index's own
    /// methods that looks inside it.
    #[inline]
    fn grid(&self) -> Option<&GridIndex> {
        match &self.inner {
            Inner::Grid(g) => Some(g),
            Inner::KdTree(_) => None,
        }
    }

    /// The k-d tree, when this index is one.
    #[inline]
    fn tree(&self) -> Option<&KdTreeIndex> {
        match &self.inner {
            Inner::KdTree(t) => Some(t),
            Inner::Grid(_) => None,
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

#[cfg(test)]
mod tests;
