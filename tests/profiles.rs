//! Every bundled profile parses, validates and runs at a small size, with no
//! NaN and finite timings; scaling keeps the scene's density.
#![cfg(feature = "scenario")]

use throng::scenario::{self, Overrides, Scenario, BUNDLED};

#[test]
fn every_profile_file_is_bundled_and_the_default_exists() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/profiles");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "toml")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    on_disk.sort();
    let mut bundled: Vec<String> = BUNDLED.iter().map(|b| b.name.to_string()).collect();
    bundled.sort();
    assert_eq!(on_disk, bundled);
    assert!(scenario::bundled(scenario::DEFAULT_PROFILE).is_some());
    for name in [
        "flock",
        "leader_squads",
        "arena",
        "approach",
        "kinematic",
        "circle",
        "city",
    ] {
        assert!(scenario::bundled(name).is_some(), "{name}");
    }
}

#[test]
fn every_bundled_profile_runs_50_ticks_small() {
    for b in BUNDLED {
        let profile = scenario::load_bundled(b).unwrap_or_else(|e| panic!("{}", e.render()));
        assert_eq!(profile.name, b.name);
        assert!(
            !profile.description.is_empty(),
            "{} has no description",
            b.name
        );
        let small = profile.with_overrides(&Overrides {
            agents: Some(150),
            ticks: Some(50),
            ..Overrides::default()
        });
        let mut s = Scenario::build(&small).unwrap();
        assert!(s.world().len() >= 150 && s.world().len() <= 150 + small.groups.len());
        for _ in 0..small.world.warmup + 50 {
            let stats = s.step().unwrap();
            assert_eq!(stats.quarantined, 0, "{}", b.name);
            assert!(stats.times.total_ns > 0 && stats.times.total_ns < 10_000_000_000);
            assert!(stats.times.steer_ns <= stats.times.total_ns);
        }
        let w = s.world();
        for r in 0..w.len() {
            assert!(w.positions()[r].is_finite(), "{}: NaN position", b.name);
            assert!(w.velocities()[r].is_finite(), "{}: NaN velocity", b.name);
            assert!(w.headings()[r].is_finite(), "{}: NaN heading", b.name);
        }
    }
}

#[test]
fn scaling_keeps_density_and_counts() {
    let p = scenario::load_bundled(scenario::bundled("circle").unwrap()).unwrap();
    assert_eq!(p.total_agents(), 1000);
    let big = p.with_overrides(&Overrides {
        agents: Some(10_000),
        ..Overrides::default()
    });
    assert_eq!(big.total_agents(), 10_000);
    // Ring radius 200 * sqrt(N / 250), the benchmark's formula.
    match big.groups[0].spawn {
        scenario::spawn::Shape::Ring { radius, .. } => {
            let want = 200.0 * (10_000f32 / 250.0).sqrt();
            assert!((radius - want).abs() < 1e-2, "{radius} vs {want}");
        }
        other => panic!("circle spawns on a ring, got {other:?}"),
    }
    let city = scenario::load_bundled(scenario::bundled("city").unwrap()).unwrap();
    let big = city.with_overrides(&Overrides {
        agents: Some(city.total_agents() * 4),
        ..Overrides::default()
    });
    assert_eq!(big.total_agents(), city.total_agents() * 4);
    // Four times the agents: every length doubles.
    assert_eq!(big.layout.walls[0].a, city.layout.walls[0].a * 2.0);
    assert_eq!(
        big.layout.obstacles[0].radius,
        city.layout.obstacles[0].radius * 2.0
    );
    assert_eq!(big.squads[0].count, city.squads[0].count * 4);
}

#[test]
fn squads_follow_their_nearest_leader() {
    let p = scenario::load_bundled(scenario::bundled("leader_squads").unwrap()).unwrap();
    let s = Scenario::build(&p).unwrap();
    let leaders = s.leaders();
    assert_eq!(leaders.len(), 7);
    let w = s.world();
    let followers = s.groups()[2].id;
    let mut led = 0;
    for &id in w.ids() {
        if w.agent_group(id).unwrap() == followers {
            match w.target(id).unwrap() {
                throng::Target::Agent(l) => assert!(leaders.contains(&l)),
                other => panic!("follower without a leader: {other:?}"),
            }
            led += 1;
        }
    }
    assert_eq!(led, 240);
}

#[test]
fn damaged_profiles_give_errors_not_panics() {
    // Every prefix of a profile, and the profile with each line removed: each
    // either parses or gives a located error; whatever parses also builds and
    // steps.
    let src = scenario::bundled("city").unwrap().source;
    let mut variants: Vec<String> = src
        .char_indices()
        .step_by(7)
        .map(|(i, _)| src[..i].to_string())
        .collect();
    let lines: Vec<&str> = src.lines().collect();
    for skip in 0..lines.len() {
        let mut v: Vec<&str> = lines.clone();
        v.remove(skip);
        variants.push(v.join("\n"));
    }
    let mut parsed = 0;
    for v in &variants {
        match scenario::parse_profile(v, "damaged.toml") {
            Ok(p) => {
                parsed += 1;
                let small = p.with_overrides(&Overrides {
                    agents: Some(30),
                    ..Overrides::default()
                });
                let mut s = Scenario::build(&small).unwrap();
                for _ in 0..2 {
                    s.step().unwrap();
                }
            }
            Err(e) => {
                assert!(e.line >= 1, "unlocated: {e}");
                assert!(!e.message.is_empty());
            }
        }
    }
    assert!(parsed > 10);
}

#[test]
fn a_second_target_drives_interpose() {
    let src = r##"
[world]
ticks = 10

[[groups]]
name = "vips"
count = 2
spawn = { shape = "line", from = [-10, 0], to = [10, 0] }
max_speed = 0.0

[[groups]]
name = "stewards"
count = 1
spawn = { shape = "box", centre = [0, -15], size = [1, 1] }
target = { point = [-10, 0] }
target2 = { point = [10, 0] }

[[groups.behaviours]]
kind = "interpose"
"##;
    let profile =
        scenario::parse_profile(src, "bodyguard.toml").unwrap_or_else(|e| panic!("{}", e.render()));
    let mut s = Scenario::build(&profile).unwrap();
    for _ in 0..600 {
        s.step().unwrap();
    }
    let w = s.world();
    let steward = w.ids()[w.group_indices().iter().position(|&g| g == 1).unwrap()];
    let p = w.position(steward).unwrap();
    assert!(
        p.length() < 0.5,
        "the steward stands at {p}, not between the two points"
    );

    // A moving point is only for the first target.
    let bad = src.replace(
        "target2 = { point = [10, 0] }",
        "target2 = { moving_point = { path = \"loop\", speed = 1.0 } }",
    )
        + "\n[[paths]]\nname = \"loop\"\nlooped = true\npoints = [[0, 0], [5, 0], [5, 5]]\n";
    let e = scenario::parse_profile(&bad, "bad.toml").unwrap_err();
    assert!(e.render().contains("target2"), "{}", e.render());
}

#[test]
fn a_follower_group_without_a_leader_is_refused_at_its_behaviour() {
    let src = r#"
[[groups]]
name = "squad"
count = 10
spawn = { shape = "disc", radius = 5.0 }

[[groups.behaviours]]
kind = "leader_follow"
"#;
    let e = scenario::parse_profile(src, "lost.toml").unwrap_err();
    assert_eq!(e.key, "groups[0].behaviours[0].kind");
    assert!(e.message.contains("[[squads]]"), "{}", e.message);
    assert_eq!(e.line, 8, "{}", e.render());
    // With a squad it is accepted.
    let led = format!(
        "{src}\n[[groups]]\nname = \"boss\"\ncount = 1\nspawn = {{ shape = \"disc\", radius = 1.0 }}\n\n\
         [[squads]]\nleader_group = \"boss\"\nfollower_group = \"squad\"\n"
    );
    scenario::parse_profile(&led, "led.toml").unwrap_or_else(|e| panic!("{}", e.render()));
}

#[test]
fn a_behaviour_the_movement_does_not_take_is_named() {
    let src = "[[groups]]\nname = \"a\"\ncount = 3\nmovement = \"kinematic\"\n\
               spawn = { shape = \"disc\", radius = 5.0 }\n\n[[groups.behaviours]]\nkind = \"seek\"\n";
    let e = scenario::parse_profile(src, "k.toml").unwrap_err();
    assert_eq!(e.key, "groups[0].behaviours[0].kind");
    assert_eq!(
        e.message,
        "`seek`: a kinematic group takes only kinematic behaviours"
    );
}

#[test]
fn a_profiles_setup_is_its_scene_and_groups_without_its_agents() {
    for b in BUNDLED {
        let profile = scenario::load_bundled(b).unwrap();
        let setup = scenario::world_of_setup(&profile).unwrap();
        let built = Scenario::build(&profile).unwrap();
        let full = built.world();
        assert_eq!(setup.len(), 0, "{}", b.name);
        assert!(!full.is_empty(), "{}", b.name);
        // The same groups in the same slots, the same scene and settings.
        let names = |w: &throng::World| {
            w.groups()
                .map(|(id, g)| (id.index(), g.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&setup), names(full), "{}", b.name);
        assert_eq!(setup.walls(), full.walls(), "{}", b.name);
        assert_eq!(setup.obstacles(), full.obstacles(), "{}", b.name);
        assert_eq!(setup.paths().count(), full.paths().count(), "{}", b.name);
        assert_eq!(
            setup.goal_fields().count(),
            full.goal_fields().count(),
            "{}",
            b.name
        );
        assert_eq!(
            setup.level_of_detail(),
            full.level_of_detail(),
            "{}",
            b.name
        );
        assert_eq!(setup.config(), full.config(), "{}", b.name);
    }
}

/// The smallest gap between two bodies (negative: the deepest overlap).
fn least_gap(pos: &[glam::Vec2], radii: &[f32]) -> f32 {
    let mut least = f32::INFINITY;
    for i in 0..pos.len() {
        for j in i + 1..pos.len() {
            least = least.min(pos[i].distance(pos[j]) - radii[i] - radii[j]);
        }
    }
    least
}

#[test]
fn a_crowd_spawned_apart_starts_with_no_two_bodies_overlapping() {
    // 150 people in the experiments' holding area (about 3.5 persons/m^2): drawn at
    // random some stand inside each other; apart, none does, and every one is in the
    // box.
    let src = |arrangement: &str| {
        format!(
            "[[groups]]\nname = \"people\"\ncount = 150\nbody = \"pedestrian\"\n\
             spawn = {{ shape = \"box\", centre = [-6.9, 0], size = [5.6, 7.6], \
             arrangement = \"{arrangement}\" }}\n"
        )
    };
    let closest = |arrangement: &str| {
        let p = scenario::parse_profile(&src(arrangement), "apart.toml")
            .unwrap_or_else(|e| panic!("{}", e.render()));
        let s = scenario::Scenario::build(&p).unwrap();
        let (pos, radii) = (s.world().positions(), s.world().radii());
        assert!(pos
            .iter()
            .all(|q| (q.x - -6.9).abs() <= 2.8 && q.y.abs() <= 3.8));
        least_gap(pos, radii)
    };
    assert!(closest("random") < -0.3, "{}", closest("random"));
    assert!(closest("apart") >= 0.0, "{}", closest("apart"));

    // More than a square lattice of the bodies holds is refused, at the key's line.
    let crowded = src("apart").replace("count = 150", "count = 300");
    let e = scenario::parse_profile(&crowded, "crowded.toml").unwrap_err();
    assert_eq!(e.key, "groups[0].spawn.arrangement");
    assert_eq!(e.line, 5, "{}", e.render());
    assert!(e.message.contains("holds 234"), "{}", e.message);
}

#[test]
fn a_crowd_spawned_apart_in_a_disc_starts_with_no_two_bodies_overlapping() {
    // 200 people in a disc of radius 4.5 m (about 3.1 persons/m^2): drawn at random
    // some stand inside each other; apart, none does, and every one is in the disc.
    let src = |count: usize, arrangement: &str| {
        format!(
            "[[groups]]\nname = \"people\"\ncount = {count}\nbody = \"pedestrian\"\n\
             spawn = {{ shape = \"disc\", centre = [3, -1], radius = 4.5, \
             arrangement = \"{arrangement}\" }}\n"
        )
    };
    let closest = |arrangement: &str| {
        let p = scenario::parse_profile(&src(200, arrangement), "disc.toml")
            .unwrap_or_else(|e| panic!("{}", e.render()));
        let s = scenario::Scenario::build(&p).unwrap();
        let (pos, radii) = (s.world().positions(), s.world().radii());
        let centre = glam::Vec2::new(3.0, -1.0);
        assert!(pos.iter().all(|q| q.distance(centre) <= 4.5 + 1e-4));
        least_gap(pos, radii)
    };
    assert!(closest("random") < -0.3, "{}", closest("random"));
    assert!(closest("apart") >= 0.0, "{}", closest("apart"));

    // More than a square lattice of the bodies holds is refused, at the key's line;
    // a lattice is for boxes.
    let e = scenario::parse_profile(&src(400, "apart"), "crowded.toml").unwrap_err();
    assert_eq!((e.key.as_str(), e.line), ("groups[0].spawn.arrangement", 5));
    assert!(
        e.message.contains("in a disc of radius 4.5"),
        "{}",
        e.message
    );
    let e = scenario::parse_profile(&src(200, "grid"), "grid.toml").unwrap_err();
    assert_eq!(e.line, 5, "{}", e.render());
    assert!(
        e.message.contains("unknown variant `grid`"),
        "{}",
        e.render()
    );
}
