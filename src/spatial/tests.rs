use std::ops::Range;

use super::*;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

const KINDS: [IndexKind; 2] = [IndexKind::KdTree, IndexKind::Grid];

fn unit(rng: &mut Xoshiro128PlusPlus) -> f32 {
    (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32
}

/// `n` points uniform in a square holding about 3 points per unit area, with some exact
/// duplicates of earlier points and a stack of `stack` points at one coordinate.
fn cloud(seed: u64, n: usize, stack: usize) -> Vec<Vec2> {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed);
    let side = (n as f32 / 3.0).sqrt().max(1.0);
    let mut v = Vec::with_capacity(n + stack);
    for i in 0..n {
        if i > 0 && rng.next_u32() % 8 == 0 {
            let j = rng.next_u32() as usize % i;
            v.push(v[j]);
        } else {
            v.push(Vec2::new(unit(&mut rng) * side, unit(&mut rng) * side));
        }
    }
    let at = Vec2::new(side * 0.5, side * 0.25);
    v.extend(std::iter::repeat_n(at, stack));
    v
}

fn permuted(positions: &[Vec2]) -> Vec<Vec2> {
    let mut perm = Vec::new();
    spatial_order(positions, &mut perm, &mut OrderScratch::default());
    perm.iter().map(|&i| positions[i as usize]).collect()
}

/// Neighbours for every row, chunk by chunk (one gather per chunk, as the steering
/// pass does; the grid needs none, and gathering anyway must not change the answer),
/// by the one scan with `query`'s options.
fn scanned_with(
    index: &SpatialIndex,
    positions: &[Vec2],
    chunk: usize,
    r: f32,
    query: NeighbourQuery,
) -> Vec<Vec<u32>> {
    let mut bn = BatchNeighbours::default();
    let mut all = Vec::with_capacity(positions.len());
    let mut start = 0;
    while start < positions.len() {
        let end = (start + chunk).min(positions.len());
        bn.gather(index, positions, start..end, r, None);
        for row in start..end {
            all.push(bn.scan(index, positions, row, &query).to_vec());
        }
        start = end;
    }
    all
}

/// Neighbours for every row, sorted by `(d2, row)`.
fn batched(
    index: &SpatialIndex,
    positions: &[Vec2],
    chunk: usize,
    r: f32,
    cap: usize,
) -> Vec<Vec<u32>> {
    let q = NeighbourQuery::within(index, r).at_most(cap).sorted();
    scanned_with(index, positions, chunk, r, q)
}

/// Neighbours for every row in scan order.
fn scanned(
    index: &SpatialIndex,
    positions: &[Vec2],
    chunk: usize,
    r: f32,
    cap: usize,
) -> Vec<Vec<u32>> {
    let q = NeighbourQuery::within(index, r).at_most(cap);
    scanned_with(index, positions, chunk, r, q)
}

/// `lists` with each list sorted by `(d2, row)` from `positions[row]`: the order of
/// [`brute_neighbours`].
fn by_distance(positions: &[Vec2], mut lists: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    for (row, list) in lists.iter_mut().enumerate() {
        let p = positions[row];
        list.sort_unstable_by(|&a, &b| {
            let (qa, qb) = (positions[a as usize], positions[b as usize]);
            let da = super::dist2(p.x, p.y, qa.x, qa.y);
            let db = super::dist2(p.x, p.y, qb.x, qb.y);
            da.total_cmp(&db).then(a.cmp(&b))
        });
    }
    lists
}

fn brute_all(positions: &[Vec2], r: f32, cap: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    (0..positions.len())
        .map(|row| {
            brute_neighbours(positions, row, r, cap, &mut out);
            out.clone()
        })
        .collect()
}

fn check_against_brute(
    positions: &[Vec2],
    radii: &[f32],
    caps: &[usize],
    chunks: &[usize],
    hint: f32,
) {
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        index.rebuild(positions, None, hint);
        assert_eq!(index.len(), positions.len());
        for &r in radii {
            for &cap in caps {
                let want = brute_all(positions, r, cap);
                for &chunk in chunks {
                    let got = batched(&index, positions, chunk, r, cap);
                    let scan = by_distance(positions, scanned(&index, positions, chunk, r, cap));
                    for (row, ((g, s), w)) in got.iter().zip(&scan).zip(&want).enumerate() {
                        assert_eq!(
                            g,
                            w,
                            "{kind:?} n={} r={r} cap={cap} chunk={chunk} row={row}",
                            positions.len()
                        );
                        assert_eq!(
                            s,
                            w,
                            "scan order: {kind:?} n={} r={r} cap={cap} chunk={chunk} row={row}",
                            positions.len()
                        );
                    }
                }
            }
        }
    }
}

const RADII: [f32; 4] = [0.0, 0.5, 1.0, 3.0];
const CAPS: [usize; 4] = [0, 1, 10, 1000];
const CHUNKS: [usize; 5] = [1, 7, 16, 32, 64];

#[test]
fn batched_equals_brute_on_random_clouds() {
    for (seed, n) in [(1, 2), (2, 37), (3, 600)] {
        let pts = cloud(seed, n, 0);
        check_against_brute(&pts, &RADII, &CAPS, &CHUNKS, 1.0);
        check_against_brute(&permuted(&pts), &RADII, &CAPS, &CHUNKS, 1.0);
    }
}

#[test]
fn batched_equals_brute_with_stacked_duplicates() {
    // Stacks up to the per-cell cap (`grid::MAX_PER_CELL`) are exact; past it, see
    // `piles_past_the_cap_bound_every_query`.
    let pts = permuted(&cloud(4, 400, 30));
    check_against_brute(&pts, &RADII, &CAPS, &[1, 32, 1000], 1.0);
    // The cell hint only affects speed, never results (while no cell overflows).
    check_against_brute(&pts, &[1.0, 3.0], &[10], &[32], 0.1);
    let few = permuted(&cloud(4, 40, 10));
    check_against_brute(&few, &[1.0], &[10], &[32], 50.0);
}

#[test]
fn piles_past_the_cap_bound_every_query() {
    use super::grid::MAX_PER_CELL;
    // 3,000 rows on one point inside a cloud: a query sees at most MAX_PER_CELL of
    // the pile (with the grid, an even sample of its rows), every answer is within the radius
    // and capped, and the same on any thread count.
    let cloud = cloud(21, 2_000, 0);
    let pile_at = cloud[7];
    let pts: Vec<Vec2> = cloud
        .iter()
        .copied()
        .chain(std::iter::repeat_n(pile_at, 3_000))
        .collect();
    let pile = 2_000u32..5_000;
    let run = |threads: usize, kind: IndexKind| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut index = SpatialIndex::new(kind);
            index.rebuild(&pts, None, 1.0);
            let mut seen = Vec::new();
            index.for_each_candidate(pile_at, 0.5, |i| seen.push(i));
            (scanned(&index, &pts, 32, 1.0, 1000), seen)
        })
    };
    for kind in KINDS {
        let (lists, candidates) = run(1, kind);
        assert_eq!(
            (lists.clone(), candidates.clone()),
            run(2, kind),
            "{kind:?}"
        );
        if kind == IndexKind::Grid {
            // The grid's candidates come from its cells; the tree's from the tree itself.
            assert!(candidates.iter().filter(|&&i| pile.contains(&i)).count() <= MAX_PER_CELL);
        }
        for (row, list) in lists.iter().enumerate() {
            let from_pile = list.iter().filter(|&&i| pile.contains(&i)).count();
            assert!(from_pile <= MAX_PER_CELL, "{kind:?} row {row}: {from_pile}");
            for &j in list {
                let (p, q) = (pts[row], pts[j as usize]);
                assert!(j as usize != row && super::dist2(p.x, p.y, q.x, q.y) <= 1.0);
            }
        }
        if kind == IndexKind::Grid {
            // The cell stores an even sample of its rows (the cloud's few in the pile's
            // cell, and the pile's), up to the cap: rows from the whole pile, about
            // 3,000 / MAX_PER_CELL apart.
            let mut seen: Vec<u32> = lists[4_500]
                .iter()
                .copied()
                .filter(|i| pile.contains(i))
                .collect();
            seen.sort_unstable();
            assert!(seen.len() >= MAX_PER_CELL - 16, "{}", seen.len());
            let stride = pile.len() / MAX_PER_CELL + 1;
            assert!(seen[0] < pile.start + stride as u32, "{seen:?}");
            assert!(seen[seen.len() - 1] >= pile.end - stride as u32, "{seen:?}");
            assert!(
                seen.windows(2).all(|w| (w[1] - w[0]) as usize <= stride),
                "{seen:?}"
            );
        }
    }
}

#[test]
fn dense_crowds_under_the_cell_cap_are_exact() {
    // Far more rows to a cell than bodies could stand, but under the cell's cap:
    // every query is still exact.
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(5);
    let pts: Vec<Vec2> = (0..250)
        .map(|_| Vec2::new(unit(&mut rng) * 0.5, unit(&mut rng) * 0.5))
        .collect();
    check_against_brute(&pts, &[0.3, 1.0], &[10, 1000], &[32, 1000], 1.0);
    check_against_brute(&permuted(&pts), &[1.0], &[1000], &[32], 1.0);
}

#[test]
fn edges_of_dense_patches_are_exact() {
    // A patch far denser than its surroundings: a capped query from its edge finds
    // fewer than its cap within the narrow radius the window's density suggests, and
    // widens it (exact all the same); from inside, the nearest are all very near.
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(8);
    let pts: Vec<Vec2> = (0..500)
        .map(|i| {
            let p = Vec2::new(unit(&mut rng), unit(&mut rng));
            if i < 200 {
                p * 0.6
            } else {
                p * 12.0 - 6.0
            }
        })
        .collect();
    check_against_brute(&pts, &[1.0, 2.5], &[4, 12, 40], &[32, 1000], 1.0);
    check_against_brute(&permuted(&pts), &[2.5], &[12], &[32], 1.0);
}

/// The `cap` rows of `stored` other than `row` nearest to it within `r2`, by
/// `(d2, row)`: the brute force over what an index's cells store.
fn nearest_stored(pts: &[Vec2], stored: &[u32], row: usize, r2: f32, cap: usize) -> Vec<u32> {
    let p = pts[row];
    let mut keys: Vec<u64> = stored
        .iter()
        .filter(|&&j| j as usize != row)
        .filter_map(|&j| {
            let q = pts[j as usize];
            let d2 = super::dist2(p.x, p.y, q.x, q.y);
            (d2 <= r2).then(|| scan::dist_key(d2, j))
        })
        .collect();
    keys.sort_unstable();
    keys.iter().take(cap).map(|&k| k as u32).collect()
}

#[test]
fn queries_inside_a_pile_find_the_nearest_of_what_its_cells_store() {
    // 4,000 rows in a blob a fraction of a cell wide, densest at its middle (far past
    // the cell cap: the cells store an even sample, with finer cells), and a sparse
    // cloud around it. Every capped query, wherever it stands, keeps exactly the
    // nearest of the stored rows, as a brute force over them does; on any thread count.
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(12);
    let pts: Vec<Vec2> = (0..4_500)
        .map(|i| {
            let (a, b, c, d) = (
                unit(&mut rng),
                unit(&mut rng),
                unit(&mut rng),
                unit(&mut rng),
            );
            if i < 4_000 {
                Vec2::new(a + b - 1.0, c + d - 1.0) * 0.3
            } else {
                Vec2::new(a, b) * 16.0 - 8.0
            }
        })
        .collect();
    let mut index = SpatialIndex::new(IndexKind::Grid);
    index.rebuild(&pts, None, 1.0);
    let Inner::Grid(g) = &index.inner else {
        unreachable!("a grid")
    };
    let table = g.cells();
    let stored: Vec<u32> = table.ids[..table.len()].to_vec();
    assert!(stored.len() < pts.len() && !table.fine.is_empty());
    for cap in [1, 4, 12, 40] {
        let lists = by_distance(&pts, scanned(&index, &pts, 32, 1.0, cap));
        for (row, list) in lists.iter().enumerate() {
            let want = nearest_stored(&pts, &stored, row, 1.0, cap);
            assert_eq!(list, &want, "cap {cap} row {row}");
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let again = pool.install(|| {
        let mut index = SpatialIndex::new(IndexKind::Grid);
        index.rebuild(&pts, None, 1.0);
        scanned(&index, &pts, 32, 1.0, 12)
    });
    assert_eq!(again, scanned(&index, &pts, 32, 1.0, 12));
}

#[test]
fn queries_standing_on_a_point_pile_keep_its_smallest_stored_rows() {
    // 1,200 rows exactly on one point (far past the cell cap: its cell stores a sample,
    // all on that point), a ring of rows 1.5-2.9 from it (within the query's radius of
    // 3, outside the pile's cell of side 1), and a cloud farther out (enough of them
    // that the grid's cells cover them rather than clamp them onto the pile). A capped query
    // standing on the point keeps the smallest stored rows other than its own, in
    // ascending rows: what choosing the nearest by (distance, row) among everything
    // stored within its radius gives. Both indexes, any thread count.
    let at = Vec2::new(0.25, -0.5);
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(31);
    let pts: Vec<Vec2> = (0..3_600)
        .map(|i| {
            let turn = Vec2::from_angle(unit(&mut rng) * std::f32::consts::TAU);
            match i % 3 {
                // The pile, its rows spread over the whole range.
                0 => at,
                _ if i < 3_000 => at + turn * (1.5 + 1.4 * unit(&mut rng)),
                _ => at + turn * (3.5 + 4.0 * unit(&mut rng)),
            }
        })
        .collect();
    let on_point: Vec<usize> = (0..pts.len()).filter(|&r| pts[r] == at).collect();
    assert_eq!(on_point.len(), 1_200);
    let r = 3.0;
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        index.rebuild(&pts, None, 1.0);
        for cap in [1, 5, 12, 40] {
            let lists = scanned(&index, &pts, 128, r, cap);
            for &row in &on_point {
                let list = &lists[row];
                assert_eq!(list.len(), cap, "{kind:?} cap {cap} row {row}");
                assert!(list
                    .iter()
                    .all(|&j| j as usize != row && pts[j as usize] == at));
            }
            let Inner::Grid(g) = &index.inner else {
                continue;
            };
            // The pile's cell holds the point alone: the queries on it take the short
            // way. Against the brute force over what the grid's cells store.
            let table = g.cells();
            let cell = g.cell_of(on_point[0]).unwrap() as usize;
            assert!(table.fine_of(cell).is_some_and(|f| f.point));
            let stored = &table.ids[..table.len()];
            for (row, list) in lists.iter().enumerate() {
                let (p, want) = (pts[row], nearest_stored(&pts, stored, row, r * r, cap));
                // On the point, in the order scanned; elsewhere, the same rows.
                let mut got = list.clone();
                if p != at {
                    got.sort_unstable_by_key(|&j| {
                        let q = pts[j as usize];
                        scan::dist_key(super::dist2(p.x, p.y, q.x, q.y), j)
                    });
                }
                assert_eq!(got, want, "cap {cap} row {row}");
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let again = pool.install(|| {
            let mut index = SpatialIndex::new(kind);
            index.rebuild(&pts, None, 1.0);
            scanned(&index, &pts, 128, r, 12)
        });
        assert_eq!(again, scanned(&index, &pts, 128, r, 12), "{kind:?}");
    }
    // The pile with nothing else near it: a k-d tree's chunks bin it into cells of
    // their own, which hold the point alone too (binned in the tree's order, stored
    // in ascending rows).
    let pts: Vec<Vec2> = (0..1_600)
        .map(|i| match i % 4 {
            0..=2 => at,
            _ => {
                at + Vec2::from_angle(unit(&mut rng) * std::f32::consts::TAU)
                    * (4.0 + 4.0 * unit(&mut rng))
            }
        })
        .collect();
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        index.rebuild(&pts, None, 1.0);
        for cap in [1, 5, 12, 40] {
            let lists = scanned(&index, &pts, 128, 1.0, cap);
            for row in (0..pts.len()).filter(|&r| pts[r] == at) {
                let list = &lists[row];
                assert_eq!(list.len(), cap, "{kind:?} cap {cap} row {row}");
                assert!(list
                    .iter()
                    .all(|&j| j as usize != row && pts[j as usize] == at));
                assert!(
                    list.windows(2).all(|w| w[0] < w[1]),
                    "{kind:?} cap {cap} row {row}: {list:?}"
                );
            }
        }
    }
}

#[test]
fn chunks_of_a_pile_share_their_blocks_gather_and_answer_as_if_alone() {
    // 3,000 rows piled within a fraction of the radius (a third on one point): with
    // the k-d tree, every chunk's gather would hold the whole pile, so the chunks of a
    // block share one. Chunks taken in a scrambled order (as workers take them) by one
    // scratch answer exactly as each chunk gathered by a fresh scratch; and a new
    // build of the index over moved positions is never answered from the old gather.
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(21);
    let pile = |rng: &mut Xoshiro128PlusPlus, shift: f32| -> Vec<Vec2> {
        let pts: Vec<Vec2> = (0..3_000)
            .map(|i| {
                let (a, b) = (unit(rng), unit(rng));
                let off = if i % 3 == 0 {
                    Vec2::ZERO
                } else {
                    Vec2::new(a, b) * 0.4
                };
                Vec2::splat(5.0 + shift) + off
            })
            .collect();
        permuted(&pts)
    };
    let (r, cap) = (2.0, 12);
    let chunks: Vec<Range<usize>> = (0..3_000)
        .step_by(CHUNK_ROWS)
        .map(|s| s..(s + CHUNK_ROWS).min(3_000))
        .collect();
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.next_u32() as usize % (i + 1));
    }
    let mut index = SpatialIndex::new(IndexKind::KdTree);
    let mut shared = BatchNeighbours::default();
    let mut shared_gathers = 0;
    for shift in [0.0, 10.0] {
        let pts = pile(&mut rng, shift);
        index.rebuild(&pts, None, r);
        let q = NeighbourQuery::within(&index, r).at_most(cap);
        // The second pass starts where the first ended: in the block last gathered.
        for &c in &order {
            let rows = chunks[c].clone();
            shared.gather(&index, &pts, rows.clone(), r, None);
            shared_gathers += usize::from(shared.shares_block());
            let mut alone = BatchNeighbours::default();
            alone.gather(&index, &pts, rows.clone(), r, None);
            for row in rows {
                let want = alone.scan(&index, &pts, row, &q).to_vec();
                assert_eq!(shared.scan(&index, &pts, row, &q), &want[..], "row {row}");
                assert_eq!(want.len(), cap);
            }
        }
        order.reverse();
    }
    assert!(shared_gathers == 2 * chunks.len(), "{shared_gathers}");
}

#[test]
fn crowds_past_the_cell_cap_bound_every_query() {
    use super::grid::MAX_PER_CELL;
    // 3,000 distinct rows in a square a quarter of a cell wide: no query sees more
    // than one cell's cap of them, and every answer is within the radius.
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(6);
    let pts: Vec<Vec2> = (0..3_000)
        .map(|_| Vec2::new(unit(&mut rng) * 0.25, unit(&mut rng) * 0.25))
        .collect();
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        index.rebuild(&pts, None, 1.0);
        let lists = scanned(&index, &pts, 32, 1.0, 10_000);
        for (row, list) in lists.iter().enumerate() {
            assert!(
                !list.is_empty() && list.len() <= MAX_PER_CELL,
                "{kind:?} row {row}: {}",
                list.len()
            );
            for &j in list {
                let (p, q) = (pts[row], pts[j as usize]);
                assert!(j as usize != row && super::dist2(p.x, p.y, q.x, q.y) <= 1.0);
            }
        }
    }
}

#[test]
fn tiny_inputs() {
    let empty: Vec<Vec2> = Vec::new();
    let one = vec![Vec2::new(3.0, -2.0)];
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        assert_eq!(index.kind(), kind);
        index.rebuild(&empty, None, 1.0);
        assert!(index.is_empty());
        let mut bn = BatchNeighbours::default();
        let q = NeighbourQuery::within(&index, 1.0).at_most(10);
        bn.gather(&index, &empty, 0..10, 1.0, None);
        assert!(bn.scan(&index, &empty, 0, &q).is_empty());
        index.for_each_candidate(Vec2::ZERO, 5.0, |_| panic!("no rows"));

        index.rebuild(&one, None, 1.0);
        let q = NeighbourQuery::within(&index, 1.0).at_most(10);
        bn.gather(&index, &one, 0..1, 1.0, None);
        assert!(bn.scan(&index, &one, 0, &q).is_empty());
        let mut seen = Vec::new();
        index.for_each_candidate(one[0], 0.0, |i| seen.push(i));
        assert_eq!(seen, vec![0]);
    }
    check_against_brute(&one, &RADII, &CAPS, &[1, 4], 1.0);
    check_against_brute(&[Vec2::ONE; 2], &RADII, &CAPS, &[1, 4], 0.0);
}

#[test]
fn odd_radii_and_positions() {
    let mut pts = cloud(5, 200, 50);
    pts[3] = Vec2::new(f32::NAN, 1.0);
    pts[10] = Vec2::new(f32::INFINITY, 2.0);
    pts[11] = Vec2::new(f32::INFINITY, 2.0);
    pts[12] = Vec2::new(-f32::INFINITY, f32::NAN);
    pts[20] = Vec2::new(f32::MAX, f32::MAX);
    pts[21] = Vec2::new(f32::MAX, f32::MAX);
    pts[22] = Vec2::new(-f32::MAX, 4.0);
    pts[30] = Vec2::new(1e30, -1e30);
    let radii = [f32::NAN, f32::INFINITY, -1.0, 0.0, 1.0, 1e20, f32::MAX];
    check_against_brute(&pts, &radii, &[0, 10, 1000], &[1, 32], 1.0);
    check_against_brute(&permuted(&pts), &radii, &[10, 1000], &[32], f32::NAN);
    // Non-finite radius is radius 0: only exact duplicates.
    let mut out = Vec::new();
    brute_neighbours(
        &[Vec2::ZERO, Vec2::ZERO, Vec2::X],
        0,
        f32::INFINITY,
        10,
        &mut out,
    );
    assert_eq!(out, vec![1]);
}

/// Crowds of an ordinary density far apart from each other (towns on a large map):
/// `clusters` copies of a cloud's points, every `clusters`-th point in each, laid out
/// three to a row `spacing` apart.
fn far_clusters(clusters: usize, spacing: f32) -> Vec<Vec2> {
    let base = cloud(11, 400 * clusters, 0);
    base.iter()
        .enumerate()
        .map(|(k, &p)| {
            let c = k % clusters;
            p + Vec2::new((c % 3) as f32, (c / 3) as f32) * spacing
        })
        .collect()
}

#[test]
fn clusters_far_apart_are_exact() {
    // Rows in the clusters' interleaved order (a tree's chunk spans them all) and in
    // spatial order. A grid over the whole map with a bounded number of cells would
    // put each cluster in a cell or two, fuller than any cell may be.
    for (clusters, spacing) in [(2, 1e6), (9, 1e5), (5, 3e3)] {
        let pts = far_clusters(clusters, spacing);
        check_against_brute(&pts, &[1.0, 3.0], &[10, 1000], &[32], 3.0);
        check_against_brute(&permuted(&pts), &[1.0, 3.0], &[10, 1000], &[32], 3.0);
    }
}

#[test]
fn far_apart_points() {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(6);
    let mut pts: Vec<Vec2> = (0..300)
        .map(|_| Vec2::new((unit(&mut rng) - 0.5) * 1e30, (unit(&mut rng) - 0.5) * 1e6))
        .collect();
    // A few close pairs among the far-apart ones.
    for i in 0..20 {
        pts.push(pts[i] + Vec2::new(0.0, 0.25));
    }
    pts.push(Vec2::new(0.0, 0.0));
    pts.push(Vec2::new(0.5, 0.0));
    check_against_brute(&pts, &[0.0, 1.0, 1e3], &[10], &[1, 32], 1.0);
}

#[test]
fn candidates_are_a_superset() {
    let pts = cloud(7, 800, 40);
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(8);
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        index.rebuild(&pts, None, 1.0);
        for _ in 0..200 {
            let p = Vec2::new(unit(&mut rng) * 20.0 - 2.0, unit(&mut rng) * 20.0 - 2.0);
            for r in [0.0, 0.3, 1.0, 2.5, 40.0] {
                let mut seen = vec![false; pts.len()];
                index.for_each_candidate(p, r, |i| {
                    assert!(!seen[i as usize], "row reported twice");
                    seen[i as usize] = true;
                });
                for (i, q) in pts.iter().enumerate() {
                    if dist2(p.x, p.y, q.x, q.y) <= r * r {
                        assert!(seen[i], "{kind:?} missed row {i} at r={r}");
                    }
                }
            }
        }
        // Stacked rows at the query point, radius 0.
        let mut n = 0;
        index.for_each_candidate(pts[800], 0.0, |i| {
            n += usize::from(pts[i as usize] == pts[800])
        });
        assert!(n >= 40);
    }
}

#[test]
fn spatial_order_is_a_deterministic_permutation() {
    for pts in [
        cloud(9, 5000, 100),
        cloud(10, 1, 0),
        Vec::new(),
        vec![Vec2::NAN; 3],
    ] {
        let mut perm = Vec::new();
        let mut scratch = OrderScratch::default();
        spatial_order(&pts, &mut perm, &mut scratch);
        let mut seen = vec![false; pts.len()];
        for &i in &perm {
            assert!(!seen[i as usize]);
            seen[i as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut again = vec![1, 2, 3];
            pool.install(|| spatial_order(&pts, &mut again, &mut scratch));
            assert_eq!(again, perm);
        }
    }
    // Ties (duplicates) keep row order.
    let pts = vec![Vec2::ONE, Vec2::ZERO, Vec2::ONE, Vec2::ZERO];
    let mut perm = Vec::new();
    spatial_order(&pts, &mut perm, &mut OrderScratch::default());
    assert_eq!(perm, vec![1, 3, 0, 2]);
}

#[test]
fn spatial_order_is_coherent() {
    // Consecutive rows in the order are close: the mean step is a small multiple of
    // the mean spacing.
    let pts = cloud(11, 20_000, 0);
    let sorted = permuted(&pts);
    let step: f32 =
        sorted.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>() / (sorted.len() - 1) as f32;
    let spacing = (1.0f32 / 3.0).sqrt();
    assert!(step < 2.0 * spacing, "mean step {step}");
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let pts = permuted(&cloud(12, 40_000, 40));
    let run = |threads: usize, kind: IndexKind| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut index = SpatialIndex::new(kind);
            index.rebuild(&pts, None, 1.0);
            let mut cands = Vec::new();
            index.for_each_candidate(pts[5], 1.5, |i| cands.push(i));
            cands.sort_unstable();
            (
                batched(&index, &pts, 32, 1.0, 10),
                cands,
                scanned(&index, &pts, 32, 1.0, 10),
            )
        })
    };
    for kind in KINDS {
        let one = run(1, kind);
        assert_eq!(one, run(2, kind));
        assert_eq!(one, run(4, kind));
    }
    assert_eq!(run(1, IndexKind::KdTree).0, run(2, IndexKind::Grid).0);
}

#[test]
fn rebuild_reuses_buffers() {
    let big = cloud(13, 1500, 20);
    let small = cloud(14, 90, 5);
    let mid = cloud(15, 700, 0);
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        let mut bn = BatchNeighbours::default();
        for pts in [&big, &small, &mid, &big, &Vec::new(), &small] {
            index.rebuild(pts, None, 1.0);
            assert_eq!(index.len(), pts.len());
            let q = NeighbourQuery::within(&index, 1.0).at_most(10).sorted();
            let want = brute_all(pts, 1.0, 10);
            let mut start = 0;
            while start < pts.len() {
                let end = (start + 32).min(pts.len());
                bn.gather(&index, pts, start..end, 1.0, None);
                for (row, w) in want.iter().enumerate().take(end).skip(start) {
                    let got = bn.scan(&index, pts, row, &q);
                    assert_eq!(got, &w[..], "{kind:?} n={} row={row}", pts.len());
                }
                start = end;
            }
        }
    }
}

#[test]
fn neighbours_outside_the_gathered_chunk_are_still_exact() {
    let pts = permuted(&cloud(16, 500, 0));
    let mut want = Vec::new();
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        index.rebuild(&pts, None, 1.0);
        let mut bn = BatchNeighbours::default();
        bn.gather(&index, &pts, 0..32, 0.5, None);
        for (row, r) in [(100, 0.5), (5, 2.0), (5, 0.25), (499, 1.0), (900, 1.0)] {
            let q = NeighbourQuery::within(&index, r).at_most(50).sorted();
            let got = bn.scan(&index, &pts, row, &q).to_vec();
            brute_neighbours(&pts, row, r, 50, &mut want);
            assert_eq!(got, want, "{kind:?} row {row} r {r}");
        }
    }
}

#[test]
fn index_kind_serde() {
    assert_eq!(
        serde_json::to_string(&IndexKind::KdTree).unwrap(),
        "\"kdtree\""
    );
    assert_eq!(serde_json::to_string(&IndexKind::Grid).unwrap(), "\"grid\"");
    assert_eq!(
        serde_json::from_str::<IndexKind>("\"grid\"").unwrap(),
        IndexKind::Grid
    );
    assert_eq!(IndexKind::default(), IndexKind::KdTree);
}

#[test]
fn mismatched_index_and_positions_do_not_panic() {
    let a = cloud(17, 300, 10);
    let b = cloud(18, 800, 0);
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        let mut bn = BatchNeighbours::default();
        for (built, used) in [(&a, &b), (&b, &a)] {
            index.rebuild(built, None, 1.0);
            let q = NeighbourQuery::within(&index, 1.5).at_most(10);
            for start in (0..used.len()).step_by(64) {
                bn.gather(&index, used, start..start + 64, 1.5, None);
                for row in start..(start + 64).min(used.len()) {
                    assert!(bn.scan(&index, used, row, &q).len() <= 10);
                    assert!(bn.scan(&index, used, row, &q.sorted()).len() <= 10);
                }
            }
            index.for_each_candidate(Vec2::ONE, 2.0, |_| {});
        }
        // Rows outside the positions, ranges past the end, reversed ranges.
        bn.gather(&index, &a, 250..10_000, 1.0, None);
        let (from, to) = (20, 10);
        bn.gather(&index, &a, from..to, 1.0, None);
        let q = NeighbourQuery::within(&index, 1.0).at_most(10);
        assert!(bn.scan(&index, &a, 5000, &q).is_empty());
    }
}

#[test]
fn kth_smallest_matches_a_sort() {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(11);
    let mut scratch = Vec::new();
    for case in 0..3000u32 {
        let r2 = [0.0, 1e-6, 2.5, 225.0][case as usize % 4];
        // Some cases crowd every key into one bucket (equal distances), some into a
        // sliver of the radius (a pile: several rounds of buckets), some spread
        // evenly; long lists too.
        let spread = match case % 7 {
            0 => 0.0,
            1 | 2 => 1e-5,
            3 => 0.03,
            _ => 1.0,
        };
        let n = 1 + (rng.next_u32() % if case % 5 == 0 { 3000 } else { 300 }) as usize;
        // Rows as a gather finds them: consecutive, or a sparse sample of a crowd, in
        // any order.
        let stride = [1, 39, 1_000_003][case as usize % 3];
        let mut keys: Vec<u64> = (0..n as u32)
            .map(|i| {
                let d2 = if spread == 0.0 {
                    r2 * 0.5
                } else {
                    r2 * spread * unit(&mut rng)
                };
                scan::dist_key(d2, i * stride + rng.next_u32() % stride.min(7))
            })
            .collect();
        if case % 2 == 0 {
            for i in (1..n).rev() {
                keys.swap(i, rng.next_u32() as usize % (i + 1));
            }
        }
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        let k = 1 + (rng.next_u32() as usize % n);
        assert_eq!(
            scan::kth_smallest(&keys, k, r2, &mut scratch),
            sorted[k - 1]
        );
    }
}

/// `keep_nearest` on short lists (chosen by ranks, or by buckets where two
/// distances tie) keeps what a sort by `(d2, row)` keeps, in scan order.
#[test]
fn keep_nearest_matches_a_sort() {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(12);
    let positions = cloud(5, 4000, 0);
    let mut scratch = (Vec::new(), Vec::new());
    let mut ties = 0;
    for case in 0..6000u32 {
        let p = positions[rng.next_u32() as usize % positions.len()];
        let n = 1 + rng.next_u32() as usize % 40;
        // Rows in any order; some lists repeat a position (equal distances), some
        // stand the probe on a match (distance zero).
        let mut hits: Vec<u32> = (0..n)
            .map(|_| rng.next_u32() % positions.len() as u32)
            .collect();
        hits.sort_unstable();
        hits.dedup();
        for i in (1..hits.len()).rev() {
            hits.swap(i, rng.next_u32() as usize % (i + 1));
        }
        let mut pts = positions.clone();
        if case % 4 == 0 && hits.len() > 1 {
            pts[hits[1] as usize] = pts[hits[0] as usize];
        }
        let p = if case % 9 == 0 {
            pts[hits[0] as usize]
        } else {
            p
        };
        let key = |h: u32| {
            let q = pts[h as usize];
            scan::dist_key(dist2(p.x, p.y, q.x, q.y), h)
        };
        let mut keys: Vec<u64> = hits.iter().map(|&h| key(h)).collect();
        let r2 = f32::from_bits((keys.iter().max().unwrap() >> 32) as u32);
        let d2s: Vec<u64> = keys.iter().map(|k| k >> 32).collect();
        ties += usize::from((1..d2s.len()).any(|i| d2s[..i].contains(&d2s[i])));
        keys.sort_unstable();
        let cap = 1 + rng.next_u32() as usize % hits.len();
        let last = keys[cap - 1];
        let want: Vec<u32> = hits.iter().copied().filter(|&h| key(h) <= last).collect();
        let mut got = hits.clone();
        let kept = scan::keep_nearest(&pts, p, &mut got, cap, r2, (&mut scratch.0, &mut scratch.1));
        assert_eq!(
            &got[..kept],
            &want[..],
            "case {case}: {} hits, cap {cap}",
            hits.len()
        );
    }
    assert!(ties > 1000, "{ties} lists with equal distances");
}

#[test]
fn bounds_equal_a_plain_fold() {
    // Odd and even lengths, a pair with one non-finite coordinate, NaN, infinities,
    // all non-finite, empty; serial and parallel (over 32k) folds.
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(4);
    for (n, bad) in [(0, 0), (1, 0), (2, 1), (7, 3), (1000, 17), (50_001, 300)] {
        let mut v: Vec<Vec2> = (0..n)
            .map(|_| Vec2::new(unit(&mut rng) * 200.0 - 100.0, unit(&mut rng) * 50.0))
            .collect();
        for k in 0..bad.min(n) {
            let i = rng.next_u32() as usize % n;
            v[i] = match k % 4 {
                0 => Vec2::new(f32::NAN, v[i].y),
                1 => Vec2::new(v[i].x, f32::INFINITY),
                2 => Vec2::new(f32::NEG_INFINITY, -1e9),
                _ => Vec2::splat(f32::NAN),
            };
        }
        let finite: Vec<Vec2> = v.iter().copied().filter(|p| p.is_finite()).collect();
        let (b, count) = Bounds::of_all(&v);
        assert_eq!(count, finite.len(), "n {n}");
        match b {
            None => assert!(finite.is_empty()),
            Some(b) => {
                let min = finite
                    .iter()
                    .fold(Vec2::splat(f32::INFINITY), |a, p| a.min(*p));
                let max = finite
                    .iter()
                    .fold(Vec2::splat(f32::NEG_INFINITY), |a, p| a.max(*p));
                assert_eq!((b.min, b.max), (min, max), "n {n}");
            }
        }
    }
    let all_bad = vec![Vec2::NAN; 5];
    assert_eq!(Bounds::of_all(&all_bad).1, 0);
    assert!(Bounds::of_all(&all_bad).0.is_none());
}

#[test]
fn buffers_brought_to_each_other_stop_growing() {
    // Two workers' scratch brought to each other after every tick: each ends with the
    // larger room and keeps it, tick after tick (with `reserve`'s doubling they would
    // outgrow each other in turn).
    let mut a: Vec<u32> = Vec::with_capacity(1000);
    let mut b: Vec<u32> = vec![7; 10];
    for _ in 0..10 {
        super::reserve_like(&mut a, &b);
        super::reserve_like(&mut b, &a);
        assert_eq!(a.capacity(), 1000);
        assert_eq!(b.capacity(), 1000);
    }
    assert_eq!(b, vec![7; 10]);
}
