//! A point exactly on a wall's line: the same answers whichever way the wall is wound
//! (the order of its ends, the sign of its normal), for the geometry and for a
//! crowd placed on the walls.
mod common;

use glam::Vec2;
use proptest::prelude::*;
use throng::behaviours::walls::WallAvoidanceParams;
use throng::behaviours::wander::WanderParams;
use throng::scene::{Wall, WallIndex};
use throng::{AgentSpec, Behaviour, GroupConfig, World, WorldConfig};

/// The four windings of the wall from `a` to `b`: either end first, either normal.
fn windings(a: Vec2, b: Vec2) -> [Wall; 4] {
    let w = Wall::new(a, b).unwrap();
    let r = Wall::new(b, a).unwrap();
    [
        w,
        Wall::with_normal(a, b, -w.normal()).unwrap(),
        r,
        Wall::with_normal(b, a, -r.normal()).unwrap(),
    ]
}

/// The box [0, 10]² wound four ways (each wall as `windings` gives it).
fn boxes() -> [Vec<Wall>; 4] {
    let c = [
        Vec2::ZERO,
        Vec2::new(10.0, 0.0),
        Vec2::new(10.0, 10.0),
        Vec2::new(0.0, 10.0),
    ];
    std::array::from_fn(|k| (0..4).map(|i| windings(c[i], c[(i + 1) % 4])[k]).collect())
}

/// A point exactly on the box's boundary (`t` in [0, 4) runs once round it).
fn on_boundary(t: f32) -> Vec2 {
    let (side, f) = (t.floor() as usize % 4, t.fract() * 10.0);
    match side {
        0 => Vec2::new(f, 0.0),
        1 => Vec2::new(10.0, f),
        2 => Vec2::new(10.0 - f, 10.0),
        _ => Vec2::new(0.0, 10.0 - f),
    }
}

proptest! {
    #[test]
    fn crossings_and_constrained_moves_ignore_winding(
        t in 0.0f32..4.0,
        to in (-3.0f32..13.0, -3.0f32..13.0),
        from_off in prop::bool::ANY,
    ) {
        // From a point on the boundary (or, half the time, near it) to anywhere.
        let from = if from_off { on_boundary(t) + Vec2::splat(0.25) } else { on_boundary(t) };
        let to = Vec2::new(to.0, to.1);
        let boxes = boxes();
        let first: Vec<Option<f32>> = boxes[0].iter().map(|w| w.crossing(from, to)).collect();
        let moved = WallIndex::new(&boxes[0]).unwrap().constrain_move(from, to);
        for walls in &boxes[1..] {
            let c: Vec<Option<f32>> = walls.iter().map(|w| w.crossing(from, to)).collect();
            prop_assert_eq!(&c, &first);
            let m = WallIndex::new(walls).unwrap().constrain_move(from, to);
            prop_assert!((m.0 - moved.0).length() < 1e-4 && m.1 == moved.1, "{:?} vs {:?}", m, moved);
        }
        // In front flips with the normal, on the line too.
        for (w, flipped) in boxes[0].iter().zip(&boxes[1]) {
            prop_assert_eq!(w.in_front(from), !flipped.in_front(from));
        }
    }
}

/// Wandering agents placed exactly on the walls of the box: where they are after
/// 300 ticks, for one winding of the walls.
fn crowd_on_the_walls(walls: &[Wall]) -> Vec<Vec2> {
    let mut world = World::new(WorldConfig {
        seed: 3,
        ..WorldConfig::default()
    });
    world.set_walls(walls).unwrap();
    let g = world
        .add_group(
            GroupConfig::new("walkers")
                .with(
                    Behaviour::WallAvoidance(WallAvoidanceParams::default()),
                    2.0,
                )
                .with(Behaviour::Wander(WanderParams::default()), 1.0),
        )
        .unwrap();
    for i in 0..400 {
        let p = on_boundary(i as f32 / 100.0);
        let v = Vec2::new((i as f32 * 0.7).sin(), (i as f32 * 0.7).cos());
        world.spawn(AgentSpec::new(g, p).with_velocity(v)).unwrap();
    }
    for _ in 0..300 {
        world.step(0.05).unwrap();
    }
    world.positions().to_vec()
}

#[test]
fn a_crowd_placed_on_the_walls_does_the_same_whichever_way_they_are_wound() {
    let boxes = boxes();
    let first = crowd_on_the_walls(&boxes[0]);
    let outside = |ps: &[Vec2]| {
        ps.iter()
            .filter(|p| !(0.0..=10.0).contains(&p.x) || !(0.0..=10.0).contains(&p.y))
            .count()
    };
    // Flipping the normals changes no bit; swapping the ends may move the last bit
    // of a closest point, so it is held to the same outcome.
    assert_eq!(crowd_on_the_walls(&boxes[1]), first);
    for walls in &boxes[2..] {
        let other = crowd_on_the_walls(walls);
        assert_eq!(outside(&other), outside(&first));
    }
    eprintln!(
        "outside after 300 ticks: {} of {}",
        outside(&first),
        first.len()
    );
}
