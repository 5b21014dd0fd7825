//! Arbitrary sequences of API calls, with arbitrary values (NaN, infinities, zero,
//! subnormals, values near `f32::MAX`) and snapshots corrupted on the way: no call
//! panics, every refused call leaves the world as it was, and no tick leaves a
//! non-finite position, velocity or force. The CI run takes a few seconds; set
//! `PROPTEST_CASES` for a longer search.
use glam::Vec2;
use proptest::prelude::*;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::targeting::ArriveParams;
use throng::behaviours::wander::WanderParams;
use throng::scene::{Obstacle, Wall};
use throng::world::Snapshot;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World};

/// Any f32 at all, weighted toward the values that break formulas.
fn value() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => -100.0f32..100.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(f32::MAX),
        1 => Just(-f32::MAX),
        1 => Just(f32::MIN_POSITIVE),
        1 => Just(1e-45f32),
        1 => prop::num::f32::ANY,
        1 => (-38i32..=38, -9.9f32..9.9).prop_map(|(e, m)| m * 10f32.powi(e)),
    ]
}

fn vec2() -> impl Strategy<Value = Vec2> {
    (value(), value()).prop_map(|(x, y)| Vec2::new(x, y))
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(usize, Vec2, Vec2, [f32; 4]),
    Despawn(usize),
    Position(usize, Vec2),
    Velocity(usize, Vec2),
    Target(usize, Vec2, Option<usize>),
    Limits(usize, [f32; 3]),
    Radius(usize, f32),
    Preferred(usize, Option<Vec2>),
    Positions(Vec<(usize, Vec2)>),
    Walls(Vec2, Vec2),
    Obstacle(Vec2, f32),
    Step(f32),
    SnapshotRoundTrip(Option<(usize, u8)>),
}

fn op() -> impl Strategy<Value = Op> {
    let i = 0usize..64;
    prop_oneof![
        4 => (0usize..4, vec2(), vec2(), [value(), value(), value(), value()])
            .prop_map(|(g, p, v, l)| Op::Spawn(g, p, v, l)),
        1 => i.clone().prop_map(Op::Despawn),
        2 => (i.clone(), vec2()).prop_map(|(a, p)| Op::Position(a, p)),
        2 => (i.clone(), vec2()).prop_map(|(a, v)| Op::Velocity(a, v)),
        2 => (i.clone(), vec2(), prop::option::of(0usize..64))
            .prop_map(|(a, p, t)| Op::Target(a, p, t)),
        2 => (i.clone(), [value(), value(), value()]).prop_map(|(a, l)| Op::Limits(a, l)),
        1 => (i.clone(), value()).prop_map(|(a, r)| Op::Radius(a, r)),
        1 => (i.clone(), prop::option::of(vec2())).prop_map(|(a, v)| Op::Preferred(a, v)),
        1 => prop::collection::vec((i.clone(), vec2()), 0..8).prop_map(Op::Positions),
        1 => (vec2(), vec2()).prop_map(|(a, b)| Op::Walls(a, b)),
        1 => (vec2(), value()).prop_map(|(c, r)| Op::Obstacle(c, r)),
        5 => value().prop_map(Op::Step),
        1 => prop::option::of((0usize..100_000, 1u8..=255)).prop_map(Op::SnapshotRoundTrip),
    ]
}

/// A world of four groups: a flock, ORCA walkers, a host-driven wanderer group and an
/// arriving group.
fn world() -> World {
    let mut w = World::default();
    w.add_group(
        GroupConfig::new("flock")
            .with(Behaviour::Separation(SeparationParams::default()), 1.5)
            .with(Behaviour::Alignment, 0.5)
            .with(Behaviour::Cohesion, 0.5)
            .neighbours(3.0, 8),
    )
    .unwrap();
    w.add_group(
        GroupConfig::new("orca")
            .with(Behaviour::Arrive(ArriveParams::default()), 1.0)
            .avoiding(AvoidanceParams::default()),
    )
    .unwrap();
    w.add_group(GroupConfig::new("wander").with(Behaviour::Wander(WanderParams::default()), 1.0))
        .unwrap();
    w.add_group(
        GroupConfig::new("seek")
            .with(Behaviour::Seek, 1.0)
            .neighbours(2.0, 4),
    )
    .unwrap();
    w
}

fn pick(ids: &[AgentId], i: usize) -> Option<AgentId> {
    (!ids.is_empty()).then(|| ids[i % ids.len()])
}

/// Applies `op`; a refused call must leave the world as it was.
fn apply(w: &mut World, ids: &mut Vec<AgentId>, op: &Op) -> Result<(), TestCaseError> {
    let before = w.state_hash();
    let groups: Vec<_> = w.groups().map(|(g, _)| g).collect();
    let a = |i: usize| pick(ids, i);
    let refused = match op.clone() {
        Op::Spawn(g, p, v, [m, s, f, r]) => {
            let spec = AgentSpec::new(groups[g % groups.len()], p)
                .with_velocity(v)
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
        Op::Despawn(i) => match a(i) {
            Some(id) => {
                ids.retain(|&x| x != id);
                w.despawn(id).is_err()
            }
            None => false,
        },
        Op::Position(i, p) => a(i).is_some_and(|id| w.set_position(id, p).is_err()),
        Op::Velocity(i, v) => a(i).is_some_and(|id| w.set_velocity(id, v).is_err()),
        Op::Target(i, p, t) => a(i).is_some_and(|id| {
            let target = match t.and_then(a) {
                Some(other) => Target::Agent(other),
                None => Target::Point(p),
            };
            w.set_target(id, target).is_err()
        }),
        Op::Limits(i, [m, s, f]) => a(i).is_some_and(|id| w.set_limits(id, m, s, f).is_err()),
        Op::Radius(i, r) => a(i).is_some_and(|id| w.set_radius(id, r).is_err()),
        Op::Preferred(i, v) => a(i).is_some_and(|id| w.set_preferred_velocity(id, v).is_err()),
        Op::Positions(list) => {
            let (who, at): (Vec<AgentId>, Vec<Vec2>) = list
                .iter()
                .filter_map(|&(i, p)| a(i).map(|id| (id, p)))
                .unzip();
            w.set_positions(&who, &at).is_err()
        }
        Op::Walls(p, q) => match Wall::new(p, q) {
            Ok(wall) => w.set_walls(&[wall]).is_err(),
            Err(_) => false,
        },
        Op::Obstacle(c, r) => match Obstacle::new(c, r) {
            Ok(o) => w.set_obstacles(&[o]).is_err(),
            Err(_) => false,
        },
        Op::Step(dt) => match w.step(dt) {
            Ok(_) => {
                for (p, v) in w.positions().iter().zip(w.velocities()) {
                    prop_assert!(p.is_finite() && v.is_finite(), "{p} {v} after dt {dt}");
                }
                prop_assert!(w.forces().all(|f| f.is_finite()));
                false
            }
            Err(e) => {
                prop_assert!(dt.is_nan() || dt <= 0.0 || dt.is_infinite(), "{e}");
                true
            }
        },
        Op::SnapshotRoundTrip(corrupt) => {
            let mut bytes = w.snapshot().to_bytes().unwrap();
            prop_assert_eq!(bytes.len(), w.snapshot_len());
            if let Some((at, flip)) = corrupt {
                let at = at % bytes.len();
                bytes[at] ^= flip;
                prop_assert!(Snapshot::from_bytes(&bytes).is_err(), "byte {} altered", at);
                false
            } else {
                let s = Snapshot::from_bytes(&bytes).unwrap();
                w.restore(&s).unwrap();
                prop_assert_eq!(w.state_hash(), before);
                false
            }
        }
    };
    if refused {
        prop_assert_eq!(
            w.state_hash(),
            before,
            "a refused {:?} changed the world",
            op
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_of_calls_neither_panics_nor_spreads_nan(ops in prop::collection::vec(op(), 1..80)) {
        let mut w = world();
        let mut ids = Vec::new();
        for op in &ops {
            apply(&mut w, &mut ids, op)?;
        }
    }
}
