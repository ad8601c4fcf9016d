//! Memory recall in a run: the recall prompt block, the database it reads
//! and the sentence-encoder model it ranks with (docs/memory.md).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::{Ledger, Owner, Service};
use amber_memory::namespace;
use amber_memory::prompt_block::RecallBlock;
use amber_runtime::AmberDirs;

use crate::host::config_path;

/// Installs the memory recall block (a host-native head block) in the
/// ledger when this user has a memory database; a warning when the name
/// is taken.
pub fn install_recall_block(
    dirs: &AmberDirs,
    ledger: &Ledger,
    workspace: &Path,
    config: &amber_config::MemoryConfig,
) -> Option<String> {
    let db = database(dirs);
    if !config.recall_block || !db.exists() {
        return None;
    }
    let mut block = RecallBlock::new(
        db,
        namespace::for_workspace(workspace),
        config.recall_budget as usize,
    );
    if let Some(dir) = resolved_dir(dirs, config) {
        block = block.with_model(dir);
    }
    ledger
        .install(&Owner::Host, Service::Prompt(Arc::new(block)))
        .err()
        .map(|e| format!("{e}; memory recall is off for this run"))
}

/// The database path in `dirs`' data dir.
pub fn database(dirs: &AmberDirs) -> PathBuf {
    dirs.data.join(amber_memory::store::DATABASE_FILE)
}

/// The model directory for `memory`: `AMBER_EMBEDDING_MODEL`, else the
/// config's, a relative one read from the config file's folder. (The
/// library never reads the environment; the command line decides.)
pub fn resolved_dir(dirs: &AmberDirs, memory: &amber_config::MemoryConfig) -> Option<PathBuf> {
    let configured = memory.embedding_model.as_ref().map(|path| {
        if path.is_relative() {
            let config = config_path(dirs);
            config
                .parent()
                .map_or_else(|| path.clone(), |folder| folder.join(path))
        } else {
            path.clone()
        }
    });
    std::env::var_os("AMBER_EMBEDDING_MODEL")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or(configured)
}
