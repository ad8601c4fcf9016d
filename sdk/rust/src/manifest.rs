//! Builders for the manifest and tool specs, so a plugin's declarations read
//! as one expression, and [`manifest!`](crate::manifest!), which takes the
//! manifest from Cargo.toml so the version is written once.

use crate::{Manifest, Permission, PermissionRequest, ToolOutput, ToolSpec};

/// The `amber:plugin` version this SDK is built against. A plugin it
/// builds keeps loading on later ambers that support this version
/// (docs/wit.md, "Versioning").
pub const API_VERSION: &str = "0.3.0";

impl Manifest {
    /// A manifest with `name` = `id`, the SDK's API version and no
    /// permissions.
    pub fn new(id: &str, version: &str, description: &str) -> Self {
        Manifest {
            id: id.to_string(),
            name: id.to_string(),
            version: version.to_string(),
            description: description.to_string(),
            api_version: API_VERSION.to_string(),
            permissions: Vec::new(),
        }
    }

    /// A display name other than the id.
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// Requests a permission; `reason` is shown to the user when asked.
    pub fn permission(mut self, permission: Permission, reason: &str) -> Self {
        let reason = reason.to_string();
        self.permissions.push(PermissionRequest {
            permission,
            reason,
            hosts: Vec::new(),
        });
        self
    }

    /// Requests `http` to `hosts` (`api.example.com`, `*.example.org`,
    /// `127.0.0.1:8080`; `http://…` for plain HTTP): the plugin's own
    /// HTTP client (`wasi:http`) reaches them, once the user grants it.
    pub fn http(mut self, hosts: &[&str], reason: &str) -> Self {
        self.permissions.push(PermissionRequest {
            permission: Permission::Http,
            reason: reason.to_string(),
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
        });
        self
    }
}

/// A manifest from the crate's `[package]`: `name` as the id (or the id
/// you give), `version` and `description`. The version and description
/// then live in one place, Cargo.toml, and never drift from the crate's.
///
/// Rust has no macros on types, so issue 23's `Manifest::from_cargo!()`
/// is spelt `amber_sdk::manifest!()`; it returns a [`Manifest`], so the
/// builders chain on it:
///
/// ```ignore
/// fn manifest() -> Manifest {
///     amber_sdk::manifest!().permission(Permission::WorkspaceRead, "to read notes")
/// }
/// ```
///
/// When the package name is not the id you want (a crate `hello-tool` for
/// the plugin `hello`), give the id: `amber_sdk::manifest!(id: "hello")`.
/// A package without a `description`, or an id amber would refuse, is a
/// compile error rather than a plugin that fails to load.
#[macro_export]
macro_rules! manifest {
    () => {
        $crate::manifest!(id: env!("CARGO_PKG_NAME"))
    };
    (id: $id:expr $(,)?) => {{
        const _: () = $crate::__check_manifest($id, env!("CARGO_PKG_DESCRIPTION"));
        $crate::Manifest::new($id, env!("CARGO_PKG_VERSION"), env!("CARGO_PKG_DESCRIPTION"))
    }};
}

/// What the host's loader checks of an id (1-64 of `[a-z0-9-_]`) and a
/// non-empty description, at compile time: a panic here stops the build
/// with the message.
#[doc(hidden)]
pub const fn __check_manifest(id: &str, description: &str) {
    if description.is_empty() {
        panic!("amber_sdk::manifest!: Cargo.toml's [package] has no `description`; add one, amber shows it in `plugin list` and `plugin info`");
    }
    let bytes = id.as_bytes();
    if bytes.is_empty() || bytes.len() > 64 {
        panic!("amber_sdk::manifest!: a plugin id is 1-64 characters; give one with manifest!(id: \"my-plugin\")");
    }
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'_') {
            panic!("amber_sdk::manifest!: a plugin id is made of a-z, 0-9, - and _; rename the package or give the id with manifest!(id: \"my-plugin\")");
        }
        i += 1;
    }
}

impl ToolSpec {
    /// A tool taking an empty object, not read-only until you say so.
    pub fn new(name: &str, description: &str) -> Self {
        ToolSpec {
            name: name.to_string(),
            description: description.to_string(),
            input_schema: r#"{"type":"object"}"#.to_string(),
            read_only: false,
        }
    }

    /// The JSON Schema of the arguments.
    pub fn schema(mut self, schema: serde_json::Value) -> Self {
        self.input_schema = schema.to_string();
        self
    }

    /// Marks the tool as changing nothing, so read mode allows it.
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }
}

impl ToolOutput {
    /// Plain text for the model.
    pub fn text(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            meta: None,
            images: Vec::new(),
        }
    }

    /// Attaches JSON for front ends; the model does not see it.
    pub fn with_meta(mut self, meta: serde_json::Value) -> Self {
        self.meta = Some(meta.to_string());
        self
    }
}
