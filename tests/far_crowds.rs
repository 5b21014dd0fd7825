//! Crowds far apart from each other in one world (towns on a large map, squads
//! teleported across it): every agent still perceives exactly its neighbours, on both
//! indexes, on the tick after the move and after the next re-sort.
mod common;

use glam::Vec2;
use throng::spatial::{brute_neighbours, IndexKind};
use throng::World;

/// The flock's neighbour radius and cap (`common::flock`).
const RADIUS: f32 = 3.0;
const CAP: usize = 12;

/// Every agent's neighbour count by brute force over the current positions.
fn brute_count(world: &World) -> u64 {
    let positions = world.positions();
    let mut out = Vec::new();
    (0..positions.len())
        .map(|row| {
            brute_neighbours(positions, row, RADIUS, CAP, &mut out);
            out.len() as u64
        })
        .sum()
}

/// The neighbours the world perceives in its next tick, and brute force's count.
fn step_and_count(world: &mut World) -> (u64, u64) {
    let want = brute_count(world);
    let got = world.step(1.0 / 30.0).expect("step").neighbours;
    (got, want)
}

#[test]
fn towns_far_apart_see_exactly_their_neighbours() {
    for index in [IndexKind::Grid, IndexKind::KdTree] {
        let (mut world, ids) = common::flock(6_000, 3, index);
        for _ in 0..3 {
            world.step(1.0 / 30.0).unwrap();
        }
        // Three towns: one stays, one 100 km east, one 1,000 km north-east; the rows
        // of the three interleave.
        for (k, &id) in ids.iter().enumerate() {
            let shift = match k % 3 {
                0 => Vec2::ZERO,
                1 => Vec2::new(1e5, 0.0),
                _ => Vec2::splat(1e6),
            };
            let p = world.position(id).unwrap();
            world.set_position(id, p + shift).unwrap();
        }
        let (got, want) = step_and_count(&mut world);
        assert!(
            want > 6_000,
            "{index:?}: the towns are crowds ({want} neighbours)"
        );
        assert_eq!(got, want, "{index:?}: the tick after the move");
        // Past the next re-sort (every 32 ticks).
        for _ in 0..40 {
            world.step(1.0 / 30.0).unwrap();
        }
        let (got, want) = step_and_count(&mut world);
        assert_eq!(got, want, "{index:?}: after a re-sort");
    }
}

#[test]
fn a_teleported_crowd_re_sorts_at_the_next_tick_with_the_k_d_tree() {
    let (mut world, ids) = common::flock(2_000, 5, IndexKind::KdTree);
    for _ in 0..3 {
        world.step(1.0 / 30.0).unwrap();
    }
    // Whether a tick re-sorts: the rows change order (handles stay).
    let step_resorts = |world: &mut World| {
        let before = world.ids().to_vec();
        world.step(1.0 / 30.0).unwrap();
        world.ids() != before
    };
    // Small corrections (within a few radii) do not count, however many.
    for &id in &ids {
        let p = world.position(id).unwrap();
        world.set_position(id, p + Vec2::new(0.5, 0.0)).unwrap();
    }
    assert!(!step_resorts(&mut world));
    // A chunk's worth of agents sent far away does, as spawning them there would.
    for &id in ids.iter().step_by(10) {
        let p = world.position(id).unwrap();
        world.set_position(id, p + Vec2::splat(1e5)).unwrap();
    }
    assert!(step_resorts(&mut world));
    let (got, want) = step_and_count(&mut world);
    assert_eq!(got, want);
}
