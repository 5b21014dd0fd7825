//! The world and its tick pipeline.
//!
//! [`World::step`] is the table of contents of a tick, in this order and no other:
//! 1. **rebuild the index** — a k-d tree (or grid) over every position;
//! 2. **steer** — every agent's steering output, in parallel, from the state as it
//!    was at the start of the tick; each agent writes only its own output row;
//! 3. **integrate** — one pass, the only writer of positions and velocities.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use glam::Vec2;
use rayon::prelude::*;
use rayon::ThreadPool;

use crate::agents::{AgentId, AgentSpec, Columns, GroupId, Memory, Slots, SteerOut, Target};
use crate::behaviors::angular::{align, face, look_where_you_are_going, velocity_match};
use crate::behaviors::approach::{approach_step, WalkerState};
use crate::behaviors::flocking::{
    alignment, cohesion, flock_forces, flock_from_sums, flock_sums_raw, separation,
    separation_push, FlockForces, Neighbour, SeparationKind, SeparationParams, MIN_SEPARATION_DIST,
};
use crate::behaviors::kinematic::{
    kinematic_arrive, kinematic_flee, kinematic_seek, kinematic_update, kinematic_wander,
    KinematicOutput,
};
use crate::behaviors::leader::{
    ahead_point, in_leader_sight, leader_follow, LeaderParams, LeaderSight, LeaderView,
};
use crate::behaviors::obstacles::obstacle_avoidance;
use crate::behaviors::path::follow_path;
use crate::behaviors::tactics::{hide, interpose, offset_pursuit};
use crate::behaviors::targeting::{arrive, evade, flee, pursuit, seek, Body};
use crate::behaviors::walls::wall_avoidance;
use crate::behaviors::wander::wander;
use crate::behaviors::{AgentState, Steering};
use crate::combine::{accumulate_force, dither_pick, Combination};
use crate::error::{finite, finite_vec, positive, Result, ThrongError};
use crate::group::{Behaviour, GroupConfig, Movement, PathId};
use crate::integrate::{
    ease_heading, integrate_angular, integrate_lanes, integrate_linear, Integrator, Lanes, Limits,
    LANES,
};
use crate::lanes;
use crate::math::{normalize_or_zero, truncate};
use crate::rng::{uniform, AgentRng};
use crate::scene::{Obstacle, ObstacleIndex, Path, Wall, WallIndex};
use crate::spatial::{
    spatial_order, BatchNeighbours, FlockSums, IndexKind, OrderScratch, ScanQuery, SpatialIndex,
};

/// Rows are steered in chunks of this many consecutive (spatially sorted) rows:
/// one neighbour-index query per chunk, and one rayon task.
const STEER_CHUNK: usize = crate::spatial::CHUNK_ROWS;
/// The integration pass works in chunks of this many rows, one rayon task each.
const INTEGRATE_CHUNK: usize = 1024;

/// World-wide settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Seed of every per-agent random stream. Default 0.
    pub seed: u64,
    /// The integrator. Default semi-implicit Euler.
    pub integrator: Integrator,
    /// The neighbour index. Default the k-d tree.
    pub index: IndexKind,
    /// Re-sort the rows spatially every this many ticks, so neighbours are near in
    /// memory (0 = never). Handles are unaffected. Default
    /// [`DEFAULT_REORDER_INTERVAL`].
    pub reorder_interval: u32,
}

/// The default [`WorldConfig::reorder_interval`]. For the `flock` profile at 100,000
/// agents on two threads, re-sorting every 32 ticks rather than every 16 halves the
/// re-sort's share of the tick (about 5% of it) and leaves the steering as fast (its
/// birds move at most 3.2 units, less than their neighbour radius, in 32 ticks).
pub const DEFAULT_REORDER_INTERVAL: u32 = 32;

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            integrator: Integrator::default(),
            index: IndexKind::default(),
            reorder_interval: DEFAULT_REORDER_INTERVAL,
        }
    }
}

/// Wall-clock time of each phase of one tick, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// Index rebuild (including the periodic spatial re-sort).
    pub index_ns: u64,
    /// Leader sight marking.
    pub sight_ns: u64,
    /// Parallel steering.
    pub steer_ns: u64,
    /// Integration.
    pub integrate_ns: u64,
    /// The whole tick.
    pub total_ns: u64,
}

/// What happened in one tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TickStats {
    /// The tick's number (1 for the first tick).
    pub tick: u64,
    /// Agents stepped.
    pub agents: usize,
    /// Phase timings.
    pub times: PhaseTimes,
    /// Sum over agents of the neighbours each perceived.
    pub neighbours: u64,
    /// Non-finite results replaced by the previous state (0 for finite input).
    pub quarantined: u64,
    /// Moves that would have crossed a wall and were stopped or slid along it
    /// by the integration pass.
    pub crossings_prevented: u64,
}

/// Marks "in no leader's sight" in `World::sighted_by`.
const NO_LEADER: u32 = u32::MAX;

/// What the pipeline needs to know of a group, derived once from its config.
#[derive(Clone, Copy, Debug)]
struct GroupTraits {
    needs_neighbours: bool,
    angular: bool,
    watches_leaders: bool,
    leader: Option<LeaderParams>,
    /// Separation parameters for [`flock_forces`] when the group uses at least two of
    /// separation, alignment and cohesion: computed in one pass over the neighbours
    /// (`flock_all`); or of the group's only flocking behaviour, an inverse-distance
    /// separation, computed ahead of the dispatch the same way.
    flock: Option<SeparationParams>,
    /// `flock` stands for all three flocking forces, not the separation alone.
    flock_all: bool,
    /// Some behaviour reads the neighbour records. When not, the group's neighbours
    /// are only the flocking sums, read from a grid's entries or straight from the
    /// columns through the scan's row ids ([`column_sums`]).
    needs_records: bool,
    /// A steering group without angular steering: integrated four rows at a time in
    /// vector lanes ([`integrate_lanes`]).
    lanes: bool,
    /// The group's behaviours as a lane program, when they all are lane terms (the
    /// flocking trio from the column sums, one wander, seek) combined by a weighted
    /// sum: steered four rows at a time ([`steer_four`]).
    program: Option<lanes::Program>,
}

impl GroupTraits {
    /// Whether the group's flocking sums can be read in one pass over the neighbour
    /// candidates (`BatchNeighbours::flock_scan`): all three forces, no records.
    fn sums_from_candidates(&self) -> bool {
        self.flock_all && !self.needs_records && self.flock.is_some()
    }

    fn of(config: &GroupConfig) -> Self {
        let kinds = |f: fn(&Behaviour) -> bool| config.behaviours.iter().any(|b| f(&b.behaviour));
        let separation = config.behaviours.iter().find_map(|b| match b.behaviour {
            Behaviour::Separation(p) => Some(p),
            _ => None,
        });
        let flocking = usize::from(separation.is_some())
            + usize::from(kinds(|b| matches!(b, Behaviour::Alignment)))
            + usize::from(kinds(|b| matches!(b, Behaviour::Cohesion)));
        let lone_separation =
            separation.filter(|p| flocking == 1 && p.kind == SeparationKind::InverseDistance);
        let flock_all = flocking >= 2;
        let flock = if flock_all {
            Some(separation.unwrap_or_default())
        } else {
            lone_separation
        };
        // Without records the flocking sums are the inverse-distance kind only.
        let summed = flock.filter(|p| p.kind == SeparationKind::InverseDistance);
        let needs_records = config.behaviours.iter().any(|b| match b.behaviour {
            Behaviour::Separation(p) => summed != Some(p),
            Behaviour::Cohesion | Behaviour::Alignment => summed.is_none(),
            ref other => other.needs_neighbours(),
        });
        let program = (config.movement == Movement::Steering
            && config.combination == Combination::WeightedSum
            && !needs_records)
            .then(|| {
                config
                    .behaviours
                    .iter()
                    .map(|b| {
                        let term = match b.behaviour {
                            Behaviour::Separation(_) => lanes::Term::Separation,
                            Behaviour::Alignment => lanes::Term::Alignment,
                            Behaviour::Cohesion => lanes::Term::Cohesion,
                            Behaviour::Wander(p) => lanes::Term::Wander(p),
                            Behaviour::Seek => lanes::Term::Seek,
                            _ => return None,
                        };
                        Some((term, b.weight))
                    })
                    .collect::<Option<Vec<_>>>()
                    .and_then(lanes::Program::new)
            })
            .flatten();
        Self {
            program,
            flock,
            flock_all,
            needs_records,
            needs_neighbours: config.needs_neighbours(),
            angular: config.uses_angular(),
            lanes: config.movement == Movement::Steering && !config.uses_angular(),
            watches_leaders: config.watches_leaders(),
            leader: config.leader_params().copied(),
        }
    }
}

/// Scratch of the leader sight phase.
#[derive(Default)]
struct SightScratch {
    /// Per row: the lowest group index among the agent's followers.
    leader_group: Vec<u16>,
    /// Rows of this tick's leaders.
    leaders: Vec<u32>,
    /// Per leader: the rows in its sight.
    hits: Vec<Vec<u32>>,
}

/// Per-worker scratch of the steering pass, reused every tick.
#[derive(Default)]
struct SteerScratch {
    batch: BatchNeighbours,
    neighbours: Vec<Neighbour>,
    /// The neighbour query of the group last steered one row at a time in this chunk
    /// (cleared at each chunk: a query holds for the index as rebuilt this tick).
    query: Option<(usize, ScanQuery)>,
}

/// A crowd: agents, their groups, and the pipeline that steps them.
///
/// No global state: any number of worlds may live side by side, each stepping on
/// the global rayon pool or on a pool it is given ([`World::set_thread_pool`]).
pub struct World {
    config: WorldConfig,
    groups: Vec<GroupConfig>,
    /// What the pipeline needs to know of each group, derived from its config.
    traits: Vec<GroupTraits>,
    walls: WallIndex,
    obstacles: ObstacleIndex,
    paths: Vec<Path>,
    /// Per row: the row of the leader whose sight the agent is in (`NO_LEADER`
    /// when none), marked each tick by the leader sight phase; empty when no group
    /// has a leader.
    sighted_by: Vec<u32>,
    /// Scratch of the leader sight phase, reused every tick.
    sight: SightScratch,
    cols: Columns,
    spare: Columns,
    slots: Slots,
    index: SpatialIndex,
    perm: Vec<u32>,
    order_scratch: OrderScratch,
    /// Whether any group has ever had the approach walker: until then every row's
    /// walker state is the default, and a re-sort leaves that column alone.
    walkers: bool,
    scratch: Vec<Mutex<SteerScratch>>,
    pool: Option<Arc<ThreadPool>>,
    tick: u64,
    last: TickStats,
}

impl Default for World {
    fn default() -> Self {
        Self::new(WorldConfig::default())
    }
}

impl World {
    /// An empty world.
    #[must_use]
    pub fn new(config: WorldConfig) -> Self {
        let index = SpatialIndex::new(config.index);
        Self {
            config,
            groups: Vec::new(),
            traits: Vec::new(),
            walls: WallIndex::default(),
            obstacles: ObstacleIndex::default(),
            paths: Vec::new(),
            sighted_by: Vec::new(),
            sight: SightScratch::default(),
            cols: Columns::default(),
            spare: Columns::default(),
            slots: Slots::default(),
            index,
            perm: Vec::new(),
            order_scratch: OrderScratch::default(),
            walkers: false,
            scratch: Vec::new(),
            pool: None,
            tick: 0,
            last: TickStats::default(),
        }
    }

    /// The world's settings.
    #[must_use]
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Step on this pool instead of the global one (`None`: the global pool).
    /// Results are bitwise identical whatever the pool's size.
    pub fn set_thread_pool(&mut self, pool: Option<Arc<ThreadPool>>) {
        self.pool = pool;
    }

    /// Choose the neighbour index for the following ticks.
    pub fn set_index_kind(&mut self, kind: IndexKind) {
        self.config.index = kind;
        self.index = SpatialIndex::new(kind);
    }

    /// Choose the integrator for the following ticks.
    pub fn set_integrator(&mut self, integrator: Integrator) {
        self.config.integrator = integrator;
    }

    // ---- groups ---------------------------------------------------------

    /// Add a group; its behaviours are validated.
    pub fn add_group(&mut self, config: GroupConfig) -> Result<GroupId> {
        self.validate_group(&config)?;
        let id = u16::try_from(self.groups.len())
            .ok()
            .filter(|&i| i != u16::MAX)
            .ok_or(ThrongError::Capacity("groups"))?;
        self.traits.push(GroupTraits::of(&config));
        self.walkers |= uses_walker(&config);
        self.groups.push(config);
        Ok(GroupId(id))
    }

    /// Replace a group's configuration (takes effect next tick).
    pub fn set_group(&mut self, group: GroupId, config: GroupConfig) -> Result<()> {
        self.validate_group(&config)?;
        let slot = self
            .groups
            .get_mut(group.index())
            .ok_or(ThrongError::UnknownGroup(group))?;
        self.traits[group.index()] = GroupTraits::of(&config);
        self.walkers |= uses_walker(&config);
        *slot = config;
        Ok(())
    }

    fn validate_group(&self, config: &GroupConfig) -> Result<()> {
        config.validate()?;
        for (i, b) in config.behaviours.iter().enumerate() {
            if let Behaviour::FollowPath { path, .. } = b.behaviour {
                if path.index() >= self.paths.len() {
                    return Err(ThrongError::InvalidParameter {
                        field: format!("behaviours[{i}].path"),
                        reason: format!("no path {} in this world", path.index()),
                    });
                }
            }
        }
        Ok(())
    }

    // ---- the static scene -----------------------------------------------

    /// Replace the walls (indexed once here, so queries don't scan them all).
    pub fn set_walls(&mut self, walls: &[Wall]) -> Result<()> {
        self.walls = WallIndex::new(walls)?;
        Ok(())
    }

    /// Replace the circular obstacles.
    pub fn set_obstacles(&mut self, obstacles: &[Obstacle]) -> Result<()> {
        self.obstacles = ObstacleIndex::new(obstacles)?;
        Ok(())
    }

    /// Add a path for [`Behaviour::FollowPath`].
    pub fn add_path(&mut self, path: Path) -> Result<PathId> {
        let id = u32::try_from(self.paths.len()).map_err(|_| ThrongError::Capacity("paths"))?;
        self.paths.push(path);
        Ok(PathId(id))
    }

    /// The walls.
    #[must_use]
    pub fn walls(&self) -> &[Wall] {
        self.walls.walls()
    }

    /// The obstacles.
    #[must_use]
    pub fn obstacles(&self) -> &[Obstacle] {
        self.obstacles.obstacles()
    }

    /// The paths, by [`PathId`] index.
    #[must_use]
    pub fn paths(&self) -> &[Path] {
        &self.paths
    }

    /// The leader whose sight the agent was in during the last tick, if any.
    pub fn in_sight_of(&self, id: AgentId) -> Result<Option<AgentId>> {
        let row = self.row(id)?;
        Ok(match self.sighted_by.get(row) {
            Some(&l) if l != NO_LEADER => self.cols.id.get(l as usize).copied(),
            _ => None,
        })
    }

    /// A group's configuration.
    #[must_use]
    pub fn group(&self, group: GroupId) -> Option<&GroupConfig> {
        self.groups.get(group.index())
    }

    /// All groups, by index.
    #[must_use]
    pub fn groups(&self) -> &[GroupConfig] {
        &self.groups
    }

    // ---- agents ---------------------------------------------------------

    /// Spawn an agent. Its random stream is seeded from the world seed and its
    /// id. Between ticks only.
    pub fn spawn(&mut self, spec: AgentSpec) -> Result<AgentId> {
        spec.validate()?;
        let group = self
            .groups
            .get(spec.group.index())
            .ok_or(ThrongError::UnknownGroup(spec.group))?;
        self.check_target(spec.target)?;
        self.check_target(spec.target2)?;
        let wander = group
            .behaviours
            .iter()
            .find_map(|b| match &b.behaviour {
                Behaviour::Wander(p) => Some(*p),
                _ => None,
            })
            .unwrap_or_default();
        let row = u32::try_from(self.cols.len()).map_err(|_| ThrongError::Capacity("agents"))?;
        let progress = group.path().map_or(0.0, |(path, _)| {
            let p = &self.paths[path.index()];
            p.project(spec.position, 0.0, p.length()).0
        });
        let id = self
            .slots
            .alloc(row)
            .ok_or(ThrongError::Capacity("agents"))?;
        self.cols.push(id, &spec, self.config.seed, &wander);
        self.cols.memory[row as usize].path_progress = progress;
        Ok(id)
    }

    /// Remove an agent. Every other handle stays valid. Agents targeting it lose
    /// their target (it acts as none).
    pub fn despawn(&mut self, id: AgentId) -> Result<()> {
        let row = self.row(id)?;
        if let Some(moved) = self.cols.swap_remove(row) {
            self.slots.set_row(moved, row as u32);
        }
        self.slots.free(id);
        Ok(())
    }

    /// Whether `id` names a live agent.
    #[must_use]
    pub fn contains(&self, id: AgentId) -> bool {
        self.slots.row(id).is_some()
    }

    /// Number of live agents.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cols.len()
    }

    /// Whether the world has no agents.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cols.len() == 0
    }

    /// The current row of an agent in the slices below. Rows change when agents
    /// are despawned or re-sorted; look them up again after each tick.
    pub fn row(&self, id: AgentId) -> Result<usize> {
        self.slots
            .row(id)
            .map(|r| r as usize)
            .ok_or(ThrongError::UnknownAgent(id))
    }

    /// The handle of every row.
    #[must_use]
    pub fn ids(&self) -> &[AgentId] {
        &self.cols.id
    }

    /// Positions, by row.
    #[must_use]
    pub fn positions(&self) -> &[Vec2] {
        &self.cols.pos
    }

    /// Velocities, by row.
    #[must_use]
    pub fn velocities(&self) -> &[Vec2] {
        &self.cols.vel
    }

    /// Headings (radians clockwise from +y), by row.
    #[must_use]
    pub fn headings(&self) -> &[f32] {
        &self.cols.heading
    }

    /// Angular velocities (radians per second), by row.
    #[must_use]
    pub fn rotations(&self) -> &[f32] {
        &self.cols.rotation
    }

    /// Group index of every row.
    #[must_use]
    pub fn group_indices(&self) -> &[u16] {
        &self.cols.group
    }

    /// Body radii, by row.
    #[must_use]
    pub fn radii(&self) -> &[f32] {
        &self.cols.radius
    }

    /// Maximum speeds, by row.
    #[must_use]
    pub fn max_speeds(&self) -> &[f32] {
        &self.cols.max_speed
    }

    /// The steering force (or kinematic velocity) computed for each row in the
    /// last tick.
    pub fn forces(&self) -> impl ExactSizeIterator<Item = Vec2> + '_ {
        self.cols.out.iter().map(|o| o.linear)
    }

    /// An agent's position.
    pub fn position(&self, id: AgentId) -> Result<Vec2> {
        Ok(self.cols.pos[self.row(id)?])
    }

    /// An agent's velocity.
    pub fn velocity(&self, id: AgentId) -> Result<Vec2> {
        Ok(self.cols.vel[self.row(id)?])
    }

    /// An agent's heading.
    pub fn heading(&self, id: AgentId) -> Result<f32> {
        Ok(self.cols.heading[self.row(id)?])
    }

    /// An agent's group.
    pub fn agent_group(&self, id: AgentId) -> Result<GroupId> {
        Ok(GroupId(self.cols.group[self.row(id)?]))
    }

    /// An agent's primary target.
    pub fn target(&self, id: AgentId) -> Result<Target> {
        Ok(self.cols.target[self.row(id)?])
    }

    /// Move an agent (between ticks).
    pub fn set_position(&mut self, id: AgentId, p: Vec2) -> Result<()> {
        finite_vec("position", p)?;
        let row = self.row(id)?;
        self.cols.pos[row] = p;
        Ok(())
    }

    /// Set an agent's velocity (truncated to its maximum speed).
    pub fn set_velocity(&mut self, id: AgentId, v: Vec2) -> Result<()> {
        finite_vec("velocity", v)?;
        let row = self.row(id)?;
        self.cols.vel[row] = truncate(v, self.cols.max_speed[row]);
        self.cols.dir[row] = normalize_or_zero(self.cols.vel[row]);
        Ok(())
    }

    /// Set an agent's heading.
    pub fn set_heading(&mut self, id: AgentId, heading: f32) -> Result<()> {
        finite("heading", heading)?;
        let row = self.row(id)?;
        self.cols.heading[row] = crate::math::wrap_angle(heading);
        Ok(())
    }

    /// Set an agent's primary target. An agent target must be live.
    pub fn set_target(&mut self, id: AgentId, target: Target) -> Result<()> {
        self.check_target(target)?;
        let row = self.row(id)?;
        self.cols.target[row] = target;
        Ok(())
    }

    /// Set the primary target of every agent of `ids` to `target` (a rally point for a
    /// crowd, say): one validation of the target, then one write per agent. Nothing is
    /// written unless every handle is live.
    pub fn set_targets(&mut self, ids: &[AgentId], target: Target) -> Result<()> {
        self.check_target(target)?;
        if let Some(&bad) = ids.iter().find(|&&id| self.slots.row(id).is_none()) {
            return Err(ThrongError::UnknownAgent(bad));
        }
        for &id in ids {
            if let Some(row) = self.slots.row(id) {
                self.cols.target[row as usize] = target;
            }
        }
        Ok(())
    }

    /// Set the primary target of every agent of `group` to `target` (the whole group
    /// chases one point, say): one validation, then one pass over the rows in storage
    /// order, with no handle lookups. Nothing is written if the group is unknown or
    /// the target is invalid.
    pub fn set_group_target(&mut self, group: GroupId, target: Target) -> Result<()> {
        if group.index() >= self.groups.len() {
            return Err(ThrongError::UnknownGroup(group));
        }
        self.check_target(target)?;
        for (t, &g) in self.cols.target.iter_mut().zip(&self.cols.group) {
            if g == group.0 {
                *t = target;
            }
        }
        Ok(())
    }

    /// Set an agent's secondary target (the second agent of interpose).
    pub fn set_target2(&mut self, id: AgentId, target: Target) -> Result<()> {
        self.check_target(target)?;
        let row = self.row(id)?;
        self.cols.target2[row] = target;
        Ok(())
    }

    /// Set an agent's mass, maximum speed and maximum force.
    pub fn set_limits(
        &mut self,
        id: AgentId,
        mass: f32,
        max_speed: f32,
        max_force: f32,
    ) -> Result<()> {
        positive("mass", mass)?;
        crate::error::non_negative("max_speed", max_speed)?;
        crate::error::non_negative("max_force", max_force)?;
        let row = self.row(id)?;
        self.cols.mass[row] = mass;
        self.cols.max_speed[row] = max_speed;
        self.cols.max_force[row] = max_force;
        self.cols.vel[row] = truncate(self.cols.vel[row], max_speed);
        self.cols.dir[row] = normalize_or_zero(self.cols.vel[row]);
        Ok(())
    }

    fn check_target(&self, target: Target) -> Result<()> {
        crate::agents::validate_target("target", target)?;
        if let Target::Agent(t) = target {
            self.row(t)?;
        }
        Ok(())
    }

    /// Ticks stepped so far.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Statistics of the last tick.
    #[must_use]
    pub fn last_stats(&self) -> TickStats {
        self.last
    }

    /// A 64-bit FNV-1a hash of every column's bits, in row order: equal hashes
    /// mean (with overwhelming probability) bitwise equal worlds.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv::default();
        let c = &self.cols;
        for r in 0..c.len() {
            h.u64(c.id[r].to_bits());
            h.u64(c.group[r] as u64);
            for v in [c.pos[r], c.vel[r], c.memory[r].wander, c.out[r].linear] {
                h.f32(v.x);
                h.f32(v.y);
            }
            for f in [
                c.heading[r],
                c.rotation[r],
                c.mass[r],
                c.max_speed[r],
                c.max_force[r],
                c.radius[r],
                c.memory[r].path_progress,
                c.out[r].angular,
            ] {
                h.f32(f);
            }
            let mut rng = c.rng[r].clone();
            h.u64(rand_core::Rng::next_u64(&mut rng));
        }
        h.0
    }

    // ---- the tick -------------------------------------------------------

    /// Advance the world by `dt` seconds. `dt` must be finite and > 0; nothing
    /// else can fail.
    pub fn step(&mut self, dt: f32) -> Result<TickStats> {
        positive("dt", dt)?;
        let pool = self.pool.clone();
        // The whole tick runs on a worker of the pool, so that each parallel phase
        // starts from inside the pool rather than being handed over from this thread.
        let stats = match pool {
            Some(pool) => pool.install(|| self.step_inner(dt)),
            None => rayon::scope(|_| self.step_inner(dt)),
        };
        Ok(stats)
    }

    fn step_inner(&mut self, dt: f32) -> TickStats {
        crate::zone!("tick");
        let start = Instant::now();
        let mut times = PhaseTimes::default();

        let t = Instant::now();
        self.rebuild_index();
        times.index_ns = elapsed_ns(t);

        let t = Instant::now();
        self.mark_leader_sight();
        times.sight_ns = elapsed_ns(t);

        let t = Instant::now();
        let neighbours = self.steer(dt);
        times.steer_ns = elapsed_ns(t);

        let t = Instant::now();
        let (quarantined, crossings_prevented) = self.integrate(dt);
        times.integrate_ns = elapsed_ns(t);

        self.tick += 1;
        times.total_ns = elapsed_ns(start);
        self.last = TickStats {
            tick: self.tick,
            agents: self.cols.len(),
            times,
            neighbours,
            quarantined,
            crossings_prevented,
        };
        crate::plot!("agents", self.cols.len() as f64);
        crate::plot!(
            "mean neighbours",
            neighbours as f64 / self.cols.len().max(1) as f64
        );
        crate::trace::frame_mark();
        self.last
    }

    /// Phase 1: periodically re-sort rows spatially, then rebuild the index.
    fn rebuild_index(&mut self) {
        crate::zone!("rebuild index");
        let interval = self.config.reorder_interval as u64;
        if interval > 0 && self.tick.is_multiple_of(interval) && self.cols.len() > 1 {
            crate::zone!("spatial re-sort");
            spatial_order(&self.cols.pos, &mut self.perm, &mut self.order_scratch);
            self.cols
                .gather_into(&self.perm, &mut self.spare, self.walkers);
            std::mem::swap(&mut self.cols, &mut self.spare);
            for (row, &id) in self.cols.id.iter().enumerate() {
                self.slots.set_row(id, row as u32);
            }
        }
        let hint = self.max_neighbour_radius();
        // A grid stores the rows' unit velocities when some group's flocking sums can be
        // read from it (`flock_scan`).
        let dirs = self.sums_from_candidates().then_some(&self.cols.dir[..]);
        self.index.rebuild_with_dirs(&self.cols.pos, dirs, hint);
    }

    /// Whether some group's flocking sums can be read in one pass over the neighbour
    /// candidates (`BatchNeighbours::flock_scan`), which then carry unit velocities.
    fn sums_from_candidates(&self) -> bool {
        self.traits.iter().any(GroupTraits::sums_from_candidates)
    }

    fn max_neighbour_radius(&self) -> f32 {
        self.groups
            .iter()
            .zip(&self.traits)
            .filter(|(_, t)| t.needs_neighbours)
            .map(|(g, _)| g.neighbour_radius)
            .fold(0.0, f32::max)
    }

    /// Phase 1b: every leader marks, through the index, the agents in its sight
    /// (seed 002's `isOnLeaderSight`): its followers and the agents of groups
    /// that give way. A follower seen by its own leader is marked with it;
    /// otherwise with the first leader (in row order) that sees it.
    fn mark_leader_sight(&mut self) {
        crate::zone!("leader sight");
        let n = self.cols.len();
        self.sighted_by.clear();
        // Without leaders the column stays empty: a row past its end is in no sight.
        if !self.traits.iter().any(|t| t.leader.is_some()) {
            return;
        }
        self.sighted_by.resize(n, NO_LEADER);
        let c = &self.cols;
        let slots = &self.slots;
        let traits = &self.traits;
        let index = &self.index;
        let sight = &mut self.sight;
        // Leaders: the agents some follower targets, each with the parameters of
        // the lowest-numbered group among its followers.
        sight.leader_group.clear();
        sight.leader_group.resize(n, u16::MAX);
        for row in 0..n {
            let g = c.group[row];
            if traits[g as usize].leader.is_none() {
                continue;
            }
            if let Target::Agent(t) = c.target[row] {
                if let Some(lr) = slots.row(t) {
                    let slot = &mut sight.leader_group[lr as usize];
                    *slot = (*slot).min(g);
                }
            }
        }
        let leader_group = &sight.leader_group;
        sight.leaders.clear();
        sight
            .leaders
            .extend((0..n as u32).filter(|&r| leader_group[r as usize] != u16::MAX));
        let count = sight.leaders.len();
        if sight.hits.len() < count {
            sight.hits.resize_with(count, Vec::new);
        }
        sight.hits[..count]
            .par_iter_mut()
            .zip(sight.leaders.par_iter())
            .for_each(|(hits, &lr)| {
                hits.clear();
                let lu = lr as usize;
                let Some(params) = traits[leader_group[lu] as usize].leader else {
                    return;
                };
                let view = LeaderView {
                    body: Body {
                        pos: c.pos[lu],
                        vel: c.vel[lu],
                    },
                    heading: c.heading[lu],
                };
                let ahead = ahead_point(&view, &params);
                let mut visit = |cand: u32| {
                    let cu = cand as usize;
                    if cand != lr
                        && traits[c.group[cu] as usize].watches_leaders
                        && in_leader_sight(c.pos[cu], view.body.pos, ahead, &params)
                    {
                        hits.push(cand);
                    }
                };
                index.for_each_candidate(ahead, params.sight_radius, &mut visit);
                index.for_each_candidate(view.body.pos, params.sight_radius, &mut visit);
                hits.sort_unstable();
                hits.dedup();
            });
        for (hits, &lr) in sight.hits[..count].iter().zip(&sight.leaders) {
            for &h in hits {
                let hu = h as usize;
                let own = traits[c.group[hu] as usize].leader.is_some()
                    && matches!(c.target[hu], Target::Agent(t) if slots.row(t) == Some(lr));
                if self.sighted_by[hu] == NO_LEADER || own {
                    self.sighted_by[hu] = lr;
                }
            }
        }
    }

    /// Phase 2: every agent's steering output, in parallel. Returns the total
    /// neighbour count.
    fn steer(&mut self, dt: f32) -> u64 {
        crate::zone!("steer");
        let threads = rayon::current_num_threads().max(1);
        while self.scratch.len() < threads {
            self.scratch.push(Mutex::new(SteerScratch::default()));
        }
        let max_radius = self.max_neighbour_radius();
        let index_dirs = self.sums_from_candidates();
        let Columns {
            id,
            group,
            pos,
            vel,
            dir,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            radius,
            target,
            target2,
            offset,
            rng,
            memory,
            walker,
            out,
        } = &mut self.cols;
        let ctx = SteerCtx {
            id,
            group,
            pos,
            vel,
            dir,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            radius,
            target,
            target2,
            offset,
            groups: &self.groups,
            traits: &self.traits,
            walls: &self.walls,
            obstacles: &self.obstacles,
            paths: &self.paths,
            sighted_by: &self.sighted_by,
            slots: &self.slots,
            index: &self.index,
            index_dirs,
            dt,
        };
        let scratch = &self.scratch;
        out.par_chunks_mut(STEER_CHUNK)
            .zip(rng.par_chunks_mut(STEER_CHUNK))
            .zip(memory.par_chunks_mut(STEER_CHUNK))
            .zip(walker.par_chunks_mut(STEER_CHUNK))
            .enumerate()
            .map(|(chunk, (((out, rng), memory), walker))| {
                // One zone per chunk: Tracy shows which worker steered what, and when.
                crate::zone!("steer chunk");
                let worker = rayon::current_thread_index().unwrap_or(0) % scratch.len();
                let mut guard = scratch[worker].lock().unwrap_or_else(|e| e.into_inner());
                let s = &mut *guard;
                s.query = None;
                let first = chunk * STEER_CHUNK;
                let rows = first..first + out.len();
                // The grid is scanned in place; the tree is queried once per chunk.
                if max_radius > 0.0
                    && ctx.index.kind() == IndexKind::KdTree
                    && rows
                        .clone()
                        .any(|r| ctx.traits[ctx.group[r] as usize].needs_neighbours)
                {
                    crate::zone!("chunk tree query");
                    // With the unit velocities only for chunks that sum from them.
                    let sums = |r: usize| ctx.traits[ctx.group[r] as usize].sums_from_candidates();
                    let dirs = (ctx.index_dirs && rows.clone().any(sums)).then_some(ctx.dir);
                    s.batch
                        .gather_with_dirs(ctx.index, (ctx.pos, dirs), rows.clone(), max_radius);
                }
                let mut k = 0;
                while k < out.len() {
                    let row = first + k;
                    let end = k + lanes::LANES;
                    // Four rows of one group with a lane program are steered together.
                    // (Lane programs read no records: one never has them, but tests force
                    // them on to compare with the record path.)
                    let traits = &ctx.traits[ctx.group[row] as usize];
                    if let (Some(program), false, Some(groups)) = (
                        traits.program,
                        traits.needs_records,
                        ctx.group.get(row..first + end),
                    ) {
                        if let (true, Some(o), Some(r), Some(m)) = (
                            groups.iter().all(|&g| g == groups[0]),
                            out.get_mut(k..end).and_then(|x| x.try_into().ok()),
                            rng.get_mut(k..end).and_then(|x| x.try_into().ok()),
                            memory.get_mut(k..end).and_then(|x| x.try_into().ok()),
                        ) {
                            steer_four(&ctx, row, &program, o, r, m, s);
                            k = end;
                            continue;
                        }
                    }
                    let m = AgentMut {
                        rng: &mut rng[k],
                        memory: &mut memory[k],
                        walker: &mut walker[k],
                    };
                    out[k] = steer_one(&ctx, row, m, s);
                    k += 1;
                }
                // The neighbour total, summed by the workers (integers: exact in
                // any order) rather than by a serial pass afterwards.
                out.iter().map(|o| u64::from(o.neighbours)).sum::<u64>()
            })
            .sum()
    }

    /// Phase 3: the one integration pass. Returns how many agents had a
    /// non-finite result replaced by their previous state.
    fn integrate(&mut self, dt: f32) -> (u64, u64) {
        crate::zone!("integrate");
        let integrator = self.config.integrator;
        let groups = &self.groups;
        let traits = &self.traits;
        let walls = &self.walls;
        let contain = !walls.is_empty();
        let Columns {
            group,
            pos,
            vel,
            dir,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            out,
            ..
        } = &mut self.cols;
        let (group, mass, max_speed, max_force, out) =
            (&*group, &*mass, &*max_speed, &*max_force, &*out);
        let step_row = |row: usize,
                        p: &mut Vec2,
                        v: &mut Vec2,
                        h: &mut f32,
                        w: &mut f32,
                        d: &mut Vec2|
         -> (u64, u64) {
            let gi = group[row] as usize;
            let g = &groups[gi];
            let o = &out[row];
            let (np, nv, nh, nw) = match g.movement {
                Movement::Kinematic => {
                    let k = KinematicOutput {
                        velocity: truncate(o.linear, max_speed[row]),
                        rotation: o
                            .angular
                            .clamp(-g.facing.max_rotation, g.facing.max_rotation),
                        heading: o.heading,
                    };
                    let (np, nh, nv, nw) = kinematic_update(*p, *h, *v, *w, &k, dt);
                    (np, nv, nh, nw)
                }
                Movement::Steering => {
                    let limits = Limits {
                        mass: mass[row],
                        max_force: max_force[row],
                        max_speed: max_speed[row],
                    };
                    let (np, nv) = integrate_linear(integrator, *p, *v, o.linear, limits, dt);
                    let (nh, nw) = if traits[gi].angular {
                        integrate_angular(integrator, *h, *w, o.angular, g.facing.max_rotation, dt)
                    } else {
                        (
                            ease_heading(*h, nv, g.facing.turn_rate, g.facing.min_speed, dt),
                            0.0,
                        )
                    };
                    (np, nv, nh, nw)
                }
            };
            if !(np.is_finite() && nv.is_finite() && nh.is_finite() && nw.is_finite()) {
                return (1u64, 0u64);
            }
            let (np, nv, crossed) = if contain {
                match walls.constrain_move(*p, np) {
                    (slid, true) => (slid, truncate((slid - *p) / dt, max_speed[row]), 1),
                    (_, false) => (np, nv, 0),
                }
            } else {
                (np, nv, 0)
            };
            *p = np;
            *v = nv;
            *d = normalize_or_zero(nv);
            *h = nh;
            *w = nw;
            (0, crossed)
        };
        // Four rows starting at `row` in lanes: bitwise the scalar path's results, or
        // `None` (nothing written) when some row is not in the lanes' common case.
        let step_lanes = |row: usize,
                          p: &mut [Vec2; LANES],
                          v: &mut [Vec2; LANES],
                          h: &mut [f32; LANES],
                          w: &mut [f32; LANES],
                          d: &mut [Vec2; LANES]|
         -> Option<u64> {
            let rows = row..row + LANES;
            let lane =
                |col: &[f32]| -> Option<[f32; LANES]> { col.get(rows.clone())?.try_into().ok() };
            let (g4, f4): (&[u16; LANES], &[SteerOut; LANES]) = (
                group.get(rows.clone())?.try_into().ok()?,
                out.get(rows.clone())?.try_into().ok()?,
            );
            // Steering groups without angular steering only. Each lane's easing rate and
            // minimum speed from its group: one lookup when the four rows share it.
            let facing = |gi: u16| {
                let gi = gi as usize;
                let f = &groups[gi].facing;
                traits[gi]
                    .lanes
                    .then(|| ((f.turn_rate * dt).min(1.0), f.min_speed * f.min_speed))
            };
            let (turn, min_speed_sq) = if g4.iter().all(|&g| g == g4[0]) {
                let (t, m) = facing(g4[0])?;
                ([t; LANES], [m; LANES])
            } else {
                let (mut t, mut m) = ([0.0; LANES], [0.0; LANES]);
                for (i, &gi) in g4.iter().enumerate() {
                    (t[i], m[i]) = facing(gi)?;
                }
                (t, m)
            };
            let b = Lanes {
                pos: *p,
                vel: *v,
                force: f4.map(|o| o.linear),
                heading: *h,
                mass: lane(mass)?,
                max_force: lane(max_force)?,
                max_speed: lane(max_speed)?,
                turn,
                min_speed_sq,
            };
            let o = integrate_lanes(integrator, &b, dt)?;
            let mut crossed = 0;
            for i in 0..LANES {
                let (mut np, mut nv, mut nd) = (o.pos[i], o.vel[i], o.dir[i]);
                if contain {
                    if let (slid, true) = walls.constrain_move(p[i], np) {
                        np = slid;
                        nv = truncate((slid - p[i]) / dt, max_speed[row + i]);
                        nd = normalize_or_zero(nv);
                        crossed += 1;
                    }
                }
                p[i] = np;
                v[i] = nv;
                d[i] = nd;
                h[i] = o.heading[i];
                w[i] = 0.0;
            }
            Some(crossed)
        };
        // Chunks of rows, each a plain loop over its slices (simpler for the
        // compiler than a five-way zip of per-row parallel iterators).
        pos.par_chunks_mut(INTEGRATE_CHUNK)
            .zip(vel.par_chunks_mut(INTEGRATE_CHUNK))
            .zip(heading.par_chunks_mut(INTEGRATE_CHUNK))
            .zip(rotation.par_chunks_mut(INTEGRATE_CHUNK))
            .zip(dir.par_chunks_mut(INTEGRATE_CHUNK))
            .enumerate()
            .map(|(chunk, ((((p, v), h), w), d))| {
                crate::zone!("integrate chunk");
                let first = chunk * INTEGRATE_CHUNK;
                let mut sum = (0, 0);
                let mut k = 0;
                while k < p.len() {
                    let end = k + LANES;
                    if let (Some(p4), Some(v4), Some(h4), Some(w4), Some(d4)) = (
                        p.get_mut(k..end).and_then(|s| s.try_into().ok()),
                        v.get_mut(k..end).and_then(|s| s.try_into().ok()),
                        h.get_mut(k..end).and_then(|s| s.try_into().ok()),
                        w.get_mut(k..end).and_then(|s| s.try_into().ok()),
                        d.get_mut(k..end).and_then(|s| s.try_into().ok()),
                    ) {
                        if let Some(c) = step_lanes(first + k, p4, v4, h4, w4, d4) {
                            sum.1 += c;
                            k = end;
                            continue;
                        }
                    }
                    let (q, c) = step_row(
                        first + k,
                        &mut p[k],
                        &mut v[k],
                        &mut h[k],
                        &mut w[k],
                        &mut d[k],
                    );
                    sum = (sum.0 + q, sum.1 + c);
                    k += 1;
                }
                sum
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }
}

fn elapsed_ns(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Read-only view of the state at the start of the tick, shared by all workers.
struct SteerCtx<'a> {
    id: &'a [AgentId],
    group: &'a [u16],
    pos: &'a [Vec2],
    vel: &'a [Vec2],
    dir: &'a [Vec2],
    heading: &'a [f32],
    rotation: &'a [f32],
    mass: &'a [f32],
    max_speed: &'a [f32],
    max_force: &'a [f32],
    radius: &'a [f32],
    target: &'a [Target],
    target2: &'a [Target],
    offset: &'a [Vec2],
    groups: &'a [GroupConfig],
    traits: &'a [GroupTraits],
    walls: &'a WallIndex,
    obstacles: &'a ObstacleIndex,
    paths: &'a [Path],
    /// Per row: the leader in whose sight it is, or [`NO_LEADER`]; empty without leaders.
    sighted_by: &'a [u32],
    slots: &'a Slots,
    index: &'a SpatialIndex,
    /// Whether the neighbour candidates carry the rows' unit velocities (a grid's
    /// entries; a tree's chunk candidates, gathered with them) for `flock_scan`.
    index_dirs: bool,
    dt: f32,
}

impl SteerCtx<'_> {
    /// What a lane group's kernel and its flocking sums read of an agent (position,
    /// velocity, heading and limits); the other fields are left at their defaults.
    #[inline(always)]
    fn lane_state(&self, row: usize) -> AgentState {
        AgentState {
            pos: self.pos[row],
            vel: self.vel[row],
            heading: self.heading[row],
            max_speed: self.max_speed[row],
            max_force: self.max_force[row],
            ..AgentState::default()
        }
    }

    fn state(&self, row: usize) -> AgentState {
        AgentState {
            rotation: self.rotation[row],
            radius: self.radius[row],
            mass: self.mass[row],
            ..self.lane_state(row)
        }
    }

    fn target_row(&self, target: Target) -> Option<usize> {
        match target {
            Target::Agent(id) => self.slots.row(id).map(|r| r as usize),
            _ => None,
        }
    }

    fn leader_view(&self, row: usize) -> LeaderView {
        LeaderView {
            body: Body {
                pos: self.pos[row],
                vel: self.vel[row],
            },
            heading: self.heading[row],
        }
    }

    fn resolve(&self, target: Target) -> Option<Body> {
        match target {
            Target::None => None,
            Target::Point(p) => Some(Body {
                pos: p,
                vel: Vec2::ZERO,
            }),
            Target::Agent(id) => self.slots.row(id).map(|r| Body {
                pos: self.pos[r as usize],
                vel: self.vel[r as usize],
            }),
        }
    }
}

/// One behaviour's contribution before weighting.
#[derive(Clone, Copy, Default)]
struct Contribution {
    /// Force (steering groups) or velocity (kinematic groups).
    linear: Vec2,
    /// Angular acceleration (steering) or rotation (kinematic).
    angular: f32,
    /// A heading to set directly (kinematic behaviours that face their motion).
    heading: Option<f32>,
}

impl Contribution {
    fn force(linear: Vec2) -> Self {
        Self {
            linear,
            ..Self::default()
        }
    }

    fn steering(s: Steering) -> Self {
        Self {
            linear: s.linear,
            angular: s.angular,
            heading: None,
        }
    }

    fn kinematic(k: KinematicOutput) -> Self {
        Self {
            linear: k.velocity,
            angular: k.rotation,
            heading: k.heading,
        }
    }

    fn is_zero(&self) -> bool {
        self.linear == Vec2::ZERO && self.angular == 0.0 && self.heading.is_none()
    }
}

/// The per-agent state a behaviour may update (each agent its own row).
struct AgentMut<'a> {
    rng: &'a mut AgentRng,
    memory: &'a mut Memory,
    walker: &'a mut WalkerState,
}

/// The behaviour dispatch of one agent: what `steer_one` knows of the agent, its
/// target and its neighbours, with the per-agent memory it may update. A method
/// marked `inline(always)` rather than a closure, so that the dispatch is compiled
/// into each combination's loop instead of being called once per behaviour.
struct Dispatch<'c, 'a> {
    ctx: &'c SteerCtx<'a>,
    row: usize,
    me: AgentState,
    my_key: u32,
    target: Option<Body>,
    target_row: Option<usize>,
    neighbours: &'c [Neighbour],
    flock: Option<(FlockForces, SeparationParams)>,
    memory: &'c mut Memory,
    walker: &'c mut WalkerState,
}

impl Dispatch<'_, '_> {
    /// One behaviour's contribution before weighting.
    #[inline(always)]
    fn eval(&mut self, b: &Behaviour, rng: &mut AgentRng) -> Contribution {
        // Fields are read where an arm needs them, not copied out up front: this runs
        // once per behaviour of every agent.
        let (ctx, row, my_key) = (self.ctx, self.row, self.my_key);
        let (target, target_row, flock) = (&self.target, self.target_row, &self.flock);
        let me = &self.me;
        let neighbours = self.neighbours;
        let memory = &mut *self.memory;
        let walker = &mut *self.walker;
        // A generic function rather than a closure over `&dyn Fn`: each arm's force is
        // compiled in place instead of called through a vtable.
        #[inline(always)]
        fn on_target(target: &Option<Body>, f: impl FnOnce(Body) -> Vec2) -> Contribution {
            Contribution::force(target.map_or(Vec2::ZERO, f))
        }
        match b {
            Behaviour::Seek => on_target(target, |t| seek(me, t.pos)),
            Behaviour::Flee(p) => on_target(target, |t| flee(me, t.pos, p)),
            Behaviour::Arrive(p) => on_target(target, |t| arrive(me, t.pos, p)),
            Behaviour::Pursuit => on_target(target, |t| pursuit(me, &t)),
            Behaviour::Evade(p) => on_target(target, |t| evade(me, &t, p)),
            Behaviour::Wander(p) => {
                let (force, local) = wander(me, memory.wander, p, ctx.dt, rng);
                memory.wander = local;
                Contribution::force(force)
            }
            Behaviour::Separation(p) => Contribution::force(match flock {
                Some((f, fp)) if fp == p => f.separation,
                _ => separation(me, my_key, neighbours, p),
            }),
            Behaviour::Cohesion => Contribution::force(match flock {
                Some((f, _)) => f.cohesion,
                None => cohesion(me, neighbours),
            }),
            Behaviour::Alignment => Contribution::force(match flock {
                Some((f, _)) => f.alignment,
                None => alignment(me, neighbours),
            }),
            Behaviour::Approach(p) => match target {
                Some(t) => {
                    let (force, next) = approach_step(me, t.pos, walker, p, rng);
                    *walker = next;
                    Contribution::force(force)
                }
                None => Contribution::default(),
            },
            Behaviour::Align(p) => target_row.map_or_else(Contribution::default, |r| {
                Contribution::steering(align(me, ctx.heading[r], p))
            }),
            Behaviour::Face(p) => target.map_or_else(Contribution::default, |t| {
                Contribution::steering(face(me, t.pos, p))
            }),
            Behaviour::LookWhereYouAreGoing(p) => {
                Contribution::steering(look_where_you_are_going(me, p))
            }
            Behaviour::VelocityMatch(p) => target.map_or_else(Contribution::default, |t| {
                Contribution::steering(velocity_match(me, t.vel, p))
            }),
            Behaviour::KinematicSeek => target.map_or_else(Contribution::default, |t| {
                Contribution::kinematic(kinematic_seek(me, t.pos))
            }),
            Behaviour::KinematicFlee => target.map_or_else(Contribution::default, |t| {
                Contribution::kinematic(kinematic_flee(me, t.pos))
            }),
            Behaviour::KinematicArrive(p) => target.map_or_else(Contribution::default, |t| {
                Contribution::kinematic(kinematic_arrive(me, t.pos, p))
            }),
            Behaviour::KinematicWander(p) => Contribution::kinematic(kinematic_wander(me, p, rng)),
            Behaviour::WallAvoidance(p) => Contribution::force(wall_avoidance(me, ctx.walls, p)),
            Behaviour::ObstacleAvoidance(p) => {
                Contribution::force(obstacle_avoidance(me, ctx.obstacles, p))
            }
            Behaviour::FollowPath { path, params } => match ctx.paths.get(path.index()) {
                Some(path) => {
                    let (force, progress) = follow_path(me, path, memory.path_progress, params);
                    memory.path_progress = progress;
                    Contribution::force(force)
                }
                None => Contribution::default(),
            },
            Behaviour::Interpose(p) => match (target, ctx.resolve(ctx.target2[row])) {
                (Some(a), Some(b)) => Contribution::force(interpose(me, a, &b, p)),
                _ => Contribution::default(),
            },
            Behaviour::Hide(p) => on_target(target, |hunter| hide(me, &hunter, ctx.obstacles, p)),
            Behaviour::OffsetPursuit(p) => target_row.map_or_else(Contribution::default, |lr| {
                let leader = ctx.leader_view(lr);
                Contribution::force(offset_pursuit(me, &leader, ctx.offset[row], p))
            }),
            Behaviour::LeaderFollow { leader, separation } => {
                let seen_by = ctx.sighted_by.get(row).copied().unwrap_or(NO_LEADER);
                let mut force = Vec2::ZERO;
                if let Some(lr) = target_row {
                    let sight = if seen_by == lr as u32 {
                        LeaderSight::InSight
                    } else {
                        LeaderSight::OutOfSight
                    };
                    let view = ctx.leader_view(lr);
                    force +=
                        leader_follow(me, my_key, &view, sight, neighbours, separation, leader);
                }
                if seen_by != NO_LEADER && Some(seen_by as usize) != target_row {
                    // In the way of another squad's leader: step aside too.
                    force += evade(me, &ctx.leader_view(seen_by as usize).body, &leader.evade);
                }
                Contribution::force(force)
            }
            Behaviour::GiveWay(p) => match ctx.sighted_by.get(row).copied().unwrap_or(NO_LEADER) {
                NO_LEADER => Contribution::default(),
                lr => Contribution::force(evade(me, &ctx.leader_view(lr as usize).body, p)),
            },
        }
    }
}

/// The neighbour part of one agent's steering: its neighbours scanned from the index
/// (their records filled into `s.neighbours` when some behaviour reads them), and the
/// flocking sums of its group. Returns the sums (with their separation parameters)
/// and the neighbour count.
#[inline(always)]
fn neighbour_part(
    ctx: &SteerCtx<'_>,
    row: usize,
    me: &AgentState,
    s: &mut SteerScratch,
) -> (Option<(FlockForces, SeparationParams)>, usize) {
    neighbour_part_of(ctx, ctx.group[row] as usize, row, me, s, None)
}

/// [`neighbour_part`] for a row of group `g_idx` (known to the caller), with the
/// group's neighbour query when the caller made it already.
#[inline(always)]
fn neighbour_part_of(
    ctx: &SteerCtx<'_>,
    g_idx: usize,
    row: usize,
    me: &AgentState,
    s: &mut SteerScratch,
    query: Option<&ScanQuery>,
) -> (Option<(FlockForces, SeparationParams)>, usize) {
    let g = &ctx.groups[g_idx];
    let traits = &ctx.traits[g_idx];
    let my_key = ctx.id[row].index();
    s.neighbours.clear();
    if !traits.needs_neighbours {
        return (None, 0);
    }
    let q = match query {
        Some(q) => *q,
        // One query per run of rows of one group (see `scan`).
        None => match s.query {
            Some((gi, q)) if gi == g_idx => q,
            _ => {
                let q = ScanQuery::new(ctx.index, g.neighbour_radius, g.max_neighbours);
                s.query = Some((g_idx, q));
                q
            }
        },
    };
    if !traits.needs_records {
        // Only the flocking sums read the neighbours: the forces of the sums.
        let (sums, count) = column_sums(ctx, traits, row, s, &q, query.is_some());
        let forces = sums.map(|(sums, p)| {
            let forces = if traits.flock_all {
                flock_from_sums(
                    me,
                    sums.count,
                    (sums.push, sums.headings, sums.positions),
                    &p,
                )
            } else {
                FlockForces {
                    separation: sums.push * p.strength,
                    ..FlockForces::default()
                }
            };
            (forces, p)
        });
        return (forces, count);
    }
    let rows = match query {
        Some(q) => s.batch.scan_query(ctx.index, ctx.pos, row, q),
        // Out of line (see `scan`).
        None => s.batch.scan_prepared(ctx.index, ctx.pos, row, &q),
    };
    let count = rows.len();
    s.neighbours.extend(rows.iter().map(|&r| Neighbour {
        pos: ctx.pos[r as usize],
        vel: ctx.vel[r as usize],
        dir: ctx.dir[r as usize],
        key: ctx.id[r as usize].index(),
    }));
    let Some(p) = traits.flock else {
        return (None, count);
    };
    let forces = if traits.flock_all {
        flock_forces(me, my_key, &s.neighbours, &p)
    } else {
        FlockForces {
            separation: separation(me, my_key, &s.neighbours, &p),
            ..FlockForces::default()
        }
    };
    (Some((forces, p)), count)
}

/// The flocking sums of a row of a group whose neighbours are read by nothing else (no
/// records): in one pass over the neighbour candidates when they carry unit velocities
/// ([`BatchNeighbours::flock_scan`]), otherwise over the scanned neighbours straight
/// from the columns (bitwise the sums [`flock_forces`] makes of records); with the
/// neighbour count. The scan is inlined with `inline_scan`, out of line otherwise.
#[inline(always)]
fn column_sums(
    ctx: &SteerCtx<'_>,
    traits: &GroupTraits,
    row: usize,
    s: &mut SteerScratch,
    q: &ScanQuery,
    inline_scan: bool,
) -> (Option<(FlockSums, SeparationParams)>, usize) {
    if let (Some(p), true) = (
        &traits.flock,
        ctx.index_dirs && traits.sums_from_candidates(),
    ) {
        let sep = (
            p.radius * p.radius,
            MIN_SEPARATION_DIST * MIN_SEPARATION_DIST,
        );
        if let Some(sums) = s.batch.flock_scan(ctx.index, ctx.pos, row, q, sep) {
            return (Some((sums, *p)), sums.count);
        }
    }
    let rows = if inline_scan {
        s.batch.scan_query(ctx.index, ctx.pos, row, q)
    } else {
        s.batch.scan_prepared(ctx.index, ctx.pos, row, q)
    };
    let count = rows.len();
    let Some(p) = traits.flock else {
        return (None, count);
    };
    let (at, my_key) = (ctx.pos[row], ctx.id[row].index());
    let row_of = |i: usize| rows[i] as usize;
    let key = |i: usize| ctx.id[row_of(i)].index();
    let sums = if traits.flock_all {
        let get = |i: usize| (ctx.pos[row_of(i)], ctx.dir[row_of(i)]);
        let (push, headings, positions) = flock_sums_raw(at, my_key, count, get, key, &p);
        FlockSums {
            count,
            push,
            headings,
            positions,
        }
    } else {
        let pos = |i: usize| ctx.pos[row_of(i)];
        FlockSums {
            count,
            push: separation_push(at, my_key, count, pos, key, &p),
            ..FlockSums::default()
        }
    };
    (Some((sums, p)), count)
}

/// The steering kernel of four consecutive agents of one group with a lane program
/// ([`lanes::Program`]): neighbours and random draws per agent, the rest in vector
/// lanes. Bitwise the same outputs, generator states and memories as [`steer_one`]
/// on each of them.
fn steer_four(
    ctx: &SteerCtx<'_>,
    row: usize,
    program: &lanes::Program,
    out: &mut [SteerOut; lanes::LANES],
    rng: &mut [AgentRng; lanes::LANES],
    memory: &mut [Memory; lanes::LANES],
    s: &mut SteerScratch,
) {
    let mut input = lanes::Input::default();
    let mut counts = [0u32; lanes::LANES];
    let wander = program.wander();
    // The four rows are of one group: one neighbour query for them.
    let g_idx = ctx.group[row] as usize;
    let (g, traits) = (&ctx.groups[g_idx], &ctx.traits[g_idx]);
    let q = ScanQuery::new(ctx.index, g.neighbour_radius, g.max_neighbours);
    input.strength = traits.flock.map_or(0.0, |p| p.strength);
    for i in 0..lanes::LANES {
        let r = row + i;
        let me = ctx.lane_state(r);
        // The flocking sums; the lanes make the forces of them.
        let (sums, count) = if traits.needs_neighbours {
            column_sums(ctx, traits, r, s, &q, true)
        } else {
            (None, 0)
        };
        counts[i] = count as u32;
        input.pos.set(i, me.pos);
        input.vel.set(i, me.vel);
        input.heading[i] = me.heading;
        input.max_speed[i] = me.max_speed;
        input.max_force[i] = me.max_force;
        let target = ctx.resolve(ctx.target[r]).map(|t| t.pos);
        input.set_target_and_sums(i, target, &sums.map(|(f, _)| f).unwrap_or_default());
        if let Some(p) = wander {
            // `jitter_target`'s draws, in its order.
            let step = p.jitter * ctx.dt;
            let rng = &mut rng[i];
            let jitter = Vec2::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0)) * step;
            input.wander_prev.set(i, memory[i].wander);
            input.wander_jitter.set(i, jitter);
        }
    }
    let o = lanes::steer(program, &input);
    for i in 0..lanes::LANES {
        if wander.is_some() {
            memory[i].wander = o.wander[i];
        }
        out[i] = SteerOut {
            linear: o.force[i],
            angular: 0.0,
            heading: None,
            neighbours: counts[i],
        };
    }
}

/// The steering kernel of one agent: shared by the parallel pass and by tests.
fn steer_one(ctx: &SteerCtx<'_>, row: usize, m: AgentMut<'_>, s: &mut SteerScratch) -> SteerOut {
    let g_idx = ctx.group[row] as usize;
    let g = &ctx.groups[g_idx];
    let me = ctx.state(row);
    let my_key = ctx.id[row].index();
    let (flock, count) = neighbour_part(ctx, row, &me, s);
    let target_row = ctx.target_row(ctx.target[row]);
    let target = ctx.resolve(ctx.target[row]);
    let AgentMut {
        rng,
        memory,
        walker,
    } = m;
    let neighbours = &s.neighbours;
    let mut dispatch = Dispatch {
        ctx,
        row,
        me,
        my_key,
        target,
        target_row,
        neighbours,
        flock,
        memory,
        walker,
    };
    let out = match (g.movement, g.combination) {
        // Kinematic groups: weighted sum of velocities and rotations; the first
        // behaviour that sets a heading sets it. The integrator clamps speed.
        (Movement::Kinematic, _) => {
            let mut sum = Contribution::default();
            for b in &g.behaviours {
                let c = dispatch.eval(&b.behaviour, rng);
                sum.linear += c.linear * b.weight;
                sum.angular += c.angular * b.weight;
                sum.heading = sum.heading.or(c.heading);
            }
            sum
        }
        (Movement::Steering, Combination::WeightedSum) => {
            let mut sum = Contribution::default();
            for b in &g.behaviours {
                let c = dispatch.eval(&b.behaviour, rng);
                sum.linear += c.linear * b.weight;
                sum.angular += c.angular * b.weight;
            }
            sum.linear = truncate(sum.linear, me.max_force);
            sum
        }
        (Movement::Steering, Combination::Prioritized) => {
            let mut sum = Contribution::default();
            for b in &g.behaviours {
                let c = dispatch.eval(&b.behaviour, rng);
                sum.angular += c.angular * b.weight;
                if !accumulate_force(&mut sum.linear, c.linear * b.weight, me.max_force) {
                    break;
                }
            }
            sum
        }
        (Movement::Steering, Combination::Dithered) => {
            let mut chosen = Contribution::default();
            for b in &g.behaviours {
                if b.probability > 0.0 && dither_pick(rng, b.probability) {
                    let c = dispatch.eval(&b.behaviour, rng);
                    if !c.is_zero() {
                        let scale = b.weight / b.probability;
                        chosen.linear = truncate(c.linear * scale, me.max_force);
                        chosen.angular = c.angular * scale;
                        break;
                    }
                }
            }
            chosen
        }
    };
    SteerOut {
        linear: if out.linear.is_finite() {
            out.linear
        } else {
            Vec2::ZERO
        },
        angular: if out.angular.is_finite() {
            out.angular
        } else {
            0.0
        },
        heading: out.heading.filter(|h| h.is_finite()),
        neighbours: count as u32,
    }
}

/// Whether a group's behaviours include the approach walker (the only writer of the
/// walker column).
fn uses_walker(config: &GroupConfig) -> bool {
    config
        .behaviours
        .iter()
        .any(|b| matches!(b.behaviour, Behaviour::Approach(_)))
}

/// FNV-1a over 64 bits.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn u64(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn f32(&mut self, v: f32) {
        self.u64(v.to_bits() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviors::wander::WanderParams;
    use crate::group::WeightedBehaviour;
    use crate::{AgentSpec, Behaviour};

    /// A dense crowd whose group's neighbours are only read as sums (without
    /// records) and, when `records`, the same crowd made to build neighbour records
    /// and compute its forces on them.
    fn crowd(records: bool, index: IndexKind, flocking: bool) -> World {
        let mut w = World::new(WorldConfig {
            seed: 7,
            index,
            ..WorldConfig::default()
        });
        let mut group = GroupConfig::new("boids")
            .with(Behaviour::Separation(SeparationParams::default()), 1.5)
            .with(Behaviour::Wander(WanderParams::default()), 0.3)
            .neighbours(3.0, 6);
        if flocking {
            group = group
                .with(Behaviour::Alignment, 0.5)
                .with(Behaviour::Cohesion, 0.5);
        }
        let g = w.add_group(group).unwrap();
        for i in 0..600 {
            // Some coincident pairs, so the key of a neighbour is read too.
            let k = (i / 2) as f32;
            let p = Vec2::new((k * 0.37) % 14.0, (k * 0.61) % 11.0);
            w.spawn(AgentSpec::new(g, p)).unwrap();
        }
        assert!(!w.traits[0].needs_records);
        assert_eq!(w.traits[0].flock_all, flocking);
        w.traits[0].needs_records = records;
        w
    }

    #[test]
    fn lane_steering_equals_the_scalar_path() {
        // The crowd of `crowd` plus a seek with every kind of target (a point, another
        // agent, the agent's own spot, none), some agents still at first (forward from
        // the heading), some with no force to spare: four rows at a time through the
        // lane program, and one at a time through the dispatch, give the same states.
        let build = |index, flocking, lanes: bool| {
            let mut w = crowd(false, index, flocking);
            let mut g = w.groups[0].clone();
            g.behaviours.push(WeightedBehaviour {
                behaviour: Behaviour::Seek,
                weight: 0.7,
                probability: 1.0,
            });
            w.set_group(GroupId(0), g).unwrap();
            let ids = w.ids().to_vec();
            for (i, &id) in ids.iter().enumerate() {
                let target = match i % 5 {
                    0 => Target::Point(Vec2::new(7.0, 5.0)),
                    1 => Target::Agent(ids[(i * 7) % ids.len()]),
                    2 => Target::Point(w.position(id).unwrap()),
                    _ => Target::None,
                };
                w.set_target(id, target).unwrap();
                if i % 3 == 0 {
                    w.set_velocity(id, Vec2::new(0.3, -0.2)).unwrap();
                }
                if i % 11 == 0 {
                    w.set_limits(id, 1.0, 2.0, 0.0).unwrap();
                }
            }
            assert!(w.traits[0].program.is_some());
            if !lanes {
                w.traits[0].program = None;
            }
            w
        };
        for index in [IndexKind::KdTree, IndexKind::Grid] {
            for flocking in [true, false] {
                let mut a = build(index, flocking, true);
                let mut b = build(index, flocking, false);
                for _ in 0..40 {
                    a.step(0.05).unwrap();
                    b.step(0.05).unwrap();
                    assert_eq!(a.state_hash(), b.state_hash(), "{index:?} {flocking}");
                }
            }
        }
    }

    #[test]
    fn neighbour_sums_without_records_equal_the_record_path() {
        for index in [IndexKind::KdTree, IndexKind::Grid] {
            for flocking in [true, false] {
                let mut a = crowd(false, index, flocking);
                let mut b = crowd(true, index, flocking);
                for _ in 0..40 {
                    let sa = a.step(0.05).unwrap();
                    let sb = b.step(0.05).unwrap();
                    assert_eq!(sa.neighbours, sb.neighbours);
                    assert!(sa.neighbours > 0);
                    assert_eq!(a.state_hash(), b.state_hash(), "{index:?} {flocking}");
                }
            }
        }
    }

    #[test]
    fn candidate_flock_sums_follow_the_record_path_closely() {
        // A sparse crowd (no coincident agents, fewer neighbours than the cap): the
        // flocking sums are read from the candidates (a grid's entries, a tree's chunk
        // candidates), in lanes; with the records forced on, summed from the records in
        // scan order. The same up to rounding after 10 ticks; and the lane kernel equals
        // the per-row one bitwise over 40.
        let build = |index: IndexKind, records: bool, lanes: bool| {
            let mut w = World::new(WorldConfig {
                seed: 3,
                index,
                ..WorldConfig::default()
            });
            let group = GroupConfig::new("boids")
                .with(Behaviour::Separation(SeparationParams::default()), 1.5)
                .with(Behaviour::Alignment, 0.5)
                .with(Behaviour::Cohesion, 0.5)
                .with(Behaviour::Wander(WanderParams::default()), 0.3)
                .neighbours(3.0, 12);
            let g = w.add_group(group).unwrap();
            // About one agent per 4 square units: some 7 within the radius.
            let mut rng = crate::rng::agent_rng(9, 9);
            for _ in 0..400 {
                let p = Vec2::new(uniform(&mut rng, 0.0, 40.0), uniform(&mut rng, 0.0, 40.0));
                let v = Vec2::new(uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0));
                w.spawn(AgentSpec::new(g, p).with_velocity(v)).unwrap();
            }
            w.traits[0].needs_records = records;
            if !lanes {
                w.traits[0].program = None;
            }
            w
        };
        for index in [IndexKind::Grid, IndexKind::KdTree] {
            let (mut a, mut b, mut c) = (
                build(index, false, true),
                build(index, true, true),
                build(index, false, false),
            );
            assert!(a.sums_from_candidates() && !b.sums_from_candidates());
            for tick in 0..40 {
                let (sa, sb) = (a.step(0.05).unwrap(), b.step(0.05).unwrap());
                c.step(0.05).unwrap();
                assert_eq!(a.state_hash(), c.state_hash(), "{index:?}");
                if tick == 0 {
                    // From the same state: the same neighbours.
                    assert_eq!(sa.neighbours, sb.neighbours, "{index:?}");
                    // Most rows take the candidates' sums (on an index of the current
                    // positions, chunks gathered as the steering pass gathers them).
                    a.index
                        .rebuild_with_dirs(&a.cols.pos, Some(&a.cols.dir), 3.0);
                    let q = ScanQuery::new(&a.index, 3.0, 12);
                    let p = SeparationParams::default();
                    let sep = (
                        p.radius * p.radius,
                        MIN_SEPARATION_DIST * MIN_SEPARATION_DIST,
                    );
                    let mut batch = BatchNeighbours::new();
                    let mut summed = 0;
                    for first in (0..a.len()).step_by(STEER_CHUNK) {
                        let rows = first..(first + STEER_CHUNK).min(a.len());
                        let cols = (&a.cols.pos[..], Some(&a.cols.dir[..]));
                        batch.gather_with_dirs(&a.index, cols, rows.clone(), 3.0);
                        summed += rows
                            .filter(|&r| {
                                batch
                                    .flock_scan(&a.index, &a.cols.pos, r, &q, sep)
                                    .is_some()
                            })
                            .count();
                    }
                    assert!(
                        summed * 10 > a.len() * 9,
                        "{index:?}: {summed} of {}",
                        a.len()
                    );
                }
                if tick == 9 {
                    // Rounding apart only (later, a neighbour crossing the radius in one
                    // run and not the other lets them drift further).
                    for &id in a.ids() {
                        let (pa, pb) = (a.position(id).unwrap(), b.position(id).unwrap());
                        assert!((pa - pb).length() < 1e-4, "{index:?}: {pa} {pb}");
                    }
                }
            }
        }
    }

    #[test]
    fn only_neighbour_behaviours_outside_the_sums_need_records() {
        let traits = |behaviours: &[Behaviour]| {
            let mut g = GroupConfig::new("g");
            for b in behaviours {
                g = g.with(b.clone(), 1.0);
            }
            GroupTraits::of(&g).needs_records
        };
        let sep = Behaviour::Separation(SeparationParams::default());
        let avg = Behaviour::Separation(SeparationParams {
            kind: SeparationKind::Average,
            ..SeparationParams::default()
        });
        assert!(!traits(&[
            sep.clone(),
            Behaviour::Alignment,
            Behaviour::Seek
        ]));
        assert!(!traits(&[Behaviour::Cohesion, Behaviour::Alignment]));
        // A lone inverse-distance separation is summed too; a lone cohesion or
        // alignment is computed on records.
        assert!(!traits(std::slice::from_ref(&sep)));
        assert!(traits(&[Behaviour::Cohesion]));
        assert!(traits(&[Behaviour::Alignment, Behaviour::Seek]));
        // The average formula, or a second separation with other parameters.
        assert!(traits(&[avg.clone(), Behaviour::Alignment]));
        assert!(traits(std::slice::from_ref(&avg)));
        assert!(traits(&[sep, Behaviour::Alignment, avg]));
        assert!(!traits(&[
            Behaviour::Seek,
            Behaviour::Wander(WanderParams::default())
        ]));
    }
}
