//! Stage 3, leader sight: every leader marks, through the index, the agents in its
//! sight (the leader-following article's `isOnLeaderSight`), so that followers and
//! agents that give way can read it during steering.

use rayon::prelude::*;

use crate::agents::{AgentId, Cycles, Target};
use crate::behaviours::leader::{ahead_point, in_leader_sight, LeaderView};
use crate::behaviours::targeting::Motion;

use super::World;

/// Marks "in no leader's sight" in `World::sighted_by`: a handle no slot ever has.
pub(super) const NO_LEADER: AgentId = AgentId {
    index: u32::MAX,
    generation: u32::MAX,
    world: crate::agents::WorldTag::NONE,
};

/// Scratch of the leader sight stage.
#[derive(Default)]
pub(super) struct SightScratch {
    /// Per row: the lowest group index among the agent's followers.
    leader_group: Vec<u16>,
    /// Rows of this tick's leaders.
    leaders: Vec<u32>,
    /// Per leader: the rows in its sight.
    hits: Vec<Vec<u32>>,
    /// The marks of the tick before, per row, for the sight events.
    previous: Vec<AgentId>,
}

/// A change of the leader in whose sight an agent is, during the last tick
/// ([`World::sight_events`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SightEvent {
    /// The agent.
    pub agent: AgentId,
    /// The leader whose sight it entered (none: it left every leader's sight).
    pub entered: Option<AgentId>,
    /// The leader whose sight it was in before (none: it was in no leader's sight).
    pub left: Option<AgentId>,
}

impl World {
    /// The agents that entered or left a leader's sight during the last tick, in row
    /// order: the leader-following article's "on leader sight" as events, for a game
    /// to react (a villager that steps aside, a squad member that falls in). Refilled
    /// every tick without allocating once grown; empty in a world without leaders.
    #[must_use]
    pub fn sight_events(&self) -> &[SightEvent] {
        &self.sight_events
    }

    /// Compare the marks with the tick before's (`previous`, row-aligned) and list
    /// the changes.
    fn record_sight_events(&mut self) {
        self.sight_events.clear();
        let (previous, now) = (&self.sight.previous, &self.sighted_by);
        // Either column may be empty (no leaders), or shorter (rows spawned since):
        // a row past its end is in no sight.
        let rows = previous.len().max(now.len()).min(self.cols.len());
        let mark =
            |marks: &[AgentId], row: usize| marks.get(row).copied().filter(|&m| m != NO_LEADER);
        for row in 0..rows {
            let (left, entered) = (mark(previous, row), mark(now, row));
            if left != entered {
                self.sight_events.push(SightEvent {
                    agent: self.cols.id[row],
                    entered,
                    left,
                });
            }
        }
    }
}

impl World {
    /// Stage 3: every leader marks, through the index, the agents in its sight
    /// (`isOnLeaderSight`): its followers and the agents of groups
    /// that give way. A follower seen by its own leader is marked with it;
    /// otherwise with the first leader (in row order) that sees it.
    pub(super) fn mark_leader_sight(&mut self) {
        crate::zone!("leader sight");
        let n = self.cols.len();
        // Last tick's marks, row-aligned (a re-sort and despawns move them with their
        // rows), kept for the events.
        std::mem::swap(&mut self.sight.previous, &mut self.sighted_by);
        self.sighted_by.clear();
        // Without leaders the column stays empty: a row past its end is in no sight.
        if !self.plans.iter().any(|t| t.leader.is_some()) {
            self.record_sight_events();
            return;
        }
        self.sighted_by.resize(n, NO_LEADER);
        let c = &self.cols;
        let slots = &self.slots;
        let plans = &self.plans;
        let index = &self.index;
        let sight = &mut self.sight;
        // Leaders: the agents some follower targets, each with the parameters of
        // the lowest-numbered group among its followers.
        sight.leader_group.clear();
        sight.leader_group.resize(n, u16::MAX);
        for row in 0..n {
            let g = c.group[row];
            if plans[g as usize].leader.is_none() {
                continue;
            }
            if let Target::Agent(t) = c.target[row] {
                if let Some(lr) = slots.row(t) {
                    let slot = &mut sight.leader_group[lr as usize];
                    *slot = (*slot).min(g);
                }
            }
        }
        let leader_group = &sight.leader_group;
        sight.leaders.clear();
        sight
            .leaders
            .extend((0..n as u32).filter(|&r| leader_group[r as usize] != u16::MAX));
        let count = sight.leaders.len();
        if sight.hits.len() < count {
            sight.hits.resize_with(count, Vec::new);
        }
        sight.hits[..count]
            .par_iter_mut()
            .zip(sight.leaders.par_iter())
            .for_each(|(hits, &lr)| {
                hits.clear();
                let lu = lr as usize;
                let Some(params) = plans[leader_group[lu] as usize].leader else {
                    return;
                };
                let view = LeaderView {
                    body: Motion {
                        pos: c.pos[lu],
                        vel: c.vel[lu],
                    },
                    heading: c.heading[lu],
                };
                let ahead = ahead_point(&view, &params);
                let mut visit = |cand: u32| {
                    let cu = cand as usize;
                    if cand != lr
                        && plans[c.group[cu] as usize].watches_leaders
                        && in_leader_sight(c.pos[cu], view.body.pos, ahead, &params)
                    {
                        hits.push(cand);
                    }
                };
                index.for_each_candidate(ahead, params.sight_radius, &mut visit);
                index.for_each_candidate(view.body.pos, params.sight_radius, &mut visit);
                hits.sort_unstable();
                hits.dedup();
            });
        for (hits, &lr) in sight.hits[..count].iter().zip(&sight.leaders) {
            for &h in hits {
                let hu = h as usize;
                let own = plans[c.group[hu] as usize].leader.is_some()
                    && matches!(c.target[hu], Target::Agent(t) if slots.row(t) == Some(lr));
                if self.sighted_by[hu] == NO_LEADER || own {
                    self.sighted_by[hu] = c.id[lr as usize];
                }
            }
        }
        self.record_sight_events();
    }
}

/// Move the leader-sight marks (`sighted_by`, of a world of `rows` rows) with their
/// rows after a re-sort, along the cycles the columns were moved by (in `keys`),
/// so that the next sight events compare each agent with itself.
pub(super) fn permute_sight_marks(
    sighted_by: &mut Vec<AgentId>,
    rows: usize,
    cycles: &Cycles,
    keys: &[u64],
) {
    if sighted_by.is_empty() {
        return;
    }
    // Rows past its end are in no sight.
    sighted_by.resize(rows, NO_LEADER);
    cycles.apply(keys, sighted_by);
}
