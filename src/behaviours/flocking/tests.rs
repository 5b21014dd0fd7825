//! Tests of [`super`]: each formula on a hand-worked case, outcomes in small scenes.

use super::*;

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

#[test]
fn forces_x4_equal_the_scalar_forces_bitwise() {
    use crate::behaviours::testing::four_agents;
    use crate::math::x4::LANES;
    use crate::rng::{agent_rng, uniform};
    let mut rng = agent_rng(2, 3);
    let p = SeparationParams::default();
    for case in 0..10_000 {
        let (me, lanes) = four_agents(&mut rng, 20.0, 2.0, (0.5, 3.0));
        let mut u = |lo: f32, hi: f32| uniform(&mut rng, lo, hi);
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
        let four = FlockSums4::from(sums);
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
