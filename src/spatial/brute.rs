//! The brute-force oracle: the neighbour contract evaluated over every row, O(n).

use glam::Vec2;

use super::scan::dist_key;
use super::{addressable, clean_radius, dist2};

/// Brute-force oracle with the contract of a [`NeighbourQuery`] scan: the rows within
/// `r` of `positions[row]` (inclusive), excluding `row`, capped to the `cap` nearest,
/// ordered by `(d2, row)` (a query made [`sorted`](super::NeighbourQuery::sorted) gives the
/// same list), written into `out` (cleared first). O(n) per call.
///
/// [`NeighbourQuery`]: super::NeighbourQuery
pub fn brute_neighbours(positions: &[Vec2], row: usize, r: f32, cap: usize, out: &mut Vec<u32>) {
    let mut keys = Vec::new();
    brute_keys(positions, row, r, &mut keys);
    keys.sort_unstable();
    out.clear();
    // Truncation keeps the low 32 bits of a key: the row.
    out.extend(keys.iter().take(cap).map(|&k| k as u32));
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
            keys.push(dist_key(d2, i as u32));
        }
    }
}
