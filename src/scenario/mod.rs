//! Scenario profiles: TOML files describing a world, its walls, obstacles and
//! paths, and groups of agents with their spawn shapes, behaviours, targets and
//! squads.
//!
//! This layer sits on top of the engine and only uses its public API. Reading a
//! profile goes through three steps, each with located errors
//! ([`ProfileError`]: file, line, column, key path):
//! 1. TOML syntax and the schema ([`schema`], unknown keys rejected);
//! 2. validation into a [`Profile`] (values in range, names resolved,
//!    behaviours converted);
//! 3. [`Scenario::build`]: a [`crate::World`] with every agent spawned, plus the
//!    static [`Layout`] for drawing.
//!
//! ```
//! use throng::scenario::{parse_profile, Overrides, Scenario};
//!
//! let src = r#"
//!     [world]
//!     seed = 3
//!     ticks = 20
//!
//!     [[groups]]
//!     name = "walkers"
//!     count = 50
//!     spawn = { shape = "disc", radius = 10.0 }
//!     target = { point = [30.0, 0.0] }
//!
//!     [[groups.behaviours]]
//!     kind = "arrive"
//!     slowing_radius = 5.0
//! "#;
//! let profile = parse_profile(src, "walkers.toml")?;
//! // The same scene at 200 agents: the disc grows to keep the density.
//! let bigger = profile.with_overrides(&Overrides { agents: Some(200), ..Overrides::default() });
//! let mut scenario = Scenario::build(&bigger).unwrap();
//! for _ in 0..bigger.world.ticks {
//!     scenario.step().unwrap();
//! }
//! assert_eq!(scenario.world().len(), 200);
//! # Ok::<(), throng::scenario::ProfileError>(())
//! ```

mod behaviour;
mod error;
pub mod layout;
mod load;
mod profile;
pub mod schema;
pub mod spawn;
mod validate;

use std::path::Path;

use serde::Deserialize;
use toml::de::DeTable;

pub use behaviour::BEHAVIOUR_KINDS;
pub use error::ProfileError;
pub use layout::{Circle, Layout, LayoutField, LayoutPath, Rect, WallSegment};
pub use load::{apply_layout, world_of_setup, GroupInfo, Scenario, ScenarioState};
pub use profile::{
    BodySpec, GroupSpec, InitialDirection, Movement, Overrides, Profile, SquadSpec, TargetSpec,
    WorldSpec, MAX_COORDINATE, MAX_GROUP_COUNT, MIN_SEGMENT_LENGTH,
};

use error::Locator;

/// A profile compiled into the crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BundledProfile {
    /// Name (the file name in `profiles/` without `.toml`).
    pub name: &'static str,
    /// The file's text.
    pub source: &'static str,
}

macro_rules! bundled {
    ($($name:literal),* $(,)?) => {
        &[$(BundledProfile {
            name: $name,
            source: include_str!(concat!("../../profiles/", $name, ".toml")),
        }),*]
    };
}

/// Every profile shipped in `profiles/`.
pub const BUNDLED: &[BundledProfile] = bundled![
    "flock",
    "leader_squads",
    "arena",
    "approach",
    "kinematic",
    "circle",
    "circle_disk",
    "circle_orca",
    "circle_disk_orca",
    "city",
    "crossing",
    "crossing4",
    "hallway",
    "doorway",
    "bottleneck",
    "bottleneck_people",
    "bottleneck_experiment",
    "oncoming",
    "pillars",
    "rimea_corridor",
    "rimea_corner",
    "rimea_exits",
    "rimea_nearer_exit",
    "rimea_two_bottlenecks",
    "maze",
    "evacuation",
];

/// The profile `throng run` uses when given none.
pub const DEFAULT_PROFILE: &str = "flock";

/// The bundled profile called `name`.
#[must_use]
pub fn bundled(name: &str) -> Option<&'static BundledProfile> {
    BUNDLED.iter().find(|b| b.name == name)
}

/// Parse and validate a profile from its text. `file` names it in errors; its
/// stem is the profile's name when the profile gives none.
///
/// # Errors
/// A [`ProfileError`] locating the first problem.
pub fn parse_profile(src: &str, file: &str) -> Result<Profile, ProfileError> {
    let stem = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("profile");
    let root = match DeTable::parse(src) {
        Ok(root) => root,
        Err(e) => return Err(Locator::new(file, src, None).toml_error(&e)),
    };
    let locator = Locator::new(file, src, Some(root.clone()));
    let doc = schema::ProfileDoc::deserialize(serde::de::IntoDeserializer::into_deserializer(root))
        .map_err(|e| locator.toml_error(&e))?;
    validate::validate(doc, stem).map_err(|p| locator.problem(p))
}

/// Read, parse and validate the profile file at `path`.
///
/// # Errors
/// A [`ProfileError`] when the file cannot be read or is not a valid profile.
pub fn load_profile(path: &Path) -> Result<Profile, ProfileError> {
    let file = path.display().to_string();
    let src = std::fs::read_to_string(path).map_err(|e| {
        ProfileError::whole_file(file.clone(), format!("cannot read the profile: {e}"))
    })?;
    parse_profile(&src, &file)
}

/// Parse and validate a bundled profile.
///
/// # Errors
/// A [`ProfileError`] if it is invalid (the test suite makes sure none is).
pub fn load_bundled(b: &BundledProfile) -> Result<Profile, ProfileError> {
    parse_profile(b.source, &format!("profiles/{}.toml", b.name))
}
