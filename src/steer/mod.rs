//! The steering stage: every agent's steering output, in parallel, from the state as
//! it was at the start of the tick. The world builds the read-only context
//! ([`SteerCtx`]) and calls [`steer`]; rows are steered in chunks of consecutive
//! (spatially sorted) rows, one rayon task each, and each agent writes only its own
//! output, random stream and memory rows.
//!
//! Inside, from the top down:
//! - [`plan`]: what each group asks of the stage, decided once per group (its
//!   neighbour route, its kernel, its avoidance);
//! - `kernel` and `lanes`: the per-agent kernel (behaviours dispatched and combined)
//!   and the four-agent kernel of groups with a lane program, bitwise the same;
//! - `perceive`: an agent's neighbours, by the route its group's plan chose;
//! - `avoid`: ORCA's half-planes and linear programs for avoiding groups;
//! - `think`: level of detail, which chunks of rows steer on a tick.
//!
//! The stage reads the spatial index, the scene and the behaviours' formulas; it
//! knows nothing of the world that calls it.

mod avoid;
mod context;
mod kernel;
mod lanes;
mod perceive;
pub(crate) mod plan;
mod think;

use std::ops::Range;

use rayon::prelude::*;

use crate::agents::arrival::ArrivalMemory;
use crate::agents::{BehaviourMemory, SteerOut};
use crate::behaviours::approach::WalkerState;
use crate::math::x4::LANES;
use crate::rng::AgentRng;
use crate::spatial::IndexKind;

pub(crate) use avoid::{avoid, avoidance_fits};
pub(crate) use context::{SteerCtx, SteerScratch, WorkerScratch};
use kernel::{steer_one, AgentMut};
use lanes::{steer_four, steer_four_own};
use plan::Kernel;
pub use think::LevelOfDetail;

// The world's tests look inside the stage, through a world they build.
#[cfg(test)]
pub(crate) use kernel::preferred_velocity;
pub(crate) use kernel::stance;
#[cfg(test)]
pub(crate) use perceive::{
    candidate_sums_x4, column_sums, perceive, separation_radii, Flock, Perceived,
};

/// Rows are steered in chunks of this many consecutive (spatially sorted) rows:
/// one neighbour-index query per chunk, and one rayon task.
const STEER_CHUNK: usize = crate::spatial::CHUNK_ROWS;

/// Rows ahead of the one steering whose goal field cells are asked of the cache:
/// sampling a large field waits on memory, and an agent's steering takes about as
/// long as that wait (`docs/optimisations.md`).
const FIELD_AHEAD: usize = 4;

/// The per-agent columns the steering pass writes: the whole columns, or one chunk
/// of their rows. `walker` is empty while no group walks; of `arrival`, the stage
/// writes only the queue flag ([`ArrivalMemory::queued`]) of avoiding agents.
pub(crate) struct Written<'a> {
    pub out: &'a mut [SteerOut],
    pub rng: &'a mut [AgentRng],
    pub memory: &'a mut [BehaviourMemory],
    pub walker: &'a mut [WalkerState],
    pub arrival: &'a mut [ArrivalMemory],
}

/// Every agent's steering output, in parallel over chunks of rows, into `written`;
/// `scratch` holds at least one buffer per worker. Returns the total neighbour
/// count, and how many agents steered (all of them, unless level of detail rested
/// some).
pub(crate) fn steer(
    ctx: &SteerCtx<'_>,
    written: Written<'_>,
    scratch: &[WorkerScratch],
) -> (u64, u64) {
    let Written {
        out,
        rng,
        memory,
        walker,
        arrival,
    } = written;
    let rows = out.len();
    out.par_chunks_mut(STEER_CHUNK)
        .zip(rng.par_chunks_mut(STEER_CHUNK))
        .zip(memory.par_chunks_mut(STEER_CHUNK))
        .zip(walker_chunks(walker, rows))
        .zip(arrival.par_chunks_mut(STEER_CHUNK))
        .enumerate()
        .map(|(chunk, ((((out, rng), memory), walker), arrival))| {
            // One zone per chunk: Tracy shows which worker steered what, and when.
            crate::zone!("steer chunk");
            let worker = rayon::current_thread_index().unwrap_or(0) % scratch.len();
            let mut guard = scratch[worker].lock().unwrap_or_else(|e| e.into_inner());
            let rows = Written {
                out,
                rng,
                memory,
                walker,
                arrival,
            };
            steer_chunk(ctx, chunk * STEER_CHUNK, rows, &mut guard)
        })
        // Integers: exact in any order.
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Bring every worker's scratch to the room of the largest (the first gathers them
/// all, then each takes the first's), so that which worker happened to steer the
/// densest chunks this tick does not decide which one grows in a later tick: once the
/// largest has stopped growing, no steering pass allocates, however the chunks are
/// shared out. Allocates only where a worker lags behind.
pub(crate) fn even_out(scratch: &mut [WorkerScratch]) {
    let Some((first, rest)) = scratch.split_first_mut() else {
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

/// Steer the rows of one chunk, starting at `first`; returns their neighbour total
/// and how many of them steered.
fn steer_chunk(
    ctx: &SteerCtx<'_>,
    first: usize,
    rows: Written<'_>,
    s: &mut SteerScratch,
) -> (u64, u64) {
    let Written {
        out,
        rng,
        memory,
        walker,
        arrival,
    } = rows;
    // Level of detail: the rows that steer on this tick; the others keep their last
    // output (a chunk where none steers is left at once).
    let chunk = first / STEER_CHUNK;
    let thinks = |row: usize| !ctx.rotates || ctx.thinks(row, chunk);
    let steered = if ctx.rotates {
        (first..first + out.len()).filter(|&r| thinks(r)).count()
    } else {
        out.len()
    };
    if steered == 0 {
        return (0, 0);
    }
    s.start_chunk();
    gather_chunk(ctx, first..first + out.len(), s);
    // No group walks while the walker column is empty: a scratch state stands in.
    let mut idle = WalkerState::default();
    // The neighbour total, summed by the workers (integers: exact in any order).
    let mut neighbours = 0u64;
    let reads_fields = ctx.plans.iter().any(|p| p.field.is_some());
    let mut k = 0;
    while k < out.len() {
        let row = first + k;
        if !thinks(row) {
            k += 1;
            continue;
        }
        let end = k + LANES;
        // Four rows of one group with a lane program are steered together.
        if let (Kernel::Four(program), Some(groups)) =
            (&ctx.plan_of(row).kernel, ctx.group.get(row..first + end))
        {
            if let (true, Some(o), Some(r), Some(m)) = (
                groups.iter().all(|&g| g == groups[0])
                    && (row..first + end).all(|r| ctx.host_velocity(r).is_none() && thinks(r)),
                out.get_mut(k..end).and_then(|x| x.try_into().ok()),
                rng.get_mut(k..end).and_then(|x| x.try_into().ok()),
                memory.get_mut(k..end).and_then(|x| x.try_into().ok()),
            ) {
                // A program that follows a field asks for the next four rows' cells
                // itself (`lanes::own_ahead`).
                neighbours += if program.owns() {
                    steer_four_own(ctx, row, program, (o, r, m), s)
                } else {
                    steer_four(ctx, row, program, (o, r, m), s)
                };
                k = end;
                continue;
            }
        }
        if reads_fields {
            ctx.prefetch_field(row + FIELD_AHEAD);
        }
        let m = AgentMut {
            rng: &mut rng[k],
            memory: &mut memory[k],
            walker: walker.get_mut(k).unwrap_or(&mut idle),
            arrival: &mut arrival[k],
        };
        let (o, seen) = steer_one(ctx, row, m, s);
        out[k] = o;
        neighbours += u64::from(seen);
        k += 1;
    }
    (neighbours, steered as u64)
}

/// With the k-d tree, one index query for the chunk's candidates (the grid is scanned
/// in place): when some row of the chunk scans, with the unit velocities when some
/// row's three flocking sums come from the candidates.
fn gather_chunk(ctx: &SteerCtx<'_>, rows: Range<usize>, s: &mut SteerScratch) {
    if ctx.max_radius > 0.0
        && ctx.index.kind() == IndexKind::KdTree
        && rows.clone().any(|r| ctx.plan_of(r).route.scans())
    {
        crate::zone!("chunk tree query");
        let sums = |r: usize| ctx.plan_of(r).route.candidates_carry_unit_vels();
        let unit_vels =
            (ctx.candidates_carry_unit_vels && rows.clone().any(sums)).then_some(ctx.unit_vel);
        s.batch
            .gather(ctx.index, ctx.pos, rows, ctx.max_radius, unit_vels);
    }
}
