//! Group behaviours: separation (two formulas), cohesion and alignment.
//!
//! The neighbours come from the caller (the spatial index); an agent is never its
//! own neighbour.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::targeting::seek;
use super::AgentState;
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
    pub dir: Vec2,
    /// A stable key of the neighbour (its handle's slot), used to break the tie
    /// between coincident agents deterministically.
    pub key: u32,
}

impl Neighbour {
    /// A neighbour at `pos` moving at `vel` (its unit velocity derived).
    #[must_use]
    pub fn new(pos: Vec2, vel: Vec2, key: u32) -> Self {
        Self {
            pos,
            vel,
            dir: normalize_or_zero(vel),
            key,
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

/// A unit direction to push `my_key` away from a coincident `other_key`: the same
/// line for both agents of the pair, opposite senses, so they split apart. Zero
/// when the keys are equal.
#[must_use]
pub fn coincident_push(my_key: u32, other_key: u32) -> Vec2 {
    if my_key == other_key {
        return Vec2::ZERO;
    }
    let (lo, hi) = (my_key.min(other_key) as u64, my_key.max(other_key) as u64);
    let h = crate::rng::mix_seed(lo, hi);
    let angle = (h >> 40) as f32 * (std::f32::consts::TAU / (1u64 << 24) as f32);
    let dir = heading_to_vec(angle);
    if my_key < other_key {
        dir
    } else {
        -dir
    }
}

/// Separation from `neighbours`. `my_key` is this agent's stable key.
#[must_use]
pub fn separation(
    me: &AgentState,
    my_key: u32,
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
                    coincident += coincident_push(my_key, n.key);
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
        SeparationKind::InverseDistance => separation_sum(
            me,
            my_key,
            neighbours.len(),
            |i| neighbours[i].pos,
            |i| neighbours[i].key,
            params,
        ),
    }
}

/// The inverse-distance case of [`separation`] over `count` neighbours given by
/// accessors (`pos(i)`, and `key(i)`, read only for coincident agents): `separation`
/// reads its records through them, and the world its columns ([`separation_push`],
/// then the strength), so both give bitwise the same force for the same neighbours in
/// the same order.
#[inline(always)]
pub(crate) fn separation_sum(
    me: &AgentState,
    my_key: u32,
    count: usize,
    pos: impl Fn(usize) -> Vec2,
    key: impl Fn(usize) -> u32,
    params: &SeparationParams,
) -> Vec2 {
    separation_push(me.pos, my_key, count, pos, key, params) * params.strength
}

/// [`separation_sum`] before the strength: the sum of the pushes of the neighbours
/// within the separation radius of an agent at `at`.
#[inline(always)]
pub(crate) fn separation_push(
    at: Vec2,
    my_key: u32,
    count: usize,
    pos: impl Fn(usize) -> Vec2,
    key: impl Fn(usize) -> u32,
    params: &SeparationParams,
) -> Vec2 {
    let r_sq = params.radius * params.radius;
    let mut sum = Vec2::ZERO;
    for i in 0..count {
        let away = at - pos(i);
        let d_sq = away.length_squared();
        if d_sq > r_sq {
            continue;
        }
        sum += inverse_distance_push(away, d_sq, my_key, || key(i));
    }
    sum
}

/// One neighbour's inverse-distance separation term `normalize(away) / |away|`
/// (`away = me - other`, `d_sq = |away|²`), with the distance floored at
/// [`MIN_SEPARATION_DIST`] and coincident agents pushed apart by [`coincident_push`]
/// (`other_key` gives the other's key, asked only then). Beyond the floor this is
/// `away / d_sq`: no square root, one division.
#[inline]
fn inverse_distance_push(
    away: Vec2,
    d_sq: f32,
    my_key: u32,
    other_key: impl FnOnce() -> u32,
) -> Vec2 {
    if d_sq >= MIN_SEPARATION_DIST * MIN_SEPARATION_DIST {
        return away * (1.0 / d_sq);
    }
    let d = d_sq.sqrt();
    let dir = if d > COINCIDENT {
        away / d
    } else {
        coincident_push(my_key, other_key())
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
    my_key: u32,
    neighbours: &[Neighbour],
    params: &SeparationParams,
) -> FlockForces {
    if neighbours.is_empty() {
        return FlockForces::default();
    }
    if params.kind != SeparationKind::InverseDistance {
        return FlockForces {
            separation: separation(me, my_key, neighbours, params),
            alignment: alignment(me, neighbours),
            cohesion: cohesion(me, neighbours),
        };
    }
    flock_sums(
        me,
        my_key,
        neighbours.len(),
        |i| (neighbours[i].pos, neighbours[i].dir),
        |i| neighbours[i].key,
        params,
    )
}

/// The inverse-distance case of [`flock_forces`] over `count` neighbours given by
/// accessors: `get(i)` is the `i`-th neighbour's position and unit velocity, `key(i)`
/// its key (read only for coincident agents). [`flock_forces`] reads its slice through
/// them, and the world its columns ([`flock_sums_raw`], then [`flock_from_sums`]); the
/// sums are accumulated in neighbour order, so both give bitwise the same forces.
#[inline(always)]
pub(crate) fn flock_sums(
    me: &AgentState,
    my_key: u32,
    count: usize,
    get: impl Fn(usize) -> (Vec2, Vec2),
    key: impl Fn(usize) -> u32,
    params: &SeparationParams,
) -> FlockForces {
    if count == 0 {
        return FlockForces::default();
    }
    let sums = flock_sums_raw(me.pos, my_key, count, get, key, params);
    flock_from_sums(me, count, sums, params)
}

/// The sums [`flock_sums`] makes its forces of, for an agent at `at`: the
/// inverse-distance pushes of the neighbours within the separation radius, and the unit
/// velocities and positions of all, each accumulated in neighbour order.
#[inline(always)]
pub(crate) fn flock_sums_raw(
    at: Vec2,
    my_key: u32,
    count: usize,
    get: impl Fn(usize) -> (Vec2, Vec2),
    key: impl Fn(usize) -> u32,
    params: &SeparationParams,
) -> (Vec2, Vec2, Vec2) {
    let r_sq = params.radius * params.radius;
    let mut push = Vec2::ZERO;
    let mut headings = Vec2::ZERO;
    let mut positions = Vec2::ZERO;
    for i in 0..count {
        let (pos, dir) = get(i);
        let away = at - pos;
        let d_sq = away.length_squared();
        if d_sq <= r_sq {
            push += inverse_distance_push(away, d_sq, my_key, || key(i));
        }
        headings += dir;
        positions += pos;
    }
    (push, headings, positions)
}

/// The three forces from the sums over `count` neighbours (none: zero forces): the
/// inverse-distance pushes of those within the separation radius, and the unit
/// velocities and positions of all.
#[inline(always)]
pub(crate) fn flock_from_sums(
    me: &AgentState,
    count: usize,
    (push, headings, positions): (Vec2, Vec2, Vec2),
    params: &SeparationParams,
) -> FlockForces {
    if count == 0 {
        return FlockForces::default();
    }
    let dir = normalize_or_zero(headings);
    FlockForces {
        separation: push * params.strength,
        alignment: if dir == Vec2::ZERO {
            Vec2::ZERO
        } else {
            dir * me.max_speed - me.vel
        },
        cohesion: seek(me, positions / count as f32),
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
    let mean: Vec2 = neighbours.iter().map(|n| n.dir).sum();
    let dir = normalize_or_zero(mean);
    if dir == Vec2::ZERO {
        return Vec2::ZERO;
    }
    dir * me.max_speed - me.vel
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(x: f32, y: f32, key: u32) -> Neighbour {
        Neighbour::new(Vec2::new(x, y), Vec2::ZERO, key)
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
        ns[5] = Neighbour::new(ns[5].pos, Vec2::ZERO, ns[5].key);
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
}
