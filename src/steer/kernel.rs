//! The per-agent steering kernel ([`steer_one`]): an agent's neighbour work, then its
//! group's behaviours dispatched one by one and combined as the group says. Shared by
//! the parallel pass and the tests; the four-agent kernel ([`super::lanes`]) gives
//! bitwise the same outputs for the groups it serves.

use glam::Vec2;

use crate::agents::arrival::{Arrival, ArrivalMemory};
use crate::agents::{BehaviourMemory, SteerOut};
use crate::behaviours::angular::{align, face, look_where_you_are_going, velocity_match};
use crate::behaviours::approach::{approach_step, WalkerState};
use crate::behaviours::containment::containment;
use crate::behaviours::field::follow_field;
use crate::behaviours::flocking::{
    alignment, cohesion, separation, FlockForces, Neighbour, SeparationParams,
};
use crate::behaviours::host::host_force;
use crate::behaviours::kinematic::{
    kinematic_arrive, kinematic_flee, kinematic_seek, kinematic_wander, KinematicOutput,
};
use crate::behaviours::leader::{leader_follow, LeaderSight};
use crate::behaviours::obstacles::obstacle_avoidance;
use crate::behaviours::path::follow_path;
use crate::behaviours::queue::queue;
use crate::behaviours::tactics::{hide, interpose, offset_pursuit};
use crate::behaviours::targeting::{arrive, evade, flee, pursuit, seek, Motion};
use crate::behaviours::walls::wall_avoidance;
use crate::behaviours::wander::wander;
use crate::behaviours::{AgentState, Steering};
use crate::combine::{accumulate_force, dither_pick, Combination};
use crate::group::{Behaviour, FieldId, Movement};
use crate::integrate::next_velocity;
use crate::math::truncate;
use crate::rng::AgentRng;
use crate::scene::FieldSample;

use super::avoid::avoid;
use super::perceive::perceive;
use super::plan::{Avoiding, Stance};
use super::{SteerCtx, SteerScratch};

/// One behaviour's contribution before weighting.
#[derive(Clone, Copy, Default)]
struct Contribution {
    /// Force (steering groups) or velocity (kinematic groups).
    linear: Vec2,
    /// Angular acceleration (steering) or rotation (kinematic).
    angular: f32,
    /// A heading to set directly (kinematic behaviours that face their motion).
    heading: Option<f32>,
}

impl Contribution {
    fn force(linear: Vec2) -> Self {
        Self {
            linear,
            ..Self::default()
        }
    }

    fn steering(s: Steering) -> Self {
        Self {
            linear: s.linear,
            angular: s.angular,
            heading: None,
        }
    }

    fn kinematic(k: KinematicOutput) -> Self {
        Self {
            linear: k.velocity,
            angular: k.rotation,
            heading: k.heading,
        }
    }

    fn is_zero(&self) -> bool {
        self.linear == Vec2::ZERO && self.angular == 0.0 && self.heading.is_none()
    }
}

/// The per-agent state a behaviour may update (each agent its own row).
pub(crate) struct AgentMut<'a> {
    pub rng: &'a mut AgentRng,
    pub memory: &'a mut BehaviourMemory,
    pub walker: &'a mut WalkerState,
    /// Its arrival memory as the last tick left it: the avoidance reads whether it
    /// has arrived, and writes whether it found its target point taken (avoiding
    /// groups only).
    pub arrival: &'a mut ArrivalMemory,
}

/// The behaviour dispatch of one agent: what `steer_one` knows of the agent, its
/// target and its neighbours, with the per-agent memory it may update. A method
/// marked `inline(always)` rather than a closure, so that the dispatch is compiled
/// into each combination's loop instead of being called once per behaviour.
struct Dispatch<'c, 'a> {
    ctx: &'c SteerCtx<'a>,
    row: usize,
    me: AgentState,
    my_slot: u32,
    target: Option<Motion>,
    /// Where it heads for the target ([`SteerCtx::aim`]): the target, or round a wall.
    aim: Option<Motion>,
    target_row: Option<usize>,
    neighbours: &'c [Neighbour],
    flock: Option<(FlockForces, SeparationParams)>,
    memory: &'c mut BehaviourMemory,
    walker: &'c mut WalkerState,
    /// The last goal field a follow-field arm sampled at the agent this tick, and
    /// what it said: the avoidance's stance reads its distance from it (where it is
    /// the group's goal field) rather than sampling again.
    goal_sample: Option<(FieldId, FieldSample)>,
}

impl Dispatch<'_, '_> {
    /// One behaviour's contribution before weighting.
    #[inline(always)]
    fn eval(&mut self, b: &Behaviour, rng: &mut AgentRng) -> Contribution {
        // Fields are read where an arm needs them, not copied out up front: this runs
        // once per behaviour of every agent.
        let (ctx, row, my_slot) = (self.ctx, self.row, self.my_slot);
        let (target, target_row, flock) = (&self.target, self.target_row, &self.flock);
        let aim = &self.aim;
        let me = &self.me;
        let neighbours = self.neighbours;
        let memory = &mut *self.memory;
        let walker = &mut *self.walker;
        // A generic function rather than a closure over `&dyn Fn`: each arm's force is
        // compiled in place instead of called through a vtable.
        #[inline(always)]
        fn on_target(target: &Option<Motion>, f: impl FnOnce(Motion) -> Vec2) -> Contribution {
            Contribution::force(target.map_or(Vec2::ZERO, f))
        }
        match b {
            Behaviour::Seek => on_target(aim, |t| seek(me, t.pos)),
            Behaviour::Flee(p) => on_target(target, |t| flee(me, t.pos, p)),
            Behaviour::Arrive(p) => on_target(aim, |t| arrive(me, t.pos, p)),
            Behaviour::Pursuit => on_target(aim, |t| pursuit(me, &t)),
            Behaviour::Evade(p) => on_target(target, |t| evade(me, &t, p)),
            Behaviour::Wander(p) => {
                let (force, local) = wander(me, memory.wander, p, ctx.dt, rng);
                memory.wander = local;
                Contribution::force(force)
            }
            Behaviour::Separation(p) => Contribution::force(match flock {
                Some((f, fp)) if fp == p => f.separation,
                _ => separation(me, my_slot, neighbours, p),
            }),
            Behaviour::Cohesion => Contribution::force(match flock {
                Some((f, _)) => f.cohesion,
                None => cohesion(me, neighbours),
            }),
            Behaviour::Alignment => Contribution::force(match flock {
                Some((f, _)) => f.alignment,
                None => alignment(me, neighbours),
            }),
            Behaviour::Approach(p) => match aim {
                Some(t) => {
                    let (force, next) =
                        approach_step(me, t.pos, walker, p, (ctx.dt, ctx.integrator), rng);
                    *walker = next;
                    Contribution::force(force)
                }
                None => Contribution::default(),
            },
            Behaviour::Align(p) => target_row.map_or_else(Contribution::default, |r| {
                Contribution::steering(align(me, ctx.heading[r], p))
            }),
            Behaviour::Face(p) => target.map_or_else(Contribution::default, |t| {
                Contribution::steering(face(me, t.pos, p))
            }),
            Behaviour::LookWhereYouAreGoing(p) => {
                Contribution::steering(look_where_you_are_going(me, p))
            }
            Behaviour::VelocityMatch(p) => target.map_or_else(Contribution::default, |t| {
                Contribution::steering(velocity_match(me, t.vel, p))
            }),
            Behaviour::KinematicSeek => aim.map_or_else(Contribution::default, |t| {
                Contribution::kinematic(kinematic_seek(me, t.pos))
            }),
            Behaviour::KinematicFlee => target.map_or_else(Contribution::default, |t| {
                Contribution::kinematic(kinematic_flee(me, t.pos))
            }),
            Behaviour::KinematicArrive(p) => aim.map_or_else(Contribution::default, |t| {
                Contribution::kinematic(kinematic_arrive(me, t.pos, p))
            }),
            Behaviour::KinematicWander(p) => Contribution::kinematic(kinematic_wander(me, p, rng)),
            Behaviour::WallAvoidance(p) => Contribution::force(wall_avoidance(me, ctx.walls, p)),
            Behaviour::ObstacleAvoidance(p) => {
                Contribution::force(obstacle_avoidance(me, ctx.obstacles, p))
            }
            Behaviour::FollowPath { path, params } => match ctx.path_of(row, *path) {
                Some(path) => {
                    let (force, progress) = follow_path(me, path, memory.path_progress, params);
                    memory.path_progress = progress;
                    Contribution::force(force)
                }
                None => Contribution::default(),
            },
            Behaviour::Containment(p) => Contribution::force(containment(me, p)),
            Behaviour::Queue(p) => Contribution::force(queue(me, my_slot, neighbours, p)),
            Behaviour::FollowField { field, params } => match ctx.field(*field) {
                Some(f) => {
                    let sample = f.sample(me.pos);
                    self.goal_sample = Some((*field, sample));
                    Contribution::force(follow_field(me, sample, target.map(|t| t.pos), params))
                }
                None => Contribution::default(),
            },
            Behaviour::Interpose(p) => match (target, ctx.resolve(ctx.second_target(row))) {
                (Some(a), Some(b)) => Contribution::force(interpose(me, a, &b, p)),
                _ => Contribution::default(),
            },
            Behaviour::Hide(p) => on_target(target, |hunter| hide(me, &hunter, ctx.obstacles, p)),
            Behaviour::OffsetPursuit(p) => target_row.map_or_else(Contribution::default, |lr| {
                let leader = ctx.leader_view(lr);
                Contribution::force(offset_pursuit(me, &leader, ctx.offset(row), p))
            }),
            Behaviour::LeaderFollow { leader, separation } => {
                let seen_by = ctx.sighted_by_row(row);
                let mut force = Vec2::ZERO;
                if let Some(lr) = target_row {
                    let sight = if seen_by == Some(lr) {
                        LeaderSight::InSight
                    } else {
                        LeaderSight::OutOfSight
                    };
                    let view = ctx.leader_view(lr);
                    force +=
                        leader_follow(me, my_slot, &view, sight, neighbours, separation, leader);
                }
                if let Some(other) = seen_by.filter(|&l| Some(l) != target_row) {
                    // In the way of another squad's leader: step aside too.
                    force += evade(me, &ctx.leader_view(other).body, &leader.evade);
                }
                Contribution::force(force)
            }
            Behaviour::GiveWay(p) => match ctx.sighted_by_row(row) {
                None => Contribution::default(),
                Some(lr) => Contribution::force(evade(me, &ctx.leader_view(lr).body, p)),
            },
        }
    }
}

/// The velocity a steered agent's behaviours ask of its avoidance: where their force
/// takes the velocity over `max(dt, mass × 1 s)`. Reynolds' behaviours steer by
/// force = desired velocity - velocity (Buckland's unit-mass convention), so over
/// `mass × 1 s` the force reaches the velocity they desire, as RVO2's preferred
/// velocity is, whatever the tick; a heavier body's own acceleration limit is applied
/// after the avoidance, by the integration. (Over one tick alone, a body that needs
/// several ticks to reach its speed would offer the avoidance only a little more than
/// its present velocity, and crawl around whatever it avoids.)
pub(crate) fn preferred_velocity(me: &AgentState, force: Vec2, dt: f32) -> Vec2 {
    next_velocity(me.vel, force, me.limits(), dt.max(me.mass))
}

/// The steering output from what the agent asks: `linear` (a force, or a velocity in
/// a kinematic group) made collision-free by its group's avoidance, whose output is
/// then a velocity the integration takes as it is; or, in a group the host moves, the
/// velocity the tick would give it. The avoidance starts from a host-driven agent's
/// velocity (`host`) itself, else from the behaviours' [`preferred_velocity`]; it
/// reads whether the agent has arrived and notes in `arrival` whether it is queued.
/// `goal_sample`: the group's goal field at the agent, where the behaviours sampled it.
#[allow(clippy::too_many_arguments)]
fn motion(
    ctx: &SteerCtx<'_>,
    (g_idx, row): (usize, usize),
    me: &AgentState,
    linear: Vec2,
    host: Option<Vec2>,
    goal_sample: Option<(FieldId, FieldSample)>,
    arrival: &mut ArrivalMemory,
    s: &mut SteerScratch,
) -> Vec2 {
    let plan = &ctx.plans[g_idx];
    let movement = ctx.groups[g_idx].movement;
    if let Some(how) = &plan.avoidance {
        let preferred = match (host, movement) {
            (Some(v), _) => truncate(v, me.max_speed),
            (None, Movement::Steering) => preferred_velocity(me, linear, ctx.dt),
            (None, Movement::Kinematic) => truncate(linear, me.max_speed),
        };
        s.arrived = arrival.state == Arrival::Arrived;
        let how = stance(ctx, g_idx, me.pos, goal_sample, how);
        let v = avoid(ctx, row, me, preferred, how, s);
        arrival.queued = s.queued;
        v
    } else if plan.host_moves {
        match movement {
            Movement::Steering => next_velocity(me.vel, linear, me.limits(), ctx.dt),
            Movement::Kinematic => truncate(linear, me.max_speed),
        }
    } else {
        linear
    }
}

/// The avoidance of an agent of group `g_idx` (avoiding as `how`) at `pos`: near its
/// goal, the avoidance there (the distance measured only for groups that have one;
/// from `sampled`, a field and what it said at `pos`, where that is the group's).
pub(crate) fn stance<'a>(
    ctx: &SteerCtx<'_>,
    g_idx: usize,
    pos: Vec2,
    sampled: Option<(FieldId, FieldSample)>,
    how: &'a Avoiding,
) -> &'a Stance {
    match how.near {
        Some(_) => how.at(goal_distance(ctx, g_idx, pos, sampled)),
        None => &how.own,
    }
}

/// How far an agent of group `g_idx` at `pos` is from its goal: the travel distance
/// to a goal of the goal field its group follows (0 in one); infinite where the
/// field reaches none, and for a group that follows no field. `sampled`: a field
/// and what it said at `pos`, read where that field is the group's (the group's is
/// sampled here otherwise).
fn goal_distance(
    ctx: &SteerCtx<'_>,
    g_idx: usize,
    pos: Vec2,
    sampled: Option<(FieldId, FieldSample)>,
) -> f32 {
    let Some(id) = ctx.plans[g_idx].field else {
        return f32::INFINITY;
    };
    let sample = match sampled {
        Some((f, sample)) if f == id => sample,
        _ => match ctx.field(id) {
            Some(f) => f.sample(pos),
            None => return f32::INFINITY,
        },
    };
    sample.distance().unwrap_or(f32::INFINITY)
}

/// The steering kernel of one agent: its output and the neighbours it perceived.
pub(crate) fn steer_one(
    ctx: &SteerCtx<'_>,
    row: usize,
    m: AgentMut<'_>,
    s: &mut SteerScratch,
) -> (SteerOut, u32) {
    let g_idx = ctx.group[row] as usize;
    let g = &ctx.groups[g_idx];
    let me = ctx.state(row);
    let my_slot = ctx.id[row].index();
    let seen = perceive(ctx, (g_idx, row), || me, s);
    if let Some(host) = ctx.host_velocity(row) {
        // Host-driven: the host's velocity in place of the behaviours' output.
        let linear = match g.movement {
            Movement::Steering => host_force(&me, host, ctx.dt),
            Movement::Kinematic => host,
        };
        let linear = if linear.is_finite() {
            linear
        } else {
            Vec2::ZERO
        };
        let linear = motion(
            ctx,
            (g_idx, row),
            &me,
            linear,
            Some(host),
            None,
            m.arrival,
            s,
        );
        return (SteerOut::new(linear, 0.0, None), seen.count as u32);
    }
    let (flock, count) = (seen.flock.forces(&me), seen.count);
    let target_row = ctx.target_row(ctx.target[row]);
    let target = ctx.resolve(ctx.target[row]);
    let aim = match target {
        Some(t) if ctx.detours(g_idx) => Some(ctx.aim(row, t)),
        _ => target,
    };
    let AgentMut {
        rng,
        memory,
        walker,
        arrival,
    } = m;
    let neighbours = &s.neighbours;
    let mut dispatch = Dispatch {
        ctx,
        row,
        me,
        my_slot,
        target,
        aim,
        target_row,
        neighbours,
        flock,
        memory,
        walker,
        goal_sample: None,
    };
    let out = match (g.movement, g.combination) {
        // Kinematic groups: weighted sum of velocities and rotations; the first
        // behaviour that sets a heading sets it. The integrator clamps speed.
        (Movement::Kinematic, _) => {
            let mut sum = Contribution::default();
            for b in &g.behaviours {
                let c = dispatch.eval(&b.behaviour, rng);
                sum.linear += c.linear * b.weight;
                sum.angular += c.angular * b.weight;
                sum.heading = sum.heading.or(c.heading);
            }
            sum
        }
        (Movement::Steering, Combination::WeightedSum) => {
            let mut sum = Contribution::default();
            for b in &g.behaviours {
                let c = dispatch.eval(&b.behaviour, rng);
                sum.linear += c.linear * b.weight;
                sum.angular += c.angular * b.weight;
            }
            sum.linear = truncate(sum.linear, me.max_force);
            sum
        }
        (Movement::Steering, Combination::Prioritized) => {
            let mut sum = Contribution::default();
            for b in &g.behaviours {
                let c = dispatch.eval(&b.behaviour, rng);
                sum.angular += c.angular * b.weight;
                if !accumulate_force(&mut sum.linear, c.linear * b.weight, me.max_force) {
                    break;
                }
            }
            sum
        }
        (Movement::Steering, Combination::Dithered) => {
            let mut chosen = Contribution::default();
            for b in &g.behaviours {
                if b.probability > 0.0 && dither_pick(rng, b.probability) {
                    let c = dispatch.eval(&b.behaviour, rng);
                    if !c.is_zero() {
                        let scale = b.weight / b.probability;
                        chosen.linear = truncate(c.linear * scale, me.max_force);
                        chosen.angular = c.angular * scale;
                        break;
                    }
                }
            }
            chosen
        }
    };
    let linear = if out.linear.is_finite() {
        out.linear
    } else {
        Vec2::ZERO
    };
    let angular = if out.angular.is_finite() {
        out.angular
    } else {
        0.0
    };
    let goal_sample = dispatch.goal_sample;
    let linear = motion(
        ctx,
        (g_idx, row),
        &me,
        linear,
        None,
        goal_sample,
        arrival,
        s,
    );
    (SteerOut::new(linear, angular, out.heading), count as u32)
}
