//! Arbitrary sequences of API calls with arbitrary values: no call panics, a refused
//! call changes nothing, and no tick leaves a non-finite position, velocity or force.
#![no_main]

use arbitrary::Arbitrary;
use glam::Vec2;
use libfuzzer_sys::fuzz_target;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::targeting::ArriveParams;
use throng::behaviours::wander::WanderParams;
use throng::scene::{Obstacle, Wall};
use throng::world::Snapshot;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World};

#[derive(Arbitrary, Debug)]
enum Op {
    Spawn(u8, [f32; 2], [f32; 2], [f32; 4]),
    Despawn(u8),
    Position(u8, [f32; 2]),
    Velocity(u8, [f32; 2]),
    Target(u8, [f32; 2], Option<u8>),
    Limits(u8, [f32; 3]),
    Radius(u8, f32),
    Preferred(u8, Option<[f32; 2]>),
    Positions(Vec<(u8, [f32; 2])>),
    Walls([f32; 2], [f32; 2]),
    Obstacle([f32; 2], f32),
    Step(f32),
    Snapshot(Option<(u32, u8)>),
}

fn v([x, y]: [f32; 2]) -> Vec2 {
    Vec2::new(x, y)
}

fn world() -> World {
    let mut w = World::default();
    let groups = [
        GroupConfig::new("flock")
            .with(Behaviour::Separation(SeparationParams::default()), 1.5)
            .with(Behaviour::Alignment, 0.5)
            .with(Behaviour::Cohesion, 0.5)
            .neighbours(3.0, 8),
        GroupConfig::new("orca")
            .with(Behaviour::Arrive(ArriveParams::default()), 1.0)
            .avoiding(AvoidanceParams::default()),
        GroupConfig::new("wander").with(Behaviour::Wander(WanderParams::default()), 1.0),
        GroupConfig::new("seek").with(Behaviour::Seek, 1.0).neighbours(2.0, 4),
    ];
    for g in groups {
        w.add_group(g).unwrap();
    }
    w
}

fuzz_target!(|ops: Vec<Op>| {
    let mut w = world();
    let groups: Vec<_> = w.groups().map(|(g, _)| g).collect();
    let mut ids: Vec<AgentId> = Vec::new();
    for op in ops.into_iter().take(200) {
        let before = w.state_hash();
        let pick = |ids: &[AgentId], i: u8| (!ids.is_empty()).then(|| ids[i as usize % ids.len()]);
        let refused = match op {
            Op::Spawn(g, p, vel, [m, s, f, r]) => {
                let spec = AgentSpec::new(groups[g as usize % groups.len()], v(p))
                    .with_velocity(v(vel))
                    .with_limits(m, s, f)
                    .with_radius(r);
                match w.spawn(spec) {
                    Ok(id) => {
                        ids.push(id);
                        false
                    }
                    Err(_) => true,
                }
            }
            Op::Despawn(i) => match pick(&ids, i) {
                Some(id) => {
                    ids.retain(|&x| x != id);
                    w.despawn(id).is_err()
                }
                None => false,
            },
            Op::Position(i, p) => pick(&ids, i).is_some_and(|id| w.set_position(id, v(p)).is_err()),
            Op::Velocity(i, p) => pick(&ids, i).is_some_and(|id| w.set_velocity(id, v(p)).is_err()),
            Op::Target(i, p, t) => pick(&ids, i).is_some_and(|id| {
                let target = match t.and_then(|t| pick(&ids, t)) {
                    Some(other) => Target::Agent(other),
                    None => Target::Point(v(p)),
                };
                w.set_target(id, target).is_err()
            }),
            Op::Limits(i, [m, s, f]) => pick(&ids, i).is_some_and(|id| w.set_limits(id, m, s, f).is_err()),
            Op::Radius(i, r) => pick(&ids, i).is_some_and(|id| w.set_radius(id, r).is_err()),
            Op::Preferred(i, p) => {
                pick(&ids, i).is_some_and(|id| w.set_preferred_velocity(id, p.map(v)).is_err())
            }
            Op::Positions(list) => {
                let (who, at): (Vec<AgentId>, Vec<Vec2>) =
                    list.iter().filter_map(|&(i, p)| pick(&ids, i).map(|id| (id, v(p)))).unzip();
                w.set_positions(&who, &at).is_err()
            }
            Op::Walls(a, b) => Wall::new(v(a), v(b)).is_ok_and(|wall| w.set_walls(&[wall]).is_err()),
            Op::Obstacle(c, r) => Obstacle::new(v(c), r).is_ok_and(|o| w.set_obstacles(&[o]).is_err()),
            Op::Step(dt) => match w.step(dt) {
                Ok(_) => {
                    for (p, vel) in w.positions().iter().zip(w.velocities()) {
                        assert!(p.is_finite() && vel.is_finite(), "{p} {vel} after dt {dt}");
                    }
                    assert!(w.forces().all(|f| f.is_finite()));
                    false
                }
                Err(_) => {
                    assert!(!(dt.is_finite() && dt > 0.0), "dt {dt} refused");
                    true
                }
            },
            Op::Snapshot(corrupt) => {
                let mut bytes = w.snapshot().to_bytes().unwrap();
                assert_eq!(bytes.len(), w.snapshot_len());
                match corrupt {
                    Some((at, flip)) if flip != 0 => {
                        let at = at as usize % bytes.len();
                        bytes[at] ^= flip;
                        assert!(Snapshot::from_bytes(&bytes).is_err());
                    }
                    _ => {
                        w.restore(&Snapshot::from_bytes(&bytes).unwrap()).unwrap();
                        assert_eq!(w.state_hash(), before);
                    }
                }
                false
            }
        };
        if refused {
            assert_eq!(w.state_hash(), before, "a refused call changed the world");
        }
    }
});
