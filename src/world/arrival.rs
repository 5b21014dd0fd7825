//! Arrival: after every tick, each agent's standing with its target (moving,
//! arrived, stuck, or no target), readable by handle and as a column, and the
//! changes of the tick as events.

use glam::Vec2;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::agents::{AgentId, Columns, Slots, Target};
use crate::error::Result;

use super::World;

/// An agent's standing with its target after the last tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Arrival {
    /// No target (or a despawned target agent).
    #[default]
    NoTarget,
    /// On its way: farther from its target than its own radius.
    Moving,
    /// Its centre within its own radius of its target (a point, or the target
    /// agent's centre); it stays arrived until it is more than
    /// [`LEAVE_RADII`] radii away, so that settling on the spot does not flicker.
    Arrived,
    /// Not arrived, and slower than [`STUCK_SPEED_FRACTION`] of its maximum speed
    /// for [`STUCK_SECONDS`] in a row (pressed against a wall, jammed in a crowd).
    /// Moving again (or arriving) ends it.
    Stuck,
}

/// An arrived agent counts as arrived until this many of its radii from its target.
pub const LEAVE_RADII: f32 = 2.0;

/// Below this fraction of its maximum speed an agent that has not arrived counts
/// toward [`Arrival::Stuck`] (the crowd-quality counter's rule).
pub const STUCK_SPEED_FRACTION: f32 = 0.05;

/// Seconds of being that slow, in a row, that make an agent [`Arrival::Stuck`].
pub const STUCK_SECONDS: f32 = 5.0;

/// Per agent: its arrival state and how long it has been slow (a column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ArrivalMemory {
    pub state: Arrival,
    /// The state before the last tick.
    pub previous: Arrival,
    /// Seconds in a row slower than the stuck speed, not arrived.
    pub slow_for: f32,
    /// Whether the last tick changed `state` (an event to report).
    pub changed: bool,
}

/// A change of an agent's [`Arrival`] during the last tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArrivalEvent {
    /// The agent.
    pub agent: AgentId,
    /// Its state before the tick.
    pub from: Arrival,
    /// Its state after it.
    pub to: Arrival,
}

impl ArrivalMemory {
    /// The memory of an agent spawned without a target, or without one for two ticks
    /// or more: what [`next`] keeps it at while it has none.
    pub(crate) const WITHOUT_TARGET: Self = Self {
        state: Arrival::NoTarget,
        previous: Arrival::NoTarget,
        slow_for: 0.0,
        changed: false,
    };

    /// A newly spawned agent's: moving when it has a target (so that its first tick
    /// reports only a real arrival), else no target.
    pub(crate) fn spawned(target: Target) -> Self {
        let state = if target == Target::None {
            Arrival::NoTarget
        } else {
            Arrival::Moving
        };
        Self {
            state,
            previous: state,
            slow_for: 0.0,
            changed: false,
        }
    }
}

/// Rows per parallel chunk of the arrival pass.
const ARRIVAL_CHUNK: usize = 4096;

/// The state an agent at `pos` moving at `speed` reaches, from `memory`, toward the
/// target point `goal` (`None`: no target), after `dt` seconds.
fn next(
    memory: ArrivalMemory,
    goal: Option<Vec2>,
    pos: Vec2,
    (speed, max_speed, radius): (f32, f32, f32),
    dt: f32,
) -> ArrivalMemory {
    let (state, slow_for) = match goal {
        None => (Arrival::NoTarget, 0.0),
        Some(g) if pos.distance_squared(g) <= radius * radius => (Arrival::Arrived, 0.0),
        Some(g)
            if memory.state == Arrival::Arrived
                && pos.distance_squared(g) <= (LEAVE_RADII * radius).powi(2) =>
        {
            (Arrival::Arrived, 0.0)
        }
        Some(_) => {
            let slow_for = if speed < STUCK_SPEED_FRACTION * max_speed {
                memory.slow_for + dt
            } else {
                0.0
            };
            let state = if slow_for >= STUCK_SECONDS {
                Arrival::Stuck
            } else {
                Arrival::Moving
            };
            (state, slow_for)
        }
    };
    ArrivalMemory {
        state,
        previous: memory.state,
        slow_for,
        changed: state != memory.state,
    }
}

/// The point an agent's target stands at now, if any.
fn goal_of(target: Target, slots: &Slots, pos: &[Vec2]) -> Option<Vec2> {
    match target {
        Target::None => None,
        Target::Point(p) => Some(p),
        Target::Agent(id) => slots.row(id).map(|r| pos[r as usize]),
    }
}

impl World {
    /// Stage 6: every agent's arrival state from its new position, in parallel; then
    /// the changes as events, in row order.
    pub(super) fn update_arrival(&mut self, dt: f32) {
        crate::zone!("arrival");
        let Columns {
            id,
            pos,
            vel,
            max_speed,
            radius,
            target,
            arrival,
            ..
        } = &mut self.cols;
        let slots = &self.slots;
        let (pos, vel, max_speed, radius, target) = (&*pos, &*vel, &*max_speed, &*radius, &*target);
        let changed = arrival
            .par_chunks_mut(ARRIVAL_CHUNK)
            .enumerate()
            .map(|(chunk, memories)| {
                let rows = chunk * ARRIVAL_CHUNK..;
                let mut any = false;
                // The chunk's rows of each column side by side (no index checks).
                let bodies = target[rows.clone()]
                    .iter()
                    .zip(&pos[rows.clone()])
                    .zip(&vel[rows.clone()])
                    .zip(&max_speed[rows.clone()])
                    .zip(&radius[rows]);
                for (m, ((((&target, p), v), max_speed), radius)) in memories.iter_mut().zip(bodies)
                {
                    // An agent that had no target and still has none is left as it
                    // is (`next` would write back the same memory): for it the pass
                    // reads two columns, not six, and writes none.
                    if target == Target::None && *m == ArrivalMemory::WITHOUT_TARGET {
                        continue;
                    }
                    let goal = goal_of(target, slots, pos);
                    *m = next(*m, goal, *p, (v.length(), *max_speed, *radius), dt);
                    any |= m.changed;
                }
                any
            })
            .reduce(|| false, |a, b| a || b);
        self.arrival_events.clear();
        if changed {
            self.arrival_events.extend(
                arrival
                    .iter()
                    .zip(id.iter())
                    .filter(|(m, _)| m.changed)
                    .map(|(m, &agent)| ArrivalEvent {
                        agent,
                        from: m.previous,
                        to: m.state,
                    }),
            );
        }
    }

    /// An agent's [`Arrival`] after the last tick.
    ///
    /// # Errors
    /// An unknown or despawned handle.
    pub fn arrival(&self, id: AgentId) -> Result<Arrival> {
        Ok(self.cols.arrival[self.row(id)?].state)
    }

    /// Every agent's [`Arrival`] after the last tick, by row (as
    /// [`World::positions`]).
    pub fn arrivals(&self) -> impl ExactSizeIterator<Item = Arrival> + '_ {
        self.cols.arrival.iter().map(|m| m.state)
    }

    /// The changes of [`Arrival`] during the last tick, in row order. Refilled by
    /// every tick into the same buffer (no allocation once it has grown).
    #[must_use]
    pub fn arrival_events(&self) -> &[ArrivalEvent] {
        &self.arrival_events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_hand_worked() {
        let body = |speed: f32| (speed, 2.0, 0.5);
        let moving = ArrivalMemory::spawned(Target::Point(Vec2::ZERO));
        assert_eq!(moving.state, Arrival::Moving);
        assert_eq!(
            ArrivalMemory::spawned(Target::None).state,
            Arrival::NoTarget
        );
        // 0.4 from the goal with radius 0.5: arrived (a change).
        let m = next(
            moving,
            Some(Vec2::ZERO),
            Vec2::new(0.4, 0.0),
            body(1.0),
            0.5,
        );
        assert_eq!(
            (m.state, m.previous, m.changed),
            (Arrival::Arrived, Arrival::Moving, true)
        );
        // Exactly one radius away counts, a hair farther not; once arrived, up to two
        // radii (1.0) still do, and a hair farther not.
        let at = |x: f32, from: ArrivalMemory| {
            next(from, Some(Vec2::ZERO), Vec2::new(x, 0.0), body(0.0), 0.5)
        };
        assert_eq!(at(0.5, moving).state, Arrival::Arrived);
        assert_eq!(at(0.5001, moving).state, Arrival::Moving);
        assert_eq!(
            (at(1.0, m).state, at(1.0, m).changed),
            (Arrival::Arrived, false)
        );
        assert_eq!(
            (at(1.0001, m).state, at(1.0001, m).changed),
            (Arrival::Moving, true)
        );
        // Slower than 5% of 2 (0.1) for 5 s in ticks of 1 s: stuck at the fifth.
        let mut m = moving;
        for tick in 1..=5 {
            m = next(m, Some(Vec2::new(9.0, 0.0)), Vec2::ZERO, body(0.09), 1.0);
            let want = if tick < 5 {
                Arrival::Moving
            } else {
                Arrival::Stuck
            };
            assert_eq!(m.state, want, "tick {tick}");
            assert_eq!(m.slow_for, tick as f32);
        }
        assert!(m.changed);
        // Moving at 0.1 (not slower than 5%) ends it.
        let m = next(m, Some(Vec2::new(9.0, 0.0)), Vec2::ZERO, body(0.1), 1.0);
        assert_eq!(
            (m.state, m.slow_for, m.changed),
            (Arrival::Moving, 0.0, true)
        );
        // No target.
        let m = next(m, None, Vec2::ZERO, body(0.0), 1.0);
        assert_eq!((m.state, m.changed), (Arrival::NoTarget, true));
    }

    /// The pass skips an agent that has had no target for two ticks: `next` must
    /// leave that memory as it is, wherever the agent stands and however fast it goes.
    #[test]
    fn no_target_memory_is_what_next_keeps() {
        let quiet = ArrivalMemory::WITHOUT_TARGET;
        for (p, speed) in [
            (Vec2::ZERO, 0.0),
            (Vec2::new(-3.0, 1e6), 1e30),
            (Vec2::X, 2.0),
        ] {
            assert_eq!(next(quiet, None, p, (speed, 2.0, 0.5), 0.1), quiet);
        }
        // Two ticks after its target is taken away, an agent's memory is that one.
        let moving = ArrivalMemory::spawned(Target::Point(Vec2::ZERO));
        let once = next(moving, None, Vec2::X, (1.0, 2.0, 0.5), 0.1);
        assert!(once.changed);
        assert_eq!(next(once, None, Vec2::X, (1.0, 2.0, 0.5), 0.1), quiet);
    }
}
