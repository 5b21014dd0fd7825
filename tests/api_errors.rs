//! Bad input returns a typed error and changes nothing.
use glam::Vec2;
use throng::behaviours::targeting::ArriveParams;
use throng::{AgentSpec, Behaviour, GroupConfig, Target, ThrongError, World};

fn world() -> (World, throng::GroupId, throng::AgentId) {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig::new("g").with(Behaviour::Seek, 1.0))
        .unwrap();
    let a = w.spawn(AgentSpec::new(g, Vec2::ZERO)).unwrap();
    (w, g, a)
}

#[test]
fn invalid_spawns_are_rejected() {
    let (mut w, g, _) = world();
    let base = AgentSpec::new(g, Vec2::ZERO);
    let nan = AgentSpec::new(g, Vec2::new(f32::NAN, 0.0));
    assert!(matches!(w.spawn(nan), Err(ThrongError::NonFinite { .. })));
    let inf = base.with_velocity(Vec2::new(0.0, f32::INFINITY));
    assert!(matches!(w.spawn(inf), Err(ThrongError::NonFinite { .. })));
    for mass in [0.0, -1.0] {
        let s = base.with_limits(mass, 1.0, 1.0);
        assert!(matches!(
            w.spawn(s),
            Err(ThrongError::NotPositive { field: "mass", .. })
        ));
    }
    let s = base.with_limits(1.0, -1.0, 1.0);
    assert!(matches!(
        w.spawn(s),
        Err(ThrongError::Negative {
            field: "max_speed",
            ..
        })
    ));
    let s = base.with_radius(-0.1);
    assert!(matches!(
        w.spawn(s),
        Err(ThrongError::Negative {
            field: "radius",
            ..
        })
    ));
    let mut other = World::default();
    other.add_group(GroupConfig::new("a")).unwrap();
    let foreign = other.add_group(GroupConfig::new("b")).unwrap();
    let bad_group = AgentSpec::new(foreign, Vec2::ZERO);
    assert!(matches!(
        w.spawn(bad_group),
        Err(ThrongError::ForeignGroup(_))
    ));
    assert_eq!(w.len(), 1, "nothing was added");
}

#[test]
fn invalid_steps_and_setters_are_rejected() {
    let (mut w, _, a) = world();
    for dt in [0.0, -0.1, f32::NAN, f32::INFINITY] {
        assert!(w.step(dt).is_err(), "dt {dt}");
    }
    assert_eq!(w.tick(), 0);
    assert!(w.set_position(a, Vec2::new(f32::NAN, 1.0)).is_err());
    assert!(w
        .set_velocity(a, Vec2::new(1.0, f32::NEG_INFINITY))
        .is_err());
    assert!(w
        .set_target(a, Target::Point(Vec2::splat(f32::NAN)))
        .is_err());
    assert!(w.set_limits(a, -2.0, 1.0, 1.0).is_err());
    assert_eq!(w.position(a).unwrap(), Vec2::ZERO);
    w.despawn(a).unwrap();
    assert_eq!(
        w.set_position(a, Vec2::ONE),
        Err(ThrongError::UnknownAgent(a))
    );
    assert_eq!(
        w.set_target(a, Target::None),
        Err(ThrongError::UnknownAgent(a))
    );
}

#[test]
fn invalid_group_parameters_name_the_field() {
    let mut w = World::default();
    let bad = GroupConfig::new("g").with(
        Behaviour::Arrive(ArriveParams {
            slowing_radius: f32::NAN,
            ..ArriveParams::default()
        }),
        1.0,
    );
    match w.add_group(bad) {
        Err(ThrongError::InvalidParameter { field, .. }) => {
            assert_eq!(field, "behaviours[0].slowing_radius")
        }
        other => panic!("{other:?}"),
    }
    let bad = GroupConfig::new("g").with(Behaviour::Seek, f32::NAN);
    assert!(w.add_group(bad).is_err());
}

#[test]
fn coincident_agents_and_zero_distance_targets_stay_finite() {
    let mut w = World::default();
    let g = w
        .add_group(
            GroupConfig::new("g")
                .with(Behaviour::Arrive(ArriveParams::default()), 1.0)
                .with(Behaviour::Flee(Default::default()), 1.0)
                .with(Behaviour::Pursuit, 1.0)
                .with(Behaviour::Evade(Default::default()), 1.0)
                .with(Behaviour::Separation(Default::default()), 1.0)
                .with(Behaviour::Cohesion, 1.0)
                .with(Behaviour::Alignment, 1.0),
        )
        .unwrap();
    let mut ids = Vec::new();
    for _ in 0..50 {
        let spec = AgentSpec::new(g, Vec2::ONE).with_target(Target::Point(Vec2::ONE));
        ids.push(w.spawn(spec).unwrap());
    }
    let first = ids[0];
    w.set_target(ids[1], Target::Agent(first)).unwrap();
    for _ in 0..100 {
        w.step(0.1).unwrap();
        assert!(w.positions().iter().all(|p| p.is_finite()));
        assert!(w.velocities().iter().all(|v| v.is_finite()));
    }
    // Coincident agents split apart.
    let spread = w
        .positions()
        .iter()
        .map(|p| p.distance(Vec2::ONE))
        .fold(0.0, f32::max);
    assert!(spread > 0.1, "{spread}");
}

#[test]
fn bulk_targets_write_all_or_nothing() {
    let (mut w, g, a) = world();
    let b = w.spawn(AgentSpec::new(g, Vec2::ONE)).unwrap();
    let c = w.spawn(AgentSpec::new(g, Vec2::X)).unwrap();
    let goal = Target::Point(Vec2::new(4.0, 2.0));
    w.set_targets(&[a, c], goal).unwrap();
    assert_eq!(w.target(a).unwrap(), goal);
    assert_eq!(w.target(b).unwrap(), Target::None);
    assert_eq!(w.target(c).unwrap(), goal);
    // A stale handle among them, or a bad target: an error, and nothing changes.
    w.despawn(b).unwrap();
    let other = Target::Point(Vec2::new(-1.0, 0.0));
    assert_eq!(
        w.set_targets(&[a, b, c], other),
        Err(ThrongError::UnknownAgent(b))
    );
    assert!(w
        .set_targets(&[a, c], Target::Point(Vec2::splat(f32::INFINITY)))
        .is_err());
    assert!(w.set_targets(&[a], Target::Agent(b)).is_err());
    assert_eq!(w.target(a).unwrap(), goal);
    assert_eq!(w.target(c).unwrap(), goal);
    // An agent target.
    w.set_targets(&[a], Target::Agent(c)).unwrap();
    assert_eq!(w.target(a).unwrap(), Target::Agent(c));
}

#[test]
fn group_targets_reach_exactly_the_group() {
    let (mut w, g, a) = world();
    let h = w.add_group(GroupConfig::new("h")).unwrap();
    let b = w.spawn(AgentSpec::new(h, Vec2::ONE)).unwrap();
    let c = w.spawn(AgentSpec::new(g, Vec2::X)).unwrap();
    let goal = Target::Point(Vec2::new(4.0, 2.0));
    w.set_group_target(g, goal).unwrap();
    assert_eq!(w.target(a).unwrap(), goal);
    assert_eq!(w.target(b).unwrap(), Target::None);
    assert_eq!(w.target(c).unwrap(), goal);
    // A bad target, a dead agent target or an unknown group: an error, nothing changes.
    let other = Target::Point(Vec2::new(-1.0, 0.0));
    assert!(w
        .set_group_target(g, Target::Point(Vec2::new(f32::NAN, 0.0)))
        .is_err());
    w.despawn(b).unwrap();
    assert_eq!(
        w.set_group_target(g, Target::Agent(b)),
        Err(ThrongError::UnknownAgent(b))
    );
    let mut bigger = World::default();
    let mut unknown = bigger.add_group(GroupConfig::new("0")).unwrap();
    for i in 1..3 {
        unknown = bigger.add_group(GroupConfig::new(format!("{i}"))).unwrap();
    }
    assert_eq!(
        w.set_group_target(unknown, other),
        Err(ThrongError::ForeignGroup(unknown))
    );
    assert_eq!(w.target(a).unwrap(), goal);
    assert_eq!(w.target(c).unwrap(), goal);
    // The group's agents steer toward it: a step moves them closer.
    let before = w.position(a).unwrap().distance(Vec2::new(4.0, 2.0));
    w.step(0.1).unwrap();
    assert!(w.position(a).unwrap().distance(Vec2::new(4.0, 2.0)) < before);
}

#[test]
fn group_targets_of_a_large_world_reach_exactly_the_group() {
    // Past the row count from which the rows are written in parallel, with the two
    // groups' rows interleaved, on the world's own pool of three threads.
    let mut w = World::default();
    let g = w.add_group(GroupConfig::new("g")).unwrap();
    let h = w.add_group(GroupConfig::new("h")).unwrap();
    let specs: Vec<AgentSpec> = (0..70_000)
        .map(|i| {
            let group = if i % 3 == 0 { h } else { g };
            AgentSpec::new(group, Vec2::new(i as f32 * 0.01, 0.0))
        })
        .collect();
    let ids = w.spawn_many(&specs).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    w.set_thread_pool(Some(std::sync::Arc::new(pool)));
    let goal = Target::Point(Vec2::new(4.0, 2.0));
    w.set_group_target(g, goal).unwrap();
    for (i, &id) in ids.iter().enumerate() {
        let want = if i % 3 == 0 { Target::None } else { goal };
        assert_eq!(w.target(id).unwrap(), want, "agent {i}");
    }
}

#[test]
fn messages_name_handles_as_the_caller_holds_them() {
    let (mut w, _, a) = world();
    w.despawn(a).unwrap();
    let e = w.set_position(a, Vec2::ONE).unwrap_err().to_string();
    assert!(e.contains(&format!("{:#018x}", a.to_bits())), "{e}");
    let mut other = World::default();
    let g = other.add_group(GroupConfig::new("g")).unwrap();
    let foreign = other.spawn(AgentSpec::new(g, Vec2::ZERO)).unwrap();
    let e = w.set_position(foreign, Vec2::ONE).unwrap_err().to_string();
    assert!(e.contains("another world"), "{e}");
    // A reservation no machine can hold says so, without a per-agent figure of 1 byte.
    let e = w.reserve(usize::MAX).unwrap_err().to_string();
    assert!(!e.contains("(1 bytes each)"), "{e}");
    assert_eq!(w.len(), 0);
}

#[test]
fn another_worlds_group_is_refused_even_at_the_same_index() {
    let (mut w, g, _) = world();
    let mut other = World::default();
    let foreign = other.add_group(GroupConfig::new("g")).unwrap();
    assert_eq!(foreign.index(), g.index());
    assert!(w.group(foreign).is_none());
    let e = w.spawn(AgentSpec::new(foreign, Vec2::ZERO)).unwrap_err();
    assert_eq!(e, ThrongError::ForeignGroup(foreign));
    assert!(e.to_string().contains("belongs to another world"), "{e}");
    assert!(w.set_group_target(foreign, Target::None).is_err());
    assert!(w.remove_group(foreign).is_err());
    assert_eq!(w.len(), 1);
    // A world restored from this one's snapshot takes its group ids as its own.
    let restored = World::from_snapshot(w.snapshot()).unwrap();
    assert!(restored.group(g).is_some());
    assert!(restored.group(foreign).is_none());
}

#[test]
fn a_removed_groups_slot_is_taken_by_a_later_group_and_its_id_stays_dead() {
    let mut w = World::default();
    let first = w.add_group(GroupConfig::new("first")).unwrap();
    let keep = w.add_group(GroupConfig::new("keep")).unwrap();
    w.remove_group(first).unwrap();
    let second = w.add_group(GroupConfig::new("second")).unwrap();
    // The lowest free slot, with the next generation: a new id.
    assert_eq!((second.index(), second.generation()), (first.index(), 1));
    assert_ne!(second, first);
    assert_eq!(second.to_string(), "#0v1");
    assert!(w.group(first).is_none());
    assert_eq!(w.group(second).unwrap().name, "second");
    assert!(matches!(
        w.spawn(AgentSpec::new(first, Vec2::ZERO)),
        Err(ThrongError::UnknownGroup(_))
    ));
    assert!(w.spawn(AgentSpec::new(second, Vec2::ZERO)).is_ok());
    assert_eq!(w.group_from_bits(second.to_bits()), second);
    // A restored world keeps the generations: the dead id stays dead there too.
    let restored = World::from_snapshot(w.snapshot()).unwrap();
    assert!(restored.group(first).is_none());
    assert!(restored.group(second).is_some() && restored.group(keep).is_some());
    // Ids do not run out: far more than 65,535 groups in a world's life, one alive.
    let mut last = second;
    for i in 0..100_000 {
        w.remove_group(last).unwrap();
        last = w.add_group(GroupConfig::new(format!("g{i}"))).unwrap();
    }
    assert_eq!(w.groups().count(), 2);
    assert!(w.group(last).is_some());
}

#[test]
fn another_worlds_path_and_field_ids_are_refused_and_say_so() {
    use throng::behaviours::field::FollowFieldParams;
    use throng::behaviours::path::PathFollowParams;
    use throng::group::PathId;
    use throng::scene::{FieldSpec, Goal, Path};
    use throng::FieldId;

    let (mut w, _, a) = world();
    let line = || Path::open(vec![Vec2::ZERO, Vec2::X * 10.0]).unwrap();
    let spec = || {
        FieldSpec::new(vec![Goal::Point(Vec2::new(5.0, 0.0))], 0.5)
            .with_bounds(Vec2::splat(-10.0), Vec2::splat(10.0))
    };
    let (path, field) = (
        w.add_path(line()).unwrap(),
        w.add_goal_field(spec()).unwrap(),
    );
    assert_eq!(path.world(), Some(w.ids()[0].world()));
    let mut other = World::default();
    let (their_path, their_field) = (
        other.add_path(line()).unwrap(),
        other.add_goal_field(spec()).unwrap(),
    );
    // Same indices, another world: refused everywhere, saying so, nothing changed.
    assert_eq!(
        (their_path.index(), their_field.index()),
        (path.index(), field.index())
    );
    let hash = w.state_hash();
    assert!(w.path(their_path).is_none() && w.goal_field(their_field).is_none());
    let says = |e: ThrongError| {
        let e = e.to_string();
        assert!(e.contains("belongs to another world"), "{e}");
    };
    says(w.set_agent_path(a, Some(their_path)).unwrap_err());
    says(w.remove_path(their_path).unwrap_err());
    says(w.remove_goal_field(their_field).unwrap_err());
    says(w.field_distance(their_field, Vec2::ZERO).unwrap_err());
    let follows = |p: PathId, f: FieldId| {
        GroupConfig::new("followers")
            .with(
                Behaviour::FollowPath {
                    path: Some(p),
                    params: PathFollowParams::default(),
                },
                1.0,
            )
            .with(
                Behaviour::FollowField {
                    field: f,
                    params: FollowFieldParams::default(),
                },
                1.0,
            )
    };
    says(w.add_group(follows(their_path, field)).unwrap_err());
    says(w.add_group(follows(path, their_field)).unwrap_err());
    assert_eq!(w.state_hash(), hash);
    // This world's ids, and ids of no world (as profiles and the C ABI make them).
    let g = w.add_group(follows(path, field)).unwrap();
    let unbound = follows(PathId::from_index(0), FieldId::from_index(0));
    assert!(PathId::from_index(0).world().is_none());
    w.add_group(unbound).unwrap();
    w.set_agent_path(a, Some(PathId::from_index(0))).unwrap();
    assert_eq!(w.agent_path(a).unwrap(), Some(path));
    assert_eq!(w.paths().next().unwrap().0, path);
    assert_eq!(w.goal_fields().next().unwrap().0, field);
    // A group follows them: not removable, by either id.
    assert!(w.remove_path(PathId::from_index(0)).is_err());
    assert!(w.remove_goal_field(field).is_err());
    // A restored copy is the same world: the ids hold there, the other's do not.
    let copy = World::from_snapshot(w.snapshot()).unwrap();
    assert!(copy.path(path).is_some() && copy.goal_field(field).is_some());
    assert!(copy.path(their_path).is_none());
    assert_eq!(copy.group(g), w.group(g));
    assert_eq!(copy.state_hash(), w.state_hash());
}
