//! The sweep's markdown report: the machine, per-phase medians, thread scaling, the
//! peers' figures beside throng's, which index to pick, and the speed targets.

use std::fmt::Write as _;
use std::path::Path;

use throng::spatial::IndexKind;

use crate::peers::render_peers;
use crate::quality::render_quality;
use crate::run::{plural_s, Results, THREADS_SIZE};

/// Milliseconds from nanoseconds, with precision to suit the size.
pub(crate) fn fmt_ms(ns: f64) -> String {
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
pub(crate) fn fmt_agents(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(100_000) {
        let m = n as f64 / 1e6;
        format!("{}M", trim_float(m))
    } else if n >= 1_000 && n.is_multiple_of(100) {
        format!("{}k", trim_float(n as f64 / 1e3))
    } else {
        n.to_string()
    }
}

pub(crate) fn trim_float(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// One row of the targets table.
pub(crate) struct Target {
    pub(crate) what: String,
    pub(crate) target: String,
    pub(crate) measured: Option<(String, f64)>,
    /// `measured / target`, and whether the target is met.
    pub(crate) verdict: Option<(f64, bool)>,
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

pub(crate) fn targets(r: &Results) -> Vec<Target> {
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
            .find(|p| {
                p.profile == "circle"
                    && p.index == IndexKind::KdTree
                    && p.agents == 10_000
                    && p.threads == k
            })
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
    out.extend(avoidance_targets(r));
    out
}

/// The targets of collision avoidance on the disk Circle: this sweep's time at 100k,
/// and the ratios against the peers measured side by side in the peers file.
fn avoidance_targets(r: &Results) -> Vec<Target> {
    let disk_grid_100k = r
        .peers
        .iter()
        .find(|p| {
            p.profile == "circle_disk_orca"
                && p.index == IndexKind::Grid
                && p.agents == 100_000
                && p.threads == 2
        })
        .map(|p| p.total / 1e6);
    let file = r.peers_file.as_ref().map(|(p, _)| p);
    let window = "disk, steps 11-110";
    let vs_rvo2 = file.and_then(|p| p.ratio(window, "RVO2", "throng (grid)", 100_000, 2));
    // The least of throng's leads over dodgy_2d, over every scenario, size and
    // thread count of the file.
    let vs_dodgy = file.and_then(|p| p.least_ratio("dodgy_2d", "throng (grid)"));
    vec![
        Target::at_most(
            "circle_disk_orca (ORCA, grid), 100k agents, 2 threads (ms/step)".into(),
            20.0,
            " ms",
            disk_grid_100k,
        ),
        Target::at_least(
            format!("ORCA, {window}, 100k agents, 2 threads: times faster than RVO2 in one run (peers file)"),
            4.0,
            "×",
            vs_rvo2,
        ),
        Target::at_least(
            "ORCA: times faster than dodgy_2d in one run, the least over every size, thread count and window of the peers file".into(),
            1.0,
            "×",
            vs_dodgy,
        ),
    ]
}

pub(crate) fn render_report(r: &Results, plot: &Path, out: &Path) -> String {
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
        "Written by `cargo bench --bench sweep{}` on {}. Medians of per-tick wall \
         times; ms per tick unless stated.\n",
        if r.quick { " -- --quick" } else { "" },
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
        "| ticks per configuration | {} warm-up + {} timed, in {} round{} (the round with the median total reported) |",
        r.warmup,
        r.ticks,
        r.rounds,
        crate::run::plural_s(r.rounds)
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

    let (budget, phases) = crate::plot::sibling_plots(plot);
    let _ = writeln!(
        s,
        "## Frame budget\n\nWhat a frame can afford: milliseconds per tick against \
         agents, with the 60 and 30 frames-a-second budgets (16.7 and 33.3 ms) across; \
         a profile's crowd fits a frame up to where its line crosses them (the tick \
         alone, on {} threads: leave room for the rest of the game). Then where a tick \
         of {} agents goes, phase by phase.\n\n![ms per tick against agents, with \
         frame budgets]({})\n\n![each profile's tick at {} agents split by \
         phase]({})\n",
        r.machine.threads,
        fmt_agents(crate::plot::phases_size(r)),
        relative_link(&budget, out),
        fmt_agents(crate::plot::phases_size(r)),
        relative_link(&phases, out),
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

    render_peers(&mut s, r, out);
    render_quality(&mut s, &r.quality);
    render_index_choice(&mut s, r);
    render_targets(&mut s, r);

    let _ = writeln!(s, "## What games do to a crowd\n");
    let _ = writeln!(
        s,
        "This sweep times crowds laid out as their profiles say. What games do to them \
         (despawning and spawning a share of the crowd every tick, agents parked far \
         away, a crowd spawned on one point) is timed against the plain crowd in the \
         same run by `cargo bench --bench throng -- patterns/`; its figures, and what \
         a crowd packed denser than bodies can stand costs, are in \
         [docs/optimisations.md]({}) (\"Game patterns\") and the README's limits.\n",
        relative_link(Path::new("docs/optimisations.md"), out)
    );

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

pub(crate) fn render_index_choice(s: &mut String, r: &Results) {
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

pub(crate) fn render_targets(s: &mut String, r: &Results) {
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
pub(crate) fn relative_link(target: &Path, from: &Path) -> String {
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
