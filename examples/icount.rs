//! The workloads of the instruction-count guard (`scripts/icount`): a bundled profile at
//! a fixed size, warmed up, then a window of ticks between two marker calls, which the
//! script hands to callgrind (`--zero-before` and `--dump-before`) so that only the
//! window is counted.
//!
//! `cargo run --release --example icount -- WORKLOAD`, one of the names in [`WORKLOADS`];
//! `-- list` prints them. Prints the agents and ticks measured, which the script divides
//! the count by.
use std::hint::black_box;
use std::process::ExitCode;

use throng::scenario::{self, Scenario};
use throng::spatial::IndexKind;

/// One workload: a bundled profile at a size, with an index, and its ticks.
struct Workload {
    name: &'static str,
    profile: &'static str,
    agents: usize,
    index: Option<IndexKind>,
    warmup: usize,
    ticks: usize,
}

/// The guarded workloads. Warm-up puts the crowd past its first ticks (a flock gathers);
/// the window spans a re-sort (every 16 ticks by default) so that it is counted too.
const WORKLOADS: &[Workload] = &[
    Workload {
        name: "flock_grid_20k",
        profile: "flock",
        agents: 20_000,
        index: Some(IndexKind::Grid),
        warmup: 20,
        ticks: 20,
    },
    Workload {
        name: "flock_kdtree_20k",
        profile: "flock",
        agents: 20_000,
        index: Some(IndexKind::KdTree),
        warmup: 20,
        ticks: 20,
    },
    Workload {
        name: "circle_disk_orca_10k",
        profile: "circle_disk_orca",
        agents: 10_000,
        index: Some(IndexKind::Grid),
        warmup: 10,
        ticks: 20,
    },
    Workload {
        name: "city_10k",
        profile: "city",
        agents: 10_000,
        index: None,
        warmup: 20,
        ticks: 20,
    },
    Workload {
        name: "evacuation_20k",
        profile: "evacuation",
        agents: 20_000,
        index: Some(IndexKind::Grid),
        warmup: 20,
        ticks: 20,
    },
    Workload {
        name: "leader_squads_5k",
        profile: "leader_squads",
        agents: 5_000,
        index: None,
        warmup: 20,
        ticks: 20,
    },
    // People pressing into a bottleneck (the pedestrian preset, near their exit): the
    // window starts 8 s in, with the crowd queued at the bottleneck.
    Workload {
        name: "bottleneck_150",
        profile: "bottleneck_experiment",
        agents: 150,
        index: None,
        warmup: 80,
        ticks: 100,
    },
];

/// Where the counted window starts: callgrind zeroes its counters on entry.
#[inline(never)]
fn icount_window_start() {
    // Bodies that differ, so that the linker cannot fold the two markers into one.
    black_box(1_u8);
}

/// Where the counted window ends: callgrind dumps its counters on entry.
#[inline(never)]
fn icount_window_end() {
    black_box(2_u8);
}

fn build(w: &Workload) -> Result<Scenario, Box<dyn std::error::Error>> {
    let bundled = scenario::bundled(w.profile).ok_or("no such bundled profile")?;
    let mut profile = scenario::load_bundled(bundled)?.scaled_to(w.agents);
    if let Some(index) = w.index {
        profile.world.index = index;
    }
    Ok(Scenario::build(&profile)?)
}

fn main() -> ExitCode {
    let Some(name) = std::env::args().nth(1) else {
        eprintln!("usage: icount WORKLOAD | list");
        return ExitCode::FAILURE;
    };
    if name == "list" {
        for w in WORKLOADS {
            println!("{}", w.name);
        }
        return ExitCode::SUCCESS;
    }
    let Some(w) = WORKLOADS.iter().find(|w| w.name == name) else {
        eprintln!("unknown workload {name}: `icount list` names them");
        return ExitCode::FAILURE;
    };
    let run = || -> Result<usize, Box<dyn std::error::Error>> {
        let mut s = build(w)?;
        for _ in 0..w.warmup {
            s.step()?;
        }
        icount_window_start();
        for _ in 0..w.ticks {
            s.step()?;
        }
        icount_window_end();
        Ok(s.world().len())
    };
    match run() {
        Ok(agents) => {
            println!("agents {agents} ticks {}", w.ticks);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}
