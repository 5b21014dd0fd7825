//! Validation: a parsed profile document checked value by value and its names
//! resolved, into a [`Profile`]. Every problem is named by its key path.

use glam::Vec2;

use super::error::Problem;
use super::layout::{Circle, Layout, LayoutField, LayoutPath, Rect, WallSegment};
use super::profile::{
    BodySpec, GroupSpec, InitialDirection, Profile, SquadSpec, TargetSpec, WorldSpec,
    MAX_COORDINATE, MAX_GROUP_COUNT, MIN_SEGMENT_LENGTH,
};
use super::schema::{
    ArrangementDoc, BodyPreset, DirectionDoc, DiscArrangementDoc, GroupDoc, MovementDoc,
    ProfileDoc, SpawnDoc, TargetDoc,
};
use super::spawn::{Arrangement, Region, Shape};
use crate::agents::{DEFAULT_LIMITS, DEFAULT_RADIUS, PEDESTRIAN_LIMITS, PEDESTRIAN_RADIUS};
use crate::group::{GroupConfig, Movement};
use crate::quality::Gate;

fn finite2(key: &str, v: [f32; 2]) -> Result<Vec2, Problem> {
    let p = Vec2::from(v);
    if p.is_finite() && p.abs().max_element() <= MAX_COORDINATE {
        Ok(p)
    } else {
        Err(Problem::new(
            key,
            format!(
                "coordinates must be finite numbers within ±{MAX_COORDINATE:e}, got [{}, {}]",
                v[0], v[1]
            ),
        ))
    }
}

fn check(key: &str, value: f32, ok: bool, what: &str) -> Result<f32, Problem> {
    if ok && !value.is_nan() {
        Ok(value)
    } else {
        Err(Problem::new(key, format!("must be {what}, got {value}")))
    }
}

fn non_negative(key: &str, v: f32) -> Result<f32, Problem> {
    check(key, v, v.is_finite() && v >= 0.0, "a finite number >= 0")
}

/// A length in the scene: >= 0 and no longer than the coordinate range.
fn length(key: &str, v: f32) -> Result<f32, Problem> {
    let max = 2.0 * MAX_COORDINATE;
    check(
        key,
        v,
        v.is_finite() && (0.0..=max).contains(&v),
        "a length from 0 to 2e6",
    )
}

fn positive(key: &str, v: f32) -> Result<f32, Problem> {
    check(key, v, v.is_finite() && v > 0.0, "a finite number > 0")
}

fn whole(key: &str, v: i64, min: i64, max: i64, what: &str) -> Result<u64, Problem> {
    if (min..=max).contains(&v) {
        Ok(v as u64)
    } else {
        Err(Problem::new(
            key,
            format!("{what} must be a whole number from {min} to {max}, got {v}"),
        ))
    }
}

fn name_ok(key: &str, name: &str, what: &str) -> Result<(), Problem> {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        Ok(())
    } else {
        Err(Problem::new(
            key,
            format!(
                "{what} name `{name}` must be non-empty and use only letters, digits, `_` and `-`"
            ),
        ))
    }
}

/// Entry `i` of the array of tables `table` (`paths`, `fields`, `groups`), named
/// `name` among the entries' `names`: not named before it.
fn not_named_before<'a>(
    table: &str,
    what: &str,
    i: usize,
    mut names: impl Iterator<Item = &'a str>,
    name: &str,
) -> Result<(), Problem> {
    match names.by_ref().take(i).position(|n| n == name) {
        Some(j) => Err(Problem::new(
            format!("{table}[{i}].name"),
            format!("{what} `{name}` is already defined by {table}[{j}]"),
        )),
        None => Ok(()),
    }
}

/// Check a parsed document and resolve its names. `default_name` names a
/// profile that gives none.
pub(crate) fn validate(doc: ProfileDoc, default_name: &str) -> Result<Profile, Problem> {
    let name = doc.name.clone().unwrap_or_else(|| default_name.to_string());
    name_ok("name", &name, "the profile")?;
    let w = &doc.world;
    let world = WorldSpec {
        seed: w.seed,
        dt: positive("world.dt", w.dt)?,
        ticks: whole("world.ticks", w.ticks, 1, i64::from(u32::MAX), "ticks")?,
        warmup: whole("world.warmup", w.warmup, 0, i64::from(u32::MAX), "warmup")?,
        integrator: w.integrator,
        index: w.index,
        reorder_interval: w.reorder_interval,
        level_of_detail: match &w.level_of_detail {
            None => None,
            Some(l) => Some(crate::world::LevelOfDetail::new(
                finite2("world.level_of_detail.centre", l.centre)?,
                non_negative("world.level_of_detail.near", l.near)?,
                whole(
                    "world.level_of_detail.think_every",
                    l.think_every,
                    1,
                    i64::from(crate::group::MAX_THINK_EVERY),
                    "think_every",
                )? as u32,
            )),
        },
    };
    let scene = validate_scene(&doc)?;
    let mut groups = Vec::with_capacity(doc.groups.len());
    for (i, g) in doc.groups.iter().enumerate() {
        let key = format!("groups[{i}]");
        let names = doc.groups.iter().map(|g| g.name.as_str());
        not_named_before("groups", "group", i, names, &g.name)?;
        groups.push(validate_group(&key, g, &doc, &scene)?);
    }
    let squads = validate_squads(&doc, &groups)?;
    let mut scene = scene;
    settle_clearances(&doc, &groups, &mut scene)?;
    // A follower needs a leader: a squad, or an agent target.
    for (i, g) in groups.iter().enumerate() {
        let follows = g
            .config
            .behaviours
            .iter()
            .position(|b| matches!(b.behaviour, crate::Behaviour::LeaderFollow { .. }));
        let led = squads.iter().any(|q| q.follower_group == i)
            || matches!(g.target, TargetSpec::AgentOfGroup(_));
        if let (Some(b), false) = (follows, led) {
            return Err(Problem::new(
                format!("groups[{i}].behaviours[{b}].kind"),
                format!(
                    "group `{}` follows a leader (leader_follow) but has none: add a \
                     [[squads]] table with follower_group = \"{}\" (and the leaders' \
                     leader_group), or a target = {{ agent_of_group = \"...\" }}",
                    g.name, g.name
                ),
            ));
        }
    }
    let profile = Profile {
        name,
        description: doc.description.trim().to_string(),
        world,
        layout: scene,
        groups,
        squads,
    };
    // A profile of groups with no agents is a host's: it spawns them itself (from
    // Python, C or Bevy); `throng run` refuses it.
    Ok(profile)
}

fn validate_scene(doc: &ProfileDoc) -> Result<Layout, Problem> {
    let mut scene = Layout::default();
    if let Some(b) = doc.world.bounds {
        let key = "world.bounds";
        let (a, c) = (finite2(key, [b[0], b[1]])?, finite2(key, [b[2], b[3]])?);
        if !(c.x > a.x && c.y > a.y) {
            return Err(Problem::new(
                key,
                "bounds are [x0, y0, x1, y1] with x1 > x0 and y1 > y0",
            ));
        }
        scene.bounds = Some(Rect { min: a, max: c });
    }
    for (i, w) in doc.walls.iter().enumerate() {
        let key = format!("walls[{i}]");
        let (a, b) = (finite2(&key, [w[0], w[1]])?, finite2(&key, [w[2], w[3]])?);
        if a.distance(b) < MIN_SEGMENT_LENGTH {
            return Err(Problem::new(
                key,
                format!("a wall needs two distinct end points, got a zero-length wall at {a}"),
            ));
        }
        scene.walls.push(WallSegment { a, b });
    }
    for (i, r) in doc.rects.iter().enumerate() {
        let key = format!("rects[{i}]");
        let (a, b) = (finite2(&key, [r[0], r[1]])?, finite2(&key, [r[2], r[3]])?);
        let rect = Rect::from_corners(a, b);
        let size = rect.size();
        if size.x < MIN_SEGMENT_LENGTH || size.y < MIN_SEGMENT_LENGTH {
            return Err(Problem::new(
                key,
                "a rect is [x0, y0, x1, y1] with opposite corners apart in both x and y",
            ));
        }
        let (lo, hi) = (rect.min, rect.max);
        let corners = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
        for k in 0..4 {
            scene.walls.push(WallSegment {
                a: corners[k],
                b: corners[(k + 1) % 4],
            });
        }
    }
    for (i, o) in doc.obstacles.iter().enumerate() {
        let key = format!("obstacles[{i}]");
        let centre = finite2(&key, [o.x, o.y])?;
        let radius = positive(&format!("{key}.radius"), o.radius)?;
        length(&format!("{key}.radius"), radius)?;
        scene.obstacles.push(Circle { centre, radius });
    }
    for (i, p) in doc.paths.iter().enumerate() {
        let key = format!("paths[{i}]");
        name_ok(&format!("{key}.name"), &p.name, "the path")?;
        let names = doc.paths.iter().map(|p| p.name.as_str());
        not_named_before("paths", "path", i, names, &p.name)?;
        let mut points: Vec<Vec2> = Vec::with_capacity(p.points.len());
        for (k, &q) in p.points.iter().enumerate() {
            let q = finite2(&format!("{key}.points[{k}]"), q)?;
            if points
                .last()
                .is_none_or(|l| l.distance(q) >= MIN_SEGMENT_LENGTH)
            {
                points.push(q);
            }
        }
        if p.looped
            && points.len() > 2
            && points[0].distance(points[points.len() - 1]) < MIN_SEGMENT_LENGTH
        {
            points.pop();
        }
        if points.len() < 2 {
            return Err(Problem::new(
                format!("{key}.points"),
                format!(
                    "a path needs at least two distinct points (it has zero length), got {}",
                    points.len()
                ),
            ));
        }
        scene.paths.push(LayoutPath {
            name: p.name.clone(),
            points,
            looped: p.looped,
        });
    }
    for (i, f) in doc.fields.iter().enumerate() {
        let key = format!("fields[{i}]");
        name_ok(&format!("{key}.name"), &f.name, "the field")?;
        let names = doc.fields.iter().map(|f| f.name.as_str());
        not_named_before("fields", "field", i, names, &f.name)?;
        if f.goals.is_empty() {
            return Err(Problem::new(
                format!("{key}.goals"),
                "a field needs at least one goal: goals = [[x0, y0, x1, y1]] (a point is a box of size zero)",
            ));
        }
        let mut goals = Vec::with_capacity(f.goals.len());
        for (k, g) in f.goals.iter().enumerate() {
            let gk = format!("{key}.goals[{k}]");
            goals.push((finite2(&gk, [g[0], g[1]])?, finite2(&gk, [g[2], g[3]])?));
        }
        let clearance = match f.clearance {
            Some(c) => Some(positive(&format!("{key}.clearance"), c)?),
            None => None,
        };
        let cell = match f.cell {
            Some(c) => Some(positive(&format!("{key}.cell"), c)?),
            None => None,
        };
        if let Some(c) = f.congestion {
            if !(c.weight.is_finite() && c.weight > 0.0 && c.every >= 1) {
                return Err(Problem::new(
                    format!("{key}.congestion"),
                    format!(
                        "weight must be finite and > 0 and every at least 1 (ticks), got weight {} every {}",
                        c.weight, c.every
                    ),
                ));
            }
        }
        scene.fields.push(LayoutField {
            name: f.name.clone(),
            congestion: f.congestion,
            goals,
            // Settled once the groups are known (the largest radius that follows it).
            clearance: clearance.unwrap_or(0.0),
            cell,
        });
    }
    for (i, g) in doc.gates.iter().enumerate() {
        let key = format!("gates[{i}]");
        name_ok(&format!("{key}.name"), &g.name, "the gate")?;
        let [x0, y0, x1, y1] = g.line;
        let a = finite2(&format!("{key}.line"), [x0, y0])?;
        let b = finite2(&format!("{key}.line"), [x1, y1])?;
        if a.distance(b) < MIN_SEGMENT_LENGTH {
            return Err(Problem::new(
                format!("{key}.line"),
                "a gate needs two distinct ends",
            ));
        }
        scene.gates.push(Gate {
            name: g.name.clone(),
            a,
            b,
        });
    }
    Ok(scene)
}

/// Each field without a clearance gets the largest body radius of the groups that
/// follow it (0.5, the default body's, when none does); then no goal of a field may
/// lie inside a wall or obstacle grown by its clearance.
fn settle_clearances(
    doc: &ProfileDoc,
    groups: &[GroupSpec],
    scene: &mut Layout,
) -> Result<(), Problem> {
    let Layout {
        fields,
        walls,
        obstacles,
        ..
    } = scene;
    for (i, f) in fields.iter_mut().enumerate() {
        let key = format!("fields[{i}]");
        if doc.fields[i].clearance.is_none() {
            let follows = |g: &&GroupSpec| {
                g.config.behaviours.iter().any(|b| {
                    matches!(b.behaviour, crate::Behaviour::FollowField { field, .. } if field.index() == i)
                })
            };
            f.clearance = groups
                .iter()
                .filter(follows)
                .map(|g| g.body.radius)
                .fold(None, |m: Option<f32>, r| Some(m.map_or(r, |m| m.max(r))))
                .filter(|&r| r > 0.0)
                .unwrap_or(0.5);
        }
        if let Some(k) = f
            .goals
            .iter()
            .position(|&g| !goal_clear(g, f.clearance, walls, obstacles))
        {
            return Err(Problem::new(
                format!("{key}.goals[{k}]"),
                format!(
                    "the goal lies inside a wall or an obstacle grown by the field's clearance {}: no body of that radius can stand in it",
                    f.clearance
                ),
            ));
        }
    }
    Ok(())
}

/// Whether some point of the goal box `lo..hi` (sampled at a spacing of half the
/// clearance, at most 64 × 64 points) is at least `clearance` from every wall and
/// obstacle: where a body of that radius can stand. A goal field whose goals are all
/// covered cannot be built; this names the goal at its line.
fn goal_clear(
    (lo, hi): (Vec2, Vec2),
    clearance: f32,
    walls: &[WallSegment],
    obstacles: &[Circle],
) -> bool {
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    let steps = ((hi - lo) / (clearance * 0.5))
        .ceil()
        .min(Vec2::splat(63.0));
    let (nx, ny) = (steps.x as usize, steps.y as usize);
    let clear = |p: Vec2| {
        walls.iter().all(|w| {
            crate::math::closest_point_on_segment(p, w.a, w.b)
                .0
                .distance(p)
                >= clearance
        }) && obstacles
            .iter()
            .all(|o| o.centre.distance(p) >= o.radius + clearance)
    };
    (0..=ny).any(|y| {
        (0..=nx).any(|x| {
            let t = Vec2::new(
                if nx == 0 { 0.0 } else { x as f32 / nx as f32 },
                if ny == 0 { 0.0 } else { y as f32 / ny as f32 },
            );
            clear(lo + (hi - lo) * t)
        })
    })
}

fn validate_spawn(key: &str, s: &SpawnDoc) -> Result<Shape, Problem> {
    let k = |f: &str| format!("{key}.{f}");
    Ok(match s {
        SpawnDoc::Box {
            centre,
            size,
            arrangement,
        } => {
            let size = finite2(&k("size"), *size)?;
            length(&k("size"), size.x)?;
            length(&k("size"), size.y)?;
            Shape::Box {
                centre: finite2(&k("centre"), *centre)?,
                size,
                arrangement: match arrangement {
                    ArrangementDoc::Random => Arrangement::Random,
                    ArrangementDoc::Grid => Arrangement::Grid,
                    ArrangementDoc::Apart => Arrangement::Apart,
                },
            }
        }
        SpawnDoc::Disc {
            centre,
            radius,
            arrangement,
        } => Shape::Disc {
            centre: finite2(&k("centre"), *centre)?,
            radius: length(&k("radius"), *radius)?,
            apart: *arrangement == DiscArrangementDoc::Apart,
        },
        SpawnDoc::Ring {
            centre,
            radius,
            width,
            start_angle,
        } => Shape::Ring {
            centre: finite2(&k("centre"), *centre)?,
            radius: length(&k("radius"), *radius)?,
            width: length(&k("width"), *width)?,
            start_angle: check(
                &k("start_angle"),
                *start_angle,
                start_angle.is_finite(),
                "finite",
            )?
            .to_radians(),
        },
        SpawnDoc::Line { from, to, width } => Shape::Line {
            from: finite2(&k("from"), *from)?,
            to: finite2(&k("to"), *to)?,
            width: length(&k("width"), *width)?,
        },
        SpawnDoc::Sunflower {
            centre,
            area_per_agent,
        } => Shape::Sunflower {
            centre: finite2(&k("centre"), *centre)?,
            area_per_agent: check(
                &k("area_per_agent"),
                *area_per_agent,
                *area_per_agent > 0.0 && *area_per_agent <= 1e6,
                "a number > 0 and <= 1e6",
            )?,
        },
    })
}

fn parse_colour(key: &str, c: &str) -> Result<[u8; 3], Problem> {
    let hex = c.strip_prefix('#').unwrap_or("");
    let bad = || Problem::new(key, format!("a colour is written \"#rrggbb\", got \"{c}\""));
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    Ok([byte(0)?, byte(2)?, byte(4)?])
}

fn validate_target(
    key: &str,
    t: &TargetDoc,
    me: &str,
    doc: &ProfileDoc,
    scene: &Layout,
    spawn: &Shape,
) -> Result<TargetSpec, Problem> {
    let given = [
        t.point.is_some(),
        t.antipode.is_some(),
        t.shift.is_some(),
        t.agent_of_group.is_some(),
        t.moving_point.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(Problem::new(
            key,
            "a target has exactly one of `point`, `antipode`, `shift`, `agent_of_group` or \
             `moving_point`",
        ));
    }
    if t.centre.is_some() && t.antipode.is_none() {
        return Err(Problem::new(
            format!("{key}.centre"),
            "`centre` goes with `antipode` only",
        ));
    }
    if let Some(p) = t.point {
        return Ok(TargetSpec::Point(finite2(&format!("{key}.point"), p)?));
    }
    if let Some(d) = t.shift {
        return Ok(TargetSpec::Shift(finite2(&format!("{key}.shift"), d)?));
    }
    if let Some(a) = t.antipode {
        if !a {
            return Err(Problem::new(
                format!("{key}.antipode"),
                "write `antipode = true`, or leave the target out",
            ));
        }
        let centre = match t.centre {
            Some(c) => finite2(&format!("{key}.centre"), c)?,
            None => spawn.centre(),
        };
        return Ok(TargetSpec::Antipode { centre });
    }
    if let Some(name) = &t.agent_of_group {
        let k = format!("{key}.agent_of_group");
        if name == me {
            return Err(Problem::new(k, "a group cannot target its own agents"));
        }
        let g = doc
            .groups
            .iter()
            .position(|g| &g.name == name)
            .ok_or_else(|| {
                Problem::new(
                    &k,
                    unknown("group", name, doc.groups.iter().map(|g| &g.name)),
                )
            })?;
        return Ok(TargetSpec::AgentOfGroup(g));
    }
    if let Some(m) = &t.moving_point {
        let k = format!("{key}.moving_point");
        let path = scene.path_index(&m.path).ok_or_else(|| {
            Problem::new(
                format!("{k}.path"),
                unknown("path", &m.path, scene.paths.iter().map(|p| &p.name)),
            )
        })?;
        let start = match m.start {
            Some(s) => Some(check(&format!("{k}.start"), s, s.is_finite(), "finite")?),
            None => None,
        };
        return Ok(TargetSpec::MovingPoint {
            path,
            speed: non_negative(&format!("{k}.speed"), m.speed)?,
            start,
            lead: check(&format!("{k}.lead"), m.lead, m.lead.is_finite(), "finite")?,
        });
    }
    Ok(TargetSpec::None)
}

fn unknown<'a>(what: &str, name: &str, known: impl Iterator<Item = &'a String>) -> String {
    let known: Vec<&str> = known.map(String::as_str).collect();
    if known.is_empty() {
        format!("unknown {what} `{name}`: the profile defines no {what}s")
    } else {
        format!(
            "unknown {what} `{name}`; the {what}s are: {}",
            known.join(", ")
        )
    }
}

fn validate_group(
    key: &str,
    g: &GroupDoc,
    doc: &ProfileDoc,
    scene: &Layout,
) -> Result<GroupSpec, Problem> {
    let k = |f: &str| format!("{key}.{f}");
    name_ok(&k("name"), &g.name, "the group")?;
    let count = whole(&k("count"), g.count, 0, MAX_GROUP_COUNT, "the agent count")? as usize;
    let spawn = validate_spawn(&k("spawn"), &g.spawn)?;
    let movement = match g.movement {
        MovementDoc::Steering => Movement::Steering,
        MovementDoc::Kinematic => Movement::Kinematic,
    };
    let mut behaviours = Vec::with_capacity(g.behaviours.len());
    for (i, b) in g.behaviours.iter().enumerate() {
        behaviours.push(super::behaviour::convert(
            &k(&format!("behaviours[{i}]")),
            &b.kind,
            b.weight,
            b.probability,
            &b.params,
            &super::behaviour::Context {
                movement,
                paths: &scene.paths,
                fields: &scene.fields,
            },
        )?);
    }
    let max_neighbours = whole(
        &k("max_neighbours"),
        g.max_neighbours,
        0,
        i64::from(u16::MAX),
        "max_neighbours",
    )? as usize;
    let config = GroupConfig {
        name: g.name.clone(),
        behaviours,
        movement,
        combination: g.combination,
        neighbour_radius: non_negative(&k("neighbour_radius"), g.neighbour_radius)?,
        max_neighbours,
        facing: g.facing,
        avoidance: g.avoidance.map(|a| a.params()),
        host_moves: false,
        think_every: whole(
            &k("think_every"),
            g.think_every,
            1,
            i64::from(crate::group::MAX_THINK_EVERY),
            "think_every",
        )? as u32,
    };
    if let Some(a) = &config.avoidance {
        if let Err(msg) = a.validate() {
            let name = msg.split_whitespace().next().unwrap_or("");
            return Err(Problem::new(k(&format!("avoidance.{name}")), msg));
        }
    }
    non_negative(&k("facing.turn_rate"), g.facing.turn_rate)?;
    non_negative(&k("facing.min_speed"), g.facing.min_speed)?;
    if let Err(e) = config.validate() {
        return Err(Problem::new(key, e.to_string()));
    }
    // The body preset's values (else the engine's defaults) where a key is not given.
    let (limits, radius) = match g.body {
        Some(BodyPreset::Pedestrian) => (PEDESTRIAN_LIMITS, PEDESTRIAN_RADIUS),
        None => (DEFAULT_LIMITS, DEFAULT_RADIUS),
    };
    let body = BodySpec {
        mass: positive(&k("mass"), g.mass.unwrap_or(limits.mass))?,
        max_speed: non_negative(&k("max_speed"), g.max_speed.unwrap_or(limits.max_speed))?,
        max_force: non_negative(&k("max_force"), g.max_force.unwrap_or(limits.max_force))?,
        max_speed_spread: non_negative(&k("max_speed_spread"), g.max_speed_spread.unwrap_or(0.0))?,
        radius: non_negative(&k("radius"), g.radius.unwrap_or(radius))?,
        initial_speed: non_negative(&k("initial_speed"), g.initial_speed)?,
        initial_direction: match g.initial_direction {
            DirectionDoc::Random => InitialDirection::Random,
            DirectionDoc::ToTarget => InitialDirection::ToTarget,
        },
    };
    if let Some(region) = spawn.apart() {
        let fits = region.capacity(2.0 * body.radius);
        if count > fits {
            let (area, larger) = match region {
                Region::Box(r) => {
                    let size = r.max - r.min;
                    (format!("a {} x {} box", size.x, size.y), "box")
                }
                Region::Disc { radius, .. } => (format!("a disc of radius {radius}"), "disc"),
            };
            return Err(Problem::new(
                k("spawn.arrangement"),
                format!(
                    "{count} bodies of radius {} cannot all stand apart in {area} (a square \
                     lattice holds {fits}): a larger {larger}, fewer agents, or \
                     arrangement = \"random\"",
                    body.radius
                ),
            ));
        }
    }
    let target = match &g.target {
        Some(t) => validate_target(&k("target"), t, &g.name, doc, scene, &spawn)?,
        None => TargetSpec::None,
    };
    let target2 = match &g.target2 {
        Some(t) => {
            let key = k("target2");
            let t2 = validate_target(&key, t, &g.name, doc, scene, &spawn)?;
            if matches!(t2, TargetSpec::MovingPoint { .. }) {
                return Err(Problem::new(
                    format!("{key}.moving_point"),
                    "a moving point can only be the first target",
                ));
            }
            t2
        }
        None => TargetSpec::None,
    };
    let colour = match &g.colour {
        Some(c) => Some(parse_colour(&k("colour"), c)?),
        None => None,
    };
    Ok(GroupSpec {
        name: g.name.clone(),
        count,
        spawn,
        movement,
        config,
        body,
        target,
        target2,
        colour,
        leave_on_arrival: g.leave_on_arrival,
    })
}

fn validate_squads(doc: &ProfileDoc, groups: &[GroupSpec]) -> Result<Vec<SquadSpec>, Problem> {
    let mut squads: Vec<SquadSpec> = Vec::with_capacity(doc.squads.len());
    let find = |key: String, name: &str| {
        groups.iter().position(|g| g.name == name).ok_or_else(|| {
            Problem::new(key, unknown("group", name, groups.iter().map(|g| &g.name)))
        })
    };
    for (i, q) in doc.squads.iter().enumerate() {
        let key = format!("squads[{i}]");
        let leader_group = find(format!("{key}.leader_group"), &q.leader_group)?;
        let follower_group = find(format!("{key}.follower_group"), &q.follower_group)?;
        if leader_group == follower_group {
            return Err(Problem::new(
                format!("{key}.follower_group"),
                "leaders and followers must be different groups",
            ));
        }
        if squads.iter().any(|s| s.follower_group == follower_group) {
            return Err(Problem::new(
                format!("{key}.follower_group"),
                format!("group `{}` already follows another squad", q.follower_group),
            ));
        }
        if groups[follower_group].target != TargetSpec::None {
            return Err(Problem::new(
                format!("{key}.follower_group"),
                format!(
                    "group `{}` has a target of its own; a squad sets its followers' target to their leader",
                    q.follower_group
                ),
            ));
        }
        let leaders = groups[leader_group].count;
        let count = match q.count {
            Some(c) => whole(
                &format!("{key}.count"),
                c,
                1,
                leaders.max(1) as i64,
                "the squad count",
            )? as usize,
            None => leaders,
        };
        if leaders == 0 {
            return Err(Problem::new(
                format!("{key}.leader_group"),
                format!("group `{}` has no agents to lead", q.leader_group),
            ));
        }
        squads.push(SquadSpec {
            leader_group,
            follower_group,
            count,
        });
    }
    Ok(squads)
}
