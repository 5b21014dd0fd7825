//! After warm-up, a tick allocates nothing on the heap: the pipeline owns its
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

fn allocations_per_tick(index: IndexKind) -> u64 {
    let (mut world, _) = common::flock(5_000, 11, index);
    world.set_thread_pool(Some(common::pool(2)));
    // Warm-up: buffers grow to their working size (including a spatial re-sort).
    for _ in 0..20 {
        world.step(1.0 / 30.0).unwrap();
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..50 {
        world.step(1.0 / 30.0).unwrap();
    }
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

#[test]
fn no_heap_allocation_per_tick_after_warm_up() {
    // One test function so no other test allocates concurrently.
    for index in [IndexKind::Grid, IndexKind::KdTree] {
        assert_eq!(allocations_per_tick(index), 0, "{index:?}");
    }
}
