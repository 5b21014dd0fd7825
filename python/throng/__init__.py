"""throng: a data-parallel, deterministic crowd steering engine.

Worlds come from scenario profiles (``World.from_profile``, ``World.bundled``) or
are built here (``World()``, ``add_group``, ``spawn``); whole columns come out as
numpy arrays in row order (``positions()``, ``velocities()``, ``arrivals()``...),
and ``ids()`` says which agent each row is. Results are bitwise the same on any
thread count. ``throng.rvo2`` is a drop-in replacement for Python-RVO2.
"""

from ._throng import ARRIVAL_STATES, QualityCounter, ThrongError, World, bundled_profiles

__all__ = ["ARRIVAL_STATES", "QualityCounter", "ThrongError", "World", "bundled_profiles"]
