//! Snapshot and restore: everything the next tick reads, as one self-contained,
//! versioned value ([`Snapshot`]) with a compact binary encoding, for saving a game,
//! lockstep joins and rollback. Stepping a restored world is bitwise identical to
//! stepping the original, on any thread count.

use serde::{Deserialize, Serialize};

use crate::agents::{AgentId, Columns, GroupId, Slots, NO_ROUTE};
use crate::error::{Result, ThrongError};
use crate::group::{GroupConfig, PathId};
use std::sync::Arc;

use crate::scene::{FieldSpec, GoalField, Obstacle, Path, Wall};

use super::{World, WorldConfig};

/// The snapshot format's version: a snapshot of another version is refused.
pub const SNAPSHOT_VERSION: u32 = 5;

/// A world's whole state between two ticks ([`World::snapshot`]): configuration,
/// groups, walls, obstacles, paths and goal fields (what they are built from), every agent's columns (body, motion, targets,
/// random stream, behaviour memory, walker plan, last steering output), the handle
/// table, the leader-sight marks and the tick counter. What a tick rebuilds (the
/// neighbour index, scratch) is left out. Serde-serialisable; [`Snapshot::to_bytes`]
/// and [`Snapshot::from_bytes`] give a compact binary form: about 110-130 bytes per
/// agent (the bundled flock, arena, city and leader squads at 600 agents), 175 with
/// the approach walker's plans.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Snapshot {
    version: u32,
    config: WorldConfig,
    groups: Vec<GroupConfig>,
    /// Per group: whether it was removed.
    removed_groups: Vec<bool>,
    walls: Vec<Wall>,
    obstacles: Vec<Obstacle>,
    /// By path id; `None` where a path was removed.
    paths: Vec<Option<Path>>,
    /// By field id: what each goal field is built from, and for a congestion-aware one
    /// the crowd it was last counted for; `None` where one was removed.
    fields: Vec<Option<(FieldSpec, Vec<u16>)>>,
    cols: Columns,
    slots: Slots,
    sighted_by: Vec<AgentId>,
    tick: u64,
    disturbed: usize,
}

impl Snapshot {
    /// The compact binary form (postcard).
    ///
    /// # Errors
    /// [`ThrongError::InvalidSnapshot`] if encoding fails (it does not for a
    /// snapshot taken from a world).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        postcard::to_allocvec(self).map_err(|e| ThrongError::InvalidSnapshot(e.to_string()))
    }

    /// Decode [`Snapshot::to_bytes`]'s form.
    ///
    /// # Errors
    /// [`ThrongError::InvalidSnapshot`] for bytes that are not a snapshot of this
    /// version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let s: Self =
            postcard::from_bytes(bytes).map_err(|e| ThrongError::InvalidSnapshot(e.to_string()))?;
        s.check_version()?;
        Ok(s)
    }

    /// Agents in the snapshot.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cols.len()
    }

    /// Whether the snapshot holds no agent.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cols.len() == 0
    }

    /// The tick the snapshot was taken after.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    fn check_version(&self) -> Result<()> {
        if self.version == SNAPSHOT_VERSION {
            Ok(())
        } else {
            Err(ThrongError::InvalidSnapshot(format!(
                "version {} (this build reads version {SNAPSHOT_VERSION})",
                self.version
            )))
        }
    }
}

impl World {
    /// Everything the next tick reads, as a [`Snapshot`]: restoring it
    /// ([`World::from_snapshot`], [`World::restore`]) and stepping gives bitwise the
    /// same worlds as stepping this one. The thread pool is not part of it.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            version: SNAPSHOT_VERSION,
            config: self.config.clone(),
            groups: self.groups.clone(),
            removed_groups: self.removed_groups.clone(),
            walls: self.walls().to_vec(),
            obstacles: self.obstacles().to_vec(),
            paths: self.paths.clone(),
            fields: self
                .fields
                .iter()
                .map(|f| f.as_ref().map(|f| (f.spec().clone(), f.crowd().to_vec())))
                .collect(),
            cols: self.cols.clone(),
            slots: self.slots.clone(),
            sighted_by: self.sighted_by.clone(),
            tick: self.tick,
            disturbed: self.disturbed,
        }
    }

    /// A world rebuilt from a snapshot, on the global thread pool: a copy of the
    /// world the snapshot was taken from, whose handles name the same agents in it.
    ///
    /// # Errors
    /// [`ThrongError::InvalidSnapshot`] when the snapshot is of another version or
    /// does not hold together (columns of different lengths, a group or handle that
    /// does not exist, a value no spawn accepts); the group, wall and path errors of [`World::add_group`],
    /// [`World::set_walls`] and [`World::add_path`] for invalid contents.
    pub fn from_snapshot(snapshot: Snapshot) -> Result<World> {
        World::from_snapshot_reusing(snapshot, &[])
    }

    /// [`World::from_snapshot`], taking each goal field from `built` (by id) where it
    /// was built from the same spec over the same walls and obstacles, instead of
    /// building it again (a rollback restores every frame).
    fn from_snapshot_reusing(
        snapshot: Snapshot,
        built: &[Option<Arc<GoalField>>],
    ) -> Result<World> {
        snapshot.check_version()?;
        let bad = |why: &str| ThrongError::InvalidSnapshot(why.to_string());
        let Snapshot {
            config,
            groups,
            removed_groups,
            walls,
            obstacles,
            paths,
            fields,
            cols,
            slots,
            sighted_by,
            tick,
            disturbed,
            ..
        } = snapshot;
        let mut world = World::new(config);
        world.set_walls(&walls)?;
        world.set_obstacles(&obstacles)?;
        // Removed paths, fields and groups keep their places, so that the ids stay.
        world.paths = paths;
        for (i, field) in fields.into_iter().enumerate() {
            let Some((spec, crowd)) = field else {
                world.fields.push(None);
                continue;
            };
            match built.get(i).and_then(Option::as_ref) {
                Some(f) if *f.spec() == spec && f.crowd() == crowd.as_slice() => {
                    world.fields.push(Some(Arc::clone(f)));
                }
                _ if spec.congestion.is_some() => {
                    let f = GoalField::build_crowded(&spec, &walls, &obstacles, crowd)?;
                    world.fields.push(Some(Arc::new(f)));
                }
                _ => {
                    world.add_goal_field(spec)?;
                }
            }
        }
        for group in groups {
            world.add_group(group)?;
        }
        if removed_groups.len() != world.groups.len() {
            return Err(bad("a removal mark per group"));
        }
        world.removed_groups = removed_groups;
        if !cols.holds_together() {
            return Err(bad("agent columns of different lengths"));
        }
        if let Some(row) = cols.first_invalid_row() {
            return Err(ThrongError::InvalidSnapshot(format!(
                "agent {} holds a value no spawn accepts",
                cols.id[row]
            )));
        }
        if cols
            .group
            .iter()
            .any(|&g| world.group(GroupId(g)).is_none())
        {
            return Err(bad("an agent of a group the snapshot does not have"));
        }
        if cols
            .route
            .rows()
            .iter()
            .any(|&r| r != NO_ROUTE && world.path(PathId(r)).is_none())
        {
            return Err(bad("an agent's own path that the snapshot does not have"));
        }
        if !slots.consistent_with(&cols.id) {
            return Err(bad("handles that do not match the agents' rows"));
        }
        if sighted_by.len() > cols.len() {
            return Err(bad("more leader-sight marks than agents"));
        }
        world.cols = cols;
        if world.plans.iter().any(|p| p.walks) {
            world.cols.start_walking();
        }
        world.slots = slots;
        world.sighted_by = sighted_by;
        world.tick = tick;
        world.disturbed = disturbed;
        Ok(world)
    }

    /// Put this world back in the state of `snapshot`, keeping its thread pool. The
    /// world becomes the snapshot's world: handles of the world the snapshot was
    /// taken from name their agents here, and this world's handles from before are
    /// foreign unless it is that world (rollback).
    ///
    /// # Errors
    /// As [`World::from_snapshot`]; on error the world is unchanged.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<()> {
        let same_scene = same_walls(self.walls(), &snapshot.walls)
            && self.obstacles() == snapshot.obstacles.as_slice();
        let built: &[Option<Arc<GoalField>>] = if same_scene { &self.fields } else { &[] };
        let mut restored = World::from_snapshot_reusing(snapshot.clone(), built)?;
        restored.pool = self.pool.take();
        // Keep this world's working buffers, so that the ticks after a restore (every
        // frame, in rollback networking) do not allocate and touch them afresh. Their
        // contents are never read before a tick rebuilds them: the index from the
        // positions, the re-sort's keys and cycles, the steering and leader
        // sight scratch.
        if restored.index.kind() == self.index.kind() {
            std::mem::swap(&mut restored.index, &mut self.index);
        }
        std::mem::swap(&mut restored.order_scratch, &mut self.order_scratch);
        std::mem::swap(&mut restored.cycles, &mut self.cycles);
        std::mem::swap(&mut restored.scratch, &mut self.scratch);
        std::mem::swap(&mut restored.sight, &mut self.sight);
        *self = restored;
        Ok(())
    }
}

/// Whether two lists of walls are the same walls, bit for bit.
fn same_walls(a: &[Wall], b: &[Wall]) -> bool {
    let bits = |w: &Wall| [w.a(), w.b(), w.normal()].map(|v| [v.x.to_bits(), v.y.to_bits()]);
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| bits(a) == bits(b))
}
