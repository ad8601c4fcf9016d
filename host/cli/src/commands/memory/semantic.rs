//! Semantic recall from the command line: which model (if any) recall
//! uses, and keeping its embedding view up to date (docs/memory.md).

use std::path::PathBuf;

use amber_memory::semantic::minilm::{model_dir, MiniLm};
use amber_memory::{Refreshed, Store};
use amber_runtime::AmberDirs;
use anyhow::{anyhow, Result};

use crate::host::{config_path, load_config};

/// Records a command embeds before it recalls: enough for what was added
/// since the last one, few enough (about a second) not to stall it.
pub const EMBEDS_PER_COMMAND: usize = 32;

/// The configured model's directory: `AMBER_EMBEDDING_MODEL`, else
/// `[memory] embedding_model` (relative to the config file's folder).
pub fn configured_dir() -> Result<Option<PathBuf>> {
    let dirs = AmberDirs::from_env();
    let config = load_config(&dirs)?;
    Ok(resolved_dir(&dirs, &config.memory))
}

/// The model directory for `memory`: the environment's, else the
/// config's, a relative one read from the config file's folder.
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
    model_dir(configured.as_deref())
}

/// The configured model, loaded; `None` when none is configured. A
/// configured model that cannot be loaded is an error naming its file.
pub fn configured() -> Result<Option<MiniLm>> {
    configured_dir()?
        .map(|dir| MiniLm::load(&dir).map_err(|e| anyhow!(e)))
        .transpose()
}

/// Embeds up to `max` records of `namespace` that have no current vector,
/// and says on stderr how many are left (their words still count).
pub fn catch_up(
    store: &mut Store,
    model: &MiniLm,
    namespace: &str,
    max: usize,
) -> Result<Refreshed> {
    let refreshed = store.refresh_vectors(model, namespace, max)?;
    if refreshed.remaining > 0 {
        eprintln!(
            "amber: {} records are not embedded yet and are recalled by their words only; \
             `amber memory embed` embeds them all",
            refreshed.remaining
        );
    }
    Ok(refreshed)
}
