//! The agent half of the world's API: spawning and despawning, reading agents by handle
//! or as whole columns, and changing them between ticks.

use glam::Vec2;
use rayon::prelude::*;

use crate::agents::{own_path, NO_PATH};
use crate::agents::{AgentId, AgentSpec, GroupId, SteerOut, Target};
use crate::error::{finite, finite_vec, positive, Result, ThrongError};
use crate::group::{Behaviour, GroupConfig, Movement, PathId};
use crate::math::{normalize_or_zero, truncate};

use super::{World, TELEPORT_RADII};

/// From this many rows [`World::set_group_target`] writes in parallel.
const PARALLEL_GROUP_WRITE_MIN: usize = 65_536;

impl World {
    /// Spawn an agent. Its random stream is seeded from the world seed and its
    /// id. Between ticks only.
    pub fn spawn(&mut self, spec: AgentSpec) -> Result<AgentId> {
        let group = self.check_spec(&spec)?;
        let wander = group
            .behaviours
            .iter()
            .find_map(|b| match &b.behaviour {
                Behaviour::Wander(p) => Some(*p),
                _ => None,
            })
            .unwrap_or_default();
        let row = u32::try_from(self.cols.len()).map_err(|_| ThrongError::Capacity("agents"))?;
        let progress = self.path_progress_at(None, group, spec.position);
        let kinematic = group.movement == Movement::Kinematic;
        let id = self
            .slots
            .alloc(row)
            .ok_or(ThrongError::Capacity("agents"))?;
        self.cols.push(id, &spec, self.config.seed, &wander);
        self.arrival_quiet = false;
        if self.plans[spec.group.index()].avoidance.is_some() || kinematic {
            // Its output is the velocity it moves at: until it first steers (a level
            // of detail may make it wait for its turn), the one it was spawned with.
            let vel = self.cols.vel[row as usize];
            self.cols.out[row as usize] = SteerOut::new(vel, 0.0, None);
        }
        if self.plans[spec.group.index()].field.is_some() {
            // Its field is its aim when it has no target.
            self.cols.arrival[row as usize] = super::arrival::ArrivalMemory::spawned(true);
        }
        self.disturbed += 1;
        self.queries.invalidate();
        self.cols.memory[row as usize].path_progress = progress;
        Ok(id)
    }

    /// Check a spawn's spec: its values, its group and its targets; the group's
    /// configuration.
    fn check_spec(&self, spec: &AgentSpec) -> Result<&GroupConfig> {
        spec.validate()?;
        let group = self.live_group(spec.group)?;
        self.check_target(spec.target)?;
        self.check_target(spec.target2)?;
        Ok(group)
    }

    /// How far along the path it follows an agent at `at` starts: its own path
    /// (`own`, a path index) if it has one, else its group's.
    fn path_progress_at(&self, own: Option<usize>, group: &GroupConfig, at: Vec2) -> f32 {
        let path = own
            .map(PathId::from_index)
            .or(group.path().map(|(path, _)| path))
            .and_then(|path| self.path(path));
        path.map_or(0.0, |p| p.project(at, 0.0, p.length()).0)
    }

    /// Spawn many agents at once, all or nothing: every spec is checked, and the
    /// memory for them ([`World::reserve`]), before any is spawned. Handles in the
    /// order of `specs`.
    ///
    /// # Errors
    /// The first invalid spec's error ([`World::spawn`]'s), or
    /// [`ThrongError::OutOfMemory`]; nothing is spawned then.
    pub fn spawn_many(&mut self, specs: &[AgentSpec]) -> Result<Vec<AgentId>> {
        for spec in specs {
            self.check_spec(spec)?;
        }
        let rows = self.cols.len().saturating_add(specs.len());
        if u32::try_from(rows).map_or(true, |r| r == u32::MAX) {
            return Err(ThrongError::Capacity("agents"));
        }
        self.reserve(specs.len())?;
        specs.iter().map(|&spec| self.spawn(spec)).collect()
    }

    /// Despawn many agents, all or nothing: every handle is checked first (live, and
    /// named once).
    ///
    /// # Errors
    /// [`ThrongError::UnknownAgent`] for the first handle that names no live agent
    /// or repeats an earlier one; nothing is despawned then.
    pub fn despawn_many(&mut self, ids: &[AgentId]) -> Result<()> {
        let mut seen = std::collections::HashSet::with_capacity(ids.len());
        for &id in ids {
            self.row(id)?;
            if !seen.insert(id) {
                return Err(ThrongError::UnknownAgent(id));
            }
        }
        for &id in ids {
            self.despawn(id)?;
        }
        Ok(())
    }

    /// Despawn every agent; groups, walls, obstacles and paths stay. Every handle
    /// given out so far is stale afterwards.
    pub fn clear(&mut self) {
        // From the last row: nothing moves.
        while let Some(&id) = self.cols.id.last() {
            if self.despawn(id).is_err() {
                break;
            }
        }
    }

    /// Remove an agent. Every other handle stays valid. Agents targeting it lose
    /// their target (it acts as none).
    pub fn despawn(&mut self, id: AgentId) -> Result<()> {
        let row = self.row(id)?;
        if let Some(moved) = self.cols.swap_remove(row) {
            self.slots.set_row(moved, row as u32);
            self.disturbed += 1;
        }
        // Per-row state kept outside the columns moves the same way.
        if row < self.sighted_by.len() {
            self.sighted_by.swap_remove(row);
        }
        self.slots.free(id);
        self.queries.invalidate();
        Ok(())
    }

    /// Whether `id` names a live agent.
    #[must_use]
    pub fn contains(&self, id: AgentId) -> bool {
        self.slots.row(id).is_some()
    }

    /// Make room for `additional` more agents before spawning them in bulk: refused
    /// with [`ThrongError::OutOfMemory`] (and the estimate) when the world they would
    /// make does not fit in the memory available ([`crate::memory`]), or when the
    /// columns cannot grow; the world is unchanged then.
    ///
    /// # Errors
    /// [`ThrongError::OutOfMemory`].
    pub fn reserve(&mut self, additional: usize) -> Result<()> {
        let (existing, index) = (self.len(), self.config.index);
        crate::memory::check_fits(existing, additional, index)?;
        self.cols.try_reserve(additional).map_err(|_| {
            let agents = existing.saturating_add(additional);
            ThrongError::OutOfMemory {
                agents,
                needed: crate::memory::estimate(agents, index),
                available: crate::memory::available().unwrap_or(0),
            }
        })
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
    ///
    /// # Errors
    /// [`ThrongError::UnknownAgent`] for a stale handle,
    /// [`ThrongError::ForeignAgent`] for another world's.
    pub fn row(&self, id: AgentId) -> Result<usize> {
        match self.slots.row(id) {
            Some(r) => Ok(r as usize),
            None if id.world() != self.slots.world() => Err(ThrongError::ForeignAgent(id)),
            None => Err(ThrongError::UnknownAgent(id)),
        }
    }

    /// The handle whose [`AgentId::to_bits`] are `bits`: the inverse of `to_bits` for
    /// this world's handles (and those of the worlds restored from its snapshots). It
    /// may name no live agent: the bits of a despawned agent give a handle every call
    /// refuses as unknown; bits that no agent of this world has but another live world
    /// has given out give that world's handle, which every call here refuses as
    /// [`ThrongError::ForeignAgent`] (the bits carry the world only as a mask, so this
    /// is read from what the live worlds have given out).
    #[must_use]
    pub fn agent_from_bits(&self, bits: u64) -> AgentId {
        self.slots.handle_of_bits(bits)
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

    /// Every agent's group by row (as [`World::positions`]), as [`GroupId`]s.
    pub fn agent_groups(&self) -> impl ExactSizeIterator<Item = GroupId> + '_ {
        self.cols.group.iter().map(move |&g| self.group_id(g))
    }

    /// Set an agent's body by name (as [`World::set_limits`]).
    ///
    /// # Errors
    /// As [`World::set_limits`].
    pub fn set_body(&mut self, id: AgentId, body: crate::integrate::Limits) -> Result<()> {
        self.set_limits(id, body.mass, body.max_speed, body.max_force)
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

    /// Masses, by row.
    #[must_use]
    pub fn masses(&self) -> &[f32] {
        &self.cols.mass
    }

    /// Maximum steering forces, by row.
    #[must_use]
    pub fn max_forces(&self) -> &[f32] {
        &self.cols.max_force
    }

    /// An agent's body limits (what [`World::set_limits`] sets).
    ///
    /// # Errors
    /// An unknown handle.
    pub fn limits(&self, id: AgentId) -> Result<crate::integrate::Limits> {
        let row = self.row(id)?;
        Ok(crate::integrate::Limits {
            mass: self.cols.mass[row],
            max_force: self.cols.max_force[row],
            max_speed: self.cols.max_speed[row],
        })
    }

    /// An agent's body radius (what [`World::set_radius`] sets).
    ///
    /// # Errors
    /// An unknown handle.
    pub fn radius(&self, id: AgentId) -> Result<f32> {
        Ok(self.cols.radius[self.row(id)?])
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
        Ok(self.group_id(self.cols.group[self.row(id)?]))
    }

    /// Primary targets, by row.
    #[must_use]
    pub fn targets(&self) -> &[Target] {
        &self.cols.target
    }

    /// An agent's primary target.
    pub fn target(&self, id: AgentId) -> Result<Target> {
        Ok(self.cols.target[self.row(id)?])
    }

    /// An agent's secondary target (the second agent of interpose).
    ///
    /// # Errors
    /// An unknown handle.
    pub fn target2(&self, id: AgentId) -> Result<Target> {
        Ok(self.cols.target2(self.row(id)?))
    }

    /// An agent's formation offset (offset pursuit).
    ///
    /// # Errors
    /// An unknown handle.
    pub fn offset(&self, id: AgentId) -> Result<Vec2> {
        Ok(self.cols.offset(self.row(id)?))
    }

    /// Move an agent (between ticks). A move farther than [`TELEPORT_RADII`] of the
    /// largest neighbour radius leaves the agent's row among rows far from it, as a
    /// spawn does: with the k-d tree, enough such moves make the next tick re-sort.
    pub fn set_position(&mut self, id: AgentId, p: Vec2) -> Result<()> {
        finite_vec("position", p)?;
        let row = self.row(id)?;
        // Only where some group scans for neighbours: without, no chunk gathers any.
        let reach = TELEPORT_RADII * self.max_neighbour_radius();
        if reach > 0.0 && self.cols.pos[row].distance_squared(p) > reach * reach {
            self.disturbed += 1;
        }
        self.cols.pos[row] = p;
        self.queries.invalidate();
        Ok(())
    }

    /// Set an agent's velocity (truncated to its maximum speed).
    pub fn set_velocity(&mut self, id: AgentId, v: Vec2) -> Result<()> {
        finite_vec("velocity", v)?;
        let row = self.row(id)?;
        self.cols.vel[row] = truncate(v, self.cols.max_speed[row]);
        self.cols.unit_vel[row] = normalize_or_zero(self.cols.vel[row]);
        Ok(())
    }

    /// Set the positions of many agents in one call (`positions[i]` for `ids[i]`): a
    /// host that moves a group ([`GroupConfig::host_moves`](crate::GroupConfig::host_moves)) writes them back each
    /// frame this way. All or nothing: nothing is written unless the lengths agree,
    /// every handle is live and every position finite.
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] for lengths that differ; the errors of
    /// [`World::set_position`] for the first bad handle or value.
    pub fn set_positions(&mut self, ids: &[AgentId], positions: &[Vec2]) -> Result<()> {
        self.check_each(ids, positions, |&p| finite_vec("position", p).map(drop))?;
        let reach = TELEPORT_RADII * self.max_neighbour_radius();
        for (&id, &p) in ids.iter().zip(positions) {
            let Some(row) = self.slots.row(id).map(|r| r as usize) else {
                continue;
            };
            if reach > 0.0 && self.cols.pos[row].distance_squared(p) > reach * reach {
                self.disturbed += 1;
            }
            self.cols.pos[row] = p;
        }
        self.queries.invalidate();
        Ok(())
    }

    /// Set the velocities of many agents in one call (each truncated to its agent's
    /// maximum speed), all or nothing, as [`World::set_positions`].
    ///
    /// # Errors
    /// As [`World::set_positions`].
    pub fn set_velocities(&mut self, ids: &[AgentId], velocities: &[Vec2]) -> Result<()> {
        self.check_each(ids, velocities, |&v| finite_vec("velocity", v).map(drop))?;
        for (&id, &v) in ids.iter().zip(velocities) {
            let Some(row) = self.slots.row(id).map(|r| r as usize) else {
                continue;
            };
            self.cols.vel[row] = truncate(v, self.cols.max_speed[row]);
            self.cols.unit_vel[row] = normalize_or_zero(self.cols.vel[row]);
        }
        Ok(())
    }

    /// Set (or with `None` clear) the preferred velocities of many host-driven agents
    /// in one call, all or nothing, as [`World::set_positions`].
    ///
    /// # Errors
    /// As [`World::set_positions`].
    pub fn set_preferred_velocities(
        &mut self,
        ids: &[AgentId],
        velocities: &[Option<Vec2>],
    ) -> Result<()> {
        self.check_each(ids, velocities, |v| match v {
            Some(v) => finite_vec("preferred velocity", *v).map(drop),
            None => Ok(()),
        })?;
        if velocities.iter().any(Option::is_some) {
            self.cols.start_host_driving();
        }
        for (&id, v) in ids.iter().zip(velocities) {
            let Some(row) = self.slots.row(id).map(|r| r as usize) else {
                continue;
            };
            if let Some(p) = self.cols.preferred.get_mut(row) {
                *p = v.unwrap_or(Vec2::NAN);
            }
        }
        Ok(())
    }

    /// Set the primary target of each of many agents in one call (`targets[i]` for
    /// `ids[i]`; [`World::set_targets`] gives them all one), all or nothing, as
    /// [`World::set_positions`].
    ///
    /// # Errors
    /// As [`World::set_positions`]; an agent target must be live.
    pub fn set_each_target(&mut self, ids: &[AgentId], targets: &[Target]) -> Result<()> {
        self.check_each(ids, targets, |&t| self.check_target(t))?;
        for (&id, &t) in ids.iter().zip(targets) {
            let Some(row) = self.slots.row(id).map(|r| r as usize) else {
                continue;
            };
            self.cols.target[row] = t;
        }
        self.arrival_quiet = false;
        Ok(())
    }

    /// Check a bulk write before any of it is made: as many values as handles, every
    /// handle live, every value accepted by `check`.
    fn check_each<T>(
        &self,
        ids: &[AgentId],
        values: &[T],
        check: impl Fn(&T) -> Result<()>,
    ) -> Result<()> {
        if ids.len() != values.len() {
            return Err(ThrongError::InvalidParameter {
                field: "values".to_string(),
                reason: format!("{} values for {} agents", values.len(), ids.len()),
            });
        }
        for (&id, v) in ids.iter().zip(values) {
            self.row(id)?;
            check(v)?;
        }
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
        self.arrival_quiet = false;
        Ok(())
    }

    /// Set the primary target of every agent of `ids` to `target` (a rally point for a
    /// crowd, say): one validation of the target, then one write per agent. Nothing is
    /// written unless every handle is live.
    pub fn set_targets(&mut self, ids: &[AgentId], target: Target) -> Result<()> {
        self.check_target(target)?;
        for &id in ids {
            self.row(id)?;
        }
        for &id in ids {
            if let Some(row) = self.slots.row(id) {
                self.cols.target[row as usize] = target;
            }
        }
        self.arrival_quiet = false;
        Ok(())
    }

    /// Set the primary target of every agent of `group` to `target` (the whole group
    /// chases one point, say): one validation, then one pass over the rows in storage
    /// order, with no handle lookups. Nothing is written if the group is unknown or
    /// the target is invalid.
    pub fn set_group_target(&mut self, group: GroupId, target: Target) -> Result<()> {
        self.live_group(group)?;
        self.check_target(target)?;
        let write = |(t, &g): (&mut Target, &u16)| {
            if g == group.index {
                *t = target;
            }
        };
        self.arrival_quiet = false;
        let (targets, groups) = (&mut self.cols.target[..], &self.cols.group[..]);
        // Each row on its own, so the threads change nothing but the time (the flock's
        // moving lure at 1,000,000 agents: `docs/optimisations.md`).
        if targets.len() >= PARALLEL_GROUP_WRITE_MIN {
            let rows = targets.par_iter_mut().zip(groups).with_min_len(8192);
            match self.pool.as_deref() {
                Some(pool) => pool.install(|| rows.for_each(write)),
                None => rows.for_each(write),
            }
        } else {
            targets.iter_mut().zip(groups).for_each(write);
        }
        Ok(())
    }

    /// Set an agent's secondary target (the second agent of interpose).
    pub fn set_target2(&mut self, id: AgentId, target: Target) -> Result<()> {
        self.check_target(target)?;
        let row = self.row(id)?;
        if target != Target::None {
            self.cols.start_target2();
        }
        if let Some(t) = self.cols.target2.get_mut(row) {
            *t = target;
        }
        Ok(())
    }

    /// Set an agent's body radius (between ticks); its handle stays.
    ///
    /// # Errors
    /// A negative or non-finite radius; an unknown handle.
    pub fn set_radius(&mut self, id: AgentId, radius: f32) -> Result<()> {
        crate::error::non_negative("radius", radius)?;
        let row = self.row(id)?;
        self.cols.radius[row] = radius;
        Ok(())
    }

    /// Give an agent a path of its own (`Some`), in place of its group's, or take it
    /// away (`None`): a route the host's navmesh or A* found for this agent, say,
    /// added with [`World::add_path`]. Its group's follow-path behaviour
    /// ([`Behaviour::FollowPath`]) then follows this path from the point of it
    /// nearest the agent; other groups' agents keep the path but do not follow it.
    ///
    /// ```
    /// use throng::prelude::*;
    /// use throng::behaviours::path::PathFollowParams;
    ///
    /// let mut world = World::default();
    /// let follow = Behaviour::FollowPath { path: None, params: PathFollowParams::default() };
    /// let walkers = world.add_group(GroupConfig::new("walkers").with(follow, 1.0))?;
    /// let walker = world.spawn(AgentSpec::new(walkers, Vec2::ZERO))?;
    /// let route = world.add_path(Path::open(vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)])?)?;
    /// world.set_agent_path(walker, Some(route))?;
    /// for _ in 0..600 {
    ///     world.step(1.0 / 30.0)?;
    /// }
    /// assert!(world.position(walker)?.distance(Vec2::new(10.0, 10.0)) < 1.0);
    /// # Ok::<(), ThrongError>(())
    /// ```
    ///
    /// # Errors
    /// An unknown handle; [`ThrongError::InvalidParameter`] for a path this world
    /// does not have.
    pub fn set_agent_path(&mut self, id: AgentId, path: Option<PathId>) -> Result<()> {
        let row = self.row(id)?;
        let own = path.map(|p| self.path_slot(p, "path").map(|(slot, _)| slot));
        let own = own.transpose()?;
        if own.is_some() {
            self.cols.start_paths();
        }
        if let Some(r) = self.cols.path.get_mut(row) {
            // Paths are counted in u32 (`add_path`).
            *r = own.map_or(NO_PATH, |p| p as u32);
        }
        let group = &self.groups[usize::from(self.cols.group[row])];
        self.cols.memory[row].path_progress = self.path_progress_at(own, group, self.cols.pos[row]);
        Ok(())
    }

    /// An agent's own path ([`World::set_agent_path`]), if it has one.
    ///
    /// # Errors
    /// An unknown handle.
    pub fn agent_path(&self, id: AgentId) -> Result<Option<PathId>> {
        let row = self.row(id)?;
        let tag = self.tag();
        Ok(own_path(self.cols.path.rows(), row).map(|p| PathId::of_world(p as u32, tag)))
    }

    /// Set an agent's formation offset (offset pursuit); its handle stays.
    ///
    /// # Errors
    /// A non-finite offset; an unknown handle.
    pub fn set_offset(&mut self, id: AgentId, offset: Vec2) -> Result<()> {
        finite_vec("offset", offset)?;
        let row = self.row(id)?;
        if offset != Vec2::ZERO {
            self.cols.start_offsets();
        }
        if let Some(o) = self.cols.offset.get_mut(row) {
            *o = offset;
        }
        Ok(())
    }

    /// Drive an agent from the host: with `Some(velocity)` its group's behaviours are
    /// no longer run for it, and each tick it steers to `velocity` (truncated to its
    /// top speed) as fast as its maximum force allows; when its group has avoidance
    /// (ORCA), the velocity is the one ORCA keeps nearest `velocity` while staying
    /// collision-free, as RVO2's preferred velocity. Other agents see it as any
    /// neighbour and steer around it. `None` hands it back to its behaviours. The
    /// velocity stays until changed (set it every frame from a player's input, a
    /// physics engine or the host's own path following).
    ///
    /// ```
    /// use throng::prelude::*;
    ///
    /// let mut world = World::default();
    /// let g = world.add_group(GroupConfig::new("g").with(Behaviour::Wander(WanderParams::default()), 1.0))?;
    /// let player = world.spawn(AgentSpec::new(g, Vec2::ZERO))?;
    /// world.set_preferred_velocity(player, Some(Vec2::new(1.5, 0.0)))?;
    /// for _ in 0..30 {
    ///     world.step(1.0 / 30.0)?;
    /// }
    /// assert_eq!(world.velocity(player)?, Vec2::new(1.5, 0.0));
    /// # Ok::<(), ThrongError>(())
    /// ```
    ///
    /// # Errors
    /// A non-finite velocity; an unknown handle.
    pub fn set_preferred_velocity(&mut self, id: AgentId, velocity: Option<Vec2>) -> Result<()> {
        if let Some(v) = velocity {
            finite_vec("preferred velocity", v)?;
        }
        let row = self.row(id)?;
        if velocity.is_some() {
            self.cols.start_host_driving();
        }
        if let Some(p) = self.cols.preferred.get_mut(row) {
            *p = velocity.unwrap_or(Vec2::NAN);
        }
        Ok(())
    }

    /// The host's preferred velocity of an agent, when the host drives it
    /// ([`World::set_preferred_velocity`]).
    ///
    /// # Errors
    /// An unknown handle.
    pub fn preferred_velocity(&self, id: AgentId) -> Result<Option<Vec2>> {
        Ok(self.cols.host_velocity(self.row(id)?))
    }

    /// The velocity the last tick gave an agent: for an agent of a group the host
    /// moves ([`GroupConfig::host_moves`](crate::GroupConfig::host_moves)), the one its
    /// behaviours, body and avoidance want it to move at, for the host to apply; for
    /// any other agent, the velocity it moved at. Zero for an agent of a group the
    /// host moves that was spawned since the last tick.
    ///
    /// ```
    /// use throng::prelude::*;
    ///
    /// let mut world = World::default();
    /// let seek = GroupConfig { host_moves: true, ..GroupConfig::new("g").with(Behaviour::Seek, 1.0) };
    /// let g = world.add_group(seek)?;
    /// let id = world.spawn(AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(Vec2::X * 10.0)))?;
    /// world.step(0.1)?;
    /// assert_eq!(world.position(id)?, Vec2::ZERO); // the engine moved nothing
    /// let v = world.desired_velocity(id)?; // seek from rest: 2 units/s² for 0.1 s
    /// assert!((v - Vec2::new(0.2, 0.0)).length() < 1e-6);
    /// // The host moves it (its physics, here a plain step) and writes it back.
    /// world.set_velocity(id, v)?;
    /// world.set_position(id, world.position(id)? + v * 0.1)?;
    /// # Ok::<(), ThrongError>(())
    /// ```
    ///
    /// # Errors
    /// An unknown handle.
    pub fn desired_velocity(&self, id: AgentId) -> Result<Vec2> {
        let row = self.row(id)?;
        Ok(self.desired_velocity_at(row))
    }

    /// Every agent's [`World::desired_velocity`], in row order.
    pub fn desired_velocities(&self) -> impl ExactSizeIterator<Item = Vec2> + '_ {
        (0..self.len()).map(|row| self.desired_velocity_at(row))
    }

    fn desired_velocity_at(&self, row: usize) -> Vec2 {
        let group = usize::from(self.cols.group[row]);
        if self.plans[group].host_moves {
            self.cols.out[row].linear
        } else {
            self.cols.vel[row]
        }
    }

    /// Move an agent to another group (between ticks); its handle, body, targets and
    /// motion stay. What the new group's behaviours carry from tick to tick starts
    /// afresh where it belonged to the old group's: the walker's plan is dropped, and
    /// the distance along the new group's path is that of the agent's position, and it
    /// is not queued ([`Arrival::Queued`](crate::world::Arrival::Queued)) until the new
    /// group's avoidance finds it so.
    ///
    /// # Errors
    /// An unknown group or handle.
    pub fn set_agent_group(&mut self, id: AgentId, group: GroupId) -> Result<()> {
        let config = self.live_group(group)?;
        let row = self.row(id)?;
        let own = own_path(self.cols.path.rows(), row);
        let progress = self.path_progress_at(own, config, self.cols.pos[row]);
        self.cols.group[row] = group.index;
        self.cols.memory[row].path_progress = progress;
        if let Some(w) = self.cols.walker.get_mut(row) {
            *w = crate::behaviours::approach::WalkerState::default();
        }
        self.cols.arrival[row].queued = false;
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
        self.cols.unit_vel[row] = normalize_or_zero(self.cols.vel[row]);
        Ok(())
    }

    fn check_target(&self, target: Target) -> Result<()> {
        crate::agents::validate_target("target", target)?;
        if let Target::Agent(t) = target {
            self.row(t)?;
        }
        Ok(())
    }
}
