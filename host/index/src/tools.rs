//! The agent's code tools: `outline`, `show` and `callers`, served natively
//! by the host from the index and the parser components, and installed in
//! the ledger like any contribution, so the model can read by symbol.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::ports::{Tool, ToolError, ToolOutput, ToolSpec};
use amber_core::{Ledger, Owner, Service};
use serde_json::{json, Value};

use crate::indexer::Skipped;
use crate::show::ShowOptions;
use crate::{render, Index, IndexError, Parsers};

/// The most source `show` hands the model at once.
const SHOW_MAX_BYTES: usize = 64 << 10;
/// The most call sites `callers` lists.
const CALLERS_MAX: usize = 200;
/// The most files `callers` lists as not searched.
const SKIPPED_MAX: usize = 20;
/// The most hits `grep` lists.
const GREP_MAX: usize = 200;

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

/// Installs the three tools for the host. A name a plugin already holds
/// stays the plugin's: that tool is left out, and the returned problems say
/// so; the others are still installed.
pub fn install(ledger: &Ledger, context: CodeContext) -> Vec<String> {
    let tools: [Arc<dyn Tool>; 3] = [
        Arc::new(OutlineTool::new(context.clone())),
        Arc::new(ShowTool::new(context.clone())),
        Arc::new(CallersTool::new(context)),
    ];
    let mut problems = Vec::new();
    for tool in tools {
        let name = tool.spec().name.clone();
        if let Err(e) = ledger.install(&Owner::Host, Service::Tool(tool)) {
            problems.push(format!("the host's `{name}` tool is left out: {e}"));
        }
    }
    problems
}

fn spec(name: &str, description: &str, schema: Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        input_schema: schema,
        read_only: true,
        gated_by_exec: false,
        approval_group: None,
    }
}

/// What the model asked wrong is `InvalidArgs` (it should ask again
/// differently); anything else is the tool failing.
fn failed(e: IndexError) -> ToolError {
    match e {
        IndexError::Selector(_)
        | IndexError::Pattern(_)
        | IndexError::NoSymbol(_)
        | IndexError::OutsideRoot(_)
        | IndexError::NoParser { .. }
        | IndexError::Read { .. } => ToolError::InvalidArgs(e.to_string()),
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
            images: Vec::new(),
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
            "Show one symbol's source by its id (`src/app.rs::App/new`, as `outline` lists), by name (`App/new` or `new`: when several symbols match, the error lists their ids) or by a hash prefix (`b3:1a2b3c4d`). `no_body: true` shows only the signature.",
            json!({
                "type": "object",
                "properties": {
                    "symbol": {"type": "string", "description": "`<path>::<name-path>`, a name or name-path end, or `b3:<hex>`."},
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
            images: Vec::new(),
        })
    }
}

pub struct CallersTool {
    spec: ToolSpec,
    context: CodeContext,
}

/// Names up to [`SKIPPED_MAX`] files with why (`what`: "not searched" or
/// "partly searched"), so the model knows the answer may miss calls.
fn note_files(content: &mut String, what: &str, files: &[Skipped]) {
    for file in files.iter().take(SKIPPED_MAX) {
        content.push_str(&format!("({what}: {}: {})\n", file.path, file.reason));
    }
    if files.len() > SKIPPED_MAX {
        content.push_str(&format!(
            "(… and {} more files {what})\n",
            files.len() - SKIPPED_MAX
        ));
    }
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
        note_files(&mut content, "not searched", &found.skipped);
        note_files(&mut content, "partly searched", &found.partial);
        Ok(ToolOutput {
            content,
            meta: Some(json!({"calls": total, "partly_searched": found.partial.len()})),
            images: Vec::new(),
        })
    }
}

/// A regex search whose every hit names the symbol it is in: what
/// `amber grep` does, as a tool. Not installed for amber's own model
/// (its built-in `grep` serves it); `amber mcp serve` offers it.
pub struct GrepTool {
    spec: ToolSpec,
    context: CodeContext,
}

impl GrepTool {
    pub fn new(context: CodeContext) -> Self {
        let spec = spec(
            "grep",
            "Search the workspace's files for a regular expression (Rust regex syntax). Each hit is `path:line: text  [symbol id]`, the id being the innermost symbol holding it (`src/app.rs::App/new`), which `show` takes. At most 200 hits.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "A regex, e.g. `fn parse_\\w+` or `TODO`."},
                    "ignore_case": {"type": "boolean", "description": "Match case-insensitively."}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        );
        GrepTool { spec, context }
    }
}

impl Tool for GrepTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let pattern = text_arg(args, "pattern")?;
        let ignore_case = args["ignore_case"].as_bool().unwrap_or(false);
        let (hits, skipped) = self
            .context
            .index()
            .grep(pattern, ignore_case)
            .map_err(failed)?;
        let total = hits.len();
        let mut content = match total {
            0 => format!("no line matches `{pattern}`\n"),
            n => format!("{n} matching lines:\n"),
        };
        content.push_str(&render::grep(&hits[..total.min(GREP_MAX)]));
        if total > GREP_MAX {
            content.push_str(&format!("… and {} more\n", total - GREP_MAX));
        }
        note_files(&mut content, "not searched", &skipped);
        Ok(ToolOutput {
            content,
            meta: Some(json!({"hits": total, "not_searched": skipped.len()})),
            images: Vec::new(),
        })
    }
}

/// How much of the workspace the index holds, indexing what changed:
/// what `amber index` reports, as a tool.
pub struct IndexStatusTool {
    spec: ToolSpec,
    context: CodeContext,
}

impl IndexStatusTool {
    pub fn new(context: CodeContext) -> Self {
        let spec = spec(
            "index_status",
            "How much of the workspace the symbol index covers: files and symbols per language, and the files skipped with why. It indexes what changed since the last call first (outlines are cached by content), so a first call on a big tree can take seconds.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        );
        IndexStatusTool { spec, context }
    }
}

impl Tool for IndexStatusTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, _args: &Value) -> Result<ToolOutput, ToolError> {
        let (_, report) = self.context.index().build(&|_| {});
        let languages: Vec<String> = report
            .languages
            .iter()
            .map(|(language, files)| format!("{language} {files}"))
            .collect();
        let mut content = format!(
            "{} files indexed ({}), {} symbols; {} parsed now, {} from the cache\n",
            report.files,
            if languages.is_empty() {
                "no language a parser serves".to_string()
            } else {
                languages.join(", ")
            },
            report.symbols,
            report.parsed,
            report.cached
        );
        note_files(&mut content, "skipped", &report.skipped);
        for dropped in &report.dropped_languages {
            content.push_str(&format!(
                "({} left out: {} files, {})\n",
                dropped.language, dropped.files, dropped.reason
            ));
        }
        let meta = serde_json::to_value(&report).unwrap_or(Value::Null);
        Ok(ToolOutput {
            content,
            meta: Some(meta),
            images: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_core::ports::Parser;

    /// No parsers: the tools are only installed here, never called.
    struct NoParsers;

    impl Parsers for NoParsers {
        fn for_extension(&self, _ext: &str) -> Option<Arc<dyn Parser>> {
            None
        }
        fn serves(&self, _language: &str) -> bool {
            false
        }
        fn languages(&self) -> Vec<String> {
            Vec::new()
        }
        fn fingerprint(&self, _language: &str) -> String {
            String::new()
        }
    }

    /// A parser that finds one call on line 1 and says it stopped early.
    struct Stopping(amber_core::ports::LanguageSpec);

    impl Parser for Stopping {
        fn language(&self) -> &amber_core::ports::LanguageSpec {
            &self.0
        }
        fn outline(
            &self,
            _source: &str,
        ) -> Result<Vec<amber_core::ports::Symbol>, amber_core::ports::PortError> {
            Ok(Vec::new())
        }
        fn references(
            &self,
            _source: &str,
            _name: &str,
        ) -> Result<amber_core::ports::Calls, amber_core::ports::PortError> {
            Ok(amber_core::ports::Calls {
                spans: vec![amber_core::ports::Span {
                    byte_start: 0,
                    byte_end: 1,
                    line: 1,
                }],
                incomplete: Some("the bound was reached".into()),
            })
        }
    }

    struct OneParser(Arc<dyn Parser>);

    impl Parsers for OneParser {
        fn for_extension(&self, ext: &str) -> Option<Arc<dyn Parser>> {
            (ext == "rs").then(|| Arc::clone(&self.0))
        }
        fn serves(&self, language: &str) -> bool {
            language == "rust"
        }
        fn languages(&self) -> Vec<String> {
            vec!["rust".into()]
        }
        fn fingerprint(&self, _language: &str) -> String {
            "stopping".into()
        }
    }

    #[test]
    fn the_callers_tool_tells_the_model_a_file_was_searched_in_part() {
        let ws = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("a.rs"), "h();\n").unwrap();
        let spec = amber_core::ports::LanguageSpec {
            name: "rust".into(),
            extensions: vec!["rs".into()],
        };
        let context = CodeContext {
            root: ws.path().to_path_buf(),
            parsers: Arc::new(OneParser(Arc::new(Stopping(spec)))),
            cache_dir: cache.path().to_path_buf(),
        };
        let out = CallersTool::new(context)
            .call(&json!({"name": "h"}))
            .unwrap();
        assert!(
            out.content.starts_with("1 calls of `h`:"),
            "{}",
            out.content
        );
        assert!(
            out.content
                .contains("(partly searched: a.rs: the bound was reached)"),
            "{}",
            out.content
        );
    }

    #[test]
    fn a_plugin_tool_of_the_same_name_keeps_it_and_the_others_install() {
        let ledger = Ledger::new();
        let context = CodeContext {
            root: PathBuf::from("/ws"),
            parsers: Arc::new(NoParsers),
            cache_dir: PathBuf::from("/cache"),
        };
        let plugin_show: Arc<dyn Tool> = Arc::new(ShowTool::new(context.clone()));
        ledger
            .install(&Owner::Plugin("other".into()), Service::Tool(plugin_show))
            .unwrap();
        let problems = install(&ledger, context);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("the host's `show` tool is left out"),
            "{problems:?}"
        );
        let owners: Vec<(String, String)> = ledger
            .records()
            .into_iter()
            .map(|(owner, c)| (c.name, owner.to_string()))
            .collect();
        assert!(owners.contains(&("show".into(), "plugin `other`".into())));
        assert!(owners.contains(&("outline".into(), "host".into())));
        assert!(owners.contains(&("callers".into(), "host".into())));
    }
}
