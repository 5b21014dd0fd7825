//! A throng profile loaded through Bevy's asset server sets the crowd up: its
//! scene and groups, with the groups' bodies for entities that join them, and not
//! the profile's own agents. Headless: the asset server reads a temporary folder.
#![cfg(feature = "profile")]

use std::time::Duration;

use bevy_app::{App, FixedUpdate, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer, LoadState};
use bevy_math::Vec2;
use bevy_throng::profile::{CrowdProfile, CrowdSetup, ThrongProfilePlugin};
use bevy_throng::{Agent, AgentHandle, AimAt, Crowd, CrowdErrors, ThrongPlugin};
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use throng::prelude::GroupConfig;

const ROOM: &str = r#"
name = "room"
description = "A room with a door, walkers for the game, extras of the profile's own"
rects = [[-10, -5, 10, 5]]
walls = [[0, -5, 0, -1], [0, 1, 0, 5]]

[world]
seed = 3

[[groups]]
name = "walkers"
count = 0
spawn = { shape = "box", centre = [-5, 0], size = [4, 4] }
radius = 0.3
max_speed = 1.3
avoidance = {}

[[groups.behaviours]]
kind = "arrive"

[[groups]]
name = "extras"
count = 5
spawn = { shape = "box", centre = [5, 0], size = [4, 4] }

[[groups.behaviours]]
kind = "wander"
"#;

/// An app whose asset server reads a temporary folder holding `files`, and the
/// folder (removed when dropped: keep it as long as the app).
fn app(files: &[(&str, &str)]) -> (App, tempfile::TempDir) {
    let folder = tempfile::Builder::new()
        .prefix("bevy_throng_profile_")
        .tempdir()
        .unwrap();
    let dir = folder.path();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: dir.to_string_lossy().into_owned(),
            ..AssetPlugin::default()
        },
        ThrongPlugin::default(),
        ThrongProfilePlugin,
    ))
    .insert_resource(Time::<Fixed>::from_hz(30.0));
    (app, folder)
}

/// Frames until the asset server is done with `path`.
fn load(app: &mut App, path: &str) -> LoadState {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<CrowdProfile>(path.to_string());
    app.insert_resource(CrowdSetup(handle.clone()));
    for _ in 0..500 {
        app.update();
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        if !state.is_loading() {
            // One more frame for the set-up system to see the loaded asset.
            app.update();
            return state;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("{path} did not load");
}

#[test]
fn a_profile_sets_up_the_scene_and_groups_and_entities_join_them() {
    let (mut app, _folder) = app(&[("room.throng.toml", ROOM)]);
    // An entity that joined before the profile, in a group of the same name.
    app.world_mut()
        .resource_mut::<Crowd>()
        .add_group(GroupConfig::new("walkers"))
        .unwrap();
    let early = app
        .world_mut()
        .spawn((
            Agent::new("walkers").aiming_at(AimAt::Point(Vec2::new(-5.0, 0.0))),
            Transform::from_xyz(3.0, 2.0, 0.0),
        ))
        .id();
    app.world_mut().run_schedule(FixedUpdate);
    assert_eq!(app.world().resource::<Crowd>().len(), 1);
    let state = load(&mut app, "room.throng.toml");
    assert!(state.is_loaded(), "{state:?}");

    // The profile's scene and groups, none of its own agents.
    let crowd = app.world().resource::<Crowd>();
    assert_eq!(crowd.walls().len(), 6);
    let names: Vec<_> = crowd.groups().map(|(_, g)| g.name.clone()).collect();
    assert_eq!(names, ["walkers", "extras"]);
    assert_eq!(crowd.len(), 0);
    assert!(app.world().get::<AgentHandle>(early).is_none());

    // Entities join the profile's groups with the group's body.
    let late = app
        .world_mut()
        .spawn((
            Agent::new("walkers").aiming_at(AimAt::Point(Vec2::new(-5.0, 0.0))),
            Transform::from_xyz(4.0, -2.0, 0.0),
        ))
        .id();
    app.world_mut().run_schedule(FixedUpdate);
    let crowd = app.world().resource::<Crowd>();
    assert_eq!(crowd.len(), 2);
    for e in [early, late] {
        let id = crowd.agent_of(e).unwrap();
        let row = crowd.row(id).unwrap();
        assert_eq!(crowd.radii()[row], 0.3);
        assert_eq!(crowd.max_speeds()[row], 1.3);
    }
    // The early entity joined the new world where its Transform stood.
    let at = crowd.position(crowd.agent_of(early).unwrap()).unwrap();
    assert!(at.distance(throng::glam::Vec2::new(3.0, 2.0)) < 0.1, "{at}");
    assert!(app.world().resource::<CrowdErrors>().0.is_empty());
}

#[test]
fn a_profile_that_does_not_validate_fails_to_load_and_changes_nothing() {
    let broken = ROOM.replace("radius = 0.3", "radius = -1");
    let (mut app, _folder) = app(&[("broken.throng.toml", &broken)]);
    app.world_mut()
        .resource_mut::<Crowd>()
        .add_group(GroupConfig::new("mine"))
        .unwrap();
    assert!(load(&mut app, "broken.throng.toml").is_failed());
    let crowd = app.world().resource::<Crowd>();
    assert_eq!(crowd.groups().count(), 1);
    assert!(crowd.walls().is_empty());
}
