//! A session's read coverage asked afterwards, from its journal: what
//! `amber coverage` prints and `amber mcp serve`'s coverage tools answer,
//! worked out once here for both.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_coverage::journal;
use amber_coverage::report::{report, FileCoverage};
use amber_coverage::{classify, ContextLedger, Digest, FileSymbols, Record, SymbolSource, MAIN};
use amber_index::{Index, Parsers, Progress};
use anyhow::{bail, Result};

use crate::coverage::{journal_path, tree_files, IndexSymbols, TreeSymbols};

/// One session's journal, replayed.
pub struct Journaled {
    pub session: String,
    pub journal: PathBuf,
    pub ledger: ContextLedger,
    /// Journal lines that could not be read, skipped.
    pub malformed: usize,
    /// Tool calls the mapper had no mapping for.
    pub unmapped: usize,
}

/// Session `session`'s reads in `workspace`; `None` when it has no
/// journal there (a session of another workspace, or another agent's).
pub fn journaled(
    dirs: &amber_runtime::AmberDirs,
    workspace: &Path,
    session: &str,
) -> Result<Option<Journaled>> {
    if session.is_empty() || session.contains('/') || session.contains("..") {
        bail!("`{session}` is not a session id (see `amber sessions list`)");
    }
    let path = journal_path(dirs, workspace, session);
    if !path.exists() {
        return Ok(None);
    }
    let read = journal::read(&path)?;
    let unmapped = read
        .records
        .iter()
        .filter(|r| matches!(r, Record::Unmapped { .. }))
        .count();
    Ok(Some(Journaled {
        session: session.to_string(),
        ledger: ContextLedger::replay(&read.records),
        journal: path,
        malformed: read.malformed,
        unmapped,
    }))
}

/// The restore digest of the main agent's reads, within `budget` tokens.
pub fn digest(journaled: &Journaled, source: &dyn SymbolSource, budget: usize) -> Digest {
    let reads: Vec<_> = classify(&journaled.ledger, Some(MAIN), source)
        .into_iter()
        .filter(|r| r.agent == MAIN)
        .collect();
    Digest::build(&reads, budget)
}

/// The workspace indexed now, as coverage's parse side: its files, and a
/// source that asks the index for a file the build does not hold.
pub fn indexed(
    workspace: &Path,
    parsers: Arc<dyn Parsers>,
    cache_dir: &Path,
    progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<FileSymbols>, TreeSymbols) {
    let (tree, _) = Index::new(workspace, parsers.as_ref(), cache_dir).build(progress);
    let files = tree_files(&tree);
    let source = TreeSymbols::new(&files, IndexSymbols::new(workspace, parsers, cache_dir));
    (files, source)
}

/// Per file, how much the agents whose id starts with `agent` (all when
/// `None`) have seen. Files read that the build does not hold (no parser
/// for them) count too, as one unit each; gone ones have nothing to
/// count.
pub fn file_rows(
    journaled: &Journaled,
    files: Vec<FileSymbols>,
    source: &TreeSymbols,
    agent: Option<&str>,
) -> Vec<FileCoverage> {
    let mut known: std::collections::BTreeSet<String> =
        files.iter().map(|f| f.path.clone()).collect();
    let mut all = files;
    let read_paths = journaled
        .ledger
        .agents()
        .iter()
        .filter(|(name, _)| agent.is_none_or(|p| name.starts_with(p)))
        .flat_map(|(_, entries)| entries.values().map(|e| e.path.clone()));
    for path in read_paths {
        if known.insert(path.clone()) {
            if let Some(file) = source.file(&path) {
                all.push(file);
            }
        }
    }
    report(&journaled.ledger, &all, agent)
}
