//! Debug draw through Bevy's gizmos (the `gizmos` feature): the engine's debug
//! geometry ([`throng::world::DebugDraw`]) drawn every frame, for the agents whose
//! entity has [`DebugDrawn`], with bodies, velocities and walls for the whole crowd
//! as [`CrowdGizmos`] asks.

use bevy_app::{App, Plugin, PostUpdate};
use bevy_color::{Color, Srgba};
use bevy_ecs::prelude::*;
use bevy_gizmos::config::GizmoConfigGroup;
use bevy_gizmos::gizmos::{GizmoBuffer, Gizmos};
use bevy_math::{Isometry2d, Vec2};
use throng::world::{DebugDraw, DebugKind};

use crate::{AgentHandle, Crowd, CrowdErrors};

/// Draws the crowd with Bevy's gizmos after each frame's update. Add it beside
/// [`crate::ThrongPlugin`] and Bevy's `GizmoPlugin` (in `DefaultPlugins`).
#[derive(Default)]
pub struct ThrongGizmosPlugin;

impl Plugin for ThrongGizmosPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CrowdGizmos>()
            .add_systems(PostUpdate, draw_crowd);
    }
}

/// What is drawn for every agent and for the scene (each on by default but
/// velocities).
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct CrowdGizmos {
    /// Every agent's body (a circle of its radius).
    pub bodies: bool,
    /// Every agent's velocity (a line one second long).
    pub velocities: bool,
    /// The world's walls and obstacles.
    pub scene: bool,
}

impl Default for CrowdGizmos {
    fn default() -> Self {
        Self {
            bodies: true,
            velocities: false,
            scene: true,
        }
    }
}

/// On an agent's entity: everything its behaviours work with is drawn (its
/// feelers, wander circle, neighbours, path carrot, ORCA lines...), as
/// [`throng::World::debug_draw`] gives it.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebugDrawn;

/// The colour a piece of debug geometry is drawn in.
#[must_use]
pub fn colour_of(kind: DebugKind) -> Color {
    let c = match kind {
        DebugKind::Body => Srgba::rgb(0.85, 0.85, 0.9),
        DebugKind::Velocity => Srgba::rgb(0.3, 0.9, 0.3),
        DebugKind::Force => Srgba::rgb(0.95, 0.3, 0.3),
        DebugKind::Target | DebugKind::PathCarrot => Srgba::rgb(1.0, 0.85, 0.2),
        DebugKind::Feeler | DebugKind::DetectionBox => Srgba::rgb(0.5, 0.6, 1.0),
        DebugKind::FeelerHit => Srgba::rgb(1.0, 0.4, 0.1),
        DebugKind::WanderCircle | DebugKind::WanderTarget => Srgba::rgb(0.8, 0.4, 0.9),
        DebugKind::Behind | DebugKind::Ahead | DebugKind::LeaderSight => {
            Srgba::rgb(0.2, 0.85, 0.85)
        }
        DebugKind::Neighbour => Srgba::rgb(0.55, 0.55, 0.55),
        DebugKind::PathPrediction => Srgba::rgb(0.9, 0.6, 0.2),
        DebugKind::FieldDirection => Srgba::rgb(0.4, 0.8, 1.0),
        DebugKind::OrcaLine => Srgba::rgb(1.0, 0.5, 0.7),
        // A kind added later: drawn, in white.
        _ => Srgba::WHITE,
    };
    c.into()
}

/// How large a point is drawn (the radius of its small circle), in world units.
pub const POINT_RADIUS: f32 = 0.12;

fn v(p: throng::glam::Vec2) -> Vec2 {
    Vec2::new(p.x, p.y)
}

/// Draw `geometry` into `gizmos`: lines as lines, circles as circles, points as
/// small circles, each in [`colour_of`] its kind.
pub fn draw_debug<Config: GizmoConfigGroup, Clear: 'static + Send + Sync>(
    geometry: &DebugDraw,
    gizmos: &mut GizmoBuffer<Config, Clear>,
) {
    for l in &geometry.lines {
        gizmos.line_2d(v(l.from), v(l.to), colour_of(l.kind));
    }
    for c in &geometry.circles {
        gizmos.circle_2d(
            Isometry2d::from_translation(v(c.centre)),
            c.radius,
            colour_of(c.kind),
        );
    }
    for p in &geometry.points {
        gizmos.circle_2d(
            Isometry2d::from_translation(v(p.at)),
            POINT_RADIUS,
            colour_of(p.kind),
        );
    }
}

/// The frame's gizmos: the scene, every agent as [`CrowdGizmos`] asks, and the full
/// geometry of the agents whose entity has [`DebugDrawn`].
fn draw_crowd(
    crowd: Res<Crowd>,
    settings: Res<CrowdGizmos>,
    drawn: Query<&AgentHandle, With<DebugDrawn>>,
    mut gizmos: Gizmos,
    mut geometry: Local<DebugDraw>,
    mut errors: ResMut<CrowdErrors>,
) {
    if settings.scene {
        let colour = colour_of(DebugKind::Feeler);
        for w in crowd.walls() {
            gizmos.line_2d(v(w.a()), v(w.b()), colour);
        }
        for o in crowd.obstacles() {
            gizmos.circle_2d(
                Isometry2d::from_translation(v(o.centre())),
                o.radius(),
                colour,
            );
        }
    }
    let (positions, velocities, radii) = (crowd.positions(), crowd.velocities(), crowd.radii());
    if settings.bodies {
        let colour = colour_of(DebugKind::Body);
        for (p, r) in positions.iter().zip(radii) {
            gizmos.circle_2d(Isometry2d::from_translation(v(*p)), *r, colour);
        }
    }
    if settings.velocities {
        let colour = colour_of(DebugKind::Velocity);
        for (p, vel) in positions.iter().zip(velocities) {
            gizmos.line_2d(v(*p), v(*p + *vel), colour);
        }
    }
    geometry.clear();
    for handle in &drawn {
        if let Err(e) = crowd.debug_draw(handle.0, &mut geometry) {
            errors.0.push(format!("debug draw {:?}: {e}", handle.0));
        }
    }
    draw_debug(&geometry, &mut gizmos);
}
