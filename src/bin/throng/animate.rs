//! The run as an animation (`--animate FILE`): an animated GIF, or an animated
//! PNG (APNG) when the file's name ends in `.png` or `.apng`. Each frame is the
//! scene with every agent as a dot of its group's colour with a tick showing
//! its heading, squad leaders ringed, and a header with the tick, the time and
//! the legend. The view is the scene's, fixed before the run (the profile's
//! `bounds`, or what it places): an agent that wanders out of it is not drawn
//! until it comes back.
//!
//! Frames are encoded as they are drawn, so memory holds two frames whatever
//! the run's length. Colours come from one fixed palette (each drawn colour
//! blended toward the background in steps), so they do not flicker from frame
//! to frame; a GIF frame after the first stores only the rectangle that
//! changed, with unchanged pixels transparent.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

use glam::Vec2;
use throng::scenario::Scenario;

use crate::draw::{
    self, Canvas, Header, Transform, BACKGROUND, GATE, INK, OBSTACLE, PAPER, PATH, WALL,
};

/// The file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Gif,
    /// Animated PNG.
    Apng,
}

impl Format {
    /// The format a file name asks for: `.gif`, or `.png` / `.apng`.
    pub fn of(path: &Path) -> Result<Self, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("gif") => Ok(Format::Gif),
            Some("png" | "apng") => Ok(Format::Apng),
            _ => Err(format!(
                "cannot tell the animation's format from {}: name it FILE.gif (GIF) or \
                 FILE.png / FILE.apng (animated PNG)",
                path.display()
            )),
        }
    }

    /// Rough bytes a frame of `pixels` pixels takes in the file: measured on the
    /// bundled profiles at 640x640 (city, flock, arena, leader_squads, circle:
    /// GIF 0.02-0.10 bytes a pixel, APNG 0.03-0.14), with room for crowds that
    /// fill more of the picture.
    pub fn bytes_per_frame(self, pixels: u64) -> u64 {
        match self {
            Format::Gif => pixels / 4,
            Format::Apng => pixels / 3,
        }
    }
}

/// Largest animation file the command line writes without being asked to
/// write less, by its estimate.
pub const MAX_ESTIMATED_BYTES: u64 = 1 << 30;

/// Frames of a run of `ticks` ticks with one every `every` ticks: the start,
/// every `every`-th tick, and the last tick whatever `every`.
pub fn frame_count(ticks: u64, every: u64) -> u64 {
    1 + ticks / every + u64::from(!ticks.is_multiple_of(every))
}

/// Index of the transparent colour in GIF frames.
const TRANSPARENT: u8 = 255;

/// A fixed palette: the background, then each drawn colour blended toward the
/// background in equal steps; colours are mapped to their nearest entry.
struct Palette {
    rgb: Vec<[u8; 3]>,
    nearest: HashMap<[u8; 3], u8>,
}

impl Palette {
    fn new(colours: &[[u8; 3]], field: bool) -> Self {
        let mut bases: Vec<[u8; 3]> = vec![INK, WALL, OBSTACLE, PATH, GATE, PAPER];
        if field {
            bases.extend(draw::FIELD_COLOURS);
        }
        for c in colours {
            if !bases.contains(c) {
                bases.push(*c);
            }
        }
        // Index 255 stays free for transparency.
        let steps = (254 / bases.len()).clamp(1, 24);
        let mut rgb = vec![BACKGROUND];
        for base in bases.iter().take(254) {
            for k in 1..=steps {
                let t = k as f32 / steps as f32;
                let mix = |i: usize| {
                    draw::to_u8(
                        (f32::from(BACKGROUND[i])
                            + (f32::from(base[i]) - f32::from(BACKGROUND[i])) * t)
                            / 255.0,
                    )
                };
                if rgb.len() < 255 {
                    rgb.push([mix(0), mix(1), mix(2)]);
                }
            }
        }
        Self {
            rgb,
            nearest: HashMap::new(),
        }
    }

    /// The index of the entry nearest `c`.
    fn index(&mut self, c: [u8; 3]) -> u8 {
        if c == BACKGROUND {
            return 0;
        }
        let rgb = &self.rgb;
        *self.nearest.entry(c).or_insert_with(|| {
            let d = |p: &[u8; 3]| -> i32 {
                (0..3)
                    .map(|i| (i32::from(p[i]) - i32::from(c[i])).pow(2))
                    .sum()
            };
            (0..rgb.len())
                .min_by_key(|&i| d(&rgb[i]))
                .map_or(0, |i| i as u8)
        })
    }

    /// `[r, g, b, ...]`, 256 entries (unused ones black).
    fn flat(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self.rgb.iter().flatten().copied().collect();
        out.resize(256 * 3, 0);
        out
    }
}

/// The encoders.
enum Encoder {
    Gif(gif::Encoder<BufWriter<File>>),
    Apng(::png::Writer<BufWriter<File>>),
}

/// An animation being written.
pub struct Animation {
    header: Header,
    tf: Transform,
    colours: Vec<[u8; 3]>,
    /// The scene and the header's legend, drawn once.
    backdrop: Canvas,
    frame: Canvas,
    palette: Palette,
    rgb: Vec<u8>,
    indices: Vec<u8>,
    previous: Vec<u8>,
    encoder: Encoder,
    /// Frame time in hundredths of a second.
    delay: u16,
    frames: u64,
}

impl Animation {
    /// Start an animation of `frames` frames of `size` pixels, each shown for
    /// `delay` hundredths of a second, into `file`.
    pub fn new(
        file: File,
        format: Format,
        size: (u32, u32),
        scenario: &Scenario,
        field: Option<throng::FieldId>,
        frames: u64,
        delay: u16,
    ) -> io::Result<Self> {
        let (width, height) = size;
        let colours = draw::group_colours(scenario);
        let header = Header::new(width, height, draw::legend(scenario, &colours, false));
        let (top_left, area) = header.scene_area(width, height);
        let tf = Transform::fit(scenario.view(), top_left, area);
        let mut backdrop = Canvas::new(width, height, BACKGROUND);
        let field = field.and_then(|f| scenario.world().goal_field(f));
        if let Some(f) = field {
            draw::draw_field(&mut backdrop, tf, (top_left, area), f);
        }
        draw::draw_scene(&mut backdrop, tf, scenario, &colours);
        header.draw(&mut backdrop, tf);
        let palette = Palette::new(&colours, field.is_some());
        let out = BufWriter::with_capacity(1 << 20, file);
        let encoder = match format {
            Format::Gif => {
                let (w, h) = (gif_side(width)?, gif_side(height)?);
                let mut enc =
                    gif::Encoder::new(out, w, h, &palette.flat()).map_err(io::Error::other)?;
                enc.set_repeat(gif::Repeat::Infinite)
                    .map_err(io::Error::other)?;
                Encoder::Gif(enc)
            }
            Format::Apng => {
                let mut enc = ::png::Encoder::new(out, width, height);
                enc.set_color(::png::ColorType::Indexed);
                enc.set_depth(::png::BitDepth::Eight);
                enc.set_palette(palette.flat());
                let count = u32::try_from(frames)
                    .map_err(|_| io::Error::other("too many frames for an animated PNG"))?;
                enc.set_animated(count, 0).map_err(io::Error::other)?;
                enc.set_frame_delay(delay, 100).map_err(io::Error::other)?;
                Encoder::Apng(enc.write_header().map_err(io::Error::other)?)
            }
        };
        Ok(Self {
            header,
            tf,
            colours,
            frame: Canvas::new(width, height, BACKGROUND),
            backdrop,
            palette,
            rgb: Vec::new(),
            indices: Vec::new(),
            previous: Vec::new(),
            encoder,
            delay,
            frames: 0,
        })
    }

    /// Draw the world as it is now, under `title`, and encode the frame.
    pub fn frame(&mut self, scenario: &Scenario, title: &str) -> io::Result<()> {
        self.frame.copy_from(&self.backdrop);
        let (width, height) = self.frame.size();
        let tf = self.tf;
        let w = scenario.world();
        let min_dot = 1.5 * (width.min(height) as f32 / 640.0).max(0.75);
        for (((p, &r), &g), &h) in w
            .positions()
            .iter()
            .zip(w.radii())
            .zip(w.group_indices())
            .zip(w.headings())
        {
            let c = self.colours.get(g as usize).copied().unwrap_or(INK);
            let q = tf.px(*p);
            let rad = (r * tf.scale).clamp(min_dot, 10.0);
            self.frame.disc(q, rad, c, 1.0);
            // Heading is clockwise from +y; the picture's y grows downward.
            let dir = Vec2::new(h.sin(), -h.cos());
            self.frame.line(
                q,
                q + dir * (rad + min_dot * 1.5),
                (rad * 0.6).max(1.0),
                c,
                1.0,
            );
        }
        for &id in scenario.leaders() {
            if let Ok(p) = w.position(id) {
                let q = tf.px(p);
                let rad = 3.0 * min_dot;
                self.frame.ring(q, rad, rad + min_dot, INK, 1.0);
            }
        }
        self.header.title(&mut self.frame, title);
        self.frame.to_rgb8(&mut self.rgb);
        std::mem::swap(&mut self.indices, &mut self.previous);
        self.indices.clear();
        for px in self.rgb.chunks_exact(3) {
            self.indices.push(self.palette.index([px[0], px[1], px[2]]));
        }
        match &mut self.encoder {
            Encoder::Gif(enc) => {
                let frame = gif_frame(&self.indices, &self.previous, width, self.delay);
                enc.write_frame(&frame).map_err(io::Error::other)?;
            }
            Encoder::Apng(enc) => enc
                .write_image_data(&self.indices)
                .map_err(io::Error::other)?,
        }
        self.frames += 1;
        Ok(())
    }

    /// Finish the file; returns the number of frames.
    pub fn finish(self) -> io::Result<u64> {
        let out = match self.encoder {
            Encoder::Gif(enc) => enc.into_inner().map_err(io::Error::other)?,
            Encoder::Apng(enc) => {
                enc.finish().map_err(io::Error::other)?;
                return Ok(self.frames);
            }
        };
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(self.frames)
    }
}

/// A GIF side: at most 65,535 pixels.
fn gif_side(n: u32) -> io::Result<u16> {
    u16::try_from(n).map_err(|_| io::Error::other("a GIF is at most 65535 pixels a side"))
}

/// The GIF frame for `now` after `before` (empty for the first frame): the
/// rectangle that changed, pixels that did not change in it transparent.
fn gif_frame<'a>(now: &'a [u8], before: &[u8], width: u32, delay: u16) -> gif::Frame<'a> {
    let width = width as usize;
    let height = now.len() / width.max(1);
    let mut frame = gif::Frame {
        delay,
        dispose: gif::DisposalMethod::Keep,
        ..gif::Frame::default()
    };
    if before.len() != now.len() {
        frame.width = width as u16;
        frame.height = height as u16;
        frame.buffer = now.into();
        return frame;
    }
    let (mut x0, mut y0, mut x1, mut y1) = (width, height, 0, 0);
    for y in 0..height {
        let row = y * width..(y + 1) * width;
        let (a, b) = (&now[row.clone()], &before[row]);
        if let Some(first) = a.iter().zip(b).position(|(p, q)| p != q) {
            let last = width
                - 1
                - a.iter()
                    .rev()
                    .zip(b.iter().rev())
                    .position(|(p, q)| p != q)
                    .unwrap_or(0);
            x0 = x0.min(first);
            x1 = x1.max(last);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 {
        // Nothing changed: one transparent pixel keeps the frame's time.
        (x0, y0, x1, y1) = (0, 0, 0, 0);
    }
    let mut buffer = Vec::with_capacity((x1 - x0 + 1) * (y1 - y0 + 1));
    for y in y0..=y1 {
        for x in x0..=x1 {
            let i = y * width + x;
            buffer.push(if now[i] == before[i] {
                TRANSPARENT
            } else {
                now[i]
            });
        }
    }
    frame.left = x0 as u16;
    frame.top = y0 as u16;
    frame.width = (x1 - x0 + 1) as u16;
    frame.height = (y1 - y0 + 1) as u16;
    frame.transparent = Some(TRANSPARENT);
    frame.buffer = buffer.into();
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of(Path::new("a/crowd.gif")), Ok(Format::Gif));
        assert_eq!(Format::of(Path::new("crowd.GIF")), Ok(Format::Gif));
        assert_eq!(Format::of(Path::new("crowd.png")), Ok(Format::Apng));
        assert_eq!(Format::of(Path::new("crowd.apng")), Ok(Format::Apng));
        assert!(Format::of(Path::new("crowd.mp4"))
            .unwrap_err()
            .contains("FILE.gif"));
        assert!(Format::of(Path::new("crowd")).is_err());
    }

    #[test]
    fn frames_are_the_start_every_kth_tick_and_the_end() {
        assert_eq!(frame_count(10, 5), 3); // 0, 5, 10
        assert_eq!(frame_count(11, 5), 4); // 0, 5, 10, 11
        assert_eq!(frame_count(1, 1), 2);
    }

    #[test]
    fn the_palette_keeps_its_colours_and_the_background() {
        let mut p = Palette::new(&[[31, 119, 180]], false);
        assert!(p.rgb.len() <= 255);
        assert_eq!(p.index(BACKGROUND), 0);
        let blue = p.index([31, 119, 180]);
        assert_eq!(p.rgb[blue as usize], [31, 119, 180]);
        let ink = p.index(INK);
        assert_eq!(p.rgb[ink as usize], INK);
        // A colour off the palette maps to a near one, the same every time.
        let near = p.index([35, 115, 185]);
        assert_eq!(near, blue);
    }

    #[test]
    fn a_gif_frame_keeps_only_what_changed() {
        // 4 x 3; one pixel changes at (2, 1) and one at (1, 2).
        let before = vec![0u8; 12];
        let mut now = before.clone();
        now[6] = 7;
        now[9] = 8;
        let f = gif_frame(&now, &before, 4, 3);
        assert_eq!((f.left, f.top, f.width, f.height), (1, 1, 2, 2));
        assert_eq!(&f.buffer[..], &[TRANSPARENT, 7, 8, TRANSPARENT]);
        assert_eq!(f.transparent, Some(TRANSPARENT));
        assert_eq!(f.delay, 3);
        // The first frame is whole and opaque; an unchanged one is one clear pixel.
        let first = gif_frame(&now, &[], 4, 3);
        assert_eq!((first.width, first.height, first.transparent), (4, 3, None));
        let same = gif_frame(&now, &now, 4, 3);
        assert_eq!(
            (same.width, same.height, &same.buffer[..]),
            (1, 1, &[TRANSPARENT][..])
        );
    }
}
