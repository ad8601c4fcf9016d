//! Provider presets: data, not code. A preset names a flavor, a base URL,
//! the environment variable holding the key, a default model and its
//! context window (which the compression gate needs).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

const SHIPPED: &str = include_str!("../presets.toml");

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    #[serde(default)]
    pub name: String,
    pub flavor: String,
    pub base_url: String,
    /// None for local servers that need no key.
    #[serde(default)]
    pub key_env: Option<String>,
    pub model: String,
    pub context_window: u64,
    /// Whether the model takes images (docs/images.md): a prompt with an
    /// image to one that does not is refused before it is sent.
    #[serde(default)]
    pub images: bool,
}

/// A user's override of (or addition to) a preset; unset fields keep the
/// shipped values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PresetOverride {
    pub flavor: Option<String>,
    pub base_url: Option<String>,
    pub key_env: Option<String>,
    pub model: Option<String>,
    pub context_window: Option<u64>,
    pub images: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presets {
    by_name: BTreeMap<String, Preset>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PresetError {
    #[error("no provider preset `{name}` (known: {known})")]
    Unknown { name: String, known: String },
    #[error("provider `{name}` in your config needs `{field}`: it is not a shipped preset to inherit from")]
    Incomplete { name: String, field: &'static str },
}

impl Presets {
    /// The presets shipped in `presets.toml`.
    pub fn shipped() -> Self {
        let by_name: BTreeMap<String, Preset> = toml::from_str(SHIPPED).unwrap_or_default();
        let by_name = by_name
            .into_iter()
            .map(|(name, p)| (name.clone(), Preset { name, ..p }))
            .collect();
        Presets { by_name }
    }

    /// Applies the user's presets from config.
    pub fn with_overrides(
        mut self,
        overrides: &BTreeMap<String, PresetOverride>,
    ) -> Result<Self, PresetError> {
        for (name, o) in overrides {
            let preset = match self.by_name.get(name).cloned() {
                Some(base) => Preset {
                    flavor: o.flavor.clone().unwrap_or(base.flavor),
                    base_url: o.base_url.clone().unwrap_or(base.base_url),
                    key_env: o.key_env.clone().or(base.key_env),
                    model: o.model.clone().unwrap_or(base.model),
                    context_window: o.context_window.unwrap_or(base.context_window),
                    images: o.images.unwrap_or(base.images),
                    name: name.clone(),
                },
                None => {
                    let need = |field: &'static str| PresetError::Incomplete {
                        name: name.clone(),
                        field,
                    };
                    Preset {
                        name: name.clone(),
                        flavor: o.flavor.clone().ok_or_else(|| need("flavor"))?,
                        base_url: o.base_url.clone().ok_or_else(|| need("base_url"))?,
                        key_env: o.key_env.clone(),
                        model: o.model.clone().ok_or_else(|| need("model"))?,
                        context_window: o.context_window.unwrap_or(32_768),
                        images: o.images.unwrap_or(false),
                    }
                }
            };
            self.by_name.insert(name.clone(), preset);
        }
        Ok(self)
    }

    /// Applies `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL` (looked up with
    /// `var`) to the presets that use those vendors' keys.
    pub fn with_env(mut self, var: impl Fn(&str) -> Option<String>) -> Self {
        for (key_env, url_env) in [
            ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
            ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
        ] {
            if let Some(url) = var(url_env).filter(|u| !u.is_empty()) {
                for preset in self.by_name.values_mut() {
                    if preset.key_env.as_deref() == Some(key_env) {
                        preset.base_url = url.clone();
                    }
                }
            }
        }
        self
    }

    pub fn get(&self, name: &str) -> Result<&Preset, PresetError> {
        self.by_name.get(name).ok_or_else(|| PresetError::Unknown {
            name: name.to_string(),
            known: self.by_name.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    }

    pub fn all(&self) -> impl Iterator<Item = &Preset> {
        self.by_name.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_preset_ships_with_the_vendors_base_url_shape() {
        let presets = Presets::shipped();
        let names: Vec<&str> = presets.all().map(|p| p.name.as_str()).collect();
        for name in [
            "openai",
            "openai-responses",
            "anthropic",
            "ollama",
            "lmstudio",
            "vllm",
            "llamacpp",
            "openrouter",
            "groq",
            "deepseek",
            "together",
            "mistral",
        ] {
            assert!(names.contains(&name), "{name} missing");
        }
        assert_eq!(
            presets.get("openai").unwrap().base_url,
            "https://api.openai.com/v1"
        );
        assert_eq!(
            presets.get("anthropic").unwrap().base_url,
            "https://api.anthropic.com"
        );
        assert_eq!(
            presets.get("anthropic").unwrap().flavor,
            "anthropic-messages"
        );
        assert!(presets.all().all(|p| p.context_window > 0));
    }

    #[test]
    fn env_base_urls_override_the_vendors_presets_only() {
        let presets = Presets::shipped()
            .with_env(|k| (k == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:9/v1".to_string()));
        assert_eq!(
            presets.get("openai").unwrap().base_url,
            "http://127.0.0.1:9/v1"
        );
        assert_eq!(
            presets.get("openai-responses").unwrap().base_url,
            "http://127.0.0.1:9/v1"
        );
        assert_eq!(
            presets.get("groq").unwrap().base_url,
            "https://api.groq.com/openai/v1"
        );
    }

    #[test]
    fn user_presets_inherit_or_must_be_complete() {
        let mut o = BTreeMap::new();
        o.insert(
            "openai".to_string(),
            PresetOverride {
                model: Some("gpt-4o".into()),
                ..Default::default()
            },
        );
        o.insert(
            "mine".to_string(),
            PresetOverride {
                flavor: Some("openai-chat".into()),
                base_url: Some("http://h/v1".into()),
                model: Some("m".into()),
                ..Default::default()
            },
        );
        let presets = Presets::shipped().with_overrides(&o).unwrap();
        assert_eq!(presets.get("openai").unwrap().model, "gpt-4o");
        assert_eq!(presets.get("mine").unwrap().context_window, 32_768);
        let mut bad = BTreeMap::new();
        bad.insert(
            "half".to_string(),
            PresetOverride {
                flavor: Some("openai-chat".into()),
                ..Default::default()
            },
        );
        let err = Presets::shipped()
            .with_overrides(&bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`half`") && err.contains("base_url"), "{err}");
        assert!(Presets::shipped()
            .get("nope")
            .unwrap_err()
            .to_string()
            .contains("known: anthropic"));
    }
}
