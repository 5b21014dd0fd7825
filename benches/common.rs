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

/// Ticks in the measured window: the sweep's timed ticks (after its 5 warm-up
/// ticks), so that criterion and `throng sweep` measure the same world.
pub const WINDOW: usize = 20;

/// Time single ticks of `s` from its present state through the next [`WINDOW`]
/// ticks, over and over: the scenario is restored to the window's start (untimed)
/// whenever the window is done, so that every figure is of the same ticks however
/// many iterations criterion picks (a world stepped on and on drifts: a flock
/// gathers and its neighbour counts grow).
pub fn bench_window(b: &mut criterion::Bencher<'_>, s: &mut Scenario) {
    bench_window_by(b, s, |s| {
        let t = std::time::Instant::now();
        s.step().expect("step");
        t.elapsed()
    });
}

/// [`bench_window`] with the time of a tick taken by `tick` (which steps once), e.g.
/// one phase's share from the world's own timers.
pub fn bench_window_by(
    b: &mut criterion::Bencher<'_>,
    s: &mut Scenario,
    mut tick: impl FnMut(&mut Scenario) -> std::time::Duration,
) {
    let start = s.save();
    b.iter_custom(|iters| {
        let mut timed = std::time::Duration::ZERO;
        for i in 0..iters {
            if i > 0 && i % WINDOW as u64 == 0 {
                s.restore(&start).expect("restore the window's start");
            }
            timed += tick(s);
        }
        s.restore(&start).expect("restore the window's start");
        timed
    });
}
