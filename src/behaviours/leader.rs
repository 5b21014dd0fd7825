//! Leader following (the leader-following tutorial).
//!
//! ```text
//! tv     = normalize(leader.velocity) * LEADER_BEHIND_DIST
//! ahead  = leader.position + tv
//! behind = leader.position - tv
//! force  = 0
//! if distance(ahead, me) <= LEADER_SIGHT_RADIUS or distance(leader.position, me) <= LEADER_SIGHT_RADIUS:
//!     force += evade(leader)
//! force += arrive(behind, slowing_radius = 50)
//! force += separation()
//! ```
//!
//! The sum is returned as is; the combiner truncates it to the maximum force.
//! A leader standing still has no velocity to normalise; its heading gives the
//! direction instead, so the points stay finite and don't jump about.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::flocking::{separation, Neighbour, SeparationParams};
use super::targeting::{arrive, evade, ArriveParams, EvadeParams, Motion};
use super::AgentState;
use crate::math::{heading_to_vec, normalize_or};

/// What followers know of their leader: its body, and its heading for when it
/// stands still.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LeaderView {
    /// Position and velocity.
    pub body: Motion,
    /// Heading, radians clockwise from +y (see [`crate::math`]).
    pub heading: f32,
}

impl LeaderView {
    /// Unit forward direction: the normalised velocity, or the heading when the
    /// leader is (nearly) still.
    #[must_use]
    pub fn forward(&self) -> Vec2 {
        normalize_or(self.body.vel, heading_to_vec(self.heading))
    }
}

/// Whether a follower is in the leader's way (computed by
/// [`in_leader_sight`]; `true.into()` is [`LeaderSight::InSight`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaderSight {
    /// Within the sight radius of the leader or of its ahead point: step aside.
    InSight,
    /// Out of the leader's way.
    OutOfSight,
}

impl From<bool> for LeaderSight {
    fn from(in_sight: bool) -> Self {
        if in_sight {
            Self::InSight
        } else {
            Self::OutOfSight
        }
    }
}

/// Parameters of [`leader_follow`] (the leader-following tutorial's constants).
/// Defaults suit the default body (radius 0.5); the tutorial's own values, in its
/// pixels, are [`LeaderParams::tutorial`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LeaderParams {
    /// `LEADER_BEHIND_DIST`: distance of the behind and ahead points from the
    /// leader (units). Default 4 (the tutorial series' source: 30 pixels).
    pub behind_distance: f32,
    /// `LEADER_SIGHT_RADIUS` (units). Default 2.5 (the tutorial: 30 pixels).
    pub sight_radius: f32,
    /// Slowing radius of the arrive at the behind point (units). Default 6 (the
    /// tutorial's `arrive(behind, 50)`, in pixels).
    pub slowing_radius: f32,
    /// How the follower evades the leader when in its sight. Default: always
    /// (infinite threat range), as in the tutorial.
    pub evade: EvadeParams,
}

impl LeaderParams {
    /// Parameters for bodies of radius about 0.5: the defaults.
    #[deprecated(note = "the defaults are at agent scale now: use `LeaderParams::default()`")]
    #[must_use]
    pub fn agent_scale() -> Self {
        Self::default()
    }

    /// The tutorial's values, in its pixels: behind distance 30, sight radius 30,
    /// slowing radius 50.
    #[must_use]
    pub fn tutorial() -> Self {
        Self {
            behind_distance: 30.0,
            sight_radius: 30.0,
            slowing_radius: 50.0,
            ..Self::default()
        }
    }
}

impl Default for LeaderParams {
    fn default() -> Self {
        Self {
            behind_distance: 4.0,
            sight_radius: 2.5,
            slowing_radius: 6.0,
            evade: EvadeParams::default(),
        }
    }
}

/// The point `behind_distance` behind the leader: `leader.pos - forward * behind`.
#[must_use]
pub fn behind_point(leader: &LeaderView, params: &LeaderParams) -> Vec2 {
    leader.body.pos - leader.forward() * params.behind_distance
}

/// The point `behind_distance` ahead of the leader: `leader.pos + forward * behind`.
#[must_use]
pub fn ahead_point(leader: &LeaderView, params: &LeaderParams) -> Vec2 {
    leader.body.pos + leader.forward() * params.behind_distance
}

/// The leader-following tutorial's `isOnLeaderSight`: within `sight_radius` of the leader's ahead
/// point or of the leader itself.
#[must_use]
pub fn in_leader_sight(me_pos: Vec2, leader_pos: Vec2, ahead: Vec2, params: &LeaderParams) -> bool {
    let r_sq = params.sight_radius * params.sight_radius;
    me_pos.distance_squared(ahead) <= r_sq || me_pos.distance_squared(leader_pos) <= r_sq
}

/// The leader-following tutorial's `followLeader`: `evade(leader)` when in its sight, plus
/// `arrive(behind, slowing_radius)`, plus `separation(followers)` (the other
/// followers near this one; `my_slot` breaks ties between coincident agents).
#[must_use]
pub fn leader_follow(
    me: &AgentState,
    my_slot: u32,
    leader: &LeaderView,
    sight: LeaderSight,
    followers: &[Neighbour],
    separation_params: &SeparationParams,
    params: &LeaderParams,
) -> Vec2 {
    let mut force = Vec2::ZERO;
    if sight == LeaderSight::InSight {
        force += evade(me, &leader.body, &params.evade);
    }
    let arrive_params = ArriveParams {
        slowing_radius: params.slowing_radius,
        ..ArriveParams::default()
    };
    force += arrive(me, behind_point(leader, params), &arrive_params);
    force += separation(me, my_slot, followers, separation_params);
    force
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::flocking::SeparationKind;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-4
    }

    fn leader(pos: Vec2, vel: Vec2, heading: f32) -> LeaderView {
        LeaderView {
            body: Motion { pos, vel },
            heading,
        }
    }

    #[test]
    fn behind_and_ahead_points() {
        // Velocity (0,2): tv = (0,1) * 30. Ahead (0,30), behind (0,-30).
        let l = leader(Vec2::ZERO, v(0.0, 2.0), 0.0);
        let p = LeaderParams::tutorial();
        assert!(close(ahead_point(&l, &p), v(0.0, 30.0)));
        assert!(close(behind_point(&l, &p), v(0.0, -30.0)));
        // Still leader with heading π/2 (facing +x): behind (-30,0), finite.
        let l = leader(v(1.0, 1.0), Vec2::ZERO, std::f32::consts::FRAC_PI_2);
        assert!(close(behind_point(&l, &p), v(-29.0, 1.0)));
        assert!(close(ahead_point(&l, &p), v(31.0, 1.0)));
    }

    #[test]
    fn sight_test() {
        let p = LeaderParams::tutorial();
        let (lead, ahead) = (Vec2::ZERO, v(0.0, 30.0));
        // (5,20): |(5,-10)| = 11.18 to the ahead point.
        assert!(in_leader_sight(v(5.0, 20.0), lead, ahead, &p));
        // (0,-25): 25 from the leader.
        assert!(in_leader_sight(v(0.0, -25.0), lead, ahead, &p));
        // (40,0): 40 from the leader, 50 from the ahead point.
        assert!(!in_leader_sight(v(40.0, 0.0), lead, ahead, &p));
        assert_eq!(LeaderSight::from(true), LeaderSight::InSight);
    }

    #[test]
    fn follow_hand_worked() {
        // Follower at (0,-80), still, max speed 2; leader at the origin moving (0,2).
        // Behind (0,-30) is 50 away = slowing radius: speed 2 * 50/50 = 2,
        // desired (0,2). Out of sight (80 and 110 away); no followers.
        let me = AgentState {
            pos: v(0.0, -80.0),
            max_speed: 2.0,
            ..AgentState::default()
        };
        let l = leader(Vec2::ZERO, v(0.0, 2.0), 0.0);
        let p = LeaderParams::default();
        let s = SeparationParams::default();
        let f = leader_follow(&me, 1, &l, LeaderSight::OutOfSight, &[], &s, &p);
        assert!(close(f, v(0.0, 2.0)), "{f}");
        // In sight adds evade: look-ahead 80 / (2 + 2) = 20, leader predicted at
        // (0,40); flee from it: (0,-1) * 2. Sum (0,0).
        let f = leader_follow(&me, 1, &l, LeaderSight::InSight, &[], &s, &p);
        assert!(close(f, Vec2::ZERO), "{f}");
        // Separation (the leader-following tutorial's average form, MAX_SEPARATION 2) from a follower at
        // (3,-80): -(3,0) normalised * 2 = (-2,0).
        let n = Neighbour::new(v(3.0, -80.0), Vec2::ZERO, 2);
        let avg = SeparationParams {
            kind: SeparationKind::Average,
            ..s
        };
        let f = leader_follow(&me, 1, &l, LeaderSight::OutOfSight, &[n], &avg, &p);
        assert!(close(f, v(-2.0, 2.0)), "{f}");
    }

    #[test]
    fn degenerate_inputs_are_finite() {
        let p = LeaderParams::default();
        let s = SeparationParams::default();
        // Follower on top of a still leader, a coincident follower.
        let me = AgentState::default();
        let l = leader(Vec2::ZERO, Vec2::ZERO, 1.0);
        let n = Neighbour::new(Vec2::ZERO, Vec2::ZERO, 9);
        let f = leader_follow(&me, 1, &l, LeaderSight::InSight, &[n], &s, &p);
        assert!(f.is_finite(), "{f}");
        assert!(behind_point(&l, &p).is_finite());
    }
}
