//! `throng sweep`: a scaling sweep over profiles and sizes that writes a
//! markdown report (`BENCHMARKS.md`) and a scaling plot (SVG).
//!
//! What it measures, in order:
//! 1. every profile × size (constant density, `Profile::scaled_to`), plus
//!    `flock` with the uniform grid, on the global rayon pool: per-tick
//!    medians of each phase;
//! 2. `flock` (tree and grid) at 100k agents on explicit pools of 1 and 2
//!    threads: the speedup;
//! 3. the peers' benchmark (`circle` ring and `circle_disk` sunflower) at 1k,
//!    10k, 50k and 100k on 1 and 2 threads, 10 warm-up and 100 timed steps;
//! 4. a textbook O(n²) separation + seek loop (array of structs, one thread)
//!    at 1k, 5k and 10k, the yardstick of one of the speed targets.
//!
//! The targets table is computed from these measurements.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use clap::Args;
use glam::Vec2;
use rayon::ThreadPool;
use throng::scenario::{self, Profile, Scenario};
use throng::spatial::IndexKind;
use throng::world::PhaseTimes;
use throng::TickStats;

use crate::Failure;

/// Sizes swept by default.
const DEFAULT_SIZES: &[usize] = &[1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 200_000];
/// Sizes swept by default with `--quick`.
const QUICK_SIZES: &[usize] = &[1_000, 5_000, 10_000, 25_000, 50_000];
/// Profiles swept by default.
const DEFAULT_PROFILES: &[&str] = &["flock", "leader_squads", "arena", "circle", "city"];
/// Size of the thread-scaling runs.
const THREADS_SIZE: usize = 100_000;
/// Sizes of the peers' table.
const PEER_SIZES: &[usize] = &[1_000, 10_000, 50_000, 100_000];
/// Warm-up and timed steps of the peers' benchmark.
const PEER_WARMUP: u64 = 10;
const PEER_TICKS: u64 = 100;
/// Timed steps of the peers' benchmark with `--quick`.
const PEER_TICKS_QUICK: u64 = 20;
/// Sizes of the textbook O(n²) loop.
const TEXTBOOK_SIZES: &[usize] = &[1_000, 5_000, 10_000];
/// Largest size a sweep accepts.
const MAX_SIZE: usize = 10_000_000;

/// The peers' published figures (ms per step), copied from PEERS.md: the
/// system, then one cell per size in [`PEER_SIZES`].
const PEERS: &[(&str, [&str; 4])] = &[
    (
        "RVO2 C++ (ORCA linear program, own k-d tree each step), disk 1T / 2T",
        ["1.36 / 0.85", "15.3 / 8.6", "81 / 44.5", "180 / 99"],
    ),
    (
        "RVO2, ring 1T / 2T",
        ["0.74 / 0.43", "12.3 / 5.8", "64 / 38", "152 / 86"],
    ),
    (
        "dodgy_2d 0.5.5 (Rust ORCA kernel) with a uniform grid for neighbours, disk 1T / 2T",
        ["1.66 / 0.75", "12.0 / 6.1", "52 / 29", "104 / 57"],
    ),
    (
        "DetourCrowd (1T, at most 6 neighbours) ring / disk",
        ["2.5 / 2.4", "43 / 35", "cannot (N ≤ 16,383)", "cannot"],
    ),
    (
        "OpenSteer boids (3D, bin lattice, 1T, 16-19 neighbours)",
        ["1.7", "34", "524", "1,895"],
    ),
    (
        "textbook O(n²) separation + seek, array of structs, 1T",
        ["2.35", "257", "6,308", "~20,000"],
    ),
];

/// A comma-separated list of agent counts.
#[derive(Clone, Debug)]
pub struct SizeList(Vec<usize>);

/// A comma-separated list of bundled profile names.
#[derive(Clone, Debug)]
pub struct ProfileList(Vec<String>);

/// `1000,5000,...`: each between 1 and 10,000,000.
fn parse_sizes(s: &str) -> Result<SizeList, String> {
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
fn parse_profiles(s: &str) -> Result<ProfileList, String> {
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

/// Arguments of `throng sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Agent counts, comma-separated [default: 1000,5000,10000,25000,50000,
    /// 100000,200000; with --quick up to 50000].
    #[arg(long, value_name = "N,N,...", value_parser = parse_sizes)]
    sizes: Option<SizeList>,
    /// Bundled profiles, comma-separated [default: flock,leader_squads,arena,
    /// circle,city]. `flock` is also swept with the grid index.
    #[arg(long, value_name = "NAME,...", value_parser = parse_profiles)]
    profiles: Option<ProfileList>,
    /// Timed ticks per configuration [default: 20; 8 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    ticks: Option<u64>,
    /// Warm-up ticks before the timed ones [default: 5; 3 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    warmup: Option<u64>,
    /// The markdown report.
    #[arg(long, value_name = "FILE", default_value = "BENCHMARKS.md")]
    out: PathBuf,
    /// The scaling plot (SVG).
    #[arg(long, value_name = "FILE", default_value = "docs/scaling.svg")]
    plot: PathBuf,
    /// A shorter sweep: sizes up to 50k, fewer ticks, 20 timed steps in the
    /// peers' benchmark instead of 100.
    #[arg(long)]
    quick: bool,
}

/// Per-tick medians of one configuration, in nanoseconds.
#[derive(Clone, Copy, Debug)]
struct Measured {
    agents: usize,
    index: f64,
    sight: f64,
    steer: f64,
    integrate: f64,
    total: f64,
}

impl Measured {
    fn ns_per_agent_tick(&self) -> f64 {
        self.total / self.agents.max(1) as f64
    }
}

/// One line of the plot and one table of the report.
struct Series {
    label: String,
    rows: Vec<Measured>,
}

impl Series {
    fn at(&self, n: usize) -> Option<&Measured> {
        self.rows.iter().find(|m| m.agents == n)
    }
}

/// Thread scaling of one index at one size.
struct ThreadRun {
    label: String,
    agents: usize,
    one: f64,
    two: f64,
}

/// The peers' benchmark on throng: (profile, size, threads) → median ns.
struct PeerRun {
    profile: &'static str,
    agents: usize,
    threads: usize,
    total: f64,
}

/// What the sweep needs to know about the machine.
struct Machine {
    date: String,
    cores: usize,
    cpu: String,
    threads: usize,
    load_before: String,
    load_after: String,
}

/// Everything the report is written from.
struct Results {
    machine: Machine,
    ticks: u64,
    warmup: u64,
    peer_ticks: u64,
    quick: bool,
    series: Vec<Series>,
    threads: Vec<ThreadRun>,
    peers: Vec<PeerRun>,
    textbook: Vec<(usize, f64)>,
    wall_s: f64,
}

/// Counts finished configurations for the progress lines.
struct Progress {
    done: usize,
    total: usize,
    started: Instant,
}

impl Progress {
    fn report(&mut self, what: &str, ns: f64) {
        self.done += 1;
        eprintln!(
            "[{:>2}/{}] {what}: {} ms/tick ({:.0} s elapsed)",
            self.done,
            self.total,
            fmt_ms(ns),
            self.started.elapsed().as_secs_f64()
        );
    }
}

/// Run the sweep and write the report and the plot.
pub fn sweep(args: SweepArgs) -> Result<(), Failure> {
    let quick = args.quick;
    let sizes = match args.sizes {
        Some(SizeList(s)) => s,
        None if quick => QUICK_SIZES.to_vec(),
        None => DEFAULT_SIZES.to_vec(),
    };
    let names = match args.profiles {
        Some(ProfileList(p)) => p,
        None => DEFAULT_PROFILES.iter().map(|s| s.to_string()).collect(),
    };
    let ticks = args.ticks.unwrap_or(if quick { 8 } else { 20 });
    let warmup = args.warmup.unwrap_or(if quick { 3 } else { 5 });
    let peer_ticks = if quick { PEER_TICKS_QUICK } else { PEER_TICKS };
    let largest = sizes.iter().copied().max().unwrap_or(1);

    // Refuse unwritable outputs before spending minutes measuring.
    check_writable(&args.out, "report")?;
    check_writable(&args.plot, "plot")?;

    let mut profiles = Vec::new();
    for name in &names {
        let b = scenario::bundled(name)
            .ok_or_else(|| Failure::Input(format!("error: unknown profile `{name}`")))?;
        profiles.push(scenario::load_bundled(b)?);
    }
    let flock = profiles.iter().find(|p| p.name == "flock").cloned();
    let threads_size = THREADS_SIZE.min(largest);
    let peer_sizes = capped(PEER_SIZES, largest);
    let textbook_sizes = capped(TEXTBOOK_SIZES, largest);

    let machine_before = load_average();
    let grid_series = usize::from(flock.is_some());
    let total = (profiles.len() + grid_series) * sizes.len()
        + if flock.is_some() { 4 } else { 0 }
        + 4 * peer_sizes.len()
        + textbook_sizes.len();
    let mut progress = Progress {
        done: 0,
        total,
        started: Instant::now(),
    };
    let threads = rayon::current_num_threads();
    eprintln!(
        "sweep: {} configurations, {warmup} warm-up + {ticks} timed ticks each, \
         {threads} threads, load average {machine_before}",
        total
    );

    // 1. Profiles × sizes, plus flock on the grid.
    let mut series = Vec::new();
    for p in &profiles {
        let mut kinds = vec![(p.name.clone(), IndexKind::KdTree)];
        if p.name == "flock" {
            kinds.push(("flock (grid)".to_string(), IndexKind::Grid));
        }
        for (label, kind) in kinds {
            let mut rows = Vec::new();
            for &n in &sizes {
                let m = measure(p, n, kind, None, warmup, ticks)?;
                progress.report(&format!("{label}, {n} agents"), m.total);
                rows.push(m);
            }
            series.push(Series { label, rows });
        }
    }

    // 2. Threads: flock on 1 and 2 threads.
    let mut thread_runs = Vec::new();
    if let Some(f) = &flock {
        let one = pool(1)?;
        let two = pool(2)?;
        for (label, kind) in [
            ("flock", IndexKind::KdTree),
            ("flock (grid)", IndexKind::Grid),
        ] {
            let (a, b) = measure_pair(
                f,
                threads_size,
                kind,
                [one.clone(), two.clone()],
                warmup,
                ticks,
            )?;
            progress.report(
                &format!("{label}, {threads_size} agents, 1 thread"),
                a.total,
            );
            progress.report(
                &format!("{label}, {threads_size} agents, 2 threads"),
                b.total,
            );
            thread_runs.push(ThreadRun {
                label: label.to_string(),
                agents: a.agents,
                one: a.total,
                two: b.total,
            });
        }
    }

    // 3. The peers' benchmark.
    let mut peers = Vec::new();
    for name in ["circle", "circle_disk"] {
        let b = scenario::bundled(name)
            .ok_or_else(|| Failure::Runtime(format!("the bundled profile {name} is missing")))?;
        let p = scenario::load_bundled(b)?;
        for &n in &peer_sizes {
            let (a, b) = measure_pair(
                &p,
                n,
                IndexKind::KdTree,
                [pool(1)?, pool(2)?],
                PEER_WARMUP,
                peer_ticks,
            )?;
            for (k, m) in [(1, a), (2, b)] {
                progress.report(
                    &format!("peers: {name}, {n} agents, {k} thread{}", plural_s(k)),
                    m.total,
                );
                peers.push(PeerRun {
                    profile: name,
                    agents: m.agents,
                    threads: k,
                    total: m.total,
                });
            }
        }
    }

    // 4. The textbook O(n²) loop.
    let mut textbook = Vec::new();
    for &n in &textbook_sizes {
        let ns = textbook_median_ns(n);
        progress.report(&format!("textbook O(n²) loop, {n} agents, 1 thread"), ns);
        textbook.push((n, ns));
    }

    let results = Results {
        machine: Machine {
            date: utc_now(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu: cpu_model(),
            threads,
            load_before: machine_before,
            load_after: load_average(),
        },
        ticks,
        warmup,
        peer_ticks,
        quick,
        series,
        threads: thread_runs,
        peers,
        textbook,
        wall_s: progress.started.elapsed().as_secs_f64(),
    };
    let report = render_report(&results, &args.plot, &args.out);
    let svg = render_svg(&results);
    write(&args.out, &report, "report")?;
    write(&args.plot, &svg, "plot")?;
    eprintln!(
        "sweep: wrote {} and {} in {:.0} s (load average now {})",
        args.out.display(),
        args.plot.display(),
        results.wall_s,
        results.machine.load_after
    );
    Ok(())
}

/// The sizes of `wanted` up to `largest`; the largest swept size alone when
/// none is that small.
fn capped(wanted: &[usize], largest: usize) -> Vec<usize> {
    let v: Vec<usize> = wanted.iter().copied().filter(|&n| n <= largest).collect();
    if v.is_empty() {
        vec![largest]
    } else {
        v
    }
}

fn plural_s(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Fail now (status 2) if `path` cannot be written, without truncating it.
fn check_writable(path: &Path, what: &str) -> Result<(), Failure> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map(drop)
        .map_err(|e| {
            Failure::Input(format!(
                "error: cannot write the {what} file {}: {e}",
                path.display()
            ))
        })
}

fn write(path: &Path, text: &str, what: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::Runtime(format!("writing the {what} file {}: {e}", path.display())))
}

fn pool(k: usize) -> Result<Arc<ThreadPool>, Failure> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(k)
        .build()
        .map(Arc::new)
        .map_err(|e| Failure::Runtime(format!("cannot start {k} threads: {e}")))
}

/// `profile` at `n` agents with the given index and pool, after `warmup`
/// ticks.
fn prepare(
    profile: &Profile,
    n: usize,
    index: IndexKind,
    pool: Option<Arc<ThreadPool>>,
    warmup: u64,
) -> Result<Scenario, Failure> {
    let mut p = profile.scaled_to(n);
    p.world.index = index;
    let mut sc = Scenario::build(&p).map_err(|e| {
        Failure::Runtime(format!("cannot build {} at {n} agents: {e}", profile.name))
    })?;
    if pool.is_some() {
        sc.world_mut().set_thread_pool(pool);
    }
    for _ in 0..warmup {
        step(&mut sc)?;
    }
    Ok(sc)
}

/// One tick, its failure worded for the user.
fn step(sc: &mut Scenario) -> Result<TickStats, Failure> {
    sc.step().map_err(|e| {
        Failure::Runtime(format!(
            "{} at {} agents: {e}",
            sc.profile().name,
            sc.world().len()
        ))
    })
}

/// Per-phase timings of the timed ticks of one scenario.
#[derive(Default)]
struct Samples([Vec<u64>; 5]);

impl Samples {
    fn push(&mut self, t: &PhaseTimes) {
        for (c, v) in self.0.iter_mut().zip([
            t.index_ns,
            t.sight_ns,
            t.steer_ns,
            t.integrate_ns,
            t.total_ns,
        ]) {
            c.push(v);
        }
    }

    fn medians(self, agents: usize) -> Measured {
        let [index, sight, steer, integrate, total] = self.0.map(median);
        Measured {
            agents,
            index,
            sight,
            steer,
            integrate,
            total,
        }
    }
}

/// Build `profile` at `n` agents with the given index, run `warmup` ticks,
/// then `ticks` timed ones: per-phase medians.
fn measure(
    profile: &Profile,
    n: usize,
    index: IndexKind,
    pool: Option<Arc<ThreadPool>>,
    warmup: u64,
    ticks: u64,
) -> Result<Measured, Failure> {
    let mut sc = prepare(profile, n, index, pool, warmup)?;
    let mut samples = Samples::default();
    for _ in 0..ticks {
        samples.push(&step(&mut sc)?.times);
    }
    Ok(samples.medians(sc.world().len()))
}

/// The same configuration on two pools, ticks interleaved (one on the first
/// pool, one on the second, and so on), so that whatever else the machine
/// does weighs on both alike.
fn measure_pair(
    profile: &Profile,
    n: usize,
    index: IndexKind,
    pools: [Arc<ThreadPool>; 2],
    warmup: u64,
    ticks: u64,
) -> Result<(Measured, Measured), Failure> {
    let [p1, p2] = pools;
    let mut a = prepare(profile, n, index, Some(p1), warmup)?;
    let mut b = prepare(profile, n, index, Some(p2), warmup)?;
    let (mut sa, mut sb) = (Samples::default(), Samples::default());
    for _ in 0..ticks {
        sa.push(&step(&mut a)?.times);
        sb.push(&step(&mut b)?.times);
    }
    Ok((sa.medians(a.world().len()), sb.medians(b.world().len())))
}

/// Median (mean of the middle two for an even count); 0 for none.
fn median(mut v: Vec<u64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable();
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m] as f64
    } else {
        (v[m - 1] as f64 + v[m] as f64) / 2.0
    }
}

/// One agent of the textbook loop: everything in one struct.
#[derive(Clone, Copy)]
struct TextbookAgent {
    pos: Vec2,
    vel: Vec2,
    goal: Vec2,
}

/// The `circle` ring at `n` agents, run by the textbook loop: every agent
/// tests every other for separation (radius 4, the `circle` profile's), seeks
/// its antipode (max speed 2, max force 4, dt 0.25), one thread. One warm-up
/// tick, then the median of 3 to 50 timed ones (fewer for larger crowds).
fn textbook_median_ns(n: usize) -> f64 {
    let r = 200.0 * (n as f32 / 250.0).sqrt();
    let mut agents: Vec<TextbookAgent> = (0..n)
        .map(|i| {
            let a = std::f32::consts::TAU * i as f32 / n as f32;
            let pos = Vec2::new(a.cos(), a.sin()) * r;
            TextbookAgent {
                pos,
                vel: Vec2::ZERO,
                goal: -pos,
            }
        })
        .collect();
    // About 0.1 s of timed work, and at least three ticks.
    let timed = (1e8 / (n as f64 * n as f64)).clamp(3.0, 50.0) as usize;
    let mut times = Vec::new();
    for t in 0..=timed {
        let start = Instant::now();
        textbook_tick(&mut agents);
        if t > 0 {
            times.push(start.elapsed().as_nanos() as u64);
        }
    }
    std::hint::black_box(&agents);
    median(times)
}

fn textbook_tick(agents: &mut [TextbookAgent]) {
    const SEPARATION_RADIUS: f32 = 4.0;
    const STRENGTH: f32 = 3.0;
    const MAX_SPEED: f32 = 2.0;
    const MAX_FORCE: f32 = 4.0;
    const DT: f32 = 0.25;
    let before = agents.to_vec();
    for (i, a) in agents.iter_mut().enumerate() {
        let me = before[i];
        let mut away = Vec2::ZERO;
        for (j, other) in before.iter().enumerate() {
            if j == i {
                continue;
            }
            let d = me.pos - other.pos;
            let d2 = d.length_squared();
            if d2 > 0.0 && d2 < SEPARATION_RADIUS * SEPARATION_RADIUS {
                away += d / d2;
            }
        }
        let to_goal = me.goal - me.pos;
        let desired = if to_goal.length() > 1.0 {
            to_goal.normalize() * MAX_SPEED
        } else {
            to_goal
        };
        let force = ((desired - me.vel) + away * STRENGTH).clamp_length_max(MAX_FORCE);
        a.vel = (me.vel + force * DT).clamp_length_max(MAX_SPEED);
        a.pos = me.pos + a.vel * DT;
    }
}

/// `/proc/loadavg`'s three load averages, or "unknown".
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// The first "model name" of `/proc/cpuinfo`, or "unknown".
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The current time as `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// The date of a day counted from 1970-01-01 (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Milliseconds from nanoseconds, with precision to suit the size.
fn fmt_ms(ns: f64) -> String {
    let ms = ns / 1e6;
    if ms < 1.0 {
        format!("{ms:.3}")
    } else if ms < 100.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.1}")
    }
}

/// An agent count as `1k`, `25k`, `1.5M`, or the number itself.
fn fmt_agents(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(100_000) {
        let m = n as f64 / 1e6;
        format!("{}M", trim_float(m))
    } else if n >= 1_000 && n.is_multiple_of(100) {
        format!("{}k", trim_float(n as f64 / 1e3))
    } else {
        n.to_string()
    }
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// One row of the targets table.
struct Target {
    what: String,
    target: String,
    measured: Option<(String, f64)>,
    /// `measured / target`, and whether the target is met.
    verdict: Option<(f64, bool)>,
}

impl Target {
    /// A target of at most `limit` (ms, or a ratio).
    fn at_most(what: String, limit: f64, unit: &str, value: Option<f64>) -> Self {
        Self {
            what,
            target: format!("≤ {}{unit}", trim_float(limit)),
            measured: value.map(|v| (format!("{v:.2}{unit}"), v)),
            verdict: value.map(|v| (v / limit, v <= limit)),
        }
    }

    /// A target of at least `limit`.
    fn at_least(what: String, limit: f64, unit: &str, value: Option<f64>) -> Self {
        Self {
            what,
            target: format!("≥ {}{unit}", trim_float(limit)),
            measured: value.map(|v| (format!("{v:.2}{unit}"), v)),
            verdict: value.map(|v| (v / limit, v >= limit)),
        }
    }
}

fn targets(r: &Results) -> Vec<Target> {
    let ms = |ns: f64| ns / 1e6;
    let thread_run = |label: &str| {
        r.threads
            .iter()
            .find(|t| t.label == label && t.agents == THREADS_SIZE)
    };
    let series = |label: &str| r.series.iter().find(|s| s.label == label);
    let mut out = vec![
        Target::at_most(
            "flock, 100k agents, k-d tree, 2 threads (ms/tick)".into(),
            15.0,
            " ms",
            thread_run("flock").map(|t| ms(t.two)),
        ),
        Target::at_most(
            format!("city, 100k agents, {} threads (ms/tick)", r.machine.threads),
            25.0,
            " ms",
            series("city")
                .and_then(|s| s.at(THREADS_SIZE))
                .map(|m| ms(m.total)),
        ),
        Target::at_most(
            "flock, 100k agents, grid, 2 threads (ms/tick)".into(),
            6.0,
            " ms",
            thread_run("flock (grid)").map(|t| ms(t.two)),
        ),
    ];
    for s in &r.series {
        let ratio = match (s.at(200_000), s.at(1_000)) {
            (Some(big), Some(small)) => Some(big.ns_per_agent_tick() / small.ns_per_agent_tick()),
            _ => None,
        };
        out.push(Target::at_most(
            format!("{}: ns per agent-tick at 200k ÷ at 1k", s.label),
            2.0,
            "×",
            ratio,
        ));
    }
    for label in ["flock", "flock (grid)"] {
        out.push(Target::at_least(
            format!("{label}, 100k agents: speedup from 1 to 2 threads"),
            1.7,
            "×",
            thread_run(label).map(|t| t.one / t.two),
        ));
    }
    let textbook_10k = r.textbook.iter().find(|(n, _)| *n == 10_000).map(|t| t.1);
    let circle_10k = |k: usize| {
        r.peers
            .iter()
            .find(|p| p.profile == "circle" && p.agents == 10_000 && p.threads == k)
            .map(|p| p.total)
    };
    for k in [2, 1] {
        out.push(Target::at_least(
            format!(
                "circle (ring), 10k agents, {k} thread{}: times faster than the textbook O(n²) loop on 1 thread",
                plural_s(k)
            ),
            50.0,
            "×",
            textbook_10k.zip(circle_10k(k)).map(|(t, c)| t / c),
        ));
    }
    out
}

fn render_report(r: &Results, plot: &Path, out: &Path) -> String {
    let m = &r.machine;
    let mut s = String::new();
    let build = if cfg!(debug_assertions) {
        "debug (unoptimised: the figures say nothing about release speed)"
    } else {
        "release"
    };
    let _ = writeln!(s, "# Benchmarks\n");
    let _ = writeln!(
        s,
        "Written by `throng sweep{}` on {}. Medians of per-tick wall times; \
         ms per tick unless stated.\n",
        if r.quick { " --quick" } else { "" },
        m.date
    );
    let _ = writeln!(s, "| | |\n|---|---|");
    let _ = writeln!(s, "| date | {} |", m.date);
    let _ = writeln!(s, "| CPU | {} |", m.cpu);
    let _ = writeln!(s, "| cores (available parallelism) | {} |", m.cores);
    let _ = writeln!(s, "| rayon threads in the profile tables | {} |", m.threads);
    let _ = writeln!(s, "| build profile | {build} |");
    let _ = writeln!(
        s,
        "| ticks per configuration | {} warm-up + {} timed |",
        r.warmup, r.ticks
    );
    let _ = writeln!(
        s,
        "| load average (1, 5, 15 min) before / after | {} / {} |",
        m.load_before, m.load_after
    );
    let _ = writeln!(s, "| sweep wall time | {:.0} s |\n", r.wall_s);
    let _ = writeln!(
        s,
        "The load average after the sweep includes the sweep's own threads; the one \
         before tells what else the machine was doing.\n"
    );
    let before_1min = m
        .load_before
        .split_whitespace()
        .next()
        .and_then(|v| v.parse::<f64>().ok());
    if before_1min.is_some_and(|l| l > 1.5) {
        let _ = writeln!(
            s,
            "**The machine was busy when the sweep started (1-minute load above 1.5): \
             read the figures as upper bounds.**\n"
        );
    }
    let plot_link = relative_link(plot, out);
    let _ = writeln!(
        s,
        "Every profile is scaled with `Profile::scaled_to(n)`: group counts grow in \
         proportion and the scene by `sqrt(n / n0)`, so the density stays the one the \
         profile was written for. `flock (grid)` is `flock` with the uniform grid as \
         its neighbour index instead of the k-d tree.\n\n![ns per agent-tick against \
         agents]({plot_link})\n"
    );

    let _ = writeln!(s, "## Per profile\n");
    for se in &r.series {
        let _ = writeln!(s, "### {}\n", se.label);
        let _ = writeln!(
            s,
            "| agents | total (ms) | index | sight | steer | integrate | ns per agent-tick |"
        );
        let _ = writeln!(s, "|---:|---:|---:|---:|---:|---:|---:|");
        for row in &se.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {:.0} |",
                row.agents,
                fmt_ms(row.total),
                fmt_ms(row.index),
                fmt_ms(row.sight),
                fmt_ms(row.steer),
                fmt_ms(row.integrate),
                row.ns_per_agent_tick()
            );
        }
        let _ = writeln!(s);
    }

    let _ = writeln!(s, "## Scaling with the number of agents\n");
    let _ = writeln!(
        s,
        "Per-agent cost at the largest size against the smallest (1.0 = perfectly \
         linear).\n"
    );
    let _ = writeln!(s, "| profile | from | to | ns per agent-tick | ratio |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|");
    for se in &r.series {
        if let (Some(a), Some(b)) = (se.rows.first(), se.rows.last()) {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.0} → {:.0} | {:.2}× |",
                se.label,
                fmt_agents(a.agents),
                fmt_agents(b.agents),
                a.ns_per_agent_tick(),
                b.ns_per_agent_tick(),
                b.ns_per_agent_tick() / a.ns_per_agent_tick()
            );
        }
    }
    if r.series.iter().any(|se| se.label == "circle") {
        let _ = writeln!(
            s,
            "\n`circle` does not keep its density: the ring's radius grows as sqrt(N) \
             (the benchmark's formula), so the spacing along the ring shrinks as \
             1/sqrt(N) — below an agent's diameter from 10k on — and every agent has \
             more candidates within the neighbour distance of 15 as N grows. A rising \
             per-agent cost is built into that scenario."
        );
    }
    let _ = writeln!(s);

    let _ = writeln!(s, "## Threads\n");
    if r.threads.is_empty() {
        let _ = writeln!(s, "Not measured: `flock` was not among the profiles.\n");
    } else {
        let _ = writeln!(
            s,
            "`flock` on explicit rayon pools of 1 and 2 threads (same bits either way), \
             the two runs' ticks interleaved so that other load on the machine weighs \
             on both alike.\n"
        );
        let _ = writeln!(
            s,
            "| configuration | agents | 1 thread | 2 threads | speedup |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|");
        for t in &r.threads {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.2}× |",
                t.label,
                t.agents,
                fmt_ms(t.one),
                fmt_ms(t.two),
                t.one / t.two
            );
        }
        let _ = writeln!(s);
    }

    render_peers(&mut s, r);
    render_index_choice(&mut s, r);
    render_targets(&mut s, r);

    let _ = writeln!(s, "## What each optimisation bought\n");
    let _ = writeln!(
        s,
        "Each change to the hot path, with its measured effect (instruction counts \
         and wall times, before → after) and how it was measured, is listed in \
         [docs/optimisations.md]({}), together with where the time still goes.",
        relative_link(Path::new("docs/optimisations.md"), out)
    );
    s
}

fn render_peers(s: &mut String, r: &Results) {
    let _ = writeln!(s, "## The peers' benchmark (Circle)\n");
    let mut cols: Vec<usize> = PEER_SIZES.to_vec();
    for p in &r.peers {
        if !cols.contains(&p.agents) {
            cols.push(p.agents);
        }
    }
    cols.sort_unstable();
    let _ = writeln!(
        s,
        "RVO2's Circle benchmark, scaled: agents start on a ring of radius \
         200·sqrt(N/250) (`circle`) or a sunflower disk of about 16 square units per \
         agent (`circle_disk`) and head for the antipodal point. Both use neighbour \
         distance 15, at most 10 neighbours, radius 1.5, max speed 2, dt 0.25, as the \
         peers. {} warm-up steps, then {} timed steps{}; ms per step, 1T / 2T = 1 or 2 \
         threads.\n",
        PEER_WARMUP,
        r.peer_ticks,
        if r.quick {
            format!(
                " (**--quick: {} timed steps instead of the peers' {}**)",
                r.peer_ticks, PEER_TICKS
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        s,
        "Not the same per-agent work: throng steers with forces (arrive at the \
         antipode plus separation from at most 10 neighbours, found in a k-d tree \
         rebuilt every tick), while RVO2 and dodgy solve an ORCA linear program per \
         agent, which is more arithmetic per neighbour and gives collision-free \
         velocities that force-based steering does not guarantee. The peers' rows \
         are as published in PEERS.md, same machine class (2-vCPU AMD EPYC Zen 4 VM, \
         medians, ±25% between passes), not measured here.\n"
    );
    let _ = write!(s, "| system (per-agent work) |");
    for c in &cols {
        let _ = write!(s, " {} |", fmt_agents(*c));
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "|---|{}", "---:|".repeat(cols.len()));
    for (name, label) in [
        (
            "circle",
            "**throng** (arrive + separation, k-d tree), ring 1T / 2T, measured here",
        ),
        (
            "circle_disk",
            "**throng** (arrive + separation, k-d tree), disk 1T / 2T, measured here",
        ),
    ] {
        let _ = write!(s, "| {label} |");
        for &c in &cols {
            let get = |k: usize| {
                r.peers
                    .iter()
                    .find(|p| p.profile == name && p.agents == c && p.threads == k)
                    .map(|p| fmt_ms(p.total))
            };
            match (get(1), get(2)) {
                (Some(a), Some(b)) => {
                    let _ = write!(s, " {a} / {b} |");
                }
                _ => {
                    let _ = write!(s, " not run |");
                }
            }
        }
        let _ = writeln!(s);
    }
    for (name, cells) in PEERS {
        let _ = write!(
            s,
            "| {name} (as published in PEERS.md, same machine class) |"
        );
        for c in &cols {
            let cell = PEER_SIZES
                .iter()
                .position(|p| p == c)
                .map_or("—", |i| cells[i]);
            let _ = write!(s, " {cell} |");
        }
        let _ = writeln!(s);
    }
    if !r.textbook.is_empty() {
        let _ = write!(
            s,
            "\nThe textbook O(n²) loop (every pair tested; separation + seek; array of \
             structs; 1 thread) timed here on the same ring:"
        );
        for (i, (n, ns)) in r.textbook.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            let _ = write!(s, "{sep}{} ms at {}", fmt_ms(*ns), fmt_agents(*n));
        }
        let _ = writeln!(s, ".");
    }
    let _ = writeln!(s);
}

fn render_index_choice(s: &mut String, r: &Results) {
    let _ = writeln!(s, "## Which neighbour index to pick\n");
    let tree = r.series.iter().find(|x| x.label == "flock");
    let grid = r.series.iter().find(|x| x.label == "flock (grid)");
    let (Some(tree), Some(grid)) = (tree, grid) else {
        let _ = writeln!(s, "Not measured: `flock` was not among the profiles.\n");
        return;
    };
    let pairs: Vec<(usize, f64, f64)> = tree
        .rows
        .iter()
        .filter_map(|t| grid.at(t.agents).map(|g| (t.agents, t.total, g.total)))
        .collect();
    let _ = writeln!(
        s,
        "`flock` with each index, same agents and seed, all phases included:\n"
    );
    let _ = writeln!(s, "| agents | k-d tree | grid | faster |");
    let _ = writeln!(s, "|---:|---:|---:|---|");
    for &(n, t, g) in &pairs {
        let faster = if g < t {
            format!("grid, {:.2}×", t / g)
        } else if t < g {
            format!("k-d tree, {:.2}×", g / t)
        } else {
            "neither".to_string()
        };
        let _ = writeln!(s, "| {n} | {} | {} | {faster} |", fmt_ms(t), fmt_ms(g));
    }
    let grid_wins: Vec<usize> = pairs.iter().filter(|p| p.2 < p.1).map(|p| p.0).collect();
    let tree_wins: Vec<usize> = pairs.iter().filter(|p| p.1 < p.2).map(|p| p.0).collect();
    let list = |v: &[usize]| {
        v.iter()
            .map(|n| fmt_agents(*n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let speedups: Vec<f64> = pairs.iter().map(|p| p.1 / p.2).collect();
    let lo = speedups.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = speedups.iter().copied().fold(0.0, f64::max);
    let _ = writeln!(s);
    if pairs.is_empty() {
        let _ = writeln!(s, "No size was measured with both indexes.");
    } else if tree_wins.is_empty() {
        let _ = writeln!(
            s,
            "The grid was faster at every size measured ({}), by {lo:.2}× to {hi:.2}×. \
             For crowds like `flock` — one neighbour radius, roughly uniform density — \
             pick the grid (`index = \"grid\"` in a profile's `[world]`, `--index grid` \
             on `throng run`, or `World::set_index_kind(IndexKind::Grid)`).",
            list(&grid_wins)
        );
    } else if grid_wins.is_empty() {
        let _ = writeln!(
            s,
            "The k-d tree was faster at every size measured ({}), by {:.2}× to {:.2}×: \
             keep the default tree for crowds like `flock`.",
            list(&tree_wins),
            1.0 / hi,
            1.0 / lo
        );
    } else {
        let _ = writeln!(
            s,
            "Neither index wins everywhere: the grid was faster at {} and the k-d tree at \
             {}. Pick by the crowd size you expect, from the table above.",
            list(&grid_wins),
            list(&tree_wins)
        );
    }
    let _ = writeln!(
        s,
        "\nThe grid's cells are as wide as the largest neighbour radius in the world, so \
         a world mixing small and large radii, or very uneven densities, scans more \
         candidates per agent in the grid than this uniform flock does; the tree adapts \
         to both. Only `flock` was measured with both indexes here.\n"
    );
}

fn render_targets(s: &mut String, r: &Results) {
    let _ = writeln!(s, "## Speed targets\n");
    let _ = writeln!(
        s,
        "Computed from the measurements above. \"vs target\" is measured ÷ target: \
         below 1 meets an \"at most\" target, at least 1 meets an \"at least\" one. \
         Targets at 100k and 200k are only judged when the sweep reached those sizes.\n"
    );
    let _ = writeln!(s, "| target | goal | measured | vs target | verdict |");
    let _ = writeln!(s, "|---|---:|---:|---:|---|");
    for t in targets(r) {
        let (measured, ratio, verdict) = match (&t.measured, t.verdict) {
            (Some((text, _)), Some((ratio, met))) => (
                text.clone(),
                format!("{ratio:.2}"),
                if met { "met" } else { "**not met**" }.to_string(),
            ),
            _ => (
                "—".to_string(),
                "—".to_string(),
                "not measured in this sweep".to_string(),
            ),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {measured} | {ratio} | {verdict} |",
            t.what, t.target
        );
    }
    let _ = writeln!(s);
}

/// `target` as a link from the directory of `from` (both relative to the
/// current directory), falling back to `target` as given.
fn relative_link(target: &Path, from: &Path) -> String {
    let base = from.parent().unwrap_or(Path::new(""));
    match target.strip_prefix(base) {
        Ok(rel) if !base.as_os_str().is_empty() => rel.display().to_string(),
        _ if base.as_os_str().is_empty() => target.display().to_string(),
        _ => std::path::absolute(target).map_or_else(
            |_| target.display().to_string(),
            |p| p.display().to_string(),
        ),
    }
}

/// Colours of the plot's lines.
const PALETTE: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The scaling plot: ns per agent-tick against agents (log scale).
fn render_svg(r: &Results) -> String {
    const W: f64 = 860.0;
    const H: f64 = 520.0;
    const LEFT: f64 = 80.0;
    const RIGHT: f64 = 190.0;
    const TOP: f64 = 56.0;
    const BOTTOM: f64 = 64.0;
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let points: Vec<(usize, f64)> = r
        .series
        .iter()
        .flat_map(|s| s.rows.iter().map(|m| (m.agents, m.ns_per_agent_tick())))
        .collect();
    let xmin = points.iter().map(|p| p.0).min().unwrap_or(1).max(1) as f64;
    let xmax = points.iter().map(|p| p.0).max().unwrap_or(1).max(1) as f64;
    let (lx0, lx1) = if xmax > xmin {
        (xmin.log10(), xmax.log10())
    } else {
        (xmin.log10() - 0.5, xmin.log10() + 0.5)
    };
    let ymax_data = points.iter().map(|p| p.1).fold(0.0, f64::max);
    let ystep = nice_step(ymax_data.max(1.0) / 5.0);
    let ymax = ((ymax_data / ystep).ceil() * ystep).max(ystep);
    let x = |n: f64| LEFT + (n.log10() - lx0) / (lx1 - lx0) * pw;
    let y = |v: f64| TOP + ph - v / ymax * ph;

    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
         viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" \
         font-weight=\"bold\">throng: cost per agent-tick against crowd size</text>",
        LEFT + pw / 2.0
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"42\" text-anchor=\"middle\" fill=\"#444\">{} cores, {} \
         threads, {}, median of {} ticks</text>",
        LEFT + pw / 2.0,
        r.machine.cores,
        r.machine.threads,
        escape(&r.machine.date),
        r.ticks
    );
    // Grid lines and y labels.
    let mut v = 0.0;
    while v <= ymax + ystep * 0.01 {
        let yy = y(v);
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" \
             stroke=\"#e4e4e4\"/>",
            LEFT + pw
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 8.0,
            yy + 4.0,
            trim_float(v)
        );
        v += ystep;
    }
    // x ticks: 1, 2, 5 × powers of ten within the range.
    for t in x_ticks(10f64.powf(lx0), 10f64.powf(lx1)) {
        let xx = x(t as f64);
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{TOP}\" x2=\"{xx:.1}\" y2=\"{:.1}\" \
             stroke=\"#e4e4e4\"/>",
            TOP + ph
        );
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" \
             stroke=\"black\"/>",
            TOP + ph,
            TOP + ph + 5.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            TOP + ph + 19.0,
            fmt_agents(t)
        );
    }
    // Axes and their titles.
    let _ = writeln!(
        s,
        "<path d=\"M{LEFT} {TOP} V{:.1} H{:.1}\" fill=\"none\" stroke=\"black\"/>",
        TOP + ph,
        LEFT + pw
    );
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">agents (log scale)</text>",
        LEFT + pw / 2.0,
        H - 18.0
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(22 {:.1}) rotate(-90)\" text-anchor=\"middle\">\
         ns per agent-tick (median)</text>",
        TOP + ph / 2.0
    );
    // One polyline per series, with a dot at each measurement, and the legend.
    for (i, se) in r.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let dash = if se.label.contains("grid") {
            " stroke-dasharray=\"6 3\""
        } else {
            ""
        };
        let pts: Vec<String> = se
            .rows
            .iter()
            .map(|m| format!("{:.1},{:.1}", x(m.agents as f64), y(m.ns_per_agent_tick())))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" \
             stroke-width=\"2\"{dash}/>",
            pts.join(" ")
        );
        for m in &se.rows {
            let _ = writeln!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>",
                x(m.agents as f64),
                y(m.ns_per_agent_tick())
            );
        }
        let ly = TOP + 10.0 + 22.0 * i as f64;
        let lx = LEFT + pw + 20.0;
        let _ = writeln!(
            s,
            "<line x1=\"{lx:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" \
             stroke=\"{colour}\" stroke-width=\"2\"{dash}/>",
            lx + 28.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            lx + 36.0,
            ly + 4.0,
            escape(&se.label)
        );
    }
    let _ = writeln!(s, "</svg>");
    s
}

/// 1, 2 or 5 × a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|v| *v >= raw)
        .unwrap_or(10.0 * p)
}

/// 1, 2, 5 × powers of ten between `lo` and `hi`; the ends when none is.
fn x_ticks(lo: f64, hi: f64) -> Vec<usize> {
    let mut out = Vec::new();
    let mut p = 1usize;
    while (p as f64) <= hi * 1.0001 {
        for m in [1, 2, 5] {
            let v = p * m;
            if (v as f64) >= lo * 0.9999 && (v as f64) <= hi * 1.0001 {
                out.push(v);
            }
        }
        match p.checked_mul(10) {
            Some(next) => p = next,
            None => break,
        }
    }
    if out.len() < 2 {
        out = vec![lo.round() as usize, hi.round() as usize];
        out.dedup();
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn lists_parse() {
        assert_eq!(parse_sizes("400, 200,200").unwrap().0, vec![200, 400]);
        assert!(parse_sizes("0").is_err());
        assert!(parse_sizes("ten").is_err());
        assert!(parse_profiles("flock,nope").is_err());
        assert_eq!(parse_profiles("flock,flock").unwrap().0, vec!["flock"]);
    }

    #[test]
    fn helpers() {
        assert_eq!(fmt_agents(1_000), "1k");
        assert_eq!(fmt_agents(200_000), "200k");
        assert_eq!(fmt_agents(250), "250");
        assert_eq!(nice_step(180.0), 200.0);
        assert_eq!(x_ticks(1_000.0, 200_000.0)[0], 1_000);
        assert_eq!(median(vec![3, 1, 2]), 2.0);
        assert_eq!(median(vec![4, 1, 2, 3]), 2.5);
        assert_eq!(capped(&[1_000, 10_000], 400), vec![400]);
    }
}
