//! [`ObstacleIndex`]: a uniform grid over circular obstacles.

use glam::Vec2;

use super::cell_lists::{max_cells_for, CellLayout, CellLists, CellRange};
use super::{Obstacle, SceneError};

/// A static set of obstacles with a uniform grid of cells, each listing the
/// obstacles whose bounding box overlaps it, so proximity queries need not scan
/// every obstacle.
///
/// The cell size is the mean obstacle diameter, grown until there are at most
/// `max(1024, min(4 * obstacles, 4 Mi))` cells.
#[derive(Clone, Debug)]
pub struct ObstacleIndex {
    obstacles: Vec<Obstacle>,
    /// Each obstacle's cell range (for reporting it from exactly one cell).
    ranges: Vec<CellRange>,
    grid: CellLists,
    pad: f32,
}

impl Default for ObstacleIndex {
    /// An index of no obstacles.
    fn default() -> Self {
        Self {
            obstacles: Vec::new(),
            ranges: Vec::new(),
            grid: CellLists::empty(),
            pad: 0.0,
        }
    }
}

impl ObstacleIndex {
    /// Build the index over `obstacles` (kept in order).
    ///
    /// # Errors
    /// [`SceneError::SceneTooLarge`] when there are more than `u32::MAX` obstacles
    /// or their bounding box is too large to measure in `f32`.
    pub fn new(obstacles: &[Obstacle]) -> Result<Self, SceneError> {
        if obstacles.is_empty() {
            return Ok(Self::default());
        }
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        let mut total_r = 0.0f64;
        for o in obstacles {
            lo = lo.min(o.centre() - Vec2::splat(o.radius()));
            hi = hi.max(o.centre() + Vec2::splat(o.radius()));
            total_r += f64::from(o.radius());
        }
        let too_large = SceneError::SceneTooLarge {
            count: obstacles.len(),
            extent: hi - lo,
        };
        if u32::try_from(obstacles.len()).is_err() {
            return Err(too_large);
        }
        let mean_d = (2.0 * total_r / obstacles.len() as f64) as f32;
        let scale = lo.abs().max(hi.abs()).max_element();
        let pad = 1e-4 + 1e-6 * scale;
        let margin = Vec2::splat(2.0 * pad);
        let shape = CellLayout::fit(
            lo - margin,
            hi + margin,
            mean_d,
            max_cells_for(obstacles.len()),
        )
        .ok_or(too_large)?;
        let pad = pad + 1e-3 * shape.cell();
        let range_of = |o: &Obstacle| {
            let r = Vec2::splat(o.radius() + pad);
            shape.range(o.centre() - r, o.centre() + r)
        };
        let ranges: Vec<CellRange> = obstacles
            .iter()
            .map(|o| {
                range_of(o).unwrap_or(CellRange {
                    x0: 0,
                    y0: 0,
                    x1: 0,
                    y1: 0,
                })
            })
            .collect();
        let grid = CellLists::build(shape, obstacles.len(), |i, push| {
            let r = ranges[i];
            for iy in r.y0..=r.y1 {
                for ix in r.x0..=r.x1 {
                    push(shape.index(ix, iy));
                }
            }
        })?;
        Ok(Self {
            obstacles: obstacles.to_vec(),
            ranges,
            grid,
            pad,
        })
    }

    /// The obstacles, in the order given.
    #[must_use]
    pub fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }

    /// Number of obstacles.
    #[must_use]
    pub fn len(&self) -> usize {
        self.obstacles.len()
    }

    /// Whether there are no obstacles.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.obstacles.is_empty()
    }

    /// Number of grid cells and of (cell, obstacle) entries.
    #[must_use]
    pub fn grid_stats(&self) -> (usize, usize) {
        (self.grid.shape.len(), self.grid.entries())
    }

    /// The cells a query of `radius` around `point` reads; `None` for a non-finite
    /// point or a NaN or negative radius.
    #[inline]
    fn query_cells(&self, point: Vec2, radius: f32) -> Option<CellRange> {
        if !point.is_finite() || radius.is_nan() || radius < 0.0 {
            return None;
        }
        let reach = Vec2::splat(radius + self.pad);
        self.grid.shape.range(point - reach, point + reach)
    }

    /// [`for_each_near`](Self::for_each_near) without removing repeats: `f` sees every
    /// obstacle whose circle comes within `radius` of `point` at least once, and one
    /// listed in several cells of the query once per cell, in the same order of first
    /// appearance. For callers that pick a minimum, where a repeat changes nothing:
    /// each band of cells is one slice of the grid, with no per-cell bookkeeping.
    #[inline]
    pub fn for_each_candidate(&self, point: Vec2, radius: f32, mut f: impl FnMut(u32, &Obstacle)) {
        let Some(q) = self.query_cells(point, radius) else {
            return;
        };
        let shape = &self.grid.shape;
        for iy in q.y0..=q.y1 {
            let band = self
                .grid
                .span_items(shape.index(q.x0, iy), shape.index(q.x1, iy));
            for &id in band {
                let Some(o) = self.obstacles.get(id as usize) else {
                    continue;
                };
                let reach = radius + o.radius();
                if (o.centre() - point).length_squared() <= reach * reach {
                    f(id, o);
                }
            }
        }
    }

    /// Call `f(index, obstacle)` once for each obstacle whose circle comes within
    /// `radius` of `point` (`|centre - point| <= radius + obstacle.radius`), in a
    /// deterministic order. Nothing for a non-finite point or a NaN or negative
    /// radius.
    pub fn for_each_near(&self, point: Vec2, radius: f32, mut f: impl FnMut(u32, &Obstacle)) {
        let Some(q) = self.query_cells(point, radius) else {
            return;
        };
        let shape = &self.grid.shape;
        for iy in q.y0..=q.y1 {
            for ix in q.x0..=q.x1 {
                for &id in self.grid.cell_items(shape.index(ix, iy)) {
                    let (Some(o), Some(r)) = (
                        self.obstacles.get(id as usize),
                        self.ranges.get(id as usize),
                    ) else {
                        continue;
                    };
                    // Report from the lowest cell shared by the query and the
                    // obstacle's range, so each obstacle is seen once.
                    if (ix, iy) != (q.x0.max(r.x0), q.y0.max(r.y0)) {
                        continue;
                    }
                    let reach = radius + o.radius();
                    if (o.centre() - point).length_squared() <= reach * reach {
                        f(id, o);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{agent_rng, uniform};

    #[test]
    fn matches_brute_force_once_each() {
        let mut rng = agent_rng(21, 0);
        let mut obs: Vec<Obstacle> = (0..500)
            .map(|_| {
                let c = Vec2::new(uniform(&mut rng, 0.0, 100.0), uniform(&mut rng, 0.0, 100.0));
                Obstacle::new(c, uniform(&mut rng, 0.2, 3.0)).unwrap()
            })
            .collect();
        // Coincident centres and one huge obstacle.
        obs.push(Obstacle::new(Vec2::new(50.0, 50.0), 1.0).unwrap());
        obs.push(Obstacle::new(Vec2::new(50.0, 50.0), 2.0).unwrap());
        obs.push(Obstacle::new(Vec2::new(10.0, 90.0), 40.0).unwrap());
        let idx = ObstacleIndex::new(&obs).unwrap();
        for _ in 0..3_000 {
            let p = Vec2::new(
                uniform(&mut rng, -20.0, 120.0),
                uniform(&mut rng, -20.0, 120.0),
            );
            let r = uniform(&mut rng, 0.0, 12.0);
            let mut got = Vec::new();
            idx.for_each_near(p, r, |i, _| got.push(i));
            // The repeating variant: the same obstacles, first seen in the same order.
            let mut seen = Vec::new();
            idx.for_each_candidate(p, r, |i, _| {
                if !seen.contains(&i) {
                    seen.push(i);
                }
            });
            assert_eq!(seen, got);
            let n = got.len();
            got.sort_unstable();
            got.dedup();
            assert_eq!(got.len(), n, "duplicate report");
            let want: Vec<u32> = (0..obs.len() as u32)
                .filter(|&i| {
                    let o = &obs[i as usize];
                    (o.centre() - p).length_squared() <= (r + o.radius()).powi(2)
                })
                .collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn degenerate_queries() {
        let idx = ObstacleIndex::new(&[Obstacle::new(Vec2::ZERO, 1.0).unwrap()]).unwrap();
        let mut n = 0;
        idx.for_each_near(Vec2::NAN, 1.0, |_, _| n += 1);
        idx.for_each_near(Vec2::ZERO, f32::NAN, |_, _| n += 1);
        idx.for_each_near(Vec2::ZERO, -1.0, |_, _| n += 1);
        assert_eq!(n, 0);
        idx.for_each_near(Vec2::new(1e9, 0.0), f32::INFINITY, |_, _| n += 1);
        assert_eq!(n, 1);
        let empty = ObstacleIndex::new(&[]).unwrap();
        empty.for_each_near(Vec2::ZERO, 10.0, |_, _| n += 1);
        assert_eq!(n, 1);
    }
}
