"""throng beside JuPedSim on one bottleneck: a square room emptying through a door
into a short corridor, the same room, door, people and exit for both.

JuPedSim is not a dependency: `pip install jupedsim shapely` (PyPI) into the
environment holding throng (`pip install ./python`), then

    python python/benches/jupedsim_peer.py --sizes 150,1500,15000
    python python/benches/jupedsim_peer.py --doors 0.8,1.0,1.2,1.6,2.0,2.5
    python python/benches/jupedsim_peer.py --experiment 0.8,1.0,1.2,1.6,2.0,2.5

Both simulate bodies of radius 0.2 m wanting 1.2 m/s (JuPedSim's collision-free
speed model and its social force model, each with its defaults otherwise, time step
0.01 s, as its documentation sets them up; throng: ORCA with a goal field to the
exit, time step 0.05 s). The room holds the
agents at the same density at every size (side 8 m at 150); the door is 1 m wide.
Reported per size: wall-clock ms per simulated second and per agent and simulated
second (the time steps differ, so per step says little), over the first `--window`
simulated seconds; and, for the sizes that empty within `--limit` seconds, when the
last agent left and the flow through the door (agents per second between the first
and the last crossing), beside the human data for a 1 m door (Seyfried et al. 2009:
1.61-1.97 persons per metre and second; Kretz et al. 2006: about 1.9 persons/s).

`--experiment`: the room of the bottleneck experiments instead (throng's bundled
`bottleneck_experiment`: 150 people standing in a holding area 8 m wide and 6 m deep,
4 m before a bottleneck 2 m long), the bottleneck made each width: the same 150
places (the profile's lattice) for every system, people-sized bodies (radius 0.22 m,
1.34 m/s) in JuPedSim's models with their defaults otherwise, and throng's profile
as it is (the pedestrian preset). Flow across the bottleneck's middle.
"""

import argparse
import math
import time
from pathlib import Path

import numpy as np

DOOR = 1.0
CORRIDOR = 4.0
RADIUS = 0.2
SPEED = 1.2


def side(n):
    return 8.0 * math.sqrt(n / 150.0)


def spawn_points(n, seed):
    import jupedsim as jps
    from shapely import Polygon

    s = side(n)
    area = Polygon([(-s + 0.3, -s / 2 + 0.3), (-0.3, -s / 2 + 0.3),
                    (-0.3, s / 2 - 0.3), (-s + 0.3, s / 2 - 0.3)])
    return jps.distributions.distribute_by_number(
        polygon=area, number_of_agents=n, distance_to_agents=0.5,
        distance_to_polygon=0.1, seed=seed)


def jupedsim_model(model):
    """JuPedSim's model and the parameters of one agent of it, radius and desired
    speed as throng's; everything else its defaults."""
    import jupedsim as jps

    if model == "sfm":
        return jps.SocialForceModel(), lambda **kw: jps.SocialForceModelAgentParameters(
            radius=RADIUS, desired_speed=SPEED, **kw)
    return jps.CollisionFreeSpeedModel(), lambda **kw: (
        jps.CollisionFreeSpeedModelAgentParameters(radius=RADIUS, desired_speed=SPEED, **kw))


def run_jupedsim(points, window, limit, model, door=DOOR):
    import jupedsim as jps
    from shapely import Polygon

    s = side(len(points))
    room = Polygon([(-s, -s / 2), (0, -s / 2), (0, s / 2), (-s, s / 2)])
    corridor = Polygon([(-0.1, -door / 2), (CORRIDOR, -door / 2),
                        (CORRIDOR, door / 2), (-0.1, door / 2)])
    model, agent = jupedsim_model(model)
    sim = jps.Simulation(model=model, geometry=room.union(corridor), dt=0.01)
    exit_id = sim.add_exit_stage([(CORRIDOR - 0.5, -door / 2), (CORRIDOR, -door / 2),
                                  (CORRIDOR, door / 2), (CORRIDOR - 0.5, door / 2)])
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    for p in points:
        sim.add_agent(agent(journey_id=journey, stage_id=exit_id, position=p))
    crossed = {}
    elapsed = 0.0
    timed = None
    while sim.agent_count() > 0 and sim.elapsed_time() < limit:
        t = time.perf_counter()
        try:
            sim.iterate()
        except RuntimeError as e:
            # The social force model can push a body out of the walkable area, which
            # JuPedSim refuses by stopping the simulation: said, and timed until then.
            print(f"    JuPedSim stopped at {sim.elapsed_time():.2f} s: {e}", flush=True)
            break
        elapsed += time.perf_counter() - t
        if timed is None and sim.elapsed_time() >= window:
            timed = elapsed / sim.elapsed_time()
        now = sim.elapsed_time()
        for a in sim.agents():
            if a.id not in crossed and a.position[0] > 0.0:
                crossed[a.id] = now
    if timed is None:
        timed = elapsed / max(sim.elapsed_time(), 1e-9)
    done = sim.elapsed_time() if sim.agent_count() == 0 else None
    return timed, done, sorted(crossed.values())


PROFILE = """
name = "jupedsim_bottleneck"
walls = [[{x0}, {y0}, 0, {y0}], [0, {y0}, 0, {dm}], [0, {dp}, 0, {y1}],
         [0, {y1}, {x0}, {y1}], [{x0}, {y1}, {x0}, {y0}],
         [0, {dm}, {c}, {dm}], [0, {dp}, {c}, {dp}]]
[world]
seed = 1
dt = 0.05
ticks = 100
[[fields]]
name = "exit"
goals = [[{g}, {dm}, {c}, {dp}]]
cell = 0.1
[[groups]]
name = "marker"
count = 1
spawn = {{ shape = "box", centre = [{mx}, 0], size = [0.1, 0.1] }}
max_speed = 0.0
[[groups]]
name = "people"
count = 0
spawn = {{ shape = "box", centre = [-1, 0], size = [1, 1] }}
radius = {r}
mass = 0.1
max_speed = {v}
max_force = 30.0
neighbour_radius = 3.0
max_neighbours = 10
avoidance = {{}}
leave_on_arrival = true
[[groups.behaviours]]
kind = "follow_field"
field = "exit"
"""


def run_throng(points, window, limit, threads, door=DOOR):
    import throng

    s = side(len(points))
    text = PROFILE.format(x0=-s, y0=-s / 2, y1=s / 2, dm=-door / 2, dp=door / 2,
                          c=CORRIDOR, g=CORRIDOR - 0.5, mx=-s - 50.0, r=RADIUS, v=SPEED)
    world = throng.World.from_profile(text, threads=threads)
    world.spawn("people", np.array(points, dtype=np.float32))
    people = world.group_names().index("people")
    crossed = {}
    elapsed = 0.0
    timed = None
    sim_time = 0.0
    while sim_time < limit:
        t = time.perf_counter()
        world.step()
        elapsed += time.perf_counter() - t
        sim_time = world.elapsed
        if timed is None and sim_time >= window:
            timed = elapsed / sim_time
        mine = world.group_indices() == people
        if not mine.any():
            break
        ids, xs = world.ids()[mine], world.positions()[mine, 0]
        for i in ids[xs > 0.0]:
            crossed.setdefault(int(i), sim_time)
    if timed is None:
        timed = elapsed / max(sim_time, 1e-9)
    done = sim_time if not (world.group_indices() == people).any() else None
    return timed, done, sorted(crossed.values())


def flow(times):
    if len(times) < 2 or times[-1] <= times[0]:
        return None
    return (len(times) - 1) / (times[-1] - times[0])


def doors(args):
    """150 agents leaving the room through doors of several widths: flow through the
    door (persons/s and per metre) for each system."""
    points = spawn_points(150, seed=1)
    systems = [(f"JuPedSim ({m.upper()})",
                lambda d, m=m: run_jupedsim(points, args.window, args.limit, m, d))
               for m in args.models.split(",")]
    systems.append(("throng (ORCA)",
                    lambda d: run_throng(points, args.window, args.limit, args.threads, d)))
    print(f"{'door':>5} {'system':>16} {'out at':>8} {'flow /s':>8} {'per m':>6}")
    for door in [float(x) for x in args.doors.split(",")]:
        for name, run in systems:
            _, done, times = run(door)
            f = flow(times) if done else None
            print(f"{door:5.2f} {name:>16} {(f'{done:.1f} s' if done else '-'):>8} "
                  f"{(f'{f:.2f}' if f else '-'):>8} {(f'{f / door:.2f}' if f else '-'):>6}",
                  flush=True)


EXPERIMENT = (Path(__file__).resolve().parents[2] / "profiles"
              / "bottleneck_experiment.toml")


def experiment_text(width):
    """The bundled `bottleneck_experiment` with its bottleneck `width` wide."""
    h = width / 2
    text = EXPERIMENT.read_text()
    for old, new in [
        ("[0, -4, 0, -0.6], [0, 0.6, 0, 4]", f"[0, -4, 0, -{h}], [0, {h}, 0, 4]"),
        ("[0, -0.6, 2, -0.6], [0, 0.6, 2, 0.6]", f"[0, -{h}, 2, -{h}], [0, {h}, 2, {h}]"),
        ("line = [1, -0.6, 1, 0.6]", f"line = [1, -{h}, 1, {h}]"),
    ]:
        assert old in text, old
        text = text.replace(old, new)
    return text


def run_jupedsim_experiment(points, limit, model, width):
    """JuPedSim in the experiments' room: the holding area, the bottleneck, and a
    room beyond it with the exit at its far side; crossing times at the gate."""
    import jupedsim as jps
    from shapely import Polygon

    h = width / 2
    holding = Polygon([(-10, -4), (0, -4), (0, 4), (-10, 4)])
    neck = Polygon([(-0.1, -h), (2.1, -h), (2.1, h), (-0.1, h)])
    beyond = Polygon([(2, -6), (12, -6), (12, 6), (2, 6)])
    if model == "sfm":
        model, agent = jps.SocialForceModel(), jps.SocialForceModelAgentParameters
    else:
        model, agent = jps.CollisionFreeSpeedModel(), jps.CollisionFreeSpeedModelAgentParameters
    sim = jps.Simulation(model=model, geometry=holding.union(neck).union(beyond), dt=0.01)
    exit_id = sim.add_exit_stage([(11, -6), (12, -6), (12, 6), (11, 6)])
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    for p in points:
        sim.add_agent(agent(journey_id=journey, stage_id=exit_id, position=tuple(p),
                            radius=0.22, desired_speed=1.34))
    crossed = {}
    while sim.agent_count() > 0 and sim.elapsed_time() < limit and len(crossed) < len(points):
        try:
            sim.iterate()
        except RuntimeError as e:
            print(f"    JuPedSim stopped at {sim.elapsed_time():.2f} s: {e}", flush=True)
            break
        now = sim.elapsed_time()
        for a in sim.agents():
            if a.id not in crossed and a.position[0] > 1.0:
                crossed[a.id] = now
    return sorted(crossed.values())


def run_throng_experiment(limit, width, threads):
    """throng's bundled room with the bottleneck `width` wide; crossing times at the
    gate, and the places it started from."""
    import throng

    world = throng.World.from_profile(experiment_text(width), threads=threads)
    start = world.positions().copy()
    crossed = {}
    while world.elapsed < limit and len(crossed) < len(start):
        world.step()
        ids, xs = world.ids(), world.positions()[:, 0]
        for i in ids[xs > 1.0]:
            crossed.setdefault(int(i), world.elapsed)
    return start, sorted(crossed.values())


def experiment(args):
    """150 people through the experiments' bottleneck of several widths: flow across
    it (persons/s and per metre) for each system."""
    print(f"{'width':>5} {'system':>30} {'through':>8} {'flow /s':>8} {'per m':>6}")
    for width in [float(x) for x in args.experiment.split(",")]:
        points, times = run_throng_experiment(args.limit, width, args.threads)
        runs = [("throng (the pedestrian preset)", times)]
        for m in args.models.split(","):
            runs.append((f"JuPedSim ({m.upper()}, defaults)",
                         run_jupedsim_experiment(points, args.limit, m, width)))
        for name, times in runs:
            f = flow(times) if len(times) == len(points) else None
            print(f"{width:5.2f} {name:>30} {len(times):8d} "
                  f"{(f'{f:.2f}' if f else '-'):>8} {(f'{f / width:.2f}' if f else '-'):>6}",
                  flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="150,1500,15000")
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--limit", type=float, default=400.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default="cfsm,sfm",
                    help="JuPedSim's models to run: cfsm (collision-free speed), sfm (social force)")
    ap.add_argument("--doors", default=None,
                    help="door widths (m): 150 agents through each, flow per system")
    ap.add_argument("--experiment", default=None,
                    help="bottleneck widths (m): the experiments' room, flow per system")
    args = ap.parse_args()
    if args.doors:
        doors(args)
        return
    if args.experiment:
        experiment(args)
        return
    print(f"{'agents':>7} {'system':>22} {'ms/sim s':>9} {'us/agent/sim s':>15} "
          f"{'out at':>8} {'flow /s':>8}")
    for n in [int(x) for x in args.sizes.split(",")]:
        points = spawn_points(n, seed=1)
        # Past a few hundred agents only the timing window is run.
        limit = args.limit if n <= 300 else args.window
        runs = [(f"JuPedSim ({m.upper()}, 1 thread)",
                 lambda m=m: run_jupedsim(points, args.window, limit, m))
                for m in args.models.split(",")]
        runs.append((f"throng (ORCA, {args.threads} threads)",
                     lambda: run_throng(points, args.window, limit, args.threads)))
        for name, run in runs:
            per, done, times = run()
            f = flow(times) if done else None
            print(f"{n:7d} {name:>22} {per * 1e3:9.1f} {per * 1e6 / n:15.2f} "
                  f"{(f'{done:.1f} s' if done else '-'):>8} "
                  f"{(f'{f:.2f}' if f else '-'):>8}", flush=True)


if __name__ == "__main__":
    main()
