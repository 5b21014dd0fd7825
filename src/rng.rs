//! Per-agent random streams. Every agent owns a `Xoshiro128PlusPlus` seeded from the
//! world seed and the agent's id (never the clock), so results do not depend on
//! which thread steers which agent.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

/// The random generator type stored per agent.
pub type AgentRng = Xoshiro128PlusPlus;

/// Mix a world seed and an agent serial into one 64-bit seed (SplitMix64 finaliser).
#[must_use]
pub fn mix_seed(world_seed: u64, serial: u64) -> u64 {
    let mut z = world_seed ^ serial.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A generator for the agent with this serial in a world with this seed.
#[must_use]
pub fn agent_rng(world_seed: u64, serial: u64) -> AgentRng {
    AgentRng::seed_from_u64(mix_seed(world_seed, serial))
}

/// Uniform in `[0, 1)` with 24 bits of precision.
#[inline]
pub fn uniform01<R: Rng + ?Sized>(rng: &mut R) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// Uniform in `[lo, hi)`.
#[inline]
pub fn uniform<R: Rng + ?Sized>(rng: &mut R, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * uniform01(rng)
}

/// Millington's `randomBinomial()`: `uniform(-1, 1) - uniform(-1, 1)`, a triangular
/// distribution on (-2, 2) peaked at 0.
#[inline]
pub fn binomial<R: Rng + ?Sized>(rng: &mut R) -> f32 {
    uniform(rng, -1.0, 1.0) - uniform(rng, -1.0, 1.0)
}

/// A fair coin.
#[inline]
pub fn coin<R: Rng + ?Sized>(rng: &mut R) -> bool {
    rng.next_u32() & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = agent_rng(7, 1);
        let mut b = agent_rng(7, 1);
        let mut c = agent_rng(7, 2);
        let xa: Vec<u32> = (0..8).map(|_| a.next_u32()).collect();
        let xb: Vec<u32> = (0..8).map(|_| b.next_u32()).collect();
        let xc: Vec<u32> = (0..8).map(|_| c.next_u32()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn uniform01_in_range() {
        let mut r = agent_rng(1, 1);
        for _ in 0..10_000 {
            let u = uniform01(&mut r);
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn binomial_is_triangular_on_open_interval() {
        // Density of u - v for u, v uniform on (-1, 1): f(x) = (2 - |x|) / 4 on
        // (-2, 2); CDF F(x) = (2 + x)^2 / 8 for x <= 0 and 1 - (2 - x)^2 / 8 for x >= 0.
        fn cdf(x: f64) -> f64 {
            if x <= 0.0 {
                (2.0 + x).powi(2) / 8.0
            } else {
                1.0 - (2.0 - x).powi(2) / 8.0
            }
        }
        const N: usize = 100_000;
        const BINS: usize = 20;
        let mut r = agent_rng(2024, 3);
        let mut counts = [0u32; BINS];
        let mut sum = 0.0f64;
        for _ in 0..N {
            let b = binomial(&mut r);
            assert!(b > -2.0 && b < 2.0, "{b} outside (-2, 2)");
            sum += f64::from(b);
            let bin = ((f64::from(b) + 2.0) / 4.0 * BINS as f64) as usize;
            counts[bin.min(BINS - 1)] += 1;
        }
        let mean = sum / N as f64;
        assert!(mean.abs() < 0.02, "mean {mean}");
        // Pearson chi-square against the triangular density on 20 equal bins; the
        // 0.999 quantile of chi-square with 19 degrees of freedom is 43.82.
        let width = 4.0 / BINS as f64;
        let chi2: f64 = counts
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let lo = -2.0 + i as f64 * width;
                let expected = (cdf(lo + width) - cdf(lo)) * N as f64;
                (f64::from(c) - expected).powi(2) / expected
            })
            .sum();
        assert!(chi2 < 43.82, "chi-square {chi2}");
    }
}
