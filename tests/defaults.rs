//! Every default suits the default body (radius 0.5, top speed 2, force 4, mass 1):
//! a crowd built from defaults alone arrives at speed and follows its leader.
use glam::Vec2;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::kinematic::KinematicArriveParams;
use throng::behaviours::leader::LeaderParams;
use throng::behaviours::targeting::ArriveParams;
use throng::group::Movement;
use throng::{AgentSpec, Behaviour, GroupConfig, Target, World};

const DT: f32 = 1.0 / 30.0;

#[test]
fn a_default_arrive_reaches_its_target_at_speed_and_stops() {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig::new("g").with(Behaviour::Arrive(ArriveParams::default()), 1.0))
        .unwrap();
    let goal = Vec2::new(10.0, 0.0);
    let a = w
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(goal)))
        .unwrap();
    // Speeding up (the force is `desired - vel`: a time constant of 1 s) to over 1.5
    // units/s by 1.5 s and keeping it until the slowing radius (about 2.8 s); there
    // within 12 s, never more than a few hundredths past it.
    let mut furthest: f32 = 0.0;
    for t in 1..=(12.0 / DT) as usize {
        w.step(DT).unwrap();
        let (p, v) = (w.position(a).unwrap(), w.velocity(a).unwrap());
        if (45..=84).contains(&t) {
            assert!(v.length() > 1.5, "speed {} at tick {t}", v.length());
        }
        furthest = furthest.max(p.x);
    }
    let p = w.position(a).unwrap();
    assert!(p.distance(goal) < 0.05, "ended at {p}");
    assert!(furthest < goal.x + 0.05, "overshot to {furthest}");
    assert!(w.velocity(a).unwrap().length() < 0.05);
}

#[test]
fn a_default_kinematic_arrive_stops_at_its_target() {
    let mut w = World::default();
    let g = w
        .add_group(
            GroupConfig::new("g")
                .with(
                    Behaviour::KinematicArrive(KinematicArriveParams::default()),
                    1.0,
                )
                .moving(Movement::Kinematic),
        )
        .unwrap();
    let goal = Vec2::new(0.0, 8.0);
    let a = w
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(goal)))
        .unwrap();
    for _ in 0..(6.0 / DT) as usize {
        w.step(DT).unwrap();
    }
    assert!(w.position(a).unwrap().distance(goal) <= 0.5 + 1e-4);
}

#[test]
fn a_default_squad_follows_its_leader() {
    let mut w = World::default();
    let leader_g = w
        .add_group(GroupConfig::new("leader").with(Behaviour::Arrive(ArriveParams::default()), 1.0))
        .unwrap();
    let squad_g = w
        .add_group(
            GroupConfig::new("squad")
                .with(
                    Behaviour::LeaderFollow {
                        leader: LeaderParams::default(),
                        separation: SeparationParams::default(),
                    },
                    1.0,
                )
                .neighbours(3.0, 8),
        )
        .unwrap();
    let goal = Vec2::new(0.0, 40.0);
    let leader = w
        .spawn(
            AgentSpec::new(leader_g, Vec2::ZERO)
                .with_limits(1.0, 1.5, 4.0)
                .with_target(Target::Point(goal)),
        )
        .unwrap();
    let followers: Vec<_> = (0..8)
        .map(|i| {
            let at = Vec2::new((i % 4) as f32 * 1.2 - 1.8, -3.0 - (i / 4) as f32 * 1.2);
            w.spawn(AgentSpec::new(squad_g, at).with_target(Target::Agent(leader)))
                .unwrap()
        })
        .collect();
    for t in 0..(40.0 / DT) as usize {
        w.step(DT).unwrap();
        // While the leader walks (from 15 s to 24 s), the squad keeps behind it and
        // up with it: arriving at the behind point (4 back) with a slowing radius of
        // 6, a follower trails 4 + 6 × 1.5 / 2 = 8.5 units at the leader's speed of
        // 1.5, the squad's rear rank (eight bodies kept apart) about 12.
        if (450..720).contains(&t) {
            let l = w.position(leader).unwrap();
            for &f in &followers {
                let p = w.position(f).unwrap();
                assert!(
                    p.y < l.y - 1.0,
                    "tick {t}: follower {p} beside or ahead of {l}"
                );
                assert!(
                    p.distance(l) < 13.0,
                    "tick {t}: follower {p} strayed from {l}"
                );
                let speed = w.velocity(f).unwrap().length();
                assert!(speed > 1.2, "tick {t}: follower {p} at {speed}");
            }
        }
    }
    let l = w.position(leader).unwrap();
    assert!(l.distance(goal) < 0.5, "leader at {l}");
    for &f in &followers {
        let p = w.position(f).unwrap();
        assert!(
            p.distance(l) < 8.0,
            "follower {p} strayed from the leader {l}"
        );
    }
}
