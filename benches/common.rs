//! Building bundled scenarios for the benches.

use throng::scenario::{self, Scenario};
use throng::spatial::IndexKind;

/// The bundled profile `name` scaled to `agents` at constant density, built,
/// and warmed up for `warmup` ticks.
pub fn scenario(name: &str, agents: usize, index: Option<IndexKind>, warmup: usize) -> Scenario {
    let bundled = scenario::bundled(name).expect("a bundled profile");
    let mut profile = scenario::load_bundled(bundled)
        .expect("bundled profiles are valid")
        .scaled_to(agents);
    if let Some(index) = index {
        profile.world.index = index;
    }
    let mut s = Scenario::build(&profile).expect("bundled profiles build");
    for _ in 0..warmup {
        s.step().expect("step");
    }
    s
}

/// A rayon pool of `threads` threads.
pub fn pool(threads: usize) -> std::sync::Arc<rayon::ThreadPool> {
    std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool"),
    )
}
