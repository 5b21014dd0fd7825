//! Debug drawing as data: the geometry an agent's behaviours work with, as plain
//! lines, circles and points a host renders with its own debug draw (or the CLI's
//! PNG writer draws for one agent).
//!
//! The geometry is computed from the world as it is now (after the last tick and
//! any change since), through the behaviours' own functions (the feelers of
//! [`crate::behaviours::walls::feelers`], the path step of
//! [`crate::behaviours::path::path_step`], the leader's points of
//! [`crate::behaviours::leader`]), so it is what the next tick will start from:
//! the wander target and path progress the last tick left, the neighbours within
//! reach now, the steering output of the last tick.

use glam::Vec2;

use crate::agents::{AgentId, GroupId};
use crate::behaviours::leader::{ahead_point, behind_point};
use crate::behaviours::obstacles::detection_box_length;
use crate::behaviours::path::path_step;
use crate::behaviours::walls::{feeler_directions, feelers};
use crate::behaviours::wander::wander_force;
use crate::error::Result;
use crate::group::{Behaviour, Movement};
use crate::math::perp_right;
use crate::scene::FieldSample;

use super::World;
use crate::steer::{avoid, stance, SteerScratch};

/// What a piece of debug geometry shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DebugKind {
    /// The agent's body (circle).
    Body,
    /// Its velocity (line from its centre, one second long).
    Velocity,
    /// Its last steering force (line from its centre), for steering groups.
    Force,
    /// Its target (point), and the arrive's slowing radius around it (circle).
    Target,
    /// A wall-avoidance feeler (line).
    Feeler,
    /// Where a feeler meets a wall (point).
    FeelerHit,
    /// The wander circle (circle) ahead of the agent.
    WanderCircle,
    /// The wander target on it (point).
    WanderTarget,
    /// The obstacle-avoidance detection box (four lines).
    DetectionBox,
    /// The point behind the leader a follower arrives at (point).
    Behind,
    /// The point ahead of the leader (point).
    Ahead,
    /// The leader's sight: a circle around its ahead point and one around itself.
    LeaderSight,
    /// A neighbour the agent perceives (line from its centre to the neighbour's).
    Neighbour,
    /// Path following: where the agent predicts it will be (point) and that
    /// prediction's projection on the path (line between the two).
    PathPrediction,
    /// Path following: the point it steers to (point).
    PathCarrot,
    /// Goal-field following: the field's direction at the agent (line from its
    /// centre, as long as its top speed: the velocity it wants on the way).
    FieldDirection,
    /// An avoidance (ORCA) half-plane of velocities: its boundary line, in the
    /// agent's velocity space drawn with the origin at the agent's centre (a
    /// velocity `v` is drawn at `position + v`). Allowed velocities lie to the left
    /// of `from → to`; the segment is twice the top speed long, centred on the
    /// line's defining point.
    OrcaLine,
}

/// A line segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugLine {
    /// What it shows.
    pub kind: DebugKind,
    /// The agent it belongs to.
    pub agent: AgentId,
    /// Start.
    pub from: Vec2,
    /// End.
    pub to: Vec2,
}

/// A circle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugCircle {
    /// What it shows.
    pub kind: DebugKind,
    /// The agent it belongs to.
    pub agent: AgentId,
    /// Centre.
    pub centre: Vec2,
    /// Radius.
    pub radius: f32,
}

/// A point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugPoint {
    /// What it shows.
    pub kind: DebugKind,
    /// The agent it belongs to.
    pub agent: AgentId,
    /// Where.
    pub at: Vec2,
}

/// Debug geometry of one or more agents ([`World::debug_draw`]). Reuse one across
/// frames: the calls append, [`DebugDraw::clear`] empties it and keeps its memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugDraw {
    /// Lines.
    pub lines: Vec<DebugLine>,
    /// Circles.
    pub circles: Vec<DebugCircle>,
    /// Points.
    pub points: Vec<DebugPoint>,
}

impl DebugDraw {
    /// Empty it, keeping its memory.
    pub fn clear(&mut self) {
        self.lines.clear();
        self.circles.clear();
        self.points.clear();
    }

    /// Whether it holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.circles.is_empty() && self.points.is_empty()
    }

    fn line(&mut self, kind: DebugKind, agent: AgentId, from: Vec2, to: Vec2) {
        self.lines.push(DebugLine {
            kind,
            agent,
            from,
            to,
        });
    }

    fn circle(&mut self, kind: DebugKind, agent: AgentId, centre: Vec2, radius: f32) {
        self.circles.push(DebugCircle {
            kind,
            agent,
            centre,
            radius,
        });
    }

    fn point(&mut self, kind: DebugKind, agent: AgentId, at: Vec2) {
        self.points.push(DebugPoint { kind, agent, at });
    }
}

impl World {
    /// Append the debug geometry of an agent to `out`: its body, velocity and last
    /// steering force, its target, and for each behaviour of its group what that
    /// behaviour works with (feelers and their hits, the wander circle and target,
    /// the detection box, the leader's behind and ahead points and sight, the
    /// neighbours it perceives, the path prediction and carrot, and the avoidance's
    /// half-planes when its group avoids). Computed from the world as it is now,
    /// through the behaviours' own functions: what the next tick starts from (the
    /// wander target and path progress the last tick left, the neighbours within
    /// reach now, the last tick's force and `dt`).
    ///
    /// ```
    /// use throng::prelude::*;
    /// use throng::world::{DebugDraw, DebugKind};
    ///
    /// let mut world = World::default();
    /// let g = world.add_group(GroupConfig::new("g").with(Behaviour::Wander(WanderParams::default()), 1.0))?;
    /// let id = world.spawn(AgentSpec::new(g, Vec2::ZERO))?;
    /// world.step(1.0 / 30.0)?;
    /// let mut draw = DebugDraw::default();
    /// world.debug_draw(id, &mut draw)?;
    /// assert!(draw.circles.iter().any(|c| c.kind == DebugKind::WanderCircle));
    /// # Ok::<(), ThrongError>(())
    /// ```
    ///
    /// # Errors
    /// An unknown handle.
    pub fn debug_draw(&self, id: AgentId, out: &mut DebugDraw) -> Result<()> {
        let row = self.row(id)?;
        let fits = self.debug_avoidance_fits(usize::from(self.cols.group[row]));
        self.draw_row(row, fits, out)
    }

    /// The last tick's dt (1/30 before the first), which the debug view steers with.
    fn debug_dt(&self) -> f32 {
        if self.last_dt > 0.0 {
            self.last_dt
        } else {
            1.0 / 30.0
        }
    }

    /// [`World::avoidance_fits`] where the group avoids (a pass over the columns),
    /// else `true` (nothing reads it).
    fn debug_avoidance_fits(&self, group: usize) -> bool {
        self.plans[group].avoidance.is_none() || self.avoidance_fits(self.debug_dt())
    }

    /// [`World::debug_draw`] of the agent in `row`, with the tick's overflow check of
    /// the avoidance computed once by the caller.
    fn draw_row(&self, row: usize, avoidance_fits: bool, out: &mut DebugDraw) -> Result<()> {
        let id = self.cols.id[row];
        let c = &self.cols;
        // The steering pass's own view of the world (the last tick's dt; 1/30 before
        // the first): the agent's state, its targets and path as the tick reads them.
        let dt = self.debug_dt();
        let ctx = self.steer_ctx(dt, 0.0, false, avoidance_fits);
        let me = ctx.state(row);
        let group = &self.groups[usize::from(c.group[row])];
        out.circle(DebugKind::Body, id, me.pos, me.radius);
        out.line(DebugKind::Velocity, id, me.pos, me.pos + me.vel);
        if group.movement == Movement::Steering {
            out.line(DebugKind::Force, id, me.pos, me.pos + c.out[row].linear);
        }
        let target = ctx.resolve(c.target[row]);
        if let Some(t) = target {
            out.point(DebugKind::Target, id, t.pos);
        }
        for b in &group.behaviours {
            match &b.behaviour {
                Behaviour::Arrive(p) => {
                    if let Some(t) = target {
                        out.circle(DebugKind::Target, id, t.pos, p.slowing_radius);
                    }
                }
                Behaviour::WallAvoidance(p) => {
                    let tips = feelers(&me, p);
                    for (dir, tip) in feeler_directions(&me).into_iter().zip(tips) {
                        out.line(DebugKind::Feeler, id, me.pos, tip);
                        if let Some(hit) = self.walls.ray_cast(me.pos, dir, p.feeler_length) {
                            out.point(DebugKind::FeelerHit, id, hit.point);
                        }
                    }
                }
                Behaviour::ObstacleAvoidance(p) => {
                    let len = detection_box_length(&me, p);
                    let fwd = me.forward();
                    let side = perp_right(fwd) * me.radius.max(0.0);
                    let corners = [
                        me.pos - side,
                        me.pos - side + fwd * len,
                        me.pos + side + fwd * len,
                        me.pos + side,
                    ];
                    for k in 0..4 {
                        out.line(
                            DebugKind::DetectionBox,
                            id,
                            corners[k],
                            corners[(k + 1) % 4],
                        );
                    }
                }
                Behaviour::Wander(p) => {
                    let centre = me.pos + me.forward() * p.distance;
                    out.circle(DebugKind::WanderCircle, id, centre, p.radius);
                    let at = me.pos + wander_force(&me, c.memory[row].wander, p);
                    out.point(DebugKind::WanderTarget, id, at);
                }
                Behaviour::FollowPath { path, params } => {
                    if let Some(path) = ctx.path_of(row, *path) {
                        let step = path_step(&me, path, c.memory[row].path_progress, params);
                        out.point(DebugKind::PathPrediction, id, step.predicted);
                        out.line(DebugKind::PathPrediction, id, step.predicted, step.on_path);
                        if let Some(carrot) = step.carrot {
                            out.point(DebugKind::PathCarrot, id, carrot);
                        }
                    }
                }
                Behaviour::FollowField { field, .. } => {
                    let sample = ctx.field(*field);
                    if let Some(FieldSample::Toward { direction, .. }) =
                        sample.map(|f| f.sample(me.pos))
                    {
                        let to = me.pos + direction * me.max_speed;
                        out.line(DebugKind::FieldDirection, id, me.pos, to);
                    }
                }
                Behaviour::LeaderFollow { leader, .. } => {
                    if let Some(lr) = ctx.target_row(c.target[row]) {
                        let view = ctx.leader_view(lr);
                        let ahead = ahead_point(&view, leader);
                        out.point(DebugKind::Behind, id, behind_point(&view, leader));
                        out.point(DebugKind::Ahead, id, ahead);
                        out.circle(DebugKind::LeaderSight, id, ahead, leader.sight_radius);
                        out.circle(DebugKind::LeaderSight, id, c.pos[lr], leader.sight_radius);
                    }
                }
                _ => {}
            }
        }
        if group.needs_neighbours() {
            let mut near = Vec::new();
            self.neighbours_of(id, &mut near)?;
            let mut s = SteerScratch::default();
            for other in near {
                let r = self.row(other)?;
                out.line(DebugKind::Neighbour, id, me.pos, c.pos[r]);
                s.rows.push(r as u32);
            }
            let g_idx = usize::from(c.group[row]);
            if let Some(how) = &self.plans[g_idx].avoidance {
                // The half-planes the tick's own avoidance builds from the scene and
                // these neighbours.
                let how = stance(&ctx, g_idx, me.pos, None, how);
                avoid(&ctx, row, &me, me.vel, how, &mut s);
                let half = me.max_speed.max(0.0);
                for l in &s.lines {
                    let p = me.pos + l.point;
                    out.line(DebugKind::OrcaLine, id, p - l.dir * half, p + l.dir * half);
                }
            }
        }
        Ok(())
    }

    /// Append the debug geometry of every agent of `group` ([`World::debug_draw`]).
    ///
    /// # Errors
    /// An unknown group.
    pub fn debug_draw_group(&self, group: GroupId, out: &mut DebugDraw) -> Result<()> {
        self.live_group(group)?;
        let fits = self.debug_avoidance_fits(group.index());
        for (row, &g) in self.cols.group.iter().enumerate() {
            if g == group.index {
                self.draw_row(row, fits, out)?;
            }
        }
        Ok(())
    }
}
