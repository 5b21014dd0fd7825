//! Stable handles: despawning keeps every other agent's id valid and data intact.
#![cfg(feature = "scenario")]
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

/// Everything the API tells about one agent by its handle.
#[derive(Clone, Debug, PartialEq)]
struct Told {
    pos: Vec2,
    vel: Vec2,
    heading: f32,
    rotation: f32,
    radius: f32,
    max_speed: f32,
    force: Vec2,
    group: throng::GroupId,
    target: throng::Target,
    in_sight_of: Option<AgentId>,
}

fn told(world: &throng::World, id: AgentId) -> Told {
    let r = world.row(id).unwrap();
    Told {
        pos: world.position(id).unwrap(),
        vel: world.velocity(id).unwrap(),
        heading: world.heading(id).unwrap(),
        rotation: world.rotations()[r],
        radius: world.radii()[r],
        max_speed: world.max_speeds()[r],
        force: world.forces().nth(r).unwrap(),
        group: world.agent_group(id).unwrap(),
        target: world.target(id).unwrap(),
        in_sight_of: world.in_sight_of(id).unwrap(),
    }
}

#[test]
fn despawns_between_ticks_leave_every_query_about_the_others_as_it_was() {
    // Squads with leaders (sight marks kept per row), walkers and a flock: every
    // per-agent query of a survivor answers the same after others are despawned,
    // except that a despawned leader is in nobody's sight.
    let b = throng::scenario::bundled("leader_squads").unwrap();
    let profile = throng::scenario::load_bundled(b).unwrap();
    let mut sc = throng::scenario::Scenario::build(&profile).unwrap();
    for _ in 0..30 {
        sc.step().unwrap();
    }
    let world = sc.world_mut();
    let ids: Vec<AgentId> = world.ids().to_vec();
    let before: HashMap<AgentId, Told> = ids.iter().map(|&id| (id, told(world, id))).collect();
    let sighted = before.values().filter(|t| t.in_sight_of.is_some()).count();
    assert!(
        sighted > 10,
        "too few agents in a leader's sight to test: {sighted}"
    );
    // Despawn every fifth agent, leaders among them, from the front rows so that
    // rows from the back move into the holes.
    let gone: Vec<AgentId> = ids.iter().copied().step_by(5).collect();
    for &id in &gone {
        world.despawn(id).unwrap();
    }
    let mut checked_sight = 0;
    for id in ids.iter().filter(|id| !gone.contains(id)) {
        let mut expect = before[id].clone();
        if expect.in_sight_of.is_some_and(|l| gone.contains(&l)) {
            expect.in_sight_of = None;
        }
        checked_sight += usize::from(expect.in_sight_of.is_some());
        assert_eq!(told(world, *id), expect, "{id}");
    }
    assert!(checked_sight > 5, "{checked_sight}");
}

#[test]
fn bulk_spawn_and_despawn_are_all_or_nothing_and_clear_empties_the_world() {
    use throng::prelude::*;
    let mut w = World::new(WorldConfig::default());
    let g = w
        .add_group(GroupConfig::new("g").with(Behaviour::Seek, 1.0))
        .unwrap();
    let specs: Vec<AgentSpec> = (0..5)
        .map(|i| AgentSpec::new(g, Vec2::new(i as f32, 0.0)).with_target(Target::Point(Vec2::ZERO)))
        .collect();
    let ids = w.spawn_many(&specs).unwrap();
    assert_eq!(ids.len(), 5);
    assert_eq!(w.position(ids[3]).unwrap(), Vec2::new(3.0, 0.0));
    // One bad spec: none is spawned.
    let mut bad = specs.clone();
    bad[2].mass = -1.0;
    assert!(w.spawn_many(&bad).is_err());
    assert_eq!(w.len(), 5);
    // A repeated or dead handle: none is despawned.
    assert!(matches!(
        w.despawn_many(&[ids[0], ids[0]]),
        Err(ThrongError::UnknownAgent(_))
    ));
    assert_eq!(w.len(), 5);
    w.despawn_many(&[ids[1], ids[4]]).unwrap();
    assert_eq!(w.len(), 3);
    assert!(matches!(
        w.despawn_many(&[ids[0], ids[1]]),
        Err(ThrongError::UnknownAgent(_))
    ));
    assert!(w.contains(ids[0]));
    // Clear: every handle stale, the group stays.
    w.clear();
    assert!(w.is_empty());
    assert!(ids.iter().all(|&id| !w.contains(id)));
    let again = w.spawn_many(&specs[..2]).unwrap();
    assert!(again.iter().all(|id| !ids.contains(id)));
    assert!(format!("{w:?}").contains("agents: 2"));
    w.step(0.1).unwrap();
}

#[test]
fn in_place_changes_keep_the_handle() {
    use throng::behaviours::targeting::FleeParams;
    use throng::prelude::*;
    let mut w = World::new(WorldConfig::default());
    let seekers = w
        .add_group(GroupConfig::new("seekers").with(Behaviour::Seek, 1.0))
        .unwrap();
    let fleers = w
        .add_group(GroupConfig::new("fleers").with(Behaviour::Flee(FleeParams::default()), 1.0))
        .unwrap();
    let goal = Vec2::new(10.0, 0.0);
    let id = w
        .spawn(AgentSpec::new(seekers, Vec2::ZERO).with_target(Target::Point(goal)))
        .unwrap();
    for _ in 0..30 {
        w.step(0.05).unwrap();
    }
    let closer = w.position(id).unwrap().distance(goal);
    assert!(closer < 10.0);
    // Now it flees the same point, under the same handle.
    w.set_agent_group(id, fleers).unwrap();
    w.set_radius(id, 0.9).unwrap();
    w.set_offset(id, Vec2::new(1.0, 0.0)).unwrap();
    for _ in 0..60 {
        w.step(0.05).unwrap();
    }
    assert_eq!(w.agent_group(id).unwrap(), fleers);
    assert_eq!(w.radii()[w.row(id).unwrap()], 0.9);
    assert!(w.position(id).unwrap().distance(goal) > closer);
    // Bad values and unknown groups are refused, the agent unchanged.
    assert!(w.set_radius(id, -1.0).is_err());
    assert!(w.set_radius(id, f32::NAN).is_err());
    assert!(w.set_offset(id, Vec2::NAN).is_err());
    let mut other = World::default();
    for name in ["a", "b", "c"] {
        other.add_group(GroupConfig::new(name)).unwrap();
    }
    let unknown = other.add_group(GroupConfig::new("d")).unwrap();
    assert!(matches!(
        w.set_agent_group(id, unknown),
        Err(ThrongError::ForeignGroup(_))
    ));
    assert_eq!(w.agent_group(id).unwrap(), fleers);
    assert_eq!(w.radii()[w.row(id).unwrap()], 0.9);
}

#[test]
fn bodies_by_name_and_groups_as_ids() {
    use throng::prelude::*;
    let mut w = World::default();
    let a = w.add_group(GroupConfig::new("a")).unwrap();
    let b = w.add_group(GroupConfig::new("b")).unwrap();
    let body = Limits {
        mass: 2.0,
        max_speed: 3.0,
        max_force: 5.0,
    };
    let x = w
        .spawn(AgentSpec::new(a, Vec2::ZERO).with_body(body))
        .unwrap();
    let y = w.spawn(AgentSpec::new(b, Vec2::X)).unwrap();
    assert_eq!(w.max_speeds()[w.row(x).unwrap()], 3.0);
    assert_eq!(w.agent_groups().collect::<Vec<_>>(), vec![a, b]);
    w.set_body(
        y,
        Limits {
            max_speed: 7.0,
            ..body
        },
    )
    .unwrap();
    assert_eq!(w.max_speeds()[w.row(y).unwrap()], 7.0);
    assert!(w.set_body(y, Limits { mass: 0.0, ..body }).is_err());
    assert_eq!(w.max_speeds()[w.row(y).unwrap()], 7.0);
}

#[test]
fn a_handle_of_another_world_is_refused_and_a_restored_copy_accepts_it() {
    let (mut here, _) = common::flock(10, 5, IndexKind::KdTree);
    let (mut there, theirs) = common::flock(10, 5, IndexKind::KdTree);
    let foreign = theirs[3];
    // Same slot and generation, another world: refused, never read as a local agent.
    assert!(here.ids().iter().any(|id| id.index() == foreign.index()));
    assert!(!here.contains(foreign));
    assert_eq!(
        here.position(foreign),
        Err(ThrongError::ForeignAgent(foreign))
    );
    assert_eq!(
        here.despawn(foreign),
        Err(ThrongError::ForeignAgent(foreign))
    );
    assert_eq!(
        here.despawn_many(&[foreign]),
        Err(ThrongError::ForeignAgent(foreign))
    );
    let g = here.agent_group(here.ids()[0]).unwrap();
    let spec = throng::AgentSpec::new(g, Vec2::ZERO).with_target(throng::Target::Agent(foreign));
    assert_eq!(here.spawn(spec), Err(ThrongError::ForeignAgent(foreign)));
    assert_eq!(here.len(), 10);
    let message = ThrongError::ForeignAgent(foreign).to_string();
    assert!(message.contains("another world"), "{message}");
    // Bits carry the world too: another live world's bits name no agent here, and
    // are read as that world's handle, refused as foreign.
    let decoded = here.agent_from_bits(foreign.to_bits());
    assert!(!here.contains(decoded));
    assert_eq!(decoded, foreign);
    assert_eq!(
        here.position(decoded),
        Err(ThrongError::ForeignAgent(foreign))
    );
    assert_eq!(there.agent_from_bits(foreign.to_bits()), foreign);
    // A despawned agent's bits, and bits no world gave out, are this world's unknown
    // handles.
    let gone = here.ids()[9];
    here.despawn(gone).unwrap();
    assert_eq!(here.agent_from_bits(gone.to_bits()), gone);
    assert!(matches!(
        here.position(here.agent_from_bits(gone.to_bits() ^ (0x5555 << 40))),
        Err(ThrongError::UnknownAgent(_))
    ));

    // A world restored from a snapshot is the same world: the handles work in it.
    there.step(0.05).unwrap();
    let copy = throng::World::from_snapshot(there.snapshot()).unwrap();
    assert_eq!(copy.position(foreign), there.position(foreign));
    assert_eq!(copy.agent_from_bits(foreign.to_bits()), foreign);
    // Restored in place, a world takes the snapshot's world: its own old handles
    // are foreign then.
    let mine = here.ids()[0];
    here.restore(&there.snapshot()).unwrap();
    assert!(here.contains(foreign));
    assert_eq!(here.position(mine), Err(ThrongError::ForeignAgent(mine)));
}
