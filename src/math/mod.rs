//! Numeric safety in one place: truncation, safe normalisation, angle helpers and
//! the 2D geometry shared by every behaviour.
//!
//! Coordinates are the ground plane as `glam::Vec2` (x, y). A heading is an angle in
//! radians measured **clockwise from +y**, so heading 0 faces +y and heading π/2 faces
//! +x. This is Millington's convention (clockwise from +z in the x-z plane) with the
//! source's z axis mapped to the engine's y axis: `heading_to_vec(h) = (sin h, cos h)`
//! and `vec_to_heading(v) = atan2(v.x, v.y)`.

use glam::Vec2;

pub(crate) mod x4;

/// Lengths below this are treated as zero when a direction is needed.
pub const EPS_LEN: f32 = 1e-6;
/// Squared form of [`EPS_LEN`].
pub const EPS_LEN_SQ: f32 = EPS_LEN * EPS_LEN;

/// `x` clamped to `[lo, hi]` as [`f32::clamp`] does it (bitwise the same), without its
/// panic on a NaN bound: a NaN bound leaves `x` to the other comparison.
#[inline]
#[must_use]
pub fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    let mut x = x;
    if x < lo {
        x = lo;
    }
    if x > hi {
        x = hi;
    }
    x
}

/// Clamp the length of `v` to at most `max` (within rounding: lengths up to
/// `max · (1 + 4ε)` are kept as they are, so that a truncated vector, whose rounded
/// length can lie a hair above `max`, truncates to itself, bit for bit: a host that
/// writes back the velocity it read changes nothing). A non-positive or non-finite
/// `max` gives zero; a non-finite `v` gives zero (non-finite values are never spread).
/// Exact at any finite magnitude: where squaring `v` or `max` would overflow or
/// fall into subnormals, the lengths are compared after scaling
/// ([`truncate_scaled`]); otherwise the squares are compared directly.
#[inline]
#[must_use]
pub fn truncate(v: Vec2, max: f32) -> Vec2 {
    if max.is_nan() || max <= 0.0 || !v.is_finite() {
        return Vec2::ZERO;
    }
    let len_sq = v.length_squared();
    let max_sq = max * max;
    if !(len_sq.is_finite() && (f32::MIN_POSITIVE..=SQUARE_ROOM).contains(&max_sq)) {
        return truncate_scaled(v, max);
    }
    if len_sq > max_sq * TRUNCATE_SLACK_SQ {
        v * (max / len_sq.sqrt())
    } else {
        v
    }
}

/// How far above `max²` a squared length may lie and still count as within `max`
/// ([`truncate`]): `1 + 8ε`, covering the rounding of a vector just truncated (its
/// coordinates, their squares and their sum: a few ε at most).
pub(crate) const TRUNCATE_SLACK_SQ: f32 = 1.0 + 8.0 * f32::EPSILON;

/// The largest `max²` that [`TRUNCATE_SLACK_SQ`] can multiply without overflowing.
const SQUARE_ROOM: f32 = f32::MAX / 2.0;

/// [`truncate`] for a finite `v` and a positive `max` whose squares would overflow
/// or lose precision: `v = m u` with `m` its largest absolute coordinate, so that
/// `|u|` lies in `[1, √2]` and `|v| > max` is `|u| > max / m` (with the same slack
/// of rounding, `4ε` on the length); the result is `u · (max / |u|)`. Nothing is
/// squared beyond 2.
#[cold]
#[must_use]
pub fn truncate_scaled(v: Vec2, max: f32) -> Vec2 {
    let m = v.x.abs().max(v.y.abs());
    if m == 0.0 {
        return v;
    }
    let u = v / m;
    let len_u = u.length();
    // `max / m` overflows to infinity only when `v` is far shorter than `max`, and
    // underflows to zero only when it is far longer: both compare the right way.
    if len_u > (max / m) * (1.0 + 4.0 * f32::EPSILON) {
        u * (max / len_u)
    } else {
        v
    }
}

/// `v / |v|`, or zero when `|v|` is below [`EPS_LEN`] or not finite.
#[inline]
#[must_use]
pub fn normalize_or_zero(v: Vec2) -> Vec2 {
    normalize_or(v, Vec2::ZERO)
}

/// `v / |v|`, or `fallback` when `|v|` is below [`EPS_LEN`] or `v` is not finite.
/// A finite `v` too long to square is scaled first ([`normalize_scaled`]).
#[inline]
#[must_use]
pub fn normalize_or(v: Vec2, fallback: Vec2) -> Vec2 {
    let len_sq = v.length_squared();
    if len_sq > EPS_LEN_SQ && len_sq.is_finite() {
        v / len_sq.sqrt()
    } else if len_sq.is_infinite() && v.is_finite() {
        normalize_scaled(v)
    } else {
        fallback
    }
}

/// The direction of a finite `v` whose squared length overflows: `u / |u|` with
/// `u = v / m`, `m` its largest absolute coordinate.
#[cold]
#[must_use]
pub fn normalize_scaled(v: Vec2) -> Vec2 {
    let u = v / v.x.abs().max(v.y.abs());
    u / u.length()
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

/// Distance between the segments `p0..p1` and `q0..q1`: zero where they cross or
/// touch (collinear overlaps included), else the least of the four distances from
/// an end of one to the other.
#[must_use]
pub fn segment_distance(p0: Vec2, p1: Vec2, q0: Vec2, q1: Vec2) -> f32 {
    // Each end on either side of the other's line (or on it), or one on the other.
    let side = |a: Vec2, b: Vec2, c: Vec2| cross(b - a, c - a);
    let (d1, d2) = (side(q0, q1, p0), side(q0, q1, p1));
    let (d3, d4) = (side(p0, p1, q0), side(p0, p1, q1));
    let opposite = |x: f32, y: f32| (x > 0.0 && y < 0.0) || (x < 0.0 && y > 0.0);
    if opposite(d1, d2) && opposite(d3, d4) {
        return 0.0;
    }
    let to = |p: Vec2, a: Vec2, b: Vec2| p.distance(closest_point_on_segment(p, a, b).0);
    to(p0, q0, q1)
        .min(to(p1, q0, q1))
        .min(to(q0, p0, p1))
        .min(to(q1, p0, p1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::{FRAC_PI_2, PI};

    #[test]
    fn segment_distance_hand_worked() {
        let v = Vec2::new;
        // Crossing at (1, 0): zero, either way round.
        assert_eq!(
            segment_distance(v(0.0, 0.0), v(2.0, 0.0), v(1.0, -1.0), v(1.0, 1.0)),
            0.0
        );
        assert_eq!(
            segment_distance(v(1.0, -1.0), v(1.0, 1.0), v(0.0, 0.0), v(2.0, 0.0)),
            0.0
        );
        // A T: the end (1, 0) of the second lies on the first.
        assert_eq!(
            segment_distance(v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.0), v(1.0, 3.0)),
            0.0
        );
        // Parallel, 0.5 apart, overlapping along x.
        assert_eq!(
            segment_distance(v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.5), v(3.0, 0.5)),
            0.5
        );
        // Collinear, a gap of 1 between (2, 0) and (3, 0).
        assert_eq!(
            segment_distance(v(0.0, 0.0), v(2.0, 0.0), v(3.0, 0.0), v(5.0, 0.0)),
            1.0
        );
        // Collinear and overlapping.
        assert_eq!(
            segment_distance(v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.0), v(5.0, 0.0)),
            0.0
        );
        // The end (3, 4) nearest the end (0, 0): a 3-4-5 triangle.
        assert_eq!(
            segment_distance(v(-1.0, 0.0), v(0.0, 0.0), v(3.0, 4.0), v(3.0, 9.0)),
            5.0
        );
        // A point segment.
        assert_eq!(
            segment_distance(v(0.0, 2.0), v(0.0, 2.0), v(-1.0, 0.0), v(1.0, 0.0)),
            2.0
        );
    }

    #[test]
    fn clamp_is_f32_clamp_without_its_panic() {
        for x in [-2.0f32, -0.0, 0.0, 0.5, 3.0, f32::NAN, f32::INFINITY] {
            for (lo, hi) in [(0.0, 1.0), (-0.0, 0.0), (-1.0, 2.0)] {
                assert_eq!(clamp(x, lo, hi).to_bits(), x.clamp(lo, hi).to_bits());
            }
        }
        // NaN bounds, which `f32::clamp` panics on: the other bound still holds.
        assert_eq!(clamp(5.0, f32::NAN, 1.0), 1.0);
        assert_eq!(clamp(-5.0, 0.0, f32::NAN), 0.0);
        assert_eq!(clamp(0.5, f32::NAN, f32::NAN), 0.5);
    }

    #[test]
    fn a_truncated_vector_truncates_to_itself_bit_for_bit() {
        // A million vectors of every direction, longer than their limit by up to 20x,
        // at magnitudes from 1e-30 to 1e30.
        let mut rng = crate::rng::agent_rng(7, 7);
        for i in 0..1_000_000 {
            let u = |rng: &mut crate::rng::AgentRng, a: f32, b: f32| crate::rng::uniform(rng, a, b);
            let scale = 10f32.powi((i % 61) - 30);
            let a = u(&mut rng, 0.0, std::f32::consts::TAU);
            let max = u(&mut rng, 0.1, 10.0) * scale;
            let v = Vec2::new(a.cos(), a.sin()) * max * u(&mut rng, 0.5, 20.0);
            let t = truncate(v, max);
            let again = truncate(t, max);
            assert_eq!(
                (again.x.to_bits(), again.y.to_bits()),
                (t.x.to_bits(), t.y.to_bits()),
                "{v} {max}"
            );
        }
    }

    #[test]
    fn truncate_clamps_long_vectors_only() {
        assert_eq!(truncate(Vec2::new(3.0, 4.0), 10.0), Vec2::new(3.0, 4.0));
        let t = truncate(Vec2::new(3.0, 4.0), 2.5);
        assert!((t - Vec2::new(1.5, 2.0)).length() < 1e-6);
        assert_eq!(truncate(Vec2::new(3.0, 4.0), 0.0), Vec2::ZERO);
        assert_eq!(truncate(Vec2::new(f32::NAN, 4.0), 1.0), Vec2::ZERO);
    }

    /// `|v|` in f64, exact enough to judge f32 results.
    fn len64(v: Vec2) -> f64 {
        f64::from(v.x).hypot(f64::from(v.y))
    }

    #[test]
    fn truncate_hand_worked_extremes() {
        // A very fast velocity against a small limit keeps its direction.
        assert_eq!(truncate(Vec2::new(1e20, 0.0), 2.0), Vec2::new(2.0, 0.0));
        // Limits too large to square still cut: |(3e38, 3e38)| = 4.24e38 > 3e38.
        let t = truncate(Vec2::new(3e38, 3e38), 3e38);
        assert!((len64(t) / 3e38 - 1.0).abs() < 1e-6, "{t}");
        assert!((t.x - t.y).abs() <= t.x * 1e-6);
        // Tiny vectors under tiny limits.
        let t = truncate(Vec2::new(3e-40, 4e-40), 2.5e-40);
        assert!((len64(t) / 2.5e-40 - 1.0).abs() < 1e-3, "{t}");
        assert_eq!(
            truncate(Vec2::new(3e-40, 4e-40), 1e-30),
            Vec2::new(3e-40, 4e-40)
        );
        assert_eq!(normalize_or_zero(Vec2::new(0.0, -3e38)), Vec2::NEG_Y);
        assert_eq!(
            normalize_or_zero(Vec2::new(3e38, 3e38)),
            Vec2::splat(1.0 / 2f32.sqrt())
        );
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn truncate_is_exact_at_any_magnitude(
            ex in -40i32..=38, ey in -40i32..=38, em in -40i32..=38,
            mx in 1.0f32..9.9, my in -9.9f32..9.9, mm in 1.0f32..3.4,
        ) {
            let v = Vec2::new(mx * 10f32.powi(ex), my * 10f32.powi(ey));
            let max = mm * 10f32.powi(em);
            prop_assume!(v.is_finite() && max.is_finite() && max > 0.0);
            let t = truncate(v, max);
            let (lv, lt, lm) = (len64(v), len64(t), f64::from(max));
            prop_assert!(t.is_finite());
            if lv <= lm * (1.0 - 1e-6) {
                prop_assert_eq!(t, v, "short vectors are kept");
            } else if lv > lm * (1.0 + 1e-6) {
                // Subnormal results carry fewer digits.
                let tol = if lm < 1e-37 { 1e-2 } else { 1e-5 };
                prop_assert!((lt / lm - 1.0).abs() < tol, "|t| {} max {}", lt, lm);
                let (a, b) = (f64::from(t.x) * f64::from(v.y), f64::from(t.y) * f64::from(v.x));
                prop_assert!((a - b).abs() <= tol * lt * lv, "direction kept");
            }
            prop_assert!(lt <= lm * (1.0 + 1e-5) || lm < 1e-37);
            // A truncated vector truncates to itself, bit for bit.
            let again = truncate(t, max);
            prop_assert_eq!((again.x.to_bits(), again.y.to_bits()), (t.x.to_bits(), t.y.to_bits()));
        }

        #[test]
        fn truncation_at_top_speed_is_idempotent(
            a in 0.0f32..std::f32::consts::TAU, len in 0.5f32..50.0, max in 0.1f32..10.0,
        ) {
            let t = truncate(Vec2::new(a.cos(), a.sin()) * len, max);
            prop_assert_eq!(truncate(t, max), t);
        }

        #[test]
        fn normalize_is_a_unit_at_any_large_magnitude(
            ex in -3i32..=38, mx in -9.9f32..9.9, my in -9.9f32..9.9,
        ) {
            let v = Vec2::new(mx, my) * 10f32.powi(ex);
            prop_assume!(v.is_finite() && len64(v) > 1e-5);
            let n = normalize_or_zero(v);
            prop_assert!((len64(n) - 1.0).abs() < 1e-6, "{} -> {}", v, n);
        }
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
