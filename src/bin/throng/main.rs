//! `throng`: run scenario profiles and report how fast each phase of the tick
//! is and what the crowd did.
//!
//! ```text
//! throng                      run the default profile
//! throng run [PROFILE] [--agents N] [--ticks T] [--warmup W] [--threads K]
//!            [--seed S] [--index kdtree|grid] [--avoidance on|off]
//!            [--think-every K] [--csv FILE]
//!            [--every K] [--png FILE] [--debug-agent ID] [--animate FILE]
//!            [--fps N] [--size WxH] [--json] [--quiet] [--wait-for-profiler]
//! throng check PROFILE        validate a profile without running it
//! throng list                 list the bundled profiles
//! throng quality FILE         count crowd quality in a position file
//! ```
//!
//! Exit status: 0 on success, 2 for an invalid profile or command line (or an
//! output file that cannot be written), 1 when writing output fails mid-run.

mod animate;
mod csv;
mod draw;
mod png;
mod quality;
mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use throng::scenario::{self, Overrides, Profile, ProfileError, Scenario};
use throng::spatial::IndexKind;

/// Runs throng crowd scenarios and reports per-phase timings.
#[derive(Parser)]
#[command(
    name = "throng",
    version,
    about,
    after_help = "Exit status: 0 when the run or check succeeds; 1 when it fails while running \
                  (writing an output file, starting threads); 2 for bad input (arguments, a \
                  profile, an output path that cannot be created, a crowd too big for the memory \
                  available)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a profile and print per-phase timings and quality figures.
    Run(RunArgs),
    /// Validate a profile without running it.
    Check {
        /// A profile file, or the name of a bundled profile.
        profile: String,
    },
    /// List the bundled profiles.
    List,
    /// Count crowd quality in a position file from any system (throng's `--csv`, or
    /// another's): overlaps, arrival, time to goal, path length, stuck agents.
    Quality(QualityArgs),
}

#[derive(Args, Default)]
struct RunArgs {
    /// A profile file, or the name of a bundled profile (see `throng list`);
    /// default: the built-in default profile.
    profile: Option<String>,
    /// Total agents; every group scales in proportion and the scene grows to
    /// keep the density.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    agents: Option<u64>,
    /// Timed ticks (after the profile's warm-up ticks).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=u32::MAX as u64))]
    ticks: Option<u64>,
    /// Untimed warm-up ticks run first, replacing the profile's.
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=u32::MAX as u64))]
    warmup: Option<u64>,
    /// Worker threads; default: one per core.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// World seed, replacing the profile's.
    #[arg(long)]
    seed: Option<u64>,
    /// Neighbour index, replacing the profile's: `kdtree` or `grid`.
    #[arg(long, value_name = "KIND", value_parser = parse_index)]
    index: Option<IndexKind>,
    /// Collision avoidance (ORCA) for every group: `on` (the profile's parameters,
    /// or the defaults where it has none) or `off`.
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    avoidance: Option<bool>,
    /// Level of detail for every group: steer only every K ticks, in rotation,
    /// integrating the last output in between (1 to 64), replacing the profile's
    /// `think_every`.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=i64::from(throng::group::MAX_THINK_EVERY)))]
    think_every: Option<u32>,
    /// Write `tick,id,group,x,y,vx,vy,heading` rows to this file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write CSV rows and animation frames every this many ticks (tick 0, the
    /// starting state, and the last tick are always written); with --csv or
    /// --animate. [default: 10 for --csv; for --animate, the fewest ticks that
    /// keep the animation within 300 frames]
    #[arg(long, value_name = "K", value_parser = parse_every)]
    every: Option<u64>,
    /// Draw the scene and every agent's trail into this PNG file.
    #[arg(long, value_name = "FILE")]
    png: Option<PathBuf>,
    /// Draw this agent's debug geometry at the end of the run into the --png picture
    /// (its feelers, wander circle, neighbours, path carrot, leader's points...):
    /// the agent's `id` as the CSV writes it (its slot while no slot is reused).
    #[arg(long, value_name = "ID")]
    debug_agent: Option<u64>,
    /// Draw the goal field of this name (a `[[fields]]` table) under the crowd in the
    /// --png picture and the --animate animation (as it was at the start): bands of
    /// travel distance, the walls' grown clearance shaded, and arrows of its direction.
    #[arg(long, value_name = "NAME")]
    field: Option<String>,
    /// Write an animation of the run to this file: an animated GIF (FILE.gif) or
    /// animated PNG (FILE.png, FILE.apng), one frame every --every ticks.
    #[arg(long, value_name = "FILE")]
    animate: Option<PathBuf>,
    /// Frames per second of the --animate animation. [default: the run's own
    /// pace (one frame every --every ticks of the profile's dt), kept within
    /// 10 to 50]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=50))]
    fps: Option<u32>,
    /// Size of the picture and of the animation in pixels; with --png or
    /// --animate. [default: 1024x1024 for --png, 640x640 for --animate]
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    size: Option<(u32, u32)>,
    /// Print the report as one JSON object on stdout instead of tables.
    #[arg(long)]
    json: bool,
    /// Wait for a Tracy profiler to connect before the first tick (builds with the
    /// `tracy` feature), so that the profile holds the whole run.
    #[arg(long)]
    wait_for_profiler: bool,
    /// Print nothing but errors: no progress bar, no report, no "wrote FILE" lines
    /// (files are still written; the exit status tells how it went).
    #[arg(long, short = 'q', conflicts_with = "json")]
    quiet: bool,
}

#[derive(Args)]
struct QualityArgs {
    /// A CSV file with a header naming at least the columns `tick`, `id`, `x`, `y`;
    /// tick 0 is the start.
    csv: PathBuf,
    /// Seconds per tick.
    #[arg(long, default_value_t = 0.25)]
    dt: f32,
    /// Every agent's body radius.
    #[arg(long, default_value_t = 1.5)]
    radius: f32,
    /// Every agent's maximum speed (for "stuck").
    #[arg(long, default_value_t = 2.0)]
    max_speed: f32,
    /// Each agent's goal: `antipode` (its start mirrored through the origin, as in
    /// the Circle benchmark) or `none`.
    #[arg(long, value_name = "antipode|none", default_value = "antipode", value_parser = parse_goal, action = clap::ArgAction::Set)]
    goal: bool,
    /// Count only the ticks up to this one.
    #[arg(long, value_name = "TICK")]
    until: Option<u64>,
    /// Ticks at which to report the fraction of agents within 1 unit of their goal.
    #[arg(long, value_name = "T,T,...", value_delimiter = ',')]
    at: Vec<u64>,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    json: bool,
}

/// `antipode` or `none`.
fn parse_goal(s: &str) -> Result<bool, String> {
    match s {
        "antipode" => Ok(true),
        "none" => Ok(false),
        _ => Err(format!("expected `antipode` or `none`, got `{s}`")),
    }
}

/// `kdtree` or `grid`, as in a profile's `[world]`.
fn parse_index(s: &str) -> Result<IndexKind, String> {
    match s {
        "kdtree" => Ok(IndexKind::KdTree),
        "grid" => Ok(IndexKind::Grid),
        _ => Err(format!("expected `kdtree` or `grid`, got `{s}`")),
    }
}

/// `on` or `off`.
fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("expected `on` or `off`, got `{s}`")),
    }
}

/// `WxH`, each between 16 and 16384.
fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 800x600, got `{s}`"))?;
    let parse = |v: &str| -> Result<u32, String> {
        let n: u32 = v
            .trim()
            .parse()
            .map_err(|_| format!("`{v}` is not a whole number of pixels"))?;
        if (16..=16_384).contains(&n) {
            Ok(n)
        } else {
            Err(format!("sizes run from 16 to 16384 pixels, got {n}"))
        }
    };
    Ok((parse(w)?, parse(h)?))
}

/// Why the command failed, and with which exit status.
enum Failure {
    /// Bad input: a profile, a command-line value, an output file that cannot
    /// be created. Status 2.
    Input(String),
    /// Something failed while running or writing. Status 1.
    Runtime(String),
}

impl From<ProfileError> for Failure {
    fn from(e: ProfileError) -> Self {
        Failure::Input(e.render())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => run(RunArgs::default()),
        Some(Command::Run(args)) => run(args),
        Some(Command::Check { profile }) => check(&profile),
        Some(Command::List) => list(),
        Some(Command::Quality(args)) => quality_of_file(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("{msg}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
    }
}

/// A profile by file path, or else by bundled name.
fn resolve(name: Option<&str>) -> Result<Profile, Failure> {
    let name = name.unwrap_or(scenario::DEFAULT_PROFILE);
    let path = Path::new(name);
    if path.is_file() {
        return Ok(scenario::load_profile(path)?);
    }
    if let Some(b) = scenario::bundled(name) {
        return Ok(scenario::load_bundled(b)?);
    }
    // `corridor` for `./corridor.toml`.
    let with_extension = path.with_extension("toml");
    if path.extension().is_none() && with_extension.is_file() {
        return Ok(scenario::load_profile(&with_extension)?);
    }
    if path.exists() {
        return Ok(scenario::load_profile(path)?);
    }
    let names: Vec<&str> = scenario::BUNDLED.iter().map(|b| b.name).collect();
    Err(Failure::Input(format!(
        "error: `{name}` is neither a profile file nor a bundled profile (bundled: {})",
        names.join(", ")
    )))
}

fn check(name: &str) -> Result<(), Failure> {
    let p = resolve(Some(name))?;
    let groups: Vec<String> = p
        .groups
        .iter()
        .map(|g| format!("{} {}", g.count, g.name))
        .collect();
    let warmup = if p.world.warmup > 0 {
        format!(" after {} warm-up", p.world.warmup)
    } else {
        String::new()
    };
    println!(
        "ok: {} — {} agents ({}), {}{warmup}, {}, {}, {}, {}",
        p.name,
        p.total_agents(),
        groups.join(", "),
        plural(usize::try_from(p.world.ticks).unwrap_or(usize::MAX), "tick"),
        plural(p.layout.walls.len(), "wall"),
        plural(p.layout.obstacles.len(), "obstacle"),
        plural(p.layout.paths.len(), "path"),
        plural(p.squads.len(), "squad"),
    );
    Ok(())
}

/// `--every`: a whole number of ticks, at least 1.
fn parse_every(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1 (a row every K ticks)".to_string()),
        Ok(k) => Ok(k),
        Err(_) => Err(format!(
            "expected a whole number of ticks, at least 1 (got `{s}`)"
        )),
    }
}

/// How an animation is written.
struct AnimationPlan {
    format: animate::Format,
    size: (u32, u32),
    /// Ticks between frames.
    every: u64,
    frames: u64,
    /// Frame time in hundredths of a second.
    delay: u16,
}

/// The animation `args` ask for, over a run of `total` ticks of `dt` seconds;
/// refused when its file would be absurdly large.
fn plan_animation(
    args: &RunArgs,
    format: animate::Format,
    total: u64,
    dt: f32,
) -> Result<AnimationPlan, Failure> {
    const MOST_DEFAULT_FRAMES: u64 = 300;
    let size = args.size.unwrap_or((640, 640));
    let every = args
        .every
        .unwrap_or_else(|| total.div_ceil(MOST_DEFAULT_FRAMES - 1).max(1));
    let frames = animate::frame_count(total, every);
    let fps = match args.fps {
        Some(f) => f64::from(f),
        None => (1.0 / (every as f64 * f64::from(dt))).clamp(10.0, 50.0),
    };
    // GIF players show delays under 2/100 s as 1/10 s.
    let delay = (100.0 / fps).round().clamp(2.0, 100.0) as u16;
    let pixels = u64::from(size.0) * u64::from(size.1);
    let estimate = frames.saturating_mul(format.bytes_per_frame(pixels));
    if estimate > animate::MAX_ESTIMATED_BYTES {
        return Err(Failure::Input(format!(
            "error: --animate: {frames} frames of {}x{} would make a file of roughly {:.1} GB \
             (the limit is {:.1} GB): draw fewer frames (a larger --every, fewer --ticks) or \
             smaller ones (--size)",
            size.0,
            size.1,
            estimate as f64 / 1e9,
            animate::MAX_ESTIMATED_BYTES as f64 / 1e9,
        )));
    }
    Ok(AnimationPlan {
        format,
        size,
        every,
        frames,
        delay,
    })
}

/// "600 ticks", or "300 warm-up + 600 ticks".
fn ticks_phrase(warmup: u64, ticks: u64) -> String {
    let timed = plural(usize::try_from(ticks).unwrap_or(usize::MAX), "tick");
    if warmup > 0 {
        format!("{warmup} warm-up + {timed}")
    } else {
        timed
    }
}

/// Seconds with one decimal, or none past 100.
fn seconds(s: f64) -> String {
    if s >= 100.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn list() -> Result<(), Failure> {
    let width = scenario::BUNDLED
        .iter()
        .map(|b| b.name.len())
        .max()
        .unwrap_or(0);
    for b in scenario::BUNDLED {
        let p = scenario::load_bundled(b)?;
        let default = if b.name == scenario::DEFAULT_PROFILE {
            " (default)"
        } else {
            ""
        };
        println!(
            "{:width$}  {:>6} agents  {}{default}",
            b.name,
            p.total_agents(),
            p.description
        );
    }
    Ok(())
}

/// Create an output file now, so a path that cannot be written is reported
/// before the run.
/// Removes the file at its path when dropped, unless the path was taken out first.
struct RemoveOnFailure(Option<PathBuf>);

impl Drop for RemoveOnFailure {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            // Best effort: the run's own error is the one to report.
            let _ = std::fs::remove_file(path);
        }
    }
}

fn create(path: &Path, what: &str) -> Result<std::fs::File, Failure> {
    std::fs::File::create(path).map_err(|e| {
        Failure::Input(format!(
            "error: cannot write the {what} file {}: {e}",
            path.display()
        ))
    })
}

fn run(args: RunArgs) -> Result<(), Failure> {
    // With the `tracy` feature: a profiler client on localhost, sending only
    // once a profiler connects. Without it, nothing.
    if args.wait_for_profiler && !cfg!(feature = "tracy") {
        return Err(Failure::Input(
            "error: --wait-for-profiler needs a build with the Tracy client: \
             cargo run --release --features tracy -- run ..."
                .into(),
        ));
    }
    if throng::trace::start() {
        eprintln!(
            "tracy: client listening on 127.0.0.1:{} (localhost only); connect a Tracy {}.x \
             profiler or tracy-capture",
            throng::trace::TRACY_PORT,
            throng::trace::TRACY_PROTOCOL_VERSION
        );
        if args.wait_for_profiler {
            eprintln!("tracy: waiting for the profiler to connect (Ctrl-C to stop)");
            while !throng::trace::is_connected() {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
    }
    let base = resolve(args.profile.as_deref())?;
    if base.total_agents() == 0 {
        return Err(Failure::Input(format!(
            "error: profile `{}` spawns no agents (a host spawns them): add a [[groups]] \
             table with count >= 1 to run it",
            base.name
        )));
    }
    // Options that only shape an output file the run does not write are refused
    // rather than ignored.
    if args.every.is_some() && args.csv.is_none() && args.animate.is_none() {
        return Err(Failure::Input(
            "error: --every sets how often --csv writes rows and --animate draws frames; \
             give --csv FILE or --animate FILE too"
                .into(),
        ));
    }
    if args.size.is_some() && args.png.is_none() && args.animate.is_none() {
        return Err(Failure::Input(
            "error: --size sets the size of the --png picture and the --animate animation; \
             give --png FILE or --animate FILE too"
                .into(),
        ));
    }
    if args.fps.is_some() && args.animate.is_none() {
        return Err(Failure::Input(
            "error: --fps sets the frame rate of the --animate animation; give --animate FILE too"
                .into(),
        ));
    }
    if args.debug_agent.is_some() && args.png.is_none() {
        return Err(Failure::Input(
            "error: --debug-agent draws into the --png picture; give --png FILE too".into(),
        ));
    }
    let every = args.every.unwrap_or(10);
    let size = args.size.unwrap_or((1024, 1024));
    let anim_format = match &args.animate {
        Some(path) => Some(
            animate::Format::of(path)
                .map_err(|e| Failure::Input(format!("error: --animate: {e}")))?,
        ),
        None => None,
    };
    let agents = match args.agents {
        Some(n) => {
            Some(usize::try_from(n).map_err(|_| Failure::Input("error: too many agents".into()))?)
        }
        None => None,
    };
    let mut profile = base.with_overrides(&Overrides {
        agents,
        seed: args.seed,
        ticks: args.ticks,
    });
    if let Some(index) = args.index {
        profile.world.index = index;
    }
    if let Some(w) = args.warmup {
        profile.world.warmup = w;
    }
    if let Some(on) = args.avoidance {
        for g in &mut profile.groups {
            g.config.avoidance = if on {
                Some(g.config.avoidance.unwrap_or_default())
            } else {
                None
            };
        }
    }
    if let Some(k) = args.think_every {
        for g in &mut profile.groups {
            g.config.think_every = k;
        }
    }
    let field = match &args.field {
        None => None,
        Some(_) if args.png.is_none() && args.animate.is_none() => {
            return Err(Failure::Input(
                "error: --field draws into the --png picture or the --animate animation; give one of them too".into(),
            ))
        }
        Some(name) => {
            let fields = &profile.layout.fields;
            match fields.iter().position(|f| &f.name == name) {
                Some(i) => Some(throng::FieldId::from_index(i)),
                None => {
                    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                    return Err(Failure::Input(format!(
                        "error: --field {name}: the profile has no such field (its fields: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    )));
                }
            }
        }
    };
    let total = profile.world.warmup + profile.world.ticks;
    let anim = match anim_format {
        Some(format) => Some(plan_animation(&args, format, total, profile.world.dt)?),
        None => None,
    };
    let mut csv = match &args.csv {
        Some(path) => Some(csv::CsvWriter::new(create(path, "CSV")?)),
        None => None,
    };
    let png_file = match &args.png {
        Some(path) => Some(create(path, "PNG")?),
        None => None,
    };
    let anim_file = match &args.animate {
        Some(path) => Some(create(path, "animation")?),
        None => None,
    };
    // The PNG is written at the end: if the run fails before, remove the empty file
    // created above (to fail early on an unwritable path) rather than leave it;
    // the same for a half-written animation.
    let mut png_guard = RemoveOnFailure(args.png.clone());
    let mut anim_guard = RemoveOnFailure(args.animate.clone());

    let mut scenario = Scenario::build(&profile)
        .map_err(|e| Failure::Input(format!("error: cannot build the world: {e}")))?;
    let threads = match args.threads {
        Some(k) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(k as usize)
                .build()
                .map_err(|e| Failure::Runtime(format!("cannot start {k} threads: {e}")))?;
            scenario.world_mut().set_thread_pool(Some(Arc::new(pool)));
            k as usize
        }
        None => rayon::current_num_threads(),
    };
    let warmup = profile.world.warmup;
    let ticks = profile.world.ticks;
    let trail_every = png::trail_every(total, scenario.world().len());
    let mut picture = png_file.as_ref().map(|_| png::Picture::new(size));

    let mut animation = match (anim, anim_file) {
        (Some(plan), Some(file)) => Some((
            animate::Animation::new(
                file,
                plan.format,
                plan.size,
                &scenario,
                field,
                plan.frames,
                plan.delay,
            )
            .map_err(|e| Failure::Runtime(format!("writing the animation: {e}")))?,
            plan,
        )),
        _ => None,
    };
    let anim_err = |e: std::io::Error| Failure::Runtime(format!("writing the animation: {e}"));
    let agents = scenario.world().len();
    let frame_title = |t: u64| {
        let stage = if t <= warmup && warmup > 0 {
            " (warm-up)"
        } else {
            ""
        };
        format!(
            "{} - {agents} agents - tick {t} of {total}{stage} - {} s",
            profile.name,
            seconds(t as f64 * f64::from(profile.world.dt)),
        )
    };

    let progress = match args.quiet {
        true => ProgressBar::hidden(),
        false => progress_bar(total, agents, &profile.name, animation.is_some()),
    };
    let mut stats = report::Collector::new(ticks as usize);
    let mut quality = quality::Sampler::new(&scenario);
    let started = Instant::now();

    let write_err = |e: std::io::Error| Failure::Runtime(format!("writing the CSV file: {e}"));
    if let Some(w) = csv.as_mut() {
        w.write_tick(&scenario).map_err(write_err)?;
    }
    if let Some(p) = picture.as_mut() {
        p.sample(&scenario);
    }
    if let Some((a, _)) = animation.as_mut() {
        a.frame(&scenario, &frame_title(0)).map_err(anim_err)?;
    }
    quality.sample(0, &scenario);
    for t in 1..=total {
        let tick = scenario
            .step()
            .map_err(|e| Failure::Runtime(format!("tick {t}: {e}")))?;
        if t > warmup {
            stats.push(&tick);
        }
        if t % quality::EVERY == 0 || t == total {
            quality.sample(t, &scenario);
        }
        if let Some(w) = csv.as_mut() {
            // Every K-th tick, and the final state whatever K.
            if t % every == 0 || t == total {
                w.write_tick(&scenario).map_err(write_err)?;
            }
        }
        if let Some(p) = picture.as_mut() {
            if t % trail_every == 0 || t == total {
                p.sample(&scenario);
            }
        }
        if let Some((a, plan)) = animation.as_mut() {
            if t % plan.every == 0 || t == total {
                a.frame(&scenario, &frame_title(t)).map_err(anim_err)?;
            }
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    let wall = started.elapsed();
    if let Some(w) = csv.take() {
        w.finish().map_err(write_err)?;
        if let (Some(path), false) = (&args.csv, args.quiet) {
            eprintln!("wrote {}", path.display());
        }
    }
    if let (Some(p), Some(file)) = (picture, png_file) {
        let debug = match args.debug_agent {
            Some(key) => Some(
                scenario
                    .world()
                    .ids()
                    .iter()
                    .copied()
                    .find(|id| id.key() == key)
                    .ok_or_else(|| {
                        Failure::Input(format!(
                            "error: --debug-agent {key}: no agent has that id at the end of the run \
                             (ids are those of the CSV's `id` column)"
                        ))
                    })?,
            ),
            None => None,
        };
        let title = format!(
            "{} - {} agents - {} ({} s)",
            profile.name,
            scenario.world().len(),
            ticks_phrase(warmup, ticks),
            seconds(total as f64 * f64::from(profile.world.dt)),
        );
        p.finish(&scenario, debug, field, &title, file)
            .map_err(|e| Failure::Runtime(format!("writing the PNG file: {e}")))?;
        if let (Some(path), false) = (&args.png, args.quiet) {
            eprintln!("wrote {}", path.display());
        }
    }
    png_guard.0 = None;
    if let Some((a, _)) = animation.take() {
        let frames = a.finish().map_err(anim_err)?;
        if let (Some(path), false) = (&args.animate, args.quiet) {
            let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
            eprintln!(
                "wrote {} ({frames} frames, {:.1} MB)",
                path.display(),
                bytes as f64 / 1e6
            );
        }
    }
    anim_guard.0 = None;

    let nan = stats.quarantined() + quality::non_finite_agents(scenario.world());
    let report = report::Report::new(
        &scenario,
        &stats,
        report::Quality::new(
            &quality.summary(),
            (quality::EVERY, total),
            stats.crossings_prevented(),
            nan,
        ),
        threads,
        wall.as_secs_f64(),
    );
    if args.json {
        println!("{}", report.to_json());
    } else if !args.quiet {
        print!("{}", report.to_table());
    }
    if nan > 0 {
        return Err(Failure::Runtime(format!(
            "{nan} agents had non-finite state"
        )));
    }
    Ok(())
}

/// `throng quality FILE`: the quality counter over a position file.
fn quality_of_file(args: &QualityArgs) -> Result<(), Failure> {
    let settings = throng::quality::QualitySettings {
        checkpoints: args.at.iter().map(|&t| t as f32 * args.dt).collect(),
        ..Default::default()
    };
    let file = std::fs::File::open(&args.csv)
        .map_err(|e| Failure::Input(format!("error: cannot read {}: {e}", args.csv.display())))?;
    let body = quality::Body {
        radius: args.radius,
        max_speed: args.max_speed,
        antipode: args.goal,
    };
    let summary = quality::count_file(file, settings, args.dt, body, args.until)
        .map_err(|e| Failure::Input(format!("error: {}: {e}", args.csv.display())))?;
    if args.json {
        let text =
            serde_json::to_string_pretty(&summary).map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{text}");
    } else {
        print!("{}", quality::summary_lines(&summary));
    }
    Ok(())
}

/// A progress bar on stderr for runs long enough to want one (it draws
/// nothing when stderr is not a terminal).
fn progress_bar(ticks: u64, agents: usize, name: &str, animating: bool) -> ProgressBar {
    if (ticks as f64) * (agents as f64) < 2e6 && !animating {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(ticks), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ticks, {elapsed} (eta {eta})")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("{name}, {agents} agents"));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfinished_outputs_are_removed() {
        let dir = std::env::temp_dir().join(format!("throng-guard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (failed, done) = (dir.join("failed.png"), dir.join("done.png"));
        for path in [&failed, &done] {
            std::fs::write(path, b"").unwrap();
        }
        // A run that fails drops its guard with the path still in it.
        drop(RemoveOnFailure(Some(failed.clone())));
        // A run that finishes takes the path out first.
        let mut guard = RemoveOnFailure(Some(done.clone()));
        guard.0 = None;
        drop(guard);
        assert!(!failed.exists());
        assert!(done.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
