//! Tool arguments as a serde struct instead of a hand-read `Value`: the
//! JSON Schema derived from the type (schemars), so the schema the model
//! sees and the struct the tool reads cannot drift apart, and the model's
//! JSON parsed into it with an error that names the field at fault, so the
//! model can correct its next call.

use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

use crate::ToolError;

#[cfg(feature = "schemars")]
impl crate::ToolSpec {
    /// The arguments' schema, derived from `T` with schemars (see
    /// [`schema_for`]). `T` is usually also what the tool parses its
    /// arguments into with [`parse_args`].
    pub fn args<T: schemars::JsonSchema>(self) -> Self {
        self.schema(schema_for::<T>())
    }
}

/// `T`'s JSON Schema as a tool's `input-schema`: draft 2020-12 (what the
/// host's check and the model APIs read), every subschema inlined, since
/// some model APIs reject `$ref`, and without `$schema`, the root `title`
/// (a Rust type name) and the root `description` (the struct's doc
/// comment, written for Rust readers; the model reads the tool's own
/// description).
///
/// With schemars an `Option` field is optional and may be `null`, a
/// field's doc comment becomes its `description`, which the model reads,
/// and `#[serde(deny_unknown_fields)]` becomes
/// `"additionalProperties": false`.
#[cfg(feature = "schemars")]
pub fn schema_for<T: schemars::JsonSchema>() -> serde_json::Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.meta_schema = None;
        s.inline_subschemas = true;
    });
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    schema.remove("title");
    schema.remove("description");
    schema.to_value()
}

/// The arguments parsed into `T`, or [`ToolError::InvalidArgs`] naming the
/// field and what was wrong with it (``"`path`: invalid type: integer `3`,
/// expected a string"``), which the model reads and acts on.
pub fn parse_args<T: DeserializeOwned>(args: serde_json::Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(args).map_err(|e| {
        let mut at: Vec<&Segment> = e.path().iter().collect();
        let why = e.inner().to_string();
        // "unknown field `x`" names the field itself; its parent is where.
        if why.starts_with("unknown field") {
            at.pop();
        }
        ToolError::InvalidArgs(match field_path(&at) {
            Some(path) => format!("`{path}`: {why}"),
            None => why,
        })
    })
}

/// `edits[0].old_string`, as serde_path_to_error writes a path; `None` at
/// the top.
fn field_path(segments: &[&Segment]) -> Option<String> {
    let mut path = String::new();
    for segment in segments {
        if !path.is_empty() && !matches!(segment, Segment::Seq { .. }) {
            path.push('.');
        }
        path.push_str(&segment.to_string());
    }
    (!path.is_empty()).then_some(path)
}
