//! The world: agents, their groups, the static scene, and the tick pipeline.
//!
//! [`World::step`] is the table of contents of a tick (`tick.rs`); each stage lives in
//! a file of its own and is one named call there, in this order and no other:
//! 1. **re-sort** (`tick.rs`), when due: rows in spatial order (the index's own), so
//!    neighbours are near in memory;
//! 2. **rebuild the index** (`tick.rs`): a k-d tree (or grid) over every position;
//! 3. **leader sight** (`sight.rs`): leaders mark the agents in their sight;
//! 4. **steer** (`steer.rs` builds the context; the stage itself is `src/steer/`):
//!    every agent's steering output, in parallel, from the state as it was at the
//!    start of the tick; each agent writes only its own output row;
//! 5. **integrate** (`integrate.rs`): one pass, the only writer of positions and
//!    velocities.
//!
//! The public API is here (groups, scene, queries) and in `agents.rs` (spawning,
//! reading and writing agents). `docs/architecture.md` shows who reads and writes
//! which column.

mod agents;
pub(crate) mod arrival;
mod debug;
mod integrate;
mod queries;
mod sight;
mod snapshot;
mod steer;
mod tick;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use rayon::ThreadPool;

use crate::agents::{AgentId, Columns, Cycles, GroupId, Slots};
use crate::error::{Result, ThrongError};
use crate::group::{Behaviour, FieldId, GroupConfig, PathId};
use crate::integrate::Integrator;
use crate::scene::{FieldSpec, GoalField, Obstacle, ObstacleIndex, Path, Wall, WallIndex};
use crate::spatial::{IndexKind, OrderScratch, SpatialIndex};
use crate::steer::plan::GroupPlan;

pub use crate::steer::LevelOfDetail;
pub use arrival::{Arrival, ArrivalEvent, LEAVE_RADII, STUCK_SECONDS, STUCK_SPEED_FRACTION};
pub use debug::{DebugCircle, DebugDraw, DebugKind, DebugLine, DebugPoint};
pub use sight::SightEvent;
use sight::SightScratch;
pub use snapshot::{Snapshot, SNAPSHOT_VERSION};
pub use tick::{PhaseTimes, TickStats, TELEPORT_RADII};

/// The most workers [`thread_pool`] starts.
pub const MAX_THREADS: usize = 1024;

/// A pool of `threads` workers for [`World::set_thread_pool`]; `None` (the global
/// pool) for 0.
///
/// # Errors
/// [`ThrongError::InvalidParameter`] for more than [`MAX_THREADS`], or when the
/// system cannot start them.
pub fn thread_pool(threads: usize) -> Result<Option<Arc<ThreadPool>>> {
    let refuse = |reason: String| ThrongError::InvalidParameter {
        field: "threads".into(),
        reason,
    };
    if threads == 0 {
        return Ok(None);
    }
    if threads > MAX_THREADS {
        return Err(refuse(format!(
            "must be at most {MAX_THREADS}, got {threads}"
        )));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map(|pool| Some(Arc::new(pool)))
        .map_err(|e| refuse(format!("cannot start {threads} threads: {e}")))
}

/// World-wide settings.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorldConfig {
    /// Seed of every per-agent random stream. Default 0.
    pub seed: u64,
    /// The integrator. Default semi-implicit Euler.
    pub integrator: Integrator,
    /// The neighbour index. Default the k-d tree.
    pub index: IndexKind,
    /// Re-sort the rows spatially every this many ticks, so neighbours are near in
    /// memory (0 = never). Handles are unaffected. Default
    /// [`DEFAULT_REORDER_INTERVAL`]. The step that re-sorts costs more than the others
    /// (the flock on two threads: about 1.8× the median tick at 100,000 agents on the
    /// grid, 2× at 1,000,000; README, "Limits").
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

/// A group slot's state: how many groups held it before, and whether its group was
/// removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct GroupSlot {
    pub generation: u16,
    pub removed: bool,
}

/// A crowd: agents, their groups, and the pipeline that steps them.
///
/// No global state: any number of worlds may live side by side, each stepping on
/// the global rayon pool or on a pool it is given ([`World::set_thread_pool`]).
///
/// ```
/// use throng::prelude::*;
///
/// let mut world = World::new(WorldConfig { seed: 7, ..WorldConfig::default() });
/// let arrive = ArriveParams { slowing_radius: 2.0, ..ArriveParams::default() };
/// let walkers = world.add_group(GroupConfig::new("walkers").with(Behaviour::Arrive(arrive), 1.0))?;
/// let goal = Vec2::new(10.0, 0.0);
/// let id = world.spawn(AgentSpec::new(walkers, Vec2::ZERO).with_target(Target::Point(goal)))?;
/// for _ in 0..600 {
///     world.step(1.0 / 30.0)?;
/// }
/// assert!(world.position(id)?.distance(goal) < 0.1);
/// # Ok::<(), ThrongError>(())
/// ```
pub struct World {
    config: WorldConfig,
    /// Every group slot, by [`GroupId`] index, removed groups' included (until a later
    /// group takes the slot; `group_slots` says which).
    groups: Vec<GroupConfig>,
    /// What the pipeline needs to know of each group, derived from its config.
    plans: Vec<GroupPlan>,
    /// Per group slot: its generation, and whether its group was removed
    /// ([`World::remove_group`]).
    group_slots: Vec<GroupSlot>,
    walls: WallIndex,
    obstacles: ObstacleIndex,
    /// Every path added, by [`PathId`] index; `None` once removed (ids are not
    /// reused).
    paths: Vec<Option<Path>>,
    /// By field id; `None` where a field was removed. Rebuilt whenever the walls or
    /// obstacles change.
    fields: Vec<Option<Arc<GoalField>>>,
    /// Per row: the handle of the leader whose sight the agent is in (`NO_LEADER`
    /// when none), marked each tick by the leader sight phase; empty when no group
    /// has a leader. Rows past its end (spawned since) are in no sight. A handle,
    /// not a row, so that it stays true when rows move between ticks: a despawn
    /// moves this entry with its row ([`World::despawn`]).
    sighted_by: Vec<AgentId>,
    /// Scratch of the leader sight phase, reused every tick.
    sight: SightScratch,
    cols: Columns,
    /// Level of detail around a point: agents far from it steer less often.
    lod: Option<LevelOfDetail>,
    /// The re-sort's permutation cycles, to put the columns in order in place.
    cycles: Cycles,
    slots: Slots,
    index: SpatialIndex,
    order_scratch: OrderScratch,
    /// Rows appended or moved by spawns, despawns and teleports ([`TELEPORT_RADII`])
    /// since the last re-sort: past [`tick::RESORT_AFTER_DISTURBED`], the next tick
    /// re-sorts early (with the k-d tree).
    disturbed: usize,
    scratch: Vec<crate::steer::WorkerScratch>,
    /// The arrival changes of the last tick.
    arrival_events: Vec<ArrivalEvent>,
    /// Whether the last tick's arrival found every agent without an aim and its
    /// arrival memory at rest, so that the next would change nothing while no target
    /// is given and no agent spawned (both clear it) and no group follows a field or
    /// agent a path (checked every tick): a crowd without targets pays nothing for arrival.
    arrival_quiet: bool,
    /// The leader-sight changes of the last tick.
    sight_events: Vec<SightEvent>,
    /// The index of the gameplay queries, over the current positions.
    queries: queries::QueryIndex,
    pool: Option<Arc<ThreadPool>>,
    tick: u64,
    last: TickStats,
    /// The `dt` of the last tick (0 before the first), for debug drawing.
    last_dt: f32,
    /// Seconds stepped so far (the sum of the ticks' `dt`, in f64): the clock of
    /// whatever a host moves with time, kept in snapshots.
    elapsed: f64,
    /// Why a tick panicked, if one did: the columns may be half-written then, so every
    /// later step is refused until a snapshot is restored.
    panicked: Option<String>,
    /// Tests only: panic in the middle of the next tick.
    #[cfg(test)]
    panic_next_tick: bool,
}

impl std::fmt::Debug for World {
    /// A summary: agents, groups, scene and tick (not every column).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("tick", &self.tick)
            .field("agents", &self.cols.len())
            .field(
                "groups",
                &self
                    .groups()
                    .map(|(_, g)| g.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("walls", &self.walls().len())
            .field("obstacles", &self.obstacles().len())
            .field("paths", &self.paths().count())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
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
            plans: Vec::new(),
            group_slots: Vec::new(),
            walls: WallIndex::default(),
            obstacles: ObstacleIndex::default(),
            paths: Vec::new(),
            fields: Vec::new(),
            sighted_by: Vec::new(),
            sight: SightScratch::default(),
            cols: Columns::default(),
            lod: None,
            cycles: Cycles::default(),
            slots: Slots::new(crate::agents::WorldTag::fresh()),
            index,
            order_scratch: OrderScratch::default(),
            disturbed: 0,
            scratch: Vec::new(),
            arrival_events: Vec::new(),
            arrival_quiet: false,
            sight_events: Vec::new(),
            queries: queries::QueryIndex::default(),
            pool: None,
            tick: 0,
            last: TickStats::default(),
            last_dt: 0.0,
            elapsed: 0.0,
            panicked: None,
            #[cfg(test)]
            panic_next_tick: false,
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

    /// Add a group; its behaviours are validated. It takes the lowest slot a removed
    /// group left (with the slot's next generation, so that the removed group's id
    /// stays dead), else a new one.
    ///
    /// # Errors
    /// A behaviour's validation error; [`ThrongError::Capacity`] with 65,535 groups
    /// alive (or every slot's generations used up).
    pub fn add_group(&mut self, config: GroupConfig) -> Result<GroupId> {
        self.validate_group(&config)?;
        let plan = GroupPlan::of(&config);
        let free = self
            .group_slots
            .iter()
            .position(|s| s.removed && s.generation < u16::MAX);
        let index = match free {
            Some(i) => i,
            None => self.groups.len(),
        };
        let id = u16::try_from(index)
            .ok()
            .filter(|&i| i != u16::MAX)
            .ok_or(ThrongError::Capacity("groups"))?;
        if plan.walks {
            self.cols.start_walking();
        }
        if free.is_some() {
            let slot = &mut self.group_slots[index];
            *slot = GroupSlot {
                generation: slot.generation + 1,
                removed: false,
            };
            self.plans[index] = plan;
            self.groups[index] = config;
        } else {
            self.plans.push(plan);
            self.groups.push(config);
            self.group_slots.push(GroupSlot::default());
        }
        Ok(self.group_id(id))
    }

    /// Replace a group's configuration (takes effect next tick).
    pub fn set_group(&mut self, group: GroupId, config: GroupConfig) -> Result<()> {
        self.validate_group(&config)?;
        self.live_group(group)?;
        let plan = GroupPlan::of(&config);
        if plan.walks {
            self.cols.start_walking();
        }
        if plan.avoidance.is_none() {
            // Only an avoiding group's steering writes its agents' queue flags.
            let rows = self.cols.group.iter().zip(&mut self.cols.arrival);
            for (_, m) in rows.filter(|(&g, _)| g == group.index) {
                m.queued = false;
            }
        }
        self.plans[group.index()] = plan;
        self.groups[group.index()] = config;
        Ok(())
    }

    /// Remove a group: its agents are despawned (their handles go stale, and agents
    /// targeting them lose their target), and its id names no group from then on (a
    /// later group may take its slot, with another generation: a new id).
    ///
    /// ```
    /// use throng::prelude::*;
    ///
    /// let mut world = World::default();
    /// let extras = world.add_group(GroupConfig::new("extras"))?;
    /// let walker = world.spawn(AgentSpec::new(extras, Vec2::ZERO))?;
    /// world.remove_group(extras)?;
    /// assert!(!world.contains(walker));
    /// assert!(world.group(extras).is_none());
    /// # Ok::<(), ThrongError>(())
    /// ```
    ///
    /// # Errors
    /// [`ThrongError::UnknownGroup`] for a group this world does not have (or no
    /// longer has).
    pub fn remove_group(&mut self, group: GroupId) -> Result<()> {
        self.live_group(group)?;
        let gone: Vec<AgentId> = (0..self.cols.len())
            .filter(|&r| usize::from(self.cols.group[r]) == group.index())
            .map(|r| self.cols.id[r])
            .collect();
        self.despawn_many(&gone)?;
        self.group_slots[group.index()].removed = true;
        Ok(())
    }

    /// The configuration of a group this world has.
    pub(crate) fn live_group(&self, group: GroupId) -> Result<&GroupConfig> {
        self.group(group).ok_or(if group.world() == self.tag() {
            ThrongError::UnknownGroup(group)
        } else {
            ThrongError::ForeignGroup(group)
        })
    }

    fn validate_group(&self, config: &GroupConfig) -> Result<()> {
        config.validate()?;
        for (i, b) in config.behaviours.iter().enumerate() {
            if let Behaviour::FollowPath {
                path: Some(path), ..
            } = b.behaviour
            {
                self.path_slot(path, &format!("behaviours[{i}].path"))?;
            }
            if let Behaviour::FollowField { field, .. } = b.behaviour {
                self.field_slot(field, &format!("behaviours[{i}].field"))?;
            }
        }
        Ok(())
    }

    /// The tag of this world, which its handles and ids carry.
    pub(crate) fn tag(&self) -> crate::agents::WorldTag {
        self.slots.world()
    }

    /// The path this world has that `path` names, with its index; else why not, as
    /// an error about the parameter `field`.
    pub(crate) fn path_slot(&self, path: PathId, field: &str) -> Result<(usize, &Path)> {
        scene_slot(
            &self.paths,
            (path.index(), path.world()),
            self.tag(),
            ("path", field),
        )
    }

    /// [`World::path_slot`] for a goal field.
    fn field_slot(&self, id: FieldId, field: &str) -> Result<(usize, &GoalField)> {
        let item = (id.index(), id.world());
        scene_slot(&self.fields, item, self.tag(), ("goal field", field))
            .map(|(slot, f)| (slot, &**f))
    }

    // ---- the static scene -----------------------------------------------

    /// Replace the walls (indexed once here, so queries don't scan them all). The
    /// goal fields are rebuilt over the new walls (see [`World::add_goal_field`] for
    /// what that costs).
    ///
    /// # Errors
    /// The scene's errors for an invalid wall; a field's error when one of its goals
    /// would lie inside the new walls. The world is unchanged then.
    pub fn set_walls(&mut self, walls: &[Wall]) -> Result<()> {
        let index = WallIndex::new(walls)?;
        let fields = self.rebuilt_fields(index.walls(), self.obstacles.obstacles())?;
        self.walls = index;
        self.fields = fields;
        Ok(())
    }

    /// Replace the circular obstacles; the goal fields are rebuilt over them.
    ///
    /// # Errors
    /// As [`World::set_walls`]; the world is unchanged then.
    pub fn set_obstacles(&mut self, obstacles: &[Obstacle]) -> Result<()> {
        let index = ObstacleIndex::new(obstacles)?;
        let fields = self.rebuilt_fields(self.walls.walls(), index.obstacles())?;
        self.obstacles = index;
        self.fields = fields;
        Ok(())
    }

    /// Every field rebuilt over this scene (in parallel, one field a task; removed
    /// fields stay removed).
    fn rebuilt_fields(
        &self,
        walls: &[Wall],
        obstacles: &[Obstacle],
    ) -> Result<Vec<Option<Arc<GoalField>>>> {
        use rayon::prelude::*;
        let build = || {
            self.fields
                .par_iter()
                .map(|f| {
                    f.as_ref()
                        .map(|f| GoalField::build(f.spec(), walls, obstacles).map(Arc::new))
                        .transpose()
                })
                .collect()
        };
        match &self.pool {
            Some(pool) => pool.install(build),
            None => build(),
        }
    }

    /// Rebuild the congestion-aware goal fields whose refresh falls on this tick (the
    /// tick counter a multiple of their `every`), for the crowd where it stands now;
    /// in parallel, one task a field.
    pub(super) fn recount_fields(&mut self) {
        use rayon::prelude::*;
        let tick = self.tick;
        let due = |f: &Option<Arc<GoalField>>| {
            f.as_ref()
                .and_then(|f| f.spec().congestion)
                .is_some_and(|c| tick.is_multiple_of(u64::from(c.every)))
        };
        if !self.fields.iter().any(due) {
            return;
        }
        crate::zone!("fields");
        let pos = &self.cols.pos;
        let rebuilt: Vec<Option<Arc<GoalField>>> = self
            .fields
            .par_iter()
            .map(|f| match f {
                Some(old) if due(f) => {
                    Some(old.recounted(pos).map_or_else(|| Arc::clone(old), Arc::new))
                }
                other => other.clone(),
            })
            .collect();
        self.fields = rebuilt;
    }

    /// Add a goal field ([`GoalField`]): the travel distance to the nearest of
    /// `spec`'s goals around this world's walls and obstacles, for
    /// [`Behaviour::FollowField`]. Built here, on the world's thread pool, and rebuilt
    /// whenever the walls or obstacles change. Building costs about linear time in
    /// the cells (a 1,000 × 1,000 field: see BENCHMARKS.md) and 12 bytes a cell.
    ///
    /// ```
    /// use throng::prelude::*;
    ///
    /// let mut world = World::new(WorldConfig::default());
    /// // A wall between the crowd and its goal.
    /// world.set_walls(&[Wall::new(Vec2::new(0.0, -10.0), Vec2::new(0.0, 5.0))?])?;
    /// // To a point, for bodies of radius 0.5, over the square from (-20, -20) to (20, 20).
    /// let spec = FieldSpec::new(vec![Goal::Point(Vec2::new(5.0, 0.0))], 0.5)
    ///     .with_bounds(Vec2::splat(-20.0), Vec2::splat(20.0));
    /// let exit = world.add_goal_field(spec)?;
    /// let walkers = world.add_group(GroupConfig::new("walkers").with(
    ///     Behaviour::FollowField { field: exit, params: FollowFieldParams::default() },
    ///     1.0,
    /// ))?;
    /// world.spawn(AgentSpec::new(walkers, Vec2::new(-5.0, 0.0)))?;
    /// // Straight through the wall would be 10; around its end, about 15.
    /// let d = world.field_distance(exit, Vec2::new(-5.0, 0.0))?.unwrap();
    /// assert!(d > 14.8 && d < 15.5);
    /// # Ok::<(), throng::ThrongError>(())
    /// ```
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] for a spec out of range, a field of more
    /// than [`crate::scene::MAX_FIELD_CELLS`] cells, or goals all inside walls or
    /// obstacles; [`ThrongError::Capacity`] past `u32::MAX` fields.
    pub fn add_goal_field(&mut self, spec: FieldSpec) -> Result<FieldId> {
        let id =
            u32::try_from(self.fields.len()).map_err(|_| ThrongError::Capacity("goal fields"))?;
        let build = || GoalField::build(&spec, self.walls.walls(), self.obstacles.obstacles());
        let field = match &self.pool {
            Some(pool) => pool.install(build),
            None => build(),
        }?;
        self.fields.push(Some(Arc::new(field)));
        Ok(FieldId::of_world(id, self.tag()))
    }

    /// Remove a goal field; its id names no field any more (ids are not reused).
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] when there is no such field, or a group's
    /// follow-field behaviour names it (change the group first); the world is
    /// unchanged then.
    pub fn remove_goal_field(&mut self, field: FieldId) -> Result<()> {
        let (slot, _) = self.field_slot(field, "field")?;
        // The groups' ids are this world's (or of no world): the index tells.
        if let Some((_, g)) = self.groups().find(|(_, g)| {
            g.behaviours.iter().any(|b| {
                matches!(b.behaviour, Behaviour::FollowField { field: f, .. } if f.index() == slot)
            })
        }) {
            return Err(ThrongError::InvalidParameter {
                field: "field".to_string(),
                reason: format!(
                    "goal field {slot} is followed by group `{}`; change the group first",
                    g.name
                ),
            });
        }
        self.fields[slot] = None;
        Ok(())
    }

    /// Level of detail by think rate around a point (a camera): the agents farther
    /// than `lod.near` from `lod.centre` steer only every `lod.think_every` ticks, in
    /// rotation, and are integrated with their last steering output in between (their
    /// group's own [`GroupConfig::think_every`] where that is larger). `None` (the
    /// default) turns it off. Move it as the camera moves: it is read at every tick.
    /// Bitwise deterministic on any thread count; kept in snapshots.
    ///
    /// ```
    /// use throng::prelude::*;
    ///
    /// let mut world = World::new(WorldConfig::default());
    /// // Beyond 50 units of the camera, agents steer one tick in four.
    /// world.set_level_of_detail(Some(LevelOfDetail::new(Vec2::new(10.0, 0.0), 50.0, 4)))?;
    /// assert_eq!(world.level_of_detail().unwrap().think_every, 4);
    /// # Ok::<(), throng::ThrongError>(())
    /// ```
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] for a value [`LevelOfDetail::validate`]
    /// refuses; the world is unchanged then.
    pub fn set_level_of_detail(&mut self, lod: Option<LevelOfDetail>) -> Result<()> {
        if let Some(l) = &lod {
            l.validate()?;
        }
        self.lod = lod;
        Ok(())
    }

    /// The level of detail, if one is set ([`World::set_level_of_detail`]).
    #[must_use]
    pub fn level_of_detail(&self) -> Option<LevelOfDetail> {
        self.lod
    }

    /// A goal field of this world (`None` if it has no such field, it was removed, or
    /// the id is another world's).
    #[must_use]
    pub fn goal_field(&self, field: FieldId) -> Option<&GoalField> {
        self.field_slot(field, "field").ok().map(|(_, f)| f)
    }

    /// The goal fields, in the order they were added (removed ones left out).
    pub fn goal_fields(&self) -> impl Iterator<Item = (FieldId, &GoalField)> {
        self.fields
            .iter()
            .enumerate()
            .filter_map(|(i, f)| Some((FieldId::of_world(i as u32, self.tag()), f.as_deref()?)))
    }

    /// The travel distance from `p` to the nearest goal of `field`; `None` where no
    /// goal can be reached from `p`, and 0 in a goal.
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] when there is no such field.
    pub fn field_distance(&self, field: FieldId, p: glam::Vec2) -> Result<Option<f32>> {
        let (_, f) = self.field_slot(field, "field")?;
        Ok(f.sample(p).distance())
    }

    /// Add a path for [`Behaviour::FollowPath`], or for agents of their own
    /// ([`World::set_agent_path`]).
    pub fn add_path(&mut self, path: Path) -> Result<PathId> {
        let id = u32::try_from(self.paths.len())
            .ok()
            .filter(|&i| i != crate::agents::NO_PATH)
            .ok_or(ThrongError::Capacity("paths"))?;
        self.paths.push(Some(path));
        Ok(PathId::of_world(id, self.tag()))
    }

    /// Remove a path. Agents that had it as their own path
    /// ([`World::set_agent_path`]) follow their group's path from then on; its id
    /// names no path any more (ids are not reused).
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] when a group's follow-path behaviour names
    /// it (change the group first, [`World::set_group`]), or when there is no such
    /// path; the world is unchanged then.
    pub fn remove_path(&mut self, path: PathId) -> Result<()> {
        let (slot, _) = self.path_slot(path, "path")?;
        // The groups' ids are this world's (or of no world): the index tells.
        if let Some((_, g)) = self.groups().find(|(_, g)| {
            g.behaviours.iter().any(|b| {
                matches!(b.behaviour, Behaviour::FollowPath { path: Some(p), .. } if p.index() == slot)
            })
        }) {
            return Err(ThrongError::InvalidParameter {
                field: "path".to_string(),
                reason: format!(
                    "path {slot} is followed by group `{}`; change the group first",
                    g.name
                ),
            });
        }
        for r in self.cols.path.rows_mut() {
            if *r as usize == slot {
                *r = crate::agents::NO_PATH;
            }
        }
        self.paths[slot] = None;
        Ok(())
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

    /// A path of this world (`None` if it has no such path, it was removed, or the id
    /// is another world's).
    #[must_use]
    pub fn path(&self, path: PathId) -> Option<&Path> {
        self.path_slot(path, "path").ok().map(|(_, p)| p)
    }

    /// The paths, in the order they were added (removed ones left out).
    pub fn paths(&self) -> impl Iterator<Item = (PathId, &Path)> {
        self.paths
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some((PathId::of_world(i as u32, self.tag()), p.as_ref()?)))
    }

    /// The leader whose sight the agent was in during the last tick, if any.
    pub fn in_sight_of(&self, id: AgentId) -> Result<Option<AgentId>> {
        let row = self.row(id)?;
        // A leader despawned since is in nobody's sight.
        Ok(self
            .sighted_by
            .get(row)
            .copied()
            .filter(|&l| self.slots.row(l).is_some()))
    }

    /// A group's configuration (`None` for a removed group, or another world's).
    #[must_use]
    pub fn group(&self, group: GroupId) -> Option<&GroupConfig> {
        let slot = self.group_slots.get(group.index())?;
        self.groups.get(group.index()).filter(|_| {
            group.world == self.slots.world()
                && !slot.removed
                && slot.generation == group.generation
        })
    }

    /// The id of the group in slot `index` of this world.
    pub(crate) fn group_id(&self, index: u16) -> GroupId {
        GroupId {
            index,
            generation: self
                .group_slots
                .get(usize::from(index))
                .map_or(0, |s| s.generation),
            world: self.slots.world(),
        }
    }

    /// The id [`GroupId::to_bits`] gave for a group of this world (of this world's
    /// tag: the bits do not carry it); check it with [`World::group`].
    #[must_use]
    pub fn group_from_bits(&self, bits: u32) -> GroupId {
        GroupId {
            index: bits as u16,
            generation: (bits >> 16) as u16,
            world: self.slots.world(),
        }
    }

    /// The groups, in the order they were added (removed ones left out).
    pub fn groups(&self) -> impl Iterator<Item = (GroupId, &GroupConfig)> {
        self.groups
            .iter()
            .enumerate()
            .filter(|&(i, _)| !self.group_slots[i].removed)
            .map(|(i, g)| (self.group_id(i as u16), g))
    }

    /// The group called `name`, if any.
    #[must_use]
    pub fn group_by_name(&self, name: &str) -> Option<GroupId> {
        self.groups()
            .find(|(_, g)| g.name == name)
            .map(|(id, _)| id)
    }

    /// Ticks stepped so far.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Seconds stepped so far: the sum of every tick's `dt` (in f64), kept in
    /// snapshots; the clock of a profile's moving targets.
    #[must_use]
    pub fn elapsed(&self) -> f64 {
        self.elapsed
    }

    /// Statistics of the last tick.
    #[must_use]
    pub fn last_stats(&self) -> TickStats {
        self.last
    }

    /// A 64-bit hash (FNV-1a) of the world's whole state: exactly what a
    /// [`Snapshot`] holds (configuration, groups, scene, paths, goal fields, every
    /// agent's columns — body, motion, targets, offsets, routes, preferred velocities,
    /// random streams, behaviour memory, arrival state, last output — the handle
    /// table, the tick and the clock), in its binary form, less the world's tag
    /// (which tells handles of different worlds apart): equal hashes mean (with
    /// overwhelming probability) worlds whose next ticks are bitwise equal, and worlds
    /// built alike hash alike.
    ///
    /// The lockstep desync check: peers that start from the same world (or the same
    /// [`Snapshot`]) and apply the same inputs before the same ticks have equal hashes
    /// after every tick, whatever their thread counts; compare them every few ticks
    /// and resynchronise from a snapshot when they differ. It walks the state once
    /// without allocating (about as long as encoding a snapshot).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.state_view().hash()
    }
}

/// The item an id names in a world's table of scene items (`table`, by index, `None`
/// where one was removed), with its index, given the id's index and world, the table's
/// world `here`, and (what the item is, the parameter it came in): an error where the
/// id is another world's or names no item here.
fn scene_slot<'a, T>(
    table: &'a [Option<T>],
    (index, world): (usize, Option<crate::agents::WorldTag>),
    here: crate::agents::WorldTag,
    (what, field): (&str, &str),
) -> Result<(usize, &'a T)> {
    let reason = match (world, table.get(index)) {
        (Some(there), _) if there != here => {
            format!("{what} {index} belongs to another world ({there}) than this one ({here})")
        }
        (_, Some(Some(item))) => return Ok((index, item)),
        _ => format!("no {what} {index} in this world"),
    };
    Err(ThrongError::InvalidParameter {
        field: field.to_string(),
        reason,
    })
}
