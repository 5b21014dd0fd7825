//! Combining several behaviours into one steering force.
//!
//! * [`Combination::WeightedSum`] — the leader-following tutorial: sum `weight * force` over all
//!   behaviours, truncate to the maximum force.
//! * [`Combination::Prioritized`] — Buckland's prioritized truncated running sum:
//!   behaviours in priority order each add `weight * force` until the force
//!   budget (`max_force`) is used; the one that crosses the budget is cut to fit.
//! * [`Combination::Dithered`] — Buckland's prioritized dithering: behaviours in
//!   priority order are each evaluated only with their probability; the first
//!   evaluated one that gives a non-zero force wins, as `weight * force /
//!   probability`, truncated.

use glam::Vec2;
use rand_core::Rng;
use serde::{Deserialize, Serialize};

use crate::math::truncate;
use crate::rng::uniform01;

/// How a group combines its behaviours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Combination {
    /// Weighted truncated sum (the leader-following tutorial).
    #[default]
    WeightedSum,
    /// Prioritized truncated running sum (Buckland).
    Prioritized,
    /// Prioritized dithering (Buckland).
    Dithered,
}

/// Add `force` to `running` without letting `|running|` exceed `max_force`.
/// Returns false once the budget is used up (later behaviours can be skipped).
#[inline]
pub fn accumulate_force(running: &mut Vec2, force: Vec2, max_force: f32) -> bool {
    let remaining = max_force - running.length();
    if remaining <= 0.0 {
        return false;
    }
    let len = force.length();
    if len < remaining {
        *running += force;
        true
    } else {
        if len > 0.0 {
            *running += force * (remaining / len);
        }
        false
    }
}

/// Weighted truncated sum of already weighted forces.
#[inline]
#[must_use]
pub fn weighted_sum(weighted: impl IntoIterator<Item = Vec2>, max_force: f32) -> Vec2 {
    truncate(weighted.into_iter().sum(), max_force)
}

/// Prioritized running sum of already weighted forces, in priority order.
#[must_use]
pub fn prioritized(weighted: impl IntoIterator<Item = Vec2>, max_force: f32) -> Vec2 {
    let mut running = Vec2::ZERO;
    for f in weighted {
        if !accumulate_force(&mut running, f, max_force) {
            break;
        }
    }
    running
}

/// Whether a behaviour with this dithering probability is evaluated this tick.
#[inline]
pub fn dither_pick<R: Rng + ?Sized>(rng: &mut R, probability: f32) -> bool {
    probability >= 1.0 || uniform01(rng) < probability
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_sum_truncates() {
        // (3,0)+(0,4) = (3,4), |5| truncated to 2.5 -> (1.5, 2).
        let f = weighted_sum([Vec2::new(3.0, 0.0), Vec2::new(0.0, 4.0)], 2.5);
        assert!((f - Vec2::new(1.5, 2.0)).length() < 1e-6);
    }

    #[test]
    fn prioritized_fills_budget_in_order() {
        // Budget 5: first (3,0) fits, remaining 2; second (0,4) is cut to (0,2);
        // third is never added.
        let f = prioritized(
            [
                Vec2::new(3.0, 0.0),
                Vec2::new(0.0, 4.0),
                Vec2::new(100.0, 0.0),
            ],
            5.0,
        );
        assert!((f - Vec2::new(3.0, 2.0)).length() < 1e-6);
        // A first force larger than the budget is cut to the budget.
        let f = prioritized([Vec2::new(10.0, 0.0), Vec2::new(0.0, 1.0)], 4.0);
        assert!((f - Vec2::new(4.0, 0.0)).length() < 1e-6);
    }

    #[test]
    fn dither_probabilities() {
        let mut r = crate::rng::agent_rng(1, 2);
        let hits = (0..10_000).filter(|_| dither_pick(&mut r, 0.3)).count();
        assert!((2_800..3_200).contains(&hits), "{hits}");
        assert!(dither_pick(&mut r, 1.0));
        assert!(!(0..100).any(|_| dither_pick(&mut r, 0.0)));
    }
}
