//! Stable handles: despawning keeps every other agent's id valid and data intact.
mod common;

use std::collections::HashMap;

use glam::Vec2;
use throng::spatial::IndexKind;
use throng::{AgentId, ThrongError};

fn snapshot(world: &throng::World) -> HashMap<AgentId, (Vec2, Vec2, f32)> {
    world
        .ids()
        .iter()
        .enumerate()
        .map(|(r, &id)| {
            (
                id,
                (
                    world.positions()[r],
                    world.velocities()[r],
                    world.headings()[r],
                ),
            )
        })
        .collect()
}

#[test]
fn despawning_mid_run_leaves_others_valid_and_intact() {
    let (mut world, ids) = common::flock(1_000, 5, IndexKind::KdTree);
    for _ in 0..20 {
        world.step(0.05).unwrap();
    }
    let before = snapshot(&world);
    let gone: Vec<AgentId> = ids.iter().copied().step_by(3).collect();
    for &id in &gone {
        world.despawn(id).unwrap();
    }
    assert_eq!(world.len(), ids.len() - gone.len());
    for &id in &gone {
        assert!(!world.contains(id));
        assert_eq!(world.position(id), Err(ThrongError::UnknownAgent(id)));
        assert_eq!(world.despawn(id), Err(ThrongError::UnknownAgent(id)));
    }
    let after = snapshot(&world);
    for id in ids.iter().filter(|id| !gone.contains(id)) {
        assert_eq!(after[id], before[id], "{id} changed by others' removal");
        assert_eq!(world.position(*id).unwrap(), before[id].0);
    }
    // Keep running: the survivors keep their handles through ticks and re-sorts.
    for _ in 0..50 {
        world.step(0.05).unwrap();
    }
    for id in ids.iter().filter(|id| !gone.contains(id)) {
        let r = world.row(*id).unwrap();
        assert_eq!(world.ids()[r], *id);
    }
    // Reused slots get new generations: old handles stay dead.
    let g = world.agent_group(ids[1]).unwrap();
    let fresh = world.spawn(throng::AgentSpec::new(g, Vec2::ZERO)).unwrap();
    assert!(gone.iter().all(|&old| old != fresh && !world.contains(old)));
}
