//! A chart of measured series beside published data, as an SVG (plotters): the
//! pedestrian examples' pictures in `docs/pedestrians.md`.

// Each example that includes this module draws some of the kinds of series.
#![allow(dead_code)]

use std::error::Error;
use std::ops::Range;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

/// One series: its label, its points and how they are drawn.
pub struct Series {
    pub label: String,
    pub points: Vec<(f32, f32)>,
    pub kind: Kind,
}

/// How a series is drawn.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    /// Measured here: a line through its points, with a dot at each.
    Measured,
    /// A published formula, sampled finely: a dashed line.
    Formula,
    /// Published measurements: a mark at each.
    Published,
}

/// The chart's title, axes and ranges.
pub struct Chart<'a> {
    pub title: &'a str,
    pub x: (&'a str, Range<f32>),
    pub y: (&'a str, Range<f32>),
}

/// Distinct colours, one per series in the order given.
const COLOURS: [RGBColor; 7] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(127, 127, 127),
];

/// Take `--NAME VALUE` out of the command-line `args`: the value, parsed, if it was
/// given.
///
/// # Errors
/// The option without a value after it, or a value that does not parse.
pub fn option_arg<T: std::str::FromStr>(
    args: &mut Vec<String>,
    name: &str,
) -> Result<Option<T>, String> {
    let Some(i) = args.iter().position(|a| a == name) else {
        return Ok(None);
    };
    if i + 1 >= args.len() {
        return Err(format!("{name} needs a value"));
    }
    let value = args.remove(i + 1);
    args.remove(i);
    value
        .parse()
        .map(Some)
        .map_err(|_| format!("{name}: cannot read {value:?}"))
}

/// Take `--plot FILE` out of the command-line `args`: the file, if it was asked for.
///
/// # Errors
/// `--plot` without a file after it.
pub fn plot_arg(args: &mut Vec<String>) -> Result<Option<PathBuf>, String> {
    option_arg(args, "--plot")
}

/// Write `chart` with `series` to `path`, each in its own colour, with a legend.
pub fn write(path: &Path, chart: &Chart<'_>, series: &[Series]) -> Result<(), Box<dyn Error>> {
    let root = SVGBackend::new(path, (720, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut c = ChartBuilder::on(&root)
        .caption(chart.title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(chart.x.1.clone(), chart.y.1.clone())?;
    c.configure_mesh()
        .x_desc(chart.x.0)
        .y_desc(chart.y.0)
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    for (s, &colour) in series.iter().zip(COLOURS.iter().cycle()) {
        let style = ShapeStyle::from(colour).stroke_width(2);
        let points = s.points.iter().copied();
        let drawn = match s.kind {
            Kind::Measured => {
                c.draw_series(points.clone().map(|p| Circle::new(p, 3, colour.filled())))?;
                c.draw_series(LineSeries::new(points, style))?
            }
            Kind::Formula => c.draw_series(DashedLineSeries::new(points, 6, 4, style))?,
            Kind::Published => c.draw_series(points.map(|p| TriangleMarker::new(p, 6, style)))?,
        };
        let kind = s.kind;
        drawn
            .label(&s.label)
            .legend(move |(x, y)| -> DynElement<'static, _, _> {
                match kind {
                    Kind::Published => TriangleMarker::new((x + 9, y), 6, style).into_dyn(),
                    _ => PathElement::new(vec![(x, y), (x + 18, y)], style).into_dyn(),
                }
            });
    }
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    root.present()?;
    Ok(())
}
