//! Arrival: after every tick, each agent's standing with its target (moving,
//! arrived, stuck, or no target), readable by handle and as a column, and the
//! changes of the tick as events.

use glam::Vec2;
use rayon::prelude::*;

pub(crate) use crate::agents::arrival::ArrivalMemory;
pub use crate::agents::arrival::{
    Arrival, ArrivalEvent, LEAVE_RADII, STUCK_SECONDS, STUCK_SPEED_FRACTION,
};
use crate::agents::{own_path, AgentId, Columns, Slots, Target};
use crate::error::Result;
use crate::scene::{FieldSample, GoalField};

use super::World;

/// Rows per parallel chunk of the arrival pass.
const ARRIVAL_CHUNK: usize = 4096;

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
                memory.slow_for + dt
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

/// The point an agent's target stands at now, if any.
fn goal_of(target: Target, slots: &Slots, pos: &[Vec2]) -> Option<Vec2> {
    match target {
        Target::None => None,
        Target::Point(p) => Some(p),
        Target::Agent(id) => slots.row(id).map(|r| pos[r as usize]),
    }
}

/// The columns the arrival pass reads of every row.
struct Bodies<'a> {
    pos: &'a [Vec2],
    vel: &'a [Vec2],
    max_speed: &'a [f32],
    radius: &'a [f32],
    target: &'a [Target],
}

/// Every agent's arrival memory after a tick of `dt`, in parallel chunks, with
/// `fields()` making for each chunk the function from a row to the goal field the
/// agent in it follows; whether any changed, and whether every agent was left as it
/// was (no aim, its memory at rest).
fn arrival_pass<'f, F>(
    arrival: &mut [ArrivalMemory],
    b: &Bodies<'_>,
    slots: &Slots,
    dt: f32,
    fields: impl Fn() -> F + Sync,
    route_end_of: impl Fn(usize) -> Option<Vec2> + Sync,
) -> (bool, bool)
where
    F: FnMut(usize) -> Option<&'f GoalField>,
{
    arrival
        .par_chunks_mut(ARRIVAL_CHUNK)
        .enumerate()
        .map(|(chunk, memories)| {
            let rows = chunk * ARRIVAL_CHUNK..;
            let start = rows.start;
            let (mut any, mut quiet) = (false, true);
            let mut field_of = fields();
            // The chunk's rows of each column side by side (no index checks).
            let bodies = b.target[rows.clone()]
                .iter()
                .zip(&b.pos[rows.clone()])
                .zip(&b.vel[rows.clone()])
                .zip(&b.max_speed[rows.clone()])
                .zip(&b.radius[rows]);
            for (k, (m, ((((&target, p), v), max_speed), radius))) in
                memories.iter_mut().zip(bodies).enumerate()
            {
                let field = field_of(start + k);
                // Without a target, the end of the agent's own open path is its goal.
                let goal = match target {
                    Target::None => route_end_of(start + k),
                    _ => goal_of(target, slots, b.pos),
                };
                // An agent that had no target and still has none, and follows no
                // field nor path, is left as it is (`next` would write back the same
                // memory): for it the pass reads two columns, not six, and writes none.
                if goal.is_none() && field.is_none() && *m == ArrivalMemory::WITHOUT_TARGET {
                    continue;
                }
                let aim = aim_of(goal, field, *p, *radius);
                *m = next(*m, aim, *p, (v.length(), *max_speed, *radius), dt);
                any |= m.changed;
                quiet = false;
            }
            (any, quiet)
        })
        .reduce(|| (false, true), |a, b| (a.0 || b.0, a.1 && b.1))
}

impl World {
    /// Stage 6: every agent's arrival state from its new position, in parallel; then
    /// the changes as events, in row order.
    pub(super) fn update_arrival(&mut self, dt: f32) {
        crate::zone!("arrival");
        let Columns {
            id,
            group,
            pos,
            vel,
            max_speed,
            radius,
            target,
            arrival,
            path,
            ..
        } = &mut self.cols;
        let slots = &self.slots;
        let (pos, vel, max_speed, radius, target) = (&*pos, &*vel, &*max_speed, &*radius, &*target);
        let (group, plans, fields) = (&*group, &self.plans, &self.fields);
        let bodies = Bodies {
            pos,
            vel,
            max_speed,
            radius,
            target,
        };
        // Worlds where no group follows a field read no group column: the pass is
        // compiled for them with no field at all.
        // Nor, where no agent has a path of its own, the path column.
        let (own, paths) = (path.rows(), &self.paths);
        let route_end = |row: usize| {
            let path = paths.get(own_path(own, row)?)?.as_ref()?;
            (!path.is_looped()).then(|| path.last_point())
        };
        // The field of a row's group, looked up again only where the group changes
        // from the row before (a group's rows mostly sit together).
        let field_of = || {
            let mut last: Option<(u16, Option<&GoalField>)> = None;
            move |row: usize| {
                let g = group[row];
                match last {
                    Some((seen, field)) if seen == g => field,
                    _ => {
                        let field = plans[usize::from(g)]
                            .field
                            .and_then(|f| fields.get(f.index())?.as_deref());
                        last = Some((g, field));
                        field
                    }
                }
            }
        };
        let no_field = || |_| None;
        let any_field = plans.iter().any(|p| p.field.is_some());
        self.arrival_events.clear();
        // Nothing aims at anything, and nothing was given an aim since the last pass
        // found every memory at rest: this pass would leave every row as it is.
        if self.arrival_quiet && !any_field && own.is_empty() {
            return;
        }
        let (changed, quiet) = match (any_field, own.is_empty()) {
            (true, false) => arrival_pass(arrival, &bodies, slots, dt, field_of, route_end),
            (true, true) => arrival_pass(arrival, &bodies, slots, dt, field_of, |_| None),
            (false, false) => arrival_pass(arrival, &bodies, slots, dt, no_field, route_end),
            (false, true) => arrival_pass(arrival, &bodies, slots, dt, no_field, |_| None),
        };
        self.arrival_quiet = quiet;
        if changed {
            self.arrival_events.extend(
                arrival
                    .iter()
                    .zip(id.iter())
                    .filter(|(m, _)| m.changed)
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
