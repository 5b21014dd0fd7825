//! A spatially coherent row order: positions quantised to 16 bits per axis, keyed along
//! a space-filling curve, sorted by (key, row) in place.

use glam::Vec2;
use rayon::prelude::*;

use super::cells::NO_CELL;
use super::grid::GridFrame;
use super::{addressable, Bounds, IndexKind, SpatialIndex};

/// Below this many rows the keys are computed and sorted on the calling thread.
const PARALLEL_MIN: usize = 16_384;

/// Bits per axis of the quantised positions: a 2048 × 2048 lattice over the bounding
/// square, fine enough that neighbouring lattice cells rarely hold more than a few rows
/// even for millions of rows.
const AXIS_BITS: u32 = 11;
const AXIS_MAX: u32 = (1 << AXIS_BITS) - 1;
// `hilbert` works on 16-bit words.
const _: () = assert!(AXIS_BITS <= 16);

/// Reusable buffers for [`spatial_order`].
#[derive(Default)]
pub struct OrderScratch {
    keys: Vec<u64>,
}

impl OrderScratch {
    /// Empty buffers (they grow on first use and are then reused).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// A spatially coherent order of the rows: the position of each row is quantised to
/// 11 bits per axis over the (square) bounding box of the bulk of the finite positions
/// (`Bounds::core`: rows far outside it are clamped to its edge) and keyed
/// along the Hilbert curve; rows are sorted by `(key, row)`, in place. Rows with a non-finite coordinate come last. Fills `perm` with `perm[new_row] = old_row`.
/// Deterministic, independent of the rayon thread count.
pub fn spatial_order(positions: &[Vec2], perm: &mut Vec<u32>, scratch: &mut OrderScratch) {
    perm.clear();
    let keys = spatial_keys(positions, scratch);
    // The low 32 bits of a key are its row.
    perm.extend(keys.iter().map(|&k| k as u32));
}

/// [`spatial_order`]'s sorted keys: the low 32 bits of the `k`-th are the row that
/// goes to row `k` (`perm[k]`); the high 32 bits, the curve key, are free to
/// overwrite once sorted ([`crate::agents::Cycles`] does).
pub(crate) fn spatial_keys<'a>(positions: &[Vec2], scratch: &'a mut OrderScratch) -> &'a mut [u64] {
    let n = addressable(positions.len());
    let positions = &positions[..n];
    let keys = &mut scratch.keys;
    keys.clear();
    if n == 0 {
        return keys;
    }
    // Over the bulk of the crowd: rows parked far away are clamped to its edge rather
    // than squeezing the crowd into a few lattice cells.
    let (min, scale) = match Bounds::of(positions, 0..n).map(|all| Bounds::core(positions, all)) {
        Some(b) => {
            let ext = (f64::from(b.max.x) - f64::from(b.min.x))
                .max(f64::from(b.max.y) - f64::from(b.min.y));
            let scale = if ext > 0.0 {
                f64::from(AXIS_MAX) / ext
            } else {
                0.0
            };
            ([f64::from(b.min.x), f64::from(b.min.y)], scale)
        }
        None => ([0.0; 2], 0.0),
    };
    let key_of = |p: &Vec2| -> u32 {
        if p.is_finite() {
            let qx = quantise(f64::from(p.x), min[0], scale);
            let qy = quantise(f64::from(p.y), min[1], scale);
            hilbert(qx, qy)
        } else {
            // After every finite row.
            1 << (2 * AXIS_BITS)
        }
    };
    sorted_keys(keys, positions, key_of)
}

/// The grid's own order of the rows: by the cell a grid over `positions` with cells of
/// about `cell_hint` puts them in ([`GridFrame`]: band by band, then across), then by
/// row; rows with a non-finite coordinate ([`NO_CELL`]) last. Keys as
/// [`spatial_keys`]'s, the cell id in place of the curve's.
///
/// With the rows in this order, the grid's counting sort writes its entries in order,
/// and a pass over the rows in order reads the stored entries of three bands of cells,
/// each front to back; along the Hilbert curve it reads them in jumps. The same
/// instructions, fewer waits on memory (`docs/optimisations.md`, "The grid's own row
/// order").
pub(crate) fn grid_keys<'a>(
    positions: &[Vec2],
    cell_hint: f32,
    scratch: &'a mut OrderScratch,
) -> &'a mut [u64] {
    let n = addressable(positions.len());
    let positions = &positions[..n];
    let keys = &mut scratch.keys;
    keys.clear();
    match GridFrame::over(positions, cell_hint) {
        Some(frame) => sorted_keys(keys, positions, move |p| frame.cell(*p)),
        // No finite position: every row in no cell, in its order.
        None => sorted_keys(keys, positions, |_| NO_CELL),
    }
}

/// [`grid_keys`]' order without its sort, where `index` is a grid: rebuilt over
/// `positions` with the same cells, its counting sort stores the rows in exactly that
/// order (by cell, then by row; the rows in no cell last), which is read off its
/// entries. Only the low halves (the rows) are [`grid_keys`]' (the high halves are
/// zero, free for [`crate::agents::Cycles`] as theirs are). Falls back on
/// [`grid_keys`] for a k-d tree, and for a grid that stores a sample of an over-full
/// cell (a pile), which is not every row (`docs/optimisations.md`, "The grid's order
/// read off the grid").
pub(crate) fn grid_keys_by_index<'a>(
    index: &mut SpatialIndex,
    positions: &[Vec2],
    cell_hint: f32,
    scratch: &'a mut OrderScratch,
) -> &'a mut [u64] {
    let positions = &positions[..addressable(positions.len())];
    let stored = match index.kind() {
        IndexKind::Grid => {
            index.rebuild(positions, None, cell_hint);
            index
                .grid()
                .is_some_and(|grid| grid.stored_order(&mut scratch.keys))
        }
        IndexKind::KdTree => false,
    };
    if stored {
        return &mut scratch.keys;
    }
    grid_keys(positions, cell_hint, scratch)
}

/// `keys` filled with `(key_of(position) << 32) | row` for every row of `positions`
/// (at most `u32::MAX` of them), sorted.
fn sorted_keys<'a>(
    keys: &'a mut Vec<u64>,
    positions: &[Vec2],
    key_of: impl Fn(&Vec2) -> u32 + Sync,
) -> &'a mut [u64] {
    let n = positions.len();
    let key = |(row, p): (usize, &Vec2)| (u64::from(key_of(p)) << 32) | row as u64;
    if n >= PARALLEL_MIN {
        keys.par_extend(positions.par_iter().enumerate().with_min_len(4096).map(key));
    } else {
        keys.extend(positions.iter().enumerate().map(key));
    }
    // In place (no second buffer of keys); the keys are distinct (the row is in
    // them), so the order is the same whatever the sort and the thread count.
    if n >= PARALLEL_MIN {
        keys.par_sort_unstable();
    } else {
        keys.sort_unstable();
    }
    keys
}

/// `v` quantised to `0..=AXIS_MAX` along an axis starting at `min`.
#[inline]
fn quantise(v: f64, min: f64, scale: f64) -> u32 {
    ((v - min) * scale).clamp(0.0, f64::from(AXIS_MAX)) as u32
}

/// Hilbert curve index of a quantised point on the `2^AXIS_BITS` lattice. Unlike the
/// Z-order curve, consecutive indices are always adjacent lattice cells, so any run of
/// consecutive rows (a steering chunk) is a compact patch rather than, at a jump of the
/// Z curve, two patches far apart: the chunk's bounding box, and the candidates a
/// batched query gathers for it, stay small.
///
/// Computed without a loop over the levels: the quadrant transforms of all levels
/// compose as a prefix scan over the bits, done in log2(16) = 4 rounds of bitwise
/// operations on 16-bit words (the bit-parallel formulation of the curve; the same
/// indices as the textbook loop, checked on the whole lattice by the tests).
#[inline]
fn hilbert(x: u32, y: u32) -> u32 {
    const ONES: u32 = 0xFFFF;
    // Coordinates at the top of 16-bit words.
    let x = (x & AXIS_MAX) << (16 - AXIS_BITS);
    let y = (y & AXIS_MAX) << (16 - AXIS_BITS);
    // Per bit: the state of the transform (a, b) and the swap / mirror it applies
    // (c, d), first for each level on its own.
    let (mut a, mut b, mut c, mut d) = {
        let a0 = x ^ y;
        let b0 = ONES ^ a0;
        let c0 = ONES ^ (x | y);
        let d0 = x & (y ^ ONES);
        (
            a0 | (b0 >> 1),
            (a0 >> 1) ^ a0,
            ((c0 >> 1) ^ (b0 & (d0 >> 1))) ^ c0,
            ((a0 & (c0 >> 1)) ^ (d0 >> 1)) ^ d0,
        )
    };
    // Compose each level's transform with those of the levels above it.
    for shift in [2, 4] {
        let (a0, b0, c0, d0) = (a, b, c, d);
        a = (a0 & (a0 >> shift)) ^ (b0 & (b0 >> shift));
        b = (a0 & (b0 >> shift)) ^ (b0 & ((a0 ^ b0) >> shift));
        c ^= (a0 & (c0 >> shift)) ^ (b0 & (d0 >> shift));
        d ^= (b0 & (c0 >> shift)) ^ ((a0 ^ b0) & (d0 >> shift));
    }
    let (c0, d0) = (c, d);
    c ^= (a & (c0 >> 8)) ^ (b & (d0 >> 8));
    d ^= (b & (c0 >> 8)) ^ ((a ^ b) & (d0 >> 8));
    // Undo the scan's encoding and read the two bits of each level's digit.
    let a = c ^ (c >> 1);
    let b = d ^ (d >> 1);
    let i0 = x ^ y;
    let i1 = b | (ONES ^ (i0 | a));
    ((spread_bits(i1) << 1) | spread_bits(i0)) >> (32 - 2 * AXIS_BITS)
}

/// The low 16 bits of `v` spread to the even bits of the result.
#[inline]
fn spread_bits(v: u32) -> u32 {
    let v = (v | (v << 8)) & 0x00FF_00FF;
    let v = (v | (v << 4)) & 0x0F0F_0F0F;
    let v = (v | (v << 2)) & 0x3333_3333;
    (v | (v << 1)) & 0x5555_5555
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook loop, one level at a time (the reference).
    fn hilbert_by_levels(x: u32, y: u32) -> u32 {
        let (mut x, mut y) = (x & AXIS_MAX, y & AXIS_MAX);
        let mut d = 0;
        let mut s = 1 << (AXIS_BITS - 1);
        while s > 0 {
            let rx = u32::from(x & s != 0);
            let ry = u32::from(y & s != 0);
            d += s * s * ((3 * rx) ^ ry);
            // Rotate the quadrant so the sub-curve is traversed in the standard order:
            // in the lower quadrants (ry = 0) mirror (right one only: `AXIS_MAX - v`,
            // an XOR with all ones for `v <= AXIS_MAX`) and swap x and y. Written with
            // masks, not branches: the quadrant sequence is data and mispredicts.
            let lower = ry.wrapping_sub(1); // all ones when ry == 0
            let mirror = lower & rx.wrapping_neg() & AXIS_MAX;
            x ^= mirror;
            y ^= mirror;
            let t = (x ^ y) & lower;
            x ^= t;
            y ^= t;
            s >>= 1;
        }
        d
    }

    #[test]
    fn hilbert_matches_the_loop_over_levels() {
        for y in 0..=AXIS_MAX {
            for x in 0..=AXIS_MAX {
                assert_eq!(hilbert(x, y), hilbert_by_levels(x, y), "({x}, {y})");
            }
        }
        // Bits above the lattice are ignored by both.
        assert_eq!(hilbert(AXIS_MAX + 5, 3), hilbert_by_levels(AXIS_MAX + 5, 3));
    }

    #[test]
    fn hilbert_walks_the_lattice_one_step_at_a_time() {
        // Every lattice cell gets a distinct index, and cells with consecutive
        // indices are edge neighbours.
        let side = 1usize << AXIS_BITS;
        let mut at = vec![u32::MAX; side * side];
        for y in 0..side as u32 {
            for x in 0..side as u32 {
                let d = hilbert(x, y) as usize;
                assert_eq!(at[d], u32::MAX, "index {d} given twice");
                at[d] = (y << 16) | x;
            }
        }
        for w in at.windows(2) {
            let (ax, ay) = (w[0] & 0xFFFF, w[0] >> 16);
            let (bx, by) = (w[1] & 0xFFFF, w[1] >> 16);
            assert_eq!(ax.abs_diff(bx) + ay.abs_diff(by), 1);
        }
        // The curve starts at the origin and ends at the far end of the x axis.
        assert_eq!(hilbert(0, 0), 0);
        assert_eq!(hilbert(AXIS_MAX, 0), (side * side - 1) as u32);
    }
}
