//! Python bindings of throng: a thin layer over the engine's API. Whole columns go
//! out as numpy arrays (one call for the crowd, not one per agent) and come in as
//! arrays; worlds come from profiles or are built here; every engine error is a
//! `throng.ThrongError` with the engine's message, and a step releases the GIL.

use std::sync::Arc;

use glam::Vec2;
use numpy::ndarray::Array2;
use numpy::{AllowTypeChange, IntoPyArray, PyArray1, PyArray2, PyArrayLike1, PyArrayLike2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use throng::behaviours::avoidance::{AvoidanceParams, NearGoal};
use throng::quality::{Gate, Observed, QualityCounter, QualitySettings};
use throng::scenario::{Overrides, Profile, Scenario};
use throng::scene::Wall;
use throng::spatial::IndexKind;
use throng::world::{Arrival, LevelOfDetail, Snapshot};
use throng::ThrongError as EngineError;
use throng::{AgentId, AgentSpec, GroupConfig, GroupId, Target, World, WorldConfig};

pyo3::create_exception!(
    throng,
    ThrongError,
    PyValueError,
    "An engine error: bad input (with the engine's message); nothing was changed."
);

/// An engine error as a Python exception.
fn err(e: EngineError) -> PyErr {
    ThrongError::new_err(e.to_string())
}

/// A message as a Python exception of the engine's kind.
fn bad(msg: impl Into<String>) -> PyErr {
    ThrongError::new_err(msg.into())
}

/// A thread pool of `threads` workers; `None` (the process's shared pool) for 0.
fn thread_pool(threads: usize) -> PyResult<Option<Arc<rayon::ThreadPool>>> {
    throng::world::thread_pool(threads).map_err(err)
}

/// The index kind named `name`.
fn index_kind(name: &str) -> PyResult<IndexKind> {
    match name {
        "kdtree" => Ok(IndexKind::KdTree),
        "grid" => Ok(IndexKind::Grid),
        other => Err(bad(format!(
            "index must be \"kdtree\" or \"grid\", got {other:?}"
        ))),
    }
}

/// A plain world, or one built from a profile (whose moving targets, leaders and
/// leaving groups the scenario drives). One per Python world, never moved about:
/// the plain world's size costs nothing.
#[allow(clippy::large_enum_variant)]
enum Engine {
    Plain(World),
    Profile(Box<Scenario>),
}

impl Engine {
    fn world(&self) -> &World {
        match self {
            Engine::Plain(w) => w,
            Engine::Profile(s) => s.world(),
        }
    }

    fn world_mut(&mut self) -> &mut World {
        match self {
            Engine::Plain(w) => w,
            Engine::Profile(s) => s.world_mut(),
        }
    }
}

/// `(n, 2)` float32 rows as points; refuses another shape.
fn points(a: &PyArrayLike2<'_, f32, AllowTypeChange>, what: &str) -> PyResult<Vec<Vec2>> {
    let view = a.as_array();
    if view.ncols() != 2 {
        return Err(bad(format!(
            "{what} must have shape (n, 2), got {:?}",
            view.shape()
        )));
    }
    Ok(view
        .rows()
        .into_iter()
        .map(|r| Vec2::new(r[0], r[1]))
        .collect())
}

/// Points as an `(n, 2)` float32 array.
fn to_array<'py>(py: Python<'py>, v: Vec<Vec2>) -> Bound<'py, PyArray2<f32>> {
    let n = v.len();
    let flat: Vec<f32> = bytemuck::cast_slice(&v).to_vec();
    let a = Array2::from_shape_vec((n, 2), flat).unwrap_or_else(|_| Array2::zeros((0, 2)));
    a.into_pyarray(py)
}

/// A crowd world: agents in columns, stepped in parallel, bitwise the same on any
/// thread count. `World(seed=0, index="kdtree", threads=0)` is an empty world (add
/// groups with `add_group`); `World.from_profile(...)` builds one from a scenario
/// profile. Columns come out as numpy arrays in row order; `ids()` says which
/// agent each row is.
#[pyclass(name = "World", module = "throng")]
struct PyWorld {
    engine: Engine,
}

#[pymethods]
impl PyWorld {
    #[new]
    #[pyo3(signature = (seed = 0, index = "kdtree", threads = 0))]
    fn new(seed: u64, index: &str, threads: usize) -> PyResult<Self> {
        let mut world = World::new(WorldConfig {
            seed,
            index: index_kind(index)?,
            ..WorldConfig::default()
        });
        world.set_thread_pool(thread_pool(threads)?);
        Ok(Self {
            engine: Engine::Plain(world),
        })
    }

    /// A world built from a profile's text (the TOML format of `profiles/`):
    /// `agents` scales every group's count (and the scene) to about that many,
    /// `seed` replaces the profile's. `name` names the text in error messages.
    #[staticmethod]
    #[pyo3(signature = (text, name = "profile.toml", agents = None, seed = None, threads = 0))]
    fn from_profile(
        text: &str,
        name: &str,
        agents: Option<usize>,
        seed: Option<u64>,
        threads: usize,
    ) -> PyResult<Self> {
        let profile = throng::scenario::parse_profile(text, name).map_err(|e| bad(e.render()))?;
        Self::of_profile(&profile, agents, seed, threads)
    }

    /// A world built from a profile file.
    #[staticmethod]
    #[pyo3(signature = (path, agents = None, seed = None, threads = 0))]
    fn from_profile_file(
        path: std::path::PathBuf,
        agents: Option<usize>,
        seed: Option<u64>,
        threads: usize,
    ) -> PyResult<Self> {
        let profile = throng::scenario::load_profile(&path).map_err(|e| bad(e.render()))?;
        Self::of_profile(&profile, agents, seed, threads)
    }

    /// A world built from one of the profiles bundled with throng (`bundled_profiles()`).
    #[staticmethod]
    #[pyo3(signature = (name, agents = None, seed = None, threads = 0))]
    fn bundled(
        name: &str,
        agents: Option<usize>,
        seed: Option<u64>,
        threads: usize,
    ) -> PyResult<Self> {
        let b = throng::scenario::bundled(name)
            .ok_or_else(|| bad(format!("no bundled profile named {name:?}")))?;
        let profile = throng::scenario::load_bundled(b).map_err(|e| bad(e.render()))?;
        Self::of_profile(&profile, agents, seed, threads)
    }

    /// A plain world rebuilt from `snapshot()`'s bytes: it steps bitwise as the world
    /// the snapshot was taken of (a profile's moving targets are not in a snapshot).
    #[staticmethod]
    #[pyo3(signature = (data, threads = 0))]
    fn from_snapshot(data: &[u8], threads: usize) -> PyResult<Self> {
        let snapshot = Snapshot::from_bytes(data).map_err(err)?;
        let mut world = World::from_snapshot(snapshot).map_err(err)?;
        world.set_thread_pool(thread_pool(threads)?);
        Ok(Self {
            engine: Engine::Plain(world),
        })
    }

    /// Advance by `ticks` ticks of `dt` seconds (a profile world's own `dt` when
    /// `dt` is None). The GIL is released meanwhile.
    #[pyo3(signature = (dt = None, ticks = 1))]
    fn step(&mut self, py: Python<'_>, dt: Option<f32>, ticks: u32) -> PyResult<()> {
        let engine = &mut self.engine;
        py.detach(|| -> Result<(), EngineError> {
            for _ in 0..ticks {
                match (&mut *engine, dt) {
                    (Engine::Profile(s), None) => s.step().map(drop)?,
                    (Engine::Profile(s), Some(dt)) => s.step_by(dt).map(drop)?,
                    (Engine::Plain(w), Some(dt)) => w.step(dt).map(drop)?,
                    (Engine::Plain(_), None) => {
                        return Err(EngineError::InvalidParameter {
                            field: "dt".into(),
                            reason: "a world not built from a profile needs dt".into(),
                        })
                    }
                }
            }
            Ok(())
        })
        .map_err(err)
    }

    /// The profile's tick length, or None for a world not built from a profile.
    #[getter]
    fn dt(&self) -> Option<f32> {
        match &self.engine {
            Engine::Profile(s) => Some(s.profile().world.dt),
            Engine::Plain(_) => None,
        }
    }

    /// Ticks stepped so far.
    #[getter]
    fn tick(&self) -> u64 {
        self.engine.world().tick()
    }

    /// Seconds stepped so far.
    #[getter]
    fn elapsed(&self) -> f64 {
        self.engine.world().elapsed()
    }

    fn __len__(&self) -> usize {
        self.engine.world().len()
    }

    fn __repr__(&self) -> String {
        let w = self.engine.world();
        format!(
            "throng.World({} agents, {} groups, tick {})",
            w.len(),
            w.groups().count(),
            w.tick()
        )
    }

    /// Every agent's handle, by row (`uint64`).
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        let ids: Vec<u64> = self
            .engine
            .world()
            .ids()
            .iter()
            .map(|id| id.to_bits())
            .collect();
        ids.into_pyarray(py)
    }

    /// Positions, `(n, 2)` float32, by row.
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        to_array(py, self.engine.world().positions().to_vec())
    }

    /// Velocities, `(n, 2)` float32, by row.
    fn velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        to_array(py, self.engine.world().velocities().to_vec())
    }

    /// The velocities the agents' behaviours (or their hosts) asked for last tick,
    /// before avoidance and limits, `(n, 2)` float32.
    fn desired_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        to_array(py, self.engine.world().desired_velocities().collect())
    }

    /// Headings in radians, clockwise from +y, by row.
    fn headings<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.engine.world().headings().to_vec().into_pyarray(py)
    }

    /// Body radii, by row.
    fn radii<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.engine.world().radii().to_vec().into_pyarray(py)
    }

    /// Top speeds, by row.
    fn max_speeds<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.engine.world().max_speeds().to_vec().into_pyarray(py)
    }

    /// Each agent's group index, by row (`group_names()[i]` names group `i`).
    fn group_indices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u16>> {
        self.engine
            .world()
            .group_indices()
            .to_vec()
            .into_pyarray(py)
    }

    /// Each agent's arrival state, by row (`uint8`: the index in `ARRIVAL_STATES`).
    fn arrivals<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let states: Vec<u8> = self.engine.world().arrivals().map(arrival_code).collect();
        states.into_pyarray(py)
    }

    /// Where each agent is going, by row, `(n, 2)` float32: its target point, or the
    /// current position of its target agent; a row of NaN for none.
    fn targets<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        let w = self.engine.world();
        let goals = w
            .targets()
            .iter()
            .map(|t| match *t {
                Target::Point(p) => Vec2::new(p.x, p.y),
                Target::Agent(a) => w.position(a).map_or(Vec2::NAN, |p| Vec2::new(p.x, p.y)),
                Target::None => Vec2::NAN,
            })
            .collect();
        to_array(py, goals)
    }

    /// The last step's arrival changes: `(ids, from, to)`, the states as codes into
    /// `ARRIVAL_STATES`, in row order.
    fn arrival_events<'py>(&self, py: Python<'py>) -> Events<'py> {
        let events = self.engine.world().arrival_events();
        let ids: Vec<u64> = events.iter().map(|e| e.agent.to_bits()).collect();
        let from: Vec<u8> = events.iter().map(|e| arrival_code(e.from)).collect();
        let to: Vec<u8> = events.iter().map(|e| arrival_code(e.to)).collect();
        (
            ids.into_pyarray(py),
            from.into_pyarray(py),
            to.into_pyarray(py),
        )
    }

    /// The names of the groups, by index.
    fn group_names(&self) -> Vec<String> {
        self.engine
            .world()
            .groups()
            .map(|(_, g)| g.name.clone())
            .collect()
    }

    /// Add a group of agents whose velocities the host asks for
    /// (`set_preferred_velocities`), made collision-free by ORCA (the model of
    /// RVO2): `neighbour_radius` and `max_neighbours` bound whom each agent avoids,
    /// `avoidance` holds ORCA's keys as the profile format names them
    /// (`preset` — `"pedestrian"`, whose values the other keys replace —,
    /// `time_horizon`, `obstacle_time_horizon`, `priority`, `layers`, `mask`,
    /// ...); None leaves avoidance off. Returns the group's index. Groups with
    /// behaviours come from profiles (`from_profile`; a group of `count = 0` is
    /// spawned into from Python). `think_every` > 1: its agents steer only every
    /// this many ticks, in rotation, moving on their last output in between (level
    /// of detail).
    #[pyo3(signature = (name, neighbour_radius = 3.0, max_neighbours = 12, avoidance = None, think_every = 1))]
    fn add_group(
        &mut self,
        name: &str,
        neighbour_radius: f32,
        max_neighbours: usize,
        avoidance: Option<&Bound<'_, PyDict>>,
        think_every: u32,
    ) -> PyResult<usize> {
        let mut config = GroupConfig::new(name).thinking_every(think_every);
        config.neighbour_radius = neighbour_radius;
        config.max_neighbours = max_neighbours;
        if let Some(d) = avoidance {
            config.avoidance = Some(avoidance_params(d)?);
        }
        let id = self.engine.world_mut().add_group(config).map_err(err)?;
        Ok(id.index())
    }

    /// Spawn one agent per row of `positions` (`(n, 2)`) into `group` (a name or an
    /// index), with the group's body as its profile gives it (or the engine's
    /// defaults), aiming at the matching row of `targets` when given; `radius`,
    /// `max_speed`, `max_force`, `mass` replace the body's for all of them. Returns
    /// their handles. All or nothing: on an error none is spawned.
    #[pyo3(signature = (group, positions, targets = None, velocities = None, radius = None, max_speed = None, max_force = None, mass = None))]
    #[allow(clippy::too_many_arguments)]
    fn spawn<'py>(
        &mut self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
        positions: PyArrayLike2<'py, f32, AllowTypeChange>,
        targets: Option<PyArrayLike2<'py, f32, AllowTypeChange>>,
        velocities: Option<PyArrayLike2<'py, f32, AllowTypeChange>>,
        radius: Option<f32>,
        max_speed: Option<f32>,
        max_force: Option<f32>,
        mass: Option<f32>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let g = self.group_id(group)?;
        let pos = points(&positions, "positions")?;
        let rows = |a: &Option<PyArrayLike2<'py, f32, AllowTypeChange>>, what| match a {
            Some(a) => {
                let p = points(a, what)?;
                if p.len() == pos.len() {
                    Ok(Some(p))
                } else {
                    Err(bad(format!(
                        "{what} has {} rows, positions {}",
                        p.len(),
                        pos.len()
                    )))
                }
            }
            None => Ok(None),
        };
        let targets = rows(&targets, "targets")?;
        let velocities = rows(&velocities, "velocities")?;
        let body = self.body_of(g);
        let specs: Vec<AgentSpec> = pos
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let mut s = AgentSpec::new(g, p);
                if let Some((m, sp, f, r)) = body {
                    s = s.with_limits(m, sp, f).with_radius(r);
                }
                s.mass = mass.unwrap_or(s.mass);
                s.max_speed = max_speed.unwrap_or(s.max_speed);
                s.max_force = max_force.unwrap_or(s.max_force);
                s.radius = radius.unwrap_or(s.radius);
                if let Some(t) = &targets {
                    s = s.with_target(Target::Point(t[i]));
                }
                if let Some(v) = &velocities {
                    s = s.with_velocity(v[i]);
                }
                s
            })
            .collect();
        let ids = self.engine.world_mut().spawn_many(&specs).map_err(err)?;
        let bits: Vec<u64> = ids.iter().map(|id| id.to_bits()).collect();
        Ok(bits.into_pyarray(py))
    }

    /// Despawn the agents `ids`. All or nothing.
    fn despawn(&mut self, ids: PyArrayLike1<'_, u64, AllowTypeChange>) -> PyResult<()> {
        let ids = self.agent_ids(&ids);
        self.engine.world_mut().despawn_many(&ids).map_err(err)
    }

    /// Set the position of each agent of `ids` to the matching row of `positions`.
    fn set_positions(
        &mut self,
        ids: PyArrayLike1<'_, u64, AllowTypeChange>,
        positions: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<()> {
        let ids = self.agent_ids(&ids);
        let p = points(&positions, "positions")?;
        self.engine.world_mut().set_positions(&ids, &p).map_err(err)
    }

    /// Set the velocity of each agent of `ids`.
    fn set_velocities(
        &mut self,
        ids: PyArrayLike1<'_, u64, AllowTypeChange>,
        velocities: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<()> {
        let ids = self.agent_ids(&ids);
        let v = points(&velocities, "velocities")?;
        self.engine
            .world_mut()
            .set_velocities(&ids, &v)
            .map_err(err)
    }

    /// Set the velocity each agent of `ids` asks for (host-driven agents: the
    /// group's avoidance makes it collision-free); a row of NaN gives an agent back
    /// to its behaviours.
    fn set_preferred_velocities(
        &mut self,
        ids: PyArrayLike1<'_, u64, AllowTypeChange>,
        velocities: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<()> {
        let ids = self.agent_ids(&ids);
        let v: Vec<Option<Vec2>> = points(&velocities, "velocities")?
            .into_iter()
            .map(|v| (!v.is_nan()).then_some(v))
            .collect();
        self.engine
            .world_mut()
            .set_preferred_velocities(&ids, &v)
            .map_err(err)
    }

    /// Aim each agent of `ids` at the matching row of `points`; a row of NaN clears
    /// its target.
    fn set_targets(
        &mut self,
        ids: PyArrayLike1<'_, u64, AllowTypeChange>,
        points_: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<()> {
        let ids = self.agent_ids(&ids);
        let t: Vec<Target> = points(&points_, "points")?
            .into_iter()
            .map(|p| {
                if p.is_nan() {
                    Target::None
                } else {
                    Target::Point(p)
                }
            })
            .collect();
        self.engine
            .world_mut()
            .set_each_target(&ids, &t)
            .map_err(err)
    }

    /// Set an agent's body radius.
    fn set_radius(&mut self, id: u64, radius: f32) -> PyResult<()> {
        let id = self.agent_id(id);
        self.engine.world_mut().set_radius(id, radius).map_err(err)
    }

    /// Set an agent's top speed, keeping its mass and force.
    fn set_max_speed(&mut self, id: u64, max_speed: f32) -> PyResult<()> {
        let id = self.agent_id(id);
        let w = self.engine.world_mut();
        let l = w.limits(id).map_err(err)?;
        w.set_limits(id, l.mass, max_speed, l.max_force)
            .map_err(err)
    }

    /// Move an agent to another group (by name or index), keeping its body.
    fn set_group(&mut self, id: u64, group: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.agent_id(id);
        let g = self.group_id(group)?;
        self.engine.world_mut().set_agent_group(id, g).map_err(err)
    }

    /// Replace the static walls by the segments of `segments` (`(m, 4)`: x0, y0,
    /// x1, y1 each).
    fn set_walls(&mut self, segments: PyArrayLike2<'_, f32, AllowTypeChange>) -> PyResult<()> {
        let view = segments.as_array();
        if view.ncols() != 4 {
            return Err(bad(format!(
                "segments must have shape (m, 4), got {:?}",
                view.shape()
            )));
        }
        let walls = view
            .rows()
            .into_iter()
            .map(|r| Wall::new(Vec2::new(r[0], r[1]), Vec2::new(r[2], r[3])))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(e.to_string()))?;
        self.engine.world_mut().set_walls(&walls).map_err(err)
    }

    /// The handles of the agents within `radius` of `point`, nearest first.
    fn agents_within<'py>(
        &self,
        py: Python<'py>,
        point: (f32, f32),
        radius: f32,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let mut out = Vec::new();
        self.engine
            .world()
            .agents_within(Vec2::new(point.0, point.1), radius, None, &mut out)
            .map_err(err)?;
        let bits: Vec<u64> = out.iter().map(|id| id.to_bits()).collect();
        Ok(bits.into_pyarray(py))
    }

    /// Level of detail around a point (a camera): the agents farther than `near` from
    /// `centre` steer only every `think_every` ticks, in rotation, moving on their last
    /// output in between. None (or `think_every` 1) turns it off.
    #[pyo3(signature = (centre = None, near = 0.0, think_every = 1))]
    fn set_level_of_detail(
        &mut self,
        centre: Option<(f32, f32)>,
        near: f32,
        think_every: u32,
    ) -> PyResult<()> {
        let lod = centre
            .filter(|_| think_every != 1)
            .map(|(x, y)| LevelOfDetail::new(Vec2::new(x, y), near, think_every));
        self.engine
            .world_mut()
            .set_level_of_detail(lod)
            .map_err(err)
    }

    /// Whether a body of `radius` passes straight from `start` to `end` through the
    /// walls and obstacles (agents are not in the way).
    #[pyo3(signature = (start, end, radius = 0.0))]
    fn clear_line(&self, start: (f32, f32), end: (f32, f32), radius: f32) -> PyResult<bool> {
        let (a, b) = (Vec2::new(start.0, start.1), Vec2::new(end.0, end.1));
        self.engine.world().clear_line(a, b, radius).map_err(err)
    }

    /// The agents `id` would perceive now: within its group's neighbour radius,
    /// nearest first, at most its group's `max_neighbours`, itself left out.
    fn neighbours_of<'py>(&self, py: Python<'py>, id: u64) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let mut out = Vec::new();
        let w = self.engine.world();
        w.neighbours_of(w.agent_from_bits(id), &mut out)
            .map_err(err)?;
        let bits: Vec<u64> = out.iter().map(|id| id.to_bits()).collect();
        Ok(bits.into_pyarray(py))
    }

    /// The world's state as bytes: `World.from_snapshot` or `restore` bring it back.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.engine.world().snapshot().to_bytes().map_err(err)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Put the world back in the state `snapshot()` took (this world's, or
    /// another's): stepping on gives bitwise what stepping on from it did. On an
    /// error nothing changes.
    fn restore(&mut self, data: &[u8]) -> PyResult<()> {
        let snapshot = Snapshot::from_bytes(data).map_err(err)?;
        self.engine.world_mut().restore(&snapshot).map_err(err)
    }

    /// A 64-bit hash of the whole state: equal for worlds that will step alike.
    fn state_hash(&self) -> u64 {
        self.engine.world().state_hash()
    }

    /// Pickling: a world pickles as its snapshot (and unpickles as a plain world
    /// that steps bitwise the same; a profile's moving targets are not carried).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        let bytes = slf.borrow().snapshot(py)?;
        let ctor = py.get_type::<PyWorld>().getattr("from_snapshot")?;
        Ok((ctor, (bytes,)))
    }
}

impl PyWorld {
    fn of_profile(
        profile: &Profile,
        agents: Option<usize>,
        seed: Option<u64>,
        threads: usize,
    ) -> PyResult<Self> {
        if agents == Some(0) {
            return Err(bad(
                "agents must be at least 1 (or None for the profile's own)",
            ));
        }
        let profile = profile.with_overrides(&Overrides {
            agents,
            seed,
            ticks: None,
        });
        let mut scenario = Scenario::build(&profile).map_err(err)?;
        scenario.world_mut().set_thread_pool(thread_pool(threads)?);
        Ok(Self {
            engine: Engine::Profile(Box::new(scenario)),
        })
    }

    /// The group a Python value names: a name or an index.
    fn group_id(&self, group: &Bound<'_, PyAny>) -> PyResult<GroupId> {
        let w = self.engine.world();
        if let Ok(name) = group.extract::<String>() {
            return w
                .group_by_name(&name)
                .ok_or_else(|| bad(format!("no group named {name:?}")));
        }
        let index: usize = group
            .extract()
            .map_err(|_| bad("a group is a name or an index"))?;
        w.groups()
            .nth(index)
            .map(|(id, _)| id)
            .ok_or_else(|| bad(format!("no group {index}")))
    }

    /// A profile group's body (mass, max speed, max force, radius).
    fn body_of(&self, g: GroupId) -> Option<(f32, f32, f32, f32)> {
        let Engine::Profile(s) = &self.engine else {
            return None;
        };
        let name = &self.engine.world().group(g)?.name;
        let spec = s.profile().groups.iter().find(|spec| &spec.name == name)?;
        let b = spec.body;
        Some((b.mass, b.max_speed, b.max_force, b.radius))
    }

    fn agent_id(&self, bits: u64) -> AgentId {
        self.engine.world().agent_from_bits(bits)
    }

    fn agent_ids(&self, ids: &PyArrayLike1<'_, u64, AllowTypeChange>) -> Vec<AgentId> {
        let w = self.engine.world();
        ids.as_array()
            .iter()
            .map(|&b| w.agent_from_bits(b))
            .collect()
    }
}

/// ORCA's parameters from a dict of the profile format's keys.
fn avoidance_params(d: &Bound<'_, PyDict>) -> PyResult<AvoidanceParams> {
    // The preset first, whatever the dict's order: the other keys replace its values.
    let preset: Option<String> = match d.get_item("preset")? {
        Some(v) => Some(v.extract()?),
        None => None,
    };
    let mut p = match preset.as_deref() {
        None => AvoidanceParams::default(),
        Some("pedestrian") => AvoidanceParams::pedestrian(),
        Some(other) => {
            return Err(bad(format!(
                "no avoidance preset {other:?} (there is \"pedestrian\")"
            )))
        }
    };
    for (k, v) in d.iter() {
        let key: String = k.extract()?;
        match key.as_str() {
            "preset" => {}
            "time_horizon" => p.time_horizon = v.extract()?,
            "obstacle_time_horizon" => p.obstacle_time_horizon = v.extract()?,
            "priority" => p.priority = v.extract()?,
            "layers" => p.layers = v.extract()?,
            "mask" => p.mask = v.extract()?,
            "arrived_within" => p.arrived_within = v.extract()?,
            "side_bias" => p.side_bias = v.extract()?,
            "time_gap" => p.time_gap = v.extract()?,
            "squeeze" => p.squeeze = v.extract()?,
            "near_goal" => p.near_goal = near_goal(&v)?,
            other => return Err(bad(format!("avoidance has no key {other:?}"))),
        }
    }
    p.validate().map_err(bad)?;
    Ok(p)
}

/// `near_goal` of an avoidance dict: `None` or `False` for none, else a dict of its
/// four keys.
fn near_goal(v: &Bound<'_, PyAny>) -> PyResult<Option<NearGoal>> {
    if v.is_none() || v.extract::<bool>().is_ok_and(|b| !b) {
        return Ok(None);
    }
    let d = v.cast::<PyDict>().map_err(|_| {
        bad("near_goal must be a dict of within, time_gap, squeeze, side_bias, or None")
    })?;
    let key = |k: &str| -> PyResult<f32> {
        d.get_item(k)?
            .ok_or_else(|| bad(format!("near_goal needs the key {k:?}")))?
            .extract()
    };
    for k in d.keys() {
        let k: String = k.extract()?;
        if !["within", "time_gap", "squeeze", "side_bias"].contains(&k.as_str()) {
            return Err(bad(format!("near_goal has no key {k:?}")));
        }
    }
    Ok(Some(NearGoal {
        within: key("within")?,
        time_gap: key("time_gap")?,
        squeeze: key("squeeze")?,
        side_bias: key("side_bias")?,
    }))
}

/// Arrival events as arrays: handles, and the states before and after.
type Events<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u8>>,
);

/// The arrival states, by `arrivals()` code.
const ARRIVAL_STATES: [&str; 6] = [
    "no_target",
    "moving",
    "arrived",
    "stuck",
    "unreachable",
    "queued",
];

fn arrival_code(a: Arrival) -> u8 {
    match a {
        Arrival::NoTarget => 0,
        Arrival::Moving => 1,
        Arrival::Arrived => 2,
        Arrival::Stuck => 3,
        Arrival::Unreachable => 4,
        Arrival::Queued => 5,
    }
}

/// A gate as Python gives it: `(name, (ax, ay), (bx, by))`.
type GateArg = (String, (f32, f32), (f32, f32));

/// Largest agent number the quality counter takes: it keeps a record per number up
/// to the largest it has seen.
const MAX_OBSERVED_ID: u64 = 1 << 26;

/// The crowd-quality counter, for throng's worlds and for any other system's
/// positions alike: overlapping and deep pairs, arrival (ever, and at the end),
/// time to goal, path length over the straight line, stuck agents, and the flow
/// through gates. `gates` is a list of `(name, (ax, ay), (bx, by))`.
#[pyclass(name = "QualityCounter", module = "throng")]
struct PyQuality {
    counter: QualityCounter,
}

#[pymethods]
impl PyQuality {
    #[new]
    #[pyo3(signature = (arrival_tolerance = 1.0, stuck_speed_fraction = 0.05, stuck_seconds = 5.0, gates = None, checkpoints = None))]
    fn new(
        arrival_tolerance: f32,
        stuck_speed_fraction: f32,
        stuck_seconds: f32,
        gates: Option<Vec<GateArg>>,
        checkpoints: Option<Vec<f32>>,
    ) -> PyResult<Self> {
        for (name, v) in [
            ("arrival_tolerance", arrival_tolerance),
            ("stuck_speed_fraction", stuck_speed_fraction),
            ("stuck_seconds", stuck_seconds),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad(format!("{name} must be finite and >= 0, got {v}")));
            }
        }
        let gates = gates
            .unwrap_or_default()
            .into_iter()
            .map(|(name, a, b)| Gate {
                name,
                a: Vec2::new(a.0, a.1),
                b: Vec2::new(b.0, b.1),
            })
            .collect();
        let settings = QualitySettings {
            arrival_tolerance,
            stuck_speed_fraction,
            stuck_seconds,
            gates,
            checkpoints: checkpoints.unwrap_or_default(),
        };
        Ok(Self {
            counter: QualityCounter::new(settings),
        })
    }

    /// Sample every agent of `world` (its point target as its goal) at `time`
    /// (default: the world's elapsed seconds).
    #[pyo3(signature = (world, time = None))]
    fn sample_world(&mut self, world: &PyWorld, time: Option<f32>) {
        let w = world.engine.world();
        let t = time.unwrap_or(w.elapsed() as f32);
        self.counter.sample_world(t, w);
    }

    /// Sample `n` agents of any system at `time`: `ids` (stable numbers, dense
    /// from 0), `positions` `(n, 2)`, `radii` and `max_speeds` `(n,)`, and `goals`
    /// `(n, 2)` (a row of NaN: no goal).
    #[pyo3(signature = (time, ids, positions, radii, max_speeds, goals = None))]
    fn sample(
        &mut self,
        time: f32,
        ids: PyArrayLike1<'_, u64, AllowTypeChange>,
        positions: PyArrayLike2<'_, f32, AllowTypeChange>,
        radii: PyArrayLike1<'_, f32, AllowTypeChange>,
        max_speeds: PyArrayLike1<'_, f32, AllowTypeChange>,
        goals: Option<PyArrayLike2<'_, f32, AllowTypeChange>>,
    ) -> PyResult<()> {
        let pos = points(&positions, "positions")?;
        let ids = ids.as_array();
        let (radii, speeds) = (radii.as_array(), max_speeds.as_array());
        let goals = goals.map(|g| points(&g, "goals")).transpose()?;
        let n = pos.len();
        if ids.len() != n
            || radii.len() != n
            || speeds.len() != n
            || goals.as_ref().is_some_and(|g| g.len() != n)
        {
            return Err(bad(
                "ids, positions, radii, max_speeds and goals need one row per agent",
            ));
        }
        if let Some(&big) = ids.iter().find(|&&id| id >= MAX_OBSERVED_ID) {
            return Err(bad(format!(
                "agent numbers must be below {MAX_OBSERVED_ID} (dense from 0), got {big}"
            )));
        }
        if !time.is_finite() {
            return Err(bad(format!("time must be finite, got {time}")));
        }
        let observed = (0..n).map(|i| Observed {
            id: ids[i] as usize,
            pos: pos[i],
            radius: radii[i],
            max_speed: speeds[i],
            goal: goals.as_ref().map(|g| g[i]).filter(|g| !g.is_nan()),
        });
        self.counter.sample(time, observed);
        Ok(())
    }

    /// The figures so far, as a dict (the fields of the engine's `QualitySummary`).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(&self.counter.summary())
            .map_err(|e| bad(format!("cannot encode the summary: {e}")))?;
        py.import("json")?.call_method1("loads", (json,))
    }
}

/// The names of the profiles bundled with throng.
#[pyfunction]
fn bundled_profiles() -> Vec<String> {
    throng::scenario::BUNDLED
        .iter()
        .map(|b| b.name.to_string())
        .collect()
}

#[pymodule]
fn _throng(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyWorld>()?;
    m.add_class::<PyQuality>()?;
    m.add_function(wrap_pyfunction!(bundled_profiles, m)?)?;
    m.add("ThrongError", m.py().get_type::<ThrongError>())?;
    m.add("ARRIVAL_STATES", ARRIVAL_STATES.to_vec())?;
    Ok(())
}
