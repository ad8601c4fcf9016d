//! Tool search: when the tools offered to a model would take more than a
//! share of its window (`[tools] defer_over`, 10 % by default), the tools
//! the host may defer (an MCP server's, a plugin the user added) are not
//! declared; one native `tool_search` tool finds them by what they do
//! (BM25 over names and descriptions), returns their full definitions,
//! and they are declared from the next request on. Claude Code users
//! report 98k to 145k tokens of tool definitions with many servers
//! (anthropics/claude-code#13717, #12241); this keeps a hundred tools to
//! one declaration (docs/mcp.md, "Deferral").

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};

use crate::ports::dialect::ToolDecl;
use crate::ports::{Tool, ToolError, ToolOutput, ToolSpec};

/// Successful calls per tool name, shared by an agent and its
/// sub-agents: what the host counts as most used.
pub type ToolUses = Arc<Mutex<std::collections::BTreeMap<String, u64>>>;

/// The search tool's name.
pub const TOOL_SEARCH: &str = "tool_search";

/// Definitions a search returns by default, and at most.
const FOUND_DEFAULT: usize = 5;
const FOUND_MAX: usize = 10;

/// Deferred names a search that finds nothing lists, at most.
const NAMES_LISTED: usize = 60;

/// Which of these tools may wait behind the search: the host's answer
/// (the built-in tools and the most used never do), asked once an
/// arrangement with every tool's name.
pub type MayDefer = Arc<dyn Fn(&[&str]) -> std::collections::HashSet<String> + Send + Sync>;

/// What the host decides deferral with.
#[derive(Clone)]
pub struct DeferralSettings {
    /// Defer when the declarations would take more than this share of the
    /// model's window; 0 turns deferral off.
    pub defer_over: f64,
    pub may_defer: MayDefer,
}

/// A declaration's tokens, estimated as the compressor estimates: four
/// bytes of its JSON a token.
pub fn decl_tokens(decl: &ToolDecl) -> u64 {
    let bytes = decl.name.len()
        + decl.description.len()
        + serde_json::to_string(&decl.input_schema).map_or(0, |s| s.len());
    (bytes as u64).div_ceil(crate::compress::tokens::BYTES_PER_TOKEN)
}

/// The tools waiting behind the search, and those a search brought in:
/// shared by the agent, which declares the found ones, and its
/// `tool_search` tool, which finds them.
#[derive(Default)]
pub struct Shelf {
    inner: Mutex<Shelved>,
}

#[derive(Default)]
struct Shelved {
    waiting: Vec<ToolDecl>,
    found: BTreeSet<String>,
    /// The waiting tools a narrowing in force lets through (a skill's
    /// `allowed-tools`, a custom agent's list): what a search may find.
    /// `None`: no narrowing.
    visible: Option<BTreeSet<String>>,
}

/// Which tools a request declares, and which wait.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOffer {
    /// Declared in full.
    pub offered: Vec<String>,
    /// Declared because a search found them.
    pub found: Vec<String>,
    /// Waiting behind `tool_search`.
    pub deferred: Vec<String>,
}

impl Shelf {
    fn lock(&self) -> MutexGuard<'_, Shelved> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Splits `decls` as `settings` and the `window` say: the ones
    /// declared in full, and (kept here) the ones that wait. Tools wait
    /// when the ones that may (the host says which) would take more than
    /// `defer_over` of the window. `None`: they fit, nothing waits; and
    /// so when a tool of the host's is itself named `tool_search`. A
    /// tool found before that still waits stays found. `visible` is what
    /// a narrowing in force allows: the only tools a search finds.
    pub fn arrange(
        &self,
        decls: &[ToolDecl],
        window: u64,
        settings: &DeferralSettings,
        visible: Option<&dyn Fn(&str) -> bool>,
    ) -> Option<Vec<ToolDecl>> {
        let mut shelved = self.lock();
        let names: Vec<&str> = decls.iter().map(|d| d.name.as_str()).collect();
        if settings.defer_over <= 0.0 || window == 0 || names.contains(&TOOL_SEARCH) {
            *shelved = Shelved::default();
            return None;
        }
        let deferrable = (settings.may_defer)(&names);
        let (waiting, offered): (Vec<ToolDecl>, Vec<ToolDecl>) = decls
            .iter()
            .cloned()
            .partition(|d| deferrable.contains(&d.name));
        let weight: u64 = waiting.iter().map(decl_tokens).sum();
        let budget = (settings.defer_over * window as f64) as u64;
        if waiting.is_empty() || weight <= budget {
            *shelved = Shelved::default();
            return None;
        }
        let waiting_names: BTreeSet<&str> = waiting.iter().map(|d| d.name.as_str()).collect();
        shelved
            .found
            .retain(|name| waiting_names.contains(name.as_str()));
        shelved.visible = visible.map(|allows| {
            waiting
                .iter()
                .filter(|d| allows(&d.name))
                .map(|d| d.name.clone())
                .collect()
        });
        shelved.waiting = waiting;
        Some(offered)
    }

    /// The declarations a search brought in, in the order they wait.
    pub fn found(&self) -> Vec<ToolDecl> {
        let shelved = self.lock();
        shelved
            .waiting
            .iter()
            .filter(|d| shelved.found.contains(&d.name))
            .cloned()
            .collect()
    }

    /// The names still waiting (not found yet).
    pub fn deferred(&self) -> Vec<String> {
        let shelved = self.lock();
        shelved
            .waiting
            .iter()
            .filter(|d| !shelved.found.contains(&d.name))
            .map(|d| d.name.clone())
            .collect()
    }

    /// The waiting tools best matching `query`, at most `limit`, marked
    /// found; and how many were waiting.
    pub fn search(&self, query: &str, limit: usize) -> (Vec<ToolDecl>, usize) {
        let mut shelved = self.lock();
        let ranked = rank(&shelved.waiting, query);
        let best: Vec<ToolDecl> = ranked
            .into_iter()
            .map(|i| shelved.waiting[i].clone())
            .filter(|d| {
                shelved
                    .visible
                    .as_ref()
                    .is_none_or(|visible| visible.contains(&d.name))
            })
            .take(limit)
            .collect();
        for decl in &best {
            shelved.found.insert(decl.name.clone());
        }
        (best, shelved.waiting.len())
    }
}

/// A text's search words: split at anything not a letter or digit and
/// where a lower-case letter meets a capital (`github__create_issue` and
/// `createIssue` both hold `create` and `issue`), lower case, a plural's
/// `s` dropped (`issues` finds `issue`).
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut last_lower = false;
    for c in text.chars() {
        let starts_word = c.is_uppercase() && last_lower;
        if (!c.is_alphanumeric() || starts_word) && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        last_lower = c.is_lowercase();
    }
    if !word.is_empty() {
        words.push(word);
    }
    for word in &mut words {
        if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
            word.pop();
        }
    }
    words
}

/// BM25 over each declaration's name (its words counted three times: a
/// name says most) and description; the indexes of the ones that match
/// any word, best first.
fn rank(decls: &[ToolDecl], query: &str) -> Vec<usize> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let documents: Vec<Vec<String>> = decls
        .iter()
        .map(|d| {
            let name = words(&d.name);
            let mut all = Vec::new();
            for _ in 0..3 {
                all.extend(name.iter().cloned());
            }
            all.extend(words(&d.description));
            all
        })
        .collect();
    let count = documents.len() as f64;
    if documents.is_empty() {
        return Vec::new();
    }
    let average = documents.iter().map(Vec::len).sum::<usize>() as f64 / count;
    let terms: BTreeSet<String> = words(query).into_iter().collect();
    let mut frequency: HashMap<&str, usize> = HashMap::new();
    for term in &terms {
        let holding = documents.iter().filter(|d| d.contains(term)).count();
        frequency.insert(term.as_str(), holding);
    }
    let mut scored: Vec<(usize, f64)> = documents
        .iter()
        .enumerate()
        .filter_map(|(i, document)| {
            let length = document.len() as f64;
            let score: f64 = terms
                .iter()
                .map(|term| {
                    let tf = document.iter().filter(|w| *w == term).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let n = frequency.get(term.as_str()).copied().unwrap_or(0) as f64;
                    let idf = ((count - n + 0.5) / (n + 0.5) + 1.0).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average.max(1.0)))
                })
                .sum();
            (score > 0.0).then_some((i, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(i, _)| i).collect()
}

/// `tool_search`: finds waiting tools and brings them in.
pub struct ToolSearchTool {
    spec: ToolSpec,
    shelf: Arc<Shelf>,
}

impl ToolSearchTool {
    pub fn new(shelf: Arc<Shelf>) -> Self {
        let spec = ToolSpec {
            name: TOOL_SEARCH.into(),
            description: "Find tools that are not declared yet (many MCP servers' and plugins' tools wait here so they do not fill the context): search by what you need done, e.g. `create a github issue` or `query postgres`. Returns the best matches' full definitions; call them from your next step as declared tools.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words for what the tool should do."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": FOUND_MAX, "description": "At most this many tools (default 5)."}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
            read_only: true,
            gated_by_exec: false,
            approval_group: None,
        };
        ToolSearchTool { spec, shelf }
    }

    /// Its declaration.
    pub fn decl(&self) -> ToolDecl {
        ToolDecl {
            name: self.spec.name.clone(),
            description: self.spec.description.clone(),
            input_schema: self.spec.input_schema.clone(),
        }
    }
}

impl Tool for ToolSearchTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let query = args["query"]
            .as_str()
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| ToolError::InvalidArgs("`query` must be a non-empty string".into()))?;
        // A model writes `5`, `5.0` or `"5"`: each is five.
        let limit = match &args["limit"] {
            Value::Null => FOUND_DEFAULT,
            v => v
                .as_f64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                .filter(|n| n.fract() == 0.0 && (1.0..=FOUND_MAX as f64).contains(n))
                .map(|n| n as usize)
                .ok_or_else(|| {
                    ToolError::InvalidArgs(format!("`limit` must be 1 to {FOUND_MAX}"))
                })?,
        };
        let (found, waiting) = self.shelf.search(query, limit);
        if found.is_empty() {
            let names = self.shelf.deferred();
            let mut listed: Vec<String> = names.iter().take(NAMES_LISTED).cloned().collect();
            if names.len() > NAMES_LISTED {
                listed.push(format!("… and {} more", names.len() - NAMES_LISTED));
            }
            return Ok(ToolOutput {
                content: format!(
                    "no waiting tool matches `{query}`; the {waiting} waiting are: {}",
                    listed.join(", ")
                ),
                meta: Some(json!({"found": []})),
                images: Vec::new(),
            });
        }
        let mut content = format!(
            "{} of {waiting} waiting tools match; they are declared from your next step:\n",
            found.len()
        );
        for decl in &found {
            content.push_str(&format!(
                "\n## {}\n{}\nparameters: {}\n",
                decl.name,
                decl.description,
                serde_json::to_string(&decl.input_schema).unwrap_or_default()
            ));
        }
        let names: Vec<&str> = found.iter().map(|d| d.name.as_str()).collect();
        Ok(ToolOutput {
            content,
            meta: Some(json!({"found": names})),
            images: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, description: &str) -> ToolDecl {
        ToolDecl {
            name: name.into(),
            description: description.into(),
            input_schema: json!({"type": "object"}),
        }
    }

    fn settings(defer_over: f64) -> DeferralSettings {
        DeferralSettings {
            defer_over,
            may_defer: Arc::new(|names: &[&str]| {
                names
                    .iter()
                    .filter(|n| n.contains("__"))
                    .map(|n| n.to_string())
                    .collect()
            }),
        }
    }

    #[test]
    fn tools_that_fit_are_all_declared_and_a_search_finds_the_right_one_when_they_do_not() {
        let mut decls = vec![decl("read_file", "Read a file.")];
        for i in 0..300 {
            decls.push(decl(
                &format!("srv__tool_{i}"),
                &format!("Does thing number {i} with widgets."),
            ));
        }
        decls.push(decl(
            "github__create_issue",
            "Open a new issue in a GitHub repository.",
        ));
        let shelf = Shelf::default();
        assert!(shelf
            .arrange(&decls, 1_000_000, &settings(0.10), None)
            .is_none());
        assert!(shelf.deferred().is_empty());
        let offered = shelf
            .arrange(&decls, 20_000, &settings(0.10), None)
            .unwrap();
        assert_eq!(offered.len(), 1, "only read_file is declared");
        assert_eq!(shelf.deferred().len(), 301);
        let (found, waiting) = shelf.search("create an issue on github", 3);
        assert_eq!(waiting, 301);
        assert_eq!(found[0].name, "github__create_issue");
        assert_eq!(shelf.found()[0].name, "github__create_issue");
        assert_eq!(shelf.deferred().len(), 301 - found.len());
        // Arranged again (a late tool came): what was found stays found.
        shelf
            .arrange(&decls, 20_000, &settings(0.10), None)
            .unwrap();
        assert!(shelf
            .found()
            .iter()
            .any(|d| d.name == "github__create_issue"));
        // Off: everything declared.
        assert!(shelf
            .arrange(&decls, 20_000, &settings(0.0), None)
            .is_none());
    }

    #[test]
    fn a_search_that_finds_nothing_names_the_waiting_tools() {
        let shelf = Arc::new(Shelf::default());
        let decls: Vec<ToolDecl> = (0..100)
            .map(|i| decl(&format!("srv__t{i}"), "Widgets."))
            .collect();
        shelf.arrange(&decls, 1_000, &settings(0.10), None).unwrap();
        let tool = ToolSearchTool::new(shelf.clone());
        let out = tool.call(&json!({"query": "zebra"})).unwrap();
        assert!(
            out.content.contains("no waiting tool matches"),
            "{}",
            out.content
        );
        assert!(out.content.contains("srv__t0") && out.content.contains("… and 40 more"));
        let out = tool.call(&json!({"query": "t7"})).unwrap();
        assert!(out.content.contains("## srv__t7"), "{}", out.content);
        assert!(tool.call(&json!({"query": ""})).is_err());
        assert!(tool.call(&json!({"query": "x", "limit": 99})).is_err());
    }

    #[test]
    fn words_split_camel_case_and_drop_a_plurals_s() {
        assert_eq!(words("github__createIssue"), ["github", "create", "issue"]);
        assert_eq!(words("List open Issues"), ["list", "open", "issue"]);
        assert_eq!(words("class access"), ["class", "access"]);
    }

    #[test]
    fn under_a_narrowing_a_search_finds_only_what_it_allows_and_a_taken_name_turns_deferral_off() {
        let decls: Vec<ToolDecl> = ["srv__open_ticket", "srv__close_ticket"]
            .iter()
            .map(|n| decl(n, "A ticket tool of the tracker."))
            .collect();
        let shelf = Shelf::default();
        let allows = |name: &str| name == "srv__close_ticket";
        shelf
            .arrange(&decls, 100, &settings(0.10), Some(&allows))
            .unwrap();
        let (found, waiting) = shelf.search("ticket", 5);
        assert_eq!(waiting, 2);
        let names: Vec<&str> = found.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["srv__close_ticket"]);
        let mut clash = decls.clone();
        clash.push(decl(TOOL_SEARCH, "A plugin's own search."));
        assert!(shelf.arrange(&clash, 100, &settings(0.10), None).is_none());
        assert!(shelf.deferred().is_empty());
    }
}
