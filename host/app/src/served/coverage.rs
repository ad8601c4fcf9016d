//! `coverage_report` and `coverage_digest`: what a session of amber's read
//! of the workspace, per file, and the restore digest a compacted session
//! gets (docs/coverage.md).

use std::sync::Arc;

use amber_core::ports::{Tool, ToolError, ToolOutput, ToolSpec};
use amber_index::Parsers;
use serde_json::{json, Value};

use super::{failed, optional_count, optional_text, spec, Place};
use crate::coverage::IndexSymbols;
use crate::coverage_query::{self, Journaled};

/// The most files the report lists.
const FILES_MAX: usize = 200;

const SESSION: &str = "The session id (`amber sessions list`), e.g. `20261204-101500-ab12`; default: the workspace's latest.";

/// The session asked for, or the workspace's latest, replayed.
fn journaled(place: &Place, args: &Value) -> Result<Journaled, ToolError> {
    let id = match optional_text(args, "session")? {
        Some(id) => id.to_string(),
        None => crate::session::latest_at(&place.dirs, &place.workspace)
            .map_err(failed)?
            .ok_or_else(|| ToolError::Failed("this workspace has no amber session yet".into()))?,
    };
    coverage_query::journaled(&place.dirs, &place.workspace, &id)
        .map_err(|e| ToolError::InvalidArgs(format!("{e:#}")))?
        .ok_or_else(|| {
            ToolError::InvalidArgs(format!(
                "session {id} has no read coverage in this workspace"
            ))
        })
}

pub struct ReportTool {
    spec: ToolSpec,
    place: Place,
    parsers: Arc<dyn Parsers>,
}

impl ReportTool {
    pub fn new(place: Place, parsers: Arc<dyn Parsers>) -> Self {
        let spec = spec(
            "coverage_report",
            "How much of each file an amber session's agents have read, by symbol: `path seen/total seen% full-body%`, most covered first. `agent` narrows it to `main`, `task` (every sub-agent) or one, like `task-2`.",
            json!({
                "type": "object",
                "properties": {
                    "session": {"type": "string", "description": SESSION},
                    "agent": {"type": "string", "description": "Only agents whose id starts with this: `main`, `task`, `task-2`."}
                },
                "additionalProperties": false
            }),
            true,
        );
        ReportTool {
            spec,
            place,
            parsers,
        }
    }
}

impl Tool for ReportTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let journaled = journaled(&self.place, args)?;
        let agent = optional_text(args, "agent")?;
        let (files, source) = coverage_query::indexed(
            &self.place.workspace,
            self.parsers.clone(),
            &self.place.dirs.cache,
            &|_| {},
        );
        let rows = coverage_query::file_rows(&journaled, files, &source, agent);
        let mut content = format!("session {}: {} files\n", journaled.session, rows.len());
        for r in rows.iter().take(FILES_MAX) {
            content.push_str(&format!(
                "{} {}/{} {:.0}% {:.0}%\n",
                r.path,
                r.seen,
                r.total,
                r.seen_percent(),
                r.full_body_percent()
            ));
        }
        if rows.len() > FILES_MAX {
            content.push_str(&format!("… and {} more files\n", rows.len() - FILES_MAX));
        }
        Ok(ToolOutput {
            content,
            meta: Some(json!({
                "session": journaled.session,
                "files": rows.len(),
                "malformed_lines": journaled.malformed,
                "unmapped_calls": journaled.unmapped,
            })),
            images: Vec::new(),
        })
    }
}

pub struct DigestTool {
    spec: ToolSpec,
    place: Place,
    parsers: Arc<dyn Parsers>,
}

impl DigestTool {
    pub fn new(place: Place, parsers: Arc<dyn Parsers>) -> Self {
        let spec = spec(
            "coverage_digest",
            "The restore digest of an amber session: the symbols its main agent had read, fresh or changed since, freshest and deepest first, within a token budget. Read it after a compaction to know what not to read again.",
            json!({
                "type": "object",
                "properties": {
                    "session": {"type": "string", "description": SESSION},
                    "budget": {"type": "integer", "minimum": 100, "maximum": 20000, "description": "At most this many tokens (default 1500)."}
                },
                "additionalProperties": false
            }),
            true,
        );
        DigestTool {
            spec,
            place,
            parsers,
        }
    }
}

impl Tool for DigestTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let journaled = journaled(&self.place, args)?;
        let budget = optional_count(
            args,
            "budget",
            amber_coverage::digest::DEFAULT_BUDGET,
            100..=20_000,
        )?;
        let source = IndexSymbols::new(
            &self.place.workspace,
            self.parsers.clone(),
            &self.place.dirs.cache,
        );
        let digest = coverage_query::digest(&journaled, &source, budget);
        let content = if digest.is_empty() {
            format!("session {} read nothing yet\n", journaled.session)
        } else {
            digest.markdown()
        };
        Ok(ToolOutput {
            content,
            meta: Some(json!({"session": journaled.session})),
            images: Vec::new(),
        })
    }
}
