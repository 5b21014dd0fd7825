//! Snapshot and restore: everything the next tick reads, as one self-contained,
//! versioned value ([`Snapshot`]) with a compact binary encoding, for saving a game,
//! lockstep joins and rollback. Stepping a restored world is bitwise identical to
//! stepping the original, on any thread count.

use serde::{Deserialize, Serialize};

use crate::agents::{AgentId, Columns, Slots, NO_PATH};
use crate::error::{Result, ThrongError};
use crate::group::{GroupConfig, PathId};
use std::sync::Arc;

use crate::scene::{FieldSpec, GoalField, Obstacle, Path, Wall};

use super::{GroupSlot, LevelOfDetail, World, WorldConfig};

/// The snapshot format's version: a snapshot of another version is refused.
pub const SNAPSHOT_VERSION: u32 = 12;

/// The first bytes of [`Snapshot::to_bytes`]'s form.
const MAGIC: &[u8; 4] = b"THRG";

/// Bytes around the payload: the magic, the payload's length (u64, little-endian)
/// before it, its CRC-32 (u32, little-endian) after it.
const FRAME: usize = MAGIC.len() + 8 + 4;

/// A world's whole state between two ticks ([`World::snapshot`]): configuration,
/// groups, walls, obstacles, paths and goal fields (what they are built from), every agent's columns (body, motion, targets,
/// random stream, behaviour memory, walker plan, last steering output), the handle
/// table, the leader-sight marks, the level of detail and the tick counter. What a tick rebuilds (the
/// neighbour index, scratch) is left out. Serde-serialisable; [`Snapshot::to_bytes`]
/// and [`Snapshot::from_bytes`] give a compact binary form with a checksum: about
/// 110-135 bytes per agent (the bundled flock, arena, city, leader squads, crossings
/// and evacuation at 600 agents), 177 with the approach walker's plans, about 215
/// with every per-agent column in use (host-driven velocities, own paths, second
/// targets, offsets).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Snapshot {
    version: u32,
    config: WorldConfig,
    groups: Vec<GroupConfig>,
    /// Per group slot: its generation, and whether its group was removed.
    group_slots: Vec<GroupSlot>,
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
    elapsed: f64,
    disturbed: usize,
    lod: Option<LevelOfDetail>,
}

/// A [`Snapshot`] borrowed from its world: the same fields in the same order, so its
/// encoding is the snapshot's payload, byte for byte. What the state hash and the
/// snapshot's size are computed from, without copying the world.
#[derive(Serialize)]
pub(super) struct StateView<'a> {
    version: u32,
    config: &'a WorldConfig,
    groups: &'a [GroupConfig],
    group_slots: &'a [GroupSlot],
    walls: &'a [Wall],
    obstacles: &'a [Obstacle],
    paths: &'a [Option<Path>],
    fields: Vec<Option<(&'a FieldSpec, &'a [u16])>>,
    cols: &'a Columns,
    slots: &'a Slots,
    sighted_by: &'a [AgentId],
    tick: u64,
    elapsed: f64,
    disturbed: usize,
    lod: Option<LevelOfDetail>,
}

impl StateView<'_> {
    /// FNV-1a (64 bits) of the encoding, world tags left out.
    pub(super) fn hash(&self) -> u64 {
        crate::agents::untagged(|| {
            postcard::serialize_with_flavor(self, Fnv(0xcbf2_9ce4_8422_2325)).unwrap_or(0)
        })
    }

    /// Bytes of the encoding.
    fn encoded_len(&self) -> usize {
        postcard::serialize_with_flavor(self, Count(0)).unwrap_or(0)
    }
}

/// A postcard flavor that hashes the bytes (FNV-1a over 64 bits) instead of storing
/// them.
struct Fnv(u64);

impl postcard::ser_flavors::Flavor for Fnv {
    type Output = u64;

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.0 ^= u64::from(byte);
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<u64> {
        Ok(self.0)
    }
}

/// A postcard flavor that counts the bytes.
struct Count(usize);

impl postcard::ser_flavors::Flavor for Count {
    type Output = usize;

    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0 += data.len();
        Ok(())
    }

    fn try_push(&mut self, _: u8) -> postcard::Result<()> {
        self.0 += 1;
        Ok(())
    }

    fn finalize(self) -> postcard::Result<usize> {
        Ok(self.0)
    }
}

impl Snapshot {
    /// The compact binary form: `THRG`, the payload's length (u64, little-endian),
    /// the payload (postcard), and a CRC-32 of everything before it (u32,
    /// little-endian), so that a snapshot corrupted on disk or on the wire is refused
    /// rather than loaded as another world.
    ///
    /// # Errors
    /// [`ThrongError::InvalidSnapshot`] if encoding fails (it does not for a
    /// snapshot taken from a world).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(FRAME + self.cols.len() * 128);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[0; 8]);
        let mut out = postcard::to_extend(self, out)
            .map_err(|e| ThrongError::InvalidSnapshot(e.to_string()))?;
        let payload = (out.len() - MAGIC.len() - 8) as u64;
        out[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&payload.to_le_bytes());
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        Ok(out)
    }

    /// Decode [`Snapshot::to_bytes`]'s form.
    ///
    /// # Errors
    /// [`ThrongError::InvalidSnapshot`] for bytes that are not a whole snapshot of
    /// this version as written: truncated, extended or altered anywhere (the
    /// checksum), or of another version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |why: String| ThrongError::InvalidSnapshot(why);
        if bytes.len() < FRAME || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad("not a throng snapshot (no THRG header)".into()));
        }
        let mut len = [0; 8];
        len.copy_from_slice(&bytes[MAGIC.len()..MAGIC.len() + 8]);
        let payload = u64::from_le_bytes(len);
        let expected = (FRAME as u64).checked_add(payload);
        if expected != Some(bytes.len() as u64) {
            return Err(bad(format!(
                "{} bytes where the header promises {} (truncated or extended)",
                bytes.len(),
                expected.map_or_else(|| "more than can be".to_string(), |e| e.to_string())
            )));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let mut crc = [0; 4];
        crc.copy_from_slice(tail);
        if crc32fast::hash(body) != u32::from_le_bytes(crc) {
            return Err(bad("checksum mismatch (the bytes were altered)".into()));
        }
        let (s, rest): (Self, _) =
            postcard::take_from_bytes(&body[MAGIC.len() + 8..]).map_err(|e| bad(e.to_string()))?;
        if !rest.is_empty() {
            return Err(bad(format!("{} bytes after the snapshot", rest.len())));
        }
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
            group_slots: self.group_slots.clone(),
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
            elapsed: self.elapsed,
            disturbed: self.disturbed,
            lod: self.lod,
        }
    }

    /// The world as a [`StateView`].
    pub(super) fn state_view(&self) -> StateView<'_> {
        StateView {
            version: SNAPSHOT_VERSION,
            config: &self.config,
            groups: &self.groups,
            group_slots: &self.group_slots,
            walls: self.walls(),
            obstacles: self.obstacles(),
            paths: &self.paths,
            fields: self
                .fields
                .iter()
                .map(|f| f.as_ref().map(|f| (f.spec(), f.crowd())))
                .collect(),
            cols: &self.cols,
            slots: &self.slots,
            sighted_by: &self.sighted_by,
            tick: self.tick,
            elapsed: self.elapsed,
            disturbed: self.disturbed,
            lod: self.lod,
        }
    }

    /// The length of [`Snapshot::to_bytes`] of [`World::snapshot`], found without
    /// copying or encoding the world into memory (for a host that sizes its buffer
    /// first).
    #[must_use]
    pub fn snapshot_len(&self) -> usize {
        FRAME + self.state_view().encoded_len()
    }

    /// A world rebuilt from a snapshot, on the global thread pool: a copy of the
    /// world the snapshot was taken from, whose handles name the same agents in it.
    ///
    /// # Errors
    /// [`ThrongError::InvalidSnapshot`] when the snapshot is of another version or
    /// does not hold together (columns of different lengths, a group or handle that
    /// does not exist, a value no call accepts: a speed above the agent's top speed,
    /// say), or holds groups, walls or paths [`World::add_group`], [`World::set_walls`]
    /// or [`World::add_path`] would refuse.
    pub fn from_snapshot(snapshot: Snapshot) -> Result<World> {
        World::from_snapshot_checked(snapshot, &[])
    }

    /// [`World::from_snapshot_reusing`], every error an [`ThrongError::InvalidSnapshot`]
    /// (a snapshot whose groups or walls are refused is not a snapshot a world made).
    fn from_snapshot_checked(
        snapshot: Snapshot,
        built: &[Option<Arc<GoalField>>],
    ) -> Result<World> {
        World::from_snapshot_reusing(snapshot, built).map_err(|e| match e {
            ThrongError::InvalidSnapshot(_) => e,
            other => {
                ThrongError::InvalidSnapshot(format!("it holds what a world refuses: {other}"))
            }
        })
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
            group_slots,
            walls,
            obstacles,
            paths,
            fields,
            cols,
            slots,
            sighted_by,
            tick,
            elapsed,
            disturbed,
            lod,
            ..
        } = snapshot;
        let mut world = World::new(config);
        // The snapshot's world from the start: its groups name its paths and fields.
        world.slots = Slots::new(slots.world());
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
        if group_slots.len() != world.groups.len() {
            return Err(bad("a slot state per group"));
        }
        world.group_slots = group_slots;
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
            .any(|&g| world.group(world.group_id(g)).is_none())
        {
            return Err(bad("an agent of a group the snapshot does not have"));
        }
        if cols
            .path
            .rows()
            .iter()
            .any(|&r| r != NO_PATH && world.path(PathId::from_index(r as usize)).is_none())
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
        world.slots = slots.registered();
        world.sighted_by = sighted_by;
        world.tick = tick;
        if !elapsed.is_finite() || elapsed < 0.0 {
            return Err(bad("a clock that is not a finite time"));
        }
        world.elapsed = elapsed;
        world.disturbed = disturbed;
        world.set_level_of_detail(lod)?;
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
        let mut restored = World::from_snapshot_checked(snapshot.clone(), built)?;
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
