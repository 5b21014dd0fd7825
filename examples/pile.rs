//! What a crowd spawned on one point costs, tick by tick, against the same crowd spread
//! out (the per-tick view of the `patterns` bench, which times only the first ticks).
//!
//! `cargo run --release --example pile [-- grid|kdtree [TICKS]]`: the bundled flock at
//! 10k agents (20 ticks to settle), then every agent moved onto one point, then TICKS
//! ticks (default 300); the same for the plain crowd and for a dense one (a lattice
//! 1.15 apart, every bird with its full count of neighbours, as in the pile). Prints the
//! median tick of each window of ticks, in ms.
use glam::Vec2;
use throng::scenario::{self, Scenario};
use throng::spatial::IndexKind;
use throng::AgentSpec;

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
    for layout in ["plain", "pile", "dense"] {
        let times = run(index, layout, ticks)?;
        print!("{layout:8}");
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

/// Per-tick wall times (ms) of `ticks` ticks of the flock laid out as `layout`.
fn run(
    index: IndexKind,
    layout: &str,
    ticks: usize,
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let bundled = scenario::bundled("flock").ok_or("no bundled flock")?;
    let mut profile = scenario::load_bundled(bundled)?.scaled_to(10_000);
    profile.world.index = index;
    let mut s = Scenario::build(&profile)?;
    for _ in 0..20 {
        s.step()?;
    }
    let world = s.world_mut();
    let ids = world.ids().to_vec();
    let at = world.positions()[0];
    if layout != "plain" {
        let group = world.agent_group(ids[0])?;
        for (k, id) in ids.into_iter().enumerate() {
            world.despawn(id)?;
            let p = if layout == "pile" {
                at
            } else {
                // A lattice 1.15 apart, jittered by up to 0.3 (no two rows alike).
                let (i, j) = ((k % 100) as f32, (k / 100) as f32);
                let jitter = Vec2::new(
                    ((k * 7919) % 97) as f32 / 97.0,
                    ((k * 104_729) % 89) as f32 / 89.0,
                ) * 0.3;
                at + Vec2::new(i, j) * 1.15 + jitter
            };
            world.spawn(AgentSpec::new(group, p))?;
        }
    }
    let mut times = Vec::with_capacity(ticks);
    for _ in 0..ticks {
        s.step()?;
        times.push(s.world().last_stats().times.total_ns as f64 / 1e6);
    }
    Ok(times)
}
