//! Speed against density, beside Weidmann's fundamental diagram: people (the
//! pedestrian preset: radius 0.22 m, 1.34 m/s, ORCA with horizons 1 s and 0.5 s and
//! a time gap of 1 s; its keys near an exit do not apply here, with no exit)
//! walking one way round a ring corridor 2.5 m wide (mid radius 10 m: a corridor
//! without ends, as the experiments' periodic corridors and rings are), at densities
//! from 0.5 to 5 persons/m². Each tick every walker aims 2 m ahead round the ring on
//! the circle it started on (people keep their place across a corridor). After 60 s, for 120 s, a fixed measuring area (4 m of the corridor) is read
//! every tick: the persons in it over its area (density), and their mean speed along
//! the corridor. `docs/pedestrians.md` has the table.
//!
//! ```sh
//! cargo run --release --example fundamental_diagram                      # two tables
//! cargo run --release --example fundamental_diagram -- 'time_gap = 0.8'  # one
//! cargo run --release --example fundamental_diagram -- --plot docs/speed-density.svg
//! ```
//!
//! Without arguments: ORCA alone (the preset without its time gap,
//! `AvoidanceParams::time_gap`), then the pedestrian preset. Arguments `key = value` set `time_horizon`,
//! `obstacle_time_horizon`, `time_gap` or `side_bias` in place of the preset's.
//! `--plot FILE` also draws speed against density beside Weidmann's curve (an SVG).

#[path = "plot/mod.rs"]
mod plot;

use std::f32::consts::TAU;

use glam::Vec2;
use plot::{Chart, Kind, Series};
use throng::behaviours::avoidance::AvoidanceParams;
use throng::rng::{agent_rng, uniform};
use throng::scene::Wall;
use throng::spatial::IndexKind;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

const INNER: f32 = 8.75;
const OUTER: f32 = 11.25;
const MID: f32 = (INNER + OUTER) / 2.0;
/// Segments of each circle of wall.
const SIDES: usize = 160;
const DT: f32 = 0.05;
const WARMUP_S: f32 = 60.0;
const MEASURE_S: f32 = 120.0;
/// The measuring area: this much of the corridor, at mid radius, centred on angle 0.
const AREA_LENGTH: f32 = 4.0;
/// Each walker aims this far ahead along its circle.
const AHEAD: f32 = 2.0;
const DENSITIES: [f32; 9] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 4.5, 5.0];

/// Weidmann (1993): walking speed at density `rho` (persons/m²).
fn weidmann(rho: f32) -> f32 {
    1.34 * (1.0 - (-1.913 * (1.0 / rho - 1.0 / 5.4)).exp())
}

/// A circle of `SIDES` walls; counter-clockwise (normals inward) or not.
fn circle(radius: f32, ccw: bool) -> Vec<Wall> {
    let point = |i: usize| {
        let a = i as f32 / SIDES as f32 * TAU;
        Vec2::new(a.cos(), a.sin()) * radius
    };
    (0..SIDES)
        .map(|i| {
            let (a, b) = (point(i), point(i + 1));
            if ccw {
                Wall::new(a, b)
            } else {
                Wall::new(b, a)
            }
            .expect("a wall")
        })
        .collect()
}

/// `n` places in the corridor, on a hexagonal lattice fine enough for `n`, taken in
/// a shuffled order (seeded).
fn places(n: usize) -> Vec<Vec2> {
    let area = std::f32::consts::PI * (OUTER * OUTER - INNER * INNER);
    let margin = 0.24;
    let mut spacing = (2.0 / (3f32.sqrt() * (n as f32 / area))).sqrt();
    loop {
        let mut all = Vec::new();
        let mut r = INNER + margin;
        let mut row = 0;
        while r <= OUTER - margin {
            let count = (TAU * r / spacing).floor() as usize;
            let shift = if row % 2 == 0 { 0.0 } else { 0.5 };
            for k in 0..count {
                let a = (k as f32 + shift) / count as f32 * TAU;
                all.push(Vec2::new(a.cos(), a.sin()) * r);
            }
            r += spacing * 3f32.sqrt() / 2.0;
            row += 1;
        }
        if all.len() >= n {
            let mut rng = agent_rng(7, 0);
            // Each place moved a little (within 0.4 of the room between bodies), so
            // that the rows are not perfectly aligned.
            let play = ((spacing - 0.44) * 0.4).max(0.0);
            for p in &mut all {
                *p += Vec2::new(
                    uniform(&mut rng, -play, play),
                    uniform(&mut rng, -play, play),
                );
            }
            for i in (1..all.len()).rev() {
                let j = (uniform(&mut rng, 0.0, 1.0) * (i + 1) as f32) as usize;
                all.swap(i, j.min(i));
            }
            all.truncate(n);
            return all;
        }
        spacing *= 0.97;
    }
}

/// The point `AHEAD` along the ring (counter-clockwise) from `p`, on the circle of
/// radius `lane`: each walker keeps to its own line across the corridor, as people
/// keep their place across a corridor's width.
fn ahead(p: Vec2, lane: f32) -> Vec2 {
    let angle = p.y.atan2(p.x) + AHEAD / lane;
    Vec2::new(angle.cos(), angle.sin()) * lane
}

struct Measured {
    density: f32,
    speed: f32,
    /// Standard deviation over time of the area's mean speed.
    speed_sd: f32,
    /// Fraction of samples whose mean speed was below 0.1 m/s.
    stopped: f32,
    /// Largest overlap of two bodies over the radii sum.
    deepest: f32,
}

fn run(density: f32, avoidance: AvoidanceParams) -> Measured {
    let area = std::f32::consts::PI * (OUTER * OUTER - INNER * INNER);
    let n = (density * area).round() as usize;
    let mut world = World::new(WorldConfig {
        seed: 3,
        index: IndexKind::Grid,
        ..WorldConfig::default()
    });
    let mut walls = circle(OUTER, true);
    walls.extend(circle(INNER, false));
    world.set_walls(&walls).expect("walls");
    let g = world
        .add_group(
            GroupConfig::new("people")
                .with(Behaviour::Seek, 1.0)
                .neighbours(3.0, 10)
                .avoiding(avoidance),
        )
        .expect("group");
    let starts = places(n);
    let lanes: Vec<f32> = starts.iter().map(|p| p.length()).collect();
    let ids: Vec<AgentId> = starts
        .iter()
        .zip(&lanes)
        .map(|(&p, &lane)| {
            let spec = AgentSpec::new(g, p)
                .with_pedestrian_body()
                .with_target(Target::Point(ahead(p, lane)));
            world.spawn(spec).expect("spawn")
        })
        .collect();
    let half_angle = AREA_LENGTH / MID / 2.0;
    let sector_area = half_angle * (OUTER * OUTER - INNER * INNER);
    let (mut densities, mut speeds) = (Vec::new(), Vec::new());
    let mut deepest = 0.0f32;
    let mut targets = vec![Target::None; ids.len()];
    let ticks = ((WARMUP_S + MEASURE_S) / DT) as usize;
    for t in 0..ticks {
        for ((target, &id), &lane) in targets.iter_mut().zip(&ids).zip(&lanes) {
            *target = Target::Point(ahead(world.position(id).expect("agent"), lane));
        }
        world.set_each_target(&ids, &targets).expect("targets");
        world.step(DT).expect("step");
        if (t as f32) * DT < WARMUP_S {
            continue;
        }
        let (mut count, mut sum) = (0usize, 0.0f32);
        let pos = world.positions();
        for (p, v) in pos.iter().zip(world.velocities()) {
            if p.y.atan2(p.x).abs() <= half_angle {
                let along = Vec2::new(-p.y, p.x) / p.length();
                count += 1;
                sum += v.dot(along);
            }
        }
        densities.push(count as f32 / sector_area);
        if count > 0 {
            speeds.push(sum / count as f32);
        }
        if t % 20 == 0 {
            for (i, a) in pos.iter().enumerate() {
                for b in &pos[i + 1..] {
                    deepest = deepest.max(1.0 - a.distance(*b) / 0.44);
                }
            }
        }
    }
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
    let speed = mean(&speeds);
    let var = speeds.iter().map(|s| (s - speed).powi(2)).sum::<f32>() / speeds.len().max(1) as f32;
    Measured {
        density: mean(&densities),
        speed,
        speed_sd: var.sqrt(),
        stopped: speeds.iter().filter(|&&s| s < 0.1).count() as f32 / speeds.len().max(1) as f32,
        deepest,
    }
}

fn main() {
    // ORCA alone (the preset without its time gap), and the pedestrian preset; or
    // one configuration from the arguments.
    let mut configs = vec![
        (
            "ORCA alone (the pedestrian preset, time_gap 0)",
            AvoidanceParams {
                time_gap: 0.0,
                ..AvoidanceParams::pedestrian()
            },
        ),
        ("the pedestrian preset", AvoidanceParams::pedestrian()),
    ];
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let plot_to = plot::plot_arg(&mut args).expect("--plot FILE");
    if !args.is_empty() {
        let mut avoidance = AvoidanceParams::pedestrian();
        for arg in &args {
            let (key, value) = arg.split_once('=').expect("key = value");
            let value: f32 = value.trim().parse().expect("a number");
            match key.trim() {
                "time_horizon" => avoidance.time_horizon = value,
                "obstacle_time_horizon" => avoidance.obstacle_time_horizon = value,
                "time_gap" => avoidance.time_gap = value,
                "side_bias" => avoidance.side_bias = value,
                "squeeze" => avoidance.squeeze = value,
                other => panic!("unknown key {other}"),
            }
        }
        configs = vec![("the pedestrian preset with the arguments' keys", avoidance)];
    }
    let mut series = Vec::new();
    for (name, avoidance) in configs {
        let mut points = Vec::new();
        println!("\n{name}:\n");
        println!("| density asked (persons/m²) | measured | speed (m/s) | Weidmann at the measured density | speed / Weidmann | flow (persons/(m·s)) | speed's SD over time | samples below 0.1 m/s | deepest overlap |");
        println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for rho in DENSITIES {
            let m = run(rho, avoidance);
            let w = weidmann(m.density);
            println!(
                "| {rho} | {:.2} | {:.3} | {:.3} | {:.2} | {:.2} | {:.3} | {:.0}% | {:.2} |",
                m.density,
                m.speed,
                w,
                m.speed / w,
                m.density * m.speed,
                m.speed_sd,
                m.stopped * 100.0,
                m.deepest
            );
            points.push((m.density, m.speed));
        }
        series.push(Series {
            label: format!("throng: {name}"),
            points,
            kind: Kind::Measured,
        });
    }
    if let Some(path) = plot_to {
        series.push(Series {
            label: "people: Weidmann 1993".into(),
            points: (6..=108)
                .map(|i| i as f32 * 0.05)
                .map(|r| (r, weidmann(r)))
                .collect(),
            kind: Kind::Formula,
        });
        let chart = Chart {
            title: "Speed against density (one way round a ring corridor 2.5 m wide)",
            x: ("density (persons/m²)", 0.0..5.6),
            y: ("speed (m/s)", 0.0..1.6),
        };
        plot::write(&path, &chart, &series).expect("the plot is written");
        println!("\nwrote {}", path.display());
    }
}
