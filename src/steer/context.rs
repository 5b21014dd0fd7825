//! What the steering pass reads and the scratch it works in: the read-only view of
//! the world at the start of the tick ([`SteerCtx`]) shared by every worker, and each
//! worker's buffers ([`SteerScratch`]), reused every tick.

use std::sync::Mutex;

use crossbeam_utils::CachePadded;
use glam::Vec2;

use crate::agents::{AgentId, Slots, Target};
use crate::behaviours::avoidance::Line;
use crate::behaviours::flocking::Neighbour;
use crate::behaviours::leader::LeaderView;
use crate::behaviours::targeting::Motion;
use crate::behaviours::walls::detour;
use crate::behaviours::AgentState;
use crate::group::{FieldId, GroupConfig, PathId};
use crate::integrate::Integrator;
use crate::scene::{GoalField, ObstacleIndex, Path, WallIndex};
use crate::spatial::{BatchNeighbours, NeighbourQuery, SpatialIndex};

use super::plan::GroupPlan;
use super::think::{turn_of, LevelOfDetail};

/// How far ahead on the straight line to its target (in its radii) an agent looks
/// for a wall to walk round ([`SteerCtx::aim`]): a few steps, so that the test stays
/// short and an agent walks up to a far wall before it turns along it.
const DETOUR_REACH: f32 = 4.0;

/// Only an agent making way toward its target at less than this share of its top
/// speed looks for a wall to walk round ([`SteerCtx::aim`]): one that a wall holds
/// back makes little, and one walking freely toward its target pays nothing for the
/// test.
const DETOUR_BELOW: f32 = 0.25;

/// One worker's scratch, on cache lines of its own: the workers write their
/// scratch's lengths and flags for every agent, and two scratches sharing a line
/// would make each worker's writes evict the other's.
pub(crate) type WorkerScratch = CachePadded<Mutex<SteerScratch>>;

/// Per-worker scratch of the steering pass, reused every tick.
#[derive(Default)]
pub(crate) struct SteerScratch {
    pub batch: BatchNeighbours,
    /// The neighbour records of the agent being steered (records route only).
    pub neighbours: Vec<Neighbour>,
    /// Their rows, for avoidance (records route of an avoiding group only).
    pub rows: Vec<u32>,
    /// The avoidance's half-planes of the agent being steered, and its linear
    /// programs' scratch.
    pub lines: Vec<Line>,
    pub projected: Vec<Line>,
    /// The walls near the agent being steered, for its avoidance (in ascending
    /// index: its half-planes come in that order whatever the wall index's cells).
    pub walls: Vec<u32>,
    /// Whether the agent being steered has arrived (its arrival state after the last
    /// tick), for its avoidance; and whether that found it queued at its target point.
    pub arrived: bool,
    pub queued: bool,
    /// The neighbour query of the group last steered in this chunk (cleared at each
    /// chunk: a query holds for the index as rebuilt this tick).
    query: Option<(usize, NeighbourQuery)>,
}

impl SteerScratch {
    /// Forget the query of the last chunk: a query holds for the index as rebuilt
    /// this tick, and a chunk starts afresh.
    pub(crate) fn start_chunk(&mut self) {
        self.query = None;
    }

    /// Make room in every buffer for as much as `other`'s holds.
    pub(crate) fn reserve_like(&mut self, other: &Self) {
        use crate::spatial::reserve_like;
        self.batch.reserve_like(&other.batch);
        reserve_like(&mut self.neighbours, &other.neighbours);
        reserve_like(&mut self.rows, &other.rows);
        reserve_like(&mut self.lines, &other.lines);
        reserve_like(&mut self.projected, &other.projected);
        reserve_like(&mut self.walls, &other.walls);
    }

    /// The neighbour query of group `g_idx`: made once per run of rows of one group in
    /// a chunk rather than once per agent.
    #[inline]
    pub(crate) fn query(&mut self, ctx: &SteerCtx<'_>, g_idx: usize) -> NeighbourQuery {
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
pub(crate) struct SteerCtx<'a> {
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
    /// [`SteerCtx::second_target`].
    pub target2: &'a [Target],
    /// Per row: the formation offset; empty while every agent's is zero. Read
    /// through [`SteerCtx::offset`].
    pub offset: &'a [Vec2],
    /// Per row: the host's preferred velocity (NaN when none); empty while no agent
    /// is host-driven. Read through [`SteerCtx::host_velocity`].
    pub preferred: &'a [Vec2],
    /// Per row: the agent's own path (`NO_PATH` when none); empty while no agent has
    /// one. Read through [`SteerCtx::path_of`].
    pub path: &'a [u32],
    pub groups: &'a [GroupConfig],
    pub plans: &'a [GroupPlan],
    pub walls: &'a WallIndex,
    pub obstacles: &'a ObstacleIndex,
    pub paths: &'a [Option<Path>],
    /// By field id; `None` where a field was removed.
    pub fields: &'a [Option<std::sync::Arc<GoalField>>],
    /// Per row: the leader in whose sight it is, or the leader-sight stage's mark for
    /// none; empty without leaders. Read through [`SteerCtx::sighted_by_row`].
    pub sighted_by: &'a [AgentId],
    pub slots: &'a Slots,
    pub index: &'a SpatialIndex,
    /// Whether some group's three flocking sums come from the candidates, which then
    /// carry the rows' unit velocities (a grid's entries; a tree's chunk candidates,
    /// gathered with them).
    pub candidates_carry_unit_vels: bool,
    /// The largest neighbour radius of a group that scans (0 when none does).
    pub max_radius: f32,
    /// Whether the avoidance meets only values whose squares cannot overflow
    /// ([`super::avoid::avoidance_fits`]).
    pub avoidance_fits: bool,
    pub dt: f32,
    pub integrator: Integrator,
    /// The tick being steered (the world's count of ticks before it).
    pub tick: u64,
    /// The world's level of detail, if any.
    pub lod: Option<LevelOfDetail>,
    /// Whether some agent may skip this tick: a group thinks less often than every
    /// tick, or a level of detail is set ([`SteerCtx::thinks`]).
    pub rotates: bool,
}

impl SteerCtx<'_> {
    /// The state of the agent in `row`, as behaviours see it.
    #[inline]
    pub(crate) fn state(&self, row: usize) -> AgentState {
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
    pub(crate) fn target_row(&self, target: Target) -> Option<usize> {
        match target {
            Target::Agent(id) => self.slots.row(id).map(|r| r as usize),
            _ => None,
        }
    }

    /// A leader as its followers see it.
    pub(crate) fn leader_view(&self, row: usize) -> LeaderView {
        LeaderView {
            body: Motion {
                pos: self.pos[row],
                vel: self.vel[row],
            },
            heading: self.heading[row],
        }
    }

    /// A target's position and velocity (`None` without one, or for a dead agent).
    pub(crate) fn resolve(&self, target: Target) -> Option<Motion> {
        match target {
            Target::None => None,
            Target::Point(p) => Some(Motion {
                pos: p,
                vel: Vec2::ZERO,
            }),
            Target::Agent(id) => self.slots.row(id).map(|r| Motion {
                pos: self.pos[r as usize],
                vel: self.vel[r as usize],
            }),
        }
    }

    /// Whether the agents of group `g_idx` look for a wall between them and their
    /// target ([`SteerCtx::aim`]): its behaviours head for targets, and the scene has
    /// walls.
    #[inline]
    pub(crate) fn detours(&self, g_idx: usize) -> bool {
        self.plans[g_idx].detours && !self.walls.is_empty()
    }

    /// Where the agent in `row`, of a group that [`detours`](Self::detours), heads for
    /// its target `t`: the target itself, or, where a wall stands between within
    /// [`DETOUR_REACH`] radii and the agent makes little way toward the target, just
    /// past that wall's nearer end ([`detour`], two radii beyond it), at rest. Out of
    /// line: only walled scenes come here.
    #[inline(never)]
    pub(crate) fn aim(&self, row: usize, t: Motion) -> Motion {
        // Making way toward it at `DETOUR_BELOW` of its top speed or more: nothing
        // holds it back.
        // (By squares: `v · ahead >= k · max_speed · |ahead|`.)
        let (pos, ahead) = (self.pos[row], t.pos - self.pos[row]);
        let making = self.vel[row].dot(ahead);
        let enough = DETOUR_BELOW * self.max_speed[row];
        if making >= 0.0 && making * making >= enough * enough * ahead.length_squared() {
            return t;
        }
        let r = self.radius[row];
        let to = detour(self.walls, pos, t.pos, (2.0 * r, DETOUR_REACH * r));
        if to == t.pos {
            t
        } else {
            Motion {
                pos: to,
                vel: Vec2::ZERO,
            }
        }
    }

    /// The row of the leader in whose sight the agent in `row` is, if any.
    #[inline]
    pub(crate) fn sighted_by_row(&self, row: usize) -> Option<usize> {
        let leader = *self.sighted_by.get(row)?;
        self.slots.row(leader).map(|r| r as usize)
    }

    /// The path the agent in `row` follows: its own, if it has one, else `group_path`
    /// (its group's follow-path behaviour's).
    pub fn path_of(&self, row: usize, group_path: Option<PathId>) -> Option<&Path> {
        let path = crate::agents::own_path(self.path, row).or(group_path.map(PathId::index))?;
        self.paths.get(path).and_then(Option::as_ref)
    }

    /// The second target of the agent in `row` (interpose).
    #[inline]
    pub(crate) fn second_target(&self, row: usize) -> Target {
        crate::agents::second_target(self.target2, row)
    }

    /// The formation offset of the agent in `row` (offset pursuit).
    #[inline]
    pub(crate) fn offset(&self, row: usize) -> Vec2 {
        crate::agents::formation_offset(self.offset, row)
    }

    /// The host's preferred velocity of the agent in `row`, when it is host-driven.
    #[inline]
    pub(crate) fn host_velocity(&self, row: usize) -> Option<Vec2> {
        crate::agents::host_velocity(self.preferred, row)
    }

    /// The plan of the group of the agent in `row`.
    #[inline]
    pub(crate) fn plan_of(&self, row: usize) -> &GroupPlan {
        &self.plans[self.group[row] as usize]
    }

    /// The goal field `id`, while it stands.
    #[inline]
    pub(crate) fn field(&self, id: FieldId) -> Option<&GoalField> {
        self.fields.get(id.index())?.as_deref()
    }

    /// Ask the cache for the goal field cells the agent in `row` will sample, if it
    /// follows a field (a hint: nothing else changes; nothing for a row past the end).
    #[inline]
    pub(crate) fn prefetch_field(&self, row: usize) {
        let Some(&group) = self.group.get(row) else {
            return;
        };
        if let Some(f) = self.plans[group as usize].field.and_then(|f| self.field(f)) {
            f.prefetch(self.pos[row]);
        }
    }

    /// Whether the agent in `row`, of steering chunk `chunk`, steers on this tick: its
    /// group's think rate, or the level of detail's where it stands far and that is
    /// slower ([`super::think`]).
    #[inline]
    pub(crate) fn thinks(&self, row: usize, chunk: usize) -> bool {
        let mut k = self.plan_of(row).think_every;
        if let Some(lod) = &self.lod {
            if lod.is_far(self.pos[row]) {
                k = k.max(lod.think_every);
            }
        }
        turn_of(chunk, self.tick, k)
    }
}
