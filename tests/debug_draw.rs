//! Debug drawing as data: the geometry of hand-worked agents, and what a host sees
//! of a walker by a wall, a follower behind its leader and a path follower.

use glam::Vec2;
use throng::behaviours::obstacles::ObstacleAvoidanceParams;
use throng::behaviours::path::PathFollowParams;
use throng::behaviours::walls::WallAvoidanceParams;
use throng::prelude::*;
use throng::world::{DebugDraw, DebugKind};

fn close(a: Vec2, b: Vec2) -> bool {
    a.distance(b) < 1e-4
}

fn points(d: &DebugDraw, kind: DebugKind) -> Vec<Vec2> {
    d.points
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| p.at)
        .collect()
}

fn lines(d: &DebugDraw, kind: DebugKind) -> Vec<(Vec2, Vec2)> {
    d.lines
        .iter()
        .filter(|l| l.kind == kind)
        .map(|l| (l.from, l.to))
        .collect()
}

#[test]
fn hand_worked_geometry_of_an_agent_heading_east() {
    let mut w = World::default();
    let walls = WallAvoidanceParams { feeler_length: 4.0 };
    let obstacles = ObstacleAvoidanceParams {
        min_detection_box_length: 2.0,
        ..ObstacleAvoidanceParams::default()
    };
    let wander = WanderParams::default();
    let arrive = ArriveParams {
        slowing_radius: 3.0,
        ..ArriveParams::default()
    };
    let g = w
        .add_group(
            GroupConfig::new("g")
                .with(Behaviour::WallAvoidance(walls), 1.0)
                .with(Behaviour::ObstacleAvoidance(obstacles), 1.0)
                .with(Behaviour::Wander(wander), 1.0)
                .with(Behaviour::Arrive(arrive), 1.0),
        )
        .unwrap();
    // A wall across the way 3 ahead: the forward feeler (length 4) meets it at (3, 0).
    w.set_walls(&[Wall::new(Vec2::new(3.0, -5.0), Vec2::new(3.0, 5.0)).unwrap()])
        .unwrap();
    // Radius 0.5, moving east at 1 of a top speed of 2.
    let id = w
        .spawn(
            AgentSpec::new(g, Vec2::ZERO)
                .with_velocity(Vec2::new(1.0, 0.0))
                .with_target(Target::Point(Vec2::new(-7.0, 1.0))),
        )
        .unwrap();
    let mut d = DebugDraw::default();
    w.debug_draw(id, &mut d).unwrap();

    assert!(d
        .circles
        .iter()
        .any(|c| c.kind == DebugKind::Body && c.radius == 0.5));
    assert_eq!(
        lines(&d, DebugKind::Velocity),
        vec![(Vec2::ZERO, Vec2::new(1.0, 0.0))]
    );
    assert_eq!(points(&d, DebugKind::Target), vec![Vec2::new(-7.0, 1.0)]);
    assert!(d.circles.iter().any(|c| c.kind == DebugKind::Target
        && c.radius == 3.0
        && c.centre == Vec2::new(-7.0, 1.0)));
    // Feelers: forward (4, 0) and normalize(4 fwd ∓ 2 right) * 4; right of east is
    // south (clockwise), so the left feeler points north-east.
    let s = 4.0 / 20f32.sqrt();
    let tips: Vec<Vec2> = lines(&d, DebugKind::Feeler).iter().map(|l| l.1).collect();
    assert_eq!(tips.len(), 3);
    assert!(close(tips[0], Vec2::new(4.0 * s, 2.0 * s)), "{tips:?}");
    assert!(close(tips[1], Vec2::new(4.0, 0.0)));
    assert!(close(tips[2], Vec2::new(4.0 * s, -2.0 * s)));
    // Every feeler reaches x = 3.58 > 3: three hits on the wall, the forward one at (3, 0).
    let hits = points(&d, DebugKind::FeelerHit);
    assert_eq!(hits.len(), 3);
    assert!(hits.iter().all(|h| (h.x - 3.0).abs() < 1e-5));
    assert!(hits.iter().any(|&h| close(h, Vec2::new(3.0, 0.0))));
    // Detection box: 2 * (1 + 1/2) = 3 long, the body's radius either side.
    let corners: Vec<Vec2> = lines(&d, DebugKind::DetectionBox)
        .iter()
        .map(|l| l.0)
        .collect();
    let want = [
        Vec2::new(0.0, 0.5),
        Vec2::new(3.0, 0.5),
        Vec2::new(3.0, -0.5),
        Vec2::new(0.0, -0.5),
    ];
    assert_eq!(corners.len(), 4);
    for c in want {
        assert!(
            corners.iter().any(|&k| close(k, c)),
            "{c} not in {corners:?}"
        );
    }
    // Wander circle `distance` ahead, its target on it.
    let circle = d
        .circles
        .iter()
        .find(|c| c.kind == DebugKind::WanderCircle)
        .unwrap();
    assert!(close(circle.centre, Vec2::new(wander.distance, 0.0)));
    assert_eq!(circle.radius, wander.radius);
    let t = points(&d, DebugKind::WanderTarget)[0];
    assert!((t.distance(circle.centre) - wander.radius).abs() < 1e-4);
    // No neighbours read, none drawn; appending twice doubles, clear empties.
    assert!(lines(&d, DebugKind::Neighbour).is_empty());
    let n = d.lines.len();
    w.debug_draw(id, &mut d).unwrap();
    assert_eq!(d.lines.len(), 2 * n);
    d.clear();
    assert!(d.is_empty());
}

#[test]
fn a_follower_sees_its_leaders_points_and_neighbours() {
    let mut w = World::default();
    let leaders = w.add_group(GroupConfig::new("leaders")).unwrap();
    let params = LeaderParams::default();
    let follow = Behaviour::LeaderFollow {
        leader: params,
        separation: SeparationParams::default(),
    };
    let squad = w
        .add_group(
            GroupConfig::new("squad")
                .with(follow, 1.0)
                .neighbours(3.0, 8),
        )
        .unwrap();
    let leader = w
        .spawn(AgentSpec::new(leaders, Vec2::new(0.0, 10.0)).with_velocity(Vec2::new(0.0, 1.0)))
        .unwrap();
    let a = w
        .spawn(AgentSpec::new(squad, Vec2::new(0.0, 5.0)).with_target(Target::Agent(leader)))
        .unwrap();
    let b = w
        .spawn(AgentSpec::new(squad, Vec2::new(1.0, 5.0)).with_target(Target::Agent(leader)))
        .unwrap();
    let mut d = DebugDraw::default();
    w.debug_draw(a, &mut d).unwrap();
    // The leader at (0, 10) heading north (+y): behind (0, 6), ahead (0, 14).
    assert_eq!(points(&d, DebugKind::Behind), vec![Vec2::new(0.0, 6.0)]);
    assert_eq!(points(&d, DebugKind::Ahead), vec![Vec2::new(0.0, 14.0)]);
    let sight: Vec<_> = d
        .circles
        .iter()
        .filter(|c| c.kind == DebugKind::LeaderSight)
        .map(|c| (c.centre, c.radius))
        .collect();
    assert_eq!(
        sight,
        vec![(Vec2::new(0.0, 14.0), 2.5), (Vec2::new(0.0, 10.0), 2.5)]
    );
    // Its one neighbour within 3 is b, at (1, 5); every item names the agent drawn.
    assert_eq!(
        lines(&d, DebugKind::Neighbour),
        vec![(Vec2::new(0.0, 5.0), Vec2::new(1.0, 5.0))]
    );
    assert!(d.lines.iter().all(|l| l.agent == a));
    // The group's: both followers.
    let mut all = DebugDraw::default();
    w.debug_draw_group(squad, &mut all).unwrap();
    assert_eq!(points(&all, DebugKind::Behind).len(), 2);
    assert!(all.points.iter().any(|p| p.agent == b));
    assert!(w.debug_draw(leader, &mut all).is_ok());
}

#[test]
fn a_path_follower_shows_its_prediction_and_carrot_along_the_run() {
    let mut w = World::default();
    let path = w
        .add_path(Path::open(vec![Vec2::ZERO, Vec2::new(20.0, 0.0)]).unwrap())
        .unwrap();
    let follow = Behaviour::FollowPath {
        path: Some(path),
        params: PathFollowParams::default(),
    };
    let g = w
        .add_group(GroupConfig::new("g").with(follow, 1.0))
        .unwrap();
    // Off the path to the north, still: it steers to a carrot on the path.
    let id = w.spawn(AgentSpec::new(g, Vec2::new(0.0, 3.0))).unwrap();
    let mut d = DebugDraw::default();
    w.debug_draw(id, &mut d).unwrap();
    let carrot = points(&d, DebugKind::PathCarrot);
    assert_eq!(carrot.len(), 1);
    assert_eq!(carrot[0].y, 0.0, "the carrot lies on the path");
    let (predicted, on_path) = lines(&d, DebugKind::PathPrediction)[0];
    assert_eq!(on_path.y, 0.0);
    assert_eq!(
        predicted,
        Vec2::new(0.0, 3.0),
        "still: predicts where it is"
    );
    for _ in 0..300 {
        w.step(1.0 / 30.0).unwrap();
        d.clear();
        w.debug_draw(id, &mut d).unwrap();
        // The prediction leads the agent along its velocity.
        let pos = w.position(id).unwrap();
        let vel = w.velocity(id).unwrap();
        let (predicted, _) = lines(&d, DebugKind::PathPrediction)[0];
        if vel.length() > 0.1 {
            assert!((predicted - pos).dot(vel) > 0.0);
        }
    }
    // Near the end it arrives at the last point: that is the carrot.
    assert_eq!(
        points(&d, DebugKind::PathCarrot),
        vec![Vec2::new(20.0, 0.0)]
    );
}

#[test]
fn unknown_handles_and_groups_are_refused() {
    let mut w = World::default();
    let g = w.add_group(GroupConfig::new("g")).unwrap();
    let id = w.spawn(AgentSpec::new(g, Vec2::ZERO)).unwrap();
    w.despawn(id).unwrap();
    let mut d = DebugDraw::default();
    assert!(w.debug_draw(id, &mut d).is_err());
    w.remove_group(g).unwrap();
    assert!(w.debug_draw_group(g, &mut d).is_err());
    assert!(d.is_empty());
}

#[test]
fn an_avoiding_agent_on_a_collision_course_draws_the_half_plane_its_velocity_breaks() {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig {
            avoidance: Some(throng::behaviours::avoidance::AvoidanceParams::default()),
            ..GroupConfig::new("g").neighbours(10.0, 8)
        })
        .unwrap();
    // Head-on, 4 apart, closing at 2: a collision within the time horizon.
    let a = w
        .spawn(AgentSpec::new(g, Vec2::ZERO).with_velocity(Vec2::new(1.0, 0.0)))
        .unwrap();
    w.spawn(AgentSpec::new(g, Vec2::new(4.0, 0.0)).with_velocity(Vec2::new(-1.0, 0.0)))
        .unwrap();
    let mut d = DebugDraw::default();
    w.debug_draw(a, &mut d).unwrap();
    let orca = lines(&d, DebugKind::OrcaLine);
    assert_eq!(orca.len(), 1, "one neighbour, no walls: {orca:?}");
    let (from, to) = orca[0];
    // Allowed velocities lie left of from → to; the present one does not.
    let dir = (to - from).normalize();
    let v = Vec2::new(1.0, 0.0);
    assert!(dir.perp_dot(v - from) < 0.0, "{from} {to}");
    // Backing away as fast as the other comes is allowed (standing still is not:
    // the other would still close in within the time horizon).
    assert!(dir.perp_dot(Vec2::new(-1.0, 0.0) - from) >= 0.0);
    assert!(dir.perp_dot(Vec2::ZERO - from) < 0.0);
    // Without avoidance, no half-planes.
    let plain = w
        .add_group(GroupConfig::new("plain").neighbours(10.0, 8))
        .unwrap();
    w.set_agent_group(a, plain).unwrap();
    d.clear();
    w.debug_draw(a, &mut d).unwrap();
    assert!(lines(&d, DebugKind::OrcaLine).is_empty());
}

#[test]
fn a_field_follower_shows_the_fields_direction() {
    let mut w = World::default();
    // A wall between the agent and the goal: the field leads round its north end.
    w.set_walls(&[Wall::new(Vec2::new(0.0, -10.0), Vec2::new(0.0, 5.0)).unwrap()])
        .unwrap();
    let spec = FieldSpec::new(vec![Goal::Point(Vec2::new(5.0, 0.0))], 0.5)
        .with_bounds(Vec2::splat(-20.0), Vec2::splat(20.0));
    let field = w.add_goal_field(spec).unwrap();
    let follow = Behaviour::FollowField {
        field,
        params: FollowFieldParams::default(),
    };
    let g = w
        .add_group(GroupConfig::new("g").with(follow, 1.0))
        .unwrap();
    let id = w.spawn(AgentSpec::new(g, Vec2::new(-3.0, 0.0))).unwrap();
    let mut d = DebugDraw::default();
    w.debug_draw(id, &mut d).unwrap();
    let arrows = lines(&d, DebugKind::FieldDirection);
    assert_eq!(arrows.len(), 1);
    let (from, to) = arrows[0];
    assert_eq!(from, Vec2::new(-3.0, 0.0));
    // As long as the top speed (2), and toward the wall's north end, not the goal.
    assert!((to.distance(from) - 2.0).abs() < 1e-5);
    assert!((to - from).y > 1.0, "{to}");
}
