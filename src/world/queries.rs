//! Gameplay queries on the agents' current positions: who is within a radius of a
//! point, the nearest agent, whom an agent perceives. Served by a k-d tree over the
//! positions, built on the first query after the positions change (a tick, a spawn,
//! a despawn, a moved agent) and reused by every query until the next change.

use std::sync::OnceLock;

use glam::Vec2;

use crate::agents::{AgentId, GroupId};
use crate::error::{finite_vec, non_negative, Result, ThrongError};
use crate::math::segment_distance;
use crate::spatial::{IndexKind, SpatialIndex};

use super::World;

/// The query index of [`World`]'s queries: built when first needed.
#[derive(Default)]
pub(super) struct QueryIndex(OnceLock<SpatialIndex>);

impl QueryIndex {
    /// Forget the index: the positions changed.
    pub(super) fn invalidate(&mut self) {
        self.0.take();
    }
}

impl World {
    /// The query index over the current positions.
    fn query_index(&self) -> &SpatialIndex {
        self.queries.0.get_or_init(|| {
            let mut index = SpatialIndex::new(IndexKind::KdTree);
            index.rebuild(&self.cols.pos, None, 1.0);
            index
        })
    }

    /// Rows within `radius` of `point` (inclusive) by their current positions, of
    /// `group` when given, into `rows` as `(distance², handle, row)`, nearest first
    /// (ties by handle).
    fn rows_within(
        &self,
        point: Vec2,
        radius: f32,
        group: Option<GroupId>,
        rows: &mut Vec<(f32, AgentId, usize)>,
    ) {
        rows.clear();
        let r2 = radius * radius;
        let cols = &self.cols;
        self.query_index().for_each_candidate(point, radius, |row| {
            let row = row as usize;
            let d2 = cols.pos[row].distance_squared(point);
            let in_group = group.is_none_or(|g| usize::from(cols.group[row]) == g.index());
            if d2 <= r2 && in_group {
                rows.push((d2, cols.id[row], row));
            }
        });
        rows.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }

    /// The agents whose current position is within `radius` of `point` (inclusive;
    /// `f32::INFINITY` for any distance, as [`World::nearest_agent`] takes it), of
    /// `group` when given, nearest first (ties by handle), into `out` (cleared
    /// first). Positions are those after the last tick and any change since.
    ///
    /// # Errors
    /// A non-finite `point`, a `radius` that is NaN or negative, an unknown group.
    pub fn agents_within(
        &self,
        point: Vec2,
        radius: f32,
        group: Option<GroupId>,
        out: &mut Vec<AgentId>,
    ) -> Result<()> {
        finite_vec("point", point)?;
        if radius.is_nan() {
            return Err(ThrongError::NonFinite {
                field: "radius",
                value: radius,
            });
        }
        if radius < 0.0 {
            return Err(ThrongError::Negative {
                field: "radius",
                value: radius,
            });
        }
        if let Some(g) = group {
            self.live_group(g)?;
        }
        let mut rows = Vec::new();
        if radius.is_infinite() {
            // Everywhere, as `nearest_agent` takes it: every agent, nearest first.
            let cols = &self.cols;
            rows.extend((0..cols.len()).filter_map(|row| {
                let in_group = group.is_none_or(|g| usize::from(cols.group[row]) == g.index());
                in_group.then(|| (cols.pos[row].distance_squared(point), cols.id[row], row))
            }));
            rows.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        } else {
            self.rows_within(point, radius, group, &mut rows);
        }
        out.clear();
        out.extend(rows.iter().map(|&(_, id, _)| id));
        Ok(())
    }

    /// The agent nearest to `point` by current position, within `max_radius`
    /// (inclusive; `f32::INFINITY` for any distance), other than `except`; ties by
    /// handle. `None` when there is none.
    ///
    /// # Errors
    /// A non-finite `point`; a `max_radius` that is NaN or negative.
    pub fn nearest_agent(
        &self,
        point: Vec2,
        max_radius: f32,
        except: Option<AgentId>,
    ) -> Result<Option<AgentId>> {
        finite_vec("point", point)?;
        if max_radius.is_nan() || max_radius < 0.0 {
            return Err(ThrongError::Negative {
                field: "max_radius",
                value: max_radius,
            });
        }
        // Widen a search circle until it holds an agent: the nearest within it is the
        // nearest of all. Unbounded only while the circle could still miss someone.
        let mut rows = Vec::new();
        let mut r = max_radius.min(1.0);
        loop {
            self.rows_within(point, r, None, &mut rows);
            if let Some(&(_, id, _)) = rows.iter().find(|&&(_, id, _)| Some(id) != except) {
                return Ok(Some(id));
            }
            if r >= max_radius || rows.len() >= self.len() || r > 1e30 {
                return Ok(None);
            }
            r = (r * 4.0).min(max_radius);
        }
    }

    /// The agents `id` would perceive now: within its group's neighbour radius of
    /// its current position, nearest first (ties by handle), at most its group's
    /// `max_neighbours`, itself left out; into `out` (cleared first).
    ///
    /// # Errors
    /// An unknown or despawned handle.
    pub fn neighbours_of(&self, id: AgentId, out: &mut Vec<AgentId>) -> Result<()> {
        let row = self.row(id)?;
        let g = &self.groups[usize::from(self.cols.group[row])];
        let mut rows = Vec::new();
        self.rows_within(self.cols.pos[row], g.neighbour_radius, None, &mut rows);
        out.clear();
        out.extend(
            rows.iter()
                .filter(|&&(_, other, _)| other != id)
                .take(g.max_neighbours)
                .map(|&(_, other, _)| other),
        );
        Ok(())
    }

    /// Whether a body of `radius` can pass straight from `from` to `to` through the
    /// static scene: the segment stays more than `radius` from every wall (and does
    /// not touch one at `radius` 0) and more than `radius` from every obstacle's
    /// disc. Agents are not in the way. (RVO2's `queryVisibility`.)
    ///
    /// # Errors
    /// A non-finite point, or a radius that is negative or not finite.
    pub fn clear_line(&self, from: Vec2, to: Vec2, radius: f32) -> Result<bool> {
        finite_vec("from", from)?;
        finite_vec("to", to)?;
        non_negative("radius", radius)?;
        let blocked_by_wall = |a: Vec2, b: Vec2| {
            let d = segment_distance(from, to, a, b);
            d < radius || d == 0.0
        };
        let blocked_by_disc = |c: Vec2, r: f32| segment_distance(from, to, c, c) < r + radius;
        // Every point of the segment is within half its length of its middle.
        let (mid, reach) = ((from + to) * 0.5, from.distance(to) * 0.5 + radius);
        let mut blocked = false;
        if reach.is_finite() && mid.is_finite() {
            self.walls.for_each_near(mid, reach, |_, w| {
                blocked = blocked || blocked_by_wall(w.a(), w.b());
            });
        } else {
            let walls = self.walls.walls();
            blocked = walls.iter().any(|w| blocked_by_wall(w.a(), w.b()));
        }
        let obstacles = self.obstacles.obstacles();
        Ok(!blocked
            && !obstacles
                .iter()
                .any(|o| blocked_by_disc(o.centre(), o.radius())))
    }
}
