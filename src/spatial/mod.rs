//! Neighbour index (temporary brute-force implementation of the interface).
#![allow(missing_docs)]
use glam::Vec2;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexKind {
    #[default]
    KdTree,
    Grid,
}

pub struct SpatialIndex {
    kind: IndexKind,
    pts: Vec<Vec2>,
}

impl SpatialIndex {
    pub fn new(kind: IndexKind) -> Self {
        Self {
            kind,
            pts: Vec::new(),
        }
    }
    pub fn kind(&self) -> IndexKind {
        self.kind
    }
    pub fn rebuild(&mut self, positions: &[Vec2], _cell_hint: f32) {
        self.pts.clear();
        self.pts.extend_from_slice(positions);
    }
    pub fn for_each_candidate(&self, p: Vec2, r: f32, mut f: impl FnMut(u32)) {
        for (i, q) in self.pts.iter().enumerate() {
            if q.distance_squared(p) <= r * r {
                f(i as u32)
            }
        }
    }
}

#[derive(Default)]
pub struct BatchNeighbours {
    tmp: Vec<(f32, u32)>,
}

impl BatchNeighbours {
    pub fn gather(
        &mut self,
        _index: &SpatialIndex,
        _positions: &[Vec2],
        _rows: std::ops::Range<usize>,
        _r: f32,
    ) {
    }
    pub fn neighbours(
        &mut self,
        positions: &[Vec2],
        row: usize,
        r: f32,
        cap: usize,
        out: &mut Vec<u32>,
    ) {
        brute_neighbours(positions, row, r, cap, out);
        let _ = &mut self.tmp;
    }
}

pub fn brute_neighbours(positions: &[Vec2], row: usize, r: f32, cap: usize, out: &mut Vec<u32>) {
    out.clear();
    let p = positions[row];
    let mut v: Vec<(f32, u32)> = positions
        .iter()
        .enumerate()
        .filter(|&(i, q)| i != row && q.distance_squared(p) <= r * r)
        .map(|(i, q)| (q.distance_squared(p), i as u32))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    out.extend(v.iter().take(cap).map(|x| x.1));
}

#[derive(Default)]
pub struct OrderScratch {
    _reserved: Vec<u32>,
}

pub fn spatial_order(positions: &[Vec2], perm: &mut Vec<u32>, _scratch: &mut OrderScratch) {
    perm.clear();
    perm.extend(0..positions.len() as u32);
}
