/* throng: a data-parallel, deterministic crowd steering engine. C ABI.
 * Generated from src/capi by cbindgen; do not edit. Conventions, ownership and
 * thread safety: the comments below and the README's C section. */

#ifndef THRONG_H
#define THRONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// `ThrongWorldConfig::index`: the k-d tree (the default).
#define THRONG_INDEX_KDTREE 0

// `ThrongWorldConfig::index`: the uniform grid.
#define THRONG_INDEX_GRID 1

// `ThrongWorldConfig::integrator`: semi-implicit Euler (the default).
#define THRONG_INTEGRATOR_SEMI_IMPLICIT_EULER 0

// `ThrongWorldConfig::integrator`: Millington's Newton-Euler-1.
#define THRONG_INTEGRATOR_NEWTON_EULER_1 1

// `ThrongWorldConfig::integrator`: exact for a constant force over the tick.
#define THRONG_INTEGRATOR_EXACT 2

// The largest `ThrongWorldConfig::threads` accepted.
#define THRONG_MAX_THREADS 1024

// Seek the agent's target.
#define THRONG_BEHAVIOUR_SEEK 0

// Flee the agent's target; `param`: panic distance (0 = the default).
#define THRONG_BEHAVIOUR_FLEE 1

// Arrive at the agent's target; `param`: slowing radius (0 = the default, 6).
#define THRONG_BEHAVIOUR_ARRIVE 2

// Pursue the agent's target agent.
#define THRONG_BEHAVIOUR_PURSUIT 3

// Evade the agent's target agent.
#define THRONG_BEHAVIOUR_EVADE 4

// Reynolds' wander.
#define THRONG_BEHAVIOUR_WANDER 5

// Keep away from neighbours.
#define THRONG_BEHAVIOUR_SEPARATION 6

// Move toward the neighbours' centre.
#define THRONG_BEHAVIOUR_COHESION 7

// Match the neighbours' heading.
#define THRONG_BEHAVIOUR_ALIGNMENT 8

// The randomized approach walker: reach the target by random converging waypoints,
// never walking past it.
#define THRONG_BEHAVIOUR_APPROACH 9

// Steer away from the walls ahead.
#define THRONG_BEHAVIOUR_WALL_AVOIDANCE 10

// Steer around the circular obstacles ahead.
#define THRONG_BEHAVIOUR_OBSTACLE_AVOIDANCE 11

// Follow the path `path`; `param`: path radius (0 = the default).
#define THRONG_BEHAVIOUR_FOLLOW_PATH 12

// Keep the agent's formation offset behind its target agent.
#define THRONG_BEHAVIOUR_OFFSET_PURSUIT 13

// Follow the target agent as leader: arrive behind it, step out of its way when in
// its sight, keep apart from the other followers; `param`: behind distance (0 = the
// default). The parameters are those of the `leader_squads` profile, for bodies of
// radius about 0.5: behind distance 4, sight radius 2.5, slowing radius 6,
// separation strength 2.
#define THRONG_BEHAVIOUR_LEADER_FOLLOW 14

// Turn to face where the agent is going.
#define THRONG_BEHAVIOUR_LOOK_WHERE_YOU_ARE_GOING 15

// Step out of the way of any leader whose sight the agent is in.
#define THRONG_BEHAVIOUR_GIVE_WAY 16

// Follow the goal field `path` names (`throng_world_add_goal_field`): its way round
// the walls to the nearest goal; in the goal, on to the agent's own target if it has
// one. `param`: slowing radius (0: full speed, and without a target on through the
// goal).
#define THRONG_BEHAVIOUR_FOLLOW_FIELD 17

// No path: in `ThrongBehaviourDesc::path`, a follow-path behaviour whose agents
// follow only their own paths; to `throng_agent_set_path`, take the agent's away.
#define THRONG_NO_PATH UINT32_MAX

// `ThrongGroupDesc::combination`: weighted sum (the default).
#define THRONG_COMBINATION_WEIGHTED_SUM 0

// `ThrongGroupDesc::combination`: prioritized (Reynolds' truncated running sum).
#define THRONG_COMBINATION_PRIORITIZED 1

// `ThrongGroupDesc::combination`: prioritized dithering.
#define THRONG_COMBINATION_DITHERED 2

// `ThrongAgentDesc::target_kind`: no target.
#define THRONG_TARGET_NONE 0

// `ThrongAgentDesc::target_kind`: the point `target_point`.
#define THRONG_TARGET_POINT 1

// `ThrongAgentDesc::target_kind`: the agent `target_agent`.
#define THRONG_TARGET_AGENT 2

// Arrival state: no target (or its target agent is gone).
#define THRONG_ARRIVAL_NO_TARGET 0

// Arrival state: on its way.
#define THRONG_ARRIVAL_MOVING 1

// Arrival state: within its arrival tolerance of the target (see the Rust API's
// `Arrival` for the tolerance).
#define THRONG_ARRIVAL_ARRIVED 2

// Arrival state: short of the target and barely moving for 5 s (blocked).
#define THRONG_ARRIVAL_STUCK 3

// Arrival state: it follows a goal field, and no goal of it can be reached from where
// it stands.
#define THRONG_ARRIVAL_UNREACHABLE 4

// Arrival state: its target point is taken (others bound for it stand nearer), and it
// waits at the edge of the crowd there (avoiding groups only); not stuck.
#define THRONG_ARRIVAL_QUEUED 5

// `ThrongSightEvent`'s `entered` or `left` when there is no such leader.
#define THRONG_NO_AGENT UINT64_MAX

// `group` of `throng_world_agents_within`: agents of every group.
#define THRONG_ANY_GROUP UINT32_MAX

// What a call did: `THRONG_STATUS_OK` (0) or why it did nothing.
typedef enum {
  // Done.
  THRONG_STATUS_OK = 0,
  // A required pointer was null.
  THRONG_STATUS_NULL_POINTER = 1,
  // A value was out of range or not finite, a parameter invalid, a string not
  // UTF-8, a profile or scene invalid.
  THRONG_STATUS_INVALID_ARGUMENT = 2,
  // The agent handle names no live agent (never spawned, or despawned).
  THRONG_STATUS_UNKNOWN_AGENT = 3,
  // The group id names no group of this world.
  THRONG_STATUS_UNKNOWN_GROUP = 4,
  // A fixed capacity of the engine would be exceeded (groups, agents).
  THRONG_STATUS_CAPACITY = 5,
  // The agents would not fit in the memory available (see the message's
  // estimate).
  THRONG_STATUS_OUT_OF_MEMORY = 6,
  // The bytes are not a snapshot this version can read.
  THRONG_STATUS_INVALID_SNAPSHOT = 7,
  // The caller's buffer is smaller than the result; the length needed was written.
  THRONG_STATUS_BUFFER_TOO_SMALL = 8,
  // A panic was caught (a bug in the library; the message says where).
  THRONG_STATUS_PANIC = 9,
  // An earlier call on this world panicked; only `throng_world_free` is accepted.
  THRONG_STATUS_POISONED = 10,
} ThrongStatus;

// A world: agents, groups, scene. Opaque; created by `throng_world_new`,
// `throng_world_from_profile` or `throng_world_from_snapshot`, freed by
// `throng_world_free`; used by one thread at a time.
typedef struct ThrongWorld ThrongWorld;

// World-wide settings; start from `throng_world_config_default()`.
typedef struct {
  // Seed of every per-agent random stream.
  uint64_t seed;
  // `THRONG_INDEX_KDTREE` or `THRONG_INDEX_GRID`.
  uint32_t index;
  // `THRONG_INTEGRATOR_*`.
  uint32_t integrator;
  // Re-sort the rows spatially every this many ticks (0 = never).
  uint32_t reorder_interval;
  // Threads of the world's own pool; 0 = the process-wide pool (one thread per
  // core). Results do not depend on it.
  uint32_t threads;
} ThrongWorldConfig;

// What the last tick did and how long its phases took.
typedef struct {
  // The tick's number (1 for the first tick).
  uint64_t tick;
  // Live agents.
  uint64_t agents;
  // Neighbour pairs considered by the steering.
  uint64_t neighbours;
  // Agents whose non-finite state was reset this tick (0 in a healthy world).
  uint64_t quarantined;
  // Wall crossings the integration prevented.
  uint64_t crossings_prevented;
  // Nanoseconds spent re-sorting the rows.
  uint64_t resort_ns;
  // Nanoseconds rebuilding the neighbour index.
  uint64_t index_ns;
  // Nanoseconds marking leader sight.
  uint64_t sight_ns;
  // Nanoseconds steering.
  uint64_t steer_ns;
  // Nanoseconds integrating.
  uint64_t integrate_ns;
  // Nanoseconds for the whole tick.
  uint64_t total_ns;
} ThrongTickStats;

// A 2D vector.
typedef struct {
  // x.
  float x;
  // y.
  float y;
} ThrongVec2;

// One behaviour of a group with its weight.
typedef struct {
  // `THRONG_BEHAVIOUR_*`.
  uint32_t kind;
  // Its weight in the group's sum (or priority order).
  float weight;
  // The behaviour's main distance where its kind names one; 0 = the default.
  float param;
  // The path of `THRONG_BEHAVIOUR_FOLLOW_PATH` (`throng_world_add_path`), or
  // `THRONG_NO_PATH`: only the agents' own paths (`throng_agent_set_path`); the goal
  // field of `THRONG_BEHAVIOUR_FOLLOW_FIELD` (`throng_world_add_goal_field`).
  uint32_t path;
} ThrongBehaviourDesc;

// A group: behaviours and the parameters its agents share. Start from
// `throng_group_desc_default()`.
typedef struct {
  // Its name, for reports and `throng_world_group_by_name` (NUL-terminated UTF-8).
  const char *name;
  // `behaviour_count` behaviours, in priority order.
  const ThrongBehaviourDesc *behaviours;
  // How many.
  size_t behaviour_count;
  // Neighbours are the agents within this distance (units). Default 3.
  float neighbour_radius;
  // At most this many nearest neighbours. Default 12.
  uint32_t max_neighbours;
  // `THRONG_COMBINATION_*`.
  uint32_t combination;
  // True: reciprocal collision avoidance (ORCA) with its default parameters,
  // so that the group's agents do not walk through each other.
  bool avoidance;
  // True: the host moves the group's agents. Each step computes their desired
  // velocities (`throng_world_desired_velocities`) but moves none of them; the host
  // writes positions and velocities back.
  bool host_moves;
  // Level of detail: the group's agents steer only every this many ticks (1 to
  // 64), in rotation, moving on their last steering output in between. Default 1
  // (every tick).
  uint32_t think_every;
} ThrongGroupDesc;

// Everything needed to spawn one agent. Start from `throng_agent_desc_default()`.
typedef struct {
  // Its group.
  uint32_t group;
  // Where it starts.
  ThrongVec2 position;
  // Its initial velocity.
  ThrongVec2 velocity;
  // Body radius (units), >= 0. Default 0.5.
  float radius;
  // Mass, > 0. Default 1.
  float mass;
  // Maximum speed (units/s), >= 0. Default 2.
  float max_speed;
  // Maximum steering force, >= 0. Default 4.
  float max_force;
  // `THRONG_TARGET_*`: what its targeted behaviours aim at.
  uint32_t target_kind;
  // The target point (with `THRONG_TARGET_POINT`).
  ThrongVec2 target_point;
  // The target agent's handle (with `THRONG_TARGET_AGENT`).
  uint64_t target_agent;
  // Formation offset for offset pursuit, in the target agent's frame (x right,
  // y forward).
  ThrongVec2 offset;
} ThrongAgentDesc;

// A change of an agent's arrival state during the last tick.
typedef struct {
  // The agent.
  uint64_t agent;
  // Its state before the tick (`THRONG_ARRIVAL_*`).
  uint8_t from;
  // Its state after it.
  uint8_t to;
} ThrongArrivalEvent;

// A change of the leader in whose sight an agent is, during the last step.
typedef struct {
  // The agent.
  uint64_t agent;
  // The leader whose sight it entered, or `THRONG_NO_AGENT`.
  uint64_t entered;
  // The leader whose sight it left, or `THRONG_NO_AGENT`.
  uint64_t left;
} ThrongSightEvent;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// The message of the last call on this thread that did not return
// `THRONG_STATUS_OK` ("" if none has failed). The text stays valid until the next
// failing call on this thread; copy it to keep it.
const char *throng_last_error(void);

// The library's version, e.g. "0.1.0" (a static string).
const char *throng_version(void);

// The default settings: seed 0, k-d tree, semi-implicit Euler, re-sort every 32
// ticks, the process-wide thread pool.
ThrongWorldConfig throng_world_config_default(void);

// Create an empty world. `*out` receives it; free it with `throng_world_free`.
//
// # Safety
// `config` points at a `ThrongWorldConfig`; `out` at a writable `ThrongWorld*`.
ThrongStatus throng_world_new(const ThrongWorldConfig *config, ThrongWorld **out);

// Build a world from a scenario profile's TOML text (the format of the bundled
// `profiles/`): its scene, groups, agents and squads. Each `throng_world_step`
// also moves the profile's moving targets. `threads` as in `ThrongWorldConfig`.
// An invalid profile's message names the line and key.
//
// # Safety
// `toml` is a NUL-terminated string; `out` points at a writable `ThrongWorld*`.
ThrongStatus throng_world_from_profile(const char *toml, uint32_t threads, ThrongWorld **out);

// Rebuild a world from a snapshot's bytes (`throng_world_snapshot`). Stepping it
// gives bitwise the same as stepping the world the snapshot was taken of.
//
// # Safety
// `bytes` points at `len` readable bytes; `out` at a writable `ThrongWorld*`.
ThrongStatus throng_world_from_snapshot(const uint8_t *bytes,
                                        size_t len,
                                        uint32_t threads,
                                        ThrongWorld **out);

// Free a world and everything in it. A null `world` is accepted and does nothing
// (like `free`); a poisoned world is freed too.
//
// # Safety
// `world` is null or a world not yet freed; it must not be used afterwards.
ThrongStatus throng_world_free(ThrongWorld *world);

// Advance the world by `dt` seconds (> 0, finite): one tick.
//
// # Safety
// `world` is null or a live world used by no other thread during the call.
ThrongStatus throng_world_step(ThrongWorld *world, float dt);

// The number of live agents.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `size_t`.
ThrongStatus throng_world_len(ThrongWorld *world, size_t *out);

// The number of ticks stepped.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `uint64_t`.
ThrongStatus throng_world_tick(ThrongWorld *world, uint64_t *out);

// A 64-bit hash of everything the next tick reads (the same as the Rust API's
// `World::state_hash`): equal hashes on two machines mean they are in step, the
// lockstep desync check.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `uint64_t`.
ThrongStatus throng_world_state_hash(ThrongWorld *world, uint64_t *out);

// The last tick's statistics (all zero before the first tick).
//
// # Safety
// `world` is null or a live world; `out` points at a writable `ThrongTickStats`.
ThrongStatus throng_world_last_stats(ThrongWorld *world, ThrongTickStats *out);

// Write the world's snapshot (a self-contained, versioned byte string) into `buf`
// of `cap` bytes and its length into `*len`. With `buf` null and `cap` 0, only the
// length is written. When `cap` is too small, `*len` gets the length needed and the
// call returns `THRONG_STATUS_BUFFER_TOO_SMALL`.
//
// # Safety
// `world` is null or a live world; `buf` null (with `cap` 0) or `cap` writable
// bytes; `len` points at a writable `size_t`.
ThrongStatus throng_world_snapshot(ThrongWorld *world, uint8_t *buf, size_t cap, size_t *len);

// Put the world back in the state of a snapshot's bytes (taken of this world or
// another). On an error the world is unchanged. A world built from a profile
// keeps its moving targets' clock.
//
// # Safety
// `world` is null or a live world; `bytes` points at `len` readable bytes.
ThrongStatus throng_world_restore(ThrongWorld *world, const uint8_t *bytes, size_t len);

// Replace the world's walls: `count` segments, each four floats `x0, y0, x1, y1`
// in `xyxy`. Agents steer around them and never cross them.
//
// # Safety
// `world` is null or a live world; `xyxy` points at `4 * count` floats (or is
// null with `count` 0).
ThrongStatus throng_world_set_walls(ThrongWorld *world, const float *xyxy, size_t count);

// Replace the world's circular obstacles: `count` discs, each three floats
// `x, y, radius` in `xyr`.
//
// # Safety
// `world` is null or a live world; `xyr` points at `3 * count` floats (or is null
// with `count` 0).
ThrongStatus throng_world_set_obstacles(ThrongWorld *world, const float *xyr, size_t count);

// Add a path of `count` points (`ThrongVec2`), open or `looped` (non-zero), for the
// follow-path behaviour; `*out` receives its id.
//
// # Safety
// `world` is null or a live world; `points` points at `count` `ThrongVec2`; `out`
// at a writable `uint32_t`.
ThrongStatus throng_world_add_path(ThrongWorld *world,
                                   const ThrongVec2 *points,
                                   size_t count,
                                   bool looped,
                                   uint32_t *out);

// Remove a path. Agents that had it as their own path follow their group's from
// then on; refused (INVALID_ARGUMENT) while a group's follow-path behaviour names
// it. Its id is not reused.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_world_remove_path(ThrongWorld *world, uint32_t path);

// The number of paths in the world, e.g. those a profile built (their ids are
// `0..count` until one is removed: removed paths are not counted, and their ids
// are not reused).
//
// # Safety
// `world` is null or a live world; `out` points at a writable `size_t`.
ThrongStatus throng_world_path_count(ThrongWorld *world, size_t *out);

// Add a goal field (the travel distance to the nearest of its goals around the
// walls and obstacles, for `THRONG_BEHAVIOUR_FOLLOW_FIELD`); `*out` receives its id.
// `goals` holds `count` boxes as `x0, y0, x1, y1` (opposite corners; a point is a box
// of size zero); `clearance` is the radius of the bodies it serves (walls and
// obstacles are grown by it, > 0); `cell` the side of its cells, 0 for half the
// clearance. The field covers the walls, obstacles and
// goals, and is rebuilt whenever the walls or obstacles are set.
//
// # Safety
// `world` is null or a live world; `goals` points at `4 * count` floats; `out` at a
// writable `uint32_t`.
ThrongStatus throng_world_add_goal_field(ThrongWorld *world,
                                         const float *goals,
                                         size_t count,
                                         float clearance,
                                         float cell,
                                         uint32_t *out);

// Remove a goal field; refused (INVALID_ARGUMENT) while a group's follow-field
// behaviour names it. Its id is not reused.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_world_remove_goal_field(ThrongWorld *world, uint32_t field);

// Level of detail around a point (a camera): the agents farther than `near` from
// `centre` steer only every `think_every` ticks (1 to 64), in rotation, moving on
// their last steering output in between (their group's own `think_every` where that
// is larger). `think_every` 1 turns it off. Call it as the camera moves; it is read
// at every step and kept in snapshots.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_world_set_level_of_detail(ThrongWorld *world,
                                              ThrongVec2 centre,
                                              float near,
                                              uint32_t think_every);

// Whether a body of `radius` passes straight from `from` to `to` through the walls
// and obstacles into `*out` (agents are not in the way; RVO2's `queryVisibility`).
//
// # Safety
// `world` is null or a live world; `out` points at a writable `bool`.
ThrongStatus throng_world_clear_line(ThrongWorld *world,
                                     ThrongVec2 from,
                                     ThrongVec2 to,
                                     float radius,
                                     bool *out);

// The travel distance from `(x, y)` to the nearest goal of `field` into `*out`: 0 in a
// goal, infinity where no goal can be reached.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `float`.
ThrongStatus throng_world_field_distance(ThrongWorld *world,
                                         uint32_t field,
                                         float x,
                                         float y,
                                         float *out);

// A group named "group" with no behaviours, the default neighbour radius (3) and
// cap (12), weighted sum, no avoidance, steering every tick.
ThrongGroupDesc throng_group_desc_default(void);

// Add a group; `*out` receives its id. Parameters are checked (a follow-path
// behaviour's path must exist).
//
// # Safety
// `world` is null or a live world; `desc` points at a `ThrongGroupDesc` whose
// pointers are valid as it documents; `out` at a writable `uint32_t`.
ThrongStatus throng_world_add_group(ThrongWorld *world, const ThrongGroupDesc *desc, uint32_t *out);

// The id of the first group called `name` (e.g. one a profile built), or
// `THRONG_STATUS_UNKNOWN_GROUP`.
//
// # Safety
// `world` is null or a live world; `name` a NUL-terminated string; `out` points at
// a writable `uint32_t`.
ThrongStatus throng_world_group_by_name(ThrongWorld *world, const char *name, uint32_t *out);

// Remove a group: its agents are despawned, and its id names no group from then
// on (a later group may take its slot, with another id).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_world_remove_group(ThrongWorld *world, uint32_t group);

// The number of groups (their ids are `0..count` until one is removed: removed
// groups are not counted; a later group takes a removed one's slot, with an id
// whose high 16 bits, the slot's generation, differ, so the removed id stays dead).
//
// # Safety
// `world` is null or a live world; `out` points at a writable `size_t`.
ThrongStatus throng_world_group_count(ThrongWorld *world, size_t *out);

// An agent of `group` at `(x, y)`, still, with the default body and no target.
ThrongAgentDesc throng_agent_desc_default(uint32_t group, float x, float y);

// Spawn one agent; `*out` receives its handle.
//
// # Safety
// `world` is null or a live world; `desc` points at a `ThrongAgentDesc`; `out` at a
// writable `uint64_t`.
ThrongStatus throng_world_spawn(ThrongWorld *world, const ThrongAgentDesc *desc, uint64_t *out);

// Spawn `count` agents, all or nothing; `ids` receives their handles in order.
//
// # Safety
// `world` is null or a live world; `descs` points at `count` `ThrongAgentDesc`;
// `ids` at `count` writable `uint64_t`.
ThrongStatus throng_world_spawn_many(ThrongWorld *world,
                                     const ThrongAgentDesc *descs,
                                     size_t count,
                                     uint64_t *ids);

// Despawn an agent; its handle is stale from now on.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_world_despawn(ThrongWorld *world, uint64_t id);

// Whether `id` names a live agent (`*out` = true) or not.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `bool`.
ThrongStatus throng_world_contains(ThrongWorld *world, uint64_t id, bool *out);

// An agent's position.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `ThrongVec2`.
ThrongStatus throng_agent_position(ThrongWorld *world, uint64_t id, ThrongVec2 *out);

// An agent's velocity.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `ThrongVec2`.
ThrongStatus throng_agent_velocity(ThrongWorld *world, uint64_t id, ThrongVec2 *out);

// An agent's heading: radians clockwise from +y (0 faces +y, pi/2 faces +x).
//
// # Safety
// `world` is null or a live world; `out` points at a writable `float`.
ThrongStatus throng_agent_heading(ThrongWorld *world, uint64_t id, float *out);

// Move an agent (a teleport: its velocity is kept).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_position(ThrongWorld *world, uint64_t id, ThrongVec2 position);

// Set an agent's velocity (truncated to its maximum speed).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_velocity(ThrongWorld *world, uint64_t id, ThrongVec2 velocity);

// Set an agent's heading (radians clockwise from +y).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_heading(ThrongWorld *world, uint64_t id, float heading);

// Set what an agent's targeted behaviours aim at: `kind` is `THRONG_TARGET_*`, with
// `point` for a point and `agent` for an agent (the other is ignored).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_target(ThrongWorld *world,
                                     uint64_t id,
                                     uint32_t kind,
                                     ThrongVec2 point,
                                     uint64_t agent);

// Drive an agent from the host: its group's behaviours are no longer run for it,
// and each step it steers to `velocity` (truncated to its top speed) as fast as its
// force allows; with its group's avoidance, ORCA keeps it as near `velocity` as it
// can while staying collision-free (RVO2's preferred velocity). Other agents steer
// around it. It stays until changed or cleared.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_preferred_velocity(ThrongWorld *world,
                                                 uint64_t id,
                                                 ThrongVec2 velocity);

// Hand a host-driven agent back to its group's behaviours.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_clear_preferred_velocity(ThrongWorld *world, uint64_t id);

// Move an agent to another group, keeping its handle and state.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_group(ThrongWorld *world, uint64_t id, uint32_t group);

// Give an agent a path of its own (`throng_world_add_path`), which its group's
// follow-path behaviour follows in place of the group's, or take it away with
// `THRONG_NO_PATH`.
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_path(ThrongWorld *world, uint64_t id, uint32_t path);

// An agent's own path, or `THRONG_NO_PATH`.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `uint32_t`.
ThrongStatus throng_agent_path(ThrongWorld *world, uint64_t id, uint32_t *out);

// Set an agent's body radius (>= 0).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_radius(ThrongWorld *world, uint64_t id, float radius);

// Set an agent's mass (> 0), maximum speed and maximum force (>= 0).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_body(ThrongWorld *world,
                                   uint64_t id,
                                   float mass,
                                   float max_speed,
                                   float max_force);

// Set an agent's formation offset (in its target agent's frame: x right, y
// forward).
//
// # Safety
// `world` is null or a live world.
ThrongStatus throng_agent_set_offset(ThrongWorld *world, uint64_t id, ThrongVec2 offset);

// An agent's arrival state (`THRONG_ARRIVAL_*`) after the last tick.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `uint8_t`.
ThrongStatus throng_agent_arrival(ThrongWorld *world, uint64_t id, uint8_t *out);

// The arrival changes of the last tick, in row order (see the module's bulk reads:
// `written` gets the count; a null array with capacity 0 asks only the count).
//
// # Safety
// `world` is null or a live world; `out` null (with `cap` 0) or `cap` writable
// items; `written` points at a writable `size_t`.
ThrongStatus throng_world_arrival_events(ThrongWorld *world,
                                         ThrongArrivalEvent *out,
                                         size_t cap,
                                         size_t *written);

// The agents that entered or left a leader's sight during the last step, in row
// order (the bulk-read convention for `out`, `cap` and `written`).
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_sight_events(ThrongWorld *world,
                                       ThrongSightEvent *out,
                                       size_t cap,
                                       size_t *written);

// Every agent's handle, in row order: row `i` of the other bulk reads is agent
// `ids[i]` (rows move between ticks; handles don't).
//
// # Safety
// `world` is null or a live world; `out` null (with `cap` 0) or `cap` writable
// items; `written` points at a writable `size_t`.
ThrongStatus throng_world_ids(ThrongWorld *world, uint64_t *out, size_t cap, size_t *written);

// Every agent's position, in row order.
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_positions(ThrongWorld *world,
                                    ThrongVec2 *out,
                                    size_t cap,
                                    size_t *written);

// Every agent's velocity, in row order.
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_velocities(ThrongWorld *world,
                                     ThrongVec2 *out,
                                     size_t cap,
                                     size_t *written);

// Every agent's heading (radians clockwise from +y), in row order.
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_headings(ThrongWorld *world, float *out, size_t cap, size_t *written);

// The velocity the last step gave an agent: for an agent of a group the host moves,
// the one its behaviours, body and avoidance want it to move at; for any other, the
// velocity it moved at.
//
// # Safety
// `world` is null or a live world; `out` points at a writable `ThrongVec2`.
ThrongStatus throng_agent_desired_velocity(ThrongWorld *world, uint64_t id, ThrongVec2 *out);

// Every agent's desired velocity (`throng_agent_desired_velocity`), in row order.
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_desired_velocities(ThrongWorld *world,
                                             ThrongVec2 *out,
                                             size_t cap,
                                             size_t *written);

// Every agent's arrival state (`THRONG_ARRIVAL_*`), in row order.
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_arrivals(ThrongWorld *world, uint8_t *out, size_t cap, size_t *written);

// Every agent's group id, in row order.
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_groups(ThrongWorld *world, uint32_t *out, size_t cap, size_t *written);

// The agents within `radius` of `point` (of group `group`, or of every group when
// `group` is `THRONG_ANY_GROUP`), nearest first, as handles; the bulk-read
// convention for `out`, `cap` and `written`. Positions are those after the last
// change (step, spawn, despawn, set_position).
//
// # Safety
// As `throng_world_ids`.
ThrongStatus throng_world_agents_within(ThrongWorld *world,
                                        ThrongVec2 point,
                                        float radius,
                                        uint32_t group,
                                        uint64_t *out,
                                        size_t cap,
                                        size_t *written);

// The agent nearest to `point` within `max_radius`: `*found` says whether there is
// one and `*out` is its handle.
//
// # Safety
// `world` is null or a live world; `out` and `found` point at a writable
// `uint64_t` and `bool`.
ThrongStatus throng_world_nearest_agent(ThrongWorld *world,
                                        ThrongVec2 point,
                                        float max_radius,
                                        uint64_t *out,
                                        bool *found);

// Move many agents in one call: `positions[i]` for `ids[i]`, `count` of each. All or
// nothing: nothing is written unless every handle is live and every position finite
// (50,000 in well under a millisecond, against one call each).
//
// # Safety
// `world` is null or a live world; `ids` and `positions` null (with `count` 0) or
// `count` readable items each.
ThrongStatus throng_agents_set_positions(ThrongWorld *world,
                                         const uint64_t *ids,
                                         const ThrongVec2 *positions,
                                         size_t count);

// Set many agents' velocities in one call (each truncated to its agent's maximum
// speed), all or nothing, as `throng_agents_set_positions`.
//
// # Safety
// As `throng_agents_set_positions`.
ThrongStatus throng_agents_set_velocities(ThrongWorld *world,
                                          const uint64_t *ids,
                                          const ThrongVec2 *velocities,
                                          size_t count);

// Drive many agents from the host in one call (`throng_agent_set_preferred_velocity`
// for each): a velocity whose x and y are both NaN clears the agent's, any other
// must be finite. All or nothing, as `throng_agents_set_positions`.
//
// # Safety
// As `throng_agents_set_positions`.
ThrongStatus throng_agents_set_preferred_velocities(ThrongWorld *world,
                                                    const uint64_t *ids,
                                                    const ThrongVec2 *velocities,
                                                    size_t count);

// Give many agents a point target each in one call: `points[i]` for `ids[i]`. All
// or nothing, as `throng_agents_set_positions`.
//
// # Safety
// As `throng_agents_set_positions`.
ThrongStatus throng_agents_set_target_points(ThrongWorld *world,
                                             const uint64_t *ids,
                                             const ThrongVec2 *points,
                                             size_t count);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* THRONG_H */
