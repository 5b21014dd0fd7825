//! The profile file format: serde types that mirror the TOML one to one.
//!
//! These types only describe what may be written; the `profile` module checks the
//! values and turns them into a validated [`super::Profile`]. Every table
//! rejects unknown keys. `profiles/README.md` documents every field with its
//! default; the defaults here are the ones it lists.

use serde::Deserialize;

use crate::behaviours::avoidance::{AvoidanceParams, NearGoal};
use crate::combine::Combination;
use crate::group::Facing;
use crate::integrate::Integrator;
use crate::spatial::IndexKind;

/// A whole profile file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileDoc {
    /// Name of the profile; default the file name without `.toml`.
    #[serde(default)]
    pub name: Option<String>,
    /// One line saying what the profile is for (shown by `throng list`).
    #[serde(default)]
    pub description: String,
    /// World settings.
    #[serde(default)]
    pub world: WorldDoc,
    /// Wall segments `[x0, y0, x1, y1]`.
    #[serde(default)]
    pub walls: Vec<[f32; 4]>,
    /// Closed rectangles of four walls `[x0, y0, x1, y1]` (opposite corners).
    #[serde(default)]
    pub rects: Vec<[f32; 4]>,
    /// Circular obstacles.
    #[serde(default)]
    pub obstacles: Vec<ObstacleDoc>,
    /// Named paths.
    #[serde(default)]
    pub paths: Vec<PathDoc>,
    /// Goal fields: the way to the nearest of their goals around the walls and
    /// obstacles, for `follow_field` behaviours.
    #[serde(default)]
    pub fields: Vec<FieldDoc>,
    /// Measuring lines: the run report counts the agents crossing each (a door, say).
    #[serde(default)]
    pub gates: Vec<GateDoc>,
    /// Agent groups.
    #[serde(default)]
    pub groups: Vec<GroupDoc>,
    /// Squads: followers assigned to leaders.
    #[serde(default)]
    pub squads: Vec<SquadDoc>,
}

/// `[world]`: the simulation settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldDoc {
    /// Seed of every random stream (spawn placement and behaviours). Default 0.
    pub seed: u64,
    /// Seconds per tick, > 0. Default 1/30.
    pub dt: f32,
    /// Timed ticks, >= 1. Default 600.
    pub ticks: i64,
    /// Untimed ticks run before the timed ones, >= 0. Default 0.
    pub warmup: i64,
    /// Area drawn in pictures, `[x0, y0, x1, y1]`; default: fitted to the
    /// scene and the spawn shapes.
    pub bounds: Option<[f32; 4]>,
    /// `semi_implicit_euler` (default), `newton_euler1` or `exact`.
    pub integrator: Integrator,
    /// Neighbour index: `kdtree` (default) or `grid`.
    pub index: IndexKind,
    /// Re-sort agents in memory every this many ticks (0 = never). Default
    /// [`DEFAULT_REORDER_INTERVAL`](crate::world::DEFAULT_REORDER_INTERVAL).
    pub reorder_interval: u32,
    /// Level of detail around a point (a camera) `{ centre = [x, y], near,
    /// think_every }`: agents farther than `near` steer only every `think_every` ticks
    /// (1 to 64). Default none.
    pub level_of_detail: Option<LevelOfDetailDoc>,
}

/// `level_of_detail = { centre = [x, y], near, think_every }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelOfDetailDoc {
    /// The point detail is kept around.
    pub centre: [f32; 2],
    /// Within this distance agents steer every tick (their group's rate), >= 0.
    pub near: f32,
    /// Beyond it, every this many ticks, 1 to 64.
    pub think_every: i64,
}

impl Default for WorldDoc {
    fn default() -> Self {
        Self {
            seed: 0,
            dt: 1.0 / 30.0,
            ticks: 600,
            warmup: 0,
            bounds: None,
            integrator: Integrator::default(),
            index: IndexKind::default(),
            reorder_interval: crate::world::DEFAULT_REORDER_INTERVAL,
            level_of_detail: None,
        }
    }
}

/// A circular obstacle, `{ x, y, radius }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObstacleDoc {
    /// Centre x.
    pub x: f32,
    /// Centre y.
    pub y: f32,
    /// Radius, > 0.
    pub radius: f32,
}

/// A named path, `{ name, points = [[x, y], ...], looped }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathDoc {
    /// Unique name, referred to by targets.
    pub name: String,
    /// At least two distinct points.
    pub points: Vec<[f32; 2]>,
    /// Whether the last point joins the first. Default false.
    #[serde(default)]
    pub looped: bool,
}

/// `[[fields]]`: a goal field, `{ name, goals = [[x0, y0, x1, y1], ...] }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldDoc {
    /// Unique name, referred to by `follow_field` behaviours.
    pub name: String,
    /// Boxes `[x0, y0, x1, y1]` (opposite corners; a point is a box of size zero).
    pub goals: Vec<[f32; 4]>,
    /// Radius of the bodies the field serves (walls and obstacles are grown by it).
    /// Default: the largest body radius of the groups that follow the field.
    pub clearance: Option<f32>,
    /// Side of the field's cells. Default: half the clearance.
    pub cell: Option<f32>,
    /// `{ weight, every }`: crowding makes ways longer (a congestion-aware field,
    /// rebuilt every `every` ticks). Default: none.
    pub congestion: Option<crate::scene::Congestion>,
}

/// `[[gates]]`: a measuring line, `line = [x0, y0, x1, y1]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateDoc {
    /// Name in reports.
    pub name: String,
    /// The segment `[x0, y0, x1, y1]`.
    pub line: [f32; 4],
}

/// `[[groups]]`: agents sharing behaviours and parameters.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupDoc {
    /// Unique name: letters, digits, `_` and `-`.
    pub name: String,
    /// Number of agents, >= 0.
    pub count: i64,
    /// Where the agents start.
    pub spawn: SpawnDoc,
    /// `steering` (forces; default) or `kinematic` (velocities).
    #[serde(default)]
    pub movement: MovementDoc,
    /// `weighted_sum` (default), `prioritized` or `dithered`.
    #[serde(default)]
    pub combination: Combination,
    /// Neighbour search radius (units), >= 0. Default 3.
    #[serde(default = "default_neighbour_radius")]
    pub neighbour_radius: f32,
    /// At most this many nearest neighbours, >= 0. Default 12.
    #[serde(default = "default_max_neighbours")]
    pub max_neighbours: i64,
    /// A body preset for the next four keys: `pedestrian` (metres and seconds:
    /// radius 0.22, max speed 1.34, mass 1, max force 26.8). Default none.
    #[serde(default)]
    pub body: Option<BodyPreset>,
    /// Mass, > 0. Default 1 (or the body preset's).
    #[serde(default)]
    pub mass: Option<f32>,
    /// Maximum speed (units/s), >= 0. Default 2 (or the body preset's).
    #[serde(default)]
    pub max_speed: Option<f32>,
    /// Standard deviation of the agents' maximum speeds, >= 0: each agent's is drawn
    /// from a normal distribution about `max_speed`, clamped at two deviations (and at
    /// 0). Default 0 (people's, Weidmann's: 0.26 m/s, `PEDESTRIAN_SPEED_SPREAD`).
    #[serde(default)]
    pub max_speed_spread: Option<f32>,
    /// Maximum steering force, >= 0. Default 4 (or the body preset's).
    #[serde(default)]
    pub max_force: Option<f32>,
    /// Body radius (units), >= 0. Default 0.5 (or the body preset's).
    #[serde(default)]
    pub radius: Option<f32>,
    /// Initial speed (units/s), >= 0 (truncated to `max_speed`). Default 0.
    #[serde(default)]
    pub initial_speed: f32,
    /// Direction of the initial velocity: `random` (default) or `to_target`.
    #[serde(default)]
    pub initial_direction: DirectionDoc,
    /// Heading control `{ turn_rate, min_speed }`.
    #[serde(default)]
    pub facing: Facing,
    /// What targeted behaviours aim at. Default none.
    #[serde(default)]
    pub target: Option<TargetDoc>,
    /// The second target (the second agent of `interpose`): a point, an
    /// antipode or `agent_of_group`. Default none.
    #[serde(default)]
    pub target2: Option<TargetDoc>,
    /// Colour in pictures, `"#rrggbb"`; default from a palette.
    #[serde(default)]
    pub colour: Option<String>,
    /// Reciprocal collision avoidance (ORCA) `{ preset, time_horizon,
    /// obstacle_time_horizon, priority, layers, mask, arrived_within, side_bias }`,
    /// every key optional. Default off.
    #[serde(default)]
    pub avoidance: Option<AvoidanceDoc>,
    /// Agents leave the world (are despawned) on arriving: at their target, or, following
    /// a goal field without one, at its goal (evacuees out of the building). Default
    /// false.
    #[serde(default)]
    pub leave_on_arrival: bool,
    /// Level of detail: steer only every this many ticks, in rotation, integrating the
    /// last output in between; 1 to 64. Default 1 (every tick).
    #[serde(default = "default_think_every")]
    pub think_every: i64,
    /// Behaviours in priority order.
    #[serde(default)]
    pub behaviours: Vec<BehaviourDoc>,
}

fn default_neighbour_radius() -> f32 {
    crate::group::GroupConfig::default().neighbour_radius
}
fn default_think_every() -> i64 {
    1
}

fn default_max_neighbours() -> i64 {
    crate::group::GroupConfig::default().max_neighbours as i64
}
fn one() -> f32 {
    1.0
}

/// A named body (`body = "..."` in a group).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyPreset {
    /// [`crate::AgentSpec::with_pedestrian_body`].
    Pedestrian,
}

/// A named set of avoidance parameters (`avoidance = { preset = "..." }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AvoidancePreset {
    /// [`AvoidanceParams::pedestrian`].
    Pedestrian,
}

/// A group's `avoidance` table: a preset (or the defaults), and the keys that
/// replace its values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AvoidanceDoc {
    /// The values the other keys replace: `pedestrian`, or the defaults.
    pub preset: Option<AvoidancePreset>,
    /// [`AvoidanceParams::time_horizon`].
    pub time_horizon: Option<f32>,
    /// [`AvoidanceParams::obstacle_time_horizon`].
    pub obstacle_time_horizon: Option<f32>,
    /// [`AvoidanceParams::priority`].
    pub priority: Option<f32>,
    /// [`AvoidanceParams::layers`].
    pub layers: Option<u32>,
    /// [`AvoidanceParams::mask`].
    pub mask: Option<u32>,
    /// [`AvoidanceParams::arrived_within`].
    pub arrived_within: Option<f32>,
    /// [`AvoidanceParams::side_bias`].
    pub side_bias: Option<f32>,
    /// [`AvoidanceParams::time_gap`].
    pub time_gap: Option<f32>,
    /// [`AvoidanceParams::squeeze`].
    pub squeeze: Option<f32>,
    /// [`AvoidanceParams::near_goal`]: `{ within, time_gap, squeeze, side_bias }`, or
    /// `false` for none (`true` keeps the preset's).
    pub near_goal: Option<NearGoalDoc>,
}

/// [`AvoidanceDoc::near_goal`]: its keys, or whether to keep the preset's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NearGoalDoc {
    /// `false`: none; `true`: the preset's.
    Keep(bool),
    /// The keys.
    Keys(NearGoal),
}

impl<'de> Deserialize<'de> for NearGoalDoc {
    // By hand rather than untagged, so that a table's error names its key.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Doc;
        impl<'de> serde::de::Visitor<'de> for Doc {
            type Value = NearGoalDoc;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("{ within, time_gap, squeeze, side_bias }, or false")
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<NearGoalDoc, E> {
                Ok(NearGoalDoc::Keep(b))
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                m: M,
            ) -> Result<NearGoalDoc, M::Error> {
                NearGoal::deserialize(serde::de::value::MapAccessDeserializer::new(m))
                    .map(NearGoalDoc::Keys)
            }
        }
        d.deserialize_any(Doc)
    }
}

impl AvoidanceDoc {
    /// The parameters: the preset's (or the defaults), with the keys given.
    pub fn params(&self) -> AvoidanceParams {
        let base = match self.preset {
            Some(AvoidancePreset::Pedestrian) => AvoidanceParams::pedestrian(),
            None => AvoidanceParams::default(),
        };
        AvoidanceParams {
            time_horizon: self.time_horizon.unwrap_or(base.time_horizon),
            obstacle_time_horizon: self
                .obstacle_time_horizon
                .unwrap_or(base.obstacle_time_horizon),
            priority: self.priority.unwrap_or(base.priority),
            layers: self.layers.unwrap_or(base.layers),
            mask: self.mask.unwrap_or(base.mask),
            arrived_within: self.arrived_within.unwrap_or(base.arrived_within),
            side_bias: self.side_bias.unwrap_or(base.side_bias),
            time_gap: self.time_gap.unwrap_or(base.time_gap),
            squeeze: self.squeeze.unwrap_or(base.squeeze),
            near_goal: match self.near_goal {
                None | Some(NearGoalDoc::Keep(true)) => base.near_goal,
                Some(NearGoalDoc::Keep(false)) => None,
                Some(NearGoalDoc::Keys(keys)) => Some(keys),
            },
        }
    }
}

/// How a group moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementDoc {
    /// Behaviours output forces; the integrator accelerates the agent.
    #[default]
    Steering,
    /// Behaviours output velocities directly (Millington's kinematic movement).
    Kinematic,
}

/// Direction of the initial velocity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectionDoc {
    /// A uniformly random direction per agent.
    #[default]
    Random,
    /// Toward the agent's target (random when it has none).
    ToTarget,
}

/// Where a group's agents start: `spawn = { shape = "...", ... }`.
///
/// Lengths and positions here scale with `--agents` (see the README), so
/// density stays constant.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpawnDoc {
    /// An axis-aligned box.
    Box {
        /// Centre. Default `[0, 0]`.
        #[serde(default)]
        centre: [f32; 2],
        /// Width and height, >= 0.
        size: [f32; 2],
        /// `random` (default), `grid`, or `apart` (random, no two of the group's
        /// bodies overlapping).
        #[serde(default)]
        arrangement: ArrangementDoc,
    },
    /// A filled disc, uniformly random.
    Disc {
        /// Centre. Default `[0, 0]`.
        #[serde(default)]
        centre: [f32; 2],
        /// Radius, >= 0.
        radius: f32,
        /// `random` (default) or `apart` (random, no two of the group's bodies
        /// overlapping).
        #[serde(default)]
        arrangement: DiscArrangementDoc,
    },
    /// A ring: agent i at angle `start_angle + 360° i / n`.
    Ring {
        /// Centre. Default `[0, 0]`.
        #[serde(default)]
        centre: [f32; 2],
        /// Radius, >= 0.
        radius: f32,
        /// Width of the band around the radius; each agent gets a random
        /// offset across it. Default 0 (exactly on the circle).
        #[serde(default)]
        width: f32,
        /// Angle of agent 0 in degrees, counter-clockwise from +x. Default 0.
        #[serde(default)]
        start_angle: f32,
    },
    /// Rows along a segment.
    Line {
        /// Start of the segment.
        from: [f32; 2],
        /// End of the segment.
        to: [f32; 2],
        /// Width of the band (units); 0 (default) puts every agent in one row.
        #[serde(default)]
        width: f32,
    },
    /// A sunflower (Vogel) spiral: agent i at radius `sqrt(area_per_agent / π)
    /// * sqrt(i + 0.5)`, angle `i * 2.39996323`; evenly dense, no overlap.
    Sunflower {
        /// Centre. Default `[0, 0]`.
        #[serde(default)]
        centre: [f32; 2],
        /// Square units per agent, > 0. Default 16.
        #[serde(default = "sixteen")]
        area_per_agent: f32,
    },
}

fn sixteen() -> f32 {
    16.0
}

/// Placement inside a box.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrangementDoc {
    /// Uniformly random.
    #[default]
    Random,
    /// A regular lattice of about square cells.
    Grid,
    /// Uniformly random, then pushed apart until no two of the group's bodies
    /// overlap (centres at least two radii apart, all still in the box).
    Apart,
}

/// Placement inside a disc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiscArrangementDoc {
    /// Uniformly random.
    #[default]
    Random,
    /// Uniformly random, then pushed apart until no two of the group's bodies
    /// overlap (centres at least two radii apart, all still in the disc).
    Apart,
}

/// `target = { ... }`: exactly one of `point`, `antipode`, `shift`, `agent_of_group`,
/// `moving_point`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetDoc {
    /// A fixed point `[x, y]`.
    pub point: Option<[f32; 2]>,
    /// `true`: the point opposite the start through `centre`
    /// (`2 * centre - start`).
    pub antipode: Option<bool>,
    /// Centre of `antipode`; default the centre of the group's spawn shape.
    pub centre: Option<[f32; 2]>,
    /// `[dx, dy]`: each agent's start moved by this offset (a crowd crossing a
    /// square keeps its formation's shape).
    pub shift: Option<[f32; 2]>,
    /// The nearest agent (at spawn) of the named group, followed as it moves.
    pub agent_of_group: Option<String>,
    /// A point travelling along a path.
    pub moving_point: Option<MovingPointDoc>,
}

/// `moving_point = { path, speed, start, lead }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovingPointDoc {
    /// Name of the path.
    pub path: String,
    /// Speed along the path (units/s), >= 0.
    pub speed: f32,
    /// Distance along the path where the point starts, shared by the group;
    /// default: for each agent, the point of the path nearest its start.
    #[serde(default)]
    pub start: Option<f32>,
    /// Added to the start distance, so the point runs this far ahead. Default 0.
    #[serde(default)]
    pub lead: f32,
}

/// `[[groups.behaviours]]`: one behaviour with its weight and parameters.
///
/// The parameters (every key but `kind`, `weight` and `probability`) are
/// checked against the behaviour's own parameter struct.
#[derive(Clone, Debug, Deserialize)]
pub struct BehaviourDoc {
    /// The behaviour's name, such as `separation`.
    pub kind: String,
    /// Multiplier of its force; finite. Default 1.
    #[serde(default = "one")]
    pub weight: f32,
    /// Probability of evaluation for `dithered` combination, in [0, 1].
    /// Default 1.
    #[serde(default = "one")]
    pub probability: f32,
    /// The behaviour's parameters.
    #[serde(flatten)]
    pub params: toml::Table,
}

/// `[[squads]]`: followers of one group each follow a leader of another.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SquadDoc {
    /// Group whose first `count` agents lead.
    pub leader_group: String,
    /// Group whose agents each follow the nearest leader (at spawn).
    pub follower_group: String,
    /// Number of squads (leaders), >= 1; default every agent of the leader group.
    #[serde(default)]
    pub count: Option<i64>,
}
