//! The bevy_throng example game: you walk a leader (arrow keys or WASD) through a
//! crowd that gives way, with your squad following behind; the crowd and the
//! leader's debug geometry are drawn with Bevy's gizmos.
//!
//! `cargo run --release` in this folder. With `THRONG_SCREENSHOT=FILE` the leader
//! walks a circle by itself and the game saves one frame to FILE and quits (how the
//! picture in the plugin's README is made, under `xvfb-run` where there is no
//! display).

use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot};
use bevy_throng::gizmos::{CrowdGizmos, DebugDrawn, ThrongGizmosPlugin};
use bevy_throng::{Agent, AimAt, ArrivalChanged, Driven, ThrongPlugin};
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::leader::LeaderParams;
use throng::prelude::{ArriveParams, Behaviour, GroupConfig};
use throng::world::Arrival;

/// Pixels per metre.
const SCALE: f32 = 20.0;
/// The walkers cross between x = -HALF and x = HALF, on lanes within LANES of y = 0
/// (metres).
const HALF: f32 = 30.0;
const LANES: f32 = 16.0;
const WALKERS: usize = 600;
const SQUAD: usize = 12;
/// The leader's walking speed (m/s).
const LEADER_SPEED: f32 = 2.5;

/// The player's leader.
#[derive(Component)]
struct Leader;

/// A member of the player's squad.
#[derive(Component)]
struct Squad;

/// A crowd walker, and which side it is bound for.
#[derive(Component)]
struct Walker {
    east: bool,
    lane: f32,
}

/// Frames shown so far, and where a screenshot goes.
#[derive(Resource, Default)]
struct Run {
    frames: u32,
    screenshot: Option<String>,
}

fn main() {
    let run = Run {
        frames: 0,
        screenshot: std::env::var("THRONG_SCREENSHOT").ok(),
    };
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "throng: lead your squad through the crowd".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((ThrongPlugin::default(), ThrongGizmosPlugin))
        .insert_resource(Time::<Fixed>::from_hz(30.0))
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .insert_resource(CrowdGizmos {
            bodies: true,
            velocities: false,
            scene: true,
        })
        .insert_resource(run)
        .add_systems(Startup, setup)
        .add_systems(Update, (steer_leader, turn_back, mark_squad, frame))
        .run();
}

/// The groups (leader, squad, crowd) and their entities.
fn setup(mut commands: Commands, mut crowd: ResMut<bevy_throng::Crowd>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.0 / SCALE,
            ..OrthographicProjection::default_2d()
        }),
    ));
    // The leader: host-driven, it keeps its line (priority 1) and the crowd yields.
    let leader = GroupConfig::new("leader")
        .neighbours(4.0, 10)
        .avoiding(AvoidanceParams {
            priority: 1.0,
            ..AvoidanceParams::default()
        });
    // The squad: Reynolds' leader following (behind it, out of its way, apart).
    let squad = GroupConfig::new("squad")
        .with(
            Behaviour::LeaderFollow {
                leader: LeaderParams::default(),
                separation: SeparationParams::default(),
            },
            1.0,
        )
        .neighbours(3.0, 8);
    // The crowd: walkers crossing east and west, avoiding each other with ORCA.
    let walkers = GroupConfig::new("walkers")
        .with(Behaviour::Arrive(ArriveParams::default()), 1.0)
        .neighbours(4.0, 10)
        .avoiding(AvoidanceParams::default());
    for g in [leader, squad, walkers] {
        crowd.add_group(g).expect("the example's groups are valid");
    }
    let player = commands
        .spawn((
            Agent::new("leader"),
            Driven(Vec2::ZERO),
            Leader,
            DebugDrawn,
            Transform::from_xyz(0.0, -LANES * 0.5, 0.0),
        ))
        .id();
    for i in 0..SQUAD {
        let at = Vec2::new((i % 4) as f32 - 1.5, -LANES * 0.5 - 2.0 - (i / 4) as f32);
        commands.spawn((
            Agent::new("squad").aiming_at(AimAt::Entity(player)),
            Squad,
            Transform::from_xyz(at.x, at.y, 0.0),
        ));
    }
    for i in 0..WALKERS {
        // A deterministic, even scatter (two golden-ratio sequences), each walker on
        // its own lane.
        let (u, w) = (
            (i as f32 * 0.618_034).fract(),
            (i as f32 * 0.754_878).fract(),
        );
        let east = i % 2 == 0;
        let lane = (w - 0.5) * 2.0 * LANES;
        let x = (u - 0.5) * 2.0 * HALF;
        let walker = Walker { east, lane };
        let goal = goal_of(&walker);
        commands.spawn((
            Agent::new("walkers").aiming_at(AimAt::Point(goal)),
            walker,
            Transform::from_xyz(x, lane, 0.0),
        ));
    }
}

fn goal_of(w: &Walker) -> Vec2 {
    Vec2::new(if w.east { HALF } else { -HALF }, w.lane)
}

/// The leader walks where the keys point (or round a circle by itself when a
/// screenshot is taken).
fn steer_leader(
    keys: Res<ButtonInput<KeyCode>>,
    run: Res<Run>,
    time: Res<Time>,
    mut leader: Query<&mut Driven, With<Leader>>,
) {
    let Ok(mut driven) = leader.single_mut() else {
        return;
    };
    let mut dir = Vec2::ZERO;
    for (key, d) in [
        (KeyCode::ArrowUp, Vec2::Y),
        (KeyCode::KeyW, Vec2::Y),
        (KeyCode::ArrowDown, Vec2::NEG_Y),
        (KeyCode::KeyS, Vec2::NEG_Y),
        (KeyCode::ArrowLeft, Vec2::NEG_X),
        (KeyCode::KeyA, Vec2::NEG_X),
        (KeyCode::ArrowRight, Vec2::X),
        (KeyCode::KeyD, Vec2::X),
    ] {
        if keys.pressed(key) {
            dir += d;
        }
    }
    if run.screenshot.is_some() {
        let t = time.elapsed_secs() * 0.25;
        dir = Vec2::new(t.cos(), t.sin());
    }
    let want = dir.normalize_or_zero() * LEADER_SPEED;
    if driven.0 != want {
        driven.0 = want;
    }
}

/// The leader and its squad ringed in their colours, over the crowd's gizmos.
fn mark_squad(
    mut gizmos: Gizmos,
    leader: Query<&Transform, With<Leader>>,
    squad: Query<&Transform, With<Squad>>,
) {
    for t in &leader {
        gizmos.circle_2d(t.translation.truncate(), 0.8, Color::srgb(0.3, 0.85, 1.0));
    }
    for t in &squad {
        gizmos.circle_2d(t.translation.truncate(), 0.65, Color::srgb(1.0, 0.75, 0.2));
    }
}

/// Walkers that arrive turn back for the other side.
fn turn_back(
    mut arrivals: MessageReader<ArrivalChanged>,
    mut walkers: Query<(&mut Walker, &mut Agent)>,
) {
    for a in arrivals.read() {
        if a.to != Arrival::Arrived {
            continue;
        }
        if let Ok((mut w, mut agent)) = walkers.get_mut(a.entity) {
            w.east = !w.east;
            agent.aim = AimAt::Point(goal_of(&w));
        }
    }
}

/// Counts frames; with a screenshot asked for, takes it after a while and quits.
fn frame(mut run: ResMut<Run>, mut commands: Commands, mut exit: MessageWriter<AppExit>) {
    run.frames += 1;
    let Some(path) = run.screenshot.clone() else {
        return;
    };
    if run.frames == 240 {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path));
    }
    if run.frames == 260 {
        exit.write(AppExit::Success);
    }
}
