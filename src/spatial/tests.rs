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

/// Batched neighbours for every row, chunk by chunk.
fn batched(
    index: &SpatialIndex,
    positions: &[Vec2],
    chunk: usize,
    r: f32,
    cap: usize,
) -> Vec<Vec<u32>> {
    let mut bn = BatchNeighbours::default();
    let mut out = Vec::new();
    let mut all = Vec::with_capacity(positions.len());
    let mut start = 0;
    while start < positions.len() {
        let end = (start + chunk).min(positions.len());
        bn.gather(index, positions, start..end, r);
        for row in start..end {
            bn.neighbours(positions, row, r, cap, &mut out);
            all.push(out.clone());
        }
        start = end;
    }
    all
}

/// Neighbours for every row in scan order ([`BatchNeighbours::scan_neighbours`]), chunk
/// by chunk (the grid needs no gather; gathering anyway must not change the answer).
fn scanned(
    index: &SpatialIndex,
    positions: &[Vec2],
    chunk: usize,
    r: f32,
    cap: usize,
) -> Vec<Vec<u32>> {
    let mut bn = BatchNeighbours::default();
    let mut out = Vec::new();
    let mut all = Vec::with_capacity(positions.len());
    let mut start = 0;
    while start < positions.len() {
        let end = (start + chunk).min(positions.len());
        bn.gather(index, positions, start..end, r);
        for row in start..end {
            bn.scan_neighbours(index, positions, row, r, cap, &mut out);
            all.push(out.clone());
        }
        start = end;
    }
    all
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
        index.rebuild(positions, hint);
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
    let pts = permuted(&cloud(4, 400, 300));
    check_against_brute(&pts, &RADII, &CAPS, &[1, 32, 1000], 1.0);
    // The cell hint only affects speed, never results.
    check_against_brute(&pts, &[1.0, 3.0], &[10], &[32], 0.1);
    check_against_brute(&pts, &[1.0], &[10], &[32], 50.0);
}

#[test]
fn tiny_inputs() {
    let empty: Vec<Vec2> = Vec::new();
    let one = vec![Vec2::new(3.0, -2.0)];
    for kind in KINDS {
        let mut index = SpatialIndex::new(kind);
        assert_eq!(index.kind(), kind);
        index.rebuild(&empty, 1.0);
        assert!(index.is_empty());
        let mut bn = BatchNeighbours::default();
        let mut out = vec![7];
        bn.gather(&index, &empty, 0..10, 1.0);
        bn.neighbours(&empty, 0, 1.0, 10, &mut out);
        assert!(out.is_empty());
        index.for_each_candidate(Vec2::ZERO, 5.0, |_| panic!("no rows"));

        index.rebuild(&one, 1.0);
        bn.gather(&index, &one, 0..1, 1.0);
        bn.neighbours(&one, 0, 1.0, 10, &mut out);
        assert!(out.is_empty());
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
        index.rebuild(&pts, 1.0);
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
    let pts = permuted(&cloud(12, 40_000, 200));
    let run = |threads: usize, kind: IndexKind| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut index = SpatialIndex::new(kind);
            index.rebuild(&pts, 1.0);
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
        let mut out = Vec::new();
        for pts in [&big, &small, &mid, &big, &Vec::new(), &small] {
            index.rebuild(pts, 1.0);
            assert_eq!(index.len(), pts.len());
            let want = brute_all(pts, 1.0, 10);
            let mut start = 0;
            while start < pts.len() {
                let end = (start + 32).min(pts.len());
                bn.gather(&index, pts, start..end, 1.0);
                for (row, w) in want.iter().enumerate().take(end).skip(start) {
                    bn.neighbours(pts, row, 1.0, 10, &mut out);
                    assert_eq!(&out, w, "{kind:?} n={} row={row}", pts.len());
                }
                start = end;
            }
        }
    }
}

#[test]
fn neighbours_outside_the_gathered_chunk_are_still_exact() {
    let pts = permuted(&cloud(16, 500, 0));
    let index = {
        let mut i = SpatialIndex::new(IndexKind::Grid);
        i.rebuild(&pts, 1.0);
        i
    };
    let mut bn = BatchNeighbours::default();
    let (mut got, mut want) = (Vec::new(), Vec::new());
    bn.gather(&index, &pts, 0..32, 0.5);
    for (row, r) in [(100, 0.5), (5, 2.0), (5, 0.25), (499, 1.0), (900, 1.0)] {
        bn.neighbours(&pts, row, r, 50, &mut got);
        brute_neighbours(&pts, row, r, 50, &mut want);
        assert_eq!(got, want);
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
        let mut out = Vec::new();
        for (built, used) in [(&a, &b), (&b, &a)] {
            index.rebuild(built, 1.0);
            for start in (0..used.len()).step_by(64) {
                bn.gather(&index, used, start..start + 64, 1.5);
                for row in start..(start + 64).min(used.len()) {
                    bn.neighbours(used, row, 1.5, 10, &mut out);
                    assert!(out.len() <= 10);
                    bn.scan_neighbours(&index, used, row, 1.5, 10, &mut out);
                    assert!(out.len() <= 10);
                }
            }
            index.for_each_candidate(Vec2::ONE, 2.0, |_| {});
        }
        // Rows outside the positions, ranges past the end, reversed ranges.
        bn.gather(&index, &a, 250..10_000, 1.0);
        let (from, to) = (20, 10);
        bn.gather(&index, &a, from..to, 1.0);
        bn.neighbours(&a, 5000, 1.0, 10, &mut out);
        assert!(out.is_empty());
    }
}

#[test]
fn kth_smallest_matches_a_sort() {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(11);
    let mut scratch = Vec::new();
    for case in 0..2000u32 {
        let r2 = [0.0, 1e-6, 2.5, 225.0][case as usize % 4];
        // Some cases crowd every key into one bucket (equal distances).
        let same = case % 7 == 0;
        let n = 1 + (rng.next_u32() % 300) as usize;
        let keys: Vec<u64> = (0..n as u32)
            .map(|row| {
                let d2 = if same { r2 * 0.5 } else { r2 * unit(&mut rng) };
                key(d2, row)
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        let k = 1 + (rng.next_u32() as usize % n);
        assert_eq!(kth_smallest(&keys, k, r2, &mut scratch), sorted[k - 1]);
    }
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

/// `flock_scan`'s sums by their definition: the scan's neighbours of `row` (in scan
/// order), each added to lane `(entry - run start) % 4` of its run, lanes added as
/// `(0 + 1) + (2 + 3)`.
fn flock_sums_by_lanes(
    g: &grid::GridIndex,
    positions: &[Vec2],
    dirs: &[Vec2],
    row: usize,
    (r2, sep_r2): (f32, f32),
) -> FlockSums {
    let (xs, ys, ids) = g.entries();
    let p = positions[row];
    let mut lanes = [[0.0f32; 6]; GROUP];
    let mut count = 0;
    for (s, e) in g.runs3(row).unwrap() {
        for i in s..e {
            let q = Vec2::new(xs[i], ys[i]);
            if ids[i] as usize == row || dist2(p.x, p.y, q.x, q.y) > r2 {
                continue;
            }
            count += 1;
            let l = &mut lanes[(i - s) % GROUP];
            let d = dirs[ids[i] as usize];
            let away = p - q;
            let d_sq = away.length_squared();
            if d_sq <= sep_r2 {
                l[0] += away.x * (1.0 / d_sq);
                l[1] += away.y * (1.0 / d_sq);
            }
            l[2] += d.x;
            l[3] += d.y;
            l[4] += q.x;
            l[5] += q.y;
        }
    }
    let sum = |k: usize| (lanes[0][k] + lanes[1][k]) + (lanes[2][k] + lanes[3][k]);
    FlockSums {
        count,
        push: Vec2::new(sum(0), sum(1)),
        headings: Vec2::new(sum(2), sum(3)),
        positions: Vec2::new(sum(4), sum(5)),
    }
}

#[test]
fn flock_scan_hand_worked() {
    // Row 0 at the origin; neighbours at (1, 0) heading +y and (0, -2) heading +x; one
    // at (5, 5), beyond the radius 3. Separation radius 1.5: only (1, 0) pushes, by
    // away / |away|² = (-1, 0) / 1.
    let pos = [
        Vec2::ZERO,
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, -2.0),
        Vec2::new(5.0, 5.0),
    ];
    let dirs = [Vec2::X, Vec2::Y, Vec2::X, Vec2::Y];
    let mut index = SpatialIndex::new(IndexKind::Grid);
    index.rebuild_with_dirs(&pos, Some(&dirs), 3.0);
    let q = ScanQuery::new(&index, 3.0, 8);
    let s = BatchNeighbours::new()
        .flock_scan(&index, &pos, 0, &q, (1.5 * 1.5, 1e-6))
        .unwrap();
    assert_eq!(s.count, 2);
    assert_eq!(s.push, Vec2::new(-1.0, 0.0));
    assert_eq!(s.headings, Vec2::new(1.0, 1.0));
    assert_eq!(s.positions, Vec2::new(1.0, -2.0));
    // Row 3 has no neighbour.
    let s = BatchNeighbours::new()
        .flock_scan(&index, &pos, 3, &q, (2.25, 1e-6))
        .unwrap();
    assert_eq!(s, FlockSums::default());

    // Where it does not apply: more neighbours than the cap (or a cap of zero), a
    // pushing neighbour closer than the least distance, a grid without the unit
    // velocities.
    let batch = BatchNeighbours::new();
    let sep = (2.25, 1e-6);
    for cap in [0, 1] {
        let q = ScanQuery::new(&index, 3.0, cap);
        assert!(batch.flock_scan(&index, &pos, 0, &q, sep).is_none());
    }
    assert!(batch.flock_scan(&index, &pos, 0, &q, (2.25, 1.5)).is_none());
    assert!(batch.flock_scan(&index, &pos, 0, &q, (0.5, 1.5)).is_some());
    index.rebuild(&pos, 3.0);
    assert!(!index.has_dirs());
    assert!(batch.flock_scan(&index, &pos, 0, &q, sep).is_none());

    // A tree: the chunk candidates, once gathered with the unit velocities, give the
    // same sums; not before, nor when gathered without them.
    let mut tree = SpatialIndex::new(IndexKind::KdTree);
    tree.rebuild_with_dirs(&pos, Some(&dirs), 3.0);
    assert!(!tree.has_dirs());
    let q = ScanQuery::new(&tree, 3.0, 8);
    let mut batch = BatchNeighbours::new();
    assert!(batch.flock_scan(&tree, &pos, 0, &q, sep).is_none());
    batch.gather(&tree, &pos, 0..4, 3.0);
    assert!(batch.flock_scan(&tree, &pos, 0, &q, sep).is_none());
    batch.gather_with_dirs(&tree, (&pos, Some(&dirs)), 0..4, 3.0);
    let s = batch.flock_scan(&tree, &pos, 0, &q, sep).unwrap();
    assert_eq!(s.count, 2);
    assert_eq!(s.push, Vec2::new(-1.0, 0.0));
    assert_eq!(s.headings, Vec2::new(1.0, 1.0));
    assert_eq!(s.positions, Vec2::new(1.0, -2.0));
    // A row outside the gathered chunk, or a radius beyond the gathered one.
    batch.gather_with_dirs(&tree, (&pos, Some(&dirs)), 1..4, 3.0);
    assert!(batch.flock_scan(&tree, &pos, 0, &q, sep).is_none());
    batch.gather_with_dirs(&tree, (&pos, Some(&dirs)), 0..4, 2.0);
    assert!(batch.flock_scan(&tree, &pos, 0, &q, sep).is_none());
}

/// For each row of a crowd with duplicates (which make it decline) at about 3 per unit
/// area, on `kind`'s candidates: either sums close to the plain sums of the scan's
/// neighbours in scan order (and, on a grid, bitwise the lane rule over them); or
/// `None`, only for an over-full row or one with a neighbour within the least distance.
/// The tree's chunks (of 128 rows, in the spatial order) are gathered with the unit
/// velocities. Returns how many rows were summed and how many declined.
fn check_flock_scan(kind: IndexKind) -> (usize, usize) {
    let cloud = cloud(11, 3000, 0);
    let mut perm = Vec::new();
    spatial_order(&cloud, &mut perm, &mut OrderScratch::new());
    let pos: Vec<Vec2> = perm.iter().map(|&r| cloud[r as usize]).collect();
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(12);
    let dirs: Vec<Vec2> = (0..pos.len())
        .map(|_| Vec2::from_angle(unit(&mut rng) * std::f32::consts::TAU))
        .collect();
    let mut index = SpatialIndex::new(kind);
    let (r, cap, sep_r, min_d) = (1.0f32, 16, 0.7f32, 0.05f32);
    index.rebuild_with_dirs(&pos, Some(&dirs), r);
    let q = ScanQuery::new(&index, r, cap);
    let (mut batch, mut scan) = (BatchNeighbours::new(), BatchNeighbours::new());
    let (mut some, mut declined) = (0, 0);
    for chunk in (0..pos.len()).step_by(128) {
        let rows = chunk..(chunk + 128).min(pos.len());
        batch.gather_with_dirs(&index, (&pos, Some(&dirs)), rows.clone(), r);
        scan.gather(&index, &pos, rows.clone(), r);
        for row in rows {
            let hits = scan.scan(&index, &pos, row, r, usize::MAX).to_vec();
            let p = pos[row];
            let close = hits.iter().any(|&h| {
                let d2 = (p - pos[h as usize]).length_squared();
                d2 <= sep_r * sep_r && d2 < min_d * min_d
            });
            let Some(s) = batch.flock_scan(&index, &pos, row, &q, (sep_r * sep_r, min_d * min_d))
            else {
                assert!(hits.len() > cap || close, "{kind:?} row {row}");
                declined += 1;
                continue;
            };
            assert!(hits.len() <= cap && !close, "{kind:?} row {row}");
            if let Inner::Grid(g) = &index.inner {
                let want = flock_sums_by_lanes(g, &pos, &dirs, row, (r * r, sep_r * sep_r));
                assert_eq!(s, want, "row {row}");
            }
            let (mut push, mut head, mut at) = (Vec2::ZERO, Vec2::ZERO, Vec2::ZERO);
            for &h in &hits {
                let away = p - pos[h as usize];
                if away.length_squared() <= sep_r * sep_r {
                    push += away / away.length_squared();
                }
                head += dirs[h as usize];
                at += pos[h as usize];
            }
            assert_eq!(s.count, hits.len());
            let near = |a: Vec2, b: Vec2| (a - b).length() <= 1e-4 * (1.0 + b.length());
            assert!(near(s.push, push) && near(s.headings, head) && near(s.positions, at));
            some += 1;
        }
    }
    (some, declined)
}

#[test]
fn flock_scan_sums_the_scans_neighbours_in_lanes() {
    for kind in KINDS {
        let (some, declined) = check_flock_scan(kind);
        assert!(
            some > 1500 && declined > 100,
            "{kind:?}: {some} summed, {declined} declined"
        );
    }
}
