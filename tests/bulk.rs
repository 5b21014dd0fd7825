//! Bulk writes: many agents' positions, velocities, preferred velocities and targets
//! in one call, all or nothing.
use glam::Vec2;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, ThrongError, World};

fn world(n: usize) -> (World, Vec<AgentId>) {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig::new("g").with(Behaviour::Seek, 1.0))
        .unwrap();
    let ids = (0..n)
        .map(|i| {
            w.spawn(AgentSpec::new(g, Vec2::new(i as f32, 0.0)))
                .unwrap()
        })
        .collect();
    (w, ids)
}

#[test]
fn bulk_writes_equal_one_call_each() {
    let (mut bulk, ids) = world(50);
    let (mut each, _) = world(50);
    let pos: Vec<Vec2> = (0..50)
        .map(|i| Vec2::new(i as f32, 2.0 * i as f32))
        .collect();
    let vel: Vec<Vec2> = (0..50).map(|i| Vec2::new(0.1 * i as f32, -1.0)).collect();
    let pref: Vec<Option<Vec2>> = (0..50)
        .map(|i| (i % 3 == 0).then(|| Vec2::new(1.0, i as f32)))
        .collect();
    let targets: Vec<Target> = (0..50)
        .map(|i| match i % 3 {
            0 => Target::Point(Vec2::splat(i as f32)),
            1 => Target::Agent(ids[(i + 1) % 50]),
            _ => Target::None,
        })
        .collect();
    bulk.set_positions(&ids, &pos).unwrap();
    bulk.set_velocities(&ids, &vel).unwrap();
    bulk.set_preferred_velocities(&ids, &pref).unwrap();
    bulk.set_each_target(&ids, &targets).unwrap();
    let each_ids = each.ids().to_vec();
    for i in 0..50 {
        let id = each_ids[i];
        each.set_position(id, pos[i]).unwrap();
        each.set_velocity(id, vel[i]).unwrap();
        each.set_preferred_velocity(id, pref[i]).unwrap();
        let t = match targets[i] {
            Target::Agent(a) => Target::Agent(each_ids[a.index() as usize]),
            t => t,
        };
        each.set_target(id, t).unwrap();
    }
    assert_eq!(bulk.state_hash(), each.state_hash());
    for _ in 0..20 {
        bulk.step(0.05).unwrap();
        each.step(0.05).unwrap();
    }
    assert_eq!(bulk.state_hash(), each.state_hash());
}

#[test]
fn a_bad_bulk_write_writes_nothing() {
    let (mut w, ids) = world(10);
    let before = w.state_hash();
    let mut pos = vec![Vec2::ONE; 10];
    // One value short.
    assert!(matches!(
        w.set_positions(&ids, &pos[..9]),
        Err(ThrongError::InvalidParameter { .. })
    ));
    // One NaN, at the end.
    pos[9] = Vec2::new(f32::NAN, 0.0);
    assert!(matches!(
        w.set_positions(&ids, &pos),
        Err(ThrongError::NonFinite { .. })
    ));
    assert!(w.set_velocities(&ids, &pos).is_err());
    // One despawned agent, at the end.
    let mut gone = ids.clone();
    let last = *gone.last().unwrap();
    w.despawn(last).unwrap();
    let before_despawn = w.state_hash();
    pos[9] = Vec2::ZERO;
    assert_eq!(
        w.set_positions(&gone, &pos),
        Err(ThrongError::UnknownAgent(last))
    );
    assert!(w
        .set_each_target(&gone[..9], &[Target::Agent(last); 9])
        .is_err());
    assert!(w
        .set_preferred_velocities(&gone, &[Some(Vec2::X); 10])
        .is_err());
    assert_eq!(w.state_hash(), before_despawn);
    gone.pop();
    w.set_positions(&gone, &pos[..9]).unwrap();
    assert_ne!(w.state_hash(), before);
}
