//! Goal fields in a world: a crowd finds its way out of a plain room and round a
//! corner without crossing a wall, bitwise the same on any thread count and after a
//! snapshot; fields follow the scene when it changes; bad fields are refused.
#![cfg(feature = "scenario")]

use glam::Vec2;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::field::FollowFieldParams;
use throng::behaviours::walls::WallAvoidanceParams;
use throng::scene::{FieldSpec, Goal, Wall};
use throng::world::Arrival;
use throng::{AgentSpec, Behaviour, FieldId, GroupConfig, World, WorldConfig};

fn walls(segments: &[[f32; 4]]) -> Vec<Wall> {
    segments
        .iter()
        .map(|s| Wall::new(Vec2::new(s[0], s[1]), Vec2::new(s[2], s[3])).unwrap())
        .collect()
}

/// A room 20 by 16 from (-20, -8) to (0, 8) with a door 2 wide at x = 0.
const ROOM: [[f32; 4]; 5] = [
    [-20.0, -8.0, 0.0, -8.0],
    [0.0, -8.0, 0.0, -1.0],
    [0.0, 1.0, 0.0, 8.0],
    [0.0, 8.0, -20.0, 8.0],
    [-20.0, 8.0, -20.0, -8.0],
];

/// `n` agents of radius 0.3 on a grid in the room's far half, following a field to
/// everything beyond the door, with ORCA; and the field.
fn evacuation(n: usize, threads: usize) -> (World, FieldId) {
    evacuation_with(n, threads, None)
}

/// [`evacuation`] with the field congestion-aware (`weight`, `every`) when given.
fn evacuation_with(n: usize, threads: usize, congestion: Option<(f32, u32)>) -> (World, FieldId) {
    let mut w = World::new(WorldConfig {
        seed: 5,
        ..WorldConfig::default()
    });
    w.set_thread_pool(Some(std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap(),
    )));
    w.set_walls(&walls(&ROOM)).unwrap();
    let mut spec = FieldSpec::new(
        vec![Goal::Box(Vec2::new(0.5, -20.0), Vec2::new(30.0, 20.0))],
        0.3,
    );
    if let Some((weight, every)) = congestion {
        spec = spec.with_congestion(weight, every);
    }
    let out = w.add_goal_field(spec).unwrap();
    let mut group = GroupConfig::new("evacuees")
        .with(
            Behaviour::FollowField {
                field: out,
                params: FollowFieldParams::default(),
            },
            1.0,
        )
        .with(
            Behaviour::WallAvoidance(WallAvoidanceParams { feeler_length: 1.0 }),
            2.0,
        )
        .neighbours(4.0, 10);
    group.avoidance = Some(AvoidanceParams::default());
    let g = w.add_group(group).unwrap();
    let side = (n as f32).sqrt().ceil() as usize;
    for i in 0..n {
        let p = Vec2::new(
            -18.0 + (i % side) as f32 * 0.9,
            -6.0 + (i / side) as f32 * 0.9,
        );
        w.spawn(
            AgentSpec::new(g, p)
                .with_radius(0.3)
                .with_limits(1.0, 1.4, 10.0),
        )
        .unwrap();
    }
    (w, out)
}

/// Step `w` for `ticks`, failing on any agent's move that crosses one of `walls`.
fn step_without_crossing(w: &mut World, ticks: usize, walls: &[Wall]) {
    for t in 0..ticks {
        // By handle: the rows are re-sorted every few ticks.
        let before: Vec<(throng::AgentId, Vec2)> = w
            .ids()
            .iter()
            .copied()
            .zip(w.positions().iter().copied())
            .collect();
        w.step(0.1).unwrap();
        for (id, a) in &before {
            let b = &w.position(*id).unwrap();
            for wall in walls {
                assert!(
                    wall.crossing(*a, *b).is_none(),
                    "tick {t}: a move from {a} to {b} crosses the wall {:?}-{:?}",
                    wall.a(),
                    wall.b()
                );
            }
        }
    }
}

#[test]
fn a_plain_room_empties_through_its_door() {
    let (mut w, out) = evacuation(64, 2);
    // From the far corner the way out is about 20 units: at 1.4 units/s, 15 s alone;
    // 64 through a door 2 wide take longer.
    step_without_crossing(&mut w, 900, &walls(&ROOM));
    let inside = w.positions().iter().filter(|p| p.x < 0.0).count();
    assert_eq!(inside, 0, "{inside} of 64 still in the room");
    assert!(w.positions().iter().all(|p| p.is_finite()));
    // Out, they walk on (no target, no slowing radius): beyond the door, the goal.
    assert_eq!(
        w.field_distance(out, Vec2::new(1.0, 0.0)).unwrap(),
        Some(0.0)
    );
}

#[test]
fn the_same_bits_on_any_thread_count_and_after_a_snapshot() {
    let (mut a, _) = evacuation(40, 1);
    let (mut b, _) = evacuation(40, 3);
    for _ in 0..60 {
        a.step(0.1).unwrap();
        b.step(0.1).unwrap();
    }
    assert_eq!(a.state_hash(), b.state_hash());
    let bytes = a.snapshot().to_bytes().unwrap();
    let mut c =
        World::from_snapshot(throng::prelude::Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    // A rollback over the same scene keeps the built fields.
    let saved = b.snapshot();
    for _ in 0..30 {
        b.step(0.1).unwrap();
    }
    b.restore(&saved).unwrap();
    for _ in 0..60 {
        a.step(0.1).unwrap();
        b.step(0.1).unwrap();
        c.step(0.1).unwrap();
    }
    assert_eq!(a.state_hash(), c.state_hash());
    assert_eq!(a.state_hash(), b.state_hash());
}

#[test]
fn fields_follow_the_scene_and_bad_ones_are_refused() {
    let (mut w, out) = evacuation(4, 1);
    let inside = Vec2::new(-10.0, 0.0);
    let open = w.field_distance(out, inside).unwrap().unwrap();
    assert!((10.0..11.5).contains(&open), "{open}");
    // Shut the door: nothing inside can get out.
    let mut shut = walls(&ROOM);
    shut.extend(walls(&[[0.0, -1.0, 0.0, 1.0]]));
    w.set_walls(&shut).unwrap();
    assert_eq!(w.field_distance(out, inside).unwrap(), None);
    // A wall through the goal box is refused and the world keeps its walls.
    let mut through_goal = walls(&ROOM);
    through_goal.extend(walls(&[[-30.0, -30.0, 40.0, -30.0]]));
    w.set_walls(&walls(&ROOM)).unwrap();
    assert!(
        w.set_walls(&through_goal).is_ok(),
        "the goal box is only partly covered"
    );
    w.set_walls(&walls(&ROOM)).unwrap();
    let mut over_goal = Vec::new();
    for i in 0..=80 {
        let y = -20.0 + i as f32 * 0.5;
        over_goal.extend(walls(&[[0.5, y, 30.0, y]]));
    }
    let e = w.set_walls(&over_goal).unwrap_err();
    assert!(e.to_string().contains("inside a wall"), "{e}");
    assert_eq!(w.walls().len(), ROOM.len());
    assert!(w.field_distance(out, inside).unwrap().is_some());
    // A field a group follows cannot be removed; a group cannot follow a missing one.
    assert!(w.remove_goal_field(out).is_err());
    let missing = Behaviour::FollowField {
        field: FieldId::from_index(7),
        params: FollowFieldParams::default(),
    };
    let e = w
        .add_group(GroupConfig::new("lost").with(missing, 1.0))
        .unwrap_err();
    assert!(e.to_string().contains("no goal field 7"), "{e}");
}

#[test]
fn a_column_rounds_a_corner_without_crossing_its_walls() {
    // An L-shaped corridor 2 wide (RiMEA test 6's corner): east along y in [0, 2],
    // then north along x in [10, 12].
    let corridor = walls(&[
        [0.0, 0.0, 12.0, 0.0],
        [12.0, 0.0, 12.0, 14.0],
        [0.0, 2.0, 10.0, 2.0],
        [10.0, 2.0, 10.0, 14.0],
        [0.0, 0.0, 0.0, 2.0],
    ]);
    let mut w = World::new(WorldConfig::default());
    w.set_walls(&corridor).unwrap();
    let up = w
        .add_goal_field(FieldSpec::new(
            vec![Goal::Box(Vec2::new(10.0, 12.0), Vec2::new(12.0, 14.0))],
            0.25,
        ))
        .unwrap();
    let g = w
        .add_group(
            GroupConfig::new("walkers")
                .with(
                    Behaviour::FollowField {
                        field: up,
                        params: FollowFieldParams {
                            slowing_radius: 1.0,
                        },
                    },
                    1.0,
                )
                .with(
                    Behaviour::WallAvoidance(WallAvoidanceParams { feeler_length: 1.0 }),
                    2.0,
                ),
        )
        .unwrap();
    for i in 0..20 {
        let p = Vec2::new(0.6 + (i / 2) as f32 * 0.7, 0.6 + (i % 2) as f32 * 0.8);
        w.spawn(
            AgentSpec::new(g, p)
                .with_radius(0.25)
                .with_limits(1.0, 1.33, 8.0),
        )
        .unwrap();
    }
    step_without_crossing(&mut w, 400, &corridor);
    let there = w.positions().iter().filter(|p| p.y > 11.0).count();
    assert_eq!(there, 20, "{there} of 20 round the corner");
}

/// A profile with a room, a field `out` and a group that follows `field`, with `extra`
/// appended to the field's table.
fn profile(field: &str, extra: &str) -> String {
    format!(
        r#"
walls = [[-10, -5, 0, -5], [0, -5, 0, -1], [0, 1, 0, 5], [0, 5, -10, 5], [-10, 5, -10, -5]]

[[fields]]
name = "out"
goals = [[0.5, -5, 10, 5]]
{extra}

[[groups]]
name = "walkers"
count = 10
spawn = {{ shape = "box", centre = [-5, 0], size = [6, 6] }}
radius = 0.3

[[groups.behaviours]]
kind = "follow_field"
field = "{field}"
"#
    )
}

#[test]
fn profiles_name_the_key_of_a_bad_field() {
    use throng::scenario::{parse_profile, Scenario};
    let p = parse_profile(&profile("out", ""), "room.toml").unwrap();
    // The clearance defaults to the largest radius of the groups following the field.
    assert_eq!(p.layout.fields[0].clearance, 0.3);
    let mut s = Scenario::build(&p).unwrap();
    for _ in 0..10 {
        s.step().unwrap();
    }
    let e = parse_profile(&profile("exit", ""), "room.toml").unwrap_err();
    assert_eq!(e.key, "groups[0].behaviours[0].field");
    assert!(e.message.contains("the fields are: out"), "{}", e.message);
    let e = parse_profile(&profile("out", "cell = -0.5"), "room.toml").unwrap_err();
    assert_eq!(e.key, "fields[0].cell");
    let twice = profile("out", "").replace(
        "[[groups]]",
        "[[fields]]\nname = \"out\"\ngoals = [[1, 1, 1, 1]]\n\n[[groups]]",
    );
    let e = parse_profile(&twice, "room.toml").unwrap_err();
    assert_eq!(e.key, "fields[1].name");
    assert!(
        e.message.contains("already defined by fields[0]"),
        "{}",
        e.message
    );
    // A goal on a wall is named at its line; one beside it (farther than the
    // clearance) is not.
    let on_wall = profile("out", "").replace("[[0.5, -5, 10, 5]]", "[[-5, 5.1, -5, 5.1]]");
    let e = parse_profile(&on_wall, "room.toml").unwrap_err();
    assert_eq!((e.key.as_str(), e.line), ("fields[0].goals[0]", 6));
    assert!(e.message.contains("inside a wall"), "{}", e.message);
    let beside = profile("out", "").replace("[[0.5, -5, 10, 5]]", "[[-5, 4.6, -5, 4.6]]");
    assert!(parse_profile(&beside, "room.toml").is_ok());
}

#[test]
fn arrival_follows_the_field_for_agents_without_targets() {
    // A small crowd stops in a goal room beyond the door (a slowing radius): each
    // reports moving, then arrived, once.
    let mut w = World::new(WorldConfig::default());
    w.set_walls(&walls(&ROOM)).unwrap();
    let beyond = w
        .add_goal_field(FieldSpec::new(
            vec![Goal::Box(Vec2::new(1.0, -8.0), Vec2::new(12.0, 8.0))],
            0.3,
        ))
        .unwrap();
    let mut group = GroupConfig::new("walkers")
        .with(
            Behaviour::FollowField {
                field: beyond,
                params: FollowFieldParams {
                    slowing_radius: 2.0,
                },
            },
            1.0,
        )
        .neighbours(4.0, 10);
    group.avoidance = Some(AvoidanceParams::default());
    let g = w.add_group(group).unwrap();
    let ids: Vec<_> = (0..9)
        .map(|i| {
            let p = Vec2::new(-6.0 + (i % 3) as f32, -1.0 + (i / 3) as f32);
            w.spawn(
                AgentSpec::new(g, p)
                    .with_radius(0.3)
                    .with_limits(1.0, 1.4, 10.0),
            )
            .unwrap()
        })
        .collect();
    assert!(ids
        .iter()
        .all(|&id| w.arrival(id).unwrap() == Arrival::Moving));
    let mut events = Vec::new();
    for _ in 0..400 {
        w.step(0.1).unwrap();
        events.extend(w.arrival_events().iter().map(|e| (e.agent, e.from, e.to)));
    }
    for &id in &ids {
        assert_eq!(w.arrival(id).unwrap(), Arrival::Arrived, "{id}");
        let mine: Vec<_> = events
            .iter()
            .filter(|e| e.0 == id)
            .map(|e| (e.1, e.2))
            .collect();
        assert_eq!(mine, [(Arrival::Moving, Arrival::Arrived)], "{id}");
    }
    // Shut the door: every agent left in the room is unreachable, and stands.
    let mut w = evacuation(9, 1).0;
    let mut shut = walls(&ROOM);
    shut.extend(walls(&[[0.0, -1.0, 0.0, 1.0]]));
    w.set_walls(&shut).unwrap();
    for _ in 0..100 {
        w.step(0.1).unwrap();
    }
    assert!(w.arrivals().all(|a| a == Arrival::Unreachable));
    assert!(
        w.velocities().iter().all(|v| v.length() < 0.05),
        "{:?}",
        w.velocities()
    );
}

#[test]
fn each_agent_is_judged_by_its_own_groups_field() {
    // Three groups with their rows interleaved: one follows a field to the west, one
    // a field to the east, one neither. Everyone stands in the west goal: after a
    // tick the western group has arrived, the eastern is on its way, the third has no
    // target, whatever order the rows take.
    let mut w = World::new(WorldConfig::default());
    let field = |x: f32| {
        FieldSpec::new(
            vec![Goal::Box(Vec2::new(x - 5.0, -5.0), Vec2::new(x + 5.0, 5.0))],
            0.5,
        )
    };
    let (west, east) = (
        w.add_goal_field(field(-20.0)).unwrap(),
        w.add_goal_field(field(20.0)).unwrap(),
    );
    let following = |name: &str, field| {
        GroupConfig::new(name).with(
            Behaviour::FollowField {
                field,
                params: FollowFieldParams::default(),
            },
            1.0,
        )
    };
    let groups = [
        w.add_group(following("west", west)).unwrap(),
        w.add_group(GroupConfig::new("idle")).unwrap(),
        w.add_group(following("east", east)).unwrap(),
    ];
    let ids: Vec<_> = (0..60)
        .map(|i| {
            let p = Vec2::new(-24.0 + (i % 8) as f32, -3.0 + (i / 8) as f32 * 0.8);
            w.spawn(AgentSpec::new(groups[i % 3], p).with_radius(0.3))
                .unwrap()
        })
        .collect();
    w.step(0.01).unwrap();
    for (i, &id) in ids.iter().enumerate() {
        let want = [Arrival::Arrived, Arrival::NoTarget, Arrival::Moving][i % 3];
        assert_eq!(w.arrival(id).unwrap(), want, "agent {i}");
    }
}

#[test]
fn a_congestion_aware_field_is_the_same_bits_on_any_thread_count_and_after_a_snapshot() {
    let (mut a, out) = evacuation_with(40, 1, Some((0.3, 4)));
    let (mut b, _) = evacuation_with(40, 3, Some((0.3, 4)));
    let empty = a.goal_field(out).unwrap().crowd().iter().all(|&c| c == 0);
    assert!(empty, "counted before any tick");
    for _ in 0..30 {
        a.step(0.1).unwrap();
        b.step(0.1).unwrap();
    }
    // Counted at tick 28: the crowd is in the field now, and it costs more to cross.
    let counted: u32 = a
        .goal_field(out)
        .unwrap()
        .crowd()
        .iter()
        .map(|&c| u32::from(c))
        .sum();
    assert!(counted > 0);
    assert_eq!(a.state_hash(), b.state_hash());
    // A snapshot between two rebuilds carries the last count.
    let bytes = a.snapshot().to_bytes().unwrap();
    let mut c =
        World::from_snapshot(throng::prelude::Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    assert_eq!(
        c.goal_field(out).unwrap().crowd(),
        a.goal_field(out).unwrap().crowd()
    );
    for _ in 0..50 {
        a.step(0.1).unwrap();
        c.step(0.1).unwrap();
    }
    assert_eq!(a.state_hash(), c.state_hash());
}
