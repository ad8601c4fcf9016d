//! `recall`, `compile` and `store`: governed memory (seed 004) in the
//! workspace's namespace. Recall returns only records eligible now, each
//! with its id and why it may be used; `store` adds a candidate, never a
//! validated record: another agent's memory earns trust as amber's does
//! (docs/memory.md).

use amber_core::ports::{Tool, ToolError, ToolOutput, ToolSpec};
use amber_memory::compiler::input::DEFAULT_BUDGET;
use amber_memory::{Draft, RecallQuery, RecordType, Status};
use serde_json::{json, Value};

use super::{failed, optional_count, optional_text, required_text, spec, Place};

/// The most records a recall returns.
const RECALL_MAX: usize = 20;

/// The query as the caller gave it: text, limit, and the file it is
/// about, relative to the workspace.
fn query(place: &Place, args: &Value) -> Result<RecallQuery, ToolError> {
    let mut query = RecallQuery::new(&place.namespace(), required_text(args, "query")?);
    query.limit = optional_count(args, "limit", query.limit, 1..=RECALL_MAX)?;
    query.path = optional_text(args, "path")?.map(|p| {
        std::path::Path::new(p)
            .strip_prefix(&place.workspace)
            .map_or_else(|_| p.to_string(), |rel| rel.to_string_lossy().into_owned())
    });
    Ok(query)
}

fn query_schema(extra: Value) -> Value {
    let mut properties = json!({
        "query": {"type": "string", "description": "What the work is about, in words, e.g. `retry policy of the HTTP client`."},
        "limit": {"type": "integer", "minimum": 1, "maximum": RECALL_MAX, "description": "At most this many records (default 5)."},
        "path": {"type": "string", "description": "The file the work is about, relative to the workspace, e.g. `src/net/retry.rs`: records scoped to other paths stay out."}
    });
    if let (Some(map), Value::Object(more)) = (properties.as_object_mut(), extra) {
        map.extend(more);
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": ["query"],
        "additionalProperties": false
    })
}

pub struct RecallTool {
    spec: ToolSpec,
    place: Place,
}

impl RecallTool {
    pub fn new(place: Place) -> Self {
        let spec = spec(
            "recall",
            "Recall this repository's engineering memories (decisions, gotchas, procedures) that match a query and may be used now: expired, retracted or superseded ones are held back. Each is `#id [type] title (status, confidence)` and its content. The receipt number rates the recall with `amber memory feedback`.",
            query_schema(json!({})),
            true,
        );
        RecallTool { spec, place }
    }
}

impl Tool for RecallTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let query = query(&self.place, args)?;
        let mut store = crate::memory::open(&self.place.dirs).map_err(failed)?;
        let recall = crate::memory::recall_using(&mut store, &query, self.place.encoder()?)
            .map_err(failed)?;
        let mut content = String::new();
        if recall.hits.is_empty() {
            content.push_str("no eligible memory matches\n");
        }
        for hit in &recall.hits {
            let d = &hit.record.draft;
            content.push_str(&format!(
                "#{} [{}] {} ({}, confidence {:.2})\n{}\n\n",
                hit.record.id,
                d.record_type,
                d.title,
                d.status,
                d.confidence,
                d.content.trim_end()
            ));
        }
        for held in &recall.suppressed {
            content.push_str(&format!("held back: #{} ({})\n", held.id, held.reason));
        }
        content.push_str(&format!("receipt {}\n", recall.receipt));
        let ids: Vec<i64> = recall.hits.iter().map(|h| h.record.id).collect();
        Ok(ToolOutput {
            content,
            meta: Some(json!({"receipt": recall.receipt, "ids": ids})),
            images: Vec::new(),
        })
    }
}

pub struct CompileTool {
    spec: ToolSpec,
    place: Place,
}

impl CompileTool {
    pub fn new(place: Place) -> Self {
        let spec = spec(
            "compile",
            "Compile a task's context from this repository's memories: recall, keep what is eligible and not contradicted, and render it in sections within a token budget; a last line names the sources (`memory:12@r3`: record 12, revision 3). Put the result at the head of your work on the task.",
            query_schema(json!({
                "budget": {"type": "integer", "minimum": 100, "maximum": 20000, "description": "At most this many tokens (default 2048)."}
            })),
            true,
        );
        CompileTool { spec, place }
    }
}

impl Tool for CompileTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let query = query(&self.place, args)?;
        let budget = optional_count(args, "budget", DEFAULT_BUDGET, 100..=20_000)?;
        let (recall, compiled) = crate::memory::compile_using(
            &self.place.dirs,
            self.place.encoder()?,
            &query,
            budget,
            Vec::new(),
            Vec::new(),
        )
        .map_err(failed)?;
        let sources: Vec<&str> = compiled
            .manifest
            .selected
            .iter()
            .map(|s| s.reference.as_str())
            .collect();
        let mut content = compiled.rendered.clone();
        if !sources.is_empty() {
            content.push_str(&format!("\nsources: {}\n", sources.join(", ")));
        }
        Ok(ToolOutput {
            content,
            meta: Some(json!({"receipt": recall.receipt, "manifest": compiled.manifest})),
            images: Vec::new(),
        })
    }
}

pub struct StoreTool {
    spec: ToolSpec,
    place: Place,
}

impl StoreTool {
    pub fn new(place: Place) -> Self {
        let types: Vec<&str> = RecordType::ALL.iter().map(|t| t.as_str()).collect();
        let spec = spec(
            "store",
            "Store an engineering memory of this repository for later sessions (yours or amber's): a decision, a gotcha, a procedure. It is stored as a candidate; the same content again only raises its evidence. Keep it to one fact with its reason.",
            json!({
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": types, "description": "What kind of knowledge it is."},
                    "title": {"type": "string", "description": "A short title, e.g. `Retries stop at 3 because the gateway bans after 5`."},
                    "content": {"type": "string", "description": "The fact, its reason and where it applies."},
                    "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags, e.g. [\"http\", \"retry\"]."},
                    "paths": {"type": "array", "items": {"type": "string"}, "description": "Workspace path globs it applies to, e.g. [\"src/net/**\"]; none: everywhere."}
                },
                "required": ["type", "title", "content"],
                "additionalProperties": false
            }),
            false,
        );
        StoreTool { spec, place }
    }
}

/// A list of strings, or none.
fn strings(args: &Value, name: &str) -> Result<Vec<String>, ToolError> {
    match &args[name] {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    ToolError::InvalidArgs(format!("`{name}` must be a list of strings"))
                })
            })
            .collect(),
        _ => Err(ToolError::InvalidArgs(format!(
            "`{name}` must be a list of strings"
        ))),
    }
}

impl Tool for StoreTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let record_type: RecordType = required_text(args, "type")?
            .parse()
            .map_err(|e| ToolError::InvalidArgs(format!("`type`: {e}")))?;
        let mut draft = Draft::new(
            record_type,
            required_text(args, "title")?,
            required_text(args, "content")?,
        );
        draft.tags = strings(args, "tags")?;
        draft.applicability.paths = strings(args, "paths")?;
        draft.provenance.actor = Some("mcp".into());
        let added = crate::memory::open(&self.place.dirs)
            .and_then(|mut store| Ok(store.add(&self.place.namespace(), draft)?))
            .map_err(|e| match e.downcast_ref::<amber_memory::MemoryError>() {
                Some(amber_memory::MemoryError::Invalid { .. }) => {
                    ToolError::InvalidArgs(format!("{e:#}"))
                }
                _ => failed(e),
            })?;
        let content = if added.created {
            format!("stored #{} as a candidate", added.id)
        } else if matches!(added.status, Status::Candidate | Status::Validated) {
            format!(
                "#{} already holds this content; its evidence is now {}",
                added.id, added.evidence
            )
        } else {
            format!(
                "#{} already holds this content, and is {}: recall holds it back until a person revises it (`amber memory revise`)",
                added.id, added.status
            )
        };
        Ok(ToolOutput {
            content,
            meta: Some(
                json!({"id": added.id, "created": added.created, "evidence": added.evidence}),
            ),
            images: Vec::new(),
        })
    }
}
