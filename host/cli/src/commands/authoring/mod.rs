//! Writing plugins: `amber plugin new|build|test` (docs/plugin-authoring.md).
//! A plugin folder holds `amber-plugin.toml` (its id, language and kind),
//! its sources, and `tests.toml` (example calls and what they return).
//!
//! - [`scaffold`] writes a folder that builds as it is;
//! - [`build`] runs the language's toolchain ([`toolchain`] installs the
//!   ones amber pins) and checks the component ([`check`]);
//! - [`examples`] runs `tests.toml` through the real runtime.
//!
//! The SDKs and the WIT come from the installed amber ([`sdk`]).

pub mod build;
pub mod check;
pub mod examples;
pub mod scaffold;
pub mod sdk;
pub mod toolchain;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The file that makes a folder a plugin project.
pub const DESCRIPTOR: &str = "amber-plugin.toml";
/// Example calls and their expected outputs.
pub const EXAMPLES: &str = "tests.toml";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Python,
    Js,
    /// No SDK and no toolchain of amber's: built by the plugin's own
    /// script (sdk/examples/c), then tested with `plugin test --no-build`.
    C,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::Js => "js",
            Lang::C => "c",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Tool,
    Command,
    Prompt,
    Hook,
    Provider,
    Parser,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Command => "command",
            Kind::Prompt => "prompt",
            Kind::Hook => "hook",
            Kind::Provider => "provider",
            Kind::Parser => "parser",
        }
    }

    /// The WIT world a plugin of this kind is built against.
    pub fn world(self) -> String {
        format!("{}-plugin", self.name())
    }
}

/// `amber-plugin.toml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Descriptor {
    pub plugin: Project,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    /// The plugin's id (its manifest says the same).
    pub id: String,
    pub lang: Lang,
    pub kind: Kind,
    /// Python: the app module (`app`); JavaScript: the entry file
    /// (`plugin.js`); Rust: unused (Cargo.toml says it).
    #[serde(default)]
    pub entry: Option<String>,
    /// The plugin calls web APIs through the `http` permission: Python
    /// and JavaScript builds keep `wasi:http` (its bindings, `fetch`),
    /// which a plugin without it does not carry. Rust says it with the
    /// SDK's `http` feature instead.
    #[serde(default)]
    pub http: bool,
}

impl Descriptor {
    pub fn load(dir: &Path) -> Result<Descriptor> {
        let path = dir.join(DESCRIPTOR);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{} is not a plugin folder: it has no {DESCRIPTOR} (make one with `amber plugin new NAME`)",
                dir.display()
            )
        })?;
        toml::from_str(&text).with_context(|| format!("{}", path.display()))
    }
}

/// Where the built component goes: `DIR/dist/ID.wasm`.
pub fn artifact(dir: &Path, descriptor: &Descriptor) -> PathBuf {
    dir.join("dist")
        .join(format!("{}.wasm", descriptor.plugin.id))
}

/// A plugin id: 1-64 of `[a-z0-9-_]` (wit/types.wit).
pub fn check_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !ok {
        bail!("`{id}` is not a plugin id: use 1 to 64 of a-z, 0-9, - and _");
    }
    Ok(())
}
