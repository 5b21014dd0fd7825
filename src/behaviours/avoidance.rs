//! Reciprocal collision avoidance: ORCA (van den Berg, Guy, Lin and Manocha,
//! "Reciprocal n-Body Collision Avoidance", 2011).
//!
//! Each agent turns the velocity its steering prefers into the one closest to it that
//! stays collision-free for a time horizon against its neighbours and the static scene:
//! - every neighbour gives a half-plane of velocities (an ORCA [`Line`]): the agent
//!   takes its share of the smallest change `u` that leaves the velocity obstacle
//!   ([`agent_line`]); the neighbour, running the same rule, takes the rest;
//! - every wall and circular obstacle near it gives a half-plane the agent honours
//!   alone ([`wall_line`], [`disc_line`]), with its own (usually shorter) horizon;
//! - an incremental 2D linear program finds the velocity in all the half-planes and
//!   within the maximum speed closest to the preferred one; when they leave nothing,
//!   a 3D linear program finds the velocity that violates the agents' half-planes
//!   least, the obstacles' still held ([`solve`]).
//!
//! A line is a point and a unit direction; the valid half-plane lies to its left
//! (`det(dir, v - point) >= 0`).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::math::{cross, normalize_or_zero, perp_right};

/// Parameters of a group's avoidance. The neighbours it avoids are the group's (its
/// `neighbour_radius` and `max_neighbours`); the agents' radii are their bodies'.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AvoidanceParams {
    /// Velocities are chosen collision-free with other agents for this long (s), > 0.
    /// Longer is safer and more timid. Default 2.
    pub time_horizon: f32,
    /// The same against walls and obstacles (s), > 0. Default 1.
    pub obstacle_time_horizon: f32,
    /// Who yields, in `[0, 1]`: of two agents that avoid each other, each takes a
    /// share of the avoidance in proportion to `1 - priority` (halves when equal; an
    /// agent with priority 1 keeps its line against one with priority 0). Default 0.5.
    pub priority: f32,
    /// The avoidance layers the group's agents are in (a bit mask). Default 1.
    pub layers: u32,
    /// The layers the group's agents avoid: an agent avoids a neighbour when
    /// `mask & neighbour.layers != 0`, and takes all the avoidance of a neighbour that
    /// does not avoid it back. Default all.
    pub mask: u32,
    /// An agent within this distance (units) of its target counts as arrived: it
    /// holds its goal. It yields as if its priority were 0, and it makes way for
    /// agents still on their way whose path runs through it ([`make_way`]), so
    /// crowds do not jam at their goals and latecomers reach theirs. Default 1.
    pub arrived_within: f32,
    /// Near other agents, an agent on its way keeps right: its preferred velocity
    /// turns this many radians clockwise, times how much it yields (`1 - priority`;
    /// an arrived agent, holding its goal, does not turn: it would circle its goal
    /// instead of settling on it). A fixed, deterministic side preference, so that perfectly
    /// symmetric head-on pairs pass right shoulder to right shoulder instead of
    /// stopping face to face, and dense crossings turn into a roundabout instead of
    /// jamming; an agent of priority 1 keeps its line. Held up by a front coming the
    /// other way (agents bound by another goal field, held up too), it turns further,
    /// up to a quarter turn ([`front_turn`]). Default 0.6 (about 17° at the default
    /// priority); 0 turns it off.
    pub side_bias: f32,
    /// Keep this time gap (s) to whoever walks ahead: an agent on its way prefers no
    /// more speed than the free distance to the nearest neighbour in its lane over
    /// this time ([`headway_speed`]), as people do (the speed function of Tordeux,
    /// Chraibi and Seyfried's collision-free speed model, 2016). It brings a crowd's
    /// speed down with its density as people's (1 s: within 10% of Weidmann's from
    /// 0.5 to 3 persons/m²), and caps the flow through a door near 1 person/s,
    /// whatever its width. Default 0 (off).
    pub time_gap: f32,
    /// How much narrower than their bodies agents held up in a crowd let themselves
    /// be pressed against each other, in `[0, 0.5)`: an agent at rest avoids its
    /// neighbours with the sum of their radii times `1 - squeeze`, one moving at 0.3
    /// of its top speed or more with the whole sum, linearly between ([`pressed`]).
    /// Walls and obstacles keep the whole radius. People jammed at a door press
    /// shoulder to shoulder and the jam gives; ORCA's bodies are rigid, and an arch
    /// of them at a narrow door's mouth stands for seconds. Default 0 (rigid).
    pub squeeze: f32,
    /// Near its goal, an agent presses on: within [`NearGoal::within`] of it, its
    /// time gap, squeeze and side bias are the [`NearGoal`]'s. People queueing for a
    /// door accept shorter gaps and closer contact than the same people walking a
    /// corridor (motivation, as pedestrian models name it); one set of keys serves
    /// both. Default none.
    pub near_goal: Option<NearGoal>,
}

/// The avoidance of an agent near its goal ([`AvoidanceParams::near_goal`]): the
/// keys that differ there, and how near.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NearGoal {
    /// How near (units, > 0): the travel distance to a goal of the goal field the
    /// agent's group follows (an agent of a group that follows none is never near).
    pub within: f32,
    /// [`AvoidanceParams::time_gap`] there.
    pub time_gap: f32,
    /// [`AvoidanceParams::squeeze`] there.
    pub squeeze: f32,
    /// [`AvoidanceParams::side_bias`] there.
    pub side_bias: f32,
}

impl Default for AvoidanceParams {
    fn default() -> Self {
        Self {
            time_horizon: 2.0,
            obstacle_time_horizon: 1.0,
            priority: 0.5,
            layers: 1,
            mask: u32::MAX,
            arrived_within: 1.0,
            side_bias: 0.6,
            time_gap: 0.0,
            squeeze: 0.0,
            near_goal: None,
        }
    }
}

impl AvoidanceParams {
    /// Avoidance for people-sized bodies ([`crate::AgentSpec::with_pedestrian_body`]),
    /// brought to the human data (`docs/pedestrians.md`): a time horizon of 1 s against
    /// others and 0.5 s against walls and obstacles (bolder at door posts than the
    /// defaults' 2 s and 1 s); a time gap of 1 s to whoever walks ahead, which brings
    /// a corridor's speed down with its density as Weidmann's fundamental diagram
    /// does; and within 12 m of the goal of the goal field its group follows (an
    /// exit), pressing on as people queueing for a door do ([`NearGoal`]): a time gap
    /// of 0.35 s, bodies pressed up to a quarter narrower when held up, and a keep-right
    /// of 0.8, which passes doors of 0.8 to 2.5 m at about the flows people do.
    #[must_use]
    pub fn pedestrian() -> Self {
        Self {
            time_horizon: 1.0,
            obstacle_time_horizon: 0.5,
            time_gap: 1.0,
            near_goal: Some(NearGoal {
                within: 12.0,
                time_gap: 0.35,
                squeeze: 0.25,
                side_bias: 0.8,
            }),
            ..Self::default()
        }
    }

    /// Check every field: `Err` names the first bad one and says why.
    pub fn validate(&self) -> Result<(), String> {
        let positive = |name: &str, v: f32| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{name} must be finite and > 0, got {v}"))
            }
        };
        positive("time_horizon", self.time_horizon)?;
        positive("obstacle_time_horizon", self.obstacle_time_horizon)?;
        if !(0.0..=1.0).contains(&self.priority) {
            return Err(format!("priority must be in [0, 1], got {}", self.priority));
        }
        if !(self.arrived_within.is_finite() && self.arrived_within >= 0.0) {
            return Err(format!(
                "arrived_within must be finite and >= 0, got {}",
                self.arrived_within
            ));
        }
        check_pressing(self.time_gap, self.squeeze, self.side_bias, "")?;
        if let Some(near) = &self.near_goal {
            if !(near.within.is_finite() && near.within > 0.0) {
                return Err(format!(
                    "near_goal.within must be finite and > 0, got {}",
                    near.within
                ));
            }
            check_pressing(near.time_gap, near.squeeze, near.side_bias, "near_goal.")?;
        }
        Ok(())
    }

    /// These parameters with the time gap, squeeze and side bias of `near`.
    #[must_use]
    pub fn pressing(&self, near: &NearGoal) -> Self {
        Self {
            time_gap: near.time_gap,
            squeeze: near.squeeze,
            side_bias: near.side_bias,
            near_goal: None,
            ..*self
        }
    }
}

/// Check a time gap, squeeze and side bias (their keys named after `prefix`).
fn check_pressing(time_gap: f32, squeeze: f32, side_bias: f32, prefix: &str) -> Result<(), String> {
    if !(time_gap.is_finite() && time_gap >= 0.0) {
        return Err(format!(
            "{prefix}time_gap must be finite and >= 0, got {time_gap}"
        ));
    }
    if !(0.0..0.5).contains(&squeeze) {
        return Err(format!(
            "{prefix}squeeze must be in [0, 0.5), got {squeeze}"
        ));
    }
    if !(side_bias.is_finite() && side_bias.abs() <= 1.5) {
        return Err(format!(
            "{prefix}side_bias must be within ±1.5 radians, got {side_bias}"
        ));
    }
    Ok(())
}

/// A directed line bounding a half-plane of velocities: the valid side is to the left
/// of `dir` (a unit vector) through `point`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Line {
    /// A point on the line.
    pub point: Vec2,
    /// The line's unit direction.
    pub dir: Vec2,
}

impl Line {
    /// The line through `point` bounding the half-plane whose inward unit normal is
    /// `normal`: valid velocities `v` have `(v - point) · normal >= 0`.
    #[must_use]
    pub fn from_normal(point: Vec2, normal: Vec2) -> Self {
        Self {
            point,
            dir: perp_right(normal),
        }
    }

    /// How far `v` lies outside the half-plane (negative inside).
    #[inline]
    #[must_use]
    pub fn violation(&self, v: Vec2) -> f32 {
        cross(self.dir, self.point - v)
    }
}

/// What an agent knows of another for avoidance: relative position and velocity, the
/// sum of the radii, and the share of the avoidance it takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Encounter {
    /// The other's position minus the agent's.
    pub rel_pos: Vec2,
    /// The agent's velocity minus the other's.
    pub rel_vel: Vec2,
    /// Sum of the two radii.
    pub radius: f32,
    /// The agent's share of the avoidance, in `[0, 1]` (RVO2 always takes 0.5).
    pub share: f32,
}

/// The agent's share of the avoidance of a pair: in proportion to how much each yields
/// (`1 - priority`, an arrived agent as if its priority were 0), all of it when the
/// other does not avoid the agent back, halves when neither yields.
#[must_use]
pub fn share(mine: (f32, bool), theirs: (f32, bool), they_avoid_me: bool) -> f32 {
    if !they_avoid_me {
        return 1.0;
    }
    let yields = |(priority, arrived): (f32, bool)| if arrived { 1.0 } else { 1.0 - priority };
    let (a, b) = (yields(mine), yields(theirs));
    if a + b > 0.0 {
        a / (a + b)
    } else {
        0.5
    }
}

/// An agent's share of its bodies' width against its neighbours when it moves at
/// `speed` with top speed `max_speed` ([`AvoidanceParams::squeeze`]): `1 - squeeze`
/// at rest, 1 from `held_up` times its top speed on, linearly between. 1 for an agent
/// whose top speed is 0 (it never moves).
#[must_use]
#[inline]
pub fn pressed(speed: f32, max_speed: f32, held_up: f32, squeeze: f32) -> f32 {
    let slow = held_up * max_speed;
    // A top speed of 0 and a speed that is not a number fail the test.
    if slow > 0.0 && speed < slow {
        1.0 - squeeze * (1.0 - speed / slow)
    } else {
        1.0
    }
}

/// Making way: how far an agent holding its goal stands in the way of another still
/// on its way, and which way to step. With the other's centre at `from` and its goal
/// at `to`, both relative to the holder, the holder is in the way when its centre
/// lies ahead of the other (it projects onto the segment past `from`) and nearer the
/// segment than `reach` (the sum of their radii). The result is the unit vector from
/// the segment's nearest point to the holder (to the other's right when the holder
/// stands on the line), times how deep in the way it stands, `(reach - d) / reach`;
/// zero when it is not in the way (or the other stands on its goal).
///
/// An avoiding agent that holds its goal prefers the sum of these over the movers
/// among its neighbours (its length capped at 1, times its maximum speed) to
/// returning to its goal, and returns once out of everyone's way: the latecomer
/// walks through a lane the holders open, as people step aside, instead of
/// standing at the edge of a crowd whose every gap is narrower than its body (the
/// velocity obstacles of ORCA never push anyone aside).
#[must_use]
pub fn make_way(from: Vec2, to: Vec2, reach: f32) -> Vec2 {
    let along = to - from;
    let length_sq = along.length_squared();
    if !(length_sq > 0.0 && length_sq.is_finite()) {
        return Vec2::ZERO;
    }
    // Where the holder projects along the segment (NaN where lengths overflow).
    let t = (-from).dot(along) / length_sq;
    if t.is_nan() || t <= 0.0 {
        return Vec2::ZERO;
    }
    let offset = -(from + along * t.min(1.0));
    let d = offset.length();
    if d.is_nan() || d >= reach {
        return Vec2::ZERO;
    }
    let away = if d > 0.0 {
        offset / d
    } else {
        perp_right(along / length_sq.sqrt())
    };
    away * ((reach - d) / reach)
}

/// How far aside, as a share of the sum of two agents' radii, a neighbour ahead may
/// stand and still be in an agent's lane for its time gap ([`headway_speed`]): half
/// (its centre within the agent's shoulders). Bodies offset by more walk beside each
/// other, shoulder past shoulder (the zipper of a dense crowd), and keep no time gap.
pub const LANE: f32 = 0.5;

/// The speed that keeps time gap `time_gap` to a neighbour at `rel_pos` (relative to
/// the agent) for an agent heading along the unit vector `dir`, `reach` the sum of
/// their radii: the neighbour is in the agent's lane when its centre lies within
/// [`LANE`] × `reach` of the line along `dir` and its body wholly ahead; the free
/// distance is how far the agent goes along `dir` before the bodies touch, and the
/// speed is that over the time gap. Infinite for a neighbour out of its lane, behind,
/// or abreast (the bodies side by side already: the avoidance keeps them apart).
#[must_use]
#[inline]
pub fn headway_speed(dir: Vec2, rel_pos: Vec2, reach: f32, time_gap: f32) -> f32 {
    let along = rel_pos.dot(dir);
    let aside = cross(dir, rel_pos);
    let beside = reach * reach - aside * aside;
    if aside.is_nan() || aside.abs() >= reach * LANE {
        return f32::INFINITY;
    }
    let free = along - beside.sqrt();
    if free > 0.0 {
        free / time_gap
    } else {
        f32::INFINITY
    }
}

/// The least cosine of the angle between an agent's way and a neighbour's forward
/// direction for the neighbour to go the agent's way ([`goes_my_way`]): 60°.
pub const SAME_WAY: f32 = 0.5;

/// Whether a neighbour facing `facing` (a unit vector: its heading, which follows
/// the way it walks and stays when it stops) goes the way `dir` of an agent (a unit
/// vector): faces within 60° of it. Only such a neighbour sets the agent's time gap
/// ([`headway_speed`]): people queue behind those going their way (Reynolds'
/// queuing), and pass those coming toward them or crossing their way, which the
/// avoidance does. Counting those too, crowds meeting or crossing stood behind each
/// other's fronts for ever (`docs/pedestrians.md`).
#[must_use]
#[inline]
pub fn goes_my_way(dir: Vec2, facing: Vec2) -> bool {
    dir.dot(facing) >= SAME_WAY
}

/// The turn of an agent held up by a front coming the other way: its side turn
/// `side` (radians) times `1 + FRONT_TURN × front`, with `front` the share (0 to 1)
/// of its neighbours ahead that make the front, at most a quarter turn. Two flows
/// meeting in a door under ORCA alone stand face to face, each front agent's
/// half-planes leaving it no way but back; turned this far, it steps aside into its
/// own lane (the right, as the side turn is) and the fronts slide past each other.
#[must_use]
#[inline]
pub fn front_turn(side: f32, front: f32) -> f32 {
    (side * (1.0 + FRONT_TURN * front)).min(std::f32::consts::FRAC_PI_2)
}

/// See [`front_turn`].
pub const FRONT_TURN: f32 = 8.0;

/// The ORCA line of an agent moving at `vel` for one encounter, with time horizon
/// `1 / inv_tau` and (for pairs already overlapping) time step `dt`: the half-plane of
/// velocities through `vel + share * u`, where `u` is the smallest change of the
/// relative velocity that takes it to the boundary of the truncated velocity
/// obstacle, and the normal is the boundary's outward normal there.
#[must_use]
#[inline(always)]
pub fn agent_line(vel: Vec2, e: &Encounter, inv_tau: f32, dt: f32) -> Line {
    let (p, v, r) = (e.rel_pos, e.rel_vel, e.radius);
    let dist_sq = p.length_squared();
    let r_sq = r * r;
    let (u, normal) = if dist_sq > r_sq {
        // The velocity obstacle: the cone of relative velocities that reach the
        // other within the horizon, cut off by the disc of radius r / tau at p / tau.
        let w = v - p * inv_tau;
        let w_sq = w.length_squared();
        let along = w.dot(p);
        if along < 0.0 && along * along > r_sq * w_sq {
            // Nearest to the cut-off circle.
            let w_len = w_sq.sqrt();
            let unit_w = if w_len > 0.0 {
                w / w_len
            } else {
                -p.normalize_or_zero()
            };
            (unit_w * (r * inv_tau - w_len), unit_w)
        } else {
            // Nearest to a leg: the tangent from the origin on the side of w.
            let leg = (dist_sq - r_sq).sqrt();
            let dir = if cross(p, w) > 0.0 {
                Vec2::new(p.x * leg - p.y * r, p.x * r + p.y * leg) / dist_sq
            } else {
                -Vec2::new(p.x * leg + p.y * r, -p.x * r + p.y * leg) / dist_sq
            };
            // Outward: to the left of a left leg's direction, to the right of a right
            // leg's (which `dir` holds reversed, so to its left).
            let normal = Vec2::new(-dir.y, dir.x);
            (dir * v.dot(dir) - v, normal)
        }
    } else {
        // Overlapping already: leave the overlap within one time step.
        let inv_dt = 1.0 / dt;
        let w = v - p * inv_dt;
        let w_len = w.length();
        let unit_w = if w_len > 0.0 {
            w / w_len
        } else {
            -p.normalize_or_zero()
        };
        (unit_w * (r * inv_dt - w_len), unit_w)
    };
    let normal = if normal.is_finite() && normal != Vec2::ZERO {
        normal
    } else {
        // Coincident agents: any direction will do, the same for the pair.
        Vec2::X
    };
    Line::from_normal(vel + u * e.share, normal)
}

/// The half-plane that keeps an agent at the origin (radius `radius`, moving at `vel`)
/// from reaching the segment `a..b` (positions relative to the agent) within the
/// horizon `1 / inv_tau`, all of the avoidance its own. The velocity obstacle of a
/// segment is convex (the cone over the capsule of the segment and the radius, cut
/// off by that capsule scaled by `inv_tau`); the line is its tangent at the boundary
/// point nearest `vel`. `facing` is the unit normal of the segment's line on the
/// agent's side, used when the agent stands on the segment itself.
#[must_use]
pub fn wall_line(a: Vec2, b: Vec2, radius: f32, vel: Vec2, inv_tau: f32, facing: Vec2) -> Line {
    let (closest, _) = crate::math::closest_point_on_segment(Vec2::ZERO, a, b);
    let d_sq = closest.length_squared();
    if d_sq <= radius * radius {
        // Touching: no velocity toward the segment.
        let away = if d_sq > 0.0 {
            -closest / d_sq.sqrt()
        } else {
            facing
        };
        return Line::from_normal(Vec2::ZERO, away);
    }
    let (q, normal) = capsule_nearest_boundary(a, b, radius, vel, inv_tau);
    Line::from_normal(q, normal)
}

/// [`wall_line`] for a static disc (a circular obstacle of radius `radius`, the
/// agent's radius included) centred at `c` relative to the agent.
#[must_use]
pub fn disc_line(c: Vec2, radius: f32, vel: Vec2, inv_tau: f32) -> Line {
    let d_sq = c.length_squared();
    if d_sq <= radius * radius {
        let away = if d_sq > 0.0 {
            -c / d_sq.sqrt()
        } else {
            Vec2::Y
        };
        return Line::from_normal(Vec2::ZERO, away);
    }
    let (q, normal) = capsule_nearest_boundary(c, c, radius, vel, inv_tau);
    Line::from_normal(q, normal)
}

/// The point of the boundary of the velocity obstacle of the capsule `a..b` ⊕ disc
/// `radius` (the origin outside it), cut off at `inv_tau`, nearest `v`, with the
/// boundary's outward normal there. The boundary is two legs (tangents from the
/// origin to the end discs, the outermost on each side), the near side of the scaled
/// capsule and the visible parts of its end arcs: the nearest of the candidates on
/// each piece.
fn capsule_nearest_boundary(a: Vec2, b: Vec2, radius: f32, v: Vec2, inv_tau: f32) -> (Vec2, Vec2) {
    let r = radius;
    let mut best = (f32::INFINITY, Vec2::ZERO, Vec2::ZERO);
    let mut consider = |q: Vec2, n: Vec2| {
        let d = (v - q).length_squared();
        if d < best.0 {
            best = (d, q, n);
        }
    };
    let tangents = |x: Vec2| {
        let d_sq = x.length_squared();
        let leg = (d_sq - r * r).max(0.0).sqrt();
        let left = Vec2::new(x.x * leg - x.y * r, x.x * r + x.y * leg) / d_sq;
        let right = Vec2::new(x.x * leg + x.y * r, -x.x * r + x.y * leg) / d_sq;
        (left, right, leg)
    };
    // The end arcs where they face the origin and not the segment (a corner, for a
    // bare segment: its normals are those between the two edges meeting there).
    // First, so that at a corner shared with a leg or the side their normal, which
    // faces `v`, wins the tie.
    for (x, other) in [(a, b), (b, a)] {
        let centre = x * inv_tau;
        let u = (v - centre).normalize_or_zero();
        let u = if u == Vec2::ZERO {
            -x.normalize_or_zero()
        } else {
            u
        };
        let q = centre + u * (r * inv_tau);
        if q.dot(u) <= 0.0 && u.dot(other - x) <= 0.0 {
            consider(q, u);
        }
    }
    // The near side of the scaled capsule, when it faces the origin (there is none
    // for a disc, and it faces away when the origin is within the radius of the
    // segment's line, beside the segment's end).
    let seg = b - a;
    if seg.length_squared() > 0.0 {
        let mut side = Vec2::new(-seg.y, seg.x).normalize_or_zero();
        if side.dot(a) > 0.0 {
            side = -side;
        }
        if side.dot(a) + r <= 0.0 {
            let (sa, sb) = ((a + side * r) * inv_tau, (b + side * r) * inv_tau);
            let (q, _) = crate::math::closest_point_on_segment(v, sa, sb);
            consider(q, side);
        }
    }
    // The legs: tangents from the origin to the discs at a and b, the one furthest
    // counter-clockwise on the left, clockwise on the right. A leg starts where it
    // touches the scaled capsule and runs outward.
    let (la, ra, lega) = tangents(a);
    let (lb, rb, legb) = tangents(b);
    let (left, left_leg) = if cross(la, lb) > 0.0 {
        (lb, legb)
    } else {
        (la, lega)
    };
    let (right, right_leg) = if cross(ra, rb) < 0.0 {
        (rb, legb)
    } else {
        (ra, lega)
    };
    let start = left * (left_leg * inv_tau);
    consider(
        start + left * (v - start).dot(left).max(0.0),
        Vec2::new(-left.y, left.x),
    );
    let start = right * (right_leg * inv_tau);
    consider(
        start + right * (v - start).dot(right).max(0.0),
        Vec2::new(right.y, -right.x),
    );
    (best.1, best.2)
}

/// Tolerance of the linear programs' parallel-line and violation tests.
const EPS: f32 = 1e-5;

/// The velocity in every half-plane of `lines` and within `max_speed` closest to
/// `preferred`; when the half-planes leave no such velocity, the one within
/// `max_speed` that violates the agents' half-planes (those after the first
/// `obstacle_lines`) least, the obstacles' still held. `scratch` holds the 3D
/// fallback's projected lines (reused: nothing is allocated once it has grown).
#[must_use]
pub fn solve(
    lines: &[Line],
    obstacle_lines: usize,
    preferred: Vec2,
    max_speed: f32,
    scratch: &mut Vec<Line>,
) -> Vec2 {
    let mut result = Vec2::ZERO;
    let failed = lp2(lines, max_speed, preferred, false, &mut result);
    if failed < lines.len() {
        lp3(
            lines,
            obstacle_lines,
            failed,
            max_speed,
            &mut result,
            scratch,
        );
    }
    if result.is_finite() {
        result
    } else {
        Vec2::ZERO
    }
}

/// The optimum on line `i` of `lines`, within the speed disc and the lines before it:
/// the point nearest `opt`, or with `direction` the furthest along the unit vector
/// `opt`. `false` when the line leaves nothing.
fn lp1(
    lines: &[Line],
    i: usize,
    radius: f32,
    opt: Vec2,
    direction: bool,
    result: &mut Vec2,
) -> bool {
    let line = lines[i];
    let along = line.point.dot(line.dir);
    let disc = along * along + radius * radius - line.point.length_squared();
    if disc < 0.0 || disc.is_nan() {
        // The line misses the speed disc (or is not a line: a NaN leaves nothing).
        return false;
    }
    let root = disc.sqrt();
    let (mut t_left, mut t_right) = (-along - root, -along + root);
    for other in &lines[..i] {
        let denom = cross(line.dir, other.dir);
        let numer = cross(other.dir, line.point - other.point);
        if denom.abs() <= EPS {
            // Parallel lines: either this one lies in the other's half-plane, or
            // nothing on it does.
            if numer < 0.0 {
                return false;
            }
            continue;
        }
        let t = numer / denom;
        if denom >= 0.0 {
            t_right = t_right.min(t);
        } else {
            t_left = t_left.max(t);
        }
        if t_left > t_right {
            return false;
        }
    }
    let t = if direction {
        if opt.dot(line.dir) > 0.0 {
            t_right
        } else {
            t_left
        }
    } else {
        crate::math::clamp(line.dir.dot(opt - line.point), t_left, t_right)
    };
    *result = line.point + line.dir * t;
    true
}

/// The incremental 2D linear program: the optimum (as [`lp1`]) in every half-plane
/// and the speed disc, adding the lines one at a time. Returns how many lines it
/// satisfied before one left nothing (`lines.len()` when all).
fn lp2(lines: &[Line], radius: f32, opt: Vec2, direction: bool, result: &mut Vec2) -> usize {
    *result = if direction {
        opt * radius
    } else if opt.length_squared() > radius * radius {
        normalize_or_zero(opt) * radius
    } else {
        opt
    };
    for i in 0..lines.len() {
        if lines[i].violation(*result) > 0.0 {
            let before = *result;
            if !lp1(lines, i, radius, opt, direction, result) {
                *result = before;
                return i;
            }
        }
    }
    lines.len()
}

/// The 3D fallback: from line `begin` on (where [`lp2`] failed), the velocity that
/// minimises the largest violation of the agents' lines, keeping the first
/// `obstacle_lines` as hard constraints. For each line violated more than the current
/// worst, the 2D program runs on the bisectors of it and the lines before it.
fn lp3(
    lines: &[Line],
    obstacle_lines: usize,
    begin: usize,
    radius: f32,
    result: &mut Vec2,
    projected: &mut Vec<Line>,
) {
    let mut distance = 0.0f32;
    for i in begin..lines.len() {
        let line = lines[i];
        if line.violation(*result) <= distance {
            continue;
        }
        projected.clear();
        projected.extend_from_slice(&lines[..obstacle_lines.min(i)]);
        for other in &lines[obstacle_lines.min(i)..i] {
            let det = cross(line.dir, other.dir);
            let point = if det.abs() <= EPS {
                if line.dir.dot(other.dir) > 0.0 {
                    // Same direction: the other adds nothing here.
                    continue;
                }
                (line.point + other.point) * 0.5
            } else {
                line.point + line.dir * (cross(other.dir, line.point - other.point) / det)
            };
            let dir = normalize_or_zero(other.dir - line.dir);
            if dir != Vec2::ZERO {
                projected.push(Line { point, dir });
            }
        }
        let before = *result;
        let outward = Vec2::new(-line.dir.y, line.dir.x);
        if lp2(projected, radius, outward, true, result) < projected.len() {
            // Only rounding can get here: keep the last good answer.
            *result = before;
        }
        distance = line.violation(*result);
    }
}

#[cfg(test)]
mod tests;
