//! The provider presets a run chooses from: the shipped ones, the user's
//! from config, and the base URLs of the environment.

use amber_wire::presets::PresetOverride;
use amber_wire::Presets;
use anyhow::Result;

/// The presets under `config` (already read by the caller).
pub fn presets_from(config: &amber_config::Config) -> Result<Presets> {
    let overrides = config
        .providers
        .iter()
        .map(|(name, p)| {
            let o = PresetOverride {
                flavor: p.flavor.clone(),
                base_url: p.base_url.clone(),
                key_env: p.key_env.clone(),
                model: p.model.clone(),
                context_window: p.context_window,
                images: p.images,
            };
            (name.clone(), o)
        })
        .collect();
    let presets = Presets::shipped().with_overrides(&overrides)?;
    Ok(presets.with_env(|k| std::env::var(k).ok()))
}
