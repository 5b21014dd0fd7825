//! The C ABI called as C calls it: every function with null pointers, stale handles
//! and non-finite numbers; panics; buffers; the same bits as the Rust API.

use std::collections::BTreeSet;
use std::ffi::CStr;
use std::ptr::{null, null_mut};

use super::agents::*;
use super::groups::*;
use super::world::*;
use super::*;

const NAN: f32 = f32::NAN;
const S: ThrongStatus = ThrongStatus::Ok;

fn last_error() -> String {
    // SAFETY: `throng_last_error` returns a NUL-terminated string that stays valid
    // until the next failing call on this thread.
    unsafe { CStr::from_ptr(throng_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn ok(status: ThrongStatus) {
    assert_eq!(status, S, "{}", last_error());
}

fn v(x: f32, y: f32) -> ThrongVec2 {
    ThrongVec2 { x, y }
}

/// A world with a path and a group of walkers with avoidance: one walking to (8, 0)
/// past two standing either side of its way, stepped twice.
struct Fixture {
    world: *mut ThrongWorld,
    walker: u64,
    group: u32,
}

impl Fixture {
    fn new() -> Self {
        let mut world = null_mut();
        let config = throng_world_config_default();
        unsafe {
            ok(throng_world_new(&config, &mut world));
            let square = [v(0.0, 0.0), v(5.0, 0.0), v(5.0, 5.0)];
            let mut path = 0;
            ok(throng_world_add_path(
                world,
                square.as_ptr(),
                3,
                true,
                &mut path,
            ));
            let behaviours = [
                ThrongBehaviourDesc {
                    kind: THRONG_BEHAVIOUR_ARRIVE,
                    weight: 1.0,
                    param: 2.0,
                    path: 0,
                },
                ThrongBehaviourDesc {
                    kind: THRONG_BEHAVIOUR_SEPARATION,
                    weight: 1.5,
                    param: 0.0,
                    path: 0,
                },
            ];
            let mut desc = throng_group_desc_default();
            desc.name = c"walkers".as_ptr();
            desc.behaviours = behaviours.as_ptr();
            desc.behaviour_count = behaviours.len();
            desc.avoidance = true;
            let mut group = 0;
            ok(throng_world_add_group(world, &desc, &mut group));
            let mut walker = 0;
            let mut spec = throng_agent_desc_default(group, 0.0, 0.0);
            spec.target_kind = THRONG_TARGET_POINT;
            spec.target_point = v(8.0, 0.0);
            ok(throng_world_spawn(world, &spec, &mut walker));
            let others = [
                throng_agent_desc_default(group, 4.0, 4.0),
                throng_agent_desc_default(group, 4.0, -4.0),
            ];
            let mut ids = [0u64; 2];
            ok(throng_world_spawn_many(
                world,
                others.as_ptr(),
                2,
                ids.as_mut_ptr(),
            ));
            ok(throng_world_step(world, 0.05));
            ok(throng_world_step(world, 0.05));
            Self {
                world,
                walker,
                group,
            }
        }
    }

    fn hash(&self) -> u64 {
        let mut h = 0;
        ok(unsafe { throng_world_state_hash(self.world, &mut h) });
        h
    }

    fn stale(&self) -> u64 {
        // A handle whose generation was never given out.
        self.walker.wrapping_add(7u64 << 32)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        ok(unsafe { throng_world_free(self.world) });
    }
}

/// Every exported function, with what it does given a null world, a null
/// output or input, a stale handle and a NaN (where it takes each). Each call must
/// return the expected status and leave the world's hash unchanged. The names are
/// checked against the header, so a new function without a row here fails.
#[test]
fn every_function_refuses_null_pointers_stale_handles_and_nan() {
    let f = Fixture::new();
    let w = f.world;
    let id = f.walker;
    let stale = f.stale();
    let g = f.group;
    let before = f.hash();
    let mut seen = BTreeSet::new();
    let mut u64_out = 0u64;
    let mut u32_out = 0u32;
    let mut usize_out = 0usize;
    let mut f32_out = 0f32;
    let mut u8_out = 0u8;
    let mut bool_out = false;
    let mut vec_out = ThrongVec2::default();
    let mut world_out: *mut ThrongWorld = null_mut();
    let mut stats = ThrongTickStats::default();
    let config = throng_world_config_default();
    let spec = throng_agent_desc_default(g, 1.0, 1.0);
    let group_desc = throng_group_desc_default();
    let walls = [0.0f32, 0.0, 1.0, 1.0];
    let nan_walls = [0.0f32, NAN, 1.0, 1.0];
    let points = [v(0.0, 0.0), v(1.0, 0.0)];
    let nan_points = [v(0.0, 0.0), v(NAN, 0.0)];
    let mut buf = [0u64; 8];
    let mut events = [ThrongArrivalEvent {
        agent: 0,
        from: 0,
        to: 0,
    }; 2];
    let profile =
        c"[[groups]]\nname = \"a\"\ncount = 1\nspawn = { shape = \"disc\", radius = 1.0 }\n";

    use ThrongStatus::{InvalidArgument as Inv, NullPointer as Null, UnknownAgent as Stale};
    // (function, [(status it must return, the call)])
    macro_rules! check {
        ($name:ident: $($expect:expr => $call:expr),+ $(,)?) => {{
            seen.insert(stringify!($name));
            $(
                let got = $call;
                assert_eq!(got, $expect, "{}: {}", stringify!($call), last_error());
                assert_ne!(last_error(), "", "{} set no message", stringify!($call));
            )+
        }};
    }
    unsafe {
        check!(throng_world_new:
            Null => throng_world_new(null(), &mut world_out),
            Null => throng_world_new(&config, null_mut()),
            Inv => throng_world_new(&ThrongWorldConfig { index: 9, ..config }, &mut world_out),
            Inv => throng_world_new(&ThrongWorldConfig { integrator: 9, ..config }, &mut world_out),
            Inv => throng_world_new(&ThrongWorldConfig { threads: 1_000_000, ..config }, &mut world_out));
        check!(throng_world_from_profile:
            Null => throng_world_from_profile(null(), 0, &mut world_out),
            Null => throng_world_from_profile(profile.as_ptr(), 0, null_mut()),
            Inv => throng_world_from_profile(c"[world]\ndt = nan\n".as_ptr(), 0, &mut world_out));
        check!(throng_world_from_snapshot:
            Null => throng_world_from_snapshot(null(), 4, 0, &mut world_out),
            ThrongStatus::InvalidSnapshot => throng_world_from_snapshot([1u8, 2, 3].as_ptr(), 3, 0, &mut world_out),
            Null => throng_world_from_snapshot([1u8].as_ptr(), 1, 0, null_mut()));
        assert!(world_out.is_null(), "a failed constructor wrote its output");
        check!(throng_world_step:
            Null => throng_world_step(null_mut(), 0.1),
            Inv => throng_world_step(w, NAN),
            Inv => throng_world_step(w, 0.0));
        check!(throng_world_len: Null => throng_world_len(null_mut(), &mut usize_out), Null => throng_world_len(w, null_mut()));
        check!(throng_world_tick: Null => throng_world_tick(null_mut(), &mut u64_out), Null => throng_world_tick(w, null_mut()));
        check!(throng_world_state_hash: Null => throng_world_state_hash(null_mut(), &mut u64_out), Null => throng_world_state_hash(w, null_mut()));
        check!(throng_world_last_stats: Null => throng_world_last_stats(null_mut(), &mut stats), Null => throng_world_last_stats(w, null_mut()));
        check!(throng_world_snapshot:
            Null => throng_world_snapshot(null_mut(), null_mut(), 0, &mut usize_out),
            Null => throng_world_snapshot(w, null_mut(), 0, null_mut()),
            Null => throng_world_snapshot(w, null_mut(), 10, &mut usize_out));
        check!(throng_world_restore:
            Null => throng_world_restore(null_mut(), [0u8].as_ptr(), 1),
            Null => throng_world_restore(w, null(), 1),
            ThrongStatus::InvalidSnapshot => throng_world_restore(w, [0u8, 1].as_ptr(), 2));
        check!(throng_world_set_walls:
            Null => throng_world_set_walls(null_mut(), walls.as_ptr(), 1),
            Null => throng_world_set_walls(w, null(), 1),
            Inv => throng_world_set_walls(w, nan_walls.as_ptr(), 1));
        check!(throng_world_set_obstacles:
            Null => throng_world_set_obstacles(null_mut(), walls.as_ptr(), 1),
            Null => throng_world_set_obstacles(w, null(), 1),
            Inv => throng_world_set_obstacles(w, nan_walls.as_ptr(), 1));
        check!(throng_world_add_path:
            Null => throng_world_add_path(null_mut(), points.as_ptr(), 2, false, &mut u32_out),
            Null => throng_world_add_path(w, null(), 2, false, &mut u32_out),
            Null => throng_world_add_path(w, points.as_ptr(), 2, false, null_mut()),
            Inv => throng_world_add_path(w, nan_points.as_ptr(), 2, false, &mut u32_out));
        check!(throng_world_remove_path:
            Null => throng_world_remove_path(null_mut(), 0),
            Inv => throng_world_remove_path(w, 99));
        let goal = [5.0f32, 5.0, 6.0, 6.0];
        check!(throng_world_add_goal_field:
            Null => throng_world_add_goal_field(null_mut(), goal.as_ptr(), 1, 0.5, 0.0, &mut u32_out),
            Null => throng_world_add_goal_field(w, null(), 1, 0.5, 0.0, &mut u32_out),
            Null => throng_world_add_goal_field(w, goal.as_ptr(), 1, 0.5, 0.0, null_mut()),
            Inv => throng_world_add_goal_field(w, nan_walls.as_ptr(), 1, 0.5, 0.0, &mut u32_out),
            Inv => throng_world_add_goal_field(w, goal.as_ptr(), 1, NAN, 0.0, &mut u32_out),
            Inv => throng_world_add_goal_field(w, goal.as_ptr(), 1, 0.5, -1.0, &mut u32_out));
        check!(throng_world_remove_goal_field:
            Null => throng_world_remove_goal_field(null_mut(), 0),
            Inv => throng_world_remove_goal_field(w, 99));
        check!(throng_world_set_level_of_detail:
            Null => throng_world_set_level_of_detail(null_mut(), v(0.0, 0.0), 1.0, 2),
            Inv => throng_world_set_level_of_detail(w, v(NAN, 0.0), 1.0, 2),
            Inv => throng_world_set_level_of_detail(w, v(0.0, 0.0), NAN, 2),
            Inv => throng_world_set_level_of_detail(w, v(0.0, 0.0), 1.0, 65));
        check!(throng_world_clear_line:
            Null => throng_world_clear_line(null_mut(), v(0.0, 0.0), v(1.0, 0.0), 0.0, &mut bool_out),
            Null => throng_world_clear_line(w, v(0.0, 0.0), v(1.0, 0.0), 0.0, null_mut()),
            Inv => throng_world_clear_line(w, v(NAN, 0.0), v(1.0, 0.0), 0.0, &mut bool_out),
            Inv => throng_world_clear_line(w, v(0.0, 0.0), v(1.0, 0.0), -1.0, &mut bool_out));
        check!(throng_world_field_distance:
            Null => throng_world_field_distance(null_mut(), 0, 0.0, 0.0, &mut f32_out),
            Inv => throng_world_field_distance(w, 99, 0.0, 0.0, &mut f32_out),
            Inv => throng_world_field_distance(w, 99, NAN, 0.0, &mut f32_out));
        check!(throng_world_remove_group:
            Null => throng_world_remove_group(null_mut(), g),
            ThrongStatus::UnknownGroup => throng_world_remove_group(w, 99));
        check!(throng_agent_set_path:
            Null => throng_agent_set_path(null_mut(), id, 0),
            Stale => throng_agent_set_path(w, stale, 0),
            Inv => throng_agent_set_path(w, id, 99));
        check!(throng_agent_path:
            Null => throng_agent_path(null_mut(), id, &mut u32_out),
            Stale => throng_agent_path(w, stale, &mut u32_out),
            Null => throng_agent_path(w, id, null_mut()));
        check!(throng_world_path_count: Null => throng_world_path_count(null_mut(), &mut usize_out), Null => throng_world_path_count(w, null_mut()));
        check!(throng_world_add_group:
            Null => throng_world_add_group(null_mut(), &group_desc, &mut u32_out),
            Null => throng_world_add_group(w, null(), &mut u32_out),
            Null => throng_world_add_group(w, &group_desc, null_mut()),
            Null => throng_world_add_group(w, &ThrongGroupDesc { name: null(), ..group_desc }, &mut u32_out),
            Null => throng_world_add_group(w, &ThrongGroupDesc { behaviour_count: 1, ..group_desc }, &mut u32_out),
            Inv => throng_world_add_group(w, &ThrongGroupDesc { neighbour_radius: NAN, ..group_desc }, &mut u32_out),
            Inv => throng_world_add_group(w, &ThrongGroupDesc { combination: 7, ..group_desc }, &mut u32_out),
            Inv => throng_world_add_group(w, &ThrongGroupDesc {
                behaviours: [ThrongBehaviourDesc { kind: THRONG_BEHAVIOUR_ARRIVE, weight: NAN, param: 0.0, path: 0 }].as_ptr(),
                behaviour_count: 1, ..group_desc }, &mut u32_out),
            Inv => throng_world_add_group(w, &ThrongGroupDesc {
                behaviours: [ThrongBehaviourDesc { kind: THRONG_BEHAVIOUR_ARRIVE, weight: 1.0, param: NAN, path: 0 }].as_ptr(),
                behaviour_count: 1, ..group_desc }, &mut u32_out),
            Inv => throng_world_add_group(w, &ThrongGroupDesc {
                behaviours: [ThrongBehaviourDesc { kind: 99, weight: 1.0, param: 0.0, path: 0 }].as_ptr(),
                behaviour_count: 1, ..group_desc }, &mut u32_out),
            Inv => throng_world_add_group(w, &ThrongGroupDesc {
                behaviours: [ThrongBehaviourDesc { kind: THRONG_BEHAVIOUR_FOLLOW_PATH, weight: 1.0, param: 0.0, path: 40 }].as_ptr(),
                behaviour_count: 1, ..group_desc }, &mut u32_out));
        check!(throng_world_group_by_name:
            Null => throng_world_group_by_name(null_mut(), c"walkers".as_ptr(), &mut u32_out),
            Null => throng_world_group_by_name(w, null(), &mut u32_out),
            Null => throng_world_group_by_name(w, c"walkers".as_ptr(), null_mut()),
            ThrongStatus::UnknownGroup => throng_world_group_by_name(w, c"nobody".as_ptr(), &mut u32_out));
        check!(throng_world_group_count: Null => throng_world_group_count(null_mut(), &mut usize_out), Null => throng_world_group_count(w, null_mut()));
        check!(throng_world_spawn:
            Null => throng_world_spawn(null_mut(), &spec, &mut u64_out),
            Null => throng_world_spawn(w, null(), &mut u64_out),
            Null => throng_world_spawn(w, &spec, null_mut()),
            Inv => throng_world_spawn(w, &ThrongAgentDesc { position: v(NAN, 0.0), ..spec }, &mut u64_out),
            Inv => throng_world_spawn(w, &ThrongAgentDesc { velocity: v(0.0, f32::INFINITY), ..spec }, &mut u64_out),
            Inv => throng_world_spawn(w, &ThrongAgentDesc { mass: NAN, ..spec }, &mut u64_out),
            Inv => throng_world_spawn(w, &ThrongAgentDesc { radius: NAN, ..spec }, &mut u64_out),
            Inv => throng_world_spawn(w, &ThrongAgentDesc { target_kind: THRONG_TARGET_POINT, target_point: v(NAN, 1.0), ..spec }, &mut u64_out),
            Inv => throng_world_spawn(w, &ThrongAgentDesc { target_kind: 5, ..spec }, &mut u64_out),
            Stale => throng_world_spawn(w, &ThrongAgentDesc { target_kind: THRONG_TARGET_AGENT, target_agent: stale, ..spec }, &mut u64_out),
            ThrongStatus::UnknownGroup => throng_world_spawn(w, &ThrongAgentDesc { group: 9, ..spec }, &mut u64_out));
        check!(throng_world_spawn_many:
            Null => throng_world_spawn_many(null_mut(), &spec, 1, buf.as_mut_ptr()),
            Null => throng_world_spawn_many(w, null(), 1, buf.as_mut_ptr()),
            Null => throng_world_spawn_many(w, &spec, 1, null_mut()),
            Inv => throng_world_spawn_many(w, [spec, ThrongAgentDesc { max_speed: NAN, ..spec }].as_ptr(), 2, buf.as_mut_ptr()));
        check!(throng_world_despawn: Null => throng_world_despawn(null_mut(), id), Stale => throng_world_despawn(w, stale));
        let (one, at) = ([id], [v(1.0, 1.0)]);
        let (stale_one, nan) = ([stale], [v(NAN, 1.0)]);
        check!(throng_agents_set_positions:
            Null => throng_agents_set_positions(null_mut(), one.as_ptr(), at.as_ptr(), 1),
            Null => throng_agents_set_positions(w, null(), at.as_ptr(), 1),
            Null => throng_agents_set_positions(w, one.as_ptr(), null(), 1),
            Stale => throng_agents_set_positions(w, stale_one.as_ptr(), at.as_ptr(), 1),
            Inv => throng_agents_set_positions(w, one.as_ptr(), nan.as_ptr(), 1));
        check!(throng_agents_set_velocities:
            Null => throng_agents_set_velocities(null_mut(), one.as_ptr(), at.as_ptr(), 1),
            Null => throng_agents_set_velocities(w, null(), at.as_ptr(), 1),
            Stale => throng_agents_set_velocities(w, stale_one.as_ptr(), at.as_ptr(), 1),
            Inv => throng_agents_set_velocities(w, one.as_ptr(), nan.as_ptr(), 1));
        check!(throng_agents_set_preferred_velocities:
            Null => throng_agents_set_preferred_velocities(null_mut(), one.as_ptr(), at.as_ptr(), 1),
            Null => throng_agents_set_preferred_velocities(w, one.as_ptr(), null(), 1),
            Stale => throng_agents_set_preferred_velocities(w, stale_one.as_ptr(), at.as_ptr(), 1),
            Inv => throng_agents_set_preferred_velocities(w, one.as_ptr(), nan.as_ptr(), 1));
        check!(throng_agents_set_target_points:
            Null => throng_agents_set_target_points(null_mut(), one.as_ptr(), at.as_ptr(), 1),
            Null => throng_agents_set_target_points(w, null(), at.as_ptr(), 1),
            Stale => throng_agents_set_target_points(w, stale_one.as_ptr(), at.as_ptr(), 1),
            Inv => throng_agents_set_target_points(w, one.as_ptr(), nan.as_ptr(), 1));
        check!(throng_world_contains: Null => throng_world_contains(null_mut(), id, &mut bool_out), Null => throng_world_contains(w, id, null_mut()));
        check!(throng_agent_position:
            Null => throng_agent_position(null_mut(), id, &mut vec_out),
            Null => throng_agent_position(w, id, null_mut()),
            Stale => throng_agent_position(w, stale, &mut vec_out));
        check!(throng_agent_velocity:
            Null => throng_agent_velocity(null_mut(), id, &mut vec_out),
            Null => throng_agent_velocity(w, id, null_mut()),
            Stale => throng_agent_velocity(w, stale, &mut vec_out));
        check!(throng_agent_heading:
            Null => throng_agent_heading(null_mut(), id, &mut f32_out),
            Null => throng_agent_heading(w, id, null_mut()),
            Stale => throng_agent_heading(w, stale, &mut f32_out));
        check!(throng_agent_set_position:
            Null => throng_agent_set_position(null_mut(), id, v(1.0, 1.0)),
            Stale => throng_agent_set_position(w, stale, v(1.0, 1.0)),
            Inv => throng_agent_set_position(w, id, v(NAN, 1.0)));
        check!(throng_agent_set_velocity:
            Null => throng_agent_set_velocity(null_mut(), id, v(1.0, 1.0)),
            Stale => throng_agent_set_velocity(w, stale, v(1.0, 1.0)),
            Inv => throng_agent_set_velocity(w, id, v(1.0, NAN)));
        check!(throng_agent_set_heading:
            Null => throng_agent_set_heading(null_mut(), id, 1.0),
            Stale => throng_agent_set_heading(w, stale, 1.0),
            Inv => throng_agent_set_heading(w, id, NAN));
        check!(throng_agent_set_target:
            Null => throng_agent_set_target(null_mut(), id, THRONG_TARGET_NONE, v(0.0, 0.0), 0),
            Stale => throng_agent_set_target(w, stale, THRONG_TARGET_NONE, v(0.0, 0.0), 0),
            Stale => throng_agent_set_target(w, id, THRONG_TARGET_AGENT, v(0.0, 0.0), stale),
            Inv => throng_agent_set_target(w, id, THRONG_TARGET_POINT, v(NAN, 0.0), 0),
            Inv => throng_agent_set_target(w, id, 17, v(0.0, 0.0), 0));
        check!(throng_agent_set_preferred_velocity:
            Null => throng_agent_set_preferred_velocity(null_mut(), id, v(1.0, 0.0)),
            Stale => throng_agent_set_preferred_velocity(w, stale, v(1.0, 0.0)),
            Inv => throng_agent_set_preferred_velocity(w, id, v(NAN, 0.0)),
            Inv => throng_agent_set_preferred_velocity(w, id, v(0.0, f32::INFINITY)));
        check!(throng_agent_clear_preferred_velocity:
            Null => throng_agent_clear_preferred_velocity(null_mut(), id),
            Stale => throng_agent_clear_preferred_velocity(w, stale));
        check!(throng_agent_set_group:
            Null => throng_agent_set_group(null_mut(), id, g),
            Stale => throng_agent_set_group(w, stale, g),
            ThrongStatus::UnknownGroup => throng_agent_set_group(w, id, 77));
        check!(throng_agent_set_radius:
            Null => throng_agent_set_radius(null_mut(), id, 1.0),
            Stale => throng_agent_set_radius(w, stale, 1.0),
            Inv => throng_agent_set_radius(w, id, NAN),
            Inv => throng_agent_set_radius(w, id, -1.0));
        check!(throng_agent_set_body:
            Null => throng_agent_set_body(null_mut(), id, 1.0, 1.0, 1.0),
            Stale => throng_agent_set_body(w, stale, 1.0, 1.0, 1.0),
            Inv => throng_agent_set_body(w, id, NAN, 1.0, 1.0),
            Inv => throng_agent_set_body(w, id, 1.0, NAN, 1.0),
            Inv => throng_agent_set_body(w, id, 1.0, 1.0, NAN));
        check!(throng_agent_set_offset:
            Null => throng_agent_set_offset(null_mut(), id, v(0.0, 0.0)),
            Stale => throng_agent_set_offset(w, stale, v(0.0, 0.0)),
            Inv => throng_agent_set_offset(w, id, v(0.0, NAN)));
        check!(throng_agent_arrival:
            Null => throng_agent_arrival(null_mut(), id, &mut u8_out),
            Null => throng_agent_arrival(w, id, null_mut()),
            Stale => throng_agent_arrival(w, stale, &mut u8_out));
        check!(throng_world_arrival_events:
            Null => throng_world_arrival_events(null_mut(), events.as_mut_ptr(), 2, &mut usize_out),
            Null => throng_world_arrival_events(w, events.as_mut_ptr(), 2, null_mut()));
        check!(throng_world_sight_events:
            Null => throng_world_sight_events(null_mut(), null_mut(), 0, &mut usize_out),
            Null => throng_world_sight_events(w, null_mut(), 4, &mut usize_out),
            Null => throng_world_sight_events(w, null_mut(), 0, null_mut()));
        check!(throng_world_ids:
            Null => throng_world_ids(null_mut(), buf.as_mut_ptr(), 8, &mut usize_out),
            Null => throng_world_ids(w, null_mut(), 8, &mut usize_out),
            Null => throng_world_ids(w, buf.as_mut_ptr(), 8, null_mut()));
        check!(throng_world_positions:
            Null => throng_world_positions(null_mut(), &mut vec_out, 1, &mut usize_out),
            Null => throng_world_positions(w, null_mut(), 8, &mut usize_out),
            Null => throng_world_positions(w, &mut vec_out, 1, null_mut()));
        check!(throng_world_velocities:
            Null => throng_world_velocities(null_mut(), &mut vec_out, 1, &mut usize_out),
            Null => throng_world_velocities(w, null_mut(), 8, &mut usize_out),
            Null => throng_world_velocities(w, &mut vec_out, 1, null_mut()));
        check!(throng_world_headings:
            Null => throng_world_headings(null_mut(), &mut f32_out, 1, &mut usize_out),
            Null => throng_world_headings(w, null_mut(), 8, &mut usize_out),
            Null => throng_world_headings(w, &mut f32_out, 1, null_mut()));
        check!(throng_agent_desired_velocity:
            Null => throng_agent_desired_velocity(null_mut(), id, &mut vec_out),
            Null => throng_agent_desired_velocity(w, id, null_mut()),
            Stale => throng_agent_desired_velocity(w, stale, &mut vec_out));
        check!(throng_world_desired_velocities:
            Null => throng_world_desired_velocities(null_mut(), &mut vec_out, 1, &mut usize_out),
            Null => throng_world_desired_velocities(w, null_mut(), 8, &mut usize_out),
            Null => throng_world_desired_velocities(w, &mut vec_out, 1, null_mut()));
        check!(throng_world_arrivals:
            Null => throng_world_arrivals(null_mut(), &mut u8_out, 1, &mut usize_out),
            Null => throng_world_arrivals(w, null_mut(), 8, &mut usize_out),
            Null => throng_world_arrivals(w, &mut u8_out, 1, null_mut()));
        check!(throng_world_groups:
            Null => throng_world_groups(null_mut(), &mut u32_out, 1, &mut usize_out),
            Null => throng_world_groups(w, null_mut(), 8, &mut usize_out),
            Null => throng_world_groups(w, &mut u32_out, 1, null_mut()));
        check!(throng_world_agents_within:
            Null => throng_world_agents_within(null_mut(), v(0.0, 0.0), 5.0, THRONG_ANY_GROUP, buf.as_mut_ptr(), 8, &mut usize_out),
            Null => throng_world_agents_within(w, v(0.0, 0.0), 5.0, THRONG_ANY_GROUP, buf.as_mut_ptr(), 8, null_mut()),
            Inv => throng_world_agents_within(w, v(NAN, 0.0), 5.0, THRONG_ANY_GROUP, buf.as_mut_ptr(), 8, &mut usize_out),
            Inv => throng_world_agents_within(w, v(0.0, 0.0), NAN, THRONG_ANY_GROUP, buf.as_mut_ptr(), 8, &mut usize_out),
            ThrongStatus::UnknownGroup => throng_world_agents_within(w, v(0.0, 0.0), 5.0, 12, buf.as_mut_ptr(), 8, &mut usize_out));
        check!(throng_world_nearest_agent:
            Null => throng_world_nearest_agent(null_mut(), v(0.0, 0.0), 5.0, &mut u64_out, &mut bool_out),
            Null => throng_world_nearest_agent(w, v(0.0, 0.0), 5.0, null_mut(), &mut bool_out),
            Null => throng_world_nearest_agent(w, v(0.0, 0.0), 5.0, &mut u64_out, null_mut()),
            Inv => throng_world_nearest_agent(w, v(0.0, NAN), 5.0, &mut u64_out, &mut bool_out),
            Inv => throng_world_nearest_agent(w, v(0.0, 0.0), NAN, &mut u64_out, &mut bool_out));
    }
    // Nothing a refused call was given was written, and the world is unchanged.
    assert_eq!(
        (u64_out, u32_out, f32_out, u8_out, bool_out, vec_out, buf),
        (0, 0, 0.0, 0, false, ThrongVec2::default(), [0; 8])
    );
    assert_eq!(f.hash(), before, "a refused call changed the world");

    // The functions that take no pointer, handle or float have nothing to refuse;
    // they are listed so that the set below is every function of the header.
    for name in [
        "throng_last_error",
        "throng_version",
        "throng_world_config_default",
        "throng_group_desc_default",
        "throng_agent_desc_default",
        "throng_world_free",
    ] {
        seen.insert(name);
    }
    let header = include_str!("../../include/throng.h");
    let declared: BTreeSet<&str> = header
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("throng_"))
        .collect();
    assert_eq!(
        declared, seen,
        "the header's functions and the ones checked here differ"
    );
}

#[test]
fn bulk_reads_report_the_length_needed_and_fill_the_callers_arrays() {
    let f = Fixture::new();
    let mut n = 0usize;
    unsafe {
        // A null array with capacity 0 asks only the length.
        ok(throng_world_positions(f.world, null_mut(), 0, &mut n));
        assert_eq!(n, 3);
        let mut small = [ThrongVec2::default(); 2];
        let mut needed = 0;
        assert_eq!(
            throng_world_positions(f.world, small.as_mut_ptr(), 2, &mut needed),
            ThrongStatus::BufferTooSmall
        );
        assert_eq!(needed, 3);
        assert_eq!(small, [ThrongVec2::default(); 2], "too small, yet written");

        let mut ids = [0u64; 3];
        let mut pos = [ThrongVec2::default(); 3];
        let mut written = 0;
        ok(throng_world_ids(f.world, ids.as_mut_ptr(), 3, &mut written));
        ok(throng_world_positions(
            f.world,
            pos.as_mut_ptr(),
            3,
            &mut written,
        ));
        assert_eq!(written, 3);
        for (id, p) in ids.iter().zip(&pos) {
            let mut one = ThrongVec2::default();
            ok(throng_agent_position(f.world, *id, &mut one));
            assert_eq!(one, *p, "row order differs between ids and positions");
        }
        assert!(ids.contains(&f.walker));
        let mut groups = [9u32; 3];
        ok(throng_world_groups(
            f.world,
            groups.as_mut_ptr(),
            3,
            &mut written,
        ));
        assert_eq!(groups, [f.group; 3]);

        let mut found = [0u64; 3];
        ok(throng_world_agents_within(
            f.world,
            v(4.0, 4.0),
            0.5,
            THRONG_ANY_GROUP,
            found.as_mut_ptr(),
            3,
            &mut written,
        ));
        assert_eq!(written, 1);
        let mut nearest = 0;
        let mut any = false;
        ok(throng_world_nearest_agent(
            f.world,
            v(-50.0, 0.0),
            1e6,
            &mut nearest,
            &mut any,
        ));
        assert!(any);
        assert_eq!(
            nearest, f.walker,
            "the walker starts nearest to the far left"
        );
    }
}

#[test]
fn a_world_built_through_the_abi_steps_as_the_rust_api_does() {
    use crate::behaviours::flocking::SeparationParams;
    use crate::behaviours::targeting::ArriveParams;
    use crate::prelude::*;
    use crate::scene::Path;

    let f = Fixture::new();
    let mut world = World::new(WorldConfig::default());
    world
        .add_path(Path::looped(vec![Vec2::ZERO, Vec2::new(5.0, 0.0), Vec2::new(5.0, 5.0)]).unwrap())
        .unwrap();
    let arrive = ArriveParams {
        slowing_radius: 2.0,
        ..ArriveParams::default()
    };
    let g = world
        .add_group(GroupConfig {
            avoidance: Some(AvoidanceParams::default()),
            ..GroupConfig::new("walkers")
                .with(Behaviour::Arrive(arrive), 1.0)
                .with(Behaviour::Separation(SeparationParams::default()), 1.5)
        })
        .unwrap();
    let walker = world
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(Vec2::new(8.0, 0.0))))
        .unwrap();
    world
        .spawn_many(&[
            AgentSpec::new(g, Vec2::new(4.0, 4.0)),
            AgentSpec::new(g, Vec2::new(4.0, -4.0)),
        ])
        .unwrap();
    world.step(0.05).unwrap();
    world.step(0.05).unwrap();
    // Another world: the same slot, but not the same bits.
    assert_eq!(walker.index(), f.walker as u32);
    assert_ne!(walker.to_bits(), f.walker);
    assert_eq!(f.hash(), world.state_hash());
    for _ in 0..300 {
        world.step(0.05).unwrap();
        ok(unsafe { throng_world_step(f.world, 0.05) });
    }
    assert_eq!(f.hash(), world.state_hash());
    let mut p = ThrongVec2::default();
    ok(unsafe { throng_agent_position(f.world, f.walker, &mut p) });
    assert_eq!(ThrongVec2::from(world.position(walker).unwrap()), p);
    let mut state = 0;
    ok(unsafe { throng_agent_arrival(f.world, f.walker, &mut state) });
    assert_eq!(
        state, THRONG_ARRIVAL_ARRIVED,
        "the walker is at {p:?}, not (8, 0)"
    );
}

#[test]
fn a_profile_world_steps_as_its_scenario_does() {
    let bundled = crate::scenario::bundled("leader_squads").unwrap();
    let profile = crate::scenario::load_bundled(bundled).unwrap();
    let mut scenario = crate::scenario::Scenario::build(&profile).unwrap();
    let src = std::ffi::CString::new(bundled.source).unwrap();
    let mut w = null_mut();
    ok(unsafe { throng_world_from_profile(src.as_ptr(), 2, &mut w) });
    for _ in 0..20 {
        scenario.step().unwrap();
        ok(unsafe { throng_world_step(w, profile.world.dt) });
    }
    let mut h = 0;
    ok(unsafe { throng_world_state_hash(w, &mut h) });
    assert_eq!(h, scenario.world().state_hash());
    let mut g = 0;
    ok(unsafe { throng_world_group_by_name(w, c"south_squads".as_ptr(), &mut g) });
    assert_eq!(g, 3);
    ok(unsafe { throng_world_free(w) });

    // A bad profile's message points at the line and key.
    let bad = c"[[groups]]\nname = \"a\"\ncount = -3\nspawn = { shape = \"disc\", radius = 1.0 }\n";
    let status = unsafe { throng_world_from_profile(bad.as_ptr(), 0, &mut w) };
    assert_eq!(status, ThrongStatus::InvalidArgument);
    let message = last_error();
    assert!(
        message.contains(":3") && message.contains("count"),
        "{message}"
    );
}

#[test]
fn snapshots_go_through_a_callers_buffer_and_restore_bitwise() {
    let f = Fixture::new();
    let mut len = 0;
    unsafe {
        ok(throng_world_snapshot(f.world, null_mut(), 0, &mut len));
        assert!(len > 0);
        let mut small = vec![0u8; len - 1];
        let mut needed = 0;
        assert_eq!(
            throng_world_snapshot(f.world, small.as_mut_ptr(), small.len(), &mut needed),
            ThrongStatus::BufferTooSmall
        );
        assert_eq!(needed, len);
        let mut bytes = vec![0u8; len];
        ok(throng_world_snapshot(
            f.world,
            bytes.as_mut_ptr(),
            len,
            &mut len,
        ));
        let at_snapshot = f.hash();
        for _ in 0..10 {
            ok(throng_world_step(f.world, 0.05));
        }
        let mut ahead = 0;
        ok(throng_world_state_hash(f.world, &mut ahead));
        // A second world from the bytes, on its own 3-thread pool, stepped alike.
        let mut copy = null_mut();
        ok(throng_world_from_snapshot(
            bytes.as_ptr(),
            len,
            3,
            &mut copy,
        ));
        for _ in 0..10 {
            ok(throng_world_step(copy, 0.05));
        }
        let mut copy_hash = 0;
        ok(throng_world_state_hash(copy, &mut copy_hash));
        assert_eq!(copy_hash, ahead);
        ok(throng_world_free(copy));
        ok(throng_world_restore(f.world, bytes.as_ptr(), len));
        assert_eq!(f.hash(), at_snapshot);
        // Corrupt bytes are refused and the world is left as it was.
        bytes[len / 2] ^= 0xff;
        bytes.truncate(len - 3);
        assert_eq!(
            throng_world_restore(f.world, bytes.as_ptr(), bytes.len()),
            ThrongStatus::InvalidSnapshot
        );
        assert_eq!(f.hash(), at_snapshot);
    }
}

#[test]
fn a_panic_is_caught_at_the_boundary_and_poisons_its_world() {
    let status = guard(|| panic!("boom"));
    assert_eq!(status, ThrongStatus::Panic);
    assert!(last_error().contains("boom"), "{}", last_error());

    let f = Fixture::new();
    let status = with_world(f.world, |_| panic!("inside the world"));
    assert_eq!(status, ThrongStatus::Panic);
    assert!(last_error().contains("inside the world"));
    let mut n = 0;
    assert_eq!(
        unsafe { throng_world_len(f.world, &mut n) },
        ThrongStatus::Poisoned
    );
    // Freeing a poisoned world is allowed (the fixture's drop does it).
}

#[test]
fn errors_are_per_thread_and_success_keeps_the_last_message() {
    let mut n = 0;
    assert_eq!(
        unsafe { throng_world_len(null_mut(), &mut n) },
        ThrongStatus::NullPointer
    );
    assert_eq!(last_error(), "world is null");
    let other = std::thread::spawn(last_error).join().unwrap();
    assert_eq!(other, "", "another thread saw this thread's error");
    let f = Fixture::new();
    ok(unsafe { throng_world_len(f.world, &mut n) });
    assert_eq!(last_error(), "world is null");
    let version = unsafe { CStr::from_ptr(throng_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn a_host_driven_agent_moves_at_its_preferred_velocity() {
    let f = Fixture::new();
    let mut vel = ThrongVec2::default();
    unsafe {
        ok(throng_agent_set_preferred_velocity(
            f.world,
            f.walker,
            v(0.0, -1.0),
        ));
        for _ in 0..20 {
            ok(throng_world_step(f.world, 0.05));
        }
        ok(throng_agent_velocity(f.world, f.walker, &mut vel));
        assert!(
            (vel.x).abs() < 1e-4 && (vel.y + 1.0).abs() < 1e-4,
            "{vel:?}"
        );
        ok(throng_agent_clear_preferred_velocity(f.world, f.walker));
        for _ in 0..100 {
            ok(throng_world_step(f.world, 0.05));
        }
        // Back to its arrive behaviour: it turns toward its target (8, 0).
        ok(throng_agent_velocity(f.world, f.walker, &mut vel));
        assert!(vel.x > 0.0, "{vel:?}");
    }
}

#[test]
fn a_group_the_host_moves_stays_put_and_reports_desired_velocities() {
    let mut world = null_mut();
    let config = throng_world_config_default();
    unsafe {
        ok(throng_world_new(&config, &mut world));
        let seek = [ThrongBehaviourDesc {
            kind: THRONG_BEHAVIOUR_SEEK,
            weight: 1.0,
            param: 0.0,
            path: 0,
        }];
        let mut desc = throng_group_desc_default();
        desc.behaviours = seek.as_ptr();
        desc.behaviour_count = 1;
        desc.host_moves = true;
        let mut g = 0;
        ok(throng_world_add_group(world, &desc, &mut g));
        let mut spec = throng_agent_desc_default(g, 1.0, 2.0);
        spec.target_kind = THRONG_TARGET_POINT;
        spec.target_point = v(11.0, 2.0);
        let mut id = 0;
        ok(throng_world_spawn(world, &spec, &mut id));
        ok(throng_world_step(world, 0.1));
        let mut p = ThrongVec2::default();
        ok(throng_agent_position(world, id, &mut p));
        assert_eq!(p, v(1.0, 2.0), "the engine moved an agent the host moves");
        // Seek from rest with the default body: its force is its top speed, 2 along
        // +x, so 2 units/s² for 0.1 s.
        let mut desired = [ThrongVec2::default(); 1];
        let mut n = 0;
        ok(throng_world_desired_velocities(
            world,
            desired.as_mut_ptr(),
            1,
            &mut n,
        ));
        assert!(
            (desired[0].x - 0.2).abs() < 1e-6 && desired[0].y == 0.0,
            "{desired:?}"
        );
        ok(throng_world_free(world));
    }
}

#[test]
fn a_stale_handle_stays_stale_after_its_slot_is_reused() {
    let f = Fixture::new();
    unsafe {
        ok(throng_world_despawn(f.world, f.walker));
        let spec = throng_agent_desc_default(f.group, 9.0, 9.0);
        let mut fresh = 0;
        ok(throng_world_spawn(f.world, &spec, &mut fresh));
        assert_eq!(fresh as u32, f.walker as u32, "the slot was reused");
        let mut p = ThrongVec2::default();
        assert_eq!(
            throng_agent_position(f.world, f.walker, &mut p),
            ThrongStatus::UnknownAgent
        );
        let mut live = true;
        ok(throng_world_contains(f.world, f.walker, &mut live));
        assert!(!live);
    }
}

#[test]
fn a_handle_of_another_world_names_no_agent_and_is_called_so() {
    let (a, b) = (Fixture::new(), Fixture::new());
    assert_eq!(
        a.walker as u32, b.walker as u32,
        "the same slot in both worlds"
    );
    let bits = format!("{:#018x}", b.walker);
    unsafe {
        let mut p = ThrongVec2::default();
        assert_eq!(
            throng_agent_position(a.world, b.walker, &mut p),
            ThrongStatus::UnknownAgent
        );
        let message = last_error();
        assert!(message.contains("belongs to another world"), "{message}");
        assert!(message.contains(&bits), "{message}");
        let mut live = true;
        ok(throng_world_contains(a.world, b.walker, &mut live));
        assert!(!live);
        ok(throng_agent_position(a.world, a.walker, &mut p));
        // A stale handle of this world stays "unknown or despawned".
        assert_eq!(
            throng_agent_position(a.world, a.stale(), &mut p),
            ThrongStatus::UnknownAgent
        );
        let message = last_error();
        assert!(message.contains("unknown or despawned"), "{message}");
    }
    // Once the other world is gone, its handle is only unknown here.
    let walker = b.walker;
    drop(b);
    let mut p = ThrongVec2::default();
    assert_eq!(
        unsafe { throng_agent_position(a.world, walker, &mut p) },
        ThrongStatus::UnknownAgent
    );
    let message = last_error();
    assert!(message.contains("unknown or despawned"), "{message}");
    assert!(message.contains(&bits), "{message}");
}

#[test]
fn agents_take_paths_of_their_own_and_paths_and_groups_can_be_removed() {
    let f = Fixture::new();
    unsafe {
        // The fixture's path 0 (a square); the walker follows nothing until its group
        // follows paths.
        let mut path = 7;
        ok(throng_agent_path(f.world, f.walker, &mut path));
        assert_eq!(path, THRONG_NO_PATH);
        ok(throng_agent_set_path(f.world, f.walker, 0));
        ok(throng_agent_path(f.world, f.walker, &mut path));
        assert_eq!(path, 0);
        ok(throng_world_remove_path(f.world, 0));
        ok(throng_agent_path(f.world, f.walker, &mut path));
        assert_eq!(
            path, THRONG_NO_PATH,
            "a removed path is taken from its agents"
        );
        let mut count = 9;
        ok(throng_world_path_count(f.world, &mut count));
        assert_eq!(count, 0);
        ok(throng_world_remove_group(f.world, f.group));
        let mut n = 9;
        ok(throng_world_len(f.world, &mut n));
        assert_eq!(n, 0);
        ok(throng_world_group_count(f.world, &mut count));
        assert_eq!(count, 0);
        let spec = throng_agent_desc_default(f.group, 0.0, 0.0);
        let mut id = 0;
        assert_eq!(
            throng_world_spawn(f.world, &spec, &mut id),
            ThrongStatus::UnknownGroup
        );
        // A later group takes the slot with another id; the removed one stays dead.
        let name = c"later";
        let desc = ThrongGroupDesc {
            name: name.as_ptr(),
            ..throng_group_desc_default()
        };
        let mut later = 0;
        ok(throng_world_add_group(f.world, &desc, &mut later));
        assert_ne!(later, f.group);
        assert_eq!(later & 0xffff, f.group & 0xffff);
        let spec = throng_agent_desc_default(later, 0.0, 0.0);
        ok(throng_world_spawn(f.world, &spec, &mut id));
        let mut groups = [0u32; 1];
        let mut written = 0;
        ok(throng_world_groups(
            f.world,
            groups.as_mut_ptr(),
            1,
            &mut written,
        ));
        assert_eq!(groups, [later]);
        let spec = throng_agent_desc_default(f.group, 0.0, 0.0);
        assert_eq!(
            throng_world_spawn(f.world, &spec, &mut id),
            ThrongStatus::UnknownGroup
        );
    }
}

#[test]
fn a_goal_field_through_the_abi_steps_as_the_rust_api_does() {
    use crate::behaviours::field::FollowFieldParams;
    use crate::prelude::*;

    // A wall between the walkers and their goal, in both worlds.
    let wall = [0.0f32, -10.0, 0.0, 5.0];
    let goal = [5.0f32, 0.0, 5.0, 0.0];
    let mut world = World::new(WorldConfig::default());
    world
        .set_walls(&[Wall::new(Vec2::new(0.0, -10.0), Vec2::new(0.0, 5.0)).unwrap()])
        .unwrap();
    let field = world
        .add_goal_field(FieldSpec::new(vec![Goal::Point(Vec2::new(5.0, 0.0))], 0.5))
        .unwrap();
    let follow = Behaviour::FollowField {
        field,
        params: FollowFieldParams {
            slowing_radius: 2.0,
        },
    };
    let g = world
        .add_group(GroupConfig::new("walkers").with(follow, 1.0))
        .unwrap();
    let starts = [Vec2::new(-3.0, 0.0), Vec2::new(-3.0, -4.0)];
    for &p in &starts {
        world.spawn(AgentSpec::new(g, p)).unwrap();
    }

    let config = throng_world_config_default();
    let mut w: *mut ThrongWorld = std::ptr::null_mut();
    unsafe {
        ok(throng_world_new(&config, &mut w));
        ok(throng_world_set_walls(w, wall.as_ptr(), 1));
        let mut id = 9;
        ok(throng_world_add_goal_field(
            w,
            goal.as_ptr(),
            1,
            0.5,
            0.0,
            &mut id,
        ));
        assert_eq!(id, 0);
        let behaviours = [ThrongBehaviourDesc {
            kind: THRONG_BEHAVIOUR_FOLLOW_FIELD,
            weight: 1.0,
            param: 2.0,
            path: id,
        }];
        let desc = ThrongGroupDesc {
            name: c"walkers".as_ptr(),
            behaviours: behaviours.as_ptr(),
            behaviour_count: 1,
            ..throng_group_desc_default()
        };
        let mut group = 0;
        ok(throng_world_add_group(w, &desc, &mut group));
        spawn_at(w, group, &starts);
        // Distances agree, and a place walled off has none.
        let mut d = 0.0;
        ok(throng_world_field_distance(w, id, -3.0, 0.0, &mut d));
        assert_eq!(
            Some(d),
            world.field_distance(field, Vec2::new(-3.0, 0.0)).unwrap()
        );
        for _ in 0..400 {
            world.step(0.05).unwrap();
            ok(throng_world_step(w, 0.05));
        }
        let mut hash = 0;
        ok(throng_world_state_hash(w, &mut hash));
        assert_eq!(hash, world.state_hash());
        // Both walkers went round the wall's end and are at the goal.
        let mut states = [9u8; 2];
        let mut n = 0;
        ok(throng_world_arrivals(w, states.as_mut_ptr(), 2, &mut n));
        assert_eq!(states, [THRONG_ARRIVAL_ARRIVED; 2]);
        // A field a group follows cannot be removed.
        assert_eq!(
            throng_world_remove_goal_field(w, id),
            ThrongStatus::InvalidArgument
        );
        ok(throng_world_free(w));
    }
}

#[test]
fn bulk_writes_take_arrays_all_or_nothing() {
    let f = Fixture::new();
    let mut p = ThrongVec2::default();
    unsafe {
        let ids = [f.walker];
        ok(throng_agents_set_positions(
            f.world,
            ids.as_ptr(),
            [v(3.0, 4.0)].as_ptr(),
            1,
        ));
        ok(throng_agent_position(f.world, f.walker, &mut p));
        assert_eq!((p.x, p.y), (3.0, 4.0));
        // A NaN, a null array, a stale handle: refused, nothing written.
        let s = throng_agents_set_positions(f.world, ids.as_ptr(), [v(NAN, 0.0)].as_ptr(), 1);
        assert_eq!(s, ThrongStatus::InvalidArgument, "{}", last_error());
        let s = throng_agents_set_velocities(f.world, null(), [v(1.0, 0.0)].as_ptr(), 1);
        assert_eq!(s, ThrongStatus::NullPointer);
        let stale = [f.walker, f.walker ^ (1 << 40)];
        let s = throng_agents_set_positions(
            f.world,
            stale.as_ptr(),
            [v(9.0, 9.0), v(9.0, 9.0)].as_ptr(),
            2,
        );
        assert_eq!(s, ThrongStatus::UnknownAgent, "{}", last_error());
        ok(throng_agent_position(f.world, f.walker, &mut p));
        assert_eq!((p.x, p.y), (3.0, 4.0));
        // Count 0 with null arrays is nothing to do.
        ok(throng_agents_set_target_points(f.world, null(), null(), 0));
        // Preferred velocities: NaN, NaN clears.
        ok(throng_agents_set_preferred_velocities(
            f.world,
            ids.as_ptr(),
            [v(0.0, -1.0)].as_ptr(),
            1,
        ));
        for _ in 0..20 {
            ok(throng_world_step(f.world, 0.05));
        }
        let mut vel = ThrongVec2::default();
        ok(throng_agent_velocity(f.world, f.walker, &mut vel));
        // At the preferred speed, about the preferred way (the group's avoidance
        // keeps right near the others).
        assert!(
            vel.y < -0.9 && (vel.x.hypot(vel.y) - 1.0).abs() < 1e-3,
            "{vel:?}"
        );
        ok(throng_agents_set_preferred_velocities(
            f.world,
            ids.as_ptr(),
            [v(NAN, NAN)].as_ptr(),
            1,
        ));
        ok(throng_agents_set_target_points(
            f.world,
            ids.as_ptr(),
            [v(-5.0, 0.0)].as_ptr(),
            1,
        ));
        ok(throng_agents_set_velocities(
            f.world,
            ids.as_ptr(),
            [v(0.0, 0.0)].as_ptr(),
            1,
        ));
        for _ in 0..100 {
            ok(throng_world_step(f.world, 0.05));
        }
        ok(throng_agent_velocity(f.world, f.walker, &mut vel));
        assert!(
            vel.x < 0.0,
            "back to its behaviours, toward its new target: {vel:?}"
        );
    }
}

#[test]
fn clear_line_answers_as_the_engine() {
    let f = Fixture::new();
    let wall = [0.0f32, -1.0, 0.0, 1.0];
    let mut clear = true;
    unsafe {
        ok(throng_world_set_walls(f.world, wall.as_ptr(), 1));
        ok(throng_world_clear_line(
            f.world,
            v(-2.0, 0.0),
            v(2.0, 0.0),
            0.0,
            &mut clear,
        ));
        assert!(!clear);
        ok(throng_world_clear_line(
            f.world,
            v(-2.0, 2.0),
            v(2.0, 2.0),
            0.5,
            &mut clear,
        ));
        assert!(clear);
        ok(throng_world_clear_line(
            f.world,
            v(-2.0, 2.0),
            v(2.0, 2.0),
            1.5,
            &mut clear,
        ));
        assert!(!clear);
    }
}

#[test]
fn think_rates_and_levels_of_detail_through_the_abi_step_as_the_rust_api_does() {
    use crate::prelude::*;

    let mut world = World::new(WorldConfig::default());
    let g = world
        .add_group(
            GroupConfig::new("wanderers")
                .with(Behaviour::Wander(WanderParams::default()), 1.0)
                .thinking_every(2),
        )
        .unwrap();
    let starts: Vec<Vec2> = (0..300)
        .map(|i| Vec2::new((i % 20) as f32, (i / 20) as f32) * 3.0)
        .collect();
    for &p in &starts {
        world.spawn(AgentSpec::new(g, p)).unwrap();
    }
    let lod = LevelOfDetail::new(Vec2::new(10.0, 10.0), 15.0, 4);
    world.set_level_of_detail(Some(lod)).unwrap();

    let config = throng_world_config_default();
    let mut w: *mut ThrongWorld = null_mut();
    unsafe {
        ok(throng_world_new(&config, &mut w));
        let behaviours = [ThrongBehaviourDesc {
            kind: THRONG_BEHAVIOUR_WANDER,
            weight: 1.0,
            param: 0.0,
            path: THRONG_NO_PATH,
        }];
        let mut desc = ThrongGroupDesc {
            name: c"wanderers".as_ptr(),
            behaviours: behaviours.as_ptr(),
            behaviour_count: 1,
            think_every: 0,
            ..throng_group_desc_default()
        };
        let mut group = 0;
        // 0 is refused with a message naming the key; 2 is taken.
        assert_eq!(
            throng_world_add_group(w, &desc, &mut group),
            ThrongStatus::InvalidArgument
        );
        assert!(last_error().contains("think_every"), "{}", last_error());
        desc.think_every = 2;
        ok(throng_world_add_group(w, &desc, &mut group));
        spawn_at(w, group, &starts);
        let centre = ThrongVec2 { x: 10.0, y: 10.0 };
        let bad = ThrongVec2 {
            x: f32::NAN,
            y: 0.0,
        };
        assert_eq!(
            throng_world_set_level_of_detail(w, bad, 15.0, 4),
            ThrongStatus::InvalidArgument
        );
        assert_eq!(
            throng_world_set_level_of_detail(w, centre, 15.0, 0),
            ThrongStatus::InvalidArgument
        );
        ok(throng_world_set_level_of_detail(w, centre, 15.0, 4));
        for _ in 0..50 {
            world.step(0.05).unwrap();
            ok(throng_world_step(w, 0.05));
        }
        let mut hash = 0;
        ok(throng_world_state_hash(w, &mut hash));
        assert_eq!(hash, world.state_hash());
        // think_every 1 turns the level of detail off.
        ok(throng_world_set_level_of_detail(w, centre, 15.0, 1));
        world.set_level_of_detail(None).unwrap();
        ok(throng_world_state_hash(w, &mut hash));
        assert_eq!(hash, world.state_hash());
        ok(throng_world_free(w));
    }
}

/// One agent of `group` at each of `starts`, through the ABI.
fn spawn_at(w: *mut ThrongWorld, group: u32, starts: &[crate::prelude::Vec2]) {
    for &p in starts {
        let mut agent = 0;
        ok(unsafe {
            throng_world_spawn(w, &throng_agent_desc_default(group, p.x, p.y), &mut agent)
        });
    }
}
