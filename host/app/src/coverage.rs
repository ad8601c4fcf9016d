//! Read coverage for a session (docs/coverage.md): amber-coverage behind
//! core's `ReadTracker` port. Each successful tool call is mapped to
//! per-symbol reads against the project index, kept per agent, journaled
//! at the end of each turn (this host is the journal's one writer), told
//! back to the model as a line on a result it already had, and as the
//! digest after a compaction or on resume.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use amber_core::ports::ReadTracker;
use amber_coverage::journal::{self, JournalWriter};
use amber_coverage::mapper::Mapped;
use amber_coverage::{
    classify, ContextLedger, Digest, FileSymbols, Read, Record, SymbolInfo, SymbolSource,
    ToolCallMapper, MAIN,
};
use amber_index::{Index, Parsers};
use serde_json::Value;

/// The tools whose results get the "already read" line: the ones a model
/// re-reads in a loop.
const ANNOTATED: [&str; 4] = ["read_file", "show", "outline", "grep"];

/// The workspace's files as the project index parses them now.
pub struct IndexSymbols {
    root: PathBuf,
    parsers: Arc<dyn Parsers>,
    cache_dir: PathBuf,
}

impl IndexSymbols {
    pub fn new(root: &Path, parsers: Arc<dyn Parsers>, cache_dir: &Path) -> Self {
        IndexSymbols {
            root: root.to_path_buf(),
            parsers,
            cache_dir: cache_dir.to_path_buf(),
        }
    }

    /// `path` relative to the root, `/`-separated; `None` outside it.
    fn relative(&self, path: &str) -> Option<(String, PathBuf)> {
        let abs = amber_core::confine::confine(&self.root, path).ok()?;
        let rel = abs.strip_prefix(&self.root).ok()?;
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        (!rel.is_empty()).then_some((rel, abs))
    }
}

impl SymbolSource for IndexSymbols {
    fn file(&self, path: &str) -> Option<FileSymbols> {
        let (rel, abs) = self.relative(path)?;
        if !abs.is_file() {
            return None;
        }
        let index = Index::new(&self.root, self.parsers.as_ref(), &self.cache_dir);
        match index.file(Path::new(&rel)) {
            Ok(entry) => Some(file_symbols(&entry)),
            // No parser for it (a text file, a config): one unit, hashed
            // whole, if it really is inside the workspace (a symlink out of
            // it is not) and not too big to hash on every call.
            Err(amber_index::IndexError::NoParser { .. }) => {
                let real = std::fs::canonicalize(&abs).ok()?;
                let root = std::fs::canonicalize(&self.root).ok()?;
                let meta = std::fs::metadata(&real).ok()?;
                if !real.starts_with(&root)
                    || !meta.is_file()
                    || meta.len() > amber_index::MAX_FILE_BYTES
                {
                    return None;
                }
                let bytes = std::fs::read(&real).ok()?;
                Some(FileSymbols {
                    path: rel,
                    content_hash: blake3::hash(&bytes).to_hex().to_string(),
                    symbols: Vec::new(),
                })
            }
            Err(_) => None,
        }
    }
}

/// The mapper `config` asks for: the built-in mappings and
/// `[coverage.tools]` on top; a mistake there is a warning, and the
/// built-in mappings stay.
pub fn mapper(config: &amber_config::CoverageConfig) -> (ToolCallMapper, Option<String>) {
    if config.tools.is_empty() {
        return (ToolCallMapper::built_in(), None);
    }
    let text = toml::to_string(&config.tools).unwrap_or_default();
    match ToolCallMapper::with_overrides(&text) {
        Ok(mapper) => (mapper, None),
        Err(e) => (
            ToolCallMapper::built_in(),
            Some(format!(
                "coverage.tools in the config: {e}; using the built-in mappings"
            )),
        ),
    }
}

/// The read coverage of session `session` in `workspace`, its journal
/// under `dirs.data`, the parse side from the project index.
pub fn for_session(
    dirs: &amber_runtime::AmberDirs,
    workspace: &Path,
    session: &str,
    parsers: Arc<dyn Parsers>,
    config: &amber_config::CoverageConfig,
) -> (SessionReads, Vec<String>) {
    let path = journal_path(dirs, workspace, session);
    let source = IndexSymbols::new(workspace, parsers, &dirs.cache);
    let (mapper, warning) = mapper(config);
    let (reads, mut warnings) = SessionReads::open(
        &path,
        mapper,
        Box::new(source),
        config.digest_tokens as usize,
    );
    warnings.extend(warning);
    (reads, warnings)
}

/// Where session `session` of `workspace` keeps its journal.
pub fn journal_path(dirs: &amber_runtime::AmberDirs, workspace: &Path, session: &str) -> PathBuf {
    journal::path(&dirs.data, &journal::workspace_key(workspace), session)
}

/// One indexed file as coverage counts it.
fn file_symbols(entry: &amber_index::FileEntry) -> FileSymbols {
    FileSymbols {
        path: entry.path.clone(),
        content_hash: entry.content_hash.clone(),
        symbols: entry
            .symbols
            .iter()
            .map(|s| SymbolInfo {
                id: s.id.clone(),
                name: s.symbol.name.clone(),
                line_start: s.symbol.line_start,
                line_end: s.symbol.line_end,
                hash: s.hash.clone(),
            })
            .collect(),
    }
}

/// The files of an index build, as coverage counts them.
pub fn tree_files(tree: &amber_index::ProjectTree) -> Vec<FileSymbols> {
    tree.files.iter().map(file_symbols).collect()
}

/// A built tree as the parse side, for classify over a whole workspace
/// (`amber coverage`): a file the build has is not parsed again; one it
/// has not (a text file, say) is asked of the index.
pub struct TreeSymbols {
    files: std::collections::BTreeMap<String, FileSymbols>,
    fallback: IndexSymbols,
}

impl TreeSymbols {
    pub fn new(files: &[FileSymbols], fallback: IndexSymbols) -> Self {
        TreeSymbols {
            files: files.iter().map(|f| (f.path.clone(), f.clone())).collect(),
            fallback,
        }
    }
}

impl SymbolSource for TreeSymbols {
    fn file(&self, path: &str) -> Option<FileSymbols> {
        match self.files.get(path) {
            Some(file) => Some(file.clone()),
            None => self.fallback.file(path),
        }
    }
}

struct State {
    ledger: ContextLedger,
    writer: Option<JournalWriter>,
    /// The session's turn count, carried over from the journal.
    turn: u32,
    /// The journal could not be written: said once.
    write_failed: Option<String>,
    /// Records not written yet (a failed write is tried again).
    pending: Vec<Record>,
    /// Sub-agents numbered so far (`task-N`, unique in the session).
    sub_agents: u32,
}

impl State {
    /// Appends what changed (and anything a failed write left) and
    /// fsyncs; a failure keeps the records for the next time, and is a
    /// warning for the user the first time (the front end shows it: a
    /// print here would tear the TUI's screen).
    #[must_use]
    fn flush(&mut self) -> Option<String> {
        let records = self.ledger.diff();
        self.pending.extend(records);
        let Some(writer) = self.writer.as_mut() else {
            self.pending.clear();
            return None;
        };
        match writer.append(&self.pending) {
            Ok(()) => {
                self.pending.clear();
                None
            }
            Err(e) if self.write_failed.is_none() => {
                self.write_failed = Some(e.to_string());
                Some(format!("read coverage: {e}; trying again at the next turn"))
            }
            Err(_) => None,
        }
    }
}

impl Drop for SessionReads {
    /// What the last turn read is written on the way out too.
    fn drop(&mut self) {
        // On the way out there is no turn left to warn in.
        let _ = self.state().flush();
    }
}

/// One session's read coverage.
pub struct SessionReads {
    state: Mutex<State>,
    mapper: ToolCallMapper,
    source: Box<dyn SymbolSource + Send + Sync>,
    budget: usize,
}

impl SessionReads {
    /// Opens the journal at `journal_path` (its one writer) and rebuilds
    /// the ledger from what it holds. A journal another amber writes is
    /// read but not written (the warning says so).
    pub fn open(
        journal_path: &Path,
        mapper: ToolCallMapper,
        source: Box<dyn SymbolSource + Send + Sync>,
        budget: usize,
    ) -> (SessionReads, Vec<String>) {
        let mut warnings = Vec::new();
        let read = journal::read(journal_path).unwrap_or_else(|e| {
            warnings.push(format!("read coverage: {e}; starting it afresh"));
            journal::Journal::default()
        });
        if read.malformed > 0 {
            warnings.push(format!(
                "read coverage: {} malformed lines of {} were skipped",
                read.malformed,
                journal_path.display()
            ));
        }
        let turn = read
            .records
            .iter()
            .map(|r| match r {
                Record::Read { entry, .. } => entry.turn,
                Record::Compacted { turn }
                | Record::Cleared { turn }
                | Record::Unmapped { turn, .. } => *turn,
            })
            .max()
            .unwrap_or(0);
        let writer = match JournalWriter::open(journal_path) {
            Ok(writer) => Some(writer),
            Err(e) => {
                warnings.push(format!("read coverage is not recorded: {e}"));
                None
            }
        };
        let reads = SessionReads {
            state: Mutex::new(State {
                ledger: ContextLedger::replay(&read.records),
                writer,
                turn: turn + 1,
                write_failed: None,
                pending: Vec::new(),
                sub_agents: 0,
            }),
            mapper,
            source,
            budget,
        };
        (reads, warnings)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The digest of what the main agent has read, or `None` when it has
    /// read nothing: what a compacted or resumed session is told.
    pub fn digest(&self) -> Option<String> {
        let state = self.state();
        let reads = classify(&state.ledger, Some(MAIN), self.source.as_ref());
        let reads: Vec<_> = reads.into_iter().filter(|r| r.agent == MAIN).collect();
        if reads.is_empty() {
            return None;
        }
        Some(Digest::build(&reads, self.budget).markdown())
    }
}

impl ReadTracker for SessionReads {
    fn tool_result(&self, agent: &str, tool: &str, args: &Value, output: &str) -> Option<String> {
        let reads: Vec<Read> = match self.mapper.map(tool, args, output, self.source.as_ref()) {
            Mapped::Reads(reads) => reads,
            Mapped::Unmapped => {
                let mut state = self.state();
                let turn = state.turn;
                state.ledger.unmapped(tool, turn);
                return None;
            }
        };
        let mut state = self.state();
        let turn = state.turn;
        // Already read, unchanged and at least as deep, since the last
        // compaction: every target of this call. A call that showed only
        // part of something never says so: the model may not have seen
        // the rest.
        let whole = reads.iter().all(|r| !r.partial);
        let already: Option<u32> = if ANNOTATED.contains(&tool) && !reads.is_empty() && whole {
            reads
                .iter()
                .map(|r| {
                    state
                        .ledger
                        .read_in_context(agent, &r.symbol, &r.hash, r.depth)
                        .map(|e| e.turn)
                })
                .collect::<Option<Vec<u32>>>()
                .and_then(|turns| turns.into_iter().max())
        } else {
            None
        };
        for read in &reads {
            state.ledger.record(agent, read, turn);
        }
        already.map(|t| {
            format!(
                "(coverage: you already read this in turn {t} of this session, unchanged since)"
            )
        })
    }

    fn turn_ended(&self) -> Option<String> {
        let mut state = self.state();
        state.turn += 1;
        state.flush()
    }

    fn compacted(&self) -> Option<String> {
        {
            let mut state = self.state();
            let turn = state.turn;
            state.ledger.compacted(turn);
            // What is read from here on is after the compaction, even
            // within the model turn it happened in.
            state.turn += 1;
            // Durable at once: a session that quits right after a
            // `/compact` must not resume believing the old reads are in
            // its context. A failure is said at the end of the turn,
            // which writes again.
            let _ = state.flush();
        }
        self.digest()
    }

    fn sub_agent(&self) -> String {
        let mut state = self.state();
        // Past the journal's sub-agents (a resumed session) and this
        // run's, whichever task tool starts it.
        let taken = state
            .ledger
            .agents()
            .keys()
            .filter_map(|a| a.strip_prefix("task-")?.parse::<u32>().ok())
            .max()
            .unwrap_or(0);
        let n = taken.max(state.sub_agents) + 1;
        state.sub_agents = n;
        format!("task-{n}")
    }
}
