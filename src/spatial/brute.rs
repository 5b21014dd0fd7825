//! The brute-force oracle: the neighbour contract evaluated over every row, O(n).

use glam::Vec2;

use super::{addressable, clean_radius, dist2, finish, key};

/// Brute-force oracle with the same contract as [`BatchNeighbours::gather`] followed
/// by [`BatchNeighbours::neighbours`] for one row: the rows within `r` of
/// `positions[row]` (inclusive), excluding `row`, capped to the `cap` nearest, ordered
/// by `(d2, row)`, written into `out` (cleared first). O(n) per call.
///
/// [`BatchNeighbours::gather`]: super::BatchNeighbours::gather
/// [`BatchNeighbours::neighbours`]: super::BatchNeighbours::neighbours
pub fn brute_neighbours(positions: &[Vec2], row: usize, r: f32, cap: usize, out: &mut Vec<u32>) {
    let mut keys = Vec::new();
    brute_into(positions, row, r, cap, &mut keys, out);
}

/// The keys (`(d2, row)` packed) of every row within `r` of `positions[row]`,
/// excluding `row`, in row order, written into `keys` (cleared first).
pub(super) fn brute_keys(positions: &[Vec2], row: usize, r: f32, keys: &mut Vec<u64>) {
    keys.clear();
    let positions = &positions[..addressable(positions.len())];
    let Some(p) = positions.get(row) else {
        return;
    };
    let r = clean_radius(r);
    let r2 = r * r;
    for (i, q) in positions.iter().enumerate() {
        let d2 = dist2(p.x, p.y, q.x, q.y);
        if d2 <= r2 && i != row {
            keys.push(key(d2, i as u32));
        }
    }
}

/// [`brute_neighbours`] with a caller-provided key buffer.
pub(super) fn brute_into(
    positions: &[Vec2],
    row: usize,
    r: f32,
    cap: usize,
    keys: &mut Vec<u64>,
    out: &mut Vec<u32>,
) {
    out.clear();
    keys.clear();
    let positions = &positions[..addressable(positions.len())];
    let Some(p) = positions.get(row) else {
        return;
    };
    if cap == 0 {
        return;
    }
    let r = clean_radius(r);
    let r2 = r * r;
    for (i, q) in positions.iter().enumerate() {
        let d2 = dist2(p.x, p.y, q.x, q.y);
        if d2 <= r2 && i != row {
            keys.push(key(d2, i as u32));
        }
    }
    let n = keys.len();
    finish(keys, n, cap, out);
}
