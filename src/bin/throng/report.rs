//! The end-of-run report: per-phase timings, throughput, neighbours and
//! quality figures, as a table or one JSON object.

use serde::Serialize;
use throng::quality::{GateFlow, QualitySummary};
use throng::scenario::Scenario;
use throng::spatial::IndexKind;
use throng::TickStats;

/// Per-tick samples of the timed ticks.
pub struct Collector {
    resort: Vec<u64>,
    index: Vec<u64>,
    sight: Vec<u64>,
    steer: Vec<u64>,
    integrate: Vec<u64>,
    total: Vec<u64>,
    agent_ticks: u64,
    neighbours: u64,
    /// Agent-ticks that steered (level of detail rests some).
    steered: u64,
    quarantined: u64,
    crossings_prevented: u64,
}

impl Collector {
    /// Room for `ticks` samples.
    pub fn new(ticks: usize) -> Self {
        let v = || Vec::with_capacity(ticks);
        Self {
            resort: v(),
            index: v(),
            sight: v(),
            steer: v(),
            integrate: v(),
            total: v(),
            agent_ticks: 0,
            neighbours: 0,
            steered: 0,
            quarantined: 0,
            crossings_prevented: 0,
        }
    }

    /// Record one timed tick.
    pub fn push(&mut self, s: &TickStats) {
        self.resort.push(s.times.resort_ns);
        self.index.push(s.times.index_ns);
        self.sight.push(s.times.sight_ns);
        self.steer.push(s.times.steer_ns);
        self.integrate.push(s.times.integrate_ns);
        self.total.push(s.times.total_ns);
        self.agent_ticks += s.agents as u64;
        self.neighbours += s.neighbours;
        self.steered += s.steered;
        self.quarantined += s.quarantined;
        self.crossings_prevented += s.crossings_prevented;
    }

    /// Agents whose state the engine found non-finite and contained.
    pub fn quarantined(&self) -> u64 {
        self.quarantined
    }

    /// Wall crossings the integration pass prevented, over the run.
    pub fn crossings_prevented(&self) -> u64 {
        self.crossings_prevented
    }
}

/// Statistics of one phase over the timed ticks, in milliseconds per tick.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct PhaseStats {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest.
    pub max: f64,
}

impl PhaseStats {
    fn of(samples: &[u64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        let mut v = samples.to_vec();
        v.sort_unstable();
        let ms = |ns: u64| ns as f64 / 1e6;
        // Nearest rank.
        let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Self {
            mean: v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64 / 1e6,
            p50: ms(rank(0.50)),
            p95: ms(rank(0.95)),
            max: ms(v[v.len() - 1]),
        }
    }
}

/// Every phase of the tick.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Phases {
    /// The periodic spatial re-sort of the rows (zero on ticks without one).
    pub spatial_resort: PhaseStats,
    /// Rebuilding the neighbour index.
    pub index_build: PhaseStats,
    /// Leaders marking the agents in their sight.
    pub leader_sight: PhaseStats,
    /// Computing every agent's steering.
    pub steering: PhaseStats,
    /// The integration pass.
    pub integration: PhaseStats,
    /// The whole tick.
    pub total: PhaseStats,
}

/// How well the crowd behaved, sampled over the whole run (warm-up included).
#[derive(Clone, Debug, Serialize)]
pub struct Quality {
    /// Which ticks were sampled, e.g. `0..110 every 10`.
    pub sampled_ticks: String,
    /// Ticks sampled.
    pub overlap_samples: u64,
    /// Pairs of agents closer than the sum of their radii, per agent and
    /// sampled tick.
    pub overlapping_pairs_per_agent_tick: f64,
    /// Pairs closer than half the sum of their radii, per agent and sampled tick.
    pub deep_overlaps_per_agent_tick: f64,
    /// The largest overlap of two bodies seen (units; 0: none).
    pub max_penetration: f32,
    /// Agents with a point target, those that came within 1 unit of it, and the
    /// fraction.
    pub with_goal: usize,
    /// See `with_goal`.
    pub arrived: usize,
    /// See `with_goal`.
    pub arrived_fraction: f64,
    /// Of the agents with a point target, the fraction within 1 unit of it at the
    /// last sample (arrived agents pushed off since are not).
    pub at_goal_fraction: f64,
    /// Mean seconds from the start to arrival, of the arrived.
    pub mean_time_to_goal_s: Option<f64>,
    /// Mean path walked over the straight line to the goal, of the arrived.
    pub mean_path_ratio: Option<f64>,
    /// Agents not arrived and slower than 5% of their maximum speed for the last
    /// 5 s.
    pub stuck_at_end: usize,
    /// Crossings of the profile's gates.
    pub gates: Vec<GateFlow>,
    /// SteerBench's composite score and its parts, over the agents with a goal.
    pub steerbench: Option<throng::quality::SteerBench>,
    /// Moves through a wall that the engine stopped.
    pub wall_crossings_prevented: u64,
    /// Agents with non-finite state (must be 0).
    pub nan_count: u64,
}

impl Quality {
    /// The report's quality section from a counter's summary.
    pub fn new(
        q: &QualitySummary,
        (every, last): (u64, u64),
        wall_crossings_prevented: u64,
        nan_count: u64,
    ) -> Self {
        Self {
            sampled_ticks: format!("0..{last} every {every}"),
            overlap_samples: q.samples,
            overlapping_pairs_per_agent_tick: q.overlapping_pairs_per_agent_sample,
            deep_overlaps_per_agent_tick: q.deep_pairs_per_agent_sample,
            max_penetration: q.max_penetration,
            with_goal: q.with_goal,
            arrived: q.arrived,
            arrived_fraction: q.arrived_fraction,
            at_goal_fraction: q.at_goal_fraction,
            mean_time_to_goal_s: q.mean_time_to_goal,
            mean_path_ratio: q.mean_path_ratio,
            stuck_at_end: q.stuck,
            gates: q.gates.clone(),
            steerbench: q.steerbench,
            wall_crossings_prevented,
            nan_count,
        }
    }
}

/// A group's name and size.
#[derive(Clone, Debug, Serialize)]
pub struct GroupLine {
    /// Name.
    pub name: String,
    /// Agents.
    pub count: usize,
}

/// Everything the run reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Profile name.
    pub profile: String,
    /// Agents at the end.
    pub agents: usize,
    /// Groups and their sizes.
    pub groups: Vec<GroupLine>,
    /// World seed.
    pub seed: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// Untimed ticks run first.
    pub warmup_ticks: u64,
    /// Timed ticks.
    pub ticks: u64,
    /// Worker threads.
    pub threads: usize,
    /// Neighbour index: `kdtree` or `grid`.
    pub index: IndexKind,
    /// Milliseconds per tick, per phase.
    pub phases_ms: Phases,
    /// Agents times timed ticks, over the summed tick time.
    pub agent_ticks_per_second: f64,
    /// Mean over timed ticks of the neighbours each agent that steered perceived.
    pub mean_neighbours: f64,
    /// Quality figures.
    pub quality: Quality,
    /// Wall-clock seconds of the whole run, outputs included.
    pub wall_seconds: f64,
}

impl Report {
    /// Assemble the report.
    pub fn new(
        scenario: &Scenario,
        c: &Collector,
        quality: Quality,
        threads: usize,
        wall_seconds: f64,
    ) -> Self {
        let p = scenario.profile();
        let total_ns: u64 = c.total.iter().sum();
        Self {
            profile: p.name.clone(),
            agents: scenario.world().len(),
            groups: scenario
                .groups()
                .iter()
                .map(|g| GroupLine {
                    name: g.name.clone(),
                    count: g.count,
                })
                .collect(),
            seed: p.world.seed,
            dt: p.world.dt,
            warmup_ticks: p.world.warmup,
            ticks: c.total.len() as u64,
            threads,
            index: p.world.index,
            phases_ms: Phases {
                spatial_resort: PhaseStats::of(&c.resort),
                index_build: PhaseStats::of(&c.index),
                leader_sight: PhaseStats::of(&c.sight),
                steering: PhaseStats::of(&c.steer),
                integration: PhaseStats::of(&c.integrate),
                total: PhaseStats::of(&c.total),
            },
            agent_ticks_per_second: if total_ns > 0 {
                c.agent_ticks as f64 / (total_ns as f64 / 1e9)
            } else {
                0.0
            },
            mean_neighbours: if c.steered > 0 {
                c.neighbours as f64 / c.steered as f64
            } else {
                0.0
            },
            quality,
            wall_seconds,
        }
    }

    /// One JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Human-readable tables.
    pub fn to_table(&self) -> String {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|g| format!("{} {}", g.count, g.name))
            .collect();
        let mut out = format!(
            "{}: {} agents ({}), {}{} of {} s, seed {}, {} thread{}, {} index\n\n",
            self.profile,
            self.agents,
            groups.join(", "),
            crate::plural(usize::try_from(self.ticks).unwrap_or(usize::MAX), "tick"),
            if self.warmup_ticks > 0 {
                format!(" after {} warm-up", self.warmup_ticks)
            } else {
                String::new()
            },
            self.dt,
            self.seed,
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            match self.index {
                IndexKind::KdTree => "k-d tree",
                IndexKind::Grid => "grid",
            },
        );
        out.push_str(&format!(
            "{:<14}{:>11}{:>11}{:>11}{:>11}\n",
            "phase (ms)", "mean", "p50", "p95", "max"
        ));
        let ph = &self.phases_ms;
        for (name, s) in [
            ("spatial re-sort", ph.spatial_resort),
            ("index build", ph.index_build),
            ("leader sight", ph.leader_sight),
            ("steering", ph.steering),
            ("integration", ph.integration),
            ("total", ph.total),
        ] {
            out.push_str(&format!(
                "{name:<14}{:>11.3}{:>11.3}{:>11.3}{:>11.3}\n",
                s.mean, s.p50, s.p95, s.max
            ));
        }
        let q = &self.quality;
        out.push('\n');
        for (name, value) in [
            (
                "agent-ticks per second",
                format!("{:.3e}", self.agent_ticks_per_second),
            ),
            (
                "mean neighbours per agent",
                format!("{:.2}", self.mean_neighbours),
            ),
            (
                "overlapping pairs per agent-tick",
                format!(
                    "{:.4} (ticks {}: {} sampled)",
                    q.overlapping_pairs_per_agent_tick, q.sampled_ticks, q.overlap_samples
                ),
            ),
            (
                "deep overlaps per agent-tick",
                format!("{:.4}", q.deep_overlaps_per_agent_tick),
            ),
            ("largest penetration", format!("{:.3}", q.max_penetration)),
            ("arrived", arrival_line(q)),
            (
                "at the goal at the end",
                if q.with_goal == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}%", 100.0 * q.at_goal_fraction)
                },
            ),
            ("stuck at the end", q.stuck_at_end.to_string()),
            ("still on their way at the end", on_their_way_line(q)),
            ("SteerBench score", steerbench_line(q.steerbench)),
        ]
        .into_iter()
        .chain(q.gates.iter().map(|g| {
            let flow = g.flow.map_or("-".to_string(), |f| format!("{f:.3}"));
            (
                "flow through a gate",
                format!("{}: {} crossed, {flow} agents/s/m", g.name, g.crossed),
            )
        }))
        .chain([
            (
                "wall crossings prevented",
                q.wall_crossings_prevented.to_string(),
            ),
            ("NaN count", q.nan_count.to_string()),
            ("wall time (s)", format!("{:.2}", self.wall_seconds)),
        ]) {
            out.push_str(&format!("{name:<34}{value}\n"));
        }
        out
    }
}

/// Agents away from their goal at the end and not stuck: still walking when the run
/// ended (a scaled scene's longer ways need more `--ticks`).
fn on_their_way_line(q: &Quality) -> String {
    if q.with_goal == 0 {
        return "-".to_string();
    }
    let at_goal = (q.at_goal_fraction * q.with_goal as f64).round() as usize;
    let away = q.with_goal.saturating_sub(at_goal);
    away.saturating_sub(q.stuck_at_end).to_string()
}

/// "950 of 1000 with a point target (95.0%), 312.5 s on average, path 1.08 × the
/// straight line", or "no agent has a point target".
fn arrival_line(q: &Quality) -> String {
    if q.with_goal == 0 {
        return "no agent has a point target".to_string();
    }
    let mut line = format!(
        "{} of {} with a point target ({:.1}%)",
        q.arrived,
        q.with_goal,
        100.0 * q.arrived_fraction
    );
    if let Some(t) = q.mean_time_to_goal_s {
        line.push_str(&format!(", {t:.1} s on average"));
    }
    if let Some(r) = q.mean_path_ratio {
        line.push_str(&format!(", path {r:.2} × the straight line"));
    }
    line
}

/// SteerBench's composite and its parts, for the reports.
pub fn steerbench_line(s: Option<throng::quality::SteerBench>) -> String {
    s.map_or("-".to_string(), |s| {
        format!(
            "{:.1} (50 x {:.3} collisions + {:.1} s + {:.1} effort, per agent)",
            s.score, s.collisions_per_agent, s.time_per_agent, s.effort_per_agent
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).map(|x| x * 1_000_000).collect();
        let s = PhaseStats::of(&v);
        assert_eq!((s.p50, s.p95, s.max), (50.0, 95.0, 100.0));
        assert!((s.mean - 50.5).abs() < 1e-9);
        let one = PhaseStats::of(&[2_000_000]);
        assert_eq!((one.p50, one.p95, one.max, one.mean), (2.0, 2.0, 2.0, 2.0));
    }
}
