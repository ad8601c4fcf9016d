//! `grep`: search the workspace. Seed: "Search backends": one tool, two
//! backends picked by `mode`: `semantic` is a lexical BM25 index over
//! identifiers and words, cached per root and glob and rebuilt when files
//! change; anything else (`regex`, the default, or `literal`) is the grep
//! path, built on ripgrep's own crates: `ignore` walks the tree honouring
//! .gitignore (in the host, through the `files` import, for the grep path),
//! `grep-regex` matches, `grep-searcher` searches with context.

mod bm25;
mod search;

use std::collections::HashMap;

use amber_sdk::prelude::*;

/// Matches (or files, in semantic mode) returned when no max is given.
const DEFAULT_MAX: usize = 100;

#[derive(Default)]
struct Grep {
    /// Semantic indexes by (root, glob).
    indexes: HashMap<(String, String), bm25::Index>,
}

impl Plugin for Grep {
    fn manifest() -> Manifest {
        Manifest::new(
            "grep",
            "0.1.0",
            "Searches the workspace: regex, literal, or ranked by words.",
        )
        .permission(Permission::WorkspaceRead, "to search the files")
    }
}

/// The request, read from the arguments.
pub(crate) struct Query<'a> {
    pub pattern: &'a str,
    pub root: &'a str,
    pub glob: Option<globset::GlobMatcher>,
    pub glob_text: &'a str,
    pub literal: bool,
    pub context: usize,
    pub max: usize,
}

impl Query<'_> {
    /// The files and folders under the root, in path order, as ripgrep
    /// walks them: .gitignore honoured even outside a git repository,
    /// hidden files skipped. The paths it yields are usable as they are.
    pub fn walk(&self) -> impl Iterator<Item = ignore::DirEntry> {
        ignore::WalkBuilder::new(self.root)
            .require_git(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build()
            .flatten()
    }

    /// The path as shown in results, if it passes the glob (matched
    /// against the whole relative path or the file name).
    pub fn selects(&self, path: &std::path::Path) -> Option<String> {
        let shown = path
            .strip_prefix("./")
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        match &self.glob {
            Some(glob)
                if !glob.is_match(&shown)
                    && !path.file_name().is_some_and(|n| glob.is_match(n)) =>
            {
                None
            }
            _ => Some(shown),
        }
    }
}

fn query(args: &Value) -> Result<Query<'_>, ToolError> {
    let pattern = args["pattern"]
        .as_str()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ToolError::InvalidArgs("`pattern` must be a non-empty string".into()))?;
    let glob_text = args["glob"].as_str().unwrap_or("");
    let glob = if glob_text.is_empty() {
        None
    } else {
        Some(
            globset::GlobBuilder::new(glob_text)
                .build()
                .map_err(|e| ToolError::InvalidArgs(format!("bad glob `{glob_text}`: {e}")))?
                .compile_matcher(),
        )
    };
    let root = args["path"]
        .as_str()
        .filter(|p| !p.is_empty())
        .unwrap_or(".");
    if let Err(e) = amber_sdk::fs::metadata(root) {
        return Err(ToolError::Failed(if amber_sdk::fs::is_not_granted(&e) {
            format!("{root}: {e}")
        } else {
            format!("{root}: no such file or folder (check it with list_dir or glob)")
        }));
    }
    Ok(Query {
        pattern,
        root,
        glob,
        glob_text,
        literal: args["mode"].as_str() == Some("literal"),
        context: args["context"].as_u64().unwrap_or(0).min(20) as usize,
        max: args["max_results"]
            .as_u64()
            .map_or(DEFAULT_MAX, |m| m.clamp(1, 10_000) as usize),
    })
}

impl ToolPlugin for Grep {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new(
            "grep",
            "Search file contents. mode: regex (default, ripgrep syntax), literal, or semantic \
             (ranks files by how well their identifiers and words match the pattern's words). \
             Honours .gitignore. Results are path:line:text.",
        )
        .schema(json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "A folder or file to search (default: the workspace root)."},
                "glob": {"type": "string", "description": "Only paths matching this glob, e.g. *.rs or src/**/*.ts."},
                "mode": {"type": "string", "enum": ["regex", "literal", "semantic"]},
                "context": {"type": "integer", "minimum": 0, "maximum": 20},
                "max_results": {"type": "integer", "minimum": 1}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }))
        .read_only()]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let q = query(&args)?;
        if args["mode"].as_str() == Some("semantic") {
            let key = (q.root.to_string(), q.glob_text.to_string());
            let index = self.indexes.entry(key).or_default();
            return bm25::search(index, &q);
        }
        search::grep(&q)
    }
}

amber_sdk::export!(Grep: tool);
