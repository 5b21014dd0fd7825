use glam::Vec2;

use super::*;

fn wall(a: (f32, f32), b: (f32, f32)) -> Wall {
    Wall::new(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1)).unwrap()
}

#[test]
fn eikonal_update_by_hand() {
    // One accepted neighbour: one cell farther.
    assert_eq!(eikonal_update(2.0, f32::INFINITY, 0.5), 2.5);
    // Two equal neighbours at 0, cells of 1: (0 + 0 + √2) / 2.
    assert!((eikonal_update(0.0, 0.0, 1.0) - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-7);
    // Neighbours a cell apart or more: the smaller one plus a cell.
    assert_eq!(eikonal_update(3.0, 1.0, 1.0), 2.0);
    // a = 1, b = 1.5, h = 1: (2.5 + √(2 - 0.25)) / 2 = 1.9114378.
    assert!((eikonal_update(1.0, 1.5, 1.0) - 1.911_437_8).abs() < 1e-6);
}

#[test]
fn open_ground_distances_are_nearly_euclidean() {
    let goal = Vec2::new(0.0, 0.0);
    let spec = FieldSpec::new(vec![Goal::Point(goal)], 0.5)
        .with_bounds(Vec2::splat(-20.0), Vec2::splat(20.0));
    let f = GoalField::build(&spec, &[], &[]).unwrap();
    assert_eq!(f.dims(), (160, 160));
    let mut worst: f32 = 0.0;
    for y in 0..160 {
        for x in 0..160 {
            let c = f.cell_centre(x, y);
            let e = c.distance(goal);
            if e > 3.0 {
                let d = f.cell_distance(x, y).unwrap();
                worst = worst.max((d - e).abs() / e);
            }
        }
    }
    // Fast marching's first-order error is largest on the diagonals, and shrinks with
    // the distance from the point source.
    println!("worst relative error {worst}");
    assert!(worst < 0.03, "worst relative error {worst}");
    // Away from the goal the descent direction points at it.
    let FieldSample::Toward {
        direction,
        distance,
    } = f.sample(Vec2::new(12.3, -7.1))
    else {
        panic!("no direction in the open");
    };
    let straight = (goal - Vec2::new(12.3, -7.1)).normalize();
    assert!(
        direction.dot(straight) > 0.995,
        "{direction} against {straight}"
    );
    assert!((distance - 14.2).abs() < 0.5, "{distance}");
}

#[test]
fn a_wall_is_walked_around_and_a_pocket_is_unreachable() {
    // A wall across x = 0 from y = -10 to y = 5; the goal on its right.
    let walls = [
        wall((0.0, -10.0), (0.0, 5.0)),
        // A closed box on the left, far from everything.
        wall((-15.0, -15.0), (-10.0, -15.0)),
        wall((-10.0, -15.0), (-10.0, -10.0)),
        wall((-10.0, -10.0), (-15.0, -10.0)),
        wall((-15.0, -10.0), (-15.0, -15.0)),
    ];
    let spec = FieldSpec::new(vec![Goal::Point(Vec2::new(5.0, 0.0))], 0.5)
        .with_bounds(Vec2::splat(-20.0), Vec2::splat(20.0));
    let f = GoalField::build(&spec, &walls, &[]).unwrap();
    // Straight through the wall would be 10; around its top end, at least
    // |(-5,0)-(0,5.5)| + |(0,5.5)-(5,0)| = 2 × 7.43.
    match f.sample(Vec2::new(-5.0, 0.0)) {
        FieldSample::Toward {
            direction,
            distance,
        } => {
            assert!(distance > 14.8, "{distance}");
            assert!(direction.y > 0.5, "heads for the wall's end: {direction}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(f.sample(Vec2::new(-12.5, -12.5)), FieldSample::Unreachable);
    // Inside the wall's clearance: the way back out, on its own side.
    match f.sample(Vec2::new(-0.1, -3.0)) {
        FieldSample::Toward { direction, .. } => assert!(direction.x < 0.0, "{direction}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn goals_inside_walls_and_oversized_grids_are_refused() {
    let walls = [wall((0.0, -10.0), (0.0, 10.0))];
    let spec = FieldSpec::new(vec![Goal::Point(Vec2::new(0.1, 0.0))], 0.5);
    let e = GoalField::build(&spec, &walls, &[]).unwrap_err();
    assert!(e.to_string().contains("inside a wall"), "{e}");
    let huge = FieldSpec::new(vec![Goal::Point(Vec2::ZERO)], 0.5)
        .with_bounds(Vec2::splat(-1e6), Vec2::splat(1e6));
    let e = GoalField::build(&huge, &[], &[]).unwrap_err();
    assert!(e.to_string().contains("more than"), "{e}");
    assert!(GoalField::build(&FieldSpec::new(vec![], 0.5), &[], &[]).is_err());
    assert!(GoalField::build(
        &FieldSpec::new(vec![Goal::Point(Vec2::ZERO)], 0.0),
        &[],
        &[]
    )
    .is_err());
}

#[test]
fn the_nearest_of_several_goals_wins() {
    let spec = FieldSpec::new(
        vec![
            Goal::Box(Vec2::new(-12.0, -1.0), Vec2::new(-10.0, 1.0)),
            Goal::Segment(Vec2::new(10.0, -1.0), Vec2::new(10.0, 1.0)),
        ],
        0.5,
    )
    .with_bounds(Vec2::splat(-15.0), Vec2::splat(15.0));
    let f = GoalField::build(&spec, &[], &[]).unwrap();
    let toward = |p: Vec2| match f.sample(p) {
        FieldSample::Toward { direction, .. } => direction,
        other => panic!("{other:?}"),
    };
    assert!(toward(Vec2::new(-3.0, 0.0)).x < -0.99);
    assert!(toward(Vec2::new(3.0, 0.0)).x > 0.99);
    assert_eq!(f.sample(Vec2::new(-11.0, 0.0)), FieldSample::AtGoal);
    // Outside the area: toward its nearest point.
    let d = toward(Vec2::new(0.0, 40.0));
    assert!(d.y < -0.99, "{d}");
}

#[test]
fn the_same_bits_on_any_thread_count() {
    let walls = [
        wall((0.0, -10.0), (0.0, 5.0)),
        wall((4.0, -3.0), (9.0, 2.0)),
    ];
    let obstacles = [Obstacle::new(Vec2::new(-4.0, 4.0), 1.5).unwrap()];
    let spec = FieldSpec::new(vec![Goal::Point(Vec2::new(5.0, 0.0))], 0.4);
    let build = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| GoalField::build(&spec, &walls, &obstacles).unwrap())
    };
    let (a, b) = (build(1), build(3));
    let bits = |f: &GoalField| {
        f.cells
            .iter()
            .flat_map(|c| [c.dist.to_bits(), c.dir.x.to_bits(), c.dir.y.to_bits()])
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&a), bits(&b));
}

/// The exact shortest path for a body of radius `r` from `s` to `g` among walls: a
/// visibility graph over points on polygons circumscribing each wall end's circle of
/// radius `r` (64 sides: at most 0.12% longer than the circles), a move being
/// visible when it keeps `r` from every wall.
fn exact_shortest(s: Vec2, g: Vec2, walls: &[Wall], r: f32) -> f32 {
    let sides = 64;
    let grown = r / (std::f32::consts::PI / sides as f32).cos() * 1.0005;
    let mut nodes = vec![s, g];
    for w in walls {
        for end in [w.a(), w.b()] {
            for k in 0..sides {
                let a = k as f32 / sides as f32 * std::f32::consts::TAU;
                nodes.push(end + grown * Vec2::new(a.cos(), a.sin()));
            }
        }
    }
    let clear = |a: Vec2, b: Vec2| {
        walls
            .iter()
            .all(|w| segment_distance(a, b, w.a(), w.b()) >= r * 0.9999)
    };
    let n = nodes.len();
    let mut dist = vec![f32::INFINITY; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    for _ in 0..n {
        let Some(u) = (0..n)
            .filter(|&i| !done[i] && dist[i].is_finite())
            .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
        else {
            break;
        };
        done[u] = true;
        if u == 1 {
            break;
        }
        for v in 0..n {
            if !done[v] && clear(nodes[u], nodes[v]) {
                dist[v] = dist[v].min(dist[u] + nodes[u].distance(nodes[v]));
            }
        }
    }
    dist[1]
}

/// The distance between segments `a..b` and `c..d`.
fn segment_distance(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f32 {
    let cross = |o: Vec2, p: Vec2, q: Vec2| (p - o).perp_dot(q - o);
    let (d1, d2) = (cross(a, b, c), cross(a, b, d));
    let (d3, d4) = (cross(c, d, a), cross(c, d, b));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
        return 0.0;
    }
    let on =
        |p: Vec2, s: Vec2, e: Vec2| crate::math::closest_point_on_segment(p, s, e).0.distance(p);
    on(a, c, d)
        .min(on(b, c, d))
        .min(on(c, a, b))
        .min(on(d, a, b))
}

/// The length of the path an agent takes from `s` by following the field in small
/// steps, until it is within a cell of `g`.
fn walked(f: &GoalField, s: Vec2, g: Vec2) -> f32 {
    let step = f.cell_size() * 0.25;
    let (mut p, mut len) = (s, 0.0);
    for _ in 0..200_000 {
        if p.distance(g) < f.cell_size() {
            return len + p.distance(g);
        }
        match f.sample(p) {
            FieldSample::Toward { direction, .. } => {
                p += direction * step;
                len += step;
            }
            _ => return len + p.distance(g),
        }
    }
    f32::INFINITY
}

/// The test maps: walls, start, goal.
fn maps() -> Vec<(&'static str, Vec<Wall>, Vec2, Vec2)> {
    vec![
        (
            "open",
            vec![],
            Vec2::new(-15.0, -9.0),
            Vec2::new(14.0, 11.0),
        ),
        (
            "one wall",
            vec![wall((0.0, -12.0), (0.0, 6.0))],
            Vec2::new(-10.0, -3.0),
            Vec2::new(10.0, 0.0),
        ),
        (
            "a room with a door",
            vec![
                wall((-10.0, -10.0), (10.0, -10.0)),
                wall((10.0, -10.0), (10.0, -0.8)),
                wall((10.0, 0.8), (10.0, 10.0)),
                wall((10.0, 10.0), (-10.0, 10.0)),
                wall((-10.0, 10.0), (-10.0, -10.0)),
            ],
            Vec2::new(-7.0, 8.0),
            Vec2::new(16.0, -6.0),
        ),
        (
            "a zig-zag",
            vec![
                wall((-6.0, -15.0), (-6.0, 8.0)),
                wall((0.0, -8.0), (0.0, 15.0)),
                wall((6.0, -15.0), (6.0, 8.0)),
            ],
            Vec2::new(-12.0, -10.0),
            Vec2::new(12.0, -10.0),
        ),
    ]
}

#[test]
fn paths_along_the_field_are_within_two_percent_of_the_shortest() {
    let r = 0.4;
    for (name, walls, s, g) in maps() {
        let spec = FieldSpec::new(vec![Goal::Point(g)], r)
            .with_cell(0.1)
            .with_bounds(Vec2::splat(-20.0), Vec2::splat(20.0));
        let f = GoalField::build(&spec, &walls, &[]).unwrap();
        let exact = exact_shortest(s, g, &walls, r);
        let along = walked(&f, s, g);
        let excess = along / exact - 1.0;
        println!(
            "{name}: along the field {along:.3}, shortest {exact:.3}, excess {:.2}%",
            excess * 100.0
        );
        assert!(
            (-0.002..0.02).contains(&excess),
            "{name}: along the field {along}, shortest {exact}, excess {:.2}%",
            excess * 100.0
        );
    }
}

#[test]
fn cells_coarser_than_the_clearance_leak_through_no_wall() {
    // Thin walls at every angle between a goal and the places behind them, with cells
    // five times the clearance: every way round is longer than straight through.
    for k in 0..12 {
        let a = k as f32 * std::f32::consts::PI / 12.0 + 0.1;
        let along = Vec2::new(a.cos(), a.sin());
        let across = along.perp();
        let wall = Wall::new(-along * 12.0, along * 12.0).unwrap();
        let goal = across * 3.0;
        let spec = FieldSpec::new(vec![Goal::Point(goal)], 0.2)
            .with_cell(1.0)
            .with_bounds(Vec2::splat(-30.0), Vec2::splat(30.0));
        let f = GoalField::build(&spec, &[wall], &[]).unwrap();
        let behind = -across * 3.0;
        let FieldSample::Toward { distance, .. } = f.sample(behind) else {
            panic!("angle {a}: nowhere to go from behind the wall");
        };
        // Round an end: at least 2 × √(12² + 3²) ≈ 24.7.
        assert!(distance > 22.0, "angle {a}: {distance} through the wall");
    }
}

#[test]
fn a_ridge_between_two_goals_is_on_the_way_not_in_a_goal() {
    // Two walls of goals, x = -5 and x = 5: the ridge is x = 0, between the centres of
    // cells 39 and 40 (of 80), whose directions are exactly opposite.
    let spec = FieldSpec::new(
        vec![
            Goal::Segment(Vec2::new(-5.0, -10.0), Vec2::new(-5.0, 10.0)),
            Goal::Segment(Vec2::new(5.0, -10.0), Vec2::new(5.0, 10.0)),
        ],
        0.5,
    )
    .with_bounds(Vec2::splat(-10.0), Vec2::splat(10.0));
    let f = GoalField::build(&spec, &[], &[]).unwrap();
    assert_eq!(f.dims(), (80, 80));
    let (left, right) = (f.cell_direction(39, 40), f.cell_direction(40, 40));
    assert_eq!((left, right), (Some(Vec2::NEG_X), Some(Vec2::X)));
    // On the ridge, the four cells weigh the same: the first of the heaviest leads.
    match f.sample(Vec2::new(0.0, 0.125)) {
        FieldSample::Toward {
            direction,
            distance,
        } => {
            assert_eq!(direction, Vec2::NEG_X);
            assert!((distance - 5.0).abs() < 0.2, "{distance}");
        }
        other => panic!("on the ridge: {other:?}"),
    }
}

/// A 16 m square room with a door 2 m wide in its upper wall and a pillar.
fn room_with_a_pillar() -> ([Wall; 5], [Obstacle; 1]) {
    let walls = [
        wall((-8.0, -8.0), (8.0, -8.0)),
        wall((8.0, -8.0), (8.0, 8.0)),
        wall((8.0, 8.0), (1.0, 8.0)),
        wall((-1.0, 8.0), (-8.0, 8.0)),
        wall((-8.0, 8.0), (-8.0, -8.0)),
    ];
    (walls, [Obstacle::new(Vec2::new(2.0, -2.0), 1.5).unwrap()])
}

/// Uniform draws in `[0, 1]` from a xorshift generator seeded with `seed`.
fn draws(mut seed: u32) -> impl FnMut() -> f32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed as f32 / u32::MAX as f32
    }
}

#[test]
fn blend_sums_in_four_lanes_equal_the_scalar_ones() {
    // 100,000 draws of four cells, each unreached, in a goal or on its way (a distance
    // up to 100, a unit direction or none), weighed as points at random, on cell
    // borders and on centres: the four-lane sums equal the cell-by-cell ones bit for bit.
    let mut next = draws(0x2c1b_3c6d_u32);
    let bits = |b: BlendSums| [b.weight, b.dist, b.dir.x, b.dir.y, b.at_goal].map(f32::to_bits);
    let (mut unreached, mut at_goal) = (0, 0);
    for k in 0..100_000 {
        let cells = [(); 4].map(|()| {
            let kind = next();
            let a = next() * std::f32::consts::TAU;
            if kind < 0.2 {
                FieldCell::UNREACHED
            } else if kind < 0.35 {
                FieldCell {
                    dir: Vec2::ZERO,
                    dist: 0.0,
                }
            } else {
                FieldCell {
                    dir: if kind < 0.4 {
                        Vec2::ZERO
                    } else {
                        Vec2::from_angle(a)
                    },
                    dist: next() * 100.0,
                }
            }
        });
        unreached += cells.iter().filter(|c| !c.dist.is_finite()).count();
        at_goal += cells.iter().filter(|c| c.dist == 0.0).count();
        let t = match k % 4 {
            0 => Vec2::new(next().round(), next()),
            1 => Vec2::splat(0.5),
            _ => Vec2::new(next(), next()),
        };
        let (wx, wy) = ([1.0 - t.x, t.x], [1.0 - t.y, t.y]);
        let weights = [wx[0] * wy[0], wx[1] * wy[0], wx[0] * wy[1], wx[1] * wy[1]];
        let (a, b) = (
            BlendSums::x4(weights, &cells),
            BlendSums::scalar(weights, &cells),
        );
        assert_eq!(bits(a), bits(b), "{cells:?} at {t}: {a:?} against {b:?}");
    }
    assert!(
        unreached > 50_000 && at_goal > 40_000,
        "{unreached} {at_goal}"
    );
}

#[test]
fn inner_samples_equal_the_general_path() {
    // The room of the quiet-cell test, an exit box inside the grid: 30,000 points over
    // the grid and round it (inner cells, edge cells, walls' clearances, the goal, the
    // pillar), on cell centres and borders too, and non-finite ones. The sample's
    // inner path and the general one agree bit for bit; the inner path must have
    // answered most of the points.
    let (walls, obstacles) = room_with_a_pillar();
    let exit = Goal::Box(Vec2::new(-2.0, 9.0), Vec2::new(2.0, 11.0));
    let spec = FieldSpec::new(vec![exit], 0.3).with_bounds(Vec2::splat(-12.0), Vec2::splat(12.0));
    let f = GoalField::build(&spec, &walls, &obstacles).unwrap();
    let bits = |s: FieldSample| match s {
        FieldSample::Toward {
            direction,
            distance,
        } => Some([direction.x, direction.y, distance].map(f32::to_bits)),
        FieldSample::AtGoal => Some([1; 3]),
        FieldSample::Unreachable => None,
    };
    let mut next = draws(0x1b87_3593_u32);
    let (lo, _) = f.bounds();
    let (mut inner, mut kinds) = (0, [0; 3]);
    for k in 0..30_000 {
        let mut p = Vec2::new(next() * 28.0 - 14.0, next() * 28.0 - 14.0);
        if k % 3 == 1 {
            // On a border between cells, or on a centre.
            let half = if k % 2 == 0 { 0.0 } else { 0.5 };
            p = lo + (((p - lo) / 0.3).floor() + half) * 0.3;
        }
        let u = (p - lo) / 0.3 - 0.5;
        let (cols, rows) = f.dims();
        inner += usize::from(
            u.min_element() >= 0.0 && u.x + 1.0 < cols as f32 && u.y + 1.0 < rows as f32,
        );
        let (a, b) = (f.sample(p), f.sample_anywhere(p));
        assert_eq!(bits(a), bits(b), "{p}: {a:?} against {b:?}");
        kinds[match a {
            FieldSample::Toward { .. } => 0,
            FieldSample::AtGoal => 1,
            FieldSample::Unreachable => 2,
        }] += 1;
    }
    assert!(inner > 20_000, "{inner} points on the inner path");
    assert!(kinds.iter().all(|&n| n > 0), "{kinds:?}");
    for p in [Vec2::NAN, Vec2::new(0.0, f32::INFINITY), Vec2::splat(-1e30)] {
        assert_eq!(bits(f.sample(p)), bits(f.sample_anywhere(p)), "{p}");
    }
}

#[test]
fn four_samples_equal_four_single_ones() {
    // Two fields over the room with a pillar: its exit box, and two exits on either
    // side whose basins meet on a ridge down the middle (where the four cells'
    // directions cancel). Points drawn over the grid and round it (inner cells, edges,
    // walls' clearances, the goals, the pillar, the ridge), on cell borders and centres
    // too, four at a time with non-finite ones among them: each lane of `sample4` is
    // bit for bit `sample` at its point, and every kind of answer comes up.
    let (walls, obstacles) = room_with_a_pillar();
    let bounds = (Vec2::splat(-12.0), Vec2::splat(12.0));
    let exit = vec![Goal::Box(Vec2::new(-2.0, 9.0), Vec2::new(2.0, 11.0))];
    let sides = vec![
        Goal::Box(Vec2::new(-7.5, -1.0), Vec2::new(-7.0, 1.0)),
        Goal::Box(Vec2::new(7.0, -1.0), Vec2::new(7.5, 1.0)),
    ];
    let bits = |s: FieldSample| match s {
        FieldSample::Toward {
            direction,
            distance,
        } => [
            0,
            direction.x.to_bits(),
            direction.y.to_bits(),
            distance.to_bits(),
        ],
        FieldSample::AtGoal => [1; 4],
        FieldSample::Unreachable => [2; 4],
    };
    let mut next = draws(0x3c6e_f372_u32);
    let mut kinds = [0; 3];
    for goals in [exit, sides] {
        let spec = FieldSpec::new(goals, 0.3).with_bounds(bounds.0, bounds.1);
        let f = GoalField::build(&spec, &walls, &obstacles).unwrap();
        let (lo, _) = f.bounds();
        for k in 0..10_000 {
            let p: [Vec2; LANES] = std::array::from_fn(|l| {
                let p = Vec2::new(next() * 28.0 - 14.0, next() * 28.0 - 14.0);
                match (k + l) % 5 {
                    // On a border between cells, or on a centre.
                    1 => lo + (((p - lo) / 0.3).floor() + 0.5 * (k % 2) as f32) * 0.3,
                    // On the ridge between the side exits.
                    2 => Vec2::new(0.0, p.y),
                    _ if k % 997 == l => [Vec2::NAN, Vec2::new(0.0, f32::INFINITY)][l % 2],
                    _ => p,
                }
            });
            let four = f.sample4(p);
            for l in 0..LANES {
                let one = f.sample(p[l]);
                assert_eq!(
                    bits(four[l]),
                    bits(one),
                    "{}: {:?} against {one:?}",
                    p[l],
                    four[l]
                );
                kinds[bits(one)[0].min(2) as usize] += 1;
            }
        }
    }
    assert!(kinds.iter().all(|&n| n > 100), "{kinds:?}");
}

#[test]
fn quiet_cells_say_only_what_a_sample_would() {
    // A room with a door and a pillar, the goal outside: every point where the quiet
    // bit answers must sample as on its way and farther than asked; most of the room
    // must be quiet.
    let (walls, obstacles) = room_with_a_pillar();
    let spec = FieldSpec::new(vec![Goal::Point(Vec2::new(0.0, 11.0))], 0.3)
        .with_bounds(Vec2::splat(-12.0), Vec2::splat(12.0));
    let f = GoalField::build(&spec, &walls, &obstacles).unwrap();
    let beyond = QUIET_CLEARANCES * 0.3;
    let mut next = draws(0x2545_f491_u32);
    let (mut quiet, mut inside) = (0, 0);
    for _ in 0..20_000 {
        let p = Vec2::new(next() * 30.0 - 15.0, next() * 30.0 - 15.0);
        let within = next() * 2.0 * beyond;
        if !f.clear_of_goals(p, within) {
            continue;
        }
        quiet += 1;
        inside += usize::from(p.x.abs() < 7.0 && p.y.abs() < 7.0);
        assert!(within <= beyond);
        match f.sample(p) {
            FieldSample::Toward { distance, .. } => {
                assert!(distance > within, "{p}: {distance} within {within}");
            }
            other => panic!("{p} is quiet but samples as {other:?}"),
        }
    }
    // Half the points ask within the reach; of those, the room's inside and the open
    // ground round it are mostly quiet. The inside (14 m square of the 30 m sampled,
    // 22%) holds about 20,000 x 1/2 x 0.22 = 2,200 of the points, less the pillar's
    // and the walls' margins: a bound well below that, so that another generator's
    // points do not fail it, and well above what a field quiet only outside gives.
    assert!(quiet > 5_000, "{quiet} quiet points");
    assert!(inside > 1_500, "{inside} quiet points inside");
    // Off the grid, NaN, a goal's cells: never quiet.
    for p in [
        Vec2::splat(-20.0),
        Vec2::splat(f32::NAN),
        Vec2::new(0.0, 11.0),
    ] {
        assert!(!f.clear_of_goals(p, 0.0), "{p}");
    }
}
