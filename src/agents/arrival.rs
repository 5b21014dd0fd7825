//! An agent's standing with its target ([`Arrival`]), as its column keeps it: the
//! state, how long it has been slow, and whether the last tick changed it. The world
//! moves it on in every tick's integration pass, from the agent's new state.

use serde::{Deserialize, Serialize};

use super::AgentId;

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
    /// It follows a goal field, and no goal of the field can be reached from where it
    /// stands (a room walled off, a body inside an obstacle). It stands still; a way
    /// opening (the walls changed) or a push back onto the walkable area ends it.
    Unreachable,
    /// Its target point is taken: others bound for the same point stand nearer it,
    /// and it touches one of them, so it waits at the edge of the crowd there instead
    /// of pressing in (avoiding groups only: the avoidance's queue at a shared goal).
    /// Not counted toward [`Arrival::Stuck`]. The crowd ahead moving on, or reaching
    /// its target, ends it.
    Queued,
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
    /// Whether the steering pass found its target point taken ([`Arrival::Queued`]);
    /// written by the avoidance of its group (each agent its own row), read by the
    /// arrival judged after it.
    pub queued: bool,
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
    /// or more: what arrival keeps it at while it has none.
    pub(crate) const WITHOUT_TARGET: Self = Self {
        state: Arrival::NoTarget,
        previous: Arrival::NoTarget,
        slow_for: 0.0,
        changed: false,
        queued: false,
    };

    /// A newly spawned agent's: moving when it aims at something, a target or its
    /// group's goal field (so that its first tick reports only a real arrival), else
    /// no target.
    pub(crate) fn spawned(aims: bool) -> Self {
        let state = if aims {
            Arrival::Moving
        } else {
            Arrival::NoTarget
        };
        Self {
            state,
            previous: state,
            slow_for: 0.0,
            changed: false,
            queued: false,
        }
    }
}
