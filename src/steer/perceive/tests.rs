//! The one-pass flocking sums over an index's candidates, against their definition
//! and against the sums over the scan's neighbours.

use glam::Vec2;

use super::*;
use crate::behaviours::flocking::FlockSums;
use crate::spatial::{BatchNeighbours, IndexKind, NeighbourQuery, SpatialIndex};

/// [`candidate_sums_x4`] (and its refusals) on an index's candidates: `None` when
/// the index offers none or the pass declines.
fn sums(
    batch: &BatchNeighbours,
    index: &SpatialIndex,
    pos: &[Vec2],
    row: usize,
    q: &NeighbourQuery,
    sep: (f32, f32),
) -> Option<FlockSums> {
    batch
        .candidates(index, pos, row, q)
        .and_then(|c| candidate_sums_x4::<true>(&c, sep))
}

#[test]
fn candidate_sums_hand_worked() {
    // Row 0 at the origin; neighbours at (1, 0) heading +y and (0, -2) heading +x;
    // one at (5, 5), beyond the radius 3. Separation radius 1.5: only (1, 0)
    // pushes, by away / |away|² = (-1, 0) / 1.
    let pos = [
        Vec2::ZERO,
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, -2.0),
        Vec2::new(5.0, 5.0),
    ];
    let unit_vels = [Vec2::X, Vec2::Y, Vec2::X, Vec2::Y];
    let mut index = SpatialIndex::new(IndexKind::Grid);
    index.rebuild(&pos, Some(&unit_vels), 3.0);
    let q = NeighbourQuery::within(&index, 3.0).at_most(8);
    let batch = BatchNeighbours::new();
    let sep = (1.5 * 1.5, 1e-6);
    let s = sums(&batch, &index, &pos, 0, &q, sep).unwrap();
    assert_eq!(s.count, 2);
    assert_eq!(s.push, Vec2::new(-1.0, 0.0));
    assert_eq!(s.headings, Vec2::new(1.0, 1.0));
    assert_eq!(s.positions, Vec2::new(1.0, -2.0));
    // Row 3 has no neighbour.
    assert_eq!(
        sums(&batch, &index, &pos, 3, &q, sep),
        Some(FlockSums::default())
    );

    // Where it does not apply: more neighbours than the cap (or a cap of zero), a
    // pushing neighbour closer than the least distance, a grid without the unit
    // velocities.
    for cap in [0, 1] {
        let q = q.at_most(cap);
        assert!(sums(&batch, &index, &pos, 0, &q, sep).is_none());
    }
    assert!(sums(&batch, &index, &pos, 0, &q, (2.25, 1.5)).is_none());
    assert!(sums(&batch, &index, &pos, 0, &q, (0.5, 1.5)).is_some());
    index.rebuild(&pos, None, 3.0);
    assert!(sums(&batch, &index, &pos, 0, &q, sep).is_none());
    // A lone separation's push needs no unit velocities: the count and the push
    // alone, and the same refusals.
    let push = |q: &NeighbourQuery, sep| {
        let c = batch.candidates(&index, &pos, 0, q)?;
        candidate_sums_x4::<false>(&c, sep)
    };
    let alone = FlockSums {
        count: 2,
        push: Vec2::new(-1.0, 0.0),
        ..FlockSums::default()
    };
    assert_eq!(push(&q, sep), Some(alone));
    assert_eq!(push(&q.at_most(1), sep), None);
    assert_eq!(push(&q, (2.25, 1.5)), None);

    // A tree: the chunk candidates, once gathered with the unit velocities, give
    // the same sums; not before, nor when gathered without them.
    let mut tree = SpatialIndex::new(IndexKind::KdTree);
    tree.rebuild(&pos, Some(&unit_vels), 3.0);
    let q = NeighbourQuery::within(&tree, 3.0).at_most(8);
    let mut batch = BatchNeighbours::new();
    assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
    batch.gather(&tree, &pos, 0..4, 3.0, None);
    assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
    batch.gather(&tree, &pos, 0..4, 3.0, Some(&unit_vels));
    let s = sums(&batch, &tree, &pos, 0, &q, sep).unwrap();
    assert_eq!(s.count, 2);
    assert_eq!(s.push, Vec2::new(-1.0, 0.0));
    assert_eq!(s.headings, Vec2::new(1.0, 1.0));
    assert_eq!(s.positions, Vec2::new(1.0, -2.0));
    // A row outside the gathered chunk, or a radius beyond the gathered one.
    batch.gather(&tree, &pos, 1..4, 3.0, Some(&unit_vels));
    assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
    batch.gather(&tree, &pos, 0..4, 2.0, Some(&unit_vels));
    assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
}

/// [`candidate_sums_x4`]'s sums by their definition over the same candidates: the
/// neighbours among them in span order, each added to lane `(entry - span start) %
/// 4` of its span, lanes added as `(0 + 1) + (2 + 3)`.
fn sums_by_lanes(c: &crate::spatial::Candidates<'_>, sep_r2: f32) -> FlockSums {
    let mut lanes = [[0.0f32; 6]; 4];
    let mut count = 0;
    for (s, e) in c.spans {
        for i in s..e {
            let q = Vec2::new(c.xs[i], c.ys[i]);
            if c.ids[i] == c.row || crate::spatial::dist2(c.at.x, c.at.y, q.x, q.y) > c.r2 {
                continue;
            }
            count += 1;
            let l = &mut lanes[(i - s) % 4];
            let away = c.at - q;
            let d_sq = away.length_squared();
            if d_sq <= sep_r2 {
                l[0] += away.x * (1.0 / d_sq);
                l[1] += away.y * (1.0 / d_sq);
            }
            l[2] += c.unit_xs[i];
            l[3] += c.unit_ys[i];
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

/// For each row of a crowd with duplicates (which make the pass decline) at about
/// 3 per unit area, on `kind`'s candidates: either sums bitwise the lane rule over
/// the same candidates and close to the plain sums of the scan's neighbours
/// ([`FlockSums::over`] in scan order); or `None`, only for an over-full row or one
/// with a neighbour within the least distance. Returns how many rows were summed
/// and how many declined.
fn check_candidate_sums(kind: IndexKind) -> (usize, usize) {
    use crate::rng::{agent_rng, uniform};
    use crate::spatial::{spatial_order, OrderScratch};
    let mut rng = agent_rng(11, 11);
    let side = (3000.0f32 / 3.0).sqrt();
    let mut cloud: Vec<Vec2> = Vec::new();
    for i in 0..3000usize {
        if i > 0 && i % 8 == 0 {
            cloud.push(cloud[i / 2]);
        } else {
            cloud.push(Vec2::new(
                uniform(&mut rng, 0.0, side),
                uniform(&mut rng, 0.0, side),
            ));
        }
    }
    let mut perm = Vec::new();
    spatial_order(&cloud, &mut perm, &mut OrderScratch::new());
    let pos: Vec<Vec2> = perm.iter().map(|&r| cloud[r as usize]).collect();
    let unit_vels: Vec<Vec2> = (0..pos.len())
        .map(|_| Vec2::from_angle(uniform(&mut rng, 0.0, std::f32::consts::TAU)))
        .collect();
    let mut index = SpatialIndex::new(kind);
    let (r, cap, sep_r, min_d) = (1.0f32, 16, 0.7f32, 0.05f32);
    index.rebuild(&pos, Some(&unit_vels), r);
    let q = NeighbourQuery::within(&index, r).at_most(cap);
    let all = NeighbourQuery::within(&index, r);
    let params = SeparationParams {
        radius: sep_r,
        ..SeparationParams::default()
    };
    let (mut batch, mut scan) = (BatchNeighbours::new(), BatchNeighbours::new());
    let (mut some, mut declined) = (0, 0);
    for chunk in (0..pos.len()).step_by(128) {
        let rows = chunk..(chunk + 128).min(pos.len());
        batch.gather(&index, &pos, rows.clone(), r, Some(&unit_vels));
        scan.gather(&index, &pos, rows.clone(), r, None);
        for row in rows {
            let hits = scan.scan(&index, &pos, row, &all).to_vec();
            let p = pos[row];
            let close = hits.iter().any(|&h| {
                let d2 = (p - pos[h as usize]).length_squared();
                d2 <= sep_r * sep_r && d2 < min_d * min_d
            });
            let c = batch.candidates(&index, &pos, row, &q).unwrap();
            let Some(s) = candidate_sums_x4::<true>(&c, (sep_r * sep_r, min_d * min_d)) else {
                assert!(hits.len() > cap || close, "{kind:?} row {row}");
                let push = candidate_sums_x4::<false>(&c, (sep_r * sep_r, min_d * min_d));
                assert_eq!(push, None, "{kind:?} row {row}");
                declined += 1;
                continue;
            };
            assert!(hits.len() <= cap && !close, "{kind:?} row {row}");
            assert_eq!(s, sums_by_lanes(&c, sep_r * sep_r), "{kind:?} row {row}");
            // The push alone: the same count and push, bit for bit.
            let alone = FlockSums {
                count: s.count,
                push: s.push,
                ..FlockSums::default()
            };
            let push = candidate_sums_x4::<false>(&c, (sep_r * sep_r, min_d * min_d));
            assert_eq!(push, Some(alone), "{kind:?} row {row}");
            let get = |i: usize| (pos[hits[i] as usize], unit_vels[hits[i] as usize]);
            let plain = FlockSums::over(p, 0, hits.len(), get, |_| 1, &params);
            assert_eq!(s.count, plain.count);
            let near = |a: Vec2, b: Vec2| (a - b).length() <= 1e-4 * (1.0 + b.length());
            assert!(near(s.push, plain.push), "{kind:?} row {row}");
            assert!(near(s.headings, plain.headings) && near(s.positions, plain.positions));
            some += 1;
        }
    }
    (some, declined)
}

#[test]
fn candidate_sums_are_the_scans_neighbours_summed_in_lanes() {
    for kind in [IndexKind::KdTree, IndexKind::Grid] {
        let (some, declined) = check_candidate_sums(kind);
        assert!(
            some > 1500 && declined > 100,
            "{kind:?}: {some} summed, {declined} declined"
        );
    }
}
