//! Stage 4, steering: every agent's steering output, in parallel, from the state as it
//! was at the start of the tick. Rows are steered in chunks of consecutive (spatially
//! sorted) rows, one rayon task each; each agent writes only its own output, random
//! stream and memory rows.

use std::ops::Range;
use std::sync::Mutex;

use glam::Vec2;
use rayon::prelude::*;

use crate::agents::{AgentId, Columns, Memory, Slots, SteerOut, Target};
use crate::behaviours::approach::WalkerState;
use crate::behaviours::avoidance::Line;
use crate::behaviours::flocking::Neighbour;
use crate::behaviours::leader::LeaderView;
use crate::behaviours::targeting::Body;
use crate::behaviours::AgentState;
use crate::group::{GroupConfig, PathId};
use crate::integrate::Integrator;
use crate::math::x4::LANES;
use crate::rng::AgentRng;
use crate::scene::{GoalField, ObstacleIndex, Path, WallIndex};
use crate::spatial::{BatchNeighbours, IndexKind, NeighbourQuery, SpatialIndex};

use super::kernel::{steer_one, AgentMut};
use super::kernel_x4::steer_four;
use super::plan::{GroupPlan, Kernel};
use super::World;

/// Rows are steered in chunks of this many consecutive (spatially sorted) rows:
/// one neighbour-index query per chunk, and one rayon task.
const STEER_CHUNK: usize = crate::spatial::CHUNK_ROWS;

/// Per-worker scratch of the steering pass, reused every tick.
#[derive(Default)]
pub(super) struct SteerScratch {
    pub batch: BatchNeighbours,
    /// The neighbour records of the agent being steered (records route only).
    pub neighbours: Vec<Neighbour>,
    /// Their rows, for avoidance (records route of an avoiding group only).
    pub rows: Vec<u32>,
    /// The avoidance's half-planes of the agent being steered, and its linear
    /// programs' scratch.
    pub lines: Vec<Line>,
    pub projected: Vec<Line>,
    /// The neighbour query of the group last steered in this chunk (cleared at each
    /// chunk: a query holds for the index as rebuilt this tick).
    query: Option<(usize, NeighbourQuery)>,
}

impl SteerScratch {
    /// Make room in every buffer for as much as `other`'s holds.
    fn reserve_like(&mut self, other: &Self) {
        use crate::spatial::reserve_like;
        self.batch.reserve_like(&other.batch);
        reserve_like(&mut self.neighbours, &other.neighbours);
        reserve_like(&mut self.rows, &other.rows);
        reserve_like(&mut self.lines, &other.lines);
        reserve_like(&mut self.projected, &other.projected);
    }

    /// The neighbour query of group `g_idx`: made once per run of rows of one group in
    /// a chunk (per-agent kernel: city 3303 → 3277, circle 7180 → 7142 instructions
    /// per agent-tick, `docs/optimisations.md`, fifth round).
    #[inline]
    pub(super) fn query(&mut self, ctx: &SteerCtx<'_>, g_idx: usize) -> NeighbourQuery {
        match self.query {
            Some((gi, q)) if gi == g_idx => q,
            _ => {
                let g = &ctx.groups[g_idx];
                let q =
                    NeighbourQuery::within(ctx.index, g.neighbour_radius).at_most(g.max_neighbours);
                self.query = Some((g_idx, q));
                q
            }
        }
    }
}

/// Read-only view of the state at the start of the tick, shared by all workers.
pub(super) struct SteerCtx<'a> {
    pub id: &'a [AgentId],
    pub group: &'a [u16],
    pub pos: &'a [Vec2],
    pub vel: &'a [Vec2],
    pub unit_vel: &'a [Vec2],
    pub heading: &'a [f32],
    pub rotation: &'a [f32],
    pub mass: &'a [f32],
    pub max_speed: &'a [f32],
    pub max_force: &'a [f32],
    pub radius: &'a [f32],
    pub target: &'a [Target],
    /// Per row: the second target; empty while no agent has one. Read through
    /// [`SteerCtx::target2`].
    pub target2: &'a [Target],
    /// Per row: the formation offset; empty while every agent's is zero. Read
    /// through [`SteerCtx::offset`].
    pub offset: &'a [Vec2],
    /// Per row: the host's preferred velocity (NaN when none); empty while no agent
    /// is host-driven. Read through [`SteerCtx::host_velocity`].
    pub preferred: &'a [Vec2],
    /// Per row: the agent's own path (`NO_ROUTE` when none); empty while no agent has
    /// one. Read through [`SteerCtx::path_of`].
    pub route: &'a [u32],
    pub groups: &'a [GroupConfig],
    pub plans: &'a [GroupPlan],
    pub walls: &'a WallIndex,
    pub obstacles: &'a ObstacleIndex,
    pub paths: &'a [Option<Path>],
    /// By field id; `None` where a field was removed.
    pub fields: &'a [Option<std::sync::Arc<GoalField>>],
    /// Per row: the leader in whose sight it is, or [`super::sight::NO_LEADER`]; empty
    /// without leaders. Read through [`SteerCtx::sighted_by_row`].
    pub sighted_by: &'a [AgentId],
    pub slots: &'a Slots,
    pub index: &'a SpatialIndex,
    /// Whether some group's flocking sums come from the candidates, which then carry
    /// the rows' unit velocities (a grid's entries; a tree's chunk candidates,
    /// gathered with them).
    pub sums_from_candidates: bool,
    /// The largest neighbour radius of a group that scans (0 when none does).
    pub max_radius: f32,
    /// Whether the avoidance meets only values whose squares cannot overflow
    /// ([`World::avoidance_fits`]).
    pub avoidance_fits: bool,
    pub dt: f32,
    pub integrator: Integrator,
}

impl SteerCtx<'_> {
    /// The state of the agent in `row`, as behaviours see it.
    #[inline]
    pub(super) fn state(&self, row: usize) -> AgentState {
        AgentState {
            pos: self.pos[row],
            vel: self.vel[row],
            heading: self.heading[row],
            rotation: self.rotation[row],
            max_speed: self.max_speed[row],
            max_force: self.max_force[row],
            radius: self.radius[row],
            mass: self.mass[row],
        }
    }

    /// The row of an agent target.
    pub(super) fn target_row(&self, target: Target) -> Option<usize> {
        match target {
            Target::Agent(id) => self.slots.row(id).map(|r| r as usize),
            _ => None,
        }
    }

    /// A leader as its followers see it.
    pub(super) fn leader_view(&self, row: usize) -> LeaderView {
        LeaderView {
            body: Body {
                pos: self.pos[row],
                vel: self.vel[row],
            },
            heading: self.heading[row],
        }
    }

    /// A target's position and velocity (`None` without one, or for a dead agent).
    pub(super) fn resolve(&self, target: Target) -> Option<Body> {
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

    /// The row of the leader in whose sight the agent in `row` is, if any.
    #[inline]
    pub(super) fn sighted_by_row(&self, row: usize) -> Option<usize> {
        let leader = *self.sighted_by.get(row)?;
        self.slots.row(leader).map(|r| r as usize)
    }

    /// The path the agent in `row` follows: its own, if it has one, else `group_path`
    /// (its group's follow-path behaviour's).
    pub fn path_of(&self, row: usize, group_path: Option<PathId>) -> Option<&Path> {
        let path = crate::agents::own_path(self.route, row).or(group_path.map(PathId::index))?;
        self.paths.get(path).and_then(Option::as_ref)
    }

    /// The second target of the agent in `row` (interpose).
    #[inline]
    pub(super) fn target2(&self, row: usize) -> Target {
        crate::agents::second_target(self.target2, row)
    }

    /// The formation offset of the agent in `row` (offset pursuit).
    #[inline]
    pub(super) fn offset(&self, row: usize) -> Vec2 {
        crate::agents::formation_offset(self.offset, row)
    }

    /// The host's preferred velocity of the agent in `row`, when it is host-driven.
    #[inline]
    pub(super) fn host_velocity(&self, row: usize) -> Option<Vec2> {
        crate::agents::host_velocity(self.preferred, row)
    }

    /// The plan of the group of the agent in `row`.
    #[inline]
    fn plan_of(&self, row: usize) -> &GroupPlan {
        &self.plans[self.group[row] as usize]
    }
}

/// The per-agent columns the steering pass writes, for one chunk of rows.
struct ChunkMut<'a> {
    out: &'a mut [SteerOut],
    rng: &'a mut [AgentRng],
    memory: &'a mut [Memory],
    walker: &'a mut [WalkerState],
}

impl World {
    /// Stage 4: every agent's steering output, in parallel. Returns the total
    /// neighbour count.
    pub(super) fn steer(&mut self, dt: f32) -> u64 {
        crate::zone!("steer");
        let threads = rayon::current_num_threads().max(1);
        while self.scratch.len() < threads {
            self.scratch.push(Mutex::new(SteerScratch::default()));
        }
        let max_radius = self.max_neighbour_radius();
        let sums_from_candidates = self.sums_from_candidates();
        // The written columns move out while the context borrows the rest; they
        // come back below (a move of three words each, no copy).
        let mut out = std::mem::take(&mut self.cols.out);
        let mut rng = std::mem::take(&mut self.cols.rng);
        let mut memory = std::mem::take(&mut self.cols.memory);
        let mut walker = self.cols.walker.take_rows();
        #[cfg(test)]
        if std::mem::take(&mut self.panic_next_tick) {
            panic!("a test's panic, with the written columns taken out");
        }
        let ctx = self.steer_ctx(
            dt,
            max_radius,
            sums_from_candidates,
            self.avoidance_fits(dt),
        );
        let scratch = &self.scratch;
        let rows = out.len();
        let neighbours = out
            .par_chunks_mut(STEER_CHUNK)
            .zip(rng.par_chunks_mut(STEER_CHUNK))
            .zip(memory.par_chunks_mut(STEER_CHUNK))
            .zip(walker_chunks(&mut walker, rows))
            .enumerate()
            .map(|(chunk, (((out, rng), memory), walker))| {
                // One zone per chunk: Tracy shows which worker steered what, and when.
                crate::zone!("steer chunk");
                let worker = rayon::current_thread_index().unwrap_or(0) % scratch.len();
                let mut guard = scratch[worker].lock().unwrap_or_else(|e| e.into_inner());
                let rows = ChunkMut {
                    out,
                    rng,
                    memory,
                    walker,
                };
                steer_chunk(&ctx, chunk * STEER_CHUNK, rows, &mut guard)
            })
            .sum();
        self.cols.out = out;
        self.cols.rng = rng;
        self.cols.memory = memory;
        self.cols.walker.put_back(walker);
        self.even_out_scratch();
        neighbours
    }

    /// Bring every worker's scratch to the room of the largest (the first gathers
    /// them all, then each takes the first's), so that which worker happened to steer
    /// the densest chunks this tick does not decide which one grows in a later tick:
    /// once the largest has stopped growing, no steering pass allocates, however the
    /// chunks are shared out. Allocates only where a worker lags behind.
    fn even_out_scratch(&mut self) {
        let Some((first, rest)) = self.scratch.split_first_mut() else {
            return;
        };
        let first = first.get_mut().unwrap_or_else(|e| e.into_inner());
        for other in rest.iter_mut() {
            first.reserve_like(other.get_mut().unwrap_or_else(|e| e.into_inner()));
        }
        for other in rest.iter_mut() {
            other
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .reserve_like(first);
        }
    }

    /// The read-only context of the steering pass over the world as it is (the
    /// columns the pass writes left out).
    pub(super) fn steer_ctx(
        &self,
        dt: f32,
        max_radius: f32,
        sums_from_candidates: bool,
        avoidance_fits: bool,
    ) -> SteerCtx<'_> {
        let Columns {
            id,
            group,
            pos,
            vel,
            unit_vel,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            radius,
            target,
            target2,
            offset,
            rng: _,
            memory: _,
            walker: _,
            out: _,
            arrival: _,
            preferred,
            route,
        } = &self.cols;
        SteerCtx {
            id,
            group,
            pos,
            vel,
            unit_vel,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            radius,
            target,
            target2: target2.rows(),
            offset: offset.rows(),
            preferred: preferred.rows(),
            route: route.rows(),
            groups: &self.groups,
            plans: &self.plans,
            walls: &self.walls,
            obstacles: &self.obstacles,
            paths: &self.paths,
            fields: &self.fields,
            sighted_by: &self.sighted_by,
            slots: &self.slots,
            index: &self.index,
            sums_from_candidates,
            max_radius,
            avoidance_fits,
            dt,
            integrator: self.config.integrator,
        }
    }
}

/// The walker column in steering chunks; empty chunks while no group walks (the
/// column is empty then).
fn walker_chunks(
    walker: &mut [WalkerState],
    rows: usize,
) -> impl IndexedParallelIterator<Item = &mut [WalkerState]> {
    if walker.is_empty() {
        let empty = (0..rows.div_ceil(STEER_CHUNK)).into_par_iter();
        rayon::iter::Either::Left(empty.map(|_| -> &mut [WalkerState] { &mut [] }))
    } else {
        rayon::iter::Either::Right(walker.par_chunks_mut(STEER_CHUNK))
    }
}

/// Steer the rows of one chunk, starting at `first`; returns their neighbour total.
fn steer_chunk(ctx: &SteerCtx<'_>, first: usize, rows: ChunkMut<'_>, s: &mut SteerScratch) -> u64 {
    let ChunkMut {
        out,
        rng,
        memory,
        walker,
    } = rows;
    s.query = None;
    gather_chunk(ctx, first..first + out.len(), s);
    // No group walks while the walker column is empty: a scratch state stands in.
    let mut idle = WalkerState::default();
    // The neighbour total, summed by the workers (integers: exact in any order).
    let mut neighbours = 0u64;
    let mut k = 0;
    while k < out.len() {
        let row = first + k;
        let end = k + LANES;
        // Four rows of one group with a lane program are steered together.
        if let (Kernel::Four(program), Some(groups)) =
            (&ctx.plan_of(row).kernel, ctx.group.get(row..first + end))
        {
            if let (true, Some(o), Some(r), Some(m)) = (
                groups.iter().all(|&g| g == groups[0])
                    && (row..first + end).all(|r| ctx.host_velocity(r).is_none()),
                out.get_mut(k..end).and_then(|x| x.try_into().ok()),
                rng.get_mut(k..end).and_then(|x| x.try_into().ok()),
                memory.get_mut(k..end).and_then(|x| x.try_into().ok()),
            ) {
                neighbours += steer_four(ctx, row, program, (o, r, m), s);
                k = end;
                continue;
            }
        }
        let m = AgentMut {
            rng: &mut rng[k],
            memory: &mut memory[k],
            walker: walker.get_mut(k).unwrap_or(&mut idle),
        };
        let (o, seen) = steer_one(ctx, row, m, s);
        out[k] = o;
        neighbours += u64::from(seen);
        k += 1;
    }
    neighbours
}

/// With the k-d tree, one index query for the chunk's candidates (the grid is scanned
/// in place): when some row of the chunk scans, with the unit velocities when some
/// row's flocking sums come from the candidates.
fn gather_chunk(ctx: &SteerCtx<'_>, rows: Range<usize>, s: &mut SteerScratch) {
    if ctx.max_radius > 0.0
        && ctx.index.kind() == IndexKind::KdTree
        && rows.clone().any(|r| ctx.plan_of(r).route.scans())
    {
        crate::zone!("chunk tree query");
        let sums = |r: usize| ctx.plan_of(r).route.sums_from_candidates();
        let unit_vels =
            (ctx.sums_from_candidates && rows.clone().any(sums)).then_some(ctx.unit_vel);
        s.batch
            .gather(ctx.index, ctx.pos, rows, ctx.max_radius, unit_vels);
    }
}
