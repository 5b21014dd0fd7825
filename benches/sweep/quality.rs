//! The sweep's crowd-quality table: every scenario of the quality suite, and the two
//! Circles, run with collision avoidance on and off; the figures from the quality
//! counter, which reads positions only.

use std::fmt::Write as _;

use throng::quality::{QualityCounter, QualitySettings, QualitySummary};
use throng::scenario::{self, Scenario};

use crate::args::Failure;

/// The scenarios, and how many ticks each runs for the table (none: the profile's).
pub(crate) const QUALITY_RUNS: &[(&str, Option<u64>)] = &[
    ("crossing", None),
    ("crossing4", None),
    ("hallway", None),
    ("pillars", None),
    ("doorway", None),
    ("bottleneck", None),
    ("oncoming", None),
    // The Circles at 1,000 agents, long enough for the crowds to cross and clear the
    // centre: 3,200 steps (800 s) for the disk, 4,800 (1,200 s) for the ring. At
    // speed 1 a straight walk takes at most 570 and 1,600 steps.
    ("circle_disk_orca", Some(3190)),
    ("circle_orca", Some(4790)),
];

/// Ticks between quality samples.
const EVERY: u64 = 10;

/// One scenario's figures with avoidance on or off.
pub(crate) struct QualityRun {
    pub(crate) profile: &'static str,
    pub(crate) avoidance: bool,
    pub(crate) agents: usize,
    pub(crate) ticks: u64,
    pub(crate) seconds: f32,
    pub(crate) summary: QualitySummary,
}

/// Run a bundled profile (to `ticks` after its warm-up, or its own end) with
/// avoidance on or off for every group, sampling the quality counter every 10 ticks.
pub(crate) fn quality_run(
    name: &'static str,
    ticks: Option<u64>,
    avoidance: bool,
) -> Result<QualityRun, Failure> {
    let b = scenario::bundled(name)
        .ok_or_else(|| Failure::Runtime(format!("the bundled profile {name} is missing")))?;
    let mut profile = scenario::load_bundled(b)?;
    if let Some(t) = ticks {
        profile.world.ticks = t;
    }
    for g in &mut profile.groups {
        g.config.avoidance = if avoidance {
            Some(g.config.avoidance.unwrap_or_default())
        } else {
            None
        };
    }
    let mut sc = Scenario::build(&profile)
        .map_err(|e| Failure::Runtime(format!("cannot build {name}: {e}")))?;
    let dt = profile.world.dt;
    let total = profile.world.warmup + profile.world.ticks;
    let mut counter = QualityCounter::new(QualitySettings {
        gates: sc.layout().gates.clone(),
        // Who stands at their goal at the end.
        checkpoints: vec![total as f32 * dt],
        ..QualitySettings::default()
    });
    counter.sample_world(0.0, sc.world());
    for t in 1..=total {
        sc.step()
            .map_err(|e| Failure::Runtime(format!("{name}, tick {t}: {e}")))?;
        if t % EVERY == 0 || t == total {
            counter.sample_world(t as f32 * dt, sc.world());
        }
    }
    Ok(QualityRun {
        profile: name,
        avoidance,
        agents: sc.world().len(),
        ticks: total,
        seconds: total as f32 * dt,
        summary: counter.summary(),
    })
}

/// The crowd-quality section of the report.
pub(crate) fn render_quality(s: &mut String, runs: &[QualityRun]) {
    let _ = writeln!(s, "## Crowd quality\n");
    if runs.is_empty() {
        let _ = writeln!(s, "Not run in this sweep (`--no-quality`).\n");
        return;
    }
    let _ = writeln!(
        s,
        "Every scenario of the quality suite (bundled profiles, described in \
         `profiles/README.md`), and the two Circles of the peers' benchmark, run with \
         collision avoidance (ORCA) on and off for every group; with it off the agents \
         steer by their behaviours alone (arrive, and wall avoidance where there are \
         walls). The figures come from `throng::quality`, which reads positions only, \
         sampled every {EVERY} ticks from the start: overlapping pairs (centres closer than \
         the sum of the radii) and deep ones (closer than half of it) per agent and \
         sample; the largest overlap of two bodies (units); agents that reached their \
         target (came within 1 unit of it) by the end, and those within 1 unit of it \
         at the end, with the mean time to it and the path walked over the straight \
         line; agents stuck at the end (away from their goal at the end, whether \
         they arrived before or not, and slower than 5% of their maximum speed for \
         the last 5 s); the flow through the \
         bottleneck's and the doorway's door (agents per second per metre).\n"
    );
    let _ = writeln!(
        s,
        "| scenario | agents | seconds | avoidance | overlapping pairs | deep | largest \
         overlap | reached | at goal at the end | time to goal (s) | path / straight | stuck | door flow |"
    );
    let _ = writeln!(
        s,
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in runs {
        let q = &r.summary;
        let opt =
            |v: Option<f64>, digits: usize| v.map_or("—".into(), |v| format!("{v:.digits$}"));
        let flow = q.gates.first().map_or("—".into(), |g| opt(g.flow, 2));
        let at_end = q
            .at_checkpoints
            .last()
            .map_or("—".into(), |c| format!("{:.1}%", 100.0 * c.within));
        let _ = writeln!(
            s,
            "| `{}` | {} | {:.0} | {} | {:.4} | {:.4} | {:.3} | {:.1}% | {at_end} | {} | {} | {} | {flow} |",
            r.profile,
            r.agents,
            r.seconds,
            if r.avoidance { "**on**" } else { "off" },
            q.overlapping_pairs_per_agent_sample,
            q.deep_pairs_per_agent_sample,
            q.max_penetration,
            100.0 * q.arrived_fraction,
            opt(q.mean_time_to_goal, 1),
            opt(q.mean_path_ratio, 2),
            q.stuck,
        );
    }
    let _ = writeln!(s);
}
