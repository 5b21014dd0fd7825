//! Snapshot and restore: a world rebuilt from a snapshot (through its binary form)
//! steps bitwise like the original, on 1 and 2 threads, with churn between ticks, for
//! bundled scenes that hold every kind of per-agent state: flocking, the approach
//! walker, leaders and their squads (sight marks), walls and obstacles, paths,
//! collision avoidance.
#![cfg(feature = "scenario")]
mod common;

use glam::Vec2;
use throng::scenario::{self, Scenario};
use throng::spatial::IndexKind;
use throng::world::Snapshot;
use throng::{AgentSpec, ThrongError, World};

const DT: f32 = 1.0 / 30.0;

fn world_of(profile: &str, agents: usize, index: IndexKind) -> World {
    let bundled = scenario::bundled(profile).expect("a bundled profile");
    let mut p = scenario::load_bundled(bundled).unwrap().scaled_to(agents);
    p.world.index = index;
    let mut s = Scenario::build(&p).unwrap();
    std::mem::take(s.world_mut())
}

/// Despawn one agent and spawn one, chosen from the tick number.
fn churn(w: &mut World) {
    let t = w.tick() as usize;
    let ids = w.ids().to_vec();
    if ids.len() > 2 {
        w.despawn(ids[(t * 7919) % ids.len()]).unwrap();
        let from = ids[(t * 104_729 + 1) % ids.len()];
        if let (Ok(group), Ok(at)) = (w.agent_group(from), w.position(from)) {
            w.spawn(AgentSpec::new(group, at + Vec2::new(0.37, -0.21)))
                .unwrap();
        }
    }
}

fn step_with_churn(w: &mut World, ticks: usize) -> Vec<u64> {
    (0..ticks)
        .map(|_| {
            churn(w);
            w.step(DT).unwrap();
            w.state_hash()
        })
        .collect()
}

#[test]
fn a_restored_world_steps_bitwise_like_the_original() {
    for (profile, index) in [
        ("leader_squads", IndexKind::KdTree),
        ("city", IndexKind::Grid),
        ("approach", IndexKind::KdTree),
        ("circle_orca", IndexKind::Grid),
        ("arena", IndexKind::KdTree),
        ("flock", IndexKind::Grid),
    ] {
        for threads in [1, 2] {
            let mut original = world_of(profile, 600, index);
            original.set_thread_pool(Some(common::pool(threads)));
            step_with_churn(&mut original, 10);
            let bytes = original.snapshot().to_bytes().unwrap();
            let mut restored = World::from_snapshot(Snapshot::from_bytes(&bytes).unwrap()).unwrap();
            // Restored on the other thread count: the result must not depend on it.
            restored.set_thread_pool(Some(common::pool(3 - threads)));
            assert_eq!(restored.state_hash(), original.state_hash(), "{profile}");
            assert_eq!(restored.tick(), original.tick());
            assert_eq!(restored.ids(), original.ids());
            let a = step_with_churn(&mut original, 40);
            let b = step_with_churn(&mut restored, 40);
            assert_eq!(a, b, "{profile} on {threads} thread(s)");
            for &id in original.ids() {
                assert_eq!(
                    original.in_sight_of(id),
                    restored.in_sight_of(id),
                    "{profile}"
                );
            }
            // Per agent: a stated size.
            println!(
                "{profile}: {} bytes, {} agents",
                bytes.len(),
                original.len()
            );
            let per_agent = bytes.len() / original.len().max(1);
            assert!(per_agent < 260, "{profile}: {per_agent} bytes per agent");
        }
    }
}

#[test]
fn rollback_replays_the_same_ticks() {
    // Step 10, snapshot, step 5, restore, step the same 5 again: the same hashes
    // (a restore in place keeps the world's working buffers; their contents must
    // not matter), twice over.
    for (profile, index) in [
        ("leader_squads", IndexKind::KdTree),
        ("flock", IndexKind::Grid),
        ("city", IndexKind::KdTree),
    ] {
        let mut w = world_of(profile, 300, index);
        step_with_churn(&mut w, 10);
        let saved = w.snapshot();
        let first = step_with_churn(&mut w, 5);
        for _ in 0..2 {
            w.restore(&saved).unwrap();
            assert_eq!(w.tick(), 10);
            assert_eq!(step_with_churn(&mut w, 5), first, "{profile}");
        }
    }
}

#[test]
fn bad_snapshots_are_refused_and_lose_nothing() {
    let mut w = world_of("flock", 200, IndexKind::Grid);
    w.step(DT).unwrap();
    let bytes = w.snapshot().to_bytes().unwrap();
    let before = w.state_hash();
    for bad in [&bytes[..bytes.len() / 2], &[][..], &[0xff; 16][..]] {
        let e = Snapshot::from_bytes(bad).unwrap_err();
        assert!(matches!(e, ThrongError::InvalidSnapshot(_)), "{e}");
    }
    let refused = |b: &[u8]| {
        matches!(
            Snapshot::from_bytes(b),
            Err(ThrongError::InvalidSnapshot(_))
        )
    };
    // Truncations at every length, and bytes appended: refused.
    for cut in (0..bytes.len()).step_by(97) {
        assert!(refused(&bytes[..cut]), "cut at {cut}");
    }
    for extra in [1, 4, 100] {
        let mut longer = bytes.clone();
        longer.extend(std::iter::repeat_n(0u8, extra));
        assert!(refused(&longer), "{extra} bytes appended");
    }
    // 10,000 single-byte corruptions, every position and many values: all refused.
    let mut rng = throng::rng::agent_rng(3, 4);
    for k in 0..10_000usize {
        let at = if k < bytes.len() {
            k
        } else {
            rand_core::Rng::next_u32(&mut rng) as usize % bytes.len()
        };
        let mut flipped = bytes.clone();
        flipped[at] ^= 1 + (rand_core::Rng::next_u32(&mut rng) % 255) as u8;
        assert!(refused(&flipped), "byte {at} altered, accepted");
    }
    assert_eq!(w.state_hash(), before);
}

#[test]
fn a_snapshot_whose_state_no_call_could_make_is_refused() {
    // An agent moving at (1e20, -1e20) with a top speed of 2, written into the
    // snapshot's bytes with a checksum that vouches for them: it holds together
    // (finite, columns of equal lengths), but no setter or tick leaves it, and the
    // avoidance squares speeds on that promise.
    let mut w = world_of("circle_orca", 50, IndexKind::Grid);
    w.step(DT).unwrap();
    let bytes = w.snapshot().to_bytes().unwrap();
    let v = w.velocities()[3];
    let was: Vec<u8> = [v.x, v.y].iter().flat_map(|f| f.to_le_bytes()).collect();
    let at: Vec<usize> = (0..bytes.len() - 8)
        .filter(|&i| bytes[i..i + 8] == was[..])
        .collect();
    // The velocity column comes before the steering output's (which, for an avoiding
    // agent, holds the same velocity).
    assert!(!at.is_empty(), "the velocity's bytes are found");
    let mut forged = bytes.clone();
    let fast: Vec<u8> = [1e20f32, -1e20]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    forged[at[0]..at[0] + 8].copy_from_slice(&fast);
    let n = forged.len() - 4;
    let crc = crc32fast::hash(&forged[..n]);
    forged[n..].copy_from_slice(&crc.to_le_bytes());
    let snapshot = Snapshot::from_bytes(&forged).expect("the checksum vouches for the bytes");
    let e = World::from_snapshot(snapshot.clone()).unwrap_err();
    assert!(matches!(e, ThrongError::InvalidSnapshot(_)), "{e}");
    let before = w.state_hash();
    assert!(w.restore(&snapshot).is_err());
    assert_eq!(w.state_hash(), before, "a refused restore changes nothing");
    // The untouched bytes restore.
    World::from_snapshot(Snapshot::from_bytes(&bytes).unwrap()).unwrap();
}

#[test]
fn the_snapshot_length_is_known_without_encoding() {
    for profile in [
        "flock",
        "leader_squads",
        "approach",
        "circle_orca",
        "evacuation",
    ] {
        let mut w = world_of(profile, 300, IndexKind::Grid);
        w.step(DT).unwrap();
        assert_eq!(
            w.snapshot_len(),
            w.snapshot().to_bytes().unwrap().len(),
            "{profile}"
        );
    }
}

#[test]
fn the_state_hash_sees_every_input_the_next_tick_reads() {
    use throng::behaviours::path::PathFollowParams;
    use throng::scene::{FieldSpec, Goal, Obstacle, Path, Wall};
    use throng::{Behaviour, GroupConfig, Target};
    let mut base = world_of("leader_squads", 100, IndexKind::Grid);
    base.step(DT).unwrap();
    let (a, b) = (base.ids()[5], base.ids()[9]);
    let g = base.agent_group(a).unwrap();
    type Change = Box<dyn Fn(&mut World)>;
    let changes: Vec<(&str, Change)> = vec![
        (
            "target",
            Box::new(move |w| w.set_target(a, Target::Point(Vec2::new(3.0, 4.0))).unwrap()),
        ),
        (
            "target agent",
            Box::new(move |w| w.set_target(a, Target::Agent(b)).unwrap()),
        ),
        (
            "second target",
            Box::new(move |w| w.set_target2(a, Target::Point(Vec2::ONE)).unwrap()),
        ),
        (
            "offset",
            Box::new(move |w| w.set_offset(a, Vec2::new(0.5, -1.0)).unwrap()),
        ),
        (
            "preferred velocity",
            Box::new(move |w| w.set_preferred_velocity(a, Some(Vec2::X)).unwrap()),
        ),
        (
            "position",
            Box::new(move |w| w.set_position(a, Vec2::new(1.0, 2.0)).unwrap()),
        ),
        (
            "velocity",
            Box::new(move |w| w.set_velocity(a, Vec2::new(0.1, 0.0)).unwrap()),
        ),
        ("heading", Box::new(move |w| w.set_heading(a, 1.0).unwrap())),
        ("radius", Box::new(move |w| w.set_radius(a, 0.3).unwrap())),
        (
            "limits",
            Box::new(move |w| w.set_limits(a, 2.0, 1.0, 3.0).unwrap()),
        ),
        (
            "own path",
            Box::new(move |w| {
                let p = w
                    .add_path(Path::open(vec![Vec2::ZERO, Vec2::X * 9.0]).unwrap())
                    .unwrap();
                w.set_agent_path(a, Some(p)).unwrap();
            }),
        ),
        (
            "a path",
            Box::new(|w| {
                w.add_path(Path::open(vec![Vec2::ZERO, Vec2::Y]).unwrap())
                    .unwrap();
            }),
        ),
        (
            "group",
            Box::new(move |w| {
                let mut c = w.group(g).unwrap().clone();
                c.neighbour_radius += 0.5;
                w.set_group(g, c).unwrap();
            }),
        ),
        (
            "a new group",
            Box::new(|w| {
                w.add_group(GroupConfig::new("extra").with(
                    Behaviour::FollowPath {
                        path: None,
                        params: PathFollowParams::default(),
                    },
                    1.0,
                ))
                .unwrap();
            }),
        ),
        (
            "walls",
            Box::new(|w| {
                w.set_walls(&[Wall::new(Vec2::new(-90.0, -90.0), Vec2::new(-80.0, -90.0)).unwrap()])
                    .unwrap()
            }),
        ),
        (
            "obstacles",
            Box::new(|w| {
                w.set_obstacles(&[Obstacle::new(Vec2::new(-90.0, 90.0), 1.0).unwrap()])
                    .unwrap()
            }),
        ),
        (
            "goal field",
            Box::new(|w| {
                w.add_goal_field(FieldSpec::new(
                    vec![Goal::Point(Vec2::new(-50.0, -50.0))],
                    0.5,
                ))
                .unwrap();
            }),
        ),
        ("despawn", Box::new(move |w| w.despawn(b).unwrap())),
    ];
    let before = base.state_hash();
    for (what, change) in &changes {
        let mut w = World::from_snapshot(base.snapshot()).unwrap();
        assert_eq!(w.state_hash(), before, "a restored copy hashes the same");
        change(&mut w);
        assert_ne!(
            w.state_hash(),
            before,
            "changing the {what} leaves the hash"
        );
    }
    // The clock alone: two empty worlds a tick old, of different tick lengths.
    let (mut short, mut long) = (World::default(), World::default());
    short.step(0.1).unwrap();
    long.step(0.2).unwrap();
    assert_eq!(short.tick(), long.tick());
    assert_ne!(short.state_hash(), long.state_hash());
    assert_eq!(
        World::from_snapshot(long.snapshot()).unwrap().elapsed(),
        long.elapsed()
    );
}
