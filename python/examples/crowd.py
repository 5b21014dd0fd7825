"""A crowd from Python: a room emptied through its door (a bundled profile), read
back as numpy arrays every second, then the same world saved and restored.

    python python/examples/crowd.py
"""

import numpy as np

import throng

world = throng.World.bundled("bottleneck", threads=0)
print(world, "dt", round(world.dt, 4))
ticks_per_second = round(1.0 / world.dt)
arrived = throng.ARRIVAL_STATES.index("arrived")
for second in range(1, 121):
    world.step(ticks=ticks_per_second)
    positions = world.positions()
    if second % 10 == 0:
        out = int((world.arrivals() == arrived).sum())
        print(f"{second:4d} s  {len(world):4d} agents  {out:4d} arrived  "
              f"mean x {positions[:, 0].mean():7.2f}")

saved = world.snapshot()
world.step(ticks=100)
ahead = world.state_hash()
world.restore(saved)
world.step(ticks=100)
assert world.state_hash() == ahead
print("restored and stepped again: the same", hex(ahead))
