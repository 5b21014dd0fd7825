//! throng as the crowd of a Bevy game: entities become agents, the crowd steps on
//! Bevy's fixed timestep, and each agent's `Transform` follows it.
//!
//! ```no_run
//! use bevy_app::App;
//! use bevy_ecs::prelude::*;
//! use bevy_math::Vec2;
//! use bevy_transform::components::Transform;
//! use bevy_throng::{Agent, AimAt, Crowd, ThrongPlugin};
//! use throng::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins(ThrongPlugin::default());
//! let walkers = app
//!     .world_mut()
//!     .resource_mut::<Crowd>()
//!     .add_group(GroupConfig::new("walkers").with(Behaviour::Arrive(ArriveParams::default()), 1.0))
//!     .unwrap();
//! app.world_mut().spawn((
//!     Agent::new(walkers).aiming_at(AimAt::Point(Vec2::new(10.0, 0.0))),
//!     Transform::default(),
//! ));
//! ```
//!
//! What the plugin does, every fixed step (`FixedUpdate`, in [`CrowdSet`] order):
//! 1. [`CrowdSet::Sync`]: entities that gained an [`Agent`] are spawned into the
//!    world where their `Transform` stands (its x and y), and get an [`AgentHandle`];
//!    agents whose entity lost its `Agent` (or was despawned) leave the world; a
//!    changed `Agent` sets the agent's target (a point, or another agent entity);
//! 2. [`CrowdSet::Step`]: the world steps by the fixed timestep's length;
//! 3. [`CrowdSet::Write`]: each agent's `Transform` takes its position (x, y; z is
//!    left alone) and heading (a rotation about z), and its [`ArrivalState`] the
//!    world's arrival state; an entity with [`Interpolate`] is placed between its
//!    last two steps after each frame's fixed loop instead.
//!
//! The plugin adds nothing else: a game adds its own time plugin (Bevy's
//! `TimePlugin`, in `MinimalPlugins` or `DefaultPlugins`) to drive `FixedUpdate`.
//! The crowd is the [`Crowd`] resource, which derefs to the engine's `World`: groups,
//! walls, goal fields, queries and snapshots are the engine's own API. Stepping is
//! bitwise the same as the plain engine's given the same spawns in the same order.

use std::collections::HashMap;

use bevy_app::{App, FixedUpdate, Plugin, RunFixedMainLoop, RunFixedMainLoopSystems};
use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec2};
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use throng::world::Arrival;
use throng::{AgentId, AgentSpec, GroupId, Target, World, WorldConfig};

/// The crowd: the engine's world, as a resource (deref to [`World`]).
#[derive(Resource)]
pub struct Crowd {
    world: World,
    /// Each agent's entity, for targets that name entities and for despawns.
    agents: HashMap<Entity, AgentId>,
}

impl Crowd {
    /// A crowd over an empty world.
    #[must_use]
    pub fn new(config: WorldConfig) -> Self {
        Self {
            world: World::new(config),
            agents: HashMap::new(),
        }
    }

    /// The agent of `entity`, if it is one.
    #[must_use]
    pub fn agent_of(&self, entity: Entity) -> Option<AgentId> {
        self.agents.get(&entity).copied()
    }
}

impl std::ops::Deref for Crowd {
    type Target = World;
    fn deref(&self) -> &World {
        &self.world
    }
}

impl std::ops::DerefMut for Crowd {
    fn deref_mut(&mut self) -> &mut World {
        &mut self.world
    }
}

/// What an agent aims at.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AimAt {
    /// Nothing (wanderers, flockers).
    #[default]
    Nothing,
    /// A point of the plane.
    Point(Vec2),
    /// Another agent's entity (pursuit, leader following).
    Entity(Entity),
}

/// Makes an entity an agent of the crowd, spawned where its `Transform` stands.
#[derive(Component, Clone, Debug)]
pub struct Agent {
    /// Its group.
    pub group: GroupId,
    /// What it aims at; changing it retargets the agent.
    pub aim: AimAt,
    /// Its mass, top speed, top force and radius; `None`: the engine's defaults
    /// (those of `AgentSpec::new`).
    pub body: Option<Body>,
}

/// An agent's body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Mass (> 0).
    pub mass: f32,
    /// Top speed (units per second).
    pub max_speed: f32,
    /// Top steering force.
    pub max_force: f32,
    /// Radius.
    pub radius: f32,
}

impl Agent {
    /// An agent of `group` aiming at nothing, with the engine's default body.
    #[must_use]
    pub fn new(group: GroupId) -> Self {
        Self {
            group,
            aim: AimAt::Nothing,
            body: None,
        }
    }

    /// The same agent aiming at `aim`.
    #[must_use]
    pub fn aiming_at(mut self, aim: AimAt) -> Self {
        self.aim = aim;
        self
    }

    /// The same agent with `body`.
    #[must_use]
    pub fn with_body(mut self, body: Body) -> Self {
        self.body = Some(body);
        self
    }
}

/// The engine's handle of an agent entity, inserted when it joins the crowd.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentHandle(pub AgentId);

/// An agent's arrival state after the last step (moving, arrived, stuck, ...).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArrivalState(pub Arrival);

/// Asks that an agent's `Transform` move smoothly between fixed steps: after the
/// fixed loop of each frame it is placed between the last two steps' positions
/// (and headings) by how far the frame is into the next step, rather than jumping
/// at each step. The plugin keeps the two steps here.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Interpolate {
    /// Position and heading after the step before the last (none before the first).
    pub from: Option<(Vec2, f32)>,
    /// Position and heading after the last step.
    pub to: Option<(Vec2, f32)>,
}

/// The plugin's systems, in this order within `FixedUpdate`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrowdSet {
    /// Entities join and leave the crowd; targets follow their `Agent`.
    Sync,
    /// The world steps.
    Step,
    /// Transforms and arrival states follow the agents.
    Write,
}

/// An error of the engine met by a system (a bad body, a stale target), kept for
/// the game to read; the system goes on with the other agents.
#[derive(Resource, Default, Debug)]
pub struct CrowdErrors(pub Vec<String>);

/// The plugin: a [`Crowd`] over a world of `config`, stepped on the fixed timestep.
#[derive(Default)]
pub struct ThrongPlugin {
    /// The world's settings (seed, index, integrator).
    pub config: WorldConfig,
}

impl Plugin for ThrongPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Crowd::new(self.config.clone()))
            .init_resource::<CrowdErrors>()
            .configure_sets(
                FixedUpdate,
                (CrowdSet::Sync, CrowdSet::Step, CrowdSet::Write).chain(),
            )
            .add_systems(
                FixedUpdate,
                (
                    (leave, join, retarget).chain().in_set(CrowdSet::Sync),
                    step.in_set(CrowdSet::Step),
                    write.in_set(CrowdSet::Write),
                ),
            )
            .add_systems(
                RunFixedMainLoop,
                interpolate.in_set(RunFixedMainLoopSystems::AfterFixedMainLoop),
            );
    }
}

fn vec(v: Vec2) -> throng::glam::Vec2 {
    throng::glam::Vec2::new(v.x, v.y)
}

/// The engine's target for `aim`.
fn target(crowd: &Crowd, aim: AimAt) -> Target {
    match aim {
        AimAt::Nothing => Target::None,
        AimAt::Point(p) => Target::Point(vec(p)),
        AimAt::Entity(e) => crowd.agent_of(e).map_or(Target::None, Target::Agent),
    }
}

/// Agents whose entity lost its `Agent` (or was despawned) leave the world.
fn leave(
    mut crowd: ResMut<Crowd>,
    mut removed: RemovedComponents<Agent>,
    mut errors: ResMut<CrowdErrors>,
    mut commands: Commands,
) {
    let gone: Vec<Entity> = removed.read().collect();
    for entity in gone {
        if let Some(id) = crowd.agents.remove(&entity) {
            if let Err(e) = crowd.world.despawn(id) {
                errors.0.push(format!("{entity}: {e}"));
            }
            if let Ok(mut ec) = commands.get_entity(entity) {
                ec.remove::<AgentHandle>();
            }
        }
    }
}

/// Entities that gained an `Agent` join the crowd, in the order the query meets
/// them (for entities spawned alike, the order they were spawned in: the same
/// spawns give the same world).
fn join(
    mut crowd: ResMut<Crowd>,
    new: Query<(Entity, &Agent, &Transform), Without<AgentHandle>>,
    mut errors: ResMut<CrowdErrors>,
    mut commands: Commands,
) {
    for (entity, agent, transform) in &new {
        let at = throng::glam::Vec2::new(transform.translation.x, transform.translation.y);
        let mut spec = AgentSpec::new(agent.group, at).with_target(target(&crowd, agent.aim));
        if let Some(b) = agent.body {
            spec = spec
                .with_limits(b.mass, b.max_speed, b.max_force)
                .with_radius(b.radius);
        }
        match crowd.world.spawn(spec) {
            Ok(id) => {
                crowd.agents.insert(entity, id);
                commands
                    .entity(entity)
                    .insert((AgentHandle(id), ArrivalState::default()));
            }
            Err(e) => errors.0.push(format!("{entity}: {e}")),
        }
    }
}

/// A changed `Agent` retargets its agent.
fn retarget(
    mut crowd: ResMut<Crowd>,
    changed: Query<(&Agent, &AgentHandle), Changed<Agent>>,
    mut errors: ResMut<CrowdErrors>,
) {
    for (agent, handle) in &changed {
        let t = target(&crowd, agent.aim);
        if let Err(e) = crowd.world.set_target(handle.0, t) {
            errors.0.push(format!("{:?}: {e}", handle.0));
        }
    }
}

/// The world steps by the fixed timestep's length.
fn step(mut crowd: ResMut<Crowd>, time: Res<Time<Fixed>>, mut errors: ResMut<CrowdErrors>) {
    let dt = time.timestep().as_secs_f32();
    if let Err(e) = crowd.world.step(dt) {
        errors.0.push(format!("step: {e}"));
    }
}

/// Transforms and arrival states follow the agents (an interpolated agent's
/// transform is placed by [`interpolate`] instead, between its last two steps).
fn write(
    crowd: Res<Crowd>,
    mut agents: Query<(
        &AgentHandle,
        &mut Transform,
        &mut ArrivalState,
        Option<&mut Interpolate>,
    )>,
) {
    for (handle, mut transform, mut arrival, smooth) in &mut agents {
        let (Ok(p), Ok(h)) = (crowd.position(handle.0), crowd.heading(handle.0)) else {
            continue;
        };
        let now = (Vec2::new(p.x, p.y), h);
        match smooth {
            Some(mut s) => {
                // The first step an agent takes starts from where it stands.
                let from = s.to.unwrap_or(now);
                *s = Interpolate {
                    from: Some(from),
                    to: Some(now),
                };
            }
            None => place(&mut transform, now),
        }
        let state = crowd.arrival(handle.0).unwrap_or_default();
        if arrival.0 != state {
            arrival.0 = state;
        }
    }
}

/// Put `transform` at a position and heading (x and y; z is the game's).
fn place(transform: &mut Transform, (p, heading): (Vec2, f32)) {
    transform.translation.x = p.x;
    transform.translation.y = p.y;
    // Headings turn clockwise from +y; Bevy's rotations about z turn
    // counter-clockwise.
    transform.rotation = Quat::from_rotation_z(-heading);
}

/// Interpolated agents between their last two steps, by how far this frame is into
/// the next fixed step.
fn interpolate(time: Res<Time<Fixed>>, mut agents: Query<(&Interpolate, &mut Transform)>) {
    let a = time.overstep_fraction();
    for (s, mut transform) in &mut agents {
        let (Some(from), Some(to)) = (s.from, s.to) else {
            continue;
        };
        let p = from.0.lerp(to.0, a);
        // The short way round between the two headings.
        let (pi, tau) = (std::f32::consts::PI, std::f32::consts::TAU);
        let turn = (to.1 - from.1 + pi).rem_euclid(tau) - pi;
        place(&mut transform, (p, from.1 + turn * a));
    }
}
