//! The `throng` binary, driven as a user would: run with JSON, CSV and PNG
//! output, check, list, bad profiles, and thread-count determinism.
#![cfg(feature = "scenario")]

use std::path::PathBuf;

use assert_cmd::Command;

fn throng() -> Command {
    Command::cargo_bin("throng").unwrap()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn run_json_has_every_field() {
    let out =
        stdout_of(throng().args(["run", "city", "--agents", "120", "--ticks", "30", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["profile"], "city");
    assert_eq!(v["agents"], 120);
    assert_eq!(v["ticks"], 30);
    assert_eq!(v["warmup_ticks"], 0);
    assert_eq!(v["seed"], 4);
    assert!(v["threads"].as_u64().unwrap() >= 1);
    assert!(v["dt"].as_f64().unwrap() > 0.0);
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 5);
    assert_eq!(
        groups
            .iter()
            .map(|g| g["count"].as_u64().unwrap())
            .sum::<u64>(),
        120
    );
    for phase in [
        "spatial_resort",
        "index_build",
        "leader_sight",
        "steering",
        "integration",
        "total",
    ] {
        for stat in ["mean", "p50", "p95", "max"] {
            let x = v["phases_ms"][phase][stat].as_f64();
            assert!(
                x.is_some_and(|x| x.is_finite() && x >= 0.0),
                "{phase}.{stat}"
            );
        }
    }
    assert!(v["phases_ms"]["total"]["mean"].as_f64().unwrap() > 0.0);
    assert!(v["agent_ticks_per_second"].as_f64().unwrap() > 0.0);
    assert!(v["mean_neighbours"].as_f64().unwrap() >= 0.0);
    let q = &v["quality"];
    assert!(q["overlapping_pairs_per_agent_tick"].as_f64().unwrap() >= 0.0);
    // Sampled over the whole run: ticks 0, 10, 20, 30.
    assert_eq!(q["overlap_samples"], 4);
    assert_eq!(q["sampled_ticks"], "0..30 every 10");
    for key in [
        "deep_overlaps_per_agent_tick",
        "max_penetration",
        "arrived_fraction",
        "at_goal_fraction",
    ] {
        assert!(q[key].as_f64().unwrap() >= 0.0, "{key}");
    }
    // At the goal at the end is never more than ever arrived.
    let (at, ever) = (
        q["at_goal_fraction"].as_f64(),
        q["arrived_fraction"].as_f64(),
    );
    assert!(at <= ever, "{at:?} {ever:?}");
    assert!(q["with_goal"].as_u64().unwrap() > 0);
    assert!(q["stuck_at_end"].as_u64().is_some());
    assert!(q["gates"].as_array().unwrap().is_empty());
    assert_eq!(q["wall_crossings_prevented"], 0);
    assert_eq!(q["nan_count"], 0);
    assert!(v["wall_seconds"].as_f64().unwrap() > 0.0);
}

#[test]
fn run_prints_the_phase_table() {
    let out = stdout_of(throng().args(["run", "approach", "--agents", "80", "--ticks", "10"]));
    for line in [
        "spatial re-sort",
        "index build",
        "leader sight",
        "steering",
        "integration",
        "total",
        "agent-ticks per second",
        "mean neighbours per agent",
        "overlapping pairs per agent-tick",
        "wall crossings prevented",
        "NaN count                         0",
    ] {
        assert!(out.contains(line), "missing `{line}` in\n{out}");
    }
}

#[test]
fn no_profile_runs_the_default() {
    let out = stdout_of(throng().args(["run", "--agents", "50", "--ticks", "5", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["profile"], throng::scenario::DEFAULT_PROFILE);
}

#[test]
fn csv_has_the_columns_and_one_row_per_agent_per_written_tick() {
    let dir = scratch("csv");
    let file = dir.join("out.csv");
    // circle: 10 warm-up ticks + 25 timed = 35 ticks; every 5 -> ticks 0, 5, ..., 35.
    stdout_of(
        throng()
            .args([
                "run", "circle", "--agents", "40", "--ticks", "25", "--every", "5", "--csv",
            ])
            .arg(&file),
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("tick,id,group,x,y,vx,vy,heading"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 40 * 8);
    for (k, row) in rows.iter().enumerate() {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f.len(), 8, "{row}");
        assert_eq!(f[0].parse::<u64>().unwrap(), (k / 40) as u64 * 5);
        assert_eq!(f[1].parse::<usize>().unwrap(), k % 40);
        assert_eq!(f[2], "crossers");
        for x in &f[3..] {
            assert!(x.parse::<f32>().unwrap().is_finite(), "{row}");
        }
    }
}

#[test]
fn same_seed_gives_byte_identical_csv_on_1_and_2_threads() {
    let dir = scratch("determinism");
    let mut files = Vec::new();
    for threads in ["1", "2"] {
        let file = dir.join(format!("t{threads}.csv"));
        stdout_of(
            throng()
                .args([
                    "run", "city", "--agents", "400", "--ticks", "60", "--every", "3",
                ])
                .args(["--threads", threads, "--csv"])
                .arg(&file),
        );
        files.push(std::fs::read(&file).unwrap());
    }
    assert!(files[0].len() > 400 * 20 * 20);
    assert!(files[0] == files[1], "1 and 2 threads wrote different CSV");
}

/// A PNG's first frame: its size, channels per pixel and pixels.
fn png_pixels(file: &std::path::Path) -> ((u32, u32), usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(file).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    buf.truncate(frame.buffer_size());
    ((frame.width, frame.height), frame.color_type.samples(), buf)
}

#[test]
fn png_has_the_requested_size() {
    let dir = scratch("png");
    let file = dir.join("pic.png");
    stdout_of(
        throng()
            .args([
                "run",
                "leader_squads",
                "--agents",
                "100",
                "--ticks",
                "30",
                "--size",
                "320x200",
                "--png",
            ])
            .arg(&file),
    );
    let (size, channels, buf) = png_pixels(&file);
    assert_eq!(size, (320, 200));
    // Not a blank picture: several distinct colours.
    let mut colours: Vec<&[u8]> = buf.chunks(channels).collect();
    colours.sort();
    colours.dedup();
    assert!(colours.len() > 10);
}

#[test]
fn index_replaces_the_profiles() {
    let index_of = |extra: &[&str]| {
        let mut args = vec!["run", "flock", "--agents", "300", "--ticks", "3", "--json"];
        args.extend_from_slice(extra);
        let v: serde_json::Value = serde_json::from_str(&stdout_of(throng().args(&args))).unwrap();
        v["index"].as_str().unwrap().to_owned()
    };
    assert_eq!(index_of(&[]), "kdtree");
    assert_eq!(index_of(&["--index", "grid"]), "grid");
    assert_eq!(index_of(&["--index", "kdtree"]), "kdtree");
    let table = stdout_of(throng().args([
        "run", "flock", "--agents", "300", "--ticks", "3", "--index", "grid",
    ]));
    assert!(
        table.lines().next().unwrap().ends_with(", grid index"),
        "{table}"
    );
    let out = throng()
        .args(["run", "flock", "--index", "octree"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kdtree") && err.contains("grid"), "{err}");
}

#[test]
fn bad_size_is_a_usage_error() {
    throng()
        .args(["run", "flock", "--size", "big"])
        .assert()
        .code(2);
    throng()
        .args(["run", "flock", "--size", "10x100000"])
        .assert()
        .code(2);
}

#[test]
fn outputs_that_cannot_be_written_fail_before_the_run() {
    let missing = scratch("unwritable").join("no/such/dir/out");
    for flag in ["--csv", "--png", "--animate"] {
        let missing = missing.with_extension(if flag == "--animate" { "gif" } else { "out" });
        let out = throng()
            .args(["run", "flock", "--ticks", "100000", flag])
            .arg(&missing)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot write"), "{err}");
        assert!(out.stdout.is_empty(), "the run started");
    }
}

/// Each class of bad profile: its text, the line and key the error must name.
const BAD: &[(&str, &str, &str, &str)] = &[
    (
        "syntax",
        "[world]\nseed = 1\nticks = = 3\n",
        ":3:",
        "",
    ),
    (
        "unknown_key",
        "[world]\nseed = 1\nspeed = 3\n",
        ":3:1:",
        "`world.speed`",
    ),
    (
        "unknown_behaviour",
        "[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0 }\n\n[[groups.behaviours]]\nkind = \"teleport\"\n",
        ":7:1:",
        "`groups[0].behaviours[0].kind`",
    ),
    (
        "unknown_parameter",
        "[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0 }\n\n[[groups.behaviours]]\nkind = \"arrive\"\nslowing = 3.0\n",
        ":8:1:",
        "`groups[0].behaviours[0].slowing`",
    ),
    (
        "negative_count",
        "[[groups]]\nname = \"a\"\ncount = -5\nspawn = { shape = \"disc\", radius = 3.0 }\n",
        ":3:1:",
        "`groups[0].count`",
    ),
    (
        "zero_length_path",
        "[[paths]]\nname = \"p\"\npoints = [[1.0, 2.0], [1.0, 2.0]]\n\n[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0 }\n",
        ":3:1:",
        "`paths[0].points`",
    ),
    (
        "nan_weight",
        "[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0 }\n\n[[groups.behaviours]]\nkind = \"seek\"\nweight = nan\n",
        ":8:1:",
        "`groups[0].behaviours[0].weight`",
    ),
    (
        "wrong_type",
        "[[groups]]\nname = \"a\"\ncount = \"many\"\nspawn = { shape = \"disc\", radius = 3.0 }\n",
        ":3:",
        "`groups[0].count`",
    ),
    (
        "unknown_squad_group",
        "[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0 }\n\n[[squads]]\nleader_group = \"boss\"\nfollower_group = \"a\"\n",
        ":7:1:",
        "`squads[0].leader_group`",
    ),
    (
        "unknown_spawn_key",
        "[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0, center = [0, 0] }\n",
        ":4:",
        "`groups[0].spawn.center`",
    ),
    (
        "nan_parameter",
        "[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0 }\n\n[[groups.behaviours]]\nkind = \"arrive\"\nslowing_radius = nan\n",
        ":8:1:",
        "`groups[0].behaviours[0].slowing_radius`",
    ),
    (
        "zero_length_wall",
        "walls = [[0, 0, 10, 0], [5, 5, 5, 5]]\n\n[[groups]]\nname = \"a\"\ncount = 5\nspawn = { shape = \"disc\", radius = 3.0 }\n",
        ":1:",
        "`walls[1]`",
    ),
];

#[test]
fn bad_profiles_exit_2_naming_line_and_key() {
    let dir = scratch("bad");
    for (name, text, place, key) in BAD {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        for sub in ["run", "check"] {
            let out = throng().arg(sub).arg(&file).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{name} ({sub}): {err}");
            let first = err.lines().next().unwrap_or("");
            assert!(first.starts_with("error: "), "{name}: {err}");
            assert!(
                first.contains(&format!("{name}.toml{place}")),
                "{name}: expected `{place}` in {first}"
            );
            assert!(first.contains(key), "{name}: expected {key} in {first}");
            assert!(
                !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
                "{err}"
            );
            assert!(out.stdout.is_empty());
        }
    }
}

#[test]
fn missing_profile_is_an_error() {
    let out = throng()
        .args(["check", "no_such_profile"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("flock"));
}

#[test]
fn check_accepts_files_and_bundled_names() {
    let out = stdout_of(throng().args(["check", "city"]));
    assert!(out.starts_with("ok: city"), "{out}");
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/arena.toml");
    let out = stdout_of(throng().args(["check", file]));
    assert!(out.starts_with("ok: arena"), "{out}");
}

#[test]
fn list_names_every_bundled_profile_once_per_line() {
    let out = stdout_of(throng().arg("list"));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), throng::scenario::BUNDLED.len());
    for (line, b) in lines.iter().zip(throng::scenario::BUNDLED) {
        assert!(line.starts_with(b.name), "{line}");
    }
}

#[test]
fn quality_counts_a_hand_written_position_file() {
    // Two agents swap places through each other: at tick 10 they are 1 apart
    // (overlapping by 2 of their 3-wide pair diameter, deeply), at tick 20 each
    // stands on the other's start, which is its goal (the antipode).
    let dir = scratch("quality_file");
    let csv = dir.join("swap.csv");
    std::fs::write(
        &csv,
        "tick,id,x,y\n0,0,-10,0\n0,1,10,0\n10,0,0.5,0\n10,1,-0.5,0\n20,0,10,0\n20,1,-10,0\n",
    )
    .unwrap();
    let out = stdout_of(
        throng()
            .args(["quality", "--json", "--at", "10,20"])
            .arg(&csv),
    );
    let q: serde_json::Value = serde_json::from_str(&out).unwrap();
    // One overlapping pair in 3 samples of 2 agents.
    assert!((q["overlapping_pairs_per_agent_sample"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-9);
    assert!((q["deep_pairs_per_agent_sample"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-9);
    assert!((q["max_penetration"].as_f64().unwrap() - 2.0).abs() < 1e-6);
    assert_eq!(q["arrived"], 2);
    // Ticks of 0.25 s: both arrive at tick 20, 5 s; each walked 10.5 + 9.5 = 20.
    assert!((q["mean_time_to_goal"].as_f64().unwrap() - 5.0).abs() < 1e-6);
    assert!((q["mean_path_ratio"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    let at = q["at_checkpoints"].as_array().unwrap();
    assert_eq!(at.len(), 2);
    assert_eq!(
        (at[0]["within"].as_f64(), at[0]["reached"].as_f64()),
        (Some(0.0), Some(0.0))
    );
    assert_eq!(
        (at[1]["within"].as_f64(), at[1]["reached"].as_f64()),
        (Some(1.0), Some(1.0))
    );
}

#[test]
fn quality_refuses_a_file_without_positions() {
    let dir = scratch("quality_bad");
    let csv = dir.join("bad.csv");
    std::fs::write(&csv, "tick,id,x\n0,0,1\n").unwrap();
    let out = throng().arg("quality").arg(&csv).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no `y` column"), "{err}");
}

#[test]
fn a_crowd_that_cannot_fit_is_refused_up_front_with_an_estimate() {
    // 20 groups of 50,000,000: a billion agents, hundreds of GiB.
    let dir = scratch("too_big");
    let mut toml = String::from(
        "name = \"too_big\"\n[world]\nticks = 1\nbounds = [-1000, -1000, 1000, 1000]\n",
    );
    for g in 0..20 {
        toml.push_str(&format!(
            "[[groups]]\nname = \"g{g}\"\ncount = 50000000\nspawn = {{ shape = \"box\", size = [100, 100] }}\n"
        ));
    }
    let path = dir.join("too_big.toml");
    std::fs::write(&path, toml).unwrap();
    let out = throng()
        .args(["run", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("1000000000 agents need about") && err.contains("available"),
        "{err}"
    );
}

#[test]
fn one_tick_is_said_in_the_singular() {
    let out = throng()
        .args(["run", "flock", "--ticks", "1", "--agents", "50"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert!(first.contains(", 1 tick of "), "{first}");
}

#[test]
fn every_zero_says_what_is_wanted() {
    let out = throng()
        .args(["run", "flock", "--every", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("must be at least 1") && !err.contains("18446744073709551615"),
        "{err}"
    );
}

#[test]
fn help_states_the_exit_codes() {
    let out = throng().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Exit status: 0") && text.contains("2 for bad input"),
        "{text}"
    );
}

#[test]
fn csv_keeps_the_final_state_whatever_every_is() {
    let dir = scratch("csv_final");
    let csv = dir.join("out.csv");
    let out = throng()
        .args([
            "run", "flock", "--agents", "20", "--warmup", "0", "--ticks", "7", "--every", "5",
            "--csv",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut ticks: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    ticks.dedup();
    assert_eq!(ticks, vec!["0", "5", "7"]);
}

#[test]
fn output_options_without_their_output_are_refused() {
    for (args, says) in [
        (&["run", "flock", "--every", "5"][..], "--csv"),
        (&["run", "flock", "--size", "64x64"][..], "--png"),
        (&["run", "flock", "--debug-agent", "3"][..], "--png"),
        (&["run", "flock", "--fps", "20"][..], "--animate"),
        (&["run", "flock", "--every", "5"][..], "--animate"),
        (&["run", "flock", "--size", "64x64"][..], "--animate"),
    ] {
        let out = throng().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn a_profile_in_the_current_folder_is_found_without_its_extension() {
    let dir = std::env::temp_dir().join(format!("throng-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src =
        include_str!("../profiles/flock.toml").replace("name = \"flock\"", "name = \"corridor\"");
    std::fs::write(dir.join("corridor.toml"), src).unwrap();
    let out = throng()
        .current_dir(&dir)
        .args(["check", "corridor"])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("ok: corridor"), "{text}");
}

#[test]
fn quiet_prints_nothing_and_still_writes_while_a_plain_run_says_what_it_wrote() {
    let dir = std::env::temp_dir().join(format!("throng-quiet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("q.csv");
    let quiet = throng()
        .args([
            "run", "flock", "--agents", "50", "--ticks", "3", "--quiet", "--csv",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(quiet.status.success());
    assert!(
        quiet.stdout.is_empty() && quiet.stderr.is_empty(),
        "{quiet:?}"
    );
    assert!(std::fs::metadata(&csv).unwrap().len() > 0);
    let plain = throng()
        .args(["run", "flock", "--agents", "50", "--ticks", "3", "--csv"])
        .arg(&csv)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let err = String::from_utf8_lossy(&plain.stderr);
    assert!(err.contains("wrote ") && err.contains("q.csv"), "{err}");
}

#[cfg(not(feature = "tracy"))]
#[test]
fn waiting_for_a_profiler_without_the_client_is_refused() {
    let out = throng()
        .args(["run", "flock", "--wait-for-profiler"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features tracy"), "{err}");
}

#[test]
fn debug_agent_draws_one_agents_geometry_into_the_picture() {
    let dir = scratch("debug-agent");
    let read = |file: &std::path::Path| png_pixels(file).2;
    let run = |extra: &[&str], file: &std::path::Path| {
        throng()
            .args([
                "run",
                "leader_squads",
                "--agents",
                "100",
                "--ticks",
                "30",
                "--size",
                "400x400",
                "-q",
                "--png",
            ])
            .arg(file)
            .args(extra)
            .output()
            .unwrap()
    };
    let (plain, debug) = (dir.join("plain.png"), dir.join("debug.png"));
    assert!(run(&[], &plain).status.success());
    assert!(run(&["--debug-agent", "20"], &debug).status.success());
    // The same picture but for the agent's geometry drawn over it.
    let (a, b) = (read(&plain), read(&debug));
    let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!(differing > 20, "{differing} bytes differ");
    // No such agent: refused, and no picture left behind.
    let missing = dir.join("missing.png");
    let out = run(&["--debug-agent", "100000"], &missing);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no agent has that id"));
    assert!(!missing.exists());
}

#[test]
fn field_draws_a_goal_field_under_the_crowd() {
    let dir = scratch("field");
    let run = |extra: &[&str], file: &std::path::Path| {
        throng()
            .args([
                "run", "maze", "--ticks", "20", "--size", "300x300", "-q", "--png",
            ])
            .arg(file)
            .args(extra)
            .output()
            .unwrap()
    };
    let (plain, field) = (dir.join("plain.png"), dir.join("field.png"));
    assert!(run(&[], &plain).status.success());
    assert!(run(&["--field", "exit"], &field).status.success());
    let (a, b) = (png_pixels(&plain).2, png_pixels(&field).2);
    let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!(
        differing > a.len() / 4,
        "{differing} of {} bytes differ",
        a.len()
    );
    // A name the profile does not have: refused, naming the ones it has.
    let out = run(&["--field", "door"], &dir.join("missing.png"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("its fields: exit"));
    assert!(!dir.join("missing.png").exists());
}

#[test]
fn field_draws_under_an_animation_too() {
    let dir = scratch("field-gif");
    let run = |extra: &[&str], file: &std::path::Path| {
        throng()
            .args([
                "run",
                "maze",
                "--ticks",
                "20",
                "--size",
                "200x200",
                "-q",
                "--animate",
            ])
            .arg(file)
            .args(extra)
            .output()
            .unwrap()
    };
    let (plain, field) = (dir.join("plain.gif"), dir.join("field.gif"));
    assert!(run(&[], &plain).status.success());
    assert!(run(&["--field", "exit"], &field).status.success());
    let (a, b) = (gif_frames(&plain).2, gif_frames(&field).2);
    let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!(
        differing > a.len() / 4,
        "{differing} of {} pixels differ",
        a.len()
    );
}

/// The frames of an animated GIF, composed as a viewer shows them: (the
/// picture's size, each frame's delay in 1/100 s, the last frame's pixels as
/// palette indices).
fn gif_frames(file: &std::path::Path) -> ((usize, usize), Vec<u16>, Vec<u8>) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options
        .read_info(std::fs::File::open(file).unwrap())
        .unwrap();
    let (w, h) = (decoder.width() as usize, decoder.height() as usize);
    let mut screen = vec![0u8; w * h];
    let mut delays = Vec::new();
    while let Some(f) = decoder.read_next_frame().unwrap() {
        delays.push(f.delay);
        let (left, top, fw) = (f.left as usize, f.top as usize, f.width as usize);
        for (i, &v) in f.buffer.iter().enumerate() {
            if Some(v) != f.transparent {
                screen[(top + i / fw) * w + left + i % fw] = v;
            }
        }
    }
    ((w, h), delays, screen)
}

/// A short arena run animated: ticks 0 to 23 with a frame every 5, at 25 a second.
const ANIMATED_RUN: [&str; 15] = [
    "run",
    "arena",
    "--agents",
    "200",
    "--warmup",
    "0",
    "--ticks",
    "23",
    "--every",
    "5",
    "--size",
    "200x150",
    "--fps",
    "25",
    "--animate",
];

#[test]
fn animate_writes_a_frame_every_k_ticks_and_the_last() {
    let dir = scratch("animate");
    let file = dir.join("crowd.gif");
    let out = throng().args(ANIMATED_RUN).arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("wrote") && err.contains("(6 frames,"), "{err}");
    let (size, delays, last) = gif_frames(&file);
    assert_eq!(size, (200, 150));
    // Ticks 0, 5, 10, 15, 20 and 23, each shown 1/25 s.
    assert_eq!(delays, vec![4; 6]);
    let mut colours = last.clone();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 5, "a blank animation: {colours:?}");

    // The same run again: the same bytes (the animation is deterministic).
    let again = dir.join("again.gif");
    throng()
        .args(ANIMATED_RUN)
        .arg(&again)
        .arg("--quiet")
        .assert()
        .success();
    assert!(std::fs::read(&file).unwrap() == std::fs::read(&again).unwrap());
}

#[test]
fn animate_writes_an_animated_png_by_extension() {
    let dir = scratch("apng");
    let file = dir.join("crowd.apng");
    throng()
        .args([
            "run",
            "flock",
            "--agents",
            "100",
            "--warmup",
            "0",
            "--ticks",
            "10",
            "--every",
            "5",
            "--size",
            "96x64",
            "--quiet",
            "--animate",
        ])
        .arg(&file)
        .assert()
        .success();
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&file).unwrap()));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!((info.width, info.height), (96, 64));
    let control = info.animation_control().expect("an animated PNG");
    assert_eq!(control.num_frames, 3);
}

#[test]
fn animations_too_big_or_of_no_format_are_refused_up_front() {
    let dir = scratch("animate-refused");
    let huge = dir.join("huge.gif");
    let out = throng()
        .args([
            "run",
            "flock",
            "--ticks",
            "1000000",
            "--every",
            "1",
            "--size",
            "4096x4096",
            "--animate",
        ])
        .arg(&huge)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("roughly") && err.contains("GB"), "{err}");
    assert!(!huge.exists(), "a refused animation left a file");
    assert!(out.stdout.is_empty());

    let odd = dir.join("crowd.mp4");
    let out = throng()
        .args(["run", "flock", "--animate"])
        .arg(&odd)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(".gif"), "{err}");
    assert!(!odd.exists());
}

#[test]
fn a_profile_of_hosts_groups_checks_but_does_not_run() {
    // Groups with no agents: a host (Python, C, Bevy) spawns them.
    let file = scratch("hosts").join("hosts.toml");
    std::fs::write(
        &file,
        "[world]\ndt = 0.1\n[[groups]]\nname = \"walkers\"\ncount = 0\n\
         spawn = { shape = \"box\", centre = [0, 0], size = [1, 1] }\n",
    )
    .unwrap();
    let checked = stdout_of(throng().arg("check").arg(&file));
    assert!(checked.contains("0 agents"), "{checked}");
    let out = throng().arg("run").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("spawns no agents"), "{err}");
}

#[test]
fn the_report_tells_a_run_ended_early_from_agents_stuck() {
    // The crossing's 200 walkers after 10 s are all still on their way; after the
    // profile's 120 s all are at their goals.
    let line = |ticks: &str| {
        let out = stdout_of(throng().args(["run", "crossing", "--ticks", ticks, "--threads", "2"]));
        let line = out
            .lines()
            .find(|l| l.starts_with("still on their way at the end"))
            .expect("the line")
            .to_string();
        line.split_whitespace()
            .last()
            .unwrap()
            .parse::<usize>()
            .unwrap()
    };
    assert_eq!(line("100"), 200);
    assert_eq!(line("1200"), 0);
}
