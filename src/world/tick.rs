//! The tick: [`World::step`] is the pipeline's table of contents, one named call per
//! stage with its timer; stages 1 and 2 (re-sort, index rebuild) are here, the others
//! in files of their own.

use std::time::Instant;

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{positive, Result, ThrongError};
use crate::spatial::{grid_keys_by_index, spatial_keys, IndexKind};

use super::World;

/// Wall-clock time of each stage of one tick, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// The spatial re-sort of the rows (0 on ticks without one: it runs every
    /// [`WorldConfig::reorder_interval`](super::WorldConfig::reorder_interval) ticks).
    pub resort_ns: u64,
    /// Index rebuild.
    pub index_ns: u64,
    /// Leader sight marking.
    pub sight_ns: u64,
    /// Parallel steering.
    pub steer_ns: u64,
    /// Integration.
    pub integrate_ns: u64,
    /// Congestion-aware goal fields rebuilt for the crowd (0 on ticks without one).
    pub fields_ns: u64,
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
    /// Stage timings.
    pub times: PhaseTimes,
    /// Sum over the agents that steered of the neighbours each perceived.
    pub neighbours: u64,
    /// Agents that steered: all of them, unless level of detail
    /// ([`World::set_level_of_detail`], `GroupConfig::think_every`) rested some on
    /// this tick (they move on their last steering). `neighbours / steered` is the
    /// mean neighbour count of an agent that looked.
    pub steered: u64,
    /// Non-finite results replaced by the previous state (0 for finite input).
    pub quarantined: u64,
    /// Moves that would have crossed a wall and were stopped or slid along it
    /// by the integration pass.
    pub crossings_prevented: u64,
}

/// Run `stage`, adding its wall-clock time to `ns`.
#[inline]
fn timed<R>(ns: &mut u64, stage: impl FnOnce() -> R) -> R {
    let start = Instant::now();
    let r = stage();
    *ns += elapsed_ns(start);
    r
}

fn elapsed_ns(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Rows appended or moved by spawns, despawns and teleports after which the next tick re-sorts,
/// with the k-d tree ([`World::resort_if_due`]): one chunk's worth. On the flock at 50k
/// agents with 0.1% of them replaced every tick, the tree's tick was about 5x the plain
/// crowd's without it (`cargo bench -- patterns`). The grid, which queries row by row,
/// does not need it.
pub(crate) const RESORT_AFTER_DISTURBED: usize = crate::spatial::CHUNK_ROWS;

/// An agent moved by the host ([`World::set_position`]) farther than this many of the
/// largest neighbour radius counts toward the k-d tree's early re-sort (after 128 rows
/// appended or moved since the last), as a spawn does: a crowd teleported across the
/// map re-sorts at the next tick, rather than having its chunks span the map until the
/// periodic re-sort (a chunk spanning towns far apart scans its rows one by one).
pub const TELEPORT_RADII: f32 = 8.0;

impl World {
    /// Advance the world by `dt` seconds. `dt` must be finite and > 0; nothing
    /// else can fail.
    pub fn step(&mut self, dt: f32) -> Result<TickStats> {
        positive("dt", dt)?;
        if let Some(why) = &self.panicked {
            return Err(ThrongError::Panicked(why.clone()));
        }
        self.queries.invalidate();
        let pool = self.pool.clone();
        // The whole tick runs on a worker of the pool, so that each parallel stage
        // starts from inside the pool rather than being handed over from this thread.
        let stepped = catch_unwind(AssertUnwindSafe(|| match pool {
            Some(pool) => pool.install(|| self.step_inner(dt)),
            None => rayon::scope(|_| self.step_inner(dt)),
        }));
        stepped.map_err(|payload| {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_string());
            self.panicked = Some(why.clone());
            ThrongError::Panicked(why)
        })
    }

    /// The pipeline, stage by stage.
    fn step_inner(&mut self, dt: f32) -> TickStats {
        self.last_dt = dt;
        crate::zone!("tick");
        let start = Instant::now();
        let mut t = PhaseTimes::default();
        timed(&mut t.resort_ns, || self.resort_if_due());
        timed(&mut t.index_ns, || self.rebuild_index());
        timed(&mut t.sight_ns, || self.mark_leader_sight());
        let (neighbours, steered) = timed(&mut t.steer_ns, || self.steer(dt));
        let moved = timed(&mut t.integrate_ns, || self.integrate(dt));
        self.tick += 1;
        self.elapsed += f64::from(dt);
        timed(&mut t.fields_ns, || self.recount_fields());
        t.total_ns = elapsed_ns(start);

        self.last = TickStats {
            tick: self.tick,
            agents: self.cols.len(),
            times: t,
            neighbours,
            steered,
            quarantined: moved.quarantined,
            crossings_prevented: moved.crossings_prevented,
        };
        crate::plot!("agents", self.cols.len() as f64);
        crate::plot!("mean neighbours", neighbours as f64 / steered.max(1) as f64);
        crate::trace::frame_mark();
        self.last
    }

    /// Stage 1: every `reorder_interval` ticks, put the rows in spatial order, so that
    /// neighbours are near in memory. Handles follow their rows. Each index has its
    /// order: with the k-d tree, along a Hilbert curve (`spatial_keys`), so that a
    /// chunk of consecutive rows is a compact patch; with the grid, the grid's own
    /// order, cell by cell (`grid_keys`), so that its fill writes in order and the
    /// steering reads its cells band by band; read off the grid's counting sort
    /// (`grid_keys_by_index`) rather than sorted.
    ///
    /// With the k-d tree, also sooner, once spawns, despawns and teleports
    /// ([`TELEPORT_RADII`]) have appended or moved [`RESORT_AFTER_DISTURBED`] rows
    /// since the last sort: spawned rows sit at the end, wherever they stand, and a
    /// chunk of them would gather the whole crowd as candidates (a despawn's moved row
    /// alone is scanned apart, as a stray).
    fn resort_if_due(&mut self) {
        let interval = self.config.reorder_interval as u64;
        let churned =
            self.disturbed >= RESORT_AFTER_DISTURBED && self.config.index == IndexKind::KdTree;
        let due = self.tick.is_multiple_of(interval.max(1)) || churned;
        if interval == 0 || !due || self.cols.len() <= 1 {
            return;
        }
        self.disturbed = 0;
        crate::zone!("spatial re-sort");
        let hint = self.max_neighbour_radius();
        let keys = match self.config.index {
            IndexKind::KdTree => spatial_keys(&self.cols.pos, &mut self.order_scratch),
            IndexKind::Grid => grid_keys_by_index(
                &mut self.index,
                &self.cols.pos,
                hint,
                &mut self.order_scratch,
            ),
        };
        self.cols.permute(keys, &mut self.cycles);
        let rows = self.cols.len();
        super::sight::permute_sight_marks(&mut self.sighted_by, rows, &self.cycles, keys);
        for (row, &id) in self.cols.id.iter().enumerate() {
            self.slots.set_row(id, row as u32);
        }
    }

    /// Stage 2: rebuild the neighbour index over every position.
    fn rebuild_index(&mut self) {
        crate::zone!("rebuild index");
        let hint = self.max_neighbour_radius();
        // A grid stores the rows' unit velocities when some group's three flocking sums
        // are read from the candidates.
        let unit_vels = self
            .candidates_carry_unit_vels()
            .then_some(&self.cols.unit_vel[..]);
        self.index.rebuild(&self.cols.pos, unit_vels, hint);
    }

    /// Whether some group's three flocking sums are read in one pass over the
    /// neighbour candidates, which then carry unit velocities.
    pub(super) fn candidates_carry_unit_vels(&self) -> bool {
        self.plans
            .iter()
            .any(|p| p.route.candidates_carry_unit_vels())
    }

    /// The largest neighbour radius of a group that scans for neighbours.
    pub(super) fn max_neighbour_radius(&self) -> f32 {
        self.groups
            .iter()
            .zip(&self.plans)
            .filter(|(_, p)| p.route.scans())
            .map(|(g, _)| g.neighbour_radius)
            .fold(0.0, f32::max)
    }
}
