//! What a crowd spawned on one point costs, tick by tick, against the same crowd spread
//! out (the per-tick view of the `patterns` bench, which times only the first ticks).
//!
//! `cargo run --release --example pile [-- grid|kdtree [TICKS]]`: the bundled flock at
//! 10k agents (20 ticks to settle), then every agent moved onto one point, then TICKS
//! ticks (default 300); the same for the plain crowd and for a dense one (a lattice
//! 1.15 apart, every bird with its full count of neighbours, as in the pile): the
//! crowds of the `patterns` bench, set up by its own code. Prints the median tick of
//! each window of ticks, in ms.
use throng::spatial::IndexKind;

// The benches' set-up of the patterns, shared rather than written again; this example
// uses only part of it.
#[allow(dead_code)]
#[path = "../benches/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../benches/patterns.rs"]
mod patterns;

use patterns::{prepared, Pattern};

/// Windows of ticks, by their first tick and one past their last.
const WINDOWS: [(usize, usize); 4] = [(0, 1), (1, 30), (30, 100), (100, 300)];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let index = match args.next().as_deref() {
        Some("grid") => IndexKind::Grid,
        _ => IndexKind::KdTree,
    };
    let ticks: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(300);
    println!("flock, 10k agents, {index:?}: median ms per tick over ticks");
    print!("{:8}", "");
    for (a, b) in WINDOWS {
        print!("{:>10}", format!("{a}-{}", b - 1));
    }
    println!();
    for (label, pattern) in [
        ("plain", Pattern::Plain),
        ("pile", Pattern::Coincident),
        ("dense", Pattern::Dense),
    ] {
        let mut s = prepared(10_000, index, pattern);
        let mut times = Vec::with_capacity(ticks);
        for _ in 0..ticks {
            s.step()?;
            times.push(s.world().last_stats().times.total_ns as f64 / 1e6);
        }
        print!("{label:8}");
        for (a, b) in WINDOWS {
            let mut w = times[a.min(times.len())..b.min(times.len())].to_vec();
            w.sort_by(f64::total_cmp);
            match w.get(w.len() / 2) {
                Some(m) => print!("{m:>10.2}"),
                None => print!("{:>10}", "-"),
            }
        }
        println!();
    }
    Ok(())
}
