//! The k-d tree index: kiddo's immutable tree over the positions, rebuilt every tick.

use glam::Vec2;
use kiddo::{Eytzinger, KdTree, SquaredEuclidean, VecOfArenas};

use super::{addressable, pad, Bounds};

/// Points per leaf bucket. kiddo's default (32) suits single-point queries; the
/// steering pass asks one ball query per chunk of rows (a few hundred candidates).
/// Bigger leaves mean fewer levels of median selection in the rebuild but more
/// points scanned per query; 128 gave the fewest instructions per agent-tick of the
/// whole tick in the flock profile (`docs/optimisations.md`).
const LEAF: usize = 128;

/// kiddo's immutable tree (Eytzinger stems, arena leaves) with row ids as items.
type Tree = KdTree<f32, u32, Eytzinger, VecOfArenas<f32, u32, 2, LEAF>, 2, LEAF>;

/// Coordinates are clamped into `[-BIG, BIG]` before they reach the tree (NaN goes to
/// `BIG`): the tree never sees a non-finite value, nor `f32::MAX`, and clamping is
/// 1-Lipschitz, so no row within a radius is lost.
const BIG: f32 = 1e30;

/// Below this many rows the tree is built on the calling thread.
const PARALLEL_BUILD_MIN: usize = 16_384;

#[inline]
fn clamp_coord(v: f32) -> f32 {
    if (-BIG..=BIG).contains(&v) {
        v
    } else if v < 0.0 {
        -BIG
    } else {
        BIG
    }
}

#[inline]
fn clamp_point(p: Vec2) -> [f32; 2] {
    [clamp_coord(p.x), clamp_coord(p.y)]
}

/// kiddo's immutable k-d tree over the rows.
#[derive(Default)]
pub(super) struct KdTreeIndex {
    tree: Option<Tree>,
    len: usize,
    /// Clamped copy of the positions, used only when some coordinate needs clamping.
    clamped: Vec<[f32; 2]>,
}

impl KdTreeIndex {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn rebuild(&mut self, positions: &[Vec2]) {
        let positions = &positions[..addressable(positions.len())];
        self.len = positions.len();
        // Drop the previous tree first so its memory can be reused by the allocator.
        self.tree = None;
        if positions.is_empty() {
            return;
        }
        let flat: &[[f32; 2]] = bytemuck::cast_slice(positions);
        // Usually every coordinate is in range and the positions are used in place.
        let in_range = flat.iter().fold(true, |ok, p| {
            ok & (-BIG..=BIG).contains(&p[0]) & (-BIG..=BIG).contains(&p[1])
        });
        let source = if in_range {
            flat
        } else {
            self.clamped.clear();
            self.clamped
                .extend(positions.iter().map(|&p| clamp_point(p)));
            &self.clamped[..]
        };
        let built = Tree::builder()
            .with_parallel_construction_threshold(PARALLEL_BUILD_MIN)
            .build_from_slice(source);
        self.tree = built.ok();
    }

    /// Rows whose (clamped) position is within `reach` of `p` (already padded).
    pub(super) fn for_each_within(&self, p: Vec2, reach: f32, f: &mut impl FnMut(u32)) {
        match &self.tree {
            Some(tree) => {
                let q = clamp_point(p);
                tree.query(&q)
                    .within::<SquaredEuclidean<f32>>(reach * reach)
                    .unsorted()
                    .visit(|hit| f(hit.item));
            }
            None => {
                // Only reachable if construction failed: fall back to every row.
                for row in 0..self.len {
                    f(row as u32);
                }
            }
        }
    }

    /// Candidates for every point of `b` at radius `r`: one ball query around the box
    /// centre, rows pushed to `ids`. Returns the ball (centre, padded radius), or `None`
    /// when it cannot be evaluated (overflow); the caller then takes every row.
    pub(super) fn gather(&self, b: Bounds, r: f32, ids: &mut Vec<u32>) -> Option<(Vec2, f32)> {
        let c = b.min * 0.5 + b.max * 0.5;
        let ex = (b.max.x - c.x).max(c.x - b.min.x);
        let ey = (b.max.y - c.y).max(c.y - b.min.y);
        let reach = pad(r + (ex * ex + ey * ey).sqrt());
        let reach2 = reach * reach;
        if !reach2.is_finite() {
            return None;
        }
        let Some(tree) = &self.tree else {
            // Empty, or construction failed: every row is a candidate.
            ids.extend(0..self.len as u32);
            return Some((c, reach));
        };
        let q = clamp_point(c);
        tree.query(&q)
            .within::<SquaredEuclidean<f32>>(reach2)
            .unsorted()
            .visit(|hit| ids.push(hit.item));
        Some((c, reach))
    }
}
