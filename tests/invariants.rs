//! Invariants over a long run: every value finite, every speed within its limit.
mod common;

use common::flock;
use throng::spatial::IndexKind;

#[test]
fn ten_thousand_agents_for_a_thousand_ticks_stay_finite_and_within_max_speed() {
    let (mut world, _) = flock(10_000, 9, IndexKind::KdTree);
    for _ in 0..1_000 {
        let stats = world.step(1.0 / 30.0).unwrap();
        assert_eq!(stats.quarantined, 0);
        for ((p, v), (&h, &max)) in world
            .positions()
            .iter()
            .zip(world.velocities())
            .zip(world.headings().iter().zip(world.max_speeds()))
        {
            assert!(p.is_finite() && v.is_finite() && h.is_finite());
            assert!(v.length() <= max * (1.0 + 1e-5), "{} > {max}", v.length());
        }
        assert!(world.forces().all(|f| f.is_finite()));
    }
}
