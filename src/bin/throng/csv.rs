//! CSV export: `tick,id,group,x,y,vx,vy,heading`, one row per agent per
//! written tick, agents in id order. `id` is the handle's key
//! ([`throng::AgentId::key`]: the slot index, plus its generation times 2³²
//! once a despawned agent's slot is reused), so a reused slot is a new id. Numbers
//! are written in their shortest exact form, so equal worlds give byte-identical
//! files.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use throng::scenario::Scenario;

/// Writes the rows of a run.
pub struct CsvWriter {
    out: BufWriter<File>,
    /// Row of each agent, by id slot, rebuilt for every written tick.
    by_id: Vec<u32>,
}

impl CsvWriter {
    /// A writer into `file`. The header is
    /// written with the first tick.
    pub fn new(file: File) -> Self {
        Self {
            out: BufWriter::with_capacity(1 << 20, file),
            by_id: Vec::new(),
        }
    }

    /// Write one row per agent for the world's current tick.
    pub fn write_tick(&mut self, scenario: &Scenario) -> io::Result<()> {
        let w = scenario.world();
        if w.tick() == 0 {
            writeln!(self.out, "tick,id,group,x,y,vx,vy,heading")?;
        }
        let ids = w.ids();
        let slots = ids
            .iter()
            .map(|id| id.index() as usize + 1)
            .max()
            .unwrap_or(0);
        self.by_id.clear();
        self.by_id.resize(slots, u32::MAX);
        for (row, id) in ids.iter().enumerate() {
            self.by_id[id.index() as usize] = row as u32;
        }
        let (pos, vel, heading, group) = (
            w.positions(),
            w.velocities(),
            w.headings(),
            w.group_indices(),
        );
        let names = scenario.groups();
        let tick = w.tick();
        for &row in &self.by_id {
            if row == u32::MAX {
                continue;
            }
            let r = row as usize;
            let name = names
                .get(group[r] as usize)
                .map_or("?", |g| g.name.as_str());
            writeln!(
                self.out,
                "{tick},{},{name},{},{},{},{},{}",
                ids[r].key(),
                pos[r].x,
                pos[r].y,
                vel[r].x,
                vel[r].y,
                heading[r]
            )?;
        }
        Ok(())
    }

    /// Flush everything to the file.
    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_all()
    }
}
