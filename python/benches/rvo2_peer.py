"""throng.rvo2 beside Python-RVO2 on RVO2's own Circle, from Python.

Python-RVO2 is not a dependency: build it from its repository in a scratch folder
(python/benches/README.md says how) and pass the folder holding its built module:

    python python/benches/rvo2_peer.py --rvo2 /tmp/pyrvo2/build/lib.linux-x86_64-cpython-311

For each size, the two simulators run the same program, interleaved, a round each
in turn: agents on a ring (RVO2's Circle example: radius 1.5, neighbour distance 15,
10 neighbours, horizons 10, top speed 2, steps of 0.25 s), each step setting every
agent's preferred velocity toward its antipode from Python and calling doStep.
Reported: the median ms of doStep alone and of the whole step (with the Python
loop), and how far the two simulators' trajectories drift apart on small crowds.
`--layout disk` (the default) fills a disk as the C++ peers of BENCHMARKS.md do
(about ten neighbours an agent); `--layout ring` is RVO2's example's ring (two).
"""

import argparse
import importlib
import math
import random
import statistics
import sys
import time


LAYOUT = "disk"


def build(module, n, threads):
    kw = {"threads": threads} if module.__name__.startswith("throng") else {}
    sim = module.PyRVOSimulator(0.25, 15.0, 10, 10.0, 10.0, 1.5, 2.0, **kw)
    rng = random.Random(n)
    goals = []
    for i in range(n):
        if LAYOUT == "ring":
            # RVO2's example's ring (250 agents on radius 200, the radius growing
            # with the square root of the count), a hundredth of a radian off
            # perfect symmetry.
            r = max(20.0, 200.0 * math.sqrt(n / 250.0))
            a = 2 * math.pi * i / n + rng.uniform(-0.01, 0.01)
        else:
            # The disk (a sunflower of 16 square units an agent), as the C++ peers
            # of BENCHMARKS.md are timed.
            r = math.sqrt(16.0 / math.pi) * math.sqrt(i + 0.5)
            a = i * 2.39996323
        p = (r * math.cos(a), r * math.sin(a))
        sim.addAgent(p)
        goals.append((-p[0], -p[1]))
    return sim, goals


def step(sim, goals):
    """One step as a Python-RVO2 program takes it; returns doStep's seconds."""
    for i, (gx, gy) in enumerate(goals):
        x, y = sim.getAgentPosition(i)
        dx, dy = gx - x, gy - y
        d = math.hypot(dx, dy)
        sim.setAgentPrefVelocity(i, (dx / d, dy / d) if d > 1.0 else (dx, dy))
    t = time.perf_counter()
    sim.doStep()
    return time.perf_counter() - t


def timing(module, n, steps, threads):
    sim, goals = build(module, n, threads)
    for _ in range(3):
        step(sim, goals)
    do, whole = [], []
    for _ in range(steps):
        t = time.perf_counter()
        do.append(step(sim, goals))
        whole.append(time.perf_counter() - t)
    return statistics.median(do) * 1e3, statistics.median(whole) * 1e3


def drift(modules, n, steps):
    sims = [build(m, n, 1) for m in modules]
    worst = 0.0
    for k in range(steps):
        for sim, goals in sims:
            step(sim, goals)
        a, b = sims[0][0], sims[1][0]
        worst = max(worst, max(math.dist(a.getAgentPosition(i), b.getAgentPosition(i))
                               for i in range(n)))
    return worst


def quality(module, n, steps):
    """The crowd-quality counter (throng's, reading positions) over one run."""
    import numpy as np
    import throng

    sim, goals = build(module, n, 1)
    counter = throng.QualityCounter()
    ids = np.arange(n)
    radii = np.full(n, 1.5)
    speeds = np.full(n, 2.0)
    goal_array = np.array(goals)
    for k in range(steps + 1):
        if k:
            step(sim, goals)
        pos = np.array([sim.getAgentPosition(i) for i in range(n)])
        counter.sample(0.25 * k, ids, pos, radii, speeds, goal_array)
    return counter.summary()


def main():
    global LAYOUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--rvo2", required=True, help="folder holding Python-RVO2's built rvo2 module")
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--layout", choices=["disk", "ring"], default="disk")
    ap.add_argument("--quality", type=int, default=0,
                    help="also count the quality of a crowd of this many (every step)")
    args = ap.parse_args()
    LAYOUT = args.layout
    sys.path.insert(0, args.rvo2)
    original = importlib.import_module("rvo2")
    from throng import rvo2 as ours
    print(f"{'agents':>7} {'round':>5} {'Python-RVO2 doStep':>19} {'step':>8} "
          f"{'throng.rvo2 doStep':>19} {'step':>8}")
    print(f"layout: {LAYOUT}")
    for n in [int(s) for s in args.sizes.split(",")]:
        steps = max(10, min(100, 200_000 // n))
        rows = []
        for r in range(args.rounds):
            o = timing(original, n, steps, 1)
            t = timing(ours, n, steps, args.threads)
            rows.append((o, t))
            print(f"{n:7d} {r + 1:5d} {o[0]:16.2f} ms {o[1]:5.2f} ms "
                  f"{t[0]:16.2f} ms {t[1]:5.2f} ms", flush=True)
        od = statistics.median(o[0] for o, _ in rows)
        ow = statistics.median(o[1] for o, _ in rows)
        td = statistics.median(t[0] for _, t in rows)
        tw = statistics.median(t[1] for _, t in rows)
        print(f"{n:7d}   med {od:16.2f} ms {ow:5.2f} ms {td:16.2f} ms {tw:5.2f} ms"
              f"   doStep {od / td:.1f}x, whole step {ow / tw:.1f}x")
    if args.quality:
        n, steps = args.quality, 4000
        print(f"quality, {LAYOUT} of {n}, {steps} steps of 0.25 s, sampled every step:")
        for name, module in (("Python-RVO2", original), ("throng.rvo2", ours)):
            q = quality(module, n, steps)
            sb = q["steerbench"]
            print(f"  {name:12s} overlapping pairs/agent-sample {q['overlapping_pairs_per_agent_sample']:.4f}, "
                  f"deep {q['deep_pairs_per_agent_sample']:.4f}, largest penetration "
                  f"{q['max_penetration']:.3f}, arrived {q['arrived']}/{q['with_goal']}, "
                  f"at goal at the end {100 * q['at_goal_fraction']:.1f}%, SteerBench "
                  f"{sb['score']:.1f} (collisions {sb['collisions_per_agent']:.3f}, "
                  f"time {sb['time_per_agent']:.1f} s, effort {sb['effort_per_agent']:.1f})",
                  flush=True)
    LAYOUT = "ring"
    for n in (2, 8, 24):
        for steps in (10, 100, 400):
            print(f"drift, ring of {n} agents, {steps} steps: the largest distance between the "
                  f"two simulators' positions of one agent {drift([original, ours], n, steps):.4f}")


if __name__ == "__main__":
    main()
