//! throng as the crowd of a Bevy game: entities become agents, the crowd steps on
//! Bevy's fixed timestep, and each agent's `Transform` follows it.
//!
//! ```no_run
//! use bevy_app::App;
//! use bevy_math::Vec2;
//! use bevy_transform::components::Transform;
//! use bevy_throng::{Agent, AimAt, ThrongPlugin};
//! use throng::prelude::*;
//!
//! let walkers = GroupConfig::new("walkers").with(Behaviour::Arrive(ArriveParams::default()), 1.0);
//! let mut app = App::new();
//! app.add_plugins(ThrongPlugin::default().with_group(walkers));
//! // In any system, or here: an entity with an Agent is an agent.
//! app.world_mut().spawn((
//!     Agent::new("walkers").aiming_at(AimAt::Point(Vec2::new(10.0, 0.0))),
//!     Transform::default(),
//! ));
//! ```
//!
//! What the plugin does, every fixed step (`FixedUpdate`, in [`CrowdSet`] order):
//! 1. [`CrowdSet::Sync`]: entities that gained an [`Agent`] are spawned into the
//!    world where their `Transform` stands (its x and y), and get an [`AgentHandle`];
//!    agents whose entity lost its `Agent` (or was despawned) leave the world; a
//!    changed `Agent` sets the agent's target (a point, or another agent entity); a
//!    [`Driven`] component sets the velocity a host-driven agent asks for;
//! 2. [`CrowdSet::Step`]: the world steps by the fixed timestep's length;
//! 3. [`CrowdSet::Write`]: each agent's `Transform` takes its position (x, y; z is
//!    left alone) and heading (a rotation about z), and its [`ArrivalState`] the
//!    world's arrival state; an entity with [`Interpolate`] is placed between its
//!    last two steps after each frame's fixed loop instead. The step's arrival and
//!    leader-sight changes go out as [`ArrivalChanged`] and [`SightChanged`]
//!    messages.
//!
//! The plugin adds nothing else: a game adds its own time plugin (Bevy's
//! `TimePlugin`, in `MinimalPlugins` or `DefaultPlugins`) to drive `FixedUpdate`.
//! The crowd is the [`Crowd`] resource, which derefs to the engine's `World`: groups,
//! walls, goal fields, queries and snapshots are the engine's own API. Stepping is
//! bitwise the same as the plain engine's given the same spawns in the same order.
//!
//! Features: `gizmos` (debug draw through Bevy's gizmos, `gizmos`) and `profile`
//! (throng profiles loaded as assets set the crowd up, `profile`).

use std::collections::HashMap;

#[cfg(feature = "gizmos")]
pub mod gizmos;
#[cfg(feature = "profile")]
pub mod profile;

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
    /// Each agent entity's agent, for targets that name entities and for despawns.
    agents: HashMap<Entity, AgentId>,
    /// Each agent's entity, for the messages.
    entities: HashMap<AgentId, Entity>,
    /// Each group's body for entities that join it without one (a profile's).
    bodies: HashMap<GroupId, Body>,
}

impl Crowd {
    /// A crowd over an empty world.
    #[must_use]
    pub fn new(config: WorldConfig) -> Self {
        Self {
            world: World::new(config),
            agents: HashMap::new(),
            entities: HashMap::new(),
            bodies: HashMap::new(),
        }
    }

    /// Put `world` in place of the crowd's world, with `bodies` the bodies of its
    /// groups for entities that join them without one. The agent entities are the
    /// old world's: they join the new one when their `AgentHandle` is removed.
    pub fn replace_world(&mut self, world: World, bodies: HashMap<GroupId, Body>) {
        self.world = world;
        self.agents.clear();
        self.entities.clear();
        self.bodies = bodies;
    }

    /// The body an entity joining `group` without one of its own gets (the group's
    /// from a profile; `None`: the engine's default body).
    #[must_use]
    pub fn body_of(&self, group: GroupId) -> Option<Body> {
        self.bodies.get(&group).copied()
    }

    /// The entity of `agent`, if it is one of the plugin's.
    #[must_use]
    pub fn entity_of(&self, agent: AgentId) -> Option<Entity> {
        self.entities.get(&agent).copied()
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

/// A group, by its id or by its name (a group the plugin was given, or any group
/// of the crowd).
#[derive(Clone, Debug, PartialEq)]
pub enum GroupRef {
    /// By id.
    Id(GroupId),
    /// By name.
    Named(String),
}

impl From<GroupId> for GroupRef {
    fn from(id: GroupId) -> Self {
        Self::Id(id)
    }
}

impl From<&str> for GroupRef {
    fn from(name: &str) -> Self {
        Self::Named(name.to_string())
    }
}

/// Makes an entity an agent of the crowd, spawned where its `Transform` stands.
#[derive(Component, Clone, Debug)]
pub struct Agent {
    /// Its group.
    pub group: GroupRef,
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
    /// An agent of `group` (an id, or a group's name) aiming at nothing, with the
    /// engine's default body.
    #[must_use]
    pub fn new(group: impl Into<GroupRef>) -> Self {
        Self {
            group: group.into(),
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

/// Makes an agent host-driven (a player's character): the velocity it asks for,
/// which its group's avoidance, if any, makes collision-free, in place of its
/// behaviours. Removing the component gives it back to its behaviours.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Driven(pub Vec2);

/// Level of detail around this entity (the camera, or the player): agents farther
/// than `near` from its `Transform` steer only every `think_every` ticks, in rotation,
/// moving on their last steering output in between ([`throng::LevelOfDetail`]).
/// Followed at every fixed step; with several, the first the query meets; when none
/// is left, the level of detail is turned off.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct CrowdCamera {
    /// Within this distance agents steer as their group says.
    pub near: f32,
    /// Beyond it, every this many ticks (1 to 64).
    pub think_every: u32,
}

/// A change of an agent's arrival state in the last step.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrivalChanged {
    /// The agent's entity.
    pub entity: Entity,
    /// Its state before the step.
    pub from: Arrival,
    /// Its state after it.
    pub to: Arrival,
}

/// An agent entering or leaving a leader's sight in the last step.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SightChanged {
    /// The agent's entity.
    pub entity: Entity,
    /// The leader whose sight it entered, if any.
    pub entered: Option<Entity>,
    /// The leader whose sight it left, if any.
    pub left: Option<Entity>,
}

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

/// The plugin: a [`Crowd`] over a world of `config` holding `groups`, stepped on the
/// fixed timestep.
#[derive(Default)]
pub struct ThrongPlugin {
    /// The world's settings (seed, index, integrator).
    pub config: WorldConfig,
    /// Groups added when the plugin is built, for agents to name.
    pub groups: Vec<throng::GroupConfig>,
}

impl ThrongPlugin {
    /// The plugin with `group` added too.
    #[must_use]
    pub fn with_group(mut self, group: throng::GroupConfig) -> Self {
        self.groups.push(group);
        self
    }
}

impl Plugin for ThrongPlugin {
    fn build(&self, app: &mut App) {
        let mut crowd = Crowd::new(self.config.clone());
        let mut errors = CrowdErrors::default();
        for g in &self.groups {
            if let Err(e) = crowd.world.add_group(g.clone()) {
                errors.0.push(format!("group {:?}: {e}", g.name));
            }
        }
        app.insert_resource(crowd)
            .insert_resource(errors)
            .add_message::<ArrivalChanged>()
            .add_message::<SightChanged>()
            .configure_sets(
                FixedUpdate,
                (CrowdSet::Sync, CrowdSet::Step, CrowdSet::Write).chain(),
            )
            .add_systems(
                FixedUpdate,
                (
                    (leave, join, retarget, drive, follow_camera)
                        .chain()
                        .in_set(CrowdSet::Sync),
                    step.in_set(CrowdSet::Step),
                    (write, tell).in_set(CrowdSet::Write),
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
            crowd.entities.remove(&id);
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
    new: Query<(Entity, &Agent, &Transform, Option<&Driven>), Without<AgentHandle>>,
    mut errors: ResMut<CrowdErrors>,
    mut commands: Commands,
) {
    for (entity, agent, transform, driven) in &new {
        let group = match &agent.group {
            GroupRef::Id(id) => *id,
            GroupRef::Named(name) => match crowd.group_by_name(name) {
                Some(id) => id,
                None => {
                    errors.0.push(format!("{entity}: no group named {name:?}"));
                    continue;
                }
            },
        };
        let at = throng::glam::Vec2::new(transform.translation.x, transform.translation.y);
        let mut spec = AgentSpec::new(group, at).with_target(target(&crowd, agent.aim));
        if let Some(b) = agent.body.or_else(|| crowd.body_of(group)) {
            spec = spec
                .with_limits(b.mass, b.max_speed, b.max_force)
                .with_radius(b.radius);
        }
        match crowd.world.spawn(spec) {
            Ok(id) => {
                crowd.agents.insert(entity, id);
                crowd.entities.insert(id, entity);
                if let Some(d) = driven {
                    let v = throng::glam::Vec2::new(d.0.x, d.0.y);
                    if let Err(e) = crowd.world.set_preferred_velocity(id, Some(v)) {
                        errors.0.push(format!("{entity}: {e}"));
                    }
                }
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

/// Host-driven agents ask for their `Driven` velocity; those that lost it go back
/// to their behaviours.
fn drive(
    mut crowd: ResMut<Crowd>,
    driven: Query<(&AgentHandle, &Driven), Changed<Driven>>,
    mut released: RemovedComponents<Driven>,
    mut errors: ResMut<CrowdErrors>,
) {
    for (handle, d) in &driven {
        let v = throng::glam::Vec2::new(d.0.x, d.0.y);
        if let Err(e) = crowd.world.set_preferred_velocity(handle.0, Some(v)) {
            errors.0.push(format!("{:?}: {e}", handle.0));
        }
    }
    let gone: Vec<Entity> = released.read().collect();
    for entity in gone {
        if let Some(id) = crowd.agent_of(entity) {
            // An agent despawned meanwhile has nothing to give back.
            let _ = crowd.world.set_preferred_velocity(id, None);
        }
    }
}

/// The level of detail follows the [`CrowdCamera`] entity; without one it is off. A
/// setting the world refuses is reported once, not at every step it stays.
fn follow_camera(
    mut crowd: ResMut<Crowd>,
    cameras: Query<(&CrowdCamera, &Transform)>,
    mut errors: ResMut<CrowdErrors>,
    mut refused: Local<Option<CrowdCamera>>,
) {
    let camera = cameras.iter().next();
    let lod = camera.map(|(c, t)| {
        let centre = throng::glam::Vec2::new(t.translation.x, t.translation.y);
        throng::LevelOfDetail::new(centre, c.near, c.think_every)
    });
    if crowd.world.level_of_detail() == lod {
        return;
    }
    match crowd.world.set_level_of_detail(lod) {
        Ok(()) => *refused = None,
        Err(e) => {
            let setting = camera.map(|(c, _)| *c);
            if *refused != setting {
                errors.0.push(format!("crowd camera: {e}"));
                *refused = setting;
            }
        }
    }
}

/// The step's arrival and sight changes as messages, for the agents of entities.
fn tell(
    crowd: Res<Crowd>,
    mut arrivals: MessageWriter<ArrivalChanged>,
    mut sights: MessageWriter<SightChanged>,
) {
    for e in crowd.arrival_events() {
        if let Some(entity) = crowd.entity_of(e.agent) {
            arrivals.write(ArrivalChanged {
                entity,
                from: e.from,
                to: e.to,
            });
        }
    }
    for e in crowd.sight_events() {
        if let Some(entity) = crowd.entity_of(e.agent) {
            sights.write(SightChanged {
                entity,
                entered: e.entered.and_then(|l| crowd.entity_of(l)),
                left: e.left.and_then(|l| crowd.entity_of(l)),
            });
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
    let (positions, headings) = (crowd.positions(), crowd.headings());
    for (handle, mut transform, mut arrival, smooth) in &mut agents {
        // One lookup of the row for the columns read.
        let Ok(row) = crowd.row(handle.0) else {
            continue;
        };
        let (p, h) = (positions[row], headings[row]);
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

/// The README's example, compiled as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
