//! `throng sweep` at tiny sizes: the report's tables, a well-formed plot, and
//! clean refusals of bad arguments.

use std::path::PathBuf;

use assert_cmd::Command;

fn throng() -> Command {
    Command::cargo_bin("throng").unwrap()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("sweep")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn tiny_sweep_writes_the_report_and_the_plot() {
    let dir = scratch("tiny");
    let md = dir.join("BENCH.md");
    let svg = dir.join("scaling.svg");
    let out = throng()
        .args(["sweep", "--sizes", "200,400", "--profiles", "flock"])
        .args(["--ticks", "2", "--warmup", "1", "--out"])
        .arg(&md)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed: {stderr}");
    // A progress line per configuration.
    assert!(stderr.contains("flock (grid), 400 agents"), "{stderr}");

    let report = std::fs::read_to_string(&md).unwrap();
    for heading in [
        "# Benchmarks",
        "### flock\n",
        "### flock (grid)\n",
        "## Threads",
        "## The peers' benchmark",
        "## Which neighbour index to pick",
        "## Speed targets",
        "docs/optimisations.md",
    ] {
        assert!(report.contains(heading), "no `{heading}` in:\n{report}");
    }
    assert!(report.contains("| 200 | "), "{report}");
    assert!(report.contains("| 400 | "), "{report}");
    assert!(report.contains("as published in PEERS.md, same machine class"));
    assert!(report.contains("load average"));
    // Targets beyond the sweep's sizes are not judged.
    assert!(report.contains("not measured in this sweep"));

    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg"), "{plot}");
    assert!(plot.trim_end().ends_with("</svg>"));
    // One line per series: flock on the tree and on the grid.
    assert_eq!(plot.matches("<polyline").count(), 2, "{plot}");
    assert!(plot.contains("flock (grid)"));
    assert!(!plot.contains("NaN") && !plot.contains("inf"));
}

#[test]
fn bad_arguments_exit_with_status_2() {
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
    ] {
        let out = throng()
            .arg("sweep")
            .args(&args)
            .arg("--out")
            .arg(&md)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
    }
    assert!(!md.exists(), "a refused sweep wrote its report");

    let out = throng()
        .args(["sweep", "--sizes", "200", "--profiles", "flock", "--out"])
        .arg(dir.join("missing").join("B.md"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the report file"));
}
