//! How much memory a world needs, and whether it fits: checked before a bulk spawn
//! ([`crate::world::World::reserve`], and `Scenario::build` for profiles), so that a
//! crowd too big for the machine is refused with an estimate instead of growing until
//! the operating system ends the process.

use crate::error::{Result, ThrongError};
use crate::spatial::IndexKind;

/// Bytes per agent in steady state with the grid, as estimated before a bulk spawn.
/// Measured on the flock at 1,000,000 agents after 41 ticks: 198 bytes (RSS), for
///
/// - the agent columns, 130 bytes a row: position, velocity and unit velocity (8
///   each), heading, rotation, mass, maximum speed and force, radius (4 each), the
///   target (16), handle (12), group (2), random stream (16), behaviour memory
///   (12), arrival state (8), steering output (16); and the handle table (8).
///   Columns most worlds never use take nothing until some agent needs them
///   (lazy columns): a second target (16), a formation offset (8), the approach
///   walker's state (64), a preferred velocity (8), an own path (4);
/// - the grid's entries (positions, row ids and unit velocities, 24 per row) and
///   the row's cell (4);
/// - the spatial re-sort's keys (8, sorted in place; the order is read from their
///   low halves and its cycles written into their high halves) and two bits a
///   row; the columns are put in order in place, with no spare copy of any;
/// - the rest (about 24): the allocator's slack, memory the spawn used and
///   freed that the allocator keeps;
///
/// rounded up to 256 for other profiles (the city at 100,000: 235).
pub const BYTES_PER_AGENT_GRID: u64 = 256;

/// Bytes per agent in steady state with the k-d tree, as estimated before a bulk
/// spawn: as with the grid, but kiddo's tree, built anew every tick, instead of the
/// grid's entries. The live memory is about the grid's, but glibc's allocator keeps
/// the freed blocks of earlier ticks' trees: the resident set climbs for about 40
/// ticks to a plateau (382 bytes on the flock at 200,000 agents, 522 on the city at
/// 200,000), so 560.
pub const BYTES_PER_AGENT_KDTREE: u64 = 560;

/// What a world of `agents` agents on `index` needs, in bytes (an estimate: see
/// [`BYTES_PER_AGENT_GRID`] and [`BYTES_PER_AGENT_KDTREE`]).
#[must_use]
pub fn estimate(agents: usize, index: IndexKind) -> u64 {
    let per = match index {
        IndexKind::Grid => BYTES_PER_AGENT_GRID,
        IndexKind::KdTree => BYTES_PER_AGENT_KDTREE,
    };
    (agents as u64).saturating_mul(per)
}

/// Memory this process can still take, in bytes: the system's available memory,
/// and the room left under the process's control-group limit when it has one. `None`
/// where neither can be read (then nothing is refused).
#[must_use]
pub fn available() -> Option<u64> {
    let system = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| meminfo_available(&s));
    let group = cgroup_room(
        std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .as_deref(),
        std::fs::read_to_string("/sys/fs/cgroup/memory.current")
            .ok()
            .as_deref(),
    );
    match (system, group) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Room under a cgroup v2 limit (`memory.max`, `memory.current`); `None` without a
/// limit (`max`) or when either cannot be read.
fn cgroup_room(max: Option<&str>, current: Option<&str>) -> Option<u64> {
    let max: u64 = max?.trim().parse().ok()?;
    let current: u64 = current?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// Refuse `agents` more agents (on top of `existing`) when the world they make would
/// not fit in the memory [`available`] now: [`ThrongError::OutOfMemory`] with the
/// estimate. Allowed when the available memory cannot be read.
pub fn check_fits(existing: usize, agents: usize, index: IndexKind) -> Result<()> {
    let needed = estimate(agents, index);
    match available() {
        Some(available) if needed > available => Err(ThrongError::OutOfMemory {
            agents: existing.saturating_add(agents),
            needed: estimate(existing.saturating_add(agents), index),
            available: available.saturating_add(estimate(existing, index)),
        }),
        _ => Ok(()),
    }
}

pub use crate::error::human;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_meminfo_and_cgroup_limits() {
        let meminfo = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(2048 * 1024));
        assert_eq!(meminfo_available("MemTotal: 1 kB\n"), None);
        assert_eq!(cgroup_room(Some("1000\n"), Some("400\n")), Some(600));
        assert_eq!(cgroup_room(Some("max\n"), Some("400\n")), None);
        assert_eq!(cgroup_room(Some("300\n"), Some("400\n")), Some(0));
        assert_eq!(cgroup_room(None, Some("1")), None);
    }

    #[test]
    fn estimates_scale_with_agents_and_index() {
        assert_eq!(estimate(1_000_000, IndexKind::Grid), 256_000_000);
        assert_eq!(estimate(2, IndexKind::KdTree), 1120);
        assert_eq!(estimate(usize::MAX, IndexKind::KdTree), u64::MAX);
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(3 * 1024 * 1024 / 2), "1.5 MiB");
        assert_eq!(human(320_000_000), "305.2 MiB");
    }

    #[test]
    fn refuses_what_cannot_fit_with_the_estimate() {
        // No machine has an exabyte to spare.
        let e = check_fits(10, usize::MAX / 2, IndexKind::Grid).unwrap_err();
        match e {
            ThrongError::OutOfMemory { agents, needed, .. } => {
                assert_eq!(agents, usize::MAX / 2 + 10);
                assert_eq!(needed, u64::MAX);
            }
            other => panic!("{other}"),
        }
        assert!(
            e.to_string().contains("more memory than can be counted"),
            "{e}"
        );
        // A crowd too large for this machine but countable says how much it needs.
        let e = check_fits(0, 1 << 40, IndexKind::Grid).unwrap_err();
        assert!(e.to_string().contains("agents need about"), "{e}");
        // A handful always fits.
        assert!(check_fits(0, 10, IndexKind::KdTree).is_ok());
    }
}
