//! The pedestrian preset: bodies the size of people and ORCA's horizons for them,
//! from Rust and from a profile; a room of people emptying through a door 1.2 m wide
//! at the rate people do.
#![cfg(feature = "scenario")]

use glam::Vec2;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::quality::{QualityCounter, QualitySettings};
use throng::scenario::{self, Scenario};
use throng::{AgentSpec, GroupConfig, World, PEDESTRIAN_LIMITS, PEDESTRIAN_RADIUS};

#[test]
fn the_preset_is_a_person_and_a_profile_key_gives_it() {
    let p = AvoidanceParams::pedestrian();
    assert_eq!((p.time_horizon, p.obstacle_time_horizon), (1.0, 0.5));
    let d = AvoidanceParams::default();
    assert_eq!(
        (p.priority, p.side_bias, p.arrived_within),
        (d.priority, d.side_bias, d.arrived_within)
    );
    let mut w = World::default();
    let g = w.add_group(GroupConfig::new("people")).unwrap();
    let id = w
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_pedestrian_body())
        .unwrap();
    let limits = w.limits(id).unwrap();
    assert_eq!(
        (limits.mass, limits.max_speed, limits.max_force),
        (1.0, 1.34, 26.8)
    );
    assert_eq!(limits, PEDESTRIAN_LIMITS);
    assert_eq!(w.radius(id).unwrap(), PEDESTRIAN_RADIUS);

    // In a profile: the presets, and keys given beside them replace their values.
    let src = scenario::bundled("bottleneck_people").unwrap().source;
    let profile = scenario::parse_profile(src, "p.toml").unwrap();
    let g = &profile.groups[0];
    assert_eq!(g.config.avoidance, Some(AvoidanceParams::pedestrian()));
    assert_eq!(
        (g.body.radius, g.body.max_speed, g.body.max_force),
        (0.22, 1.34, 26.8)
    );
    let changed = src
        .replace(
            "\nbody = \"pedestrian\"\n",
            "\nbody = \"pedestrian\"\nradius = 0.25\n",
        )
        .replace(
            "\navoidance = { preset = \"pedestrian\" }\n",
            "\navoidance = { preset = \"pedestrian\", priority = 0.8 }\n",
        );
    let profile = scenario::parse_profile(&changed, "p.toml").unwrap();
    let g = &profile.groups[0];
    assert_eq!((g.body.radius, g.body.max_speed), (0.25, 1.34));
    let a = g.config.avoidance.unwrap();
    assert_eq!((a.priority, a.time_horizon), (0.8, 1.0));
}

#[test]
fn people_leave_through_a_door_of_1_2_m_at_the_rate_people_do() {
    let profile = scenario::load_bundled(scenario::bundled("bottleneck_people").unwrap()).unwrap();
    let mut sc = Scenario::build(&profile).unwrap();
    let mut counter = QualityCounter::new(QualitySettings {
        gates: sc.layout().gates.clone(),
        ..QualitySettings::default()
    });
    let dt = profile.world.dt;
    counter.sample_world(0.0, sc.world());
    for t in 1..=profile.world.ticks {
        sc.step().unwrap();
        // Every tick: no crossing falls between two samples.
        counter.sample_world(t as f32 * dt, sc.world());
    }
    let q = counter.summary();
    let door = &q.gates[0];
    assert_eq!(door.crossed, 150, "{door:?}");
    // People through 1.2 m: 1.97 (Seyfried et al. 2009) to 2.11 (Liddle et al.
    // 2011) persons per second and metre; the range people give at 0.8-2.5 m,
    // 1.6-2.2.
    let flow = door.flow.unwrap();
    assert!((1.6..=2.2).contains(&flow), "{flow}");
    assert_eq!(q.deep_pairs_per_agent_sample, 0.0);
}

#[test]
fn free_speeds_spread_about_their_mean_and_stay_within_two_deviations() {
    use throng::agents::speed_drawn;
    let mut rng = throng::rng::agent_rng(3, 4);
    // No spread: the mean, and nothing drawn.
    assert_eq!(speed_drawn(1.34, 0.0, &mut rng), 1.34);
    let draws: Vec<f32> = (0..20_000)
        .map(|_| speed_drawn(1.34, 0.26, &mut rng))
        .collect();
    let n = draws.len() as f32;
    let mean = draws.iter().sum::<f32>() / n;
    let sd = (draws.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n).sqrt();
    assert!((mean - 1.34).abs() < 0.01, "{mean}");
    // A normal clamped at two deviations keeps 0.96 of its deviation
    // (0.7385 inside, plus 4 x 0.0455 at the clamps, is 0.920 of its variance).
    assert!((sd - 0.96 * 0.26).abs() < 0.01, "{sd}");
    assert!(draws.iter().all(|v| (0.82..=1.86).contains(v)));
    // From a profile: each agent its own top speed, the same for the same seed.
    let src = scenario::bundled("bottleneck_people")
        .unwrap()
        .source
        .replace(
            "\nbody = \"pedestrian\"\n",
            "\nbody = \"pedestrian\"\nmax_speed_spread = 0.26\n",
        );
    let speeds = || {
        let profile = scenario::parse_profile(&src, "p.toml").unwrap();
        let sc = Scenario::build(&profile).unwrap();
        sc.world().max_speeds().to_vec()
    };
    let first = speeds();
    assert_eq!(first, speeds());
    let lowest = first.iter().copied().fold(f32::INFINITY, f32::min);
    let highest = first.iter().copied().fold(0.0f32, f32::max);
    assert!(lowest >= 0.82 && highest <= 1.86 && highest - lowest > 0.5);
}
