//! Crowd quality read from positions alone: overlaps and their depth, arrival, time
//! to goal, path length against the straight line, agents stuck, and flow through
//! gates. The counter sees only what any crowd system can write down (agent ids,
//! positions, radii, maximum speeds, goals), so the same figures come out of a throng
//! run and of another system's position file (`throng quality FILE.csv`).
//!
//! Feed it [`QualityCounter::sample`] at regular times; [`QualityCounter::summary`]
//! gives the figures:
//! - overlapping pairs (centres closer than the sum of the radii) and deep ones (closer
//!   than half that sum), per agent and sample, and the largest penetration
//!   (`r_i + r_j - distance`) seen;
//! - of the agents with a goal, how many arrived (came within the tolerance), when
//!   (mean time from their first sample), and how long their path was against the
//!   straight line from where they started;
//! - agents stuck at the end: away from their goal at the end (never arrived, or
//!   pushed off and not back), and slower than a fraction of their maximum speed for
//!   the last few seconds (SteerSuite's notion: 5% for 5 s by default);
//! - for each gate (a segment, a door say): how many agents crossed it, and the flow
//!   in agents per second per metre of gate between its first and last crossing.

use glam::Vec2;
use serde::Serialize;

use crate::math::segment_intersection;

/// A measuring line: agents crossing it are counted (a door of a bottleneck, say).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// Name in reports.
    pub name: String,
    /// One end.
    pub a: Vec2,
    /// The other end.
    pub b: Vec2,
}

/// What the counter takes as arrived, stuck and crossed.
#[derive(Clone, Debug, PartialEq)]
pub struct QualitySettings {
    /// An agent within this distance of its goal has arrived (units). Default 1.
    pub arrival_tolerance: f32,
    /// Stuck: slower than this fraction of its maximum speed ... Default 0.05.
    pub stuck_speed_fraction: f32,
    /// ... for at least this long (s), away from its goal. Default 5.
    pub stuck_seconds: f32,
    /// Lines whose crossings are counted.
    pub gates: Vec<Gate>,
    /// Times (s) at which to count the agents within the tolerance of their goal
    /// (at the first sample at or after each): arrival as a snapshot, where the
    /// summary's `arrived` counts every agent that ever came that close.
    pub checkpoints: Vec<f32>,
}

impl Default for QualitySettings {
    fn default() -> Self {
        Self {
            arrival_tolerance: 1.0,
            stuck_speed_fraction: 0.05,
            stuck_seconds: 5.0,
            gates: Vec::new(),
            checkpoints: Vec::new(),
        }
    }
}

/// One agent as a sample sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observed {
    /// A stable number of the agent (its handle's slot, a file's id column): agents
    /// are followed from sample to sample by it. Dense numbers keep the counter small.
    pub id: usize,
    /// Position.
    pub pos: Vec2,
    /// Body radius.
    pub radius: f32,
    /// Maximum speed (for "stuck").
    pub max_speed: f32,
    /// Where it is going, if anywhere.
    pub goal: Option<Vec2>,
}

/// What the counter follows of one agent.
#[derive(Clone, Copy, Debug, Default)]
struct Track {
    seen: bool,
    start: Vec2,
    start_time: f32,
    last: Vec2,
    last_time: f32,
    path: f32,
    arrived_at: Option<f32>,
    /// Path length when it arrived, and the straight line it had.
    arrived_path: (f32, f32),
    /// Since when it has been slow (none: moving).
    slow_since: Option<f32>,
    /// Gates crossed (bit per gate, the first 64).
    crossed: u64,
    goal: Option<Vec2>,
    /// Collisions begun (SteerBench's: another body first overlapping this one).
    collisions: u32,
    /// Kinetic energy of a unit mass, `½ |v|²`, summed over the sampled intervals
    /// times their length, until the agent arrives (SteerBench's effort).
    effort: f64,
}

/// The figures of a run, or of the samples so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QualitySummary {
    /// Samples taken.
    pub samples: u64,
    /// Time of the first sample (s).
    pub first_time: f32,
    /// Time of the last sample (s).
    pub last_time: f32,
    /// Pairs closer than the sum of their radii, per agent and sample.
    pub overlapping_pairs_per_agent_sample: f64,
    /// Pairs closer than half the sum of their radii, per agent and sample.
    pub deep_pairs_per_agent_sample: f64,
    /// The largest `r_i + r_j - distance` of any pair in any sample (0: none).
    pub max_penetration: f32,
    /// Agents with a goal.
    pub with_goal: usize,
    /// Of them, those that came within the tolerance of it.
    pub arrived: usize,
    /// `arrived / with_goal` (1 when no agent has a goal): agents that ever came
    /// within the tolerance, some of which may have been pushed off since.
    pub arrived_fraction: f64,
    /// Of the agents with a goal, the fraction within the tolerance of it at their
    /// last sample: at their goal at the end (1 when no agent has a goal).
    pub at_goal_fraction: f64,
    /// Mean seconds from an arrived agent's first sample to its arrival.
    pub mean_time_to_goal: Option<f64>,
    /// Mean, over arrived agents that started away from their goal, of the path they
    /// walked over the straight line from start to goal.
    pub mean_path_ratio: Option<f64>,
    /// Agents with a goal, away from it at their last sample (never arrived, or
    /// pushed off since), slow for the last stuck time.
    pub stuck: usize,
    /// Each gate's crossings.
    pub gates: Vec<GateFlow>,
    /// Arrival at each checkpoint the samples reached.
    pub at_checkpoints: Vec<Checkpoint>,
    /// SteerBench's composite over the agents with a goal (none without one).
    pub steerbench: Option<SteerBench>,
}

/// SteerBench's composite score (Singh, Kapadia, Faloutsos and Reinman 2009, its
/// first technique): `50 × collisions + time + effort`, each a mean over the agents
/// with a goal. Lower is better.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SteerBench {
    /// Collisions an agent took part in: each time another body began to overlap
    /// it (a pair overlapping over consecutive samples is one collision).
    pub collisions_per_agent: f64,
    /// Seconds from an agent's first sample to its arrival (to the last sample for
    /// one that never arrived).
    pub time_per_agent: f64,
    /// The kinetic energy of a unit mass, `½ |v|²` with `v` from consecutive samples,
    /// summed over the sampled intervals times their length, until arrival.
    pub effort_per_agent: f64,
    /// `50 × collisions_per_agent + time_per_agent + effort_per_agent`.
    pub score: f64,
}

/// Arrival at one checkpoint, over the agents with a goal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Checkpoint {
    /// The checkpoint's time (s).
    pub time: f32,
    /// The fraction within the tolerance of their goal then.
    pub within: f64,
    /// The fraction that had come within the tolerance at some sample up to then
    /// (pushed off their goal since or not).
    pub reached: f64,
}

/// Crossings of one gate.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GateFlow {
    /// The gate's name.
    pub name: String,
    /// Agents that crossed it (each counted once).
    pub crossed: usize,
    /// Agents per second per metre of gate between the first and last crossing
    /// (none for fewer than two crossings).
    pub flow: Option<f64>,
    /// The time of the first crossing (s), as sampled.
    pub first: Option<f32>,
    /// The time of the last crossing (s), as sampled: when the last agent was through.
    pub last: Option<f32>,
}

/// Counts quality figures over samples of a crowd's positions.
#[derive(Default)]
pub struct QualityCounter {
    settings: QualitySettings,
    tracks: Vec<Track>,
    gate_times: Vec<Vec<f32>>,
    pairs: u64,
    deep: u64,
    max_penetration: f32,
    agent_samples: u64,
    summary_times: (u64, f32, f32),
    at_checkpoints: Vec<Checkpoint>,
    grid: PairGrid,
    pos: Vec<Vec2>,
    radii: Vec<f32>,
    ids: Vec<usize>,
    /// The overlapping pairs of the last sample, as `(id, id)` with the smaller first.
    touching: std::collections::HashSet<(usize, usize)>,
    touching_now: std::collections::HashSet<(usize, usize)>,
    pairs_now: Vec<(u32, u32)>,
}

impl QualityCounter {
    /// A counter with these settings.
    #[must_use]
    pub fn new(settings: QualitySettings) -> Self {
        let gates = settings.gates.len();
        Self {
            settings,
            gate_times: vec![Vec::new(); gates],
            ..Self::default()
        }
    }

    /// Take a sample at `time` (s) of the agents `observed`.
    pub fn sample(&mut self, time: f32, observed: impl IntoIterator<Item = Observed>) {
        self.pos.clear();
        self.radii.clear();
        self.ids.clear();
        let (samples, first, _) = self.summary_times;
        self.summary_times = (samples + 1, if samples == 0 { time } else { first }, time);
        for o in observed {
            self.pos.push(o.pos);
            self.radii.push(o.radius);
            self.ids.push(o.id);
            if !o.pos.is_finite() {
                continue;
            }
            self.follow(time, &o);
        }
        while let Some(&c) = self.settings.checkpoints.get(self.at_checkpoints.len()) {
            if time < c {
                break;
            }
            let (within, reached) = self.arrival_now();
            self.at_checkpoints.push(Checkpoint {
                time: c,
                within,
                reached,
            });
        }
        let (pairs, deep, depth) = self
            .grid
            .overlaps(&self.pos, &self.radii, &mut self.pairs_now);
        self.count_collisions();
        self.pairs += pairs;
        self.deep += deep;
        self.max_penetration = self.max_penetration.max(depth);
        self.agent_samples += self.pos.len() as u64;
    }

    /// Take a sample at `time` (s) of every agent of `world`: its handle's slot as
    /// its id, and its point target (if it has one) as its goal.
    pub fn sample_world(&mut self, time: f32, world: &crate::World) {
        let (ids, pos, radii) = (world.ids(), world.positions(), world.radii());
        let (speeds, targets) = (world.max_speeds(), world.targets());
        let observed = (0..world.len()).map(|r| Observed {
            id: ids[r].index() as usize,
            pos: pos[r],
            radius: radii[r],
            max_speed: speeds[r],
            goal: match targets[r] {
                crate::Target::Point(p) => Some(p),
                _ => None,
            },
        });
        self.sample(time, observed);
    }

    /// Of the agents with a goal: the fraction within the tolerance of it at their
    /// last sample, and the fraction that ever came that close (1 and 1 when none
    /// has a goal).
    fn arrival_now(&self) -> (f64, f64) {
        let tol = self.settings.arrival_tolerance;
        let goals = self.tracks.iter().filter_map(|t| Some((t, t.goal?)));
        let (n, within, reached) = goals.fold((0usize, 0usize, 0usize), |(n, w, r), (t, g)| {
            let near = usize::from(t.last.distance(g) <= tol);
            (n + 1, w + near, r + usize::from(t.arrived_at.is_some()))
        });
        if n == 0 {
            (1.0, 1.0)
        } else {
            (within as f64 / n as f64, reached as f64 / n as f64)
        }
    }

    /// Follow one agent from its last sample to this one.
    fn follow(&mut self, time: f32, o: &Observed) {
        if self.tracks.len() <= o.id {
            self.tracks.resize(o.id + 1, Track::default());
        }
        let s = &self.settings;
        let t = &mut self.tracks[o.id];
        t.goal = o.goal;
        if !t.seen {
            *t = Track {
                seen: true,
                start: o.pos,
                start_time: time,
                last: o.pos,
                last_time: time,
                goal: o.goal,
                ..Track::default()
            };
        } else {
            let step = o.pos.distance(t.last);
            for (g, gate) in s.gates.iter().enumerate().take(64) {
                if t.crossed & (1 << g) == 0
                    && segment_intersection(t.last, o.pos, gate.a, gate.b).is_some()
                {
                    t.crossed |= 1 << g;
                    self.gate_times[g].push(time);
                }
            }
            let dt = time - t.last_time;
            if t.arrived_at.is_none() {
                t.path += step;
                if dt > 0.0 {
                    let v = f64::from(step) / f64::from(dt);
                    t.effort += 0.5 * v * v * f64::from(dt);
                }
            }
            let slow = dt > 0.0 && step < s.stuck_speed_fraction * o.max_speed * dt;
            t.slow_since = match (slow, t.slow_since) {
                (true, Some(since)) => Some(since),
                (true, None) => Some(t.last_time),
                (false, _) => None,
            };
            t.last = o.pos;
            t.last_time = time;
        }
        if let (None, Some(goal)) = (t.arrived_at, o.goal) {
            if o.pos.distance(goal) <= s.arrival_tolerance {
                t.arrived_at = Some(time);
                t.arrived_path = (t.path, t.start.distance(goal));
            }
        }
    }

    /// The figures of the samples so far.
    #[must_use]
    pub fn summary(&self) -> QualitySummary {
        let s = &self.settings;
        let (samples, first_time, last_time) = self.summary_times;
        let per = |n: u64| {
            if self.agent_samples == 0 {
                0.0
            } else {
                n as f64 / self.agent_samples as f64
            }
        };
        let with_goal: Vec<&Track> = self
            .tracks
            .iter()
            .filter(|t| t.seen && t.goal.is_some())
            .collect();
        let arrived: Vec<&&Track> = with_goal
            .iter()
            .filter(|t| t.arrived_at.is_some())
            .collect();
        let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let times = arrived
            .iter()
            .filter_map(|t| t.arrived_at.map(|a| f64::from(a - t.start_time)))
            .collect();
        let ratios = arrived
            .iter()
            .filter(|t| t.arrived_path.1 > s.arrival_tolerance)
            .map(|t| f64::from(t.arrived_path.0 / t.arrived_path.1))
            .collect();
        let stuck = with_goal
            .iter()
            .filter(|t| {
                t.goal
                    .is_some_and(|g| t.last.distance(g) > s.arrival_tolerance)
                    && t.slow_since
                        .is_some_and(|since| last_time - since >= s.stuck_seconds)
            })
            .count();
        let gates = s
            .gates
            .iter()
            .zip(&self.gate_times)
            .map(|(gate, times)| {
                let width = f64::from(gate.a.distance(gate.b));
                let span = match (times.first(), times.last()) {
                    (Some(&a), Some(&b)) if b > a => Some(f64::from(b - a)),
                    _ => None,
                };
                GateFlow {
                    name: gate.name.clone(),
                    crossed: times.len(),
                    flow: span
                        .filter(|_| width > 0.0)
                        .map(|span| (times.len() - 1) as f64 / span / width),
                    first: times.first().copied(),
                    last: times.last().copied(),
                }
            })
            .collect();
        QualitySummary {
            samples,
            first_time,
            last_time,
            overlapping_pairs_per_agent_sample: per(self.pairs),
            deep_pairs_per_agent_sample: per(self.deep),
            max_penetration: self.max_penetration,
            with_goal: with_goal.len(),
            arrived: arrived.len(),
            arrived_fraction: if with_goal.is_empty() {
                1.0
            } else {
                arrived.len() as f64 / with_goal.len() as f64
            },
            at_goal_fraction: self.arrival_now().0,
            mean_time_to_goal: mean(times),
            mean_path_ratio: mean(ratios),
            stuck,
            gates,
            at_checkpoints: self.at_checkpoints.clone(),
            steerbench: steerbench(&with_goal, last_time),
        }
    }

    /// Count the collisions begun at this sample: pairs overlapping now that did not
    /// at the last one.
    fn count_collisions(&mut self) {
        self.touching_now.clear();
        for &(i, j) in &self.pairs_now {
            let (a, b) = (self.ids[i as usize], self.ids[j as usize]);
            let pair = (a.min(b), a.max(b));
            if self.touching_now.insert(pair) && !self.touching.contains(&pair) {
                for id in [pair.0, pair.1] {
                    if let Some(t) = self.tracks.get_mut(id) {
                        t.collisions += 1;
                    }
                }
            }
        }
        std::mem::swap(&mut self.touching, &mut self.touching_now);
    }
}

/// SteerBench's composite over `with_goal`, sampled up to `last_time`.
fn steerbench(with_goal: &[&Track], last_time: f32) -> Option<SteerBench> {
    if with_goal.is_empty() {
        return None;
    }
    let n = with_goal.len() as f64;
    let mean = |f: &dyn Fn(&Track) -> f64| with_goal.iter().map(|t| f(t)).sum::<f64>() / n;
    let collisions_per_agent = mean(&|t| f64::from(t.collisions));
    let time_per_agent = mean(&|t| f64::from(t.arrived_at.unwrap_or(last_time) - t.start_time));
    let effort_per_agent = mean(&|t| t.effort);
    Some(SteerBench {
        collisions_per_agent,
        time_per_agent,
        effort_per_agent,
        score: 50.0 * collisions_per_agent + time_per_agent + effort_per_agent,
    })
}

/// A uniform grid (counting sort) for finding pairs closer than the sum of their radii
/// without comparing every pair.
#[derive(Default)]
struct PairGrid {
    starts: Vec<u32>,
    fill: Vec<u32>,
    items: Vec<u32>,
    cell_of: Vec<u32>,
}

impl PairGrid {
    /// Pairs `(i, j)`, `i < j`, with `|p_i - p_j| < r_i + r_j`, into `found`; of them
    /// those closer than half that; and the largest `r_i + r_j - |p_i - p_j|`.
    /// Non-finite positions are skipped.
    fn overlaps(
        &mut self,
        pos: &[Vec2],
        radii: &[f32],
        found: &mut Vec<(u32, u32)>,
    ) -> (u64, u64, f32) {
        found.clear();
        let finite = || (0..pos.len()).filter(|&i| pos[i].is_finite());
        let Some(first) = finite().next() else {
            return (0, 0, 0.0);
        };
        let (mut lo, mut hi) = (pos[first], pos[first]);
        let mut max_r = 0.0f32;
        let mut n = 0usize;
        for i in finite() {
            lo = lo.min(pos[i]);
            hi = hi.max(pos[i]);
            max_r = max_r.max(radii[i]);
            n += 1;
        }
        if max_r <= 0.0 {
            return (0, 0, 0.0);
        }
        // Cells at least one largest diameter wide, at most about 4 per agent.
        let size = (hi - lo).max(Vec2::splat(1e-3));
        let min_cell = (size.x * size.y / (4.0 * n as f32)).sqrt();
        let cell = (2.0 * max_r).max(min_cell).max(1e-3);
        let nx = ((size.x / cell) as usize + 1).min(1 << 15);
        let ny = ((size.y / cell) as usize + 1).min(1 << 15);
        let cell = cell.max(size.x / nx as f32).max(size.y / ny as f32);
        let key = |p: Vec2| {
            let q = ((p - lo) / cell).floor();
            let x = (q.x.max(0.0) as usize).min(nx - 1);
            let y = (q.y.max(0.0) as usize).min(ny - 1);
            (x, y)
        };
        self.starts.clear();
        self.starts.resize(nx * ny + 1, 0);
        self.cell_of.clear();
        self.cell_of.resize(pos.len(), u32::MAX);
        for i in finite() {
            let (x, y) = key(pos[i]);
            let c = y * nx + x;
            self.cell_of[i] = c as u32;
            self.starts[c + 1] += 1;
        }
        for c in 0..nx * ny {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(n, 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.starts);
        for i in finite() {
            let c = self.cell_of[i] as usize;
            self.items[self.fill[c] as usize] = i as u32;
            self.fill[c] += 1;
        }
        let (mut pairs, mut deep, mut depth) = (0u64, 0u64, 0.0f32);
        for i in finite() {
            let (x, y) = key(pos[i]);
            for cy in y.saturating_sub(1)..=(y + 1).min(ny - 1) {
                for cx in x.saturating_sub(1)..=(x + 1).min(nx - 1) {
                    let c = cy * nx + cx;
                    for &j in &self.items[self.starts[c] as usize..self.starts[c + 1] as usize] {
                        let j = j as usize;
                        if j <= i {
                            continue;
                        }
                        let r = radii[i] + radii[j];
                        let d2 = pos[i].distance_squared(pos[j]);
                        if d2 < r * r {
                            found.push((i as u32, j as u32));
                            pairs += 1;
                            deep += u64::from(4.0 * d2 < r * r);
                            depth = depth.max(r - d2.sqrt());
                        }
                    }
                }
            }
        }
        (pairs, deep, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{agent_rng, uniform};

    #[test]
    fn steerbench_hand_worked() {
        // Two bodies of radius 0.5 on the x axis, sampled once a second. Agent 0
        // walks +x one unit a second from 0 to its goal at 4; agent 1 stands at 2.5
        // without a goal. They overlap (distance < 1) at t = 2 and 3 (0 at 2, 1 at
        // 3: 0.5 and 0.5 apart), not at 4 (1.5): one collision, for both. Agent 0
        // arrives (within 1) at t = 3 (at 3, 1 from 4): time 3; effort ½ × 1² × 1 per
        // interval for the three intervals up to its arrival: 1.5.
        let mut c = QualityCounter::new(QualitySettings::default());
        let obs = |id, x: f32, goal| Observed {
            id,
            pos: Vec2::new(x, 0.0),
            radius: 0.5,
            max_speed: 2.0,
            goal,
        };
        let goal = Some(Vec2::new(4.0, 0.0));
        for t in 0..=4 {
            c.sample(t as f32, [obs(0, t as f32, goal), obs(1, 2.5, None)]);
        }
        let s = c.summary().steerbench.unwrap();
        assert_eq!(s.collisions_per_agent, 1.0);
        assert_eq!(s.time_per_agent, 3.0);
        assert_eq!(s.effort_per_agent, 1.5);
        assert_eq!(s.score, 50.0 + 3.0 + 1.5);
        // Touching again after parting is a second collision; no goal, no score.
        let mut c = QualityCounter::new(QualitySettings::default());
        for (t, x) in [0.0, 0.5, 3.0, 0.5, 0.5].into_iter().enumerate() {
            c.sample(t as f32, [obs(0, 0.0, goal), obs(1, x, None)]);
        }
        assert_eq!(c.summary().steerbench.unwrap().collisions_per_agent, 2.0);
        let mut c = QualityCounter::new(QualitySettings::default());
        c.sample(0.0, [obs(0, 0.0, None)]);
        assert_eq!(c.summary().steerbench, None);
    }

    #[test]
    fn pairs_match_brute_force() {
        let mut rng = agent_rng(9, 9);
        for n in [0usize, 1, 2, 50, 400] {
            let pos: Vec<Vec2> = (0..n)
                .map(|_| Vec2::new(uniform(&mut rng, -20.0, 20.0), uniform(&mut rng, -5.0, 5.0)))
                .collect();
            let radii: Vec<f32> = (0..n).map(|_| uniform(&mut rng, 0.1, 1.0)).collect();
            let (mut pairs, mut deep, mut depth) = (0, 0, 0.0f32);
            for i in 0..n {
                for j in i + 1..n {
                    let r = radii[i] + radii[j];
                    let d = pos[i].distance(pos[j]);
                    if d < r {
                        pairs += 1;
                        deep += u64::from(d < r / 2.0);
                        depth = depth.max(r - d);
                    }
                }
            }
            let mut found = Vec::new();
            let (p, dp, dd) = PairGrid::default().overlaps(&pos, &radii, &mut found);
            assert_eq!((p, dp), (pairs, deep), "n {n}");
            assert_eq!(found.len() as u64, pairs);
            assert!((dd - depth).abs() < 1e-5);
        }
        // Coincident agents overlap deeply; far apart ones do not.
        let pos = [Vec2::ZERO, Vec2::ZERO, Vec2::new(100.0, 0.0)];
        let mut found = Vec::new();
        let overlaps = PairGrid::default().overlaps(&pos, &[0.5; 3], &mut found);
        assert_eq!((overlaps, found), ((1, 1, 1.0), vec![(0, 1)]));
    }

    fn agent(id: usize, pos: Vec2, goal: Option<Vec2>) -> Observed {
        Observed {
            id,
            pos,
            radius: 0.5,
            max_speed: 1.0,
            goal,
        }
    }

    #[test]
    fn at_the_goal_at_the_end_is_not_ever_arrived() {
        // Agent 0 reaches its goal at t = 1 and is pushed 3 away by t = 2; agent 1
        // reaches its own and stays. Both arrived; one is at its goal at the end.
        let mut q = QualityCounter::new(QualitySettings::default());
        let goal = Vec2::new(5.0, 0.0);
        for (t, p0) in [(0.0, Vec2::ZERO), (1.0, goal), (2.0, goal + Vec2::Y * 3.0)] {
            let p1 = if t > 0.0 { -goal } else { Vec2::ZERO };
            q.sample(t, [agent(0, p0, Some(goal)), agent(1, p1, Some(-goal))]);
        }
        let s = q.summary();
        assert_eq!((s.with_goal, s.arrived, s.arrived_fraction), (2, 2, 1.0));
        assert_eq!(s.at_goal_fraction, 0.5);
        // Pushed off 3 from its goal, agent 0 stands there for 6 s more: stuck,
        // though it once arrived. Agent 1 stands on its goal: not stuck.
        for t in 3..9 {
            let p0 = goal + Vec2::Y * 3.0;
            q.sample(
                t as f32,
                [agent(0, p0, Some(goal)), agent(1, -goal, Some(-goal))],
            );
        }
        let s = q.summary();
        assert_eq!((s.arrived, s.stuck, s.at_goal_fraction), (2, 1, 0.5));
    }

    #[test]
    fn arrival_path_and_stuck_hand_worked() {
        // Agent 0 walks from (0, 0) to its goal (4, 0) along a detour via (2, 2), one
        // sample a second: path 2√2 + 2√2 = 5.657 against 4, arrived at t = 2.
        // Agent 1 stands still 10 away from its goal for 8 s: stuck. Agent 2 has no
        // goal. A gate x = 1 from y = -5 to 5 is crossed by agent 0 only.
        let mut q = QualityCounter::new(QualitySettings {
            gates: vec![Gate {
                name: "door".into(),
                a: Vec2::new(1.0, -5.0),
                b: Vec2::new(1.0, 5.0),
            }],
            ..QualitySettings::default()
        });
        let path = [Vec2::ZERO, Vec2::new(2.0, 2.0), Vec2::new(4.0, 0.0)];
        for t in 0..9 {
            let p0 = path[t.min(2)];
            q.sample(
                t as f32,
                [
                    agent(0, p0, Some(Vec2::new(4.0, 0.0))),
                    agent(1, Vec2::new(0.0, 10.0), Some(Vec2::new(10.0, 10.0))),
                    agent(2, Vec2::new(-5.0, -5.0), None),
                ],
            );
        }
        let s = q.summary();
        assert_eq!((s.samples, s.first_time, s.last_time), (9, 0.0, 8.0));
        assert_eq!((s.with_goal, s.arrived, s.stuck), (2, 1, 1));
        assert_eq!(s.arrived_fraction, 0.5);
        assert_eq!(s.mean_time_to_goal, Some(2.0));
        let ratio = s.mean_path_ratio.unwrap();
        assert!((ratio - 2.0 * 8f64.sqrt() / 4.0).abs() < 1e-5, "{ratio}");
        assert_eq!(s.gates[0].crossed, 1);
        assert_eq!(s.gates[0].flow, None);
        assert_eq!(s.overlapping_pairs_per_agent_sample, 0.0);
    }

    #[test]
    fn gate_flow_hand_worked() {
        // Five agents cross a 2-unit gate at t = 1, 2, 3, 4, 5: 4 gaps over 4 s, so
        // one agent a second over 2 units: 0.5 agents per second per metre.
        let mut q = QualityCounter::new(QualitySettings {
            gates: vec![Gate {
                name: "g".into(),
                a: Vec2::new(0.0, -1.0),
                b: Vec2::new(0.0, 1.0),
            }],
            ..QualitySettings::default()
        });
        for t in 0..7 {
            let agents = (0..5).map(|k| {
                let x = if t > k { 1.0 } else { -1.0 };
                agent(k, Vec2::new(x, 0.0), None)
            });
            q.sample(t as f32, agents);
        }
        let g = &q.summary().gates[0];
        assert_eq!(g.crossed, 5);
        assert!((g.flow.unwrap() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn checkpoints_tell_within_from_reached() {
        // Agent 0 reaches its goal (0, 0) at t = 1 and is pushed 3 off it at t = 2;
        // agent 1 never gets there. A checkpoint is taken at the first sample at or
        // after it: 1 at t = 1; 1.5 and 2 both at t = 2.
        let mut q = QualityCounter::new(QualitySettings {
            checkpoints: vec![1.0, 1.5, 2.0],
            ..QualitySettings::default()
        });
        let goal = Some(Vec2::ZERO);
        for (t, x0) in [(0.0, 5.0), (1.0, 0.5), (2.0, 3.0)] {
            q.sample(
                t,
                [
                    agent(0, Vec2::new(x0, 0.0), goal),
                    agent(1, Vec2::new(9.0, 9.0), goal),
                ],
            );
        }
        let at: Vec<(f32, f64, f64)> = q
            .summary()
            .at_checkpoints
            .iter()
            .map(|c| (c.time, c.within, c.reached))
            .collect();
        assert_eq!(at, [(1.0, 0.5, 0.5), (1.5, 0.0, 0.5), (2.0, 0.0, 0.5)]);
    }
}
