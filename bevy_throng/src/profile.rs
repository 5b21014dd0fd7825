//! Profiles as Bevy assets (the `profile` feature): a throng profile (a
//! `*.throng.toml` file, in the TOML of throng's `profiles/`) loaded through Bevy's
//! asset server sets the crowd up: the world's settings, its scene (walls,
//! obstacles, paths, goal fields), level of detail and groups
//! ([`throng::scenario::world_of_setup`]), and each group's body for the entities
//! that join it without one of their own. The profile's own agents are not spawned:
//! a game's agents are its entities. A profile that changes on disk (Bevy's file
//! watcher) sets the crowd up again.

use std::collections::HashMap;

use bevy_app::{App, Plugin, PreUpdate};
use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetApp, AssetEvent, AssetLoader, Assets, Handle, LoadContext};
use bevy_ecs::prelude::*;
use bevy_reflect::TypePath;
use throng::scenario::Profile;
use throng::GroupId;

use crate::{AgentHandle, Body, Crowd, CrowdErrors};

/// A profile, parsed and validated when it is loaded.
#[derive(Asset, TypePath, Clone, Debug)]
pub struct CrowdProfile {
    /// The profile.
    pub profile: Profile,
}

/// Loads `*.throng.toml` files as [`CrowdProfile`]s; a profile that does not
/// validate fails to load with throng's message (line, column and key).
#[derive(Default, TypePath)]
pub struct ProfileLoader;

/// Why a profile did not load.
#[derive(Debug, thiserror::Error)]
pub enum ProfileLoadError {
    /// The file could not be read.
    #[error("could not read the profile: {0}")]
    Io(#[from] std::io::Error),
    /// It is not a valid profile.
    #[error("{0}")]
    Invalid(String),
}

impl AssetLoader for ProfileLoader {
    type Asset = CrowdProfile;
    type Settings = ();
    type Error = ProfileLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<CrowdProfile, ProfileLoadError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ProfileLoadError::Invalid("a profile is UTF-8 text".into()))?;
        let name = load_context.path().to_string();
        let profile = throng::scenario::parse_profile(&text, &name)
            .map_err(|e| ProfileLoadError::Invalid(e.render()))?;
        Ok(CrowdProfile { profile })
    }

    fn extensions(&self) -> &[&str] {
        &["throng.toml"]
    }
}

/// The profile the crowd is set up from; insert it (with the handle the asset
/// server gave) and the crowd is set up as soon as the profile has loaded.
#[derive(Resource, Clone, Debug)]
pub struct CrowdSetup(pub Handle<CrowdProfile>);

/// Registers [`CrowdProfile`] and its loader, and sets the crowd up from the
/// [`CrowdSetup`] profile once it loads (and again when it changes). Add it beside
/// [`crate::ThrongPlugin`] and Bevy's `AssetPlugin` (in `DefaultPlugins`).
#[derive(Default)]
pub struct ThrongProfilePlugin;

impl Plugin for ThrongProfilePlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<CrowdProfile>()
            .init_asset_loader::<ProfileLoader>()
            .add_systems(PreUpdate, set_up);
    }
}

/// The crowd set up from the [`CrowdSetup`] profile when it has loaded or changed:
/// a new world of the profile's setup in place of the crowd's, the profile's group
/// bodies kept for entities that join without one, and every agent entity sent to
/// join the new world where its `Transform` stands (at the next fixed step).
fn set_up(
    mut crowd: ResMut<Crowd>,
    setup: Option<Res<CrowdSetup>>,
    profiles: Res<Assets<CrowdProfile>>,
    mut events: MessageReader<AssetEvent<CrowdProfile>>,
    agents: Query<Entity, With<AgentHandle>>,
    mut errors: ResMut<CrowdErrors>,
    mut commands: Commands,
) {
    let Some(setup) = setup else {
        events.clear();
        return;
    };
    let id = setup.0.id();
    let changed = events
        .read()
        .any(|e| e.is_loaded_with_dependencies(id) || e.is_modified(id));
    if !changed {
        return;
    }
    let Some(p) = profiles.get(id) else {
        return;
    };
    let world = match throng::scenario::world_of_setup(&p.profile) {
        Ok(w) => w,
        Err(e) => {
            errors.0.push(format!("profile {:?}: {e}", p.profile.name));
            return;
        }
    };
    // The profile's group i is the world's group slot i.
    let bodies: HashMap<GroupId, Body> = world
        .groups()
        .zip(&p.profile.groups)
        .map(|((id, _), g)| {
            let b = &g.body;
            let body = Body {
                mass: b.mass,
                max_speed: b.max_speed,
                max_force: b.max_force,
                radius: b.radius,
            };
            (id, body)
        })
        .collect();
    crowd.replace_world(world, bodies);
    for entity in &agents {
        commands.entity(entity).remove::<AgentHandle>();
    }
}
