//! Holding a goal: arrived agents pushed off their goals come back, make way for
//! latecomers, and settle; the arrival state follows them honestly.

use glam::Vec2;
use throng::behaviours::avoidance::AvoidanceParams;
use throng::behaviours::targeting::ArriveParams;
use throng::scene::Wall;
use throng::world::Arrival;
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, GroupId, Target, World, WorldConfig};

const DT: f32 = 0.1;
/// The quality suite's body: radius 0.4, top speed 1.4, keeping up (mass 0.1, force 30).
const RADIUS: f32 = 0.4;
const TOP_SPEED: f32 = 1.4;

fn walkers(world: &mut World, name: &str) -> GroupId {
    world
        .add_group(
            GroupConfig::new(name)
                .with(
                    Behaviour::Arrive(ArriveParams {
                        slowing_radius: 1.0,
                        ..ArriveParams::default()
                    }),
                    1.0,
                )
                .neighbours(6.0, 10)
                .avoiding(AvoidanceParams::default()),
        )
        .unwrap()
}

fn walker(world: &mut World, g: GroupId, from: Vec2, to: Vec2) -> AgentId {
    let spec = AgentSpec::new(g, from)
        .with_limits(0.1, TOP_SPEED, 30.0)
        .with_radius(RADIUS)
        .with_target(Target::Point(to));
    world.spawn(spec).unwrap()
}

fn mean_speed(world: &World, ids: &[AgentId]) -> f32 {
    ids.iter()
        .map(|&id| world.velocity(id).unwrap().length())
        .sum::<f32>()
        / ids.len() as f32
}

/// The smallest distance between two of `ids` over the sum of their radii.
fn closest_pair(world: &World, ids: &[AgentId]) -> f32 {
    let pos: Vec<Vec2> = ids.iter().map(|&id| world.position(id).unwrap()).collect();
    let mut least = f32::INFINITY;
    for (i, a) in pos.iter().enumerate() {
        for b in &pos[i + 1..] {
            least = least.min(a.distance(*b) / (2.0 * RADIUS));
        }
    }
    least
}

#[test]
fn two_hundred_sent_to_one_point_settle_around_it() {
    // One goal for everyone (a rally point): the first there holds it, the others
    // queue against those nearer it and stand, instead of pushing for it forever.
    let mut w = World::new(WorldConfig::default());
    let g = walkers(&mut w, "crowd");
    let ids: Vec<AgentId> = (0..200)
        .map(|i| {
            let a = i as f32 * 0.618_034 * std::f32::consts::TAU;
            let r = 15.0 + (i % 7) as f32;
            walker(&mut w, g, Vec2::new(a.cos(), a.sin()) * r, Vec2::ZERO)
        })
        .collect();
    let mut speeds = vec![];
    // The fastest agent over the last 20 s: nobody oscillates at the goal (several
    // bodies within reach of the point do not all pull toward it).
    let mut fastest = 0.0f32;
    // Arrival changes over the last 20 s: a settled crowd's states do not flicker.
    let mut late_changes = 0;
    for t in 1..=1200 {
        w.step(DT).unwrap();
        if t % 100 == 0 {
            speeds.push(mean_speed(&w, &ids));
        }
        if t > 1000 {
            let top = ids.iter().map(|&id| w.velocity(id).unwrap().length());
            fastest = top.fold(fastest, f32::max);
            late_changes += w.arrival_events().len();
        }
    }
    assert_eq!(late_changes, 0);
    assert!(fastest < 0.01 * TOP_SPEED, "{fastest}");
    // Settled by 40 s, and still settled at 120 s: mean speed under 1% of the top.
    assert!(
        speeds[3..].iter().all(|&s| s < 0.01 * TOP_SPEED),
        "{speeds:?}"
    );
    // Packed around the point, not scattered: everyone within 12 of it (200 bodies
    // of radius 0.4 fill a disc of radius 6 at most density).
    let far = ids
        .iter()
        .map(|&id| w.position(id).unwrap().length())
        .fold(0.0f32, f32::max);
    assert!(far < 12.0, "{far}");
    assert!(closest_pair(&w, &ids) > 0.5);
    // What they report: the one on the point has arrived (with any others within
    // their radius of it), the rest are queued, standing still for over a minute
    // without being called stuck.
    let count = |state: Arrival| {
        ids.iter()
            .filter(|&&id| w.arrival(id).unwrap() == state)
            .count()
    };
    let (arrived, queued) = (count(Arrival::Arrived), count(Arrival::Queued));
    assert!((1..=3).contains(&arrived), "{arrived}");
    assert_eq!(arrived + queued, ids.len());
}

#[test]
fn a_squad_at_its_rally_point_returns_to_its_places_after_a_crowd_passes_through() {
    let mut w = World::new(WorldConfig::default());
    let squad_group = walkers(&mut w, "squad");
    let crowd_group = walkers(&mut w, "crowd");
    // Twenty-five places one apart (bodies 0.8 across), the squad on them.
    let places: Vec<Vec2> = (0..25)
        .map(|i| Vec2::new((i % 5) as f32 - 2.0, (i / 5) as f32 - 2.0))
        .collect();
    let squad: Vec<AgentId> = places
        .iter()
        .map(|&p| walker(&mut w, squad_group, p, p))
        .collect();
    // Forty walkers from the west through the squad to places as far east.
    let crowd: Vec<AgentId> = (0..40)
        .map(|i| {
            let y = (i % 8) as f32 - 3.5;
            let x = -14.0 - (i / 8) as f32 * 1.2;
            walker(&mut w, crowd_group, Vec2::new(x, y), Vec2::new(-x, y))
        })
        .collect();
    let off = |w: &World| {
        squad
            .iter()
            .zip(&places)
            .filter(|&(&id, &p)| w.position(id).unwrap().distance(p) > RADIUS + 0.5)
            .count()
    };
    let mut most_off = 0;
    for _ in 0..1200 {
        w.step(DT).unwrap();
        most_off = most_off.max(off(&w));
    }
    // The crowd pushed through (some of the squad stepped well off its places) and
    // reached the far side; the squad is back on every place.
    assert!(most_off >= 5, "{most_off}");
    for &id in &crowd {
        assert_eq!(w.arrival(id).unwrap(), Arrival::Arrived);
    }
    assert_eq!(off(&w), 0);
    let all: Vec<AgentId> = squad.iter().chain(&crowd).copied().collect();
    assert!(mean_speed(&w, &all) < 0.01 * TOP_SPEED);
}

#[test]
fn a_displaced_agent_reports_leaving_and_regaining_its_goal() {
    let mut w = World::new(WorldConfig::default());
    let g = walkers(&mut w, "one");
    let goal = Vec2::new(5.0, 0.0);
    let id = walker(&mut w, g, Vec2::ZERO, goal);
    let mut seen = vec![];
    let mut record = |w: &World| {
        for e in w.arrival_events() {
            assert_eq!(e.agent, id);
            seen.push((e.from, e.to));
        }
    };
    for _ in 0..200 {
        w.step(DT).unwrap();
        record(&w);
    }
    // Pushed 3 off its goal (farther than two radii): it leaves, and walks back.
    w.set_position(id, goal + Vec2::new(0.0, 3.0)).unwrap();
    for _ in 0..200 {
        w.step(DT).unwrap();
        record(&w);
    }
    use Arrival::{Arrived, Moving};
    assert_eq!(
        seen,
        [(Moving, Arrived), (Arrived, Moving), (Moving, Arrived)]
    );
    assert!(w.position(id).unwrap().distance(goal) <= RADIUS);
}

#[test]
fn a_pair_each_on_the_others_place_trades_places_beside_a_wall() {
    // A block of places 0.97 apart above a wall, two of its lowest row empty: their
    // owners stand crossed below them, against the wall, each on the other's place.
    // `b` stands within `arrived_within` (1) of its own place without having reached
    // it: were it to step aside for `a` as an arrived holder does, while `a`, on the
    // lower slot, steps aside for it, neither would ever move (the scaled `pillars`
    // corridor ended so at a few sizes).
    let mut w = World::new(WorldConfig::default());
    w.set_walls(&[Wall::new(Vec2::new(-6.0, -0.45), Vec2::new(6.0, -0.45)).unwrap()])
        .unwrap();
    let g = walkers(&mut w, "places");
    let (goal_a, goal_b) = (Vec2::new(-0.73, 0.61), Vec2::new(0.24, 0.61));
    let a = walker(&mut w, g, Vec2::new(0.55, 0.0), goal_a);
    let b = walker(&mut w, g, Vec2::new(-0.5, 0.05), goal_b);
    let mut holders = vec![];
    for row in 0..3 {
        for col in -3..=3 {
            let p = Vec2::new(-0.73 + 0.97 * col as f32, 0.61 + 0.97 * row as f32);
            if p.distance(goal_a) > 0.1 && p.distance(goal_b) > 0.1 {
                holders.push(walker(&mut w, g, p, p));
            }
        }
    }
    assert!(w.position(b).unwrap().distance(goal_b) < 1.0);
    assert!(w.position(a).unwrap().distance(goal_b) < 2.0 * RADIUS);
    assert!(w.position(b).unwrap().distance(goal_a) < 2.0 * RADIUS);
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    for (id, goal) in [(a, goal_a), (b, goal_b)] {
        let d = w.position(id).unwrap().distance(goal);
        assert!(d <= RADIUS, "{d}");
        assert_eq!(w.arrival(id).unwrap(), Arrival::Arrived);
    }
    let all: Vec<AgentId> = [a, b].into_iter().chain(holders).collect();
    assert!(mean_speed(&w, &all) < 0.01 * TOP_SPEED);
}
