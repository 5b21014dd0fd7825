//! Wall avoidance with three feelers (the Reynolds/Buckland steering tutorial; Buckland ch. 3).
//!
//! The agent casts three feelers from its position: one straight ahead and two
//! along `normalize(forward * 4 ∓ right * 2)` (about 26.6 degrees either side),
//! all of length `feeler_length`. Each feeler that meets a wall contributes the
//! normal of the nearest wall it meets (on the agent's side) times its penetration,
//! `feeler_length - distance_to_hit`. The contributions are summed.
//!
//! The Reynolds/Buckland steering tutorial instead sums the three penetrations and applies that sum along the
//! normal of every wall touched: in a corner, one wall's push then carries the
//! other wall's penetration too. Here each feeler pushes only off the wall it
//! meets (see the test `corner_per_feeler_not_seed_sum`).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::AgentState;
use crate::math::{normalize_or_zero, perp_right};
use crate::scene::WallIndex;

/// Parameters of [`wall_avoidance`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WallAvoidanceParams {
    /// Length of each feeler (units). The Reynolds/Buckland steering tutorial leaves its `spinLength` unset;
    /// the default 4 is Buckland's `WallDetectionFeelerLength` (40 at his scale,
    /// ÷10 like the other distances of the engine): eight body radii at the
    /// default radius 0.5. Zero or less disables the behaviour.
    pub feeler_length: f32,
}

impl Default for WallAvoidanceParams {
    fn default() -> Self {
        Self { feeler_length: 4.0 }
    }
}

/// Unit directions of the three feelers: `[left, forward, right]`, with
/// `left = normalize(forward * 4 - right * 2)` and
/// `right = normalize(forward * 4 + right * 2)` (the Reynolds/Buckland steering tutorial), where `forward` is
/// [`AgentState::forward`] and `right` is its clockwise perpendicular.
#[must_use]
pub fn feeler_directions(me: &AgentState) -> [Vec2; 3] {
    let fwd = me.forward();
    let right = perp_right(fwd);
    [
        normalize_or_zero(fwd * 4.0 - right * 2.0),
        fwd,
        normalize_or_zero(fwd * 4.0 + right * 2.0),
    ]
}

/// Tip points of the three feelers, `[left, forward, right]`:
/// `pos + direction * feeler_length`.
#[must_use]
pub fn feelers(me: &AgentState, params: &WallAvoidanceParams) -> [Vec2; 3] {
    let len = params.feeler_length.max(0.0);
    feeler_directions(me).map(|d| me.pos + d * len)
}

/// Wall avoidance: for each feeler, the nearest wall it meets pushes along its
/// normal facing the agent with magnitude `feeler_length - distance_to_hit`; the
/// three pushes are summed. Zero when no feeler meets a wall.
#[must_use]
pub fn wall_avoidance(me: &AgentState, walls: &WallIndex, params: &WallAvoidanceParams) -> Vec2 {
    let len = params.feeler_length;
    if len.is_nan() || len <= 0.0 || !me.pos.is_finite() {
        return Vec2::ZERO;
    }
    // In open space no feeler can meet a wall: skip the three ray casts.
    if walls.clear_within(me.pos, len) {
        return Vec2::ZERO;
    }
    let mut force = Vec2::ZERO;
    for dir in feeler_directions(me) {
        if let Some(hit) = walls.ray_cast(me.pos, dir, len) {
            force += hit.normal * (len - hit.dist).max(0.0);
        }
    }
    force
}

/// Where an agent at `from` aims for its goal `to` when a wall stands between them,
/// within `reach` of it on the straight line: past the nearer end of the first wall
/// the line crosses, `clearance` beyond the end along the wall's line, so that a
/// body walks round the wall instead of pressing against it (a goal behind a
/// free-standing wall, or an agent pushed round the end of a corridor's wall).
/// Nearer means the shorter way `from -> end -> to`; an end that the line from
/// `from` cannot reach without crossing another wall (a corner, where the next wall
/// goes on) is not taken, and with neither end reachable the agent aims at `to` as
/// before: this looks one wall ahead, it is not a path search (goal fields find
/// ways through rooms and mazes). A wall farther along the line than `reach` is
/// left until the agent comes within `reach` of it (and the test's cost stays that
/// of a short line). `to` itself where nothing is in the way, and for non-finite
/// input.
#[must_use]
pub fn detour(walls: &WallIndex, from: Vec2, to: Vec2, (clearance, reach): (f32, f32)) -> Vec2 {
    let ahead = from + (to - from).clamp_length_max(reach.max(0.0));
    let Some(hit) = walls.first_crossing(from, ahead) else {
        return to;
    };
    let Some(wall) = walls.walls().get(hit.wall as usize) else {
        return to;
    };
    let along = normalize_or_zero(wall.b() - wall.a());
    let ends = [wall.a() - along * clearance, wall.b() + along * clearance];
    let way = |end: Vec2| from.distance(end) + end.distance(to);
    ends.into_iter()
        .filter(|&end| end.is_finite() && walls.first_crossing(from, end).is_none())
        .min_by(|&a, &b| way(a).total_cmp(&way(b)))
        .unwrap_or(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Wall;

    #[test]
    fn detour_hand_worked() {
        // A wall from (0, -2) to (0, 4); the agent at (-3, 0), its goal at (3, 0). The
        // ends past the wall by 0.5: (0, -2.5) and (0, 4.5). The ways: via (0, -2.5)
        // 2 * sqrt(9 + 6.25) = 7.81; via (0, 4.5) 2 * sqrt(9 + 20.25) = 10.82: the
        // lower end.
        let walls = WallIndex::new(&[wall(0.0, -2.0, 0.0, 4.0)]).unwrap();
        let (from, to) = (Vec2::new(-3.0, 0.0), Vec2::new(3.0, 0.0));
        // Clearance 0.5, looking 4 ahead on the line.
        let near = (0.5, 4.0);
        assert_eq!(detour(&walls, from, to, near), Vec2::new(0.0, -2.5));
        // The wall 3 along the line, beyond a look of 2: not yet.
        assert_eq!(detour(&walls, from, to, (0.5, 2.0)), to);
        // Nothing in the way: the goal itself.
        let clear = Vec2::new(-1.0, 3.0);
        assert_eq!(detour(&walls, from, clear, near), clear);
        // The agent standing beside the upper half: the upper end is nearer now.
        let from = Vec2::new(-0.5, 3.5);
        assert_eq!(
            detour(&walls, from, Vec2::new(0.5, 3.5), near),
            Vec2::new(0.0, 4.5)
        );
        // The lower end closed by a second wall going on from it (a corner): the line
        // to (0, -2.5) crosses it, so the upper end, even though longer.
        let walls =
            WallIndex::new(&[wall(0.0, -2.0, 0.0, 4.0), wall(-5.0, -2.0, 0.0, -2.0)]).unwrap();
        let (from, to) = (Vec2::new(-3.0, 0.0), Vec2::new(3.0, 0.0));
        assert_eq!(detour(&walls, from, to, near), Vec2::new(0.0, 4.5));
        // Both ends closed (a room): the goal, as without a detour.
        let walls = WallIndex::new(&[
            wall(0.0, -2.0, 0.0, 4.0),
            wall(-5.0, -2.0, 0.0, -2.0),
            wall(-5.0, 4.0, 0.0, 4.0),
        ])
        .unwrap();
        assert_eq!(detour(&walls, from, to, near), to);
        // Non-finite input crosses nothing.
        assert_eq!(detour(&walls, Vec2::NAN, to, near).x, to.x);
    }

    fn wall(ax: f32, ay: f32, bx: f32, by: f32) -> Wall {
        Wall::new(Vec2::new(ax, ay), Vec2::new(bx, by)).unwrap()
    }

    fn agent_at(pos: Vec2, vel: Vec2) -> AgentState {
        AgentState {
            pos,
            vel,
            ..AgentState::default()
        }
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-4
    }

    #[test]
    fn feeler_geometry() {
        // Facing +y: right = +x. Left = (-2,4)/√20 = (-0.4472, 0.8944); times
        // length 4: (-1.7889, 3.5777).
        let me = agent_at(Vec2::ZERO, Vec2::new(0.0, 3.0));
        let [l, f, r] = feelers(&me, &WallAvoidanceParams::default());
        assert!(close(f, Vec2::new(0.0, 4.0)));
        assert!(close(l, Vec2::new(-1.788_854, 3.577_709)));
        assert!(close(r, Vec2::new(1.788_854, 3.577_709)));
        // About 26.57 degrees off forward: atan(2/4).
        let ang = f.angle_to(r).abs();
        assert!((ang - 0.5f32.atan()).abs() < 1e-5);
        // Still agent: the heading (0 = +y) decides.
        let still = agent_at(Vec2::ZERO, Vec2::ZERO);
        assert!(close(
            feelers(&still, &WallAvoidanceParams::default())[1],
            Vec2::new(0.0, 4.0)
        ));
    }

    #[test]
    fn single_wall_hand_worked() {
        // Wall y = 3 (normal -y on the agent's side); facing +y from the origin.
        // Forward: hit at 3, penetration 1. Sides: hit at 3 / 0.8944 = 3.3541,
        // penetration 0.6459 each. Force = (0,-1) * (1 + 2 * 0.6459) = (0, -2.2918).
        let idx = WallIndex::new(&[wall(-10.0, 3.0, 10.0, 3.0)]).unwrap();
        let me = agent_at(Vec2::ZERO, Vec2::new(0.0, 1.0));
        let f = wall_avoidance(&me, &idx, &WallAvoidanceParams::default());
        let side_pen = 4.0 - 3.0 / (4.0 / 20f32.sqrt());
        assert!(close(f, Vec2::new(0.0, -(1.0 + 2.0 * side_pen))), "{f}");
        assert!(close(f, Vec2::new(0.0, -2.291_796)));
        // Walls are solid from both sides: same wall reversed gives the same push.
        let idx = WallIndex::new(&[wall(10.0, 3.0, -10.0, 3.0)]).unwrap();
        assert!(close(
            wall_avoidance(&me, &idx, &WallAvoidanceParams::default()),
            f
        ));
    }

    /// The Reynolds/Buckland steering tutorial's formula: the summed penetration applied along the normal of
    /// every wall any feeler touched.
    fn seed_001_force(me: &AgentState, idx: &WallIndex, len: f32) -> Vec2 {
        let mut total = 0.0;
        let mut touched: Vec<u32> = Vec::new();
        for dir in feeler_directions(me) {
            if let Some(h) = idx.ray_cast(me.pos, dir, len) {
                total += len - h.dist;
                if !touched.contains(&h.wall) {
                    touched.push(h.wall);
                }
            }
        }
        touched
            .iter()
            .map(|&w| idx.walls()[w as usize].normal_facing(me.pos) * total)
            .sum()
    }

    #[test]
    fn corner_per_feeler_not_seed_sum() {
        // Agent at the origin facing +y, feelers of length 4.
        // Wall A: y = 3 from x = -10 to 10 (normal facing us (0,-1)).
        // Wall B: x = 1 from y = -10 to 2.5 (normal facing us (-1,0)).
        // Forward (0,1): meets A at 3 -> penetration 1 along (0,-1).
        // Right (0.4472, 0.8944): meets B at x = 1, distance 1 / 0.4472 = 2.2361
        //   (y = 2.0 < 2.5, before A) -> penetration 1.7639 along (-1,0).
        // Left (-0.4472, 0.8944): meets A at 3 / 0.8944 = 3.3541 -> 0.6459 along (0,-1).
        // Ours: (-1.7639, -(1 + 0.6459)) = (-1.7639, -1.6459).
        // Seed: total 1 + 1.7639 + 0.6459 = 3.4098 along both normals = (-3.4098, -3.4098):
        // B pushes with A's penetration too, almost doubling the sideways push.
        let idx =
            WallIndex::new(&[wall(-10.0, 3.0, 10.0, 3.0), wall(1.0, -10.0, 1.0, 2.5)]).unwrap();
        let me = agent_at(Vec2::ZERO, Vec2::new(0.0, 1.0));
        let p = WallAvoidanceParams::default();
        let ours = wall_avoidance(&me, &idx, &p);
        let right_pen = 4.0 - 1.0 / (2.0 / 20f32.sqrt());
        let left_pen = 4.0 - 3.0 / (4.0 / 20f32.sqrt());
        assert!(
            close(ours, Vec2::new(-right_pen, -(1.0 + left_pen))),
            "{ours}"
        );
        assert!(close(ours, Vec2::new(-1.763_932, -1.645_898)));
        let seed = seed_001_force(&me, &idx, 4.0);
        let total = 1.0 + right_pen + left_pen;
        assert!(close(seed, Vec2::new(-total, -total)), "{seed}");
        // The seed's push off B (x) is 3.41, though only one feeler is 1.76 inside B.
        assert!((seed.x - ours.x).abs() > 1.5);
    }

    #[test]
    fn degenerate_inputs_are_finite() {
        let idx = WallIndex::new(&[wall(-10.0, 0.0, 10.0, 0.0)]).unwrap();
        let p = WallAvoidanceParams::default();
        // Exactly on the wall (in front of it), facing into it: full-length pushes.
        let me = AgentState {
            heading: std::f32::consts::PI,
            ..agent_at(Vec2::ZERO, Vec2::ZERO)
        };
        let f = wall_avoidance(&me, &idx, &p);
        assert!(f.is_finite() && f.y > 0.0, "{f}");
        // Exactly at a wall end point.
        let me = agent_at(Vec2::new(10.0, 0.0), Vec2::new(0.0, -1.0));
        assert!(wall_avoidance(&me, &idx, &p).is_finite());
        // No walls, zero or NaN feeler length, NaN position.
        let empty = WallIndex::new(&[]).unwrap();
        assert_eq!(wall_avoidance(&me, &empty, &p), Vec2::ZERO);
        let off = WallAvoidanceParams { feeler_length: 0.0 };
        assert_eq!(wall_avoidance(&me, &idx, &off), Vec2::ZERO);
        let nan = WallAvoidanceParams {
            feeler_length: f32::NAN,
        };
        assert_eq!(wall_avoidance(&me, &idx, &nan), Vec2::ZERO);
        let lost = agent_at(Vec2::NAN, Vec2::ZERO);
        assert_eq!(wall_avoidance(&lost, &idx, &p), Vec2::ZERO);
    }
}
