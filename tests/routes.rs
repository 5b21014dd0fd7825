//! Per-agent paths (a route of the host's for each agent), and removing paths and
//! groups: ids stay, the pipeline reads no removed thing, snapshots keep it all.

use glam::Vec2;
use throng::behaviours::path::PathFollowParams;
use throng::group::PathId;
use throng::prelude::*;
use throng::world::Arrival;

const DT: f32 = 1.0 / 30.0;

fn follow(path: Option<PathId>) -> Behaviour {
    Behaviour::FollowPath {
        path,
        params: PathFollowParams::default(),
    }
}

fn route(points: &[(f32, f32)]) -> Path {
    Path::open(points.iter().map(|&(x, y)| Vec2::new(x, y)).collect()).unwrap()
}

/// Two walkers at the origin following the group's path east, one of them given a
/// route of its own north then east.
fn world() -> (World, AgentId, AgentId, PathId, PathId) {
    let mut w = World::default();
    let east = w.add_path(route(&[(0.0, 0.0), (20.0, 0.0)])).unwrap();
    let north = w
        .add_path(route(&[(0.0, 0.0), (0.0, 15.0), (10.0, 15.0)]))
        .unwrap();
    let g = w
        .add_group(GroupConfig::new("walkers").with(follow(Some(east)), 1.0))
        .unwrap();
    let plain = w.spawn(AgentSpec::new(g, Vec2::ZERO)).unwrap();
    let routed = w.spawn(AgentSpec::new(g, Vec2::new(0.0, 0.5))).unwrap();
    w.set_agent_path(routed, Some(north)).unwrap();
    (w, plain, routed, east, north)
}

#[test]
fn an_agent_follows_its_own_path_and_the_others_their_groups() {
    let (mut w, plain, routed, _, north) = world();
    assert_eq!(w.agent_path(routed).unwrap(), Some(north));
    assert_eq!(w.agent_path(plain).unwrap(), None);
    let mut max_x_before_turn: f32 = 0.0;
    for _ in 0..900 {
        w.step(DT).unwrap();
        let p = w.position(routed).unwrap();
        if p.y < 12.0 {
            max_x_before_turn = max_x_before_turn.max(p.x.abs());
        }
    }
    // Each at the end of its own path, having kept near it on the way.
    assert!(w.position(plain).unwrap().distance(Vec2::new(20.0, 0.0)) < 1.0);
    assert!(w.position(routed).unwrap().distance(Vec2::new(10.0, 15.0)) < 1.0);
    assert!(
        max_x_before_turn < 2.0,
        "strayed {max_x_before_turn} off the north leg"
    );
}

#[test]
fn a_group_without_a_path_moves_only_the_agents_given_one() {
    let mut w = World::default();
    let g = w
        .add_group(GroupConfig::new("routed").with(follow(None), 1.0))
        .unwrap();
    let idle = w.spawn(AgentSpec::new(g, Vec2::ZERO)).unwrap();
    let walker = w.spawn(AgentSpec::new(g, Vec2::new(5.0, 5.0))).unwrap();
    let to = w.add_path(route(&[(5.0, 5.0), (5.0, -5.0)])).unwrap();
    w.set_agent_path(walker, Some(to)).unwrap();
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    assert_eq!(w.position(idle).unwrap(), Vec2::ZERO);
    assert!(w.position(walker).unwrap().distance(Vec2::new(5.0, -5.0)) < 1.0);
    // The end of its own open path is its goal: it reports arriving there; the agent
    // with neither target nor path has no target.
    assert_eq!(w.arrival(walker).unwrap(), Arrival::Arrived);
    assert_eq!(w.arrival(idle).unwrap(), Arrival::NoTarget);
    // Taken away, the agent gets no force from the behaviour any more.
    w.set_agent_path(walker, None).unwrap();
    assert_eq!(w.agent_path(walker).unwrap(), None);
}

#[test]
fn own_paths_survive_despawns_re_sorts_and_snapshots_bitwise() {
    let (mut w, plain, routed, _, north) = world();
    let g = w.agent_group(plain).unwrap();
    // Churn around the routed agent moves its row; re-sorts move it again.
    let extra: Vec<AgentId> = (0..40)
        .map(|i| {
            w.spawn(AgentSpec::new(g, Vec2::new(i as f32 * 0.3, -3.0)))
                .unwrap()
        })
        .collect();
    for &id in extra.iter().step_by(2) {
        w.set_agent_path(id, Some(north)).unwrap();
    }
    w.despawn(plain).unwrap();
    w.despawn(extra[0]).unwrap();
    for _ in 0..70 {
        w.step(DT).unwrap();
    }
    assert_eq!(w.agent_path(routed).unwrap(), Some(north));
    for (k, &id) in extra.iter().enumerate().skip(1) {
        let want = (k % 2 == 0).then_some(north);
        assert_eq!(w.agent_path(id).unwrap(), want, "{id}");
    }
    let snap = w.snapshot();
    let bytes = snap.to_bytes().unwrap();
    let mut copy = World::from_snapshot(Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    for _ in 0..60 {
        w.step(DT).unwrap();
        copy.step(DT).unwrap();
        assert_eq!(w.state_hash(), copy.state_hash());
    }
}

#[test]
fn removing_a_path_takes_it_from_agents_but_not_from_under_a_group() {
    let (mut w, plain, routed, east, north) = world();
    let err = w.remove_path(east).unwrap_err();
    assert!(err.to_string().contains("group `walkers`"), "{err}");
    assert!(w.path(east).is_some());
    // The routed agent's own path goes; it follows its group's again.
    w.remove_path(north).unwrap();
    assert!(w.path(north).is_none());
    assert_eq!(w.agent_path(routed).unwrap(), None);
    assert!(w.remove_path(north).is_err(), "removed twice");
    assert!(w.set_agent_path(plain, Some(north)).is_err());
    let g = w.agent_group(plain).unwrap();
    let stale = GroupConfig::new("late").with(follow(Some(north)), 1.0);
    assert!(w.add_group(stale).is_err());
    // Ids are not reused; the listing skips the removed one.
    let next = w.add_path(route(&[(1.0, 1.0), (2.0, 2.0)])).unwrap();
    assert_ne!(next, north);
    let listed: Vec<PathId> = w.paths().map(|(id, _)| id).collect();
    assert_eq!(listed, vec![east, next]);
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    assert!(w.position(routed).unwrap().distance(Vec2::new(20.0, 0.0)) < 1.0);
    // A group no longer naming the path lets it go.
    w.set_group(g, GroupConfig::new("walkers").with(follow(None), 1.0))
        .unwrap();
    w.remove_path(east).unwrap();
    assert_eq!(w.paths().count(), 1);
}

#[test]
fn removing_a_group_despawns_its_agents_and_retires_its_id() {
    let (mut w, plain, routed, _, _) = world();
    let birds = w
        .add_group(GroupConfig::new("birds").with(Behaviour::Wander(WanderParams::default()), 1.0))
        .unwrap();
    let bird = w.spawn(AgentSpec::new(birds, Vec2::new(3.0, 3.0))).unwrap();
    let chaser = w
        .spawn(AgentSpec::new(birds, Vec2::new(-3.0, 3.0)).with_target(Target::Agent(plain)))
        .unwrap();
    let walkers = w.agent_group(plain).unwrap();
    w.step(DT).unwrap();
    w.remove_group(walkers).unwrap();
    assert!(!w.contains(plain) && !w.contains(routed));
    assert!(w.contains(bird) && w.contains(chaser));
    assert_eq!(w.len(), 2);
    assert!(w.group(walkers).is_none());
    assert_eq!(w.group_by_name("walkers"), None);
    assert_eq!(
        w.groups().map(|(id, _)| id).collect::<Vec<_>>(),
        vec![birds]
    );
    assert!(matches!(
        w.spawn(AgentSpec::new(walkers, Vec2::ZERO)),
        Err(ThrongError::UnknownGroup(_))
    ));
    assert!(w.set_agent_group(bird, walkers).is_err());
    assert!(w.remove_group(walkers).is_err());
    let again = w.add_group(GroupConfig::new("walkers")).unwrap();
    assert_ne!(again, walkers);
    // The snapshot keeps the removal and the ids.
    let copy = World::from_snapshot(w.snapshot()).unwrap();
    assert!(copy.group(walkers).is_none());
    assert_eq!(copy.group_by_name("walkers"), Some(again));
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    assert!(w.position(chaser).unwrap().is_finite());
}
