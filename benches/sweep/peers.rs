//! Other systems beside throng: figures measured side by side in one interleaved run
//! on the Circle benchmark, kept in a data file with their provenance
//! (`docs/peers.jsonl`; the sweep's `--peers FILE` reads another), rendered with the
//! ratios of that same run.
//!
//! The file holds JSON lines: `{"meta": "..."}` lines say how the figures were
//! measured (printed as they are), the others are one timed run each,
//! `{"system", "scenario", "agents", "threads", "median_ms", ...}` (the medians of
//! several rounds are taken per configuration), or one row of quality figures,
//! `{"quality": [["system", "RVO2"], ["overlaps", 0.4], ...]}` (columns in the
//! first row's order; an object is read too, its keys sorted), with
//! `{"quality_meta": "..."}` lines saying how they were counted.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::args::Failure;
use crate::report::{fmt_agents, fmt_ms};
use crate::run::{Results, PEER_CONFIGS, PEER_SIZES, PEER_TICKS, PEER_WARMUP};

/// The default data file, in the repository.
pub(crate) fn default_file() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/peers.jsonl"))
}

/// The figures of a peers file.
#[derive(Default)]
pub(crate) struct Peers {
    /// How they were measured.
    pub(crate) meta: Vec<String>,
    /// (scenario, system, agents, threads) → per-round medians (ms).
    pub(crate) times: BTreeMap<(String, String, usize, usize), Vec<f64>>,
    /// Quality figures: rows of (column, value).
    pub(crate) quality: Vec<Vec<(String, Value)>>,
    /// How the quality figures were counted.
    pub(crate) quality_meta: Vec<String>,
}

impl Peers {
    /// Read a peers file.
    pub(crate) fn load(path: &Path) -> Result<Self, Failure> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::Input(format!(
                "error: cannot read the peers file {}: {e}",
                path.display()
            ))
        })?;
        let mut peers = Self::default();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let bad =
                |what: &str| Failure::Input(format!("error: {}:{}: {what}", path.display(), i + 1));
            let v: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
            if let Some(m) = v.get("meta").and_then(Value::as_str) {
                peers.meta.push(m.to_string());
            } else if let Some(m) = v.get("quality_meta").and_then(Value::as_str) {
                peers.quality_meta.push(m.to_string());
            } else if let Some(q) = v.get("quality") {
                let row = quality_row(q).ok_or_else(|| {
                    bad("quality figures are an object or a list of [column, value] pairs")
                })?;
                peers.quality.push(row);
            } else {
                let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
                let num = |k: &str| v.get(k).and_then(Value::as_f64);
                let (Some(system), Some(scenario), Some(agents), Some(threads), Some(ms)) = (
                    text("system"),
                    text("scenario"),
                    num("agents"),
                    num("threads"),
                    num("median_ms"),
                ) else {
                    return Err(bad(
                        "a run needs system, scenario, agents, threads, median_ms",
                    ));
                };
                let key = (scenario, system, agents as usize, threads as usize);
                peers.times.entry(key).or_default().push(ms);
            }
        }
        Ok(peers)
    }

    /// `peer`'s median over `system`'s in one configuration: how many times faster
    /// `system` is.
    pub(crate) fn ratio(
        &self,
        scenario: &str,
        peer: &str,
        system: &str,
        agents: usize,
        threads: usize,
    ) -> Option<f64> {
        let a = self.median(scenario, peer, agents, threads)?;
        let b = self.median(scenario, system, agents, threads)?;
        (b > 0.0).then(|| a / b)
    }

    /// The least [`Peers::ratio`] of `peer` over `system` across every configuration
    /// where both ran.
    pub(crate) fn least_ratio(&self, peer: &str, system: &str) -> Option<f64> {
        self.times
            .keys()
            .filter(|k| k.1 == system)
            .filter_map(|(scenario, _, n, k)| self.ratio(scenario, peer, system, *n, *k))
            .min_by(f64::total_cmp)
    }

    /// The median over rounds of one configuration.
    fn median(&self, scenario: &str, system: &str, agents: usize, threads: usize) -> Option<f64> {
        let key = (scenario.to_string(), system.to_string(), agents, threads);
        let mut v = self.times.get(&key)?.clone();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        (n > 0).then(|| {
            if n % 2 == 1 {
                v[n / 2]
            } else {
                (v[n / 2 - 1] + v[n / 2]) / 2.0
            }
        })
    }
}

/// The peers' benchmark: throng's runs of it, then the other systems' figures from
/// the peers file, then the textbook loop.
pub(crate) fn render_peers(s: &mut String, r: &Results, out: &std::path::Path) {
    let _ = writeln!(s, "## The peers' benchmark (Circle)\n");
    let mut cols: Vec<usize> = PEER_SIZES.to_vec();
    for p in &r.peers {
        if !cols.contains(&p.agents) {
            cols.push(p.agents);
        }
    }
    cols.sort_unstable();
    let quick = if r.quick {
        format!(
            " (**--quick: {} timed steps instead of the peers' {PEER_TICKS}**)",
            r.peer_ticks
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "RVO2's Circle benchmark, scaled: agents start on a ring of radius \
         200·sqrt(N/250) or a sunflower disk of about 16 square units per agent and \
         head for the antipodal point; neighbour distance 15, at most 10 neighbours, \
         radius 1.5, max speed 2, dt 0.25, as the peers. {PEER_WARMUP} warm-up steps, \
         then {} timed steps{quick}; ms per step, 1 thread / 2 threads.\n",
        r.peer_ticks
    );
    let _ = writeln!(
        s,
        "throng runs it two ways. `circle` and `circle_disk` steer with forces (arrive \
         at the antipode at speed 2 plus separation), less arithmetic per neighbour \
         but no guarantee against overlaps. `circle_orca` and `circle_disk_orca` avoid \
         collisions with ORCA as RVO2 and dodgy do, with their parameters (time \
         horizons 10) and their preferred velocity (unit speed toward the goal): the \
         same per-agent work.\n"
    );
    let _ = write!(s, "| throng, measured in this sweep |");
    for c in &cols {
        let _ = write!(s, " {} |", fmt_agents(*c));
    }
    let _ = writeln!(s, "\n|---|{}", "---:|".repeat(cols.len()));
    for &(name, index, label) in PEER_CONFIGS {
        let _ = write!(s, "| `{name}` ({label}) |");
        for &c in &cols {
            let get = |k: usize| {
                r.peers
                    .iter()
                    .find(|p| {
                        p.profile == name && p.index == index && p.agents == c && p.threads == k
                    })
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
    let _ = writeln!(s);
    if let Some((peers, file)) = &r.peers_file {
        // Links relative to the report (paths under the working folder, such as
        // the default peers file, first made relative to it).
        let here = std::env::current_dir().unwrap_or_default();
        let link = |p: &str| {
            let p = std::path::Path::new(p);
            crate::report::relative_link(p.strip_prefix(&here).unwrap_or(p), out)
        };
        render_peers_file(s, peers, &link(file), &link("docs/peers.md"));
    }
    if !r.textbook.is_empty() {
        let _ = write!(
            s,
            "The textbook O(n²) loop (every pair tested; separation + seek; array of \
             structs; 1 thread) timed in this sweep on the same ring:"
        );
        for (i, (n, ns)) in r.textbook.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            let _ = write!(s, "{sep}{} ms at {}", fmt_ms(*ns), fmt_agents(*n));
        }
        let _ = writeln!(s, ".\n");
    }
}

/// Milliseconds (given as such) with two or three significant figures.
fn ms(v: f64) -> String {
    if v < 1.0 {
        format!("{v:.3}")
    } else if v < 100.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.0}")
    }
}

/// The side-by-side section: per scenario, each system's medians (1 and 2 threads),
/// then throng's ratios against each peer, from the same run.
pub(crate) fn render_peers_file(s: &mut String, peers: &Peers, file: &str, page: &str) {
    let _ = writeln!(s, "### Beside RVO2 and dodgy, measured in one run\n");
    for m in &peers.meta {
        let _ = writeln!(s, "{m}\n");
    }
    let _ = writeln!(
        s,
        "The figures: `{file}`; how each peer was built and run, the machine, the \
         scenario, the date, and the peers' collision quality: [{page}]({page}).\n"
    );
    let mut scenarios: Vec<&String> = peers.times.keys().map(|k| &k.0).collect();
    scenarios.dedup();
    for scenario in scenarios {
        let keys = || peers.times.keys().filter(|k| &k.0 == scenario);
        let mut systems: Vec<&String> = keys().map(|k| &k.1).collect();
        systems.sort();
        systems.dedup();
        let mut sizes: Vec<usize> = keys().map(|k| k.2).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let _ = writeln!(s, "**{scenario}**, ms per step, 1 thread / 2 threads:\n");
        let _ = write!(s, "| system |");
        for n in &sizes {
            let _ = write!(s, " {} |", fmt_agents(*n));
        }
        let _ = writeln!(s, "\n|---|{}", "---:|".repeat(sizes.len()));
        let cell = |system: &str, n: usize| {
            let one = peers.median(scenario, system, n, 1).map_or("—".into(), ms);
            let two = peers.median(scenario, system, n, 2).map_or("—".into(), ms);
            format!("{one} / {two}")
        };
        for system in &systems {
            let _ = write!(s, "| {system} |");
            for &n in &sizes {
                let _ = write!(s, " {} |", cell(system, n));
            }
            let _ = writeln!(s);
        }
        let throngs = systems.iter().filter(|x| x.starts_with("throng"));
        for t in throngs {
            for peer in systems.iter().filter(|x| !x.starts_with("throng")) {
                let _ = write!(s, "| {t} ÷ {peer} |");
                for &n in &sizes {
                    let ratio = |k| {
                        let a = peers.median(scenario, t, n, k)?;
                        let b = peers.median(scenario, peer, n, k)?;
                        (b > 0.0).then(|| format!("{:.2}", a / b))
                    };
                    let show = |r: Option<String>| r.unwrap_or_else(|| "—".into());
                    let _ = write!(s, " {} / {} |", show(ratio(1)), show(ratio(2)));
                }
                let _ = writeln!(s);
            }
        }
        let _ = writeln!(s);
    }
    if !peers.quality.is_empty() {
        for m in &peers.quality_meta {
            let _ = writeln!(s, "{m}\n");
        }
        render_peer_quality(s, &peers.quality);
    }
}

/// One row of quality figures: `[[column, value], ...]` in order, or an object.
fn quality_row(q: &Value) -> Option<Vec<(String, Value)>> {
    match q {
        Value::Object(m) => Some(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Value::Array(pairs) => pairs
            .iter()
            .map(|p| match p.as_array()?.as_slice() {
                [Value::String(k), v] => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The peers' quality figures, one row per line of the file, the columns of the
/// first.
fn render_peer_quality(s: &mut String, rows: &[Vec<(String, Value)>]) {
    let Some(first) = rows.first() else {
        return;
    };
    let cols: Vec<&str> = first.iter().map(|(k, _)| k.as_str()).collect();
    let _ = write!(s, "|");
    for c in &cols {
        let _ = write!(s, " {c} |");
    }
    let _ = writeln!(s, "\n|{}", "---|".repeat(cols.len()));
    for r in rows {
        let _ = write!(s, "|");
        for c in &cols {
            let v = match r.iter().find(|(k, _)| k == c).map(|(_, v)| v) {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Number(n)) => n.as_f64().map_or(n.to_string(), |f| {
                    format!("{}", (f * 1000.0).round() / 1000.0)
                }),
                Some(other) => other.to_string(),
                None => "—".into(),
            };
            let _ = write!(s, " {v} |");
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s);
}
