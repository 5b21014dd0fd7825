//! Time the phases of a 100k-agent flock (a quick look; the benches measure).
//!
//! `cargo run --release --example flock100k [-- N [grid|kdtree] [TICKS]]`: N agents
//! (default 100k), 20 warm-up ticks, then TICKS timed ticks (default 50). Running it
//! twice with different TICKS under an instruction counter gives the cost of a tick.
use glam::Vec2;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::wander::WanderParams;
use throng::rng::{agent_rng, uniform};
use throng::spatial::IndexKind;
use throng::{AgentSpec, Behaviour, GroupConfig, World, WorldConfig};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let grid = std::env::args().nth(2).is_some_and(|s| s == "grid");
    let mut w = World::new(WorldConfig {
        seed: 1,
        index: if grid {
            IndexKind::Grid
        } else {
            IndexKind::KdTree
        },
        ..WorldConfig::default()
    });
    let g = w
        .add_group(
            GroupConfig::new("boids")
                .with(Behaviour::Separation(SeparationParams::default()), 1.5)
                .with(Behaviour::Alignment, 0.5)
                .with(Behaviour::Cohesion, 0.5)
                .with(Behaviour::Wander(WanderParams::default()), 0.3)
                .neighbours(3.0, 12),
        )
        .unwrap();
    let side = (n as f32 * 4.0).sqrt();
    let mut rng = agent_rng(1, u64::MAX);
    for _ in 0..n {
        let p = Vec2::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
        w.spawn(AgentSpec::new(g, p)).unwrap();
    }
    for _ in 0..20 {
        w.step(1.0 / 30.0).unwrap();
    }
    let mut t = [0u64; 5];
    let ticks: u32 = std::env::args()
        .nth(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    for _ in 0..ticks {
        let s = w.step(1.0 / 30.0).unwrap();
        t[0] += s.times.resort_ns + s.times.index_ns;
        t[1] += s.times.sight_ns;
        t[2] += s.times.steer_ns;
        t[3] += s.times.integrate_ns;
        t[4] += s.times.total_ns;
    }
    let ms = |x: u64| x as f64 / f64::from(ticks.max(1)) / 1e6;
    println!(
        "{n} agents: index {:.2} sight {:.2} steer {:.2} integrate {:.2} total {:.2} ms; mean neighbours {:.1}",
        ms(t[0]), ms(t[1]), ms(t[2]), ms(t[3]), ms(t[4]),
        w.last_stats().neighbours as f64 / n as f64
    );
}
