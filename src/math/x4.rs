//! Four-lane twins of the helpers in [`crate::math`], for kernels that work on four
//! agents at once (one SSE / NEON vector per coordinate, through the `wide` crate).
//!
//! A *lane* is one of the four slots of a vector. Every twin goes through the same IEEE
//! operations in the same order as its scalar helper: branches become selects, and
//! vector square roots and divisions are correctly rounded like scalar ones. So each
//! lane is bitwise what the scalar helper gives; the tests below check it.

use glam::Vec2;
use wide::f32x4;

use super::EPS_LEN_SQ;

/// Agents per four-lane kernel call.
pub(crate) const LANES: usize = 4;

/// Four 2D vectors in registers, one coordinate per vector.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vec2x4 {
    pub x: f32x4,
    pub y: f32x4,
}

impl Vec2x4 {
    pub const ZERO: Self = Self {
        x: f32x4::ZERO,
        y: f32x4::ZERO,
    };

    #[inline]
    pub fn load(v: &[Vec2; LANES]) -> Self {
        Self {
            x: f32x4::new(v.map(|v| v.x)),
            y: f32x4::new(v.map(|v| v.y)),
        }
    }

    #[inline]
    pub fn store(self) -> [Vec2; LANES] {
        let (x, y) = (self.x.to_array(), self.y.to_array());
        std::array::from_fn(|i| Vec2::new(x[i], y[i]))
    }

    #[inline]
    pub fn splat(v: Vec2) -> Self {
        Self {
            x: f32x4::splat(v.x),
            y: f32x4::splat(v.y),
        }
    }

    #[inline]
    pub fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }

    #[inline]
    pub fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }

    #[inline]
    pub fn scale(self, s: f32x4) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
        }
    }

    #[inline]
    pub fn div(self, s: f32x4) -> Self {
        Self {
            x: self.x / s,
            y: self.y / s,
        }
    }

    /// `length_squared`: `x * x + y * y`.
    #[inline]
    pub fn len_sq(self) -> f32x4 {
        self.x * self.x + self.y * self.y
    }

    /// The vector a clockwise quarter turn to the right ([`super::perp_right`]).
    #[inline]
    pub fn perp_right(self) -> Self {
        Self {
            x: self.y,
            y: -self.x,
        }
    }

    /// Per lane: `mask ? a : b` (`mask` lanes all ones or all zeros).
    #[inline]
    pub fn select(mask: f32x4, a: Self, b: Self) -> Self {
        Self {
            x: mask.bitselect(a.x, b.x),
            y: mask.bitselect(a.y, b.y),
        }
    }

    /// Lanes where both coordinates are finite.
    #[inline]
    pub fn finite(self) -> f32x4 {
        self.x.is_finite() & self.y.is_finite()
    }

    /// Lanes where the vector is exactly zero.
    #[inline]
    pub fn is_zero(self) -> f32x4 {
        self.x.simd_eq(f32x4::ZERO) & self.y.simd_eq(f32x4::ZERO)
    }

    /// [`super::truncate`]: zero for a limit that is not positive (or NaN) or a vector
    /// that is not finite; scaled by `max / |v|` when longer than `max`. Lanes whose
    /// squares overflow or fall into subnormals take the scalar helper's scaled path
    /// ([`super::truncate_scaled`]), so every lane equals [`super::truncate`] bitwise.
    #[inline]
    pub fn truncate(self, max: f32x4) -> Self {
        let len_sq = self.len_sq();
        let max_sq = max * max;
        let long = len_sq.simd_gt(max_sq * f32x4::splat(super::TRUNCATE_SLACK_SQ));
        let truncated = Self::select(long, self.scale(max / len_sq.sqrt()), self);
        let keep = max.simd_gt(f32x4::ZERO) & self.finite();
        let out = Self::select(keep, truncated, Self::ZERO);
        let squares_ok = len_sq.is_finite()
            & max_sq.simd_ge(f32x4::splat(f32::MIN_POSITIVE))
            & max_sq.simd_le(f32x4::splat(f32::MAX / 2.0));
        let scaled = keep & !squares_ok;
        if scaled.any() {
            let (v, max) = (self.store(), max.to_array());
            return out.per_lane(scaled, |lane| super::truncate_scaled(v[lane], max[lane]));
        }
        out
    }

    /// [`super::normalize_or`]: `v / |v|` where `|v|²` is above [`EPS_LEN_SQ`] and
    /// finite, else `fallback` (finite lanes too long to square take the scalar
    /// helper's scaled path). Also returns the mask of lanes that took the fallback.
    #[inline]
    pub fn normalize_or(self, fallback: Self) -> (Self, f32x4) {
        let len_sq = self.len_sq();
        let unit = len_sq.simd_gt(f32x4::splat(EPS_LEN_SQ)) & len_sq.is_finite();
        let scaled = len_sq.simd_eq(f32x4::splat(f32::INFINITY)) & self.finite();
        let out = Self::select(unit, self.div(len_sq.sqrt()), fallback);
        if scaled.any() {
            let v = self.store();
            let out = out.per_lane(scaled, |lane| super::normalize_scaled(v[lane]));
            return (out, !(unit | scaled));
        }
        (out, !unit)
    }

    /// `self` with the lanes of `mask` replaced by `f(lane)`: the rare lanes a vector
    /// formula cannot take.
    #[cold]
    fn per_lane(self, mask: f32x4, f: impl Fn(usize) -> Vec2) -> Self {
        let (mut x, mut y) = (self.x.to_array(), self.y.to_array());
        let bits = mask.to_bitmask();
        for lane in 0..LANES {
            if bits & (1 << lane) != 0 {
                let v = f(lane);
                (x[lane], y[lane]) = (v.x, v.y);
            }
        }
        Self {
            x: f32x4::new(x),
            y: f32x4::new(y),
        }
    }
}

/// Four vectors in memory as their x and their y: each loads into a [`Vec2x4`] as two
/// whole vectors, with no shuffling (kernels fill them one lane at a time).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Xy4 {
    pub x: [f32; LANES],
    pub y: [f32; LANES],
}

impl From<[Vec2; LANES]> for Xy4 {
    #[inline]
    fn from(v: [Vec2; LANES]) -> Self {
        Self {
            x: v.map(|v| v.x),
            y: v.map(|v| v.y),
        }
    }
}

impl Xy4 {
    #[inline]
    pub fn set(&mut self, lane: usize, v: Vec2) {
        self.x[lane] = v.x;
        self.y[lane] = v.y;
    }

    #[inline]
    pub fn load(&self) -> Vec2x4 {
        Vec2x4 {
            x: f32x4::new(self.x),
            y: f32x4::new(self.y),
        }
    }
}

/// [`super::fast_atan2`] of four lanes, and the mask of lanes where it is valid: the
/// scalar function's common case (`hi` non-zero and finite). Other lanes hold garbage.
#[inline]
pub(crate) fn fast_atan2_x4(y: f32x4, x: f32x4) -> (f32x4, f32x4) {
    use std::f32::consts::{FRAC_PI_2, PI};
    let zero = f32x4::ZERO;
    let (ax, ay) = (x.abs(), y.abs());
    let lo_is_x = ax.simd_lt(ay);
    let lo = lo_is_x.bitselect(ax, ay);
    let hi = lo_is_x.bitselect(ay, ax);
    let valid = !(hi.simd_eq(zero) | !hi.is_finite());
    let a = lo / hi;
    let s = a * a;
    let c = f32x4::splat;
    let mut r = a
        * (c(0.999_977_26)
            + s * (c(-0.332_623_47)
                + s * (c(0.193_543_46)
                    + s * (c(-0.116_432_87) + s * (c(0.052_653_32) - s * c(0.011_721_2))))));
    r = ay.simd_gt(ax).bitselect(c(FRAC_PI_2) - r, r);
    r = x.simd_lt(zero).bitselect(c(PI) - r, r);
    (y.simd_lt(zero).bitselect(-r, r), valid)
}

/// [`super::wrap_angle`] of four lanes, for angles within one turn of `(-π, π]` (the
/// scalar function's first three cases), and the mask of lanes where that holds.
#[inline]
pub(crate) fn wrap_angle_x4(a: f32x4) -> (f32x4, f32x4) {
    use std::f32::consts::{PI, TAU};
    let c = f32x4::splat;
    let inside = a.simd_gt(c(-PI)) & a.simd_le(c(PI));
    let above = a.simd_gt(c(PI)) & a.simd_le(c(PI + TAU));
    let below = a.simd_le(c(-PI)) & a.simd_gt(c(-PI - TAU));
    let w = above.bitselect(a - c(TAU), below.bitselect(a + c(TAU), a));
    (w, inside | above | below)
}

#[cfg(test)]
mod tests {
    use super::super::{fast_atan2, normalize_or, truncate, wrap_angle};
    use super::*;
    use crate::rng::{agent_rng, uniform};

    fn bits(v: Vec2) -> (u32, u32) {
        (v.x.to_bits(), v.y.to_bits())
    }

    /// Four random vectors of mixed magnitudes, with some zero, tiny, huge and
    /// non-finite lanes.
    fn vectors(rng: &mut crate::rng::AgentRng, case: usize) -> [Vec2; LANES] {
        std::array::from_fn(|k| {
            let scale = [1e-7, 1e-3, 1.0, 50.0, 1e19, 1e-30, 1e30, 3e38][(case + k) % 8];
            let v = Vec2::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0)) * scale;
            let v = v.clamp(Vec2::splat(-f32::MAX), Vec2::splat(f32::MAX));
            match (case * 7 + k) % 23 {
                0 => Vec2::ZERO,
                1 => Vec2::new(f32::NAN, 1.0),
                2 => Vec2::new(f32::INFINITY, 0.0),
                _ => v,
            }
        })
    }

    #[test]
    fn truncate_and_normalize_equal_the_scalar_helpers_bitwise() {
        let mut rng = agent_rng(1, 2);
        for case in 0..20_000 {
            let v = vectors(&mut rng, case);
            let max: [f32; LANES] = std::array::from_fn(|k| match (case + k) % 11 {
                0 => 0.0,
                1 => -1.0,
                2 => f32::NAN,
                3 => 1e-25,
                4 => 3e38,
                _ => uniform(&mut rng, 0.0, 3.0),
            });
            let fallback = [Vec2::Y, Vec2::X, Vec2::ZERO, Vec2::NEG_Y];
            let t = Vec2x4::load(&v).truncate(f32x4::new(max)).store();
            let (n, fell) = Vec2x4::load(&v).normalize_or(Vec2x4::load(&fallback));
            let (n, fell) = (n.store(), fell.to_bitmask());
            for k in 0..LANES {
                assert_eq!(bits(t[k]), bits(truncate(v[k], max[k])), "{case} {k}");
                let want = normalize_or(v[k], fallback[k]);
                assert_eq!(bits(n[k]), bits(want), "{case} {k}");
                let took_fallback = fell & (1 << k) != 0;
                let len_sq = v[k].length_squared();
                let unit = len_sq > EPS_LEN_SQ && len_sq.is_finite();
                let scaled = len_sq.is_infinite() && v[k].is_finite();
                assert_eq!(took_fallback, !(unit || scaled));
            }
        }
    }

    #[test]
    fn angles_equal_the_scalar_helpers_bitwise_where_valid() {
        use std::f32::consts::PI;
        let mut rng = agent_rng(3, 4);
        let mut valid_lanes = 0;
        for case in 0..20_000 {
            let v = vectors(&mut rng, case);
            let (x, y) = (f32x4::new(v.map(|v| v.x)), f32x4::new(v.map(|v| v.y)));
            let (a, ok) = fast_atan2_x4(y, x);
            let (a, ok) = (a.to_array(), ok.to_bitmask());
            let angles: [f32; LANES] =
                std::array::from_fn(|_| uniform(&mut rng, -4.0 * PI, 4.0 * PI));
            let (w, in_turn) = wrap_angle_x4(f32x4::new(angles));
            let (w, in_turn) = (w.to_array(), in_turn.to_bitmask());
            for k in 0..LANES {
                if ok & (1 << k) != 0 {
                    valid_lanes += 1;
                    assert_eq!(a[k].to_bits(), fast_atan2(v[k].y, v[k].x).to_bits());
                } else {
                    let hi = v[k].x.abs().max(v[k].y.abs());
                    assert!(hi == 0.0 || !hi.is_finite() || v[k].is_nan());
                }
                let near = angles[k] > -PI - std::f32::consts::TAU
                    && angles[k] <= PI + std::f32::consts::TAU;
                assert_eq!(in_turn & (1 << k) != 0, near, "{}", angles[k]);
                if near {
                    assert_eq!(w[k].to_bits(), wrap_angle(angles[k]).to_bits());
                }
            }
        }
        assert!(valid_lanes > 60_000);
    }
}
