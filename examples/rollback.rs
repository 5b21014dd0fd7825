//! Rollback, as a networked game does it: step 10 ticks, save a snapshot, step 5
//! more with the inputs we had guessed, then learn the real input of tick 11 (a
//! late packet), roll back to the snapshot, apply it and step the 5 ticks again.
//! The state hash after each tick is what lockstep peers compare to detect a
//! desync. Run: `cargo run --release --example rollback`.

use glam::Vec2;
use throng::behaviours::targeting::ArriveParams;
use throng::world::Snapshot;
use throng::{AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

const DT: f32 = 1.0 / 30.0;

fn main() -> Result<(), throng::ThrongError> {
    let mut world = World::new(WorldConfig {
        seed: 11,
        ..WorldConfig::default()
    });
    let arrive = ArriveParams {
        slowing_radius: 3.0,
        ..ArriveParams::default()
    };
    let walkers =
        world.add_group(GroupConfig::new("walkers").with(Behaviour::Arrive(arrive), 1.0))?;
    let ids: Vec<_> = (0..200)
        .map(|i| {
            let at = Vec2::new((i % 20) as f32, (i / 20) as f32) * 2.0;
            world.spawn(
                AgentSpec::new(walkers, at).with_target(Target::Point(Vec2::new(60.0, 10.0))),
            )
        })
        .collect::<Result<_, _>>()?;

    for _ in 0..10 {
        world.step(DT)?;
    }
    // Saved, and sent over the wire as bytes.
    let bytes = world.snapshot().to_bytes()?;
    println!(
        "snapshot after tick {}: {} bytes for {} agents",
        world.tick(),
        bytes.len(),
        world.len()
    );

    // Predicted: nobody changes course.
    let predicted: Vec<u64> = (0..5)
        .map(|_| world.step(DT).map(|_| world.state_hash()))
        .collect::<Result<_, _>>()?;

    // The real input of tick 11 arrives late: the first agent heads elsewhere. Roll
    // back, apply it, and step the same 5 ticks again.
    world.restore(&Snapshot::from_bytes(&bytes)?)?;
    world.set_targets(&ids[..1], Target::Point(Vec2::new(-20.0, 0.0)))?;
    let corrected: Vec<u64> = (0..5)
        .map(|_| world.step(DT).map(|_| world.state_hash()))
        .collect::<Result<_, _>>()?;

    // Without the changed input, a replay from the snapshot repeats the prediction bit
    // for bit.
    let mut replay = World::from_snapshot(Snapshot::from_bytes(&bytes)?)?;
    let replayed: Vec<u64> = (0..5)
        .map(|_| replay.step(DT).map(|_| replay.state_hash()))
        .collect::<Result<_, _>>()?;

    for (tick, ((p, c), r)) in predicted.iter().zip(&corrected).zip(&replayed).enumerate() {
        println!(
            "tick {:2}: predicted {p:016x}  corrected {c:016x}  replayed {r:016x}",
            tick + 11
        );
    }
    assert_eq!(
        predicted, replayed,
        "a replay from the snapshot is bitwise the same"
    );
    assert_ne!(predicted, corrected, "the late input changed the world");
    println!("the replay matches the prediction; the corrected run differs from tick 11 on");
    Ok(())
}
