//! Stage 4, steering: the world builds the steering stage's read-only context over its
//! columns and scene, lends it the columns the stage writes, and calls
//! [`crate::steer::steer`].

use std::sync::Mutex;

use crossbeam_utils::CachePadded;

use crate::agents::Columns;
use crate::steer::{self, SteerCtx, SteerScratch};

use super::World;

impl World {
    /// Stage 4: every agent's steering output, in parallel. Returns the total
    /// neighbour count and how many agents steered.
    pub(super) fn steer(&mut self, dt: f32) -> (u64, u64) {
        crate::zone!("steer");
        let threads = rayon::current_num_threads().max(1);
        while self.scratch.len() < threads {
            let scratch = Mutex::new(SteerScratch::default());
            self.scratch.push(CachePadded::new(scratch));
        }
        let max_radius = self.max_neighbour_radius();
        let candidates_carry_unit_vels = self.candidates_carry_unit_vels();
        // The written columns move out while the context borrows the rest; they
        // come back below (a move of three words each, no copy).
        let mut out = std::mem::take(&mut self.cols.out);
        let mut rng = std::mem::take(&mut self.cols.rng);
        let mut memory = std::mem::take(&mut self.cols.memory);
        let mut walker = self.cols.walker.take_rows();
        let mut arrival = std::mem::take(&mut self.cols.arrival);
        #[cfg(test)]
        if std::mem::take(&mut self.panic_next_tick) {
            panic!("a test's panic, with the written columns taken out");
        }
        let ctx = self.steer_ctx(
            dt,
            max_radius,
            candidates_carry_unit_vels,
            self.avoidance_fits(dt),
        );
        let written = steer::Written {
            out: &mut out,
            rng: &mut rng,
            memory: &mut memory,
            walker: &mut walker,
            arrival: &mut arrival,
        };
        let neighbours = steer::steer(&ctx, written, &self.scratch);
        self.cols.out = out;
        self.cols.rng = rng;
        self.cols.memory = memory;
        self.cols.walker.put_back(walker);
        self.cols.arrival = arrival;
        steer::even_out(&mut self.scratch);
        neighbours
    }

    /// Whether this tick's avoidance meets only values whose squares cannot overflow,
    /// so that no agent's half-planes need rescaling ([`steer::avoidance_fits`]).
    pub(super) fn avoidance_fits(&self, dt: f32) -> bool {
        steer::avoidance_fits(
            (&self.groups, &self.plans),
            (&self.walls, &self.obstacles),
            (&self.cols.max_speed, &self.cols.radius),
            dt,
        )
    }

    /// The read-only context of the steering pass over the world as it is (the
    /// columns the pass writes left out).
    pub(super) fn steer_ctx(
        &self,
        dt: f32,
        max_radius: f32,
        candidates_carry_unit_vels: bool,
        avoidance_fits: bool,
    ) -> SteerCtx<'_> {
        let Columns {
            id,
            group,
            pos,
            vel,
            unit_vel,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            radius,
            target,
            target2,
            offset,
            rng: _,
            memory: _,
            walker: _,
            out: _,
            arrival: _,
            preferred,
            path,
        } = &self.cols;
        SteerCtx {
            id,
            group,
            pos,
            vel,
            unit_vel,
            heading,
            rotation,
            mass,
            max_speed,
            max_force,
            radius,
            target,
            target2: target2.rows(),
            offset: offset.rows(),
            preferred: preferred.rows(),
            path: path.rows(),
            groups: &self.groups,
            plans: &self.plans,
            walls: &self.walls,
            obstacles: &self.obstacles,
            paths: &self.paths,
            fields: &self.fields,
            sighted_by: &self.sighted_by,
            slots: &self.slots,
            index: &self.index,
            candidates_carry_unit_vels,
            max_radius,
            avoidance_fits,
            dt,
            integrator: self.config.integrator,
            tick: self.tick,
            lod: self.lod,
            rotates: self.lod.is_some_and(|l| l.think_every > 1)
                || self.plans.iter().any(|p| p.think_every > 1),
        }
    }
}
