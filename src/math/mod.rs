//! Numeric safety in one place: truncation, safe normalisation, angle helpers and
//! the 2D geometry shared by every behaviour.
//!
//! Coordinates are the ground plane as `glam::Vec2` (x, y). A heading is an angle in
//! radians measured **clockwise from +y**, so heading 0 faces +y and heading π/2 faces
//! +x. This is seed 003's convention (clockwise from +z in the x-z plane) with the
//! seed's z axis mapped to the engine's y axis: `heading_to_vec(h) = (sin h, cos h)`
//! and `vec_to_heading(v) = atan2(v.x, v.y)`.

use glam::Vec2;

pub(crate) mod x4;

/// Lengths below this are treated as zero when a direction is needed.
pub const EPS_LEN: f32 = 1e-6;
/// Squared form of [`EPS_LEN`].
pub const EPS_LEN_SQ: f32 = EPS_LEN * EPS_LEN;

/// Clamp the length of `v` to at most `max`. A non-positive or non-finite `max`
/// gives zero; a non-finite `v` gives zero (non-finite values are never spread).
#[inline]
#[must_use]
pub fn truncate(v: Vec2, max: f32) -> Vec2 {
    if max.is_nan() || max <= 0.0 || !v.is_finite() {
        return Vec2::ZERO;
    }
    let len_sq = v.length_squared();
    if len_sq > max * max {
        v * (max / len_sq.sqrt())
    } else {
        v
    }
}

/// `v / |v|`, or zero when `|v|` is below [`EPS_LEN`] or not finite.
#[inline]
#[must_use]
pub fn normalize_or_zero(v: Vec2) -> Vec2 {
    let len_sq = v.length_squared();
    if len_sq > EPS_LEN_SQ && len_sq.is_finite() {
        v / len_sq.sqrt()
    } else {
        Vec2::ZERO
    }
}

/// `v / |v|`, or `fallback` when `|v|` is below [`EPS_LEN`] or not finite.
#[inline]
#[must_use]
pub fn normalize_or(v: Vec2, fallback: Vec2) -> Vec2 {
    let len_sq = v.length_squared();
    if len_sq > EPS_LEN_SQ && len_sq.is_finite() {
        v / len_sq.sqrt()
    } else {
        fallback
    }
}

/// Unit vector of a heading (clockwise from +y): `(sin h, cos h)`.
#[inline]
#[must_use]
pub fn heading_to_vec(heading: f32) -> Vec2 {
    let (s, c) = heading.sin_cos();
    Vec2::new(s, c)
}

/// Heading of a vector (clockwise from +y): `atan2(v.x, v.y)`. Zero for a zero vector.
#[inline]
#[must_use]
pub fn vec_to_heading(v: Vec2) -> f32 {
    if v.length_squared() <= EPS_LEN_SQ {
        0.0
    } else {
        v.x.atan2(v.y)
    }
}

/// `atan2(y, x)` by a minimax polynomial: absolute error below 2e-5 radians,
/// a fraction of the cost of libm's. Pure arithmetic, so it is as deterministic
/// as the rest of the tick. For hot loops where that precision is plenty
/// (heading easing); `(0, 0)` gives 0.
#[inline]
#[must_use]
pub fn fast_atan2(y: f32, x: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI};
    let (ax, ay) = (x.abs(), y.abs());
    let (lo, hi) = if ax < ay { (ax, ay) } else { (ay, ax) };
    if hi == 0.0 || !hi.is_finite() {
        return if hi == 0.0 { 0.0 } else { y.atan2(x) };
    }
    let a = lo / hi;
    let s = a * a;
    let mut r = a
        * (0.999_977_26
            + s * (-0.332_623_47
                + s * (0.193_543_46 + s * (-0.116_432_87 + s * (0.052_653_32 - s * 0.011_721_2)))));
    if ay > ax {
        r = FRAC_PI_2 - r;
    }
    if x < 0.0 {
        r = PI - r;
    }
    if y < 0.0 {
        -r
    } else {
        r
    }
}

/// Wrap an angle into `(-π, π]`. Non-finite input gives 0.
#[inline]
#[must_use]
pub fn wrap_angle(a: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    if a > -PI && a <= PI {
        return a;
    }
    // One turn off covers every sum or difference of two wrapped angles.
    if a > PI && a <= PI + TAU {
        return a - TAU;
    }
    if a <= -PI && a > -PI - TAU {
        return a + TAU;
    }
    if !a.is_finite() {
        return 0.0;
    }
    let mut r = a % TAU;
    if r <= -PI {
        r += TAU;
    } else if r > PI {
        r -= TAU;
    }
    r
}

/// The vector to the right of `v` (clockwise quarter turn, matching the heading
/// convention): right of +y is +x.
#[inline]
#[must_use]
pub fn perp_right(v: Vec2) -> Vec2 {
    Vec2::new(v.y, -v.x)
}

/// Rotate `v` by `angle` radians **clockwise** (the heading convention): rotating
/// +y by π/2 gives +x.
#[inline]
#[must_use]
pub fn rotate_cw(v: Vec2, angle: f32) -> Vec2 {
    rotate_cw_by(v, angle.sin_cos())
}

/// [`rotate_cw`] by an angle given as its `(sin, cos)` (computed once for many
/// vectors).
#[inline]
#[must_use]
pub fn rotate_cw_by(v: Vec2, (s, c): (f32, f32)) -> Vec2 {
    Vec2::new(v.x * c + v.y * s, -v.x * s + v.y * c)
}

/// Linear interpolation `a + (b - a) * t`.
#[inline]
#[must_use]
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// Closest point to `p` on the segment `a..b` (a zero-length segment gives `a`),
/// and the segment parameter `t` in `[0, 1]`.
#[inline]
#[must_use]
pub fn closest_point_on_segment(p: Vec2, a: Vec2, b: Vec2) -> (Vec2, f32) {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq <= EPS_LEN_SQ {
        return (a, 0.0);
    }
    let t = ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0);
    (a + ab * t, t)
}

/// 2D cross product (z of the 3D cross): `a.x * b.y - a.y * b.x`.
#[inline]
#[must_use]
pub fn cross(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// Intersection of the segments `p0..p1` and `q0..q1`: returns `(t, u)` with the
/// hit at `p0 + (p1 - p0) * t = q0 + (q1 - q0) * u`, both in `[0, 1]`; `None` when
/// they do not cross or are parallel (collinear overlaps count as no crossing).
#[inline]
#[must_use]
pub fn segment_intersection(p0: Vec2, p1: Vec2, q0: Vec2, q1: Vec2) -> Option<(f32, f32)> {
    let r = p1 - p0;
    let s = q1 - q0;
    let denom = cross(r, s);
    if denom.abs() <= 1e-12 {
        return None;
    }
    let qp = q0 - p0;
    let t = cross(qp, s) / denom;
    let u = cross(qp, r) / denom;
    if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
        Some((t, u))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::{FRAC_PI_2, PI};

    #[test]
    fn truncate_clamps_long_vectors_only() {
        assert_eq!(truncate(Vec2::new(3.0, 4.0), 10.0), Vec2::new(3.0, 4.0));
        let t = truncate(Vec2::new(3.0, 4.0), 2.5);
        assert!((t - Vec2::new(1.5, 2.0)).length() < 1e-6);
        assert_eq!(truncate(Vec2::new(3.0, 4.0), 0.0), Vec2::ZERO);
        assert_eq!(truncate(Vec2::new(f32::NAN, 4.0), 1.0), Vec2::ZERO);
    }

    #[test]
    fn normalize_of_tiny_vector_is_zero() {
        assert_eq!(normalize_or_zero(Vec2::ZERO), Vec2::ZERO);
        assert_eq!(normalize_or_zero(Vec2::splat(1e-9)), Vec2::ZERO);
        assert!((normalize_or_zero(Vec2::new(0.0, -5.0)) - Vec2::NEG_Y).length() < 1e-7);
        assert_eq!(normalize_or(Vec2::ZERO, Vec2::X), Vec2::X);
    }

    #[test]
    fn heading_convention_is_clockwise_from_plus_y() {
        assert!((heading_to_vec(0.0) - Vec2::Y).length() < 1e-6);
        assert!((heading_to_vec(FRAC_PI_2) - Vec2::X).length() < 1e-6);
        assert!((vec_to_heading(Vec2::X) - FRAC_PI_2).abs() < 1e-6);
        assert!((vec_to_heading(Vec2::NEG_Y).abs() - PI).abs() < 1e-6);
        assert_eq!(vec_to_heading(Vec2::ZERO), 0.0);
        for h in [-3.0f32, -1.0, 0.3, 2.0] {
            assert!((vec_to_heading(heading_to_vec(h)) - h).abs() < 1e-5);
        }
        assert!((rotate_cw(Vec2::Y, FRAC_PI_2) - Vec2::X).length() < 1e-6);
        assert_eq!(perp_right(Vec2::Y), Vec2::X);
    }

    #[test]
    fn fast_atan2_is_close_to_libm_everywhere() {
        let mut worst = 0.0f32;
        for i in 0..100_000 {
            let a = i as f32 / 100_000.0 * std::f32::consts::TAU - PI;
            for len in [1e-3f32, 1.0, 250.0] {
                let (y, x) = (a.sin() * len, a.cos() * len);
                worst = worst.max(wrap_angle(fast_atan2(y, x) - y.atan2(x)).abs());
            }
        }
        assert!(worst < 2e-5, "worst error {worst}");
        assert_eq!(fast_atan2(0.0, 0.0), 0.0);
        assert!((fast_atan2(1.0, 0.0) - FRAC_PI_2).abs() < 1e-6);
        assert!((fast_atan2(0.0, -1.0) - PI).abs() < 1e-6);
    }

    #[test]
    fn wrap_angle_range() {
        assert!((wrap_angle(3.0 * PI) - PI).abs() < 1e-5);
        assert!((wrap_angle(-3.0 * PI / 2.0) - FRAC_PI_2).abs() < 1e-5);
        assert_eq!(wrap_angle(f32::NAN), 0.0);
    }

    #[test]
    fn segment_helpers() {
        let (c, t) = closest_point_on_segment(Vec2::new(1.0, 5.0), Vec2::ZERO, Vec2::new(4.0, 0.0));
        assert_eq!(c, Vec2::new(1.0, 0.0));
        assert!((t - 0.25).abs() < 1e-6);
        let (c, _) = closest_point_on_segment(Vec2::ONE, Vec2::ZERO, Vec2::ZERO);
        assert_eq!(c, Vec2::ZERO);
        let hit = segment_intersection(
            Vec2::new(0.0, -1.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(-1.0, 0.0),
            Vec2::new(1.0, 0.0),
        )
        .unwrap();
        assert!((hit.0 - 0.5).abs() < 1e-6 && (hit.1 - 0.5).abs() < 1e-6);
        assert!(segment_intersection(Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::ONE).is_none());
    }
}
