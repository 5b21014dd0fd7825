//! Errors returned at the edges of the engine (API validation). `World::step`
//! fails only for an invalid `dt`, or after a tick panicked.

use thiserror::Error;

use crate::agents::{AgentId, GroupId};

/// An invalid argument to the embedding API.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ThrongError {
    /// A value that must be finite was NaN or infinite.
    #[error("{field} must be finite, got {value}")]
    NonFinite {
        /// The argument or field.
        field: &'static str,
        /// The value given.
        value: f32,
    },
    /// A value that must be strictly positive was not.
    #[error("{field} must be greater than 0, got {value}")]
    NotPositive {
        /// The argument or field.
        field: &'static str,
        /// The value given.
        value: f32,
    },
    /// A value that must not be negative was.
    #[error("{field} must not be negative, got {value}")]
    Negative {
        /// The argument or field.
        field: &'static str,
        /// The value given.
        value: f32,
    },
    /// The handle names no live agent (never spawned, or despawned since).
    #[error("unknown or despawned agent {0} (handle {bits:#018x})", bits = .0.to_bits())]
    UnknownAgent(AgentId),
    /// The handle belongs to another world (one not restored from this world's
    /// snapshots, nor this one from its).
    #[error(
        "agent {0} (handle {bits:#018x}) belongs to another world ({world}) than this one",
        bits = .0.to_bits(),
        world = .0.world()
    )]
    ForeignAgent(AgentId),
    /// The group id names no group of this world (never added, or removed since).
    #[error("unknown group {0}")]
    UnknownGroup(GroupId),
    /// The group id belongs to another world (one not restored from this world's
    /// snapshots, nor this one from its).
    #[error("group {0} belongs to another world ({world}) than this one", world = .0.world())]
    ForeignGroup(GroupId),
    /// A group or scene parameter is invalid.
    #[error("invalid {field}: {reason}")]
    InvalidParameter {
        /// Which parameter (a dotted path such as `behaviours[2].slowing_radius`).
        field: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A wall, obstacle or path is invalid.
    #[error(transparent)]
    Scene(#[from] crate::scene::SceneError),
    /// The world cannot hold more agents or groups.
    #[error("capacity exceeded: {0}")]
    Capacity(&'static str),
    /// A snapshot could not be read or does not hold together.
    #[error("invalid snapshot: {0}")]
    InvalidSnapshot(String),
    /// A tick panicked (a defect: please report it with the message), which may have
    /// left the agents' columns half-written; the world refuses to step until a
    /// snapshot is restored ([`crate::World::restore`]).
    #[error("a tick panicked ({0}); restore a snapshot to go on")]
    Panicked(String),
    /// The agents asked for would not fit in the memory available (an estimate, see
    /// [`crate::memory`]); nothing was spawned.
    #[error(
        "{agents} agents need {}, but only {} is available",
        needs(*needed, *agents),
        human(*available)
    )]
    OutOfMemory {
        /// Agents the world would hold.
        agents: usize,
        /// Estimated bytes they need.
        needed: u64,
        /// Bytes available to the process.
        available: u64,
    },
}

/// What `agents` need, for [`ThrongError::OutOfMemory`]'s message: about `needed`
/// bytes and so many each, or more than can be counted.
fn needs(needed: u64, agents: usize) -> String {
    if needed == u64::MAX {
        return "more memory than can be counted".to_string();
    }
    format!(
        "about {} ({} bytes each)",
        human(needed),
        needed.checked_div(agents as u64).unwrap_or(0)
    )
}

/// Result alias of the engine.
pub type Result<T, E = ThrongError> = std::result::Result<T, E>;

/// Check that `value` is finite.
pub(crate) fn finite(field: &'static str, value: f32) -> Result<f32> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ThrongError::NonFinite { field, value })
    }
}

/// Check that `value` is finite and > 0.
pub(crate) fn positive(field: &'static str, value: f32) -> Result<f32> {
    finite(field, value)?;
    if value > 0.0 {
        Ok(value)
    } else {
        Err(ThrongError::NotPositive { field, value })
    }
}

/// Check that `value` is finite and >= 0.
pub(crate) fn non_negative(field: &'static str, value: f32) -> Result<f32> {
    finite(field, value)?;
    if value >= 0.0 {
        Ok(value)
    } else {
        Err(ThrongError::Negative { field, value })
    }
}

/// Check both components of a vector are finite.
pub(crate) fn finite_vec(field: &'static str, v: glam::Vec2) -> Result<glam::Vec2> {
    finite(field, v.x)?;
    finite(field, v.y)?;
    Ok(v)
}

/// `bytes` in the unit that reads best (`"1.5 GiB"`).
#[must_use]
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
