//! The sweep's measurements: every profile over the sizes, thread scaling, the
//! peers' benchmark and the textbook loop, each configuration's per-phase medians.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use glam::Vec2;
use rayon::ThreadPool;
use throng::scenario::{self, Profile, Scenario};
use throng::spatial::IndexKind;
use throng::world::PhaseTimes;
use throng::TickStats;

use crate::args::{
    Failure, ProfileList, SizeList, SweepArgs, DEFAULT_PROFILES, DEFAULT_SIZES, QUICK_SIZES,
};
use crate::peers::{default_file, Peers};
use crate::plot::{phases_size, render_budget_svg, render_phases_svg, render_svg, sibling_plots};
use crate::quality::{quality_run, QualityRun, QUALITY_RUNS};
use crate::report::{fmt_ms, render_report};

/// Size of the thread-scaling runs.
pub(crate) const THREADS_SIZE: usize = 100_000;
/// Sizes of the peers' table.
pub(crate) const PEER_SIZES: &[usize] = &[1_000, 10_000, 50_000, 100_000];
/// Warm-up and timed steps of the peers' benchmark.
pub(crate) const PEER_WARMUP: u64 = 10;
pub(crate) const PEER_TICKS: u64 = 100;
/// Timed steps of the peers' benchmark with `--quick`.
pub(crate) const PEER_TICKS_QUICK: u64 = 20;
/// Sizes of the textbook O(n²) loop.
pub(crate) const TEXTBOOK_SIZES: &[usize] = &[1_000, 5_000, 10_000];

/// Per-tick medians of one configuration, in nanoseconds.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Measured {
    pub(crate) agents: usize,
    pub(crate) index: f64,
    pub(crate) sight: f64,
    pub(crate) steer: f64,
    pub(crate) integrate: f64,
    pub(crate) total: f64,
}

impl Measured {
    pub(crate) fn ns_per_agent_tick(&self) -> f64 {
        self.total / self.agents.max(1) as f64
    }
}

/// One line of the plot and one table of the report.
pub(crate) struct Series {
    pub(crate) label: String,
    pub(crate) rows: Vec<Measured>,
}

impl Series {
    pub(crate) fn at(&self, n: usize) -> Option<&Measured> {
        self.rows.iter().find(|m| m.agents == n)
    }
}

/// Thread scaling of one index at one size.
pub(crate) struct ThreadRun {
    pub(crate) label: String,
    pub(crate) agents: usize,
    pub(crate) one: f64,
    pub(crate) two: f64,
}

/// throng's configurations of the peers' benchmark: the bundled profile, its index,
/// and the row's label in the report.
pub(crate) const PEER_CONFIGS: &[(&str, IndexKind, &str)] = &[
    (
        "circle",
        IndexKind::KdTree,
        "arrive + separation, k-d tree, ring",
    ),
    (
        "circle_disk",
        IndexKind::KdTree,
        "arrive + separation, k-d tree, disk",
    ),
    ("circle_orca", IndexKind::KdTree, "ORCA, k-d tree, ring"),
    ("circle_orca", IndexKind::Grid, "ORCA, grid, ring"),
    (
        "circle_disk_orca",
        IndexKind::KdTree,
        "ORCA, k-d tree, disk",
    ),
    ("circle_disk_orca", IndexKind::Grid, "ORCA, grid, disk"),
];

/// The peers' benchmark on throng: (profile, index, size, threads) → median ns.
pub(crate) struct PeerRun {
    pub(crate) profile: &'static str,
    pub(crate) index: IndexKind,
    pub(crate) agents: usize,
    pub(crate) threads: usize,
    pub(crate) total: f64,
}

/// What the sweep needs to know about the machine.
pub(crate) struct Machine {
    pub(crate) date: String,
    pub(crate) cores: usize,
    pub(crate) cpu: String,
    pub(crate) threads: usize,
    pub(crate) load_before: String,
    pub(crate) load_after: String,
}

/// Everything the report is written from.
pub(crate) struct Results {
    pub(crate) machine: Machine,
    pub(crate) ticks: u64,
    pub(crate) warmup: u64,
    pub(crate) rounds: usize,
    pub(crate) peer_ticks: u64,
    pub(crate) quick: bool,
    pub(crate) series: Vec<Series>,
    pub(crate) threads: Vec<ThreadRun>,
    pub(crate) peers: Vec<PeerRun>,
    /// Other systems' figures, and the file they came from.
    pub(crate) peers_file: Option<(Peers, String)>,
    pub(crate) quality: Vec<QualityRun>,
    pub(crate) textbook: Vec<(usize, f64)>,
    pub(crate) wall_s: f64,
}

/// Counts finished configurations for the progress lines.
pub(crate) struct Progress {
    pub(crate) done: usize,
    pub(crate) total: usize,
    pub(crate) started: Instant,
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
pub(crate) fn sweep(args: SweepArgs) -> Result<(), Failure> {
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
    let rounds = args.rounds.unwrap_or(if quick { 1 } else { 3 }) as usize;
    let peer_ticks = if quick { PEER_TICKS_QUICK } else { PEER_TICKS };
    let largest = sizes.iter().copied().max().unwrap_or(1);

    // A quick sweep writes beside the build, not over the committed report.
    let (out, plot) = match (args.out.clone(), args.plot.clone(), quick) {
        (Some(o), Some(p), _) => (o, p),
        (o, p, true) => {
            let dir = Path::new("target/sweep-quick");
            if o.is_none() || p.is_none() {
                std::fs::create_dir_all(dir).map_err(|e| {
                    Failure::Input(format!("error: cannot create {}: {e}", dir.display()))
                })?;
            }
            (
                o.unwrap_or_else(|| dir.join("BENCHMARKS.md")),
                p.unwrap_or_else(|| dir.join("scaling.svg")),
            )
        }
        (o, p, false) => (
            o.unwrap_or_else(|| PathBuf::from("BENCHMARKS.md")),
            p.unwrap_or_else(|| PathBuf::from("docs/scaling.svg")),
        ),
    };
    // Refuse unwritable outputs before spending minutes measuring.
    check_writable(&out, "report")?;
    check_writable(&plot, "plot")?;
    let (budget_plot, phases_plot) = sibling_plots(&plot);
    check_writable(&budget_plot, "frame-budget plot")?;
    check_writable(&phases_plot, "per-phase plot")?;
    let peers_path = args
        .peers
        .clone()
        .unwrap_or_else(|| default_file().to_path_buf());
    let peers_file = Some((Peers::load(&peers_path)?, peers_path.display().to_string()));
    let quality_runs: &[(&'static str, Option<u64>)] =
        if args.no_quality { &[] } else { QUALITY_RUNS };

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

    // What steps 1-3 time, in their order: the series (every profile on the k-d
    // tree, the flock on the grid too), the flock on 1 and 2 threads, and throng's
    // configurations of the peers' benchmark.
    let mut series_of = Vec::new();
    for p in &profiles {
        series_of.push((p.name.clone(), p, IndexKind::KdTree));
        if p.name == "flock" {
            series_of.push(("flock (grid)".to_string(), p, IndexKind::Grid));
        }
    }
    let mut peer_profiles = Vec::new();
    for &(name, index, label) in PEER_CONFIGS {
        let b = scenario::bundled(name)
            .ok_or_else(|| Failure::Runtime(format!("the bundled profile {name} is missing")))?;
        peer_profiles.push((name, index, label, scenario::load_bundled(b)?));
    }
    let plan = Plan {
        series: &series_of,
        sizes: &sizes,
        flock: flock.as_ref().map(|f| (f, threads_size)),
        peers: &peer_profiles,
        peer_sizes: &peer_sizes,
        warmup,
        ticks,
        peer_ticks,
        rounds,
    };

    let machine_before = load_average();
    let total = rounds * plan.configurations() + 2 * quality_runs.len() + textbook_sizes.len();
    let mut progress = Progress {
        done: 0,
        total,
        started: Instant::now(),
    };
    let threads = rayon::current_num_threads();
    eprintln!(
        "sweep: {} configurations, {warmup} warm-up + {ticks} timed ticks each, \
         {rounds} round{}, {threads} threads, load average {machine_before}",
        total,
        plural_s(rounds)
    );

    // Steps 1-3, every configuration once a round; of each, the report takes the
    // round with the median total.
    let measured = (0..rounds)
        .map(|round| plan.round(round, &mut progress))
        .collect::<Result<Vec<Round>, Failure>>()?;
    let pick = |of: &dyn Fn(&Round) -> Measured| median_round(measured.iter().map(of).collect());
    let series: Vec<Series> = series_of
        .iter()
        .enumerate()
        .map(|(k, (label, ..))| Series {
            label: label.clone(),
            rows: (0..sizes.len())
                .map(|i| pick(&|r: &Round| r.series[k][i]))
                .collect(),
        })
        .collect();
    let flock_threads: &[(&str, IndexKind)] = if flock.is_some() { &FLOCK_THREADS } else { &[] };
    let thread_runs: Vec<ThreadRun> = flock_threads
        .iter()
        .enumerate()
        .map(|(k, &(label, _))| {
            let one = pick(&|r: &Round| r.threads[k].0);
            let two = pick(&|r: &Round| r.threads[k].1);
            ThreadRun {
                label: label.to_string(),
                agents: one.agents,
                one: one.total,
                two: two.total,
            }
        })
        .collect();
    let mut peers = Vec::new();
    let peer_runs = peer_profiles
        .iter()
        .flat_map(|&(profile, index, ..)| peer_sizes.iter().map(move |_| (profile, index)));
    for (k, (profile, index)) in peer_runs.enumerate() {
        let pair = [
            pick(&|r: &Round| r.peers[k].0),
            pick(&|r: &Round| r.peers[k].1),
        ];
        for (threads, m) in [1, 2].into_iter().zip(pair) {
            peers.push(PeerRun {
                profile,
                index,
                agents: m.agents,
                threads,
                total: m.total,
            });
        }
    }

    // 4. Crowd quality, avoidance on and off.
    let mut quality = Vec::new();
    for &(name, ticks) in quality_runs {
        for avoidance in [true, false] {
            let started = Instant::now();
            let run = quality_run(name, ticks, avoidance)?;
            let per_tick = started.elapsed().as_nanos() as f64 / run.ticks.max(1) as f64;
            let onoff = if avoidance { "on" } else { "off" };
            progress.report(&format!("quality: {name}, avoidance {onoff}"), per_tick);
            quality.push(run);
        }
    }

    // 5. The textbook O(n²) loop.
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
        rounds,
        peer_ticks,
        quick,
        series,
        threads: thread_runs,
        peers,
        peers_file,
        quality,
        textbook,
        wall_s: progress.started.elapsed().as_secs_f64(),
    };
    let report = render_report(&results, &plot, &out);
    let svg = render_svg(&results);
    write(&out, &report, "report")?;
    write(&plot, &svg, "plot")?;
    write(
        &budget_plot,
        &render_budget_svg(&results),
        "frame-budget plot",
    )?;
    let at = phases_size(&results);
    write(
        &phases_plot,
        &render_phases_svg(&results, at),
        "per-phase plot",
    )?;
    eprintln!(
        "sweep: wrote {}, {}, {} and {} in {:.0} s (load average now {})",
        out.display(),
        plot.display(),
        budget_plot.display(),
        phases_plot.display(),
        results.wall_s,
        results.machine.load_after
    );
    Ok(())
}

/// The flock's thread-scaling runs: label and index.
const FLOCK_THREADS: [(&str, IndexKind); 2] = [
    ("flock", IndexKind::KdTree),
    ("flock (grid)", IndexKind::Grid),
];

/// What steps 1-3 of the sweep time.
struct Plan<'a> {
    /// Each series: its label, profile and index.
    series: &'a [(String, &'a Profile, IndexKind)],
    sizes: &'a [usize],
    /// The flock and the size of its runs on 1 and 2 threads, if it is swept.
    flock: Option<(&'a Profile, usize)>,
    /// throng's configurations of the peers' benchmark ([`PEER_CONFIGS`], loaded).
    peers: &'a [(&'static str, IndexKind, &'static str, Profile)],
    peer_sizes: &'a [usize],
    warmup: u64,
    ticks: u64,
    peer_ticks: u64,
    rounds: usize,
}

/// One round of steps 1-3, in the plan's order: per series and size, the flock's
/// thread runs (1 and 2 threads), and per peer configuration and size (1 and 2).
struct Round {
    series: Vec<Vec<Measured>>,
    threads: Vec<(Measured, Measured)>,
    peers: Vec<(Measured, Measured)>,
}

impl Plan<'_> {
    /// Configurations timed in a round, as the progress lines count them.
    fn configurations(&self) -> usize {
        self.series.len() * self.sizes.len()
            + if self.flock.is_some() {
                2 * FLOCK_THREADS.len()
            } else {
                0
            }
            + 2 * self.peers.len() * self.peer_sizes.len()
    }

    /// Round `round` (from 0): every configuration once.
    fn round(&self, round: usize, progress: &mut Progress) -> Result<Round, Failure> {
        let of_round = if self.rounds > 1 {
            format!(" (round {} of {})", round + 1, self.rounds)
        } else {
            String::new()
        };
        let (warmup, ticks) = (self.warmup, self.ticks);

        // 1. Profiles × sizes, plus flock on the grid.
        let mut series = Vec::new();
        for (label, p, kind) in self.series {
            let mut rows = Vec::new();
            for &n in self.sizes {
                let m = measure(p, n, *kind, None, warmup, ticks)?;
                progress.report(&format!("{label}, {n} agents{of_round}"), m.total);
                rows.push(m);
            }
            series.push(rows);
        }

        // 2. Threads: flock on 1 and 2 threads.
        let mut threads = Vec::new();
        if let Some((f, n)) = self.flock {
            let (one, two) = (pool(1)?, pool(2)?);
            for (label, kind) in FLOCK_THREADS {
                let (a, b) = measure_pair(f, n, kind, [one.clone(), two.clone()], warmup, ticks)?;
                progress.report(&format!("{label}, {n} agents, 1 thread{of_round}"), a.total);
                progress.report(
                    &format!("{label}, {n} agents, 2 threads{of_round}"),
                    b.total,
                );
                threads.push((a, b));
            }
        }

        // 3. The peers' benchmark.
        let mut peers = Vec::new();
        for (_, index, label, p) in self.peers {
            for &n in self.peer_sizes {
                let pools = [pool(1)?, pool(2)?];
                let (a, b) = measure_pair(p, n, *index, pools, PEER_WARMUP, self.peer_ticks)?;
                for (t, m) in [(1, a), (2, b)] {
                    let s = plural_s(t);
                    progress.report(
                        &format!("peers: {label}, {n} agents, {t} thread{s}{of_round}"),
                        m.total,
                    );
                }
                peers.push((a, b));
            }
        }
        Ok(Round {
            series,
            threads,
            peers,
        })
    }
}

/// The sizes of `wanted` up to `largest`; the largest swept size alone when
/// none is that small.
pub(crate) fn capped(wanted: &[usize], largest: usize) -> Vec<usize> {
    let v: Vec<usize> = wanted.iter().copied().filter(|&n| n <= largest).collect();
    if v.is_empty() {
        vec![largest]
    } else {
        v
    }
}

pub(crate) fn plural_s(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Fail now (status 2) if `path` cannot be written, without truncating it, and
/// without leaving an empty file behind when it did not exist.
pub(crate) fn check_writable(path: &Path, what: &str) -> Result<(), Failure> {
    let existed = path.exists();
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
        })?;
    if !existed {
        std::fs::remove_file(path).ok();
    }
    Ok(())
}

pub(crate) fn write(path: &Path, text: &str, what: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::Runtime(format!("writing the {what} file {}: {e}", path.display())))
}

pub(crate) fn pool(k: usize) -> Result<Arc<ThreadPool>, Failure> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(k)
        .build()
        .map(Arc::new)
        .map_err(|e| Failure::Runtime(format!("cannot start {k} threads: {e}")))
}

/// `profile` at `n` agents with the given index and pool, after `warmup`
/// ticks.
pub(crate) fn prepare(
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
pub(crate) fn step(sc: &mut Scenario) -> Result<TickStats, Failure> {
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
pub(crate) struct Samples([Vec<u64>; 5]);

impl Samples {
    fn push(&mut self, t: &PhaseTimes) {
        // The index phase with the periodic re-sort, as the reports have always shown it.
        for (c, v) in self.0.iter_mut().zip([
            t.resort_ns + t.index_ns,
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
pub(crate) fn measure(
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
pub(crate) fn measure_pair(
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

/// Of one configuration's measurements, one a round, the one with the median total
/// (the lower middle of an even count): a whole round's phases, not medians of
/// phases taken from different rounds.
pub(crate) fn median_round(mut rounds: Vec<Measured>) -> Measured {
    rounds.sort_by(|a, b| a.total.total_cmp(&b.total));
    let middle = rounds.len().saturating_sub(1) / 2;
    rounds.get(middle).copied().unwrap_or_default()
}

/// Median (mean of the middle two for an even count); 0 for none.
pub(crate) fn median(mut v: Vec<u64>) -> f64 {
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
pub(crate) struct TextbookAgent {
    pub(crate) pos: Vec2,
    pub(crate) vel: Vec2,
    pub(crate) goal: Vec2,
}

/// The `circle` ring at `n` agents, run by the textbook loop: every agent
/// tests every other for separation (radius 4, the `circle` profile's), seeks
/// its antipode (max speed 2, max force 4, dt 0.25), one thread. One warm-up
/// tick, then the median of 3 to 50 timed ones (fewer for larger crowds).
pub(crate) fn textbook_median_ns(n: usize) -> f64 {
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

pub(crate) fn textbook_tick(agents: &mut [TextbookAgent]) {
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
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// The first "model name" of `/proc/cpuinfo`, or "unknown".
pub(crate) fn cpu_model() -> String {
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
pub(crate) fn utc_now() -> String {
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
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
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
