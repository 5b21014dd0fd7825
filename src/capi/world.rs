//! Worlds through the C ABI: create and free, step, the scene, snapshots, stats.

use std::ffi::c_char;
use std::sync::Arc;

use glam::Vec2;

use super::{
    check_out, copy_out, guard, read_in, slice_in, str_in, with_world, write_out, CResult, Failure,
    ThrongStatus, ThrongVec2, ThrongWorld,
};
use crate::group::{FieldId, PathId};
use crate::integrate::Integrator;
use crate::scene::{FieldSpec, Goal, Obstacle, Path, Wall};
use crate::spatial::IndexKind;
use crate::world::{LevelOfDetail, Snapshot, World, WorldConfig};

/// `ThrongWorldConfig::index`: the k-d tree (the default).
pub const THRONG_INDEX_KDTREE: u32 = 0;
/// `ThrongWorldConfig::index`: the uniform grid.
pub const THRONG_INDEX_GRID: u32 = 1;

/// `ThrongWorldConfig::integrator`: semi-implicit Euler (the default).
pub const THRONG_INTEGRATOR_SEMI_IMPLICIT_EULER: u32 = 0;
/// `ThrongWorldConfig::integrator`: Millington's Newton-Euler-1.
pub const THRONG_INTEGRATOR_NEWTON_EULER_1: u32 = 1;
/// `ThrongWorldConfig::integrator`: exact for a constant force over the tick.
pub const THRONG_INTEGRATOR_EXACT: u32 = 2;

/// World-wide settings; start from `throng_world_config_default()`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrongWorldConfig {
    /// Seed of every per-agent random stream.
    pub seed: u64,
    /// `THRONG_INDEX_KDTREE` or `THRONG_INDEX_GRID`.
    pub index: u32,
    /// `THRONG_INTEGRATOR_*`.
    pub integrator: u32,
    /// Re-sort the rows spatially every this many ticks (0 = never).
    pub reorder_interval: u32,
    /// Threads of the world's own pool; 0 = the process-wide pool (one thread per
    /// core). Results do not depend on it.
    pub threads: u32,
}

/// The default settings: seed 0, k-d tree, semi-implicit Euler, re-sort every 32
/// ticks, the process-wide thread pool.
#[no_mangle]
pub extern "C" fn throng_world_config_default() -> ThrongWorldConfig {
    let d = WorldConfig::default();
    ThrongWorldConfig {
        seed: d.seed,
        index: THRONG_INDEX_KDTREE,
        integrator: THRONG_INTEGRATOR_SEMI_IMPLICIT_EULER,
        reorder_interval: d.reorder_interval,
        threads: 0,
    }
}

fn world_config(c: &ThrongWorldConfig) -> CResult<WorldConfig> {
    let index = match c.index {
        THRONG_INDEX_KDTREE => IndexKind::KdTree,
        THRONG_INDEX_GRID => IndexKind::Grid,
        other => {
            return Err(Failure::invalid(format!(
                "config.index must be THRONG_INDEX_KDTREE (0) or THRONG_INDEX_GRID (1), got {other}"
            )))
        }
    };
    let integrator = match c.integrator {
        THRONG_INTEGRATOR_SEMI_IMPLICIT_EULER => Integrator::SemiImplicitEuler,
        THRONG_INTEGRATOR_NEWTON_EULER_1 => Integrator::NewtonEuler1,
        THRONG_INTEGRATOR_EXACT => Integrator::Exact,
        other => {
            return Err(Failure::invalid(format!(
                "config.integrator must be 0, 1 or 2 (THRONG_INTEGRATOR_*), got {other}"
            )))
        }
    };
    Ok(WorldConfig {
        seed: c.seed,
        integrator,
        index,
        reorder_interval: c.reorder_interval,
    })
}

/// The largest `ThrongWorldConfig::threads` accepted.
pub const THRONG_MAX_THREADS: u32 = 1024;

// The header's bound is the engine's.
const _: () = assert!(THRONG_MAX_THREADS as usize == crate::world::MAX_THREADS);

fn thread_pool(threads: u32) -> CResult<Option<Arc<rayon::ThreadPool>>> {
    Ok(crate::world::thread_pool(threads as usize)?)
}

fn hand_over(world: ThrongWorld, out: *mut *mut ThrongWorld) -> CResult {
    write_out(out, "out", Box::into_raw(Box::new(world)))
}

/// Create an empty world. `*out` receives it; free it with `throng_world_free`.
///
/// # Safety
/// `config` points at a `ThrongWorldConfig`; `out` at a writable `ThrongWorld*`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_new(
    config: *const ThrongWorldConfig,
    out: *mut *mut ThrongWorld,
) -> ThrongStatus {
    guard(|| {
        let c = read_in(config, "config")?;
        super::check_out(out, "out")?;
        let mut world = World::new(world_config(&c)?);
        world.set_thread_pool(thread_pool(c.threads)?);
        hand_over(ThrongWorld::plain(world), out)
    })
}

/// Build a world from a scenario profile's TOML text (the format of the bundled
/// `profiles/`): its scene, groups, agents and squads. Each `throng_world_step`
/// also moves the profile's moving targets. `threads` as in `ThrongWorldConfig`.
/// An invalid profile's message names the line and key.
///
/// # Safety
/// `toml` is a NUL-terminated string; `out` points at a writable `ThrongWorld*`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_from_profile(
    toml: *const c_char,
    threads: u32,
    out: *mut *mut ThrongWorld,
) -> ThrongStatus {
    guard(|| {
        let src = str_in(toml, "toml")?;
        super::check_out(out, "out")?;
        let profile = crate::scenario::parse_profile(src, "profile.toml")
            .map_err(|e| Failure::invalid(e.render()))?;
        let pool = thread_pool(threads)?;
        let mut scenario = crate::scenario::Scenario::build(&profile)?;
        scenario.world_mut().set_thread_pool(pool);
        hand_over(ThrongWorld::profile(scenario), out)
    })
}

/// Rebuild a world from a snapshot's bytes (`throng_world_snapshot`). Stepping it
/// gives bitwise the same as stepping the world the snapshot was taken of.
///
/// # Safety
/// `bytes` points at `len` readable bytes; `out` at a writable `ThrongWorld*`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_from_snapshot(
    bytes: *const u8,
    len: usize,
    threads: u32,
    out: *mut *mut ThrongWorld,
) -> ThrongStatus {
    guard(|| {
        let bytes = slice_in(bytes, len, "bytes")?;
        super::check_out(out, "out")?;
        let snapshot = Snapshot::from_bytes(bytes)?;
        let mut world = World::from_snapshot(snapshot)?;
        world.set_thread_pool(thread_pool(threads)?);
        hand_over(ThrongWorld::plain(world), out)
    })
}

/// Free a world and everything in it. A null `world` is accepted and does nothing
/// (like `free`); a poisoned world is freed too.
///
/// # Safety
/// `world` is null or a world not yet freed; it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn throng_world_free(world: *mut ThrongWorld) -> ThrongStatus {
    guard(|| {
        if !world.is_null() {
            // SAFETY: a pointer from `Box::into_raw` in a constructor, not yet
            // freed (the caller's promise), and not used again.
            drop(unsafe { Box::from_raw(world) });
        }
        Ok(())
    })
}

/// Advance the world by `dt` seconds (> 0, finite): one tick.
///
/// # Safety
/// `world` is null or a live world used by no other thread during the call.
#[no_mangle]
pub unsafe extern "C" fn throng_world_step(world: *mut ThrongWorld, dt: f32) -> ThrongStatus {
    with_world(world, |w| {
        crate::error::positive("dt", dt)?;
        match w.scenario_mut() {
            Some(scenario) => scenario.step_by(dt)?,
            None => w.world_mut().step(dt)?,
        };
        Ok(())
    })
}

/// The number of live agents.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_len(
    world: *mut ThrongWorld,
    out: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| write_out(out, "out", w.world().len()))
}

/// The number of ticks stepped.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_tick(world: *mut ThrongWorld, out: *mut u64) -> ThrongStatus {
    with_world(world, |w| write_out(out, "out", w.world().tick()))
}

/// A 64-bit hash of everything the next tick reads (the same as the Rust API's
/// `World::state_hash`): equal hashes on two machines mean they are in step, the
/// lockstep desync check.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_state_hash(
    world: *mut ThrongWorld,
    out: *mut u64,
) -> ThrongStatus {
    with_world(world, |w| write_out(out, "out", w.world().state_hash()))
}

/// What the last tick did and how long its phases took.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThrongTickStats {
    /// The tick's number (1 for the first tick).
    pub tick: u64,
    /// Live agents.
    pub agents: u64,
    /// Neighbour pairs considered by the steering.
    pub neighbours: u64,
    /// Agents whose non-finite state was reset this tick (0 in a healthy world).
    pub quarantined: u64,
    /// Wall crossings the integration prevented.
    pub crossings_prevented: u64,
    /// Nanoseconds spent re-sorting the rows.
    pub resort_ns: u64,
    /// Nanoseconds rebuilding the neighbour index.
    pub index_ns: u64,
    /// Nanoseconds marking leader sight.
    pub sight_ns: u64,
    /// Nanoseconds steering.
    pub steer_ns: u64,
    /// Nanoseconds integrating.
    pub integrate_ns: u64,
    /// Nanoseconds for the whole tick.
    pub total_ns: u64,
}

/// The last tick's statistics (all zero before the first tick).
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `ThrongTickStats`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_last_stats(
    world: *mut ThrongWorld,
    out: *mut ThrongTickStats,
) -> ThrongStatus {
    with_world(world, |w| {
        let s = w.world().last_stats();
        let t = s.times;
        write_out(
            out,
            "out",
            ThrongTickStats {
                tick: s.tick,
                agents: s.agents as u64,
                neighbours: s.neighbours,
                quarantined: s.quarantined,
                crossings_prevented: s.crossings_prevented,
                resort_ns: t.resort_ns,
                index_ns: t.index_ns,
                sight_ns: t.sight_ns,
                steer_ns: t.steer_ns,
                integrate_ns: t.integrate_ns,
                total_ns: t.total_ns,
            },
        )
    })
}

/// Write the world's snapshot (a self-contained, versioned byte string) into `buf`
/// of `cap` bytes and its length into `*len`. With `buf` null and `cap` 0, only the
/// length is written. When `cap` is too small, `*len` gets the length needed and the
/// call returns `THRONG_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `world` is null or a live world; `buf` null (with `cap` 0) or `cap` writable
/// bytes; `len` points at a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_snapshot(
    world: *mut ThrongWorld,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| {
        // A size query (or a buffer too small) walks the world without encoding it.
        let needed = w.world().snapshot_len();
        if cap < needed {
            return copy_out(std::iter::repeat_n(0u8, needed), buf, cap, len, "buf");
        }
        let bytes = w.world().snapshot().to_bytes()?;
        copy_out(bytes.iter().copied(), buf, cap, len, "buf")
    })
}

/// Put the world back in the state of a snapshot's bytes (taken of this world or
/// another). On an error the world is unchanged. A world built from a profile
/// keeps its moving targets' clock.
///
/// # Safety
/// `world` is null or a live world; `bytes` points at `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn throng_world_restore(
    world: *mut ThrongWorld,
    bytes: *const u8,
    len: usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let bytes = slice_in(bytes, len, "bytes")?;
        let snapshot = Snapshot::from_bytes(bytes)?;
        w.world_mut().restore(&snapshot)?;
        Ok(())
    })
}

/// Replace the world's walls: `count` segments, each four floats `x0, y0, x1, y1`
/// in `xyxy`. Agents steer around them and never cross them.
///
/// # Safety
/// `world` is null or a live world; `xyxy` points at `4 * count` floats (or is
/// null with `count` 0).
#[no_mangle]
pub unsafe extern "C" fn throng_world_set_walls(
    world: *mut ThrongWorld,
    xyxy: *const f32,
    count: usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let floats = slice_in(xyxy, count.saturating_mul(4), "xyxy")?;
        let walls = floats
            .chunks_exact(4)
            .map(|c| Wall::new(Vec2::new(c[0], c[1]), Vec2::new(c[2], c[3])))
            .collect::<Result<Vec<_>, _>>()
            .map_err(crate::ThrongError::from)?;
        w.world_mut().set_walls(&walls)?;
        Ok(())
    })
}

/// Replace the world's circular obstacles: `count` discs, each three floats
/// `x, y, radius` in `xyr`.
///
/// # Safety
/// `world` is null or a live world; `xyr` points at `3 * count` floats (or is null
/// with `count` 0).
#[no_mangle]
pub unsafe extern "C" fn throng_world_set_obstacles(
    world: *mut ThrongWorld,
    xyr: *const f32,
    count: usize,
) -> ThrongStatus {
    with_world(world, |w| {
        let floats = slice_in(xyr, count.saturating_mul(3), "xyr")?;
        let obstacles = floats
            .chunks_exact(3)
            .map(|c| Obstacle::new(Vec2::new(c[0], c[1]), c[2]))
            .collect::<Result<Vec<_>, _>>()
            .map_err(crate::ThrongError::from)?;
        w.world_mut().set_obstacles(&obstacles)?;
        Ok(())
    })
}

/// Add a path of `count` points (`ThrongVec2`), open or `looped` (non-zero), for the
/// follow-path behaviour; `*out` receives its id.
///
/// # Safety
/// `world` is null or a live world; `points` points at `count` `ThrongVec2`; `out`
/// at a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_add_path(
    world: *mut ThrongWorld,
    points: *const ThrongVec2,
    count: usize,
    looped: bool,
    out: *mut u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let points = slice_in(points, count, "points")?;
        super::check_out(out, "out")?;
        let points = points
            .iter()
            .enumerate()
            .map(|(i, p)| p.finite(&format!("points[{i}]")))
            .collect::<CResult<Vec<_>>>()?;
        let path = if looped {
            Path::looped(points)
        } else {
            Path::open(points)
        }
        .map_err(crate::ThrongError::from)?;
        let id = w.world_mut().add_path(path)?;
        write_out(out, "out", id.index() as u32)
    })
}

/// Remove a path. Agents that had it as their own path follow their group's from
/// then on; refused (INVALID_ARGUMENT) while a group's follow-path behaviour names
/// it. Its id is not reused.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_world_remove_path(
    world: *mut ThrongWorld,
    path: u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let path = PathId::from_index(path as usize);
        Ok(w.world_mut().remove_path(path)?)
    })
}

/// The number of paths in the world, e.g. those a profile built (their ids are
/// `0..count` until one is removed: removed paths are not counted, and their ids
/// are not reused).
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_path_count(
    world: *mut ThrongWorld,
    out: *mut usize,
) -> ThrongStatus {
    with_world(world, |w| write_out(out, "out", w.world().paths().count()))
}

/// Add a goal field (the travel distance to the nearest of its goals around the
/// walls and obstacles, for `THRONG_BEHAVIOUR_FOLLOW_FIELD`); `*out` receives its id.
/// `goals` holds `count` boxes as `x0, y0, x1, y1` (opposite corners; a point is a box
/// of size zero); `clearance` is the radius of the bodies it serves (walls and
/// obstacles are grown by it, > 0); `cell` the side of its cells, 0 for half the
/// clearance. The field covers the walls, obstacles and
/// goals, and is rebuilt whenever the walls or obstacles are set.
///
/// # Safety
/// `world` is null or a live world; `goals` points at `4 * count` floats; `out` at a
/// writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_add_goal_field(
    world: *mut ThrongWorld,
    goals: *const f32,
    count: usize,
    clearance: f32,
    cell: f32,
    out: *mut u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let floats = slice_in(goals, count.saturating_mul(4), "goals")?;
        super::check_out(out, "out")?;
        let goals = floats
            .chunks_exact(4)
            .enumerate()
            .map(|(i, c)| {
                let key = format!("goals[{i}]");
                let a = ThrongVec2 { x: c[0], y: c[1] }.finite(&key)?;
                let b = ThrongVec2 { x: c[2], y: c[3] }.finite(&key)?;
                Ok(Goal::from_corners(a, b))
            })
            .collect::<CResult<Vec<_>>>()?;
        let mut spec = FieldSpec::new(goals, super::finite("clearance", clearance)?);
        if cell != 0.0 {
            spec = spec.with_cell(super::finite("cell", cell)?);
        }
        let id = w.world_mut().add_goal_field(spec)?;
        write_out(out, "out", id.index() as u32)
    })
}

/// Remove a goal field; refused (INVALID_ARGUMENT) while a group's follow-field
/// behaviour names it. Its id is not reused.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_world_remove_goal_field(
    world: *mut ThrongWorld,
    field: u32,
) -> ThrongStatus {
    with_world(world, |w| {
        Ok(w.world_mut()
            .remove_goal_field(FieldId::from_index(field as usize))?)
    })
}

/// Level of detail around a point (a camera): the agents farther than `near` from
/// `centre` steer only every `think_every` ticks (1 to 64), in rotation, moving on
/// their last steering output in between (their group's own `think_every` where that
/// is larger). `think_every` 1 turns it off. Call it as the camera moves; it is read
/// at every step and kept in snapshots.
///
/// # Safety
/// `world` is null or a live world.
#[no_mangle]
pub unsafe extern "C" fn throng_world_set_level_of_detail(
    world: *mut ThrongWorld,
    centre: ThrongVec2,
    near: f32,
    think_every: u32,
) -> ThrongStatus {
    with_world(world, |w| {
        let centre = centre.finite("centre")?;
        let lod = (think_every != 1).then(|| LevelOfDetail::new(centre, near, think_every));
        if let Some(l) = &lod {
            l.validate()?;
        }
        Ok(w.world_mut().set_level_of_detail(lod)?)
    })
}

/// Whether a body of `radius` passes straight from `from` to `to` through the walls
/// and obstacles into `*out` (agents are not in the way; RVO2's `queryVisibility`).
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `bool`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_clear_line(
    world: *mut ThrongWorld,
    from: ThrongVec2,
    to: ThrongVec2,
    radius: f32,
    out: *mut bool,
) -> ThrongStatus {
    with_world(world, |w| {
        let (a, b) = (from.finite("from")?, to.finite("to")?);
        check_out(out, "out")?;
        let clear = w.world().clear_line(a, b, radius)?;
        write_out(out, "out", clear)
    })
}

/// The travel distance from `(x, y)` to the nearest goal of `field` into `*out`: 0 in a
/// goal, infinity where no goal can be reached.
///
/// # Safety
/// `world` is null or a live world; `out` points at a writable `float`.
#[no_mangle]
pub unsafe extern "C" fn throng_world_field_distance(
    world: *mut ThrongWorld,
    field: u32,
    x: f32,
    y: f32,
    out: *mut f32,
) -> ThrongStatus {
    with_world(world, |w| {
        let p = ThrongVec2 { x, y }.finite("(x, y)")?;
        let d = w
            .world()
            .field_distance(FieldId::from_index(field as usize), p)?;
        write_out(out, "out", d.unwrap_or(f32::INFINITY))
    })
}
