//! Stable generational agent handles.

use std::fmt;

/// A stable handle to an agent. Rows move when other agents are despawned or the
/// crowd is re-sorted; ids don't. A handle whose agent was despawned is *stale*:
/// every API call with it returns [`crate::ThrongError::UnknownAgent`], even after
/// its slot is reused (the generation differs).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct AgentId {
    pub(crate) index: u32,
    pub(crate) generation: u32,
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

    /// Pack into 64 bits (generation high, index low), e.g. for a host's own maps.
    #[must_use]
    pub fn to_bits(self) -> u64 {
        ((self.generation as u64) << 32) | self.index as u64
    }

    /// Inverse of [`AgentId::to_bits`]. The result may name no live agent.
    #[must_use]
    pub fn from_bits(bits: u64) -> Self {
        Self {
            index: bits as u32,
            generation: (bits >> 32) as u32,
        }
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

/// Index of a group (archetype) in its world.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct GroupId(pub(crate) u16);

impl GroupId {
    /// The group's index in the world, in the order groups were added.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for GroupId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

const NO_ROW: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Slot {
    generation: u32,
    row: u32,
}

/// Maps handles to rows. Slots are reused after despawn with a bumped generation.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl Slots {
    /// A new handle pointing at `row`.
    pub(crate) fn alloc(&mut self, row: u32) -> Option<AgentId> {
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.row = row;
            return Some(AgentId {
                index,
                generation: slot.generation,
            });
        }
        let index = u32::try_from(self.slots.len())
            .ok()
            .filter(|&i| i != NO_ROW)?;
        self.slots.push(Slot { generation: 0, row });
        Some(AgentId {
            index,
            generation: 0,
        })
    }

    /// The row of a live handle.
    #[inline]
    pub(crate) fn row(&self, id: AgentId) -> Option<u32> {
        let slot = self.slots.get(id.index as usize)?;
        (slot.generation == id.generation && slot.row != NO_ROW).then_some(slot.row)
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
        let mut s = Slots::default();
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
        assert_eq!(AgentId::from_bits(c.to_bits()), c);
    }
}
