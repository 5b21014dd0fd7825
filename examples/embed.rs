//! throng as a game's crowd backend: the host owns its entities and keeps an
//! `AgentId` for each, moves a player-controlled target every frame, spawns
//! and despawns agents between ticks, reads positions back by handle, and uses
//! arrival events, gameplay queries and debug draw.
//!
//! `cargo run --release --example embed`

use std::collections::HashMap;

use glam::Vec2;
use throng::behaviours::flocking::SeparationParams;
use throng::behaviours::leader::LeaderParams;
use throng::behaviours::walls::WallAvoidanceParams;
use throng::combine::Combination;
use throng::scene::Wall;
use throng::world::{Arrival, DebugDraw, DebugKind};
use throng::{AgentId, AgentSpec, Behaviour, GroupConfig, Target, World, WorldConfig};

/// The host's own entity type.
struct Npc {
    name: String,
    agent: AgentId,
}

fn main() -> Result<(), throng::ThrongError> {
    let mut world = World::new(WorldConfig {
        seed: 42,
        ..WorldConfig::default()
    });

    // A walled courtyard.
    let c = [
        Vec2::new(-40.0, -40.0),
        Vec2::new(40.0, -40.0),
        Vec2::new(40.0, 40.0),
        Vec2::new(-40.0, 40.0),
    ];
    let walls: Vec<Wall> = (0..4)
        .map(|i| Wall::new(c[i], c[(i + 1) % 4]))
        .collect::<Result<_, _>>()?;
    world.set_walls(&walls)?;

    // The player's avatar is an agent the host drives directly; a squad follows
    // it (the leader-following tutorial), and villagers give way when in its sight.
    let player_group = world.add_group(GroupConfig::new("player"))?;
    let squad_group = world.add_group(
        GroupConfig::new("squad")
            .combined_by(Combination::Prioritized)
            .with(
                Behaviour::WallAvoidance(WallAvoidanceParams::default()),
                3.0,
            )
            .with(
                Behaviour::LeaderFollow {
                    leader: LeaderParams {
                        behind_distance: 4.0,
                        sight_radius: 3.0,
                        slowing_radius: 6.0,
                        ..LeaderParams::default()
                    },
                    separation: SeparationParams::default(),
                },
                1.0,
            ),
    )?;
    let villagers = world.add_group(
        GroupConfig::new("villagers")
            .combined_by(Combination::Prioritized)
            .with(
                Behaviour::WallAvoidance(WallAvoidanceParams::default()),
                3.0,
            )
            .with(Behaviour::Separation(SeparationParams::default()), 1.0)
            .with(Behaviour::Wander(Default::default()), 0.5),
    )?;

    let player =
        world.spawn(AgentSpec::new(player_group, Vec2::ZERO).with_limits(1.0, 4.0, 8.0))?;
    let mut npcs: HashMap<u64, Npc> = HashMap::new();
    for i in 0..12 {
        let at = Vec2::new(-5.0 + i as f32, -6.0);
        let agent =
            world.spawn(AgentSpec::new(squad_group, at).with_target(Target::Agent(player)))?;
        npcs.insert(
            agent.to_bits(),
            Npc {
                name: format!("guard {i}"),
                agent,
            },
        );
    }
    for i in 0..200 {
        let at = Vec2::new((i % 20) as f32 * 3.5 - 35.0, (i / 20) as f32 * 3.5 + 2.0);
        let agent = world.spawn(AgentSpec::new(villagers, at))?;
        npcs.insert(
            agent.to_bits(),
            Npc {
                name: format!("villager {i}"),
                agent,
            },
        );
    }

    let dt = 1.0 / 60.0;
    let (mut near, mut arrivals) = (Vec::new(), 0);
    let mut draw = DebugDraw::default();
    for frame in 0..1_200 {
        // The game moves the player along a figure of eight; throng steers the rest.
        let t = frame as f32 * dt;
        let goal = Vec2::new((t * 0.5).sin() * 25.0, (t * 1.0).sin() * 15.0);
        let here = world.position(player)?;
        world.set_velocity(player, (goal - here) * 2.0)?;

        // Gameplay despawns a villager now and then; every other handle stays valid.
        if frame % 200 == 199 {
            if let Some(key) = npcs
                .keys()
                .copied()
                .filter(|k| npcs[k].name.starts_with("villager"))
                .min()
            {
                let gone = npcs.remove(&key).expect("present");
                world.despawn(gone.agent)?;
                println!("frame {frame}: {} left the courtyard", gone.name);
            }
        }
        world.step(dt)?;

        // Arrival events: the guards' standing with the player they follow (arrived
        // when one touches the player, stuck when one is pinned for 5 s).
        for e in world.arrival_events() {
            if e.to != Arrival::Moving {
                arrivals += 1;
            }
        }
        // Gameplay queries: who stands within 10 units of the player (an aura, a
        // shout), nearest first, and the nearest other agent.
        if frame % 300 == 299 {
            let at = world.position(player)?;
            world.agents_within(at, 10.0, None, &mut near)?;
            let nearest = world.nearest_agent(at, f32::INFINITY, Some(player))?;
            let name = nearest
                .and_then(|id| npcs.get(&id.to_bits()))
                .map_or("nobody", |n| n.name.as_str());
            println!(
                "frame {frame}: {} agents within 10 of the player, nearest {name}",
                near.len()
            );
            // Debug draw as data: what the first guard's behaviours work with, for
            // the host's own debug renderer (here, counted).
            let guard = npcs
                .values()
                .filter(|n| n.name == "guard 0")
                .map(|n| n.agent);
            if let Some(guard) = guard.min() {
                draw.clear();
                world.debug_draw(guard, &mut draw)?;
                let behind = draw.points.iter().find(|p| p.kind == DebugKind::Behind);
                println!(
                    "frame {frame}: guard 0 draws {} lines, {} circles, {} points; \
                     its place behind the player {}",
                    draw.lines.len(),
                    draw.circles.len(),
                    draw.points.len(),
                    behind.map_or("-".to_string(), |p| format!(
                        "({:.1}, {:.1})",
                        p.at.x, p.at.y
                    ))
                );
            }
        }
    }

    // Read back by handle for the host's renderer.
    let mut guards: Vec<&Npc> = npcs
        .values()
        .filter(|n| n.name.starts_with("guard"))
        .collect();
    guards.sort_by_key(|n| n.agent);
    let lead = world.position(player)?;
    for g in guards.iter().take(3) {
        let p = world.position(g.agent)?;
        println!(
            "{} at ({:.1}, {:.1}), {:.1} from the player",
            g.name,
            p.x,
            p.y,
            p.distance(lead)
        );
    }
    println!("{arrivals} arrival events (a guard reaching or pinned beside the player)");
    let stats = world.last_stats();
    println!(
        "{} agents, last tick {:.3} ms, {} wall crossings prevented in it",
        stats.agents,
        stats.times.total_ns as f64 / 1e6,
        stats.crossings_prevented
    );
    Ok(())
}
