//! # throng
//!
//! A data-parallel, deterministic crowd steering engine. Agents live in
//! struct-of-arrays columns behind stable [`AgentId`] handles; every tick a k-d
//! tree is rebuilt over all positions, [rayon] computes every agent's steering
//! force in parallel from read-only state, and one integration pass writes
//! positions and velocities. The same seed gives bitwise identical results for
//! any number of threads.
//!
//! ```
//! use glam::Vec2;
//! use throng::behaviours::flocking::SeparationParams;
//! use throng::behaviours::targeting::ArriveParams;
//! use throng::{AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};
//!
//! let mut world = World::new(WorldConfig { seed: 7, ..WorldConfig::default() });
//! let walkers = world.add_group(
//!     GroupConfig::new("walkers")
//!         .with(Behaviour::Arrive(ArriveParams { slowing_radius: 5.0, ..ArriveParams::default() }), 1.0)
//!         .with(Behaviour::Separation(SeparationParams::default()), 1.5),
//! )?;
//! let goal = Target::Point(Vec2::new(20.0, 0.0));
//! let mut ids = Vec::new();
//! for i in 0..100 {
//!     let start = Vec2::new((i % 10) as f32, (i / 10) as f32);
//!     ids.push(world.spawn(AgentSpec::new(walkers, start).with_target(goal))?);
//! }
//! for _ in 0..600 {
//!     world.step(1.0 / 30.0)?;
//! }
//! // Read back by handle, or every position at once as a slice.
//! let first = world.position(ids[0])?;
//! assert!(first.is_finite());
//! let centre = world.positions().iter().sum::<Vec2>() / world.len() as f32;
//! assert!(centre.distance(Vec2::new(20.0, 0.0)) < 8.0); // it started 16 away
//! # Ok::<(), throng::ThrongError>(())
//! ```
//!
//! The pipeline ([`World::step`]), stage by stage: re-sort the rows spatially (every
//! few ticks), rebuild the neighbour index, mark leader sight, steer (parallel),
//! integrate. Behaviours are pure kernels in [`behaviours`]; groups
//! ([`GroupConfig`]) share behaviours, weights and parameters among their agents.
//! `docs/architecture.md` maps the stages, the columns each reads and writes, and
//! the routes an agent's neighbour work can take.
//!
//! On top of the engine, `scenario` (the `scenario` feature, on by default) reads
//! TOML scenario profiles (the ones in `profiles/`) and builds worlds from them; the
//! `throng` binary (the `cli` feature) runs them and reports timings, CSV and
//! pictures. The engine depends on neither: `default-features = false` builds it
//! without their crates.
#![warn(missing_docs)]

pub mod agents;
pub mod behaviours;
#[cfg(feature = "capi")]
pub mod capi;
pub mod combine;
pub mod error;
pub mod group;
pub mod integrate;
pub mod math;
pub mod memory;
pub mod quality;
pub mod rng;
#[cfg(feature = "scenario")]
pub mod scenario;
pub mod scene;
pub mod spatial;
mod steer;
pub mod trace;
pub mod world;

/// The vector type of the API (`glam::Vec2`), re-exported so that an embedder uses
/// the same glam as the engine.
pub use glam;

pub use agents::{
    AgentId, AgentSpec, GroupId, Target, PEDESTRIAN_LIMITS, PEDESTRIAN_RADIUS, PEDESTRIAN_SPEED,
    PEDESTRIAN_SPEED_SPREAD,
};
pub use error::{Result, ThrongError};
pub use group::{Behaviour, FieldId, GroupConfig, WeightedBehaviour};
pub use world::{LevelOfDetail, TickStats, World, WorldConfig};

/// What an embedder needs most, in one `use throng::prelude::*;`.
pub mod prelude {
    pub use crate::behaviours::approach::ApproachParams;
    pub use crate::behaviours::avoidance::AvoidanceParams;
    pub use crate::behaviours::field::FollowFieldParams;
    pub use crate::behaviours::flocking::SeparationParams;
    pub use crate::behaviours::leader::LeaderParams;
    pub use crate::behaviours::targeting::{ArriveParams, EvadeParams, FleeParams};
    pub use crate::behaviours::wander::WanderParams;
    pub use crate::integrate::{Integrator, Limits};
    pub use crate::scene::{FieldSample, FieldSpec, Goal, Obstacle, Path, Wall};
    pub use crate::spatial::IndexKind;
    pub use crate::world::{LevelOfDetail, Snapshot, TickStats, World, WorldConfig};
    pub use crate::{
        AgentId, AgentSpec, Behaviour, FieldId, GroupConfig, GroupId, Result, Target, ThrongError,
    };
    pub use glam::Vec2;
}
