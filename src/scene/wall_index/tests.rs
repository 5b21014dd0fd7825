//! Tests of [`super`]: each formula on a hand-worked case, outcomes in small scenes.

use super::*;
use crate::math::x4::{Vec2x4, LANES};
use crate::rng::{agent_rng, uniform};

fn wall(ax: f32, ay: f32, bx: f32, by: f32) -> Wall {
    Wall::new(Vec2::new(ax, ay), Vec2::new(bx, by)).unwrap()
}

/// The square [0, s]², walls counter-clockwise so the normals face inward.
fn arena(s: f32) -> Vec<Wall> {
    vec![
        wall(0.0, 0.0, s, 0.0),
        wall(s, 0.0, s, s),
        wall(s, s, 0.0, s),
        wall(0.0, s, 0.0, 0.0),
    ]
}

/// Brute-force oracle: earliest crossing over all walls, ties to lower index.
fn brute_first(walls: &[Wall], from: Vec2, to: Vec2) -> Option<(f32, u32)> {
    let mut best: Option<(f32, u32)> = None;
    for (i, w) in walls.iter().enumerate() {
        if let Some(t) = w.crossing(from, to) {
            if !matches!(best, Some((bt, _)) if bt <= t) {
                best = Some((t, i as u32));
            }
        }
    }
    best
}

/// Independent f64 oracle: does the move `p -> q` pass clearly through the
/// wall (both ends more than `delta` off its line on opposite sides, crossing
/// more than `delta` inside its ends)? Rounding-level grazes don't count.
fn deep_crossing(w: &Wall, p: Vec2, q: Vec2, delta: f64) -> bool {
    let (ax, ay, bx, by) = (
        w.a().x as f64,
        w.a().y as f64,
        w.b().x as f64,
        w.b().y as f64,
    );
    let (dx, dy) = (bx - ax, by - ay);
    let len = (dx * dx + dy * dy).sqrt();
    let side = |v: Vec2| ((v.y as f64 - ay) * dx - (v.x as f64 - ax) * dy) / len;
    let (sp, sq) = (side(p), side(q));
    if !((sp > delta && sq < -delta) || (sp < -delta && sq > delta)) {
        return false;
    }
    let t = sp / (sp - sq);
    let x = p.x as f64 + (q.x as f64 - p.x as f64) * t;
    let y = p.y as f64 + (q.y as f64 - p.y as f64) * t;
    let along = ((x - ax) * dx + (y - ay) * dy) / len;
    along > delta && along < len - delta
}

fn random_walls(seed: u64, n: usize, extent: f32) -> Vec<Wall> {
    let mut rng = agent_rng(seed, 0);
    let mut walls = Vec::new();
    while walls.len() < n {
        let a = Vec2::new(
            uniform(&mut rng, 0.0, extent),
            uniform(&mut rng, 0.0, extent),
        );
        let len = uniform(&mut rng, 0.5, extent * 0.2);
        let ang = uniform(&mut rng, 0.0, std::f32::consts::TAU);
        let b = a + crate::math::heading_to_vec(ang) * len;
        if let Ok(w) = Wall::new(a, b) {
            walls.push(w);
        }
    }
    walls
}

/// Random walls plus a polyline sharing end points, grid-aligned walls and
/// the arena, to exercise corners and cell borders.
fn mixed_walls(seed: u64) -> Vec<Wall> {
    let mut w = random_walls(seed, 150, 100.0);
    w.extend(arena(100.0));
    let pts = [
        (20.0, 20.0),
        (40.0, 20.0),
        (40.0, 40.0),
        (30.0, 50.0),
        (20.0, 20.0),
    ];
    for p in pts.windows(2) {
        w.push(wall(p[0].0, p[0].1, p[1].0, p[1].1));
    }
    w.push(wall(50.0, 0.0, 50.0, 100.0));
    w.push(wall(0.0, 60.0, 100.0, 60.0));
    w
}

#[test]
fn empty_index_answers_nothing() {
    let idx = WallIndex::new(&[]).unwrap();
    assert!(idx.is_empty());
    assert!(idx.ray_cast(Vec2::ZERO, Vec2::X, 10.0).is_none());
    assert_eq!(
        idx.constrain_move(Vec2::ZERO, Vec2::ONE),
        (Vec2::ONE, false)
    );
    let mut n = 0;
    idx.for_each_near(Vec2::ZERO, 100.0, |_, _| n += 1);
    assert_eq!(n, 0);
}

#[test]
fn ray_cast_hand_worked() {
    // Arena [0,10]²; from (5,5) along +x: the right wall x = 10 at distance 5,
    // normal facing the origin (-1, 0).
    let idx = WallIndex::new(&arena(10.0)).unwrap();
    let h = idx.ray_cast(Vec2::new(5.0, 5.0), Vec2::X, 20.0).unwrap();
    assert_eq!(h.wall, 1);
    assert!((h.dist - 5.0).abs() < 1e-5);
    assert!((h.point - Vec2::new(10.0, 5.0)).length() < 1e-5);
    assert_eq!(h.normal, Vec2::new(-1.0, 0.0));
    // Too short.
    assert!(idx.ray_cast(Vec2::new(5.0, 5.0), Vec2::X, 4.0).is_none());
    // From outside: the back face, normal facing the outside origin (+1, 0).
    let h = idx
        .ray_cast(Vec2::new(12.0, 5.0), Vec2::NEG_X, 20.0)
        .unwrap();
    assert_eq!(h.wall, 1);
    assert!((h.dist - 2.0).abs() < 1e-5);
    assert_eq!(h.normal, Vec2::X);
    // Not unit, infinite length, degenerate input.
    assert!(idx
        .ray_cast(Vec2::new(5.0, 5.0), Vec2::new(0.0, 3.0), f32::INFINITY)
        .is_some());
    assert!(idx
        .ray_cast(Vec2::new(5.0, 5.0), Vec2::ZERO, 20.0)
        .is_none());
    assert!(idx.ray_cast(Vec2::NAN, Vec2::X, 20.0).is_none());
    assert!(idx
        .ray_cast(Vec2::new(5.0, 5.0), Vec2::X, f32::NAN)
        .is_none());
    // Into the corner (10,10) exactly: both walls meet at t = 1; lower index wins.
    let h = idx.ray_cast(Vec2::new(5.0, 5.0), Vec2::ONE, 20.0).unwrap();
    assert_eq!(h.wall, 1);
}

#[test]
fn clear_within_hand_worked() {
    // Arena [0,10]²: from (5,5) every wall is 5 away.
    let idx = WallIndex::new(&arena(10.0)).unwrap();
    let c = Vec2::new(5.0, 5.0);
    assert!(idx.clear_within(c, 4.0));
    assert!(!idx.clear_within(c, 5.0));
    // Near the right wall, and on it.
    assert!(!idx.clear_within(Vec2::new(9.0, 5.0), 1.5));
    assert!(!idx.clear_within(Vec2::new(10.0, 5.0), 0.0));
    // Outside, far from every wall; degenerate input is never clear.
    assert!(idx.clear_within(Vec2::new(30.0, 30.0), 2.0));
    assert!(!idx.clear_within(Vec2::NAN, 1.0));
    assert!(!idx.clear_within(c, f32::NAN));
    assert!(!idx.clear_within(c, f32::INFINITY));
}

#[test]
fn open_rings_hand_worked() {
    // 5 x 5 cells of 1, items in the cells (2, 2) and (0, 0): each cell's empty rings
    // are its chessboard distance to the nearer of the two, less one (0 for those).
    let shape = CellLayout::fit(Vec2::ZERO, Vec2::splat(5.0), 1.0, 1024).unwrap();
    assert_eq!(shape.dims(), (5, 5));
    let grid = CellLists::build(shape, 2, |i, push| push([12, 0][i])).unwrap();
    let rings = open_rings(&grid);
    for y in 0..5_i32 {
        for x in 0..5_i32 {
            let d = (x - 2).abs().max((y - 2).abs()).min(x.max(y));
            let want = u8::try_from((d - 1).max(0)).unwrap();
            assert_eq!(rings[(y * 5 + x) as usize], want, "({x}, {y})");
        }
    }
    // No item anywhere: open as far as a u8 goes.
    let none = CellLists::build(shape, 0, |_, _| {}).unwrap();
    assert!(open_rings(&none).iter().all(|&r| r == u8::MAX));
}

#[test]
fn open_rings_answer_as_the_cells_do() {
    // Walls of every length in a square, and a plain 2 km wide crossed by a few long
    // walls (the sparse walls that get fine cells): for points on and off the grid,
    // cell borders among them, and radii from 0 to two cells, `clear_within` (the
    // rings first) says what the cells' test alone says; the rings must answer most
    // of the plain's points.
    let plain = vec![
        wall(-1000.0, -1000.0, 1000.0, -1000.0),
        wall(-1000.0, 1000.0, 1000.0, 1000.0),
        wall(-300.0, -200.0, 400.0, 250.0),
        wall(0.0, -900.0, 0.0, -100.0),
    ];
    for walls in [mixed_walls(4), plain] {
        let idx = WallIndex::new(&walls).unwrap();
        let (lo, hi) = (idx.grid.shape.min(), idx.grid.shape.max());
        let cell = idx.cell_size();
        let mut rng = agent_rng(9, 4);
        let mut by_rings = 0;
        for k in 0..20_000 {
            let span = hi - lo;
            let mut p = Vec2::new(
                uniform(&mut rng, lo.x - 0.1 * span.x, hi.x + 0.1 * span.x),
                uniform(&mut rng, lo.y - 0.1 * span.y, hi.y + 0.1 * span.y),
            );
            if k % 4 == 0 {
                p = lo + ((p - lo) / cell).round() * cell;
            }
            let r = uniform(&mut rng, 0.0, 2.0 * cell);
            let cells = idx.clear_by_cells(p, idx.reach(r));
            assert_eq!(idx.clear_within(p, r), cells, "{p} {r}");
            let (cx, cy) = idx.grid.shape.cell_of(p);
            let rings = idx.open[idx.grid.shape.index(cx, cy)];
            by_rings += usize::from(idx.reach(r) <= (f32::from(rings) - 0.5) * cell);
        }
        assert!(by_rings > 2_000, "{by_rings} answered by the rings");
    }
}

#[test]
fn open_lanes_are_clear_within() {
    // Four points at a time over the square of mixed walls and round it (cell
    // borders among them, and non-finite ones), radii from 0 to two cells and NaN:
    // a lane `open_x4` calls open is clear by `clear_within`, and it calls open the
    // points off the grid's border cells that the rings answer for `clear_within`.
    let idx = WallIndex::new(&mixed_walls(4)).unwrap();
    let (lo, hi) = (idx.grid.shape.min(), idx.grid.shape.max());
    let cell = idx.cell_size();
    let mut rng = agent_rng(11, 4);
    let (mut open, mut by_rings) = (0, 0);
    for k in 0..5_000 {
        let span = hi - lo;
        let four: [Vec2; LANES] = std::array::from_fn(|l| {
            let p = Vec2::new(
                uniform(&mut rng, lo.x - 0.1 * span.x, hi.x + 0.1 * span.x),
                uniform(&mut rng, lo.y - 0.1 * span.y, hi.y + 0.1 * span.y),
            );
            match (k + l) % 7 {
                0 => lo + ((p - lo) / cell).round() * cell,
                1 if k % 50 == 0 => Vec2::new(f32::NAN, p.y),
                _ => p,
            }
        });
        let r = if k % 97 == 0 {
            f32::NAN
        } else {
            uniform(&mut rng, 0.0, 2.0 * cell)
        };
        for (p, lane) in four.iter().zip(idx.open_x4(Vec2x4::load(&four), r)) {
            if lane {
                assert!(idx.clear_within(*p, r), "{p} {r}");
                open += 1;
            }
            let inner = p.cmpgt(lo + cell).all() && p.cmplt(hi - cell).all();
            if inner && !r.is_nan() {
                let (cx, cy) = idx.grid.shape.cell_of(*p);
                let rings = idx.open[idx.grid.shape.index(cx, cy)];
                by_rings += usize::from(idx.reach(r) <= (f32::from(rings) - 0.5) * cell);
            }
        }
    }
    assert!(
        open > 3_000 && open * 100 >= by_rings * 99,
        "{open} open of {by_rings}"
    );
}

#[test]
fn clear_points_see_no_wall_within_the_radius() {
    // Wherever `clear_within` says clear, no ray of that length from the point
    // meets a wall (brute force, 64 directions and the exact diagonal ones); and
    // it is not so cautious that it never says clear.
    let walls = mixed_walls(3);
    let idx = WallIndex::new(&walls).unwrap();
    let mut rng = agent_rng(5, 2);
    let mut clear = 0;
    for _ in 0..5_000 {
        let p = Vec2::new(
            uniform(&mut rng, -5.0, 105.0),
            uniform(&mut rng, -5.0, 105.0),
        );
        let r = uniform(&mut rng, 0.0, 6.0);
        if !idx.clear_within(p, r) {
            continue;
        }
        clear += 1;
        for k in 0..68 {
            let dir = if k < 64 {
                crate::math::heading_to_vec(k as f32 * std::f32::consts::TAU / 64.0)
            } else {
                [
                    Vec2::ONE,
                    -Vec2::ONE,
                    Vec2::new(1.0, -1.0),
                    Vec2::new(-1.0, 1.0),
                ][k - 64]
                    .normalize()
            };
            assert!(
                brute_first(&walls, p, p + dir * r).is_none(),
                "{p} {r} {dir}"
            );
            assert!(idx.ray_cast(p, dir, r).is_none(), "{p} {r} {dir}");
        }
    }
    assert!(clear > 500, "only {clear} clear points");
}

#[test]
fn index_agrees_with_brute_force() {
    let walls = mixed_walls(7);
    let idx = WallIndex::new(&walls).unwrap();
    let mut rng = agent_rng(99, 1);
    for i in 0..20_000 {
        let from = Vec2::new(
            uniform(&mut rng, -10.0, 110.0),
            uniform(&mut rng, -10.0, 110.0),
        );
        let reach = if i % 10 == 0 { 150.0 } else { 8.0 };
        let to = from
            + Vec2::new(
                uniform(&mut rng, -reach, reach),
                uniform(&mut rng, -reach, reach),
            );
        assert_eq!(
            idx.first_crossing_t(from, to),
            brute_first(&walls, from, to),
            "{from} -> {to}"
        );
    }
}

#[test]
fn for_each_near_matches_brute_force_once_each() {
    let walls = mixed_walls(3);
    let idx = WallIndex::new(&walls).unwrap();
    let mut rng = agent_rng(5, 2);
    for _ in 0..2_000 {
        let p = Vec2::new(
            uniform(&mut rng, -20.0, 120.0),
            uniform(&mut rng, -20.0, 120.0),
        );
        let r = uniform(&mut rng, 0.0, 15.0);
        let mut got = Vec::new();
        idx.for_each_near(p, r, |i, _| got.push(i));
        let mut sorted = got.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), got.len(), "duplicate report");
        let want: Vec<u32> = (0..walls.len() as u32)
            .filter(|&i| walls[i as usize].distance_to(p) <= r)
            .collect();
        assert_eq!(sorted, want);
    }
    // A point on a wall at a tiny radius finds it (the closest point is only
    // computed to within rounding, so radius 0 may not).
    let mut got = Vec::new();
    idx.for_each_near(Vec2::new(50.0, 30.0), 1e-4, |i, _| got.push(i));
    assert!(got.contains(&(walls.len() as u32 - 2)));
}

#[test]
fn constrain_move_slides_along_a_wall() {
    // Arena [0,10]²: from (5,9) to (7,11) crosses the top wall y = 10 at
    // t = 0.5 (6,10). Cut: h = 1, tau = 0.5 * (1 - 0.001) -> y = 9.999.
    // Slide: rest (1,1), normal facing (0,-1) -> tangential (1,0): (7, 9.999).
    let idx = WallIndex::new(&arena(10.0)).unwrap();
    let (p, blocked) = idx.constrain_move(Vec2::new(5.0, 9.0), Vec2::new(7.0, 11.0));
    assert!(blocked);
    assert!((p - Vec2::new(6.999, 9.999)).length() < 1e-3, "{p}");
    assert!(p.y < 10.0);
    // A free move is untouched.
    let q = Vec2::new(6.0, 6.0);
    assert_eq!(idx.constrain_move(Vec2::new(5.0, 5.0), q), (q, false));
    // Into a corner: both walls; ends inside.
    let (p, blocked) = idx.constrain_move(Vec2::new(9.0, 9.0), Vec2::new(12.0, 11.0));
    assert!(blocked && p.x < 10.0 && p.y < 10.0, "{p}");
    // Non-finite target: stay.
    assert_eq!(
        idx.constrain_move(Vec2::new(5.0, 5.0), Vec2::NAN),
        (Vec2::new(5.0, 5.0), true)
    );
}

#[test]
fn constrain_move_on_a_wall_and_at_end_points() {
    let idx = WallIndex::new(&arena(10.0)).unwrap();
    let inside = |p: Vec2| idx.walls().iter().all(|w| w.side(p) >= 0.0);
    // Exactly on the bottom wall (counts as in front = inside): outward blocked.
    let (p, blocked) = idx.constrain_move(Vec2::new(5.0, 0.0), Vec2::new(5.0, -1.0));
    assert!(blocked && inside(p), "{p}");
    let (p, blocked) = idx.constrain_move(Vec2::new(5.0, 0.0), Vec2::new(5.0, 1.0));
    assert!(!blocked && p == Vec2::new(5.0, 1.0));
    // Exactly on the corner, heading out diagonally.
    let (p, blocked) = idx.constrain_move(Vec2::ZERO, Vec2::new(-1.0, -1.0));
    assert!(blocked && inside(p), "{p}");
    // Free-standing wall: from its end point, around and across.
    let single = WallIndex::new(&[wall(0.0, 0.0, 10.0, 0.0)]).unwrap();
    let w = single.walls()[0];
    for from in [Vec2::new(10.0, 0.0), Vec2::ZERO, Vec2::new(10.0, 1e-7)] {
        for to in [
            Vec2::new(10.0, -1.0),
            Vec2::new(9.0, -1.0),
            Vec2::new(5.0, -3.0),
        ] {
            let (p, _) = single.constrain_move(from, to);
            assert!(w.crossing(from, p).is_none(), "{from} -> {to} gave {p}");
            assert!(w.in_front(p), "{from} -> {to} gave {p}");
        }
    }
}

#[test]
fn random_walks_never_cross_a_wall() {
    for (seed, walls) in [
        (1u64, arena(10.0)),
        (2, mixed_walls(11)),
        (3, random_walls(4, 400, 50.0)),
    ] {
        let idx = WallIndex::new(&walls).unwrap();
        // The index's copies: they know which side of each line is the inside.
        let walls = idx.walls().to_vec();
        let extent = if seed == 1 { 10.0 } else { 100.0 };
        let mut rng = agent_rng(seed, 7);
        // Start points: random, exactly on walls, and at end points.
        let mut starts: Vec<Vec2> = (0..300)
            .map(|_| {
                Vec2::new(
                    uniform(&mut rng, 0.0, extent),
                    uniform(&mut rng, 0.0, extent),
                )
            })
            .collect();
        for w in walls.iter().take(100) {
            starts.push(w.a());
            starts.push(w.b());
            starts.push(w.a().lerp(w.b(), uniform(&mut rng, 0.0, 1.0)));
        }
        for mut pos in starts {
            for _ in 0..60 {
                let step = uniform(&mut rng, 0.0, 3.0);
                let dir = crate::math::heading_to_vec(uniform(&mut rng, 0.0, 7.0));
                let (next, _) = idx.constrain_move(pos, pos + dir * step);
                assert!(next.is_finite());
                assert_eq!(brute_first(&walls, pos, next), None, "{pos} -> {next}");
                assert!(!walls.iter().any(|w| deep_crossing(w, pos, next, 1e-4)));
                pos = next;
            }
        }
    }
}

/// Unit walls on an integer lattice (a maze): cell borders sit within a pad of
/// the walls, and many walls share end points.
fn lattice_walls(seed: u64) -> Vec<Wall> {
    let mut rng = agent_rng(seed, 3);
    let mut walls = Vec::new();
    for i in 0..30 {
        for j in 0..30 {
            let (x, y) = (i as f32, j as f32);
            if uniform(&mut rng, 0.0, 1.0) < 0.4 {
                walls.push(wall(x, y, x + 1.0, y));
            }
            if uniform(&mut rng, 0.0, 1.0) < 0.4 {
                walls.push(wall(x, y, x, y + 1.0));
            }
        }
    }
    walls
}

#[test]
fn lattice_maze_agrees_with_brute_force() {
    let idx = WallIndex::new(&lattice_walls(5)).unwrap();
    let walls = idx.walls().to_vec();
    let mut rng = agent_rng(6, 6);
    let lattice = |rng: &mut crate::rng::AgentRng| {
        Vec2::new(
            (uniform(rng, 0.0, 30.0) * 2.0).round() * 0.5,
            (uniform(rng, 0.0, 30.0) * 2.0).round() * 0.5,
        )
    };
    let mut crossings_seen = 0;
    for i in 0..20_000 {
        // Half the moves start and end on lattice points or half-points, so they
        // run along walls and through their shared end points.
        let (from, to) = if i % 2 == 0 {
            (lattice(&mut rng), lattice(&mut rng))
        } else {
            let f = Vec2::new(uniform(&mut rng, -1.0, 31.0), uniform(&mut rng, -1.0, 31.0));
            (
                f,
                f + Vec2::new(uniform(&mut rng, -3.0, 3.0), uniform(&mut rng, -3.0, 3.0)),
            )
        };
        assert_eq!(
            idx.first_crossing_t(from, to),
            brute_first(&walls, from, to),
            "{from} -> {to}"
        );
        let (p, _) = idx.constrain_move(from, to);
        assert_eq!(
            brute_first(&walls, from, p),
            None,
            "{from} -> {to} gave {p}"
        );
        assert!(!walls.iter().any(|w| deep_crossing(w, from, p, 1e-4)));
        // The oracles do see the unconstrained crossings.
        if walls.iter().any(|w| deep_crossing(w, from, to, 1e-4)) {
            assert!(brute_first(&walls, from, to).is_some());
            crossings_seen += 1;
        }
    }
    assert!(crossings_seen > 1_000, "{crossings_seen}");
}

#[test]
fn arena_agents_stay_inside() {
    let idx = WallIndex::new(&arena(10.0)).unwrap();
    let mut rng = agent_rng(8, 8);
    for _ in 0..200 {
        let mut pos = Vec2::new(uniform(&mut rng, 0.0, 10.0), uniform(&mut rng, 0.0, 10.0));
        for _ in 0..100 {
            let v = Vec2::new(uniform(&mut rng, -4.0, 4.0), uniform(&mut rng, -4.0, 4.0));
            pos = idx.constrain_move(pos, pos + v).0;
            assert!(
                (0.0..=10.0).contains(&pos.x) && (0.0..=10.0).contains(&pos.y),
                "{pos}"
            );
        }
    }
}

#[test]
fn memory_stays_bounded_for_thousands_of_walls() {
    // Cells: at most four per wall or 64 Ki, whichever is more; entries a few per wall.
    let walls = random_walls(12, 5_000, 1_000.0);
    let idx = WallIndex::new(&walls).unwrap();
    let (cells, entries) = idx.grid_stats();
    assert!(cells <= 1 << 16, "{cells}");
    assert!(entries <= 10 * walls.len(), "{entries}");
    let walls = random_walls(14, 50_000, 3_000.0);
    let idx = WallIndex::new(&walls).unwrap();
    let (cells, entries) = idx.grid_stats();
    assert!(cells <= 4 * walls.len(), "{cells}");
    assert!(entries <= 10 * walls.len(), "{entries}");
    // A few very long walls among short ones.
    let mut walls = random_walls(13, 2_000, 10.0);
    walls.push(wall(-5000.0, -5000.0, 5000.0, 5000.0));
    let idx = WallIndex::new(&walls).unwrap();
    let (cells, entries) = idx.grid_stats();
    assert!(
        cells <= 1 << 16 && entries <= 20 * walls.len(),
        "{cells} {entries}"
    );
}

/// A town's long walls over a wide plain: a square enclosure with gates and two
/// closed buildings, 2 km across.
fn sparse_town() -> Vec<Wall> {
    let mut walls = vec![
        wall(-1000.0, -1000.0, -30.0, -1000.0),
        wall(30.0, -1000.0, 1000.0, -1000.0),
        wall(1000.0, -1000.0, 1000.0, 1000.0),
        wall(1000.0, 1000.0, -1000.0, 1000.0),
        wall(-1000.0, 1000.0, -1000.0, -1000.0),
    ];
    for (x, y) in [(-600.0, 200.0), (300.0, -500.0)] {
        walls.extend([
            wall(x, y, x + 400.0, y),
            wall(x + 400.0, y, x + 400.0, y + 300.0),
            wall(x + 400.0, y + 300.0, x, y + 300.0),
            wall(x, y + 300.0, x, y),
        ]);
    }
    walls
}

#[test]
fn sparse_walls_get_finer_cells_that_answer_the_same() {
    let walls = sparse_town();
    let idx = WallIndex::new(&walls).unwrap();
    let mean = walls.iter().map(Wall::length).sum::<f32>() / walls.len() as f32;
    // Cells of a quarter of the mean length would list walls in most cells here;
    // finer ones list them in at most one in four.
    assert!(idx.cell_size() < mean / 4.0, "{} {mean}", idx.cell_size());
    let (cells, _) = idx.grid_stats();
    let listed = (0..cells)
        .filter(|&c| !idx.grid.cell_items(c).is_empty())
        .count();
    assert!(listed * EMPTY_SHARE <= cells, "{listed} of {cells}");
    // Every answer as before, and the four-lane test of moves agrees with
    // `constrain_move`: a lane it calls clear is one that crosses no wall.
    let mut rng = agent_rng(41, 3);
    let (mut clear, mut moves) = (0, 0);
    for i in 0..4_000 {
        let from: [Vec2; LANES] = std::array::from_fn(|_| {
            Vec2::new(
                uniform(&mut rng, -990.0, 990.0),
                uniform(&mut rng, -990.0, 990.0),
            )
        });
        let reach = if i % 10 == 0 { 300.0 } else { 3.0 };
        let to = from.map(|f| {
            f + Vec2::new(
                uniform(&mut rng, -reach, reach),
                uniform(&mut rng, -reach, reach),
            )
        });
        let says = idx.clear_moves_x4(Vec2x4::load(&from), Vec2x4::load(&to));
        for k in 0..LANES {
            let first = idx.first_crossing_t(from[k], to[k]);
            assert_eq!(first, brute_first(&walls, from[k], to[k]));
            if says[k] {
                assert_eq!(first, None, "{} -> {}", from[k], to[k]);
                assert_eq!(idx.constrain_move(from[k], to[k]), (to[k], false));
                clear += 1;
            }
            moves += 1;
        }
    }
    // Most moves on the plain (nine in ten are short) are told clear at once.
    assert!(clear * 10 > moves * 7, "{clear} of {moves}");
}

#[test]
fn clear_moves_x4_hand_worked() {
    // Two short walls 10 m apart: sparse, so cells finer than a quarter of their
    // length. A move inside an empty cell is clear; one crossing a cell border, one
    // not finite, and one in a cell listing a wall are left to `constrain_move`.
    let walls = vec![wall(0.0, 0.0, 1.0, 0.0), wall(9.0, 9.0, 10.0, 9.0)];
    let idx = WallIndex::new(&walls).unwrap();
    let c = idx.cell_size();
    assert!(c < 0.25, "{c}");
    let at = |x: f32, y: f32| idx.grid.shape.min() + Vec2::new(x, y) * c;
    let from = [
        at(80.5, 40.5),
        at(80.5, 40.5),
        at(80.9, 40.5),
        at(80.5, 40.5),
    ];
    let to = [
        at(80.6, 40.6),
        at(80.5, f32::NAN),
        at(81.1, 40.5),
        at(80.4, 40.4),
    ];
    let says = idx.clear_moves_x4(Vec2x4::load(&from), Vec2x4::load(&to));
    assert_eq!(says, [true, false, false, true]);
    // The cell holding the middle of the wall at y = 9 lists it.
    let (ix, iy) = idx.grid.shape.cell_of(Vec2::new(9.5, 9.0));
    let centre = at(ix as f32 + 0.5, iy as f32 + 0.5);
    let says = idx.clear_moves_x4(
        Vec2x4::load(&[centre; LANES]),
        Vec2x4::load(&[centre + Vec2::splat(0.01 * c); LANES]),
    );
    assert_eq!(says, [false; LANES]);
}
