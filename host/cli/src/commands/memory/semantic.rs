//! Semantic recall from the command line: which model (if any) recall
//! uses, and keeping its embedding view up to date (docs/memory.md).

use std::path::PathBuf;

use amber_memory::semantic::minilm::MiniLm;
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

/// The configured model, loaded; `None` when none is configured. A
/// configured model that cannot be loaded is an error naming its file.
pub fn configured() -> Result<Option<MiniLm>> {
    configured_dir()?
        .map(|dir| MiniLm::load(&dir).map_err(|e| anyhow!(e)))
        .transpose()
}

/// Says on stderr where a recall with a model went by words only:
/// `unembedded` is [`amber_memory::Recall::unembedded`].
pub fn explain(namespace: &str, unembedded: Option<usize>) {
    match unembedded {
        None => eprintln!(
            "amber: {namespace} has more than 2,000 records, so recall ranks it by words only"
        ),
        Some(0) => {}
        Some(left) => eprintln!(
            "amber: {left} records are not embedded yet and are recalled by their words only; \
             `amber memory embed` embeds them all"
        ),
    }
}
