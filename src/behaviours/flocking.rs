//! Group behaviours: separation (two formulas), cohesion and alignment, and the sums
//! the steering pass makes them of.
//!
//! The neighbours come from the caller (the spatial index); an agent is never its
//! own neighbour. Three shapes of the same formulas, side by side here with the tests
//! that tie them:
//! - on neighbour records ([`separation`], [`alignment`], [`cohesion`], and all three
//!   in one pass, [`flock_forces`]);
//! - from [`FlockSums`], which the steering pass accumulates straight from the agent
//!   columns through the scan's rows (`FlockSums::over`) and turns into forces
//!   (`FlockSums::forces`), bitwise the record path;
//! - in four lanes: the sums in one pass over the index's candidates
//!   (`candidate_sums_x4`: no neighbour list) and the forces of four agents' sums
//!   (`forces_x4`).

use glam::Vec2;
use serde::{Deserialize, Serialize};
use wide::f32x4;

use super::targeting::{seek, seek_x4};
use super::AgentState;
use crate::math::x4::Vec2x4;
use crate::math::{heading_to_vec, normalize_or_zero, EPS_LEN};

/// What a behaviour knows of a neighbour.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Neighbour {
    /// Position.
    pub pos: Vec2,
    /// Velocity.
    pub vel: Vec2,
    /// Unit velocity (zero when still): the neighbour's heading for alignment.
    /// The world keeps it as a column, computed once per agent per tick.
    pub unit_vel: Vec2,
    /// The neighbour's slot (its handle's index): a stable number that breaks the tie
    /// between coincident agents deterministically.
    pub slot: u32,
}

impl Neighbour {
    /// A neighbour in slot `slot` at `pos` moving at `vel` (its unit velocity derived).
    #[must_use]
    pub fn new(pos: Vec2, vel: Vec2, slot: u32) -> Self {
        Self {
            pos,
            vel,
            unit_vel: normalize_or_zero(vel),
            slot,
        }
    }
}

/// Which separation formula to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeparationKind {
    /// The leader-following tutorial: `-normalize(mean(other - me)) * strength` — a push of constant
    /// size away from the neighbours' centre.
    Average,
    /// Reynolds/Buckland: `sum(normalize(me - other) / |me - other|) * strength` —
    /// stronger for closer neighbours.
    #[default]
    InverseDistance,
}

/// Parameters of [`separation`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SeparationParams {
    /// The formula.
    pub kind: SeparationKind,
    /// Scale of the result; for `average` this is the leader-following tutorial's `MAX_SEPARATION`.
    /// Default 2.
    pub strength: f32,
    /// Only neighbours closer than this count (units); infinite by default, so
    /// the group's neighbour radius decides.
    pub radius: f32,
}

impl Default for SeparationParams {
    fn default() -> Self {
        Self {
            kind: SeparationKind::default(),
            strength: 2.0,
            radius: f32::INFINITY,
        }
    }
}

/// Distance below which two agents count as coincident.
const COINCIDENT: f32 = EPS_LEN;
/// The closest distance the inverse-distance formula divides by.
pub(crate) const MIN_SEPARATION_DIST: f32 = 1e-3;

/// A unit direction to push `my_slot` away from a coincident `other_slot`: the same
/// line for both agents of the pair, opposite senses, so they split apart. Zero
/// when the slots are equal.
#[must_use]
pub fn coincident_push(my_slot: u32, other_slot: u32) -> Vec2 {
    if my_slot == other_slot {
        return Vec2::ZERO;
    }
    let (lo, hi) = (
        my_slot.min(other_slot) as u64,
        my_slot.max(other_slot) as u64,
    );
    let h = crate::rng::mix_seed(lo, hi);
    let angle = (h >> 40) as f32 * (std::f32::consts::TAU / (1u64 << 24) as f32);
    let dir = heading_to_vec(angle);
    if my_slot < other_slot {
        dir
    } else {
        -dir
    }
}

/// Separation from `neighbours`. `my_slot` is this agent's slot.
#[must_use]
pub fn separation(
    me: &AgentState,
    my_slot: u32,
    neighbours: &[Neighbour],
    params: &SeparationParams,
) -> Vec2 {
    let r_sq = params.radius * params.radius;
    match params.kind {
        SeparationKind::Average => {
            let mut sum = Vec2::ZERO;
            let mut coincident = Vec2::ZERO;
            let mut count = 0u32;
            for n in neighbours {
                let d = n.pos - me.pos;
                if d.length_squared() > r_sq {
                    continue;
                }
                if d.length_squared() <= COINCIDENT * COINCIDENT {
                    coincident += coincident_push(my_slot, n.slot);
                }
                sum += d;
                count += 1;
            }
            if count == 0 {
                return Vec2::ZERO;
            }
            let away = -(sum / count as f32);
            let dir = normalize_or_zero(away);
            let dir = if dir == Vec2::ZERO {
                normalize_or_zero(coincident)
            } else {
                dir
            };
            dir * params.strength
        }
        SeparationKind::InverseDistance => {
            let sums = FlockSums::of_records(me.pos, my_slot, neighbours, params);
            sums.forces(me, FlockTerms::Separation(*params)).separation
        }
    }
}

/// One neighbour's inverse-distance separation term `normalize(away) / |away|`
/// (`away = me - other`, `d_sq = |away|²`), with the distance floored at
/// [`MIN_SEPARATION_DIST`] and coincident agents pushed apart by [`coincident_push`]
/// (`other_slot` gives the other's slot, asked only then). Beyond the floor this is
/// `away / d_sq`: no square root, one division.
#[inline]
fn inverse_distance_push(
    away: Vec2,
    d_sq: f32,
    my_slot: u32,
    other_slot: impl FnOnce() -> u32,
) -> Vec2 {
    if d_sq >= MIN_SEPARATION_DIST * MIN_SEPARATION_DIST {
        return away * (1.0 / d_sq);
    }
    let d = d_sq.sqrt();
    let dir = if d > COINCIDENT {
        away / d
    } else {
        coincident_push(my_slot, other_slot())
    };
    dir / d.max(MIN_SEPARATION_DIST)
}

/// The three classic flocking forces of one agent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlockForces {
    /// [`separation`] with the given parameters.
    pub separation: Vec2,
    /// [`alignment`].
    pub alignment: Vec2,
    /// [`cohesion`].
    pub cohesion: Vec2,
}

/// [`separation`], [`alignment`] and [`cohesion`] from a single pass over the
/// neighbours. Bitwise the same results as the three functions: each sum is
/// accumulated with the same operations in the same order.
#[must_use]
pub fn flock_forces(
    me: &AgentState,
    my_slot: u32,
    neighbours: &[Neighbour],
    params: &SeparationParams,
) -> FlockForces {
    if neighbours.is_empty() {
        return FlockForces::default();
    }
    if params.kind != SeparationKind::InverseDistance {
        return FlockForces {
            separation: separation(me, my_slot, neighbours, params),
            alignment: alignment(me, neighbours),
            cohesion: cohesion(me, neighbours),
        };
    }
    let sums = FlockSums::of_records(me.pos, my_slot, neighbours, params);
    sums.forces(me, FlockTerms::All(*params))
}

/// Which flocking forces a group's neighbour pass makes of its sums (the
/// inverse-distance separation only: the average formula needs the records).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FlockTerms {
    /// Separation, alignment and cohesion (the group has at least two of them), with
    /// the separation's parameters (the default when the group has none).
    All(SeparationParams),
    /// A lone separation.
    Separation(SeparationParams),
}

impl FlockTerms {
    /// The separation parameters.
    pub(crate) fn params(&self) -> &SeparationParams {
        match self {
            Self::All(p) | Self::Separation(p) => p,
        }
    }
}

/// An agent's sums over its neighbours, which the flocking forces are made of
/// (`FlockSums::forces`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlockSums {
    /// Neighbours summed.
    pub count: usize,
    /// Over the neighbours within the separation radius: their inverse-distance pushes
    /// (`away / |away|²`, with `away` the agent's position minus the neighbour's; see
    /// [`separation`]).
    pub push: Vec2,
    /// Over all neighbours: their unit velocities.
    pub headings: Vec2,
    /// Over all neighbours: their positions.
    pub positions: Vec2,
}

impl FlockSums {
    /// The sums over `count` neighbours of an agent at `at` in slot `my_slot`, given by
    /// accessors: `get(i)` is the `i`-th neighbour's position and unit velocity,
    /// `slot(i)` its slot (read only for coincident agents). Accumulated in neighbour
    /// order, so records ([`Self::of_records`]) and columns read through the scan's
    /// rows give bitwise the same sums. Sums a caller does not read cost nothing once
    /// inlined (the lone separation reads only `push`).
    #[inline(always)]
    pub(crate) fn over(
        at: Vec2,
        my_slot: u32,
        count: usize,
        get: impl Fn(usize) -> (Vec2, Vec2),
        slot: impl Fn(usize) -> u32,
        params: &SeparationParams,
    ) -> Self {
        let r_sq = params.radius * params.radius;
        let mut sums = Self {
            count,
            ..Self::default()
        };
        for i in 0..count {
            let (pos, unit_vel) = get(i);
            let away = at - pos;
            let d_sq = away.length_squared();
            if d_sq <= r_sq {
                sums.push += inverse_distance_push(away, d_sq, my_slot, || slot(i));
            }
            sums.headings += unit_vel;
            sums.positions += pos;
        }
        sums
    }

    /// [`Self::over`] a slice of records.
    #[inline(always)]
    fn of_records(at: Vec2, my_slot: u32, n: &[Neighbour], params: &SeparationParams) -> Self {
        Self::over(
            at,
            my_slot,
            n.len(),
            |i| (n[i].pos, n[i].unit_vel),
            |i| n[i].slot,
            params,
        )
    }

    /// The forces of these sums: separation `push * strength`; with all three terms,
    /// alignment toward the mean unit velocity at full speed (zero when it vanishes)
    /// and cohesion, a seek of the neighbours' centre (all zero without neighbours).
    #[inline(always)]
    pub(crate) fn forces(&self, me: &AgentState, terms: FlockTerms) -> FlockForces {
        match terms {
            FlockTerms::Separation(p) => FlockForces {
                separation: self.push * p.strength,
                ..FlockForces::default()
            },
            FlockTerms::All(p) => {
                if self.count == 0 {
                    return FlockForces::default();
                }
                FlockForces {
                    separation: self.push * p.strength,
                    alignment: toward_mean_heading(me, self.headings),
                    cohesion: toward_centre(me, self.positions, self.count),
                }
            }
        }
    }
}

/// Cohesion: seek the centre of the neighbours' positions (Buckland). Zero without
/// neighbours.
#[must_use]
pub fn cohesion(me: &AgentState, neighbours: &[Neighbour]) -> Vec2 {
    if neighbours.is_empty() {
        return Vec2::ZERO;
    }
    let positions = neighbours.iter().map(|n| n.pos).sum::<Vec2>();
    toward_centre(me, positions, neighbours.len())
}

/// Cohesion's formula on the sum of `count` (at least one) neighbours' positions: a
/// seek of their centre. [`cohesion`] and [`FlockSums::forces`] both end here.
#[inline(always)]
fn toward_centre(me: &AgentState, positions: Vec2, count: usize) -> Vec2 {
    seek(me, positions / count as f32)
}

/// Alignment (Reynolds): steer toward the neighbours' mean heading at full speed:
/// `normalize(mean(normalize(n.vel))) * max_speed - vel`. Neighbours standing
/// still have no heading and count as zero; zero when the mean heading vanishes
/// (no neighbours, or headings that cancel).
#[must_use]
pub fn alignment(me: &AgentState, neighbours: &[Neighbour]) -> Vec2 {
    toward_mean_heading(me, neighbours.iter().map(|n| n.unit_vel).sum())
}

/// Alignment's formula on the sum of the neighbours' unit velocities: full speed
/// along their mean heading, zero when it vanishes. [`alignment`] and
/// [`FlockSums::forces`] both end here; `forces_x4` is its four-lane twin.
#[inline(always)]
fn toward_mean_heading(me: &AgentState, headings: Vec2) -> Vec2 {
    let dir = normalize_or_zero(headings);
    if dir == Vec2::ZERO {
        return Vec2::ZERO;
    }
    dir * me.max_speed - me.vel
}

/// Four agents' [`FlockSums`], one per lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FlockSums4 {
    pub push: crate::math::x4::Xy4,
    pub headings: crate::math::x4::Xy4,
    pub positions: crate::math::x4::Xy4,
    pub count: [f32; crate::math::x4::LANES],
}

impl From<[FlockSums; crate::math::x4::LANES]> for FlockSums4 {
    /// Lane `i` holds `sums[i]`.
    #[inline]
    fn from(sums: [FlockSums; crate::math::x4::LANES]) -> Self {
        Self {
            push: sums.map(|s| s.push).into(),
            headings: sums.map(|s| s.headings).into(),
            positions: sums.map(|s| s.positions).into(),
            count: sums.map(|s| s.count as f32),
        }
    }
}

/// [`FlockSums::forces`] with all three terms, for four agents (`(pos, vel, max_speed)`)
/// at once: separation, alignment and cohesion, each lane bitwise the scalar forces of
/// an agent with neighbours (`forces_x4_equal_the_scalar_forces_bitwise` below). A lane
/// without neighbours gets zero alignment and cohesion and `push * strength`.
#[inline]
pub(crate) fn forces_x4(
    me: (Vec2x4, Vec2x4, f32x4),
    sums: &FlockSums4,
    strength: f32,
) -> (Vec2x4, Vec2x4, Vec2x4) {
    let (_, vel, max_speed) = me;
    let separation = sums.push.load().scale(f32x4::splat(strength));
    let (dir, _) = sums.headings.load().normalize_or(Vec2x4::ZERO);
    let alignment = Vec2x4::select(!dir.is_zero(), dir.scale(max_speed).sub(vel), Vec2x4::ZERO);
    let count = f32x4::new(sums.count);
    let centre = sums.positions.load().div(count);
    let cohesion = seek_x4(me, centre, count.simd_gt(f32x4::ZERO));
    (separation, alignment, cohesion)
}

#[cfg(test)]
mod tests;
