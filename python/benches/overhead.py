"""What crossing from Python costs: a bundled profile's world stepped one tick per
call from Python, median milliseconds per tick (compare with
`throng run PROFILE --agents N --threads T`'s p50 of the same world).

    python python/benches/overhead.py circle_disk_orca 10000 2
"""

import statistics
import sys
import time

import throng

name, agents, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ticks = int(sys.argv[4]) if len(sys.argv) > 4 else 100
world = throng.World.bundled(name, agents=agents, threads=threads)
world.step(ticks=5)
times = []
for _ in range(ticks):
    t = time.perf_counter()
    world.step()
    times.append(time.perf_counter() - t)
print(f"{name} {len(world)} agents, {threads} threads: p50 {statistics.median(times) * 1e3:.3f} ms a tick from Python")
