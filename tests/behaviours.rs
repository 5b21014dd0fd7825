//! Each core behaviour's outcome in a small scenario.
use glam::Vec2;
use throng::behaviours::flocking::{SeparationKind, SeparationParams};
use throng::behaviours::targeting::{ArriveParams, FleeParams};
use throng::behaviours::wander::WanderParams;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

const DT: f32 = 1.0 / 30.0;

fn one(behaviour: Behaviour, spec: impl Fn(throng::GroupId) -> AgentSpec) -> (World, AgentId) {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig::new("g").with(behaviour, 1.0))
        .unwrap();
    let a = w.spawn(spec(g)).unwrap();
    (w, a)
}

#[test]
fn seek_reaches_the_target() {
    let goal = Vec2::new(10.0, -5.0);
    let (mut w, a) = one(Behaviour::Seek, |g| {
        AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(goal))
    });
    let mut best = f32::MAX;
    for _ in 0..300 {
        w.step(DT).unwrap();
        best = best.min(w.position(a).unwrap().distance(goal));
    }
    assert!(best < 0.1, "closest approach {best}");
}

#[test]
fn arrive_stops_inside_the_slowing_radius_without_overshoot() {
    let goal = Vec2::new(30.0, 0.0);
    let (mut w, a) = one(
        Behaviour::Arrive(ArriveParams {
            slowing_radius: 10.0,
            ..ArriveParams::default()
        }),
        |g| {
            AgentSpec::new(g, Vec2::ZERO)
                .with_target(Target::Point(goal))
                .with_limits(1.0, 3.0, 6.0)
        },
    );
    let mut max_x = f32::MIN;
    for _ in 0..900 {
        w.step(DT).unwrap();
        max_x = max_x.max(w.position(a).unwrap().x);
    }
    let p = w.position(a).unwrap();
    assert!(p.distance(goal) < 0.05, "ended {p}");
    assert!(w.velocity(a).unwrap().length() < 0.05);
    assert!(max_x <= goal.x + 0.01, "overshot to {max_x}");
}

#[test]
fn flee_increases_distance_every_tick() {
    let threat = Vec2::new(1.0, 1.0);
    let (mut w, a) = one(Behaviour::Flee(FleeParams::default()), |g| {
        AgentSpec::new(g, Vec2::new(2.0, 0.5)).with_target(Target::Point(threat))
    });
    let mut last = w.position(a).unwrap().distance(threat);
    for _ in 0..200 {
        w.step(DT).unwrap();
        let d = w.position(a).unwrap().distance(threat);
        assert!(d > last, "{d} <= {last}");
        last = d;
    }
}

#[test]
fn pursuit_catches_a_slower_target_and_evade_keeps_away() {
    let mut w = World::default();
    let cruiser = w.add_group(GroupConfig::new("cruise")).unwrap();
    let hunters = w
        .add_group(GroupConfig::new("hunt").with(Behaviour::Pursuit, 1.0))
        .unwrap();
    let runners = w
        .add_group(GroupConfig::new("run").with(Behaviour::Evade(Default::default()), 1.0))
        .unwrap();
    // The prey cruises along +x at speed 1 (no behaviours: constant velocity).
    let prey = w
        .spawn(AgentSpec::new(cruiser, Vec2::new(0.0, 20.0)).with_velocity(Vec2::X))
        .unwrap();
    let hunter = w
        .spawn(
            AgentSpec::new(hunters, Vec2::ZERO)
                .with_limits(1.0, 2.0, 4.0)
                .with_target(Target::Agent(prey)),
        )
        .unwrap();
    let runner = w
        .spawn(
            AgentSpec::new(runners, Vec2::new(-5.0, 0.0))
                .with_limits(1.0, 2.0, 4.0)
                .with_target(Target::Agent(hunter)),
        )
        .unwrap();
    let mut caught = None;
    let mut runner_min = f32::MAX;
    for t in 0..1200 {
        w.step(DT).unwrap();
        let d = w
            .position(hunter)
            .unwrap()
            .distance(w.position(prey).unwrap());
        if d < 1.0 && caught.is_none() {
            caught = Some(t);
        }
        runner_min = runner_min.min(
            w.position(runner)
                .unwrap()
                .distance(w.position(hunter).unwrap()),
        );
    }
    let t = caught.expect("pursuer never caught the prey");
    // A straight chase of 20 units at a closing speed near 1 takes about 20 s
    // (600 ticks); leading the target must do at least as well.
    assert!(t < 700, "caught at tick {t}");
    assert!(
        runner_min > 4.0,
        "the hunter came within {runner_min} of the evader"
    );
}

#[test]
fn wander_moves_and_turns() {
    let (mut w, a) = one(Behaviour::Wander(WanderParams::default()), |g| {
        AgentSpec::new(g, Vec2::ZERO).with_velocity(Vec2::Y)
    });
    let mut headings = Vec::new();
    for _ in 0..600 {
        w.step(DT).unwrap();
        headings.push(w.heading(a).unwrap());
    }
    let min = headings.iter().cloned().fold(f32::MAX, f32::min);
    let max = headings.iter().cloned().fold(f32::MIN, f32::max);
    assert!(max - min > 0.5, "heading range {}", max - min);
    assert!(w.position(a).unwrap().length() > 2.0);
}

fn cluster(behaviours: Vec<(Behaviour, f32)>, n: usize, spacing: f32) -> World {
    let mut cfg = GroupConfig::new("flock").neighbours(3.0, 12);
    for (b, wgt) in behaviours {
        cfg = cfg.with(b, wgt);
    }
    let mut w = World::new(WorldConfig {
        seed: 3,
        ..WorldConfig::default()
    });
    let g = w.add_group(cfg).unwrap();
    let side = (n as f32).sqrt().ceil() as usize;
    for i in 0..n {
        let p = Vec2::new((i % side) as f32, (i / side) as f32) * spacing;
        let v = Vec2::new(((i * 7) % 5) as f32 - 2.0, ((i * 3) % 5) as f32 - 2.0) * 0.5;
        w.spawn(AgentSpec::new(g, p).with_velocity(v)).unwrap();
    }
    w
}

fn min_pair_distance(w: &World) -> f32 {
    let p = w.positions();
    let mut best = f32::MAX;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            best = best.min(p[i].distance(p[j]));
        }
    }
    best
}

#[test]
fn separation_keeps_flocking_agents_apart() {
    for kind in [SeparationKind::InverseDistance, SeparationKind::Average] {
        let sep = SeparationParams {
            kind,
            ..SeparationParams::default()
        };
        let mut w = cluster(
            vec![
                (Behaviour::Separation(sep), 2.0),
                (Behaviour::Cohesion, 0.3),
                (Behaviour::Alignment, 0.3),
            ],
            100,
            0.3,
        );
        assert!(min_pair_distance(&w) < 0.31);
        for _ in 0..600 {
            w.step(DT).unwrap();
        }
        let d = min_pair_distance(&w);
        assert!(d > 0.5, "{kind:?}: closest pair {d}");
    }
}

#[test]
fn cohesion_draws_agents_together() {
    let mut w = cluster(vec![(Behaviour::Cohesion, 1.0)], 2, 2.5);
    let mut closest = f32::MAX;
    for _ in 0..120 {
        w.step(DT).unwrap();
        closest = closest.min(min_pair_distance(&w));
    }
    assert!(closest < 0.3, "{closest}");

    // Three agents in a triangle converge on their centre.
    let mut w = cluster(vec![(Behaviour::Cohesion, 1.0)], 3, 2.0);
    let centre = w.positions().iter().sum::<Vec2>() / 3.0;
    let mut worst_start = 0.0f32;
    for p in w.positions() {
        worst_start = worst_start.max(p.distance(centre));
    }
    let mut best = f32::MAX;
    for _ in 0..120 {
        w.step(DT).unwrap();
        let worst = w
            .positions()
            .iter()
            .map(|p| p.distance(centre))
            .fold(0.0, f32::max);
        best = best.min(worst);
    }
    assert!(best < 0.5 * worst_start, "{best} vs {worst_start}");
}

#[test]
fn alignment_brings_headings_into_line() {
    let mut w = cluster(vec![(Behaviour::Alignment, 1.0)], 64, 1.0);
    let order = |w: &World| {
        let s: Vec2 = w.velocities().iter().map(|v| v.normalize_or_zero()).sum();
        s.length() / w.len() as f32
    };
    let before = order(&w);
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    let after = order(&w);
    assert!(after > 0.9 && after > before + 0.2, "{before} -> {after}");
}
