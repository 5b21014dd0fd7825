//! Command-line arguments of the scaling sweep, and how it fails.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use throng::scenario::{self, ProfileError};

/// Sizes swept by default.
pub(crate) const DEFAULT_SIZES: &[usize] =
    &[1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 200_000];
/// Sizes swept by default with `--quick`.
pub(crate) const QUICK_SIZES: &[usize] = &[1_000, 5_000, 10_000, 25_000, 50_000];
/// Profiles swept by default.
pub(crate) const DEFAULT_PROFILES: &[&str] = &["flock", "leader_squads", "arena", "circle", "city"];
/// Largest size a sweep accepts.
pub(crate) const MAX_SIZE: usize = 10_000_000;

/// A comma-separated list of agent counts.
#[derive(Clone, Debug)]
pub(crate) struct SizeList(pub(crate) Vec<usize>);

/// A comma-separated list of bundled profile names.
#[derive(Clone, Debug)]
pub(crate) struct ProfileList(pub(crate) Vec<String>);

/// `1000,5000,...`: each between 1 and 10,000,000.
pub(crate) fn parse_sizes(s: &str) -> Result<SizeList, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let n: usize = part
            .replace('_', "")
            .parse()
            .map_err(|_| format!("`{part}` is not a whole number of agents"))?;
        if n == 0 || n > MAX_SIZE {
            return Err(format!("sizes run from 1 to {MAX_SIZE} agents, got {n}"));
        }
        out.push(n);
    }
    out.sort_unstable();
    out.dedup();
    Ok(SizeList(out))
}

/// `flock,city,...`: bundled profile names.
pub(crate) fn parse_profiles(s: &str) -> Result<ProfileList, String> {
    let mut out: Vec<String> = Vec::new();
    for part in s.split(',') {
        let name = part.trim();
        if scenario::bundled(name).is_none() {
            let names: Vec<&str> = scenario::BUNDLED.iter().map(|b| b.name).collect();
            return Err(format!(
                "unknown profile `{name}` (bundled: {})",
                names.join(", ")
            ));
        }
        if !out.iter().any(|p| p == name) {
            out.push(name.to_string());
        }
    }
    Ok(ProfileList(out))
}

/// The scaling sweep: profiles over crowd sizes and threads, the peers' benchmark
/// and a textbook loop; writes a markdown report and a scaling plot.
#[derive(Parser, Debug)]
#[command(name = "sweep", bin_name = "cargo bench --bench sweep --")]
pub(crate) struct SweepArgs {
    /// Agent counts, comma-separated [default: 1000,5000,10000,25000,50000,
    /// 100000,200000; with --quick up to 50000].
    #[arg(long, value_name = "N,N,...", value_parser = parse_sizes)]
    pub(crate) sizes: Option<SizeList>,
    /// Bundled profiles, comma-separated [default: flock,leader_squads,arena,
    /// circle,city]. `flock` is also swept with the grid index.
    #[arg(long, value_name = "NAME,...", value_parser = parse_profiles)]
    pub(crate) profiles: Option<ProfileList>,
    /// Timed ticks per configuration [default: 20; 8 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub(crate) ticks: Option<u64>,
    /// Warm-up ticks before the timed ones [default: 5; 3 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    pub(crate) warmup: Option<u64>,
    /// Rounds of the timed measurements (profiles, threads, the peers' benchmark):
    /// every configuration once a round, and of each configuration the round with
    /// the median total reported, so that one slow minute of the machine moves no
    /// figure [default: 3; 1 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=99))]
    pub(crate) rounds: Option<u64>,
    /// The markdown report [default: BENCHMARKS.md; with --quick
    /// target/sweep-quick/BENCHMARKS.md, leaving the committed report alone].
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// The scaling plot (SVG) [default: docs/scaling.svg; with --quick
    /// target/sweep-quick/scaling.svg].
    #[arg(long, value_name = "FILE")]
    pub(crate) plot: Option<PathBuf>,
    /// Other systems' figures on the Circle, measured side by side with throng's
    /// (JSON lines; see `docs/peers.jsonl`, the default).
    #[arg(long, value_name = "FILE")]
    pub(crate) peers: Option<PathBuf>,
    /// Leave out the crowd-quality runs.
    #[arg(long)]
    pub(crate) no_quality: bool,
    /// A shorter sweep: sizes up to 50k, fewer ticks, 20 timed steps in the
    /// peers' benchmark instead of 100.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    pub(crate) bench: bool,
}

/// Why the sweep failed, and with which exit status.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Bad input: an argument, a profile, an output file that cannot be created.
    /// Status 2.
    Input(String),
    /// Something failed while measuring or writing. Status 1.
    Runtime(String),
}

impl Failure {
    /// Say what failed on stderr; the exit status for it.
    pub(crate) fn exit(self) -> ExitCode {
        let (status, msg) = match self {
            Failure::Input(msg) => (2, msg),
            Failure::Runtime(msg) => (1, format!("error: {msg}")),
        };
        eprintln!("{msg}");
        ExitCode::from(status)
    }
}

impl From<ProfileError> for Failure {
    fn from(e: ProfileError) -> Self {
        Failure::Input(e.render())
    }
}
