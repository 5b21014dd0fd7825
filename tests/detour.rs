//! Walking round a wall: an agent whose straight way to its goal is cut by a wall
//! aims past the wall's nearer end (`behaviours::walls::detour`) and gets there,
//! where it used to press against the wall for ever.

use glam::Vec2;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::targeting::ArriveParams;
use throng::behaviours::walls::WallAvoidanceParams;
use throng::scene::Wall;
use throng::{AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

const DT: f32 = 0.1;

/// One agent at `from` bound for `to` behind a wall from (0, -4) to (0, 6), with
/// arrive and wall avoidance, and ORCA if `orca`; its distance to the goal after
/// 30 s, and whether any move crossed the wall's line between its ends.
fn walk(from: Vec2, to: Vec2, orca: bool) -> (f32, bool) {
    let mut w = World::new(WorldConfig::default());
    w.set_walls(&[Wall::new(Vec2::new(0.0, -4.0), Vec2::new(0.0, 6.0)).unwrap()])
        .unwrap();
    let mut g = GroupConfig::new("walkers")
        .with(
            Behaviour::Arrive(ArriveParams {
                slowing_radius: 1.0,
                ..ArriveParams::default()
            }),
            1.0,
        )
        .with(
            Behaviour::WallAvoidance(WallAvoidanceParams { feeler_length: 1.5 }),
            2.0,
        )
        .neighbours(6.0, 10);
    if orca {
        g = g.avoiding(AvoidanceParams::default());
    }
    let g = w.add_group(g).unwrap();
    let id = w
        .spawn(
            AgentSpec::new(g, from)
                .with_limits(0.1, 1.4, 30.0)
                .with_radius(0.4)
                .with_target(Target::Point(to)),
        )
        .unwrap();
    let mut crossed = false;
    let mut last = from;
    for _ in 0..300 {
        w.step(DT).unwrap();
        let p = w.position(id).unwrap();
        // The move crosses the wall's line between its ends.
        if last.x.signum() != p.x.signum() {
            let t = last.x / (last.x - p.x);
            let y = last.y + (p.y - last.y) * t;
            crossed |= (-4.0..=6.0).contains(&y);
        }
        last = p;
    }
    (w.position(id).unwrap().distance(to), crossed)
}

#[test]
fn an_agent_walks_round_a_wall_to_a_goal_behind_it() {
    // Straight at the wall's middle, the goal just behind it: the lower end is the
    // nearer (4.5 below against 5.5 above), and the agent gets round it.
    for orca in [false, true] {
        let (dist, crossed) = walk(Vec2::new(-3.0, 1.0), Vec2::new(2.0, 0.0), orca);
        assert!(dist < 0.5, "ORCA {orca}: {dist} from the goal");
        assert!(!crossed, "ORCA {orca}: through the wall");
    }
}

#[test]
fn an_agent_pushed_round_a_corridor_wall_walks_back_in() {
    // Beside the wall near its upper end, its place just across: pressed to the
    // wall, it goes round the end (0, 6) rather than the far one.
    let (dist, crossed) = walk(Vec2::new(-0.8, 4.0), Vec2::new(0.8, 4.5), true);
    assert!(dist < 0.5, "{dist} from the goal");
    assert!(!crossed);
}
