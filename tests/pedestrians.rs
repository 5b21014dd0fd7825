//! The pedestrian preset: bodies the size of people, ORCA's horizons, a time gap and
//! the keys of people pressing on near an exit, from Rust and from a profile; the
//! experiments' bottleneck passed at the rates people pass it, from 0.8 to 2.5 m.
#![cfg(feature = "scenario")]

use glam::Vec2;
use throng::behaviours::avoidance::{AvoidanceParams, NearGoal};
use throng::quality::{QualityCounter, QualitySettings};
use throng::scenario::{self, Scenario};
use throng::{AgentSpec, GroupConfig, World, PEDESTRIAN_LIMITS, PEDESTRIAN_RADIUS};

#[path = "../examples/rooms/mod.rs"]
mod rooms;

#[test]
fn the_preset_is_a_person_and_a_profile_key_gives_it() {
    let p = AvoidanceParams::pedestrian();
    assert_eq!((p.time_horizon, p.obstacle_time_horizon), (1.0, 0.5));
    assert_eq!(p.time_gap, 1.0);
    let near = p.near_goal.unwrap();
    assert_eq!(
        (near.within, near.time_gap, near.squeeze, near.side_bias),
        (12.0, 0.35, 0.25, 0.8)
    );
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
    let with = |line: &str| {
        let changed = src
            .replace(
                "\nbody = \"pedestrian\"\n",
                "\nbody = \"pedestrian\"\nradius = 0.25\n",
            )
            .replace(PRESET_LINE, &format!("\n{line}\n"));
        let profile = scenario::parse_profile(&changed, "p.toml").unwrap();
        let g = &profile.groups[0];
        assert_eq!((g.body.radius, g.body.max_speed), (0.25, 1.34));
        g.config.avoidance.unwrap()
    };
    let a = with(r#"avoidance = { preset = "pedestrian", priority = 0.8 }"#);
    assert_eq!((a.priority, a.time_horizon), (0.8, 1.0));
    assert_eq!(a.near_goal, p.near_goal);
    let a = with(r#"avoidance = { preset = "pedestrian", near_goal = false }"#);
    assert_eq!((a.near_goal, a.time_gap), (None, 1.0));
    let a = with(r#"avoidance = { preset = "pedestrian", near_goal = true }"#);
    assert_eq!(a.near_goal, p.near_goal);
    let keys = "near_goal = { within = 5, time_gap = 0.5, squeeze = 0.1, side_bias = 0.2 }";
    let a = with(&format!("avoidance = {{ {keys} }}"));
    let near = NearGoal {
        within: 5.0,
        time_gap: 0.5,
        squeeze: 0.1,
        side_bias: 0.2,
    };
    assert_eq!(a.near_goal, Some(near));
    assert_eq!(a.time_horizon, AvoidanceParams::default().time_horizon);
}

/// The avoidance line of the bundled rooms of people.
const PRESET_LINE: &str = "\navoidance = { preset = \"pedestrian\" }\n";

/// What passed the door of the bundled `bottleneck_experiment` (the experiments'
/// holding area and bottleneck), run to the end with the bottleneck made `width`
/// wide and its avoidance line replaced by `avoidance` where given: the flow (persons
/// per second and metre of door, from the first passage to the last; none if fewer
/// than two passed), how many passed, and the deep overlaps per agent-sample.
fn door_flow(width: f32, avoidance: Option<&str>) -> (Option<f64>, usize, f64) {
    let source = scenario::bundled("bottleneck_experiment").unwrap().source;
    let mut src = rooms::experiment(source, width).unwrap();
    if let Some(line) = avoidance {
        assert!(src.contains(PRESET_LINE));
        src = src.replace(PRESET_LINE, &format!("\n{line}\n"));
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
        // Every tick: no crossing falls between two samples.
        counter.sample_world(t as f32 * profile.world.dt, sc.world());
        if sc.world().is_empty() {
            break;
        }
    }
    let q = counter.summary();
    let door = &q.gates[0];
    (door.flow, door.crossed, q.deep_pairs_per_agent_sample)
}

#[test]
fn people_pass_doors_of_0_8_to_2_5_m_at_the_rates_people_do() {
    // The experiments' room with the pedestrian preset: people give 1.6-2.2 persons
    // per second and metre through doors 0.8 to 2.5 m wide (Seyfried et al. 2009,
    // Liddle et al. 2011), a flow that grows with the width (from 1.29 to 5.55
    // persons/s in Liddle's and Seyfried's rooms).
    let mut flows = Vec::new();
    for width in [0.8, 1.2, 2.0, 2.5] {
        let (specific, through, deep) = door_flow(width, None);
        let specific = specific.unwrap();
        assert_eq!((through, deep), (150, 0.0), "{width} m");
        assert!((1.6..=2.2).contains(&specific), "{width} m: {specific}");
        flows.push(specific * f64::from(width));
    }
    assert!(flows.windows(2).all(|w| w[1] > w[0] + 0.4), "{flows:?}");
    assert!(flows[3] > 3.0 * flows[0], "{flows:?}");
}

#[test]
fn pressing_on_near_the_exit_passes_a_door_at_people_s_rate() {
    // The same crowd keeping its corridor's time gap of 1 s up to the door passes
    // half what people do (a headway calibrated to corridors caps a door's flow),
    // and one pressing on near the exit with rigid bodies clogs a narrow door: an
    // arch of three or four stands at its mouth for seconds at a time.
    let (pressing, ..) = door_flow(1.2, None);
    let (calm, through, _) = door_flow(
        1.2,
        Some(r#"avoidance = { preset = "pedestrian", near_goal = false }"#),
    );
    let (pressing, calm) = (pressing.unwrap(), calm.unwrap());
    assert_eq!(through, 150);
    assert!(calm < 0.6 * pressing, "{calm} {pressing}");
    let (pressed, ..) = door_flow(1.0, None);
    let rigid = "near_goal = { within = 12, time_gap = 0.35, squeeze = 0, side_bias = 0.8 }";
    let (rigid, ..) = door_flow(
        1.0,
        Some(&format!(
            "avoidance = {{ preset = \"pedestrian\", {rigid} }}"
        )),
    );
    let (pressed, rigid) = (pressed.unwrap(), rigid.unwrap());
    assert!(rigid < 1.4 && rigid + 0.5 < pressed, "{rigid} {pressed}");
}

#[test]
fn people_leave_a_room_through_a_door_of_1_2_m_without_pressing_into_each_other() {
    // The bundled room 20 m from its door: everyone out, no pair ever deeply
    // overlapping, within a tenth of people's rate (1.97-2.11 persons per second and
    // metre: this room's people start farther from their door than people did).
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
        counter.sample_world(t as f32 * dt, sc.world());
    }
    let q = counter.summary();
    let door = &q.gates[0];
    assert_eq!(door.crossed, 150, "{door:?}");
    let flow = door.flow.unwrap();
    assert!((0.9 * 1.97..=1.1 * 2.11).contains(&flow), "{flow}");
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
