//! The randomized approach walker: approach a target through a sequence
//! of random waypoints that converge on it.
//!
//! Each waypoint is a step of about half the remaining distance (clamped to
//! `[min_step, max_step]`), turned away from the straight line by a random angle
//! inside a cone that narrows as the walker nears the target: at most 45 degrees
//! either side at or beyond `aggro_radius`, shrinking linearly to 0 at the target.
//! Within `min_step` of the target the walker goes straight for it.
//!
//! [`pick_next_waypoint`] is the original sample's procedure; [`approach_step`] drives an agent
//! with it (one [`WalkerState`] per agent), either waypoint by waypoint or, as the
//! original suggests for more natural motion, along a centripetal Catmull-Rom spline
//! through a few waypoints picked ahead ([`catmull_rom_centripetal`]).
//!
//! The original sample seeds its generator from the clock; here every draw comes from the
//! caller's generator, so a fixed seed replays the same walk.

use std::f32::consts::FRAC_PI_4;

use glam::Vec2;
use rand_core::Rng;
use serde::{Deserialize, Serialize};

use super::AgentState;
use crate::integrate::Integrator;
use crate::math::{lerp, rotate_cw, EPS_LEN};
use crate::rng::{coin, uniform};

/// The widest the random cone gets: π/4 either side of the straight line (the
/// original sample's `lerp(0, π/2, 1) * 0.5`), at or beyond the aggro radius.
pub const MAX_HALF_FOV: f32 = FRAC_PI_4;

/// The most waypoints a spline plan holds (besides its starting point).
pub const MAX_SPLINE_POINTS: usize = 5;

/// Samples per spline segment for the point the walker steers at: it moves on by
/// an eighth of a segment (at most `max_step / 8` units) each time it is reached.
const SPLINE_SAMPLES: u8 = 8;

/// Parameters of the approach walker. Defaults are the original sample's where it has them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ApproachParams {
    /// Distance (units) at and beyond which the random cone is widest (45 degrees
    /// either side); it narrows linearly to zero at the target. Default 30 (the
    /// original sample's `walkerAggroRadius`). Infinite means no wobble at all; a
    /// non-positive value means the widest cone everywhere.
    pub aggro_radius: f32,
    /// Shortest step (units); the walker goes straight to the target once it is
    /// closer than this. Default 1.
    pub min_step: f32,
    /// Longest step (units). Default 10.
    pub max_step: f32,
    /// Step length as a fraction of the remaining distance, before clamping to
    /// `[min_step, max_step]`. Default 0.5 (walk roughly half way).
    pub step_fraction: f32,
    /// How close (units) counts as reaching a waypoint, a spline point or the
    /// target. Default 0.25, half the radius of a typical agent (0.5): well under
    /// the shortest step, so waypoints are not skipped.
    pub arrive_radius: f32,
    /// Slowing radius (units) of the final leg: within it the walker's desired speed
    /// falls linearly to zero at the target, as with arrive. Default 2 (twice the
    /// default `min_step`, so the walker starts slowing before its last straight
    /// leg). It sets how gently the walker comes in, not whether it stops: the
    /// walker also brakes as late as its body allows ([`braking_speed`]), whatever
    /// this radius.
    pub slowing_radius: f32,
    /// Follow a centripetal Catmull-Rom spline through waypoints picked ahead
    /// instead of going from waypoint to waypoint. Default false (the original sample's walk).
    pub spline: bool,
    /// Waypoints picked ahead for each spline plan, from 1 to
    /// [`MAX_SPLINE_POINTS`] (clamped into that range). Default 4.
    pub spline_points: usize,
}

impl Default for ApproachParams {
    fn default() -> Self {
        Self {
            aggro_radius: 30.0,
            min_step: 1.0,
            max_step: 10.0,
            step_fraction: 0.5,
            arrive_radius: 0.25,
            slowing_radius: 2.0,
            spline: false,
            spline_points: 4,
        }
    }
}

impl ApproachParams {
    /// Check the values a user supplied; the error names the bad field.
    pub fn validate(&self) -> Result<(), String> {
        let positive = |name: &str, v: f32| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{name} must be finite and > 0 (got {v})"))
            }
        };
        positive("aggro_radius", self.aggro_radius)?;
        positive("min_step", self.min_step)?;
        positive("max_step", self.max_step)?;
        positive("arrive_radius", self.arrive_radius)?;
        if self.max_step < self.min_step {
            return Err(format!(
                "max_step ({}) must not be smaller than min_step ({})",
                self.max_step, self.min_step
            ));
        }
        if !(self.step_fraction > 0.0 && self.step_fraction <= 1.0) {
            return Err(format!(
                "step_fraction must be in (0, 1] (got {})",
                self.step_fraction
            ));
        }
        if !(self.slowing_radius.is_finite() && self.slowing_radius >= 0.0) {
            return Err(format!(
                "slowing_radius must be finite and >= 0 (got {})",
                self.slowing_radius
            ));
        }
        if !(1..=MAX_SPLINE_POINTS).contains(&self.spline_points) {
            return Err(format!(
                "spline_points must be in 1..={MAX_SPLINE_POINTS} (got {})",
                self.spline_points
            ));
        }
        Ok(())
    }

    /// `arrive_radius`, or zero when it is negative or not a number.
    fn arrive_r(&self) -> f32 {
        self.arrive_radius.max(0.0)
    }
}

/// The step the original sample takes from `distance` away:
/// `clamp(distance * step_fraction, min_step, max_step)` (with `min_step` winning
/// when the bounds cross, as in the original sample's `MathHelper.Clamp`). May be non-finite
/// or non-positive for parameters that fail [`ApproachParams::validate`].
#[must_use]
pub fn step_length(distance: f32, params: &ApproachParams) -> f32 {
    (distance * params.step_fraction)
        .min(params.max_step)
        .max(params.min_step)
}

/// The fastest speed from which a body whose velocity can change by at most `dv` per
/// tick of `dt` seconds stops within `distance`. Braking from `n * dv` takes `ceil(n)`
/// ticks, each moving by the speed before or after its change, or their mean (any of
/// the integrators); moving by the speed before covers the most, at most
/// `dv * dt * (n * (n + 1) / 2 + 1 / 8)` (exactly that for `n` a half-integer).
/// Solved for `n`: `n = (sqrt(8 * distance / (dv * dt)) - 1) / 2`, and no less than
/// zero. Zero for no distance or a body that cannot brake; computed in `f64`, so
/// finite inputs never give NaN.
#[must_use]
pub fn braking_speed(distance: f32, dv: f32, dt: f32) -> f32 {
    let step = f64::from(dv) * f64::from(dt);
    if !(distance > 0.0 && dv > 0.0 && step > 0.0) {
        return 0.0;
    }
    let n = (((8.0 * f64::from(distance) / step).sqrt() - 1.0) * 0.5).max(0.0);
    // A speed of at most `dv` stops in one tick, covering at most `speed * dt`.
    let one_tick = (f64::from(distance) / f64::from(dt)).min(f64::from(dv));
    (n * f64::from(dv)).max(one_tick) as f32
}

/// The walker's speed limit at `distance` from its target: what its body can still
/// stop from ([`braking_speed`]) with half its per-tick change of velocity (the
/// other half is left for turning), and no more than would reach the target in one
/// tick.
fn brake_limit(me: &AgentState, distance: f32, dt: f32) -> f32 {
    let dv = 0.5 * me.max_force / me.mass * dt;
    braking_speed(distance, dv, dt).min(distance / dt)
}

/// The force that takes the velocity to `speed` toward `point` from `ahead` (where
/// this tick's move at the present velocity leaves the body), and never faster than
/// would pass `point` within the next tick, in one tick of `dt`: `mass * (desired -
/// vel) / dt` (the caller truncates it to the body's force).
fn head_for(me: &AgentState, (ahead, point): (Vec2, Vec2), speed: f32, dt: f32) -> Vec2 {
    let to = point - ahead;
    let speed = speed.min(me.max_speed).min(to.length() / dt);
    let desired = to.normalize_or_zero() * speed;
    (desired - me.vel) * (me.mass / dt)
}

/// The half-angle (radians) of the random cone at `distance` from the target:
/// `lerp(0, π/2, clamp(distance, 0, aggro) / aggro) * 0.5`, from 0 at the target
/// to [`MAX_HALF_FOV`] at and beyond the aggro radius.
#[must_use]
pub fn max_half_fov(distance: f32, params: &ApproachParams) -> f32 {
    let aggro = params.aggro_radius;
    let pct = if aggro > 0.0 {
        distance.clamp(0.0, aggro) / aggro
    } else {
        1.0
    };
    if pct.is_finite() {
        lerp(0.0, std::f32::consts::FRAC_PI_2, pct) * 0.5
    } else {
        0.0
    }
}

/// The original sample's pick, also saying whether the pick is the target itself.
fn pick<R: Rng + ?Sized>(
    walker: Vec2,
    target: Vec2,
    params: &ApproachParams,
    rng: &mut R,
) -> (Vec2, bool) {
    if !target.is_finite() {
        return (walker, false);
    }
    if !walker.is_finite() {
        return (target, true);
    }
    let offset = target - walker;
    let distance = offset.length();
    if distance.is_nan() || distance <= EPS_LEN {
        return (target, true);
    }
    let dir = offset / distance;
    let step = step_length(distance, params);
    // Within the minimum step: straight to the target. Bad parameters that give
    // no usable step also go straight.
    if step > distance || !(step > 0.0 && step.is_finite()) {
        return (target, true);
    }
    let angle = uniform(rng, 0.0, max_half_fov(distance, params));
    let signed = if coin(rng) { angle } else { -angle };
    (walker + rotate_cw(dir * step, signed), false)
}

/// The randomized approach walker's `PickRandomTarget`: the next waypoint for a walker at `walker`
/// approaching `target`.
///
/// 1. `dir = normalize(target - walker)`, `distance = |target - walker|`;
/// 2. `step = clamp(distance * step_fraction, min_step, max_step)` ([`step_length`]);
/// 3. if `step > distance`, return `target`;
/// 4. `angle = uniform(0, max_half_fov(distance))` ([`max_half_fov`]), turned
///    clockwise or anticlockwise with equal chance (two draws from `rng`);
/// 5. return `walker + rotate(dir * step, ±angle)`.
///
/// A walker on the target (closer than [`EPS_LEN`]) gets the target, without
/// drawing. A step that is not finite and positive (parameters failing
/// [`ApproachParams::validate`]) also gives the target. A non-finite target gives
/// `walker` (stay); a non-finite walker gives the target.
///
/// Since `step <= distance` and `angle <= 45°`, a waypoint is never farther along
/// the line to the target than the target itself.
#[must_use]
pub fn pick_next_waypoint<R: Rng + ?Sized>(
    walker: Vec2,
    target: Vec2,
    params: &ApproachParams,
    rng: &mut R,
) -> Vec2 {
    pick(walker, target, params, rng).0
}

/// Uniform Catmull-Rom spline through `p1` (at `t = 0`) and `p2` (at `t = 1`), with
/// `p0` and `p3` shaping the tangents `(p2 - p0) / 2` and `(p3 - p1) / 2`:
/// `0.5 * (2 p1 + (p2 - p0) t + (2 p0 - 5 p1 + 4 p2 - p3) t² + (3 p1 - p0 - 3 p2 + p3) t³)`.
#[must_use]
pub fn catmull_rom(p0: Vec2, p1: Vec2, p2: Vec2, p3: Vec2, t: f32) -> Vec2 {
    let t2 = t * t;
    let t3 = t2 * t;
    0.5 * (2.0 * p1
        + (p2 - p0) * t
        + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t2
        + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t3)
}

/// Knot interval of the centripetal parameterisation, `sqrt(|b - a|)`; coincident
/// (or non-finite) points get 1 so nothing divides by zero.
fn knot_interval(a: Vec2, b: Vec2) -> f32 {
    let d = (b - a).length().sqrt();
    if d > 1e-4 && d.is_finite() {
        d
    } else {
        1.0
    }
}

/// One segment of a centripetal Catmull-Rom spline in Hermite form: ends `p1`,
/// `p2` and tangents `m1`, `m2` per unit of the segment parameter.
#[derive(Clone, Copy, Debug)]
struct Hermite {
    p1: Vec2,
    p2: Vec2,
    m1: Vec2,
    m2: Vec2,
}

impl Hermite {
    fn centripetal(p0: Vec2, p1: Vec2, p2: Vec2, p3: Vec2) -> Self {
        let d0 = knot_interval(p0, p1);
        let d1 = knot_interval(p1, p2);
        let d2 = knot_interval(p2, p3);
        let m1 = d1 * ((p1 - p0) / d0 - (p2 - p0) / (d0 + d1) + (p2 - p1) / d1);
        let m2 = d1 * ((p2 - p1) / d1 - (p3 - p1) / (d1 + d2) + (p3 - p2) / d2);
        Self { p1, p2, m1, m2 }
    }

    fn point(&self, t: f32) -> Vec2 {
        let t2 = t * t;
        let t3 = t2 * t;
        self.p1 * (2.0 * t3 - 3.0 * t2 + 1.0)
            + self.m1 * (t3 - 2.0 * t2 + t)
            + self.p2 * (3.0 * t2 - 2.0 * t3)
            + self.m2 * (t3 - t2)
    }

    fn tangent(&self, t: f32) -> Vec2 {
        let t2 = t * t;
        (self.p2 - self.p1) * (6.0 * t - 6.0 * t2)
            + self.m1 * (3.0 * t2 - 4.0 * t + 1.0)
            + self.m2 * (3.0 * t2 - 2.0 * t)
    }
}

/// Centripetal Catmull-Rom spline (knot intervals `sqrt(|p_{i+1} - p_i|)`) through
/// `p1` (at `t = 0`) and `p2` (at `t = 1`). Unlike the uniform spline it has no
/// cusps or self-intersections within a segment and hugs unevenly spaced points,
/// which suits waypoints whose spacing halves at every step. Equal spacing gives
/// the uniform spline ([`catmull_rom`]). Coincident points do not divide by zero.
#[must_use]
pub fn catmull_rom_centripetal(p0: Vec2, p1: Vec2, p2: Vec2, p3: Vec2, t: f32) -> Vec2 {
    Hermite::centripetal(p0, p1, p2, p3).point(t)
}

/// Per-agent state of the approach walker. `Copy` and small (64 bytes), meant to
/// be one column; start from [`WalkerState::default`] (no waypoint yet).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WalkerState {
    /// The point the walker steers at: the current waypoint, the point on the
    /// spline (spline mode) or the target (final leg). Meaningful when
    /// `has_waypoint`.
    pub waypoint: Vec2,
    /// Whether `waypoint` is set; false makes the next step pick afresh.
    pub has_waypoint: bool,
    /// The walker is on its final, straight leg and arrives at the target.
    pub final_leg: bool,
    /// Spline plan: the starting point then the waypoints picked ahead.
    plan: [Vec2; MAX_SPLINE_POINTS + 1],
    /// Points in use in `plan` (0: no plan).
    plan_len: u8,
    /// The plan's last point is the target.
    plan_ends_at_target: bool,
    /// Current spline segment (`plan[segment]` to `plan[segment + 1]`).
    segment: u8,
    /// Current sample within the segment, out of `SPLINE_SAMPLES`.
    sample: u8,
}

impl WalkerState {
    /// The spline plan in use: its starting point and the waypoints picked ahead
    /// (empty outside spline mode or before the first step).
    #[must_use]
    pub fn plan(&self) -> &[Vec2] {
        let n = usize::from(self.plan_len).min(self.plan.len());
        &self.plan[..n]
    }

    /// Whether a usable plan with a segment left to follow is in place.
    fn plan_active(&self) -> bool {
        let len = usize::from(self.plan_len).min(self.plan.len());
        usize::from(self.segment) + 1 < len
    }

    /// Pick a fresh plan of waypoints from `start`.
    fn replan<R: Rng + ?Sized>(
        &mut self,
        start: Vec2,
        target: Vec2,
        params: &ApproachParams,
        rng: &mut R,
    ) {
        let n = params.spline_points.clamp(1, MAX_SPLINE_POINTS);
        self.plan = [start; MAX_SPLINE_POINTS + 1];
        self.plan_len = 1;
        self.plan_ends_at_target = false;
        self.segment = 0;
        self.sample = 0;
        let mut p = start;
        for slot in self.plan.iter_mut().skip(1).take(n) {
            let (next, is_target) = pick(p, target, params, rng);
            *slot = next;
            self.plan_len += 1;
            p = next;
            if is_target {
                self.plan_ends_at_target = true;
                break;
            }
        }
    }

    /// The Hermite form of the current segment, with reflected end points where
    /// the plan has no neighbour.
    fn segment_curve(&self) -> Hermite {
        let len = usize::from(self.plan_len).min(self.plan.len());
        let i = usize::from(self.segment).min(len.saturating_sub(2));
        let at = |k: usize| self.plan.get(k).copied().unwrap_or(self.plan[0]);
        let (p1, p2) = (at(i), at(i + 1));
        let p0 = if i > 0 { at(i - 1) } else { 2.0 * p1 - p2 };
        let p3 = if i + 2 < len {
            at(i + 2)
        } else {
            2.0 * p2 - p1
        };
        Hermite::centripetal(p0, p1, p2, p3)
    }
}

/// The walker has reached `waypoint`: it is within `arrive_radius` of it, or it is
/// already at least as close to the target as the waypoint (it has made the
/// progress the waypoint stood for; this also keeps a sluggish walker from
/// circling a waypoint it keeps missing).
fn waypoint_reached(pos: Vec2, waypoint: Vec2, target: Vec2, arrive_r: f32) -> bool {
    (waypoint - pos).length() <= arrive_r
        || (target - pos).length_squared() <= (target - waypoint).length_squared()
}

/// One step of the approach walker, for a tick of `dt` seconds integrated by
/// `integrator`: the steering force for an agent at `me` approaching `target`, and
/// the walker's next state.
///
/// The walker heads for the current waypoint (or point on the spline) at top speed,
/// and on the final leg for the target at a desired speed that falls linearly to zero
/// over `slowing_radius`, as with arrive. Its force is the one that would reach that
/// velocity in one tick, `mass * (desired - vel) / dt`; the caller truncates it to
/// `max_force` like any other force, so the body's limits, not a fixed gain, set how
/// tightly it walks.
///
/// Braking: near the target the desired speed is also held to what the body can stop
/// from ([`braking_speed`], with half of `max_force / mass` so that the rest can turn
/// it), on every leg. So a walker that sets out at rest (or at least its braking
/// distance away) does not pass the target, nor end up farther from it than
/// `arrive_radius` once it has come that close, for any body and tick: the guarantee
/// does not rest on `slowing_radius` or on a stiff body. (Other behaviours weighted in
/// beside it, or collisions, can still push it past.)
///
/// Waypoint mode (`spline == false`): a new waypoint is picked with
/// [`pick_next_waypoint`] from the agent's position whenever there is none or the
/// current one is reached (within `arrive_radius`, or the agent is already as close
/// to the target as the waypoint). When the pick is the target itself, the final
/// leg begins.
///
/// Spline mode: `spline_points` waypoints are picked ahead, and the agent steers at
/// a point that moves along the centripetal Catmull-Rom spline through the agent's
/// starting position and those waypoints, moving on (an eighth of a segment at a
/// time) whenever the agent is within `arrive_radius` of it or past it along the
/// curve. At the end of a plan a new one is picked from the agent's position. The
/// segment that ends at the target is not followed: the final leg is a straight
/// arrive, so the curve can never carry the walker past the target.
///
/// The final leg begins as soon as the agent is within `arrive_radius` of the
/// target. It tracks the target if it moves; if it moves away so far that the walk
/// would wobble again, a new waypoint is picked. A target that is not finite gives
/// zero force and a fresh state; so does a `dt` that is not finite and > 0. Draws
/// from `rng` only when picking.
pub fn approach_step<R: Rng + ?Sized>(
    me: &AgentState,
    target: Vec2,
    state: &WalkerState,
    params: &ApproachParams,
    (dt, integrator): (f32, Integrator),
    rng: &mut R,
) -> (Vec2, WalkerState) {
    let to_target = target - me.pos;
    if !(to_target.is_finite() && dt > 0.0 && dt.is_finite()) {
        return (Vec2::ZERO, WalkerState::default());
    }
    let mut s = *state;
    let dist = to_target.length();
    let arrive_r = params.arrive_r();
    // Braking is planned from where the body will be after the part of this tick's
    // move made at its present velocity, whatever force it gets now.
    let ahead = me.pos + me.vel * (integrator.old_velocity_share() * dt);
    let brake = brake_limit(me, (target - ahead).length(), dt);
    let final_leg = |mut s: WalkerState| {
        s.waypoint = target;
        s.has_waypoint = true;
        s.final_leg = true;
        let slowing = params.slowing_radius;
        let eased = if dist < slowing {
            me.max_speed * dist / slowing
        } else {
            me.max_speed
        };
        (head_for(me, (ahead, target), eased.min(brake), dt), s)
    };
    // Toward a waypoint: at top speed, or the braking limit.
    let go_to = |point: Vec2| head_for(me, (ahead, point), brake, dt);
    if dist <= arrive_r {
        return final_leg(s);
    }
    if s.has_waypoint && s.final_leg {
        // Keep arriving unless the target has moved beyond a straight shot, with
        // `arrive_radius` of slack so the decision does not flicker.
        let slack = (dist - arrive_r).max(0.0);
        if step_length(slack, params) > slack {
            return final_leg(s);
        }
        s.has_waypoint = false;
        s.final_leg = false;
        s.plan_len = 0;
    }

    if !params.spline {
        if s.has_waypoint && waypoint_reached(me.pos, s.waypoint, target, arrive_r) {
            s.has_waypoint = false;
        }
        if !s.has_waypoint {
            let (wp, is_target) = pick(me.pos, target, params, rng);
            s.waypoint = wp;
            s.has_waypoint = true;
            s.final_leg = is_target;
        }
        if s.final_leg {
            return final_leg(s);
        }
        return (go_to(s.waypoint), s);
    }

    // Spline mode.
    let mut replanned = false;
    if !s.has_waypoint || !s.plan_active() {
        s.replan(me.pos, target, params, rng);
        replanned = true;
    }
    // Every pass moves the sample on or returns; the bound covers two full plans.
    let max_passes = 2 * (MAX_SPLINE_POINTS * usize::from(SPLINE_SAMPLES) + 2);
    for _ in 0..max_passes {
        if !s.plan_active() {
            if replanned {
                break;
            }
            s.replan(me.pos, target, params, rng);
            replanned = true;
            continue;
        }
        let last_segment = usize::from(s.segment) + 2 >= usize::from(s.plan_len);
        if last_segment && s.plan_ends_at_target {
            return final_leg(s);
        }
        let curve = s.segment_curve();
        let t = f32::from(s.sample) / f32::from(SPLINE_SAMPLES);
        let carrot = curve.point(t);
        let to_carrot = carrot - me.pos;
        let passed = to_carrot.dot(curve.tangent(t)) <= 0.0;
        if to_carrot.length() > arrive_r && !passed {
            s.waypoint = carrot;
            s.has_waypoint = true;
            return (go_to(carrot), s);
        }
        s.sample += 1;
        if s.sample >= SPLINE_SAMPLES {
            s.sample = 0;
            s.segment += 1;
        }
    }
    // Only reached with degenerate parameters (steps of zero length): steer at the
    // last point of the plan.
    let last = s.plan().last().copied().unwrap_or(target);
    s.waypoint = last;
    s.has_waypoint = true;
    (go_to(last), s)
}

#[cfg(test)]
mod tests;
