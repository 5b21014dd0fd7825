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
    // The room's own calibration beside the preset (docs/pedestrians.md).
    let room = AvoidanceParams {
        squeeze: 0.2,
        side_bias: 1.2,
        ..AvoidanceParams::pedestrian()
    };
    assert_eq!(g.config.avoidance, Some(room));
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
            "\navoidance = { preset = \"pedestrian\", squeeze = 0.2, side_bias = 1.2 }\n",
            "\navoidance = { preset = \"pedestrian\", priority = 0.8 }\n",
        );
    let profile = scenario::parse_profile(&changed, "p.toml").unwrap();
    let g = &profile.groups[0];
    assert_eq!((g.body.radius, g.body.max_speed), (0.25, 1.34));
    let a = g.config.avoidance.unwrap();
    assert_eq!((a.priority, a.time_horizon), (0.8, 1.0));
}

/// The flow through the door of `bottleneck_people` (persons per second and metre
/// of door, from the first passage to the last) and its deep overlaps per
/// agent-sample, run to the end with its door made `width` wide and its avoidance
/// line replaced by `avoidance` where given.
fn door_flow(width: f32, avoidance: Option<&str>) -> (f32, f64) {
    let half = width / 2.0;
    let mut src = scenario::bundled("bottleneck_people")
        .unwrap()
        .source
        .replace(
            "[0, -12, 0, -0.6], [0, 0.6, 0, 12]",
            &format!("[0, -12, 0, -{half}], [0, {half}, 0, 12]"),
        )
        .replace(
            "line = [0, -0.6, 0, 0.6]",
            &format!("line = [0, -{half}, 0, {half}]"),
        )
        .replace("ticks = 2400", "ticks = 4000");
    if let Some(line) = avoidance {
        let own = "\navoidance = { preset = \"pedestrian\", squeeze = 0.2, side_bias = 1.2 }\n";
        assert!(src.contains(own));
        src = src.replace(own, &format!("\n{line}\n"));
    }
    let profile = scenario::parse_profile(&src, "p.toml").unwrap();
    let mut sc = Scenario::build(&profile).unwrap();
    let mut counter = QualityCounter::new(QualitySettings {
        gates: sc.layout().gates.clone(),
        ..QualitySettings::default()
    });
    counter.sample_world(0.0, sc.world());
    for t in 1..=profile.world.ticks {
        sc.step().unwrap();
        counter.sample_world(t as f32 * profile.world.dt, sc.world());
        if sc.world().is_empty() {
            break;
        }
    }
    let q = counter.summary();
    let door = &q.gates[0];
    assert_eq!(door.crossed, 150, "{door:?}");
    (door.flow.unwrap() as f32, q.deep_pairs_per_agent_sample)
}

#[test]
fn people_pressed_together_pass_a_door_of_0_8_m_at_the_rate_people_do() {
    // People through 0.8 m: 1.61 persons per second and metre (Seyfried et al.
    // 2009). Rigid bodies keeping right as strongly clog its mouth: an arch of
    // three or four stands there for seconds at a time.
    let (pressed, deep) = door_flow(0.8, None);
    assert!((1.6..=2.2).contains(&pressed), "{pressed}");
    assert_eq!(deep, 0.0);
    let rigid = r#"avoidance = { preset = "pedestrian", side_bias = 1.2 }"#;
    let (rigid, _) = door_flow(0.8, Some(rigid));
    assert!(rigid < 1.4 && rigid + 0.3 < pressed, "{rigid} {pressed}");
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
