//! From a `[[groups.behaviours]]` table to an engine [`Behaviour`].
//!
//! The table's `kind` picks the behaviour; every key other than `kind`,
//! `weight` and `probability` is a parameter, checked against the behaviour's
//! own parameter struct (which rejects unknown keys). The table of kinds below
//! is the only place that knows the behaviours: adding one is one line.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::error::Problem;
use super::layout::{LayoutField, LayoutPath};
use crate::behaviours::flocking::SeparationParams;
use crate::behaviours::leader::LeaderParams;
use crate::group::{Behaviour, FieldId, GroupConfig, Movement, PathId, WeightedBehaviour};

/// The parameters of one behaviour entry, with the entry's key path for errors.
pub(crate) struct Params<'a> {
    table: &'a toml::Table,
    key: &'a str,
    ctx: &'a Context<'a>,
}

/// What a behaviour entry may refer to outside itself.
pub(crate) struct Context<'a> {
    /// The group's movement (kinematic groups take kinematic behaviours).
    pub movement: Movement,
    /// The scene's paths, by index (= the world's `PathId`).
    pub paths: &'a [LayoutPath],
    /// The scene's goal fields, by index (= the world's `FieldId`).
    pub fields: &'a [LayoutField],
}

impl Default for Context<'static> {
    fn default() -> Self {
        Self {
            movement: Movement::Steering,
            paths: &[],
            fields: &[],
        }
    }
}

/// A behaviour that takes no parameters.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

impl Params<'_> {
    /// Parameters for `T`: unknown keys and wrong types are errors naming the key.
    fn parse<T: DeserializeOwned>(&self) -> Result<T, Problem> {
        self.parse_renamed(&[])
    }

    /// Like [`Params::parse`], with some keys spelled differently in profiles
    /// than in `T`: `(profile_key, field)` pairs.
    fn parse_renamed<T: DeserializeOwned>(&self, renames: &[(&str, &str)]) -> Result<T, Problem> {
        let field_of = |k: &str| {
            renames
                .iter()
                .find(|(p, _)| *p == k)
                .map_or(k, |(_, f)| *f)
                .to_string()
        };
        let explain = |m: &str| {
            let mut m = explain(m);
            for (p, f) in renames {
                m = m.replace(&format!("`{f}`"), &format!("`{p}`"));
            }
            m
        };
        let mut all = toml::Table::new();
        for (k, v) in self.table {
            if renames.iter().any(|(_, f)| f == k) {
                return Err(Problem::new(
                    format!("{}.{k}", self.key),
                    explain(&format!("unknown field `{k}`")),
                ));
            }
            all.insert(field_of(k), v.clone());
        }
        match T::deserialize(toml::Value::Table(all)) {
            Ok(v) => Ok(v),
            Err(whole) => {
                // Find the key at fault by trying each alone (parameter structs
                // default every field, so a single valid key always parses).
                for (k, v) in self.table {
                    let mut one = toml::Table::new();
                    one.insert(field_of(k), v.clone());
                    if let Err(e) = T::deserialize(toml::Value::Table(one)) {
                        return Err(Problem::new(
                            format!("{}.{k}", self.key),
                            explain(e.message()),
                        ));
                    }
                }
                Err(Problem::new(self.key, explain(whole.message())))
            }
        }
    }

    /// No parameters allowed; return `b`.
    fn unit(&self, b: Behaviour) -> Result<Behaviour, Problem> {
        self.parse::<NoParams>().map(|_| b)
    }

    /// These parameters without `keys` (taken out to be read separately).
    fn without(&self, keys: &[&str]) -> toml::Table {
        let mut t = self.table.clone();
        for k in keys {
            t.remove(*k);
        }
        t
    }

    /// A behaviour that names a scene item (`path = "name"`, `field = "name"`) among
    /// `names` (the scene's, in order), plus its own parameters: the item's index and
    /// the parameters.
    fn named<'n, T: DeserializeOwned>(
        &self,
        key: &str,
        names: impl Iterator<Item = &'n str> + Clone,
    ) -> Result<(usize, T), Problem> {
        let list = || names.clone().collect::<Vec<_>>().join(", ");
        let at = format!("{}.{key}", self.key);
        let Some(name) = self.table.get(key) else {
            return Err(Problem::new(
                at,
                format!(
                    "this behaviour needs `{key} = \"name\"`; the {key}s are: {}",
                    list()
                ),
            ));
        };
        let Some(index) = name
            .as_str()
            .and_then(|n| names.clone().position(|m| m == n))
        else {
            return Err(Problem::new(
                at,
                format!("unknown {key} {name}; the {key}s are: {}", list()),
            ));
        };
        let rest = self.without(&[key]);
        let params = Params {
            table: &rest,
            key: self.key,
            ctx: self.ctx,
        }
        .parse()?;
        Ok((index, params))
    }

    /// `follow_path`: `path = "name"` plus the path-following parameters.
    fn follow_path(&self) -> Result<Behaviour, Problem> {
        let (index, params) = self.named("path", self.ctx.paths.iter().map(|p| p.name.as_str()))?;
        Ok(Behaviour::FollowPath {
            path: Some(PathId::from_index(index)),
            params,
        })
    }

    /// `follow_field`: `field = "name"` (a `[[fields]]` table) plus the
    /// field-following parameters.
    fn follow_field(&self) -> Result<Behaviour, Problem> {
        let (index, params) =
            self.named("field", self.ctx.fields.iter().map(|f| f.name.as_str()))?;
        Ok(Behaviour::FollowField {
            field: FieldId::from_index(index),
            params,
        })
    }

    /// `leader_follow`: the leader parameters, with `separation = { ... }` for
    /// the separation among followers.
    fn leader_follow(&self) -> Result<Behaviour, Problem> {
        let separation = match self.table.get("separation") {
            None => SeparationParams::default(),
            Some(toml::Value::Table(t)) => {
                let key = format!("{}.separation", self.key);
                Params {
                    table: t,
                    key: &key,
                    ctx: self.ctx,
                }
                .parse_renamed(&[("formula", "kind")])?
            }
            Some(other) => {
                return Err(Problem::new(
                    format!("{}.separation", self.key),
                    format!("expected a table such as {{ strength = 2 }}, got {other}"),
                ))
            }
        };
        let rest = self.without(&["separation"]);
        let leader: LeaderParams = Params {
            table: &rest,
            key: self.key,
            ctx: self.ctx,
        }
        .parse()?;
        Ok(Behaviour::LeaderFollow { leader, separation })
    }
}

/// serde's messages, phrased for someone writing a profile.
fn explain(message: &str) -> String {
    let m = message.trim();
    if m.starts_with("unknown field") {
        if m.contains("there are no fields") {
            return "this behaviour takes no parameters".to_string();
        }
        return m.replacen("unknown field", "unknown parameter", 1);
    }
    m.to_string()
}

/// Declares the behaviour kinds: the list of names and the converter.
macro_rules! behaviour_kinds {
    ($($name:literal => $build:expr,)*) => {
        /// Every behaviour kind a profile may name, in the order listed in the
        /// profile documentation.
        pub const BEHAVIOUR_KINDS: &[&str] = &[$($name),*];

        fn build(kind: &str, p: &Params<'_>) -> Option<Result<Behaviour, Problem>> {
            let build: fn(&Params<'_>) -> Result<Behaviour, Problem> = match kind {
                $($name => $build,)*
                _ => return None,
            };
            Some(build(p))
        }
    };
}

// One line per behaviour: its profile name and how to build it from its
// parameters.
behaviour_kinds! {
    "seek" => |p| p.unit(Behaviour::Seek),
    "flee" => |p| p.parse().map(Behaviour::Flee),
    "arrive" => |p| p.parse().map(Behaviour::Arrive),
    "pursuit" => |p| p.unit(Behaviour::Pursuit),
    "evade" => |p| p.parse().map(Behaviour::Evade),
    "wander" => |p| p.parse().map(Behaviour::Wander),
    // `kind` names the behaviour, so separation's formula is `formula`.
    "separation" => |p| p.parse_renamed(&[("formula", "kind")]).map(Behaviour::Separation),
    "cohesion" => |p| p.unit(Behaviour::Cohesion),
    "alignment" => |p| p.unit(Behaviour::Alignment),
    "wall_avoidance" => |p| p.parse().map(Behaviour::WallAvoidance),
    "obstacle_avoidance" => |p| p.parse().map(Behaviour::ObstacleAvoidance),
    "follow_path" => |p| p.follow_path(),
    "follow_field" => |p| p.follow_field(),
    "containment" => |p| p.parse().map(Behaviour::Containment),
    "queue" => |p| p.parse().map(Behaviour::Queue),
    "interpose" => |p| p.parse().map(Behaviour::Interpose),
    "hide" => |p| p.parse().map(Behaviour::Hide),
    "offset_pursuit" => |p| p.parse().map(Behaviour::OffsetPursuit),
    "leader_follow" => |p| p.leader_follow(),
    "give_way" => |p| p.parse().map(Behaviour::GiveWay),
    "approach" => |p| p.parse().map(Behaviour::Approach),
    "align" => |p| p.parse().map(Behaviour::Align),
    "face" => |p| p.parse().map(Behaviour::Face),
    "look_where_you_are_going" => |p| p.parse().map(Behaviour::LookWhereYouAreGoing),
    "velocity_match" => |p| p.parse().map(Behaviour::VelocityMatch),
    "kinematic_seek" => |p| p.unit(Behaviour::KinematicSeek),
    "kinematic_flee" => |p| p.unit(Behaviour::KinematicFlee),
    "kinematic_arrive" => |p| p.parse().map(Behaviour::KinematicArrive),
    "kinematic_wander" => |p| p.parse().map(Behaviour::KinematicWander),
}

/// Convert one behaviour entry; `key` is its path (`groups[0].behaviours[1]`).
pub(crate) fn convert(
    key: &str,
    kind: &str,
    weight: f32,
    probability: f32,
    params: &toml::Table,
    ctx: &Context<'_>,
) -> Result<WeightedBehaviour, Problem> {
    let p = Params {
        table: params,
        key,
        ctx,
    };
    let behaviour = build(kind, &p).ok_or_else(|| {
        Problem::new(
            format!("{key}.kind"),
            format!(
                "unknown behaviour `{kind}`; the behaviours are: {}",
                BEHAVIOUR_KINDS.join(", ")
            ),
        )
    })??;
    if !weight.is_finite() {
        return Err(Problem::new(
            format!("{key}.weight"),
            format!("the weight must be a finite number, got {weight}"),
        ));
    }
    if !(0.0..=1.0).contains(&probability) {
        return Err(Problem::new(
            format!("{key}.probability"),
            format!("the probability must be between 0 and 1, got {probability}"),
        ));
    }
    let wb = WeightedBehaviour {
        behaviour,
        weight,
        probability,
    };
    // The engine's own parameter checks, mapped back to the parameter's key.
    let alone = GroupConfig {
        behaviours: vec![wb.clone()],
        movement: ctx.movement,
        ..GroupConfig::default()
    };
    if let Err(crate::ThrongError::InvalidParameter { field, reason }) = alone.validate() {
        let param = field.rsplit_once('.').map_or(field.as_str(), |(_, p)| p);
        if param == "kind" {
            // The behaviour itself does not fit the group (kinematic or not).
            return Err(Problem::new(
                format!("{key}.kind"),
                format!("`{kind}`: {reason}"),
            ));
        }
        let value = params
            .get(param)
            .map(|v| format!(", got {v}"))
            .unwrap_or_default();
        return Err(Problem::new(
            format!("{key}.{param}"),
            format!("`{param}` {reason}{value}"),
        ));
    }
    Ok(wb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(src: &str) -> toml::Table {
        toml::from_str(src).unwrap()
    }

    #[test]
    fn every_kind_builds_with_defaults_and_keeps_its_name() {
        let paths = [LayoutPath {
            name: "route".into(),
            points: vec![glam::Vec2::ZERO, glam::Vec2::X],
            looped: false,
        }];
        let fields = [LayoutField {
            name: "exit".into(),
            goals: vec![(glam::Vec2::ZERO, glam::Vec2::ONE)],
            clearance: 0.5,
            cell: None,
            congestion: None,
        }];
        for kind in BEHAVIOUR_KINDS {
            let movement = if kind.starts_with("kinematic_") {
                Movement::Kinematic
            } else {
                Movement::Steering
            };
            let ctx = Context {
                movement,
                paths: &paths,
                fields: &fields,
            };
            let params = if *kind == "follow_path" {
                table("path = \"route\"")
            } else if *kind == "follow_field" {
                table("field = \"exit\"")
            } else if *kind == "containment" {
                table("region = { circle = { centre = [0, 0], radius = 5 } }")
            } else {
                toml::Table::new()
            };
            let wb = convert("b", kind, 1.0, 1.0, &params, &ctx).unwrap();
            assert_eq!(wb.behaviour.name(), *kind);
        }
        // A path that is not in the scene, and a missing one, name the key.
        let ctx = Context {
            movement: Movement::Steering,
            paths: &paths,
            fields: &fields,
        };
        // A field that is not in the scene names the key and the fields there are.
        let e = convert("b", "follow_field", 1.0, 1.0, &table("field = \"x\""), &ctx).unwrap_err();
        assert_eq!(e.key, "b.field");
        assert!(e.message.contains("exit"), "{}", e.message);
        let e = convert("b", "follow_path", 1.0, 1.0, &table("path = \"x\""), &ctx).unwrap_err();
        assert_eq!(e.key, "b.path");
        assert!(e.message.contains("route"), "{}", e.message);
        // Leader following reads its nested separation table.
        let wb = convert(
            "b",
            "leader_follow",
            1.0,
            1.0,
            &table("sight_radius = 12\nseparation = { strength = 3, formula = \"average\" }"),
            &ctx,
        )
        .unwrap();
        let Behaviour::LeaderFollow { leader, separation } = wb.behaviour else {
            panic!("not leader_follow")
        };
        assert_eq!(leader.sight_radius, 12.0);
        assert_eq!(separation.strength, 3.0);
        let e = convert(
            "b",
            "leader_follow",
            1.0,
            1.0,
            &table("separation = { strenth = 3 }"),
            &ctx,
        )
        .unwrap_err();
        assert_eq!(e.key, "b.separation.strenth");
    }

    #[test]
    fn parameters_are_read() {
        let wb = convert(
            "b",
            "arrive",
            2.0,
            1.0,
            &table("slowing_radius = 7.5"),
            &Context::default(),
        )
        .unwrap();
        assert_eq!(
            wb.behaviour,
            Behaviour::Arrive(crate::behaviours::targeting::ArriveParams {
                slowing_radius: 7.5,
                ..Default::default()
            })
        );
        assert_eq!(wb.weight, 2.0);
    }

    #[test]
    fn errors_name_the_key() {
        let e = convert(
            "g.b[0]",
            "teleport",
            1.0,
            1.0,
            &toml::Table::new(),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.key, "g.b[0].kind");
        assert!(e.message.contains("separation"));
        let e = convert(
            "g.b[0]",
            "separation",
            1.0,
            1.0,
            &table("strength = 1.0\nradiuss = 2.0"),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.key, "g.b[0].radiuss");
        assert!(e.message.starts_with("unknown parameter"), "{}", e.message);
        let e = convert(
            "g.b[0]",
            "arrive",
            1.0,
            1.0,
            &table("slowing_radius = \"far\""),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.key, "g.b[0].slowing_radius");
        let wb = convert(
            "b",
            "separation",
            1.0,
            1.0,
            &table("formula = \"average\""),
            &Context::default(),
        )
        .unwrap();
        let Behaviour::Separation(sp) = wb.behaviour else {
            panic!("not separation")
        };
        assert_eq!(
            sp.kind,
            crate::behaviours::flocking::SeparationKind::Average
        );
        let e = convert(
            "g.b[0]",
            "separation",
            1.0,
            1.0,
            &table("formula = \"cubic\""),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.key, "g.b[0].formula");
        let e = convert(
            "g.b[0]",
            "separation",
            1.0,
            1.0,
            &table("stregth = 1"),
            &Context::default(),
        )
        .unwrap_err();
        assert!(
            e.message.contains("`formula`") && !e.message.contains("`kind`"),
            "{}",
            e.message
        );
        let e = convert(
            "g.b[0]",
            "seek",
            1.0,
            1.0,
            &table("speed = 3"),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.message, "this behaviour takes no parameters");
        let e = convert(
            "g.b[0]",
            "seek",
            f32::NAN,
            1.0,
            &toml::Table::new(),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.key, "g.b[0].weight");
        let e = convert(
            "g.b[0]",
            "seek",
            1.0,
            1.5,
            &toml::Table::new(),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.key, "g.b[0].probability");
        let e = convert(
            "g.b[0]",
            "arrive",
            1.0,
            1.0,
            &table("slowing_radius = nan"),
            &Context::default(),
        )
        .unwrap_err();
        assert_eq!(e.key, "g.b[0].slowing_radius");
        assert!(e.message.contains("nan"), "{}", e.message);
    }
}
