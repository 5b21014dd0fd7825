//! What a host writes back each frame: the positions of 50,000 agents of a group the
//! host moves, in one call ([`throng::World::set_positions`]) against one call each
//! ([`throng::World::set_position`]). Target: under 1 ms for the one call.

use criterion::{Criterion, Throughput};
use glam::Vec2;
use throng::{AgentSpec, GroupConfig, World};

const AGENTS: usize = 50_000;

pub fn benches(c: &mut Criterion) {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig {
            host_moves: true,
            ..GroupConfig::new("moved by the host")
        })
        .unwrap();
    let ids: Vec<_> = (0..AGENTS)
        .map(|i| {
            let at = Vec2::new((i % 250) as f32, (i / 250) as f32);
            w.spawn(AgentSpec::new(g, at)).unwrap()
        })
        .collect();
    let moved: Vec<Vec2> = w.positions().iter().map(|p| *p + Vec2::X * 0.01).collect();
    let mut group = c.benchmark_group("writes");
    group.throughput(Throughput::Elements(AGENTS as u64));
    group.bench_function("positions/one call", |b| {
        b.iter(|| w.set_positions(&ids, &moved).unwrap());
    });
    group.bench_function("positions/one call each", |b| {
        b.iter(|| {
            for (&id, &p) in ids.iter().zip(&moved) {
                w.set_position(id, p).unwrap();
            }
        });
    });
    group.finish();
}
