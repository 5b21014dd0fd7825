//! Arrival states and events in small scenes: walkers arriving report it once, an
//! agent held by a wall short of its goal becomes stuck, and the events are the same
//! on any thread count.
mod common;

use glam::Vec2;
use throng::behaviours::targeting::ArriveParams;
use throng::scene::Wall;
use throng::world::{Arrival, ArrivalEvent};
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

const DT: f32 = 1.0 / 30.0;

fn scene(threads: usize) -> (World, Vec<AgentId>, AgentId, AgentId) {
    let mut w = World::new(WorldConfig {
        seed: 3,
        ..WorldConfig::default()
    });
    w.set_thread_pool(Some(common::pool(threads)));
    let arrive = ArriveParams {
        slowing_radius: 2.0,
        ..ArriveParams::default()
    };
    let g = w
        .add_group(GroupConfig::new("walkers").with(Behaviour::Arrive(arrive), 1.0))
        .unwrap();
    // A wall across x = 20 from y = -50 to 50, with walls going on from its ends
    // (a U open to the left): no way round it that looks one wall ahead.
    let wall = |a: (f32, f32), b: (f32, f32)| Wall::new(a.into(), b.into()).unwrap();
    w.set_walls(&[
        wall((20.0, -50.0), (20.0, 50.0)),
        wall((20.0, -50.0), (0.0, -50.0)),
        wall((20.0, 50.0), (0.0, 50.0)),
    ])
    .unwrap();
    let walkers: Vec<AgentId> = (0..12)
        .map(|i| {
            let at = Vec2::new(0.0, i as f32 * 3.0);
            let spec = AgentSpec::new(g, at)
                .with_radius(0.5)
                .with_target(Target::Point(at + Vec2::new(8.0, 1.0)));
            w.spawn(spec).unwrap()
        })
        .collect();
    let blocked = w
        .spawn(
            AgentSpec::new(g, Vec2::new(15.0, -10.0))
                .with_target(Target::Point(Vec2::new(30.0, -10.0))),
        )
        .unwrap();
    let idle = w.spawn(AgentSpec::new(g, Vec2::new(-5.0, -5.0))).unwrap();
    (w, walkers, blocked, idle)
}

fn run(
    threads: usize,
) -> (
    World,
    Vec<AgentId>,
    AgentId,
    AgentId,
    Vec<(u64, ArrivalEvent)>,
) {
    let (mut w, walkers, blocked, idle) = scene(threads);
    let mut events = Vec::new();
    for _ in 0..600 {
        w.step(DT).unwrap();
        events.extend(w.arrival_events().iter().map(|&e| (w.tick(), e)));
    }
    (w, walkers, blocked, idle, events)
}

#[test]
fn walkers_arrive_once_and_a_blocked_agent_becomes_stuck() {
    let (w, walkers, blocked, idle, events) = run(1);
    for &id in &walkers {
        assert_eq!(w.arrival(id).unwrap(), Arrival::Arrived);
        let arrived: Vec<_> = events
            .iter()
            .filter(|(_, e)| e.agent == id && e.to == Arrival::Arrived)
            .collect();
        assert_eq!(arrived.len(), 1, "{id}: {arrived:?}");
        assert_eq!(arrived[0].1.from, Arrival::Moving);
    }
    assert_eq!(w.arrival(blocked).unwrap(), Arrival::Stuck);
    let stuck_at = events
        .iter()
        .find(|(_, e)| e.agent == blocked && e.to == Arrival::Stuck)
        .map(|&(t, _)| t)
        .expect("a stuck event");
    // Held at the wall after a couple of seconds, stuck five seconds later.
    assert!((150..=400).contains(&stuck_at), "stuck at tick {stuck_at}");
    assert_eq!(w.arrival(idle).unwrap(), Arrival::NoTarget);
    assert!(events.iter().all(|(_, e)| e.agent != idle));
    assert_eq!(w.arrivals().len(), w.len());
    // The same events on two threads (in a world of its own: compared by key).
    let keyed = |events: &[(u64, throng::world::ArrivalEvent)]| {
        events
            .iter()
            .map(|&(t, e)| (t, e.agent.key(), e.from, e.to))
            .collect::<Vec<_>>()
    };
    assert_eq!(keyed(&run(2).4), keyed(&events));
}

/// A target taken away and given back: one event each way, and none while the agent
/// has no target; its state follows by handle.
#[test]
fn a_target_taken_away_and_given_back_reports_each_change_once() {
    let (mut w, walkers, _, _) = scene(1);
    let a = walkers[0];
    let events_of_a = |w: &mut World| {
        w.step(DT).unwrap();
        w.arrival_events()
            .iter()
            .filter(|e| e.agent == a)
            .map(|e| (e.from, e.to))
            .collect::<Vec<_>>()
    };
    assert!(events_of_a(&mut w).is_empty());
    assert_eq!(w.arrival(a).unwrap(), Arrival::Moving);
    w.set_target(a, Target::None).unwrap();
    assert_eq!(
        events_of_a(&mut w),
        vec![(Arrival::Moving, Arrival::NoTarget)]
    );
    for _ in 0..5 {
        assert!(events_of_a(&mut w).is_empty());
        assert_eq!(w.arrival(a).unwrap(), Arrival::NoTarget);
    }
    // Given back far away: moving again, once.
    w.set_target(a, Target::Point(Vec2::new(-40.0, 0.0)))
        .unwrap();
    assert_eq!(
        events_of_a(&mut w),
        vec![(Arrival::NoTarget, Arrival::Moving)]
    );
    assert!(events_of_a(&mut w).is_empty());
    assert_eq!(w.arrival(a).unwrap(), Arrival::Moving);
}

/// An agent whose target is another agent is judged by where that agent stands after
/// the tick, wherever the two sit in the rows: followers spawned first, a runner
/// spawned after more rows than one parallel chunk holds (rows never re-sorted), on
/// one thread, so the followers' rows move before the runner's. The runner crosses a
/// unit a tick past followers standing 0.3 off its line: arrived where it is within
/// their radius after the tick, never where it is beyond the two radii they leave at.
#[test]
fn a_follower_is_judged_by_where_its_target_stands_after_the_tick() {
    let mut w = World::new(WorldConfig {
        seed: 5,
        reorder_interval: 0,
        ..WorldConfig::default()
    });
    w.set_thread_pool(Some(common::pool(1)));
    let still = w.add_group(GroupConfig::new("still")).unwrap();
    let seek = w
        .add_group(GroupConfig::new("runner").with(Behaviour::Seek, 1.0))
        .unwrap();
    let runner_start = Vec2::ZERO;
    let far = |i: usize| Vec2::new(i as f32, -500.0);
    // The runner's row is known only after it is spawned: followers get it then.
    let followers: Vec<AgentId> = (1..=20)
        .map(|i| {
            let at = Vec2::new(10.0 * i as f32, 0.3);
            w.spawn(AgentSpec::new(still, at).with_radius(0.5)).unwrap()
        })
        .collect();
    for i in 0..1500 {
        w.spawn(AgentSpec::new(still, far(i))).unwrap();
    }
    let runner = w
        .spawn(
            AgentSpec::new(seek, runner_start)
                .with_limits(1.0, 10.0, 1e3)
                .with_velocity(Vec2::new(10.0, 0.0))
                .with_target(Target::Point(Vec2::new(1e4, 0.0))),
        )
        .unwrap();
    for &f in &followers {
        w.set_target(f, Target::Agent(runner)).unwrap();
    }
    let mut arrivals = 0;
    for _ in 0..220 {
        w.step(0.1).unwrap();
        let at = w.position(runner).unwrap();
        for &f in &followers {
            let d = w.position(f).unwrap().distance(at);
            let state = w.arrival(f).unwrap();
            if d <= 0.5 {
                assert_eq!(state, Arrival::Arrived, "tick {} d {d}", w.tick());
                arrivals += 1;
            } else if d > 1.0 {
                assert_ne!(state, Arrival::Arrived, "tick {} d {d}", w.tick());
            }
        }
    }
    assert!(
        arrivals >= 15,
        "the runner came within reach {arrivals} times"
    );
}
