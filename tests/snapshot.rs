//! Snapshot and restore: a world rebuilt from a snapshot (through its binary form)
//! steps bitwise like the original, on 1 and 2 threads, with churn between ticks, for
//! bundled scenes that hold every kind of per-agent state: flocking, the approach
//! walker, leaders and their squads (sight marks), walls and obstacles, paths,
//! collision avoidance.
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
    // Truncations at every length: an error, never a panic.
    for cut in (0..bytes.len()).step_by(97) {
        let _ = Snapshot::from_bytes(&bytes[..cut]).and_then(World::from_snapshot);
    }
    // Flipped bytes: an error or a world that steps without panicking.
    for at in (0..bytes.len()).step_by(7) {
        let mut flipped = bytes.clone();
        flipped[at] ^= if at % 2 == 0 { 0x5a } else { 0x81 };
        if let Ok(mut restored) = Snapshot::from_bytes(&flipped).and_then(World::from_snapshot) {
            restored.step(DT).unwrap();
        }
    }
    assert_eq!(w.state_hash(), before);
}
