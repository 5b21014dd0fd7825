"""throng.rvo2 as Python-RVO2's users call it: the Circle, per-agent settings,
obstacles, visibility."""

import math
import random

import pytest

from throng import rvo2


def circle(n, ring=20.0, steps=600, threads=0):
    sim = rvo2.PyRVOSimulator(0.25, 15.0, 10, 10.0, 10.0, 1.5, 2.0, threads=threads)
    goals = []
    # Places a hundredth of a radian off the perfect ring: a perfectly symmetric
    # ring of ORCA agents jams, in Python-RVO2 as here (each one's half-planes are
    # its neighbours' mirrored, and the best velocity between them points inward).
    rng = random.Random(7)
    for i in range(n):
        a = 2 * math.pi * i / n + rng.uniform(-0.01, 0.01)
        p = (ring * math.cos(a), ring * math.sin(a))
        assert sim.addAgent(p) == i
        goals.append((-p[0], -p[1]))
    closest = math.inf
    for _ in range(steps):
        for i in range(n):
            x, y = sim.getAgentPosition(i)
            gx, gy = goals[i][0] - x, goals[i][1] - y
            d = math.hypot(gx, gy)
            v = (gx / d, gy / d) if d > 1.0 else (gx, gy)
            sim.setAgentPrefVelocity(i, v)
        sim.doStep()
        pos = [sim.getAgentPosition(i) for i in range(n)]
        for i in range(n):
            for j in range(i):
                closest = min(closest, math.dist(pos[i], pos[j]))
    return sim, goals, closest


def test_the_circle_swaps_without_overlap():
    n = 24
    sim, goals, closest = circle(n)
    assert sim.getNumAgents() == n
    assert sim.getGlobalTime() == pytest.approx(600 * 0.25)
    for i in range(n):
        assert math.dist(sim.getAgentPosition(i), goals[i]) < 1.0
    # Bodies of radius 1.5 keep 3 apart, up to the solver's tolerance.
    assert closest > 2.9


def test_any_thread_count_gives_the_same_trajectories():
    a = circle(12, steps=100, threads=1)[0]
    b = circle(12, steps=100, threads=2)[0]
    for i in range(12):
        assert a.getAgentPosition(i) == b.getAgentPosition(i)


def test_an_agent_moves_by_its_velocity_times_the_step():
    sim = rvo2.PyRVOSimulator(0.1, 5.0, 5, 2.0, 2.0, 0.5, 2.0)
    a = sim.addAgent((0.0, 0.0))
    sim.setAgentPrefVelocity(a, (1.0, 0.5))
    sim.doStep()
    assert sim.getAgentVelocity(a) == pytest.approx((1.0, 0.5))
    assert sim.getAgentPosition(a) == pytest.approx((0.1, 0.05))
    # Preferred velocities beyond the top speed are cut to it.
    sim.setAgentPrefVelocity(a, (10.0, 0.0))
    sim.doStep()
    assert sim.getAgentVelocity(a) == pytest.approx((2.0, 0.0))
    assert sim.getAgentPrefVelocity(a) == (10.0, 0.0)


def test_per_agent_settings_read_back():
    sim = rvo2.PyRVOSimulator(0.25, 15.0, 10, 5.0, 5.0, 1.0, 2.0, velocity=(0.5, 0.0))
    a = sim.addAgent((0.0, 0.0))
    b = sim.addAgent((10.0, 0.0), 4.0, 3, 1.5, 2.5, 0.25, 1.25, (0.0, 1.0))
    assert sim.getAgentVelocity(a) == pytest.approx((0.5, 0.0))
    assert sim.getAgentVelocity(b) == pytest.approx((0.0, 1.0))
    assert (sim.getAgentNeighborDist(b), sim.getAgentMaxNeighbors(b)) == (4.0, 3)
    assert (sim.getAgentTimeHorizon(b), sim.getAgentTimeHorizonObst(b)) == (1.5, 2.5)
    assert sim.getAgentRadius(b) == 0.25 and sim.getAgentMaxSpeed(b) == 1.25
    sim.setAgentRadius(a, 0.75)
    sim.setAgentMaxSpeed(a, 3.0)
    sim.setAgentNeighborDist(a, 20.0)
    sim.setAgentMaxNeighbors(a, 7)
    sim.setAgentTimeHorizon(a, 3.0)
    sim.setAgentTimeHorizonObst(a, 4.0)
    assert sim.getAgentRadius(a) == 0.75 and sim.getAgentMaxSpeed(a) == 3.0
    assert sim.getAgentNeighborDist(a) == 20.0 and sim.getAgentMaxNeighbors(a) == 7
    assert (sim.getAgentTimeHorizon(a), sim.getAgentTimeHorizonObst(a)) == (3.0, 4.0)
    sim.setAgentPosition(a, (1.0, 2.0))
    sim.setAgentVelocity(a, (0.0, -1.0))
    assert sim.getAgentPosition(a) == (1.0, 2.0)
    assert sim.getAgentVelocity(a) == (0.0, -1.0)
    # a (neighbour distance 20) sees b; b (4) does not see a, 9 away.
    assert sim.getAgentNumAgentNeighbors(a) == 1 and sim.getAgentAgentNeighbor(a, 0) == b
    assert sim.getAgentNumAgentNeighbors(b) == 0
    sim.setTimeStep(0.5)
    assert sim.getTimeStep() == 0.5
    with pytest.raises(ValueError):
        sim.addAgent((0.0, 0.0), 4.0)
    with pytest.raises(IndexError):
        sim.getAgentPosition(5)


def test_obstacles_block_and_hide():
    sim = rvo2.PyRVOSimulator(0.1, 5.0, 5, 2.0, 2.0, 0.4, 2.0)
    square = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
    assert sim.addObstacle(square) == 0
    assert sim.addObstacle([(5.0, 0.0), (6.0, 0.0)]) == 4
    sim.processObstacles()
    assert sim.getNumObstacleVertices() == 6
    assert sim.getObstacleVertex(2) == (1.0, 1.0)
    assert (sim.getNextObstacleVertexNo(3), sim.getPrevObstacleVertexNo(0)) == (0, 3)
    assert (sim.getNextObstacleVertexNo(4), sim.getNextObstacleVertexNo(5)) == (5, 4)
    assert not sim.queryVisibility((-3.0, 0.0), (3.0, 0.0))
    assert sim.queryVisibility((-3.0, 2.0), (3.0, 2.0), 0.5)
    assert not sim.queryVisibility((-3.0, 2.0), (3.0, 2.0), 1.5)
    # Agents aimed at the square and past its corner: neither ever enters it, and
    # the one aimed past it gets by.
    a = sim.addAgent((-4.0, 0.0))
    b = sim.addAgent((-4.0, 1.2))
    for _ in range(150):
        for agent in (a, b):
            x, y = sim.getAgentPosition(agent)
            sim.setAgentPrefVelocity(agent, (2.0, 0.0) if x < 4 else (0.0, 0.0))
        sim.doStep()
        for agent in (a, b):
            x, y = sim.getAgentPosition(agent)
            assert not (abs(x) < 1.0 and abs(y) < 1.0)
    assert sim.getAgentPosition(b)[0] > 3.0
