//! Gameplay queries against brute force over the current positions, after ticks,
//! spawns, despawns and moved agents.
mod common;

use glam::Vec2;
use throng::spatial::IndexKind;
use throng::{AgentId, AgentSpec, GroupId, ThrongError, World};

/// Every agent within `r` of `p` (of `group`), nearest first, ties by handle.
fn brute(w: &World, p: Vec2, r: f32, group: Option<GroupId>) -> Vec<AgentId> {
    let mut v: Vec<(f32, AgentId)> = w
        .ids()
        .iter()
        .map(|&id| (w.position(id).unwrap().distance_squared(p), id))
        .filter(|&(d2, id)| d2 <= r * r && group.is_none_or(|g| w.agent_group(id).unwrap() == g))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    v.into_iter().map(|(_, id)| id).collect()
}

fn check(w: &World, round: u32) {
    let mut out = Vec::new();
    let g0 = w.agent_group(w.ids()[0]).unwrap();
    for k in 0..60u32 {
        let p = w.positions()[(k as usize * 37 + round as usize) % w.len()]
            + Vec2::new(k as f32 * 0.1, -0.3);
        let r = [0.0, 0.5, 2.0, 7.5, 30.0][k as usize % 5];
        let group = (k % 3 == 0).then_some(g0);
        w.agents_within(p, r, group, &mut out).unwrap();
        assert_eq!(
            out,
            brute(w, p, r, group),
            "round {round} point {p} radius {r}"
        );
        let all = brute(w, p, f32::MAX, None);
        let except = all.first().copied();
        let nearest = w.nearest_agent(p, f32::INFINITY, except).unwrap();
        assert_eq!(nearest, all.get(1).copied(), "round {round}");
        let within = w.nearest_agent(p, r, None).unwrap();
        assert_eq!(within, brute(w, p, r, None).first().copied());
        let id = w.ids()[(k as usize * 11) % w.len()];
        w.neighbours_of(id, &mut out).unwrap();
        let cfg = w.group(w.agent_group(id).unwrap()).unwrap();
        let expect: Vec<AgentId> = brute(w, w.position(id).unwrap(), cfg.neighbour_radius, None)
            .into_iter()
            .filter(|&o| o != id)
            .take(cfg.max_neighbours)
            .collect();
        assert_eq!(out, expect);
    }
}

#[test]
fn queries_equal_brute_force_on_current_positions() {
    for index in [IndexKind::KdTree, IndexKind::Grid] {
        let (mut w, ids) = common::flock(3_000, 4, index);
        for round in 0..4 {
            check(&w, round);
            w.step(1.0 / 30.0).unwrap();
            check(&w, round + 10);
            // Changes between ticks show at once.
            w.despawn(ids[round as usize * 5]).unwrap();
            let g = w.agent_group(w.ids()[0]).unwrap();
            let newcomer = w.spawn(AgentSpec::new(g, Vec2::new(1.0, 2.0))).unwrap();
            let moved = w.ids()[100];
            w.set_position(moved, Vec2::new(1.0, 2.5)).unwrap();
            let mut out = Vec::new();
            w.agents_within(Vec2::new(1.0, 2.0), 0.6, None, &mut out)
                .unwrap();
            assert!(out.contains(&newcomer) && out.contains(&moved), "{out:?}");
            assert!(!out.contains(&ids[round as usize * 5]));
            check(&w, round + 20);
        }
    }
}

#[test]
fn bad_queries_are_refused() {
    let (w, ids) = common::flock(50, 1, IndexKind::Grid);
    let mut out = Vec::new();
    assert!(w.agents_within(Vec2::NAN, 1.0, None, &mut out).is_err());
    assert!(w.agents_within(Vec2::ZERO, -1.0, None, &mut out).is_err());
    assert!(w
        .agents_within(Vec2::ZERO, f32::NAN, None, &mut out)
        .is_err());
    // Infinity is everywhere, as for `nearest_agent`: every agent, nearest first.
    w.agents_within(Vec2::ZERO, f32::INFINITY, None, &mut out)
        .unwrap();
    assert_eq!(out.len(), 50);
    assert_eq!(
        Some(out[0]),
        w.nearest_agent(Vec2::ZERO, f32::INFINITY, None).unwrap()
    );
    let d = |id| w.position(id).unwrap().length();
    assert!(out.windows(2).all(|p| d(p[0]) <= d(p[1])));
    // A group of another world with more groups than this one has.
    let mut other = World::default();
    other.add_group(throng::GroupConfig::new("a")).unwrap();
    let unknown = other.add_group(throng::GroupConfig::new("b")).unwrap();
    assert_eq!(w.groups().count(), 1);
    assert!(matches!(
        w.agents_within(Vec2::ZERO, 1.0, Some(unknown), &mut out),
        Err(ThrongError::ForeignGroup(_))
    ));
    assert!(w.nearest_agent(Vec2::ZERO, f32::NAN, None).is_err());
    assert!(w
        .nearest_agent(Vec2::new(f32::INFINITY, 0.0), 1.0, None)
        .is_err());
    let mut w = w;
    w.despawn(ids[0]).unwrap();
    assert!(matches!(
        w.neighbours_of(ids[0], &mut out),
        Err(ThrongError::UnknownAgent(_))
    ));
    // An empty world answers nothing.
    let empty = World::default();
    assert_eq!(
        empty
            .nearest_agent(Vec2::ZERO, f32::INFINITY, None)
            .unwrap(),
        None
    );
    empty
        .agents_within(Vec2::ZERO, 5.0, None, &mut out)
        .unwrap();
    assert!(out.is_empty());
}

#[test]
fn clear_line_hand_worked() {
    use throng::scene::{Obstacle, Wall};
    let v = Vec2::new;
    let mut w = World::new(throng::WorldConfig::default());
    w.set_walls(&[Wall::new(v(0.0, -1.0), v(0.0, 1.0)).unwrap()])
        .unwrap();
    w.set_obstacles(&[Obstacle::new(v(5.0, 0.0), 1.0).unwrap()])
        .unwrap();
    // Through the wall, at any radius.
    assert!(!w.clear_line(v(-2.0, 0.0), v(2.0, 0.0), 0.0).unwrap());
    // Past its end (0, 1), which is 1 from the line y = 2: clear for a body of
    // radius 0.5, not for one of 1.5.
    assert!(w.clear_line(v(-2.0, 2.0), v(2.0, 2.0), 0.5).unwrap());
    assert!(!w.clear_line(v(-2.0, 2.0), v(2.0, 2.0), 1.5).unwrap());
    // Ending on the wall touches it.
    assert!(!w.clear_line(v(-2.0, 0.5), v(0.0, 0.5), 0.0).unwrap());
    // The obstacle (centre (5, 0), radius 1): through it, and 3 beside its centre
    // (clear for radius 1, not for 2.5).
    assert!(!w.clear_line(v(3.0, 0.5), v(7.0, 0.5), 0.0).unwrap());
    assert!(w.clear_line(v(3.0, 3.0), v(7.0, 3.0), 1.0).unwrap());
    assert!(!w.clear_line(v(3.0, 3.0), v(7.0, 3.0), 2.5).unwrap());
    // A line far longer than the scene, beside it.
    assert!(w.clear_line(v(-1e30, 10.0), v(1e30, 10.0), 1.0).unwrap());
    assert!(!w.clear_line(v(-1e30, 0.0), v(1e30, 0.0), 1.0).unwrap());
    // Bad input is refused.
    assert!(w.clear_line(v(f32::NAN, 0.0), v(1.0, 0.0), 0.0).is_err());
    assert!(w.clear_line(v(0.0, 0.0), v(1.0, 0.0), -1.0).is_err());
    assert!(w
        .clear_line(v(0.0, 0.0), v(1.0, 0.0), f32::INFINITY)
        .is_err());
}
