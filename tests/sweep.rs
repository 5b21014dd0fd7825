//! The scaling sweep (`cargo bench --bench sweep`) at tiny sizes: the report's tables,
//! a well-formed plot, and clean refusals of bad arguments. The sweep's modules are
//! compiled into this test as they are into the bench target.

// Parts of the sweep only its `main` uses.
#![allow(dead_code)]

#[path = "../benches/sweep/args.rs"]
mod args;
#[path = "../benches/sweep/peers.rs"]
mod peers;
#[path = "../benches/sweep/plot.rs"]
mod plot;
#[path = "../benches/sweep/quality.rs"]
mod quality;
#[path = "../benches/sweep/report.rs"]
mod report;
#[path = "../benches/sweep/run.rs"]
mod run;

use std::path::PathBuf;

use clap::Parser;

use args::{parse_profiles, parse_sizes, Failure, SweepArgs};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("sweep")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The sweep's arguments as `cargo bench --bench sweep -- ARGS` passes them.
fn parse(args: &[&str]) -> Result<SweepArgs, clap::Error> {
    let argv = ["sweep"].iter().chain(args).chain(&["--bench"]);
    SweepArgs::try_parse_from(argv)
}

#[test]
fn tiny_sweep_writes_the_report_and_the_plot() {
    let dir = scratch("tiny");
    let md = dir.join("BENCH.md");
    let svg = dir.join("scaling.svg");
    let (md_s, svg_s) = (md.to_str().unwrap(), svg.to_str().unwrap());
    let args = parse(&[
        "--sizes",
        "200,400",
        "--profiles",
        "flock",
        "--ticks",
        "2",
        "--warmup",
        "1",
        "--rounds",
        "2",
        "--out",
        md_s,
        "--plot",
        svg_s,
        "--no-quality",
    ])
    .unwrap();
    run::sweep(args).unwrap();

    let report = std::fs::read_to_string(&md).unwrap();
    for heading in [
        "# Benchmarks",
        "### flock\n",
        "### flock (grid)\n",
        "## Threads",
        "## The peers' benchmark",
        "## Which neighbour index to pick",
        "## Speed targets",
        "## What games do to a crowd",
        "-- patterns/",
        "docs/optimisations.md",
        "cargo bench --bench sweep",
    ] {
        assert!(report.contains(heading), "no `{heading}` in:\n{report}");
    }
    assert!(report.contains("| 200 | "), "{report}");
    assert!(report.contains("| 400 | "), "{report}");
    // throng's six configurations of the Circle, and the peers' figures from the
    // data file with their provenance and same-run ratios.
    assert!(
        report.contains("| `circle_disk_orca` (ORCA, grid, disk) |"),
        "{report}"
    );
    assert_eq!(report.matches("| `circle").count(), 6, "{report}");
    assert!(report.contains("### Beside RVO2 and dodgy, measured in one run"));
    assert!(report.contains("RVO2: github.com/snape/RVO2"));
    assert!(report.contains("| throng (grid) ÷ RVO2 |"), "{report}");
    assert!(report.contains("load average"));
    assert!(
        report.contains(
            "1 warm-up + 2 timed, in 2 rounds (the round with the median total reported)"
        ),
        "{report}"
    );
    // Targets beyond the sweep's sizes are not judged.
    assert!(report.contains("not measured in this sweep"));

    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg"), "{plot}");
    assert!(plot.trim_end().ends_with("</svg>"));
    // One line per series: flock on the tree and on the grid.
    assert_eq!(plot.matches("<polyline").count(), 2, "{plot}");
    assert!(plot.contains("flock (grid)"));
    assert!(!plot.contains("NaN") && !plot.contains("inf"));

    // The frame-budget plot and the per-phase bars beside it, linked from the report.
    assert!(report.contains("## Frame budget"), "{report}");
    assert!(report.contains("](frame-budget.svg)") && report.contains("](phases.svg)"));
    let budget = std::fs::read_to_string(dir.join("frame-budget.svg")).unwrap();
    assert_eq!(budget.matches("<polyline").count(), 2, "{budget}");
    assert!(budget.contains("16.7 ms (60 fps)") && budget.contains("33.3 ms (30 fps)"));
    let phases = std::fs::read_to_string(dir.join("phases.svg")).unwrap();
    // At the largest size measured up to 100k: 400 here, one bar per series.
    assert!(phases.contains("a tick of 400 agents"), "{phases}");
    assert!(phases.matches("<title>steering: ").count() == 2, "{phases}");
    for svg in [&budget, &phases] {
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
    }
}

#[test]
fn budget_plot_places_lines_on_log_scales() {
    use run::{Machine, Measured, Results, Series};

    let m = |agents: usize, total_ms: f64| Measured {
        agents,
        index: total_ms * 0.2e6,
        sight: 0.0,
        steer: total_ms * 0.6e6,
        integrate: total_ms * 0.1e6,
        total: total_ms * 1e6,
    };
    let r = Results {
        machine: Machine {
            date: "2026-01-01".into(),
            cores: 2,
            cpu: "test".into(),
            threads: 2,
            load_before: String::new(),
            load_after: String::new(),
        },
        ticks: 20,
        warmup: 5,
        rounds: 1,
        peer_ticks: 100,
        quick: false,
        series: vec![Series {
            label: "flock".into(),
            rows: vec![m(1_000, 0.1), m(100_000, 10.0)],
        }],
        threads: Vec::new(),
        peers: Vec::new(),
        peers_file: None,
        quality: Vec::new(),
        textbook: Vec::new(),
        wall_s: 1.0,
    };
    // Decades 1k..100k across (590 px from x = 80) and 0.1..100 ms up (420 px
    // from y = 476, the 30 fps line needing room above 10 ms): 0.1 ms at 1k is
    // the bottom-left corner, 10 ms at 100k the right end, two thirds up.
    let svg = plot::render_budget_svg(&r);
    let pts = svg
        .split("<polyline points=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap();
    assert_eq!(pts, "80.0,476.0 670.0,196.0", "{svg}");
    // 10 ms at 100k: the bar is split 20/60/10 and the rest (10%) is "other".
    let bars = plot::render_phases_svg(&r, 100_000);
    assert!(
        bars.contains("<title>index build: 2.000 ms</title>"),
        "{bars}"
    );
    assert!(bars.contains("<title>other: 1.000 ms</title>"), "{bars}");
    assert!(bars.contains(">10.00 ms</text>"), "{bars}");
}

#[test]
fn bad_arguments_are_refused_before_measuring() {
    let dir = scratch("bad");
    let md = dir.join("B.md");
    for (args, expect) in [
        (
            vec!["--profiles", "flock,stampede"],
            "unknown profile `stampede`",
        ),
        (vec!["--sizes", "200,0"], "sizes run from 1"),
        (vec!["--sizes", "many"], "not a whole number"),
        (vec!["--ticks", "0"], "--ticks"),
        (vec!["--rounds", "0"], "--rounds"),
    ] {
        let err = parse(&args).unwrap_err();
        // clap's usage errors exit with status 2.
        assert_eq!(err.exit_code(), 2, "{args:?}");
        assert!(err.to_string().contains(expect), "{args:?}: {err}");
    }
    assert!(!md.exists(), "a refused sweep wrote its report");

    let missing = dir.join("missing").join("B.md");
    let args = parse(&[
        "--sizes",
        "200",
        "--profiles",
        "flock",
        "--out",
        missing.to_str().unwrap(),
    ]);
    match run::sweep(args.unwrap()) {
        Err(Failure::Input(msg)) => assert!(msg.contains("cannot write the report file"), "{msg}"),
        other => panic!("{other:?}"),
    }

    // A writable report and an unwritable plot: refused, and no empty report left.
    let report = dir.join("fresh.md");
    let args = parse(&[
        "--sizes",
        "200",
        "--profiles",
        "flock",
        "--out",
        report.to_str().unwrap(),
        "--plot",
        missing.with_extension("svg").to_str().unwrap(),
    ]);
    match run::sweep(args.unwrap()) {
        Err(Failure::Input(msg)) => assert!(msg.contains("cannot write the plot file"), "{msg}"),
        other => panic!("{other:?}"),
    }
    assert!(
        !report.exists(),
        "a refused sweep left an empty report behind"
    );
}

#[test]
fn quality_table_reads_the_counter() {
    // A short run of the crossing with avoidance on and off: one row each, with the
    // counter's figures as the summary holds them.
    let on = quality::quality_run("crossing", Some(40), true).unwrap();
    let off = quality::quality_run("crossing", Some(40), false).unwrap();
    assert_eq!(on.agents, off.agents);
    assert!(on.summary.samples > 4);
    let mut s = String::new();
    quality::render_quality(&mut s, &[on, off]);
    assert!(s.starts_with("## Crowd quality"), "{s}");
    assert_eq!(s.matches("| `crossing` |").count(), 2, "{s}");
    assert!(s.contains("| **on** |") && s.contains("| off |"), "{s}");
}

#[test]
fn peers_file_medians_and_ratios() {
    let dir = scratch("peers");
    let file = dir.join("peers.jsonl");
    let run = |system: &str, threads: usize, ms: f64| {
        format!(
            r#"{{"system": "{system}", "scenario": "disk", "agents": 1000, "threads": {threads}, "median_ms": {ms}}}"#
        )
    };
    let lines = [
        r#"{"meta": "Measured by hand."}"#.to_string(),
        run("RVO2", 1, 2.0),
        run("RVO2", 1, 4.0),
        run("RVO2", 1, 3.0),
        run("throng (grid)", 1, 1.5),
        run("throng (grid)", 1, 1.0),
        run("throng (grid)", 1, 0.5),
        r#"{"quality_meta": "Counted by hand."}"#.to_string(),
        r#"{"quality": [["system", "RVO2"], ["overlap", 0.5]]}"#.to_string(),
        r#"{"quality": {"system": "throng", "overlap": 0.25}}"#.to_string(),
    ];
    std::fs::write(&file, lines.join("\n")).unwrap();
    let p = peers::Peers::load(&file).unwrap();
    let mut s = String::new();
    peers::render_peers_file(&mut s, &p, "peers.jsonl", "docs/peers.md");
    assert!(s.contains("[docs/peers.md](docs/peers.md)"), "{s}");
    assert!(s.contains("Measured by hand."), "{s}");
    // Medians of three rounds: RVO2 3.0, throng 1.0; the ratio 0.33 (1 thread; no
    // 2-thread figures).
    assert!(s.contains("| RVO2 | 3.00 / — |"), "{s}");
    assert!(s.contains("| throng (grid) | 1.00 / — |"), "{s}");
    assert!(s.contains("| throng (grid) ÷ RVO2 | 0.33 / — |"), "{s}");
    assert!(
        s.contains("| system | overlap |") && s.contains("| RVO2 | 0.5 |"),
        "{s}"
    );

    std::fs::write(&file, "{\"system\": \"RVO2\"}\n").unwrap();
    match peers::Peers::load(&file) {
        Err(Failure::Input(msg)) => assert!(msg.contains("peers.jsonl:1"), "{msg}"),
        Ok(_) => panic!("a run without its figures was accepted"),
        Err(e) => panic!("{e:?}"),
    }
}

#[test]
fn dates() {
    assert_eq!(run::civil_from_days(0), (1970, 1, 1));
    assert_eq!(run::civil_from_days(19_723), (2024, 1, 1));
    assert_eq!(run::civil_from_days(19_782), (2024, 2, 29));
}

#[test]
fn lists_parse() {
    assert_eq!(parse_sizes("400, 200,200").unwrap().0, vec![200, 400]);
    assert!(parse_sizes("0").is_err());
    assert!(parse_sizes("ten").is_err());
    assert!(parse_profiles("flock,nope").is_err());
    assert_eq!(parse_profiles("flock,flock").unwrap().0, vec!["flock"]);
}

#[test]
fn helpers() {
    assert_eq!(report::fmt_agents(1_000), "1k");
    assert_eq!(report::fmt_agents(200_000), "200k");
    assert_eq!(report::fmt_agents(250), "250");
    assert_eq!(plot::nice_step(180.0), 200.0);
    assert_eq!(plot::x_ticks(1_000.0, 200_000.0)[0], 1_000);
    assert_eq!(run::median(vec![3, 1, 2]), 2.0);
    assert_eq!(run::median(vec![4, 1, 2, 3]), 2.5);
    assert_eq!(run::capped(&[1_000, 10_000], 400), vec![400]);
}

/// Of a configuration's rounds, the report takes the one with the median total,
/// whole (its phases with it), the lower middle of an even count.
#[test]
fn the_round_with_the_median_total_is_reported() {
    use run::{median_round, Measured};

    let m = |total: f64, steer: f64| Measured {
        agents: 100,
        steer,
        total,
        ..Measured::default()
    };
    let picked = median_round(vec![m(9.0, 1.0), m(3.0, 2.0), m(5.0, 3.0)]);
    assert_eq!((picked.total, picked.steer), (5.0, 3.0));
    let picked = median_round(vec![m(4.0, 1.0), m(2.0, 2.0), m(8.0, 3.0), m(6.0, 4.0)]);
    assert_eq!((picked.total, picked.steer), (4.0, 1.0));
    assert_eq!(median_round(vec![m(7.0, 1.0)]).total, 7.0);
    assert_eq!(median_round(Vec::new()).total, 0.0);
}
