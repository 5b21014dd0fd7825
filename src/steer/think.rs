//! Level of detail by think rate: which agents steer on a tick. A group's
//! [`GroupConfig::think_every`](crate::GroupConfig::think_every), or the world's
//! [`LevelOfDetail`] for the agents far from a point, lets an agent steer only every
//! k-th tick; in between the integration moves it by its last output.
//!
//! The rotation goes by chunks of rows, not by agents: rows are in spatial order, so a
//! chunk is a patch of the crowd, steered whole (its neighbour query once, its four-lane
//! kernel unbroken), and one chunk in k steers each tick. Chunk `c` steers on tick `t`
//! when `(c + t) % k == 0`. The re-sort moves agents between chunks, so across a re-sort
//! an agent may steer after fewer or more than k ticks, once.

use glam::Vec2;

use crate::error::{Result, ThrongError};
use crate::group::MAX_THINK_EVERY;

/// Level of detail around a point (a camera): the agents farther than `near` from
/// `centre` steer only every `think_every` ticks, in rotation (their group's own
/// [`crate::GroupConfig::think_every`] where it is larger), and are integrated with
/// their last steering output in between ([`crate::World::set_level_of_detail`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LevelOfDetail {
    /// The point detail is kept around.
    pub centre: Vec2,
    /// Within this distance of `centre` agents steer as their group says.
    pub near: f32,
    /// Beyond it, they steer every this many ticks (1 to [`MAX_THINK_EVERY`]).
    pub think_every: u32,
}

impl LevelOfDetail {
    /// Agents farther than `near` from `centre` steer every `think_every` ticks.
    #[must_use]
    pub fn new(centre: Vec2, near: f32, think_every: u32) -> Self {
        Self {
            centre,
            near,
            think_every,
        }
    }

    /// Check the values; the error names the field.
    ///
    /// # Errors
    /// [`ThrongError::InvalidParameter`] for a centre that is not finite, a `near`
    /// below 0 or NaN (infinite is allowed: nobody is far), or a `think_every` outside
    /// 1 to [`MAX_THINK_EVERY`].
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &str, reason: String| {
            Err(ThrongError::InvalidParameter {
                field: format!("level_of_detail.{field}"),
                reason,
            })
        };
        if !self.centre.is_finite() {
            return bad("centre", "must be finite".into());
        }
        if self.near.is_nan() || self.near < 0.0 {
            return bad("near", "must be >= 0".into());
        }
        if !(1..=MAX_THINK_EVERY).contains(&self.think_every) {
            return bad(
                "think_every",
                format!("must be from 1 to {MAX_THINK_EVERY}"),
            );
        }
        Ok(())
    }

    /// Whether an agent at `p` is far (beyond `near`; a NaN position is near).
    #[inline]
    pub(crate) fn is_far(&self, p: Vec2) -> bool {
        (p - self.centre).length_squared() > self.near * self.near
    }
}

/// Whether chunk `chunk` steers on tick `tick` with a think rate of `k` (0 and 1:
/// every tick).
#[inline]
pub(crate) fn turn_of(chunk: usize, tick: u64, k: u32) -> bool {
    k <= 1
        || (chunk as u64)
            .wrapping_add(tick)
            .is_multiple_of(u64::from(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_chunk_steers_once_in_every_k_ticks() {
        for k in [1, 2, 3, 4, 8, MAX_THINK_EVERY] {
            for chunk in 0..20 {
                let turns: Vec<u64> = (0..3 * u64::from(k))
                    .filter(|&t| turn_of(chunk, t, k))
                    .collect();
                // Every k-th tick, the first within the first k.
                assert!(turns[0] < u64::from(k), "k {k} chunk {chunk}");
                assert!(turns.windows(2).all(|w| w[1] - w[0] == u64::from(k)));
            }
            // On any tick, one chunk in k steers.
            for t in 0..10 {
                let steering = (0..(k as usize * 10)).filter(|&c| turn_of(c, t, k)).count();
                assert_eq!(steering, 10, "k {k} tick {t}");
            }
        }
        // Hand-worked: k = 4, chunk 3 steers on ticks 1, 5, 9.
        assert!(turn_of(3, 1, 4) && turn_of(3, 5, 4) && !turn_of(3, 2, 4));
        // A tick counter near its end wraps instead of overflowing.
        let _ = turn_of(usize::MAX, u64::MAX, 3);
    }

    #[test]
    fn far_is_beyond_near_and_checked() {
        let lod = LevelOfDetail::new(Vec2::new(1.0, 1.0), 5.0, 4);
        assert!(!lod.is_far(Vec2::new(6.0, 1.0)));
        assert!(lod.is_far(Vec2::new(6.01, 1.0)));
        assert!(!lod.is_far(Vec2::NAN));
        assert!(lod.is_far(Vec2::splat(3e38)));
        assert!(lod.validate().is_ok());
        let never = LevelOfDetail::new(Vec2::ZERO, f32::INFINITY, 4);
        assert!(never.validate().is_ok() && !never.is_far(Vec2::splat(3e38)));
        for bad in [
            LevelOfDetail::new(Vec2::NAN, 5.0, 4),
            LevelOfDetail::new(Vec2::ZERO, -1.0, 4),
            LevelOfDetail::new(Vec2::ZERO, f32::NAN, 4),
            LevelOfDetail::new(Vec2::ZERO, 5.0, 0),
            LevelOfDetail::new(Vec2::ZERO, 5.0, MAX_THINK_EVERY + 1),
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }
}
