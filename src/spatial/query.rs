//! [`NeighbourQuery`]: what a neighbour scan looks for, checked and derived once for
//! many rows.

use super::{clean_radius, pad, SpatialIndex};

/// A neighbour query, prepared for an index as it was last rebuilt (make a new one
/// after a rebuild): the rows within a radius of a row, at most a cap of them (the
/// nearest by `(d2, row)` when more are within), in the index's scan order unless
/// [`sorted`](Self::sorted). Built like kiddo's queries, one option at a time:
///
/// ```
/// # use glam::Vec2;
/// # use throng::spatial::{BatchNeighbours, IndexKind, NeighbourQuery, SpatialIndex};
/// let positions = [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.5, 0.0), Vec2::new(9.0, 9.0)];
/// let mut index = SpatialIndex::new(IndexKind::Grid);
/// index.rebuild(&positions, None, 2.0);
/// let query = NeighbourQuery::within(&index, 2.0).at_most(8).sorted();
/// let mut scratch = BatchNeighbours::new();
/// scratch.gather(&index, &positions, 0..4, 2.0, None);
/// assert_eq!(scratch.scan(&index, &positions, 0, &query), &[2, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NeighbourQuery {
    /// The radius ([`clean_radius`]), its square and its padded reach.
    pub(super) r: f32,
    pub(super) r2: f32,
    pub(super) reach: f32,
    pub(super) cap: usize,
    /// Whether the reach's square is finite (otherwise the cells are not used).
    pub(super) finite: bool,
    /// For a grid index: how many cells around a row's own hold every row within the
    /// reach (1 in practice: cells are a little over one radius wide).
    pub(super) grid_cells: u32,
    /// Distance order instead of scan order.
    pub(super) sorted: bool,
    /// Entries per unit of area around a row above which it counts as crowded
    /// ([`super::scan::crowd_per_area`]).
    pub(super) crowd: f32,
}

impl NeighbourQuery {
    /// The rows within `radius` of a row (inclusive: `d2 <= radius²`), itself excluded,
    /// all of them, in scan order. A radius that is negative or not finite counts as 0.
    #[inline]
    #[must_use]
    pub fn within(index: &SpatialIndex, radius: f32) -> Self {
        let r = clean_radius(radius);
        let reach = pad(r);
        Self {
            r,
            r2: r * r,
            reach,
            cap: usize::MAX,
            finite: (reach * reach).is_finite(),
            grid_cells: index.grid().map_or(0, |g| g.reach_cells(reach)),
            sorted: false,
            crowd: f32::INFINITY,
        }
    }

    /// At most `cap` rows: the `cap` nearest by `(d2, row)` when more are within.
    #[inline]
    #[must_use]
    pub fn at_most(self, cap: usize) -> Self {
        Self {
            cap,
            crowd: super::scan::crowd_per_area(self.r2, cap),
            ..self
        }
    }

    /// Rows in `(d2, row)` order (the brute-force oracle's) instead of scan order: the
    /// order the index stores them in, a fixed function of the positions, the index
    /// kind and (for the tree) the gathered chunk, never of the thread count. The
    /// steering pass keeps scan order, which saves sorting each list.
    #[must_use]
    pub fn sorted(self) -> Self {
        Self {
            sorted: true,
            ..self
        }
    }

    /// The (cleaned) radius.
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.r
    }

    /// The squared radius.
    #[must_use]
    pub fn radius_sq(&self) -> f32 {
        self.r2
    }

    /// The cap.
    #[must_use]
    pub fn cap(&self) -> usize {
        self.cap
    }
}
