//! Quality figures of a run: the library's counter ([`throng::quality`]) fed with the
//! world's positions every [`EVERY`] ticks over the whole run, and non-finite state.

use throng::quality::{Observed, QualityCounter, QualitySettings, QualitySummary};
use throng::scenario::Scenario;
use throng::{Target, World};

/// Ticks between quality samples.
pub const EVERY: u64 = 10;

/// Samples a scenario's world for the quality counter.
pub struct Sampler {
    counter: QualityCounter,
    dt: f32,
}

impl Sampler {
    /// A sampler for `scenario`, counting crossings of its gates.
    pub fn new(scenario: &Scenario) -> Self {
        let settings = QualitySettings {
            gates: scenario.layout().gates.clone(),
            ..QualitySettings::default()
        };
        Self {
            counter: QualityCounter::new(settings),
            dt: scenario.profile().world.dt,
        }
    }

    /// Sample the world after tick `tick` (0: the start).
    pub fn sample(&mut self, tick: u64, scenario: &Scenario) {
        let w = scenario.world();
        let observed = (0..w.len()).map(|row| Observed {
            id: w.ids()[row].index() as usize,
            pos: w.positions()[row],
            radius: w.radii()[row],
            max_speed: w.max_speeds()[row],
            goal: match w.targets()[row] {
                Target::Point(p) => Some(p),
                _ => None,
            },
        });
        self.counter.sample(tick as f32 * self.dt, observed);
    }

    /// The figures so far.
    pub fn summary(&self) -> QualitySummary {
        self.counter.summary()
    }
}

/// Agents whose position, velocity or heading is not finite.
pub fn non_finite_agents(world: &World) -> u64 {
    let (p, v, h) = (world.positions(), world.velocities(), world.headings());
    (0..world.len())
        .filter(|&r| !(p[r].is_finite() && v[r].is_finite() && h[r].is_finite()))
        .count() as u64
}
