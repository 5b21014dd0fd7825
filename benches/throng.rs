//! The benchmark binary.

use criterion::{criterion_group, criterion_main};

mod spatial;

criterion_group!(benches, spatial::benches);
criterion_main!(benches);
