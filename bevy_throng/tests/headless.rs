//! The plugin stepped without a window: entities join the crowd, move, arrive,
//! retarget and leave, and the crowd is bitwise the plain engine's.

use bevy_app::{App, FixedUpdate};
use bevy_ecs::prelude::*;
use bevy_math::Vec2;
use bevy_throng::{
    Agent, AgentHandle, AimAt, ArrivalState, Body, Crowd, CrowdErrors, ThrongPlugin,
};
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use throng::prelude::*;
use throng::world::Arrival;

const HZ: f64 = 30.0;
const STEPS: usize = 200;

fn app() -> (App, GroupId) {
    let mut app = App::new();
    app.add_plugins(ThrongPlugin::default())
        .insert_resource(Time::<Fixed>::from_hz(HZ));
    let walkers = app
        .world_mut()
        .resource_mut::<Crowd>()
        .add_group(walkers())
        .unwrap();
    (app, walkers)
}

fn walkers() -> GroupConfig {
    GroupConfig::new("walkers")
        .with(
            Behaviour::Arrive(ArriveParams {
                slowing_radius: 2.0,
                ..ArriveParams::default()
            }),
            1.0,
        )
        .with(Behaviour::Separation(SeparationParams::default()), 1.5)
}

fn steps(app: &mut App, n: usize) {
    for _ in 0..n {
        app.world_mut().run_schedule(FixedUpdate);
    }
}

fn start(i: usize) -> Vec2 {
    Vec2::new((i % 5) as f32 * 3.0, (i / 5) as f32 * 3.0)
}

fn goal(i: usize) -> Vec2 {
    start(i) + Vec2::new(15.0, 3.0)
}

fn spawn_walkers(app: &mut App, group: GroupId, n: usize) -> Vec<Entity> {
    (0..n)
        .map(|i| {
            let at = start(i);
            app.world_mut()
                .spawn((
                    Agent::new(group).aiming_at(AimAt::Point(goal(i))),
                    Transform::from_xyz(at.x, at.y, 3.0),
                ))
                .id()
        })
        .collect()
}

#[test]
fn entities_join_walk_and_arrive() {
    let (mut app, walkers) = app();
    let entities = spawn_walkers(&mut app, walkers, 20);
    steps(&mut app, 1);
    assert_eq!(app.world().resource::<Crowd>().len(), 20);
    steps(&mut app, 600);
    for (i, &e) in entities.iter().enumerate() {
        let t = app.world().get::<Transform>(e).unwrap();
        let at = Vec2::new(t.translation.x, t.translation.y);
        assert!(
            at.distance(goal(i)) < 0.6,
            "agent {i} at {at}, goal {}",
            goal(i)
        );
        // z is the game's.
        assert_eq!(t.translation.z, 3.0);
        assert_eq!(
            app.world().get::<ArrivalState>(e).unwrap().0,
            Arrival::Arrived
        );
    }
    assert!(app.world().resource::<CrowdErrors>().0.is_empty());
}

#[test]
fn the_crowd_is_the_plain_engines_bitwise() {
    let (mut app, walkers_id) = app();
    let entities = spawn_walkers(&mut app, walkers_id, 30);
    steps(&mut app, STEPS);

    let mut world = throng::World::new(WorldConfig::default());
    let g = world.add_group(walkers()).unwrap();
    let ids: Vec<AgentId> = (0..30)
        .map(|i| {
            let (s, t) = (start(i), goal(i));
            world
                .spawn(
                    AgentSpec::new(g, throng::glam::Vec2::new(s.x, s.y))
                        .with_target(Target::Point(throng::glam::Vec2::new(t.x, t.y))),
                )
                .unwrap()
        })
        .collect();
    let dt = Time::<Fixed>::from_hz(HZ).timestep().as_secs_f32();
    for _ in 0..STEPS {
        world.step(dt).unwrap();
    }
    let crowd = app.world().resource::<Crowd>();
    assert_eq!(crowd.state_hash(), world.state_hash());
    for (e, id) in entities.iter().zip(ids) {
        let t = app.world().get::<Transform>(*e).unwrap();
        let p = world.position(id).unwrap();
        assert_eq!(
            (t.translation.x.to_bits(), t.translation.y.to_bits()),
            (p.x.to_bits(), p.y.to_bits())
        );
    }
}

#[test]
fn despawned_entities_leave_and_targets_follow_changes_and_entities() {
    let (mut app, walkers) = app();
    let entities = spawn_walkers(&mut app, walkers, 4);
    steps(&mut app, 2);
    // Despawn one entity, take the Agent off another: both leave the crowd.
    app.world_mut().despawn(entities[0]);
    app.world_mut().entity_mut(entities[1]).remove::<Agent>();
    steps(&mut app, 1);
    assert_eq!(app.world().resource::<Crowd>().len(), 2);
    assert!(app.world().get::<AgentHandle>(entities[1]).is_none());
    // The third now aims at the fourth agent's entity: it ends beside it.
    app.world_mut().get_mut::<Agent>(entities[2]).unwrap().aim = AimAt::Entity(entities[3]);
    steps(&mut app, 600);
    let p = |e: Entity| {
        let t = app.world().get::<Transform>(e).unwrap();
        Vec2::new(t.translation.x, t.translation.y)
    };
    assert!(p(entities[2]).distance(p(entities[3])) < 2.0);
    // A body given on the component is the agent's.
    let body = Body {
        mass: 2.0,
        max_speed: 1.0,
        max_force: 3.0,
        radius: 0.25,
    };
    let e = app
        .world_mut()
        .spawn((Agent::new(walkers).with_body(body), Transform::default()))
        .id();
    steps(&mut app, 1);
    let crowd = app.world().resource::<Crowd>();
    let id = crowd.agent_of(e).unwrap();
    assert_eq!(crowd.radius(id).unwrap(), 0.25);
    assert_eq!(crowd.limits(id).unwrap().max_speed, 1.0);
    // A bad body is reported and spawns nothing.
    let bad = Body { mass: -1.0, ..body };
    app.world_mut()
        .spawn((Agent::new(walkers).with_body(bad), Transform::default()));
    steps(&mut app, 1);
    assert_eq!(app.world().resource::<Crowd>().len(), 3);
    assert!(!app.world().resource::<CrowdErrors>().0.is_empty());
}

#[test]
fn interpolated_transforms_lie_between_the_last_two_steps() {
    use bevy_app::RunFixedMainLoop;
    use bevy_throng::Interpolate;
    let (mut app, walkers) = app();
    let e = app
        .world_mut()
        .spawn((
            Agent::new(walkers).aiming_at(AimAt::Point(Vec2::new(100.0, 0.0))),
            Transform::default(),
            Interpolate::default(),
        ))
        .id();
    steps(&mut app, 30);
    let s = *app.world().get::<Interpolate>(e).unwrap();
    let (from, to) = (s.from.unwrap().0, s.to.unwrap().0);
    assert!(to.x > from.x, "it moves along x: {from} -> {to}");
    // A quarter of the way into the next step.
    let step = app.world().resource::<Time<Fixed>>().timestep();
    app.world_mut()
        .resource_mut::<Time<Fixed>>()
        .accumulate_overstep(step / 4);
    app.world_mut().run_schedule(RunFixedMainLoop);
    let t = app.world().get::<Transform>(e).unwrap().translation;
    let expected = from.lerp(to, 0.25);
    assert!(
        (t.x - expected.x).abs() < 1e-4,
        "{} against {}",
        t.x,
        expected.x
    );
}

#[test]
fn named_groups_driven_agents_and_messages() {
    use bevy_ecs::message::Messages;
    use bevy_throng::{ArrivalChanged, Driven};
    let mut app = App::new();
    app.add_plugins(ThrongPlugin::default().with_group(walkers()))
        .insert_resource(Time::<Fixed>::from_hz(HZ));
    // An agent by its group's name, walking to a point; a driven one beside it.
    let walker = app
        .world_mut()
        .spawn((
            Agent::new("walkers").aiming_at(AimAt::Point(Vec2::new(5.0, 0.0))),
            Transform::default(),
        ))
        .id();
    let player = app
        .world_mut()
        .spawn((
            Agent::new("walkers"),
            Driven(Vec2::new(0.0, 1.0)),
            Transform::from_xyz(0.0, -20.0, 0.0),
        ))
        .id();
    let mut arrived = Vec::new();
    for _ in 0..300 {
        steps(&mut app, 1);
        let mut messages = app.world_mut().resource_mut::<Messages<ArrivalChanged>>();
        arrived.extend(messages.drain().filter(|m| m.to == Arrival::Arrived));
    }
    assert_eq!(arrived.len(), 1);
    assert_eq!(
        (arrived[0].entity, arrived[0].from),
        (walker, Arrival::Moving)
    );
    // The driven agent walked up +y at its asked velocity (1 unit/s, 10 s).
    let crowd = app.world().resource::<Crowd>();
    let id = crowd.agent_of(player).unwrap();
    assert!((crowd.velocity(id).unwrap().y - 1.0).abs() < 1e-4);
    let y = app.world().get::<Transform>(player).unwrap().translation.y;
    assert!((y - (-10.0)).abs() < 0.2, "{y}");
    // Without the component it is its behaviours' again.
    assert_eq!(
        crowd.preferred_velocity(id).unwrap(),
        Some(throng::glam::Vec2::Y)
    );
    app.world_mut().entity_mut(player).remove::<Driven>();
    steps(&mut app, 1);
    let crowd = app.world().resource::<Crowd>();
    assert_eq!(crowd.preferred_velocity(id).unwrap(), None);
    // An unknown group name is reported.
    app.world_mut()
        .spawn((Agent::new("nobody"), Transform::default()));
    steps(&mut app, 1);
    assert!(app
        .world()
        .resource::<CrowdErrors>()
        .0
        .iter()
        .any(|e| e.contains("nobody")));
}

#[test]
fn a_crowd_camera_sets_the_level_of_detail_and_follows_its_entity() {
    use bevy_throng::CrowdCamera;
    let (mut app, walkers) = app();
    spawn_walkers(&mut app, walkers, 10);
    let camera = app
        .world_mut()
        .spawn((
            CrowdCamera {
                near: 5.0,
                think_every: 4,
            },
            Transform::from_xyz(1.0, 2.0, 0.0),
        ))
        .id();
    steps(&mut app, 1);
    let set_think_every = |app: &mut App, k: u32| {
        let mut c = app.world_mut().entity_mut(camera);
        c.get_mut::<CrowdCamera>().unwrap().think_every = k;
    };
    let lod = |app: &App| app.world().resource::<Crowd>().level_of_detail();
    let now = lod(&app).expect("a level of detail");
    assert_eq!(
        (now.centre.x, now.centre.y, now.near, now.think_every),
        (1.0, 2.0, 5.0, 4)
    );
    // It follows the camera.
    app.world_mut()
        .entity_mut(camera)
        .get_mut::<Transform>()
        .unwrap()
        .translation
        .x = 30.0;
    steps(&mut app, 1);
    assert_eq!(lod(&app).unwrap().centre.x, 30.0);
    // A bad setting is reported, and the last good one kept.
    set_think_every(&mut app, 0);
    steps(&mut app, 1);
    assert_eq!(lod(&app).unwrap().think_every, 4);
    let errors = &app.world().resource::<CrowdErrors>().0;
    assert!(
        errors.iter().any(|e| e.contains("think_every")),
        "{errors:?}"
    );
    // Once, not at every step it stays (the camera moving meanwhile).
    for x in [31.0, 32.0, 33.0] {
        app.world_mut()
            .entity_mut(camera)
            .get_mut::<Transform>()
            .unwrap()
            .translation
            .x = x;
        steps(&mut app, 1);
    }
    let refused = |app: &App| {
        let errors = &app.world().resource::<CrowdErrors>().0;
        errors.iter().filter(|e| e.contains("think_every")).count()
    };
    assert_eq!(refused(&app), 1);
    // Mended, then refused again: reported again.
    set_think_every(&mut app, 2);
    steps(&mut app, 1);
    assert_eq!(lod(&app).unwrap().think_every, 2);
    set_think_every(&mut app, 0);
    steps(&mut app, 2);
    assert_eq!(refused(&app), 2);
    // Without a camera, it is off.
    app.world_mut().despawn(camera);
    steps(&mut app, 1);
    assert_eq!(lod(&app), None);
}
