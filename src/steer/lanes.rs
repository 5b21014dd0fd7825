//! The four-agent steering kernel: groups whose behaviours are only the flocking trio
//! (from the neighbour sums), one wander and seek, and up to three behaviours read
//! from the scene (field following, wall and obstacle avoidance, containment),
//! combined by a weighted sum (the boids of the `flock` profile, the town of
//! `evacuation`), are steered four agents at a time. Neighbour sums, random draws and
//! the scene's behaviours ([`own_forces`], each by its own scalar formula, after what
//! the four can be told at once: [`own_ahead`]) stay per agent; everything after them
//! runs in vector lanes through each behaviour's four-lane twin ([`forces_x4`],
//! [`wander_x4`], [`seek_x4`]), which sits beside the scalar formula in the
//! behaviour's module with the test that ties them. The weighted sum and its
//! truncation here are bitwise the per-agent kernel's
//! (`world::tests::four_agent_kernel_equals_the_per_agent_one`,
//! `four_agent_kernel_follows_fields_as_the_per_agent_one`,
//! `four_agent_kernel_in_open_ground_skips_the_feelers_as_the_per_agent_one`). What
//! this saves is measured in `docs/optimisations.md` (the fourth round; the scene's
//! behaviours: "Field followers in four lanes", "Four agents told at once").

use glam::Vec2;
use wide::f32x4;

use crate::agents::{BehaviourMemory, SteerOut};
use crate::behaviours::containment::containment;
use crate::behaviours::field::follow_field;
use crate::behaviours::flocking::{forces_x4, FlockSums, FlockSums4};
use crate::behaviours::forward_x4;
use crate::behaviours::obstacles::obstacle_avoidance;
use crate::behaviours::targeting::seek_x4;
use crate::behaviours::walls::wall_avoidance;
use crate::behaviours::wander::{draw_jitter, wander_x4};
use crate::math::x4::{Vec2x4, Xy4, LANES};
use crate::rng::AgentRng;
use crate::scene::FieldSample;

use super::perceive::{perceive, Flock};
use super::plan::{OwnTerm, Program, Term, MAX_OWN};
use super::{SteerCtx, SteerScratch};

/// What the lanes read of four agents.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Input {
    pub pos: Xy4,
    pub vel: Xy4,
    pub heading: [f32; LANES],
    pub max_speed: [f32; LANES],
    pub max_force: [f32; LANES],
    /// The resolved target of each agent (any value without one), and whether it has
    /// one (`1.0`; `0.0`: no target, seek gives zero).
    pub target: Xy4,
    pub has_target: [f32; LANES],
    /// The flocking sums (zero when the group has none), and the separation strength
    /// (the same for the four).
    pub sums: FlockSums4,
    pub strength: f32,
    /// The wander target before this tick's jitter, and the jitter, when the program
    /// wanders.
    pub wander_prev: Xy4,
    pub wander_jitter: Xy4,
}

/// What the lanes give back: each agent's force (truncated, finite) and its new
/// local wander target.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Output {
    pub force: [Vec2; LANES],
    pub wander: [Vec2; LANES],
}

/// The steering forces of four agents of a group with `program`: every term through
/// its behaviour's four-lane twin (the agents' own terms as they computed them), then
/// the weighted sum in the program's order and the truncation to the maximum force.
/// `own`: the forces of the program's own terms ([`Term::Own`]), in its order; `OWN`:
/// whether it has any (compiled apart, so that a program without them carries
/// nothing of theirs).
#[must_use]
pub(crate) fn lane_forces<const OWN: bool>(
    program: &Program,
    b: &Input,
    own: &[Xy4; MAX_OWN],
) -> Output {
    let pos = b.pos.load();
    let vel = b.vel.load();
    let max_speed = f32x4::new(b.max_speed);
    let me = (pos, vel, max_speed);
    let mut wander = Output::default().wander;
    let mut wander_force = Vec2x4::ZERO;
    if let Some(p) = program.wander() {
        let fwd = forward_x4(vel, &b.heading);
        let (force, target) = wander_x4(fwd, b.wander_prev.load(), b.wander_jitter.load(), &p);
        (wander_force, wander) = (force, target.store());
    }
    let one = f32x4::splat(1.0);
    let seek = seek_x4(me, b.target.load(), f32x4::new(b.has_target).simd_eq(one));
    let (sep, ali, coh) = forces_x4(me, &b.sums, b.strength);
    let mut sum = Vec2x4::ZERO;
    let mut own = own.iter();
    for &(term, w) in program.terms() {
        let c = match term {
            Term::Separation => sep,
            Term::Alignment => ali,
            Term::Cohesion => coh,
            Term::Wander(_) => wander_force,
            Term::Seek => seek,
            Term::Own(_) if OWN => own.next().map_or(Vec2x4::ZERO, Xy4::load),
            Term::Own(_) => Vec2x4::ZERO,
        };
        sum = sum.add(c.scale(f32x4::splat(w)));
    }
    Output {
        force: sum.truncate(f32x4::new(b.max_force)).store(),
        wander,
    }
}

/// The forces of the program's own terms on the agent in `row` (its target, if it
/// has one, at `target`), in the program's order (zero past the last): each
/// behaviour's scalar formula, called as the per-agent kernel's dispatch calls it
/// (`kernel::Dispatch::eval`, whose arms these mirror; the tests named in the module
/// docs tie the two kernels). Out of line: the scene's queries outweigh a call, and
/// the chunk loop that inlines the lane kernel stays as small as without them.
#[inline(never)]
fn own_forces(
    ctx: &SteerCtx<'_>,
    row: usize,
    program: &Program,
    (target, ahead, lane): (Option<Vec2>, &Ahead, usize),
) -> [Vec2; MAX_OWN] {
    let me = ctx.state(row);
    let mut forces = [Vec2::ZERO; MAX_OWN];
    for (k, (force, term)) in forces.iter_mut().zip(program.own()).enumerate() {
        *force = match term {
            OwnTerm::FollowField { params, .. } => match ahead.samples[lane][k] {
                Some(s) => follow_field(&me, s, target, params),
                None => Vec2::ZERO,
            },
            // Open ground: no feeler meets a wall.
            OwnTerm::WallAvoidance(_) if ahead.open[lane][k] => Vec2::ZERO,
            OwnTerm::WallAvoidance(p) => wall_avoidance(&me, ctx.walls, p),
            OwnTerm::ObstacleAvoidance(p) => obstacle_avoidance(&me, ctx.obstacles, p),
            OwnTerm::Containment(p) => containment(&me, p),
        };
    }
    forces
}

/// What the four agents' own terms are told before each agent computes them
/// ([`own_ahead`]): per lane, per own term in the program's order.
#[derive(Clone, Copy)]
struct Ahead {
    /// What the field a follow_field term follows says at the agent (`None` for the
    /// other terms, and for a field the world does not hold).
    samples: [[Option<FieldSample>; MAX_OWN]; LANES],
    /// Whether a wall_avoidance term's feelers are known to meet no wall: open ground
    /// ([`crate::scene::WallIndex::open_x4`]), where its force is zero.
    open: [[bool; MAX_OWN]; LANES],
}

impl Ahead {
    /// Nothing known: what a program without own terms carries.
    const NONE: Self = Self {
        samples: [[None; MAX_OWN]; LANES],
        open: [[false; MAX_OWN]; LANES],
    };
}

/// What the four agents from `row` on can be told of their own terms at once: the
/// fields they follow sampled four at a time ([`crate::scene::GoalField::sample4`],
/// bitwise four samples) and whether they stand in open ground for their wall
/// feelers, in vector lanes; [`own_forces`] then neither samples nor asks the wall
/// index there. The four rows exist (the chunk loop took them). Each field's cells
/// at the next four rows are asked of the cache (a sample of a large field waits on
/// memory: `docs/optimisations.md`).
#[inline(always)]
fn own_ahead(ctx: &SteerCtx<'_>, row: usize, program: &Program) -> Ahead {
    let mut ahead = Ahead::NONE;
    let four = |from: usize| ctx.pos.get(from..from + LANES)?.try_into().ok();
    let Some(pos) = four(row) else {
        return ahead;
    };
    let next: Option<[Vec2; LANES]> = four(row + LANES);
    for (k, term) in program.own().iter().enumerate() {
        match term {
            OwnTerm::FollowField { field, .. } => {
                if let Some(f) = ctx.field(*field) {
                    if let Some(next) = next {
                        f.prefetch4(next);
                    }
                    for (lane, sample) in f.sample4(pos).into_iter().enumerate() {
                        ahead.samples[lane][k] = Some(sample);
                    }
                }
            }
            OwnTerm::WallAvoidance(p) => {
                let open = ctx.walls.open_x4(Vec2x4::load(&pos), p.feeler_length);
                for (lane, open) in open.into_iter().enumerate() {
                    ahead.open[lane][k] = open;
                }
            }
            OwnTerm::ObstacleAvoidance(_) | OwnTerm::Containment(_) => {}
        }
    }
    ahead
}

/// The four agents' rows of the columns the kernel writes.
type Rows<'a> = (
    &'a mut [SteerOut; LANES],
    &'a mut [AgentRng; LANES],
    &'a mut [BehaviourMemory; LANES],
);

/// The steering kernel of four consecutive agents of one group with a lane program
/// without own terms: neighbours and random draws per agent, the rest in lanes
/// ([`lane_forces`]); returns the neighbours they perceived. Bitwise the same
/// outputs, generator states and memories as the per-agent kernel
/// ([`super::kernel::steer_one`]) on each of them.
// Inlined into the chunk loop whatever the size of the per-agent kernel beside it,
// which otherwise decides it (`docs/optimisations.md`).
#[inline(always)]
pub(crate) fn steer_four(
    ctx: &SteerCtx<'_>,
    row: usize,
    program: &Program,
    rows: Rows<'_>,
    s: &mut SteerScratch,
) -> u64 {
    four::<false>(ctx, (row, program), rows, (s, &Ahead::NONE))
}

/// [`steer_four`] of a program with own terms ([`Program::owns`]), the four agents
/// told first what they can be told at once ([`own_ahead`]); out of line: the chunk
/// loop that inlines the other programs' kernel stays as it is without them.
#[inline(never)]
pub(crate) fn steer_four_own(
    ctx: &SteerCtx<'_>,
    row: usize,
    program: &Program,
    rows: Rows<'_>,
    s: &mut SteerScratch,
) -> u64 {
    let ahead = own_ahead(ctx, row, program);
    four::<true>(ctx, (row, program), rows, (s, &ahead))
}

/// The kernel of [`steer_four`] and [`steer_four_own`]. `OWN`: whether the program
/// has own terms, told `ahead`.
#[inline(always)]
fn four<const OWN: bool>(
    ctx: &SteerCtx<'_>,
    (row, program): (usize, &Program),
    (out, rng, memory): Rows<'_>,
    (s, ahead): (&mut SteerScratch, &Ahead),
) -> u64 {
    // Each lane's input, gathered into arrays and moved into the lanes' input at the
    // end (filled in place, the whole input would be zeroed first:
    // `docs/optimisations.md`, "Four agents told at once").
    let mut own = [Xy4::default(); MAX_OWN];
    let mut counts = [0u32; LANES];
    let (mut pos, mut vel, mut target) = (
        [Vec2::ZERO; LANES],
        [Vec2::ZERO; LANES],
        [Vec2::ZERO; LANES],
    );
    let (mut heading, mut max_speed, mut max_force, mut has_target) =
        ([0.0; LANES], [0.0; LANES], [0.0; LANES], [0.0; LANES]);
    let mut sums = [FlockSums::default(); LANES];
    let (mut wander_prev, mut wander_jitter) = ([Vec2::ZERO; LANES], [Vec2::ZERO; LANES]);
    let wander = program.wander();
    // The four rows are of one group.
    let g_idx = ctx.group[row] as usize;
    let detours = ctx.detours(g_idx);
    for i in 0..LANES {
        let r = row + i;
        // The flocking sums; the lanes make the forces of them.
        let seen = perceive(ctx, (g_idx, r), || ctx.state(r), s);
        counts[i] = seen.count as u32;
        if let Flock::Sums(s, _) = seen.flock {
            sums[i] = s;
        }
        (pos[i], vel[i]) = (ctx.pos[r], ctx.vel[r]);
        (heading[i], max_speed[i], max_force[i]) =
            (ctx.heading[r], ctx.max_speed[r], ctx.max_force[r]);
        let resolved = ctx.resolve(ctx.target[r]);
        let aim = match resolved {
            Some(t) if detours => Some(ctx.aim(r, t).pos),
            t => t.map(|t| t.pos),
        };
        if OWN {
            let forces = own_forces(ctx, r, program, (resolved.map(|t| t.pos), ahead, i));
            for (lanes, force) in own.iter_mut().zip(forces) {
                lanes.set(i, force);
            }
        }
        target[i] = aim.unwrap_or(Vec2::ZERO);
        has_target[i] = if aim.is_some() { 1.0 } else { 0.0 };
        if let Some(p) = wander {
            wander_prev[i] = memory[i].wander;
            wander_jitter[i] = draw_jitter(&p, ctx.dt, &mut rng[i]);
        }
    }
    let input = Input {
        pos: Xy4::from(pos),
        vel: Xy4::from(vel),
        heading,
        max_speed,
        max_force,
        target: Xy4::from(target),
        has_target,
        sums: FlockSums4::from(sums),
        strength: ctx.plans[g_idx].route.flock_strength(),
        wander_prev: Xy4::from(wander_prev),
        wander_jitter: Xy4::from(wander_jitter),
    };
    let o = lane_forces::<OWN>(program, &input, &own);
    for i in 0..LANES {
        if wander.is_some() {
            memory[i].wander = o.wander[i];
        }
        out[i] = SteerOut::new(o.force[i], 0.0, None);
    }
    counts.iter().map(|&c| u64::from(c)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_and_truncation_hand_worked() {
        // Lane 0: at the origin, still, seeking (3, 4) at max speed 5: desired (3, 4),
        // force (3, 4), length 5, truncated to max force 2.5: (1.5, 2). Lane 1: no
        // target. Lane 2: on its target. Lane 3: no force allowed.
        let mut b = Input {
            max_speed: [5.0; LANES],
            max_force: [2.5, 2.5, 2.5, 0.0],
            ..Input::default()
        };
        for (lane, t) in [
            Some(Vec2::new(3.0, 4.0)),
            None,
            Some(Vec2::ZERO),
            Some(Vec2::X),
        ]
        .into_iter()
        .enumerate()
        {
            b.target.set(lane, t.unwrap_or(Vec2::ZERO));
            b.has_target[lane] = if t.is_some() { 1.0 } else { 0.0 };
        }
        b.pos.set(2, Vec2::ZERO);
        let p = Program::new([(Term::Seek, 1.0)]).unwrap();
        let o = lane_forces::<false>(&p, &b, &Default::default());
        assert_eq!(
            o.force,
            [Vec2::new(1.5, 2.0), Vec2::ZERO, Vec2::ZERO, Vec2::ZERO]
        );
    }
}
