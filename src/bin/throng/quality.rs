//! Quality figures: overlapping pairs, non-finite state, wall crossings.

use glam::Vec2;
use throng::World;

/// Timed ticks between overlap samples.
pub const OVERLAP_EVERY: u64 = 10;

/// Counts overlapping pairs every [`OVERLAP_EVERY`] timed ticks (and on the
/// last one).
pub struct OverlapSampler {
    last_tick: u64,
    pairs: u64,
    agent_samples: u64,
    samples: u64,
    grid: PairGrid,
}

impl OverlapSampler {
    /// A sampler for a run of `ticks` timed ticks.
    pub fn new(ticks: u64) -> Self {
        Self {
            last_tick: ticks,
            pairs: 0,
            agent_samples: 0,
            samples: 0,
            grid: PairGrid::default(),
        }
    }

    /// Count overlaps if timed tick `t` (from 1) is a sampled one.
    pub fn maybe_sample(&mut self, t: u64, world: &World) {
        if !t.is_multiple_of(OVERLAP_EVERY) && t != self.last_tick {
            return;
        }
        self.pairs += self
            .grid
            .overlapping_pairs(world.positions(), world.radii());
        self.agent_samples += world.len() as u64;
        self.samples += 1;
    }

    /// Overlapping pairs per agent and sampled tick.
    pub fn per_agent_tick(&self) -> f64 {
        if self.agent_samples == 0 {
            0.0
        } else {
            self.pairs as f64 / self.agent_samples as f64
        }
    }

    /// Ticks sampled.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

/// A uniform grid (counting sort) for finding pairs closer than the sum of
/// their radii, without comparing every pair.
#[derive(Default)]
pub struct PairGrid {
    starts: Vec<u32>,
    items: Vec<u32>,
    cell_of: Vec<u32>,
}

impl PairGrid {
    /// Pairs `(i, j)`, `i < j`, with `|p_i - p_j| < r_i + r_j`. Non-finite
    /// positions are skipped.
    pub fn overlapping_pairs(&mut self, pos: &[Vec2], radii: &[f32]) -> u64 {
        let finite: Vec<usize> = (0..pos.len()).filter(|&i| pos[i].is_finite()).collect();
        let Some(first) = finite.first() else {
            return 0;
        };
        let (mut lo, mut hi) = (pos[*first], pos[*first]);
        for &i in &finite {
            lo = lo.min(pos[i]);
            hi = hi.max(pos[i]);
        }
        let max_r = finite.iter().map(|&i| radii[i]).fold(0.0f32, f32::max);
        if max_r <= 0.0 {
            return 0;
        }
        // Cells at least one largest diameter wide, at most about 4 per agent.
        let size = (hi - lo).max(Vec2::splat(1e-3));
        let min_cell = (size.x * size.y / (4.0 * finite.len() as f32)).sqrt();
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
        for &i in &finite {
            let (x, y) = key(pos[i]);
            let c = y * nx + x;
            self.cell_of[i] = c as u32;
            self.starts[c + 1] += 1;
        }
        for c in 0..nx * ny {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(finite.len(), 0);
        let mut fill = self.starts.clone();
        for &i in &finite {
            let c = self.cell_of[i] as usize;
            self.items[fill[c] as usize] = i as u32;
            fill[c] += 1;
        }
        let mut pairs = 0u64;
        for &i in &finite {
            let (x, y) = key(pos[i]);
            for cy in y.saturating_sub(1)..=(y + 1).min(ny - 1) {
                for cx in x.saturating_sub(1)..=(x + 1).min(nx - 1) {
                    let c = cy * nx + cx;
                    for &j in &self.items[self.starts[c] as usize..self.starts[c + 1] as usize] {
                        let j = j as usize;
                        if j > i {
                            let r = radii[i] + radii[j];
                            if pos[i].distance_squared(pos[j]) < r * r {
                                pairs += 1;
                            }
                        }
                    }
                }
            }
        }
        pairs
    }
}

/// Agents whose position, velocity or heading is not finite.
pub fn non_finite_agents(world: &World) -> u64 {
    let (p, v, h) = (world.positions(), world.velocities(), world.headings());
    (0..world.len())
        .filter(|&r| !(p[r].is_finite() && v[r].is_finite() && h[r].is_finite()))
        .count() as u64
}

/// Moves through a wall that the engine's integration pass prevented, summed
/// over the run.
pub fn wall_crossings_prevented(stats: &crate::report::Collector) -> u64 {
    stats.crossings_prevented()
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng::rng::{agent_rng, uniform};

    #[test]
    fn grid_matches_all_pairs() {
        let mut rng = agent_rng(9, 9);
        for n in [0usize, 1, 2, 50, 400] {
            let pos: Vec<Vec2> = (0..n)
                .map(|_| Vec2::new(uniform(&mut rng, -20.0, 20.0), uniform(&mut rng, -5.0, 5.0)))
                .collect();
            let radii: Vec<f32> = (0..n).map(|_| uniform(&mut rng, 0.1, 1.0)).collect();
            let mut brute = 0;
            for i in 0..n {
                for j in i + 1..n {
                    let r = radii[i] + radii[j];
                    if pos[i].distance_squared(pos[j]) < r * r {
                        brute += 1;
                    }
                }
            }
            assert_eq!(
                PairGrid::default().overlapping_pairs(&pos, &radii),
                brute,
                "n {n}"
            );
        }
        // Coincident agents overlap; far apart ones do not.
        let pos = [Vec2::ZERO, Vec2::ZERO, Vec2::new(100.0, 0.0)];
        assert_eq!(PairGrid::default().overlapping_pairs(&pos, &[0.5; 3]), 1);
    }
}
