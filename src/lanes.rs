//! The steering of four agents at once, in vector lanes, for groups whose behaviours
//! are only the flocking trio, wander and seek, combined by a weighted sum (the boids
//! of the `flock` profile). The neighbour sums and the random draws stay per agent;
//! everything after them (wander's target and force, seek, the weighted sum and its
//! truncation) runs in lanes.
//!
//! Every lane goes through the same IEEE operations in the same order as the scalar
//! kernels ([`wander`](crate::behaviors::wander), [`seek`](crate::behaviors::targeting::seek),
//! the world's weighted sum): branches become selects, and vector square roots and
//! divisions are correctly rounded like scalar ones. So each lane is bitwise what the
//! scalar path gives.

use glam::Vec2;
use wide::f32x4;

use crate::behaviors::wander::WanderParams;
use crate::math::{heading_to_vec, EPS_LEN_SQ};
use crate::spatial::FlockSums;

/// Agents per lane group.
pub(crate) const LANES: usize = 4;

/// Most terms a lane program holds.
pub(crate) const MAX_TERMS: usize = 8;

/// One behaviour of a lane program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Term {
    /// The separation of the precomputed flocking sums.
    Separation,
    /// The alignment of the precomputed flocking sums.
    Alignment,
    /// The cohesion of the precomputed flocking sums.
    Cohesion,
    /// Wander (at most one per program: it draws from the agent's generator).
    Wander(WanderParams),
    /// Seek the agent's target.
    Seek,
}

/// A group's behaviours and weights, in order, when all of them are lane terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Program {
    terms: [(Term, f32); MAX_TERMS],
    len: usize,
}

impl Program {
    /// A program of these terms, or `None` for more than [`MAX_TERMS`] or more than
    /// one wander.
    pub(crate) fn new(terms: impl IntoIterator<Item = (Term, f32)>) -> Option<Self> {
        let mut p = Self {
            terms: [(Term::Seek, 0.0); MAX_TERMS],
            len: 0,
        };
        for t in terms {
            *p.terms.get_mut(p.len)? = t;
            p.len += 1;
        }
        let wanders = p
            .terms()
            .iter()
            .filter(|(t, _)| matches!(t, Term::Wander(_)));
        (wanders.count() <= 1).then_some(p)
    }

    /// The terms, in order.
    pub(crate) fn terms(&self) -> &[(Term, f32)] {
        &self.terms[..self.len]
    }

    /// The wander parameters, if the program wanders.
    pub(crate) fn wander(&self) -> Option<WanderParams> {
        self.terms().iter().find_map(|(t, _)| match t {
            Term::Wander(p) => Some(*p),
            _ => None,
        })
    }
}

/// Four vectors, one per lane, stored as their x and their y: each loads into a
/// [`V2`] as two whole vectors, with no shuffling.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lanes2 {
    pub x: [f32; LANES],
    pub y: [f32; LANES],
}

impl Lanes2 {
    #[inline]
    pub fn set(&mut self, lane: usize, v: Vec2) {
        self.x[lane] = v.x;
        self.y[lane] = v.y;
    }

    #[inline]
    fn load(&self) -> V2 {
        V2 {
            x: f32x4::new(self.x),
            y: f32x4::new(self.y),
        }
    }
}

/// What the lanes read of four agents.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Input {
    pub pos: Lanes2,
    pub vel: Lanes2,
    pub heading: [f32; LANES],
    pub max_speed: [f32; LANES],
    pub max_force: [f32; LANES],
    /// The resolved target of each agent (any value without one), and whether it has
    /// one (`1.0`; `0.0`: no target, seek gives zero).
    pub target: Lanes2,
    pub has_target: [f32; LANES],
    /// The flocking sums (zero when the group has none): the separation pushes, the
    /// neighbours' unit velocities and positions, and the neighbour count; and the
    /// separation strength (the same for the four).
    pub push: Lanes2,
    pub headings: Lanes2,
    pub positions: Lanes2,
    pub count: [f32; LANES],
    pub strength: f32,
    /// The wander target before this tick's jitter, and the jitter (already scaled by
    /// `jitter * dt`), when the program wanders.
    pub wander_prev: Lanes2,
    pub wander_jitter: Lanes2,
}

impl Input {
    /// Lane `lane`'s target and flocking sums.
    #[inline]
    pub fn set_target_and_sums(&mut self, lane: usize, target: Option<Vec2>, f: &FlockSums) {
        self.target.set(lane, target.unwrap_or(Vec2::ZERO));
        self.has_target[lane] = if target.is_some() { 1.0 } else { 0.0 };
        self.push.set(lane, f.push);
        self.headings.set(lane, f.headings);
        self.positions.set(lane, f.positions);
        self.count[lane] = f.count as f32;
    }
}

/// What the lanes give back: each agent's force (truncated, finite) and its new
/// local wander target.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Output {
    pub force: [Vec2; LANES],
    pub wander: [Vec2; LANES],
}

/// Four 2D vectors in lanes, one coordinate per vector: the lane form of the scalar
/// vector helpers ([`crate::math`]), operation for operation.
#[derive(Clone, Copy)]
pub(crate) struct V2 {
    pub x: f32x4,
    pub y: f32x4,
}

impl V2 {
    pub fn load(v: &[Vec2; LANES]) -> Self {
        Self {
            x: f32x4::new(v.map(|v| v.x)),
            y: f32x4::new(v.map(|v| v.y)),
        }
    }

    pub fn store(self) -> [Vec2; LANES] {
        let (x, y) = (self.x.to_array(), self.y.to_array());
        std::array::from_fn(|i| Vec2::new(x[i], y[i]))
    }

    pub fn splat(v: Vec2) -> Self {
        Self {
            x: f32x4::splat(v.x),
            y: f32x4::splat(v.y),
        }
    }

    pub fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }

    pub fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }

    pub fn scale(self, s: f32x4) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
        }
    }

    pub fn div(self, s: f32x4) -> Self {
        Self {
            x: self.x / s,
            y: self.y / s,
        }
    }

    /// `length_squared`: `x * x + y * y`.
    pub fn len_sq(self) -> f32x4 {
        self.x * self.x + self.y * self.y
    }

    /// Per lane: `mask ? a : b` (`mask` lanes all ones or all zeros).
    pub fn select(mask: f32x4, a: Self, b: Self) -> Self {
        Self {
            x: mask.bitselect(a.x, b.x),
            y: mask.bitselect(a.y, b.y),
        }
    }

    /// Lanes where both coordinates are finite.
    pub fn finite(self) -> f32x4 {
        self.x.is_finite() & self.y.is_finite()
    }

    /// `truncate(v, max)`: zero for a limit that is not positive (or NaN) or a vector
    /// that is not finite; scaled by `max / |v|` when longer than `max`.
    pub fn truncate(self, max: f32x4) -> Self {
        let len_sq = self.len_sq();
        let long = len_sq.simd_gt(max * max);
        let truncated = Self::select(long, self.scale(max / len_sq.sqrt()), self);
        let keep = max.simd_gt(f32x4::ZERO) & self.finite();
        Self::select(keep, truncated, Self::splat(Vec2::ZERO))
    }

    /// `normalize_or(v, fallback)`: `v / |v|` where `|v|²` is above [`EPS_LEN_SQ`] and
    /// finite, else `fallback`. Also returns the mask of lanes that took the fallback.
    pub fn normalize_or(self, fallback: Self) -> (Self, f32x4) {
        let len_sq = self.len_sq();
        let unit = len_sq.simd_gt(f32x4::splat(EPS_LEN_SQ)) & len_sq.is_finite();
        (Self::select(unit, self.div(len_sq.sqrt()), fallback), !unit)
    }
}

/// The steering forces of four agents of a group with `program`.
#[must_use]
pub(crate) fn steer(program: &Program, b: &Input) -> Output {
    let zero = f32x4::ZERO;
    let pos = b.pos.load();
    let vel = b.vel.load();
    let max_speed = f32x4::new(b.max_speed);
    // `AgentState::forward`: the unit velocity, or the heading for a still agent
    // (a sine and cosine, per lane, only where needed).
    let (mut fwd, still) = vel.normalize_or(V2::splat(Vec2::ZERO));
    if still.any() {
        let mut f = fwd.store();
        let still = still.to_bitmask();
        for (i, f) in f.iter_mut().enumerate() {
            if still & (1 << i) != 0 {
                *f = heading_to_vec(b.heading[i]);
            }
        }
        fwd = V2::load(&f);
    }
    // Wander: the jittered target back on the circle (straight ahead if it
    // collapsed), then `right * t.x + fwd * (t.y + distance)`.
    let mut wander = Output::default().wander;
    let mut wander_force = V2::splat(Vec2::ZERO);
    if let Some(p) = program.wander() {
        let moved = b.wander_prev.load().add(b.wander_jitter.load());
        let (dir, _) = moved.normalize_or(V2::splat(Vec2::Y));
        let t = dir.scale(f32x4::splat(p.radius));
        wander = t.store();
        let right = V2 {
            x: fwd.y,
            y: -fwd.x,
        };
        wander_force = right
            .scale(t.x)
            .add(fwd.scale(t.y + f32x4::splat(p.distance)));
    }
    // Seek: `normalize_or_zero(target - pos) * max_speed - vel`, zero when the desired
    // velocity is zero or there is no target.
    let seek_of = |has: f32x4, target: V2| {
        let (dir, _) = target.sub(pos).normalize_or(V2::splat(Vec2::ZERO));
        let desired = dir.scale(max_speed);
        let moving = !(desired.x.simd_eq(zero) & desired.y.simd_eq(zero));
        V2::select(has & moving, desired.sub(vel), V2::splat(Vec2::ZERO))
    };
    let one = f32x4::splat(1.0);
    let seek = seek_of(f32x4::new(b.has_target).simd_eq(one), b.target.load());
    // `flock_from_sums`: separation `push * strength`; alignment `dir * max_speed -
    // vel` toward the mean unit velocity `dir` (zero when that vanishes); cohesion, seek
    // the neighbours' centre (zero without neighbours).
    let sep = b.push.load().scale(f32x4::splat(b.strength));
    let (dir, _) = b.headings.load().normalize_or(V2::splat(Vec2::ZERO));
    let aligned = !(dir.x.simd_eq(zero) & dir.y.simd_eq(zero));
    let ali = V2::select(
        aligned,
        dir.scale(max_speed).sub(vel),
        V2::splat(Vec2::ZERO),
    );
    let count = f32x4::new(b.count);
    let coh = seek_of(count.simd_gt(zero), b.positions.load().div(count));
    // The weighted sum, in the program's order, then `truncate` to the maximum force.
    let mut sum = V2::splat(Vec2::ZERO);
    for &(term, w) in program.terms() {
        let c = match term {
            Term::Separation => sep,
            Term::Alignment => ali,
            Term::Cohesion => coh,
            Term::Wander(_) => wander_force,
            Term::Seek => seek,
        };
        sum = sum.add(c.scale(f32x4::splat(w)));
    }
    Output {
        force: sum.truncate(f32x4::new(b.max_force)).store(),
        wander,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_hold_at_most_eight_terms_and_one_wander() {
        let w = Term::Wander(WanderParams::default());
        let p = Program::new([(Term::Separation, 1.5), (w, 0.3), (Term::Seek, 0.1)]).unwrap();
        assert_eq!(p.terms().len(), 3);
        assert_eq!(p.wander(), Some(WanderParams::default()));
        assert!(Program::new([(w, 0.3), (w, 0.3)]).is_none());
        assert!(Program::new([(Term::Seek, 1.0); MAX_TERMS]).is_some());
        assert!(Program::new([(Term::Seek, 1.0); MAX_TERMS + 1]).is_none());
        assert_eq!(Program::new([(Term::Seek, 1.0)]).unwrap().wander(), None);
    }

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
        let none = FlockSums::default();
        for (lane, t) in [
            Some(Vec2::new(3.0, 4.0)),
            None,
            Some(Vec2::ZERO),
            Some(Vec2::X),
        ]
        .into_iter()
        .enumerate()
        {
            b.set_target_and_sums(lane, t, &none);
        }
        b.pos.set(2, Vec2::ZERO);
        let p = Program::new([(Term::Seek, 1.0)]).unwrap();
        let o = steer(&p, &b);
        assert_eq!(
            o.force,
            [Vec2::new(1.5, 2.0), Vec2::ZERO, Vec2::ZERO, Vec2::ZERO]
        );
    }
}
