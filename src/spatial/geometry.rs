//! The geometry every index shares: the one squared distance, radii made safe and
//! padded against rounding, the bounds of a crowd (and of its bulk), and the reach of
//! a radius in cells.

use std::ops::Range;

use glam::Vec2;
use rayon::prelude::*;

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
pub(super) fn pad(r: f32) -> f32 {
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
pub(super) fn addressable(len: usize) -> usize {
    len.min(u32::MAX as usize)
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
pub(super) struct Bounds {
    pub min: Vec2,
    pub max: Vec2,
}

impl Bounds {
    /// Bounds of all the finite positions and how many there are, computed by all
    /// workers for long inputs (minimum and maximum are exact, so the result does not
    /// depend on how the work is split).
    pub(super) fn of_all(positions: &[Vec2]) -> (Option<Self>, usize) {
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
    pub(super) fn of(positions: &[Vec2], rows: Range<usize>) -> Option<Self> {
        Self::of_all(&positions[rows]).0
    }

    /// The coordinates of a fixed sample of the finite `positions` (every k-th row, at
    /// most [`CORE_SAMPLE`]) into `xs` and `ys`; returns how many.
    pub(super) fn sample(
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
    pub(super) fn core(positions: &[Vec2], all: Self) -> Self {
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

/// Cell side per unit of neighbour radius, for the grid's cells and for the cells a
/// chunk's candidates are binned into: a little over one radius, so that the cells within
/// one cell of a row's own cell hold every row within the (padded) radius.
pub(super) const CELL_PER_RADIUS: f64 = 1.01;

/// How many cells around a row's own cell hold every entry within `reach_over_side`
/// cell widths of it: cells are at least one unit wide in cell coordinates, so two
/// coordinates `a` units apart have cells at most `floor(a) + 1` apart; `slack` covers
/// rounding in the cell arithmetic.
pub(super) fn reach_cells(reach_over_side: f64, slack: f64) -> u32 {
    let a = reach_over_side + slack;
    if a < f64::from(u32::MAX - 1) {
        a as u32 + 1
    } else {
        u32::MAX - 1
    }
}
