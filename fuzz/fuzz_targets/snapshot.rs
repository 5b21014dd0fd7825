//! Snapshot payloads altered anywhere, framed with a checksum that vouches for them:
//! decoding and restoring either refuses them with an error or gives a world that
//! steps without panicking and stays finite (what a restore's consistency checks are
//! for). The input is a list of edits (offset, xor) to the payload of a small world's
//! snapshot.
#![no_main]

use std::sync::OnceLock;

use glam::Vec2;
use libfuzzer_sys::fuzz_target;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::targeting::ArriveParams;
use throng::scene::{FieldSpec, Goal, Path, Wall};
use throng::world::Snapshot;
use throng::{AgentSpec, Behaviour, GroupConfig, Target, World};

/// The payload of a small world's snapshot: two groups (one with ORCA), walls, a
/// path, a goal field, a dozen agents.
fn base() -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut w = World::default();
        w.set_walls(&[Wall::new(Vec2::new(-20.0, -5.0), Vec2::new(20.0, -5.0)).unwrap()])
            .unwrap();
        let path = w
            .add_path(Path::open(vec![Vec2::ZERO, Vec2::new(10.0, 10.0)]).unwrap())
            .unwrap();
        w.add_goal_field(FieldSpec::new(vec![Goal::Point(Vec2::new(15.0, 0.0))], 0.5))
            .unwrap();
        let a = w
            .add_group(
                GroupConfig::new("a")
                    .with(Behaviour::Arrive(ArriveParams::default()), 1.0)
                    .avoiding(AvoidanceParams::default()),
            )
            .unwrap();
        let b = w.add_group(GroupConfig::new("b").with(Behaviour::Seek, 1.0)).unwrap();
        for i in 0..12 {
            let g = if i % 2 == 0 { a } else { b };
            let id = w
                .spawn(
                    AgentSpec::new(g, Vec2::new(i as f32, 1.0))
                        .with_target(Target::Point(Vec2::new(5.0, 8.0))),
                )
                .unwrap();
            if i == 3 {
                w.set_agent_path(id, Some(path)).unwrap();
                w.set_preferred_velocity(id, Some(Vec2::X)).unwrap();
            }
        }
        w.step(1.0 / 30.0).unwrap();
        let bytes = w.snapshot().to_bytes().unwrap();
        bytes[12..bytes.len() - 4].to_vec()
    })
}

fuzz_target!(|edits: Vec<(u16, u8)>| {
    let mut payload = base().to_vec();
    for (at, xor) in edits {
        let n = payload.len();
        payload[at as usize % n] ^= xor;
    }
    let mut bytes = b"THRG".to_vec();
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&payload);
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let Ok(snapshot) = Snapshot::from_bytes(&bytes) else {
        return;
    };
    let Ok(mut world) = World::from_snapshot(snapshot) else {
        return;
    };
    for _ in 0..3 {
        if world.step(1.0 / 30.0).is_err() {
            return;
        }
        for (p, v) in world.positions().iter().zip(world.velocities()) {
            assert!(p.is_finite() && v.is_finite());
        }
    }
});
