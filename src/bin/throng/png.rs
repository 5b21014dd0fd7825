//! The picture of a run (`--png`): every agent's trail coloured by group, older
//! parts fainter, the scene over it (walls, obstacles, paths, gates, targets),
//! the agents where they ended, squad leaders ringed in black, and above the
//! scene a header with the title, a legend of everything drawn and a scale bar.
//!
//! The trails are recorded as the run goes (at most [`TRAIL_POINTS`] positions
//! in all) and drawn at the end, so the view can take in all of them: a flock
//! that wanders off the scene keeps its whole trail in the picture.

use std::fs::File;
use std::io::{self, BufWriter};

use glam::Vec2;
use throng::scenario::{Rect, Scenario};
use throng::world::{DebugDraw, DebugKind};
use throng::AgentId;

use crate::draw::{self, Canvas, Header, Transform, BACKGROUND, INK};

/// Debug geometry: what the agent senses (feelers, their hits, the detection box).
const DEBUG_SENSE: [u8; 3] = [214, 39, 40];
/// Debug geometry: its neighbours.
const DEBUG_NEIGHBOUR: [u8; 3] = [31, 119, 180];
/// Debug geometry: where it aims (targets, wander, leader's points, path carrot).
const DEBUG_AIM: [u8; 3] = [148, 52, 166];

/// Most trail positions recorded over a run (8 bytes each: 64 MiB).
pub const TRAIL_POINTS: usize = 8 << 20;
/// Most samples of each trail.
const MOST_SAMPLES: u64 = 400;
/// Times the trails fade over a run.
const FADES: usize = 32;
/// Contrast left to the oldest trail after all the fades.
const OLDEST_TRAIL: f32 = 0.3;

/// Ticks between trail samples for a run of `ticks` ticks of `agents` agents:
/// up to [`MOST_SAMPLES`] samples, fewer where the agents are so many that the
/// trails would pass [`TRAIL_POINTS`].
pub fn trail_every(ticks: u64, agents: usize) -> u64 {
    let affordable = (TRAIL_POINTS / agents.max(1)) as u64;
    let samples = affordable.clamp(2, MOST_SAMPLES);
    ticks.div_ceil(samples - 1).max(1)
}

/// The picture of one run, recorded as it goes and drawn at the end.
pub struct Picture {
    size: (u32, u32),
    /// Each sample's positions by id slot (NaN where the slot has no agent).
    samples: Vec<Vec<Vec2>>,
    /// Group of each id slot, as last seen.
    groups: Vec<u16>,
}

impl Picture {
    /// Start a picture of `size` pixels.
    pub fn new(size: (u32, u32)) -> Self {
        Self {
            size,
            samples: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// Record where every agent is now.
    pub fn sample(&mut self, scenario: &Scenario) {
        let w = scenario.world();
        let slots = w
            .ids()
            .iter()
            .map(|id| id.index() as usize + 1)
            .max()
            .unwrap_or(0);
        if self.groups.len() < slots {
            self.groups.resize(slots, u16::MAX);
        }
        let mut at = vec![Vec2::NAN; slots];
        for ((id, &p), &g) in w.ids().iter().zip(w.positions()).zip(w.group_indices()) {
            at[id.index() as usize] = p;
            self.groups[id.index() as usize] = g;
        }
        self.samples.push(at);
    }

    /// The scene's view, grown to take in every recorded position.
    fn view(&self, scenario: &Scenario) -> Rect {
        let seen = self
            .samples
            .iter()
            .flatten()
            .copied()
            .filter(|p| p.is_finite());
        let view = scenario.view();
        match Rect::around(seen) {
            Some(r) if r.min.is_finite() && r.max.is_finite() => {
                let all = view.union(r);
                all.padded(0.02 * all.size().max_element())
            }
            _ => view,
        }
    }

    /// Draw the trails, the scene, the agents, the leaders, `debug`'s geometry
    /// and the header titled `title`, and write the file.
    pub fn finish(
        self,
        scenario: &Scenario,
        debug: Option<AgentId>,
        field: Option<throng::FieldId>,
        title: &str,
        file: File,
    ) -> io::Result<()> {
        let (width, height) = self.size;
        let colours = draw::group_colours(scenario);
        let header = Header::new(width, height, draw::legend(scenario, &colours, true));
        let (top_left, area) = header.scene_area(width, height);
        let tf = Transform::fit(self.view(scenario), top_left, area);
        let mut canvas = Canvas::new(width, height, BACKGROUND);
        self.trails(&mut canvas, tf, &colours, scenario.world().len());
        // Over the trails, half transparent (the trails fade the canvas as they are
        // drawn, so a field drawn first would fade with them).
        if let Some(f) = field.and_then(|f| scenario.world().goal_field(f)) {
            draw::draw_field(&mut canvas, tf, (top_left, area), f);
        }
        draw::draw_scene(&mut canvas, tf, scenario, &colours);
        let line = draw::line_width(self.size);
        let w = scenario.world();
        let min_dot = 1.2 * (width.min(height) as f32 / 1024.0).max(0.75);
        for ((p, &r), &g) in w.positions().iter().zip(w.radii()).zip(w.group_indices()) {
            let c = colours.get(g as usize).copied().unwrap_or(INK);
            canvas.disc(tf.px(*p), (r * tf.scale).clamp(min_dot, 12.0), c, 1.0);
        }
        let leader_r = (3.0 * min_dot).max(4.0);
        for &id in scenario.leaders() {
            if let (Ok(p), Ok(g)) = (w.position(id), w.agent_group(id)) {
                let q = tf.px(p);
                let c = colours.get(g.index()).copied().unwrap_or(INK);
                canvas.disc(q, leader_r, c, 1.0);
                canvas.ring(q, leader_r, leader_r + 1.5 * line, INK, 1.0);
            }
        }
        if let Some(id) = debug {
            debug_geometry(&mut canvas, tf, w, id, line);
        }
        header.draw(&mut canvas, tf);
        header.title(&mut canvas, title);
        let mut rgb = Vec::new();
        canvas.to_rgb8(&mut rgb);
        write_png(file, self.size, &rgb)
    }

    /// Draw every trail, sample by sample, fading what is drawn already
    /// [`FADES`] times over the run so that the direction of travel shows.
    fn trails(&self, canvas: &mut Canvas, tf: Transform, colours: &[[u8; 3]], agents: usize) {
        let (width, height) = self.size;
        // Fainter trails as agents crowd the picture.
        let pixels = width as f32 * height as f32;
        let alpha = (0.4 * (pixels / (agents.max(1) as f32 * 400.0)).sqrt()).clamp(0.06, 0.35);
        let line = 0.8 * (width.min(height) as f32 / 1024.0).max(0.6);
        let fade_every = (self.samples.len() / FADES).max(1);
        let keep = OLDEST_TRAIL.powf(1.0 / FADES as f32);
        // Last drawn point of each trail, in pixels.
        let mut last = vec![Vec2::NAN; self.groups.len()];
        for (k, sample) in self.samples.iter().enumerate() {
            if k > 0 && k % fade_every == 0 {
                canvas.fade_toward(BACKGROUND, keep);
            }
            for (slot, &p) in sample.iter().enumerate() {
                let q = tf.px(p);
                let prev = last[slot];
                if !q.is_finite() {
                    last[slot] = Vec2::NAN;
                } else if !prev.is_finite() {
                    last[slot] = q;
                } else if prev.distance_squared(q) > 0.04 {
                    let c = colours
                        .get(self.groups[slot] as usize)
                        .copied()
                        .unwrap_or(INK);
                    canvas.line(prev, q, line, c, alpha);
                    last[slot] = q;
                }
            }
        }
    }
}

/// Encode 8-bit RGB pixels as a PNG.
fn write_png(file: File, (width, height): (u32, u32), rgb: &[u8]) -> io::Result<()> {
    let mut enc = ::png::Encoder::new(BufWriter::new(file), width, height);
    enc.set_color(::png::ColorType::Rgb);
    enc.set_depth(::png::BitDepth::Eight);
    enc.set_compression(::png::Compression::High);
    let mut writer = enc.write_header().map_err(io::Error::other)?;
    writer.write_image_data(rgb).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

/// One agent's debug geometry ([`throng::World::debug_draw`]) over the scene.
fn debug_geometry(
    canvas: &mut Canvas,
    tf: Transform,
    world: &throng::World,
    id: AgentId,
    line: f32,
) {
    let mut draw = DebugDraw::default();
    if world.debug_draw(id, &mut draw).is_err() {
        return;
    }
    let colour = |kind: DebugKind| match kind {
        DebugKind::Feeler | DebugKind::FeelerHit | DebugKind::DetectionBox => DEBUG_SENSE,
        DebugKind::Neighbour => DEBUG_NEIGHBOUR,
        DebugKind::Velocity | DebugKind::Force => INK,
        _ => DEBUG_AIM,
    };
    for c in &draw.circles {
        let (q, r) = (tf.px(c.centre), c.radius * tf.scale);
        canvas.ring(q, (r - line).max(0.0), r, colour(c.kind), 0.9);
    }
    for l in &draw.lines {
        canvas.line(tf.px(l.from), tf.px(l.to), line, colour(l.kind), 0.9);
    }
    for p in &draw.points {
        canvas.disc(tf.px(p.at), 2.5 * line, colour(p.kind), 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trail_samples_fit_the_budget() {
        // A small crowd gets the full count of samples over a long run...
        assert_eq!(trail_every(900, 1_000), 3);
        assert_eq!(trail_every(10, 1_000), 1);
        // ...a huge one fewer, within the budget.
        let every = trail_every(600, 1_000_000);
        let samples = 600 / every + 1;
        assert!(
            samples as usize * 1_000_000 <= TRAIL_POINTS + 1_000_000,
            "{samples}"
        );
        assert!(samples >= 2);
    }
}
