//! throng
#![warn(missing_docs)]
pub mod behaviors;
pub mod math;
pub mod rng;
pub mod scene;
