//! Groups (archetypes): the behaviours, weights and parameters shared by every
//! agent of the group. Agents refer to their group by a small index, so the hot
//! per-agent columns stay narrow.

use serde::{Deserialize, Serialize};

use crate::agents::WorldTag;
use crate::behaviours::angular::{AlignParams, VelocityMatchParams};
use crate::behaviours::approach::ApproachParams;
use crate::behaviours::avoidance::AvoidanceParams;
use crate::behaviours::containment::ContainmentParams;
use crate::behaviours::field::FollowFieldParams;
use crate::behaviours::flocking::SeparationParams;
use crate::behaviours::kinematic::{KinematicArriveParams, KinematicWanderParams};
use crate::behaviours::leader::LeaderParams;
use crate::behaviours::obstacles::ObstacleAvoidanceParams;
use crate::behaviours::path::PathFollowParams;
use crate::behaviours::queue::QueueParams;
use crate::behaviours::tactics::{HideParams, InterposeParams, OffsetPursuitParams};
use crate::behaviours::targeting::{ArriveParams, EvadeParams, FleeParams};
use crate::behaviours::walls::WallAvoidanceParams;
use crate::behaviours::wander::WanderParams;
use crate::combine::Combination;
use crate::error::{Result, ThrongError};

/// One steering behaviour with its parameters.
///
/// ```
/// use throng::prelude::*;
///
/// let arrive = Behaviour::Arrive(ArriveParams { slowing_radius: 3.0, ..ArriveParams::default() });
/// let wander = Behaviour::Wander(WanderParams::default());
/// let walkers = GroupConfig::new("walkers").with(arrive, 1.0).with(wander, 0.2);
/// assert!(World::default().add_group(walkers).is_ok());
/// // Parameters are checked when the group is added.
/// let bad = Behaviour::Arrive(ArriveParams { slowing_radius: f32::NAN, ..ArriveParams::default() });
/// assert!(World::default().add_group(GroupConfig::new("bad").with(bad, 1.0)).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// The randomized approach walker: approach the target by random converging waypoints.
    Approach(ApproachParams),
    /// Millington's align: turn to the target agent's heading (angular).
    Align(AlignParams),
    /// Millington's face: turn toward the target (angular).
    Face(AlignParams),
    /// Millington's look-where-you're-going: turn toward the velocity (angular).
    LookWhereYouAreGoing(AlignParams),
    /// Millington's velocity matching: match the target agent's velocity.
    VelocityMatch(VelocityMatchParams),
    /// Kinematic seek (kinematic groups only): full speed at the target.
    KinematicSeek,
    /// Kinematic flee (kinematic groups only).
    KinematicFlee,
    /// Kinematic arrive (kinematic groups only): stop inside the satisfaction
    /// radius.
    KinematicArrive(KinematicArriveParams),
    /// Kinematic wander (kinematic groups only).
    KinematicWander(KinematicWanderParams),
    /// The Reynolds/Buckland steering tutorial: three feelers push away from the walls they cross.
    WallAvoidance(WallAvoidanceParams),
    /// Steer around circular obstacles in a detection box ahead.
    ObstacleAvoidance(ObstacleAvoidanceParams),
    /// Follow a path of the world (by [`PathId`]), keeping per-agent progress. An
    /// agent given a path of its own ([`crate::World::set_agent_path`], e.g. a route
    /// from the host's navmesh) follows that one instead.
    FollowPath {
        /// The group's path; `None`: only the agents' own paths (an agent without one
        /// gets no force from this behaviour).
        path: Option<PathId>,
        /// How to follow it.
        params: PathFollowParams,
    },
    /// Follow a goal field of the world (by [`FieldId`], [`crate::World::add_goal_field`]):
    /// Reynolds' flow-field following, the way around walls to the nearest goal.
    FollowField {
        /// The field.
        field: FieldId,
        /// How to follow it.
        params: FollowFieldParams,
    },
    /// Reynolds' containment: keep inside a region, steering back before leaving it.
    Containment(ContainmentParams),
    /// Reynolds' queuing: brake behind an agent ahead in the lane going the same way.
    Queue(QueueParams),
    /// Get between the agent's target and its second target.
    Interpose(InterposeParams),
    /// Hide from the agent's target behind the nearest obstacle.
    Hide(HideParams),
    /// Keep the agent's formation offset (in the target agent's frame).
    OffsetPursuit(OffsetPursuitParams),
    /// The leader-following tutorial: follow the target agent as leader — arrive behind it, evade it
    /// when in its sight, keep apart from the other followers.
    LeaderFollow {
        /// Behind distance, sight radius, slowing radius, evasion.
        leader: LeaderParams,
        /// Separation among the followers.
        separation: SeparationParams,
    },
    /// Step out of the way of any leader whose sight the agent is in (groups
    /// with this behaviour opt in to leader sight marking).
    GiveWay(EvadeParams),
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
            Behaviour::Approach(_) => "approach",
            Behaviour::Align(_) => "align",
            Behaviour::Face(_) => "face",
            Behaviour::LookWhereYouAreGoing(_) => "look_where_you_are_going",
            Behaviour::VelocityMatch(_) => "velocity_match",
            Behaviour::KinematicSeek => "kinematic_seek",
            Behaviour::KinematicFlee => "kinematic_flee",
            Behaviour::KinematicArrive(_) => "kinematic_arrive",
            Behaviour::KinematicWander(_) => "kinematic_wander",
            Behaviour::WallAvoidance(_) => "wall_avoidance",
            Behaviour::ObstacleAvoidance(_) => "obstacle_avoidance",
            Behaviour::FollowPath { .. } => "follow_path",
            Behaviour::FollowField { .. } => "follow_field",
            Behaviour::Containment(_) => "containment",
            Behaviour::Queue(_) => "queue",
            Behaviour::Interpose(_) => "interpose",
            Behaviour::Hide(_) => "hide",
            Behaviour::OffsetPursuit(_) => "offset_pursuit",
            Behaviour::LeaderFollow { .. } => "leader_follow",
            Behaviour::GiveWay(_) => "give_way",
        }
    }

    /// Whether the behaviour outputs a velocity (kinematic movement) rather than
    /// a force.
    #[must_use]
    pub fn is_kinematic(&self) -> bool {
        matches!(
            self,
            Behaviour::KinematicSeek
                | Behaviour::KinematicFlee
                | Behaviour::KinematicArrive(_)
                | Behaviour::KinematicWander(_)
        )
    }

    /// Whether the behaviour outputs an angular acceleration, so the group's
    /// heading is integrated from its rotation instead of eased toward the
    /// velocity.
    #[must_use]
    pub fn is_angular(&self) -> bool {
        matches!(
            self,
            Behaviour::Align(_) | Behaviour::Face(_) | Behaviour::LookWhereYouAreGoing(_)
        )
    }

    /// Whether the behaviour reads the neighbour list.
    #[must_use]
    pub fn needs_neighbours(&self) -> bool {
        matches!(
            self,
            Behaviour::Separation(_)
                | Behaviour::Cohesion
                | Behaviour::Alignment
                | Behaviour::LeaderFollow { .. }
                | Behaviour::Queue(_)
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
            Behaviour::Arrive(p) if p.speed.is_nan() || p.speed < 0.0 => {
                bad("speed", "must be >= 0 (infinite: the maximum speed)")
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
            Behaviour::Approach(p) => kernel_check(field, p.validate()),
            Behaviour::Align(p) | Behaviour::Face(p) | Behaviour::LookWhereYouAreGoing(p) => {
                kernel_check(field, p.validate())
            }
            Behaviour::VelocityMatch(p) => kernel_check(field, p.validate()),
            Behaviour::KinematicArrive(p) => kernel_check(field, p.validate()),
            Behaviour::KinematicWander(p) => kernel_check(field, p.validate()),
            Behaviour::WallAvoidance(p) => {
                non_negatives(field, &[("feeler_length", p.feeler_length)])
            }
            Behaviour::ObstacleAvoidance(p) => non_negatives(
                field,
                &[
                    ("min_detection_box_length", p.min_detection_box_length),
                    ("braking_weight", p.braking_weight),
                ],
            ),
            Behaviour::FollowPath { params: p, .. } => non_negatives(
                field,
                &[
                    ("predict_distance", p.predict_distance),
                    ("path_radius", p.path_radius),
                    ("target_ahead", p.target_ahead),
                    ("search_window", p.search_window),
                    ("end_slowing_radius", p.end_slowing_radius),
                ],
            ),
            Behaviour::FollowField { params: p, .. } => {
                non_negatives(field, &[("slowing_radius", p.slowing_radius)])
            }
            Behaviour::Containment(p) if !p.region.is_valid() => Err(ThrongError::InvalidParameter {
                field: format!("{field}.region"),
                reason: "a box needs finite corners with max above min; a circle a finite centre and a radius > 0".to_string(),
            }),
            Behaviour::Containment(p) => non_negatives(field, &[("lookahead", p.lookahead)]),
            Behaviour::Queue(p) => {
                non_negatives(field, &[("distance", p.distance), ("brake", p.brake)])
            }
            Behaviour::Interpose(p) => {
                non_negatives(field, &[("deceleration_time", p.deceleration_time)])
            }
            Behaviour::Hide(p) => non_negatives(
                field,
                &[
                    ("distance_from_boundary", p.distance_from_boundary),
                    ("search_radius", p.search_radius),
                    ("deceleration_time", p.deceleration_time),
                ],
            ),
            Behaviour::OffsetPursuit(p) => {
                non_negatives(field, &[("deceleration_time", p.deceleration_time)])
            }
            Behaviour::LeaderFollow { leader, separation } => {
                non_negatives(
                    field,
                    &[
                        ("behind_distance", leader.behind_distance),
                        ("sight_radius", leader.sight_radius),
                        ("slowing_radius", leader.slowing_radius),
                        ("separation.strength", separation.strength.abs()),
                    ],
                )?;
                if separation.radius.is_nan() || separation.radius < 0.0 {
                    return bad("separation.radius", "must be >= 0");
                }
                Ok(())
            }
            Behaviour::GiveWay(p) if p.threat_range.is_nan() || p.threat_range < 0.0 => {
                bad("threat_range", "must be >= 0")
            }
            _ => Ok(()),
        }
    }
}

/// Check that each named value is finite and >= 0.
fn non_negatives(field: &str, values: &[(&str, f32)]) -> Result<()> {
    for &(name, v) in values {
        if !(v.is_finite() && v >= 0.0) {
            return Err(ThrongError::InvalidParameter {
                field: format!("{field}.{name}"),
                reason: format!("must be finite and >= 0, got {v}"),
            });
        }
    }
    Ok(())
}

/// Turn a kernel's "`name` must be ..." message into a field error.
fn kernel_check(field: &str, r: std::result::Result<(), String>) -> Result<()> {
    r.map_err(|msg| {
        let name = msg.split_whitespace().next().unwrap_or("").to_string();
        ThrongError::InvalidParameter {
            field: format!("{field}.{name}"),
            reason: msg,
        }
    })
}

/// An id of one of a world's tables of scene items (paths, goal fields): its index, in
/// the order they were added (ids are not reused), and the world it belongs to. An id
/// the world gave out names that world's item only: another world refuses it (a world
/// restored from a snapshot takes the snapshot's world, as for agent handles). An id
/// made with `from_index` belongs to no world yet and names the `index`-th item of
/// whichever world it is given to: how profiles and the C ABI name paths and fields.
macro_rules! scene_id {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
        )]
        pub struct $name {
            pub(crate) index: u32,
            pub(crate) world: WorldTag,
        }

        impl $name {
            #[doc = concat!("The id of the ", $what, " at this index (the `index`-th ", $what, " added), of whichever world it is given to.")]
            #[must_use]
            pub fn from_index(index: usize) -> Self {
                Self {
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                    world: WorldTag::NONE,
                }
            }

            #[doc = concat!("The ", $what, "'s index in the world, in the order they were added.")]
            #[must_use]
            pub fn index(self) -> usize {
                self.index as usize
            }

            #[doc = concat!("The world that gave out this id; `None` for an id made with `from_index`.")]
            #[must_use]
            pub fn world(self) -> Option<WorldTag> {
                (self.world != WorldTag::NONE).then_some(self.world)
            }

            /// The id of item `index` of the world tagged `world`.
            pub(crate) fn of_world(index: u32, world: WorldTag) -> Self {
                Self { index, world }
            }
        }
    };
}

scene_id!(
    /// Index of a path added to a world with [`crate::World::add_path`].
    PathId,
    "path"
);
scene_id!(
    /// Index of a goal field added to a world with [`crate::World::add_goal_field`].
    FieldId,
    "goal field"
);

/// A behaviour of a group with its weight and (for dithering) its probability.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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

/// How a group's agents move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Movement {
    /// Behaviours output forces; the integrator turns them into motion.
    #[default]
    Steering,
    /// Behaviours output velocities directly (Millington's kinematic movement);
    /// position and heading advance with the average of the old and new
    /// velocity and rotation. Only kinematic behaviours are allowed.
    Kinematic,
}

/// How the group's agents turn their heading.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Facing {
    /// Rate (1/s) at which the heading eases toward the velocity: each tick it
    /// covers `min(1, turn_rate * dt)` of the remaining angle (the Reynolds/Buckland steering tutorial uses
    /// `slerp(forward, velocity, dt)`, a rate of 1). Default 8.
    pub turn_rate: f32,
    /// Below this speed the heading is left alone (the Reynolds/Buckland steering tutorial: |v|^2 > 0.01, so
    /// 0.1). Default 0.1.
    pub min_speed: f32,
    /// Groups with angular behaviours (align, face, look-where-you're-going)
    /// integrate their heading from their rotation, clamped to this many
    /// radians per second. Default π (180°/s).
    pub max_rotation: f32,
}

impl Default for Facing {
    fn default() -> Self {
        Self {
            turn_rate: 8.0,
            min_speed: 0.1,
            max_rotation: std::f32::consts::PI,
        }
    }
}

/// The configuration shared by every agent of a group: its behaviours and their
/// weights, how they combine, whom its agents perceive.
///
/// ```
/// use throng::prelude::*;
///
/// // Boids: separation, alignment and cohesion among the 12 nearest within 4 units.
/// let birds = GroupConfig::new("birds")
///     .with(Behaviour::Separation(SeparationParams::default()), 1.5)
///     .with(Behaviour::Alignment, 0.6)
///     .with(Behaviour::Cohesion, 0.5)
///     .neighbours(4.0, 12);
/// let mut world = World::default();
/// let g = world.add_group(birds)?;
/// assert_eq!(world.group(g).unwrap().behaviours.len(), 3);
/// # Ok::<(), ThrongError>(())
/// ```
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GroupConfig {
    /// Name, for reports.
    pub name: String,
    /// Behaviours in priority order (the order matters for prioritized
    /// combination and dithering).
    pub behaviours: Vec<WeightedBehaviour>,
    /// Steering (forces) or kinematic (velocities). Default steering.
    pub movement: Movement,
    /// How the behaviours are combined. Default weighted sum.
    pub combination: Combination,
    /// Neighbours are the agents within this distance (units). Default 3.
    pub neighbour_radius: f32,
    /// At most this many nearest neighbours are considered. Default 12.
    pub max_neighbours: usize,
    /// Heading control.
    pub facing: Facing,
    /// Reciprocal collision avoidance (ORCA): when set, each agent's velocity is the
    /// one closest to what its behaviours prefer that stays collision-free with its
    /// neighbours, walls and obstacles for a time horizon
    /// ([`crate::behaviours::avoidance`]). Default none.
    pub avoidance: Option<AvoidanceParams>,
    /// The host moves the group's agents: each tick computes every agent's desired
    /// velocity ([`crate::World::desired_velocity`]: what its behaviours, body and
    /// avoidance would move it at) but writes no position, velocity or heading; the
    /// host moves the agents itself (its physics, its character controller) and
    /// writes them back with [`crate::World::set_position`] and
    /// [`crate::World::set_velocity`]. Default false.
    #[serde(default)]
    pub host_moves: bool,
    /// Level of detail by think rate: the group's agents steer only every this many
    /// ticks, in rotation (each tick, one chunk of rows in this many steers: rows are
    /// in spatial order, so a chunk is a patch of the crowd), and are integrated with
    /// their last output in between. 1 (the default) steers every tick; at most
    /// [`MAX_THINK_EVERY`]. See also [`crate::World::set_level_of_detail`].
    #[serde(default = "every_tick")]
    pub think_every: u32,
}

/// The largest [`GroupConfig::think_every`] (and level of detail's).
pub const MAX_THINK_EVERY: u32 = 64;

/// Serde's default for [`GroupConfig::think_every`].
fn every_tick() -> u32 {
    1
}

impl Default for GroupConfig {
    fn default() -> Self {
        Self {
            name: String::from("group"),
            behaviours: Vec::new(),
            movement: Movement::default(),
            combination: Combination::default(),
            neighbour_radius: 3.0,
            max_neighbours: 12,
            facing: Facing::default(),
            avoidance: None,
            host_moves: false,
            think_every: 1,
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

    /// Set the movement kind.
    #[must_use]
    pub fn moving(mut self, movement: Movement) -> Self {
        self.movement = movement;
        self
    }

    /// Steer only every `k` ticks, in rotation ([`GroupConfig::think_every`]).
    #[must_use]
    pub fn thinking_every(mut self, k: u32) -> Self {
        self.think_every = k;
        self
    }

    /// Turn on reciprocal collision avoidance (ORCA) with these parameters.
    #[must_use]
    pub fn avoiding(mut self, params: AvoidanceParams) -> Self {
        self.avoidance = Some(params);
        self
    }

    /// Whether any behaviour turns the heading through angular acceleration.
    #[must_use]
    pub fn uses_angular(&self) -> bool {
        self.behaviours.iter().any(|b| b.behaviour.is_angular())
    }

    /// The leader parameters, if the group follows leaders.
    #[must_use]
    pub fn leader_params(&self) -> Option<&LeaderParams> {
        self.behaviours.iter().find_map(|b| match &b.behaviour {
            Behaviour::LeaderFollow { leader, .. } => Some(leader),
            _ => None,
        })
    }

    /// Whether the group's agents are marked when in a leader's sight.
    #[must_use]
    pub fn watches_leaders(&self) -> bool {
        self.behaviours.iter().any(|b| {
            matches!(
                b.behaviour,
                Behaviour::LeaderFollow { .. } | Behaviour::GiveWay(_)
            )
        })
    }

    /// The path of the group's first follow-path behaviour, if it names one.
    #[must_use]
    pub fn path(&self) -> Option<(PathId, &PathFollowParams)> {
        self.behaviours.iter().find_map(|b| match &b.behaviour {
            Behaviour::FollowPath {
                path: Some(path),
                params,
            } => Some((*path, params)),
            _ => None,
        })
    }

    /// Whether any behaviour, or the avoidance, reads neighbours.
    #[must_use]
    pub fn needs_neighbours(&self) -> bool {
        self.avoidance.is_some()
            || self
                .behaviours
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
        if !(1..=MAX_THINK_EVERY).contains(&self.think_every) {
            return bad(
                "think_every".into(),
                &format!("must be from 1 to {MAX_THINK_EVERY}"),
            );
        }
        if !(self.facing.turn_rate.is_finite() && self.facing.turn_rate >= 0.0) {
            return bad("facing.turn_rate".into(), "must be finite and >= 0");
        }
        if !(self.facing.min_speed.is_finite() && self.facing.min_speed >= 0.0) {
            return bad("facing.min_speed".into(), "must be finite and >= 0");
        }
        if !(self.facing.max_rotation.is_finite() && self.facing.max_rotation >= 0.0) {
            return bad("facing.max_rotation".into(), "must be finite and >= 0");
        }
        if let Some(a) = &self.avoidance {
            if let Err(msg) = a.validate() {
                let name = msg.split_whitespace().next().unwrap_or("").to_string();
                return Err(ThrongError::InvalidParameter {
                    field: format!("avoidance.{name}"),
                    reason: msg,
                });
            }
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
            let kinematic_group = self.movement == Movement::Kinematic;
            if b.behaviour.is_kinematic() != kinematic_group {
                let reason = if kinematic_group {
                    "a kinematic group takes only kinematic behaviours"
                } else {
                    "kinematic behaviours need `movement = kinematic`"
                };
                return bad(format!("{field}.kind"), reason);
            }
        }
        Ok(())
    }
}
