//! Stable generational agent handles, tagged with their world.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// A stable handle to an agent. Rows move when other agents are despawned or the
/// crowd is re-sorted; ids don't. A handle whose agent was despawned is *stale*:
/// every API call with it returns [`crate::ThrongError::UnknownAgent`], even after
/// its slot is reused (the generation differs).
///
/// A handle also carries its world's tag: given to another world, it is refused
/// with [`crate::ThrongError::ForeignAgent`] rather than naming whichever agent
/// holds the same slot there. A world restored from a snapshot
/// ([`crate::World::from_snapshot`], [`crate::World::restore`]) takes the
/// snapshot's tag, so the handles of the world it was taken from name the same
/// agents in it (rollback, lockstep peers).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct AgentId {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    pub(crate) world: WorldTag,
}

/// Which world a handle belongs to: a number given to each world made with
/// [`crate::World::new`], distinct within the process, and carried by snapshots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
pub struct WorldTag(pub(crate) u32);

thread_local! {
    /// Whether tags are being written for the state hash, which leaves them out.
    static UNTAGGED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with every [`WorldTag`] it serialises written as the tag of no world: the
/// state hash of two worlds built alike is the same, whatever tags they were given.
pub(crate) fn untagged<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            UNTAGGED.with(|u| u.set(self.0));
        }
    }
    let _reset = Reset(UNTAGGED.with(|u| u.replace(true)));
    f()
}

impl serde::Serialize for WorldTag {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tag = if UNTAGGED.with(std::cell::Cell::get) {
            WorldTag::NONE
        } else {
            *self
        };
        serializer.serialize_newtype_struct("WorldTag", &tag.0)
    }
}

impl WorldTag {
    /// The tag of no world (that of [`WorldTag::fresh`] never is).
    pub(crate) const NONE: WorldTag = WorldTag(0);

    /// A tag no other world of this process has been given.
    pub(crate) fn fresh() -> WorldTag {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        loop {
            let tag = NEXT.fetch_add(1, Ordering::Relaxed);
            if tag != 0 {
                return WorldTag(tag);
            }
        }
    }

    /// The 32 bits that [`AgentId::to_bits`] mixes into a handle's generation: an odd
    /// multiple, so distinct tags give distinct masks.
    fn mask(self) -> u32 {
        self.0.wrapping_mul(0x9E37_79B9)
    }
}

impl fmt::Display for WorldTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "world {}", self.0)
    }
}

impl AgentId {
    /// The slot index (stable for the agent's life; reused after despawn).
    #[must_use]
    pub fn index(self) -> u32 {
        self.index
    }

    /// The generation of the slot when this agent was spawned.
    #[must_use]
    pub fn generation(self) -> u32 {
        self.generation
    }

    /// The world the handle belongs to.
    #[must_use]
    pub fn world(self) -> WorldTag {
        self.world
    }

    /// Pack into 64 bits, e.g. for a host's own maps or a C caller: the index low,
    /// the generation high, mixed with the world's tag so that the bits of one
    /// world's handle, turned back by another world's
    /// [`crate::World::agent_from_bits`], name no agent there (but for a 1 in 2^32
    /// chance). Within one world (and its restored copies) the bits are stable.
    #[must_use]
    pub fn to_bits(self) -> u64 {
        (u64::from(self.generation ^ self.world.mask()) << 32) | u64::from(self.index)
    }

    /// Inverse of [`AgentId::to_bits`] for a handle of the world tagged `world`.
    pub(crate) fn from_bits(bits: u64, world: WorldTag) -> Self {
        Self {
            index: bits as u32,
            generation: (bits >> 32) as u32 ^ world.mask(),
            world,
        }
    }

    /// Index and generation in 64 bits (the generation high), without the world: the
    /// same in every world built alike, so fit for logs and files (the CLI's CSV
    /// `id`); it seeds the agent's random stream and enters the state hash. Unlike
    /// [`AgentId::to_bits`], it is not turned back into a handle.
    #[must_use]
    pub fn key(self) -> u64 {
        (u64::from(self.generation) << 32) | u64::from(self.index)
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

/// A group (archetype) of a world: its slot index, the slot's generation, and the
/// world's tag. A removed group's slot is taken by a later group with the next
/// generation, so the removed group's id stays dead and ids do not run out; another
/// world's group id is refused rather than taken for one of this world's (a world
/// restored from a snapshot takes the snapshot's tag, as for [`AgentId`]).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct GroupId {
    pub(crate) index: u16,
    pub(crate) generation: u16,
    pub(crate) world: WorldTag,
}

impl GroupId {
    /// The group's slot in the world: groups take slots in the order they are added,
    /// a new group the lowest slot a removed one left.
    #[must_use]
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// How many groups held the slot before this one.
    #[must_use]
    pub fn generation(self) -> u16 {
        self.generation
    }

    /// Slot and generation in 32 bits (the generation high), without the world: the
    /// C ABI's group id ([`crate::World::group_from_bits`] turns it back).
    #[must_use]
    pub fn to_bits(self) -> u32 {
        (u32::from(self.generation) << 16) | u32::from(self.index)
    }

    /// The world the group belongs to.
    #[must_use]
    pub fn world(self) -> WorldTag {
        self.world
    }
}

impl fmt::Display for GroupId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.generation {
            0 => write!(f, "#{}", self.index),
            g => write!(f, "#{}v{g}", self.index),
        }
    }
}

const NO_ROW: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Slot {
    generation: u32,
    row: u32,
}

/// Maps handles to rows. Slots are reused after despawn with a bumped generation.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Slots {
    /// The world's tag, given to every handle allocated here.
    world: WorldTag,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// What this table has given out, as the other live worlds see it (not part of
    /// the state: a table read from a snapshot is entered by [`Slots::registered`]).
    #[serde(skip)]
    given: Arc<GivenOut>,
}

/// How far a slot table's handles reach: its slot count and the highest generation
/// it has given out. Kept in [`LIVE`] for every live world, so that a handle's bits
/// that one world does not know can be recognised as another live world's (a C
/// caller's bits carry the world only as a mask: [`AgentId::to_bits`]).
#[derive(Debug, Default)]
struct GivenOut {
    slots: AtomicU32,
    generation: AtomicU32,
}

impl GivenOut {
    /// Whether a table of this reach could have given out `id`.
    fn could_have_given(&self, id: AgentId) -> bool {
        id.index < self.slots.load(Ordering::Relaxed)
            && id.generation <= self.generation.load(Ordering::Relaxed)
    }

    fn note(&self, id: AgentId) {
        self.slots.fetch_max(id.index + 1, Ordering::Relaxed);
        self.generation.fetch_max(id.generation, Ordering::Relaxed);
    }
}

/// The slot tables of the live worlds, by tag (a world's copies restored from its
/// snapshots share its tag). Entries of dropped worlds are swept when a world
/// registers.
static LIVE: Mutex<Vec<(WorldTag, Weak<GivenOut>)>> = Mutex::new(Vec::new());

impl Slots {
    /// An empty table for the world tagged `world`.
    pub(crate) fn new(world: WorldTag) -> Self {
        Self {
            world,
            slots: Vec::new(),
            free: Vec::new(),
            given: Arc::default(),
        }
        .registered()
    }

    /// This table entered among the live worlds' (done by [`Slots::new`]; a table
    /// read from a snapshot is entered with this).
    pub(crate) fn registered(mut self) -> Self {
        let given = Arc::new(GivenOut::default());
        given.slots.store(
            u32::try_from(self.slots.len()).unwrap_or(u32::MAX),
            Ordering::Relaxed,
        );
        let highest = self.slots.iter().map(|s| s.generation).max().unwrap_or(0);
        given.generation.store(highest, Ordering::Relaxed);
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|(_, w)| w.strong_count() > 0);
        live.push((self.world, Arc::downgrade(&given)));
        self.given = given;
        self
    }

    /// The handle that `bits` ([`AgentId::to_bits`]) name: this world's, or, where
    /// no agent of this world has them and another live world has given out such a
    /// handle, that world's (so that the caller hears it belongs elsewhere).
    pub(crate) fn handle_of_bits(&self, bits: u64) -> AgentId {
        let here = AgentId::from_bits(bits, self.world);
        if self.row(here).is_some() {
            return here;
        }
        let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.iter()
            .filter(|(tag, _)| *tag != self.world)
            .find_map(|(tag, given)| {
                let there = AgentId::from_bits(bits, *tag);
                given
                    .upgrade()
                    .is_some_and(|g| g.could_have_given(there))
                    .then_some(there)
            })
            .unwrap_or(here)
    }

    /// The tag of the world these slots belong to.
    pub(crate) fn world(&self) -> WorldTag {
        self.world
    }

    /// A new handle pointing at `row`.
    pub(crate) fn alloc(&mut self, row: u32) -> Option<AgentId> {
        let id = if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.row = row;
            AgentId {
                index,
                generation: slot.generation,
                world: self.world,
            }
        } else {
            let index = u32::try_from(self.slots.len())
                .ok()
                .filter(|&i| i != NO_ROW)?;
            self.slots.push(Slot { generation: 0, row });
            AgentId {
                index,
                generation: 0,
                world: self.world,
            }
        };
        self.given.note(id);
        Some(id)
    }

    /// The row of a live handle of this world.
    #[inline]
    pub(crate) fn row(&self, id: AgentId) -> Option<u32> {
        let slot = self.slots.get(id.index as usize)?;
        (slot.generation == id.generation && slot.row != NO_ROW && id.world == self.world)
            .then_some(slot.row)
    }

    /// Point a live handle at a new row.
    #[inline]
    pub(crate) fn set_row(&mut self, id: AgentId, row: u32) {
        let slot = &mut self.slots[id.index as usize];
        debug_assert_eq!(slot.generation, id.generation);
        slot.row = row;
    }

    /// Whether these slots are exactly the handles `ids` at their rows (row k holds
    /// `ids[k]`), every other slot free and listed once in the free list: for a table
    /// read from outside, such as a snapshot.
    pub(crate) fn consistent_with(&self, ids: &[AgentId]) -> bool {
        let live = self.slots.iter().filter(|s| s.row != NO_ROW).count();
        let rows_match = ids
            .iter()
            .enumerate()
            .all(|(row, &id)| u32::try_from(row).is_ok_and(|r| self.row(id) == Some(r)));
        let mut listed = vec![false; self.slots.len()];
        let free_ok = self.free.iter().all(|&i| {
            let fresh = listed.get(i as usize).is_some_and(|&seen| !seen);
            if fresh {
                listed[i as usize] = true;
            }
            fresh && self.slots[i as usize].row == NO_ROW
        });
        live == ids.len() && rows_match && free_ok && self.free.len() + live == self.slots.len()
    }

    /// Free a live handle's slot.
    pub(crate) fn free(&mut self, id: AgentId) {
        let slot = &mut self.slots[id.index as usize];
        slot.row = NO_ROW;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_handles_are_rejected_after_reuse() {
        let mut s = Slots::new(WorldTag(3));
        let a = s.alloc(0).unwrap();
        let b = s.alloc(1).unwrap();
        s.free(a);
        assert_eq!(s.row(a), None);
        let c = s.alloc(0).unwrap();
        assert_eq!(c.index(), a.index());
        assert_ne!(c, a);
        assert_eq!(s.row(a), None);
        assert_eq!(s.row(c), Some(0));
        assert_eq!(s.row(b), Some(1));
        assert_eq!(AgentId::from_bits(c.to_bits(), WorldTag(3)), c);
    }

    #[test]
    fn a_handle_of_another_world_names_no_row() {
        let mut here = Slots::new(WorldTag(3));
        let mut there = Slots::new(WorldTag(4));
        let mine = here.alloc(0).unwrap();
        let theirs = there.alloc(0).unwrap();
        assert_eq!(
            (mine.index(), mine.generation()),
            (theirs.index(), theirs.generation())
        );
        assert_eq!(here.row(theirs), None);
        assert_eq!(here.row(mine), Some(0));
        // Through the bits too: another world's bits decode to another generation.
        let decoded = AgentId::from_bits(theirs.to_bits(), WorldTag(3));
        assert_eq!(here.row(decoded), None);
        assert_eq!(mine.key(), theirs.key());
    }
}
