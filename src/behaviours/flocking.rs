//! Group behaviours: separation (two formulas), cohesion and alignment, and the sums
//! the steering pass makes them of.
//!
//! The neighbours come from the caller (the spatial index); an agent is never its
//! own neighbour. Three shapes of the same formulas, side by side here with the tests
//! that tie them:
//! - on neighbour records ([`separation`], [`alignment`], [`cohesion`], and all three
//!   in one pass, [`flock_forces`]);
//! - from [`FlockSums`], which the steering pass accumulates straight from the agent
//!   columns through the scan's rows ([`FlockSums::over`]) and turns into forces
//!   ([`FlockSums::forces`]), bitwise the record path;
//! - in four lanes: the sums in one pass over the index's candidates
//!   ([`candidate_sums_x4`]: no neighbour list) and the forces of four agents' sums
//!   ([`forces_x4`]).

use glam::Vec2;
use serde::{Deserialize, Serialize};
use wide::f32x4;

use super::targeting::{seek, seek_x4};
use super::AgentState;
use crate::math::x4::Vec2x4;
use crate::math::{heading_to_vec, normalize_or_zero, EPS_LEN};
use crate::spatial::Candidates;

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
    /// Seed 002: `-normalize(mean(other - me)) * strength` — a push of constant
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
    /// Scale of the result; for `average` this is seed 002's `MAX_SEPARATION`.
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
/// ([`FlockSums::forces`]).
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
                let dir = normalize_or_zero(self.headings);
                FlockForces {
                    separation: self.push * p.strength,
                    alignment: if dir == Vec2::ZERO {
                        Vec2::ZERO
                    } else {
                        dir * me.max_speed - me.vel
                    },
                    cohesion: seek(me, self.positions / self.count as f32),
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
    let centre = neighbours.iter().map(|n| n.pos).sum::<Vec2>() / neighbours.len() as f32;
    seek(me, centre)
}

/// Alignment (Reynolds): steer toward the neighbours' mean heading at full speed:
/// `normalize(mean(normalize(n.vel))) * max_speed - vel`. Neighbours standing
/// still have no heading and count as zero; zero when the mean heading vanishes
/// (no neighbours, or headings that cancel).
#[must_use]
pub fn alignment(me: &AgentState, neighbours: &[Neighbour]) -> Vec2 {
    let mean: Vec2 = neighbours.iter().map(|n| n.unit_vel).sum();
    let dir = normalize_or_zero(mean);
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

impl FlockSums4 {
    /// Lane `lane`'s sums.
    #[inline]
    pub(crate) fn set(&mut self, lane: usize, s: &FlockSums) {
        self.push.set(lane, s.push);
        self.headings.set(lane, s.headings);
        self.positions.set(lane, s.positions);
        self.count[lane] = s.count as f32;
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

/// The [`FlockSums`] of a row over its neighbours among `c` (the candidate entries
/// around it, with unit velocities) in one pass, without a list of neighbours: entry
/// `i` of a span is summed in lane `(i - start) % 4`, and the lanes are added as
/// `(0 + 1) + (2 + 3)` at the end, so the sums differ from the record path's by
/// rounding only. `sep` is the separation radius squared and the least distance
/// squared of the inverse-distance push.
///
/// `None` where the sums would need the list, and the caller scans instead: more
/// neighbours than the query's cap (the nearest would have to be chosen), or a
/// neighbour within the separation radius closer than the least distance (whose push
/// is floored). Measured: flock (grid) at 100k on 2 threads −4%, flock (tree) steering
/// −8% (`docs/optimisations.md`, sixth round).
#[inline(always)]
pub(crate) fn candidate_sums_x4(
    c: &Candidates<'_>,
    (sep_r2, min_d2): (f32, f32),
) -> Option<FlockSums> {
    use bytemuck::cast;
    use wide::{i32x4, u32x4};
    const GROUP: usize = 4;
    let quad = |v: &[f32], i: usize| -> Option<f32x4> {
        let a: &[f32; GROUP] = v.get(i..i + GROUP)?.try_into().ok()?;
        Some(f32x4::new(*a))
    };
    let (px, py) = (f32x4::splat(c.at.x), f32x4::splat(c.at.y));
    let (r2, sep_r2, min_d2) = (
        f32x4::splat(c.r2),
        f32x4::splat(sep_r2),
        f32x4::splat(min_d2),
    );
    let me = u32x4::splat(c.row);
    let lane = i32x4::new([0, 1, 2, 3]);
    let zero = f32x4::ZERO;
    let mut count = i32x4::ZERO;
    let (mut push_x, mut push_y, mut head_x, mut head_y) = (zero, zero, zero, zero);
    let (mut pos_x, mut pos_y, mut close) = (zero, zero, zero);
    for (s, e) in c.spans {
        let mut i = s;
        while i < e {
            let (Some(gx), Some(gy), Some(gux), Some(guy), Some(gi)) = (
                quad(c.xs, i),
                quad(c.ys, i),
                quad(c.unit_xs, i),
                quad(c.unit_ys, i),
                c.ids
                    .get(i..i + GROUP)
                    .and_then(|a| <[u32; GROUP]>::try_from(a).ok()),
            ) else {
                return None;
            };
            // `dist2`, as the scan computes it.
            let (dx, dy) = (gx - px, gy - py);
            let d2 = dx * dx + dy * dy;
            // Within the radius, not the row itself, not past the span's end.
            let tail = lane.simd_lt(i32x4::splat((e - i).min(GROUP) as i32));
            let other = !u32x4::new(gi).simd_eq(me);
            let hit = d2.simd_le(r2) & cast::<u32x4, f32x4>(other) & cast::<i32x4, f32x4>(tail);
            count -= cast::<f32x4, i32x4>(hit);
            pos_x += gx & hit;
            pos_y += gy & hit;
            head_x += gux & hit;
            head_y += guy & hit;
            let sep = hit & d2.simd_le(sep_r2);
            close |= sep & d2.simd_lt(min_d2);
            // `away * (1 / |away|²)`, with `away = p - q`.
            let inv = f32x4::ONE / d2;
            push_x += ((px - gx) * inv) & sep;
            push_y += ((py - gy) * inv) & sep;
            i += GROUP;
        }
    }
    let count = count.to_array().iter().map(|&c| c as usize).sum::<usize>();
    if close.any() || count > c.cap {
        return None;
    }
    let sum = |v: f32x4| {
        let a = v.to_array();
        (a[0] + a[1]) + (a[2] + a[3])
    };
    Some(FlockSums {
        count,
        push: Vec2::new(sum(push_x), sum(push_y)),
        headings: Vec2::new(sum(head_x), sum(head_y)),
        positions: Vec2::new(sum(pos_x), sum(pos_y)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::{BatchNeighbours, IndexKind, NeighbourQuery, SpatialIndex};

    fn n(x: f32, y: f32, slot: u32) -> Neighbour {
        Neighbour::new(Vec2::new(x, y), Vec2::ZERO, slot)
    }

    #[test]
    fn separation_average_is_seed_002_formula() {
        // Neighbours at (2,0) and (0,2): mean offset (1,1), negated and normalised
        // (-0.7071,-0.7071), times MAX_SEPARATION 2.
        let me = AgentState::default();
        let p = SeparationParams {
            kind: SeparationKind::Average,
            ..SeparationParams::default()
        };
        let f = separation(&me, 0, &[n(2.0, 0.0, 1), n(0.0, 2.0, 2)], &p);
        let e = Vec2::new(-1.0, -1.0).normalize() * 2.0;
        assert!((f - e).length() < 1e-6);
    }

    #[test]
    fn separation_inverse_distance_hand_worked() {
        // Neighbours at (2,0) and (0,-4): (-1,0)/2 + (0,1)/4 = (-0.5, 0.25), strength 2.
        let me = AgentState::default();
        let p = SeparationParams::default();
        let f = separation(&me, 0, &[n(2.0, 0.0, 1), n(0.0, -4.0, 2)], &p);
        assert!((f - Vec2::new(-1.0, 0.5)).length() < 1e-6);
        // Radius filter drops the far one.
        let p = SeparationParams { radius: 3.0, ..p };
        let f = separation(&me, 0, &[n(2.0, 0.0, 1), n(0.0, -4.0, 2)], &p);
        assert!((f - Vec2::new(-1.0, 0.0)).length() < 1e-6);
    }

    #[test]
    fn coincident_agents_split_in_opposite_directions() {
        let me = AgentState::default();
        for kind in [SeparationKind::Average, SeparationKind::InverseDistance] {
            let p = SeparationParams {
                kind,
                ..SeparationParams::default()
            };
            let a = separation(&me, 3, &[n(0.0, 0.0, 7)], &p);
            let b = separation(&me, 7, &[n(0.0, 0.0, 3)], &p);
            assert!(a.is_finite() && b.is_finite());
            assert!(a.length() > 0.0);
            assert!((a + b).length() < 1e-3 * a.length());
        }
    }

    #[test]
    fn flock_forces_equal_the_three_behaviours_bitwise() {
        let me = AgentState {
            pos: Vec2::new(0.3, -0.2),
            vel: Vec2::new(0.7, 1.1),
            max_speed: 2.0,
            ..AgentState::default()
        };
        let mut state = 7u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
        };
        let mut ns: Vec<Neighbour> = (0..12)
            .map(|k| Neighbour::new(Vec2::new(next(), next()), Vec2::new(next(), next()), k))
            .collect();
        // Coincident, nearly coincident and still neighbours.
        ns[3].pos = me.pos;
        ns[4].pos = me.pos + Vec2::new(1e-4, 0.0);
        ns[5] = Neighbour::new(ns[5].pos, Vec2::ZERO, ns[5].slot);
        for len in [0, 1, 5, 12] {
            for kind in [SeparationKind::InverseDistance, SeparationKind::Average] {
                for radius in [f32::INFINITY, 1.0] {
                    let p = SeparationParams {
                        kind,
                        radius,
                        ..SeparationParams::default()
                    };
                    let ns = &ns[..len];
                    let f = flock_forces(&me, 99, ns, &p);
                    assert_eq!(f.separation, separation(&me, 99, ns, &p));
                    assert_eq!(f.alignment, alignment(&me, ns));
                    assert_eq!(f.cohesion, cohesion(&me, ns));
                }
            }
        }
    }

    #[test]
    fn cohesion_and_alignment_hand_worked() {
        let me = AgentState {
            vel: Vec2::new(1.0, 0.0),
            max_speed: 2.0,
            ..AgentState::default()
        };
        // Centre (2,2): seek = (2,2)/|..|*2 - (1,0).
        let f = cohesion(&me, &[n(4.0, 0.0, 1), n(0.0, 4.0, 2)]);
        let e = Vec2::new(1.0, 1.0).normalize() * 2.0 - Vec2::X;
        assert!((f - e).length() < 1e-6);
        // Neighbours heading +y and -x: mean direction (-0.7071, 0.7071), times max
        // speed 2 = (-1.4142, 1.4142), minus velocity (1,0) = (-2.4142, 1.4142).
        let a = Neighbour::new(Vec2::ZERO, Vec2::new(0.0, 3.0), 1);
        let b = Neighbour::new(Vec2::ZERO, Vec2::new(-1.0, 0.0), 2);
        let f = alignment(&me, &[a, b]);
        let s2 = std::f32::consts::SQRT_2;
        assert!((f - Vec2::new(-s2 - 1.0, s2)).length() < 1e-5);
        assert_eq!(alignment(&me, &[]), Vec2::ZERO);
        assert_eq!(cohesion(&me, &[]), Vec2::ZERO);
    }

    /// [`candidate_sums_x4`] (and its refusals) on an index's candidates: `None` when
    /// the index offers none or the pass declines.
    fn sums(
        batch: &BatchNeighbours,
        index: &SpatialIndex,
        pos: &[Vec2],
        row: usize,
        q: &NeighbourQuery,
        sep: (f32, f32),
    ) -> Option<FlockSums> {
        batch
            .candidates(index, pos, row, q)
            .and_then(|c| candidate_sums_x4(&c, sep))
    }

    #[test]
    fn candidate_sums_hand_worked() {
        // Row 0 at the origin; neighbours at (1, 0) heading +y and (0, -2) heading +x;
        // one at (5, 5), beyond the radius 3. Separation radius 1.5: only (1, 0)
        // pushes, by away / |away|² = (-1, 0) / 1.
        let pos = [
            Vec2::ZERO,
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, -2.0),
            Vec2::new(5.0, 5.0),
        ];
        let unit_vels = [Vec2::X, Vec2::Y, Vec2::X, Vec2::Y];
        let mut index = SpatialIndex::new(IndexKind::Grid);
        index.rebuild(&pos, Some(&unit_vels), 3.0);
        let q = NeighbourQuery::within(&index, 3.0).at_most(8);
        let batch = BatchNeighbours::new();
        let sep = (1.5 * 1.5, 1e-6);
        let s = sums(&batch, &index, &pos, 0, &q, sep).unwrap();
        assert_eq!(s.count, 2);
        assert_eq!(s.push, Vec2::new(-1.0, 0.0));
        assert_eq!(s.headings, Vec2::new(1.0, 1.0));
        assert_eq!(s.positions, Vec2::new(1.0, -2.0));
        // Row 3 has no neighbour.
        assert_eq!(
            sums(&batch, &index, &pos, 3, &q, sep),
            Some(FlockSums::default())
        );

        // Where it does not apply: more neighbours than the cap (or a cap of zero), a
        // pushing neighbour closer than the least distance, a grid without the unit
        // velocities.
        for cap in [0, 1] {
            let q = q.at_most(cap);
            assert!(sums(&batch, &index, &pos, 0, &q, sep).is_none());
        }
        assert!(sums(&batch, &index, &pos, 0, &q, (2.25, 1.5)).is_none());
        assert!(sums(&batch, &index, &pos, 0, &q, (0.5, 1.5)).is_some());
        index.rebuild(&pos, None, 3.0);
        assert!(sums(&batch, &index, &pos, 0, &q, sep).is_none());

        // A tree: the chunk candidates, once gathered with the unit velocities, give
        // the same sums; not before, nor when gathered without them.
        let mut tree = SpatialIndex::new(IndexKind::KdTree);
        tree.rebuild(&pos, Some(&unit_vels), 3.0);
        let q = NeighbourQuery::within(&tree, 3.0).at_most(8);
        let mut batch = BatchNeighbours::new();
        assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
        batch.gather(&tree, &pos, 0..4, 3.0, None);
        assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
        batch.gather(&tree, &pos, 0..4, 3.0, Some(&unit_vels));
        let s = sums(&batch, &tree, &pos, 0, &q, sep).unwrap();
        assert_eq!(s.count, 2);
        assert_eq!(s.push, Vec2::new(-1.0, 0.0));
        assert_eq!(s.headings, Vec2::new(1.0, 1.0));
        assert_eq!(s.positions, Vec2::new(1.0, -2.0));
        // A row outside the gathered chunk, or a radius beyond the gathered one.
        batch.gather(&tree, &pos, 1..4, 3.0, Some(&unit_vels));
        assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
        batch.gather(&tree, &pos, 0..4, 2.0, Some(&unit_vels));
        assert!(sums(&batch, &tree, &pos, 0, &q, sep).is_none());
    }

    /// [`candidate_sums_x4`]'s sums by their definition over the same candidates: the
    /// neighbours among them in span order, each added to lane `(entry - span start) %
    /// 4` of its span, lanes added as `(0 + 1) + (2 + 3)`.
    fn sums_by_lanes(c: &crate::spatial::Candidates<'_>, sep_r2: f32) -> FlockSums {
        let mut lanes = [[0.0f32; 6]; 4];
        let mut count = 0;
        for (s, e) in c.spans {
            for i in s..e {
                let q = Vec2::new(c.xs[i], c.ys[i]);
                if c.ids[i] == c.row || crate::spatial::dist2(c.at.x, c.at.y, q.x, q.y) > c.r2 {
                    continue;
                }
                count += 1;
                let l = &mut lanes[(i - s) % 4];
                let away = c.at - q;
                let d_sq = away.length_squared();
                if d_sq <= sep_r2 {
                    l[0] += away.x * (1.0 / d_sq);
                    l[1] += away.y * (1.0 / d_sq);
                }
                l[2] += c.unit_xs[i];
                l[3] += c.unit_ys[i];
                l[4] += q.x;
                l[5] += q.y;
            }
        }
        let sum = |k: usize| (lanes[0][k] + lanes[1][k]) + (lanes[2][k] + lanes[3][k]);
        FlockSums {
            count,
            push: Vec2::new(sum(0), sum(1)),
            headings: Vec2::new(sum(2), sum(3)),
            positions: Vec2::new(sum(4), sum(5)),
        }
    }

    /// For each row of a crowd with duplicates (which make the pass decline) at about
    /// 3 per unit area, on `kind`'s candidates: either sums bitwise the lane rule over
    /// the same candidates and close to the plain sums of the scan's neighbours
    /// ([`FlockSums::over`] in scan order); or `None`, only for an over-full row or one
    /// with a neighbour within the least distance. Returns how many rows were summed
    /// and how many declined.
    fn check_candidate_sums(kind: IndexKind) -> (usize, usize) {
        use crate::rng::{agent_rng, uniform};
        use crate::spatial::{spatial_order, OrderScratch};
        let mut rng = agent_rng(11, 11);
        let side = (3000.0f32 / 3.0).sqrt();
        let mut cloud: Vec<Vec2> = Vec::new();
        for i in 0..3000usize {
            if i > 0 && i % 8 == 0 {
                cloud.push(cloud[i / 2]);
            } else {
                cloud.push(Vec2::new(
                    uniform(&mut rng, 0.0, side),
                    uniform(&mut rng, 0.0, side),
                ));
            }
        }
        let mut perm = Vec::new();
        spatial_order(&cloud, &mut perm, &mut OrderScratch::new());
        let pos: Vec<Vec2> = perm.iter().map(|&r| cloud[r as usize]).collect();
        let unit_vels: Vec<Vec2> = (0..pos.len())
            .map(|_| Vec2::from_angle(uniform(&mut rng, 0.0, std::f32::consts::TAU)))
            .collect();
        let mut index = SpatialIndex::new(kind);
        let (r, cap, sep_r, min_d) = (1.0f32, 16, 0.7f32, 0.05f32);
        index.rebuild(&pos, Some(&unit_vels), r);
        let q = NeighbourQuery::within(&index, r).at_most(cap);
        let all = NeighbourQuery::within(&index, r);
        let params = SeparationParams {
            radius: sep_r,
            ..SeparationParams::default()
        };
        let (mut batch, mut scan) = (BatchNeighbours::new(), BatchNeighbours::new());
        let (mut some, mut declined) = (0, 0);
        for chunk in (0..pos.len()).step_by(128) {
            let rows = chunk..(chunk + 128).min(pos.len());
            batch.gather(&index, &pos, rows.clone(), r, Some(&unit_vels));
            scan.gather(&index, &pos, rows.clone(), r, None);
            for row in rows {
                let hits = scan.scan(&index, &pos, row, &all).to_vec();
                let p = pos[row];
                let close = hits.iter().any(|&h| {
                    let d2 = (p - pos[h as usize]).length_squared();
                    d2 <= sep_r * sep_r && d2 < min_d * min_d
                });
                let c = batch.candidates(&index, &pos, row, &q).unwrap();
                let Some(s) = candidate_sums_x4(&c, (sep_r * sep_r, min_d * min_d)) else {
                    assert!(hits.len() > cap || close, "{kind:?} row {row}");
                    declined += 1;
                    continue;
                };
                assert!(hits.len() <= cap && !close, "{kind:?} row {row}");
                assert_eq!(s, sums_by_lanes(&c, sep_r * sep_r), "{kind:?} row {row}");
                let get = |i: usize| (pos[hits[i] as usize], unit_vels[hits[i] as usize]);
                let plain = FlockSums::over(p, 0, hits.len(), get, |_| 1, &params);
                assert_eq!(s.count, plain.count);
                let near = |a: Vec2, b: Vec2| (a - b).length() <= 1e-4 * (1.0 + b.length());
                assert!(near(s.push, plain.push), "{kind:?} row {row}");
                assert!(near(s.headings, plain.headings) && near(s.positions, plain.positions));
                some += 1;
            }
        }
        (some, declined)
    }

    #[test]
    fn candidate_sums_are_the_scans_neighbours_summed_in_lanes() {
        for kind in [IndexKind::KdTree, IndexKind::Grid] {
            let (some, declined) = check_candidate_sums(kind);
            assert!(
                some > 1500 && declined > 100,
                "{kind:?}: {some} summed, {declined} declined"
            );
        }
    }

    #[test]
    fn forces_x4_equal_the_scalar_forces_bitwise() {
        use crate::math::x4::LANES;
        use crate::rng::{agent_rng, uniform};
        let mut rng = agent_rng(2, 3);
        let p = SeparationParams::default();
        for case in 0..10_000 {
            let mut u = |lo: f32, hi: f32| uniform(&mut rng, lo, hi);
            let me: [AgentState; LANES] = std::array::from_fn(|_| AgentState {
                pos: Vec2::new(u(-20.0, 20.0), u(-20.0, 20.0)),
                vel: Vec2::new(u(-2.0, 2.0), u(-2.0, 2.0)),
                max_speed: u(0.5, 3.0),
                ..AgentState::default()
            });
            // Neighbours' headings that cancel in some lanes; every lane has neighbours.
            let sums: [FlockSums; LANES] = std::array::from_fn(|k| FlockSums {
                count: 1 + (case + k) % 9,
                push: Vec2::new(u(-5.0, 5.0), u(-5.0, 5.0)),
                headings: if (case + k) % 6 == 0 {
                    Vec2::ZERO
                } else {
                    Vec2::new(u(-4.0, 4.0), u(-4.0, 4.0))
                },
                positions: Vec2::new(u(-100.0, 100.0), u(-100.0, 100.0)),
            });
            let mut four = FlockSums4::default();
            for (k, s) in sums.iter().enumerate() {
                four.set(k, s);
            }
            let lanes = (
                Vec2x4::load(&me.map(|m| m.pos)),
                Vec2x4::load(&me.map(|m| m.vel)),
                f32x4::new(me.map(|m| m.max_speed)),
            );
            let (sep, ali, coh) = forces_x4(lanes, &four, p.strength);
            let (sep, ali, coh) = (sep.store(), ali.store(), coh.store());
            let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
            for k in 0..LANES {
                let want = sums[k].forces(&me[k], FlockTerms::All(p));
                assert_eq!(bits(sep[k]), bits(want.separation), "case {case} lane {k}");
                assert_eq!(bits(ali[k]), bits(want.alignment), "case {case} lane {k}");
                assert_eq!(bits(coh[k]), bits(want.cohesion), "case {case} lane {k}");
            }
        }
    }
}
