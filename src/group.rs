//! Groups (archetypes): the behaviours, weights and parameters shared by every
//! agent of the group. Agents refer to their group by a small index, so the hot
//! per-agent columns stay narrow.

use serde::{Deserialize, Serialize};

use crate::behaviors::flocking::SeparationParams;
use crate::behaviors::targeting::{ArriveParams, EvadeParams, FleeParams};
use crate::behaviors::wander::WanderParams;
use crate::combine::Combination;
use crate::error::{Result, ThrongError};

/// One steering behaviour with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Behaviour {
    /// Seek the agent's target.
    Seek,
    /// Flee the agent's target.
    Flee(FleeParams),
    /// Arrive at the agent's target.
    Arrive(ArriveParams),
    /// Pursue the agent's target (an agent; a point is a still evader).
    Pursuit,
    /// Evade the agent's target (an agent; a point is a still pursuer).
    Evade(EvadeParams),
    /// Wander.
    Wander(WanderParams),
    /// Keep away from neighbours.
    Separation(SeparationParams),
    /// Move toward the neighbours' centre.
    Cohesion,
    /// Match the neighbours' heading.
    Alignment,
}

impl Behaviour {
    /// The behaviour's name as written in profiles.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Behaviour::Seek => "seek",
            Behaviour::Flee(_) => "flee",
            Behaviour::Arrive(_) => "arrive",
            Behaviour::Pursuit => "pursuit",
            Behaviour::Evade(_) => "evade",
            Behaviour::Wander(_) => "wander",
            Behaviour::Separation(_) => "separation",
            Behaviour::Cohesion => "cohesion",
            Behaviour::Alignment => "alignment",
        }
    }

    /// Whether the behaviour reads the neighbour list.
    #[must_use]
    pub fn needs_neighbours(&self) -> bool {
        matches!(
            self,
            Behaviour::Separation(_) | Behaviour::Cohesion | Behaviour::Alignment
        )
    }

    fn validate(&self, field: &str) -> Result<()> {
        let bad = |name: &str, reason: &str| {
            Err(ThrongError::InvalidParameter {
                field: format!("{field}.{name}"),
                reason: reason.to_string(),
            })
        };
        match self {
            Behaviour::Flee(p) if p.panic_distance.is_nan() || p.panic_distance < 0.0 => {
                bad("panic_distance", "must be >= 0")
            }
            Behaviour::Arrive(p) if !(p.slowing_radius >= 0.0 && p.slowing_radius.is_finite()) => {
                bad("slowing_radius", "must be finite and >= 0")
            }
            Behaviour::Evade(p) if p.threat_range.is_nan() || p.threat_range < 0.0 => {
                bad("threat_range", "must be >= 0")
            }
            Behaviour::Wander(p) => {
                for (n, v) in [
                    ("radius", p.radius),
                    ("distance", p.distance),
                    ("jitter", p.jitter),
                ] {
                    if !(v.is_finite() && v >= 0.0) {
                        return bad(n, "must be finite and >= 0");
                    }
                }
                Ok(())
            }
            Behaviour::Separation(p) => {
                if !p.strength.is_finite() {
                    return bad("strength", "must be finite");
                }
                if p.radius.is_nan() || p.radius < 0.0 {
                    return bad("radius", "must be >= 0");
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// A behaviour of a group with its weight and (for dithering) its probability.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedBehaviour {
    /// The behaviour.
    pub behaviour: Behaviour,
    /// Multiplier of the behaviour's force. Default 1.
    pub weight: f32,
    /// Probability of being evaluated in a tick, used by
    /// [`Combination::Dithered`] only. Default 1.
    pub probability: f32,
}

impl WeightedBehaviour {
    /// A behaviour with weight `weight` and probability 1.
    #[must_use]
    pub fn new(behaviour: Behaviour, weight: f32) -> Self {
        Self {
            behaviour,
            weight,
            probability: 1.0,
        }
    }
}

/// How the group's agents turn their heading.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Facing {
    /// Rate (1/s) at which the heading eases toward the velocity: each tick it
    /// covers `min(1, turn_rate * dt)` of the remaining angle (seed 001 uses
    /// `slerp(forward, velocity, dt)`, a rate of 1). Default 8.
    pub turn_rate: f32,
    /// Below this speed the heading is left alone (seed 001: |v|^2 > 0.01, so
    /// 0.1). Default 0.1.
    pub min_speed: f32,
}

impl Default for Facing {
    fn default() -> Self {
        Self {
            turn_rate: 8.0,
            min_speed: 0.1,
        }
    }
}

/// The configuration shared by every agent of a group.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupConfig {
    /// Name, for reports.
    pub name: String,
    /// Behaviours in priority order (the order matters for prioritized
    /// combination and dithering).
    pub behaviours: Vec<WeightedBehaviour>,
    /// How the behaviours are combined. Default weighted sum.
    pub combination: Combination,
    /// Neighbours are the agents within this distance (units). Default 3.
    pub neighbour_radius: f32,
    /// At most this many nearest neighbours are considered. Default 12.
    pub max_neighbours: usize,
    /// Heading control.
    pub facing: Facing,
}

impl Default for GroupConfig {
    fn default() -> Self {
        Self {
            name: String::from("group"),
            behaviours: Vec::new(),
            combination: Combination::default(),
            neighbour_radius: 3.0,
            max_neighbours: 12,
            facing: Facing::default(),
        }
    }
}

impl GroupConfig {
    /// A group named `name` with no behaviours.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Append a behaviour with a weight (lowest priority so far).
    #[must_use]
    pub fn with(mut self, behaviour: Behaviour, weight: f32) -> Self {
        self.behaviours
            .push(WeightedBehaviour::new(behaviour, weight));
        self
    }

    /// Set the combination method.
    #[must_use]
    pub fn combined_by(mut self, combination: Combination) -> Self {
        self.combination = combination;
        self
    }

    /// Set the neighbour radius and cap.
    #[must_use]
    pub fn neighbours(mut self, radius: f32, max: usize) -> Self {
        self.neighbour_radius = radius;
        self.max_neighbours = max;
        self
    }

    /// Whether any behaviour reads neighbours.
    #[must_use]
    pub fn needs_neighbours(&self) -> bool {
        self.behaviours
            .iter()
            .any(|b| b.behaviour.needs_neighbours())
    }

    /// Check every parameter; the error names the offending field.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: String, reason: &str| {
            Err(ThrongError::InvalidParameter {
                field,
                reason: reason.to_string(),
            })
        };
        if !(self.neighbour_radius.is_finite() && self.neighbour_radius >= 0.0) {
            return bad("neighbour_radius".into(), "must be finite and >= 0");
        }
        if !(self.facing.turn_rate.is_finite() && self.facing.turn_rate >= 0.0) {
            return bad("facing.turn_rate".into(), "must be finite and >= 0");
        }
        if !(self.facing.min_speed.is_finite() && self.facing.min_speed >= 0.0) {
            return bad("facing.min_speed".into(), "must be finite and >= 0");
        }
        for (i, b) in self.behaviours.iter().enumerate() {
            let field = format!("behaviours[{i}]");
            if !b.weight.is_finite() {
                return bad(format!("{field}.weight"), "must be finite");
            }
            if !(0.0..=1.0).contains(&b.probability) {
                return bad(format!("{field}.probability"), "must be in [0, 1]");
            }
            b.behaviour.validate(&field)?;
        }
        Ok(())
    }
}
