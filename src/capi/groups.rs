//! Groups through the C ABI: the common behaviours as plain structs; every
//! behaviour, with all its parameters, through a profile (`throng_world_from_profile`).

use std::ffi::c_char;

use super::{
    finite, read_in, slice_in, str_in, with_world, write_out, CResult, Failure, ThrongStatus,
    ThrongWorld,
};
use crate::behaviours::avoidance::AvoidanceParams;
use crate::behaviours::field::FollowFieldParams;
use crate::behaviours::flocking::SeparationParams;
use crate::behaviours::leader::LeaderParams;
use crate::behaviours::path::PathFollowParams;
use crate::behaviours::targeting::{ArriveParams, EvadeParams, FleeParams};
use crate::combine::Combination;
use crate::group::{Behaviour, FieldId, GroupConfig, PathId, WeightedBehaviour};

/// Seek the agent's target.
pub const THRONG_BEHAVIOUR_SEEK: u32 = 0;
/// Flee the agent's target; `param`: panic distance (0 = the default).
pub const THRONG_BEHAVIOUR_FLEE: u32 = 1;
/// Arrive at the agent's target; `param`: slowing radius (0 = the default, 6).
pub const THRONG_BEHAVIOUR_ARRIVE: u32 = 2;
/// Pursue the agent's target agent.
pub const THRONG_BEHAVIOUR_PURSUIT: u32 = 3;
/// Evade the agent's target agent.
pub const THRONG_BEHAVIOUR_EVADE: u32 = 4;
/// Reynolds' wander.
pub const THRONG_BEHAVIOUR_WANDER: u32 = 5;
/// Keep away from neighbours.
pub const THRONG_BEHAVIOUR_SEPARATION: u32 = 6;
/// Move toward the neighbours' centre.
pub const THRONG_BEHAVIOUR_COHESION: u32 = 7;
/// Match the neighbours' heading.
pub const THRONG_BEHAVIOUR_ALIGNMENT: u32 = 8;
/// The randomized approach walker: reach the target by random converging waypoints,
/// never walking past it.
pub const THRONG_BEHAVIOUR_APPROACH: u32 = 9;
/// Steer away from the walls ahead.
pub const THRONG_BEHAVIOUR_WALL_AVOIDANCE: u32 = 10;
/// Steer around the circular obstacles ahead.
pub const THRONG_BEHAVIOUR_OBSTACLE_AVOIDANCE: u32 = 11;
/// Follow the path `path`; `param`: path radius (0 = the default).
pub const THRONG_BEHAVIOUR_FOLLOW_PATH: u32 = 12;
/// Keep the agent's formation offset behind its target agent.
pub const THRONG_BEHAVIOUR_OFFSET_PURSUIT: u32 = 13;
/// Follow the target agent as leader: arrive behind it, step out of its way when in
/// its sight, keep apart from the other followers; `param`: behind distance (0 = the
/// default). The parameters are those of the `leader_squads` profile, for bodies of
/// radius about 0.5: behind distance 4, sight radius 2.5, slowing radius 6,
/// separation strength 2.
pub const THRONG_BEHAVIOUR_LEADER_FOLLOW: u32 = 14;
/// Turn to face where the agent is going.
pub const THRONG_BEHAVIOUR_LOOK_WHERE_YOU_ARE_GOING: u32 = 15;
/// Step out of the way of any leader whose sight the agent is in.
pub const THRONG_BEHAVIOUR_GIVE_WAY: u32 = 16;
/// Follow the goal field `path` names (`throng_world_add_goal_field`): its way round
/// the walls to the nearest goal; in the goal, on to the agent's own target if it has
/// one. `param`: slowing radius (0: full speed, and without a target on through the
/// goal).
pub const THRONG_BEHAVIOUR_FOLLOW_FIELD: u32 = 17;

/// No path: in `ThrongBehaviourDesc::path`, a follow-path behaviour whose agents
/// follow only their own paths; to `throng_agent_set_path`, take the agent's away.
pub const THRONG_NO_PATH: u32 = u32::MAX;

/// One behaviour of a group with its weight.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrongBehaviourDesc {
    /// `THRONG_BEHAVIOUR_*`.
    pub kind: u32,
    /// Its weight in the group's sum (or priority order).
    pub weight: f32,
    /// The behaviour's main distance where its kind names one; 0 = the default.
    pub param: f32,
    /// The path of `THRONG_BEHAVIOUR_FOLLOW_PATH` (`throng_world_add_path`), or
    /// `THRONG_NO_PATH`: only the agents' own paths (`throng_agent_set_path`); the goal
    /// field of `THRONG_BEHAVIOUR_FOLLOW_FIELD` (`throng_world_add_goal_field`).
    pub path: u32,
}

/// `ThrongGroupDesc::combination`: weighted sum (the default).
pub const THRONG_COMBINATION_WEIGHTED_SUM: u32 = 0;
/// `ThrongGroupDesc::combination`: prioritized (Reynolds' truncated running sum).
pub const THRONG_COMBINATION_PRIORITIZED: u32 = 1;
/// `ThrongGroupDesc::combination`: prioritized dithering.
pub const THRONG_COMBINATION_DITHERED: u32 = 2;

/// A group: behaviours and the parameters its agents share. Start from
/// `throng_group_desc_default()`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrongGroupDesc {
    /// Its name, for reports and `throng_world_group_by_name` (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// `behaviour_count` behaviours, in priority order.
    pub behaviours: *const ThrongBehaviourDesc,
    /// How many.
    pub behaviour_count: usize,
    /// Neighbours are the agents within this distance (units). Default 3.
    pub neighbour_radius: f32,
    /// At most this many nearest neighbours. Default 12.
    pub max_neighbours: u32,
    /// `THRONG_COMBINATION_*`.
    pub combination: u32,
    /// True: reciprocal collision avoidance (ORCA) with its default parameters,
    /// so that the group's agents do not walk through each other.
    pub avoidance: bool,
    /// True: the host moves the group's agents. Each step computes their desired
    /// velocities (`throng_world_desired_velocities`) but moves none of them; the host
    /// writes positions and velocities back.
    pub host_moves: bool,
    /// Level of detail: the group's agents steer only every this many ticks (1 to
    /// 64), in rotation, moving on their last steering output in between. Default 1
    /// (every tick).
    pub think_every: u32,
}

/// A group named "group" with no behaviours, the default neighbour radius (3) and
/// cap (12), weighted sum, no avoidance, steering every tick.
#[no_mangle]
pub extern "C" fn throng_group_desc_default() -> ThrongGroupDesc {
    let d = GroupConfig::default();
    ThrongGroupDesc {
        name: c"group".as_ptr(),
        behaviours: std::ptr::null(),
        behaviour_count: 0,
        neighbour_radius: d.neighbour_radius,
        max_neighbours: d.max_neighbours as u32,
        combination: THRONG_COMBINATION_WEIGHTED_SUM,
        avoidance: false,
        host_moves: false,
        think_every: d.think_every,
    }
}

/// A parameter that is 0 for "the default", else finite and > 0.
fn param_or(key: &str, param: f32, default: f32) -> CResult<f32> {
    if param == 0.0 {
        return Ok(default);
    }
    let v = finite(key, param)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(Failure::invalid(format!(
            "{key} must be > 0 (or 0 for the default), got {v}"
        )))
    }
}

fn behaviour(i: usize, b: &ThrongBehaviourDesc) -> CResult<WeightedBehaviour> {
    let key = format!("behaviours[{i}].param");
    let behaviour = match b.kind {
        THRONG_BEHAVIOUR_SEEK => Behaviour::Seek,
        THRONG_BEHAVIOUR_FLEE => {
            let d = FleeParams::default();
            Behaviour::Flee(FleeParams {
                panic_distance: param_or(&key, b.param, d.panic_distance)?,
            })
        }
        THRONG_BEHAVIOUR_ARRIVE => {
            let d = ArriveParams::default();
            Behaviour::Arrive(ArriveParams {
                slowing_radius: param_or(&key, b.param, d.slowing_radius)?,
                ..d
            })
        }
        THRONG_BEHAVIOUR_PURSUIT => Behaviour::Pursuit,
        THRONG_BEHAVIOUR_EVADE => Behaviour::Evade(EvadeParams::default()),
        THRONG_BEHAVIOUR_WANDER => Behaviour::Wander(Default::default()),
        THRONG_BEHAVIOUR_SEPARATION => Behaviour::Separation(SeparationParams::default()),
        THRONG_BEHAVIOUR_COHESION => Behaviour::Cohesion,
        THRONG_BEHAVIOUR_ALIGNMENT => Behaviour::Alignment,
        THRONG_BEHAVIOUR_APPROACH => Behaviour::Approach(Default::default()),
        THRONG_BEHAVIOUR_WALL_AVOIDANCE => Behaviour::WallAvoidance(Default::default()),
        THRONG_BEHAVIOUR_OBSTACLE_AVOIDANCE => Behaviour::ObstacleAvoidance(Default::default()),
        THRONG_BEHAVIOUR_FOLLOW_PATH => {
            let d = PathFollowParams::default();
            Behaviour::FollowPath {
                path: (b.path != THRONG_NO_PATH).then(|| PathId::from_index(b.path as usize)),
                params: PathFollowParams {
                    path_radius: param_or(&key, b.param, d.path_radius)?,
                    ..d
                },
            }
        }
        THRONG_BEHAVIOUR_OFFSET_PURSUIT => Behaviour::OffsetPursuit(Default::default()),
        THRONG_BEHAVIOUR_LEADER_FOLLOW => Behaviour::LeaderFollow {
            leader: LeaderParams {
                behind_distance: param_or(&key, b.param, LeaderParams::default().behind_distance)?,
                ..LeaderParams::default()
            },
            separation: SeparationParams {
                strength: 2.0,
                ..SeparationParams::default()
            },
        },
        THRONG_BEHAVIOUR_LOOK_WHERE_YOU_ARE_GOING => {
            Behaviour::LookWhereYouAreGoing(Default::default())
        }
        THRONG_BEHAVIOUR_GIVE_WAY => Behaviour::GiveWay(EvadeParams::default()),
        THRONG_BEHAVIOUR_FOLLOW_FIELD => Behaviour::FollowField {
            field: FieldId::from_index(b.path as usize),
            params: FollowFieldParams {
                slowing_radius: param_or(&key, b.param, 0.0)?,
            },
        },
        other => {
            return Err(Failure::invalid(format!(
                "behaviours[{i}].kind: unknown behaviour {other} (THRONG_BEHAVIOUR_* are 0..=17)"
            )))
        }
    };
    let weight = finite(&format!("behaviours[{i}].weight"), b.weight)?;
    Ok(WeightedBehaviour::new(behaviour, weight))
}

fn group_config(d: &ThrongGroupDesc) -> CResult<GroupConfig> {
    let name = str_in(d.name, "desc.name")?;
    let behaviours = slice_in(d.behaviours, d.behaviour_count, "desc.behaviours")?
        .iter()
        .enumerate()
        .map(|(i, b)| behaviour(i, b))
        .collect::<CResult<Vec<_>>>()?;
    let combination = match d.combination {
        THRONG_COMBINATION_WEIGHTED_SUM => Combination::WeightedSum,
        THRONG_COMBINATION_PRIORITIZED => Combination::Prioritized,
        THRONG_COMBINATION_DITHERED => Combination::Dithered,
        other => {
            return Err(Failure::invalid(format!(
                "desc.combination must be 0, 1 or 2 (THRONG_COMBINATION_*), got {other}"
            )))
        }
    };
    Ok(GroupConfig {
        name: name.to_string(),
        behaviours,
        combination,
        neighbour_radius: d.neighbour_radius,
        max_neighbours: d.max_neighbours as usize,
        avoidance: d.avoidance.then(AvoidanceParams::default),
        host_moves: d.host_moves,
        think_every: d.think_every,
        ..GroupConfig::default()
    })
}

/// Add a group; `*out` receives its id. Parameters are checked (a follow-path
/// behaviour's path must exist).
///
/// # Safety
/// `world` is null or a live world; `desc` points at a `ThrongGroupDesc` whose
/// pointers are valid as it documents; `out` at a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_add_group(
    world: *mut ThrongWorld,
    desc: *const ThrongGroupDesc,
    out: *mut u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let d = read_in(desc, "desc")?;
        super::check_out(out, "out")?;
        let config = group_config(&d)?;
        let id = w.world_mut().add_group(config)?;
        write_out(out, "out", id.to_bits())
    })
}

/// The id of the first group called `name` (e.g. one a profile built), or
/// `THRONG_STATUS_UNKNOWN_GROUP`.
///
/// # Safety
/// `world` is null or a live world; `name` a NUL-terminated string; `out` points at
/// a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_group_by_name(
    world: *mut ThrongWorld,
    name: *const c_char,
    out: *mut u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let name = str_in(name, "name")?;
        super::check_out(out, "out")?;
        let index = w
            .world()
            .group_by_name(name)
            .map(crate::GroupId::to_bits)
            .ok_or_else(|| {
                Failure::new(
                    ThrongStatus::UnknownGroup,
                    format!("no group called {name:?}"),
                )
            })?;
        write_out(out, "out", index)
    })
}

/// Remove a group: its agents are despawned, and its id names no group from then
/// on (a later group may take its slot, with another id).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_world_remove_group(
    world: *mut ThrongWorld,
    group: u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let g = group_id(w.world(), group)?;
        Ok(w.world_mut().remove_group(g)?)
    })
}

/// The number of groups (their ids are `0..count` until one is removed: removed
/// groups are not counted; a later group takes a removed one's slot, with an id
/// whose high 16 bits, the slot's generation, differ, so the removed id stays dead).
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_group_count(
    world: *mut ThrongWorld,
    out: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| write_out(out, "out", w.world().groups().count()))
}

/// A group id from C: refused when it names no group of the world.
pub(crate) fn group_id(world: &crate::World, group: u32) -> CResult<crate::GroupId> {
    let id = world.group_from_bits(group);
    match id {
        id if world.group(id).is_some() => Ok(id),
        _ => Err(Failure::new(
            ThrongStatus::UnknownGroup,
            format!(
                "unknown group {group} (the world has {} groups)",
                world.groups().count()
            ),
        )),
    }
}
