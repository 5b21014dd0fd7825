//! Obstacle avoidance with a detection box (Buckland ch. 3).
//!
//! The agent looks ahead along a box as wide as its body whose length grows with
//! speed: `box_length = min_detection_box_length * (1 + speed / max_speed)`. The
//! obstacles near enough are taken into the agent's local frame (x forward along
//! [`AgentState::forward`], y to the right, `perp_right(forward)`). Those behind
//! (`x < 0`) or whose expanded radius (obstacle + agent) does not reach the box's
//! centre line (`|y| >= expanded radius`) are discarded. Of the rest, the one whose
//! expanded circle the centre line enters first (`x - sqrt(R² - y²)`, or
//! `x + sqrt(..)` when that is behind the agent) is the threat. The force, in the
//! local frame, is
//!
//! * lateral: away from the threat's side, `(R - |y|) * multiplier` with
//!   `multiplier = 1 + (box_length - x) / box_length` (stronger for nearer
//!   threats);
//! * braking: `(R - x) * braking_weight` along forward, never positive,
//!
//! and it is turned back into world space.
//!
//! Two departures from Buckland's code, each with a test that says why:
//! Buckland's lateral term `(r - y) * multiplier` pushes *toward* an obstacle whose
//! centre lies between the centre line and its radius on the +y side (for
//! `0 < y < r` the sign is that of the obstacle's side); here the push is always
//! away from it. And his braking term `(r - x) * 0.2` turns into a forward push when
//! `x < r` (the agent already overlaps the obstacle's expanded circle), driving it
//! in; here braking is clamped at zero. Both terms use the expanded radius `R`
//! where Buckland uses the obstacle's own radius in the force.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::AgentState;
use crate::math::perp_right;
use crate::scene::{Obstacle, ObstacleIndex};

/// Parameters of [`obstacle_avoidance`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ObstacleAvoidanceParams {
    /// Length of the detection box of a still agent (units); it grows linearly to
    /// twice this at full speed. Default 4: Buckland's `MinDetectionBoxLength` 40
    /// at his scale, ÷10 like the engine's other distances. Zero or less disables
    /// the behaviour.
    pub min_detection_box_length: f32,
    /// Weight of the braking term (dimensionless). Default 0.2, Buckland's.
    pub braking_weight: f32,
}

impl Default for ObstacleAvoidanceParams {
    fn default() -> Self {
        Self {
            min_detection_box_length: 4.0,
            braking_weight: 0.2,
        }
    }
}

/// The detection box length for this agent:
/// `min_detection_box_length * (1 + speed / max_speed)`, with the speed ratio
/// clamped to `[0, 1]` (0 when `max_speed` is not positive).
#[must_use]
pub fn detection_box_length(me: &AgentState, params: &ObstacleAvoidanceParams) -> f32 {
    let ratio = if me.max_speed > 0.0 {
        (me.vel.length() / me.max_speed).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // NaN speed: clamp keeps NaN, so fall back to 0.
    let ratio = if ratio.is_nan() { 0.0 } else { ratio };
    params.min_detection_box_length * (1.0 + ratio)
}

/// The most threatening obstacle found so far.
struct Threat {
    /// Where the centre line enters its expanded circle.
    entry: f32,
    index: u32,
    local: Vec2,
    expanded: f32,
}

fn avoid(
    me: &AgentState,
    params: &ObstacleAvoidanceParams,
    for_each_candidate: impl FnOnce(f32, &mut dyn FnMut(u32, &Obstacle)),
) -> Vec2 {
    let box_len = detection_box_length(me, params);
    if box_len.is_nan() || box_len <= 0.0 || !me.pos.is_finite() {
        return Vec2::ZERO;
    }
    let fwd = me.forward();
    let right = perp_right(fwd);
    let agent_r = if me.radius > 0.0 { me.radius } else { 0.0 };
    let mut best: Option<Threat> = None;
    for_each_candidate(box_len, &mut |index, o| {
        let to = o.centre() - me.pos;
        let local = Vec2::new(to.dot(fwd), to.dot(right));
        let expanded = o.radius() + agent_r;
        if local.x < 0.0 || local.y.abs() >= expanded || local.x - expanded > box_len {
            return;
        }
        let sqrt_part = (expanded * expanded - local.y * local.y).max(0.0).sqrt();
        let mut entry = local.x - sqrt_part;
        if entry <= 0.0 {
            entry = local.x + sqrt_part;
        }
        let better = match &best {
            None => true,
            Some(b) => entry < b.entry || (entry == b.entry && index < b.index),
        };
        if better {
            best = Some(Threat {
                entry,
                index,
                local,
                expanded,
            });
        }
    });
    let Some(t) = best else {
        return Vec2::ZERO;
    };
    let multiplier = 1.0 + (box_len - t.local.x) / box_len;
    let push = (t.expanded - t.local.y.abs()) * multiplier;
    // Away from the obstacle's side; dead ahead (y == 0) steers right.
    let lateral = if t.local.y > 0.0 { -push } else { push };
    let braking = ((t.expanded - t.local.x) * params.braking_weight).min(0.0);
    fwd * braking + right * lateral
}

/// Obstacle avoidance against the obstacles of `obstacles` near the agent (those
/// within the detection box length plus their radius, as Buckland tags them).
/// Zero when nothing is in the box.
#[must_use]
pub fn obstacle_avoidance(
    me: &AgentState,
    obstacles: &ObstacleIndex,
    params: &ObstacleAvoidanceParams,
) -> Vec2 {
    avoid(me, params, |box_len, f| {
        // The threat is the least (entry, index): a repeated candidate changes nothing.
        obstacles.for_each_candidate(me.pos, box_len, |i, o| f(i, o));
    })
}

/// [`obstacle_avoidance`] over a plain slice (every obstacle is a candidate; ties
/// go to the lower index as in the indexed version). Gives the same result.
#[must_use]
pub fn obstacle_avoidance_among(
    me: &AgentState,
    obstacles: &[Obstacle],
    params: &ObstacleAvoidanceParams,
) -> Vec2 {
    avoid(me, params, |box_len, f| {
        for (i, o) in obstacles.iter().enumerate() {
            let reach = box_len + o.radius();
            if (o.centre() - me.pos).length_squared() <= reach * reach {
                f(i as u32, o);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{agent_rng, uniform};

    fn obs(x: f32, y: f32, r: f32) -> Obstacle {
        Obstacle::new(Vec2::new(x, y), r).unwrap()
    }

    fn agent(vel: Vec2) -> AgentState {
        AgentState {
            vel,
            max_speed: 4.0,
            radius: 0.5,
            ..AgentState::default()
        }
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn box_length_grows_with_speed() {
        let p = ObstacleAvoidanceParams::default();
        // Speed 2 of 4: 4 * (1 + 0.5) = 6.
        assert_eq!(detection_box_length(&agent(Vec2::new(0.0, 2.0)), &p), 6.0);
        assert_eq!(detection_box_length(&agent(Vec2::ZERO), &p), 4.0);
        // Faster than max: clamped to 8.
        assert_eq!(detection_box_length(&agent(Vec2::new(0.0, 40.0)), &p), 8.0);
        let stuck = AgentState {
            max_speed: 0.0,
            ..agent(Vec2::X)
        };
        assert_eq!(detection_box_length(&stuck, &p), 4.0);
    }

    #[test]
    fn hand_worked_obstacle_to_the_right() {
        // Agent at the origin, vel (0,2), max speed 4: box 6. Forward (0,1), right (1,0).
        // Obstacle (0.5, 3) radius 1; expanded R = 1.5. Local (x 3, y 0.5).
        // multiplier = 1 + (6 - 3)/6 = 1.5; lateral = -(1.5 - 0.5) * 1.5 = -1.5 (left);
        // braking = (1.5 - 3) * 0.2 = -0.3. World: (0,1)*-0.3 + (1,0)*-1.5 = (-1.5, -0.3).
        let me = agent(Vec2::new(0.0, 2.0));
        let o = [obs(0.5, 3.0, 1.0)];
        let idx = ObstacleIndex::new(&o).unwrap();
        let p = ObstacleAvoidanceParams::default();
        let f = obstacle_avoidance(&me, &idx, &p);
        assert!(close(f, Vec2::new(-1.5, -0.3)), "{f}");
        assert_eq!(obstacle_avoidance_among(&me, &o, &p), f);
        // Mirror: obstacle to the left pushes right.
        let f = obstacle_avoidance_among(&me, &[obs(-0.5, 3.0, 1.0)], &p);
        assert!(close(f, Vec2::new(1.5, -0.3)), "{f}");
    }

    #[test]
    fn buckland_lateral_term_would_push_toward_the_obstacle() {
        // Same case: Buckland's lateral (r - y) * multiplier = (1 - 0.5) * 1.5 = +0.75,
        // i.e. toward +x where the obstacle is. Ours points away (-x).
        let me = agent(Vec2::new(0.0, 2.0));
        let f = obstacle_avoidance_among(&me, &[obs(0.5, 3.0, 1.0)], &Default::default());
        let buckland_lateral = (1.0 - 0.5) * 1.5;
        assert!(buckland_lateral > 0.0);
        assert!(f.x < 0.0);
    }

    #[test]
    fn overlapping_agent_is_not_pushed_in() {
        // Obstacle centre 0.5 ahead, R = 1.5: Buckland's braking (r - x) * 0.2 would
        // be positive (forward, into the obstacle). Ours: min((1.5 - 0.5) * 0.2, 0) = 0.
        // Lateral: dead ahead (y = 0) steers right: R * (1 + (6 - 0.5)/6) = 2.875.
        let me = agent(Vec2::new(0.0, 2.0));
        let f = obstacle_avoidance_among(&me, &[obs(0.0, 0.5, 1.0)], &Default::default());
        assert!(close(f, Vec2::new(2.875, 0.0)), "{f}");
    }

    #[test]
    fn ignores_behind_beside_and_beyond() {
        let me = agent(Vec2::new(0.0, 2.0));
        let p = ObstacleAvoidanceParams::default();
        // Behind, beside the box (|y| = 2 >= R 1.5), beyond the box (x - R > 6).
        for o in [obs(0.0, -3.0, 1.0), obs(2.0, 3.0, 1.0), obs(0.0, 9.0, 1.0)] {
            assert_eq!(obstacle_avoidance_among(&me, &[o], &p), Vec2::ZERO);
        }
    }

    #[test]
    fn nearest_entry_wins_and_ties_go_to_lower_index() {
        // Two obstacles ahead: (0,5) and (0,3), both r 1 -> the nearer (0,3) decides:
        // local (3, 0): lateral 1.5 * 1.5 = 2.25 (right), braking -0.3.
        let me = agent(Vec2::new(0.0, 2.0));
        let p = ObstacleAvoidanceParams::default();
        let f = obstacle_avoidance_among(&me, &[obs(0.0, 5.0, 1.0), obs(0.0, 3.0, 1.0)], &p);
        assert!(close(f, Vec2::new(2.25, -0.3)), "{f}");
        // Coincident centres: finite, and the same either way round.
        let a = [obs(0.3, 3.0, 1.0), obs(0.3, 3.0, 1.0)];
        let f = obstacle_avoidance_among(&me, &a, &p);
        assert!(f.is_finite());
        assert_eq!(
            obstacle_avoidance(&me, &ObstacleIndex::new(&a).unwrap(), &p),
            f
        );
    }

    #[test]
    fn degenerate_inputs_are_finite() {
        let p = ObstacleAvoidanceParams::default();
        let o = [obs(0.0, 0.0, 1.0), obs(0.0, 0.0, 2.0)];
        // Still agent at the centre of two coincident obstacles.
        let me = agent(Vec2::ZERO);
        let f = obstacle_avoidance_among(&me, &o, &p);
        assert!(f.is_finite() && f != Vec2::ZERO, "{f}");
        // Zero radius, zero max speed, NaN position, disabled box.
        let odd = AgentState {
            radius: 0.0,
            max_speed: 0.0,
            ..agent(Vec2::new(1.0, 1.0))
        };
        assert!(obstacle_avoidance_among(&odd, &o, &p).is_finite());
        let lost = AgentState {
            pos: Vec2::NAN,
            ..agent(Vec2::ZERO)
        };
        assert_eq!(obstacle_avoidance_among(&lost, &o, &p), Vec2::ZERO);
        let off = ObstacleAvoidanceParams {
            min_detection_box_length: 0.0,
            ..p
        };
        assert_eq!(obstacle_avoidance_among(&me, &o, &off), Vec2::ZERO);
    }

    #[test]
    fn indexed_equals_slice_version() {
        let mut rng = agent_rng(31, 0);
        let o: Vec<Obstacle> = (0..300)
            .map(|_| {
                let c = Vec2::new(uniform(&mut rng, 0.0, 60.0), uniform(&mut rng, 0.0, 60.0));
                Obstacle::new(c, uniform(&mut rng, 0.3, 2.0)).unwrap()
            })
            .collect();
        let idx = ObstacleIndex::new(&o).unwrap();
        let p = ObstacleAvoidanceParams::default();
        for _ in 0..2_000 {
            let me = AgentState {
                pos: Vec2::new(uniform(&mut rng, 0.0, 60.0), uniform(&mut rng, 0.0, 60.0)),
                vel: Vec2::new(uniform(&mut rng, -4.0, 4.0), uniform(&mut rng, -4.0, 4.0)),
                ..agent(Vec2::ZERO)
            };
            assert_eq!(
                obstacle_avoidance(&me, &idx, &p),
                obstacle_avoidance_among(&me, &o, &p)
            );
        }
    }
}
