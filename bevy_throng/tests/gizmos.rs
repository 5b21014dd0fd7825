//! Debug draw through Bevy's gizmos, without a window: the engine's geometry turned
//! into gizmo vertices by hand-checked cases, and the plugin drawing a crowd in an
//! app's frame.
#![cfg(feature = "gizmos")]

use bevy_app::{App, Last, PostUpdate};
use bevy_asset::{AssetPlugin, Assets};
use bevy_gizmos::config::DefaultGizmoConfigGroup;
use bevy_gizmos::gizmos::GizmoBuffer;
use bevy_gizmos::{GizmoAsset, GizmoHandles, GizmoPlugin};
use bevy_math::{Vec2, Vec3};
use bevy_throng::gizmos::{
    colour_of, draw_debug, CrowdGizmos, DebugDrawn, ThrongGizmosPlugin, POINT_RADIUS,
};
use bevy_throng::{Agent, AimAt, Crowd, CrowdErrors, ThrongPlugin};
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use throng::glam;
use throng::prelude::{AgentSpec, Behaviour, GroupConfig};
use throng::scene::Wall;
use throng::world::{DebugCircle, DebugDraw, DebugKind, DebugLine, DebugPoint};

#[test]
fn lines_circles_and_points_become_gizmo_vertices() {
    let mut world = throng::World::default();
    let g = world.add_group(GroupConfig::new("g")).unwrap();
    let agent = world.spawn(AgentSpec::new(g, glam::Vec2::ZERO)).unwrap();
    let mut d = DebugDraw::default();
    d.lines.push(DebugLine {
        kind: DebugKind::Velocity,
        agent,
        from: glam::Vec2::new(1.0, 2.0),
        to: glam::Vec2::new(3.0, -4.0),
    });
    d.circles.push(DebugCircle {
        kind: DebugKind::Body,
        agent,
        centre: glam::Vec2::new(5.0, 5.0),
        radius: 2.0,
    });
    d.points.push(DebugPoint {
        kind: DebugKind::Target,
        agent,
        at: glam::Vec2::new(-1.0, 0.5),
    });
    let mut buffer = GizmoBuffer::<DefaultGizmoConfigGroup, ()>::new();
    draw_debug(&d, &mut buffer);
    // The line: its two ends, in its kind's colour.
    assert_eq!(
        buffer.list_positions,
        vec![Vec3::new(1.0, 2.0, 0.0), Vec3::new(3.0, -4.0, 0.0)]
    );
    let velocity = colour_of(DebugKind::Velocity).to_linear();
    assert!(buffer.list_colors.iter().all(|&c| c == velocity));
    // The circle and the point: closed strips round their centres at their radii,
    // in their kinds' colours (a strip ends with a NaN vertex between shapes).
    let strip: Vec<(Vec3, _)> = buffer
        .strip_positions
        .iter()
        .copied()
        .zip(buffer.strip_colors.iter().copied())
        .filter(|(p, _)| p.is_finite())
        .collect();
    let body = colour_of(DebugKind::Body).to_linear();
    let target = colour_of(DebugKind::Target).to_linear();
    let on = |centre: Vec2, r: f32, colour| {
        strip
            .iter()
            .filter(|(p, c)| *c == colour && (p.truncate().distance(centre) - r).abs() < 1e-4)
            .count()
    };
    assert!(on(Vec2::new(5.0, 5.0), 2.0, body) >= 16);
    assert!(on(Vec2::new(-1.0, 0.5), POINT_RADIUS, target) >= 16);
    assert_eq!(
        on(Vec2::new(5.0, 5.0), 2.0, body) + on(Vec2::new(-1.0, 0.5), POINT_RADIUS, target),
        strip.len()
    );
}

/// The gizmos of the last frame, as Bevy hands them to its renderer.
fn drawn(app: &App) -> (Vec<Vec3>, Vec<Vec3>) {
    let handles = app.world().resource::<GizmoHandles>();
    let id = std::any::TypeId::of::<DefaultGizmoConfigGroup>();
    let Some(Some(handle)) = handles.handles().get(&id) else {
        return (Vec::new(), Vec::new());
    };
    let assets = app.world().resource::<Assets<GizmoAsset>>();
    let b = assets.get(handle).unwrap().buffer();
    (b.list_positions.clone(), b.strip_positions.clone())
}

fn frame(app: &mut App) {
    app.world_mut().run_schedule(PostUpdate);
    app.world_mut().run_schedule(Last);
}

#[test]
fn the_plugin_draws_bodies_walls_and_an_agents_geometry() {
    let mut app = App::new();
    app.add_plugins((
        bevy_app::TaskPoolPlugin::default(),
        AssetPlugin::default(),
        GizmoPlugin,
    ));
    let walkers = GroupConfig::new("walkers").with(
        Behaviour::WallAvoidance(throng::behaviours::walls::WallAvoidanceParams::default()),
        1.0,
    );
    app.add_plugins((
        ThrongPlugin::default().with_group(walkers),
        ThrongGizmosPlugin,
    ))
    .insert_resource(Time::<Fixed>::from_hz(30.0));
    let wall = Wall::new(glam::Vec2::new(-10.0, 8.0), glam::Vec2::new(10.0, 8.0)).unwrap();
    app.world_mut()
        .resource_mut::<Crowd>()
        .set_walls(&[wall])
        .unwrap();
    let plain = app
        .world_mut()
        .spawn((Agent::new("walkers"), Transform::from_xyz(-4.0, 0.0, 0.0)))
        .id();
    let shown = app
        .world_mut()
        .spawn((
            Agent::new("walkers").aiming_at(AimAt::Point(Vec2::new(0.0, 20.0))),
            Transform::from_xyz(4.0, 0.0, 0.0),
            DebugDrawn,
        ))
        .id();
    app.world_mut().run_schedule(bevy_app::FixedUpdate);
    frame(&mut app);
    let (lines, strips) = drawn(&app);
    let near = |p: &Vec3, q: Vec2, r: f32| (p.truncate().distance(q) - r).abs() < 1e-3;
    // Both bodies (radius 0.5, the default) and the wall.
    for at in [Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0)] {
        assert!(
            strips.iter().filter(|p| near(p, at, 0.5)).count() >= 16,
            "{at}"
        );
    }
    assert!(lines
        .chunks(2)
        .any(|l| l[0] == Vec3::new(-10.0, 8.0, 0.0) && l[1] == Vec3::new(10.0, 8.0, 0.0)));
    // The shown agent's feelers start at its centre; the other agent has none.
    let from = |at: Vec2| lines.chunks(2).filter(|l| near(&l[0], at, 0.0)).count();
    assert!(from(Vec2::new(4.0, 0.0)) >= 3);
    assert_eq!(from(Vec2::new(-4.0, 0.0)), 0);
    assert!(app.world().resource::<CrowdErrors>().0.is_empty());

    // Without the shown agent's component and the bodies, only the wall is left.
    app.world_mut().entity_mut(shown).remove::<DebugDrawn>();
    app.world_mut().resource_mut::<CrowdGizmos>().bodies = false;
    frame(&mut app);
    let (lines, strips) = drawn(&app);
    assert_eq!(lines.len(), 2);
    assert!(strips.is_empty());
    let _ = plain;
}
