//! Interpose, hide and offset pursuit (Buckland ch. 3).
//!
//! Buckland's versions end with his `Arrive(target, fast)`, whose desired speed is
//! `distance / (deceleration * 0.3)` capped at the maximum speed (`fast` = 1). That
//! is the engine's [`arrive`] with a slowing radius of
//! `max_speed * deceleration_time`; [`arrive_in_time`] spells it that way.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::leader::LeaderView;
use super::targeting::{arrive, evade, ArriveParams, EvadeParams, Motion};
use super::AgentState;
use crate::math::{normalize_or, normalize_or_zero, perp_right, EPS_LEN};
use crate::scene::{Obstacle, ObstacleIndex};

/// Buckland's `DecelerationTweaker * fast` (seconds): the default deceleration
/// time of the behaviours here.
pub const FAST_DECELERATION_TIME: f32 = 0.3;

/// Buckland's arrive: desired speed `min(distance / deceleration_time, max_speed)`
/// toward `target` (so the agent would take about `deceleration_time` seconds to
/// get there at the current desired speed, once close). A non-positive or NaN
/// time means no slowing down. At the target, brakes (`-vel`).
#[must_use]
pub fn arrive_in_time(me: &AgentState, target: Vec2, deceleration_time: f32) -> Vec2 {
    let slowing_radius = me.max_speed * deceleration_time;
    let p = ArriveParams {
        slowing_radius: if slowing_radius > 0.0 {
            slowing_radius
        } else {
            0.0
        },
        ..ArriveParams::default()
    };
    arrive(me, target, &p)
}

/// Parameters of [`interpose`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InterposeParams {
    /// Deceleration time of the final arrive (seconds). Default 0.3, Buckland's
    /// `fast`.
    pub deceleration_time: f32,
}

impl Default for InterposeParams {
    fn default() -> Self {
        Self {
            deceleration_time: FAST_DECELERATION_TIME,
        }
    }
}

/// Interpose (Buckland): get between `a` and `b`. Take the midpoint now, the time
/// `T` to reach it at maximum speed, predict both bodies `T` ahead, and arrive at
/// the midpoint of the predictions. An agent that cannot move uses `T = 0`.
#[must_use]
pub fn interpose(me: &AgentState, a: &Motion, b: &Motion, params: &InterposeParams) -> Vec2 {
    let mid_now = (a.pos + b.pos) * 0.5;
    let time = if me.max_speed > EPS_LEN {
        me.pos.distance(mid_now) / me.max_speed
    } else {
        0.0
    };
    let time = if time.is_finite() { time } else { 0.0 };
    let mid = (a.pos + a.vel * time + b.pos + b.vel * time) * 0.5;
    arrive_in_time(me, mid, params.deceleration_time)
}

/// Parameters of [`hide`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HideParams {
    /// How far beyond an obstacle's boundary the hiding spot lies (units).
    /// Default 3: Buckland's `DistanceFromBoundary` 30 at his scale, ÷10.
    pub distance_from_boundary: f32,
    /// Only obstacles within this distance of the agent (plus their radius) are
    /// considered (units). Buckland considers every obstacle; a radius lets the
    /// index bound the work. Default 20; `inf` considers all.
    pub search_radius: f32,
    /// Deceleration time of the arrive at the hiding spot (seconds). Default 0.3,
    /// Buckland's `fast`.
    pub deceleration_time: f32,
    /// How to evade the hunter when there is nowhere to hide. Default: always.
    pub evade: EvadeParams,
}

impl Default for HideParams {
    fn default() -> Self {
        Self {
            distance_from_boundary: 3.0,
            search_radius: 20.0,
            deceleration_time: FAST_DECELERATION_TIME,
            evade: EvadeParams::default(),
        }
    }
}

/// Buckland's `GetHidingPosition`: the point `radius + distance_from_boundary`
/// from the obstacle's centre on the far side from the hunter,
/// `centre + normalize(centre - hunter) * (radius + distance_from_boundary)`. When
/// the hunter stands on the centre, the direction from the centre to `me`, or
/// failing that `fallback_dir`, is used.
#[must_use]
pub fn hiding_spot(
    obstacle: &Obstacle,
    hunter: Vec2,
    me: Vec2,
    fallback_dir: Vec2,
    distance_from_boundary: f32,
) -> Vec2 {
    let c = obstacle.centre();
    let dir = normalize_or(
        c - hunter,
        normalize_or(me - c, normalize_or_zero(fallback_dir)),
    );
    c + dir * (obstacle.radius() + distance_from_boundary)
}

fn hide_with(
    me: &AgentState,
    hunter: &Motion,
    params: &HideParams,
    for_each_candidate: impl FnOnce(&mut dyn FnMut(u32, &Obstacle)),
) -> Vec2 {
    let fwd = me.forward();
    let mut best: Option<(f32, u32, Vec2)> = None;
    for_each_candidate(&mut |i, o| {
        let spot = hiding_spot(o, hunter.pos, me.pos, fwd, params.distance_from_boundary);
        let d_sq = spot.distance_squared(me.pos);
        let better = match best {
            None => d_sq.is_finite(),
            Some((bd, bi, _)) => d_sq < bd || (d_sq == bd && i < bi),
        };
        if better {
            best = Some((d_sq, i, spot));
        }
    });
    match best {
        Some((_, _, spot)) => arrive_in_time(me, spot, params.deceleration_time),
        None => evade(me, hunter, &params.evade),
    }
}

/// Hide (Buckland) behind the obstacles of `obstacles` within `search_radius`:
/// arrive at the nearest hiding spot (see [`hiding_spot`]; ties to the lower
/// obstacle index), or evade the hunter when there is no obstacle near.
#[must_use]
pub fn hide(
    me: &AgentState,
    hunter: &Motion,
    obstacles: &ObstacleIndex,
    params: &HideParams,
) -> Vec2 {
    hide_with(me, hunter, params, |f| {
        obstacles.for_each_near(me.pos, params.search_radius, |i, o| f(i, o));
    })
}

/// [`hide`] over a plain slice (same result as the indexed version).
#[must_use]
pub fn hide_among(
    me: &AgentState,
    hunter: &Motion,
    obstacles: &[Obstacle],
    params: &HideParams,
) -> Vec2 {
    hide_with(me, hunter, params, |f| {
        if params.search_radius.is_nan() || params.search_radius < 0.0 {
            return;
        }
        for (i, o) in obstacles.iter().enumerate() {
            let reach = params.search_radius + o.radius();
            if (o.centre() - me.pos).length_squared() <= reach * reach {
                f(i as u32, o);
            }
        }
    })
}

/// Parameters of [`offset_pursuit`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OffsetPursuitParams {
    /// Deceleration time of the arrive at the offset point (seconds). Default 0.3,
    /// Buckland's `fast`.
    pub deceleration_time: f32,
}

impl Default for OffsetPursuitParams {
    fn default() -> Self {
        Self {
            deceleration_time: FAST_DECELERATION_TIME,
        }
    }
}

/// The world position of `offset` given in the leader's local frame
/// (x = right, y = forward): `leader.pos + right * offset.x + forward * offset.y`.
#[must_use]
pub fn offset_to_world(leader: &LeaderView, offset: Vec2) -> Vec2 {
    let fwd = leader.forward();
    leader.body.pos + perp_right(fwd) * offset.x + fwd * offset.y
}

/// Offset pursuit (Buckland): keep station at `offset` (leader's local frame,
/// x = right, y = forward). Look ahead `distance / (max_speed + leader speed)` and
/// arrive at the offset point advanced by the leader's velocity for that time.
#[must_use]
pub fn offset_pursuit(
    me: &AgentState,
    leader: &LeaderView,
    offset: Vec2,
    params: &OffsetPursuitParams,
) -> Vec2 {
    let point = offset_to_world(leader, offset);
    let speeds = me.max_speed + leader.body.vel.length();
    let look_ahead = if speeds > EPS_LEN {
        me.pos.distance(point) / speeds
    } else {
        0.0
    };
    let look_ahead = if look_ahead.is_finite() {
        look_ahead
    } else {
        0.0
    };
    arrive_in_time(
        me,
        point + leader.body.vel * look_ahead,
        params.deceleration_time,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    fn agent(pos: Vec2, max_speed: f32) -> AgentState {
        AgentState {
            pos,
            max_speed,
            ..AgentState::default()
        }
    }

    fn body(pos: Vec2, vel: Vec2) -> Motion {
        Motion { pos, vel }
    }

    #[test]
    fn arrive_in_time_is_bucklands_fast_arrive() {
        // Target 0.15 away, max speed 2, time 0.3: speed min(0.15/0.3, 2) = 0.5.
        let me = agent(Vec2::ZERO, 2.0);
        assert!(close(arrive_in_time(&me, v(0.15, 0.0), 0.3), v(0.5, 0.0)));
        // Far: capped at 2.
        assert!(close(arrive_in_time(&me, v(10.0, 0.0), 0.3), v(2.0, 0.0)));
        // No slowing for a zero or NaN time.
        assert!(close(
            arrive_in_time(&me, v(0.15, 0.0), f32::NAN),
            v(2.0, 0.0)
        ));
    }

    #[test]
    fn interpose_hand_worked() {
        // A (0,0) and B (10,0), both moving (0,2); me at (5,5), max speed 1.
        // Midpoint now (5,0), 5 away: T = 5. Predicted A (0,10), B (10,10):
        // midpoint (5,10), 5 away (> slowing radius 0.3): desired (0,1).
        let me = agent(v(5.0, 5.0), 1.0);
        let a = body(v(0.0, 0.0), v(0.0, 2.0));
        let b = body(v(10.0, 0.0), v(0.0, 2.0));
        let f = interpose(&me, &a, &b, &InterposeParams::default());
        assert!(close(f, v(0.0, 1.0)), "{f}");
        // Still bodies: the midpoint (5,0) itself: desired (0,-1).
        let f = interpose(
            &me,
            &body(a.pos, Vec2::ZERO),
            &body(b.pos, Vec2::ZERO),
            &Default::default(),
        );
        assert!(close(f, v(0.0, -1.0)), "{f}");
        // An agent that cannot move, coincident bodies: finite.
        let stuck = agent(v(5.0, 5.0), 0.0);
        assert!(interpose(&stuck, &a, &a, &Default::default()).is_finite());
    }

    #[test]
    fn hide_hand_worked() {
        // Hunter at the origin; obstacle (10,0) radius 2; spot (10,0) + (1,0) * (2 + 3)
        // = (15,0). Me at (15,4), max speed 1: 4 away, desired (0,-1).
        let me = agent(v(15.0, 4.0), 1.0);
        let hunter = body(Vec2::ZERO, Vec2::ZERO);
        let obs = [Obstacle::new(v(10.0, 0.0), 2.0).unwrap()];
        let spot = hiding_spot(&obs[0], hunter.pos, me.pos, Vec2::Y, 3.0);
        assert_eq!(spot, v(15.0, 0.0));
        let p = HideParams::default();
        let f = hide_among(&me, &hunter, &obs, &p);
        assert!(close(f, v(0.0, -1.0)), "{f}");
        let idx = ObstacleIndex::new(&obs).unwrap();
        assert_eq!(hide(&me, &hunter, &idx, &p), f);
    }

    #[test]
    fn hide_picks_the_nearest_spot() {
        // Obstacles (10,0) r 2 -> spot (15,0) and (0,10) r 1 -> spot (0,14).
        // Me at (3,12): 12.37 to (15,0), 3.61 to (0,14): hide at (0,14).
        let me = agent(v(3.0, 12.0), 1.0);
        let hunter = body(Vec2::ZERO, Vec2::ZERO);
        let obs = [
            Obstacle::new(v(10.0, 0.0), 2.0).unwrap(),
            Obstacle::new(v(0.0, 10.0), 1.0).unwrap(),
        ];
        let f = hide_among(&me, &hunter, &obs, &HideParams::default());
        assert!(close(f, v(-3.0, 2.0).normalize()), "{f}");
    }

    #[test]
    fn nowhere_to_hide_evades() {
        // The only obstacle is 100 away (search radius 20): evade the hunter at
        // (0,-4), still: flee from it, (0,1) * max speed.
        let me = agent(Vec2::ZERO, 1.0);
        let hunter = body(v(0.0, -4.0), Vec2::ZERO);
        let obs = [Obstacle::new(v(100.0, 0.0), 1.0).unwrap()];
        let p = HideParams::default();
        let f = hide_among(&me, &hunter, &obs, &p);
        assert!(close(f, v(0.0, 1.0)), "{f}");
        assert_eq!(
            hide(&me, &hunter, &ObstacleIndex::new(&obs).unwrap(), &p),
            f
        );
        assert_eq!(hide_among(&me, &hunter, &[], &p), f);
    }

    #[test]
    fn hide_degenerate_inputs_are_finite() {
        // Hunter on an obstacle's centre; me on it too; coincident obstacles.
        let obs = [
            Obstacle::new(v(1.0, 1.0), 1.0).unwrap(),
            Obstacle::new(v(1.0, 1.0), 1.0).unwrap(),
        ];
        let hunter = body(v(1.0, 1.0), Vec2::ZERO);
        for pos in [v(1.0, 1.0), v(3.0, 1.0)] {
            let f = hide_among(&agent(pos, 1.0), &hunter, &obs, &HideParams::default());
            assert!(f.is_finite() && f != Vec2::ZERO, "{f}");
        }
        // Me at (3,1), hunter on the centre: spot on my side, (1,1) + (1,0) * 4 = (5,1).
        assert_eq!(
            hiding_spot(&obs[0], v(1.0, 1.0), v(3.0, 1.0), Vec2::Y, 3.0),
            v(5.0, 1.0)
        );
    }

    #[test]
    fn offset_pursuit_hand_worked() {
        // Leader at the origin moving (0,2): forward +y, right +x. Offset (1,-2)
        // (1 right, 2 behind) is (1,-2) in the world. Me at (1,-6), max speed 2:
        // 4 away, look-ahead 4 / (2 + 2) = 1, target (1,-2) + (0,2) = (1,0),
        // 6 away (> 0.6): desired (0,2).
        let me = agent(v(1.0, -6.0), 2.0);
        let l = LeaderView {
            body: body(Vec2::ZERO, v(0.0, 2.0)),
            heading: 0.0,
        };
        assert!(close(offset_to_world(&l, v(1.0, -2.0)), v(1.0, -2.0)));
        let f = offset_pursuit(&me, &l, v(1.0, -2.0), &OffsetPursuitParams::default());
        assert!(close(f, v(0.0, 2.0)), "{f}");
        // Leader moving +x: right is -y; offset (1,-2) -> (-2,-1).
        let l2 = LeaderView {
            body: body(Vec2::ZERO, v(3.0, 0.0)),
            heading: 0.0,
        };
        assert!(close(offset_to_world(&l2, v(1.0, -2.0)), v(-2.0, -1.0)));
        // Still leader: its heading (π/2, +x) sets the frame; same point.
        let l3 = LeaderView {
            body: body(Vec2::ZERO, Vec2::ZERO),
            heading: std::f32::consts::FRAC_PI_2,
        };
        assert!(close(offset_to_world(&l3, v(1.0, -2.0)), v(-2.0, -1.0)));
        // Nobody can move, on the spot: finite.
        let stuck = agent(v(-2.0, -1.0), 0.0);
        assert!(offset_pursuit(&stuck, &l3, v(1.0, -2.0), &Default::default()).is_finite());
    }
}
