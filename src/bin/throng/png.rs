//! The picture of a run: the scene (walls, obstacles, paths), every agent's
//! trail coloured by group, the agents where they ended, squad leaders ringed
//! in black, fixed targets as crosses, and a legend.
//!
//! Drawn into an RGBA buffer with anti-aliased capsules (lines) and discs, then
//! encoded with the `png` crate. Trails are drawn as the run goes, so memory
//! stays at one position per agent.

use std::fs::File;
use std::io::{self, BufWriter};

use glam::Vec2;
use throng::scenario::{Rect, Scenario};
use throng::world::{DebugDraw, DebugKind};
use throng::AgentId;

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
const BACKGROUND: [u8; 3] = [250, 250, 246];
const WALL: [u8; 3] = [40, 40, 40];
const OBSTACLE: [u8; 3] = [150, 150, 150];
const PATH: [u8; 3] = [70, 70, 70];
const INK: [u8; 3] = [20, 20, 20];
/// Debug geometry: what the agent senses (feelers, their hits, the detection box).
const DEBUG_SENSE: [u8; 3] = [214, 39, 40];
/// Debug geometry: its neighbours.
const DEBUG_NEIGHBOUR: [u8; 3] = [31, 119, 180];
/// Debug geometry: where it aims (targets, wander, leader's points, path carrot).
const DEBUG_AIM: [u8; 3] = [148, 52, 166];

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

    /// Encode as an 8-bit RGB PNG.
    pub fn write_png(&self, file: File) -> io::Result<()> {
        let mut enc = ::png::Encoder::new(BufWriter::new(file), self.width, self.height);
        enc.set_color(::png::ColorType::Rgb);
        enc.set_depth(::png::BitDepth::Eight);
        enc.set_compression(::png::Compression::High);
        let mut writer = enc.write_header().map_err(io::Error::other)?;
        let mut data = Vec::with_capacity(self.rgb.len() * 3);
        for px in &self.rgb {
            for v in px {
                data.push((v.clamp(0.0, 1.0) * 255.0).round() as u8);
            }
        }
        writer.write_image_data(&data).map_err(io::Error::other)?;
        writer.finish().map_err(io::Error::other)
    }
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
        _ => "000000000000000",
    };
    rows.bytes()
        .fold(0u16, |acc, b| (acc << 1) | u16::from(b == b'1'))
}

/// World-to-pixel mapping: the view fitted into the image, y up.
#[derive(Clone, Copy)]
struct Transform {
    scale: f32,
    offset: Vec2,
    height: f32,
}

impl Transform {
    fn fit(view: Rect, width: u32, height: u32) -> Self {
        let size = view.size().max(Vec2::splat(1e-3));
        let scale = (width as f32 / size.x).min(height as f32 / size.y);
        let used = size * scale;
        let margin = (Vec2::new(width as f32, height as f32) - used) * 0.5;
        Self {
            scale,
            offset: margin - view.min * scale,
            height: height as f32,
        }
    }

    fn px(&self, p: Vec2) -> Vec2 {
        let q = p * self.scale + self.offset;
        Vec2::new(q.x, self.height - q.y)
    }
}

/// Times the trails fade over a run.
const FADES: u64 = 32;
/// Contrast left to the oldest trail after all the fades.
const OLDEST_TRAIL: f32 = 0.3;

/// The picture of one run, drawn as it goes.
pub struct Picture {
    canvas: Canvas,
    tf: Transform,
    /// Last drawn position of each agent, by id slot.
    last: Vec<Vec2>,
    colours: Vec<[u8; 3]>,
    trail_alpha: f32,
    samples: u64,
    fade_every: u64,
}

impl Picture {
    /// Start a picture of `size` pixels that will get `samples` calls to
    /// [`Picture::sample`]. Older parts of the trails fade, so the direction of
    /// travel shows.
    pub fn new(size: (u32, u32), scenario: &Scenario, samples: u64) -> Self {
        let canvas = Canvas::new(size.0, size.1, BACKGROUND);
        let tf = Transform::fit(scenario.view(), size.0, size.1);
        let colours = scenario
            .groups()
            .iter()
            .enumerate()
            .map(|(i, g)| g.colour.unwrap_or(PALETTE[i % PALETTE.len()]))
            .collect();
        // Fainter trails as agents crowd the picture.
        let n = scenario.world().len().max(1) as f32;
        let pixels = size.0 as f32 * size.1 as f32;
        let trail_alpha = (0.4 * (pixels / (n * 400.0)).sqrt()).clamp(0.06, 0.35);
        Self {
            canvas,
            tf,
            last: Vec::new(),
            colours,
            trail_alpha,
            samples: 0,
            fade_every: (samples / FADES).max(1),
        }
    }

    /// Move every pixel a step back toward the background.
    fn fade(&mut self) {
        let f = OLDEST_TRAIL.powf(1.0 / FADES as f32);
        let bg = to_f(BACKGROUND);
        for px in &mut self.canvas.rgb {
            for (v, b) in px.iter_mut().zip(bg) {
                *v = b + (*v - b) * f;
            }
        }
    }

    /// Extend every agent's trail to where it is now.
    pub fn sample(&mut self, scenario: &Scenario) {
        self.samples += 1;
        if self.samples.is_multiple_of(self.fade_every) {
            self.fade();
        }
        let w = scenario.world();
        let slots = w
            .ids()
            .iter()
            .map(|id| id.index() as usize + 1)
            .max()
            .unwrap_or(0);
        if self.last.len() < slots {
            self.last.resize(slots, Vec2::NAN);
        }
        let width = 0.8 * (self.canvas.width.min(self.canvas.height) as f32 / 1024.0).max(0.6);
        for ((id, &p), &g) in w.ids().iter().zip(w.positions()).zip(w.group_indices()) {
            let q = self.tf.px(p);
            let slot = id.index() as usize;
            let prev = self.last[slot];
            if prev.is_finite() && q.is_finite() && prev.distance_squared(q) > 0.04 {
                let c = self.colours.get(g as usize).copied().unwrap_or(INK);
                self.canvas.line(prev, q, width, c, self.trail_alpha);
                self.last[slot] = q;
            } else if !prev.is_finite() {
                self.last[slot] = q;
            }
        }
    }

    /// Draw the walls, obstacles, targets, agents, leaders and legend, and
    /// write the file.
    pub fn finish(
        mut self,
        scenario: &Scenario,
        debug: Option<AgentId>,
        file: File,
    ) -> io::Result<()> {
        let size = (self.canvas.width, self.canvas.height);
        let line = line_width(size);
        let tf = self.tf;
        for path in &scenario.layout().paths {
            for (a, b) in path.segments() {
                dashed(&mut self.canvas, tf.px(a), tf.px(b), line, PATH);
            }
        }
        for o in &scenario.layout().obstacles {
            let c = tf.px(o.centre);
            let r = o.radius * tf.scale;
            self.canvas.disc(c, r, OBSTACLE, 0.55);
            self.canvas.ring(c, (r - line).max(0.0), r, WALL, 0.9);
        }
        for w in &scenario.layout().walls {
            self.canvas
                .line(tf.px(w.a), tf.px(w.b), line * 1.6, WALL, 1.0);
        }
        let mark = 4.0 * line;
        for &(g, p) in scenario.markers() {
            let q = tf.px(p);
            let c = self.colours.get(g).copied().unwrap_or(INK);
            for d in [Vec2::new(mark, mark), Vec2::new(mark, -mark)] {
                self.canvas.line(q - d, q + d, line * 1.4, INK, 1.0);
                self.canvas.line(q - d, q + d, line * 0.6, c, 1.0);
            }
        }
        let w = scenario.world();
        let min_dot = 1.2 * (size.0.min(size.1) as f32 / 1024.0).max(0.75);
        for ((p, &r), &g) in w.positions().iter().zip(w.radii()).zip(w.group_indices()) {
            let c = self.colours.get(g as usize).copied().unwrap_or(INK);
            self.canvas
                .disc(tf.px(*p), (r * tf.scale).clamp(min_dot, 12.0), c, 1.0);
        }
        let leader_r = (3.0 * min_dot).max(4.0);
        for &id in scenario.leaders() {
            if let (Ok(p), Ok(g)) = (w.position(id), w.agent_group(id)) {
                let q = tf.px(p);
                let c = self.colours.get(g.index()).copied().unwrap_or(INK);
                self.canvas.disc(q, leader_r, c, 1.0);
                self.canvas
                    .ring(q, leader_r, leader_r + 1.5 * line, INK, 1.0);
            }
        }
        if let Some(id) = debug {
            self.debug(scenario.world(), id, line);
        }
        self.legend(scenario);
        self.canvas.write_png(file)
    }

    /// One agent's debug geometry ([`throng::World::debug_draw`]) over the scene.
    fn debug(&mut self, world: &throng::World, id: AgentId, line: f32) {
        let mut draw = DebugDraw::default();
        if world.debug_draw(id, &mut draw).is_err() {
            return;
        }
        let tf = self.tf;
        let colour = |kind: DebugKind| match kind {
            DebugKind::Feeler | DebugKind::FeelerHit | DebugKind::DetectionBox => DEBUG_SENSE,
            DebugKind::Neighbour => DEBUG_NEIGHBOUR,
            DebugKind::Velocity | DebugKind::Force => INK,
            _ => DEBUG_AIM,
        };
        for c in &draw.circles {
            let (q, r) = (tf.px(c.centre), c.radius * tf.scale);
            self.canvas
                .ring(q, (r - line).max(0.0), r, colour(c.kind), 0.9);
        }
        for l in &draw.lines {
            self.canvas
                .line(tf.px(l.from), tf.px(l.to), line, colour(l.kind), 0.9);
        }
        for p in &draw.points {
            self.canvas
                .disc(tf.px(p.at), 2.5 * line, colour(p.kind), 1.0);
        }
    }

    fn legend(&mut self, scenario: &Scenario) {
        let scale = if self.canvas.width.min(self.canvas.height) >= 600 {
            2
        } else {
            1
        };
        let line_h = 8.0 * scale as f32;
        let pad = 4.0 * scale as f32;
        let groups = scenario.groups();
        let mut entries: Vec<(String, [u8; 3], bool)> = groups
            .iter()
            .zip(&self.colours)
            .map(|(g, &c)| (format!("{} {}", g.name, g.count), c, false))
            .collect();
        if !scenario.leaders().is_empty() {
            entries.push(("leaders".to_string(), INK, true));
        }
        let p = scenario.profile();
        let title = format!(
            "{} - {} agents, {}",
            p.name,
            scenario.world().len(),
            crate::plural(
                usize::try_from(scenario.world().tick()).unwrap_or(usize::MAX),
                "tick"
            )
        );
        let chars = entries
            .iter()
            .map(|e| e.0.len() + 3)
            .chain([title.len()])
            .max()
            .unwrap_or(0);
        let box_w = chars as f32 * 4.0 * scale as f32 + 2.0 * pad;
        let box_h = (entries.len() + 1) as f32 * line_h + 2.0 * pad;
        let origin = Vec2::splat(pad);
        self.canvas.fill_rect(
            origin,
            origin + Vec2::new(box_w, box_h),
            [255, 255, 255],
            0.85,
        );
        let mut at = origin + Vec2::splat(pad);
        self.canvas.text(at, &title, scale, INK);
        at.y += line_h;
        for (label, c, leader) in entries {
            let centre = at + Vec2::new(2.5, 2.5) * scale as f32;
            let r = 2.5 * scale as f32;
            if leader {
                self.canvas.ring(centre, r * 0.6, r, INK, 1.0);
            } else {
                self.canvas.disc(centre, r, c, 1.0);
            }
            self.canvas
                .text(at + Vec2::new(12.0 * scale as f32, 0.0), &label, scale, INK);
            at.y += line_h;
        }
    }
}

/// Width of scene lines: about 1.5 px at 1024 px.
fn line_width(size: (u32, u32)) -> f32 {
    (1.5 * size.0.min(size.1) as f32 / 1024.0).max(1.0)
}

/// A dashed segment.
fn dashed(canvas: &mut Canvas, a: Vec2, b: Vec2, width: f32, colour: [u8; 3]) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_have_fifteen_bits() {
        assert_eq!(glyph('_'), 0b111);
        assert_eq!(glyph('A'), glyph('a'));
        assert_eq!(glyph('~'), 0);
        assert_eq!(glyph('h').count_ones(), 11);
    }

    #[test]
    fn transform_fits_and_flips() {
        let view = Rect::from_corners(Vec2::new(-10.0, -5.0), Vec2::new(10.0, 5.0));
        let tf = Transform::fit(view, 200, 200);
        // 20 wide into 200 px: 10 px per unit, centred vertically.
        assert_eq!(tf.px(Vec2::new(-10.0, 5.0)), Vec2::new(0.0, 50.0));
        assert_eq!(tf.px(Vec2::new(10.0, -5.0)), Vec2::new(200.0, 150.0));
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
}
