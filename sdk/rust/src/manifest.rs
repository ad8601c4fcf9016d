//! Builders for the manifest and tool specs, so a plugin's declarations read
//! as one expression.

use crate::{Manifest, Permission, PermissionRequest, ToolOutput, ToolSpec};

/// The `amber:plugin` version this SDK is built against.
pub const API_VERSION: &str = "0.1.0";

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
        self.permissions
            .push(PermissionRequest { permission, reason });
        self
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
        }
    }

    /// Attaches JSON for front ends; the model does not see it.
    pub fn with_meta(mut self, meta: serde_json::Value) -> Self {
        self.meta = Some(meta.to_string());
        self
    }
}
