//! What `amber mcp serve` offers another agent (Claude Code, Codex): one
//! workspace's symbol index, read coverage and governed memory, as core
//! tools that amber-mcp's server adapter lists and calls. Every tool is
//! confined to the workspace it was made for; in read mode only the
//! read-only ones are offered (docs/mcp.md, "Serving").

mod coverage;
mod memory;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::ports::{Tool, ToolError};
use amber_index::tools::{
    CallersTool, CodeContext, GrepTool, IndexStatusTool, OutlineTool, ShowTool,
};
use amber_memory::semantic::minilm::MiniLm;
use amber_runtime::manager::PluginManager;
use anyhow::Result;
use serde_json::Value;

use crate::host::{self, Host};

/// What another agent may do through the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeMode {
    /// Reading only: `store` is not offered.
    Read,
    /// Reading, and storing memories.
    Write,
}

/// The tools served, and the plugins (the parsers) they need alive.
pub struct Served {
    _manager: PluginManager,
    pub tools: Vec<Arc<dyn Tool>>,
    /// Said as the server starts: a parser-less workspace, say.
    pub warnings: Vec<String>,
}

/// The tools for `workspace`: the plugins loaded for their parsers, the
/// memory namespace the workspace's own.
pub fn tools(host: &Host, workspace: &Path, mode: ServeMode) -> Result<Served> {
    let manager = host::loaded(host, workspace)?;
    let parsers = host::parsers(&manager)?;
    let mut warnings = Vec::new();
    if parsers.languages().is_empty() {
        warnings.push(
            "no parser plugin is enabled: outline, show and callers fail saying so, and index_status finds no file (see `amber plugin list`)".to_string(),
        );
    }
    let code = CodeContext {
        root: workspace.to_path_buf(),
        parsers: parsers.clone(),
        cache_dir: host.dirs.cache.clone(),
    };
    let place = Place {
        dirs: host.dirs.clone(),
        workspace: workspace.to_path_buf(),
        encoder: Default::default(),
    };
    let mut tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(OutlineTool::new(code.clone())),
        Arc::new(ShowTool::new(code.clone())),
        Arc::new(CallersTool::new(code.clone())),
        Arc::new(GrepTool::new(code.clone())),
        Arc::new(IndexStatusTool::new(code)),
        Arc::new(coverage::ReportTool::new(place.clone(), parsers.clone())),
        Arc::new(coverage::DigestTool::new(place.clone(), parsers)),
        Arc::new(memory::RecallTool::new(place.clone())),
        Arc::new(memory::CompileTool::new(place.clone())),
    ];
    if mode == ServeMode::Write {
        tools.push(Arc::new(memory::StoreTool::new(place)));
    }
    Ok(Served {
        _manager: manager,
        tools,
        warnings,
    })
}

/// Where the served tools work: the user's dirs and the workspace, and
/// the sentence encoder recall ranks with, loaded on first use and kept
/// for the server's life.
#[derive(Clone)]
struct Place {
    dirs: amber_runtime::AmberDirs,
    workspace: PathBuf,
    encoder: Arc<std::sync::OnceLock<Result<Option<MiniLm>, String>>>,
}

impl Place {
    /// The configured encoder, or `None`; one that cannot load fails
    /// every recall, naming its file.
    fn encoder(&self) -> Result<Option<&MiniLm>, ToolError> {
        self.encoder
            .get_or_init(|| crate::memory::model(&self.dirs).map_err(|e| format!("{e:#}")))
            .as_ref()
            .map(Option::as_ref)
            .map_err(|e| ToolError::Failed(e.clone()))
    }

    /// The workspace's memory namespace: another agent's memories of this
    /// repository are amber's, and no other repository's.
    fn namespace(&self) -> String {
        amber_memory::namespace::for_workspace(&self.workspace)
    }
}

/// A string argument, or `None` when it is absent; one of another type is
/// the caller's mistake.
fn optional_text<'a>(args: &'a Value, name: &str) -> Result<Option<&'a str>, ToolError> {
    match &args[name] {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.as_str())),
        other => Err(ToolError::InvalidArgs(format!(
            "`{name}` must be a string, not {other}"
        ))),
    }
}

/// A required, non-empty string argument.
fn required_text<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    optional_text(args, name)?
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::InvalidArgs(format!("`{name}` must be a non-empty string")))
}

/// A whole-number argument in `range`, or `default` when absent.
fn optional_count(
    args: &Value,
    name: &str,
    default: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<usize, ToolError> {
    match &args[name] {
        Value::Null => Ok(default),
        value => value
            .as_u64()
            .map(|n| n as usize)
            .filter(|n| range.contains(n))
            .ok_or_else(|| {
                ToolError::InvalidArgs(format!(
                    "`{name}` must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ))
            }),
    }
}

/// A failure of amber's own (a database, a journal), for the caller.
fn failed(e: anyhow::Error) -> ToolError {
    ToolError::Failed(format!("{e:#}"))
}

fn spec(
    name: &str,
    description: &str,
    schema: Value,
    read_only: bool,
) -> amber_core::ports::ToolSpec {
    amber_core::ports::ToolSpec {
        name: name.into(),
        description: description.into(),
        input_schema: schema,
        read_only,
        gated_by_exec: false,
        approval_group: None,
    }
}
