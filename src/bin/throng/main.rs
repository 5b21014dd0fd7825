//! `throng`: runs the built-in default scenario and prints per-phase timings.

use std::process::ExitCode;

use glam::Vec2;
use throng::behaviors::flocking::SeparationParams;
use throng::behaviors::wander::WanderParams;
use throng::rng::{agent_rng, uniform};
use throng::{AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

const AGENTS: usize = 4_000;
const TICKS: usize = 600;
const DT: f32 = 1.0 / 30.0;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> throng::Result<()> {
    let mut world = World::new(WorldConfig {
        seed: 1,
        ..WorldConfig::default()
    });
    let g = world.add_group(
        GroupConfig::new("flock")
            .with(Behaviour::Separation(SeparationParams::default()), 1.5)
            .with(Behaviour::Alignment, 0.5)
            .with(Behaviour::Cohesion, 0.5)
            .with(Behaviour::Seek, 0.4)
            .with(Behaviour::Wander(WanderParams::default()), 0.2),
    )?;
    let side = (AGENTS as f32 * 4.0).sqrt();
    let mut rng = agent_rng(1, u64::MAX);
    let mut ids = Vec::with_capacity(AGENTS);
    for _ in 0..AGENTS {
        let p = Vec2::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
        ids.push(world.spawn(AgentSpec::new(g, p))?);
    }
    let mut samples = Vec::with_capacity(TICKS);
    for t in 0..TICKS {
        // The target circles the middle of the field.
        let a = t as f32 * DT * 0.2;
        let goal = Vec2::splat(side / 2.0) + Vec2::new(a.cos(), a.sin()) * side * 0.3;
        for &id in &ids {
            world.set_target(id, Target::Point(goal))?;
        }
        samples.push(world.step(DT)?);
    }
    type Phase = (&'static str, fn(&throng::TickStats) -> u64);
    let phases: [Phase; 5] = [
        ("index build", |s| s.times.index_ns),
        ("leader sight", |s| s.times.sight_ns),
        ("steering", |s| s.times.steer_ns),
        ("integration", |s| s.times.integrate_ns),
        ("total", |s| s.times.total_ns),
    ];
    println!(
        "{AGENTS} agents, {TICKS} ticks, {} threads",
        rayon::current_num_threads()
    );
    println!("{:<14}{:>12}{:>12}", "phase", "mean ms", "p95 ms");
    for (name, f) in phases {
        let mut v: Vec<u64> = samples.iter().map(f).collect();
        v.sort_unstable();
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64 / 1e6;
        let p95 = v[(v.len() * 95 / 100).min(v.len() - 1)] as f64 / 1e6;
        println!("{name:<14}{mean:>12.3}{p95:>12.3}");
    }
    let total: u64 = samples.iter().map(|s| s.times.total_ns).sum();
    println!(
        "agent-ticks per second: {:.3e}",
        (AGENTS * TICKS) as f64 / (total as f64 / 1e9)
    );
    Ok(())
}
