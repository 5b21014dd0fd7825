//! Quality figures: the library's counter ([`throng::quality`]) fed with a run's
//! positions every [`EVERY`] ticks over the whole run, or with a position file's.

use std::io::{BufRead, BufReader, Read};

use glam::Vec2;
use throng::quality::{Observed, QualityCounter, QualitySettings, QualitySummary};
use throng::scenario::Scenario;
use throng::World;

/// Ticks between quality samples.
pub const EVERY: u64 = 10;

/// Samples a scenario's world for the quality counter.
pub struct Sampler {
    counter: QualityCounter,
    dt: f32,
}

impl Sampler {
    /// A sampler for `scenario`, counting crossings of its gates.
    pub fn new(scenario: &Scenario) -> Self {
        let settings = QualitySettings {
            gates: scenario.layout().gates.clone(),
            ..QualitySettings::default()
        };
        Self {
            counter: QualityCounter::new(settings),
            dt: scenario.profile().world.dt,
        }
    }

    /// Sample the world after tick `tick` (0: the start).
    pub fn sample(&mut self, tick: u64, scenario: &Scenario) {
        self.counter
            .sample_world(tick as f32 * self.dt, scenario.world());
    }

    /// The figures so far.
    pub fn summary(&self) -> QualitySummary {
        self.counter.summary()
    }
}

/// Agents whose position, velocity or heading is not finite.
pub fn non_finite_agents(world: &World) -> u64 {
    let (p, v, h) = (world.positions(), world.velocities(), world.headings());
    (0..world.len())
        .filter(|&r| !(p[r].is_finite() && v[r].is_finite() && h[r].is_finite()))
        .count() as u64
}

/// What a position file does not say about its agents.
pub struct Body {
    /// Every agent's radius.
    pub radius: f32,
    /// Every agent's maximum speed.
    pub max_speed: f32,
    /// Goal: the start mirrored through the origin (else none).
    pub antipode: bool,
}

/// The counter over a CSV of positions (a header naming `tick`, `id`, `x` and `y`
/// among its columns; rows grouped by tick, in increasing ticks; tick 0 the start),
/// up to tick `until` when given.
pub fn count_file(
    file: impl Read,
    settings: QualitySettings,
    dt: f32,
    body: Body,
    until: Option<u64>,
) -> Result<QualitySummary, String> {
    let mut lines = BufReader::new(file).lines();
    let header = lines
        .next()
        .ok_or("the file is empty")?
        .map_err(|e| e.to_string())?;
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let col = |name: &str| {
        names
            .iter()
            .position(|&n| n == name)
            .ok_or(format!("no `{name}` column in the header `{header}`"))
    };
    let (ct, ci, cx, cy) = (col("tick")?, col("id")?, col("x")?, col("y")?);
    let mut counter = QualityCounter::new(settings);
    let mut starts: Vec<Option<Vec2>> = Vec::new();
    let mut frame: Vec<(usize, Vec2)> = Vec::new();
    let mut current: Option<u64> = None;
    let mut flush = |tick: u64, frame: &mut Vec<(usize, Vec2)>, starts: &mut Vec<Option<Vec2>>| {
        for &(id, p) in frame.iter() {
            if starts.len() <= id {
                starts.resize(id + 1, None);
            }
            starts[id].get_or_insert(p);
        }
        let observed = frame.iter().map(|&(id, pos)| Observed {
            id,
            pos,
            radius: body.radius,
            max_speed: body.max_speed,
            goal: body.antipode.then(|| -starts[id].unwrap_or(pos)),
        });
        counter.sample(tick as f32 * dt, observed);
        frame.clear();
    };
    for (n, line) in lines.enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let field = |c: usize| fields.get(c).map(|f| f.trim()).unwrap_or("");
        let bad = |what: &str| format!("line {}: {what}", n + 2);
        let tick: u64 = field(ct)
            .parse()
            .map_err(|_| bad("the tick is not a whole number"))?;
        let id: usize = field(ci)
            .parse()
            .map_err(|_| bad("the id is not a whole number"))?;
        let x: f32 = field(cx).parse().map_err(|_| bad("x is not a number"))?;
        let y: f32 = field(cy).parse().map_err(|_| bad("y is not a number"))?;
        if until.is_some_and(|u| tick > u) {
            break;
        }
        if current.is_some_and(|c| c != tick) {
            if let Some(c) = current {
                flush(c, &mut frame, &mut starts);
            }
        }
        current = Some(tick);
        frame.push((id, Vec2::new(x, y)));
    }
    if let Some(c) = current {
        flush(c, &mut frame, &mut starts);
    }
    Ok(counter.summary())
}

/// The summary as lines of text.
pub fn summary_lines(q: &QualitySummary) -> String {
    let mut out = String::new();
    let mut line = |name: &str, value: String| out.push_str(&format!("{name:<36}{value}\n"));
    line(
        "samples",
        format!("{} (t = {} .. {} s)", q.samples, q.first_time, q.last_time),
    );
    line(
        "overlapping pairs per agent-sample",
        format!("{:.4}", q.overlapping_pairs_per_agent_sample),
    );
    line(
        "deep overlaps per agent-sample",
        format!("{:.4}", q.deep_pairs_per_agent_sample),
    );
    line("largest penetration", format!("{:.3}", q.max_penetration));
    line(
        "reached their goal",
        format!(
            "{} of {} ({:.1}%)",
            q.arrived,
            q.with_goal,
            100.0 * q.arrived_fraction
        ),
    );
    line(
        "at their goal at the end",
        format!("{:.1}%", 100.0 * q.at_goal_fraction),
    );
    line(
        "SteerBench score",
        super::report::steerbench_line(q.steerbench),
    );
    for c in &q.at_checkpoints {
        line(
            &format!("at t = {} s", c.time),
            format!(
                "{:.1}% within 1 of their goal, {:.1}% had reached it",
                100.0 * c.within,
                100.0 * c.reached
            ),
        );
    }
    if let Some(t) = q.mean_time_to_goal {
        line("mean time to goal (s)", format!("{t:.1}"));
    }
    if let Some(r) = q.mean_path_ratio {
        line("path / straight line", format!("{r:.2}"));
    }
    line("stuck at the end", q.stuck.to_string());
    out
}
