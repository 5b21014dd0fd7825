//! Agents through the C ABI: spawn and despawn, read and change one agent by
//! handle, read every agent at once, arrival, gameplay queries.

use glam::Vec2;

use super::groups::{group_id, THRONG_NO_PATH};
use super::{
    check_out, copy_out, finite, read_in, slice_in, with_world, write_out, CResult, Failure,
    ThrongStatus, ThrongVec2, ThrongWorld,
};
use crate::group::PathId;
use crate::world::Arrival;
use crate::{AgentId, AgentSpec, Target, World};

/// `ThrongAgentDesc::target_kind`: no target.
pub const THRONG_TARGET_NONE: u32 = 0;
/// `ThrongAgentDesc::target_kind`: the point `target_point`.
pub const THRONG_TARGET_POINT: u32 = 1;
/// `ThrongAgentDesc::target_kind`: the agent `target_agent`.
pub const THRONG_TARGET_AGENT: u32 = 2;

/// Everything needed to spawn one agent. Start from `throng_agent_desc_default()`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrongAgentDesc {
    /// Its group.
    pub group: u32,
    /// Where it starts.
    pub position: ThrongVec2,
    /// Its initial velocity.
    pub velocity: ThrongVec2,
    /// Body radius (units), >= 0. Default 0.5.
    pub radius: f32,
    /// Mass, > 0. Default 1.
    pub mass: f32,
    /// Maximum speed (units/s), >= 0. Default 2.
    pub max_speed: f32,
    /// Maximum steering force, >= 0. Default 4.
    pub max_force: f32,
    /// `THRONG_TARGET_*`: what its targeted behaviours aim at.
    pub target_kind: u32,
    /// The target point (with `THRONG_TARGET_POINT`).
    pub target_point: ThrongVec2,
    /// The target agent's handle (with `THRONG_TARGET_AGENT`).
    pub target_agent: u64,
    /// Formation offset for offset pursuit, in the target agent's frame (x right,
    /// y forward).
    pub offset: ThrongVec2,
}

/// An agent of `group` at `(x, y)`, still, with the default body and no target.
#[no_mangle]
pub extern "C" fn throng_agent_desc_default(group: u32, x: f32, y: f32) -> ThrongAgentDesc {
    let d = AgentSpec::new(
        crate::GroupId {
            index: 0,
            generation: 0,
            world: crate::agents::WorldTag::NONE,
        },
        Vec2::ZERO,
    );
    ThrongAgentDesc {
        group,
        position: ThrongVec2 { x, y },
        velocity: ThrongVec2::default(),
        radius: d.radius,
        mass: d.mass,
        max_speed: d.max_speed,
        max_force: d.max_force,
        target_kind: THRONG_TARGET_NONE,
        target_point: ThrongVec2::default(),
        target_agent: 0,
        offset: ThrongVec2::default(),
    }
}

fn target(world: &World, kind: u32, point: ThrongVec2, agent: u64) -> CResult<Target> {
    match kind {
        THRONG_TARGET_NONE => Ok(Target::None),
        THRONG_TARGET_POINT => Ok(Target::Point(point.finite("target_point")?)),
        THRONG_TARGET_AGENT => Ok(Target::Agent(world.agent_from_bits(agent))),
        other => Err(Failure::invalid(format!(
            "target_kind must be 0, 1 or 2 (THRONG_TARGET_*), got {other}"
        ))),
    }
}

fn spec(world: &World, d: &ThrongAgentDesc) -> CResult<AgentSpec> {
    Ok(AgentSpec {
        group: group_id(world, d.group)?,
        position: d.position.finite("position")?,
        velocity: d.velocity.finite("velocity")?,
        heading: None,
        mass: d.mass,
        max_speed: d.max_speed,
        max_force: d.max_force,
        radius: d.radius,
        target: target(world, d.target_kind, d.target_point, d.target_agent)?,
        target2: Target::None,
        offset: d.offset.finite("offset")?,
    })
}

/// Spawn one agent; `*out` receives its handle.
///
/// # Safety
/// `world` is null or a live world; `desc` points at a `ThrongAgentDesc`; `out` at a
/// writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_spawn(
    world: *mut ThrongWorld,
    desc: *const ThrongAgentDesc,
    out: *mut u64,
) -> ThrongStatus {
    with_world(world, |w| {
        let d = read_in(desc, "desc")?;
        check_out(out, "out")?;
        let spec = spec(w.world(), &d)?;
        let id = w.world_mut().spawn(spec)?;
        write_out(out, "out", id.to_bits())
    })
}

/// Spawn `count` agents, all or nothing; `ids` receives their handles in order.
///
/// # Safety
/// `world` is null or a live world; `descs` points at `count` `ThrongAgentDesc`;
/// `ids` at `count` writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_spawn_many(
    world: *mut ThrongWorld,
    descs: *const ThrongAgentDesc,
    count: usize,
    ids: *mut u64,
) -> ThrongStatus {
    with_world(world, |w| {
        let descs = slice_in(descs, count, "descs")?;
        if count > 0 {
            check_out(ids, "ids")?;
        }
        let specs = descs
            .iter()
            .map(|d| spec(w.world(), d))
            .collect::<CResult<Vec<_>>>()?;
        let spawned = w.world_mut().spawn_many(&specs)?;
        let mut written = 0;
        copy_out(
            spawned.iter().map(|id| id.to_bits()),
            ids,
            count,
            &mut written,
            "ids",
        )
    })
}

/// Despawn an agent; its handle is stale from now on.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_world_despawn(world: *mut ThrongWorld, id: u64) -> ThrongStatus {
    with_world(world, |w| {
        let id = w.agent(id);
        Ok(w.world_mut().despawn(id)?)
    })
}

/// Whether `id` names a live agent (`*out` = true) or not.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `bool`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_contains(
    world: *mut ThrongWorld,
    id: u64,
    out: *mut bool,
) -> ThrongStatus {
    with_world(world, |w| {
        write_out(out, "out", w.world().contains(w.agent(id)))
    })
}

/// An agent's position.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `ThrongVec2`.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_position(
    world: *mut ThrongWorld,
    id: u64,
    out: *mut ThrongVec2,
) -> ThrongStatus {
    with_world(world, |w| {
        let p = w.world().position(w.agent(id))?;
        write_out(out, "out", p.into())
    })
}

/// An agent's velocity.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `ThrongVec2`.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_velocity(
    world: *mut ThrongWorld,
    id: u64,
    out: *mut ThrongVec2,
) -> ThrongStatus {
    with_world(world, |w| {
        let v = w.world().velocity(w.agent(id))?;
        write_out(out, "out", v.into())
    })
}

/// An agent's heading: radians clockwise from +y (0 faces +y, pi/2 faces +x).
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `float`.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_heading(
    world: *mut ThrongWorld,
    id: u64,
    out: *mut f32,
) -> ThrongStatus {
    with_world(world, |w| {
        let h = w.world().heading(w.agent(id))?;
        write_out(out, "out", h)
    })
}

/// Move an agent (a teleport: its velocity is kept).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_position(
    world: *mut ThrongWorld,
    id: u64,
    position: ThrongVec2,
) -> ThrongStatus {
    with_world(world, |w| {
        let p = position.finite("position")?;
        let id = w.agent(id);
        Ok(w.world_mut().set_position(id, p)?)
    })
}

/// Set an agent's velocity (truncated to its maximum speed).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_velocity(
    world: *mut ThrongWorld,
    id: u64,
    velocity: ThrongVec2,
) -> ThrongStatus {
    with_world(world, |w| {
        let v = velocity.finite("velocity")?;
        let id = w.agent(id);
        Ok(w.world_mut().set_velocity(id, v)?)
    })
}

/// Set an agent's heading (radians clockwise from +y).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_heading(
    world: *mut ThrongWorld,
    id: u64,
    heading: f32,
) -> ThrongStatus {
    with_world(world, |w| {
        let h = finite("heading", heading)?;
        let id = w.agent(id);
        Ok(w.world_mut().set_heading(id, h)?)
    })
}

/// Set what an agent's targeted behaviours aim at: `kind` is `THRONG_TARGET_*`, with
/// `point` for a point and `agent` for an agent (the other is ignored).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_target(
    world: *mut ThrongWorld,
    id: u64,
    kind: u32,
    point: ThrongVec2,
    agent: u64,
) -> ThrongStatus {
    with_world(world, |w| {
        let t = target(w.world(), kind, point, agent)?;
        let id = w.agent(id);
        Ok(w.world_mut().set_target(id, t)?)
    })
}

/// Drive an agent from the host: its group's behaviours are no longer run for it,
/// and each step it steers to `velocity` (truncated to its top speed) as fast as its
/// force allows; with its group's avoidance, ORCA keeps it as near `velocity` as it
/// can while staying collision-free (RVO2's preferred velocity). Other agents steer
/// around it. It stays until changed or cleared.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_preferred_velocity(
    world: *mut ThrongWorld,
    id: u64,
    velocity: ThrongVec2,
) -> ThrongStatus {
    with_world(world, |w| {
        let v = velocity.finite("velocity")?;
        let id = w.agent(id);
        Ok(w.world_mut().set_preferred_velocity(id, Some(v))?)
    })
}

/// Hand a host-driven agent back to its group's behaviours.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_clear_preferred_velocity(
    world: *mut ThrongWorld,
    id: u64,
) -> ThrongStatus {
    with_world(world, |w| {
        let id = w.agent(id);
        Ok(w.world_mut().set_preferred_velocity(id, None)?)
    })
}

/// Move an agent to another group, keeping its handle and state.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_group(
    world: *mut ThrongWorld,
    id: u64,
    group: u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let g = group_id(w.world(), group)?;
        let id = w.agent(id);
        Ok(w.world_mut().set_agent_group(id, g)?)
    })
}

/// Give an agent a path of its own (`throng_world_add_path`), which its group's
/// follow-path behaviour follows in place of the group's, or take it away with
/// `THRONG_NO_PATH`.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_path(
    world: *mut ThrongWorld,
    id: u64,
    path: u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let id = w.agent(id);
        let path = (path != THRONG_NO_PATH).then(|| PathId::from_index(path as usize));
        Ok(w.world_mut().set_agent_path(id, path)?)
    })
}

/// An agent's own path, or `THRONG_NO_PATH`.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_path(
    world: *mut ThrongWorld,
    id: u64,
    out: *mut u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let path = w.world().agent_path(w.agent(id))?;
        write_out(
            out,
            "out",
            path.map_or(THRONG_NO_PATH, |p| p.index() as u32),
        )
    })
}

/// Set an agent's body radius (>= 0).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_radius(
    world: *mut ThrongWorld,
    id: u64,
    radius: f32,
) -> ThrongStatus {
    with_world(world, |w| {
        let id = w.agent(id);
        Ok(w.world_mut().set_radius(id, radius)?)
    })
}

/// Set an agent's mass (> 0), maximum speed and maximum force (>= 0).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_body(
    world: *mut ThrongWorld,
    id: u64,
    mass: f32,
    max_speed: f32,
    max_force: f32,
) -> ThrongStatus {
    with_world(world, |w| {
        let id = w.agent(id);
        Ok(w.world_mut().set_limits(id, mass, max_speed, max_force)?)
    })
}

/// Set an agent's formation offset (in its target agent's frame: x right, y
/// forward).
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_set_offset(
    world: *mut ThrongWorld,
    id: u64,
    offset: ThrongVec2,
) -> ThrongStatus {
    with_world(world, |w| {
        let o = offset.finite("offset")?;
        let id = w.agent(id);
        Ok(w.world_mut().set_offset(id, o)?)
    })
}

/// Arrival state: no target (or its target agent is gone).
pub const THRONG_ARRIVAL_NO_TARGET: u8 = 0;
/// Arrival state: on its way.
pub const THRONG_ARRIVAL_MOVING: u8 = 1;
/// Arrival state: within its arrival tolerance of the target (see the Rust API's
/// `Arrival` for the tolerance).
pub const THRONG_ARRIVAL_ARRIVED: u8 = 2;
/// Arrival state: short of the target and barely moving for 5 s (blocked).
pub const THRONG_ARRIVAL_STUCK: u8 = 3;
/// Arrival state: it follows a goal field, and no goal of it can be reached from where
/// it stands.
pub const THRONG_ARRIVAL_UNREACHABLE: u8 = 4;
/// Arrival state: its target point is taken (others bound for it stand nearer), and it
/// waits at the edge of the crowd there (avoiding groups only); not stuck.
pub const THRONG_ARRIVAL_QUEUED: u8 = 5;

fn arrival_code(a: Arrival) -> u8 {
    match a {
        Arrival::NoTarget => THRONG_ARRIVAL_NO_TARGET,
        Arrival::Moving => THRONG_ARRIVAL_MOVING,
        Arrival::Arrived => THRONG_ARRIVAL_ARRIVED,
        Arrival::Stuck => THRONG_ARRIVAL_STUCK,
        Arrival::Unreachable => THRONG_ARRIVAL_UNREACHABLE,
        Arrival::Queued => THRONG_ARRIVAL_QUEUED,
    }
}

/// An agent's arrival state (`THRONG_ARRIVAL_*`) after the last tick.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `uint8_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_arrival(
    world: *mut ThrongWorld,
    id: u64,
    out: *mut u8,
) -> ThrongStatus {
    with_world(world, |w| {
        let a = w.world().arrival(w.agent(id))?;
        write_out(out, "out", arrival_code(a))
    })
}

/// A change of an agent's arrival state during the last tick.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrongArrivalEvent {
    /// The agent.
    pub agent: u64,
    /// Its state before the tick (`THRONG_ARRIVAL_*`).
    pub from: u8,
    /// Its state after it.
    pub to: u8,
}

/// The arrival changes of the last tick, in row order (see the module's bulk reads:
/// `written` gets the count; a null array with capacity 0 asks only the count).
///
/// # Safety
/// `world` is null or a live world; `out` null (with `cap` 0) or `cap` writable
/// items; `written` points at a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_arrival_events(
    world: *mut ThrongWorld,
    out: *mut ThrongArrivalEvent,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let events = w
            .world()
            .arrival_events()
            .iter()
            .map(|e| ThrongArrivalEvent {
                agent: e.agent.to_bits(),
                from: arrival_code(e.from),
                to: arrival_code(e.to),
            });
        copy_out(events, out, cap, written, "out")
    })
}

/// `ThrongSightEvent`'s `entered` or `left` when there is no such leader.
pub const THRONG_NO_AGENT: u64 = u64::MAX;

/// A change of the leader in whose sight an agent is, during the last step.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrongSightEvent {
    /// The agent.
    pub agent: u64,
    /// The leader whose sight it entered, or `THRONG_NO_AGENT`.
    pub entered: u64,
    /// The leader whose sight it left, or `THRONG_NO_AGENT`.
    pub left: u64,
}

/// The agents that entered or left a leader's sight during the last step, in row
/// order (the bulk-read convention for `out`, `cap` and `written`).
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_sight_events(
    world: *mut ThrongWorld,
    out: *mut ThrongSightEvent,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let bits = |a: Option<AgentId>| a.map_or(THRONG_NO_AGENT, AgentId::to_bits);
        let events = w.world().sight_events().iter().map(|e| ThrongSightEvent {
            agent: e.agent.to_bits(),
            entered: bits(e.entered),
            left: bits(e.left),
        });
        copy_out(events, out, cap, written, "out")
    })
}

/// Every agent's handle, in row order: row `i` of the other bulk reads is agent
/// `ids[i]` (rows move between ticks; handles don't).
///
/// # Safety
/// `world` is null or a live world; `out` null (with `cap` 0) or `cap` writable
/// items; `written` points at a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_ids(
    world: *mut ThrongWorld,
    out: *mut u64,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let ids = w.world().ids().iter().map(|id| id.to_bits());
        copy_out(ids, out, cap, written, "out")
    })
}

/// Every agent's position, in row order.
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_positions(
    world: *mut ThrongWorld,
    out: *mut ThrongVec2,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let items = w.world().positions().iter().map(|&p| ThrongVec2::from(p));
        copy_out(items, out, cap, written, "out")
    })
}

/// Every agent's velocity, in row order.
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_velocities(
    world: *mut ThrongWorld,
    out: *mut ThrongVec2,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let items = w.world().velocities().iter().map(|&v| ThrongVec2::from(v));
        copy_out(items, out, cap, written, "out")
    })
}

/// Every agent's heading (radians clockwise from +y), in row order.
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_headings(
    world: *mut ThrongWorld,
    out: *mut f32,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        copy_out(
            w.world().headings().iter().copied(),
            out,
            cap,
            written,
            "out",
        )
    })
}

/// The velocity the last step gave an agent: for an agent of a group the host moves,
/// the one its behaviours, body and avoidance want it to move at; for any other, the
/// velocity it moved at.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `ThrongVec2`.
#[no_mangle]
pub unsafe extern "C" fn throng_agent_desired_velocity(
    world: *mut ThrongWorld,
    id: u64,
    out: *mut ThrongVec2,
) -> ThrongStatus {
    with_world(world, |w| {
        let v = w.world().desired_velocity(w.agent(id))?;
        write_out(out, "out", v.into())
    })
}

/// Every agent's desired velocity (`throng_agent_desired_velocity`), in row order.
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_desired_velocities(
    world: *mut ThrongWorld,
    out: *mut ThrongVec2,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let items = w.world().desired_velocities().map(ThrongVec2::from);
        copy_out(items, out, cap, written, "out")
    })
}

/// Every agent's arrival state (`THRONG_ARRIVAL_*`), in row order.
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_arrivals(
    world: *mut ThrongWorld,
    out: *mut u8,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        copy_out(
            w.world().arrivals().map(arrival_code),
            out,
            cap,
            written,
            "out",
        )
    })
}

/// Every agent's group id, in row order.
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_groups(
    world: *mut ThrongWorld,
    out: *mut u32,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let world = w.world();
        let groups = world
            .group_indices()
            .iter()
            .map(|&g| world.group_id(g).to_bits());
        copy_out(groups, out, cap, written, "out")
    })
}

/// The agents within `radius` of `point` (of group `group`, or of every group when
/// `group` is `THRONG_ANY_GROUP`), nearest first, as handles; the bulk-read
/// convention for `out`, `cap` and `written`. Positions are those after the last
/// change (step, spawn, despawn, set_position).
///
/// # Safety
/// As `throng_world_ids`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_agents_within(
    world: *mut ThrongWorld,
    point: ThrongVec2,
    radius: f32,
    group: u32,
    out: *mut u64,
    cap: usize,
    written: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let p = point.finite("point")?;
        let group = match group {
            THRONG_ANY_GROUP => None,
            g => Some(group_id(w.world(), g)?),
        };
        let mut found = Vec::new();
        w.world().agents_within(p, radius, group, &mut found)?;
        copy_out(
            found.iter().map(|id| id.to_bits()),
            out,
            cap,
            written,
            "out",
        )
    })
}

/// `group` of `throng_world_agents_within`: agents of every group.
pub const THRONG_ANY_GROUP: u32 = u32::MAX;

/// The agent nearest to `point` within `max_radius`: `*found` says whether there is
/// one and `*out` is its handle.
///
/// # Safety
/// `world` is null or a live world; `out` and `found` point at a writable
/// `uint64_t` and `bool`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_nearest_agent(
    world: *mut ThrongWorld,
    point: ThrongVec2,
    max_radius: f32,
    out: *mut u64,
    found: *mut bool,
) -> ThrongStatus {
    with_world(world, |w| {
        let p = point.finite("point")?;
        check_out(out, "out")?;
        check_out(found, "found")?;
        let nearest = w.world().nearest_agent(p, max_radius, None)?;
        write_out(out, "out", nearest.map_or(0, AgentId::to_bits))?;
        write_out(found, "found", nearest.is_some())
    })
}

/// A bulk write through the C ABI: the caller's `count` handles and vectors, checked
/// for null pointers and alignment, each vector turned into `V` by `value`, then
/// handed to `write` (which checks everything before it writes anything).
fn bulk_write<V>(
    world: *mut ThrongWorld,
    (ids, values, count): (*const u64, *const ThrongVec2, usize),
    value: impl Fn(&ThrongVec2) -> V,
    write: impl FnOnce(&mut World, &[AgentId], &[V]) -> crate::Result<()>,
) -> ThrongStatus {
    with_world(world, |w| {
        let ids = slice_in(ids, count, "ids")?;
        let values = slice_in(values, count, "values")?;
        let ids: Vec<AgentId> = ids.iter().map(|&b| w.agent(b)).collect();
        let values: Vec<V> = values.iter().map(value).collect();
        Ok(write(w.world_mut(), &ids, &values)?)
    })
}

/// A vector from C as it is (the engine checks it is finite).
fn vec2(v: &ThrongVec2) -> Vec2 {
    Vec2::new(v.x, v.y)
}

/// Move many agents in one call: `positions[i]` for `ids[i]`, `count` of each. All or
/// nothing: nothing is written unless every handle is live and every position finite
/// (50,000 in well under a millisecond, against one call each).
///
/// # Safety
/// `world` is null or a live world; `ids` and `positions` null (with `count` 0) or
/// `count` readable items each.
#[no_mangle]
pub unsafe extern "C" fn throng_agents_set_positions(
    world: *mut ThrongWorld,
    ids: *const u64,
    positions: *const ThrongVec2,
    count: usize,
) -> ThrongStatus {
    bulk_write(world, (ids, positions, count), vec2, World::set_positions)
}

/// Set many agents' velocities in one call (each truncated to its agent's maximum
/// speed), all or nothing, as `throng_agents_set_positions`.
///
/// # Safety
/// As `throng_agents_set_positions`.
#[no_mangle]
pub unsafe extern "C" fn throng_agents_set_velocities(
    world: *mut ThrongWorld,
    ids: *const u64,
    velocities: *const ThrongVec2,
    count: usize,
) -> ThrongStatus {
    bulk_write(world, (ids, velocities, count), vec2, World::set_velocities)
}

/// Drive many agents from the host in one call (`throng_agent_set_preferred_velocity`
/// for each): a velocity whose x and y are both NaN clears the agent's, any other
/// must be finite. All or nothing, as `throng_agents_set_positions`.
///
/// # Safety
/// As `throng_agents_set_positions`.
#[no_mangle]
pub unsafe extern "C" fn throng_agents_set_preferred_velocities(
    world: *mut ThrongWorld,
    ids: *const u64,
    velocities: *const ThrongVec2,
    count: usize,
) -> ThrongStatus {
    bulk_write(
        world,
        (ids, velocities, count),
        |v| (!(v.x.is_nan() && v.y.is_nan())).then(|| vec2(v)),
        World::set_preferred_velocities,
    )
}

/// Give many agents a point target each in one call: `points[i]` for `ids[i]`. All
/// or nothing, as `throng_agents_set_positions`.
///
/// # Safety
/// As `throng_agents_set_positions`.
#[no_mangle]
pub unsafe extern "C" fn throng_agents_set_target_points(
    world: *mut ThrongWorld,
    ids: *const u64,
    points: *const ThrongVec2,
    count: usize,
) -> ThrongStatus {
    bulk_write(
        world,
        (ids, points, count),
        |v| Target::Point(vec2(v)),
        World::set_each_target,
    )
}
