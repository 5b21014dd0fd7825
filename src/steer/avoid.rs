//! The avoidance step of an agent of an avoiding group (ORCA,
//! [`crate::behaviours::avoidance`]): the half-planes of the walls, obstacles and
//! neighbours around it, then the velocity nearest the one its behaviours prefer.

use glam::Vec2;

use crate::behaviours::avoidance::{
    agent_line, disc_line, front_turn, goes_my_way, headway_speed, make_way, pressed, share, solve,
    wall_line, AvoidanceParams, Encounter, Line, SAME_WAY,
};
use crate::behaviours::AgentState;
use crate::math::{heading_to_vec, normalize_or_zero, rotate_cw_by};

use crate::group::GroupConfig;
use crate::scene::{FieldSample, ObstacleIndex, WallIndex};

use super::plan::{GroupPlan, Stance};
use super::{SteerCtx, SteerScratch};

/// The layers of an agent whose group does not avoid (a player, say): the default
/// layer. Such agents avoid nobody, so their neighbours take all the avoidance.
const LAYERS_OF_NON_AVOIDERS: u32 = 1;

/// Whether `d` is at most `r` long, by squares; false where the square overflows
/// (lengths beyond about 1.8e19: nothing that far counts as near, however large `r`).
#[inline]
fn near(d: Vec2, r: f32) -> bool {
    d.length_squared() <= (r * r).min(f32::MAX)
}

impl SteerCtx<'_> {
    /// Whether the agent in `row` is within `within` of its target.
    #[inline(always)]
    fn arrived(&self, row: usize, within: f32) -> bool {
        self.resolve(self.target[row])
            .is_some_and(|t| near(t.pos - self.pos[row], within))
    }
}

/// Where an avoiding agent stands with its goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Standing {
    /// No goal, or not there yet.
    OnItsWay,
    /// Within its group's `arrived_within` of its goal, and not queued: it holds it
    /// (yields to movers, does not turn by the side bias; steps aside for them once it
    /// has arrived).
    Holding,
    /// Its goal is taken: it touches a neighbour bound for the same point (within
    /// the agent's radius of it) that stands nearer to the point than it does. It
    /// stands where it is, at the edge of the crowd at its goal, and yields like an
    /// agent that holds its goal; when the crowd ahead moves on, it goes on.
    Queued,
}

/// Two bodies touch when their centres are at most this many times the sum of
/// their radii apart.
const TOUCH: f32 = 1.1;

/// The avoidance of the group of the agent in `j`, if it avoids.
#[inline]
fn avoidance_of<'a>(ctx: &'a SteerCtx<'_>, j: usize) -> Option<&'a AvoidanceParams> {
    ctx.plans[ctx.group[j] as usize]
        .avoidance
        .as_ref()
        .map(|a| &a.own.params)
}

/// Whether an agent whose mask is `mask` avoids one whose group avoids as `theirs`.
#[inline]
fn avoids(mask: u32, theirs: Option<&AvoidanceParams>) -> bool {
    mask & theirs.map_or(LAYERS_OF_NON_AVOIDERS, |t| t.layers) != 0
}

/// `preferred` slowed to at most `headway` (the time gap's speed; infinite: none).
fn keep_time_gap(preferred: Vec2, headway: f32) -> Vec2 {
    let speed = preferred.length();
    if headway < speed {
        preferred * (headway / speed)
    } else {
        preferred
    }
}

/// Whether `p` is within `radius` of `goal`: a body standing on it, or another goal
/// that is the same one or cannot be held beside it.
fn near_goal(goal: Option<Vec2>, p: Vec2, radius: f32) -> bool {
    goal.is_some_and(|g| near(p - g, radius))
}

/// Whether the agent in `j` walks the straight line to its target: unless it
/// follows a goal field and is not in one of its goals yet (its way is the
/// field's then, round walls and through doors).
fn walks_straight(ctx: &SteerCtx<'_>, j: usize) -> bool {
    let field = ctx.plans[ctx.group[j] as usize].field;
    field.is_none_or(|f| {
        ctx.field(f)
            .is_none_or(|f| f.sample(ctx.pos[j]) == FieldSample::AtGoal)
    })
}

/// Whether the agent in `row`, with the agent in `j` standing on its goal (within
/// `reach`, the sum of their radii), stands on `j`'s goal `to` too, both on their
/// way, and has the lower slot: then it steps aside for the other (a pair swapped
/// would otherwise stand in each other's way for ever).
fn swapped(ctx: &SteerCtx<'_>, row: usize, j: usize, to: Vec2, reach: f32) -> bool {
    near(ctx.pos[row] - to, reach) && ctx.id[row].index() < ctx.id[j].index()
}

/// Where the agent in `row` (state `me`, bound for `goal`) stands with its goal
/// ([`Standing`]), among the neighbours in `rows`.
fn standing(
    ctx: &SteerCtx<'_>,
    row: usize,
    me: &AgentState,
    goal: Option<Vec2>,
    within: f32,
    rows: &[u32],
) -> Standing {
    let Some(g) = goal else {
        return Standing::OnItsWay;
    };
    let mine = (me.pos - g).length_squared();
    // Queued even within `within` of it: of several bodies on one point, only the
    // nearest pulls toward it. Contact and nearness first: most neighbours fail them
    // before their target is looked up.
    let queued = rows.iter().any(|&r| {
        let j = r as usize;
        let touch = (me.radius + ctx.radius[j]) * TOUCH;
        j != row
            && near(ctx.pos[j] - me.pos, touch)
            && (ctx.pos[j] - g).length_squared() < mine
            && ctx
                .resolve(ctx.target[j])
                .is_some_and(|t| near_goal(goal, t.pos, me.radius))
    });
    if queued {
        Standing::Queued
    } else if near(me.pos - g, within) {
        Standing::Holding
    } else {
        Standing::OnItsWay
    }
}

/// An agent slower than this share of its top speed is held up (and a neighbour
/// too, for [`facing_front`]).
const HELD_UP: f32 = 0.3;

/// How far ahead, in sums of radii, a held-up agent looks for a front coming the
/// other way ([`facing_front`]).
const FRONT_REACH: f32 = 3.0;

/// Whether two agents' goal fields differ: two flows bound for different places.
fn other_field(ctx: &SteerCtx<'_>, row: usize, j: usize) -> Option<crate::FieldId> {
    let mine = ctx.plan_of(row).field;
    let theirs = ctx.plan_of(j).field?;
    (mine != Some(theirs)).then_some(theirs)
}

/// The share of the neighbours ahead of a held-up agent (within [`FRONT_REACH`] sums
/// of radii, in its `preferred` way) that stand against it: held up too, bound by a
/// goal field of their own (not the agent's: two flows, not one crowd at an exit)
/// whose way at them runs against the agent's. Two such fronts meeting in a door
/// stand face to face under ORCA alone; 0 when the agent moves or nothing stands
/// against it.
fn facing_front(
    ctx: &SteerCtx<'_>,
    row: usize,
    me: &AgentState,
    preferred: Vec2,
    rows: &[u32],
    mask: u32,
) -> f32 {
    // Only flows bound by goal fields count: none in a world without fields.
    if ctx.fields.is_empty() || me.vel.length_squared() >= (HELD_UP * me.max_speed).powi(2) {
        return 0.0;
    }
    let way = normalize_or_zero(preferred);
    let (mut ahead, mut against) = (0u32, 0u32);
    for &r in rows {
        let j = r as usize;
        let rel = ctx.pos[j] - me.pos;
        let reach = FRONT_REACH * (me.radius + ctx.radius[j]);
        if j == row
            || !avoids(mask, avoidance_of(ctx, j))
            || rel.dot(way) <= 0.0
            || !near(rel, reach)
        {
            continue;
        }
        ahead += 1;
        let held = ctx.vel[j].length_squared() < (HELD_UP * ctx.max_speed[j]).powi(2);
        let opposed = held
            && other_field(ctx, row, j)
                .and_then(|f| ctx.field(f))
                .and_then(|f| match f.sample(ctx.pos[j]) {
                    FieldSample::Toward { direction, .. } => Some(direction),
                    // In its field's goal, on to its own target.
                    FieldSample::AtGoal => ctx
                        .resolve(ctx.target[j])
                        .map(|t| normalize_or_zero(t.pos - ctx.pos[j])),
                    FieldSample::Unreachable => None,
                })
                .is_some_and(|theirs| theirs.dot(way) <= -SAME_WAY);
        against += u32::from(opposed);
    }
    if against == 0 {
        0.0
    } else {
        against as f32 / ahead as f32
    }
}

/// Speeds, radii and neighbour radii at most this, time steps and horizons at least
/// its inverse: the largest product the half-planes form (a distance times a
/// velocity, squared, in [`agent_line`]) stays far below `f32::MAX`, so no agent
/// needs rescaling ([`avoidance_fits`]).
const TAME: f32 = 4096.0;

/// The scene's extent (walls' ends, obstacles) at most this in a tame world: wall and
/// obstacle half-planes only square distances.
const TAME_SCENE: f32 = (1u32 << 30) as f32;

/// Whether a tick of `dt` meets only avoidance values within [`TAME`] and
/// [`TAME_SCENE`] (the avoiding groups' neighbour radii and horizons, the scene's
/// extent, every agent's max speed and radius), so that no agent's half-planes need
/// rescaling. True at once where no group avoids.
pub(crate) fn avoidance_fits(
    (groups, plans): (&[GroupConfig], &[GroupPlan]),
    (walls, obstacles): (&WallIndex, &ObstacleIndex),
    (max_speed, radius): (&[f32], &[f32]),
    dt: f32,
) -> bool {
    let mut avoiding = plans
        .iter()
        .zip(groups)
        .filter_map(|(p, g)| p.avoidance.as_ref().map(|a| (a, g)))
        .peekable();
    if avoiding.peek().is_none() {
        return true;
    }
    let short = 1.0 / TAME;
    let groups_fit = avoiding.all(|(a, g)| {
        g.neighbour_radius <= TAME
            && a.own.params.time_horizon >= short
            && a.own.params.obstacle_time_horizon >= short
    });
    let largest = |column: &[f32]| column.iter().fold(0.0f32, |m, &x| m.max(x));
    let scene = walls
        .walls()
        .iter()
        .flat_map(|w| [w.a(), w.b()])
        .chain(
            obstacles
                .obstacles()
                .iter()
                .map(|o| o.centre().abs() + o.radius()),
        )
        .fold(0.0f32, |m, p| m.max(p.abs().max_element()));
    groups_fit
        && dt >= short
        && scene <= TAME_SCENE
        && largest(max_speed) <= TAME
        && largest(radius) <= TAME
}

/// The velocity of the agent in `row` (state `me`, of a group that avoids as `how`)
/// nearest `preferred` that is collision-free for the time horizons, with the
/// neighbours the records route left in `s.rows`.
///
/// In a world of speeds, distances or time steps so large or small that the
/// half-planes' products could overflow (a valid body may move at 1e20 units/s), each
/// agent is solved in a unit of length of its own ([`scaled_avoid`]).
pub(crate) fn avoid(
    ctx: &SteerCtx<'_>,
    row: usize,
    me: &AgentState,
    preferred: Vec2,
    how: &Stance,
    s: &mut SteerScratch,
) -> Vec2 {
    if !ctx.avoidance_fits {
        return scaled_avoid(ctx, row, me, preferred, how, s);
    }
    let (obstacle_lines, turned) = half_planes::<false>(ctx, row, me, preferred, how, s, Unit::ONE);
    solve(
        &s.lines,
        obstacle_lines,
        turned,
        me.max_speed,
        &mut s.projected,
    )
}

/// [`avoid`] in units of `2^k` lengths, `k` such that the largest magnitude the
/// half-planes start from (velocities; distances and radii, and those over the time
/// horizons and the time step) is about 2^20; the time step and horizons count as at
/// least 2^-20 s here, so that an overlap is left within a microsecond rather than at
/// infinite speed. Scaling by a power of two is exact: where nothing overflows or
/// underflows, the result is the unscaled one's.
#[cold]
fn scaled_avoid(
    ctx: &SteerCtx<'_>,
    row: usize,
    me: &AgentState,
    preferred: Vec2,
    how: &Stance,
    s: &mut SteerScratch,
) -> Vec2 {
    const SHORTEST: f64 = 1.0 / (1u64 << 20) as f64;
    let params = &how.params;
    let per_time = (1.0
        / f64::from(ctx.dt)
            .min(f64::from(params.time_horizon))
            .min(f64::from(params.obstacle_time_horizon))
            .max(SHORTEST))
    .max(1.0);
    // Every velocity, and every length (relative to the agent) times the fastest
    // rate, in f64.
    let m = |v: Vec2| f64::from(v.x.abs().max(v.y.abs()));
    let from_me = |p: Vec2| {
        let (x, y) = (
            f64::from(p.x) - f64::from(me.pos.x),
            f64::from(p.y) - f64::from(me.pos.y),
        );
        x.abs().max(y.abs())
    };
    let mut largest = m(me.vel)
        .max(m(preferred))
        .max(f64::from(me.max_speed))
        .max(f64::from(me.radius) * per_time);
    for &r in &s.rows {
        let j = r as usize;
        let far = from_me(ctx.pos[j]) + f64::from(ctx.radius[j]) + f64::from(me.radius);
        largest = largest.max(m(ctx.vel[j])).max(far * per_time);
    }
    let range = params.obstacle_time_horizon * me.max_speed + me.radius;
    let mut scene = 0.0f64;
    ctx.walls.for_each_near(me.pos, range, |_, w| {
        scene = scene.max(from_me(w.a())).max(from_me(w.b()));
    });
    ctx.obstacles.for_each_near(me.pos, range, |_, o| {
        scene = scene.max(from_me(o.centre()) + f64::from(o.radius()));
    });
    largest = largest.max((scene + f64::from(me.radius)) * per_time);
    let k = if largest > 0.0 {
        (largest.log2().floor() as i32 - 20).clamp(-120, 100)
    } else {
        0
    };
    let unit = Unit {
        scale: 2f32.powi(-k),
        shortest: SHORTEST as f32,
    };
    let (obstacle_lines, turned) = half_planes::<true>(ctx, row, me, preferred, how, s, unit);
    let v = solve(
        &s.lines,
        obstacle_lines,
        turned * unit.scale,
        me.max_speed * unit.scale,
        &mut s.projected,
    );
    let v = v * 2f32.powi(k);
    if v.is_finite() {
        v
    } else {
        Vec2::ZERO
    }
}

/// A unit of length for the half-planes: lengths and speeds are multiplied by
/// `scale` (a power of two, exact), and time spans taken as at least `shortest`.
#[derive(Clone, Copy)]
struct Unit {
    scale: f32,
    shortest: f32,
}

impl Unit {
    /// Units as given.
    const ONE: Unit = Unit {
        scale: 1.0,
        shortest: 0.0,
    };
}

/// The half-planes of the walls and obstacles around the agent into `lines`, in
/// `unit`: the walls in ascending index (gathered into `walls`), since the linear
/// programs' rounding depends on the order of their lines, which must not depend on
/// the wall index's cells. Kept out of [`half_planes`], whose loop over the
/// neighbours the compiler lays out worse with this beside it
/// (`docs/optimisations.md`).
#[inline(never)]
fn scene_lines<const SCALED: bool>(
    ctx: &SteerCtx<'_>,
    me: &AgentState,
    params: &AvoidanceParams,
    unit: Unit,
    lines: &mut Vec<Line>,
    walls: &mut Vec<u32>,
) {
    let Unit { scale, shortest } = if SCALED { unit } else { Unit::ONE };
    let vel = me.vel * scale;
    let radius = me.radius * scale;
    let from_me = |p: Vec2| from_agent(p, me.pos, scale);
    let inv_obstacle = 1.0 / params.obstacle_time_horizon.max(shortest);
    let range = params.obstacle_time_horizon * me.max_speed + me.radius;
    walls.clear();
    ctx.walls
        .for_each_near(me.pos, range, |id, _| walls.push(id));
    walls.sort_unstable();
    for w in walls
        .iter()
        .filter_map(|&id| ctx.walls.walls().get(id as usize))
    {
        let (a, b) = (from_me(w.a()), from_me(w.b()));
        let facing = w.normal_facing(me.pos);
        lines.push(wall_line(a, b, radius, vel, inv_obstacle, facing));
    }
    ctx.obstacles.for_each_near(me.pos, range, |_, o| {
        let c = from_me(o.centre());
        lines.push(disc_line(
            c,
            (o.radius() + me.radius) * scale,
            vel,
            inv_obstacle,
        ));
    });
}

/// A point `p` relative to the agent at `me`, in a unit of `scale` lengths: scaled
/// first when that shrinks it (far points would overflow the difference), else after
/// (the difference is small then, and the agent's own position may not scale up).
#[inline(always)]
fn from_agent(p: Vec2, me: Vec2, scale: f32) -> Vec2 {
    if scale <= 1.0 {
        p * scale - me * scale
    } else {
        (p - me) * scale
    }
}

/// The half-planes of the walls, obstacles and neighbours around the agent into
/// `s.lines`, in `unit`; returns how many of them are the static scene's, and the
/// preferred velocity turned by the side bias (in the caller's units).
fn half_planes<const SCALED: bool>(
    ctx: &SteerCtx<'_>,
    row: usize,
    me: &AgentState,
    preferred: Vec2,
    how: &Stance,
    s: &mut SteerScratch,
    unit: Unit,
) -> (usize, Vec2) {
    // Unscaled, the multiplications by one and the floors of zero fold away.
    let Unit { scale, shortest } = if SCALED { unit } else { Unit::ONE };
    let params = &how.params;
    let lines = &mut s.lines;
    lines.clear();
    let vel = me.vel * scale;
    let from_me = |p: Vec2| from_agent(p, me.pos, scale);
    // The static scene first: the linear programs keep these hard.
    if !(ctx.walls.is_empty() && ctx.obstacles.is_empty()) {
        scene_lines::<SCALED>(ctx, me, params, unit, lines, &mut s.walls);
    }
    let obstacle_lines = lines.len();
    // Then the neighbours the agent avoids, each with its share.
    let inv_tau = 1.0 / params.time_horizon.max(shortest);
    let dt = ctx.dt.max(shortest);
    let goal = ctx.resolve(ctx.target[row]).map(|t| t.pos);
    let stand = standing(ctx, row, me, goal, params.arrived_within, &s.rows);
    s.queued = stand == Standing::Queued;
    let holds = stand != Standing::OnItsWay;
    let mine = (params.priority, holds);
    // Who steps aside for movers: an agent queued, or one holding its goal that has
    // arrived there (its arrival state `Arrived`: it came within its radius of its
    // goal, and stays so until two radii away). One only nearing its goal within
    // `arrived_within` does not: on the edge of that distance it would flicker in and
    // out of holding, and rest there, making way for a mover that makes way for it.
    let makes_way = match stand {
        Standing::Queued => true,
        Standing::Holding => s.arrived,
        Standing::OnItsWay => false,
    };
    // An agent that makes way: the way it steps for the movers it stands in the way
    // of (`make_way`, summed). Those bound for a goal nearer its own
    // than the sum of their radii are left out: the two goals cannot both be held
    // (a shared point, places packed closer than the bodies), and stepping aside
    // would only trade places for ever.
    let mut aside = Vec2::ZERO;
    // Held up, pressed narrower against its neighbours (`squeeze`).
    let width = if params.squeeze > 0.0 {
        pressed(me.vel.length(), me.max_speed, HELD_UP, params.squeeze)
    } else {
        1.0
    };
    for &r in &s.rows {
        let j = r as usize;
        let theirs = avoidance_of(ctx, j);
        if !avoids(params.mask, theirs) {
            continue;
        }
        let rel_pos = from_me(ctx.pos[j]);
        let radius = (me.radius + ctx.radius[j]) * scale;
        let share = match theirs {
            Some(t) => {
                let they_hold = ctx.arrived(j, t.arrived_within);
                let reach = me.radius + ctx.radius[j];
                // (Most pairs are settled by the first two tests, before any
                // target is looked up.)
                if !they_hold && (makes_way || near_goal(goal, ctx.pos[j], reach)) {
                    let straight = walks_straight(ctx, j);
                    let theirs = ctx.resolve(ctx.target[j]).map(|t| t.pos);
                    let theirs = theirs.filter(|_| straight);
                    if let Some(to) = theirs.filter(|&to| !near_goal(goal, to, reach)) {
                        if makes_way || swapped(ctx, row, j, to, reach) {
                            aside += make_way(rel_pos, from_me(to), radius);
                        }
                    }
                }
                share(mine, (t.priority, they_hold), t.mask & params.layers != 0)
            }
            None => 1.0,
        };
        let e = Encounter {
            rel_pos,
            rel_vel: vel - ctx.vel[j] * scale,
            radius: radius * width,
            share,
        };
        lines.push(agent_line(vel, &e, inv_tau, dt));
    }
    let preferred = if aside == Vec2::ZERO {
        match stand {
            Standing::Queued => Vec2::ZERO,
            Standing::OnItsWay if params.time_gap > 0.0 => {
                // The slowest headway speed to a neighbour in its lane (in the unit).
                let ahead = normalize_or_zero(preferred);
                let headway = s.rows.iter().fold(f32::INFINITY, |slowest, &r| {
                    let j = r as usize;
                    let theirs = avoidance_of(ctx, j);
                    if j == row || !avoids(params.mask, theirs) {
                        return slowest;
                    }
                    let reach = (me.radius + ctx.radius[j]) * scale;
                    let speed = headway_speed(ahead, from_me(ctx.pos[j]), reach, params.time_gap);
                    // Only a neighbour going its way: one in its lane coming toward it,
                    // or crossing it, is passed, not followed; nor is one holding its
                    // goal (it yields to movers).
                    let followed = speed < slowest
                        && goes_my_way(ahead, heading_to_vec(ctx.heading[j]))
                        && !theirs.is_some_and(|t| ctx.arrived(j, t.arrived_within));
                    if followed {
                        speed
                    } else {
                        slowest
                    }
                });
                keep_time_gap(preferred, headway / scale)
            }
            Standing::OnItsWay | Standing::Holding => preferred,
        }
    } else {
        normalize_or_zero(aside) * (aside.length().min(1.0) * me.max_speed)
    };
    // Near others, an agent on its way keeps right: its preferred velocity turns
    // clockwise by the side bias, in proportion to how much it yields. A fixed,
    // deterministic preference: perfectly symmetric head-on pairs pass instead of
    // stopping face to face, and dense crossings turn into a roundabout instead of
    // jamming. An agent holding its goal does not turn (it would circle its goal).
    // Held up by a front coming the other way, it turns further (`facing_front`).
    let turned = if lines.len() > obstacle_lines && !holds {
        match facing_front(ctx, row, me, preferred, &s.rows, params.mask) {
            0.0 => rotate_cw_by(preferred, how.side_turn),
            front => {
                let (sin, cos) = how.side_turn;
                rotate_cw_by(preferred, front_turn(sin.atan2(cos), front).sin_cos())
            }
        }
    } else {
        preferred
    };
    (obstacle_lines, turned)
}
