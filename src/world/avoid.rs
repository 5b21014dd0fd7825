//! The avoidance step of an agent of an avoiding group (ORCA,
//! [`crate::behaviours::avoidance`]): the half-planes of the walls, obstacles and
//! neighbours around it, then the velocity nearest the one its behaviours prefer.

use glam::Vec2;

use crate::behaviours::avoidance::{agent_line, disc_line, share, solve, wall_line, Encounter};
use crate::behaviours::AgentState;
use crate::math::rotate_cw_by;

use super::plan::Avoiding;
use super::steer::{SteerCtx, SteerScratch};

/// The layers of an agent whose group does not avoid (a player, say): the default
/// layer. Such agents avoid nobody, so their neighbours take all the avoidance.
const LAYERS_OF_NON_AVOIDERS: u32 = 1;

impl SteerCtx<'_> {
    /// Whether the agent in `row` is within `within` of its target.
    fn arrived(&self, row: usize, within: f32) -> bool {
        self.resolve(self.target[row])
            .is_some_and(|t| (t.pos - self.pos[row]).length_squared() <= within * within)
    }
}

/// The velocity of the agent in `row` (state `me`, of a group that avoids as `how`)
/// nearest `preferred` that is collision-free for the time horizons, with the
/// neighbours the records route left in `s.rows`.
pub(super) fn avoid(
    ctx: &SteerCtx<'_>,
    row: usize,
    me: &AgentState,
    preferred: Vec2,
    how: &Avoiding,
    s: &mut SteerScratch,
) -> Vec2 {
    let params = &how.params;
    let lines = &mut s.lines;
    lines.clear();
    // The static scene first: the linear programs keep these hard.
    let inv_obstacle = 1.0 / params.obstacle_time_horizon;
    let range = params.obstacle_time_horizon * me.max_speed + me.radius;
    ctx.walls.for_each_near(me.pos, range, |_, w| {
        let (a, b) = (w.a() - me.pos, w.b() - me.pos);
        let facing = w.normal_facing(me.pos);
        lines.push(wall_line(a, b, me.radius, me.vel, inv_obstacle, facing));
    });
    ctx.obstacles.for_each_near(me.pos, range, |_, o| {
        let c = o.centre() - me.pos;
        lines.push(disc_line(c, o.radius() + me.radius, me.vel, inv_obstacle));
    });
    let obstacle_lines = lines.len();
    // Then the neighbours the agent avoids, each with its share.
    let inv_tau = 1.0 / params.time_horizon;
    let mine = (params.priority, ctx.arrived(row, params.arrived_within));
    for &r in &s.rows {
        let j = r as usize;
        let theirs = ctx.plans[ctx.group[j] as usize].avoidance.map(|a| a.params);
        let their_layers = theirs.map_or(LAYERS_OF_NON_AVOIDERS, |t| t.layers);
        if params.mask & their_layers == 0 {
            continue;
        }
        let share = match theirs {
            Some(t) => share(
                mine,
                (t.priority, ctx.arrived(j, t.arrived_within)),
                t.mask & params.layers != 0,
            ),
            None => 1.0,
        };
        let e = Encounter {
            rel_pos: ctx.pos[j] - me.pos,
            rel_vel: me.vel - ctx.vel[j],
            radius: me.radius + ctx.radius[j],
            share,
        };
        lines.push(agent_line(me.vel, &e, inv_tau, ctx.dt));
    }
    // Near others, the agent keeps right: its preferred velocity turns clockwise by
    // the side bias, in proportion to how much it yields. A fixed, deterministic
    // preference: perfectly symmetric head-on pairs pass instead of stopping face to
    // face, and dense crossings turn into a roundabout instead of jamming.
    let preferred = if lines.len() > obstacle_lines {
        rotate_cw_by(
            preferred,
            if mine.1 {
                how.arrived_turn
            } else {
                how.side_turn
            },
        )
    } else {
        preferred
    };
    solve(
        lines,
        obstacle_lines,
        preferred,
        me.max_speed,
        &mut s.projected,
    )
}
