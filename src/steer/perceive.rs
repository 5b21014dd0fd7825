//! An agent's neighbour work, by its group's [`NeighbourRoute`]: the one place the
//! route is matched. Both kernels call [`perceive`].

use glam::Vec2;
use wide::f32x4;

use crate::behaviours::flocking::{
    FlockForces, FlockSums, FlockTerms, Neighbour, SeparationParams, MIN_SEPARATION_DIST,
};
use crate::behaviours::AgentState;
use crate::spatial::{Candidates, NeighbourQuery};

use super::plan::NeighbourRoute;
use super::{SteerCtx, SteerScratch};

/// What an agent perceived of its neighbours this tick.
pub(crate) struct Perceived {
    /// Neighbours found (at most the group's cap). For an avoiding group their rows
    /// are left in `SteerScratch::rows`.
    pub count: usize,
    /// What its flocking behaviours get.
    pub flock: Flock,
}

/// The flocking input an agent's route gives its behaviours.
pub(crate) enum Flock {
    /// No flocking terms summed for the group.
    None,
    /// The sums over the neighbours, with the terms to make of them.
    Sums(FlockSums, FlockTerms),
    /// The forces made from neighbour records, with their separation parameters.
    Forces(FlockForces, SeparationParams),
}

impl Flock {
    /// The forces (and separation parameters) for the per-agent kernel.
    #[inline(always)]
    pub(crate) fn forces(self, me: &AgentState) -> Option<(FlockForces, SeparationParams)> {
        match self {
            Self::None => None,
            Self::Sums(sums, terms) => Some((sums.forces(me, terms), *terms.params())),
            Self::Forces(forces, p) => Some((forces, p)),
        }
    }
}

impl NeighbourRoute {
    /// The separation strength of the group's summed terms (0 without).
    pub(crate) fn flock_strength(&self) -> f32 {
        match self {
            Self::ColumnSums(t) | Self::CandidateSums(t) | Self::Records(Some(t)) => {
                t.params().strength
            }
            Self::None | Self::Rows | Self::Records(None) => 0.0,
        }
    }
}

/// The neighbour work of the agent in `row`, of group `g_idx`: its neighbour count
/// and flocking input; on the records route, its neighbour records are left in
/// `s.neighbours` for the behaviours that read them (and `me` gives the agent's
/// state, which only that route reads).
#[inline(always)]
pub(crate) fn perceive(
    ctx: &SteerCtx<'_>,
    (g_idx, row): (usize, usize),
    me: impl FnOnce() -> AgentState,
    s: &mut SteerScratch,
) -> Perceived {
    s.neighbours.clear();
    let keep_rows = ctx.plans[g_idx].avoidance.is_some();
    match ctx.plans[g_idx].route {
        NeighbourRoute::None => Perceived {
            count: 0,
            flock: Flock::None,
        },
        NeighbourRoute::Rows => {
            let q = &s.query(ctx, g_idx);
            let rows = s.batch.scan(ctx.index, ctx.pos, row, q);
            s.rows.clear();
            s.rows.extend_from_slice(rows);
            Perceived {
                count: s.rows.len(),
                flock: Flock::None,
            }
        }
        NeighbourRoute::CandidateSums(terms) => {
            let q = &s.query(ctx, g_idx);
            let summed = match s.batch.candidates(ctx.index, ctx.pos, row, q) {
                Some(c) if c.crowded => return crowded_sums(ctx, terms, row, s, q),
                c => c.and_then(|c| candidate_sums(&c, terms)),
            };
            match summed {
                Some(sums) => Perceived {
                    count: sums.count,
                    flock: Flock::Sums(sums, terms),
                },
                // Declined: an over-full row, or a neighbour under the least distance.
                None => column_sums(ctx, terms, row, s, q, false),
            }
        }
        NeighbourRoute::ColumnSums(terms) => {
            let q = &s.query(ctx, g_idx);
            column_sums(ctx, terms, row, s, q, keep_rows)
        }
        NeighbourRoute::Records(terms) => {
            let q = &s.query(ctx, g_idx);
            let rows = s.batch.scan(ctx.index, ctx.pos, row, q);
            if keep_rows {
                s.rows.clear();
                s.rows.extend_from_slice(rows);
            }
            s.neighbours.extend(rows.iter().map(|&r| Neighbour {
                pos: ctx.pos[r as usize],
                vel: ctx.vel[r as usize],
                unit_vel: ctx.unit_vel[r as usize],
                slot: ctx.id[r as usize].index(),
            }));
            let count = s.neighbours.len();
            let flock = match terms {
                None => Flock::None,
                Some(terms) => {
                    let (me, my_slot) = (me(), ctx.id[row].index());
                    let forces = match terms {
                        FlockTerms::All(p) => crate::behaviours::flocking::flock_forces(
                            &me,
                            my_slot,
                            &s.neighbours,
                            &p,
                        ),
                        FlockTerms::Separation(p) => FlockForces {
                            separation: crate::behaviours::flocking::separation(
                                &me,
                                my_slot,
                                &s.neighbours,
                                &p,
                            ),
                            ..FlockForces::default()
                        },
                    };
                    Flock::Forces(forces, *terms.params())
                }
            };
            Perceived { count, flock }
        }
    }
}

/// The squared separation radius and least distance of the one-pass sums
/// ([`candidate_sums_x4`]).
#[inline(always)]
pub(crate) fn separation_radii(terms: FlockTerms) -> (f32, f32) {
    let p = terms.params();
    (
        p.radius * p.radius,
        MIN_SEPARATION_DIST * MIN_SEPARATION_DIST,
    )
}

/// The flocking sums of a crowded row on the candidate-sums route (its cells' density
/// puts well over its cap within reach), scanned first: with more than the cap found,
/// the one-pass sums would give up (after summing some dozens of entries), so the
/// scan's are the row's sums. Otherwise the one pass decides, as for any row: the same
/// sums either way (`crowded_rows_scanned_first_get_the_one_pass_routes_sums`). Out of
/// line: only dense crowds come here (`docs/optimisations.md`, "Crowded rows scanned
/// first").
#[inline(never)]
fn crowded_sums(
    ctx: &SteerCtx<'_>,
    terms: FlockTerms,
    row: usize,
    s: &mut SteerScratch,
    q: &NeighbourQuery,
) -> Perceived {
    let perceived = column_sums(ctx, terms, row, s, q, false);
    if s.batch.was_over_cap() {
        return perceived;
    }
    match s
        .batch
        .candidates(ctx.index, ctx.pos, row, q)
        .and_then(|c| candidate_sums(&c, terms))
    {
        Some(sums) => Perceived {
            count: sums.count,
            flock: Flock::Sums(sums, terms),
        },
        None => perceived,
    }
}

/// The flocking sums of `row` over its scanned neighbours, read straight from the
/// columns through the scan's rows (bitwise the sums the record path makes); with
/// `keep_rows`, the rows are kept for the avoidance.
#[inline(always)]
pub(crate) fn column_sums(
    ctx: &SteerCtx<'_>,
    terms: FlockTerms,
    row: usize,
    s: &mut SteerScratch,
    q: &NeighbourQuery,
    keep_rows: bool,
) -> Perceived {
    let rows = s.batch.scan(ctx.index, ctx.pos, row, q);
    if keep_rows {
        s.rows.clear();
        s.rows.extend_from_slice(rows);
    }
    let count = rows.len();
    let (at, my_slot) = (ctx.pos[row], ctx.id[row].index());
    let row_of = |i: usize| rows[i] as usize;
    let slot = |i: usize| ctx.id[row_of(i)].index();
    let sums = match terms {
        FlockTerms::All(p) => {
            let get = |i: usize| (ctx.pos[row_of(i)], ctx.unit_vel[row_of(i)]);
            FlockSums::over(at, my_slot, count, get, slot, &p)
        }
        // The separation's push only: the other sums stay zero (and are not made).
        FlockTerms::Separation(p) => {
            let get = |i: usize| (ctx.pos[row_of(i)], Vec2::ZERO);
            FlockSums {
                count,
                push: FlockSums::over(at, my_slot, count, get, slot, &p).push,
                ..FlockSums::default()
            }
        }
    };
    Perceived {
        count,
        flock: Flock::Sums(sums, terms),
    }
}

/// [`candidate_sums_x4`] of the group's terms: all three sums, or the separation's
/// push alone.
#[inline(always)]
fn candidate_sums(c: &Candidates<'_>, terms: FlockTerms) -> Option<FlockSums> {
    match terms {
        FlockTerms::All(_) => candidate_sums_x4::<true>(c, separation_radii(terms)),
        FlockTerms::Separation(_) => candidate_sums_x4::<false>(c, separation_radii(terms)),
    }
}

/// The [`FlockSums`] of a row over its neighbours among `c` (the candidate entries
/// around it) in one pass, without a list of neighbours: entry `i` of a span is
/// summed in lane `(i - start) % 4`, and the lanes are added as `(0 + 1) + (2 + 3)`
/// at the end, so the sums differ from the record path's by rounding only. `sep` is
/// the separation radius squared and the least distance squared of the
/// inverse-distance push. `ALL`: all the sums, from the candidates' unit velocities
/// too; otherwise the count and the push alone (a lone separation's), the other
/// sums zero, with or without unit velocities.
///
/// `None` where the sums would need the list, and the caller scans instead: candidates
/// without unit velocities for `ALL`, more
/// neighbours than the query's cap (the nearest would have to be chosen), or a
/// neighbour within the separation radius closer than the least distance (whose push
/// is floored). Each span's columns are sliced once and walked in whole groups (what
/// that saves, and what the one pass saves over the list: `docs/optimisations.md`,
/// the sixth round and "Candidate sums in whole groups").
#[inline(always)]
pub(crate) fn candidate_sums_x4<const ALL: bool>(
    c: &Candidates<'_>,
    (sep_r2, min_d2): (f32, f32),
) -> Option<FlockSums> {
    use bytemuck::cast;
    use wide::{i32x4, u32x4};
    const GROUP: usize = 4;
    let (px, py) = (f32x4::splat(c.at.x), f32x4::splat(c.at.y));
    let (r2, sep_r2, min_d2) = (
        f32x4::splat(c.r2),
        f32x4::splat(sep_r2),
        f32x4::splat(min_d2),
    );
    let me = u32x4::splat(c.row);
    let zero = f32x4::ZERO;
    let mut count = i32x4::ZERO;
    let (mut push_x, mut push_y, mut head_x, mut head_y) = (zero, zero, zero, zero);
    let (mut pos_x, mut pos_y, mut close) = (zero, zero, zero);
    for (s, e) in c.spans {
        // The span's whole groups of four, the last one reaching into the padding
        // that the table keeps after its entries: one bounds check per column and
        // span, none per group.
        let n = e.saturating_sub(s);
        let end = s + n.div_ceil(GROUP) * GROUP;
        let (Some(xs), Some(ys), Some(ids)) =
            (c.xs.get(s..end), c.ys.get(s..end), c.ids.get(s..end))
        else {
            return None;
        };
        // The unit velocities only for all three sums (the push alone needs none).
        let (uxs, uys) = if ALL {
            let (Some(uxs), Some(uys)) = (c.unit_xs.get(s..end), c.unit_ys.get(s..end)) else {
                return None;
            };
            (uxs, uys)
        } else {
            (xs, ys)
        };
        // `at`: each lane's place in the span; from `n` on, a lane holds the next
        // cell's entries or the padding.
        let mut at = i32x4::new([0, 1, 2, 3]);
        let len = i32x4::splat(n as i32);
        // Groups as arrays, so that loading one takes no bounds check wherever this is
        // inlined.
        let quads = xs
            .as_chunks::<GROUP>()
            .0
            .iter()
            .zip(ys.as_chunks::<GROUP>().0);
        let units = (uxs.as_chunks::<GROUP>().0.iter()).zip(uys.as_chunks::<GROUP>().0);
        for (k, (((gx, gy), (gux, guy)), gi)) in
            quads.zip(units).zip(ids.as_chunks::<GROUP>().0).enumerate()
        {
            let (gx, gy, gux, guy) = (
                f32x4::new(*gx),
                f32x4::new(*gy),
                f32x4::new(*gux),
                f32x4::new(*guy),
            );
            // `dist2`, as the scan computes it.
            let (dx, dy) = (gx - px, gy - py);
            let d2 = dx * dx + dy * dy;
            // Within the radius, not the row itself, not past the span's end.
            let tail = at.simd_lt(len);
            at += i32x4::splat(GROUP as i32);
            let other = !u32x4::new(*gi).simd_eq(me);
            let hit = d2.simd_le(r2) & cast::<u32x4, f32x4>(other) & cast::<i32x4, f32x4>(tail);
            count -= cast::<f32x4, i32x4>(hit);
            if ALL {
                pos_x += gx & hit;
                pos_y += gy & hit;
                head_x += gux & hit;
                head_y += guy & hit;
            }
            let sep = hit & d2.simd_le(sep_r2);
            close |= sep & d2.simd_lt(min_d2);
            // `away * (1 / |away|²)`, with `away = p - q`.
            let inv = f32x4::ONE / d2;
            push_x += ((px - gx) * inv) & sep;
            push_y += ((py - gy) * inv) & sep;
            // Give up as soon as the count passes the cap (checked every 16 entries:
            // in a pile the sums would be thrown away anyway).
            if k % 4 == 3 && count.reduce_add() > c.cap as i32 {
                return None;
            }
        }
    }
    let count = count.to_array().iter().map(|&c| c as usize).sum::<usize>();
    if close.any() || count > c.cap {
        return None;
    }
    let sum = |v: f32x4| {
        let a = v.to_array();
        (a[0] + a[1]) + (a[2] + a[3])
    };
    Some(FlockSums {
        count,
        push: Vec2::new(sum(push_x), sum(push_y)),
        headings: Vec2::new(sum(head_x), sum(head_y)),
        positions: Vec2::new(sum(pos_x), sum(pos_y)),
    })
}

#[cfg(test)]
mod tests;
