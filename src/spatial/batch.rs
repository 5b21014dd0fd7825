//! [`BatchNeighbours`]: per-worker scratch of the neighbour scan. With a k-d tree, one
//! ball query per chunk of rows gathers the chunk's candidates into a [`CellTable`];
//! with the grid, rows are scanned straight from the grid's own table.

use std::ops::Range;

use glam::Vec2;

use super::cells::{chunk_coord, copy_unit_vels, CellFrame, CellTable, NO_CELL};
use super::grid::{cap_cells, MAX_PER_CELL};
use super::kdtree::KdTreeIndex;
use super::scan::{crowded, keep_nearest, scan_cells, sort_by_distance, Probe};
use super::{
    addressable, brute, clean_radius, dist2, pad, reach_cells, Bounds, NeighbourQuery,
    SpatialIndex, CELL_PER_RADIUS, CHUNK_ROWS,
};

/// Marks a stray row of a gathered chunk in `row_cell` ([`BatchNeighbours::mark_strays`]):
/// not in the chunk's cells, scanned on its own.
const STRAY: u32 = u32::MAX - 1;

/// A chunk whose cells had to grow past this many times their size at the radius to
/// bound their count (a ball of mostly empty land), and would hold more than a cell may,
/// scans every row on its own ([`BatchNeighbours::gather`]).
const STRETCHED: f32 = 2.0;

/// A chunk no wider than this many neighbour radii (plus one unit) has no strays.
const STRAY_FREE_SPREAD: f32 = 16.0;

/// Strays are scanned apart only when the chunk is this many times wider with them
/// than without them (plus two radii).
const STRAY_WIDENING: f32 = 8.0;

/// Rows of a block: [`CHUNK_ROWS`]-row chunks whose rows all crowd within one radius
/// of their centre share the gather of their block ([`block`]).
const BLOCK_ROWS: usize = 8 * CHUNK_ROWS;

/// The aligned block of [`BLOCK_ROWS`] rows (of `len`) that holds `rows`, or `rows`
/// itself when no block holds them all.
fn block_of(rows: &Range<usize>, len: usize) -> Range<usize> {
    let start = rows.start / BLOCK_ROWS * BLOCK_ROWS;
    let end = (start + BLOCK_ROWS).min(addressable(len));
    if rows.end <= end {
        start..end
    } else {
        rows.clone()
    }
}

/// The rows to gather for the chunk `rows` (bounds `b`) at radius `r`, and their
/// bounds: the chunk's whole block when every row of the block lies within `r` of the
/// block's centre (a crowd far denser than the radius: a pile), else the chunk. The
/// gather of a chunk in a pile holds the whole pile, every chunk's the same; a block
/// shares one among its chunks ([`BatchNeighbours::holds_block_of`]). A function of the
/// positions alone, so the thread count changes nothing. The plain crowd's chunks are
/// wider than the radius and never share (what sharing saves in a pile:
/// `docs/optimisations.md`).
fn block(positions: &[Vec2], rows: Range<usize>, b: Bounds, r: f32) -> (Range<usize>, Bounds) {
    let half_diagonal = |b: &Bounds| 0.5 * (b.max - b.min).length();
    let whole = block_of(&rows, positions.len());
    // A block within the radius has every chunk within it.
    if whole == rows || half_diagonal(&b) > r {
        return (rows, b);
    }
    match Bounds::of(positions, whole.clone()) {
        Some(wb) if half_diagonal(&wb) <= r => (whole, wb),
        _ => (rows, b),
    }
}

/// Per-worker scratch for neighbour scans: with a k-d tree, the candidates of one chunk
/// of rows binned into cells about one radius wide; and the per-row hit buffer.
///
/// For each chunk of rows (consecutive rows in [`spatial_order`](super::spatial_order)
/// are a compact patch), call [`gather`](Self::gather) once, then
/// [`scan`](Self::scan) for each row of the chunk, with the same positions and a
/// radius no larger than the gathered one (otherwise the scan is still exact, by brute
/// force). With the grid, the gather only records the chunk: rows are scanned in place.
#[derive(Default)]
pub struct BatchNeighbours {
    /// The last gathered chunk's candidates (a k-d tree's).
    cands: CellTable,
    /// Cell id in `cands` of each row of the chunk ([`NO_CELL`] for a non-finite one).
    row_cell: Vec<u32>,
    /// A chunk row's neighbours lie within this many cells of its own cell.
    reach_cells: u32,
    /// Raw row ids from the tree, before binning; their cells and coordinates.
    raw: Vec<u32>,
    raw_cell: Vec<u32>,
    raw_x: Vec<f32>,
    raw_y: Vec<f32>,
    /// Scratch of the capping of over-full cells ([`MAX_PER_CELL`], [`cap_cells`]).
    rests: Vec<u32>,
    /// The over-full cells of the last gather (ids, ascending).
    over: Vec<u32>,
    /// Match keys of an over-full or sorted list (`(d2, row)` packed), and scratch for
    /// selecting among them.
    keys: Vec<u64>,
    select: Vec<u64>,
    /// Rows matched by the current row's scan (length kept between rows).
    hits: Vec<u32>,
    /// Per row of the last gathered chunk: whether it is a stray, scanned on its own
    /// ([`Self::mark_strays`]).
    strays: Vec<bool>,
    /// Rows the last gather covered.
    rows: Range<usize>,
    /// Radius (cleaned) the last gather covered.
    r: f32,
    /// Length of the positions the last gather saw.
    len: usize,
    /// The build of the index the last gather was made over ([`SpatialIndex::build`]).
    build: u64,
    /// Whether the last gather was of a whole block, for any of its chunks ([`block`]).
    shared: bool,
    /// Whether the last scan found more rows than its query's cap.
    over_cap: bool,
}

/// The candidate entries around one row, with their rows' unit velocities where the
/// table carries them (empty otherwise), for a sum over the neighbours in one pass
/// without a list (the flocking sums: `candidate_sums_x4` in the steering stage).
/// Entry arrays are each followed by [`super::GROUP`] never-matching entries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidates<'a> {
    pub xs: &'a [f32],
    pub ys: &'a [f32],
    pub ids: &'a [u32],
    pub unit_xs: &'a [f32],
    pub unit_ys: &'a [f32],
    /// The three spans of entries (one per band of cells) that hold every row within
    /// the query's radius of the row.
    pub spans: [(usize, usize); 3],
    /// The row and its position.
    pub row: u32,
    pub at: Vec2,
    /// The query's squared radius and cap.
    pub r2: f32,
    pub cap: usize,
    /// Whether the cells' density puts well over the cap within the radius
    /// ([`crowded`]): the one-pass sums would most likely give up there.
    pub crowded: bool,
}

impl BatchNeighbours {
    /// Make room in every buffer for as much as `other`'s holds, so that a scratch
    /// that has not yet met the densest chunks does not grow when it does (the
    /// steering pass brings its workers' scratch to the largest after every tick).
    pub(crate) fn reserve_like(&mut self, other: &Self) {
        use super::reserve_like;
        self.cands.reserve_like(&other.cands);
        reserve_like(&mut self.row_cell, &other.row_cell);
        reserve_like(&mut self.raw, &other.raw);
        reserve_like(&mut self.raw_cell, &other.raw_cell);
        reserve_like(&mut self.raw_x, &other.raw_x);
        reserve_like(&mut self.raw_y, &other.raw_y);
        reserve_like(&mut self.rests, &other.rests);
        reserve_like(&mut self.over, &other.over);
        reserve_like(&mut self.keys, &other.keys);
        reserve_like(&mut self.select, &other.select);
        reserve_like(&mut self.hits, &other.hits);
        reserve_like(&mut self.strays, &other.strays);
    }

    /// A scratch with empty buffers (they grow on first use and are then reused).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Prepare the chunk `rows` (clamped to `positions`) for scans at radius `r`: with
    /// a k-d tree, one index query for the whole chunk (radius `r` around every row of
    /// the chunk, i.e. `r` plus the chunk's extent around its centre). With
    /// `unit_vels` (the rows' unit velocities), the candidates also store theirs, for
    /// `candidates`. `index` must have been rebuilt over `positions`.
    ///
    /// A chunk of an aligned block of 1024 rows that all lie within `r` of the block's
    /// centre (a pile) gathers the whole block, and the block's other chunks reuse
    /// that gather until the index is rebuilt: the answers are those a fresh scratch
    /// would give.
    pub fn gather(
        &mut self,
        index: &SpatialIndex,
        positions: &[Vec2],
        rows: Range<usize>,
        r: f32,
        unit_vels: Option<&[Vec2]>,
    ) {
        let n = addressable(positions.len());
        let start = rows.start.min(n);
        let end = rows.end.clamp(start, n);
        let rows = start..end;
        let chunk = rows.clone();
        let r = clean_radius(r);
        let unit_vels = unit_vels.filter(|u| u.len() >= positions.len());
        if self.holds_block_of(index, positions, &rows, r) {
            if let Some(unit_vels) = unit_vels {
                self.add_unit_vels(unit_vels);
            }
            return;
        }
        self.cands.clear();
        self.row_cell.clear();
        self.reach_cells = 0;
        self.shared = false;
        self.rows = rows.clone();
        self.r = r;
        self.len = positions.len();
        self.build = index.build;
        let Some(tree) = index.tree() else {
            // The grid is scanned in place.
            return;
        };
        if rows.is_empty() {
            return;
        }
        let reach = pad(r);
        if !(reach * reach).is_finite() {
            self.gather_all(positions);
            return;
        }
        let Some(b) = Bounds::of(positions, rows.clone()) else {
            // No finite row in the chunk: none has a neighbour.
            return;
        };
        let (rows, b) = block(positions, rows, b, r);
        self.rows = rows.clone();
        self.shared = self.rows != chunk;
        let b = self.mark_strays(positions, rows.clone(), b, r);
        self.raw.clear();
        match tree.gather(b, r, &mut self.raw) {
            Some(ball) => {
                self.bin(positions, rows, ball, reach);
                if let Some(unit_vels) = unit_vels {
                    self.add_unit_vels(unit_vels);
                }
            }
            None => self.gather_all(positions),
        }
    }

    /// Whether the last gather was of the whole block of `rows` ([`block`]), over this
    /// build of the index and these positions at radius `r`: then it serves them as it
    /// is, as it would if gathered again (the gather of a block is a function of the
    /// block, whichever of its chunks asks first).
    fn holds_block_of(
        &self,
        index: &SpatialIndex,
        positions: &[Vec2],
        rows: &Range<usize>,
        r: f32,
    ) -> bool {
        self.shared
            && self.build == index.build
            && self.len == positions.len()
            && self.r == r
            && self.rows == block_of(rows, positions.len())
    }

    /// Whether the last gather was of a whole block of chunks.
    #[cfg(test)]
    pub(super) fn shares_block(&self) -> bool {
        self.shared
    }

    /// Store the candidates' unit velocities, unless stored already.
    fn add_unit_vels(&mut self, unit_vels: &[Vec2]) {
        let c = &mut self.cands;
        if !c.has_unit_vels {
            c.size_unit_vels(true);
            copy_unit_vels(&c.ids, unit_vels, &mut c.unit_xs, &mut c.unit_ys);
        }
    }

    /// Mark the rows of the chunk `rows` (bounds `b`) that lie far from the rest: a row
    /// a despawn moved in from elsewhere, an agent parked far away. Each is scanned on
    /// its own ([`Self::scan_stray`]), so that the chunk's one query covers only its
    /// bulk instead of everything between. Returns the bounds of the rest.
    ///
    /// A chunk no wider than [`STRAY_FREE_SPREAD`] radii (plus one unit) has none, as
    /// after a re-sort. Otherwise a row is a stray when its distance from the chunk's
    /// median point (per axis) exceeds four times the rows' median distance from it,
    /// plus two radii (never in a compact patch, however sparse), and only if the rest
    /// are [`STRAY_WIDENING`] times narrower than the whole chunk.
    fn mark_strays(&mut self, positions: &[Vec2], rows: Range<usize>, b: Bounds, r: f32) -> Bounds {
        self.strays.clear();
        self.strays.resize(rows.len(), false);
        let spread = (b.max - b.min).length();
        if spread <= STRAY_FREE_SPREAD * (r + 1.0) || rows.len() < 4 {
            return b;
        }
        let chunk = &positions[rows];
        let median = |v: &mut Vec<f32>| -> f32 {
            let mid = v.len() / 2;
            *v.select_nth_unstable_by(mid, f32::total_cmp).1
        };
        let finite = || chunk.iter().filter(|p| p.is_finite());
        self.raw_x.clear();
        self.raw_x.extend(finite().map(|p| p.x));
        self.raw_y.clear();
        self.raw_y.extend(finite().map(|p| p.y));
        if self.raw_x.is_empty() {
            return b;
        }
        let m = Vec2::new(median(&mut self.raw_x), median(&mut self.raw_y));
        self.raw_x.clear();
        self.raw_x.extend(finite().map(|p| p.distance(m)));
        let far = 4.0 * median(&mut self.raw_x) + 2.0 * r;
        let mut core: Option<Bounds> = None;
        for (stray, p) in self.strays.iter_mut().zip(chunk) {
            if !p.is_finite() {
                continue;
            }
            *stray = p.distance(m) > far;
            if !*stray {
                core = Some(core.map_or(Bounds { min: *p, max: *p }, |c| Bounds {
                    min: c.min.min(*p),
                    max: c.max.max(*p),
                }));
            }
        }
        // Worth it only when the strays would widen the chunk's query many times over:
        // a chunk that is merely spread out (two squads, an arc of a ring) keeps one
        // query.
        match core {
            Some(c) if spread > STRAY_WIDENING * ((c.max - c.min).length() + 2.0 * r) => c,
            _ => {
                self.strays.iter_mut().for_each(|s| *s = false);
                b
            }
        }
    }

    /// The neighbours of a stray row of the chunk by `q`: one tree query around the
    /// row itself, the rows within the radius in row order (like the brute-force
    /// oracle), into `hits`; returns how many.
    fn scan_stray(
        &mut self,
        tree: &KdTreeIndex,
        positions: &[Vec2],
        row: usize,
        q: &NeighbourQuery,
    ) -> usize {
        let p = positions[row];
        self.raw.clear();
        let raw = &mut self.raw;
        tree.for_each_within(p, pad(q.r), &mut |id| raw.push(id));
        self.raw.sort_unstable();
        self.hits.clear();
        self.hits.extend(self.raw.iter().copied().filter(|&id| {
            let o = positions.get(id as usize).copied().unwrap_or(Vec2::NAN);
            id as usize != row && dist2(p.x, p.y, o.x, o.y) <= q.r2
        }));
        self.hits.len()
    }

    /// Bin the tree's candidates (in `raw`) into square cells of about one radius over
    /// the queried ball's bounding square, by a counting sort. Cells are computed in
    /// `f32` relative to the square's corner (a few dozen cells, so rounding is tiny and
    /// covered by the slack in `reach_cells`).
    fn bin(&mut self, positions: &[Vec2], rows: Range<usize>, ball: (Vec2, f32), reach: f32) {
        let (centre, ball_r) = ball;
        let m = self.raw.len();
        let c = &mut self.cands;
        let span = 2.0 * ball_r;
        // At most about two cells per candidate.
        let max_side_cells = (2.0 * m as f32 + 16.0).sqrt();
        let mut side = (reach * CELL_PER_RADIUS as f32).max(span / max_side_cells);
        if !(side > 0.0 && side.is_finite()) {
            side = 1.0;
        }
        let n1 = ((span / side) as usize + 1).min(max_side_cells as usize + 1);
        let (ox, oy, inv) = (centre.x - ball_r, centre.y - ball_r, 1.0 / side);
        let top = (n1 - 1) as i32;
        // Every cell at least one unit wide (cell ids fit `u32`).
        let cell = |v: f32, o: f32| chunk_coord(v, o, inv, n1) as u32;
        c.cols = n1;
        c.bands = n1;
        c.side = side;
        c.frame = CellFrame::Chunk {
            origin: Vec2::new(ox, oy),
            inv,
        };
        self.reach_cells = reach_cells(f64::from(reach * inv), 1e-3 + 1e-6 * n1 as f64);
        // With the empty border (see `CellTable`).
        let stride = n1 + 2;
        let cells = stride * stride;
        c.starts.clear();
        c.starts.resize(cells + 1, 0);
        // Unit velocities are stored after the fill, when the gather asks for them.
        c.has_unit_vels = false;
        // Counting sort: coordinates and cell of every candidate, counts, ends of cells,
        // then a backwards fill.
        self.raw_x.clear();
        self.raw_y.clear();
        self.raw_cell.clear();
        let at = |id: u32| positions.get(id as usize).copied().unwrap_or(Vec2::NAN);
        self.raw_x.extend(self.raw.iter().map(|&id| at(id).x));
        self.raw_y.extend(self.raw.iter().map(|&id| at(id).y));
        // A non-finite candidate never matches: any cell will do. Four at a time in
        // vector lanes (a saturating truncation, like `cell`'s: the same cells), the
        // rest one by one.
        {
            use wide::{f32x4, i32x4};
            let (o4, inv4) = ((f32x4::splat(ox), f32x4::splat(oy)), f32x4::splat(inv));
            let (zero, top4) = (i32x4::splat(0), i32x4::splat(top));
            let lane = |v: &[f32], o: f32x4| -> [i32; 4] {
                let v = f32x4::new([v[0], v[1], v[2], v[3]]);
                ((v - o) * inv4).trunc_int().max(zero).min(top4).to_array()
            };
            let whole = m / 4 * 4;
            for (gx, gy) in self.raw_x[..whole]
                .chunks_exact(4)
                .zip(self.raw_y[..whole].chunks_exact(4))
            {
                let (cx, cy) = (lane(gx, o4.0), lane(gy, o4.1));
                self.raw_cell
                    .extend((0..4).map(|l| (cy[l] as u32 + 1) * stride as u32 + cx[l] as u32 + 1));
            }
            self.raw_cell.extend(
                self.raw_x[whole..]
                    .iter()
                    .zip(&self.raw_y[whole..])
                    .map(|(&x, &y)| (cell(y, oy) + 1) * stride as u32 + cell(x, ox) + 1),
            );
        }
        for &k in &self.raw_cell {
            if let Some(o) = c.starts.get_mut(k as usize) {
                *o += 1;
            }
        }
        self.over.clear();
        if c.starts.iter().any(|&k| k as usize > MAX_PER_CELL) {
            if side > STRETCHED * reach * CELL_PER_RADIUS as f32 {
                // Cells stretched over a ball of mostly empty land (crowds far apart
                // in one chunk, as between a teleport and the next re-sort): their
                // fullness is no pile's, and a sample would lose neighbours. Every row
                // of the chunk is scanned on its own instead, exactly.
                self.scan_all_apart(rows.len());
                return;
            }
            // A cell fuller than bodies can stand: keep an even sample of its
            // candidates (in the tree's order), as the grid does of its rows.
            cap_cells(&mut self.raw_cell, &c.starts[..cells], &mut self.rests);
            for (cell, o) in c.starts.iter_mut().enumerate() {
                if *o as usize > MAX_PER_CELL {
                    *o = MAX_PER_CELL as u32;
                    self.over.push(cell as u32);
                }
            }
        }
        let mut acc = 0u32;
        for o in &mut c.starts[..cells] {
            acc += *o;
            *o = acc;
        }
        c.starts[cells] = acc;
        // The outputs keep their length between chunks (no clearing writes); only the
        // first `m` entries and the padding after them are meaningful.
        c.size_entries(m);
        for (((&id, &k), &x), &y) in self
            .raw
            .iter()
            .zip(&self.raw_cell)
            .zip(&self.raw_x)
            .zip(&self.raw_y)
            .rev()
        {
            let Some(slot) = c.starts.get_mut(k as usize) else {
                continue;
            };
            *slot -= 1;
            let j = *slot as usize;
            if let (Some(sx), Some(sy), Some(si)) =
                (c.xs.get_mut(j), c.ys.get_mut(j), c.ids.get_mut(j))
            {
                (*sx, *sy, *si) = (x, y, id);
            }
        }
        // The over-full cells' finer cells (none for most chunks), for narrow queries
        // inside a pile.
        c.refine(&self.over);
        self.row_cell
            .extend(positions[rows].iter().zip(&self.strays).map(|(p, &stray)| {
                if stray {
                    STRAY
                } else if p.is_finite() {
                    (cell(p.y, oy) + 1) * stride as u32 + cell(p.x, ox) + 1
                } else {
                    NO_CELL
                }
            }));
    }

    /// No candidates: each of the chunk's `rows` rows is scanned on its own, as a stray.
    #[cold]
    #[inline(never)]
    fn scan_all_apart(&mut self, rows: usize) {
        self.cands.clear();
        // No entries (the gather's copy of unit velocities then has none to copy).
        self.cands.size_entries(0);
        self.row_cell.clear();
        self.row_cell.resize(rows, STRAY);
    }

    /// Every row is a candidate (overflowing radius, or an index that could not bound
    /// the query), in one cell that every row of the chunk scans.
    fn gather_all(&mut self, positions: &[Vec2]) {
        let n = addressable(positions.len());
        let c = &mut self.cands;
        c.clear();
        c.cols = 1;
        c.bands = 1;
        // The one cell (id 4), and its empty border (see `CellTable`).
        c.starts.extend([0, 0, 0, 0, 0]);
        c.starts.extend([n as u32; 5]);
        c.size_entries(n);
        for (i, p) in positions[..n].iter().enumerate() {
            (c.xs[i], c.ys[i], c.ids[i]) = (p.x, p.y, i as u32);
        }
        self.reach_cells = 0;
        self.row_cell.clear();
        self.row_cell.resize(self.rows.len(), 4);
    }

    /// Whether the last gather covered `row` at a radius of at least `r` over these
    /// positions.
    #[inline]
    fn gathered(&self, positions: &[Vec2], row: usize, r: f32) -> bool {
        self.rows.contains(&row) && r <= self.r && positions.len() == self.len
    }

    /// The neighbours of `row` by `query`: the rows within its radius of
    /// `positions[row]` (inclusive: `d2 <= r * r` by [`super::dist2`]), excluding
    /// `row`, capped to the `cap` nearest by `(d2, row)`, in scan order (or sorted, as
    /// the query says). Returned in this scratch's own buffer, valid until its next
    /// use. `index` must have been rebuilt over `positions`; with a k-d tree, `row`
    /// should belong to the last gathered chunk (otherwise the answer is still exact
    /// but computed by a brute-force scan, in row order).
    ///
    /// The one entry point of the neighbour scan. Out of line: the steering kernels
    /// call it once per agent that needs a list, and it costs less as a call than
    /// inlined into them (`docs/optimisations.md`, fifth round: `scan_prepared`).
    #[inline(never)]
    pub fn scan(
        &mut self,
        index: &SpatialIndex,
        positions: &[Vec2],
        row: usize,
        query: &NeighbourQuery,
    ) -> &[u32] {
        let q = query;
        self.over_cap = false;
        if row >= addressable(positions.len()) || q.cap == 0 {
            return &[];
        }
        let p = positions[row];
        let probe = Probe {
            p,
            r2: q.r2,
            row: row as u32,
        };
        let gathered = index.tree().is_some() && self.gathered(positions, row, q.r);
        let hits = &mut self.hits;
        // How many rows were found, the squared radius they are all within (the
        // query's, or a narrower one that found enough: [`scan_cells`]), and whether
        // more than the cap lie within the query's. Those keep the nearest by buckets
        // of that radius ([`keep_nearest`]): in a crowd far denser than the query's
        // radius (a pile spreading out), buckets of the whole radius put every row in
        // the first, and the selection runs over all of them.
        let (found, within, over) = match (index.grid(), index.tree()) {
            (Some(g), _) if g.len() == positions.len() && q.finite => {
                let cell = g.cell_of(row).unwrap_or(NO_CELL);
                scan_cells(g.cells(), (cell, q.grid_cells), (probe, q.cap), hits)
            }
            (_, Some(tree)) if gathered => {
                let local = row - self.rows.start;
                match self.row_cell.get(local).copied().unwrap_or(NO_CELL) {
                    STRAY => {
                        let found = self.scan_stray(tree, positions, row, q);
                        (found, q.r2, found > q.cap)
                    }
                    cell => scan_cells(&self.cands, (cell, self.reach_cells), (probe, q.cap), hits),
                }
            }
            _ => {
                brute::brute_keys(positions, row, q.r, &mut self.keys);
                hits.clear();
                hits.extend(self.keys.iter().map(|&k| k as u32));
                (hits.len(), q.r2, hits.len() > q.cap)
            }
        };
        let found = found.min(self.hits.len());
        self.over_cap = over;
        let kept = if found <= q.cap {
            found
        } else {
            let keys = (&mut self.keys, &mut self.select);
            keep_nearest(positions, p, &mut self.hits[..found], q.cap, within, keys)
        };
        if q.sorted {
            sort_by_distance(positions, p, &mut self.hits[..kept], &mut self.keys);
        }
        &self.hits[..kept]
    }

    /// Whether the last [`Self::scan`] found more rows within the query's radius than
    /// its cap (and kept the nearest).
    pub(crate) fn was_over_cap(&self) -> bool {
        self.over_cap
    }

    /// The candidates around `row` with their unit velocities (empty where a grid was
    /// rebuilt or a chunk gathered without them), for a one-pass sum over its
    /// neighbours by `query` ([`Candidates`]). `None` where that does not apply, and
    /// the caller scans instead: a row outside the last gather, a reach beyond one
    /// cell, or a cap of zero.
    #[inline(always)]
    pub(crate) fn candidates<'a>(
        &'a self,
        index: &'a SpatialIndex,
        positions: &[Vec2],
        row: usize,
        query: &NeighbourQuery,
    ) -> Option<Candidates<'a>> {
        let q = query;
        if !q.finite || q.cap == 0 {
            return None;
        }
        let at = *positions.get(row)?;
        let (table, cell) = match index.grid() {
            Some(g) => {
                if q.grid_cells != 1 || g.len() != positions.len() {
                    return None;
                }
                (g.cells(), g.cell_of(row)?)
            }
            None => {
                if !self.gathered(positions, row, q.r) || self.reach_cells != 1 {
                    return None;
                }
                (&self.cands, *self.row_cell.get(row - self.rows.start)?)
            }
        };
        let (unit_xs, unit_ys) = table.unit_vels().unwrap_or((&[], &[]));
        let (xs, ys, ids) = table.entries();
        let spans = table.spans3(cell)?;
        Some(Candidates {
            xs,
            ys,
            ids,
            unit_xs,
            unit_ys,
            spans,
            row: row as u32,
            at,
            r2: q.r2,
            cap: q.cap,
            crowded: crowded(table, &spans, q.crowd),
        })
    }
}
