//! Agent storage: private struct-of-arrays columns, stable generational handles,
//! and the per-agent specification used to spawn.

pub(crate) mod arrival;
mod cycles;
mod handle;
mod lazy;

pub(crate) use handle::{untagged, Slots};
pub use handle::{AgentId, GroupId, WorldTag};

use arrival::ArrivalMemory;

use glam::Vec2;

use crate::behaviours::approach::WalkerState;
use crate::behaviours::wander::{initial_wander_target, WanderParams};
use crate::error::{finite, finite_vec, non_negative, positive, Result};
use crate::rng::{agent_rng, AgentRng};

pub(crate) use cycles::Cycles;
pub(crate) use lazy::Lazy;

/// What an agent's targeted behaviours (seek, arrive, pursuit, ...) aim at.
///
/// ```
/// use throng::prelude::*;
///
/// let mut world = World::default();
/// let g = world.add_group(GroupConfig::new("g").with(Behaviour::Seek, 1.0))?;
/// let leader = world.spawn(AgentSpec::new(g, Vec2::ZERO).with_target(Target::Point(Vec2::X * 50.0)))?;
/// // Follows the leader by handle, wherever it goes; a despawned target acts as none.
/// let chaser = world.spawn(AgentSpec::new(g, Vec2::Y * 5.0).with_target(Target::Agent(leader)))?;
/// world.despawn(leader)?;
/// world.step(0.1)?;
/// assert_eq!(world.target(chaser)?, Target::Agent(leader));
/// # Ok::<(), ThrongError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// No target: targeted behaviours contribute nothing.
    #[default]
    None,
    /// A fixed point.
    Point(Vec2),
    /// Another agent, followed by handle. If it is despawned the target acts as
    /// [`Target::None`].
    Agent(AgentId),
}

/// Everything needed to spawn one agent. Construct with [`AgentSpec::new`] and the
/// builder methods, or fill the public fields.
///
/// ```
/// use throng::prelude::*;
///
/// let mut world = World::default();
/// let g = world.add_group(GroupConfig::new("g").with(Behaviour::Seek, 1.0))?;
/// let spec = AgentSpec::new(g, Vec2::new(3.0, 4.0))
///     .with_radius(0.4)
///     .with_limits(1.0, 2.5, 6.0) // mass, maximum speed, maximum force
///     .with_target(Target::Point(Vec2::ZERO));
/// let id = world.spawn(spec)?;
/// assert_eq!(world.position(id)?, Vec2::new(3.0, 4.0));
/// // Invalid values are refused, naming the field.
/// assert!(world.spawn(AgentSpec { mass: 0.0, ..spec }).is_err());
/// # Ok::<(), ThrongError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgentSpec {
    /// The agent's group.
    pub group: GroupId,
    /// Initial position.
    pub position: Vec2,
    /// Initial velocity. Default zero.
    pub velocity: Vec2,
    /// Initial heading in radians clockwise from +y; `None` (the default) faces
    /// the velocity, or +y when still.
    pub heading: Option<f32>,
    /// Mass, > 0. Default 1.
    pub mass: f32,
    /// Maximum speed, >= 0 (units/s). Default 2.
    pub max_speed: f32,
    /// Maximum steering force, >= 0. Default 4.
    pub max_force: f32,
    /// Body radius, >= 0 (units). Default 0.5.
    pub radius: f32,
    /// Primary target. Default none.
    pub target: Target,
    /// Secondary target (the second agent of interpose). Default none.
    pub target2: Target,
    /// Formation offset for offset pursuit, in the target agent's frame
    /// (x right, y forward). Default zero.
    pub offset: Vec2,
}

/// The limits of an agent spawned with none given ([`AgentSpec::new`]).
pub(crate) const DEFAULT_LIMITS: crate::integrate::Limits = crate::integrate::Limits {
    mass: 1.0,
    max_speed: 2.0,
    max_force: 4.0,
};

/// The radius of an agent spawned with none given ([`AgentSpec::new`]).
pub(crate) const DEFAULT_RADIUS: f32 = 0.5;

/// A pedestrian's shoulder radius (m): half of a typical 0.44 m shoulder width.
pub const PEDESTRIAN_RADIUS: f32 = 0.22;

/// A pedestrian's free walking speed (m/s): the mean of Weidmann's (1993) survey.
pub const PEDESTRIAN_SPEED: f32 = 1.34;

/// The spread (standard deviation, m/s) of pedestrians' free walking speeds about
/// [`PEDESTRIAN_SPEED`] (Weidmann 1993): with `max_speed_spread = 0.26` a profile
/// draws each agent's top speed from it ([`speed_drawn`]).
pub const PEDESTRIAN_SPEED_SPREAD: f32 = 0.26;

/// A top speed drawn from a normal distribution about `mean` with standard deviation
/// `spread`, clamped at two deviations either side (and at 0): no agent of a spread
/// crowd stands still or runs away. `mean` itself where `spread` is 0 (nothing is
/// drawn then).
pub fn speed_drawn<R: rand_core::Rng + ?Sized>(mean: f32, spread: f32, rng: &mut R) -> f32 {
    use rand_distr::{Distribution, StandardNormal};
    if spread.is_nan() || spread <= 0.0 {
        return mean;
    }
    let z: f32 = StandardNormal.sample(rng);
    (mean + spread * z.clamp(-2.0, 2.0)).max(0.0)
}

/// A pedestrian's limits ([`AgentSpec::with_pedestrian_body`]): mass 1, top speed
/// [`PEDESTRIAN_SPEED`], and a force that reaches it within 0.05 s.
pub const PEDESTRIAN_LIMITS: crate::integrate::Limits = crate::integrate::Limits {
    mass: 1.0,
    max_speed: PEDESTRIAN_SPEED,
    max_force: 26.8,
};

impl AgentSpec {
    /// An agent of `group` at `position` with the default parameters.
    #[must_use]
    pub fn new(group: GroupId, position: Vec2) -> Self {
        Self {
            group,
            position,
            velocity: Vec2::ZERO,
            heading: None,
            mass: DEFAULT_LIMITS.mass,
            max_speed: DEFAULT_LIMITS.max_speed,
            max_force: DEFAULT_LIMITS.max_force,
            radius: DEFAULT_RADIUS,
            target: Target::None,
            target2: Target::None,
            offset: Vec2::ZERO,
        }
    }

    /// Set the initial velocity.
    #[must_use]
    pub fn with_velocity(mut self, v: Vec2) -> Self {
        self.velocity = v;
        self
    }

    /// Set the initial heading.
    #[must_use]
    pub fn with_heading(mut self, heading: f32) -> Self {
        self.heading = Some(heading);
        self
    }

    /// Set mass, maximum speed and maximum force by name.
    #[must_use]
    pub fn with_body(self, body: crate::integrate::Limits) -> Self {
        self.with_limits(body.mass, body.max_speed, body.max_force)
    }

    /// Set mass, maximum speed and maximum force (in that order; see also
    /// [`Self::with_body`]).
    #[must_use]
    pub fn with_limits(mut self, mass: f32, max_speed: f32, max_force: f32) -> Self {
        self.mass = mass;
        self.max_speed = max_speed;
        self.max_force = max_force;
        self
    }

    /// A pedestrian's body, in metres and seconds: shoulder radius
    /// [`PEDESTRIAN_RADIUS`], free speed [`PEDESTRIAN_SPEED`] (Weidmann's mean), and a
    /// force that reaches that speed within 0.05 s (mass 1, force 26.8), so that a
    /// body keeps up with the velocity its avoidance chooses at the usual time steps.
    /// With [`crate::behaviours::avoidance::AvoidanceParams::pedestrian`], crowds
    /// through doors of 1 to 2 m come within the range people measure
    /// (`docs/pedestrians.md`).
    #[must_use]
    pub fn with_pedestrian_body(self) -> Self {
        self.with_body(PEDESTRIAN_LIMITS)
            .with_radius(PEDESTRIAN_RADIUS)
    }

    /// Set the body radius.
    #[must_use]
    pub fn with_radius(mut self, radius: f32) -> Self {
        self.radius = radius;
        self
    }

    /// Set the primary target.
    #[must_use]
    pub fn with_target(mut self, target: Target) -> Self {
        self.target = target;
        self
    }

    /// Set the secondary target.
    #[must_use]
    pub fn with_target2(mut self, target: Target) -> Self {
        self.target2 = target;
        self
    }

    /// Set the formation offset (offset pursuit).
    #[must_use]
    pub fn with_offset(mut self, offset: Vec2) -> Self {
        self.offset = offset;
        self
    }

    /// Check every numeric field.
    pub(crate) fn validate(&self) -> Result<()> {
        finite_vec("position", self.position)?;
        finite_vec("velocity", self.velocity)?;
        if let Some(h) = self.heading {
            finite("heading", h)?;
        }
        positive("mass", self.mass)?;
        non_negative("max_speed", self.max_speed)?;
        non_negative("max_force", self.max_force)?;
        non_negative("radius", self.radius)?;
        validate_target("target", self.target)?;
        validate_target("target2", self.target2)?;
        finite_vec("offset", self.offset)?;
        Ok(())
    }
}

pub(crate) fn validate_target(field: &'static str, t: Target) -> Result<()> {
    if let Target::Point(p) = t {
        finite_vec(field, p)?;
    }
    Ok(())
}

/// Per-agent behaviour memory: state a behaviour carries from tick to tick. Only
/// the steering pass writes it, each agent its own row.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct BehaviourMemory {
    /// Wander target in the agent's local frame (x right, y forward).
    pub wander: Vec2,
    /// Distance travelled along the agent's path (path following).
    pub path_progress: f32,
}

/// The output of the steering pass for one agent (16 bytes a row: a million
/// agents keep one each).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SteerOut {
    /// Force (steering movement) or desired velocity (kinematic movement).
    pub linear: Vec2,
    /// Angular acceleration (steering) or rotation (kinematic).
    pub angular: f32,
    /// A heading to set directly (kinematic movement that faces its motion); NaN
    /// for none. Read through [`SteerOut::heading`].
    set_heading: f32,
}

impl Default for SteerOut {
    fn default() -> Self {
        Self::new(Vec2::ZERO, 0.0, None)
    }
}

impl SteerOut {
    /// An output; a `heading` that is not finite counts as none.
    pub(crate) fn new(linear: Vec2, angular: f32, heading: Option<f32>) -> Self {
        Self {
            linear,
            angular,
            set_heading: heading.filter(|h| h.is_finite()).unwrap_or(f32::NAN),
        }
    }

    /// The heading to set directly, if any.
    pub(crate) fn heading(&self) -> Option<f32> {
        Some(self.set_heading).filter(|h| !h.is_nan())
    }
}

/// The struct-of-arrays agent storage. Every column has one entry per live agent;
/// `push` and `swap_remove` touch every column.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Columns {
    pub id: Vec<AgentId>,
    pub group: Vec<u16>,
    pub pos: Vec<Vec2>,
    pub vel: Vec<Vec2>,
    /// Unit velocity (zero when still), kept in step with `vel`.
    pub unit_vel: Vec<Vec2>,
    pub heading: Vec<f32>,
    pub rotation: Vec<f32>,
    pub mass: Vec<f32>,
    pub max_speed: Vec<f32>,
    pub max_force: Vec<f32>,
    pub radius: Vec<f32>,
    pub target: Vec<Target>,
    /// Second targets (interpose): a row per agent once some agent has one
    /// ([`Target::None`] otherwise).
    pub target2: Lazy<Target>,
    /// Formation offsets (offset pursuit): a row per agent once some agent has a
    /// non-zero one (zero otherwise).
    pub offset: Lazy<Vec2>,
    pub rng: Vec<AgentRng>,
    pub memory: Vec<BehaviourMemory>,
    /// The approach walker's state: a row per agent once some group walks
    /// ([`Self::start_walking`]).
    pub walker: Lazy<WalkerState>,
    /// Arrival state, updated after every tick.
    pub arrival: Vec<ArrivalMemory>,
    /// The host's preferred velocity of a host-driven agent (NaN for an agent its
    /// behaviours drive): a row per agent once some agent is host-driven
    /// ([`Self::start_host_driving`]).
    pub preferred: Lazy<Vec2>,
    /// The agent's own path (a [`crate::group::PathId`] index; [`NO_PATH`] for an
    /// agent that follows its group's): a row per agent once some agent has one
    /// ([`Self::start_paths`]).
    pub path: Lazy<u32>,
    pub out: Vec<SteerOut>,
}

/// A `path` entry of an agent without a path of its own.
pub(crate) const NO_PATH: u32 = u32::MAX;

/// The entry of `row` in a `path` column: the agent's own path, if it has one.
#[inline]
pub(crate) fn own_path(paths: &[u32], row: usize) -> Option<usize> {
    paths
        .get(row)
        .copied()
        .filter(|&r| r != NO_PATH)
        .map(|r| r as usize)
}

/// The entry of `row` in a `target2` column (a row past the end of an empty
/// column: no agent has a second target).
#[inline]
pub(crate) fn second_target(target2: &[Target], row: usize) -> Target {
    target2.get(row).copied().unwrap_or(Target::None)
}

/// The entry of `row` in an `offset` column (a row past the end of an empty
/// column: every offset is zero).
#[inline]
pub(crate) fn formation_offset(offset: &[Vec2], row: usize) -> Vec2 {
    offset.get(row).copied().unwrap_or(Vec2::ZERO)
}

/// The entry of `row` in a `preferred` column (NaN: not host-driven; a row past the
/// end of an empty column: no agent is).
#[inline]
pub(crate) fn host_velocity(preferred: &[Vec2], row: usize) -> Option<Vec2> {
    preferred.get(row).copied().filter(|v| !v.is_nan())
}

/// A re-sort of fewer rows puts the columns in order one after another; a larger
/// one hands them to the workers, a column each.
const PARALLEL_PERMUTE_MIN: usize = 8192;

/// Apply the macro `$m` to the name of every column (keeps push, remove and
/// permute in step: a column missing here is a compile error in `check`).
macro_rules! for_each_column {
    ($m:ident) => {{
        $m!(id);
        $m!(group);
        $m!(pos);
        $m!(vel);
        $m!(unit_vel);
        $m!(heading);
        $m!(rotation);
        $m!(mass);
        $m!(max_speed);
        $m!(max_force);
        $m!(radius);
        $m!(target);
        $m!(rng);
        $m!(memory);
        $m!(arrival);
        $m!(out);
    }};
}

/// Apply the macro `$m` to the name of every [`Lazy`] column.
macro_rules! for_each_lazy_column {
    ($m:ident) => {{
        $m!(target2);
        $m!(offset);
        $m!(walker);
        $m!(preferred);
        $m!(path);
    }};
}

impl Columns {
    pub(crate) fn len(&self) -> usize {
        self.id.len()
    }

    /// Debug check that every column has the same length.
    pub(crate) fn check(&self) {
        debug_assert!(self.holds_together(), "columns of different lengths");
    }

    /// Whether every column has one entry per row (a lazy column none until
    /// started): for columns read from outside, such as a snapshot.
    pub(crate) fn holds_together(&self) -> bool {
        let n = self.len();
        let mut ok = true;
        macro_rules! same {
            ($col:ident) => {
                ok &= self.$col.len() == n;
            };
        }
        macro_rules! same_lazy {
            ($col:ident) => {
                ok &= self.$col.holds(n);
            };
        }
        for_each_column!(same);
        for_each_lazy_column!(same_lazy);
        ok
    }

    /// The second target of the agent in `row`.
    pub(crate) fn target2(&self, row: usize) -> Target {
        second_target(self.target2.rows(), row)
    }

    /// The formation offset of the agent in `row`.
    pub(crate) fn offset(&self, row: usize) -> Vec2 {
        formation_offset(self.offset.rows(), row)
    }

    /// The first row holding a value no spawn accepts (a non-finite position,
    /// velocity, heading, rotation, offset, point target or behaviour memory; a mass
    /// not > 0; a negative speed, force or radius): for columns read from outside,
    /// such as a snapshot.
    pub(crate) fn first_invalid_row(&self) -> Option<usize> {
        (0..self.len()).find(|&r| {
            // What a spawn checks, through the spawn's own check; then the state a
            // spawn does not set.
            let spec = AgentSpec {
                group: GroupId {
                    index: self.group[r],
                    generation: 0,
                    world: WorldTag::NONE,
                },
                position: self.pos[r],
                velocity: self.vel[r],
                heading: Some(self.heading[r]),
                mass: self.mass[r],
                max_speed: self.max_speed[r],
                max_force: self.max_force[r],
                radius: self.radius[r],
                target: self.target[r],
                target2: self.target2(r),
                offset: self.offset(r),
            };
            // A speed above the top speed (beyond rounding, which among subnormals is
            // a step of 1.4e-45) is one no tick or setter leaves: the avoidance's
            // programs square speeds on that promise.
            let speed = f64::from(self.vel[r].x).hypot(f64::from(self.vel[r].y));
            let ok = spec.validate().is_ok()
                && speed <= f64::from(self.max_speed[r]) * (1.0 + 1e-5) + 1e-44
                && self.unit_vel[r].is_finite()
                && self.memory[r].wander.is_finite()
                && self.memory[r].path_progress.is_finite()
                && self.arrival[r].slow_for.is_finite()
                && self
                    .preferred
                    .get(r)
                    .is_none_or(|p| p.is_finite() || (p.x.is_nan() && p.y.is_nan()))
                && self.rotation[r].is_finite();
            !ok
        })
    }

    /// Give every row a walker state (the default), and every row pushed from now on.
    pub(crate) fn start_walking(&mut self) {
        self.walker.start(self.len(), WalkerState::default());
    }

    /// The host's preferred velocity of the agent in `row`, when it is host-driven.
    pub(crate) fn host_velocity(&self, row: usize) -> Option<Vec2> {
        host_velocity(self.preferred.rows(), row)
    }

    /// Give every row a preferred-velocity entry (none: NaN), and every row pushed
    /// from now on.
    pub(crate) fn start_host_driving(&mut self) {
        self.preferred.start(self.len(), Vec2::NAN);
    }

    /// Give every row a path entry (none), and every row pushed from now on.
    pub(crate) fn start_paths(&mut self) {
        self.path.start(self.len(), NO_PATH);
    }

    /// Give every row a second target (none), and every row pushed from now on.
    pub(crate) fn start_target2(&mut self) {
        self.target2.start(self.len(), Target::None);
    }

    /// Give every row a formation offset (zero), and every row pushed from now on.
    pub(crate) fn start_offsets(&mut self) {
        self.offset.start(self.len(), Vec2::ZERO);
    }

    /// Make room for `additional` more rows in every column, or fail (nothing lost).
    pub(crate) fn try_reserve(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        macro_rules! res {
            ($col:ident) => {
                self.$col.try_reserve(additional)?;
            };
        }
        for_each_column!(res);
        for_each_lazy_column!(res);
        Ok(())
    }

    /// Append a row for a validated spec.
    pub(crate) fn push(&mut self, id: AgentId, spec: &AgentSpec, seed: u64, wander: &WanderParams) {
        let heading = spec
            .heading
            .unwrap_or_else(|| crate::math::vec_to_heading(spec.velocity));
        // A lazy column a value needs starts over the rows there are before this one.
        if spec.target2 != Target::None {
            self.start_target2();
        }
        if spec.offset != Vec2::ZERO {
            self.start_offsets();
        }
        self.id.push(id);
        self.group.push(spec.group.index);
        self.pos.push(spec.position);
        let vel = crate::math::truncate(spec.velocity, spec.max_speed);
        self.vel.push(vel);
        self.unit_vel.push(crate::math::normalize_or_zero(vel));
        self.heading.push(crate::math::wrap_angle(heading));
        self.rotation.push(0.0);
        self.mass.push(spec.mass);
        self.max_speed.push(spec.max_speed);
        self.max_force.push(spec.max_force);
        self.radius.push(spec.radius);
        self.target.push(spec.target);
        self.target2.push(spec.target2);
        self.offset.push(spec.offset);
        self.rng.push(agent_rng(seed, id.key()));
        self.memory.push(BehaviourMemory {
            wander: initial_wander_target(wander),
            path_progress: 0.0,
        });
        self.walker.push(WalkerState::default());
        self.preferred.push(Vec2::NAN);
        self.path.push(NO_PATH);
        self.arrival
            .push(ArrivalMemory::spawned(spec.target != Target::None));
        self.out.push(SteerOut::default());
        self.check();
    }

    /// Remove a row by swapping the last row into its place. Returns the id of
    /// the row that moved into `row`, if any.
    pub(crate) fn swap_remove(&mut self, row: usize) -> Option<AgentId> {
        macro_rules! rm {
            ($col:ident) => {
                self.$col.swap_remove(row);
            };
        }
        for_each_column!(rm);
        for_each_lazy_column!(rm);
        self.check();
        self.id.get(row).copied()
    }

    /// Put the rows in the order of a re-sort's sorted `keys` (new row k = old row
    /// `keys[k] as u32`), in place: the permutation's cycles are found once
    /// ([`Cycles`], written into the keys' free high halves) and the columns are
    /// walked along them, handed to the workers one each, the `f32` columns
    /// together and the `Vec2` ones together (which a worker takes changes nothing in
    /// the result). So a re-sort needs no second copy of any column and no order of
    /// its own, only two bits a row.
    ///
    /// `out` is left alone, since a re-sort sits at the start of a tick: the tick's
    /// steering pass writes it for every row before anything reads it.
    pub(crate) fn permute(&mut self, keys: &mut [u64], cycles: &mut Cycles) {
        use rayon::prelude::*;
        cycles.find(keys);
        let (cycles, keys) = (&*cycles, &*keys);
        let parallel = self.len() >= PARALLEL_PERMUTE_MIN;
        // The columns of `f32` and of `Vec2` go in one walk of the cycles each
        // ([`Cycles::apply_all`]; `docs/optimisations.md`, "Re-sort: columns of one
        // type in one walk").
        let mut scalars = Fused([
            &mut self.heading,
            &mut self.rotation,
            &mut self.mass,
            &mut self.max_speed,
            &mut self.max_force,
            &mut self.radius,
        ]);
        let mut vectors = Fused([&mut self.pos, &mut self.vel, &mut self.unit_vel]);
        // Every column (a lazy one only once started: before, it has no rows), as a
        // fixed array so that handing them to the workers allocates nothing.
        let mut columns: [Option<&mut dyn Permutable>; 32] = Default::default();
        columns[0] = Some(&mut scalars);
        columns[1] = Some(&mut vectors);
        let mut k = 2;
        macro_rules! add {
            (out) => {};
            (heading) => {};
            (rotation) => {};
            (mass) => {};
            (max_speed) => {};
            (max_force) => {};
            (radius) => {};
            (pos) => {};
            (vel) => {};
            (unit_vel) => {};
            ($col:ident) => {
                columns[k] = Some(&mut self.$col);
                k += 1;
            };
        }
        macro_rules! add_lazy {
            ($col:ident) => {
                if !self.$col.rows().is_empty() {
                    columns[k] = Some(&mut self.$col);
                    k += 1;
                }
            };
        }
        for_each_column!(add);
        for_each_lazy_column!(add_lazy);
        let apply = |c: &mut Option<&mut dyn Permutable>| {
            if let Some(c) = c {
                c.permute_by(cycles, keys);
            }
        };
        if parallel {
            columns[..k].par_iter_mut().for_each(apply);
        } else {
            columns[..k].iter_mut().for_each(apply);
        }
        self.check();
    }
}

/// A column that [`Cycles`] can put in order.
trait Permutable: Send {
    fn permute_by(&mut self, cycles: &Cycles, keys: &[u64]);
}

impl<T: Clone + Send> Permutable for Vec<T> {
    fn permute_by(&mut self, cycles: &Cycles, keys: &[u64]) {
        cycles.apply(keys, self);
    }
}

/// Columns of one type put in order in one walk of the cycles.
struct Fused<'a, T, const N: usize>([&'a mut Vec<T>; N]);

impl<T: Clone + Send, const N: usize> Permutable for Fused<'_, T, N> {
    fn permute_by(&mut self, cycles: &Cycles, keys: &[u64]) {
        cycles.apply_all(keys, self.0.each_mut().map(|c| &mut c[..]));
    }
}

impl<T: Clone + Send> Permutable for Lazy<T> {
    fn permute_by(&mut self, cycles: &Cycles, keys: &[u64]) {
        cycles.apply(keys, self.rows_mut());
    }
}
