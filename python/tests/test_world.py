"""throng's Python module: worlds from profiles and from Python, numpy columns,
determinism across thread counts, snapshots and pickling, errors as exceptions."""

import pickle
import threading
import time

import numpy as np
import pytest

import throng

ROOM = """
name = "room"
[world]
seed = 3
dt = 0.05
ticks = 10
[[groups]]
name = "marker"
count = 1
spawn = { shape = "box", centre = [-50.0, 0.0], size = [1.0, 1.0] }

[[groups]]
name = "walkers"
count = 0
spawn = { shape = "box", centre = [0.0, 0.0], size = [1.0, 1.0] }
max_speed = 1.5
radius = 0.3
behaviours = [
  { kind = "arrive", weight = 1.0, slowing_radius = 1.0 },
  { kind = "separation", weight = 2.0, radius = 0.8 },
]
"""


def test_a_bundled_profile_steps_and_gives_columns_as_arrays():
    w = throng.World.bundled("flock", agents=500, threads=2)
    assert len(w) == 500 and w.dt > 0
    w.step(ticks=5)
    assert w.tick == 5
    p, v = w.positions(), w.velocities()
    assert p.shape == (500, 2) and p.dtype == np.float32 and np.isfinite(p).all()
    assert v.shape == (500, 2) and np.isfinite(v).all()
    assert w.headings().shape == (500,) and w.radii().shape == (500,)
    ids = w.ids()
    assert ids.dtype == np.uint64 and len(np.unique(ids)) == 500
    assert set(w.arrivals()) <= set(range(len(throng.ARRIVAL_STATES)))
    assert w.desired_velocities().shape == (500, 2)
    assert "flock" in throng.bundled_profiles()


def test_any_thread_count_gives_the_same_bits():
    hashes = set()
    for threads in (1, 2, 3):
        w = throng.World.bundled("circle_orca", agents=300, threads=threads)
        w.step(ticks=40)
        hashes.add((w.state_hash(), w.positions().tobytes()))
    assert len(hashes) == 1


def test_spawned_walkers_reach_their_targets():
    w = throng.World.from_profile(ROOM, threads=2)
    start = np.array([[x, y] for x in range(5) for y in range(4)], dtype=float)
    goals = start + np.array([12.0, 0.0])
    ids = w.spawn("walkers", start, targets=goals)
    assert len(ids) == 20 and len(w) == 21
    rows = {int(h): i for i, h in enumerate(w.ids())}
    assert np.allclose(w.radii()[[rows[int(h)] for h in ids]], 0.3)
    rows = {int(h): i for i, h in enumerate(w.ids())}
    assert np.allclose(w.targets()[[rows[int(h)] for h in ids]], goals)
    marker = w.group_names().index("marker")
    assert np.isnan(w.targets()[w.group_indices() == marker]).all()
    arrived = set()
    for _ in range(400):
        w.step()
        got, before, after = w.arrival_events()
        arrived |= {int(h) for h, t in zip(got, after) if t == throng.ARRIVAL_STATES.index("arrived")}
    rows = {int(h): i for i, h in enumerate(w.ids())}
    p = w.positions()[[rows[int(h)] for h in ids]]
    assert np.linalg.norm(p - goals, axis=1).max() < 1.0
    assert (w.arrivals() == throng.ARRIVAL_STATES.index("arrived")).sum() >= 18
    # Every walker's arrival was an event; the marker, with no target, has none.
    assert arrived <= {int(h) for h in ids} and len(arrived) >= 18


RALLY = """
name = "rally"
[world]
dt = 0.1
ticks = 10
[[groups]]
name = "crowd"
count = 12
spawn = { shape = "box", centre = [0.0, 8.0], size = [10.0, 3.0], arrangement = "grid" }
radius = 0.4
max_speed = 1.4
target = { point = [0.0, 0.0] }
avoidance = {}
behaviours = [{ kind = "arrive", slowing_radius = 1.0 }]
"""


def test_a_crowd_sent_to_one_point_reports_queued_not_stuck():
    w = throng.World.from_profile(RALLY, threads=2)
    w.step(ticks=600)
    states = [throng.ARRIVAL_STATES[int(a)] for a in w.arrivals()]
    assert states.count("arrived") >= 1 and "stuck" not in states
    assert states.count("arrived") + states.count("queued") == 12


def test_a_snapshot_restores_bitwise_and_a_world_pickles():
    w = throng.World.bundled("crossing", agents=200, threads=2)
    w.step(ticks=20)
    snap = w.snapshot()
    w.step(ticks=30)
    after = w.state_hash()
    w.restore(snap)
    w.step(ticks=30)
    assert w.state_hash() == after
    copy = pickle.loads(pickle.dumps(w))
    assert copy.state_hash() == w.state_hash()
    copy.step(0.05, ticks=3)
    w.step(0.05, ticks=3)
    assert copy.state_hash() == w.state_hash()
    again = throng.World.from_snapshot(w.snapshot(), threads=1)
    assert again.state_hash() == w.state_hash()


def test_bad_input_is_an_exception_and_changes_nothing():
    w = throng.World.from_profile(ROOM)
    with pytest.raises(throng.ThrongError, match=r"bad.toml:2:1: `world.dt`"):
        throng.World.from_profile("[world]\ndt = -1\n", name="bad.toml")
    with pytest.raises(throng.ThrongError, match="no group"):
        w.spawn("nobody", np.zeros((1, 2)))
    with pytest.raises(throng.ThrongError, match="shape"):
        w.spawn("walkers", np.zeros((3, 3)))
    with pytest.raises(throng.ThrongError):
        w.spawn("walkers", np.array([[0.0, 0.0], [np.nan, 1.0]]))
    assert len(w) == 1
    ids = w.spawn("walkers", np.zeros((2, 2)))
    w.despawn(ids[:1])
    with pytest.raises(throng.ThrongError):
        w.set_positions(ids[:1], np.zeros((1, 2)))
    with pytest.raises(throng.ThrongError):
        w.step(float("inf"))
    with pytest.raises(throng.ThrongError, match="dt"):
        throng.World().step()
    with pytest.raises(throng.ThrongError):
        throng.World(index="octree")
    with pytest.raises(throng.ThrongError):
        throng.World.from_snapshot(b"not a snapshot")
    with pytest.raises(throng.ThrongError, match="at least 1"):
        throng.World.bundled("flock", agents=0)
    with pytest.raises(throng.ThrongError, match="available"):
        throng.World.bundled("flock", agents=10**12)
    assert issubclass(throng.ThrongError, ValueError)


def test_host_driven_orca_agents_pass_each_other():
    w = throng.World(seed=1)
    g = w.add_group("orca", neighbour_radius=5.0, max_neighbours=10,
                    avoidance={"time_horizon": 2.0, "obstacle_time_horizon": 2.0})
    ids = w.spawn(g, np.array([[-5.0, 0.0], [5.0, 0.05]]), radius=0.5, max_speed=1.0,
                  max_force=1e30)
    w.set_preferred_velocities(ids, np.array([[1.0, 0.0], [-1.0, 0.0]]))
    closest = np.inf
    for _ in range(300):
        w.step(0.05)
        p = w.positions()
        closest = min(closest, float(np.linalg.norm(p[0] - p[1])))
    p = w.positions()
    rows = {int(h): i for i, h in enumerate(w.ids())}
    assert p[rows[int(ids[0])]][0] > 4.0 and p[rows[int(ids[1])]][0] < -4.0
    assert closest > 0.99
    with pytest.raises(throng.ThrongError):
        w.add_group("bad", avoidance={"time_horizon": -1.0})
    with pytest.raises(throng.ThrongError):
        w.add_group("bad", avoidance={"colour": 3})
    with pytest.raises(throng.ThrongError, match="pedestrian"):
        w.add_group("bad", avoidance={"preset": "robot"})
    # The pedestrian preset, with a key of its own beside it (a profile's
    # `avoidance = { preset = "pedestrian", priority = 0.8 }`): accepted.
    w.add_group("people", avoidance={"priority": 0.8, "preset": "pedestrian"})
    # Near the goal: its four keys, or None for none; a missing or unknown key and
    # a value out of range are refused.
    near = {"within": 8.0, "time_gap": 0.3, "squeeze": 0.2, "side_bias": 0.8}
    w.add_group("pressing", avoidance={"preset": "pedestrian", "near_goal": near})
    w.add_group("calm", avoidance={"preset": "pedestrian", "near_goal": None})
    for bad in ({"within": 8.0}, dict(near, colour=1), dict(near, squeeze=0.7), 3.0):
        with pytest.raises(throng.ThrongError, match="near_goal"):
            w.add_group("bad", avoidance={"near_goal": bad})


def test_walls_and_clear_lines():
    w = throng.World()
    w.set_walls(np.array([[0.0, -1.0, 0.0, 1.0]]))
    assert not w.clear_line((-2, 0), (2, 0))
    assert w.clear_line((-2, 2), (2, 2), 0.5)
    assert not w.clear_line((-2, 2), (2, 2), 1.5)
    with pytest.raises(throng.ThrongError):
        w.set_walls(np.zeros((1, 3)))


def test_a_step_releases_the_interpreter():
    w = throng.World.bundled("flock", agents=20000, threads=1)
    counted = []
    done = threading.Event()

    def count():
        n = 0
        while not done.is_set():
            n += 1
        counted.append(n)

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.01)
    before = time.perf_counter()
    w.step(ticks=10)
    stepped = time.perf_counter() - before
    done.set()
    t.join()
    # The other thread ran Python while the world stepped.
    assert stepped > 0 and counted[0] > 1000


def test_the_quality_counter_reads_a_world_and_any_positions():
    w = throng.World.from_profile(ROOM)
    start = np.array([[0.0, 0.0], [0.0, 2.0]])
    w.spawn("walkers", start, targets=start + np.array([6.0, 0.0]))
    q = throng.QualityCounter(gates=[("line", (3.0, -5.0), (3.0, 5.0))])
    for _ in range(60):
        w.step(ticks=5)
        q.sample_world(w)
    s = q.summary()
    # The marker has no target; the two walkers arrive and cross the line.
    assert s["with_goal"] == 2 and s["arrived"] == 2 and s["stuck"] == 0
    assert s["gates"][0]["crossed"] == 2
    # Positions of any system: two bodies of radius 1, 1.5 apart, overlap by 0.5.
    o = throng.QualityCounter()
    o.sample(0.0, np.array([0, 1]), np.array([[0.0, 0.0], [1.5, 0.0]]),
             np.array([1.0, 1.0]), np.array([1.0, 1.0]),
             goals=np.array([[0.0, 0.0], [np.nan, np.nan]]))
    s = o.summary()
    assert s["max_penetration"] == pytest.approx(0.5)
    assert s["overlapping_pairs_per_agent_sample"] == pytest.approx(0.5)
    assert s["with_goal"] == 1 and s["arrived"] == 1
    with pytest.raises(throng.ThrongError, match="below"):
        o.sample(1.0, np.array([10**12]), np.zeros((1, 2)), np.ones(1), np.ones(1))
    with pytest.raises(throng.ThrongError, match="one row per agent"):
        o.sample(1.0, np.array([0, 1]), np.zeros((1, 2)), np.ones(1), np.ones(1))


def test_a_profile_of_groups_alone_is_spawned_into():
    w = throng.World.from_profile(
        '[world]\ndt = 0.1\n[[groups]]\nname = "walkers"\ncount = 0\n'
        'spawn = { shape = "box", centre = [0, 0], size = [1, 1] }\n'
        'behaviours = [{ kind = "seek" }]\n')
    assert len(w) == 0
    ids = w.spawn("walkers", np.zeros((3, 2)), targets=np.full((3, 2), 5.0))
    w.step(ticks=10)
    assert len(w) == 3 and (w.positions()[:, 0] > 0).all() and len(ids) == 3


def test_level_of_detail_steers_every_kth_tick():
    w = throng.World(seed=1)
    g = w.add_group("far", neighbour_radius=5.0, avoidance={}, think_every=3)
    ids = w.spawn(g, np.array([[0.0, 0.0]]), radius=0.5, max_speed=2.0, max_force=1e30)
    changed, last = [], w.velocities()[0].copy()
    for t in range(9):
        w.set_preferred_velocities(ids, np.array([[1.0, 0.0] if t % 2 else [0.0, 1.0]]))
        w.step(0.05)
        now = w.velocities()[0].copy()
        if not np.array_equal(now, last):
            changed.append(t)
        last = now
    assert changed == [0, 3, 6]
    # Far from a camera: every 4th tick, the slower of the two rates.
    w.set_level_of_detail((100.0, 0.0), near=10.0, think_every=4)
    w.set_level_of_detail(None)
    with pytest.raises(throng.ThrongError, match="think_every"):
        w.set_level_of_detail((0.0, 0.0), near=1.0, think_every=0)
    with pytest.raises(throng.ThrongError, match="near"):
        w.set_level_of_detail((0.0, 0.0), near=-1.0, think_every=2)
    with pytest.raises(throng.ThrongError, match="think_every"):
        w.add_group("bad", think_every=65)
