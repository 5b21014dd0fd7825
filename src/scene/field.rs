//! Goal fields (Reynolds' flow-field following): the travel distance from every
//! point of the walkable area to the nearest of a set of goals, around the scene's
//! walls and obstacles, and the direction that descends it.
//!
//! A field is a grid of square cells over the scene. A cell is *blocked* when its
//! centre is within the field's `clearance` of a wall, or within an obstacle grown
//! by it: the walkable area of a body of that radius. The distance is the solution
//! of the eikonal equation `|∇d| = 1` with `d = 0` on the goals, found by fast
//! marching (Sethian 1996; first-order upwind differences on the axes and the
//! diagonals, cells accepted in order of distance from bucketed queue, in an order
//! fixed by the scene, so a field is the same bits on every machine and thread
//! count). Unlike a grid Dijkstra, whose distances
//! follow 8 directions, its distances are close to Euclidean in every direction.
//! Each reached cell then stores its descent direction (upwind differences, so that
//! a ridge between two goals still points one way), and an agent's direction is
//! interpolated bilinearly between the four cells around it: motion is smooth, not
//! cell to cell.

use glam::Vec2;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Obstacle, Wall};
use crate::error::{Result, ThrongError};
use crate::math::x4::{Vec2x4, LANES};

/// The most cells a field may have (a 8,192 × 8,192 grid, about 810 MB at 12 bytes
/// and a bit a cell): a larger one is refused before anything is allocated.
pub const MAX_FIELD_CELLS: usize = 1 << 26;

/// Cells a field's area is padded by on each side beyond the walls, obstacles and
/// goals it covers.
const PAD_CELLS: f32 = 4.0;

/// A congestion-aware field counts its crowd in square blocks about this many
/// clearances a side (a metre for people of radius 0.25).
const BLOCK_CLEARANCES: f32 = 4.0;

/// A cell is *quiet* (one bit, [`GoalField::clear_of_goals`]) when the nine cells
/// around it are all reached and all more than this many clearances (or cells, where
/// those are larger) from a goal.
const QUIET_CLEARANCES: f32 = 4.0;

/// Where a field leads: one goal, or the nearest of several.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Goal {
    /// A point.
    Point(Vec2),
    /// A segment (a door's threshold, say).
    Segment(Vec2, Vec2),
    /// An axis-aligned box, from its lower corner to its upper one: every point of it
    /// is at distance 0 (an exit area, a room to reach).
    Box(Vec2, Vec2),
}

impl Goal {
    /// A box from two corners in any order; a point when they coincide.
    #[must_use]
    pub fn from_corners(a: Vec2, b: Vec2) -> Self {
        if a == b {
            Goal::Point(a)
        } else {
            Goal::Box(a.min(b), a.max(b))
        }
    }

    /// The goal's nearest point to `p`.
    #[must_use]
    pub fn nearest(&self, p: Vec2) -> Vec2 {
        match *self {
            Goal::Point(g) => g,
            Goal::Segment(a, b) => {
                let d = b - a;
                let len2 = d.length_squared();
                let t = if len2 > 0.0 {
                    ((p - a).dot(d) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                a + d * t
            }
            Goal::Box(lo, hi) => p.clamp(lo, hi),
        }
    }

    /// The corners of the goal's bounding box.
    fn extent(&self) -> (Vec2, Vec2) {
        match *self {
            Goal::Point(g) => (g, g),
            Goal::Segment(a, b) | Goal::Box(a, b) => (a.min(b), a.max(b)),
        }
    }

    fn is_finite(&self) -> bool {
        let (a, b) = self.extent();
        a.is_finite() && b.is_finite()
    }
}

/// What a goal field is built from, besides the scene: its goals, the radius of the
/// bodies it serves and its cell size. Kept in snapshots; the field itself is rebuilt
/// from it (bitwise the same).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldSpec {
    /// The goals; the field leads to the nearest.
    pub goals: Vec<Goal>,
    /// The radius of the bodies the field serves: walls and obstacles are grown by it,
    /// so the field never leads a body's centre closer to them than this (> 0).
    pub clearance: f32,
    /// The side of a cell (> 0); `None`: half the clearance. Cells coarser than the
    /// clearance (a city-sized map at a metre a cell) keep ways half a cell's diagonal
    /// from walls rather than the clearance, so that none leaks through a wall.
    pub cell: Option<f32>,
    /// The area the field covers, lower and upper corner; `None`: the walls, the
    /// obstacles and the goals, padded by a few cells. An agent outside it heads for
    /// the nearest point of it.
    pub bounds: Option<(Vec2, Vec2)>,
    /// Whether crowding makes ways longer, and how much; `None`: the field depends on
    /// the scene alone.
    pub congestion: Option<Congestion>,
}

/// A congestion-aware field (after Treuille, Cooper and Popović, "Continuum Crowds",
/// 2006): walking a unit of length through a crowd of density `ρ` (agents per unit
/// area, counted in blocks of about four clearances a side and averaged over the 3 × 3
/// blocks around) costs `1 + weight × ρ`, so a crowd queueing at the nearest exit
/// sends those behind it to a farther one when that is quicker. The world counts
/// its agents and rebuilds the field every `every` ticks; the field's distances are
/// then costs, not lengths.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Congestion {
    /// Extra cost of a unit of length per agent per unit area (> 0).
    pub weight: f32,
    /// Ticks between rebuilds (>= 1).
    pub every: u32,
}

impl FieldSpec {
    /// A field to `goals` for bodies of radius `clearance`, with the default cell
    /// size and area.
    #[must_use]
    pub fn new(goals: Vec<Goal>, clearance: f32) -> Self {
        Self {
            goals,
            clearance,
            cell: None,
            bounds: None,
            congestion: None,
        }
    }

    /// The same field, made congestion-aware ([`Congestion`]).
    #[must_use]
    pub fn with_congestion(mut self, weight: f32, every: u32) -> Self {
        self.congestion = Some(Congestion { weight, every });
        self
    }

    /// The same field with cells of side `cell`.
    #[must_use]
    pub fn with_cell(mut self, cell: f32) -> Self {
        self.cell = Some(cell);
        self
    }

    /// The same field over the box from `lo` to `hi`.
    #[must_use]
    pub fn with_bounds(mut self, lo: Vec2, hi: Vec2) -> Self {
        self.bounds = Some((lo.min(hi), lo.max(hi)));
        self
    }

    fn invalid(field: &str, reason: impl Into<String>) -> ThrongError {
        ThrongError::InvalidParameter {
            field: field.to_string(),
            reason: reason.into(),
        }
    }

    /// The cell side this spec asks for.
    fn cell_side(&self) -> f32 {
        self.cell.unwrap_or(self.clearance * 0.5)
    }

    fn validate(&self) -> Result<()> {
        if self.goals.is_empty() {
            return Err(Self::invalid(
                "field.goals",
                "a field needs at least one goal",
            ));
        }
        if let Some(i) = self.goals.iter().position(|g| !g.is_finite()) {
            return Err(Self::invalid(
                &format!("field.goals[{i}]"),
                "goal coordinates must be finite",
            ));
        }
        if !(self.clearance.is_finite() && self.clearance > 0.0) {
            return Err(Self::invalid(
                "field.clearance",
                format!("must be finite and > 0, got {}", self.clearance),
            ));
        }
        let cell = self.cell_side();
        if !(cell.is_finite() && cell > 0.0) {
            return Err(Self::invalid(
                "field.cell",
                format!("must be finite and > 0, got {cell}"),
            ));
        }
        if let Some(c) = self.congestion {
            if !(c.weight.is_finite() && c.weight > 0.0 && c.every >= 1) {
                return Err(Self::invalid(
                    "field.congestion",
                    format!(
                        "weight must be finite and > 0, every at least 1 tick; got weight {} every {}",
                        c.weight, c.every
                    ),
                ));
            }
        }
        if let Some((lo, hi)) = self.bounds {
            if !(lo.is_finite() && hi.is_finite() && hi.x > lo.x && hi.y > lo.y) {
                return Err(Self::invalid(
                    "field.bounds",
                    format!("must be finite with the upper corner above the lower, got {lo:?} and {hi:?}"),
                ));
            }
        }
        Ok(())
    }
}

/// What a field says at a point ([`GoalField::sample`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldSample {
    /// On the way: the unit direction of descent, and the travel distance left.
    Toward {
        /// Unit direction.
        direction: Vec2,
        /// Travel distance to the nearest goal (approximate, by the field's grid).
        distance: f32,
    },
    /// In a goal.
    AtGoal,
    /// No goal can be reached from here (walled off, or inside an obstacle).
    Unreachable,
}

impl FieldSample {
    /// The travel distance to the nearest goal it says: 0 in a goal, `None` where no
    /// goal can be reached.
    #[inline]
    #[must_use]
    pub fn distance(self) -> Option<f32> {
        match self {
            FieldSample::Toward { distance, .. } => Some(distance),
            FieldSample::AtGoal => Some(0.0),
            FieldSample::Unreachable => None,
        }
    }
}

/// A goal field built over a scene ([`GoalField::build`]). See the module docs.
#[derive(Clone, Debug)]
pub struct GoalField {
    spec: FieldSpec,
    /// Centre of cell (0, 0) minus half a cell: the grid's lower corner.
    origin: Vec2,
    cell: f32,
    inv_cell: f32,
    cols: usize,
    rows: usize,
    /// Per cell, row-major: its distance and direction side by side (a sample reads
    /// both of four cells).
    cells: Vec<FieldCell>,
    /// One bit a cell, row-major in `u64` words, `quiet_words` a row: set where the
    /// cell is quiet (see [`QUIET_CLEARANCES`]), so that a point in it samples as on
    /// its way, more than `quiet_beyond` from every goal, without reading four cells.
    quiet: Vec<u64>,
    quiet_words: usize,
    quiet_beyond: f32,
    /// A congestion-aware field's: per cell, blocked (kept for the rebuilds); and the
    /// agents counted per block at the last rebuild, with the block's side in cells.
    /// Empty otherwise.
    blocked: Vec<bool>,
    crowd: Vec<u16>,
    block: usize,
}

impl GoalField {
    /// Build the field of `spec` over the scene of `walls` and `obstacles`.
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] for a spec out of range, a grid of more than
    /// [`MAX_FIELD_CELLS`] cells, or goals that all lie inside walls or obstacles
    /// (grown by the clearance).
    pub fn build(spec: &FieldSpec, walls: &[Wall], obstacles: &[Obstacle]) -> Result<Self> {
        let (mut field, blocked) = GoalField::frame(spec, walls, obstacles)?;
        let (bx, by) = field.blocks();
        field.solve(blocked, vec![0; bx * by])?;
        Ok(field)
    }

    /// The grid of `spec`'s field over the scene, and its blocked cells; nothing
    /// solved yet.
    fn frame(
        spec: &FieldSpec,
        walls: &[Wall],
        obstacles: &[Obstacle],
    ) -> Result<(Self, Vec<bool>)> {
        spec.validate()?;
        let cell = spec.cell_side();
        let (lo, hi) = match spec.bounds {
            Some(b) => b,
            None => {
                let mut lo = Vec2::splat(f32::INFINITY);
                let mut hi = Vec2::splat(f32::NEG_INFINITY);
                for g in &spec.goals {
                    let (a, b) = g.extent();
                    lo = lo.min(a);
                    hi = hi.max(b);
                }
                for w in walls {
                    lo = lo.min(w.a()).min(w.b());
                    hi = hi.max(w.a()).max(w.b());
                }
                for o in obstacles {
                    lo = lo.min(o.centre() - o.radius());
                    hi = hi.max(o.centre() + o.radius());
                }
                let pad = Vec2::splat(spec.clearance + PAD_CELLS * cell);
                (lo - pad, hi + pad)
            }
        };
        let size = (hi - lo) / cell;
        let too_many = || {
            FieldSpec::invalid(
                "field.cell",
                format!(
                    "cells of {cell} over {:?} make more than {MAX_FIELD_CELLS} cells",
                    hi - lo
                ),
            )
        };
        if !(size.x.is_finite() && size.y.is_finite())
            || f64::from(size.x.ceil()) * f64::from(size.y.ceil()) > MAX_FIELD_CELLS as f64
        {
            return Err(too_many());
        }
        let cols = (size.x.ceil() as usize).max(1);
        let rows = (size.y.ceil() as usize).max(1);
        let field = GoalField {
            spec: spec.clone(),
            origin: lo,
            cell,
            inv_cell: 1.0 / cell,
            cols,
            rows,
            cells: Vec::new(),
            quiet: Vec::new(),
            quiet_words: cols.div_ceil(64),
            quiet_beyond: QUIET_CLEARANCES * spec.clearance.max(cell),
            blocked: Vec::new(),
            crowd: Vec::new(),
            block: ((spec.clearance * BLOCK_CLEARANCES / cell).round() as usize).max(1),
        };
        let blocked = field.blocked_cells(walls, obstacles);
        Ok((field, blocked))
    }

    /// A congestion-aware field built as `build` would, with `crowd` the agents per
    /// block (as [`GoalField::crowd`] gave): a snapshot's field.
    ///
    /// # Errors
    /// As [`GoalField::build`]; [`ThrongError::InvalidParameter`] when the spec is not
    /// congestion-aware or `crowd` has another length than the field's blocks.
    pub fn build_crowded(
        spec: &FieldSpec,
        walls: &[Wall],
        obstacles: &[Obstacle],
        crowd: Vec<u16>,
    ) -> Result<Self> {
        let (mut field, blocked) = GoalField::frame(spec, walls, obstacles)?;
        let (bx, by) = field.blocks();
        if spec.congestion.is_none() || crowd.len() != bx * by {
            return Err(FieldSpec::invalid(
                "field.crowd",
                format!(
                    "a congestion-aware field of {bx} x {by} blocks takes that many counts, got {}",
                    crowd.len()
                ),
            ));
        }
        field.solve(blocked, crowd)?;
        Ok(field)
    }

    /// This congestion-aware field rebuilt for a crowd at `positions` (the scene is
    /// the same: its walls and obstacles are not looked at again); `None` for a field
    /// that is not congestion-aware.
    #[must_use]
    pub fn recounted(&self, positions: &[Vec2]) -> Option<Self> {
        self.spec.congestion?;
        let (bx, by) = self.blocks();
        let mut crowd = vec![0u16; bx * by];
        let side = self.cell * self.block as f32;
        for p in positions {
            let b = (*p - self.origin) / side;
            if b.x >= 0.0 && b.y >= 0.0 && (b.x as usize) < bx && (b.y as usize) < by {
                let i = b.y as usize * bx + b.x as usize;
                crowd[i] = crowd[i].saturating_add(1);
            }
        }
        // Averaged with the last count, so that a crowd's way does not flip with each
        // rebuild as it moves.
        for (c, &old) in crowd.iter_mut().zip(&self.crowd) {
            *c = (u32::from(*c) + u32::from(old)).div_ceil(2) as u16;
        }
        let mut field = self.clone_frame();
        // The scene has not changed, so the goals are still reachable.
        field.solve(self.blocked.clone(), crowd).ok()?;
        Some(field)
    }

    /// The agents counted per block at the last rebuild (congestion-aware fields).
    #[must_use]
    pub fn crowd(&self) -> &[u16] {
        &self.crowd
    }

    /// The field's geometry and spec, without its results.
    fn clone_frame(&self) -> Self {
        GoalField {
            spec: self.spec.clone(),
            origin: self.origin,
            cell: self.cell,
            inv_cell: self.inv_cell,
            cols: self.cols,
            rows: self.rows,
            cells: Vec::new(),
            quiet: Vec::new(),
            quiet_words: self.quiet_words,
            quiet_beyond: self.quiet_beyond,
            blocked: Vec::new(),
            crowd: Vec::new(),
            block: self.block,
        }
    }

    /// Columns and rows of density blocks.
    fn blocks(&self) -> (usize, usize) {
        (
            self.cols.div_ceil(self.block),
            self.rows.div_ceil(self.block),
        )
    }

    /// Each cell's cost of a unit of length: 1, or with congestion `1 + weight × ρ`
    /// with `ρ` the density of the 3 × 3 blocks around the cell's block.
    fn costs(&self, crowd: &[u16]) -> Option<Vec<f32>> {
        let c = self.spec.congestion?;
        let (bx, by) = self.blocks();
        let area = (self.cell * self.block as f32).powi(2) * 9.0;
        let mut block_cost = vec![1.0f32; bx * by];
        for y in 0..by {
            for x in 0..bx {
                let mut n = 0u32;
                for yy in y.saturating_sub(1)..(y + 2).min(by) {
                    for xx in x.saturating_sub(1)..(x + 2).min(bx) {
                        n += u32::from(crowd[yy * bx + xx]);
                    }
                }
                block_cost[y * bx + x] = 1.0 + c.weight * n as f32 / area;
            }
        }
        let mut cost = Vec::with_capacity(self.cols * self.rows);
        for y in 0..self.rows {
            for x in 0..self.cols {
                cost.push(block_cost[(y / self.block) * bx + x / self.block]);
            }
        }
        Some(cost)
    }

    /// Seed, march and take the directions, over `blocked` cells with `crowd` agents
    /// per block (used only by a congestion-aware field, which keeps both).
    fn solve(&mut self, blocked: Vec<bool>, crowd: Vec<u16>) -> Result<()> {
        let (cols, rows) = (self.cols, self.rows);
        let costs = self.costs(&crowd);
        let mut marcher = Marcher::new(cols, rows, self.cell, &blocked, costs.as_deref());
        let seeds = self.seed(&mut marcher);
        if seeds == 0 {
            return Err(FieldSpec::invalid(
                "field.goals",
                "every goal lies inside a wall or an obstacle (grown by the clearance), or outside the field's area",
            ));
        }
        marcher.march();
        self.cells = directions(cols, rows, &marcher.distances(cols, rows));
        self.quiet = quiet_cells(cols, rows, &self.cells, self.quiet_beyond);
        if self.spec.congestion.is_some() {
            self.blocked = blocked;
            self.crowd = crowd;
        }
        Ok(())
    }

    /// The spec the field was built from.
    #[must_use]
    pub fn spec(&self) -> &FieldSpec {
        &self.spec
    }

    /// Columns and rows of cells.
    #[must_use]
    pub fn dims(&self) -> (usize, usize) {
        (self.cols, self.rows)
    }

    /// The side of a cell.
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// The lower and upper corners of the area the field covers.
    #[must_use]
    pub fn bounds(&self) -> (Vec2, Vec2) {
        (
            self.origin,
            self.origin + Vec2::new(self.cols as f32, self.rows as f32) * self.cell,
        )
    }

    /// The centre of cell `(x, y)`.
    #[must_use]
    pub fn cell_centre(&self, x: usize, y: usize) -> Vec2 {
        self.origin + (Vec2::new(x as f32, y as f32) + 0.5) * self.cell
    }

    /// The travel distance stored at cell `(x, y)` (infinite where blocked or
    /// unreached; `None` outside the grid).
    #[must_use]
    pub fn cell_distance(&self, x: usize, y: usize) -> Option<f32> {
        (x < self.cols && y < self.rows).then(|| self.cells[y * self.cols + x].dist)
    }

    /// The descent direction stored at cell `(x, y)` (zero in goals and where the
    /// distance is infinite).
    #[must_use]
    pub fn cell_direction(&self, x: usize, y: usize) -> Option<Vec2> {
        (x < self.cols && y < self.rows).then(|| self.cells[y * self.cols + x].dir)
    }

    /// Per cell: blocked or free, from the walls and obstacles grown by the clearance,
    /// or by half a cell's diagonal where that is more (cells coarser than the
    /// clearance): every cell a wall passes through is then blocked, so no way leaks
    /// through a wall between two cells, diagonal neighbours included. Rows of cells
    /// are rasterised in parallel bands (each cell's answer depends on the scene
    /// alone).
    fn blocked_cells(&self, walls: &[Wall], obstacles: &[Obstacle]) -> Vec<bool> {
        let (cols, rows) = (self.cols, self.rows);
        let r = self
            .spec
            .clearance
            .max(self.cell * std::f32::consts::FRAC_1_SQRT_2 * 1.0001);
        let r2 = r * r;
        let mut blocked = vec![false; cols * rows];
        let band = 16;
        blocked
            .par_chunks_mut(cols * band)
            .enumerate()
            .for_each(|(b, chunk)| {
                let y0 = b * band;
                let y1 = y0 + chunk.len() / cols;
                // The cells whose centres lie within `reach` of the box lo..hi.
                let span = |lo: Vec2, hi: Vec2| {
                    let a = ((lo - self.origin) * self.inv_cell - 0.5).floor();
                    let b = ((hi - self.origin) * self.inv_cell - 0.5).ceil();
                    let x0 = a.x.max(0.0) as usize;
                    let x1 = (b.x.max(-1.0) + 1.0).min(cols as f32) as usize;
                    let ya = (a.y.max(0.0) as usize).max(y0);
                    let yb = ((b.y.max(-1.0) + 1.0).min(rows as f32) as usize).min(y1);
                    (x0, x1, ya, yb)
                };
                for w in walls {
                    let (x0, x1, ya, yb) = span(w.a().min(w.b()) - r, w.a().max(w.b()) + r);
                    for y in ya..yb {
                        for x in x0..x1 {
                            let c = self.cell_centre(x, y);
                            if w.closest_point(c).distance_squared(c) < r2 {
                                chunk[(y - y0) * cols + x] = true;
                            }
                        }
                    }
                }
                for o in obstacles {
                    let reach = o.radius() + r;
                    let (x0, x1, ya, yb) = span(o.centre() - reach, o.centre() + reach);
                    for y in ya..yb {
                        for x in x0..x1 {
                            if self.cell_centre(x, y).distance_squared(o.centre()) < reach * reach {
                                chunk[(y - y0) * cols + x] = true;
                            }
                        }
                    }
                }
            });
        blocked
    }

    /// The free cells within a cell's diagonal of a goal (or inside a goal box) get
    /// their exact distance to the nearest goal and are accepted. Returns how many.
    fn seed(&self, m: &mut Marcher) -> usize {
        let reach = self.cell * std::f32::consts::SQRT_2;
        let mut seeds = 0;
        for g in &self.spec.goals {
            let (lo, hi) = g.extent();
            let a = ((lo - reach - self.origin) * self.inv_cell - 0.5).floor();
            let b = ((hi + reach - self.origin) * self.inv_cell - 0.5).ceil();
            let x0 = a.x.max(0.0) as usize;
            let y0 = a.y.max(0.0) as usize;
            let x1 = (b.x.max(-1.0) + 1.0).min(self.cols as f32) as usize;
            let y1 = (b.y.max(-1.0) + 1.0).min(self.rows as f32) as usize;
            for y in y0..y1 {
                for x in x0..x1 {
                    let i = m.at(x, y);
                    if m.trial[i] < 0.0 {
                        continue; // blocked
                    }
                    let c = self.cell_centre(x, y);
                    let d = g.nearest(c).distance(c);
                    if d <= reach && d < m.done[i] {
                        if m.done[i].is_infinite() {
                            seeds += 1;
                        }
                        m.done[i] = d;
                        m.trial[i] = d;
                    }
                }
            }
        }
        seeds
    }

    /// What the field says at `p`: the direction and distance interpolated bilinearly
    /// between the centres of the four cells around `p`, over those of them that are
    /// reached (where their directions cancel, on a ridge between two goals' basins,
    /// the direction of the heaviest). Where none is (a body pressed into a wall's clearance), the way back
    /// to the nearest reached cell within two cells; beyond that, [`FieldSample::Unreachable`].
    /// Outside the field's area: toward its nearest point.
    #[must_use]
    pub fn sample(&self, p: Vec2) -> FieldSample {
        let u = (p - self.origin) * self.inv_cell - 0.5;
        // Most points: the four cells around the point are all on the grid. Their
        // lower corner's floor is a truncation, exact for `u >= 0` (NaN fails); through
        // `u32`, fewer instructions than a saturating cast to `usize` (a cell past
        // `u32` saturates, and fails the bounds). `sample_anywhere` gives the same
        // (`tests::inner_samples_equal_the_general_path`).
        let (x, y) = (u.x as u32 as usize, u.y as u32 as usize);
        if u.cmpge(Vec2::ZERO).all() && x + 1 < self.cols && y + 1 < self.rows {
            let (i, j) = (y * self.cols + x, (y + 1) * self.cols + x);
            if let (Some(&a), Some(&b), Some(&c), Some(&d)) = (
                self.cells.get(i),
                self.cells.get(i + 1),
                self.cells.get(j),
                self.cells.get(j + 1),
            ) {
                let f = Vec2::new(x as f32, y as f32);
                return self.blend([a, b, c, d], u - f, p);
            }
        }
        self.sample_anywhere(p)
    }

    /// [`Self::sample`] at four points, one a lane: the four blends' arithmetic in the
    /// lanes of vectors (the weights, the sums in the cells' order, the direction's
    /// normalisation as glam's `normalize_or_zero` makes it, the distance's division),
    /// the same operations in the same order as four samples, so bit for bit the same
    /// answers (`tests::four_samples_equal_four_single_ones`). A point off the inner
    /// path (its four cells not all on the grid), or whose cells the lanes cannot
    /// settle (none reached, or directions that cancel), takes [`Self::sample`].
    #[must_use]
    pub(crate) fn sample4(&self, p: [Vec2; LANES]) -> [FieldSample; LANES] {
        use wide::f32x4;
        let (origin, inv, half) = (
            Vec2x4::splat(self.origin),
            f32x4::splat(self.inv_cell),
            f32x4::splat(0.5),
        );
        // `(p - origin) * inv_cell - 0.5`, as `sample` makes it.
        let u = Vec2x4::load(&p).sub(origin).scale(inv);
        let (ux, uy) = ((u.x - half).to_array(), (u.y - half).to_array());
        // Per lane, as `sample`'s inner path: its four cells, each read as a vector
        // (x, y, distance and the next cell's x; unreached where the lane is off that
        // path or a cell is the grid's last), and its lower corner.
        let floats: &[f32] = bytemuck::cast_slice(&self.cells);
        // Cells `i` and `i + 1` as two vectors, from one read of seven floats.
        let pair = |i: usize| {
            let v: &[f32; 7] = floats.get(i * 3..i * 3 + 7)?.try_into().ok()?;
            Some((
                f32x4::new([v[0], v[1], v[2], v[3]]),
                f32x4::new([v[3], v[4], v[5], v[6]]),
            ))
        };
        let unreached = f32x4::new([0.0, 0.0, f32::INFINITY, 0.0]);
        let mut cells = [[unreached; LANES]; 4];
        let (mut fx, mut fy) = ([0.0; LANES], [0.0; LANES]);
        let mut inner = [false; LANES];
        for l in 0..LANES {
            let (x, y) = (ux[l] as u32 as usize, uy[l] as u32 as usize);
            if !(ux[l] >= 0.0 && uy[l] >= 0.0 && x + 1 < self.cols && y + 1 < self.rows) {
                continue;
            }
            let (i, j) = (y * self.cols + x, (y + 1) * self.cols + x);
            if let (Some((a, b)), Some((c, d))) = (pair(i), pair(j)) {
                (cells[0][l], cells[1][l], cells[2][l], cells[3][l]) = (a, b, c, d);
                (fx[l], fy[l], inner[l]) = (x as f32, y as f32, true);
            }
        }
        // `blend`'s weights and `BlendSums`' sums, lane by lane.
        let (tx, ty) = ((u.x - half) - f32x4::new(fx), (u.y - half) - f32x4::new(fy));
        let one = f32x4::splat(1.0);
        let (wx, wy) = ([one - tx, tx], [one - ty, ty]);
        let weights = [wx[0] * wy[0], wx[1] * wy[0], wx[0] * wy[1], wx[1] * wy[1]];
        let zero = f32x4::ZERO;
        let (mut weight, mut sum_dist, mut sum_x, mut sum_y, mut at_goal) =
            (zero, zero, zero, zero, zero);
        for (weights, lanes) in weights.into_iter().zip(cells) {
            // Lane by lane: the cell's x, y and distance.
            let [x, y, d, _] = f32x4::transpose(lanes);
            let reached = d.is_finite();
            let w = weights & reached;
            weight += w;
            sum_dist += w * (d & reached);
            sum_x += w * (x & reached);
            sum_y += w * (y & reached);
            at_goal += w & d.simd_eq(zero);
        }
        // glam's `normalize_or_zero`: `v * (1 / |v|)` where that factor is finite and
        // positive.
        let rcp = one / (sum_x * sum_x + sum_y * sum_y).sqrt();
        let unit = rcp.is_finite() & rcp.simd_gt(zero);
        let (dx, dy) = ((sum_x * rcp).to_array(), (sum_y * rcp).to_array());
        let distance = (sum_dist / weight).to_array();
        let goal = at_goal.simd_ge(weight * half).to_bitmask();
        let settled = (weight.simd_gt(zero) & (unit | at_goal.simd_ge(weight * half))).to_bitmask();
        std::array::from_fn(|l| {
            if !inner[l] || settled >> l & 1 == 0 {
                self.sample(p[l])
            } else if goal >> l & 1 == 1 {
                FieldSample::AtGoal
            } else {
                FieldSample::Toward {
                    direction: Vec2::new(dx[l], dy[l]),
                    distance: distance[l],
                }
            }
        })
    }

    /// [`Self::sample`] at any point: outside the field, on its edges, not finite.
    fn sample_anywhere(&self, p: Vec2) -> FieldSample {
        let (lo, hi) = self.bounds();
        if !(p.cmpge(lo).all() && p.cmplt(hi).all()) {
            if !p.is_finite() {
                return FieldSample::Unreachable;
            }
            // Half a cell inside, so that the point aimed at is a cell centre's row.
            let inside = p.clamp(lo + self.cell * 0.5, hi - self.cell * 0.5);
            return match self.sample(inside) {
                FieldSample::Unreachable => FieldSample::Unreachable,
                FieldSample::AtGoal => FieldSample::Toward {
                    direction: (inside - p).normalize_or_zero(),
                    distance: inside.distance(p),
                },
                FieldSample::Toward { distance, .. } => FieldSample::Toward {
                    direction: (inside - p).normalize_or_zero(),
                    distance: distance + inside.distance(p),
                },
            };
        }
        // The cells off the grid count as unreached.
        let u = (p - self.origin) * self.inv_cell - 0.5;
        let f = u.floor();
        let (fx, fy) = (f.x as i64, f.y as i64);
        let cell = |dx: i64, dy: i64| {
            let (x, y) = (fx + dx, fy + dy);
            let on_grid = x >= 0 && y >= 0 && x < self.cols as i64 && y < self.rows as i64;
            if on_grid {
                self.cells[y as usize * self.cols + x as usize]
            } else {
                FieldCell::UNREACHED
            }
        };
        self.blend([cell(0, 0), cell(1, 0), cell(0, 1), cell(1, 1)], u - f, p)
    }

    /// The sample at `p` from the four cells whose centres surround it, in row order
    /// (lower left, lower right, upper left, upper right), `p` at `t` (0 to 1) across
    /// them: bilinear weights over the reached ones.
    #[inline(always)]
    fn blend(&self, cells: [FieldCell; 4], t: Vec2, p: Vec2) -> FieldSample {
        let (wx, wy) = ([1.0 - t.x, t.x], [1.0 - t.y, t.y]);
        let weights = [wx[0] * wy[0], wx[1] * wy[0], wx[0] * wy[1], wx[1] * wy[1]];
        let BlendSums {
            weight,
            dist,
            dir,
            at_goal,
        } = BlendSums::x4(weights, &cells);
        if weight > 0.0 {
            if at_goal >= weight * 0.5 {
                return FieldSample::AtGoal;
            }
            let direction = match dir.normalize_or_zero() {
                Vec2::ZERO => match heaviest_way(weights, cells) {
                    Some(d) => d,
                    None => return FieldSample::AtGoal,
                },
                d => d,
            };
            return FieldSample::Toward {
                direction,
                distance: dist / weight,
            };
        }
        self.way_back(p)
    }

    /// Ask the cache for the cells a sample at `p` reads (a hint, on x86-64: nothing
    /// else changes). The cell is found by truncation, which is the floor for the
    /// points inside the field; a point outside asks for some cell, or none.
    #[inline]
    pub fn prefetch(&self, p: Vec2) {
        let u = (p - self.origin) * self.inv_cell - 0.5;
        self.prefetch_cells(u.x, u.y);
    }

    /// [`Self::prefetch`] at four points, their cells found in the lanes of vectors.
    #[inline]
    pub(crate) fn prefetch4(&self, p: [Vec2; LANES]) {
        use wide::f32x4;
        let half = f32x4::splat(0.5);
        let u = Vec2x4::load(&p)
            .sub(Vec2x4::splat(self.origin))
            .scale(f32x4::splat(self.inv_cell));
        let (ux, uy) = ((u.x - half).to_array(), (u.y - half).to_array());
        for (x, y) in ux.into_iter().zip(uy) {
            self.prefetch_cells(x, y);
        }
    }

    /// The hints of [`Self::prefetch`] for the point at `(x, y)` in cells from the
    /// first cell's centre.
    #[inline(always)]
    fn prefetch_cells(&self, x: f32, y: f32) {
        // Through `u32` as in `sample`.
        let i = (y as u32 as usize)
            .saturating_mul(self.cols)
            .saturating_add(x as u32 as usize);
        // The two cells of each row, whose lines are one or two.
        let below = i.saturating_add(self.cols);
        for j in [i, i.saturating_add(1), below, below.saturating_add(1)] {
            if let Some(c) = self.cells.get(j) {
                cache_hint(c);
            }
        }
    }

    /// Whether a sample at `p` is known, from one bit, to be on its way
    /// ([`FieldSample::Toward`]) more than `within` from every goal: true only where
    /// `within` is at most four clearances (or cells, if larger) and
    /// the nine cells around `p`'s are reached and farther than that from a goal.
    /// False says nothing: [`GoalField::sample`] tells.
    #[inline]
    #[must_use]
    pub fn clear_of_goals(&self, p: Vec2, within: f32) -> bool {
        let c = (p - self.origin) * self.inv_cell;
        // Not NaN, not below the grid; edge cells are never quiet, so a point beyond
        // the upper edge (cast down to it) is not either.
        if !(within <= self.quiet_beyond && c.x >= 0.0 && c.y >= 0.0) {
            return false;
        }
        // Through `u32`: fewer instructions than a float's saturating cast to `usize`
        // (a cell index far beyond `u32` saturates and fails the bounds below).
        let (x, y) = (c.x as u32 as usize, c.y as u32 as usize);
        x < self.cols
            && y < self.rows
            && self.quiet[y * self.quiet_words + x / 64] >> (x % 64) & 1 == 1
    }

    /// From a point whose four cells are all blocked or unreached (a body pressed into
    /// a wall's clearance): out toward the centre of the nearest reached cell within
    /// two cells (ties: the smaller index) and on along that cell's direction, half
    /// and half, so that a body squeezed at a corner slides round it instead of
    /// stepping out and back in.
    fn way_back(&self, p: Vec2) -> FieldSample {
        let c = ((p - self.origin) * self.inv_cell).floor();
        let (cx, cy) = (c.x as i64, c.y as i64);
        let mut best: Option<(f32, usize, Vec2)> = None;
        for y in (cy - 2)..=(cy + 2) {
            for x in (cx - 2)..=(cx + 2) {
                if x < 0 || y < 0 || x >= self.cols as i64 || y >= self.rows as i64 {
                    continue;
                }
                let i = y as usize * self.cols + x as usize;
                if !self.cells[i].dist.is_finite() {
                    continue;
                }
                let centre = self.cell_centre(x as usize, y as usize);
                let d2 = centre.distance_squared(p);
                if best.is_none_or(|(b, _, _)| d2 < b) {
                    best = Some((d2, i, centre));
                }
            }
        }
        match best {
            Some((d2, i, centre)) => FieldSample::Toward {
                direction: ((centre - p).normalize_or_zero() + self.cells[i].dir)
                    .try_normalize()
                    .unwrap_or(self.cells[i].dir),
                distance: self.cells[i].dist + d2.sqrt(),
            },
            None => FieldSample::Unreachable,
        }
    }
}

/// The fast-marching state over a grid padded with one blocked cell on every side, so
/// that a cell's eight neighbours are fixed offsets with no bounds to test.
struct Marcher {
    /// Padded row length.
    width: usize,
    /// Cell side.
    h: f32,
    /// Per padded cell: the accepted distance; infinite until accepted (and for
    /// blocked cells, forever).
    done: Vec<f32>,
    /// Per padded cell: the best trial distance so far; infinite for a cell not yet
    /// reached, negative for a blocked one.
    trial: Vec<f32>,
    /// Per padded cell: the cost of a unit of length (empty: 1 everywhere).
    cost: Vec<f32>,
    /// The largest cost.
    max_cost: f32,
}

impl Marcher {
    /// The state of a grid of `cols` × `rows` cells of side `h`, `blocked` per cell.
    fn new(cols: usize, rows: usize, h: f32, blocked: &[bool], costs: Option<&[f32]>) -> Self {
        let width = cols + 2;
        let mut cost = Vec::new();
        let mut max_cost = 1.0f32;
        if let Some(costs) = costs {
            cost = vec![1.0; width * (rows + 2)];
            for (y, row) in costs.chunks_exact(cols).enumerate() {
                let start = (y + 1) * width + 1;
                cost[start..start + cols].copy_from_slice(row);
            }
            max_cost = costs.iter().copied().fold(1.0, f32::max);
        }
        let mut trial = vec![-1.0; width * (rows + 2)];
        for (y, row) in blocked.chunks_exact(cols).enumerate() {
            let start = (y + 1) * width + 1;
            for (t, &b) in trial[start..start + cols].iter_mut().zip(row) {
                if !b {
                    *t = f32::INFINITY;
                }
            }
        }
        Self {
            width,
            h,
            done: vec![f32::INFINITY; width * (rows + 2)],
            trial,
            cost,
            max_cost,
        }
    }

    /// The padded index of cell `(x, y)`.
    #[inline]
    fn at(&self, x: usize, y: usize) -> usize {
        (y + 1) * self.width + x + 1
    }

    /// The offsets of a padded cell's eight neighbours.
    #[inline]
    fn offsets(&self) -> [isize; 8] {
        let w = self.width as isize;
        [-1, 1, -w, w, -w - 1, -w + 1, w - 1, w + 1]
    }

    /// The first-order upwind solution of `|∇d| = 1` at padded cell `i` from its
    /// accepted neighbours, on two stencils (Hassouna and Farag's multi-stencil fast
    /// marching): the axes, with `a` and `b` the smaller accepted distances along x
    /// and y and `h` the cell side, and the diagonals, the same with the diagonal
    /// neighbours and `h√2`; the smaller of the two ([`eikonal_update`]). The
    /// diagonal stencil halves the axis stencil's error on the diagonals.
    #[inline]
    fn solve(&self, i: usize) -> f32 {
        let (d, w) = (&self.done, self.width);
        // A congestion-aware field's cell costs more than a unit per unit of length:
        // `|∇d| = cost`, the update's step scaled by it.
        let h = if self.cost.is_empty() {
            self.h
        } else {
            self.h * self.cost[i]
        };
        let a = d[i - 1].min(d[i + 1]);
        let b = d[i - w].min(d[i + w]);
        let axes = eikonal_update(a, b, h);
        let a = d[i - w - 1].min(d[i + w + 1]);
        let b = d[i - w + 1].min(d[i + w - 1]);
        axes.min(eikonal_update(a, b, h * std::f32::consts::SQRT_2))
    }

    /// Fast marching from the accepted cells over the free ones, with an untidy
    /// priority queue (Yatziv, Bartesaghi and Sapiro 2006): trial cells are kept in
    /// buckets of width `h / 2` by distance, taken bucket by bucket and in the order
    /// they were put within one, instead of a heap. O(1) per cell rather than
    /// O(log n); the order within a bucket is not by distance, which changes the
    /// distances by a small fraction of a cell (the tests bound the result against
    /// exact distances and paths). The order is a fixed function of the scene, so the
    /// field is the same bits every time.
    fn march(&mut self) {
        // A new trial distance is at most h√2 × the largest cost beyond the cell
        // accepted: with buckets h / 2 wide it lands at most 2√2 × that many buckets
        // ahead, so a ring of more than that never wraps onto a live bucket.
        let reach = (2.0 * std::f32::consts::SQRT_2 * self.max_cost).ceil();
        let ring_len = (reach as usize + 3).next_power_of_two().max(8);
        let inv_width = 2.0 / self.h;
        let bucket = |d: f32| (d * inv_width) as usize;
        let offsets = self.offsets();
        let mut ring: Vec<Vec<(u32, f32)>> = vec![Vec::new(); ring_len];
        // The seeds' neighbours, each in its bucket: they span a few buckets.
        let mut first: Vec<(usize, u32, f32)> = Vec::new();
        for i in 0..self.done.len() {
            if self.done[i].is_finite() {
                for o in offsets {
                    let n = i.wrapping_add_signed(o);
                    if self.done[n].is_infinite() && self.trial[n] >= 0.0 {
                        let d = self.solve(n);
                        if d < self.trial[n] {
                            self.trial[n] = d;
                            first.push((bucket(d), n as u32, d));
                        }
                    }
                }
            }
        }
        first.sort_unstable_by_key(|&(b, n, _)| (b, n));
        let mut first = first.into_iter().peekable();
        let mut live = 0usize;
        let mut k = 0;
        loop {
            while let Some(&(b, n, d)) = first.peek() {
                if b >= k + ring_len / 2 {
                    break;
                }
                ring[b.max(k) % ring_len].push((n, d));
                live += 1;
                first.next();
            }
            if live == 0 {
                match first.peek() {
                    Some(&(b, _, _)) => {
                        k = b;
                        continue;
                    }
                    None => break,
                }
            }
            let slot = k % ring_len;
            let mut j = 0;
            while j < ring[slot].len() {
                let (i, d) = ring[slot][j];
                j += 1;
                let i = i as usize;
                if self.done[i].is_finite() || d.to_bits() != self.trial[i].to_bits() {
                    continue; // stale: improved since, or already accepted
                }
                self.done[i] = d;
                for o in offsets {
                    let n = i.wrapping_add_signed(o);
                    if self.done[n].is_infinite() && self.trial[n] >= 0.0 {
                        let nd = self.solve(n);
                        if nd < self.trial[n] {
                            self.trial[n] = nd;
                            // Never behind the bucket being taken.
                            ring[bucket(nd).max(k) % ring_len].push((n as u32, nd));
                            live += 1;
                        }
                    }
                }
            }
            live -= ring[slot].len();
            ring[slot].clear();
            k += 1;
        }
    }

    /// The accepted distances of the unpadded grid, row by row (infinite where never
    /// reached).
    fn distances(&self, cols: usize, rows: usize) -> Vec<f32> {
        let mut out = Vec::with_capacity(cols * rows);
        for y in 0..rows {
            let start = self.at(0, y);
            out.extend_from_slice(&self.done[start..start + cols]);
        }
        out
    }
}

/// One cell of a field: its travel distance (infinite where blocked or unreached)
/// and its unit descent direction (zero in goals and where the distance is infinite).
///
/// Laid out as three `f32` (x, y, distance), so that four samples can read a cell's
/// three with the next cell's first as one vector ([`GoalField::sample4`]).
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct FieldCell {
    dir: Vec2,
    dist: f32,
}

impl FieldCell {
    /// What a sample takes a cell off the grid for.
    const UNREACHED: Self = Self {
        dir: Vec2::ZERO,
        dist: f32::INFINITY,
    };
}

/// What a sample weighs its four cells by ([`GoalField::blend`]): the sums over the
/// cells, in their order, of their bilinear weights (zero for an unreached cell), of
/// their distances and directions times those, and of the weights of the cells in a
/// goal.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BlendSums {
    weight: f32,
    dist: f32,
    dir: Vec2,
    at_goal: f32,
}

impl BlendSums {
    /// The sums, cell by cell. An unreached cell adds zeros, which leave the sums as
    /// they are (none of them is ever -0): the same sums as skipping it.
    #[cfg(test)]
    fn scalar(weights: [f32; 4], cells: &[FieldCell; 4]) -> Self {
        let (mut dir, mut dist, mut weight, mut at_goal) = (Vec2::ZERO, 0.0, 0.0, 0.0);
        for (w, c) in weights.into_iter().zip(cells) {
            let reached = c.dist.is_finite();
            let w = if reached { w } else { 0.0 };
            weight += w;
            dist += w * if reached { c.dist } else { 0.0 };
            dir += w * if reached { c.dir } else { Vec2::ZERO };
            at_goal += if c.dist == 0.0 { w } else { 0.0 };
        }
        Self {
            weight,
            dist,
            dir,
            at_goal,
        }
    }

    /// `Self::scalar` (the tests' reference) with the four cells' terms in the lanes
    /// of four registers, transposed so that each cell's terms are one register,
    /// added in the cells' order: the same operations in the same order, bit for
    /// bit the same sums (`tests::blend_sums_in_four_lanes_equal_the_scalar_ones`).
    #[inline(always)]
    fn x4(weights: [f32; 4], cells: &[FieldCell; 4]) -> Self {
        use wide::f32x4;
        let dist = f32x4::new(cells.map(|c| c.dist));
        let reached = dist.is_finite();
        let w = f32x4::new(weights) & reached;
        let (x, y) = (
            f32x4::new(cells.map(|c| c.dir.x)) & reached,
            f32x4::new(cells.map(|c| c.dir.y)) & reached,
        );
        let at_goal = (w & dist.simd_eq(f32x4::ZERO)).to_array();
        let [c0, c1, c2, c3] = f32x4::transpose([w, w * (dist & reached), w * x, w * y]);
        let [weight, dist, x, y] = (f32x4::ZERO + c0 + c1 + c2 + c3).to_array();
        Self {
            weight,
            dist,
            dir: Vec2::new(x, y),
            at_goal: 0.0 + at_goal[0] + at_goal[1] + at_goal[2] + at_goal[3],
        }
    }
}

/// Where the four cells' directions cancel (on a ridge between two goals' basins): the
/// direction of the heaviest reached cell that has one (the first on a tie); `None` if
/// none has.
#[cold]
fn heaviest_way(weights: [f32; 4], cells: [FieldCell; 4]) -> Option<Vec2> {
    let mut heaviest: Option<(f32, Vec2)> = None;
    for (w, c) in weights.into_iter().zip(cells) {
        if c.dist.is_finite() && c.dir != Vec2::ZERO && heaviest.is_none_or(|(h, _)| w > h) {
            heaviest = Some((w, c.dir));
        }
    }
    heaviest.map(|(_, d)| d)
}

/// Each cell with its unit descent direction from the distances `dist` of a grid of
/// `cols` × `rows` cells, by upwind differences: along each axis, toward the neighbour
/// with the smaller distance if it is smaller than the cell's own, by the drop. Rows
/// in parallel.
fn directions(cols: usize, rows: usize, dist: &[f32]) -> Vec<FieldCell> {
    let mut cells = vec![FieldCell::default(); cols * rows];
    cells.par_chunks_mut(cols).enumerate().for_each(|(y, out)| {
        for (x, o) in out.iter_mut().enumerate() {
            let i = y * cols + x;
            let d = dist[i];
            o.dist = d;
            if !d.is_finite() || d == 0.0 {
                continue;
            }
            let get = |ok: bool, j: usize| if ok { dist[j] } else { f32::INFINITY };
            let axis = |lo: f32, hi: f32| {
                if lo < hi {
                    -(d - lo).max(0.0)
                } else if hi.is_finite() {
                    (d - hi).max(0.0)
                } else {
                    0.0
                }
            };
            let v = Vec2::new(
                axis(get(x > 0, i.wrapping_sub(1)), get(x + 1 < cols, i + 1)),
                axis(
                    get(y > 0, i.wrapping_sub(cols)),
                    get(y + 1 < rows, i + cols),
                ),
            );
            o.dir = v.normalize_or_zero();
        }
    });
    cells
}

/// Fetch the cache line holding `value` toward the core (x86-64's `prefetcht0`); a
/// hint that changes nothing else, and nothing at all on other machines.
#[inline(always)]
fn cache_hint<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The quiet bits of a grid of `cols` × `rows` `cells` (see [`GoalField`]): a cell
/// off the grid's edge whose nine cells around it (itself included) are all reached
/// and more than `beyond` from a goal. A point in such a cell samples from four of
/// them, so its distance is more than `beyond` and it is in no goal. Rows in parallel.
fn quiet_cells(cols: usize, rows: usize, cells: &[FieldCell], beyond: f32) -> Vec<u64> {
    let words = cols.div_ceil(64);
    let mut quiet = vec![0u64; words * rows];
    let far = |i: usize| cells[i].dist.is_finite() && cells[i].dist > beyond;
    quiet
        .par_chunks_mut(words)
        .enumerate()
        .for_each(|(y, out)| {
            if y == 0 || y + 1 >= rows {
                return;
            }
            // Whether column x's three cells (rows y - 1 to y + 1) are far, for the
            // last three columns.
            let column = |x: usize| (y - 1..=y + 1).all(|r| far(r * cols + x));
            let (mut before, mut at) = (false, cols > 0 && column(0));
            for x in 1..cols {
                let after = column(x);
                if before && at && after {
                    out[(x - 1) / 64] |= 1 << ((x - 1) % 64);
                }
                (before, at) = (at, after);
            }
        });
    quiet
}

/// The eikonal update of one cell from the smaller accepted distances along x (`a`)
/// and y (`b`) for cells of side `h` (see [`GoalField`]'s `solve`).
#[inline]
pub(crate) fn eikonal_update(a: f32, b: f32, h: f32) -> f32 {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    if !lo.is_finite() {
        return f32::INFINITY;
    }
    if !hi.is_finite() || hi - lo >= h {
        return lo + h;
    }
    let diff = hi - lo;
    0.5 * (lo + hi + (2.0 * h * h - diff * diff).sqrt())
}

#[cfg(test)]
mod tests;
