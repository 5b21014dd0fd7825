//! The scaling sweep: `cargo bench --bench sweep [-- OPTIONS]` writes a markdown
//! report (`BENCHMARKS.md`) and a scaling plot (`docs/scaling.svg`).
//!
//! What it measures, in order:
//! 1. every profile × size (constant density, `Profile::scaled_to`), plus
//!    `flock` with the uniform grid, on the global rayon pool: per-tick
//!    medians of each phase;
//! 2. `flock` (tree and grid) at 100k agents on explicit pools of 1 and 2
//!    threads: the speedup;
//! 3. the peers' benchmark (the Circle, ring and sunflower disk, with force-based
//!    steering and with ORCA) at 1k, 10k, 50k and 100k on 1 and 2 threads, 10
//!    warm-up and 100 timed steps, beside other systems' figures from a data file
//!    (`docs/peers.jsonl`, measured side by side in one run);
//! 4. crowd quality: the quality suite's scenarios and the two Circles with
//!    collision avoidance on and off;
//! 5. a textbook O(n²) separation + seek loop (array of structs, one thread)
//!    at 1k, 5k and 10k, the yardstick of one of the speed targets.
//!
//! Steps 1-3 run in rounds (three by default, `--rounds`), every configuration once a
//! round; of each, the round with the median total is reported. The targets table
//! is computed from these measurements. Exit status: 0 on success,
//! 2 for a bad argument or an output file that cannot be written, 1 when measuring
//! or writing fails.

mod args;
mod peers;
mod plot;
mod quality;
mod report;
mod run;

use std::process::ExitCode;

use clap::Parser;

use args::{Failure, SweepArgs};

fn main() -> ExitCode {
    run::sweep(SweepArgs::parse()).map_or_else(Failure::exit, |()| ExitCode::SUCCESS)
}
