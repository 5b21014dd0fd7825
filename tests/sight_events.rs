//! Leader-sight events: each tick's list is exactly the agents whose
//! `in_sight_of` changed, through re-sorts and despawns between ticks.

use glam::Vec2;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::leader::LeaderParams;
use throng::behaviours::targeting::EvadeParams;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

#[test]
fn sight_events_are_the_changes_of_in_sight_of() {
    let mut w = World::new(WorldConfig {
        seed: 9,
        // Re-sort often, so that marks must follow their rows.
        reorder_interval: 3,
        ..WorldConfig::default()
    });
    let leaders = w
        .add_group(GroupConfig::new("leader").with(Behaviour::Seek, 1.0))
        .unwrap();
    let follow = Behaviour::LeaderFollow {
        leader: LeaderParams {
            behind_distance: 3.0,
            sight_radius: 2.0,
            slowing_radius: 5.0,
            ..LeaderParams::default()
        },
        separation: SeparationParams::default(),
    };
    let squad = w
        .add_group(GroupConfig::new("squad").with(follow, 1.0))
        .unwrap();
    let villagers = w
        .add_group(
            GroupConfig::new("villagers").with(Behaviour::GiveWay(EvadeParams::default()), 1.0),
        )
        .unwrap();
    let leader = w
        .spawn(
            AgentSpec::new(leaders, Vec2::new(-20.0, 0.0))
                .with_limits(1.0, 1.5, 4.0)
                .with_target(Target::Point(Vec2::new(20.0, 0.0))),
        )
        .unwrap();
    let mut followers: Vec<AgentId> = (0..8)
        .map(|i| {
            let at = Vec2::new(-24.0 - (i % 4) as f32, (i / 4) as f32 - 0.5);
            w.spawn(AgentSpec::new(squad, at).with_target(Target::Agent(leader)))
                .unwrap()
        })
        .collect();
    // Villagers standing on the leader's way.
    for i in 0..10 {
        let at = Vec2::new(-10.0 + 3.0 * i as f32, 0.3 * (i % 3) as f32 - 0.3);
        w.spawn(AgentSpec::new(villagers, at)).unwrap();
    }
    let sight = |w: &World| -> Vec<(AgentId, Option<AgentId>)> {
        w.ids()
            .iter()
            .map(|&id| (id, w.in_sight_of(id).unwrap()))
            .collect()
    };
    let (mut entered, mut left) = (0, 0);
    for t in 0..600 {
        if t == 200 {
            // A despawn between ticks moves a row.
            w.despawn(followers.remove(0)).unwrap();
        }
        let before: std::collections::HashMap<_, _> = sight(&w).into_iter().collect();
        w.step(1.0 / 30.0).unwrap();
        let mut expected: Vec<(AgentId, Option<AgentId>, Option<AgentId>)> = sight(&w)
            .into_iter()
            .filter_map(|(id, now)| {
                let was = before.get(&id).copied().flatten();
                (was != now).then_some((id, now, was))
            })
            .collect();
        let mut got: Vec<_> = w
            .sight_events()
            .iter()
            .map(|e| (e.agent, e.entered, e.left))
            .collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "tick {t}");
        entered += got.iter().filter(|e| e.1.is_some()).count();
        left += got.iter().filter(|e| e.2.is_some()).count();
    }
    // The leader walked through the villagers: some entered its sight and left it.
    assert!(entered >= 5 && left >= 5, "entered {entered}, left {left}");
}
