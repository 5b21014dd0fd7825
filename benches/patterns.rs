//! What games do to a crowd, each against the plain crowd in the same run: steady
//! churn (despawn and spawn a share of the agents between every two ticks), agents
//! parked far away (1 or 100 at 1e4 or 1e6 from the crowd: pooled or off-map
//! entities), the crowd in towns far apart (4 at 1e5, 9 at 1e6), and a crowd piled on
//! one point. Both neighbour indexes; the flock
//! profile at 50k agents (coincident: 10k against the plain 10k, and against a dense
//! 10k where every agent has its full count of neighbours, as in the pile).
//!
//! The bench times ticks only; the churn between ticks is done outside the timing.
//! Criterion calls the routine once per sample, so every sample starts from a world
//! freshly set up and times its first ticks (3-30 of them): for the pile, its densest.
//! Target: no pattern's median tick above twice the plain crowd's. Churn and parked
//! agents meet it on both indexes; a crowd piled on one point costs more while it
//! spreads out (README, "Limits"; the figures in docs/optimisations.md, "Game
//! patterns").

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use glam::Vec2;
use throng::scenario::Scenario;
use throng::spatial::IndexKind;
use throng::AgentSpec;

use crate::common::scenario;

/// A game pattern applied to a warmed-up flock.
#[derive(Clone, Copy, Debug)]
pub enum Pattern {
    /// Nothing: the reference.
    Plain,
    /// Despawn and spawn this fraction of the crowd between every two ticks.
    Churn(f32),
    /// This many agents parked this far from the crowd's corner.
    Outliers(usize, f32),
    /// The crowd cut into `n` × `n` pieces by where its agents stand, and the pieces
    /// moved this far apart (towns on a large map): the same density and neighbours,
    /// the rows of every town interleaved with the others' until the next re-sort.
    Towns(usize, f32),
    /// Every agent spawned on one point.
    Coincident,
    /// Every agent on a lattice about 1.15 apart (1.3 square units each, within
    /// what bodies of radius 0.4 can stand): every bird has more than its 12
    /// neighbours within reach, as in the pile, but no cell is over-full. The pile's
    /// second reference: what its neighbour count costs in a crowd that can stand.
    Dense,
}

impl Pattern {
    pub fn label(self) -> String {
        match self {
            Pattern::Plain => "plain".into(),
            Pattern::Churn(f) => format!("churn {}%", f * 100.0),
            Pattern::Outliers(n, d) => {
                format!("{n} outlier{} at {d:e}", if n == 1 { "" } else { "s" })
            }
            Pattern::Towns(n, d) => format!("{} towns {d:e} apart", n * n),
            Pattern::Coincident => "coincident".into(),
            Pattern::Dense => "dense".into(),
        }
    }
}

/// A small deterministic generator for the bench's choices (not the world's).
pub struct Lcg(pub u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn unit(&mut self) -> f32 {
        (self.next() % 1_000_000) as f32 / 1_000_000.0
    }
}

/// The flock at `n` agents on `index`, warmed up, with `pattern` set up.
pub fn prepared(n: usize, index: IndexKind, pattern: Pattern) -> Scenario {
    let mut s = scenario("flock", n, Some(index), 20);
    let world = s.world_mut();
    let group = world.agent_group(world.ids()[0]).expect("a live agent");
    match pattern {
        Pattern::Plain | Pattern::Churn(_) => {}
        Pattern::Outliers(count, d) => {
            // Replace `count` agents by parked ones, so the total stays `n`.
            let corner = world
                .positions()
                .iter()
                .fold(Vec2::splat(f32::MAX), |m, &p| m.min(p));
            for k in 0..count {
                let id = world.ids()[k * 97 % world.len()];
                world.despawn(id).expect("despawn");
                let at = corner + Vec2::splat(d) + Vec2::new(k as f32 * 3.0, 0.0);
                world.spawn(AgentSpec::new(group, at)).expect("spawn");
            }
        }
        Pattern::Towns(n, d) => {
            let (lo, hi) = world.positions().iter().fold(
                (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
                |(lo, hi), &p| (lo.min(p), hi.max(p)),
            );
            let piece = (hi - lo) / n as f32;
            for id in world.ids().to_vec() {
                let p = world.position(id).expect("a live agent");
                let town = ((p - lo) / piece)
                    .floor()
                    .clamp(Vec2::ZERO, Vec2::splat(n as f32 - 1.0));
                world.set_position(id, p + town * d).expect("move");
            }
        }
        Pattern::Coincident => {
            let ids = world.ids().to_vec();
            let at = world.positions()[0];
            for id in ids {
                world.despawn(id).expect("despawn");
                world.spawn(AgentSpec::new(group, at)).expect("spawn");
            }
        }
        Pattern::Dense => {
            let ids = world.ids().to_vec();
            let at = world.positions()[0];
            let side = (ids.len() as f32).sqrt().ceil() as usize;
            let mut rng = Lcg(0xde75e);
            for (k, id) in ids.into_iter().enumerate() {
                world.despawn(id).expect("despawn");
                let lattice = Vec2::new((k % side) as f32, (k / side) as f32) * 1.15;
                let jitter = Vec2::new(rng.unit(), rng.unit()) * 0.3;
                world
                    .spawn(AgentSpec::new(group, at + lattice + jitter))
                    .expect("spawn");
            }
        }
    }
    s
}

/// Despawn and spawn `fraction` of the crowd: random agents leave, newcomers appear
/// at random points of the crowd's bounding box (as a game's spawner would).
pub fn churn(s: &mut Scenario, fraction: f32, rng: &mut Lcg) {
    let world = s.world_mut();
    let (lo, hi) = world.positions().iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let group = world.agent_group(world.ids()[0]).expect("a live agent");
    let k = ((world.len() as f32 * fraction).round() as usize).max(1);
    for _ in 0..k {
        let id = world.ids()[rng.next() as usize % world.len()];
        world.despawn(id).expect("despawn");
    }
    for _ in 0..k {
        let p = lo + (hi - lo) * Vec2::new(rng.unit(), rng.unit());
        world.spawn(AgentSpec::new(group, p)).expect("spawn");
    }
}

/// Time `iters` ticks of `s` under `pattern` (churn between them, untimed).
pub fn time_ticks(s: &mut Scenario, pattern: Pattern, iters: u64, rng: &mut Lcg) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        if let Pattern::Churn(f) = pattern {
            churn(s, f, rng);
        }
        let t = Instant::now();
        s.step().expect("step");
        total += t.elapsed();
    }
    total
}

/// The patterns and the crowd size each is compared at.
pub const PATTERNS: &[(Pattern, usize)] = &[
    (Pattern::Plain, 50_000),
    (Pattern::Churn(0.001), 50_000),
    (Pattern::Churn(0.01), 50_000),
    (Pattern::Outliers(1, 1e4), 50_000),
    (Pattern::Outliers(100, 1e4), 50_000),
    (Pattern::Outliers(1, 1e6), 50_000),
    (Pattern::Outliers(100, 1e6), 50_000),
    (Pattern::Towns(2, 1e5), 50_000),
    (Pattern::Towns(3, 1e6), 50_000),
    (Pattern::Plain, 10_000),
    (Pattern::Dense, 10_000),
    (Pattern::Coincident, 10_000),
];

/// Register the game-pattern benches.
pub fn benches(c: &mut Criterion) {
    for (label, index) in [("kdtree", IndexKind::KdTree), ("grid", IndexKind::Grid)] {
        let mut group = c.benchmark_group(format!("patterns/flock_{label}"));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(3));
        for &(pattern, n) in PATTERNS {
            group.throughput(Throughput::Elements(n as u64));
            let id = BenchmarkId::new(pattern.label(), n);
            group.bench_function(id, |b| {
                let mut s = prepared(n, index, pattern);
                let mut rng = Lcg(0x5eed);
                b.iter_custom(|iters| time_ticks(&mut s, pattern, iters, &mut rng));
            });
        }
        group.finish();
    }
}
