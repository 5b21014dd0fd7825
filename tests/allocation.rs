//! After warm-up, a tick with the grid allocates nothing on the heap (with the tree,
//! only kiddo's build of the new tree allocates): the pipeline owns its
//! scratch buffers and reuses them.
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use throng::spatial::IndexKind;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const TICKS: u64 = 50;

/// Heap allocations during `TICKS` ticks after warm-up, and during as many rebuilds of
/// a bare index of the same kind over the final positions.
fn allocations(index: IndexKind) -> (u64, u64) {
    let (mut world, _) = common::flock(5_000, 11, index);
    let pool = common::pool(2);
    world.set_thread_pool(Some(pool.clone()));
    // Step from inside the pool, so the tick's own `install` runs in place: handing a
    // job to the pool from outside it allocates in rayon's queue now and then.
    pool.install(|| {
        // Warm-up: buffers grow to their working size (including a spatial re-sort).
        for _ in 0..20 {
            world.step(1.0 / 30.0).unwrap();
        }
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..TICKS {
            world.step(1.0 / 30.0).unwrap();
        }
        let ticks = ALLOCATIONS.load(Ordering::Relaxed) - before;
        let mut bare = throng::spatial::SpatialIndex::new(index);
        let positions = world.positions().to_vec();
        bare.rebuild(&positions, None, 3.0);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..TICKS {
            bare.rebuild(&positions, None, 3.0);
        }
        (ticks, ALLOCATIONS.load(Ordering::Relaxed) - before)
    })
}

#[test]
fn no_heap_allocation_per_tick_after_warm_up() {
    // One test function so no other test allocates concurrently.
    // The grid: nothing at all.
    assert_eq!(allocations(IndexKind::Grid), (0, 0), "grid");
    // The tree: kiddo builds a new tree every tick (it has no in-place rebuild); that
    // is the only allocation. Its parallel build allocates a few task buffers whose
    // number depends on how rayon splits the work, so a tick may see a few more or
    // fewer than a bare rebuild; a pipeline allocation per agent or per chunk would
    // be thousands more.
    let (ticks, rebuilds) = allocations(IndexKind::KdTree);
    assert!(rebuilds > 0);
    assert!(
        ticks <= rebuilds * 3 / 2,
        "{ticks} allocations in ticks, {rebuilds} in rebuilds"
    );
}
