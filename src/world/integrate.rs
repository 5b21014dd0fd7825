//! Stage 5, integration: the one pass that writes positions, velocities, headings,
//! rotations and unit velocities, from each agent's steering output. Moves that would
//! cross a wall slide along it; a non-finite result leaves the agent as it was
//! (quarantine).

use std::ops::Add;

use glam::Vec2;
use rayon::prelude::*;

use crate::agents::{Columns, SteerOut};
use crate::behaviours::kinematic::{kinematic_update, KinematicOutput};
use crate::group::{GroupConfig, Movement};
use crate::integrate::{
    ease_heading, integrate_angular, integrate_linear, integrate_x4, Bodies4, Integrator, Limits,
};
use crate::math::x4::{Vec2x4, LANES};
use crate::math::{normalize_or_zero, truncate};
use crate::scene::WallIndex;

use super::arrival::{Judge, Judged};
use super::World;
use crate::steer::plan::GroupPlan;

/// The integration pass works in chunks of this many rows, one rayon task each.
const INTEGRATE_CHUNK: usize = 1024;

/// What the integration pass counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Integrated {
    /// Agents whose result was not finite, left as they were.
    pub quarantined: u64,
    /// Moves that would have crossed a wall, slid along it instead.
    pub crossings_prevented: u64,
}

impl Add for Integrated {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            quarantined: self.quarantined + o.quarantined,
            crossings_prevented: self.crossings_prevented + o.crossings_prevented,
        }
    }
}

/// What the pass reads, shared by all workers.
struct IntegrateCtx<'a> {
    integrator: Integrator,
    dt: f32,
    groups: &'a [GroupConfig],
    plans: &'a [GroupPlan],
    walls: &'a WallIndex,
    /// Whether there are walls to keep moves inside.
    contain: bool,
    group: &'a [u16],
    mass: &'a [f32],
    max_speed: &'a [f32],
    max_force: &'a [f32],
    out: &'a [SteerOut],
}

/// The columns the pass writes, for a chunk of rows.
struct Moving<'a> {
    pos: &'a mut [Vec2],
    vel: &'a mut [Vec2],
    unit_vel: &'a mut [Vec2],
    heading: &'a mut [f32],
    rotation: &'a mut [f32],
}

impl Moving<'_> {
    /// Rows `k..k + 4` as arrays, when they exist.
    #[allow(clippy::type_complexity)]
    fn four(
        &mut self,
        k: usize,
    ) -> Option<(
        &mut [Vec2; LANES],
        &mut [Vec2; LANES],
        &mut [f32; LANES],
        &mut [f32; LANES],
        &mut [Vec2; LANES],
    )> {
        let rows = k..k + LANES;
        Some((
            self.pos.get_mut(rows.clone())?.try_into().ok()?,
            self.vel.get_mut(rows.clone())?.try_into().ok()?,
            self.heading.get_mut(rows.clone())?.try_into().ok()?,
            self.rotation.get_mut(rows.clone())?.try_into().ok()?,
            self.unit_vel.get_mut(rows)?.try_into().ok()?,
        ))
    }
}

impl World {
    /// Stage 5: the one integration pass, which also judges each agent's arrival from
    /// its new state, chunk by chunk right after the chunk's moves (the rows it
    /// has just written are still in cache); agents that follow another agent once
    /// every move is written. Then the arrival changes as events, in row order.
    pub(super) fn integrate(&mut self, dt: f32) -> Integrated {
        crate::zone!("integrate");
        let Columns {
            group,
            pos,
            vel,
            unit_vel,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            out,
            radius,
            target,
            arrival,
            path,
            ..
        } = &mut self.cols;
        let ctx = IntegrateCtx {
            integrator: self.config.integrator,
            dt,
            groups: &self.groups,
            plans: &self.plans,
            walls: &self.walls,
            contain: !self.walls.is_empty(),
            group,
            mass,
            max_speed,
            max_force,
            out,
        };
        let judge = Judge {
            slots: &self.slots,
            group,
            max_speed,
            radius,
            target,
            own: path.rows(),
            paths: &self.paths,
            plans: &self.plans,
            fields: &self.fields,
            any_field: self.plans.iter().any(|p| p.field.is_some()),
            dt,
        };
        // Nothing aims at anything, and nothing was given an aim since the last
        // arrival found every memory at rest: judging would leave every row as it is.
        let quiet = self.arrival_quiet && !judge.any_field && judge.own.is_empty();
        let judge = (!quiet).then_some(&judge);
        // Chunks of rows, each a plain loop over its slices: simpler for the compiler
        // than a five-way zip of per-row parallel iterators (`docs/optimisations.md`,
        // second round).
        let (moved, judged) = pos
            .par_chunks_mut(INTEGRATE_CHUNK)
            .zip(vel.par_chunks_mut(INTEGRATE_CHUNK))
            .zip(heading.par_chunks_mut(INTEGRATE_CHUNK))
            .zip(rotation.par_chunks_mut(INTEGRATE_CHUNK))
            .zip(unit_vel.par_chunks_mut(INTEGRATE_CHUNK))
            .zip(arrival.par_chunks_mut(INTEGRATE_CHUNK))
            .enumerate()
            .map(
                |(chunk, (((((pos, vel), heading), rotation), unit_vel), memories))| {
                    crate::zone!("integrate chunk");
                    let first = chunk * INTEGRATE_CHUNK;
                    let mut rows = Moving {
                        pos,
                        vel,
                        heading,
                        rotation,
                        unit_vel,
                    };
                    let moved = integrate_chunk(&ctx, first, &mut rows);
                    let judged = judge.map(|j| j.rows(memories, first, rows.pos, rows.vel));
                    (moved, judged)
                },
            )
            .reduce(
                || (Integrated::default(), judge.map(|_| Judged::NONE)),
                |(a, ja), (b, jb)| (a + b, ja.zip(jb).map(|(ja, jb)| ja.and(jb))),
            );
        let judged = match (judge, judged) {
            (Some(j), Some(found)) if found.followers => Some(Judged {
                changed: j.followers(arrival, pos, vel) || found.changed,
                ..found
            }),
            (_, found) => found,
        };
        self.arrival_judged(judged);
        moved
    }
}

/// Integrate the rows of one chunk, starting at `first`: four at a time where they are
/// in the four-lane twin's common case, one at a time otherwise.
fn integrate_chunk(ctx: &IntegrateCtx<'_>, first: usize, rows: &mut Moving<'_>) -> Integrated {
    let mut sum = Integrated::default();
    let mut k = 0;
    while k < rows.pos.len() {
        if let Some(four) = rows.four(k) {
            if let Some(crossed) = integrate_four(ctx, first + k, four) {
                sum.crossings_prevented += crossed;
                k += LANES;
                continue;
            }
        }
        sum = sum + integrate_one(ctx, first + k, rows, k);
        k += 1;
    }
    sum
}

impl IntegrateCtx<'_> {
    /// A move of the agent in `row` from `from` to `to` kept inside the walls: slid
    /// along the wall it would cross, with the velocity of the slide (truncated to the
    /// agent's maximum speed). `None` when it crosses none, or there are no walls.
    #[inline]
    fn slide(&self, row: usize, from: Vec2, to: Vec2) -> Option<(Vec2, Vec2)> {
        if !self.contain {
            return None;
        }
        match self.walls.constrain_move(from, to) {
            (slid, true) => Some((slid, truncate((slid - from) / self.dt, self.max_speed[row]))),
            (_, false) => None,
        }
    }
}

/// Integrate the agent in `row` (`k` in `rows`).
fn integrate_one(
    ctx: &IntegrateCtx<'_>,
    row: usize,
    rows: &mut Moving<'_>,
    k: usize,
) -> Integrated {
    let (p, v, h, w) = (rows.pos[k], rows.vel[k], rows.heading[k], rows.rotation[k]);
    let gi = ctx.group[row] as usize;
    if ctx.plans[gi].host_moves {
        // The host moves it, from its desired velocity (the steering output).
        return Integrated::default();
    }
    let g = &ctx.groups[gi];
    let o = &ctx.out[row];
    let avoids = ctx.plans[gi].avoidance.is_some();
    let (np, nv, nh, nw) = match g.movement {
        Movement::Kinematic => {
            let k = KinematicOutput {
                velocity: truncate(o.linear, ctx.max_speed[row]),
                rotation: o
                    .angular
                    .clamp(-g.facing.max_rotation, g.facing.max_rotation),
                heading: o.heading(),
            };
            let (np, nh, nv, nw) = kinematic_update(p, h, v, w, &k, ctx.dt);
            // An avoiding agent moves at its collision-free velocity for the whole tick.
            let np = if avoids { p + nv * ctx.dt } else { np };
            (np, nv, nh, nw)
        }
        Movement::Steering => {
            let limits = Limits {
                mass: ctx.mass[row],
                max_force: ctx.max_force[row],
                max_speed: ctx.max_speed[row],
            };
            let (np, nv) = if avoids {
                // The output is the collision-free velocity, held for the tick (which
                // is what the avoidance's guarantee is about), reached as far as the
                // body's force allows in one tick.
                let nv = avoiding_velocity(v, o.linear, limits, ctx.dt);
                (p + nv * ctx.dt, nv)
            } else {
                integrate_linear(ctx.integrator, p, v, o.linear, limits, ctx.dt)
            };
            let (nh, nw) = if ctx.plans[gi].angular {
                let max_rotation = g.facing.max_rotation;
                integrate_angular(ctx.integrator, h, w, o.angular, max_rotation, ctx.dt)
            } else {
                let f = &g.facing;
                (ease_heading(h, nv, f.turn_rate, f.min_speed, ctx.dt), 0.0)
            };
            (np, nv, nh, nw)
        }
    };
    if !(np.is_finite() && nv.is_finite() && nh.is_finite() && nw.is_finite()) {
        return Integrated {
            quarantined: 1,
            crossings_prevented: 0,
        };
    }
    let (np, nv, crossed) = match ctx.slide(row, p, np) {
        Some((slid, slid_vel)) => (slid, slid_vel, 1),
        None => (np, nv, 0),
    };
    rows.pos[k] = np;
    rows.vel[k] = nv;
    rows.unit_vel[k] = normalize_or_zero(nv);
    rows.heading[k] = nh;
    rows.rotation[k] = nw;
    Integrated {
        quarantined: 0,
        crossings_prevented: crossed,
    }
}

/// The velocity an avoiding steered body moves at: the avoidance's `chosen` velocity
/// (truncated to the top speed) when the body's force can reach it from `vel` within
/// the tick, `|chosen - vel| <= max_force dt / mass` (then exactly it); otherwise
/// `vel` changed toward it by that much (DetourCrowd's acceleration limit after its
/// avoidance). The avoidance's guarantee holds where the body keeps up: give dense
/// crowds bodies that reach their top speed within a tick or two.
pub(super) fn avoiding_velocity(vel: Vec2, chosen: Vec2, limits: Limits, dt: f32) -> Vec2 {
    let chosen = truncate(chosen, limits.max_speed);
    let reach = limits.max_force * dt / limits.mass;
    let change = chosen - vel;
    let change_sq = change.length_squared();
    // A square that overflows compares nothing: `truncate` then judges exactly.
    if change_sq <= reach * reach && change_sq.is_finite() {
        chosen
    } else {
        vel + truncate(change, reach)
    }
}

/// Four rows starting at `row` through the four-lane twin ([`integrate_x4`]): bitwise
/// the per-agent results. Returns the crossings prevented, or `None` (nothing written)
/// when some row is not in the twin's common case (a group that is not steered
/// without angular steering, or a result the twin leaves to the scalar path).
#[allow(clippy::type_complexity)]
fn integrate_four(
    ctx: &IntegrateCtx<'_>,
    row: usize,
    (p, v, h, w, u): (
        &mut [Vec2; LANES],
        &mut [Vec2; LANES],
        &mut [f32; LANES],
        &mut [f32; LANES],
        &mut [Vec2; LANES],
    ),
) -> Option<u64> {
    let rows = row..row + LANES;
    let lane = |col: &[f32]| -> Option<[f32; LANES]> { col.get(rows.clone())?.try_into().ok() };
    let (g4, f4): (&[u16; LANES], &[SteerOut; LANES]) = (
        ctx.group.get(rows.clone())?.try_into().ok()?,
        ctx.out.get(rows.clone())?.try_into().ok()?,
    );
    // Each lane's easing rate and minimum speed from its group: one lookup when the
    // four rows share it.
    let facing = |gi: u16| {
        let gi = gi as usize;
        let f = &ctx.groups[gi].facing;
        ctx.plans[gi]
            .integrate_x4
            .then(|| ((f.turn_rate * ctx.dt).min(1.0), f.min_speed * f.min_speed))
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
    let bodies = Bodies4 {
        pos: *p,
        vel: *v,
        force: f4.map(|o| o.linear),
        heading: *h,
        mass: lane(ctx.mass)?,
        max_force: lane(ctx.max_force)?,
        max_speed: lane(ctx.max_speed)?,
        turn,
        min_speed_sq,
    };
    let o = integrate_x4(ctx.integrator, &bodies, ctx.dt)?;
    // The moves that cannot meet a wall: all of them when there are none, else those
    // that stay in one cell listing none (`WallIndex::clear_moves_x4`).
    let clear = if ctx.contain {
        ctx.walls
            .clear_moves_x4(Vec2x4::load(p), Vec2x4::load(&o.pos))
    } else {
        [true; LANES]
    };
    if clear == [true; LANES] {
        // Every move stands as computed (what the loop below writes when `slide`
        // finds nothing), stored as whole arrays (`docs/optimisations.md`).
        (*p, *v, *u, *h, *w) = (o.pos, o.vel, o.unit_vel, o.heading, [0.0; LANES]);
        return Some(0);
    }
    let mut crossed = 0;
    for i in 0..LANES {
        let (mut np, mut nv, mut nu) = (o.pos[i], o.vel[i], o.unit_vel[i]);
        let slid = if clear[i] {
            None
        } else {
            ctx.slide(row + i, p[i], np)
        };
        if let Some((slid, slid_vel)) = slid {
            (np, nv) = (slid, slid_vel);
            nu = normalize_or_zero(nv);
            crossed += 1;
        }
        p[i] = np;
        v[i] = nv;
        u[i] = nu;
        h[i] = o.heading[i];
        w[i] = 0.0;
    }
    Some(crossed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avoiding_velocity_limits_the_change_hand_worked() {
        let limits = Limits {
            mass: 2.0,
            max_force: 4.0,
            max_speed: 3.0,
        };
        // Reach 4 * 0.5 / 2 = 1: a change of (0.6, 0.8) (length 1) is made exactly;
        // from rest toward (3, 0), the velocity gets (1, 0) of it.
        let v = Vec2::new(1.0, 1.0);
        assert_eq!(
            avoiding_velocity(v, Vec2::new(1.6, 1.8), limits, 0.5),
            Vec2::new(1.6, 1.8)
        );
        assert_eq!(
            avoiding_velocity(Vec2::ZERO, Vec2::new(3.0, 0.0), limits, 0.5),
            Vec2::new(1.0, 0.0)
        );
    }

    #[test]
    fn avoiding_velocity_limits_the_change_when_squares_overflow() {
        // Speeds of 1e20: the change (1e20) and the reach (1e19) square to infinity,
        // which must not let the whole change through.
        let limits = Limits {
            mass: 1.0,
            max_force: 1e19,
            max_speed: 2e20,
        };
        let v = avoiding_velocity(Vec2::ZERO, Vec2::new(1e20, 0.0), limits, 1.0);
        assert!((v.x / 1e19 - 1.0).abs() < 1e-6 && v.y == 0.0, "{v}");
    }
}
