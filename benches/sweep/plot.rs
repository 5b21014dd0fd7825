//! The sweep's scaling plot: ns per agent-tick against agents, one line per series
//! (an SVG written by hand: a few dozen elements).

use std::fmt::Write as _;

use crate::report::{fmt_agents, trim_float};
use crate::run::{Measured, Results};

use std::path::{Path, PathBuf};

/// Colours of the plot's lines.
pub(crate) const PALETTE: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// A line plot's page: its size and the margins around the plotting area (the y
/// labels left, the title above, the x labels below, the legend right).
#[derive(Clone, Copy)]
struct Frame {
    w: f64,
    h: f64,
    left: f64,
    top: f64,
    /// The plotting area's width and height.
    pw: f64,
    ph: f64,
}

impl Frame {
    /// The line plots' frame, `h` high.
    fn lines(h: f64) -> Self {
        let (w, left, right, top, bottom) = (860.0, 80.0, 190.0, 56.0, 64.0);
        Self {
            w,
            h,
            left,
            top,
            pw: w - left - right,
            ph: h - top - bottom,
        }
    }

    /// The axes along the left and bottom of the plotting area, with their titles:
    /// agents (log scale) across, `y_title` up.
    fn axes(&self, s: &mut String, y_title: &str) {
        let Self {
            h,
            left,
            top,
            pw,
            ph,
            ..
        } = *self;
        let _ = writeln!(
            s,
            "<path d=\"M{left} {top} V{:.1} H{:.1}\" fill=\"none\" stroke=\"black\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">agents (log scale)</text>\n\
             <text transform=\"translate(22 {:.1}) rotate(-90)\" text-anchor=\"middle\">\
             {y_title}</text>",
            top + ph,
            left + pw,
            left + pw / 2.0,
            h - 18.0,
            top + ph / 2.0
        );
    }

    /// Series `i`'s line through `points` (plot coordinates), a dot at each, and its
    /// entry in the legend.
    fn series(&self, s: &mut String, i: usize, label: &str, points: &[(f64, f64)]) {
        let (colour, dash) = series_style(i, label);
        let line: Vec<String> = points
            .iter()
            .map(|(a, b)| format!("{a:.1},{b:.1}"))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/>",
            line.join(" ")
        );
        for (a, b) in points {
            let _ = writeln!(
                s,
                "<circle cx=\"{a:.1}\" cy=\"{b:.1}\" r=\"3\" fill=\"{colour}\"/>"
            );
        }
        let at = (
            self.left + self.pw + 20.0,
            self.top + 10.0 + 22.0 * i as f64,
        );
        legend_entry(s, at, i, label);
    }
}

/// The scaling plot: ns per agent-tick against agents (log scale).
pub(crate) fn render_svg(r: &Results) -> String {
    let f = Frame::lines(520.0);
    let Frame {
        left, top, pw, ph, ..
    } = f;
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
    let x = |n: f64| left + (n.log10() - lx0) / (lx1 - lx0) * pw;
    let y = |v: f64| top + ph - v / ymax * ph;

    let mut s = String::new();
    page(
        &mut s,
        (f.w, f.h),
        left + pw / 2.0,
        "throng: cost per agent-tick against crowd size",
        &machine_line(r),
    );
    // Grid lines and y labels.
    let mut v = 0.0;
    while v <= ymax + ystep * 0.01 {
        let yy = y(v);
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" \
             stroke=\"#e4e4e4\"/>",
            left + pw
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 8.0,
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
            "<line x1=\"{xx:.1}\" y1=\"{top}\" x2=\"{xx:.1}\" y2=\"{:.1}\" \
             stroke=\"#e4e4e4\"/>",
            top + ph
        );
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" \
             stroke=\"black\"/>",
            top + ph,
            top + ph + 5.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            top + ph + 19.0,
            fmt_agents(t)
        );
    }
    f.axes(&mut s, "ns per agent-tick (median)");
    // One polyline per series, with a dot at each measurement, and the legend.
    for (i, se) in r.series.iter().enumerate() {
        let points: Vec<(f64, f64)> = se
            .rows
            .iter()
            .map(|m| (x(m.agents as f64), y(m.ns_per_agent_tick())))
            .collect();
        f.series(&mut s, i, &se.label, &points);
    }
    let _ = writeln!(s, "</svg>");
    s
}

/// 1, 2 or 5 × a power of ten, at least `raw`.
pub(crate) fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|v| *v >= raw)
        .unwrap_or(10.0 * p)
}

/// 1, 2, 5 × powers of ten between `lo` and `hi`; the ends when none is.
pub(crate) fn x_ticks(lo: f64, hi: f64) -> Vec<usize> {
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

pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The frame-budget plot and the per-phase bars, written beside the scaling
/// plot `plot`.
pub(crate) fn sibling_plots(plot: &Path) -> (PathBuf, PathBuf) {
    (
        plot.with_file_name("frame-budget.svg"),
        plot.with_file_name("phases.svg"),
    )
}

/// The crowd size the per-phase bars show: 100k, or the largest measured
/// below it.
pub(crate) fn phases_size(r: &Results) -> usize {
    r.series
        .iter()
        .flat_map(|s| s.rows.iter().map(|m| m.agents))
        .filter(|&n| n <= 100_000)
        .max()
        .unwrap_or(0)
}

/// The plots' subtitle: the machine and the sample.
fn machine_line(r: &Results) -> String {
    format!(
        "{} cores, {} threads, {}, median of {} ticks",
        r.machine.cores, r.machine.threads, r.machine.date, r.ticks
    )
}

/// Series `i`'s colour, and a dash for the grid's series.
fn series_style(i: usize, label: &str) -> (&'static str, &'static str) {
    let dash = if label.contains("grid") {
        " stroke-dasharray=\"6 3\""
    } else {
        ""
    };
    (PALETTE[i % PALETTE.len()], dash)
}

/// Series `i`'s entry in a plot's legend, at `(x, y)`.
fn legend_entry(s: &mut String, (lx, ly): (f64, f64), i: usize, label: &str) {
    let (colour, dash) = series_style(i, label);
    let _ = writeln!(
        s,
        "<line x1=\"{lx:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{colour}\" \
         stroke-width=\"2\"{dash}/>\n<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        lx + 28.0,
        lx + 36.0,
        ly + 4.0,
        escape(label)
    );
}

/// The plots' shared frame: the white page, a title and a subtitle.
fn page(s: &mut String, (w, h): (f64, f64), centre: f64, title: &str, subtitle: &str) {
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{centre}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" \
         font-weight=\"bold\">{}</text>",
        escape(title)
    );
    let _ = writeln!(
        s,
        "<text x=\"{centre}\" y=\"42\" text-anchor=\"middle\" fill=\"#444\">{}</text>",
        escape(subtitle)
    );
}

/// Frame budgets drawn across the frame-budget plot: (ms, label).
pub(crate) const BUDGETS: [(f64, &str); 2] = [(1000.0 / 60.0, "60 fps"), (1000.0 / 30.0, "30 fps")];

/// Powers of ten from below `lo` to above `hi`.
fn decades(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    (a..=b.max(a + 1)).map(|e| 10f64.powi(e)).collect()
}

/// The frame-budget plot: ms per tick against agents, both on log scales, one
/// line per profile and index, with the 60 and 30 frames-a-second budgets
/// (16.7 and 33.3 ms) across it, so the crowd a frame can afford reads off
/// where a line crosses them.
pub(crate) fn render_budget_svg(r: &Results) -> String {
    let f = Frame::lines(540.0);
    let Frame {
        left, top, pw, ph, ..
    } = f;
    let ms: Vec<(usize, f64)> = r
        .series
        .iter()
        .flat_map(|s| s.rows.iter().map(|m| (m.agents, m.total / 1e6)))
        .filter(|p| p.1 > 0.0)
        .collect();
    let xs = decades(
        ms.iter().map(|p| p.0).min().unwrap_or(1).max(1) as f64,
        ms.iter().map(|p| p.0).max().unwrap_or(10).max(10) as f64,
    );
    let lowest = ms
        .iter()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min)
        .min(1.0);
    let highest = ms
        .iter()
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(BUDGETS[1].0 * 1.5);
    let ys = decades(lowest, highest);
    let (lx0, lx1) = (xs[0].log10(), xs[xs.len() - 1].log10());
    let (ly0, ly1) = (ys[0].log10(), ys[ys.len() - 1].log10());
    let x = |n: f64| left + (n.log10() - lx0) / (lx1 - lx0) * pw;
    let y = |v: f64| top + ph - (v.log10() - ly0) / (ly1 - ly0) * ph;

    let mut s = String::new();
    page(
        &mut s,
        (f.w, f.h),
        left + pw / 2.0,
        "throng: milliseconds per tick against crowd size",
        &machine_line(r),
    );
    for &v in &ys {
        let yy = y(v);
        let _ =
            writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#e4e4e4\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left + pw,
            left - 8.0,
            yy + 4.0,
            if v < 1.0 { format!("{v}") } else { format!("{v:.0}") }
        );
    }
    for &t in &xs {
        let xx = x(t);
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{top}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#e4e4e4\"/>\n\
             <text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            top + ph,
            top + ph + 19.0,
            fmt_agents(t as usize)
        );
    }
    for (budget, label) in BUDGETS {
        let yy = y(budget);
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#b00\" \
             stroke-dasharray=\"8 4\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#b00\" \
             text-anchor=\"end\">{} ms ({label})</text>",
            left + pw,
            left + pw - 4.0,
            yy - 5.0,
            trim_float(budget)
        );
    }
    f.axes(&mut s, "ms per tick (median, log scale)");
    for (i, se) in r.series.iter().enumerate() {
        let points: Vec<(f64, f64)> = se
            .rows
            .iter()
            .filter(|m| m.total > 0.0)
            .map(|m| (x(m.agents as f64), y(m.total / 1e6)))
            .collect();
        f.series(&mut s, i, &se.label, &points);
    }
    let _ = writeln!(s, "</svg>");
    s
}

/// A phase's name, colour and share of a measurement (ns).
pub(crate) type Phase = (&'static str, &'static str, fn(&Measured) -> f64);

/// The phases of a tick, as the stacked bars draw them: (name, colour, ms of
/// a measurement). "other" is the rest of the tick (the spatial re-sort,
/// bookkeeping).
pub(crate) const PHASES: [Phase; 5] = [
    ("index build", "#1f77b4", |m| m.index),
    ("leader sight", "#9467bd", |m| m.sight),
    ("steering", "#ff7f0e", |m| m.steer),
    ("integration", "#2ca02c", |m| m.integrate),
    ("other", "#bbbbbb", |m| {
        (m.total - m.index - m.sight - m.steer - m.integrate).max(0.0)
    }),
];

/// The stacked bar chart: each series' tick at `agents`, split by phase.
pub(crate) fn render_phases_svg(r: &Results, agents: usize) -> String {
    const W: f64 = 860.0;
    const LEFT: f64 = 130.0;
    const RIGHT: f64 = 150.0;
    const TOP: f64 = 60.0;
    const BAR: f64 = 26.0;
    const GAP: f64 = 12.0;
    let bars: Vec<(&str, &Measured)> = r
        .series
        .iter()
        .filter_map(|s| s.at(agents).map(|m| (s.label.as_str(), m)))
        .collect();
    let ph = bars.len() as f64 * (BAR + GAP);
    let h = TOP + ph + 56.0;
    let pw = W - LEFT - RIGHT;
    let most = bars.iter().map(|b| b.1.total / 1e6).fold(0.0, f64::max);
    let step = nice_step(most.max(0.01) / 5.0);
    let top = ((most / step).ceil() * step).max(step);
    let x = |ms: f64| LEFT + ms / top * pw;

    let mut s = String::new();
    page(
        &mut s,
        (W, h),
        LEFT + pw / 2.0,
        &format!("throng: where a tick of {} agents goes", fmt_agents(agents)),
        &format!(
            "{} cores, {} threads, {}, median of {} ticks per phase",
            r.machine.cores, r.machine.threads, r.machine.date, r.ticks
        ),
    );
    let mut v = 0.0;
    while v <= top + step * 0.01 {
        let xx = x(v);
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{TOP}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#e4e4e4\"/>\n\
             <text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            TOP + ph,
            TOP + ph + 18.0,
            trim_float(v)
        );
        v += step;
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">ms per tick (medians of each \
         phase)</text>",
        LEFT + pw / 2.0,
        TOP + ph + 40.0
    );
    for (i, (label, m)) in bars.iter().enumerate() {
        let yy = TOP + GAP / 2.0 + i as f64 * (BAR + GAP);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 8.0,
            yy + BAR / 2.0 + 4.0,
            escape(label)
        );
        let mut at = 0.0;
        for (name, colour, part) in PHASES {
            let ms = part(m) / 1e6;
            if ms > 0.0 {
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{yy:.1}\" width=\"{:.1}\" height=\"{BAR}\" \
                     fill=\"{colour}\"><title>{name}: {ms:.3} ms</title></rect>",
                    x(at),
                    x(at + ms) - x(at)
                );
            }
            at += ms;
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\">{:.2} ms</text>",
            x(at) + 6.0,
            yy + BAR / 2.0 + 4.0,
            m.total / 1e6
        );
    }
    for (i, (name, colour, _)) in PHASES.iter().enumerate() {
        let (lx, ly) = (LEFT + pw + 70.0, TOP + 8.0 + 20.0 * i as f64);
        let _ = writeln!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{colour}\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\">{name}</text>",
            ly - 6.0,
            lx + 18.0,
            ly + 4.0
        );
    }
    let _ = writeln!(s, "</svg>");
    s
}
