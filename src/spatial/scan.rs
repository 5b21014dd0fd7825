//! The scan's inner loops: the rows of a span of cell entries within a radius, four
//! entries at a time, compacted without branches; and the selection of the nearest
//! rows of an over-full list.

use glam::Vec2;
use wide::i32x4;

use super::cells::CellTable;
use super::{dist2, pad, GROUP};

/// Sort key of a match: the squared distance's bits (monotone for non-negative,
/// non-NaN floats) above the row index, so integer order is `(d2, row)` order.
#[inline(always)]
pub(super) fn dist_key(d2: f32, row: u32) -> u64 {
    (u64::from(d2.to_bits()) << 32) | u64::from(row)
}

/// One row's scan: its position, the squared radius and the row itself (which is
/// never its own neighbour).
#[derive(Clone, Copy)]
pub(super) struct Probe {
    pub p: Vec2,
    pub r2: f32,
    pub row: u32,
}

/// The rows of the entries in `spans` (each `(start, end)`) within the probe's radius,
/// except the probe's row, written to the front of `hits` (grown as needed); returns
/// how many. Inlined always: the scan's hot loop (left to the compiler in its own
/// module, it was called instead; `docs/optimisations.md`).
#[inline(always)]
fn scan_spans(
    entries: (&[f32], &[f32], &[u32]),
    spans: impl Iterator<Item = (usize, usize)>,
    probe: Probe,
    hits: &mut Vec<u32>,
) -> usize {
    let mut found = 0;
    for (s, e) in spans {
        grow_hits(hits, found + (e - s) + GROUP);
        found = scan_span(entries, (s, e), probe, hits, found);
    }
    found
}

/// [`scan_spans`] over the cells within `k` of the cell `cell` of `table`: at fixed
/// offsets from the cell id for the usual reach of one cell ([`CellTable::spans3`]),
/// out of line ([`scan_window`]) otherwise. Returns how many rows it found, the
/// squared radius they are all within (the probe's, or the narrower one below), and
/// whether more than `cap` lie within the probe's radius (`false` where not known:
/// only [`at_point`] keeps `cap` of more without finding them).
///
/// A query that will keep only the `cap` nearest of many first scans a narrower
/// radius, sized from the window's density to hold a quarter more than the cap
/// ([`narrower`]), over only the cells it reaches; when that finds the cap, the `cap`
/// nearest are all among what it found, so the caller keeps exactly the rows (and
/// scan order) of the full scan with fewer candidates tested and fewer to choose
/// from. Otherwise the full radius is scanned (`docs/optimisations.md`).
#[inline(always)]
pub(super) fn scan_cells(
    table: &CellTable,
    (cell, k): (u32, u32),
    (probe, cap): (Probe, usize),
    hits: &mut Vec<u32>,
) -> (usize, f32, bool) {
    if let Some((found, more)) = at_point(table, cell, probe, cap, hits) {
        return (found, probe.r2, more);
    }
    let over = |(found, r2): (usize, f32)| (found, r2, found > cap);
    if k != 1 {
        return over((scan_window(table, (cell, k), probe, hits), probe.r2));
    }
    let Some(spans) = table.spans3(cell) else {
        return (0, probe.r2, false);
    };
    let within = |r2: f32, hits: &mut Vec<u32>| scan_within(table, Probe { r2, ..probe }, hits);
    if let Some(mut r2) = narrower(table, (cell, probe.p), &spans, probe.r2, cap) {
        // A radius known to hold the cap, once one has been found too generous.
        let mut enough = None;
        loop {
            let found = within(r2, hits);
            if found >= cap {
                let want = wanted(cap);
                if enough.is_none() && found as f32 > 8.0 * want {
                    // Far more than the cells' density foretold: the rows crowd into a
                    // small part of their cells (a pile spreading out). Once, the
                    // radius that this many foretell, which leaves far fewer to
                    // choose from.
                    enough = Some(r2);
                    r2 *= want / found as f32;
                    continue;
                }
                return over((found, r2));
            }
            // Short (the crowd thins out around the row: the edge of a dense patch):
            // twice the radius, while that is well inside the full one, or up to the
            // one known to be enough.
            r2 *= 4.0;
            if let Some(enough) = enough.filter(|&e| r2 >= e) {
                return over((within(enough, hits), enough));
            }
            if r2 > 0.25 * probe.r2 {
                break;
            }
        }
    }
    over((
        scan_spans(table.entries(), spans.into_iter(), probe, hits),
        probe.r2,
    ))
}

/// A probe standing exactly on the point where every entry of its own over-full cell
/// lies ([`Fine::point`]: a crowd spawned on one spot), with more than `cap` of them:
/// its `cap` nearest are all at distance zero, so they are the `cap` smallest rows of
/// the cell other than its own, which the cell stores first, in the order the full
/// scan would keep them. Returns how many (`cap`), written to the front of `hits`,
/// and whether the cell holds more than `cap` besides the probe's row (`false` where
/// that is not sure); `None` for any other probe. Instead of scanning the cell's whole
/// sample and choosing among rows all at the same distance (`docs/optimisations.md`,
/// "A crowd on one point").
///
/// [`Fine::point`]: super::cells::Fine::point
#[inline(always)]
fn at_point(
    table: &CellTable,
    cell: u32,
    probe: Probe,
    cap: usize,
    hits: &mut Vec<u32>,
) -> Option<(usize, bool)> {
    if table.fine.is_empty() {
        return None;
    }
    let fine = table.fine_of(cell as usize)?;
    // The scan's own distance from the probe to the cell's entries.
    let d2 = dist2(probe.p.x, probe.p.y, fine.origin.x, fine.origin.y);
    if !(fine.point && d2 == 0.0 && d2 <= probe.r2) {
        return None;
    }
    let &[s, e] = table.starts.get(cell as usize..cell as usize + 2)? else {
        return None;
    };
    let (s, e) = (s as usize, e as usize);
    if e - s <= cap {
        return None;
    }
    grow_hits(hits, cap + GROUP);
    let mut found = 0;
    for &row in table.ids[s..e]
        .iter()
        .filter(|&&r| r != probe.row)
        .take(cap)
    {
        hits[found] = row;
        found += 1;
    }
    // The probe's row may be one of the cell's entries, or (a sampled cell) not.
    Some((found, e - s > cap + 1))
}

/// [`scan_spans`] over the cells within the probe's radius (a narrower one than the
/// query's): a subset of the 3 × 3, scanned in the same order, so what it finds comes
/// in the full scan's order.
#[inline(always)]
fn scan_within(table: &CellTable, probe: Probe, hits: &mut Vec<u32>) -> usize {
    let reach = pad(probe.r2.sqrt());
    let Some((c0, c1, b0, b1)) = table.window_around(probe.p, reach) else {
        return 0;
    };
    if !table.fine.is_empty() {
        return scan_within_fine(table, (c0, c1, b0, b1), probe, hits);
    }
    let spans = (b0..=b1).map(|b| table.span(b, c0, c1));
    scan_spans(table.entries(), spans, probe, hits)
}

/// [`scan_within`] when some cells are over-full and have finer cells
/// ([`CellTable::refine`]): those are read only where the probe's reach meets them,
/// the other cells of each band in runs as usual. The same rows as scanning the whole
/// cells, in an order that is a function of the positions alone. Out of line: only
/// crowds far denser than bodies can stand come here.
#[inline(never)]
fn scan_within_fine(
    table: &CellTable,
    (c0, c1, b0, b1): (usize, usize, usize, usize),
    probe: Probe,
    hits: &mut Vec<u32>,
) -> usize {
    let reach = pad(probe.r2.sqrt());
    let mut scan = |(s, e): (usize, usize), found: usize| {
        grow_hits(hits, found + (e - s) + GROUP);
        scan_span(table.entries(), (s, e), probe, hits, found)
    };
    let mut found = 0;
    for b in b0..=b1 {
        // The cells without finer ones in runs, one span each.
        let mut run = c0;
        for c in c0..=c1 {
            let Some(fine) = table.fine_of(table.cell_id(c, b)) else {
                continue;
            };
            if run < c {
                found = scan(table.span(b, run, c - 1), found);
            }
            let (x0, x1, y0, y1) = fine.window(probe.p, reach);
            for y in y0..=y1 {
                found = scan(table.fine_span(fine, y, x0, x1), found);
            }
            run = c + 1;
        }
        if run <= c1 {
            found = scan(table.span(b, run, c1), found);
        }
    }
    found
}

/// For a query keeping `cap` of the entries within `r2` around a row whose 3 × 3
/// cells are `spans` (`cell` the row's own): when the window's density puts well over
/// the cap within `r2`, the squared radius expected to hold a quarter more than the
/// cap (plus two), else `None`. Too narrow a margin rescans too often, too wide keeps
/// too many to choose from (the margins tried: `docs/optimisations.md`).
/// The density is the window's or the own cell's, whichever is higher: a row in a
/// cell much fuller than those around it (a dense patch, a pile spreading out) would
/// otherwise scan a radius holding many times what it keeps (`docs/optimisations.md`).
#[inline(always)]
fn narrower(
    table: &CellTable,
    (cell, p): (u32, Vec2),
    spans: &[(usize, usize); 3],
    r2: f32,
    cap: usize,
) -> Option<f32> {
    let count: usize = spans.iter().map(|&(s, e)| e - s).sum();
    // The whole window holds no more than the cap (and the row): nothing to narrow.
    if count <= cap.saturating_add(1) {
        return None;
    }
    let own = table
        .starts
        .get(cell as usize..cell as usize + 2)
        .map_or(0, |s| s[1] - s[0]);
    let mut density = density(table, (count as f32).max(9.0 * own as f32));
    if !table.fine.is_empty() {
        // An over-full cell's finer cells tell the density where the row stands.
        if let Some(fine) = table.fine_of(cell as usize) {
            density = density.max(fine.density_around(table, p));
        }
    }
    let want = wanted(cap);
    (density * r2 > 1.5 * want).then(|| want / density)
}

/// Entries per unit of area, times π, of `count` entries over the 3 × 3 cells of
/// `table` around a row: times a squared radius, about how many of them lie within it.
#[inline(always)]
fn density(table: &CellTable, count: f32) -> f32 {
    count * std::f32::consts::PI / (9.0 * table.side * table.side)
}

/// Whether the 3 × 3 cells around a row (`spans`, one per band) hold so many entries
/// that, at their density, well over its query's cap ([`CROWDED`] times) lie within
/// its radius: the one-pass flocking sums over the candidates would most likely give
/// up there, after summing some dozens of entries, and the row is better scanned
/// first. `crowd` is the query's [`crowd_per_area`]; the test is [`density`]`(count)
/// * r2 > CROWDED * cap`, with the query's part worked out once.
#[inline(always)]
pub(super) fn crowded(table: &CellTable, spans: &[(usize, usize); 3], crowd: f32) -> bool {
    // Counted in `u32` (which holds any row count), whose conversion to `f32` is one
    // instruction where a `usize`'s takes several.
    let count: u32 = spans.iter().map(|&(s, e)| (e - s) as u32).sum();
    count as f32 > crowd * table.side * table.side
}

/// The entries per unit of area over a row's 3 × 3 cells above which a query of
/// squared radius `r2` keeping `cap` finds the row [`crowded`]: `CROWDED * cap * 9 /
/// (π r2)`; infinite for a query without a cap.
pub(super) fn crowd_per_area(r2: f32, cap: usize) -> f32 {
    if cap == usize::MAX {
        return f32::INFINITY;
    }
    let per_area = CROWDED * cap as f32 * 9.0 / (std::f32::consts::PI * r2);
    if per_area.is_nan() {
        f32::INFINITY
    } else {
        per_area
    }
}

/// How many times its cap a row's cells must put within its radius, at their density,
/// for the row to count as [`crowded`].
const CROWDED: f32 = 1.5;

/// How many rows a narrower radius aims to hold, for a query keeping `cap`: a
/// quarter more, plus two.
#[inline(always)]
fn wanted(cap: usize) -> f32 {
    1.25 * cap as f32 + 2.0
}

/// The wide reach of [`scan_cells`], out of line so that the hot scan keeps one copy of
/// the span loop per index kind (with both inlined, the compiler's choices cost the k-d
/// tree profiles instructions: `docs/optimisations.md`, fifth round).
#[inline(never)]
fn scan_window(
    table: &CellTable,
    (cell, k): (u32, u32),
    probe: Probe,
    hits: &mut Vec<u32>,
) -> usize {
    let Some((c0, c1, b0, b1)) = table.window(cell, k) else {
        return 0;
    };
    let spans = (b0..=b1).map(|b| table.span(b, c0, c1));
    scan_spans(table.entries(), spans, probe, hits)
}

/// Append to `hits` (from `hits[found]` on) the rows of the entries `s..e` within the
/// probe's radius, except its row; returns the new count. The entries are read in
/// groups of [`GROUP`] (the arrays carry [`GROUP`] never-matching entries at their
/// end, so this stays in bounds); lanes past `e` are masked off. `hits` must have room
/// for `found + (e - s)` ids plus [`GROUP`] (every lane of a group is written).
#[inline]
fn scan_span(
    (xs, ys, ids): (&[f32], &[f32], &[u32]),
    (s, e): (usize, usize),
    Probe { p, r2, row }: Probe,
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
        // Lanes past the span's end are masked off (without a branch: whether this is
        // the span's last, partial group is as irregular as the span lengths).
        mask &= (1 << (e - i).min(GROUP)) - 1;
        // Branch-free compaction: every lane's id is written at the next free slot,
        // which advances only for a match (the number of matches per group is too
        // irregular for a branch to predict). Before lane `l` at most `l` slots are
        // taken, so the slot is within the group's (`n & (GROUP - 1)` is `n`).
        let Some(Ok(out)) = hits
            .get_mut(found..found + GROUP)
            .map(<&mut [u32; GROUP]>::try_from)
        else {
            break;
        };
        let mut n = 0;
        for (l, &id) in gi.iter().enumerate() {
            out[n & (GROUP - 1)] = id;
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

/// Over-full: keep, of `hits` (all within `r2` of `p`), the `cap` nearest to `p` by
/// `(d2, row)`, in scan order, at the front; returns how many (`cap`). `keys` and
/// `select` are scratch. Out of line: rare for most crowds, and kept out of the
/// kernels that inline the scan.
#[inline(never)]
pub(super) fn keep_nearest(
    positions: &[Vec2],
    p: Vec2,
    hits: &mut [u32],
    cap: usize,
    r2: f32,
    (keys, select): (&mut Vec<u64>, &mut Vec<u64>),
) -> usize {
    let few = match hits.len() {
        0..=12 => keep_nearest_of_few::<3>(positions, p, hits, cap),
        13..=16 => keep_nearest_of_few::<4>(positions, p, hits, cap),
        17..=FEW => keep_nearest_of_few::<6>(positions, p, hits, cap),
        _ => None,
    };
    if let Some(kept) = few {
        return kept;
    }
    // The keys are recomputed with the scan's own distance arithmetic ([`dist2`]).
    keys.clear();
    keys.extend(hits.iter().map(|&h| {
        let q = positions[h as usize];
        dist_key(dist2(p.x, p.y, q.x, q.y), h)
    }));
    // Keys are distinct (rows are), so exactly `cap` keys are <= the cap-th smallest.
    let last = kth_smallest(keys, cap, r2, select);
    // Branch-free compaction, as in the scan. Truncation keeps the low 32 bits of
    // a key: the row.
    let mut kept = 0;
    for (i, &k) in keys.iter().enumerate() {
        hits[kept.min(i)] = k as u32;
        kept += usize::from(k <= last);
    }
    kept.min(cap)
}

/// Longest list [`keep_nearest`] chooses from by ranks ([`keep_nearest_of_few`]).
const FEW: usize = 24;

/// [`keep_nearest`] for a list of at most [`FEW`] whose squared distances are all
/// different (`None` otherwise): each match's rank (how many of the others are
/// nearer) counted four at a time, and those ranked below `cap` kept, in scan order.
/// No branch on the data: in an avoiding crowd, where nearly every row has a few more
/// than its cap within its narrowed radius, this costs fewer instructions than the
/// buckets of [`kth_smallest`] (`docs/optimisations.md`). Without ties the order by
/// distance is the order by `(d2, row)`, and squared distances (non-negative, not NaN)
/// compare as the integers of their bits.
#[inline(always)]
fn keep_nearest_of_few<const BLOCKS: usize>(
    positions: &[Vec2],
    p: Vec2,
    hits: &mut [u32],
    cap: usize,
) -> Option<usize> {
    // Past the list, farther than any match (never compared as a `j` below).
    let mut d2 = [[i32::MAX; 4]; BLOCKS];
    let d2 = d2.as_flattened_mut();
    for (d, &h) in d2.iter_mut().zip(hits.iter()) {
        let q = positions[h as usize];
        *d = dist2(p.x, p.y, q.x, q.y).to_bits() as i32;
    }
    let d2x: [i32x4; BLOCKS] = std::array::from_fn(|b| {
        i32x4::new([d2[4 * b], d2[4 * b + 1], d2[4 * b + 2], d2[4 * b + 3]])
    });
    // Per match: how many are nearer, and how many are as near (itself included).
    let mut nearer = [i32x4::ZERO; BLOCKS];
    let mut as_near = [i32x4::ZERO; BLOCKS];
    for &dj in d2.iter().take(hits.len()) {
        let dj = i32x4::splat(dj);
        for b in 0..BLOCKS {
            nearer[b] -= dj.simd_lt(d2x[b]);
            as_near[b] -= dj.simd_eq(d2x[b]);
        }
    }
    let one = i32x4::splat(1);
    if as_near.iter().any(|e| e.simd_gt(one).to_bitmask() != 0) {
        return None;
    }
    let cap = i32x4::splat(i32::try_from(cap).unwrap_or(i32::MAX));
    let keep = (0..BLOCKS).fold(0u32, |m, b| {
        m | (nearer[b].simd_lt(cap).to_bitmask() << (4 * b))
    });
    let mut kept = 0;
    for i in 0..hits.len() {
        hits[kept] = hits[i];
        kept += ((keep >> i) & 1) as usize;
    }
    Some(kept)
}

/// Sort `hits` by `(d2, row)` from `p` (the [`NeighbourQuery::sorted`] option).
///
/// [`NeighbourQuery::sorted`]: super::NeighbourQuery::sorted
#[cold]
pub(super) fn sort_by_distance(positions: &[Vec2], p: Vec2, hits: &mut [u32], keys: &mut Vec<u64>) {
    keys.clear();
    keys.extend(hits.iter().map(|&h| {
        let q = positions[h as usize];
        dist_key(dist2(p.x, p.y, q.x, q.y), h)
    }));
    keys.sort_unstable();
    for (h, &k) in hits.iter_mut().zip(keys.iter()) {
        *h = k as u32;
    }
}

/// Buckets of squared distance that [`kth_smallest`] counts the keys into.
const BUCKETS: usize = 32;

/// Longest list [`kth_smallest`] buckets in one pass with each key's bucket noted (on
/// the stack); longer ones recompute the bucket in the compaction.
const MAX_BUCKETED: usize = 256;

/// A chosen bucket holding more keys than this is bucketed again, over its own keys'
/// range of distances, up to [`ROUNDS`] rounds in all, before the general selection.
const MANY: usize = 64;

/// Most bucketing rounds of [`kth_smallest`].
const ROUNDS: usize = 3;

/// The `k`-th smallest of `keys` (`1 <= k <= keys.len()`), keys whose squared
/// distances (their high bits) lie within `0..=r2`. `scratch` is reused.
///
/// A counting pass puts every key in one of [`BUCKETS`] equal slices of `0..=r2`
/// (monotone in the squared distance, so in key order); the `k`-th smallest is in the
/// first bucket where the running count reaches `k`, and only that bucket's few keys
/// are sorted. Branch-free except for that small sort: a general selection over a
/// crowded window mispredicts a branch for most keys; it is inlined into
/// [`keep_nearest`] (both measured: `docs/optimisations.md`). When the chosen
/// bucket still holds more than [`MANY`] (a crowd far denser than the radius puts
/// nearly every key in the first bucket: a pile spreading out), or the list is longer
/// than [`MAX_BUCKETED`], buckets over the keys' own range of distances ([`narrow`]).
#[inline(always)]
pub(super) fn kth_smallest(keys: &[u64], k: usize, r2: f32, scratch: &mut Vec<u64>) -> u64 {
    let k = k.clamp(1, keys.len().max(1));
    // The scratch keeps its length between calls (no clearing writes): only its first
    // `n` entries are read.
    if scratch.len() < keys.len() {
        scratch.resize(keys.len(), 0);
    }
    let (mut n, mut k) = if keys.len() > MAX_BUCKETED {
        narrow(Some(keys), scratch, (keys.len(), k)).unwrap_or_else(|| {
            scratch[..keys.len()].copy_from_slice(keys);
            (keys.len(), k)
        })
    } else {
        let scale = BUCKETS as f32 / r2;
        let mut of = [0u8; MAX_BUCKETED];
        let mut hist = [0u32; BUCKETS];
        for (o, &key) in of.iter_mut().zip(keys) {
            // NaN (a zero radius: every d2 is 0) truncates to bucket 0.
            let b = bucket_of(f32::from_bits((key >> 32) as u32) * scale);
            *o = b as u8;
            hist[b] += 1;
        }
        let (at, below) = chosen(&hist, k);
        // The keys of that bucket, compacted without a branch into the scratch.
        let best = &mut scratch[..keys.len()];
        let mut n = 0;
        for (i, (&key, &o)) in keys.iter().zip(&of).enumerate() {
            best[n.min(i)] = key;
            n += usize::from(o as usize == at);
        }
        (n.max(1), (k - below).clamp(1, n.max(1)))
    };
    for _ in 1..ROUNDS {
        if n <= MANY {
            break;
        }
        match narrow(None, scratch, (n, k)) {
            Some(next) => (n, k) = next,
            None => break,
        }
    }
    let (_, &mut kth, _) = scratch[..n].select_nth_unstable(k - 1);
    kth
}

/// The bucket of a scaled distance `x` (`0..BUCKETS` for `0..=BUCKETS`): truncated,
/// saturating, NaN to 0, the top bucket for anything beyond. Through `u32`: the
/// saturating conversion to `usize` costs x86-64 about twice the instructions (it has
/// no unsigned 64-bit conversion), and this runs once per key
/// (`docs/optimisations.md`).
#[inline(always)]
fn bucket_of(x: f32) -> usize {
    (x as u32).min(BUCKETS as u32 - 1) as usize
}

/// The bucket where the running count of `hist` reaches `k`, and the count below it.
#[inline(always)]
fn chosen(hist: &[u32; BUCKETS], k: usize) -> (usize, usize) {
    let mut below = 0usize;
    for (b, &h) in hist.iter().enumerate() {
        if below + h as usize >= k {
            return (b, below);
        }
        below += h as usize;
    }
    (BUCKETS - 1, below)
}

/// One round of [`kth_smallest`]'s buckets, over the range of squared distances of
/// the `n` keys it is given, for the `k`-th smallest: the keys of `keys`, compacted
/// into `scratch`, or (`None`) those at the front of `scratch`, compacted in place.
/// Returns how many keys are left (at the front of `scratch`) and the rank sought
/// among them; `None` when every key has the same distance (no bucket tells them
/// apart), leaving `scratch` as it was.
#[inline(never)]
fn narrow(
    keys: Option<&[u64]>,
    scratch: &mut [u64],
    (n, k): (usize, usize),
) -> Option<(usize, usize)> {
    // Non-negative floats order as their bits.
    let (lo, hi) = keys
        .unwrap_or(&scratch[..n])
        .iter()
        .fold((u32::MAX, 0), |(lo, hi), &key| {
            let d2 = (key >> 32) as u32;
            (lo.min(d2), hi.max(d2))
        });
    if lo >= hi {
        return None;
    }
    let (lo, hi) = (f32::from_bits(lo), f32::from_bits(hi));
    let scale = BUCKETS as f32 / (hi - lo);
    // Monotone in the squared distance (a saturating truncation: an infinite scale
    // makes NaN of `lo` itself, bucket 0), which is all the selection needs.
    let bucket = |key: u64| {
        let d2 = f32::from_bits((key >> 32) as u32);
        bucket_of((d2 - lo) * scale)
    };
    let mut hist = [0u32; BUCKETS];
    for &key in keys.unwrap_or(&scratch[..n]) {
        hist[bucket(key)] += 1;
    }
    let (at, below) = chosen(&hist, k);
    let mut kept = 0;
    for i in 0..n {
        // In place, the write index never passes the read index.
        let key = keys.map_or(scratch[i], |keys| keys[i]);
        scratch[kept.min(i)] = key;
        kept += usize::from(bucket(key) == at);
    }
    let kept = kept.max(1);
    Some((kept, (k - below).clamp(1, kept)))
}
