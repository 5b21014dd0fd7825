//! Tests that compare the pipeline's routes with each other: the four-agent kernel
//! with the per-agent one, and the neighbour sums with the record path.

use glam::Vec2;

use super::*;
use crate::behaviours::flocking::{SeparationParams, MIN_SEPARATION_DIST};
use crate::behaviours::wander::WanderParams;
use crate::group::WeightedBehaviour;
use crate::rng::uniform;
use crate::spatial::{BatchNeighbours, NeighbourQuery, CHUNK_ROWS};
use crate::steer::candidate_sums_x4;
use crate::steer::plan::{Kernel, NeighbourRoute};
use crate::{AgentId, AgentSpec, Behaviour, Target};

/// A dense crowd whose group's neighbours are only read as sums (without records)
/// and, when `records`, the same crowd made to build neighbour records and compute
/// its forces on them.
fn crowd(records: bool, index: IndexKind, flocking: bool) -> World {
    let mut w = World::new(WorldConfig {
        seed: 7,
        index,
        ..WorldConfig::default()
    });
    let mut group = GroupConfig::new("boids")
        .with(Behaviour::Separation(SeparationParams::default()), 1.5)
        .with(Behaviour::Wander(WanderParams::default()), 0.3)
        .neighbours(3.0, 6);
    if flocking {
        group = group
            .with(Behaviour::Alignment, 0.5)
            .with(Behaviour::Cohesion, 0.5);
    }
    let g = w.add_group(group).unwrap();
    for i in 0..600 {
        // Some coincident pairs, so the slot of a neighbour is read too.
        let k = (i / 2) as f32;
        let p = Vec2::new((k * 0.37) % 14.0, (k * 0.61) % 11.0);
        w.spawn(AgentSpec::new(g, p)).unwrap();
    }
    assert!(!matches!(w.plans[0].route, NeighbourRoute::Records(_)));
    assert_eq!(w.plans[0].route.candidates_carry_unit_vels(), flocking);
    if records {
        w.plans[0] = w.plans[0].with_records();
    }
    w
}

/// Gives each agent of `w` (the `i`-th, standing `here`) the target `target(i, ids,
/// here)`, sets every `moving`-th one moving at (0.3, -0.2) (the others still: their
/// forward from the heading) and leaves every `spent`-th no force to spare.
fn vary_agents(
    w: &mut World,
    target: impl Fn(usize, &[AgentId], Vec2) -> Target,
    (moving, spent): (usize, usize),
) {
    let ids = w.ids().to_vec();
    for (i, &id) in ids.iter().enumerate() {
        w.set_target(id, target(i, &ids, w.position(id).unwrap()))
            .unwrap();
        if i % moving == 0 {
            w.set_velocity(id, Vec2::new(0.3, -0.2)).unwrap();
        }
        if i % spent == 0 {
            w.set_limits(id, 1.0, 2.0, 0.0).unwrap();
        }
    }
}

#[test]
fn four_agent_kernel_equals_the_per_agent_one() {
    // The crowd of `crowd` plus a seek with every kind of target (a point, another
    // agent, the agent's own spot, none), some agents still at first (forward from
    // the heading), some with no force to spare: four rows at a time through the
    // lane program, and one at a time through the dispatch, give the same states.
    let build = |index, flocking, four: bool| {
        let mut w = crowd(false, index, flocking);
        let mut g = w.groups[0].clone();
        g.behaviours.push(WeightedBehaviour {
            behaviour: Behaviour::Seek,
            weight: 0.7,
            probability: 1.0,
        });
        w.set_group(w.group_id(0), g).unwrap();
        let target = |i: usize, ids: &[AgentId], here: Vec2| match i % 5 {
            0 => Target::Point(Vec2::new(7.0, 5.0)),
            1 => Target::Agent(ids[(i * 7) % ids.len()]),
            2 => Target::Point(here),
            _ => Target::None,
        };
        vary_agents(&mut w, target, (3, 11));
        assert!(matches!(w.plans[0].kernel, Kernel::Four(_)));
        if !four {
            w.plans[0].kernel = Kernel::PerAgent;
        }
        w
    };
    for index in [IndexKind::KdTree, IndexKind::Grid] {
        for flocking in [true, false] {
            let mut a = build(index, flocking, true);
            let mut b = build(index, flocking, false);
            for _ in 0..40 {
                a.step(0.05).unwrap();
                b.step(0.05).unwrap();
                assert_eq!(a.state_hash(), b.state_hash(), "{index:?} {flocking}");
            }
        }
    }
}

#[test]
fn four_agent_kernel_follows_fields_as_the_per_agent_one() {
    // A walled room with a pillar, a goal field to a box at its east side, and two
    // groups of lane programs with terms of the agents' own: field following,
    // separation, wall and obstacle avoidance; and field following (slowing into
    // the goal) with containment, wander and seek. Some agents have targets of
    // their own (a point, another agent), some start in the goal, some still (their
    // forward from the heading), some with no force to spare: four rows at a time
    // and one at a time give the same states.
    use crate::behaviours::containment::{ContainmentParams, Region};
    use crate::behaviours::field::FollowFieldParams;
    use crate::scene::{FieldSpec, Goal, Obstacle, Wall};
    let build = |four: bool| {
        let mut w = seeded(3, IndexKind::Grid);
        let wall = |a: (f32, f32), b: (f32, f32)| {
            Wall::new(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1)).unwrap()
        };
        w.set_walls(&[
            wall((0.0, 0.0), (20.0, 0.0)),
            wall((20.0, 0.0), (20.0, 14.0)),
            wall((20.0, 14.0), (0.0, 14.0)),
            wall((0.0, 14.0), (0.0, 0.0)),
            // A partition with a door from y = 6 to 8.
            wall((10.0, 0.0), (10.0, 6.0)),
            wall((10.0, 8.0), (10.0, 14.0)),
        ])
        .unwrap();
        w.set_obstacles(&[Obstacle::new(Vec2::new(5.0, 7.0), 1.0).unwrap()])
            .unwrap();
        let spec = FieldSpec::new(
            vec![Goal::Box(Vec2::new(17.0, 5.0), Vec2::new(19.5, 9.0))],
            0.3,
        )
        .with_bounds(Vec2::ZERO, Vec2::new(20.0, 14.0));
        let field = w.add_goal_field(spec).unwrap();
        let follow = |slowing_radius| Behaviour::FollowField {
            field,
            params: FollowFieldParams { slowing_radius },
        };
        let a = w
            .add_group(
                GroupConfig::new("walkers")
                    .with(follow(0.0), 1.0)
                    .with(Behaviour::Separation(SeparationParams::default()), 1.5)
                    .with(Behaviour::WallAvoidance(Default::default()), 2.0)
                    .with(Behaviour::ObstacleAvoidance(Default::default()), 1.0)
                    .neighbours(1.5, 6),
            )
            .unwrap();
        let contained = ContainmentParams {
            region: Region::Box {
                min: Vec2::new(0.5, 0.5),
                max: Vec2::new(19.5, 13.5),
            },
            lookahead: 1.0,
        };
        let b = w
            .add_group(
                GroupConfig::new("strollers")
                    .with(Behaviour::Wander(WanderParams::default()), 0.3)
                    .with(follow(2.0), 1.0)
                    .with(Behaviour::Containment(contained), 0.8)
                    .with(Behaviour::Seek, 0.2),
            )
            .unwrap();
        for i in 0..400 {
            let k = i as f32;
            let p = Vec2::new(0.6 + (k * 0.73) % 18.8, 0.6 + (k * 0.41) % 12.8);
            w.spawn(AgentSpec::new(if i % 3 == 0 { b } else { a }, p))
                .unwrap();
        }
        let target = |i: usize, ids: &[AgentId], _: Vec2| match i % 7 {
            0 => Target::Point(Vec2::new(18.0, 7.0)),
            1 => Target::Agent(ids[(i * 11) % ids.len()]),
            _ => Target::None,
        };
        vary_agents(&mut w, target, (4, 13));
        for plan in &mut w.plans {
            assert!(matches!(&plan.kernel, Kernel::Four(p) if p.owns()));
            if !four {
                plan.kernel = Kernel::PerAgent;
            }
        }
        w
    };
    let (mut a, mut b) = (build(true), build(false));
    let east = |w: &World| w.positions().iter().filter(|p| p.x > 10.0).count();
    let before = east(&a);
    for _ in 0..60 {
        a.step(0.05).unwrap();
        b.step(0.05).unwrap();
        assert_eq!(a.state_hash(), b.state_hash());
    }
    // The field leads them through the door.
    assert!(east(&a) > before + 20, "{before} -> {}", east(&a));
}

#[test]
fn four_agent_kernel_in_open_ground_skips_the_feelers_as_the_per_agent_one() {
    // A walled square of 120 m with short walls about it and a goal field to its
    // middle: most walkers stand in open ground, where four at a time are told their
    // feelers meet no wall (`lanes::own_ahead`), the rest near a wall. Four rows at a
    // time and one at a time give the same states.
    use crate::math::x4::Vec2x4;
    use crate::scene::{FieldSpec, Goal, Wall};
    let build = |four: bool| {
        let mut w = seeded(5, IndexKind::Grid);
        let wall = |a: (f32, f32), b: (f32, f32)| {
            Wall::new(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1)).unwrap()
        };
        // The square, and a short wall in each of its 5 x 5 blocks.
        let mut walls = vec![
            wall((0.0, 0.0), (120.0, 0.0)),
            wall((120.0, 0.0), (120.0, 120.0)),
            wall((120.0, 120.0), (0.0, 120.0)),
            wall((0.0, 120.0), (0.0, 0.0)),
        ];
        for i in 0..25 {
            let (x, y) = (12.0 + 24.0 * (i % 5) as f32, 12.0 + 24.0 * (i / 5) as f32);
            walls.push(wall((x - 2.0, y), (x + 2.0, y)));
        }
        w.set_walls(&walls).unwrap();
        let spec = FieldSpec::new(
            vec![Goal::Box(Vec2::new(58.0, 58.0), Vec2::new(62.0, 62.0))],
            1.0,
        )
        .with_bounds(Vec2::ZERO, Vec2::splat(120.0));
        let field = w.add_goal_field(spec).unwrap();
        let g = w
            .add_group(
                GroupConfig::new("walkers")
                    .with(
                        Behaviour::FollowField {
                            field,
                            params: Default::default(),
                        },
                        1.0,
                    )
                    .with(Behaviour::Separation(SeparationParams::default()), 1.5)
                    .with(Behaviour::WallAvoidance(Default::default()), 2.0)
                    .neighbours(1.5, 6),
            )
            .unwrap();
        for i in 0..800 {
            let k = i as f32;
            let p = Vec2::new(0.6 + (k * 7.3) % 118.8, 0.6 + (k * 4.1) % 118.8);
            w.spawn(AgentSpec::new(g, p)).unwrap();
        }
        vary_agents(&mut w, |_, _, _| Target::None, (3, 11));
        if !four {
            w.plans[0].kernel = Kernel::PerAgent;
        }
        w
    };
    let (mut a, mut b) = (build(true), build(false));
    // Open ground, told four at a time, and walls near.
    let feelers = crate::behaviours::walls::WallAvoidanceParams::default().feeler_length;
    let open = a
        .positions()
        .chunks_exact(4)
        .flat_map(|p| {
            a.walls
                .open_x4(Vec2x4::load(p.try_into().unwrap()), feelers)
        })
        .filter(|&open| open)
        .count();
    assert!(open > 400 && open < 780, "{open} of 800 in open ground");
    for _ in 0..30 {
        a.step(0.05).unwrap();
        b.step(0.05).unwrap();
        assert_eq!(a.state_hash(), b.state_hash());
    }
}

#[test]
fn column_sums_equal_the_record_path() {
    for index in [IndexKind::KdTree, IndexKind::Grid] {
        for flocking in [true, false] {
            let mut a = crowd(false, index, flocking);
            let mut b = crowd(true, index, flocking);
            for _ in 0..40 {
                let sa = a.step(0.05).unwrap();
                let sb = b.step(0.05).unwrap();
                assert_eq!(sa.neighbours, sb.neighbours);
                assert!(sa.neighbours > 0);
                assert_eq!(a.state_hash(), b.state_hash(), "{index:?} {flocking}");
            }
        }
    }
}

/// An empty world with seed `seed` on `index`.
fn seeded(seed: u64, index: IndexKind) -> World {
    World::new(WorldConfig {
        seed,
        index,
        ..WorldConfig::default()
    })
}

/// A group with the three flocking behaviours (separation 1.5, alignment and cohesion
/// 0.5), whose sums come from the candidates unless it avoids.
fn flocking() -> GroupConfig {
    GroupConfig::new("boids")
        .with(Behaviour::Separation(SeparationParams::default()), 1.5)
        .with(Behaviour::Alignment, 0.5)
        .with(Behaviour::Cohesion, 0.5)
}

#[test]
fn candidate_sums_follow_the_record_path_closely() {
    // A sparse crowd (no coincident agents, fewer neighbours than the cap): the
    // flocking sums are read from the candidates (a grid's entries, a tree's chunk
    // candidates), in lanes; with the records forced on, summed from the records in
    // scan order. The same up to rounding after 10 ticks; and the four-agent kernel
    // equals the per-agent one bitwise over 40.
    let build = |index: IndexKind, records: bool, four: bool| {
        let mut w = seeded(3, index);
        let group = flocking()
            .with(Behaviour::Wander(WanderParams::default()), 0.3)
            .neighbours(3.0, 12);
        let g = w.add_group(group).unwrap();
        // About one agent per 4 square units: some 7 within the radius.
        let mut rng = crate::rng::agent_rng(9, 9);
        for _ in 0..400 {
            let p = Vec2::new(uniform(&mut rng, 0.0, 40.0), uniform(&mut rng, 0.0, 40.0));
            let v = Vec2::new(uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0));
            w.spawn(AgentSpec::new(g, p).with_velocity(v)).unwrap();
        }
        if records {
            w.plans[0] = w.plans[0].with_records();
        }
        if !four {
            w.plans[0].kernel = Kernel::PerAgent;
        }
        w
    };
    for index in [IndexKind::Grid, IndexKind::KdTree] {
        let (mut a, mut b, mut c) = (
            build(index, false, true),
            build(index, true, true),
            build(index, false, false),
        );
        assert!(a.candidates_carry_unit_vels() && !b.candidates_carry_unit_vels());
        for tick in 0..40 {
            let (sa, sb) = (a.step(0.05).unwrap(), b.step(0.05).unwrap());
            c.step(0.05).unwrap();
            assert_eq!(a.state_hash(), c.state_hash(), "{index:?}");
            if tick == 0 {
                // From the same state: the same neighbours.
                assert_eq!(sa.neighbours, sb.neighbours, "{index:?}");
                // Most rows take the candidates' sums (on an index of the current
                // positions, chunks gathered as the steering pass gathers them).
                let unit_vels = Some(&a.cols.unit_vel[..]);
                a.index.rebuild(&a.cols.pos, unit_vels, 3.0);
                let q = NeighbourQuery::within(&a.index, 3.0).at_most(12);
                let p = SeparationParams::default();
                let sep = (
                    p.radius * p.radius,
                    MIN_SEPARATION_DIST * MIN_SEPARATION_DIST,
                );
                let mut batch = BatchNeighbours::new();
                let mut summed = 0;
                for first in (0..a.len()).step_by(CHUNK_ROWS) {
                    let rows = first..(first + CHUNK_ROWS).min(a.len());
                    batch.gather(&a.index, &a.cols.pos, rows.clone(), 3.0, unit_vels);
                    summed += rows
                        .filter(|&r| {
                            batch
                                .candidates(&a.index, &a.cols.pos, r, &q)
                                .and_then(|c| candidate_sums_x4::<true>(&c, sep))
                                .is_some()
                        })
                        .count();
                }
                assert!(
                    summed * 10 > a.len() * 9,
                    "{index:?}: {summed} of {}",
                    a.len()
                );
            }
            if tick == 9 {
                // Rounding apart only (later, a neighbour crossing the radius in one
                // run and not the other lets them drift further).
                // Worlds built alike give their agents the same keys.
                let in_b: std::collections::HashMap<u64, Vec2> = b
                    .ids()
                    .iter()
                    .map(|&id| (id.key(), b.position(id).unwrap()))
                    .collect();
                for &id in a.ids() {
                    let (pa, pb) = (a.position(id).unwrap(), in_b[&id.key()]);
                    assert!((pa - pb).length() < 1e-4, "{index:?}: {pa} {pb}");
                }
            }
        }
    }
}

/// A body at rest, mass `mass`, top speed 2, force 4.
fn resting(mass: f32) -> crate::behaviours::AgentState {
    crate::behaviours::AgentState {
        pos: Vec2::ZERO,
        vel: Vec2::ZERO,
        heading: 0.0,
        rotation: 0.0,
        max_speed: 2.0,
        max_force: 4.0,
        radius: 0.5,
        mass,
    }
}

#[test]
fn the_preferred_velocity_is_what_the_behaviours_desire_whatever_the_tick() {
    use crate::steer::preferred_velocity;
    // Seek from rest at top speed 2: force (2, 0) = desired - velocity. Mass 1,
    // tick 1/30: over max(1/30, 1 s) the force reaches (2, 0), the desired velocity
    // (over the tick alone it would be (2/30, 0)).
    let v = preferred_velocity(&resting(1.0), Vec2::new(2.0, 0.0), 1.0 / 30.0);
    assert_eq!(v, Vec2::new(2.0, 0.0));
    // Mass 0.1, tick 0.1 (the bundled crowds): max(0.1, 0.1) is the tick itself,
    // 0 + (2, 0) / 0.1 * 0.1.
    let v = preferred_velocity(&resting(0.1), Vec2::new(2.0, 0.0), 0.1);
    assert_eq!(v, Vec2::new(2.0, 0.0) / 0.1 * 0.1);
    // Mass 4: over 4 s, (1, 0) / 4 * 4 = (1, 0); the force is capped at 4 first and
    // the result at the top speed: (8, 0) -> (4, 0) -> 4 * 4 / 4 = 4 -> 2.
    assert_eq!(
        preferred_velocity(&resting(4.0), Vec2::new(1.0, 0.0), 0.1),
        Vec2::new(1.0, 0.0)
    );
    assert_eq!(
        preferred_velocity(&resting(4.0), Vec2::new(8.0, 0.0), 0.1),
        Vec2::new(2.0, 0.0)
    );
}

#[test]
fn an_avoiding_body_reaches_the_chosen_velocity_as_far_as_its_force_allows() {
    use super::integrate::avoiding_velocity;
    use crate::integrate::Limits;
    let body = Limits {
        mass: 1.0,
        max_speed: 2.0,
        max_force: 4.0,
    };
    // In a tick of 0.25 the velocity can change by 4 * 0.25 / 1 = 1.
    let at = |vel: Vec2, chosen: Vec2| avoiding_velocity(vel, chosen, body, 0.25);
    // Within reach: exactly the chosen velocity.
    assert_eq!(at(Vec2::ZERO, Vec2::new(0.5, 0.5)), Vec2::new(0.5, 0.5));
    assert_eq!(
        at(Vec2::new(1.0, 0.0), Vec2::new(2.0, 0.0)),
        Vec2::new(2.0, 0.0)
    );
    // Out of reach: one unit toward it.
    assert_eq!(at(Vec2::ZERO, Vec2::new(2.0, 0.0)), Vec2::new(1.0, 0.0));
    assert_eq!(at(Vec2::new(1.0, 0.0), Vec2::new(-1.0, 0.0)), Vec2::ZERO);
    // Truncated to the top speed first: (4, 0) -> (2, 0), then one unit toward it.
    assert_eq!(at(Vec2::ZERO, Vec2::new(4.0, 0.0)), Vec2::new(1.0, 0.0));
}

/// Offsets and second targets are stored only once some agent has one: a world
/// that gives them late, after spawns, ticks, re-sorts and despawns, moves exactly
/// as one whose agents had them from their spawn (the squad wanders, reading
/// neither, until both worlds put it in the group that uses them).
#[test]
fn offsets_and_second_targets_given_late_steer_as_from_the_start() {
    use crate::behaviours::tactics::OffsetPursuitParams;
    let build = |late: bool| {
        let mut w = World::new(WorldConfig {
            seed: 3,
            reorder_interval: 2,
            ..WorldConfig::default()
        });
        let leaders = w
            .add_group(
                GroupConfig::new("leaders").with(Behaviour::Wander(WanderParams::default()), 1.0),
            )
            .unwrap();
        let squad = w
            .add_group(
                GroupConfig::new("squad")
                    .with(
                        Behaviour::OffsetPursuit(OffsetPursuitParams::default()),
                        1.0,
                    )
                    .with(Behaviour::Interpose(Default::default()), 0.5),
            )
            .unwrap();
        let idle = w
            .add_group(
                GroupConfig::new("idle").with(Behaviour::Wander(WanderParams::default()), 1.0),
            )
            .unwrap();
        let a = w
            .spawn(AgentSpec::new(leaders, Vec2::new(0.0, 0.0)))
            .unwrap();
        let b = w
            .spawn(AgentSpec::new(leaders, Vec2::new(20.0, 5.0)))
            .unwrap();
        let offset = |i: usize| Vec2::new(i as f32 - 4.0, -2.0);
        let mut squad_ids = Vec::new();
        for i in 0..9 {
            let mut spec =
                AgentSpec::new(idle, Vec2::new(i as f32 * 3.0, -6.0)).with_target(Target::Agent(a));
            if !late {
                spec = spec.with_offset(offset(i)).with_target2(Target::Agent(b));
            }
            squad_ids.push(w.spawn(spec).unwrap());
        }
        // Churn: an extra agent spawned and despawned, a re-sort or two.
        let extra = w
            .spawn(AgentSpec::new(leaders, Vec2::new(-9.0, 9.0)))
            .unwrap();
        w.step(0.05).unwrap();
        w.step(0.05).unwrap();
        w.despawn(extra).unwrap();
        if late {
            assert!(w.cols.offset.rows().is_empty() && w.cols.target2.rows().is_empty());
            for (i, &id) in squad_ids.iter().enumerate() {
                w.set_offset(id, offset(i)).unwrap();
                w.set_target2(id, Target::Agent(b)).unwrap();
            }
        }
        for &id in &squad_ids {
            w.set_agent_group(id, squad).unwrap();
        }
        assert!(w.cols.holds_together());
        assert_eq!(w.cols.offset.rows().len(), w.len());
        for _ in 0..30 {
            w.step(0.05).unwrap();
        }
        assert!(w.cols.holds_together());
        for (i, &id) in squad_ids.iter().enumerate() {
            assert_eq!(w.offset(id).unwrap(), offset(i));
            assert_eq!(w.target2(id).unwrap(), Target::Agent(b));
        }
        let mut state: Vec<(u64, [u32; 4])> = w
            .ids()
            .iter()
            .zip(w.positions().iter().zip(w.velocities()))
            .map(|(id, (p, v))| {
                (
                    id.key(),
                    [p.x.to_bits(), p.y.to_bits(), v.x.to_bits(), v.y.to_bits()],
                )
            })
            .collect();
        state.sort_unstable();
        state
    };
    assert_eq!(build(true), build(false));
}

/// A world none of whose agents has an offset or a second target stores neither.
#[test]
fn a_plain_world_stores_no_offsets_or_second_targets() {
    let w = crowd(false, IndexKind::Grid, true);
    assert!(!w.is_empty());
    assert!(w.cols.offset.rows().is_empty());
    assert!(w.cols.target2.rows().is_empty());
    assert!(w.cols.walker.rows().is_empty());
}

#[test]
fn crowded_rows_scanned_first_get_the_one_pass_routes_sums() {
    use crate::steer::{column_sums, perceive, separation_radii, Flock, Perceived, SteerScratch};
    // Crowds of every density: a lattice far denser than the cap, where every row is
    // crowded and over its cap; a tight cluster with satellites a little beyond the
    // radius, whose cells are crowded while their reach holds fewer than the cap (some
    // of them coincident pairs, where the one pass declines); sparse agents. Every
    // row's flocking sums are bitwise what the one pass gives where it takes the row,
    // and the scan's where it declines; on both indexes, with each kind of row met.
    let sums_of = |p: Perceived| match p.flock {
        Flock::Sums(sums, _) => sums,
        _ => panic!("no sums"),
    };
    for index in [IndexKind::Grid, IndexKind::KdTree] {
        let mut w = seeded(5, index);
        let group = flocking().neighbours(3.0, 12);
        let g = w.add_group(group).unwrap();
        let mut rng = crate::rng::agent_rng(5, 5);
        let mut jitter = |a: f32| Vec2::new(uniform(&mut rng, -a, a), uniform(&mut rng, -a, a));
        let mut at = Vec::new();
        for i in 0..20 {
            for j in 0..20 {
                at.push(Vec2::new(i as f32, j as f32) * 0.6 + jitter(0.1));
            }
        }
        let hub = Vec2::new(50.0, 50.0);
        for _ in 0..80 {
            at.push(hub + jitter(0.5));
        }
        for k in 0..24 {
            let a = k as f32 * 0.26;
            let p = hub + Vec2::from_angle(a) * (3.6 + (k % 5) as f32 * 0.4);
            at.push(p);
            if k % 3 == 0 {
                at.push(p);
            }
        }
        for _ in 0..200 {
            at.push(Vec2::new(30.0, 70.0) + jitter(30.0));
        }
        for p in at {
            let v = jitter(1.0);
            w.spawn(AgentSpec::new(g, p).with_velocity(v)).unwrap();
        }
        let NeighbourRoute::CandidateSums(terms) = w.plans[0].route else {
            panic!("not the candidate sums route");
        };
        let sep = separation_radii(terms);
        w.index.rebuild(&w.cols.pos, Some(&w.cols.unit_vel), 3.0);
        let ctx = w.steer_ctx(1.0 / 30.0, 3.0, true, true);
        let mut s = SteerScratch::default();
        // Rows crowded and over the cap, crowded and not, and not crowded.
        let mut kinds = [0; 3];
        for first in (0..w.len()).step_by(CHUNK_ROWS) {
            let rows = first..(first + CHUNK_ROWS).min(w.len());
            let unit_vels = Some(ctx.unit_vel);
            s.batch
                .gather(ctx.index, ctx.pos, rows.clone(), 3.0, unit_vels);
            for row in rows {
                let me = || panic!("the candidate sums route reads no agent state");
                let got = sums_of(perceive(&ctx, (0, row), me, &mut s));
                let q = s.query(&ctx, 0);
                let c = s.batch.candidates(ctx.index, ctx.pos, row, &q).unwrap();
                let (crowded, one_pass) = (c.crowded, candidate_sums_x4::<true>(&c, sep));
                let want = match one_pass {
                    Some(sums) => sums,
                    None => sums_of(column_sums(&ctx, terms, row, &mut s, &q, false)),
                };
                assert_eq!(got, want, "{index:?} row {row}");
                let kind = match (crowded, s.batch.was_over_cap()) {
                    (true, true) => 0,
                    (true, false) => 1,
                    (false, _) => 2,
                };
                kinds[kind] += 1;
            }
        }
        assert!(kinds.iter().all(|&k| k > 0), "{index:?}: {kinds:?}");
    }
}

#[test]
fn a_panicking_tick_is_reported_and_the_world_refuses_to_step_until_restored() {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig::new("g").with(Behaviour::Seek, 1.0))
        .unwrap();
    for i in 0..10 {
        w.spawn(AgentSpec::new(g, Vec2::new(i as f32, 0.0)))
            .unwrap();
    }
    w.step(0.1).unwrap();
    let saved = w.snapshot();
    w.panic_next_tick = true;
    let err = w.step(0.1).unwrap_err();
    assert!(
        matches!(&err, ThrongError::Panicked(m) if m.contains("a test's panic")),
        "{err}"
    );
    // The columns were left half-written: every later step is refused.
    assert!(matches!(w.step(0.1), Err(ThrongError::Panicked(_))));
    assert_eq!(w.tick(), 1);
    // Restoring a snapshot makes it a world again, bitwise the one saved.
    w.restore(&saved).unwrap();
    w.step(0.1).unwrap();
    let mut again = World::from_snapshot(saved).unwrap();
    again.step(0.1).unwrap();
    assert_eq!(w.state_hash(), again.state_hash());
}

/// People walking round a ring corridor with ORCA, its walls 48 segments a side,
/// pressed against its outer wall, for `ticks`, with the wall index's cells made of the mean wall length over `divisor`
/// (`None`: as the index chooses): positions and velocities as bits.
fn ring_walk(divisor: Option<f32>, ticks: usize) -> Vec<[u32; 4]> {
    use crate::behaviours::avoidance::AvoidanceParams;
    use crate::scene::Wall;
    let mut w = World::default();
    let circle = |r: f32| {
        (0..48).map(move |i| {
            let at = |k: usize| {
                let a = std::f32::consts::TAU * k as f32 / 48.0;
                Vec2::new(r * a.cos(), r * a.sin())
            };
            Wall::new(at(i), at(i + 1)).unwrap()
        })
    };
    let walls: Vec<Wall> = circle(4.0).chain(circle(6.5)).collect();
    w.set_walls(&walls).unwrap();
    if let Some(d) = divisor {
        w.walls = WallIndex::with_cells(&walls, d).unwrap();
    }
    let g = w
        .add_group(
            GroupConfig::new("walkers")
                .with(Behaviour::Seek, 1.0)
                .neighbours(2.0, 8)
                .avoiding(AvoidanceParams::pedestrian()),
        )
        .unwrap();
    let mut ids = Vec::new();
    for i in 0..160 {
        let a = std::f32::consts::TAU * (i / 4) as f32 / 40.0;
        let r = 4.4 + 0.55 * (i % 4) as f32;
        let id = w
            .spawn(AgentSpec::new(g, Vec2::new(r * a.cos(), r * a.sin())).with_pedestrian_body())
            .unwrap();
        ids.push(id);
    }
    for _ in 0..ticks {
        // Each aims ahead round the ring (against the clock) and beyond its outer
        // wall, so that the crowd presses along it, its velocities bounded by
        // several walls' half-planes at once.
        for &id in &ids {
            let p = w.position(id).unwrap();
            let a = p.y.atan2(p.x) + 0.4;
            w.set_target(id, Target::Point(Vec2::new(8.0 * a.cos(), 8.0 * a.sin())))
                .unwrap();
        }
        w.step(0.05).unwrap();
    }
    ids.iter()
        .map(|&id| {
            let (p, v) = (w.position(id).unwrap(), w.velocity(id).unwrap());
            [p.x.to_bits(), p.y.to_bits(), v.x.to_bits(), v.y.to_bits()]
        })
        .collect()
}

#[test]
fn the_wall_index_cells_move_no_trajectory() {
    // ORCA's linear programs round by the order of their lines: the walls' come in
    // ascending index, not in the order of the cells that hold them.
    let chosen = ring_walk(None, 600);
    assert_eq!(chosen, ring_walk(Some(1.0), 600));
    assert_eq!(chosen, ring_walk(Some(32.0), 600));
}
