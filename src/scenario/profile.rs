//! The validated profile: every value checked, every name resolved, ready to
//! build a world from. [`Profile::with_overrides`] applies the command line's
//! agent count, seed and tick count.

use glam::Vec2;

use super::layout::Layout;
use super::spawn::Shape;
use crate::group::GroupConfig;
use crate::integrate::Integrator;
use crate::spatial::IndexKind;

/// Walls and path segments shorter than this (units) have no direction.
pub const MIN_SEGMENT_LENGTH: f32 = 1e-4;

/// The largest coordinate a profile may write (units). `f32` positions are
/// good to a sixteenth of a unit there, and lose precision beyond.
pub const MAX_COORDINATE: f32 = 1e6;

/// The most agents one group may ask for.
pub const MAX_GROUP_COUNT: i64 = 50_000_000;

/// World settings of a validated profile.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSpec {
    /// Seed of every random stream.
    pub seed: u64,
    /// Seconds per tick (> 0).
    pub dt: f32,
    /// Timed ticks (>= 1).
    pub ticks: u64,
    /// Untimed ticks first.
    pub warmup: u64,
    /// Integrator.
    pub integrator: Integrator,
    /// Neighbour index.
    pub index: IndexKind,
    /// Spatial re-sort interval.
    pub reorder_interval: u32,
    /// Level of detail around a point, if any.
    pub level_of_detail: Option<crate::world::LevelOfDetail>,
}

pub use crate::group::Movement;

/// Direction of the initial velocity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InitialDirection {
    /// Random per agent.
    #[default]
    Random,
    /// Toward the agent's target.
    ToTarget,
}

/// The physical parameters of a group's agents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySpec {
    /// Mass (> 0).
    pub mass: f32,
    /// Maximum speed (>= 0).
    pub max_speed: f32,
    /// Standard deviation of the agents' maximum speeds about `max_speed` (>= 0;
    /// clamped at two deviations).
    pub max_speed_spread: f32,
    /// Maximum force (>= 0).
    pub max_force: f32,
    /// Body radius (>= 0).
    pub radius: f32,
    /// Initial speed (>= 0).
    pub initial_speed: f32,
    /// Initial direction.
    pub initial_direction: InitialDirection,
}

/// What a group's agents aim at.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum TargetSpec {
    /// Nothing.
    #[default]
    None,
    /// A fixed point.
    Point(Vec2),
    /// `start + offset`.
    Shift(Vec2),
    /// `2 * centre - start`.
    Antipode {
        /// The centre of symmetry.
        centre: Vec2,
    },
    /// The nearest agent of the group with this index.
    AgentOfGroup(usize),
    /// A point moving along a path.
    MovingPoint {
        /// Index of the path in the scene.
        path: usize,
        /// Speed along it (>= 0).
        speed: f32,
        /// Shared start distance, or each agent's nearest point.
        start: Option<f32>,
        /// Added to the start distance.
        lead: f32,
    },
}

impl TargetSpec {
    fn scaled(self, s: f32) -> Self {
        match self {
            TargetSpec::Point(p) => TargetSpec::Point(p * s),
            TargetSpec::Shift(d) => TargetSpec::Shift(d * s),
            TargetSpec::Antipode { centre } => TargetSpec::Antipode { centre: centre * s },
            TargetSpec::MovingPoint {
                path,
                speed,
                start,
                lead,
            } => TargetSpec::MovingPoint {
                path,
                speed,
                start: start.map(|d| d * s),
                lead: lead * s,
            },
            other => other,
        }
    }
}

/// A validated group.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    /// Unique name.
    pub name: String,
    /// Agents.
    pub count: usize,
    /// Where they start.
    pub spawn: Shape,
    /// How they move.
    pub movement: Movement,
    /// Behaviours, combination, neighbour settings, facing.
    pub config: GroupConfig,
    /// Physical parameters.
    pub body: BodySpec,
    /// What they aim at (squads override it for followers).
    pub target: TargetSpec,
    /// The second target (interpose), never a moving point.
    pub target2: TargetSpec,
    /// Colour in pictures, if the profile gives one.
    pub colour: Option<[u8; 3]>,
    /// Its agents leave the world on arriving.
    pub leave_on_arrival: bool,
}

/// A validated squad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquadSpec {
    /// Index of the leader group.
    pub leader_group: usize,
    /// Index of the follower group.
    pub follower_group: usize,
    /// Number of leaders (the first agents of the leader group), >= 1.
    pub count: usize,
}

/// A validated profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// World settings.
    pub world: WorldSpec,
    /// Walls, obstacles, paths, bounds.
    pub layout: Layout,
    /// Groups, in spawn order.
    pub groups: Vec<GroupSpec>,
    /// Squads.
    pub squads: Vec<SquadSpec>,
}

/// Command-line changes to a profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Total agents: every group's count scales in proportion, and the scene
    /// with the square root of the ratio, so density stays the same.
    pub agents: Option<usize>,
    /// World seed.
    pub seed: Option<u64>,
    /// Timed ticks.
    pub ticks: Option<u64>,
}

impl Profile {
    /// Agents over all groups.
    #[must_use]
    pub fn total_agents(&self) -> usize {
        self.groups.iter().map(|g| g.count).sum()
    }

    /// The profile with the command line's changes applied.
    #[must_use]
    pub fn with_overrides(&self, o: &Overrides) -> Self {
        let mut p = match o.agents {
            Some(n) => self.scaled_to(n),
            None => self.clone(),
        };
        if let Some(seed) = o.seed {
            p.world.seed = seed;
        }
        if let Some(ticks) = o.ticks {
            p.world.ticks = ticks;
        }
        p
    }

    /// The same scenario with `agents` agents in all (at least one in every
    /// group that has any): counts scale in proportion (largest remainder, so
    /// they add up), and every length of the scene, spawn shapes and targets
    /// by `sqrt(agents / total)`, keeping the density the profile was written
    /// for. Behaviour parameters, speeds and body sizes do not change.
    #[must_use]
    pub fn scaled_to(&self, agents: usize) -> Self {
        let total = self.total_agents();
        if total == 0 || agents == total {
            return self.clone();
        }
        let ratio = agents as f64 / total as f64;
        let s = ratio.sqrt() as f32;
        let counts = apportion(
            &self.groups.iter().map(|g| g.count).collect::<Vec<_>>(),
            agents,
        );
        let groups = self
            .groups
            .iter()
            .zip(counts)
            .map(|(g, count)| GroupSpec {
                count,
                spawn: g.spawn.scaled(s),
                target: g.target.scaled(s),
                target2: g.target2.scaled(s),
                ..g.clone()
            })
            .collect::<Vec<_>>();
        let squads = self
            .squads
            .iter()
            .map(|q| {
                let leaders = groups[q.leader_group].count;
                let scaled = (q.count as f64 * ratio).round() as usize;
                SquadSpec {
                    count: scaled.clamp(1, leaders.max(1)),
                    ..*q
                }
            })
            .collect();
        Self {
            layout: self.layout.scaled(s),
            groups,
            squads,
            ..self.clone()
        }
    }
}

/// Split `total` in proportion to `weights` (largest remainder), giving at
/// least one to every non-zero weight.
fn apportion(weights: &[usize], total: usize) -> Vec<usize> {
    let sum: usize = weights.iter().sum();
    if sum == 0 {
        return weights.to_vec();
    }
    let exact: Vec<f64> = weights
        .iter()
        .map(|&w| w as f64 * total as f64 / sum as f64)
        .collect();
    let mut out: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    // At least one agent in every group that asked for some.
    let mut bumped = vec![false; weights.len()];
    for i in 0..weights.len() {
        if weights[i] > 0 && out[i] == 0 {
            out[i] = 1;
            bumped[i] = true;
        }
    }
    let mut left = total.saturating_sub(out.iter().sum());
    let mut order: Vec<usize> = (0..weights.len())
        .filter(|&i| weights[i] > 0 && !bumped[i])
        .collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    while left > 0 && !order.is_empty() {
        for &i in &order {
            if left == 0 {
                break;
            }
            out[i] += 1;
            left -= 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apportion_keeps_totals_and_minimums() {
        assert_eq!(apportion(&[100, 300], 40), vec![10, 30]);
        assert_eq!(apportion(&[1, 1, 1], 10).iter().sum::<usize>(), 10);
        assert_eq!(apportion(&[6, 994], 10), vec![1, 9]);
        assert_eq!(apportion(&[6, 0, 994], 100), vec![1, 0, 99]);
        assert_eq!(apportion(&[5, 5], 1), vec![1, 1]); // at least one each
    }
}
