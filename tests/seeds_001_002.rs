//! Seed 001 (wall avoidance with feelers, an arena) and seed 002 (leader
//! following) reproduced in the pipeline, with the figures they report.
mod common;

use glam::Vec2;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::leader::LeaderParams;
use throng::behaviours::path::PathFollowParams;
use throng::behaviours::walls::WallAvoidanceParams;
use throng::behaviours::wander::WanderParams;
use throng::rng::{agent_rng, uniform};
use throng::scene::Path;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

#[test]
fn seed_001_two_thousand_wanderers_never_leave_the_arena() {
    let side = 100.0;
    let mut w = World::new(WorldConfig {
        seed: 1,
        ..WorldConfig::default()
    });
    w.set_walls(&common::arena(side)).unwrap();
    let g = w
        .add_group(
            GroupConfig::new("wanderers")
                .with(
                    Behaviour::WallAvoidance(WallAvoidanceParams::default()),
                    4.0,
                )
                .with(Behaviour::Separation(SeparationParams::default()), 1.0)
                .with(Behaviour::Wander(WanderParams::default()), 1.0)
                .neighbours(2.0, 8),
        )
        .unwrap();
    let mut rng = agent_rng(1, u64::MAX);
    for _ in 0..2_000 {
        let p = Vec2::new(
            uniform(&mut rng, 1.0, side - 1.0),
            uniform(&mut rng, 1.0, side - 1.0),
        );
        let v = Vec2::new(uniform(&mut rng, -2.0, 2.0), uniform(&mut rng, -2.0, 2.0));
        w.spawn(
            AgentSpec::new(g, p)
                .with_velocity(v)
                .with_limits(1.0, 3.0, 6.0),
        )
        .unwrap();
    }
    let mut prevented = 0u64;
    let mut near_wall_ticks = 0u64;
    for _ in 0..5_000 {
        let s = w.step(1.0 / 30.0).unwrap();
        prevented += s.crossings_prevented;
        for p in w.positions() {
            assert!(
                p.x >= 0.0 && p.x <= side && p.y >= 0.0 && p.y <= side,
                "agent outside the arena at {p}"
            );
            if p.x < 1.0 || p.y < 1.0 || p.x > side - 1.0 || p.y > side - 1.0 {
                near_wall_ticks += 1;
            }
        }
    }
    let agent_ticks = 2_000u64 * 5_000;
    println!(
        "seed 001 arena: 2000 agents x 5000 ticks, 0 outside, {prevented} crossings prevented by the \
         integration pass ({:.2e} per agent-tick), {:.3}% of agent-ticks within 1 unit of a wall",
        prevented as f64 / agent_ticks as f64,
        100.0 * near_wall_ticks as f64 / agent_ticks as f64
    );
    // The feelers do the work; the clamp is the rare safety net.
    assert!(
        (prevented as f64) < 1e-3 * agent_ticks as f64,
        "{prevented} crossings prevented"
    );
}

struct Squad {
    world: World,
    leader: AgentId,
    followers: Vec<AgentId>,
    params: LeaderParams,
}

/// A leader on a looped circular path of radius 150 and `n` followers.
fn squad(n: usize, seed: u64) -> Squad {
    let mut w = World::new(WorldConfig {
        seed,
        ..WorldConfig::default()
    });
    let ring: Vec<Vec2> = (0..64)
        .map(|i| {
            let a = i as f32 / 64.0 * std::f32::consts::TAU;
            Vec2::new(a.cos(), a.sin()) * 150.0
        })
        .collect();
    let path = w.add_path(Path::looped(ring).unwrap()).unwrap();
    let leaders = w
        .add_group(GroupConfig::new("leader").with(
            Behaviour::FollowPath {
                path: Some(path),
                params: PathFollowParams::default(),
            },
            1.0,
        ))
        .unwrap();
    // Seed 002's sight radius 30 and slowing radius 50; the behind distance is
    // 60 so that a settled squad (about 15 units across) sits clear of the
    // leader's sight circle.
    let params = LeaderParams {
        behind_distance: 60.0,
        ..LeaderParams::tutorial()
    };
    let followers_g = w
        .add_group(
            GroupConfig::new("followers")
                .with(
                    Behaviour::LeaderFollow {
                        leader: params,
                        separation: SeparationParams {
                            strength: 4.0,
                            ..SeparationParams::default()
                        },
                    },
                    1.0,
                )
                .neighbours(4.0, 12),
        )
        .unwrap();
    let leader = w
        .spawn(
            AgentSpec::new(leaders, Vec2::new(150.0, 0.0))
                .with_velocity(Vec2::Y)
                .with_limits(1.0, 5.0, 10.0),
        )
        .unwrap();
    let mut rng = agent_rng(seed, u64::MAX);
    let followers = (0..n)
        .map(|_| {
            let p = Vec2::new(
                uniform(&mut rng, 160.0, 200.0),
                uniform(&mut rng, -80.0, -40.0),
            );
            w.spawn(
                AgentSpec::new(followers_g, p)
                    .with_radius(1.0)
                    .with_limits(1.0, 8.0, 16.0)
                    .with_target(Target::Agent(leader)),
            )
            .unwrap()
        })
        .collect();
    Squad {
        world: w,
        leader,
        followers,
        params,
    }
}

#[test]
fn seed_002_followers_trail_the_leader_out_of_its_sight_without_overlapping() {
    // The squad is chaotic (a change of rounding moves who overlaps whom, between
    // about 0.2% and 1.1% of follower-ticks over seeds): the overlap bound holds for
    // the three seeds pooled, and each stays within half as much again.
    let overlaps: Vec<f64> = (2..5).map(trail_the_leader).collect();
    let pooled = overlaps.iter().sum::<f64>() / overlaps.len() as f64;
    println!("overlapping per seed {overlaps:?}, pooled {pooled:.4}");
    assert!(pooled < 0.01, "overlapping {pooled}");
    assert!(
        overlaps.iter().all(|&o| o < 0.015),
        "overlapping {overlaps:?}"
    );
}

/// One squad of 200 followers (seed `seed`) checked against the bounds of seed 002;
/// returns the fraction of follower-ticks overlapping.
fn trail_the_leader(seed: u64) -> f64 {
    let Squad {
        world: mut w,
        leader,
        followers,
        params,
    } = squad(200, seed);
    let dt = 1.0 / 30.0;
    for _ in 0..900 {
        w.step(dt).unwrap();
    }
    let (mut dist_sum, mut samples) = (0.0f64, 0u64);
    let (mut in_sight, mut overlapping, mut follower_ticks) = (0u64, 0u64, 0u64);
    let mut max_mean = 0.0f32;
    let mut leader_speed = 0.0f64;
    for _ in 0..3_000 {
        w.step(dt).unwrap();
        let lp = w.position(leader).unwrap();
        let lv = w.velocity(leader).unwrap();
        leader_speed += lv.length() as f64 / 3_000.0;
        let behind = lp - lv.normalize_or_zero() * params.behind_distance;
        let ahead = lp + lv.normalize_or_zero() * params.behind_distance;
        let pos: Vec<Vec2> = followers.iter().map(|&f| w.position(f).unwrap()).collect();
        let mut tick_sum = 0.0;
        for (i, p) in pos.iter().enumerate() {
            tick_sum += p.distance(behind);
            if p.distance(lp) <= params.sight_radius || p.distance(ahead) <= params.sight_radius {
                in_sight += 1;
            }
            // Overlap by more than half a radius: centres closer than 1.5 r.
            if pos
                .iter()
                .enumerate()
                .any(|(j, q)| j != i && p.distance(*q) < 1.5)
            {
                overlapping += 1;
            }
            follower_ticks += 1;
        }
        let mean = tick_sum / pos.len() as f32;
        max_mean = max_mean.max(mean);
        dist_sum += mean as f64;
        samples += 1;
    }
    let mean = dist_sum / samples as f64;
    let sight_frac = in_sight as f64 / follower_ticks as f64;
    let overlap_frac = overlapping as f64 / follower_ticks as f64;
    println!(
        "seed 002: 200 followers, 3000 settled ticks: mean distance to the behind point {mean:.2} \
         (worst tick {max_mean:.2}), in sight {:.3}% of follower-ticks, overlapping {:.3}%",
        100.0 * sight_frac,
        100.0 * overlap_frac
    );
    // The bound. Arrive's desired speed is max_speed * d / slowing_radius, so
    // a squad keeping pace with a leader at speed v trails the behind point by
    // lag = slowing_radius * v / max_speed (seed 002's design: 50 * ~5 / 8 ≈ 31).
    // Around that point the squad spreads: 200 discs of radius 1 kept about 2.5
    // apart fill a disc of radius sqrt(200) * 2.5 / 2 ≈ 18. So the mean distance
    // stays under lag + 18, and no tick exceeds lag + 25.
    let lag = (params.slowing_radius as f64 * leader_speed / 8.0) as f32;
    println!("leader speed {leader_speed:.2}, arrive lag {lag:.2}");
    assert!(
        mean < (lag + 18.0) as f64,
        "mean distance to the behind point {mean}"
    );
    assert!(max_mean < lag + 25.0, "worst tick {max_mean}");
    assert!(sight_frac < 0.01, "in sight {sight_frac}");
    overlap_frac
}
