//! Path following (Reynolds 1999), with per-agent progress along the path.
//!
//! The agent predicts where it will be, `pos + normalize(vel) * predict_distance`,
//! and projects that onto the path. If the prediction strays farther than
//! `path_radius` from the path, it seeks a target a little (`target_ahead`) beyond
//! the projection; otherwise it needs no force. As in OpenSteer's
//! `steerToFollowPath`, it also seeks when the prediction is not ahead of where it
//! is now along the path (a still agent, or one going the wrong way), so an agent
//! on the path starts and keeps moving along it.
//!
//! Projections search only near the agent's progress (the distance along the path
//! it has reached, carried by the caller from tick to tick): the segment holding
//! it and the segments starting within `search_window` beyond it. An agent on a
//! self-crossing path therefore keeps to its own part of it.
//!
//! An open path ends by arriving at its last point; a looped path wraps.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::targeting::{arrive, seek, ArriveParams};
use super::AgentState;
use crate::math::normalize_or_zero;
use crate::scene::Path;

/// Parameters of [`follow_path`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PathFollowParams {
    /// How far ahead along its velocity the agent predicts its position (units).
    /// Default 2: four body radii at the default radius 0.5 (Reynolds predicts
    /// a fixed time ahead; a fixed distance keeps the prediction on the path's
    /// scale at any speed).
    pub predict_distance: f32,
    /// Half-width of the path (units): a prediction within this distance of the
    /// path needs no correction. Default 1.
    pub path_radius: f32,
    /// How far beyond the predicted projection the target is placed (units).
    /// Default 2.
    pub target_ahead: f32,
    /// How far beyond the agent's progress projections search (units). Larger than
    /// `predict_distance` plus a tick's travel; small enough that a self-crossing
    /// path's other part is out of reach. Default 10.
    pub search_window: f32,
    /// Slowing radius (units) of the arrive at the end of an open path. Default 5.
    pub end_slowing_radius: f32,
}

impl Default for PathFollowParams {
    fn default() -> Self {
        Self {
            predict_distance: 2.0,
            path_radius: 1.0,
            target_ahead: 2.0,
            search_window: 10.0,
            end_slowing_radius: 5.0,
        }
    }
}

/// `v` if it is a non-negative number, else 0.
fn non_negative(v: f32) -> f32 {
    if v >= 0.0 {
        v
    } else {
        0.0
    }
}

/// Follow `path` from `progress` (distance along it the agent has reached; 0 to
/// start). Returns the force and the new progress: the distance along the path
/// of the agent's own position, projected near the old progress. Feed it back in
/// next tick.
///
/// Open path: when the target would lie at or beyond the end, arrive at the last
/// point. Looped path: progress and target wrap. A non-finite position gives no
/// force and keeps the progress.
#[must_use]
pub fn follow_path(
    me: &AgentState,
    path: &Path,
    progress: f32,
    params: &PathFollowParams,
) -> (Vec2, f32) {
    let step = path_step(me, path, progress, params);
    (step.force, step.progress)
}

/// One step of [`follow_path`] with the points it used (for debug drawing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathStep {
    /// The force.
    pub force: Vec2,
    /// The new progress.
    pub progress: f32,
    /// Where the agent predicts it will be.
    pub predicted: Vec2,
    /// The prediction's projection on the path.
    pub on_path: Vec2,
    /// The point it seeks or arrives at, when it steers toward one (none while it
    /// cruises inside the corridor).
    pub carrot: Option<Vec2>,
}

/// [`follow_path`], with its points.
#[must_use]
pub fn path_step(
    me: &AgentState,
    path: &Path,
    progress: f32,
    params: &PathFollowParams,
) -> PathStep {
    let progress = path.normalize_distance(progress);
    let mut step = PathStep {
        force: Vec2::ZERO,
        progress,
        predicted: me.pos,
        on_path: me.pos,
        carrot: None,
    };
    if !me.pos.is_finite() {
        return step;
    }
    let window = non_negative(params.search_window);
    let (now, _) = path.project(me.pos, progress, window);
    let predicted = me.pos + normalize_or_zero(me.vel) * non_negative(params.predict_distance);
    let (future, on_path) = path.project(predicted, now, window);
    step.progress = now;
    step.predicted = predicted;
    step.on_path = on_path;
    let total = path.length();
    let mut delta = future - now;
    if path.is_looped() {
        // The short way round.
        if delta > 0.5 * total {
            delta -= total;
        } else if delta <= -0.5 * total {
            delta += total;
        }
    }
    let ahead = delta.max(0.0) + non_negative(params.target_ahead);
    if !path.is_looped() && now + ahead >= total {
        let p = ArriveParams {
            slowing_radius: params.end_slowing_radius,
            ..ArriveParams::default()
        };
        step.carrot = Some(path.last_point());
        step.force = arrive(me, path.last_point(), &p);
        return step;
    }
    let strayed = (predicted - on_path).length() > params.path_radius;
    if !strayed && delta > 0.0 {
        // Inside the corridor and moving along it: no lateral correction
        // (Reynolds), only speed up to cruise along the current direction, so
        // an agent that starts slowly does not crawl forever.
        step.force = me.forward() * me.max_speed - me.vel;
        return step;
    }
    let carrot = path.point_at(now + ahead);
    step.carrot = Some(carrot);
    step.force = seek(me, carrot);
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    fn agent(pos: Vec2, vel: Vec2) -> AgentState {
        AgentState {
            pos,
            vel,
            max_speed: 2.0,
            ..AgentState::default()
        }
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    fn line() -> Path {
        Path::open(vec![v(0.0, 0.0), v(20.0, 0.0)]).unwrap()
    }

    #[test]
    fn strayed_prediction_seeks_ahead() {
        // At (5,3) moving (1,0), max speed 2: now = 5. Predicted (7,3) projects to
        // (7,0), 3 > radius 1 away; delta 2, target at 5 + 2 + 2 = 9: (9,0).
        // Seek: (4,-3)/5 * 2 - (1,0) = (1.6,-1.2) - (1,0) = (0.6,-1.2).
        let (f, prog) = follow_path(
            &agent(v(5.0, 3.0), v(1.0, 0.0)),
            &line(),
            0.0,
            &Default::default(),
        );
        assert!(close(f, v(0.6, -1.2)), "{f}");
        assert_eq!(prog, 5.0);
    }

    #[test]
    fn on_the_path_and_moving_along_needs_no_correction() {
        // At (5,0.5) moving (1,0): predicted (7,0.5) is 0.5 from the path, ahead.
        // No lateral correction; only the cruise term along the heading:
        // (1,0) * max speed 2 - (1,0) = (1,0).
        let (f, prog) = follow_path(
            &agent(v(5.0, 0.5), v(1.0, 0.0)),
            &line(),
            4.0,
            &Default::default(),
        );
        assert_eq!(f, v(1.0, 0.0));
        assert_eq!(prog, 5.0);
        // Already at cruise speed: nothing at all.
        let (f, _) = follow_path(
            &agent(v(5.0, 0.5), v(2.0, 0.0)),
            &line(),
            4.0,
            &Default::default(),
        );
        assert_eq!(f, Vec2::ZERO);
    }

    #[test]
    fn still_or_wrong_way_agent_seeks_along_the_path() {
        // Still at (5,0.5): delta 0, target 5 + 2 = 7: (7,0).
        // Seek: (2,-0.5)/2.0616 * 2 = (1.9403,-0.4851).
        let (f, _) = follow_path(
            &agent(v(5.0, 0.5), Vec2::ZERO),
            &line(),
            5.0,
            &Default::default(),
        );
        assert!(close(f, v(1.940_285, -0.485_071)), "{f}");
        // Moving (-1,0): predicted (3,0.5) is behind (delta -2 -> 0), same target;
        // force (1.9403,-0.4851) - (-1,0) = (2.9403,-0.4851).
        let (f, _) = follow_path(
            &agent(v(5.0, 0.5), v(-1.0, 0.0)),
            &line(),
            5.0,
            &Default::default(),
        );
        assert!(close(f, v(2.940_285, -0.485_071)), "{f}");
    }

    #[test]
    fn open_path_ends_with_arrive() {
        // At (19,0.2) moving (1,0): now 19, predicted (21,0.2) -> 20, delta 1,
        // 19 + 1 + 2 >= 20: arrive at (20,0) with slowing radius 5. Offset
        // (1,-0.2), distance 1.0198, speed 2 * 1.0198/5; desired = offset * 0.4 =
        // (0.4,-0.08); minus velocity (1,0): (-0.6,-0.08).
        let (f, prog) = follow_path(
            &agent(v(19.0, 0.2), v(1.0, 0.0)),
            &line(),
            18.0,
            &Default::default(),
        );
        assert!(close(f, v(-0.6, -0.08)), "{f}");
        assert_eq!(prog, 19.0);
    }

    #[test]
    fn looped_path_wraps_target_and_progress() {
        // Square loop of side 10 (total 40); the closing segment (0,10) -> (0,0)
        // covers distances 30..40. At (1.5,2) moving (0.6,-0.8), progress 37:
        // now = 38 (closest (0,2)). Predicted (2.7,0.4): from 38, the closing
        // segment gives (0,0.4) at 2.7 away, segment 0 gives (2.7,0) at 0.4 away:
        // future 2.7; delta 2.7 - 38 = -35.3, wrapped +40 = 4.7. Radius 0.25 < 0.4:
        // strayed. Target 38 + 4.7 + 2 = 44.7 -> 4.7: (4.7,0).
        // Seek: (3.2,-2)/3.77359 * 2 = (1.69600,-1.06000); minus (0.6,-0.8):
        // (1.09600,-0.26000).
        let sq =
            Path::looped(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 10.0), v(0.0, 10.0)]).unwrap();
        let p = PathFollowParams {
            path_radius: 0.25,
            ..PathFollowParams::default()
        };
        let (f, prog) = follow_path(&agent(v(1.5, 2.0), v(0.6, -0.8)), &sq, 37.0, &p);
        assert!(close(f, v(1.096, -0.26)), "{f}");
        assert!((prog - 38.0).abs() < 1e-5);
        // Past the start of the loop, progress wraps to a small distance.
        let (_, prog) = follow_path(&agent(v(1.0, 0.1), v(1.0, 0.0)), &sq, 39.5, &p);
        assert!((prog - 1.0).abs() < 1e-5, "{prog}");
    }

    #[test]
    fn progress_keeps_to_its_part_of_a_self_crossing_path() {
        // The last segment (5,10) -> (5,-5) crosses the first at (5,0): distance 5
        // on the first pass, 35 on the second.
        let p = Path::self_crossing_example();
        let params = PathFollowParams::default();
        let (_, first) = follow_path(&agent(v(5.0, 0.1), v(0.0, -1.0)), &p, 3.0, &params);
        assert!((first - 5.0).abs() < 1e-4, "{first}");
        let (_, second) = follow_path(&agent(v(5.0, 0.1), v(0.0, -1.0)), &p, 33.0, &params);
        assert!((second - 34.9).abs() < 1e-4, "{second}");
    }

    #[test]
    fn degenerate_inputs_are_finite() {
        let params = PathFollowParams::default();
        for me in [
            agent(v(0.0, 0.0), Vec2::ZERO),
            agent(v(20.0, 0.0), Vec2::ZERO),
            agent(v(1e6, -1e6), v(3.0, 0.0)),
        ] {
            for prog in [0.0, -5.0, 1e9, f32::NAN, f32::INFINITY] {
                let (f, p) = follow_path(&me, &line(), prog, &params);
                assert!(f.is_finite() && p.is_finite(), "{f} {p}");
            }
        }
        let lost = agent(Vec2::NAN, Vec2::ZERO);
        assert_eq!(follow_path(&lost, &line(), 3.0, &params), (Vec2::ZERO, 3.0));
        let odd = PathFollowParams {
            predict_distance: f32::NAN,
            search_window: -1.0,
            target_ahead: f32::NAN,
            path_radius: f32::NAN,
            end_slowing_radius: 0.0,
        };
        let (f, p) = follow_path(&agent(v(3.0, 1.0), v(1.0, 0.0)), &line(), 3.0, &odd);
        assert!(f.is_finite() && p.is_finite());
    }
}
