//! The sweep's scaling plot: ns per agent-tick against agents, one line per series
//! (an SVG written by hand: a few dozen elements).

use std::fmt::Write as _;

use crate::report::{fmt_agents, trim_float};
use crate::run::Results;

/// Colours of the plot's lines.
pub(crate) const PALETTE: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The scaling plot: ns per agent-tick against agents (log scale).
pub(crate) fn render_svg(r: &Results) -> String {
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
