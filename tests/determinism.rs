//! Same seed, same bits: whatever the number of threads, and from run to run.
mod common;

use common::{flock, pool};
use throng::spatial::IndexKind;

fn run(threads: usize, index: IndexKind, n: usize, ticks: usize) -> u64 {
    let (mut world, _) = flock(n, 42, index);
    world.set_thread_pool(Some(pool(threads)));
    for _ in 0..ticks {
        world.step(1.0 / 30.0).unwrap();
    }
    world.state_hash()
}

#[test]
fn flock_5000_for_500_ticks_is_bitwise_identical_on_1_and_2_threads() {
    let one = run(1, IndexKind::KdTree, 5_000, 500);
    let two = run(2, IndexKind::KdTree, 5_000, 500);
    let again = run(2, IndexKind::KdTree, 5_000, 500);
    assert_eq!(one, two, "1 vs 2 threads");
    assert_eq!(two, again, "two runs");
}

#[test]
fn grid_index_gives_the_same_world_as_the_tree() {
    // Both indexes return exactly the same neighbour lists, so the worlds match.
    let tree = run(2, IndexKind::KdTree, 2_000, 100);
    let grid = run(2, IndexKind::Grid, 2_000, 100);
    assert_eq!(tree, grid);
}

#[test]
fn different_seeds_differ() {
    let (mut a, _) = flock(500, 1, IndexKind::KdTree);
    let (mut b, _) = flock(500, 2, IndexKind::KdTree);
    for _ in 0..10 {
        a.step(0.1).unwrap();
        b.step(0.1).unwrap();
    }
    assert_ne!(a.state_hash(), b.state_hash());
}
