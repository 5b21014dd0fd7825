//! The uniform grid index: rows counting-sorted into square cells, cells stored as start
//! offsets into row ids with the rows' x / y copied alongside, so a query copies or scans
//! contiguous runs (one per row of cells).

use glam::Vec2;
use rayon::prelude::*;

use super::cells::{copy_unit_vels, Axis, CellFrame, CellTable, MAX_RUNS, NO_CELL, RUN_GAP};
use super::{addressable, clean_radius, reach_cells, Bounds, CELL_PER_RADIUS, CORE_SAMPLE};

/// The grid never has more than `CELLS_PER_ROW * rows + CELLS_SLACK` cells (its
/// border included): far-apart positions grow the cell size instead of the cell count.
/// A sparse crowd gets somewhat wider cells rather than many empty ones, whose starts
/// every rebuild writes and every scan reads (`docs/optimisations.md`, "A sparse
/// crowd's cells").
const CELLS_PER_ROW: usize = 3;
const CELLS_SLACK: usize = 16;

/// The most rows a cell stores; a fuller cell stores this many of its rows, spread
/// evenly over its entry order ([`cap_cells`]), and the rest are seen by no query,
/// though they still query their own neighbours. Cells are a little over one
/// neighbour radius wide, and bodies that stand one radius apart fill a few dozen to
/// a cell at most: only a crowd squeezed far past overlapping (a crowd spawned on one
/// point, spreading out) reaches the cap, which then bounds every query's work (or a
/// crowd in more places far apart than the runs of cells can separate, whose cells
/// then grow wider than the radius: [`Axis`]). The
/// force model's densest bundled crowd (the Circle's disk at its crossing, over 128 to
/// a cell) stays under it.
pub(super) const MAX_PER_CELL: usize = 256;

/// Take out ([`NO_CELL`]) entries of `cell_of` so that no cell keeps more than
/// [`MAX_PER_CELL`]; `totals[c]` is how many entries cell `c` has. Of a cell with `t`
/// entries, the `i`-th (in entry order, from 0) is kept when `(i + 1) * MAX_PER_CELL /
/// t` passes a whole number, which keeps exactly [`MAX_PER_CELL`] spread evenly over
/// the cell's entries. The entries come in the rows' spatial order, so those kept
/// sample the whole cell (the cell's first rows would crowd into one corner of it,
/// and the rows near the other corners would find their nearest neighbours far away).
/// `rests` is scratch: per cell, `i * MAX_PER_CELL mod t` for its next entry `i`,
/// stepped without a division. Returns whether any entry was taken out.
pub(super) fn cap_cells(cell_of: &mut [u32], totals: &[u32], rests: &mut Vec<u32>) -> bool {
    rests.clear();
    rests.resize(totals.len(), 0);
    let cap = MAX_PER_CELL as u32;
    let mut capped = false;
    for c in cell_of.iter_mut() {
        let (Some(&t), Some(rest)) = (totals.get(*c as usize), rests.get_mut(*c as usize)) else {
            continue;
        };
        if t > cap {
            // `(i + 1) * cap` passes a multiple of `t` (at most one: cap < t) exactly
            // when the rest wraps.
            *rest += cap;
            if *rest >= t {
                *rest -= t;
            } else {
                *c = NO_CELL;
                capped = true;
            }
        }
    }
    capped
}

/// Below this many rows the cell ids are computed on the calling thread.
const PARALLEL_MIN: usize = 16_384;

/// Rows per block of the cell pass, which notes each block's least and greatest cell:
/// the fill of a range of cells reads only the blocks that reach into it. With the rows
/// in the grid's own order (`order::grid_keys`) a block holds a run of consecutive
/// cells, in one worker's range unless it lies across the edge of two; along the
/// Hilbert curve (`spatial_order`), a compact patch.
const ROW_BLOCK: usize = 2048;

/// Whether the block with least and greatest cell `span` may hold rows of the cells
/// `lo..lo + len` (`len > 0`).
#[inline]
fn reaches((least, greatest): (u32, u32), lo: usize, len: usize) -> bool {
    greatest as usize >= lo && (least as usize) < lo + len
}

/// The most workers the counting sort splits its cells between (`2^MAX_SPLITS`).
const MAX_SPLITS: u32 = 6;

/// The counting sort's count for the cells `lo..lo + ends.len()`: `ends[c - lo]`
/// becomes the number of rows in cells `lo..=c` (counted from `lo`), `totals[0]` the
/// number in them all and `fullest[0]` the most in one cell. Split in two halves of
/// cells on both sides of a `rayon::join`, `depth` times, `totals` and `fullest` with
/// them (a half of the cells stopping early leaves the rest of its slots zero); each
/// worker reads only the blocks of rows that reach into its cells.
fn count_cells(
    rows: Rows<'_>,
    ends: &mut [u32],
    lo: usize,
    (totals, fullest): (&mut [u32], &mut [u32]),
    depth: u32,
) {
    if depth == 0 || ends.len() < 2 {
        ends.fill(0);
        let len = ends.len();
        let blocks = rows.cell_of.chunks(ROW_BLOCK).zip(rows.blocks);
        for (cells, &span) in blocks {
            if !reaches(span, lo, len) {
                continue;
            }
            for &c in cells {
                if let Some(n) = ends.get_mut((c as usize).wrapping_sub(lo)) {
                    *n += 1;
                }
            }
        }
        let (mut acc, mut most) = (0u32, 0u32);
        for e in ends.iter_mut() {
            most = most.max(*e);
            acc += *e;
            *e = acc;
        }
        totals.fill(0);
        fullest.fill(0);
        if let (Some(t), Some(f)) = (totals.first_mut(), fullest.first_mut()) {
            (*t, *f) = (acc, most);
        }
        return;
    }
    let half = ends.len() / 2;
    let (left, right) = ends.split_at_mut(half);
    let (tl, tr) = totals.split_at_mut(totals.len() / 2);
    let (fl, fr) = fullest.split_at_mut(fullest.len() / 2);
    rayon::join(
        || count_cells(rows, left, lo, (tl, fl), depth - 1),
        || count_cells(rows, right, lo + half, (tr, fr), depth - 1),
    );
}

/// The entry arrays of a range of cells (`unit_vels` empty when the rows' unit
/// velocities are not stored).
struct Entries<'a> {
    xs: &'a mut [f32],
    ys: &'a mut [f32],
    ids: &'a mut [u32],
    /// x and y of the unit velocities.
    unit_vels: (&'a mut [f32], &'a mut [f32]),
}

/// What the fill reads of the rows: cells, positions, unit velocities (empty when not
/// stored) and the blocks' spans of cells.
#[derive(Clone, Copy)]
struct Rows<'a> {
    cell_of: &'a [u32],
    positions: &'a [Vec2],
    unit_vels: &'a [Vec2],
    blocks: &'a [(u32, u32)],
}

/// `v` split at `at`, or two empty slices when `v` is empty.
fn split_or_empty(v: &mut [f32], at: usize) -> (&mut [f32], &mut [f32]) {
    if v.is_empty() {
        (&mut [], &mut [])
    } else {
        v.split_at_mut(at)
    }
}

/// The counting sort's fill for the cells `lo..lo + ends.len()`, whose entries are the
/// `out` arrays, starting at entry `base` of the whole: `ends[c - lo]` is the end of
/// cell `c`'s entries (global), decremented to its beginning as the rows are placed,
/// backwards, so each cell's entries are in ascending row order. Split in two halves of
/// cells (and their entries) on both sides of a `rayon::join`, `depth` times.
fn fill_cells(
    rows: Rows<'_>,
    ends: &mut [u32],
    (lo, base): (usize, usize),
    out: Entries<'_>,
    (totals, depth): (&[u32], u32),
) {
    if depth == 0 || ends.len() < 2 {
        // From ends counted from this worker's first cell to ends in the whole.
        for e in ends.iter_mut() {
            *e += base as u32;
        }
        // Rows of other cells are written to a dummy entry, without a branch: whether a
        // row of a block that reaches into this worker's cells is its own is irregular.
        let len = ends.len();
        let mut other_end = 1u32 + base as u32;
        let (mut dx, mut dy, mut di) = (0.0f32, 0.0f32, 0u32);
        let blocks = rows
            .cell_of
            .chunks(ROW_BLOCK)
            .zip(rows.positions.chunks(ROW_BLOCK))
            .zip(rows.blocks);
        for (block, ((cells, points), &span)) in blocks.enumerate().rev() {
            if !reaches(span, lo, len) {
                continue;
            }
            let first = block * ROW_BLOCK;
            for (i, (&c, p)) in cells.iter().zip(points).enumerate().rev() {
                let row = first + i;
                let k = (c as usize).wrapping_sub(lo);
                let mine = k < len;
                let slot = if mine { &mut ends[k] } else { &mut other_end };
                *slot -= 1;
                let e = (*slot as usize).wrapping_sub(base);
                let (x, y, id) = match (
                    mine,
                    out.xs.get_mut(e),
                    out.ys.get_mut(e),
                    out.ids.get_mut(e),
                ) {
                    (true, Some(x), Some(y), Some(id)) => (x, y, id),
                    _ => (&mut dx, &mut dy, &mut di),
                };
                (*x, *y, *id) = (p.x, p.y, row as u32);
                other_end = 1 + base as u32;
            }
        }
        // The unit velocities, when stored: from each entry's row, in entry order.
        let (unit_xs, unit_ys) = out.unit_vels;
        if !unit_xs.is_empty() {
            copy_unit_vels(out.ids, rows.unit_vels, unit_xs, unit_ys);
        }
        return;
    }
    let half = ends.len() / 2;
    let (left, right) = ends.split_at_mut(half);
    // The left half's entries are as many as its workers counted.
    let (tl, tr) = totals.split_at(totals.len() / 2);
    let at = tl.iter().map(|&t| t as usize).sum::<usize>();
    let split = base + at;
    let (lx, rx) = out.xs.split_at_mut(at);
    let (ly, ry) = out.ys.split_at_mut(at);
    let (li, ri) = out.ids.split_at_mut(at);
    let (ldx, rdx) = split_or_empty(out.unit_vels.0, at);
    let (ldy, rdy) = split_or_empty(out.unit_vels.1, at);
    rayon::join(
        || {
            let out = Entries {
                xs: lx,
                ys: ly,
                ids: li,
                unit_vels: (ldx, ldy),
            };
            fill_cells(rows, left, (lo, base), out, (tl, depth - 1));
        },
        || {
            let out = Entries {
                xs: rx,
                ys: ry,
                ids: ri,
                unit_vels: (rdx, rdy),
            };
            fill_cells(rows, right, (lo + half, split), out, (tr, depth - 1));
        },
    );
}

/// Where a grid over a set of positions lays its cells: over the bulk of the finite
/// positions, about `cell_hint` wide (grown until the cell count is bounded), with an
/// empty border one cell wide; for a crowd in places far apart, in runs over the
/// stretches of each axis it occupies ([`Axis`]). [`GridIndex::rebuild`] fills the
/// cells of this frame; [`super::order::grid_keys`] orders rows by them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct GridFrame {
    /// How each axis maps a coordinate to its column, and to its band.
    axes: [Axis; 2],
    /// Inverse cell side, and the side.
    inv: f64,
    side: f64,
    /// Cells across and bands of cells, border excluded: the axes' cell counts, kept
    /// as integers for the per-row cell id.
    cols: usize,
    bands: usize,
}

/// A grid whose cells had to grow past this many times the hint's size (the crowd's
/// bounds hold far more land than crowd) tries runs of cells over where the crowd is.
const STRETCHED: f64 = 2.0;

impl GridFrame {
    /// The frame of a grid over `positions` with cells of about `cell_hint`; `None`
    /// when no position is finite.
    pub(super) fn over(positions: &[Vec2], cell_hint: f32) -> Option<Self> {
        let (all, finite) = Bounds::of_all(positions);
        // Cells over the bulk of the crowd: rows parked far outside it are clamped into
        // its edge cells (clamping is 1-Lipschitz, so no neighbour is lost) instead of
        // stretching every cell over the crowd and the outliers alike.
        let b = Bounds::core(positions, all?);

        // Cell size: from the hint, grown until the cell count is bounded.
        let w = f64::from(b.max.x) - f64::from(b.min.x);
        let h = f64::from(b.max.y) - f64::from(b.min.y);
        let max_cells = (CELLS_PER_ROW
            .saturating_mul(finite)
            .saturating_add(CELLS_SLACK))
        .min(u32::MAX as usize - 1);
        let max_cells_f = max_cells as f64;
        let hint = f64::from(clean_radius(cell_hint)) * CELL_PER_RADIUS;
        let mut side = hint
            .max(w / max_cells_f)
            .max(h / max_cells_f)
            .max((w * h / max_cells_f).sqrt());
        if !(side > 0.0 && side.is_finite()) {
            // All finite rows at one coordinate (or a zero hint on a degenerate extent).
            side = (w.max(h)).max(1.0);
        }
        let (cols, bands) = loop {
            let nx = (w / side).floor() + 1.0;
            let ny = (h / side).floor() + 1.0;
            if (nx + 2.0) * (ny + 2.0) <= max_cells_f {
                break (nx as usize, ny as usize);
            }
            side *= 1.25;
        };
        let uniform = Self {
            axes: [
                Axis::uniform(f64::from(b.min.x), 1.0 / side, cols),
                Axis::uniform(f64::from(b.min.y), 1.0 / side, bands),
            ],
            inv: 1.0 / side,
            side,
            cols,
            bands,
        };
        if side > STRETCHED * hint && hint > 0.0 {
            if let Some(runs) = Self::in_runs(positions, b, hint, max_cells_f) {
                if runs.side < side {
                    return Some(runs);
                }
            }
        }
        Some(uniform)
    }

    /// A frame in runs over where the crowd is, along each axis (from a fixed sample
    /// of the rows, `Bounds::sample`), cells from `hint` wide, grown until their count
    /// is at most `max_cells`; `None` when no axis has an empty stretch to leave out.
    fn in_runs(positions: &[Vec2], b: Bounds, hint: f64, max_cells: f64) -> Option<Self> {
        let mut xs = [0f32; CORE_SAMPLE];
        let mut ys = [0f32; CORE_SAMPLE];
        let m = Bounds::sample(positions, &mut xs, &mut ys);
        let (xs, ys) = (&mut xs[..m], &mut ys[..m]);
        xs.sort_unstable_by(f32::total_cmp);
        ys.sort_unstable_by(f32::total_cmp);
        let mut side = hint;
        let (mut x, mut y) = ([(0.0, 0.0); MAX_RUNS], [(0.0, 0.0); MAX_RUNS]);
        loop {
            let nx = stretches(xs, (b.min.x, b.max.x), side, &mut x);
            let ny = stretches(ys, (b.min.y, b.max.y), side, &mut y);
            if nx + ny <= 2 {
                return None;
            }
            let axes = [
                Axis::runs(&x[..nx], 1.0 / side),
                Axis::runs(&y[..ny], 1.0 / side),
            ];
            let cells = (axes[0].cells() + 2.0) * (axes[1].cells() + 2.0);
            if cells <= max_cells {
                return Some(Self {
                    axes,
                    inv: 1.0 / side,
                    side,
                    cols: axes[0].cells() as usize,
                    bands: axes[1].cells() as usize,
                });
            }
            // Fewer cells in proportion to the area of one: a few steps at most.
            side *= (cells / max_cells).sqrt().max(1.25);
        }
    }

    /// Column and band of the cell the point `(x, y)` is in, clamped into the cells.
    #[inline]
    fn coords(&self, [x, y]: [f64; 2]) -> (usize, usize) {
        (self.axes[0].cell(x), self.axes[1].cell(y))
    }

    /// The id of the cell `p` is in ([`NO_CELL`] when a coordinate is not finite).
    /// Branch-free: the cell of a non-finite position is computed (clamped into range)
    /// and then replaced.
    #[inline]
    pub(super) fn cell(&self, p: Vec2) -> u32 {
        let (cx, cy) = self.coords([f64::from(p.x), f64::from(p.y)]);
        let c = ((cy + 1) * (self.cols + 2) + cx + 1) as u32;
        if p.is_finite() {
            c
        } else {
            NO_CELL
        }
    }
}

/// The stretches of one axis that a crowd occupies, within `lo..=hi`, into `out`
/// (returns how many): split at the widest gaps (at most [`MAX_RUNS`] - 1 of them)
/// between consecutive values of the ascending `sample` that are wider than
/// [`RUN_GAP`] cells of `side`.
fn stretches(
    sample: &[f32],
    (lo, hi): (f32, f32),
    side: f64,
    out: &mut [(f64, f64); MAX_RUNS],
) -> usize {
    let from = sample.partition_point(|&v| v < lo);
    let to = sample.partition_point(|&v| v <= hi).max(from);
    let inside = &sample[from..to];
    // The widest gaps, widest first (ties: the lower first), as (width, index of the
    // value after the gap).
    let mut widest = [(0.0, 0); MAX_RUNS - 1];
    let mut kept = 0;
    for (i, w) in inside.windows(2).enumerate() {
        let gap = (f64::from(w[1]) - f64::from(w[0]), i + 1);
        if gap.0 <= RUN_GAP * side {
            continue;
        }
        // Insert in order, dropping the narrowest when full.
        let at = widest[..kept].partition_point(|&(g, _)| g >= gap.0);
        if at < widest.len() {
            kept = (kept + 1).min(widest.len());
            widest[at..kept].rotate_right(1);
            widest[at] = gap;
        }
    }
    let gaps = &mut widest[..kept];
    gaps.sort_unstable_by_key(|&(_, i)| i);
    let mut start = f64::from(lo);
    for (k, &(_, i)) in gaps.iter().enumerate() {
        out[k] = (start, f64::from(inside[i - 1]));
        start = f64::from(inside[i]);
    }
    out[kept] = (start, f64::from(hi));
    kept + 1
}

/// Counting-sorted uniform grid.
#[derive(Default)]
pub(super) struct GridIndex {
    /// Rows indexed by the last rebuild.
    len: usize,
    /// Where the last rebuild laid its cells (meaningless while `cells` has none).
    frame: GridFrame,
    /// Every finite row, by cell (then row): `cells.cols` × `cells.bands` cells (both 0
    /// when no row is finite), with the row's unit velocity when the last rebuild was
    /// given them.
    cells: CellTable,
    /// Per row: its cell id in `cells`, or [`NO_CELL`].
    cell_of: Vec<u32>,
    /// Per row, when some cell holds more than [`MAX_PER_CELL`] rows: the cell it is
    /// stored in ([`NO_CELL`] for the rows left out of its sample: [`cap_cells`]).
    stored_cell: Vec<u32>,
    /// Scratch of that capping ([`cap_cells`]): rows per cell, and the sampling's rests.
    totals: Vec<u32>,
    rests: Vec<u32>,
    /// The over-full cells (ids, ascending), when some are.
    over: Vec<u32>,
    /// Per block of [`ROW_BLOCK`] rows: its least and greatest cell.
    block_cells: Vec<(u32, u32)>,
}

impl GridIndex {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Rebuild over `positions`, with cells of about `cell_hint`; with `unit_vels` (one per
    /// position), each entry also stores its row's unit velocity.
    pub(super) fn rebuild(
        &mut self,
        positions: &[Vec2],
        unit_vels: Option<&[Vec2]>,
        cell_hint: f32,
    ) {
        let positions = &positions[..addressable(positions.len())];
        let n = positions.len();
        self.len = n;
        self.cells.clear();
        let Some(frame) = GridFrame::over(positions, cell_hint) else {
            self.cells.starts.push(0);
            return;
        };
        self.frame = frame;
        self.cells.cols = frame.cols;
        self.cells.bands = frame.bands;
        self.cells.side = frame.side as f32;
        self.cells.frame = CellFrame::Grid;
        self.cells.axes = frame.axes;

        // Cell of every row.
        // Every entry is written below: keep the old contents rather than clearing.
        if self.cell_of.len() < n {
            self.cell_of.resize(n, NO_CELL);
        }
        self.cell_of.truncate(n);
        // A copy in the closure: its constants live in registers rather than being
        // reloaded through references for every row.
        let cell = move |p: &Vec2| frame.cell(*p);
        // One block of rows: each row's cell, and the block's least and greatest.
        let block = move |cells: &mut [u32], points: &[Vec2]| -> (u32, u32) {
            let (mut least, mut greatest) = (NO_CELL, 0);
            for (c, p) in cells.iter_mut().zip(points) {
                *c = cell(p);
                least = least.min(*c);
                greatest = greatest.max(*c);
            }
            (least, greatest)
        };
        self.block_cells.resize(n.div_ceil(ROW_BLOCK), (0, 0));
        if n >= PARALLEL_MIN {
            self.cell_of
                .par_chunks_mut(ROW_BLOCK)
                .zip(positions.par_chunks(ROW_BLOCK))
                .zip(self.block_cells.par_iter_mut())
                .for_each(|((cells, points), span)| *span = block(cells, points));
        } else {
            for ((cells, points), span) in self
                .cell_of
                .chunks_mut(ROW_BLOCK)
                .zip(positions.chunks(ROW_BLOCK))
                .zip(self.block_cells.iter_mut())
            {
                *span = block(cells, points);
            }
        }

        // Counting sort, stable: entries of a cell are in ascending row order. Count
        // and fill are split by ranges of cells among the workers: each counts, then
        // places, the rows of its own cells, reading the blocks of rows that reach into
        // them (the same result for any split).
        let table = &mut self.cells;
        let cells = table.cells();
        let rows = Rows {
            cell_of: &self.cell_of,
            positions,
            unit_vels: &[],
            blocks: &self.block_cells,
        };
        // Every count is written by the workers: keep the old contents.
        if table.starts.len() < cells + 1 {
            table.starts.resize(cells + 1, 0);
        }
        table.starts.truncate(cells + 1);
        let depth = if n >= PARALLEL_MIN {
            rayon::current_num_threads()
                .next_power_of_two()
                .trailing_zeros()
                .min(MAX_SPLITS)
        } else {
            0
        };
        let mut totals = [0u32; 1 << MAX_SPLITS];
        let mut fullest = [0u32; 1 << MAX_SPLITS];
        let (totals, fullest) = (&mut totals[..1 << depth], &mut fullest[..1 << depth]);
        count_cells(
            rows,
            &mut table.starts[..cells],
            0,
            (totals, fullest),
            depth,
        );
        let capped = fullest.iter().any(|&f| f as usize > MAX_PER_CELL) && {
            // A cell fuller than bodies can stand: store an even sample of its rows.
            self.stored_cell.clone_from(&self.cell_of);
            self.totals.clear();
            self.totals.resize(cells, 0);
            for &c in &self.stored_cell {
                if let Some(t) = self.totals.get_mut(c as usize) {
                    *t += 1;
                }
            }
            cap_cells(&mut self.stored_cell, &self.totals, &mut self.rests)
        };
        let rows = if capped {
            let rows = Rows {
                cell_of: &self.stored_cell,
                ..rows
            };
            count_cells(
                rows,
                &mut table.starts[..cells],
                0,
                (totals, fullest),
                depth,
            );
            rows
        } else {
            rows
        };
        let m = totals.iter().map(|&t| t as usize).sum::<usize>();
        table.starts[cells] = m as u32;
        // Every entry is written below: keep the old contents rather than clearing.
        table.size_entries(m);
        let unit_vels = unit_vels.filter(|d| d.len() >= n).unwrap_or(&[]);
        table.size_unit_vels(!unit_vels.is_empty());
        // Fill backwards, decrementing: afterwards starts[c] = begin of cell c.
        let out = Entries {
            xs: &mut table.xs[..m],
            ys: &mut table.ys[..m],
            ids: &mut table.ids[..m],
            unit_vels: (
                table.unit_xs.get_mut(..m).unwrap_or_default(),
                table.unit_ys.get_mut(..m).unwrap_or_default(),
            ),
        };
        let rows = Rows { unit_vels, ..rows };
        fill_cells(
            rows,
            &mut table.starts[..cells],
            (0, 0),
            out,
            (totals, depth),
        );
        if capped {
            // The over-full cells' finer cells, for narrow queries inside a pile.
            self.over.clear();
            self.over.extend(
                (0..cells as u32).filter(|&c| self.totals[c as usize] as usize > MAX_PER_CELL),
            );
            table.refine(&self.over);
        }
    }

    /// The rows in the order the last rebuild stored them, into `rows`: by cell, by
    /// row within a cell (the counting sort is stable), then the rows in no cell, in
    /// ascending order. `false` (`rows` cleared) when the last rebuild stored only a
    /// sample of an over-full cell and reordered it by finer cells (a pile): then not
    /// every row is stored, nor in that order.
    pub(super) fn stored_order(&self, rows: &mut Vec<u64>) -> bool {
        rows.clear();
        if !self.cells.fine.is_empty() {
            return false;
        }
        let stored = self.cells.starts.last().map_or(0, |&m| m as usize);
        let ids = &self.cells.ids[..stored];
        if stored >= PARALLEL_MIN {
            rows.par_extend(ids.par_iter().map(|&row| u64::from(row)));
        } else {
            rows.extend(ids.iter().map(|&row| u64::from(row)));
        }
        if stored == 0 {
            // No finite row (and no cell of any row worked out): all in no cell.
            rows.extend(0..self.len as u64);
        } else if stored < self.len {
            let unstored = self.cell_of[..self.len].iter().enumerate();
            rows.extend(
                unstored
                    .filter(|&(_, &c)| c == NO_CELL)
                    .map(|(row, _)| row as u64),
            );
        }
        true
    }

    /// Cell ranges `(cx0, cx1, cy0, cy1)` (inclusive) covering the box `min..max`
    /// widened by `reach` on every side, or `None` when it misses every row.
    fn cells_around(
        &self,
        min: Vec2,
        max: Vec2,
        reach: f32,
    ) -> Option<(usize, usize, usize, usize)> {
        if self.cells.cols == 0 {
            return None;
        }
        let reach = f64::from(reach);
        // No early exit for a box outside the cells: rows beyond them (far from the
        // bulk of the crowd) are clamped into the edge cells, and so is the box.
        let (cx0, cy0) = self
            .frame
            .coords([f64::from(min.x) - reach, f64::from(min.y) - reach]);
        let (cx1, cy1) = self
            .frame
            .coords([f64::from(max.x) + reach, f64::from(max.y) + reach]);
        Some((cx0, cx1, cy0, cy1))
    }

    /// The cells, with every row's entry.
    #[inline]
    pub(super) fn cells(&self) -> &CellTable {
        &self.cells
    }

    /// `row`'s cell id in [`cells`](Self::cells) ([`NO_CELL`] for a row with a non-finite
    /// coordinate); `None` past the rows.
    #[inline]
    pub(super) fn cell_of(&self, row: usize) -> Option<u32> {
        self.cell_of.get(row).copied()
    }

    /// How many cells around a row's own hold every row within `reach` (already
    /// padded) of it.
    #[inline]
    pub(super) fn reach_cells(&self, reach: f32) -> u32 {
        reach_cells(f64::from(reach) * self.frame.inv, 1e-6)
    }

    /// Every row in the cells around `p` at `reach` (already padded).
    pub(super) fn for_each_near(&self, p: Vec2, reach: f32, f: &mut impl FnMut(u32)) {
        let Some((cx0, cx1, cy0, cy1)) = self.cells_around(p, p, reach) else {
            return;
        };
        for cy in cy0..=cy1 {
            let (s, e) = self.cells.span(cy, cx0, cx1);
            for &id in &self.cells.ids[s..e] {
                f(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::GROUP;

    #[test]
    fn cell_count_is_bounded_for_spread_out_rows() {
        let pts = vec![
            Vec2::new(-1e30, 0.0),
            Vec2::new(1e30, 3e29),
            Vec2::new(0.0, -2e30),
            Vec2::new(5.0, 5.0),
        ];
        let mut g = GridIndex::default();
        g.rebuild(&pts, None, 1.0);
        assert!(g.cells.cells() <= CELLS_PER_ROW * pts.len() + CELLS_SLACK);
        assert_eq!(g.cells.starts.len(), g.cells.cells() + 1);
        assert_eq!(g.cells.ids.len(), 4 + GROUP);
        g.rebuild(&pts[..1], None, f32::INFINITY);
        assert_eq!((g.cells.cols, g.cells.bands), (1, 1));
        // A pile past the cap: an even sample of its rows is stored. Of 500 rows with
        // a cap of 256, row i is kept when (i + 1) * 256 / 500 passes a whole number:
        // rows 1, 3, 5, ..., 41, then 42 (41 * 256 / 500 = 20.99, 42 * 256 / 500 =
        // 21.5), ..., and the last row, 499.
        g.rebuild(&[Vec2::ZERO; 500], None, 1.0);
        assert_eq!((g.cells.cols, g.cells.bands), (1, 1));
        assert_eq!(g.cells.len(), MAX_PER_CELL);
        let kept = &g.cells.ids[..MAX_PER_CELL];
        assert_eq!(kept[..4], [1, 3, 5, 7]);
        assert_eq!(kept[19..23], [39, 41, 42, 44]);
        assert_eq!(kept[MAX_PER_CELL - 1], 499);
        assert!(kept
            .windows(2)
            .all(|w| w[1] - w[0] == 1 || w[1] - w[0] == 2));
    }

    #[test]
    fn cells_follow_the_hint() {
        let pts: Vec<Vec2> = (0..100)
            .map(|i| Vec2::new((i % 10) as f32, (i / 10) as f32))
            .collect();
        let mut g = GridIndex::default();
        g.rebuild(&pts, None, 2.0);
        assert!((1.0 / g.frame.inv - 2.0 * CELL_PER_RADIUS).abs() < 1e-9);
        assert_eq!(g.cells.cols, 5);
        // Within every cell, rows are ascending.
        let t = &g.cells;
        for c in 0..t.cells() {
            let ids = &t.ids[t.starts[c] as usize..t.starts[c + 1] as usize];
            assert!(ids.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn halves_of_the_cells_are_mostly_in_disjoint_blocks_of_sorted_rows() {
        // A uniform square crowd in the spatial order: the fill's two workers (one per
        // half of the cells) each read only the blocks of rows that reach into their
        // half. A block of consecutive rows is a compact patch, so few blocks reach
        // into both (with the rows unsorted, every block would).
        let mut rng = crate::rng::agent_rng(5, 5);
        let n = 40 * ROW_BLOCK;
        let pts: Vec<Vec2> = (0..n)
            .map(|_| {
                let u = crate::rng::uniform(&mut rng, 0.0, 800.0);
                let v = crate::rng::uniform(&mut rng, 0.0, 800.0);
                Vec2::new(u, v)
            })
            .collect();
        let mut perm = Vec::new();
        crate::spatial::spatial_order(&pts, &mut perm, &mut crate::spatial::OrderScratch::new());
        let sorted: Vec<Vec2> = perm.iter().map(|&r| pts[r as usize]).collect();
        let mut g = GridIndex::default();
        g.rebuild(&sorted, None, 4.0);
        let (cells, half) = (g.cells.cells(), g.cells.cells() / 2);
        assert_eq!(g.block_cells.len(), 40);
        let both = g
            .block_cells
            .iter()
            .filter(|&&span| reaches(span, 0, half) && reaches(span, half, cells - half))
            .count();
        assert!(both <= 8, "{both} of 40 blocks reach into both halves");
        // Each block's span holds its rows' cells.
        for (rows, &(least, greatest)) in g.cell_of.chunks(ROW_BLOCK).zip(&g.block_cells) {
            assert_eq!(rows.iter().min(), Some(&least));
            assert_eq!(rows.iter().max(), Some(&greatest));
        }
    }

    /// `n` points over a 300 × 300 square, every fifth in its 30 × 30 corner.
    fn clustered(seed: u64, n: usize) -> Vec<Vec2> {
        let mut rng = crate::rng::agent_rng(seed, seed);
        (0..n)
            .map(|i| {
                let u = crate::rng::uniform(&mut rng, 0.0, 300.0);
                let v = crate::rng::uniform(&mut rng, 0.0, 300.0);
                if i % 5 == 0 {
                    Vec2::new(u * 0.1, v * 0.1)
                } else {
                    Vec2::new(u, v)
                }
            })
            .collect()
    }

    #[test]
    fn the_grids_order_read_off_a_grid_is_grid_keys_order() {
        // Clusters with a parked outlier and non-finite rows (over PARALLEL_MIN, on 1
        // and 3 threads), a few rows, none, only non-finite ones: the rows a grid
        // stores, read in order, are `grid_keys`' order (taken without a sort: the
        // high halves are left zero). A pile, whose over-full cell stores a sample,
        // and a k-d tree fall back on `grid_keys` itself.
        use crate::spatial::{grid_keys_by_index, IndexKind, OrderScratch, SpatialIndex};
        let mut big = clustered(4, PARALLEL_MIN + 777);
        big[3] = Vec2::NAN;
        big[4_000] = Vec2::new(f32::INFINITY, 2.0);
        big[9_000] = Vec2::splat(-1e6);
        let few = clustered(5, 300);
        let pile = vec![Vec2::new(3.0, 4.0); 2 * MAX_PER_CELL + 10];
        let cases: [(&[Vec2], bool); 5] = [
            (&big, true),
            (&few, true),
            (&[], true),
            (&[Vec2::NAN, Vec2::new(0.0, f32::NAN)], true),
            (&pile, false),
        ];
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                for (k, &(pts, read_off)) in cases.iter().enumerate() {
                    let mut scratch = OrderScratch::new();
                    let want: Vec<u32> = crate::spatial::order::grid_keys(pts, 2.0, &mut scratch)
                        .iter()
                        .map(|&key| key as u32)
                        .collect();
                    for kind in [IndexKind::Grid, IndexKind::KdTree] {
                        let mut index = SpatialIndex::new(kind);
                        let keys = grid_keys_by_index(&mut index, pts, 2.0, &mut scratch);
                        let got: Vec<u32> = keys.iter().map(|&key| key as u32).collect();
                        assert_eq!(got, want, "case {k}, {kind:?}, {threads} threads");
                        let zero_high = keys.iter().all(|&key| key >> 32 == 0);
                        let expect_read_off = read_off && kind == IndexKind::Grid;
                        if !pts.is_empty() && pts.iter().any(|p| p.is_finite()) {
                            assert_eq!(zero_high, expect_read_off, "case {k}, {kind:?}");
                        }
                    }
                }
            });
        }
    }

    #[test]
    fn rows_in_the_grids_own_order_are_stored_in_row_order() {
        // Clusters, a parked outlier and non-finite rows, over PARALLEL_MIN: ordered by
        // `grid_keys`, a grid built over the same positions stores row `e` as entry `e`
        // (the counting sort writes in order), the non-finite rows come last, and the
        // order is the same on 1 and 3 threads.
        let mut pts = clustered(9, PARALLEL_MIN + 1_234);
        pts[5] = Vec2::NAN;
        pts[999] = Vec2::new(1.0, f32::NEG_INFINITY);
        pts[2_000] = Vec2::splat(1e6);
        let order = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut scratch = crate::spatial::OrderScratch::new();
            pool.install(|| {
                let keys = crate::spatial::order::grid_keys(&pts, 2.0, &mut scratch);
                keys.iter().map(|&k| k as u32).collect::<Vec<u32>>()
            })
        };
        let perm = order(1);
        assert_eq!(perm, order(3));
        let mut seen = perm.clone();
        seen.sort_unstable();
        assert!(seen.iter().enumerate().all(|(i, &r)| r as usize == i));
        let sorted: Vec<Vec2> = perm.iter().map(|&r| pts[r as usize]).collect();
        let mut g = GridIndex::default();
        g.rebuild(&sorted, None, 2.0);
        let m = g.cells.starts[g.cells.cells()] as usize;
        assert_eq!(m, pts.len() - 2);
        assert!(g.cells.ids[..m]
            .iter()
            .enumerate()
            .all(|(e, &id)| id as usize == e));
        assert!(sorted[m..].iter().all(|p| !p.is_finite()));
        // Along the Hilbert curve the same grid stores them out of row order.
        let mut perm = Vec::new();
        crate::spatial::spatial_order(&pts, &mut perm, &mut crate::spatial::OrderScratch::new());
        let sorted: Vec<Vec2> = perm.iter().map(|&r| pts[r as usize]).collect();
        g.rebuild(&sorted, None, 2.0);
        let in_place = g.cells.ids[..m]
            .iter()
            .enumerate()
            .filter(|&(e, &id)| id as usize == e)
            .count();
        assert!(in_place < m / 10, "{in_place} of {m}");
    }

    #[test]
    fn split_fill_equals_the_serial_one() {
        // Over PARALLEL_MIN rows, with some non-finite ones and clusters: the grid
        // built on 1, 2, 3 and 8 threads (0, 1, 2 and 3 splits of the cells) is the
        // same, entry for entry; and each cell's rows are ascending.
        let mut pts = clustered(3, PARALLEL_MIN * 2 + 77);
        pts[17] = Vec2::NAN;
        pts[30_000] = Vec2::new(f32::INFINITY, 1.0);
        let build = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut g = GridIndex::default();
            pool.install(|| g.rebuild(&pts, None, 2.0));
            g
        };
        let one = build(1);
        for threads in [2, 3, 8] {
            let g = build(threads);
            let (g, one) = (&g.cells, &one.cells);
            assert_eq!(g.starts, one.starts, "{threads} threads");
            assert_eq!(g.ids, one.ids, "{threads} threads");
            assert_eq!(g.xs.len(), one.xs.len());
            assert!(g
                .xs
                .iter()
                .zip(&one.xs)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
            assert!(g
                .ys
                .iter()
                .zip(&one.ys)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
        let one = &one.cells;
        assert_eq!(one.starts[one.cells()] as usize, pts.len() - 2);
        for c in 0..one.cells() {
            let ids = &one.ids[one.starts[c] as usize..one.starts[c + 1] as usize];
            assert!(ids.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
