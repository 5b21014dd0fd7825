//! The benchmark binary: one criterion binary, one file per area.
//!
//! - `scaling`: full ticks of the bundled profiles, 1k to 200k agents;
//! - `threads`: the 100k flock on 1 and 2 threads;
//! - `phases`: index rebuild, steering and integration on their own;
//! - `spatial`: the neighbour indexes (rebuild, a full neighbour pass);
//! - `baseline`: the textbook O(n²) loop, for the ratio;
//! - `fields`: building a goal field, and following one against seeking a point;
//! - `patterns`: churn, far outliers and coincident crowds against the plain crowd;
//! - `writes`: a host writing back 50,000 positions, in one call and one call each.
//!
//! Run one area with a filter, e.g. `cargo bench -- patterns/`; one series with a
//! trailing slash, `cargo bench -- scaling/flock/` (without it `scaling/flock` also
//! matches `scaling/flock_grid`). A full run takes about 18 minutes on 2 cores.

use criterion::{criterion_group, criterion_main};

mod baseline;
mod common;
mod fields;
mod patterns;
mod phases;
mod scaling;
mod spatial;
mod threads;
mod writes;

criterion_group!(
    benches,
    baseline::benches,
    spatial::benches,
    phases::benches,
    threads::benches,
    scaling::benches,
    patterns::benches,
    fields::benches,
    writes::benches
);
criterion_main!(benches);
