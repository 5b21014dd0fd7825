//! The randomized approach walker (seed 000): approach a target through a sequence
//! of random waypoints that converge on it.
//!
//! Each waypoint is a step of about half the remaining distance (clamped to
//! `[min_step, max_step]`), turned away from the straight line by a random angle
//! inside a cone that narrows as the walker nears the target: at most 45 degrees
//! either side at or beyond `aggro_radius`, shrinking linearly to 0 at the target.
//! Within `min_step` of the target the walker goes straight for it.
//!
//! [`pick_next_waypoint`] is the seed's procedure; [`approach_step`] drives an agent
//! with it (one [`WalkerState`] per agent), either waypoint by waypoint or, as the
//! seed suggests for more natural motion, along a centripetal Catmull-Rom spline
//! through a few waypoints picked ahead ([`catmull_rom_centripetal`]).
//!
//! The seed seeds its generator from the clock; here every draw comes from the
//! caller's generator, so a fixed seed replays the same walk.

use std::f32::consts::FRAC_PI_4;

use glam::Vec2;
use rand_core::Rng;
use serde::{Deserialize, Serialize};

use super::targeting::{arrive, seek, ArriveParams};
use super::AgentState;
use crate::math::{lerp, rotate_cw, EPS_LEN};
use crate::rng::{coin, uniform};

/// The widest the random cone gets: π/4 either side of the straight line (the
/// seed's `lerp(0, π/2, 1) * 0.5`), at or beyond the aggro radius.
pub const MAX_HALF_FOV: f32 = FRAC_PI_4;

/// The most waypoints a spline plan holds (besides its starting point).
pub const MAX_SPLINE_POINTS: usize = 5;

/// Samples per spline segment for the point the walker steers at: it moves on by
/// an eighth of a segment (at most `max_step / 8` units) each time it is reached.
const SPLINE_SAMPLES: u8 = 8;

/// Parameters of the approach walker. Defaults are the seed's where it has them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ApproachParams {
    /// Distance (units) at and beyond which the random cone is widest (45 degrees
    /// either side); it narrows linearly to zero at the target. Default 30 (the
    /// seed's `walkerAggroRadius`). Infinite means no wobble at all; a
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
    /// Slowing radius (units) of the arrive used on the final leg to the target.
    /// Default 2 (twice the default `min_step`, so the walker starts slowing before
    /// its last straight leg).
    pub slowing_radius: f32,
    /// Follow a centripetal Catmull-Rom spline through waypoints picked ahead
    /// instead of going from waypoint to waypoint. Default false (the seed's walk).
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

/// The step the seed takes from `distance` away:
/// `clamp(distance * step_fraction, min_step, max_step)` (with `min_step` winning
/// when the bounds cross, as in the seed's `MathHelper.Clamp`). May be non-finite
/// or non-positive for parameters that fail [`ApproachParams::validate`].
#[must_use]
pub fn step_length(distance: f32, params: &ApproachParams) -> f32 {
    (distance * params.step_fraction)
        .min(params.max_step)
        .max(params.min_step)
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

/// The seed's pick, also saying whether the pick is the target itself.
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

/// Seed 000's `PickRandomTarget`: the next waypoint for a walker at `walker`
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
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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

/// One step of the approach walker: the steering force for an agent at `me`
/// approaching `target`, and the walker's next state.
///
/// The force is [`seek`] toward the current waypoint (or point on the spline), and
/// [`arrive`] (with `slowing_radius`) on the final leg to the target; the caller
/// truncates it like any other force.
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
/// zero force and a fresh state. Draws from `rng` only when picking.
pub fn approach_step<R: Rng + ?Sized>(
    me: &AgentState,
    target: Vec2,
    state: &WalkerState,
    params: &ApproachParams,
    rng: &mut R,
) -> (Vec2, WalkerState) {
    let to_target = target - me.pos;
    if !to_target.is_finite() {
        return (Vec2::ZERO, WalkerState::default());
    }
    let mut s = *state;
    let dist = to_target.length();
    let arrive_r = params.arrive_r();
    let arrive_params = ArriveParams {
        slowing_radius: params.slowing_radius,
    };
    let final_leg = |mut s: WalkerState| {
        s.waypoint = target;
        s.has_waypoint = true;
        s.final_leg = true;
        (arrive(me, target, &arrive_params), s)
    };

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
        return (seek(me, s.waypoint), s);
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
            return (seek(me, carrot), s);
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
    (seek(me, last), s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::truncate;
    use crate::rng::{agent_rng, AgentRng};

    fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
        (a - b).length() <= tol
    }

    /// Unsigned angle between two non-zero vectors.
    fn angle_between(a: Vec2, b: Vec2) -> f32 {
        let c = a.normalize().dot(b.normalize()).clamp(-1.0, 1.0);
        c.acos()
    }

    /// Check one pick against the seed's rules: the target when the step would
    /// overshoot, else a step of `step_length` within the cone.
    fn assert_pick_obeys_rules(walker: Vec2, target: Vec2, wp: Vec2, p: &ApproachParams) {
        let d = (target - walker).length();
        let step = step_length(d, p);
        if step > d {
            assert_eq!(wp, target);
            return;
        }
        let off = wp - walker;
        assert!(
            (off.length() - step).abs() < 1e-4 * step.max(1.0),
            "{off} vs {step}"
        );
        let a = angle_between(off, target - walker);
        assert!(
            a <= max_half_fov(d, p) + 1e-4,
            "angle {a} > {}",
            max_half_fov(d, p)
        );
    }

    #[test]
    fn pick_hand_worked() {
        let mut rng = agent_rng(1, 1);
        // Infinite aggro radius: the cone has zero width, so the pick is straight.
        let straight = ApproachParams {
            aggro_radius: f32::INFINITY,
            ..ApproachParams::default()
        };
        // 8 away: step clamp(4, 1, 10) = 4, so (0,4).
        let wp = pick_next_waypoint(Vec2::ZERO, Vec2::new(0.0, 8.0), &straight, &mut rng);
        assert!(close(wp, Vec2::new(0.0, 4.0), 1e-6));
        // 30 away: step clamp(15, 1, 10) = 10, so (0,10).
        let wp = pick_next_waypoint(Vec2::ZERO, Vec2::new(0.0, 30.0), &straight, &mut rng);
        assert!(close(wp, Vec2::new(0.0, 10.0), 1e-6));
        // 1.5 away: step clamp(0.75, 1, 10) = 1 <= 1.5, a step of 1.
        let wp = pick_next_waypoint(Vec2::ZERO, Vec2::new(0.0, 1.5), &straight, &mut rng);
        assert!(close(wp, Vec2::new(0.0, 1.0), 1e-6));
        // 0.9 away: step 1 > 0.9, straight to the target.
        let p = ApproachParams::default();
        let t = Vec2::new(0.9, 0.0);
        assert_eq!(pick_next_waypoint(Vec2::ZERO, t, &p, &mut rng), t);
        // On the target: the target.
        assert_eq!(pick_next_waypoint(t, t, &p, &mut rng), t);
        // The cone: 0 at the target, 45°·15/30 = 22.5° at 15, 45° at and beyond 30.
        assert_eq!(max_half_fov(0.0, &p), 0.0);
        assert!((max_half_fov(15.0, &p) - FRAC_PI_4 / 2.0).abs() < 1e-6);
        assert!((max_half_fov(30.0, &p) - FRAC_PI_4).abs() < 1e-6);
        assert!((max_half_fov(300.0, &p) - FRAC_PI_4).abs() < 1e-6);
    }

    #[test]
    fn seed_example_obeys_the_rules() {
        // The seed's walk from (10, 10) (its (10, 0, 10)) to the origin, to two
        // decimals; hence the slack on step lengths.
        let p = ApproachParams::default();
        let walk = [
            Vec2::new(10.0, 10.0),
            Vec2::new(3.73, 6.71),
            Vec2::new(2.11, 3.23),
            Vec2::new(0.96, 1.68),
            Vec2::new(0.50, 0.79),
        ];
        for w in walk.windows(2) {
            let d = w[0].length();
            let off = w[1] - w[0];
            assert!((off.length() - step_length(d, &p)).abs() < 0.01, "{w:?}");
            assert!(
                angle_between(off, -w[0]) <= max_half_fov(d, &p) + 0.01,
                "{w:?}"
            );
        }
        // The last is within the minimum step: the next pick is the target.
        let mut rng = agent_rng(0, 0);
        assert_eq!(
            pick_next_waypoint(walk[4], Vec2::ZERO, &p, &mut rng),
            Vec2::ZERO
        );
    }

    /// The waypoints picked from `start` until the target, each from the last.
    fn walk(start: Vec2, target: Vec2, p: &ApproachParams, rng: &mut AgentRng) -> Vec<Vec2> {
        let mut pts = vec![start];
        let mut w = start;
        for _ in 0..100 {
            w = pick_next_waypoint(w, target, p, rng);
            pts.push(w);
            if w == target {
                break;
            }
        }
        pts
    }

    /// How far a pick may lie past the target along the walk's original line:
    /// `sin(π/60)`, the sideways part of a unit step at the widest angle of the last
    /// steps (see `walk_from_the_seed_example_converges_within_eight_picks`).
    const PAST_ORIGINAL_LINE: f32 = 0.0524;

    #[test]
    fn walk_from_the_seed_example_converges_within_eight_picks() {
        // Bound on the picks from (10,10) to the origin (d0 = 14.142), with the
        // defaults and each pick made from the previous waypoint:
        // - 2 <= d < 20: step = d/2 and angle a <= (π/4)(d/30) < π/6, so by the
        //   law of cosines d'^2 = d^2 + d^2/4 - d^2 cos a <= d^2 (1.25 - 0.8660),
        //   d' <= 0.6197 d. From 14.142: <= 8.765, 5.432, 3.366, 2.086, 1.293, so
        //   at most 5 such picks bring d below 2 (it never rises back above 20).
        // - 1 <= d < 2: step = 1, a <= (π/4)(d/30) < π/60. By the triangle
        //   inequality d' <= (d - 1) + 2 sin(a/2) < d - 1 + 0.0524 < 1.053 (and
        //   d' < d). If still >= 1, one more pick gives d' < 0.053 + 0.0524 < 1:
        //   at most 2 such picks.
        // - d < 1: the step (1) exceeds d, the pick is the target.
        // Total: at most 5 + 2 + 1 = 8 picks, and the distance strictly shrinks.
        let p = ApproachParams::default();
        let start = Vec2::new(10.0, 10.0);
        let mut longest = 0;
        for seed in 0..2000 {
            let mut rng = agent_rng(seed, 0);
            let pts = walk(start, Vec2::ZERO, &p, &mut rng);
            assert_eq!(*pts.last().unwrap(), Vec2::ZERO, "seed {seed}");
            let picks = pts.len() - 1;
            assert!(picks <= 8, "seed {seed}: {picks} picks");
            longest = longest.max(picks);
            for w in pts.windows(2) {
                assert_pick_obeys_rules(w[0], Vec2::ZERO, w[1], &p);
                assert!(w[1].length() < w[0].length(), "seed {seed}: {w:?}");
            }
            // Past the target along the original line by at most sin(π/60). With u
            // the unit direction from a walker to the target (and u·e0 >= 0), a pick
            // relative to the target is -(d - s cos a) u + s sin a u_perp, and
            // s <= d, so its part along e0 is at most s sin a |u_perp·e0|. Only the
            // short last steps come near the target: there s = 1, a < π/60.
            let e0 = -start.normalize();
            for w in &pts {
                assert!(w.dot(e0) <= PAST_ORIGINAL_LINE, "seed {seed}: {pts:?}");
            }
        }
        assert!(
            longest >= 5,
            "the bound should be nearly tight, got {longest}"
        );
        // The same seed gives the same waypoints.
        let a = walk(start, Vec2::ZERO, &p, &mut agent_rng(42, 7));
        let b = walk(start, Vec2::ZERO, &p, &mut agent_rng(42, 7));
        assert_eq!(a, b);
        let c = walk(start, Vec2::ZERO, &p, &mut agent_rng(43, 7));
        assert_ne!(a, c);
    }

    #[test]
    fn far_walks_take_max_steps_in_a_45_degree_cone() {
        let p = ApproachParams::default();
        let mut rng = agent_rng(9, 9);
        let (w, t) = (Vec2::ZERO, Vec2::new(100.0, 0.0));
        for _ in 0..1000 {
            let wp = pick_next_waypoint(w, t, &p, &mut rng);
            assert!((wp.length() - 10.0).abs() < 1e-4);
            assert!(angle_between(wp, t) <= FRAC_PI_4 + 1e-5);
        }
    }

    #[test]
    fn degenerate_parameters_and_inputs_are_finite() {
        let base = ApproachParams::default();
        let bad = [
            ApproachParams {
                aggro_radius: 0.0,
                ..base
            },
            ApproachParams {
                aggro_radius: f32::NAN,
                ..base
            },
            ApproachParams {
                min_step: 0.0,
                step_fraction: 0.0,
                ..base
            },
            ApproachParams {
                min_step: f32::NAN,
                max_step: f32::NAN,
                step_fraction: f32::NAN,
                ..base
            },
            ApproachParams {
                min_step: 5.0,
                max_step: 1.0,
                ..base
            },
            ApproachParams {
                step_fraction: 3.0,
                ..base
            },
            ApproachParams {
                arrive_radius: -1.0,
                slowing_radius: f32::NAN,
                ..base
            },
            ApproachParams {
                spline: true,
                spline_points: 0,
                min_step: 0.0,
                step_fraction: 0.0,
                ..base
            },
            ApproachParams {
                spline: true,
                spline_points: 99,
                ..base
            },
        ];
        let mut rng = agent_rng(3, 3);
        for p in &bad {
            assert!(p.validate().is_err(), "{p:?}");
            for (w, t) in [
                (Vec2::new(10.0, 10.0), Vec2::ZERO),
                (Vec2::ZERO, Vec2::ZERO),
                (Vec2::ZERO, Vec2::NAN),
                (Vec2::NAN, Vec2::ONE),
            ] {
                let wp = pick_next_waypoint(w, t, p, &mut rng);
                assert!(wp.is_finite() || !w.is_finite() && !t.is_finite(), "{p:?}");
                let me = AgentState {
                    pos: w,
                    vel: Vec2::X,
                    max_speed: 2.0,
                    ..AgentState::default()
                };
                if !w.is_finite() {
                    continue;
                }
                let mut s = WalkerState::default();
                for _ in 0..5 {
                    let (f, ns) = approach_step(&me, t, &s, p, &mut rng);
                    assert!(f.is_finite(), "{p:?} {w} {t}: {f}");
                    assert!(!ns.has_waypoint || ns.waypoint.is_finite());
                    s = ns;
                }
            }
        }
        // The messages name the field.
        let named = [
            (bad[0], "aggro_radius"),
            (bad[2], "min_step"),
            (bad[4], "max_step"),
            (bad[5], "step_fraction"),
            (bad[6], "arrive_radius"),
            (bad[8], "spline_points"),
        ];
        for (p, field) in named {
            let e = p.validate().unwrap_err();
            assert!(e.contains(field), "{e}");
        }
        assert!(base.validate().is_ok());
    }

    /// Drive an agent with `approach_step` and a plain Euler loop; returns the
    /// largest overshoot past the target along the original line, the final
    /// distance and the waypoints steered at.
    fn drive(p: &ApproachParams, seed: u64) -> (f32, f32, Vec<Vec2>) {
        // A light, responsive body: with mass 0.05 and dt 0.02 the velocity moves
        // 40% of the way to the desired one each tick.
        let (dt, mass) = (0.02, 0.05);
        let target = Vec2::ZERO;
        let start = Vec2::new(10.0, 10.0);
        let e0 = (target - start).normalize();
        let mut me = AgentState {
            pos: start,
            max_speed: 2.0,
            max_force: 1000.0,
            mass,
            ..AgentState::default()
        };
        let mut s = WalkerState::default();
        let mut rng = agent_rng(seed, 1);
        let mut overshoot = f32::NEG_INFINITY;
        let mut waypoints = Vec::new();
        for _ in 0..2000 {
            let (force, ns) = approach_step(&me, target, &s, p, &mut rng);
            assert!(force.is_finite());
            if waypoints.last() != Some(&ns.waypoint) {
                waypoints.push(ns.waypoint);
            }
            s = ns;
            let acc = truncate(force, me.max_force) / me.mass;
            me.vel = truncate(me.vel + acc * dt, me.max_speed);
            me.pos += me.vel * dt;
            overshoot = overshoot.max((me.pos - target).dot(e0));
        }
        (overshoot, (me.pos - target).length(), waypoints)
    }

    // The walker itself does not even come near the bound on the picks. A pick can
    // only lie past the target when a short last step swings it round the target,
    // which takes landing very close to it (from (10,10), over 100k seeds, all such
    // picks were within 0.031 of the target), inside `arrive_radius` (0.25): by
    // then the walker is on its final leg, and arrive (overdamped with this body)
    // does not pass the target.
    #[test]
    fn euler_walker_reaches_the_target_without_passing_it() {
        let p = ApproachParams::default();
        for seed in 0..40 {
            let (overshoot, dist, wps) = drive(&p, seed);
            assert!(dist < 0.01, "seed {seed}: ended {dist} away");
            assert!(
                overshoot <= PAST_ORIGINAL_LINE,
                "seed {seed}: {overshoot} past"
            );
            // Waypoint mode: a handful of waypoints, then the target.
            assert!(wps.len() <= 12, "seed {seed}: {wps:?}");
            assert_eq!(*wps.last().unwrap(), Vec2::ZERO);
        }
        // Deterministic: the same seed replays the same walk.
        assert_eq!(drive(&p, 5), drive(&p, 5));
    }

    #[test]
    fn euler_spline_walker_reaches_the_target_without_passing_it() {
        let p = ApproachParams {
            spline: true,
            ..ApproachParams::default()
        };
        for seed in 0..40 {
            let (overshoot, dist, _) = drive(&p, seed);
            assert!(dist < 0.01, "seed {seed}: ended {dist} away");
            assert!(
                overshoot <= PAST_ORIGINAL_LINE,
                "seed {seed}: {overshoot} past"
            );
        }
        assert_eq!(drive(&p, 5), drive(&p, 5));
    }

    #[test]
    fn spline_plan_follows_the_seed_rules() {
        let p = ApproachParams {
            spline: true,
            ..ApproachParams::default()
        };
        let me = AgentState {
            pos: Vec2::new(10.0, 10.0),
            max_speed: 2.0,
            ..AgentState::default()
        };
        let mut rng = agent_rng(11, 2);
        let (f, s) = approach_step(&me, Vec2::ZERO, &WalkerState::default(), &p, &mut rng);
        let plan = s.plan();
        // None of 4 picks from 14.1 away is the target: a pick from d >= 2 is at
        // least d/2 away, so the 4th is made from at least 14.1/8 = 1.77 > min_step.
        assert_eq!(plan.len(), 5);
        assert_eq!(plan[0], me.pos);
        for w in plan.windows(2) {
            assert_pick_obeys_rules(w[0], Vec2::ZERO, w[1], &p);
        }
        // The first point steered at lies on the first segment, just ahead, and the
        // force seeks it.
        let first = catmull_rom_centripetal(
            2.0 * plan[0] - plan[1],
            plan[0],
            plan[1],
            plan[2],
            1.0 / 8.0,
        );
        assert!(close(s.waypoint, first, 1e-5));
        assert!(close(f, seek(&me, first), 1e-5));
        // The same seed plans the same.
        let mut again = agent_rng(11, 2);
        let (_, s2) = approach_step(&me, Vec2::ZERO, &WalkerState::default(), &p, &mut again);
        assert_eq!(s, s2);
        assert!(std::mem::size_of::<WalkerState>() <= 64);
    }

    #[test]
    fn final_leg_tracks_and_re_picks_for_a_moving_target() {
        let p = ApproachParams::default();
        let mut rng = agent_rng(4, 4);
        let me = AgentState {
            pos: Vec2::ZERO,
            max_speed: 2.0,
            ..AgentState::default()
        };
        // 0.5 away: the final leg, arriving at the target.
        let t = Vec2::new(0.5, 0.0);
        let (f, s) = approach_step(&me, t, &WalkerState::default(), &p, &mut rng);
        assert!(s.final_leg && s.waypoint == t);
        assert!(close(
            f,
            arrive(
                &me,
                t,
                &ArriveParams {
                    slowing_radius: 2.0
                }
            ),
            1e-6
        ));
        // The target drifts to 1.1: still a straight shot with the slack of 0.25.
        let t2 = Vec2::new(1.1, 0.0);
        let (_, s) = approach_step(&me, t2, &s, &p, &mut rng);
        assert!(s.final_leg && s.waypoint == t2);
        // It jumps to 20 away: the walk wobbles again.
        let t3 = Vec2::new(20.0, 0.0);
        let (_, s) = approach_step(&me, t3, &s, &p, &mut rng);
        assert!(!s.final_leg && s.has_waypoint);
        assert!((s.waypoint.length() - 10.0).abs() < 1e-4);
        // On the target: arrive brakes (-vel), finite.
        let moving = AgentState { vel: Vec2::X, ..me };
        let (f, s) = approach_step(&moving, Vec2::ZERO, &s, &p, &mut rng);
        assert!(s.final_leg);
        assert_eq!(f, -Vec2::X);
        // A non-finite target: no force, fresh state.
        let (f, s) = approach_step(&me, Vec2::NAN, &s, &p, &mut rng);
        assert_eq!((f, s), (Vec2::ZERO, WalkerState::default()));
    }

    #[test]
    fn catmull_rom_hand_worked() {
        let (p0, p1, p2, p3) = (
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
        );
        // Through p1 at t = 0 and p2 at t = 1.
        assert_eq!(catmull_rom(p0, p1, p2, p3, 0.0), p1);
        assert!(close(catmull_rom(p0, p1, p2, p3, 1.0), p2, 1e-6));
        // t = 0.5: 0.5 * ((2,0) + (1,1)*0.5 + (-1,3)*0.25 + (0,-2)*0.125)
        //        = 0.5 * (2.25, 1.0) = (1.125, 0.5).
        assert!(close(
            catmull_rom(p0, p1, p2, p3, 0.5),
            Vec2::new(1.125, 0.5),
            1e-6
        ));
        // Equal spacing (all knot intervals 1): centripetal equals uniform.
        for t in [0.0, 0.25, 0.5, 0.9, 1.0] {
            let u = catmull_rom(p0, p1, p2, p3, t);
            let c = catmull_rom_centripetal(p0, p1, p2, p3, t);
            assert!(close(u, c, 1e-6), "{t}: {u} vs {c}");
        }
        assert_eq!(catmull_rom_centripetal(p0, p1, p2, p3, 0.0), p1);
        assert_eq!(catmull_rom_centripetal(p0, p1, p2, p3, 1.0), p2);
    }

    #[test]
    fn centripetal_hand_worked_and_against_barry_goldman() {
        // Collinear x = 0, 1, 5, 9: knot intervals 1, 2, 2. Tangents
        // m1 = 2 * (1/1 - 5/3 + 4/2) = 8/3, m2 = 2 * (4/2 - 8/4 + 4/2) = 4; at
        // t = 0.5 (Hermite weights 1/2, 1/8, 1/2, -1/8):
        // 0.5 + (8/3)/8 + 2.5 - 4/8 = 17/6.
        let x = |v: f32| Vec2::new(v, 0.0);
        let c = catmull_rom_centripetal(x(0.0), x(1.0), x(5.0), x(9.0), 0.5);
        assert!(close(c, x(17.0 / 6.0), 1e-5), "{c}");
        // The uniform spline gives 0.5 + 2.5/8 + 2.5 - 0.5 = 2.8125 here.
        assert!(close(
            catmull_rom(x(0.0), x(1.0), x(5.0), x(9.0), 0.5),
            x(2.8125),
            1e-6
        ));

        // Oracle: the Barry-Goldman pyramid on random points.
        fn barry_goldman(p: [Vec2; 4], s: f32) -> Vec2 {
            let mut t = [0.0f32; 4];
            for i in 1..4 {
                t[i] = t[i - 1] + (p[i] - p[i - 1]).length().sqrt();
            }
            let u = t[1] + (t[2] - t[1]) * s;
            let l = |a: Vec2, b: Vec2, ta: f32, tb: f32| {
                a * ((tb - u) / (tb - ta)) + b * ((u - ta) / (tb - ta))
            };
            let a1 = l(p[0], p[1], t[0], t[1]);
            let a2 = l(p[1], p[2], t[1], t[2]);
            let a3 = l(p[2], p[3], t[2], t[3]);
            let b1 = l(a1, a2, t[0], t[2]);
            let b2 = l(a2, a3, t[1], t[3]);
            l(b1, b2, t[1], t[2])
        }
        let mut rng = agent_rng(77, 0);
        for _ in 0..200 {
            let p: [Vec2; 4] = std::array::from_fn(|_| {
                Vec2::new(
                    uniform(&mut rng, -10.0, 10.0),
                    uniform(&mut rng, -10.0, 10.0),
                )
            });
            for s in [0.0, 0.3, 0.5, 0.8, 1.0] {
                let ours = catmull_rom_centripetal(p[0], p[1], p[2], p[3], s);
                let oracle = barry_goldman(p, s);
                assert!(close(ours, oracle, 1e-3), "{p:?} {s}: {ours} vs {oracle}");
            }
        }
        // Coincident points: finite.
        let z = Vec2::ZERO;
        assert_eq!(catmull_rom_centripetal(z, z, z, z, 0.5), z);
        assert!(catmull_rom_centripetal(z, z, Vec2::ONE, Vec2::ONE, 0.5).is_finite());
    }
}
