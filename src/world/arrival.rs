//! Arrival: after every tick, each agent's standing with its target (moving,
//! arrived, stuck, or no target), readable by handle and as a column, and the
//! changes of the tick as events. Judged in the integration pass, each chunk's rows
//! right after their move ([`Judge::rows`]); those that follow another agent after
//! every move ([`Judge::followers`]).

use glam::Vec2;
use rayon::prelude::*;

pub(crate) use crate::agents::arrival::ArrivalMemory;
pub use crate::agents::arrival::{
    Arrival, ArrivalEvent, LEAVE_RADII, STUCK_SECONDS, STUCK_SPEED_FRACTION,
};
use std::sync::Arc;

use crate::agents::{own_path, AgentId, Slots, Target};
use crate::error::Result;
use crate::scene::{FieldSample, GoalField, Path};
use crate::steer::plan::GroupPlan;

use super::World;

/// Rows per parallel chunk of the pass over the agents that target another.
const FOLLOWERS_CHUNK: usize = 4096;

/// What an agent's arrival is judged by.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Aim {
    /// No target, no field.
    Nothing,
    /// Its target point.
    Point(Vec2),
    /// Its goal field, without a target of its own: its travel distance to the
    /// nearest goal, 0 in one; infinite where the field knows it is farther than
    /// arrival looks without measuring it.
    Field {
        /// Travel distance to a goal.
        distance: f32,
    },
    /// Its goal field says no goal can be reached from where it stands.
    Unreachable,
}

/// The aim of an agent of `radius` at `pos` with target point `goal`, following
/// `field` (if its group does): an unreachable field position first, then its own
/// target, then the field's goals.
#[inline(always)]
fn aim_of(goal: Option<Vec2>, field: Option<&GoalField>, pos: Vec2, radius: f32) -> Aim {
    let sample = match field {
        // The field knows without reading its cells that the agent is on its way and
        // farther from every goal than `next` looks (the common case, away from walls
        // and goals).
        Some(f) if f.clear_of_goals(pos, LEAVE_RADII * radius) => {
            return match goal {
                Some(g) => Aim::Point(g),
                None => Aim::Field {
                    distance: f32::INFINITY,
                },
            };
        }
        f => f.map(|f| f.sample(pos)),
    };
    match (sample, goal) {
        (Some(FieldSample::Unreachable), _) => Aim::Unreachable,
        (_, Some(g)) => Aim::Point(g),
        (Some(FieldSample::Toward { distance, .. }), None) => Aim::Field { distance },
        (Some(FieldSample::AtGoal), None) => Aim::Field { distance: 0.0 },
        (None, None) => Aim::Nothing,
    }
}

/// The state an agent at `pos` moving at `speed` reaches, from `memory`, with `aim`,
/// after `dt` seconds.
fn next(
    memory: ArrivalMemory,
    aim: Aim,
    pos: Vec2,
    (speed, max_speed, radius): (f32, f32, f32),
    dt: f32,
) -> ArrivalMemory {
    let (state, slow_for) = match aim {
        Aim::Nothing => (Arrival::NoTarget, 0.0),
        Aim::Unreachable => (Arrival::Unreachable, 0.0),
        Aim::Point(g) if pos.distance_squared(g) <= radius * radius => (Arrival::Arrived, 0.0),
        Aim::Point(g)
            if memory.state == Arrival::Arrived
                && pos.distance_squared(g) <= (LEAVE_RADII * radius).powi(2) =>
        {
            (Arrival::Arrived, 0.0)
        }
        // Waiting at the edge of the crowd on its target point: not stuck.
        Aim::Point(_) if memory.queued => (Arrival::Queued, 0.0),
        // Within its radius of a goal (the travel distance, as a target point's
        // straight one); once arrived, until more than LEAVE_RADII radii away.
        Aim::Field { distance }
            if distance <= radius
                || (memory.state == Arrival::Arrived && distance <= LEAVE_RADII * radius) =>
        {
            (Arrival::Arrived, 0.0)
        }
        Aim::Point(_) | Aim::Field { .. } => {
            let slow_for = if speed < STUCK_SPEED_FRACTION * max_speed {
                // Held at the largest finite time: a world stepped by huge ticks keeps
                // a memory its snapshot can restore.
                (memory.slow_for + dt).min(f32::MAX)
            } else {
                0.0
            };
            let state = if slow_for >= STUCK_SECONDS {
                Arrival::Stuck
            } else {
                Arrival::Moving
            };
            (state, slow_for)
        }
    };
    ArrivalMemory {
        state,
        previous: memory.state,
        slow_for,
        changed: state != memory.state,
        queued: memory.queued,
    }
}

/// What judging some rows' arrival found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Judged {
    /// Some row's state changed.
    pub changed: bool,
    /// Every row was left as it was: no aim, its memory at rest.
    pub quiet: bool,
    /// Some row targets another agent, and was left for [`Judge::followers`].
    pub followers: bool,
}

impl Judged {
    /// Nothing judged yet.
    pub const NONE: Self = Self {
        changed: false,
        quiet: true,
        followers: false,
    };

    /// What two sets of rows found together.
    pub fn and(self, o: Self) -> Self {
        Self {
            changed: self.changed || o.changed,
            quiet: self.quiet && o.quiet,
            followers: self.followers || o.followers,
        }
    }
}

/// What an agent's arrival is judged by, besides its own new position and velocity:
/// the columns and the world's paths and fields, shared by every chunk.
pub(super) struct Judge<'a> {
    pub slots: &'a Slots,
    pub group: &'a [u16],
    pub max_speed: &'a [f32],
    pub radius: &'a [f32],
    pub target: &'a [Target],
    /// The path column's rows (empty while no agent has a path of its own).
    pub own: &'a [u32],
    pub paths: &'a [Option<Path>],
    pub plans: &'a [GroupPlan],
    pub fields: &'a [Option<Arc<GoalField>>],
    /// Whether some group follows a field: where none does, no row's group is read.
    pub any_field: bool,
    pub dt: f32,
}

/// The goal field of the group last looked up, and its group.
type LastField<'a> = Option<(u16, Option<&'a GoalField>)>;

impl<'a> Judge<'a> {
    /// The goal field the agent in `row` follows, looked up again only where the
    /// group changes from `last`'s (a group's rows mostly sit together).
    #[inline(always)]
    fn field_of<const FIELDS: bool>(
        &self,
        row: usize,
        last: &mut LastField<'a>,
    ) -> Option<&'a GoalField> {
        if !FIELDS {
            return None;
        }
        let g = self.group[row];
        match *last {
            Some((seen, field)) if seen == g => field,
            _ => {
                let field = self.plans[usize::from(g)]
                    .field
                    .and_then(|f| self.fields.get(f.index())?.as_deref());
                *last = Some((g, field));
                field
            }
        }
    }

    /// The end of the open path of the agent's own in `row`, if it has one.
    #[inline(always)]
    fn route_end<const PATHS: bool>(&self, row: usize) -> Option<Vec2> {
        if !PATHS {
            return None;
        }
        let path = self.paths.get(own_path(self.own, row)?)?.as_ref()?;
        (!path.is_looped()).then(|| path.last_point())
    }

    /// The memory of the agent in `row` at `p` moving at `v` (its body's maximum
    /// speed and radius `limits`), aiming at `goal`, from `m`; whether it was left as
    /// it was.
    #[inline(always)]
    fn judge<const FIELDS: bool>(
        &self,
        m: &mut ArrivalMemory,
        row: usize,
        (p, v): (Vec2, Vec2),
        (max_speed, radius): (f32, f32),
        goal: Option<Vec2>,
        last: &mut LastField<'a>,
    ) -> bool {
        let field = self.field_of::<FIELDS>(row, last);
        // An agent that had no target and still has none, and follows no field nor
        // path, is left as it is (`next` would write back the same memory).
        if goal.is_none() && field.is_none() && *m == ArrivalMemory::WITHOUT_TARGET {
            return true;
        }
        let aim = aim_of(goal, field, p, radius);
        *m = next(*m, aim, p, (v.length(), max_speed, radius), self.dt);
        false
    }

    /// The rows `first..` of `memories`, at their new positions `pos` and velocities
    /// `vel` (those rows' own): every row but those whose target is another agent,
    /// whose position may not be written yet (left for [`Judge::followers`]).
    pub fn rows(
        &self,
        memories: &mut [ArrivalMemory],
        first: usize,
        pos: &[Vec2],
        vel: &[Vec2],
    ) -> Judged {
        // Compiled apart for worlds where no group follows a field (no group column
        // read) and where no agent has a path of its own (no path column).
        match (self.any_field, !self.own.is_empty()) {
            (true, true) => self.rows_of::<true, true>(memories, first, pos, vel),
            (true, false) => self.rows_of::<true, false>(memories, first, pos, vel),
            (false, true) => self.rows_of::<false, true>(memories, first, pos, vel),
            (false, false) => self.rows_of::<false, false>(memories, first, pos, vel),
        }
    }

    /// [`Judge::rows`], with or without fields and paths.
    #[inline(always)]
    fn rows_of<const FIELDS: bool, const PATHS: bool>(
        &self,
        memories: &mut [ArrivalMemory],
        first: usize,
        pos: &[Vec2],
        vel: &[Vec2],
    ) -> Judged {
        let mut found = Judged::NONE;
        let mut last = None;
        let rows = first..first + memories.len();
        // The chunk's rows of each column side by side (no index checks).
        let bodies = self.target[rows.clone()]
            .iter()
            .zip(pos)
            .zip(vel)
            .zip(&self.max_speed[rows.clone()])
            .zip(&self.radius[rows]);
        for (k, (m, ((((&target, &p), &v), &max_speed), &radius))) in
            memories.iter_mut().zip(bodies).enumerate()
        {
            let row = first + k;
            let goal = match target {
                // Without a target, the end of the agent's own open path is its goal.
                Target::None => self.route_end::<PATHS>(row),
                Target::Point(g) => Some(g),
                Target::Agent(_) => {
                    found.followers = true;
                    found.quiet = false;
                    continue;
                }
            };
            let limits = (max_speed, radius);
            if !self.judge::<FIELDS>(m, row, (p, v), limits, goal, &mut last) {
                found.changed |= m.changed;
                found.quiet = false;
            }
        }
        found
    }

    /// The rows whose target is another agent, once every position is written, in
    /// parallel chunks; whether any changed.
    pub fn followers(&self, arrival: &mut [ArrivalMemory], pos: &[Vec2], vel: &[Vec2]) -> bool {
        arrival
            .par_chunks_mut(FOLLOWERS_CHUNK)
            .enumerate()
            .map(|(chunk, memories)| match self.any_field {
                true => self.followers_of::<true>(memories, chunk * FOLLOWERS_CHUNK, pos, vel),
                false => self.followers_of::<false>(memories, chunk * FOLLOWERS_CHUNK, pos, vel),
            })
            .reduce(|| false, |a, b| a || b)
    }

    /// [`Judge::followers`] for the rows `first..` of `memories`, with or without
    /// fields.
    fn followers_of<const FIELDS: bool>(
        &self,
        memories: &mut [ArrivalMemory],
        first: usize,
        pos: &[Vec2],
        vel: &[Vec2],
    ) -> bool {
        let (mut changed, mut last) = (false, None);
        let rows = first..first + memories.len();
        let bodies = self.target[rows.clone()]
            .iter()
            .zip(&pos[rows.clone()])
            .zip(&vel[rows.clone()])
            .zip(&self.max_speed[rows.clone()])
            .zip(&self.radius[rows]);
        for (k, (m, ((((&target, &p), &v), &max_speed), &radius))) in
            memories.iter_mut().zip(bodies).enumerate()
        {
            let Target::Agent(id) = target else {
                continue;
            };
            // A despawned target is none.
            let goal = self.slots.row(id).map(|r| pos[r as usize]);
            let limits = (max_speed, radius);
            self.judge::<FIELDS>(m, first + k, (p, v), limits, goal, &mut last);
            changed |= m.changed;
        }
        changed
    }
}

impl World {
    /// After the integration pass has judged every agent's arrival (`judged`; `None`
    /// when the world was quiet: nothing aims at anything): the changes as events, in
    /// row order.
    pub(super) fn arrival_judged(&mut self, judged: Option<Judged>) {
        self.arrival_events.clear();
        let Some(judged) = judged else {
            return;
        };
        self.arrival_quiet = judged.quiet;
        if judged.changed {
            let rows = self.cols.arrival.iter().zip(&self.cols.id);
            self.arrival_events
                .extend(
                    rows.filter(|(m, _)| m.changed)
                        .map(|(m, &agent)| ArrivalEvent {
                            agent,
                            from: m.previous,
                            to: m.state,
                        }),
                );
        }
    }

    /// An agent's [`Arrival`] after the last tick.
    ///
    /// # Errors
    /// An unknown or despawned handle.
    pub fn arrival(&self, id: AgentId) -> Result<Arrival> {
        Ok(self.cols.arrival[self.row(id)?].state)
    }

    /// Every agent's [`Arrival`] after the last tick, by row (as
    /// [`World::positions`]).
    pub fn arrivals(&self) -> impl ExactSizeIterator<Item = Arrival> + '_ {
        self.cols.arrival.iter().map(|m| m.state)
    }

    /// The changes of [`Arrival`] during the last tick, in row order. Refilled by
    /// every tick into the same buffer (no allocation once it has grown).
    #[must_use]
    pub fn arrival_events(&self) -> &[ArrivalEvent] {
        &self.arrival_events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_hand_worked() {
        let body = |speed: f32| (speed, 2.0, 0.5);
        let moving = ArrivalMemory::spawned(true);
        assert_eq!(moving.state, Arrival::Moving);
        assert_eq!(ArrivalMemory::spawned(false).state, Arrival::NoTarget);
        // 0.4 from the goal with radius 0.5: arrived (a change).
        let m = next(
            moving,
            Aim::Point(Vec2::ZERO),
            Vec2::new(0.4, 0.0),
            body(1.0),
            0.5,
        );
        assert_eq!(
            (m.state, m.previous, m.changed),
            (Arrival::Arrived, Arrival::Moving, true)
        );
        // Exactly one radius away counts, a hair farther not; once arrived, up to two
        // radii (1.0) still do, and a hair farther not.
        let at = |x: f32, from: ArrivalMemory| {
            next(
                from,
                Aim::Point(Vec2::ZERO),
                Vec2::new(x, 0.0),
                body(0.0),
                0.5,
            )
        };
        assert_eq!(at(0.5, moving).state, Arrival::Arrived);
        assert_eq!(at(0.5001, moving).state, Arrival::Moving);
        assert_eq!(
            (at(1.0, m).state, at(1.0, m).changed),
            (Arrival::Arrived, false)
        );
        assert_eq!(
            (at(1.0001, m).state, at(1.0001, m).changed),
            (Arrival::Moving, true)
        );
        // Slower than 5% of 2 (0.1) for 5 s in ticks of 1 s: stuck at the fifth.
        let mut m = moving;
        for tick in 1..=5 {
            m = next(
                m,
                Aim::Point(Vec2::new(9.0, 0.0)),
                Vec2::ZERO,
                body(0.09),
                1.0,
            );
            let want = if tick < 5 {
                Arrival::Moving
            } else {
                Arrival::Stuck
            };
            assert_eq!(m.state, want, "tick {tick}");
            assert_eq!(m.slow_for, tick as f32);
        }
        assert!(m.changed);
        // Ticks too long for the sum stay at the largest finite time, stuck.
        let mut huge = m;
        for _ in 0..2 {
            huge = next(
                huge,
                Aim::Point(Vec2::new(9.0, 0.0)),
                Vec2::ZERO,
                body(0.09),
                f32::MAX,
            );
        }
        assert_eq!((huge.state, huge.slow_for), (Arrival::Stuck, f32::MAX));
        // Moving at 0.1 (not slower than 5%) ends it.
        let m = next(
            m,
            Aim::Point(Vec2::new(9.0, 0.0)),
            Vec2::ZERO,
            body(0.1),
            1.0,
        );
        assert_eq!(
            (m.state, m.slow_for, m.changed),
            (Arrival::Moving, 0.0, true)
        );
        // No target.
        let m = next(m, Aim::Nothing, Vec2::ZERO, body(0.0), 1.0);
        assert_eq!((m.state, m.changed), (Arrival::NoTarget, true));
    }

    #[test]
    fn queued_hand_worked() {
        let body = (0.0, 2.0, 0.5);
        let goal = Aim::Point(Vec2::ZERO);
        let queued = ArrivalMemory {
            queued: true,
            ..ArrivalMemory::spawned(true)
        };
        // Standing still 3 from its goal for 10 s in ticks of 1 s, the steering
        // finding it queued: queued from the first tick, never stuck, the flag kept.
        let mut m = queued;
        for tick in 1..=10 {
            m = next(m, goal, Vec2::new(3.0, 0.0), body, 1.0);
            assert_eq!(
                (m.state, m.slow_for, m.changed, m.queued),
                (Arrival::Queued, 0.0, tick == 1, true),
                "tick {tick}"
            );
        }
        // Within its radius of the goal it has arrived, queued or not; and an arrived
        // agent that the queue flag meets within two radii stays arrived.
        let arrived = next(m, goal, Vec2::new(0.5, 0.0), body, 1.0);
        assert_eq!(arrived.state, Arrival::Arrived);
        assert_eq!(
            next(arrived, goal, Vec2::new(1.0, 0.0), body, 1.0).state,
            Arrival::Arrived
        );
        // The flag cleared (the crowd ahead moved on): moving again, then stuck as
        // any other agent standing still.
        let m = ArrivalMemory { queued: false, ..m };
        let m = next(m, goal, Vec2::new(3.0, 0.0), body, 1.0);
        assert_eq!(
            (m.state, m.slow_for, m.changed),
            (Arrival::Moving, 1.0, true)
        );
        // A field follower without a target is never queued (the queue is at a point).
        let m = next(queued, Aim::Field { distance: 3.0 }, Vec2::ZERO, body, 1.0);
        assert_eq!(m.state, Arrival::Moving);
    }

    #[test]
    fn field_followers_hand_worked() {
        let body = (1.0, 2.0, 0.5);
        let moving = ArrivalMemory::spawned(true);
        // Without a target, in the field's goal: arrived; out of it: moving.
        let field = |distance: f32| Aim::Field { distance };
        let m = next(moving, field(0.0), Vec2::ZERO, body, 0.1);
        assert_eq!((m.state, m.changed), (Arrival::Arrived, true));
        // Within its radius (0.5) of a goal arrives; once arrived, until two radii.
        let arrives = |d: f32| next(moving, field(d), Vec2::ZERO, body, 0.1).state;
        assert_eq!(
            (arrives(0.5), arrives(0.5001)),
            (Arrival::Arrived, Arrival::Moving)
        );
        let still = next(m, field(1.0), Vec2::ZERO, body, 0.1);
        assert_eq!((still.state, still.changed), (Arrival::Arrived, false));
        let m = next(m, field(1.0001), Vec2::ZERO, body, 0.1);
        assert_eq!((m.state, m.changed), (Arrival::Moving, true));
        // Slow out of the goal for the stuck time: stuck, as with a target.
        let slow = next(m, field(3.0), Vec2::ZERO, (0.0, 2.0, 0.5), 5.0);
        assert_eq!(slow.state, Arrival::Stuck);
        let m = next(m, Aim::Unreachable, Vec2::ZERO, body, 0.1);
        assert_eq!((m.state, m.changed), (Arrival::Unreachable, true));
        // The aim: an unreachable place first, then its own target, then the goals.
        let walls = [crate::scene::Wall::new(Vec2::new(0.0, -10.0), Vec2::new(0.0, 10.0)).unwrap()];
        let spec =
            crate::scene::FieldSpec::new(vec![crate::scene::Goal::Point(Vec2::new(5.0, 0.0))], 0.5)
                .with_bounds(Vec2::splat(-10.0), Vec2::splat(10.0));
        let f = GoalField::build(&spec, &walls, &[]).unwrap();
        let (left, right) = (Vec2::new(-5.0, 0.0), Vec2::new(3.0, 0.0));
        let r = 0.5;
        assert_eq!(aim_of(Some(Vec2::ONE), Some(&f), left, r), Aim::Unreachable);
        assert_eq!(
            aim_of(Some(Vec2::ONE), Some(&f), right, r),
            Aim::Point(Vec2::ONE)
        );
        let Aim::Field { distance } = aim_of(None, Some(&f), right, r) else {
            panic!("a field aim");
        };
        assert!((distance - 2.0).abs() < 0.2, "{distance}");
        assert_eq!(
            aim_of(None, Some(&f), Vec2::new(5.0, 0.0), r),
            Aim::Field { distance: 0.0 }
        );
        assert_eq!(aim_of(None, None, right, r), Aim::Nothing);
        // Far from the goal in open ground the field answers from its quiet bit,
        // without the distance; a body large enough to arrive from there is measured.
        let far = Vec2::new(5.0, 7.0);
        assert_eq!(
            aim_of(None, Some(&f), far, r),
            Aim::Field {
                distance: f32::INFINITY
            }
        );
        assert_eq!(
            aim_of(Some(Vec2::ONE), Some(&f), far, r),
            Aim::Point(Vec2::ONE)
        );
        let Aim::Field { distance } = aim_of(None, Some(&f), far, 3.0) else {
            panic!("a field aim");
        };
        assert!((distance - 7.0).abs() < 0.3, "{distance}");
    }

    /// A world where nothing aims at anything skips the whole pass; every way of
    /// giving an agent an aim (each target setter, a spawn with a target, a path of
    /// its own, a group following a field) has the next tick judge it, as if the pass
    /// had never been skipped.
    #[test]
    fn a_quiet_world_skips_the_pass_and_every_new_aim_wakes_it() {
        use crate::{AgentSpec, Behaviour, GroupConfig, WorldConfig};
        let mut w = World::new(WorldConfig::default());
        let g = w
            .add_group(GroupConfig::new("idle").with(Behaviour::Seek, 0.0))
            .unwrap();
        let at = [Vec2::ZERO, Vec2::new(5.0, 0.0), Vec2::new(10.0, 0.0)];
        let ids: Vec<AgentId> = at
            .iter()
            .map(|&p| w.spawn(AgentSpec::new(g, p)).unwrap())
            .collect();
        let dt = 0.1;
        let settle = |w: &mut World| {
            w.set_group_target(g, Target::None).unwrap();
            for _ in 0..3 {
                w.step(dt).unwrap();
            }
            assert!(w.arrival_quiet);
            assert!(w.arrival_events().is_empty());
        };
        settle(&mut w);
        // Each gives the first agent its own spot: arrived at the next tick, once.
        let mine = Target::Point(at[0]);
        let wakes: [&dyn Fn(&mut World); 4] = [
            &|w| w.set_target(ids[0], mine).unwrap(),
            &|w| w.set_targets(&ids[..1], mine).unwrap(),
            &|w| w.set_each_target(&ids[..1], &[mine]).unwrap(),
            &|w| w.set_group_target(g, mine).unwrap(),
        ];
        for (k, wake) in wakes.iter().enumerate() {
            wake(&mut w);
            assert!(!w.arrival_quiet, "setter {k}");
            w.step(dt).unwrap();
            assert_eq!(w.arrival(ids[0]).unwrap(), Arrival::Arrived, "setter {k}");
            assert_eq!(
                w.arrival_events()[0],
                ArrivalEvent {
                    agent: ids[0],
                    from: Arrival::NoTarget,
                    to: Arrival::Arrived
                },
                "setter {k}"
            );
            settle(&mut w);
        }
        // A spawn with a target.
        let p = Vec2::new(20.0, 0.0);
        let late = w
            .spawn(AgentSpec::new(g, p).with_target(Target::Point(p)))
            .unwrap();
        w.step(dt).unwrap();
        assert_eq!(w.arrival(late).unwrap(), Arrival::Arrived);
        settle(&mut w);
        // A path of its own, ending where the agent stands.
        let path = crate::scene::Path::open(vec![at[1] + Vec2::X, at[1]]).unwrap();
        let path = w.add_path(path).unwrap();
        w.set_agent_path(ids[1], Some(path)).unwrap();
        w.step(dt).unwrap();
        assert_eq!(w.arrival(ids[1]).unwrap(), Arrival::Arrived);
        w.set_agent_path(ids[1], None).unwrap();
        settle(&mut w);
        // A field the group follows: each agent judged by it (none stands in a goal).
        let spec = crate::scene::FieldSpec::new(
            vec![crate::scene::Goal::Point(Vec2::new(0.0, 30.0))],
            0.5,
        )
        .with_bounds(Vec2::splat(-40.0), Vec2::splat(40.0));
        let f = w.add_goal_field(spec).unwrap();
        let follows = GroupConfig::new("idle").with(
            Behaviour::FollowField {
                field: f,
                params: crate::behaviours::field::FollowFieldParams::default(),
            },
            0.0,
        );
        w.set_group(g, follows).unwrap();
        w.step(dt).unwrap();
        assert!(!w.arrival_quiet);
        assert_eq!(w.arrival(ids[2]).unwrap(), Arrival::Moving);
    }

    /// The pass skips an agent that has had no target for two ticks: `next` must
    /// leave that memory as it is, wherever the agent stands and however fast it goes.
    #[test]
    fn no_target_memory_is_what_next_keeps() {
        let quiet = ArrivalMemory::WITHOUT_TARGET;
        for (p, speed) in [
            (Vec2::ZERO, 0.0),
            (Vec2::new(-3.0, 1e6), 1e30),
            (Vec2::X, 2.0),
        ] {
            assert_eq!(next(quiet, Aim::Nothing, p, (speed, 2.0, 0.5), 0.1), quiet);
        }
        // Two ticks after its target is taken away, an agent's memory is that one.
        let moving = ArrivalMemory::spawned(true);
        let once = next(moving, Aim::Nothing, Vec2::X, (1.0, 2.0, 0.5), 0.1);
        assert!(once.changed);
        assert_eq!(
            next(once, Aim::Nothing, Vec2::X, (1.0, 2.0, 0.5), 0.1),
            quiet
        );
    }
}
