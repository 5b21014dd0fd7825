//! No panic and no NaN at any finite value: every behaviour, with ORCA and without,
//! driven with bodies, speeds, forces, distances and time steps from 1e-40 to 3e38.
mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use glam::Vec2;
use throng::behaviours::angular::{AlignParams, VelocityMatchParams};
use throng::behaviours::approach::ApproachParams;
use throng::behaviours::avoidance::{AvoidanceParams, NearGoal};
use throng::behaviours::containment::{ContainmentParams, Region};
use throng::behaviours::field::FollowFieldParams;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::kinematic::{KinematicArriveParams, KinematicWanderParams};
use throng::behaviours::leader::LeaderParams;
use throng::behaviours::obstacles::ObstacleAvoidanceParams;
use throng::behaviours::path::PathFollowParams;
use throng::behaviours::queue::QueueParams;
use throng::behaviours::tactics::{HideParams, InterposeParams, OffsetPursuitParams};
use throng::behaviours::targeting::{ArriveParams, EvadeParams, FleeParams};
use throng::behaviours::walls::WallAvoidanceParams;
use throng::behaviours::wander::WanderParams;
use throng::group::Movement;
use throng::rng::{agent_rng, uniform, AgentRng};
use throng::scene::{FieldSpec, Goal, Obstacle, Path};
use throng::{AgentSpec, Behaviour, GroupConfig, LevelOfDetail, Target, World};

/// Magnitudes from the smallest subnormals to near `f32::MAX`.
const MAGNITUDES: [f32; 12] = [
    1e-40, 1e-30, 1e-20, 1e-10, 1e-3, 0.5, 2.0, 1e3, 1e10, 1e20, 1e30, 3e38,
];

fn magnitude(rng: &mut AgentRng) -> f32 {
    MAGNITUDES[(uniform(rng, 0.0, MAGNITUDES.len() as f32) as usize).min(MAGNITUDES.len() - 1)]
}

/// One of each behaviour, in the movement it needs.
fn catalogue(path: throng::group::PathId, field: throng::FieldId) -> Vec<(Behaviour, Movement)> {
    use Behaviour as B;
    let s = Movement::Steering;
    let k = Movement::Kinematic;
    let align = AlignParams::default();
    vec![
        (B::Seek, s),
        (B::Flee(FleeParams::default()), s),
        (B::Arrive(ArriveParams::default()), s),
        (B::Pursuit, s),
        (B::Evade(EvadeParams::default()), s),
        (B::Wander(WanderParams::default()), s),
        (B::Separation(SeparationParams::default()), s),
        (B::Cohesion, s),
        (B::Alignment, s),
        (B::Approach(ApproachParams::default()), s),
        (B::Align(align), s),
        (B::Face(align), s),
        (B::LookWhereYouAreGoing(align), s),
        (B::VelocityMatch(VelocityMatchParams::default()), s),
        (B::KinematicSeek, k),
        (B::KinematicFlee, k),
        (B::KinematicArrive(KinematicArriveParams::default()), k),
        (B::KinematicWander(KinematicWanderParams::default()), k),
        (B::WallAvoidance(WallAvoidanceParams::default()), s),
        (B::ObstacleAvoidance(ObstacleAvoidanceParams::default()), s),
        (
            B::FollowPath {
                path: Some(path),
                params: PathFollowParams::default(),
            },
            s,
        ),
        (
            B::FollowField {
                field,
                params: FollowFieldParams::default(),
            },
            s,
        ),
        (
            B::Containment(ContainmentParams {
                region: Region::Circle {
                    centre: Vec2::ZERO,
                    radius: 30.0,
                },
                lookahead: 1.0,
            }),
            s,
        ),
        (B::Queue(QueueParams::default()), s),
        (B::Interpose(InterposeParams::default()), s),
        (B::Hide(HideParams::default()), s),
        (B::OffsetPursuit(OffsetPursuitParams::default()), s),
        (
            B::LeaderFollow {
                leader: LeaderParams::default(),
                separation: SeparationParams::default(),
            },
            s,
        ),
        (B::GiveWay(EvadeParams::default()), s),
    ]
}

/// A random finite vector of a random magnitude.
fn vector(rng: &mut AgentRng) -> Vec2 {
    let m = magnitude(rng);
    Vec2::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0)) * m
}

/// Builds a world of every behaviour (twice: with ORCA and without) whose agents have
/// random extreme bodies, steps it, and returns a description of what went wrong.
fn run_case(case: u64) -> Result<(), String> {
    let mut rng = agent_rng(case, 17);
    let mut w = World::default();
    w.set_walls(&common::arena(60.0)).unwrap();
    w.set_obstacles(&[Obstacle::new(Vec2::new(20.0, 20.0), 2.0).unwrap()])
        .unwrap();
    let path = w
        .add_path(Path::open(vec![Vec2::new(5.0, 5.0), Vec2::new(50.0, 50.0)]).unwrap())
        .unwrap();
    let field = w
        .add_goal_field(FieldSpec::new(
            vec![Goal::Point(Vec2::new(55.0, 55.0))],
            0.5,
        ))
        .unwrap();
    // A level of detail anywhere, of any reach.
    let lod = LevelOfDetail::new(vector(&mut rng), magnitude(&mut rng), 3);
    w.set_level_of_detail(Some(lod)).unwrap();
    let mut ids = Vec::new();
    for (behaviour, movement) in catalogue(path, field) {
        for orca in [false, true] {
            if orca && movement == Movement::Kinematic {
                continue;
            }
            // Some groups steer every other tick (level of detail).
            let think_every = if uniform(&mut rng, 0.0, 1.0) < 0.3 {
                2
            } else {
                1
            };
            let mut g = GroupConfig::new(behaviour.name())
                .with(behaviour.clone(), 1.0)
                .moving(movement)
                .neighbours(magnitude(&mut rng), 8)
                .thinking_every(think_every);
            if orca {
                // Half of them keep a time gap of any size.
                let time_gap = if uniform(&mut rng, 0.0, 1.0) < 0.5 {
                    magnitude(&mut rng)
                } else {
                    0.0
                };
                // And half let themselves be pressed narrower when held up.
                let squeeze = if uniform(&mut rng, 0.0, 1.0) < 0.5 {
                    0.49
                } else {
                    0.0
                };
                // And half press on, near their goal, any distance from it.
                let near_goal = (uniform(&mut rng, 0.0, 1.0) < 0.5).then(|| NearGoal {
                    within: magnitude(&mut rng),
                    time_gap: magnitude(&mut rng),
                    squeeze: 0.49 - squeeze,
                    side_bias: 1.5,
                });
                g = g.avoiding(AvoidanceParams {
                    time_gap,
                    squeeze,
                    near_goal,
                    ..AvoidanceParams::default()
                });
            }
            let Ok(g) = w.add_group(g) else { continue };
            for _ in 0..4 {
                let spec = AgentSpec::new(g, Vec2::splat(30.0) + vector(&mut rng))
                    .with_velocity(vector(&mut rng))
                    .with_limits(
                        magnitude(&mut rng),
                        magnitude(&mut rng),
                        magnitude(&mut rng),
                    )
                    .with_radius(magnitude(&mut rng))
                    .with_target(Target::Point(Vec2::splat(30.0) + vector(&mut rng)));
                if let Ok(id) = w.spawn(spec) {
                    ids.push(id);
                }
            }
        }
    }
    // Agents aim at one another too.
    for (i, &id) in ids.iter().enumerate() {
        let other = ids[(i * 7 + 3) % ids.len()];
        if other != id && i % 2 == 0 {
            w.set_target(id, Target::Agent(other)).unwrap();
            w.set_target2(id, Target::Agent(ids[(i * 5 + 1) % ids.len()]))
                .unwrap();
        }
    }
    // Some are driven by their host.
    for &id in ids.iter().step_by(5) {
        w.set_preferred_velocity(id, Some(vector(&mut rng)))
            .unwrap();
    }
    let dts = [1e-45, 1e-38, 1e-6, 1.0 / 30.0, 1.0, 1e3];
    for t in 0..6 {
        let dt = dts[(case as usize + t) % dts.len()];
        // A move past f32's range cannot be represented: the integration leaves such
        // an agent where it was (quarantine, counted in the tick's statistics). Any
        // other non-finite result is a formula that overflowed.
        let may_leave_f32 = w.positions().iter().zip(w.max_speeds()).any(|(p, &v)| {
            f64::from(p.abs().max_element()) + f64::from(v) * f64::from(dt) * 2.0 > 1e38
        });
        let stepped = catch_unwind(AssertUnwindSafe(|| w.step(dt)));
        match stepped {
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(format!("case {case} tick {t} dt {dt}: panic {msg}"));
            }
            Ok(Err(e)) => return Err(format!("case {case} tick {t} dt {dt}: error {e}")),
            Ok(Ok(stats)) if stats.quarantined > 0 && !may_leave_f32 => {
                return Err(format!(
                    "case {case} tick {t} dt {dt}: {} agents' results not finite",
                    stats.quarantined
                ))
            }
            Ok(Ok(_)) => {}
        }
        let bad = w
            .positions()
            .iter()
            .zip(w.velocities())
            .position(|(p, v)| !(p.is_finite() && v.is_finite()));
        if let Some(row) = bad {
            return Err(format!(
                "case {case} tick {t} dt {dt}: row {row} not finite"
            ));
        }
        if let Some(row) = w.forces().position(|f| !f.is_finite()) {
            return Err(format!(
                "case {case} tick {t} dt {dt}: force of row {row} not finite: {}",
                describe(&w, row)
            ));
        }
    }
    Ok(())
}

/// The row's group and body, for a failure's message.
fn describe(w: &World, row: usize) -> String {
    let g = w.group_indices()[row];
    let name = w
        .groups()
        .find(|(id, _)| id.index() == g as usize)
        .map(|(_, c)| format!("{} orca {}", c.name, c.avoidance.is_some()))
        .unwrap_or_default();
    format!(
        "{name}: pos {} vel {} max speed {} radius {}",
        w.positions()[row],
        w.velocities()[row],
        w.max_speeds()[row],
        w.radii()[row]
    )
}

#[test]
fn no_panic_and_no_nan_from_any_finite_value() {
    let failures: Vec<String> = (0..256).filter_map(|c| run_case(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Two ORCA agents passing head-on, every length (and so every speed and force)
/// multiplied by `scale`: positions over 200 ticks, divided by `scale`, and the
/// closest approach over the sum of the radii.
fn head_on(scale: f32) -> (Vec<Vec2>, f32) {
    let mut w = World::default();
    let g = w
        .add_group(
            GroupConfig::new("g")
                .with(Behaviour::Seek, 1.0)
                .neighbours(20.0 * scale, 8)
                .avoiding(AvoidanceParams {
                    arrived_within: scale,
                    ..AvoidanceParams::default()
                }),
        )
        .unwrap();
    let spawn = |w: &mut World, from: Vec2, to: Vec2| {
        w.spawn(
            AgentSpec::new(g, from * scale)
                .with_limits(1.0, 2.0 * scale, 8.0 * scale)
                .with_radius(0.5 * scale)
                .with_target(Target::Point(to * scale)),
        )
        .unwrap()
    };
    let a = spawn(&mut w, Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0));
    let b = spawn(&mut w, Vec2::new(5.0, 0.01), Vec2::new(-5.0, 0.01));
    let mut track = Vec::new();
    let mut closest = f32::INFINITY;
    for _ in 0..200 {
        w.step(1.0 / 30.0).unwrap();
        let (pa, pb) = (
            w.position(a).unwrap() / scale,
            w.position(b).unwrap() / scale,
        );
        closest = closest.min(pa.distance(pb));
        track.extend([pa, pb]);
        assert!(pa.is_finite() && pb.is_finite());
    }
    (track, closest)
}

#[test]
fn orca_is_the_same_at_any_scale_of_lengths() {
    // At a scale of 2^66 speeds are about 1.5e20 units/s, whose squares overflow
    // f32: the avoidance solves in its own unit of length then. At 2^40 and 2^24 it
    // checks the half-planes and finds them fit: bitwise the unit-scale track, scaled.
    // (The two see each other from the start: the neighbour search's squared
    // distances overflow at 2^66.)
    let (unit, closest) = head_on(1.0);
    assert!(closest > 0.99, "closest {closest}");
    assert!(unit.last().unwrap().distance(Vec2::new(-5.0, 0.01)) < 0.5);
    for exponent in [66, 40, 24] {
        let scale = 2f32.powi(exponent);
        let (track, closest) = head_on(scale);
        assert!(closest > 0.99, "2^{exponent}: closest {closest}");
        let worst = track
            .iter()
            .zip(&unit)
            .map(|(p, q)| p.distance(*q))
            .fold(0.0f32, f32::max);
        if exponent <= 40 {
            assert_eq!(
                worst, 0.0,
                "2^{exponent}: {worst} from the unit-scale track"
            );
        } else {
            // Beyond 2^62 or so squared distances overflow elsewhere too (whether an
            // agent is within `arrived_within` of its target): the same outcome, not
            // the same track.
            let end = &track[track.len() - 2..];
            assert!(end[0].distance(Vec2::new(5.0, 0.0)) < 0.5, "{end:?}");
            assert!(end[1].distance(Vec2::new(-5.0, 0.01)) < 0.5, "{end:?}");
        }
    }
}
