//! Resident memory as a host sees it, stage by stage: a bundled profile built, then
//! stepped, with the resident set (`VmRSS`) and its peak so far (`VmHWM`) from
//! `/proc/self/status` after each stage (Linux).
//!
//! `cargo run --release --example memory -- [PROFILE] [AGENTS] [grid|kdtree] [TICKS]`
//! (default: flock 1000000 grid 41).

use throng::scenario::{bundled, load_bundled, Overrides, Scenario};
use throng::spatial::IndexKind;

/// `VmRSS` and `VmHWM` in bytes, when the system says.
fn resident() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn report(stage: &str, agents: usize) {
    match resident() {
        Some((now, peak)) => println!(
            "{stage:<28} resident {:>7.1} MB ({:>4.0} B/agent)   peak {:>7.1} MB ({:>4.0} B/agent)",
            now as f64 / 1e6,
            now as f64 / agents as f64,
            peak as f64 / 1e6,
            peak as f64 / agents as f64
        ),
        None => println!("{stage:<28} (no /proc/self/status here)"),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("flock", String::as_str);
    let agents: usize = args.get(1).map_or(Ok(1_000_000), |s| s.parse())?;
    let index = match args.get(2).map_or("grid", String::as_str) {
        "kdtree" => IndexKind::KdTree,
        _ => IndexKind::Grid,
    };
    let ticks: u64 = args.get(3).map_or(Ok(41), |s| s.parse())?;
    let b = bundled(name).ok_or("no such bundled profile")?;
    let mut profile = load_bundled(b)?.with_overrides(&Overrides {
        agents: Some(agents),
        seed: None,
        ticks: None,
    });
    profile.world.index = index;
    report("start", agents);
    let mut scenario = Scenario::build(&profile)?;
    let agents = scenario.world().len();
    println!("{name}: {agents} agents, {index:?}");
    report("built", agents);
    for t in 1..=ticks {
        scenario.step()?;
        if t == 1 || t == 2 || t % 10 == 0 || t == ticks {
            report(&format!("after tick {t}"), agents);
        }
    }
    Ok(())
}
