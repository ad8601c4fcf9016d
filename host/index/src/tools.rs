//! The agent's code tools: `outline`, `show` and `callers`, served natively
//! by the host from the index and the parser components, and installed in
//! the ledger like any contribution, so the model can read by symbol.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::ports::{Tool, ToolError, ToolOutput, ToolSpec};
use amber_core::{Ledger, LedgerError, Owner, Service};
use serde_json::{json, Value};

use crate::show::ShowOptions;
use crate::{render, Index, IndexError, Parsers};

/// The most source `show` hands the model at once.
const SHOW_MAX_BYTES: usize = 64 << 10;
/// The most call sites `callers` lists.
const CALLERS_MAX: usize = 200;

/// What every code tool needs: the root, the parsers and the cache.
#[derive(Clone)]
pub struct CodeContext {
    pub root: PathBuf,
    pub parsers: Arc<dyn Parsers>,
    pub cache_dir: PathBuf,
}

impl CodeContext {
    fn index(&self) -> Index<'_> {
        Index::new(&self.root, self.parsers.as_ref(), &self.cache_dir)
    }
}

/// Installs the three tools for the host.
pub fn install(ledger: &Ledger, context: CodeContext) -> Result<(), LedgerError> {
    let tools: [Arc<dyn Tool>; 3] = [
        Arc::new(OutlineTool::new(context.clone())),
        Arc::new(ShowTool::new(context.clone())),
        Arc::new(CallersTool::new(context)),
    ];
    for tool in tools {
        ledger.install(&Owner::Host, Service::Tool(tool))?;
    }
    Ok(())
}

fn spec(name: &str, description: &str, schema: Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        input_schema: schema,
        read_only: true,
        gated_by_exec: false,
    }
}

fn failed(e: IndexError) -> ToolError {
    match e {
        IndexError::Selector(_) | IndexError::NoSymbol(_) | IndexError::OutsideRoot(_) => {
            ToolError::InvalidArgs(e.to_string())
        }
        other => ToolError::Failed(other.to_string()),
    }
}

fn text_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    args[name]
        .as_str()
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::InvalidArgs(format!("`{name}` must be a non-empty string")))
}

pub struct OutlineTool {
    spec: ToolSpec,
    context: CodeContext,
}

impl OutlineTool {
    pub fn new(context: CodeContext) -> Self {
        let spec = spec(
            "outline",
            "List the symbols of a source file (functions, types, impls, classes, headings) with their line ranges and ids. Read a symbol with `show` by its id instead of reading the whole file.",
            json!({
                "type": "object",
                "properties": {"path": {"type": "string", "description": "The file, relative to the workspace."}},
                "required": ["path"],
                "additionalProperties": false
            }),
        );
        OutlineTool { spec, context }
    }
}

impl Tool for OutlineTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let path = text_arg(args, "path")?;
        let entry = self.context.index().file(Path::new(path)).map_err(failed)?;
        Ok(ToolOutput {
            content: render::outline(&entry),
            meta: Some(json!({"path": entry.path, "symbols": entry.symbols.len()})),
        })
    }
}

pub struct ShowTool {
    spec: ToolSpec,
    context: CodeContext,
}

impl ShowTool {
    pub fn new(context: CodeContext) -> Self {
        let spec = spec(
            "show",
            "Show one symbol's source by its id (`src/app.rs::App/new`, as `outline` lists) or by a hash prefix (`b3:1a2b3c4d`). `no_body: true` shows only the signature.",
            json!({
                "type": "object",
                "properties": {
                    "symbol": {"type": "string", "description": "`<path>::<name-path>` or `b3:<hex>`."},
                    "no_body": {"type": "boolean", "description": "Only the signature."}
                },
                "required": ["symbol"],
                "additionalProperties": false
            }),
        );
        ShowTool { spec, context }
    }
}

impl Tool for ShowTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let symbol = text_arg(args, "symbol")?;
        let options = ShowOptions {
            no_body: args["no_body"].as_bool().unwrap_or(false),
            max_bytes: Some(SHOW_MAX_BYTES),
        };
        let shown = self.context.index().show(symbol, options).map_err(failed)?;
        Ok(ToolOutput {
            content: render::shown(&shown),
            meta: Some(
                json!({"id": shown.id, "path": shown.path, "lines": [shown.line_start, shown.line_end]}),
            ),
        })
    }
}

pub struct CallersTool {
    spec: ToolSpec,
    context: CodeContext,
}

impl CallersTool {
    pub fn new(context: CodeContext) -> Self {
        let spec = spec(
            "callers",
            "Find the calls of a function or method by name across the workspace, each with the symbol it is called from. Calls inside macros such as println! count.",
            json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "The called name, e.g. `parse_config`."}},
                "required": ["name"],
                "additionalProperties": false
            }),
        );
        CallersTool { spec, context }
    }
}

impl Tool for CallersTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let name = text_arg(args, "name")?;
        let found = self.context.index().callers(&[name.to_string()]);
        let total = found.sites.len();
        let mut content = match total {
            0 => format!("no calls of `{name}` found\n"),
            n => format!("{n} calls of `{name}`:\n"),
        };
        content.push_str(&render::callers(&found.sites[..total.min(CALLERS_MAX)]));
        if total > CALLERS_MAX {
            content.push_str(&format!("… and {} more\n", total - CALLERS_MAX));
        }
        for skip in &found.skipped {
            content.push_str(&format!("(not searched: {}: {})\n", skip.path, skip.reason));
        }
        Ok(ToolOutput {
            content,
            meta: Some(json!({"calls": total})),
        })
    }
}
