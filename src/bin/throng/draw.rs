//! Drawing shared by the run's picture (`--png`) and its animation
//! (`--animate`): an anti-aliased RGB canvas with a small built-in font, the
//! world-to-pixel transform, the groups' colours, the scene (walls, obstacles,
//! paths, gates, targets) and the header above the scene (title, legend, scale
//! bar), which never covers any of it.

use glam::Vec2;
use throng::scenario::{Rect, Scenario};
use throng::scene::{FieldSample, GoalField};

/// Colours of groups without their own: well separated on white.
const PALETTE: [[u8; 3]; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];
pub const BACKGROUND: [u8; 3] = [250, 250, 246];
pub const WALL: [u8; 3] = [40, 40, 40];
pub const OBSTACLE: [u8; 3] = [150, 150, 150];
pub const PATH: [u8; 3] = [70, 70, 70];
pub const GATE: [u8; 3] = [0, 150, 136];
pub const INK: [u8; 3] = [20, 20, 20];
/// The header's background.
pub const PAPER: [u8; 3] = [255, 255, 255];

/// An RGB canvas with alpha blending.
pub struct Canvas {
    width: u32,
    height: u32,
    rgb: Vec<[f32; 3]>,
}

impl Canvas {
    /// A canvas filled with `background`.
    pub fn new(width: u32, height: u32, background: [u8; 3]) -> Self {
        Self {
            width,
            height,
            rgb: vec![to_f(background); width as usize * height as usize],
        }
    }

    /// Blend `colour` into pixel `(x, y)` with opacity `a`.
    #[inline]
    fn blend(&mut self, x: i64, y: i64, colour: [f32; 3], a: f32) {
        if a <= 0.0 || x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return;
        }
        let px = &mut self.rgb[y as usize * self.width as usize + x as usize];
        for (v, c) in px.iter_mut().zip(colour) {
            *v += (c - *v) * a.min(1.0);
        }
    }

    /// An anti-aliased segment of `width` pixels with round ends.
    pub fn line(&mut self, a: Vec2, b: Vec2, width: f32, colour: [u8; 3], alpha: f32) {
        if !(a.is_finite() && b.is_finite()) {
            return;
        }
        let half = width * 0.5;
        let lo = a.min(b) - Vec2::splat(half + 1.0);
        let hi = a.max(b) + Vec2::splat(half + 1.0);
        let (x0, y0, x1, y1) = self.clip(lo, hi);
        let c = to_f(colour);
        let ab = b - a;
        let len_sq = ab.length_squared();
        for y in y0..=y1 {
            for x in x0..=x1 {
                let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let t = if len_sq > 0.0 {
                    ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let d = p.distance(a + ab * t);
                let cover = (half + 0.5 - d).clamp(0.0, 1.0);
                self.blend(x, y, c, cover * alpha);
            }
        }
    }

    /// An anti-aliased filled disc.
    pub fn disc(&mut self, centre: Vec2, radius: f32, colour: [u8; 3], alpha: f32) {
        self.ring(centre, 0.0, radius, colour, alpha);
    }

    /// An anti-aliased annulus between radii `inner` and `outer` (pixels).
    pub fn ring(&mut self, centre: Vec2, inner: f32, outer: f32, colour: [u8; 3], alpha: f32) {
        if !centre.is_finite() {
            return;
        }
        let lo = centre - Vec2::splat(outer + 1.0);
        let hi = centre + Vec2::splat(outer + 1.0);
        let (x0, y0, x1, y1) = self.clip(lo, hi);
        let c = to_f(colour);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let d = Vec2::new(x as f32 + 0.5, y as f32 + 0.5).distance(centre);
                let mut cover = (outer + 0.5 - d).clamp(0.0, 1.0);
                if inner > 0.0 {
                    cover = cover.min((d - inner + 0.5).clamp(0.0, 1.0));
                }
                self.blend(x, y, c, cover * alpha);
            }
        }
    }

    /// A filled axis-aligned rectangle (pixels).
    pub fn fill_rect(&mut self, lo: Vec2, hi: Vec2, colour: [u8; 3], alpha: f32) {
        let (x0, y0, x1, y1) = self.clip(lo, hi - Vec2::ONE);
        let c = to_f(colour);
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.blend(x, y, c, alpha);
            }
        }
    }

    /// Text in the built-in 3x5 font, `scale` pixels per font pixel, top-left
    /// at `at`. Returns the width drawn.
    pub fn text(&mut self, at: Vec2, s: &str, scale: u32, colour: [u8; 3]) -> f32 {
        let c = to_f(colour);
        let mut x = at.x.round() as i64;
        let y = at.y.round() as i64;
        let sc = scale as i64;
        for ch in s.chars() {
            let bits = glyph(ch);
            for row in 0..5 {
                for col in 0..3 {
                    if bits & (1 << (14 - (row * 3 + col))) != 0 {
                        for dy in 0..sc {
                            for dx in 0..sc {
                                self.blend(x + col * sc + dx, y + row * sc + dy, c, 1.0);
                            }
                        }
                    }
                }
            }
            x += 4 * sc;
        }
        (x as f32 - at.x).max(0.0)
    }

    /// Pixel bounds of a box, clipped to the canvas; empty boxes give a range
    /// that loops zero times.
    fn clip(&self, lo: Vec2, hi: Vec2) -> (i64, i64, i64, i64) {
        let x0 = (lo.x.floor() as i64).max(0);
        let y0 = (lo.y.floor() as i64).max(0);
        let x1 = (hi.x.ceil() as i64).min(self.width as i64 - 1);
        let y1 = (hi.y.ceil() as i64).min(self.height as i64 - 1);
        (x0, y0, x1, y1)
    }

    /// Width and height in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Make this canvas a copy of `other` (of the same size).
    pub fn copy_from(&mut self, other: &Canvas) {
        self.rgb.clone_from(&other.rgb);
        self.width = other.width;
        self.height = other.height;
    }

    /// Move every pixel toward `colour`, keeping the fraction `keep` of its
    /// difference from it.
    pub fn fade_toward(&mut self, colour: [u8; 3], keep: f32) {
        let c = to_f(colour);
        for px in &mut self.rgb {
            for (v, b) in px.iter_mut().zip(c) {
                *v = b + (*v - b) * keep;
            }
        }
    }

    /// The pixels as 8-bit RGB, row by row from the top.
    pub fn to_rgb8(&self, out: &mut Vec<u8>) {
        out.clear();
        out.reserve(self.rgb.len() * 3);
        for px in &self.rgb {
            for v in px {
                out.push(to_u8(*v));
            }
        }
    }
}

/// A channel in 0..=1 as a byte.
pub fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn to_f(c: [u8; 3]) -> [f32; 3] {
    [
        c[0] as f32 / 255.0,
        c[1] as f32 / 255.0,
        c[2] as f32 / 255.0,
    ]
}

/// A 3x5 glyph as 15 bits, row by row from the top-left (bit 14). Letters are
/// drawn as capitals; characters without a glyph draw as a blank.
fn glyph(c: char) -> u16 {
    let rows = match c.to_ascii_lowercase() {
        'a' => "010101111101101",
        'b' => "110101110101110",
        'c' => "011100100100011",
        'd' => "110101101101110",
        'e' => "111100110100111",
        'f' => "111100110100100",
        'g' => "011100101101011",
        'h' => "101101111101101",
        'i' => "111010010010111",
        'j' => "001001001101010",
        'k' => "101101110101101",
        'l' => "100100100100111",
        'm' => "101111111101101",
        'n' => "110101101101101",
        'o' => "010101101101010",
        'p' => "110101110100100",
        'q' => "010101101110011",
        'r' => "110101110101101",
        's' => "011100010001110",
        't' => "111010010010010",
        'u' => "101101101101111",
        'v' => "101101101101010",
        'w' => "101101111111101",
        'x' => "101101010101101",
        'y' => "101101010010010",
        'z' => "111001010100111",
        '0' => "111101101101111",
        '1' => "010110010010111",
        '2' => "110001010100111",
        '3' => "110001010001110",
        '4' => "101101111001001",
        '5' => "111100110001110",
        '6' => "011100111101111",
        '7' => "111001010010010",
        '8' => "111101111101111",
        '9' => "111101111001110",
        '_' => "000000000000111",
        '-' => "000000111000000",
        '.' => "000000000000010",
        ',' => "000000000010100",
        ':' => "000010000010000",
        '/' => "001001010100100",
        '(' => "010100100100010",
        ')' => "010001001001010",
        '+' => "000010111010000",
        '=' => "000111000111000",
        _ => "000000000000000",
    };
    rows.bytes()
        .fold(0u16, |acc, b| (acc << 1) | u16::from(b == b'1'))
}

/// World-to-pixel mapping: the view fitted into a region of the image
/// (centred, aspect kept), y up.
#[derive(Clone, Copy, Debug)]
pub struct Transform {
    /// Pixels per world unit.
    pub scale: f32,
    /// Pixel position of the world's origin (y grows downward in pixels).
    origin: Vec2,
}

impl Transform {
    /// Fit `view` into the pixel rectangle at `top_left` of `size`.
    pub fn fit(view: Rect, top_left: Vec2, size: Vec2) -> Self {
        let extent = view.size().max(Vec2::splat(1e-3));
        let scale = (size.x / extent.x).min(size.y / extent.y);
        let margin = (size - extent * scale) * 0.5;
        Self {
            scale,
            origin: Vec2::new(
                top_left.x + margin.x - view.min.x * scale,
                top_left.y + size.y - margin.y + view.min.y * scale,
            ),
        }
    }

    /// The world point at pixel `q` (the inverse of [`Transform::px`]).
    pub fn world(&self, q: Vec2) -> Vec2 {
        Vec2::new(
            (q.x - self.origin.x) / self.scale,
            (self.origin.y - q.y) / self.scale,
        )
    }

    /// The pixel at world point `p`.
    pub fn px(&self, p: Vec2) -> Vec2 {
        Vec2::new(
            self.origin.x + p.x * self.scale,
            self.origin.y - p.y * self.scale,
        )
    }
}

/// Each group's colour: its profile's, or else the first palette colour far
/// from every colour already taken (the profile's own included), so no two
/// groups share a colour.
pub fn group_colours(scenario: &Scenario) -> Vec<[u8; 3]> {
    let own: Vec<Option<[u8; 3]>> = scenario.groups().iter().map(|g| g.colour).collect();
    pick_colours(&own)
}

/// [`group_colours`] from each group's own colour, if it has one.
fn pick_colours(own: &[Option<[u8; 3]>]) -> Vec<[u8; 3]> {
    let mut taken: Vec<[u8; 3]> = own.iter().flatten().copied().collect();
    let mut spare = PALETTE.iter().copied().chain((0..).map(spread_colour));
    own.iter()
        .map(|c| {
            c.unwrap_or_else(|| {
                let far = |c: &[u8; 3]| taken.iter().all(|t| colour_distance(*t, *c) > 48.0);
                let c = spare.by_ref().find(far).unwrap_or(INK);
                taken.push(c);
                c
            })
        })
        .collect()
}

/// Euclidean distance in RGB.
fn colour_distance(a: [u8; 3], b: [u8; 3]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(&x, y)| (f32::from(x) - f32::from(y)).powi(2))
        .sum::<f32>()
        .sqrt()
}

/// The `k`-th colour after the palette: hues a golden angle apart, at a
/// saturation and lightness that read on white.
fn spread_colour(k: u32) -> [u8; 3] {
    let hue = (k as f32 * 137.508).rem_euclid(360.0) / 60.0;
    let (c, l) = (0.55, 0.45);
    let x = c * (1.0 - (hue.rem_euclid(2.0) - 1.0).abs());
    let (r, g, b) = match hue as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    [to_u8(r + m), to_u8(g + m), to_u8(b + m)]
}

/// Width of scene lines: about 1.5 px at 1024 px.
pub fn line_width(size: (u32, u32)) -> f32 {
    (1.5 * size.0.min(size.1) as f32 / 1024.0).max(1.0)
}

/// Half the size of a target's cross, in pixels.
fn cross_size(line: f32) -> f32 {
    4.0 * line
}

/// Draw the scene: paths (dashed), obstacles, walls, gates (the measuring
/// lines) and fixed targets (crosses in the colour of the group aiming there).
pub fn draw_scene(canvas: &mut Canvas, tf: Transform, scenario: &Scenario, colours: &[[u8; 3]]) {
    let line = line_width(canvas.size());
    let layout = scenario.layout();
    for path in &layout.paths {
        for (a, b) in path.segments() {
            dashed(canvas, tf.px(a), tf.px(b), line, PATH);
        }
    }
    for o in &layout.obstacles {
        let c = tf.px(o.centre);
        let r = o.radius * tf.scale;
        obstacle(canvas, c, r, line);
    }
    for w in &layout.walls {
        canvas.line(tf.px(w.a), tf.px(w.b), line * 1.6, WALL, 1.0);
    }
    for g in &layout.gates {
        canvas.line(tf.px(g.a), tf.px(g.b), line * 1.4, GATE, 0.9);
    }
    for &(g, p) in scenario.markers() {
        cross(
            canvas,
            tf.px(p),
            cross_size(line),
            line,
            colours.get(g).copied().unwrap_or(INK),
        );
    }
}

/// A goal field under the crowd, half transparent, over the scene area
/// `(top_left, size)` (pixels):
/// each pixel shaded by the travel distance at its point in alternating bands (about
/// twelve over the farthest distance), goals in green, places no goal can be reached
/// from (the walls' grown clearance among them) in grey; and an arrow of the
/// field's direction every 36 pixels.
pub fn draw_field(
    canvas: &mut Canvas,
    tf: Transform,
    (top_left, size): (Vec2, Vec2),
    f: &GoalField,
) {
    let [goal, far_off, band_a, band_b] = FIELD_COLOURS;
    const SPACING: f32 = 36.0;
    let sample = |q: Vec2| f.sample(tf.world(q));
    // The farthest reached distance, for the band width.
    let (cols, rows) = f.dims();
    let far = (0..rows)
        .flat_map(|y| (0..cols).map(move |x| (x, y)))
        .filter_map(|(x, y)| f.cell_distance(x, y))
        .filter(|d| d.is_finite())
        .fold(0.0_f32, f32::max);
    let band = nice_step(far / 12.0);
    let (x0, y0) = (top_left.x as i64, top_left.y as i64);
    let (x1, y1) = ((top_left.x + size.x) as i64, (top_left.y + size.y) as i64);
    for y in y0..y1 {
        for x in x0..x1 {
            let q = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            let colour = match sample(q) {
                FieldSample::AtGoal => goal,
                FieldSample::Unreachable => far_off,
                FieldSample::Toward { distance, .. } => {
                    [band_a, band_b][((distance / band) as usize) % 2]
                }
            };
            let at = Vec2::new(x as f32, y as f32);
            canvas.fill_rect(at, at + Vec2::ONE, colour, 0.5);
        }
    }
    let width = line_width(canvas.size());
    let mut y = top_left.y + SPACING * 0.5;
    while y < top_left.y + size.y {
        let mut x = top_left.x + SPACING * 0.5;
        while x < top_left.x + size.x {
            let q = Vec2::new(x, y);
            if let FieldSample::Toward { direction, .. } = sample(q) {
                // y up in the world, down in pixels.
                let d = Vec2::new(direction.x, -direction.y) * SPACING * 0.35;
                let (tail, head) = (q - d, q + d);
                canvas.line(tail, head, width, PATH, 0.8);
                let side = Vec2::new(-d.y, d.x) * 0.35;
                canvas.line(head, head - d * 0.45 + side, width, PATH, 0.8);
                canvas.line(head, head - d * 0.45 - side, width, PATH, 0.8);
            }
            x += SPACING;
        }
        y += SPACING;
    }
}

/// The colours [`draw_field`] shades with: goals, places no goal can be reached
/// from, and the two alternating bands of distance (an animation's palette takes
/// them).
pub const FIELD_COLOURS: [[u8; 3]; 4] = [
    [150, 205, 150],
    [190, 190, 190],
    [196, 218, 242],
    [232, 240, 250],
];

/// 1, 2 or 5 times a power of ten, at least `x` (and at least 0.1).
fn nice_step(x: f32) -> f32 {
    let x = x.max(0.1);
    let p = 10f32.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&s| s >= x)
        .unwrap_or(10.0 * p)
}

fn obstacle(canvas: &mut Canvas, centre: Vec2, r: f32, line: f32) {
    canvas.disc(centre, r, OBSTACLE, 0.55);
    canvas.ring(centre, (r - line).max(0.0), r, WALL, 0.9);
}

fn cross(canvas: &mut Canvas, q: Vec2, mark: f32, line: f32, colour: [u8; 3]) {
    for d in [Vec2::new(mark, mark), Vec2::new(mark, -mark)] {
        canvas.line(q - d, q + d, line * 1.4, INK, 1.0);
        canvas.line(q - d, q + d, line * 0.6, colour, 1.0);
    }
}

/// A dashed segment.
pub fn dashed(canvas: &mut Canvas, a: Vec2, b: Vec2, width: f32, colour: [u8; 3]) {
    let len = a.distance(b);
    if !(len.is_finite() && len > 0.0) {
        return;
    }
    let dash = 6.0 * width;
    let steps = (len / dash).ceil() as usize;
    for k in (0..steps).step_by(2) {
        let t0 = k as f32 * dash / len;
        let t1 = ((k + 1) as f32 * dash / len).min(1.0);
        canvas.line(a.lerp(b, t0), a.lerp(b, t1), width, colour, 0.9);
    }
}

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    /// A group's agents: a dot of its colour.
    Dot([u8; 3]),
    /// Squad leaders: a black ring.
    Leader,
    /// A trail: a faint line of the first group's colour.
    Trail([u8; 3]),
    Wall,
    Obstacle,
    Path,
    Gate,
    /// A fixed target: a cross.
    Target,
}

/// One entry of the legend.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub swatch: Swatch,
    pub label: String,
}

/// The legend of a scene: every group (name and count, in its colour), then
/// each kind of thing the picture draws, only those present.
pub fn legend(scenario: &Scenario, colours: &[[u8; 3]], trails: bool) -> Vec<Entry> {
    let entry = |swatch, label: &str| Entry {
        swatch,
        label: label.to_string(),
    };
    let mut out: Vec<Entry> = scenario
        .groups()
        .iter()
        .zip(colours)
        .map(|(g, &c)| Entry {
            swatch: Swatch::Dot(c),
            label: format!("{} {}", g.name, g.count),
        })
        .collect();
    let layout = scenario.layout();
    if !scenario.leaders().is_empty() {
        out.push(entry(Swatch::Leader, "leader"));
    }
    if trails {
        let c = colours.first().copied().unwrap_or(INK);
        out.push(entry(Swatch::Trail(c), "trail (older fainter)"));
    }
    if !layout.walls.is_empty() {
        out.push(entry(Swatch::Wall, "wall"));
    }
    if !layout.obstacles.is_empty() {
        out.push(entry(Swatch::Obstacle, "obstacle"));
    }
    if !layout.paths.is_empty() {
        out.push(entry(Swatch::Path, "path"));
    }
    if !layout.gates.is_empty() {
        out.push(entry(Swatch::Gate, "gate"));
    }
    if !scenario.markers().is_empty() {
        out.push(entry(Swatch::Target, "target"));
    }
    out
}

/// The band above the scene: a title line, then the legend's entries flowed
/// into as many lines as the width needs, the scale bar last.
pub struct Header {
    /// Font pixels per glyph pixel.
    font: u32,
    entries: Vec<Entry>,
    /// Top-left pixel of each entry.
    at: Vec<Vec2>,
    /// Top-left pixel of the scale bar's slot.
    bar_at: Vec2,
    /// Height of the band in pixels.
    pub height: f32,
}

impl Header {
    /// Lay out `entries` across `width` pixels.
    pub fn new(width: u32, height: u32, entries: Vec<Entry>) -> Self {
        let font = if width.min(height) >= 480 { 2 } else { 1 };
        let f = font as f32;
        let (pad, line_h, gap) = (Self::PAD * f, Self::LINE * f, 10.0 * f);
        let mut at = Vec::with_capacity(entries.len());
        let mut cursor = Vec2::new(pad, pad + line_h);
        let mut place = |w: f32| {
            if cursor.x > pad && cursor.x + w > width as f32 - pad {
                cursor = Vec2::new(pad, cursor.y + line_h);
            }
            let here = cursor;
            cursor.x += w + gap;
            here
        };
        for e in &entries {
            at.push(place(Self::entry_width(f, &e.label)));
        }
        let bar_at = place(Self::BAR_MAX * f + text_width(f, "1000 m") + 4.0 * f);
        Self {
            font,
            entries,
            at,
            bar_at,
            height: bar_at.y + line_h + pad - 4.0 * f,
        }
    }

    /// Margin around the band's text, in font pixels.
    const PAD: f32 = 5.0;
    /// Height of a line of the band (a glyph is 5 high), in font pixels.
    const LINE: f32 = 9.0;

    /// Longest scale bar, in font pixels.
    const BAR_MAX: f32 = 60.0;

    fn entry_width(f: f32, label: &str) -> f32 {
        14.0 * f + text_width(f, label)
    }

    /// Where the scene goes: the image below the band, inset a little.
    pub fn scene_area(&self, width: u32, height: u32) -> (Vec2, Vec2) {
        let inset = 4.0 * self.font as f32;
        let top_left = Vec2::new(inset, self.height + inset);
        let size = Vec2::new(width as f32, height as f32) - top_left - Vec2::splat(inset);
        (top_left, size.max(Vec2::ONE))
    }

    /// Paint the band's paper, the legend and the scale bar for `tf`.
    pub fn draw(&self, canvas: &mut Canvas, tf: Transform) {
        let (w, _) = canvas.size();
        let f = self.font as f32;
        canvas.fill_rect(Vec2::ZERO, Vec2::new(w as f32, self.height), PAPER, 1.0);
        canvas.line(
            Vec2::new(0.0, self.height - 0.5),
            Vec2::new(w as f32, self.height - 0.5),
            1.0,
            OBSTACLE,
            1.0,
        );
        let line = line_width(canvas.size());
        for (e, &at) in self.entries.iter().zip(&self.at) {
            let mid = at + Vec2::new(5.0 * f, 2.5 * f);
            let (l, r) = (mid - Vec2::new(5.0 * f, 0.0), mid + Vec2::new(5.0 * f, 0.0));
            match e.swatch {
                Swatch::Dot(c) => canvas.disc(mid, 2.8 * f, c, 1.0),
                Swatch::Leader => canvas.ring(mid, 1.8 * f, 3.0 * f, INK, 1.0),
                Swatch::Trail(c) => {
                    canvas.line(l, mid, f, c, 0.25);
                    canvas.line(mid, r, f, c, 0.6);
                }
                Swatch::Wall => canvas.line(l, r, line * 1.6, WALL, 1.0),
                Swatch::Obstacle => obstacle(canvas, mid, 3.0 * f, line),
                Swatch::Path => dashed(canvas, l, r, line.min(f), PATH),
                Swatch::Gate => canvas.line(l, r, line * 1.4, GATE, 0.9),
                Swatch::Target => cross(canvas, mid, 2.5 * f, line.min(f), INK),
            }
            canvas.text(at + Vec2::new(14.0 * f, 0.0), &e.label, self.font, INK);
        }
        let (metres, px) = scale_bar(tf.scale, Self::BAR_MAX * f);
        if px > 0.0 {
            let y = self.bar_at.y + 2.5 * f;
            let (a, b) = (
                Vec2::new(self.bar_at.x, y),
                Vec2::new(self.bar_at.x + px, y),
            );
            canvas.line(a, b, f, INK, 1.0);
            for end in [a, b] {
                canvas.line(
                    end - Vec2::new(0.0, 2.5 * f),
                    end + Vec2::new(0.0, 2.5 * f),
                    f,
                    INK,
                    1.0,
                );
            }
            let label = format!("{metres} m");
            canvas.text(
                Vec2::new(b.x + 4.0 * f, self.bar_at.y),
                &label,
                self.font,
                INK,
            );
        }
    }

    /// Write the title line (over whatever title was there).
    pub fn title(&self, canvas: &mut Canvas, title: &str) {
        let f = self.font as f32;
        let (w, _) = canvas.size();
        // The title line: from the top down to just above the legend's first line.
        let bottom = (Self::PAD + Self::LINE - 2.0) * f;
        canvas.fill_rect(Vec2::ZERO, Vec2::new(w as f32, bottom), PAPER, 1.0);
        canvas.text(Vec2::splat(Self::PAD * f), title, self.font, INK);
    }
}

/// Pixel width of `s` in the built-in font at `f` pixels per glyph pixel.
fn text_width(f: f32, s: &str) -> f32 {
    s.chars().count() as f32 * 4.0 * f
}

/// The longest 1, 2 or 5 × 10ᵏ world units that fits in `max_px` pixels at
/// `scale` pixels per unit, and its length in pixels; (0, 0) when none is.
pub fn scale_bar(scale: f32, max_px: f32) -> (f32, f32) {
    if !(scale.is_finite() && scale > 0.0 && max_px > 0.0) {
        return (0.0, 0.0);
    }
    let most = max_px / scale;
    let p = 10f32.powf(most.log10().floor());
    let units = [5.0, 2.0, 1.0]
        .iter()
        .map(|m| m * p)
        .find(|u| *u <= most)
        .unwrap_or(p);
    (units, units * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_have_fifteen_bits() {
        assert_eq!(glyph('_'), 0b111);
        assert_eq!(glyph('A'), glyph('a'));
        assert_eq!(glyph('~'), 0);
        assert_eq!(glyph('h').count_ones(), 11);
        assert_eq!(glyph('+').count_ones(), 5);
    }

    #[test]
    fn transform_fits_centres_and_flips() {
        let view = Rect::from_corners(Vec2::new(-10.0, -5.0), Vec2::new(10.0, 5.0));
        // 20 x 10 into a 200 x 200 region 50 px down: 10 px per unit, centred
        // vertically in the region.
        let tf = Transform::fit(view, Vec2::new(0.0, 50.0), Vec2::new(200.0, 200.0));
        assert_eq!(tf.scale, 10.0);
        assert_eq!(tf.px(Vec2::new(-10.0, 5.0)), Vec2::new(0.0, 100.0));
        assert_eq!(tf.px(Vec2::new(10.0, -5.0)), Vec2::new(200.0, 200.0));
    }

    #[test]
    fn shapes_stay_on_the_canvas() {
        let mut c = Canvas::new(20, 10, [0, 0, 0]);
        c.line(
            Vec2::new(-50.0, -50.0),
            Vec2::new(50.0, 50.0),
            3.0,
            [255, 0, 0],
            1.0,
        );
        c.disc(Vec2::new(19.0, 9.0), 30.0, [0, 255, 0], 0.5);
        c.line(Vec2::NAN, Vec2::ONE, 1.0, [0, 0, 255], 1.0);
        c.text(Vec2::new(15.0, 8.0), "abc", 2, [255, 255, 255]);
        assert!(c.rgb.iter().all(|p| p.iter().all(|v| v.is_finite())));
    }

    #[test]
    fn default_colours_keep_clear_of_the_profiles_own() {
        // The palette's first colour set by one group, the palette's second
        // nearly so by another: the groups without a colour take neither.
        let own = [Some(PALETTE[0]), None, Some([250, 130, 20]), None, None];
        let colours = pick_colours(&own);
        assert_eq!(colours[0], PALETTE[0]);
        assert_eq!(colours[2], [250, 130, 20]);
        assert_eq!(colours[1], PALETTE[2]);
        assert_eq!(colours[3], PALETTE[3]);
        for (i, a) in colours.iter().enumerate() {
            for b in &colours[i + 1..] {
                assert!(colour_distance(*a, *b) > 48.0, "{a:?} {b:?}");
            }
        }
        // Past the palette, colours keep coming and stay apart from the last few.
        let many = pick_colours(&[None; 16]);
        for (i, a) in many.iter().enumerate() {
            assert_ne!(*a, INK);
            assert!(many[i + 1..].iter().all(|b| b != a));
        }
    }

    #[test]
    fn scale_bar_is_a_round_length_that_fits() {
        // 3 px per unit, 100 px at most: 33.3 units fit, 20 is the round one.
        assert_eq!(scale_bar(3.0, 100.0), (20.0, 60.0));
        assert_eq!(scale_bar(100.0, 100.0), (1.0, 100.0));
        let (units, px) = scale_bar(0.01, 120.0);
        assert_eq!(units, 10_000.0);
        assert!((px - 100.0).abs() < 1e-3);
        assert_eq!(scale_bar(0.0, 100.0), (0.0, 0.0));
    }

    #[test]
    fn the_header_sits_above_the_scene_and_wraps() {
        let entry = |label: &str| Entry {
            swatch: Swatch::Dot(INK),
            label: label.to_string(),
        };
        let entries: Vec<Entry> = (0..12).map(|i| entry(&format!("group_{i} 1000"))).collect();
        let header = Header::new(400, 400, entries);
        // Every entry inside the width, below the title line, and above the scene.
        let (top_left, size) = header.scene_area(400, 400);
        assert!(top_left.y >= header.height);
        assert!(top_left.y + size.y <= 400.0);
        let rows: std::collections::BTreeSet<u32> = header.at.iter().map(|a| a.y as u32).collect();
        assert!(
            rows.len() > 1,
            "twelve entries do not fit one line of 400 px"
        );
        for (e, a) in header.entries.iter().zip(&header.at) {
            assert!(a.x + Header::entry_width(1.0, &e.label) <= 400.0);
            assert!(a.y > 5.0 && a.y + 5.0 < header.height);
        }
    }
}
