"""JuPedSim's speed against density, measured as throng's
`examples/fundamental_diagram.rs` measures its own: people walking one way round a
ring corridor 2.5 m wide (mid radius 10 m, walls of 160 segments), placed on a
jittered hexagonal lattice at 0.5 to 5 persons/m², each aiming 2 m ahead round the
ring on the circle it started on; after 60 s, for 120 s, a measuring area 4 m long
is read: the persons in it over its area, and their mean speed along the corridor.

JuPedSim is not a dependency: `pip install jupedsim shapely` (PyPI), then

    python python/benches/jupedsim_fundamental.py            # its collision-free speed model
    python python/benches/jupedsim_fundamental.py --model sfm

JuPedSim's side: radius 0.22 m and desired speed 1.34 m/s (throng's pedestrian
preset), the model's defaults otherwise (the collision-free speed model's time gap
is 1 s), time step 0.01 s, one thread. Its agents are steered through a direct
steering stage whose targets are set every 0.1 s (2 m ahead; they move 0.13 m in
that time), and the area is read every 0.1 s, speeds from the positions 0.1 s apart.
"""

import argparse
import math

import numpy as np

INNER, OUTER = 8.75, 11.25
MID = (INNER + OUTER) / 2
SIDES = 160
RADIUS, SPEED = 0.22, 1.34
AHEAD = 2.0
AREA_LENGTH = 4.0
WARMUP_S, MEASURE_S = 60.0, 120.0
DT = 0.01
EVERY = 10  # iterations between targets set and samples read (0.1 s)
DENSITIES = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 4.5, 5.0]


def weidmann(rho):
    return 1.34 * (1.0 - math.exp(-1.913 * (1.0 / rho - 1.0 / 5.4)))


def ring():
    from shapely import Polygon

    def circle(r):
        a = np.arange(SIDES) / SIDES * 2 * math.pi
        return list(zip(r * np.cos(a), r * np.sin(a)))

    return Polygon(circle(OUTER), [circle(INNER)])


def places(n, seed=7):
    """`n` places on a hexagonal lattice fine enough for `n`, each moved a little, in a
    shuffled order: the example's construction, except that no two bodies start closer
    than their diameter (JuPedSim refuses that; the example's lattice packs its rows
    closer past 3 persons/m², and ORCA parts them): the rows are kept a body apart, so
    at the highest densities fewer may fit than asked (the table says how many)."""
    rng = np.random.default_rng(seed)
    area = math.pi * (OUTER**2 - INNER**2)
    margin = 0.24
    body = 2 * RADIUS + 0.005
    spacing = math.sqrt(2.0 / (math.sqrt(3) * (n / area)))
    while True:
        spacing = max(spacing, body)
        # Rows a body apart at least: their places do not line up (each row has as
        # many as its length holds), so a neighbour in the next row may stand level.
        gap = max(spacing * math.sqrt(3) / 2, body)
        pts = []
        r, row = INNER + margin, 0
        while r <= OUTER - margin:
            count = int(2 * math.pi * r / spacing)
            shift = 0.0 if row % 2 == 0 else 0.5
            for k in range(count):
                a = (k + shift) / count * 2 * math.pi
                pts.append((r * math.cos(a), r * math.sin(a)))
            r += gap
            row += 1
        if len(pts) >= n or spacing <= body:
            pts = np.array(pts)
            room = min(spacing, gap) - 2 * RADIUS
            play = max(room * 0.4 / 2, 0.0)
            moved = pts + rng.uniform(-play, play, pts.shape)
            # JuPedSim refuses a body that starts within its radius of a wall: a place
            # that its move would take that near stays where the lattice has it.
            edge = math.cos(math.pi / SIDES)
            r = np.hypot(moved[:, 0], moved[:, 1])
            inside = (r > INNER + RADIUS + 0.01) & (r < OUTER * edge - RADIUS - 0.01)
            pts = np.where(inside[:, None], moved, pts)
            rng.shuffle(pts)
            return pts[:n]
        spacing *= 0.97


def ahead(p, lane):
    a = math.atan2(p[1], p[0]) + AHEAD / lane
    return (lane * math.cos(a), lane * math.sin(a))


def run(density, model):
    """The measured density, mean speed, its SD over time, the share of samples below
    0.1 m/s, and how many of the asked-for people JuPedSim took."""
    import jupedsim as jps

    area = math.pi * (OUTER**2 - INNER**2)
    n = round(density * area)
    if model == "sfm":
        m = jps.SocialForceModel()

        def agent(**kw):
            return jps.SocialForceModelAgentParameters(radius=RADIUS, desired_speed=SPEED, **kw)
    else:
        m = jps.CollisionFreeSpeedModel()

        def agent(**kw):
            return jps.CollisionFreeSpeedModelAgentParameters(
                radius=RADIUS, desired_speed=SPEED, **kw)
    sim = jps.Simulation(model=m, geometry=ring(), dt=DT)
    stage = sim.add_direct_steering_stage()
    journey = sim.add_journey(jps.JourneyDescription([stage]))
    starts = places(n)
    lanes = {}
    for p in starts:
        try:
            i = sim.add_agent(agent(journey_id=journey, stage_id=stage, position=tuple(p)))
        except RuntimeError:
            # A place JuPedSim refuses (too near another or a wall) is left empty;
            # the density is as measured.
            continue
        lanes[i] = math.hypot(*p)
    half = AREA_LENGTH / MID / 2
    sector = half * (OUTER**2 - INNER**2)
    densities, speeds, stopped = [], [], 0
    last = {}
    iterations = int((WARMUP_S + MEASURE_S) / DT)
    for it in range(iterations):
        if it % EVERY == 0:
            now = {}
            for a in sim.agents():
                p = a.position
                now[a.id] = p
                a.target = ahead(p, lanes[a.id])
            if it * DT >= WARMUP_S and last:
                count, total = 0, 0.0
                for i, p in now.items():
                    if abs(math.atan2(p[1], p[0])) <= half and i in last:
                        q = last[i]
                        r = math.hypot(*p)
                        along = (-p[1] / r, p[0] / r)
                        v = ((p[0] - q[0]) * along[0] + (p[1] - q[1]) * along[1]) / (EVERY * DT)
                        count += 1
                        total += v
                densities.append(count / sector)
                if count:
                    speeds.append(total / count)
                    stopped += total / count < 0.1
            last = now
        try:
            sim.iterate()
        except RuntimeError as e:
            print(f"    JuPedSim stopped at {sim.elapsed_time():.2f} s: {e}", flush=True)
            break
    rho = float(np.mean(densities)) if densities else float("nan")
    v = float(np.mean(speeds)) if speeds else float("nan")
    sd = float(np.std(speeds)) if speeds else float("nan")
    return rho, v, sd, stopped / max(len(speeds), 1), (len(lanes), n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="cfsm", choices=["cfsm", "sfm"])
    ap.add_argument("--densities", default=",".join(str(d) for d in DENSITIES))
    args = ap.parse_args()
    print(f"JuPedSim ({args.model.upper()}), radius {RADIUS} m, {SPEED} m/s\n")
    print("| density asked (persons/m²) | measured | speed (m/s) | Weidmann at the measured "
          "density | speed / Weidmann | flow (persons/(m·s)) | speed's SD over time | "
          "samples below 0.1 m/s | people placed |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d in [float(x) for x in args.densities.split(",")]:
        rho, v, sd, low, (placed, asked) = run(d, args.model)
        w = weidmann(rho) if rho > 0 else float("nan")
        print(f"| {d:g} | {rho:.2f} | {v:.3f} | {w:.3f} | {v / w:.2f} | {rho * v:.2f} | "
              f"{sd:.3f} | {low * 100:.0f}% | {placed} of {asked} |", flush=True)


if __name__ == "__main__":
    main()
