//! throng
#![warn(missing_docs)]
pub mod math;
pub mod rng;
pub mod behaviors;
pub mod spatial;
