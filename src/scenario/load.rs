//! Building a [`World`] from a validated [`Profile`], and stepping it with the
//! scenario's moving targets.

use glam::Vec2;

use super::layout::{Layout, Rect};
use super::profile::{GroupSpec, InitialDirection, Profile, TargetSpec};
use super::spawn::{push_apart, APART_ROUNDS};
use crate::agents::speed_drawn;
use crate::rng::{agent_rng, mix_seed, uniform01};
use crate::{AgentId, AgentSpec, GroupId, Target, TickStats, World, WorldConfig};

/// Stream number of the spawn placement generators (one per group), distinct
/// from every agent's own stream.
const SPAWN_STREAM: u64 = 0x5350_4157_4e5f_5354;

/// Hand the scene's walls, obstacles, paths and goal fields to the world. Paths and
/// fields are added in the scene's order, so a profile's path index is the world's
/// [`crate::group::PathId`], and its field index the world's [`crate::FieldId`].
///
/// # Errors
/// When the engine rejects a wall, obstacle or path the profile validation let
/// through.
pub fn apply_layout(scene: &Layout, world: &mut World) -> crate::Result<()> {
    let walls = scene
        .walls
        .iter()
        .map(|w| crate::scene::Wall::new(w.a, w.b))
        .collect::<Result<Vec<_>, _>>()?;
    world.set_walls(&walls)?;
    let obstacles = scene
        .obstacles
        .iter()
        .map(|o| crate::scene::Obstacle::new(o.centre, o.radius))
        .collect::<Result<Vec<_>, _>>()?;
    world.set_obstacles(&obstacles)?;
    for p in &scene.paths {
        let path = if p.looped {
            crate::scene::Path::looped(p.points.clone())?
        } else {
            crate::scene::Path::open(p.points.clone())?
        };
        world.add_path(path)?;
    }
    for f in &scene.fields {
        world.add_goal_field(f.spec()).map_err(|e| match e {
            crate::ThrongError::InvalidParameter { field, reason } => {
                crate::ThrongError::InvalidParameter {
                    field: format!("goal field `{}`: {field}", f.name),
                    reason,
                }
            }
            e => e,
        })?;
    }
    Ok(())
}

/// The world a profile sets up before its agents come: its settings, scene (walls,
/// obstacles, paths, goal fields), level of detail and groups, in the profile's
/// order (so the profile's group `i` is the world's group slot `i`). For a host that
/// spawns its own agents into a profile's scene (a game's entities); the profile's
/// own agents are [`Scenario::build`]'s.
///
/// # Errors
/// As [`Scenario::build`].
pub fn world_of_setup(profile: &Profile) -> crate::Result<World> {
    set_up(profile, 0).map(|(world, _)| world)
}

/// [`world_of_setup`], with room reserved for `agents` (refused up front when they
/// cannot fit), and the groups' ids.
fn set_up(p: &Profile, agents: usize) -> crate::Result<(World, Vec<crate::GroupId>)> {
    let mut world = World::new(WorldConfig {
        seed: p.world.seed,
        integrator: p.world.integrator,
        index: p.world.index,
        reorder_interval: p.world.reorder_interval,
    });
    world.reserve(agents)?;
    apply_layout(&p.layout, &mut world)?;
    world.set_level_of_detail(p.world.level_of_detail)?;
    let gids = p
        .groups
        .iter()
        .map(|g| world.add_group(g.config.clone()))
        .collect::<crate::Result<Vec<_>>>()?;
    Ok((world, gids))
}

/// What one agent aims at, as found when the scenario is built.
#[derive(Clone, Copy)]
enum Aim {
    None,
    Point(Vec2),
    /// Agent `j` of group `h`.
    Agent(usize, usize),
}

/// The aims of a group at `pos` for a target that does not move along a path
/// (a moving point gives none here): one per agent, or none at all when no agent
/// aims at anything.
fn fixed_aims(spec: &TargetSpec, pos: &[Vec2], positions: &[Vec<Vec2>]) -> Vec<Aim> {
    match *spec {
        TargetSpec::Point(t) => pos.iter().map(|_| Aim::Point(t)).collect(),
        TargetSpec::Antipode { centre } => {
            pos.iter().map(|&s| Aim::Point(centre * 2.0 - s)).collect()
        }
        TargetSpec::Shift(d) => pos.iter().map(|&s| Aim::Point(s + d)).collect(),
        TargetSpec::AgentOfGroup(h) => {
            let near = Nearest::new(&positions[h]);
            pos.iter()
                .map(|&s| near.nearest(s).map_or(Aim::None, |j| Aim::Agent(h, j)))
                .collect()
        }
        // No aim for any agent: nothing stored (a million `Aim::None` would be 16 MB
        // that the allocator may keep after the build).
        TargetSpec::None | TargetSpec::MovingPoint { .. } => Vec::new(),
    }
}

/// A group as built: its engine id, name, agent count and picture colour.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupInfo {
    /// The engine's handle.
    pub id: GroupId,
    /// Name.
    pub name: String,
    /// Agents spawned.
    pub count: usize,
    /// Colour from the profile, if any.
    pub colour: Option<[u8; 3]>,
}

/// Agents whose target is a point moving along a path.
#[derive(Clone, Debug)]
struct Mover {
    path: usize,
    speed: f32,
    /// Each agent with the distance along the path of its point at time 0.
    agents: Vec<(AgentId, f32)>,
    /// The agents' group, and their common distance at time 0 when they all share
    /// it (the usual case: the whole group chases one point).
    group: GroupId,
    shared: Option<f32>,
}

/// A saved [`Scenario`] state ([`Scenario::save`]).
#[derive(Clone, Debug)]
pub struct ScenarioState {
    world: crate::world::Snapshot,
}

/// A world built from a profile, with what the profile says about it.
pub struct Scenario {
    profile: Profile,
    world: World,
    groups: Vec<GroupInfo>,
    leaders: Vec<AgentId>,
    movers: Vec<Mover>,
    markers: Vec<(usize, Vec2)>,
    /// By world group index: whether its agents leave the world on arriving.
    leaving: Vec<bool>,
}

impl Scenario {
    /// Build the world: groups, agents in their spawn shapes, targets, squads.
    ///
    /// # Errors
    /// [`crate::ThrongError::OutOfMemory`] when the crowd would not fit in the memory
    /// available (with the estimate); otherwise only if the engine rejects a value
    /// the profile validation let through (a bug, reported rather than hidden).
    pub fn build(profile: &Profile) -> crate::Result<Self> {
        let p = profile;
        // Refuse a crowd that cannot fit before placing anyone.
        let agents = p
            .groups
            .iter()
            .map(|g| g.count)
            .fold(0, usize::saturating_add);
        let (mut world, gids) = set_up(p, agents)?;
        // Placement and initial directions: one generator per group.
        let mut rngs: Vec<_> = (0..p.groups.len())
            .map(|g| agent_rng(mix_seed(p.world.seed, SPAWN_STREAM), g as u64))
            .collect();
        let mut positions: Vec<Vec<Vec2>> = p
            .groups
            .iter()
            .zip(&mut rngs)
            .map(|(g, rng)| g.spawn.place(g.count, rng))
            .collect();
        for (gi, (g, pos)) in p.groups.iter().zip(&mut positions).enumerate() {
            let spacing = 2.0 * g.body.radius;
            let parted = g.spawn.apart().is_none_or(|r| push_apart(pos, spacing, r));
            if !parted {
                return Err(crate::ThrongError::InvalidParameter {
                    field: format!("groups[{gi}].spawn.arrangement"),
                    reason: format!(
                        "the {} agents of group `{}` could not be pushed apart in their \
                         spawn area within {APART_ROUNDS} rounds: a larger one or fewer \
                         agents",
                        g.count, g.name
                    ),
                });
            }
        }

        let mut aims: Vec<Vec<Aim>> = Vec::with_capacity(p.groups.len());
        let mut movers = Vec::new();
        let mut markers = Vec::new();
        for (gi, g) in p.groups.iter().enumerate() {
            let pos = &positions[gi];
            let aim: Vec<Aim> = match g.target {
                TargetSpec::Point(t) => {
                    markers.push((gi, t));
                    fixed_aims(&g.target, pos, &positions)
                }
                TargetSpec::MovingPoint {
                    path,
                    speed,
                    start,
                    lead,
                } => {
                    let route = &p.layout.paths[path];
                    let starts: Vec<f32> = pos
                        .iter()
                        .map(|&s| start.unwrap_or_else(|| route.project(s)) + lead)
                        .collect();
                    movers.push((gi, path, speed, starts.clone()));
                    starts
                        .iter()
                        .map(|&d| Aim::Point(route.point_at(d)))
                        .collect()
                }
                ref fixed => fixed_aims(fixed, pos, &positions),
            };
            aims.push(aim);
        }
        let aims2: Vec<Vec<Aim>> = p
            .groups
            .iter()
            .zip(&positions)
            .map(|(g, pos)| fixed_aims(&g.target2, pos, &positions))
            .collect();
        let mut leaders = Vec::new();
        for q in &p.squads {
            let lead_pos =
                &positions[q.leader_group][..q.count.min(positions[q.leader_group].len())];
            leaders.extend((0..lead_pos.len()).map(|j| (q.leader_group, j)));
            let near = Nearest::new(lead_pos);
            aims[q.follower_group] = positions[q.follower_group]
                .iter()
                .map(|&s| {
                    near.nearest(s)
                        .map_or(Aim::None, |j| Aim::Agent(q.leader_group, j))
                })
                .collect();
        }

        // Spawn every agent, fixed-point targets set; agent targets after.
        let mut ids: Vec<Vec<AgentId>> = Vec::with_capacity(p.groups.len());
        for (gi, g) in p.groups.iter().enumerate() {
            let rng = &mut rngs[gi];
            let mut group_ids = Vec::with_capacity(g.count);
            for (k, &pos) in positions[gi].iter().enumerate() {
                let (target, aim_at) = match aims[gi].get(k).copied().unwrap_or(Aim::None) {
                    Aim::None => (Target::None, None),
                    Aim::Point(t) => (Target::Point(t), Some(t)),
                    Aim::Agent(h, j) => (Target::None, Some(positions[h][j])),
                };
                let velocity = initial_velocity(g, pos, aim_at, rng);
                // A spread crowd's own top speeds (drawn after the direction, and only
                // where there is a spread: other profiles' streams stay as they were).
                let max_speed = speed_drawn(g.body.max_speed, g.body.max_speed_spread, rng);
                let velocity = if max_speed < g.body.max_speed {
                    crate::math::truncate(velocity, max_speed)
                } else {
                    velocity
                };
                let spec = AgentSpec::new(gids[gi], pos)
                    .with_velocity(velocity)
                    .with_limits(g.body.mass, max_speed, g.body.max_force)
                    .with_radius(g.body.radius)
                    .with_target(target);
                group_ids.push(world.spawn(spec)?);
            }
            ids.push(group_ids);
        }
        for (gi, group_aims) in aims.iter().enumerate() {
            for (k, aim) in group_aims.iter().enumerate() {
                if let Aim::Agent(h, j) = *aim {
                    world.set_target(ids[gi][k], Target::Agent(ids[h][j]))?;
                }
            }
        }
        for (gi, group_aims) in aims2.iter().enumerate() {
            for (k, aim) in group_aims.iter().enumerate() {
                let t = match *aim {
                    Aim::None => continue,
                    Aim::Point(t) => Target::Point(t),
                    Aim::Agent(h, j) => Target::Agent(ids[h][j]),
                };
                world.set_target2(ids[gi][k], t)?;
            }
        }
        let movers = movers
            .into_iter()
            .map(|(gi, path, speed, starts)| {
                let shared = starts
                    .first()
                    .copied()
                    .filter(|s0| starts.iter().all(|s| s.to_bits() == s0.to_bits()));
                Mover {
                    path,
                    speed,
                    agents: ids[gi].iter().copied().zip(starts).collect(),
                    group: gids[gi],
                    shared,
                }
            })
            .collect();
        let groups = p
            .groups
            .iter()
            .zip(&gids)
            .map(|(g, &id)| GroupInfo {
                id,
                name: g.name.clone(),
                count: g.count,
                colour: g.colour,
            })
            .collect();
        let mut leaving = Vec::new();
        for (g, id) in p.groups.iter().zip(&gids) {
            if id.index() >= leaving.len() {
                leaving.resize(id.index() + 1, false);
            }
            leaving[id.index()] = g.leave_on_arrival;
        }
        Ok(Self {
            profile: p.clone(),
            world,
            groups,
            leaders: leaders.into_iter().map(|(h, j)| ids[h][j]).collect(),
            movers,
            markers,
            leaving,
        })
    }

    /// Move the scenario's moving targets, then step the world by the
    /// profile's `dt`. The moving targets are not part of the tick's timings.
    ///
    /// # Errors
    /// None in practice: `dt` was validated and targets are live.
    pub fn step(&mut self) -> crate::Result<TickStats> {
        self.step_by(self.profile.world.dt)
    }

    /// Move the scenario's moving targets, then step the world by `dt`: what
    /// [`Scenario::step`] does, for a host that picks its own tick length. The
    /// moving targets follow the time stepped so far.
    ///
    /// # Errors
    /// [`crate::ThrongError::NotPositive`] when `dt` is not finite and > 0.
    pub fn step_by(&mut self, dt: f32) -> crate::Result<TickStats> {
        crate::error::positive("dt", dt)?;
        // The world's clock, which its snapshots keep.
        let time = self.world.elapsed() as f32;
        for m in &self.movers {
            let path = &self.profile.layout.paths[m.path];
            if let Some(start) = m.shared {
                // One point for the whole group: one validation, one pass over the
                // rows (a mover is one group's agents).
                let goal = path.point_at(start + m.speed * time);
                self.world.set_group_target(m.group, Target::Point(goal))?;
                continue;
            }
            // Agents with different starts: walk the path once per distinct distance.
            let mut last: Option<(f32, Vec2)> = None;
            for &(id, start) in &m.agents {
                let d = start + m.speed * time;
                let goal = match last {
                    Some((ld, goal)) if ld.to_bits() == d.to_bits() => goal,
                    _ => {
                        let goal = path.point_at(d);
                        last = Some((d, goal));
                        goal
                    }
                };
                self.world.set_target(id, Target::Point(goal))?;
            }
        }
        let stats = self.world.step(dt)?;
        self.leave()?;
        Ok(stats)
    }

    /// Despawn the agents of leaving groups that arrived in the last tick.
    fn leave(&mut self) -> crate::Result<()> {
        if !self.leaving.contains(&true) {
            return Ok(());
        }
        let leaving = &self.leaving;
        let gone: Vec<AgentId> = self
            .world
            .arrival_events()
            .iter()
            .filter(|e| e.to == crate::world::Arrival::Arrived)
            .map(|e| e.agent)
            .filter(|&a| {
                self.world
                    .agent_group(a)
                    .is_ok_and(|g| leaving.get(g.index()).copied().unwrap_or(false))
            })
            .collect();
        if gone.is_empty() {
            Ok(())
        } else {
            self.world.despawn_many(&gone)
        }
    }

    /// The scenario's state: its world's snapshot and its moving targets' clock, for
    /// [`Scenario::restore`] (benchmarks measure a fixed window of ticks this way).
    #[must_use]
    pub fn save(&self) -> ScenarioState {
        ScenarioState {
            world: self.world.snapshot(),
        }
    }

    /// Put the scenario back in a state [`Scenario::save`] took of it: stepping on
    /// gives bitwise what stepping on from the save did.
    ///
    /// # Errors
    /// [`World::restore`]'s, when the saved world does not hold together; the
    /// scenario is unchanged then.
    pub fn restore(&mut self, state: &ScenarioState) -> crate::Result<()> {
        self.world.restore(&state.world)
    }

    /// The profile the scenario was built from (after overrides).
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The world.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, mutably (to set a thread pool, say).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The static scene.
    #[must_use]
    pub fn layout(&self) -> &Layout {
        &self.profile.layout
    }

    /// The groups, by engine group index.
    #[must_use]
    pub fn groups(&self) -> &[GroupInfo] {
        &self.groups
    }

    /// Every squad leader.
    #[must_use]
    pub fn leaders(&self) -> &[AgentId] {
        &self.leaders
    }

    /// Fixed target points, with the index of the group aiming at each.
    #[must_use]
    pub fn markers(&self) -> &[(usize, Vec2)] {
        &self.markers
    }

    /// The area a picture should show: the profile's `bounds`, or everything
    /// the profile places (scene, spawn shapes, target points) with a margin.
    #[must_use]
    pub fn view(&self) -> Rect {
        if let Some(b) = self.profile.layout.bounds {
            return b;
        }
        let spawns = self
            .profile
            .groups
            .iter()
            .filter(|g| g.count > 0)
            .map(|g| g.spawn.extent(g.count));
        let marks = self.markers.iter().map(|&(_, p)| Rect::from_corners(p, p));
        let all = spawns
            .chain(marks)
            .chain(self.profile.layout.extent())
            .reduce(Rect::union)
            .unwrap_or(Rect::from_corners(Vec2::splat(-1.0), Vec2::splat(1.0)));
        let margin = (all.size().max_element() * 0.05).max(1.0);
        all.padded(margin)
    }
}

fn initial_velocity(
    g: &GroupSpec,
    pos: Vec2,
    aim: Option<Vec2>,
    rng: &mut crate::rng::AgentRng,
) -> Vec2 {
    // Always draw, so one agent's direction does not shift the next's.
    let angle = uniform01(rng) * std::f32::consts::TAU;
    let speed = g.body.initial_speed.min(g.body.max_speed);
    if speed <= 0.0 {
        return Vec2::ZERO;
    }
    let random = Vec2::new(angle.cos(), angle.sin());
    let dir = match (g.body.initial_direction, aim) {
        (InitialDirection::ToTarget, Some(t)) => crate::math::normalize_or(t - pos, random),
        _ => random,
    };
    dir * speed
}

/// Nearest-point queries over a fixed set of points: a uniform grid of about
/// one point per cell, searched in growing rings. Ties go to the lower index.
struct Nearest<'a> {
    points: &'a [Vec2],
    min: Vec2,
    cell: f32,
    dims: (usize, usize),
    /// Start of each cell's entries in `items` (one more than cells).
    starts: Vec<usize>,
    items: Vec<usize>,
}

impl<'a> Nearest<'a> {
    fn new(points: &'a [Vec2]) -> Self {
        let bounds = Rect::around(points.iter().copied())
            .unwrap_or(Rect::from_corners(Vec2::ZERO, Vec2::ZERO));
        let size = bounds.size().max(Vec2::splat(1e-3));
        let mut cell = ((size.x * size.y / points.len().max(1) as f32).sqrt()).max(1e-3);
        // At most about four cells per point (long thin sets would get more).
        let budget = 4.0 * points.len() as f32 + 16.0;
        while ((size.x / cell).floor() + 1.0) * ((size.y / cell).floor() + 1.0) > budget {
            cell *= 1.5;
        }
        let dims = (
            ((size.x / cell) as usize + 1).min(4096),
            ((size.y / cell) as usize + 1).min(4096),
        );
        let cell = cell.max(size.x / dims.0 as f32).max(size.y / dims.1 as f32);
        let mut grid = Self {
            points,
            min: bounds.min,
            cell,
            dims,
            starts: vec![0; dims.0 * dims.1 + 1],
            items: vec![0; points.len()],
        };
        for &p in points {
            let c = grid.cell_of(p);
            grid.starts[c + 1] += 1;
        }
        for c in 0..dims.0 * dims.1 {
            grid.starts[c + 1] += grid.starts[c];
        }
        let mut fill = grid.starts.clone();
        for (i, &p) in points.iter().enumerate() {
            let c = grid.cell_of(p);
            grid.items[fill[c]] = i;
            fill[c] += 1;
        }
        grid
    }

    fn coords(&self, p: Vec2) -> (i64, i64) {
        // Clamped so far-away points cannot overflow the ring arithmetic.
        let q = ((p - self.min) / self.cell)
            .floor()
            .clamp(Vec2::splat(-1e12), Vec2::splat(1e12));
        (q.x as i64, q.y as i64)
    }

    fn cell_of(&self, p: Vec2) -> usize {
        let (x, y) = self.coords(p);
        let x = x.clamp(0, self.dims.0 as i64 - 1) as usize;
        let y = y.clamp(0, self.dims.1 as i64 - 1) as usize;
        y * self.dims.0 + x
    }

    /// Index of the point nearest `q`; `None` when there are no points.
    fn nearest(&self, q: Vec2) -> Option<usize> {
        if self.points.is_empty() {
            return None;
        }
        let (cx, cy) = self.coords(q);
        let (w, h) = (self.dims.0 as i64, self.dims.1 as i64);
        // Rings of cells around q's cell, from the first that touches the grid
        // to the one that covers it all.
        let first = [0, -cx, cx - (w - 1), -cy, cy - (h - 1)]
            .into_iter()
            .max()
            .unwrap_or(0);
        let last = [cx, w - 1 - cx, cy, h - 1 - cy, 0]
            .into_iter()
            .map(i64::abs)
            .max()
            .unwrap_or(0)
            .max(first);
        let mut best: Option<(f32, usize)> = None;
        for ring in first..=last {
            // Every point in this ring or beyond is at least (ring - 1) cells away.
            if let Some((d, _)) = best {
                let reach = (ring - 1).max(0) as f32 * self.cell;
                if reach * reach > d {
                    break;
                }
            }
            let (y0, y1) = ((cy - ring).max(0), (cy + ring).min(h - 1));
            for y in y0..=y1 {
                let edge_row = (y - cy).abs() == ring;
                let xs: [Option<i64>; 2] = if edge_row {
                    [None, None]
                } else {
                    [Some(cx - ring), Some(cx + ring)]
                };
                let mut visit = |x: i64| {
                    if x < 0 || x >= w {
                        return;
                    }
                    let c = (y * w + x) as usize;
                    for &i in &self.items[self.starts[c]..self.starts[c + 1]] {
                        let d = self.points[i].distance_squared(q);
                        if best.is_none_or(|(bd, bi)| d < bd || (d == bd && i < bi)) {
                            best = Some((d, i));
                        }
                    }
                };
                if edge_row {
                    for x in (cx - ring).max(0)..=(cx + ring).min(w - 1) {
                        visit(x);
                    }
                } else {
                    for x in xs.into_iter().flatten() {
                        visit(x);
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::uniform;

    #[test]
    fn a_restored_scenario_steps_as_it_did_from_the_save_moving_targets_included() {
        // The flock chases a lure moving along a path: the clock matters.
        let bundled = crate::scenario::bundled("flock").unwrap();
        let profile = crate::scenario::load_bundled(bundled)
            .unwrap()
            .scaled_to(300);
        let mut s = Scenario::build(&profile).unwrap();
        for _ in 0..5 {
            s.step().unwrap();
        }
        let saved = s.save();
        let ahead: Vec<u64> = (0..10)
            .map(|_| {
                s.step().unwrap();
                s.world().state_hash()
            })
            .collect();
        s.restore(&saved).unwrap();
        let again: Vec<u64> = (0..10)
            .map(|_| {
                s.step().unwrap();
                s.world().state_hash()
            })
            .collect();
        assert_eq!(ahead, again);
    }

    #[test]
    fn nearest_matches_brute_force() {
        let mut rng = agent_rng(5, 5);
        for n in [1usize, 2, 7, 300] {
            let pts: Vec<Vec2> = (0..n)
                .map(|_| Vec2::new(uniform(&mut rng, -50.0, 50.0), uniform(&mut rng, 0.0, 5.0)))
                .collect();
            let near = Nearest::new(&pts);
            for _ in 0..200 {
                let q = Vec2::new(
                    uniform(&mut rng, -80.0, 80.0),
                    uniform(&mut rng, -30.0, 30.0),
                );
                let brute = (0..n)
                    .min_by(|&a, &b| {
                        pts[a]
                            .distance_squared(q)
                            .total_cmp(&pts[b].distance_squared(q))
                            .then(a.cmp(&b))
                    })
                    .unwrap();
                let got = near.nearest(q).unwrap();
                assert_eq!(
                    pts[got].distance_squared(q),
                    pts[brute].distance_squared(q),
                    "n {n} q {q}"
                );
            }
        }
        assert_eq!(Nearest::new(&[]).nearest(Vec2::ZERO), None);
    }

    #[test]
    fn duplicate_points_pick_the_lowest_index() {
        let pts = [Vec2::ONE, Vec2::ONE, Vec2::ONE];
        assert_eq!(Nearest::new(&pts).nearest(Vec2::ZERO), Some(0));
    }
}
