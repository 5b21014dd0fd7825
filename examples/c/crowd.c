/* A small crowd through throng's C ABI: a squad following its leader around a
 * square patrol, and a flock wandering beside it. Steps 300 ticks, prints a few
 * agents' positions and the world's state hash, then shows a refused call, a
 * snapshot and a restore.
 *
 * Build (from the repository root, after building the static library):
 *   cargo rustc --release --lib --no-default-features --features capi --crate-type staticlib,cdylib
 *   cc -std=c11 -Wall -Wextra -Werror -Iinclude examples/c/crowd.c \
 *      target/release/libthrong.a -lpthread -ldl -lm -o target/crowd
 *   ./target/crowd
 *
 * examples/c_twin.rs builds the same crowd with the Rust API: both print the same
 * hash. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "throng.h"

/* Stop with the library's message when a call fails. */
#define CHECK(call)                                                                \
    do {                                                                           \
        ThrongStatus status_ = (call);                                             \
        if (status_ != THRONG_STATUS_OK) {                                         \
            fprintf(stderr, "%s failed (%d): %s\n", #call, (int)status_,          \
                    throng_last_error());                                          \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

enum { FOLLOWERS = 12, BIRDS = 60, TICKS = 300 };

int main(void) {
    ThrongWorldConfig config = throng_world_config_default();
    config.seed = 42;
    config.threads = 2;
    ThrongWorld *world = NULL;
    CHECK(throng_world_new(&config, &world));

    /* The leader's patrol: a looped square. */
    const ThrongVec2 square[] = {{-10.0f, -10.0f}, {10.0f, -10.0f}, {10.0f, 10.0f}, {-10.0f, 10.0f}};
    uint32_t patrol = 0;
    CHECK(throng_world_add_path(world, square, 4, true, &patrol));

    /* Groups: the leader follows the patrol; the squad follows the leader; the
     * flock keeps together and wanders. */
    ThrongBehaviourDesc leader_b[] = {{THRONG_BEHAVIOUR_FOLLOW_PATH, 1.0f, 0.0f, patrol}};
    ThrongGroupDesc leaders = throng_group_desc_default();
    leaders.name = "leader";
    leaders.behaviours = leader_b;
    leaders.behaviour_count = 1;
    uint32_t leader_group = 0;
    CHECK(throng_world_add_group(world, &leaders, &leader_group));

    ThrongBehaviourDesc squad_b[] = {{THRONG_BEHAVIOUR_LEADER_FOLLOW, 1.0f, 0.0f, 0}};
    ThrongGroupDesc squad = throng_group_desc_default();
    squad.name = "squad";
    squad.behaviours = squad_b;
    squad.behaviour_count = 1;
    uint32_t squad_group = 0;
    CHECK(throng_world_add_group(world, &squad, &squad_group));

    ThrongBehaviourDesc flock_b[] = {
        {THRONG_BEHAVIOUR_SEPARATION, 1.5f, 0.0f, 0},
        {THRONG_BEHAVIOUR_ALIGNMENT, 0.6f, 0.0f, 0},
        {THRONG_BEHAVIOUR_COHESION, 0.5f, 0.0f, 0},
        {THRONG_BEHAVIOUR_WANDER, 0.4f, 0.0f, 0},
    };
    ThrongGroupDesc flock = throng_group_desc_default();
    flock.name = "flock";
    flock.behaviours = flock_b;
    flock.behaviour_count = 4;
    flock.neighbour_radius = 4.0f;
    uint32_t flock_group = 0;
    CHECK(throng_world_add_group(world, &flock, &flock_group));

    /* Agents: the leader, its squad in two rows behind it, the flock in a block. */
    ThrongAgentDesc leader = throng_agent_desc_default(leader_group, -10.0f, -10.0f);
    leader.max_speed = 1.6f;
    leader.radius = 0.6f;
    uint64_t leader_id = 0;
    CHECK(throng_world_spawn(world, &leader, &leader_id));

    ThrongAgentDesc followers[FOLLOWERS];
    for (int i = 0; i < FOLLOWERS; i++) {
        followers[i] = throng_agent_desc_default(squad_group, -16.0f + (float)(i % 6),
                                                 -12.0f - (float)(i / 6));
        followers[i].radius = 0.4f;
        followers[i].target_kind = THRONG_TARGET_AGENT;
        followers[i].target_agent = leader_id;
    }
    uint64_t follower_ids[FOLLOWERS];
    CHECK(throng_world_spawn_many(world, followers, FOLLOWERS, follower_ids));

    ThrongAgentDesc birds[BIRDS];
    for (int i = 0; i < BIRDS; i++) {
        birds[i] = throng_agent_desc_default(flock_group, 20.0f + 1.5f * (float)(i % 10),
                                             1.5f * (float)(i / 10));
        birds[i].velocity.x = 0.5f * (float)(i % 3 - 1);
        birds[i].velocity.y = 0.25f * (float)(i % 5 - 2);
    }
    uint64_t bird_ids[BIRDS];
    CHECK(throng_world_spawn_many(world, birds, BIRDS, bird_ids));

    for (int t = 0; t < TICKS; t++) {
        CHECK(throng_world_step(world, 1.0f / 30.0f));
    }

    size_t n = 0;
    CHECK(throng_world_len(world, &n));
    printf("%zu agents after %d ticks\n", n, TICKS);
    const uint64_t shown[] = {leader_id, follower_ids[0], follower_ids[FOLLOWERS - 1], bird_ids[0]};
    const char *names[] = {"leader", "follower 0", "follower 11", "bird 0"};
    for (int i = 0; i < 4; i++) {
        ThrongVec2 p;
        CHECK(throng_agent_position(world, shown[i], &p));
        printf("%-12s (%9.4f, %9.4f)\n", names[i], (double)p.x, (double)p.y);
    }

    /* Every agent's position at once, into the caller's array. */
    ThrongVec2 *positions = malloc(n * sizeof *positions);
    size_t written = 0;
    CHECK(throng_world_positions(world, positions, n, &written));
    double cx = 0.0, cy = 0.0;
    for (size_t i = 0; i < written; i++) {
        cx += positions[i].x;
        cy += positions[i].y;
    }
    printf("centre of the crowd (%.4f, %.4f)\n", cx / (double)written, cy / (double)written);
    free(positions);

    uint64_t hash = 0;
    CHECK(throng_world_state_hash(world, &hash));
    printf("state hash %016" PRIx64 "\n", hash);

    /* Bad input is refused with a status and a message; nothing changes. */
    ThrongAgentDesc bad = throng_agent_desc_default(flock_group, 0.0f / 0.0f, 0.0f);
    uint64_t unused = 0;
    ThrongStatus refused = throng_world_spawn(world, &bad, &unused);
    printf("spawn at NaN: status %d, \"%s\"\n", (int)refused, throng_last_error());

    /* Snapshot, step on, restore: the world is back where it was. */
    size_t len = 0;
    CHECK(throng_world_snapshot(world, NULL, 0, &len));
    uint8_t *snapshot = malloc(len);
    CHECK(throng_world_snapshot(world, snapshot, len, &len));
    for (int t = 0; t < 30; t++) {
        CHECK(throng_world_step(world, 1.0f / 30.0f));
    }
    CHECK(throng_world_restore(world, snapshot, len));
    uint64_t restored = 0;
    CHECK(throng_world_state_hash(world, &restored));
    printf("snapshot of %zu bytes; restored hash %016" PRIx64 " (%s)\n", len, restored,
           restored == hash ? "same" : "DIFFERENT");
    free(snapshot);

    CHECK(throng_world_free(world));
    return restored == hash ? 0 : 1;
}
